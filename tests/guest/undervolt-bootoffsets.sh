#!/bin/sh
# qemu-run: --append "intel_undervolt.offsets=core:-80,gpu:-40,bogus,vccin:-5,uncore:-300,analogio:5,,uncore:-20x"
# Boot-time offsets go through the validation of a sysfs write: good
# entries apply, malformed or refused ones are logged and skipped.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
PARAMS=/sys/module/intel_undervolt/parameters

log=$(dmesg)
check "the driver bound despite bad entries" test -d $PKG
check_eq "the parameter reads back" "core:-80,gpu:-40,bogus,vccin:-5,uncore:-300,analogio:5,,uncore:-20x" \
	"$(cat $PARAMS/offsets)"
check_eq "core:-80 applied" -80 "$(cat $PKG/core_offset_mv)"
check_eq "cache follows core (coupled)" -80 "$(cat $PKG/cache_offset_mv)"
check_eq "gpu:-40 applied" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware's gpu word holds -40 mV" 0xfae48c16 "$(fwctl word 1)"
check_eq "uncore:-300 refused (beyond max_undervolt_mv)" 0 "$(cat $PKG/uncore_offset_mv)"
check_eq "analogio:5 refused (no allow_overvolt)" 0 "$(cat $PKG/analogio_offset_mv)"
check_eq "the firmware holds core and cache -80 mV, gpu -40 mV, the rest boot words" \
	"0xf5c4cd2c 0xfae48c16 0xf5c4cd28 0x00043312 0x00040001" "$(fw_words)"
check_eq "boot offsets stay what the firmware had" 0 "$(cat $PKG/core_boot_offset_mv)"
check_grep "bogus is logged" 'offsets: skipping "bogus": not PLANE:MV' "$log"
check_grep "an unknown plane is logged" 'offsets: skipping "vccin:-5"' "$log"
check_grep "a trailing garbage entry is logged" 'offsets: skipping "uncore:-20x"' "$log"
check_grep "uncore:-300 is logged as refused" 'offsets: package 00: skipping "uncore:-300": refused \(-34\)' "$log"
check_grep "analogio:5 is logged as refused" 'offsets: package 00: skipping "analogio:5": refused \(-34\)' "$log"
check_grep "the change is logged like a sysfs write" "package 00: core offset 0 mV -> -80 mV" "$log"
check_eq "the parameter is read-only at run time" 444 "$(stat -c %a $PARAMS/offsets)"

# The boot offsets are remembered like sysfs writes: restored after resume.
# pm_test=core resets nothing, so the package loses its words on demand
# first, as in S3.
fwctl forget
check_eq "the package lost its offsets" \
	"0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001" "$(fw_words)"
[ -w /sys/module/suspend/parameters/pm_test_delay ] &&
	echo 0 > /sys/module/suspend/parameters/pm_test_delay
echo core > /sys/power/pm_test
kmsg_mark suspend
check "suspend with pm_test=core" sh -c "echo mem > /sys/power/state"
echo none > /sys/power/pm_test
check_eq "core restored after resume" -80 "$(cat $PKG/core_offset_mv)"
check_eq "gpu restored after resume" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware holds the boot offsets again" \
	"0xf5c4cd2c 0xfae48c16 0xf5c4cd28 0x00043312 0x00040001" "$(fw_words)"
check_grep "the restore is logged" \
	"package 00: resume: restored core 0->-80 mV gpu 0->-40 mV cache 0->-80 mV" \
	"$(dmesg_since 'TEST-MARK suspend')"

# Unload writes back the words from before the boot offsets.
check "intel_undervolt unloads" rmmod intel_undervolt
check_eq "core word back to boot" 0x0004cd2c "$(fwctl word 0)"
check_eq "gpu word back to boot" 0x00048c16 "$(fwctl word 1)"
check_eq "cache word back to boot" 0x0004cd28 "$(fwctl word 2)"

check_no_splat
finish
