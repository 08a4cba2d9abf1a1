#!/bin/bash
# undervoltctl fuzzing: make -C tools/undervoltctl fuzz runs the libFuzzer
# targets of the config parser and of the intel-undervolt importer for
# 1 000 000 inputs each; any crash, leak or sanitizer report fails it.
# No guest: tests/run-all runs it beside the guest suites.
# run-all: beside
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

dir=$LU_ROOT/tools/undervoltctl
# A private build directory: another checkout user may run this at once.
work=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/log
make -C "$dir" --no-print-directory OUT="$work/build" fuzz >"$log" 2>&1
status=$?
runs=$(grep -c '^Done 1000000 runs' "$log")
if [ "$status" -eq 0 ] && [ "$runs" -eq 2 ]; then
	echo "ok - undervoltctl fuzz: config parser and importer, 1000000 runs each, clean"
else
	echo "not ok - undervoltctl fuzz: config parser and importer, 1000000 runs each, clean"
	grep -E 'ERROR|SUMMARY|Done|deadly|crash-|leak-|timeout-' "$log" | sed 's/^/#   /'
	exit 1
fi
