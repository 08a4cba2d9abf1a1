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
# firmware, and the rest of the data words is untouched. Then one more
# loss, with nothing racing, shows the restore in the model's command log.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
P1=$UV/package_01
CPU1=/sys/devices/system/cpu/cpu1/online
WRITES=${WRITES:-10000}
SEED=${SEED:-$(date +%s)}

check "package_01 exists" test -d $P1
check_eq "CPU 1 is package 1" 1 \
	"$(cat /sys/devices/system/cpu/cpu1/topology/physical_package_id)"
echo "# seed $SEED"
check_eq "package 1's mailbox holds the fused words" "$FUSED_WORDS" "$(fw_words 1)"

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
# writer_summary FILE: uvwrite's counts and its first unexpected failures.
writer_summary() {
	echo $(grep '^ok=' "$1") $(grep -c '^unexpected:' "$1") unexpected, \
		$(grep -m3 '^unexpected:' "$1" | tr '\n' ' ')
}
echo "# $(($(date +%s) - start)) s; gpu: $(writer_summary /tmp/gpu); uncore: $(writer_summary /tmp/uncore); hotplug cycles: $(cat /tmp/cycles)"

cycles=$(cat /tmp/cycles)
check "CPU 1 went offline and online during the writes ($cycles times)" \
	test "$cycles" -gt 1
check_eq "CPU 1 is online" 1 "$(cat $CPU1)"

# last_write FILE: the last value a writer set (uvwrite's "last=").
last_write() {
	sed -n 's/.* last=\(.*\)$/\1/p' "$1"
}
gpu_last=$(last_write /tmp/gpu)
uncore_last=$(last_write /tmp/uncore)
check "gpu: some writes succeeded" test "${gpu_last:-none}" != none
check "uncore: some writes succeeded" test "${uncore_last:-none}" != none
[ "${gpu_last:-none}" = none ] && gpu_last=0
[ "${uncore_last:-none}" = none ] && uncore_last=0
# Package 1's words: the last writes over the fused bits 20:0, the planes
# nobody wrote fused.
want="0x0004cd2c $(offset_word $gpu_last 0x48c16) 0x0004cd28 $(offset_word $uncore_last 0x43312) 0x00040001"

# reads FILE VALUE: the driver knows the offset again and it is VALUE.
reads() {
	[ "$(read_sysfs "$1")" = "$2" ]
}

# The restore after the last online runs from a work item: wait for it.
wait_for "package 1's mailbox holds the last writes, the rest of every word fused" 5 \
	fw_holds 1 "$want"
wait_for "gpu: sysfs reads the last successful write ($gpu_last)" 5 \
	reads $P1/gpu_offset_mv "$gpu_last"
wait_for "uncore: sysfs reads the last successful write ($uncore_last)" 5 \
	reads $P1/uncore_offset_mv "$uncore_last"

# One more loss with nothing racing: the restore must write gpu and
# uncore back (a plane at 0 mV needs no write).
check "package 1 forgets, CPU 1 still online" fwctl -p 1 forget
fwctl -p 1 clear-log
check "CPU 1 goes offline and comes back" sh -c "echo 0 > $CPU1 && echo 1 > $CPU1"
wait_for "the driver restored package 1 after it came back" 5 fw_holds 1 "$want"
expected=""
[ "$gpu_last" != 0 ] && expected="0x80000111$(offset_word $gpu_last 0x48c16 | cut -c3-)"
[ "$uncore_last" != 0 ] && expected="${expected:+$expected }0x80000311$(offset_word $uncore_last 0x43312 | cut -c3-)"
check_eq "the restore wrote gpu and uncore, nothing else" "$expected" \
	"$(echo $(fw_write_commands 1))"
check_eq "package 0's mailbox was not written" "$FUSED_WORDS" "$(fw_words 0)"
finish
