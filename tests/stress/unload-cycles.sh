#!/bin/sh
# 50 load/unload cycles of intel_undervolt with offsets set in between.
# Each unload puts the firmware model (qemu/MODEL.md) back to its boot
# data words. Then a kmemleak scan finds nothing.
. /test/lib.sh

UV=/sys/devices/system/cpu/intel_undervolt
PKG=$UV/package_00
KMEMLEAK=/sys/kernel/debug/kmemleak
CYCLES=${CYCLES:-50}

check "intel_undervolt is loaded" test -d $PKG
check "kmemleak is available" test -w $KMEMLEAK
# Leaks from boot are not ours: forget them before the cycles.
echo scan > $KMEMLEAK
echo clear > $KMEMLEAK
boot=$(fw_words)
check_eq "the model starts at its boot words" \
	"0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001" "$boot"

i=1
bad=0
start=$(date +%s)
while [ $i -le "$CYCLES" ]; do
	if [ "$(writefile $PKG/core_offset_mv -$((i + 20)))" != OK ] ||
		[ "$(writefile $PKG/gpu_offset_mv -$i)" != OK ] ||
		[ "$(writefile $PKG/analogio_offset_mv -5)" != OK ]; then
		fail "cycle $i: the offsets could not be written"
		bad=1
	fi
	if ! rmmod intel_undervolt; then
		fail "cycle $i: rmmod failed"
		bad=1
		break
	fi
	if [ -e $UV ] || [ "$(fw_words)" != "$boot" ]; then
		fail "cycle $i: after unload, sysfs gone and boot words expected; words '$(fw_words)', boot '$boot'"
		bad=1
	fi
	if ! modprobe intel_undervolt || [ ! -d $PKG ]; then
		fail "cycle $i: modprobe failed"
		bad=1
		break
	fi
	i=$((i + 1))
done
echo "# $CYCLES cycles in $(($(date +%s) - start)) s"
[ $bad -eq 0 ] && pass "$CYCLES load/unload cycles, boot words back after each unload"
check_eq "after the cycles the driver still writes: core -30" OK "$(writefile $PKG/core_offset_mv -30)"
check_eq "... and the model holds it" -30 "$(fw_offset_mv 0)"

# kmemleak reports an object only once it is 5 s old and unreferenced.
sleep 6
echo scan > $KMEMLEAK
echo scan > $KMEMLEAK
leaks=$(cat $KMEMLEAK)
check_eq "kmemleak reports no leak" "" "$leaks"
[ -n "$leaks" ] && printf '%s\n' "$leaks" | head -60 | sed 's/^/# /'
finish
