#!/bin/sh
# qemu-run: --firmware silent-drop
# The commonest failure since the Plundervolt fixes (the model's
# silent-drop profile): the firmware answers every write with success and
# keeps the old value. The driver's read-back catches it: EIO, the offset
# unchanged in the model, a log line, no taint.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check "the driver binds" test -d $PKG
fwctl clear-log
kmsg_mark drop
check_eq "a write fails with EIO" EIO "$(writefile $PKG/uncore_offset_mv -60)"
check_eq "the write did reach the model" "0x80000311$(offset_word -60 0x43312 | cut -c3-)" \
	"$(fw_write_commands)"
check_eq "the model kept its uncore word" 0x00043312 "$(fwctl word 3)"
check_eq "sysfs reads the model's 0" 0 "$(cat $PKG/uncore_offset_mv)"
check_grep "the ignored write is logged" \
	"package 00: firmware ignored the uncore offset write \(-60 mV, reads 0 mV\)" \
	"$(dmesg_since 'TEST-MARK drop')"
check_eq "a coupled core write fails with EIO" EIO "$(writefile $PKG/core_offset_mv -60)"
check_eq "the model kept core and cache" "0x0004cd2c 0x0004cd28" "$(fwctl word 0) $(fwctl word 2)"
# Writes are still tried: the firmware's verdict may differ per plane.
fwctl clear-log
check_eq "a later write still fails with EIO" EIO "$(writefile $PKG/gpu_offset_mv -10)"
check_eq "and did reach the model" "0x80000111$(offset_word -10 0x48c16 | cut -c3-)" "$(fw_write_commands)"
# A non-zero offset taints before it reaches the firmware: refused or
# ignored, the writes above tried to change the voltage.
check_eq "the writes tried tainted the kernel out of spec" 4 $(( $(taint) & 4 ))
# No -s: the firmware keeps no new offset (the kselftest writes back the
# offsets in force, which the read-back finds).
kselftest 0 -w
check_eq "the model holds the fused words" "$FUSED_WORDS" "$(fw_words)"
check_no_splat
finish
