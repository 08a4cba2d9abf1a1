#!/bin/sh
# uvfuzz (tests/guest-bin/uvfuzz.c): random and adversarial writes to
# every writable file of the driver, each checked against the documented
# rules and the command log of the firmware model (qemu/MODEL.md).
#
# The bounds can only narrow at run time, and the fuzzer's writes to
# max_undervolt_mv and allow_overvolt narrow them within a few hundred
# writes; so the run is five rounds of 2000 writes, each on a driver
# loaded again with the widest bounds (-500..+500 mV).
# Replay a failed round (uvfuzz prints its seed) with
# scripts/qemu-run [--debug-kernel] tests/stress/fuzz.sh SEED [WRITES].
. /test/lib.sh

check "intel_undervolt is bound" test -d /sys/devices/system/cpu/intel_undervolt/package_00
# Whether core and cache share one voltage (a write to one sets both)
# comes from the CPU, not from the driver: from Skylake (family 6 models
# 78 and 94) through Kaby Lake (142, 158) to Comet Lake (165, 166) they
# do; Haswell and Broadwell keep them apart.
model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
case $model in
78|94|142|158|165|166) coupled=-c ;;
60|61|69|70|71) coupled= ;;
*) fail "CPU model $model: not one the fuzzer knows"; finish ;;
esac
rounds=5
[ -n "${1:-}" ] && rounds=1
round=1
while [ $round -le $rounds ]; do
	check "round $round: intel_undervolt loads again with the widest bounds" \
		sh -c 'rmmod intel_undervolt && modprobe intel_undervolt max_undervolt_mv=500 allow_overvolt=1'
	seed=${1:+-s $1}
	# shellcheck disable=SC2086
	uvfuzz -n "${2:-2000}" $seed $coupled || LIB_FAILED=1
	round=$((round + 1))
done
finish
