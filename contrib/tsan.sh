#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ThreadSanitizer run (issue 26): gsotun built with --enable-tsan, its
# unit tests, then the namespace tests that run it with --queues 2
# (tests/netns-q2-*.sh, tests/netns-reorder.sh) against that binary. Any
# report makes the reporting program exit 66 at once (halt_on_error),
# which fails its test; the reports are collected and counted.
#
# Usage (as root): contrib/tsan.sh [TEST...]
#   TEST  namespace test scripts, as tests/netns-x.sh (default: those above)
#
# The build: build-tsan/ of the source tree (TSAN_BUILD), configured there
# with ../configure --enable-tsan (a VPATH build). A tree configured in
# place cannot serve a VPATH build (configure refuses): then the sources
# are copied first into build-tsan/src (what git lists, committed or not,
# untracked files not ignored included) and built there.
#
# Environment:
#   TSAN_BUILD   the build directory (default: build-tsan in the tree)
#   TSAN_LOGS    where the TAP output and TSan's reports go (default:
#                TSAN_BUILD/logs, emptied first)
#   GSOTUN_TEST_ARGS  more words for every gsotun the tests start;
#                --no-seccomp is always there: TSan's runtime makes system
#                calls gsotun's filter refuses
#
# This kernel's vm.mmap_rnd_bits is 28 and TSan runs as it is; with 32 (some
# distribution kernels) TSan stops with "unexpected memory mapping": then
# `sysctl vm.mmap_rnd_bits=28`, or run this under `setarch -R`.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${TSAN_BUILD:-$top/build-tsan}
LOGS=${TSAN_LOGS:-$BUILD/logs}

die()
{
	echo "tsan.sh: $*" >&2
	exit 1
}

# tree_copy DIR: the source tree's files, as git lists them, into DIR;
# files unchanged since the last copy keep their times (make does not
# rebuild them).
tree_copy()
{
	mkdir -p "$1" || return 1
	git -C "$top" ls-files -z --cached --others --exclude-standard \
		-- ':!build-tsan' |
		tar -C "$top" --null -T - -cf - | tar -C "$1" -xpf -
}

# build: configure --enable-tsan and make, in BUILD (SRC: the configure
# script's directory); the log in BUILD/build.log.
build()
{
	local src=$top dir=$BUILD

	mkdir -p "$BUILD" || return 1
	if [ -f "$top/config.status" ]; then
		tree_copy "$BUILD/src" || return 1
		src=$BUILD/src dir=$BUILD/src
	fi
	(
		cd "$dir" || exit 1
		if [ ! -x "$src/configure" ]; then
			(cd "$src" && ./autogen.sh) || exit 1
		fi
		if ! grep -q -- '--enable-tsan' config.status 2>/dev/null; then
			"$src/configure" --enable-tsan || exit 1
		fi
		make -j2 && make -j2 check TESTS=
	) >"$BUILD/build.log" 2>&1 || return 1
	OBJ=$dir
}

# run_test NAME COMMAND...: COMMAND's output in LOGS/NAME.log; one line
# for its status.
run_test()
{
	local name=$1 st

	shift
	"$@" >"$LOGS/$name.log" 2>&1
	st=$?
	if [ "$st" -eq 0 ] && ! grep -q '^not ok' "$LOGS/$name.log"; then
		echo "tsan: PASS $name"
	else
		echo "tsan: FAIL $name (status $st, $LOGS/$name.log)"
		failed=$((failed + 1))
	fi
	ran=$((ran + 1))
}

[ "$(id -u)" -eq 0 ] || die "run me as root: the tests create namespaces"
command -v git >/dev/null || die "git is needed to copy the tree"
tests=("$@")
if [ "${#tests[@]}" -eq 0 ]; then
	tests=("$top"/tests/netns-q2-*.sh "$top/tests/netns-reorder.sh")
fi

echo "tsan: building in $BUILD (log: $BUILD/build.log)"
build || die "the build failed: tail $BUILD/build.log"
mkdir -p "$LOGS" || die "cannot make $LOGS"
rm -f "$LOGS"/*
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export TSAN_OPTIONS="$TSAN_OPTIONS log_path=$LOGS/tsan"
args="--no-seccomp${GSOTUN_TEST_ARGS:+ $GSOTUN_TEST_ARGS}"
ran=0 failed=0

units=()
for t in "$top"/tests/unit-*.c; do
	t=${t#"$top"/}
	units+=("${t%.c}")
done
run_test unit make -C "$OBJ" check TESTS="${units[*]}"
for t in "${tests[@]}"; do
	[ -f "$t" ] || t=$top/$t
	[ -f "$t" ] || die "no test script $t"
	run_test "$(basename "$t" .sh)" env GSOTUN="$OBJ/src/gsotun" \
		GSOTUNCTL="$OBJ/src/gsotunctl" TESTS_DIR="$top/tests" \
		GSOTUN_TEST_ARGS="$args" bash "$t"
done

reports=$(cat "$LOGS"/tsan.* 2>/dev/null |
	grep -c '^WARNING: ThreadSanitizer:')
echo "tsan: $ran runs (the unit tests as one), $failed failed," \
	"$reports ThreadSanitizer reports (logs: $LOGS)"
[ "$failed" -eq 0 ] && [ "$reports" -eq 0 ]
