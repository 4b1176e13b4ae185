#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replays the seed corpus of each fuzz harness (tests/corpus/NAME) through
# tests/fuzz-NAME.c built with ASan and UBSan, without libFuzzer; needs clang.
# Harnesses: fuzz-rx.c (encap_parse, gro), fuzz-tx.c (vnet_hdr_parse,
# gso_plan, encap_build, and the path MTU: pmtu_fit, pmtu_fragment,
# pmtu_icmp_build), fuzz-icmp.c (the underlay's ICMP errors as the error
# queue gives them: pmtu_serr_mtu, pmtu_lower).
# tests/fuzz-seeds.c writes the seeds; contrib/fuzz.sh fuzzes.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}
# The pure packet logic the harnesses link (tests/fuzz-*.c).
srcs="csum.c frame.c vnet.c gso.c gro.c encap.c pmtu.c log.c"

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

# config.h: the build tree's; make check runs from its top.
config_dir=
for d in ${top_builddir:-} . .. "$top_srcdir"; do
	if [ -f "$d/config.h" ]; then
		config_dir=$d
		break
	fi
done
[ -n "$config_dir" ] || skip "no config.h (run ./configure)"
command -v clang >/dev/null 2>&1 || skip "clang not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsotun-fuzz.XXXXXX") ||
	skip "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2054 # the commas belong to -fsanitize=
cflags=(-fsanitize=address,undefined -fno-sanitize-recover=all -g -O1
	-D_GNU_SOURCE -I"$config_dir" -I"$top_srcdir/src"
	-I"$top_srcdir/tests")

echo 'int main(void) { return 0; }' >"$tmp/probe.c"
if ! clang "${cflags[@]}" -o "$tmp/probe" "$tmp/probe.c" \
	>"$tmp/probe.log" 2>&1 || ! "$tmp/probe" >>"$tmp/probe.log" 2>&1; then
	skip "clang cannot build with -fsanitize=address,undefined"
fi

harnesses=()
for f in "$top_srcdir"/tests/fuzz-*.c; do
	name=${f##*/fuzz-}
	name=${name%.c}
	case $name in
	replay | seeds) ;;
	*) harnesses+=("$name") ;;
	esac
done
[ ${#harnesses[@]} -gt 0 ] || skip "no harness in $top_srcdir/tests"

# Leaks are errors too, unless LeakSanitizer cannot run here (ptrace).
asan="abort_on_error=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

diag() {
	sed -e 's/^/# /' "$1" | tail -n 40
}

# Is there a sanitizer report in the log?
reported() {
	grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$1"
}

echo "1..${#harnesses[@]}"
n=0
failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	bin=$tmp/fuzz-$h
	log=$tmp/$h.log
	lib=()
	for s in $srcs; do
		lib+=("$top_srcdir/src/$s")
	done
	if ! clang "${cflags[@]}" -o "$bin" "$top_srcdir/tests/fuzz-$h.c" \
		"$top_srcdir/tests/fuzz-replay.c" "${lib[@]}" >"$log" 2>&1; then
		echo "not ok $n - fuzz-$h: build failed"
		diag "$log"
		failed=1
		continue
	fi
	corpus=$top_srcdir/tests/corpus/$h
	# In a subshell, so that its "Aborted" goes to the log as well.
	(ASAN_OPTIONS=$asan "$bin" "$corpus"; exit $?) >"$log" 2>&1
	rc=$?
	if grep -q 'LeakSanitizer has encountered a fatal error' "$log"; then
		echo "# LeakSanitizer cannot run here: replaying without it"
		(ASAN_OPTIONS=abort_on_error=0:detect_leaks=0 \
			"$bin" "$corpus"; exit $?) >"$log" 2>&1
		rc=$?
	fi
	count=$(sed -n 's/^replay: \([0-9]*\) inputs$/\1/p' "$log")
	if [ "$rc" -eq 0 ] && ! reported "$log"; then
		echo "ok $n - fuzz-$h: ${count:-0} inputs of tests/corpus/$h"
	else
		echo "not ok $n - fuzz-$h: exit $rc replaying tests/corpus/$h"
		diag "$log"
		failed=1
	fi
done
exit $failed
