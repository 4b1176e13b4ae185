#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install with apt-get the Debian packages that building and testing gsotun
# need and that are missing; does nothing when everything is installed.
#
# Usage: contrib/deps.sh [demo]
#   demo  only what contrib/demo.sh uses: the build, iproute2, ping and
#         iperf3
set -e

build="build-essential autoconf automake libtool pkg-config
	libev-dev liburing-dev libmnl-dev"
demo="iproute2 procps iputils-ping iperf3"
# debhelper, lintian and systemd (its systemd.pc, a Build-Depends) for
# tests/package-deb.sh, which builds the Debian package; openvswitch-switch
# for tests/netns-tun-ovs.sh, which runs its own ovsdb-server and
# ovs-vswitchd in a namespace, and frr (zebra, bgpd, vtysh) for
# tests/netns-evpn.sh, which runs its own in each namespace: neither needs
# a service of its package running. tests/deps.sh checks that every
# command the tests run comes from a package named here.
tests="$demo socat tcpdump tshark ethtool jq python3 python3-scapy clang
	libclang-rt-dev debhelper lintian systemd openvswitch-switch frr"

case ${1:-} in
"") want="$build $tests" what="build and test dependencies" ;;
demo) want="$build $demo" what="demo's dependencies" ;;
*)
	echo "usage: $0 [demo]" >&2
	exit 64
	;;
esac

missing=
for pkg in $want; do
	if ! dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing="$missing $pkg"
	fi
done
if [ -z "$missing" ]; then
	echo "deps.sh: all the $what are installed"
	exit 0
fi

sudo=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "deps.sh: missing:$missing; run as root to install" >&2
		exit 1
	}
	sudo=sudo
fi

echo "deps.sh: installing$missing"
# No service of what is installed starts (frr's zebra would take the host's
# routing table, OVS its own database): a policy-rc.d that refuses every
# start (invoke-rc.d and deb-systemd-invoke ask it), for the install only,
# where none is there already.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# contrib/deps.sh: no service starts\nexit 101\n' |
		$sudo tee "$policy" >/dev/null
	$sudo chmod 0755 "$policy"
	trap '$sudo rm -f "$policy"' EXIT
	trap 'exit 1' INT TERM
fi
# tshark would otherwise ask whether non-root users may capture.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	$sudo debconf-set-selections
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086 # $missing is a list of package names
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -q -y \
	--no-install-recommends $missing

# Nor at the next boot: the packages enable their services, which the
# tests never use. Only those installed here; systemctl works without
# systemd running (a chroot) and disables the SysV links too.
services=
case " $missing " in *" frr "*) services="frr.service" ;; esac
case " $missing " in
*" openvswitch-switch "*) services="$services openvswitch-switch.service" ;;
esac
if [ -n "$services" ]; then
	echo "deps.sh: disabling $services (the tests run their own" \
		"daemons)"
	# shellcheck disable=SC2086 # $services is a list of unit names
	$sudo systemctl disable --quiet $services
fi
