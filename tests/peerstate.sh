#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What show, show --json and the metrics say of a peer, as its state
# changes (issue 39): A alone draws ICMP port unreachable from B's host,
# which show explains; B then comes up with another VNI, and every packet
# it sends A is dropped: show, JSON and metrics say it was heard from but
# nothing was accepted, and why (wrong VNI 2, expected 1), where before a
# "last 1.6 s ago" looked healthy; B again with A's VNI: what it sends is
# accepted, the old drops are counted as such, and the ICMP error is past
# (no "is its tunnel up?" on a healthy peer). Last, a peer on A's own
# link that nobody answers: the host unreachable A's kernel says for
# want of an ARP (IPv6: neighbour discovery) answer is said as this
# host's, not a router's. The metrics' families and labels are those of
# gsotunctl(8), the counters and their order gsotun(8)'s.
#
# Usage: peerstate.sh 4|6   (the underlay family)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

fam=$1
. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

[ "$fam" = 4 ] || [ "$fam" = 6 ] || bail "usage: peerstate.sh 4|6"
lib_init 120 ping python3
net_setup "$fam" 27
PY=$LIB_DIR/ctl.py
MAN=${top_srcdir:-$LIB_DIR/..}/man/gsotunctl.8
# A peer on A's link where nobody is.
if [ "$fam" = 6 ]; then
	UL_X=fd00:198:18:27::9 NEIGH="neighbour discovery"
else
	UL_X=198.18.27.9 NEIGH=ARP
fi

# json_get NS PATH: show --json of NS, the value at PATH in VAL.
json_get()
{
	ctl_ok "$1" show --json || return 1
	echo "$OUT" >"$LIB_TMP/show.json"
	VAL=$(python3 "$PY" json-get "$LIB_TMP/show.json" "$2") ||
		{ diag "$VAL"; return 1; }
}

# metric NAME LABEL=VALUE...: A's sample of NAME with those labels, and
# the peer B's, in VAL.
metric()
{
	ctl_ok "$NS_A" metrics || return 1
	echo "$OUT" >"$LIB_TMP/metrics"
	VAL=$(python3 "$PY" metric "$LIB_TMP/metrics" "gsotun_$1" \
		peer="$UL_B" "${@:2}") || { diag "$VAL"; return 1; }
}

# A alone: its pings draw port unreachable from B's kernel. Everything
# A sends leaves from its one socket, the one that receives too
# (--source-ports 1), whose errors come with a TOS (traffic class)
# message before them: its ICMP's sender must be read all the same.
alone()
{
	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" --source-ports 1 || return 1
	ip netns exec "$NS_A" ping -n -q -c 3 -i 0.2 -W 1 "$OV4_B" \
		>/dev/null 2>&1
	# The error reaches show once gsotun has read it: waited for.
	until_ok 50 alone_said
}

alone_said()
{
	ctl_ok "$NS_A" show && has "underlay: ICMP port unreachable: " &&
		has "is its tunnel up" &&
		has "received: 0 packets (0 B), last never, last accepted never"
}

# B with VNI 2 pings A, and stops: A dropped all it sent, and has
# accepted nothing since the ICMP error, which is still what it was.
wrong_vni()
{
	gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
		--address "$OV4_B/24" --vni 2 || return 1
	ip netns exec "$NS_B" ping -n -q -c 3 -i 0.2 -W 1 "$OV4_A" \
		>/dev/null 2>&1
	gt_stop "$NS_B" || return 1
	local re="received: ([0-9]+) packets [^"$'\n'"]*, last [0-9.]+ s ago, "

	re+="last accepted never"
	ctl_ok "$NS_A" show || return 1
	[[ $OUT =~ $re ]] || { diag "no received line in:" "$OUT"; return 1; }
	N=${BASH_REMATCH[1]}
	diag "B sent $N packets of VNI 2"
	[ "$N" -gt 0 ] && has "dropped: $N of them, every one: $N wrong VNI" &&
		has "(rx_drop_vni); the last " &&
		has " s ago, VNI 2 (expected 1)" &&
		has "underlay: ICMP port unreachable: " &&
		has "is its tunnel up"
}

wrong_vni_json()
{
	json_get "$NS_A" peers.0.rx_accepted_seconds && [ "$VAL" = null ] &&
		json_get "$NS_A" peers.0.counters.rx_drops &&
		[ "$VAL" = "$N" ] &&
		json_get "$NS_A" peers.0.drops &&
		[ "$VAL" = "{\"rx_drop_vni\": $N}" ] &&
		json_get "$NS_A" peers.0.drop_last &&
		[ "$VAL" = '"rx_drop_vni"' ] &&
		json_get "$NS_A" peers.0.drop_last_id && [ "$VAL" = 2 ] ||
		{ diag "got $VAL"; return 1; }
	python3 "$PY" json-check "$LIB_TMP/show.json" "$MAN" \
		'peers.0.icmp_past=false' 'peers.0.icmp_cause="port"'
}

# Heard from (a time), nothing accepted (0), the drops by their cause.
wrong_vni_metrics()
{
	local now

	now=$(date +%s)
	metric peer_rx_last_timestamp_seconds &&
		[ "${VAL%.*}" -gt $((now - 30)) ] &&
		[ "${VAL%.*}" -le $((now + 1)) ] &&
		metric peer_rx_accepted_timestamp_seconds && [ "$VAL" = 0 ] &&
		metric peer_rx_drops_total && [ "$VAL" = "$N" ] &&
		metric peer_rx_drops_by_cause_total cause=rx_drop_vni &&
		[ "$VAL" = "$N" ] || { diag "got $VAL"; return 1; }
}

# B again, with A's VNI: traffic both ways, accepted.
right_vni()
{
	gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
		--address "$OV4_B/24" || return 1
	ping_ok "$NS_A" "$OV4_B" && ping_ok "$NS_B" "$OV4_A"
}

# The error is past, said without the causes to look for; the drops
# are a part of what B sent.
healthy()
{
	ctl_ok "$NS_A" show || return 1
	has "underlay: past ICMP port unreachable, " &&
		has " in all); it has sent since" && lacks "is its tunnel up" &&
		has "dropped: $N of them: $N wrong VNI (rx_drop_vni)" &&
		[[ $OUT =~ last\ accepted\ [0-9.]+\ s\ ago ]] ||
		{ diag "no last accepted in:" "$OUT"; return 1; }
	json_get "$NS_A" peers.0.icmp_past && [ "$VAL" = true ] &&
		json_get "$NS_A" peers.0.rx_accepted_seconds &&
		[[ $VAL =~ ^[0-9]+\.[0-9]+$ ]] || { diag "got $VAL"; return 1; }
	metric peer_rx_accepted_timestamp_seconds &&
		[ "${VAL%.*}" -gt $(($(date +%s) - 30)) ] ||
		{ diag "got $VAL"; return 1; }
}

# X, on A's link, answers nothing: frames flooded to it meet no
# neighbour, and A's kernel says host unreachable from A's own address.
dead_neighbour()
{
	local i pid

	ctl_ok "$NS_A" peer add "$UL_X" || return 1
	# Pings to nobody: their ARP requests are flooded to every peer.
	ip netns exec "$NS_A" ping -n -q -c 40 -i 0.2 -W 1 "10.27.0.77" \
		>/dev/null 2>&1 &
	pid=$!
	track_pid "$pid"
	for ((i = 0; i < 80; i++)); do
		sleep 0.1
		ctl_ok "$NS_A" show || break
		# The first error may come before A's lookup of its sender
		# could tell; each later one is looked up again.
		[[ $OUT == *"peer $UL_X"*"said by this host"* ]] && break
	done
	kill "$pid" 2>/dev/null
	wait "$pid"
	forget_pid "$pid"
	diag "$((i / 10)).$((i % 10)) s for the neighbour to fail"
	OUT=${OUT#*"peer $UL_X"}
	has "route: ok" &&
		has "underlay: ICMP host unreachable, said by this host: " &&
		has "no answer to $NEIGH from it" &&
		lacks "a router on the way" || return 1
	json_get "$NS_A" peers.1.icmp_cause && [ "$VAL" = '"neighbour"' ] ||
		{ diag "got $VAL"; return 1; }
}

# A's counters are those of gsotun(8)'s COUNTERS, in the order it says
# they are printed in; a peer's those of its line under SIGUSR1.
counters_documented()
{
	local man8=${MAN%/*}/gsotun.8 man prog peer

	man=$(sed -n '/^\.SH COUNTERS/,/^\.SH /p' "$man8" |
		awk 'prev == ".TP" { print $2 } { prev = $0 }')
	ctl_ok "$NS_A" stats || return 1
	prog=$(tail -n 1 <<<"$OUT" | tr ' ' '\n' | sed 's/=.*//')
	[ -n "$prog" ] && [ "$man" = "$prog" ] ||
		{ diag "gsotun(8) and gsotun differ:" \
			"$(diff <(echo "$man") <(echo "$prog"))"; return 1; }
	man=$(sed -n '/^\.B SIGUSR1/,/^\.fi/p' "$man8" |
		grep -o 'peer_[a-z_]*=' | tr -d =)
	peer=$(grep '^peer ' <<<"$OUT" | head -n 1 | tr ' ' '\n' |
		sed -n 's/^\(peer_[a-z_]*\)=.*/\1/p')
	[ -n "$peer" ] && [ "$man" = "$peer" ] ||
		{ diag "a peer's line: gsotun(8) and gsotun differ:" \
			"$(diff <(echo "$man") <(echo "$peer"))"; return 1; }
}

# Each family and label of A's metrics is gsotunctl(8)'s.
metrics_documented()
{
	ctl_ok "$NS_A" metrics || return 1
	echo "$OUT" >"$LIB_TMP/metrics"
	python3 "$PY" metrics-man "$LIB_TMP/metrics" "$MAN"
}

check "A alone: show says ICMP port unreachable, and why" alone
check "B with VNI 2: show says nothing of it was accepted, and why" \
	wrong_vni
check "  show --json: not accepted, the drops by cause, the VNI" \
	wrong_vni_json
check "  metrics: last heard, never accepted, the drops by cause" \
	wrong_vni_metrics
check "B with VNI 1: pings both ways" right_vni
check "show: the ICMP error is past, the drops a part, accepted now" \
	healthy
check "a peer on A's link that nobody answers: no neighbour, said by A" \
	dead_neighbour
check "the metrics' families and labels are gsotunctl(8)'s" \
	metrics_documented
check "the counters are gsotun(8)'s, in its order" counters_documented
ends_stop || diag "ends did not stop cleanly"
done_testing
