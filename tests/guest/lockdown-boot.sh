#!/bin/sh
# qemu-run: --append "lockdown=integrity"
# Lockdown from the first instruction, as Secure Boot gives it to a
# distribution kernel, not raised at run time (undervolt-lockdown.sh): the
# test kernel's modules are signed at modules_install with the key of its
# own build (kernel/config/signing.config), so the driver loads by the
# CPU's modalias and binds; reads work; writes are refused with EPERM and
# never reach the mailbox. A module whose signature is cut off is
# refused, which shows that the kernel does check them.
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
check_grep "and said so" "intel_undervolt: voltage offset control ready, core and cache coupled" "$log"
check_eq "no module was loaded unsigned (taint E)" 0 $(( $(taint) & TAINT_UNSIGNED_MODULE ))

# Reads are served from the driver's state, which must be the model's.
check_eq "reads work: core reads the model's offset" "$(fw_offset_mv 0)" \
	"$(cat $PKG/core_offset_mv)"
check_eq "reads work: gpu reads the model's offset" "$(fw_offset_mv 1)" \
	"$(cat $PKG/gpu_offset_mv)"
check_eq "the model holds the fused words" "$FUSED_WORDS" "$(fw_words)"
check_eq "no write command reached the model since power-on" "" \
	"$(fw_write_commands)"

kmsg_mark write
check_eq "a core write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -30)"
check_eq "a gpu write fails with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv -10)"
check_eq "neither reached the model" "" "$(fw_write_commands)"
log=$(dmesg_since "TEST-MARK write")
check_grep "the lockdown LSM names the reason" \
	"Lockdown: writefile: CPU voltage offset control is restricted" "$log"
check_grep "the driver names the reason" \
	"package 00: core offset write refused \(lockdown\): voltage offsets are read-only while the kernel is locked down" "$log"

# Signatures are checked, not ignored: the same module without its
# signature (the last 28 bytes are the marker, the 12 before them the
# signature's descriptor, whose last 4 bytes are its length, big-endian).
mce=$(find /lib/modules -name mce-inject.ko)
size=$(wc -c < "$mce")
siglen=$(tail -c 32 "$mce" | head -c 4 | od -An -tu1 |
	awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
head -c $((size - 28 - 12 - siglen)) "$mce" > /tmp/mce-inject-unsigned.ko
kmsg_mark unsigned
check_grep "an unsigned module is refused (EPERM, not as a corrupt file)" \
	"Operation not permitted" "$(insmod /tmp/mce-inject-unsigned.ko 2>&1)"
check "the refused module is not loaded" test ! -e /sys/module/mce_inject
check_grep "lockdown names unsigned module loading" \
	"Lockdown: insmod: unsigned module loading is restricted" "$(dmesg_since "TEST-MARK unsigned")"
check "the signed module loads" insmod "$mce"
check_eq "still no taint E" 0 $(( $(taint) & TAINT_UNSIGNED_MODULE ))

finish
