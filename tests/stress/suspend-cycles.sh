#!/bin/sh
# qemu-run: --smp 2
# 20 real S3 cycles (mem_sleep=deep, woken by the RTC alarm): after each,
# the firmware model reports that it lost its state (its reset counter went
# up by one) and holds every offset again, written back by the driver's PM
# notifier by the time "echo mem" returns (series v3). Then 20
# suspend-to-idle cycles with pm_test=platform: nothing loses power there,
# so the model is made to forget first (fwctl forget). Two CPUs, so that
# every cycle also takes the second one offline and back.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
CYCLES=${CYCLES:-20}

check "pm_test is available" test -w /sys/power/pm_test
check "the RTC has a wake alarm" test -w /sys/class/rtc/rtc0/wakealarm
echo 0 > /sys/module/suspend/parameters/pm_test_delay
check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "uncore -25" OK "$(writefile $PKG/uncore_offset_mv -25)"
check_eq "analogio -10" OK "$(writefile $PKG/analogio_offset_mv -10)"
want="-80 -40 -80 -25 -10"
words="$(offset_word -80 0x4cd2c) $(offset_word -40 0x48c16) $(offset_word -80 0x4cd28) $(offset_word -25 0x43312) $(offset_word -10 0x40001)"
check_eq "the model holds them" "$words" "$(fw_words)"
# The write commands of one restore, in plane order.
restore=""
d=0
for w in $words; do
	restore="$restore 0x80000${d}11${w#0x}"
	d=$((d + 1))
done
restore=${restore# }

# cycles LEVEL MEM_SLEEP: CYCLES suspend cycles, checked one by one; LEVEL
# none is a real S3 woken by the RTC, after which the model must have seen
# exactly one reset; with a pm_test level the model is made to forget.
cycles() {
	local i=1 bad=0 resets got
	echo "$1" > /sys/power/pm_test
	echo "$2" > /sys/power/mem_sleep
	while [ $i -le "$CYCLES" ]; do
		resets=$(fwctl resets)
		if [ "$1" = none ]; then
			echo 0 > /sys/class/rtc/rtc0/wakealarm
			echo +2 > /sys/class/rtc/rtc0/wakealarm
		else
			fwctl forget
		fi
		fwctl clear-log
		if ! echo mem > /sys/power/state; then
			fail "$1/$2 cycle $i: suspend failed"
			bad=1
			break
		fi
		if [ "$1" = none ] && [ "$(fwctl resets)" != $((resets + 1)) ]; then
			fail "$1/$2 cycle $i: the model saw $(( $(fwctl resets) - resets )) resets, want 1"
			bad=1
		fi
		got="$(fw_offset_mv 0) $(fw_offset_mv 1) $(fw_offset_mv 2) $(fw_offset_mv 3) $(fw_offset_mv 4)"
		if [ "$got" != "$want" ] || [ "$(fw_words)" != "$words" ]; then
			fail "$1/$2 cycle $i: model offsets '$got', words '$(fw_words)', want '$want', '$words'"
			bad=1
		fi
		got=$(echo $(fw_write_commands))
		if [ "$got" != "$restore" ]; then
			fail "$1/$2 cycle $i: the model was sent '$got', want the restore '$restore'"
			bad=1
		fi
		i=$((i + 1))
	done
	[ $bad -eq 0 ] && pass "$1/$2: $CYCLES cycles, every offset restored each time"
	check_eq "$1/$2: sysfs reads every offset" "$want" \
		"$(cat $PKG/core_offset_mv $PKG/gpu_offset_mv $PKG/cache_offset_mv $PKG/uncore_offset_mv $PKG/analogio_offset_mv | tr '\n' ' ' | sed 's/ $//')"
}

kmsg_mark s3
cycles none deep
check_eq "S3: one core restore line per cycle" "$CYCLES" \
	"$(dmesg_since 'TEST-MARK s3' | grep -c 'intel_undervolt: package 00: core offset 0 mV -> -80 mV by resume')"
check_eq "S3: the guest woke from S3 each time" "$CYCLES" \
	"$(dmesg_since 'TEST-MARK s3' | grep -c 'Waking up from system sleep state S3')"
kmsg_mark s2idle
cycles platform s2idle
check_eq "s2idle: one core restore line per cycle" "$CYCLES" \
	"$(dmesg_since 'TEST-MARK s2idle' | grep -c 'intel_undervolt: package 00: core offset 0 mV -> -80 mV by resume')"
check_eq "after both series the model holds every offset" "$words" "$(fw_words)"
echo none > /sys/power/pm_test
finish
