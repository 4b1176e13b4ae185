#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soak test: a gsotun pair under bidirectional bulk TCP and small packets
# while malformed packets arrive and the underlay flaps (issue 5, "Faults").
#
# Usage (as root): contrib/soak.sh [SECONDS]   (default 600)
#
# Prints TAP; tests/netns-soak.sh runs it for 60 s in `make check`.
# tests/lib.sh's namespaces A and B, gsotun at both ends (vxlan --vni 42
# over IPv4 unless SOAK_ENCAP and SOAK_FAM say otherwise). For SECONDS:
#   - bulk TCP both ways: socat streams of /dev/zero, A->B over IPv4 and
#     B->A over IPv6 inside, each started again if it breaks;
#   - small packets: ping every 10 ms, A->B over IPv6 and B->A over IPv4;
#   - malformed packets at B, about 50 a second, sent from A's namespace
#     by python3 (standard library only): a truncated header, wrong flags
#     (VXLAN I bit clear; GRE version 1), a wrong VNI or GRE key, random
#     bytes, and a well-formed packet from an address that is not the peer;
#   - the underlay flaps: every SOAK_FLAP seconds one veth (A's and B's by
#     turns) goes down for a second;
#   - VmRSS of both gsotun processes is read from /proc every SOAK_SAMPLE
#     seconds ($LIB_TMP/rss.tsv).
# Then the checks:
#   - both gsotun processes are alive;
#   - resident memory is flat: the last sample is at most SOAK_RSS_SLACK kB
#     above the first one after the warm-up (SOAK_WARMUP seconds: a quarter
#     of the run, at most 60);
#   - no unexplained loss. Explained, and only these may move:
#       tx_drop_send, either end: sends while an underlay link is down;
#       tx_drop_peer_no_route, either end: frames not sent while the
#       route watch says the peer has no route (the link down);
#       B's rx_drop_source, rx_drop_short, rx_drop_flags, rx_drop_vni,
#       rx_drop_gre_version, rx_drop_gre_flags, rx_drop_gre_proto,
#       rx_drop_key, rx_drop_csum, rx_drop_csum_missing: the malformed
#       packets, together no more than were sent, each kind's own counter
#       above 0 (so the packets did arrive). With raw GRE the kernel keeps
#       packets from others away from gsotun's connected socket: no
#       rx_drop_source there.
#     Every other rx_drop_* and tx_drop_* counter of either end must stay
#     0, among them: rx_drop_inner_short, rx_drop_inner_hdr,
#     rx_drop_trunc,
#     rx_drop_write, rx_drop_outer, tx_drop_segment, tx_drop_read,
#     tx_drop_too_big and the tx_drop_* of bad vnet headers; and so must
#     rx_inner_csum_bad (not a drop: inner frames broken in transit,
#     passed on as they came). (Not drops, not checked: tx_icmp_unreach,
#     which the flaps can move.)
#   - the bulk load moved at least SOAK_MIN_RATE kB/s (default 1024) each
#     way, on average, by the receiving ends' rx_frame_bytes;
#   - at least half of the pings each way were answered;
#   - then a 16 MiB transfer each way keeps its SHA-256;
#   - both exit 0 on SIGTERM, print counters, remove their tap, and
#     nothing in their stderr is a sanitizer or valgrind report.
#
# Environment:
#   GSOTUN          the binary (default: src/gsotun of this source tree)
#   TESTS_DIR       where lib.sh is (default: ../tests from this script)
#   SOAK_ENCAP      vxlan, gre-udp or gre (default vxlan)
#   SOAK_FAM        underlay family, 4 or 6 (default 4)
#   SOAK_FLAP       seconds between underlay flaps (default 10)
#   SOAK_SAMPLE     seconds between VmRSS samples (default 2)
#   SOAK_WARMUP     seconds before the RSS baseline (default above)
#   SOAK_RSS_SLACK  kB the RSS may grow after the warm-up (default 2048)
#   SOAK_MIN_RATE   kB/s the bulk load must average each way (default
#                   1024; 64 under SOAK_WRAP)
#   SOAK_WRAP       a command gsotun runs under, e.g. valgrind for leaks
#                   only (it does not know that io_uring reads fill the
#                   buffers, so its "uninitialised" reports are false):
#                     SOAK_WRAP="valgrind --leak-check=full
#                       --undef-value-errors=no --error-exitcode=99"
#                   gsotun runs there with --no-seccomp, as valgrind
#                   does not know seccomp(2);
#                   valgrind's own memory grows by about 1 MiB a minute:
#                   raise SOAK_RSS_SLACK for long runs under it. An
#                   ASan/UBSan build needs no wrapper: set GSOTUN to it.
#   GSOTUN_TEST_KEEP=1  keep the temporary directory (gsotun's stderr,
#                   RSS samples)
#
# Everything runs in the soak's own namespaces; lib.sh's EXIT trap kills
# what was started, by PID, and deletes them.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

DURATION=${1:-600}
TESTS_DIR=${TESTS_DIR:-$(cd "$(dirname "$0")/../tests" && pwd)}
# shellcheck source=../tests/lib.sh
. "$TESTS_DIR/lib.sh"

encap=${SOAK_ENCAP:-vxlan}
fam=${SOAK_FAM:-4}
FLAP=${SOAK_FLAP:-10}
SAMPLE=${SOAK_SAMPLE:-2}
WARMUP=${SOAK_WARMUP:-$((DURATION / 4 < 60 ? DURATION / 4 : 60))}
RSS_SLACK=${SOAK_RSS_SLACK:-2048}
MIN_RATE=${SOAK_MIN_RATE:-1024}
[ -n "$SOAK_WRAP" ] && MIN_RATE=${SOAK_MIN_RATE:-64}

case "$encap/$fam" in
vxlan/[46] | gre/[46] | gre-udp/[46]) ;;
*) bail "SOAK_ENCAP=vxlan|gre|gre-udp, SOAK_FAM=4|6" ;;
esac
if ! [[ $DURATION =~ ^[0-9]+$ ]] || [ "$DURATION" -lt 20 ]; then
	bail "usage: soak.sh [SECONDS], at least 20"
fi

lib_init $((DURATION + 120)) socat ping "$PYTHON"
net_setup "$fam" 1
make_data final 16

if [ -n "$SOAK_WRAP" ]; then
	# Exec'd all the way down, so GT_PID is the wrapped process. Without
	# the seccomp filter: valgrind does not know seccomp(2) (ENOSYS).
	printf '#!/bin/bash\nexec %s %q --no-seccomp "$@"\n' "$SOAK_WRAP" \
		"$GSOTUN" >"$LIB_TMP/wrap.sh"
	chmod 755 "$LIB_TMP/wrap.sh"
	GSOTUN=$LIB_TMP/wrap.sh
	diag "gsotun runs under: $SOAK_WRAP"
fi

plen=24 nodad=()
UL_C=198.18.1.3
if [ "$fam" = 6 ]; then
	plen=64 nodad=(nodad) UL_C=fd00:198:18:1::3
	# The flaps must not take the underlay addresses with them.
	ip netns exec "$NS_A" sysctl -qw \
		"net.ipv6.conf.$VETH_A.keep_addr_on_down=1"
	ip netns exec "$NS_B" sysctl -qw \
		"net.ipv6.conf.$VETH_B.keep_addr_on_down=1"
fi
# The source of the packets that are not from the peer.
ip -n "$NS_A" addr add "$UL_C/$plen" dev "$VETH_A" "${nodad[@]}" ||
	bail "cannot add $UL_C to $VETH_A"

case $encap in
vxlan) gt_args=(--vni 42) port=4789 ;;
gre-udp) gt_args=(--key 7) port=4754 ;;
gre) gt_args=(--key 7) port=0 ;;
esac

ends_start()
{
	gt_start "$NS_A" "$TAP_A" --encap "$encap" \
		--local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" --address "$OV6_A/64" "${gt_args[@]}" &&
		gt_start "$NS_B" "$TAP_B" --encap "$encap" \
			--local "$UL_B" --remote "$UL_A" \
			--address "$OV4_B/24" --address "$OV6_B/64" \
			"${gt_args[@]}"
}

# tunnel_up: pings through, both families, within 10 s.
tunnel_up()
{
	local i a

	for a in "$OV4_B" "$OV6_B"; do
		for ((i = 0; i < 20; i++)); do
			ip netns exec "$NS_A" ping -n -q -c 1 -W 0.5 "$a" \
				>/dev/null 2>&1 && break
		done
		[ "$i" -lt 20 ] || { diag "no answer from $a"; return 1; }
	done
}

# ---------------------------------------------------------------- load

LOAD_PIDS=() PING_PIDS=() INJECT_PID=''

# loop_bg NAME CMD...: run CMD again and again, half a second apart, in a
# background subshell until it gets SIGTERM; $LIB_TMP/NAME.starts counts
# the runs, $LIB_TMP/NAME.err collects their stderr.
loop_bg()
{
	local name=$1

	shift
	(
		n=0 child=''
		trap 'kill -TERM $child 2>/dev/null; exit 0' TERM
		while :; do
			n=$((n + 1))
			echo "$n" >"$LIB_TMP/$name.starts"
			"$@" </dev/null >/dev/null 2>>"$LIB_TMP/$name.err" &
			child=$!
			wait "$child"
			sleep 0.5
		done
	) &
	LOAD_PIDS+=($!)
	track_pid $!
}

# ping_bg NAME NS ADDR: ping ADDR from NS every 10 ms for the run; its
# summary in $LIB_TMP/NAME.out.
ping_bg()
{
	ip netns exec "$2" ping -n -q -i 0.01 -W 1 -w "$DURATION" "$3" \
		</dev/null >"$LIB_TMP/$1.out" 2>"$LIB_TMP/$1.err" &
	PING_PIDS+=($!)
	track_pid $!
}

# The malformed packets: python3 in A, standard library only. Arguments:
# encap fam peer other dst port vni-or-key result-file. SIGTERM ends it;
# it then writes "kind=count" lines, and failed= for sends refused.
read -r -d '' INJECT_PY <<'EOF'
import os, random, signal, socket, struct, sys, time

encap, fam, peer, other, dst, port, ident, out = sys.argv[1:9]
port, ident = int(port), int(ident)
af = socket.AF_INET6 if fam == "6" else socket.AF_INET


def sock(src):
    if encap == "gre":
        s = socket.socket(af, socket.SOCK_RAW, socket.IPPROTO_GRE)
    else:
        s = socket.socket(af, socket.SOCK_DGRAM)
    s.bind((src, 0))
    return s


def frame():
    # Unicast destination, a locally administered source, IPv4 type.
    return (bytes([2, 0, 0x5E, 0x50, 0x4B, 1, 2, 0, 0x5E, 0x50, 0x4B, 2,
                   8, 0]) + os.urandom(46))


def vxlan(flags, vni):
    return struct.pack("!B3xI", flags, vni << 8) + frame()


def gre(ver, key):
    # K bit, version, protocol 0x6558 (RFC 2890 section 2.1).
    return struct.pack("!HHI", 0x2000 | ver, 0x6558, key) + frame()


if encap == "vxlan":
    kinds = {
        "short": lambda: os.urandom(random.randint(0, 7)),
        "flags": lambda: vxlan(0x00, ident),
        "vni": lambda: vxlan(0x08, (ident + 1) & 0xFFFFFF),
        "garbage": lambda: os.urandom(random.randint(8, 200)),
        "source": lambda: vxlan(0x08, ident),
    }
else:
    kinds = {
        "short": lambda: os.urandom(random.randint(1, 3)),
        "version": lambda: gre(1, ident),
        "key": lambda: gre(0, (ident + 1) & 0xFFFFFFFF),
        "garbage": lambda: os.urandom(random.randint(8, 200)),
        "source": lambda: gre(0, ident),
    }
sent = {k: 0 for k in kinds}
failed = 0
s_peer, s_other = sock(peer), sock(other)
to = (dst, port, 0, 0) if af == socket.AF_INET6 else (dst, port)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
print("ready", flush=True)
try:
    while True:
        k = random.choice(list(kinds))
        s = s_other if k == "source" else s_peer
        try:
            s.sendto(kinds[k](), to)
            sent[k] += 1
        except OSError:
            failed += 1
        time.sleep(0.02)
finally:
    with open(out, "w") as f:
        for k, n in sent.items():
            f.write("%s=%d\n" % (k, n))
        f.write("failed=%d\n" % failed)
EOF

inject_start()
{
	local ident=${gt_args[1]} i

	ip netns exec "$NS_A" "$PYTHON" -c "$INJECT_PY" "$encap" "$fam" \
		"$UL_A" "$UL_C" "$UL_B" "$port" "$ident" "$LIB_TMP/inject.res" \
		</dev/null >"$LIB_TMP/inject.out" 2>"$LIB_TMP/inject.err" &
	INJECT_PID=$!
	track_pid "$INJECT_PID"
	for ((i = 0; i < 100; i++)); do
		grep -q ready "$LIB_TMP/inject.out" 2>/dev/null && return 0
		pid_alive "$INJECT_PID" || break
		sleep 0.1
	done
	diag "the injector did not start:" "$(cat "$LIB_TMP/inject.err")"
	return 1
}

load_start()
{
	ip netns exec "$NS_B" socat -u TCP4-LISTEN:7001,reuseaddr,fork \
		OPEN:/dev/null </dev/null >/dev/null 2>"$LIB_TMP/sink4.err" &
	LOAD_PIDS+=($!)
	track_pid $!
	ip netns exec "$NS_A" socat -u TCP6-LISTEN:7002,reuseaddr,fork \
		OPEN:/dev/null </dev/null >/dev/null 2>"$LIB_TMP/sink6.err" &
	LOAD_PIDS+=($!)
	track_pid $!
	if ! wait_listen "$NS_B" 7001 || ! wait_listen "$NS_A" 7002; then
		diag "the bulk sinks do not listen"
		return 1
	fi
	loop_bg bulk_ab ip netns exec "$NS_A" socat -u -b 262144 \
		OPEN:/dev/zero "TCP4:$OV4_B:7001"
	loop_bg bulk_ba ip netns exec "$NS_B" socat -u -b 262144 \
		OPEN:/dev/zero "TCP6:[$OV6_A]:7002"
	ping_bg ping_ab "$NS_A" "$OV6_B"
	ping_bg ping_ba "$NS_B" "$OV4_A"
	inject_start
}

# load_stop: the pings get SIGINT (SIGTERM would cut their summary), the
# rest SIGTERM; the injector writes its counts.
load_stop()
{
	local pid

	for pid in "${PING_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null
	done
	for pid in "${LOAD_PIDS[@]}" $INJECT_PID; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${PING_PIDS[@]}" "${LOAD_PIDS[@]}" $INJECT_PID; do
		wait_gone "$pid" 30 || kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		forget_pid "$pid"
	done
	PING_PIDS=() LOAD_PIDS=() INJECT_PID=''
}

# ---------------------------------------------------------------- soak

# rss PID: VmRSS in kB.
rss()
{
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# flap N: the underlay link of one end down for a second (A's when N is
# even, B's when odd).
flap()
{
	local ns=$NS_A dev=$VETH_A

	[ $(($1 % 2)) -eq 1 ] && ns=$NS_B dev=$VETH_B
	ip -n "$ns" link set "$dev" down
	sleep 1
	ip -n "$ns" link set "$dev" up
}

both_alive()
{
	pid_alive "${GT_PID[$NS_A]}" && pid_alive "${GT_PID[$NS_B]}"
}

# soak: the main loop, DURATION seconds; samples in RSS_T, RSS_A, RSS_B.
soak()
{
	local t0=$SECONDS t next_flap=$FLAP next_sample=0 flaps=0

	RSS_T=() RSS_A=() RSS_B=()
	printf 't\tA_kB\tB_kB\n' >"$LIB_TMP/rss.tsv"
	while t=$((SECONDS - t0)) && [ "$t" -lt "$DURATION" ]; do
		both_alive || { diag "a gsotun died after $t s"; break; }
		if [ "$t" -ge "$next_sample" ]; then
			RSS_T+=("$t")
			RSS_A+=("$(rss "${GT_PID[$NS_A]}")")
			RSS_B+=("$(rss "${GT_PID[$NS_B]}")")
			printf '%s\t%s\t%s\n' "$t" "${RSS_A[-1]}" \
				"${RSS_B[-1]}" >>"$LIB_TMP/rss.tsv"
			next_sample=$((t + SAMPLE))
		fi
		# No flap in the last seconds: the run ends on a working path.
		if [ "$t" -ge "$next_flap" ] &&
			[ "$t" -lt $((DURATION - 5)) ]; then
			flap "$flaps"
			flaps=$((flaps + 1))
			next_flap=$((t + FLAP))
		fi
		sleep 0.5
	done
	diag "$flaps underlay flaps in $((SECONDS - t0)) s"
}

# rss_flat LABEL SAMPLES...: the last sample is at most RSS_SLACK kB above
# the first taken at WARMUP seconds or later.
rss_flat()
{
	local label=$1 i base='' last min max

	shift
	local -a s=("$@")
	for i in "${!RSS_T[@]}"; do
		if [ -z "$base" ] && [ "${RSS_T[i]}" -ge "$WARMUP" ]; then
			base=${s[i]}
		fi
	done
	last=${s[-1]}
	min=$(printf '%s\n' "${s[@]}" | sort -n | head -n 1)
	max=$(printf '%s\n' "${s[@]}" | sort -n | tail -n 1)
	diag "$label VmRSS kB: first ${s[0]}, after $WARMUP s ${base:-none}" \
		"$label VmRSS kB: last $last, min $min, max $max" \
		"$label: ${#s[@]} samples, every $SAMPLE s"
	if [ -z "$base" ] || [ -z "$last" ]; then
		diag "$label: no sample after the warm-up"
		return 1
	fi
	[ "$last" -le $((base + RSS_SLACK)) ]
}

# ctr_drops_only LINE ALLOWED...: every rx_drop_* and tx_drop_* counter of
# a counters line, and rx_inner_csum_bad, is 0 but those named.
ctr_drops_only()
{
	local line=$1 w bad=''

	shift
	[ -n "$line" ] || { diag "no counters"; return 1; }
	while read -r w; do
		[ "${w#*=}" = 0 ] && continue
		[[ " $* " == *" ${w%%=*} "* ]] || bad="$bad $w"
	done < <(grep -Eo '([rt]x_drop_[a-z0-9_]+|rx_inner_csum_bad)=[0-9]+' \
		<<<"$line")
	[ -z "$bad" ] || { diag "unexplained drops:$bad"; return 1; }
}

# The counters each kind of malformed packet moves at B.
declare -A KIND_CTR=([short]=rx_drop_short [flags]=rx_drop_flags
	[vni]=rx_drop_vni [version]=rx_drop_gre_version [key]=rx_drop_key
	[source]=rx_drop_source)
MALFORMED="rx_drop_source rx_drop_short rx_drop_flags rx_drop_vni
	rx_drop_gre_version rx_drop_gre_flags rx_drop_gre_proto rx_drop_key
	rx_drop_csum rx_drop_csum_missing"

# malformed_counted: B's counters of malformed packets add up to no more
# than were sent, and each kind's own counter moved.
malformed_counted()
{
	local k n c sent=0 counted=0 st=0
	local -A res

	while IFS='=' read -r k n; do
		res[$k]=$n
	done <"$LIB_TMP/inject.res" ||
		{ diag "no result from the injector"; return 1; }
	diag "malformed sent: $(tr '\n' ' ' <"$LIB_TMP/inject.res")"
	for k in "${!res[@]}"; do
		[ "$k" = failed ] || sent=$((sent + res[$k]))
	done
	for c in $MALFORMED; do
		n=$(ctr "$CB" "$c")
		counted=$((counted + ${n:-0}))
	done
	diag "B counted $counted of $sent as malformed"
	[ "$counted" -le "$sent" ] || st=1
	for k in "${!res[@]}"; do
		c=${KIND_CTR[$k]}
		# Raw GRE: the socket is connected to the peer, the kernel
		# passes it nothing from others (raw_v4_match()): no count.
		[ "$encap/$k" = gre/source ] && c=''
		[ -n "$c" ] || continue
		n=$(ctr "$CB" "$c")
		[ "${n:-0}" -gt 0 ] ||
			{ diag "$k: $c did not move"; st=1; }
	done
	return "$st"
}

# moved_each_way: the receiving ends wrote MIN_RATE kB/s to their taps.
moved_each_way()
{
	local ab ba min=$((MIN_RATE * 1024 * DURATION))

	ab=$(ctr "$CB" rx_frame_bytes) ba=$(ctr "$CA" rx_frame_bytes)
	diag "moved A->B $((ab / 1048576)) MiB, B->A $((ba / 1048576)) MiB" \
		"bulk streams started A->B: $(cat "$LIB_TMP/bulk_ab.starts")" \
		"bulk streams started B->A: $(cat "$LIB_TMP/bulk_ba.starts")"
	[ "${ab:-0}" -ge "$min" ] && [ "${ba:-0}" -ge "$min" ]
}

# pings_half NAME: at least half of the pings were answered.
pings_half()
{
	local line tx rx

	line=$(grep 'packets transmitted' "$LIB_TMP/$1.out")
	diag "$1: $line"
	tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$line")
	rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$line")
	[ -n "$tx" ] && [ -n "$rx" ] && [ "$tx" -gt 0 ] &&
		[ $((rx * 2)) -ge "$tx" ]
}

# clean_stderr NS: no sanitizer or valgrind report in gsotun's stderr.
clean_stderr()
{
	local re='ERROR: [A-Za-z]*Sanitizer|Sanitizer has encountered'

	re="$re|runtime error:|ERROR SUMMARY: [1-9]"
	re="$re|(definitely|indirectly) lost: [1-9]"
	if grep -Eq "$re" "${GT_ERR[$1]}"; then
		diag "$(grep -E -A 12 "$re" "${GT_ERR[$1]}" | head -n 40)"
		return 1
	fi
}

r="soak $encap/$fam ${DURATION} s"
check "$r: gsotun starts on both ends" ends_start || bail "no tunnel"
check "$r: the tunnel carries pings" tunnel_up || bail "the tunnel is down"
check "$r: load and injector start" load_start || bail "no load"
soak
load_stop
check "$r: both gsotun processes alive at the end" both_alive
check "$r: A's VmRSS flat after ${WARMUP} s (+$RSS_SLACK kB at most)" \
	rss_flat A "${RSS_A[@]}"
check "$r: B's VmRSS flat after ${WARMUP} s (+$RSS_SLACK kB at most)" \
	rss_flat B "${RSS_B[@]}"
gt_counters "$NS_A" && CA=$GT_CTR && gt_show A
gt_counters "$NS_B" && CB=$GT_CTR && gt_show B
check "$r: A: no drop counter moved but tx_drop_send, peer_no_route" \
	ctr_drops_only "$CA" tx_drop_send tx_drop_peer_no_route
# shellcheck disable=SC2086 # the list is split on purpose
check "$r: B: no drop counter moved but send, peer_no_route, malformed" \
	ctr_drops_only "$CB" tx_drop_send tx_drop_peer_no_route $MALFORMED
check "$r: B counted the malformed packets, no more than were sent" \
	malformed_counted
check "$r: the bulk load moved $MIN_RATE kB/s or more each way" \
	moved_each_way
check "$r: pings A->B, half or more answered" pings_half ping_ab
check "$r: pings B->A, half or more answered" pings_half ping_ba
wait_underlay || diag "the underlay does not answer"
check "$r: 16 MiB A->B over IPv4 after, SHA-256 matches" \
	xfer "$NS_A" "$NS_B" "$OV4_B" final
check "$r: 16 MiB B->A over IPv6 after, SHA-256 matches" \
	xfer "$NS_B" "$NS_A" "$OV6_A" final
check "$r: A exits 0 on SIGTERM, prints counters, removes its tap" \
	gt_stop "$NS_A"
check "$r: B exits 0 on SIGTERM, prints counters, removes its tap" \
	gt_stop "$NS_B"
check "$r: no sanitizer or valgrind report from A" clean_stderr "$NS_A"
check "$r: no sanitizer or valgrind report from B" clean_stderr "$NS_B"

done_testing
