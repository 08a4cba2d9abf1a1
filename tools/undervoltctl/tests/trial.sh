#!/bin/bash
# tests/trial.sh BINARY: set --trial, apply --trial and confirm, now that
# user space keeps the trial (the driver's v3 has no trial mode), on a fake
# sysfs tree: the revert runs after the process that asked for it is gone
# (a detached process here, as there is no systemd on the host), confirm
# stops it, a second --trial replaces the deadline, the revert is all or
# nothing and goes to the log; and, with fakes of systemd-run and
# systemctl, the command lines of the systemd path.
# BINARY must be a test build. One TAP line per check; exit 1 if one failed.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: tests/trial.sh BINARY" >&2; exit 2; }
LABEL=trial
bin=$(realpath "$1")
. "$(dirname "$0")/lib.sh"

vals() { echo "$(cat "$drv/package_00/core_offset_mv") $(cat "$drv/package_00/cache_offset_mv") $(cat "$drv/package_00/uncore_offset_mv")"; }

# --- the revert outlives the caller -------------------------------------------
make_tree 60 00 "core cache uncore"
# The caller's whole process group is killed right after the set, as when
# the terminal of the shell closes.
setsid --fork --wait bash -c '"$0" --sysfs-root "$1" set --trial 2 core=-50 cache=-50 >"$2/out" 2>&1; kill -KILL 0' \
	"$bin" "$root" "$tmp" 2>/dev/null
out=$(cat "$tmp/out")
check_grep "set --trial 2 says how to confirm" "^provisional for 2 s: run 'undervoltctl confirm'" "$out"
check_eq "the offsets are set" "-50 -50 0" "$(vals)"
pid=$(waiter)
if [ -n "$pid" ] && alive "$pid"; then
	pass "the revert waits in a process of its own (pid $pid) after the caller's group was killed"
else
	fail "the revert waits in a process of its own after the caller's group was killed (pid '$pid')"
fi
sid=$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')
if [ -n "$sid" ] && [ "$sid" != "$(ps -o sid= -p $$ | tr -d ' ')" ] && [ "$sid" != "$pid" ]; then
	pass "... in a session of its own, which it does not lead (no terminal can reach it)"
else
	fail "... in a session of its own, which it does not lead (session '$sid', pid $pid)"
fi
uvc status
check_grep "status shows the time left" \
	"^trial:   provisional \(set, 2 s\): the offsets go back in [0-2] s unless 'undervoltctl confirm' \(detached process, pid $pid\)$" "$out"
sleep 3
check_eq "after 2 s the offsets are back" "0 0 0" "$(vals)"
check_eq "... the trial is over" "no" "$([ -e "$trialf" ] && echo yes || echo no)"
check_grep "... and the log says so (LOG_WARNING)" \
	"^<4> undervoltctl: a trial of 2 s \(set\) ended without 'undervoltctl confirm': the offsets went back: package 0 core -50 -> 0 mV, package 0 cache -50 -> 0 mV$" \
	"$(cat "$tmp/syslog" 2>/dev/null)"

# --- confirm stops it -----------------------------------------------------------
make_tree 60 00 "core cache uncore"
uvc set --trial 2 core=-40
pid=$(waiter)
uvc confirm
check_eq "confirm says the offsets stay" "0 confirmed: the offsets stay" "$rc $out"
sleep 3
check_eq "a confirmed trial is not reverted" "-40 0 0" "$(vals)"
check_eq "... its revert process is gone" "gone" "$(alive "$pid" && echo running || echo gone)"
check_eq "... and nothing was logged" "" "$(cat "$tmp/syslog" 2>/dev/null)"
uvc confirm
check_eq "a second confirm has nothing to confirm" "0 nothing is provisional; nothing to confirm" "$rc $out"

# --- a second --trial replaces the deadline; the revert goes back to the start --
make_tree 60 00 "core cache uncore"
uvc set --trial 2 core=-50
uvc set --trial 5 core=-70 uncore=-20
check_grep "a second --trial says the running one ends with it" \
	"^the trial that was running now ends with this one; its revert goes back to the offsets from before it$" "$out"
sleep 3
check_eq "the first deadline is gone: after 3 s the offsets stay" "-70 0 -20" "$(vals)"
uvc set cache=-30
check_grep "a plain set during the trial says it reverts with it" \
	"^provisional: a trial started earlier reverts every offset, these too, in [0-9] s$" "$out"
sleep 3
check_eq "at the second deadline every offset goes back to before the first trial" "0 0 0" "$(vals)"

# --- apply --trial -------------------------------------------------------------
make_tree 60 00 "core cache uncore"
printf 'core = -45\nuncore = -15\n' > "$tmp/u.conf"
uvc apply --trial 2 "$tmp/u.conf"
check_eq "apply --trial sets the file's offsets, provisionally" "0 -45 0 -15" "$rc $(vals)"
sleep 3
check_eq "... and they go back" "0 0 0" "$(vals)"

# --- the revert is all or nothing -------------------------------------------------
make_tree 60 00 "core cache uncore"
# Inherited by the revert: its write of cache back to 0 fails.
UNDERVOLTCTL_TEST_FAIL_WRITE=cache_offset_mv@0=EIO uvc set --trial 2 core=-50 cache=-50
sleep 3
check_eq "a revert that cannot write every plane puts back what it wrote" "-50 -50 0" "$(vals)"
check_grep "... and says so in the log (LOG_ERR)" \
	"^<3> undervoltctl: a trial of 2 s \(set\) ended without 'undervoltctl confirm', and its offsets could not all be put back" \
	"$(cat "$tmp/syslog" 2>/dev/null)"

# --- a failed set --trial leaves the running trial as it was ------------------------
make_tree 60 00 "core cache uncore"
uvc set --trial 30 core=-20
before=$(cat "$trialf")
UNDERVOLTCTL_TEST_FAIL_WRITE=uncore_offset_mv=EIO uvc set --trial 60 uncore=-30
check_eq "a failed set --trial exits 1 and changes no offset" "1 -20 0 0" "$rc $(vals)"
check_eq "... the trial it would have replaced keeps its offsets and deadline" \
	"$(grep -v '^armed' <<< "$before")" "$(grep -v '^armed' "$trialf" 2>&1)"
pid=$(waiter)
check_eq "... with a revert armed again" "running" "$(alive "$pid" && echo running || echo gone)"
uvc confirm

# --- the systemd path, with fakes of systemd-run and systemctl ------------------
make_tree 60 00 "core cache uncore"
mkdir -p "$tmp/run/systemd/system" "$tmp/fake"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> %s/systemd-run.log\n' "$tmp" > "$tmp/fake/systemd-run"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> %s/systemctl.log\n' "$tmp" > "$tmp/fake/systemctl"
chmod +x "$tmp/fake/systemd-run" "$tmp/fake/systemctl"
export UNDERVOLTCTL_TEST_SYSTEMD_RUN=$tmp/fake/systemd-run UNDERVOLTCTL_TEST_SYSTEMCTL=$tmp/fake/systemctl
uvc set --trial 30 core=-50
token=$(awk '/^token/ { print $2 }' "$trialf")
check_eq "with systemd, a transient timer is armed" \
	"--quiet --collect --unit=undervoltctl-trial --description=undervoltctl: revert unconfirmed offsets --on-active=30s --timer-property=AccuracySec=100ms -- $bin --sysfs-root $root trial-revert $token" \
	"$(cat "$tmp/systemd-run.log" 2>&1)"
check_eq "... and recorded as such" "armed systemd 0" "$(grep '^armed' "$trialf")"
uvc status
check_grep "... which status names" "\(systemd timer undervoltctl-trial.timer\)$" "$out"
uvc confirm
check_eq "confirm stops the timer" "stop undervoltctl-trial.timer" "$(cat "$tmp/systemctl.log" 2>&1)"
"$bin" --sysfs-root "$root" trial-revert "$token" >/dev/null 2>&1
check_eq "a revert of a confirmed trial (the timer fired anyway) does nothing" "-50 0 0" "$(vals)"
uvc set --trial 30 core=-60
token=$(awk '/^token/ { print $2 }' "$trialf")
"$bin" --sysfs-root "$root" trial-revert 0123456789abcdef >/dev/null 2>&1
check_eq "a revert of another arming does nothing" "-60 0 0" "$(vals)"
"$bin" --sysfs-root "$root" trial-revert "$token" >/dev/null 2>&1
check_eq "the timer's revert puts the offsets back" "-50 0 0" "$(vals)"
printf '#!/bin/sh\nexit 1\n' > "$tmp/fake/systemd-run"
uvc set --trial 30 core=-70
check_grep "when systemd-run fails, a detached process reverts instead" \
	"systemd-run failed to arm the trial's timer; a detached process reverts the offsets instead" "$err"
check_eq "... recorded as such" "armed detached" "$(grep -o '^armed detached' "$trialf")"
unset UNDERVOLTCTL_TEST_SYSTEMD_RUN UNDERVOLTCTL_TEST_SYSTEMCTL
uvc confirm

exit $failed
