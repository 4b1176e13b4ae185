#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One datagram must not become thousands of frames behind the tap (issue
# 12). B's gsotun has its tap in a bridge with a veth whose TSO is off,
# its other end in namespace C; A, the peer's address, sends with scapy
# (tests/amplify.py) VXLAN datagrams of about 64 KB, each one inner TCP
# frame far over the tap's MTU with a good checksum:
#   crafted  a 1384-byte IPv6 destination options header, which would
#            leave 2-byte segments: 32,000 frames each at the veth. It is
#            dropped and counted (rx_drop_oversize); nothing reaches C.
#   legit    ordinary headers, as the kernel's vxlan over a veth sends:
#            cut into MTU-sized segments, about 46 frames each at C.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ethtool tcpdump "$PYTHON"
"$PYTHON" -c 'import scapy.all' 2>/dev/null ||
	bail "$PYTHON cannot import scapy (apt-get install python3-scapy)"
net_setup 4 6
NS_C=gtC$$ BR=br$$ VB=vb$$ VC=vc$$
ip netns add "$NS_C" || bail "cannot create namespace $NS_C"
LIB_NS+=("$NS_C")

N=5

# bridge_up: B's tap and a TSO-less veth in one bridge, IPv6 off on the
# way to C so that nothing but the tunnel's frames cross it.
bridge_up()
{
	ip netns exec "$NS_C" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
		ip -n "$NS_B" link add "$BR" type bridge &&
		ip netns exec "$NS_B" sysctl -qw \
			"net.ipv6.conf.$BR.disable_ipv6=1" &&
		ip -n "$NS_B" link add "$VB" type veth peer name "$VC" \
			netns "$NS_C" &&
		ip netns exec "$NS_B" sysctl -qw \
			"net.ipv6.conf.$VB.disable_ipv6=1" &&
		ip netns exec "$NS_B" sysctl -qw \
			"net.ipv6.conf.$TAP_B.disable_ipv6=1" &&
		ip netns exec "$NS_B" ethtool -K "$VB" tso off gso off \
			>/dev/null &&
		ip -n "$NS_B" link set "$VB" master "$BR" &&
		ip -n "$NS_B" link set "$TAP_B" master "$BR" &&
		ip -n "$NS_B" link set "$VB" up &&
		ip -n "$NS_B" link set "$BR" up &&
		ip -n "$NS_C" link set "$VC" up
}

mac_of()
{
	ip netns exec "$1" cat "/sys/class/net/$2/address"
}

# c_frames PCAP: the frames of amplify.py's inner frames (source MAC
# 02:00:5e:00:0a:xx) a capture in C holds; the bridge itself sends an
# IGMP report or two.
c_frames()
{
	tcpdump -n -r "$1" 'ether[6:4] = 0x02005e00 and ether[10] = 0x0a' \
		2>/dev/null | wc -l
}

# send KIND: N datagrams from A's address, and wait until B has counted
# every fragment of them.
send()
{
	local p0 i

	gt_counters "$NS_B" || return 1
	p0=$(ctr "$GT_CTR" rx_packets)
	ip netns exec "$NS_A" "$PYTHON" "$LIB_DIR/amplify.py" \
		--ifname "$VETH_A" --fam 4 \
		--src-mac "$(mac_of "$NS_A" "$VETH_A")" \
		--dst-mac "$(mac_of "$NS_B" "$VETH_B")" \
		--peer "$UL_A" --dst "$UL_B" "$1" "$N" >"$LIB_TMP/amplify.out" \
		2>&1 || { diag "$(cat "$LIB_TMP/amplify.out")"; return 1; }
	for ((i = 0; i < 50; i++)); do
		gt_counters "$NS_B" || return 1
		[ "$(ctr "$GT_CTR" rx_packets)" -ge $((p0 + N)) ] && break
		sleep 0.1
	done
	sleep 0.5
}

# case KIND DROPS MIN MAX: B's rx_drop_oversize moved by DROPS and C got
# between MIN and MAX frames.
case_run()
{
	local kind=$1 before n d pcap=$LIB_TMP/$1.pcap

	gt_counters "$NS_B" || return 1
	before=$GT_CTR
	cap_start "$NS_C" "$VC" "$pcap" || return 1
	send "$kind" || { cap_stop; return 1; }
	cap_stop
	n=$(c_frames "$pcap")
	gt_counters "$NS_B" || return 1
	d=$(ctr_moved "$before" "$GT_CTR" 'rx_(drop_[a-z_]+|gso_frames)')
	diag "$kind: C got $n frames; B: ${d:-no counter moved}"
	[ "$n" -ge "$3" ] && [ "$n" -le "$4" ] || return 1
	if [ "$2" -gt 0 ]; then
		[ "$d" = "rx_drop_oversize=+$2 " ]
	else
		[ "$d" = "rx_gso_frames=+$N " ]
	fi
}

check "gsotun in B starts" gt_start "$NS_B" "$TAP_B" --encap vxlan --vni 42 \
	--local "$UL_B" --remote "$UL_A"
check "B's tap bridged to a veth without TSO, its peer in C" bridge_up
# 1410-byte segments of 65,445 bytes: 47 frames per datagram.
check "$N legit 64 KB frames: cut at the MTU, 47 frames each at C" \
	case_run legit 0 $((N * 47)) $((N * 47))
check "$N crafted frames (2-byte segments): dropped, counted, none at C" \
	case_run crafted "$N" 0 0
check "gsotun in B exits 0 on SIGTERM" gt_stop "$NS_B"

done_testing
