#!/bin/sh
# qemu-run: --append "msr.allow_writes=off module_blacklist=intel_undervolt"
# msr.allow_writes=off refuses writes to the OC mailbox like any other MSR
# (with intel_undervolt bound they would fail with EBUSY first: it does
# not load here).
. /test/lib.sh

out=$(msrtool write 0 0x150 0x8000001000000000 2>&1)
check_grep "with msr.allow_writes=off a write to MSR 0x150 fails with EPERM" \
	"EPERM" "$out"
check_eq "the refused write does not taint" 0 $(( $(taint) & 4 ))
check "MSR 0x150 can still be read" msrtool read 0 0x150

finish
