#!/bin/sh
# The harness, not the driver: a guest whose RTC wake alarm fired before
# it reached S3 is woken by scripts/qemu-run (scripts/s3-waker), instead
# of sleeping until the time limit. Here the alarm is armed and left to
# expire, then the guest suspends with nothing left to wake it.
. /test/lib.sh

echo deep > /sys/power/mem_sleep
echo 0 > /sys/class/rtc/rtc0/wakealarm
echo +1 > /sys/class/rtc/rtc0/wakealarm
sleep 3
check_eq "the alarm fired before the suspend" "" "$(cat /sys/class/rtc/rtc0/wakealarm)"
check "suspend to RAM (S3) returns: the harness woke the guest" sh -c 'echo mem > /sys/power/state'
finish
