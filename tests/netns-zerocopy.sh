#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --zerocopy: large sends go by io_uring SENDMSG_ZC, each set of buffers
# held until the kernel's notification.
# - Over a 1500-byte underlay a UDP GSO run large enough has too many
#   fragments for one zero-copy skb (two iovecs a segment, at most 17
#   pages): none goes zero-copy, and none fails with EMSGSIZE to be
#   split (tx_gso_oversize); 32 MiB arrive intact.
# - Over a 64 KB underlay a TSO frame goes as one datagram of up to
#   64 KB, zero-copy if its pages fit: 32 MiB of TCP each way arrive
#   intact, and of 60000-byte UDP datagrams, which always fit, A counts
#   the zero-copy sends (a veth copies them at local delivery anyway, which
#   the notification says: tx_zerocopy_copied), drops nothing and stops
#   cleanly.
# - A tbf qdisc on A's veth holds the packets, so the notifications come
#   late, as task work that never signals the ring's eventfd: a one-way
#   UDP stream (no answer wakes A's loop) must still flow to its end, A
#   reaping them, or its tap stays unread for good.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 180 socat tc
net_setup 4 38
make_data big 32

# copied_at_most_sent: the kernel cannot have copied more than were sent.
copied_at_most_sent()
{
	local z c

	z=$(ctr "$GT_CTR" tx_zerocopy) c=$(ctr "$GT_CTR" tx_zerocopy_copied)
	[ -n "$c" ] && [ "$c" -le "$z" ]
}

# counters_are NAME=VALUE...: A's counters so.
counters_are()
{
	local kv v

	gt_counters "$NS_A" || return 1
	for kv in "$@"; do
		v=$(ctr "$GT_CTR" "${kv%%=*}")
		[ "${v:-0}" = "${kv#*=}" ] ||
			{ diag "${kv%%=*}=${v:-0}, want ${kv#*=}"; return 1; }
	done
}

# udp_stream N: N datagrams of 60000 bytes A->B by socat, one way; how
# many arrived in GOT.
udp_stream()
{
	local got=$LIB_TMP/udp.got rpid

	rm -f "$got"
	ip netns exec "$NS_B" timeout 30 socat -u -T 3 -b 65536 \
		UDP4-RECV:9000 "OPEN:$got,creat,trunc" </dev/null \
		>/dev/null 2>&1 &
	rpid=$!
	track_pid "$rpid"
	sleep 0.3
	head -c $(($1 * 60000)) /dev/zero |
		ip netns exec "$NS_A" timeout 15 socat -u -b 60000 - \
			"UDP4-SENDTO:$OV4_B:9000" >/dev/null 2>&1
	# socat -T 3 ends 3 s after the last datagram came.
	wait "$rpid"
	forget_pid "$rpid"
	GOT=$(($(stat -c %s "$got" 2>/dev/null || echo 0) / 60000))
}

# zc_stream: 50 datagrams of 60000 bytes, a TSO frame's size that always
# fits 17 pages (a 64 KB one, with its headers, may not): A sent at
# least 10 zero-copy. Unpaced, many overflow socat's socket in B: the
# transfers above are what says the data is intact.
zc_stream()
{
	udp_stream 50
	diag "$GOT of 50 datagrams arrived"
	ctr_ge "$NS_A" tx_zerocopy 10
}

check "--zerocopy, a 1500-byte underlay: both ends up" ends_start --zerocopy
check "32 MiB A->B intact" xfer "$NS_A" "$NS_B" "$OV4_B" big
check "no run went zero-copy, none was split (too many fragments)" \
	counters_are tx_zerocopy=0 tx_gso_oversize=0
check "both stop cleanly" ends_stop

ip -n "$NS_A" link set dev "$VETH_A" mtu 65535
ip -n "$NS_B" link set dev "$VETH_B" mtu 65535
check "--zerocopy, a 64 KB underlay: both ends up" \
	ends_start --zerocopy --mtu 65000
check "32 MiB A->B intact" xfer "$NS_A" "$NS_B" "$OV4_B" big
check "32 MiB B->A intact" xfer "$NS_B" "$NS_A" "$OV4_A" big
check "A sent zero-copy (tx_zerocopy >= 10)" zc_stream
check "tx_zerocopy_copied <= tx_zerocopy" copied_at_most_sent
check "A dropped nothing" ctr_drops_zero "$GT_CTR"
check "both stop cleanly, their counters printed" ends_stop

# late_notifs: 400 such datagrams, paced by the tbf; most arrive (B's
# sockets drop what they cannot hold) and they went zero-copy; then A
# reads all of 20 more from its tap (tx_frames): it is read again, no
# set of buffers is still held for a notification.
late_notifs()
{
	local before after

	udp_stream 400
	diag "$GOT of 400 datagrams arrived"
	ctr_ge "$NS_A" tx_zerocopy 100 || return 1
	[ "$GOT" -ge 200 ] || return 1
	before=$(ctr "$GT_CTR" tx_frames)
	udp_stream 20
	gt_counters "$NS_A" || return 1
	after=$(ctr "$GT_CTR" tx_frames)
	diag "then A read $((after - before)) of 20, $GOT arrived"
	[ $((after - before)) -ge 20 ]
}

tc -n "$NS_A" qdisc add dev "$VETH_A" root tbf rate 400mbit burst 256kb \
	limit 16mb 2>/dev/null || {
	diag "no tbf qdisc here: late notifications not tested"
	done_testing
}
check "--zerocopy over a 64 KB MTU, a slow qdisc: both up" \
	ends_start --zerocopy --mtu 65000
check "a one-way UDP stream of 60 KB datagrams flows to its end" \
	late_notifs
check "both stop cleanly" ends_stop

done_testing
