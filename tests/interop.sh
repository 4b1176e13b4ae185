#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun (VXLAN) in namespace A against the kernel's own vxlan device in B:
# ping and 64 MiB SHA-256-checked transfers both ways.
#
# Usage: interop.sh 4|6   (the underlay family)
#
# For outer checksums on, off against gsotun's default, and off against
# --no-csum, and for three behaviours of B's veth:
#   whole     veth as by default: the kernel sends whole inner TCP
#             super-frames in ~50 KB datagrams, which gsotun must deliver.
#             veth also leaves checksums partial: the inner TCP checksum
#             field holds only the pseudo-header sum, as it would on the
#             way to a NIC, and gsotun must have the tap complete it;
#   segments  tx-udp_tnl-segmentation off: the kernel cuts its VXLAN GSO
#             output into MTU-sized datagrams as a NIC's TSO would (the
#             inner checksums still partial, as above);
#   complete  tx off as well: every checksum is computed in software,
#             which is what a NIC puts on the wire.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case $fam in
4) mtu=1450 ;;
6) mtu=1430 ;;
*) bail "usage: interop.sh 4|6" ;;
esac

lib_init 300 socat ethtool ping
net_setup "$fam" 4
make_data big 64
VX_B=vxB$$

# kvx_start on|off: the kernel's vxlan in B, VNI 1, port 4789.
kvx_start()
{
	local cs i

	if [ "$fam" = 6 ]; then
		cs="noudp6zerocsumtx noudp6zerocsumrx"
		[ "$1" = off ] && cs="udp6zerocsumtx udp6zerocsumrx"
	else
		cs=udpcsum
		[ "$1" = off ] && cs=noudpcsum
	fi
	# shellcheck disable=SC2086 # $cs is a list of keywords
	ip -n "$NS_B" link add "$VX_B" type vxlan id 1 local "$UL_B" \
		remote "$UL_A" dstport 4789 dev "$VETH_B" $cs &&
		ip -n "$NS_B" link set "$VX_B" mtu "$mtu" &&
		ip -n "$NS_B" addr add "$OV4_B/24" dev "$VX_B" &&
		ip -n "$NS_B" addr add "$OV6_B/64" dev "$VX_B" nodad &&
		ip -n "$NS_B" link set "$VX_B" up || return 1
	for ((i = 0; i < 50; i++)); do
		dev_ready "$NS_B" "$VX_B" "$OV4_B/24" "$OV6_B/64" && return 0
		sleep 0.1
	done
	return 1
}

# ends_start on|off [FLAG]: the kernel's vxlan in B, gsotun in A.
ends_start()
{
	kvx_start "$1" &&
		gt_start "$NS_A" "$TAP_A" --encap vxlan --vni 1 \
			--local "$UL_A" --remote "$UL_B" \
			--address "$OV4_A/24" --address "$OV6_A/64" "${@:2}"
}

veth_mode()
{
	local tx=on tnl=on

	case $1 in
	segments) tnl=off ;;
	complete) tx=off tnl=off ;;
	esac
	# tx off drops TSO with it: name every feature each time.
	ip netns exec "$NS_B" ethtool -K "$VETH_B" tx on sg on tso on \
		>/dev/null 2>&1 &&
		ip netns exec "$NS_B" ethtool -K "$VETH_B" \
			tx-udp_tnl-segmentation "$tnl" \
			tx-udp_tnl-csum-segmentation "$tnl" >/dev/null 2>&1 &&
		ip netns exec "$NS_B" ethtool -K "$VETH_B" tx "$tx" \
			>/dev/null 2>&1 ||
		bail "ethtool -K $VETH_B ($1) failed"
}


# rx_avg BEFORE AFTER: the average datagram gsotun received between two
# counter lines, in RX_AVG.
rx_avg()
{
	local p0 b0 p1 b1

	RX_AVG=0
	p0=$(ctr "$1" rx_packets) b0=$(ctr "$1" rx_bytes)
	p1=$(ctr "$2" rx_packets) b1=$(ctr "$2" rx_bytes)
	[ -n "$p0" ] && [ -n "$p1" ] && [ -n "$b0" ] && [ -n "$b1" ] &&
		[ "$p1" -gt "$p0" ] || return 1
	RX_AVG=$(((b1 - b0) / (p1 - p0)))
	diag "A received $((p1 - p0)) packets of $RX_AVG bytes on average"
}

# zero_count on|off: what A counted as datagrams without a UDP checksum:
# all of them when the kernel's vxlan sends none, else none.
zero_count()
{
	local z p

	gt_counters "$NS_A" || return 1
	z=$(ctr "$GT_CTR" rx_udp_csum_zero) p=$(ctr "$GT_CTR" rx_packets)
	diag "A: rx_udp_csum_zero=$z rx_packets=$p"
	[ -n "$z" ] && [ -n "$p" ] && [ "$p" -gt 10000 ] || return 1
	if [ "$1" = off ]; then
		[ "$z" = "$p" ]
	else
		[ "$z" = 0 ]
	fi
}


# The kernel's outer checksum (udpcsum / udp6zerocsumtx) and gsotun's
# flag: gsotun's default takes the zero checksums of a kernel with
# noudpcsum over IPv4 (RFC 7348 section 5: MUST accept).
for combo in on/--csum off/default off/--no-csum; do
	csum=${combo%%/*} flag=${combo#*/}
	args=()
	[ "$flag" = default ] || args=("$flag")
	r="interop/$fam kernel checksums $csum, gsotun $flag"
	check "$r: kernel vxlan in B, gsotun in A start" \
		ends_start "$csum" "${args[@]}"
	if [ "$fam" = 6 ] && [ "$combo" = off/default ]; then
		check "$r: refused, as RFC 6935 asks" zero_csum_refused
		check "$r: gsotun exits 0 on SIGTERM and removes its tap" \
			gt_stop "$NS_A" || gt_log "$NS_A"
		ip -n "$NS_B" link del "$VX_B" 2>/dev/null
		continue
	fi
	for mode in whole segments complete; do
		veth_mode "$mode"
		check "$r, veth $mode: ping both ways, IPv4 and IPv6" \
			pings_both_ways
		check "$r, veth $mode: 64 MiB A->B over IPv4, SHA-256 matches" \
			xfer_if_up "$NS_A" "$NS_B" "$OV4_B" big
		gt_counters "$NS_A"
		c0=$GT_CTR
		check "$r, veth $mode: 64 MiB B->A over IPv6, SHA-256 matches" \
			xfer_if_up "$NS_B" "$NS_A" "$OV6_A" big
		gt_counters "$NS_A" && rx_avg "$c0" "$GT_CTR"
		# Without super-frames on the wire "whole" would test nothing.
		[ "$mode" = whole ] && ok $((RX_AVG <= 1500)) \
			"$r, veth $mode: the kernel sent super-frame datagrams"
	done
	check "$r: datagrams without a UDP checksum counted: all or none" \
		zero_count "$csum"
	gt_counters "$NS_A" && gt_show A
	check "$r: every drop counter of gsotun is 0" \
		ctr_drops_zero "$GT_CTR"
	check "$r: gsotun exits 0 on SIGTERM and removes its tap" \
		gt_stop "$NS_A" || gt_log "$NS_A"
	ip -n "$NS_B" link del "$VX_B" 2>/dev/null
done

done_testing
