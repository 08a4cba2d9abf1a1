#!/bin/bash
# tests/run.sh LABEL BINARY: host tests of undervoltctl against a fake sysfs
# tree in a temporary directory. No root, no kernel, no driver.
#
# Prints one TAP line per check, "ok - undervoltctl [LABEL]: ..." or
# "not ok - ...", and exits 1 if any check failed. BINARY must be a test
# build (make check builds them): the rollback checks use its
# UNDERVOLTCTL_TEST_FAIL_WRITE hook to make one plane's write fail, and
# /proc, /dev, /run and /var/lib/undervoltctl are moved into the temporary
# directory with its UNDERVOLTCTL_*_ROOT hooks, so that nothing here reads
# or writes the machine's own.
# UNDERVOLTCTL_WRAPPER, if set, is put in front of every run (valgrind).
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: tests/run.sh LABEL BINARY" >&2; exit 2; }
label=$1
bin=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
read -r -a wrapper <<< "${UNDERVOLTCTL_WRAPPER:-}"
# Sanitizer and valgrind reports get exit codes no check expects.
export ASAN_OPTIONS=exitcode=98:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:exitcode=97:print_stacktrace=1
unset UNDERVOLTCTL_SYSFS_ROOT UNDERVOLTCTL_TEST_FAIL_WRITE \
	UNDERVOLTCTL_TEST_FAIL_READ

tmp=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-test.XXXXXX")
# end_trial: a trial's detached revert may outlive a check: it ends with
# the tree (its pid is in the trial file).
end_trial() {
	local pid
	pid=$(awk '/^armed detached/ { print $3 }' "$tmp/run/undervoltctl/trial" 2>/dev/null)
	[ -z "$pid" ] || kill "$pid" 2>/dev/null
}
trap 'end_trial; rm -rf "$tmp"' EXIT
root=$tmp/sys
drv=$root/devices/system/cpu/intel_undervolt
params=$root/module/intel_undervolt/parameters
export UNDERVOLTCTL_PROC_ROOT=$tmp/proc UNDERVOLTCTL_DEV_ROOT=$tmp/dev \
	UNDERVOLTCTL_RUN_ROOT=$tmp/run UNDERVOLTCTL_STATE_DIR=$tmp/state \
	UNDERVOLTCTL_TEST_SYSLOG=$tmp/syslog
failed=0
rc=0
out=
err=

pass() { echo "ok - undervoltctl [$label]: $1"; }

fail() {
	echo "not ok - undervoltctl [$label]: $1"
	printf '%s\n' "exit status $rc" "stdout: $out" "stderr: $err" |
		sed 's/^/#   /'
	failed=1
}

# uvc ARGS...: run undervoltctl on the fake tree; sets rc, out, err.
uvc() {
	"${wrapper[@]}" "$bin" --sysfs-root "$root" "$@" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# clean: no sanitizer or valgrind report in the last run.
clean() {
	case $rc in 97|98|99) return 1 ;; esac
	! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|==[0-9]+== ' \
		"$tmp/err"
}

# expect DESC RC [STDOUT-ERE [STDERR-ERE]]: check the last run.
expect() {
	local desc=$1 want=$2 o=${3:-} e=${4:-}
	if [ "$rc" != "$want" ]; then
		fail "$desc (expected exit $want)"
	elif ! clean; then
		fail "$desc (sanitizer or valgrind report)"
	elif [ -n "$o" ] && ! grep -qE -- "$o" "$tmp/out"; then
		fail "$desc (stdout does not match /$o/)"
	elif [ -n "$e" ] && ! grep -qE -- "$e" "$tmp/err"; then
		fail "$desc (stderr does not match /$e/)"
	else
		pass "$desc"
	fi
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}

# writes: the writes of the last run with UNDERVOLTCTL_TEST_LOG_WRITES=$tmp/writes,
# relative to the fake tree, on one line; the log is emptied.
writes() {
	[ -f "$tmp/writes" ] || return 0
	sed -e "s|^$drv/||" -e "s|^$params|parameters|" "$tmp/writes" | tr '\n' ' ' | sed 's/ $//'
	rm -f "$tmp/writes"
}

# offsets: every plane file of the tree as "00:core=-80 ...", to compare
# before and after an operation that must change nothing; then whether a
# trial runs.
offsets() {
	local f
	for f in "$drv"/package_*/*_offset_mv; do
		case $f in */initial_*) continue ;; esac
		printf '%s=%s ' "${f#"$drv"/package_}" "$(cat "$f")"
	done
	[ -e "$tmp/run/undervoltctl/trial" ] && echo trial || echo 0
}

# kmsg LINE...: the fake kernel log holds the driver's ready line, then LINEs.
kmsg() {
	local l seq=10
	printf '6,1,100,-;intel_undervolt: voltage offset control ready, core and cache independent\n' > "$tmp/dev/kmsg"
	for l in "$@"; do
		printf '6,%d,200,-;intel_undervolt: %s\n' $((seq++)) "$l" >> "$tmp/dev/kmsg"
	done
}

val() { cat "$drv/package_$1/$2_offset_mv"; }

# gone PID: within 5 s the process is gone (or a zombie, where PID 1 does
# not reap the orphans it inherits).
gone() {
	local i
	for i in $(seq 50); do
		[ -d "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# make_tree: the driver's v3 files: package 0 with every plane, package 1
# without gpu, all writable; an empty kernel log, /proc with a CPU without
# SGX, no trial, no state; RAPL, coretemp and cpufreq sources for monitor.
make_tree() {
	local p pl
	end_trial
	rm -rf "$root" "$tmp/proc" "$tmp/dev" "$tmp/run" "$tmp/state"
	mkdir -p "$drv" "$params" "$tmp/proc/sys/kernel/random" "$tmp/dev" \
		"$tmp/run"
	mkdir -m 700 "$tmp/state"
	echo -250 > "$drv/min_offset_mv"
	echo 0 > "$drv/max_offset_mv"
	for p in 00 01; do
		mkdir "$drv/package_$p"
		for pl in core gpu cache uncore analogio; do
			[ "$p$pl" = 01gpu ] && continue
			echo 0 > "$drv/package_$p/${pl}_offset_mv"
			echo 0 > "$drv/package_$p/initial_${pl}_offset_mv"
		done
	done
	echo -10 > "$drv/package_00/initial_uncore_offset_mv"
	echo 250 > "$params/max_undervolt_mv"
	echo N > "$params/allow_overvolt"
	kmsg
	printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 142\nflags\t\t: fpu vme sse sse2 avx2\n' \
		> "$tmp/proc/cpuinfo"
	echo 0 > "$tmp/proc/sys/kernel/tainted"
	echo 11111111-2222-3333-4444-555555555555 > "$tmp/proc/sys/kernel/random/boot_id"
	echo 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet' > "$tmp/proc/cmdline"

	mkdir -p "$root/class/powercap/intel-rapl:0" \
		"$root/class/powercap/intel-rapl:0:0" "$root/class/hwmon/hwmon3"
	echo package-0 > "$root/class/powercap/intel-rapl:0/name"
	echo 5000000 > "$root/class/powercap/intel-rapl:0/energy_uj"
	echo 262143328850 > "$root/class/powercap/intel-rapl:0/max_energy_range_uj"
	echo core > "$root/class/powercap/intel-rapl:0:0/name"
	echo coretemp > "$root/class/hwmon/hwmon3/name"
	echo 'Package id 0' > "$root/class/hwmon/hwmon3/temp1_label"
	echo 45000 > "$root/class/hwmon/hwmon3/temp1_input"
	echo 'Core 0' > "$root/class/hwmon/hwmon3/temp2_label"
	echo 43000 > "$root/class/hwmon/hwmon3/temp2_input"
	for p in 0 1; do
		mkdir -p "$root/devices/system/cpu/cpu$p/cpufreq"
		echo $((2400000 + p * 100000)) > \
			"$root/devices/system/cpu/cpu$p/cpufreq/scaling_cur_freq"
	done
}

# conf NAME TEXT: a config file in the temporary directory; prints its path.
conf() {
	printf '%b' "$2" > "$tmp/$1"
	echo "$tmp/$1"
}

# The checks, by subject; each file is sourced into this shell.
. "$here/run_verbs.sh"
. "$here/run_issue14.sh"
. "$here/run_issue36.sh"

exit $failed
