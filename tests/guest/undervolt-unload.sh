#!/bin/sh
# rmmod intel_undervolt writes back, on every package, the offsets the
# firmware had when the driver bound, and removes its sysfs files; the
# firmware keeps the words, so they can be read after it.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00

# write_domains: the domains (bits 42:40) of the write commands in the
# model's command log of package 0, in order, on one line.
write_domains() {
	local w
	echo $(fw_write_commands | while read -r w; do echo $(( (w >> 40) & 7 )); done)
}

check "intel_undervolt is loaded" test -d $PKG

# While bound, the driver owns the mailbox (patch "x86/msr: Let a driver
# own the OC mailbox"): raw writes to MSR 0x150 fail with EBUSY and each
# refused write is logged (rate-limited) with what to use instead. A stock kernel (DKMS) has no
# owner to claim: there raw writes still go through.
kmsg_mark raw-write
out=$(msrtool write 0 0x150 0x80000011f9a4cd2c 3 2>&1)
case $(uname -r) in
*-undervolt-test*|*-undervolt-debug*)
	check_grep "while bound, raw writes to MSR 0x150 fail with EBUSY" "EBUSY" "$out"
	check_eq "the firmware's core word is untouched by them" 0x0004cd2c "$(fwctl word 0)"
	check_eq "each of the 3 refused writes is logged with what to use instead" 3 \
		"$(dmesg_since "TEST-MARK raw-write" | grep -c 'msrtool\[[0-9]*\]: write to MSR 0x150 refused (-EBUSY).*intel_undervolt')"
	;;
*)
	check_eq "stock kernel, no owner: raw writes to MSR 0x150 go through" "" "$out"
	check_eq "stock kernel: the firmware's core word took them" 0xf9a4cd2c "$(fwctl word 0)"
	msrtool write 0 0x150 0x800000110004cd2c
	check_eq "stock kernel: a raw write puts the boot word back" 0x0004cd2c "$(fwctl word 0)"
	;;
esac
check "intel_undervolt unloads" rmmod intel_undervolt

# Boot words with offsets other than 0, set while no driver is bound, the
# way other software or the firmware setup would: -50 mV on core
# (0xf9a4cd2c), -20 mV on uncore (0xfd843312), with raw mailbox writes.
msrtool write 0 0x150 0x80000011f9a4cd2c
msrtool write 0 0x150 0x80000311fd843312
boot="0xf9a4cd2c 0x00048c16 0x0004cd28 0xfd843312 0x00040001"
check_eq "the firmware holds core -50 mV and uncore -20 mV" "$boot" "$(fw_words)"
check "intel_undervolt loads" modprobe intel_undervolt
check_eq "the initial core offset is the model's -50" -50 "$(cat $PKG/initial_core_offset_mv)"
check_eq "the initial uncore offset is the model's -20" -20 "$(cat $PKG/initial_uncore_offset_mv)"

cycle=1
while [ $cycle -le 5 ]; do
	check_eq "cycle $cycle: core -80" OK "$(writefile $PKG/core_offset_mv -80)"
	check_eq "cycle $cycle: gpu -$((cycle * 10))" OK "$(writefile $PKG/gpu_offset_mv -$((cycle * 10)))"
	check_eq "cycle $cycle: uncore 0" OK "$(writefile $PKG/uncore_offset_mv 0)"
	kmsg_mark "unload$cycle"
	fwctl clear-log
	check "cycle $cycle: rmmod" rmmod intel_undervolt
	check "cycle $cycle: the sysfs directory is gone" test ! -e $UV
	check_eq "cycle $cycle: every plane has its word from before the load" "$boot" "$(fw_words)"
	check_eq "cycle $cycle: unload wrote core, gpu, cache and uncore" "0 1 2 3" \
		"$(write_domains)"
	log=$(dmesg_since "TEST-MARK unload$cycle")
	check_eq "cycle $cycle: a log line per plane the unload wrote" \
		"core offset -80 mV -> -50 mV by unload|gpu offset -$((cycle * 10)) mV -> 0 mV by unload|cache offset -80 mV -> 0 mV by unload|uncore offset 0 mV -> -20 mV by unload" \
		"$(printf '%s\n' "$log" | sed -n 's/.*intel_undervolt: package 00: //p' | paste -sd'|')"
	check "cycle $cycle: modprobe" modprobe intel_undervolt
	check_eq "cycle $cycle: the initial core offset is the model's -50 again" -50 "$(cat $PKG/initial_core_offset_mv)"
	cycle=$((cycle + 1))
done

# Nothing changed: unload writes nothing.
fwctl clear-log
check "rmmod without changes" rmmod intel_undervolt
check_eq "no write command reached the mailbox" "" "$(fw_write_commands)"
check_eq "the firmware keeps its words" "$boot" "$(fw_words)"

# An offset between two millivolts, as other software or the firmware
# setup may leave it: -64/1024 V (-62.5 mV, 0x7c0 in bits 31:21) on uncore.
# It reads as -63 mV; -63 mV written converts to -65/1024 V, so only a
# driver that writes nothing for the value it reads keeps the word.
msrtool write 0 0x150 0x80000311f8043312
check_eq "the firmware holds uncore at -64/1024 V" 0xf8043312 "$(fwctl word 3)"
check "intel_undervolt loads over it" modprobe intel_undervolt
check_eq "uncore reads -63 mV, the nearest millivolt (halves away from 0)" -63 \
	"$(cat $PKG/uncore_offset_mv)"
fwctl clear-log
check_eq "writing back the -63 mV it reads succeeds" OK "$(writefile $PKG/uncore_offset_mv -63)"
check_eq "and sends only a read of uncore" 0x8000031000000000 "$(echo $(fw_log))"
check_eq "the firmware's uncore word is still -64/1024 V" 0xf8043312 "$(fwctl word 3)"
check_eq "writing -40 mV works" OK "$(writefile $PKG/uncore_offset_mv -40)"
check "rmmod after it" rmmod intel_undervolt
check_eq "unload puts the off-grid word back to the unit" 0xf8043312 "$(fwctl word 3)"

check_no_splat
finish
