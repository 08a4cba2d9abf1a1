#!/bin/sh
# Guest side of "make bench" (scripts/bench): CYCLES real S3 cycles (woken
# by the RTC; the firmware model forgets at the reset on the way back;
# syscore resume) and CYCLES with pm_test=platform and mem_sleep=s2idle
# (PM notifier; nothing loses power, so the model is made to forget with
# fwctl forget before each). From the kernel log timestamps of each cycle:
# the time from the start of resume (S3: "Low-level resume complete", the
# first line after the firmware jumped back into the kernel; s2idle: "PM:
# suspend debug: Waiting", the pm_test point) to package 00's restore
# line, and to "Restarting tasks" (user space thaws). Prints the medians
# in ms, with what restored the package.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
CYCLES=${1:-20}

echo 0 > /sys/module/suspend/parameters/pm_test_delay
for p in $UV/package_*; do
	writefile $p/core_offset_mv -80 >/dev/null
	writefile $p/gpu_offset_mv -40 >/dev/null
done

# series LEVEL MEM_SLEEP: one line per cycle, "RESTORED THAW WHY"
series() {
	local i=1
	echo "$1" > /sys/power/pm_test
	echo "$2" > /sys/power/mem_sleep
	while [ $i -le "$CYCLES" ]; do
		kmsg_mark "bench-$1-$i"
		if [ "$1" = none ]; then
			echo 0 > /sys/class/rtc/rtc0/wakealarm
			echo +2 > /sys/class/rtc/rtc0/wakealarm
		else
			fwctl forget
		fi
		echo mem > /sys/power/state || echo "# suspend failed" >&2
		# the restore after a CPU comes back runs from a work item
		sleep 0.2
		dmesg_since "TEST-MARK bench-$1-$i" | awk '
			function ts(line) { sub(/^\[ */, "", line); sub(/\].*/, "", line); return line + 0 }
			/suspend debug: Waiting|Low-level resume complete/ { t0 = ts($0) }
			/Restarting tasks/ && thaw == "" { thaw = ts($0) }
			/intel_undervolt: package [0-9]+: .*: restored/ {
				match($0, /package [0-9]+/); p = substr($0, RSTART + 8, RLENGTH - 8) + 0
				if (!(p in at)) {
					at[p] = ts($0)
					why[p] = $0; sub(/.*package [0-9]+: /, "", why[p]); sub(/: restored.*/, "", why[p])
				}
			}
			END {
				printf "%.3f %.3f %s\n", (0 in at) ? (at[0] - t0) * 1000 : -1,
					(thaw - t0) * 1000, (0 in why) ? why[0] : "none"
			}'
		i=$((i + 1))
	done > /tmp/series-$1
	echo none > /sys/power/pm_test
}

# median COLUMN FILE
median() {
	cut -d' ' -f"$1" "$2" | sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# most COLUMN FILE: the most frequent value
most() {
	cut -d' ' -f"$1" "$2" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'
}

series none deep
series platform s2idle

echo "# resume timing, median of $CYCLES cycles, ms from the start of resume;"
echo "# the PM notifier runs after user space thaws, syscore before"
printf '# %-42s %-28s %s\n' "path" "package 00 restored (by)" "user space thaws"
for s in "none S3 (real, RTC wake): syscore" "platform s2idle, pm_test=platform: notifier"; do
	f=/tmp/series-${s%% *}
	printf '# %-42s %-28s %s\n' "${s#* }" "$(median 1 $f) ($(most 3 $f))" \
		"$(median 2 $f)"
done
echo "# every cycle (restored, thaw in ms; what restored):"
sed 's/^/#   S3: /' /tmp/series-none
sed 's/^/#   s2idle: /' /tmp/series-platform
check_eq "every S3 cycle restored the package" 0 "$(grep -c -- '-1\.000\|none' /tmp/series-none)"
check_eq "every s2idle cycle restored the package" 0 "$(grep -c -- '-1\.000\|none' /tmp/series-platform)"
finish
