#!/bin/sh
# qemu-run: --smp 2 --stall-grace 10 --append "rcupdate.rcu_cpu_stall_timeout=5"
# expect: FAIL: the guest stalled and made no progress for
# Canary: CPU 1 spins in the kernel with preemption off (lkdtm SOFTLOCKUP)
# and never comes back. The other CPU reports an RCU stall; scripts/qemu-run
# must name it and stop the guest once it made no progress for the grace
# period (10 s here, to spare a minute of a spinning guest; 60 s by
# default), long before its timeout.
modprobe lkdtm || exit 3
taskset -c 1 sh -c 'echo SOFTLOCKUP > /sys/kernel/debug/provoke-crash/DIRECT' &
sleep 600
echo "the stall was not caught"
