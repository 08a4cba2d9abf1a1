#!/bin/sh
# qemu-run: --firmware no-gpu
# A CPU whose GPU domain has no voltage offset capability (the model's
# no-gpu profile: capability bit 10 clear for domain 1, writes to it
# answered with code 5). Offsets of the other planes work; the GPU plane
# is refused without changing anything.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check "the driver binds" test -d $PKG
check_eq "core works" OK "$(writefile $PKG/core_offset_mv -40)"
check_eq "the model holds core -40" -40 "$(fw_offset_mv 0)"
if [ -e $PKG/gpu_offset_mv ]; then
	check_eq "a gpu write fails with EOPNOTSUPP" EOPNOTSUPP "$(writefile $PKG/gpu_offset_mv -30)"
else
	pass "the gpu plane is not shown"
fi
check_eq "the model's gpu word is unchanged" 0x00048c16 "$(fwctl word 1)"
check_no_splat
finish
