#!/bin/bash
# undervoltctl host tests: make -C tools/undervoltctl check builds the tool
# with ASan/UBSan and runs tools/undervoltctl/tests/run.sh against a fake
# sysfs tree, runs the same tests under valgrind, then checks install,
# static build, man pages and completion. Its TAP lines pass through.
# No guest: tests/run-all runs it beside the guest suites.
# run-all: beside
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

# A private build directory: another checkout user may run this at once.
work=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/log
make -C "$LU_ROOT/tools/undervoltctl" --no-print-directory OUT="$work/build" \
	check 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ] && ! grep -q '^not ok - ' "$log"; then
	echo "not ok - make -C tools/undervoltctl check (exit status $status)"
fi
exit "$status"
