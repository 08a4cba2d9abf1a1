#!/bin/sh
# qemu-run: --firmware oc-locked
# A BIOS that locked overclocking (the model's oc-locked profile: MSR 0x194
# bit 20 set, every write answered with completion code 1): the driver
# binds read-only, says why, and sends no write to the mailbox.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check_eq "the model reports the OC lock" "lock=1 sgx=0 drop=0 busy=0" "$(fwctl settings)"
check "the driver binds" test -d $PKG
check_eq "write_block_reason is oc_lock" oc_lock "$(cat $PKG/write_block_reason)"
check_eq "reads work: core reads the model's 0" 0 "$(cat $PKG/core_offset_mv)"
fwctl clear-log
kmsg_mark locked
check_eq "a write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -50)"
check_eq "no write command reached the model" "" "$(fw_write_commands)"
check_eq "the model's core word is the boot word" 0x0004cd2c "$(fwctl word 0)"
check_grep "the refusal names the lock and what to do" \
	"core offset write refused \(oc_lock\): the firmware locked overclocking \(MSR 0x194 bit 20\); unlock it in the firmware setup" \
	"$(dmesg_since locked)"
check_eq "nothing tainted the kernel out of spec" 0 $(( $(taint) & 4 ))
check_no_splat
finish
