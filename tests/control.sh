#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket and gsotunctl against a pair moving traffic, both
# ends' taps of one name in two namespaces: show, stats --json against
# the SIGUSR1 dump, metrics parsed as the exposition format, comparable
# counts at the two ends, peer and fdb changes, errors and exit codes,
# permissions, a --control file, and hostile clients while 64 MiB cross.
#
# Functions are called through check(), which shellcheck cannot see;
# NS_A and NS_B are net_setup's.
# shellcheck disable=SC2317,SC2153

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 300 socat ping python3 setpriv
net_setup 4 23
CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
PY=$LIB_DIR/ctl.py
make_data big 64
# One tap name at both ends: their sockets must not meet.
TAP_A=g$$ TAP_B=g$$

# ctl NS ARGS...: gsotunctl in NS; its output in OUT, stderr in ERR,
# status in ST.
ctl()
{
	local ns=$1

	shift
	OUT=$(ip netns exec "$ns" "$CTL" "$@" 2>"$LIB_TMP/ctl.err")
	ST=$?
	ERR=$(cat "$LIB_TMP/ctl.err")
}

# ctl_ok NS ARGS...: it succeeds.
ctl_ok()
{
	ctl "$@"
	[ "$ST" -eq 0 ] || { diag "gsotunctl $*: status $ST: $ERR"; return 1; }
}

# ctl_fails STATUS TEXT NS ARGS...: it fails with STATUS, saying TEXT.
ctl_fails()
{
	local want=$1 text=$2

	shift 2
	ctl "$@"
	[ "$ST" -eq "$want" ] && [[ $ERR == *"$text"* ]] && return 0
	diag "gsotunctl ${*:2}: status $ST (want $want): $ERR"
	return 1
}

has() { [[ $OUT == *"$1"* ]] || { diag "no '$1' in:" "$OUT"; return 1; }; }
lacks() { [[ $OUT != *"$1"* ]] || { diag "'$1' in:" "$OUT"; return 1; }; }

show_both()
{
	ctl_ok "$NS_A" "$TAP_A" show && has "tunnel $TAP_A: vxlan VNI 1" &&
		has "local $UL_A" && has "peer $UL_B" &&
		has "mac $(link_attr "$NS_A" "$TAP_A" link/ether)," || return 1
	# Without the tap's name: the one gsotun of the namespace.
	ctl_ok "$NS_B" && has "local $UL_B" && has "peer $UL_A"
}

# json_brackets: JSON before and after a dump, each counter of the dump
# between the two.
json_brackets()
{
	local dump

	ctl_ok "$NS_B" stats --json || return 1
	echo "$OUT" >"$LIB_TMP/j1"
	gt_counters "$NS_B" || return 1
	dump=$GT_CTR
	ctl_ok "$NS_B" "$TAP_B" stats --json || return 1
	echo "$OUT" >"$LIB_TMP/j2"
	python3 "$PY" json "$LIB_TMP/j1" "$dump" "$TAP_B" &&
		python3 "$PY" json-after "$LIB_TMP/j2" "$dump" "$TAP_B"
}

metrics_parse()
{
	ctl_ok "$NS_A" metrics || return 1
	echo "$OUT" >"$LIB_TMP/metrics"
	python3 "$PY" metrics "$LIB_TMP/metrics" "$TAP_A" "$UL_B"
}

# Both ends count the segments that crossed: A sent, B received.
comparable()
{
	local a b pb

	gt_counters "$NS_A" || return 1
	a=$(ctr "$GT_CTR" tx_segments)
	gt_counters "$NS_B" || return 1
	b=$(ctr "$GT_CTR" rx_segments)
	pb=$(grep "^peer $UL_A " "${GT_ERR[$NS_B]}" | tail -n 1)
	pb=$(ctr "$pb" peer_rx_packets)
	diag "A tx_segments $a, B rx_segments $b, B's peer_rx_packets $pb"
	[ -n "$a" ] && [ -n "$b" ] && [ "$b" = "$pb" ] && [ "$b" -le "$a" ] &&
		[ "$((b * 100))" -ge "$((a * 95))" ]
}

peer_changes()
{
	local extra=198.18.23.9

	ctl_ok "$NS_A" peer add "$extra" && ctl_ok "$NS_A" show &&
		has "peer $extra" && has "peer $UL_B" || return 1
	ctl_fails 1 "is a peer already" "$NS_A" peer add "$extra" || return 1
	ctl_fails 64 "invalid peer" "$NS_A" peer add 224.0.0.1 || return 1
	ctl_fails 1 "not of the underlay's" "$NS_A" peer add fd00::9 ||
		return 1
	# Two peers: frames to B's MAC are flooded until it is known.
	ping_ok "$NS_A" "$OV4_B" || { diag "no ping with two peers"; return 1; }
	ctl_ok "$NS_A" peer del "$extra" && ctl_ok "$NS_A" show &&
		lacks "peer $extra" || return 1
	ctl_fails 1 "is not a peer" "$NS_A" peer del "$extra" || return 1
	ctl_fails 1 "is the last peer" "$NS_A" peer del "$UL_B"
}

fdb_changes()
{
	local mac=02:00:5e:10:00:01

	ctl_ok "$NS_A" fdb add "$mac@7=$UL_B" && ctl_ok "$NS_A" fdb show &&
		has "$mac vlan 7 dst $UL_B dev $TAP_A static" || return 1
	ctl_fails 1 "not a peer" "$NS_A" fdb add "$mac=198.18.23.77" ||
		return 1
	ctl_fails 64 "not a MAC" "$NS_A" fdb add "02:00=$UL_B" || return 1
	ctl_fails 64 "no tap nosuch" "$NS_A" fdb del "$mac@7" nosuch ||
		return 1
	ctl_ok "$NS_A" fdb del "$mac@7" "$TAP_A" && ctl_ok "$NS_A" fdb show &&
		lacks "$mac" || return 1
	ctl_fails 1 "no such entry" "$NS_A" fdb del "$mac@7"
}

errors()
{
	ctl_fails 1 "no gsotun with tap nosuch" "$NS_A" nosuch show &&
		ctl_fails 64 "unknown request" "$NS_A" "$TAP_A" stats bogus &&
		ctl_fails 64 "unrecognized option" "$NS_A" --bogus &&
		ctl_fails 64 "--json goes with stats" "$NS_A" show --json &&
		ctl_fails 64 "'shwo' is not a command" "$NS_A" \
			--control "@gsotun/$TAP_A" shwo &&
		ctl_fails 1 "no gsotun runs in this network namespace" \
			"$NS_C" show
}

# Only root, or gsotun's own user or a member of its group, may ask.
permissions()
{
	OUT=$(ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$PUB/gsotunctl" "$TAP_A" show 2>&1)
	ST=$?
	if [ "$ST" -ne 1 ] || [[ $OUT != *"permission denied"* ]]; then
		diag "as nobody: status $ST: $OUT"
		return 1
	fi
	# In gsotun's group (root's) as a supplementary group: let in.
	OUT=$(ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 \
		--groups=0 "$PUB/gsotunctl" "$TAP_A" show 2>&1)
	ST=$?
	[ "$ST" -eq 0 ] && [[ $OUT == *"tunnel $TAP_A"* ]] && return 0
	diag "as nobody in group 0: status $ST: $OUT"
	return 1
}

# Anyone may bind an abstract name first: gsotunctl trusts no answer
# from a socket that root did not open.
squatter()
{
	local sp

	# The system's python (one under root's home is not nobody's), the
	# script on its stdin (the tree may not be readable by nobody).
	ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 \
		--clear-groups /usr/bin/python3 - squat "gsotun/sq$$" 20 \
		<"$PY" &
	sp=$!
	track_pid "$sp"
	sleep 0.5
	ctl_fails 1 "not trusted" "$NS_A" "sq$$" show
	ST=$?
	kill "$sp" 2>/dev/null
	wait "$sp"
	forget_pid "$sp"
	return "$ST"
}

# The framing: "ok LEN" and LEN bytes; a CR LF line is taken too.
framing()
{
	ip netns exec "$NS_A" python3 "$PY" ask "gsotun/$TAP_A" metrics \
		>"$LIB_TMP/asked" && grep -q '^gsotun_tx_frames_total' \
		"$LIB_TMP/asked"
}

# --control FILE: the socket is that file, mode 0660, gone at exit; a
# second gsotun given it is refused and leaves the first's alone; a file
# that is not a socket is never replaced.
control_file()
{
	local sock=$LIB_TMP/ctl.sock mode st

	gt_start "$NS_C" f$$ --local 198.18.23.1 --remote 198.18.23.2 \
		--control "$sock" || return 1
	mode=$(stat -c %A "$sock")
	[ "$mode" = srw-rw---- ] || { diag "mode $mode"; return 1; }
	ctl_ok "$NS_C" --control "$sock" show && has "tunnel f$$" || return 1
	ctl_fails 1 "no gsotun runs" "$NS_C" show || return 1
	ip netns exec "$NS_C" "$GSOTUN" --dev h$$ --local 198.18.23.1 \
		--remote 198.18.23.3 --port 4790 --control "$sock" \
		>"$LIB_TMP/second.err" 2>&1
	st=$?
	if [ "$st" -ne 1 ] || ! grep -q "is in use" "$LIB_TMP/second.err"; then
		diag "second gsotun: $st" "$(cat "$LIB_TMP/second.err")"
		return 1
	fi
	ctl_ok "$NS_C" --control "$sock" show || return 1
	gt_stop "$NS_C" && [ ! -e "$sock" ] || return 1
	echo keep >"$LIB_TMP/plain"
	ip netns exec "$NS_C" "$GSOTUN" --dev h$$ --local 198.18.23.1 \
		--remote 198.18.23.3 --control "$LIB_TMP/plain" \
		>"$LIB_TMP/third.err" 2>&1
	st=$?
	[ "$st" -eq 1 ] && [ "$(cat "$LIB_TMP/plain")" = keep ] && return 0
	diag "over a plain file: $st" "$(cat "$LIB_TMP/third.err")"
	return 1
}

# 64 MiB while clients misbehave: intact, and not held up by them (a
# loop that waited on one would lose seconds per client).
hostile()
{
	local t0 t1 base hp st

	t0=$(date +%s%N)
	xfer "$NS_A" "$NS_B" "$OV4_B" big 60 || return 1
	t1=$(date +%s%N)
	base=$(((t1 - t0) / 1000000))
	ip netns exec "$NS_B" python3 "$PY" hostile "gsotun/$TAP_B" 30 \
		>"$LIB_TMP/hostile.out" 2>&1 &
	hp=$!
	track_pid "$hp"
	sleep 1
	t0=$(date +%s%N)
	xfer "$NS_A" "$NS_B" "$OV4_B" big 60 || return 1
	t1=$(date +%s%N)
	kill -TERM "$hp" 2>/dev/null
	wait "$hp"
	st=$?
	forget_pid "$hp"
	diag "64 MiB in $base ms alone, $(((t1 - t0) / 1000000)) ms beside" \
		"hostile clients" "$(cat "$LIB_TMP/hostile.out")"
	# SIGTERM (143) ended it; 1: an answer was not the error it must be.
	[ "$st" -ne 1 ] || return 1
	[ $(((t1 - t0) / 1000000)) -lt $((2 * base + 5000)) ] || return 1
	pid_alive "${GT_PID[$NS_B]}" && ctl_ok "$NS_B" show
}

# gsotunctl where nobody may run it (the build tree may be root's only).
PUB=$LIB_TMP/pub
{ chmod 711 "$LIB_TMP" && mkdir -m 755 "$PUB" && cp "$CTL" "$PUB/"; } ||
	bail "cannot copy gsotunctl to $PUB"
NS_C=gtC$$
ns_add "$NS_C"
# No dummy module here: a veth pair within NS_C gives it an address.
ip -n "$NS_C" link add c$$a type veth peer name c$$b
ip -n "$NS_C" addr add 198.18.23.1/24 dev c$$a
ip -n "$NS_C" link set c$$a up
ip -n "$NS_C" link set c$$b up
check "both ends start with one tap name" ends_start
check "show in each namespace names its own end" show_both
check "64 MiB A to B" xfer "$NS_A" "$NS_B" "$OV4_B" big 60
check "A's tx_segments and B's rx_segments agree" comparable
check "stats --json brackets the SIGUSR1 dump" json_brackets
check "metrics parse, with the device's and the peer's" metrics_parse
check "peer add and del" peer_changes
check "fdb add, show and del" fdb_changes
check "errors and exit codes" errors
check "nobody is refused, a member of the group let in" permissions
check "a socket another user bound is not trusted" squatter
check "replies are framed by their length" framing
check "--control FILE" control_file
check "hostile clients do not hold the tunnel up" hostile
ends_stop || diag "ends did not stop cleanly"
done_testing
