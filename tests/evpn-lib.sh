# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# What the EVPN namespace tests (netns-evpn-kernel, -fabric, -resync)
# share, sourced after lib.sh: a namespace's port on the underlay bridge
# "ul" in NS_S, B's kernel VTEP, and A's counters (the waits, until_ok,
# are lib.sh's).

# ul_port NS ADDR: NS's veth to the underlay bridge, with ADDR.
ul_port()
{
	local ns=$1 name=u${1:2:1}$$

	ip -n "$NS_S" link add "s${name:1}" type veth peer name "$name" \
		netns "$ns" &&
		ip -n "$NS_S" link set "s${name:1}" master ul up &&
		ip -n "$ns" addr add "$2/24" dev "$name" &&
		ip -n "$ns" link set "$name" up
}

# vtep_b: the kernel's vxlan VNI on B (vx100, no learning) in bridge
# br100 (MAC BMAC, OV_B/24), both up: the far VTEP of the fabric.
vtep_b()
{
	ip -n "$NS_B" link add vx100 type vxlan id "$VNI" local "$UL_B" \
		dstport 4789 nolearning &&
		ip -n "$NS_B" link add br100 address "$BMAC" type bridge &&
		ip -n "$NS_B" link set vx100 master br100 &&
		ip -n "$NS_B" addr add "$OV_B/24" dev br100 &&
		ip -n "$NS_B" link set br100 up &&
		ip -n "$NS_B" link set vx100 up
}

# counter NAME: A's counter NAME into CNT.
counter()
{
	CNT=
	ctl_ok "$NS_A" stats || return 1
	CNT=$(ctr "$OUT" "$1")
	[ -n "$CNT" ] || { diag "no counter $1"; return 1; }
}

# counter_ge NAME MIN: A's counter NAME is MIN or more.
counter_ge()
{
	counter "$1" || return 1
	[ "$CNT" -ge "$2" ] || { diag "$1=$CNT, want >= $2"; return 1; }
}
