# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers sourced by the namespace tests (bash): TAP output, clean-up,
# two namespaces joined by veth, gsotun endpoints, transfers and captures.
#
# Everything a test creates is recorded here and removed by the EXIT trap:
# processes are killed by PID, namespaces deleted, the mktemp -d directory
# removed. Nothing is ever configured outside the test's own namespaces.
#
# Environment:
#   GSOTUN, GSOTUNCTL    the binaries (default: src/ of this tree)
#   TESTS_DIR            where lib.sh and the helpers are (make check sets it)
#   GSOTUN_TEST_ARGS     words appended to every gsotun that gt_start starts
#                        (e.g. "--queues 2"; tests/netns-q2-*.sh set it)
#   GSOTUN_TEST_TIMEOUT  seconds before a test's watchdog fires
#   GSOTUN_TEST_KEEP=1   keep the temporary directory for a post-mortem

# shellcheck shell=bash
# Variables set here are used by the scripts that source this file.
# shellcheck disable=SC2034

LIB_DIR=${TESTS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
# Debian's python3, which has the Debian modules (the PATH one may not).
PYTHON=/usr/bin/python3
# ip, ethtool and tcpdump live in sbin, missing from some users' PATH.
PATH=$PATH:/usr/sbin:/sbin

# ---------------------------------------------------------------- TAP

tap_n=0

diag()
{
	local line

	printf '%s\n' "$@" | while IFS= read -r line; do
		[ -n "$line" ] && printf '# %s\n' "$line"
	done
}

# ok STATUS DESCRIPTION: one TAP line, a pass when STATUS is 0.
ok()
{
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
	fi
	return "$1"
}

# check DESCRIPTION COMMAND...: run COMMAND, one TAP line for its status.
check()
{
	local desc=$1

	shift
	"$@"
	ok $? "$desc"
}

# fail_skipped REASON DESCRIPTION...: checks that could not run, as failures.
fail_skipped()
{
	local reason=$1 desc

	shift
	for desc in "$@"; do
		ok 1 "$desc (not run: $reason)"
	done
}

bail()
{
	echo "Bail out! $*"
	exit 1
}

# The plan goes last, so a script that dies half way is an error.
done_testing()
{
	echo "1..$tap_n"
	exit 0
}

# ---------------------------------------------------------------- clean-up

LIB_PIDS=()
LIB_NS=()
LIB_TMP=
LIB_WATCHDOG=

# Remember a process to kill at exit; forget it once waited for, so a
# recycled PID is never signalled.
track_pid()
{
	LIB_PIDS+=("$1")
}

forget_pid()
{
	local i

	for i in "${!LIB_PIDS[@]}"; do
		[ "${LIB_PIDS[$i]}" = "$1" ] && unset "LIB_PIDS[$i]"
	done
}

# Alive and not a zombie (the state follows the command name in stat).
pid_alive()
{
	local stat

	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ -n "$stat" ] && [ "${stat:0:1}" != Z ] && [ "${stat:0:1}" != X ]
}

# wait_gone PID TENTHS: poll until PID has exited (or is a zombie).
wait_gone()
{
	local i

	for ((i = 0; i < $2; i++)); do
		pid_alive "$1" || return 0
		sleep 0.1
	done
	! pid_alive "$1"
}

lib_cleanup()
{
	local pid ns

	trap - EXIT INT TERM ALRM
	if [ -n "$LIB_WATCHDOG" ]; then
		kill -TERM "$LIB_WATCHDOG" 2>/dev/null
		wait "$LIB_WATCHDOG" 2>/dev/null
	fi
	for pid in "${LIB_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${LIB_PIDS[@]}"; do
		wait_gone "$pid" 30 || kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ns in "${LIB_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	if [ -n "$GSOTUN_TEST_KEEP" ] && [ -n "$LIB_TMP" ]; then
		echo "# kept $LIB_TMP"
	elif [ -n "$LIB_TMP" ]; then
		rm -rf "$LIB_TMP"
	fi
}

# A watchdog turns a hang into a failure of this test, not a stuck CI.
lib_watchdog()
{
	(
		trap 'kill $sp 2>/dev/null; exit 0' TERM
		sleep "$1" &
		sp=$!
		wait $sp
		kill -ALRM $$
	) </dev/null >/dev/null 2>&1 &
	LIB_WATCHDOG=$!
}

# lib_init SECONDS TOOL...: skip without root or netns, bail out when a
# tool is missing, then set up the temporary directory, traps and watchdog
# (SECONDS, or $GSOTUN_TEST_TIMEOUT when set). GSOTUN_TEST_KEEP=1 keeps the
# temporary directory (captures, gsotun's stderr) for a post-mortem.
lib_init()
{
	local limit=${GSOTUN_TEST_TIMEOUT:-$1} tool missing=

	shift
	[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root"; exit 0; }
	if ! ip netns add "gtP$$" 2>/dev/null; then
		echo "1..0 # SKIP needs root (ip netns does not work here)"
		exit 0
	fi
	ip netns del "gtP$$"

	for tool in ip ss timeout sha256sum env "$@"; do
		command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
	done
	[ -z "$missing" ] ||
		bail "missing tools:$missing (contrib/deps.sh installs them)"

	GSOTUN=${GSOTUN:-$LIB_DIR/../src/gsotun}
	[ -x "$GSOTUN" ] || bail "gsotun not found at $GSOTUN (set GSOTUN)"

	trap lib_cleanup EXIT
	trap 'echo "Bail out! interrupted"; exit 1' INT TERM
	# shellcheck disable=SC2064 # $limit is expanded now, on purpose
	trap "echo 'Bail out! timed out after ${limit} s'; exit 1" ALRM
	LIB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gsotun-test.XXXXXX") ||
		bail "mktemp -d failed"
	lib_watchdog "$limit"
}

# ---------------------------------------------------------------- topology

# ns_add NS: a namespace, deleted at exit, loopback up, no duplicate
# address detection (addresses usable at once).
ns_add()
{
	ip netns add "$1" || bail "cannot create namespace $1"
	LIB_NS+=("$1")
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 ||
		bail "sysctl in $1 failed"
}

# net_setup FAMILY [X]: namespaces NS_A and NS_B joined by a veth pair
# (MTU 1500) with underlay addresses of FAMILY (4 or 6) on subnet X.
# Sets NS_A NS_B VETH_A VETH_B UL_A UL_B OV4_A OV4_B OV6_A OV6_B TAP_A TAP_B.
net_setup()
{
	local fam=$1 x=${2:-1} ns plen nodad=()

	NS_A=gtA$$ NS_B=gtB$$
	VETH_A=uA$$ VETH_B=uB$$
	TAP_A=tA$$ TAP_B=tB$$
	if [ "$fam" = 6 ]; then
		UL_A=fd00:198:18:$x::1 UL_B=fd00:198:18:$x::2 plen=64
		nodad=(nodad)
	else
		UL_A=198.18.$x.1 UL_B=198.18.$x.2 plen=24
	fi
	OV4_A=10.$x.0.1 OV4_B=10.$x.0.2
	OV6_A=fd00:10:$x::1 OV6_B=fd00:10:$x::2

	for ns in "$NS_A" "$NS_B"; do
		ns_add "$ns"
	done
	# Created inside the namespaces: nothing appears in the root one.
	ip -n "$NS_A" link add "$VETH_A" mtu 1500 type veth \
		peer name "$VETH_B" netns "$NS_B" mtu 1500 ||
		bail "cannot create veth pair"
	ip -n "$NS_A" addr add "$UL_A/$plen" dev "$VETH_A" "${nodad[@]}"
	ip -n "$NS_B" addr add "$UL_B/$plen" dev "$VETH_B" "${nodad[@]}"
	ip -n "$NS_A" link set "$VETH_A" up
	ip -n "$NS_B" link set "$VETH_B" up
	wait_underlay || bail "underlay $UL_A <-> $UL_B does not answer"
}

wait_underlay()
{
	local i

	for ((i = 0; i < 50; i++)); do
		ip netns exec "$NS_A" ping -c 1 -W 1 "$UL_B" >/dev/null 2>&1 &&
			return 0
		sleep 0.1
	done
	return 1
}

# ---------------------------------------------------------------- gsotun

declare -A GT_PID GT_ERR GT_DEV
gt_seq=0

# dev_ready NS DEV CIDR...: DEV exists, is UP and has every address, none
# still tentative.
dev_ready()
{
	local ns=$1 dev=$2 link addrs cidr

	shift 2
	link=$(ip -n "$ns" -o link show dev "$dev" 2>/dev/null) || return 1
	[[ $link == *[\<,]UP[,\>]* ]] || return 1
	addrs=$(ip -n "$ns" -o addr show dev "$dev" 2>/dev/null) || return 1
	[[ $addrs == *tentative* ]] && return 1
	for cidr in "$@"; do
		[[ $addrs == *" $cidr "* ]] || return 1
	done
	return 0
}

# kvx_b NAME VNI CIDR [MTU]: the kernel's vxlan device NAME on B for VNI,
# to A on port 4789, CIDR on it, up and ready.
kvx_b()
{
	local i

	ip -n "$NS_B" link add "$1" type vxlan id "$2" local "$UL_B" \
		remote "$UL_A" dstport 4789 dev "$VETH_B" || return 1
	if [ -n "${4:-}" ]; then
		ip -n "$NS_B" link set "$1" mtu "$4" || return 1
	fi
	ip -n "$NS_B" addr add "$3" dev "$1" &&
		ip -n "$NS_B" link set "$1" up || return 1
	for ((i = 0; i < 50; i++)); do
		dev_ready "$NS_B" "$1" "$3" && return 0
		sleep 0.1
	done
	return 1
}

# dev_gone NS DEV
dev_gone()
{
	! ip -n "$1" link show dev "$2" >/dev/null 2>&1
}

# gt_start NS DEV ARGS...: start gsotun --dev DEV ARGS in NS, in the
# foreground as far as gsotun knows (stderr to a file, SIGINT at its
# default disposition, as from a terminal), and wait until it is ready.
# The words of $GSOTUN_TEST_ARGS follow ARGS, so that a whole script runs
# again with another mode (tests/netns-q2-*.sh: --queues 2); the gsotun a
# script runs itself, not through gt_start, do not get them.
gt_start()
{
	local ns=$1 dev=$2 cidrs=() prev='' arg i pid err extra=()

	shift 2
	for arg in "$@"; do
		# DEV=CIDR is for another tap (--vni N=DEV).
		[ "$prev" = --address ] && [[ $arg != *=* ]] && cidrs+=("$arg")
		prev=$arg
	done
	read -r -a extra <<<"${GSOTUN_TEST_ARGS:-}"
	gt_seq=$((gt_seq + 1))
	err=$LIB_TMP/gsotun.$ns.$gt_seq.err
	echo "$GSOTUN --dev $dev $* ${extra[*]}" >"$err.cmd"
	ip netns exec "$ns" env --default-signal=INT "$GSOTUN" \
		--dev "$dev" "$@" "${extra[@]}" \
		</dev/null >"$err.out" 2>"$err" &
	pid=$!
	track_pid "$pid"
	GT_PID[$ns]=$pid GT_ERR[$ns]=$err GT_DEV[$ns]=$dev

	for ((i = 0; i < 100; i++)); do
		if ! pid_alive "$pid"; then
			wait "$pid"
			diag "gsotun in $ns exited with status $? at start:"
			diag "$(tail -n 5 "$err")"
			forget_pid "$pid"
			GT_PID[$ns]=
			return 1
		fi
		dev_ready "$ns" "$dev" "${cidrs[@]}" && return 0
		sleep 0.1
	done
	diag "gsotun in $ns: $dev not up with ${cidrs[*]} after 10 s"
	diag "$(ip -n "$ns" addr show dev "$dev" 2>&1)" "$(tail -n 5 "$err")"
	return 1
}

# poll_sleep I: the pause after look I of a loop that waits for
# something: 10 ms for the first ten, as most things come within a few,
# then 0.1 s.
poll_sleep()
{
	if [ "$1" -lt 10 ]; then
		sleep 0.01
	else
		sleep 0.1
	fi
}

# Number of counter lines gsotun printed so far.
gt_nlines()
{
	grep -c 'tx_frames=' "${GT_ERR[$1]}" 2>/dev/null
}

# gt_counters NS: SIGUSR1, then the fresh counters line in GT_CTR.
gt_counters()
{
	local ns=$1 pid=${GT_PID[$1]} n i

	GT_CTR=
	[ -n "$pid" ] || return 1
	n=$(gt_nlines "$ns")
	kill -USR1 "$pid" 2>/dev/null || return 1
	for ((i = 0; i < 60; i++)); do
		# stderr is unbuffered: wait for the whole line.
		if [ "$(gt_nlines "$ns")" -gt "$n" ] &&
			[ "$(tail -c 1 "${GT_ERR[$ns]}" | wc -l)" -eq 1 ]; then
			GT_CTR=$(grep 'tx_frames=' "${GT_ERR[$ns]}" | tail -n 1)
			return 0
		fi
		poll_sleep "$i"
	done
	diag "gsotun in $ns printed no counters after SIGUSR1"
	return 1
}

# ctr LINE NAME: the value of NAME in a counters line (empty if absent).
ctr()
{
	local re="(^|[[:space:]])$2=([0-9]+)"

	[[ $1 =~ $re ]] && echo "${BASH_REMATCH[2]}"
}

# ctr_ge NS NAME MIN: counter NAME of the gsotun in NS is at least MIN
# (its fresh counters line left in GT_CTR).
ctr_ge()
{
	local v

	gt_counters "$1" || return 1
	v=$(ctr "$GT_CTR" "$2")
	[ "${v:-0}" -ge "$3" ] ||
		{ diag "$1: $2=${v:-none}, want >= $3"; return 1; }
}

# ctr_drops_zero LINE: every rx_drop_* and tx_drop_* counter is 0 (and
# there are some), and so is rx_inner_csum_bad: no inner segment whose
# checksum is wrong was passed on.
ctr_drops_zero()
{
	local line=$1 bad n
	local re='([rt]x_drop_[a-z0-9_]*|rx_inner_csum_bad)=[0-9]*'

	n=$(grep -Eo "$re" <<<"$line" | wc -l)
	bad=$(grep -Eo "$re" <<<"$line" | grep -v '=0$')
	[ "$n" -gt 0 ] || { diag "no drop counters in: $line"; return 1; }
	[ -z "$bad" ] || { diag "non-zero drops: ${bad//$'\n'/ }"; return 1; }
}

# gt_show LABEL: the non-zero counters of the last line, as a diagnostic.
gt_show()
{
	local nonzero

	nonzero=$(tr ' ' '\n' <<<"$GT_CTR" | grep -v '=0$' | tr '\n' ' ')
	[ -n "$GT_CTR" ] && diag "$1: $nonzero"
}

# gt_stop NS [SIG]: SIGTERM (or SIG), gsotun must exit 0 within 5 s, print
# a counters line and remove its tap.
gt_stop()
{
	local ns=$1 sig=${2:-TERM} pid=${GT_PID[$1]} st dev=${GT_DEV[$1]}
	local n

	[ -n "$pid" ] || return 1
	n=$(gt_nlines "$ns")
	kill -"$sig" "$pid" 2>/dev/null
	if ! wait_gone "$pid" 50; then
		diag "gsotun in $ns still running 5 s after SIG$sig"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"
	st=$?
	forget_pid "$pid"
	GT_PID[$ns]=
	GT_CTR=$(grep 'tx_frames=' "${GT_ERR[$ns]}" | tail -n 1)
	[ "$st" -eq 0 ] || { diag "gsotun in $ns exited $st"; return 1; }
	[ "$(gt_nlines "$ns")" -gt "$n" ] ||
		{ diag "gsotun in $ns printed no counters at exit"; return 1; }
	dev_gone "$ns" "$dev" ||
		{ diag "$dev still exists in $ns after exit"; return 1; }
}

# wait_log NS TEXT: gsotun in NS has logged TEXT (5 s at most).
wait_log()
{
	local i

	for ((i = 0; i < 60; i++)); do
		grep -qF -- "$2" "${GT_ERR[$1]}" && return 0
		poll_sleep "$i"
	done
	diag "not logged: $2" "$(tail -n 3 "${GT_ERR[$1]}")"
	return 1
}

# until_ok N CMD...: CMD, quietly, until it succeeds, for N times 0.1 s
# at most (poll_sleep()); then once more aloud. What a check waits for is polled
# so: a fixed sleep before a look fails on a busy machine (make -j2).
until_ok()
{
	local n=$1 i

	shift
	for ((i = 0; i < n + 9; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		poll_sleep "$i"
	done
	"$@"
}

# gt_log NS: last lines of gsotun's stderr, as diagnostics.
gt_log()
{
	[ -s "${GT_ERR[$1]}" ] && diag "gsotun $1 stderr:" \
		"$(grep -v 'tx_frames=' "${GT_ERR[$1]}" | tail -n "${2:-5}")"
}

# ---------------------------------------------------------------- traffic

# ping_ok NS ADDR: at least one of 3 echo replies.
ping_ok()
{
	ip netns exec "$1" timeout 10 ping -n -q -c 3 -i 0.2 -W 2 "$2" \
		>/dev/null 2>&1
}

# ---------------------------------------------------------------- gsotunctl

# The client; ctl and ctl_fails run it (a script with a ctl of another
# shape defines its own after this file).
CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}

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

# ctl_ok NS ARGS...: it succeeds.
ctl_ok()
{
	ctl "$@"
	[ "$ST" -eq 0 ] || { diag "gsotunctl $*: status $ST: $ERR"; return 1; }
}

# has TEXT, lacks TEXT: the last ctl's output holds TEXT, or not.
has() { [[ $OUT == *"$1"* ]] || { diag "no '$1' in:" "$OUT"; return 1; }; }
lacks() { [[ $OUT != *"$1"* ]] || { diag "'$1' in:" "$OUT"; return 1; }; }

# pings_both_ways: A and B ping each other over IPv4 and IPv6 (OV4_*,
# OV6_*); TUNNEL_UP is 1 when all four answered, for xfer_if_up.
TUNNEL_UP=0
pings_both_ways()
{
	TUNNEL_UP=0
	ping_ok "$NS_A" "$OV4_B" && ping_ok "$NS_B" "$OV4_A" && TUNNEL_UP=1
	ping_ok "$NS_A" "$OV6_B" && ping_ok "$NS_B" "$OV6_A" || TUNNEL_UP=0
	[ "$TUNNEL_UP" -eq 1 ]
}

# xfer_if_up ARGS...: xfer, but fail at once when the pings did not
# cross (pings_both_ways), rather than wait out the transfer's timeouts.
xfer_if_up()
{
	[ "$TUNNEL_UP" -eq 1 ] ||
		{ diag "not run: the tunnel is down"; return 1; }
	xfer "$@"
}

# zero_csum_refused: over IPv6 the gsotun in A without --no-csum takes no
# zero UDP checksum (RFC 6935, RFC 6936; the kernel's noudp6zerocsumrx):
# B's answers never arrive, and the kernel drops them before gsotun's
# socket sees them.
zero_csum_refused()
{
	local z

	ping_ok "$NS_A" "$OV4_B" && { diag "a ping got through"; return 1; }
	gt_counters "$NS_A" && z=$(ctr "$GT_CTR" rx_udp_csum_zero) &&
		[ "$z" = 0 ]
}

# make_data NAME MIB: random file $LIB_TMP/NAME and its SHA-256 in DATA_SHA.
declare -A DATA_SHA
make_data()
{
	head -c "$2M" /dev/urandom >"$LIB_TMP/$1" || bail "cannot write $1"
	DATA_SHA[$1]=$(sha256sum <"$LIB_TMP/$1" | cut -d' ' -f1)
}

wait_listen()
{
	local i

	for ((i = 0; i < 50; i++)); do
		[ -n "$(ip netns exec "$1" ss -Htln "sport = :$2")" ] &&
			return 0
		sleep 0.1
	done
	return 1
}

xfer_port=5000

# xfer_wait SPID LPID RECV: wait for sender and receiver; a transfer that
# makes no progress for 8 s is a failure now, not at the overall timeout.
xfer_wait()
{
	local last=-1 size since=$SECONDS

	while pid_alive "$1" || pid_alive "$2"; do
		sleep 0.05
		size=$(stat -c %s "$3" 2>/dev/null || echo 0)
		if [ "$size" != "$last" ]; then
			since=$SECONDS last=$size
		elif [ $((SECONDS - since)) -ge 8 ]; then
			diag "no progress for 8 s at $size bytes"
			kill -TERM "$1" "$2" 2>/dev/null
			break
		fi
	done
}

# xfer FROM_NS TO_NS TO_ADDR DATA [SECONDS]: send $LIB_TMP/DATA over TCP
# with socat, compare the SHA-256 of what arrived. XFER_TX_OPTS, when set,
# are socat options for the sending socket (e.g. its pacing rate).
xfer()
{
	local from=$1 to=$2 addr=$3 data=$4 limit=${5:-30} lpid spid st sha
	local recv t0 t1 listen=TCP4-LISTEN conn=TCP4:$3 size rx_err tx_err

	if [[ $addr == *:* ]]; then
		listen=TCP6-LISTEN conn="TCP6:[$addr]"
	fi
	xfer_port=$((xfer_port + 1))
	# Per port: transfers in the background may run side by side.
	recv=$LIB_TMP/recv.$xfer_port
	rx_err=$LIB_TMP/socat-rx.$xfer_port.err
	tx_err=$LIB_TMP/socat-tx.$xfer_port.err
	rm -f "$recv"
	ip netns exec "$to" timeout "$limit" socat -u -b 262144 \
		"$listen:$xfer_port,reuseaddr" "CREATE:$recv" \
		</dev/null >/dev/null 2>"$rx_err" &
	lpid=$!
	track_pid "$lpid"
	if ! wait_listen "$to" "$xfer_port"; then
		diag "socat does not listen on $xfer_port in $to"
		kill "$lpid" 2>/dev/null
		wait "$lpid"
		forget_pid "$lpid"
		return 1
	fi
	t0=$(date +%s.%N)
	ip netns exec "$from" timeout "$limit" socat -u -b 262144 \
		"OPEN:$LIB_TMP/$data,rdonly" \
		"$conn:$xfer_port${XFER_TX_OPTS:+,$XFER_TX_OPTS}" \
		</dev/null >/dev/null 2>"$tx_err" &
	spid=$!
	track_pid "$spid"
	xfer_wait "$spid" "$lpid" "$recv"
	wait "$spid"
	st=$?
	wait "$lpid"
	st=$((st | $?))
	t1=$(date +%s.%N)
	forget_pid "$spid"
	forget_pid "$lpid"
	size=$(stat -c %s "$recv" 2>/dev/null || echo 0)
	[ -f "$recv" ] && sha=$(sha256sum "$recv" | cut -d' ' -f1)
	rm -f "$recv"
	if [ "$sha" != "${DATA_SHA[$data]}" ]; then
		diag "$data to $addr: socat status $st, $size bytes arrived" \
			"SHA-256 differs from the data sent" \
			"$(cat "$tx_err" "$rx_err")"
		return 1
	fi
	diag "$(awk -v s="$size" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.0f MiB in %.2f s, %.2f Gbit/s", s / 1048576,
			t1 - t0, s * 8 / (t1 - t0) / 1e9 }')"
}

# xfer_bg FROM TO ADDR DATA [LIMIT]: xfer in the background, its output
# in XOUT, its PID in XPID, the file it receives into XRECV; xfer_bg_wait
# its status, the output shown.
xfer_bg()
{
	XOUT=$LIB_TMP/xfer.$((++xfer_bg_n))
	XRECV=$LIB_TMP/recv.$((xfer_port + 1))
	xfer "$@" >"$XOUT" 2>&1 &
	XPID=$!
	track_pid "$XPID"
	# Another range of ports, so that the two name their files apart.
	xfer_port=$((xfer_port + 1000))
}

xfer_bg_wait()
{
	local st

	wait "$XPID"
	st=$?
	forget_pid "$XPID"
	cat "$XOUT"
	return "$st"
}

# xfer_pair DATA FROM1 TO1 ADDR1 FROM2 TO2 ADDR2: two transfers of DATA
# at the same time; both must arrive intact.
xfer_pair()
{
	local st

	xfer_bg "$2" "$3" "$4" "$1" 120
	xfer "$5" "$6" "$7" "$1" 120
	st=$?
	xfer_bg_wait
	return $((st | $?))
}

# ---------------------------------------------------------------- pairs

# ends_start ARGS...: gsotun on both ends of net_setup's topology, with
# IPv4 and IPv6 overlay addresses, GT_ARGS (an array the test may set)
# and ARGS.
GT_ARGS=()
ends_start()
{
	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" --address "$OV6_A/64" \
		"${GT_ARGS[@]}" "$@" &&
		gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
			--address "$OV4_B/24" --address "$OV6_B/64" \
			"${GT_ARGS[@]}" "$@"
}

# ends_stop: both must exit 0 on SIGTERM with counters and remove the tap.
ends_stop()
{
	local st=0

	gt_stop "$NS_A" || st=1
	gt_show A
	gt_stop "$NS_B" || st=1
	gt_show B
	[ "$st" -eq 0 ] || { gt_log "$NS_A"; gt_log "$NS_B"; }
	return "$st"
}

# ctr_moved BEFORE AFTER REGEX: the counters matching REGEX that differ
# between two counter lines, as sorted "name=+delta" words (an empty
# BEFORE is a line of zeros).
ctr_moved()
{
	local w name v n re="($3)=([0-9]+)\$"
	local -a before after moved=()
	local -A b

	# No command substitution per counter: under make -j2 the forks
	# cost a second a call.
	read -ra before <<<"$1"
	read -ra after <<<"$2"
	for w in "${before[@]}"; do
		[[ $w == *=* ]] && b[${w%%=*}]=${w#*=}
	done
	for w in "${after[@]}"; do
		[[ $w =~ $re ]] || continue
		n=${#BASH_REMATCH[@]}
		name=${BASH_REMATCH[1]} v=${BASH_REMATCH[n - 1]}
		[ "$v" != "${b[$name]:-0}" ] &&
			moved+=("$name=+$((v - ${b[$name]:-0}))")
	done
	[ ${#moved[@]} -gt 0 ] || return 0
	printf '%s\n' "${moved[@]}" | sort | tr '\n' ' '
}

# link_attr NS DEV KEY: the word after KEY (mtu, link/ether) in the
# device's `ip -o link show` line.
link_attr()
{
	ip -n "$1" -o link show dev "$2" 2>/dev/null |
		sed -n "s|.* $3 \([^ ]*\) .*|\1|p"
}

# wait_link_attr NS DEV KEY VALUE: KEY of the device becomes VALUE within
# a second.
wait_link_attr()
{
	local i

	for ((i = 0; i < 10; i++)); do
		[ "$(link_attr "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.1
	done
	diag "$2 in $1: $3 $(link_attr "$1" "$2" "$3") after 1 s, want $4"
	return 1
}

# tap_mtu NS DEV: the device's MTU.
tap_mtu()
{
	link_attr "$1" "$2" mtu
}

# wait_tap_mtu NS DEV MTU: the device's MTU becomes MTU within a second.
wait_tap_mtu()
{
	wait_link_attr "$1" "$2" mtu "$3"
}

# ---------------------------------------------------------------- capture

# cap_start NS DEV FILE [FILTER...]: tcpdump on DEV, whole frames, until
# cap_stop. Immediate mode: otherwise the last frames may wait in a ring
# block that tcpdump never reads before it is stopped.
cap_start()
{
	local ns=$1 dev=$2 file=$3 i

	shift 3
	ip netns exec "$ns" tcpdump -Z root -n -B 32768 -s 0 -U \
		--immediate-mode -i "$dev" -w "$file" "$@" \
		</dev/null >/dev/null 2>"$file.err" &
	CAP_PID=$!
	track_pid "$CAP_PID"
	for ((i = 0; i < 50; i++)); do
		grep -q 'listening on' "$file.err" 2>/dev/null && return 0
		sleep 0.1
	done
	diag "tcpdump did not start:" "$(cat "$file.err")"
	return 1
}

cap_stop()
{
	[ -n "$CAP_PID" ] || return 1
	sleep 0.2
	kill -INT "$CAP_PID" 2>/dev/null
	wait_gone "$CAP_PID" 50 || kill -KILL "$CAP_PID" 2>/dev/null
	wait "$CAP_PID"
	forget_pid "$CAP_PID"
	CAP_PID=
}

# cap_check FILE [DECODE-AS]: tshark checks every checksum of the capture;
# the counts land in the associative array CAP (see check-capture.py).
declare -A CAP
cap_check()
{
	local out line k v

	CAP=()
	out=$(timeout 120 "$PYTHON" "$LIB_DIR/check-capture.py" "$@") || {
		diag "check-capture.py failed:" "$out"
		return 1
	}
	for line in $out; do
		k=${line%%=*} v=${line#*=}
		CAP[$k]=$v
	done
	diag "capture: $out"
}

# Captures of a host mesh's underlay ports (mesh.sh, netns-evpn.sh):
# each of HOSTS has its port PORT[h] on the underlay bridge in NS_U and
# its underlay address UL[h]; the captures go to CAPF[h], their
# tcpdump's PID in CAPP[h] (declare -A CAPF CAPP in the script).

# shellcheck disable=SC2153 # NS_U is the script's
# caps_start [FILTER]: every underlay port captured as it sends to its
# host (FILTER: udp port 4789 unless given). Immediate mode: a lone
# early frame (an ARP broadcast) must not wait in a ring block.
caps_start()
{
	local h i filter=${1:-udp port 4789}

	for h in "${HOSTS[@]}"; do
		CAPF["$h"]=$LIB_TMP/port$h.$((++LIB_CAP_SEQ)).pcap
		# shellcheck disable=SC2086 # the filter is words
		ip netns exec "$NS_U" tcpdump -Z root -n -B 65536 -s 128 -U \
			--immediate-mode -Q out -i "${PORT[$h]}" \
			-w "${CAPF[$h]}" $filter \
			</dev/null >/dev/null 2>"${CAPF[$h]}.err" &
		CAPP["$h"]=$!
		track_pid "${CAPP[$h]}"
	done
	for h in "${HOSTS[@]}"; do
		for ((i = 0; i < 50; i++)); do
			grep -q 'listening on' "${CAPF[$h]}.err" 2>/dev/null &&
				break
			sleep 0.1
		done
		[ "$i" -lt 50 ] ||
			{ diag "tcpdump on port $h did not start"; return 1; }
	done
}

caps_stop()
{
	local h

	sleep 0.3
	for h in "${HOSTS[@]}"; do
		kill -INT "${CAPP[$h]}" 2>/dev/null
	done
	for h in "${HOSTS[@]}"; do
		wait_gone "${CAPP[$h]}" 50 ||
			kill -KILL "${CAPP[$h]}" 2>/dev/null
		wait "${CAPP[$h]}"
		forget_pid "${CAPP[$h]}"
	done
}

# seen PORT FROM MAC: VXLAN packets host FROM sent for inner MAC that the
# capture of PORT holds.
seen()
{
	"$PYTHON" "$LIB_DIR/vxlan-count.py" "${CAPF[$1]}" |
		awk -v s="${UL[$2]}" -v m="$3" '$1 == s && $2 == m { n += $3 }
			END { print n + 0 }'
}

# unicast_only FROM TO MIN: FROM's frames for TO's MAC (MAC[TO]) reached
# TO's port (at least MIN) and no other.
unicast_only()
{
	local from=$1 to=$2 h n bad=

	n=$(seen "$to" "$from" "${MAC[$to]}")
	diag "$from -> ${MAC[$to]}: $n packets at port $to"
	[ "$n" -ge "$3" ] || bad+=" only $n at $to"
	for h in "${HOSTS[@]}"; do
		[ "$h" = "$from" ] || [ "$h" = "$to" ] && continue
		n=$(seen "$h" "$from" "${MAC[$to]}")
		[ "$n" -eq 0 ] || bad+=" $n at $h"
	done
	[ -z "$bad" ] || { diag "$from's unicast to $to:$bad"; return 1; }
}
