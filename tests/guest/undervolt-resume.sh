#!/bin/sh
# qemu-run: --smp 2
# Offsets survive suspend because the driver writes them back, from its PM
# notifier after every resume (series v3 has no syscore restore, so user
# space may run before it); "echo mem" returns after it.
# - Real S3 (mem_sleep=deep, woken by the RTC alarm): QEMU resets the
#   machine on the way back and the firmware model forgets, as voltage
#   regulators do.
# - Suspend to idle and hibernation with pm_test: nothing loses power, so
#   the test makes the model forget first (fwctl forget, as if the package
#   had lost power).
# - A firmware that kept its words: nothing written.
# - A restore that cannot read a plane leaves it unknown (ENODATA).
# The restores are observed in the model's words and command log, never
# through the driver. Two CPUs: suspend takes the second offline and
# resume brings it back (with the driver's hotplug callbacks), as on every
# laptop.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00

check "the sysfs directory exists" test -d $PKG
check "deep (S3) is offered" grep -qw deep /sys/power/mem_sleep
check "the RTC has a wake alarm" test -w /sys/class/rtc/rtc0/wakealarm
check "pm_test is available" test -w /sys/power/pm_test
[ -w /sys/module/suspend/parameters/pm_test_delay ] &&
	echo 0 > /sys/module/suspend/parameters/pm_test_delay

check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "uncore -30" OK "$(writefile $PKG/uncore_offset_mv -30)"
# core and cache -80 (coupled), gpu -40, uncore -30, over the fused bits.
WORDS="$(offset_word -80 0x4cd2c) $(offset_word -40 0x48c16) $(offset_word -80 0x4cd28) $(offset_word -30 0x43312) 0x00040001"
check_eq "the model holds them" "$WORDS" "$(fw_words)"
# The write commands of a restore of those offsets, in plane order.
RESTORE="0x80000011$(offset_word -80 0x4cd2c | cut -c3-) 0x80000111$(offset_word -40 0x48c16 | cut -c3-) 0x80000211$(offset_word -80 0x4cd28 | cut -c3-) 0x80000311$(offset_word -30 0x43312 | cut -c3-)"

# expect_restored WHAT: the model holds every word again, written back
# by the restore's commands.
expect_restored() {
	check_eq "$1: the model holds core -80, gpu -40, cache -80, uncore -30 again" \
		"$WORDS" "$(fw_words)"
	check_eq "$1: written back by the restore" "$RESTORE" "$(echo $(fw_write_commands))"
}

# pm_suspend LEVEL STATE [MEM_SLEEP]: one pm_test cycle
pm_suspend() {
	echo "$1" > /sys/power/pm_test
	[ -n "${3:-}" ] && echo "$3" > /sys/power/mem_sleep
	echo "$2" > /sys/power/state
}

# Real S3.
resets=$(fwctl resets)
fwctl clear-log
kmsg_mark s3
check "suspend to RAM (S3) and wake up" s3
log=$(dmesg_since "TEST-MARK s3")
check_grep "S3: the guest went through firmware resume" "Waking up from system sleep state S3" "$log"
check_eq "S3: the model saw one system reset" $((resets + 1)) "$(fwctl resets)"
expect_restored "S3"
check_grep "S3: the core restore is logged" "package 00: core offset 0 mV -> -80 mV by resume" "$log"
check_grep "S3: the uncore restore is logged" "package 00: uncore offset 0 mV -> -30 mV by resume" "$log"
check_eq "S3: one restore line per plane it wrote (core gpu cache uncore)" 4 \
	"$(printf '%s\n' "$log" | grep -c 'intel_undervolt: package 00: .* by resume')"
check_eq "S3: sysfs reads the model's offsets" "-80 -40 -80 -30 0" \
	"$(cat $PKG/core_offset_mv $PKG/gpu_offset_mv $PKG/cache_offset_mv $PKG/uncore_offset_mv $PKG/analogio_offset_mv | tr '\n' ' ' | sed 's/ $//')"

# Suspend to idle, pm_test=platform: the PM notifier restores.
if grep -qw s2idle /sys/power/mem_sleep; then
	fwctl forget
	check_eq "s2idle: the model forgot (fwctl forget)" "$FUSED_WORDS" "$(fw_words)"
	fwctl clear-log
	check "suspend to idle with pm_test=platform" pm_suspend platform mem s2idle
	expect_restored "pm_test=platform s2idle"
else
	fail "s2idle is not offered in /sys/power/mem_sleep"
fi

# A firmware that kept its words: the restore reads them and writes
# nothing.
resets=$(fwctl resets)
fwctl clear-log
check "suspend with pm_test=core, the model keeps its words" pm_suspend core mem deep
check_eq "pm_test=core: no system reset" "$resets" "$(fwctl resets)"
check_eq "pm_test=core: the model holds every word" "$WORDS" "$(fw_words)"
check_eq "pm_test=core: every plane was read back" \
	"0x8000001000000000 0x8000011000000000 0x8000021000000000 0x8000031000000000 0x8000041000000000" \
	"$(echo $(fw_log))"
check_eq "pm_test=core: and no write command reached the model" "" "$(fw_write_commands)"

# A restore whose read of a plane fails: that plane is unknown, the
# others are known; the next read of the unknown one asks the firmware.
fwctl inject 5
check "suspend with pm_test=core, core's read answered code 5" pm_suspend core mem deep
check_eq "the injection was used" none "$(fwctl injection)"
fwctl clear-log
check_eq "gpu is known: it reads the model's -40" -40 "$(read_sysfs $PKG/gpu_offset_mv)"
check_eq "... and sends nothing" "" "$(fw_log)"
check_eq "core was unknown: a read asks the firmware and shows the model's -80" -80 \
	"$(read_sysfs $PKG/core_offset_mv)"
check_eq "... with one read of core" 0x8000001000000000 "$(fw_log)"

# Values changed after a restore are the ones restored next time.
check_eq "core -50" OK "$(writefile $PKG/core_offset_mv -50)"
resets=$(fwctl resets)
check "S3 again" s3
check_eq "S3 again: the model saw one more system reset" $((resets + 1)) "$(fwctl resets)"
check_eq "the latest core value is restored" \
	"$(offset_word -50 0x4cd2c) $(offset_word -40 0x48c16) $(offset_word -50 0x4cd28) $(offset_word -30 0x43312) 0x00040001" \
	"$(fw_words)"

# A restore write the firmware refuses (code 1, locked, on core's write
# only): the others are restored, core reads what the firmware holds, and
# the log says why core's undervolt is gone.
fwctl forget
fwctl inject-write 1 0
kmsg_mark refused
check "suspend with pm_test=core, core's restore write answered code 1" pm_suspend core mem deep
check_eq "the injection was used" none "$(fwctl injection)"
check_grep "the failed restore is logged with its errno" \
	"package 00: resume: core offset not restored to -50 mV: -(EACCES|13)" \
	"$(dmesg_since 'TEST-MARK refused')"
check_eq "core reads the firmware's 0, gpu its restored -40" "0 -40" \
	"$(read_sysfs $PKG/core_offset_mv) $(read_sysfs $PKG/gpu_offset_mv)"

# Hibernation, pm_test=core: the image is made but not written (no swap
# needed) and the system resumes at once; the PM notifier restores.
if grep -qw disk /sys/power/state; then
	check_eq "core -70" OK "$(writefile $PKG/core_offset_mv -70)"
	WORDS="$(offset_word -70 0x4cd2c) $(offset_word -40 0x48c16) $(offset_word -70 0x4cd28) $(offset_word -30 0x43312) 0x00040001"
	RESTORE="0x80000011$(offset_word -70 0x4cd2c | cut -c3-) 0x80000111$(offset_word -40 0x48c16 | cut -c3-) 0x80000211$(offset_word -70 0x4cd28 | cut -c3-) 0x80000311$(offset_word -30 0x43312 | cut -c3-)"
	fwctl forget
	fwctl clear-log
	check "hibernate with pm_test=core" pm_suspend core disk
	expect_restored "hibernation"
else
	fail "hibernation is not offered in /sys/power/state ($(cat /sys/power/state))"
fi
echo none > /sys/power/pm_test

check_no_splat
finish
