#!/bin/sh
# SGX enabled and the OC lock make the interface read-only: EPERM, no
# mailbox command, write_block_reason and a log line say why.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
TAINT_CPU_OUT_OF_SPEC=4

check "the sysfs directory exists" test -d $PKG
check_eq "write_block_reason is none" none "$(cat $PKG/write_block_reason)"

# CAP_SYS_RAWIO: a permission change does not hand undervolting to a user.
chmod 0666 $PKG/core_offset_mv
fwctl clear-log
check_eq "a user without CAP_SYS_RAWIO gets EPERM even with mode 0666" EPERM \
	"$(as_nobody "writefile $PKG/core_offset_mv -50" 2>&1)"
check_eq "and no mailbox command is sent" "" "$(fw_log)"
check_eq "the user can read" 0 "$(as_nobody "cat $PKG/core_offset_mv" 2>&1)"
chmod 0644 $PKG/core_offset_mv

# Reading costs the package nothing: no file of it, read by a user or by
# root, sends a command to the mailbox (the model logs every command).
fwctl clear-log
as_nobody "for i in 1 2 3 4 5; do cat $PKG/* > /dev/null; done"
check_eq "a user reading every file of the package 5 times sends no mailbox command" \
	"" "$(fw_log)"
for i in 1 2 3 4 5; do cat $PKG/* > /dev/null; done
check_eq "root reading every file of the package 5 times sends no mailbox command" \
	"" "$(fw_log)"

# SGX
fwctl sgx on
check_eq "the firmware setup enables SGX" "lock=0 sgx=1 drop=0 busy=0 hint=0 uvp=0" "$(fwctl settings)"
check_eq "write_block_reason is sgx" sgx "$(cat $PKG/write_block_reason)"
check_eq "a user reads what that check found: sgx" sgx \
	"$(as_nobody "cat $PKG/write_block_reason")"
fwctl clear-log
kmsg_mark sgx
check_eq "with SGX enabled a write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -50)"
check_eq "with SGX enabled a write sends no mailbox command" "" "$(fw_log)"
check_grep "the refusal is logged with the reason and what to do" \
	"core offset write refused \(sgx\): SGX is enabled \(Plundervolt, CVE-2019-11157\); disable SGX" \
	"$(dmesg_since sgx)"
check_eq "with SGX enabled reads work" 0 "$(cat $PKG/core_offset_mv)"
# OC lock on top: SGX is reported first.
fwctl lock on
check_eq "SGX comes before the OC lock" sgx "$(cat $PKG/write_block_reason)"
fwctl sgx off

# OC lock. MSR 0x194 bit 20 is only a hint (firmware is known to set it
# and still take offsets): the driver tries the write, and the firmware's
# answer, completion code 1, is what locks the package.
check_eq "with MSR 0x194 bit 20 set write_block_reason is still none" none "$(cat $PKG/write_block_reason)"
check_eq "oc_lock_hint is what 0x194 said at probe (0)" 0 "$(cat $PKG/oc_lock_hint)"
fwctl clear-log
kmsg_mark oclock
check_eq "with the OC lock set a write fails with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -50)"
check_eq "the write reached the mailbox (the model answered code 1)" \
	0x80000111f9a48c16 "$(fw_write_commands 0)"
check_eq "the firmware's gpu word is unchanged" 0x00048c16 "$(fwctl word 1)"
check_grep "the refusal is logged with the reason and what to do" \
	"gpu offset write refused \(oc_lock\): the firmware locked overclocking" \
	"$(dmesg_since oclock)"
check_eq "write_block_reason is now oc_lock" oc_lock "$(cat $PKG/write_block_reason)"
check_eq "with the OC lock set reads work" 0 "$(cat $PKG/gpu_offset_mv)"
fwctl lock off
check_eq "the lock holds until the driver binds again" oc_lock "$(cat $PKG/write_block_reason)"
fwctl clear-log
check_eq "so writes fail with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -50)"
check_eq "and send no mailbox command" "" "$(fw_log)"
check "intel_undervolt binds again (rmmod, modprobe)" sh -c 'rmmod intel_undervolt && modprobe intel_undervolt'
check_eq "write_block_reason is none again" none "$(cat $PKG/write_block_reason)"
check_eq "writes work again" OK "$(writefile $PKG/gpu_offset_mv 0)"
check_eq "refused writes do not taint" 0 $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

# Completion code 1 (OC locked) from the firmware, for a write while MSR
# 0x194 says unlocked: read-only from then on.
fwctl inject-write 1 1
kmsg_mark code1
check_eq "completion code 1 fails the write with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -50)"
check_eq "the firmware answered the write" none "$(fwctl injection)"
check_eq "the firmware's gpu word is unchanged" 0x00048c16 "$(fwctl word 1)"
check_eq "MSR 0x194 still says unlocked" "lock=0 sgx=0 drop=0 busy=0 hint=0 uvp=0" "$(fwctl settings)"
check_eq "after code 1 write_block_reason is oc_lock" oc_lock "$(cat $PKG/write_block_reason)"
check_grep "code 1 is logged as the OC lock" "refused \(oc_lock\)" "$(dmesg_since code1)"
fwctl clear-log
check_eq "after code 1 writes fail with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -50)"
check_eq "after code 1 writes send no mailbox command" "" "$(fw_log)"
check_eq "after code 1 reads work" 0 "$(cat $PKG/gpu_offset_mv)"
check_eq "no offset was applied, no taint" 0 $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

finish
