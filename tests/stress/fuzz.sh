#!/bin/sh
# uvfuzz (tests/guest-bin/uvfuzz.c): random and adversarial writes to
# every offset file of the driver, each checked against the documented
# rules (series v3) and the command log of the firmware model
# (qemu/MODEL.md), with the model's SGX and OC lock switched on and off.
#
# The bounds are module options, read-only at run time: uvfuzz loads the
# driver again itself every 500 writes with random ones (and now and then
# first with an option the driver must refuse), checking each unload and
# load against the model.
# Replay a failed run (uvfuzz prints its seed) with
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
seed=${1:+-s $1}
# shellcheck disable=SC2086
uvfuzz -n "${2:-10000}" -r 500 $seed $coupled || LIB_FAILED=1
finish
