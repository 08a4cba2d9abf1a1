#!/bin/sh
# qemu-run: --smp 4,sockets=2,cores=2,threads=1 --append "intel_undervolt.emulate=1"
# CPU hotplug on two packages of two CPUs each (package 0: CPUs 0-1,
# package 1: CPUs 2-3). The emulated firmware forgets when the last CPU of
# a package goes offline; the driver restores the package when its first
# CPU comes back, and keeps working when the package's control CPU goes
# offline. (All packages share one emulated firmware.)
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P0=$UV/package_00
P1=$UV/package_01
EMU=/sys/kernel/debug/intel_undervolt_emu
RESTORES=/sys/kernel/debug/intel_undervolt/restores
CPU=/sys/devices/system/cpu

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

check_eq "package 1: core -80" OK "$(writefile $P1/core_offset_mv -80)"
check_eq "package 1: gpu -40" OK "$(writefile $P1/gpu_offset_mv -40)"

# CPU 1 (not the last of package 0) goes and comes: nothing is lost.
kmsg_mark cpu1
check "CPU 1 goes offline" sh -c "echo 0 > $CPU/cpu1/online"
check "CPU 1 comes back" sh -c "echo 1 > $CPU/cpu1/online"
check_nogrep "CPU 1: the firmware did not forget" "planes reset" "$(dmesg_since 'TEST-MARK cpu1')"
sleep 0.3
check_eq "CPU 1: nothing restored" 0 "$(cat $RESTORES)"

# CPU 2, package 1's control CPU, goes offline: CPU 3 takes over.
check "CPU 2 goes offline" sh -c "echo 0 > $CPU/cpu2/online"
check_eq "package 1 still answers through CPU 3" -80 "$(cat $P1/core_offset_mv)"
check_eq "package 1 can still be written" OK "$(writefile $P1/uncore_offset_mv -20)"

# CPU 3, the last CPU of package 1, goes offline: the firmware forgets.
kmsg_mark cpu3
check "CPU 3 goes offline" sh -c "echo 0 > $CPU/cpu3/online"
check_grep "package 1 offline: the firmware forgot" \
	"intel_undervolt_emu: package offline: planes reset" "$(dmesg_since 'TEST-MARK cpu3')"
check "package 1 cannot be read while offline" sh -c "! cat $P1/core_offset_mv 2>/dev/null"
check_eq "package 1 cannot be written while offline" ENODEV \
	"$(writefile $P1/core_offset_mv -60)"

# CPU 3 comes back: the driver restores package 1.
check "CPU 3 comes back" sh -c "echo 1 > $CPU/cpu3/online"
wait_restores 1 "package 1 online"
check_eq "package 1: core restored" -80 "$(cat $P1/core_offset_mv)"
check_eq "package 1: gpu restored" -40 "$(cat $P1/gpu_offset_mv)"
check_eq "package 1: uncore restored" -20 "$(cat $P1/uncore_offset_mv)"
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

# Unload while a package is offline, then with all online: clean unload.
check "CPU 3 goes offline again" sh -c "echo 0 > $CPU/cpu3/online"
check "CPU 2 goes offline again" sh -c "echo 0 > $CPU/cpu2/online"
check "intel_undervolt unloads with package 1 offline" rmmod intel_undervolt
check "CPUs 2 and 3 come back after unload" \
	sh -c "echo 1 > $CPU/cpu2/online && echo 1 > $CPU/cpu3/online"
check "intel_undervolt loads again" modprobe intel_undervolt emulate=1
check "package_01 is back" test -d $P1
check_eq "the restore counter starts over" 0 "$(cat $RESTORES)"

check_no_splat
finish
