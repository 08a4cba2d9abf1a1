#!/bin/sh
# qemu-run: --smp 2
# Offsets survive suspend because the driver writes them back, and it does
# so only when the firmware lost them.
# - Real S3 (mem_sleep=deep, woken by the RTC alarm): QEMU resets the
#   machine on the way back and the firmware model forgets, as voltage
#   regulators do; syscore restores before any task runs.
# - Suspend to idle and hibernation with pm_test: nothing loses power, so
#   the test makes the model forget first (fwctl forget, as if the package
#   had lost power) and checks that the PM notifier or syscore restored.
# - A firmware that kept its words: nothing restored, nothing counted.
# The restores are observed in the model's words, never through the driver.
# Two CPUs: suspend takes the second offline and resume brings it back
# (with the driver's hotplug callbacks), as on every laptop.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
RESTORES=/sys/kernel/debug/intel_undervolt/restores

check "the sysfs directory exists" test -d $PKG
check "the restore counter exists" test -r $RESTORES
check_eq "the restore counter starts at 0" 0 "$(cat $RESTORES)"
check "deep (S3) is offered" grep -qw deep /sys/power/mem_sleep
check "the RTC has a wake alarm" test -w /sys/class/rtc/rtc0/wakealarm
check "pm_test is available" test -w /sys/power/pm_test
[ -w /sys/module/suspend/parameters/pm_test_delay ] &&
	echo 0 > /sys/module/suspend/parameters/pm_test_delay

check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "uncore -30" OK "$(writefile $PKG/uncore_offset_mv -30)"
words=$(fw_words)

# The model's offsets, in mV, of the five domains.
fw_offsets() {
	echo "$(fw_offset_mv 0) $(fw_offset_mv 1) $(fw_offset_mv 2) $(fw_offset_mv 3) $(fw_offset_mv 4)"
}

# expect_restored WHAT: the model holds every offset again.
expect_restored() {
	check_eq "$1: the model holds core -80, gpu -40, cache -80 (coupled), uncore -30" \
		"-80 -40 -80 -30 0" "$(fw_offsets)"
	check_eq "$1: and every other bit of the words" "$words" "$(fw_words)"
}

# line_of PATTERN: the number of the first line of $log matching PATTERN
line_of() {
	printf '%s\n' "$log" | grep -n -m1 -- "$1" | cut -d: -f1
}

# s3: one real suspend to RAM, woken by the RTC two seconds later
s3() {
	echo none > /sys/power/pm_test
	echo deep > /sys/power/mem_sleep
	echo 0 > /sys/class/rtc/rtc0/wakealarm
	echo +2 > /sys/class/rtc/rtc0/wakealarm
	echo mem > /sys/power/state
}

# pm_suspend LEVEL STATE [MEM_SLEEP]: one pm_test cycle
pm_suspend() {
	echo "$1" > /sys/power/pm_test
	[ -n "${3:-}" ] && echo "$3" > /sys/power/mem_sleep
	echo "$2" > /sys/power/state
}

# Real S3.
resets=$(fwctl resets)
kmsg_mark s3
check "suspend to RAM (S3) and wake up" s3
log=$(dmesg_since "TEST-MARK s3")
check_grep "S3: the guest went through firmware resume" "Waking up from system sleep state S3" "$log"
check_eq "S3: the model saw one system reset" $((resets + 1)) "$(fwctl resets)"
expect_restored "S3"
check_eq "S3: one restore counted" 1 "$(cat $RESTORES)"
check_grep "S3: one log line names the planes" \
	"package 00: resume: restored core 0->-80 mV gpu 0->-40 mV cache 0->-80 mV uncore 0->-30 mV" "$log"
check_eq "S3: exactly one restore line" 1 \
	"$(printf '%s\n' "$log" | grep -c 'intel_undervolt: package 00: resume: restored')"
restored=$(line_of "package 00: resume: restored")
thawed=$(line_of "Restarting tasks")
check "S3: restored (syscore) before user space thaws ($restored < $thawed)" \
	test "${restored:-999999}" -lt "${thawed:-0}"

# Suspend to idle, pm_test=platform: syscore does not run; the PM notifier does.
if grep -qw s2idle /sys/power/mem_sleep; then
	fwctl forget
	check_eq "s2idle: the model forgot (fwctl forget)" "0 0 0 0 0" "$(fw_offsets)"
	kmsg_mark platform
	check "suspend to idle with pm_test=platform" pm_suspend platform mem s2idle
	expect_restored "pm_test=platform s2idle"
	check_eq "s2idle: two restores counted" 2 "$(cat $RESTORES)"
else
	fail "s2idle is not offered in /sys/power/mem_sleep"
fi

# A firmware that kept its words: nothing to restore, nothing counted.
resets=$(fwctl resets)
fwctl clear-log
check "suspend with pm_test=core, the model keeps its words" pm_suspend core mem deep
check_eq "pm_test=core: no system reset" "$resets" "$(fwctl resets)"
expect_restored "remembering firmware"
check_eq "no restore counted when nothing was lost" 2 "$(cat $RESTORES)"
check_eq "and no write command reached the model" "" \
	"$(fw_write_commands)"

# Values changed after a restore are the ones restored next time.
check_eq "core -50" OK "$(writefile $PKG/core_offset_mv -50)"
check "S3 again" s3
check_eq "the latest core value is restored" "-50 -40 -50 -30 0" "$(fw_offsets)"
check_eq "three restores counted" 3 "$(cat $RESTORES)"

# Hibernation, pm_test=core: the image is made but not written (no swap
# needed) and the system resumes at once, through syscore.
if grep -qw disk /sys/power/state; then
	check_eq "core -70" OK "$(writefile $PKG/core_offset_mv -70)"
	words=$(fw_words)
	fwctl forget
	kmsg_mark disk
	check "hibernate with pm_test=core" pm_suspend core disk
	log=$(dmesg_since "TEST-MARK disk")
	check_eq "hibernation: core is -70 again in the model" -70 "$(fw_offset_mv 0)"
	check_eq "hibernation: gpu is -40 again in the model" -40 "$(fw_offset_mv 1)"
	check_eq "hibernation: every word as before" "$words" "$(fw_words)"
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
