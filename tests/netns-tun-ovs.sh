#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --mode tun against Open vSwitch's userspace datapath as an L3 GRE
# peer: a type=gre port with packet_type=legacy_l3, over IPv4 and IPv6.
#
# B runs its own ovsdb-server and ovs-vswitchd (database, run and log
# directories in the test's temporary directory, killed by PID at exit),
# every bridge datapath_type=netdev:
#   br-phy   B's veth and the internal port br-phy, which holds B's
#            underlay address (OVS's native tunnelling sends through it);
#   br-int   the internal port br-int with B's overlay addresses, and gre0,
#            type=gre, packet_type=legacy_l3 (IP packets in GRE 0x0800 or
#            0x86DD: OVS gives them a dummy Ethernet header of zero MACs
#            coming in, and strips it going out). Flows: from gre0 to
#            LOCAL with br-int's MAC as destination; IP and IPv6 from LOCAL
#            to gre0. br-int has static neighbours for A's addresses.
# OVS 3.1 refuses legacy_l3 on type=ip6gre ("legacy_l3 configured on
# ip6gre tunnel that cannot carry L3 traffic": tunnel_supported_layers()
# has L3 for gre only), but its type=gre takes an IPv6 remote_ip.
#
# Runs: gre over IPv4, over IPv6; key and checksums; key and sequence
# numbers (not OVS's checksums with sequence numbers together: it sums
# before it writes the sequence number, KERNEL-FACTS). Each: pings both
# ways, IPv4 and IPv6 inside, 8 MiB each way, a capture checked by tshark,
# no drop counted by gsotun.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"
. "${TESTS_DIR:-$(dirname "$0")}/ovs-lib.sh"
ovs_init 300

# ovs_gre TYPE-OPTIONS...: gre0 on br-int anew, with remote_ip and
# legacy_l3 and the options given, the flows, br-int's MTU and neighbours.
ovs_gre()
{
	local remote=$1 mtu=$2 mac err

	shift 2
	vsctl --if-exists del-port br-int gre0 &&
		vsctl add-port br-int gre0 -- set interface gre0 type=gre \
			options:remote_ip="$remote" \
			options:packet_type=legacy_l3 "$@" \
			-- set interface br-int mtu_request="$mtu" ||
		{ diag "$(tail -n 5 "$OVS_DIR/ovs-vswitchd.log")"; return 1; }
	err=$(vsctl get interface gre0 error)
	[ "$err" = '[]' ] || { diag "OVS: gre0: $err"; return 1; }
	mac=$(link_attr "$NS_B" br-int link/ether)
	ofctl del-flows br-int &&
		ofctl add-flow br-int \
			"in_port=gre0,actions=mod_dl_dst:$mac,LOCAL" &&
		ofctl add-flow br-int "in_port=LOCAL,ip,actions=output:gre0" &&
		ofctl add-flow br-int \
			"in_port=LOCAL,ipv6,actions=output:gre0" || return 1
	# legacy_l3 strips the Ethernet header: any MAC will do.
	ip -n "$NS_B" neigh replace "$OV4_A" lladdr 02:00:5e:00:53:01 \
		dev br-int nud permanent &&
		ip -n "$NS_B" neigh replace "$OV6_A" \
			lladdr 02:00:5e:00:53:01 dev br-int nud permanent
}

# ovs_seq_rises PCAP ADDR: the GRE packets from ADDR (OVS's) have the S
# bit, and their sequence numbers rise, never going back; by one but for
# a few (a packet OVS numbered and then lost on its way out is a gap).
ovs_seq_rises()
{
	local out src=ip.src n nos back gaps

	[[ $2 == *:* ]] && src=ipv6.src
	out=$(tshark -r "$1" -n -Y "gre && $src == $2" \
		-T fields -e gre.flags.sequence_number -e gre.sequence_number \
		2>/dev/null | awk '
		$1 != "1" && $1 != "True" { nos++; next }
		n && $2 <= last { back++ }
		n && $2 > last + 1 { gaps++ }
		{ last = $2; n++ }
		END { printf "%d %d %d %d", n, nos, back, gaps }')
	read -r n nos back gaps <<<"$out"
	diag "OVS's GRE packets: $n with S, $nos without; $back going" \
		"back, $gaps gaps"
	[ "${n:-0}" -gt 1000 ] && [ "${nos:-1}" -eq 0 ] &&
		[ "${back:-1}" -eq 0 ] && [ $((${gaps:-n} * 100)) -le "$n" ]
}

a_drops_zero()
{
	gt_counters "$NS_A" && gt_show A && ctr_drops_zero "$GT_CTR"
}

# ovs_run FAM MTU OVS-OPTIONS... -- GSOTUN-ARGS...
ovs_run()
{
	local fam=$1 mtu=$2 ovs=() gt=() ul_a ul_b pcap r st want_c

	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		ovs+=("$1")
		shift
	done
	shift
	gt=("$@")
	if [ "$fam" = 6 ]; then
		ul_a=$UL6_A ul_b=$UL6_B
	else
		ul_a=$UL_A ul_b=$UL_B
	fi
	r="OVS gre/$fam${ovs[*]:+ ${ovs[*]}}"
	pcap=$LIB_TMP/ovs.$fam.$((++ovs_n)).pcap
	check "$r: OVS takes gre0 (type=gre, packet_type=legacy_l3)" \
		ovs_gre "$ul_a" "$mtu" "${ovs[@]}" || return
	check "$r: gsotun --mode tun${gt[*]:+ ${gt[*]}} starts in A" \
		gt_start "$NS_A" "$TAP_A" --mode tun --encap gre \
		--local "$ul_a" --remote "$ul_b" \
		--address "$OV4_A/24" --address "$OV6_A/64" "${gt[@]}" ||
		return
	check "$r: the tun's MTU is $mtu" wait_tap_mtu "$NS_A" "$TAP_A" "$mtu"
	ovs_traffic "$r" "$pcap"
	st=$?
	if [ "$st" -eq 0 ] && cap_check "$pcap"; then
		# Every checksum good; the C bit on all or none, as set.
		want_c=0
		[[ " ${ovs[*]} " == *" options:csum=true "* ]] &&
			want_c=${CAP[gre_total]}
		ok $((CAP[gre_total] < 2000 || CAP[gre_bad] != 0 ||
			CAP[tcp_bad] != 0 || CAP[ip_bad] != 0 ||
			CAP[gre_csum] != want_c || CAP[gre_good] != want_c)) \
			"$r: tshark: every checksum good, the C bit on $want_c"
	else
		ok 1 "$r: tshark: every checksum good (no capture)"
	fi
	[[ " ${ovs[*]} " == *" options:seq=true "* ]] && [ "$st" -eq 0 ] &&
		check "$r: OVS's packets carry rising sequence numbers" \
			ovs_seq_rises "$pcap" "$ul_b"
	check "$r: gsotun counted no drop" a_drops_zero
	check "$r: gsotun exits 0 on SIGTERM" gt_stop "$NS_A"
}

ovs_n=0
check "Open vSwitch (userspace datapath) starts in B" ovs_start ||
	{ diag "$(tail -n 10 "$OVS_DIR"/*.log)"; done_testing; }
diag "$(ip netns exec "$NS_B" ovs-vswitchd --version | head -n 1)"

# gre MTU: 1500 - outer IP - 4 (and 4 for each of key, checksum, seq).
ovs_run 4 1476 --
ovs_run 6 1456 --
ovs_run 4 1468 options:key=7 options:csum=true -- --key 7 --csum
ovs_run 6 1448 options:key=7 options:seq=true -- --key 7 --seq

done_testing
