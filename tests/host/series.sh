#!/bin/bash
# The exported series (kernel/patches/), checked as a reviewer would:
#
# - every patch applies in order to the pristine 6.12 tree with git am;
# - checkpatch.pl --strict is silent on every patch. The one exception:
#   patches before the one that adds the driver's MAINTAINERS entry add
#   files, for which checkpatch asks "does MAINTAINERS need updating?"
#   (FILE_PATH_CHANGES); that note alone is ignored there, and
#   get_maintainer.pl must then find every file the series adds in the
#   entry;
# - scripts/kernel-doc -Wall -none is silent on the driver's .c and .h
#   files after every patch that has them;
# - the new documentation builds with sphinx and the tree's own kerneldoc
#   and kernel_abi extensions without a warning (only the new .rst and
#   ABI files, not `make htmldocs`), and get_abi.pl validate accepts the
#   new ABI files;
# - scripts/make-series (make series) writes the same patches as
#   kernel/patches/, plus a cover letter;
# - every patch builds on its own (bisectable): the test kernel
#   (tinyconfig + kernel/config/test.config and signing.config, which
#   turns the driver and its KUnit tests on as modules as soon as a patch
#   adds them) after each patch, then the driver's directory with W=1,
#   without a compiler warning.
#
# The builds run in a worktree and a build directory of their own,
# $LU_CACHE/bisect/{src,build}, newest patch first, each one incremental
# on the build before it. A patch whose build passed is recorded in
# $LU_CACHE/bisect/ok/, keyed on a hash of the files kbuild reads after
# the patch and of everything else that decides the outcome (build_recipe
# below: this script's build code, the compiler wrapper, the versions of
# the tools the build runs, the config fragments), so a warm run builds
# only after the patches that changed and those after them.
# SERIES_BUILD=0 skips the builds.
#
# The builds are compiler time and no guest, so tests/run-all runs this
# beside the guest suites:
# run-all: beside
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
lu_ccache_env

DRIVER_DIR=drivers/platform/x86/intel/undervolt
MAINTAINERS_SECTION="INTEL UNDERVOLT DRIVER"

failed=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failed=1; }
show() { sed 's/^/#   /' "$1"; }

"$LU_ROOT/scripts/prepare-tree" >/dev/null || { fail "the tree is prepared"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/series.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t patches < <(lu_series)
# The tree's Python tools (spdxcheck.py, sphinx) need Debian's python3
# with its packages, not another one first in PATH.
export PATH=/usr/bin:$PATH

# kernel_doc TREE NAME: kernel-doc on the driver's sources after patch NAME.
kernel_doc() {
	local tree=$1 name=$2 files
	files=$(cd "$tree" && ls "$DRIVER_DIR"/*.[ch] 2>/dev/null)
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086
	(cd "$tree" && scripts/kernel-doc -Wall -none $files) > "$work/kd.log" 2>&1
	if [ ! -s "$work/kd.log" ]; then
		pass "$name: kernel-doc -Wall is silent on $DRIVER_DIR/*.[ch]"
	else
		fail "$name: kernel-doc -Wall is silent on $DRIVER_DIR/*.[ch]"
		show "$work/kd.log"
	fi
}

# ---- git am, and kernel-doc after each patch
exec 7>"$LU_CACHE/am.lock"
flock 7
am=$(lu_am_tree)
commits=()
applied=1
for patch in "${patches[@]}"; do
	name=${patch##*/}
	if lu_git_am "$am" "$patch" > "$work/am.log" 2>&1; then
		pass "$name applies to the pristine tree (git am)"
		commits+=("$(git -C "$am" rev-parse HEAD)")
		kernel_doc "$am" "$name"
	else
		fail "$name applies to the pristine tree (git am)"
		show "$work/am.log"
		git -C "$am" am --abort >/dev/null 2>&1
		applied=0
		break
	fi
done

# ---- checkpatch
maint_patch=$(grep -lxF "+$MAINTAINERS_SECTION" "${patches[@]}" 2>/dev/null | head -n1)
before_maint=1
for patch in "${patches[@]}"; do
	name=${patch##*/}
	[ "$patch" = "$maint_patch" ] && before_maint=0
	ignore=()
	what="passes checkpatch --strict"
	if [ $before_maint -eq 1 ] && [ -n "$maint_patch" ] &&
		grep -qE '^(new|deleted) file mode' "$patch"; then
		ignore=(--ignore FILE_PATH_CHANGES)
		what+=" (its MAINTAINERS note left to ${maint_patch##*/})"
	fi
	if (cd "$LU_SRC" && scripts/checkpatch.pl --strict --quiet --no-summary \
		"${ignore[@]}" "$patch") > "$work/cp.log" 2>&1 && [ ! -s "$work/cp.log" ]; then
		pass "$name $what"
	else
		fail "$name $what"
		show "$work/cp.log"
	fi
done
[ -n "$maint_patch" ] || fail "a patch adds the MAINTAINERS section $MAINTAINERS_SECTION"

if [ $applied -eq 1 ]; then
	# ---- every file the series adds is in the MAINTAINERS entry
	git -C "$am" diff --name-only --diff-filter=A pristine HEAD > "$work/added"
	missing=()
	while read -r f; do
		# Into a file first: grep -q would end the pipe early.
		(cd "$am" && scripts/get_maintainer.pl --no-git --no-git-fallback \
			--sections -f "$f") > "$work/gm.log" 2>&1
		grep -qxF "$MAINTAINERS_SECTION" "$work/gm.log" || missing+=("$f")
	done < "$work/added"
	if [ ${#missing[@]} -eq 0 ] && [ -s "$work/added" ]; then
		pass "every file the series adds is in MAINTAINERS ($MAINTAINERS_SECTION, $(wc -l < "$work/added") files)"
	else
		fail "every file the series adds is in MAINTAINERS ($MAINTAINERS_SECTION): missing ${missing[*]}"
	fi

	# ---- the new documentation
	mkdir -p "$work/docs" "$work/abi"
	rst=()
	while read -r f; do
		case $f in
		Documentation/ABI/*) cp "$am/$f" "$work/abi/" ;;
		Documentation/*.rst) cp "$am/$f" "$work/docs/"; rst+=("${f##*/}") ;;
		esac
	done < "$work/added"
	cat > "$work/docs/conf.py" <<-'EOF'
	import os
	import sys
	srctree = os.path.abspath(os.environ["srctree"])
	sys.path.insert(0, os.path.join(srctree, "Documentation", "sphinx"))
	extensions = ["kerneldoc", "kernel_abi", "rstFlatTable"]
	kerneldoc_bin = os.path.join(srctree, "scripts/kernel-doc")
	kerneldoc_srctree = srctree
	master_doc = "index"
	project = "the series' new documentation"
	EOF
	{
		printf 'New documentation\n=================\n\n.. toctree::\n\n'
		for f in "${rst[@]}"; do echo "   ${f%.rst}"; done
		echo "   series-abi"
	} > "$work/docs/index.rst"
	printf 'ABI\n===\n\n.. kernel-abi:: %s\n' "$work/abi" > "$work/docs/series-abi.rst"
	docs="${rst[*]} $(cd "$work/abi" && ls)"
	if ! command -v sphinx-build >/dev/null; then
		fail "the new documentation builds with sphinx without a warning: sphinx-build missing (scripts/setup installs python3-sphinx)"
	elif srctree=$am sphinx-build -q -W --keep-going -b dummy "$work/docs" \
		"$work/docs/_build" > "$work/sphinx.log" 2>&1 && [ ! -s "$work/sphinx.log" ]; then
		pass "the new documentation builds with sphinx without a warning ($docs)"
	else
		fail "the new documentation builds with sphinx without a warning ($docs)"
		show "$work/sphinx.log"
	fi
	if (cd "$am" && perl scripts/get_abi.pl validate --dir "$work/abi") > "$work/abi.log" 2>&1 &&
		[ ! -s "$work/abi.log" ]; then
		pass "get_abi.pl validate accepts the new ABI files ($(cd "$work/abi" && ls))"
	else
		fail "get_abi.pl validate accepts the new ABI files"
		show "$work/abi.log"
	fi
fi
exec 7>&-

# ---- make series: the same patches, and a cover letter
if "$LU_ROOT/scripts/make-series" "$work/series" > "$work/ms.log" 2>&1; then
	bad=()
	for patch in "${patches[@]}"; do
		cmp -s "$patch" "$work/series/${patch##*/}" || bad+=("${patch##*/}")
	done
	if [ ${#bad[@]} -eq 0 ] && [ -f "$work/series/0000-cover-letter.patch" ] &&
		! grep -q '\*\*\* .* HERE \*\*\*' "$work/series/0000-cover-letter.patch"; then
		pass "make series writes the patches of kernel/patches and a cover letter"
	else
		fail "make series writes the patches of kernel/patches and a cover letter (differ: ${bad[*]})"
	fi
else
	fail "make series writes the patches of kernel/patches and a cover letter"
	show "$work/ms.log"
fi

# ---- every patch builds on its own
# build_at COMMIT NAME: build the test kernel at COMMIT; 0 when it built
# without a warning.
build_at() {
	local commit=$1 name=$2 tree=$LU_CACHE/bisect/src build=$LU_CACHE/bisect/build
	local log=$work/build.log start sym missing=() config_key reconfigure
	local kmake=(make -s -C "$tree" O="$build" -j"$(lu_jobs)" CC="$LU_KCC")
	start=$(date +%s)
	if ! git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$tree"
		git -C "$LU_SRC" worktree prune
		git -C "$LU_SRC" worktree add -q --detach "$tree" "$commit" || return 1
	else
		# Rewrites only the files that differ: kbuild rebuilds what changed.
		git -C "$tree" checkout -q -f --detach "$commit" || return 1
	fi
	mkdir -p "$build"
	# The configuration follows from the Kconfig files and the fragments
	# alone: when neither changed since the last patch built here, the
	# .config it left is the one tinyconfig and the fragments would make
	# again, and remaking it (about 35 s) would only touch what kbuild
	# then rebuilds.
	config_key=$({
		cat "${fragments[@]}"
		git -C "$tree" ls-tree -r HEAD |
			awk -F '\t' '$2 ~ /(^|\/)Kconfig[^\/]*$|configs\/tiny/'
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$build/.config" ] &&
		[ "$(cat "$build/.lu-config-key" 2>/dev/null)" = "$config_key" ]; then
		reconfigure=false
	else
		reconfigure=true
		rm -f "$build/.lu-config-key"
	fi
	{
		if $reconfigure; then
			"${kmake[@]}" tinyconfig >/dev/null &&
			(cd "$build" && "$tree/scripts/kconfig/merge_config.sh" -m -Q .config \
				"${fragments[@]}" >/dev/null) &&
			"${kmake[@]}" olddefconfig >/dev/null &&
			echo "$config_key" > "$build/.lu-config-key"
		fi &&
		"${kmake[@]}" bzImage modules &&
		if [ -d "$tree/$DRIVER_DIR" ]; then
			"${kmake[@]}" W=1 "$DRIVER_DIR/"
		fi
	} > "$log" 2>&1
	local status=$?
	# The driver's options that exist at this patch are all on.
	for sym in $(sed -n 's/^config //p' "$tree/$DRIVER_DIR/Kconfig" 2>/dev/null); do
		grep -qx "CONFIG_$sym=[ym]" "$build/.config" || missing+=("CONFIG_$sym")
	done
	if [ $status -ne 0 ]; then
		fail "$name builds on its own (test config)"
		tail -n 30 "$log" | sed 's/^/#   /'
		return 1
	fi
	if [ ${#missing[@]} -ne 0 ]; then
		fail "$name builds on its own (test config): ${missing[*]} not set"
		return 1
	fi
	if grep -E 'warning:|WARNING:' "$log" > "$work/warnings"; then
		fail "$name builds on its own (test config, W=1 for $DRIVER_DIR) without a warning"
		show "$work/warnings"
		return 1
	fi
	pass "$name builds on its own (test config, W=1 for $DRIVER_DIR) without a warning ($(( $(date +%s) - start )) s)"
}

# tool_versions: the programs the builds run and the libraries the
# kernel's host programs (objtool, sign-file) build against, each as the
# Debian package that holds it and that package's version; a program dpkg
# does not know (one built locally, first in PATH) by its own version
# line. An upgrade of any of them can break the build or add a warning.
tool_versions() {
	local cmd path owner
	for cmd in gcc "$(gcc -print-prog-name=cc1)" as ld objcopy make ccache \
		bc bison flex perl openssl; do
		if ! path=$(command -v "$cmd"); then
			echo "$cmd: missing"
			continue
		fi
		path=$(readlink -f "$path")
		owner=$(dpkg -S "$path" 2>/dev/null | grep -v '^diversion' | head -n1)
		if [ -n "$owner" ]; then
			dpkg-query -W -f '${Package} ${Version}\n' "${owner%%: *}"
		else
			echo "$path: $("$path" --version 2>&1 | grep -m1 .)"
		fi
	done
	dpkg-query -W -f '${Package} ${Version}\n' libc6-dev libelf-dev libssl-dev 2>&1
}

# build_recipe: a hash of what decides whether a build passes, besides the
# source tree: how it builds and judges (build_at, as bash reads it, so
# that a comment does not count; the ccache settings), the compiler
# wrapper it builds with (scripts/ccache-cc, as copied to LU_KCC), the
# tools' versions, the config fragments and the pristine tree. A change to
# any of them builds every patch again instead of trusting a stamp made
# without it.
build_recipe() {
	{
		echo "series.sh build recipe 5"
		declare -f build_at lu_ccache_env
		echo "DRIVER_DIR=$DRIVER_DIR CC=$LU_KCC"
		cat "$LU_KCC"
		tool_versions
		cat "${fragments[@]}"
		git -C "$LU_SRC" rev-parse pristine
	} | sha256sum | cut -d' ' -f1
}

# The test kernel's own configuration (scripts/build-kernel), so that the
# build after the last patch is the test kernel and ccache (one cache, paths
# relative to the cache) serves every object that no patch changes.
mapfile -t fragments < <(lu_kernel_fragments test)

if [ "${SERIES_BUILD:-1}" = 0 ]; then
	echo "# SERIES_BUILD=0: the per-patch builds are skipped"
elif [ $applied -eq 1 ]; then
	mkdir -p "$LU_CACHE/bisect/ok"
	exec 6>"$LU_CACHE/bisect.lock"
	flock 6
	recipe=$(build_recipe)
	# Each build is remembered by the source tree it built (the files
	# after the patch), not by the patch file: a new numbering of the
	# series or a changelog edit changes no line the compiler sees. Nor
	# does a patch that changes only Documentation/ or MAINTAINERS, which
	# kbuild never reads: it builds what the patch before it built.
	# Newest patch first. After the last patch the tree and configuration
	# are the test kernel's, so that build, even from scratch, is served
	# whole by ccache from the test kernel's (about 30 s); each older patch
	# is then an incremental build that recompiles only what the patches
	# after it changed. In the series' order the first build would be
	# patch 1 from scratch, and none of its objects is a direct ccache hit
	# (its autoconf.h lacks the driver's options): 460 s on a cold run.
	for ((i = ${#patches[@]} - 1; i >= 0; i--)); do
		name=${patches[$i]##*/}
		key=$({
			echo "$recipe"
			git -C "$LU_SRC" ls-tree -r "${commits[$i]}" |
				awk -F '\t' '$2 !~ /^Documentation\// && $2 != "MAINTAINERS"'
		} | sha256sum | cut -d' ' -f1)
		if [ -f "$LU_CACHE/bisect/ok/$key" ]; then
			pass "$name builds on its own (test config, W=1 for $DRIVER_DIR) without a warning (cached: the same files for the build, config, build code, compiler wrapper and tools)"
			continue
		fi
		build_at "${commits[$i]}" "$name" && touch "$LU_CACHE/bisect/ok/$key"
	done
fi

exit $failed
