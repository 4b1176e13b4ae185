#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# VXLAN frames with chosen inner source MACs, for tests/mesh.sh: a non-peer
# trying to get a MAC learnt, and a peer flooding random source MACs.
"""Usage: mesh-send.py DST MAC COUNT [SRC_MAC]

Sends COUNT VXLAN datagrams (VNI 1, RFC 7348) from an ephemeral port to
DST port 4789, each an inner Ethernet frame to MAC with ethertype 0x88b5
(local experimental, which no stack above the tap takes). The inner
source MAC is SRC_MAC, or a different random locally administered unicast
MAC each time when it is not given. Prints the number sent.
"""

import os
import socket
import struct
import sys
import time


def mac_bytes(text):
    return bytes(int(x, 16) for x in text.split(":"))


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    dst, to_mac, count = sys.argv[1], mac_bytes(sys.argv[2]), int(sys.argv[3])
    src_mac = mac_bytes(sys.argv[4]) if len(sys.argv) == 5 else None
    family = socket.AF_INET6 if ":" in dst else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    vxlan = struct.pack("!II", 0x08000000, 1 << 8)
    sent = 0
    for i in range(count):
        mac = src_mac or bytes([0x02]) + os.urandom(5)
        frame = to_mac + mac + struct.pack("!H", 0x88B5) + bytes(46)
        sock.sendto(vxlan + frame, (dst, 4789))
        sent += 1
        # A little slack now and then: the test counts learning, not
        # what a full socket buffer drops.
        if i % 256 == 255:
            time.sleep(0.002)
    print(sent)


if __name__ == "__main__":
    main()
