#!/bin/sh
# expect: FAIL: the guest kernel logged a warning, bug or oops: .*(WARNING: lock held when returning to user space|BUG: scheduling while atomic)
# Canary, debug kernel: lkdtm SPINLOCKUP takes a spinlock and returns to
# user space holding it, which lockdep reports. The script then passes; the
# lockdep report alone must fail the run. qemu-run names the first report:
# when the task is scheduled out before it returns to user space, still
# holding the lock (a loaded host, 2026-12-07), that is the scheduler's
# "scheduling while atomic", with lockdep's list of the held lock.
modprobe lkdtm || exit 3
echo SPINLOCKUP > /sys/kernel/debug/provoke-crash/DIRECT
echo "ok - the script itself passed"
