#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A Gateway Load Balancer's side of --geneve-echo (netns-geneve-echo4.sh).

Run inside the namespace of the GWLB's nodes: from UDP sockets on port
6081 of each node's address, send Geneve packets (RFC 8926) with options
of class 0x0108, as the GWLB does, carrying inner IP packets that the
appliance's own stack answers (ICMP echo, ICMPv6 echo, a TCP SYN to a
closed port: a RST); then read what comes back to each node and check
that every answer carries the options its flow's last packet came with,
to the node that sent it, and nothing to the other.

usage: geneve-echo.py VNI APPLIANCE NODE1 NODE2 TUN4_OTHER TUN4_APPL
       TUN6_OTHER TUN6_APPL
Prints TAP lines (no plan); exits 0.
"""
import os
import select
import socket
import struct
import sys
import time

PORT = 6081
GWLB = 0x0108


def csum(data):
    """RFC 1071: the one's-complement sum of data, folded and inverted."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def opt(typ, data):
    """One Geneve option of class 0x0108: its header and data."""
    return struct.pack("!HBB", GWLB, typ, len(data) // 4) + data


def gwlb_opts(endpoint, cookie):
    """The GWLB's three options: endpoint id, attachment id, flow cookie."""
    return (opt(1, struct.pack("!Q", endpoint)) +
            opt(2, struct.pack("!Q", endpoint + 1)) +
            opt(3, struct.pack("!I", cookie)))


def geneve(vni, opts, proto, inner):
    return struct.pack("!BBHI", len(opts) // 4, 0, proto, vni << 8) + \
        opts + inner


def ip4(src, dst, proto, l4):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, 0x4000,
                      64, proto, 0, socket.inet_aton(src),
                      socket.inet_aton(dst))
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + l4


def icmp4_echo(ident, seq):
    body = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"gwlb" * 8
    return body[:2] + struct.pack("!H", csum(body)) + body[4:]


def tcp4_syn(src, dst, sport, dport):
    seg = struct.pack("!HHIIBBHHH", sport, dport, 1000, 0, 5 << 4, 0x02,
                      65535, 0, 0)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + \
        struct.pack("!BBH", 0, 6, len(seg))
    return seg[:16] + struct.pack("!H", csum(pseudo + seg)) + seg[18:]


def ip6_icmp_echo(src, dst, ident, seq):
    body = struct.pack("!BBHHH", 128, 0, 0, ident, seq) + b"gwlb" * 8
    s, d = socket.inet_pton(socket.AF_INET6, src), \
        socket.inet_pton(socket.AF_INET6, dst)
    pseudo = s + d + struct.pack("!IxxxB", len(body), 58)
    body = body[:2] + struct.pack("!H", csum(pseudo + body)) + body[4:]
    return struct.pack("!IHBB", 6 << 28, len(body), 58, 64) + s + d + body


def parse(pkt):
    """(vni, opts, proto, inner) of a Geneve packet, or None."""
    if len(pkt) < 8 or pkt[0] >> 6:
        return None
    olen = (pkt[0] & 0x3F) * 4
    proto, vni = struct.unpack("!HI", pkt[2:8])
    return vni >> 8, pkt[8:8 + olen], proto, pkt[8 + olen:]


def collect(socks, secs):
    """Every datagram the sockets get within secs: {index: [bytes]}."""
    got = {i: [] for i in range(len(socks))}
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return got
        r, _, _ = select.select(socks, [], [], left)
        for s in r:
            got[socks.index(s)].append(s.recv(65535))


N = 0


def point(good, name, why=""):
    global N
    N += 1
    print("%s %d - %s" % ("ok" if good else "not ok", N, name))
    if not good and why:
        for line in why.splitlines():
            print("# " + line)


def answers(got, node, proto, match):
    """The Geneve packets node got of the protocol type whose inner
    packet match() accepts."""
    out = []
    for raw in got[node]:
        g = parse(raw)
        if g and g[2] == proto and match(g[3]):
            out.append(g)
    return out


def echo_reply4(ident):
    return lambda ip: (len(ip) >= 28 and ip[9] == 1 and ip[20] == 0 and
                       struct.unpack("!H", ip[24:26])[0] == ident)


def rst_to(port):
    return lambda ip: (len(ip) >= 40 and ip[9] == 6 and
                       struct.unpack("!H", ip[22:24])[0] == port and
                       ip[33] & 0x04)


def echo_reply6(ident):
    return lambda ip: (len(ip) >= 48 and ip[6] == 58 and ip[40] == 129 and
                       struct.unpack("!H", ip[44:46])[0] == ident)


def check_flow(got, name, node, proto, match, opts, vni):
    other = 1 - node
    mine = answers(got, node, proto, match)
    theirs = answers(got, other, proto, match)
    point(len(mine) >= 1 and all(g[1] == opts for g in mine) and
          all(g[0] == vni for g in mine),
          "%s: answered to node %d with its options" % (name, node + 1),
          "got %r" % [(g[0], g[1].hex()) for g in mine])
    point(not theirs, "%s: nothing to node %d" % (name, other + 1))


def main():
    vni = int(sys.argv[1])
    appl, nodes = sys.argv[2], sys.argv[3:5]
    o4, a4, o6, a6 = sys.argv[5:9]
    socks = []
    for n in nodes:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((n, PORT))
        socks.append(s)

    def send(node, opts, proto, inner):
        socks[node].sendto(geneve(vni, opts, proto, inner), (appl, PORT))

    x, y, z = gwlb_opts(10, 0xAAAA0001), gwlb_opts(20, 0xBBBB0002), \
        gwlb_opts(30, 0xCCCC0003)
    w, x2 = gwlb_opts(40, 0xDDDD0004), gwlb_opts(10, 0xAAAA0005)
    # Round 1: four flows, two nodes, each its own options.
    for k in range(3):
        send(0, x, 0x0800, ip4(o4, a4, 1, icmp4_echo(0x1111, k)))
        send(1, y, 0x0800, ip4(o4[:-1] + "3", a4, 1,
                               icmp4_echo(0x2222, k)))
        send(0, z, 0x0800, ip4(o4, a4, 6, tcp4_syn(o4, a4, 40000 + k, 9)))
        send(1, w, 0x86DD, ip6_icmp_echo(o6, a6, 0x3333, k))
        time.sleep(0.05)
    got = collect(socks, 2.0)
    check_flow(got, "IPv4 ping from node 1", 0, 0x0800,
               echo_reply4(0x1111), x, vni)
    check_flow(got, "IPv4 ping from node 2", 1, 0x0800,
               echo_reply4(0x2222), y, vni)
    check_flow(got, "TCP SYN from node 1, a flow of its own", 0, 0x0800,
               rst_to(40000), z, vni)
    check_flow(got, "IPv6 ping from node 2", 1, 0x86DD,
               echo_reply6(0x3333), w, vni)
    # Round 2: the first flow's cookie changes; the answer follows it.
    for k in range(3, 6):
        send(0, x2, 0x0800, ip4(o4, a4, 1, icmp4_echo(0x1111, k)))
        time.sleep(0.05)
    got = collect(socks, 1.5)
    check_flow(got, "IPv4 ping from node 1, new cookie", 0, 0x0800,
               echo_reply4(0x1111), x2, vni)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
