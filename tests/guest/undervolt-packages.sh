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
check_eq "package 0 starts at the fused words" "$FUSED_WORDS" "$(fw_words 0)"
check_eq "package 1 starts at the fused words" "$FUSED_WORDS" "$(fw_words 1)"

check_eq "package 00 core -50" OK "$(writefile $P0/core_offset_mv -50)"
check_eq "the model's package 0 holds core and cache -50" \
	"$(offset_word -50 0x4cd2c) 0x00048c16 $(offset_word -50 0x4cd28) 0x00043312 0x00040001" \
	"$(fw_words 0)"
check_eq "package 1's words did not move" "$FUSED_WORDS" "$(fw_words 1)"
check_eq "package 01 core -90" OK "$(writefile $P1/core_offset_mv -90)"
check_eq "package 01 gpu -20" OK "$(writefile $P1/gpu_offset_mv -20)"
check_eq "the model's package 1 holds core and cache -90, gpu -20" \
	"$(offset_word -90 0x4cd2c) $(offset_word -20 0x48c16) $(offset_word -90 0x4cd28) 0x00043312 0x00040001" \
	"$(fw_words 1)"
check_eq "package 0's words did not move" \
	"$(offset_word -50 0x4cd2c) 0x00048c16 $(offset_word -50 0x4cd28) 0x00043312 0x00040001" \
	"$(fw_words 0)"
check_eq "package 00 reads the model's offsets" "-50 0 -50" \
	"$(cat $P0/core_offset_mv) $(cat $P0/gpu_offset_mv) $(cat $P0/cache_offset_mv)"
check_eq "package 01 reads the model's offsets" "-90 -20 -90" \
	"$(cat $P1/core_offset_mv) $(cat $P1/gpu_offset_mv) $(cat $P1/cache_offset_mv)"

check_no_splat
finish
