#!/bin/sh
# qemu-run: --firmware unstable --timeout 300
# undervoltctl mce-guard, the machine-check guard that left the kernel in
# series v3: it sleeps on the mce:mce_record trace event and, for a
# corrected error of the core's own banks on a package with an offset,
# puts that package back to 0 mV and says why; a memory-controller error
# is none of its business. The unstable profile of the model
# (qemu/MODEL.md) reports corrected internal-parity errors (bank 1, MCA
# code 0x0005) while the offset is below -105 mV and a vCPU runs; a DRAM
# error is injected with mce-inject. Checked in the model's words.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
INJ=/sys/kernel/debug/mce-inject

# The model has no CMCI: the kernel polls the banks, every second here.
echo 1 > /sys/devices/system/machinecheck/machinecheck0/check_interval
mkdir -p /sys/kernel/tracing
mount -t tracefs nodev /sys/kernel/tracing
# Its standard error is what the unit sends to the journal.
undervoltctl mce-guard > /tmp/guard.out 2>&1 &
guard=$!
wait_for "mce-guard sets up its tracefs instance" 10 \
	test -e /sys/kernel/tracing/instances/undervoltctl-mce/trace_pipe

# busy_until CMD...: keep the vCPU running (the model fails only under
# load) until CMD succeeds, at most 30 s.
busy_until() {
	local end=$(( $(date +%s) + 30 ))
	while ! "$@" && [ "$(date +%s)" -lt $end ]; do
		local t=$(( $(date +%s) + 1 ))
		while [ "$(date +%s)" -lt $t ]; do :; done
	done
	"$@"
}

core_is_zero() {
	[ "$(fw_offset_mv 0)" = 0 ]
}

# A memory-controller error (MCA code 0x009f, bank 7, corrected) while an
# offset is in force: not the CPU's core, nothing to do.
check_eq "core -80 mV" 0 "$(undervoltctl set core=-80 >/dev/null 2>&1; echo $?)"
check_eq "the firmware holds core -80 mV" -80 "$(fw_offset_mv 0)"
modprobe mce-inject
echo sw > $INJ/flags
printf '0x%x\n' $(( (1 << 63) | (1 << 60) | 0x9f )) > $INJ/status
echo 7 > $INJ/bank
sleep 2
check_eq "a corrected DRAM error leaves the offsets alone" -80 "$(fw_offset_mv 0)"
check_nogrep "... and the guard undoes nothing" "(-> 0 mV|its offsets are 0 mV)" "$(cat /tmp/guard.out)"

# The unstable CPU's own corrected errors, in the machine-check band.
check_eq "core -108 mV" 0 "$(undervoltctl set core=-108 >/dev/null 2>&1; echo $?)"
busy_until core_is_zero
check "the model reported machine checks ($(fwctl mces))" test "$(fwctl mces)" -ge 1
check_eq "the guard put core back to 0 mV" 0 "$(fw_offset_mv 0)"
check_eq "... and cache (coupled)" 0 "$(fw_offset_mv 2)"
check_grep "... and said why" "internal parity.*package 0 had core -108 mV.*its offsets are 0 mV now" "$(cat /tmp/guard.out)"
check "the guard is still running" kill -0 $guard
kill $guard
check_no_splat
finish
