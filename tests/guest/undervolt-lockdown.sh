#!/bin/sh
# Under lockdown=integrity (set at run time) writes fail with EPERM, send
# no command to the mailbox, and reads keep working. fwctl only reads
# MSRs, which lockdown allows, so the firmware model stays observable.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
TAINT_CPU_OUT_OF_SPEC=4

check "the sysfs directory exists" test -d $PKG
check_eq "before lockdown a write works" OK "$(writefile $PKG/gpu_offset_mv -20)"
check_eq "the firmware's gpu word holds -20 mV" 0xfd848c16 "$(fwctl word 1)"
check_eq "lockdown=integrity" OK "$(writefile /sys/kernel/security/lockdown integrity)"
kmsg_mark locked
check_eq "under lockdown write_block_reason is lockdown" lockdown "$(cat $PKG/write_block_reason)"
# Only a reader that may write asks the lockdown LSM, which logs a line
# each time: a user's cat must not fill the log.
kmsg_mark user-read
check_eq "a user reads lockdown too" lockdown "$(as_nobody "cat $PKG/write_block_reason")"
check_nogrep "a user's read logs no lockdown line" "Lockdown:" "$(dmesg_since "TEST-MARK user-read")"
fwctl clear-log
check_eq "under lockdown a core write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -50)"
check_eq "under lockdown a gpu write fails with EPERM" EPERM "$(writefile $PKG/gpu_offset_mv 0)"
check_eq "under lockdown the writes send no mailbox command" "" "$(fw_log)"
check_eq "the firmware's core word is still the boot word" 0x0004cd2c "$(fwctl word 0)"
check_eq "the firmware's gpu word keeps -20 mV" -20 "$(fw_offset_mv 1)"
check_eq "under lockdown reads work (core)" 0 "$(cat $PKG/core_offset_mv)"
check_eq "under lockdown reads work (gpu keeps -20)" -20 "$(cat $PKG/gpu_offset_mv)"
check_eq "under lockdown boot offsets read" 0 "$(cat $PKG/core_boot_offset_mv)"
log=$(dmesg_since locked)
# The series adds LOCKDOWN_UNDERVOLT; out of tree (DKMS on a stock kernel)
# the driver falls back to LOCKDOWN_MSR, "raw MSR access".
case $(uname -r) in
*-undervolt-test*|*-undervolt-debug*) reason="CPU voltage offset control" ;;
*) reason="(CPU voltage offset control|raw MSR access)" ;;
esac
check_grep "the lockdown LSM names the reason" "Lockdown: .*$reason is restricted" "$log"
check_grep "the driver says what to do" "core offset write refused \(lockdown\)" "$log"
check_eq "under lockdown max_undervolt_mv is still readable" 250 \
	"$(cat /sys/module/intel_undervolt/parameters/max_undervolt_mv)"

# A restore is a write: after S3 under lockdown the driver does not put
# back the -20 mV it set before; the firmware keeps its boot word.
echo deep > /sys/power/mem_sleep
echo 0 > /sys/class/rtc/rtc0/wakealarm
echo +2 > /sys/class/rtc/rtc0/wakealarm
kmsg_mark s3
check "suspend to RAM (S3) under lockdown and wake up" sh -c 'echo mem > /sys/power/state'
check_eq "the firmware's gpu word is the boot word, not -20 mV" 0x00048c16 "$(fwctl word 1)"
check_eq "gpu_offset_mv reads 0" 0 "$(cat $PKG/gpu_offset_mv)"
check_grep "the driver says why it did not restore" \
	"package 00: resume: offsets not restored \(lockdown\)" "$(dmesg_since s3)"

finish
