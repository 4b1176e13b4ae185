#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# UDP super-frames on receive: a UDP GSO sender in A (40 datagrams of 1200
# bytes a send, as QUIC stacks send) and a UDP_GRO receiver in B, through
# gsotun, inner IPv4 and IPv6. Every datagram must arrive intact and once
# (udpgso.py checks a digest in each), B's tap must have been written UDP
# super-frames (GSO_UDP_L4: counters, and a capture of the tap with UDP
# frames longer than its MTU) and the receiver must read super-datagrams.
# Then the kernel's own vxlan inside the overlay (nested, port 8472): its
# datagrams are merged too and reach its socket as UDP super-frames, which
# the kernel must cut before decapsulating them (udp_unexpected_gso()):
# 64 MiB through it both ways, SHA-256 intact. Then --no-gro; a kernel
# that would decapsulate such a super-frame whole (6.6.25, before
# 3d010c8031e3: tests/old-kernel.so makes uname() say so), where gsotun
# must not merge UDP, the nested vxlan still intact; and a tap that
# refuses USO (the shim makes TUNSETOFFLOAD say EINVAL to it, as kernels
# before 6.2 do): datagram by datagram again, intact, and TCP still
# merged.
#
# Usage: udp-gro.sh vxlan|gre-udp 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

encap=$1
fam=$2
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case "$encap/$fam" in
vxlan/4 | vxlan/6 | gre-udp/4 | gre-udp/6) ;;
*) bail "usage: udp-gro.sh vxlan|gre-udp 4|6" ;;
esac

lib_init 240 socat tcpdump tshark ping ethtool "$PYTHON"
net_setup "$fam" 5
make_data big 64
GT_ARGS=(--encap "$encap")
[ "$encap" = vxlan ] && GT_ARGS+=(--vni 42)
COUNT=8000
# Within every tunnel MTU here (1430 and up) with inner IPv6 headers.
SIZE=1200
PORT=5001
UDPGSO=$LIB_DIR/udpgso.py

# udp_run DST [PER_SEND]: COUNT datagrams from A to DST in B, PER_SEND
# (40) a send; the receiver's line of results in RES.
udp_run()
{
	local dst=$1 per=${2:-40} out=$LIB_TMP/recv.$RANDOM pid i

	RES=
	ip netns exec "$NS_B" "$PYTHON" "$UDPGSO" recv "$dst" "$PORT" 30 \
		"$SIZE" >"$out" 2>&1 &
	pid=$!
	track_pid "$pid"
	for ((i = 0; i < 50; i++)); do
		grep -q listening "$out" && break
		sleep 0.1
	done
	ip netns exec "$NS_A" "$PYTHON" "$UDPGSO" send "$dst" "$PORT" \
		"$COUNT" "$SIZE" "$per" || diag "the sender failed"
	wait "$pid"
	forget_pid "$pid"
	RES=$(grep received= "$out")
	diag "to $dst: $RES"
	[ -n "$RES" ] || { diag "$(cat "$out")"; return 1; }
}

# res NAME: a value of the receiver's results.
res()
{
	ctr "$RES" "$1"
}

# intact: nothing corrupt, nothing twice, the end seen, and at most a
# tenth lost (UDP may lose; a tunnel that loses more is broken).
intact()
{
	[ "$(res bad)" = 0 ] && [ "$(res dup)" = 0 ] && [ "$(res end)" = 1 ] &&
		[ "$(res received)" -ge $((COUNT * 9 / 10)) ]
}

super_datagrams()
{
	[ "$(res max_segs)" -gt 1 ]
}

single_datagrams()
{
	[ "$(res max_segs)" = 1 ]
}

# over_mtu FILE: UDP frames on the tap longer than its MTU: super-frames.
over_mtu()
{
	local n

	n=$(tshark -r "$1" -Y "udp.port == $PORT && frame.len > 1514" \
		2>/dev/null | wc -l)
	diag "UDP frames over the MTU on B's tap: $n"
	[ "$n" -gt 0 ]
}

merged()
{
	gt_counters "$NS_B" || return 1
	gt_show B
	[ "$(ctr "$GT_CTR" rx_udp_gso_frames)" -gt 0 ] &&
		[ "$(ctr "$GT_CTR" rx_udp_merged)" -gt 0 ] &&
		ctr_drops_zero "$GT_CTR"
}

# gso_max_size NS DEV: the device's.
gso_max_size()
{
	ip -n "$1" -d -o link show dev "$2" 2>/dev/null |
		sed -n 's/.* gso_max_size \([0-9]*\) .*/\1/p'
}

# bulk_run DST: BULK_PER datagrams a send, 62 KB: more than the
# gso_max_size A's tap has for TCP (not raised now), so the kernel cuts
# the first sends before the tap until A sees them as bulk UDP and raises
# it.
BULK_PER=53
BULK_CTR=
bulk_run()
{
	local fit

	fit=$(gso_max_size "$NS_A" "$TAP_A")
	diag "A's tap: gso_max_size $fit"
	[ -n "$fit" ] && [ "$fit" -lt $((BULK_PER * SIZE)) ] || return 1
	gt_counters "$NS_A" || return 1
	BULK_CTR=$GT_CTR
	udp_run "$1" "$BULK_PER"
}

bulk_raised()
{
	local size

	size=$(gso_max_size "$NS_A" "$TAP_A")
	gt_counters "$NS_A" || return 1
	diag "A: gso_max_size $size;" \
		"$(ctr_moved "$BULK_CTR" "$GT_CTR" 'tx_(udp_bulk|gso_frames)')"
	[ "$size" = 65536 ] &&
		[ "$(ctr "$GT_CTR" tx_udp_bulk)" -gt \
			"$(ctr "$BULK_CTR" tx_udp_bulk)" ] &&
		[ "$(ctr "$GT_CTR" tx_gso_frames)" -gt \
			$(($(ctr "$BULK_CTR" tx_gso_frames) + COUNT / 100)) ]
}

# plain_run: a few hundred datagrams from A, one a send.
plain_run()
{
	local count=$COUNT st

	COUNT=400
	gt_counters "$NS_A" && BULK_CTR=$GT_CTR && udp_run "$OV4_B" 1 &&
		intact
	st=$?
	COUNT=$count
	return "$st"
}

plain_raises()
{
	plain_run && gt_counters "$NS_A" &&
		[ "$(ctr "$GT_CTR" tx_udp_bulk)" -gt \
			"$(ctr "$BULK_CTR" tx_udp_bulk)" ]
}

plain_backs_off()
{
	plain_run && gt_counters "$NS_A" &&
		[ "$(ctr "$GT_CTR" tx_udp_bulk)" = \
			"$(ctr "$BULK_CTR" tx_udp_bulk)" ] &&
		[ "$(gso_max_size "$NS_A" "$TAP_A")" -lt 65536 ]
}

# Within 10 s of the last bulk UDP and the next look (10 s), TCP's again.
bulk_over()
{
	local i size

	for ((i = 0; i < 30; i++)); do
		size=$(gso_max_size "$NS_A" "$TAP_A")
		[ "$size" -lt 65536 ] && return 0
		sleep 1
	done
	diag "A's tap still at gso_max_size $size after 30 s"
	return 1
}

# nested_up: the kernel's vxlan in both namespaces over gsotun's overlay.
NV_A=nvA$$ NV_B=nvB$$
nested_up()
{
	local ns dev loc rem addr i mtu

	mtu=$(($(tap_mtu "$NS_A" "$TAP_A") - 50))
	for ns in "$NS_A" "$NS_B"; do
		if [ "$ns" = "$NS_A" ]; then
			dev=$NV_A loc=$OV4_A rem=$OV4_B addr=10.77.0.1/24
		else
			dev=$NV_B loc=$OV4_B rem=$OV4_A addr=10.77.0.2/24
		fi
		ip -n "$ns" link add "$dev" type vxlan id 7 local "$loc" \
			remote "$rem" dstport 8472 udpcsum &&
			ip -n "$ns" link set "$dev" mtu "$mtu" &&
			ip -n "$ns" addr add "$addr" dev "$dev" &&
			ip -n "$ns" link set "$dev" up || return 1
	done
	for ((i = 0; i < 50; i++)); do
		dev_ready "$NS_B" "$NV_B" 10.77.0.2/24 && break
		sleep 0.1
	done
	ping_ok "$NS_A" 10.77.0.2
}

nested_merged()
{
	local before=$GT_CTR

	gt_counters "$NS_B" || return 1
	diag "B since: $(ctr_moved "$before" "$GT_CTR" 'rx_udp_[a-z_]*')"
	[ "$(ctr "$GT_CTR" rx_udp_merged)" -gt "$(ctr "$before" rx_udp_merged)" ]
}

not_merged()
{
	gt_counters "$NS_B" || return 1
	[ "$(ctr "$GT_CTR" rx_udp_gso_frames)" = 0 ] &&
		[ "$(ctr "$GT_CTR" rx_udp_merged)" = 0 ]
}

check "start both ends" ends_start
check "ping $OV4_B" ping_ok "$NS_A" "$OV4_B"
check "ping $OV6_B" ping_ok "$NS_A" "$OV6_B"
check "capture on B's tap" cap_start "$NS_B" "$TAP_B" "$LIB_TMP/tap.pcap" \
	udp port "$PORT"
for dst in "$OV4_B" "$OV6_B"; do
	check "to $dst: received" udp_run "$dst"
	check "to $dst: every datagram intact, once" intact
	check "to $dst: the receiver read super-datagrams" super_datagrams
done
cap_stop
check "B's tap was written UDP super-frames (capture)" \
	over_mtu "$LIB_TMP/tap.pcap"
check "B counted merged UDP, no drop" merged
check "bulk: $BULK_PER datagrams a send, over TCP's gso_max_size" \
	bulk_run "$OV4_B"
check "bulk: every datagram intact, once" intact
check "bulk: A's tap raised to 64 KB, its sends read whole" bulk_raised
# Waiting for it is slow: once is enough.
if [ "$encap/$fam" = vxlan/4 ]; then
	check "bulk: A's tap back to TCP's gso_max_size when it is over" \
		bulk_over
	check "plain: a row of single datagrams raises A's tap" plain_raises
	check "plain: no UDP super-frame came: back to TCP's size" bulk_over
	check "plain: and another row cannot raise it for a while" \
		plain_backs_off
fi
check "nested: the kernel's vxlan over the overlay" nested_up
check "nested: 64 MiB A to B" xfer "$NS_A" "$NS_B" 10.77.0.2 big
check "nested: its datagrams were merged on B" nested_merged
check "nested: 64 MiB B to A" xfer "$NS_B" "$NS_A" 10.77.0.1 big
check "both ends stop cleanly" ends_stop

check "--no-gro: start" ends_start --no-gro
check "--no-gro: ping $OV4_B" ping_ok "$NS_A" "$OV4_B"
check "--no-gro: received" udp_run "$OV4_B"
check "--no-gro: every datagram intact, once" intact
check "--no-gro: one datagram a read" single_datagrams
check "--no-gro: nothing merged" not_merged
check "--no-gro: both ends stop cleanly" ends_stop

SHIM=${top_builddir:-$LIB_DIR/..}/tests/old-kernel.so
[ -f "$SHIM" ] || bail "$SHIM not built (make check builds it)"

old_start()
{
	LD_PRELOAD=$SHIM OLD_KERNEL_RELEASE=6.6.25 ends_start -v "$@"
}

# B said why it does not merge UDP, naming the kernel.
old_said_why()
{
	grep -q 'UDP datagrams are not merged: Linux 6.6.25' "${GT_ERR[$NS_B]}"
}

# The tap still took USO: only merging is off.
tap_uso()
{
	ip netns exec "$NS_B" ethtool -k "$TAP_B" |
		grep -q '^tx-udp-segmentation: on'
}

no_uso_start()
{
	LD_PRELOAD=$SHIM OLD_KERNEL_NO_USO=1 ends_start
}

# The kernel hands B's tap nothing it could not cut: UDP GSO off.
tap_no_uso()
{
	ip netns exec "$NS_B" ethtool -k "$TAP_B" |
		grep -q '^tx-udp-segmentation: off'
}

tcp_merged()
{
	gt_counters "$NS_B" && [ "$(ctr "$GT_CTR" rx_gro_merged)" -gt 0 ]
}

check "Linux 6.6.25: start" old_start
check "Linux 6.6.25: B says why UDP is not merged" old_said_why
check "Linux 6.6.25: B's tap still takes USO" tap_uso
check "Linux 6.6.25: received" udp_run "$OV4_B"
check "Linux 6.6.25: every datagram intact, once" intact
check "Linux 6.6.25: one datagram a read" single_datagrams
check "Linux 6.6.25: nested: ping" ping_ok "$NS_A" 10.77.0.2
check "Linux 6.6.25: nested: 64 MiB A to B" xfer "$NS_A" "$NS_B" 10.77.0.2 big
check "Linux 6.6.25: nothing merged" not_merged
check "Linux 6.6.25: 64 MiB of TCP A to B" xfer "$NS_A" "$NS_B" "$OV4_B" big
check "Linux 6.6.25: TCP still merged" tcp_merged
check "Linux 6.6.25: both ends stop cleanly" ends_stop
check "Linux 6.6.25, --udp-gro on: start" old_start --udp-gro on
check "Linux 6.6.25, --udp-gro on: received" udp_run "$OV4_B"
check "Linux 6.6.25, --udp-gro on: every datagram intact, once" intact
check "Linux 6.6.25, --udp-gro on: the receiver read super-datagrams" \
	super_datagrams
check "Linux 6.6.25, --udp-gro on: both ends stop cleanly" ends_stop
check "--udp-gro off: start" ends_start --udp-gro off
check "--udp-gro off: received" udp_run "$OV4_B"
check "--udp-gro off: every datagram intact, once" intact
check "--udp-gro off: one datagram a read" single_datagrams
check "--udp-gro off: nothing merged" not_merged
check "--udp-gro off: both ends stop cleanly" ends_stop

check "no USO: start" no_uso_start
check "no USO: B's tap takes no UDP segmentation" tap_no_uso
check "no USO: received" udp_run "$OV4_B"
check "no USO: every datagram intact, once" intact
check "no USO: one datagram a read" single_datagrams
check "no USO: nothing merged" not_merged
check "no USO: 64 MiB of TCP A to B" xfer "$NS_A" "$NS_B" "$OV4_B" big
check "no USO: TCP still merged" tcp_merged
check "no USO: both ends stop cleanly" ends_stop
done_testing
