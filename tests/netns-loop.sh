#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A peer whose underlay route goes out through the tunnel's own device
# (issue 35): the kernel's vxlan refuses such a route ("circular route",
# counted as a collision), keeps its MTU and recovers at once, and so
# must gsotun, where a single ARP once became a storm of a million sends
# a second and the tap's MTU fell to 100.
#   1. The kernel's vxlan, the control: A's route to B sent into A's
#      vxlan device. Pings fail, its collisions count moves, its MTU
#      stays, few packets leave; the route removed, pings at once.
#   2. gsotun, tap: a peer added at run time (gsotunctl peer add) whose
#      route goes through A's tap. The frames flooded to it are refused
#      and counted (tx_drop_circular_route), almost nothing is sent in 2
#      s, the tap keeps its MTU, show says "circular, via TAP (refused)",
#      a warning names the peer; B still answers. Its route made a real
#      one: frames go to it again.
#   3. gsotun, tap, and 4. tun (gre-udp): a routing change sends B's own
#      route into A's device: the same, and the route removed, the
#      tunnel carries pings again within 2 s.
# Each phase: the host's routes (`ip route`) before and after are equal,
# and `ip route get B` holds no path MTU the loop taught the host.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 180 ping
net_setup 4 35
LOOP=198.18.235.1
VX_A=vA$$ VX_B=vB$$
# Packets that a storm-free loop may send in 2 s: a few pings and ARPs.
BOUND=100

# routes NS: the host's routes of both families, as `ip route` says.
routes()
{
	ip -n "$1" route show table all | grep -v ' cache'
	ip -n "$1" -6 route show table all | grep -v ' cache'
}

# same_routes BEFORE: A's routes now are BEFORE.
same_routes()
{
	local now

	now=$(routes "$NS_A")
	[ "$now" = "$1" ] && return 0
	diag "A's routes changed:" "$(diff <(echo "$1") <(echo "$now"))"
	return 1
}

# no_pmtu ADDR: the host learnt no path MTU to ADDR (`ip route get`).
no_pmtu()
{
	local r

	r=$(ip -n "$NS_A" route get "$1" 2>&1)
	[[ $r != *" mtu "* ]] || { diag "ip route get $1:" "$r"; return 1; }
}

# link_tx NS DEV [NAME]: the device's TX counter NAME (packets: for a
# tap or tun, those handed to gsotun), from `ip -s -s link`.
link_tx()
{
	ip -n "$1" -s -s link show dev "$2" |
		awk -v want="${3:-packets}" '
			/TX: / { for (i = 1; i <= NF; i++) col[$i] = i - 1
				 getline; print $col[want]; exit }'
}

# kvx_a: the kernel's vxlan on A, to B on port 4789, OV4_A on it, up.
kvx_a()
{
	ip -n "$NS_A" link add "$VX_A" type vxlan id 1 local "$UL_A" \
		remote "$UL_B" dstport 4789 dev "$VETH_A" &&
		ip -n "$NS_A" addr add "$OV4_A/24" dev "$VX_A" &&
		ip -n "$NS_A" link set "$VX_A" up
}

# kernel_refuses: A's route to B goes into the vxlan device; pings fail,
# collisions move, the MTU stays, few packets leave its veth.
kernel_refuses()
{
	local c0 c1 v0 v1 mtu

	c0=$(link_tx "$NS_A" "$VX_A" collsns) v0=$(link_tx "$NS_A" "$VETH_A")
	ip -n "$NS_A" route add "$UL_B/32" dev "$VX_A" || return 1
	ping_ok "$NS_A" "$OV4_B" && { diag "a ping crossed"; return 1; }
	sleep 1
	c1=$(link_tx "$NS_A" "$VX_A" collsns) v1=$(link_tx "$NS_A" "$VETH_A")
	mtu=$(tap_mtu "$NS_A" "$VX_A")
	diag "kernel: collisions $c0 -> $c1, veth sent $((v1 - v0)), MTU $mtu"
	[ "$c1" -gt "$c0" ] && [ "$mtu" = 1450 ] &&
		[ $((v1 - v0)) -lt "$BOUND" ]
}

# ---------------------------------------------------------------- gsotun

# wait_show TEXT: A's `gsotunctl show` says TEXT within 5 s (what
# gsotun's route watch reads at once, but on a busy machine).
wait_show()
{
	local i

	for ((i = 0; i < 50; i++)); do
		ctl "$NS_A" show
		[[ $OUT == *"$1"* ]] && return 0
		sleep 0.1
	done
	diag "show does not say '$1':" "$OUT"
	return 1
}

# no_storm ADDR MTU: two pings from A to ADDR over 2 s: A's gsotun sends
# fewer than BOUND packets, its device hands it fewer than BOUND,
# tx_drop_circular_route moves, the device keeps MTU.
no_storm()
{
	local before s0 s1 t0 t1 mtu d0 d1

	gt_counters "$NS_A" || return 1
	before=$GT_CTR
	t0=$(link_tx "$NS_A" "$TAP_A")
	ip netns exec "$NS_A" ping -n -q -c 2 -i 0.5 -W 1 "$1" \
		>/dev/null 2>&1
	sleep 1
	t1=$(link_tx "$NS_A" "$TAP_A")
	gt_counters "$NS_A" || return 1
	s0=$(ctr "$before" tx_segments) s1=$(ctr "$GT_CTR" tx_segments)
	d0=$(ctr "$before" tx_drop_circular_route)
	d1=$(ctr "$GT_CTR" tx_drop_circular_route)
	mtu=$(tap_mtu "$NS_A" "$TAP_A")
	diag "sent $((s1 - s0)), read $((t1 - t0)), circular ${d0:-none} ->\
 ${d1:-none}, MTU $mtu (was $2)"
	[ $((s1 - s0)) -lt "$BOUND" ] && [ $((t1 - t0)) -lt "$BOUND" ] &&
		[ "${d1:-0}" -gt "${d0:-0}" ] && [ "$mtu" = "$2" ]
}

# peer_sent ADDR: packets A sent to peer ADDR, as show says.
peer_sent()
{
	ctl "$NS_A" show
	awk -v p="peer $1" '$0 == p { f = 1; next }
		f && /^  sent:/ { print $2; exit }' <<<"$OUT"
}

# sends_to ADDR: a ping from A to B makes A send to peer ADDR.
sends_to()
{
	local n0 n1

	n0=$(peer_sent "$1")
	ping_ok "$NS_A" "$OV4_B"
	n1=$(peer_sent "$1")
	diag "sent to $1: $n0 -> $n1"
	[ "${n1:-0}" -gt "${n0:-0}" ]
}

# resumes: pings from A to B answered within 2 s.
resumes()
{
	local i

	for ((i = 0; i < 4; i++)); do
		ip netns exec "$NS_A" ping -n -q -c 1 -W 0.5 "$OV4_B" \
			>/dev/null 2>&1 && return 0
	done
	diag "no answer from B in 2 s"
	return 1
}

# ---------------------------------------------------------------- 1

p="1. kernel vxlan"
check "$p: A and B up, a ping crosses" \
	eval 'kvx_a && kvx_b "$VX_B" 1 "$OV4_B/24" && ping_ok "$NS_A" "$OV4_B"'
R0=$(routes "$NS_A")
check "$p: B's route into the device: refused, counted, MTU kept" \
	kernel_refuses
ip -n "$NS_A" route del "$UL_B/32" dev "$VX_A"
check "$p: the route removed: a ping crosses at once" resumes
check "$p: no path MTU learnt for B" no_pmtu "$UL_B"
check "$p: A's routes as before" same_routes "$R0"
ip -n "$NS_A" link del "$VX_A"
ip -n "$NS_B" link del "$VX_B"

# ---------------------------------------------------------------- 2

# ends MODE...: gsotun on both ends, their tunnel up.
ends()
{
	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" "$@" &&
		gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
			--address "$OV4_B/24" "$@" &&
		resumes
}

p="2. tap, peer add"
check "$p: gsotun on both ends, a ping crosses" ends
R0=$(routes "$NS_A") MTU=$(tap_mtu "$NS_A" "$TAP_A")
ip -n "$NS_A" route add "$LOOP/32" via "$OV4_B" dev "$TAP_A"
check "$p: gsotunctl peer add $LOOP, routed through A's tap" \
	ctl_ok "$NS_A" peer add "$LOOP"
check "$p: show says circular, via $TAP_A (refused)" \
	wait_show "route: circular, via $TAP_A (refused)"
check "$p: a warning names the peer" \
	wait_log "$NS_A" "the route to the peer $LOOP goes out through $TAP_A"
check "$p: no storm: a ping's flood refused, counted, MTU $MTU kept" \
	no_storm "$OV4_B" "$MTU"
check "$p: B still answers" ping_ok "$NS_A" "$OV4_B"
check "$p: no path MTU learnt for B or the peer" \
	eval 'no_pmtu "$UL_B" && no_pmtu "$LOOP"'
ip -n "$NS_A" route replace "$LOOP/32" via "$UL_B" dev "$VETH_A"
check "$p: its route made real: frames go to it again" sends_to "$LOOP"
check "$p: show says its route is ok" wait_show "peer $LOOP
  route: ok"
check "$p: peer del" ctl_ok "$NS_A" peer del "$LOOP"
ip -n "$NS_A" route del "$LOOP/32"
check "$p: A's routes as before" same_routes "$R0"
check "$p: A stops" gt_stop "$NS_A"
check "$p: B stops" gt_stop "$NS_B"

# ---------------------------------------------------------------- 3, 4

# rerouted LABEL VIA...: B's route on A set to VIA (into A's device); no
# storm, B refused; the route removed, pings again; routes as before.
rerouted()
{
	local p=$1

	shift
	R0=$(routes "$NS_A") MTU=$(tap_mtu "$NS_A" "$TAP_A")
	ip -n "$NS_A" route add "$UL_B/32" "$@" dev "$TAP_A"
	check "$p: B's route into A's device: show says circular" \
		wait_show "route: circular, via $TAP_A (refused)"
	check "$p: no storm: a ping refused, counted, MTU $MTU kept" \
		no_storm "$OV4_B" "$MTU"
	ip -n "$NS_A" route del "$UL_B/32" dev "$TAP_A"
	check "$p: the route removed: pings within 2 s" resumes
	check "$p: show says its route is ok" wait_show "peer $UL_B
  route: ok"
	check "$p: the tap's MTU still $MTU" wait_tap_mtu "$NS_A" "$TAP_A" \
		"$MTU"
	check "$p: no path MTU learnt for B" no_pmtu "$UL_B"
	check "$p: A's routes as before" same_routes "$R0"
	check "$p: A stops" gt_stop "$NS_A"
	check "$p: B stops" gt_stop "$NS_B"
}

p="3. tap, routing change"
check "$p: gsotun on both ends, a ping crosses" ends
rerouted "$p" via "$OV4_B"

p="4. tun, routing change"
check "$p: gsotun on both ends, a ping crosses" ends --mode tun \
	--encap gre-udp
rerouted "$p"

done_testing
