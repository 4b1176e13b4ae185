#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun to gsotun between two namespaces joined by veth: ping, 64 MiB
# TCP transfers checked by SHA-256, and an underlay capture checked by tshark.
#
# Usage: tunnel.sh vxlan|gre|gre-udp|vxlan-gpe|geneve 4|6 [tun]
#   the encapsulation, the underlay family; tun: --mode tun, a tun on
#   each end carrying IP packets (the same runs, an MTU 14 bytes larger:
#   no inner Ethernet header)
# TUNNEL_GENEVE_OPT=0102:TYPE:HEX (geneve): both ends send that option,
#   of class 0x0102, not critical; the MTU is its length smaller, every
#   captured header carries it, and each end skips the other's.
#
# Three runs, the endpoints restarted in between:
#   1. offloads on (UDP encapsulations with --csum), capture
#      (geneve tun: 8 MiB B->A over IPv6 inside too, for its other type)
#   2. --no-offload --mtu 1400 (no TSO, UDP GSO/GRO or merging)
#   3. the outer checksum flipped: --no-csum (UDP), --csum --key 7 (GRE),
#      and --no-gro; capture
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

encap=$1
fam=$2
mode=${3:-tap}
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case "$encap/$fam" in
vxlan/4 | vxlan-gpe/4 | geneve/4) mtu=1450 ;;
vxlan/6 | vxlan-gpe/6 | geneve/6) mtu=1430 ;;
gre/4) mtu=1462 ;;
gre/6) mtu=1442 ;;
gre-udp/4) mtu=1454 ;;
gre-udp/6) mtu=1434 ;;
*) bail "usage: tunnel.sh vxlan|gre|gre-udp|vxlan-gpe|geneve 4|6 [tun]" ;;
esac
case $mode in
tap) ;;
tun) mtu=$((mtu + 14)) ;;
*) bail "usage: tunnel.sh vxlan|gre|gre-udp|vxlan-gpe|geneve 4|6 [tun]" ;;
esac

lib_init 300 socat tcpdump tshark ethtool ping "$PYTHON"
net_setup "$fam" 1
make_data big 64
make_data small 8

decode=()
extra=()
case $encap in
vxlan) extra=(--vni 42) csum_on=(--csum) csum_flip=(--no-csum) ;;
vxlan-gpe)
	extra=(--vni 42) decode=('udp.port==4790,vxlan_gpe')
	csum_on=(--csum) csum_flip=(--no-csum)
	;;
geneve)
	extra=(--vni 42) decode=('udp.port==6081,geneve')
	csum_on=(--csum) csum_flip=(--no-csum)
	gopt=${TUNNEL_GENEVE_OPT:-}
	if [ -n "$gopt" ]; then
		extra+=(--geneve-opt "$gopt")
		# its 4-byte header and its data, two hex digits a byte
		gdata=${gopt##*:}
		mtu=$((mtu - 4 - ${#gdata} / 2))
	fi
	;;
gre-udp) decode=('udp.port==4754,gre') csum_on=(--csum) csum_flip=(--no-csum) ;;
gre) csum_on=() csum_flip=(--csum --key 7) ;;
esac
GT_ARGS=(--encap "$encap" "${extra[@]}")
[ "$mode" = tun ] && GT_ARGS+=(--mode tun)
gpe_np='3 (Ethernet)' gpe_key=gpe_eth
[ "$mode" = tun ] && gpe_np='1 or 2 (IP)' gpe_key=gpe_ip
geneve_pt='0x6558 (Ethernet)' geneve_key=geneve_eth
# geneve tun: the capture carries IPv6 inside too, each packet under its
# own family's type
cap_v6=0
[ "$mode" = tun ] && geneve_pt='0x0800 over IPv4, 0x86dd over IPv6' \
	geneve_key=geneve_ip
[ "$encap/$mode" = geneve/tun ] && cap_v6=1
geneve_hdr="Geneve version 0, VNI 42, no options, type $geneve_pt, to 6081"
[ -n "${gopt:-}" ] && geneve_hdr="Geneve version 0, VNI 42, its option \
of class 0x0102 in each, type $geneve_pt, to 6081"
r0=$encap/$fam
[ "$mode" = tun ] && r0="$r0 tun"

mtu_is()
{
	local a b

	a=$(tap_mtu "$NS_A" "$TAP_A")
	b=$(tap_mtu "$NS_B" "$TAP_B")
	[ "$a" = "$1" ] && [ "$b" = "$1" ] ||
		{ diag "MTU A=$a B=$b, expected $1"; return 1; }
}

# TUNNEL_UP (lib.sh): the tunnel carried a ping, so transfers are worth
# their timeouts.

pings()
{
	local r=$1

	TUNNEL_UP=0
	check "$r: ping $OV4_B from A" ping_ok "$NS_A" "$OV4_B" && TUNNEL_UP=1
	check "$r: ping $OV4_A from B" ping_ok "$NS_B" "$OV4_A" && TUNNEL_UP=1
	[ "$2" = v4only ] && return
	check "$r: ping $OV6_B from A" ping_ok "$NS_A" "$OV6_B" && TUNNEL_UP=1
	check "$r: ping $OV6_A from B" ping_ok "$NS_B" "$OV6_A" && TUNNEL_UP=1
}


veth_tx()
{
	ip netns exec "$NS_A" ethtool -K "$VETH_A" tx "$1" >/dev/null 2>&1 &&
		ip netns exec "$NS_B" ethtool -K "$VETH_B" tx "$1" \
			>/dev/null 2>&1 ||
		bail "ethtool -K $VETH_A/$VETH_B tx $1 failed"
}

# capture R OUTER: 8 MiB A->B over IPv4 (and B->A over IPv6, cap_v6)
# while tcpdump watches A's veth.
# veth leaves outer checksums partial, so transmit checksumming is
# switched off on both veths for the capture: the wire bytes are final.
capture()
{
	local r=$1 outer=$2 pcap=$LIB_TMP/run$run.pcap st what="A->B"

	veth_tx off
	st=1
	if [ "$TUNNEL_UP" -eq 1 ] && cap_start "$NS_A" "$VETH_A" "$pcap"; then
		xfer "$NS_A" "$NS_B" "$OV4_B" small &&
			{ [ "$cap_v6" = 0 ] ||
				xfer "$NS_B" "$NS_A" "$OV6_A" small; }
		st=$?
		cap_stop
		diag "$(grep -h 'packets' "$pcap.err")"
	fi
	veth_tx on
	[ "$cap_v6" = 0 ] || what="A->B over IPv4, B->A over IPv6"
	ok "$st" "$r: 8 MiB $what under capture, SHA-256 matches"
	if [ "$st" -ne 0 ] || ! cap_check "$pcap" "${decode[@]}"; then
		fail_skipped "no capture" \
			"$r: no underlay frame over 1514 bytes" \
			"$r: every inner TCP checksum good, over 1000 checked" \
			"$r: every IPv4 header checksum good" \
			"$r: outer checksums as configured ($outer)"
		[ "$encap" != vxlan-gpe ] || fail_skipped "no capture" \
			"$r: VXLAN-GPE next protocol $gpe_np, to port 4790"
		[ "$encap" != geneve ] || fail_skipped "no capture" \
			"$r: $geneve_hdr"
		return
	fi
	# The counts are in the "capture:" diagnostic above.
	ok $((CAP[oversize] != 0)) "$r: no underlay frame over 1514 bytes"
	ok $((CAP[tcp_bad] != 0 || CAP[tcp_good] <= 1000)) \
		"$r: every inner TCP checksum good, over 1000 checked"
	ok $((CAP[ip_bad] != 0 || CAP[ip_good] == 0)) \
		"$r: every IPv4 header checksum good"
	case $outer in
	udp-csum)
		ok $((CAP[udp_bad] != 0 || CAP[udp_zero] != 0 ||
			CAP[udp_good] <= 1000)) \
			"$r: every outer UDP checksum present and good"
		;;
	udp-zero)
		ok $((CAP[udp_zero] != CAP[udp_total] ||
			CAP[udp_total] <= 1000)) \
			"$r: every outer UDP checksum zero, as asked"
		;;
	gre-csum)
		ok $((CAP[gre_csum] != CAP[gre_total] || CAP[gre_bad] != 0 ||
			CAP[gre_good] <= 1000)) \
			"$r: every GRE header has a good checksum"
		;;
	gre-none)
		ok $((CAP[gre_csum] != 0 || CAP[gre_total] <= 1000)) \
			"$r: no GRE header has a checksum"
		;;
	esac
	# draft-ietf-nvo3-vxlan-gpe-12: a tap's frames are next protocol 3,
	# a tun's packets 1 or 2 by their family
	[ "$encap" != vxlan-gpe ] ||
		ok $((CAP[gpe_total] <= 1000 ||
			CAP[$gpe_key] != CAP[gpe_total] ||
			CAP[gpe_4790] != CAP[gpe_total])) \
			"$r: VXLAN-GPE next protocol $gpe_np, to port 4790"
	# RFC 8926 section 3.4, as tshark's geneve dissector reads it; with
	# TUNNEL_GENEVE_OPT an option (of class 0x0102) in every header
	local gopts=0 typed=${CAP[geneve_total]} few=0
	[ -n "${gopt:-}" ] && gopts=${CAP[geneve_total]}
	# cap_v6: the type is each packet's own family's, and both are there
	if [ "$cap_v6" = 1 ]; then
		typed=$((CAP[geneve_ipv4] + CAP[geneve_ipv6]))
		few=$((CAP[geneve_ipv4] <= 1000 || CAP[geneve_ipv6] <= 1000))
	fi
	[ "$encap" != geneve ] ||
		ok $((CAP[geneve_total] <= 1000 ||
			CAP[$geneve_key] != CAP[geneve_total] ||
			typed != CAP[geneve_total] || few ||
			CAP[geneve_v0] != CAP[geneve_total] ||
			CAP[geneve_vni42] != CAP[geneve_total] ||
			CAP[geneve_opts] != gopts ||
			CAP[geneve_0102] != gopts ||
			CAP[geneve_6081] != CAP[geneve_total])) \
			"$r: $geneve_hdr"
}

# spread R: 32 UDP flows from A (one socket to 32 ports of B), three
# datagrams each, under a capture of A's veth: the outer packets leave
# from several source ports (--source-ports, by inner-flow hash), and the
# datagrams of one flow all from one.
spread()
{
	local r=$1 pcap=$LIB_TMP/spread.pcap out st=1
	local -A port_of=()
	local sport dport bad=0 n=0 ports

	# As in capture(): whole datagrams on the wire, not GSO trains.
	veth_tx off
	if [ "$TUNNEL_UP" -eq 1 ] && cap_start "$NS_A" "$VETH_A" "$pcap" \
		udp and src host "$UL_A"; then
		ip netns exec "$NS_A" "$PYTHON" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3):
    for p in range(20001, 20033):
        s.sendto(b"spread", (sys.argv[1], p))
' "$OV4_B"
		st=$?
		cap_stop
	fi
	veth_tx on
	if [ "$st" -eq 0 ] && ! out=$(tshark -r "$pcap" -n \
		${decode[0]:+-d "${decode[0]}"} -T fields \
		-e udp.srcport -e udp.dstport \
		-Y 'udp.dstport >= 20001 && udp.dstport <= 20032' \
		2>"$pcap.tshark"); then
		diag "$(cat "$pcap.tshark")"
		st=1
	fi
	# "outer,inner<TAB>outer,inner": outer source, inner destination.
	while IFS=$'\t' read -r sport dport; do
		sport=${sport%%,*} dport=${dport##*,}
		[[ $sport =~ ^[0-9]+$ && $dport =~ ^[0-9]+$ ]] || continue
		n=$((n + 1))
		if [ -z "${port_of[$dport]:-}" ]; then
			port_of[$dport]=$sport
		elif [ "${port_of[$dport]}" != "$sport" ]; then
			bad=$((bad + 1))
		fi
	done <<<"$out"
	ports=0
	[ "${#port_of[@]}" -eq 0 ] ||
		ports=$(printf '%s\n' "${port_of[@]}" | sort -u | wc -l)
	diag "$n datagrams of ${#port_of[@]} flows from $ports outer" \
		"source ports; $bad moved to another port"
	ok "$st" "$r: 32 UDP flows sent under capture"
	ok $((n < 96 || ${#port_of[@]} != 32 || ports < 4)) \
		"$r: the flows leave from several outer source ports"
	ok $((n < 96 || bad != 0)) \
		"$r: every flow keeps one outer source port"
}

# drops_zero R: SIGUSR1 to both ends, every rx_drop_* and tx_drop_* is 0.
drops_zero()
{
	local st=0

	gt_counters "$NS_B" && gt_show B && ctr_drops_zero "$GT_CTR" || st=1
	gt_counters "$NS_A" && gt_show A && ctr_drops_zero "$GT_CTR" || st=1
	ok "$st" "$1: every drop counter is 0 on both ends"
}

segmented()
{
	local f s

	f=$(ctr "$GT_CTR" tx_frames)
	s=$(ctr "$GT_CTR" tx_segments)
	[ -n "$f" ] && [ -n "$s" ] && [ "$s" -gt "$f" ] ||
		{ diag "A: tx_frames=$f tx_segments=$s"; return 1; }
}

# merged MIN: B merged more than MIN received segments, and wrote over half
# of the bytes it received to its tap as super-frames (vnet gso_size > 0).
merged()
{
	local m g b

	gt_counters "$NS_B" || return 1
	m=$(ctr "$GT_CTR" rx_gro_merged)
	g=$(ctr "$GT_CTR" rx_gso_bytes)
	b=$(ctr "$GT_CTR" rx_frame_bytes)
	diag "B: rx_gro_merged=$m rx_gso_bytes=$g rx_frame_bytes=$b"
	[ -n "$m" ] && [ -n "$g" ] && [ -n "$b" ] && [ "$m" -gt "$1" ] &&
		[ $((g * 2)) -gt "$b" ]
}

# not_merged NS: with --no-gro, the gsotun in NS merged nothing of the
# many TCP segments it wrote to its tap.
not_merged()
{
	local m f

	gt_counters "$1" || return 1
	m=$(ctr "$GT_CTR" rx_gro_merged)
	f=$(ctr "$GT_CTR" rx_frames)
	diag "$1: rx_gro_merged=$m rx_frames=$f"
	[ "$m" = 0 ] && [ -n "$f" ] && [ "$f" -gt 40000 ]
}

# one_by_one: with --no-offload, A sent every segment as a datagram of
# its own (no UDP GSO), and B wrote every packet it received to its tap as
# a frame of its own (no UDP GRO, nothing merged).
one_by_one()
{
	local sends segs pkts frames m

	gt_counters "$NS_A" || return 1
	sends=$(ctr "$GT_CTR" tx_sends)
	segs=$(ctr "$GT_CTR" tx_segments)
	gt_counters "$NS_B" || return 1
	pkts=$(ctr "$GT_CTR" rx_packets)
	frames=$(ctr "$GT_CTR" rx_frames)
	m=$(ctr "$GT_CTR" rx_gro_merged)
	diag "A: tx_sends=$sends tx_segments=$segs;" \
		"B: rx_packets=$pkts rx_frames=$frames rx_gro_merged=$m"
	# A send per datagram, and a few resends after ICMP errors at start.
	[ -n "$segs" ] && [ "$segs" -gt 40000 ] && [ "$sends" -ge "$segs" ] &&
		[ -n "$pkts" ] && [ "$pkts" -gt 40000 ] &&
		[ "$pkts" = "$frames" ] && [ "$m" = 0 ]
}

# csum_counts NS yes|no: the gsotun in NS counted datagrams without a UDP
# checksum (rx_udp_csum_zero) when its peer sent them (yes: --no-csum
# over UDP), none otherwise, and found no inner TCP checksum wrong.
csum_counts()
{
	local z b

	gt_counters "$1" || return 1
	z=$(ctr "$GT_CTR" rx_udp_csum_zero)
	b=$(ctr "$GT_CTR" rx_inner_csum_bad)
	diag "$1: rx_udp_csum_zero=$z rx_inner_csum_bad=$b"
	[ -n "$z" ] && [ "$b" = 0 ] || return 1
	if [ "$2" = yes ]; then
		[ "$z" -gt 10000 ]
	else
		[ "$z" = 0 ]
	fi
}

if [ "$encap" = gre ]; then
	outer1=gre-none outer3=gre-csum mtu3=$((mtu - 8))
	zero1=no zero3=no
else
	outer1=udp-csum outer3=udp-zero mtu3=$mtu
	zero1=no zero3=yes
fi

run=1
# Run 1: offloads on.
r="$r0 ${csum_on[*]:-default}"
check "$r: gsotun starts on both ends" ends_start "${csum_on[@]}"
check "$r: tap MTU is $mtu on both ends" mtu_is "$mtu"
pings "$r"
check "$r: 64 MiB A->B over IPv4, SHA-256 matches" \
	xfer_if_up "$NS_A" "$NS_B" "$OV4_B" big
check "$r: 64 MiB B->A over IPv6, SHA-256 matches" \
	xfer_if_up "$NS_B" "$NS_A" "$OV6_A" big
capture "$r" "$outer1"
[ "$encap" = gre ] || spread "$r"
drops_zero "$r"
# drops_zero left A's counters in GT_CTR.
check "$r: A segmented super-frames (tx_segments > tx_frames)" segmented
check "$r: B merged received segments into super-frames for its tap" \
	merged 10000
check "$r: B counted datagrams without a UDP checksum: $zero1" \
	csum_counts "$NS_B" "$zero1"
check "$r: both ends exit 0 on SIGTERM and remove their tap" ends_stop

run=2
# Run 2: no offloads either way, a fixed MTU: the classic userspace tunnel.
r="$r0 --no-offload --mtu 1400"
check "$r: gsotun starts on both ends" \
	ends_start "${csum_on[@]}" --no-offload --mtu 1400
check "$r: tap MTU is 1400 on both ends" mtu_is 1400
pings "$r" v4only
check "$r: 64 MiB A->B over IPv4, SHA-256 matches" \
	xfer_if_up "$NS_A" "$NS_B" "$OV4_B" big
check "$r: 64 MiB B->A over IPv6, SHA-256 matches" \
	xfer_if_up "$NS_B" "$NS_A" "$OV6_A" big
drops_zero "$r"
check "$r: one datagram per segment, one tap frame per packet" one_by_one
check "$r: both ends exit 0 on SIGTERM and remove their tap" ends_stop

run=3
# Run 3: the other outer checksum setting, and no TCP merging only.
r="$r0 ${csum_flip[*]} --no-gro"
check "$r: gsotun starts on both ends" \
	ends_start "${csum_flip[@]}" --no-gro
check "$r: tap MTU is $mtu3 on both ends" mtu_is "$mtu3"
pings "$r" v4only
check "$r: 64 MiB B->A over IPv6, SHA-256 matches" \
	xfer_if_up "$NS_B" "$NS_A" "$OV6_A" big
capture "$r" "$outer3"
drops_zero "$r"
check "$r: A counted datagrams without a UDP checksum: $zero3" \
	csum_counts "$NS_A" "$zero3"
check "$r: A merged nothing" not_merged "$NS_A"
check "$r: both ends exit 0 on SIGTERM and remove their tap" ends_stop

done_testing
