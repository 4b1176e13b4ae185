#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --mode tun with two peers: --route picks the peer by longest prefix, a
# packet no route takes is dropped and answered with ICMP net unreachable
# (ICMPv6 no route), the --route prefixes are routed into the tun and out
# of it at exit, and --strict-source drops a packet whose inner source
# is not routed to the peer it came from.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 200 socat ping
net_setup 4 8
make_data big 64
# A second peer of A's that is never there: its prefix must not catch B's.
UL_X=198.18.8.9
OV4_X=10.8.5.0/24

a_start()
{
	gt_start "$NS_A" "$TAP_A" --mode tun --encap gre-udp \
		--local "$UL_A" --remote "$UL_B" --remote "$UL_X" \
		--address "$OV4_A/24" --address "$OV6_A/64" \
		--route "10.8.0.0/16=$UL_X" --route "$OV4_B/32=$UL_B" \
		--route "$OV4_X=$UL_X" --route "${OV6_B}/128=$UL_B"
}

b_start()
{
	gt_start "$NS_B" "$TAP_B" --mode tun --encap gre-udp \
		--local "$UL_B" --remote "$UL_A" \
		--address "$OV4_B/24" --address "$OV6_B/64" --strict-source \
		--route "$OV4_A/32=$UL_A" --route "${OV6_A}/128=$UL_A"
}

# kernel_routes: the --route prefixes are routes into A's tun.
kernel_routes()
{
	local r

	r=$(ip -n "$NS_A" route show dev "$TAP_A"; ip -n "$NS_A" -6 route \
		show dev "$TAP_A")
	diag "A's routes into $TAP_A:" "$r"
	[[ $r == *"$OV4_X "* ]] && [[ $r == *"10.8.0.0/16 "* ]] &&
		[[ $r == *"$OV4_B "* ]] && [[ $r == *"$OV6_B "* ]]
}

# unreachable ADDR: a ping to ADDR, routed into A's tun by hand but under
# no --route (outside 10.8.0.0/16): gsotun answers it.
unreachable()
{
	local out c0 c1 n0 n1

	ip -n "$NS_A" route add "${1%.*}.0/24" dev "$TAP_A" || return 1
	gt_counters "$NS_A" || return 1
	c0=$(ctr "$GT_CTR" tx_drop_no_route) n0=$(ctr "$GT_CTR" tx_icmp_no_route)
	out=$(ip netns exec "$NS_A" ping -n -c 2 -i 0.2 -W 1 "$1" 2>&1)
	diag "$out"
	gt_counters "$NS_A" || return 1
	c1=$(ctr "$GT_CTR" tx_drop_no_route) n1=$(ctr "$GT_CTR" tx_icmp_no_route)
	diag "A: tx_drop_no_route $c0 -> $c1, tx_icmp_no_route $n0 -> $n1"
	[[ $out == *"Unreachable"* ]] && [ "$((c1 - c0))" -ge 2 ] &&
		[ "$((n1 - n0))" -ge 2 ]
}

# spoofed: a ping from a second address of A's, which B's routes do not
# send to A: B drops it under --strict-source, and counts it.
spoofed()
{
	local d0 d1

	ip -n "$NS_A" addr add 10.9.0.1/32 dev "$TAP_A" || return 1
	gt_counters "$NS_B" || return 1
	d0=$(ctr "$GT_CTR" rx_drop_source_route)
	ip netns exec "$NS_A" ping -n -q -c 2 -i 0.2 -W 1 -I 10.9.0.1 \
		"$OV4_B" >/dev/null 2>&1 &&
		{ diag "the spoofed ping got an answer"; return 1; }
	gt_counters "$NS_B" || return 1
	d1=$(ctr "$GT_CTR" rx_drop_source_route)
	diag "B: rx_drop_source_route $d0 -> $d1"
	[ "$((d1 - d0))" -ge 2 ]
}

r="tun routes"
check "$r: A (two peers, four routes) starts" a_start
check "$r: B (--strict-source) starts" b_start
check "$r: ping B from A over IPv4, by the /32 inside X's /16" \
	ping_ok "$NS_A" "$OV4_B"
check "$r: ping B from A over IPv6" ping_ok "$NS_A" "$OV6_B"
check "$r: ping A from B" ping_ok "$NS_B" "$OV4_A"
check "$r: 64 MiB A->B, SHA-256 matches" xfer "$NS_A" "$NS_B" "$OV4_B" big
check "$r: the --route prefixes are routes into the tun" kernel_routes
check "$r: no route: dropped, ICMP net unreachable, counted" \
	unreachable 10.7.0.1
check "$r: --strict-source drops a source not routed to its peer" spoofed
check "$r: A exits 0 on SIGTERM and removes its tun" gt_stop "$NS_A"
check "$r: B exits 0 on SIGTERM and removes its tun" gt_stop "$NS_B"

done_testing
