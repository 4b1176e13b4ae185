#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An overlay of four hosts on one bridged underlay: gsotun on A and C, the
# kernel's vxlan on B and D configured as flannel does it (learning off,
# one all-zeros "bridge fdb append" per remote host for broadcasts and one
# entry per remote VTEP's MAC for unicast). gsotun is given the same with
# --remote and --fdb, then learns instead (--learning).
#
#   pings between every pair; 64 MiB A->B and C->D at once, SHA-256
#   checked, while every underlay port is captured: unicast reaches only
#   its peer, an ARP broadcast reaches every one; with --learning, after
#   the first exchange A's unicast to B no longer floods; a non-peer cannot
#   get a MAC learnt; a peer's flood of source MACs stops at --max-address
#   with gsotun's memory flat, and churns that peer's entries only: the
#   MACs of the others are still learnt, and a stream from A to B after
#   the flood reaches the flooding peer with not one packet.
#
# Usage: mesh.sh 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

HOSTS=(A B C D)
declare -A NS VETH PORT UL OV4 OV6 MAC DEV

case $fam in
4) mtu=1450 plen=24 ;;
6) mtu=1430 plen=64 ;;
*) bail "usage: mesh.sh 4|6" ;;
esac

lib_init 600 socat tcpdump ping bridge
CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
NS_U=gtU$$
BR=br$$

# mesh_setup: the underlay switch and four hosts plugged into it.
mesh_setup()
{
	local h i=0 ns nodad=()

	[ "$fam" = 6 ] && nodad=(nodad)
	for ns in "$NS_U" gtA$$ gtB$$ gtC$$ gtD$$; do
		ns_add "$ns"
	done
	ip -n "$NS_U" link add "$BR" type bridge || bail "no bridge"
	ip -n "$NS_U" link set "$BR" up
	for h in "${HOSTS[@]}"; do
		i=$((i + 1))
		NS[$h]=gt$h$$ VETH[$h]=u$h$$ PORT[$h]=p$h$$
		if [ "$fam" = 6 ]; then
			UL[$h]=fd00:198:18:20::$i
		else
			UL[$h]=198.18.20.$i
		fi
		OV4[$h]=10.20.0.$i OV6[$h]=fd00:10:20::$i
		MAC[$h]=02:00:00:00:20:0$i
		ip -n "${NS[$h]}" link add "${VETH[$h]}" mtu 1500 type veth \
			peer name "${PORT[$h]}" netns "$NS_U" mtu 1500 ||
			bail "cannot create veth pair for $h"
		ip -n "$NS_U" link set "${PORT[$h]}" master "$BR" up
		ip -n "${NS[$h]}" addr add "${UL[$h]}/$plen" \
			dev "${VETH[$h]}" "${nodad[@]}"
		ip -n "${NS[$h]}" link set "${VETH[$h]}" up
	done
	for h in B C D; do
		for ((i = 0; i < 50; i++)); do
			ip netns exec "${NS[A]}" ping -c 1 -W 1 "${UL[$h]}" \
				>/dev/null 2>&1 && break
			sleep 0.1
		done
		[ "$i" -lt 50 ] || bail "underlay A <-> $h does not answer"
	done
}

# others H: the hosts but H.
others()
{
	local h

	for h in "${HOSTS[@]}"; do
		[ "$h" != "$1" ] && echo "$h"
	done
}

# kvx_start H: the kernel's vxlan on H, flannel's way.
kvx_start()
{
	local h=$1 ns=${NS[$1]} dev=vx$1$$ cs=udpcsum p i

	[ "$fam" = 6 ] && cs="noudp6zerocsumtx noudp6zerocsumrx"
	DEV[$h]=$dev
	# shellcheck disable=SC2086 # $cs is a list of keywords
	ip -n "$ns" link add "$dev" address "${MAC[$h]}" type vxlan id 1 \
		local "${UL[$h]}" dstport 4789 dev "${VETH[$h]}" nolearning \
		$cs || return 1
	ip -n "$ns" link set "$dev" mtu "$mtu" &&
		ip -n "$ns" addr add "${OV4[$h]}/24" dev "$dev" &&
		ip -n "$ns" addr add "${OV6[$h]}/64" dev "$dev" nodad &&
		ip -n "$ns" link set "$dev" up || return 1
	for p in $(others "$h"); do
		bridge -n "$ns" fdb append 00:00:00:00:00:00 dev "$dev" \
			dst "${UL[$p]}" self permanent &&
			bridge -n "$ns" fdb replace "${MAC[$p]}" dev "$dev" \
				dst "${UL[$p]}" self permanent || return 1
	done
	for ((i = 0; i < 50; i++)); do
		dev_ready "$ns" "$dev" "${OV4[$h]}/24" "${OV6[$h]}/64" &&
			return 0
		sleep 0.1
	done
	return 1
}

# gsotun_start H [FLAGS...]: gsotun on H, every other host a peer; its
# tap gets H's MAC.
gsotun_start()
{
	local h=$1 p args=()

	shift
	DEV[$h]=t$h$$
	for p in $(others "$h"); do
		args+=(--remote "${UL[$p]}")
	done
	gt_start "${NS[$h]}" "${DEV[$h]}" --local "${UL[$h]}" "${args[@]}" \
		--address "${OV4[$h]}/24" --address "${OV6[$h]}/64" "$@" &&
		ip -n "${NS[$h]}" link set "${DEV[$h]}" address "${MAC[$h]}"
}

# fdb_flags H: --fdb for every other host's MAC, as flannel's entries.
fdb_flags()
{
	local p

	for p in $(others "$1"); do
		printf '%s\n' --fdb "${MAC[$p]}=${UL[$p]}"
	done
}

pings_all()
{
	local a b bad=

	for a in "${HOSTS[@]}"; do
		for b in $(others "$a"); do
			[[ $a > $b ]] && continue
			ping_ok "${NS[$a]}" "${OV4[$b]}" || bad+=" $a->$b/4"
			ping_ok "${NS[$a]}" "${OV6[$b]}" || bad+=" $a->$b/6"
		done
	done
	[ -z "$bad" ] || { diag "no answer:$bad"; return 1; }
}

# broadcast_all FROM: FROM's ARP broadcast reached every other port.
broadcast_all()
{
	local from=$1 h n bad=

	for h in $(others "$from"); do
		n=$(seen "$h" "$from" ff:ff:ff:ff:ff:ff)
		[ "$n" -ge 1 ] || bad+=" $h"
	done
	[ -z "$bad" ] || { diag "$from's broadcast missing at:$bad"; return 1; }
}

# two_xfers: 64 MiB A->B and C->D at the same time.
two_xfers()
{
	xfer_pair big "${NS[A]}" "${NS[B]}" "${OV4[B]}" \
		"${NS[C]}" "${NS[D]}" "${OV4[D]}"
}

# forget_all: every host forgets its overlay neighbours, and A holds no
# IPv4 one, so that A's next ping begins with an ARP broadcast. Flushing
# A alone is not enough: B's entry for A, used by pings_all's replies,
# goes from DELAY to PROBE 5 s later, and its unicast ARP request gives A
# a STALE entry for B, and then no broadcast. Such a request sent before
# its host forgot may still arrive: A forgets again until it has held
# none for two looks 0.2 s apart.
forget_all()
{
	local h i empty=0

	for h in "${HOSTS[@]}"; do
		ip -n "${NS[$h]}" neigh flush dev "${DEV[$h]}"
	done
	for ((i = 0; i < 15; i++)); do
		sleep 0.2
		if [ -z "$(ip -4 -n "${NS[A]}" neigh show dev "${DEV[A]}")" ]
		then
			((++empty < 2)) || return 0
			continue
		fi
		empty=0
		ip -n "${NS[A]}" neigh flush dev "${DEV[A]}"
	done
	diag "A keeps learning: $(ip -4 -n "${NS[A]}" neigh show \
		dev "${DEV[A]}")"
	return 1
}

peer_ctr()
{
	local line

	line=$(grep "^peer ${UL[$2]} " "${GT_ERR[${NS[$1]}]}" | tail -n 1)
	ctr "$line" "$3"
}

# Phase 1: flannel's configuration on every host.
phase_static()
{
	local label="mesh/$fam static" flags b0 b1 d0 d1

	mapfile -t flags < <(fdb_flags A)
	check "$label: gsotun starts on A with 3 peers and --fdb" \
		gsotun_start A "${flags[@]}"
	mapfile -t flags < <(fdb_flags C)
	check "$label: gsotun starts on C with 3 peers and --fdb" \
		gsotun_start C "${flags[@]}"
	check "$label: kernel vxlan on B, flannel's fdb" kvx_start B
	check "$label: kernel vxlan on D, flannel's fdb" kvx_start D
	check "$label: tap MTU on A is $mtu" wait_tap_mtu "${NS[A]}" \
		"${DEV[A]}" "$mtu"
	check "$label: pings between every pair, IPv4 and IPv6" pings_all
	check "$label: captures on the four underlay ports" caps_start
	check "$label: every host forgets its neighbours" forget_all
	check "$label: A pings B again" \
		ping_ok "${NS[A]}" "${OV4[B]}"
	gt_counters "${NS[A]}"
	b0=$(peer_ctr A B peer_tx_packets) d0=$(peer_ctr A D peer_tx_packets)
	check "$label: 64 MiB A->B and C->D at once, SHA-256 match" two_xfers
	caps_stop
	# veth and the bridge carry UDP GSO sends whole (~60 KB datagrams),
	# and a busy machine's tcpdump misses some: a hundred make the case.
	check "$label: A's unicast to B reached only B's port" \
		unicast_only A B 100
	check "$label: C's unicast to D reached only D's port" \
		unicast_only C D 100
	check "$label: A's ARP broadcast reached B, C and D" broadcast_all A
	gt_counters "${NS[A]}"
	check "$label: A flooded some frames (tx_flood)" \
		test "$(ctr "$GT_CTR" tx_flood)" -gt 0
	b1=$(peer_ctr A B peer_tx_packets) d1=$(peer_ctr A D peer_tx_packets)
	diag "A's datagrams to B $b0 -> $b1, to D $d0 -> $d1"
	check "$label: A's per-peer counters: B got the transfer" \
		test $((b1 - b0)) -gt 40000
	check "$label: A's per-peer counters: D got next to nothing" \
		test $((d1 - d0)) -lt 50
	check "$label: A's drop counters stay zero" ctr_drops_zero "$GT_CTR"
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
}

# Phase 2: A learns instead (C keeps its --fdb).
phase_learning()
{
	local label="mesh/$fam learning" n

	check "$label: gsotun restarts on A with --learning, no --fdb" \
		gsotun_start A --learning
	check "$label: A pings B (the first exchange floods)" \
		ping_ok "${NS[A]}" "${OV4[B]}"
	check "$label: A pings D" ping_ok "${NS[A]}" "${OV4[D]}"
	gt_counters "${NS[A]}"
	n=$(ctr "$GT_CTR" rx_learnt)
	check "$label: A learnt B's and D's MACs (rx_learnt $n)" \
		test "${n:-0}" -ge 2
	check "$label: captures on the four underlay ports" caps_start
	check "$label: 64 MiB A->B and C->D at once, SHA-256 match" two_xfers
	caps_stop
	check "$label: A's unicast to B, learnt, reached only B's port" \
		unicast_only A B 100
	gt_counters "${NS[A]}"
	check "$label: A's drop counters stay zero" ctr_drops_zero "$GT_CTR"
}

# rss PID: resident set of a process in KiB.
rss()
{
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# learnt_a: the learnt entries of A's table, as gsotunctl shows them.
learnt_a()
{
	ip netns exec "${NS[A]}" "$CTL" "${DEV[A]}" show |
		sed -n 's/^  forwarding: \([0-9]*\) learnt.*/\1/p'
}

# moved_ge BEFORE NAME N: A's counter NAME (SIGUSR1) is N or more past
# the counters line BEFORE; the line now in GT_CTR.
moved_ge()
{
	gt_counters "${NS[A]}" &&
		[ $(($(ctr "$GT_CTR" "$2") - $(ctr "$1" "$2"))) -ge "$3" ]
}

# mac_flood H N: N frames with random source MACs from peer H to A.
# Each is learnt (rx_learnt) or not (rx_learn_full) as gsotun reads it:
# waited for, 5 s at most (what a full socket buffer lost never comes).
mac_flood()
{
	local before learnt replaced kib

	gt_counters "${NS[A]}"
	before=$GT_CTR
	ip netns exec "${NS[$1]}" "$PYTHON" "$LIB_DIR/mesh-send.py" \
		"${UL[A]}" "${MAC[A]}" "$2" >/dev/null
	until_ok 50 learn_seen_ge "$before" "$2"
	gt_counters "${NS[A]}"
	learnt=$(ctr "$GT_CTR" rx_learnt)
	replaced=$(ctr "$GT_CTR" rx_learn_replaced)
	kib=$(rss "${GT_PID[${NS[A]}]}")
	diag "after $2 source MACs from $1: rx_learnt $learnt," \
		"rx_learn_replaced $replaced, table $(learnt_a), RSS $kib KiB"
}

# learn_seen_ge BEFORE N: A counted N source MACs or more since BEFORE,
# learnt or not.
learn_seen_ge()
{
	gt_counters "${NS[A]}" &&
		[ $(($(ctr "$GT_CTR" rx_learnt) + $(ctr "$GT_CTR" rx_learn_full) -
			$(ctr "$1" rx_learnt) - $(ctr "$1" rx_learn_full))) \
			-ge "$2" ]
}

pings_a()
{
	ping_ok "${NS[A]}" "${OV4[B]}" && ping_ok "${NS[A]}" "${OV4[D]}"
}

# ping_mac MAC [H]: three pings from A to a neighbour at MAC; FLOODED, the
# frames A flooded meanwhile, and UNICAST, its datagrams to H that were
# not copies of flooded frames.
ping_mac()
{
	local ns=${NS[A]} f0 p0=0 c0=0

	ip -n "$ns" neigh replace 10.20.0.99 lladdr "$1" dev "${DEV[A]}" \
		nud permanent || return 1
	gt_counters "$ns"
	f0=$(ctr "$GT_CTR" tx_flood)
	if [ -n "${2:-}" ]; then
		p0=$(peer_ctr A "$2" peer_tx_packets)
		c0=$(peer_ctr A "$2" peer_tx_flood)
	fi
	ip netns exec "$ns" ping -n -q -c 3 -i 0.2 -W 1 10.20.0.99 \
		>/dev/null 2>&1
	gt_counters "$ns"
	FLOODED=$(($(ctr "$GT_CTR" tx_flood) - f0)) UNICAST=0
	if [ -n "${2:-}" ]; then
		UNICAST=$(($(peer_ctr A "$2" peer_tx_packets) - p0 -
			($(peer_ctr A "$2" peer_tx_flood) - c0)))
	fi
	ip -n "$ns" neigh del 10.20.0.99 dev "${DEV[A]}"
}

# floods_to MAC: A's frames to MAC go to every peer: the forwarding
# table does not have it.
floods_to()
{
	ping_mac "$1" || return 1
	[ "$FLOODED" -ge 3 ] || { diag "$FLOODED frames flooded"; return 1; }
}

# unicast_to H: A's frames to H's MAC go to H, not flooded.
unicast_to()
{
	ping_mac "${MAC[$1]}" "$1" || return 1
	if [ "$UNICAST" -lt 3 ] || [ "$FLOODED" -ge 3 ]; then
		diag "$FLOODED frames flooded, $UNICAST datagrams to $1"
		return 1
	fi
}

# Phase 3: what a non-peer and a hostile peer can do to A's table.
phase_hostile()
{
	local label="mesh/$fam hostile" e=gtE$$ before r0 r1 r2 n e_addr
	local bogus=02:00:5e:00:00:e1 nodad=()

	[ "$fam" = 6 ] && nodad=(nodad)

	ns_add "$e"
	ip -n "$e" link add uE$$ type veth peer name pE$$ netns "$NS_U"
	ip -n "$NS_U" link set pE$$ master "$BR" up
	e_addr=198.18.20.5
	[ "$fam" = 6 ] && e_addr=fd00:198:18:20::5
	ip -n "$e" addr add "$e_addr/$plen" dev uE$$ "${nodad[@]}"
	ip -n "$e" link set uE$$ up
	gt_counters "${NS[A]}"
	before=$GT_CTR
	ip netns exec "$e" "$PYTHON" "$LIB_DIR/mesh-send.py" "${UL[A]}" \
		"${MAC[A]}" 50 "$bogus" >/dev/null
	# Counted as gsotun reads them: waited for (all 50, or 5 s).
	until_ok 50 moved_ge "$before" rx_drop_source 50
	gt_counters "${NS[A]}"
	n=$(($(ctr "$GT_CTR" rx_drop_source) - $(ctr "$before" rx_drop_source)))
	check "$label: 50 frames from a non-peer dropped (rx_drop_source +$n)" \
		test "$n" -ge 45
	check "$label: nothing learnt from it: frames to its MAC flood" \
		floods_to "$bogus"
	check "$label: A says so, naming it" wait_log "${NS[A]}" \
		"dropping packets from $e_addr, which is not a peer"
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
	check "$label: A restarts with --learning --max-address 1000" \
		gsotun_start A --learning --max-address 1000 \
		--fdb "${MAC[C]}=${UL[C]}"
	check "$label: A pings B" ping_ok "${NS[A]}" "${OV4[B]}"
	r0=$(rss "${GT_PID[${NS[A]}]}")
	mac_flood B 20000
	r1=$(rss "${GT_PID[${NS[A]}]}")
	n=$(learnt_a)
	check "$label: 20000 source MACs from B: the table stops at 1000" \
		test "${n:-0}" -le 1000 -a "${n:-0}" -ge 900
	check "$label: the rest replaced B's own (rx_learn_replaced)" \
		test "$(ctr "$GT_CTR" rx_learn_replaced)" -gt 10000
	check "$label: A says so, naming B" wait_log "${NS[A]}" \
		"peer ${UL[B]} holds its share of the forwarding table"
	mac_flood B 20000
	r2=$(rss "${GT_PID[${NS[A]}]}")
	check "$label: A's memory is bounded and then flat" \
		test $((r1 - r0)) -lt 2048 -a $((r2 - r1)) -lt 256
	before=$GT_CTR
	ip netns exec "${NS[B]}" "$PYTHON" "$LIB_DIR/mesh-send.py" \
		"${UL[A]}" "${MAC[A]}" 20 "${MAC[C]}" >/dev/null
	until_ok 50 moved_ge "$before" rx_drop_mac_static 20
	gt_counters "${NS[A]}"
	n=$(($(ctr "$GT_CTR" rx_drop_mac_static) -
		$(ctr "$before" rx_drop_mac_static)))
	check "$label: B claiming C's static MAC: dropped (+$n)" \
		test "$n" -eq 20
	check "$label: C's MAC still goes to C" unicast_to C
	before=$GT_CTR
	ip netns exec "${NS[B]}" "$PYTHON" "$LIB_DIR/mesh-send.py" \
		"${UL[A]}" "${MAC[A]}" 20 "${MAC[A]}" >/dev/null
	until_ok 50 moved_ge "$before" rx_drop_mac_own 20
	gt_counters "${NS[A]}"
	n=$(($(ctr "$GT_CTR" rx_drop_mac_own) -
		$(ctr "$before" rx_drop_mac_own)))
	check "$label: B claiming A's own MAC, set after start: dropped (+$n)" \
		test "$n" -ge 18 -a "$n" -le 20
	# B's own MAC was the oldest of its share and gave way to the
	# flood: B's answers to these pings bring it back.
	check "$label: A still pings B and D" pings_a
	check "$label: and A's table has B's MAC, not A's own" not_own_mac
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
}

# not_own_mac: A's forwarding table holds B's MAC and not A's.
not_own_mac()
{
	local t

	t=$(ip netns exec "${NS[A]}" "$CTL" "${DEV[A]}" fdb show) || return 1
	grep -qi "${MAC[B]}" <<<"$t" && ! grep -qi "${MAC[A]}" <<<"$t" ||
		{ diag "A's table: $(head -n 3 <<<"$t")"; return 1; }
}

# has_mac_b: A's table holds B's MAC.
has_mac_b()
{
	ip netns exec "${NS[A]}" "$CTL" "${DEV[A]}" fdb show |
		grep -qi "${MAC[B]}"
}

# learnt_once: A's counters show MACs learnt in place of an over-share
# peer's (B's, after D's flood) and many of D's own replaced. B_EARLY=1:
# B's MAC was learnt before the flood ended (a neighbour solicitation
# of B's may come at any time), so nothing had to give way to it.
learnt_once()
{
	local ev rep

	gt_counters "${NS[A]}"
	ev=$(ctr "$GT_CTR" rx_learn_evicted) rep=$(ctr "$GT_CTR" \
		rx_learn_replaced)
	diag "rx_learn_evicted $ev, rx_learn_replaced $rep, table" \
		"$(learnt_a), B's MAC learnt before the flood ended: $B_EARLY"
	[ "${ev:-0}" -ge $((B_EARLY ? 0 : 1)) ] && [ "${rep:-0}" -ge 1000 ] &&
		has_mac_b
}

# Phase 4: the flood first, then A meets B. The kernel's vxlan (and
# gsotun before per-peer shares) learns nothing more once the table is
# full, and sends every frame to a MAC it has not learnt to every peer:
# the flooding peer D would get all of A's stream to B.
phase_share()
{
	local label="mesh/$fam share"

	check "$label: A restarts with neither --learning nor --fdb" \
		gsotun_start A
	check "$label: A says every frame goes to every peer" wait_log \
		"${NS[A]}" "3 peers, and no --learning nor --fdb entry: every"
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
	check "$label: A restarts with --learning --max-address 1000" \
		gsotun_start A --learning --max-address 1000
	check "$label: A pings C: C's MAC learnt before the flood" \
		ping_ok "${NS[A]}" "${OV4[C]}"
	mac_flood D 3000
	B_EARLY=0
	! has_mac_b || B_EARLY=1
	check "$label: D's 3000 source MACs filled the table" \
		test "$(learnt_a)" -eq 1000
	check "$label: A says D holds its share, naming D" wait_log \
		"${NS[A]}" "peer ${UL[D]} holds its share of the forwarding"
	check "$label: C's learnt MAC was not taken: it goes to C" \
		unicast_to C
	check "$label: captures on the four underlay ports" caps_start
	check "$label: A pings B, whose MAC it has not learnt yet" \
		ping_ok "${NS[A]}" "${OV4[B]}"
	check "$label: 64 MiB A->B after the flood, SHA-256 match" \
		xfer "${NS[A]}" "${NS[B]}" "${OV4[B]}" big
	caps_stop
	check "$label: A->B reached B's port and not one packet of it D's" \
		unicast_only A B 100
	check "$label: B's MAC took one of D's places, D replaced its own" \
		learnt_once
	check "$label: the table still holds 1000" test "$(learnt_a)" -eq 1000
	ip netns exec "${NS[B]}" "$PYTHON" "$LIB_DIR/mesh-send.py" \
		"${UL[A]}" "${MAC[A]}" 3 "${MAC[C]}" >/dev/null
	check "$label: C's MAC seen behind B: A says it moved" wait_log \
		"${NS[A]}" "${MAC[C]} (VLAN 0) moved from peer ${UL[C]} to peer"
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
}

# peers_file H...: A's peers file with hosts H, and an fdb entry each.
peers_file()
{
	local h

	echo "# A's peers, written by mesh.sh"
	for h in "$@"; do
		echo "remote ${UL[$h]}"
		echo "fdb ${MAC[$h]}=${UL[$h]}  # $h"
	done
}

# peer_lines_are NS H...: the last counters dump of NS has a line for
# each of the hosts H and for no other peer.
peer_lines_are()
{
	local got want='' h

	got=$(awk '/tx_frames=/ { last = block; block = ""; next }
		/^peer / { block = block " " $2 }
		END { print last }' "${GT_ERR[$1]}")
	shift
	for h in "$@"; do
		want+=" ${UL[$h]}"
	done
	[ "$got" = "$want" ] || { diag "peer lines:$got, want$want"; return 1; }
}

# Phase 5: peers come and go with SIGHUP while traffic flows.
phase_reload()
{
	local label="mesh/$fam reload" file=$LIB_TMP/peers.A i

	peers_file B C D >"$file"
	check "$label: gsotun starts on A with --peers (B, C, D)" \
		gt_start "${NS[A]}" "${DEV[A]}" --local "${UL[A]}" \
		--peers "$file" --address "${OV4[A]}/24" \
		--address "${OV6[A]}/64"
	ip -n "${NS[A]}" link set "${DEV[A]}" address "${MAC[A]}"
	check "$label: A pings D" ping_ok "${NS[A]}" "${OV4[D]}"
	xfer_bg "${NS[A]}" "${NS[B]}" "${OV4[B]}" huge 120
	for ((i = 0; i < 100; i++)); do
		[ -s "$XRECV" ] && break
		sleep 0.05
	done
	peers_file B C >"$file"
	kill -HUP "${GT_PID[${NS[A]}]}"
	check "$label: SIGHUP without D: A says D is gone" \
		wait_log "${NS[A]}" "2 peers (0 new, 1 gone), 2 static"
	check "$label: 256 MiB A->B across the change, SHA-256 match" \
		xfer_bg_wait
	check "$label: A no longer reaches D" \
		eval "! ping_ok ${NS[A]} ${OV4[D]}"
	gt_counters "${NS[A]}"
	# D, which still has A as a peer, may send a broadcast: not taken.
	check "$label: A dropped nothing but from D (rx_drop_source)" \
		ctr_drops_zero "${GT_CTR//rx_drop_source=/}"
	check "$label: B's counters show no drop" \
		test "$(peer_ctr A B peer_tx_drops)" -eq 0
	check "$label: the counters have lines for B and C, none for D" \
		peer_lines_are "${NS[A]}" B C
	echo "remote not-an-address" >>"$file"
	kill -HUP "${GT_PID[${NS[A]}]}"
	check "$label: a broken file changes nothing (logged)" \
		wait_log "${NS[A]}" "line 6: invalid remote 'not-an-address': not an IPv4 or IPv6 address"
	check "$label: A still pings B" ping_ok "${NS[A]}" "${OV4[B]}"
	peers_file B C D >"$file"
	kill -HUP "${GT_PID[${NS[A]}]}"
	check "$label: SIGHUP with D again: A says so" \
		wait_log "${NS[A]}" "3 peers (1 new, 0 gone), 3 static"
	check "$label: A reaches D again" ping_ok "${NS[A]}" "${OV4[D]}"
	check "$label: A stops cleanly on SIGTERM" gt_stop "${NS[A]}"
}

# route_mtu H MTU|del: A's route to H's underlay address with MTU, or
# back to the subnet's.
route_mtu()
{
	local plen=32 v=-4

	[ "$fam" = 6 ] && plen=128 v=-6
	if [ "$2" = del ]; then
		ip -n "${NS[A]}" "$v" route del "${UL[$1]}/$plen"
	else
		ip -n "${NS[A]}" "$v" route replace "${UL[$1]}/$plen" \
			dev "${VETH[A]}" mtu "$2"
	fi
}

# df_ping H: two pings of the tap's MTU with DF from A to H.
df_ping()
{
	ip netns exec "${NS[A]}" ping -n -q -c 2 -W 2 -M "do" \
		-s $((mtu - 28)) "${OV4[$1]}" >/dev/null 2>&1
}

# Phase 6: a path MTU per peer.
phase_pmtu()
{
	local label="mesh/$fam pmtu" small=$((mtu - 100)) flags

	mapfile -t flags < <(fdb_flags A)
	check "$label: gsotun starts on A, --mtu auto" \
		gsotun_start A "${flags[@]}"
	route_mtu D 1400
	check "$label: a 1400-byte route to D: A's tap MTU follows ($small)" \
		wait_tap_mtu "${NS[A]}" "${DEV[A]}" "$small"
	gt_counters "${NS[A]}"
	check "$label: path MTU 1400 to D, 1500 to B and C" \
		test "$(peer_ctr A D path_mtu) $(peer_ctr A B path_mtu)" = \
		"1400 1500" -a "$(peer_ctr A C path_mtu)" = 1500
	route_mtu D del
	check "$label: the route gone: A's tap MTU back to $mtu" \
		wait_tap_mtu "${NS[A]}" "${DEV[A]}" "$mtu"
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
	route_mtu D 1400
	check "$label: gsotun starts on A with --mtu $mtu" \
		gsotun_start A "${flags[@]}" --mtu "$mtu"
	check "$label: full-size DF ping to B passes" df_ping B
	df_ping D
	check "$label: to D it is answered with D's MTU ($small)" \
		eval "ip -n ${NS[A]} route get ${OV4[D]} | grep -q 'mtu $small'"
	check "$label: B's route keeps the tap's MTU" \
		eval "! ip -n ${NS[A]} route get ${OV4[B]} | grep -q ' mtu '"
	route_mtu D del
	check "$label: A stops cleanly" gt_stop "${NS[A]}"
}

declare -A CAPF CAPP
mesh_setup
make_data big 64
make_data huge 256
phase_static
phase_learning
phase_hostile
phase_share
phase_reload
phase_pmtu
done_testing
