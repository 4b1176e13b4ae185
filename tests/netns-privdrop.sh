#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --user and --chroot: after set-up gsotun runs as nobody in an empty root
# with no capabilities but CAP_NET_ADMIN where the tap must follow the
# path, and still moves traffic, follows the underlay MTU and stops
# cleanly; started as a service user with ambient capabilities (as
# gsotun@.service starts it), it drops all but CAP_NET_ADMIN once set up.
# Also --allow: a second underlay address of the peer.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317,SC2119,SC2120

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 socat ping getent setpriv unshare mknod
net_setup 4 8
make_data small 8
ROOT=$LIB_TMP/empty
mkdir -m 0755 "$ROOT" || bail "cannot make $ROOT"
NOBODY_UID=$(getent passwd nobody | cut -d: -f3)
NOBODY_GID=$(getent passwd nobody | cut -d: -f4)
[ -n "$NOBODY_UID" ] || bail "no user nobody"
CAP_NET_ADMIN_MASK=0000000000001000
B_EXTRA=()

# status_is FIELD VALUE: a line of A's gsotun /proc/PID/status.
status_is()
{
	local line

	line=$(grep "^$1:" "/proc/${GT_PID[$NS_A]}/status" | tr -s '\t ' ' ' |
		sed 's/ $//')
	[ "$line" = "$1: $2" ] ||
		{ diag "got '$line', want '$1: $2'"; return 1; }
}

root_is()
{
	local r

	r=$(readlink "/proc/${GT_PID[$NS_A]}/root")
	[ "$r" = "$1" ] || { diag "root is '$r', want '$1'"; return 1; }
}

start_b()
{
	gt_start "$NS_B" "$TAP_B" --remote "$UL_A" --address "$OV4_B/24" \
		--encap "${ENCAP:-vxlan}" "${B_EXTRA[@]}"
}

ids="$NOBODY_UID $NOBODY_UID $NOBODY_UID $NOBODY_UID"
gids="$NOBODY_GID $NOBODY_GID $NOBODY_GID $NOBODY_GID"

check "--user nobody --chroot: starts" \
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --address "$OV4_A/24" \
	--user nobody --chroot "$ROOT"
check "B starts" start_b
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "runs as nobody (Uid)" status_is Uid "$ids"
check "in nobody's group (Gid)" status_is Gid "$gids"
check "no supplementary groups but nobody's" status_is Groups "$NOBODY_GID"
check "only CAP_NET_ADMIN effective (--mtu auto)" \
	status_is CapEff "$CAP_NET_ADMIN_MASK"
check "only CAP_NET_ADMIN permitted" status_is CapPrm "$CAP_NET_ADMIN_MASK"
check "only CAP_NET_ADMIN in the bounding set" \
	status_is CapBnd "$CAP_NET_ADMIN_MASK"
check "nothing inheritable or ambient" status_is CapAmb 0000000000000000
check "no_new_privs" status_is NoNewPrivs 1
check "root directory is the --chroot" root_is "$ROOT"
check "8 MiB A->B, SHA-256 intact" xfer "$NS_A" "$NS_B" "$OV4_B" small
ip -n "$NS_A" link set "$VETH_A" mtu 1400
check "the tap still follows the underlay MTU (1400 - 50)" \
	wait_tap_mtu "$NS_A" "$TAP_A" 1350
ip -n "$NS_A" link set "$VETH_A" mtu 1500
check "stops cleanly as nobody, tap removed" gt_stop "$NS_A"

# A fixed MTU with offloads: the tap's gso_max_size is set once, at start
# (issue 12), so nothing needs CAP_NET_ADMIN later.
check "--mtu 1400, offloads on: starts" \
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --address "$OV4_A/24" \
	--mtu 1400 --user nobody
check "no capabilities at all" status_is CapEff 0000000000000000
check "none permitted" status_is CapPrm 0000000000000000
check "none in the bounding set" status_is CapBnd 0000000000000000
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "8 MiB A->B, SHA-256 intact" xfer "$NS_A" "$NS_B" "$OV4_B" small
ip -n "$NS_A" link set "$VETH_A" mtu 1400
check "8 MiB A->B over a smaller path, SHA-256 intact" \
	xfer "$NS_A" "$NS_B" "$OV4_B" small
ip -n "$NS_A" link set "$VETH_A" mtu 1500
check "stops cleanly" gt_stop "$NS_A"

# As gsotun@.service runs it: started as the service user with CAP_NET_ADMIN
# and CAP_NET_RAW ambient (User=, AmbientCapabilities=), no --user. A
# private mount namespace gives it a /dev/net/tun of mode 0666, as udev
# makes it on a Debian system (this one's may be root's only).
AS_UNIT=$LIB_TMP/as-unit
mkdir -m 0755 "$LIB_TMP/dev" || bail "cannot make $LIB_TMP/dev"
cat >"$AS_UNIT" <<EOF
#!/bin/sh
if [ -z "\$AS_UNIT_NS" ]; then
	AS_UNIT_NS=1 exec unshare -m --propagation private "\$0" "\$@"
fi
mount -t tmpfs -o mode=0755 tmpfs "$LIB_TMP/dev" &&
	mknod -m 0666 "$LIB_TMP/dev/tun" c 10 200 &&
	mount --bind "$LIB_TMP/dev/tun" /dev/net/tun || exit 1
exec setpriv --reuid=$NOBODY_UID --regid=$NOBODY_GID --clear-groups \\
	--inh-caps=-all,+net_admin,+net_raw \\
	--ambient-caps=-all,+net_admin,+net_raw \\
	--bounding-set=-all,+net_admin,+net_raw "$GSOTUN" "\$@"
EOF
chmod +x "$AS_UNIT" || bail "cannot write $AS_UNIT"

# as_unit ARGS...: gt_start in A through $AS_UNIT.
as_unit()
{
	local real=$GSOTUN st

	GSOTUN=$AS_UNIT
	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --address "$OV4_A/24" "$@"
	st=$?
	GSOTUN=$real
	return "$st"
}

check "as the unit runs it (nobody, ambient caps): starts" as_unit
check "  runs as nobody" status_is Uid "$ids"
check "  keeps CAP_NET_ADMIN only (--mtu auto)" \
	status_is CapPrm "$CAP_NET_ADMIN_MASK"
check "  nothing ambient or inheritable any more" \
	status_is CapAmb 0000000000000000
check "  under the seccomp filter" status_is Seccomp 2
check "  ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "  8 MiB A->B, SHA-256 intact" xfer "$NS_A" "$NS_B" "$OV4_B" small
ip -n "$NS_A" link set "$VETH_A" mtu 1400
check "  the tap follows the underlay MTU (1400 - 50)" \
	wait_tap_mtu "$NS_A" "$TAP_A" 1350
ip -n "$NS_A" link set "$VETH_A" mtu 1500
check "  stops cleanly, tap removed" gt_stop "$NS_A"
check "as the unit runs it, --mtu 1400: no capabilities left" \
	as_unit --mtu 1400
check "  none permitted" status_is CapPrm 0000000000000000
check "  none effective" status_is CapEff 0000000000000000
check "  ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "  stops cleanly" gt_stop "$NS_A"

# --user naming no one: a usage error (64), said before anything is set
# up, so no tap was made.
unknown_user()
{
	local out st

	out=$(ip netns exec "$NS_A" "$GSOTUN" --dev "$TAP_A" --remote "$UL_B" \
		--user no-such-user-$$ 2>&1)
	st=$?
	[ "$st" -eq 64 ] &&
		grep -q "no user no-such-user-$$ (--user)" <<<"$out" &&
		dev_gone "$NS_A" "$TAP_A" ||
		{ diag "status $st:" "$out"; return 1; }
}
check "--user with an unknown name: exit 64, says so, no tap made" \
	unknown_user

# --allow: B sends from a second address (its route's preferred source)
# while A still sends to the first; without --allow A drops B's packets
# (rx_drop_source), with it A takes them.
gt_stop "$NS_B" >/dev/null
ip -n "$NS_B" addr add 198.18.8.3/24 dev "$VETH_B"
ip -n "$NS_B" route change 198.18.8.0/24 dev "$VETH_B" src 198.18.8.3 ||
	bail "cannot set B's preferred source"

from_second()
{
	local v

	gt_start "$NS_A" "$TAP_A" --remote "$UL_B" --address "$OV4_A/24" \
		--encap "${ENCAP:-vxlan}" "$@" || return 1
	start_b || return 1
	ping_ok "$NS_B" "$OV4_A"
}

# Raw GRE too: with a control socket (peers that may change) the raw
# socket is not connected, and checks the source as UDP does.
drop_source()
{
	local v ns=$NS_A name=rx_drop_source

	! from_second || { diag "ping got through without --allow"; return 1; }
	gt_counters "$ns" || return 1
	v=$(ctr "$GT_CTR" "$name")
	[ "${v:-0}" -ge 3 ] || { diag "$name=${v:-none}"; return 1; }
}
check "without --allow, packets from B's second address are dropped" \
	drop_source
gt_stop "$NS_A" >/dev/null
gt_stop "$NS_B" >/dev/null
check "--allow 198.18.8.0/30 takes them" from_second --allow 198.18.8.0/30
gt_stop "$NS_A" >/dev/null
gt_stop "$NS_B" >/dev/null
# GRE: B takes A's address with --allow too, as before, when a raw
# socket with one peer was connected (now only with --control none).
ENCAP=gre
B_EXTRA=(--allow "$UL_A/32")
check "gre: without --allow, B's second address is dropped" drop_source
gt_stop "$NS_A" >/dev/null
gt_stop "$NS_B" >/dev/null
check "gre: --allow 198.18.8.3/32 takes it" from_second --allow 198.18.8.3/32
check "gre: 8 MiB B->A from the second address, SHA-256 intact" \
	xfer "$NS_B" "$NS_A" "$OV4_A" small
gt_stop "$NS_A" >/dev/null
gt_stop "$NS_B" >/dev/null

done_testing
