#!/bin/sh
# qemu-run: --firmware unstable --scratch-disk 32 --allow-resets --timeout 1200
# undervoltctl tune finds the threshold of the model's unstable profile on
# a Skylake (the default CPU of qemu-run), through the crashes it causes:
# tests/guest/lib-tune.sh.
. /test/lib.sh
TUNE_CPU=Skylake
. /test/lib-tune.sh
