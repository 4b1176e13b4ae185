#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# RFC 6040 through gsotun, for tests/netns-ecn.sh: sends VXLAN packets with
# a CE outer header at a gsotun, and reads back what reached its tap; and
# a TCP run with CWR in the middle, which GRO must not merge across.
"""Usage: ecn.py send DST VNI     (in the peer's namespace)
       ecn.py check PCAP       (prints the inner ECN of each frame)
       ecn.py outer PCAP       (prints the outer TOS over echo requests)
       ecn.py cwr DST VNI      (in the peer's namespace)
       ecn.py runs PCAP        (prints the TCP frames to port 9100)

send: one VXLAN packet from this namespace to DST:4789 for each inner
ECN value 0..3 (UDP to port 9000 + the value, inner IPv4 and IPv6 each),
all with the outer ECN field CE.
check: for every IPv4/IPv6 UDP frame to ports 9000..9003 of PCAP, one
line "v4|v6 PORT ECN".
outer: for every VXLAN packet of an underlay PCAP that carries an ICMP
echo request, the outer TOS in hex.
cwr: five in-order TCP segments of SEG bytes to port 9100, the third with
CWR, inner IPv4 then IPv6, each five in one UDP_SEGMENT send of VXLAN
datagrams to DST:4789, which the receiver reads with one receive.
runs: for every IPv4/IPv6 TCP frame to port 9100 of PCAP, one line
"v4|v6 PAYLOAD cwr|-".
"""

import socket
import sys

from scapy.all import (ICMP, IP, TCP, UDP, VXLAN, Ether, IPv6, Raw, conf,
                       rdpcap, send)

CE = 3
SEG = 1000
SOL_UDP = 17
UDP_SEGMENT = 103


def inner_frames():
    for ecn in range(4):
        yield (Ether(src="02:00:5e:00:00:01", dst="ff:ff:ff:ff:ff:ff") /
               IP(src="10.12.0.9", dst="10.12.0.2", tos=0xb8 | ecn) /
               UDP(sport=5555, dport=9000 + ecn) / Raw(b"x" * 32))
        yield (Ether(src="02:00:5e:00:00:01", dst="ff:ff:ff:ff:ff:ff") /
               IPv6(src="fd00:10:12::9", dst="fd00:10:12::2",
                    tc=0xb8 | ecn) /
               UDP(sport=5555, dport=9000 + ecn) / Raw(b"x" * 32))


def do_send(dst, vni):
    conf.verb = 0
    for inner in inner_frames():
        send(IP(dst=dst, tos=CE) / UDP(sport=4789, dport=4789) /
             VXLAN(vni=vni, flags=0x08) / inner)


def do_check(pcap):
    for p in rdpcap(pcap):
        if UDP not in p or not 9000 <= p[UDP].dport <= 9003:
            continue
        if IP in p:
            print("v4", p[UDP].dport, p[IP].tos & 3)
        elif IPv6 in p:
            print("v6", p[UDP].dport, p[IPv6].tc & 3)


def do_outer(pcap):
    for p in rdpcap(pcap):
        if VXLAN not in p:
            continue
        inner = p[VXLAN].payload
        if ICMP in inner and inner[ICMP].type == 8:
            print(hex(p[IP].tos))


def tcp_run(ip):
    for i in range(5):
        flags = "AC" if i == 2 else "A"
        yield (Ether(src="02:00:5e:00:00:01", dst="ff:ff:ff:ff:ff:ff") /
               ip(i) / TCP(sport=5555, dport=9100, seq=1000 + i * SEG,
                           ack=1, flags=flags, window=512) /
               Raw(bytes([i]) * SEG))


def do_cwr(dst, vni):
    v4 = tcp_run(lambda i: IP(src="10.12.0.9", dst="10.12.0.2", id=i + 1,
                              flags="DF"))
    v6 = tcp_run(lambda _: IPv6(src="fd00:10:12::9", dst="fd00:10:12::2"))
    for run in (v4, v6):
        grams = [bytes(VXLAN(vni=vni, flags=0x08) / f) for f in run]
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(SOL_UDP, UDP_SEGMENT, len(grams[0]))
        s.connect((dst, 4789))
        s.send(b"".join(grams))
        s.close()


def do_runs(pcap):
    for p in rdpcap(pcap):
        if TCP not in p or p[TCP].dport != 9100:
            continue
        cwr = "cwr" if p[TCP].flags & 0x80 else "-"
        print("v4" if IP in p else "v6", len(p[TCP].payload), cwr)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "send":
        do_send(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        do_check(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "outer":
        do_outer(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "cwr":
        do_cwr(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "runs":
        do_runs(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
