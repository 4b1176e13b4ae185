#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Backpressure: an underlay slower than the tap (a token bucket of 300
# Mbit/s with a queue deeper than the socket buffer) under a UDP flood
# fills gsotun's socket; sends wait in io_uring for room and the tap is
# not read meanwhile (its own queue drops, as a NIC's would), and gsotun
# drops nothing; a TCP transfer then arrives intact.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 socat tc
net_setup 4 10
make_data mid 8
tc -n "$NS_A" qdisc add dev "$VETH_A" root tbf rate 50mbit burst 64kb \
	limit 64mb 2>/dev/null || {
	echo "1..0 # SKIP no tbf qdisc in this kernel"
	exit 0
}

ends_start()
{
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --address "$OV4_A/24" &&
		gt_start "$NS_B" "$TAP_B" --remote "$UL_A" \
			--address "$OV4_B/24"
}

# counter_is NS NAME MIN MAX: MIN <= the counter <= MAX.
counter_is()
{
	local v

	gt_counters "$1" || return 1
	v=$(ctr "$GT_CTR" "$2")
	[ -n "$v" ] && [ "$v" -ge "$3" ] && [ "$v" -le "$4" ] ||
		{ diag "$2=${v:-none}, want $3..$4"; return 1; }
}

# flood SECONDS: 1400-byte UDP datagrams A->B as fast as socat writes.
flood()
{
	ip netns exec "$NS_B" timeout $(($1 + 2)) socat -u \
		UDP4-RECV:9000 /dev/null </dev/null >/dev/null 2>&1 &
	track_pid $!
	ip netns exec "$NS_A" timeout "$1" socat -u -b 1400 /dev/zero \
		"UDP4-SENDTO:$OV4_B:9000" </dev/null >/dev/null 2>&1
	return 0
}

check "both ends start" ends_start
flood 3
check "A waited for room under a UDP flood (tx_backpressure > 0)" \
	counter_is "$NS_A" tx_backpressure 1 999999999
check "A dropped no send (tx_drop_send = 0)" \
	counter_is "$NS_A" tx_drop_send 0 0
check "8 MiB A->B through the 50 Mbit/s underlay, SHA-256 intact" \
	xfer "$NS_A" "$NS_B" "$OV4_B" mid 60
check "A dropped nothing at all" ctr_drops_zero "$GT_CTR"
check "A stops cleanly" gt_stop "$NS_A"
check "B stops cleanly" gt_stop "$NS_B"

done_testing
