#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# undervoltctl against the real driver on the emulated firmware: every verb,
# a firmware failure in the middle of apply that must leave every plane as
# it was, and each policy refusal's exit code and message.
#
# Needs in the guest's /usr/local/bin: undervoltctl (make -C
# tools/undervoltctl static O=build/guest/undervoltctl) and undervoltctl-test
# (the same with HOOKS=1), whose UNDERVOLTCTL_TEST_FAIL_WRITE hook fails one
# chosen write so that the rollback runs against the real driver.
. /test/lib.sh

DRV=/sys/devices/system/cpu/intel_undervolt
PKG=$DRV/package_00
EMU=/sys/kernel/debug/intel_undervolt_emu

# run CMD...: sets rc, out, err
run() {
	"$@" >/tmp/out 2>/tmp/err
	rc=$?
	out=$(cat /tmp/out)
	err=$(cat /tmp/err)
}

planes() {
	for p in core gpu cache uncore analogio; do
		printf '%s=%s ' $p "$(cat $PKG/${p}_offset_mv)"
	done
}

check "the sysfs directory exists" test -d $PKG
check "undervoltctl is in the guest" command -v undervoltctl

# status
run undervoltctl status
check_eq "status exits 0" 0 "$rc"
check_grep "status: package 0 is writable" '^package 0: writable$' "$out"
check_grep "status: the bounds of the driver" '^bounds:  -250 to 0 mV$' "$out"
check_grep "status: core offset and boot offset" '^  core +0 mV +0 mV$' "$out"
run undervoltctl status --json
check_grep "status --json: schema 1" '"schema": 1' "$out"
check_grep "status --json: package 0 writable" '"id": 0, "writable": true, "write_block_reason": "none"' "$out"

# set, coupling of core and cache (Skylake in QEMU)
run undervoltctl set core=-50 cache=-50 gpu=-30
check_eq "set core=-50 cache=-50 gpu=-30 exits 0" 0 "$rc"
check_eq "set: every plane holds its value" "core=-50 gpu=-30 cache=-50 uncore=0 analogio=0 " "$(planes)"
run undervoltctl set core=-60
check_eq "set core=-60 exits 0" 0 "$rc"
check_eq "cache follows core on Skylake" -60 "$(cat $PKG/cache_offset_mv)"
before=$(planes)
run undervoltctl set core=-70 cache=-40
check_eq "core and cache given different values fail" 1 "$rc"
check_grep "... saying they are one plane" 'core and cache are one plane' "$err"
check_eq "... and both are put back" "$before" "$(planes)"
run undervoltctl set core=-300
check_eq "set outside the bounds exits 1" 1 "$rc"
check_eq "... and changes nothing" "$before" "$(planes)"

# apply, dry run, config errors
printf 'core = -40\ncache = -40\nuncore = -20\nanalogio = -10\n' > /tmp/u.conf
run undervoltctl apply --dry-run /tmp/u.conf
check_eq "apply --dry-run exits 0" 0 "$rc"
check_eq "apply --dry-run changes nothing" "$before" "$(planes)"
run undervoltctl apply /tmp/u.conf
check_eq "apply exits 0" 0 "$rc"
check_eq "apply sets every plane" "core=-40 gpu=-30 cache=-40 uncore=-20 analogio=-10 " "$(planes)"
printf 'core = -10\ncpu = -10\n' > /tmp/bad.conf
before=$(planes)
run undervoltctl apply /tmp/bad.conf
check_eq "apply of a file with an error exits 2" 2 "$rc"
check_grep "... naming file and line" "^undervoltctl: /tmp/bad.conf:2: unknown plane 'cpu'" "$err"
check_eq "... and applies nothing" "$before" "$(planes)"

# a failure in the middle of apply: every plane stays as it was
printf 'core = -80\ncache = -80\ngpu = -45\nuncore = -35\nanalogio = -25\n' > /tmp/mid.conf
UNDERVOLTCTL_TEST_FAIL_WRITE=package_00/uncore_offset_mv=EIO run undervoltctl-test apply /tmp/mid.conf
check_eq "a write failing after three planes were written fails apply" 1 "$rc"
check_grep "... naming file, line, plane, value and cause" \
	'^undervoltctl: /tmp/mid.conf:4: package 0 uncore=-35: the firmware ignored.*nothing was changed$' "$err"
check_eq "... and the driver holds every previous value" "$before" "$(planes)"
writefile $EMU/fault drop >/dev/null
run undervoltctl set gpu=-15 uncore=-15
writefile $EMU/fault none >/dev/null
check_eq "firmware dropping the writes fails set" 1 "$rc"
check_grep "... with the cause" 'package 0 gpu=-15: the firmware ignored or failed the write' "$err"
check_eq "... and changes nothing" "$before" "$(planes)"
writefile $EMU/fault busy >/dev/null
run undervoltctl set gpu=-15
writefile $EMU/fault none >/dev/null
check_eq "a busy firmware fails set" 1 "$rc"
check_eq "... and changes nothing" "$before" "$(planes)"

# monitor: QEMU has no RAPL and no coretemp; those show as missing
run undervoltctl monitor --interval 0.2 --count 2
check_eq "monitor exits 0" 0 "$rc"
check_grep "monitor shows the offsets" '^  offset   package 0: core -40 gpu -30 cache -40 uncore -20 analogio -10 mV$' "$out"
check_grep "monitor shows a missing source as missing" 'missing' "$out"

# trial mode: supported or refused with a clear message
run undervoltctl confirm
case $rc in
0) pass "confirm exits 0" ;;
1) check_grep "confirm without trial mode says so" 'trial mode is not supported' "$err" ;;
*) fail "confirm exits 0 or 1 (got $rc)" ;;
esac

# reset
run undervoltctl reset
check_eq "reset exits 0" 0 "$rc"
check_eq "reset restores the boot values" "core=0 gpu=0 cache=0 uncore=0 analogio=0 " "$(planes)"

# policy refusals: exit 4, the reason, what to do, nothing written
writefile $EMU/sgx 1 >/dev/null
run undervoltctl set core=-20 cache=-20
check_eq "SGX: exit 4" 4 "$rc"
check_grep "SGX: the message says to disable SGX" '^undervoltctl: package 0: writes refused \(sgx\): SGX is enabled; disable SGX' "$err"
writefile $EMU/sgx 0 >/dev/null
writefile $EMU/oc_lock 1 >/dev/null
run undervoltctl set core=-20 cache=-20
check_eq "OC lock: exit 4" 4 "$rc"
check_grep "OC lock: the message says where to unlock" 'refused \(oc_lock\): the firmware set the overclocking lock; clear it in the firmware setup' "$err"
run undervoltctl status
check_grep "status says why a package is not writable" '^package 0: not writable \(oc_lock\)' "$out"
writefile $EMU/oc_lock 0 >/dev/null
check_eq "no refusal wrote anything" "core=0 gpu=0 cache=0 uncore=0 analogio=0 " "$(planes)"
# lockdown last: it cannot be undone
writefile /sys/kernel/security/lockdown integrity >/dev/null
run undervoltctl set core=-20 cache=-20
check_eq "lockdown: exit 4" 4 "$rc"
check_grep "lockdown: the message names it" 'refused \(lockdown\): the kernel is locked down' "$err"

# driver missing
run undervoltctl --sysfs-root /nonexistent status
check_eq "without the driver: exit 3" 3 "$rc"
check_grep "... saying how to get it" 'CONFIG_INTEL_UNDERVOLT or install the DKMS module' "$err"

finish
