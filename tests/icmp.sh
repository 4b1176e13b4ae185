#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ICMP errors from anyone are believed, as by the kernel's vxlan, but a
# flood of them cannot make the tunnel busy (issue 12): B, at the peer's
# address, floods A with spoofed "port unreachable" errors quoting A's
# port 4789 while a transfer runs, then the same flood quoting a port no
# socket has. With the first, A heeds a few hundred errors, then switches
# them off (tx_icmp_muted) and drops nothing; with the second, the kernel
# ignores them all. After the flood, errors are heeded again: a peer that
# went away is seen (tx_icmp_unreach).
#
# Usage: icmp.sh 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

[ "$fam" = 4 ] || [ "$fam" = 6 ] || bail "usage: icmp.sh 4|6"
lib_init 120 socat ping "$PYTHON"
"$PYTHON" -c 'import scapy.all' 2>/dev/null ||
	bail "$PYTHON cannot import scapy (apt-get install python3-scapy)"
net_setup "$fam" 10
make_data big 32

mac_of()
{
	ip netns exec "$1" cat "/sys/class/net/$2/address"
}

# flood_run PORT: 4 s of spoofed errors quoting A's source port PORT, a
# 32 MiB transfer A->B under them; A's counters moved in MOVED, the
# errors sent in SENT.
flood_run()
{
	local before fpid

	gt_counters "$NS_A" || return 1
	before=$GT_CTR
	ip netns exec "$NS_B" "$PYTHON" "$LIB_DIR/icmp-flood.py" "$VETH_B" \
		"$(mac_of "$NS_B" "$VETH_B")" "$(mac_of "$NS_A" "$VETH_A")" \
		"$fam" "$UL_B" "$UL_A" "$1" 4 >"$LIB_TMP/flood.out" \
		2>"$LIB_TMP/flood.err" &
	fpid=$!
	track_pid "$fpid"
	sleep 0.5
	xfer "$NS_A" "$NS_B" "$OV4_B" big || return 1
	wait "$fpid"
	forget_pid "$fpid"
	SENT=$(cat "$LIB_TMP/flood.out")
	gt_counters "$NS_A" || return 1
	MOVED=$(ctr_moved "$before" "$GT_CTR" 'tx_(icmp_[a-z_]+|drop_send)')
	diag "port $1: $SENT errors sent; A: ${MOVED:-nothing moved}"
	[ -n "$SENT" ] && [ "$SENT" -gt 10000 ] ||
		{ diag "$(cat "$LIB_TMP/flood.err")"; return 1; }
}

moved()
{
	local re="$1=\+([0-9]+)"

	[[ $MOVED =~ $re ]] && echo "${BASH_REMATCH[1]}" || echo 0
}

# At the tunnel's port: muted, a few hundred heeded, no send lost. Off
# on every socket, so switched off once, or twice if A's 10-s look at
# the path falls in the flood: not again for each error that still
# reaches one socket of the port.
at_port()
{
	flood_run 4789 || return 1
	[ "$(moved tx_icmp_muted)" -ge 1 ] &&
		[ "$(moved tx_icmp_muted)" -le 2 ] &&
		[ $(($(moved tx_icmp_unreach) * 100)) -lt "$SENT" ] &&
		[ "$(moved tx_drop_send)" = 0 ]
}

# At a port no socket has: nothing reaches gsotun at all.
elsewhere()
{
	flood_run 5555 || return 1
	[ -z "$MOVED" ]
}

# After the flood (and the next look at the path, 10 s at most), a peer
# that went away is heard of again: its kernel's port unreachables.
heeded_again()
{
	local i u0 u

	gt_stop "$NS_B" >/dev/null || return 1
	gt_counters "$NS_A" || return 1
	u0=$(ctr "$GT_CTR" tx_icmp_unreach)
	for ((i = 0; i < 30; i++)); do
		ip netns exec "$NS_A" ping -n -q -c 1 -W 1 "$OV4_B" \
			>/dev/null 2>&1
		gt_counters "$NS_A" || return 1
		u=$(ctr "$GT_CTR" tx_icmp_unreach)
		[ "$u" -gt "$u0" ] && { diag "after $i s"; return 0; }
	done
	diag "A: tx_icmp_unreach=$u, was $u0"
	return 1
}

check "gsotun starts on both ends" ends_start --encap vxlan
check "a flood quoting A's port: 32 MiB intact, errors off once, no drop" \
	at_port
check "the same flood quoting an unused port: intact, no counter moves" \
	elsewhere
check "after the flood, errors are heeded again" heeded_again
check "A exits 0 on SIGTERM and removes its tap" gt_stop "$NS_A"

done_testing
