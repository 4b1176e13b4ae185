#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The configuration file and the configuration running: A starts from a
# --config file (two taps by --vni N=DEV, addresses, --learning, static
# entries, a --peers file) with command-line options over it, traffic
# crosses both taps to B, peers and static entries are added and removed
# with gsotunctl; `gsotunctl config`, saved and fed back to a new gsotun
# --config, must be said again the same, with the runtime changes in
# force. gsotun --check of that file prints it as it is and exits 0, of a
# file with a bad line exits 64 naming the file and line; neither makes a
# tap nor binds a socket (ip link, ss). The example file parses.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 45
CTL=${GSOTUNCTL:-$LIB_DIR/../src/gsotunctl}
[ -x "$CTL" ] || bail "gsotunctl not found at $CTL (set GSOTUNCTL)"
# The second overlay, a tap of its own at each end.
T2_A=c2A$$ T2_B=c2B$$
O2_A=10.145.0.1 O2_B=10.145.0.2
# Peers that answer nothing, on the underlay's subnet.
P3=198.18.45.3 P4=198.18.45.4
M1=02:00:00:45:00:01 M2=02:00:00:45:00:02 M3=02:00:00:45:00:03
MP=02:00:00:45:00:04 M5=02:00:00:45:00:05
NS_C=gtC$$
ns_add "$NS_C"

conf=$LIB_TMP/a.conf saved=$LIB_TMP/saved.conf peers=$LIB_TMP/a.peers
cat >"$conf" <<EOF
# A's tunnel: the command line gives --dev and overrides --mtu.
remote $UL_B
local $UL_A
vni 10
vni 11=$T2_A
address $OV4_A/24
address $T2_A=$O2_A/24
learning		# what B's taps send from is learnt
ageing 120
mtu 1300
fdb $M1=$UL_B
# The file has it for the main tap: this line is the second's alone.
fdb $T2_A=$M5=$P4
peers $peers
EOF
printf 'remote %s\nfdb %s=%s\nfdb %s=%s=%s\n' "$P4" "$MP" "$P4" \
	"$TAP_A" "$M5" "$P4" >"$peers"

# ctl NS ARGS...: gsotunctl in NS; its output in OUT, status in ST.
ctl()
{
	local ns=$1

	shift
	OUT=$(ip netns exec "$ns" "$CTL" "$@" 2>"$LIB_TMP/ctl.err")
	ST=$?
	[ "$ST" -eq 0 ] ||
		diag "gsotunctl $*: status $ST: $(cat "$LIB_TMP/ctl.err")"
	return "$ST"
}

# Here a whole line of config's output; lib.sh's has and lacks match text.
has() { grep -qxF -- "$1" <<<"$OUT" || { diag "no '$1' in:" "$OUT"; return 1; }; }
lacks() { ! grep -qF -- "$1" <<<"$OUT" || { diag "'$1' in:" "$OUT"; return 1; }; }

start_b()
{
	gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" --vni 10 \
		--vni "11=$T2_B" --address "$OV4_B/24" \
		--address "$T2_B=$O2_B/24" &&
		dev_ready "$NS_B" "$T2_B" "$O2_B/24"
}

# Both overlays carry pings, A's second tap up with its address too.
both_ping()
{
	local i

	for ((i = 0; i < 50; i++)); do
		dev_ready "$NS_A" "$T2_A" "$O2_A/24" && break
		sleep 0.1
	done
	ping_ok "$NS_A" "$OV4_B" && ping_ok "$NS_A" "$O2_B"
}

# The changes at run time: a peer more, an entry more in each tap, one
# of --fdb's taken out of the main tap (so that only the second has it).
run_time_changes()
{
	ctl "$NS_A" "$TAP_A" peer add "$P3" &&
		ctl "$NS_A" "$TAP_A" fdb add "$M2=$P3" &&
		ctl "$NS_A" "$TAP_A" fdb add "$M3@7=$UL_B" "$T2_A" &&
		ctl "$NS_A" "$TAP_A" fdb del "$M1"
}

# What `config` says of them, and of the rest.
config_says()
{
	local b_mac

	ctl "$NS_A" "$TAP_A" config || return 1
	printf '%s\n' "$OUT" >"$saved"
	b_mac=$(link_attr "$NS_B" "$TAP_B" link/ether)
	has "remote $UL_B" && has "remote $P3" && has "dev $TAP_A" &&
		has "mtu 1400" && has "learning" && has "ageing 120" &&
		has "vni 10" && has "vni 11=$T2_A" &&
		has "address $OV4_A/24" && has "address $T2_A=$O2_A/24" &&
		has "fdb $TAP_A=$M2=$P3" && has "fdb $T2_A=$M1=$UL_B" &&
		has "fdb $T2_A=$M3@7=$UL_B" && has "peers $peers" &&
		has "fdb $T2_A=$M5=$P4" && lacks "fdb $M5=" &&
		lacks "$TAP_A=$M5" && lacks "remote $P4" && lacks "$MP" &&
		lacks "$b_mac" && lacks "mtu 1300"
}

# A again, from the saved file alone (and --dev, as the unit gives it).
restart_a()
{
	gt_stop "$NS_A" || return 1
	gt_start "$NS_A" "$TAP_A" --config "$saved"
}

same_again()
{
	ctl "$NS_A" "$TAP_A" config || return 1
	diff -u "$saved" - <<<"$OUT" >"$LIB_TMP/diff" ||
		{ diag "$(cat "$LIB_TMP/diff")"; return 1; }
}

# The entries in force in the right taps, the peers file's peer too.
in_force()
{
	ctl "$NS_A" fdb show || return 1
	has "$M2 dst $P3 dev $TAP_A static" &&
		has "$M1 dst $UL_B dev $T2_A static" &&
		has "$M3 vlan 7 dst $UL_B dev $T2_A static" &&
		has "$MP dst $P4 dev $TAP_A static" &&
		has "$MP dst $P4 dev $T2_A static" &&
		lacks "$M1 dst $UL_B dev $TAP_A" || return 1
	ctl "$NS_A" "$TAP_A" show && grep -q "^peer $P3\$" <<<"$OUT" &&
		grep -q "^peer $P4\$" <<<"$OUT"
}

# Nothing in NS_C but its loopback: no tap, no socket of any kind.
untouched()
{
	local links socks

	links=$(ip -n "$NS_C" -o link show | grep -vc ': lo:')
	socks=$(ip netns exec "$NS_C" ss -Hantuwx | wc -l)
	[ "$links" -eq 0 ] && [ "$socks" -eq 0 ] ||
		{ diag "in $NS_C: $links links, $socks sockets:" \
			"$(ip -n "$NS_C" -o link show)" \
			"$(ip netns exec "$NS_C" ss -Hantuwx)"; return 1; }
}

# gsotun --check in NS_C, its status in ST, stdout in OUT, stderr in ERR.
gt_check()
{
	OUT=$(ip netns exec "$NS_C" "$GSOTUN" --check "$@" \
		2>"$LIB_TMP/check.err")
	ST=$?
	ERR=$(cat "$LIB_TMP/check.err")
}

check_good()
{
	gt_check --config "$saved"
	[ "$ST" -eq 0 ] || { diag "status $ST: $ERR"; return 1; }
	diff -u "$saved" - <<<"$OUT" >"$LIB_TMP/diff" ||
		{ diag "$(cat "$LIB_TMP/diff")"; return 1; }
}

check_bad()
{
	local bad=$LIB_TMP/bad.conf n

	{ cat "$saved"; echo "remote 198.18.45.300"; cat "$saved"; } >"$bad"
	n=$(($(wc -l <"$saved") + 1))
	gt_check --config "$bad"
	[ "$ST" -eq 64 ] && [ -z "$OUT" ] &&
		[[ $ERR == *"$bad:$n: invalid --remote '198.18.45.300'"* ]] ||
		{ diag "status $ST, line $n: $ERR" "$OUT"; return 1; }
}

# A symlink to the file is followed (config management puts them in
# /etc/gsotun); a FIFO at its name is refused, not waited on.
check_links()
{
	local link=$LIB_TMP/link.conf fifo=$LIB_TMP/fifo.conf

	ln -sf "$saved" "$link" && mkfifo "$fifo" || return 1
	gt_check --config "$link"
	[ "$ST" -eq 0 ] && diff -u "$saved" - <<<"$OUT" >/dev/null ||
		{ diag "a symlink: status $ST: $ERR"; return 1; }
	OUT=$(timeout 5 ip netns exec "$NS_C" "$GSOTUN" --check \
		--config "$fifo" 2>&1)
	ST=$?
	[ "$ST" -eq 64 ] &&
		[[ $OUT == *"cannot read --config '$fifo': not a regular file"* ]] ||
		{ diag "a FIFO: status $ST: $OUT"; return 1; }
}

# A --user or --admin-group nobody has: 64 from --check, as at a start.
check_names()
{
	local u=nosuchuser$$ g=nosuchgroup$$

	gt_check --config "$saved" --user "$u"
	[ "$ST" -eq 64 ] && [ -z "$OUT" ] &&
		[[ $ERR == *"no user $u (--user)"* ]] ||
		{ diag "--user $u: status $ST: $ERR"; return 1; }
	gt_check --config "$saved" --admin-group "$g"
	[ "$ST" -eq 64 ] && [[ $ERR == *"no group $g (--admin-group)"* ]] ||
		{ diag "--admin-group $g: status $ST: $ERR"; return 1; }
	gt_check --config "$saved" --user nobody --admin-group 4242
	[ "$ST" -eq 0 ] && has "user nobody" && has "admin-group 4242" ||
		{ diag "nobody, 4242: status $ST: $ERR"; return 1; }
}

# The example make install puts beside NAME.conf parses, as it says.
check_example()
{
	gt_check --dev gt0 --config "$LIB_DIR/../contrib/gsotun.conf.example" \
		--control /run/gsotun/gt0/ctl
	[ "$ST" -eq 0 ] || { diag "status $ST: $ERR"; return 1; }
	has "remote 198.18.0.2" && has "vni 42" &&
		has "address fd00:42::1/64"
}

check "A starts from --config $conf, --dev and --mtu 1400 over it" \
	gt_start "$NS_A" "$TAP_A" --config "$conf" --mtu 1400
check "B starts, two taps" start_b
check "pings over both overlays" both_ping
check "gsotunctl: peer add, fdb add in each tap, fdb del" run_time_changes
check "config: the options, and the peers and entries of now" config_says
check "A again from what config said" restart_a
check "  config says it again the same" same_again
check "  the entries in force in their taps, the peers of both files" \
	in_force
check "  pings over both overlays" both_ping
check "--check of the saved file prints it as it is, exit 0" check_good
check "  no tap, no socket" untouched
check "--check of a bad line: exit 64, FILE:LINE said" check_bad
check "  no tap, no socket" untouched
check "--check of a user or group that does not exist: exit 64" check_names
check "--config: a symlink followed, a FIFO refused" check_links
check "--check of contrib/gsotun.conf.example, as the unit gives it" \
	check_example
check "A stops" gt_stop "$NS_A"
check "B stops" gt_stop "$NS_B"
done_testing
