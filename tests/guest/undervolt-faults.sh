#!/bin/sh
# Each fault of the firmware model (qemu/MODEL.md) maps to its errno:
# completion codes 2..5 and others, a busy bit that never clears, writes
# that are dropped.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
TAINT_CPU_OUT_OF_SPEC=4

check "the sysfs directory exists" test -d $PKG
check_eq "no injection is armed" none "$(fwctl injection)"

# expect_code CODE ERRNO
expect_code() {
	fwctl inject $1
	check_eq "injection reads $1 x1" "$1 x1" "$(fwctl injection)"
	check_eq "completion code $1 fails a write with $2" "$2" \
		"$(writefile $PKG/gpu_offset_mv -30)"
	check_eq "code $1 lasts one command" none "$(fwctl injection)"
	check_eq "after code $1 the offset is unchanged" 0 "$(cat $PKG/gpu_offset_mv)"
	# A read sends no command: it cannot meet the fault.
	fwctl inject $1
	check_eq "with code $1 armed a read answers from the driver's state" 0 \
		"$(cat $PKG/gpu_offset_mv)"
	check_eq "and leaves code $1 armed: it sent no command" "$1 x1" "$(fwctl injection)"
	fwctl clear-injection
}

expect_code 2 EOPNOTSUPP
expect_code 3 ERANGE
expect_code 4 ERANGE
expect_code 5 EOPNOTSUPP
# 0x1f: the command is not recognised (Tiger Lake and later answer it).
expect_code 31 EOPNOTSUPP
# Codes no document explains: EIO, and the code is logged as it came.
kmsg_mark unknown
expect_code 6 EIO
check_grep "an unknown code is logged raw" \
	"package 00: command 0x10 on plane 1: unknown completion code 0x06" "$(dmesg_since unknown)"
expect_code 255 EIO
check_eq "after the codes write_block_reason is none" none "$(cat $PKG/write_block_reason)"

# "CODE write PLANE": only the next write to that plane fails.
fwctl inject-write 3 3
check_eq "injection reads 3 write 3" "3 write 3" "$(fwctl injection)"
check_eq "reads pass a write fault" 0 "$(cat $PKG/uncore_offset_mv)"
check_eq "writes to other planes pass a write fault" OK "$(writefile $PKG/gpu_offset_mv -20)"
check_eq "the injection is still armed" "3 write 3" "$(fwctl injection)"
check_eq "the write to the plane fails with ERANGE" ERANGE "$(writefile $PKG/uncore_offset_mv -40)"
check_eq "the write injection lasts one write" none "$(fwctl injection)"
check_eq "uncore is unchanged" 0 "$(cat $PKG/uncore_offset_mv)"
# Coupled planes: cache (plane 2) failing puts core (plane 0) back.
fwctl inject-write 6 2
check_eq "a coupled write failing on cache fails with EIO" EIO "$(writefile $PKG/core_offset_mv -40)"
check_eq "core was put back" 0 "$(cat $PKG/core_offset_mv)"
check_eq "the firmware's core word was put back" 0x0004cd2c "$(fwctl word 0)"
check_eq "cache is unchanged" 0 "$(cat $PKG/cache_offset_mv)"
writefile $PKG/gpu_offset_mv 0 >/dev/null

# busy: the busy bit never clears.
fwctl busy on
check_eq "the model holds the busy bit" "lock=0 sgx=0 drop=0 busy=1 hint=0 uvp=0" "$(fwctl settings)"
kmsg_mark busy
check_eq "a stuck busy bit fails a write with ETIMEDOUT" ETIMEDOUT \
	"$(writefile $PKG/gpu_offset_mv -30)"
check_eq "with the busy bit stuck a read still answers (it sends no command)" 0 \
	"$(cat $PKG/gpu_offset_mv)"
fwctl busy off
check_eq "after busy clears the offset is unchanged" 0 "$(cat $PKG/gpu_offset_mv)"
check_eq "after busy clears writes work" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "and read back" -30 "$(cat $PKG/gpu_offset_mv)"

# drop: acknowledged but ignored; the read-back catches it.
taint_before=$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
fwctl drop on
check_eq "the model drops writes" "lock=0 sgx=0 drop=1 busy=0 hint=0 uvp=0" "$(fwctl settings)"
kmsg_mark drop
check_eq "a dropped write fails with EIO" EIO "$(writefile $PKG/uncore_offset_mv -60)"
check_eq "the firmware kept the old value" 0 "$(cat $PKG/uncore_offset_mv)"
check_grep "the ignored write is logged" "firmware ignored the uncore offset write" \
	"$(dmesg_since drop)"
check_nogrep "a dropped write is not logged as a change" "uncore offset 0 mV -> -60 mV" \
	"$(dmesg_since drop)"
check_eq "a dropped coupled write fails with EIO" EIO "$(writefile $PKG/core_offset_mv -60)"
check_eq "core kept its value" 0 "$(cat $PKG/core_offset_mv)"
check_eq "cache kept its value" 0 "$(cat $PKG/cache_offset_mv)"
fwctl drop off
check_eq "writes work again" OK "$(writefile $PKG/uncore_offset_mv -60)"
check_eq "uncore reads -60" -60 "$(cat $PKG/uncore_offset_mv)"
check_eq "taint is set by the first verified non-zero offset" 4 \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

finish
