#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Peers the underlay has no route to cost nothing per frame (issue 35):
# A has B and 1000 peers of a prefix it has no route to (a --peers
# file), and learns no MACs, so every frame is flooded to all 1001.
# Each of them used to cost a failed send (nine, with the retries) per
# frame, and pings through the tunnel to B waited seconds. Now:
#   - the 1000 are marked once, show says "no route", and a frame costs
#     two sends (B's and the ruled peer's, below): tx_sends per frame
#     read stays at 2, and tx_drop_peer_no_route counts 1000 copies a
#     frame;
#   - 20 pings to B all come back, none slower than 200 ms;
#   - a route to two of them (a routing change the route watch sees)
#     has frames sent to them at once; removed, they are marked again;
#   - a peer that only a rule from A's --local address routes (`ip rule
#     from`, as the sockets bound to it send) is not marked;
#   - the host's routes (`ip route`) before and after are equal.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 180 ping
net_setup 4 36
PEERS=$LIB_TMP/peers
N=1000
# The first of the unrouted peers, and a prefix that holds it and one more.
FIRST=198.19.36.1 PAIR=198.19.36.0/30
# A peer routed by a rule from A's address alone, in a table of its own.
RULED=198.19.135.1 TABLE=135

for ((i = 0; i < N; i++)); do
	echo "remote 198.19.$((36 + i / 250)).$((i % 250 + 1))"
done >"$PEERS"
echo "remote $RULED" >>"$PEERS"

# routes NS: the host's routes of both families, as `ip route` says.
routes()
{
	ip -n "$1" route show table all
	ip -n "$1" -6 route show table all
}

# peer_sent ADDR: packets A sent to peer ADDR, as show says.
peer_sent()
{
	ctl "$NS_A" show
	awk -v p="peer $1" '$0 == p { f = 1; next }
		f && /^  sent:/ { print $2; exit }' <<<"$OUT"
}

# pings_cheap: 20 pings from A to B: all answered, none over 200 ms;
# A's sends per frame read 2 at most, the unrouted copies counted.
pings_cheap_try()
{
	local before out f s d max loss

	gt_counters "$NS_A" || return 1
	before=$GT_CTR
	out=$(ip netns exec "$NS_A" ping -n -q -c 20 -i 0.1 -W 2 "$OV4_B")
	gt_counters "$NS_A" || return 1
	f=$(($(ctr "$GT_CTR" tx_frames) - $(ctr "$before" tx_frames)))
	s=$(($(ctr "$GT_CTR" tx_sends) - $(ctr "$before" tx_sends)))
	d=$(ctr "$GT_CTR" tx_drop_peer_no_route)
	d=$((${d:-0} - $(ctr "$before" tx_drop_peer_no_route || echo 0)))
	loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
	max=$(sed -n 's|^rtt .* = [0-9.]*/[0-9.]*/\([0-9]*\).*|\1|p' <<<"$out")
	diag "$f frames, $s sends, $d unrouted copies; loss $loss%, max\
 RTT ${max:-?} ms"
	[ "$f" -gt 0 ] && [ "$s" -le $((2 * f)) ] &&
		[ "$d" -ge $((N * f)) ] && [ "$loss" = 0 ] &&
		[ -n "$max" ] && [ "$max" -lt 200 ]
}

# A try that load on a shared machine spoiled is tried again (before the
# route watch marked them, every try lost 44% with round trips of
# seconds).
pings_cheap()
{
	pings_cheap_try || pings_cheap_try || pings_cheap_try
}

# sends_to ADDR WANT: a ping from A to B makes A send to peer ADDR (WANT
# 1), or not (WANT 0).
sends_to()
{
	local n0 n1

	n0=$(peer_sent "$1")
	ping_ok "$NS_A" "$OV4_B"
	n1=$(peer_sent "$1")
	diag "sent to $1: $n0 -> $n1"
	[ -n "$n0" ] && [ -n "$n1" ] && [ $((n1 > n0)) = "$2" ]
}

# wait_route ADDR WORDS: show says WORDS of peer ADDR's route within 2 s.
wait_route()
{
	local i

	for ((i = 0; i < 20; i++)); do
		ctl "$NS_A" show
		[[ $OUT == *"peer $1
  route: $2"* ]] && return 0
		sleep 0.1
	done
	diag "show does not say 'route: $2' of $1:" \
		"$(grep -A1 "^peer $1\$" <<<"$OUT")"
	return 1
}

ip -n "$NS_A" rule add from "$UL_A" lookup "$TABLE" pref 100 &&
	ip -n "$NS_A" route add "${RULED%.*}.0/24" via "$UL_B" dev "$VETH_A" \
		table "$TABLE" || bail "cannot add the rule and its route"
R0=$(routes "$NS_A")
check "A starts with B, $N peers it has no route to and $RULED" \
	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
	--peers "$PEERS" --address "$OV4_A/24"
check "B starts" gt_start "$NS_B" "$TAP_B" --local "$UL_B" \
	--remote "$UL_A" --address "$OV4_B/24"
check "a ping crosses" ping_ok "$NS_A" "$OV4_B"
check "show says no route of $FIRST" wait_route "$FIRST" "no route"
check "20 pings to B: none lost or slow; two sends a frame" pings_cheap
check "show says ok of $RULED, routed by a rule from --local" \
	wait_route "$RULED" ok
check "and frames go to it" sends_to "$RULED" 1
check "nothing is sent to $FIRST" sends_to "$FIRST" 0
ip -n "$NS_A" route add "$PAIR" via "$UL_B" dev "$VETH_A"
check "a route to $PAIR: show says ok of $FIRST" wait_route "$FIRST" ok
check "and frames go to it" sends_to "$FIRST" 1
ip -n "$NS_A" route del "$PAIR"
check "the route removed: no route again" wait_route "$FIRST" "no route"
check "and nothing is sent to it" sends_to "$FIRST" 0
check "A stops" gt_stop "$NS_A"
check "B stops" gt_stop "$NS_B"
check "A's routes as before it started" \
	eval '[ "$(routes "$NS_A")" = "$R0" ]'

done_testing
