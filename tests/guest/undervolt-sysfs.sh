#!/bin/sh
# qemu-run: --smp 4,sockets=2,cores=2,threads=1
# intel_undervolt on the firmware model (qemu/MODEL.md), two sockets: the
# sysfs files, the words the driver writes to the mailbox,
# read-modify-write, coupling of core and cache (Skylake-Client guest),
# the bounds of the driver and of the firmware, the taint, the change log,
# and one mailbox per package.
. /test/lib.sh

TAINT_CPU_OUT_OF_SPEC=4
UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
PKG1=$UV/package_01
PARAMS=/sys/module/intel_undervolt/parameters
BOOT_WORDS="0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001"

out_of_spec() {
	echo $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
}

check "intel_undervolt is loaded" test -d /sys/module/intel_undervolt
check "the sysfs directory exists" test -d $PKG
check "package 1 has its sysfs directory" test -d $PKG1
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
check_eq "the module parameters are there" "allow_overvolt apply max_undervolt_mv mce_revert_threshold mce_revert_window_s offsets trial_seconds" \
	"$(ls $PARAMS | tr '\n' ' ' | sed 's/ $//')"

# Writing 0 changes nothing worth a taint.
check_eq "writing 0 mV succeeds" OK "$(writefile $PKG/gpu_offset_mv 0)"
check_eq "a zero offset does not taint" 0 "$(out_of_spec)"
check_eq "package 0 holds the boot words" "$BOOT_WORDS" "$(fw_words 0)"
check_eq "package 1 holds the boot words" "$BOOT_WORDS" "$(fw_words 1)"

# The exact words, -100 mV on core (-102/1024 V, 0x79a in bits 31:21),
# bits 20:0 of the boot word kept.
fwctl clear-log
fwctl -p 1 clear-log
check_eq "the log is cleared" "" "$(fw_log)"
kmsg_mark core-100
check_eq "writing -100 to core_offset_mv succeeds" OK "$(writefile $PKG/core_offset_mv -100)"
check_eq "core -100 mV: read, write 0x80000011f344cd2c, read back; then the same on cache" \
	"0x8000001000000000 0x80000011f344cd2c 0x8000001000000000 0x8000021000000000 0x80000211f344cd28 0x8000021000000000" \
	"$(echo $(fw_log))"
check_eq "the firmware's core word holds -100 mV" 0xf344cd2c "$(fwctl word 0)"
check_eq "core and cache are coupled: cache follows" 0xf344cd28 "$(fwctl word 2)"
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

# One mailbox per package: a write to package 0 leaves package 1 alone,
# and the other way round.
check_eq "no command reached package 1's mailbox" "" "$(fw_log 1)"
check_eq "package 1 still holds the boot words" "$BOOT_WORDS" "$(fw_words 1)"
check_eq "package_01 core_offset_mv reads 0" 0 "$(cat $PKG1/core_offset_mv)"
fwctl clear-log
fwctl -p 1 clear-log
kmsg_mark pkg1-60
check_eq "writing -60 to package 1's core succeeds" OK "$(writefile $PKG1/core_offset_mv -60)"
check_grep "the write reached package 1's mailbox" "^0x80000011f864cd2c$" "$(fw_log 1)"
check_eq "no command reached package 0's mailbox" "" "$(fw_log)"
check_eq "package 1's core word holds -60 mV" 0xf864cd2c "$(fwctl -p 1 word 0)"
check_eq "package 1's cache follows its core" 0xf864cd28 "$(fwctl -p 1 word 2)"
check_eq "package 1's gpu word is untouched" 0x00048c16 "$(fwctl -p 1 word 1)"
check_eq "package 0's core word keeps -100 mV" 0xf344cd2c "$(fwctl word 0)"
check_eq "package 0's cache word keeps -100 mV" 0xf344cd28 "$(fwctl word 2)"
check_eq "package_01 core_offset_mv reads -60" -60 "$(cat $PKG1/core_offset_mv)"
check_eq "package_00 core_offset_mv still reads -100" -100 "$(cat $PKG/core_offset_mv)"
check_grep "the change is logged for package 01" \
	"package 01: core offset 0 mV -> -60 mV by writefile\[[0-9]+\]" "$(dmesg_since pkg1-60)"

# Read-modify-write keeps bits 20:0 (ratio, voltage target, mode).
check_eq "write -97 to gpu" OK "$(writefile $PKG/gpu_offset_mv -97)"
check_eq "gpu_offset_mv reads -97" -97 "$(cat $PKG/gpu_offset_mv)"
check_eq "gpu word: offset -97 mV (0x79d), bits 20:0 of the boot word kept" \
	0xf3a48c16 "$(fwctl word 1)"
check_eq "a write to gpu leaves core alone" 0xf344cd2c "$(fwctl word 0)"
check_eq "a write with a trailing newline is accepted" OK "$(writefile $PKG/uncore_offset_mv "-5
")"
check_eq "uncore_offset_mv reads -5" -5 "$(cat $PKG/uncore_offset_mv)"
check_eq "the firmware's uncore word holds -5 mV" -5 "$(fw_offset_mv 3)"
check_eq "echo works too" "-7" "$(echo -7 > $PKG/analogio_offset_mv && cat $PKG/analogio_offset_mv)"
check_eq "the firmware's analogio word holds -7 mV" -7 "$(fw_offset_mv 4)"

# Writes to cache apply to core too.
check_eq "write -40 to cache" OK "$(writefile $PKG/cache_offset_mv -40)"
check_eq "core follows cache" -40 "$(cat $PKG/core_offset_mv)"
check_eq "the firmware's core word follows cache" -40 "$(fw_offset_mv 0)"

# Reads send the firmware nothing: they show what it last answered the
# driver, even when the package loses its words behind the driver's back
# (a restore after resume or hotplug reads them again).
fwctl forget
fwctl clear-log
check_eq "a read shows the core value the firmware last reported" -40 "$(cat $PKG/core_offset_mv)"
check_eq "a read shows the uncore value the firmware last reported" -5 "$(cat $PKG/uncore_offset_mv)"
check_eq "the reads sent no mailbox command" "" "$(fw_log)"
check_eq "write -40 to core again" OK "$(writefile $PKG/core_offset_mv -40)"
check_eq "the firmware's core word holds -40 mV again" -40 "$(fw_offset_mv 0)"

# Every value in range round-trips.
bad=""
for mv in -250 -249 -200 -128 -127 -101 -99 -98 -97 -96 -50 -3 -2 -1 0; do
	writefile $PKG/gpu_offset_mv $mv >/dev/null
	got=$(cat $PKG/gpu_offset_mv)
	fw=$(fw_offset_mv 1)
	[ "$got" = "$mv" ] && [ "$fw" = "$mv" ] || bad="$bad $mv->$got/$fw"
done
check_eq "written values read back exactly, from sysfs and from the firmware" "" "$bad"

# The bounds: chosen when the module loads, never past +-500 mV (where
# Intel's reference firmware clips), and at run time only narrowed, so
# that root gained later cannot widen them first. The driver refuses
# before any command.
fwctl clear-log
check_eq "-251 is out of range" ERANGE "$(writefile $PKG/core_offset_mv -251)"
check_eq "+1 is out of range" ERANGE "$(writefile $PKG/core_offset_mv 1)"
check_eq "out-of-range writes send no mailbox command" "" "$(fw_log)"
check_eq "max_undervolt_mv=300 is refused at run time (wider)" EPERM "$(writefile $PARAMS/max_undervolt_mv 300)"
check_eq "allow_overvolt=1 is refused at run time" EPERM "$(writefile $PARAMS/allow_overvolt 1)"
check_eq "the bounds did not move" "-250 0" "$(cat $UV/min_offset_mv) $(cat $UV/max_offset_mv)"
check_grep "the run-time widening is logged" "max_undervolt_mv can only be lowered at run time" "$(dmesg)"
check_eq "max_undervolt_mv=-1 is refused" ERANGE "$(writefile $PARAMS/max_undervolt_mv -1)"
check_eq "max_undervolt_mv=200 (narrower) is accepted" OK "$(writefile $PARAMS/max_undervolt_mv 200)"
check_eq "min_offset_mv follows" -200 "$(cat $UV/min_offset_mv)"
check_eq "-201 is now out of range" ERANGE "$(writefile $PKG/gpu_offset_mv -201)"
check_eq "the firmware's gpu word is untouched" 0x00048c16 "$(fwctl word 1)"

# Wider bounds come from module options, up to the hard limit.
check "intel_undervolt unloads" rmmod intel_undervolt
check "modprobe with max_undervolt_mv=501 fails" sh -c '! modprobe intel_undervolt max_undervolt_mv=501 2>/dev/null'
check "so the driver is not loaded" test ! -e $UV
check_grep "max_undervolt_mv=501 is logged as refused" "max_undervolt_mv=501 refused" "$(dmesg)"
check "modprobe with max_undervolt_mv=500 allow_overvolt=1" modprobe intel_undervolt max_undervolt_mv=500 allow_overvolt=1
check_eq "the bounds are -500 and +500" "-500 500" "$(cat $UV/min_offset_mv) $(cat $UV/max_offset_mv)"
check_eq "-300 is accepted" OK "$(writefile $PKG/gpu_offset_mv -300)"
check_eq "the firmware's gpu word holds -300 mV" -300 "$(fw_offset_mv 1)"
check_eq "+50 is accepted with allow_overvolt" OK "$(writefile $PKG/gpu_offset_mv 50)"
check_eq "gpu_offset_mv reads 50" 50 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware's gpu word holds +50 mV" 50 "$(fw_offset_mv 1)"
check_eq "+500 is accepted" OK "$(writefile $PKG/gpu_offset_mv 500)"
check_eq "gpu word: offset +512 units" 0x40048c16 "$(fwctl word 1)"
fwctl clear-log
for mv in 501 999 1000 -501 -1000; do
	check_eq "$mv is out of range" ERANGE "$(writefile $PKG/gpu_offset_mv $mv)"
done
check_eq "none of them sent a mailbox command" "" "$(fw_log)"
check_eq "the gpu word keeps +500 mV" 0x40048c16 "$(fwctl word 1)"
check_eq "-500 is accepted" OK "$(writefile $PKG/gpu_offset_mv -500)"
check_eq "gpu_offset_mv reads -500" -500 "$(cat $PKG/gpu_offset_mv)"
check_eq "gpu word: offset -512 units" 0xc0048c16 "$(fwctl word 1)"
check_eq "allow_overvolt=0 (narrower) is accepted" OK "$(writefile $PARAMS/allow_overvolt 0)"
check_eq "max_offset_mv is 0 again" 0 "$(cat $UV/max_offset_mv)"
check_eq "allow_overvolt=1 is refused again" EPERM "$(writefile $PARAMS/allow_overvolt 1)"

# Unloading the driver writes back, on every package, the offsets it had
# when the driver bound; the firmware keeps them.
check_eq "write -30 to core" OK "$(writefile $PKG/core_offset_mv -30)"
check "intel_undervolt unloads" rmmod intel_undervolt
check "the sysfs directory is gone" test ! -e $UV
check_eq "unload wrote back package 0's boot words" "$BOOT_WORDS" "$(fw_words 0)"
check_eq "unload wrote back package 1's boot words" "$BOOT_WORDS" "$(fw_words 1)"

finish
