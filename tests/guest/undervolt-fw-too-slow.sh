#!/bin/sh
# qemu-run: --firmware slow,busy-us=100000
# A firmware slower than the driver's bound (each command busy for 50 to
# 150 ms, where the driver polls for about 1 ms):
# the capability probe times out, the driver does not bind, says why, and
# loading it costs no more than its bound per command.
. /test/lib.sh

check "the model is there" fwctl present
check "intel_undervolt did not bind" test ! -e /sys/devices/system/cpu/intel_undervolt
check_grep "the driver says the firmware did not answer the probe in time" \
	"intel_undervolt: package 00: command 0x01 on plane 0: the firmware stayed busy \(-110\)" "$(dmesg)"
# A second load: it must fail, fail for that reason, and give up quickly.
kmsg_mark reload
start=$(date +%s)
modprobe intel_undervolt 2>/tmp/modprobe.err
status=$?
took=$(( $(date +%s) - start ))
log=$(dmesg_since 'TEST-MARK reload')
check "a second load attempt fails (modprobe status $status)" test $status -ne 0
check_grep "modprobe says the driver found no device (ENODEV)" "No such device" \
	"$(cat /tmp/modprobe.err)"
check "the driver is not loaded" test ! -e /sys/module/intel_undervolt
check_grep "the reason: the capability command timed out" \
	"intel_undervolt: package 00: command 0x01 on plane 0: the firmware stayed busy \(-110\)" "$log"
check_grep "so the driver does not bind" \
	"intel_undervolt: package 00: the firmware does not support voltage offsets, not binding" "$log"
check "it gives up within 5 s (took ${took} s)" test $took -le 5
kselftest 4
check_no_splat
finish
