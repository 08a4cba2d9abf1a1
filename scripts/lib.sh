# shellcheck shell=bash
# Shared paths and helpers for the build and test scripts; sourced, never run.

LU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LU_CACHE=${LINUX_UNDERVOLT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-undervolt}
LU_SRC=$LU_CACHE/src
LU_TARBALL=/usr/src/linux-source-6.12.tar.xz
LU_OUT=$LU_ROOT/build

# Kernel flavour: "test" (default) or "debug" (lockdep, KASAN, ...).
LU_FLAVOUR=${LU_FLAVOUR:-test}
LU_KBUILD=$LU_CACHE/build-$LU_FLAVOUR

lu_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

lu_log() {
	echo "${0##*/}: $*" >&2
}

# The patches of the series, in order, as absolute paths.
lu_series() {
	local p
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		echo "$LU_ROOT/kernel/patches/$p"
	done < "$LU_ROOT/kernel/patches/series"
}

# lu_kernel_fragments FLAVOUR: the config fragments merged onto tinyconfig
# for the test or the debug kernel, one path per line. signing.config: both
# kernels need it, since MODULE_SIG_ALL defaults to y once lockdown selects
# MODULE_SIG. tests/host/series.sh builds each patch with the test kernel's
# fragments, so that the two share objects.
lu_kernel_fragments() {
	echo "$LU_ROOT/kernel/config/test.config"
	echo "$LU_ROOT/kernel/config/signing.config"
	if [ "$1" = debug ]; then
		echo "$LU_ROOT/kernel/config/debug.config"
	fi
}

# Every kernel build goes through ccache, with one cache for all trees: the
# base directory makes the paths relative, so the per-patch builds of
# tests/host/series.sh and the test and debug kernels share objects (their
# trees are laid out alike: build-test and bisect/build beside their src).
# The compiler is scripts/ccache-cc (it says which objects ccache keys on
# the compiler's dependency list), copied into the cache: kbuild records
# CC in every object's command line and rebuilds an object whose command
# line changed, so its path must not depend on where this repository is.
lu_ccache_env() {
	export CCACHE_DIR=$LU_CACHE/ccache CCACHE_BASEDIR=$LU_CACHE
	export CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	if ! cmp -s "$LU_ROOT/scripts/ccache-cc" "$LU_KCC"; then
		mkdir -p "${LU_KCC%/*}"
		cp "$LU_ROOT/scripts/ccache-cc" "$LU_KCC.$$"
		mv -f "$LU_KCC.$$" "$LU_KCC"
	fi
}
LU_KCC=$LU_CACHE/bin/ccache-cc

lu_jobs() {
	nproc 2>/dev/null || echo 2
}

# The cache's scratch worktree of $LU_SRC for `git am`, reset to the
# pristine tree (created on first use); prints its path. Nothing is built
# there: callers apply the series in it and check the resulting commits out
# where they build, which then rewrites only the files that differ, so
# kbuild rebuilds only what changed. Callers hold $LU_CACHE/am.lock.
lu_am_tree() {
	local tree=$LU_CACHE/am
	if ! git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$tree"
		git -C "$LU_SRC" worktree prune
		git -C "$LU_SRC" worktree add -q --detach "$tree" pristine >&2
	fi
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -f --detach pristine
	git -C "$tree" clean -q -fdx
	echo "$tree"
}

# git am as the scripts run it: a fixed committer, CRs kept.
lu_git_am() {
	git -C "$1" -c user.name=linux-undervolt \
		-c user.email=linux-undervolt@localhost am -q --keep-cr "$2"
}

# git format-patch of the series branch of $LU_SRC with the options of
# kernel/patches/: scripts/export-series and scripts/make-series write the
# same patches. Extra arguments go to format-patch (-o DIR, --cover-letter).
# The blob names of the "index" lines are 9 digits, what git chooses by
# itself for a packed repository of this size; scripts/prepare-tree keeps
# the objects loose, which git does not count, and it would choose 7.
lu_format_patch() {
	git -C "$LU_SRC" -c core.abbrev=9 format-patch -q --zero-commit --no-signature "$@" \
		pristine..series
}

# lu_progress LABEL LOG: a long step's output goes to LOG; every 15 s (and
# at the end) one line says how long it has run, how many lines it wrote
# and the last of them, so a slow step shows how far along it is.
lu_progress() {
	local label=$1 log=$2 start now last=0 n=0 line=""
	start=$(date +%s)
	: > "$log"
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line" >> "$log"
		n=$((n + 1))
		now=$(date +%s)
		if [ $((now - last)) -ge 15 ]; then
			last=$now
			printf '%s: %s: %ds, %d lines, now: %.100s\n' "${0##*/}" "$label" \
				$((now - start)) "$n" "$line" >&2
		fi
	done
	printf '%s: %s: done in %ds (%d lines, log: %s)\n' "${0##*/}" "$label" \
		$(($(date +%s) - start)) "$n" "$log" >&2
}
