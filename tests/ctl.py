#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of tests/control.sh, each a subcommand:

  ctl.py ask NAME REQUEST          a raw request (CR LF ended) to the
                                   abstract socket NAME; checks that the
                                   reply is "ok" and chunks that end in
                                   one of size 0, prints what they hold
  ctl.py squat NAME SECONDS [bind] bind and serve NAME as gsotun would not
                                   (with bind: bound, never listened on)
  ctl.py fdb-loop NAME N SECONDS   N clients asking "fdb show" over and
                                   over for SECONDS; prints the replies
                                   and the fewest lines one had
  ctl.py churn NAME PEER SECONDS   for SECONDS, over and over: peer add
                                   PEER, 400 static entries to it, peer
                                   del PEER (which takes them away);
                                   prints the rounds
  ctl.py idle NAME N SECONDS GO    N clients that say nothing; prints
                                   "connected", and once the file GO is
                                   there, how many gsotun waits for and
                                   how many it turned away (busy); then
                                   holds them for SECONDS
  ctl.py hold NAME N SECONDS       N clients that ask "fdb show" and read
                                   nothing for SECONDS; then prints how
                                   many gsotun let go (their reply cut
                                   short) and how many bytes they had
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
  ctl.py json-check FILE MAN WANT...
                                   FILE is one JSON object whose field
                                   names gsotunctl(8), MAN, documents (all
                                   but a tunnel's and a peer's counters);
                                   each WANT is PATH=VALUE, PATH keys and
                                   indexes (tunnels.0.vni) or PATH# for a
                                   length, VALUE as JSON (2, "gt0", null)
  ctl.py fdb-json FILE             FILE is `gsotunctl fdb show --json`
                                   output: each entry's fields of their
                                   type; prints "N static, M learnt"
  ctl.py json-get FILE PATH        prints the value at PATH (as json-check
                                   names it) of the JSON object in FILE,
                                   as JSON
  ctl.py metric FILE NAME LABEL=VALUE...
                                   prints the value of the sample of NAME
                                   with those labels (among others) in
                                   FILE, `gsotunctl metrics` output;
                                   fails if there is none
  ctl.py metrics-man FILE MAN      every family of FILE (metrics output)
                                   and each of its labels, and each value
                                   of a type or cause label, is in the
                                   METRICS section of gsotunctl(8), MAN
"""
import json
import os
import re
import socket
import sys
import threading
import time


def connect(name):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect("\0" + name)
    return s


def read_all(s):
    parts = []
    while True:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        parts.append(chunk)
    return b"".join(parts)


def unchunk(reply):
    """What an "ok" reply holds, or None if it is not one, whole: its
    chunks, each a size line and that many bytes, the last of size 0
    (or "ok LEN" and LEN bytes, as gsotun 0.1 answered)."""
    head, _, rest = reply.partition(b"\n")
    m = re.match(rb"^ok (\d+)$", head)
    if m:
        return rest if int(m.group(1)) == len(rest) else None
    if head != b"ok":
        return None
    parts = []
    at = 0
    while True:
        nl = rest.find(b"\n", at)
        if nl < 0 or not re.match(rb"^\d+$", rest[at:nl]):
            return None
        n = int(rest[at:nl])
        at = nl + 1
        if n == 0:
            return b"".join(parts) if at == len(rest) else None
        if len(rest) < at + n:
            return None
        parts.append(rest[at:at + n])
        at += n


def ask(name, request):
    s = connect(name)
    s.sendall(request.encode() + b"\r\n")
    reply = read_all(s)
    body = unchunk(reply)
    if body is None:
        print("# reply %r, %d bytes" % (reply[:60], len(reply)))
        return False
    sys.stdout.write(body.decode(errors="replace"))
    return True


def squat(name, seconds, bind_only=False):
    """A listener on gsotun's name that answers "ok" to anything; or a
    socket bound to it and nothing more, which holds it as well."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + name)
    if bind_only:
        time.sleep(seconds)
        return
    s.listen(4)
    s.settimeout(seconds)
    try:
        while True:
            c, _ = s.accept()
            try:
                c.sendall(b"ok 5\nfine\n")
            except OSError:
                pass  # gsotunctl did not trust it, and went
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


def fdb_loop(name, clients, seconds):
    """clients threads asking "fdb show" until seconds are over."""
    end = time.time() + seconds
    done = []
    bad = []

    def client():
        while time.time() < end:
            s = connect(name)
            s.settimeout(30)
            s.sendall(b"fdb show\n")
            body = unchunk(read_all(s))
            s.close()
            if body is None:
                bad.append(1)
                return
            done.append(body.count(b"\n"))

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("%d replies, %d broken, fewest lines %d" %
          (len(done), len(bad), min(done) if done else 0))
    return not bad


def request(name, line):
    s = connect(name)
    s.sendall(line.encode() + b"\n")
    body = unchunk(read_all(s))
    s.close()
    if body is None:
        raise SystemExit("# %s: refused" % line)


def churn(name, peer, seconds):
    """Entries that come and go all over the table while it is read."""
    end = time.time() + seconds
    rounds = 0
    while time.time() < end:
        request(name, "peer add " + peer)
        for i in range(400):
            request(name, "fdb add 02:00:5f:00:%02x:%02x=%s" %
                    (i >> 8, i & 0xff, peer))
        request(name, "peer del " + peer)
        rounds += 1
    print("%d rounds" % rounds)
    return rounds > 0


def idle(name, clients, seconds, go):
    """gsotun turns a client away as it accepts it, with a line: once GO
    is there (made after a request of root's that came later was
    answered), each client has that line or is waited for, whatever the
    load; no wait for a line that may not come decides it."""
    socks = [connect(name) for _ in range(clients)]
    print("connected")
    sys.stdout.flush()
    end = time.time() + 60
    while not os.path.exists(go) and time.time() < end:
        time.sleep(0.02)
    waiting = 0
    busy = []
    for s in socks:
        s.setblocking(False)
        try:
            busy.append(s.recv(200).decode(errors="replace").strip())
        except BlockingIOError:
            waiting += 1
    print("%d waiting, %d busy%s" % (waiting, len(busy),
                                     ": " + busy[0] if busy else ""))
    sys.stdout.flush()
    time.sleep(seconds)
    return True


def hold(name, clients, seconds):
    """Requests whose replies nobody reads, for seconds; then whether
    gsotun let go of them."""
    socks = []
    for _ in range(clients):
        s = connect(name)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"fdb show\n")
        socks.append(s)
    time.sleep(seconds)
    dropped = held = 0
    for s in socks:
        s.settimeout(1)
        data = b""
        closed = False
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
        held += len(data)
        # Let go: the end came, and not that of a whole reply.
        if closed and unchunk(data) is None:
            dropped += 1
        s.close()
    print("%d of %d let go, %d bytes in all" % (dropped, clients, held))
    return True


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


def man_json_names(man):
    """The field names of the JSON section of gsotunctl(8)."""
    with open(man) as f:
        text = f.read()
    section = text.split("\n.SH JSON\n", 1)[1].split("\n.SH ", 1)[0]
    return set(re.findall(r'"([a-z_]+)":', section))


def json_names(value, skip=("counters", "queues", "drops")):
    """Every field name in value, but inside counters (and a tap's
    queues', which are counters)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            if k not in skip:
                yield from json_names(v)
    elif isinstance(value, list):
        for v in value:
            yield from json_names(v)


def json_at(doc, path):
    for key in path.split("."):
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    return doc


def json_check(path, man, wants):
    with open(path) as f:
        doc = json.load(f)
    unknown = set(json_names(doc)) - man_json_names(man)
    if unknown:
        print("# not in gsotunctl(8): %s" % ", ".join(sorted(unknown)))
        return False
    ok = True
    for want in wants:
        where, _, text = want.partition("=")
        try:
            if where.endswith("#"):
                got = len(json_at(doc, where[:-1]))
            else:
                got = json_at(doc, where)
        except (KeyError, IndexError, TypeError) as e:
            print("# %s: no %s" % (where, e))
            ok = False
            continue
        if got != json.loads(text):
            print("# %s is %r, not %s" % (where, got, text))
            ok = False
    return ok


def fdb_json(path):
    with open(path) as f:
        doc = json.load(f)
    counts = [0, 0]
    for e in doc["fdb"]:
        good = (set(e) == {"mac", "vlan", "dst", "dev", "source", "static",
                           "age_seconds"} and
                e["source"] in ("static", "learnt", "evpn") and
                (e["source"] == "learnt") != e["static"] and
                re.match(r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$", e["mac"]) and
                (e["vlan"] is None or 1 <= e["vlan"] <= 4094) and
                isinstance(e["dst"], str) and isinstance(e["dev"], str) and
                isinstance(e["static"], bool) and
                (e["age_seconds"] is None) == e["static"] and
                (e["static"] or e["age_seconds"] >= 0))
        if not good:
            print("# a bad entry: %r" % e)
            return False
        counts[e["static"]] += 1
    print("%d static, %d learnt" % (counts[1], counts[0]))
    return True


def json_get(path, where):
    with open(path) as f:
        doc = json.load(f)
    try:
        print(json.dumps(json_at(doc, where)))
    except (KeyError, IndexError, TypeError) as e:
        print("# %s: no %s" % (where, e))
        return False
    return True


def metric(path, name, wants):
    _, samples = parse_metrics(path)
    want = dict(w.split("=", 1) for w in wants)
    for n, labels, value in samples:
        if n == name and all(labels.get(k) == v for k, v in want.items()):
            print(repr(value) if value != int(value) else int(value))
            return True
    print("# no %s with %s" % (name, want))
    return False


def man_metrics_text(man):
    """The METRICS section of gsotunctl(8), its font escapes dropped."""
    with open(man) as f:
        text = f.read()
    section = text.split("\n.SH METRICS\n", 1)[1].split("\n.SH ", 1)[0]
    section = re.sub(r"\\f[BIRP]", "", section).replace("\\-", "-")
    return re.sub(r"^\.[A-Z]+ ?", "", section, flags=re.M)


def metrics_man(path, man):
    """What gsotun gives is what gsotunctl(8) says: each gauge and each
    family with labels other than dev and peer is named in its METRICS
    section, as each label is, and each value of a type label; the
    counters labelled dev (and peer) are its gsotun_NAME_total and
    gsotun_peer_NAME_total; a cause is a tap's drop counter."""
    families, samples = parse_metrics(path)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", man_metrics_text(man)))
    labels_of = {}
    for name, labels, _ in samples:
        labels_of.setdefault(name, set()).update(labels)
    ok = True
    for name, fam in families.items():
        plain = labels_of.get(name, set()) <= {"dev", "peer"}
        if name in words or (fam.get("TYPE") == "counter" and plain):
            continue
        print("# %s is not in gsotunctl(8) METRICS" % name)
        ok = False
    for name, labels, _ in samples:
        for k, v in labels.items():
            if k not in words:
                print("# label %s of %s is not in gsotunctl(8)" % (k, name))
                ok = False
            if k == "type" and v not in words:
                print("# type=\"%s\" of %s is not in gsotunctl(8)" %
                      (v, name))
                ok = False
            if k == "cause" and "gsotun_%s_total" % v not in families:
                print("# cause=\"%s\" of %s is no tap's counter" %
                      (v, name))
                ok = False
    return ok


def main():
    cmd = sys.argv[1]
    if cmd == "ask":
        return 0 if ask(sys.argv[2], sys.argv[3]) else 1
    if cmd == "squat":
        squat(sys.argv[2], float(sys.argv[3]),
              len(sys.argv) > 4 and sys.argv[4] == "bind")
        return 0
    if cmd == "fdb-loop":
        return 0 if fdb_loop(sys.argv[2], int(sys.argv[3]),
                             float(sys.argv[4])) else 1
    if cmd == "churn":
        return 0 if churn(sys.argv[2], sys.argv[3],
                          float(sys.argv[4])) else 1
    if cmd == "idle":
        return 0 if idle(sys.argv[2], int(sys.argv[3]),
                         float(sys.argv[4]), sys.argv[5]) else 1
    if cmd == "hold":
        return 0 if hold(sys.argv[2], int(sys.argv[3]),
                         float(sys.argv[4])) else 1
    if cmd == "hostile":
        return 0 if hostile(sys.argv[2], float(sys.argv[3])) else 1
    if cmd in ("json", "json-after"):
        ok = json_vs_dump(sys.argv[2], sys.argv[3], sys.argv[4],
                          cmd == "json-after")
        return 0 if ok else 1
    if cmd == "json-check":
        return 0 if json_check(sys.argv[2], sys.argv[3], sys.argv[4:]) else 1
    if cmd == "fdb-json":
        return 0 if fdb_json(sys.argv[2]) else 1
    if cmd == "json-get":
        return 0 if json_get(sys.argv[2], sys.argv[3]) else 1
    if cmd in ("metric", "metrics-man"):
        try:
            if cmd == "metric":
                ok = metric(sys.argv[2], sys.argv[3], sys.argv[4:])
            else:
                ok = metrics_man(sys.argv[2], sys.argv[3])
        except ValueError as e:
            print("# %s" % e)
            return 1
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
