#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A gsotun that starts with no peer (--local alone) and whose peers come
# and go at run time, down to none: A starts so, over vxlan with the
# kernel's vxlan as B, over raw GRE and in --mode tun over gre-udp with
# gsotun as B. Without a peer A's pings fail and tx_drop_no_peer counts
# them; `gsotunctl peer add B` makes the tunnel (pings both ways, 64 MiB
# whose SHA-256 is compared); `peer del B`, the last, is taken: pings fail
# again, counted, the control socket still answers; B added again works;
# SIGTERM exits 0 and removes the device. A --peers file emptied and
# SIGHUP leaves none, taken; a gsotun started with --remote whose last
# peer went says a config that, fed back, starts the same.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping socat
net_setup 4 31
make_data data 64
VX_B=vB$$
PEERS=$LIB_TMP/peers.A
SAVED=$LIB_TMP/saved.conf

# no_peer_drops: a ping from A fails, and tx_drop_no_peer moves.
no_peer_drops()
{
	local before after

	gt_counters "$NS_A" || return 1
	before=$(ctr "$GT_CTR" tx_drop_no_peer)
	ping_ok "$NS_A" "$OV4_B" && { diag "a ping crossed"; return 1; }
	gt_counters "$NS_A" || return 1
	after=$(ctr "$GT_CTR" tx_drop_no_peer)
	[ -n "$before" ] && [ "$after" -gt "$before" ] ||
		{ diag "tx_drop_no_peer $before -> $after"; return 1; }
}

# shows_none: the control socket answers, with no peer.
shows_none()
{
	ctl_ok "$NS_A" show && has ", 0 peers" && lacks "peer $UL_B" &&
		ctl_ok "$NS_A" stats --json && has '"tx_drop_no_peer":' &&
		ctl_ok "$NS_A" metrics && has "gsotun_peers 0"
}

# tunnel_up: pings both ways. A's neighbour entry of B failed while A had
# no peer; ARP probes it again once a second (neigh_timer_handler()), so
# the first pings may go unanswered: three tries.
tunnel_up()
{
	local i

	for ((i = 0; i < 3; i++)); do
		ping_ok "$NS_A" "$OV4_B" && break
	done
	[ "$i" -lt 3 ] || { diag "no answer from B"; gt_log "$NS_A"; return 1; }
	ping_ok "$NS_B" "$OV4_A" || { diag "no answer from A"; return 1; }
}

# phase NAME B_KIND ARGS...: A with ARGS and --local alone; B (kvx, or
# gsotun with ARGS to A); the peer added, deleted, added again.
phase()
{
	local name=$1 b=$2

	shift 2
	check "$name: A starts with --local and no peer" \
		gt_start "$NS_A" "$TAP_A" --local "$UL_A" \
		--address "$OV4_A/24" "$@"
	if [ "$b" = kvx ]; then
		check "$name: B, the kernel's vxlan to A" kvx_b "$VX_B" 1 \
			"$OV4_B/24" 1450
	else
		check "$name: B, gsotun to A" gt_start "$NS_B" "$TAP_B" \
			--remote "$UL_A" --address "$OV4_B/24" "$@"
	fi
	check "$name: no peer: A's ping fails, tx_drop_no_peer moves" \
		no_peer_drops
	check "$name: and show, stats and metrics say no peer" shows_none
	check "$name: peer add B" ctl_ok "$NS_A" peer add "$UL_B"
	check "$name: pings both ways" tunnel_up
	check "$name: 64 MiB from A to B, SHA-256 equal" \
		xfer "$NS_A" "$NS_B" "$OV4_B" data
	check "$name: peer del B, the last: taken" \
		ctl_ok "$NS_A" peer del "$UL_B"
	check "$name: no peer again: pings fail, counted" no_peer_drops
	check "$name: the control socket answers, no peer" shows_none
	check "$name: peer add B again" ctl_ok "$NS_A" peer add "$UL_B"
	check "$name: pings both ways again" tunnel_up
	check "$name: SIGTERM: A exits 0, its device gone" gt_stop "$NS_A"
	if [ "$b" = kvx ]; then
		ip -n "$NS_B" link del "$VX_B"
	else
		check "$name: B stops" gt_stop "$NS_B"
	fi
}

phase vxlan kvx --vni 1
phase "raw GRE" gsotun --encap gre
phase "tun gre-udp" gsotun --mode tun --encap gre-udp

# --peers: B in the file, then the file emptied and SIGHUP.
echo "remote $UL_B" >"$PEERS"
check "--peers: A starts with B in the file" gt_start "$NS_A" "$TAP_A" \
	--local "$UL_A" --address "$OV4_A/24" --peers "$PEERS"
check "--peers: B starts" gt_start "$NS_B" "$TAP_B" --remote "$UL_A" \
	--address "$OV4_B/24"
check "--peers: pings both ways" tunnel_up
: >"$PEERS"
kill -HUP "${GT_PID[$NS_A]}"
check "--peers emptied, SIGHUP: taken, said" \
	wait_log "$NS_A" "0 peers (1 gone): $PEERS holds none"
check "--peers: no peer: pings fail, counted" no_peer_drops
check "--peers: show says no peer" shows_none
check "--peers: A stops" gt_stop "$NS_A"
check "--peers: B stops" gt_stop "$NS_B"

# Started with --remote, its last peer gone: the config it says starts
# a gsotun with no peer, which says the same config.
same_config()
{
	ctl_ok "$NS_A" "$TAP_A" config || return 1
	diff -u "$SAVED" - <<<"$OUT" >"$LIB_TMP/diff" ||
		{ diag "$(cat "$LIB_TMP/diff")"; return 1; }
}

# Raw GRE with one --remote and a control socket: its peers may change
# (a peer more, the last gone), so its raw socket is not connected.
check "--remote: B starts, raw GRE" gt_start "$NS_B" "$TAP_B" --encap gre \
	--remote "$UL_A" --address "$OV4_B/24"
check "--remote: A starts with B, raw GRE" gt_start "$NS_A" "$TAP_A" \
	--encap gre --remote "$UL_B" --address "$OV4_A/24"
check "--remote: pings both ways" tunnel_up
check "--remote: peer add of a second, raw GRE" \
	ctl_ok "$NS_A" peer add 198.18.31.9
check "--remote: pings both ways with two peers" tunnel_up
check "--remote: peer del of both" eval 'ctl_ok "$NS_A" peer del 198.18.31.9 &&
	ctl_ok "$NS_A" peer del "$UL_B"'
check "--remote: no peer: pings fail, counted" no_peer_drops
ctl "$NS_A" "$TAP_A" config
printf '%s\n' "$OUT" >"$SAVED"
check "its config: 'local 0.0.0.0' for the family, no remote" \
	eval 'has "local 0.0.0.0" && lacks "remote "'
check "--remote: A stops" gt_stop "$NS_A"
check "A from that config: starts with no peer" \
	gt_start "$NS_A" "$TAP_A" --config "$SAVED"
check "and says the same config" same_config
check "from it, peer add B: pings both ways" \
	eval 'ctl_ok "$NS_A" peer add "$UL_B" && tunnel_up'
check "A stops" gt_stop "$NS_A"
check "B stops" gt_stop "$NS_B"

done_testing
