#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=154
# Alder Lake (family 6 model 0x9a, INTEL_ALDERLAKE_L) with Undervolt
# Protection turned off in the firmware setup, as HX and desktop K parts
# allow (Intel's article 000094219; PowerMonkey on Alder Lake-S): the
# 12th generation enumerates IA32_OVERCLOCKING_STATUS (MSR 0x195, by
# IA32_ARCH_CAPABILITIES bit 23) with bit 1 clear, and offsets work on
# Ice Lake's planes. Then Undervolt Protection on (fwctl uvp on): the
# driver reads bit 1 before each write below the initial offset (0 mV
# here) and refuses it with EACCES; the restore after S3 tries its
# offset, which the firmware drops, and the log names Undervolt
# Protection.
. /test/lib.sh

newer_cpu_binds 154
check_eq "IA32_ARCH_CAPABILITIES bit 23 enumerates IA32_OVERCLOCKING_STATUS" \
	0x0000000000800000 "$(msrtool read 0 0x10a)"
check_eq "IA32_OVERCLOCKING_STATUS: undervolt protection off" \
	0x0000000000000000 "$(msrtool read 0 0x195)"
newer_cpu_writes

fwctl uvp on
check_eq "IA32_OVERCLOCKING_STATUS bit 1: undervolt protection on" \
	0x0000000000000002 "$(msrtool read 0 0x195)"
uvp_refuses
check_eq "a 0 mV core write still works" OK "$(writefile $NEWER_PKG/core_offset_mv 0)"

# An offset set before Undervolt Protection came on is tried again after
# S3, which puts the boot words back: the firmware acknowledges it and,
# -40 mV being below the boot offset of 0 mV, keeps the boot word. The
# driver says why.
fwctl uvp off
check_eq "with it off again, a -40 mV core write works" OK \
	"$(writefile $NEWER_PKG/core_offset_mv -40)"
check_eq "the model holds core -40" "$(offset_word -40 0x4cd2c)" "$(fwctl word 0)"
fwctl uvp on
fwctl clear-log
kmsg_mark s3
check "suspend to RAM (S3) and wake up" s3
check_grep "after S3 the restore of core -40 was dropped, and the log says uvp" \
	"package 00: resume: core offset not restored to -40 mV \(uvp\)" \
	"$(dmesg_since 'TEST-MARK s3')"
check_eq "the restore's core and cache -40 reached the model" \
	"$(mbox_cmd 0 0x11 "$(offset_word -40 0x4cd2c)") $(mbox_cmd 2 0x11 "$(offset_word -40 0x4cd28)")" \
	"$(echo $(fw_write_commands))"
check_eq "the model holds its fused words" "$FUSED_WORDS" "$(fw_words)"
check_no_splat
finish
