#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two overlays on one host pair and one UDP port: one gsotun with a tap
# per VNI (--vni N=DEV) against two kernel vxlan devices on dstport 4789,
# then gsotun at both ends with a tap per GRE key (gre-udp, --key N=DEV).
# Pings on both, 64 MiB SHA-256-checked transfers on both at once, each
# overlay's traffic kept from the other's tap, a third VNI dropped. Then
# a keyless main tap beside a keyed one: each answers "too big" with the
# MTU its own header leaves. Last, one UDP GRO receive holding datagrams
# of two VNIs (then two keys): each reaches its own tap.
#
# Usage: vni.sh 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case $fam in
4 | 6) ;;
*) bail "usage: vni.sh 4|6" ;;
esac

lib_init 300 socat ping
net_setup "$fam" 21
make_data big 64
# The second overlay: a tap of its own at each end.
T2_A=u2A$$ T2_B=u2B$$
O2_A=10.121.0.1 O2_B=10.121.0.2

# tun_ctr NS DEV NAME: counter NAME of tap DEV's line in the last dump.
tun_ctr()
{
	local line

	line=$(grep "^tunnel $2 " "${GT_ERR[$1]}" | tail -n 1)
	ctr "$line" "$3"
}

# dev_rx NS DEV: packets the kernel device DEV received.
dev_rx()
{
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"
}

# both_xfers: 64 MiB over each overlay at once, A to B.
both_xfers()
{
	xfer_pair big "$NS_A" "$NS_B" "$O2_B" "$NS_A" "$NS_B" "$OV4_B"
}

# two_overlays LABEL NAME1 NAME2 DEV2: pings over both overlays, 64 MiB
# over the first, of which nothing may reach B's DEV2 of the second.
two_overlays()
{
	local label=$1 r0 r1

	check "$label: ping over $2" ping_ok "$NS_A" "$OV4_B"
	check "$label: ping over $3" ping_ok "$NS_A" "$O2_B"
	r0=$(dev_rx "$NS_B" "$4")
	check "$label: 64 MiB over $2, SHA-256 match" \
		xfer "$NS_A" "$NS_B" "$OV4_B" big 60
	r1=$(dev_rx "$NS_B" "$4")
	check "$label: none of it reached $3's device" isolated "$r0" "$r1"
}

# isolated RX0 RX1: what the second overlay's tap or device on B took
# while 64 MiB crossed the first: a few frames at most.
isolated()
{
	[ $(($2 - $1)) -lt 20 ] ||
		{ diag "the other overlay got $(($2 - $1)) frames"; return 1; }
}

# second_fails: another gsotun in A, VNI 5 on the same port: refused,
# pointing at --vni N=DEV.
second_fails()
{
	local out st

	out=$(ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev x5$$ \
		--remote "$UL_B" --vni 5 2>&1 </dev/null)
	st=$?
	if [ "$st" -ne 1 ] || [[ $out != *"another gsotun (pid "*"--vni N=DEV"* ]]; then
		diag "status $st:" "$out"
		return 1
	fi
	! ip -n "$NS_A" link show dev x5$$ >/dev/null 2>&1
}

# both_mtu MTU: both of A's taps have MTU.
both_mtu()
{
	wait_tap_mtu "$NS_A" "$TAP_A" "$1" && wait_tap_mtu "$NS_A" "$T2_A" "$1"
}

# routes_followed LABEL: a route to B of a smaller MTU, which the main tap
# watches for the port, changes both taps' MTU within a second (the
# ten-second look would be too late), and its removal too.
routes_followed()
{
	local over=$((fam == 4 ? 50 : 70)) host=$((fam == 4 ? 32 : 128))

	ip -n "$NS_A" route add "$UL_B/$host" dev "$VETH_A" mtu 1400
	check "$1: a 1400-byte route to B: both taps at $((1400 - over))" \
		both_mtu $((1400 - over))
	ip -n "$NS_A" route del "$UL_B/$host" dev "$VETH_A"
	check "$1: the route gone: both taps back at $((1500 - over))" \
		both_mtu $((1500 - over))
}

phase_kernel()
{
	local label="vni/$fam kernel" r0 n0

	check "$label: two kernel vxlan devices on port 4789, VNI 1 and 2" \
		eval "kvx_b vx1$$ 1 $OV4_B/24 && kvx_b vx2$$ 2 $O2_B/24"
	check "$label: one gsotun, a tap for VNI 1 and one for VNI 2" \
		gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--vni 2="$T2_A" --address "$OV4_A/24" \
		--address "$T2_A=$O2_A/24"
	check "$label: VNI 2's tap has its address" \
		dev_ready "$NS_A" "$T2_A" "$O2_A/24"
	check "$label: a second gsotun on the port fails and says what to do" \
		second_fails
	routes_followed "$label"
	two_overlays "$label" "VNI 1" "VNI 2" "vx2$$"
	gt_counters "$NS_A"
	r0=$(tun_ctr "$NS_A" "$T2_A" rx_frames)
	check "$label: 64 MiB over each VNI at once, SHA-256 match" \
		both_xfers
	gt_counters "$NS_A"
	check "$label: VNI 2's tap got its own transfer" \
		test "$(($(tun_ctr "$NS_A" "$T2_A" rx_frames) - r0))" -gt 100
	check "$label: the counters have a line per tap" \
		test -n "$(tun_ctr "$NS_A" "$T2_A" tx_frames)"
	kvx_b vx3$$ 3 10.122.0.2/24
	n0=$(ctr "$GT_CTR" rx_drop_vni)
	ip netns exec "$NS_B" ping -n -q -c 3 -i 0.2 -W 1 -b 10.122.0.255 \
		>/dev/null 2>&1
	gt_counters "$NS_A"
	check "$label: VNI 3, which no tap has, dropped (rx_drop_vni)" \
		test "$(($(ctr "$GT_CTR" rx_drop_vni) - n0))" -ge 3
	check "$label: and said: VNI 3 from B, expecting 1" wait_log "$NS_A" \
		"dropping vxlan packets with VNI 3 from $UL_B, expecting 1"
	check "$label: drop counters otherwise zero" \
		ctr_drops_zero "${GT_CTR//rx_drop_vni=/}"
	check "$label: gsotun stops and removes both taps" \
		eval "gt_stop $NS_A && dev_gone $NS_A $T2_A"
	ip -n "$NS_B" link del "vx1$$"
	ip -n "$NS_B" link del "vx2$$"
	ip -n "$NS_B" link del "vx3$$"
}

phase_greudp()
{
	local label="vni/$fam gre-udp"

	check "$label: gsotun on A, key 7 and key 8 on a tap of its own" \
		gt_start "$NS_A" "$TAP_A" --encap gre-udp --local "$UL_A" \
		--remote "$UL_B" --key 7 --key 8="$T2_A" \
		--address "$OV4_A/24" --address "$T2_A=$O2_A/24"
	check "$label: the same on B" \
		gt_start "$NS_B" "$TAP_B" --encap gre-udp --local "$UL_B" \
		--remote "$UL_A" --key 7 --key 8="$T2_B" \
		--address "$OV4_B/24" --address "$T2_B=$O2_B/24"
	check "$label: B's second tap has its address" \
		dev_ready "$NS_B" "$T2_B" "$O2_B/24"
	two_overlays "$label" "key 7" "key 8" "$T2_B"
	check "$label: 64 MiB over each key at once, SHA-256 match" \
		both_xfers
	gt_counters "$NS_B"
	check "$label: B's drop counters stay zero" ctr_drops_zero "$GT_CTR"
	check "$label: B stops cleanly" gt_stop "$NS_B"
	ip netns exec "$NS_A" ping -n -q -c 3 -i 0.3 -W 1 "$OV4_B" \
		>/dev/null 2>&1
	check "$label: A says its peer is unreachable" wait_log "$NS_A" \
		"ICMP says of peer $UL_B: port unreachable: nothing takes UDP port"
	check "$label: A stops cleanly" gt_stop "$NS_A"
}

# too_big_mtu ADDR SIZE: the MTU of the "too big" that a DF ping of SIZE
# bytes from A to ADDR gets back (from gsotun's tap), or nothing.
too_big_mtu()
{
	ip netns exec "$NS_A" ping -n -c 1 -W 2 -M "do" -s "$2" "$1" 2>&1 |
		sed -n 's/.*[Ff]rag needed.*mtu = \([0-9]*\).*/\1/p' |
		head -n 1
}

# df_ping ADDR SIZE: DF pings of SIZE bytes from A to ADDR get answers.
df_ping()
{
	ip netns exec "$NS_A" ping -n -q -c 3 -i 0.2 -W 2 -M "do" -s "$2" \
		"$1" >/dev/null 2>&1
}

# drops_too_big_only DEV...: in A's last dump, each tap DEV dropped one
# frame as too big for the path, and nothing else.
drops_too_big_only()
{
	local dev line

	for dev in "$@"; do
		line=$(grep "^tunnel $dev " "${GT_ERR[$NS_A]}" | tail -n 1)
		[ "$(ctr "$line" tx_drop_too_big)" = 1 ] || {
			diag "$dev: $(ctr "$line" tx_drop_too_big) too big"
			return 1
		}
		ctr_drops_zero "${line//tx_drop_too_big=1/}" || return 1
	done
}

# A main tap without a key beside a keyed one, at --mtu 1500 over a path
# of 1500: to the same peer, the keyed tap's frames carry the 4-byte key
# and must be 4 bytes smaller; the "too big" each tap answers says so.
phase_keyless()
{
	local label="vni/$fam gre-udp, no --key" df=() over i mtu want

	# IP, UDP, GRE and the key; a DF outer header on IPv4, so that an
	# oversize send fails rather than being fragmented (on IPv6 the
	# kernel would fragment it: there the MTUs said are the check).
	over=$((fam == 4 ? 20 + 8 + 8 : 40 + 8 + 8))
	[ "$fam" = 4 ] && df=(--df set)
	for i in A B; do
		local ns=NS_$i tap=TAP_$i t2=T2_$i ul=UL_$i ov=OV4_$i o2=O2_$i
		local peer=UL_B

		[ "$i" = B ] && peer=UL_A
		check "$label: gsotun on $i, a tap for key 8, --mtu 1500" \
			gt_start "${!ns}" "${!tap}" --encap gre-udp \
			--local "${!ul}" --remote "${!peer}" --key 8="${!t2}" \
			--mtu 1500 "${df[@]}" --address "${!ov}/24" \
			--address "${!t2}=${!o2}/24"
	done
	check "$label: each second tap has its address" \
		eval "dev_ready $NS_A $T2_A $O2_A/24 &&
			dev_ready $NS_B $T2_B $O2_B/24"
	want=$((1500 - over - 14))
	mtu=$(too_big_mtu "$O2_B" 1472)
	check "$label: key 8's tap says 'too big', MTU $want (${mtu:-none})" \
		test "${mtu:-0}" -eq "$want"
	check "$label: DF pings of that MTU cross key 8" \
		df_ping "$O2_B" $((want - 28))
	want=$((want + 4))
	mtu=$(too_big_mtu "$OV4_B" 1472)
	check "$label: the keyless tap's, 4 more: $want (${mtu:-none})" \
		test "${mtu:-0}" -eq "$want"
	check "$label: DF pings of that MTU cross it" \
		df_ping "$OV4_B" $((want - 28))
	gt_counters "$NS_A"
	check "$label: A's drop counters: none but one too big per tap" \
		drops_too_big_only "$TAP_A" "$T2_A"
	check "$label: A stops cleanly" gt_stop "$NS_A"
	check "$label: B stops cleanly" gt_stop "$NS_B"
}

# mac_count PCAP ID: frames of vni-mix.py's datagrams of ID in a capture.
mac_count()
{
	# One line a frame, then a hex dump (an ethertype tcpdump does not
	# know) on lines that start with a tab.
	tcpdump -r "$1" -n "ether src 02:00:5e:10:00:$(printf %02x "$2")" \
		2>/dev/null | grep -c '^[0-9]'
}

# tap_got PCAP N ID OTHER: N frames of ID in a tap's capture, none of
# OTHER.
tap_got()
{
	local mine other

	mine=$(mac_count "$1" "$3") other=$(mac_count "$1" "$4")
	[ "$mine" -eq "$2" ] && [ "$other" -eq 0 ] ||
		{ diag "$mine of $3 (want $2), $other of $4 (want 0)"; return 1; }
}

# one_receive BEFORE AFTER N: the counters of one tap moved as one receive
# of N datagrams would move them.
one_receive()
{
	local moved

	moved=$(ctr_moved "$1" "$2" 'rx_(packets|segments|frames)')
	[ "$moved" = "rx_frames=+$3 rx_packets=+1 rx_segments=+$3 " ] ||
		{ diag "moved: $moved (want $3 datagrams in one receive)"
		  return 1; }
}

# t2_line: the second tap's line of A's last counters.
t2_line()
{
	grep "^tunnel $T2_A " "${GT_ERR[$NS_A]}" | tail -n 1
}

# mixed_in A0 B0: A has written the send's datagrams to both taps (rx_frames
# +6 on the main one since counters line A0, +8 on the second since B0).
mixed_in()
{
	local a b

	gt_counters "$NS_A" || return 1
	a=$GT_CTR b=$(t2_line)
	[ "$(ctr "$a" rx_frames)" -ge $(($(ctr "$1" rx_frames) + 6)) ] &&
		[ "$(ctr "$b" rx_frames)" -ge $(($(ctr "$2" rx_frames) + 8)) ]
}

# phase_mixed ENCAP ID1 ID2 ARGS...: a UDP GRO receive that holds
# datagrams of both IDs, in runs: each goes to the tap of its own VNI or
# key (the kernel's vxlan never merges two VNIs: vxlan_gro_receive()
# holds packets of another VNI apart), none is dropped, nothing is said
# about another VNI; then one of a third ID in the middle of a receive is
# dropped, and named. ARGS are gsotun's for ID1 on the main tap and ID2
# on the second.
phase_mixed()
{
	local encap=$1 id1=$2 id2=$3 label="vni/$fam $1, one receive of two"
	local port=4789 pa=$LIB_TMP/mix-a.pcap pb=$LIB_TMP/mix-b.pcap
	local ids=$2,$2,$2,$3,$3,$2,$3,$3,$3,$3,$2,$2,$3,$3 cap_a a0 b0 a1 b1
	local drop=rx_drop_vni what=VNI

	shift 3
	[ "$encap" = gre-udp ] && port=4754 drop=rx_drop_key what=key
	check "$label: gsotun on A, ID $id1 on one tap and $id2 on another" \
		gt_start "$NS_A" "$TAP_A" --encap "$encap" --local "$UL_A" \
		--remote "$UL_B" "$@"
	gt_counters "$NS_A"
	a0=$GT_CTR b0=$(t2_line)
	cap_start "$NS_A" "$TAP_A" "$pa" ether proto 0x88b5
	cap_a=$CAP_PID
	cap_start "$NS_A" "$T2_A" "$pb" ether proto 0x88b5
	check "$label: 14 datagrams in one UDP_SEGMENT send from B" \
		eval "ip netns exec $NS_B $PYTHON $LIB_DIR/vni-mix.py \
			$UL_A $port $encap $ids >/dev/null"
	# Not a fixed time: on a busy machine (make -j2 distcheck) A took
	# more than half a second to get to the receive.
	until_ok 100 mixed_in "$a0" "$b0"
	cap_stop
	CAP_PID=$cap_a
	cap_stop
	gt_counters "$NS_A"
	a1=$GT_CTR b1=$(t2_line)
	check "$label: the main tap got the 6 of $id1, none of $id2" \
		tap_got "$pa" 6 "$id1" "$id2"
	check "$label: the second tap got the 8 of $id2, none of $id1" \
		tap_got "$pb" 8 "$id2" "$id1"
	check "$label: the main tap: one receive of 6" one_receive "$a0" "$a1" 6
	check "$label: the second tap: one receive of 8" \
		one_receive "$b0" "$b1" 8
	check "$label: drop counters stay zero" ctr_drops_zero "$a1"
	check "$label: no warning about another VNI or key" \
		eval "! grep -q dropping ${GT_ERR[$NS_A]}"
	ip netns exec "$NS_B" "$PYTHON" "$LIB_DIR/vni-mix.py" "$UL_A" "$port" \
		"$encap" "$id1,$id2,99,$id2" >/dev/null
	gt_counters "$NS_A"
	check "$label: of one with ID 99 too, that one dropped ($drop)" \
		test "$(ctr_moved "$a1" "$GT_CTR" 'rx_drop_[a-z]+')" = "$drop=+1 "
	check "$label: and said: ID 99 from B" wait_log "$NS_A" \
		"packets with $what 99 from $UL_B, expecting $id1"
	check "$label: gsotun stops cleanly" gt_stop "$NS_A"
}

phase_kernel
phase_greudp
phase_keyless
phase_mixed vxlan 1 2 --vni 1 --vni 2="$T2_A"
phase_mixed gre-udp 7 8 --key 7 --key 8="$T2_A"
done_testing
