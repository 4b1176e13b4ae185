#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --busy-poll USEC: after a packet, gsotun polls for the next one instead
# of sleeping. A pings B through two gsotuns; each answer comes back
# within a millisecond or so, while A's gsotun still polls after sending
# the request (a window of 5 ms, so that a loaded machine, where the
# poller yields its CPU to others, still catches most), so it is caught
# without a wake-up
# (busy_poll_caught) and the polling is counted as time (busy_poll_us),
# which show states; traffic is intact. Without the option nothing of it
# moves. Latency itself is contrib/bench.sh's (rows vxlan, busy-poll).
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 31
make_data small 8

# ends POLL...: both gsotuns, with the options POLL.
ends()
{
	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" "$@" &&
		gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
			--address "$OV4_B/24" "$@"
}

# 20 pings A->B; A's counters after them in AFTER, before in BEFORE.
pings()
{
	gt_counters "$NS_A" || return 1
	BEFORE=$GT_CTR
	ip netns exec "$NS_A" ping -n -q -c 20 -i 0.05 -W 1 "$OV4_B" \
		>/dev/null 2>&1 || { diag "pings A->B lost"; return 1; }
	# The last spell of polling ends (and is counted) after 5 ms.
	sleep 0.1
	gt_counters "$NS_A" || return 1
	AFTER=$GT_CTR
}

caught()
{
	local c us

	c=$(ctr "$AFTER" busy_poll_caught) us=$(ctr "$AFTER" busy_poll_us)
	diag "busy_poll_caught=$c busy_poll_us=$us"
	[ "${c:-0}" -ge 10 ] && [ "${us:-0}" -gt 0 ]
}

shown()
{
	ctl_ok "$NS_A" show &&
		[[ $OUT =~ busy-poll:\ 5000\ us\ after\ work,\ [0-9.]+\ s\ polled\ \([0-9.]+%\ of\ a\ CPU\),\ [1-9][0-9]*\ wake-ups\ spared ]] ||
		{ diag "$OUT"; return 1; }
}

not_polled()
{
	local moved

	moved=$(ctr_moved "$BEFORE" "$AFTER" 'busy_poll_us|busy_poll_caught')
	[ -z "$moved" ] || { diag "moved: $moved"; return 1; }
}

check "--busy-poll 5000: both ends up" ends --busy-poll 5000
check "20 pings through polling ends" pings
check "the answers were caught while polling, the time counted" caught
check "show says the polling and its cost" shown
check "8 MiB A->B intact while polling" xfer "$NS_A" "$NS_B" "$OV4_B" small
gt_stop "$NS_A"
gt_stop "$NS_B"

check "without --busy-poll: both ends up" ends
check "20 pings through sleeping ends" pings
check "nothing polled, nothing counted" not_polled
ctl_ok "$NS_A" show
check "show says nothing of polling" lacks "busy-poll"

done_testing
