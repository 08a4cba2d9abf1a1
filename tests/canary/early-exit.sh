#!/bin/sh
# expect: FAIL: the guest stopped before the script finished
# Canary: the guest powers off in the middle of the script, after a
# passing check. No exit status reached the host, so the run must fail,
# whatever was printed before.
echo "ok - the first check passed"
poweroff -f
sleep 30
