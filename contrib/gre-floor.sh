#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel's own ceiling for raw GRE, with no tunnel around it, beside
# one TCP stream through the kernel's vxlan in the same two namespaces
# (bench.sh's 1.00x): contrib/gre-floor sends 1500-byte GRE packets from
# a raw socket (and from an AF_PACKET socket, past the IP output path) to
# a raw socket that reads them with recvmmsg() or io_uring multishot
# recvmsg. What --encap gre carries is bounded by these figures: it does
# that work and also reads the tap, cuts the frames, merges and writes.
#
# Usage (as root, after `make contrib/gre-floor`; iperf3 for the vxlan
# figure):
#   contrib/gre-floor.sh [SECONDS]   (default 4)
set -eu

secs=${1:-4}
bin=${GRE_FLOOR:-$(dirname "$0")/gre-floor}
[ -x "$bin" ] || { echo "gre-floor.sh: build $bin first" >&2; exit 1; }
a=gfA$$ b=gfB$$
iperf_pid=
cleanup()
{
	[ -n "$iperf_pid" ] && kill "$iperf_pid" 2>/dev/null
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$a"
ip netns add "$b"
ip -n "$a" link add va type veth peer name vb netns "$b"
ip -n "$a" addr add 198.18.21.1/24 dev va
ip -n "$b" addr add 198.18.21.2/24 dev vb
ip -n "$a" link set va up
ip -n "$b" link set vb up
ip netns exec "$a" ping -c 1 -W 2 198.18.21.2 >/dev/null
mac=$(ip -n "$b" -br link show vb | awk '{ print $3 }')

# The sender on the first CPU, the receiver on the last: left to the
# scheduler, the two share a CPU in some runs and the figures halve.
last_cpu=$(($(nproc) - 1))

# floor SENDER-ARGS...: both receivers, each against that sender.
floor()
{
	local mode pid

	for mode in mmsg uring; do
		timeout $((secs + 10)) ip netns exec "$b" \
			taskset -c "$last_cpu" "$bin" recv "$mode" "$secs" &
		pid=$!
		sleep 0.3
		ip netns exec "$a" taskset -c 0 "$bin" send "$@" $((secs + 1))
		wait "$pid"
	done
}

echo "--- raw IPPROTO_GRE socket to raw socket"
floor ip 198.18.21.2
echo "--- AF_PACKET socket (no IP output, no qdisc) to raw socket"
floor packet va "$mac" 198.18.21.1 198.18.21.2

# kvx NS LOCAL REMOTE ADDR: the kernel's vxlan in NS, ADDR/24 on it.
kvx()
{
	ip -n "$1" link add vx type vxlan id 21 local "$2" remote "$3" \
		dstport 4789
	ip -n "$1" addr add "$4/24" dev vx
	ip -n "$1" link set vx up
}

if command -v iperf3 >/dev/null; then
	echo "--- one TCP stream through the kernel's vxlan, same namespaces"
	kvx "$a" 198.18.21.1 198.18.21.2 10.21.0.1
	kvx "$b" 198.18.21.2 198.18.21.1 10.21.0.2
	ip netns exec "$b" iperf3 -s -1 >/dev/null &
	iperf_pid=$!
	sleep 0.5
	ip netns exec "$a" iperf3 -c 10.21.0.2 -t "$secs" -f g |
		awk '/receiver/ { print "vxlan TCP: " $7 " Gbit/s" }'
	wait "$iperf_pid" || true
	iperf_pid=
fi
