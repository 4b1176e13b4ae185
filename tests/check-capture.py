#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Capture check for the namespace tests: has tshark validate every checksum
# of an underlay capture and prints the counts as name=value words.
"""Usage: check-capture.py PCAP [DECODE-AS...]

Runs tshark once over PCAP with TCP, UDP and IPv4 checksum validation on
(GRE checksums are always validated) and prints, on one line:

  frames max_len oversize          frames, longest frame, frames > 1514
  tcp_good tcp_bad tcp_unverified  inner TCP checksum status
  udp_good udp_bad udp_zero udp_total   outer UDP checksums (zero = absent)
  ip_good ip_bad                   every IPv4 header checksum (outer, inner)
  gre_total gre_csum gre_good gre_bad   GRE headers, with C bit, status

DECODE-AS arguments go to tshark -d (e.g. udp.port==4754,gre).
Wireshark's checksum status: 0 bad, 1 good, 2 unverified.
"""

import subprocess
import sys

FIELDS = [
    "frame.len",
    "tcp.checksum.status",
    "udp.checksum.status",
    "udp.checksum",
    "ip.checksum.status",
    "gre.flags.checksum",
    "gre.checksum.status",
]

# An Ethernet frame carrying at most 1500 bytes of IP.
MAX_FRAME = 1514


def run_tshark(pcap, decode_as):
    cmd = ["tshark", "-n", "-r", pcap,
           "-o", "tcp.check_checksum:TRUE",
           "-o", "udp.check_checksum:TRUE",
           "-o", "ip.check_checksum:TRUE",
           "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=a",
           "-E", "aggregator=;"]
    for d in decode_as:
        cmd += ["-d", d]
    for f in FIELDS:
        cmd += ["-e", f]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True, check=False)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("tshark failed with status %d" % res.returncode)
    return res.stdout


def tally(out):
    c = dict.fromkeys(
        ["frames", "max_len", "oversize",
         "tcp_good", "tcp_bad", "tcp_unverified",
         "udp_good", "udp_bad", "udp_zero", "udp_total",
         "ip_good", "ip_bad",
         "gre_total", "gre_csum", "gre_good", "gre_bad"], 0)
    status = {"0": "_bad", "1": "_good", "2": "_unverified"}
    for line in out.splitlines():
        col = line.split("\t")
        col += [""] * (len(FIELDS) - len(col))
        vals = dict(zip(FIELDS, (v.split(";") if v else [] for v in col)))
        flen = int(vals["frame.len"][0])
        c["frames"] += 1
        c["max_len"] = max(c["max_len"], flen)
        if flen > MAX_FRAME:
            c["oversize"] += 1
        for s in vals["tcp.checksum.status"]:
            key = "tcp" + status.get(s, "_unverified")
            c[key] += 1
        for s, v in zip(vals["udp.checksum.status"], vals["udp.checksum"]):
            c["udp_total"] += 1
            if int(v, 16) == 0:
                c["udp_zero"] += 1
            elif s == "0":
                c["udp_bad"] += 1
            elif s == "1":
                c["udp_good"] += 1
        for s in vals["ip.checksum.status"]:
            if s == "0":
                c["ip_bad"] += 1
            elif s == "1":
                c["ip_good"] += 1
        for f in vals["gre.flags.checksum"]:
            c["gre_total"] += 1
            if f in ("1", "True"):
                c["gre_csum"] += 1
        for s in vals["gre.checksum.status"]:
            if s == "0":
                c["gre_bad"] += 1
            elif s == "1":
                c["gre_good"] += 1
    return c


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    c = tally(run_tshark(sys.argv[1], sys.argv[2:]))
    print(" ".join("%s=%d" % kv for kv in c.items()))


if __name__ == "__main__":
    main()
