#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One flow, one queue, both ways (issue 26): with --queues 2 at both ends,
# 8 TCP streams each way at once (iperf3 --bidir -P 8) load the tunnel,
# and no end's stack sees one segment out of order: the senders detect no
# reordering from SACKs or timestamps (TcpExtTCPSACKReorder,
# TcpExtTCPTSReorder), while every stream moves data. The receivers'
# out-of-order queue (TcpExtTCPOFOQueue) is said, not held to 0: a
# datagram lost under load (a socket's buffer full) queues the segments
# behind its hole there too, where the senders' counters stay, as a
# retransmission is no late original. That these counters see
# reordering in this set-up is checked too: with A's underlay veth
# sending every other inner segment through a slow HTB class (nothing
# dropped), they must move. With two CPUs or more, --cpus 1,0: each
# queue's thread runs on its CPU.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 90 iperf3 nstat tc ping "$PYTHON"
net_setup 4 26
GT_ARGS=(--queues 2)
[ "$(nproc)" -ge 2 ] && GT_ARGS+=(--cpus 1,0)
# Kept short: the load, not the length, is what would reorder.
SECS=5
COUNTERS=(TcpExtTCPSACKReorder TcpExtTCPTSReorder)
port=5201

# tcpext NS NAME...: the sum of TcpExt counters of NS's stack (nstat,
# no history kept).
tcpext()
{
	local ns=$1

	shift
	ip netns exec "$ns" nstat -asz "$@" |
		awk '!/^#/ { n += $2 } END { print n + 0 }'
}

# tcpext_all NS: "name=value" for every counter of COUNTERS, and OFO's.
tcpext_all()
{
	local c

	for c in TcpExtTCPOFOQueue "${COUNTERS[@]}"; do
		printf '%s=%s ' "${c#TcpExt}" "$(tcpext "$1" "$c")"
	done
}

# iperf NAME ARGS...: an iperf3 client in A against a one-off server in
# B; the client's JSON in $LIB_TMP/NAME.json.
iperf()
{
	local name=$1 spid st

	shift
	port=$((port + 1))
	ip netns exec "$NS_B" timeout $((SECS + 30)) iperf3 -s -1 \
		-B "$OV4_B" -p "$port" </dev/null >/dev/null 2>&1 &
	spid=$!
	track_pid "$spid"
	if ! wait_listen "$NS_B" "$port"; then
		diag "iperf3 does not listen on $port in $NS_B"
		return 1
	fi
	ip netns exec "$NS_A" timeout $((SECS + 20)) iperf3 -c "$OV4_B" \
		-p "$port" -J "$@" </dev/null >"$LIB_TMP/$name.json" 2>&1
	st=$?
	wait "$spid"
	forget_pid "$spid"
	[ "$st" -eq 0 ] || diag "iperf3 $name: status $st" \
		"$(tail -n 5 "$LIB_TMP/$name.json")"
	return "$st"
}

# received NAME: the bytes B received and the bytes A received (0 when
# not bidirectional), from the client's JSON.
received()
{
	"$PYTHON" - "$LIB_TMP/$1.json" <<'EOF'
import json
import sys

with open(sys.argv[1]) as f:
    end = json.load(f)["end"]
rev = end.get("sum_received_bidir_reverse", {"bytes": 0})
print(end["sum_received"]["bytes"], rev["bytes"])
EOF
}

# both_ways: 8 streams A->B and 8 B->A at once; each direction carried
# data, and neither end's stack saw a segment out of order.
both_ways()
{
	local a0 b0 a1 b1 to_b to_a

	a0=$(tcpext "$NS_A" "${COUNTERS[@]}")
	b0=$(tcpext "$NS_B" "${COUNTERS[@]}")
	iperf bidir -t "$SECS" -P 8 --bidir || return 1
	a1=$(tcpext "$NS_A" "${COUNTERS[@]}")
	b1=$(tcpext "$NS_B" "${COUNTERS[@]}")
	read -r to_b to_a < <(received bidir) || return 1
	diag "A->B $((to_b / 1048576)) MiB, B->A $((to_a / 1048576)) MiB" \
		"A: $(tcpext_all "$NS_A")" "B: $(tcpext_all "$NS_B")"
	[ "$to_b" -gt 0 ] && [ "$to_a" -gt 0 ] ||
		{ diag "a direction carried nothing"; return 1; }
	[ $((a1 - a0)) -eq 0 ] && [ $((b1 - b0)) -eq 0 ] ||
		{ diag "out of order: A +$((a1 - a0)), B +$((b1 - b0))"
		  return 1; }
}

# reorder_on: A's veth sends the outer packets whose inner TCP sequence
# number has bit 11 set (every other 2 KiB) through a 200 Mbit/s class,
# the others straight on. The sequence number is at 74 from the outer
# IPv4 header (IPv4 20, UDP 8, VXLAN 8, Ethernet 14, IPv4 20, then 4),
# so its low 16 bits at 76 (u32 wants an offset aligned to the size).
reorder_on()
{
	local dev=(dev "$VETH_A")

	tc -n "$NS_A" qdisc add "${dev[@]}" root handle 1: htb default 10 &&
		tc -n "$NS_A" class add "${dev[@]}" parent 1: classid 1:10 \
			htb rate 100gbit quantum 65536 &&
		tc -n "$NS_A" class add "${dev[@]}" parent 1: classid 1:20 \
			htb rate 200mbit quantum 65536 &&
		tc -n "$NS_A" filter add "${dev[@]}" parent 1: protocol ip \
			u32 match u16 0x800 0x800 at 76 flowid 1:20
}

# reordered: 2 streams A->B through reorder_on's veth: B, the receiver,
# queued segments out of order and A, the sender, detected reordering.
reordered()
{
	local a0 b0 a1 b1

	a0=$(tcpext "$NS_A" TcpExtTCPSACKReorder TcpExtTCPTSReorder)
	b0=$(tcpext "$NS_B" TcpExtTCPOFOQueue)
	iperf reordered -t 2 -P 2 || return 1
	a1=$(tcpext "$NS_A" TcpExtTCPSACKReorder TcpExtTCPTSReorder)
	b1=$(tcpext "$NS_B" TcpExtTCPOFOQueue)
	diag "A: $(tcpext_all "$NS_A")" "B: $(tcpext_all "$NS_B")" \
		"$(tc -n "$NS_A" -s class show dev "$VETH_A" |
			grep -E '^class|Sent')"
	[ $((a1 - a0)) -gt 0 ] && [ $((b1 - b0)) -gt 0 ] ||
		{ diag "not seen: A +$((a1 - a0)), B +$((b1 - b0))"; return 1; }
}

# pinned: each of A's queue threads (gsotun-qN) may run on the N-th CPU
# of --cpus 1,0 alone.
pinned()
{
	local pid=${GT_PID[$NS_A]} t comm cpus want n=0

	for t in /proc/"$pid"/task/*; do
		comm=$(cat "$t/comm")
		case $comm in
		gsotun-q0) want=1 ;;
		gsotun-q1) want=0 ;;
		*) continue ;;
		esac
		cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status")
		diag "$comm: CPUs $cpus"
		[ "$cpus" = "$want" ] || return 1
		n=$((n + 1))
	done
	[ "$n" -eq 2 ]
}

check "both ends start with --queues 2" ends_start
if [ "$(nproc)" -ge 2 ]; then
	check "--cpus 1,0: queue 0's thread on CPU 1, queue 1's on CPU 0" \
		pinned
else
	echo "ok $((tap_n += 1)) - --cpus # SKIP one CPU"
fi
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "8 TCP streams each way at once: data arrived, none reordered" \
	both_ways
check "reordering on the underlay: the counters see it" \
	eval "reorder_on && reordered"
check "both ends exit 0 on SIGTERM and remove their tap" ends_stop

done_testing
