#!/bin/sh
# qemu-run: --firmware slow
# A firmware that takes its time (the model's slow profile: each command
# busy for 250 to 750 us of virtual time): the driver waits for it and
# works.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check "the driver binds" test -d $PKG
check_eq "a write works" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "the model holds gpu -30" "$(offset_word -30 0x48c16)" "$(fwctl word 1)"
check_eq "sysfs reads the model's -30" -30 "$(cat $PKG/gpu_offset_mv)"
# Not a check, a figure for docs/measurements.md ("The driver"): how long a
# write takes on this firmware (3 commands of about 500 us each).
start=$(cut -d' ' -f1 /proc/uptime)
uvwrite $PKG/gpu_offset_mv 20 3 -60 -10 > /dev/null
end=$(cut -d' ' -f1 /proc/uptime)
echo "# 20 writes in $(echo "$start $end" | awk '{ printf "%d", ($2 - $1) * 1000 }') ms"
check_eq "gpu back to 0" OK "$(writefile $PKG/gpu_offset_mv 0)"
kselftest 0 -s 5
check_eq "the model holds the fused words" "$FUSED_WORDS" "$(fw_words)"
check_no_splat
finish
