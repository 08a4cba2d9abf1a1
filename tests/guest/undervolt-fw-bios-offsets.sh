#!/bin/sh
# qemu-run: --firmware unlocked,boot-words=zero,bios-core=-50,bios-cache=-50,bios-gpu=-20
# A firmware setup that undervolts by itself at every boot (core and
# cache -50 mV, GPU -20 mV), on a part whose words read with bits 20:0
# clear (both in qemu/MODEL.md). The driver shows the firmware's offsets
# as the initial ones; S3 brings the firmware's offsets back, and the
# driver restores the user's, 0 mV included, by the time "echo mem"
# returns (its PM notifier); unload gives the firmware its own offsets
# back. Every expectation is a literal of this configuration, read from
# the model, never from the driver.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
# Bits 20:0 zero, the offsets of the setup: -50 mV is -51/1024 V
# (0x7cd << 21), -20 mV is -20/1024 V (0x7ec << 21).
BOOT="0xf9a00000 0xfd800000 0xf9a00000 0x00000000 0x00000000"

check_eq "the model's reset words are the setup's" "$BOOT" "$(fwctl boot-words)"
check_eq "at boot the model holds them" "$BOOT" "$(fw_words)"
check "the driver binds" test -d $PKG
check_eq "the initial core offset is the setup's -50 mV" -50 "$(cat $PKG/initial_core_offset_mv)"
check_eq "the initial GPU offset is -20 mV" -20 "$(cat $PKG/initial_gpu_offset_mv)"
check_eq "the initial uncore offset is 0 mV" 0 "$(cat $PKG/initial_uncore_offset_mv)"
check_eq "core reads -50 mV" -50 "$(cat $PKG/core_offset_mv)"

check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "the model holds core -80 mV with bits 20:0 still clear" \
	"$(offset_word -80 0)" "$(fwctl word 0)"
check_eq "... and cache -80 mV (coupled)" "$(offset_word -80 0)" "$(fwctl word 2)"

resets=$(fwctl resets)
check "S3 and back" s3
check_eq "S3 reset the firmware" $((resets + 1)) "$(fwctl resets)"
check_eq "after resume the model holds the user's core -80 mV again" "$(offset_word -80 0)" "$(fwctl word 0)"
check_eq "... and cache -80 mV" "$(offset_word -80 0)" "$(fwctl word 2)"
check_eq "... and the setup's GPU -20 mV, which nobody changed" 0xfd800000 "$(fwctl word 1)"

# 0 mV is an offset like any other: the firmware brings back -50 at S3,
# and the driver must put the user's 0 back.
check_eq "core 0" OK "$(writefile $PKG/core_offset_mv 0)"
check_eq "the model holds core 0 mV" 0x00000000 "$(fwctl word 0)"
fwctl clear-log
resets=$(fwctl resets)
check "S3 and back again" s3
check_eq "S3 reset the firmware again" $((resets + 1)) "$(fwctl resets)"
check_eq "after resume the model holds the user's 0 mV on core, not the setup's -50" \
	0x00000000 "$(fwctl word 0)"
check_eq "... and on cache" 0x00000000 "$(fwctl word 2)"
check_grep "the driver wrote the core word after resume" \
	"^0x8000001100000000$" "$(fw_log)"

# The kselftest, with each plane 5 mV lower for a moment.
kselftest 0 -s 5
check_eq "the kselftest left the words as they were" \
	"0x00000000 0xfd800000 0x00000000 0x00000000 0x00000000" "$(fw_words)"

check "intel_undervolt unloads" rmmod intel_undervolt
check_eq "unload gives the firmware the setup's offsets back" "$BOOT" "$(fw_words)"
check_no_splat
finish
