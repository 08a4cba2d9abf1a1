#!/bin/sh
# qemu-run: --firmware lock-hint
# A part that sets MSR 0x194 bit 20 ("OC lock") and still takes offsets
# (the model's lock-hint profile, qemu/MODEL.md): the bit is a hint, so
# the driver binds and writes work.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check_eq "MSR 0x194 reads bit 20 set" 0x0000000000100000 "$(msrtool read 0 0x194)"
check_eq "the model takes writes" "lock=0 sgx=0 drop=0 busy=0 hint=1 uvp=0" "$(fwctl settings)"
check "the driver binds" test -d $PKG
check_eq "a core write works" OK "$(writefile $PKG/core_offset_mv -30)"
check_eq "the model holds core -30 mV" "$(offset_word -30 0x4cd2c)" "$(fwctl word 0)"
check_eq "... and cache -30 mV (coupled)" "$(offset_word -30 0x4cd28)" "$(fwctl word 2)"
kselftest 0 -s 5
check_eq "the kselftest left core and cache at -30 mV" \
	"$(offset_word -30 0x4cd2c) $(offset_word -30 0x4cd28)" "$(fwctl word 0) $(fwctl word 2)"
check_no_splat
finish
