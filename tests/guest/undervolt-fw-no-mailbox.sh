#!/bin/sh
# qemu-run: --firmware no-mailbox
# Ivy Bridge and Celerons (the model's no-mailbox profile): rdmsr and
# wrmsr of 0x150 raise #GP. The driver does not bind, says why, and the
# fault costs nothing else: no oops, no warning.
. /test/lib.sh

check "the model is there" fwctl present
check_grep "MSR 0x150 faults (msrtool read)" "EIO" "$(msrtool read 0 0x150 2>&1)"
check "intel_undervolt did not bind" test ! -e /sys/devices/system/cpu/intel_undervolt
check "and is not loaded" test ! -e /sys/module/intel_undervolt
log=$(dmesg)
check_grep "the driver says the MSR faulted" \
	"intel_undervolt: package 00: command 0x01 on plane 0: MSR access failed \(-5\)" "$log"
check_grep "the driver says the firmware does not support offsets" \
	"intel_undervolt: package 00: the firmware does not support voltage offsets, not binding" "$log"
check_eq "the model logged no command" "" "$(fw_log)"
kselftest 4
check_no_splat
finish
