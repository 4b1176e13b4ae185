#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The path MTU follows route changes that no route message of the peer's
# prefix says. A reaches a peer beyond B by a default route over its
# underlay link, and has a backup default route of MTU 1400 over a
# second link. Deleting the underlay address removes the default route
# without a word; with ignore_routes_with_linkdown, the link losing its
# carrier moves the peer's route to the backup, and its carrier coming
# back moves it home, with link messages only. Each is followed within a
# few seconds, not at the ten-second look.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 33
PEER=198.19.33.5 BK_A=bA$$ BK_Z=bZ$$ BK_NET=198.18.133
# VXLAN over IPv4: 50 bytes, and the tap's MTU is the path's less that.
MAIN_MTU=1450 BACKUP_MTU=1350

# tap_mtu_within SECONDS MTU: A's tap reaches MTU within SECONDS.
tap_mtu_within()
{
	local i

	for ((i = 0; i < $1 * 10; i++)); do
		[ "$(tap_mtu "$NS_A" "$TAP_A")" = "$2" ] && return 0
		sleep 0.1
	done
	diag "A's tap: MTU $(tap_mtu "$NS_A" "$TAP_A") after $1 s, want $2"
	return 1
}

# routes: the default route over the underlay, the backup over BK_A.
routes()
{
	ip -n "$NS_A" link add "$BK_A" type veth peer name "$BK_Z" &&
		ip -n "$NS_A" addr add "$BK_NET.1/24" dev "$BK_A" &&
		ip -n "$NS_A" link set "$BK_A" up &&
		ip -n "$NS_A" link set "$BK_Z" up &&
		ip -n "$NS_A" route add default via "$UL_B" dev "$VETH_A" &&
		ip -n "$NS_A" route add default via "$BK_NET.2" dev "$BK_A" \
			metric 200 mtu 1400
}

check "a default route over the underlay, a backup of MTU 1400" routes ||
	bail "cannot set up the routes"
check "gsotun starts on A toward $PEER" gt_start "$NS_A" "$TAP_A" \
	--remote "$PEER" --address "$OV4_A/24"
check "its tap follows the default route: MTU $MAIN_MTU" \
	tap_mtu_within 1 "$MAIN_MTU"

# Only the local and broadcast routes of the address are said; the
# default route through it goes with them.
ip -n "$NS_A" addr del "$UL_A/24" dev "$VETH_A"
check "the underlay address deleted: the backup's MTU $BACKUP_MTU" \
	tap_mtu_within 3 "$BACKUP_MTU"
ip -n "$NS_A" addr add "$UL_A/24" dev "$VETH_A"
ip -n "$NS_A" route add default via "$UL_B" dev "$VETH_A"
check "the address and the route back: MTU $MAIN_MTU" \
	tap_mtu_within 3 "$MAIN_MTU"

ip netns exec "$NS_A" sysctl -qw \
	net.ipv4.conf.all.ignore_routes_with_linkdown=1
ip -n "$NS_B" link set "$VETH_B" down
check "the underlay link without carrier: the backup's MTU $BACKUP_MTU" \
	tap_mtu_within 3 "$BACKUP_MTU"
ip -n "$NS_B" link set "$VETH_B" up
check "the carrier back: MTU $MAIN_MTU (only a link message says so)" \
	tap_mtu_within 3 "$MAIN_MTU"
check "A stops cleanly" gt_stop "$NS_A"
done_testing
