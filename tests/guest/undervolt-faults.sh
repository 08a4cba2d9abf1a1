#!/bin/sh
# Each fault of the firmware model (qemu/MODEL.md) maps to its errno
# (series v3): writes that are dropped, completion codes, a busy bit that
# never clears. What the firmware holds afterwards is read from the model,
# what it was sent from its command log, never from the driver.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
TAINT_CPU_OUT_OF_SPEC=4
GPU_READ=0x8000011000000000

out_of_spec() {
	echo $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
}

check "the sysfs directory exists" test -d $PKG
check_eq "no injection is armed" none "$(fwctl injection)"
check_eq "the model holds the fused words" "$FUSED_WORDS" "$(fw_words)"
# The taint checks below mean something only on a kernel no offset has
# tainted yet: this boot's first writes are the dropped ones.
check_eq "a fresh boot: not tainted out of spec" 0 "$(out_of_spec)"

# drop: acknowledged but ignored; the read-back catches it. These are the
# first writes of the boot, so a taint now could only come from them.
fwctl drop on
check_eq "the model drops writes" "lock=0 sgx=0 drop=1 busy=0 hint=0 uvp=0" "$(fwctl settings)"
fwctl clear-log
kmsg_mark drop
check_eq "a dropped write fails with EIO" EIO "$(writefile $PKG/uncore_offset_mv -60)"
check_eq "it was read, written and read back" \
	"0x8000031000000000 0x80000311$(offset_word -60 0x43312 | cut -c3-) 0x8000031000000000" \
	"$(echo $(fw_log))"
check_eq "the firmware kept the fused uncore word" 0x00043312 "$(fwctl word 3)"
check_eq "sysfs reads the 0 mV the firmware read back" 0 "$(cat $PKG/uncore_offset_mv)"
check_grep "the ignored write is logged" \
	"package 00: firmware ignored the uncore offset write \(-60 mV, reads 0 mV\)" \
	"$(dmesg_since 'TEST-MARK drop')"
check_nogrep "a dropped write is not logged as a change" "uncore offset 0 mV -> -60 mV" \
	"$(dmesg_since 'TEST-MARK drop')"
fwctl clear-log
check_eq "a dropped coupled write fails with EIO" EIO "$(writefile $PKG/core_offset_mv -60)"
check_eq "the firmware kept the fused core and cache words" "0x0004cd2c 0x0004cd28" \
	"$(fwctl word 0) $(fwctl word 2)"
check_eq "only core was tried: the cache write never went out" \
	"0x80000011$(offset_word -60 0x4cd2c | cut -c3-)" "$(fw_write_commands)"
check_eq "a non-zero write taints before it reaches the firmware, dropped or not" \
	$TAINT_CPU_OUT_OF_SPEC "$(out_of_spec)"
fwctl drop off
check_eq "writes work again" OK "$(writefile $PKG/uncore_offset_mv -60)"
check_eq "the firmware's uncore word holds -60 mV" "$(offset_word -60 0x43312)" "$(fwctl word 3)"
check_eq "the kernel stays tainted" $TAINT_CPU_OUT_OF_SPEC "$(out_of_spec)"
check_eq "uncore back to 0" OK "$(writefile $PKG/uncore_offset_mv 0)"

# expect_code CODE ERRNO: the next command, the read of a gpu write,
# completes with CODE. The write fails with ERRNO and goes no further;
# the driver no longer knows the offset, so the next read of the file
# asks the firmware once (failing with ENODATA if that fails too), and
# the one after it, answered, shows the offset again.
expect_code() {
	fwctl inject $1
	check_eq "injection reads $1 x1" "$1 x1" "$(fwctl injection)"
	fwctl clear-log
	check_eq "completion code $1 fails a write with $2" "$2" \
		"$(writefile $PKG/gpu_offset_mv -30)"
	check_eq "code $1 lasts one command" none "$(fwctl injection)"
	check_eq "code $1: the write stopped at its read" $GPU_READ "$(fw_log)"
	check_eq "code $1: the firmware's gpu word is the fused one" 0x00048c16 "$(fwctl word 1)"
	fwctl inject $1
	fwctl clear-log
	check_eq "code $1: a read asks the firmware, which fails it again: ENODATA" ENODATA \
		"$(read_sysfs $PKG/gpu_offset_mv)"
	check_eq "code $1: that read sent one read command" $GPU_READ "$(fw_log)"
	check_eq "code $1: which took the injection" none "$(fwctl injection)"
	fwctl clear-log
	check_eq "code $1: the next read asks again and shows the model's 0" 0 \
		"$(read_sysfs $PKG/gpu_offset_mv)"
	check_eq "code $1: with one read command" $GPU_READ "$(fw_log)"
	fwctl clear-log
	check_eq "code $1: a read of a known offset sends nothing" "0 " \
		"$(read_sysfs $PKG/gpu_offset_mv) $(fw_log)"
}

# Intel's reference code names the codes. 2, 5 and 0x1f say the firmware
# does not do it: EOPNOTSUPP. The driver checks what it sends, so a code
# that blames the data (3, 4: above a limit; 0x10: invalid parameter) is
# the firmware's fault, not the writer's: EIO, like every other code, and
# the code is logged as it came. EINVAL and ERANGE only mean bad input.
kmsg_mark code2
expect_code 2 EOPNOTSUPP
check_grep "code 2's refusal is logged with its reason" \
	"package 00: gpu offset write refused \(unsupported\)" "$(dmesg_since 'TEST-MARK code2')"
kmsg_mark code3
expect_code 3 EIO
check_grep "code 3 is logged raw" \
	"package 00: command 0x10 on plane 1: completion code 0x03" "$(dmesg_since 'TEST-MARK code3')"
expect_code 4 EIO
expect_code 5 EOPNOTSUPP
expect_code 6 EIO
kmsg_mark code7
expect_code 7 EIO
check_grep "code 7 is logged raw" \
	"package 00: command 0x10 on plane 1: completion code 0x07" "$(dmesg_since 'TEST-MARK code7')"
expect_code 8 EIO
expect_code 16 EIO
# 0x1f: the command is not recognised (Tiger Lake and later answer it).
expect_code 31 EOPNOTSUPP
# The driver's warnings are rate-limited (printk's default, 10 in 5 s),
# and the codes above logged more: let the window pass.
sleep 5
kmsg_mark code255
expect_code 255 EIO
check_grep "code 0xff is logged raw" \
	"package 00: command 0x10 on plane 1: completion code 0xff" "$(dmesg_since 'TEST-MARK code255')"

# "CODE write PLANE": only the next write to that plane fails. The
# firmware may or may not have taken it, so the driver reads the plane
# again: it knows the offset the firmware holds.
fwctl inject-write 3 3
check_eq "injection reads 3 write 3" "3 write 3" "$(fwctl injection)"
check_eq "reads pass a write fault: uncore reads the model's 0" 0 "$(cat $PKG/uncore_offset_mv)"
check_eq "writes to other planes pass a write fault" OK "$(writefile $PKG/gpu_offset_mv -20)"
check_eq "the injection is still armed" "3 write 3" "$(fwctl injection)"
fwctl clear-log
check_eq "the write to the plane fails with EIO" EIO "$(writefile $PKG/uncore_offset_mv -40)"
check_eq "the write injection lasts one write" none "$(fwctl injection)"
check_eq "the write was tried: read, refused write, read again" \
	"0x8000031000000000 0x80000311$(offset_word -40 0x43312 | cut -c3-) 0x8000031000000000" "$(echo $(fw_log))"
check_eq "the firmware's uncore word is the fused one" 0x00043312 "$(fwctl word 3)"
check_eq "uncore reads the model's 0" 0 "$(cat $PKG/uncore_offset_mv)"

# Coupled planes: cache (plane 2) failing puts core (plane 0) back.
fwctl inject-write 7 2
fwctl clear-log
kmsg_mark coupled
check_eq "a coupled write failing on cache fails with EIO" EIO "$(writefile $PKG/core_offset_mv -40)"
core40=$(offset_word -40 0x4cd2c | cut -c3-)
check_eq "core set, cache refused and read again, core put back: the command log" \
	"0x8000001000000000 0x80000011$core40 0x8000001000000000 0x8000021000000000 0x80000211$(offset_word -40 0x4cd28 | cut -c3-) 0x8000021000000000 0x8000001000000000 0x800000110004cd2c 0x8000001000000000" \
	"$(echo $(fw_log))"
check_eq "the firmware's core and cache words are the fused ones" "0x0004cd2c 0x0004cd28" \
	"$(fwctl word 0) $(fwctl word 2)"
check_eq "core and cache read the model's 0" "0 0" \
	"$(cat $PKG/core_offset_mv) $(cat $PKG/cache_offset_mv)"
check_nogrep "the change that was undone is not logged" "core offset 0 mV -> -40 mV" \
	"$(dmesg_since 'TEST-MARK coupled')"
writefile $PKG/gpu_offset_mv 0 >/dev/null

# busy: the busy bit of the next command never clears. The driver gives
# up on that command (the read of the write) and sends nothing more.
fwctl busy on
check_eq "the model holds the busy bit" "lock=0 sgx=0 drop=0 busy=1 hint=0 uvp=0" "$(fwctl settings)"
fwctl clear-log
kmsg_mark busy
check_eq "a stuck busy bit fails a write with ETIMEDOUT" ETIMEDOUT \
	"$(writefile $PKG/gpu_offset_mv -30)"
check_eq "with the busy bit stuck only the read went out" $GPU_READ "$(fw_log)"
check_grep "the timeout is logged" \
	"package 00: command 0x10 on plane 1: the firmware stayed busy \(-110\)" "$(dmesg_since 'TEST-MARK busy')"
check_eq "the read failed: a read of gpu_offset_mv fails with ENODATA" ENODATA \
	"$(read_sysfs $PKG/gpu_offset_mv)"
fwctl busy off
check_eq "after busy clears the firmware's gpu word is the fused one" 0x00048c16 "$(fwctl word 1)"
check_eq "after busy clears writes work" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "the firmware's gpu word holds -30 mV" "$(offset_word -30 0x48c16)" "$(fwctl word 1)"

finish
