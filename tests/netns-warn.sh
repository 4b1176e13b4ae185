#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runtime warnings of an underlay that stops reaching the peer: the route
# to it deleted, the underlay link taken down. While traffic is offered
# (100 pings a second), each end says it once, naming the peer and the
# cause, within seconds; and says when the peer is back, and traffic flows
# again. A loss held back after a flap is said when the interval is over.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 180 ping
net_setup 4 24

# said NS TEXT N: gsotun in NS has logged TEXT N times.
said()
{
	local n

	n=$(grep -cF -- "$2" "${GT_ERR[$1]}")
	[ "$n" -eq "$3" ] || { diag "'$2' said $n times, want $3"; return 1; }
}

# sleep_until T: until $SECONDS is T, if it is not already.
sleep_until()
{
	[ "$1" -le "$SECONDS" ] || sleep $(($1 - SECONDS))
}

# ping_again NS ADDR: pings answered within three tries of ping_ok (the
# neighbours of a path that was down may take a while to be learnt).
ping_again()
{
	local i

	for i in 1 2 3; do
		ping_ok "$@" && return 0
		diag "no answer to try $i"
	done
	return 1
}

# wait_said NS TEXT N: gsotun in NS logs TEXT the Nth time (5 s at most).
wait_said()
{
	local i

	for ((i = 0; i < 50; i++)); do
		[ "$(grep -cF -- "$2" "${GT_ERR[$1]}")" -ge "$3" ] && return 0
		sleep 0.1
	done
	said "$@"
}

# route_shown NS WANT: gsotunctl show in NS gives the peer's route as WANT.
route_shown()
{
	local out

	out=$(ip netns exec "$1" "$CTL" show 2>&1)
	[[ $out == *"route: $2,"* ]] && return 0
	diag "gsotunctl show in $1, not 'route: $2':" "$out"
	return 1
}

CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"

check "both ends start" ends_start
check "ping over the tunnel" ping_ok "$NS_A" "$OV4_B"

# Traffic offered all along: the warnings must not follow the packets.
ip netns exec "$NS_A" ping -q -i 0.01 -w 100 "$OV4_B" >/dev/null 2>&1 &
track_pid $!

NOROUTE="$TAP_A: no route to the peer $UL_B (Network is unreachable)"
ip -n "$NS_A" route del 198.18.24.0/24 dev "$VETH_A" ||
	bail "cannot delete the route"
check "A says there is no route to the peer" wait_log "$NS_A" "$NOROUTE"
# A's interval runs from when it said so, which a loaded machine may
# delay past the deletion: count from when it was seen.
t0=$SECONDS
sleep 3
check "once, not per packet" said "$NS_A" "$NOROUTE" 1
check "gsotunctl show says so" route_shown "$NS_A" "no route"
ip -n "$NS_A" route add 198.18.24.0/24 dev "$VETH_A" src "$UL_A" ||
	bail "cannot add the route back"
check "A says the peer is back" wait_log "$NS_A" \
	"$TAP_A: the peer $UL_B is reachable again"
check "ping over the tunnel again" ping_again "$NS_A" "$OV4_B"

# A says a peer's loss at most once in 10 s: wait for that before A's
# link loses its carrier.
sleep_until $((t0 + 11))
ip -n "$NS_B" link set "$VETH_B" down || bail "cannot take $VETH_B down"
# B's routes go with its link; A's link stays up, without a carrier.
check "B says its underlay link is down" wait_log "$NS_B" \
	"$TAP_B: underlay link $VETH_B down: nothing reaches $UL_A"
check "A says its underlay link is down" wait_log "$NS_A" \
	"$TAP_A: underlay link $VETH_A down: nothing reaches $UL_B"
t_link=$SECONDS
sleep 3
check "B says it once" said "$NS_B" "underlay link $VETH_B down" 1
check "A says it once" said "$NS_A" "underlay link $VETH_A down" 1
check "gsotunctl show says so" route_shown "$NS_A" "link down"
ip -n "$NS_B" link set "$VETH_B" up || bail "cannot take $VETH_B up"
check "B says the peer is back" wait_log "$NS_B" \
	"$TAP_B: the peer $UL_A is reachable again"
check "A says the peer is back" wait_said "$NS_A" \
	"$TAP_A: the peer $UL_B is reachable again" 2
check "ping over the tunnel again" ping_again "$NS_B" "$OV4_A"
check "gsotunctl show says the route is back" route_shown "$NS_A" ok

# A flap, then a lasting loss: the route deleted, added, deleted again
# within the interval. The second loss is held; it is said once the
# interval is over (a look at the route at least every 10 s), not never.
# The last warning of A's peer was the link's: 10 s after it first.
sleep_until $((t_link + 11))
t1=$SECONDS
ip -n "$NS_A" route del 198.18.24.0/24 dev "$VETH_A" ||
	bail "cannot delete the route"
check "a flap: A says there is no route" wait_said "$NS_A" "$NOROUTE" 2
ip -n "$NS_A" route add 198.18.24.0/24 dev "$VETH_A" src "$UL_A" ||
	bail "cannot add the route back"
check "  and that the peer is back" wait_said "$NS_A" \
	"$TAP_A: the peer $UL_B is reachable again" 3
ip -n "$NS_A" route del 198.18.24.0/24 dev "$VETH_A" ||
	bail "cannot delete the route"
sleep 1
check "  the loss again, within the interval: held" said "$NS_A" "$NOROUTE" 2

# wait_said_for SECONDS NS TEXT N: as wait_said, for longer.
wait_said_for()
{
	local i

	for ((i = 0; i < $1 * 10; i++)); do
		[ "$(grep -cF -- "$3" "${GT_ERR[$2]}")" -ge "$4" ] && break
		sleep 0.1
	done
	diag "after $((SECONDS - t1)) s"
	said "$2" "$3" "$4"
}

check "  a lasting loss is said when the interval is over (21 s at most)" \
	wait_said_for 21 "$NS_A" "$NOROUTE (and 1 more since)" 1
ip -n "$NS_A" route add 198.18.24.0/24 dev "$VETH_A" src "$UL_A" ||
	bail "cannot add the route back"
check "  and its end too" wait_said "$NS_A" \
	"$TAP_A: the peer $UL_B is reachable again" 4
check "ping over the tunnel again" ping_again "$NS_A" "$OV4_B"
check "both ends stop cleanly" ends_stop

# Many peers behind one link: a few named, the others counted. A with B
# and five peers that do not exist, on the one link, taken down.
more=()
for i in 10 11 12 13 14; do
	more+=(--remote "198.18.24.$i")
done
check "A starts with six peers" gt_start "$NS_A" "$TAP_A" --local "$UL_A" \
	--remote "$UL_B" "${more[@]}" --address "$OV4_A/24"
ip -n "$NS_A" link set "$VETH_A" down || bail "cannot take $VETH_A down"
check "three peers named" wait_said "$NS_A" "down: nothing reaches" 3
check "three more counted in one line" wait_log "$NS_A" \
	"$TAP_A: and 3 more peers unreachable"
sleep 1
check "  and not named" said "$NS_A" "down: nothing reaches" 3
ip -n "$NS_A" link set "$VETH_A" up || bail "cannot take $VETH_A up"
check "three named back" wait_said "$NS_A" "is reachable again" 3
check "three more counted back" wait_log "$NS_A" \
	"$TAP_A: and 3 more peers reachable again"
check "A stops cleanly" gt_stop "$NS_A"
done_testing
