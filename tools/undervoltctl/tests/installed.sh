#!/bin/bash
# tests/installed.sh BINARY: the installed undervoltctl (the Debian
# package's autopkgtest, debian/tests/installed) on a fake sysfs tree in a
# temporary directory: what a user does first, and what the package must
# have put where. Unlike tests/run.sh it needs no test build's hooks: a
# release build reads no UNDERVOLTCTL_* variable, so /proc, /dev, /run and
# /var/lib/undervoltctl are the machine's. It only reads them where it runs
# as autopkgtest does, as a user without a driver, a trial or a search: the
# offsets it writes are the fake tree's (--sysfs-root).
# Prints TAP lines and "N passed, N failed"; exits 1 if any check failed.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: tests/installed.sh BINARY" >&2; exit 2; }
bin=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-installed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/sys
drv=$root/devices/system/cpu/intel_undervolt
passed=0
failed=0

check() {	# check DESC COMMAND...
	local desc=$1
	shift
	if "$@" >"$tmp/log" 2>&1; then
		echo "ok - undervoltctl installed: $desc"
		passed=$((passed + 1))
	else
		echo "not ok - undervoltctl installed: $desc"
		sed 's/^/#   /' "$tmp/log"
		failed=$((failed + 1))
	fi
}

# The driver's v3 files: offsets, the values it found at bind, bounds.
mkdir -p "$drv/package_00" "$root/module/intel_undervolt/parameters"
echo -250 > "$drv/min_offset_mv"
echo 0 > "$drv/max_offset_mv"
for pl in core cache; do
	echo 0 > "$drv/package_00/${pl}_offset_mv"
	echo 0 > "$drv/package_00/initial_${pl}_offset_mv"
done

uvc() { "$bin" --sysfs-root "$root" "$@"; }
offsets() { echo "$(cat "$drv/package_00/core_offset_mv") $(cat "$drv/package_00/cache_offset_mv")"; }

version() {	# the package's upstream version is the tool's
	local want
	want=$(dpkg-query -W -f='${Version}' undervoltctl 2>/dev/null) || return 0
	want=${want#*:}
	[ "$(uvc --version)" = "undervoltctl ${want%-*}" ]
}
check "--version prints the package's version" version
check "set --help prints set's usage" sh -c "'$bin' set --help | grep -q '^usage: undervoltctl set '"
check "status lists the fake package" sh -c "'$bin' --sysfs-root '$root' status | grep -q '^package 0: writable'"
set_values() { uvc set core=-50 cache=-50 && [ "$(offsets)" = "-50 -50" ]; }
reset_values() { uvc reset && [ "$(offsets)" = "0 0" ]; }
printf '\xef\xbb\xbfcore = -30\r\ncache = -30\r\n' > "$tmp/undervolt.conf"
apply_file() { uvc apply "$tmp/undervolt.conf" && [ "$(offsets)" = "-30 -30" ]; }
# Where the kernel has the sgx flag, the tool refuses every write (exit 4)
# before it writes, whatever the tree says: the machine's /proc/cpuinfo.
if grep -qw sgx /proc/cpuinfo 2>/dev/null; then
	for c in "set core=-50 cache=-50 writes both planes" \
		"reset writes the initial values back" \
		"apply takes a file with a byte order mark and CRLF"; do
		echo "ok - undervoltctl installed: $c # SKIP this CPU has SGX on"
		passed=$((passed + 1))
	done
else
	check "set core=-50 cache=-50 writes both planes" set_values
	check "reset writes the initial values back" reset_values
	check "apply takes a file with a byte order mark and CRLF" apply_file
fi
# core and cache alike: the check of this CPU's coupling has nothing to say.
printf "undervolt 0 'CPU' -80\nundervolt 2 'CPU Cache' -80\n" > "$tmp/intel-undervolt.conf"
echo 'core = -1' > "$tmp/out.conf"
chmod 600 "$tmp/out.conf"
import_keeps() {
	uvc import -o "$tmp/out.conf" "$tmp/intel-undervolt.conf" &&
	[ "$(stat -c %a "$tmp/out.conf")" = 600 ] &&
	grep -qx 'core = -80' "$tmp/out.conf"
}
check "import -o replaces a file and keeps its mode" import_keeps
mkfifo "$tmp/fifo"
check "import -o refuses a FIFO" sh -c "! '$bin' import -o '$tmp/fifo' '$tmp/intel-undervolt.conf' && test -p '$tmp/fifo'"
check "report is valid JSON" sh -c "'$bin' --sysfs-root '$root' report | python3 -c 'import json,sys; json.load(sys.stdin)'"
check "without the driver status exits 3" sh -c "'$bin' --sysfs-root '$tmp/empty' status; test \$? = 3"

# What the package installed.
if [ "$bin" = /usr/sbin/undervoltctl ]; then
	units=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
	for f in /usr/share/man/man8/undervoltctl.8.gz /usr/share/man/man5/undervolt.conf.5.gz \
		/usr/share/undervoltctl/undervolt.conf.example \
		"${units:-/lib/systemd/system}/undervoltctl.service" \
		"${units:-/lib/systemd/system}/undervoltctl-boot-confirm.service" \
		"${units:-/lib/systemd/system}/undervoltctl-mce-guard.service"; do
		check "the package installed $f" test -f "$f"
	done
	no_conffile() { [ -z "$(dpkg-query -W -f='${Conffiles}' undervoltctl)" ]; }
	check "/etc/undervolt.conf is no conffile" no_conffile
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
