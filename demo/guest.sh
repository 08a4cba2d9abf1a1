#!/bin/sh
# What `make demo` shows inside the guest, in the order a user meets it:
# the old way (raw writes to MSR 0x150 through the msr driver, with no
# driver bound), then intel_undervolt loaded on the OC mailbox model of our
# QEMU (qemu/MODEL.md), whose words fwctl reads: it owns the mailbox, takes
# offsets through sysfs and undervoltctl, and logs only changes.
say() {
	printf '\n### %s\n' "$*"
}

run() {
	printf '$ %s\n' "$*"
	"$@"
}

dir=/sys/devices/system/cpu/intel_undervolt
# Core -50 mV as a raw tool builds it (offset in bits 31:21, command 0x11
# "write", domain 0), and the model's boot word for core, to put back.
raw_core_minus_50=0x80000011f9a4cd2c
raw_core_boot=0x800000110004cd2c

say "The guest kernel"
run uname -r
grep -m1 'model name' /proc/cpuinfo

say "The old way: raw MSR 0x150 writes, no driver bound"
# The guest loads intel_undervolt by the CPU's modalias, as udev would:
# unload it, so that the raw path is what a user without the driver has.
if [ -d "$dir" ]; then
	run rmmod intel_undervolt
fi
run msrtool write 0 0x150 $raw_core_minus_50
echo "the firmware's core word now (offset in bits 31:21):"
run fwctl word 0
dmesg | grep -c 'unrecognized MSR' | sed 's/^/"unrecognized MSR" warnings: /'
echo "taint: $(cat /proc/sys/kernel/tainted) (a raw MSR write still taints the kernel)"
run msrtool write 0 0x150 $raw_core_boot
run fwctl word 0

say "intel_undervolt loaded: it owns the mailbox, raw writes are refused"
run modprobe intel_undervolt
if [ ! -d "$dir" ]; then
	say "intel_undervolt did not bind in this kernel"
	exit 0
fi
run msrtool write 0 0x150 $raw_core_minus_50
dmesg | grep 'refused (-EBUSY)' | tail -n 1
run fwctl word 0

say "intel_undervolt on the OC mailbox model of QEMU"
run ls "$dir" "$dir/package_00"
run undervoltctl status
run fwctl words
run undervoltctl set core=-50 cache=-50 gpu=-30
run cat "$dir/package_00/core_offset_mv" "$dir/package_00/cache_offset_mv"
say "What the firmware holds now (core gpu cache uncore analogio; offset in bits 31:21)"
run fwctl words
say "The same values again: nothing changes, so the driver logs nothing"
run undervoltctl set core=-50 cache=-50 gpu=-30
run undervoltctl status
run undervoltctl monitor --interval 1 --count 3
run undervoltctl reset
run fwctl words
run undervoltctl status --json

say "What the driver logged: only changes"
dmesg | grep 'intel_undervolt' | tail -n 12
# A line "X mV -> X mV" would be a write that changed nothing.
same=$(dmesg | grep -c ' \(-\{0,1\}[0-9]\{1,\}\) mV -> \1 mV')
echo "lines that log no change (X mV -> X mV): $same"
