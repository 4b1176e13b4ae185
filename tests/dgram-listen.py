#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for a service manager's notification socket (sd_notify(3))
or for syslog's /dev/log: an AF_UNIX datagram socket that writes what it
receives to a log, one line per datagram:

    PID <TAB> MONOTONIC_USEC <TAB> TEXT

PID is the sender's (SCM_CREDENTIALS), MONOTONIC_USEC when it was sent
(the kernel's SO_TIMESTAMPNS stamp on the clock of CLOCK_MONOTONIC, so
that it can be compared with the times of other processes), TEXT the
datagram with its newlines written as "|".

With NS and DEV, a datagram that says READY=1 freezes its sender
(SIGSTOP) while the device's state is recorded, then lets it go on:

    link <TAB> `ip -n NS -o link show dev DEV`
    addr <TAB> `ip -n NS -o addr show dev DEV`

so that a test sees what was set up when readiness was announced.

Usage: dgram-listen.py SOCKET LOG [NS DEV]
SOCKET is a path, or @name for the abstract namespace. Runs until killed.
"""

import os
import signal
import socket
import struct
import subprocess
import sys
import time

# socket has no name for it; SO_TIMESTAMPNS_OLD, a struct timespec.
SO_TIMESTAMPNS = getattr(socket, 'SO_TIMESTAMPNS', 35)

def ip_show(ns, what, dev):
    out = subprocess.run(['ip', '-n', ns, '-o', what, 'show', 'dev', dev],
                         capture_output=True, text=True, check=False)
    return ' '.join((out.stdout + out.stderr).split())


def sent_usec(anc):
    """The kernel's stamp (CLOCK_REALTIME) as CLOCK_MONOTONIC, or now."""
    # Real first: the offset errs towards a later send, never earlier.
    real = time.clock_gettime_ns(time.CLOCK_REALTIME)
    mono = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    for level, kind, value in anc:
        if (level, kind) == (socket.SOL_SOCKET, SO_TIMESTAMPNS):
            sec, nsec = struct.unpack('qq', value[:16])
            return (sec * 10**9 + nsec - (real - mono)) // 1000
    return mono // 1000


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    name, log = sys.argv[1], sys.argv[2]
    ns, dev = (sys.argv[3], sys.argv[4]) if len(sys.argv) == 5 else (None,
                                                                   None)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind('\0' + name[1:] if name.startswith('@') else name)
    creds = (socket.CMSG_SPACE(struct.calcsize('3i')) +
             socket.CMSG_SPACE(struct.calcsize('qq')))
    with open(log, 'a', buffering=1, encoding='utf-8') as out:
        out.write('listening\n')
        while True:
            data, anc, _, _ = sock.recvmsg(65536, creds)
            usec = sent_usec(anc)
            pid = 0
            for level, kind, value in anc:
                if (level, kind) == (socket.SOL_SOCKET,
                                     socket.SCM_CREDENTIALS):
                    pid = struct.unpack('3i', value[:12])[0]
            text = data.decode('utf-8', 'replace').rstrip('\n')
            if ns and pid and 'READY=1' in text.split('\n'):
                os.kill(pid, signal.SIGSTOP)
                try:
                    out.write(f'link\t{ip_show(ns, "link", dev)}\n')
                    out.write(f'addr\t{ip_show(ns, "addr", dev)}\n')
                finally:
                    os.kill(pid, signal.SIGCONT)
            text = text.replace('\n', '|')
            out.write(f'{pid}\t{usec}\t{text}\n')


if __name__ == '__main__':
    main()
