#!/bin/sh
# qemu-run: --firmware unstable
# Machine checks revert the offsets. The unstable profile of the model
# (qemu/MODEL.md) reports a corrected machine check every half second
# while the core or cache offset is below -105 mV and a vCPU runs; from
# -101 to -105 mV it only corrupts FMA results, which the kernel never
# sees. What the driver did is read from the model: its words and its
# count of machine checks, not the driver's own files alone.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
PARAMS=/sys/module/intel_undervolt/parameters
# The model has no CMCI: the kernel finds corrected errors by polling the
# banks, every second here instead of every five minutes.
echo 1 > /sys/devices/system/machinecheck/machinecheck0/check_interval

# busy SECONDS: keep the vCPU running; the model fails only under load.
busy() {
	end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt $end ]; do :; done
}

# busy_until_reverts N: load until mce_reverts reads N, at most 20 s.
busy_until_reverts() {
	i=0
	while [ "$(cat $UV/mce_reverts)" != "$1" ] && [ $i -lt 20 ]; do
		busy 1
		i=$((i + 1))
	done
}

check_eq "mce_reverts is 0444" 444 "$(stat -c %a $UV/mce_reverts)"
check_eq "mce_reverts starts at 0" 0 "$(cat $UV/mce_reverts)"
check_eq "mce_revert_threshold defaults to 1" 1 "$(cat $PARAMS/mce_revert_threshold)"
check_eq "mce_revert_window_s defaults to 60" 60 "$(cat $PARAMS/mce_revert_window_s)"

# No machine check, no revert.
echo -103 > $PKG/core_offset_mv
busy 3
check_eq "-103 mV under load: the model reported no machine check" 0 "$(fwctl mces)"
check_eq "... nothing reverted" 0 "$(cat $UV/mce_reverts)"
check_eq "... the firmware still holds -103 mV" -103 "$(fw_offset_mv 0)"

# One machine check with an offset in force reverts every plane.
taint0=$(taint)
kmsg_mark "mce one"
fwctl clear-log
echo -108 > $PKG/core_offset_mv
# From the model's log, not its word: on a slow guest the first machine
# check may already have been polled and reverted by the time fwctl runs.
check_eq "the firmware took -108 mV" -108 \
	"$(word_offset_mv "$(fw_write_commands 0 | grep -m 1 "^0x80000011")")"
busy_until_reverts 1
check "-108 mV under load: the model reported machine checks" [ "$(fwctl mces)" -ge 1 ]
check_eq "a machine check reverted the offsets" 1 "$(cat $UV/mce_reverts)"
check_eq "the firmware's core word is its boot word again" 0x0004cd2c "$(fwctl word 0)"
check_eq "the firmware's cache word is its boot word again" 0x0004cd28 "$(fwctl word 2)"
check_eq "core_offset_mv reads 0" 0 "$(cat $PKG/core_offset_mv)"
check_grep "the revert is logged" \
	"machine checks while offsets were in force: back to the boot offsets" \
	"$(dmesg_since "mce one")"
check_grep "with what it wrote back" \
	"package 00: machine check: restored core -108->0 mV cache -108->0 mV" \
	"$(dmesg_since "mce one")"
check_eq "the kernel took the machine-check taint (M, bit 4)" 16 \
	$(( ($(taint) & ~taint0) & 16 ))
mces=$(fwctl mces)
busy 3
check_eq "at the boot offsets the model reports no more machine checks" \
	"$mces" "$(fwctl mces)"
check_eq "... and nothing more is reverted" 1 "$(cat $UV/mce_reverts)"

# A threshold of 3: the first two machine checks the kernel logs do not
# revert, the third does.
echo 3 > $PARAMS/mce_revert_threshold
kmsg_mark "mce three"
echo -108 > $PKG/core_offset_mv
busy_until_reverts 2
logged=$(dmesg_since "mce three" | grep -c 'Hardware Error.*Machine Check: ')
check_eq "with a threshold of 3, machine checks reverted again" 2 "$(cat $UV/mce_reverts)"
check "... only after the kernel logged at least 3 of them ($logged)" [ "$logged" -ge 3 ]
check_eq "... the firmware's core word is its boot word again" 0x0004cd2c "$(fwctl word 0)"

# A threshold of 0 turns the revert off.
echo 0 > $PARAMS/mce_revert_threshold
mces=$(fwctl mces)
echo -108 > $PKG/core_offset_mv
busy 4
check "threshold 0: the model reported machine checks" [ "$(fwctl mces)" -gt "$mces" ]
check_eq "... and nothing reverted them" 2 "$(cat $UV/mce_reverts)"
check_eq "... the firmware still holds -108 mV" -108 "$(fw_offset_mv 0)"
echo 0 > $PKG/core_offset_mv
echo 1 > $PARAMS/mce_revert_threshold

check_no_splat
exit $LIB_FAILED
