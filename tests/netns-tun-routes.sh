#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --mode tun with two peers: --route picks the peer by longest prefix, a
# packet no route takes is dropped and answered with ICMP net unreachable
# (ICMPv6 no route), the --route prefixes are routed into the tun and out
# of it at exit, and --strict-source drops a packet whose inner source
# is not routed to the peer it came from. gsotunctl route show lists
# the routes (text and JSON), route add sends a new prefix to a peer and
# routes it into the tun, route del takes it away again, and route add to
# a host that is not a peer, or on a tap, is refused.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 200 socat ping python3
net_setup 4 8
make_data big 64
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
PY=$LIB_DIR/ctl.py
MAN=${top_srcdir:-$LIB_DIR/..}/man/gsotunctl.8
COMPLETION=${top_srcdir:-$LIB_DIR/..}/completion/gsotunctl
# A prefix route add gives B at run time, an address of it on B's tun.
NEW=10.66.0.0/16 NEW_ADDR=10.66.0.1
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

# link_scoped: what A's stack sends its tun by itself (MLD reports,
# router solicitations to ff02::) goes to no peer of two and is counted as
# link-scoped, not as a routing miss.
link_scoped()
{
	local l n

	gt_counters "$NS_A" || return 1
	l=$(ctr "$GT_CTR" tx_drop_link_scope) n=$(ctr "$GT_CTR" tx_drop_no_route)
	diag "A: tx_drop_link_scope $l, tx_drop_no_route $n"
	[ "$l" -ge 1 ] && [ "$n" -eq 0 ]
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

# A's four routes, as route show says them.
a_routes()
{
	printf '%s\n' "10.8.0.0/16 dst $UL_X dev $TAP_A" \
		"$OV4_B/32 dst $UL_B dev $TAP_A" "$OV4_X dst $UL_X dev $TAP_A" \
		"$OV6_B/128 dst $UL_B dev $TAP_A" | sort
}

# route_show: A's routes, a line each.
route_show()
{
	ctl "$NS_A" "$TAP_A" route show
	diag "route show:" "$OUT"
	[ "$ST" -eq 0 ] && [ "$(sort <<<"$OUT")" = "$(a_routes)" ]
}

# route_json: route show --json parses, has A's four routes, and only
# fields gsotunctl(8) names.
route_json()
{
	local f=$LIB_TMP/routes.json

	ctl "$NS_A" "$TAP_A" route show --json
	[ "$ST" -eq 0 ] || { diag "status $ST: $ERR"; return 1; }
	printf '%s\n' "$OUT" >"$f"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted("%s dst %s dev %s" % (r["prefix"], r["dst"], r["dev"])
             for r in d["routes"])
sys.exit(0 if got == sys.argv[2].split("\n") else 1)' "$f" "$(a_routes)" ||
		{ diag "route show --json: $OUT"; return 1; }
	python3 "$PY" json-check "$f" "$MAN" "routes#=4" "routes.0.dev=\"$TAP_A\""
}

# kernel_has NS DEV PREFIX: NS routes PREFIX into DEV.
kernel_has()
{
	[ -n "$(ip -n "$1" route show "$3" dev "$2" 2>/dev/null)" ]
}

# route_add: route add NEW to B; its route into A's tun; a ping to an
# address of it on B crosses (B routes back by its --route to A).
route_add()
{
	ip -n "$NS_B" addr add "$NEW_ADDR/32" dev "$TAP_B" || return 1
	kernel_has "$NS_A" "$TAP_A" "$NEW" &&
		{ diag "$NEW routed into $TAP_A before route add"; return 1; }
	ping_ok "$NS_A" "$NEW_ADDR" &&
		{ diag "$NEW_ADDR answered before route add"; return 1; }
	ctl "$NS_A" "$TAP_A" route add "$NEW=$UL_B"
	[ "$ST" -eq 0 ] || { diag "route add: status $ST: $ERR"; return 1; }
	kernel_has "$NS_A" "$TAP_A" "$NEW" ||
		{ diag "$NEW not routed into $TAP_A"; return 1; }
	ctl "$NS_A" "$TAP_A" route show
	[[ $OUT == *"$NEW dst $UL_B dev $TAP_A"* ]] ||
		{ diag "route show: $OUT"; return 1; }
	wait_log "$NS_A" "control: $TAP_A: route $NEW=$UL_B added" &&
		ping_ok "$NS_A" "$NEW_ADDR"
}

# config_route: gsotunctl config says the route route add gave, with the
# command line's.
config_route()
{
	ctl "$NS_A" "$TAP_A" config
	diag "config's routes:" "$(grep '^route ' <<<"$OUT")"
	[ "$ST" -eq 0 ] && grep -qxF "route $NEW=$UL_B" <<<"$OUT" &&
		grep -qxF "route $OV4_X=$UL_X" <<<"$OUT" &&
		[ "$(grep -c '^route ' <<<"$OUT")" -eq 5 ]
}

# route_complete: bash completion of route del offers A's prefixes.
route_complete()
{
	local got

	got=$(ip netns exec "$NS_A" bash -c '. "$1" && shift &&
		COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) &&
		_gsotunctl "$1" "${@: -1}" "${@: -2:1}" &&
		printf "%s\n" "${COMPREPLY[@]}"' - "$COMPLETION" "$CTL" \
		"$TAP_A" route del "")
	diag "route del completes:" "$got"
	grep -qxF "$NEW" <<<"$got" && grep -qxF "$OV6_B/128" <<<"$got"
}

# route_del: route del NEW: out of the table and of the tun; a packet for
# it routed into the tun by hand meets no route in gsotun (unreachable).
route_del()
{
	ctl "$NS_A" "$TAP_A" route del "$NEW"
	[ "$ST" -eq 0 ] || { diag "route del: status $ST: $ERR"; return 1; }
	! kernel_has "$NS_A" "$TAP_A" "$NEW" ||
		{ diag "$NEW still routed into $TAP_A"; return 1; }
	route_show || return 1
	ctl_fails 1 "no such route" "$NS_A" "$TAP_A" route del "$NEW" &&
		unreachable "$NEW_ADDR"
}

# route_refused: to a host that is not a peer (1), with host bits (64):
# nothing changes, in the table or the kernel.
route_refused()
{
	ctl_fails 1 "198.18.8.77 is not a peer (peer add it first)" \
		"$NS_A" "$TAP_A" route add "10.67.0.0/16=198.18.8.77" &&
		ctl_fails 64 "the prefix is 10.67.0.0/16" "$NS_A" "$TAP_A" \
			route add "10.67.0.1/16=$UL_B" &&
		! kernel_has "$NS_A" "$TAP_A" 10.67.0.0/16 && route_show
}

# route_tap: a gsotun of a tap (in a namespace of its own, on lo) refuses
# the route commands, and stops cleanly.
route_tap()
{
	local ns=gtC$$ dev=tC$$ st=0

	ns_add "$ns"
	gt_start "$ns" "$dev" --local 127.0.0.1 --remote 127.0.0.2 ||
		return 1
	ctl_fails 1 "$dev is a tap (no --mode tun): no routes" "$ns" \
		"$dev" route show || st=1
	ctl_fails 1 "$dev is a tap (no --mode tun): no routes" "$ns" \
		"$dev" route add "10.67.0.0/16=127.0.0.2" || st=1
	gt_stop "$ns" || st=1
	return "$st"
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
check "$r: A's own MLD and RS: tx_drop_link_scope, not no route" \
	link_scoped
check "$r: no route: dropped, ICMP net unreachable, counted" \
	unreachable 10.7.0.1
check "$r: --strict-source drops a source not routed to its peer" spoofed
check "$r: gsotunctl route show: A's four routes" route_show
check "$r: gsotunctl route show --json: they, as gsotunctl(8) has it" \
	route_json
check "$r: route add: routed into the tun, a ping to B crosses" route_add
check "$r: gsotunctl config says the added route" config_route
check "$r: bash completion of route del: the prefixes" route_complete
check "$r: route del: out of the tun, then no route in gsotun" route_del
check "$r: route add to no peer, or with host bits: refused" route_refused
check "$r: route commands on a tap: refused" route_tap
check "$r: A exits 0 on SIGTERM and removes its tun" gt_stop "$NS_A"
check "$r: B exits 0 on SIGTERM and removes its tun" gt_stop "$NS_B"

done_testing
