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

# --- command line -----------------------------------------------------------
make_tree
"${wrapper[@]}" "$bin" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
expect "no verb is a usage error" 2 "" '^usage: undervoltctl'
uvc --help
expect "--help prints the synopsis on stdout" 0 '^usage: undervoltctl'
uvc frobnicate
expect "an unknown verb is a usage error" 2 "" "^undervoltctl: 'frobnicate': unknown verb"
uvc status --trial 5
expect "an option the verb does not take is a usage error" 2 "" '^undervoltctl: status: --trial is not an option of this verb'
uvc set
expect "set without PLANE=MV is a usage error" 2
for bad in core-80 cpu=-80 core=abc core= core=-80mV core=-8.5 core=-5000 =-80; do
	uvc set "$bad"
	expect "set $bad is a usage error" 2 "" "^undervoltctl: '$bad': expected PLANE=MV"
done
uvc set core=-10 core=-20
expect "set with a plane given twice is a usage error" 2 "" 'given twice'
uvc status --package 100
expect "--package 100 is a usage error" 2 "" 'package number from 0 to 99'
uvc monitor --interval 0
expect "monitor --interval 0 is a usage error" 2
check_eq "no usage error changed anything" "00/analogio_offset_mv=0 00/cache_offset_mv=0 00/core_offset_mv=0 00/gpu_offset_mv=0 00/uncore_offset_mv=0 01/analogio_offset_mv=0 01/cache_offset_mv=0 01/core_offset_mv=0 01/uncore_offset_mv=0 0" "$(offsets)"

# --- driver missing ------------------------------------------------------------
good=$(conf good.conf 'core = -50\ncache = -50\n')
for verb in status "set core=-50" reset "apply $good"; do
	# shellcheck disable=SC2086
	"${wrapper[@]}" "$bin" --sysfs-root "$tmp/empty" $verb >"$tmp/out" 2>"$tmp/err"
	rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
	expect "${verb%% *} without the driver exits 3 and says how to get it" 3 "" \
		'^undervoltctl: .*CONFIG_INTEL_UNDERVOLT.*DKMS'
done
UNDERVOLTCTL_SYSFS_ROOT=$tmp/empty "${wrapper[@]}" "$bin" status >"$tmp/out" 2>"$tmp/err"
rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
expect "UNDERVOLTCTL_SYSFS_ROOT moves the sysfs root" 3 "" "$tmp/empty/devices"

# --- status ----------------------------------------------------------------------
uvc status
expect "status prints a table" 0 '^package 0: writable$'
expect "status shows the offset and initial value of each plane" 0 '^  uncore +0 mV +-10 mV$'
if grep -q '^  gpu' <(sed -n '/^package 1/,$p' "$tmp/out"); then
	fail "status lists only the planes a package has"
else
	pass "status lists only the planes a package has"
fi
expect "v3: status names the planes the firmware offers no offset on" 0 \
	'^  no offset \(the firmware offers none\): gpu$'
uvc status --json
if ! python3 -c 'import json,sys; json.load(sys.stdin)' < "$tmp/out" 2>/dev/null; then
	fail "status --json is valid JSON"
else
	pass "status --json is valid JSON"
	json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" < "$tmp/out"; }
	check_eq "JSON: schema 2" 2 "$(json 'd["schema"]')"
	check_eq "JSON: bounds" "-250 0" "$(json 'd["min_offset_mv"], d["max_offset_mv"]' | tr -d '(),')"
	check_eq "JSON: packages by id" "[0, 1]" "$(json '[p["id"] for p in d["packages"]]')"
	check_eq "JSON: planes of package 1" "['core', 'cache', 'uncore', 'analogio']" \
		"$(json 'list(d["packages"][1]["planes"])')"
	check_eq "JSON: planes without an offset" "['gpu']" "$(json 'd["packages"][1]["planes_without_offset"]')"
	check_eq "JSON: initial offset" "-10 known" \
		"$(json 'd["packages"][0]["planes"]["uncore"]["initial_offset_mv"], d["packages"][0]["planes"]["uncore"]["offset_state"]' | tr -d "(),'")"
	check_eq "JSON: writable, trial, recovery switch, boot assessment" "True none True 0 False none" \
		"$(json 'd["packages"][0]["writable"], d["packages"][0]["write_block_reason"], d["trial"]["supported"], d["trial"]["remaining_s"], d["recovery_switch"], d["boot_assessment"]["state"]' | tr -d "(),'")"
fi
kmsg 'package 01: core offset write refused (sgx): SGX is enabled (Plundervolt, CVE-2019-11157); disable SGX in the firmware setup to change voltage offsets'
uvc status --json --package 1
check_eq "JSON: --package 1, refused by SGX (the driver's log line)" "1 False sgx" \
	"$(python3 -c 'import json,sys; d=json.load(sys.stdin); p=d["packages"]; print(len(p), p[0]["writable"], p[0]["write_block_reason"])' < "$tmp/out" 2>&1)"
uvc status
expect "status says why a package is not writable and what to do, exit 4" 4 '^package 1: not writable \(sgx\): SGX is enabled; disable SGX'
kmsg 'package 01: core offset write refused (sgx): ...' 'package 01: core offset 0 mV -> -20 mV by undervoltctl[7]'
uvc status
expect "v3: a change the driver logged after a refusal makes the package writable again" 0 '^package 1: writable$'
kmsg
UNDERVOLTCTL_TEST_FAIL_READ=package_00/core_offset_mv=ENODATA uvc status
expect "v3: an offset the driver does not know (ENODATA) reads unknown" 0 \
	'^  core +unknown \(suspended or package offline\) +0 mV$'
UNDERVOLTCTL_TEST_FAIL_READ=package_00/core_offset_mv=ENODATA uvc status --json
check_eq "JSON: an unknown offset is null, state unknown" "None unknown" \
	"$(json 'd["packages"][0]["planes"]["core"]["offset_mv"], d["packages"][0]["planes"]["core"]["offset_state"]' | tr -d "(),'")"

# --- set ---------------------------------------------------------------------------
uvc set core=-80 cache=-80
expect "set core=-80 cache=-80 exits 0" 0 '^package 1 cache: 0 -> -80 mV$'
check_eq "set wrote every package" "-80 -80 -80 -80" "$(val 00 core) $(val 00 cache) $(val 01 core) $(val 01 cache)"
uvc set --package 0 gpu=-40
expect "set --package 0 gpu=-40 exits 0" 0
check_eq "set --package 0 wrote package 0 only" "-40" "$(val 00 gpu)"
before=$(offsets)
uvc set --package 1 gpu=-30
expect "set --package 1 gpu on a package without gpu fails" 1 "" '^undervoltctl: package 1 has no gpu plane'
check_eq "... and changes nothing" "$before" "$(offsets)"
mv "$drv/package_00/gpu_offset_mv" "$tmp/gpu"
uvc set core=-80 gpu=-30
expect "set of a plane no package has fails" 1 "" '^undervoltctl: this CPU has no gpu plane, so it cannot take -30 mV; remove that value or make it 0'
mv "$tmp/gpu" "$drv/package_00/gpu_offset_mv"
check_eq "... and changes nothing" "$before" "$(offsets)"
uvc set gpu=-30
expect "set of a plane that only package 0 has sets it there" 0 '^package 0 gpu: -40 -> -30 mV$'
check_eq "... and writes it" "-30" "$(val 00 gpu)"
uvc set gpu=-40
before=$(offsets)
uvc set core=-300
expect "set outside the bounds fails naming them" 1 "" 'core=-300: outside the bounds in force, -250 to 0 mV'
check_eq "... and changes nothing" "$before" "$(offsets)"
uvc set --dry-run core=-100 cache=-100
expect "set --dry-run shows the change" 0 '^package 0 core: -80 -> -100 mV \(dry run\)$'
check_eq "... and changes nothing" "$before" "$(offsets)"
uvc set core=-80 cache=-80
expect "set to the current values says so" 0 '^nothing to change$'
uvc set --package 7 core=-1
expect "set --package of a missing package fails" 1 "" 'no package 7'

# --- all or nothing ----------------------------------------------------------------
before=$(offsets)
UNDERVOLTCTL_TEST_FAIL_WRITE=package_01/uncore_offset_mv=EIO uvc set core=-90 cache=-90 uncore=-20
expect "a plane failing in the middle fails the whole set" 1 "" \
	'^undervoltctl: package 1 uncore=-20: the firmware ignored or failed the write.*; nothing was changed$'
check_eq "... and the planes already written are put back" "$before" "$(offsets)"
UNDERVOLTCTL_TEST_FAIL_WRITE=package_00/cache_offset_mv=ETIMEDOUT uvc set core=-90 cache=-90
expect "a busy firmware says to try again" 1 "" 'package 0 cache=-90: the firmware stayed busy; try again'
check_eq "... and changes nothing" "$before" "$(offsets)"
UNDERVOLTCTL_TEST_FAIL_WRITE=package_00/core_offset_mv=EOPNOTSUPP uvc set core=-90
expect "EOPNOTSUPP names the plane" 1 "" 'package 0 core=-90: the firmware takes no offset on that plane'
UNDERVOLTCTL_TEST_FAIL_WRITE=package_00/core_offset_mv@-80=EIO,package_01/uncore_offset_mv=EIO \
	uvc set core=-60 uncore=-5
expect "a failed roll-back is reported" 1 "" \
	"^undervoltctl: package 0 core: could not put back -80 mV: .*; check with 'undervoltctl status'\$"
expect "... and the error does not claim nothing changed" 1 "" '^undervoltctl: package 1 uncore=-5: the firmware ignored or failed the write; this CPU may not allow offsets on that plane$'

# Core and cache as one plane (Skylake): cache is a link to core.
make_tree
rm "$drv/package_00/cache_offset_mv"
ln -s core_offset_mv "$drv/package_00/cache_offset_mv"
uvc set --package 0 core=-70 cache=-60
expect "coupled core and cache given different values fail" 1 "" \
	'core reads -60 mV, not -70: on this CPU core and cache are one plane'
check_eq "... and both are put back" "0 0" "$(val 00 core) $(val 00 cache)"
uvc set --package 0 core=-70 cache=-70
expect "coupled core and cache given one value succeed" 0
check_eq "... and read back" "-70 -70" "$(val 00 core) $(val 00 cache)"

# --- policy refusals -----------------------------------------------------------
# v3: the driver keeps no write_block_reason. What the kernel shows refuses
# before any write (lockdown, SGX, a kdump kernel); the driver's errno and
# its log line explain the rest: EPERM the kernel (exit 4), EACCES the
# firmware (exit 5), the same codes as status.
make_tree
mkdir -p "$root/kernel/security"
cpuinfo=$(cat "$tmp/proc/cpuinfo")
for reason in lockdown:'locked down' sgx:'disable SGX' kdump:'kdump kernel'; do
	case ${reason%%:*} in
	lockdown) echo 'none [integrity] confidentiality' > "$root/kernel/security/lockdown" ;;
	sgx) sed -i 's/avx2$/avx2 sgx/' "$tmp/proc/cpuinfo" ;;
	kdump) : > "$tmp/proc/vmcore" ;;
	esac
	before=$(offsets)
	uvc set core=-50
	expect "refused by ${reason%%:*}, as the kernel shows it: exit 4 and what to do" 4 "" \
		"^undervoltctl: package 0: writes refused \\(${reason%%:*}\\): .*${reason#*:}.*nothing was changed$"
	check_eq "... and nothing written" "$before" "$(offsets)"
	uvc status
	expect "... status agrees: exit 4" 4 "^package 0: not writable \\(${reason%%:*}\\)"
	rm -f "$root/kernel/security/lockdown" "$tmp/proc/vmcore"
	echo "$cpuinfo" > "$tmp/proc/cpuinfo"
done
echo 'none [integrity] confidentiality' > "$root/kernel/security/lockdown"
uvc reset
expect "reset is refused by policy too" 4 "" 'package 0: writes refused \(lockdown\)'
echo '[none] integrity confidentiality' > "$root/kernel/security/lockdown"
uvc set core=-50
expect "lockdown 'none' refuses nothing" 0
make_tree
# errno, log line, message, exit code: the driver's refusals of one package.
while IFS='|' read -r errno line want code scode; do
	kmsg ${line:+"$line"}
	before=$(offsets)
	UNDERVOLTCTL_TEST_FAIL_WRITE=package_01/core_offset_mv=$errno uvc set core=-50
	expect "v3: $errno${line:+ with the log line}: exit $code, '$want'" "$code" "" \
		"^undervoltctl: package 1 core=-50: $want.*; nothing was changed$"
	check_eq "... and package 0 is put back" "$before" "$(offsets)"
	if [ -n "$line" ]; then
		uvc status
		expect "... and status says so: exit $scode" "$scode"
	fi
done <<'EOF2'
EPERM|package 01: core offset write refused (sgx): SGX is enabled|refused \(sgx\): SGX is enabled|4|4
EPERM|package 01: core offset write refused (kdump): kdump kernel|refused \(kdump\): this is a kdump kernel|4|4
EPERM||refused by the kernel's policy \(lockdown, SGX or a kdump kernel\)|4|4
EACCES|package 01: core offset write refused (oc_lock): the firmware locked overclocking (completion code 1)|refused \(oc_lock\): the firmware set the overclocking lock|5|5
EACCES|package 01: core offset write refused (uvp): Undervolt Protection|refused \(uvp\): Undervolt Protection|5|5
EACCES||refused by the firmware \(the overclocking lock, or Undervolt Protection\)|5|5
EIO|package 01: firmware ignored the core offset write (-50 mV, reads 0 mV): undervolting is likely disabled|the firmware acknowledged the last write and kept its old offset \(core: wrote -50 mV, reads 0 mV\)|1|5
EIO||the firmware ignored or failed the write|1|5
ENODEV||every CPU of the package is offline|1|5
EOF2
as_nobody_set() {
	cp "$bin" "$tmp/undervoltctl-nobody"
	chmod -R a+rX "$tmp"
	UNDERVOLTCTL_TEST_FAIL_WRITE=package_00/core_offset_mv=EPERM setpriv \
		--reuid=65534 --regid=65534 --clear-groups -- "${wrapper[@]}" \
		"$tmp/undervoltctl-nobody" --sysfs-root "$root" set core=-50 \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
}
kmsg
as_nobody_set
expect "EPERM without CAP_SYS_RAWIO asks for root, exit 1" 1 "" 'not permitted; run as root'
kmsg 'package 01: core offset write refused (oc_lock): the firmware locked overclocking (completion code 1); unlock it'
uvc set --package 0 core=-50
expect "a refusal of package 1 does not stop package 0" 0
# The firmware ignored the last write: reported, the next one not refused.
kmsg 'package 01: firmware ignored the core offset write (-30 mV, reads 0 mV): undervolting is likely disabled in the firmware setup or by microcode'
uvc set --package 1 core=-30
expect "firmware_ignored does not refuse a write" 0
check_eq "... which reaches the driver" -30 "$(val 01 core)"
uvc status
expect "status says the firmware ignored the last write, exit 5" 5 \
	'^package 1: writable, but the firmware acknowledged the last write and kept its old offset \(core: wrote -30 mV, reads 0 mV\)'
uvc status --json
check_eq "JSON: a package whose last write was ignored is writable" "True firmware_ignored" \
	"$(json 'd["packages"][1]["writable"], d["packages"][1]["write_block_reason"]' | tr -d "(),'")"
# A restore after resume the firmware refused: status says the undervolt
# is gone and why, exit 5.
kmsg 'package 01: resume: core offset not restored to -30 mV: -EACCES'
uvc status
expect "status says the driver could not restore core, exit 5" 5 \
	'^package 1: writable, but the driver could not write core back to -30 mV \(resume, -EACCES\)'
uvc status --json
check_eq "JSON: a package whose restore failed is writable" "True restore_failed" \
	"$(json 'd["packages"][1]["writable"], d["packages"][1]["write_block_reason"]' | tr -d "(),'")"
# A plane whose write the firmware does not take: the package stays
# writable.
kmsg 'package 01: gpu offset write refused (unsupported): the firmware does not take this command on this plane'
uvc status
expect "a plane refused as unsupported leaves its package writable, exit 0" 0 '^package 1: writable$'
kmsg
# Hints from MSRs, only read, only when /dev/cpu/0/msr is readable.
mkdir -p "$tmp/dev/cpu/0"
printf '\x00\x00\x10\x00\x00\x00\x00\x00' | dd of="$tmp/dev/cpu/0/msr" bs=1 seek=$((0x194)) 2>/dev/null
uvc status
expect "v3: MSR 0x194 bit 20 is a hint, not a refusal" 0 '^hint: +MSR 0x194 bit 20 is set: the firmware may have locked overclocking'
uvc status --json
check_eq "JSON: the hints" "True False None" "$(json 'd["hints"]["msr_oc_lock"], d["hints"]["msr_sgx_enabled"], d["hints"]["undervolt_protection"]' | tr -d "(),'")"
# Undervolt Protection: MSR 0x195 bit 1, only where MSR 0x10A bit 23
# enumerates it.
printf '\x02\x00\x00\x00\x00\x00\x00\x00' | dd of="$tmp/dev/cpu/0/msr" bs=1 seek=$((0x195)) conv=notrunc 2>/dev/null
uvc status
check_eq "MSR 0x195 without its enumeration is not read" 0 "$(grep -c 'Undervolt Protection' "$tmp/out")"
printf '\x00\x00\x80\x00\x00\x00\x00\x00' | dd of="$tmp/dev/cpu/0/msr" bs=1 seek=$((0x10a)) conv=notrunc 2>/dev/null
uvc status
expect "status names Undervolt Protection from MSR 0x195 bit 1" 0 \
	'^hint: +Undervolt Protection is on \(MSR 0x195 bit 1\): the driver refuses offsets below the initial ones'
uvc status --json
check_eq "JSON: undervolt_protection" "True" "$(json 'd["hints"]["undervolt_protection"]' | tr -d "(),'")"
printf '\x00' | dd of="$tmp/dev/cpu/0/msr" bs=1 seek=$((0x195)) conv=notrunc 2>/dev/null
uvc status --json
check_eq "JSON: undervolt_protection off" "False" "$(json 'd["hints"]["undervolt_protection"]' | tr -d "(),'")"
rm -r "$tmp/dev/cpu"
uvc status --json
check_eq "JSON: without /dev/cpu/0/msr the hints are null" "None None None" "$(json 'd["hints"]["msr_oc_lock"], d["hints"]["msr_sgx_enabled"], d["hints"]["undervolt_protection"]' | tr -d "(),'")"
# Without the driver: what the kernel said when it did not bind.
printf '6,5,100,-;intel_undervolt: CPU model not known to have the voltage offset mailbox, not binding\n' > "$tmp/dev/kmsg"
"${wrapper[@]}" "$bin" --sysfs-root "$tmp/empty" status >"$tmp/out" 2>"$tmp/err"
rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
expect "v3: status without the driver quotes the kernel's reason" 3 "" \
	'^undervoltctl: the kernel log says: intel_undervolt: CPU model not known to have the voltage offset mailbox, not binding$'

# --- reset -----------------------------------------------------------------------
make_tree
uvc set core=-80 cache=-80 uncore=-30
uvc reset --dry-run
expect "reset --dry-run shows the initial values" 0 '^package 0 uncore: -30 -> -10 mV \(dry run\)$'
uvc reset
expect "reset exits 0" 0
check_eq "reset restores the initial values" "0 0 -10 0 0" \
	"$(val 00 core) $(val 00 cache) $(val 00 uncore) $(val 01 core) $(val 01 uncore)"
uvc set uncore=-30
uvc reset --package 1
check_eq "reset --package 1 resets package 1 only" "-30 0" "$(val 00 uncore) $(val 01 uncore)"

# --- trial mode --------------------------------------------------------------------
# v3: user space keeps the trial (tests/trial.sh runs the revert itself).
make_tree
UNDERVOLTCTL_TEST_LOG_WRITES=$tmp/writes uvc set --trial 30 core=-50 cache=-50
expect "set --trial says how to confirm" 0 "^provisional for 30 s: run 'undervoltctl confirm'"
check_eq "set --trial writes only the offsets" \
	"package_00/core_offset_mv=-50 package_00/cache_offset_mv=-50 package_01/core_offset_mv=-50 package_01/cache_offset_mv=-50" \
	"$(writes)"
check_eq "... and records the offsets to go back to" \
	"offset 0 core 0|offset 0 cache 0|offset 1 core 0|offset 1 cache 0" \
	"$(grep '^offset' "$tmp/run/undervoltctl/trial" 2>&1 | tr '\n' '|' | sed 's/|$//')"
uvc status
# 30 s less the time set and status took (seconds under valgrind on a busy host).
expect "status shows the time left" 0 \
	"^trial:   provisional \\(set, 30 s\\): the offsets go back in (2[0-9]|30) s unless 'undervoltctl confirm' \\(detached process, pid [0-9]+\\)$"
waiter=$(awk '/^armed/ { print $3 }' "$tmp/run/undervoltctl/trial")
uvc confirm
expect "confirm exits 0" 0 '^confirmed: the offsets stay$'
check_eq "... the trial is gone, and so is its revert" "0 gone" \
	"$(offsets | sed 's/.* //') $(gone "$waiter" && echo gone || echo running)"
check_eq "... the offsets stay" "-50 -50" "$(val 00 core) $(val 01 cache)"
before=$(offsets)
UNDERVOLTCTL_TEST_FAIL_WRITE=package_01/cache_offset_mv=EIO uvc set --trial 20 core=-60 cache=-60
expect "a failed set --trial fails" 1
check_eq "... and leaves no trial behind" "$before" "$(offsets)"
uvc confirm
expect "confirm with nothing provisional says so" 0 '^nothing is provisional'

# --- apply and the config parser ------------------------------------------------------
make_tree
c=$(conf apply.conf '# laptop\ncore = -80\ncache = -80   # one plane\n\tgpu\t=\t-40\n\n[package 1]\ncore = -70\ncache = -70\nuncore=+0')
uvc apply --dry-run "$c"
expect "apply --dry-run shows per package values" 0 '^package 1 core: 0 -> -70 mV \(dry run\)$'
check_eq "... and changes nothing" "00/analogio_offset_mv=0 00/cache_offset_mv=0 00/core_offset_mv=0 00/gpu_offset_mv=0 00/uncore_offset_mv=0 01/analogio_offset_mv=0 01/cache_offset_mv=0 01/core_offset_mv=0 01/uncore_offset_mv=0 0" "$(offsets)"
uvc apply "$c"
expect "apply exits 0" 0
check_eq "apply: [package 1] overrides the top values" "-80 -80 -40 -70 -70" \
	"$(val 00 core) $(val 00 cache) $(val 00 gpu) $(val 01 core) $(val 01 cache)"
uvc apply "$(conf empty.conf '# nothing yet\n')"
expect "an empty config applies nothing" 0 '^nothing to change$'
# config_errors [LABEL]: each line of stdin, NAME|TEXT|LINE|MESSAGE, is a
# config that apply must refuse with exit 2 naming LINE and MESSAGE.
config_errors() {
	local name text line msg c
	while IFS='|' read -r name text line msg; do
		c=$(conf "$name.conf" "$text")
		uvc apply "$c"
		expect "${1:+$1 }config error ($name): exit 2, file:line and what was expected" 2 "" \
			"^undervoltctl: $c:$line: $msg.*; nothing was applied$"
	done
}

before=$(offsets)
config_errors <<'EOF'
noequals|core -80\n|1|expected '=' after 'core'
plane|core = -50\ncpu = -80\n|2|unknown plane 'cpu'; expected one of core, gpu
twice|core = -80\n# x\ncore = -70\n|3|core set twice in one section; the first is on line 1
section|[package 1]\ncore = -1\n[package 1]\n|3|\[package 1\] repeated; the first is on line 1
badsection|[pkg 1]\n|1|expected '\[package N\]'
bigpackage|[package 100]\n|1|package number out of range; expected 0 to 99
unclosed|[package 1\n|1|expected '\]'
fraction|core = -80.5\n|1|expected whole millivolts after 'core ='
novalue|core =\n|1|expected whole millivolts
junk|core = -80 volts\n|1|unexpected 'volts' after the value
huge|core = -2000\n|1|offset -2000 mV is beyond the file format's limit
cr|core = -80\rcache = -80\n|1|carriage return inside a line
nul|core = -80\n\0\n|2|NUL byte found
EOF
check_eq "no config error changed anything" "$before" "$(offsets)"
c=$(conf later.conf 'core = -20\ncache = -20\ngpu = -20\nuncore = -999\n')
uvc apply "$c"
expect "a value outside the bounds names file and line" 1 "" "^undervoltctl: $c:4: package 0 uncore=-999: outside the bounds"
check_eq "... and nothing is applied" "$before" "$(offsets)"
c=$(conf nopkg.conf 'core = -20\n[package 5]\ncore = -10\n')
uvc apply "$c"
expect "a section for a missing package names the line" 1 "" "^undervoltctl: $c:2: no package 5 on this machine"
c=$(conf fail.conf 'core = -20\ncache = -20\nanalogio = -5\n')
UNDERVOLTCTL_TEST_FAIL_WRITE=package_01/analogio_offset_mv=EIO uvc apply "$c"
expect "apply: a failing plane names file:line, plane, value, cause" 1 "" \
	"^undervoltctl: $c:3: package 1 analogio=-5: the firmware ignored.*nothing was changed$"
check_eq "... and every plane is as it was" "$before" "$(offsets)"
uvc apply "$tmp/missing.conf"
expect "apply of a missing file fails naming it" 1 "" "$tmp/missing.conf: No such file"

# --- import ------------------------------------------------------------------------
uvc import "$here/intel-undervolt.conf"
expect "import of a typical intel-undervolt.conf exits 0" 0 '^core = -100$'
expect "... carries over every plane" 0 '^analogio = 0$'
for what in "power:powercap" "tjoffset:intel_tcc_cooling" "hwphint:energy_performance_preference" \
	"interval:period of intel-undervolt.s daemon" "daemon:no daemon is needed for offsets" "enable:after resume"; do
	expect "... reports '${what%%:*}' lines with what to use instead" 0 "" \
		"^undervoltctl: .*intel-undervolt.conf:[0-9]+: '${what%%:*}.*not carried over; .*${what#*:}"
done
cp "$tmp/out" "$tmp/imported.conf"
uvc apply --dry-run "$tmp/imported.conf"
expect "the imported config parses and applies (dry run)" 0 '^package 0 core: -80 -> -100 mV \(dry run\)$'
uvc import "$here/intel-undervolt-old.conf"
expect "import of the old 'apply'/'tdp' syntax" 0 '^uncore = -20$' "'tdp .*powercap"
uvc import --partial "$here/intel-undervolt-fractional.conf"
expect "import rounds fractions toward 0 and says so" 0 '^core = -25$' '-25.84 mV rounded toward 0 to -25 mV'
expect "import takes the later of a repeated index" 0 '^gpu = -35$' 'index 1 already set on line 4'
expect "import reports an unknown index" 0 '^cache = -25$' 'index 7 is none'
sed "s|@MARK@|$tmp/pwned|g" "$here/intel-undervolt-hostile.conf" > "$tmp/hostile.conf"
uvc import --partial "$tmp/hostile.conf"
expect "import of shell syntax carries over only undervolt lines" 0 '^core = -60$' "unterminated quote"
if [ -e "$tmp/pwned" ]; then fail "import executes nothing"; else pass "import executes nothing"; fi
uvc import --profile 2 "$here/intel-undervolt.conf"
expect "#14.13 import --profile on an intel-undervolt file is ignored, saying so" 0 '^core = -100$' '--profile is for a ThrottleStop.ini'
uvc import --profile 0 "$here/corpus/ThrottleStop.ini"
expect "#14.13 import --profile 0 is refused: ThrottleStop numbers them 1 to 4" 2 "" "--profile '0': expected a ThrottleStop profile from 1 to 4"
uvc import --profile 1 "$here/corpus/ThrottleStop.ini" -o "$tmp/ts.conf"
expect "#14.13 import of a ThrottleStop.ini writes a file" 0 'wrote .*ts.conf: 3 planes'
check_eq "#14.13 ... whose header names the profile" \
	"# undervolt.conf(5), imported from $here/corpus/ThrottleStop.ini, a configuration of ThrottleStop, profile 1 (Performance) by 'undervoltctl import'." \
	"$(head -n 1 "$tmp/ts.conf" 2>&1)"
uvc import "$here/intel-undervolt-empty.conf"
expect "import of a file without undervolt lines fails" 1 "" 'no undervolt line to import'
check_eq "... and prints no config" "" "$out"
uvc import "$tmp/missing.conf"
expect "import of a missing file fails naming it" 1 "" "missing.conf: No such file"

# --- monitor -------------------------------------------------------------------------
make_tree
uvc monitor --interval 0.05 --count 2
expect "monitor prints RAPL power" 0 '^  power    package-0 0\.0 W$'
expect "monitor prints coretemp temperatures" 0 '^  temp     Package id 0 45 C, Core 0 43 C$'
expect "monitor prints each CPU's frequency" 0 '^  MHz      cpu0 2400 cpu1 2500$'
expect "monitor prints the offsets" 0 '^  offset   package 0: core 0 gpu 0 cache 0 uncore 0 analogio 0 mV$'
check_eq "monitor --count 2 prints two samples" 2 "$(grep -c '^  power' "$tmp/out")"
# The RAPL counter wraps between monitor's two reads: 1 000 000 uJ before
# the wrap and 1 000 000 after, in about a second, is about 2 W, never
# negative or huge. The first read is seen through the file's access time
# (relatime updates an atime older than the mtime).
energy="$root/class/powercap/intel-rapl:0/energy_uj"
echo 262142328850 > "$energy"
touch -a -d '1 hour ago' "$energy"
atime=$(stat -c %X "$energy")
(
	for _ in $(seq 500); do
		[ "$(stat -c %X "$energy")" != "$atime" ] && break
		sleep 0.02
	done
	echo 1000000 > "$energy"
) &
writer=$!
uvc monitor --interval 1 --count 1
wait "$writer"
watts=$(sed -n 's/^  power    package-0 \([0-9.]*\) W$/\1/p' "$tmp/out")
if awk -v w="$watts" 'BEGIN { exit !(w != "" && w > 0 && w <= 2.1) }'; then
	pass "a wrapped RAPL counter gives 0 < power <= 2.1 W ($watts W)"
else
	fail "a wrapped RAPL counter gives 0 < power <= 2.1 W (got '$watts': $out)"
fi
mkdir -p "$tmp/bare"
"${wrapper[@]}" "$bin" --sysfs-root "$tmp/bare" monitor --interval 0.01 --count 1 >"$tmp/out" 2>"$tmp/err"
rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
expect "monitor shows missing sources as missing" 0 'power +missing'
for src in temp MHz offset; do
	expect "... $src missing" 0 "^  $src +missing"
done

# --- issue 14: defects and features found in the field ---------------------------
# Each check names the item of issue 14 it covers; each failed before its fix.

# uvc_in FILE ARGS...: uvc with FILE on standard input.
uvc_in() {
	local in=$1
	shift
	"${wrapper[@]}" "$bin" --sysfs-root "$root" "$@" \
		>"$tmp/out" 2>"$tmp/err" <"$in"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# as_nobody ARGS...: uvc without root's capabilities. The binary is copied
# beside the tree: its build directory may be private.
as_nobody() {
	if [ "$(id -u)" != 0 ]; then	# a package build: already nobody
		uvc "$@"
		return
	fi
	cp "$bin" "$tmp/undervoltctl-nobody"
	chmod -R a+rX "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		"${wrapper[@]}" "$tmp/undervoltctl-nobody" --sysfs-root "$root" "$@" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# 1. Trial mode must not outlive the change that asked for it (v3: the
# trial is user space's; a plain change is permanent unless one runs).
make_tree
UNDERVOLTCTL_TEST_LOG_WRITES=$tmp/writes uvc set --package 0 core=-40 cache=-40
expect "#14.1 a plain set exits 0" 0 '^package 0 cache: 0 -> -40 mV$'
check_eq "#14.1 ... writes the offsets only, and arms no trial" \
	"package_00/core_offset_mv=-40 package_00/cache_offset_mv=-40 0" \
	"$(writes) $(offsets | sed 's/.* //')"
if grep -q provisional "$tmp/out" "$tmp/err"; then
	fail "#14.1 ... and does not call itself provisional"
else
	pass "#14.1 ... and does not call itself provisional"
fi
UNDERVOLTCTL_TEST_LOG_WRITES=$tmp/writes uvc set --trial 30 core=-40 cache=-40 --package 0
expect "#14.1 set --trial with nothing to change says so" 0 '^nothing to change$'
if grep -q provisional "$tmp/out"; then
	fail "#14.1 ... and does not print provisional"
else
	pass "#14.1 ... and does not print provisional"
fi
check_eq "#14.1 ... and arms no trial" "0" "$(offsets | sed 's/.* //')"
uvc set --trial 30 --package 1 uncore=-5
uvc set --package 1 uncore=-10
# 30 s less the time the two runs took (seconds under valgrind on a busy host).
expect "#14.1 a plain set during a running trial says it reverts with it" 0 \
	'^provisional: a trial started earlier reverts every offset, these too, in (2[0-9]|30) s$' \
	"^undervoltctl: a trial period is still running \\((2[0-9]|30) s left\\); this change reverts with it unless you run 'undervoltctl confirm'$"
if grep -q 'until reboot' "$tmp/out"; then
	fail "#36.11 a plain set during a running trial does not say it lasts until reboot"
else
	pass "#36.11 a plain set during a running trial does not say it lasts until reboot"
fi
uvc confirm

# 2. A plane the CPU lacks: 0 is a no-op, anything else names the plane.
make_tree
for p in 00 01; do rm -f "$drv/package_$p"/gpu_* "$drv/package_$p"/analogio_*; done
c=$(conf allfive.conf 'core = -70\ngpu = 0\ncache = -70\nuncore = -20\nanalogio = 0\n')
uvc apply "$c"
expect "#14.2 apply of all five planes on a CPU without gpu and analogio, both 0, exits 0" 0 '^package 1 uncore: 0 -> -20 mV$'
check_eq "#14.2 ... and sets the planes the CPU has" "-70 -70 -20 -70 -70 -20" \
	"$(val 00 core) $(val 00 cache) $(val 00 uncore) $(val 01 core) $(val 01 cache) $(val 01 uncore)"
before=$(offsets)
c=$(conf gpu40.conf 'core = -70\ncache = -70\ngpu = -40\n')
uvc apply "$c"
expect "#14.2 a non-zero offset for a plane the CPU lacks fails naming it and the line" 1 "" \
	"^undervoltctl: $c:3: this CPU has no gpu plane, so it cannot take -40 mV; remove that value or make it 0"
check_eq "#14.2 ... and changes nothing" "$before" "$(offsets)"
uvc set analogio=-5
expect "#14.2 the message reads 'no analogio plane'" 1 "" '^undervoltctl: this CPU has no analogio plane, so'
c=$(conf sec0.conf '[package 0]\ngpu = 0\ncore = -70\ncache = -70\n')
uvc apply "$c"
expect "#14.2 gpu = 0 in a [package N] section of a CPU without gpu is a no-op" 0 '^nothing to change$'

# 4. A dry run reports the refusal of the real run, with its exit code
# (v3: as the driver's last line about the package has it).
make_tree
kmsg 'package 01: core offset write refused (oc_lock): the firmware locked overclocking (completion code 1); unlock it in the firmware setup to change voltage offsets'
before=$(offsets)
uvc set --dry-run core=-50 cache=-50
expect "#14.4 set --dry-run refused by the firmware: exit 5 and the reason" 5 "" \
	'^undervoltctl: package 1: writes refused \(oc_lock\): .*nothing was changed$'
c=$(conf dry.conf 'core = -50\ncache = -50\n')
uvc apply --dry-run "$c"
expect "#14.4 apply --dry-run refused by the firmware: exit 5" 5 "" 'writes refused \(oc_lock\)'
check_eq "#14.4 ... and no dry run printed changes" "" "$out"
uvc set --dry-run --package 0 core=-50 cache=-50
expect "#14.4 a dry run on a package that is not refused still works" 0 '^package 0 core: 0 -> -50 mV \(dry run\)$'
check_eq "#14.4 ... and nothing was written" "$before" "$(offsets)"

# 5. Import of hostile input: refuse binaries, sanitise, cap the messages.
printf "undervolt 0 'CPU' -100\r\nundervolt 1 'GPU' -50\r\nundervolt 2 'CPU Cache' -100\r\nundervolt 3 'System Agent' 0\r\nundervolt 4 'Analog I/O' 0\r\n" > "$tmp/crlf.conf"
uvc import "$tmp/crlf.conf"
expect "#14.5 a CRLF file imports" 0 '^core = -100$'
check_eq "#14.5 ... into exactly the five planes" "core = -100|gpu = -50|cache = -100|uncore = 0|analogio = 0" \
	"$(grep -v '^#' "$tmp/out" | tr '\n' '|' | sed 's/|$//')"
check_eq "#14.5 ... with nothing on stderr" "" "$err"
printf "undervolt 0 'CPU' -100\r5\nundervolt 2 'CPU Cache' \xe2\x88\x92100\n" > "$tmp/cr.conf"
uvc import "$tmp/cr.conf"
if grep -q $'[\r\x80-\xff]' "$tmp/err"; then
	fail "#14.5 a carriage return or non-ASCII byte is not quoted back raw"
else
	pass "#14.5 a carriage return or non-ASCII byte is not quoted back raw"
fi
expect "#14.5 ... but shown as '?'" 1 "" "^undervoltctl: $tmp/cr.conf:1: '-100\?5' is not a number of millivolts"
expect "#14.5 ... a Unicode minus too" 1 "" "^undervoltctl: $tmp/cr.conf:2: '\?\?\?100' is not a number of millivolts"
printf "undervolt 0 'CPU' -100\033[2J\n" > "$tmp/esc.conf"
uvc import "$tmp/esc.conf"
expect "#14.5 an escape sequence makes it binary: exit 2, quoted as its byte" 2 "" \
	"^undervoltctl: $tmp/esc.conf:1: byte 0x1b: this is not a text file"
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000undervolt 0 x -1\n' > "$tmp/elf"
uvc import "$tmp/elf"
expect "#14.5 a binary file is refused with exit 2" 2 "" "^undervoltctl: $tmp/elf:1: byte 0x7f: this is not a text file"
check_eq "#14.5 ... in one line, with no output" "1 " "$(wc -l < "$tmp/err") $out"
uvc import /bin/ls
expect "#14.5 /bin/ls is refused with exit 2" 2 "" '^undervoltctl: /bin/ls: larger than 64 KiB'
head -c 1048576 /dev/zero | tr '\0' 'x' | fold -w 3 > "$tmp/junk"
uvc import "$tmp/junk"
expect "#14.5 1 MB of junk is refused with exit 2" 2 "" 'larger than 64 KiB'
check_eq "#14.5 ... in one line" 1 "$(wc -l < "$tmp/err")"
yes 'frobnicate 1 2 3' | head -n 3000 > "$tmp/junk2"
uvc import "$tmp/junk2"
expect "#14.5 3000 unknown lines fail" 1 "" '^undervoltctl: .*junk2: 2980 more messages not shown$'
check_eq "#14.5 ... with 20 lines about single lines and 3 more" 23 "$(wc -l < "$tmp/err")"

# 6. import -o writes the whole file or leaves it; partial imports fail.
mkdir -p "$tmp/etc"
echo 'core = -33' > "$tmp/etc/undervolt.conf"
uvc import -o "$tmp/etc/undervolt.conf" "$here/intel-undervolt-empty.conf"
expect "#14.6 a failed import -o exits 1" 1 "" 'no undervolt line to import'
check_eq "#14.6 ... and leaves the existing file as it was" "core = -33" "$(cat "$tmp/etc/undervolt.conf")"
uvc import -o "$tmp/etc/undervolt.conf" "$here/intel-undervolt-fractional.conf"
expect "#14.6 a partial import exits 1 without --partial" 1 "" \
	"^undervoltctl: .*fractional.conf: 1 line could not be converted; nothing was written: fix it, or give --partial"
check_eq "#14.6 ... and leaves the file as it was" "core = -33" "$(cat "$tmp/etc/undervolt.conf")"
uvc import "$here/intel-undervolt-fractional.conf"
check_eq "#14.6 ... and prints no configuration to stdout either" "1 " "$rc $out"
uvc import -o "$tmp/etc/undervolt.conf" "$here/intel-undervolt.conf"
expect "#14.6 import -o FILE exits 0 and says where it wrote" 0 "^wrote $tmp/etc/undervolt.conf: 5 planes"
check_eq "#14.6 ... the file holds the converted planes" "core = -100|gpu = -50|cache = -100|uncore = 0|analogio = 0" \
	"$(grep -v '^#' "$tmp/etc/undervolt.conf" | tr '\n' '|' | sed 's/|$//')"
check_eq "#14.6 ... mode 644, no temporary file left" "644 undervolt.conf" \
	"$(stat -c %a "$tmp/etc/undervolt.conf") $(ls "$tmp/etc" | tr '\n' ' ' | sed 's/ $//')"
uvc import --partial -o "$tmp/etc/undervolt.conf" "$here/intel-undervolt-fractional.conf"
expect "#14.6 --partial writes what could be converted" 0 "^wrote $tmp/etc/undervolt.conf: 4 planes"
uvc import -o /nonexistent/dir/undervolt.conf "$here/intel-undervolt.conf"
expect "#14.6 an unwritable -o FILE fails naming it" 1 "" '^undervoltctl: /nonexistent/dir/undervolt.conf: cannot write: No such file or directory'

# 7. Exit codes and messages.
make_tree
{ echo 'core = -50'; head -c 70000 /dev/zero | tr '\0' '#'; echo; } > "$tmp/big.conf"
uvc apply "$tmp/big.conf"
expect "#14.7 a config over 64 KiB is a format error: exit 2" 2 "" "^undervoltctl: $tmp/big.conf: larger than 64 KiB, the limit of undervolt.conf\(5\)"
uvc import "$tmp/missing.conf"
if grep -q 'as an argument' "$tmp/err"; then
	fail "#14.7 import of a missing FILE given does not ask for it as an argument"
else
	pass "#14.7 import of a missing FILE given does not ask for it as an argument"
fi
uvc set --trial 30 --package 1 uncore=-5
as_nobody confirm
expect "#14.7 confirm without permission says to run as root" 1 "" "^undervoltctl: $tmp/run/undervoltctl: cannot confirm: Permission denied; .*; run as root$"
uvc confirm
as_nobody status
expect "#14.7 status as non-root does not say plainly 'writable'" 0 \
	'^package 0: writable by root only: this process lacks CAP_SYS_RAWIO; run as root'
mkdir -p "$root/kernel/security"
echo 'none [integrity] confidentiality' > "$root/kernel/security/lockdown"
uvc set core=-50
expect "#14.7 the lockdown advice says what to do" 4 "" \
	'writes refused \(lockdown\): .*turn Secure Boot off in the firmware setup, or boot without lockdown='
rm "$root/kernel/security/lockdown"
printf "# undervolt 0 'CPU' -100\n#undervolt 1 'GPU' -50\n# undervolt 2 'CPU Cache' -100\n# Usage: undervolt \${index} \${display_name} \${undervolt_value}\n" > "$tmp/commented.conf"
uvc import "$tmp/commented.conf"
expect "#14.7 an import with every undervolt line commented out says so" 1 "" \
	"^undervoltctl: $tmp/commented.conf: every undervolt line is commented out \(3 of them\); remove the '#'"
printf "undervolt 0 'CPU' -100\nundervolt 2 'CPU Cache' -80\n" > "$tmp/differ.conf"
# No /proc/cpuinfo: import asks it whether core and cache are one plane
# (issue 36, item 9, below); a CPU it cannot tell gets the warning.
UNDERVOLTCTL_PROC_ROOT=$tmp/no-proc uvc import "$tmp/differ.conf"
expect "#14.7 core and cache differing says the CPU uses the higher offset" 0 "" \
	'core and cache differ \(-100 and -80 mV\); on Skylake and later they are one plane, the CPU uses the higher offset \(-80 mV\)'

# 8. Small things.
uvc --version
expect "#14.8 --version prints the version" 0 '^undervoltctl [0-9]+\.[0-9]+'
uvc_in "$here/intel-undervolt.conf" import -
expect "#14.8 import - reads standard input" 0 '^core = -100$' '^undervoltctl: \(standard input\):1[0-9]:'
printf 'core = -30\ncache = -30\n' > "$tmp/stdin.conf"
uvc_in "$tmp/stdin.conf" apply -
expect "#14.8 apply - reads standard input" 0 '^package 1 cache: 0 -> -30 mV$'
make_tree
rm "$drv/package_00/cache_offset_mv"
ln -s core_offset_mv "$drv/package_00/cache_offset_mv"
uvc set --package 0 core=-50
expect "#14.8 on coupled CPUs set core reports cache too" 0 \
	'^package 0 cache: 0 -> -50 mV \(moved with core: one plane on this CPU\)$'
uvc monitor --interval 0.01 --count 1
check_eq "#14.8 monitor aligns a second package under the first" \
	"  offset   package 0: core -50 gpu 0 cache -50 uncore 0 analogio 0 mV|           package 1: core 0 cache 0 uncore 0 analogio 0 mV" \
	"$(sed -n '/^  offset/,$p' "$tmp/out" | tr '\n' '|' | sed 's/|$//')"

# 9. The boot unit: without the driver, apply says nothing was applied.
c=$(conf boot9.conf 'core = -50\n')
"${wrapper[@]}" "$bin" --sysfs-root "$tmp/empty" apply "$c" >"$tmp/out" 2>"$tmp/err"
rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
expect "#14.9 apply without the driver says nothing was applied and when it will be" 3 "" \
	"^undervoltctl: $c: nothing was applied; undervoltctl.service applies it when the driver binds$"

# 10. status explains each block reason and exits by who blocks.
make_tree
kmsg 'package 00: core offset write refused (oc_lock): the firmware locked overclocking (completion code 1); unlock it in the firmware setup to change voltage offsets'
uvc status
expect "#14.10 status: the firmware's overclocking lock exits 5" 5 \
	'^package 0: not writable \(oc_lock\): .*"Overclocking Lock", not "CFG Lock"'
kmsg
sed -i 's/avx2$/avx2 sgx/' "$tmp/proc/cpuinfo"
uvc status --json
expect "#14.10 status --json: refused by SGX exits 4" 4
check_eq "#14.10 status --json carries the advice" \
	"SGX is enabled; disable SGX (Software Guard Extensions) in the firmware setup to allow offsets: undervolting can break SGX enclaves (Plundervolt, CVE-2019-11157)" \
	"$(json 'd["packages"][0]["write_block_advice"]')"
sed -i 's/ sgx$//' "$tmp/proc/cpuinfo"
mkdir -p "$root/kernel/security"
echo 'none [integrity] confidentiality' > "$root/kernel/security/lockdown"
uvc status
expect "#14.10 status: lockdown exits 4 and names Secure Boot" 4 'not writable \(lockdown\): .*Secure Boot'
rm "$root/kernel/security/lockdown"
uvc status
expect "#14.10 status: writable exits 0" 0 '^package 0: writable$'

# 11. report: a JSON document for bug reports, with nothing identifying.
make_tree
mkdir -p "$root/class/dmi/id" "$root/kernel/security" "$root/module/intel_undervolt" "$tmp/proc"
echo 'LENOVO' > "$root/class/dmi/id/sys_vendor"
echo '20KHCTO1WW' > "$root/class/dmi/id/product_name"
echo 'ThinkPad X1 Carbon 6th' > "$root/class/dmi/id/product_version"
echo 'N23ET81W (1.56 )' > "$root/class/dmi/id/bios_version"
echo '09/13/2022' > "$root/class/dmi/id/bios_date"
echo 'PF1ABCDE' > "$root/class/dmi/id/product_serial"
echo '5e8d1e1c-3a6f-11b2-a85c-d0d24b3c0f2a' > "$root/class/dmi/id/product_uuid"
echo 'L1HF8AB01XY' > "$root/class/dmi/id/board_serial"
echo 'none [integrity] confidentiality' > "$root/kernel/security/lockdown"
echo '6D1E8E0F0A5A0D4B1C9E2F3' > "$root/module/intel_undervolt/srcversion"
printf '%s\n' 'processor	: 0' 'vendor_id	: GenuineIntel' 'cpu family	: 6' \
	'model		: 142' 'model name	: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz' \
	'stepping	: 10' 'microcode	: 0xf4' 'cpu MHz		: 2100.000' '' \
	'processor	: 1' 'vendor_id	: GenuineIntel' 'cpu family	: 6' \
	'model		: 158' 'stepping	: 9' > "$tmp/proc/cpuinfo"
UNDERVOLTCTL_PROC_ROOT=$tmp/proc uvc report
if python3 -c 'import json,sys; json.load(sys.stdin)' < "$tmp/out" 2>/dev/null; then
	pass "#14.11 report is valid JSON"
else
	fail "#14.11 report is valid JSON"
fi
expect "#14.11 report exits 0" 0
check_eq "#14.11 report: the CPU of the first processor" "6 142 10 0xf4 GenuineIntel" \
	"$(json 'd["cpu"]["family"], d["cpu"]["model"], d["cpu"]["stepping"], d["cpu"]["microcode"], d["cpu"]["vendor"]' | tr -d "(),'")"
check_eq "#14.11 report: firmware and product from DMI" "N23ET81W (1.56 )|09/13/2022|LENOVO|20KHCTO1WW|None" \
	"$(json '"|".join(str(d["firmware"][k]) for k in ("bios_version", "bios_date", "sys_vendor", "product_name", "board_name"))')"
check_eq "#14.11 report: lockdown, driver srcversion and version, tool version" "integrity 6D1E8E0F0A5A0D4B1C9E2F3 None $("$bin" --version | sed 's/^undervoltctl //')" \
	"$(json 'd["lockdown"], d["driver_srcversion"], d["driver_version"], d["undervoltctl"]' | tr -d "(),'")"
check_eq "#14.11 report: the driver's packages, block reason and planes" "[0, 1]|lockdown|['core', 'cache', 'uncore', 'analogio']" \
	"$(json '"|".join(str(x) for x in ([p["id"] for p in d["status"]["packages"]], d["status"]["packages"][0]["write_block_reason"], list(d["status"]["packages"][1]["planes"])))')"
if grep -qE 'PF1ABCDE|5e8d1e1c|L1HF8AB01XY|serial|uuid' "$tmp/out" ||
	grep -qF "\"$(uname -n)\"" "$tmp/out"; then
	fail "#14.11 report holds no serial number, UUID or host name"
else
	pass "#14.11 report holds no serial number, UUID or host name"
fi
UNDERVOLTCTL_PROC_ROOT=$tmp/proc "${wrapper[@]}" "$bin" --sysfs-root "$tmp/empty" report >"$tmp/out" 2>"$tmp/err"
rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
check_eq "#14.11 report without the driver: exit 0, status null" "0 None" "$rc $(json 'd["status"]')"

# 12. [ac] and [battery] sections, picked by the power source.
make_tree
ps=$root/class/power_supply
mkdir -p "$ps/AC" "$ps/BAT0"
echo Mains > "$ps/AC/type"
echo 1 > "$ps/AC/online"
echo Battery > "$ps/BAT0/type"
c=$(conf profiles.conf 'core = -50\ncache = -50\ngpu = -20\n\n[ac]\ncore = -80\ncache = -80\n\n[battery]\ncore = -40\ncache = -40\n\n[package 1]\nuncore = -10\n')
uvc apply "$c"
expect "#14.12 on AC apply says the [ac] values apply" 0 "^on AC: the \[ac\] values of $c apply$"
check_eq "#14.12 ... and writes them, the top gpu and [package 1] uncore" "-80 -80 -20 -80 -80 -10" \
	"$(val 00 core) $(val 00 cache) $(val 00 gpu) $(val 01 core) $(val 01 cache) $(val 01 uncore)"
echo 0 > "$ps/AC/online"
uvc apply "$c"
expect "#14.12 on battery the [battery] values apply" 0 "^on battery: the \[battery\] values of $c apply$"
check_eq "#14.12 ... and are written" "-40 -40 -20 -40 -40 -10" \
	"$(val 00 core) $(val 00 cache) $(val 00 gpu) $(val 01 core) $(val 01 cache) $(val 01 uncore)"
mkdir -p "$ps/ucsi-source-psy-USBC000:001"
echo USB > "$ps/ucsi-source-psy-USBC000:001/type"
echo 1 > "$ps/ucsi-source-psy-USBC000:001/online"
uvc apply --dry-run "$c"
expect "#14.12 a USB-C charger online counts as AC" 0 '^on AC: ' 
rm -rf "$ps"
uvc apply --dry-run "$c"
expect "#14.12 no battery at all (a desktop) counts as AC" 0 '^on AC: '
uvc apply --dry-run "$(conf nosections.conf 'core = -40\ncache = -40\n')"
if grep -q '^on ' "$tmp/out"; then
	fail "#14.12 a file without [ac] or [battery] does not talk of power sources"
else
	pass "#14.12 a file without [ac] or [battery] does not talk of power sources"
fi
before=$(offsets)
config_errors "#14.12" <<'EOF'
aconly|core = -50\n[ac]\ncache = -60\n|3|cache is set in \[ac\] only; give its value on battery in \[battery\] or before the first section
batonly|[battery]\ngpu = -10\n|2|gpu is set in \[battery\] only; give its value on ac in \[ac\]
acrepeat|[ac]\n[battery]\n[ac]\n|3|\[ac\] repeated; the first is on line 1
acjunk|[ac] x\n|1|unexpected 'x' after '\[ac\]'
accase|[AC]\n|1|expected '\[package N\]', '\[ac\]' or '\[battery\]', found '\[AC\]'
EOF
check_eq "#14.12 no profile error changed anything" "$before" "$(offsets)"

# The import corpus: realistic files of each format (tests/corpus/), each
# converted as tests/corpus/EXPECTED says, worked out by hand, on a CPU
# import cannot tell (no /proc/cpuinfo): no check of core and cache.
make_tree
while IFS='|' read -r file opts want planes msg; do
	case $file in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086 # OPTIONS is a list
	UNDERVOLTCTL_PROC_ROOT=$tmp/no-proc uvc import $opts "$here/corpus/$file"
	expect "#14 corpus: import $opts $file exits $want, saying why" "$want" "" "$msg"
	got=$(grep -v '^#' "$tmp/out" | grep -v '^$' | tr '\n' '/' | sed 's|/$||')
	check_eq "#14 corpus: ... and prints exactly the planes" "$planes" "${got:--}"
	if [ "$want" = 0 ]; then
		cp "$tmp/out" "$tmp/corpus.conf"
		uvc apply --dry-run "$tmp/corpus.conf"
		expect "#14 corpus: ... which apply --dry-run accepts" 0
	fi
done < "$here/corpus/EXPECTED"

# --- issue 36: undervoltctl as a new user found it ---------------------------------
# Each check names the item of issue 36 it covers; each failed before its fix.

# 4. A peripheral's battery (scope=Device: a Bluetooth mouse) is not the
# machine's: a desktop with one runs on AC.
make_tree
ps=$root/class/power_supply
mkdir -p "$ps/hid-00:11:22:33:44:55-battery"
echo Battery > "$ps/hid-00:11:22:33:44:55-battery/type"
echo Device > "$ps/hid-00:11:22:33:44:55-battery/scope"
c=$(conf periph.conf 'core = -50\ncache = -50\n[ac]\ncore = -80\ncache = -80\n[battery]\ncore = -40\ncache = -40\n')
uvc apply --dry-run "$c"
expect "#36.4 a desktop with a wireless mouse's battery runs on AC" 0 '^on AC: '
mkdir -p "$ps/BAT0"
echo Battery > "$ps/BAT0/type"
echo System > "$ps/BAT0/scope"
uvc apply --dry-run "$c"
expect "#36.4 ... while a laptop's own battery (scope System) still counts" 0 '^on battery: '
rm -rf "$ps"

# 5. intel-undervolt's daemon and throttled's re-applied power limits and the
# TCC offset, which the embedded controller resets: that is lost, not "not
# needed"; only the offsets need no daemon.
uvc import "$here/intel-undervolt.conf"
expect "#36.5 'daemon power' says re-applying power limits is lost" 0 "" \
	"intel-undervolt.conf:26: 'daemon power' not carried over; lost: nothing here re-applies the power limits that the embedded controller resets"
expect "#36.5 ... and names intel-rapl-mmio besides intel-rapl" 0 "" \
	":26: 'daemon power'.*intel-rapl:0/.*intel-rapl-mmio:0"
expect "#36.5 'daemon tjoffset' says re-applying the TCC offset is lost" 0 "" \
	":27: 'daemon tjoffset' not carried over; lost: nothing here re-applies the temperature target offset"
expect "#36.5 'daemon undervolt:once' needs no daemon" 0 "" \
	":25: 'daemon undervolt:once' not carried over; no daemon is needed for offsets"
uvc import "$here/corpus/throttled-early-single.conf"
expect "#36.5 throttled's [GENERAL] says its re-applying is lost" 0 "" \
	"\\[GENERAL\\] not carried over; throttled's own settings: its daemon re-applied.*so that is lost.*the offsets alone need no daemon"

# 6. -h and --help after a verb print that verb's usage and exit 0.
for verb in status set confirm reset apply import monitor report boot-confirm mce-guard stress; do
	for h in -h --help; do
		uvc "$verb" "$h"
		expect "#36.6 $verb $h prints the verb's usage on stdout, exit 0" 0 "^usage: undervoltctl $verb( |\$)"
		if grep -q 'undervoltctl monitor' "$tmp/out" && [ "$verb" != monitor ]; then
			fail "#36.6 ... only that verb's ($verb $h)"
		fi
	done
done

# 11. A value given apart from its plane names the plane and the form;
# a bad option value is one line, not the whole usage text.
make_tree
uvc set core -10
expect "#36.11 'set core -10' says to write core=-10" 2 "" \
	"^undervoltctl: 'core -10': expected PLANE=MV, e.g. core=-10"
check_eq "#36.11 ... in one line" 1 "$(wc -l < "$tmp/err")"
uvc set -10
expect "#36.11 'set -10' says PLANE=MV" 2 "" "^undervoltctl: '-10': expected PLANE=MV, e.g. core=-10"
for bad in "monitor --interval x" "monitor --count 0" "status --package 100" "set --trial x core=-1" "import --profile 9" "status --package" "status --bogus"; do
	# shellcheck disable=SC2086 # BAD is a command line
	uvc $bad
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && ! grep -q '^usage:' "$tmp/err"; then
		pass "#36.11 '$bad': exit 2, one line, no usage text"
	else
		fail "#36.11 '$bad': exit 2, one line, no usage text"
	fi
done
uvc status --package
expect "#36.11 an option without its value says so" 2 "" "^undervoltctl: '--package': expects a value"
check_eq "#36.11 no such error changed anything" "00/analogio_offset_mv=0 00/cache_offset_mv=0 00/core_offset_mv=0 00/gpu_offset_mv=0 00/uncore_offset_mv=0 01/analogio_offset_mv=0 01/cache_offset_mv=0 01/core_offset_mv=0 01/uncore_offset_mv=0 0" "$(offsets)"

# 11. A byte order mark and CRLF line ends, as Windows editors save files:
# apply and import take both, and agree.
make_tree
c=$(conf bom.conf '\xef\xbb\xbfcore = -30\ncache = -30\n')
uvc apply "$c"
expect "#36.11 apply skips a UTF-8 byte order mark" 0 '^package 0 core: 0 -> -30 mV$'
c=$(conf crlf-apply.conf '# saved on Windows\r\ncore = -40\r\ncache = -40\r\n\r\n[package 1]\r\nuncore = -5\r\n')
uvc apply "$c"
expect "#36.11 apply accepts CRLF line ends, as import does" 0 '^package 1 uncore: 0 -> -5 mV$'
c=$(conf bom-iu.conf "\xef\xbb\xbfundervolt 0 'CPU' -50\r\nundervolt 2 'CPU Cache' -50\r\n")
uvc import "$c"
expect "#36.11 import skips a byte order mark before the first line" 0 '^core = -50$'
check_eq "#36.11 ... and says nothing of it" "" "$err"
printf '\xef\xbb\xbf[ThrottleStop]\r\nProfile=0\r\nFIVRVoltage00=0xF3400000\r\nUnlockVoltage00=1\r\n' > "$tmp/bom-ts.ini"
uvc import "$tmp/bom-ts.ini"
expect "#36.11 a ThrottleStop.ini with a byte order mark is still one" 0 '^core = -100$'
printf '\xef\xbb\xbf[UNDERVOLT]\r\nCORE: -60\r\nCACHE: -60\r\n' > "$tmp/bom-throttled.conf"
uvc import -o "$tmp/bom-out.conf" "$tmp/bom-throttled.conf"
expect "#36.11 a throttled file with a byte order mark and CRLF imports" 0 '^wrote '
uvc apply --dry-run "$tmp/bom-out.conf"
expect "#36.11 ... and apply takes what import wrote" 0 '^package 0 core: -40 -> -60 mV \(dry run\)$'

# 10. report: UTF-8 as it is, invalid bytes as U+FFFD, no board_version.
make_tree
mkdir -p "$root/class/dmi/id" "$tmp/proc"
printf 'Caf\xc3\xa9 Computers\n' > "$root/class/dmi/id/sys_vendor"
printf 'Mod\xe8le 3 "Pro"\n' > "$root/class/dmi/id/product_name"
echo 'SN-4711-0815' > "$root/class/dmi/id/board_version"
echo 'X1' > "$root/class/dmi/id/board_name"
UNDERVOLTCTL_PROC_ROOT=$tmp/proc uvc report
check_eq "#36.10 report is valid JSON with the UTF-8 of DMI as it is" "Café Computers" \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["firmware"]["sys_vendor"])' < "$tmp/out" 2>&1)"
if grep -q 'Café Computers' "$tmp/out"; then
	pass "#36.10 ... written as UTF-8, not escaped byte by byte"
else
	fail "#36.10 ... written as UTF-8, not escaped byte by byte"
fi
check_eq "#36.10 an invalid byte becomes U+FFFD, quotes are escaped" 'Mod\ufffdle 3 \"Pro\"' \
	"$(python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["firmware"]["product_name"])[1:-1])' < "$tmp/out" 2>&1)"
check_eq "#36.10 report has no board_version (a serial number on some machines)" "False X1 2" \
	"$(python3 -c 'import json,sys; d=json.load(sys.stdin); print("board_version" in d["firmware"], d["firmware"]["board_name"], d["schema"])' < "$tmp/out" 2>&1)"
if grep -q 'SN-4711' "$tmp/out"; then fail "#36.10 ... nor its value"; else pass "#36.10 ... nor its value"; fi

# 9. import checks core and cache against this CPU, as apply will.
cpu() {	# cpu MODEL: a /proc/cpuinfo of an Intel family 6 CPU in $tmp/cpu-MODEL
	mkdir -p "$tmp/cpu-$1"
	printf '%s\n' 'processor	: 0' 'vendor_id	: GenuineIntel' 'cpu family	: 6' \
		"model		: $1" 'stepping	: 10' > "$tmp/cpu-$1/cpuinfo"
	echo "$tmp/cpu-$1"
}
make_tree
printf "undervolt 0 'CPU' -100\nundervolt 2 'CPU Cache' -80\n" > "$tmp/differ.conf"
echo 'core = -33' > "$tmp/kept.conf"
UNDERVOLTCTL_PROC_ROOT=$(cpu 142) uvc import -o "$tmp/kept.conf" "$tmp/differ.conf"
expect "#36.9 on a coupled CPU (Kaby Lake) core != cache fails the import" 1 "" \
	"core and cache differ \(-100 and -80 mV\), and this CPU has them as one plane.*give both the value you mean in the file, e.g. -80 mV"
check_eq "#36.9 ... and writes nothing" "core = -33" "$(cat "$tmp/kept.conf")"
UNDERVOLTCTL_PROC_ROOT=$(cpu 154) uvc import -o "$tmp/kept.conf" "$tmp/differ.conf"
expect "#36.9 on Alder Lake, whose core and cache the driver writes together, too" 1 "" \
	"core and cache differ \(-100 and -80 mV\), and this CPU has them as one plane"
UNDERVOLTCTL_PROC_ROOT=$(cpu 142) uvc import --partial -o "$tmp/kept.conf" "$tmp/differ.conf"
expect "#36.9 ... with --partial both are written at the higher value" 0 '^wrote '
check_eq "#36.9 ... which is core = -80, cache = -80" "core = -80|cache = -80" \
	"$(grep -v '^#' "$tmp/kept.conf" | tr '\n' '|' | sed 's/|$//')"
uvc apply --dry-run "$tmp/kept.conf"
expect "#36.9 ... which apply takes" 0 '^package 0 core: 0 -> -80 mV \(dry run\)$'
UNDERVOLTCTL_PROC_ROOT=$(cpu 60) uvc import "$tmp/differ.conf"
expect "#36.9 on Haswell (two planes) core != cache imports without a word" 0 '^cache = -80$'
check_eq "#36.9 ... nothing on stderr" "" "$err"
UNDERVOLTCTL_PROC_ROOT=$(cpu 142) uvc import --partial "$here/corpus/throttled-t480-profiles.conf"
expect "#36.9 a throttled file whose pairs agree imports on a coupled CPU" 0 '^\[ac\]$'
printf '[UNDERVOLT.AC]\nCORE: -100\nCACHE: -90\n[UNDERVOLT.BATTERY]\nCORE: -100\nCACHE: -100\n' > "$tmp/differ-ac.conf"
UNDERVOLTCTL_PROC_ROOT=$(cpu 158) uvc import --partial -o "$tmp/ac.conf" "$tmp/differ-ac.conf"
expect "#36.9 a pair that differs on AC only is named with its source" 0 "" \
	'core and cache differ on ac \(-100 and -90 mV\)'
uvc apply --dry-run "$tmp/ac.conf"
expect "#36.9 ... and what --partial wrote applies" 0 '^package 0 core: 0 -> -'

# 1. import -o (and tune, through the same writer) replaces a regular file
# or nothing: never a device, a FIFO or what a link points to that is not
# a regular file; through a link it writes the file and keeps the link; it
# keeps mode, owner, group, ACL and labels; it refuses a directory others
# could change under it; it leaves no temporary file and removes the ones
# a crash left. As root (make check runs so), in a directory of our own.
iu=$here/intel-undervolt.conf
o1=$tmp/out1
mkdir -p "$o1"
if [ "$(id -u)" = 0 ]; then
	mknod "$o1/null" c 1 3
	uvc import -o "$o1/null" "$iu"
	expect "#36.1 import -o onto a device is refused" 1 "" "^undervoltctl: $o1/null: refused: it is a device, not a regular file"
	check_eq "#36.1 ... which stays a character device" "character special file" "$(stat -c %F "$o1/null")"
else
	pass "#36.1 (skipped: mknod needs root) import -o onto a device is refused"
	pass "#36.1 (skipped) ... which stays a character device"
fi
mkfifo "$o1/fifo"
uvc import -o "$o1/fifo" "$iu"
expect "#36.1 import -o onto a FIFO is refused" 1 "" "refused: it is a FIFO, not a regular file"
check_eq "#36.1 ... which stays a FIFO" "fifo" "$(stat -c %F "$o1/fifo")"
ln -s /proc/self/fd/1 "$o1/stdout-link"
uvc import -o "$o1/stdout-link" "$iu"
expect "#36.1 a link to /proc/self/fd/1 is refused, even with stdout a file" 1 "" "^undervoltctl: $o1/stdout-link: refused"
"${wrapper[@]}" "$bin" import -o "$o1/stdout-link" "$iu" 2>/dev/null </dev/null | cat >/dev/null
check_eq "#36.1 ... and with stdout a pipe" 1 "${PIPESTATUS[0]}"
check_eq "#36.1 ... and stays a link" "symbolic link" "$(stat -c %F "$o1/stdout-link")"
mkdir -p "$o1/real"
echo 'core = -1' > "$o1/real/undervolt.conf"
ln -s real/undervolt.conf "$o1/linked.conf"
uvc import -o "$o1/linked.conf" "$iu"
expect "#36.1 import -o through a link to a regular file writes it" 0 "^wrote $o1/linked.conf"
check_eq "#36.1 ... the link stays a link, to the same file, which holds the import" "symbolic link real/undervolt.conf core = -100" \
	"$(stat -c %F "$o1/linked.conf") $(readlink "$o1/linked.conf") $(grep '^core' "$o1/real/undervolt.conf")"
ln -s nowhere "$o1/dangling"
uvc import -o "$o1/dangling" "$iu"
expect "#36.1 a dangling link is refused" 1 "" "refused: it is a symbolic link to nothing that can be written"
echo 'core = -1' > "$o1/private.conf"
chmod 600 "$o1/private.conf"
chown 1234:5678 "$o1/private.conf" 2>/dev/null
want_owner=$(stat -c %u:%g "$o1/private.conf")
python3 - "$o1/private.conf" <<'PY' 2>/dev/null
import os, struct, sys
# An access ACL: user::rw- user:4321:r-- group::--- mask::r-- other::---
u = 0xffffffff
acl = struct.pack('<I', 2) + b''.join(struct.pack('<HHI', t, p, i) for t, p, i in
	((0x01, 6, u), (0x02, 4, 4321), (0x04, 0, u), (0x10, 4, u), (0x20, 0, u)))
os.setxattr(sys.argv[1], 'system.posix_acl_access', acl)
os.setxattr(sys.argv[1], 'security.undervoltctl-test', b'label')
PY
want_mode=$(stat -c %a "$o1/private.conf")	# the ACL's mask is its group bits
xattrs() { python3 -c 'import os,sys; print(sorted((n, os.getxattr(sys.argv[1], n).hex()) for n in os.listxattr(sys.argv[1]) if n.startswith(("security.undervoltctl", "system.posix_acl"))))' "$1" 2>&1; }
want_xattrs=$(xattrs "$o1/private.conf")
uvc import -o "$o1/private.conf" "$iu"
expect "#36.1 import -o over a 0600 file" 0 "^wrote "
check_eq "#36.1 ... keeps its mode, owner and group" "$want_mode $want_owner" "$(stat -c '%a %u:%g' "$o1/private.conf")"
check_eq "#36.1 ... and its ACL and security label" "$want_xattrs" "$(xattrs "$o1/private.conf")"
case $want_xattrs in
*posix_acl*) pass "#36.1 (the ACL and the label were there to keep)" ;;
*) pass "#36.1 (skipped: this filesystem took no ACL here)" ;;
esac
mkdir -p "$o1/shared"
chmod 777 "$o1/shared"
uvc import -o "$o1/shared/undervolt.conf" "$iu"
expect "#36.1 a directory everyone may write (no sticky bit) is refused" 1 "" \
	"refused: its directory $o1/shared is writable by everyone, who could swap the file"
check_eq "#36.1 ... and nothing is written there" "" "$(ls -A "$o1/shared")"
chmod 1777 "$o1/shared"
uvc import -o "$o1/shared/undervolt.conf" "$iu"
expect "#36.1 ... with the sticky bit (like /tmp) it is written" 0 "^wrote "
mkdir -p "$o1/users"
chown 65534:65534 "$o1/users" 2>/dev/null
if [ "$(stat -c %u "$o1/users")" != "$(id -u)" ]; then
	uvc import -o "$o1/users/undervolt.conf" "$iu"
	expect "#36.1 a directory of another user (tune -o ~user/x.conf as root) is refused" 1 "" \
		"refused: its directory $o1/users belongs to user 65534"
else
	pass "#36.1 (skipped: chown needs root) a directory of another user is refused"
fi
mkdir -p "$o1/crash"
echo 'core = -1' > "$o1/crash/undervolt.conf"
for x in aaaaaa bbbbbb; do echo partial > "$o1/crash/.undervolt.conf.uvtmp-$x"; done
touch -d '1 hour ago' "$o1/crash/.undervolt.conf.uvtmp-aaaaaa"
echo mine > "$o1/crash/undervolt.conf.orig"
uvc import -o "$o1/crash/undervolt.conf" "$iu"
expect "#36.1 import -o next to a crash's temporary files" 0 "^wrote "
check_eq "#36.1 ... removes the stale one of its pattern, keeps a young one and other files" \
	".undervolt.conf.uvtmp-bbbbbb undervolt.conf undervolt.conf.orig" "$(ls -A "$o1/crash" | tr '\n' ' ' | sed 's/ $//')"

# 11. set lasts until reboot, and says where values are kept across one.
make_tree
uvc set core=-10 cache=-10
expect "#36.11 set says its offsets last until reboot and where to keep them" 0 \
	'^until reboot: to apply these offsets at every boot, put them in /etc/undervolt.conf'
uvc set --trial 30 core=-20 cache=-20
if grep -q 'until reboot' "$tmp/out"; then
	fail "#36.11 ... but not after a trial change"
else
	pass "#36.11 ... but not after a trial change"
fi
if grep -qi permanent "$here/../undervoltctl.8" "$here/../undervolt.conf.5"; then
	fail "#36.11 the man pages say 'until reboot', not 'permanent'"
else
	pass "#36.11 the man pages say 'until reboot', not 'permanent'"
fi

exit $failed
