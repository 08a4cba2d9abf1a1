#!/bin/sh
# qemu-run: --smp 2,sockets=2,cores=1,threads=1 --tcg-thread multi
# (A thread per vCPU, so that the writers and the hotplug really race.)
# Two writers, 10 000 writes each, to the gpu and uncore planes of
# package 1 while a third task takes CPU 1 (all of package 1) offline and
# online in a loop. Every other time, the firmware model (qemu/MODEL.md)
# of package 1 forgets the offsets before the package goes offline, as a
# package that loses power would, and the driver restores them when it
# comes back. A write may only fail with ENODEV (package offline); at the
# end each plane holds the last value a write set, in sysfs and in the
# firmware, and the rest of the data words is untouched.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P1=$UV/package_01
CPU1=/sys/devices/system/cpu/cpu1/online
RESTORES=/sys/kernel/debug/intel_undervolt/restores
WRITES=${WRITES:-10000}
SEED=${SEED:-$(date +%s)}
BOOT="0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001"

check "package_01 exists" test -d $P1
check_eq "CPU 1 is package 1" 1 \
	"$(cat /sys/devices/system/cpu/cpu1/topology/physical_package_id)"
echo "# seed $SEED"
boot=$(fw_words 1)

# pause PID...: stop the tasks and wait until each is stopped (or gone),
# so that none is in the middle of a write(2) to the driver.
pause() {
	kill -STOP "$@" 2>/dev/null
	for pid; do
		while state=$(sed 's/.*) \(.\).*/\1/' /proc/$pid/stat 2>/dev/null); do
			case $state in T|t|Z|X) break ;; esac
			sleep 0.01
		done
	done
}

start=$(date +%s)
uvwrite $P1/gpu_offset_mv $WRITES $SEED -250 0 ENODEV > /tmp/gpu &
gpu=$!
uvwrite $P1/uncore_offset_mv $WRITES $((SEED + 1)) -250 0 ENODEV > /tmp/uncore &
uncore=$!

# A guest CPU going offline powers nothing down: the model keeps its
# words. fwctl -p 1 forget stands in for a package that lost power while
# offline, but it acts through an online CPU of the package, so it runs
# right before CPU 1 goes offline. The writers are stopped around it: a
# forget between a write and its read-back would fail that write with EIO,
# which no real package does while it is online. The cycles without a
# forget keep the writers running across the offline transition.
rm -f /tmp/stop
(
	n=0
	while [ ! -e /tmp/stop ]; do
		if [ $((n % 2)) -eq 1 ]; then
			pause $gpu $uncore
			fwctl -p 1 forget
			echo 0 > $CPU1
			off=$?
			kill -CONT $gpu $uncore
		else
			echo 0 > $CPU1
			off=$?
		fi
		[ $off -eq 0 ] && echo 1 > $CPU1 && n=$((n + 1))
	done
	echo $n > /tmp/cycles
) 2>/dev/null &
hotplug=$!

check "writer 1 (gpu): only ENODEV failures" wait $gpu
check "writer 2 (uncore): only ENODEV failures" wait $uncore
touch /tmp/stop
wait $hotplug
echo 1 > $CPU1 2>/dev/null
echo "# $(($(date +%s) - start)) s; gpu: $(cat /tmp/gpu | tr '\n' ' '); uncore: $(cat /tmp/uncore | tr '\n' ' '); hotplug cycles: $(cat /tmp/cycles); restores: $(cat $RESTORES)"

cycles=$(cat /tmp/cycles)
check "CPU 1 went offline and online during the writes ($cycles times)" \
	test "$cycles" -gt 1
check "the driver restored package 1 after it came back" \
	test "$(cat $RESTORES)" -gt 0
check_eq "CPU 1 is online" 1 "$(cat $CPU1)"
# The restore runs from a work item once the CPU is online.
sleep 1

# expect_plane NAME N FILE: the plane holds the last successful write.
expect_plane() {
	local last
	last=$(sed -n 's/.* last=\(.*\)$/\1/p' "$3")
	check "$1: some writes succeeded" test "${last:-none}" != none
	check_eq "$1: sysfs reads the last successful write" "$last" \
		"$(cat $P1/${1}_offset_mv)"
	check_eq "$1: the firmware holds the last successful write" "$last" \
		"$(fw_offset_mv $2 1)"
}
expect_plane gpu 1 /tmp/gpu
expect_plane uncore 3 /tmp/uncore
now=$(fw_words 1)
i=1
for w in $now; do
	b=$(echo $boot | cut -d' ' -f$i)
	check_eq "plane $((i - 1)): bits 20:0 of the data word are untouched" \
		$((b & 0x1fffff)) $((w & 0x1fffff))
	i=$((i + 1))
done
for plane in core cache analogio; do
	check_eq "$plane: not written, still 0" 0 "$(cat $P1/${plane}_offset_mv)"
done
check_eq "package 0's mailbox was not written" "$BOOT" "$(fw_words 0)"
finish
