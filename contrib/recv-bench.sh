#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs contrib/recv-bench in two namespaces joined by veth: a UDP GSO
# sender against a UDP GRO receiver, with recvmmsg() and with io_uring
# multishot recvmsg, twice each, and prints what each measured.
#
# Usage (as root, after `make contrib/recv-bench`):
#   contrib/recv-bench.sh [SECONDS]   (default 4)
set -eu

secs=${1:-4}
bin=${RECV_BENCH:-$(dirname "$0")/recv-bench}
[ -x "$bin" ] || { echo "recv-bench.sh: build $bin first" >&2; exit 1; }
a=rbA$$ b=rbB$$
cleanup()
{
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$a"
ip netns add "$b"
ip -n "$a" link add va type veth peer name vb netns "$b"
ip -n "$a" addr add 198.18.20.1/24 dev va
ip -n "$b" addr add 198.18.20.2/24 dev vb
ip -n "$a" link set va up
ip -n "$b" link set vb up
sleep 1
for mode in mmsg uring mmsg uring; do
	ip netns exec "$b" "$bin" "$mode" 9999 "$secs" &
	pid=$!
	sleep 0.3
	ip netns exec "$a" "$bin" send 198.18.20.2 9999 $((secs + 2))
	wait "$pid"
done
