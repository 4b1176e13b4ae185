#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun as a process: --daemon with --pidfile, signals (SIGTERM, SIGUSR1,
# SIGINT; SIGHUP without --peers: a --daemon goes on, one on a terminal
# without a service manager stops), removal of the tap at exit, and exit
# status 64 on bad usage. A --daemon whose set-up fails after the fork
# (--user) says so on stderr, exit status 1.
# The pidfile (issue 12): a symlink planted at its name in a directory of
# the service user is replaced, never followed; a pidfile a running
# gsotun holds is refused.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 5

pidfile=$LIB_TMP/gsotun.pid
dpid=
# No service manager here: SIGHUP's outcome is the process's own.
unset NOTIFY_SOCKET

# Both ends VXLAN over IPv4.
b_args=(--encap vxlan --local "$UL_B" --remote "$UL_A" --address "$OV4_B/24")
a_args=(--encap vxlan --local "$UL_A" --remote "$UL_B" --address "$OV4_A/24")

check "foreground gsotun starts in B" gt_start "$NS_B" "$TAP_B" "${b_args[@]}"

# The daemon: the command itself must return at once, status 0.
daemon_start()
{
	local t0 t1 st

	t0=$(date +%s%N)
	ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "$TAP_A" \
		"${a_args[@]}" --daemon --pidfile "$pidfile" \
		</dev/null >"$LIB_TMP/daemon.out" 2>"$LIB_TMP/daemon.err"
	st=$?
	t1=$(date +%s%N)
	dpid=$(head -n 1 "$pidfile" 2>/dev/null | tr -dc 0-9)
	# Whatever happens below, that process is killed at exit.
	[ -n "$dpid" ] &&
		[ "$(cat "/proc/$dpid/comm" 2>/dev/null)" = gsotun ] &&
		track_pid "$dpid"
	diag "gsotun --daemon returned $st after $(((t1 - t0) / 1000000)) ms"
	[ "$st" -eq 0 ] && [ $((t1 - t0)) -lt 5000000000 ] || {
		diag "$(cat "$LIB_TMP/daemon.err")"
		return 1
	}
}

pidfile_live()
{
	local comm

	[ -n "$dpid" ] || { diag "no PID in $pidfile"; return 1; }
	comm=$(cat "/proc/$dpid/comm" 2>/dev/null)
	[ "$comm" = gsotun ] && pid_alive "$dpid" ||
		{ diag "PID $dpid: comm '$comm'"; return 1; }
}

pidfile_mode()
{
	local mode

	mode=$(stat -c %a "$pidfile" 2>/dev/null)
	[ "$mode" = 644 ] ||
		{ diag "mode of $pidfile: ${mode:-none}"; return 1; }
}

daemon_works()
{
	local i

	for ((i = 0; i < 100; i++)); do
		dev_ready "$NS_A" "$TAP_A" "$OV4_A/24" && break
		sleep 0.1
	done
	ping_ok "$NS_A" "$OV4_B" && ping_ok "$NS_B" "$OV4_A"
}

# SIGTERM: the process and its tap are gone within 2 s.
daemon_stop()
{
	local i

	[ -n "$dpid" ] && pid_alive "$dpid" || return 1
	kill -TERM "$dpid"
	for ((i = 0; i < 20; i++)); do
		if ! pid_alive "$dpid" && dev_gone "$NS_A" "$TAP_A"; then
			forget_pid "$dpid"
			[ -e "$pidfile" ] && diag "note: $pidfile left behind"
			return 0
		fi
		sleep 0.1
	done
	diag "after 2 s: process $(pid_alive "$dpid" && echo alive ||
		echo gone), tap $(dev_gone "$NS_A" "$TAP_A" && echo gone ||
		echo present)"
	return 1
}

check "gsotun --daemon --pidfile returns at once with status 0" daemon_start
check "the pidfile names a live process called gsotun" pidfile_live
check "the pidfile has mode 0644" pidfile_mode
check "ping both ways through the daemon's tunnel" daemon_works

# A --daemon has no terminal to hang up: SIGHUP without --peers is a
# reload (a Type=forking unit's kill -HUP), and the tunnel stays.
daemon_hup()
{
	[ -n "$dpid" ] && pid_alive "$dpid" || return 1
	kill -HUP "$dpid"
	sleep 0.5
	pidfile_live && ping_ok "$NS_A" "$OV4_B" && pidfile_live
}

check "SIGHUP without --peers: the daemon and its tunnel stay" daemon_hup
check "SIGTERM removes the daemon and its tap within 2 s" daemon_stop

# A set-up error after the fork (a --chroot that is not there, found
# when privileges are dropped): said on the terminal and exit status 1,
# the parent waiting for the child's word; no pidfile left (the drop
# failed: gsotun is root still and removes it), no tap. (A --user of no
# one is found before anything is set up: 64, netns-privdrop.sh.)
bad_chroot()
{
	local st out pid dir=/nonexistent$$ i

	out=$(ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "$TAP_A" \
		"${a_args[@]}" --daemon --pidfile "$pidfile" --user nobody \
		--chroot "$dir" 2>&1 </dev/null)
	st=$?
	diag "--daemon --chroot $dir -> $st: $out"
	pid=$(head -n 1 "$pidfile" 2>/dev/null | tr -dc 0-9)
	if [ -n "$pid" ] && pid_alive "$pid"; then
		diag "PID $pid of $pidfile runs"
		return 1
	fi
	if [ -e "$pidfile" ]; then
		diag "$pidfile left behind (PID ${pid:-none})"
		return 1
	fi
	for ((i = 0; i < 20; i++)); do
		dev_gone "$NS_A" "$TAP_A" && break
		sleep 0.1
	done
	[ "$st" -eq 1 ] && grep -q "change root to $dir" <<<"$out" &&
		dev_gone "$NS_A" "$TAP_A"
}

check "--daemon --chroot that is not there: exit status 1, said on stderr" \
	bad_chroot

# The planted symlink: a directory of nobody's, and at the pidfile's
# name a link to a root-owned file of mode 0600.
RUN=$LIB_TMP/run
SECRET=$LIB_TMP/secret
plant()
{
	mkdir -m 0755 "$RUN" && chown nobody "$RUN" &&
		echo "root's secret" >"$SECRET" && chmod 0600 "$SECRET" &&
		ln -s "$SECRET" "$RUN/gsotun.pid"
}

# The file linked to is as it was; the pidfile is a file of its own,
# mode 0644, with the PID of the gsotun that runs.
not_followed()
{
	local pid=${GT_PID[$NS_A]} got

	[ "$(cat "$SECRET")" = "root's secret" ] &&
		[ "$(stat -c %a "$SECRET")" = 600 ] ||
		{ diag "$SECRET: $(stat -c %a "$SECRET") $(cat "$SECRET")"
		  return 1; }
	[ -f "$RUN/gsotun.pid" ] && [ ! -L "$RUN/gsotun.pid" ] ||
		{ diag "$(ls -l "$RUN")"; return 1; }
	got=$(cat "$RUN/gsotun.pid")
	[ "$got" = "$pid" ] && [ "$(stat -c %a "$RUN/gsotun.pid")" = 644 ] ||
		{ diag "pidfile says '$got', gsotun is $pid," \
			"mode $(stat -c %a "$RUN/gsotun.pid")"; return 1; }
}

# A second gsotun (its own tap and port) with the same pidfile: refused
# with exit status 1, the pidfile left alone.
held()
{
	local out st

	out=$(ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "sec$$" \
		"${a_args[@]}" --port 4790 --pidfile "$RUN/gsotun.pid" \
		2>&1 </dev/null)
	st=$?
	diag "second gsotun: status $st: $(grep pidfile <<<"$out")"
	[ "$st" -eq 1 ] && grep -q "is held by a running gsotun" <<<"$out" &&
		[ "$(cat "$RUN/gsotun.pid")" = "${GT_PID[$NS_A]}" ] &&
		dev_gone "$NS_A" "sec$$"
}

check "a symlink to a root-owned 0600 file planted in nobody's directory" \
	plant
check "gsotun --pidfile there --user nobody starts" \
	gt_start "$NS_A" "$TAP_A" "${a_args[@]}" --pidfile "$RUN/gsotun.pid" \
	--user nobody
check "the link is replaced, not followed; the pidfile is gsotun's, 0644" \
	not_followed
check "a second gsotun with the same pidfile is refused" held
check "SIGTERM stops the first" gt_stop "$NS_A"
check "a pidfile no process holds is taken over" \
	gt_start "$NS_A" "$TAP_A" "${a_args[@]}" --pidfile "$RUN/gsotun.pid"
check "  and names the new gsotun" not_followed
check "  which removes it at exit" gt_stop "$NS_A"
check "  (it is gone)" test ! -e "$RUN/gsotun.pid"

usr1_line()
{
	gt_counters "$NS_B" || return 1
	gt_show B
	[ -n "$(ctr "$GT_CTR" tx_frames)" ]
}

check "SIGUSR1 prints a counters line with tx_frames= on stderr" usr1_line
check "SIGINT: exit status 0, counters printed, tap removed" \
	gt_stop "$NS_B" INT

# On a terminal (no NOTIFY_SOCKET) SIGHUP without --peers stops.
check "gsotun starts again in B" gt_start "$NS_B" "$TAP_B" "${b_args[@]}"
check "SIGHUP without --peers nor a service manager: stops, status 0" \
	gt_stop "$NS_B" HUP

# bad_usage ARG...: exit status 64, a message, no device left behind.
bad_usage()
{
	local st out

	out=$(ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "bad$$" \
		"${a_args[@]}" "$@" 2>&1 </dev/null)
	st=$?
	diag "$* -> $st: $(head -n 1 <<<"$out")"
	dev_gone "$NS_A" "bad$$" || diag "bad$$ was created"
	[ "$st" -eq 64 ] && [ -n "$out" ] && dev_gone "$NS_A" "bad$$"
}

check "--vni x: exit status 64 with a message" bad_usage --vni x
check "--encap bogus: exit status 64 with a message" bad_usage --encap bogus
check "--port 70000: exit status 64 with a message" bad_usage --port 70000
check "an unknown option: exit status 64 with a message" bad_usage --frobnicate

done_testing
