#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd readiness (Type=notify) without systemd: a stand-in for the
# notification socket (dgram-listen.py) freezes gsotun when READY=1 comes
# and records the tap then: it must be up, with its address and its MTU.
# STATUS= names the tunnel, SIGHUP with --peers gives RELOADING=1 (with
# MONOTONIC_USEC=) then READY=1, and without --peers the same (the
# tunnel goes on: "systemctl reload"); SIGTERM STOPPING=1; with --daemon
# the child says MAINPID=, its PID as the pidfile has it, before the
# parent exits. The socket is a path in the foreground, an abstract name
# (in the namespace) as daemon.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 31
LISTEN=$LIB_TMP/notify.log
PEERS=$LIB_TMP/peers
MTU=1450
echo "remote $UL_B" >"$PEERS"

# listen SOCKET [NS]: the stand-in, watching TAP_A in NS_A; run in NS
# when given (an abstract name belongs to a network namespace).
listen()
{
	local run=() i

	[ -n "$2" ] && run=(ip netns exec "$2")
	: >"$LISTEN"
	"${run[@]}" "$PYTHON" "$LIB_DIR/dgram-listen.py" "$1" "$LISTEN" \
		"$NS_A" "$TAP_A" </dev/null >/dev/null 2>"$LISTEN.err" &
	LPID=$!
	track_pid "$LPID"
	for ((i = 0; i < 50; i++)); do
		grep -qx listening "$LISTEN" && return 0
		sleep 0.1
	done
	diag "dgram-listen.py did not start:" "$(cat "$LISTEN.err")"
	return 1
}

listen_stop()
{
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	forget_pid "$LPID"
}

# nth_msg N VAR=VALUE: the Nth datagram with that line, 5 s at most;
# sets MSG (its text), MSG_PID (its sender), MSG_USEC (when it came).
nth_msg()
{
	local i line

	for ((i = 0; i < 50; i++)); do
		line=$(grep -P "^\d+\t\d+\t(.*\|)?\Q$2\E(\||$)" "$LISTEN" |
			sed -n "$1p")
		if [ -n "$line" ]; then
			IFS=$'\t' read -r MSG_PID MSG_USEC MSG <<<"$line"
			return 0
		fi
		sleep 0.1
	done
	diag "no datagram $1 with $2; got:" "$(cat "$LISTEN" "$LISTEN.err")"
	return 1
}

# field NAME: the value of NAME= in MSG.
field()
{
	tr '|' '\n' <<<"$MSG" | sed -n "s/^$1=//p"
}

# ready_state N: what the Nth READY=1 found: the tap up, with OV4_A/24
# and MTU 1450.
ready_state()
{
	local link addr

	nth_msg "$1" READY=1 || return 1
	link=$(grep -P '^link\t' "$LISTEN" | sed -n "$1p")
	addr=$(grep -P '^addr\t' "$LISTEN" | sed -n "$1p")
	diag "at READY=1: ${link#*$'\t'}" "${addr#*$'\t'}"
	[[ $link == *[\<,]UP[,\>]* ]] || { diag "not UP"; return 1; }
	[[ $link == *" mtu $MTU "* ]] || { diag "MTU is not $MTU"; return 1; }
	[[ $addr == *" inet $OV4_A/24 "* ]] ||
		{ diag "no $OV4_A/24"; return 1; }
}

# status_is WANT: STATUS= of MSG.
status_is()
{
	local got

	got=$(field STATUS)
	[ "$got" = "$1" ] || { diag "STATUS='$got', want '$1'"; return 1; }
}

no_mainpid()
{
	[ -z "$(field MAINPID)" ] || { diag "MAINPID= in: $MSG"; return 1; }
}

# The service manager's clock: MONOTONIC_USEC= within 1 s of arrival.
reloading_clock()
{
	local usec

	nth_msg 1 RELOADING=1 || return 1
	usec=$(field MONOTONIC_USEC)
	if ! [[ $usec =~ ^[0-9]+$ ]] || [ $((MSG_USEC - usec)) -lt 0 ] ||
		[ $((MSG_USEC - usec)) -ge 1000000 ]; then
		diag "MONOTONIC_USEC=$usec, arrived at $MSG_USEC"
		return 1
	fi
}

# The second READY=1 comes after RELOADING=1, with the new peer.
ready_after_reload()
{
	local n_rel n_ready

	nth_msg 2 READY=1 || return 1
	n_rel=$(grep -nP '\tRELOADING=1' "$LISTEN" | cut -d: -f1)
	n_ready=$(grep -nP '\tREADY=1' "$LISTEN" | sed -n 2p | cut -d: -f1)
	if [ -z "$n_rel" ] || [ "$n_ready" -lt "$n_rel" ]; then
		diag "RELOADING=1 at line $n_rel, READY=1 at $n_ready"
		return 1
	fi
	status_is "vxlan VNI 1 to $UL_B and 1 more, MTU $MTU"
}

ready_after_reload_same()
{
	nth_msg 2 READY=1 && status_is "vxlan VNI 1 to $UL_B, MTU $MTU"
}

listen "$LIB_TMP/notify.sock" || bail "no notification socket"
export NOTIFY_SOCKET=$LIB_TMP/notify.sock
check "gsotun starts with NOTIFY_SOCKET set" \
	gt_start "$NS_A" "$TAP_A" --peers "$PEERS" --address "$OV4_A/24"
unset NOTIFY_SOCKET
check "READY=1 arrives, and the tap was up with its address and MTU then" \
	ready_state 1
check "  STATUS= names the encapsulation, VNI, peer and MTU" \
	status_is "vxlan VNI 1 to $UL_B, MTU $MTU"
check "  no MAINPID= in the foreground" no_mainpid
check "  sent by gsotun itself" test "$MSG_PID" = "${GT_PID[$NS_A]}"

echo "remote 198.18.31.3" >>"$PEERS"
kill -HUP "${GT_PID[$NS_A]}"
check "SIGHUP with --peers: RELOADING=1, MONOTONIC_USEC= now" \
	reloading_clock
check "  then READY=1 again, STATUS= with the new peer" ready_after_reload
check "SIGTERM: gsotun stops cleanly" gt_stop "$NS_A"
check "  having sent STOPPING=1" nth_msg 1 STOPPING=1
listen_stop

# Without --peers, SIGHUP is "systemctl reload" under a service manager:
# the tunnel goes on, and the reload completes.
hup_goes_on()
{
	local pid=${GT_PID[$NS_A]}

	kill -HUP "$pid"
	nth_msg 1 RELOADING=1 && nth_msg 2 READY=1 || return 1
	sleep 0.5
	pid_alive "$pid" || { diag "gsotun $pid is gone"; return 1; }
	grep -qF "SIGHUP: nothing to read again (no --peers)" \
		"${GT_ERR[$NS_A]}" || { gt_log "$NS_A"; return 1; }
}

listen "$LIB_TMP/notify2.sock" || bail "no notification socket"
export NOTIFY_SOCKET=$LIB_TMP/notify2.sock
check "without --peers, NOTIFY_SOCKET set: gsotun starts" \
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --address "$OV4_A/24"
unset NOTIFY_SOCKET
check "  READY=1" ready_state 1
check "  SIGHUP: RELOADING=1, READY=1, it says so and goes on" hup_goes_on
check "  then READY=1 again, with the same STATUS=" ready_after_reload_same
check "  SIGTERM: gsotun stops cleanly" gt_stop "$NS_A"
listen_stop

# --daemon: the child is the service; the socket an abstract name. The
# parent runs under a wrapper that notes when it exited: when its stdout
# (a pipe the child no longer holds) closed, the first thing an exit
# does (CLOCK_MONOTONIC, in microseconds, into EXITED). The wrapper
# stops the child for 0.3 s once it has written its pidfile: a parent
# that does not wait for the child's READY=1 exits meanwhile.
PIDFILE=$LIB_TMP/gsotun.pid
EXITED=$LIB_TMP/exited
WAITED=("$PYTHON" -c '
import os, signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE)
end = time.monotonic() + 5
while time.monotonic() < end:
    try:
        with open(sys.argv[2], encoding="utf-8") as f:
            pid = int(f.read())
    except (OSError, ValueError):
        continue
    os.kill(pid, signal.SIGSTOP)
    time.sleep(0.3)
    os.kill(pid, signal.SIGCONT)
    break
p.stdout.read()
t = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write(f"{t}\n")
sys.exit(p.wait())' "$EXITED" "$PIDFILE")

daemon_ready()
{
	local st dpid

	ip netns exec "$NS_A" env NOTIFY_SOCKET="@gsotun-test-$$" \
		timeout 10 "${WAITED[@]}" "$GSOTUN" --dev "$TAP_A" \
		--remote "$UL_B" --address "$OV4_A/24" --daemon \
		--pidfile "$PIDFILE" </dev/null >/dev/null \
		2>"$LIB_TMP/daemon.err"
	st=$?
	dpid=$(tr -dc 0-9 <"$PIDFILE" 2>/dev/null)
	[ -n "$dpid" ] && pid_alive "$dpid" && track_pid "$dpid"
	DPID=$dpid
	[ "$st" -eq 0 ] ||
		{ diag "exit $st" "$(cat "$LIB_TMP/daemon.err")"; return 1; }
	ready_state 1
}

mainpid_is_pidfile()
{
	local mainpid

	mainpid=$(field MAINPID)
	diag "MAINPID=$mainpid, pidfile $DPID, sender $MSG_PID"
	[ -n "$mainpid" ] && [ "$mainpid" = "$DPID" ] &&
		[ "$MSG_PID" = "$DPID" ]
}

# The manager follows MAINPID= only if it comes before the PID it
# started (the parent) exits.
ready_before_exit()
{
	local exited

	nth_msg 1 READY=1 || return 1
	exited=$(tr -dc 0-9 <"$EXITED" 2>/dev/null)
	diag "READY=1 sent at $MSG_USEC us, the parent exited by ${exited:-?}"
	[ -n "$exited" ] && [ "$MSG_USEC" -lt "$exited" ]
}

daemon_stopping()
{
	[ -n "$DPID" ] || return 1
	kill -TERM "$DPID"
	wait_gone "$DPID" 50 || return 1
	forget_pid "$DPID"
	nth_msg 1 STOPPING=1 && [ "$MSG_PID" = "$DPID" ]
}

listen "@gsotun-test-$$" "$NS_A" || bail "no abstract notification socket"
check "--daemon, NOTIFY_SOCKET=@name: READY=1 once the tap is set up" \
	daemon_ready
check "  MAINPID= is the daemon's PID, as in the pidfile" mainpid_is_pidfile
check "  READY=1 and MAINPID= were sent before the parent exited" \
	ready_before_exit
check "  STATUS= as in the foreground" \
	status_is "vxlan VNI 1 to $UL_B, MTU $MTU"
check "  SIGTERM: STOPPING=1 from the daemon" daemon_stopping
listen_stop

done_testing
