#!/bin/sh
# The firmware model (qemu/MODEL.md) as a raw tool sees it, with the driver
# unloaded: what hardware does that our beliefs once left out. Commands
# take time (a few microseconds; 4 ms, from 2 to 6 ms, for the checks of
# the busy bit, since a system call under TCG takes tens of microseconds
# and a raw tool could not see it otherwise), the answer does not
# echo the domain, offsets span the field's whole range, undervolt
# protection acknowledges and drops negative offsets, the locked FEAT_CTL
# faults on a write, and injected completion codes come back as they are.
# Every expectation is a literal from the model's documented protocol.
. /test/lib.sh

xfer_field() {
	# xfer_field first|answer|polls|us OUTPUT
	case $1 in
	first) printf '%s\n' "$2" | sed -n 's/^first \(0x[0-9a-f]*\)$/\1/p' ;;
	answer) printf '%s\n' "$2" | sed -n 's/^answer \(0x[0-9a-f]*\) .*/\1/p' ;;
	polls) printf '%s\n' "$2" | sed -n 's/^answer .* polls \([0-9]*\) .*/\1/p' ;;
	us) printf '%s\n' "$2" | sed -n 's/^answer .* us \([0-9]*\)$/\1/p' ;;
	esac
}

check "intel_undervolt unloads" rmmod intel_undervolt
check_eq "a command takes 3 us by default" 3 "$(fwctl busy-us)"
check_eq "every domain holds its fused word" "$FUSED_WORDS" "$(fw_words)"
# msrtool's first run translates its code, which takes TCG milliseconds.
msrtool xfer 0 "$(mbox_cmd 0 0x01 0)" > /dev/null
fwctl busy-us 4000

# Busy is visible, for microseconds to milliseconds: a tool that reads
# once without polling takes the busy command word for the answer.
out=$(msrtool xfer 0 "$(mbox_cmd 0 0x01 0)")
first=$(xfer_field first "$out")
answer=$(xfer_field answer "$out")
check_eq "the read right after a command shows the busy bit" 1 "$(mbox_busy "${first:-0}")"
check_eq "... and the command itself, not an answer" 0x01 \
	"$(printf '0x%02x' "$(mbox_code "${first:-0}")")"
check_eq "the answer comes with code 0" 0 "$(mbox_code "${answer:-0xff00000000}")"
check_eq "... and the core's capabilities (offset, override, ratio, max ratio 0x2c)" \
	0x0000072c "$(mbox_data "${answer:-0}")"
polls=$(xfer_field polls "$out")
us=$(xfer_field us "$out")
check "it took polling (${polls:-?} polls)" test "${polls:-0}" -ge 1
check "it took at least 2000 us of the 2000-6000 us drawn (${us:-?} us)" \
	test "${us:-0}" -ge 2000

# No echo (x-oc-echo=off, the default): a read of the cache (domain 2) is
# answered with bits 42:40 clear.
answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 2 0x10 0)")")
check_eq "the answer to a domain 2 read does not echo the domain" 0 \
	"$(mbox_domain "${answer:-0x20000000000}")"
check_eq "... and carries the cache's word" 0x0004cd28 "$(mbox_data "${answer:-0}")"

# A write while a command is busy is lost and counted.
gpu_word=$(offset_word -30 0x48c16)
before=$(fwctl busy-writes)
out=$(msrtool xfer 0 "$(mbox_cmd 0 0x01 0)" "$(mbox_cmd 1 0x11 "$gpu_word")")
check_eq "a write while a command is busy is counted" $((before + 1)) "$(fwctl busy-writes)"
check_eq "... and lost: the GPU keeps its word" 0x00048c16 "$(fwctl word 1)"
check_eq "... while the busy command completes" 0 \
	"$(mbox_code "$(xfer_field answer "$out")")"
fwctl busy-us 0

# The field's whole range: -600 mV and +999 mV are taken (code 4 is for
# an override target above what the regulator takes, not for offsets).
w=$(offset_word -600 0x4cd2c)
answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 0 0x11 "$w")")")
check_eq "a -600 mV core offset is answered with code 0" 0 "$(mbox_code "${answer:-0x400000000}")"
check_eq "... and held" -600 "$(fw_offset_mv 0)"
w=$(offset_word 999 0x43312)
answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 3 0x11 "$w")")")
check_eq "a +999 mV uncore offset is answered with code 0" 0 "$(mbox_code "${answer:-0x400000000}")"
check_eq "... and held" 999 "$(fw_offset_mv 3)"
# Override mode (bit 20) with a target of 0x700/1024 V = 1.75 V.
answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 4 0x11 0x00170001)")")
check_eq "an override target above 1.52 V is answered with code 4" 4 "$(mbox_code "${answer:-0}")"
check_eq "... and not held" 0x00040001 "$(fwctl word 4)"

# Undervolt protection (12th gen and later), switched on here: a negative
# offset is acknowledged and not applied; zero and positive ones are.
fwctl uvp on
answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 1 0x11 "$(offset_word -50 0x48c16)")")")
check_eq "UVP: a -50 mV write is acknowledged (code 0)" 0 "$(mbox_code "${answer:-0x100000000}")"
check_eq "UVP: ... and not applied" 0x00048c16 "$(fwctl word 1)"
answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 1 0x11 "$(offset_word 20 0x48c16)")")")
check_eq "UVP: a +20 mV write is applied" 20 "$(fw_offset_mv 1)"
fwctl uvp off
check_grep "without its enumeration, IA32_OVERCLOCKING_STATUS (0x195) faults" \
	"EIO" "$(msrtool read 0 0x195 2>&1)"

# Completion codes of Intel's reference code beyond 0-5 and 0x1F (6
# illegal VR address, 7 invalid IccMax, 8 voltage override disabled, 0x10
# invalid parameter), by injection: the answer carries the code.
for code in 6 7 8 16; do
	fwctl inject "$code"
	answer=$(xfer_field answer "$(msrtool xfer 0 "$(mbox_cmd 2 0x10 0)")")
	check_eq "an injected code $code comes back as it is" "$code" "$(mbox_code "${answer:-0}")"
done

# FEAT_CTL is locked by the firmware: a write raises #GP, as on hardware.
check_grep "a write to the locked FEAT_CTL (0x3a) faults" "EIO" \
	"$(msrtool write 0 0x3a 0x5 2>&1)"
check_eq "MSR 0x194 bit 20 is clear on the unlocked profile" 0x0000000000000000 \
	"$(msrtool read 0 0x194)"

# The driver, loaded again, polls: it never writes while busy.
check "intel_undervolt loads again" modprobe intel_undervolt
before=$(fwctl busy-writes)
check_eq "a driver write works" OK \
	"$(writefile /sys/devices/system/cpu/intel_undervolt/package_00/gpu_offset_mv -40)"
check_eq "the model holds gpu -40" -40 "$(fw_offset_mv 1)"
check_eq "the driver wrote nothing while a command was busy" "$before" "$(fwctl busy-writes)"
check_no_splat
finish
