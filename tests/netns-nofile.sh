#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun under a tiny `ulimit -n` (issue 35): whatever runs out of file
# descriptors first (an underlay socket, rtnetlink, the control socket,
# libev's signal pipe, which made libev abort() with a bare line and
# status 134), gsotun says so as its error, "Too many open files", and
# exits 1; with enough it runs (until timeout stops it). One queue and
# two (a loop per lane), limits from 8 up.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 timeout
net_setup 4 38

# limits FIRST LAST STEP ARGS...: gsotun on A with ARGS under ulimit -n N
# for N from FIRST to LAST: each exits 1 saying why, or runs for 1 s.
limits()
{
	local first=$1 last=$2 step=$3 n st err=$LIB_TMP/nofile.err bad=0
	local ran=0 refused=0

	shift 3
	for ((n = first; n <= last; n += step)); do
		ip netns exec "$NS_A" bash -c 'ulimit -n "$1"; shift;
			exec timeout -s TERM 1 "$@"' sh "$n" "$GSOTUN" \
			--dev "$TAP_A" --local "$UL_A" --remote "$UL_B" "$@" \
			</dev/null >/dev/null 2>"$err"
		st=$?
		if [ "$st" -eq 124 ]; then
			ran=$((ran + 1))
		elif [ "$st" -eq 1 ] &&
			grep -q '^gsotun: error: .*Too many open files' "$err"; then
			refused=$((refused + 1))
		else
			diag "ulimit -n $n: status $st:" "$(tail -n 2 "$err")"
			bad=1
		fi
	done
	diag "$refused refused, $ran ran"
	[ "$bad" -eq 0 ] && [ "$refused" -gt 0 ] && [ "$ran" -gt 0 ]
}

check "one queue: ulimit -n 8..28: a clear error and status 1, or it runs" \
	limits 8 28 1
check "two queues: ulimit -n 8..48: the same" limits 8 48 2 --queues 2
done_testing
