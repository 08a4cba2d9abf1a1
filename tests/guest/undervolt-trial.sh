#!/bin/sh
# qemu-run: --append "intel_undervolt.trial_seconds=3 intel_undervolt.offsets=analogio:-10"
# Trial mode: a change is provisional; without a write of 1 to confirm
# within trial_seconds of the last change, every plane reverts to the last
# confirmed offsets.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
PARAMS=/sys/module/intel_undervolt/parameters

check_eq "confirm is 0200" 200 "$(stat -c %a $UV/confirm)"
check_eq "trial_remaining_s is 0444" 444 "$(stat -c %a $UV/trial_remaining_s)"
check_eq "trial_seconds reads 3" 3 "$(cat $PARAMS/trial_seconds)"

# wait_reverted: poll trial_remaining_s down to 0, then give the work a moment
wait_reverted() {
	i=0
	while [ "$(cat $UV/trial_remaining_s)" != 0 ] && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep 0.5
}

# The boot offset is provisional too: nobody confirms it, it reverts.
wait_reverted
check_eq "the unconfirmed boot offset reverted" 0 "$(cat $PKG/analogio_offset_mv)"
check_eq "the firmware's analogio word is its boot word again" 0x00040001 "$(fwctl word 4)"
check_grep "the revert is logged" "trial: no confirmation within trial_seconds" "$(dmesg)"
check_grep "the reverted plane is logged" "package 00: trial expired: restored analogio -10->0 mV" "$(dmesg)"

# A confirmed change stays.
check_eq "nothing provisional: trial_remaining_s is 0" 0 "$(cat $UV/trial_remaining_s)"
check_eq "gpu -40" OK "$(writefile $PKG/gpu_offset_mv -40)"
left=$(cat $UV/trial_remaining_s)
check "trial_remaining_s counts down from 3 ($left)" test "$left" -ge 1 -a "$left" -le 3
check_eq "confirm refuses 2" EINVAL "$(writefile $UV/confirm 2)"
check_eq "confirm refuses text" EINVAL "$(writefile $UV/confirm yes)"
kmsg_mark confirm
check_eq "confirm 1" OK "$(writefile $UV/confirm 1)"
check_grep "the confirmation is logged" "trial: offsets confirmed by" "$(dmesg_since 'TEST-MARK confirm')"
check_eq "confirmed: trial_remaining_s is 0" 0 "$(cat $UV/trial_remaining_s)"
sleep 4
check_eq "a confirmed change stays" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware's gpu word keeps -40 mV" 0xfae48c16 "$(fwctl word 1)"
check_eq "confirm with nothing provisional is accepted" OK "$(writefile $UV/confirm 1)"

# Unconfirmed changes revert to the last confirmed values, on every plane.
kmsg_mark revert
check_eq "gpu -60" OK "$(writefile $PKG/gpu_offset_mv -60)"
check_eq "core -50" OK "$(writefile $PKG/core_offset_mv -50)"
wait_reverted
check_eq "gpu reverted to the confirmed -40" -40 "$(cat $PKG/gpu_offset_mv)"
check_eq "core reverted to 0" 0 "$(cat $PKG/core_offset_mv)"
check_eq "cache reverted to 0" 0 "$(cat $PKG/cache_offset_mv)"
check_eq "the firmware holds gpu -40 mV and boot words elsewhere" \
	"0x0004cd2c 0xfae48c16 0x0004cd28 0x00043312 0x00040001" "$(fw_words)"
check_eq "one revert line" 1 "$(dmesg_since 'TEST-MARK revert' | grep -c 'trial: no confirmation')"

# The deadline counts from the last change.
check_eq "uncore -10" OK "$(writefile $PKG/uncore_offset_mv -10)"
sleep 2
check_eq "uncore -20, two seconds later" OK "$(writefile $PKG/uncore_offset_mv -20)"
sleep 2
check_eq "4 s after the first change, 2 s after the last: not reverted" -20 \
	"$(cat $PKG/uncore_offset_mv)"
wait_reverted
check_eq "then reverted" 0 "$(cat $PKG/uncore_offset_mv)"
check_eq "the firmware's uncore word is its boot word again" 0x00043312 "$(fwctl word 3)"

# trial_seconds=0: changes are confirmed at once.
check_eq "trial_seconds=0 at run time" OK "$(writefile $PARAMS/trial_seconds 0)"
check_eq "gpu -70" OK "$(writefile $PKG/gpu_offset_mv -70)"
check_eq "nothing provisional" 0 "$(cat $UV/trial_remaining_s)"
check_eq "trial_seconds=1" OK "$(writefile $PARAMS/trial_seconds 1)"
check_eq "gpu -80" OK "$(writefile $PKG/gpu_offset_mv -80)"
wait_reverted
check_eq "reverts to -70, confirmed while trial mode was off" -70 "$(cat $PKG/gpu_offset_mv)"
check_eq "the firmware's gpu word holds -70 mV" -70 "$(fw_offset_mv 1)"

# Unload during a trial: the boot words, no revert afterwards.
check_eq "gpu -90" OK "$(writefile $PKG/gpu_offset_mv -90)"
check "unload during a trial" rmmod intel_undervolt
check_eq "gpu back to its boot word" 0x00048c16 "$(fwctl word 1)"
fwctl clear-log
sleep 2
check_eq "no command reaches the mailbox after the unload (trial_seconds is 1)" "" "$(fw_log)"

check_no_splat
finish
