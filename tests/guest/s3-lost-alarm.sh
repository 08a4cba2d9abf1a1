#!/bin/sh
# The harness, not the driver: a guest whose RTC wake alarm fired before
# it reached S3 is woken by scripts/qemu-run (scripts/s3-waker), instead
# of sleeping until the time limit. Here the alarm is armed and left to
# expire, then the guest suspends with nothing left to wake it.
. /test/lib.sh

alarm=/sys/class/rtc/rtc0/wakealarm
echo deep > /sys/power/mem_sleep
# An alarm reads empty once it fired, and also when it was never armed or
# cannot be read: only an alarm that was armed and then read empty fired.
if ! echo 0 > $alarm || ! echo +1 > $alarm; then
	fail "the alarm fired before the suspend: it could not be armed ($alarm)"
else
	armed=$(cat $alarm 2>/dev/null)
	check "the alarm is armed (wakealarm reads '${armed}')" test -n "$armed"
	sleep 3
	if left=$(cat $alarm); then
		check_eq "the alarm fired before the suspend" "" "$left"
	else
		fail "the alarm fired before the suspend: $alarm cannot be read"
	fi
fi
check "suspend to RAM (S3) returns: the harness woke the guest" sh -c 'echo mem > /sys/power/state'
finish
