#!/bin/sh
# qemu-run: --firmware oc-locked
# A BIOS that locked overclocking (the model's oc-locked profile: MSR 0x194
# bit 20 set, every write answered with completion code 1). The driver
# binds (the bit is only a hint, and v3 does not read it); the firmware's
# answer to a write is what counts: EACCES, with a log line. The driver
# keeps no lock state: every write is tried and answered again.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check_eq "the model reports the OC lock" "lock=1 sgx=0 drop=0 busy=0 hint=1 uvp=0" "$(fwctl settings)"
check "the driver binds" test -d $PKG
check_eq "reads work: core reads the model's 0" 0 "$(cat $PKG/core_offset_mv)"
fwctl clear-log
kmsg_mark locked
check_eq "a write fails with EACCES" EACCES "$(writefile $PKG/core_offset_mv -50)"
check_eq "the write reached the model (which answered code 1)" \
	"0x80000011f9a4cd2c" "$(fw_write_commands 0)"
check_eq "the model's core and cache words are the fused ones" "0x0004cd2c 0x0004cd28" \
	"$(fwctl word 0) $(fwctl word 2)"
check_grep "the refusal names the lock and what to do" \
	"package 00: core offset write refused \(oc_lock\): the firmware locked overclocking; unlock it in the firmware setup" \
	"$(dmesg_since 'TEST-MARK locked')"
fwctl clear-log
check_eq "a second write fails with EACCES" EACCES "$(writefile $PKG/gpu_offset_mv -10)"
check_eq "and was sent to the firmware too" "0x80000111$(offset_word -10 0x48c16 | cut -c3-)" "$(fw_write_commands 0)"
check_eq "the model's gpu word is the fused one" 0x00048c16 "$(fwctl word 1)"
# A non-zero offset taints before it reaches the firmware: refused or
# ignored, the writes above tried to change the voltage.
check_eq "the writes tried tainted the kernel out of spec" 4 $(( $(taint) & 4 ))
# No -s: the firmware takes no write (the kselftest skips its writes).
kselftest 0 -w
check_eq "the model holds the fused words" "$FUSED_WORDS" "$(fw_words)"
check_no_splat
finish
