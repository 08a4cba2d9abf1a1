#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=154 --firmware unstable --scratch-disk 32 --allow-resets --timeout 1200
# undervoltctl tune on an Alder Lake (family 6 model 0x9a, Undervolt
# Protection off), whose core and cache the driver writes together as on
# Skylake: tune must search them as one plane, not core and then cache
# alone (2008e12). The same search and checks as undervoltctl-tune.sh:
# tests/guest/lib-tune.sh.
. /test/lib.sh
TUNE_CPU="Alder Lake"
. /test/lib-tune.sh
