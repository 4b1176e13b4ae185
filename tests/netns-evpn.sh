#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --evpn as a VTEP of a BGP EVPN fabric run by FRR (RFC 7432, RFC
# 8365), beside the standard Linux VTEP, the kernel's vxlan in a bridge.
# Five hosts on one underlay bridge (198.18.30.0/24), each its namespace:
#
#   R        bgpd alone (-Z), route reflector of l2vpn evpn for the rest;
#   K1, K2   the kernel's vxlan vx100 (VNI 100, port 4789, nolearning) in
#            bridge br100, a veth pair into it whose far end holds the
#            host's overlay address (10.100.0.N/24) and a fixed MAC, a
#            static entry for that MAC on the bridge port (zebra advertises
#            it as a type-2 route); zebra and bgpd, advertise-all-vni;
#   G1, G2   gsotun --evpn --vni 100, the overlay address on its tap, no
#            --remote, no --fdb; zebra and bgpd as on K1 and K2.
#
# FRR runs in the foreground in each namespace, its own run directory
# owned by frr (KERNEL-FACTS), killed by PID at exit like the rest.
#
#   a. kernel only: K1 and K2's type-3 routes on R, K1 and K2; K1 <-> K2.
#   b. with gsotun: the four type-3 routes on every host; gsotun's peers
#      are the other three VTEPs, from EVPN; pings between every pair; the
#      kernel VTEPs hold the gsotun hosts' MACs as extern_learn entries to
#      the right VTEP, gsotun holds the kernel hosts' MACs; unicast both
#      ways (G1-K1, K2-G2, G1-G2) reaches the other's underlay port and
#      no other, nothing goes to the shadow port 64789; peer del and fdb
#      del refuse the fabric's.
#   c. 64 MiB G1 -> K1 and K1 -> G1, SHA-256 intact.
#   d. FRR stopped on K2: G1 drops the peer K2 and its MAC; started again,
#      both come back.
#   e. MAC mobility: a host (its own namespace, a fixed MAC) moves from
#      behind K1's bridge to behind G1's tap (a macvlan on it): G2 and K2
#      then send to it at G1, with a higher MAC mobility sequence, and G1
#      no longer sends it to K1.
#   f. gsotun on G1 restarted: the fabric's entries are back in seconds,
#      and the other VTEPs have G1's MAC again.
#   g. a hostile fabric: 10,000 MACs advertised by K1: G1's memory stays
#      bounded, its table at its bound, said and counted, pings go on,
#      and once withdrawn they go; K2's VNI flapping every second, said at
#      most once a second; a flood entry and a MAC to G1's own address on
#      its shadow vxlan device (a broken fabric) refused and counted.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

FRR_LIB=/usr/lib/frr
for tool in "$FRR_LIB/zebra" "$FRR_LIB/bgpd" /usr/bin/vtysh; do
	[ -x "$tool" ] || {
		echo "1..0 # SKIP frr not installable or not installed: no" \
			"$tool (Debian's frr; contrib/deps.sh installs it)"
		exit 0
	}
done

lib_init 300 ping bridge tcpdump socat
CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
getent passwd frr >/dev/null || bail "no user frr (Debian's frr makes it)"
# The FRR daemons run as frr: they go through the test's directory.
chmod 0711 "$LIB_TMP" || bail "chmod $LIB_TMP failed"

HOSTS=(R K1 K2 G1 G2)
VTEPS=(K1 K2 G1 G2)
VNI=100
NS_U=gtEU$$
BR=br$$
declare -A NS PORT UL OV MAC TAP ZEBRA BGPD CAPF CAPP

for h in "${HOSTS[@]}"; do
	NS[$h]=gtE$h$$ PORT[$h]=p$h$$
done
UL[R]=198.18.30.1
UL[K1]=198.18.30.11 UL[K2]=198.18.30.12
UL[G1]=198.18.30.21 UL[G2]=198.18.30.22
for h in "${VTEPS[@]}"; do
	n=${UL[$h]##*.}
	OV[$h]=10.100.0.$n MAC[$h]=02:64:00:00:00:$n
done
# The host that moves (e.): at first behind K1 in NS_M, then behind G1's
# tap in NS_N.
NS_M=gtEM$$ NS_N=gtEN$$ OV_M=10.100.0.50 MAC_M=02:64:00:00:00:50
# A MAC that a broken fabric puts behind G1's own address (g.).
MAC_OWN=02:66:00:00:00:01
# The MACs K1 floods the fabric with (g.), and G1's bound for them.
HOSTILE=10000 G1_MAX=2000
MTU=1450

# others H: the VTEPs but H.
others()
{
	local h

	for h in "${VTEPS[@]}"; do
		[ "$h" != "$1" ] && echo "$h"
	done
}

# wait_until SECONDS COMMAND...: poll COMMAND every 0.2 s until it
# succeeds; its status on the deadline (FRR converges in 2-15 s).
wait_until()
{
	local end=$((SECONDS + $1))

	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.2
	done
	"$@"
}

# ---------------------------------------------------------------- underlay

underlay_setup()
{
	local h i ns

	for ns in "$NS_U" "${NS[@]}" "$NS_M" "$NS_N"; do
		ns_add "$ns"
		# No IPv6 anywhere: no router or neighbour solicitation
		# flooded into the overlay while a capture counts frames.
		ip netns exec "$ns" sysctl -qw \
			net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 ||
			bail "sysctl in $ns failed"
	done
	ip -n "$NS_U" link add "$BR" type bridge || bail "no bridge"
	ip -n "$NS_U" link set "$BR" up
	for h in "${HOSTS[@]}"; do
		ip -n "${NS[$h]}" link add "u$h$$" mtu 1500 type veth \
			peer name "${PORT[$h]}" netns "$NS_U" mtu 1500 ||
			bail "cannot create veth pair for $h"
		ip -n "$NS_U" link set "${PORT[$h]}" master "$BR" up
		ip -n "${NS[$h]}" addr add "${UL[$h]}/24" dev "u$h$$"
		ip -n "${NS[$h]}" link set "u$h$$" up
	done
	for h in "${VTEPS[@]}"; do
		for ((i = 0; i < 50; i++)); do
			ip netns exec "${NS[R]}" ping -c 1 -W 1 "${UL[$h]}" \
				>/dev/null 2>&1 && break
			sleep 0.1
		done
		[ "$i" -lt 50 ] || bail "underlay R <-> $h does not answer"
	done
}

# ---------------------------------------------------------------- FRR

frr_dir()
{
	echo "$LIB_TMP/frr.$1"
}

# frr_conf H: zebra.conf and bgpd.conf of H (R: the route reflector).
frr_conf()
{
	local h=$1 d

	d=$(frr_dir "$h")
	mkdir -p "$d" || return 1
	printf 'hostname %s\n!\n' "$h" >"$d/zebra.conf"
	if [ "$h" = R ]; then
		cat >"$d/bgpd.conf" <<-EOF
		hostname $h
		router bgp 65000
		 bgp router-id ${UL[R]}
		 no bgp default ipv4-unicast
		 timers bgp 3 9
		 neighbor fabric peer-group
		 neighbor fabric remote-as 65000
		 bgp listen range 198.18.30.0/24 peer-group fabric
		 address-family l2vpn evpn
		  neighbor fabric activate
		  neighbor fabric route-reflector-client
		 exit-address-family
		!
		EOF
	else
		cat >"$d/bgpd.conf" <<-EOF
		hostname $h
		router bgp 65000
		 bgp router-id ${UL[$h]}
		 no bgp default ipv4-unicast
		 timers bgp 3 9
		 neighbor ${UL[R]} remote-as 65000
		 neighbor ${UL[R]} timers connect 1
		 address-family l2vpn evpn
		  neighbor ${UL[R]} activate
		  advertise-all-vni
		 exit-address-family
		!
		EOF
	fi
	chown -R frr:frr "$d" && chmod 0755 "$d"
}

# frr_daemon H NAME ARGS...: FRR's daemon NAME in H's namespace, in the
# foreground (tracked, killed by PID at exit); its PID in FRR_PID.
frr_daemon()
{
	local h=$1 name=$2 d

	shift 2
	d=$(frr_dir "$h")
	rm -f "$d/$name.vty"
	ip netns exec "${NS[$h]}" "$FRR_LIB/$name" -f "$d/$name.conf" \
		-i "$d/$name.pid" --vty_socket "$d" -P 0 \
		--log "file:$d/$name.log" "$@" \
		</dev/null >>"$d/$name.out" 2>&1 &
	FRR_PID=$!
	track_pid "$FRR_PID"
	# Its vty socket is there once it has read its configuration.
	wait_until 10 test -S "$d/$name.vty" && return 0
	diag "$name in $h did not start:" \
		"$(tail -n 5 "$d/$name.out" "$d/$name.log")"
	return 1
}

# frr_start H: zebra and bgpd on H (bgpd alone, -Z, on R).
frr_start()
{
	local h=$1 d

	d=$(frr_dir "$h")
	[ -f "$d/bgpd.conf" ] || frr_conf "$h" || return 1
	if [ "$h" = R ]; then
		frr_daemon R bgpd -Z || return 1
		BGPD[R]=$FRR_PID
		return 0
	fi
	rm -f "$d/zserv.api"
	frr_daemon "$h" zebra -z "$d/zserv.api" || return 1
	ZEBRA[$h]=$FRR_PID
	wait_until 10 test -S "$d/zserv.api" || return 1
	frr_daemon "$h" bgpd -z "$d/zserv.api" || return 1
	BGPD[$h]=$FRR_PID
}

# frr_stop H: bgpd and zebra of H stopped (SIGTERM: bgpd says Cease to
# its neighbour).
frr_stop()
{
	local h=$1 pid st=0

	for pid in "${BGPD[$h]}" "${ZEBRA[$h]}"; do
		[ -n "$pid" ] || continue
		kill -TERM "$pid" 2>/dev/null
		wait_gone "$pid" 100 ||
			{ kill -KILL "$pid" 2>/dev/null; st=1; }
		wait "$pid" 2>/dev/null
		forget_pid "$pid"
	done
	BGPD[$h]='' ZEBRA[$h]=''
	return "$st"
}

# vty H DAEMON COMMAND: vtysh on H's daemon.
vty()
{
	ip netns exec "${NS[$1]}" timeout 10 vtysh --vty_socket \
		"$(frr_dir "$1")" -d "$2" -c "$3"
}

# json_py CODE: python3 on stdin's JSON, loaded as d.
json_py()
{
	"$PYTHON" -c "import json, re, sys
d = json.load(sys.stdin)
$1"
}

# t3_of H: the originators of the type-3 routes (inclusive multicast,
# RFC 7432 11.1) of VNI 100 (route target 65000:100, FRR's auto-derived
# AS:VNI) in H's BGP table, sorted, one a line.
T3_PY='
out = set()
for rd, routes in d.items():
    if not isinstance(routes, dict):
        continue
    for key, r in routes.items():
        m = re.fullmatch(r"\[3\]:\[0\]:\[32\]:\[([0-9.]+)\]", key)
        if not m:
            continue
        for path in (p for ps in r["paths"] for p in ps):
            rt = path.get("extendedCommunity", {}).get("string", "")
            if path.get("valid") and "RT:65000:100" in rt.split():
                out.add(m.group(1))
print("\n".join(sorted(out)))'
t3_of()
{
	vty "$1" bgpd 'show bgp l2vpn evpn route type multicast json' |
		json_py "$T3_PY"
}

# t3_all H VTEP...: H's BGP table has the type-3 route of every VTEP given
# (and of no other).
t3_all()
{
	local h=$1 want got

	shift
	want=$(for v in "$@"; do echo "${UL[$v]}"; done | sort)
	got=$(t3_of "$h")
	[ "$got" = "$want" ] && return 0
	diag "$h's type-3 routes: ${got//$'\n'/ } (want ${want//$'\n'/ })"
	return 1
}

# t3_everywhere VTEP...: every running host has exactly their type-3 routes.
t3_everywhere()
{
	local h bad=0

	for h in "${HOSTS[@]}"; do
		[ -n "${BGPD[$h]}" ] || continue
		t3_all "$h" "$@" || bad=1
	done
	return "$bad"
}

# ---------------------------------------------------------------- kernel VTEP

# kvtep_setup H: br100 with vx100 and the veth to H's overlay address.
kvtep_setup()
{
	local h=$1 ns=${NS[$1]}

	# Only the veth end answers ARP for the host's address, not br100
	# (the kernel's default answers on any device).
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.arp_ignore=1 &&
		ip -n "$ns" link add br100 mtu "$MTU" type bridge &&
		ip -n "$ns" link add vx100 mtu "$MTU" type vxlan id "$VNI" \
			local "${UL[$h]}" dstport 4789 nolearning &&
		ip -n "$ns" link set vx100 master br100 &&
		bridge -n "$ns" link set dev vx100 learning off &&
		ip -n "$ns" link add "h$h$$" mtu "$MTU" type veth \
			peer name "e$h$$" mtu "$MTU" &&
		ip -n "$ns" link set "e$h$$" address "${MAC[$h]}" &&
		ip -n "$ns" link set "h$h$$" master br100 &&
		ip -n "$ns" addr add "${OV[$h]}/24" dev "e$h$$" || return 1
	for dev in "h$h$$" "e$h$$" vx100 br100; do
		ip -n "$ns" link set "$dev" up || return 1
	done
	# The host's MAC on the bridge port: zebra advertises it (type 2).
	bridge -n "$ns" fdb add "${MAC[$h]}" dev "h$h$$" master static
}

# kfdb H: the remote entries zebra installed on H's vxlan device, as
# "MAC VTEP" lines, sorted.
kfdb()
{
	bridge -n "${NS[$1]}" fdb show dev vx100 |
		awk '/extern_learn/ { for (i = 1; i < NF; i++)
			if ($i == "dst") print $1, $(i + 1) }' | sort
}

# kfdb_has H MAC VTEP...: H's vxlan device has MAC at VTEP as extern_learn.
kfdb_has()
{
	local h=$1 mac=$2 t bad=

	shift 2
	t=$(kfdb "$h")
	grep -qx "$mac ${UL[$1]}" <<<"$t" && return 0
	diag "$h: no extern_learn $mac dst ${UL[$1]} in:" "$t"
	return 1
}

# kfdb_gsotun H: H's vxlan device holds each gsotun host's tap MAC at
# that host's VTEP.
kfdb_gsotun()
{
	local h=$1 t g bad=

	t=$(kfdb "$h")
	for g in G1 G2; do
		grep -qx "${MAC[$g]} ${UL[$g]}" <<<"$t" || bad+=" $g"
	done
	[ -z "$bad" ] && return 0
	diag "$h's vx100 lacks the MACs of:$bad" "$t"
	return 1
}

# ---------------------------------------------------------------- gsotun

# gsotun_start H: gsotun --evpn on H; G1 takes at most G1_MAX remote MACs,
# G2 the default 4096.
gsotun_start()
{
	local h=$1 max=()

	[ "$h" = G1 ] && max=(--max-address "$G1_MAX")
	TAP[$h]=t$h$$
	gt_start "${NS[$h]}" "${TAP[$h]}" --mode tap --encap vxlan \
		--local "${UL[$h]}" --evpn --vni "$VNI" \
		--mac "${MAC[$h]}" --address "${OV[$h]}/24" "${max[@]}" \
		--log-time
}

# ctl_h H ARGS...: gsotunctl on H's gsotun.
ctl_h()
{
	local h=$1

	shift
	ctl_ok "${NS[$h]}" "$@" "${TAP[$h]}"
}

# PEERS_PY: the peers of a "show --json", "ADDR SOURCE" a line, sorted.
PEERS_PY='
for p in sorted(d["peers"], key=lambda p: p["address"]):
    print(p["address"], p.get("source", "?"))'
# FDB_PY: the entries of an "fdb show --json", "MAC DST SOURCE" a line.
FDB_PY='
for e in sorted(d["fdb"], key=lambda e: (e["mac"], e["dst"])):
    print(e["mac"], e["dst"], e.get("source", "?"))'

gt_peers()
{
	ip netns exec "${NS[$1]}" "$CTL" --json show "${TAP[$1]}" |
		json_py "$PEERS_PY"
}

gt_fdb()
{
	ip netns exec "${NS[$1]}" "$CTL" --json fdb show "${TAP[$1]}" |
		json_py "$FDB_PY"
}

# peers_are H VTEP...: H's gsotun has exactly these peers, all from EVPN.
peers_are()
{
	local h=$1 want got v

	shift
	want=$(for v in "$@"; do echo "${UL[$v]} evpn"; done | sort)
	got=$(gt_peers "$h")
	[ "$got" = "$want" ] && return 0
	diag "$h's peers:" "$got" "want:" "$want"
	return 1
}

# fdb_has H MAC VTEP: H's gsotun sends MAC to VTEP, an entry from EVPN.
fdb_has()
{
	local t

	t=$(gt_fdb "$1")
	grep -qx "$2 ${UL[$3]} evpn" <<<"$t" && return 0
	diag "$1's table has no '$2 ${UL[$3]} evpn':" "$(head -n 20 <<<"$t")"
	return 1
}

# fdb_lacks H MAC: H's gsotun has no entry for MAC.
fdb_lacks()
{
	local t

	t=$(gt_fdb "$1") || return 1
	! grep -q "^$2 " <<<"$t" && return 0
	diag "$1's table still has $2:" "$(grep "^$2 " <<<"$t")"
	return 1
}

# fdb_kernel H: H's gsotun has both kernel hosts' MACs at their VTEPs.
fdb_kernel()
{
	fdb_has "$1" "${MAC[K1]}" K1 && fdb_has "$1" "${MAC[K2]}" K2
}

# fdb_count H: the number of entries in H's gsotun table.
fdb_count()
{
	gt_fdb "$1" | wc -l
}

# ---------------------------------------------------------------- traffic

# pings_all_m: K2 and G2 ping the moving host M.
pings_all_m()
{
	local h bad=

	for h in K2 G2; do
		ping_ok "${NS[$h]}" "$OV_M" || bad+=" $h"
	done
	[ -z "$bad" ] || { diag "no answer from M to:$bad"; return 1; }
}

# pings_all HOST...: every pair of HOSTs pings.
pings_all()
{
	local a b bad='' hosts=("$@")

	for a in "${hosts[@]}"; do
		for b in "${hosts[@]}"; do
			[[ $a < $b ]] || continue
			ping_ok "${NS[$a]}" "${OV[$b]}" || bad+=" $a->$b"
		done
	done
	[ -z "$bad" ] || { diag "no answer:$bad"; return 1; }
}

# ping_unicast FROM TO: after a first exchange, FROM's pings to TO go to
# TO's VTEP alone, TO's answers to FROM's alone, and nothing is sent to
# the shadow vxlan devices' port.
ping_unicast()
{
	local from=$1 to=$2

	ping_ok "${NS[$from]}" "${OV[$to]}" || return 1
	caps_start 'udp port 4789 or udp port 64789' || return 1
	ip netns exec "${NS[$from]}" ping -n -q -c 10 -i 0.05 -W 1 \
		"${OV[$to]}" >/dev/null 2>&1
	# Every one captured both ways before the captures stop: a busy
	# tcpdump may be behind (the other ports then looked at as late).
	wait_until 10 seen_ge "$to" "$from" "${MAC[$to]}" 10
	wait_until 10 seen_ge "$from" "$to" "${MAC[$from]}" 10
	caps_stop
	unicast_only "$from" "$to" 10 && unicast_only "$to" "$from" 10 &&
		shadow_silent
}

# seen_ge PORT FROM MAC N: lib.sh's seen, N or more.
seen_ge()
{
	[ "$(seen "$1" "$2" "$3")" -ge "$4" ]
}

# shadow_silent: no packet to port 64789 (--evpn-port) on any port.
shadow_silent()
{
	local h n bad=

	for h in "${HOSTS[@]}"; do
		n=$("$PYTHON" "$LIB_DIR/vxlan-count.py" "${CAPF[$h]}" 64789 |
			awk '{ n += $3 } END { print n + 0 }')
		[ "$n" -eq 0 ] || bad+=" $n at $h"
	done
	[ -z "$bad" ] || { diag "sent to port 64789:$bad"; return 1; }
}

# rss PID: resident set of a process in KiB.
rss()
{
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# ---------------------------------------------------------------- more

# gt_stat H NAME: the counter NAME of H's tap (gsotunctl stats --json).
gt_stat()
{
	ip netns exec "${NS[$1]}" "$CTL" --json stats |
		json_py "print(d['tunnels'][0]['counters']['$2'])"
}

# gt_json H EXPR: EXPR of H's "show --json" (d), printed.
gt_json()
{
	ip netns exec "${NS[$1]}" "$CTL" --json show "${TAP[$1]}" |
		json_py "print($2)"
}

# stat_ge H NAME MIN: H's counter NAME is at least MIN.
stat_ge()
{
	local v

	v=$(gt_stat "$1" "$2")
	[ "${v:-0}" -ge "$3" ] && return 0
	diag "$1's $2 is ${v:-?}, want $3 or more"
	return 1
}

# learning_off H: show --json says --evpn and no learning.
learning_off()
{
	local v

	v=$(gt_json "$1" \
		"d['tunnels'][0]['evpn'], d['tunnels'][0]['learning']")
	[ "$v" = "True False" ] ||
		{ diag "$1: evpn, learning: $v"; return 1; }
}

# kfdb_lacks H MAC: no entry for MAC on H's vxlan device.
kfdb_lacks()
{
	local t

	t=$(kfdb "$1")
	! grep -q "^$2 " <<<"$t" && return 0
	diag "$1's vx100 still has: $(grep "^$2 " <<<"$t")"
	return 1
}

# count_extern NS DEV: the extern_learn entries of DEV in NS.
count_extern()
{
	bridge -n "$1" fdb show dev "$2" | grep -c extern_learn
}

# count_ge N COMMAND...: COMMAND prints a number of at least N.
count_ge()
{
	local n=$1 v

	shift
	v=$("$@")
	[ "${v:-0}" -ge "$n" ] && return 0
	diag "$* is ${v:-?}, want $n or more"
	return 1
}

# count_le N COMMAND...: COMMAND prints a number of at most N.
count_le()
{
	local n=$1 v

	shift
	v=$("$@")
	[ -n "$v" ] && [ "$v" -le "$n" ] && return 0
	diag "$* is ${v:-?}, want $n or fewer"
	return 1
}

# mac_seq H: the MAC mobility sequence number (RFC 7432 section 15) of
# the moving host's MAC as H's zebra has it, and where: "SEQ VTEP".
MAC_SEQ_PY='
for m in d.values():
    print(m.get("remoteSequence", "?"), m.get("remoteVtep", "local"))'
mac_seq()
{
	vty "$1" zebra "show evpn mac vni $VNI mac $MAC_M json" |
		json_py "$MAC_SEQ_PY"
}

# seq_at H VTEP MIN: H's zebra has the moving MAC at VTEP with a sequence
# number of at least MIN.
seq_at()
{
	local v

	v=$(mac_seq "$1")
	[ "${v#* }" = "${UL[$2]}" ] && [ "${v%% *}" -ge "$3" ] && return 0
	diag "$1's zebra: moving MAC seq and VTEP '$v', want ${UL[$2]}, $3+"
	return 1
}

# mover_at_k1: the moving host M, a veth into K1's bridge; it pings G2 so
# that K1's bridge learns its MAC (a dynamic entry, as a VM's).
mover_at_k1()
{
	ip -n "${NS[K1]}" link add "mK1$$" mtu "$MTU" type veth \
		peer name "m$$" netns "$NS_M" mtu "$MTU" &&
		ip -n "$NS_M" link set "m$$" address "$MAC_M" &&
		ip -n "${NS[K1]}" link set "mK1$$" master br100 up &&
		ip -n "$NS_M" addr add "$OV_M/24" dev "m$$" &&
		ip -n "$NS_M" link set "m$$" up || return 1
	wait_until 10 ping_ok "$NS_M" "${OV[G2]}"
}

# mover_to_g1: M moves as a VM does: the old one (behind K1) falls
# silent, its entry still in K1's bridge; the new one is a macvlan on
# G1's tap, made in a namespace of its own, that sends at once. Made in
# G1's namespace first, the macvlan would be one of G1's interfaces for
# a moment, and bgpd there drops the fabric's routes of a MAC of its own
# ("DENIED due to: self mac"), for good.
mover_to_g1()
{
	ip -n "$NS_M" addr flush dev "m$$" &&
		ip -n "${NS[G1]}" link add link "${TAP[G1]}" name "v$$" \
			netns "$NS_N" address "$MAC_M" type macvlan \
			mode bridge &&
		ip -n "$NS_N" addr add "$OV_M/24" dev "v$$" &&
		ip -n "$NS_N" link set "v$$" up || return 1
	ip netns exec "$NS_N" ping -n -q -c 1 -W 1 "${OV[K2]}" >/dev/null 2>&1
	return 0
}

# hostile_batch OP: K1's bridge port gets (add) or loses (del) 10,000
# static entries, 02:65:HI:LO:00:01, which zebra advertises.
hostile_batch()
{
	local i f=$LIB_TMP/hostile.$1

	for ((i = 0; i < HOSTILE; i++)); do
		printf 'fdb %s 02:65:%02x:%02x:00:01 dev h%s master static\n' \
			"$1" $((i / 256)) $((i % 256)) "K1$$"
	done >"$f"
	bridge -n "${NS[K1]}" -batch "$f"
}

# vtep_lines H VTEP: the lines H's gsotun said of VTEP coming or going.
vtep_lines()
{
	grep -c "evpn: VTEP ${UL[$2]} " "${GT_ERR[${NS[$1]}]}"
}

# said_apart H FROM: the lines H's gsotun said of VTEPs coming or going
# after line FROM of its stderr are a second apart at least, by their
# times (--log-time), as evpn.c's limit says them; 0.8 s at least for
# the time a busy machine may hold gsotun between the limit's clock and
# the line's.
said_apart()
{
	tail -n "+$(($2 + 1))" "${GT_ERR[${NS[$1]}]}" | grep 'evpn: VTEP ' |
		"$PYTHON" -c '
import datetime, sys
t = [datetime.datetime.fromisoformat(l.split()[0]) for l in sys.stdin]
gaps = [(b - a).total_seconds() for a, b in zip(t, t[1:])]
print("# %d lines, the closest %.3f s apart" %
      (len(t), min(gaps) if gaps else 0))
sys.exit(0 if t and min(gaps, default=1) >= 0.8 else 1)'
}

# flap_k2 N: K2's vx100 down and up N times, a second apart: zebra
# withdraws K2's VNI (its type-3 and type-2 routes) and advertises it
# again each time.
flap_k2()
{
	local i

	for ((i = 0; i < $1; i++)); do
		ip -n "${NS[K2]}" link set vx100 down && sleep 0.5 &&
			ip -n "${NS[K2]}" link set vx100 up && sleep 0.5 ||
			return 1
	done
}

# own_vtep_entries OP: on G1's shadow vxlan, by hand as a broken fabric
# would, a flood entry and a MAC whose VTEP is G1's own address.
own_vtep_entries()
{
	if [ "$1" = add ]; then
		bridge -n "${NS[G1]}" fdb append 00:00:00:00:00:00 \
			dev "gsvx$VNI" dst "${UL[G1]}" self permanent &&
			bridge -n "${NS[G1]}" fdb add "$MAC_OWN" \
				dev "gsvx$VNI" dst "${UL[G1]}" self permanent
	else
		bridge -n "${NS[G1]}" fdb del 00:00:00:00:00:00 \
			dev "gsvx$VNI" dst "${UL[G1]}" self &&
			bridge -n "${NS[G1]}" fdb del "$MAC_OWN" \
				dev "gsvx$VNI" dst "${UL[G1]}" self
	fi
}

# shadows_gone H: gsotun's shadow devices are no more on H.
shadows_gone()
{
	local dev

	for dev in "gsbr$VNI" "gsvx$VNI" "gsp$VNI" "gsq$VNI"; do
		dev_gone "${NS[$1]}" "$dev" ||
			{ diag "$dev still on $1"; return 1; }
	done
}

# ---------------------------------------------------------------- a. kernel

underlay_setup
check "R: bgpd, route reflector, starts" frr_start R
for h in K1 K2; do
	check "$h: kernel vxlan $VNI in br100" kvtep_setup "$h"
	check "$h: zebra and bgpd start" frr_start "$h"
done
check "kernel: K1 and K2's type-3 routes on R, K1 and K2" \
	wait_until 20 t3_everywhere K1 K2
check "kernel: K1 <-> K2 over VNI $VNI" pings_all K1 K2
check "kernel: K1's vx100 has K2's MAC, extern_learn, at K2" \
	kfdb_has K1 "${MAC[K2]}" K2
check "kernel: K2's vx100 has K1's MAC, extern_learn, at K1" \
	kfdb_has K2 "${MAC[K1]}" K1
check "kernel: K1 <-> K2 unicast reaches the other's underlay port alone" \
	ping_unicast K1 K2

diag "kernel part: $SECONDS s"

# ---------------------------------------------------------------- b. gsotun

for h in G1 G2; do
	check "$h: gsotun --evpn starts, no --remote" gsotun_start "$h"
	check "$h: zebra and bgpd start" frr_start "$h"
done
t0=$SECONDS
check "every VTEP's type-3 route on R, K1, K2, G1 and G2" \
	wait_until 20 t3_everywhere K1 K2 G1 G2
for h in G1 G2; do
	# shellcheck disable=SC2046 # others prints words
	check "$h: gsotun's peers are the other three VTEPs, from EVPN" \
		wait_until 15 peers_are "$h" $(others "$h")
	check "$h: gsotun's table has K1's and K2's MACs, from EVPN" \
		wait_until 15 fdb_kernel "$h"
	check "$h: --evpn, learning off (show --json)" learning_off "$h"
done
diag "the fabric converged in $((SECONDS - t0)) s"
check "pings between every pair of K1, K2, G1, G2" pings_all "${VTEPS[@]}"
for h in K1 K2; do
	check "$h's vx100 has G1's and G2's tap MACs, extern_learn" \
		wait_until 10 kfdb_gsotun "$h"
done
check "G2's table has G1's tap MAC at G1, from EVPN" \
	wait_until 10 fdb_has G2 "${MAC[G1]}" G1
check "G1 <-> K1 unicast reaches the other's underlay port alone" \
	ping_unicast G1 K1
check "K2 <-> G2 unicast reaches the other's underlay port alone" \
	ping_unicast K2 G2
check "G1 <-> G2 unicast reaches the other's underlay port alone" \
	ping_unicast G1 G2
check "gsotunctl peer del refuses a VTEP of the fabric" \
	ctl_fails 1 "VTEP of the EVPN fabric" "${NS[G1]}" peer del "${UL[K1]}"
check "gsotunctl fdb del refuses an entry of the fabric" \
	ctl_fails 1 "EVPN fabric's" "${NS[G1]}" fdb del "${MAC[K1]}" \
	"${TAP[G1]}"
check "G1 still has K1 and its MAC after both refusals" \
	fdb_has G1 "${MAC[K1]}" K1

# ---------------------------------------------------------------- c. 64 MiB

make_data big 64
check "64 MiB G1 -> K1, SHA-256 match" \
	xfer "${NS[G1]}" "${NS[K1]}" "${OV[K1]}" big 60
check "64 MiB K1 -> G1, SHA-256 match" \
	xfer "${NS[K1]}" "${NS[G1]}" "${OV[G1]}" big 60

# ---------------------------------------------------------------- d. FRR stop

check "K2: bgpd and zebra stop" frr_stop K2
t0=$SECONDS
check "K2 stopped: its type-3 route withdrawn on R, K1, G1 and G2" \
	wait_until 15 t3_everywhere K1 G1 G2
check "K2 stopped: G1's peers are K1 and G2" \
	wait_until 15 peers_are G1 K1 G2
check "K2 stopped: G1's table has K2's MAC no more" \
	wait_until 15 fdb_lacks G1 "${MAC[K2]}"
check "K2 stopped: G2's peers are K1 and G1" \
	wait_until 15 peers_are G2 K1 G1
diag "K2's routes gone from gsotun in $((SECONDS - t0)) s"
check "K2 stopped: G1 <-> K1 and G2 still" pings_all G1 K1 G2
check "K2: zebra and bgpd start again" frr_start K2
t0=$SECONDS
check "K2 back: every type-3 route on every host again" \
	wait_until 20 t3_everywhere K1 K2 G1 G2
check "K2 back: G1's peers are the other three again" \
	wait_until 15 peers_are G1 K1 K2 G2
check "K2 back: G1's table has K2's MAC at K2 again" \
	wait_until 10 fdb_has G1 "${MAC[K2]}" K2
diag "K2 back in gsotun in $((SECONDS - t0)) s"
check "K2 back: K2 <-> G1" pings_all K2 G1

# ---------------------------------------------------------------- e. mobility

check "mobility: a host M behind K1's bridge pings G2" mover_at_k1
check "mobility: G2's table has M's MAC at K1" \
	wait_until 15 fdb_has G2 "$MAC_M" K1
check "mobility: G1's table has M's MAC at K1" \
	wait_until 15 fdb_has G1 "$MAC_M" K1
check "mobility: M moves behind G1's tap (a macvlan on it)" mover_to_g1
t0=$SECONDS
check "mobility: G2's table has M's MAC at G1 now" \
	wait_until 15 fdb_has G2 "$MAC_M" G1
check "mobility: G2's zebra has it at G1 with sequence 1 or more" \
	wait_until 15 seq_at G2 G1 1
check "mobility: K2's vx100 has M's MAC at G1" \
	wait_until 10 kfdb_has K2 "$MAC_M" G1
check "mobility: K1's vx100 has M's MAC at G1 (its own entry gone)" \
	wait_until 10 kfdb_has K1 "$MAC_M" G1
check "mobility: G1 sends M's frames to K1 no more" \
	wait_until 15 fdb_lacks G1 "$MAC_M"
diag "M's move followed in $((SECONDS - t0)) s"
check "mobility: G1 counted a local MAC more (evpn_local_added)" \
	stat_ge G1 evpn_local_added 2
check "mobility: G2 counted a moved MAC (evpn_remote_moved)" \
	stat_ge G2 evpn_remote_moved 1
check "mobility: K2 and G2 ping M at G1" pings_all_m

# ---------------------------------------------------------------- f. restart

check "restart: gsotun on G1 stops, exit 0" gt_stop "${NS[G1]}"
check "restart: G1's shadow devices are gone with it" shadows_gone G1
check "restart: K1 withdraws G1's MAC" \
	wait_until 15 kfdb_lacks K1 "${MAC[G1]}"
check "restart: G2 drops the peer G1" wait_until 10 peers_are G2 K1 K2
t0=$SECONDS
check "restart: gsotun on G1 starts again, nothing by hand" gsotun_start G1
check "restart: G1's peers are the other three again" \
	wait_until 15 peers_are G1 K1 K2 G2
check "restart: G1's table has K1's and K2's MACs again" \
	wait_until 10 fdb_kernel G1
diag "G1's fabric state back in $((SECONDS - t0)) s"
check "restart: G1 <-> K1" pings_all G1 K1
check "restart: K1 and K2 have G1's MAC again, extern_learn" \
	wait_until 10 kfdb_has K1 "${MAC[G1]}" G1
check "restart: K2 has G1's MAC again, extern_learn" \
	wait_until 15 kfdb_has K2 "${MAC[G1]}" G1
check "restart: G2 has G1 as a peer again" \
	wait_until 10 peers_are G2 K1 K2 G1
diag "the fabric has G1 again $((SECONDS - t0)) s after its start"
check "restart: zebra on G1 still runs" pid_alive "${ZEBRA[G1]}"

# ---------------------------------------------------------------- g. hostile

rss0=$(rss "${GT_PID[${NS[G1]}]}")
t0=$SECONDS
check "hostile: K1 advertises $HOSTILE MACs more" hostile_batch add
check "hostile: they reach K2's vx100 through the fabric" \
	wait_until 60 count_ge "$HOSTILE" count_extern "${NS[K2]}" vx100
check "hostile: G1's zebra installs them on gsvx$VNI" \
	wait_until 30 count_ge "$HOSTILE" count_extern "${NS[G1]}" "gsvx$VNI"
diag "$HOSTILE MACs across the fabric in $((SECONDS - t0)) s"
# refused_ge H N: H refused N fabric MACs at least, for a full table
# (evpn_remote_full) or a VTEP that holds its share of it.
refused_ge()
{
	local full share v

	full=$(gt_stat "$1" evpn_remote_full)
	share=$(gt_stat "$1" evpn_remote_share)
	v=$((${full:-0} + ${share:-0}))
	[ "$v" -ge "$2" ] && return 0
	diag "$1 refused $v, want $2 or more"
	return 1
}
check "hostile: G1 counts those past --max-address (evpn_remote_share)" \
	wait_until 10 refused_ge G1 $((HOSTILE - G1_MAX))
check "hostile: G1 says so" wait_log "${NS[G1]}" \
	"--max-address remote MACs held"
check "hostile: G1's table holds at most --max-address $G1_MAX + 10" \
	count_le $((G1_MAX + 10)) fdb_count G1
check "hostile: G2's table holds at most its default 4096 + 10" \
	wait_until 10 count_le 4106 fdb_count G2
rss1=$(rss "${GT_PID[${NS[G1]}]}")
diag "G1's gsotun: VmRSS $rss0 KiB before, $rss1 KiB after"
check "hostile: G1's memory stays bounded (grew less than 8 MiB)" \
	test $((rss1 - rss0)) -lt 8192
check "hostile: G1 <-> K2 and G2 still ping" pings_all G1 K2 G2
check "hostile: K1 withdraws its $HOSTILE MACs" hostile_batch del
check "hostile: G1's table back to the fabric's few" \
	wait_until 60 count_le 10 fdb_count G1
check "hostile: G1 <-> K1 ping" pings_all G1 K1

n0=$(vtep_lines G1 K2) l0=$(wc -l <"${GT_ERR[${NS[G1]}]}")
check "flap: K2's VNI down and up every second, 5 times" flap_k2 5
check "flap: G1 has K2 as a peer again after it" \
	wait_until 15 peers_are G1 K1 K2 G2
check "flap: G1 has K2's MAC again" wait_until 10 fdb_has G1 "${MAC[K2]}" K2
n1=$(vtep_lines G1 K2)
diag "G1 said K2 come or go $((n1 - n0)) times in the flap"
# By the lines' times, not their number: a flap that a busy machine
# drew out over more seconds may be said more often, once a second.
check "flap: G1 said it once a second at most" said_apart G1 "$l0"
check "flap: K2 <-> G1 ping" pings_all K2 G1

o0=$(gt_stat G1 evpn_own_vtep)
check "own VTEP: entries to G1's own address written on gsvx$VNI" \
	own_vtep_entries add
check "own VTEP: refused and counted (evpn_own_vtep)" \
	wait_until 15 stat_ge G1 evpn_own_vtep $((${o0:-0} + 2))
check "own VTEP: said" wait_log "${NS[G1]}" "our own --local"
check "own VTEP: G1's peers are the other three alone" \
	peers_are G1 K1 K2 G2
check "own VTEP: G1's table has no entry to itself" fdb_lacks G1 "$MAC_OWN"
check "own VTEP: G1 <-> G2 ping (no loop)" pings_all G1 G2
check "own VTEP: the entries removed" own_vtep_entries del

for h in G1 G2; do
	check "$h: gsotun stops, exit 0" gt_stop "${NS[$h]}"
done
diag "$SECONDS s in all"
done_testing
