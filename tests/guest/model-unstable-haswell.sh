#!/bin/sh
# qemu-run: --cpu Haswell-noTSX,-hypervisor --firmware unstable
# Haswell (family 6 model 0x3c) has a voltage rail per plane: on the
# unstable profile (qemu/MODEL.md) a core offset in the fault band faults
# the cores even with cache at 0 mV, where a Skylake part (model-unstable)
# applies the higher voltage of the two and does not.
. /test/lib.sh

check_eq "the CPU is family 6 model 60 (Haswell)" "6 60" \
	"$(awk -F': ' '/^cpu family/ { f = $2 } /^model\t/ { m = $2 } END { print f, m }' /proc/cpuinfo)"
rmmod intel_undervolt 2>/dev/null
out=$(msrtool xfer 0 "0x80000011$(offset_word -103 0x4cd2c | cut -c3-)")
check_eq "core -103 mV alone is taken" 0 \
	"$(mbox_code "$(printf '%s\n' "$out" | sed -n 's/^answer \(0x[0-9a-f]*\) .*/\1/p')")"
check_eq "cache stays at 0 mV" 0 "$(fw_offset_mv 2)"
taskset -c 0 timeout 2 sh -c 'while :; do :; done'
flips=$(fwctl flips)
check "under load, core -103 mV arms faults on its own (${flips:-?} ticks)" \
	test "${flips:-0}" -ge 5
check_no_splat
finish
