#!/bin/sh
# qemu-run: --firmware uvp,status=off
# Undervolt Protection, 12th gen and later (the model's uvp profile,
# qemu/MODEL.md; Intel's article 000094219), on a part that does not
# enumerate IA32_OVERCLOCKING_STATUS (x-oc-status=off: no
# IA32_ARCH_CAPABILITIES bit 23, MSR 0x195 faults): a negative offset is
# acknowledged and not applied, zero and positive ones are. The driver
# cannot know beforehand, and finds it in the read-back (EIO, "firmware
# ignored"), as for any write that does not stick. Where the MSR is
# enumerated the driver refuses first (EACCES): undervolt-cpu-alderlake.sh,
# undervolt-cpu-raptorlake-uvp.sh.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check_nogrep "CPUID does not enumerate IA32_ARCH_CAPABILITIES" "arch_capabilities" \
	"$(grep -m1 '^flags' /proc/cpuinfo)"
check_grep "IA32_OVERCLOCKING_STATUS (0x195) faults: not enumerated" \
	EIO "$(msrtool read 0 0x195 2>&1)"
check_eq "the model has undervolt protection on" \
	"lock=0 sgx=0 drop=0 busy=0 hint=0 uvp=1" "$(fwctl settings)"
check "the driver binds" test -d $PKG
fwctl clear-log
kmsg_mark uvp
check_eq "a -50 mV core write fails with EIO" EIO "$(writefile $PKG/core_offset_mv -50)"
check_eq "it reached the model" "0x80000011$(offset_word -50 0x4cd2c | cut -c3-)" \
	"$(fw_write_commands)"
check_eq "the model kept every word" "$FUSED_WORDS" "$(fw_words)"
check_grep "the driver says the firmware ignored it" \
	"package 00: firmware ignored the core offset write \(-50 mV, reads 0 mV\)" \
	"$(dmesg_since 'TEST-MARK uvp')"
check_eq "sysfs reads the model's 0 mV" 0 "$(cat $PKG/core_offset_mv)"
check_eq "a 0 mV write works" OK "$(writefile $PKG/gpu_offset_mv 0)"
# A non-zero offset taints before it reaches the firmware: refused or
# ignored, the writes above tried to change the voltage.
check_eq "the writes tried tainted the kernel out of spec" 4 $(( $(taint) & 4 ))
# No -s: the firmware takes no negative offset.
kselftest 0 -w
check "intel_undervolt unloads" rmmod intel_undervolt
out=$(msrtool xfer 0 "0x80000111$(offset_word 20 0x48c16 | cut -c3-)")
check_eq "a raw +20 mV GPU write is applied" "$(offset_word 20 0x48c16)" "$(fwctl word 1)"
check_grep "... and IA32_OVERCLOCKING_STATUS still faults" \
	EIO "$(msrtool read 0 0x195 2>&1)"
check_no_splat
finish
