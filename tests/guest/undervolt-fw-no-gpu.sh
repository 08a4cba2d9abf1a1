#!/bin/sh
# qemu-run: --firmware no-gpu
# A CPU whose GPU domain has no voltage offset capability (the model's
# no-gpu profile: capability bit 10 clear for domain 1, writes to it
# answered with code 5). The driver asks each domain and does not show
# the GPU plane; offsets of the other planes work.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check "the driver binds" test -d $PKG
check_eq "the driver asked each domain for its capabilities" \
	"0x8000000100000000 0x8000010100000000 0x8000020100000000 0x8000030100000000 0x8000040100000000" \
	"$(fw_log | grep -E '^0x80000[0-7]0100000000$' | tr '\n' ' ' | sed 's/ $//')"
check_eq "core works" OK "$(writefile $PKG/core_offset_mv -40)"
check_eq "the model holds core -40" "$(offset_word -40 0x4cd2c)" "$(fwctl word 0)"
check "the gpu plane is not shown" test ! -e $PKG/gpu_offset_mv
check "nor its initial offset" test ! -e $PKG/initial_gpu_offset_mv
check_eq "the other planes are, each with its initial offset" \
	"analogio_offset_mv cache_offset_mv core_offset_mv initial_analogio_offset_mv initial_cache_offset_mv initial_core_offset_mv initial_uncore_offset_mv uncore_offset_mv" \
	"$(echo $(ls $PKG | sort))"
kselftest 0 -s 5
check_eq "no write command reached the gpu domain" "" \
	"$(fw_write_commands | grep '^0x80000111')"
check_eq "the model's gpu word is the fused one" 0x00048c16 "$(fwctl word 1)"
check_no_splat
finish
