#!/bin/bash
# tests/tune_safety.sh BINARY: issue 40, "safe at every boot", on fake
# sysfs trees: tune's evidence (1: a value passes only if it was in force
# for the whole run; writers wait for a search; no package is an error;
# 5: the combined result of core and cache runs before it is written),
# the state it trusts (2: the state directory, tune.lock, the journal's
# configuration, backups), the journal's validation (3), the quarantine of
# coupled planes (4), and tune's small faults (--help, --resume with
# nothing on record or without the driver, writes refused).
# Machine checks come from a helper outside the tool that appends the
# kernel's line to the fake /dev/kmsg while the offsets are too deep.
# BINARY must be a test build. One TAP line per check; exit 1 if one failed.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: tests/tune_safety.sh BINARY" >&2; exit 2; }
LABEL=tune-safety
bin=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
pkg=$drv/package_00

# Short searches: one run of 1 s per value.
TUNE=(tune --runs 1 --duration 1 --engine builtin --margin 10)

# safety_tree [MODEL]: one package with core and cache; MODEL 94
# (Skylake: coupled, cache a link to core as the driver couples them) or
# 60 (Haswell: not coupled); no configuration from an earlier check.
safety_tree() {
	local model=${1:-94}
	make_tree "$model" 00 "core cache"
	[ "$model" = 94 ] && ln -sf core_offset_mv "$pkg/cache_offset_mv"
	rm -rf "$tmp"/undervolt.conf* "$tmp/apply.conf" "$tmp"/victim* \
		"$tmp/elsewhere" "$tmp/away" "$tmp/away-drv" "$tmp/x"
}

# when COND: wait up to 20 s for a shell condition.
when() {
	local i
	for i in $(seq 200); do
		eval "$1" && return 0
		sleep 0.1
	done
	return 1
}

# sign FILE: (re)write the journal's checksum line, as tune does.
sign() {
	python3 - "$1" <<'EOF'
import sys, zlib
p = sys.argv[1]
lines = [l for l in open(p).read().splitlines(True) if not l.startswith('checksum ')]
body = ''.join(lines)
open(p, 'w').write(body + 'checksum crc32 %08x\n' % zlib.crc32(body.encode()))
EOF
}

# journal SETTINGS [LINES...]: a signed journal of a running search of core.
journal() {
	local s=$1
	shift
	{
		printf '# undervoltctl tune journal\nversion 2\nstate running\nconfig %s\n' "$tmp/undervolt.conf"
		printf 'settings %s\ncrashes 0\nplane-index 0\n' "$s"
		printf '%s\n' "$@"
	} > "$state/tune.journal"
	sign "$state/tune.journal"
}

# --- 1. a value passes only if it was in force for the whole run -----------------
safety_tree
(when '[ "$(cat "$pkg/core_offset_mv" 2>/dev/null)" = -60 ]' && sleep 0.5 &&
	echo -20 > "$pkg/core_offset_mv") &
helpers=$!
uvc "${TUNE[@]}" --start -60 --limit -60 -o "$tmp/undervolt.conf"
check_grep "#40.1 a run whose offset moved says so" \
	'at the end of run 1 package 0 core reads -20 mV, not -60: the offset under test was not in force all along, so the run does not count; it runs again' "$err"
check_eq "#40.1 ... and runs the value again before it passes" 2 "$(grep -c '^tune: core -60 mV: run 1 of 1' <<< "$out")"
check_eq "#40.1 ... and the pass is recorded once, after the clean run" \
	"1 tune: core -60 mV: pass" "$(grep -c 'pass ' "$state/tune.journal") $(grep -m1 ': pass$' <<< "$out")"

safety_tree
(when '[ "$(cat "$pkg/core_offset_mv" 2>/dev/null)" = -50 ]' && sleep 0.3 &&
	mv "$pkg" "$tmp/away") &
helpers=$!
uvc "${TUNE[@]}" --start 0 --step 50 --limit -150 -o "$tmp/undervolt.conf"
expect "#40.1 a driver that goes away in a run stops the search: no package is an error" 1 "" \
	'tune: cannot set core -50 mV: the driver shows no package; stopped'
check_nogrep "#40.1 ... no value after it passed" '^result core -(50|100|150) ' "$(cat "$state/tune.journal")"
check_eq "#40.1 ... and nothing was written" no "$([ -e "$tmp/undervolt.conf" ] && echo yes || echo no)"

safety_tree
printf 'core = -30\ncache = -30\n' > "$tmp/apply.conf"
"$bin" --sysfs-root "$root" "${TUNE[@]}" --duration 3 --start 0 --step 50 --limit -50 \
	-o "$tmp/undervolt.conf" > "$tmp/tune.out" 2>&1 &
tunepid=$!
when '[ "$(cat "$pkg/core_offset_mv")" = -50 ]'
uvc apply "$tmp/apply.conf"
expect "#40.1 apply during a search refuses, naming it" 1 "" \
	"a tune search is running \\(pid $tunepid, .*tune.lock is locked\\): its offsets are under test, so nothing was changed"
uvc set core=-10
expect "#40.1 set during a search refuses" 1 "" 'a tune search is running'
uvc reset
expect "#40.1 reset during a search refuses" 1 "" 'a tune search is running'
uvc apply --boot "$tmp/apply.conf"
expect "#40.1 the boot apply (the udev rule on a charger change) refuses too" 1 "" 'a tune search is running'
check_eq "#40.1 ... and the value under test stays" -50 "$(cat "$pkg/core_offset_mv")"
wait $tunepid
check_grep "#40.1 ... and the search passes it" '^tune: core -50 mV: pass$' "$(cat "$tmp/tune.out")"

# --- 2. the state the search trusts ------------------------------------------------
for bad in symlink mode777 owner; do
	safety_tree
	rmdir "$state"
	case $bad in
	symlink) mkdir -m 700 "$tmp/elsewhere"; ln -s "$tmp/elsewhere" "$state" ;;
	mode777) mkdir -m 777 "$state" ;;
	owner) mkdir -m 700 "$state"; chown 65534 "$state" ;;
	esac
	uvc "${TUNE[@]}" --start 0 --limit 0 -o "$tmp/undervolt.conf"
	expect "#40.2 a state directory that is a $bad is refused" 1 "" \
		"$state (is a symbolic link|is writable by group or others \\(mode 0777\\)|is owned by uid 65534, not root): refusing to trust it"
	check_eq "#40.2 ... and nothing is written in it" "" "$(ls "$tmp/elsewhere" 2>/dev/null; ls "$state" 2>/dev/null)"
	rm -rf "$tmp/elsewhere" "$state"
done
safety_tree
ln -s "$tmp/victim" "$state/tune.lock"
uvc "${TUNE[@]}" --start 0 --limit 0 -o "$tmp/undervolt.conf"
expect "#40.2 tune.lock as a symbolic link is refused, not followed" 1 "" \
	"$state/tune.lock is a symbolic link: refusing to follow it"
check_eq "#40.2 ... and its target is not created" no "$([ -e "$tmp/victim" ] && echo yes || echo no)"
safety_tree
echo 'core = -5 # mine' > "$tmp/victim.conf"
chown 65534 "$tmp/victim.conf"
journal '0 50 5 1 1 10 0 3 0 1' 'plane core 0' 'result core 0 pass 1' 'plane-index 1'
sed -i "s|^config .*|config $tmp/victim.conf|" "$state/tune.journal"
sign "$state/tune.journal"
uvc tune --resume
expect "#40.2 a configuration that is not root's is neither written nor backed up" 1 "" \
	"the configuration $tmp/victim.conf is not owned by root: refusing to read or write it"
check_eq "#40.2 ... and stays as it was" "core = -5 # mine|no" \
	"$(cat "$tmp/victim.conf")|$([ -e "$tmp/victim.conf.before-tune" ] && echo yes || echo no)"
safety_tree
printf 'core = -5\n' > "$tmp/undervolt.conf"
chmod 640 "$tmp/undervolt.conf"
chgrp 65534 "$tmp/undervolt.conf"
python3 -c "
import os, struct
e = lambda tag, perm, i=0xffffffff: struct.pack('<HHI', tag, perm, i)
os.setxattr('$tmp/undervolt.conf', 'system.posix_acl_access', struct.pack('<I', 2) +
	e(1, 6) + e(2, 4, 65534) + e(4, 4) + e(0x10, 4) + e(0x20, 0))"
acl=$(python3 -c "import os; print(os.getxattr('$tmp/undervolt.conf', 'system.posix_acl_access').hex())")
uvc "${TUNE[@]}" --start 0 --limit 0 -o "$tmp/undervolt.conf"
expect "#40.2 a search over an existing configuration" 0
check_eq "#40.2 ... keeps it as .before-tune with its mode, owner and ACL" \
	"640 0:65534 $acl core = -5" \
	"$(stat -c '%a %u:%g' "$tmp/undervolt.conf.before-tune" 2>&1) $(python3 -c "import os; print(os.getxattr('$tmp/undervolt.conf.before-tune', 'system.posix_acl_access').hex())" 2>&1) $(cat "$tmp/undervolt.conf.before-tune" 2>&1)"
check_eq "#40.2 ... and the new one gets them too" "640 0:65534 $acl" \
	"$(stat -c '%a %u:%g' "$tmp/undervolt.conf") $(python3 -c "import os; print(os.getxattr('$tmp/undervolt.conf', 'system.posix_acl_access').hex())" 2>&1)"

# --- 3. a damaged journal stops the search and applies nothing ------------------------
safety_tree
journal '0 50 5 1 1 10 -50 3 0 1' 'plane core 0'
uvc tune --resume -o "$tmp/x"
expect "#40.3 a sound journal resumes (the baseline of what follows)" 0 '^tune: done'
while IFS='|' read -r what settings line want; do
	safety_tree
	case $line in plane*) ;; *) line="plane core 0${line:+
$line}" ;; esac
	journal "$settings" "$line"
	case $what in
	edited) sed -i 's/^settings .*/settings 0 50 5 1 1 10 -100 3 0 1/' "$state/tune.journal" ;;
	unsigned) sed -i '/^checksum/d' "$state/tune.journal" ;;
	relative) sed -i 's|^config .*|config undervolt.conf|' "$state/tune.journal"; sign "$state/tune.journal" ;;
	esac
	UNDERVOLTCTL_TEST_LOG_WRITES=$tmp/writes uvc tune --resume
	expect "#40.3 a journal with $what: the search stops" 1 "" \
		"tune.journal: $want.*: the journal is damaged; the search stops and nothing is applied"
	check_eq "#40.3 ... and no offset is written" "" "$(cat "$tmp/writes" 2>/dev/null)"
	rm -f "$tmp/writes"
	uvc tune --recover
	expect "#40.3 ... and tune --recover fails, so undervoltctl.service applies nothing" 1
done <<'EOF'
a duration of 0 s|0 50 5 1 0 10 -100 3 0 1||a setting is outside what tune accepts
a margin of -90 mV|0 50 5 1 1 -90 -100 3 0 1||a setting is outside what tune accepts
a value below the limit|0 50 5 1 1 10 -100 3 0 1|result core -240 pass 1|a value tested is outside the search
an offset to go back to beyond 500 mV|0 50 5 1 1 10 -100 3 0 1|plane core -600|an offset to go back to is beyond 500 mV
edited|0 50 5 1 1 10 -50 3 0 1||its checksum does not match, or it has none
unsigned|0 50 5 1 1 10 -50 3 0 1||its checksum does not match, or it has none
relative|0 50 5 1 1 10 -50 3 0 1||the configuration is not an absolute path
EOF
safety_tree
journal '0 50 5 1 1 10 -100 3 0 1' 'plane core -300'
uvc tune --resume
expect "#40.3 an offset to go back to outside the driver's bounds stops it" 1 "" \
	"core's offset to go back to, -300 mV, is outside the driver's bounds"
safety_tree 60
journal '0 50 5 1 1 10 -100 3 0 1' 'plane core 0'
uvc tune --resume
expect "#40.3 a journal of a coupled CPU on one that is not stops it" 1 "" \
	'it couples core and cache, this CPU does not'

# --- 4. the quarantine covers both coupled planes --------------------------------------
for model in 94 60; do
	safety_tree $model
	coupled=$([ $model = 94 ] && echo 1 || echo 0)
	journal "0 25 5 1 1 10 -250 3 0 $coupled" 'plane core 0' 'step core -120'
	[ $model = 60 ] && sed -i 's/^plane core 0$/plane core 0\nplane cache 0/' "$state/tune.journal" && sign "$state/tune.journal"
	printf 'cache = -150\n' > "$tmp/undervolt.conf"
	uvc tune --recover
	moved=$([ -e "$tmp/undervolt.conf.crashed" ] && echo moved || echo kept)
	if [ $model = 94 ]; then
		check_eq "#40.4 coupled: a crash at core -120 moves aside a config with only cache = -150" moved "$moved"
	else
		check_eq "#40.4 not coupled: the same config stays (cache was not under test)" kept "$moved"
	fi
done

# From Ice Lake to Raptor Lake the driver writes core and cache together,
# as on Skylake: tune searches them as one plane there too, never cache
# alone (which would move core) nor "core and cache together" untested.
for model in 126 140 154 183; do
	safety_tree $model
	uvc "${TUNE[@]}" --dry-run
	expect "#40.5 model $model (Ice Lake to Raptor Lake) searches core with cache, coupled" 0 \
		'^tune plan: core \(with cache: coupled\)$'
done

# --- 5. not coupled: the combined result runs before it is written ------------------
safety_tree 60
# The CPU of this test: core below -100 mV or cache below -80 mV fails, and
# so does their sum below -150 mV; a failing value makes the kernel log a
# machine check while it is in force. It must see a value within the
# 1-s run that tests it, while tune's load and, in make check, a kernel
# build and guests share the CPUs: two loaded runs (2026-12-07) saw it
# lag and a failing pair pass. So it reads the offsets with the shell's
# own read (no process per poll) and, as root, runs ahead of the load.
(
	[ "$(id -u)" = 0 ] && renice -n -10 -p "$BASHPID" >/dev/null
	seq=100
	while :; do
		c='' k=''
		read -r c < "$pkg/core_offset_mv" 2>/dev/null
		read -r k < "$pkg/cache_offset_mv" 2>/dev/null
		if [ -n "$c" ] && [ -n "$k" ] && { [ "$c" -lt -100 ] || [ "$k" -lt -80 ] || [ $((c + k)) -lt -150 ]; }; then
			printf '2,%d,1,-;mce: [Hardware Error]: Machine check events logged\n' $((seq++)) >> "$tmp/dev/kmsg"
		fi
		sleep 0.1
	done
) &
helpers=$!
uvc "${TUNE[@]}" --start 0 --step 50 --resolution 10 --limit -150 -o "$tmp/undervolt.conf"
expect "#40.5 a search of core and cache, one at a time" 0 '^tune: done'
check_grep "#40.5 ... runs the two results together: -90 and -65 fail together" \
	'^tune: core -90 mV with cache -65 mV: machine-check: ' "$out"
check_grep "#40.5 ... raised by --step, they pass" '^tune: core -40 mV with cache -15 mV: pass$' "$out"
check_eq "#40.5 ... and the configuration holds the pair that passed" "core = -40|cache = -15" \
	"$(grep -v '^#' "$tmp/undervolt.conf" | tr '\n' '|' | sed 's/|$//')"
check_grep "#40.5 ... with the combined runs in its evidence" '^#   core   -90 mV, cache   -65 mV  machine-check' "$(cat "$tmp/undervolt.conf")"
end_helpers

# --- tune's own faults ---------------------------------------------------------------
safety_tree
uvc tune --help
expect "tune --help prints its synopsis" 0 '^usage: undervoltctl tune'
uvc tune -h
expect "tune -h too" 0 '^usage: undervoltctl tune'
uvc tune --resume
expect "tune --resume with nothing on record says so" 1 "" \
	"tune: no search on record in $state: nothing to resume; start one with 'undervoltctl tune'"
journal '0 50 5 1 1 10 -100 3 0 1' 'plane core 0'
mv "$drv" "$tmp/away-drv"
UNDERVOLTCTL_TEST_DRIVER_WAIT_S=1 uvc tune --resume
expect "tune --resume without the driver says it waits, then why it stops" 3 \
	'^tune: waiting up to 1 s for the intel_undervolt driver to bind$' 'no intel_undervolt driver'
mv "$tmp/away-drv" "$drv"
echo 'root=/dev/sda1 undervolt=off' > "$tmp/proc/cmdline"
uvc tune --resume
expect "tune --resume under undervolt=off applies nothing and says why" 4 "" \
	'undervolt=off is on the kernel command line \(the recovery switch\): the search is not resumed'
while IFS='|' read -r what setup code want; do
	safety_tree
	eval "$setup"
	UNDERVOLTCTL_TEST_LOG_WRITES=$tmp/writes uvc "${TUNE[@]}" --dry-run
	expect "tune --dry-run where writes are refused ($what): exit $code, no plan" "$code" "" "$want"
	check_nogrep "... and no plan" 'tune plan' "$out"
	rm -f "$tmp/writes"
done <<'EOF'
EPERM from the driver|export UNDERVOLTCTL_TEST_FAIL_WRITE=core_offset_mv=EPERM|4|a write of the offset in force failed: refused by the kernel's policy.*tune cannot search here
EACCES from the driver|export UNDERVOLTCTL_TEST_FAIL_WRITE=core_offset_mv=EACCES|5|a write of the offset in force failed: refused by the firmware.*tune cannot search here
the driver logged oc_lock|printf '6,2,1,-;intel_undervolt: package 00: core offset write refused (oc_lock): locked\n' >> "$tmp/dev/kmsg"|5|package 0: writes refused \(oc_lock\): .*tune cannot search here
lockdown|mkdir -p "$root/kernel/security"; echo 'none [integrity] confidentiality' > "$root/kernel/security/lockdown"|4|writes refused \(lockdown\)
EOF
unset UNDERVOLTCTL_TEST_FAIL_WRITE
safety_tree
uvc set --trial 30 core=-10
uvc "${TUNE[@]}" --start 0 --limit 0
expect "tune does not start while a trial of someone else runs" 1 "" \
	"a trial runs \\(set, .* s left\\): its revert would move the offsets under test"
uvc confirm
exit $failed
