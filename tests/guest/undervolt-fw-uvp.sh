#!/bin/sh
# qemu-run: --firmware uvp
# Undervolt Protection, 12th gen and later (the model's uvp profile,
# qemu/MODEL.md; Intel's article 000094219): IA32_ARCH_CAPABILITIES bit 23
# enumerates IA32_OVERCLOCKING_STATUS (MSR 0x195), whose bit 1 says so; a
# negative offset is acknowledged and not applied, zero and positive ones
# are. The driver never reports a negative offset that did not stick as
# set.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check_grep "CPUID enumerates IA32_ARCH_CAPABILITIES" "arch_capabilities" \
	"$(grep -m1 '^flags' /proc/cpuinfo)"
check_eq "IA32_ARCH_CAPABILITIES bit 23 enumerates MSR 0x195" 0x0000000000800000 \
	"$(msrtool read 0 0x10a)"
check_eq "IA32_OVERCLOCKING_STATUS bit 1: undervolt protection" \
	0x0000000000000002 "$(msrtool read 0 0x195)"
check "the driver binds" test -d $PKG
before=$(fw_words)
result=$(writefile $PKG/core_offset_mv -50)
check "a -50 mV core write is refused" test "$result" != OK
check_eq "the model kept every word" "$before" "$(fw_words)"
check_eq "sysfs reads 0 mV" 0 "$(cat $PKG/core_offset_mv)"
check_eq "a 0 mV write works" OK "$(writefile $PKG/gpu_offset_mv 0)"
check "intel_undervolt unloads" rmmod intel_undervolt
out=$(msrtool xfer 0 "0x80000111$(offset_word 20 0x48c16 | cut -c3-)")
check_eq "a raw +20 mV GPU write is applied" 20 "$(fw_offset_mv 1)"
check_eq "... and IA32_OVERCLOCKING_STATUS now says overclocking was used" \
	0x0000000000000003 "$(msrtool read 0 0x195)"
check_no_splat
finish
