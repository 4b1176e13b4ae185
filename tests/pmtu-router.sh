#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Path MTU learnt from the underlay: A - R - B, where R's link to B has an
# MTU of 1400. ICMP "fragmentation needed" / "packet too big" from R about
# gsotun's own packets lowers A's budget and, with --mtu auto, its tap MTU;
# --df decides whether R may fragment the outer IPv4 packets instead.
#
# Usage: pmtu-router.sh 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

[ "$fam" = 4 ] || [ "$fam" = 6 ] || bail "usage: pmtu-router.sh 4|6"
# vxlan over IPv4 adds 50 bytes with the inner Ethernet header, over IPv6 70.
over=$((fam == 4 ? 50 : 70))

lib_init 180 socat ping

# router_setup: A and B in their own subnets, R forwarding between them.
router_setup()
{
	local ns plen=24 nodad=() p4=198.18 p6=fd00:198:18

	NS_A=gtA$$ NS_B=gtB$$ NS_R=gtR$$
	TAP_A=tA$$ TAP_B=tB$$
	if [ "$fam" = 6 ]; then
		UL_A=$p6:6::1 UL_RA=$p6:6::2 UL_RB=$p6:7::2 UL_B=$p6:7::1
		plen=64 nodad=(nodad)
	else
		UL_A=$p4.6.1 UL_RA=$p4.6.2 UL_RB=$p4.7.2 UL_B=$p4.7.1
	fi
	OV4_A=10.6.0.1 OV4_B=10.6.0.2 OV6_A=fd00:10:6::1 OV6_B=fd00:10:6::2
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ip netns add "$ns" || bail "cannot create namespace $ns"
		LIB_NS+=("$ns")
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 ||
			bail "sysctl in $ns failed"
	done
	ip -n "$NS_A" link add a$$ type veth peer name ra$$ netns "$NS_R" &&
		ip -n "$NS_B" link add b$$ mtu 1400 type veth \
			peer name rb$$ netns "$NS_R" mtu 1400 ||
		bail "cannot create veth pairs"
	ip -n "$NS_A" addr add "$UL_A/$plen" dev a$$ "${nodad[@]}"
	ip -n "$NS_R" addr add "$UL_RA/$plen" dev ra$$ "${nodad[@]}"
	ip -n "$NS_R" addr add "$UL_RB/$plen" dev rb$$ "${nodad[@]}"
	ip -n "$NS_B" addr add "$UL_B/$plen" dev b$$ "${nodad[@]}"
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ip -n "$ns" link show | grep -o '[abr]*[0-9]*@' | tr -d @ |
			while read -r dev; do
				ip -n "$ns" link set "$dev" up
			done
	done
	ip -n "$NS_A" route add default via "$UL_RA" &&
		ip -n "$NS_B" route add default via "$UL_RB" ||
		bail "cannot add routes"
	for ((i = 0; i < 50; i++)); do
		ip netns exec "$NS_A" ping -c 1 -W 1 "$UL_B" >/dev/null 2>&1 &&
			return 0
		sleep 0.1
	done
	bail "underlay $UL_A <-> $UL_B through R does not answer"
}

ends_start()
{
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" \
		--address "$OV4_A/24" --address "$OV6_A/64" "$@" &&
		gt_start "$NS_B" "$TAP_B" --remote "$UL_A" \
			--address "$OV4_B/24" --address "$OV6_B/64"
}

# ends_stop, then A's route cache flushed: the PMTU it learnt stays there.
stop_both()
{
	local st=0

	ends_stop || st=1
	ip -n "$NS_A" route flush cache 2>/dev/null
	ip -n "$NS_A" -6 route flush cache 2>/dev/null
	return "$st"
}

# big_ping DF: inner IPv4 packets 2 bytes under the tap's first MTU, with
# DF (do) or without (dont): too big for R's link once encapsulated.
big_ping()
{
	local out

	out=$(ip netns exec "$NS_A" ping -n -c 3 -i 0.3 -W 2 -M "$1" \
		-s $((1500 - over - 30)) "$OV4_B" 2>&1)
	diag "$(tail -n 2 <<<"$out")"
	grep -q " 0% packet loss" <<<"$out"
}

# icmp_learnt MIN: A counted at least MIN underlay "too big" errors.
icmp_learnt()
{
	local v

	gt_counters "$NS_A" || return 1
	v=$(ctr "$GT_CTR" tx_icmp_too_big)
	[ "${v:-0}" -ge "$1" ] ||
		{ diag "A: tx_icmp_too_big=${v:-none}, want >= $1"; return 1; }
	[ "$1" -gt 0 ] || [ "${v:-0}" -eq 0 ] ||
		{ diag "A: tx_icmp_too_big=$v, want 0"; return 1; }
}

router_setup
make_data small 8

if [ "$fam" = 4 ]; then
	check "--df set: starts with tap MTU $((1500 - over))" \
		ends_start --df set
	check "tap MTU $((1500 - over))" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1500 - over))
	big_ping "do" >/dev/null
	check "--df set: R's 'fragmentation needed' lowers the tap MTU" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1400 - over))
	check "--df set: the ICMP was counted" icmp_learnt 1
	check "--df set: big pings without DF arrive after that" \
		big_ping dont
	check "--df set: 8 MiB A->B, SHA-256 intact" \
		xfer "$NS_A" "$NS_B" "$OV4_B" small 30
	check "--df set: ends stop cleanly" stop_both

	check "--df inherit: starts" ends_start --df inherit
	check "--df inherit: inner DF clear, R fragments the outer packet" \
		big_ping dont
	check "--df inherit: nothing learnt from that" icmp_learnt 0
	check "--df inherit: tap MTU still $((1500 - over))" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1500 - over))
	big_ping "do" >/dev/null
	check "--df inherit: inner DF set, R's ICMP lowers the tap MTU" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1400 - over))
	check "--df inherit: the ICMP was counted" icmp_learnt 1
	check "--df inherit: 8 MiB A->B, SHA-256 intact" \
		xfer "$NS_A" "$NS_B" "$OV4_B" small 30
	check "--df inherit: ends stop cleanly" stop_both

	check "--df unset (default): starts" ends_start
	check "--df unset: R fragments the outer packets" big_ping "do"
	check "--df unset: nothing learnt" icmp_learnt 0
	check "--df unset: tap MTU still $((1500 - over))" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1500 - over))
	check "--df unset: 8 MiB A->B through R's fragments, SHA-256 intact" \
		xfer "$NS_A" "$NS_B" "$OV4_B" small 30
	check "--df unset: ends stop cleanly" stop_both
else
	check "starts with tap MTU $((1500 - over))" ends_start
	check "tap MTU $((1500 - over))" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1500 - over))
	big_ping "do" >/dev/null
	check "R's 'packet too big' lowers the tap MTU" \
		wait_tap_mtu "$NS_A" "$TAP_A" $((1400 - over))
	check "the ICMPv6 error was counted" icmp_learnt 1
	check "big pings without DF arrive after that" big_ping dont
	check "8 MiB A->B, SHA-256 intact" \
		xfer "$NS_A" "$NS_B" "$OV6_B" small 30
	check "ends stop cleanly" stop_both
fi

done_testing
