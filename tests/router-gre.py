#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A router's end of an L3 GRE or GRE-in-UDP tunnel, for tests/netns-tun-
# router.sh: IP packets in GRE as routers send them, at a gsotun --mode tun.
"""Usage: router-gre.py --ifname DEV --src-mac MAC --dst-mac MAC --fam 4|6
                     --local ADDR --remote ADDR --encap gre|gre-udp
                     --in4 B,A --in6 B,A [--key N] [--csum] [--seq]
                     [--no-udp-csum]

Run in the router's namespace; DEV is its veth, --remote gsotun's underlay
address, --in4/--in6 the overlay addresses of this end (B) and gsotun's
tun (A). --key, --csum and --seq say how gsotun runs: what it requires of
what it receives and puts in what it sends; --no-udp-csum that it sends
zero UDP checksums (gre-udp --no-csum).

It prints the cases, one a line:
  case IDX KIND COUNTER N NAME   KIND good (N packets, N answers) or drop
                                 (N packets counted under COUNTER)
then "ready", and answers commands read from standard input:
  send IDX     send case IDX; a good case then waits (3 s at most) for
               its N answers from gsotun's end and answers "result IDX
               ok|fail WHY"; a drop case sends the fence after its packets
               (a 2-byte GRE header: rx_drop_short) and answers "sent IDX"
  wire         every packet that came from gsotun so far, checked field by
               field (own arithmetic, not scapy's): one "prop NAME N
               ok|fail WHY" line each, then "end"
  verify PCAP  the capture of gsotun's tun: "tun IDX ok|fail WHY" for each
               case (a good case's packets there once each and intact, a
               drop case's not at all), "stray N", "end"
  quit

Every inner packet of case IDX carries the marker 47000 + IDX: its ICMP
echo identifier, or its UDP or TCP source port; a drop case's inner
packet would be delivered were its GRE header right.
"""

import argparse
import select
import socket
import struct
import sys
import time

from scapy.all import ICMP, IP, TCP, UDP, Ether, ICMPv6EchoRequest, IPv6
from scapy.all import Raw, rdpcap

GRE_C, GRE_K, GRE_S = 0x8000, 0x2000, 0x1000  # RFC 2784, RFC 2890
GRE_VER = 0x0007
ETH_P_IP, ETH_P_IPV6, ETH_P_TEB, ETH_P_MPLS = 0x0800, 0x86DD, 0x6558, 0x8847
GRE_UDP_PORT = 4754  # RFC 8086 section 3
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
MARK = 47000
LISTEN_PORT = 7777  # the TCP port the test listens on in gsotun's end
ANSWER_WAIT = 3.0


def inet_sum(data, start=0):
    """RFC 1071 sum, folded, not inverted."""
    if len(data) % 2:
        data += b"\0"
    s = start + sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def inet_csum(data):
    return ~inet_sum(data) & 0xFFFF


def pseudo(src, dst, proto, length):
    """The IPv4 or IPv6 pseudo-header's sum (RFC 768, RFC 8200 8.1)."""
    if len(src) == 4:
        return inet_sum(src + dst + struct.pack("!xBH", proto, length))
    return inet_sum(src + dst + struct.pack("!IxxxB", length, proto))


# ------------------------------------------------------------ inner packets


class Inner:
    def __init__(self, a):
        self.b4, self.a4 = a.in4.split(",")
        self.b6, self.a6 = a.in6.split(",")

    def ip(self, v6):
        if v6:
            return IPv6(src=self.b6, dst=self.a6, hlim=63)
        return IP(src=self.b4, dst=self.a4, ttl=63, id=0x4700)

    def echo(self, idx, v6, seq=1):
        m = MARK + idx
        data = Raw(b"router-gre %d/%d " % (idx, seq) * 3)
        if v6:
            return bytes(self.ip(v6) / ICMPv6EchoRequest(id=m, seq=seq) /
                         data)
        return bytes(self.ip(v6) / ICMP(id=m, seq=seq) / data)

    def udp(self, idx, v6, seq=1):
        # To a port nobody listens on: an ICMP port unreachable answers.
        # A flow each (the port), or gsotun would merge them (UDP GRO).
        return bytes(self.ip(v6) / UDP(sport=MARK + idx, dport=8 + seq) /
                     Raw(b"router-gre udp %d/%d" % (idx, seq)))

    def syn(self, idx, v6, seq=1):
        return bytes(self.ip(v6) /
                     TCP(sport=MARK + idx, dport=LISTEN_PORT, flags="S",
                         seq=1000 * idx + seq, window=64240,
                         options=[("MSS", 1400)]))


def inner_mark(pkt):
    """(version, source, marker) of an inner IP packet, or None."""
    try:
        p = IPv6(pkt) if pkt[0] >> 4 == 6 else IP(pkt)
    except Exception:  # noqa: BLE001 - scapy raises anything on junk
        return None
    src = p.src
    if ICMP in p and p[ICMP].type == 8:
        return 4, src, p[ICMP].id
    if ICMPv6EchoRequest in p:
        return 6, src, p[ICMPv6EchoRequest].id
    if TCP in p:
        return p.version, src, p[TCP].sport
    if UDP in p:
        return p.version, src, p[UDP].sport
    return None


# ------------------------------------------------------------ GRE headers


class Gre:
    """GRE headers (RFC 2784, RFC 2890) with the options gsotun wants."""

    def __init__(self, a):
        self.key = a.key
        self.csum = a.csum
        self.seq = 0

    def flags(self):
        f = GRE_C if self.csum else 0
        if self.key is not None:
            f |= GRE_K
        return f

    def build(self, inner, proto, flags=None, key=None, seq=None,
              csum="good"):
        """csum: "good", or "bad" (a wrong value in the C field)."""
        flags = self.flags() if flags is None else flags
        opt = b""
        if flags & GRE_C:
            opt += b"\0\0\0\0"
        if flags & GRE_K:
            opt += struct.pack("!I", self.key if key is None else key)
        if flags & GRE_S:
            if seq is None:
                self.seq += 1
                seq = self.seq
            opt += struct.pack("!I", seq)
        pkt = bytearray(struct.pack("!HH", flags, proto) + opt + inner)
        if flags & GRE_C:
            c = inet_csum(bytes(pkt))
            if csum == "bad":
                c ^= 0x5A5A
            pkt[4:6] = struct.pack("!H", c)
        return bytes(pkt)


# ------------------------------------------------------------ the wire


class Wire:
    def __init__(self, a):
        self.fam = a.fam
        self.udp = a.encap == "gre-udp"
        self.local, self.remote = a.local, a.remote
        self.eth = bytes(Ether(src=a.src_mac, dst=a.dst_mac,
                               type=ETH_P_IPV6 if a.fam == 6 else ETH_P_IP))
        self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind((a.ifname, 0))
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(ETH_P_ALL))
        self.rx.bind((a.ifname, ETH_P_ALL))
        self.rx.setblocking(False)
        # Without a socket for them, this namespace's kernel would answer
        # gsotun's packets with ICMP protocol or port unreachable.
        af = socket.AF_INET6 if a.fam == 6 else socket.AF_INET
        if self.udp:
            self.sink = socket.socket(af, socket.SOCK_DGRAM)
            self.sink.bind((a.local, GRE_UDP_PORT))
        else:
            self.sink = socket.socket(af, socket.SOCK_RAW, 47)
        self.sink.setblocking(False)
        self.sport = 49152

    def send(self, gre, udp_csum=True):
        """One GRE packet: in UDP to port 4754 (with a checksum, or zero
        when udp_csum is false: RFC 8086 section 3.2), or on IP."""
        if self.udp:
            self.sport = 49152 + (self.sport + 1) % 16384
            u = UDP(sport=self.sport, dport=GRE_UDP_PORT,
                    chksum=None if udp_csum else 0) / Raw(gre)
            proto, l4 = 17, u
        else:
            proto, l4 = 47, Raw(gre)
        if self.fam == 6:
            ip = IPv6(src=self.local, dst=self.remote, nh=proto, hlim=64)
        else:
            ip = IP(src=self.local, dst=self.remote, proto=proto, ttl=64)
        self.tx.send(self.eth + bytes(ip / l4))

    def drain_sink(self):
        while True:
            try:
                self.sink.recv(65536)
            except BlockingIOError:
                return

    def frames(self):
        """The frames that came in since the last call."""
        out = []
        while True:
            try:
                data, addr = self.rx.recvfrom(65536)
            except BlockingIOError:
                break
            if addr[2] != PACKET_OUTGOING:
                out.append(data)
        self.drain_sink()
        return out


# ------------------------------------------------------------ checking


class Checker:
    """Every packet from gsotun's end: the outer headers, GRE and the
    inner packet, each property counted apart, with its first fault."""

    PROPS = ("outer", "udp_csum", "gre_proto", "gre_key", "gre_csum",
             "gre_seq", "inner")

    def __init__(self, a):
        self.a = a
        self.fam = a.fam
        self.udp = a.encap == "gre-udp"
        self.src = socket.inet_pton(self.af(), a.remote)
        self.dst = socket.inet_pton(self.af(), a.local)
        self.n = dict.fromkeys(self.PROPS, 0)
        self.fault = {}
        self.last_seq = None
        self.count = 0

    def af(self):
        return socket.AF_INET6 if self.fam == 6 else socket.AF_INET

    def bad(self, prop, why):
        self.fault.setdefault(prop, "packet %d: %s" % (self.count, why))

    def good(self, prop):
        self.n[prop] += 1

    def outer(self, f):
        """The L4 payload (UDP or GRE) of frame f, or None if not ours."""
        ethertype = struct.unpack("!H", f[12:14])[0]
        ip = f[14:]
        if self.fam == 4 and ethertype == ETH_P_IP and len(ip) >= 20:
            if ip[12:16] != self.src or ip[16:20] != self.dst:
                return None
            proto = ip[9]
            if proto not in (17, 47):
                return None
            self.count += 1
            tot = struct.unpack("!H", ip[2:4])[0]
            frag = struct.unpack("!H", ip[6:8])[0] & 0x3FFF
            if ip[0] != 0x45:
                self.bad("outer", "IPv4 version/IHL byte %#x" % ip[0])
            elif tot != len(ip) and not (tot < len(ip) and len(f) == 60):
                self.bad("outer", "total length %d of %d" % (tot, len(ip)))
            elif inet_sum(ip[:20]) != 0xFFFF:
                self.bad("outer", "IPv4 header checksum wrong")
            elif frag or ip[8] == 0:
                self.bad("outer", "a fragment, or TTL 0")
            elif proto != (17 if self.udp else 47):
                self.bad("outer", "protocol %d" % proto)
            else:
                self.good("outer")
            return proto, ip[20:tot]
        if self.fam == 6 and ethertype == ETH_P_IPV6 and len(ip) >= 40:
            if ip[8:24] != self.src or ip[24:40] != self.dst:
                return None
            nh = ip[6]
            if nh not in (17, 47):
                return None
            self.count += 1
            plen = struct.unpack("!H", ip[4:6])[0]
            if ip[0] >> 4 != 6:
                self.bad("outer", "IPv6 version %d" % (ip[0] >> 4))
            elif plen != len(ip) - 40:
                self.bad("outer", "payload length %d of %d"
                         % (plen, len(ip) - 40))
            elif nh != (17 if self.udp else 47) or ip[7] == 0:
                self.bad("outer", "next header %d or hop limit 0" % nh)
            else:
                self.good("outer")
            return nh, ip[40:40 + plen]
        return None

    def udp_payload(self, l4):
        if len(l4) < 8:
            self.bad("outer", "UDP header cut")
            return None
        dport, ulen, check = struct.unpack("!2xHHH", l4[:8])
        if dport != GRE_UDP_PORT or ulen != len(l4):
            self.bad("outer", "UDP port %d length %d of %d"
                     % (dport, ulen, len(l4)))
            return None
        if check == 0:
            if self.fam == 6:
                self.bad("udp_csum", "zero over IPv6")
            elif self.a.no_udp_csum:
                self.good("udp_csum")
            else:
                self.bad("udp_csum", "zero, but gsotun sends checksums")
        elif self.a.no_udp_csum and self.fam == 4:
            self.bad("udp_csum", "%#06x, but gsotun runs --no-csum" % check)
        elif inet_sum(l4, pseudo(self.src, self.dst, 17, len(l4))) != 0xFFFF:
            self.bad("udp_csum", "%#06x is wrong" % check)
        else:
            self.good("udp_csum")
        return l4[8:]

    def gre(self, g):
        """The inner packet of GRE header g, its fields checked."""
        if len(g) < 4:
            self.bad("gre_proto", "GRE header cut")
            return None
        flags, proto = struct.unpack("!HH", g[:4])
        want = self.want_flags()
        opt = 4
        if flags & ~(GRE_C | GRE_K | GRE_S) or flags & GRE_VER:
            self.bad("gre_proto", "flags %#06x" % flags)
        if bool(flags & GRE_C) != bool(want & GRE_C):
            self.bad("gre_csum", "C bit %d" % bool(flags & GRE_C))
        elif flags & GRE_C:
            if inet_sum(g) != 0xFFFF:
                self.bad("gre_csum", "checksum %#06x is wrong"
                         % struct.unpack("!H", g[4:6])[0])
            elif g[6:8] != b"\0\0":
                self.bad("gre_csum", "Reserved1 not zero")
            else:
                self.good("gre_csum")
            opt += 4
        else:
            self.good("gre_csum")
        if bool(flags & GRE_K) != bool(want & GRE_K):
            self.bad("gre_key", "K bit %d" % bool(flags & GRE_K))
        elif flags & GRE_K:
            key = struct.unpack("!I", g[opt:opt + 4])[0]
            if key != self.a.key:
                self.bad("gre_key", "key %d, want %d" % (key, self.a.key))
            else:
                self.good("gre_key")
            opt += 4
        else:
            self.good("gre_key")
        if bool(flags & GRE_S) != bool(want & GRE_S):
            self.bad("gre_seq", "S bit %d" % bool(flags & GRE_S))
        elif flags & GRE_S:
            seq = struct.unpack("!I", g[opt:opt + 4])[0]
            last = self.last_seq
            self.last_seq = seq
            if last is not None and seq != (last + 1) & 0xFFFFFFFF:
                self.bad("gre_seq", "%d after %d" % (seq, last))
            else:
                self.good("gre_seq")
            opt += 4
        else:
            self.good("gre_seq")
        inner = g[opt:]
        version = inner[0] >> 4 if inner else 0
        if (proto, version) not in ((ETH_P_IP, 4), (ETH_P_IPV6, 6)):
            self.bad("gre_proto", "protocol %#06x over IP version %d"
                     % (proto, version))
        else:
            self.good("gre_proto")
        return inner

    def want_flags(self):
        f = GRE_C if self.a.csum else 0
        if self.a.key is not None:
            f |= GRE_K
        if self.a.seq:
            f |= GRE_S
        return f

    def inner(self, p):
        """The IP packet's lengths and checksums, summed here."""
        why = inner_fault(p)
        if why:
            self.bad("inner", why)
        else:
            self.good("inner")

    def frame(self, f):
        """Check frame f; its inner IP packet if it came from gsotun."""
        got = self.outer(f)
        if got is None:
            return None
        l4 = got[1]
        if self.udp:
            l4 = self.udp_payload(l4)
            if l4 is None:
                return None
        inner = self.gre(l4)
        if inner:
            self.inner(inner)
        return inner

    def report(self):
        for prop in self.PROPS:
            if prop == "udp_csum" and not self.udp:
                continue
            res = "fail " + self.fault[prop] if prop in self.fault else "ok"
            print("prop %s %d %s" % (prop, self.n[prop], res), flush=True)
        print("end", flush=True)


def l4_sum_ok(proto, src, dst, l4):
    if proto == 1:
        return inet_sum(l4) == 0xFFFF
    if proto == 17 and len(src) == 4 and l4[6:8] == b"\0\0":
        return True
    return inet_sum(l4, pseudo(src, dst, proto, len(l4))) == 0xFFFF


def inner_fault(p):
    """What is wrong with inner IP packet p, or None."""
    if p[0] >> 4 == 4:
        if len(p) < 20 or p[0] & 0xF != 5:
            return "inner IPv4 header cut or with options"
        tot = struct.unpack("!H", p[2:4])[0]
        if tot != len(p):
            return "inner IPv4 length %d of %d" % (tot, len(p))
        if inet_sum(p[:20]) != 0xFFFF:
            return "inner IPv4 header checksum wrong"
        proto, src, dst, l4 = p[9], p[12:16], p[16:20], p[20:]
    elif p[0] >> 4 == 6:
        if len(p) < 40:
            return "inner IPv6 header cut"
        plen = struct.unpack("!H", p[4:6])[0]
        if plen != len(p) - 40:
            return "inner IPv6 length %d of %d" % (plen, len(p) - 40)
        proto, src, dst, l4 = p[6], p[8:24], p[24:40], p[40:]
    else:
        return "inner IP version %d" % (p[0] >> 4)
    if proto in (1, 6, 17, 58) and not l4_sum_ok(proto, src, dst, l4):
        return "inner protocol %d checksum wrong" % proto
    return None


def answer_of(p, idx):
    """Is IP packet p gsotun's end answering case idx? An echo reply, an
    ICMP port unreachable quoting the datagram, or a SYN-ACK."""
    m = struct.pack("!H", MARK + idx)
    if p[0] >> 4 == 4 and len(p) >= 20:
        proto, l4 = p[9], p[(p[0] & 0xF) * 4:]
        if proto == 1 and l4[:1] == b"\0":
            return l4[4:6] == m
        if proto == 1 and l4[:2] == b"\x03\x03" and len(l4) >= 36:
            q = l4[8:]  # the quoted IPv4 header and UDP header
            return q[9] == 17 and q[(q[0] & 0xF) * 4:][:2] == m
    elif p[0] >> 4 == 6 and len(p) >= 40:
        proto, l4 = p[6], p[40:]
        if proto == 58 and l4[:1] == b"\x81":
            return l4[4:6] == m
        if proto == 58 and l4[:2] == b"\x01\x04" and len(l4) >= 50:
            q = l4[8:]  # the quoted IPv6 header and UDP header
            return q[6] == 17 and q[40:42] == m
    else:
        return False
    # TCP: flags SYN and ACK, to the marker port
    return proto == 6 and len(l4) >= 20 and l4[2:4] == m and \
        l4[13] & 0x12 == 0x12


def same_packet(got, sent):
    """got is sent, but for a TCP or UDP checksum gsotun verified and
    then left to the kernel: NEEDS_CSUM, the field holding the pseudo-
    header sum (gsotun(8), CHECKSUMS ON RECEIVE)."""
    if got == sent:
        return True
    if len(got) != len(sent):
        return False
    if got[0] >> 4 == 4:
        proto, l4, src, dst = got[9], 20, got[12:16], got[16:20]
    else:
        proto, l4, src, dst = got[6], 40, got[8:24], got[24:40]
    off = {6: 16, 17: 6}.get(proto)
    if off is None:
        return False
    at = l4 + off
    seed = struct.pack("!H", pseudo(src, dst, proto, len(got) - l4))
    return got[:at] == sent[:at] and got[at + 2:] == sent[at + 2:] and \
        got[at:at + 2] == seed


# ------------------------------------------------------------ the cases


class Case:
    def __init__(self, name, kind, counter, pkts):
        """pkts: (gre bytes, outer UDP checksum, inner bytes) to send."""
        self.name = name
        self.kind = kind
        self.counter = counter
        self.pkts = pkts


def make_cases(a, g, inner):
    cases = []
    key_other = 0x5EED if a.key is None else (a.key + 1) & 0xFFFFFFFF
    over_ip6 = a.fam == 6
    base = g.flags()

    def add(name, kind, counter, build):
        idx = len(cases) + 1
        cases.append(Case(name, kind, counter, build(idx)))

    def one(mk, v6, proto=None, udp_csum=True, **kw):
        """One packet of inner packet mk(idx, v6) in GRE."""
        def build(idx):
            p = mk(idx, v6)
            pr = proto or (ETH_P_IPV6 if v6 else ETH_P_IP)
            return [(g.build(p, pr, **kw), udp_csum, p)]
        return build

    def train(mk, v6, n, flags):
        """n packets with incrementing GRE sequence numbers."""
        def build(idx):
            out = []
            for s in range(1, n + 1):
                p = mk(idx, v6, s)
                pr = ETH_P_IPV6 if v6 else ETH_P_IP
                out.append((g.build(p, pr, flags=flags), True, p))
            return out
        return build

    # What routers send: gsotun's own options, then more of them.
    k = " key %d" % a.key if a.key is not None else ""
    c = " checksum" if a.csum else ""
    add("IPv4 echo, GRE 0x0800%s%s" % (k, c), "good", "-",
        one(inner.echo, False))
    add("IPv6 echo, GRE 0x86DD%s%s" % (k, c), "good", "-",
        one(inner.echo, True))
    add("IPv4 UDP, GRE checksum%s" % k, "good", "-",
        one(inner.udp, False, flags=base | GRE_C))
    add("IPv6 TCP SYN, GRE checksum%s" % k, "good", "-",
        one(inner.syn, True, flags=base | GRE_C))
    add("3 IPv4 echoes, sequence numbers 1 2 3%s%s" % (k, c), "good", "-",
        train(inner.echo, False, 3, base | GRE_S))
    add("3 IPv6 UDP, checksum and sequence numbers%s" % k, "good", "-",
        train(inner.udp, True, 3, base | GRE_C | GRE_S))
    add("IPv4 TCP SYN, checksum and sequence number%s" % k, "good", "-",
        one(inner.syn, False, flags=base | GRE_C | GRE_S))
    if a.encap == "gre-udp" and not over_ip6:
        # RFC 8086 section 3.2: over IPv4 the UDP checksum may be zero.
        add("IPv4 echo in UDP with a zero checksum", "good",
            "rx_udp_csum_zero", one(inner.echo, False, udp_csum=False))
        add("IPv6 TCP SYN in UDP with a zero checksum", "good",
            "rx_udp_csum_zero",
            one(inner.syn, True, udp_csum=False))

    # Broken ones: each carries a packet the tun would take.
    add("GRE checksum wrong", "drop", "rx_drop_csum",
        one(inner.echo, False, flags=base | GRE_C, csum="bad"))
    add("key %d, not %s" % (key_other, a.key if a.key is not None
                            else "none"), "drop", "rx_drop_key",
        one(inner.echo, True, flags=base | GRE_K, key=key_other))
    if a.key is not None:
        add("no key", "drop", "rx_drop_key",
            one(inner.echo, False, flags=base & ~GRE_K))
    if a.csum:
        add("no checksum (--csum requires one)", "drop",
            "rx_drop_csum_missing",
            one(inner.echo, False, flags=base & ~GRE_C))

    def teb(idx):
        p = inner.echo(idx, False)
        frame = bytes(Ether(src="02:00:5e:00:53:02", dst="02:00:5e:00:53:01",
                            type=ETH_P_IP)) + p
        return [(g.build(frame, ETH_P_TEB), True, p)]

    add("TEB 0x6558 (an Ethernet frame) in tun mode", "drop",
        "rx_drop_gre_proto", teb)
    add("MPLS 0x8847", "drop", "rx_drop_gre_proto",
        one(inner.echo, False, proto=ETH_P_MPLS))
    add("0x0800 over an IPv6 packet", "drop", "rx_drop_inner_hdr",
        one(inner.echo, True, proto=ETH_P_IP))
    add("0x86DD over an IPv4 packet", "drop", "rx_drop_inner_hdr",
        one(inner.udp, False, proto=ETH_P_IPV6))

    def cut(idx):
        p = inner.echo(idx, False)
        whole = g.build(p, ETH_P_IP, flags=GRE_C | GRE_K | GRE_S, key=1)
        return [(whole[:10], True, p)]

    add("header cut: C, K and S flags in 10 bytes", "drop", "rx_drop_short",
        cut)
    return cases


# ------------------------------------------------------------ commands


class Router:
    def __init__(self, a):
        self.a = a
        self.wire = Wire(a)
        self.check = Checker(a)
        self.g = Gre(a)
        self.cases = make_cases(a, self.g, Inner(a))
        self.answers = []  # inner packets from gsotun not yet matched

    def poll(self, timeout=0.0):
        r, _, _ = select.select([self.wire.rx], [], [], timeout)
        if not r:
            return
        for f in self.wire.frames():
            inner = self.check.frame(f)
            if inner:
                self.answers.append(inner)

    def take_answers(self, idx):
        n = 0
        rest = []
        for p in self.answers:
            if answer_of(p, idx):
                n += 1
            else:
                rest.append(p)
        self.answers = rest
        return n

    def send(self, idx):
        c = self.cases[idx - 1]
        self.poll()
        for gre, udp_csum, _ in c.pkts:
            self.wire.send(gre, udp_csum)
        if c.kind != "good":
            self.wire.send(b"\0\0")
            print("sent %d" % idx, flush=True)
            return
        want, got = len(c.pkts), 0
        end = time.monotonic() + ANSWER_WAIT
        while got < want and time.monotonic() < end:
            self.poll(0.05)
            got += self.take_answers(idx)
        res = "ok" if got == want else "fail %d of %d answers" % (got, want)
        print("result %d %s" % (idx, res), flush=True)

    def verify(self, path):
        seen = {}
        stray = 0
        try:
            pkts = rdpcap(path)
        except Exception as ex:  # noqa: BLE001
            print("# rdpcap: %s" % ex, flush=True)
            pkts = []
        b_addrs = {self.a.in4.split(",")[0], self.a.in6.split(",")[0]}
        for p in pkts:
            raw = bytes(p)
            m = inner_mark(raw) if raw else None
            if m is None or m[1] not in b_addrs:
                continue
            idx = m[2] - MARK
            if not 1 <= idx <= len(self.cases):
                stray += 1
                continue
            seen.setdefault(idx, []).append(raw)
        for idx, c in enumerate(self.cases, 1):
            got = seen.get(idx, [])
            want = [p for _, _, p in c.pkts] if c.kind == "good" else []
            if len(got) != len(want):
                res = "fail %d packets in the tun, want %d" % (len(got),
                                                               len(want))
            elif all(same_packet(x, y) for x, y in zip(sorted(got),
                                                       sorted(want))):
                res = "ok"
            else:
                res = "fail a packet changed on the way"
            print("tun %d %s" % (idx, res), flush=True)
        print("stray %d" % stray)
        print("end", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ifname", required=True)
    ap.add_argument("--src-mac", required=True)
    ap.add_argument("--dst-mac", required=True)
    ap.add_argument("--fam", type=int, choices=(4, 6), required=True)
    ap.add_argument("--local", required=True)
    ap.add_argument("--remote", required=True)
    ap.add_argument("--encap", choices=("gre", "gre-udp"), required=True)
    ap.add_argument("--in4", required=True)
    ap.add_argument("--in6", required=True)
    ap.add_argument("--key", type=int)
    ap.add_argument("--csum", action="store_true")
    ap.add_argument("--seq", action="store_true")
    ap.add_argument("--no-udp-csum", action="store_true")
    a = ap.parse_args()

    r = Router(a)
    for idx, c in enumerate(r.cases, 1):
        print("case %d %s %s %d %s" % (idx, c.kind, c.counter, len(c.pkts),
                                       c.name))
    print("ready", flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "send":
            r.send(int(cmd[1]))
        elif cmd[0] == "wire":
            r.poll(0.2)
            r.check.report()
        elif cmd[0] == "verify":
            r.verify(cmd[1])
        elif cmd[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
