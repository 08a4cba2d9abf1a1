#!/bin/sh
# Guest side of scripts/stall-hunt: ROUNDS rounds (default 8) of five
# seconds asleep and a little work on each CPU, so that the guest spends
# most of its life idle, as the suites do while the host works.
. /test/lib.sh

rounds=${1:-8}
i=1
while [ "$i" -le "$rounds" ]; do
	sleep 5
	for cpu in $(seq 0 $(( $(nproc) - 1 ))); do
		taskset -c "$cpu" sh -c 'n=0; while [ $n -lt 2000 ]; do n=$((n + 1)); done'
	done
	pass "round $i: every CPU ran"
	i=$((i + 1))
done
finish
