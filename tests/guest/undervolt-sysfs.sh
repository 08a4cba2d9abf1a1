#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# intel_undervolt on the emulated firmware: the sysfs files, the words the
# driver writes to the mailbox, read-modify-write, coupling of core and
# cache (Skylake-Client guest), the bounds, the taint, the change log.
. /test/lib.sh

TAINT_CPU_OUT_OF_SPEC=4
UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
EMU=/sys/kernel/debug/intel_undervolt_emu
PARAMS=/sys/module/intel_undervolt/parameters

out_of_spec() {
	echo $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
}

check "intel_undervolt is loaded" test -d /sys/module/intel_undervolt
check "intel_undervolt_emu was loaded on demand" test -d /sys/module/intel_undervolt_emu
check "the sysfs directory exists" test -d $PKG
check_eq "min_offset_mv is -250 by default" -250 "$(cat $UV/min_offset_mv)"
check_eq "max_offset_mv is 0 by default" 0 "$(cat $UV/max_offset_mv)"
check_eq "write_block_reason is none" none "$(cat $PKG/write_block_reason)"
for plane in core gpu cache uncore analogio; do
	check "$plane: ${plane}_offset_mv is 0644" \
		test "$(stat -c %a $PKG/${plane}_offset_mv)" = 644
	check "$plane: ${plane}_boot_offset_mv is 0444" \
		test "$(stat -c %a $PKG/${plane}_boot_offset_mv)" = 444
	check_eq "$plane: the boot offset is 0" 0 "$(cat $PKG/${plane}_boot_offset_mv)"
	check_eq "$plane: the offset is 0" 0 "$(cat $PKG/${plane}_offset_mv)"
done
check_eq "the module parameters are there" "allow_overvolt apply emulate max_undervolt_mv offsets trial_seconds" \
	"$(ls $PARAMS | tr '\n' ' ' | sed 's/ $//')"
check_eq "emulate is read-only" 444 "$(stat -c %a $PARAMS/emulate)"

# Writing 0 changes nothing worth a taint.
check_eq "writing 0 mV succeeds" OK "$(writefile $PKG/gpu_offset_mv 0)"
check_eq "a zero offset does not taint" 0 "$(out_of_spec)"

# The exact words, -100 mV on core with bits 20:0 zero.
writefile $EMU/plane0 0x00000000 >/dev/null
writefile $EMU/plane2 0x00000000 >/dev/null
writefile $EMU/log x >/dev/null
check_eq "the log is cleared by a write" "" "$(cat $EMU/log)"
kmsg_mark core-100
check_eq "writing -100 to core_offset_mv succeeds" OK "$(writefile $PKG/core_offset_mv -100)"
log=$(cat $EMU/log | tr '\n' ' ')
check_eq "core -100 mV: read, write 0x80000011f3400000, read back; then the same on cache" \
	"0x8000001000000000 0x80000011f3400000 0x8000001000000000 0x8000021000000000 0x80000211f3400000 0x8000021000000000 " \
	"$log"
check_eq "the firmware's core word holds -100 mV" 0xf3400000 "$(cat $EMU/plane0)"
check_eq "core and cache are coupled: cache follows" 0xf3400000 "$(cat $EMU/plane2)"
check_eq "core_offset_mv reads -100" -100 "$(cat $PKG/core_offset_mv)"
check_eq "cache_offset_mv reads -100" -100 "$(cat $PKG/cache_offset_mv)"
check_eq "the boot offset stays 0" 0 "$(cat $PKG/core_boot_offset_mv)"
check_eq "a verified non-zero offset taints (TAINT_CPU_OUT_OF_SPEC)" \
	$TAINT_CPU_OUT_OF_SPEC "$(out_of_spec)"
log=$(dmesg_since core-100)
check_grep "the change is logged with plane, old/new mV and the writer" \
	"package 00: core offset 0 mV -> -100 mV by writefile\[[0-9]+\]" "$log"
check_grep "the coupled cache change is logged" \
	"package 00: cache offset 0 mV -> -100 mV by writefile\[[0-9]+\]" "$log"

# Read-modify-write keeps bits 20:0 (ratio, voltage target, mode).
writefile $EMU/plane1 0x001abcde >/dev/null
check_eq "write -97 to gpu" OK "$(writefile $PKG/gpu_offset_mv -97)"
check_eq "gpu_offset_mv reads -97" -97 "$(cat $PKG/gpu_offset_mv)"
check_eq "gpu word: offset -97 mV (0x79d), bits 20:0 kept" 0xf3babcde "$(cat $EMU/plane1)"
check_eq "a write to gpu leaves core alone" 0xf3400000 "$(cat $EMU/plane0)"
check_eq "a write with a trailing newline is accepted" OK "$(writefile $PKG/uncore_offset_mv "-5
")"
check_eq "uncore_offset_mv reads -5" -5 "$(cat $PKG/uncore_offset_mv)"
check_eq "echo works too" "-7" "$(echo -7 > $PKG/analogio_offset_mv && cat $PKG/analogio_offset_mv)"

# Writes to cache apply to core too.
check_eq "write -40 to cache" OK "$(writefile $PKG/cache_offset_mv -40)"
check_eq "core follows cache" -40 "$(cat $PKG/core_offset_mv)"

# Reads ask the firmware, not a cache.
writefile $EMU/plane3 0xff143312 >/dev/null
check_eq "a read reports the firmware's current value" -8 "$(cat $PKG/uncore_offset_mv)"

# Every value in range round-trips.
bad=""
for mv in -250 -249 -200 -128 -127 -101 -99 -98 -97 -96 -50 -3 -2 -1 0; do
	writefile $PKG/gpu_offset_mv $mv >/dev/null
	got=$(cat $PKG/gpu_offset_mv)
	[ "$got" = "$mv" ] || bad="$bad $mv->$got"
done
check_eq "written values read back exactly" "" "$bad"

# The bounds follow the module parameters.
check_eq "-251 is out of range" ERANGE "$(writefile $PKG/core_offset_mv -251)"
check_eq "+1 is out of range" ERANGE "$(writefile $PKG/core_offset_mv 1)"
check_eq "max_undervolt_mv=1001 is refused" ERANGE "$(writefile $PARAMS/max_undervolt_mv 1001)"
check_eq "max_undervolt_mv=-1 is refused" ERANGE "$(writefile $PARAMS/max_undervolt_mv -1)"
check_eq "max_undervolt_mv=300 is accepted" OK "$(writefile $PARAMS/max_undervolt_mv 300)"
check_eq "min_offset_mv follows" -300 "$(cat $UV/min_offset_mv)"
check_eq "-300 is now accepted" OK "$(writefile $PKG/gpu_offset_mv -300)"
check_eq "allow_overvolt=1" OK "$(writefile $PARAMS/allow_overvolt 1)"
check_eq "max_offset_mv is 999 with allow_overvolt" 999 "$(cat $UV/max_offset_mv)"
check_eq "+50 is accepted with allow_overvolt" OK "$(writefile $PKG/gpu_offset_mv 50)"
check_eq "gpu_offset_mv reads 50" 50 "$(cat $PKG/gpu_offset_mv)"
check_eq "+999 is accepted with allow_overvolt" OK "$(writefile $PKG/gpu_offset_mv 999)"
check_eq "+1000 is out of range" ERANGE "$(writefile $PKG/gpu_offset_mv 1000)"
check_eq "max_undervolt_mv=1000" OK "$(writefile $PARAMS/max_undervolt_mv 1000)"
check_eq "-1000 is accepted" OK "$(writefile $PKG/gpu_offset_mv -1000)"
check_eq "gpu_offset_mv reads -1000" -1000 "$(cat $PKG/gpu_offset_mv)"
check_eq "gpu word: offset -1024 units" 0x801abcde "$(cat $EMU/plane1)"
writefile $PARAMS/allow_overvolt 0 >/dev/null
check_eq "max_offset_mv is 0 again" 0 "$(cat $UV/max_offset_mv)"

# Unloading the driver leaves the emulated firmware behind, with the
# offsets it had when the driver bound written back.
check "intel_undervolt unloads" rmmod intel_undervolt
check "intel_undervolt_emu stays loaded" test -d /sys/module/intel_undervolt_emu
check "the sysfs directory is gone" test ! -e $UV
check_eq "unload wrote back the boot core offset (0 mV)" 0x00000000 "$(cat $EMU/plane0)"

finish
