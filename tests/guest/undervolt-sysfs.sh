#!/bin/sh
# qemu-run: --smp 4,sockets=2,cores=2,threads=1
# intel_undervolt on the firmware model (qemu/MODEL.md), two sockets: the
# sysfs files of series v3, the words the driver writes to the mailbox,
# read-modify-write, coupling of core and cache (Skylake-Client guest),
# the bounds (module options, read-only at run time) and the firmware's,
# the taint, the change log, one mailbox per package, and the series'
# kselftest. Expectations are the model's words (literals of its fused
# table), never the driver's own output.
. /test/lib.sh

TAINT_CPU_OUT_OF_SPEC=4
UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
PKG1=$UV/package_01
PARAMS=/sys/module/intel_undervolt/parameters
PLANES="core gpu cache uncore analogio"

out_of_spec() {
	echo $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
}

# sorted_ls DIR: the names in DIR on one line, sorted.
sorted_ls() {
	echo $(ls "$1" | sort)
}

check "intel_undervolt is loaded" test -d /sys/module/intel_undervolt
check "the sysfs directory exists" test -d $PKG
check "package 1 has its sysfs directory" test -d $PKG1
check_eq "the driver's directory holds the bounds and a directory per package" \
	"max_offset_mv min_offset_mv package_00 package_01" "$(sorted_ls $UV)"
check_eq "a package holds <plane>_offset_mv and initial_<plane>_offset_mv of every plane, nothing else" \
	"analogio_offset_mv cache_offset_mv core_offset_mv gpu_offset_mv initial_analogio_offset_mv initial_cache_offset_mv initial_core_offset_mv initial_gpu_offset_mv initial_uncore_offset_mv uncore_offset_mv" \
	"$(sorted_ls $PKG)"
check_eq "package 1 holds the same files" "$(sorted_ls $PKG)" "$(sorted_ls $PKG1)"
check_eq "min_offset_mv is -250 by default" -250 "$(cat $UV/min_offset_mv)"
check_eq "max_offset_mv is 0 by default" 0 "$(cat $UV/max_offset_mv)"
check_eq "the bounds are read-only (0444)" "444 444" \
	"$(stat -c %a $UV/min_offset_mv) $(stat -c %a $UV/max_offset_mv)"
check_eq "package 0 holds the fused words" "$FUSED_WORDS" "$(fw_words 0)"
check_eq "package 1 holds the fused words" "$FUSED_WORDS" "$(fw_words 1)"
for plane in $PLANES; do
	check "$plane: ${plane}_offset_mv is 0644" \
		test "$(stat -c %a $PKG/${plane}_offset_mv)" = 644
	check "$plane: initial_${plane}_offset_mv is 0444" \
		test "$(stat -c %a $PKG/initial_${plane}_offset_mv)" = 444
	# The fused words hold offset 0 (bits 31:21 clear).
	check_eq "$plane: the initial offset is the model's 0" 0 "$(cat $PKG/initial_${plane}_offset_mv)"
	check_eq "$plane: the offset is the model's 0" 0 "$(cat $PKG/${plane}_offset_mv)"
done
check_eq "the module parameters are max_undervolt_mv and allow_overvolt" \
	"allow_overvolt max_undervolt_mv" "$(sorted_ls $PARAMS)"
check_eq "both are read-only (0444)" "444 444" \
	"$(stat -c %a $PARAMS/allow_overvolt) $(stat -c %a $PARAMS/max_undervolt_mv)"
check_eq "their defaults: 250 and N" "250 N" \
	"$(cat $PARAMS/max_undervolt_mv) $(cat $PARAMS/allow_overvolt)"

# Writing 0 over 0 changes nothing: no taint, no log line, and only a
# read goes to the firmware (the plane holds the value already).
fwctl clear-log
kmsg_mark zero
check_eq "writing 0 mV succeeds" OK "$(writefile $PKG/gpu_offset_mv 0)"
check_eq "the plane was read, and nothing written" \
	"0x8000011000000000" "$(echo $(fw_log))"
check_eq "a zero offset does not taint" 0 "$(out_of_spec)"
check_nogrep "a write that changes nothing logs nothing" "intel_undervolt" \
	"$(dmesg_since 'TEST-MARK zero')"

# The exact words, -100 mV on core (-102/1024 V, 0x79a in bits 31:21),
# bits 20:0 of the fused word kept.
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
check_eq "core_offset_mv reads the model's -100" -100 "$(cat $PKG/core_offset_mv)"
check_eq "cache_offset_mv reads the model's -100" -100 "$(cat $PKG/cache_offset_mv)"
check_eq "the initial offset stays 0" 0 "$(cat $PKG/initial_core_offset_mv)"
check_eq "a verified non-zero offset taints (TAINT_CPU_OUT_OF_SPEC)" \
	$TAINT_CPU_OUT_OF_SPEC "$(out_of_spec)"
log=$(dmesg_since core-100)
check_grep "the change is logged with plane, old/new mV and the writer" \
	"package 00: core offset 0 mV -> -100 mV by writefile\[[0-9]+\]" "$log"
check_grep "the coupled cache change is logged" \
	"package 00: cache offset 0 mV -> -100 mV by writefile\[[0-9]+\]" "$log"
# The same value again: both planes are read, nothing is written, the
# log says nothing.
fwctl clear-log
kmsg_mark core-100-again
check_eq "writing -100 to core again succeeds" OK "$(writefile $PKG/core_offset_mv -100)"
check_eq "the firmware saw the reads of core and cache only" \
	"0x8000001000000000 0x8000021000000000" "$(echo $(fw_log))"
check_nogrep "a write of the value in force logs nothing" "intel_undervolt" \
	"$(dmesg_since core-100-again)"

# One mailbox per package: a write to package 0 leaves package 1 alone,
# and the other way round.
check_eq "no command reached package 1's mailbox" "" "$(fw_log 1)"
check_eq "package 1 still holds the fused words" "$FUSED_WORDS" "$(fw_words 1)"
check_eq "package_01 core_offset_mv reads the model's 0" 0 "$(cat $PKG1/core_offset_mv)"
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
check_eq "package_01 core_offset_mv reads the model's -60" -60 "$(cat $PKG1/core_offset_mv)"
check_eq "package_00 core_offset_mv reads the model's -100" -100 "$(cat $PKG/core_offset_mv)"
check_grep "the change is logged for package 01" \
	"package 01: core offset 0 mV -> -60 mV by writefile\[[0-9]+\]" "$(dmesg_since pkg1-60)"

# Read-modify-write keeps bits 20:0 (ratio, voltage target, mode).
check_eq "write -97 to gpu" OK "$(writefile $PKG/gpu_offset_mv -97)"
check_eq "gpu word: offset -97 mV (0x79d), bits 20:0 of the fused word kept" \
	0xf3a48c16 "$(fwctl word 1)"
check_eq "gpu_offset_mv reads the model's -97" -97 "$(cat $PKG/gpu_offset_mv)"
check_eq "a write to gpu leaves core alone" 0xf344cd2c "$(fwctl word 0)"
check_eq "a write with a trailing newline is accepted" OK "$(writefile $PKG/uncore_offset_mv "-5
")"
check_eq "the firmware's uncore word holds -5 mV" "$(offset_word -5 0x43312)" "$(fwctl word 3)"
check_eq "uncore_offset_mv reads the model's -5" -5 "$(cat $PKG/uncore_offset_mv)"
check "echo works too" sh -c "echo -7 > $PKG/analogio_offset_mv"
check_eq "the firmware's analogio word holds -7 mV" "$(offset_word -7 0x40001)" "$(fwctl word 4)"

# Writes to cache apply to core too.
check_eq "write -40 to cache" OK "$(writefile $PKG/cache_offset_mv -40)"
check_eq "the firmware's cache word holds -40 mV" "$(offset_word -40 0x4cd28)" "$(fwctl word 2)"
check_eq "the firmware's core word follows cache" "$(offset_word -40 0x4cd2c)" "$(fwctl word 0)"

# Reads send the firmware nothing: they show what it last answered the
# driver, even when the package loses its words behind the driver's back
# (a restore after resume or hotplug reads them again).
fwctl forget
fwctl clear-log
check_eq "a read shows the core value the firmware last reported" -40 "$(cat $PKG/core_offset_mv)"
check_eq "a read shows the uncore value the firmware last reported" -5 "$(cat $PKG/uncore_offset_mv)"
check_eq "the reads sent no mailbox command" "" "$(fw_log)"
check_eq "write -40 to core again" OK "$(writefile $PKG/core_offset_mv -40)"
check_eq "the firmware's core word holds -40 mV again" "$(offset_word -40 0x4cd2c)" "$(fwctl word 0)"

# Every value in range round-trips.
bad=""
for mv in -250 -249 -200 -128 -127 -101 -99 -98 -97 -96 -50 -3 -2 -1 0; do
	writefile $PKG/gpu_offset_mv $mv >/dev/null
	got=$(cat $PKG/gpu_offset_mv)
	fw=$(fwctl word 1)
	[ "$got" = "$mv" ] && [ "$fw" = "$(offset_word $mv 0x48c16)" ] || bad="$bad $mv->$got/$fw"
done
check_eq "written values reach the firmware exactly and read back" "" "$bad"

# The bounds are fixed when the module loads (options or the kernel
# command line), never past +-500 mV (where Intel's reference firmware
# clips): a write outside them is refused before any command, and the
# parameters cannot be written at run time.
fwctl clear-log
check_eq "-251 is out of range" ERANGE "$(writefile $PKG/core_offset_mv -251)"
check_eq "+1 is out of range" ERANGE "$(writefile $PKG/core_offset_mv 1)"
check_eq "out-of-range writes send no mailbox command" "" "$(fw_log)"
check_eq "max_undervolt_mv cannot be written at run time (EACCES)" EACCES \
	"$(writefile $PARAMS/max_undervolt_mv 300)"
check_eq "nor narrowed (EACCES)" EACCES "$(writefile $PARAMS/max_undervolt_mv 200)"
check_eq "allow_overvolt cannot be written at run time (EACCES)" EACCES \
	"$(writefile $PARAMS/allow_overvolt 1)"
check_eq "min_offset_mv and max_offset_mv cannot be written (EACCES)" "EACCES EACCES" \
	"$(writefile $UV/min_offset_mv -300) $(writefile $UV/max_offset_mv 500)"
check_eq "the bounds did not move" "-250 0" "$(cat $UV/min_offset_mv) $(cat $UV/max_offset_mv)"
check_eq "the firmware's gpu word is the fused one" 0x00048c16 "$(fwctl word 1)"

# Wider bounds come from module options, up to the hard limit.
kmsg_mark reload
check "intel_undervolt unloads" rmmod intel_undervolt
check_eq "the unload wrote package 0's fused words back" "$FUSED_WORDS" "$(fw_words 0)"
check_eq "the unload wrote package 1's fused words back" "$FUSED_WORDS" "$(fw_words 1)"
check "modprobe with max_undervolt_mv=501 fails" sh -c '! modprobe intel_undervolt max_undervolt_mv=501 2>/dev/null'
check "so the driver is not loaded" test ! -e $UV
check_grep "max_undervolt_mv=501 is logged as refused" \
	"intel_undervolt: max_undervolt_mv=501: not from 0 to 500" "$(dmesg_since 'TEST-MARK reload')"
check "modprobe with max_undervolt_mv=500 allow_overvolt=1" modprobe intel_undervolt max_undervolt_mv=500 allow_overvolt=1
check_eq "the parameters read 500 and Y" "500 Y" \
	"$(cat $PARAMS/max_undervolt_mv) $(cat $PARAMS/allow_overvolt)"
check_eq "the bounds are -500 and +500" "-500 500" "$(cat $UV/min_offset_mv) $(cat $UV/max_offset_mv)"
check_eq "-300 is accepted" OK "$(writefile $PKG/gpu_offset_mv -300)"
check_eq "the firmware's gpu word holds -300 mV" "$(offset_word -300 0x48c16)" "$(fwctl word 1)"
check_eq "+50 is accepted with allow_overvolt" OK "$(writefile $PKG/gpu_offset_mv 50)"
check_eq "the firmware's gpu word holds +50 mV" "$(offset_word 50 0x48c16)" "$(fwctl word 1)"
check_eq "gpu_offset_mv reads the model's 50" 50 "$(cat $PKG/gpu_offset_mv)"
check_eq "+500 is accepted" OK "$(writefile $PKG/gpu_offset_mv 500)"
check_eq "gpu word: offset +512 units" 0x40048c16 "$(fwctl word 1)"
fwctl clear-log
for mv in 501 999 1000 -501 -1000; do
	check_eq "$mv is out of range" ERANGE "$(writefile $PKG/gpu_offset_mv $mv)"
done
check_eq "none of them sent a mailbox command" "" "$(fw_log)"
check_eq "the gpu word keeps +500 mV" 0x40048c16 "$(fwctl word 1)"
check_eq "-500 is accepted" OK "$(writefile $PKG/gpu_offset_mv -500)"
check_eq "gpu word: offset -512 units" 0xc0048c16 "$(fwctl word 1)"
check_eq "gpu_offset_mv reads the model's -500" -500 "$(cat $PKG/gpu_offset_mv)"
check_eq "allow_overvolt still cannot be written (EACCES)" EACCES \
	"$(writefile $PARAMS/allow_overvolt 0)"
check_eq "max_offset_mv stays 500" 500 "$(cat $UV/max_offset_mv)"
check_eq "gpu back to 0" OK "$(writefile $PKG/gpu_offset_mv 0)"

# The series' kselftest, with a 5 mV undervolt of each plane for a
# moment; it leaves every offset as it found it.
before0=$(fw_words 0)
before1=$(fw_words 1)
kselftest 0 -s 5
check_eq "the kselftest left package 0's words as they were" "$before0" "$(fw_words 0)"
check_eq "the kselftest left package 1's words as they were" "$before1" "$(fw_words 1)"

# Unloading the driver writes back, on every package, the offsets it had
# when the driver bound (the fused words' 0 mV: the driver bound again
# after the unload above); the firmware keeps them. (Initial offsets other
# than 0: undervolt-unload.sh.)
check_eq "write -30 to core" OK "$(writefile $PKG/core_offset_mv -30)"
check_eq "write -20 to package 1's gpu" OK "$(writefile $PKG1/gpu_offset_mv -20)"
check "intel_undervolt unloads" rmmod intel_undervolt
check "the sysfs directory is gone" test ! -e $UV
check_eq "unload wrote back package 0's fused words" "$FUSED_WORDS" "$(fw_words 0)"
check_eq "unload wrote back package 1's fused words" "$FUSED_WORDS" "$(fw_words 1)"

finish
