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

# Exactly these files, the list of docs/architecture.md ("What `make install`
# installs"): the Debian package is made from this install.
INSTALLED="/usr/lib/systemd/system/undervoltctl-boot-confirm.service
/usr/lib/systemd/system/undervoltctl-mce-guard.service
/usr/lib/systemd/system/undervoltctl-tune-recover.service
/usr/lib/systemd/system/undervoltctl-tune-resume.service
/usr/lib/systemd/system/undervoltctl.service
/usr/lib/udev/rules.d/60-undervoltctl.rules
/usr/sbin/undervoltctl
/usr/share/bash-completion/completions/undervoltctl
/usr/share/man/man5/undervolt.conf.5
/usr/share/man/man8/undervoltctl.8
/usr/share/undervoltctl/undervolt.conf.example"

installed() {
	local got
	make -s install DESTDIR="$tmp/dest" PREFIX=/usr OUT="$tmp/out" || return 1
	got=$(cd "$tmp/dest" && find . -type f | sed 's/^\.//' | LC_ALL=C sort)
	[ "$got" = "$INSTALLED" ] || { printf 'installed:\n%s\n' "$got"; return 1; }
	grep -qx 'ExecStart=/usr/sbin/undervoltctl apply --boot' \
		"$tmp/dest/usr/lib/systemd/system/undervoltctl.service"
}

# Issue 14, item 3: a plain make first, then install with another PREFIX.
prefix_after_make() {
	make -s OUT="$tmp/out3" || return 1
	make -s install DESTDIR="$tmp/dest3" PREFIX=/usr OUT="$tmp/out3" || return 1
	grep -qx 'ExecStart=/usr/sbin/undervoltctl apply --boot' \
		"$tmp/dest3/usr/lib/systemd/system/undervoltctl.service"
}

# Issue 14, item 9: the unit no longer skips silently when the driver is
# not there yet; the udev rule runs it again when the driver binds.
unit() {
	local u=$tmp/out/undervoltctl.service
	grep -qx 'Type=oneshot' "$u" &&
	grep -qx 'SuccessExitStatus=3' "$u" &&
	! grep -q '^ConditionPathExists=/sys' "$u" &&
	! grep -v '^#' "$u" | grep -qiE 'sleep|suspend|hibernate|resume'
}

# No udevadm here: the rule's one line, key by key.
udev_rule() {
	local r=$tmp/out/60-undervoltctl.rules
	[ "$(grep -v '^#' "$r" | grep -c .)" = 2 ] &&
	grep -qx 'ACTION=="add", SUBSYSTEM=="module", KERNEL=="intel_undervolt", RUN+="/bin/systemctl --no-block try-restart undervoltctl.service"' "$r"
}

# Issue 14, item 12: and when a charger is plugged in or out.
udev_rule_power() {
	grep -qx 'ACTION=="change", SUBSYSTEM=="power_supply", ENV{POWER_SUPPLY_TYPE}=="Mains|USB", RUN+="/bin/systemctl --no-block try-restart undervoltctl.service"' \
		"$tmp/out/60-undervoltctl.rules"
}

# systemd's own parser: any unknown key or bad value is a warning. The
# binary is not installed on this machine, which is the one thing allowed.
unit_verify() {
	local out
	out=$(systemd-analyze verify --man=no "$tmp/out/$1" 2>&1 |
	      grep -v ': Command /.*/undervoltctl is not executable: ')
	[ -z "$out" ] || { echo "$out"; return 1; }
}

# Issue 40, item 4: the boot apply needs a clean recovery of a search on
# record, and its offsets go through the boot assessment.
boot_units() {
	local u=$tmp/out/undervoltctl.service
	local c=$tmp/out/undervoltctl-boot-confirm.service
	grep -qx 'Requires=undervoltctl-tune-recover.service' "$u" &&
	grep -qx 'After=systemd-modules-load.service undervoltctl-tune-recover.service' "$u" &&
	grep -qx 'Wants=undervoltctl-boot-confirm.service' "$u" &&
	grep -qx 'StateDirectoryMode=0700' "$u" &&
	grep -qx 'ExecStart=/usr/sbin/undervoltctl boot-confirm' "$c" &&
	grep -qx 'After=undervoltctl.service' "$c" &&
	! grep -q '^\[Install\]' "$c" &&
	grep -qx 'RemainAfterExit=yes' "$tmp/out/undervoltctl-tune-recover.service"
}

# The machine-check guard: a unit of its own, not enabled by the package.
mce_unit() {
	local u=$tmp/out/undervoltctl-mce-guard.service
	grep -qx 'ExecStart=/usr/sbin/undervoltctl mce-guard' "$u" &&
	grep -qx 'WantedBy=multi-user.target' "$u"
}

# Issue 13: a crashed tune step is marked failed before anything applies
# the configuration, and the search resumes after that, only when asked.
tune_units() {
	local r=$tmp/out/undervoltctl-tune-recover.service
	local s=$tmp/out/undervoltctl-tune-resume.service
	grep -qx 'Before=undervoltctl.service undervoltctl-tune-resume.service' "$r" &&
	grep -qx 'ExecStart=/usr/sbin/undervoltctl tune --recover' "$r" &&
	grep -qx 'ConditionPathExists=/var/lib/undervoltctl/tune.resume' "$s" &&
	grep -qx 'After=undervoltctl-tune-recover.service undervoltctl.service' "$s" &&
	grep -qx 'ExecStart=/usr/sbin/undervoltctl tune --resume' "$s"
}

# Issue 36: the units are hardened, and still able to write the driver:
# no PrivateDevices= (it drops CAP_SYS_RAWIO) and no ProtectKernelTunables=
# (it makes /sys read-only) where a unit writes offsets or tracefs; tune's
# units may write its state and /etc. Issue 40: what the v3 tool needs on
# top: the state directory (mode 0700) for the boot assessment and tune's
# lock, a running trial's /run/undervoltctl (created by a resumed search,
# which arms trials), and the kernel log, read to explain a refusal.
hardened() {
	local u
	for u in $UNITS undervoltctl-boot-confirm.service; do
		u=$tmp/out/$u
		grep -qx 'ProtectSystem=strict' "$u" && grep -qx 'NoNewPrivileges=yes' "$u" &&
		grep -qx 'ProtectHome=yes' "$u" && grep -qx 'PrivateTmp=yes' "$u" &&
		grep -qx 'RestrictAddressFamilies=AF_UNIX' "$u" || { echo "$u"; return 1; }
	done
	for u in $UNITS; do
		u=$tmp/out/$u
		! grep -qE '^(PrivateDevices|ProtectKernelTunables|ProtectKernelLogs)=' "$u" || { echo "$u"; return 1; }
	done
	for u in undervoltctl.service undervoltctl-tune-recover.service \
		 undervoltctl-tune-resume.service undervoltctl-boot-confirm.service; do
		u=$tmp/out/$u
		grep -qx 'StateDirectory=undervoltctl' "$u" &&
		grep -qx 'StateDirectoryMode=0700' "$u" || { echo "$u"; return 1; }
	done
	grep -qx 'ReadWritePaths=/var/lib/undervoltctl /etc' "$tmp/out/undervoltctl-tune-resume.service" &&
	grep -qx 'ReadWritePaths=/var/lib/undervoltctl /etc' "$tmp/out/undervoltctl-tune-recover.service" &&
	grep -qx 'RuntimeDirectory=undervoltctl' "$tmp/out/undervoltctl-tune-resume.service" &&
	grep -qx 'RuntimeDirectoryPreserve=yes' "$tmp/out/undervoltctl-tune-resume.service" &&
	grep -qx 'ReadWritePaths=-/run/undervoltctl' "$tmp/out/undervoltctl.service" &&
	grep -qx 'ReadWritePaths=-/run/undervoltctl' "$tmp/out/undervoltctl-mce-guard.service" &&
	grep -qx 'DeviceAllow=/dev/kmsg r' "$tmp/out/undervoltctl.service" &&
	grep -qx 'CapabilityBoundingSet=CAP_SYS_RAWIO CAP_SYSLOG' "$tmp/out/undervoltctl.service" &&
	grep -qx 'CapabilityBoundingSet=CAP_SYS_RAWIO CAP_SYSLOG' "$tmp/out/undervoltctl-mce-guard.service"
}
UNITS="undervoltctl.service undervoltctl-tune-recover.service undervoltctl-tune-resume.service
	undervoltctl-mce-guard.service"

# No NEEDED entry in the dynamic section, as readelf shows it: a readelf
# that is missing or fails is a failure, not an empty list of libraries.
static() {
	make -s static O="$tmp/static" || return 1
	"$tmp/static" --help | grep -q '^usage: undervoltctl' || return 1
	readelf -d "$tmp/static" > "$tmp/dynamic" ||
		{ echo "readelf -d $tmp/static failed"; return 1; }
	! grep NEEDED "$tmp/dynamic"
}

# groff's warnings, and mandoc's (warning level and up: its style notes
# include ".Os Linux", which groff needs to print Linux, not BSD).
manlint() {
	local out
	out=$(groff -mdoc -ww -z -Tutf8 "$1" 2>&1)
	if command -v mandoc >/dev/null; then
		out+=$(mandoc -T lint -W warning "$1" 2>&1 | grep -v 'outdated mandoc.db')
	fi
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

# Issue 14, item 8: planes given are not offered again; -o filenames.
completion_given() {
	# shellcheck disable=SC1091
	. ./undervoltctl.bash-completion
	COMP_WORDS=(undervoltctl set core=-50 gpu=-20 '') COMP_CWORD=4
	_undervoltctl
	[ "${COMPREPLY[*]}" = "cache= uncore= analogio=" ] || { echo "${COMPREPLY[*]}"; return 1; }
	complete -p undervoltctl | grep -q -- '-o filenames'
}

# Issue 14, item 8: every option, short and long, is in the man page.
man_options() {
	local o
	for o in 'Fl h , Fl -help' 'Fl -version' 'Fl j , Fl -json' 'Fl p , Fl -package' \
		'Fl t , Fl -trial' 'Fl n , Fl -dry-run' 'Fl i , Fl -interval' \
		'Fl c , Fl -count' 'Fl o , Fl -output' 'Fl -partial' 'Fl -profile' 'Fl -sysfs-root' \
		'Cm report' '60-undervoltctl.rules' 'Cm tune' 'Cm stress' 'Fl -start' \
		'Fl -step' 'Fl -resolution' 'Fl -runs' 'Fl -duration' 'Fl -margin' \
		'Fl -limit' 'Fl -max-crashes' 'Fl -resume-after-crash' 'Fl -engine' \
		'Fl -resume' 'Fl -recover' 'Fl -report' 'Fl -all-cores' 'Fl -size' \
		'undervoltctl-tune-recover.service' 'Fl -boot' 'Cm boot-confirm' \
		'Cm mce-guard' 'Cm trial-revert' 'undervoltctl-boot-confirm.service' \
		'undervoltctl-mce-guard.service' 'undervolt=off' \
		'module_blacklist=intel_undervolt' 'Fl -help' 'Fl -state-dir'; do
		grep -qF -- "$o" undervoltctl.8 || { echo "missing: $o"; return 1; }
	done
}

check "make install honours DESTDIR and PREFIX, installs exactly the list of docs/architecture.md" installed
check "#14.3 make install PREFIX=/usr after a plain make: the unit runs /usr/sbin" prefix_after_make
check "#14.9 the udev rule restarts the unit when intel_undervolt binds" udev_rule
check "#14.12 the udev rule restarts the unit when the power source changes" udev_rule_power
check "#14.9 the unit is a oneshot, no silent skip without the driver, no resume hook" unit
check "systemd-analyze verify finds nothing wrong in the unit" unit_verify undervoltctl.service
check "#13 systemd-analyze verify: the tune recovery unit" unit_verify undervoltctl-tune-recover.service
check "#13 systemd-analyze verify: the tune resume unit" unit_verify undervoltctl-tune-resume.service
check "#40.4 systemd-analyze verify: the boot assessment's unit" unit_verify undervoltctl-boot-confirm.service
check "systemd-analyze verify: the machine-check guard's unit" unit_verify undervoltctl-mce-guard.service
check "#40.4 the boot apply requires a clean recovery and starts the boot assessment" boot_units
check "the machine-check guard has a unit of its own" mce_unit
check "#13 tune recovery runs before the apply, the resume after, when asked" tune_units
check "#36 #40 the units are hardened and can still write the driver, tune's files, the state and a trial, and read the kernel log" hardened
check "make static O=PATH builds a static binary" static
check "undervoltctl.8 is clean mdoc with EXAMPLES" manlint undervoltctl.8
check "undervolt.conf.5 is clean mdoc with EXAMPLES" manlint undervolt.conf.5
check "bash completion completes planes" completion
check "#14.8 bash completion leaves out planes given, quotes file names" completion_given
check "#14.8 undervoltctl.8 lists every option and verb" man_options
exit $failed
