# Sourced by tests/run.sh, in its shell: issue 36, undervoltctl as a new
# user found it.
# The helpers (uvc, expect, check_eq, make_tree...) and $tmp, $root, $bin
# are run.sh's. One TAP line per check.

# --- issue 36: undervoltctl as a new user found it ---------------------------------
# Each check names the item of issue 36 it covers; each failed before its fix.

# 4. A peripheral's battery (scope=Device: a Bluetooth mouse) is not the
# machine's: a desktop with one runs on AC.
make_tree
ps=$root/class/power_supply
mkdir -p "$ps/hid-00:11:22:33:44:55-battery"
echo Battery > "$ps/hid-00:11:22:33:44:55-battery/type"
echo Device > "$ps/hid-00:11:22:33:44:55-battery/scope"
c=$(conf periph.conf 'core = -50\ncache = -50\n[ac]\ncore = -80\ncache = -80\n[battery]\ncore = -40\ncache = -40\n')
uvc apply --dry-run "$c"
expect "#36.4 a desktop with a wireless mouse's battery runs on AC" 0 '^on AC: '
mkdir -p "$ps/BAT0"
echo Battery > "$ps/BAT0/type"
echo System > "$ps/BAT0/scope"
uvc apply --dry-run "$c"
expect "#36.4 ... while a laptop's own battery (scope System) still counts" 0 '^on battery: '
rm -rf "$ps"

# 5. intel-undervolt's daemon and throttled's re-applied power limits and the
# TCC offset, which the embedded controller resets: that is lost, not "not
# needed"; only the offsets need no daemon.
uvc import "$here/intel-undervolt.conf"
expect "#36.5 'daemon power' says re-applying power limits is lost" 0 "" \
	"intel-undervolt.conf:26: 'daemon power' not carried over; lost: nothing here re-applies the power limits that the embedded controller resets"
expect "#36.5 ... and names intel-rapl-mmio besides intel-rapl" 0 "" \
	":26: 'daemon power'.*intel-rapl:0/.*intel-rapl-mmio:0"
expect "#36.5 'daemon tjoffset' says re-applying the TCC offset is lost" 0 "" \
	":27: 'daemon tjoffset' not carried over; lost: nothing here re-applies the temperature target offset"
expect "#36.5 'daemon undervolt:once' needs no daemon" 0 "" \
	":25: 'daemon undervolt:once' not carried over; no daemon is needed for offsets"
uvc import "$here/corpus/throttled-early-single.conf"
expect "#36.5 throttled's [GENERAL] says its re-applying is lost" 0 "" \
	"\\[GENERAL\\] not carried over; throttled's own settings: its daemon re-applied.*so that is lost.*the offsets alone need no daemon"

# 6. -h and --help after a verb print that verb's usage and exit 0.
for verb in status set confirm reset apply import monitor report boot-confirm mce-guard stress; do
	for h in -h --help; do
		uvc "$verb" "$h"
		expect "#36.6 $verb $h prints the verb's usage on stdout, exit 0" 0 "^usage: undervoltctl $verb( |\$)"
		if grep -q 'undervoltctl monitor' "$tmp/out" && [ "$verb" != monitor ]; then
			fail "#36.6 ... only that verb's ($verb $h)"
		fi
	done
done

# 11. A value given apart from its plane names the plane and the form;
# a bad option value is one line, not the whole usage text.
make_tree
uvc set core -10
expect "#36.11 'set core -10' says to write core=-10" 2 "" \
	"^undervoltctl: 'core -10': expected PLANE=MV, e.g. core=-10"
check_eq "#36.11 ... in one line" 1 "$(wc -l < "$tmp/err")"
uvc set -10
expect "#36.11 'set -10' says PLANE=MV" 2 "" "^undervoltctl: '-10': expected PLANE=MV, e.g. core=-10"
for bad in "monitor --interval x" "monitor --count 0" "status --package 100" "set --trial x core=-1" "import --profile 9" "status --package" "status --bogus"; do
	# shellcheck disable=SC2086 # BAD is a command line
	uvc $bad
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && ! grep -q '^usage:' "$tmp/err"; then
		pass "#36.11 '$bad': exit 2, one line, no usage text"
	else
		fail "#36.11 '$bad': exit 2, one line, no usage text"
	fi
done
uvc status --package
expect "#36.11 an option without its value says so" 2 "" "^undervoltctl: '--package': expects a value"
check_eq "#36.11 no such error changed anything" "00/analogio_offset_mv=0 00/cache_offset_mv=0 00/core_offset_mv=0 00/gpu_offset_mv=0 00/uncore_offset_mv=0 01/analogio_offset_mv=0 01/cache_offset_mv=0 01/core_offset_mv=0 01/uncore_offset_mv=0 0" "$(offsets)"

# 11. A byte order mark and CRLF line ends, as Windows editors save files:
# apply and import take both, and agree.
make_tree
c=$(conf bom.conf '\xef\xbb\xbfcore = -30\ncache = -30\n')
uvc apply "$c"
expect "#36.11 apply skips a UTF-8 byte order mark" 0 '^package 0 core: 0 -> -30 mV$'
c=$(conf crlf-apply.conf '# saved on Windows\r\ncore = -40\r\ncache = -40\r\n\r\n[package 1]\r\nuncore = -5\r\n')
uvc apply "$c"
expect "#36.11 apply accepts CRLF line ends, as import does" 0 '^package 1 uncore: 0 -> -5 mV$'
c=$(conf bom-iu.conf "\xef\xbb\xbfundervolt 0 'CPU' -50\r\nundervolt 2 'CPU Cache' -50\r\n")
uvc import "$c"
expect "#36.11 import skips a byte order mark before the first line" 0 '^core = -50$'
check_eq "#36.11 ... and says nothing of it" "" "$err"
printf '\xef\xbb\xbf[ThrottleStop]\r\nProfile=0\r\nFIVRVoltage00=0xF3400000\r\nUnlockVoltage00=1\r\n' > "$tmp/bom-ts.ini"
uvc import "$tmp/bom-ts.ini"
expect "#36.11 a ThrottleStop.ini with a byte order mark is still one" 0 '^core = -100$'
printf '\xef\xbb\xbf[UNDERVOLT]\r\nCORE: -60\r\nCACHE: -60\r\n' > "$tmp/bom-throttled.conf"
uvc import -o "$tmp/bom-out.conf" "$tmp/bom-throttled.conf"
expect "#36.11 a throttled file with a byte order mark and CRLF imports" 0 '^wrote '
uvc apply --dry-run "$tmp/bom-out.conf"
expect "#36.11 ... and apply takes what import wrote" 0 '^package 0 core: -40 -> -60 mV \(dry run\)$'

# 10. report: UTF-8 as it is, invalid bytes as U+FFFD, no board_version.
make_tree
mkdir -p "$root/class/dmi/id" "$tmp/proc"
printf 'Caf\xc3\xa9 Computers\n' > "$root/class/dmi/id/sys_vendor"
printf 'Mod\xe8le 3 "Pro"\n' > "$root/class/dmi/id/product_name"
echo 'SN-4711-0815' > "$root/class/dmi/id/board_version"
echo 'X1' > "$root/class/dmi/id/board_name"
UNDERVOLTCTL_PROC_ROOT=$tmp/proc uvc report
check_eq "#36.10 report is valid JSON with the UTF-8 of DMI as it is" "Café Computers" \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["firmware"]["sys_vendor"])' < "$tmp/out" 2>&1)"
if grep -q 'Café Computers' "$tmp/out"; then
	pass "#36.10 ... written as UTF-8, not escaped byte by byte"
else
	fail "#36.10 ... written as UTF-8, not escaped byte by byte"
fi
check_eq "#36.10 an invalid byte becomes U+FFFD, quotes are escaped" 'Mod\ufffdle 3 \"Pro\"' \
	"$(python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["firmware"]["product_name"])[1:-1])' < "$tmp/out" 2>&1)"
check_eq "#36.10 report has no board_version (a serial number on some machines)" "False X1 2" \
	"$(python3 -c 'import json,sys; d=json.load(sys.stdin); print("board_version" in d["firmware"], d["firmware"]["board_name"], d["schema"])' < "$tmp/out" 2>&1)"
if grep -q 'SN-4711' "$tmp/out"; then fail "#36.10 ... nor its value"; else pass "#36.10 ... nor its value"; fi

# 9. import checks core and cache against this CPU, as apply will.
cpu() {	# cpu MODEL: a /proc/cpuinfo of an Intel family 6 CPU in $tmp/cpu-MODEL
	mkdir -p "$tmp/cpu-$1"
	printf '%s\n' 'processor	: 0' 'vendor_id	: GenuineIntel' 'cpu family	: 6' \
		"model		: $1" 'stepping	: 10' > "$tmp/cpu-$1/cpuinfo"
	echo "$tmp/cpu-$1"
}
make_tree
printf "undervolt 0 'CPU' -100\nundervolt 2 'CPU Cache' -80\n" > "$tmp/differ.conf"
echo 'core = -33' > "$tmp/kept.conf"
UNDERVOLTCTL_PROC_ROOT=$(cpu 142) uvc import -o "$tmp/kept.conf" "$tmp/differ.conf"
expect "#36.9 on a coupled CPU (Kaby Lake) core != cache fails the import" 1 "" \
	"core and cache differ \(-100 and -80 mV\), and this CPU has them as one plane.*give both the value you mean in the file, e.g. -80 mV"
check_eq "#36.9 ... and writes nothing" "core = -33" "$(cat "$tmp/kept.conf")"
UNDERVOLTCTL_PROC_ROOT=$(cpu 154) uvc import -o "$tmp/kept.conf" "$tmp/differ.conf"
expect "#36.9 on Alder Lake, whose core and cache the driver writes together, too" 1 "" \
	"core and cache differ \(-100 and -80 mV\), and this CPU has them as one plane"
UNDERVOLTCTL_PROC_ROOT=$(cpu 142) uvc import --partial -o "$tmp/kept.conf" "$tmp/differ.conf"
expect "#36.9 ... with --partial both are written at the higher value" 0 '^wrote '
check_eq "#36.9 ... which is core = -80, cache = -80" "core = -80|cache = -80" \
	"$(grep -v '^#' "$tmp/kept.conf" | tr '\n' '|' | sed 's/|$//')"
uvc apply --dry-run "$tmp/kept.conf"
expect "#36.9 ... which apply takes" 0 '^package 0 core: 0 -> -80 mV \(dry run\)$'
UNDERVOLTCTL_PROC_ROOT=$(cpu 60) uvc import "$tmp/differ.conf"
expect "#36.9 on Haswell (two planes) core != cache imports without a word" 0 '^cache = -80$'
check_eq "#36.9 ... nothing on stderr" "" "$err"
UNDERVOLTCTL_PROC_ROOT=$(cpu 142) uvc import --partial "$here/corpus/throttled-t480-profiles.conf"
expect "#36.9 a throttled file whose pairs agree imports on a coupled CPU" 0 '^\[ac\]$'
printf '[UNDERVOLT.AC]\nCORE: -100\nCACHE: -90\n[UNDERVOLT.BATTERY]\nCORE: -100\nCACHE: -100\n' > "$tmp/differ-ac.conf"
UNDERVOLTCTL_PROC_ROOT=$(cpu 158) uvc import --partial -o "$tmp/ac.conf" "$tmp/differ-ac.conf"
expect "#36.9 a pair that differs on AC only is named with its source" 0 "" \
	'core and cache differ on ac \(-100 and -90 mV\)'
uvc apply --dry-run "$tmp/ac.conf"
expect "#36.9 ... and what --partial wrote applies" 0 '^package 0 core: 0 -> -'

# 1. import -o (and tune, through the same writer) replaces a regular file
# or nothing: never a device, a FIFO or what a link points to that is not
# a regular file; through a link it writes the file and keeps the link; it
# keeps mode, owner, group, ACL and labels; it refuses a directory others
# could change under it; it leaves no temporary file and removes the ones
# a crash left. As root (make check runs so), in a directory of our own.
iu=$here/intel-undervolt.conf
o1=$tmp/out1
mkdir -p "$o1"
if [ "$(id -u)" = 0 ]; then
	mknod "$o1/null" c 1 3
	uvc import -o "$o1/null" "$iu"
	expect "#36.1 import -o onto a device is refused" 1 "" "^undervoltctl: $o1/null: refused: it is a device, not a regular file"
	check_eq "#36.1 ... which stays a character device" "character special file" "$(stat -c %F "$o1/null")"
else
	pass "#36.1 (skipped: mknod needs root) import -o onto a device is refused"
	pass "#36.1 (skipped) ... which stays a character device"
fi
mkfifo "$o1/fifo"
uvc import -o "$o1/fifo" "$iu"
expect "#36.1 import -o onto a FIFO is refused" 1 "" "refused: it is a FIFO, not a regular file"
check_eq "#36.1 ... which stays a FIFO" "fifo" "$(stat -c %F "$o1/fifo")"
ln -s /proc/self/fd/1 "$o1/stdout-link"
uvc import -o "$o1/stdout-link" "$iu"
expect "#36.1 a link to /proc/self/fd/1 is refused, even with stdout a file" 1 "" "^undervoltctl: $o1/stdout-link: refused"
"${wrapper[@]}" "$bin" import -o "$o1/stdout-link" "$iu" 2>/dev/null </dev/null | cat >/dev/null
check_eq "#36.1 ... and with stdout a pipe" 1 "${PIPESTATUS[0]}"
check_eq "#36.1 ... and stays a link" "symbolic link" "$(stat -c %F "$o1/stdout-link")"
mkdir -p "$o1/real"
echo 'core = -1' > "$o1/real/undervolt.conf"
ln -s real/undervolt.conf "$o1/linked.conf"
uvc import -o "$o1/linked.conf" "$iu"
expect "#36.1 import -o through a link to a regular file writes it" 0 "^wrote $o1/linked.conf"
check_eq "#36.1 ... the link stays a link, to the same file, which holds the import" "symbolic link real/undervolt.conf core = -100" \
	"$(stat -c %F "$o1/linked.conf") $(readlink "$o1/linked.conf") $(grep '^core' "$o1/real/undervolt.conf")"
ln -s nowhere "$o1/dangling"
uvc import -o "$o1/dangling" "$iu"
expect "#36.1 a dangling link is refused" 1 "" "refused: it is a symbolic link to nothing that can be written"
echo 'core = -1' > "$o1/private.conf"
chmod 600 "$o1/private.conf"
chown 1234:5678 "$o1/private.conf" 2>/dev/null
want_owner=$(stat -c %u:%g "$o1/private.conf")
python3 - "$o1/private.conf" <<'PY' 2>/dev/null
import os, struct, sys
# An access ACL: user::rw- user:4321:r-- group::--- mask::r-- other::---
u = 0xffffffff
acl = struct.pack('<I', 2) + b''.join(struct.pack('<HHI', t, p, i) for t, p, i in
	((0x01, 6, u), (0x02, 4, 4321), (0x04, 0, u), (0x10, 4, u), (0x20, 0, u)))
os.setxattr(sys.argv[1], 'system.posix_acl_access', acl)
os.setxattr(sys.argv[1], 'security.undervoltctl-test', b'label')
PY
want_mode=$(stat -c %a "$o1/private.conf")	# the ACL's mask is its group bits
xattrs() { python3 -c 'import os,sys; print(sorted((n, os.getxattr(sys.argv[1], n).hex()) for n in os.listxattr(sys.argv[1]) if n.startswith(("security.undervoltctl", "system.posix_acl"))))' "$1" 2>&1; }
want_xattrs=$(xattrs "$o1/private.conf")
uvc import -o "$o1/private.conf" "$iu"
expect "#36.1 import -o over a 0600 file" 0 "^wrote "
check_eq "#36.1 ... keeps its mode, owner and group" "$want_mode $want_owner" "$(stat -c '%a %u:%g' "$o1/private.conf")"
check_eq "#36.1 ... and its ACL and security label" "$want_xattrs" "$(xattrs "$o1/private.conf")"
case $want_xattrs in
*posix_acl*) pass "#36.1 (the ACL and the label were there to keep)" ;;
*) pass "#36.1 (skipped: this filesystem took no ACL here)" ;;
esac
mkdir -p "$o1/shared"
chmod 777 "$o1/shared"
uvc import -o "$o1/shared/undervolt.conf" "$iu"
expect "#36.1 a directory everyone may write (no sticky bit) is refused" 1 "" \
	"refused: its directory $o1/shared is writable by everyone, who could swap the file"
check_eq "#36.1 ... and nothing is written there" "" "$(ls -A "$o1/shared")"
chmod 1777 "$o1/shared"
uvc import -o "$o1/shared/undervolt.conf" "$iu"
expect "#36.1 ... with the sticky bit (like /tmp) it is written" 0 "^wrote "
mkdir -p "$o1/users"
chown 65534:65534 "$o1/users" 2>/dev/null
if [ "$(stat -c %u "$o1/users")" != "$(id -u)" ]; then
	uvc import -o "$o1/users/undervolt.conf" "$iu"
	expect "#36.1 a directory of another user (tune -o ~user/x.conf as root) is refused" 1 "" \
		"refused: its directory $o1/users belongs to user 65534"
else
	pass "#36.1 (skipped: chown needs root) a directory of another user is refused"
fi
mkdir -p "$o1/crash"
echo 'core = -1' > "$o1/crash/undervolt.conf"
for x in aaaaaa bbbbbb; do echo partial > "$o1/crash/.undervolt.conf.uvtmp-$x"; done
touch -d '1 hour ago' "$o1/crash/.undervolt.conf.uvtmp-aaaaaa"
echo mine > "$o1/crash/undervolt.conf.orig"
uvc import -o "$o1/crash/undervolt.conf" "$iu"
expect "#36.1 import -o next to a crash's temporary files" 0 "^wrote "
check_eq "#36.1 ... removes the stale one of its pattern, keeps a young one and other files" \
	".undervolt.conf.uvtmp-bbbbbb undervolt.conf undervolt.conf.orig" "$(ls -A "$o1/crash" | tr '\n' ' ' | sed 's/ $//')"

# 11. set lasts until reboot, and says where values are kept across one.
make_tree
uvc set core=-10 cache=-10
expect "#36.11 set says its offsets last until reboot and where to keep them" 0 \
	'^until reboot: to apply these offsets at every boot, put them in /etc/undervolt.conf'
uvc set --trial 30 core=-20 cache=-20
if grep -q 'until reboot' "$tmp/out"; then
	fail "#36.11 ... but not after a trial change"
else
	pass "#36.11 ... but not after a trial change"
fi
if grep -qi permanent "$here/../undervoltctl.8" "$here/../undervolt.conf.5"; then
	fail "#36.11 the man pages say 'until reboot', not 'permanent'"
else
	pass "#36.11 the man pages say 'until reboot', not 'permanent'"
fi
