#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Bulk UDP the way QUIC stacks send it, with every datagram checked.

  udpgso.py recv ADDR PORT SECONDS [SIZE]
      bind, read with UDP_GRO for at most SECONDS (or until the sender's
      end marker and 0.3 s with nothing after it); print one line of
      key=value results
  udpgso.py send ADDR PORT COUNT [SIZE [PER_SEND]]
      COUNT datagrams of SIZE bytes (default 1400), PER_SEND (default 40)
      a send (UDP_SEGMENT), then an end marker

Each datagram holds its sequence number (8 bytes), the SHA-256 of the
rest, and bytes derived from the sequence number: the receiver finds
corrupt, duplicate, lost and foreign datagrams. It also reports how many
datagrams the largest single receive carried (UDP_GRO's segment size
cmsg): more than one means super-datagrams reached the socket.
"""
import hashlib
import socket
import struct
import sys
import time

SOL_UDP = 17
UDP_SEGMENT = 103
UDP_GRO = 104
SIZE = 1400  # changed by the command line
PER_SEND = 40
END = 0xFFFFFFFFFFFFFFFF


def datagram(seq):
    body = bytes((seq * 7 + i) & 0xFF for i in range(SIZE - 40))
    head = struct.pack("!Q", seq)
    return head + hashlib.sha256(head + body).digest() + body


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def send(addr, port, count):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(SOL_UDP, UDP_SEGMENT, SIZE)
    s.connect((addr, port))
    seq = 0
    while seq < count:
        n = min(PER_SEND, count - seq)
        s.send(b"".join(datagram(seq + i) for i in range(n)))
        seq += n
        # Paced: the point is what arrives, not how fast it is offered.
        time.sleep(0.002)
    s.setsockopt(SOL_UDP, UDP_SEGMENT, 0)
    # Several, in case one is lost; the receiver stops at the first.
    for _ in range(10):
        s.send(struct.pack("!Q", END))
        time.sleep(0.02)


class Tally:
    def __init__(self):
        self.seen = set()
        self.bad = self.dup = self.max_segs = self.recvs = 0
        self.end = False

    def one(self, d):
        if len(d) == 8 and struct.unpack("!Q", d)[0] == END:
            self.end = True
            return
        seq = struct.unpack("!Q", d[:8])[0] if len(d) >= 8 else -1
        if len(d) != SIZE or d != datagram(seq):
            self.bad += 1
        elif seq in self.seen:
            self.dup += 1
        else:
            self.seen.add(seq)

    def receive(self, data, anc):
        size = len(data)
        for level, kind, value in anc:
            if level == SOL_UDP and kind == UDP_GRO:
                size = struct.unpack("=H", value[:2])[0] or len(data)
        n = 0
        for off in range(0, len(data), size):
            self.one(data[off:off + size])
            n += 1
        self.recvs += 1
        self.max_segs = max(self.max_segs, n)


def recv(addr, port, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(SOL_UDP, UDP_GRO, 1)
    s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
    s.bind((addr, port))
    print("listening", flush=True)
    t = Tally()
    deadline = time.monotonic() + seconds
    s.settimeout(1.0)
    while time.monotonic() < deadline:
        try:
            data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(2))
        except socket.timeout:
            if t.end:
                break
            continue
        t.receive(data, anc)
        # The end marker left after every datagram: what is still on
        # its way comes within a few ms, the other markers after it.
        if t.end:
            s.settimeout(0.3)
    top = max(t.seen) + 1 if t.seen else 0
    print("received=%d lost=%d dup=%d bad=%d max_segs=%d recvs=%d end=%d"
          % (len(t.seen), top - len(t.seen), t.dup, t.bad, t.max_segs,
             t.recvs, t.end))


def main():
    global SIZE, PER_SEND
    if len(sys.argv) not in (5, 6, 7) or sys.argv[1] not in ("send", "recv"):
        sys.exit(__doc__)
    addr, port, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if len(sys.argv) >= 6:
        SIZE = int(sys.argv[5])
    if len(sys.argv) == 7:
        PER_SEND = int(sys.argv[6])
    if sys.argv[1] == "send":
        send(addr, port, n)
    else:
        recv(addr, port, n)


if __name__ == "__main__":
    main()
