#!/bin/bash
# The firmware model's QEMU side (qemu/MODEL.md), on the host: what the
# guest suites cannot see. Its knobs carry the x- prefix of test-only
# properties and refuse bad values; it refuses to run without TCG, whose
# MSR helpers it lives in; it blocks migration, since none of its state
# is migrated; and every patch of qemu/patches/ is clean for QEMU's own
# scripts/checkpatch.pl.
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

qemu=$("$LU_ROOT/scripts/build-qemu") || { echo "not ok - our QEMU builds"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/qemu-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

ok() {
	echo "ok - $1"
}

bad() {
	echo "not ok - $1"
	failed=1
}

# start CPU-OPTIONS [QEMU ARGS...]: QEMU, paused, driven over QMP on its
# standard input: negotiate, ask for a migration, then wait until the
# migration is refused, completed or failed before asking it to quit:
# QEMU 7.2 can abort (object_ref: "ref < INT_MAX") when it quits while a
# migration still runs, 3 times in 60 here. Sets out and status.
start() {
	local cpu=$1 fifo=$work/qmp pid
	shift
	rm -f "$fifo" && mkfifo "$fifo"
	timeout 60 "$qemu" -machine q35 -cpu "$cpu" -nodefaults -display none \
		-S -qmp stdio -L /usr/share/qemu -L /usr/share/seabios "$@" \
		< "$fifo" > "$work/out" 2>&1 &
	pid=$!
	(
		# QEMU may have refused to start: its end of the pipe is gone.
		trap '' PIPE
		exec 3> "$fifo"
		qmp() { printf '%s\n' "$1" >&3 2>/dev/null; }
		qmp '{"execute":"qmp_capabilities"}'
		qmp '{"execute":"migrate","arguments":{"uri":"exec:cat > /dev/null"}}'
		for _ in $(seq 300); do
			kill -0 "$pid" 2>/dev/null || exit 0
			grep -qE '"error"|"status": "(completed|failed|cancelled)"' \
				"$work/out" && break
			qmp '{"execute":"query-migrate"}'
			sleep 0.1
		done
		qmp '{"execute":"quit"}'
	)
	wait "$pid"
	status=$?
	out=$(cat "$work/out")
}

# refused WHAT CPU-OPTIONS PATTERN: QEMU does not start, and says PATTERN.
refused() {
	start "$2" -accel tcg
	if [ "$status" -ne 0 ] && grep -qE -- "$3" <<< "$out"; then
		ok "$1"
	else
		bad "$1 (status $status, no /$3/ in: $(printf '%s' "$out" | head -c 300))"
	fi
}

base=Skylake-Client,-hypervisor
start "$base,x-oc-mailbox=on,x-oc-profile=unlocked" -accel tcg
if [ "$status" -eq 0 ] && grep -q '"return": {}' <<< "$out"; then
	ok "QEMU starts with x-oc-mailbox=on under TCG"
else
	bad "QEMU starts with x-oc-mailbox=on under TCG (status $status: $(printf '%s' "$out" | head -c 300))"
fi
if grep -q 'the OC mailbox model (x-oc-mailbox) does not migrate' <<< "$out"; then
	ok "a migration is refused, naming the model"
else
	bad "a migration is refused, naming the model (QMP said: $(printf '%s' "$out" | head -c 300))"
fi
start "$base" -accel tcg
if [ "$status" -eq 0 ] && ! grep -q 'does not migrate' <<< "$out"; then
	ok "without the model, the migration is not blocked by it"
else
	bad "without the model, the migration is not blocked by it ($(printf '%s' "$out" | head -c 300))"
fi

refused "the old name oc-mailbox is gone" "$base,oc-mailbox=on" "oc-mailbox"
refused "an unknown profile is refused" "$base,x-oc-mailbox=on,x-oc-profile=tiger-lake" \
	"x-oc-profile: unknown profile 'tiger-lake'"
refused "x-oc-boot-words takes fused or zero" "$base,x-oc-mailbox=on,x-oc-boot-words=ones" \
	"x-oc-boot-words: 'fused' or 'zero'"
refused "a BIOS offset outside the field is refused" "$base,x-oc-mailbox=on,x-oc-bios-core=-1001" \
	"x-oc-bios-core: -1001 mV is outside -1000..999"
refused "x-oc-unstable-faults takes fma, mul or both" \
	"$base,x-oc-mailbox=on,x-oc-profile=unstable,x-oc-unstable-faults=div" \
	"x-oc-unstable-faults: 'fma', 'mul' or 'both'"
refused "the unstable bands must be in order" \
	"$base,x-oc-mailbox=on,x-oc-profile=unstable,x-oc-unstable-flip=120" \
	"x-oc-unstable-flip <= x-oc-unstable-mce <= x-oc-unstable-reset"
refused "x-oc-status takes auto, on or off" "$base,x-oc-mailbox=on,x-oc-status=yes" \
	"x-oc-status: 'auto', 'on' or 'off'"

# Another accelerator than TCG: qtest, which every system emulator has.
start "$base,x-oc-mailbox=on" -accel qtest
if [ "$status" -ne 0 ] && grep -q 'x-oc-mailbox=on needs TCG' <<< "$out"; then
	ok "the model refuses another accelerator than TCG"
else
	bad "the model refuses another accelerator than TCG (status $status: $(printf '%s' "$out" | head -c 300))"
fi

# QEMU's checkpatch, from the Debian source build-qemu unpacked.
checkpatch=$LU_CACHE/qemu/src/scripts/checkpatch.pl
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	if res=$(perl "$checkpatch" --no-color "$LU_ROOT/qemu/patches/$p" 2>&1); then
		ok "QEMU's checkpatch: $p"
	else
		bad "QEMU's checkpatch: $p: $(printf '%s\n' "$res" | grep -E '^(ERROR|WARNING)' | head -n 3)"
	fi
done < "$LU_ROOT/qemu/patches/series"
exit $failed
