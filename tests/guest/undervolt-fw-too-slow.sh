#!/bin/sh
# qemu-run: --firmware slow,busy-us=100000
# A firmware slower than the driver's bound (each command busy for 50 to
# 150 ms, where the driver polls for about 1 ms):
# the capability probe times out, the driver does not bind, says why, and
# loading it costs no more than its bound per command.
. /test/lib.sh

check "the model is there" fwctl present
check "intel_undervolt did not bind" test ! -e /sys/devices/system/cpu/intel_undervolt
check_grep "the driver says the probe timed out (-ETIMEDOUT)" \
	"intel_undervolt: package 00: the firmware does not support voltage offsets \(-110" "$(dmesg)"
start=$(date +%s)
modprobe intel_undervolt 2>/dev/null
took=$(( $(date +%s) - start ))
check "a second load attempt gives up within 5 s (took ${took} s)" test $took -le 5
check_no_splat
finish
