#!/bin/sh
# qemu-run: --firmware unlocked,echo=on
# A part that echoes the domain in bits 42:40 of every answer (x-oc-echo,
# qemu/MODEL.md; most suites run on the default, a part that does not):
# the driver works the same, every plane's write reaching the model.
. /test/lib.sh

PKG=/sys/devices/system/cpu/intel_undervolt/package_00

check "the driver binds" test -d $PKG
check_eq "gpu -30" OK "$(writefile $PKG/gpu_offset_mv -30)"
check_eq "uncore -20" OK "$(writefile $PKG/uncore_offset_mv -20)"
check_eq "analogio -10" OK "$(writefile $PKG/analogio_offset_mv -10)"
check_eq "core -40" OK "$(writefile $PKG/core_offset_mv -40)"
check_eq "the model holds each offset with its fused bits 20:0" \
	"$(offset_word -40 0x4cd2c) $(offset_word -30 0x48c16) $(offset_word -40 0x4cd28) $(offset_word -20 0x43312) $(offset_word -10 0x40001)" \
	"$(fw_words)"
check_eq "sysfs reads the model's uncore -20 mV" -20 "$(cat $PKG/uncore_offset_mv)"
kselftest 0 -s 5
check_eq "the kselftest left the words as they were" \
	"$(offset_word -40 0x4cd2c) $(offset_word -30 0x48c16) $(offset_word -40 0x4cd28) $(offset_word -20 0x43312) $(offset_word -10 0x40001)" \
	"$(fw_words)"
check "intel_undervolt unloads" rmmod intel_undervolt
out=$(msrtool xfer 0 0x8000031000000000)
answer=$(printf '%s\n' "$out" | sed -n 's/^answer \(0x[0-9a-f]*\) .*/\1/p')
check_eq "a raw read of domain 3 is answered with domain 3 in bits 42:40" 3 \
	"$(mbox_domain "${answer:-0}")"
check_no_splat
finish
