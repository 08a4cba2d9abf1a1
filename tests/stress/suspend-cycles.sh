#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# 20 suspend/resume cycles with pm_test=core (S3 path: syscore resume)
# and 20 with pm_test=platform and mem_sleep=s2idle (PM notifier). The
# emulated firmware forgets every offset at each suspend; after each
# resume the restore counter went up by one and the firmware holds every
# offset again.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
RESTORES=/sys/kernel/debug/intel_undervolt/restores
CYCLES=${CYCLES:-20}

check "pm_test is available" test -w /sys/power/pm_test
echo 0 > /sys/module/suspend/parameters/pm_test_delay
check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "uncore -30" OK "$(writefile $PKG/uncore_offset_mv -25)"
check_eq "analogio -10" OK "$(writefile $PKG/analogio_offset_mv -10)"
want="-80 -40 -80 -25 -10"
words=$(emu_words)

# cycles LEVEL MEM_SLEEP: CYCLES suspend cycles, checked one by one
cycles() {
	local i=1 bad=0 restores got
	echo "$1" > /sys/power/pm_test
	echo "$2" > /sys/power/mem_sleep
	while [ $i -le "$CYCLES" ]; do
		restores=$(cat $RESTORES)
		if ! echo mem > /sys/power/state; then
			fail "$1/$2 cycle $i: suspend failed"
			bad=1
			break
		fi
		got="$(emu_offset_mv 0) $(emu_offset_mv 1) $(emu_offset_mv 2) $(emu_offset_mv 3) $(emu_offset_mv 4)"
		if [ "$got" != "$want" ] || [ "$(emu_words)" != "$words" ]; then
			fail "$1/$2 cycle $i: firmware offsets '$got', words '$(emu_words)', want '$want', '$words'"
			bad=1
		fi
		if [ "$(cat $RESTORES)" != $((restores + 1)) ]; then
			fail "$1/$2 cycle $i: restore counter $(cat $RESTORES), want $((restores + 1))"
			bad=1
		fi
		i=$((i + 1))
	done
	[ $bad -eq 0 ] && pass "$1/$2: $CYCLES cycles, every offset restored each time"
	check_eq "$1/$2: sysfs reads every offset" "$want" \
		"$(cat $PKG/core_offset_mv $PKG/gpu_offset_mv $PKG/cache_offset_mv $PKG/uncore_offset_mv $PKG/analogio_offset_mv | tr '\n' ' ' | sed 's/ $//')"
}

kmsg_mark core
cycles core deep
check_eq "pm_test=core: one syscore restore line per cycle" "$CYCLES" \
	"$(dmesg_since 'TEST-MARK core' | grep -c 'intel_undervolt: package 00: resume: restored')"
kmsg_mark s2idle
cycles platform s2idle
check_eq "s2idle: one restore line per cycle" "$CYCLES" \
	"$(dmesg_since 'TEST-MARK s2idle' | grep -c 'intel_undervolt: package 00: resume: restored')"
check_eq "restore counter after both series" $((2 * CYCLES)) "$(cat $RESTORES)"
echo none > /sys/power/pm_test
finish
