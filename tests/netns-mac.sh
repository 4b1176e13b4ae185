#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tap's MAC: a stable default that survives a restart (so bridges and
# peers keep the tap in their tables), that differs between the two ends
# of a tunnel on one host even with one tap name (the local address is in
# the hash), --mac for the main tap and for a tap of --vni N=DEV; and a
# persistent tap of the same name, used with a warning.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 120 ping
net_setup 4 23
# One tap name at both ends: only the local address tells them apart.
TAP=tM$$

# mac_of NS DEV: the device's MAC.
mac_of()
{
	link_attr "$1" "$2" link/ether
}

# mac_is NS DEV MAC: DEV has MAC within a second.
mac_is()
{
	wait_link_attr "$1" "$2" link/ether "$3"
}

# local_unicast MAC: the U/L bit set, the I/G bit clear.
local_unicast()
{
	local first=$((16#${1:0:2}))

	if [ -z "$1" ] || [ $((first & 3)) -ne 2 ]; then
		diag "MAC '$1' is not locally administered unicast"
		return 1
	fi
}

start_a()
{
	gt_start "$NS_A" "$TAP" --remote "$UL_B" --address "$OV4_A/24" "$@"
}

check "A starts (no --local, no --mac)" start_a
MAC_A=$(mac_of "$NS_A" "$TAP")
check "its MAC is locally administered unicast" local_unicast "$MAC_A"
check "the start-up line names it" wait_log "$NS_A" "MAC $MAC_A, MTU"
check "a tap gsotun made is not called persistent" \
	eval "! grep -q persistent '${GT_ERR[$NS_A]}'"
check "A stops" gt_stop "$NS_A"
check "A starts again" start_a
check "the same MAC after the restart" mac_is "$NS_A" "$TAP" "$MAC_A"
check "A stops again" gt_stop "$NS_A"
check "A starts with --local (the route's source)" start_a --local "$UL_A"
check "the same MAC: the local address is the route's source" \
	mac_is "$NS_A" "$TAP" "$MAC_A"

check "B starts, with the same tap name" gt_start "$NS_B" "$TAP" \
	--local "$UL_B" --remote "$UL_A" --address "$OV4_B/24"
MAC_B=$(mac_of "$NS_B" "$TAP")
check "B's MAC differs from A's" eval "[ '$MAC_B' != '$MAC_A' ]"
check "ping over the tunnel" ping_ok "$NS_A" "$OV4_B"
check "B's neighbour entry of A is A's MAC" eval \
	"ip -n $NS_B neigh show $OV4_A | grep -q 'lladdr $MAC_A '"
check "B stops" gt_stop "$NS_B"
check "A stops" gt_stop "$NS_A"

# --mac, and --mac DEV=MAC for a tap of --vni N=DEV.
V2=v2$$
check "A starts with --mac and --mac DEV=MAC" start_a \
	--mac 02:12:34:56:78:9a --vni "2=$V2" --mac "$V2=02:12:34:56:78:9b"
check "--mac set the main tap's MAC" mac_is "$NS_A" "$TAP" 02:12:34:56:78:9a
check "--mac DEV=MAC set the other tap's" \
	mac_is "$NS_A" "$V2" 02:12:34:56:78:9b
check "the start-up line names it" wait_log "$NS_A" "MAC 02:12:34:56:78:9a,"
check "A stops" gt_stop "$NS_A"

# A persistent tap of the name: used, said, and left behind.
P=pM$$
ip -n "$NS_A" tuntap add mode tap name "$P" || bail "ip tuntap add failed"
check "A starts on a persistent tap" gt_start "$NS_A" "$P" \
	--remote "$UL_B" --address "$OV4_A/24" --mac 02:12:34:56:78:9c
check "the warning names it" wait_log "$NS_A" \
	"tap $P exists already and is persistent"
check "--mac set its MAC" mac_is "$NS_A" "$P" 02:12:34:56:78:9c
pid=${GT_PID[$NS_A]}
kill -TERM "$pid"
wait "$pid"
st=$?
forget_pid "$pid"
check "A exits 0" eval "[ $st -eq 0 ]"
check "the persistent tap stays, as the warning said" \
	eval "! dev_gone $NS_A $P"
done_testing
