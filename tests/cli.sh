#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The two programs as a shell sees them, with no root and no gsotun
# needed: -h is --help in both; gsotunctl help lists the requests by
# itself, in a network namespace of its own where no gsotun runs (one
# of a user namespace when not root; where neither can be made, those
# checks skip), and each of its commands is in gsotunctl(8)'s COMMANDS
# and in gsotunctl --help, each of COMMANDS in it, and its JSON forms
# in --json's help and refusal; gsotun --check of --queues and --cpus prints
# them as a --config file that reads back the same, and so of --mode tun
# with --route and --strict-source and of --evpn with --evpn-port, and
# refuses each bad value and combination with its reason, exit 64 (the
# options of MACs in a tun, a --route in a tap, vxlan in a tun, --evpn
# without --local or with --learning among them); gsotun --help and
# gsotun(8)'s OPTIONS name the same long options; the bash completion of
# completion/ parses (bash -n), then completes every long option of
# gsotun(8)'s OPTIONS and the values of some (every encapsulation that
# gsotun takes), and gsotunctl's options and commands word by word.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}
top_builddir=${top_builddir:-.}
GSOTUN=${GSOTUN:-$top_builddir/src/gsotun}
GSOTUNCTL=${GSOTUNCTL:-$top_builddir/src/gsotunctl}
completion=$top_srcdir/completion

# Alone: in a network namespace of our own, so that no gsotun runs here.
if [ -z "${CLI_ALONE:-}" ]; then
	for how in "unshare -n" "unshare -rn"; do
		if $how true 2>/dev/null; then
			CLI_ALONE=1 exec $how bash "$0" "$@"
		fi
	done
	CLI_ALONE=no
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsotun-cli.XXXXXX") || {
	echo "Bail out! cannot create a temporary directory"
	exit 1
}
trap 'rm -rf "$tmp"' EXIT

tap_n=0
failed=0

# ok STATUS DESCRIPTION: one TAP line, a pass when STATUS is 0.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		failed=1
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

diag() {
	printf '%s\n' "$@" | sed -e 's/^/# /'
}

# same_help PROGRAM: -h prints what --help prints, and exits 0.
same_help()
{
	"$1" --help >"$tmp/long" 2>&1 || return 1
	"$1" -h >"$tmp/short" 2>&1 ||
		{ diag "-h: $(head -n 2 "$tmp/short")"; return 1; }
	cmp -s "$tmp/long" "$tmp/short" && grep -q '^Usage: ' "$tmp/short"
}

for p in "$GSOTUN" "$GSOTUNCTL"; do
	same_help "$p"
	ok $? "$(basename "$p") -h is --help"
done

# The encapsulations --help says a tun takes are those gsotun takes: the
# ones its refusal of vxlan in a tun lists.
tun_encaps()
{
	local want help

	want=$("$GSOTUN" --check --remote 192.0.2.2 --mode tun 2>&1)
	want=${want#*use --encap }
	want=${want%%$'\n'*}
	help=$("$GSOTUN" --help | tr -s ' \n' ' ')
	[ -n "$want" ] && [[ $help == *"IP packets (--encap $want)"* ]] &&
		return 0
	diag "a tun takes --encap $want; --help says:" \
		"$(grep -A1 -- '--mode' <<<"$help")"
	return 1
}
tun_encaps
ok $? "gsotun --help: --mode tun takes every encapsulation that carries IP"

# Every request, as ctlreq.c parses them, and list.
help_lists()
{
	local out line lines st=0

	out=$("$GSOTUNCTL" help 2>&1) || { diag "status $?: $out"; return 1; }
	lines=("show [json] [TAP]" stats "stats json" metrics version help
		taps "peer add ADDR" "peer del ADDR" "peer list [json]"
		"fdb show [json] [TAP]" "fdb add MAC[@VID]=ADDR [TAP]"
		"fdb del MAC[@VID] [TAP]" list)
	for line in "${lines[@]}"; do
		grep -qxF "$line" <<<"$out" || { diag "no '$line'"; st=1; }
	done
	return "$st"
}

# command_words: each line's command, its words up to the first that is
# not one (a placeholder, an option, json), a line each.
command_words()
{
	awk '{ w = ""
		for (i = 1; i <= NF && $i ~ /^[a-z]+$/ && $i != "json"; i++)
			w = w (i > 1 ? " " : "") $i
		print w }'
}

# The commands of gsotunctl(8)'s COMMANDS, as command_words has them.
man_commands()
{
	awk '/^\.SH COMMANDS/ { on = 1; next } /^\.SH / { on = 0 }
		on && prev == ".TP" { print } { prev = $0 }' \
		"$top_srcdir/man/gsotunctl.8" |
		sed -e 's/^\.[BIR]* //' -e 's/"//g' -e 's/\\f.//g' \
			-e 's/\\-/-/g' | command_words
}

# Every command that gsotunctl help lists is one of gsotunctl(8)'s
# COMMANDS, and is in gsotunctl --help.
help_documented()
{
	local man cmd st=0

	man=$(man_commands)
	"$GSOTUNCTL" --help >"$tmp/usage" 2>&1 || return 1
	while read -r cmd; do
		grep -qxF "$cmd" <<<"$man" ||
			{ diag "'$cmd' is not in gsotunctl(8) COMMANDS"; st=1; }
		grep -qE "^  ${cmd%% *}( |\$)" "$tmp/usage" ||
			{ diag "'$cmd' is not in gsotunctl --help"; st=1; }
	done < <(command_words <"$tmp/help" | sort -u)
	return "$st"
}

# Every command of gsotunctl(8)'s COMMANDS is one gsotunctl help lists:
# none is documented that its table (src/conf/ctlproto.h) has not.
man_listed()
{
	local cmd st=0

	while read -r cmd; do
		grep -qxF "$cmd" < <(command_words <"$tmp/help") ||
			{ diag "gsotunctl(8) has '$cmd', help does not"; st=1; }
	done < <(man_commands | sort -u)
	return "$st"
}

# The commands with a JSON form, as gsotunctl help has them ("[json]",
# or a line of their own), are those that --json's help and its refusal
# name: those two lists are written by hand (gsotunctl.c).
json_named()
{
	local want said refused

	want=$("$GSOTUNCTL" help | sed -n -e 's/ \[json\].*//p' \
		-e 's/ json$//p' | sort -u)
	said=$("$GSOTUNCTL" --help | tr -s ' \n' ' ' |
		sed -n 's/.* --json \(.*\): as one JSON object.*/\1/p' |
		sed 's/, /\n/g' | sort -u)
	refused=$("$GSOTUNCTL" --json version 2>&1 |
		sed -n 's/.*--json goes with //p' |
		sed -e 's/ and /, /' -e 's/, /\n/g' | sort -u)
	[ -n "$want" ] && [ "$said" = "$want" ] && [ "$refused" = "$want" ] &&
		return 0
	diag "JSON forms: help: $want; --help: $said; --json's refusal:" \
		"$refused"
	return 1
}

if [ "$CLI_ALONE" = 1 ]; then
	"$GSOTUNCTL" show >/dev/null 2>"$tmp/none"
	st=$?
	grep -q 'no gsotun runs in this network namespace' "$tmp/none" &&
		[ "$st" -eq 1 ]
	ok $? "no gsotun runs here (gsotunctl show: status $st)"
	help_lists
	ok $? "gsotunctl help lists every request all the same, exit 0"
	"$GSOTUNCTL" help >"$tmp/help" 2>&1 && help_documented
	ok $? "each command of gsotunctl help is in gsotunctl(8) and --help"
	man_listed
	ok $? "each command of gsotunctl(8) is one gsotunctl help lists"
	json_named
	ok $? "gsotunctl --help and --json's refusal name each JSON form"
	while IFS='|' read -r args msg; do
		read -ra argv <<<"$args"
		err=$("$GSOTUNCTL" "${argv[@]}" 2>&1 >/dev/null)
		st=$?
		[ "$st" -eq 64 ] && [ "$err" = "gsotunctl: $msg" ]
		good=$?
		ok "$good" "gsotunctl $args: exit 64, '$msg' (status $st)"
		[ "$good" -eq 0 ] || diag "$err"
	done <<-'EOF'
	shwo|unknown command 'shwo'; did you mean 'show'?
	metrcs|unknown command 'metrcs'; did you mean 'metrics'?
	lsit|unknown command 'lsit'; did you mean 'list'?
	peers add 192.0.2.9|unknown command 'peers'; did you mean 'peer'?
	frobnicate|unknown command 'frobnicate', and no tap frobnicate here (gsotunctl help: the commands)
	--control @x shwo|unknown command 'shwo'; did you mean 'show'? (with --control, no DEV)
	EOF
	"$GSOTUNCTL" lo show >/dev/null 2>"$tmp/lo"
	st=$?
	grep -q 'no gsotun with tap lo in this network namespace' "$tmp/lo" &&
		[ "$st" -eq 1 ]
	ok $? "gsotunctl lo show: a tap's name, no gsotun has it (status $st)"
	"$GSOTUNCTL" lo >/dev/null 2>"$tmp/lo"
	st=$?
	grep -q 'no gsotun with tap lo in' "$tmp/lo" && [ "$st" -eq 1 ]
	ok $? "gsotunctl lo: an interface's name is taken as a tap's"
else
	skip "no network namespace of our own (unshare -n, -rn)"
	skip "gsotunctl help without a gsotun"
	skip "the commands of gsotunctl help documented"
	skip "the commands of gsotunctl(8) in gsotunctl help"
	skip "the JSON forms named in --help and --json's refusal"
	for i in 1 2 3 4 5 6 7 8; do
		skip "gsotunctl of unknown commands"
	done
fi

# gsotun --check ARGS... (with a peer): status in ST, stdout in OUT, stderr
# in ERR. --check sets nothing up: no root, no tap.
gt_check()
{
	OUT=$("$GSOTUN" --check --remote 192.0.2.2 "$@" 2>"$tmp/check.err")
	ST=$?
	ERR=$(cat "$tmp/check.err")
}

# round_trip LINES ARGS...: --check of ARGS exits 0 and prints LINES
# after the peer; that output, as a --config alone, is printed the same.
round_trip()
{
	local want=$1 again

	shift
	gt_check "$@"
	[ "$ST" -eq 0 ] || { diag "status $ST: $ERR"; return 1; }
	[ "$(grep -v '^#' <<<"$OUT")" = "remote 192.0.2.2"$'\n'"$want" ] ||
		{ diag "for $*:" "$OUT"; return 1; }
	printf '%s\n' "$OUT" >"$tmp/rt.conf"
	again=$("$GSOTUN" --check --config "$tmp/rt.conf" 2>&1)
	[ "$again" = "$OUT" ] || { diag "read back:" "$again"; return 1; }
}

# refused MSG ARGS...: --check of ARGS exits 64, "gsotun: MSG" on stderr
# and nothing on stdout.
refused()
{
	local msg=$1

	shift
	gt_check "$@"
	[ "$ST" -eq 64 ] && [ -z "$OUT" ] && [[ $ERR == *"gsotun: $msg"* ]] &&
		return 0
	diag "status $ST: $ERR"
	return 1
}

round_trip "queues 2" --queues 2
ok $? "--check --queues 2: 'queues 2', the same through --config"
round_trip "queues auto" --queues auto
ok $? "--check --queues auto: 'queues auto', the same through --config"
round_trip "cpus 0-1,3" --cpus 0-1,3
ok $? "--check --cpus 0-1,3: 'cpus 0-1,3', the same through --config"
round_trip $'queues 3\ncpus 0-1,3' --queues auto --cpus 0-1,3
ok $? "--check --queues auto --cpus 0-1,3: a queue per CPU listed, 3"
round_trip $'queues 2\ncpus 3,0-1' --queues 2 --cpus 3,0-1
ok $? "--check --queues 2 --cpus 3,0-1: the CPUs in the order given"
round_trip $'encap gre\nqueues auto' --encap gre --queues auto
ok $? "--check --encap gre --queues auto: allowed (one queue at set-up)"
tun_lines=$'route 10.2.0.0/16=192.0.2.2\nroute fd00:2::/48=192.0.2.2'
tun_lines+=$'\nstrict-source\nencap gre\nmode tun'
round_trip "$tun_lines" --mode tun --encap gre \
	--route 10.2.0.0/16=192.0.2.2 --route fd00:2::/48=192.0.2.2 \
	--strict-source
ok $? "--check of a tun: mode, routes, strict-source; read back the same"
round_trip $'encap gre-udp\nmode tun' --mode tun --encap gre-udp
ok $? "--check --mode tun --encap gre-udp: one peer, no route needed"
round_trip $'local 192.0.2.1\nevpn' --local 192.0.2.1 --evpn
ok $? "--check --evpn: 'evpn', no evpn-port (the default); read back the same"
evpn_lines=$'local 192.0.2.1\nfdb 52:54:00:00:00:01=192.0.2.2'
evpn_lines+=$'\nevpn\nevpn-port 5000\nvni 2=ov2'
round_trip "$evpn_lines" --local 192.0.2.1 --evpn --evpn-port 5000 \
	--vni 2=ov2 --fdb 52:54:00:00:00:01=192.0.2.2
ok $? "--check --evpn --evpn-port 5000, a tap, a peer, an entry: read back"
gt_check --queues 1
[ "$ST" -eq 0 ] && [ -n "$OUT" ] && ! grep -q queues <<<"$OUT"
ok $? "--check --queues 1: the default, not written (status $ST)"

# Usage errors, each with its reason.
while IFS='|' read -r args msg; do
	read -ra argv <<<"$args"
	refused "$msg" "${argv[@]}"
	ok $? "--check $args: exit 64, '$msg'"
done <<'EOF'
--queues 0|invalid --queues '0': must be 1..64 or auto
--queues 65|invalid --queues '65': must be 1..64 or auto
--queues x|invalid --queues 'x': must be 1..64 or auto
--encap gre --queues 2|--queues 2: raw GRE has one socket and one queue; use --encap gre-udp for queues
--encap gre-udp --seq --queues 2|--queues 2 with --seq: one sequence counter cannot stay in order across queues; leave out --seq for queues
--queues 4 --cpus 0-1|--cpus lists 2 CPUs for --queues 4: list one for each queue
--busy-poll 50 --rx-coalesce 1|--busy-poll and --rx-coalesce pull opposite ways: give one of them
--rx-coalesce 11|invalid --rx-coalesce '11': must be 0..10
--cpus 5-3|invalid --cpus '5-3': 5-3 is not a range
--cpus 1,2,2|invalid --cpus '1,2,2': CPU 2 twice
--cpus 0,,1|invalid --cpus '0,,1': an empty item
--cpus 0-|invalid --cpus '0-': '0-' is not a CPU nor a range
--cpus 1024|invalid --cpus '1024': CPU 1024 is out of range (0..1023)
--cpus 0-64|invalid --cpus '0-64': more than 64 CPUs
--mode tin|invalid --mode 'tin': must be tap or tun
--mode tun|--encap vxlan carries Ethernet frames only, not the IP packets of --mode tun: use --encap gre, gre-udp, vxlan-gpe or geneve
--mode tun --encap gre --fdb 52:54:00:00:00:01=192.0.2.2|--fdb is for --mode tap: a tun's IP packets carry no MACs (use --route PREFIX=ADDR)
--mode tun --encap gre --mac 02:00:00:00:00:01|--mac is for --mode tap: a tun has no Ethernet address
--mode tun --encap gre --learning|--learning is for --mode tap: it learns source MACs, and a tun's IP packets carry none
--mode tun --encap gre --ageing 60|--ageing is for --mode tap: it ages learnt MACs, and a tun's IP packets carry none
--mode tun --encap gre --max-address 8|--max-address is for --mode tap: it bounds learnt MACs, and a tun's IP packets carry none
--route 10.0.0.0/8=192.0.2.2|--route is for --mode tun: a tap's frames go by MAC (use --fdb MAC=ADDR)
--strict-source|--strict-source is for --mode tun: it checks the inner IP sources by --route
--mode tun --encap gre --strict-source|--strict-source without --route: every packet received would be dropped (no source is routed to its peer)
--mode tun --encap gre --route 10.0.0.1/8=192.0.2.2|invalid --route '10.0.0.1/8=192.0.2.2': host bits set after the prefix: the prefix is 10.0.0.0/8 (ip route refuses host bits too)
--mode tun --encap gre --route fd00::/129=192.0.2.2|invalid --route 'fd00::/129=192.0.2.2': IPv6 prefix must be 0..128
--mode tun --encap gre --route 10.0.0.0/8|invalid --route '10.0.0.0/8': missing =ADDR
--mode tun --encap gre --route 10.0.0.0/8=192.0.2.9|--route: 192.0.2.9 is not a --remote
--mode tun --encap gre --route tn1=10.0.0.0/8=192.0.2.2|--route tn1=...: no tap is named tn1 (--dev, --vni N=DEV, --key N=DEV)
--mode tun --encap gre --route 10.0.0.0/8=192.0.2.2 --route 10.0.0.0/8=192.0.2.2|invalid --route '10.0.0.0/8=192.0.2.2': 10.0.0.0/8 has a route already (to 192.0.2.2)
--evpn|--evpn needs --local ADDR, a unicast address of this host (not 0.0.0.0 or ::): the VTEP address that the shadow vxlan devices carry and zebra advertises
--local 0.0.0.0 --evpn|--evpn needs --local ADDR, a unicast address of this host
--local 192.0.2.1 --evpn --mode tun --encap gre|--evpn is for --mode tap: the fabric advertises MACs, and a tun's IP packets carry none
--local 192.0.2.1 --evpn --encap gre-udp|--evpn needs --encap vxlan, not gre-udp: zebra knows the fabric only through the kernel's vxlan devices (RFC 8365)
--local 192.0.2.1 --evpn --learning|--learning with --evpn: where a MAC lives is the fabric's to say (type-2 routes, through zebra), not learnt from frames; leave out --learning
--local 192.0.2.1 --evpn-port 5000|--evpn-port without --evpn: it is the port of the shadow vxlan devices that --evpn makes
--local 192.0.2.1 --evpn --evpn-port 4789|--evpn-port 4789 is the underlay's port (vxlan's, with no --port): the kernel binds a vxlan device's port on every address (vxlan_sock_add()), so the two would clash; give another --evpn-port
--local 192.0.2.1 --evpn --port 5000 --evpn-port 5000|--evpn-port 5000 is the underlay's port (--port)
--local 192.0.2.1 --evpn --evpn-port 0|invalid --evpn-port '0': must be 1..65535
EOF
refused "invalid --cpus '': an empty list" --cpus ''
ok $? "--check --cpus '': exit 64, an empty list"
printf 'mode tun\nencap gre\nroute 10.0.0.0/8=192.0.2.2\nlearning\n' \
	>"$tmp/tun.conf"
refused "$tmp/tun.conf:4: --learning is for --mode tap" --config "$tmp/tun.conf"
ok $? "--check of a file with 'mode tun' and 'learning': exit 64, its line"
printf '%s\n' 'route 10.0.0.0/8=192.0.2.2' 'remote 192.0.2.3' >"$tmp/tun.peers"
gt_check --mode tun --encap gre --peers "$tmp/tun.peers"
[ "$ST" -eq 0 ]
ok $? "--check --mode tun --peers with a route line: taken (status $ST)"
printf '%s\n' 'remote 192.0.2.3' 'fdb 52:54:00:00:00:01=192.0.2.3' \
	>"$tmp/tun.peers"
refused "--peers '$tmp/tun.peers': line 2: 'fdb' is for --mode tap" \
	--mode tun --encap gre --peers "$tmp/tun.peers"
ok $? "--check --mode tun --peers with an fdb line: exit 64, its line"
# A bad line of the peers file is said as the configuration file says
# an option: the value quoted, the rest of the line.
printf '%s\n' 'remote 192.0.2.3' 'fdb 52:54:00:00:00:01 192.0.2.3' \
	>"$tmp/tap.peers"
refused "--peers '$tmp/tap.peers': line 2: invalid fdb '52:54:00:00:00:01 192.0.2.3': missing =ADDR" \
	--peers "$tmp/tap.peers"
ok $? "--check --peers with 'fdb MAC ADDR': missing =ADDR, the value quoted"
printf '%s\n' 'remote 192.0.2.x' >"$tmp/tap.peers"
refused "--peers '$tmp/tap.peers': line 1: invalid remote '192.0.2.x': not an IPv4 or IPv6 address" \
	--peers "$tmp/tap.peers"
ok $? "--check --peers with a bad address: the value quoted"
# Control bytes of a value, a file name or an option are said escaped
# (\x1b), never written to the terminal as they are (issue 35).
esc=$'\033[2J'
refused "invalid --encap 'vx\\x1b[2Jlan': must be" --encap "vx${esc}lan"
ok $? "--check --encap with an escape sequence: said as \\x1b"
refused "cannot read --config '$tmp/no\\x1b[2J': cannot open it" \
	--config "$tmp/no${esc}"
ok $? "--check --config NAME with an escape sequence: the name escaped"
refused "cannot read --peers '$tmp/no\\x1b[2J': cannot open it" \
	--peers "$tmp/no${esc}"
ok $? "--check --peers NAME with an escape sequence: the name escaped"
refused "unrecognized option '--re\\x1b[2Jmote'" "--re${esc}mote"
ok $? "an unknown option with an escape sequence: said escaped"
gt_check --encap "vx${esc}lan"
[[ $ERR != *$'\033'* ]]
ok $? "no escape byte reaches stderr"
# No peer at start: --local says the underlay's family; neither, exit 64.
ERR=$("$GSOTUN" --check --dev x 2>&1 >/dev/null)
ST=$?
[ "$ST" -eq 64 ] && [[ $ERR == *"gsotun: missing --remote ADDR (the peer's address), or --local ADDR (the underlay's own) to start with no peer"* ]]
ok $? "--check with no --remote nor --local: exit 64, what is needed"
: >"$tmp/none.peers"
ERR=$("$GSOTUN" --check --peers "$tmp/none.peers" 2>&1 >/dev/null)
ST=$?
[ "$ST" -eq 64 ] && [[ $ERR == *"gsotun: no peer and no --local: give --remote ADDR, a 'remote' line in --peers, or --local ADDR"* ]]
ok $? "--check --peers of an empty file, no --local: exit 64, what is needed"
for local in 198.51.100.1 ::; do
	OUT=$("$GSOTUN" --check --local $local --encap gre \
		--peers "$tmp/none.peers" 2>"$tmp/check.err")
	ST=$?
	printf '%s\n' "$OUT" >"$tmp/rt.conf"
	again=$("$GSOTUN" --check --config "$tmp/rt.conf" 2>&1)
	[ "$ST" -eq 0 ] && [ "$again" = "$OUT" ] &&
		[ "$(grep -v "^#" <<<"$OUT")" = "local $local"$'\n'"peers $tmp/none.peers"$'\n'"encap gre" ]
	ok $? "--check --local $local with no peer: taken, read back the same"
done
printf 'queues 2\nencap gre\n' >"$tmp/gre.conf"
refused "$tmp/gre.conf:1: --queues 2: raw GRE has one socket" \
	--config "$tmp/gre.conf"
ok $? "--check of a file with 'queues 2' and 'encap gre': exit 64, its line"

for f in gsotun gsotunctl; do
	bash -n "$completion/$f" 2>"$tmp/syntax"
	ok $? "completion/$f parses (bash -n) $(cat "$tmp/syntax")"
done

# complete FUNCTION PROGRAM WORDS...: what FUNCTION offers for the last
# of WORDS, as bash calls it, sorted, a space between, in REPLY.
complete_words()
{
	local f=$1

	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	REPLY=$(printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ')
	REPLY=${REPLY% }
}

# offers WANT FUNCTION PROGRAM WORDS...: it offers WANT, exactly.
offers()
{
	local want=$1

	shift
	complete_words "$@"
	[ "$REPLY" = "$want" ] && return 0
	diag "for '${*:3}': '$REPLY', want '$want'"
	return 1
}

# shellcheck source=/dev/null
. "$completion/gsotun" && . "$completion/gsotunctl"
ok $? "both completions load, in one shell"

# The long options gsotun(8) has, from its OPTIONS section.
man_options=$(awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH / { on = 0 }
	on && prev == ".TP" { print } { prev = $0 }' "$top_srcdir/man/gsotun.8" |
	grep -o -- '\\-\\-[a-z0-9\\-]*' | sed 's/\\-/-/g' | sort -u |
	tr '\n' ' ')
man_options=${man_options% }
[ -n "$man_options" ] && offers "$man_options" _gsotun "$GSOTUN" --
ok $? "gsotun --<TAB>: every long option of gsotun(8)"
# The long options of gsotun --help (conf/optlist.h's and argp's own):
# each is in gsotun(8)'s OPTIONS, and each of those is one of them.
help_options=$("$GSOTUN" --help |
	grep -oE '^ +(-[[:alnum:]?], )?--[a-z0-9-]+' |
	grep -oE -- '--[a-z0-9-]+' | sort -u | tr '\n' ' ')
help_options=${help_options% }
[ -n "$help_options" ] && [ "$help_options" = "$man_options" ] || {
	diag "in --help, not gsotun(8):" \
		"$(comm -23 <(tr ' ' '\n' <<<"$help_options") \
			<(tr ' ' '\n' <<<"$man_options") | tr '\n' ' ')"
	diag "in gsotun(8), not --help:" \
		"$(comm -13 <(tr ' ' '\n' <<<"$help_options") \
			<(tr ' ' '\n' <<<"$man_options") | tr '\n' ' ')"
	false
}
ok $? "gsotun --help and gsotun(8)'s OPTIONS name the same long options"
offers "--encap" _gsotun "$GSOTUN" --enc
ok $? "gsotun --enc<TAB>: --encap"
# The encapsulations gsotun takes: those its refusal of another lists,
# which it reads off its table.
encaps=$("$GSOTUN" --encap nonesuch 2>&1 | sed -n 's/.*must be //p' |
	sed 's/,\| or / /g' | tr -s ' ' '\n' | sort | tr '\n' ' ')
encaps=${encaps% }
[[ " $encaps " == *" vxlan-gpe "* ]] &&
	offers "$encaps" _gsotun "$GSOTUN" --remote 192.0.2.2 --encap ""
ok $? "gsotun --encap <TAB>: every encapsulation gsotun takes ($encaps)"
offers "geneve gre gre-udp" _gsotun "$GSOTUN" --encap = g
ok $? "gsotun --encap=g<TAB>: those starting so"
offers "vxlan vxlan-gpe" _gsotun "$GSOTUN" --encap vx
ok $? "gsotun --encap vx<TAB>: vxlan, vxlan-gpe"
! "$GSOTUN" --help | grep -n '%s'
ok $? "gsotun --help: every list of encapsulations filled in"
offers "inherit set unset" _gsotun "$GSOTUN" --df =
ok $? "gsotun --df=<TAB>: set, unset, inherit"
offers "tap tun" _gsotun "$GSOTUN" --mode ""
ok $? "gsotun --mode <TAB>: tap, tun"
offers "auto" _gsotun "$GSOTUN" --queues ""
ok $? "gsotun --queues <TAB>: auto"
offers "" _gsotun "$GSOTUN" --remote ""
ok $? "gsotun --remote <TAB>: nothing (an address)"
offers "--learning" _gsotun "$GSOTUN" --learning --lea
ok $? "gsotun --learning --lea<TAB>: a flag takes no value"
touch "$tmp/peers.conf"
offers "$tmp/peers.conf" _gsotun "$GSOTUN" --peers "$tmp/peers.c"
ok $? "gsotun --peers <TAB>: files"

offers "--control --help --json --usage --version" _gsotunctl \
	"$GSOTUNCTL" --
ok $? "gsotunctl --<TAB>: its options"
if [ "$CLI_ALONE" = 1 ]; then
	cmds="config fdb help list metrics peer route show stats taps"
	offers "$cmds version" _gsotunctl "$GSOTUNCTL" ""
	ok $? "gsotunctl <TAB>: the commands (no tap runs here)"
else
	skip "gsotunctl <TAB> where a gsotun may run"
fi
offers "add del list" _gsotunctl "$GSOTUNCTL" peer ""
ok $? "gsotunctl peer <TAB>: add, del, list"
offers "add del show" _gsotunctl "$GSOTUNCTL" --json fdb ""
ok $? "gsotunctl --json fdb <TAB>: add, del, show"
offers "add del show" _gsotunctl "$GSOTUNCTL" route ""
ok $? "gsotunctl route <TAB>: add, del, show"
offers "fdb" _gsotunctl "$GSOTUNCTL" gt0 f
ok $? "gsotunctl DEV f<TAB>: fdb"
offers "json" _gsotunctl "$GSOTUNCTL" --control /nowhere fdb show ""
ok $? "gsotunctl fdb show <TAB>: json"

echo "1..$tap_n"
exit "$failed"
