#!/bin/sh
# qemu-run: --firmware slow,polls=200
# A firmware that takes its time (the model's slow profile: busy for 200
# reads of MSR 0x150 per command): the driver waits for it and works.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check "the driver binds" test -d $PKG
check_eq "a write works" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "the model holds gpu -30" -30 "$(fw_offset_mv 1)"
check_eq "sysfs reads -30" -30 "$(cat $PKG/gpu_offset_mv)"
# Not a check, a figure for the README ("Reads and the CPU"): how long a
# write takes on this firmware (3 commands of 200 busy polls).
start=$(cut -d' ' -f1 /proc/uptime)
uvwrite $PKG/gpu_offset_mv 20 3 -60 -10 > /dev/null
end=$(cut -d' ' -f1 /proc/uptime)
echo "# 20 writes in $(echo "$start $end" | awk '{ printf "%d", ($2 - $1) * 1000 }') ms"
check_no_splat
finish
