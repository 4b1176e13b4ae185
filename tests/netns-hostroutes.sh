#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The routes --route and gsotunctl route add make never replace the
# host's (issue 35): they are added as `ip route add` adds them (EXCL),
# so a prefix the host routes already (its default route, the connected
# underlay) is refused, exit 64 at start and a refusal at run time; a
# prefix that would take the tunnel packets to a peer into the tun (the
# peer's route now no longer than the prefix) is refused the same way;
# route del, by root or by an --admin-group member, deletes only routes
# gsotun made. A's routes (`ip route`) are compared before and after
# each step, and after gsotun exits.
#   A: underlay 198.18.36.1/24, default route via B (198.18.36.2), peers
#      B and P2 (198.19.36.2, an address of B's reached by that default
#      route only).
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping setpriv
net_setup 4 36
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
P2=198.19.36.2
ip -n "$NS_B" addr add "$P2/32" dev lo &&
	ip -n "$NS_A" route add default via "$UL_B" dev "$VETH_A" ||
	bail "cannot set up the default route"
# gsotunctl where an --admin-group member (uid 65534, group 4242) may run it.
PUB=$LIB_TMP/pub
{ chmod 711 "$LIB_TMP" && mkdir -m 755 "$PUB" && cp "$CTL" "$PUB/gsotunctl"; } ||
	bail "cannot copy gsotunctl to $PUB"

# routes: A's routes of both families, as `ip route` says.
routes()
{
	ip -n "$NS_A" route show table all | grep -v ' cache'
	ip -n "$NS_A" -6 route show table all | grep -v ' cache'
}
R0=$(routes)

# same_routes: A's routes now are R0 (and those routed into A's tun).
same_routes()
{
	local now

	now=$(routes | grep -v " dev $TAP_A ")
	[ "$now" = "$R0" ] && return 0
	diag "A's routes changed:" "$(diff <(echo "$R0") <(echo "$now"))"
	return 1
}

# refused_at_start TEXT ARGS...: gsotun on A with ARGS exits 64 within
# 10 s (a start on a busy machine), having said TEXT; A's routes are as
# before.
refused_at_start()
{
	local text=$1 err=$LIB_TMP/start.err st i pid

	shift
	ip netns exec "$NS_A" "$GSOTUN" --dev "$TAP_A" --mode tun \
		--encap gre-udp --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" "$@" \
		</dev/null >/dev/null 2>"$err" &
	pid=$!
	track_pid "$pid"
	wait_gone "$pid" 100 || kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	st=$?
	forget_pid "$pid"
	diag "exit $st: $(grep -v tx_frames= "$err" | tail -n 2)"
	for ((i = 0; i < 20; i++)); do
		dev_gone "$NS_A" "$TAP_A" && break
		sleep 0.1
	done
	[ "$st" -eq 64 ] && grep -qF -- "$text" "$err" && same_routes
}

p="at start"
check "$p: --route 0.0.0.0/0: the host's default route is not replaced" \
	refused_at_start "the host has a route to 0.0.0.0/0 already" \
	--route "0.0.0.0/0=$UL_B"
check "$p: --route of the connected underlay prefix: not replaced" \
	refused_at_start "the host has a route to 198.18.36.0/24 already" \
	--route "198.18.36.0/24=$UL_B"
check "$p: --route holding peer P2, routed now by the default route" \
	refused_at_start "it holds peer $P2" --remote "$P2" \
	--route "198.19.36.0/24=$P2"

# a_start: A's gsotun, routes that the host's table takes.
a_start()
{
	gt_start "$NS_A" "$TAP_A" --mode tun --encap gre-udp \
		--local "$UL_A" --remote "$UL_B" --remote "$P2" \
		--address "$OV4_A/24" --admin-group 4242 \
		--route "$OV4_B/32=$UL_B" --route "198.18.0.0/16=$UL_B"
}

# tunnel: a ping crosses from A to B's tun.
tunnel()
{
	ping_ok "$NS_A" "$OV4_B"
}

# into_tun PREFIX: A routes PREFIX into its tun (or, with !, does not).
into_tun()
{
	local r

	r=$(ip -n "$NS_A" route show dev "$TAP_A")
	[[ $r == *"$1 "* ]] && return 0
	diag "no $1 into $TAP_A:" "$r"
	return 1
}

# ctl_as_admin ARGS...: gsotunctl as uid 65534 in group 4242 only.
ctl_as_admin()
{
	OUT=$(ip netns exec "$NS_A" setpriv --reuid=65534 --regid=4242 \
		--clear-groups "$PUB/gsotunctl" "$TAP_A" "$@" \
		2>"$LIB_TMP/ctl.err")
	ST=$?
	ERR=$(cat "$LIB_TMP/ctl.err")
}

# refused TEXT WHO ARGS...: route add|del by WHO (root, admin) fails with
# status 1 saying TEXT; A's routes are as before.
refused()
{
	local text=$1 who=$2

	shift 2
	if [ "$who" = admin ]; then
		ctl_as_admin "$@"
	else
		ctl "$NS_A" "$TAP_A" "$@"
	fi
	[ "$ST" -eq 1 ] && [[ $ERR == *"$text"* ]] ||
		{ diag "gsotunctl $*: status $ST: $ERR"; return 1; }
	same_routes
}

# hand_route: a route into the tun that an administrator made (ip route
# add) is not gsotun's: route del leaves it.
hand_route()
{
	ip -n "$NS_A" route add 10.78.0.0/16 dev "$TAP_A" || return 1
	refused "no such route" admin route del 10.78.0.0/16 &&
		into_tun 10.78.0.0/16
}

# own_route: a route of gsotun's goes in and out of the host's table.
own_route()
{
	ctl_ok "$NS_A" "$TAP_A" route add "10.77.0.0/16=$UL_B" &&
		into_tun 10.77.0.0/16 &&
		ctl_ok "$NS_A" "$TAP_A" route del 10.77.0.0/16 &&
		! into_tun 10.77.0.0/16 2>/dev/null && same_routes
}

# stops_clean: gsotun exits 0, and A's routes are those it had before.
stops_clean()
{
	gt_stop "$NS_A" && same_routes
}

p="at run time"
# The tun is up (what gt_start waits for) a moment before its routes are
# made (device_set_up()): they are waited for.
check "$p: gsotun starts with a prefix over its peer's more specific route" \
	eval 'a_start && until_ok 50 into_tun 198.18.0.0/16 &&
		until_ok 50 into_tun "$OV4_B"'
gt_start "$NS_B" "$TAP_B" --mode tun --encap gre-udp --local "$UL_B" \
	--remote "$UL_A" --address "$OV4_B/24" --route "$OV4_A/32=$UL_A" ||
	diag "B's gsotun did not start"
check "$p: the tunnel carries pings" tunnel
check "$p: route add 0.0.0.0/0 refused, the default route kept" \
	refused "the host has a route to that prefix already" root \
	route add "0.0.0.0/0=$UL_B"
check "$p: route add of the connected prefix by an admin: refused" \
	refused "the host has a route to that prefix already" admin \
	route add "198.18.36.0/24=$UL_B"
check "$p: route add of a prefix holding peer P2: refused" \
	refused "the prefix holds a peer" admin route add "198.19.36.0/24=$P2"
check "$p: route del 0.0.0.0/0 by an admin: no such route, kept" \
	refused "no such route" admin route del 0.0.0.0/0
check "$p: route del of the connected prefix by root: kept" \
	refused "no such route" root route del 198.18.36.0/24
check "$p: a route into the tun made by hand is not deleted" hand_route
ip -n "$NS_A" route del 10.78.0.0/16 dev "$TAP_A"
check "$p: gsotun's own route added and deleted" own_route
check "$p: the tunnel still carries pings" tunnel
check "at exit: A's routes are those before gsotun" stops_clean
gt_stop "$NS_B" || diag "B did not stop cleanly"
done_testing
