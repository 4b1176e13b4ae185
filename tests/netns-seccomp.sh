#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seccomp filter (issue 24): a running gsotun is under one (Seccomp: 2
# in /proc/PID/status) and everything it does still works: ping and TCP
# with bytes compared both ways, control requests, SIGHUP with --peers,
# SIGUSR1, an MTU and a route change of the underlay, a clean exit; in
# each mode (gre's raw socket, gre-udp over IPv6, --daemon, --user with
# --chroot); --no-seccomp runs without. The pidfile's lock is held on a
# read-only descriptor, and still stops a second gsotun. (What the filter
# refuses: tests/unit-sandbox, on the same filter.)
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 240 socat ping
net_setup 4 42
CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
make_data small 8
PEERS=$LIB_TMP/peers
echo "remote $UL_B" >"$PEERS"
PIDFILE=$LIB_TMP/gsotun.pid
ROOT=$LIB_TMP/empty
mkdir -m 0755 "$ROOT" || bail "cannot make $ROOT"
# No service manager: SIGHUP's outcome is the process's own.
unset NOTIFY_SOCKET

# field_is PID FIELD VALUE: a line of /proc/PID/status.
field_is()
{
	local got

	got=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status")
	[ "$got" = "$3" ] || { diag "$2: '$got', want '$3'"; return 1; }
}

# filtered [NS]: gsotun in NS (A) runs under a seccomp filter.
filtered()
{
	local pid=${GT_PID[${1:-$NS_A}]}

	[ -n "$pid" ] && pid_alive "$pid" &&
		field_is "$pid" Seccomp 2 && field_is "$pid" NoNewPrivs 1
}

# pidfile_ro PID FILE: PID holds FILE open on exactly one descriptor,
# read-only (the access mode, flags & 3 in fdinfo's octal, is 0).
pidfile_ro()
{
	local fd n=0 flags

	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = "$2" ] || continue
		n=$((n + 1))
		flags=$(awk '$1 == "flags:" { print $2 }' \
			"/proc/$1/fdinfo/${fd##*/}")
		[ $((8#$flags & 3)) -eq 0 ] ||
			{ diag "fd ${fd##*/} of $2: flags $flags"; return 1; }
	done
	[ "$n" -eq 1 ] || { diag "$n descriptors of $2"; return 1; }
}

second_refused()
{
	local out st

	out=$(ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "sec$$" \
		--remote "$UL_B" --port 4790 --pidfile "$PIDFILE" 2>&1 \
		</dev/null)
	st=$?
	[ "$st" -eq 1 ] && grep -q "is held by a running gsotun" <<<"$out" &&
		[ "$(cat "$PIDFILE")" = "${GT_PID[$NS_A]}" ] ||
		{ diag "status $st: $out"; return 1; }
}

# ctl ARGS...: gsotunctl for A's tap; its output in OUT.
ctl()
{
	OUT=$(ip netns exec "$NS_A" "$CTL" "$TAP_A" "$@" 2>&1) ||
		{ diag "gsotunctl $*: $OUT"; return 1; }
}

control_requests()
{
	local extra=198.18.42.9 mac=02:00:5e:10:00:01

	ctl show && has "peer $UL_B" && ctl stats && has tx_frames &&
		ctl metrics && has gsotun_ &&
		ctl peer add "$extra" && ctl show && has "peer $extra" &&
		ctl peer del "$extra" && ctl show && lacks "peer $extra" &&
		ctl fdb add "$mac=$UL_B" && ctl fdb show && has "$mac" &&
		ctl fdb del "$mac" && ctl fdb show && lacks "$mac"
}

# SIGHUP: the --peers file read again, its new peer taken.
reload()
{
	echo "remote 198.18.42.7" >>"$PEERS"
	kill -HUP "${GT_PID[$NS_A]}" &&
		wait_log "$NS_A" "reading $PEERS again" &&
		ctl show && has "peer 198.18.42.7"
}

counters()
{
	gt_counters "$NS_A" && [ -n "$(ctr "$GT_CTR" tx_frames)" ]
}

A_ARGS=(--local "$UL_A" --peers "$PEERS" --address "$OV4_A/24"
	--address "$OV6_A/64")
B_ARGS=(--local "$UL_B" --remote "$UL_A" --address "$OV4_B/24"
	--address "$OV6_B/64")

check "gsotun starts with --peers and --pidfile" \
	gt_start "$NS_A" "$TAP_A" "${A_ARGS[@]}" --pidfile "$PIDFILE"
check "and its peer" gt_start "$NS_B" "$TAP_B" "${B_ARGS[@]}"
check "Seccomp: 2 and NoNewPrivs: 1 in /proc/PID/status" filtered
check "the pidfile is held on one read-only descriptor" \
	pidfile_ro "${GT_PID[$NS_A]}" "$PIDFILE"
check "a second gsotun with that --pidfile is refused" second_refused
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "ping over IPv6 in the tunnel" ping_ok "$NS_A" "$OV6_B"
check "8 MiB A->B, SHA-256 intact" xfer "$NS_A" "$NS_B" "$OV4_B" small
check "8 MiB B->A over IPv6, SHA-256 intact" \
	xfer "$NS_B" "$NS_A" "$OV6_A" small
check "control: show, stats, metrics, peer add/del, fdb add/del" \
	control_requests
check "SIGHUP: the --peers file read again" reload
check "SIGUSR1: the counters" counters
ip -n "$NS_A" link set "$VETH_A" mtu 1400
check "an underlay MTU of 1400: the tap follows (1350)" \
	wait_tap_mtu "$NS_A" "$TAP_A" 1350
ip -n "$NS_A" route add "$UL_B/32" dev "$VETH_A" mtu 1300
check "a route of MTU 1300 to the peer: the tap follows (1250)" \
	wait_tap_mtu "$NS_A" "$TAP_A" 1250
check "8 MiB A->B over the smaller path, SHA-256 intact" \
	xfer "$NS_A" "$NS_B" "$OV4_B" small
ip -n "$NS_A" route del "$UL_B/32" dev "$VETH_A"
ip -n "$NS_A" link set "$VETH_A" mtu 1500
check "back to 1500: the tap too (1450)" wait_tap_mtu "$NS_A" "$TAP_A" 1450
# At 1250 the kernel took IPv6 off the tap, its address with it.
check "IPv6 in the tunnel again, the tap's address put back" \
	ping_ok "$NS_A" "$OV6_B"
check "still under the filter after all that" filtered
check "SIGTERM: exit 0, counters, tap removed" gt_stop "$NS_A"
check "  and the pidfile removed" test ! -e "$PIDFILE"
gt_stop "$NS_B" >/dev/null

# mode LABEL ARGS...: both ends with ARGS, A under the filter, traffic
# both ways, SIGUSR1, a clean exit.
mode()
{
	local label=$1

	shift
	check "$label: starts" gt_start "$NS_A" "$TAP_A" --local "$UL_A" \
		--remote "$UL_B" --address "$OV4_A/24" "$@"
	gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
		--address "$OV4_B/24" "${@:1:2}" >/dev/null
	check "$label: under the filter" filtered
	check "$label: 8 MiB A->B, SHA-256 intact" \
		xfer "$NS_A" "$NS_B" "$OV4_B" small
	check "$label: 8 MiB B->A, SHA-256 intact" \
		xfer "$NS_B" "$NS_A" "$OV4_A" small
	check "$label: SIGUSR1" counters
	check "$label: clean exit" gt_stop "$NS_A"
	gt_stop "$NS_B" >/dev/null
}

mode "gre (a raw socket)" --encap gre
mode "--user nobody --chroot" --encap vxlan --user nobody --chroot "$ROOT"

# gre-udp over an IPv6 underlay, on the same veth.
UL4_A=$UL_A UL4_B=$UL_B
UL_A=fd00:198:18:42::1 UL_B=fd00:198:18:42::2
ip -n "$NS_A" addr add "$UL_A/64" dev "$VETH_A" nodad &&
	ip -n "$NS_B" addr add "$UL_B/64" dev "$VETH_B" nodad ||
	bail "cannot add the IPv6 underlay"
mode "gre-udp over IPv6" --encap gre-udp
UL_A=$UL4_A UL_B=$UL4_B

# --daemon: the filter is installed before the parent is told it is up.
daemon_mode()
{
	local pid st

	ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "$TAP_A" \
		--local "$UL_A" --remote "$UL_B" --address "$OV4_A/24" \
		--daemon --pidfile "$PIDFILE" </dev/null >/dev/null 2>&1
	st=$?
	pid=$(tr -dc 0-9 <"$PIDFILE" 2>/dev/null)
	[ "$st" -eq 0 ] && [ -n "$pid" ] || { diag "status $st"; return 1; }
	track_pid "$pid"
	GT_PID[$NS_A]=$pid
	filtered && pidfile_ro "$pid" "$PIDFILE" && ping_ok "$NS_A" "$OV4_B" &&
		kill -USR1 "$pid" && kill -HUP "$pid" && sleep 0.3 &&
		ping_ok "$NS_A" "$OV4_B"
	st=$?
	kill -TERM "$pid"
	wait_gone "$pid" 50 && dev_gone "$NS_A" "$TAP_A" ||
		{ diag "the daemon did not stop cleanly"; st=1; }
	forget_pid "$pid"
	GT_PID[$NS_A]=
	return "$st"
}

gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
	--address "$OV4_B/24" >/dev/null
check "--daemon: under the filter, SIGUSR1, SIGHUP, SIGTERM" daemon_mode

check "--no-seccomp: starts" gt_start "$NS_A" "$TAP_A" --local "$UL_A" \
	--remote "$UL_B" --address "$OV4_A/24" --no-seccomp
check "--no-seccomp: Seccomp: 0" field_is "${GT_PID[$NS_A]}" Seccomp 0
check "--no-seccomp: ping" ping_ok "$NS_A" "$OV4_B"
check "--no-seccomp: clean exit" gt_stop "$NS_A"

done_testing
