#!/bin/sh
# qemu-run: --smp 2,sockets=2,cores=1,threads=1
# After a real S3, where both sockets' mailboxes forget, each package gets
# its own offsets back (series v3: by the time "echo mem" returns). One CPU per socket: a 4-vCPU guest on a 2-core
# host once did not come back from S3 in CI (docs/testing.md, "Guests on a
# loaded host"), and nothing here needs a second core per socket.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P0=$UV/package_00
P1=$UV/package_01

# The words each package must hold: its own offsets over the fused bits
# (core and cache coupled).
W0="$(offset_word -50 0x4cd2c) 0x00048c16 $(offset_word -50 0x4cd28) 0x00043312 0x00040001"
W1="$(offset_word -90 0x4cd2c) $(offset_word -20 0x48c16) $(offset_word -90 0x4cd28) 0x00043312 0x00040001"

check_eq "package 00 core -50" OK "$(writefile $P0/core_offset_mv -50)"
check_eq "package 01 core -90" OK "$(writefile $P1/core_offset_mv -90)"
check_eq "package 01 gpu -20" OK "$(writefile $P1/gpu_offset_mv -20)"
check_eq "package 0's mailbox holds core and cache -50" "$W0" "$(fw_words 0)"
check_eq "package 1's mailbox holds core and cache -90, gpu -20" "$W1" "$(fw_words 1)"

resets0=$(fwctl -p 0 resets)
resets1=$(fwctl -p 1 resets)
check "suspend to RAM (S3) and wake up" s3
check_eq "package 0's mailbox saw one reset" $((resets0 + 1)) "$(fwctl -p 0 resets)"
check_eq "package 1's mailbox saw one reset" $((resets1 + 1)) "$(fwctl -p 1 resets)"
check_eq "package 0 got its own words back" "$W0" "$(fw_words 0)"
check_eq "package 1 got its own words back" "$W1" "$(fw_words 1)"
check_eq "sysfs: package 00 core reads the model's -50" -50 "$(cat $P0/core_offset_mv)"
check_eq "sysfs: package 01 core reads the model's -90" -90 "$(cat $P1/core_offset_mv)"
check_no_splat
finish
