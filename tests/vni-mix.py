#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# One UDP GRO receive that holds datagrams of several VNIs or GRE keys,
# for tests/vni.sh: the tunnel headers are UDP payload, so one send with
# UDP_SEGMENT cuts a buffer into datagrams each with a header of its own.
"""Usage: vni-mix.py DST PORT vxlan|gre-udp ID,ID,...

Sends one UDP_SEGMENT super-datagram to DST:PORT (the kernel moves it
over veth whole, and a receiver with UDP_GRO reads it with one receive):
one datagram per ID, in that order, all of one size, each a VXLAN header
(RFC 7348) with VNI ID or a GRE header (RFC 8086) with key ID, and an
inner broadcast Ethernet frame of ethertype 0x88b5 (local experimental:
no stack takes it) from source MAC 02:00:5e:10:00:ID (ID's low byte).
Prints "sent N SIZE".
"""

import socket
import struct
import sys

SOL_UDP = 17
UDP_SEGMENT = 103
FRAME = 64  # inner Ethernet frame, without FCS


def header(encap, ident):
    if encap == "vxlan":
        return struct.pack("!II", 0x08000000, ident << 8)
    # K bit, version 0, transparent Ethernet bridging, the key.
    return struct.pack("!HHI", 0x2000, 0x6558, ident)


def datagram(encap, ident, seq):
    src = bytes([0x02, 0x00, 0x5E, 0x10, 0x00, ident & 0xFF])
    eth = b"\xff" * 6 + src + struct.pack("!H", 0x88B5)
    body = struct.pack("!HI", seq, ident)
    return header(encap, ident) + eth + body + bytes(FRAME - 14 - 6)


def main():
    if len(sys.argv) != 5 or sys.argv[3] not in ("vxlan", "gre-udp"):
        sys.exit(__doc__)
    dst, port, encap = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ids = [int(x) for x in sys.argv[4].split(",")]
    family = socket.AF_INET6 if ":" in dst else socket.AF_INET
    grams = [datagram(encap, ident, i) for i, ident in enumerate(ids)]
    size = len(grams[0])
    sock = socket.socket(family, socket.SOCK_DGRAM)
    sock.setsockopt(SOL_UDP, UDP_SEGMENT, size)
    sock.connect((dst, port))
    sock.send(b"".join(grams))
    print("sent", len(grams), size)


if __name__ == "__main__":
    main()
