#!/bin/sh
# What `make demo` shows inside the guest: the patched kernel, the OC mailbox
# through the msr driver, and intel_undervolt on the OC mailbox model of our
# QEMU (qemu/MODEL.md), whose words fwctl reads.
say() {
	printf '\n### %s\n' "$*"
}

run() {
	printf '$ %s\n' "$*"
	"$@"
}

say "The guest kernel"
run uname -r
grep -m1 'model name' /proc/cpuinfo

say "Raw MSR 0x150 writes: quiet now, but still taint (the old way)"
run msrtool write 0 0x150 0x8000001000000000
run msrtool read 0 0x150
dmesg | grep -c 'unrecognized MSR' | sed 's/^/"unrecognized MSR" warnings: /'
echo "taint: $(cat /proc/sys/kernel/tainted)"

dir=/sys/devices/system/cpu/intel_undervolt
if [ ! -d "$dir" ]; then
	say "intel_undervolt is not bound in this kernel"
	exit 0
fi

say "intel_undervolt on the OC mailbox model of QEMU"
run ls "$dir" "$dir/package_00"
run undervoltctl status
run fwctl words
run undervoltctl set core=-50 cache=-50 gpu=-30
run cat "$dir/package_00/core_offset_mv" "$dir/package_00/cache_offset_mv"
say "What the firmware holds now (core gpu cache uncore analogio; offset in bits 31:21)"
run fwctl words
run undervoltctl status
run undervoltctl monitor --interval 1 --count 3
run undervoltctl reset
run fwctl words
run undervoltctl status --json
say "What the driver logged"
dmesg | grep intel_undervolt | tail -n 8
