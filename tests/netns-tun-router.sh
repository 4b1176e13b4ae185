#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --mode tun against a router: IP packets in GRE and GRE-in-UDP as
# routers send them (keys, checksums, sequence numbers), built by scapy.
#
# gsotun runs in A; tests/router-gre.py in B is the router, sending whole
# frames on B's veth. For each case it sends:
#   - a good one (ICMP echo, UDP to a closed port, TCP SYN to a listener;
#     GRE 0x0800 or 0x86DD; with gsotun's key, with and without the
#     checksum and sequence numbers; in UDP, with a zero checksum and not)
#     must reach A's tun and be answered by A's kernel: the answers come
#     back out of gsotun, and rx_frames moves by the packets sent, no drop
#     counter at all;
#   - a broken one (wrong checksum, wrong or missing key, missing checksum,
#     TEB or MPLS in tun mode, a protocol type not the inner packet's IP
#     version, a header cut short) must move its own drop counter, and
#     none other, then the fence (a 2-byte GRE header, rx_drop_short);
#   - at the end: every packet gsotun sent, as B's veth saw it, checked
#     field by field by router-gre.py (outer IP, UDP checksum zero or
#     right, GRE protocol by inner family, key, checksum, sequence numbers
#     one up each, inner lengths and checksums), and again by tshark; the
#     capture of A's tun holds each good case's packets once, unchanged,
#     and nothing of a broken one.
#
# The kernel here has no GRE module: B's kernel never sees the tunnel (a
# raw GRE or UDP socket of router-gre.py keeps it from answering with ICMP
# unreachable), and A's only through gsotun.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 150 tcpdump tshark ethtool socat "$PYTHON"
"$PYTHON" -c 'import scapy.all' 2>/dev/null ||
	bail "python3 has no scapy (contrib/deps.sh installs python3-scapy)"
net_setup 4 1
UL6_A=fd00:198:18:1::1 UL6_B=fd00:198:18:1::2
ip -n "$NS_A" addr add "$UL6_A/64" dev "$VETH_A" nodad &&
	ip -n "$NS_B" addr add "$UL6_B/64" dev "$VETH_B" nodad ||
	bail "cannot add the IPv6 underlay"
# gsotun's outer UDP checksums final on the wire (veth leaves them partial).
ip netns exec "$NS_A" ethtool -K "$VETH_A" tx off >/dev/null ||
	bail "ethtool -K $VETH_A tx off failed"
# Every UDP probe gets its port unreachable; fewer SYN-ACK resends.
ip netns exec "$NS_A" sysctl -qw net.ipv4.icmp_ratelimit=0 \
	net.ipv6.icmp.ratelimit=0 net.ipv4.tcp_synack_retries=1 ||
	bail "sysctl in $NS_A failed"
# The TCP SYNs' listener (never accepts: the kernel answers SYN-ACK).
ip netns exec "$NS_A" socat -u TCP6-LISTEN:7777,ipv6only=0,backlog=64 \
	/dev/null </dev/null >/dev/null 2>"$LIB_TMP/listen.err" &
track_pid $!
wait_listen "$NS_A" 7777 || bail "socat does not listen on 7777 in $NS_A"

# mac_of NS DEV
mac_of()
{
	link_attr "$1" "$2" link/ether
}

# router_start ARGS...: router-gre.py in B as a coprocess; its cases go
# into C_KIND, C_CTR, C_N and C_NAME (indexed from 1).
router_start()
{
	local kw idx kind cnt n name line

	coproc ROUTER {
		ip netns exec "$NS_B" "$PYTHON" "$LIB_DIR/router-gre.py" \
			--ifname "$VETH_B" \
			--src-mac "$(mac_of "$NS_B" "$VETH_B")" \
			--dst-mac "$(mac_of "$NS_A" "$VETH_A")" \
			--in4 "$OV4_B,$OV4_A" --in6 "$OV6_B,$OV6_A" \
			"$@" 2>"$LIB_TMP/router.$run.err"
	}
	R_PID=$ROUTER_PID R_OUT=${ROUTER[0]} R_IN=${ROUTER[1]}
	track_pid "$R_PID"
	C_KIND=() C_CTR=() C_N=() C_NAME=()
	while read -r -t 30 -u "$R_OUT" line; do
		[ "$line" = ready ] && return 0
		read -r kw idx kind cnt n name <<<"$line"
		[ "$kw" = case ] || continue
		C_KIND[idx]=$kind C_CTR[idx]=$cnt C_N[idx]=$n C_NAME[idx]=$name
	done
	diag "router-gre.py did not start:" \
		"$(cat "$LIB_TMP/router.$run.err")"
	return 1
}

router_stop()
{
	{ echo quit >&"$R_IN"; } 2>/dev/null
	wait_gone "$R_PID" 50 || kill -TERM "$R_PID" 2>/dev/null
	wait "$R_PID" 2>/dev/null
	forget_pid "$R_PID"
}

# router_ask COMMAND: send a command, its answer in REPLY.
router_ask()
{
	REPLY=
	{ echo "$1" >&"$R_IN"; } 2>/dev/null &&
		read -r -t 30 -u "$R_OUT" REPLY
	[ -n "$REPLY" ] && return 0
	diag "router-gre.py: no answer to $1" \
		"$(tail -n 5 "$LIB_TMP/router.$run.err")"
	return 1
}

# moved: what moved of A's receive counters since BEFORE (moved on).
MOVED_RE='rx_(drop_[a-z0-9_]+|inner_csum_bad|frames|udp_csum_zero)'

# router_case IDX: send case IDX; a good one must be answered and move
# rx_frames (and its counter) by its packets, no drop counter; a drop
# case its own counter only, and the fence's rx_drop_short.
router_case()
{
	local idx=$1 cnt=${C_CTR[$1]} n=${C_N[$1]} k i d exp got
	local -A want

	if [ "${C_KIND[idx]}" = good ]; then
		want[rx_frames]=$n
		[ "$cnt" = - ] || want[$cnt]=$n
	else
		want[rx_drop_short]=1
		want[$cnt]=$((${want[$cnt]:-0} + n))
	fi
	exp=$(for k in "${!want[@]}"; do echo "$k=+${want[$k]}"; done |
		sort | tr '\n' ' ')
	router_ask "send $idx" || return 1
	if [ "${C_KIND[idx]}" = good ] && [ "$REPLY" != "result $idx ok" ]; then
		diag "${REPLY#result "$idx" fail }"
		gt_counters "$NS_A" &&
			diag "A's counters moved by: $(ctr_moved "$BEFORE" \
				"$GT_CTR" "$MOVED_RE")"
		BEFORE=$GT_CTR
		return 1
	fi
	for ((i = 0; i < 50; i++)); do
		gt_counters "$NS_A" || return 1
		[ "${C_KIND[idx]}" = good ] && break
		d=$(($(ctr "$GT_CTR" rx_drop_short) - \
			$(ctr "$BEFORE" rx_drop_short)))
		[ "$d" -ge "${want[rx_drop_short]}" ] && break
		sleep 0.05
	done
	got=$(ctr_moved "$BEFORE" "$GT_CTR" "$MOVED_RE")
	BEFORE=$GT_CTR
	[ "$got" = "$exp" ] ||
		{ diag "A's counters moved by: ${got:-nothing}" \
			"expected: $exp"; return 1; }
}

case_says()
{
	local idx=$1 cnt=${C_CTR[$1]} n=${C_N[$1]} also=

	if [ "${C_KIND[idx]}" = good ]; then
		[ "$cnt" = - ] || also=", $cnt +$n"
		echo "$n answered through gsotun, rx_frames +$n$also," \
			"no drop counted"
	else
		echo "dropped, $cnt +$n and no other counter moved"
	fi
}

# router_wire R: router-gre.py's checks of every packet gsotun sent B.
router_wire()
{
	local r=$1 line kw prop n res
	local -A P N
	local -A say=(
		[outer]="outer IPv$fam header from A to B sane"
		[udp_csum]="outer UDP checksum $udp_say"
		[gre_proto]="GRE 0x0800/0x86DD by inner family, version 0"
		[gre_key]="GRE key: $key_say"
		[gre_csum]="GRE checksum: $csum_say"
		[gre_seq]="GRE sequence numbers: $seq_say"
		[inner]="inner IP lengths and checksums right"
	)

	if { echo wire >&"$R_IN"; } 2>/dev/null; then
		while read -r -t 30 -u "$R_OUT" line; do
			read -r kw prop n res <<<"$line"
			[ "$kw" = end ] && break
			[ "$kw" = prop ] && P[$prop]=$res N[$prop]=$n
		done
	fi
	for prop in outer udp_csum gre_proto gre_key gre_csum gre_seq inner
	do
		[ "$prop" = udp_csum ] && [ "$encap" = gre ] && continue
		res=${P[$prop]:-"fail no answer from router-gre.py"}
		n=${N[$prop]:-0}
		[ "$res" = ok ] || diag "$prop: ${res#fail }"
		[ "$res" = ok ] && [ "$n" -ge "$answers" ]
		ok $? "$r: gsotun's packets ($n): ${say[$prop]}"
	done
}

# router_tun R PCAP: router-gre.py reads the capture of A's tun.
router_tun()
{
	local r=$1 line kw idx res stray='' desc
	local -A T

	if { echo "verify $2" >&"$R_IN"; } 2>/dev/null; then
		while read -r -t 60 -u "$R_OUT" line; do
			read -r kw idx res <<<"$line"
			case $kw in
			tun) T[$idx]=$res ;;
			stray) stray=$idx ;;
			end) break ;;
			esac
		done
	fi
	for idx in "${!C_NAME[@]}"; do
		if [ "${C_KIND[idx]}" = good ]; then
			desc="in the tun once each, unchanged"
		else
			desc="nothing of it in the tun"
		fi
		res=${T[$idx]:-"fail no answer from router-gre.py"}
		[ "$res" = ok ] || diag "${res#fail }"
		[ "$res" = ok ]
		ok $? "$r: ${C_NAME[idx]}: $desc"
	done
	[ "$stray" = 0 ] || diag "stray packets: ${stray:-unknown}"
	[ "$stray" = 0 ]
	ok $? "$r: no other marked packet in the tun"
}

# router_tshark R PCAP: tshark validates every checksum of gsotun's
# packets (B's veth, from A only).
router_tshark()
{
	local r=$1 pcap=$2 st=1 want_c=0 outer total zero

	if [ "$encap" = gre-udp ]; then
		cap_check "$pcap" 'udp.port==4754,gre' && st=0
	else
		cap_check "$pcap" && st=0
	fi
	[ "$gre_c" = yes ] && want_c=${CAP[gre_total]:-0}
	ok $((st || CAP[gre_total] < answers || CAP[gre_bad] != 0 ||
		CAP[ip_bad] != 0 || CAP[udp_bad] != 0 || CAP[tcp_bad] != 0)) \
		"$r: tshark: every GRE, IPv4, UDP and TCP checksum good"
	ok $((st || CAP[gre_csum] != want_c || CAP[gre_good] != want_c)) \
		"$r: tshark: the C bit on $want_c of ${CAP[gre_total]:-0}"
	[ "$encap" = gre-udp ] || return
	# The outer UDP header's checksum: tshark's first occurrence.
	outer=$(tshark -r "$pcap" -n -d 'udp.port==4754,gre' -T fields \
		-E occurrence=f -e udp.checksum 2>"$pcap.tshark") ||
		diag "$(cat "$pcap.tshark")"
	total=$(grep -c . <<<"$outer")
	zero=$(grep -c '^0x0*$' <<<"$outer")
	want_c=0
	[ "$udp_zero" = yes ] && want_c=$total
	ok $((total < answers || zero != want_c)) \
		"$r: tshark: $zero of $total outer UDP checksums zero"
}

# router_run FAM ENCAP GSOTUN-ARGS... -- ROUTER-ARGS...: one gsotun, its
# cases, its packets and tun checked.
run=0
router_run()
{
	local ul_a ul_b gt=() py=() idx tun_pcap veth_pcap tun_cap

	fam=$1 encap=$2
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		gt+=("$1")
		shift
	done
	shift
	py=("$@")
	run=$((run + 1))
	r="$encap/$fam${gt[*]:+ ${gt[*]}}"
	if [ "$fam" = 6 ]; then
		ul_a=$UL6_A ul_b=$UL6_B
	else
		ul_a=$UL_A ul_b=$UL_B
	fi
	# What gsotun's own packets must carry, by the router's options.
	key_say="none" csum_say="none" seq_say="none" gre_c=no udp_zero=no
	set -- "${py[@]}"
	while [ $# -gt 0 ]; do
		case $1 in
		--key) key_say="$2 in each" && shift ;;
		--csum) csum_say="present and right" gre_c=yes ;;
		--seq) seq_say="one up each" ;;
		--no-udp-csum) udp_zero=yes ;;
		esac
		shift
	done
	udp_say="present and right"
	[ "$udp_zero" = yes ] && udp_say="zero (--no-csum)"

	tun_pcap=$LIB_TMP/tun.$run.pcap veth_pcap=$LIB_TMP/veth.$run.pcap
	if ! gt_start "$NS_A" "$TAP_A" --mode tun --encap "$encap" \
		--local "$ul_a" --remote "$ul_b" \
		--address "$OV4_A/24" --address "$OV6_A/64" "${gt[@]}"; then
		ok 1 "$r: gsotun starts in A"
		return
	fi
	ok 0 "$r: gsotun starts in A"
	if ! cap_start "$NS_A" "$TAP_A" "$tun_pcap"; then
		ok 1 "$r: tcpdump on A's tun"
		gt_stop "$NS_A"
		return
	fi
	tun_cap=$CAP_PID
	check "$r: router-gre.py and tcpdump start in B" \
		cap_start "$NS_B" "$VETH_B" "$veth_pcap" src host "$ul_a" &&
		router_start --fam "$fam" --local "$ul_b" --remote "$ul_a" \
			--encap "$encap" "${py[@]}" || {
		cap_stop
		CAP_PID=$tun_cap
		cap_stop
		gt_stop "$NS_A"
		return
	}
	gt_counters "$NS_A"
	BEFORE=$GT_CTR
	answers=0
	for idx in "${!C_NAME[@]}"; do
		check "$r: ${C_NAME[idx]}: $(case_says "$idx")" \
			router_case "$idx"
		[ "${C_KIND[idx]}" = good ] && answers=$((answers + C_N[idx]))
	done
	router_wire "$r"
	cap_stop
	CAP_PID=$tun_cap
	cap_stop
	router_tun "$r" "$tun_pcap"
	router_stop
	router_tshark "$r" "$veth_pcap"
	check "$r: gsotun exits 0 on SIGTERM and removes its tun" \
		gt_stop "$NS_A"
	gt_show A
}

# Raw GRE over IPv4 as a keyless, checksum-less router tunnel; over IPv6
# with everything RFC 2890 has; GRE-in-UDP over IPv4 with a key (gsotun
# sends UDP checksums), and without UDP checksums but with sequence
# numbers; over IPv6 with a key (UDP checksums both ways: RFC 6935).
router_run 4 gre --
router_run 6 gre --key 709 --csum --seq -- --key 709 --csum --seq
router_run 4 gre-udp --key 7 -- --key 7
router_run 4 gre-udp --no-csum --seq -- --seq --no-udp-csum
router_run 6 gre-udp --key 9 -- --key 9

done_testing
