#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where gsotun's messages go. Under systemd (JOURNAL_STREAM names stderr)
# each line starts with its priority, "<6>", "<4>", "<3>"; in the
# foreground --log-time puts the local time first; a --daemon returns at
# once to a caller that reads its output, its stderr is /dev/null and
# its messages, the SIGUSR1 counters among them, go to syslog (a
# stand-in bound over /dev/log in a private mount namespace). A sysctl
# that a read-only /proc/sys (ProtectKernelTunables=) refuses is a
# warning naming the file; with the conf directories writable again, as
# the unit's ReadWritePaths= makes them, it is set.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 unshare mount stat date
net_setup 4 32
A_ARGS=(--remote "$UL_B" --address "$OV4_A/24")

# gsotun under test, in the conditions WRAP_* ask for: a private mount
# namespace with /proc/sys read-only (WRAP_RO_SYSCTL, but the
# directories in WRAP_RW_SYSCTL), a /dev whose log is the socket
# WRAP_DEVLOG; JOURNAL_STREAM naming its stderr (WRAP_JOURNAL). It execs
# gsotun, which keeps the PID the test started.
export WRAP_REAL=$GSOTUN
GSOTUN=$LIB_TMP/wrap
cat >"$GSOTUN" <<'EOF'
#!/bin/bash
set -e
if [ -n "$WRAP_RO_SYSCTL$WRAP_DEVLOG" ] && [ -z "$WRAP_UNSHARED" ]; then
	WRAP_UNSHARED=1 exec unshare -m --propagation private "$0" "$@"
fi
if [ -n "$WRAP_RO_SYSCTL" ]; then
	mount --bind /proc/sys /proc/sys
	mount -o remount,bind,ro /proc/sys
	for d in $WRAP_RW_SYSCTL; do
		mount --bind "$d" "$d"
		mount -o remount,bind,rw "$d"
	done
fi
if [ -n "$WRAP_DEVLOG" ]; then
	dev=$(dirname "$WRAP_DEVLOG")/dev
	mount -t tmpfs -o mode=0755 tmpfs "$dev"
	for n in null zero full random urandom net/tun log; do
		mkdir -p "$(dirname "$dev/$n")"
		touch "$dev/$n"
	done
	for n in null zero full random urandom net/tun; do
		mount --bind "/dev/$n" "$dev/$n"
	done
	mount --bind "$WRAP_DEVLOG" "$dev/log"
	mount --rbind "$dev" /dev
fi
if [ -n "$WRAP_JOURNAL" ]; then
	JOURNAL_STREAM=$(stat -L -c %d:%i "/proc/$$/fd/2")
	export JOURNAL_STREAM
fi
exec "$WRAP_REAL" "$@"
EOF
chmod 0755 "$GSOTUN"

# lines_all RE: every line gsotun wrote to stderr matches RE (and some).
lines_all()
{
	local bad

	[ -s "${GT_ERR[$NS_A]}" ] || { diag "nothing logged"; return 1; }
	bad=$(grep -Ev -- "$1" "${GT_ERR[$NS_A]}")
	[ -z "$bad" ] || { diag "lines not matching $1:" "$bad"; return 1; }
}

# has_line RE: a line gsotun wrote to stderr matches RE.
has_line()
{
	grep -Eq -- "$1" "${GT_ERR[$NS_A]}" ||
		{ diag "no line matches $1"; gt_log "$NS_A"; return 1; }
}

counters_match()
{
	gt_counters "$NS_A" || return 1
	[[ $GT_CTR =~ $1 ]] ||
		{ diag "counters line: ${GT_CTR:0:80}"; return 1; }
}

# -------------------------------------------------------------- journal

export WRAP_JOURNAL=1
check "under the journal: gsotun starts" gt_start "$NS_A" "$TAP_A" \
	"${A_ARGS[@]}"
check "  every line starts with a priority, <0> to <7>" lines_all '^<[0-7]>'
check "  the start-up line with <6> (info), no level word" \
	has_line "^<6>$TAP_A: vxlan VNI 1 tunnel"
check "  SIGUSR1: the counters line with <6>" \
	counters_match '^<6>([a-z_]+=[0-9]+ )+'
check "  SIGTERM: stops cleanly" gt_stop "$NS_A"

# A set-up error: --local is no address of the host.
setup_error()
{
	local err=$LIB_TMP/journal-error.err st

	ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "$TAP_A" \
		"${A_ARGS[@]}" --local 198.18.32.99 </dev/null >/dev/null \
		2>"$err"
	st=$?
	diag "exit status $st:" "$(cat "$err")"
	[ "$st" -eq 1 ] && grep -q '^<3>.*198\.18\.32\.99' "$err" &&
		! grep -qv '^<[0-7]>' "$err"
}
check "  a set-up error: exit status 1, its line with <3> (error)" \
	setup_error

# Warnings (<4>): /proc/sys read-only, as under ProtectKernelTunables=.
sysctl_warned()
{
	local key f re

	for key in ipv4/conf/"$TAP_A"/arp_notify \
		ipv6/conf/"$TAP_A"/ndisc_notify \
		ipv6/conf/"$TAP_A"/keep_addr_on_down; do
		f=/proc/sys/net/$key
		re="^$1cannot set $f: Read-only file system "
		re="$re(.*ProtectKernelTunables"
		grep -q "$re" "${GT_ERR[$NS_A]}" ||
			{ diag "no warning for $f"; gt_log "$NS_A"; return 1; }
	done
}

export WRAP_RO_SYSCTL=1
check "/proc/sys read-only, under the journal: gsotun starts all the same" \
	gt_start "$NS_A" "$TAP_A" "${A_ARGS[@]}"
check "  a warning (<4>) for each sysctl, naming the file and the cause" \
	sysctl_warned '<4>'
check "  SIGTERM: stops cleanly" gt_stop "$NS_A"
unset WRAP_JOURNAL

# --------------------------------------------------------------- stderr

# A JOURNAL_STREAM inherited by a process whose stderr is elsewhere.
export JOURNAL_STREAM=1:1
check "read-only /proc/sys, stderr not the journal's: gsotun starts" \
	gt_start "$NS_A" "$TAP_A" "${A_ARGS[@]}"
check "  the same warnings, as 'gsotun: warning: '" \
	sysctl_warned 'gsotun: warning: '
check "  SIGTERM: stops cleanly" gt_stop "$NS_A"
unset JOURNAL_STREAM

sysctls_set()
{
	local key v

	for key in ipv4/conf/"$TAP_A"/arp_notify \
		ipv6/conf/"$TAP_A"/ndisc_notify \
		ipv6/conf/"$TAP_A"/keep_addr_on_down; do
		v=$(ip netns exec "$NS_A" cat "/proc/sys/net/$key")
		[ "$v" = 1 ] || { diag "$key is '$v'"; return 1; }
	done
	! grep -q 'cannot set' "${GT_ERR[$NS_A]}" ||
		{ gt_log "$NS_A"; return 1; }
}

export WRAP_RW_SYSCTL="/proc/sys/net/ipv4/conf /proc/sys/net/ipv6/conf"
check "read-only /proc/sys but the conf directories (ReadWritePaths=)" \
	gt_start "$NS_A" "$TAP_A" "${A_ARGS[@]}"
check "  no warning, every sysctl set" sysctls_set
check "  SIGTERM: stops cleanly" gt_stop "$NS_A"
unset WRAP_RO_SYSCTL WRAP_RW_SYSCTL

TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}'
TS="${TS}[-+][0-9]{2}:[0-9]{2}"

# The time said is now (within a minute), by GNU date's ISO 8601 parser.
time_is_now()
{
	local line ts t now

	line=$(head -n 1 "${GT_ERR[$NS_A]}")
	ts=${line%% *}
	t=$(date -d "$ts" +%s 2>/dev/null)
	now=$(date +%s)
	diag "first line: $line"
	[ -n "$t" ] && [ $((now - t)) -ge 0 ] && [ $((now - t)) -lt 60 ]
}

check "--log-time: gsotun starts" gt_start "$NS_A" "$TAP_A" \
	"${A_ARGS[@]}" --log-time
check "  every line starts with the local time, ISO 8601, ms" \
	lines_all "^$TS "
check "  then the level, as without" \
	has_line "^$TS gsotun: info: $TAP_A: vxlan VNI 1 tunnel"
check "  the time is now" time_is_now
check "  SIGUSR1: the counters line with the time first" \
	counters_match "^$TS ([a-z_]+=[0-9]+ )+"
check "  SIGTERM: stops cleanly" gt_stop "$NS_A"

# --------------------------------------------------------------- syslog

SYSLOG=$LIB_TMP/syslog
PIDFILE=$LIB_TMP/gsotun.pid
mkdir "$LIB_TMP/dev" || bail "cannot make $LIB_TMP/dev"
"$PYTHON" "$LIB_DIR/dgram-listen.py" "$LIB_TMP/log.sock" "$SYSLOG" \
	</dev/null >/dev/null 2>"$SYSLOG.err" &
track_pid $!
for ((i = 0; i < 50; i++)); do
	grep -qx listening "$SYSLOG" 2>/dev/null && break
	sleep 0.1
done
grep -qx listening "$SYSLOG" || bail "no syslog stand-in: $(cat "$SYSLOG.err")"

# The caller reads the daemon's stdout and stderr through a pipe: cat
# gives up after 10 s if the daemon keeps it open.
daemon_returns()
{
	local t0 t1 out

	t0=$(date +%s%N)
	out=$( { WRAP_DEVLOG=$LIB_TMP/log.sock ip netns exec "$NS_A" \
		"$GSOTUN" --dev "$TAP_A" "${A_ARGS[@]}" --daemon \
		--pidfile "$PIDFILE" </dev/null 2>&1; echo "status $?"; } |
		timeout 10 cat)
	t1=$(date +%s%N)
	DPID=$(tr -dc 0-9 <"$PIDFILE" 2>/dev/null)
	[ -n "$DPID" ] && pid_alive "$DPID" && track_pid "$DPID"
	diag "returned after $(((t1 - t0) / 1000000)) ms:" "$out"
	[ $((t1 - t0)) -lt 5000000000 ] && [[ $out == *"status 0" ]] &&
		[[ $out != *"vxlan VNI 1 tunnel"* ]]
}

fds_null()
{
	local fd target

	[ -n "$DPID" ] || return 1
	for fd in 0 1 2; do
		target=$(readlink "/proc/$DPID/fd/$fd")
		[ "$target" = /dev/null ] ||
			{ diag "fd $fd is $target"; return 1; }
	done
}

# syslogged PRI RE: a datagram "<PRI>... gsotun[PID]: " then RE came.
syslogged()
{
	local i re="^[0-9]+"$'\t'"[0-9]+"$'\t'"<$1>[A-Z][a-z]{2} [ 0-9]{2} "

	re="${re}[0-9:]{8} gsotun\\[$DPID\\]: $2"
	for ((i = 0; i < 50; i++)); do
		grep -Eq "$re" "$SYSLOG" && return 0
		sleep 0.1
	done
	diag "nothing like <$1>...gsotun[$DPID]: $2 in:" \
		"$(cut -f 3 "$SYSLOG" | cut -c 1-100)"
	return 1
}

# A VXLAN packet with VNI 2 from the peer: a warning, at most one.
wrong_vni()
{
	ip netns exec "$NS_B" "$PYTHON" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
pkt = bytes([8, 0, 0, 0, 0, 0, 2, 0]) + bytes(14) + bytes(46)
s.sendto(pkt, (sys.argv[1], 4789))' "$UL_A"
}

daemon_stop()
{
	[ -n "$DPID" ] || return 1
	kill -TERM "$DPID"
	wait_gone "$DPID" 50 || return 1
	forget_pid "$DPID"
	dev_gone "$NS_A" "$TAP_A"
}

check "gsotun --daemon returns at once to a caller reading its output" \
	daemon_returns
check "  its stdin, stdout and stderr are /dev/null" fds_null
check "  the start-up line reaches syslog: daemon.info (<30>), its PID" \
	syslogged 30 "$TAP_A: vxlan VNI 1 tunnel"
wrong_vni
check "  a warning: daemon.warning (<28>)" \
	syslogged 28 "$TAP_A: dropping vxlan packets with VNI 2 from $UL_B"
[ -n "$DPID" ] && kill -USR1 "$DPID"
check "  SIGUSR1: the peer's counters line, daemon.info" \
	syslogged 30 "peer $UL_B path_mtu="
check "  and the tunnel's" syslogged 30 "([a-z_]+=[0-9]+ )*tx_frames="
check "  SIGTERM: stops, its tap removed" daemon_stop
check "  having said so to syslog" syslogged 30 "signal 15: stopping"

done_testing
