#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A flood of spoofed ICMP "port unreachable" errors for tests/icmp.sh:
# from the peer's address to the tunnel's, each quoting a UDP datagram the
# tunnel could have sent from port SPORT to the peer's port 4789. Sent as
# whole Ethernet frames on the peer's veth for SECONDS; prints how many.
#
# Usage: icmp-flood.py IFNAME SRC_MAC DST_MAC FAM PEER TUNNEL SPORT SECONDS

import socket
import sys
import time

from scapy.all import ICMP, IP, UDP, Ether, ICMPv6DestUnreach, IPv6, Raw


def frame(smac, dmac, fam, peer, tunnel, sport):
    # The quoted datagram: the tunnel's, to the peer, with a VXLAN header.
    udp = UDP(sport=sport, dport=4789) / Raw(b"\x08\0\0\0\0\0\x2a\0")
    eth = Ether(src=smac, dst=dmac)
    if fam == 6:
        quoted = IPv6(src=tunnel, dst=peer) / udp
        return bytes(eth / IPv6(src=peer, dst=tunnel) /
                     ICMPv6DestUnreach(code=4) / Raw(bytes(quoted)))
    quoted = IP(src=tunnel, dst=peer, id=7) / udp
    return bytes(eth / IP(src=peer, dst=tunnel) / ICMP(type=3, code=3) /
                 Raw(bytes(quoted)))


def main():
    ifname, smac, dmac, fam, peer, tunnel, sport, secs = sys.argv[1:9]
    f = frame(smac, dmac, int(fam), peer, tunnel, int(sport))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    end = time.monotonic() + float(secs)
    n = 0
    while time.monotonic() < end:
        for _ in range(100):
            s.send(f)
        n += 100
    print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
