#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A TCP flow whose sender's MSS is 48, the smallest Linux senders use
# (tcp_min_snd_mss): without a limit on the tap, the sender's TSO frames
# of 64 KB hold over 1,800 segments of 36 bytes (48 less the timestamp
# option), more than gsotun takes (VNET_MAX_SEGS), and each is dropped
# whole: a retransmit storm (issue 12). gsotun sets the tap's
# gso_max_segs to 1024, so the kernel builds no such frame: nothing
# dropped, (almost) nothing retransmitted.
#
# MSS 48 comes from A's route to B, locked at MTU 88 (tcp_mtu_to_mss():
# 88 less 40 bytes of IPv4 and TCP headers), which is what a peer that
# advertises MSS 48 leaves the sender with. A receiver's route cannot
# make it: Linux advertises no MSS under 88 (TCP_MIN_MSS) whatever the
# route's advmss says (measured, 6.18: advmss 48, the SYN-ACK says 88),
# so an advmss 48 got 76-byte segments, 862 to a 64 KB frame, and never
# tried the limit.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 socat nstat
net_setup 4 9
make_data small 8

segs_is()
{
	local d

	d=$(ip -n "$1" -d link show dev "$2" | grep -o 'gso_max_segs [0-9]*')
	[ "$d" = "gso_max_segs $3" ] || { diag "$2: ${d:-none}"; return 1; }
}

# mtu88: A's route to B's overlay address locked at MTU 88: MSS 48.
mtu88()
{
	ip -n "$NS_A" route replace "$OV4_B/32" dev "$TAP_A" mtu lock 88
}

nstat_of()
{
	ip netns exec "$NS_A" nstat -a 2>/dev/null | awk -v k="$1" \
		'$1 == k { print $2 }'
}

# mss48: 8 MiB A->B intact in segments of 36 bytes; A dropped nothing
# and resent under 1%.
mss48()
{
	local out re drops want=$((8 * 1024 * 1024 / 36))

	ip netns exec "$NS_A" nstat -n >/dev/null
	xfer "$NS_A" "$NS_B" "$OV4_B" small || return 1
	out=$(nstat_of TcpOutSegs) re=$(nstat_of TcpRetransSegs)
	gt_counters "$NS_A" || return 1
	drops=$(ctr "$GT_CTR" tx_drop_gso_size)
	diag "A: TcpOutSegs=$out (8 MiB / 36 = $want)" \
		"TcpRetransSegs=${re:-0} tx_drop_gso_size=$drops"
	[ "${out:-0}" -ge "$want" ] && [ "$drops" = 0 ] &&
		[ $((${re:-0} * 100)) -lt "$out" ]
}

check "gsotun starts on both ends" ends_start --encap vxlan
check "A's tap: gso_max_segs 1024" segs_is "$NS_A" "$TAP_A" 1024
check "B's tap: gso_max_segs 1024" segs_is "$NS_B" "$TAP_B" 1024
check "A's route to B: MTU 88, MSS 48" mtu88
check "MSS 48: 8 MiB intact, nothing dropped, under 1% resent" mss48
check "both ends exit 0 on SIGTERM and remove their tap" ends_stop

done_testing
