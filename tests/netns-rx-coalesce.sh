#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --rx-coalesce MSEC (issue 38): while packets stream in, a queue that has
# emptied its socket reads it again only MSEC later, in batches. Raw GRE
# has no GRO, so without it a receiver that keeps up reads a packet or
# two a call. TCP from A to B over gre streams in: B's gsotun counts
# windows (rx_coalesce_waits) and reads more than 16 packets a receive
# call on average (rx_segments / rx_calls), the data intact. Pings, far
# fewer than 64 packets a millisecond, open no window. Without the
# option nothing is counted.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 46
GT_ARGS=(--encap gre)
make_data big 32

# streamed TRIES: 32 MiB A->B intact, and meanwhile B's windows and
# receive calls; STREAM_WAITS and STREAM_PER_CALL say them. A stream
# must come at 64 packets a millisecond or more: a loaded machine may
# send slower for a while, so up to TRIES tries until a window opens.
streamed()
{
	local try b0 r0 c0 segs calls

	for ((try = 1; try <= $1; try++)); do
		gt_counters "$NS_B" || return 1
		b0=$(ctr "$GT_CTR" rx_coalesce_waits)
		r0=$(ctr "$GT_CTR" rx_segments) c0=$(ctr "$GT_CTR" rx_calls)
		xfer "$NS_A" "$NS_B" "$OV4_B" big || return 1
		gt_counters "$NS_B" || return 1
		STREAM_WAITS=$(($(ctr "$GT_CTR" rx_coalesce_waits) - b0))
		segs=$(($(ctr "$GT_CTR" rx_segments) - r0))
		calls=$(($(ctr "$GT_CTR" rx_calls) - c0))
		STREAM_PER_CALL=$((segs / (calls > 0 ? calls : 1)))
		diag "try $try: $STREAM_WAITS windows, $segs packets in" \
			"$calls receive calls"
		[ "$STREAM_WAITS" -gt 0 ] && return 0
	done
	return 0
}

windows()
{
	[ "$STREAM_WAITS" -gt 0 ] && [ "$STREAM_PER_CALL" -gt 16 ]
}

no_windows()
{
	[ "$STREAM_WAITS" -eq 0 ]
}

# 20 pings A->B; B's counters before and after them in BEFORE, AFTER.
pings()
{
	gt_counters "$NS_B" || return 1
	BEFORE=$GT_CTR
	ip netns exec "$NS_A" ping -n -q -c 20 -i 0.05 -W 1 "$OV4_B" \
		>/dev/null 2>&1 || { diag "pings A->B lost"; return 1; }
	gt_counters "$NS_B" || return 1
	AFTER=$GT_CTR
}

pings_not_held()
{
	local moved

	moved=$(ctr_moved "$BEFORE" "$AFTER" 'rx_coalesce_waits')
	[ -z "$moved" ] || { diag "moved: $moved"; return 1; }
}

check "--rx-coalesce 2 (gre): both ends up" ends_start --rx-coalesce 2
check "32 MiB A->B intact through coalescing ends" streamed 3
check "B read the stream in windows, > 16 packets a call" windows
check "20 pings through coalescing ends" pings
check "pings are no stream: no window" pings_not_held
check "both ends exit 0 on SIGTERM" ends_stop

check "without --rx-coalesce: both ends up" ends_start
check "32 MiB A->B intact" streamed 1
check "no window without the option" no_windows
check "both ends exit 0 on SIGTERM (no option)" ends_stop

done_testing
