#!/bin/sh
# qemu-run: --append "lockdown=integrity intel_undervolt.offsets=core:-50"
# Lockdown from the first instruction, as Secure Boot gives it to a
# distribution kernel, not raised at run time (undervolt-lockdown.sh): the
# test kernel's modules are signed at modules_install with the key of its
# own build (kernel/config/signing.config), so the driver loads by the
# CPU's modalias and binds; reads work; writes and the boot offsets are
# refused with EPERM and never reach the mailbox. A module whose signature
# is cut off is refused, which shows that the kernel does check them.
# Test kernel only, as the other suites that are not the driver's own.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
TAINT_UNSIGNED_MODULE=8192
MARKER="~Module signature appended~"

log=$(dmesg)
check_grep "the kernel is locked down from its command line" \
	"Kernel is locked down from command line" "$log"
check_eq "the lockdown level is integrity" "none [integrity] confidentiality" \
	"$(cat /sys/kernel/security/lockdown)"

ko=$(find /lib/modules -name intel_undervolt.ko)
check_eq "the driver's module file carries a signature" "$MARKER" \
	"$(tail -c 28 "$ko" | head -n 1)"
check "the driver loaded (by the CPU's modalias)" test -d /sys/module/intel_undervolt
check "the driver bound" test -d $PKG
check_eq "no module was loaded unsigned (taint E)" 0 $(( $(taint) & TAINT_UNSIGNED_MODULE ))

# Reads are served from the driver's state, which must be the model's.
check_eq "reads work: core reads the model's offset" "$(fw_offset_mv 0)" \
	"$(cat $PKG/core_offset_mv)"
check_eq "reads work: gpu reads the model's offset" "$(fw_offset_mv 1)" \
	"$(cat $PKG/gpu_offset_mv)"
check_eq "write_block_reason is lockdown" lockdown "$(cat $PKG/write_block_reason)"

# The boot offsets (core:-50) were refused at probe.
check_eq "offsets=core:-50 did not reach the model: core is still 0 mV" 0 \
	"$(fw_offset_mv 0)"
check_eq "no write command reached the model since power-on" "" \
	"$(fw_write_commands)"
check_grep "the boot offsets' refusal is logged with its errno" \
	'offsets: package 00: skipping "core:-50": refused \(-1\)' "$log"
check_grep "the driver says lockdown refused it and what to do" \
	"core offset write refused \(lockdown\): boot without kernel lockdown" "$log"

kmsg_mark write
check_eq "a core write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -30)"
check_eq "a gpu write fails with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -10)"
check_eq "neither reached the model" "" "$(fw_write_commands)"
check_grep "the lockdown LSM names the reason" \
	"Lockdown: .*CPU voltage offset control is restricted" "$(dmesg_since "TEST-MARK write")"

# Signatures are checked, not ignored: the same module without its
# signature (the last 28 bytes are the marker, the 12 before them the
# signature's descriptor, whose last 4 bytes are its length, big-endian).
mce=$(find /lib/modules -name mce-inject.ko)
size=$(wc -c < "$mce")
siglen=$(tail -c 32 "$mce" | head -c 4 | od -An -tu1 |
	awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
head -c $((size - 28 - 12 - siglen)) "$mce" > /tmp/mce-inject-unsigned.ko
check_eq "the unsigned copy has no marker" "" \
	"$(tail -c 28 /tmp/mce-inject-unsigned.ko | grep -F "$MARKER")"
kmsg_mark unsigned
check_grep "an unsigned module is refused" "not permitted" \
	"$(insmod /tmp/mce-inject-unsigned.ko 2>&1)"
check_grep "lockdown names unsigned module loading" \
	"Lockdown: .*unsigned module loading is restricted" "$(dmesg_since "TEST-MARK unsigned")"
check "the signed module loads" insmod "$mce"
check_eq "still no taint E" 0 $(( $(taint) & TAINT_UNSIGNED_MODULE ))

finish
