#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Malformed traffic for tests/hostile.sh: encapsulated packets built with
# scapy, sent as whole Ethernet frames on the peer's veth, and the check of
# what reached the receiver's tap.
#
# Run inside the sending namespace. It prints the cases, one a line:
#   case IDX COUNTER MOVES N DELIVER NAME  (COUNTER "-": none moves;
#                                          else by MOVES, of N packets)
# then "ready", and answers commands read from standard input:
#   send IDX     send the N packets of case IDX, then one fence packet
#                (1 byte from the peer: rx_drop_short); answers "sent IDX"
#   verify PCAP  check a capture of the receiver's tap (inner frames not
#                from either tap); answers "result IDX ok|fail WHY" for
#                each case, "stray N" and "end"
#   quit
#
# Every inner frame of case IDX has source MAC 02:00:5e:ba:ad:IDX, so a
# frame that got through can be told apart from the good traffic and from
# the other cases. The drop cases carry inner frames that would be
# delivered were the outer layers accepted.

import argparse
import socket
import struct
import sys

from scapy.all import (
    IP,
    TCP,
    UDP,
    Ether,
    IPOption_EOL,
    IPOption_NOP,
    IPv6,
    IPv6ExtHdrDestOpt,
    IPv6ExtHdrFragment,
    IPv6ExtHdrHopByHop,
    Raw,
    rdpcap,
)

VXLAN_I = 0x08000000  # RFC 7348 section 5
GRE_C, GRE_R, GRE_K = 0x8000, 0x4000, 0x2000  # RFC 2784, RFC 2890
GRE_TEB = 0x6558
# RFC 8926 section 3.4: the O and C bits of the second byte; an option
# type's critical bit (section 3.5).
GENEVE_O, GENEVE_C, GENEVE_CRIT = 0x80, 0x40, 0x80
IN4 = ("192.0.2.1", "192.0.2.2")
IN6 = ("2001:db8::1", "2001:db8::2")
IN_DST_MAC = "02:00:5e:ba:ad:fe"
MAC_PREFIX = bytes.fromhex("02005ebaad")
# Largest datagram payloads: IPv4 total length and IPv6 payload length of
# 65535 (RFC 791, RFC 8200), less the UDP header.
MAX_L4 = {(4, True): 65507, (4, False): 65515,
          (6, True): 65527, (6, False): 65535}
# Fragments: 1500-byte frames on the veth, offsets in units of 8 bytes.
FRAG4, FRAG6 = 1480, 1448


def in_mac(idx):
    return "02:00:5e:ba:ad:%02x" % idx


def inet_sum(data):
    """RFC 1071 sum, folded, not inverted."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def inet_csum(data):
    return ~inet_sum(data) & 0xFFFF


# ------------------------------------------------------------ inner frames


def udp_frame(idx, i):
    """A well-formed UDP datagram, IPv4 or IPv6 by turns."""
    eth = Ether(src=in_mac(idx), dst=IN_DST_MAC)
    data = Raw(b"hostile %d/%d " % (idx, i) * 4)
    if i % 2:
        return bytes(eth / IPv6(src=IN6[0], dst=IN6[1]) /
                     UDP(sport=40000 + i, dport=9) / data)
    return bytes(eth / IP(src=IN4[0], dst=IN4[1], id=i) /
                 UDP(sport=40000 + i, dport=9) / data)


def tcp_frame(idx, i, v6=False, ip_opts=False, exts=False, plen=100,
              bad=False, seq=1000, minus_one=False, sport=33000):
    """TCP with ACK, segment i of a run of plen-byte segments."""
    eth = Ether(src=in_mac(idx), dst=IN_DST_MAC)
    tcp = TCP(sport=sport, dport=5001, seq=seq + i * plen, ack=1,
              flags="A", window=512)
    data = Raw(bytes((i * 7 + k) & 0xFF for k in range(plen)))
    if v6:
        ip = IPv6(src=IN6[0], dst=IN6[1])
        if exts:
            ip = ip / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt()
    elif ip_opts:
        ip = IP(src=IN4[0], dst=IN4[1], id=i, flags="DF",
                options=[IPOption_NOP()] * 3 + [IPOption_EOL()])
    else:
        ip = IP(src=IN4[0], dst=IN4[1], id=i, flags="DF")
    raw = bytearray(bytes(eth / ip / tcp / data))
    if minus_one:
        off = tcp_check_off(raw)
        good = struct.unpack("!H", raw[off:off + 2])[0]
        raw[off:off + 2] = struct.pack("!H", (good - 1) & 0xFFFF)
    if bad:
        off = tcp_check_off(raw)
        good = struct.unpack("!H", raw[off:off + 2])[0]
        wrong = good ^ 0x00FF
        # The pseudo-header seed passes as "left partial": avoid it.
        if wrong == tcp_seed(raw, off):
            wrong ^= 0x0F00
        raw[off:off + 2] = struct.pack("!H", wrong)
    return bytes(raw)


def tcp_check_off(raw):
    p = Ether(bytes(raw))
    return len(raw) - len(bytes(p[TCP])) + 16


def tcp_seed(raw, check_off):
    """The pseudo-header sum gsotun seeds a NEEDS_CSUM frame with."""
    l4 = check_off - 16
    l4len = len(raw) - l4
    if raw[12:14] == b"\x86\xdd":
        ph = raw[22:54] + struct.pack("!IxxxB", l4len, 6)
    else:
        ph = raw[26:34] + struct.pack("!xBH", 6, l4len)
    return inet_sum(bytes(ph))


def ip4_bytes(i, proto_payload=b"", **kw):
    return bytes(IP(src=IN4[0], dst=IN4[1], id=i, **kw) / Raw(proto_payload))


def eth_hdr(idx, ethertype):
    return bytes(Ether(src=in_mac(idx), dst=IN_DST_MAC, type=ethertype))


def inner_short(idx, i):
    # 0..13 bytes: not even an Ethernet header.
    return udp_frame(idx, i)[:i]


def ip4_cut(idx, i):
    # The ethertype says IPv4, the IP header ends after 0..19 bytes.
    return eth_hdr(idx, 0x0800) + ip4_bytes(i)[:i]


def ip4_len_over(idx, i):
    f = bytearray(udp_frame(idx, 2 * i))
    tot = len(f) - 14 + 1 + i * 7001
    f[16:18] = struct.pack("!H", min(tot, 65535))
    return bytes(f)


def ip4_len_under(idx, i):
    f = bytearray(udp_frame(idx, 2 * i))
    f[16:18] = struct.pack("!H", i * 2)  # 0..18 < IHL * 4 = 20
    return bytes(f)


def ip4_bad_ihl(idx, i):
    f = bytearray(udp_frame(idx, 2 * i))
    # IHL 0..4, then versions 0, 6, 15, 5, 3 with IHL 5.
    f[14] = [0x40, 0x41, 0x42, 0x43, 0x44, 0x05, 0x65, 0xF5, 0x55, 0x35][i]
    return bytes(f)


def ip6_cut(idx, i):
    f = udp_frame(idx, 2 * i + 1)
    return f[:14 + 2 * i]  # 0..38 bytes of the 40-byte header


def ip6_len_over(idx, i):
    f = bytearray(udp_frame(idx, 2 * i + 1))
    plen = len(f) - 54 + 1 + i * 7001
    f[18:20] = struct.pack("!H", min(plen, 65535))
    return bytes(f)


def tcp_hdr_bad(idx, i):
    """TCP header cut by the IP length (i < 5) or data offset < 5."""
    v6 = i % 2 == 1
    f = bytearray(tcp_frame(idx, i, v6=v6, plen=40))
    l4 = 54 if v6 else 34
    if i < 5:
        keep = 4 + 3 * i  # 4..16 bytes of the TCP header
        f = f[:l4 + keep]
        if v6:
            f[18:20] = struct.pack("!H", keep)
        else:
            f[16:18] = struct.pack("!H", 20 + keep)
            f[24:26] = b"\0\0"
            f[24:26] = struct.pack("!H", inet_csum(bytes(f[14:34])))
    else:
        f[l4 + 12] = (i - 5) << 4  # data offset 0..4
    return bytes(f)


def udp_len_bad(idx, i):
    f = bytearray(udp_frame(idx, i))
    l4 = 54 if i % 2 else 34
    room = len(f) - l4
    ulen = i if i < 5 else room + 1 + (i - 5) * 1000  # < 8, or too long
    f[l4 + 4:l4 + 6] = struct.pack("!H", ulen)
    return bytes(f)


# ------------------------------------------------------- encapsulation


class Encap:
    def __init__(self, a):
        self.kind = a.encap
        self.vni = a.vni
        self.key = a.key
        self.gre_csum = a.gre_csum

    def hlen(self):
        if self.kind in ("vxlan", "geneve"):
            return 8
        return 4 + 4 * bool(self.gre_csum) + 4 * (self.key is not None)

    def vxlan(self, inner, w0=VXLAN_I, vni=None, w1_low=0):
        vni = self.vni if vni is None else vni
        return struct.pack("!II", w0, (vni << 8) | w1_low) + inner

    def gre(self, inner, flags=None, version=0, proto=GRE_TEB, key=None,
            csum="good"):
        """GRE header per RFC 2784/2890; csum "good", "bad" or None."""
        if flags is None:
            flags = GRE_C if self.gre_csum else 0
            if self.key is not None:
                flags |= GRE_K
        key = self.key if key is None else key
        opt = b""
        if flags & GRE_C:
            opt += b"\0\0\0\0"
        if flags & GRE_K:
            opt += struct.pack("!I", key)
        pkt = bytearray(struct.pack("!HH", flags | version, proto) + opt +
                        inner)
        if flags & GRE_C and csum:
            c = inet_csum(bytes(pkt))
            if csum == "bad":
                c ^= 0x5A5A
            pkt[4:6] = struct.pack("!H", c)
        return bytes(pkt)

    def geneve(self, inner, version=0, optlen=None, flags=0, proto=GRE_TEB,
               vni=None, opts=b"", rsvd=0):
        """Geneve header per RFC 8926 section 3.4, then opts as given;
        optlen (4-byte words) by default theirs."""
        vni = self.vni if vni is None else vni
        optlen = len(opts) // 4 if optlen is None else optlen
        return struct.pack("!BBHI", version << 6 | optlen, flags, proto,
                           vni << 8 | rsvd) + opts + inner

    def wrap(self, inner):
        """A valid encapsulation header for inner."""
        if self.kind == "vxlan":
            return self.vxlan(inner)
        if self.kind == "geneve":
            return self.geneve(inner)
        return self.gre(inner)


# ------------------------------------------------------------ the wire


class Wire:
    def __init__(self, a):
        self.fam = a.fam
        self.udp = a.encap != "gre"
        self.port = a.port
        self.src = {"peer": a.peer, "other": a.other}
        self.dst = a.dst
        self.eth = bytes(Ether(src=a.src_mac, dst=a.dst_mac,
                               type=0x86DD if a.fam == 6 else 0x0800))
        self.ipid = 1
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((a.ifname, 0))

    def max_payload(self):
        return MAX_L4[(self.fam, self.udp)]

    def l4(self, payload, src, udp_csum):
        """Transport bytes and protocol: UDP (checksummed unless
        udp_csum is false: then a zero checksum) or GRE."""
        if not self.udp:
            return payload, 47
        # The source port is gsotun's own, as the peer sends from it.
        u = UDP(sport=self.port, dport=self.port,
                chksum=None if udp_csum else 0) / Raw(payload)
        if self.fam == 6:
            return bytes(IPv6(src=src, dst=self.dst) / u)[40:], 17
        return bytes(IP(src=src, dst=self.dst) / u)[20:], 17

    def frames4(self, l4, proto, src):
        self.ipid = (self.ipid + 1) & 0xFFFF
        if 20 + len(l4) <= 1500:
            return [bytes(IP(src=src, dst=self.dst, proto=proto,
                             id=self.ipid) / Raw(l4))]
        out = []
        for off in range(0, len(l4), FRAG4):
            more = off + FRAG4 < len(l4)
            out.append(bytes(IP(src=src, dst=self.dst, proto=proto,
                                id=self.ipid, frag=off // 8,
                                flags="MF" if more else 0) /
                             Raw(l4[off:off + FRAG4])))
        return out

    def frames6(self, l4, proto, src):
        self.ipid += 1
        if 40 + len(l4) <= 1500:
            return [bytes(IPv6(src=src, dst=self.dst, nh=proto) / Raw(l4))]
        out = []
        for off in range(0, len(l4), FRAG6):
            more = off + FRAG6 < len(l4)
            out.append(bytes(IPv6(src=src, dst=self.dst, nh=44) /
                             IPv6ExtHdrFragment(nh=proto, offset=off // 8,
                                                m=int(more), id=self.ipid) /
                             Raw(l4[off:off + FRAG6])))
        return out

    def send(self, payload, src="peer", udp_csum=True):
        addr = self.src[src]
        l4, proto = self.l4(payload, addr, udp_csum)
        if self.fam == 6:
            pkts = self.frames6(l4, proto, addr)
        else:
            pkts = self.frames4(l4, proto, addr)
        for p in pkts:
            self.sock.send(self.eth + p)


# ------------------------------------------------------------ the cases


def vxlan_reserved(e, f, i):
    """Reserved bit i of 39: the 31 of word 0 but I, then 8 of word 1."""
    bits0 = [b for b in range(32) if 1 << b != VXLAN_I]
    if i < len(bits0):
        return e.vxlan(f, w0=VXLAN_I | 1 << bits0[i])
    return e.vxlan(f, w1_low=1 << (i - len(bits0)))


def geneve_opt(cls, typ, data=b""):
    """One Geneve option: class, type, length in words, data."""
    return struct.pack("!HBB", cls, typ, len(data) // 4) + data


# Options that are no reason to drop: none critical, zero-length ones,
# several, the C bit without a critical option, the R bits set.
GENEVE_SKIPPED = [
    (geneve_opt(0x0102, 0x01, b"\0\0\0\x0a"), 0),
    (geneve_opt(0xFFFF, 0x7F), 0),
    (geneve_opt(0, 0) * 4, 0),
    (geneve_opt(0x0108, 0x01, bytes(8)) + geneve_opt(0x0108, 0x02), 0),
    (geneve_opt(0x0102, 0x01), GENEVE_C),
    (struct.pack("!HBB", 0x0102, 0x01, 0xE0), 0),
    (geneve_opt(0x0102, 0x7F, bytes(124)), 0),
    (geneve_opt(0x0103, 0x05, bytes(4)) * 10, 0),
    (b"", GENEVE_C),
    (b"", 0x3F),
]


def geneve_cases(e, add, outer):
    """The cases of a Geneve header (RFC 8926) that gsotun checks."""
    add("Geneve version 1..3", "rx_drop_geneve_version", 3,
        outer(lambda f, i: e.geneve(f, version=i + 1)))
    add("Geneve protocol type a tap does not carry", "rx_drop_geneve_proto",
        10, outer(lambda f, i: e.geneve(f, proto=[0x0800, 0x86DD, 0x6559,
                                                  0x8100, 0][i % 5])))
    add("wrong VNI", "rx_drop_vni", 10,
        outer(lambda f, i: e.geneve(f, vni=[0, 1, 41, 43, 0xFFFFFF,
                                            42 << 8, 42 << 16, 0x42,
                                            0x800042, 142][i])))
    add("Geneve option running past Opt Len", "rx_drop_geneve_opt", 10,
        outer(lambda f, i: e.geneve(
            f, optlen=1 + i % 3,
            opts=geneve_opt(0x0102, 1, bytes(4 * (i % 3 + 1))))))
    add("Geneve Opt Len past the datagram", "rx_drop_geneve_opt", 10,
        outer(lambda f, i: e.geneve(f, optlen=63 - i)[:8 + 4 * i]))
    add("unknown critical Geneve option", "rx_drop_geneve_critical", 10,
        outer(lambda f, i: e.geneve(
            f, flags=GENEVE_C,
            opts=geneve_opt(0x0102, 0x01) +
            geneve_opt(0x0102 + i, GENEVE_CRIT | i, bytes(4)))))
    add("Geneve O bit (a control packet)", "rx_drop_geneve_oam", 10,
        outer(lambda f, i: e.geneve(f, flags=GENEVE_O | (i & 1) * GENEVE_C)))
    add("Geneve options skipped (none critical) and reserved bits "
        "ignored: delivered", "-", len(GENEVE_SKIPPED),
        outer(lambda f, i: e.geneve(f, opts=GENEVE_SKIPPED[i][0],
                                    flags=GENEVE_SKIPPED[i][1],
                                    rsvd=0xFF * (i == 9))),
        deliver=True)


class Case:
    def __init__(self, name, counter, n, build, deliver=False, src="peer",
                 tcp=False, udp_csum=True, moves=None):
        self.name = name
        self.udp_csum = udp_csum  # False: sent with a zero UDP checksum
        self.counter = counter
        self.n = n
        self.moves = n if moves is None else moves  # the counter's delta
        self.build = build  # i -> (payload, inner frame or None)
        self.deliver = deliver  # the inner frames must reach the tap
        self.src = src
        # The check field may come reseeded: a bool, or one per frame i.
        self.tcp = tcp


def make_cases(e, w, a):
    cases = []
    gre = e.kind in ("gre", "gre-udp")
    raw_gre = e.kind == "gre"

    def add(name, counter, n, build, **kw):
        cases.append(Case(name, counter, n, build, **kw))

    def inner(fn):
        # Called just before add(): the index the case is about to get.
        idx = len(cases) + 1

        def build(i):
            f = fn(idx, i)
            return e.wrap(f), f
        return build

    def outer(fn):
        idx = len(cases) + 1

        def build(i):
            f = udp_frame(idx, i)
            return fn(f, i), f
        return build

    add("well-formed frames from the peer reach the tap (control)", "-",
        10, inner(udp_frame), deliver=True)
    add("zero-length datagrams", "rx_drop_short", 10,
        lambda i: (b"", None))
    hl = e.hlen()
    add("encapsulation header cut at 1..%d bytes" % (hl - 1),
        "rx_drop_short", hl - 1, outer(lambda f, i: e.wrap(f)[:i + 1]))
    if e.kind == "geneve":
        geneve_cases(e, add, outer)
    elif not gre:
        add("VXLAN I flag clear", "rx_drop_flags", 10,
            outer(lambda f, i: e.vxlan(f, w0=0)))
        add("VXLAN reserved bits set, one at a time", "rx_drop_flags", 39,
            outer(lambda f, i: vxlan_reserved(e, f, i)))
        add("wrong VNI", "rx_drop_vni", 10,
            outer(lambda f, i: e.vxlan(f, vni=[0, 1, 41, 43, 0xFFFFFF,
                                               42 << 8, 42 << 16, 0x42,
                                               0x800042, 142][i])))
    else:
        add("GRE version 1..7", "rx_drop_gre_version", 7,
            outer(lambda f, i: e.gre(f, version=i + 1)))
        add("GRE routing bit", "rx_drop_gre_flags", 10,
            outer(lambda f, i: e.gre(f, flags=GRE_R | GRE_K | GRE_C)))
        add("GRE strict route, recursion, reserved flag bits",
            "rx_drop_gre_flags", 9,
            outer(lambda f, i: e.gre(f, flags=(GRE_K | GRE_C |
                                               (0x0800 >> i)))))
        add("GRE checksum wrong", "rx_drop_csum", 10,
            outer(lambda f, i: e.gre(f, flags=GRE_C | GRE_K, csum="bad")))
        add("wrong GRE key", "rx_drop_key", 10,
            outer(lambda f, i: e.gre(f, key=[0, 6, 8, 7 << 8, 0xFFFFFFFF,
                                             1 << 31, 0x70000, 17, 77,
                                             0x07000000][i])))
        add("GRE key absent", "rx_drop_key", 10,
            outer(lambda f, i: e.gre(f, flags=GRE_C if raw_gre else 0)))
        if raw_gre:
            add("GRE checksum absent (--csum)", "rx_drop_csum_missing", 10,
                outer(lambda f, i: e.gre(f, flags=GRE_K)))
        add("GRE protocol not 0x6558", "rx_drop_gre_proto", 9,
            outer(lambda f, i: e.gre(f, proto=[0x0800, 0x86DD,
                                               0x6559][i % 3])))
    add("inner frame shorter than Ethernet (0..13 bytes)",
        "rx_drop_inner_short", 14, inner(inner_short))
    add("inner IPv4 header cut (0..19 bytes)", "rx_drop_inner_hdr", 20,
        inner(ip4_cut))
    add("inner IPv4 total length over the frame", "rx_drop_inner_hdr", 10,
        inner(ip4_len_over))
    add("inner IPv4 total length under the header", "rx_drop_inner_hdr",
        10, inner(ip4_len_under))
    add("inner IPv4 IHL under 5 or version not 4", "rx_drop_inner_hdr",
        10, inner(ip4_bad_ihl))
    add("inner IPv6 header cut (0..38 bytes)", "rx_drop_inner_hdr", 20,
        inner(ip6_cut))
    add("inner IPv6 payload length over the frame", "rx_drop_inner_hdr",
        10, inner(ip6_len_over))
    add("inner TCP header cut or data offset under 5",
        "rx_drop_inner_hdr", 10, inner(tcp_hdr_bad))
    add("inner UDP length under 8 or over the datagram",
        "rx_drop_inner_hdr", 10, inner(udp_len_bad))
    if w.udp and (a.no_csum or w.fam == 4):
        # RFC 7348 section 5, RFC 8086 section 3.2.1; over IPv6 only
        # with --no-csum (RFC 6935, the kernel's udp6zerocsumrx).
        add("UDP checksum absent, accepted", "-", 10,
            inner(udp_frame), deliver=True, udp_csum=False)
    elif w.udp:
        # udpv6_rcv() drops it before any socket: no gsotun counter.
        add("UDP checksum absent (--csum), dropped by the kernel", "-",
            10, inner(udp_frame), udp_csum=False)
    # Whatever the outer checksum, a wrong inner TCP checksum is never
    # made good: the frame reaches the tap as it came, and is counted.
    add("inner TCP checksum wrong: delivered as it came",
        "rx_inner_csum_bad", 10,
        inner(lambda idx, i: tcp_frame(idx, i, v6=i % 2 == 1, bad=True)),
        deliver=True)
    # The case: two 100-byte segments in order, the second with
    # its checksum minus one; behind the kernel's vxlan the tap gets
    # [100, 100], the second still wrong. Never one of 200 bytes.
    add("in-order pairs, the second with its TCP checksum minus one: "
        "unmerged, the second as it came", "rx_inner_csum_bad", 10,
        inner(lambda idx, i: tcp_frame(idx, i, v6=(i // 2) % 2 == 1,
                                       minus_one=i % 2 == 1,
                                       seq=1000 + (i // 2) * 7000)),
        deliver=True, tcp=lambda i: i % 2 == 0, moves=5)
    add("inner IPv4 options, TCP in order: delivered, not merged", "-",
        10, inner(lambda idx, i: tcp_frame(idx, i, ip_opts=True)),
        deliver=True, tcp=True)
    # Identical extension headers merge (ipv6_gro_receive()): one flow
    # per frame keeps each frame whole (unit-gro has the merging).
    add("inner IPv6 hop-by-hop + destination options, TCP, a flow each: "
        "delivered", "-", 10,
        inner(lambda idx, i: tcp_frame(idx, i, v6=True, exts=True,
                                       sport=33000 + i)),
        deliver=True, tcp=True)

    room = w.max_payload() - hl  # an inner frame filling the datagram

    def max_tcp(idx, i):
        hdrs = 14 + (40 if i % 2 else 20) + 20
        return tcp_frame(idx, i, v6=i % 2 == 1, plen=room - hdrs, bad=True)

    if gre:
        add("%d-byte packets, wrong GRE key" % w.max_payload(),
            "rx_drop_key", 3,
            outer(lambda f, i: e.gre(f + bytes(room - len(f)), key=9)))
    elif e.kind == "geneve":
        add("%d-byte datagrams, wrong VNI" % w.max_payload(),
            "rx_drop_vni", 3,
            outer(lambda f, i: e.geneve(f + bytes(room - len(f)), vni=43)))
    else:
        add("%d-byte datagrams, wrong VNI" % w.max_payload(),
            "rx_drop_vni", 3,
            outer(lambda f, i: e.vxlan(f + bytes(room - len(f)), vni=43)))
    add("%d-byte datagrams, inner TCP checksum wrong: delivered as it "
        "came" % w.max_payload(), "rx_inner_csum_bad", 3, inner(max_tcp),
        deliver=True)
    # The raw GRE socket too is unconnected with a control socket
    # (underlay_init()): gsotun checks the source, as with UDP.
    add("well-formed frames from a third address", "rx_drop_source", 10,
        inner(udp_frame), src="other")
    return cases


# ------------------------------------------------------------ checking


def same_frame(got, want, tcp):
    """Equal, but for a TCP check field reseeded for NEEDS_CSUM."""
    if len(got) != len(want):
        return False
    if not tcp:
        return got == want
    off = tcp_check_off(want)
    seed = struct.pack("!H", tcp_seed(want, off))
    return (got[:off] == want[:off] and got[off + 2:] == want[off + 2:] and
            got[off:off + 2] in (want[off:off + 2], seed))


def verify(cases, sent, path):
    try:
        pkts = rdpcap(path)
    except Exception as ex:  # an empty capture has no packets at all
        pkts = []
        print("# rdpcap: %s" % ex, flush=True)
    by_case = {}
    stray = 0
    for p in pkts:
        raw = bytes(p)
        idx = raw[11] if raw[6:11] == MAC_PREFIX else 0
        if 1 <= idx <= len(cases):
            by_case.setdefault(idx, []).append(raw)
        else:
            stray += 1
    for idx, c in enumerate(cases, 1):
        got = by_case.get(idx, [])
        want = sent.get(idx, [])
        if not c.deliver:
            res = "ok" if not got else "fail %d frames reached the tap" % \
                len(got)
        elif len(got) != len(want):
            res = "fail %d of %d frames reached the tap" % (len(got),
                                                            len(want))
        elif not all(same_frame(g, x, c.tcp(i) if callable(c.tcp)
                                else c.tcp)
                     for i, (g, x) in enumerate(zip(got, want))):
            res = "fail frames changed on the way"
        else:
            res = "ok"
        print("result %d %s" % (idx, res), flush=True)
    print("stray %d" % stray)
    print("end", flush=True)


def wire_args(ap):
    """The options that say where Wire sends: tests/amplify.py's too."""
    ap.add_argument("--ifname", required=True)
    ap.add_argument("--src-mac", required=True)
    ap.add_argument("--dst-mac", required=True)
    ap.add_argument("--fam", type=int, choices=(4, 6), required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--dst", required=True)


def main():
    ap = argparse.ArgumentParser()
    wire_args(ap)
    ap.add_argument("--other", required=True)
    ap.add_argument("--encap", choices=("vxlan", "gre", "gre-udp", "geneve"),
                    required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--vni", type=int, default=0)
    ap.add_argument("--key", type=int)
    ap.add_argument("--gre-csum", action="store_true")
    # The receiver runs with --no-csum (UDP: zero checksums accepted).
    ap.add_argument("--no-csum", action="store_true")
    a = ap.parse_args()

    e = Encap(a)
    w = Wire(a)
    cases = make_cases(e, w, a)
    sent = {}
    for idx, c in enumerate(cases, 1):
        print("case %d %s %d %d %d %s" % (idx, c.counter, c.moves, c.n,
                                          int(c.deliver), c.name))
    print("ready", flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "send":
            idx = int(cmd[1])
            c = cases[idx - 1]
            for i in range(c.n):
                payload, frame = c.build(i)
                w.send(payload, c.src, c.udp_csum)
                if c.deliver:
                    sent.setdefault(idx, []).append(frame)
            w.send(b"\0")  # the fence: rx_drop_short once processed
            print("sent %d" % idx, flush=True)
        elif cmd[0] == "verify":
            verify(cases, sent, cmd[1])
        elif cmd[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
