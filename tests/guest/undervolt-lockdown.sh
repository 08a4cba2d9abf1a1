#!/bin/sh
# dkms: skip a stock kernel has no LOCKDOWN_UNDERVOLT; the DKMS build's lockdown is tests/dkms/stock.sh
# Under lockdown=integrity (set at run time) writes fail with EPERM, send
# no command to the mailbox, and reads keep working. A restore may only
# move an offset towards 0: the unload puts a deeper offset back to the
# initial one, S3 does not bring back an undervolt the firmware lost.
# fwctl only reads MSRs, which lockdown allows, so the firmware model
# stays observable. The series, and with it LOCKDOWN_UNDERVOLT, is in
# every test kernel.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
PARAMS=/sys/module/intel_undervolt/parameters
GPU20=$(offset_word -20 0x48c16)
GPU40=$(offset_word -40 0x48c16)

check "the sysfs directory exists" test -d $PKG
# An initial offset other than 0, as the firmware setup or other software
# would leave it: -20 mV on gpu, set with a raw mailbox write while no
# driver is bound.
check "intel_undervolt unloads" rmmod intel_undervolt
msrtool write 0 0x150 "0x80000111${GPU20#0x}"
check_eq "the firmware's gpu word holds -20 mV" "$GPU20" "$(fwctl word 1)"
check "intel_undervolt loads" modprobe intel_undervolt
check_eq "the initial gpu offset is the firmware's -20 mV" -20 "$(cat $PKG/initial_gpu_offset_mv)"
check_eq "before lockdown a write works: gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
check_eq "the firmware's gpu word holds -40 mV" "$GPU40" "$(fwctl word 1)"

check_eq "lockdown=integrity" OK "$(writefile /sys/kernel/security/lockdown integrity)"
fwctl clear-log
kmsg_mark locked
check_eq "under lockdown a core write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -50)"
check_eq "under lockdown a gpu write fails with EPERM, towards 0 too" EPERM \
	"$(writefile $PKG/gpu_offset_mv 0)"
check_eq "under lockdown the writes send no mailbox command" "" "$(fw_log)"
check_eq "the firmware's core word is still the fused word" 0x0004cd2c "$(fwctl word 0)"
check_eq "the firmware's gpu word keeps -40 mV" "$GPU40" "$(fwctl word 1)"
check_eq "under lockdown reads work: core reads the model's 0" 0 "$(cat $PKG/core_offset_mv)"
check_eq "under lockdown reads work: gpu reads the model's -40" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "under lockdown initial offsets read" -20 "$(cat $PKG/initial_gpu_offset_mv)"
log=$(dmesg_since 'TEST-MARK locked')
check_grep "the lockdown LSM names the reason" \
	"Lockdown: writefile: CPU voltage offset control is restricted" "$log"
check_grep "the driver names the reason" \
	"package 00: core offset write refused \(lockdown\): voltage offsets are read-only while the kernel is locked down" "$log"
# Reads never ask the lockdown LSM, which logs a line each time: a
# user's cat must not fill the log.
kmsg_mark user-read
check_eq "a user reads under lockdown: the model's -40" -40 "$(as_nobody "cat $PKG/gpu_offset_mv")"
check_nogrep "a user's read logs no lockdown line" "Lockdown:" "$(dmesg_since 'TEST-MARK user-read')"
check_eq "under lockdown max_undervolt_mv is still readable" 250 "$(cat $PARAMS/max_undervolt_mv)"

# The unload restores the initial offsets: -40 to -20 mV is towards 0,
# which lockdown lets a restore do.
kmsg_mark unload
fwctl clear-log
check "intel_undervolt unloads under lockdown" rmmod intel_undervolt
check_eq "the firmware's gpu word is back at the initial -20 mV" "$GPU20" "$(fwctl word 1)"
check_eq "the unload wrote that word" "0x80000111${GPU20#0x}" "$(fw_write_commands)"
check_grep "and logged it" "package 00: gpu offset -40 mV -> -20 mV by unload" \
	"$(dmesg_since 'TEST-MARK unload')"
check "intel_undervolt loads under lockdown" modprobe intel_undervolt
check_eq "it found the initial -20 mV again" -20 "$(cat $PKG/initial_gpu_offset_mv)"

# S3 resets the firmware to its fused words; bringing -20 mV back would be
# away from 0, which lockdown refuses to a restore as to a write.
fwctl clear-log
kmsg_mark s3
check "suspend to RAM (S3) under lockdown and wake up" s3
check_eq "the firmware's gpu word is the fused word, not -20 mV" 0x00048c16 "$(fwctl word 1)"
check_eq "no write command reached the model" "" "$(fw_write_commands)"
check_eq "gpu_offset_mv reads the model's 0" 0 "$(cat $PKG/gpu_offset_mv)"
check_grep "the driver says why it did not restore" \
	"package 00: resume: gpu offset not restored to -20 mV \(lockdown\)" "$(dmesg_since 'TEST-MARK s3')"

finish
