#!/bin/sh
# qemu-run: --append "intel_undervolt.max_undervolt_mv=120"
# What refuses a write, and how (series v3): no CAP_SYS_RAWIO is EPERM;
# SGX enabled is EPERM before any command, with a log line; an OC lock is
# the firmware's answer, completion code 1: EACCES, and since the driver
# does not remember it, every later write is tried again. The bound comes
# from the kernel command line here (intel_undervolt.max_undervolt_mv).
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
TAINT_CPU_OUT_OF_SPEC=4

check "the sysfs directory exists" test -d $PKG
check_eq "the model holds the fused words" "$FUSED_WORDS" "$(fw_words)"
check_eq "no offset was set yet: the kernel is not tainted out of spec" 0 \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

# The kernel command line sets the bound when the driver loads.
check_eq "max_undervolt_mv is the command line's 120" 120 \
	"$(cat /sys/module/intel_undervolt/parameters/max_undervolt_mv)"
check_eq "min_offset_mv follows" -120 "$(cat $UV/min_offset_mv)"
fwctl clear-log
check_eq "-121 is out of range" ERANGE "$(writefile $PKG/gpu_offset_mv -121)"
check_eq "and sends no mailbox command" "" "$(fw_log)"

# CAP_SYS_RAWIO: a permission change does not hand undervolting to a user.
chmod 0666 $PKG/core_offset_mv
fwctl clear-log
check_eq "a user without CAP_SYS_RAWIO gets EPERM even with mode 0666" EPERM \
	"$(as_nobody "writefile $PKG/core_offset_mv -50" 2>&1)"
check_eq "and no mailbox command is sent" "" "$(fw_log)"
check_eq "the user can read: the model's 0" 0 "$(as_nobody "cat $PKG/core_offset_mv" 2>&1)"
chmod 0644 $PKG/core_offset_mv

# Reading costs the package nothing: no file of it, read by a user or by
# root, sends a command to the mailbox (the model logs every command).
fwctl clear-log
as_nobody "for i in 1 2 3 4 5; do cat $PKG/* > /dev/null; done"
check_eq "a user reading every file of the package 5 times sends no mailbox command" \
	"" "$(fw_log)"
for i in 1 2 3 4 5; do cat $PKG/* > /dev/null; done
check_eq "root reading every file of the package 5 times sends no mailbox command" \
	"" "$(fw_log)"

# SGX: refused by the kernel, before any command.
fwctl sgx on
check_eq "the firmware setup enables SGX" "lock=0 sgx=1 drop=0 busy=0 hint=0 uvp=0" "$(fwctl settings)"
fwctl clear-log
kmsg_mark sgx
check_eq "with SGX enabled a write fails with EPERM" EPERM "$(writefile $PKG/core_offset_mv -50)"
check_eq "with SGX enabled a write sends no mailbox command" "" "$(fw_log)"
check_grep "the refusal is logged with the reason and what to do" \
	"package 00: core offset write refused \(sgx\): disable SGX in the firmware setup" \
	"$(dmesg_since 'TEST-MARK sgx')"
check_eq "with SGX enabled reads work: the model's 0" 0 "$(cat $PKG/core_offset_mv)"
# OC lock on top: the kernel's refusal comes first, the firmware is not asked.
fwctl lock on
fwctl clear-log
check_eq "with SGX and the OC lock a write fails with EPERM (SGX first)" EPERM \
	"$(writefile $PKG/gpu_offset_mv -50)"
check_eq "and sends no mailbox command" "" "$(fw_log)"
fwctl sgx off
check_eq "the kernel's refusals do not taint" 0 $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

# OC lock. MSR 0x194 bit 20 is only a hint (firmware is known to set it
# and still take offsets): the driver tries the write, and the firmware's
# answer, completion code 1, is what refuses it.
fwctl clear-log
kmsg_mark oclock
check_eq "with the OC lock set a write fails with EACCES" EACCES "$(writefile $PKG/gpu_offset_mv -50)"
check_eq "the write reached the mailbox (the model answered code 1)" \
	0x80000111f9a48c16 "$(fw_write_commands 0)"
check_eq "the firmware's gpu word is unchanged" 0x00048c16 "$(fwctl word 1)"
check_grep "the refusal is logged with the reason and what to do" \
	"package 00: gpu offset write refused \(oc_lock\): the firmware locked overclocking; unlock it in the firmware setup" \
	"$(dmesg_since 'TEST-MARK oclock')"
check_eq "with the OC lock set reads work: the model's 0" 0 "$(cat $PKG/gpu_offset_mv)"
# The driver keeps no lock state: the next write asks the firmware again.
fwctl clear-log
check_eq "a second write fails with EACCES too" EACCES "$(writefile $PKG/core_offset_mv -50)"
check_eq "it reached the mailbox too" 0x80000011f9a4cd2c "$(fw_write_commands 0)"
check_eq "the firmware's core word is unchanged" 0x0004cd2c "$(fwctl word 0)"
check_eq "writes sent to the firmware taint before they reach it, refused or not" \
	$TAINT_CPU_OUT_OF_SPEC $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
fwctl lock off
check_eq "once the firmware takes writes again, they work at once" OK \
	"$(writefile $PKG/gpu_offset_mv -50)"
check_eq "the firmware's gpu word holds -50 mV" 0xf9a48c16 "$(fwctl word 1)"
check_eq "the kernel stays tainted" $TAINT_CPU_OUT_OF_SPEC $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

# Completion code 1 (OC locked) from the firmware, for a write while MSR
# 0x194 says unlocked: that write fails, the next one is tried.
fwctl inject-write 1 1
kmsg_mark code1
check_eq "completion code 1 fails the write with EACCES" EACCES "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "the firmware answered the write" none "$(fwctl injection)"
check_eq "the firmware's gpu word keeps -50 mV" 0xf9a48c16 "$(fwctl word 1)"
check_eq "MSR 0x194 still says unlocked" "lock=0 sgx=0 drop=0 busy=0 hint=0 uvp=0" "$(fwctl settings)"
check_grep "code 1 is logged as the OC lock" "package 00: gpu offset write refused \(oc_lock\)" \
	"$(dmesg_since 'TEST-MARK code1')"
check_eq "after code 1 reads work: the model's -50" -50 "$(cat $PKG/gpu_offset_mv)"
fwctl clear-log
check_eq "after code 1 the next write works" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "the firmware's gpu word holds -30 mV" "$(offset_word -30 0x48c16)" "$(fwctl word 1)"

finish
