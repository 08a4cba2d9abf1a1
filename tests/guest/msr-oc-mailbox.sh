#!/bin/sh
# qemu-run: --append "module_blacklist=intel_undervolt"
# The msr driver and the OC mailbox (patch "x86/msr: Do not warn on writes
# to the OC mailbox"): a write to 0x150 through /dev/cpu/0/msr is quiet but
# taints; other unlisted MSRs still warn; lockdown still refuses. With
# intel_undervolt bound, raw writes fail with EBUSY (undervolt-unload.sh):
# here it does not load.
. /test/lib.sh

TAINT_CPU_OUT_OF_SPEC=4

check_eq "the kernel starts untainted" 0 $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

kmsg_mark oc-write
# TCG drops the write and reads 0x150 back as 0; the driver path is the test.
check "a write to MSR 0x150 succeeds" msrtool write 0 0x150 0x8000001000000000
log=$(dmesg_since oc-write)
check_nogrep "a write to MSR 0x150 logs no warning" "unrecognized MSR" "$log"
check_eq "a write to MSR 0x150 taints (TAINT_CPU_OUT_OF_SPEC)" \
	$TAINT_CPU_OUT_OF_SPEC $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

kmsg_mark other-write
# 0x1234 does not exist: the write faults (EIO), but the filter warns first.
msrtool write 0 0x1234 0 2>/dev/null
log=$(dmesg_since other-write)
check_grep "a write to another unlisted MSR still warns" \
	"Write to unrecognized MSR 0x1234" "$log"

echo integrity > /sys/kernel/security/lockdown
out=$(msrtool write 0 0x150 0 2>&1)
check_grep "under lockdown=integrity a write to MSR 0x150 fails with EPERM" \
	"EPERM" "$out"

finish
