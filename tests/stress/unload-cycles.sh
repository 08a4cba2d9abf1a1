#!/bin/sh
# qemu-run: --append "intel_undervolt.emulate=1"
# 50 load/unload cycles of intel_undervolt with offsets set in between;
# intel_undervolt_emu stays loaded. Each unload puts the firmware back to
# its boot data words. Then a kmemleak scan finds nothing.
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
boot=$(emu_words)

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
	if [ -e $UV ] || [ "$(emu_words)" != "$boot" ]; then
		fail "cycle $i: after unload, sysfs gone and boot words expected; words '$(emu_words)', boot '$boot'"
		bad=1
	fi
	if ! modprobe intel_undervolt emulate=1 || [ ! -d $PKG ]; then
		fail "cycle $i: modprobe failed"
		bad=1
		break
	fi
	i=$((i + 1))
done
echo "# $CYCLES cycles in $(($(date +%s) - start)) s"
[ $bad -eq 0 ] && pass "$CYCLES load/unload cycles, boot words back after each unload"
check_eq "the module parameter emulate reads Y" Y "$(cat /sys/module/intel_undervolt/parameters/emulate)"

# kmemleak reports an object only once it is 5 s old and unreferenced.
sleep 6
echo scan > $KMEMLEAK
echo scan > $KMEMLEAK
leaks=$(cat $KMEMLEAK)
check_eq "kmemleak reports no leak" "" "$leaks"
[ -n "$leaks" ] && printf '%s\n' "$leaks" | head -60 | sed 's/^/# /'
finish
