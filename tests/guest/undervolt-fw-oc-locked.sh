#!/bin/sh
# qemu-run: --firmware oc-locked
# A BIOS that locked overclocking (the model's oc-locked profile: MSR 0x194
# bit 20 set, every write answered with completion code 1). The bit is
# only a hint, shown in oc_lock_hint; the firmware's answer to a write is
# what counts: that write fails with EPERM, the package then says
# oc_lock, and later writes are refused before reaching the mailbox.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check_eq "the model reports the OC lock" "lock=1 sgx=0 drop=0 busy=0 hint=1 uvp=0" "$(fwctl settings)"
check "the driver binds" test -d $PKG
check_eq "oc_lock_hint shows MSR 0x194 bit 20" 1 "$(cat $PKG/oc_lock_hint)"
check_eq "write_block_reason is none before a write" none "$(cat $PKG/write_block_reason)"
check_eq "reads work: core reads the model's 0" 0 "$(cat $PKG/core_offset_mv)"
fwctl clear-log
kmsg_mark locked
check_eq "a write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -50)"
check_eq "the write reached the model (which answered code 1)" \
	"0x80000011f9a4cd2c" "$(fw_write_commands 0)"
check_eq "the model's core word is the boot word" 0x0004cd2c "$(fwctl word 0)"
check_eq "write_block_reason is now oc_lock" oc_lock "$(cat $PKG/write_block_reason)"
check_grep "the refusal names the lock and what to do" \
	"core offset write refused \(oc_lock\): the firmware locked overclocking \(completion code 1\); unlock it in the firmware setup" \
	"$(dmesg_since locked)"
fwctl clear-log
check_eq "a second write fails with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -10)"
check_eq "and sends nothing to the mailbox" "" "$(fw_log)"
check_eq "nothing tainted the kernel out of spec" 0 $(( $(taint) & 4 ))
check_no_splat
finish
