#!/bin/sh
# qemu-run: --with-kernel --append "crashkernel=192M" --expect-panic "sysrq triggered crash" --timeout 400
# A crash into a kdump capture kernel: panic runs no notifier, so the
# capture kernel starts on the crashed kernel's undervolt. Its driver
# raises every negative offset to 0 mV at probe and binds read-only: the
# capture kernel runs without undervolt, and nothing there can undervolt.
# A positive offset (an overvolt the crashed kernel allowed) stays: the
# ratio bits of its word stay too. Checked in the capture kernel against
# the firmware model.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

cmdline_value() {
	tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p"
}

# What the capture kernel must leave: the fused words (0 mV), but
# uncore's +20 mV overvolt.
KDUMP_WORDS="0x0004cd2c 0x00048c16 0x0004cd28 $(offset_word 20 0x43312) 0x00040001"

if [ "$(cmdline_value lu_stage)" = 2 ]; then
	check "capture kernel: a kdump kernel (elfcorehdr= given)" \
		grep -q elfcorehdr= /proc/cmdline
	check_eq "capture kernel: no reset of the machine since the crash" \
		"$(cmdline_value lu_resets)" "$(fwctl resets)"
	check "capture kernel: the driver binds" test -d $PKG
	check_eq "capture kernel: it found the crashed kernel's -80 mV on core" \
		-80 "$(cat $PKG/initial_core_offset_mv)"
	check_eq "capture kernel: the firmware holds 0 mV on every plane but uncore's +20 mV" \
		"$KDUMP_WORDS" "$(fw_words)"
	check_eq "capture kernel: core reads 0 mV" 0 "$(cat $PKG/core_offset_mv)"
	fwctl clear-log
	kmsg_mark kdump-write
	check_eq "capture kernel: a write is refused with EPERM" EPERM \
		"$(writefile $PKG/gpu_offset_mv -10)"
	check_eq "capture kernel: ... and sends no command" "" "$(fw_log)"
	check_grep "capture kernel: ... and says why" \
		"gpu offset write refused \(kdump\)" "$(dmesg_since kdump-write)"
	check "capture kernel: intel_undervolt unloads" rmmod intel_undervolt
	check_eq "capture kernel: the unload leaves that, not the crashed kernel's offsets" \
		"$KDUMP_WORDS" "$(fw_words)"
	check_no_splat
	finish
fi

check "the driver binds" test -d $PKG
check "intel_undervolt reloads with allow_overvolt" \
	sh -c 'rmmod intel_undervolt && modprobe intel_undervolt allow_overvolt=1'
check_eq "core -80" OK "$(writefile $PKG/core_offset_mv -80)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "uncore +20" OK "$(writefile $PKG/uncore_offset_mv 20)"
check_eq "the firmware holds core -80 mV" -80 "$(fw_offset_mv 0)"
check_eq "... and uncore +20 mV" 20 "$(fw_offset_mv 3)"
(cd / && find . -xdev | cpio -o -H newc > /tmp/initrd.cpio 2>/dev/null)
check "the capture kernel is loaded (kexec_file_load, on crash)" \
	kexecload crash /boot/bzImage /tmp/initrd.cpio \
	"$(sed 's/crashkernel=[^ ]*//' /proc/cmdline) nr_cpus=1 lu_stage=2 lu_resets=$(fwctl resets)"
[ $LIB_FAILED -eq 0 ] || finish
echo "# crash into the capture kernel"
# sysrq, not LKDTM: Debian's kernels (tests/host/dkms.sh) have no LKDTM
echo c > /proc/sysrq-trigger
fail "the crash returned"
finish
