#!/bin/sh
# qemu-run: --smp 4,sockets=2,cores=2,threads=1
# Two sockets of two CPUs, two mailboxes: the model keeps one per socket
# and a command acts on the socket of the CPU that runs it. Offsets set
# on one package never reach the other. (What each package gets back
# after S3 is undervolt-packages-s3.sh.)
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P0=$UV/package_00
P1=$UV/package_01

check "package 00 exists" test -d $P0
check "package 01 exists" test -d $P1
boot="0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001"
check_eq "package 0 starts at the boot words" "$boot" "$(fw_words 0)"
check_eq "package 1 starts at the boot words" "$boot" "$(fw_words 1)"

check_eq "package 00 core -50" OK "$(writefile $P0/core_offset_mv -50)"
check_eq "the model's package 0 holds core -50" -50 "$(fw_offset_mv 0 0)"
check_eq "package 1's words did not move" "$boot" "$(fw_words 1)"
check_eq "package 01 core -90" OK "$(writefile $P1/core_offset_mv -90)"
check_eq "package 01 gpu -20" OK "$(writefile $P1/gpu_offset_mv -20)"
check_eq "the model's package 1 holds core -90" -90 "$(fw_offset_mv 0 1)"
check_eq "the model's package 1 holds gpu -20" -20 "$(fw_offset_mv 1 1)"
check_eq "package 0 still holds core -50" -50 "$(fw_offset_mv 0 0)"
check_eq "package 0's gpu is untouched" 0x00048c16 "$(fwctl -p 0 word 1)"
w0=$(fw_words 0)
w1=$(fw_words 1)
check "the two packages' words differ" test "$w0" != "$w1"

check_no_splat
finish
