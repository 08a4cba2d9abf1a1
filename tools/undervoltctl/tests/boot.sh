#!/bin/bash
# tests/boot.sh BINARY: what undervoltctl does at boot, on a fake tree with
# a fake /proc (boot_id, cmdline): the boot assessment (issue 40, item 4:
# offsets applied at boot that crash the machine are not applied at the
# next boot), boot-confirm, and the recovery switch undervolt=off. A
# "reboot" here is a new boot_id and offsets back at 0 mV, as the firmware
# leaves them. BINARY must be a test build. One TAP line per check; exit 1
# if one failed.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: tests/boot.sh BINARY" >&2; exit 2; }
LABEL=boot
bin=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
conf=$tmp/undervolt.conf
confirmer=

vals() { echo "$(cat "$drv/package_00/core_offset_mv") $(cat "$drv/package_00/cache_offset_mv")"; }
# The tree of these tests: boot 1, and a configuration of core and cache.
boot_tree() {
	make_tree 142 00 "core cache"
	boot 1
	printf 'core = -50\ncache = -50\n' > "$conf"
}

# boot N: a new boot: its id, and the offsets the firmware leaves.
boot() {
	printf '%08d-0000-4000-8000-000000000000\n' "$1" > "$tmp/proc/sys/kernel/random/boot_id"
	echo 0 > "$drv/package_00/core_offset_mv"
	echo 0 > "$drv/package_00/cache_offset_mv"
}

# --- a boot that applied offsets and did not stay up ---------------------------
boot_tree
uvc apply --boot "$conf"
expect "apply --boot applies the file" 0 '^package 0 core: 0 -> -50 mV$'
check_eq "... after leaving the mark of this boot" "yes 00000001-0000-4000-8000-000000000000" \
	"$(exists "$state/boot.applying") $(awk '/^boot-id/ { print $2 }' "$state/boot.applying" 2>/dev/null)"
uvc status
expect "status says the boot is being assessed" 0 '^boot:    the offsets applied at boot count as good after [0-9]+ s more$'
boot 2	# the machine went down before boot-confirm ran
uvc apply --boot "$conf"
expect "#40.4 at the next boot, apply --boot applies nothing and says why" 4 "" \
	"the boot of .* applied the offsets of $conf and went down within 120 s \\(boot assessment\\): nothing was applied"
check_eq "#40.4 ... the offsets stay as the firmware left them" "0 0" "$(vals)"
check_eq "#40.4 ... and the journal has it (LOG_WARNING)" 1 "$(grep -c '^<4> undervoltctl: the boot of .* went down within 120 s' "$tmp/syslog" 2>/dev/null)"
uvc apply --boot "$conf"
expect "#40.4 the udev rule's apply, later in that boot, applies nothing either" 4 "" \
	"did not stay up 120 s after \\(boot assessment\\): nothing was applied; check the values with 'undervoltctl set --trial 300 ...', then run 'undervoltctl apply' by hand"
boot 3
uvc apply --boot "$conf"
expect "#40.4 nor at the boots after" 4
check_eq "#40.4 ... no crash loop: the offsets stay 0 mV" "0 0" "$(vals)"
uvc status
expect "#40.4 status says why nothing is applied at boot" 0 \
	"^boot:    the boot of .* applied $conf and went down within the assessment: undervoltctl.service applies nothing until 'undervoltctl apply' is run by hand$"
uvc status --json
check_eq "#40.4 status --json: the boot assessment failed" failed \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["boot_assessment"]["state"])' <<< "$out" 2>&1)"
uvc apply "$conf"
expect "apply by hand applies, and lets the boot apply run again" 0 \
	"^the boot assessment's record of a boot that did not stay up is cleared"
check_eq "... the record is gone" no "$(exists "$state/boot.failed")"
boot 4
uvc apply --boot "$conf"
expect "... and the next boot applies" 0 '^package 0 core: 0 -> -50 mV$'

# --- boot-confirm: the boot counts as good after it stayed up ------------------------
boot_tree
UNDERVOLTCTL_TEST_BOOT_CONFIRM_S=2 "$bin" --sysfs-root "$root" boot-confirm >"$tmp/confirm.out" 2>&1 &
confirmer=$!
helpers=$confirmer
sleep 0.3
UNDERVOLTCTL_TEST_BOOT_CONFIRM_S=2 uvc apply --boot "$conf"
expect "apply --boot with boot-confirm running" 0
sleep 3
check_eq "after 2 s up the mark is cleared" no "$(exists "$state/boot.applying")"
check_eq "... and the journal says the boot counts as good (LOG_NOTICE)" 1 \
	"$(grep -c "^<5> undervoltctl: the offsets applied at boot ($conf) stayed up 2 s: the boot counts as good" "$tmp/syslog" 2>/dev/null)"
uvc apply --boot "$conf"
check_eq "a re-apply that changes nothing leaves no mark" "0 no" "$rc $(exists "$state/boot.applying")"
echo 0 > "$drv/package_00/core_offset_mv"
UNDERVOLTCTL_TEST_BOOT_CONFIRM_S=2 uvc apply --boot "$conf"
sleep 3
check_eq "a later apply (a charger plugged in) is assessed too" no "$(exists "$state/boot.applying")"
boot 2
uvc apply --boot "$conf"
expect "so the next boot applies" 0
kill "$confirmer"
wait "$confirmer"
check_eq "boot-confirm ends on SIGTERM with 0" 0 "$?"
confirmer= helpers=

# An orderly shutdown before the time is no crash.
boot_tree
UNDERVOLTCTL_TEST_BOOT_CONFIRM_S=600 "$bin" --sysfs-root "$root" boot-confirm >/dev/null 2>&1 &
confirmer=$!
helpers=$confirmer
sleep 0.3
uvc apply --boot "$conf"
sleep 0.3
check_eq "boot-confirm leaves the mark until the time is up" yes "$(exists "$state/boot.applying")"
kill "$confirmer"
wait "$confirmer"
confirmer= helpers=
check_eq "stopped (an orderly shutdown), it clears the mark" no "$(exists "$state/boot.applying")"
check_eq "... and says why (LOG_NOTICE)" 1 \
	"$(grep -c '^<5> undervoltctl: stopped [0-9]* s after the offsets were applied at boot .*: an orderly shutdown is no crash, the boot counts as good' "$tmp/syslog" 2>/dev/null)"
boot 2
uvc apply --boot "$conf"
expect "... so the next boot applies" 0

# The mark goes down before the first write.
boot_tree
UNDERVOLTCTL_TEST_FAIL_WRITE=cache_offset_mv=EIO uvc apply --boot "$conf"
check_eq "a boot apply whose write fails left its mark first" "1 yes" "$rc $(exists "$state/boot.applying")"
boot_tree
rmdir "$state"
mkdir -m 777 "$state"
uvc apply --boot "$conf"
expect "a state directory others can write is not trusted: nothing is applied" 1 "" \
	"$state is writable by group or others \\(mode 0777\\): refusing to trust it"
check_eq "... the offsets stay" "0 0" "$(vals)"

# --- the recovery switch --------------------------------------------------------
boot_tree
echo 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro undervolt=off' > "$tmp/proc/cmdline"
uvc apply --boot "$conf"
expect "undervolt=off: the boot apply applies nothing and says why" 4 "" \
	"undervolt=off is on the kernel command line \\(the recovery switch\\): nothing was applied; 'undervoltctl set' still works by hand"
check_eq "... no offset, no mark" "0 0 no" "$(vals) $(exists "$state/boot.applying")"
uvc status
expect "... status says so" 0 "^recovery: undervolt=off is on the kernel command line"
uvc set core=-20 cache=-20
expect "... set by hand still works" 0
uvc apply "$conf"
expect "... and so does apply by hand, with a note" 0 '^package 0 core: -20 -> -50 mV$' \
	'undervolt=off is on the kernel command line: the boot apply applies nothing; applying by hand anyway'
echo 'root=/dev/sda1 undervolt=offline' > "$tmp/proc/cmdline"
uvc apply --boot "$conf"
expect "only undervolt=off is the switch" 0

exit $failed
