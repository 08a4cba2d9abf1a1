#!/bin/sh
# qemu-run: --cpu Skylake-Client,-hypervisor,model=183 --firmware uvp
# Raptor Lake (family 6 model 0xb7, INTEL_RAPTORLAKE) as it ships, with
# Undervolt Protection on (Intel's article 000094219: on by default;
# ThrottleStop on an i9-13980HX shows "Undervolt Protection" and the
# offset stays 0): IA32_OVERCLOCKING_STATUS bit 1 set. A negative write
# is refused with EACCES before any mailbox command, one log line names
# UVP and the firmware setup option, undervoltctl status says so; zero
# and positive offsets are written. Then with it off (fwctl uvp off, as
# the HX parts' setup allows: XMG's i9-13900HX) offsets work.
. /test/lib.sh

newer_cpu_binds 183
check_eq "IA32_ARCH_CAPABILITIES bit 23 enumerates IA32_OVERCLOCKING_STATUS" \
	0x0000000000800000 "$(msrtool read 0 0x10a)"
check_eq "IA32_OVERCLOCKING_STATUS bit 1: undervolt protection on" \
	0x0000000000000002 "$(msrtool read 0 0x195)"
uvp_refuses
check_eq "the refused writes did not taint the kernel out of spec" 0 \
	$(( $(taint) & 4 ))

undervoltctl status >/tmp/out 2>&1
rc=$?
out=$(cat /tmp/out)
check_eq "undervoltctl status exits 5: the firmware refuses" 5 "$rc"
check_grep "status names Undervolt Protection from MSR 0x195" \
	'^hint: +Undervolt Protection is on \(MSR 0x195 bit 1\)' "$out"
check_grep "status: package 0 refused (uvp), with the firmware setup option" \
	'^package 0: not writable \(uvp\): Undervolt Protection .*firmware setup' "$out"

check "intel_undervolt unloads" rmmod intel_undervolt
check "it loads again with allow_overvolt=1" modprobe intel_undervolt allow_overvolt=1
fwctl clear-log
check_eq "a +20 mV gpu write works under Undervolt Protection" OK \
	"$(writefile $NEWER_PKG/gpu_offset_mv 20)"
check_eq "the model holds gpu +20" "$(offset_word 20 0x48c16)" "$(fwctl word 1)"
check_eq "IA32_OVERCLOCKING_STATUS bit 0: overclocking used" \
	0x0000000000000003 "$(msrtool read 0 0x195)"
check_eq "a 0 mV gpu write works" OK "$(writefile $NEWER_PKG/gpu_offset_mv 0)"
check_eq "the model holds the fused gpu word again" 0x00048c16 "$(fwctl word 1)"
check_eq "both reached the model as write commands" \
	"0x80000111$(offset_word 20 0x48c16 | cut -c3-) 0x8000011100048c16" \
	"$(echo $(fw_write_commands))"

fwctl uvp off
check_eq "IA32_OVERCLOCKING_STATUS: undervolt protection off" \
	0x0000000000000000 "$(msrtool read 0 0x195)"
newer_cpu_writes
check_no_splat
finish
