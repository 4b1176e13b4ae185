#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Counts the VXLAN packets of a capture by outer source address and inner
# destination MAC, for the overlay tests: who sent what to which port.
"""Usage: vxlan-count.py PCAP [PORT]

Reads a libpcap file (Ethernet link type, as tcpdump -w writes it) and
prints one line per outer source address and inner destination MAC:

  SRC MAC COUNT

for every UDP datagram to PORT (default 4789) over IPv4 or IPv6 that holds
a VXLAN header (RFC 7348) and at least an inner Ethernet header. IPv4
fragments after the first are not counted.
"""

import ipaddress
import struct
import sys
from collections import Counter


def packets(path):
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            return
        magic = struct.unpack("<I", head[:4])[0]
        endian = {0xA1B2C3D4: "<", 0xA1B23C4D: "<",
                  0xD4C3B2A1: ">", 0x4D3CB2A1: ">"}.get(magic)
        if endian is None:
            sys.exit(f"{path}: not a pcap file")
        if struct.unpack(endian + "I", head[20:24])[0] != 1:
            sys.exit(f"{path}: not an Ethernet capture")
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(endian + "IIII", rec)[2]
            data = f.read(incl)
            if len(data) < incl:
                return
            yield data


def vxlan_of(frame, port):
    """(outer source, inner destination MAC) or None."""
    if len(frame) < 14:
        return None
    etype, off = struct.unpack("!H", frame[12:14])[0], 14
    if etype == 0x0800 and len(frame) >= off + 20:
        ihl = (frame[off] & 0x0F) * 4
        frag = struct.unpack("!H", frame[off + 6:off + 8])[0] & 0x1FFF
        if frame[off + 9] != 17 or frag:
            return None
        src = ipaddress.IPv4Address(frame[off + 12:off + 16])
        off += ihl
    elif etype == 0x86DD and len(frame) >= off + 40:
        if frame[off + 6] != 17:
            return None
        src = ipaddress.IPv6Address(frame[off + 8:off + 24])
        off += 40
    else:
        return None
    if len(frame) < off + 8 + 8 + 14:
        return None
    if struct.unpack("!H", frame[off + 2:off + 4])[0] != port:
        return None
    inner = off + 16
    return str(src), frame[inner:inner + 6].hex(":")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    port = int(sys.argv[2]) if len(sys.argv) == 3 else 4789
    counts = Counter()
    for frame in packets(sys.argv[1]):
        key = vxlan_of(frame, port)
        if key:
            counts[key] += 1
    for (src, mac), n in sorted(counts.items()):
        print(src, mac, n)


if __name__ == "__main__":
    main()
