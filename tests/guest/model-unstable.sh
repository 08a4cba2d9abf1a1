#!/bin/sh
# qemu-run: --firmware unstable --smp 2,sockets=2 --timeout 400
# The unstable profile of the firmware model (qemu/MODEL.md) as hardware
# behaves, with raw mailbox writes and the driver unloaded:
# - core and cache share one rail from Skylake on and the part applies the
#   higher voltage of the two: a core-only offset changes nothing;
# - an undervolted part computes integer multiplies wrong as well as FMA
#   (Plundervolt faulted imul), and each socket has its own faults;
# - the tool's verifier (undervoltctl stress) catches both kinds.
# The bands are the defaults: -101 to -105 mV compute wrong results.
. /test/lib.sh

FUSED_CORE=0x4cd2c
FUSED_CACHE=0x4cd28

# raw_offset CPU DOMAIN LOW MV: the offset of one domain of CPU's package,
# written as raw tools write it, polled to completion; prints the code.
raw_offset() {
	local out
	out=$(msrtool xfer "$1" "$(printf '0x8000%02x11%08x' "$2" \
		$(( $(offset_word "$4" "$3") )))") || { echo failed; return; }
	mbox_code "$(printf '%s\n' "$out" | sed -n 's/^answer \(0x[0-9a-f]*\) .*/\1/p')"
}

# busy CPU SECONDS: a vCPU that never halts, so its socket is under load.
busy() {
	taskset -c "$1" timeout "$2" sh -c 'while :; do :; done'
}

check "intel_undervolt unloads" rmmod intel_undervolt
# Integer faults hit whatever user code runs next on the socket: this
# script stays on package 1 (CPU 1), and only the load runs on package 0.
check "the script moves to CPU 1" taskset -p -c 1 $$
check_eq "package 0 starts with no fault armed" 0 "$(fwctl -p 0 flips)"

# Coupled planes: -103 mV on core alone leaves the cores at cache's 0 mV.
check_eq "core -103 mV alone is taken" 0 "$(raw_offset 0 0 $FUSED_CORE -103)"
busy 0 2
check_eq "under load with core -103 and cache 0 mV nothing is armed" 0 \
	"$(fwctl -p 0 flips)"
check_eq "cache -103 mV is taken too" 0 "$(raw_offset 0 2 $FUSED_CACHE -103)"
busy 0 2
flips=$(fwctl -p 0 flips)
check "with both at -103 mV, faults are armed under load (${flips:-?} ticks)" \
	test "${flips:-0}" -ge 5

# Per socket: package 0 in the fault band under load, the tool on package
# 1 (0 mV) gets none of its faults. The load on package 0 is a loop that
# runs no FMA; an IMUL fault may end it, which ends nothing else.
fwctl -p 0 faults both
busy 0 5 2>/dev/null &
out=$(taskset -c 1 undervoltctl stress --duration 3 --engine builtin --all-cores 2>&1)
rc=$?
wait
check_eq "the load on package 1 passes while package 0 is in the band" 0 "$rc"
check_grep "... and says so" "^no errors$" "$out"
check_eq "package 1 saw no corrupted FMA" 0 "$(fwctl -p 1 fma-faults)"
check_eq "package 1 saw no corrupted IMUL" 0 "$(fwctl -p 1 mul-faults)"

# caught KIND OTHER: with only KIND faults armed on package 0 (in the
# band), the tool's verifier fails the load there, naming the wrong
# result; the model corrupted KIND results and no OTHER result.
caught() {
	local other_before out rc n
	fwctl -p 0 faults "$1"
	other_before=$(fwctl -p 0 "$2-faults")
	out=$(taskset -c 0 undervoltctl stress --duration 3 --engine builtin --all-cores 2>&1)
	rc=$?
	check_eq "with $1 faults, stress on package 0 fails" 1 "$rc"
	check_grep "... naming the wrong result" "^FAILED: .*(expected|not an exact integer)" "$out"
	n=$(fwctl -p 0 "$1-faults")
	check "the model corrupted $1 results (${n:-?})" test "${n:-0}" -ge 1
	check_eq "... and no $2 result" "$other_before" "$(fwctl -p 0 "$2-faults")"
}

# Integer multiplies alone: the multiply chains catch them; FMA alone:
# the checksums of the matrix products do.
caught mul fma
caught fma mul

check_eq "back to 0 mV on core" 0 "$(raw_offset 0 0 $FUSED_CORE 0)"
check_eq "back to 0 mV on cache" 0 "$(raw_offset 0 2 $FUSED_CACHE 0)"
check_eq "no machine reset on the way" 1 "$(fwctl -p 0 resets)"
check_no_splat
finish
