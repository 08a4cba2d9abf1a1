#!/bin/sh
# qemu-run: --allow-resets
# A reboot (as a kexec would) writes the initial offsets (those the
# firmware had when the driver bound) back before the machine resets: the
# next kernel never inherits an undervolt it did not set. The model forgets its words at the reset anyway, so what the test
# reads is its command log, which survives resets: boot 1 sets -80 mV and
# reboots; boot 2 finds, after that write, writes of the boot words, and
# no check is printed on boot 1.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
# -80 mV is -82/1024 V: bits 31:21 0x7ae, over the boot words' low bits.
CORE_UV=0x80000011f5c4cd2c
CACHE_UV=0x80000211f5c4cd28
CORE_BOOT=0x800000110004cd2c
CACHE_BOOT=0x800002110004cd28

if ! fw_log | grep -qx $CORE_UV; then
	echo "# boot 1: set -80 mV, reboot"
	echo -80 > $PKG/core_offset_mv || exit 1
	reboot -f
	sleep 60
	exit 1
fi
echo "# boot 2"
log=$(fw_log)
after=$(echo "$log" | sed -n "/^$CORE_UV\$/,\$p" | tail -n +2)
check_grep "boot 1 wrote -80 mV to core and cache" "^$CACHE_UV\$" "$log"
check_grep "the reboot wrote the core boot word back after it" "^$CORE_BOOT\$" "$after"
check_grep "... and the cache boot word" "^$CACHE_BOOT\$" "$after"
check_eq "the boot words were the last writes before this boot" \
	"$CORE_BOOT $CACHE_BOOT" \
	"$(echo $(echo "$after" | grep "^0x8000..11" | tail -n 2))"
check_eq "core_offset_mv reads the model's fused 0 mV" 0 "$(cat $PKG/core_offset_mv)"
check_no_splat
exit $LIB_FAILED
