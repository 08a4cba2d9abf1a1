#!/bin/sh
# qemu-run: --firmware answers-1f
# A firmware that answers every mailbox command with 0x1F (the model's
# answers-1f profile; reported once, a Tiger Lake Dell XPS 13 9310:
# qemu/MODEL.md). The driver does not bind and says why.
. /test/lib.sh

check "the model is there" fwctl present
check "intel_undervolt did not bind" test ! -e /sys/devices/system/cpu/intel_undervolt
check "and is not loaded" test ! -e /sys/module/intel_undervolt
check_grep "the driver says the firmware does not support offsets" \
	"intel_undervolt: package 00: the firmware does not support voltage offsets, not binding" "$(dmesg)"
check_grep "the capability command reached the model" "^0x8000000100000000$" "$(fw_log)"
check_eq "no write command reached the model" "" "$(fw_write_commands)"
kselftest 4
check_no_splat
finish
