#!/bin/sh
# expect: FAIL: the guest kernel logged a warning, bug or oops: .*WARNING: CPU
# Canary: a WARN_ON fires (lkdtm WARNING) and the script then passes.
# A splat fails the run even when every check of the script passed.
modprobe lkdtm || exit 3
echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT
echo "ok - the script itself passed"
