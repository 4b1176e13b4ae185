#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Quick start: install what is missing (the build and iperf3 only), build,
# then join two network namespaces with the kernel's own vxlan and time
# 10 s of iperf3 through it, then the same with a gsotun VXLAN tunnel, and
# print both and their ratio: what gsotun is worth here is its share of
# the kernel's speed on the same machine, in the same run.
#
# Usage (as root): contrib/demo.sh       GSOTUN=/path/to/gsotun to pick a build
#                                        DEMO_TIME=10, seconds per stream

top=$(cd "$(dirname "$0")/.." && pwd)
ns_a=gdA$$ ns_b=gdB$$
pids=()
tmp=

die()
{
	echo "demo.sh: $*" >&2
	exit 1
}

cleanup()
{
	local pid ns

	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${pids[@]}"; do
		timeout 5 tail --pid="$pid" -f /dev/null 2>/dev/null ||
			kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ns in "$ns_a" "$ns_b"; do
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$tmp" ] && rm -rf "$tmp"
}

build()
{
	cd "$top" || exit 1
	[ -x configure ] || ./autogen.sh || die "autogen.sh failed"
	[ -f Makefile ] || ./configure || die "configure failed"
	make -j2 || die "make failed"
}

# kernel_endpoint NS LOCAL REMOTE ADDRESS: the kernel's vxlan in NS, as
# the README's Usage makes it, up and addressed.
kernel_endpoint()
{
	local ns=$1

	ip -n "$ns" link add vx0 type vxlan id 1 local "$2" remote "$3" \
		dstport 4789 dev veth0 || die "cannot create a vxlan device"
	ip -n "$ns" addr add "$4" dev vx0 && ip -n "$ns" link set vx0 up ||
		die "cannot bring up the vxlan device in $ns"
}

# stream ADDR: GBITS, the Gbit/s of one TCP stream from ns_a to ADDR in
# ns_b, for DEMO_TIME seconds (iperf3). Not in a command substitution:
# the server's PID must reach cleanup(), and die() the script.
stream()
{
	local out i

	ip netns exec "$ns_a" ping -q -c 3 -i 0.2 -W 2 "$1" >/dev/null ||
		die "no ping through the tunnel to $1"
	ip netns exec "$ns_b" iperf3 -s -1 -B "$1" >/dev/null 2>&1 &
	pids+=($!)
	for ((i = 0; i < 50; i++)); do
		ip netns exec "$ns_b" ss -Htln 'sport = :5201' |
			grep -qF " $1:5201 " && break
		sleep 0.1
	done
	out=$(ip netns exec "$ns_a" timeout $((secs + 20)) iperf3 -c "$1" \
		-t "$secs" -f g) || die "iperf3 failed: $out"
	GBITS=$(awk '/receiver/ {
		for (i = 2; i <= NF; i++)
			if ($i == "Gbits/sec")
				print $(i - 1)
	}' <<<"$out")
	[ -n "$GBITS" ] || die "no throughput in iperf3's output: $out"
}

# endpoint NS LOCAL REMOTE ADDRESS: a gsotun in NS, up and addressed.
endpoint()
{
	local ns=$1 i

	ip netns exec "$ns" "$gsotun" --dev gsotun0 --encap vxlan \
		--local "$2" --remote "$3" --address "$4" \
		</dev/null >/dev/null 2>"$tmp/$ns.log" &
	pids+=($!)
	for ((i = 0; i < 100; i++)); do
		ip -n "$ns" -o addr show dev gsotun0 2>/dev/null |
			grep -q "inet $4" && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$tmp/$ns.log" >&2
	die "gsotun did not come up in namespace $ns"
}

[ "$(id -u)" -eq 0 ] || die "run me as root: I create namespaces and taps"
secs=${DEMO_TIME:-10}
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "DEMO_TIME must be a number of seconds"
"$top/contrib/deps.sh" demo || die "installing dependencies failed"
gsotun=${GSOTUN:-$top/src/gsotun}
if [ ! -x "$gsotun" ]; then
	echo "demo.sh: building gsotun in $top"
	build
fi

trap cleanup EXIT
trap 'exit 1' INT TERM
tmp=$(mktemp -d) || die "mktemp failed"

echo "demo.sh: namespaces $ns_a and $ns_b joined by veth (MTU 1500)"
ip netns add "$ns_a" && ip netns add "$ns_b" ||
	die "cannot create network namespaces"
ip -n "$ns_a" link add veth0 type veth peer name veth0 netns "$ns_b" ||
	die "cannot create veth"
ip -n "$ns_a" addr add 198.18.0.1/24 dev veth0
ip -n "$ns_b" addr add 198.18.0.2/24 dev veth0
for ns in "$ns_a" "$ns_b"; do
	ip -n "$ns" link set lo up
	ip -n "$ns" link set veth0 up
done

echo "demo.sh: the kernel's vxlan 10.43.0.1 <-> 10.43.0.2," \
	"one TCP stream for $secs s (iperf3)"
kernel_endpoint "$ns_a" 198.18.0.1 198.18.0.2 10.43.0.1/24
kernel_endpoint "$ns_b" 198.18.0.2 198.18.0.1 10.43.0.2/24
stream 10.43.0.2
kernel=$GBITS
# Its port is gsotun's: gone before gsotun starts.
ip -n "$ns_a" link del vx0
ip -n "$ns_b" link del vx0

echo "demo.sh: gsotun VXLAN 10.42.0.1 <-> 10.42.0.2," \
	"one TCP stream for $secs s (iperf3)"
endpoint "$ns_a" 198.18.0.1 198.18.0.2 10.42.0.1/24
endpoint "$ns_b" 198.18.0.2 198.18.0.1 10.42.0.2/24
stream 10.42.0.2
gbits=$GBITS

echo
echo "    the kernel's vxlan, one TCP stream: $kernel Gbit/s"
echo "    gsotun VXLAN tunnel, one TCP stream: $gbits Gbit/s" \
	"($(awk -v g="$gbits" -v k="$kernel" \
		'BEGIN { printf "%.0f", (k > 0) ? 100 * g / k : 0 }')% of the" \
	"kernel's)"
echo
# What the tunnel says of itself, as an operator would ask it.
gsotunctl=${GSOTUNCTL:-$(dirname "$gsotun")/gsotunctl}
if [ -x "$gsotunctl" ]; then
	echo "demo.sh: gsotunctl show, in namespace $ns_a:"
	ip netns exec "$ns_a" "$gsotunctl" show | sed 's/^/    /'
fi
