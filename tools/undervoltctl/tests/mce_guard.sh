#!/bin/bash
# tests/mce_guard.sh BINARY: undervoltctl mce-guard on a fake tree whose
# tracefs instance has a FIFO for trace_pipe: the records written into it
# are the kernel's mce_record lines (the 6.12 format). Two packages with
# CPUs 0-1 in package 0 and 2-3 in package 1; only a core's own corrected
# or recoverable error on a package with an offset puts it to 0 mV.
# BINARY must be a test build. One TAP line per check; exit 1 if one failed.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: tests/mce_guard.sh BINARY" >&2; exit 2; }
LABEL=mce-guard
bin=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
inst=$root/kernel/tracing/instances/undervoltctl-mce
trap 'end_helpers; exec 3>&-; rm -rf "$tmp"' EXIT

vals() {
	local p
	for p in 00 01; do
		printf '%s/%s ' "$(cat "$drv/package_$p/core_offset_mv")" "$(cat "$drv/package_$p/cache_offset_mv")"
	done
}

# record CPU BANK STATUS SOCKET: one line of trace_pipe, as Linux 6.12 prints it.
record() {
	printf '          <idle>-0       [00%d] d.h1.   1.000000: mce_record: CPU: %d, MCGc/s: c09/0, MC%d: %s, IPID: 0000000000000000, ADDR: 0000000000000000, MISC: 0000000000000000, SYND: 0000000000000000, RIP: 00:<0000000000000000>, TSC: 1, PPIN: 0, vendor: 0, CPUID: 906ea, time: 1700000000, socket: %d, APIC: %d, microcode: f0\n' \
		"$1" "$1" "$2" "$3" "$4" "$1" >&3
}

# logged N: wait until the log has N lines.
logged() {
	local i
	for i in $(seq 100); do
		[ "$(wc -l < "$tmp/syslog" 2>/dev/null || echo 0)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

make_tree 158 "00 01" "core cache"
mkdir -p "$inst/events/mce/mce_record"
echo -50 > "$drv/package_00/core_offset_mv"
echo -50 > "$drv/package_00/cache_offset_mv"
echo -50 > "$drv/package_01/core_offset_mv"
echo 0 > "$drv/package_01/cache_offset_mv"
for cpu in 0 1 2 3; do
	mkdir -p "$root/devices/system/cpu/cpu$cpu/topology"
	echo $((cpu / 2)) > "$root/devices/system/cpu/cpu$cpu/topology/physical_package_id"
done
echo 0 > "$inst/events/mce/mce_record/enable"
echo 1408 > "$inst/buffer_size_kb"
mkfifo "$inst/trace_pipe"

# Package 0 at -50 mV, on trial at -106 mV: the trial's revert would put
# -50 mV back after the guard's 0 mV.
"$bin" --sysfs-root "$root" set --package 0 --trial 60 core=-106 cache=-106 >/dev/null 2>&1
check_eq "(package 0's offsets are on trial)" yes "$([ -e "$tmp/run/undervoltctl/trial" ] && echo yes || echo no)"
"$bin" --sysfs-root "$root" mce-guard >"$tmp/guard.out" 2>&1 &
guard=$!
helpers=$guard
exec 3>"$inst/trace_pipe"
logged 1
check_eq "it turns the event on in an instance of its own" "1 64" \
	"$(cat "$inst/events/mce/mce_record/enable") $(cat "$inst/buffer_size_kb")"

record 0 8 900000000000009f 0
logged 2
check_eq "a memory controller error (DRAM) changes nothing" "-106/-106 -50/0 " "$(vals)"
check_eq "... and says why" 1 "$(grep -c '^<6> undervoltctl: a corrected machine check (memory controller, MCA code 0x009f) in bank 8 of CPU 0: not a core.s own error that an offset causes; offsets left alone$' "$tmp/syslog")"
record 1 1 b200000000000005 0
logged 3
check_eq "a fatal one is left to the kernel" "-106/-106 -50/0 " "$(vals)"

record 2 1 9000000000000005 1
logged 4
check_eq "corrected internal parity (0x0005) on CPU 2: package 1 goes to 0 mV, package 0 stays" \
	"-106/-106 0/0 " "$(vals)"
check_eq "... and says why (LOG_WARNING)" 1 "$(grep -c '^<4> undervoltctl: a corrected machine check (internal parity, MCA code 0x0005) in bank 1 of CPU 2, while package 1 had core -50 mV: its offsets are 0 mV now' "$tmp/syslog")"

record 1 1 9000000000000005 0
logged 6
check_eq "the same on CPU 1: package 0 goes to 0 mV" "0/0 0/0 " "$(vals)"
check_eq "... its trial is cancelled, as its revert would put an offset back" \
	"no 1" "$([ -e "$tmp/run/undervoltctl/trial" ] && echo yes || echo no) $(grep -c 'the trial that ran is cancelled' "$tmp/syslog")"
record 0 1 9000000000000005 0
logged 7
check_eq "another on package 0: it has no offset, nothing to undo" 1 \
	"$(grep -c 'package 0 has no offset; nothing to undo' "$tmp/syslog")"

exec 3>&-
wait "$guard"
check_eq "mce-guard ends when trace_pipe does, with 0" 0 "$?"
helpers=
check_eq "... and turns the event off" 0 "$(cat "$inst/events/mce/mce_record/enable")"

rm -rf "$root/kernel"
"$bin" --sysfs-root "$root" mce-guard >"$tmp/out" 2>&1
check_eq "without tracefs it says how to mount it" \
	"1 yes" "$? $(grep -q 'is tracefs mounted on .*(mount -t tracefs nodev /sys/kernel/tracing)' "$tmp/out" && echo yes || echo no)"

exit $failed
