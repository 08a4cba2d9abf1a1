#!/bin/sh
# qemu-run: --firmware unrecognised
# Tiger Lake and later (the model's unrecognised profile): every mailbox
# command is answered with 0x1F. The driver does not bind and says why.
. /test/lib.sh

check "the model is there" fwctl present
check "intel_undervolt did not bind" test ! -e /sys/devices/system/cpu/intel_undervolt
check_grep "the driver says the firmware does not support offsets" \
	"intel_undervolt: package 00: the firmware does not support voltage offsets" "$(dmesg)"
check "the capability command reached the model" \
	sh -c 'fwctl log | grep -q "^0x80000001"'
check_eq "no write command reached the model" "" "$(fw_write_commands)"
check_no_splat
finish
