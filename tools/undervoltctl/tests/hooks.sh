#!/bin/bash
# tests/hooks.sh RELEASE TEST: issue 40, item 6: the test hooks (every
# UNDERVOLTCTL_* variable of the environment) are in test builds only. Root
# with an inherited environment must not be steered: RELEASE (a build
# without -DUNDERVOLTCTL_TEST_HOOKS) ignores them, and holds not even their
# names; TEST honours them. The release binary only reads here: the
# machine's /sys, /proc and /dev, never writes (this host has no driver).
# One TAP line per check; exit 1 if one failed.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: tests/hooks.sh RELEASE TEST" >&2; exit 2; }
rel=$(realpath "$1")
test=$(realpath "$2")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-hooks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
drv=$tmp/sys/devices/system/cpu/intel_undervolt
failed=0
unset UNDERVOLTCTL_SYSFS_ROOT UNDERVOLTCTL_PROC_ROOT UNDERVOLTCTL_DEV_ROOT \
	UNDERVOLTCTL_RUN_ROOT UNDERVOLTCTL_STATE_DIR UNDERVOLTCTL_TEST_FAIL_WRITE

pass() { echo "ok - undervoltctl hooks: $1"; }
fail() { echo "not ok - undervoltctl hooks: $1"; failed=1; }
check_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi; }

# The release binary runs only where it can neither find a driver nor a
# trial to act on; elsewhere each check is skipped, with its own line.
if [ -e /sys/devices/system/cpu/intel_undervolt ] || [ -e /run/undervoltctl ]; then
	for c in "no UNDERVOLTCTL_ name" "UNDERVOLTCTL_SYSFS_ROOT" "confirm" \
		"UNDERVOLTCTL_PROC_ROOT" "the test build" "--sysfs-root"; do
		echo "ok - undervoltctl hooks: $c # SKIP this host has the driver or a trial"
	done
	exit 0
fi

# A tree that looks like the driver, with a victim behind its files: what
# v2's confirm wrote to (confirm and trial_remaining_s) and the rest.
mkdir -p "$drv/package_00" "$tmp/proc"
echo -250 > "$drv/min_offset_mv"
echo 0 > "$drv/max_offset_mv"
echo 0 > "$drv/package_00/core_offset_mv"
echo 0 > "$drv/package_00/initial_core_offset_mv"
echo 5 > "$drv/trial_remaining_s"
echo precious > "$tmp/victim"
ln -s "$tmp/victim" "$drv/confirm"
printf 'processor\t: 0\nvendor_id\t: FAKE-VENDOR\nmodel name\t: FAKE-CPU\n' > "$tmp/proc/cpuinfo"

names=$(strings "$rel" | grep -c 'UNDERVOLTCTL_')
check_eq "the release binary holds no UNDERVOLTCTL_ name" 0 "$names"

UNDERVOLTCTL_SYSFS_ROOT=$tmp/sys "$rel" status > "$tmp/out" 2>&1
check_eq "UNDERVOLTCTL_SYSFS_ROOT does not move the release binary's /sys" \
	"3 /sys/devices/system/cpu/intel_undervolt" \
	"$? $(grep -o '[^ ]*/devices/system/cpu/intel_undervolt' "$tmp/out" | head -n1)"
UNDERVOLTCTL_SYSFS_ROOT=$tmp/sys UNDERVOLTCTL_RUN_ROOT=$tmp/run "$rel" confirm > "$tmp/out" 2>&1
check_eq "confirm under those variables touches neither the tree nor its victim" \
	"precious no" "$(cat "$tmp/victim") $([ -e "$tmp/run" ] && echo yes || echo no)"
UNDERVOLTCTL_PROC_ROOT=$tmp/proc "$rel" report > "$tmp/out" 2>&1
check_eq "UNDERVOLTCTL_PROC_ROOT does not move the release binary's /proc" 0 \
	"$(grep -c FAKE-CPU "$tmp/out")"

UNDERVOLTCTL_SYSFS_ROOT=$tmp/sys UNDERVOLTCTL_RUN_ROOT=$tmp/run \
	UNDERVOLTCTL_DEV_ROOT=$tmp/dev UNDERVOLTCTL_STATE_DIR=$tmp/state \
	UNDERVOLTCTL_PROC_ROOT=$tmp/proc "$test" status > "$tmp/out" 2>&1
check_eq "the test build honours them" "0 package 0: writable" "$? $(grep '^package 0' "$tmp/out")"
"$rel" --sysfs-root "$tmp/sys" status --json > "$tmp/out" 2>&1
check_eq "--sysfs-root, an option given on purpose, still works in the release binary" 0 "$?"
exit $failed
