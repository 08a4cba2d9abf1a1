#!/bin/bash
# tests/build.sh: what surrounds the binary. make install with DESTDIR and
# PREFIX, make static, the systemd unit, the man pages, the bash
# completion. One TAP line per check; exits 1 if any failed.
# shellcheck disable=SC2317 # the check functions are called through check()
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/undervoltctl-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0

check() {
	local desc=$1
	shift
	if "$@" >"$tmp/log" 2>&1; then
		echo "ok - undervoltctl build: $desc"
	else
		echo "not ok - undervoltctl build: $desc"
		sed 's/^/#   /' "$tmp/log"
		failed=1
	fi
}

installed() {
	local f
	make -s install DESTDIR="$tmp/dest" PREFIX=/usr OUT="$tmp/out" || return 1
	for f in sbin/undervoltctl share/man/man8/undervoltctl.8 \
		share/man/man5/undervolt.conf.5 \
		share/bash-completion/completions/undervoltctl \
		lib/systemd/system/undervoltctl.service \
		share/undervoltctl/undervolt.conf.example; do
		[ -f "$tmp/dest/usr/$f" ] || { echo "missing: /usr/$f"; return 1; }
	done
	grep -qx 'ExecStart=/usr/sbin/undervoltctl apply' \
		"$tmp/dest/usr/lib/systemd/system/undervoltctl.service"
}

unit() {
	local u=$tmp/out/undervoltctl.service
	grep -qx 'Type=oneshot' "$u" &&
	grep -qx 'ConditionPathExists=/sys/devices/system/cpu/intel_undervolt' "$u" &&
	! grep -v '^#' "$u" | grep -qiE 'sleep|suspend|hibernate|resume'
}

# systemd's own parser: any unknown key or bad value is a warning. The
# binary is not installed on this machine, which is the one thing allowed.
unit_verify() {
	local out
	out=$(systemd-analyze verify --man=no "$tmp/out/undervoltctl.service" 2>&1 |
	      grep -v ': Command /.*/undervoltctl is not executable: ')
	[ -z "$out" ] || { echo "$out"; return 1; }
}

static() {
	make -s static O="$tmp/static" || return 1
	"$tmp/static" --help | grep -q '^usage: undervoltctl' || return 1
	! readelf -d "$tmp/static" 2>/dev/null | grep -q NEEDED
}

manlint() {
	local out
	out=$(groff -mdoc -ww -z -Tutf8 "$1" 2>&1)
	if [ -n "$out" ]; then
		echo "$out"
		return 1
	fi
	grep -q '^\.Sh EXAMPLES' "$1"
}

completion() {
	# shellcheck disable=SC1091
	. ./undervoltctl.bash-completion
	COMP_WORDS=(undervoltctl set ca) COMP_CWORD=2
	_undervoltctl
	[ "${COMPREPLY[*]}" = "cache=" ]
}

check "make install honours DESTDIR and PREFIX" installed
check "the systemd unit is a oneshot, conditional on the driver, no resume hook" unit
check "systemd-analyze verify finds nothing wrong in the unit" unit_verify
check "make static O=PATH builds a static binary" static
check "undervoltctl.8 is clean mdoc with EXAMPLES" manlint undervoltctl.8
check "undervolt.conf.5 is clean mdoc with EXAMPLES" manlint undervolt.conf.5
check "bash completion completes planes" completion
exit $failed
