# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# What the Open vSwitch namespace tests (netns-tun-ovs, netns-ovs-geneve)
# share, sourced after lib.sh: B runs its own ovsdb-server and
# ovs-vswitchd (database, run and log directories in the test's
# temporary directory, killed by PID at exit), every bridge
# datapath_type=netdev: br-phy holds B's veth and its underlay
# addresses, br-int its overlay addresses; the test adds its tunnel
# port to br-int.

# ovs_init SECONDS: skips the test (1..0) where Open vSwitch is not
# installed; lib.sh's two namespaces over IPv4 with IPv6 addresses too
# (UL6_A, UL6_B), B's veth for OVS to take, transmit checksumming off
# on both veths, 8 MiB of data, and OVS's directories in LIB_TMP.
ovs_init()
{
	local tool ns_dev

	OVS_SCHEMA=/usr/share/openvswitch/vswitch.ovsschema
	for tool in ovsdb-server ovs-vswitchd ovsdb-tool ovs-vsctl ovs-ofctl \
		ovs-appctl; do
		PATH=$PATH:/usr/sbin:/sbin command -v "$tool" \
			>/dev/null 2>&1 && continue
		echo "1..0 # SKIP no $tool: Open vSwitch (Debian's" \
			"openvswitch-switch) is not installed"
		exit 0
	done
	[ -r "$OVS_SCHEMA" ] || {
		echo "1..0 # SKIP no $OVS_SCHEMA (openvswitch-switch)"
		exit 0
	}

	lib_init "$1" tcpdump tshark ethtool socat
	net_setup 4 1
	UL6_A=fd00:198:18:1::1 UL6_B=fd00:198:18:1::2
	make_data small 8

	# The underlay addresses of B move to br-phy once OVS owns the veth.
	ip -n "$NS_B" addr flush dev "$VETH_B"
	ip -n "$NS_A" addr add "$UL6_A/64" dev "$VETH_A" nodad ||
		bail "cannot add $UL6_A"
	# OVS reads the veth with AF_PACKET and drops packets whose checksum
	# the sending veth left to offload; B's own packets with final
	# checksums too.
	for ns_dev in "$NS_A:$VETH_A" "$NS_B:$VETH_B"; do
		ip netns exec "${ns_dev%%:*}" ethtool -K "${ns_dev#*:}" \
			tx off >/dev/null ||
			bail "ethtool -K ${ns_dev#*:} tx off failed"
	done

	OVS_DIR=$LIB_TMP/ovs
	mkdir "$OVS_DIR" || bail "cannot make $OVS_DIR"
	export OVS_RUNDIR=$OVS_DIR OVS_LOGDIR=$OVS_DIR OVS_DBDIR=$OVS_DIR
	export OVS_SYSCONFDIR=$OVS_DIR OVS_PKGDATADIR=/usr/share/openvswitch
	DB=unix:$OVS_DIR/db.sock
}

vsctl()
{
	ip netns exec "$NS_B" ovs-vsctl --db="$DB" --timeout=10 "$@"
}

ofctl()
{
	ip netns exec "$NS_B" ovs-ofctl -O OpenFlow13 "$@"
}

# ovs_start: the two daemons in B, in the foreground as far as they know
# (tracked, killed by PID at exit), then the bridges.
ovs_start()
{
	local i

	ovsdb-tool create "$OVS_DIR/conf.db" "$OVS_SCHEMA" ||
		{ diag "ovsdb-tool create failed"; return 1; }
	ip netns exec "$NS_B" ovsdb-server "$OVS_DIR/conf.db" \
		--remote="punix:$OVS_DIR/db.sock" \
		--unixctl="$OVS_DIR/ovsdb-server.ctl" \
		--log-file="$OVS_DIR/ovsdb-server.log" \
		</dev/null >/dev/null 2>&1 &
	track_pid $!
	for ((i = 0; i < 50; i++)); do
		[ -S "$OVS_DIR/db.sock" ] && break
		sleep 0.1
	done
	vsctl --no-wait init || { diag "ovs-vsctl init failed"; return 1; }
	ip netns exec "$NS_B" ovs-vswitchd "$DB" \
		--unixctl="$OVS_DIR/ovs-vswitchd.ctl" \
		--log-file="$OVS_DIR/ovs-vswitchd.log" \
		</dev/null >/dev/null 2>&1 &
	OVS_PID=$!
	track_pid "$OVS_PID"
	vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
		-- add-port br-phy "$VETH_B" \
		-- add-br br-int -- set bridge br-int datapath_type=netdev ||
		{ diag "$(tail -n 5 "$OVS_DIR/ovs-vswitchd.log")"; return 1; }
	ip -n "$NS_B" addr add "$UL_B/24" dev br-phy &&
		ip -n "$NS_B" addr add "$UL6_B/64" dev br-phy nodad &&
		ip -n "$NS_B" link set br-phy up &&
		ip -n "$NS_B" addr add "$OV4_B/24" dev br-int &&
		ip -n "$NS_B" addr add "$OV6_B/64" dev br-int nodad &&
		ip -n "$NS_B" link set br-int up || return 1
	# Through br-phy: OVS learns A's MAC for its tunnel pushes.
	for ((i = 0; i < 50; i++)); do
		ip netns exec "$NS_B" ping -c 1 -W 1 "$UL_A" >/dev/null 2>&1 &&
			ip netns exec "$NS_B" ping -c 1 -W 1 "$UL6_A" \
				>/dev/null 2>&1 && return 0
		sleep 0.1
	done
	diag "the underlay does not answer through br-phy"
	return 1
}

# ovs_traffic R PCAP: pings both ways, IPv4 and IPv6 inside, then 8 MiB
# A->B over IPv4 and B->A over IPv6 while PCAP captures A's veth, each
# said as a test point of run R; 0 when the transfers' SHA-256 match.
ovs_traffic()
{
	local r=$1 pcap=$2 st=1

	pings_both_ways
	ok $? "$r: A and B ping each other, IPv4 and IPv6 inside"
	if [ "$TUNNEL_UP" -eq 1 ] && cap_start "$NS_A" "$VETH_A" "$pcap"; then
		xfer "$NS_A" "$NS_B" "$OV4_B" small &&
			xfer "$NS_B" "$NS_A" "$OV6_A" small
		st=$?
		cap_stop
	fi
	ok "$st" "$r: 8 MiB A->B over IPv4, B->A over IPv6, SHA-256 match"
	return "$st"
}
