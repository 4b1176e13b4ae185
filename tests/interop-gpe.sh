#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --mode tun --encap vxlan-gpe in namespace A against the kernel's
# own vxlan in B in `gpe external` mode, its peer chosen by lwtunnel
# routes (`ip route ... encap ip id VNI dst VTEP`): ping and 64 MiB
# SHA-256-checked transfers both ways, IPv4 and IPv6 inside; a capture
# of A's side checked by tshark (next protocol 1 and 2, every checksum,
# the datagrams' sizes; A's veth computes its checksums, tx off, and
# segments UDP, as a NIC without offloads).
#
# Usage: interop-gpe.sh 4|6   (the underlay family)
#
# For outer checksums on (the route's csum) against --csum, off against
# gsotun's default and off against --no-csum, and for two behaviours of
# B's veth: whole (the kernel's super-frame datagrams, checksums left
# partial) and complete (every checksum computed, as a NIC sends).
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case $fam in
4) mtu=1464 encap=ip ;;
6) mtu=1444 encap=ip6 ;;
*) bail "usage: interop-gpe.sh 4|6" ;;
esac

lib_init 450 socat ethtool ping tcpdump tshark
net_setup "$fam" 7
make_data big 64
# A's checksums computed before its veth (tx off), so that the capture
# there holds what a NIC would send: tshark checks every one.
ip netns exec "$NS_A" ethtool -K "$VETH_A" tx off >/dev/null 2>&1 ||
	bail "ethtool -K $VETH_A tx off failed"
GPE_B=vgB$$
VNI=1193046

# kgpe_start on|off: the kernel's vxlan-gpe in B, routes to A's overlay.
kgpe_start()
{
	local cs=() rx=() i

	[ "$1" = on ] && cs=(csum)
	# Over IPv6 a zero checksum is taken only when asked (RFC 6936).
	[ "$fam" = 6 ] && [ "$1" = off ] && rx=(udp6zerocsumrx)
	ip -n "$NS_B" link add "$GPE_B" type vxlan gpe external \
		dstport 4790 "${rx[@]}" &&
		ip -n "$NS_B" link set "$GPE_B" mtu "$mtu" up &&
		ip -n "$NS_B" addr add "$OV4_B/24" dev "$GPE_B" noprefixroute &&
		ip -n "$NS_B" addr add "$OV6_B/64" dev "$GPE_B" noprefixroute \
			nodad &&
		ip -n "$NS_B" route add "${OV4_A%.*}.0/24" encap "$encap" \
			id "$VNI" dst "$UL_A" "${cs[@]}" dev "$GPE_B" \
			src "$OV4_B" &&
		ip -n "$NS_B" -6 route add "${OV6_A%::*}::/64" encap "$encap" \
			id "$VNI" dst "$UL_A" "${cs[@]}" dev "$GPE_B" \
			src "$OV6_B" || return 1
	for ((i = 0; i < 50; i++)); do
		dev_ready "$NS_B" "$GPE_B" "$OV4_B/24" "$OV6_B/64" && return 0
		sleep 0.1
	done
	return 1
}

# gpe_ends_start on|off [FLAG]: the kernel's vxlan-gpe in B, gsotun in A.
gpe_ends_start()
{
	kgpe_start "$1" &&
		gt_start "$NS_A" "$TAP_A" --mode tun --encap vxlan-gpe \
			--vni "$VNI" --local "$UL_A" --remote "$UL_B" \
			--address "$OV4_A/24" --address "$OV6_A/64" "${@:2}"
}

veth_mode()
{
	local tx=on

	[ "$1" = complete ] && tx=off
	ip netns exec "$NS_B" ethtool -K "$VETH_B" tx on sg on tso on \
		>/dev/null 2>&1 &&
		ip netns exec "$NS_B" ethtool -K "$VETH_B" tx "$tx" \
			>/dev/null 2>&1 ||
		bail "ethtool -K $VETH_B ($1) failed"
}

# gpe_of_a FILE: A's VXLAN-GPE packets in the capture, one tshark pass:
# next protocol (1 IPv4, 2 IPv6), port, VNI and frame length, a line each.
gpe_of_a()
{
	local src=ip.src

	[ "$fam" = 6 ] && src=ipv6.src
	tshark -r "$1" -n -d udp.port==4790,vxlan_gpe \
		-Y "vxlan.next_proto && $src == $UL_A" -T fields \
		-e vxlan.next_proto -e udp.dstport -e vxlan.vni -e frame.len \
		2>/dev/null
}

# next_protos: of A's packets (GPE_A), the next protocols with their
# port and VNI, as words in NP.
next_protos()
{
	NP=$(awk '{ print $1 "/" $2 "/" $3 }' <<<"$GPE_A" | sort | uniq -c |
		awk '{printf "%s:%s ", $2, $1}')
	diag "A's VXLAN-GPE packets (next protocol/port/VNI:count): $NP"
	[[ $NP == *"1/4790/$VNI:"* ]] && [[ $NP == *"2/4790/$VNI:"* ]] &&
		[[ $NP != *"3/"* ]]
}

# sizes_ok: A's datagrams (GPE_A), segmented by its veth as a NIC
# without UDP segmentation offload sends them, are never longer than the
# path MTU, and the transfer's full-size ones are exactly that (1514
# bytes of Ethernet: the tun's MTU and 36 or 56 of headers).
sizes_ok()
{
	local sizes

	sizes=$(awk '{ print $4 }' <<<"$GPE_A" | sort -n | uniq -c |
		sort -k2n | tail -n 3 | awk '{printf "%s:%s ", $2, $1}')
	diag "A's longest frames (length:count): $sizes"
	[[ $sizes =~ (^| )1514:([0-9]+)\ $ ]] &&
		[ "${BASH_REMATCH[2]}" -gt 100 ]
}

# capture_ok FILE MODE: both inner families on the wire, and with B's
# veth computing its checksums (complete) tshark finds none bad; in
# whole mode the kernel's own are left partial by its veth, as they are
# on the way to a NIC, and only A's are whole.
capture_ok()
{
	cap_check "$1" udp.port==4790,vxlan_gpe || return 1
	GPE_A=$(gpe_of_a "$1")
	next_protos && sizes_ok || return 1
	[ "${CAP[tcp_good]}" -gt 100 ] || return 1
	[ "$2" = whole ] ||
		{ [ "${CAP[tcp_bad]}" = 0 ] && [ "${CAP[udp_bad]}" = 0 ] &&
			[ "${CAP[ip_bad]}" = 0 ]; }
}

for combo in on/--csum off/default off/--no-csum; do
	csum=${combo%%/*} flag=${combo#*/}
	args=()
	[ "$flag" = default ] || args=("$flag")
	r="interop-gpe/$fam kernel checksums $csum, gsotun $flag"
	check "$r: kernel vxlan-gpe in B, gsotun --mode tun in A start" \
		gpe_ends_start "$csum" "${args[@]}"
	if [ "$fam" = 6 ] && [ "$combo" = off/default ]; then
		check "$r: refused, as RFC 6935 asks" zero_csum_refused
		check "$r: gsotun exits 0 on SIGTERM and removes its tun" \
			gt_stop "$NS_A" || gt_log "$NS_A"
		ip -n "$NS_B" link del "$GPE_B" 2>/dev/null
		continue
	fi
	for mode in whole complete; do
		veth_mode "$mode"
		pcap=$LIB_TMP/gpe.$csum.$flag.$mode.pcap
		cap_start "$NS_A" "$VETH_A" "$pcap" -c 4000 udp port 4790
		check "$r, veth $mode: ping both ways, IPv4 and IPv6" \
			pings_both_ways
		check "$r, veth $mode: 64 MiB A->B over IPv4, SHA-256 matches" \
			xfer_if_up "$NS_A" "$NS_B" "$OV4_B" big
		check "$r, veth $mode: 64 MiB B->A over IPv6, SHA-256 matches" \
			xfer_if_up "$NS_B" "$NS_A" "$OV6_A" big
		cap_stop
		check "$r, veth $mode: on the wire: next protocols, sizes" \
			capture_ok "$pcap" "$mode"
	done
	gt_counters "$NS_A" && gt_show A
	check "$r: every drop counter of gsotun is 0" \
		ctr_drops_zero "$GT_CTR"
	check "$r: gsotun exits 0 on SIGTERM and removes its tun" \
		gt_stop "$NS_A" || gt_log "$NS_A"
	ip -n "$NS_B" link del "$GPE_B" 2>/dev/null
done

done_testing
