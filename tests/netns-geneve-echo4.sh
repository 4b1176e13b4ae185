#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --geneve-echo, the appliance behind a Gateway Load Balancer: B runs
# gsotun --encap geneve --mode tun with two peers, the GWLB's two nodes
# (two addresses of A), and no --route. tests/geneve-echo.py, in A,
# sends Geneve packets with the GWLB's options (class 0x0108) from each
# node, inner packets that B's own stack answers (IPv4 and IPv6 pings, a
# TCP SYN to a closed port); every answer must go back to the node its
# flow came from, with the options of the flow's last packet, and none
# to the other node. Then B's own packets of no flow held go as routed
# (none here: dropped), counted.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"
PYTHON=${PYTHON:-python3}
lib_init 120 "$PYTHON"

VNI=4242
net_setup 4 27
UL_A2=198.18.27.3
ip -n "$NS_A" addr add "$UL_A2/24" dev "$VETH_A" ||
	bail "cannot add the second node's address"
OV4_O=10.27.0.1 OV4_B=10.27.0.2 OV6_O=fd00:10:27::1 OV6_B=fd00:10:27::2

gt_start "$NS_B" "$TAP_B" --mode tun --encap geneve --vni "$VNI" \
	--local "$UL_B" --remote "$UL_A" --remote "$UL_A2" \
	--geneve-echo 1024 --address "$OV4_B/24" --address "$OV6_B/64" ||
	bail "gsotun did not start in B"
check "B's counters before" gt_counters "$NS_B"
before=$GT_CTR

# The tun's MTU leaves room for 64 bytes of a flow's options: 1500 - 20
# (IPv4) - 8 (UDP) - 8 (Geneve) - 64.
check "the tun's MTU leaves --geneve-echo-room's 64 bytes" \
	wait_tap_mtu "$NS_B" "$TAP_B" 1400

# The TAP lines of geneve-echo.py, numbered on from ours.
gwlb_run()
{
	local line st=0

	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok [0-9]* - }" ;;
		"not ok "*) ok 1 "${line#not ok [0-9]* - }" || st=1 ;;
		*) echo "$line" ;;
		esac
	done < <(ip netns exec "$NS_A" "$PYTHON" "$LIB_DIR/geneve-echo.py" \
		"$VNI" "$UL_B" "$UL_A" "$UL_A2" "$OV4_O" "$OV4_B" "$OV6_O" \
		"$OV6_B" 2>"$LIB_TMP/gwlb.err")
	[ -s "$LIB_TMP/gwlb.err" ] && diag "$(cat "$LIB_TMP/gwlb.err")"
	return $st
}
gwlb_run

# B's own packet of no flow: no --route with two peers, so dropped as
# unroutable, after the table was asked.
ip netns exec "$NS_B" ping -n -q -c 1 -W 1 10.27.0.77 >/dev/null 2>&1

counters_moved()
{
	local moved

	gt_counters "$NS_B" || return 1
	moved=$(ctr_moved "$before" "$GT_CTR" \
		'tx_echo|tx_echo_miss|rx_echo_new|rx_echo_evicted|tx_drop_no_route')
	diag "moved: $moved"
	# Flows: 2 IPv4 pings, 3 TCP SYNs, 1 IPv6 ping.
	[[ $moved == *"rx_echo_new=+6 "* ]] &&
		[[ $moved == *"tx_drop_no_route=+"* ]] &&
		[[ $moved == *"tx_echo_miss=+"* ]] &&
		[[ $moved =~ tx_echo=\+([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -ge 15 ] &&
		[[ $moved != *rx_echo_evicted* ]]
}
check "6 flows held, none evicted; answers echoed; B's own packet a miss" \
	counters_moved

# show and show --json say how many flows are held, of how many places
# (1024 asked: 256 sets of 4).
echo_shown()
{
	ctl_ok "$NS_B" "$TAP_B" show &&
		has "geneve-echo: 6 flows held of 1024" &&
		ctl_ok "$NS_B" show --json &&
		has '"echo_flows":6,"echo_capacity":1024'
}
check "show: 6 flows held of 1024, in text and JSON" echo_shown

done_testing
