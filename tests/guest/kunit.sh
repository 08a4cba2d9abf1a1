#!/bin/sh
# qemu-run: --append "kunit.enable=1"
# Load the KUnit test module and report every test case of its suite as
# one TAP line, parsed from the KTAP in /sys/kernel/debug/kunit/*/results.
# Series v3 has one suite, intel_undervolt, of five cases; it tests the
# pure parts of undervolt.h and links none of the driver.
. /test/lib.sh

MODULES="intel_undervolt_kunit"
SUITES="intel_undervolt"

for m in $MODULES; do
	check "modprobe $m" modprobe $m
done

for suite in $SUITES; do
	results=/sys/kernel/debug/kunit/$suite/results
	# debugfs files report size 0: read them to see whether they are empty.
	if [ ! -r "$results" ] || [ -z "$(head -c 1 "$results")" ]; then
		fail "$suite: the suite ran (no results in $results)"
		continue
	fi
	# Test cases are the 4-space indented result lines.
	cases=$(sed -n 's/^    \(\(not \)\{0,1\}ok\) [0-9][0-9]* \(.*\)$/\1 \3/p' "$results")
	if [ -z "$cases" ]; then
		fail "$suite: the suite reports test cases"
		continue
	fi
	printf '%s\n' "$cases" | while read -r status rest; do
		case $status in
		ok) echo "ok - $suite.$rest" ;;
		*) rest=${rest#ok }; echo "not ok - $suite.$rest" ;;
		esac
	done
	if grep -q '^    not ok ' "$results"; then
		LIB_FAILED=1
		sed 's/^/# /' "$results" | grep -B2 -A12 'not ok\|Expected\|ASSERT' | head -80
	fi
	check_grep "$suite: the suite passed" "^ok [0-9]+ $suite" "$(cat "$results")"
done

for suite in /sys/kernel/debug/kunit/*/; do
	suite=$(basename "$suite")
	case " $SUITES " in *" $suite "*) ;; *) echo "# other suite ran: $suite" ;; esac
done

finish
