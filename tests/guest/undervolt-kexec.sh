#!/bin/sh
# qemu-run: --with-kernel --timeout 400
# kexec into a second kernel: the driver of the first writes the offsets
# the firmware had when it bound back before the new kernel starts (its
# reboot notifier; kexec runs no firmware and resets nothing, so without
# it the second kernel would inherit the first one's undervolt). Checked
# in the second kernel against the firmware model, whose reset counter
# shows that no reset came in between.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

# cmdline_value NAME: the value of NAME= on the kernel command line.
cmdline_value() {
	tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p"
}

if [ "$(cmdline_value lu_stage)" = 2 ]; then
	check_eq "second kernel: no reset of the machine since the first" \
		"$(cmdline_value lu_resets)" "$(fwctl resets)"
	check_eq "second kernel: the firmware holds the words it booted with" \
		"$FUSED_WORDS" "$(fw_words)"
	check_eq "second kernel: the driver finds 0 mV on core" 0 "$(cat $PKG/initial_core_offset_mv)"
	check_no_splat
	finish
fi

check "the driver binds" test -d $PKG
check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "the firmware holds core -80 mV" -80 "$(fw_offset_mv 0)"
check_eq "... and gpu -40 mV" -40 "$(fw_offset_mv 1)"
# The second kernel's initramfs: this one's, taken from the running root.
(cd / && find . -xdev | cpio -o -H newc > /tmp/initrd.cpio 2>/dev/null)
check "the second kernel is loaded (kexec_file_load)" \
	kexecload load /boot/bzImage /tmp/initrd.cpio \
	"$(cat /proc/cmdline) lu_stage=2 lu_resets=$(fwctl resets)"
[ $LIB_FAILED -eq 0 ] || finish
echo "# kexec into the second kernel"
kexecload exec
fail "kexec returned"
finish
