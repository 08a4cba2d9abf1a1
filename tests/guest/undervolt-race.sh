#!/bin/sh
# A raw write to MSR 0x150 that passed the msr driver's check, held inside
# copy_from_user() (userfaultfd), while intel_undervolt loads: the claim
# of the mailbox waits for the write to end, so the raw command lands
# before the driver's first command, never amid them (patch "x86/msr: Let
# a driver own the OC mailbox"). Observed in the firmware model's command
# log and words; the driver is only asked to load.
# dkms: skip a stock kernel's msr driver has no owner for the mailbox (patch 4); the DKMS build on it is tests/dkms/stock.sh
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
RAW=0x80000311fd843312	# uncore (domain 3) -20 mV, fused bits 20:0

check "intel_undervolt unloads" rmmod intel_undervolt
fwctl clear-log
mkfifo /tmp/release
uffdwrite 0 0x150 $RAW /tmp/release > /tmp/uffd.out 2>&1 &
writer=$!
wait_for "the raw write waits inside copy_from_user()" 10 \
	grep -qx blocked /tmp/uffd.out
modprobe intel_undervolt > /tmp/modprobe.out 2>&1 &
loader=$!
# The loader sleeps in the claim (uninterruptible but killable: "D").
wait_for "modprobe waits for the raw write to end" 20 \
	grep -q '^State:[[:space:]]*D' "/proc/$loader/status"
check_eq "no command of the driver reached the mailbox meanwhile" "" "$(fw_log)"
check "the driver is not bound meanwhile" test ! -e $UV
echo go > /tmp/release
wait $writer
check_eq "the raw write went through" ok "$(tail -n 1 /tmp/uffd.out)"
wait $loader
check_eq "then modprobe succeeds" 0 "$?"
check "and the driver is bound" test -d $UV/package_00
check_eq "the raw write is the first word in the mailbox, before the driver's" \
	"$RAW" "$(fw_log | head -n 1)"
check_eq "the driver found its uncore -20 mV as the initial offset" -20 \
	"$(cat $UV/package_00/initial_uncore_offset_mv)"
check_grep "raw writes fail with EBUSY now" EBUSY "$(msrtool write 0 0x150 $RAW 2>&1)"
check_no_splat
finish
