#!/bin/sh
# qemu-run: --append "log_buf_len=256K"
# expect: FAIL: the guest kernel log overflowed
# Canary: the kernel log wraps (a 256 KiB buffer, 400 KiB written to it),
# so its beginning, and any report in it, is gone before the host reads
# it. scripts/qemu-run must refuse to call such a log clean.
line=$(printf '%0900d' 0)
i=0
while [ $i -lt 450 ]; do
	echo "log-overflow canary $i $line" > /dev/kmsg
	i=$((i + 1))
done
echo "ok - the script itself passed"
