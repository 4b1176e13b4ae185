#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The datagrams of tests/netns-amplify.sh, built with scapy and sent as
# whole Ethernet frames on the peer's veth (hostile.py's wire): VXLAN
# datagrams of about 64 KB, IP-fragmented on the underlay, each holding
# one inner TCP frame far over the tap's MTU with a good checksum.
#
#   crafted  IPv6 with a 1384-byte destination options header: cut at the
#            tap's MTU, its segments would carry 2 bytes each (issue 12)
#   legit    IPv4 with ordinary headers, what the kernel's vxlan over a
#            veth sends: cut into MTU-sized segments
#
# Usage: amplify.py --ifname DEV --src-mac MAC --dst-mac MAC --fam 4|6
#        --peer ADDR --dst ADDR KIND COUNT

import argparse
import os
import sys
from types import SimpleNamespace

from scapy.all import (
    IP,
    TCP,
    Ether,
    IPv6,
    IPv6ExtHdrDestOpt,
    PadN,
    Raw,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import IN4, IN6, IN_DST_MAC, Encap, Wire, wire_args  # noqa


def inner(kind, i, room):
    eth = Ether(src="02:00:5e:00:0a:%02x" % i, dst=IN_DST_MAC)
    tcp = TCP(sport=33000, dport=5001, seq=1000 + i * 100000, ack=1,
              flags="A", window=512)
    if kind == "crafted":
        # 1384 bytes: PadN options of at most 257 bytes each.
        opts = [PadN(optdata=b"\0" * 255)] * 5 + [PadN(optdata=b"\0" * 95)]
        ip = IPv6(src=IN6[0], dst=IN6[1]) / IPv6ExtHdrDestOpt(options=opts)
    else:
        ip = IP(src=IN4[0], dst=IN4[1], id=i, flags="DF")
    hdr = len(bytes(eth / ip / tcp))
    data = bytes((i + k) & 0xFF for k in range(room - hdr))
    return bytes(eth / ip / tcp / Raw(data))


def main():
    ap = argparse.ArgumentParser()
    wire_args(ap)
    ap.add_argument("kind", choices=("crafted", "legit"))
    ap.add_argument("count", type=int)
    a = ap.parse_args()

    cfg = SimpleNamespace(encap="vxlan", vni=42, key=None, gre_csum=False,
                          fam=a.fam, port=4789, peer=a.peer, other=a.peer,
                          dst=a.dst, src_mac=a.src_mac, dst_mac=a.dst_mac,
                          ifname=a.ifname)
    e = Encap(cfg)
    w = Wire(cfg)
    room = w.max_payload() - e.hlen()
    for i in range(a.count):
        f = inner(a.kind, i, room)
        if a.kind == "crafted":
            # Ethernet, IPv6 and the options in front of TCP.
            assert len(f) - len(bytes(Ether(f)[TCP])) == 14 + 40 + 1384
        w.send(e.wrap(f))
    print("sent %d %s frames of %d bytes" % (a.count, a.kind, len(f)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
