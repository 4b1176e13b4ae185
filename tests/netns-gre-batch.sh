#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A raw GRE socket is read in batches larger than a UDP socket's (issue
# 38): it has no GRO, so 64 KB is some 44 packets, and 32 a call cost
# bulk TCP 9-12 system calls per 64 KB received. B's gsotun is stopped
# (SIGSTOP) while A sends N inner UDP datagrams over gre, which wait in
# B's socket; let go, B must take them in calls of more than 32 packets
# on average (rx_segments / rx_calls; the calls are recvmmsg(2)), and
# with --no-offload in calls of one.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping "$PYTHON"
net_setup 4 7
GT_ARGS=(--encap gre)
# 1000 bytes of UDP payload, 1066 on the wire: 1 MB of socket buffer
# (truesize) for 400, within the 4 MiB gsotun asks for. And well under
# A's tap queue (1000 frames): a burst of 1000 lost some there when A
# fell behind the sender on a loaded machine.
N=400

# burst: N datagrams from A to B's overlay address, sent while B is
# stopped, so that B finds them all queued when it goes on.
burst()
{
	ip netns exec "$NS_A" "$PYTHON" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[2])):
    s.sendto(b"x" * 1000, (sys.argv[1], 9))
' "$OV4_B" "$N"
}

# counted NS NAME V0 WHAT: until NS's counter NAME is N over V0; its
# counters then in GT_CTR. WHAT says it in the diagnostic.
counted()
{
	local i

	for ((i = 0; i < 50; i++)); do
		gt_counters "$1" || return 1
		[ "$(ctr "$GT_CTR" "$2")" -ge $(($3 + N)) ] && return 0
		sleep 0.1
	done
	diag "$4 $(($(ctr "$GT_CTR" "$2") - $3)) of $N"
	return 1
}

# per_call many|one: N datagrams queued at a stopped B, then B's calls
# took more than 32 packets on average (many), or one each (one).
per_call()
{
	local s0 r0 c0 segs calls pb=${GT_PID[$NS_B]}

	ping_ok "$NS_A" "$OV4_B" || { diag "no ping over the tunnel"; return 1; }
	gt_counters "$NS_A" || return 1
	s0=$(ctr "$GT_CTR" tx_segments)
	gt_counters "$NS_B" || return 1
	r0=$(ctr "$GT_CTR" rx_segments) c0=$(ctr "$GT_CTR" rx_calls)
	[ -n "$c0" ] || { diag "B has no rx_calls counter"; return 1; }
	kill -STOP "$pb" || return 1
	if ! burst || ! counted "$NS_A" tx_segments "$s0" "A sent"; then
		kill -CONT "$pb"
		return 1
	fi
	kill -CONT "$pb" || return 1
	counted "$NS_B" rx_segments "$r0" "B received" || return 1
	segs=$(($(ctr "$GT_CTR" rx_segments) - r0))
	calls=$(($(ctr "$GT_CTR" rx_calls) - c0))
	diag "B: $segs packets in $calls receive calls"
	[ "$calls" -gt 0 ] || return 1
	case $1 in
	many) [ $((segs / calls)) -gt 32 ] ;;
	one) [ "$segs" -eq "$calls" ] ;;
	esac
}

check "both ends start (gre)" ends_start
check "$N packets queued: more than 32 a receive call" per_call many
check "both ends exit 0 on SIGTERM" ends_stop
check "both ends start (gre, --no-offload)" ends_start --no-offload
check "$N packets queued, --no-offload: one a receive call" per_call one
check "both ends exit 0 on SIGTERM (--no-offload)" ends_stop
done_testing
