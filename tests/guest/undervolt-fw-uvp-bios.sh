#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=154 --firmware uvp,boot-words=zero,bios-core=-80,bios-cache=-80
# Undervolt Protection on an Alder Lake (model 0x9a) whose firmware setup
# undervolts core and cache by 80 mV at every boot. Intel's article
# 000094219: the protection keeps the voltage at or above the one the
# setup programmed, and undervolting from the setup keeps working. So
# the model drops only negative offsets below the boot word's (raw
# commands at the end check the model itself), and the driver refuses
# only those: writing the offset in force, moving towards 0 and back to
# the setup's offset all work, and unload gives the firmware the setup's
# offset back. Every expectation is a literal of this configuration.
. /test/lib.sh

# Bits 20:0 zero; -80 mV is -82/1024 V: 0x7ae << 21.
BOOT="0xf5c00000 0x00000000 0xf5c00000 0x00000000 0x00000000"

newer_cpu_binds 154
check_eq "the model's reset words are the setup's" "$BOOT" "$(fwctl boot-words)"
check_eq "undervolt protection is on in the model" \
	"lock=0 sgx=0 drop=0 busy=0 hint=0 uvp=1" "$(fwctl settings)"
check_eq "IA32_OVERCLOCKING_STATUS bit 1 says so" 2 \
	$(( $(msrtool read 0 0x195) & 2 ))
check_eq "the initial core offset is the setup's -80 mV" -80 \
	"$(cat $NEWER_PKG/initial_core_offset_mv)"
check_eq "core reads -80 mV" -80 "$(cat $NEWER_PKG/core_offset_mv)"

fwctl clear-log
check_eq "writing the -80 mV in force works" OK \
	"$(writefile $NEWER_PKG/core_offset_mv -80)"
check_eq "... and sends no write command" "" "$(fw_write_commands)"
check_eq "-50 mV, towards 0, works" OK "$(writefile $NEWER_PKG/core_offset_mv -50)"
check_eq "the model holds core and cache -50 mV" \
	"0xf9a00000 0xf9a00000" "$(fwctl word 0) $(fwctl word 2)"

fwctl clear-log
kmsg_mark below
check_eq "-90 mV, below the setup's -80, fails with EACCES" EACCES \
	"$(writefile $NEWER_PKG/core_offset_mv -90)"
check_eq "... before any mailbox command" "" "$(fw_log)"
check_eq "one log line names Undervolt Protection" 1 \
	"$(dmesg_since 'TEST-MARK below' | grep -c 'package 00: core offset write refused (uvp): Undervolt Protection is on')"
check_eq "the model still holds -50 mV" "0xf9a00000 0xf9a00000" \
	"$(fwctl word 0) $(fwctl word 2)"
check_eq "-80 mV, the setup's, works again" OK \
	"$(writefile $NEWER_PKG/core_offset_mv -80)"
check_eq "the model holds the setup's words" "$BOOT" "$(fw_words)"
# The selftest writes back what each file reads: -80 mV on core and cache.
kselftest 0 -w
check_eq "0 mV works" OK "$(writefile $NEWER_PKG/core_offset_mv 0)"
check_eq "the model holds core and cache 0 mV" "0x00000000 0x00000000" \
	"$(fwctl word 0) $(fwctl word 2)"

kmsg_mark unload
check "intel_undervolt unloads" rmmod intel_undervolt
check_eq "unload gave the firmware the setup's -80 mV back" "$BOOT" "$(fw_words)"
check_nogrep "... with no restore refused or dropped" "not restored" \
	"$(dmesg_since 'TEST-MARK unload')"

# The model itself, through raw commands now that the mailbox is free.
msrtool xfer 0 "$(mbox_cmd 0 0x11 "$(offset_word -90 0)")" >/dev/null
check_eq "raw: -90 mV, below the boot word, is not applied" 0xf5c00000 \
	"$(fwctl word 0)"
msrtool xfer 0 "$(mbox_cmd 0 0x11 "$(offset_word -50 0)")" >/dev/null
check_eq "raw: -50 mV, between it and 0, is" 0xf9a00000 "$(fwctl word 0)"
check_no_splat
finish
