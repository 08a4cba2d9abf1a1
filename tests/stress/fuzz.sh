#!/bin/sh
# uvfuzz (tests/guest-bin/uvfuzz.c): random and adversarial writes to
# every writable file of the driver, each checked against the documented
# rules and the command log of the firmware model (qemu/MODEL.md).
# Replay a failure with
# scripts/qemu-run [--debug-kernel] tests/stress/fuzz.sh SEED [WRITES].
. /test/lib.sh

check "intel_undervolt is bound" test -d /sys/devices/system/cpu/intel_undervolt/package_00
coupled=
dmesg | grep -q 'core and cache coupled' && coupled=-c
seed=${1:+-s $1}
# shellcheck disable=SC2086
uvfuzz -n "${2:-10000}" $seed $coupled || LIB_FAILED=1
finish
