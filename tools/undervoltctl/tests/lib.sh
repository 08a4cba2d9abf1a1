# tests/lib.sh: what the host test scripts trial.sh, boot.sh, mce_guard.sh
# and tune_safety.sh share. Sourced after LABEL and bin are set:
#
#	LABEL=name; bin=$(realpath "$1"); . "$(dirname "$0")/lib.sh"
#
# It makes $tmp, and moves /sys (--sysfs-root $root), /proc, /dev, /run and
# /var/lib/undervoltctl into it with the test build's UNDERVOLTCTL_*
# hooks, so that nothing reads or writes the machine's own; syslog goes to
# $tmp/syslog. Checks print one TAP line each; $failed is 1 once one fails.
# shellcheck shell=bash disable=SC2034 # the variables are the scripts'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-$LABEL.XXXXXX")
root=$tmp/sys
drv=$root/devices/system/cpu/intel_undervolt
state=$tmp/state
trialf=$tmp/run/undervoltctl/trial
export UNDERVOLTCTL_PROC_ROOT=$tmp/proc UNDERVOLTCTL_DEV_ROOT=$tmp/dev \
	UNDERVOLTCTL_RUN_ROOT=$tmp/run UNDERVOLTCTL_STATE_DIR=$state \
	UNDERVOLTCTL_TEST_SYSLOG=$tmp/syslog
unset UNDERVOLTCTL_SYSFS_ROOT UNDERVOLTCTL_TEST_FAIL_WRITE \
	UNDERVOLTCTL_TEST_FAIL_READ UNDERVOLTCTL_TEST_LOG_WRITES
failed=0 rc=0 out= err=
# Processes a script starts in the background; they end with it.
helpers=

# The detached revert of a trial, from the trial file.
waiter() { awk '/^armed detached/ { print $3 }' "$trialf" 2>/dev/null; }

end_helpers() {
	local p
	for p in $helpers $(waiter); do
		kill "$p" 2>/dev/null
	done
	helpers=
}
trap 'end_helpers; rm -rf "$tmp"' EXIT

pass() { echo "ok - undervoltctl $LABEL: $1"; }
fail() {
	echo "not ok - undervoltctl $LABEL: $1"
	printf '%s\n' "exit status $rc" "stdout: $out" "stderr: $err" | sed 's/^/#   /'
	failed=1
}
check_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi; }
check_grep() { if grep -qE -- "$2" <<< "$3"; then pass "$1"; else fail "$1 (no /$2/)"; fi; }
check_nogrep() { if grep -qE -- "$2" <<< "$3"; then fail "$1 (/$2/ found)"; else pass "$1"; fi; }
# expect DESC RC [STDOUT-ERE [STDERR-ERE]]: the last uvc.
expect() {
	if [ "$rc" != "$2" ]; then fail "$1 (expected exit $2)"
	elif [ -n "${3:-}" ] && ! grep -qE -- "$3" <<< "$out"; then fail "$1 (stdout: no /$3/)"
	elif [ -n "${4:-}" ] && ! grep -qE -- "$4" <<< "$err"; then fail "$1 (stderr: no /$4/)"
	else pass "$1"; fi
}

# uvc ARGS...: undervoltctl on the fake tree; sets rc, out, err.
uvc() {
	"$bin" --sysfs-root "$root" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

exists() { if [ -e "$1" ]; then echo yes; else echo no; fi; }

# alive PID: running, not a zombie (PID 1 here may not reap orphans).
alive() {
	[ -d "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

# make_tree MODEL PACKAGES PLANES: the driver's v3 files, each package with
# PLANES at 0 mV (and their initial_ files), bounds -250 to 0 mV; a CPU of
# MODEL (family 6) without SGX, an empty kernel log, no trial, no state, a
# boot id and a plain kernel command line.
make_tree() {
	local model=$1 p pl
	end_helpers
	rm -rf "$root" "$tmp/proc" "$tmp/dev" "$tmp/run" "$state" "$tmp/syslog"
	mkdir -p "$drv" "$tmp/proc/sys/kernel/random" "$tmp/dev" "$tmp/run"
	mkdir -m 700 "$state"
	echo -250 > "$drv/min_offset_mv"
	echo 0 > "$drv/max_offset_mv"
	for p in $2; do
		mkdir "$drv/package_$p"
		for pl in $3; do
			echo 0 > "$drv/package_$p/${pl}_offset_mv"
			echo 0 > "$drv/package_$p/initial_${pl}_offset_mv"
		done
	done
	: > "$tmp/dev/kmsg"
	printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: %s\nmodel name\t: Fake\nmicrocode\t: 0x1\nflags\t\t: fpu\n' \
		"$model" > "$tmp/proc/cpuinfo"
	echo 0 > "$tmp/proc/sys/kernel/tainted"
	echo 11111111-2222-3333-4444-555555555555 > "$tmp/proc/sys/kernel/random/boot_id"
	echo 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet' > "$tmp/proc/cmdline"
}
