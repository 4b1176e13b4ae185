#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --encap geneve (tap mode) against Open vSwitch's userspace
# datapath as a Geneve peer (RFC 8926): a type=geneve port, key=42 (the
# VNI), UDP port 6081; this kernel has no geneve device.
#
# B runs its own ovsdb-server and ovs-vswitchd, as netns-tun-ovs.sh does
# (every bridge datapath_type=netdev):
#   br-phy   B's veth and the internal port br-phy, which holds B's
#            underlay addresses (OVS's native tunnelling sends through it);
#   br-int   the internal port br-int with B's overlay addresses, and
#            gnv0, type=geneve. Flows: from gnv0 to LOCAL; from LOCAL to
#            gnv0, setting tun_metadata0 where a run sends an option.
#
# Runs, each: pings both ways (IPv4 and IPv6 inside), 8 MiB each way by
# SHA-256, a capture of A's veth read by tshark's geneve dissector (every
# checksum good, the outer UDP checksum present or zero as set, every
# header version 0 and VNI 42), no drop counted by gsotun:
#   IPv4 underlay, checksums off (OVS's default) and on (options:csum);
#   IPv6 underlay (OVS always sums over IPv6);
#   OVS sending a 4-byte option of class 0xffff: gsotun skips it;
#   gsotun sending one (--geneve-opt), which OVS's flow for B requires;
#   OVS sending it with the critical bit (type 0x80): gsotun knows no
#   option, drops every packet of B (rx_drop_geneve_critical), and B's
#   pings go unanswered.
# No run of gsotun --mode tun: OVS 3.1's geneve carries Ethernet only. It
# refuses packet_type=legacy_l3 ("legacy_l3 configured on geneve tunnel
# that cannot carry L3 traffic": tunnel_supported_layers() has L3 for
# gre, vxlan-gpe and a few others), takes ptap, but its receive path
# drops every type but 0x6558 ("unknown geneve encapsulated protocol:
# 0x800", netdev_geneve_pop_header()) and its send path writes 0x6558
# always (netdev_geneve_build_header()).
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"
. "${TESTS_DIR:-$(dirname "$0")}/ovs-lib.sh"
ovs_init 200

# ovs_geneve REMOTE MTU SET OPTIONS...: gnv0 on br-int anew, type=geneve
# with key 42 and the options given, br-int's MTU, and the flows: SET
# (an action such as set_field:...->tun_metadata0, or "") on the way out;
# on the way in only packets that match OVS_IN_MATCH, when set.
ovs_geneve()
{
	local remote=$1 mtu=$2 set=$3 err

	shift 3
	vsctl --if-exists del-port br-int gnv0 &&
		vsctl add-port br-int gnv0 -- set interface gnv0 type=geneve \
			options:remote_ip="$remote" options:key=42 "$@" \
			-- set interface br-int mtu_request="$mtu" ||
		{ diag "$(tail -n 5 "$OVS_DIR/ovs-vswitchd.log")"; return 1; }
	err=$(vsctl get interface gnv0 error)
	[ "$err" = '[]' ] || { diag "OVS: gnv0: $err"; return 1; }
	ofctl del-flows br-int &&
		ofctl add-flow br-int \
			"in_port=gnv0${OVS_IN_MATCH:+,$OVS_IN_MATCH},actions=LOCAL" &&
		ofctl add-flow br-int \
			"in_port=LOCAL,actions=${set:+$set,}output:gnv0"
}

a_drops_zero()
{
	gt_counters "$NS_A" && gt_show A && ctr_drops_zero "$GT_CTR"
}

# a_dropped_critical: gsotun in A dropped B's packets for their critical
# option, and for nothing else.
a_dropped_critical()
{
	local n

	gt_counters "$NS_A" && gt_show A || return 1
	n=$(ctr "$GT_CTR" rx_drop_geneve_critical)
	[ "${n:-0}" -gt 0 ] &&
		ctr_drops_zero "${GT_CTR//rx_drop_geneve_critical=$n/}"
}

# b_pings_fail: B's pings to A go unanswered (A drops B's packets).
b_pings_fail()
{
	! ping_ok "$NS_B" "$OV4_A"
}

# cap_geneve_ok PCAP CSUM [opts]: every checksum good, the outer UDP
# checksums present (CSUM yes) or zero (no), every Geneve header version
# 0 and VNI 42, over 2000 of them; with opts, over 1000 carry options
# (OVS's: gsotun sends none).
cap_geneve_ok()
{
	cap_check "$1" || return 1
	[ -z "$3" ] || [ "${CAP[geneve_opts]}" -gt 1000 ] || return 1
	[ "${CAP[geneve_total]}" -gt 2000 ] &&
		[ "${CAP[geneve_total]}" = "${CAP[udp_total]}" ] &&
		[ "${CAP[geneve_v0]}" = "${CAP[geneve_total]}" ] &&
		[ "${CAP[geneve_vni42]}" = "${CAP[geneve_total]}" ] &&
		[ "${CAP[geneve_eth]}" = "${CAP[geneve_total]}" ] &&
		[ "${CAP[tcp_bad]}" = 0 ] && [ "${CAP[ip_bad]}" = 0 ] &&
		[ "${CAP[udp_bad]}" = 0 ] || return 1
	if [ "$2" = yes ]; then
		[ "${CAP[udp_zero]}" = 0 ]
	else
		[ "${CAP[udp_zero]}" = "${CAP[udp_total]}" ]
	fi
}

# ovs_run FAM CSUM SET OVS-OPTIONS... -- GSOTUN-ARGS...
ovs_run()
{
	local fam=$1 csum=$2 set=$3 ovs=() gt=() ul_a ul_b pcap r st omtu
	local mtu=1450 sums

	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		ovs+=("$1")
		shift
	done
	shift
	gt=("$@")
	if [ "$fam" = 6 ]; then
		ul_a=$UL6_A ul_b=$UL6_B mtu=1430
	else
		ul_a=$UL_A ul_b=$UL_B
	fi
	r="OVS geneve/$fam${ovs[*]:+ ${ovs[*]}}${set:+ $set}"
	r="$r${OVS_IN_MATCH:+ in $OVS_IN_MATCH}"
	# gsotun's own option (--geneve-opt of 4 bytes): 8 bytes off its MTU
	[[ " ${gt[*]} " != *" --geneve-opt "* ]] || mtu=$((mtu - 8))
	pcap=$LIB_TMP/ovs.$fam.$((++ovs_n)).pcap
	# An option of 4 bytes of data is 8 more bytes in OVS's packets.
	omtu=$mtu
	[ -z "$set" ] || omtu=$((mtu - 8))
	check "$r: OVS takes gnv0 (type=geneve, key=42), MTU $omtu" \
		ovs_geneve "$ul_a" "$omtu" "$set" "${ovs[@]}" || return
	check "$r: gsotun --encap geneve --vni 42${gt[*]:+ ${gt[*]}} starts" \
		gt_start "$NS_A" "$TAP_A" --encap geneve --vni 42 \
		--local "$ul_a" --remote "$ul_b" \
		--address "$OV4_A/24" --address "$OV6_A/64" "${gt[@]}" ||
		return
	check "$r: the tap's MTU is $mtu" wait_tap_mtu "$NS_A" "$TAP_A" "$mtu"
	ovs_traffic "$r" "$pcap"
	st=$?
	if [ "$st" -eq 0 ]; then
		sums=zero
		[ "$csum" = no ] || sums=present
		check "$r: tshark: Geneve v0, VNI 42, sums good, UDP's $sums" \
			cap_geneve_ok "$pcap" "$csum" "${set:+opts}"
	else
		ok 1 "$r: tshark: Geneve headers and checksums (no capture)"
	fi
	check "$r: gsotun counted no drop" a_drops_zero
	check "$r: gsotun exits 0 on SIGTERM" gt_stop "$NS_A"
}

# ovs_critical: OVS sends a critical option; gsotun, knowing none, drops
# every packet of B and counts them.
ovs_critical()
{
	local r="OVS geneve/4 critical option (class 0xffff type 0x80)"

	check "$r: OVS takes gnv0" ovs_geneve "$UL_A" 1450 \
		"set_field:0x5a5a5a5a->tun_metadata1" || return
	check "$r: gsotun starts" gt_start "$NS_A" "$TAP_A" --encap geneve \
		--vni 42 --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" --address "$OV6_A/64" || return
	check "$r: B's pings to A go unanswered" b_pings_fail
	check "$r: gsotun dropped B's packets as critical, nothing else" \
		a_dropped_critical
	check "$r: gsotun exits 0 on SIGTERM" gt_stop "$NS_A"
}

ovs_n=0
check "Open vSwitch (userspace datapath) starts in B" ovs_start ||
	{ diag "$(tail -n 10 "$OVS_DIR"/*.log)"; done_testing; }
diag "$(ip netns exec "$NS_B" ovs-vswitchd --version | head -n 1)"
# tun_metadata0: class 0xffff type 0x01, 4 bytes; 1: the same, critical.
tlv0='{class=0xffff,type=0x01,len=4}->tun_metadata0'
tlv1='{class=0xffff,type=0x80,len=4}->tun_metadata1'
check "OVS maps Geneve options to tun_metadata0 and 1" \
	ofctl add-tlv-map br-int "$tlv0,$tlv1"

ovs_run 4 no "" -- --no-csum
ovs_run 4 yes "" options:csum=true -- --csum
ovs_run 6 yes "" options:csum=true -- --csum
ovs_run 4 yes "set_field:0x01020304->tun_metadata0" options:csum=true -- \
	--csum
# gsotun sends an option OVS knows (tun_metadata0), and B's flow takes
# only packets that carry it with that value: the pings and transfers
# prove OVS read it.
OVS_IN_MATCH=tun_metadata0=0x0a0b0c0d ovs_run 4 yes "" options:csum=true -- \
	--csum --geneve-opt ffff:01:0a0b0c0d
ovs_critical

done_testing
