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

lu_jobs() {
	nproc 2>/dev/null || echo 2
}
