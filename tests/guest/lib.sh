# Sourced by guest test scripts (". /test/lib.sh"). Each check prints one
# TAP line, "ok - DESC" or "not ok - DESC"; tests/run-all counts them.
# finish exits non-zero when any check failed.

LIB_FAILED=0

pass() {
	echo "ok - $*"
}

fail() {
	echo "not ok - $*"
	LIB_FAILED=1
}

# check DESC CMD...: passes when CMD exits 0.
check() {
	local desc=$1
	shift
	if "$@"; then
		pass "$desc"
	else
		fail "$desc (command failed: $*)"
	fi
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1 (expected '$2', got '$3')"
	fi
}

# check_grep DESC PATTERN TEXT: passes when TEXT matches the extended regex.
check_grep() {
	if printf '%s\n' "$3" | grep -qE -- "$2"; then
		pass "$1"
	else
		fail "$1 (no match for /$2/ in: $3)"
	fi
}

# check_nogrep DESC PATTERN TEXT: passes when TEXT does not match.
check_nogrep() {
	if printf '%s\n' "$3" | grep -qE -- "$2"; then
		fail "$1 (unexpected match for /$2/)"
	else
		pass "$1"
	fi
}

# skip DESC REASON: a check that could not run, counted as skipped.
skip() {
	echo "ok - $1 # SKIP $2"
}

# read_sysfs FILE: the content of FILE, or, when reading it fails, the
# name of the errno (ENODATA, ENODEV, EACCES, ENOENT) the failure said, so
# that a check can tell "no data" from "no file". busybox's cat says
# "read error: MESSAGE" with strerror()'s words.
read_sysfs() {
	local out
	# One read(2), as a program reads a sysfs file: busybox cat tries
	# sendfile(2) first and reads again after its error, which would be
	# a second show() of the attribute.
	if out=$(dd if="$1" bs=4096 count=1 status=none 2>&1); then
		printf '%s\n' "$out"
		return 0
	fi
	case $out in
	*"No data available"*) echo ENODATA ;;
	*"No such device"*) echo ENODEV ;;
	*"Permission denied"*) echo EACCES ;;
	*"No such file or directory"*) echo ENOENT ;;
	*) echo "EUNKNOWN ($out)" ;;
	esac
	return 1
}

# check_no_splat: no kernel warning, bug or lock report in the log so far.
# Matches the reports, not every mention of lockdep: the debug kernel logs
# "RCU lockdep checking is enabled" at boot.
check_no_splat() {
	check_nogrep "no warning or bug in the log" \
		"WARNING:|BUG:|Oops|KASAN:|UBSAN:|possible (recursive|circular) locking" "$(dmesg)"
}

# as_nobody COMMAND: COMMAND in sh as user nobody, without capabilities.
as_nobody() {
	mkdir -p /etc
	grep -q '^nobody:' /etc/passwd 2>/dev/null ||
		echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
	grep -q '^nogroup:' /etc/group 2>/dev/null ||
		echo 'nogroup:x:65534:' >> /etc/group
	su nobody -s /bin/sh -c "$1"
}

# The kernel taint mask, as a decimal number.
taint() {
	cat /proc/sys/kernel/tainted
}

# dmesg_since MARK: kernel log lines after the line containing MARK, which
# the caller wrote to /dev/kmsg.
dmesg_since() {
	dmesg | sed -n "/$1/,\$p" | tail -n +2
}

kmsg_mark() {
	echo "TEST-MARK $1" > /dev/kmsg
}

# The OC mailbox model of our QEMU (qemu/MODEL.md) is observed and steered
# with fwctl, never through the driver: its words are what the "hardware"
# holds. fwctl acts on package 0 unless given -p PACKAGE.

# word_offset_mv WORD: the offset in a data word (or a command word, whose
# low 32 bits are its data), in mV, rounded to nearest (bits 31:21,
# signed, 1/1024 V).
word_offset_mv() {
	local units
	units=$(( ($1 >> 21) & 0x7ff ))
	[ $units -ge 1024 ] && units=$((units - 2048))
	units=$((units * 1000))
	if [ $units -ge 0 ]; then
		echo $(( (units + 512) / 1024 ))
	else
		echo $(( (units - 512) / 1024 ))
	fi
}

# A helper below whose fwctl fails prints FWCTL_FAILED instead of the
# model's answer: no check expects that word, so a check of "nothing
# reached the mailbox" fails when fwctl cannot read the log, instead of
# taking its silence for an empty one.
FWCTL_FAILED="FWCTL-FAILED"

# fw_offset_mv DOMAIN [PACKAGE]: the offset in the model's data word of
# DOMAIN, in mV.
fw_offset_mv() {
	local word
	word=$(fwctl -p "${2:-0}" word "$1") || { echo "$FWCTL_FAILED"; return 1; }
	word_offset_mv "$word"
}

# fw_words [PACKAGE]: the data words of the five domains of the model.
fw_words() {
	fwctl -p "${1:-0}" words || { echo "$FWCTL_FAILED"; return 1; }
}

# fw_holds PACKAGE WORDS: succeeds when the model's five words of PACKAGE
# are WORDS (for wait_for: a restore the driver runs from a work item).
fw_holds() {
	[ "$(fw_words "$1")" = "$2" ]
}

# fw_log [PACKAGE]: the model's command log, a word a line.
fw_log() {
	fwctl -p "${1:-0}" log || { echo "$FWCTL_FAILED"; return 1; }
}

# fw_write_commands [PACKAGE]: the words of the model's command log that
# started a write (run bit 63 and command 0x11 in bits 39:32), any domain.
fw_write_commands() {
	local log w
	log=$(fw_log "${1:-0}") || { echo "$FWCTL_FAILED"; return 1; }
	printf '%s\n' "$log" | while read -r w; do
		[ -n "$w" ] || continue
		[ $(( (w >> 63) & 1 )) -eq 1 ] && [ $(( (w >> 32) & 0xff )) -eq 17 ] &&
			echo "$w"
	done
}

# wait_for DESC SECONDS CMD...: a check that passes as soon as CMD
# succeeds, polled every tenth of a second, and fails after SECONDS: for
# an event, not a fixed sleep that passes when a timer fires late.
wait_for() {
	local desc=$1 deadline=$(( $(date +%s) + $2 ))
	shift 2
	while ! "$@"; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			fail "$desc (not within the time allowed: $*)"
			return 1
		fi
		sleep 0.1
	done
	pass "$desc"
}

# Fields of an OC mailbox word (MSR 0x150): the busy bit 63, the domain
# in bits 42:40, the command or completion code in bits 39:32, the data in
# bits 31:0 (as 0x%08x).
mbox_busy() {
	echo $(( ($1 >> 63) & 1 ))
}

mbox_domain() {
	echo $(( ($1 >> 40) & 7 ))
}

mbox_code() {
	echo $(( ($1 >> 32) & 0xff ))
}

mbox_data() {
	printf '0x%08x\n' $(( $1 & 0xffffffff ))
}

# mbox_cmd DOMAIN COMMAND DATA: a command word, run bit set.
mbox_cmd() {
	printf '0x8000%02x%02x%08x\n' "$1" "$2" $(( $3 ))
}

# offset_word MV LOW: a data word with an offset of MV mV (to the nearest
# 1/1024 V, halves away from zero) in bits 31:21 and LOW in bits 20:0.
offset_word() {
	local units
	if [ "$1" -ge 0 ]; then
		units=$(( ($1 * 1024 + 500) / 1000 ))
	else
		units=$(( ($1 * 1024 - 500) / 1000 ))
	fi
	printf '0x%08x\n' $(( ((units & 0x7ff) << 21) | ($2 & 0x1fffff) ))
}

# s3: one real suspend to RAM (mem_sleep deep), woken by the RTC two
# seconds later (scripts/s3-waker wakes a guest whose alarm fired too
# early); fails when the suspend does.
s3() {
	[ -w /sys/power/pm_test ] && echo none > /sys/power/pm_test
	echo deep > /sys/power/mem_sleep &&
		echo 0 > /sys/class/rtc/rtc0/wakealarm &&
		echo +2 > /sys/class/rtc/rtc0/wakealarm &&
		echo mem > /sys/power/state
}

# The words of the model's fused table (qemu/MODEL.md): what every domain
# holds after a reset with x-oc-boot-words=fused and no BIOS offset.
FUSED_WORDS="0x0004cd2c 0x00048c16 0x0004cd28 0x00043312 0x00040001"

# Ice Lake to Raptor Lake (qemu/MODEL.md): the mailbox numbers the system
# agent 4 and has no analog I/O plane; the driver shows uncore_offset_mv
# for domain 4 and never addresses domain 3, which takes no write there.
NEWER_PKG=/sys/devices/system/cpu/intel_undervolt/package_00
NEWER_FILES="cache_offset_mv core_offset_mv gpu_offset_mv initial_cache_offset_mv initial_core_offset_mv initial_gpu_offset_mv initial_uncore_offset_mv uncore_offset_mv"

# fw_domain_commands DOMAIN: the words of the model's log that started a
# command (run bit 63) on DOMAIN (bits 42:40).
fw_domain_commands() {
	local log w
	log=$(fw_log) || { echo "$FWCTL_FAILED"; return 1; }
	printf '%s\n' "$log" | while read -r w; do
		[ -n "$w" ] || continue
		[ "$(mbox_busy "$w")" = 1 ] && [ "$(mbox_domain "$w")" = "$1" ] &&
			echo "$w"
	done
}

# newer_cpu_binds MODEL: the guest's CPU is family 6 model MODEL (decimal,
# as the kernel read CPUID), and the driver bound with the planes of Ice
# Lake and later, asking domains 0, 1, 2 and 4 for their capabilities.
newer_cpu_binds() {
	check_eq "the guest CPU is family 6 model $1" "6 $1" \
		"$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
	check "the driver binds" test -d $NEWER_PKG
	check_eq "it asked domains 0, 1, 2 and 4 for their capabilities, not 3" \
		"0x8000000100000000 0x8000010100000000 0x8000020100000000 0x8000040100000000" \
		"$(fw_log | grep -E '^0x80000[0-7]0100000000$' | tr '\n' ' ' | sed 's/ $//')"
	check_eq "no command went to domain 3" "" "$(fw_domain_commands 3)"
	check_eq "it shows core, gpu, cache and uncore, no analogio" \
		"$NEWER_FILES" "$(echo $(ls $NEWER_PKG | sort))"
}

# newer_cpu_writes: negative offsets reach the domains of Ice Lake and
# later and the model holds them; every plane goes back to 0 mV after.
newer_cpu_writes() {
	fwctl clear-log
	check_eq "a -50 mV core write works" OK "$(writefile $NEWER_PKG/core_offset_mv -50)"
	check_eq "the model holds core -50 and cache -50 (one rail)" \
		"$(offset_word -50 0x4cd2c) $(offset_word -50 0x4cd28)" \
		"$(fwctl word 0) $(fwctl word 2)"
	check_eq "a -30 mV uncore write works" OK "$(writefile $NEWER_PKG/uncore_offset_mv -30)"
	check_eq "the model holds it on domain 4, the system agent" \
		"$(offset_word -30 0x40001)" "$(fwctl word 4)"
	check_eq "domain 3 keeps its fused word" 0x00043312 "$(fwctl word 3)"
	check_eq "a -20 mV gpu write works" OK "$(writefile $NEWER_PKG/gpu_offset_mv -20)"
	check_eq "the model holds gpu -20" "$(offset_word -20 0x48c16)" "$(fwctl word 1)"
	check_eq "no command went to domain 3" "" "$(fw_domain_commands 3)"
	kselftest 0 -s 5
	for plane in core gpu uncore; do
		writefile $NEWER_PKG/${plane}_offset_mv 0 >/dev/null
	done
	check_eq "0 mV writes give the model its fused words back" \
		"$FUSED_WORDS" "$(fw_words)"
}

# uvp_refuses: with Undervolt Protection on and initial offsets of 0 mV,
# negative writes fail with EACCES before any mailbox command, with one
# log line naming it and the firmware setup option.
uvp_refuses() {
	local before
	before=$(fw_words)
	fwctl clear-log
	kmsg_mark uvp-refusal
	check_eq "Undervolt Protection: a -50 mV core write fails with EACCES" \
		EACCES "$(writefile $NEWER_PKG/core_offset_mv -50)"
	check_eq "... before any mailbox command" "" "$(fw_log)"
	check_eq "one log line names UVP and the firmware setup option" 1 \
		"$(dmesg_since 'TEST-MARK uvp-refusal' | grep -c "package 00: core offset write refused (uvp): Undervolt Protection is on: no offset below the firmware setup's applies; only some firmware setups can turn it off")"
	check_eq "a -1 mV uncore write fails with EACCES too" \
		EACCES "$(writefile $NEWER_PKG/uncore_offset_mv -1)"
	check_eq "... before any mailbox command" "" "$(fw_log)"
	check_eq "the model's words are as they were" "$before" "$(fw_words)"
}

# kselftest STATUS [ARGS...]: run the series' kselftest
# (tools/testing/selftests/drivers/platform/x86/intel/undervolt/, in every
# guest under /kselftest) with ARGS ("-s STEP" also undervolts each plane
# STEP mV for a moment), turn each of its KTAP results into one of our
# lines ("ok N DESC" into "ok - kselftest: DESC", "not ok N DESC" into
# "not ok - kselftest: DESC", "ok N DESC # SKIP [WHY]" into a skip), print
# its other lines as comments, and check that it exited with STATUS: 0
# (every test passed or skipped) or 4 (skipped as a whole: the driver is
# not bound). The number of lines follows from the files the driver shows
# and ARGS, so a suite's count stays exact.
KSELFTEST=/kselftest/drivers/platform/x86/intel/undervolt/test_undervolt.sh
kselftest() {
	local want=$1 out status line desc why plan=""
	shift
	out=$(sh "$KSELFTEST" "$@" 2>&1)
	status=$?
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" # SKIP"*)
			desc=${line#ok }
			desc=${desc#* }
			why=${desc#*"# SKIP"}
			desc=${desc%%" # SKIP"*}
			why=${why# }
			skip "kselftest: $desc" "${why:-reported by the kselftest}"
			;;
		"ok "[0-9]*)
			desc=${line#ok }
			pass "kselftest: ${desc#* }"
			;;
		"not ok "[0-9]*)
			desc=${line#not ok }
			fail "kselftest: ${desc#* }"
			;;
		"1..0 # SKIP"*)
			plan=${line#"1..0 # SKIP"}
			echo "# kselftest: $line"
			;;
		*)
			echo "# kselftest: $line"
			;;
		esac
	done <<KTAP
$out
KTAP
	check_eq "kselftest: exits with status $want${plan:+ (skipped:$plan)}" "$want" "$status"
}

# state_disk: the suites whose machine resets keep their state on the
# scratch disk (qemu-run --scratch-disk): mounts it at STATE, the tool's
# state directory (CONF in it), and counts this boot in $STATE/boots and in
# $boot. Ends the suite if the disk cannot be mounted.
state_disk() {
	STATE=/var/lib/undervoltctl
	CONF=$STATE/undervolt.conf
	mkdir -p $STATE
	mount -t ext4 /dev/vda $STATE || { fail "mount the scratch disk"; exit 1; }
	boot=$(( $(cat $STATE/boots 2>/dev/null || echo 0) + 1 ))
	echo $boot > $STATE/boots
	echo "# boot $boot"
}

finish() {
	exit $LIB_FAILED
}
