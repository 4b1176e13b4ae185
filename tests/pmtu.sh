#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Path MTU between two namespaces: an underlay veth of MTU 1400 under taps
# forced to 1500 (TCP re-segmented, ICMP "too big" into the tap, IPv4
# fragmented), then --mtu auto following an underlay MTU change.
#
# Usage: pmtu.sh vxlan|gre|gre-udp 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

encap=$1
fam=$2
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

# What the tunnel adds to an inner frame, inner Ethernet header included.
case "$encap/$fam" in
vxlan/4) over=50 ;;
vxlan/6) over=70 ;;
gre/4) over=38 ;;
gre/6) over=58 ;;
gre-udp/4) over=46 ;;
gre-udp/6) over=66 ;;
*) bail "usage: pmtu.sh vxlan|gre|gre-udp 4|6" ;;
esac
decode=()
[ "$encap" = gre-udp ] && decode=('udp.port==4754,gre')
GT_ARGS=(--encap "$encap")

lib_init 240 socat tcpdump tshark ethtool ping "$PYTHON"
net_setup "$fam" 3
ip -n "$NS_A" link set "$VETH_A" mtu 1400
ip -n "$NS_B" link set "$VETH_B" mtu 1400
make_data big 64
make_data small 8

veth_tx()
{
	ip netns exec "$NS_A" ethtool -K "$VETH_A" tx "$1" >/dev/null 2>&1 &&
		ip netns exec "$NS_B" ethtool -K "$VETH_B" tx "$1" \
			>/dev/null 2>&1
}

# 8 MiB under capture: no underlay frame over 1400 + 14, every checksum
# good. veth's transmit checksumming is off meanwhile, so that what
# tcpdump sees are the packets on the wire, not a UDP GSO super-packet.
capture_fits()
{
	local pcap=$LIB_TMP/pmtu.pcap st=0

	veth_tx off || { diag "ethtool -K tx off failed"; return 1; }
	if cap_start "$NS_A" "$VETH_A" "$pcap"; then
		xfer "$NS_A" "$NS_B" "$OV4_B" small 60 || st=1
		cap_stop
	else
		st=1
	fi
	veth_tx on
	[ "$st" -eq 0 ] || return 1
	cap_check "$pcap" "${decode[@]}" || return 1
	[ "${CAP[max_len]:-99999}" -le 1414 ] ||
		{ diag "an underlay frame of ${CAP[max_len]} bytes"; return 1; }
	[ "${CAP[tcp_good]:-0}" -gt 1000 ] && [ "${CAP[tcp_bad]:-1}" -eq 0 ] &&
		[ "${CAP[ip_bad]:-1}" -eq 0 ] &&
		[ "${CAP[udp_bad]:-1}" -eq 0 ] && [ "${CAP[gre_bad]:-1}" -eq 0 ]
}

# ping -M do over the IPv4 overlay: "Frag needed and DF set (mtu = N)".
ping4_frag_needed()
{
	local out want=$((1400 - over))

	out=$(ip netns exec "$NS_A" ping -n -c 2 -i 0.3 -W 1 -M "do" -s 1472 \
		"$OV4_B" 2>&1)
	grep -q "Frag needed and DF set (mtu = $want)" <<<"$out" ||
		{ diag "ping -M do said:" "$out"; return 1; }
}

# ping -M do over the IPv6 overlay: "Packet too big: mtu=N".
ping6_too_big()
{
	local out want=$((1400 - over))

	out=$(ip netns exec "$NS_A" ping -6 -n -c 2 -i 0.3 -W 1 -M "do" \
		-s 1452 "$OV6_B" 2>&1)
	grep -q "Packet too big: mtu=$want" <<<"$out" ||
		{ diag "ping -6 -M do said:" "$out"; return 1; }
}

# ping -M dont: 1500-byte packets without DF arrive (fragmented), both ways.
ping4_fragmented()
{
	local out

	out=$(ip netns exec "$NS_B" ping -n -c 3 -i 0.2 -W 2 -M dont \
		-s 1472 "$OV4_A" 2>&1) ||
		{ diag "ping -M dont said:" "$out"; return 1; }
	grep -q " 0% packet loss" <<<"$out" ||
		{ diag "ping -M dont said:" "$out"; return 1; }
}

# The ICMP errors went out (and were counted) where the rule says.
counters_pmtu()
{
	gt_counters "$NS_A" || return 1
	local a=$GT_CTR

	[ "$(ctr "$a" tx_resegmented)" -gt 0 ] &&
		[ "$(ctr "$a" tx_icmp_sent)" -ge 2 ] &&
		[ "$(ctr "$a" tx_drop_too_big)" -ge 2 ] ||
		{ diag "A: $a"; return 1; }
	gt_counters "$NS_B" || return 1
	[ "$(ctr "$GT_CTR" tx_fragmented)" -ge 3 ] &&
		[ "$(ctr "$GT_CTR" tx_resegmented)" -gt 0 ] ||
		{ diag "B: $GT_CTR"; return 1; }
}

check "$encap/$fam: both ends start with --mtu 1500 over a 1400 path" \
	ends_start --mtu 1500
check "64 MiB A->B over IPv4, SHA-256 intact (no black hole)" \
	xfer "$NS_A" "$NS_B" "$OV4_B" big 60
check "64 MiB B->A over IPv6, SHA-256 intact (no black hole)" \
	xfer "$NS_B" "$NS_A" "$OV6_A" big 60
check "8 MiB under capture: no underlay frame over 1400, checksums good" \
	capture_fits
check "ping -M do gets 'Frag needed and DF set (mtu = $((1400 - over)))'" \
	ping4_frag_needed
check "ping -6 -M do gets 'Packet too big: mtu=$((1400 - over))'" \
	ping6_too_big
check "ping -M dont -s 1472 arrives, fragmented" ping4_fragmented
check "counters: re-segmented, ICMP sent, fragmented" counters_pmtu
check "both ends stop cleanly" ends_stop

check "--mtu auto: the tap MTU is 1400 - $over" \
	ends_start --mtu auto
check "tap MTU $((1400 - over))" wait_tap_mtu "$NS_A" "$TAP_A" \
	$((1400 - over))
# Not below 1280 + overhead: a tap under 1280 loses IPv6 (addrconf).
ip -n "$NS_A" link set "$VETH_A" mtu 1360
check "underlay MTU 1360: the tap follows within a second" \
	wait_tap_mtu "$NS_A" "$TAP_A" $((1360 - over))
ip -n "$NS_A" link set "$VETH_A" mtu 1400
check "underlay MTU 1400 again: the tap follows" \
	wait_tap_mtu "$NS_A" "$TAP_A" $((1400 - over))
check "IPv4 traffic flows after the changes" ping_ok "$NS_A" "$OV4_B"
check "IPv6 traffic flows after the changes" ping_ok "$NS_A" "$OV6_B"
check "both ends stop cleanly" ends_stop

done_testing
