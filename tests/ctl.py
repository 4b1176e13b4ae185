#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of tests/control.sh, each a subcommand:

  ctl.py ask NAME REQUEST          a raw request (CR LF ended) to the
                                   abstract socket NAME; checks that the
                                   reply is "ok LEN" and LEN bytes, prints
                                   them
  ctl.py squat NAME SECONDS        bind and serve NAME as gsotun would not
  ctl.py hostile NAME SECONDS      clients that misbehave for SECONDS:
                                   garbage, a 1 MB request, a request sent
                                   and the reply never read, connections
                                   that say nothing; checks the answers to
                                   the first two
  ctl.py json FILE DUMP DEV        FILE is `gsotunctl stats --json` output;
                                   every counter of tunnel DEV is at most
                                   the one of the counters line DUMP
  ctl.py json-after FILE DUMP DEV  ... at least the dump's
  ctl.py metrics FILE DEV PEER     FILE is `gsotunctl metrics` output: it
                                   parses as the text exposition format and
                                   has DEV's counters and PEER's
"""
import json
import re
import socket
import sys
import time


def connect(name):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect("\0" + name)
    return s


def read_all(s):
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        data += chunk
    return data


def ask(name, request):
    s = connect(name)
    s.sendall(request.encode() + b"\r\n")
    reply = read_all(s)
    head, _, body = reply.partition(b"\n")
    m = re.match(rb"^ok (\d+)$", head)
    if not m or int(m.group(1)) != len(body):
        print("# reply %r, %d bytes after it" % (head[:60], len(body)))
        return False
    sys.stdout.write(body.decode(errors="replace"))
    return True


def squat(name, seconds):
    """A listener on gsotun's name that answers "ok" to anything."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + name)
    s.listen(4)
    s.settimeout(seconds)
    try:
        while True:
            c, _ = s.accept()
            c.sendall(b"ok 5\nfine\n")
            c.close()
    except socket.timeout:
        pass


def expect_error(name, payload, what):
    """payload sent; the reply must be "error 64 <what>..." """
    s = connect(name)
    try:
        s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server stopped reading once it had enough
    reply = read_all(s).decode(errors="replace")
    s.close()
    if not reply.startswith("error 64 " + what):
        print("# %r: reply %r" % (what, reply[:80]))
        return False
    return True


def hostile(name, seconds):
    ok = True
    idle = []
    end = time.time() + seconds
    while time.time() < end:
        ok &= expect_error(name, b"\x00\xff\x01garbage\r\n", "malformed")
        ok &= expect_error(name, b"x" * (1 << 20), "request too long")
        # A request whose reply is never read, and clients that say
        # nothing: held by gsotun until its timeout, never waited for.
        for req in (b"metrics\n", b""):
            try:
                s = connect(name)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.sendall(req)
                idle.append(s)
            except OSError:
                pass  # turned away: busy
        # Fewer than gsotun serves at once, so the two above are
        # answered; more are turned away (busy), which ask checks.
        while len(idle) > 12:
            idle.pop(0).close()
        time.sleep(0.05)
    for s in idle:
        s.close()
    return ok


def dump_counters(line):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


def json_tunnel(path, dev):
    with open(path) as f:
        doc = json.load(f)
    for key in ("version", "pid", "uptime", "encap", "tunnels", "peers"):
        if key not in doc:
            raise SystemExit("# no %s in the JSON" % key)
    for t in doc["tunnels"]:
        if t["dev"] == dev:
            if not re.match(r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$", t["mac"]):
                raise SystemExit("# mac %r" % t["mac"])
            return t["counters"]
    raise SystemExit("# no tunnel %s in the JSON" % dev)


def json_vs_dump(path, dump, dev, after):
    counters = json_tunnel(path, dev)
    line = dump_counters(dump)
    if set(counters) != set(line):
        print("# names differ: %s" % (set(counters) ^ set(line)))
        return False
    bad = [k for k in line
           if (counters[k] < line[k] if after else counters[k] > line[k])]
    if bad:
        print("# out of order with the dump: %s" %
              ", ".join("%s json %d dump %d" % (k, counters[k], line[k])
                        for k in bad[:5]))
        return False
    return True


NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(r"^(%s)(?:\{(.*)\})? (\S+)$" % NAME)


def parse_labels(text):
    labels = {}
    pos = 0
    while pos < len(text):
        m = re.compile(LABEL).match(text, pos)
        if not m:
            raise ValueError("bad labels: %r" % text)
        labels[m.group(1)] = m.group(2)
        pos = m.end()
        if pos < len(text):
            if text[pos] != ",":
                raise ValueError("bad labels: %r" % text)
            pos += 1
    return labels


def parse_metrics(path):
    """The text exposition format: # HELP / # TYPE lines, then the
    samples of that family, one per label set."""
    families = {}
    samples = []
    current = None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = re.match(r"^# (HELP|TYPE) (%s) (.*)$" % NAME, line)
            if m:
                kind, name, rest = m.groups()
                fam = families.setdefault(name, {})
                if kind in fam:
                    raise ValueError("line %d: second %s" % (n, kind))
                if kind == "TYPE" and rest not in ("counter", "gauge"):
                    raise ValueError("line %d: type %s" % (n, rest))
                if kind == "TYPE" and fam.get("samples"):
                    raise ValueError("line %d: TYPE after samples" % n)
                fam[kind] = rest
                current = name
                continue
            m = SAMPLE.match(line)
            if not m:
                raise ValueError("line %d: not a sample: %r" % (n, line))
            name, labels, value = m.groups()
            if name != current:
                raise ValueError("line %d: %s outside its family" %
                                 (n, name))
            fam = families[name]
            fam["samples"] = fam.get("samples", 0) + 1
            if fam.get("TYPE") == "counter" and not name.endswith("_total"):
                raise ValueError("line %d: counter %s" % (n, name))
            float(value)
            samples.append((name, parse_labels(labels or ""),
                            float(value)))
    return families, samples


def metrics(path, dev, peer):
    families, samples = parse_metrics(path)
    want = {("gsotun_tx_frames_total", "dev", dev),
            ("gsotun_rx_segments_total", "dev", dev),
            ("gsotun_rx_drop_vni_total", "dev", dev),
            ("gsotun_peer_tx_packets_total", "peer", peer),
            ("gsotun_peer_path_mtu", "peer", peer)}
    have = {(n, k, v) for n, labels, _ in samples
            for k, v in labels.items()}
    missing = want - have
    if missing:
        print("# missing: %s" % missing)
        return False
    for name, fam in families.items():
        if "HELP" not in fam or "TYPE" not in fam:
            print("# %s lacks HELP or TYPE" % name)
            return False
    tx = [v for n, labels, v in samples
          if n == "gsotun_tx_frames_total" and labels.get("dev") == dev]
    if not tx or tx[0] <= 0:
        print("# tx_frames_total of %s is %s" % (dev, tx))
        return False
    print("# %d families, %d samples" % (len(families), len(samples)))
    return True


def main():
    cmd = sys.argv[1]
    if cmd == "ask":
        return 0 if ask(sys.argv[2], sys.argv[3]) else 1
    if cmd == "squat":
        squat(sys.argv[2], float(sys.argv[3]))
        return 0
    if cmd == "hostile":
        return 0 if hostile(sys.argv[2], float(sys.argv[3])) else 1
    if cmd in ("json", "json-after"):
        ok = json_vs_dump(sys.argv[2], sys.argv[3], sys.argv[4],
                          cmd == "json-after")
        return 0 if ok else 1
    if cmd == "metrics":
        try:
            return 0 if metrics(sys.argv[2], sys.argv[3],
                                sys.argv[4]) else 1
        except ValueError as e:
            print("# %s" % e)
            return 1
    raise SystemExit("usage: see ctl.py's docstring")


if __name__ == "__main__":
    sys.exit(main())
