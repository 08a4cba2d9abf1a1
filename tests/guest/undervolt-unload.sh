#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# rmmod intel_undervolt writes back, on every package, the data words the
# firmware had when the driver bound, and removes its sysfs and debugfs
# files; the emulated firmware outlives it so the words can be read.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
EMU=/sys/kernel/debug/intel_undervolt_emu

check "intel_undervolt is loaded" test -d $PKG
check "intel_undervolt unloads" rmmod intel_undervolt
check "the debugfs directory is gone" test ! -e /sys/kernel/debug/intel_undervolt

# Boot words with offsets other than 0: -50 mV on core, -20 on uncore.
writefile $EMU/plane0 0xf9a4cd2c >/dev/null
writefile $EMU/plane3 0xfd843312 >/dev/null
boot="$(cat $EMU/plane0 $EMU/plane1 $EMU/plane2 $EMU/plane3 $EMU/plane4)"
check "intel_undervolt loads" modprobe intel_undervolt emulate=1
check_eq "core boot offset is -50" -50 "$(cat $PKG/core_boot_offset_mv)"
check_eq "uncore boot offset is -20" -20 "$(cat $PKG/uncore_boot_offset_mv)"

cycle=1
while [ $cycle -le 5 ]; do
	check_eq "cycle $cycle: core -80" OK "$(writefile $PKG/core_offset_mv -80)"
	check_eq "cycle $cycle: gpu -$((cycle * 10))" OK "$(writefile $PKG/gpu_offset_mv -$((cycle * 10)))"
	check_eq "cycle $cycle: uncore 0" OK "$(writefile $PKG/uncore_offset_mv 0)"
	kmsg_mark "unload$cycle"
	check "cycle $cycle: rmmod" rmmod intel_undervolt
	check "cycle $cycle: the sysfs directory is gone" test ! -e $UV
	check "cycle $cycle: the debugfs directory is gone" test ! -e /sys/kernel/debug/intel_undervolt
	check_eq "cycle $cycle: every plane has its boot word" "$boot" \
		"$(cat $EMU/plane0 $EMU/plane1 $EMU/plane2 $EMU/plane3 $EMU/plane4)"
	check_grep "cycle $cycle: one log line for the unload" \
		"package 00: unload: restored core -80->-50 mV gpu -$((cycle * 10))->0 mV cache -80->0 mV uncore 0->-20 mV" \
		"$(dmesg_since "TEST-MARK unload$cycle")"
	check "cycle $cycle: modprobe" modprobe intel_undervolt emulate=1
	check_eq "cycle $cycle: core boot offset is still -50" -50 "$(cat $PKG/core_boot_offset_mv)"
	cycle=$((cycle + 1))
done

# Nothing changed: unload writes nothing.
echo > $EMU/log
check "rmmod without changes" rmmod intel_undervolt
check_eq "no write command reached the mailbox" 0 \
	"$(grep -c '^0x800000110' $EMU/log)"

check_no_splat
finish
