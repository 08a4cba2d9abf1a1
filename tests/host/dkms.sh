#!/bin/bash
# The DKMS build on Debian's own kernels (issue 6). For Debian 12's stock 6.1
# and 6.12: fetch the image and headers (scripts/stock-kernels, into the
# cache, nothing installed); build the DKMS source tree (scripts/dkms-source)
# against the headers, with no warning; build it as a user would, with
# Debian's dkms (downloaded, not installed) and dkms.conf, in private DKMS
# trees (dkms add + build; never install); put the module and the stock
# msr.ko in an initramfs, boot the stock vmlinuz under our QEMU, whose CPU
# carries the OC mailbox model (qemu/MODEL.md), and run tests/dkms/stock.sh,
# then each of the driver's guest tests (tests/guest/undervolt-*.sh) with
# the options of their "# qemu-run:" line.
#
# tests/host/dkms.sh [FLAVOUR...]   FLAVOUR: 6.1, 6.12 (default: both)
#
# Environment:
#   DKMS_SOURCE_DIR  build this DKMS source tree instead of assembling one
#                    from the series (e.g. a tree unpacked from a release)
#   DKMS_GUEST_MAIN  the first guest script (default tests/dkms/stock.sh),
#                    called with the kernel version as its argument
#   DKMS_GUEST_TESTS space-separated guest scripts to run after
#                    tests/dkms/stock.sh (default tests/guest/undervolt-*.sh);
#                    a script with a line "# dkms: skip REASON" is skipped
#                    (e.g. it needs KUnit, which Debian's kernels lack).
#
# Prints "ok - ..." / "not ok - ..." lines; each line of a guest names the
# kernel in brackets. Exits non-zero when any check failed.
#
# Its guests boot Debian's kernels, not the test kernel, so tests/run-all
# runs it beside the test kernel's guest suites:
# run-all: beside, with guests
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

failed=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failed=1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/dkms-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# show_log FILE: the end of a failed step's log, as TAP comments.
show_log() {
	tail -n 40 "$1" | sed 's/^/# /'
}

# Modules the module at $1 needs, by name, from its modinfo.
module_deps() {
	modinfo -F depends "$1" 2>/dev/null | tr ',' '\n' | sed '/^$/d'
}

# copy_stock_module ROOT KVER MODROOT NAME: copy a module of the stock
# kernel (and what it depends on) into MODROOT, decompressed so busybox's
# modprobe can load it.
copy_stock_module() {
	local root=$1 kver=$2 modroot=$3 name=$4 src rel dst dep
	src=$(find "$root/lib/modules/$kver/kernel" -name "$name.ko*" | head -n1)
	[ -n "$src" ] || return 1
	rel=${src#"$root/"}
	rel=${rel%.xz}
	rel=${rel%.zst}
	rel=${rel%.gz}
	dst=$modroot/$rel
	[ -f "$dst" ] && return 0
	mkdir -p "${dst%/*}"
	case $src in
	*.xz) xz -dc "$src" > "$dst" ;;
	*.zst) zstd -qdc "$src" > "$dst" ;;
	*.gz) gzip -dc "$src" > "$dst" ;;
	*) cp "$src" "$dst" ;;
	esac
	for dep in $(module_deps "$dst"); do
		copy_stock_module "$root" "$kver" "$modroot" "$dep" || return 1
	done
}

# built_modules BUILD: the modules the last build of the tree made, from
# its modules.order (BUILD/driver/intel_undervolt.ko on 6.1, .o on newer
# kernels; absolute paths for an external module), as .ko paths, one a line.
built_modules() {
	sed -n 's/\.\(o\|ko\)$/.ko/p' "$1/modules.order" 2>/dev/null |
		sed "s|^\([^/]\)|$1/\1|"
}

# make_modroot ROOT KVER BUILD MODROOT: the initramfs modules: the built
# ones under updates/dkms (where DKMS installs them), msr.ko and every
# stock module they depend on, indexed by depmod.
make_modroot() {
	local root=$1 kver=$2 build=$3 modroot=$4 ko dep f
	local mods=$modroot/lib/modules/$kver
	rm -rf "$modroot"
	mkdir -p "$mods/updates/dkms"
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -f "$root/lib/modules/$kver/$f" ] && cp "$root/lib/modules/$kver/$f" "$mods/"
	done
	while read -r ko; do
		cp "$ko" "$mods/updates/dkms/" || return 1
	done < <(built_modules "$build")
	# The msr driver: fwctl, the tests' window on the firmware model, reads
	# it through /dev/cpu/*/msr.
	copy_stock_module "$root" "$kver" "$modroot" msr || return 1
	for ko in "$mods"/updates/dkms/*.ko; do
		for dep in $(module_deps "$ko"); do
			[ -f "$mods/updates/dkms/$dep.ko" ] && continue
			copy_stock_module "$root" "$kver" "$modroot" "$dep" || return 1
		done
	done
	# (Debian's System.map is a stub: the exports are in Module.symvers.)
	depmod -e -E "$root/usr/src/linux-headers-$kver/Module.symvers" \
		-b "$modroot" "$kver" 2>&1 || return 1
	# The series' test kernel has the msr driver built in, so /dev/cpu/*/msr
	# is there before any test script runs; Debian builds it as a module
	# that nothing loads by itself. The guest tests are the same scripts on
	# both kernels, so have the init's coldplug (modprobe -a of the CPU's
	# modalias, which loads every module whose alias matches) load msr too.
	echo 'alias cpu:type:x86,* msr' >> "$mods/modules.alias"
}

# needs_pahole ROOT KVER: true when building modules for KVER generates BTF
# (its headers ship vmlinux, as 6.12's do) and pahole is missing here.
needs_pahole() {
	grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$1/boot/config-$2" &&
		[ -f "$1/usr/src/linux-headers-$2/vmlinux" ] &&
		! command -v pahole >/dev/null
}

# Debian 12's dkms, fetched with apt-get download and unpacked into the
# cache (not installed), reading its framework configuration from the
# cache: it builds, but never signs (no key is made in /var/lib/dkms).
# Prints the path of the dkms script.
fetch_dkms() {
	local dir=$LU_CACHE/stock/dkms tmp
	if [ ! -x "$dir/dkms" ]; then
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/dkms-deb.XXXXXX")
		(cd "$tmp" && apt-get download -q=2 dkms 2>&1 | grep -v 'unsandboxed as root' >&2)
		dpkg -x "$tmp"/dkms_*.deb "$tmp/root" || { rm -rf "$tmp"; return 1; }
		mkdir -p "$dir"
		echo 'sign_file="/nonexistent/sign-file"' > "$dir/framework.conf"
		sed "s|/etc/dkms/framework.conf /etc/dkms/framework.conf.d/\*.conf|$dir/framework.conf|" \
			"$tmp/root/usr/sbin/dkms" > "$dir/dkms.new"
		rm -rf "$tmp"
		grep -q "$dir/framework.conf" "$dir/dkms.new" || return 1
		chmod +x "$dir/dkms.new"
		mv "$dir/dkms.new" "$dir/dkms"
	fi
	echo "$dir/dkms"
}

# dkms_build FLAVOUR KVER ROOT: what a user runs, `dkms add` and
# `dkms build`, with dkms.conf as shipped, in private DKMS trees.
dkms_build() {
	local flavour=$1 kver=$2 root=$3 dkms tree log=$work/dkms-$2.log built version
	if needs_pahole "$root" "$kver"; then
		echo "ok - [$flavour] dkms add and build with dkms.conf # SKIP pahole (dwarves) missing"
		return
	fi
	if ! dkms=$(fetch_dkms 2> "$log"); then
		fail "[$flavour] Debian's dkms downloads"
		show_log "$log"
		return
	fi
	tree=$work/dkms-$kver
	mkdir -p "$tree/src" "$tree/var" "$tree/lib"
	dkms+=(--dkmstree "$tree/var" --sourcetree "$tree/src" --installtree "$tree/lib")
	if [ -n "${DKMS_SOURCE_DIR:-}" ]; then
		version=$(sed -n 's/^PACKAGE_VERSION="\?\([^"]*\)"\?$/\1/p' "$DKMS_SOURCE_DIR/dkms.conf")
		cp -a "$DKMS_SOURCE_DIR" "$tree/src/undervolt-$version"
	else
		version=0.1
		"$LU_ROOT/scripts/dkms-source" "$tree/src/undervolt-$version" > "$log" 2>&1
	fi
	if [ -f "$tree/src/undervolt-$version/dkms.conf" ] &&
		"${dkms[@]}" add -m undervolt -v "$version" >> "$log" 2>&1 &&
		"${dkms[@]}" build -j 1 -m undervolt -v "$version" -k "$kver" \
			--kernelsourcedir "$root/usr/src/linux-headers-$kver" >> "$log" 2>&1; then
		pass "[$flavour] dkms add and build with dkms.conf"
	else
		fail "[$flavour] dkms add and build with dkms.conf"
		show_log "$log"
		tail -n 20 "$tree/var/undervolt/$version/build/make.log" 2>/dev/null | sed 's/^/# /'
		return
	fi
	built=$(cd "$tree/var/undervolt/$version/$kver" 2>/dev/null && find . -name '*.ko*' -printf '%f\n' | sort | tr '\n' ' ')
	check_eq_host "[$flavour] dkms built intel_undervolt.ko and no other module" \
		"intel_undervolt.ko " "$built"
}

check_eq_host() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1 (expected '$2', got '$3')"
	fi
}

# guest LABEL QEMU-RUN-ARGS...: boot, relay the guest's TAP lines with
# LABEL after "ok - ", and count a failed boot without "not ok" as a failure.
guest() {
	local label=$1 log=$work/guest.log status
	shift
	"$LU_ROOT/scripts/qemu-run" "$@" > "$log" 2>&1
	status=$?
	tr -d '\r' < "$log" | sed -E "s/^(not )?ok - /&[$label] /"
	if grep -q '^not ok - ' <(tr -d '\r' < "$log"); then
		failed=1
	elif [ $status -ne 0 ]; then
		fail "[$label] the guest ran to the end (qemu-run status $status)"
	elif ! grep -q '^ok - ' <(tr -d '\r' < "$log"); then
		fail "[$label] the guest ran checks"
	fi
}

# The driver's guest tests, to run against the DKMS build too.
guest_tests() {
	local t
	if [ -n "${DKMS_GUEST_TESTS+set}" ]; then
		for t in $DKMS_GUEST_TESTS; do echo "$t"; done
		return 0
	fi
	for t in "$LU_ROOT"/tests/guest/undervolt-*.sh; do
		[ -f "$t" ] && echo "$t"
	done
}

test_kernel() {
	local flavour=$1 kver=$2 root=$3 build log modroot t opts line reason tests append resume
	local tree_lock status
	local kmake=(make -C "$root/lib/modules/$kver/build")
	log=$work/build-$kver.log

	# One persistent tree per kernel, so a rebuild is incremental; a run
	# holds it until its module is copied out, so that two runs on one
	# cache never assemble or build in it at once.
	mkdir -p "$LU_CACHE/dkms"
	exec {tree_lock}>"$LU_CACHE/dkms/$kver.lock"
	flock "$tree_lock"
	if [ -n "${DKMS_SOURCE_DIR:-}" ]; then
		build=$LU_CACHE/dkms/$kver/custom
		rm -rf "$build"
		mkdir -p "${build%/*}"
		cp -a "$DKMS_SOURCE_DIR" "$build"
	else
		if ! build=$("$LU_ROOT/scripts/dkms-source" "$LU_CACHE/dkms/$kver/undervolt-0.1" 2>"$log"); then
			fail "[$flavour] the DKMS source tree assembles from the series and dkms/"
			show_log "$log"
			return
		fi
	fi
	kmake+=(M="$build")
	# Debian's 6.12 headers generate module BTF with pahole (package
	# dwarves, which linux-kbuild-6.12 depends on); without it, skip BTF.
	if needs_pahole "$root" "$kver"; then
		echo "# pahole (package dwarves) missing: building without module BTF"
		kmake+=(CONFIG_DEBUG_INFO_BTF_MODULES=)
	fi

	if ! "${kmake[@]}" -j1 modules > "$log" 2>&1; then
		fail "[$flavour] intel_undervolt builds against Debian's $kver headers"
		show_log "$log"
		return
	fi
	pass "[$flavour] intel_undervolt builds against Debian's $kver headers"
	if grep -E 'warning:|WARNING:' "$log" > "$work/warnings"; then
		fail "[$flavour] the build has no compiler or modpost warning"
		sed 's/^/# /' "$work/warnings"
	else
		pass "[$flavour] the build has no compiler or modpost warning"
	fi
	check_eq_host "[$flavour] the build made intel_undervolt.ko and no other module" \
		"$build/driver/intel_undervolt.ko" "$(built_modules "$build" | paste -sd' ')"
	line=$(modinfo -F vermagic "$build/driver/intel_undervolt.ko" 2>/dev/null)
	if [ "${line%% *}" = "$kver" ]; then
		pass "[$flavour] intel_undervolt.ko's vermagic names $kver"
	else
		fail "[$flavour] intel_undervolt.ko's vermagic names $kver (got '$line')"
	fi

	dkms_build "$flavour" "$kver" "$root"

	modroot=$work/modroot-$kver
	make_modroot "$root" "$kver" "$build" "$modroot" > "$work/depmod.log" 2>&1
	status=$?
	exec {tree_lock}>&-
	if [ $status -ne 0 ]; then
		fail "[$flavour] the modules and their stock dependencies are found"
		show_log "$work/depmod.log"
		return
	fi
	if grep -q 'needs unknown symbol' "$work/depmod.log"; then
		fail "[$flavour] depmod finds every symbol the modules use in $kver"
		sed 's/^/# /' "$work/depmod.log"
		return
	fi
	pass "[$flavour] depmod finds every symbol the modules use in $kver"

	# The restore after resume (the driver's PM notifier), on every kernel.
	resume=resume
	# For every boot of a stock kernel: Debian's kernels print "RETBleed:
	# WARNING: ..." on the guest's Skylake model, which qemu-run counts as a
	# splat; and they call /sbin/modprobe for request_module(), where the
	# guest has busybox's /bin/modprobe (the test kernel is configured so).
	append="retbleed=off sysctl.kernel.modprobe=/bin/modprobe"
	guest "$flavour" --smp 2 --kernel "$root/boot/vmlinuz-$kver" --modules "$modroot" \
		--append "$append" \
		"${DKMS_GUEST_MAIN:-$LU_ROOT/tests/dkms/stock.sh}" "$kver" $resume

	mapfile -t tests < <(guest_tests)
	for t in "${tests[@]}"; do
		reason=$(sed -n 's/^# dkms: skip *//p' "$t" | head -n1)
		if [ -n "$reason" ]; then
			echo "ok - [$flavour ${t##*/}] # SKIP $reason"
			continue
		fi
		opts=()
		line=$(sed -n 's/^# qemu-run: //p' "$t" | head -n1)
		[ -n "$line" ] && eval "opts=($line)"
		guest "$flavour ${t##*/}" "${opts[@]}" \
			--kernel "$root/boot/vmlinuz-$kver" --modules "$modroot" \
			--append "$append" "$t"
	done
}

flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(6.1 6.12)
if ! "$LU_ROOT/scripts/stock-kernels" "${flavours[@]}" > "$work/kernels" 2> "$work/fetch.log"; then
	fail "Debian's stock kernels download and unpack"
	show_log "$work/fetch.log"
	exit 1
fi
pass "Debian's stock kernels download and unpack ($(cut -d' ' -f2 "$work/kernels" | paste -sd' '))"
mapfile -t kernels < "$work/kernels"
for k in "${kernels[@]}"; do
	# shellcheck disable=SC2086
	test_kernel $k < /dev/null
done
exit $failed
