#!/bin/sh
# Malformed and out-of-range writes fail with EINVAL or ERANGE and send no
# command to the mailbox.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
PARAMS=/sys/module/intel_undervolt/parameters
TAINT_CPU_OUT_OF_SPEC=4

check "the sysfs directory exists" test -d $PKG

# expect_refused DESC ERRNO VALUE: the write fails with ERRNO, no command.
expect_refused() {
	fwctl clear-log
	check_eq "$1 is refused with $2" "$2" "$(writefile $PKG/core_offset_mv "$3")"
	check_eq "$1 sends no mailbox command" "" "$(fw_log)"
}

expect_refused "a lone newline" EINVAL "
"
expect_refused "a space" EINVAL " "
expect_refused "a leading space" EINVAL " -10"
expect_refused "a trailing space" EINVAL "-10 "
expect_refused "two trailing newlines" EINVAL "-10

"
expect_refused "hex 0x10" EINVAL "0x10"
expect_refused "hex -0x10" EINVAL "-0x10"
expect_refused "1e3" EINVAL "1e3"
expect_refused "a unit suffix" EINVAL "-10mV"
expect_refused "a fraction" EINVAL "-10.5"
expect_refused "a lone minus" EINVAL "-"
expect_refused "a word" EINVAL "minus ten"
# A NUL byte would hide the rest of the text from the parser.
fwctl clear-log
check_eq "-5, a NUL byte and junk is refused with EINVAL" EINVAL \
	"$(writefile -x $PKG/core_offset_mv 2d3500616263)"
check_eq "-5, a NUL byte and junk sends no mailbox command" "" "$(fw_log)"
expect_refused "overflow 99999999999" ERANGE "99999999999"
expect_refused "overflow -99999999999" ERANGE "-99999999999"
expect_refused "overflow 2147483648" ERANGE "2147483648"
expect_refused "-251 (below -max_undervolt_mv)" ERANGE "-251"
expect_refused "-1000" ERANGE "-1000"
expect_refused "+1 (no allow_overvolt)" ERANGE "1"
expect_refused "+999 (no allow_overvolt)" ERANGE "999"

# 4 KiB of garbage.
i=0
: > /tmp/garbage
while [ $i -lt 64 ]; do
	printf '%s' '-1x2y3z!@#$%^&*()_+=-1x2y3z!@#$%^&*()_+=-1x2y3z!@#$%^&*()_+=1234' >> /tmp/garbage
	i=$((i + 1))
done
check_eq "the garbage is 4 KiB" 4096 "$(wc -c < /tmp/garbage | tr -d ' ')"
fwctl clear-log
check_eq "4 KiB of garbage is refused with EINVAL" EINVAL "$(writefile -f $PKG/core_offset_mv /tmp/garbage)"
check_eq "4 KiB of garbage sends no mailbox command" "" "$(fw_log)"
# 4 KiB of digits overflows.
tr -c '0' '7' < /tmp/garbage > /tmp/digits
fwctl clear-log
res=$(writefile -f $PKG/core_offset_mv /tmp/digits)
check_grep "4 KiB of digits is refused (ERANGE or EINVAL)" "^(ERANGE|EINVAL)$" "$res"
check_eq "4 KiB of digits sends no mailbox command" "" "$(fw_log)"

# A zero-length write reaches no store method at all.
fwctl clear-log
writefile $PKG/core_offset_mv "" >/dev/null
check_eq "an empty write sends no mailbox command" "" "$(fw_log)"

check_eq "the firmware's core word is still its fused word" 0x0004cd2c "$(fwctl word 0)"
check_eq "refused writes do not taint" 0 $(( $(taint) & TAINT_CPU_OUT_OF_SPEC ))

# The log does see commands: a valid write of -10 mV is read, written,
# read back (a write of the 0 mV in force would only be read).
fwctl clear-log
check_eq "a valid write of -10 mV to gpu succeeds" OK "$(writefile $PKG/gpu_offset_mv -10)"
check_eq "and its three commands reach the mailbox" \
	"0x8000011000000000 0x80000111$(offset_word -10 0x48c16 | cut -c3-) 0x8000011000000000" \
	"$(echo $(fw_log))"
writefile $PKG/gpu_offset_mv 0 >/dev/null

# Read-only files (series v3: the initial offsets, the bounds and the
# module parameters, fixed at load): kernfs refuses to open them for
# writing, root or not, with EACCES. Any other answer (ENOENT for a file
# that is not there, nothing from a writefile that did not run) is not
# that refusal.
fwctl clear-log
for f in $PKG/initial_core_offset_mv $PKG/initial_gpu_offset_mv \
	$PKG/initial_cache_offset_mv $PKG/initial_uncore_offset_mv \
	$PKG/initial_analogio_offset_mv $UV/min_offset_mv $UV/max_offset_mv \
	$PARAMS/max_undervolt_mv $PARAMS/allow_overvolt; do
	check_eq "${f#/sys/} cannot be written (EACCES)" EACCES "$(writefile $f -10)"
done
check_eq "nor reached the mailbox" "" "$(fw_log)"
check_eq "the bounds are as they were" "-250 0 250 N" \
	"$(cat $UV/min_offset_mv $UV/max_offset_mv $PARAMS/max_undervolt_mv $PARAMS/allow_overvolt | tr '\n' ' ' | sed 's/ $//')"

finish
