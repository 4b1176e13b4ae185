#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Set-up errors that point at what to change: a tap name taken by another
# device or another gsotun, a --local that is no address here, a second
# gsotun on the port, the kernel's vxlan on the port, and no CAP_NET_ADMIN
# or CAP_NET_RAW. Each is exit status 1 with a message that says what is
# wrong.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 setpriv socat
net_setup 4 22

# fails_with NS WANT ARGS...: gsotun in NS with ARGS exits 1, saying WANT.
fails_with()
{
	local ns=$1 want=$2 out st

	shift 2
	out=$(ip netns exec "$ns" timeout 10 "$@" </dev/null 2>&1)
	st=$?
	if [ "$st" -ne 1 ] || [[ $out != *"$want"* ]]; then
		diag "status $st, want 1 and '$want':" "$out"
		return 1
	fi
}

# As nobody, no capability.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)

ip -n "$NS_A" link add "br$$" type bridge
check "a name taken by a bridge" fails_with "$NS_A" \
	"a device of that name exists and is not a tap" \
	"$GSOTUN" --dev "br$$" --remote "$UL_B" --port 14789
check "gsotun starts on A" gt_start "$NS_A" "$TAP_A" --remote "$UL_B"
check "the same --dev again" fails_with "$NS_A" \
	"a tap of that name is open already" \
	"$GSOTUN" --dev "$TAP_A" --remote "$UL_B" --port 14789
check "the same port again: names the other gsotun" fails_with "$NS_A" \
	"port 4789: another gsotun (pid ${GT_PID[$NS_A]}) has it: one gsotun \
serves several VNIs" "$GSOTUN" --dev "x$$" --remote "$UL_B"
check "a --local that is no address here" fails_with "$NS_A" \
	"--local 198.18.22.9 is not an address of this host" \
	"$GSOTUN" --dev "x$$" --remote "$UL_B" --local 198.18.22.9 \
	--port 14789
check "without CAP_NET_ADMIN" fails_with "$NS_A" \
	"creating a tap needs CAP_NET_ADMIN" \
	"${NOBODY[@]}" "$GSOTUN" --dev "x$$" --remote "$UL_B" --port 14790
check "GRE without CAP_NET_RAW" fails_with "$NS_A" \
	"a raw IP socket needs CAP_NET_RAW" \
	"${NOBODY[@]}" "$GSOTUN" --dev "x$$" --remote "$UL_B" --encap gre
check "none of them left a tap behind" \
	eval "! ip -n $NS_A link show dev x$$ >/dev/null 2>&1"
check "A still stops cleanly" gt_stop "$NS_A"

# Some other process on the port: named, with the fix.
ip netns exec "$NS_A" socat -u UDP4-RECV:14793 /dev/null &
SOCAT=$!
track_pid "$SOCAT"
for ((i = 0; i < 50; i++)); do
	ss -N "$NS_A" -Huln 'sport = :14793' | grep -q . && break
	sleep 0.1
done
check "a port another process holds: names it" fails_with "$NS_A" \
	"port 14793: socat (pid $SOCAT) has it: give --port N" \
	"$GSOTUN" --dev "x$$" --remote "$UL_B" --port 14793
kill "$SOCAT"
wait "$SOCAT" 2>/dev/null
forget_pid "$SOCAT"

# The kernel's vxlan holds its dstport on every address while it is up.
ip -n "$NS_A" link add "vx$$" type vxlan id 42 dstport 14791 dev "$VETH_A"
ip -n "$NS_A" link set "vx$$" up
check "a port the kernel's vxlan holds: names the device and the fix" \
	fails_with "$NS_A" "port 14791: the kernel's vxlan device vx$$ (VNI \
42) uses it on every address: give gsotun another --port" \
	"$GSOTUN" --dev "x$$" --remote "$UL_B" --port 14791
ip -n "$NS_A" link set "vx$$" down
check "the same device down holds nothing: gsotun starts" \
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --port 14791
check "A stops cleanly" gt_stop "$NS_A"
done_testing
