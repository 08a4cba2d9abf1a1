#!/bin/sh
# qemu-run: --timeout 20
# expect: FAIL: the guest did not finish within 20s
# Canary: the script never ends. scripts/qemu-run must stop the guest at
# its timeout and say so.
echo "ok - started"
while :; do sleep 5; done
