#!/bin/sh
# expect: FAIL: kernel panic
# Canary: the kernel panics (lkdtm PANIC) while the script still runs.
# scripts/qemu-run must fail the run and say it was a panic.
modprobe lkdtm || exit 3
echo PANIC > /sys/kernel/debug/provoke-crash/DIRECT
sleep 30
echo "the panic was not caught"
