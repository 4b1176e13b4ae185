#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the libFuzzer harnesses (tests/fuzz-NAME.c) side by side for a given
# time, each from a copy of its seed corpus; reports executions and finds.
#
# Usage: contrib/fuzz.sh [-k] [-u] [SECONDS] [HARNESS...]
#   SECONDS   how long each harness runs (default 600)
#   HARNESS   rx (encap_parse, gro), tx (vnet_hdr_parse, gso_plan,
#             encap_build, and the path MTU: pmtu_fit, pmtu_fragment,
#             pmtu_icmp_build), icmp (the underlay's ICMP errors:
#             pmtu_serr_mtu, pmtu_lower), peers (the --peers file:
#             peersfile_load), control (the control socket's
#             requests: ctlreq_line, ctlreq_parse), config (the --config
#             file: conffile_read, options_parse_file, conffile_write),
#             fdbwatch (the forwarding database watch's rtnetlink
#             messages: link_fdb_parse), routefind (a dump of the
#             host's routes before a --route is made: link_route_scan)
#             (default: every tests/fuzz-NAME.c)
#   -k        keep going after a crash (libFuzzer -fork=1 -ignore_crashes=1)
#             and collect every crashing input
#   -u        afterwards, merge inputs that add coverage into the source
#             tree's tests/corpus/NAME (never written to otherwise)
#
# The harnesses are built by automake (configure --enable-fuzz) in a clean
# copy of the sources that `make distdir` writes from the build tree: the
# source tree when ./configure was run in it, else BUILD_DIR (e.g.
# BUILD_DIR=/path/to/build contrib/fuzz.sh).
# Other environment: FUZZ_DIR, the work directory (default: a new
# /tmp/gsotun-fuzz.XXXXXX, kept: it holds the corpora, logs and crashing
# inputs); FUZZ_ARGS, more libFuzzer options; CC, the compiler (clang).
# clang and its libFuzzer runtime are installed with apt-get when missing.
#
# A crashing input is replayed with the harness binary in the work
# directory (fuzz-NAME INPUT), made smaller with
# fuzz-NAME -minimize_crash=1 -runs=100000 INPUT, and, once fixed, belongs
# in tests/corpus/NAME so that `make check` (tests/fuzz.sh) replays it.
#
# Exit status: 0 nothing found, 1 a harness crashed, 2 usage or build error.
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-clang}

usage() {
	echo "usage: $0 [-k] [-u] [SECONDS] [HARNESS...]" >&2
	exit 2
}

die() {
	echo "fuzz.sh: $*" >&2
	exit 2
}

keep_going=0
update=0
while getopts ku opt; do
	case $opt in
	k) keep_going=1 ;;
	u) update=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
secs=600
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
	secs=$1
	shift
fi
[ "$secs" -gt 0 ] || usage

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
	for f in "$src"/tests/fuzz-*.c; do
		h=${f##*/fuzz-}
		h=${h%.c}
		case $h in
		replay | seeds) ;;
		*) harnesses+=("$h") ;;
		esac
	done
fi
for h in "${harnesses[@]}"; do
	[ -f "$src/tests/fuzz-$h.c" ] || die "no harness tests/fuzz-$h.c"
done

build=${BUILD_DIR:-$src}
[ -f "$build/Makefile" ] ||
	die "no Makefile in $build: run ./configure there, or set BUILD_DIR"

# As deps.sh: apt-get, through sudo when not root.
apt_install() {
	local sudo=

	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 ||
			die "missing $*; run as root to install"
		sudo=sudo
	fi
	echo "fuzz.sh: installing $*" >&2
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
		! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -q \
			-y --no-install-recommends "$@"; then
		die "cannot install $*"
	fi
}

work=${FUZZ_DIR:-}
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/gsotun-fuzz.XXXXXX) ||
		die "cannot create a work directory"
fi
mkdir -p "$work" || die "cannot create $work"

# Can cc link a libFuzzer program with the sanitizers?
fuzzer_works() {
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n)
	      { (void)d; (void)n; return 0; }' >"$work/probe.c"
	"$cc" -fsanitize=fuzzer,address,undefined -o "$work/probe" \
		"$work/probe.c" >/dev/null 2>&1
}

# Debian ships libFuzzer and the sanitizers' runtimes in libclang-rt-dev,
# which clang only recommends.
if ! command -v "$cc" >/dev/null 2>&1 || ! fuzzer_works; then
	[ "$cc" = clang ] || fuzzer_works ||
		die "$cc cannot build with -fsanitize=fuzzer"
	apt_install clang libclang-rt-dev
	if ! fuzzer_works; then
		major=$(clang -dumpversion | cut -d. -f1)
		apt_install "libclang-rt-$major-dev"
	fi
	fuzzer_works || die "$cc cannot build with -fsanitize=fuzzer"
fi

# A clean copy of the sources, configured for libFuzzer.
tree=$work/src
if [ ! -f "$tree/Makefile" ]; then
	echo "fuzz.sh: configuring $tree (--enable-fuzz)"
	rm -rf "$tree"
	{ make -C "$build" distdir distdir="$tree" &&
		(cd "$tree" && ./configure CC="$cc" --enable-fuzz); } \
		>"$work/build.log" 2>&1 ||
		die "cannot configure the fuzz build (see $work/build.log)"
fi
for h in "${harnesses[@]}"; do
	echo "fuzz.sh: building fuzz-$h"
	make -C "$tree" -j2 "tests/fuzz-$h" >>"$work/build.log" 2>&1 ||
		die "cannot build fuzz-$h (see $work/build.log)"
	cp "$tree/tests/fuzz-$h" "$work/fuzz-$h"
	mkdir -p "$work/corpus-$h" "$work/crashes-$h"
	if [ -d "$src/tests/corpus/$h" ]; then
		cp -n "$src/tests/corpus/$h"/* "$work/corpus-$h"/ 2>/dev/null
	fi
done

mode=()
[ "$keep_going" -eq 1 ] && mode=(-fork=1 -ignore_crashes=1)
# shellcheck disable=SC2206 # FUZZ_ARGS is a list of options
extra=(${FUZZ_ARGS:-})
echo "fuzz.sh: ${#harnesses[@]} harness(es) for $secs s each in $work"
pids=()
for h in "${harnesses[@]}"; do
	# 70000 bytes: a 64 KiB frame or packet and what goes before it.
	(cd "$work" && exec "./fuzz-$h" "${mode[@]}" \
		-max_total_time="$secs" -max_len=70000 -timeout=30 \
		-rss_limit_mb=4096 -print_final_stats=1 \
		-artifact_prefix="crashes-$h/" "${extra[@]}" "corpus-$h") \
		>"$work/fuzz-$h.log" 2>&1 &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	wait "$pid"
done

# Executions: the final stats, or fork mode's last status line.
execs() {
	local n

	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
	[ -n "$n" ] ||
		n=$(sed -n 's/^#\([0-9]*\):* .*/\1/p' "$1" | tail -n 1)
	echo "${n:-0}"
}

# A harness's check or a sanitizer's report, and the stack in our code.
what='check failed|ERROR: |runtime error:|^ +#[0-9]+ .* [^ ]*/(src|tests)/'
found=0
for h in "${harnesses[@]}"; do
	log=$work/fuzz-$h.log
	mapfile -t crashes < <(find "$work/crashes-$h" -type f | sort)
	inputs=$(find "$work/corpus-$h" -type f | wc -l)
	if [ ${#crashes[@]} -gt 0 ]; then
		found=1
		echo "fuzz-$h: $(execs "$log") executions, corpus $inputs" \
			"inputs, FOUND ${#crashes[@]}:"
		printf '  %s\n' "${crashes[@]}"
		# What the first one does, run once more.
		"$work/fuzz-$h" "${crashes[0]}" 2>&1 | grep -m 6 -E "$what" |
			sed 's/^/  /'
		echo "  log: $log"
	else
		echo "fuzz-$h: $(execs "$log") executions, corpus $inputs" \
			"inputs, nothing found"
	fi
	if [ "$update" -eq 1 ]; then
		mkdir -p "$src/tests/corpus/$h"
		(cd "$work" && "./fuzz-$h" -merge=1 \
			"$src/tests/corpus/$h" "corpus-$h") \
			>>"$work/merge-$h.log" 2>&1 ||
			echo "fuzz-$h: merge into tests/corpus/$h failed" >&2
	fi
done
exit $found
