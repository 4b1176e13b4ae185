#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --evpn against a fabric that overruns, fills or lies (issue 35),
# with FRR's zebra emulated by hand with bridge(8) as in
# tests/netns-evpn-kernel.sh: what zebra installs on the shadow vxlan
# device is written there directly.
#
# A runs gsotun --evpn (VTEP 198.18.0.1); B is a standard Linux VTEP (a
# vxlan device in a bridge, 198.18.0.2); the other VTEPs the fabric names
# (198.18.0.3 and up) are addresses of the underlay with nobody behind.
#
#   1. overrun: 3,000 MACs and the flood entry of VTEP C withdrawn while
#      gsotun is stopped and 60,000 other changes overrun its netlink
#      socket (ENOBUFS): once it runs again, C and its MACs are gone, B
#      and its MAC stay (tests/netns-evpn-resync.sh has the harder case).
#   2. share: 6,000 MACs from VTEP D fill the table (4,096), the rest
#      counted; 20 MACs of VTEP E are taken all the same (D gives up
#      some of its own, counted), and frames to them go to E alone, none
#      flooded to D.
#   3. bad VTEPs: flood entries of 0.0.0.0, 127.0.0.1, multicast and
#      broadcast addresses and one of the tap's overlay prefix, and a MAC
#      behind the latter, refused and counted; none is a peer.
#   4. --evpn-vteps: a bad value exits 64; with 1 (per cent of 1024
#      slots) the fabric makes 10 peers of 11 VTEPs, the 11th counted,
#      and `peer add` still finds room.
#   5. adoption: a shadow vxlan device of another VNI, there before
#      gsotun, is refused at start (exit 1, said); the shadow vxlan
#      device deleted at run time is noticed, said, and made again, and
#      the fabric's entries written on it are taken.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"
. "${TESTS_DIR:-$(dirname "$0")}/evpn-lib.sh"

lib_init 240 ping bridge jq "$PYTHON" tcpdump

CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"

NS_S=efS$$ NS_A=efA$$ NS_B=efB$$
TAP=gF$$
VNI=100
UL_A=198.18.0.1 UL_B=198.18.0.2 UL_C=198.18.0.3 UL_D=198.18.0.4
UL_E=198.18.0.5
OV_A=10.100.0.1 OV_B=10.100.0.2
BMAC=02:b0:00:00:00:02
ZERO=00:00:00:00:00:00
# C's MACs (check 1), D's and E's (check 2).
N_C=3000 N_D=6000 N_E=20

for ns in "$NS_S" "$NS_A" "$NS_B"; do
	ns_add "$ns"
	# No IPv6: nothing flooded from the tap while frames are counted.
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 || bail "sysctl in $ns"
done
ip -n "$NS_S" link add ul type bridge || bail "no underlay bridge"
ip -n "$NS_S" link set ul up
ul_port "$NS_A" "$UL_A" && ul_port "$NS_B" "$UL_B" ||
	bail "cannot make the underlay"
VETH_B=uB$$
vtep_b || bail "cannot make B's VTEP"
wait_underlay

# ---------------------------------------------------------------- helpers

# zebra VERB MAC VTEP: what zebra does on A's shadow vxlan device.
zebra()
{
	local extra=(self extern_learn)

	[ "$2" = "$ZERO" ] && extra=(self permanent)
	[ "$1" = del ] && extra=(self)
	ip netns exec "$NS_A" bridge fdb "$1" "$2" dev "gsvx$VNI" dst "$3" \
		"${extra[@]}"
}

# macs PREFIX N: N MACs 02:PREFIX:00:00:hh:ll.
macs()
{
	local i

	for ((i = 0; i < $2; i++)); do
		printf '02:%s:00:00:%02x:%02x\n' "$1" $((i >> 8)) $((i & 255))
	done
}

# zebra_batch VERB PREFIX N VTEP: VERB the N MACs of PREFIX behind VTEP,
# in one bridge -batch.
zebra_batch()
{
	local extra='self extern_learn'

	[ "$1" = del ] && extra=self
	macs "$2" "$3" | sed "s|.*|fdb $1 & dev gsvx$VNI dst $4 $extra|" \
		>"$LIB_TMP/batch" &&
		ip netns exec "$NS_A" bridge -batch "$LIB_TMP/batch"
}

# peers_are ADDR...: gsotun's peers are exactly ADDR.
peers_are()
{
	local want got a

	want=$(for a in "$@"; do echo "$a"; done | sort)
	ctl_ok "$NS_A" --json show || return 1
	got=$(jq -r '.peers[] | .address' <<<"$OUT" | sort)
	[ "$got" = "$want" ] ||
		{ diag "peers: ${got//$'\n'/, }; want ${want//$'\n'/, }"; \
		  return 1; }
}

# fabric_macs VTEP: how many of gsotun's entries are the fabric's,
# behind VTEP.
fabric_macs()
{
	ctl_ok "$NS_A" --json fdb show || return 1
	jq --arg d "$1" '[.fdb[] | select(.dst == $d and
		.source == "evpn")] | length' <<<"$OUT"
}

fabric_macs_are()
{
	local n

	n=$(fabric_macs "$1") || return 1
	[ "$n" -eq "$2" ] ||
		{ diag "$n fabric MACs behind $1, want $2"; return 1; }
}

# start_a ARGS...: gsotun --evpn in A, its PID in A_PID; B is told of
# it as zebra on B would (A's flood entry and its tap's MAC).
start_a()
{
	local amac

	gt_start "$NS_A" "$TAP" --vni "$VNI" --local "$UL_A" --evpn \
		--address "$OV_A/24" -v "$@" || return 1
	A_PID=${GT_PID[$NS_A]}
	amac=$(ip -n "$NS_A" -j link show dev "$TAP" | jq -r '.[0].address')
	ip netns exec "$NS_B" bridge fdb append "$ZERO" dev vx100 \
		dst "$UL_A" self permanent 2>/dev/null
	ip netns exec "$NS_B" bridge fdb replace "$amac" dev vx100 \
		dst "$UL_A" self extern_learn
}

# ---------------------------------------------------------------- 1: overrun

start_a || bail "gsotun --evpn does not start"

# A bridge of A's namespace, not gsotun's, whose changes overrun the
# watch: every RTNLGRP_NEIGH listener hears of them.
ip -n "$NS_A" link add nb$$ type bridge &&
	ip -n "$NS_A" link add nd$$ type veth peer name ne$$ &&
	ip -n "$NS_A" link set nd$$ master nb$$ &&
	ip -n "$NS_A" link set nb$$ up && ip -n "$NS_A" link set nd$$ up &&
	ip -n "$NS_A" link set ne$$ up ||
	bail "cannot make the noise bridge"
# noise N: N entries added to the noise bridge and deleted again.
noise()
{
	{
		macs 0e "$1" | sed "s|.*|fdb add & dev nd$$ master static|"
		macs 0e "$1" | sed "s|.*|fdb del & dev nd$$ master|"
	} >"$LIB_TMP/noise" &&
		ip netns exec "$NS_A" bridge -batch "$LIB_TMP/noise"
}

overrun_setup()
{
	zebra append "$ZERO" "$UL_B" && zebra add "$BMAC" "$UL_B" &&
		zebra append "$ZERO" "$UL_C" &&
		zebra_batch add c0 "$N_C" "$UL_C" || return 1
	until_ok 100 fabric_macs_are "$UL_C" "$N_C" &&
		peers_are "$UL_B" "$UL_C"
}
check "overrun: $N_C MACs of C and B's taken" overrun_setup

overrun()
{
	local r0

	counter evpn_resyncs || return 1
	r0=$CNT
	kill -STOP "$A_PID" || return 1
	zebra_batch del c0 "$N_C" "$UL_C" && zebra del "$ZERO" "$UL_C" &&
		noise 30000
	kill -CONT "$A_PID"
	until_ok 200 peers_are "$UL_B" || return 1
	until_ok 100 fabric_macs_are "$UL_C" 0 &&
		fabric_macs_are "$UL_B" 1 && counter_ge evpn_resyncs $((r0 + 1))
}
check "overrun: C withdrawn while the watch overran: C and its MACs go" \
	overrun
check "overrun: ping A -> B still" ping_ok "$NS_A" "$OV_B"

# ---------------------------------------------------------------- 2: share

# frames_to PREFIX N: one frame from A's tap to each of N MACs of PREFIX,
# of a local experimental EtherType (0x88b5), 5 ms apart.
frames_to()
{
	ip netns exec "$NS_A" "$PYTHON" -c '
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
p = int(sys.argv[2], 16)
for i in range(int(sys.argv[3])):
    dst = bytes([2, p, 0, 0, i >> 8, i & 255])
    s.send(dst + bytes.fromhex("02aa00000001") + b"\x88\xb5" + bytes(50))
    time.sleep(0.005)
' "$TAP" "$1" "$2"
}

# peer_ctr JSON VTEP NAME: the counter NAME of the peer VTEP in `show`.
peer_ctr()
{
	jq -r --arg a "$2" --arg n "$3" '.peers[] | select(.address == $a) |
		.counters[$n]' <<<"$1"
}

share_fill()
{
	zebra append "$ZERO" "$UL_D" && zebra_batch add d0 "$N_D" "$UL_D" ||
		return 1
	# B holds 1: D fills the rest, then holds its share (half) and more.
	until_ok 100 fabric_macs_are "$UL_D" 4095 &&
		until_ok 50 counter_ge evpn_remote_share $((N_D - 4095))
}
check "share: $N_D MACs of D: the table full, the overflow counted" \
	share_fill

# sent_ge VTEP BEFORE N: A's tx_packets to VTEP is N more than in the
# show --json BEFORE.
sent_ge()
{
	ctl_ok "$NS_A" --json show &&
		[ $(($(peer_ctr "$OUT" "$1" tx_packets) -
			$(peer_ctr "$2" "$1" tx_packets))) -ge "$3" ]
}

share_e()
{
	local before after fd pe

	zebra append "$ZERO" "$UL_E" && zebra_batch add e0 "$N_E" "$UL_E" ||
		return 1
	until_ok 50 fabric_macs_are "$UL_E" "$N_E" || return 1
	fabric_macs_are "$UL_D" $((4095 - N_E)) &&
		fabric_macs_are "$UL_B" 1 &&
		counter_ge evpn_remote_evicted "$N_E" || return 1
	ctl_ok "$NS_A" --json show || return 1
	before=$OUT
	frames_to e0 "$N_E"
	# Sent as gsotun reads them from the tap: waited for, then what
	# went to D is looked at.
	until_ok 50 sent_ge "$UL_E" "$before" "$N_E"
	ctl_ok "$NS_A" --json show || return 1
	after=$OUT
	fd=$(($(peer_ctr "$after" "$UL_D" tx_flood) -
		$(peer_ctr "$before" "$UL_D" tx_flood)))
	pe=$(($(peer_ctr "$after" "$UL_E" tx_packets) -
		$(peer_ctr "$before" "$UL_E" tx_packets)))
	diag "$N_E frames to E's MACs: flooded to D $fd, sent to E $pe"
	[ "$fd" -eq 0 ] && [ "$pe" -ge "$N_E" ]
}
check "share: $N_E MACs of E taken from D's; frames to them go to E alone" \
	share_e

# ---------------------------------------------------------------- 3: bad

# What the kernel's vxlan takes of these is written; each must be
# refused, counted, and no peer.
BAD=(0.0.0.0 127.0.0.1 224.0.0.5 239.1.1.1 255.255.255.255 10.100.0.7)
bad_vteps()
{
	local a n=0
	for a in "${BAD[@]}"; do
		zebra append "$ZERO" "$a" 2>/dev/null && n=$((n + 1))
	done
	zebra add 02:bd:00:00:00:01 10.100.0.7 && n=$((n + 1))
	diag "${#BAD[@]} flood entries and a MAC: $n written"
	# Each refused as gsotun reads it: the count waited for, then none
	# more, and no peer, no MAC of them.
	until_ok 50 counter_ge evpn_bad_vtep "$n"
	peers_are "$UL_B" "$UL_D" "$UL_E" && fabric_macs_are 10.100.0.7 0 &&
		counter evpn_bad_vtep && [ "$CNT" -eq "$n" ] ||
		{ diag "evpn_bad_vtep=$CNT, want $n"; return 1; }
}
check "bad VTEPs: 0.0.0.0, loopback, multicast, broadcast, overlay refused" \
	bad_vteps

# ---------------------------------------------------------------- 4: vteps

check "vteps: gsotun exits 0" gt_stop "$NS_A"
vteps_bad()
{
	local v

	for v in 0 101 x; do
		ip netns exec "$NS_A" "$GSOTUN" --dev "$TAP" --vni "$VNI" \
			--local "$UL_A" --evpn --evpn-vteps "$v" \
			>/dev/null 2>"$LIB_TMP/vteps.err"
		[ $? -eq 64 ] && grep -q "evpn-vteps" "$LIB_TMP/vteps.err" &&
			continue
		diag "--evpn-vteps $v:" "$(cat "$LIB_TMP/vteps.err")"
		return 1
	done
}
check "vteps: --evpn-vteps 0, 101, x: exit 64" vteps_bad

# 1% of the 1024 peer slots: 10 VTEPs of the fabric at most.
vteps_share()
{
	local i n0

	start_a --evpn-vteps 1 || return 1
	counter evpn_remote_full || return 1
	n0=$CNT
	zebra append "$ZERO" "$UL_B" && zebra add "$BMAC" "$UL_B" || return 1
	for ((i = 100; i < 110; i++)); do
		zebra append "$ZERO" "198.18.0.$i" || return 1
	done
	until_ok 30 counter_ge evpn_remote_full $((n0 + 1)) || return 1
	ctl_ok "$NS_A" --json show &&
		[ "$(jq '.peers | length' <<<"$OUT")" -eq 10 ] ||
		{ diag "peers:" "$(jq -r '.peers[].address' <<<"$OUT")"; \
		  return 1; }
	# One by hand still fits beside them.
	ctl_ok "$NS_A" peer add 198.18.0.200 && ctl_ok "$NS_A" --json show &&
		[ "$(jq '.peers | length' <<<"$OUT")" -eq 11 ]
}
check "vteps: --evpn-vteps 1: 10 of 11 fabric VTEPs, the 11th counted" \
	vteps_share

# ---------------------------------------------------------------- 5: adopt

# stopped: gsotun, if it runs, exits 0.
stopped()
{
	[ -z "${GT_PID[$NS_A]}" ] || gt_stop "$NS_A"
}
check "adopt: gsotun exits 0" stopped
adopt_wrong()
{
	local st pid

	ip -n "$NS_A" link add "gsbr$VNI" type bridge &&
		ip -n "$NS_A" link add "gsvx$VNI" type vxlan id 200 \
			local "$UL_A" dstport 64789 nolearning &&
		ip -n "$NS_A" link set "gsvx$VNI" master "gsbr$VNI" || return 1
	ip netns exec "$NS_A" "$GSOTUN" --dev "$TAP" --vni "$VNI" \
		--local "$UL_A" --evpn --address "$OV_A/24" \
		>/dev/null 2>"$LIB_TMP/adopt.err" </dev/null &
	pid=$!
	track_pid "$pid"
	wait_gone "$pid" 100 || kill "$pid"
	wait "$pid"
	st=$?
	forget_pid "$pid"
	ip -n "$NS_A" link del "gsvx$VNI"
	ip -n "$NS_A" link del "gsbr$VNI"
	[ "$st" -eq 1 ] && grep -q "gsvx$VNI is there, but" \
		"$LIB_TMP/adopt.err" ||
		{ diag "status $st:" "$(tail -n 3 "$LIB_TMP/adopt.err")"; \
		  return 1; }
}
check "adopt: a shadow vxlan device of VNI 200 refused at start, exit 1" \
	adopt_wrong

# shadow_ok: gsvx is the vxlan device zebra needs, in the bridge, up.
shadow_ok()
{
	ip -n "$NS_A" -d -j link show dev "gsvx$VNI" 2>/dev/null | jq -e \
		--arg l "$UL_A" --argjson v "$VNI" --arg br "gsbr$VNI" \
		'.[0] | .master == $br and (.flags | index("UP")) and
		(.linkinfo.info_data | .id == $v and .local == $l and
		 .port == 64789)' >/dev/null
}
remade()
{
	start_a || return 1
	until_ok 30 shadow_ok || return 1
	ip -n "$NS_A" link del "gsvx$VNI" || return 1
	wait_log "$NS_A" "shadow device gsvx$VNI deleted" &&
		until_ok 50 shadow_ok &&
		until_ok 30 counter_ge evpn_shadow_remade 1 || return 1
	# zebra writes the VNI's entries on the new device.
	zebra append "$ZERO" "$UL_B" && zebra add "$BMAC" "$UL_B" &&
		until_ok 30 fabric_macs_are "$UL_B" 1 &&
		ping_ok "$NS_A" "$OV_B"
}
check "adopt: the shadow vxlan device deleted at run time: said, made again" \
	remade

done_testing
