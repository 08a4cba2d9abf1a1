#!/bin/sh
# qemu-run: --smp 4,sockets=2,cores=2,threads=1
# CPU hotplug on two packages of two CPUs each (package 0: CPUs 0-1,
# package 1: CPUs 2-3), each with its own mailbox in the firmware model
# (qemu/MODEL.md). The driver restores a package whose firmware lost the
# offsets when the package's first CPU comes back, keeps working when a
# CPU of a package goes offline, and knows nothing of a package whose CPUs
# are all offline (reads ENODATA, writes ENODEV). What the firmware holds
# and was sent is read from the model, never from the driver.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P0=$UV/package_00
P1=$UV/package_01
CPU=/sys/devices/system/cpu

check "package_00 exists" test -d $P0
check "package_01 exists" test -d $P1
check_eq "CPUs 2 and 3 are package 1" "1 1" \
	"$(cat $CPU/cpu2/topology/physical_package_id) $(cat $CPU/cpu3/topology/physical_package_id)"


check_eq "package 0: gpu -30" OK "$(writefile $P0/gpu_offset_mv -30)"
check_eq "package 1: core -80" OK "$(writefile $P1/core_offset_mv -80)"
check_eq "package 1: gpu -40" OK "$(writefile $P1/gpu_offset_mv -40)"
P0_WORDS="0x0004cd2c $(offset_word -30 0x48c16) 0x0004cd28 0x00043312 0x00040001"
P1_WORDS="$(offset_word -80 0x4cd2c) $(offset_word -40 0x48c16) $(offset_word -80 0x4cd28) 0x00043312 0x00040001"
check_eq "package 1's mailbox holds core and cache -80, gpu -40" "$P1_WORDS" "$(fw_words 1)"
check_eq "package 0's mailbox holds only its own gpu -30" "$P0_WORDS" "$(fw_words 0)"

# CPU 1 (not the last of package 0) goes and comes: nothing is lost and
# the driver has nothing to do. (What it must not do, it could do late:
# the command log is read after a short pause, which can only let a
# wrong command through, never fail a right run.)
fwctl clear-log
check "CPU 1 goes offline" sh -c "echo 0 > $CPU/cpu1/online"
check "CPU 1 comes back" sh -c "echo 1 > $CPU/cpu1/online"
sleep 0.3
check_eq "CPU 1: the driver sent package 0 no command" "" "$(fw_log)"
check_eq "CPU 1: package 0's mailbox holds its words" "$P0_WORDS" "$(fw_words 0)"
check_eq "CPU 1: package 0 reads the model's gpu -30" -30 "$(cat $P0/gpu_offset_mv)"

# CPU 2 goes offline: CPU 3 serves package 1.
check "CPU 2 goes offline" sh -c "echo 0 > $CPU/cpu2/online"
check_eq "package 1 still reads the model's core -80" -80 "$(cat $P1/core_offset_mv)"
check_eq "package 1 can still be written" OK "$(writefile $P1/uncore_offset_mv -20)"
P1_WORDS="$(offset_word -80 0x4cd2c) $(offset_word -40 0x48c16) $(offset_word -80 0x4cd28) $(offset_word -20 0x43312) 0x00040001"
check_eq "package 1's mailbox holds uncore -20" "$(offset_word -20 0x43312)" "$(fwctl -p 1 word 3)"

# CPU 3 is the last CPU of package 1. A guest CPU going offline powers
# nothing down, so the model keeps the package's words; a real package
# may lose power while all its CPUs are offline and come back with the
# boot words. fwctl forget stands in for that loss, but it acts through
# an online CPU of the package (the model is read on that CPU), so it
# cannot run while the package is offline: it runs right before the last
# CPU goes offline. The driver does not notice (it sends no command in
# between), so coming back it meets a package that forgot.
check "package 1 forgets, CPU 3 still online" fwctl -p 1 forget
check_eq "package 1's mailbox holds the fused words" "$FUSED_WORDS" "$(fw_words 1)"
fwctl -p 1 clear-log
kmsg_mark cpu3
check "CPU 3 goes offline" sh -c "echo 0 > $CPU/cpu3/online"
check_eq "package 1's offsets are unknown while it is offline (ENODATA)" ENODATA \
	"$(read_sysfs $P1/core_offset_mv)"
check_eq "package 1 cannot be written while offline (ENODEV)" ENODEV \
	"$(writefile $P1/core_offset_mv -60)"
check_eq "package 0's mailbox is untouched" "$P0_WORDS" "$(fw_words 0)"

# CPU 3 comes back: the driver restores package 1 (from a work item, so
# the test waits for the model to hold the words). Package 1's command
# log was cleared before it went offline.
fwctl -p 0 clear-log
check "CPU 3 comes back" sh -c "echo 1 > $CPU/cpu3/online"
wait_for "package 1's mailbox holds its offsets again (restored)" 5 \
	fw_holds 1 "$P1_WORDS"
check_eq "the restore wrote core, gpu, cache and uncore" \
	"0x80000011$(offset_word -80 0x4cd2c | cut -c3-) 0x80000111$(offset_word -40 0x48c16 | cut -c3-) 0x80000211$(offset_word -80 0x4cd28 | cut -c3-) 0x80000311$(offset_word -20 0x43312 | cut -c3-)" \
	"$(echo $(fw_write_commands 1))"
check_eq "package 1 reads the model's offsets (core gpu cache uncore analogio)" \
	"-80 -40 -80 -20 0" \
	"$(cat $P1/core_offset_mv $P1/gpu_offset_mv $P1/cache_offset_mv $P1/uncore_offset_mv $P1/analogio_offset_mv | tr '\n' ' ' | sed 's/ $//')"
log=$(dmesg_since 'TEST-MARK cpu3')
check_grep "the restore of core is logged" "package 01: core offset 0 mV -> -80 mV by online" "$log"
check_grep "the restore of uncore is logged" "package 01: uncore offset 0 mV -> -20 mV by online" "$log"
check_eq "package 0's mailbox got no command" "" "$(fw_log 0)"
fwctl -p 1 clear-log
check "CPU 2 comes back" sh -c "echo 1 > $CPU/cpu2/online"
sleep 0.3
check_eq "CPU 2 online: nothing more to restore, no command" "" "$(fw_log 1)"

# Unload while package 1 is offline (and, as above, forgot its offsets
# before its last CPU, CPU 2, went): the unload puts the online package 0
# back and must not trip over the offline one.
check "CPU 3 goes offline again" sh -c "echo 0 > $CPU/cpu3/online"
check "package 1 forgets, CPU 2 still online" fwctl -p 1 forget
check "CPU 2 goes offline again" sh -c "echo 0 > $CPU/cpu2/online"
check "intel_undervolt unloads with package 1 offline" rmmod intel_undervolt
check_eq "the unload put package 0's mailbox back to the fused words" "$FUSED_WORDS" "$(fw_words 0)"
check "CPUs 2 and 3 come back after unload" \
	sh -c "echo 1 > $CPU/cpu2/online && echo 1 > $CPU/cpu3/online"
check_eq "package 1's mailbox still holds the fused words" "$FUSED_WORDS" "$(fw_words 1)"
check "intel_undervolt loads again" modprobe intel_undervolt
check "package_01 is back" test -d $P1
check_eq "package 1 reads the model's offsets" "0 0" \
	"$(cat $P1/core_offset_mv) $(cat $P1/gpu_offset_mv)"

# A value set after the reload is what comes back: the package loses it
# while offline, and the restore that puts it back is waited for.
check_eq "package 1: gpu -30" OK "$(writefile $P1/gpu_offset_mv -30)"
check_eq "package 1's mailbox holds gpu -30" "$(offset_word -30 0x48c16)" "$(fwctl -p 1 word 1)"
check "package 1 forgets, CPU 2 and 3 go offline" \
	sh -c "echo 0 > $CPU/cpu3/online && fwctl -p 1 forget && echo 0 > $CPU/cpu2/online"
check "CPUs 2 and 3 come back" \
	sh -c "echo 1 > $CPU/cpu2/online && echo 1 > $CPU/cpu3/online"
wait_for "package 1's mailbox holds gpu -30 again (restored)" 5 \
	fw_holds 1 "0x0004cd2c $(offset_word -30 0x48c16) 0x0004cd28 0x00043312 0x00040001"

check_no_splat
finish
