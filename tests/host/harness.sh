#!/bin/bash
# The harness checks itself: tests/run-all runs on small trees of suites
# written here, whose right outcome is known in advance, and must count,
# name and refuse exactly what a reader of "N passed, N failed, N skipped"
# relies on: a suite that is missing, unlisted, short of its plan or exits
# badly is a failure; a skip is counted, with its reason, toward the plan;
# an empty or malformed manifest does not pass, nor does a suite planned on
# neither kernel or a PATTERN that selects nothing. Guest, stress and
# canary suites go through a stand-in for scripts/qemu-run (LU_QEMU_RUN),
# which runs them on the host, so that the paths that read qemu-run's
# verdict, and --debug, are checked too.
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/harness.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

# The stand-in for scripts/qemu-run: "qemu-run [OPTION...] SCRIPT" runs
# SCRIPT on the host with sh, with STUB_OPTS set to the options it was
# given ("[OPT]" each), and exits with its status, as qemu-run relays the
# guest's. A line "# stub-fail: MESSAGE" in SCRIPT makes it then fail as
# qemu-run does when it finds something wrong after the script passed (a
# late kernel report, a guest that stopped): "qemu-run: FAIL: MESSAGE" on
# standard error, status 1.
mkdir -p "$work/bin"
cat > "$work/bin/qemu-run" <<'EOF'
#!/bin/bash
script=${!#}
STUB_OPTS=
[ $# -gt 1 ] && STUB_OPTS=$(printf '[%s]' "${@:1:$#-1}")
export STUB_OPTS
sh "$script"
status=$?
fail=$(sed -n 's/^# stub-fail: //p' "$script")
if [ -n "$fail" ]; then
	echo "qemu-run: FAIL: $fail" >&2
	exit 1
fi
exit $status
EOF
chmod +x "$work/bin/qemu-run"

# tree NAME: a fresh tree of suites in $work/NAME.
tree() {
	t=$work/$1
	mkdir -p "$t/host"
	: > "$t/manifest"
}

# suite NAME BODY: a suite running BODY (a shell snippet); NAME is a host
# suite's file name, or DIR/NAME for another kind (guest/a.sh).
suite() {
	local path=$t/host/$1
	case $1 in */*) path=$t/$1 ;; esac
	mkdir -p "${path%/*}"
	printf '#!/bin/sh\n%s\n' "$2" > "$path"
	chmod +x "$path"
}

plan() {
	echo "$*" >> "$t/manifest"
}

# run [ARG...]: tests/run-all ARG... on tree $t; sets out and status.
run() {
	out=$(LU_TESTS_DIR=$t LU_RUN_ALL_NO_BUILD=1 LU_QEMU_RUN=$work/bin/qemu-run \
		"$LU_ROOT/tests/run-all" "$@" 2>&1)
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

tree neither-kernel
plan "host/a.sh 1 -"
plan "host/b.sh - -"
suite a.sh 'echo "ok - one"'
suite b.sh 'echo "ok - two"'
run
expect "a suite the manifest plans on neither kernel fails, named" 1 \
	"FAILED host/b.sh: tests/manifest plans it on neither kernel ('- -')"

tree skip-plan
plan "host/a.sh 1 -"
suite a.sh 'echo "ok - one"; echo "ok - two # SKIP no RTC in this guest"'
run
expect "a skip counts toward the plan: a suite of 1 check that also skips one fails" 1 \
	"FAILED host/a.sh: printed 2 checks, the manifest plans 1"

tree pattern
plan "host/a.sh 1 -"
plan "host/b.sh - 1"
suite a.sh 'echo "ok - one"'
suite b.sh 'echo "ok - two"'
run a.sh
expect "a PATTERN runs the suites it selects" 0 "1 passed, 0 failed, 0 skipped"
run typo
expect "a PATTERN that selects no suite fails" 1 \
	"FAILED no suite that tests/manifest plans for the test kernel matches \"typo\""
run b.sh
expect "...as does one that selects only suites of the other kernel" 1 \
	"FAILED no suite that tests/manifest plans for the test kernel matches \"b.sh\""
rm "$t/host/a.sh"
run a.sh
expect "a planned suite that a PATTERN selects and is not on disk fails" 1 \
	"FAILED host/a.sh: in tests/manifest but missing"

# A guest whose script passed every check and which qemu-run then fails
# (a kernel report after the last check, read from the log at the end):
# the status of qemu-run, not of the tee after it, must reach the count.
tree guest-late-fail
plan "guest/a.sh 2 -"
suite guest/a.sh '# stub-fail: the guest kernel logged a warning, bug or oops: WARNING: CPU: 0 PID: 1 at late
echo "ok - one"; echo "ok - two"'
run
expect "a guest that qemu-run fails after every check passed fails" 1 \
	"FAILED guest/a.sh: exited with status 1"
expect "...with its checks counted" 1 "2 passed, 1 failed, 0 skipped"

tree guest-opts
plan "guest/a.sh 1 -"
suite guest/a.sh '# qemu-run: --smp 2 --append "a b"
[ "$STUB_OPTS" = "[--smp][2][--append][a b]" ] && echo "ok - options: $STUB_OPTS"'
run
expect "a guest suite boots with the options of its # qemu-run: line" 0 \
	"ok - options: [--smp][2][--append][a b]"

# --debug: the debug kernel's plan, booted with --debug-kernel; a suite
# planned '-' there does not run (it would fail).
tree debug
plan "host/a.sh 1 -"
plan "guest/b.sh 1 2"
plan "stress/c.sh - 1"
plan "canary/d.sh - 1"
suite a.sh 'echo "not ok - runs on the test kernel only"; exit 1'
suite guest/b.sh 'echo "ok - one"
[ "$STUB_OPTS" = "[--debug-kernel]" ] && echo "ok - booted the debug kernel"'
suite stress/c.sh '[ "$STUB_OPTS" = "[--debug-kernel]" ] && echo "ok - stress on the debug kernel"'
suite canary/d.sh '# expect: FAIL: the guest kernel logged a warning, bug or oops: .*possible circular locking
# stub-fail: the guest kernel logged a warning, bug or oops: WARNING: possible circular locking dependency detected
echo "ok - the script itself passed"'
run --debug
expect "--debug runs the debug kernel's plan with --debug-kernel" 0 "4 passed, 0 failed, 0 skipped"
expect "...and says so" 0 "==== summary, debug kernel"

tree debug-late-fail
plan "guest/a.sh 1 1"
suite guest/a.sh '# stub-fail: the guest kernel logged a warning, bug or oops: BUG: KASAN: slab-out-of-bounds
echo "ok - one"'
run --debug
expect "--debug: a guest that qemu-run fails after its checks passed fails" 1 \
	"FAILED guest/a.sh: exited with status 1"

# Canaries pass only when qemu-run itself reports what they expect.
tree canary
plan "canary/caught.sh 1 -"
plan "canary/missed.sh 1 -"
plan "canary/other.sh 1 -"
plan "canary/self.sh 1 -"
suite canary/caught.sh '# expect: FAIL: kernel panic
# stub-fail: kernel panic (see the console output above)
echo "ok - the script itself passed"'
suite canary/missed.sh '# expect: FAIL: kernel panic
echo "ok - the script itself passed"'
suite canary/other.sh '# expect: FAIL: kernel panic
# stub-fail: the guest did not finish within 20s'
suite canary/self.sh '# expect: FAIL: kernel panic
echo "qemu-run: FAIL: kernel panic"; exit 3'
run
expect "a canary that qemu-run fails as expected passes" 1 \
	"ok - canary canary/caught.sh: caught: FAIL: kernel panic"
expect "...one that qemu-run passes fails" 1 \
	"FAILED canary/missed.sh: not ok - canary canary/missed.sh: qemu-run did not report \"FAIL: kernel panic\" (status 0)"
expect "...as does one that qemu-run fails for another reason" 1 \
	"FAILED canary/other.sh: not ok - canary canary/other.sh: qemu-run did not report \"FAIL: kernel panic\" (status 1)"
expect "...and one whose guest printed the expected words itself" 1 \
	"FAILED canary/self.sh: not ok - canary canary/self.sh: qemu-run did not report \"FAIL: kernel panic\" (status 3)"
expect "...counted as one check each" 1 "1 passed, 3 failed, 0 skipped"

exit $failed
