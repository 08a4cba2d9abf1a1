#!/bin/sh
# qemu-run: --smp 4,sockets=2,cores=2,threads=1
# CPU hotplug on two packages of two CPUs each (package 0: CPUs 0-1,
# package 1: CPUs 2-3), each with its own mailbox in the firmware model
# (qemu/MODEL.md). The driver restores a package whose firmware lost the
# offsets when the package's first CPU comes back, and keeps working when
# the package's control CPU goes offline.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P0=$UV/package_00
P1=$UV/package_01
RESTORES=/sys/kernel/debug/intel_undervolt/restores
CPU=/sys/devices/system/cpu
BOOT="0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001"

check "package_00 exists" test -d $P0
check "package_01 exists" test -d $P1
check_eq "CPUs 2 and 3 are package 1" "1 1" \
	"$(cat $CPU/cpu2/topology/physical_package_id) $(cat $CPU/cpu3/topology/physical_package_id)"

# wait_restores N: the restore work runs after the CPU is online
wait_restores() {
	i=0
	while [ "$(cat $RESTORES)" != "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check_eq "$2: restore counter is $1" "$1" "$(cat $RESTORES)"
}

check_eq "package 0: gpu -30" OK "$(writefile $P0/gpu_offset_mv -30)"
check_eq "package 1: core -80" OK "$(writefile $P1/core_offset_mv -80)"
check_eq "package 1: gpu -40" OK "$(writefile $P1/gpu_offset_mv -40)"
check_eq "package 1's mailbox holds core -80 gpu -40" "-80 -40" \
	"$(fw_offset_mv 0 1) $(fw_offset_mv 1 1)"
check_eq "package 0's mailbox holds only its own gpu -30" "0 -30 0 0 0" \
	"$(fw_offset_mv 0 0) $(fw_offset_mv 1 0) $(fw_offset_mv 2 0) $(fw_offset_mv 3 0) $(fw_offset_mv 4 0)"

# CPU 1 (not the last of package 0) goes and comes: nothing is lost and
# the driver has nothing to do.
fwctl clear-log
check "CPU 1 goes offline" sh -c "echo 0 > $CPU/cpu1/online"
check "CPU 1 comes back" sh -c "echo 1 > $CPU/cpu1/online"
sleep 0.3
check_eq "CPU 1: nothing restored" 0 "$(cat $RESTORES)"
check_eq "CPU 1: the driver sent package 0 no command" "" "$(fw_log)"
check_eq "CPU 1: package 0 still reads gpu -30" -30 "$(cat $P0/gpu_offset_mv)"

# CPU 2, package 1's control CPU, goes offline: CPU 3 takes over.
check "CPU 2 goes offline" sh -c "echo 0 > $CPU/cpu2/online"
check_eq "package 1 still answers through CPU 3" -80 "$(cat $P1/core_offset_mv)"
check_eq "package 1 can still be written" OK "$(writefile $P1/uncore_offset_mv -20)"
check_eq "package 1's mailbox holds uncore -20" -20 "$(fw_offset_mv 3 1)"

# CPU 3 is the last CPU of package 1. A guest CPU going offline powers
# nothing down, so the model keeps the package's words; a real package
# may lose power while all its CPUs are offline and come back with the
# boot words. fwctl forget stands in for that loss, but it acts through
# an online CPU of the package (the model is read on that CPU), so it
# cannot run while the package is offline: it runs right before the last
# CPU goes offline. The driver does not notice (it sends no command in
# between), so coming back it meets a package that forgot.
check "package 1 forgets, CPU 3 still online" fwctl -p 1 forget
check_eq "package 1's mailbox holds the boot words" "$BOOT" "$(fw_words 1)"
kmsg_mark cpu3
check "CPU 3 goes offline" sh -c "echo 0 > $CPU/cpu3/online"
check "package 1 cannot be read while offline" sh -c "! cat $P1/core_offset_mv 2>/dev/null"
check_eq "package 1 cannot be written while offline" ENODEV \
	"$(writefile $P1/core_offset_mv -60)"
check_eq "package 0 is untouched" -30 "$(fw_offset_mv 1 0)"

# CPU 3 comes back: the driver restores package 1.
check "CPU 3 comes back" sh -c "echo 1 > $CPU/cpu3/online"
wait_restores 1 "package 1 online"
check_eq "package 1: core restored" -80 "$(cat $P1/core_offset_mv)"
check_eq "package 1: gpu restored" -40 "$(cat $P1/gpu_offset_mv)"
check_eq "package 1: uncore restored" -20 "$(cat $P1/uncore_offset_mv)"
check_eq "package 1's mailbox holds the offsets again (core gpu cache uncore analogio)" \
	"-80 -40 -80 -20 0" \
	"$(fw_offset_mv 0 1) $(fw_offset_mv 1 1) $(fw_offset_mv 2 1) $(fw_offset_mv 3 1) $(fw_offset_mv 4 1)"
check_grep "one log line for the restore" \
	"package 01: package online: restored core 0->-80 mV gpu 0->-40 mV cache 0->-80 mV uncore 0->-20 mV" \
	"$(dmesg_since 'TEST-MARK cpu3')"
check "CPU 2 comes back" sh -c "echo 1 > $CPU/cpu2/online"
sleep 0.3
check_eq "CPU 2 online: nothing more to restore" 1 "$(cat $RESTORES)"

# CPU 0 cannot go offline on x86 (since 6.3).
if [ -e $CPU/cpu0/online ]; then
	echo 0 > $CPU/cpu0/online 2>/dev/null
	check_eq "CPU 0 stays online" 1 "$(cat $CPU/cpu0/online)"
else
	pass "CPU 0 cannot be offlined (no cpu0/online)"
fi

# Unload while package 1 is offline (and, as above, forgot its offsets
# before its last CPU, CPU 2, went): the unload puts the online package 0
# back and must not trip over the offline one.
check "CPU 3 goes offline again" sh -c "echo 0 > $CPU/cpu3/online"
check "package 1 forgets, CPU 2 still online" fwctl -p 1 forget
check "CPU 2 goes offline again" sh -c "echo 0 > $CPU/cpu2/online"
check "intel_undervolt unloads with package 1 offline" rmmod intel_undervolt
check_eq "the unload put package 0's mailbox back to the boot words" "$BOOT" "$(fw_words 0)"
check "CPUs 2 and 3 come back after unload" \
	sh -c "echo 1 > $CPU/cpu2/online && echo 1 > $CPU/cpu3/online"
check_eq "package 1's mailbox still holds the boot words" "$BOOT" "$(fw_words 1)"
check "intel_undervolt loads again" modprobe intel_undervolt
check "package_01 is back" test -d $P1
check_eq "the restore counter starts over" 0 "$(cat $RESTORES)"
check_eq "package 1 reads the boot offsets" "0 0" \
	"$(cat $P1/core_offset_mv) $(cat $P1/gpu_offset_mv)"

# A trial that expires while package 1 is offline: when the package
# comes back it gets the confirmed offset (0), not the reverted one. Its
# mailbox kept the provisional -30 mV through the hotplug (the model only
# forgets on a reset or fwctl forget), so only a restore puts 0 back.
PARAMS=/sys/module/intel_undervolt/parameters
echo 2 > $PARAMS/trial_seconds
echo -30 > $P1/gpu_offset_mv
check_eq "a provisional gpu offset on package 1" -30 "$(fw_offset_mv 1 1)"
check "CPUs 2 and 3 go offline" \
	sh -c "echo 0 > $CPU/cpu2/online && echo 0 > $CPU/cpu3/online"
sleep 3
echo 0 > $PARAMS/trial_seconds
check "CPUs 2 and 3 come back after the trial expired" \
	sh -c "echo 1 > $CPU/cpu2/online && echo 1 > $CPU/cpu3/online"
sleep 0.5
check_eq "package 1 reads the confirmed gpu offset" 0 "$(cat $P1/gpu_offset_mv)"
check_eq "package 1's mailbox holds it again" 0 "$(fw_offset_mv 1 1)"

check_no_splat
finish
