#!/bin/sh
# Guest side of tests/host/dkms.sh: the DKMS build of intel_undervolt on
# one of Debian's stock kernels, which lack the linux-undervolt series, on
# a CPU with the OC mailbox model of our QEMU (qemu/MODEL.md, profile
# unlocked). What this checks is what the DKMS build changes: the module
# loads and binds on a stock kernel, the compat header's substitutes work
# (the model table's aliases, the sysfs placement, MSR 0x150, LOCKDOWN_MSR
# for LOCKDOWN_UNDERVOLT, syscore), and the out-of-tree taint. The driver's
# own guest tests then run against this kernel too.
#
# stock.sh KVER [resume]: KVER is the kernel expected to run; "resume" when
# the driver registers syscore callbacks (the resume restore is tested).
. /test/lib.sh

kver=$1
resume=${2:-}
sysfs=/sys/devices/system/cpu/intel_undervolt
pkg=$sysfs/package_00
TAINT_CPU_OUT_OF_SPEC=4
# The core and cache words with an offset of -100 mV: bits 31:21 = 0x79a
# (-102/1024 V), bits 20:0 kept from the boot words 0x0004cd2c, 0x0004cd28.
CORE_M100=0xf344cd2c
CACHE_M100=0xf344cd28

check_eq "the guest runs Debian's kernel" "$kver" "$(uname -r)"

# Two checks below look for a line that must not be in the kernel's list
# of built-in modules: a list that is missing, unreadable or empty would
# pass them for want of anything to look at, so it fails them instead.
builtin=/lib/modules/$kver/modules.builtin
builtin_list=$(cat "$builtin") || builtin_list=""
# not_builtin DESC PATTERN: no line of modules.builtin matches PATTERN.
not_builtin() {
	if [ -z "$builtin_list" ]; then
		fail "$1 ($builtin is missing, unreadable or empty)"
	else
		check_nogrep "$1" "$2" "$builtin_list"
	fi
}
not_builtin "the kernel lacks the series (no in-tree intel_undervolt)" 'intel_undervolt'

# fwctl reads the model through /dev/cpu/N/msr. Debian builds the msr
# driver as a module, which nothing loads by itself (the series' test
# kernel has it built in); tests/host/dkms.sh has the init's coldplug load
# it, and modprobe makes sure.
not_builtin "the stock kernel builds msr as a module (not built in)" '/msr\.ko'
check "modprobe msr" modprobe msr
check "/dev/cpu/0/msr exists" test -c /dev/cpu/0/msr
check "the CPU has the OC mailbox model" fwctl present

# The init's coldplug ran modprobe on the CPU's modalias: the model table
# (X86_MATCH_VFM with compat.h's INTEL_* values on 6.1) must match the
# guest's Skylake, and the driver binds on the model as on hardware.
check "coldplug bound intel_undervolt by its x86cpu alias: $pkg exists" test -d "$pkg"
if [ ! -d "$pkg" ]; then
	dmesg | grep intel_undervolt | sed 's/^/# /'
	modprobe intel_undervolt
fi
check_grep "the module is tainted out-of-tree (O)" O \
	"$(cat /sys/module/intel_undervolt/taint 2>/dev/null)"

# One write through the compat paths: MSR 0x150 of the model.
check_eq "the kernel is not tainted out-of-spec before a write" 0 \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
check_eq "the model's core word is its boot word" 0x0004cd2c "$(fwctl word 0)"
check_eq "core_offset_mv reads the firmware's boot offset" 0 "$(cat $pkg/core_offset_mv)"
fwctl clear-log
kmsg_mark write
check "echo -100 > core_offset_mv" sh -c "echo -100 > $pkg/core_offset_mv"
check_eq "core_offset_mv reads -100" -100 "$(cat $pkg/core_offset_mv)"
check_eq "cache_offset_mv reads -100 (coupled on Skylake)" -100 "$(cat $pkg/cache_offset_mv)"
log=$(fw_log)
check_grep "the mailbox saw the core write 0x80000011${CORE_M100#0x}" \
	"^0x80000011${CORE_M100#0x}\$" "$log"
check_grep "the mailbox saw the cache write 0x80000211${CACHE_M100#0x}" \
	"^0x80000211${CACHE_M100#0x}\$" "$log"
check_eq "the model's core word holds the offset" $CORE_M100 "$(fwctl word 0)"
check_eq "the model's cache word holds the offset" $CACHE_M100 "$(fwctl word 2)"
check_grep "the change is logged" 'core offset 0 mV -> -100 mV' "$(dmesg_since write)"
check_eq "a verified non-zero offset taints out-of-spec" $TAINT_CPU_OUT_OF_SPEC \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

fwctl clear-log
check "a write of '0x10' is refused" sh -c "! echo 0x10 > $pkg/core_offset_mv 2>/dev/null"
check_eq "a refused write sends no command" "" "$(fw_log)"

if [ "$resume" = resume ]; then
	# Real S3, woken by the RTC alarm: QEMU resets the machine on the way
	# back and the model forgets; syscore (through compat.h's shim on
	# kernels before the new syscore API) restores.
	resets=$(fwctl resets)
	echo none > /sys/power/pm_test 2>/dev/null
	echo deep > /sys/power/mem_sleep
	echo 0 > /sys/class/rtc/rtc0/wakealarm
	echo +2 > /sys/class/rtc/rtc0/wakealarm
	kmsg_mark suspend
	check "suspend to RAM (S3) and wake up" sh -c "echo mem > /sys/power/state"
	check_eq "the model saw one system reset" $((resets + 1)) "$(fwctl resets)"
	check_eq "the model's core word holds the offset again" $CORE_M100 "$(fwctl word 0)"
	check_eq "the model's cache word holds the offset again" $CACHE_M100 "$(fwctl word 2)"
	check_eq "core_offset_mv is restored after resume" -100 "$(cat $pkg/core_offset_mv)"
fi

check "rmmod intel_undervolt" rmmod intel_undervolt
check "the sysfs directory is gone after unload" test ! -e "$sysfs"
check "modprobe intel_undervolt binds again" sh -c "modprobe intel_undervolt && test -d $pkg"

# Lockdown: out of tree, LOCKDOWN_UNDERVOLT is LOCKDOWN_MSR.
word=$(fwctl word 0)
echo integrity > /sys/kernel/security/lockdown
kmsg_mark lockdown
fwctl clear-log
out=$(sh -c "echo -50 > $pkg/core_offset_mv" 2>&1)
check_grep "under lockdown=integrity a write fails with EPERM" \
	'[Oo]peration not permitted' "$out"
check_grep "the kernel names the reason it has: raw MSR access" \
	'Lockdown: .*raw MSR access is restricted' "$(dmesg_since lockdown)"
# (bits 39:32 of a logged command: 0x11 is a write)
check_nogrep "no write command reached the model" '^0x[0-9a-f]{6}11' "$(fw_log)"
check_eq "the model's core word is unchanged" "$word" "$(fwctl word 0)"
check_grep "reads still work under lockdown" '^-?[0-9]+$' "$(cat $pkg/core_offset_mv)"

finish
