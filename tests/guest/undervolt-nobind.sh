#!/bin/sh
# qemu-run: --firmware none
# A plain QEMU CPU, without the OC mailbox model: the model (Skylake) is
# listed and -hypervisor hides the hypervisor, but TCG reads MSR 0x150 as
# 0, so the capability probe reports no voltage offset support. The driver
# does not bind and says why, once per load attempt.
. /test/lib.sh

# The driver's model table (its module aliases) matches this CPU, so the
# init's coldplug loaded it; it is the capability probe that says no.
modalias=$(cat /sys/devices/system/cpu/modalias)
matched=""
for alias in $(modinfo -F alias intel_undervolt); do
	# shellcheck disable=SC2254
	case $modalias in $alias) matched=$alias ;; esac
done
check "one of the driver's aliases matches the CPU's modalias (${matched:-none})" \
	test -n "$matched"
check "intel_undervolt is not loaded" test ! -d /sys/module/intel_undervolt
check "no sysfs directory" test ! -e /sys/devices/system/cpu/intel_undervolt
check_grep "the driver says why it does not bind" \
	"intel_undervolt: package 00: the firmware does not support voltage offsets, not binding" "$(dmesg)"
kmsg_mark retry
modprobe intel_undervolt 2>/dev/null
check "a second modprobe fails too" test $? -ne 0
# busybox modprobe tries finit_module(), then init_module(): two attempts.
n=$(dmesg_since retry | grep -c 'intel_undervolt: package 00: the firmware does not support')
check "one line per load attempt ($n for one modprobe)" test "$n" -ge 1 -a "$n" -le 2
check "the MSR device is there" test -e /dev/cpu/0/msr
check "the CPU has no OC mailbox model" sh -c '! fwctl present'
check_eq "nothing tainted the kernel out of spec" 0 $(( $(taint) & 4 ))

finish
