#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: gsotun against the kernel's vxlan, two namespaces joined by a
# veth (MTU 1500), one row per tunnel; table, TSV, JSON and a bar chart.
#
# Usage (as root): contrib/bench.sh
#
# Rows, each in fresh namespaces built the same way: the kernel's vxlan at
# both ends; contrib/copy-only, a forwarder that makes the four copies
# between a tap and a UDP socket and not one check more (bulk and plain
# only: what no userspace tunnel can go beyond here); gsotun vxlan; gsotun
# vxlan with 100 peers (the 99 others are addresses of B whose datagrams a
# socket there leaves unread; B's tap is a --fdb entry, so traffic goes to
# its one peer); gsotun gre-udp; gsotun gre, and gsotun gre with
# --rx-coalesce 1 (gre-coalesce: a raw socket has no GRO, so this is how
# its receiver reads in batches); gsotun geneve, without and with an
# 8-byte option (geneve-opt: --geneve-opt 0102:01:0000000a, the size of
# OVN's); gsotun vxlan --no-offload.
# Measures for every row:
#   tcp1    one TCP stream (iperf3), median of 3 runs, Gbit/s
#   tcp4    four TCP streams (iperf3 -P 4), one run, Gbit/s
#   cpu     busy CPU microseconds per KB (1024 bytes) moved, all CPUs,
#           from /proc/stat around the tcp1 runs (netperf's service demand)
#   udp64   64-byte UDP datagrams per second that reached the receiver,
#           median of 3 runs; beside it, the packets B's tunnel device
#           handed to B's stack, read by the receiver or not (a UDP
#           super-frame that gsotun merged counts once)
#   bulk    bulk UDP the way QUIC stacks send it: 1400-byte datagrams,
#           45 a send (UDP_SEGMENT) as fast as the sender goes, read
#           with UDP_GRO; received Gbit/s, median of 3, and the share
#           of datagrams lost
#   plain   the same with one datagram a send (no UDP GSO)
#   rr      TCP round trips per second, everything pinned to CPU 0
#           (sockperf ping-pong, else a Python 1-byte ping-pong); below
#           the table the same unpinned, on every CPU, with the one-way
#           latency it makes and the CPU busy meanwhile (% of one)
#   sc      system calls per 64 KB of TCP payload made by each gsotun (A
#           sends the data, B receives it), counted with perf (or strace)
#           over one extra single-stream run
#   flood   (100 peers only) 64-byte broadcasts from A, which gsotun sends
#           to every peer: its CPU time (user and system) per copy sent
# Ratios are to the kernel's vxlan in the same run. The targets of the fast
# path are checked and printed as PASS or MISS, for information: the exit
# status is 0 unless the set-up failed (a tool missing, a tunnel that does
# not come up).
#
# The queue rows (issue 26; "queues" in BENCH_ROWS names all four): gsotun
# vxlan with one queue (q1, the default) and with --queues 2 (q2), and
# the same with --no-offload (q1-nooff, q2-nooff), measured apart:
#   tcp8    eight TCP streams (iperf3 -P 8), one run, Gbit/s
#   udp64x8 64-byte UDP datagrams per second received from 8 flows
#           (iperf3 -u -P 8), median of 3
#   threads each gsotun thread's share of one CPU over each of the two,
#           by thread name (gsotun, gsotun-q0, gsotun-q1...), from
#           /proc/PID/task/*/stat (user and system time)
#   lost    of the 64-byte datagrams sent, the per cent A's tap dropped
#           unread (gsotun did not keep up) and the per cent B's UDP
#           sockets dropped for want of room (the receiving iperf3 did
#           not), the 3 runs together
# Their ratios are to the one-queue row of the same offloads, same run;
# queues.tsv holds them, and "queues" in bench.json.
#
# The L3 rows (issue 27; "tun" in BENCH_ROWS names all three): the
# kernel's vxlan-gpe in external mode with lwtunnel routes (kernel-gpe),
# gsotun --mode tun with vxlan-gpe (tun-gpe) and gre-udp (tun-gre-udp),
# every measure of the main table, and their ratios to kernel-gpe too.
#
# Environment:
#   GSOTUN        the binary (default: src/gsotun of this source tree)
#   BENCH_OUT     output directory (default ./bench-out)
#   BENCH_TIME    seconds per measurement (default 5)
#   BENCH_SC_TIME seconds of the syscall-counting run (default 3)
#   BENCH_ROWS    rows to run (default "kernel copy-only vxlan busy-poll
#                 peers100 gre-udp gre gre-coalesce geneve geneve-opt
#                 no-offload queues tun")
#   BENCH_COPY_ONLY    the copy-only forwarder (default: contrib/copy-only
#                 of this source tree, made with make when missing)
#   BENCH_GRE_FLOOR    raw GRE alone, measured after the gre row (default:
#                 contrib/gre-floor of this source tree, made when missing)
#   BENCH_GSOTUN_ARGS  extra options for every gsotun (e.g. --no-gro)
#   BENCH_ETHTOOL      features for `ethtool -K` on both veth ends, every
#                 row (e.g. "tx-udp_tnl-segmentation off" to make the
#                 kernel's vxlan cut its super-frames as a NIC would)
#   BENCH_SYSCALLS     perf, strace or auto (default: perf when it works)
#   BENCH_RR      sockperf, python or auto (default: sockperf when installed)
#   BENCH_NO_INSTALL=1 never call apt-get
#
# Everything runs in the benchmark's own namespaces; the EXIT trap kills
# its processes by PID and deletes the namespaces.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/contrib
PATH=$PATH:/usr/sbin:/sbin
# Debian's python3 (the PATH one may be a separate build).
PY=/usr/bin/python3

T=${BENCH_TIME:-5}
SC_T=${BENCH_SC_TIME:-3}
OUT=${BENCH_OUT:-./bench-out}
ALL_ROWS=${BENCH_ROWS:-kernel copy-only vxlan busy-poll peers100 gre-udp gre
	gre-coalesce geneve geneve-opt no-offload queues tun}
ALL_ROWS=${ALL_ROWS//queues/q1 q2 q1-nooff q2-nooff}
# "tun", a word of its own, names the L3 rows.
rows=''
for r in $ALL_ROWS; do
	[ "$r" = tun ] && r='kernel-gpe tun-gpe tun-gre-udp'
	rows="$rows $r"
done
ALL_ROWS=$rows
# The queue rows have measures and a table of their own (QROWS).
ROWS='' QROWS=''
for r in $ALL_ROWS; do
	case $r in
	q[12] | q[12]-nooff) QROWS="$QROWS $r" ;;
	*) ROWS="$ROWS $r" ;;
	esac
done
read -r -a GT_EXTRA <<<"${BENCH_GSOTUN_ARGS:-}"
read -r -a VETH_FEAT <<<"${BENCH_ETHTOOL:-}"
GSOTUN=${GSOTUN:-$top/src/gsotun}
COPY_ONLY=${BENCH_COPY_ONLY:-$top/contrib/copy-only}
GRE_FLOOR=${BENCH_GRE_FLOOR:-$top/contrib/gre-floor}
# Gbit/s of GRE payload contrib/gre-floor moved after the gre row (NA: not run).
R_GRE_FLOOR=NA
NET=8
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

PIDS=()
SINK_PID=
NSS=()
TMP=
RAW=
setup_failed=0

declare -A LABEL=(
	[kernel]="kernel vxlan"
	[copy-only]="copy-only forwarder"
	[vxlan]="gsotun vxlan"
	[peers100]="gsotun vxlan, 100 peers"
	[gre-udp]="gsotun gre-udp"
	[gre]="gsotun gre"
	[gre-coalesce]="gsotun gre --rx-coalesce 1"
	[geneve]="gsotun geneve"
	[geneve-opt]="gsotun geneve, an option"
	[busy-poll]="gsotun vxlan --busy-poll 50"
	[no-offload]="gsotun vxlan --no-offload"
	[q1]="gsotun vxlan, 1 queue"
	[q2]="gsotun vxlan --queues 2"
	[q1-nooff]="gsotun vxlan --no-offload, 1 queue"
	[q2-nooff]="gsotun vxlan --no-offload --queues 2"
	[kernel-gpe]="kernel vxlan-gpe (L3)"
	[tun-gpe]="gsotun --mode tun vxlan-gpe"
	[tun-gre-udp]="gsotun --mode tun gre-udp"
)
declare -A SHORT=(
	[kernel]="kernel vxlan"
	[copy-only]="copy only"
	[vxlan]="vxlan"
	[peers100]="vxlan 100 peers"
	[gre-udp]="gre-udp"
	[gre]="gre"
	[gre-coalesce]="gre coalesce"
	[geneve]="geneve"
	[geneve-opt]="geneve option"
	[busy-poll]="vxlan busy-poll"
	[no-offload]="vxlan no-offload"
	[q1]="vxlan 1 queue"
	[q2]="vxlan 2 queues"
	[q1-nooff]="no-offload 1 queue"
	[q2-nooff]="no-offload 2 queues"
	[kernel-gpe]="kernel vxlan-gpe"
	[tun-gpe]="tun vxlan-gpe"
	[tun-gre-udp]="tun gre-udp"
)
# Results, by row; NA when a measure could not be taken.
declare -A R_TCP1 R_RUNS R_TCP4 R_CPU R_UDP R_URUNS R_UDPT R_RR R_SCA R_SCB
# Round trips a second unpinned, and the CPU busy meanwhile (% of one).
declare -A R_RRU R_RRU_CPU
declare -A R_SCDA R_SCDB
declare -A R_BULK R_BRUNS R_BLOSS R_PLAIN R_PRUNS R_PLOSS
declare -A R_MTU R_NOTE R_FLOOD R_FCOPIES
declare -A R_TCP8 R_UDP8 R_U8RUNS R_THR_TCP8 R_THR_UDP8 R_U8TAP R_U8SOCK

# ---------------------------------------------------------------- helpers

log()
{
	echo "bench: $*" >&2
}

die()
{
	echo "bench.sh: $*" >&2
	exit 1
}

usage()
{
	sed -n '3,/^$/s/^# \{0,1\}//p' "$0"
	exit 0
}

# calc EXPR...: awk arithmetic; the operands are already numbers. The
# parentheses keep a comparison from being read as a redirection.
calc()
{
	awk "BEGIN { print ($*) }"
}

# isnum X: X is a number (not NA nor empty).
isnum()
{
	[[ $1 =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]
}

# ratio A B: A / B, or NA.
ratio()
{
	if isnum "$1" && isnum "$2" && [ "$(calc "$2 != 0")" = 1 ]; then
		calc "$1 / $2"
	else
		echo NA
	fi
}

# fmt PRINTF-FORMAT X: X formatted, or NA.
fmt()
{
	if isnum "$2"; then
		# shellcheck disable=SC2059 # the format is the argument
		printf "$1" "$2"
	else
		printf NA
	fi
}

# median X...: the median of the numbers among the arguments, or NA.
median()
{
	local v=() x

	for x in "$@"; do
		isnum "$x" && v+=("$x")
	done
	[ "${#v[@]}" -gt 0 ] || { echo NA; return; }
	printf '%s\n' "${v[@]}" | sort -g | awk '
		{ a[NR] = $1 }
		END {
			if (NR % 2)
				print a[(NR + 1) / 2]
			else
				print (a[NR / 2] + a[NR / 2 + 1]) / 2
		}'
}

track()
{
	PIDS+=("$1")
}

untrack()
{
	local i

	for i in "${!PIDS[@]}"; do
		[ "${PIDS[$i]}" = "$1" ] && unset "PIDS[$i]"
	done
}

alive()
{
	local stat

	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat:0:1}" != Z ] && [ "${stat:0:1}" != X ]
}

# stop PID [SIG]: signal PID, wait up to 5 s, then SIGKILL; reap it.
stop()
{
	local pid=$1 i

	kill -"${2:-TERM}" "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		alive "$pid" || break
		sleep 0.1
	done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	untrack "$pid"
}

# Called by the EXIT trap.
# shellcheck disable=SC2317
cleanup()
{
	local pid ns

	trap - EXIT INT TERM
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${PIDS[@]}"; do
		stop "$pid"
	done
	for ns in "${NSS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$TMP" ] && rm -rf "$TMP"
}

# ---------------------------------------------------------------- tools

pkg_installed()
{
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null |
		grep -q 'install ok installed'
}

pkg_available()
{
	local cand

	cand=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$cand" ] && [ "$cand" != "(none)" ]
}

# The tools the benchmark needs, installed the way contrib/deps.sh does:
# only what is missing, nothing when all is there. gnuplot, sockperf and
# perf are optional (no chart; the Python ping-pong; strace instead).
install_tools()
{
	local need="iproute2 procps util-linux iputils-ping iperf3 strace
		ethtool python3" opt="gnuplot-nox sockperf linux-perf" pkg missing=
	local get=

	for pkg in $need $opt; do
		pkg_installed "$pkg" || missing="$missing $pkg"
	done
	[ -n "$missing" ] || return 0
	if [ -n "${BENCH_NO_INSTALL:-}" ] || ! command -v apt-get >/dev/null; then
		log "not installing:$missing"
		return 0
	fi
	log "installing:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null ||
		log "apt-get update failed"
	for pkg in $missing; do
		if [[ " $opt " == *" $pkg "* ]] && ! pkg_available "$pkg"; then
			log "$pkg is not in the package lists: going without"
			continue
		fi
		get="$get $pkg"
	done
	[ -n "$get" ] || return 0
	# shellcheck disable=SC2086 # $get is a list of package names
	DEBIAN_FRONTEND=noninteractive apt-get install -q -y \
		--no-install-recommends $get >/dev/null ||
		log "apt-get install$get failed"
}

check_tools()
{
	local tool missing=

	for tool in ip ss ping iperf3 taskset timeout awk sort getconf; do
		command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
	done
	[ -x "$PY" ] || missing="$missing $PY"
	[ -z "$missing" ] || die "missing tools:$missing"

	SC_TOOL=${BENCH_SYSCALLS:-auto}
	if [ "$SC_TOOL" = auto ]; then
		SC_TOOL=none
		if perf stat -e raw_syscalls:sys_enter -- true >/dev/null 2>&1
		then
			SC_TOOL=perf
		elif command -v strace >/dev/null 2>&1; then
			SC_TOOL=strace
		fi
	fi
	RR_TOOL=${BENCH_RR:-auto}
	if [ "$RR_TOOL" = auto ]; then
		RR_TOOL=python
		command -v sockperf >/dev/null 2>&1 && RR_TOOL=sockperf
	fi
}

# The syscall tracepoints perf counts one by one beside the total: the
# ones a tunnel's data path uses. Only those this kernel has.
perf_events()
{
	local tr=/sys/kernel/tracing/events/syscalls sc

	[ -d "$tr" ] || tr=/sys/kernel/debug/tracing/events/syscalls
	PERF_EV=(-e raw_syscalls:sys_enter)
	for sc in read write readv writev recvmsg recvmmsg sendmsg sendmmsg \
		recvfrom sendto io_uring_enter epoll_wait epoll_pwait ppoll \
		poll; do
		[ -d "$tr/sys_enter_$sc" ] &&
			PERF_EV+=(-e "syscalls:sys_enter_$sc")
	done
}

# ---------------------------------------------------------------- topology

# ping_wait ADDR TRIES PAUSE: A pings ADDR until it answers, TRIES times.
ping_wait()
{
	local i

	for ((i = 0; i < $2; i++)); do
		ip netns exec "$NS_A" ping -n -c 1 -W 1 "$1" >/dev/null 2>&1 &&
			return 0
		sleep "$3"
	done
	return 1
}

# net_up: namespaces A and B joined by a veth pair, MTU 1500, underlay
# 198.18.NET.0/24. The same for every row, made anew so that no state
# (TCP metrics, sockets) carries over from one row to the next.
net_up()
{
	local ns

	NS_A=gbA$$ NS_B=gbB$$ VETH_A=gbvA$$ VETH_B=gbvB$$
	DEV_A=gbtA$$ DEV_B=gbtB$$
	UL_A=198.18.$NET.1 UL_B=198.18.$NET.2
	OV_A=10.$NET.0.1 OV_B=10.$NET.0.2
	for ns in "$NS_A" "$NS_B"; do
		ip netns add "$ns" || return 1
		NSS+=("$ns")
		ip -n "$ns" link set lo up || return 1
	done
	ip -n "$NS_A" link add "$VETH_A" mtu 1500 type veth \
		peer name "$VETH_B" netns "$NS_B" mtu 1500 &&
		ip -n "$NS_A" addr add "$UL_A/24" dev "$VETH_A" &&
		ip -n "$NS_B" addr add "$UL_B/24" dev "$VETH_B" &&
		ip -n "$NS_A" link set "$VETH_A" up &&
		ip -n "$NS_B" link set "$VETH_B" up || return 1
	if [ "${#VETH_FEAT[@]}" -gt 0 ]; then
		ip netns exec "$NS_A" ethtool -K "$VETH_A" "${VETH_FEAT[@]}" &&
			ip netns exec "$NS_B" ethtool -K "$VETH_B" \
				"${VETH_FEAT[@]}" || return 1
	fi
	ping_wait "$UL_B" 50 0.1 && return 0
	log "underlay $UL_A <-> $UL_B does not answer"
	return 1
}

net_down()
{
	local ns keep=()

	for ns in "${NSS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	NSS=("${keep[@]}")
}

# dev_ready NS DEV CIDR: DEV is UP with CIDR, not tentative.
dev_ready()
{
	local link addrs

	link=$(ip -n "$1" -o link show dev "$2" 2>/dev/null) || return 1
	[[ $link == *[\<,]UP[,\>]* ]] || return 1
	addrs=$(ip -n "$1" -o -4 addr show dev "$2" 2>/dev/null) || return 1
	[[ $addrs == *" $3 "* ]] && [[ $addrs != *tentative* ]]
}

# both_ready: A's and B's devices up and addressed, within 5 s.
both_ready()
{
	local i

	for ((i = 0; i < 50; i++)); do
		dev_ready "$NS_A" "$DEV_A" "$OV_A/24" &&
			dev_ready "$NS_B" "$DEV_B" "$OV_B/24" && return 0
		sleep 0.1
	done
	return 1
}

# kvx_up NS DEV LOCAL REMOTE VETH CIDR: the kernel's vxlan, VNI 1.
kvx_up()
{
	ip -n "$1" link add "$2" type vxlan id 1 local "$3" remote "$4" \
		dstport 4789 dev "$5" &&
		ip -n "$1" link set "$2" mtu 1450 &&
		ip -n "$1" addr add "$6" dev "$2" &&
		ip -n "$1" link set "$2" up
}

# kgpe_up NS DEV REMOTE CIDR PEER: the kernel's vxlan-gpe (external, an
# lwtunnel route to PEER's address by REMOTE, VNI 1, UDP checksums).
kgpe_up()
{
	ip -n "$1" link add "$2" type vxlan gpe external dstport 4790 &&
		ip -n "$1" link set "$2" mtu 1464 &&
		ip -n "$1" addr add "$4" dev "$2" noprefixroute &&
		ip -n "$1" link set "$2" up &&
		ip -n "$1" route add "$5/32" encap ip id 1 dst "$3" csum \
			dev "$2" src "${4%/*}"
}

# gt_up NS DEV LOCAL REMOTE CIDR ARGS...: a gsotun, up and addressed;
# its PID in GT_PID (empty when it has exited already).
gt_up()
{
	local ns=$1 dev=$2 loc=$3 rem=$4 cidr=$5 log i

	shift 5
	log=$RAW/$row-gsotun-$ns.log
	echo "$GSOTUN --dev $dev --local $loc --remote $rem --address $cidr" \
		"$* ${GT_EXTRA[*]}" >"$log"
	ip netns exec "$ns" "$GSOTUN" --dev "$dev" --local "$loc" \
		--remote "$rem" --address "$cidr" "$@" "${GT_EXTRA[@]}" \
		</dev/null >/dev/null 2>>"$log" &
	GT_PID=$!
	track "$GT_PID"
	for ((i = 0; i < 100; i++)); do
		if ! alive "$GT_PID"; then
			wait "$GT_PID"
			log "gsotun in $ns exited with status $? at start:"
			tail -n 5 "$log" >&2
			untrack "$GT_PID"
			GT_PID=''
			return 1
		fi
		dev_ready "$ns" "$dev" "$cidr" && return 0
		sleep 0.1
	done
	log "gsotun in $ns: $dev not up with $cidr after 10 s"
	tail -n 5 "$log" >&2
	return 1
}

# sinks_up: 99 more addresses on B's veth, .100 to .198, with a socket on
# port 4789 each that reads nothing (what is sent to them is dropped
# without an ICMP error); SINK_ARGS, A's options to make them peers too, and
# a --fdb entry that sends frames for B's tap to B alone.
sinks_up()
{
	local i addrs=()

	MAC_B=02:00:00:00:00:0b
	SINK_ARGS=(--fdb "$MAC_B=$UL_B")
	for ((i = 100; i < 199; i++)); do
		addrs+=("198.18.$NET.$i")
		SINK_ARGS+=(--remote "198.18.$NET.$i")
	done
	for i in "${addrs[@]}"; do
		echo "address add $i/32 dev $VETH_B"
	done | ip -n "$NS_B" -batch - || return 1
	ip netns exec "$NS_B" "$PY" -c '
import socket, sys, time
socks = []
for a in sys.argv[1:]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a, 4789))
    socks.append(s)
print("ready", flush=True)
time.sleep(1e9)
' "${addrs[@]}" </dev/null >"$TMP/sinks.out" 2>&1 &
	SINK_PID=$!
	track "$SINK_PID"
	for ((i = 0; i < 50; i++)); do
		grep -q ready "$TMP/sinks.out" && return 0
		sleep 0.1
	done
	log "the sockets of the 99 other peers did not open:"
	cat "$TMP/sinks.out" >&2
	return 1
}

# copy_up NS DEV LOCAL REMOTE CIDR: contrib/copy-only in NS, its tap up
# and addressed; sets CO_PID.
copy_up()
{
	local i

	ip netns exec "$1" "$COPY_ONLY" "$2" "$3" "$4" </dev/null \
		>>"$RAW/copy-only-$1.log" 2>&1 &
	CO_PID=$!
	track "$CO_PID"
	for ((i = 0; i < 50; i++)); do
		ip -n "$1" link show dev "$2" >/dev/null 2>&1 && break
		alive "$CO_PID" || break
		sleep 0.1
	done
	ip -n "$1" link set "$2" mtu 1450 &&
		ip -n "$1" addr add "$5" dev "$2" &&
		ip -n "$1" link set "$2" up && return 0
	log "copy-only in $1 did not come up ($RAW/copy-only-$1.log)"
	return 1
}

# copy_only_up: the copy-only forwarder at both ends (GT_A, GT_B), made
# first if it is missing.
copy_only_up()
{
	local st

	if [ ! -x "$COPY_ONLY" ] && ! make -C "$top" contrib/copy-only \
		>"$RAW/copy-only-make.log" 2>&1; then
		log "cannot make $COPY_ONLY ($RAW/copy-only-make.log)"
		return 1
	fi
	copy_up "$NS_A" "$DEV_A" "$UL_A" "$UL_B" "$OV_A/24"
	st=$?
	GT_A=$CO_PID
	[ "$st" -eq 0 ] || return 1
	copy_up "$NS_B" "$DEV_B" "$UL_B" "$UL_A" "$OV_B/24"
	st=$?
	GT_B=$CO_PID
	[ "$st" -eq 0 ] && both_ready
}

# tunnel_up ROW: the row's tunnel between A and B; GT_A and GT_B are the
# gsotun PIDs (empty for the kernel's vxlan).
tunnel_up()
{
	local args=() args_a=() st

	GT_A='' GT_B=''
	case $1 in
	kernel)
		kvx_up "$NS_A" "$DEV_A" "$UL_A" "$UL_B" "$VETH_A" \
			"$OV_A/24" &&
			kvx_up "$NS_B" "$DEV_B" "$UL_B" "$UL_A" "$VETH_B" \
				"$OV_B/24" || return 1
		both_ready
		;;
	copy-only)
		copy_only_up || return 1
		;;
	kernel-gpe)
		kgpe_up "$NS_A" "$DEV_A" "$UL_B" "$OV_A/24" "$OV_B" &&
			kgpe_up "$NS_B" "$DEV_B" "$UL_A" "$OV_B/24" "$OV_A" ||
			return 1
		both_ready
		;;
	tun-gpe) args=(--mode tun --encap vxlan-gpe --csum) ;;
	tun-gre-udp) args=(--mode tun --encap gre-udp --csum) ;;
	vxlan | peers100) args=(--encap vxlan) ;;
	gre-udp) args=(--encap gre-udp) ;;
	gre) args=(--encap gre) ;;
	gre-coalesce) args=(--encap gre --rx-coalesce 1) ;;
	geneve) args=(--encap geneve) ;;
	geneve-opt) args=(--encap geneve --geneve-opt 0102:01:0000000a) ;;
	busy-poll) args=(--encap vxlan --busy-poll 50) ;;
	no-offload | q1-nooff) args=(--encap vxlan --no-offload) ;;
	q1) args=(--encap vxlan) ;;
	q2) args=(--encap vxlan --queues 2) ;;
	q2-nooff) args=(--encap vxlan --no-offload --queues 2) ;;
	*) log "unknown row $1"; return 1 ;;
	esac
	if [ "$1" = peers100 ]; then
		sinks_up || return 1
		args_a=("${args[@]}" "${SINK_ARGS[@]}")
	else
		args_a=("${args[@]}")
	fi
	if [ "$1" != kernel ] && [ "$1" != copy-only ] &&
		[ "$1" != kernel-gpe ]; then
		# The PIDs are kept even on failure: run_row stops them.
		gt_up "$NS_A" "$DEV_A" "$UL_A" "$UL_B" "$OV_A/24" \
			"${args_a[@]}"
		st=$?
		GT_A=$GT_PID
		[ "$st" -eq 0 ] || return 1
		gt_up "$NS_B" "$DEV_B" "$UL_B" "$UL_A" "$OV_B/24" \
			"${args[@]}"
		st=$?
		GT_B=$GT_PID
		[ "$st" -eq 0 ] || return 1
	fi
	# The MAC A's --fdb entry names (sinks_up).
	if [ "$1" = peers100 ]; then
		ip -n "$NS_B" link set "$DEV_B" address "$MAC_B" || return 1
	fi
	R_MTU[$1]=$(ip -n "$NS_A" -o link show dev "$DEV_A" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "mtu") print $(i + 1) }')
	ping_wait "$OV_B" 10 0.2 && return 0
	log "no ping through the tunnel $OV_A -> $OV_B"
	return 1
}

# ---------------------------------------------------------------- measures

# wait_listen NS PORT [u]: a TCP (or, with u, UDP) socket on PORT in NS.
wait_listen()
{
	local i

	for ((i = 0; i < 50; i++)); do
		[ -n "$(ip netns exec "$1" ss -H"${3:-t}"ln "sport = :$2")" ] &&
			return 0
		sleep 0.1
	done
	return 1
}

port=5300

# iperf NAME ARGS...: one iperf3 test from A to a one-off server in B
# (fresh per test: a client killed half way cannot leave it busy); the
# client's JSON in $RAW/$row-NAME.json.
iperf()
{
	local name=$1 json spid st

	shift
	json=$RAW/$row-$name.json
	port=$((port + 1))
	ip netns exec "$NS_B" timeout $((T * 2 + 30)) iperf3 -s -1 \
		-B "$OV_B" -p "$port" </dev/null >/dev/null 2>&1 &
	spid=$!
	track "$spid"
	if ! wait_listen "$NS_B" "$port"; then
		log "iperf3 server does not listen on $port"
		stop "$spid"
		return 1
	fi
	ip netns exec "$NS_A" timeout $((T * 2 + 20)) iperf3 -c "$OV_B" \
		-p "$port" -J "$@" </dev/null >"$json" 2>&1
	st=$?
	stop "$spid"
	[ "$st" -eq 0 ] || log "$name: iperf3 failed (status $st, $json)"
	return "$st"
}

# ipj FILE tcp|udp: from an iperf3 client's JSON, what the receiver saw:
# "bits/s bytes" (tcp) or "datagrams seconds" (udp).
ipj()
{
	"$PY" - "$1" "$2" <<'EOF'
import json
import sys

try:
    with open(sys.argv[1]) as f:
        d = json.load(f)
    r = d["end"]["sum_received"]
    if "error" in d:
        sys.exit(1)
    if sys.argv[2] == "udp":
        print(r["packets"] - r["lost_packets"], r["seconds"])
    else:
        print(r["bits_per_second"], r["bytes"])
except (OSError, ValueError, KeyError, TypeError):
    sys.exit(1)
EOF
}

# busy: the busy jiffies of all CPUs so far (user nice system irq
# softirq steal; not idle nor iowait).
busy()
{
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' \
		/proc/stat
}

# One stream, median of 3, and the CPU it cost per KB moved.
m_tcp1()
{
	local i b0 b1 jif=0 bytes=0 runs=() v

	for i in 1 2 3; do
		b0=$(busy)
		iperf "tcp1-$i" -t "$T"
		b1=$(busy)
		if v=$(ipj "$RAW/$row-tcp1-$i.json" tcp); then
			read -r bps by <<<"$v"
			runs+=("$(calc "$bps / 1e9")")
			bytes=$(calc "$bytes + $by")
			jif=$((jif + b1 - b0))
			log "$row: one stream, run $i: ${runs[-1]} Gbit/s"
		else
			runs+=(NA)
		fi
	done
	R_RUNS[$row]=$(IFS=,; echo "${runs[*]}")
	R_TCP1[$row]=$(median "${runs[@]}")
	R_CPU[$row]=NA
	[ "$(calc "$bytes > 0")" = 1 ] &&
		R_CPU[$row]=$(calc "$jif * 1e6 / $HZ / ($bytes / 1024)")
}

m_tcp4()
{
	local v

	R_TCP4[$row]=NA
	iperf tcp4 -t "$T" -P 4 && v=$(ipj "$RAW/$row-tcp4.json" tcp) ||
		return
	R_TCP4[$row]=$(calc "${v%% *} / 1e9")
	log "$row: four streams: ${R_TCP4[$row]} Gbit/s"
}

# rx_packets NS DEV: the packets DEV in NS has handed to the stack.
rx_packets()
{
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets" \
		2>/dev/null || echo NA
}

# 64-byte datagrams a flooding sender gets to the receiver, median of 3:
# a figure that moves with how the scheduler shares two CPUs among the
# sender, the receiver and the tunnel's two processes. Beside it, what
# the receiving tunnel device handed to B's stack (the kernel's vxlan
# device, or the tap gsotun writes to), whether the receiver then had the
# CPU to read it or not: packets, and a UDP super-frame is one.
m_udp64()
{
	local i v n s r0 r1 runs=() dev=()

	for i in 1 2 3; do
		runs+=(NA) dev+=(NA)
		r0=$(rx_packets "$NS_B" "$DEV_B")
		iperf "udp64-$i" -t "$T" -u -l 64 -b 0 || continue
		r1=$(rx_packets "$NS_B" "$DEV_B")
		v=$(ipj "$RAW/$row-udp64-$i.json" udp) || continue
		read -r n s <<<"$v"
		[ "$(calc "$s > 0")" = 1 ] || continue
		runs[-1]=$(calc "$n / $s")
		isnum "$r0" && isnum "$r1" && dev[-1]=$(calc "($r1 - $r0) / $s")
		log "$row: 64-byte UDP, run $i: ${runs[-1]} datagrams/s received," \
			"${dev[-1]}/s handed to the stack by $DEV_B"
	done
	R_URUNS[$row]=$(IFS=,; echo "${runs[*]}")
	R_UDP[$row]=$(median "${runs[@]}")
	R_UDPT[$row]=$(median "${dev[@]}")
}

# m_bulk NAME SEGS: 1400-byte UDP datagrams, SEGS a send, as fast as a
# Python sender goes for T s, read by a UDP_GRO receiver; median of 3.
# Sets BULK (Gbit/s received), BRUNS and BLOSS (per cent of the sent
# datagrams not received, median).
m_bulk()
{
	local name=$1 segs=$2 i rpid out sent secs got runs=() loss=()

	for i in 1 2 3; do
		runs+=(NA) loss+=(NA)
		out=$RAW/$row-$name-$i
		port=$((port + 1))
		ip netns exec "$NS_B" timeout $((T + 30)) "$PY" "$TMP/bulk.py" \
			recv "$OV_B" "$port" </dev/null >"$out-recv.txt" 2>&1 &
		rpid=$!
		track "$rpid"
		if ! wait_listen "$NS_B" "$port" u; then
			log "bulk UDP receiver does not listen on $port"
			stop "$rpid"
			continue
		fi
		ip netns exec "$NS_A" timeout $((T + 30)) "$PY" "$TMP/bulk.py" \
			send "$OV_B" "$port" "$T" "$segs" </dev/null \
			>"$out-send.txt" 2>&1
		sent='' secs='' got=''
		read -r sent secs <"$out-send.txt"
		wait "$rpid"
		untrack "$rpid"
		read -r got <"$out-recv.txt"
		if ! isnum "${sent:-}" || ! isnum "${secs:-}" ||
			! isnum "${got:-}" ||
			[ "$(calc "$sent > 0 && $secs > 0")" != 1 ]; then
			log "$row: UDP, $segs a send, run $i failed ($out-*)"
			continue
		fi
		runs[-1]=$(calc "$got * 1400 * 8 / $secs / 1e9")
		loss[-1]=$(calc "100 * ($sent - $got) / $sent")
		log "$row: UDP, $segs a send, run $i: ${runs[-1]} Gbit/s" \
			"received, ${loss[-1]}% lost"
	done
	BRUNS=$(IFS=,; echo "${runs[*]}")
	BULK=$(median "${runs[@]}")
	BLOSS=$(median "${loss[@]}")
}

# cpu_ticks PID: the user and system clock ticks PID has used.
cpu_ticks()
{
	local stat f

	read -r stat <"/proc/$1/stat" || return 1
	read -r -a f <<<"${stat##*) }"
	echo $((f[11] + f[12]))
}

# gt_segments PID LOG: tx_segments of gsotun PID, which prints its
# counters to LOG on SIGUSR1.
gt_segments()
{
	local n i line

	n=$(grep -c 'tx_frames=' "$2")
	kill -USR1 "$1" 2>/dev/null || return 1
	for ((i = 0; i < 50; i++)); do
		[ "$(grep -c 'tx_frames=' "$2")" -gt "$n" ] && break
		sleep 0.1
	done
	line=$(grep 'tx_frames=' "$2" | tail -n 1)
	[[ $line =~ (^|\ )tx_segments=([0-9]+) ]] || return 1
	echo "${BASH_REMATCH[2]}"
}

# m_flood: 20000 64-byte broadcasts from A's overlay address, each of
# which gsotun A sends to its 100 peers: its CPU time per copy sent, in
# ns (R_FLOOD), and the copies (R_FCOPIES).
m_flood()
{
	local log=$RAW/$row-gsotun-$NS_A.log s0 s1 c0 c1

	[ -n "$GT_A" ] || return
	s0=$(gt_segments "$GT_A" "$log") && c0=$(cpu_ticks "$GT_A") ||
		return
	ip netns exec "$NS_A" "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for i in range(20000):
    s.sendto(bytes(64), (sys.argv[1], 9))
' "10.$NET.0.255" </dev/null >"$RAW/$row-flood.txt" 2>&1
	# What the tap still holds is flooded within a second.
	sleep 1
	c1=$(cpu_ticks "$GT_A") && s1=$(gt_segments "$GT_A" "$log") || return
	[ $((s1 - s0)) -gt 0 ] || return
	R_FCOPIES[$row]=$((s1 - s0))
	R_FLOOD[$row]=$(calc "($c1 - $c0) * 1e9 / $HZ / ($s1 - $s0)")
	log "$row: broadcasts flooded, ${R_FCOPIES[$row]} copies," \
		"${R_FLOOD[$row]} ns of gsotun CPU each"
}

# sc_start PID FILE: count PID's system calls until sc_stop.
sc_start()
{
	case $SC_TOOL in
	perf)
		perf stat -x, -o "$2" "${PERF_EV[@]}" -p "$1" \
			</dev/null >/dev/null 2>&1 &
		;;
	strace)
		strace -c -f -qq -o "$2" -p "$1" </dev/null >/dev/null 2>&1 &
		;;
	esac
	SC_PID=$!
	track "$SC_PID"
}

# sc_total FILE: the total count in SC_COUNT, and the counts of the
# busiest calls in SC_DETAIL ("name=count ...", largest first).
sc_total()
{
	SC_COUNT=NA SC_DETAIL=''
	case $SC_TOOL in
	perf)
		SC_DETAIL=$(awk -F, '$3 ~ /^syscalls:sys_enter_/ && $1 > 0 {
			sub(/^syscalls:sys_enter_/, "", $3); print $1, $3 }' \
			"$1" | sort -rn | awk '{ printf "%s%s=%s", s, $2, $1
				s = " " }')
		SC_COUNT=$(awk -F, '$3 == "raw_syscalls:sys_enter" {
			print $1 }' "$1")
		;;
	strace)
		SC_DETAIL=$(awk 'NF >= 5 && $1 ~ /^[0-9.]+$/ &&
			$NF != "total" { print $4, $NF }' "$1" | sort -rn |
			head -n 8 | awk '{ printf "%s%s=%s", s, $2, $1
				s = " " }')
		SC_COUNT=$(awk '$NF == "total" { print $4 }' "$1")
		;;
	esac
	isnum "$SC_COUNT" || SC_COUNT=NA
}

# System calls per 64 KB of payload by each gsotun, over one extra
# single-stream run (A sends the data, B receives it).
m_syscalls()
{
	local pa pb fa=$RAW/$row-syscalls-A.txt fb=$RAW/$row-syscalls-B.txt
	local v bytes ca cb

	R_SCA[$row]=NA R_SCB[$row]=NA R_SCDA[$row]='' R_SCDB[$row]=''
	[ -n "$GT_A" ] && [ "$SC_TOOL" != none ] || return
	sc_start "$GT_A" "$fa"
	pa=$SC_PID
	sc_start "$GT_B" "$fb"
	pb=$SC_PID
	sleep 1
	iperf syscalls -t "$SC_T" && v=$(ipj "$RAW/$row-syscalls.json" tcp)
	stop "$pa" INT
	stop "$pb" INT
	[ -n "${v:-}" ] || return
	bytes=${v#* }
	sc_total "$fa"
	ca=$SC_COUNT R_SCDA[$row]=$SC_DETAIL
	sc_total "$fb"
	cb=$SC_COUNT R_SCDB[$row]=$SC_DETAIL
	[ "$(calc "$bytes > 0")" = 1 ] || return
	isnum "$ca" && R_SCA[$row]=$(calc "$ca / ($bytes / 65536)")
	isnum "$cb" && R_SCB[$row]=$(calc "$cb / ($bytes / 65536)")
	log "$row: syscalls per 64 KB: A ${R_SCA[$row]} (${R_SCDA[$row]})"
	log "$row: syscalls per 64 KB: B ${R_SCB[$row]} (${R_SCDB[$row]})"
}

# The fallback request/response: 1-byte TCP ping-pong for a fixed time.
write_rr_py()
{
	cat >"$TMP/rr.py" <<'EOF'
# rr.py server ADDR PORT | client ADDR PORT SECONDS
import socket
import sys
import time


def nodelay(s):
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def server(addr, port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    c, _ = ls.accept()
    nodelay(c)
    while True:
        b = c.recv(1)
        if not b:
            return
        c.sendall(b)


def client(addr, port, secs):
    c = socket.create_connection((addr, port), timeout=10)
    nodelay(c)
    n = 0
    t0 = time.monotonic()
    end = t0 + secs
    now = t0
    while now < end:
        c.sendall(b"x")
        if not c.recv(1):
            sys.exit("connection closed")
        n += 1
        now = time.monotonic()
    print(n, now - t0)


if sys.argv[1] == "server":
    server(sys.argv[2], int(sys.argv[3]))
else:
    client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
EOF
}

# bulk.py recv ADDR PORT | send ADDR PORT SECONDS SEGS: 1400-byte UDP
# datagrams. The sender sends SEGS a send (UDP_SEGMENT when more than one)
# and prints the datagrams it sent and the seconds it took; the receiver
# reads with UDP_GRO until a second passes without data and prints the
# datagrams it got.
write_bulk_py()
{
	cat >"$TMP/bulk.py" <<'EOF'
import socket
import sys
import time

SOL_UDP = 17
UDP_SEGMENT = 103
UDP_GRO = 104
SO_RCVBUFFORCE = 33
SIZE = 1400


def udp(addr):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    return socket.socket(fam, socket.SOCK_DGRAM)


def recv(addr, port):
    s = udp(addr)
    s.setsockopt(SOL_UDP, UDP_GRO, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    s.bind((addr, port))
    buf = bytearray(65536)
    got = 0
    s.settimeout(20)
    try:
        while True:
            got += s.recv_into(buf)
            s.settimeout(1)
    except socket.timeout:
        pass
    print(got // SIZE)


def send(addr, port, secs, segs):
    s = udp(addr)
    if segs > 1:
        s.setsockopt(SOL_UDP, UDP_SEGMENT, SIZE)
    s.connect((addr, port))
    buf = bytes(SIZE * segs)
    n = 0
    t0 = time.monotonic()
    end = t0 + secs
    now = t0
    while now < end:
        try:
            s.send(buf)
            n += 1
        except OSError:
            pass
        now = time.monotonic()
    print(n * segs, now - t0)


if sys.argv[1] == "recv":
    recv(sys.argv[2], int(sys.argv[3]))
else:
    send(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]),
         int(sys.argv[5]))
EOF
}

# rr_once CPUS: round trips per second with the client, the server and
# both gsotuns on CPUS (taskset -c; in a VM the pinned figure, on CPU 0,
# is the stable one), into RR_ONCE (NA if it failed); the CPU busy over
# the run, in % of one, into RR_CPU.
rr_once()
{
	local cpus=$1 spid out=$RAW/$row-rr-$1.txt n s pid b0 t0 b1 t1

	RR_ONCE=NA RR_CPU=NA
	port=$((port + 1))
	for pid in $GT_A $GT_B; do
		taskset -a -p -c "$cpus" "$pid" >/dev/null 2>&1 ||
			log "taskset -p $pid failed"
	done
	if [ "$RR_TOOL" = sockperf ]; then
		ip netns exec "$NS_B" taskset -c "$cpus" sockperf server --tcp \
			-i "$OV_B" -p "$port" </dev/null >/dev/null 2>&1 &
	else
		ip netns exec "$NS_B" taskset -c "$cpus" "$PY" "$TMP/rr.py" server \
			"$OV_B" "$port" </dev/null >/dev/null 2>&1 &
	fi
	spid=$!
	track "$spid"
	if ! wait_listen "$NS_B" "$port"; then
		log "request/response server does not listen on $port"
		stop "$spid"
		return
	fi
	b0=$(busy) t0=$(date +%s.%N)
	if [ "$RR_TOOL" = sockperf ]; then
		ip netns exec "$NS_A" timeout $((T + 30)) taskset -c "$cpus" \
			sockperf ping-pong --tcp -i "$OV_B" -p "$port" -t "$T" \
			-m 14 </dev/null >"$out" 2>&1
		# The valid part of the run, after the warm-up.
		read -r n s < <(sed -n 's/.*\[Valid Duration\] RunTime=\([0-9.]*\) sec;.*ReceivedMessages=\([0-9]*\).*/\2 \1/p' "$out")
	else
		ip netns exec "$NS_A" timeout $((T + 30)) taskset -c "$cpus" \
			"$PY" "$TMP/rr.py" client "$OV_B" "$port" "$T" \
			</dev/null >"$out" 2>&1
		read -r n s <"$out"
	fi
	b1=$(busy) t1=$(date +%s.%N)
	stop "$spid"
	if isnum "${n:-}" && isnum "${s:-}" && [ "$(calc "$s > 0")" = 1 ]; then
		RR_ONCE=$(calc "$n / $s")
		RR_CPU=$(calc "100 * ($b1 - $b0) / $HZ / ($t1 - $t0)")
	else
		log "$row: request/response on CPUs $cpus failed ($out)"
	fi
}

# Round trips per second pinned to CPU 0 (R_RR), and unpinned, on every
# CPU (R_RRU): what a busy-polling gsotun (--busy-poll) costs the others
# shows there, and the CPU it burns in R_RRU_CPU.
m_rr()
{
	rr_once 0
	R_RR[$row]=$RR_ONCE
	log "$row: pinned request/response: ${R_RR[$row]} round trips/s"
	rr_once "0-$(($(nproc) - 1))"
	R_RRU[$row]=$RR_ONCE R_RRU_CPU[$row]=$RR_CPU
	log "$row: unpinned request/response: ${R_RRU[$row]} round trips/s," \
		"CPU ${R_RRU_CPU[$row]}% of one"
}

# thread_ticks PID: "TID NAME TICKS" for each thread of PID, TICKS its
# user and system clock ticks, NAME what pthread_setname_np() made it.
thread_ticks()
{
	local t stat name f

	for t in /proc/"$1"/task/*; do
		{ read -r stat <"$t/stat"; } 2>/dev/null || continue
		name=${stat#*(} name=${name%%)*}
		read -r -a f <<<"${stat##*) }"
		echo "${t##*/} $name $((f[11] + f[12]))"
	done
}

# threads_mark: the ticks of A's and B's gsotun threads, now.
threads_mark()
{
	thread_ticks "$GT_A" >"$TMP/threads-A"
	thread_ticks "$GT_B" >"$TMP/threads-B"
	THR_T0=$(date +%s.%N)
}

# threads_since: since threads_mark, each thread's share of one CPU, in
# per cent: "A gsotun=1 gsotun-q0=85 ...; B ..." (names sorted).
threads_since()
{
	local secs side pid out=''

	secs=$(calc "$(date +%s.%N) - $THR_T0")
	for side in A B; do
		pid=GT_$side
		out="$out${out:+; }$side$(thread_ticks "${!pid}" |
			awk -v hz="$HZ" -v s="$secs" '
			NR == FNR { t0[$1] = $3; next }
			{ printf "%s=%.0f\n", $2,
				($3 - t0[$1]) * 100 / hz / s }' \
			"$TMP/threads-$side" - | sort | tr '\n' ' ' |
			sed 's/ $//; s/^/ /')"
	done
	echo "$out"
}

# fmt1 X: X with one decimal, or NA.
fmt1()
{
	if isnum "$1"; then printf %.1f "$1"; else echo NA; fi
}

# ipsent FILE: the datagrams an iperf3 UDP client's JSON says it sent.
ipsent()
{
	"$PY" -c 'import json, sys
print(json.load(open(sys.argv[1]))["end"]["sum"]["packets"])' "$1" \
		2>/dev/null
}

# udp_losses NS DEV: the frames DEV's readers left to the kernel to drop
# (a tap's TX drops: gsotun did not read them in time), then the
# datagrams the namespace's UDP sockets had no room for (RcvbufErrors:
# the receiving application did not read them in time).
udp_losses()
{
	local tap sock

	tap=$(ip -n "$1" -s -j link show dev "$2" | "$PY" -c 'import json, sys
print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])') || return 1
	# shellcheck disable=SC2016 # awk's fields, not the shell's
	sock=$(ip netns exec "$1" awk '$1 == "Udp:" && !h {
		for (i = 2; i <= NF; i++) k[i] = $i; h = 1; next }
		$1 == "Udp:" { for (i = 2; i <= NF; i++)
			if (k[i] == "RcvbufErrors") print $i }' /proc/net/snmp)
	echo "$tap ${sock:-0}"
}

# The queue rows: 8 TCP streams, and 64-byte UDP from 8 flows (median
# of 3), with each gsotun thread's share of a CPU over each, and where
# the datagrams that did not arrive were lost: at A's tap, before any
# work, or at the receiving socket in B, after all of it (per cent of
# those sent, the 3 runs together).
m_queues()
{
	local v i n s runs=() sent=0 t0 s0 t1 s1 b0 b1

	R_TCP8[$row]=NA
	threads_mark
	iperf tcp8 -t "$T" -P 8 && v=$(ipj "$RAW/$row-tcp8.json" tcp) &&
		R_TCP8[$row]=$(calc "${v%% *} / 1e9")
	R_THR_TCP8[$row]=$(threads_since)
	log "$row: eight streams: ${R_TCP8[$row]} Gbit/s;" \
		"threads, % of a CPU: ${R_THR_TCP8[$row]}"
	threads_mark
	read -r t0 b0 < <(udp_losses "$NS_A" "$DEV_A")
	read -r b1 s0 < <(udp_losses "$NS_B" "$DEV_B")
	for i in 1 2 3; do
		runs+=(NA)
		iperf "udp64x8-$i" -t "$T" -u -l 64 -b 0 -P 8 || continue
		v=$(ipsent "$RAW/$row-udp64x8-$i.json") && sent=$((sent + v))
		v=$(ipj "$RAW/$row-udp64x8-$i.json" udp) || continue
		read -r n s <<<"$v"
		[ "$(calc "$s > 0")" = 1 ] && runs[-1]=$(calc "$n / $s")
		log "$row: 64-byte UDP from 8 flows, run $i: ${runs[-1]}" \
			"datagrams/s received"
	done
	R_THR_UDP8[$row]=$(threads_since)
	read -r t1 b0 < <(udp_losses "$NS_A" "$DEV_A")
	read -r b1 s1 < <(udp_losses "$NS_B" "$DEV_B")
	if isnum "$t1" && isnum "$s1" && [ "$sent" -gt 0 ]; then
		R_U8TAP[$row]=$(calc "100 * ($t1 - $t0) / $sent")
		R_U8SOCK[$row]=$(calc "100 * ($s1 - $s0) / $sent")
		log "$row: of $sent datagrams sent, lost at A's tap" \
			"${R_U8TAP[$row]}%, at B's socket ${R_U8SOCK[$row]}%"
	fi
	R_U8RUNS[$row]=$(IFS=,; echo "${runs[*]}")
	R_UDP8[$row]=$(median "${runs[@]}")
	log "$row: threads, % of a CPU: ${R_THR_UDP8[$row]}"
}

# ---------------------------------------------------------------- a row

# m_gre_floor: after the gre row's gsotun are gone, in the same
# namespaces, contrib/gre-floor: raw GRE from A's raw socket to B's, read
# with recvmmsg(), nothing else, sender and receiver pinned apart. What
# the kernel's raw socket path moves alone bounds --encap gre (issue 38).
m_gre_floor()
{
	local out=$RAW/gre-floor.txt pid

	if [ ! -x "$GRE_FLOOR" ] && ! make -C "$top" contrib/gre-floor \
		>"$RAW/gre-floor-make.log" 2>&1; then
		log "cannot make $GRE_FLOOR ($RAW/gre-floor-make.log)"
		return
	fi
	timeout $((T + 10)) ip netns exec "$NS_B" taskset -c $(($(nproc) - 1)) \
		"$GRE_FLOOR" recv mmsg "$T" >"$out" 2>&1 &
	pid=$!
	sleep 0.3
	ip netns exec "$NS_A" taskset -c 0 "$GRE_FLOOR" send ip "$UL_B" \
		$((T + 1)) >>"$out" 2>&1
	wait "$pid"
	R_GRE_FLOOR=$(sed -n 's/^mmsg: .* kpps, \([0-9.]*\) Gbit.*/\1/p' "$out")
	isnum "$R_GRE_FLOOR" || R_GRE_FLOOR=NA
	log "gre: raw GRE alone (contrib/gre-floor): $R_GRE_FLOOR Gbit/s of GRE payload"
}

run_row()
{
	local pid

	row=$1
	GT_A='' GT_B=''
	log "--- ${LABEL[$row]}"
	if ! net_up || ! tunnel_up "$row"; then
		R_NOTE[$row]="set-up failed"
		setup_failed=1
	else
		ip netns exec "$NS_A" ethtool -k "$VETH_A" \
			>"$RAW/$row-veth-features.txt" 2>&1
		# The copy-only forwarder carries bulk UDP alone (no TSO).
		if [[ " $QROWS " == *" $row "* ]]; then
			m_queues
		elif [ "$row" = copy-only ]; then
			R_NOTE[$row]="bulk and plain UDP only"
		else
			m_tcp1
			m_tcp4
			m_udp64
			m_syscalls
			m_rr
		fi
		# Last: bulk UDP raises gsotun's tap to 64 KB for a while,
		# which the TCP connections of the measures above would keep.
		if [[ " $QROWS " != *" $row "* ]]; then
			m_bulk bulk 45
			R_BULK[$row]=$BULK R_BRUNS[$row]=$BRUNS
			R_BLOSS[$row]=$BLOSS
			m_bulk plain 1
			R_PLAIN[$row]=$BULK R_PRUNS[$row]=$BRUNS
			R_PLOSS[$row]=$BLOSS
		fi
		[ "$row" = peers100 ] && m_flood
		for pid in $GT_A $GT_B; do
			alive "$pid" ||
				R_NOTE[$row]="${LABEL[$row]} exited during the row"
		done
	fi
	for pid in $GT_A $GT_B $SINK_PID; do
		stop "$pid"
	done
	SINK_PID=''
	# Its raw socket would take gsotun's packets, and gsotun its.
	[ "$row" = gre ] && [ -z "${R_NOTE[$row]}" ] && m_gre_floor
	net_down
}

# ---------------------------------------------------------------- output

# The table, TSV, JSON and chart from the R_* arrays.
targets()
{
	local k=kernel v=vxlan r

	# id  description  value  op  threshold
	target "vxlan-tcp1" "gsotun vxlan 1 stream / kernel" \
		"$(ratio "${R_TCP1[$v]}" "${R_TCP1[$k]}")" ">=" 0.6
	target "gre-udp-tcp1" "gsotun gre-udp 1 stream / kernel" \
		"$(ratio "${R_TCP1[gre-udp]}" "${R_TCP1[$k]}")" ">=" 0.6
	target "gre-tcp1" "gsotun gre 1 stream / kernel" \
		"$(ratio "${R_TCP1[gre]}" "${R_TCP1[$k]}")" ">=" 0.35
	# Whether the kernel's raw GRE path reaches that target alone.
	target "gre-floor" "raw GRE alone (gre-floor) / kernel" \
		"$(ratio "$R_GRE_FLOOR" "${R_TCP1[$k]}")" ">=" 0.35
	target "vxlan-offload" "gsotun vxlan 1 stream / --no-offload" \
		"$(ratio "${R_TCP1[$v]}" "${R_TCP1[no-offload]}")" ">=" 8
	target "peers100-tcp1" "gsotun vxlan 100 peers / 1 peer, 1 stream" \
		"$(ratio "${R_TCP1[peers100]}" "${R_TCP1[$v]}")" ">=" 0.95
	target "vxlan-cpu" "gsotun vxlan CPU per KB / kernel" \
		"$(ratio "${R_CPU[$v]}" "${R_CPU[$k]}")" "<=" 1.6
	target "vxlan-bulk" "gsotun vxlan bulk UDP (GSO) / kernel" \
		"$(ratio "${R_BULK[$v]}" "${R_BULK[$k]}")" ">=" 0.6
	target "gre-udp-bulk" "gsotun gre-udp bulk UDP (GSO) / kernel" \
		"$(ratio "${R_BULK[gre-udp]}" "${R_BULK[$k]}")" ">=" 0.6
	# What a process between a tap and a UDP socket can carry at most.
	target "copy-only-bulk" "copy-only forwarder bulk UDP / kernel" \
		"$(ratio "${R_BULK[copy-only]}" "${R_BULK[$k]}")" ">=" 0.6
	target "vxlan-bulk-bound" "gsotun vxlan bulk UDP / copy-only" \
		"$(ratio "${R_BULK[$v]}" "${R_BULK[copy-only]}")" ">=" 0.7
	target "vxlan-plain" "gsotun vxlan UDP 1400 B sends / kernel" \
		"$(ratio "${R_PLAIN[$v]}" "${R_PLAIN[$k]}")" ">=" 1
	target "vxlan-udp64" "gsotun vxlan 64-byte UDP pps / kernel" \
		"$(ratio "${R_UDP[$v]}" "${R_UDP[$k]}")" ">=" 0.8
	# Latency is the inverse of the pinned round-trip rate.
	target "vxlan-latency" "gsotun vxlan pinned RR latency / kernel" \
		"$(ratio "${R_RR[$k]}" "${R_RR[$v]}")" "<=" 1.5
	# Issue 38: polling after a packet spares the wake-up of a sleeper.
	target "busy-poll-latency" \
		"--busy-poll 50 unpinned RR latency / vxlan's" \
		"$(ratio "${R_RRU[$v]}" "${R_RRU[busy-poll]}")" "<=" 0.6
	for r in vxlan gre-udp gre gre-coalesce geneve; do
		target "$r-syscalls-A" "gsotun $r syscalls/64 KB, sender" \
			"${R_SCA[$r]:-NA}" "<=" 2
		target "$r-syscalls-B" "gsotun $r syscalls/64 KB, receiver" \
			"${R_SCB[$r]:-NA}" "<=" 2
	done
}

target()
{
	local res=MISS

	if ! isnum "$3"; then
		res="N/A "
	elif [ "$(calc "$3 $4 $5")" = 1 ]; then
		res=PASS
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$res" \
		>>"$OUT/targets.tsv"
	printf '  %s  %-42s %8s  (target %s %s)\n' "$res" "$2" \
		"$(fmt %.3f "$3")" "$4" "$5"
}

cell()
{
	local r

	r=$(ratio "$1" "$2")
	printf '%9s %6s' "$(fmt "$3" "$1")" "$(fmt %.2fx "$r")"
}

# gpe_ratio ARRAY ROW: ROW's figure of ARRAY over kernel-gpe's, as 0.00x.
gpe_ratio()
{
	local -n a=$1

	fmt %.2fx "$(ratio "${a[$2]}" "${a[kernel-gpe]:-NA}")"
}

report()
{
	local r k=kernel hdr

	: >"$OUT/targets.tsv"
	printf 'row\tlabel\tmtu\ttcp1_gbps\ttcp1_runs\ttcp4_gbps\tcpu_us_per_kb\tudp64_pps\tudp64_runs\tudp64_dev_pps\trr_per_s\trtt_us\tsyscalls_64k_a\tsyscalls_64k_b\ttcp1_ratio\ttcp4_ratio\tcpu_ratio\tudp64_ratio\trr_ratio\tsyscalls_a_detail\tsyscalls_b_detail\tbulk_gbps\tbulk_runs\tbulk_loss_pct\tbulk_ratio\tplain_gbps\tplain_runs\tplain_loss_pct\tplain_ratio\tflood_ns_per_copy\tflood_copies\tnote\n' \
		>"$OUT/bench.tsv"
	printf '# row\ttcp1\ttcp4\tudp64\trr\tcpu\tbulk\n' >"$OUT/plot.dat"
	{
		echo
		echo "gsotun benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs, ${T} s per measure"
		echo "two namespaces, veth MTU 1500${VETH_FEAT[*]:+ (ethtool -K ${VETH_FEAT[*]})}; ratios to the kernel's vxlan (same run)"
		echo
		hdr=$(printf '%-26s %16s %16s %16s %16s %16s %15s' row \
			"TCP 1 Gbit/s" "TCP 4 Gbit/s" "CPU us/KB" \
			"UDP64 kpps" "RR/s pinned" "syscall/64KB")
		echo "$hdr"
		printf '%-26s %16s %16s %16s %16s %16s %7s %7s\n' "" \
			"(higher better)" "(higher better)" "(lower better)" \
			"(higher better)" "(higher better)" sender recv
		for r in $ROWS; do
			local kp rtt
			kp=NA
			isnum "${R_UDP[$r]}" && kp=$(calc "${R_UDP[$r]} / 1000")
			printf '%-26s %s %s %s %s %s %7s %7s%s\n' "${LABEL[$r]}" \
				"$(cell "${R_TCP1[$r]}" "${R_TCP1[$k]:-NA}" %.2f)" \
				"$(cell "${R_TCP4[$r]}" "${R_TCP4[$k]:-NA}" %.2f)" \
				"$(cell "${R_CPU[$r]}" "${R_CPU[$k]:-NA}" %.3f)" \
				"$(cell "$kp" "$(ratio "${R_UDP[$k]:-NA}" 1000)" %.1f)" \
				"$(cell "${R_RR[$r]}" "${R_RR[$k]:-NA}" %.0f)" \
				"$(fmt %.1f "${R_SCA[$r]}")" \
				"$(fmt %.1f "${R_SCB[$r]}")" \
				"${R_NOTE[$r]:+  [${R_NOTE[$r]}]}"
			rtt=NA
			isnum "${R_RR[$r]}" && rtt=$(calc "1e6 / ${R_RR[$r]}")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
				"$r" "${LABEL[$r]}" "${R_MTU[$r]}" "${R_TCP1[$r]}" \
				"${R_RUNS[$r]}" "${R_TCP4[$r]}" "${R_CPU[$r]}" \
				"${R_UDP[$r]}" "${R_URUNS[$r]:-NA}" \
				"${R_UDPT[$r]:-NA}" "${R_RR[$r]}" "$rtt" \
				"${R_SCA[$r]}" "${R_SCB[$r]}" \
				"$(ratio "${R_TCP1[$r]}" "${R_TCP1[$k]:-NA}")" \
				"$(ratio "${R_TCP4[$r]}" "${R_TCP4[$k]:-NA}")" \
				"$(ratio "${R_CPU[$r]}" "${R_CPU[$k]:-NA}")" \
				"$(ratio "${R_UDP[$r]}" "${R_UDP[$k]:-NA}")" \
				"$(ratio "${R_RR[$r]}" "${R_RR[$k]:-NA}")" \
				"${R_SCDA[$r]}" "${R_SCDB[$r]}" \
				"${R_BULK[$r]}" "${R_BRUNS[$r]}" "${R_BLOSS[$r]}" \
				"$(ratio "${R_BULK[$r]}" "${R_BULK[$k]:-NA}")" \
				"${R_PLAIN[$r]}" "${R_PRUNS[$r]}" "${R_PLOSS[$r]}" \
				"$(ratio "${R_PLAIN[$r]}" "${R_PLAIN[$k]:-NA}")" \
				"${R_FLOOD[$r]}" "${R_FCOPIES[$r]}" \
				"${R_NOTE[$r]}" \
				>>"$OUT/bench.tsv"
			# Chart: every figure as "higher is better" (CPU
			# inverted: kernel's CPU per KB / the row's).
			printf '"%s"\t%s\t%s\t%s\t%s\t%s\t%s\n' "${SHORT[$r]}" \
				"$(ratio "${R_TCP1[$r]}" "${R_TCP1[$k]:-NA}")" \
				"$(ratio "${R_TCP4[$r]}" "${R_TCP4[$k]:-NA}")" \
				"$(ratio "${R_UDP[$r]}" "${R_UDP[$k]:-NA}")" \
				"$(ratio "${R_RR[$r]}" "${R_RR[$k]:-NA}")" \
				"$(ratio "${R_CPU[$k]:-NA}" "${R_CPU[$r]}")" \
				"$(ratio "${R_BULK[$r]}" "${R_BULK[$k]:-NA}")" \
				>>"$OUT/plot.dat"
		done
		echo
		echo "tunnel MTU:$(for r in $ROWS; do printf ' %s %s;' "${SHORT[$r]}" "${R_MTU[$r]}"; done)"
		echo "UDP64 packets handed to B's stack by its tunnel device, kpps (a merged UDP super-frame is one; read by the receiver or not):"
		for r in $ROWS; do
			local dp=NA
			isnum "${R_UDPT[$r]}" && dp=$(calc "${R_UDPT[$r]} / 1000")
			printf '  %-26s %s\n' "${LABEL[$r]}" \
				"$(cell "$dp" "$(ratio "${R_UDPT[$k]:-NA}" 1000)" %.1f)"
		done
		echo "TCP round trips unpinned (sockperf as RR, on every CPU): per second, one-way latency in us, CPU busy in % of one:"
		for r in $ROWS; do
			local lat=NA
			isnum "${R_RRU[$r]}" && lat=$(calc "1e6 / ${R_RRU[$r]} / 2")
			printf '  %-26s %s %8s us %8s%%\n' "${LABEL[$r]}" \
				"$(cell "${R_RRU[$r]}" "${R_RRU[$k]:-NA}" %.0f)" \
				"$(fmt %.1f "$lat")" "$(fmt %.0f "${R_RRU_CPU[$r]}")"
		done
		echo "UDP of 1400-byte datagrams, Gbit/s received (datagrams lost):"
		printf '  %-26s %24s %24s\n' "" "45 a send (UDP GSO)" \
			"one a send"
		for r in $ROWS; do
			printf '  %-26s %s %7s %s %7s\n' "${LABEL[$r]}" \
				"$(cell "${R_BULK[$r]}" "${R_BULK[$k]:-NA}" %.2f)" \
				"($(fmt %.0f%% "${R_BLOSS[$r]}"))" \
				"$(cell "${R_PLAIN[$r]}" "${R_PLAIN[$k]:-NA}" %.2f)" \
				"($(fmt %.0f%% "${R_PLOSS[$r]}"))"
		done
		if [ -n "${R_TCP1[kernel-gpe]:-}" ]; then
			echo "L3 rows to the kernel's vxlan-gpe (same run):" \
				"TCP 1, CPU per KB, UDP64, RR:"
			for r in tun-gpe tun-gre-udp; do
				[ -n "${R_TCP1[$r]:-}" ] || continue
				printf '  %-26s %s %s %s %s\n' "${LABEL[$r]}" \
					"$(gpe_ratio R_TCP1 "$r")" \
					"$(gpe_ratio R_CPU "$r")" \
					"$(gpe_ratio R_UDP "$r")" \
					"$(gpe_ratio R_RR "$r")"
			done
		fi
		if isnum "${R_FLOOD[peers100]}"; then
			echo "64-byte broadcasts flooded to 100 peers: $(fmt %.0f "${R_FLOOD[peers100]}") ns of gsotun CPU per copy (${R_FCOPIES[peers100]} copies)"
		fi
		if isnum "$R_GRE_FLOOR"; then
			echo "raw GRE alone (contrib/gre-floor, no tunnel): $(fmt %.2f "$R_GRE_FLOOR") Gbit/s of GRE payload, $(fmt %.2fx "$(ratio "$R_GRE_FLOOR" "${R_TCP1[$k]}")") of the kernel's 1 stream; gsotun gre 1 stream $(fmt %.2fx "$(ratio "${R_TCP1[gre]}" "$R_GRE_FLOOR")") of it"
		fi
		echo "syscalls counted with $SC_TOOL, request/response with $RR_TOOL; CPU us/KB over all CPUs, KB = 1024 bytes"
		echo
		[ -z "$QROWS" ] || queues_report
		echo "targets (issues 3, 14 and 15; informational):"
		targets
	} | tee "$OUT/bench.txt"
	write_json
	plot
}

# queues_report: the queue rows' table, and queues.tsv; ratios to the
# one-queue row of the same offloads.
queues_report()
{
	local r b

	printf 'row\tlabel\ttcp8_gbps\ttcp8_ratio\tudp64x8_pps\tudp64x8_runs\tudp64x8_ratio\tthreads_tcp8_pct\tthreads_udp64x8_pct\tudp64x8_lost_tap_pct\tudp64x8_lost_socket_pct\tnote\n' \
		>"$OUT/queues.tsv"
	echo "queues (issue 26): ratios to the one-queue row, same offloads"
	printf '%-38s %16s %16s\n' row "TCP 8 Gbit/s" "UDP64 x8 kpps"
	for r in $QROWS; do
		b=${r/q2/q1}
		local kp=NA bkp=NA
		isnum "${R_UDP8[$r]}" && kp=$(calc "${R_UDP8[$r]} / 1000")
		isnum "${R_UDP8[$b]}" && bkp=$(calc "${R_UDP8[$b]} / 1000")
		printf '%-38s %s %s%s\n' "${LABEL[$r]}" \
			"$(cell "${R_TCP8[$r]}" "${R_TCP8[$b]}" %.2f)" \
			"$(cell "$kp" "$bkp" %.1f)" \
			"${R_NOTE[$r]:+  [${R_NOTE[$r]}]}"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
			"$r" "${LABEL[$r]}" "${R_TCP8[$r]}" \
			"$(ratio "${R_TCP8[$r]}" "${R_TCP8[$b]}")" \
			"${R_UDP8[$r]}" "${R_U8RUNS[$r]}" \
			"$(ratio "${R_UDP8[$r]}" "${R_UDP8[$b]}")" \
			"${R_THR_TCP8[$r]}" "${R_THR_UDP8[$r]}" \
			"${R_U8TAP[$r]}" "${R_U8SOCK[$r]}" "${R_NOTE[$r]}" \
			>>"$OUT/queues.tsv"
	done
	echo "gsotun threads, per cent of one CPU (TCP 8 streams | UDP64 x8):"
	for r in $QROWS; do
		printf '  %-20s %s | %s\n' "${SHORT[$r]}" \
			"${R_THR_TCP8[$r]:-NA}" "${R_THR_UDP8[$r]:-NA}"
	done
	echo "UDP64 x8, per cent of the datagrams sent lost at A's tap" \
		"(unread) | at B's receiving socket (no room):"
	for r in $QROWS; do
		printf '  %-20s %s | %s\n' "${SHORT[$r]}" \
			"$(fmt1 "${R_U8TAP[$r]}")" "$(fmt1 "${R_U8SOCK[$r]}")"
	done
	echo
}

write_json()
{
	local ver

	ver=$("$GSOTUN" --version 2>/dev/null | head -n 1)
	"$PY" - "$OUT" "$ver" "$T" "$SC_TOOL" "$RR_TOOL" "$IDLE_BUSY" <<'EOF'
import csv
import json
import os
import platform
import sys
import time

out, ver, secs, sc_tool, rr_tool, idle = sys.argv[1:7]


def num(s):
    if s in ("", "NA"):
        return None
    try:
        return float(s)
    except ValueError:
        return s


with open(os.path.join(out, "bench.tsv")) as f:
    rows = []
    for r in csv.DictReader(f, delimiter="\t"):
        row = {k: (v if k in ("row", "label", "note", "syscalls_a_detail",
                              "syscalls_b_detail") else num(v))
               for k, v in r.items()}
        for k in ("tcp1_runs", "udp64_runs", "bulk_runs", "plain_runs"):
            row[k] = [num(x) for x in r[k].split(",")]
        if row["mtu"] is not None:
            row["mtu"] = int(row["mtu"])
        rows.append(row)
queues = []
if os.path.exists(os.path.join(out, "queues.tsv")):
    with open(os.path.join(out, "queues.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            row = {k: (v if k in ("row", "label", "note",
                                  "threads_tcp8_pct",
                                  "threads_udp64x8_pct") else num(v))
                   for k, v in r.items()}
            row["udp64x8_runs"] = [num(x)
                                   for x in r["udp64x8_runs"].split(",")]
            queues.append(row)
with open(os.path.join(out, "targets.tsv")) as f:
    targets = [{"id": t[0], "what": t[1], "value": num(t[2]), "op": t[3],
                "threshold": float(t[4]), "result": t[5].strip()}
               for t in csv.reader(f, delimiter="\t")]
doc = {
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "kernel": platform.release(),
    "cpus": os.cpu_count(),
    "gsotun": ver,
    "seconds_per_measure": float(secs),
    "syscall_counter": sc_tool,
    "request_response_tool": rr_tool,
    "busy_cpu_percent_before_start": float(idle),
    "units": {"tcp1_gbps": "Gbit/s, median of 3",
              "tcp4_gbps": "Gbit/s, iperf3 -P 4",
              "cpu_us_per_kb": "busy us of all CPUs per 1024 bytes",
              "udp64_pps": "64-byte datagrams received per second, "
                           "median of 3",
              "udp64_dev_pps": "packets per second the receiving "
                               "tunnel device handed to its stack in "
                               "the 64-byte runs (read by the receiver "
                               "or not; a UDP super-frame gsotun "
                               "merged is one), median of 3",
              "bulk_gbps": "Gbit/s received of 1400-byte UDP datagrams "
                           "sent 45 a send with UDP_SEGMENT, read with "
                           "UDP_GRO, median of 3",
              "bulk_runs": "the three runs' Gbit/s",
              "bulk_ratio": "bulk_gbps / the kernel's",
              "bulk_loss_pct": "per cent of those datagrams lost, "
                               "median of 3",
              "plain_gbps": "the same sent one a send",
              "plain_loss_pct": "per cent of those lost, median of 3",
              "plain_runs": "the three runs' Gbit/s",
              "plain_ratio": "plain_gbps / the kernel's",
              "rr_per_s": "TCP round trips per second, pinned to CPU 0",
              "syscalls_64k_a": "sender-side gsotun syscalls per 64 KiB",
              "syscalls_64k_b": "receiver-side gsotun syscalls per 64 KiB",
              "flood_ns_per_copy": "100 peers: ns of the sending gsotun's "
                                   "CPU per copy of a flooded 64-byte "
                                   "broadcast",
              "flood_copies": "the copies sent in that measure",
              "tcp8_gbps": "queue rows: Gbit/s, iperf3 -P 8, one run",
              "udp64x8_pps": "queue rows: 64-byte datagrams received "
                             "per second from 8 flows, median of 3",
              "tcp8_ratio": "to the one-queue row of the same offloads",
              "threads_tcp8_pct": "A's and B's gsotun threads by name, "
                                  "per cent of one CPU over the run",
              "udp64x8_lost_tap_pct": "queue rows: of the datagrams "
                                      "sent, per cent A's tap dropped "
                                      "unread (3 runs)",
              "udp64x8_lost_socket_pct": "per cent B's UDP sockets "
                                         "dropped for want of room"},
    "rows": rows,
    "queues": queues,
    "targets": targets,
}
with open(os.path.join(out, "bench.json"), "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
EOF
}

plot()
{
	command -v gnuplot >/dev/null 2>&1 ||
		{ log "gnuplot not installed: no chart"; return; }
	gnuplot -e "datafile='$OUT/plot.dat'; outfile='$OUT/bench.png'" \
		-e "subtitle='$(uname -r), $(nproc) CPUs, veth MTU 1500, $(date -u +%Y-%m-%d)'" \
		"$here/bench-plot.gp" 2>"$TMP/gnuplot.err" ||
		{ log "gnuplot failed:"; cat "$TMP/gnuplot.err" >&2; return; }
	log "chart: $OUT/bench.png"
}

# ---------------------------------------------------------------- main

case ${1:-} in
-h | --help) usage ;;
"") ;;
*) die "no arguments expected (see --help)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "run me as root: I create namespaces and taps"
install_tools
check_tools
[ -x "$GSOTUN" ] || die "no gsotun at $GSOTUN (build it or set GSOTUN)"
[[ $T =~ ^[1-9][0-9]*$ ]] || die "BENCH_TIME must be a whole number"
[ "$SC_TOOL" = perf ] && perf_events

trap cleanup EXIT
trap 'exit 1' INT TERM
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gsotun-bench.XXXXXX") || die "mktemp failed"
mkdir -p "$OUT/raw" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
RAW=$OUT/raw
rm -f "$RAW"/*
write_rr_py
write_bulk_py

# Another load on the machine skews every figure: say so.
b0=$(busy)
sleep 1
IDLE_BUSY=$(calc "($(busy) - $b0) * 100 / $HZ")
[ "$(calc "$IDLE_BUSY > 10")" = 1 ] &&
	log "warning: the machine is busy before the start ($IDLE_BUSY% of a CPU)"

log "gsotun: $GSOTUN; rows:$ROWS$QROWS; $T s per measure"
for r in $ALL_ROWS; do
	[ -n "${LABEL[$r]:-}" ] || die "unknown row '$r' in BENCH_ROWS"
done
# Rows not run are NA, so that the ratios and targets can name them.
for r in "${!LABEL[@]}"; do
	R_TCP1[$r]=NA R_RUNS[$r]=NA R_TCP4[$r]=NA R_CPU[$r]=NA
	R_UDP[$r]=NA R_URUNS[$r]=NA R_UDPT[$r]=NA
	R_BULK[$r]=NA R_BRUNS[$r]=NA R_BLOSS[$r]=NA
	R_PLAIN[$r]=NA R_PRUNS[$r]=NA R_PLOSS[$r]=NA
	R_RR[$r]=NA R_SCA[$r]=NA R_SCB[$r]=NA R_SCDA[$r]='' R_SCDB[$r]=''
	R_RRU[$r]=NA R_RRU_CPU[$r]=NA
	R_MTU[$r]=NA R_NOTE[$r]='' R_FLOOD[$r]=NA R_FCOPIES[$r]=NA
	R_TCP8[$r]=NA R_UDP8[$r]=NA R_U8RUNS[$r]=NA
	R_THR_TCP8[$r]='' R_THR_UDP8[$r]='' R_U8TAP[$r]=NA R_U8SOCK[$r]=NA
done
for r in $ALL_ROWS; do
	run_row "$r"
done
report
[ "$setup_failed" -eq 0 ] || die "a tunnel could not be set up (see above)"
exit 0
