#!/bin/sh
# Guest side of tests/host/dkms.sh: the DKMS build of intel_undervolt (with
# the emulated firmware, intel_undervolt.emulate=1 on the command line) on
# one of Debian's stock kernels, which lack the linux-undervolt series.
# What this checks is what the DKMS build changes: the module loads and
# binds on a stock kernel, the compat header's substitutes work (the model
# table's aliases, the sysfs placement, MSR 0x150, LOCKDOWN_MSR for
# LOCKDOWN_UNDERVOLT, syscore), and the out-of-tree taint. The driver's own
# guest tests then run against this kernel too.
#
# stock.sh KVER [resume]: KVER is the kernel expected to run; "resume" when
# the driver registers syscore callbacks (the resume restore is tested).
. /test/lib.sh

kver=$1
resume=${2:-}
sysfs=/sys/devices/system/cpu/intel_undervolt
pkg=$sysfs/package_00
emu=/sys/kernel/debug/intel_undervolt_emu
TAINT_CPU_OUT_OF_SPEC=4

check_eq "the guest runs Debian's kernel" "$kver" "$(uname -r)"
check_nogrep "the kernel lacks the series (no in-tree intel_undervolt)" \
	'intel_undervolt' "$(cat "/lib/modules/$kver/modules.builtin" 2>/dev/null)"

# The init's coldplug ran modprobe on the CPU's modalias: the model table
# (X86_MATCH_VFM with compat.h's INTEL_* values on 6.1) must match the
# guest's Skylake, and with emulate=1 the driver loads the emulated
# firmware on demand (request_module, symbol_get) and binds.
check "coldplug bound intel_undervolt by its x86cpu alias: $pkg exists" test -d "$pkg"
check "the emulated firmware was loaded on demand" test -f "$emu/plane0"
if [ ! -d "$pkg" ]; then
	dmesg | grep intel_undervolt | sed 's/^/# /'
	modprobe intel_undervolt_emu
	modprobe intel_undervolt
fi
check_grep "the module is tainted out-of-tree (O)" O \
	"$(cat /sys/module/intel_undervolt/taint 2>/dev/null)"
check_eq "the module was loaded with emulate=1" Y \
	"$(cat /sys/module/intel_undervolt/parameters/emulate 2>/dev/null)"

# One write through the compat paths: MSR 0x150 of the emulated firmware.
check_eq "the kernel is not tainted out-of-spec before a write" 0 \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
check_eq "core_offset_mv reads the firmware's boot offset" 0 "$(cat $pkg/core_offset_mv)"
plane0=$(cat $emu/plane0)
echo > $emu/log
kmsg_mark write
check "echo -100 > core_offset_mv" sh -c "echo -100 > $pkg/core_offset_mv"
check_eq "core_offset_mv reads -100" -100 "$(cat $pkg/core_offset_mv)"
check_eq "cache_offset_mv reads -100 (coupled on Skylake)" -100 "$(cat $pkg/cache_offset_mv)"
# Bits 31:21 = 0x79a (-100 mV), bits 20:0 kept from the firmware's word.
word=$(printf '0x80000011%08x' $(( 0xf3400000 | (plane0 & 0x1fffff) )))
check_grep "the emulated mailbox saw the core write $word" "^$word\$" "$(cat $emu/log)"
check_eq "the firmware's core word holds the offset" \
	"$(printf '0x%08x' $(( 0xf3400000 | (plane0 & 0x1fffff) )))" "$(cat $emu/plane0)"
check_grep "the change is logged" 'core offset 0 mV -> -100 mV' "$(dmesg_since write)"
check_eq "a verified non-zero offset taints out-of-spec" $TAINT_CPU_OUT_OF_SPEC \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

echo > $emu/log
check "a write of '0x10' is refused" sh -c "! echo 0x10 > $pkg/core_offset_mv 2>/dev/null"
check_eq "a refused write sends no command" "" "$(cat $emu/log)"

if [ "$resume" = resume ]; then
	# The emulated firmware forgets at suspend; syscore (through compat.h's
	# shim on kernels before the new syscore API) restores.
	echo core > /sys/power/pm_test
	grep -q deep /sys/power/mem_sleep && echo deep > /sys/power/mem_sleep
	kmsg_mark suspend
	check "a suspend/resume cycle (pm_test=core)" sh -c "echo mem > /sys/power/state"
	echo none > /sys/power/pm_test
	check_eq "core_offset_mv is restored after resume" -100 "$(cat $pkg/core_offset_mv)"
fi

check "rmmod intel_undervolt" rmmod intel_undervolt
check "the sysfs directory is gone after unload" test ! -e "$sysfs"
check "modprobe intel_undervolt binds again" sh -c "modprobe intel_undervolt && test -d $pkg"

# Lockdown: out of tree, LOCKDOWN_UNDERVOLT is LOCKDOWN_MSR.
echo integrity > /sys/kernel/security/lockdown
kmsg_mark lockdown
out=$(sh -c "echo -50 > $pkg/core_offset_mv" 2>&1)
check_grep "under lockdown=integrity a write fails with EPERM" \
	'[Oo]peration not permitted' "$out"
check_grep "the kernel names the reason it has: raw MSR access" \
	'Lockdown: .*raw MSR access is restricted' "$(dmesg_since lockdown)"
check_grep "reads still work under lockdown" '^-?[0-9]+$' "$(cat $pkg/core_offset_mv)"

finish
