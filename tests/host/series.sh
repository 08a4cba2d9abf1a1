#!/bin/bash
# Series hygiene: every patch in kernel/patches/series applies in order to a
# pristine 6.12 tree, and checkpatch.pl --strict is silent on each.
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

"$LU_ROOT/scripts/prepare-tree" >/dev/null || { echo "not ok - the tree is prepared"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/series.XXXXXX")
trap 'git -C "$LU_SRC" worktree remove --force "$work/tree" >/dev/null 2>&1; rm -rf "$work"' EXIT
git -C "$LU_SRC" worktree add -q --detach "$work/tree" pristine

applies=1
while read -r patch; do
	name=${patch##*/}
	if git -C "$work/tree" -c user.name=t -c user.email=t@localhost \
		am -q "$patch" >"$work/am.log" 2>&1; then
		echo "ok - $name applies to the pristine tree"
	else
		echo "not ok - $name applies to the pristine tree"
		sed 's/^/#   /' "$work/am.log"
		applies=0
		break
	fi
done < <(lu_series)

while read -r patch; do
	name=${patch##*/}
	if (cd "$LU_SRC" && scripts/checkpatch.pl --strict --quiet --no-summary \
		"$patch") >"$work/cp.log" 2>&1 && [ ! -s "$work/cp.log" ]; then
		echo "ok - $name passes checkpatch --strict"
	else
		echo "not ok - $name passes checkpatch --strict"
		sed 's/^/#   /' "$work/cp.log"
	fi
done < <(lu_series)

[ $applies -eq 1 ]
