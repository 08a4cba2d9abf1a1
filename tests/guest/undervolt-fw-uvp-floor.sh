#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=154 --firmware uvp,boot-words=zero,bios-core=-80,bios-cache=-80
# Undervolt Protection where the driver's floor, the offset a plane had
# when it bound, is not the firmware's (the boot word's, -80 mV here):
# offsets written raw while the protection was off, before the driver
# loads. Three cases, each with the protection back on:
# - both planes start below the firmware's floor (-100 mV): the driver
#   sends -90, the model does not apply it, and the write fails with
#   EACCES naming Undervolt Protection, not EIO;
# - core and cache start apart (-100, -30): a core write of -50 would
#   take cache below its initial offset, and is refused before any
#   command, the log naming cache;
# - core starts at -64/1024 V, shown as -63 mV: writing back the -63 that
#   initial_core_offset_mv shows sets those units, not the nearest -65,
#   and is not refused.
# Every expectation is a literal of this configuration, read from the
# model, never from the driver.
. /test/lib.sh

# raw_words CORE CACHE: with the driver unloaded and the protection off,
# write the two data words raw, then turn the protection on and load the
# driver again.
raw_words() {
	rmmod intel_undervolt 2>/dev/null
	fwctl uvp off
	msrtool xfer 0 "$(mbox_cmd 0 0x11 "$1")" >/dev/null
	msrtool xfer 0 "$(mbox_cmd 2 0x11 "$2")" >/dev/null
	fwctl uvp on
	modprobe intel_undervolt
}

newer_cpu_binds 154
check_eq "the model's reset words are the setup's -80 mV" \
	"0xf5c00000 0x00000000 0xf5c00000 0x00000000 0x00000000" "$(fwctl boot-words)"

# Both planes at -100 mV, 20 below the firmware's floor.
raw_words "$(offset_word -100 0)" "$(offset_word -100 0)"
check_eq "the model holds core and cache -100 mV" \
	"$(offset_word -100 0) $(offset_word -100 0)" "$(fwctl word 0) $(fwctl word 2)"
check_eq "the driver took -100 mV for the initial core offset" -100 \
	"$(cat $NEWER_PKG/initial_core_offset_mv)"
fwctl clear-log
kmsg_mark dropped
check_eq "-90 mV, above the initial offset, fails with EACCES" EACCES \
	"$(writefile $NEWER_PKG/core_offset_mv -90)"
check_eq "... after the driver sent it" "$(mbox_cmd 0 0x11 "$(offset_word -90 0)")" \
	"$(fw_write_commands)"
check_eq "... and the model did not apply it" \
	"$(offset_word -100 0) $(offset_word -100 0)" "$(fwctl word 0) $(fwctl word 2)"
check_grep "the log says the write was not applied (uvp)" \
	"package 00: core offset write not applied \(uvp\): Undervolt Protection is on" \
	"$(dmesg_since 'TEST-MARK dropped')"
check_eq "core still reads -100 mV" -100 "$(cat $NEWER_PKG/core_offset_mv)"

# Core at -100, cache at -30 mV.
raw_words "$(offset_word -100 0)" "$(offset_word -30 0)"
check_eq "the driver took -30 mV for the initial cache offset" -30 \
	"$(cat $NEWER_PKG/initial_cache_offset_mv)"
fwctl clear-log
kmsg_mark partner
check_eq "core -50, which would take cache below -30, fails with EACCES" EACCES \
	"$(writefile $NEWER_PKG/core_offset_mv -50)"
check_eq "... before any mailbox command" "" "$(fw_log)"
check_eq "one log line names cache and its initial offset" 1 \
	"$(dmesg_since 'TEST-MARK partner' | grep -c 'package 00: core offset write refused (uvp): it would take cache below its initial -30 mV; Undervolt Protection is on')"
check_eq "the model holds core -100 and cache -30 mV" \
	"$(offset_word -100 0) $(offset_word -30 0)" "$(fwctl word 0) $(fwctl word 2)"

# Core at -64/1024 V (0x7c0 << 21), cache at -100 mV.
raw_words 0xf8000000 "$(offset_word -100 0)"
check_eq "the initial core offset shows -64/1024 V as -63 mV" -63 \
	"$(cat $NEWER_PKG/initial_core_offset_mv)"
check_eq "core 0 mV works" OK "$(writefile $NEWER_PKG/core_offset_mv 0)"
check_eq "core -63 mV, the initial offset shown, works" OK \
	"$(writefile $NEWER_PKG/core_offset_mv -63)"
check_eq "the model holds core -64/1024 V again, and cache -63 mV" \
	"0xf8000000 $(offset_word -63 0)" "$(fwctl word 0) $(fwctl word 2)"
check_no_splat
finish
