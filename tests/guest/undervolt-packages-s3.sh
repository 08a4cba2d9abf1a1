#!/bin/sh
# qemu-run: --smp 2,sockets=2,cores=1,threads=1
# After a real S3, where both sockets' mailboxes forget, each package gets
# its own offsets back. One CPU per socket: a 4-vCPU guest on a 2-core
# host once did not come back from S3 in CI (README, "Guests on a loaded
# host"), and nothing here needs a second core per socket.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P0=$UV/package_00
P1=$UV/package_01

check_eq "package 00 core -50" OK "$(writefile $P0/core_offset_mv -50)"
check_eq "package 01 core -90" OK "$(writefile $P1/core_offset_mv -90)"
check_eq "package 01 gpu -20" OK "$(writefile $P1/gpu_offset_mv -20)"
w0=$(fw_words 0)
w1=$(fw_words 1)
check "the two packages' words differ" test "$w0" != "$w1"

resets0=$(fwctl -p 0 resets)
resets1=$(fwctl -p 1 resets)
echo deep > /sys/power/mem_sleep
echo 0 > /sys/class/rtc/rtc0/wakealarm
echo +2 > /sys/class/rtc/rtc0/wakealarm
check "suspend to RAM (S3) and wake up" sh -c 'echo mem > /sys/power/state'
check_eq "package 0's mailbox saw one reset" $((resets0 + 1)) "$(fwctl -p 0 resets)"
check_eq "package 1's mailbox saw one reset" $((resets1 + 1)) "$(fwctl -p 1 resets)"
check_eq "package 0 got its own words back" "$w0" "$(fw_words 0)"
check_eq "package 1 got its own words back" "$w1" "$(fw_words 1)"
check_eq "sysfs: package 00 core" -50 "$(cat $P0/core_offset_mv)"
check_eq "sysfs: package 01 core" -90 "$(cat $P1/core_offset_mv)"
check_no_splat
finish
