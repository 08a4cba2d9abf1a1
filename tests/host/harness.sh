#!/bin/bash
# The harness checks itself: tests/run-all runs on small trees of suites
# written here, whose right outcome is known in advance, and must count,
# name and refuse exactly what a reader of "N passed, N failed, N skipped"
# relies on: a suite that is missing, unlisted, short of its plan or exits
# badly is a failure; a skip is counted with its reason; an empty or
# malformed manifest does not pass.
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/harness.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

# tree NAME: a fresh tree of suites in $work/NAME.
tree() {
	t=$work/$1
	mkdir -p "$t/host"
	: > "$t/manifest"
}

# suite NAME BODY: a host suite printing BODY (a shell snippet).
suite() {
	printf '#!/bin/sh\n%s\n' "$2" > "$t/host/$1"
	chmod +x "$t/host/$1"
}

plan() {
	echo "$*" >> "$t/manifest"
}

# run: tests/run-all on tree $t; sets out and status.
run() {
	out=$(LU_TESTS_DIR=$t LU_RUN_ALL_NO_BUILD=1 "$LU_ROOT/tests/run-all" 2>&1)
	status=$?
}

expect() {
	local what=$1 want_status=$2 want_line=$3
	if { [ "$want_status" = 0 ] && [ "$status" -eq 0 ]; } ||
		{ [ "$want_status" != 0 ] && [ "$status" -ne 0 ]; }; then
		if grep -qF -- "$want_line" <<< "$out"; then
			echo "ok - $what"
			return
		fi
	fi
	echo "not ok - $what (exit status $status, no line \"$want_line\")"
	printf '%s\n' "$out" | tail -n 8 | sed 's/^/# /'
	failed=1
}

tree all-pass
plan "host/a.sh 2 -"
plan "host/b.sh 1 -"
suite a.sh 'echo "ok - one"; echo "ok - two"'
suite b.sh 'echo "ok - three"'
run
expect "three planned checks that pass are counted as 3 passed" 0 "3 passed, 0 failed, 0 skipped"

tree empty
run
expect "an empty manifest fails" 1 "FAILED tests/manifest plans no suite for the test kernel"

tree short
plan "host/a.sh 3 -"
suite a.sh 'echo "ok - one"; echo "ok - two"'
run
expect "a suite that prints fewer checks than planned fails" 1 \
	"FAILED host/a.sh: printed 2 checks, the manifest plans 3"
expect "...and its checks still count, with one failure more" 1 "2 passed, 1 failed, 0 skipped"

tree long
plan "host/a.sh 1 -"
suite a.sh 'echo "ok - one"; echo "ok - two"'
run
expect "a suite that prints more checks than planned fails" 1 \
	"FAILED host/a.sh: printed 2 checks, the manifest plans 1"

tree missing
plan "host/a.sh 1 -"
plan "host/gone.sh 4 -"
suite a.sh 'echo "ok - one"'
run
expect "a planned suite that is not on disk fails" 1 "FAILED host/gone.sh: in tests/manifest but missing"

tree unlisted
plan "host/a.sh 1 -"
suite a.sh 'echo "ok - one"'
suite extra.sh 'echo "ok - one"'
run
expect "a suite on disk that the manifest does not plan fails" 1 "FAILED host/extra.sh: not in tests/manifest"

tree skip
plan "host/a.sh 2 -"
suite a.sh 'echo "ok - one"; echo "ok - two # SKIP no RTC in this guest"'
run
expect "a skip is counted as skipped, not passed" 0 "1 passed, 0 failed, 1 skipped"
expect "...and named with its reason" 0 "SKIPPED host/a.sh: two # SKIP no RTC in this guest"

tree exit-status
plan "host/a.sh 1 -"
suite a.sh 'echo "ok - one"; exit 3'
run
expect "a suite that exits non-zero without a failed check fails" 1 "FAILED host/a.sh: exited with status 3"

tree not-ok
plan "host/a.sh 2 -"
suite a.sh 'echo "ok - one"; echo "not ok - two"; exit 1'
run
expect "a failed check is counted and named" 1 "FAILED host/a.sh: not ok - two"

tree unplanned
plan "host/a.sh ? -"
suite a.sh 'echo "ok - one"'
run
expect "a plan that is not a count fails" 1 \
	"FAILED host/a.sh: tests/manifest plans \"?\" checks, not a count or '-'"

tree beside
plan "host/a.sh 2 -"
plan "host/b.sh 1 -"
suite a.sh '# run-all: beside
sleep 1; echo "ok - one"; echo "ok - two"'
suite b.sh 'echo "ok - three"'
run
expect "a suite run beside the others is counted when it ends" 0 "3 passed, 0 failed, 0 skipped"
expect "...and it was started before the others" 0 "==== host/a.sh: started, it runs beside the suites below"

tree beside-guests
plan "host/a.sh 1 -"
plan "host/b.sh 1 -"
suite a.sh '# run-all: beside, with guests
sleep 1; [ "$(nice)" = "$(ps -o ni= -p $PPID | tr -d " ")" ] && echo "ok - a.sh: the priority of run-all"'
suite b.sh 'echo "ok - b.sh"'
run
expect "a suite with guests runs beside the others at their priority" 0 "ok - a.sh: the priority of run-all"

tree beside-short
plan "host/a.sh 3 -"
plan "host/b.sh 1 -"
suite a.sh '# run-all: beside
echo "ok - one"; echo "ok - two"'
suite b.sh 'echo "ok - three"'
run
expect "a suite run beside the others that prints fewer checks fails" 1 \
	"FAILED host/a.sh: printed 2 checks, the manifest plans 3"

tree beside-exit
plan "host/a.sh 1 -"
suite a.sh '# run-all: beside
echo "ok - one"; exit 4'
run
expect "a suite run beside the others that exits non-zero fails" 1 \
	"FAILED host/a.sh: exited with status 4"

tree debug-only
plan "host/a.sh - 1"
plan "host/b.sh 1 -"
suite a.sh 'echo "not ok - would fail"; exit 1'
suite b.sh 'echo "ok - one"'
run
expect "a suite planned '-' for this kernel does not run" 0 "1 passed, 0 failed, 0 skipped"

exit $failed
