#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# The emulated firmware forgets every offset when the system suspends; the
# driver writes the remembered offsets back on resume: syscore for
# pm_test=core and hibernation, the PM notifier for suspend to idle
# (pm_test=platform).
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
EMU=/sys/kernel/debug/intel_undervolt_emu
RESTORES=/sys/kernel/debug/intel_undervolt/restores

check "the sysfs directory exists" test -d $PKG
check "the restore counter exists" test -r $RESTORES
check_eq "the restore counter starts at 0" 0 "$(cat $RESTORES)"
check_eq "the emulated firmware forgets by default" 1 "$(cat $EMU/forget)"
check "pm_test is available" test -w /sys/power/pm_test
[ -w /sys/module/suspend/parameters/pm_test_delay ] &&
	echo 0 > /sys/module/suspend/parameters/pm_test_delay

check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "uncore -30" OK "$(writefile $PKG/uncore_offset_mv -30)"

# suspend LEVEL [MEM_SLEEP]: one pm_test suspend cycle
suspend() {
	echo "$1" > /sys/power/pm_test
	[ -n "$2" ] && echo "$2" > /sys/power/mem_sleep
	echo mem > /sys/power/state
}

expect_restored() {
	check_eq "$1: core is -80 again" -80 "$(cat $PKG/core_offset_mv)"
	check_eq "$1: cache follows core" -80 "$(cat $PKG/cache_offset_mv)"
	check_eq "$1: gpu is -40 again" -40 "$(cat $PKG/gpu_offset_mv)"
	check_eq "$1: uncore is -30 again" -30 "$(cat $PKG/uncore_offset_mv)"
	check_eq "$1: analogio stays 0" 0 "$(cat $PKG/analogio_offset_mv)"
}

# S3 path, pm_test=core: syscore resume restores before the PM notifier.
kmsg_mark core
check "suspend with pm_test=core" suspend core deep
log=$(dmesg_since "TEST-MARK core")
check_grep "the firmware forgot at suspend" "intel_undervolt_emu: suspend: planes reset" "$log"
expect_restored "pm_test=core"
check_eq "core: one restore counted" 1 "$(cat $RESTORES)"
check_grep "core: one log line names the planes" \
	"package 00: resume: restored core 0->-80 mV gpu 0->-40 mV cache 0->-80 mV uncore 0->-30 mV" "$log"
check_eq "core: exactly one restore line" 1 \
	"$(printf '%s\n' "$log" | grep -c 'intel_undervolt: package 00: resume: restored')"
# line_of PATTERN: the number of the first log line matching PATTERN
line_of() {
	printf '%s\n' "$log" | grep -n -m1 -- "$1" | cut -d: -f1
}
restored=$(line_of "package 00: resume: restored")
thawed=$(line_of "Restarting tasks")
check "core: restored (syscore) before user space thaws ($restored < $thawed)" \
	test "${restored:-999999}" -lt "${thawed:-0}"

# Suspend to idle, pm_test=platform: syscore does not run; the PM notifier does.
if grep -q s2idle /sys/power/mem_sleep; then
	kmsg_mark platform
	check "suspend to idle with pm_test=platform" suspend platform s2idle
	log=$(dmesg_since "TEST-MARK platform")
	check_grep "s2idle: the firmware forgot" "intel_undervolt_emu: suspend: planes reset" "$log"
	expect_restored "pm_test=platform s2idle"
	check_eq "s2idle: two restores counted" 2 "$(cat $RESTORES)"
else
	fail "s2idle is not offered in /sys/power/mem_sleep"
fi

# A firmware that does not forget: nothing to restore, nothing counted.
echo 0 > $EMU/forget
check "suspend with a firmware that remembers" suspend core deep
expect_restored "remembering firmware"
check_eq "no restore counted when nothing was lost" 2 "$(cat $RESTORES)"
echo 1 > $EMU/forget

# Values changed after a restore are the ones restored next time.
check_eq "core -50" OK "$(writefile $PKG/core_offset_mv -50)"
check "suspend again" suspend core deep
check_eq "the latest core value is restored" -50 "$(cat $PKG/core_offset_mv)"
check_eq "three restores counted" 3 "$(cat $RESTORES)"

# Hibernation, pm_test=core: the image is made but not written (no swap
# needed) and the system resumes at once, through syscore as after S3.
if grep -qw disk /sys/power/state; then
	check_eq "core -70" OK "$(writefile $PKG/core_offset_mv -70)"
	kmsg_mark disk
	echo core > /sys/power/pm_test
	check "hibernate with pm_test=core" sh -c 'echo disk > /sys/power/state'
	log=$(dmesg_since "TEST-MARK disk")
	check_grep "hibernation: the firmware forgot" "intel_undervolt_emu: suspend: planes reset" "$log"
	check_eq "hibernation: core is -70 again" -70 "$(cat $PKG/core_offset_mv)"
	check_eq "hibernation: gpu is -40 again" -40 "$(cat $PKG/gpu_offset_mv)"
	check_eq "hibernation: four restores counted" 4 "$(cat $RESTORES)"
	restored=$(line_of "package 00: resume: restored")
	thawed=$(line_of "Restarting tasks")
	check "hibernation: restored before user space thaws ($restored < $thawed)" \
		test "${restored:-999999}" -lt "${thawed:-0}"
else
	fail "hibernation is not offered in /sys/power/state ($(cat /sys/power/state))"
fi
echo none > /sys/power/pm_test

check_no_splat
finish
