#!/bin/sh
# expect: FAIL: the guest kernel logged a warning, bug or oops: .*WARNING: lock held when returning to user space
# Canary, debug kernel: lkdtm SPINLOCKUP takes a spinlock and returns to
# user space holding it, which lockdep reports. The script then passes; the
# lockdep report alone must fail the run.
modprobe lkdtm || exit 3
echo SPINLOCKUP > /sys/kernel/debug/provoke-crash/DIRECT
echo "ok - the script itself passed"
