#!/bin/sh
# qemu-run: --append "intel_undervolt.apply=0 intel_undervolt.offsets=core:-80"
# The recovery switch intel_undervolt.apply=0: the driver binds read-only,
# applies no boot offsets and refuses writes, naming the switch, until root
# sets it back to 1.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
PARAMS=/sys/module/intel_undervolt/parameters

check "the driver bound" test -d $PKG
check_eq "apply reads N" N "$(cat $PARAMS/apply)"
check_eq "apply is 0644" 644 "$(stat -c %a $PARAMS/apply)"
check_eq "write_block_reason is recovery" recovery "$(cat $PKG/write_block_reason)"
check_eq "the boot offsets were not applied" 0 "$(cat $PKG/core_offset_mv)"
check_eq "no write command reached the mailbox since power-on" "" "$(fw_write_commands)"
check_eq "the firmware's core word is the boot word" 0x0004cd2c "$(fwctl word 0)"
check_grep "skipping the boot offsets is logged" \
	"intel_undervolt.apply=0 \(recovery\): not applying offsets=core:-80" "$(dmesg)"
kmsg_mark refuse
fwctl clear-log
check_eq "a write is refused" EPERM "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "the refused write sends no mailbox command" "" "$(fw_log)"
check_eq "the offset is unchanged" 0 "$(cat $PKG/gpu_offset_mv)"
check_grep "the refusal names the switch" \
	"gpu offset write refused \(recovery\): intel_undervolt.apply=0; write 1 to /sys/module/intel_undervolt/parameters/apply" \
	"$(dmesg_since 'TEST-MARK refuse')"
check_eq "reads keep working" 0 "$(cat $PKG/uncore_offset_mv)"

check_eq "root sets apply=1 at run time" OK "$(writefile $PARAMS/apply 1)"
check_eq "write_block_reason is none" none "$(cat $PKG/write_block_reason)"
fwctl clear-log
check_eq "a write now succeeds" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "and sends one write command, -40 mV on gpu" 0x80000111fae48c16 "$(fw_write_commands)"
check_eq "and reads back" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware's gpu word holds -40 mV" -40 "$(fw_offset_mv 1)"

check_eq "apply=0 again at run time" OK "$(writefile $PARAMS/apply 0)"
check_eq "writes are refused again" EPERM "$(writefile $PKG/gpu_offset_mv -50)"
check_eq "the offset stays" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware's gpu word keeps -40 mV" -40 "$(fw_offset_mv 1)"

check_no_splat
finish
