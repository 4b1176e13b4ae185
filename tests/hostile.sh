#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Malformed traffic at a running gsotun while good traffic flows: for each
# kind the right drop counter moves by exactly N, nothing reaches the tap,
# and the good transfers keep their SHA-256 (issue 5, "Bad input"); inner
# TCP segments whose checksum is wrong reach the tap as they came,
# unmerged, and rx_inner_csum_bad counts them (issue 11).
#
# Usage: hostile.sh 4|6 [vxlan|gre|gre-udp|geneve...]   (the underlay
# family; vxlan, gre and gre-udp by default)
#
# lib.sh's two namespaces: A is the peer, B is attacked. For each
# encapsulation (vxlan --vni 42; geneve --vni 42; gre --key 7 --csum;
# gre-udp --key 7 --no-csum):
#   - 16 MiB TCP transfers A -> B, IPv4 and IPv6 inside by turns, run
#     back to back in the background, each checked by SHA-256;
#   - tcpdump on B's tap keeps every frame not sent by either tap's own
#     stack: good traffic is left out, any hostile frame that gets
#     through is kept (hostile inner frames have source MAC
#     02:00:5e:ba:ad:<case>);
#   - tests/hostile.py, in A, sends each case's N packets as whole
#     Ethernet frames on A's veth (from A's address, or from a third one
#     on the subnet that no namespace has: B's answers go nowhere), then
#     a fence packet (1 byte from A: rx_drop_short). Once B has counted
#     the fence it has handled the case: the rx_drop_* counters and
#     rx_inner_csum_bad must have moved by exactly the case's MOVES on
#     its counter plus the fence, and by nothing else;
#   - at the end, the capture: no frame of a drop case on the tap, every
#     frame of a delivery case there once, unmerged and intact.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
shift
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

case $fam in
4 | 6) ;;
*) bail "usage: hostile.sh 4|6 [vxlan|gre|gre-udp|geneve...]" ;;
esac
encaps=("$@")
[ ${#encaps[@]} -gt 0 ] || encaps=(vxlan gre gre-udp)

lib_init 150 socat tcpdump ping "$PYTHON"
"$PYTHON" -c 'import scapy.all' 2>/dev/null ||
	bail "$PYTHON cannot import scapy (apt-get install python3-scapy)"
net_setup "$fam" 1
make_data good 16
if [ "$fam" = 6 ]; then
	UL_C=fd00:198:18:1::3
else
	UL_C=198.18.1.3
fi

# mac_of NS DEV
mac_of()
{
	ip netns exec "$1" cat "/sys/class/net/$2/address"
}

# The good traffic, in a background subshell until $LIB_TMP/good.stop
# appears; "done=N" or "failed=N" in $LIB_TMP/good.res. The subshell
# tracks only its own socat processes and kills them on SIGTERM.
# Paced at 25 MB/s (SO_MAX_PACING_RATE, 47; TCP paces itself without
# fq): a stream always under way, not one that takes every CPU it can
# from the tests beside it under make -j2.
good_loop()
{
	# shellcheck disable=SC2034 # xfer() reads it
	local n=0 addr XFER_TX_OPTS=setsockopt-int=1:47:25000000

	LIB_PIDS=()
	trap 'kill -TERM "${LIB_PIDS[@]}" 2>/dev/null; exit 1' TERM
	while [ ! -e "$LIB_TMP/good.stop" ]; do
		addr=$OV4_B
		[ $((n % 2)) -eq 1 ] && addr=$OV6_B
		if ! xfer "$NS_A" "$NS_B" "$addr" good 20; then
			echo "failed=$n" >"$LIB_TMP/good.res"
			return 1
		fi
		n=$((n + 1))
	done
	echo "done=$n" >"$LIB_TMP/good.res"
}

good_start()
{
	local i first

	xfer_port=$((5000 + 1000 * run))
	# The first transfer's file (xfer() names it by its port).
	first=$LIB_TMP/recv.$((xfer_port + 1))
	rm -f "$LIB_TMP/good.stop" "$LIB_TMP/good.res" "$first"
	good_loop >"$LIB_TMP/good.$run.log" 2>&1 &
	GOOD_PID=$!
	track_pid "$GOOD_PID"
	# Under way: the first transfer has bytes on the receiving side
	# (10 s for two socat to start on a busy machine).
	for ((i = 0; i < 100; i++)); do
		[ -s "$first" ] && return 0
		sleep 0.1
	done
	diag "the good transfer did not start" "$(cat "$LIB_TMP/good.$run.log")"
	return 1
}

# good_stop: the loop ends after the transfer under way; it must have run
# until told to stop, every transfer with its SHA-256 intact.
good_stop()
{
	local res

	touch "$LIB_TMP/good.stop"
	wait_gone "$GOOD_PID" 250 || kill -TERM "$GOOD_PID"
	wait "$GOOD_PID"
	forget_pid "$GOOD_PID"
	res=$(cat "$LIB_TMP/good.res" 2>/dev/null)
	diag "good traffic: $res" "$(tail -n 1 "$LIB_TMP/good.$run.log")"
	if [[ $res != done=* ]] || [ "${res#done=}" -lt 1 ]; then
		diag "$(cat "$LIB_TMP/good.$run.log")"
		return 1
	fi
}

# hostile_start ARGS...: hostile.py in A as a coprocess; the cases it
# prints go into C_CTR, C_MOVES, C_N, C_DELIVER and C_NAME (indexed
# from 1).
hostile_start()
{
	local kw idx cnt moves n dl name line

	coproc HOSTILE {
		ip netns exec "$NS_A" "$PYTHON" "$LIB_DIR/hostile.py" \
			--ifname "$VETH_A" --fam "$fam" \
			--src-mac "$(mac_of "$NS_A" "$VETH_A")" \
			--dst-mac "$(mac_of "$NS_B" "$VETH_B")" \
			--peer "$UL_A" --other "$UL_C" --dst "$UL_B" \
			--encap "$encap" "$@" 2>"$LIB_TMP/hostile.$run.err"
	}
	H_PID=$HOSTILE_PID H_OUT=${HOSTILE[0]} H_IN=${HOSTILE[1]}
	track_pid "$H_PID"
	C_CTR=() C_MOVES=() C_N=() C_DELIVER=() C_NAME=()
	while read -r -t 30 -u "$H_OUT" line; do
		[ "$line" = ready ] && return 0
		read -r kw idx cnt moves n dl name <<<"$line"
		[ "$kw" = case ] || continue
		C_CTR[idx]=$cnt C_MOVES[idx]=$moves C_N[idx]=$n
		C_DELIVER[idx]=$dl C_NAME[idx]=$name
	done
	diag "hostile.py did not start:" "$(cat "$LIB_TMP/hostile.$run.err")"
	return 1
}

hostile_stop()
{
	{ echo quit >&"$H_IN"; } 2>/dev/null
	wait_gone "$H_PID" 50 || kill -TERM "$H_PID" 2>/dev/null
	wait "$H_PID" 2>/dev/null
	forget_pid "$H_PID"
}

# hostile_case IDX: send the case, wait for B to count the fence, compare
# the rx_drop_* deltas with what the case expects. BEFORE holds B's last
# counter line and is moved on.
hostile_case()
{
	local idx=$1 cnt=${C_CTR[$1]} reply k i d short got exp
	local -A want

	want[rx_drop_short]=1
	[ "$cnt" != - ] && want[$cnt]=$((${want[$cnt]:-0} + C_MOVES[idx]))
	exp=$(for k in "${!want[@]}"; do echo "$k=+${want[$k]}"; done |
		sort | tr '\n' ' ')
	{ echo "send $idx" >&"$H_IN"; } 2>/dev/null &&
		read -r -t 30 -u "$H_OUT" reply
	if [ "$reply" != "sent $idx" ]; then
		diag "hostile.py: no answer to send $idx" \
			"$(tail -n 5 "$LIB_TMP/hostile.$run.err")"
		return 1
	fi
	for ((i = 0; i < 50; i++)); do
		gt_counters "$NS_B" || return 1
		short=$(ctr "$GT_CTR" rx_drop_short)
		d=$((short - $(ctr "$BEFORE" rx_drop_short)))
		[ "$d" -ge "${want[rx_drop_short]}" ] && break
	done
	got=$(ctr_moved "$BEFORE" "$GT_CTR" \
		'rx_(drop_[a-z0-9_]+|inner_csum_bad)')
	BEFORE=$GT_CTR
	[ "$got" = "$exp" ] ||
		{ diag "drop counters moved by: ${got:-nothing}" \
			"expected: $exp"; return 1; }
}

# What a case's counter line says, for its TAP line.
case_says()
{
	local idx=$1

	if [ "${C_CTR[idx]}" = - ]; then
		echo "no drop counter moved"
	else
		echo "${C_CTR[idx]} +${C_MOVES[idx]}, no other drop counter" \
			"moved"
	fi
}

# tap_verify: hostile.py reads the capture of B's tap; one TAP line per
# case, then one for frames that match no case.
tap_verify()
{
	local line kw idx res desc stray=
	local -A R

	if { echo "verify $PCAP" >&"$H_IN"; } 2>/dev/null; then
		while read -r -t 60 -u "$H_OUT" line; do
			read -r kw idx res <<<"$line"
			case $kw in
			result) R[$idx]=$res ;;
			stray) stray=$idx ;;
			end) break ;;
			esac
		done
	fi
	for idx in "${!C_NAME[@]}"; do
		if [ "${C_DELIVER[idx]}" = 1 ]; then
			desc="${C_N[idx]} frames on the tap, one each, intact"
		else
			desc="nothing on the tap"
		fi
		res=${R[$idx]:-"fail no result from hostile.py"}
		[ "$res" = ok ] || diag "${res#fail }"
		[ "$res" = ok ]
		ok $? "$r: ${C_NAME[idx]}: $desc"
	done
	[ "$stray" = 0 ] || diag "stray frames: ${stray:-unknown}"
	[ "$stray" = 0 ]
	ok $? "$r: no other frame from outside either tap's stack on the tap"
}

# observers_start MAC_A MAC_B HOSTILE-ARGS...
observers_start()
{
	local mac_a=$1 mac_b=$2

	shift 2
	cap_start "$NS_B" "$TAP_B" "$PCAP" \
		not ether src "$mac_a" and not ether src "$mac_b" &&
		hostile_start "$@"
}

a_drops_zero()
{
	gt_counters "$NS_A" && ctr_drops_zero "$GT_CTR"
}

run=0
run_encap()
{
	local encap=$1 gt_args py_args idx mac_a mac_b

	run=$((run + 1))
	r="$encap/$fam"
	case $encap in
	vxlan)
		gt_args=(--vni 42)
		py_args=(--vni 42 --port 4789)
		;;
	gre)
		gt_args=(--key 7 --csum)
		py_args=(--key 7 --gre-csum)
		;;
	gre-udp)
		gt_args=(--key 7 --no-csum)
		py_args=(--key 7 --port 4754 --no-csum)
		;;
	geneve)
		gt_args=(--vni 42)
		py_args=(--vni 42 --port 6081)
		;;
	*) bail "unknown encapsulation $encap" ;;
	esac
	check "$r ${gt_args[*]}: gsotun starts on both ends" \
		ends_start --encap "$encap" "${gt_args[@]}" || return
	check "$r: ping $OV4_B from A" ping_ok "$NS_A" "$OV4_B" || return
	mac_a=$(mac_of "$NS_A" "$TAP_A") mac_b=$(mac_of "$NS_B" "$TAP_B")
	PCAP=$LIB_TMP/tap.$run.pcap
	# Frames from either tap's own stack are the good traffic.
	check "$r: tcpdump on B's tap and hostile.py start" \
		observers_start "$mac_a" "$mac_b" "${py_args[@]}" || return
	check "$r: good traffic under way" good_start || return
	gt_counters "$NS_B" || return
	BEFORE=$GT_CTR
	for idx in "${!C_NAME[@]}"; do
		check "$r: ${C_NAME[idx]}: $(case_says "$idx")" \
			hostile_case "$idx"
	done
	check "$r: good traffic ran throughout, every SHA-256 matches" \
		good_stop
	cap_stop
	diag "$(grep -h packets "$PCAP.err")"
	tap_verify
	hostile_stop
	check "$r: A's drop counters are all 0" a_drops_zero
	check "$r: B exits 0 on SIGTERM with counters, tap removed" \
		gt_stop "$NS_B"
	gt_show B
	check "$r: A exits 0 on SIGTERM with counters, tap removed" \
		gt_stop "$NS_A"
}

for e in "${encaps[@]}"; do
	run_encap "$e"
	# After an early failure, nothing of this run may be left behind.
	[ -n "${GT_PID[$NS_A]}" ] && gt_stop "$NS_A"
	[ -n "${GT_PID[$NS_B]}" ] && gt_stop "$NS_B"
	[ -n "$GOOD_PID" ] && pid_alive "$GOOD_PID" && good_stop >/dev/null
	[ -n "$H_PID" ] && pid_alive "$H_PID" && hostile_stop
	[ -n "$CAP_PID" ] && cap_stop
done

done_testing
