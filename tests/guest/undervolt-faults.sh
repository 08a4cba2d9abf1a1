#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# Each fault of the emulated firmware maps to its errno: completion codes
# 2..5 and others, a busy bit that never clears, writes that are dropped.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00
EMU=/sys/kernel/debug/intel_undervolt_emu
TAINT_CPU_OUT_OF_SPEC=4

check "the sysfs directory exists" test -d $PKG
check_eq "fault reads none" none "$(cat $EMU/fault)"

# fails_read FILE: one read(2) of FILE fails. (busybox cat retries with
# read() after sendfile() fails, and the fault lasts one command.)
fails_read() {
	! read -r value < "$1" 2>/dev/null
}

# expect_code CODE ERRNO
expect_code() {
	writefile $EMU/fault $1 >/dev/null
	check_eq "fault reads $1" "$1" "$(cat $EMU/fault)"
	check_eq "completion code $1 fails a write with $2" "$2" \
		"$(writefile $PKG/gpu_offset_mv -30)"
	check_eq "code $1 lasts one command" none "$(cat $EMU/fault)"
	check_eq "after code $1 the offset is unchanged" 0 "$(cat $PKG/gpu_offset_mv)"
	writefile $EMU/fault $1 >/dev/null
	check "completion code $1 fails a read" fails_read $PKG/gpu_offset_mv
}

expect_code 2 EOPNOTSUPP
expect_code 3 ERANGE
expect_code 4 ERANGE
expect_code 5 EOPNOTSUPP
expect_code 31 EIO
expect_code 255 EIO
check_eq "after the codes write_block_reason is none" none "$(cat $PKG/write_block_reason)"
check_eq "a bad fault name is refused" EINVAL "$(writefile $EMU/fault nonsense)"
check_eq "a fault on a plane that does not exist is refused" EINVAL \
	"$(writefile $EMU/fault '6 write 5')"

# "CODE write PLANE": only the next write to that plane fails.
writefile $EMU/fault '3 write 3' >/dev/null
check_eq "fault reads 3 write 3" "3 write 3" "$(cat $EMU/fault)"
check_eq "reads pass a write fault" 0 "$(cat $PKG/uncore_offset_mv)"
check_eq "writes to other planes pass a write fault" OK "$(writefile $PKG/gpu_offset_mv -20)"
check_eq "the fault is still armed" "3 write 3" "$(cat $EMU/fault)"
check_eq "the write to the plane fails with ERANGE" ERANGE "$(writefile $PKG/uncore_offset_mv -40)"
check_eq "the write fault lasts one write" none "$(cat $EMU/fault)"
check_eq "uncore is unchanged" 0 "$(cat $PKG/uncore_offset_mv)"
# Coupled planes: cache (plane 2) failing puts core (plane 0) back.
writefile $EMU/fault '31 write 2' >/dev/null
check_eq "a coupled write failing on cache fails with EIO" EIO "$(writefile $PKG/core_offset_mv -40)"
check_eq "core was put back" 0 "$(cat $PKG/core_offset_mv)"
check_eq "the firmware's core word was put back" 0x0004cd2c "$(cat $EMU/plane0)"
check_eq "cache is unchanged" 0 "$(cat $PKG/cache_offset_mv)"
writefile $PKG/gpu_offset_mv 0 >/dev/null

# busy: the busy bit never clears.
writefile $EMU/fault busy >/dev/null
check_eq "fault reads busy" busy "$(cat $EMU/fault)"
kmsg_mark busy
check_eq "a stuck busy bit fails a write with ETIMEDOUT" ETIMEDOUT \
	"$(writefile $PKG/gpu_offset_mv -30)"
check "a stuck busy bit fails a read" fails_read $PKG/gpu_offset_mv
writefile $EMU/fault none >/dev/null
check_eq "after busy clears the offset is unchanged" 0 "$(cat $PKG/gpu_offset_mv)"
check_eq "after busy clears writes work" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "and read back" -30 "$(cat $PKG/gpu_offset_mv)"

# drop: acknowledged but ignored; the read-back catches it.
taint_before=$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))
writefile $EMU/fault drop >/dev/null
check_eq "fault reads drop" drop "$(cat $EMU/fault)"
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
writefile $EMU/fault none >/dev/null
check_eq "writes work again" OK "$(writefile $PKG/uncore_offset_mv -60)"
check_eq "uncore reads -60" -60 "$(cat $PKG/uncore_offset_mv)"
check_eq "taint is set by the first verified non-zero offset" 4 \
	$(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

finish
