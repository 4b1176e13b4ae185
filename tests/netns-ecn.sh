#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ECN through the tunnel (RFC 6040): a CE mark on an outer header reaches
# the inner packet when it is ECN-capable and drops it when it is not;
# with --tos inherit the inner ECN field goes out on the outer header.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 tcpdump ping "$PYTHON"
"$PYTHON" -c 'import scapy.all' 2>/dev/null ||
	bail "python3-scapy is missing (contrib/deps.sh installs it)"
net_setup 4 12
ECN_PY=$LIB_DIR/ecn.py
GT_ARGS=(--vni 42 --tos inherit)

check "both ends start with --tos inherit" ends_start

# Outer CE at B: inner ECT(1), ECT(0) and CE arrive marked CE, Not-ECT is
# dropped (rx_drop_ecn), for IPv4 and IPv6 inside.
decap_ce()
{
	local pcap=$LIB_TMP/ecn-tap.pcap got want before ce drop

	gt_counters "$NS_B" || return 1
	before=$GT_CTR
	cap_start "$NS_B" "$TAP_B" "$pcap" udp and portrange 9000-9003 ||
		return 1
	ip netns exec "$NS_A" "$PYTHON" "$ECN_PY" send "$UL_B" 42 ||
		{ cap_stop; return 1; }
	sleep 0.5
	cap_stop
	got=$("$PYTHON" "$ECN_PY" check "$pcap" | sort | tr '\n' ' ')
	want="v4 9001 3 v4 9002 3 v4 9003 3 v6 9001 3 v6 9002 3 v6 9003 3 "
	[ "$got" = "$want" ] ||
		{ diag "on the tap: $got" "want:      $want"; return 1; }
	gt_counters "$NS_B" || return 1
	ce=$(($(ctr "$GT_CTR" rx_ecn_ce) - $(ctr "$before" rx_ecn_ce)))
	drop=$(($(ctr "$GT_CTR" rx_drop_ecn) - $(ctr "$before" rx_drop_ecn)))
	[ "$ce" -eq 4 ] && [ "$drop" -eq 2 ] ||
		{ diag "rx_ecn_ce +$ce (want 4), rx_drop_ecn +$drop (want 2)"
		  return 1; }
}
check "outer CE: ECT inner packets marked CE, Not-ECT dropped, counted" \
	decap_ce

# ping -Q TOS from A: the outer header B receives carries ECN as RFC 6040
# normal mode says (ECT(0) stays, CE leaves as ECT(0)).
encap_ecn()
{
	local tos=$1 want=$2 pcap=$LIB_TMP/ecn-ul.$1.pcap got

	cap_start "$NS_B" "$VETH_B" "$pcap" udp port 4789 || return 1
	ip netns exec "$NS_A" ping -n -q -c 3 -i 0.2 -W 2 -Q "$tos" "$OV4_B" \
		>/dev/null 2>&1
	cap_stop
	got=$("$PYTHON" "$ECN_PY" outer "$pcap" | sort -u | tr '\n' ' ')
	[ "$got" = "$want " ] ||
		{ diag "outer TOS seen: ${got:-none}, want $want"; return 1; }
}
check "--tos inherit, inner ECT(0): outer ECT(0)" encap_ecn 0xb6 0xb6
check "--tos inherit, inner CE: outer ECT(0)" encap_ecn 0xb7 0xb6
# Five TCP segments in one receive at B, CWR on the third: the tap gets
# the two before it merged, it alone, the two after it merged (Linux
# 6.15's tcp_gro_receive(): CWR joins no run, a run's flags are equal
# but FIN and PSH), with inner IPv4 and IPv6.
cwr_apart()
{
	local pcap=$LIB_TMP/ecn-cwr.pcap got want

	cap_start "$NS_B" "$TAP_B" "$pcap" tcp port 9100 || return 1
	ip netns exec "$NS_A" "$PYTHON" "$ECN_PY" cwr "$UL_B" 42 ||
		{ cap_stop; return 1; }
	sleep 0.5
	cap_stop
	got=$("$PYTHON" "$ECN_PY" runs "$pcap" | tr '\n' ' ')
	want="v4 2000 - v4 1000 cwr v4 2000 - v6 2000 - v6 1000 cwr v6 2000 - "
	[ "$got" = "$want" ] ||
		{ diag "on the tap: $got" "want:       $want"; return 1; }
}
check "CWR mid-run: alone on the tap, the runs beside it merged" cwr_apart
check "both ends stop cleanly" ends_stop

done_testing
