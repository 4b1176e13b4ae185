#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Faults around a running gsotun pair: the peer restarts, the underlay goes
# down and up, the peer becomes unreachable, the tap is taken down and up,
# SIGTERM lands in the middle of transfers (issue 5, "Faults").
#
# Usage: faults.sh vxlan|gre|gre-udp 4|6   (the underlay family)
#
# lib.sh's two namespaces; A suffers the faults, B is its peer. After each
# fault of cases 1-4: A is still running with its tap's MTU, A counted the
# fault on the counter named, pings come back by themselves within
# $FAULTS_RESUME seconds (default 10) of the path being back, a 4 MiB
# transfer keeps its SHA-256, and no drop counter moved on either end but
# those the fault explains.
#   1. peer restart: B gets SIGTERM and is started again. While it is
#      away B's kernel answers with ICMP "destination unreachable" (port,
#      or protocol for raw GRE without ip_gre): A's tx_icmp_unreach;
#      tx_drop_send allowed. The neighbour entries A holds for B's tap
#      (IPv4 and IPv6) were fresh when B stopped, so the pings must come
#      back through them.
#   2. underlay down and up (A's veth): the route to B goes, and A drops
#      what it would send to B without a send: tx_drop_peer_no_route
#      (tx_drop_send too, for a send before the route watch). An IPv6
#      underlay address goes with the link (keep_addr_on_down is 0); it is
#      put back after up, as the network configuration would.
#   3. the peer unreachable, two ways:
#      a. an "unreachable" route to B in A: A drops what it would send
#         to B without a send, tx_drop_peer_no_route;
#      b. B's underlay address is removed: A's ARP or neighbour
#         discovery fails and the kernel reports "host unreachable" (or
#         "address unreachable") to the socket: A's tx_icmp_unreach.
#         B, its address gone, has no route to A: its tx_drop_peer_no_route.
#         A's neighbour entry for B is flushed first, as if it had expired
#         (that takes 30 s and more on its own).
#   4. A's tap set down and up: B's pings make A's tap writes fail with
#      EIO: A's rx_drop_write. The IPv4 address stays on a down device;
#      the kernel removes the IPv6 ones: IPv6 is checked only when its
#      address is there after up (a diagnostic says which).
#   5. SIGTERM to A, then to B, each while two 64 MiB transfers run (A->B
#      over IPv4, B->A over IPv6; the veths are shaped to 200 Mbit/s so
#      the transfers last seconds): exit 0 within 5 s, counters printed,
#      tap removed (gt_stop), the signal came with both transfers under
#      way, and nothing is left running in that namespace.
# Last, nothing in any gsotun's stderr is a sanitizer or valgrind report
# (for GSOTUN set to an ASan/UBSan build).
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

encap=$1
fam=$2
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case "$encap/$fam" in
vxlan/[46] | gre/[46] | gre-udp/[46]) ;;
*) bail "usage: faults.sh vxlan|gre|gre-udp 4|6" ;;
esac

lib_init 150 socat ping
net_setup "$fam" 1
make_data small 4
make_data big 64
RESUME=${FAULTS_RESUME:-10}
plen=24 host=32 nodad=()
[ "$fam" = 6 ] && plen=64 host=128 nodad=(nodad)

case $encap in
vxlan) extra=(--vni 42) ;;
*) extra=(--key 7) ;;
esac

start_a()
{
	gt_start "$NS_A" "$TAP_A" --encap "$encap" \
		--local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" --address "$OV6_A/64" "${extra[@]}"
}

start_b()
{
	gt_start "$NS_B" "$TAP_B" --encap "$encap" \
		--local "$UL_B" --remote "$UL_A" \
		--address "$OV4_B/24" --address "$OV6_B/64" "${extra[@]}"
}

# a_alive: A's gsotun still runs and its tap kept the MTU of the start.
a_alive()
{
	local pid=${GT_PID[$NS_A]} mtu

	if [ -z "$pid" ] || ! pid_alive "$pid"; then
		diag "gsotun in A is gone"
		gt_log "$NS_A"
		return 1
	fi
	mtu=$(tap_mtu "$NS_A" "$TAP_A")
	[ "$mtu" = "$MTU" ] || { diag "A's tap MTU $mtu, was $MTU"; return 1; }
}

# snap: both ends' counters in CA and CB (empty for an end not running).
snap()
{
	CA='' CB=''
	[ -n "${GT_PID[$NS_A]}" ] && gt_counters "$NS_A" && CA=$GT_CTR
	[ -n "${GT_PID[$NS_B]}" ] && gt_counters "$NS_B" && CB=$GT_CTR
}

# drops_only LABEL BEFORE AFTER ALLOWED: no drop counter but those named in
# ALLOWED (space-separated) moved between the two lines.
drops_only()
{
	local moved w bad=

	[ -n "$3" ] || { diag "$1: no counters"; return 1; }
	moved=$(ctr_moved "$2" "$3" '[rt]x_drop_[a-z0-9_]+')
	for w in $moved; do
		[[ " $4 " == *" ${w%%=*} "* ]] || bad="$bad $w"
	done
	[ -n "$moved" ] && diag "$1 drops: $moved"
	[ -z "$bad" ] || { diag "$1: unexplained drops:$bad"; return 1; }
}

# quiet A0 ALLOWED_A B0 ALLOWED_B: counters now against A0 and B0.
quiet()
{
	local st=0

	snap
	drops_only A "$1" "$CA" "$2" || st=1
	drops_only B "$3" "$CB" "$4" || st=1
	return "$st"
}

# provoke NS ADDR END NAME BASE SECONDS: ping ADDR from NS ten times a
# second until the counter NAME of END's gsotun is past BASE, for at most
# SECONDS.
provoke()
{
	local ns=$1 addr=$2 end=$3 name=$4 base=$5 limit=$6 pid i v=

	ip netns exec "$ns" ping -n -q -i 0.1 -W 1 -w "$limit" "$addr" \
		>/dev/null 2>&1 &
	pid=$!
	track_pid "$pid"
	for ((i = 0; i < limit * 4; i++)); do
		sleep 0.25
		gt_counters "$end" || break
		v=$(ctr "$GT_CTR" "$name")
		[ "${v:-0}" -gt "${base:-0}" ] && break
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	forget_pid "$pid"
	diag "$end: $name ${base:-0} -> ${v:-none}"
	[ "${v:-0}" -gt "${base:-0}" ]
}

# resumed NS SECONDS ADDR...: every ADDR answers a ping from NS within
# SECONDS; a diagnostic gives the time each took.
resumed()
{
	local ns=$1 limit=$2 t0 a left next

	shift 2
	left=("$@")
	t0=$(now_us)
	while :; do
		next=()
		for a in "${left[@]}"; do
			if ip netns exec "$ns" ping -n -q -c 1 -W 1 "$a" \
				>/dev/null 2>&1; then
				diag "$a answered after $(since "$t0") s"
			else
				next+=("$a")
			fi
		done
		left=("${next[@]}")
		[ ${#left[@]} -eq 0 ] && return 0
		if [ $(($(now_us) - t0)) -ge $((limit * 1000000)) ]; then
			diag "no answer from ${left[*]} in $limit s"
			return 1
		fi
		sleep 0.2
	done
}

# now_us: microseconds since the epoch (bash 5's $EPOCHREALTIME).
now_us()
{
	echo "${EPOCHREALTIME/[.,]/}"
}

# since T0: seconds since now_us said T0, to a tenth.
since()
{
	local d=$(($(now_us) - $1))

	echo "$((d / 1000000)).$((d / 100000 % 10))"
}

# resumed_a ADDR...: resumed from A. When it fails, the neighbour entries
# on A's tap are shown and flushed, so that the next cases start clean.
resumed_a()
{
	resumed "$NS_A" "$RESUME" "$@" && return 0
	diag "A's neighbours on its tap:" \
		"$(ip -n "$NS_A" neigh show dev "$TAP_A")" \
		"B's tap: $(ip -n "$NS_B" -o link show dev "$TAP_B" |
			grep -o 'link/ether [0-9a-f:]*')"
	ip -n "$NS_A" neigh flush dev "$TAP_A"
	resumed "$NS_A" 5 "$@" >/dev/null
	return 1
}

# ---------------------------------------------------------------- start

ends_start()
{
	start_a && start_b
}

check "$encap/$fam: gsotun starts on both ends" ends_start ||
	bail "gsotun does not start"
MTU=$(tap_mtu "$NS_A" "$TAP_A")
# Both families from A, so A holds neighbour entries for B's tap.
check "$encap/$fam: the tunnel carries pings, IPv4 and IPv6" \
	resumed "$NS_A" 10 "$OV4_B" "$OV6_B" || bail "the tunnel is down"

# ---------------------------------------------------------------- 1

r="1. peer restart"
snap
A0=$CA
check "$r: B exits 0 on SIGTERM and removes its tap" gt_stop "$NS_B"
check "$r: A counts the peer's ICMP unreachable (tx_icmp_unreach)" \
	provoke "$NS_A" "$OV4_B" "$NS_A" tx_icmp_unreach \
	"$(ctr "$A0" tx_icmp_unreach)" 5
check "$r: B starts again" start_b
check "$r: A ran throughout, its tap MTU unchanged" a_alive
check "$r: pings resume by themselves within $RESUME s, IPv4 and IPv6" \
	resumed_a "$OV4_B" "$OV6_B"
check "$r: 4 MiB A->B over IPv4 after, SHA-256 matches" \
	xfer "$NS_A" "$NS_B" "$OV4_B" small
check "$r: 4 MiB B->A over IPv6 after, SHA-256 matches" \
	xfer "$NS_B" "$NS_A" "$OV6_A" small
check "$r: no drop counter moved but A's tx_drop_send" \
	quiet "$A0" tx_drop_send "" ""

# recovered B_ALLOWED: after a fault with A0/B0 taken before it: A ran
# throughout, pings resume by themselves, a transfer is intact, and no
# drop counter moved but A's tx_drop_send and tx_drop_peer_no_route and
# B's B_ALLOWED ("" for none).
recovered()
{
	check "$r: A ran throughout, its tap MTU unchanged" a_alive
	check "$r: pings resume by themselves within $RESUME s" \
		resumed_a "$OV4_B" "$OV6_B"
	check "$r: 4 MiB A->B over IPv4 after, SHA-256 matches" \
		xfer "$NS_A" "$NS_B" "$OV4_B" small
	check "$r: no drop counter moved but tx_drop_send, peer_no_route" \
		quiet "$A0" "tx_drop_send tx_drop_peer_no_route" "$B0" "$1"
}

# ---------------------------------------------------------------- 2

r="2. underlay down and up"
snap
A0=$CA B0=$CB
ip -n "$NS_A" link set "$VETH_A" down
check "$r: A counts what it does not send (tx_drop_peer_no_route)" \
	provoke "$NS_A" "$OV4_B" "$NS_A" tx_drop_peer_no_route \
	"$(ctr "$A0" tx_drop_peer_no_route)" 5
ip -n "$NS_A" link set "$VETH_A" up
if [ "$fam" = 6 ]; then
	diag "A's veth after up: $(ip -n "$NS_A" -o addr show dev "$VETH_A" |
		awk '{ printf "%s ", $4 }')"
	ip -n "$NS_A" addr replace "$UL_A/$plen" dev "$VETH_A" nodad
fi
wait_underlay || diag "the underlay does not answer after up"
recovered tx_drop_send

# ---------------------------------------------------------------- 3a

r="3a. unreachable route to the peer"
snap
A0=$CA B0=$CB
ip -n "$NS_A" route add unreachable "$UL_B/$host"
check "$r: A counts what it does not send (tx_drop_peer_no_route)" \
	provoke "$NS_A" "$OV4_B" "$NS_A" tx_drop_peer_no_route \
	"$(ctr "$A0" tx_drop_peer_no_route)" 5
ip -n "$NS_A" route del unreachable "$UL_B/$host"
wait_underlay || diag "the underlay does not answer after the route went"
recovered ""

# ---------------------------------------------------------------- 3b

r="3b. the peer's underlay address gone"
snap
A0=$CA B0=$CB
ip -n "$NS_B" addr del "$UL_B/$plen" dev "$VETH_B"
ip -n "$NS_A" neigh flush dev "$VETH_A"
check "$r: A counts the unreachable reports (tx_icmp_unreach)" \
	provoke "$NS_A" "$OV4_B" "$NS_A" tx_icmp_unreach \
	"$(ctr "$A0" tx_icmp_unreach)" 10
ip -n "$NS_B" addr add "$UL_B/$plen" dev "$VETH_B" "${nodad[@]}"
wait_underlay || diag "the underlay does not answer after the address"
# B, its address gone, has no route to A either while it is away.
recovered "tx_drop_send tx_drop_peer_no_route"

# ---------------------------------------------------------------- 4

r="4. A's tap down and up"
snap
A0=$CA B0=$CB
ip -n "$NS_A" link set "$TAP_A" down
check "$r: A counts the tap writes that fail (rx_drop_write)" \
	provoke "$NS_B" "$OV4_A" "$NS_A" rx_drop_write \
	"$(ctr "$A0" rx_drop_write)" 5
ip -n "$NS_A" link set "$TAP_A" up
check "$r: A ran throughout, its tap MTU unchanged" a_alive
check "$r: A's tap is up with its IPv4 address" \
	dev_ready "$NS_A" "$TAP_A" "$OV4_A/24"
check "$r: pings from B resume by themselves within $RESUME s" \
	resumed "$NS_B" "$RESUME" "$OV4_A"
check "$r: 4 MiB B->A over IPv4 after, SHA-256 matches" \
	xfer "$NS_B" "$NS_A" "$OV4_A" small
if dev_ready "$NS_A" "$TAP_A" "$OV6_A/64"; then
	check "$r: IPv6 pings from B resume within $RESUME s" \
		resumed "$NS_B" "$RESUME" "$OV6_A"
else
	diag "A's tap lost $OV6_A/64 when it went down; IPv6 not checked:" \
		"$(ip -n "$NS_A" -o addr show dev "$TAP_A" |
			awk '{ printf "%s ", $4 }')" \
		"put back by hand for case 5"
	ip -n "$NS_A" addr add "$OV6_A/64" dev "$TAP_A" nodad
fi
check "$r: no drop counter moved but A's rx_drop_write" \
	quiet "$A0" rx_drop_write "$B0" ""

# ---------------------------------------------------------------- 5

# bulk_start: 64 MiB A->B over IPv4 and B->A over IPv6 in the background;
# their receivers write $LIB_TMP/bulk.{ab,ba}.
bulk_start()
{
	local i

	BULK_PIDS=()
	rm -f "$LIB_TMP"/bulk.*
	bulk_one "$NS_B" "TCP4-LISTEN:7001,reuseaddr" "$NS_A" \
		"TCP4:$OV4_B:7001" ab || return 1
	bulk_one "$NS_A" "TCP6-LISTEN:7002,reuseaddr" "$NS_B" \
		"TCP6:[$OV6_A]:7002" ba || return 1
	# Both under way: 4 MiB arrived each way (10 s for four socat to
	# start on a busy machine).
	for ((i = 0; i < 200; i++)); do
		[ "$(bulk_size ab)" -ge 4194304 ] &&
			[ "$(bulk_size ba)" -ge 4194304 ] && return 0
		sleep 0.05
	done
	diag "transfers not under way: $(bulk_size ab) and $(bulk_size ba)" \
		"bytes arrived" "$(cat "$LIB_TMP"/bulk.*.err)"
	return 1
}

# bulk_one TO_NS LISTEN FROM_NS CONNECT NAME
bulk_one()
{
	local port=${2#*:}

	port=${port%%,*}
	ip netns exec "$1" timeout 60 socat -u -b 262144 "$2" \
		"CREATE:$LIB_TMP/bulk.$5" </dev/null >/dev/null \
		2>"$LIB_TMP/bulk.$5.rx.err" &
	BULK_PIDS+=($!)
	track_pid $!
	wait_listen "$1" "$port" || { diag "no listener on $port"; return 1; }
	ip netns exec "$3" timeout 60 socat -u -b 262144 \
		"OPEN:$LIB_TMP/big,rdonly" "$4" </dev/null >/dev/null \
		2>"$LIB_TMP/bulk.$5.tx.err" &
	BULK_PIDS+=($!)
	track_pid $!
}

bulk_size()
{
	stat -c %s "$LIB_TMP/bulk.$1" 2>/dev/null || echo 0
}

bulk_stop()
{
	local pid

	for pid in "${BULK_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${BULK_PIDS[@]}"; do
		wait_gone "$pid" 30 || kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		forget_pid "$pid"
	done
	BULK_PIDS=()
}

# mid_transfer: neither transfer had finished when the signal came (the
# sizes were taken just before gt_stop).
mid_transfer()
{
	local full

	full=$(stat -c %s "$LIB_TMP/big")
	diag "arrived at the signal: $((SIZE_AB / 1048576)) MiB A->B, $((
		SIZE_BA / 1048576)) MiB B->A"
	[ "$SIZE_AB" -lt "$full" ] && [ "$SIZE_BA" -lt "$full" ]
}

# ns_empty NS: no process left in NS (within 3 s).
ns_empty()
{
	local i left

	for ((i = 0; i < 30; i++)); do
		left=$(ip netns pids "$1")
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	diag "left in $1:" "$(ps -o pid=,args= -p "${left//$'\n'/,}")"
	return 1
}

# shape NS DEV: 200 Mbit/s out of DEV, so 64 MiB takes about 3 s.
shape()
{
	tc -n "$1" qdisc replace dev "$2" root tbf rate 200mbit \
		burst 256kb latency 100ms 2>/dev/null ||
		diag "no tbf shaping on $2: the transfers may end too soon"
}

# sigterm_case END NS: SIGTERM to END's gsotun in NS while bulk runs.
sigterm_case()
{
	local end=$1 ns=$2

	r="5. SIGTERM to $end mid-transfer"
	if ! check "$r: two 64 MiB transfers under way" bulk_start; then
		bulk_stop
		fail_skipped "no transfers" \
			"$r: $end exits 0, prints counters, removes its tap"
		return
	fi
	SIZE_AB=$(bulk_size ab) SIZE_BA=$(bulk_size ba)
	check "$r: $end exits 0 within 5 s, prints counters, removes its tap" \
		gt_stop "$ns"
	gt_show "$end at exit"
	check "$r: the signal came before either transfer had finished" \
		mid_transfer
	bulk_stop
	check "$r: nothing left running in $end's namespace" ns_empty "$ns"
}

shape "$NS_A" "$VETH_A"
shape "$NS_B" "$VETH_B"
sigterm_case A "$NS_A"
check "5. A starts again" start_a
check "5. the tunnel carries pings again" \
	resumed "$NS_A" "$RESUME" "$OV4_B" "$OV6_B"
sigterm_case B "$NS_B"
check "5. A exits 0 on SIGTERM and removes its tap" gt_stop "$NS_A"

# reports_none: no sanitizer or valgrind report in the stderr of any
# gsotun run here (meant for GSOTUN set to an ASan/UBSan build).
reports_none()
{
	local re='ERROR: [A-Za-z]*Sanitizer|Sanitizer has encountered'

	re="$re|runtime error:|ERROR SUMMARY: [1-9]"
	re="$re|(definitely|indirectly) lost: [1-9]"
	if grep -Eq "$re" "$LIB_TMP"/gsotun.*.err; then
		diag "$(grep -E -A 12 "$re" "$LIB_TMP"/gsotun.*.err |
			head -n 40)"
		return 1
	fi
}

check "no sanitizer or valgrind report from any gsotun" reports_none

done_testing
