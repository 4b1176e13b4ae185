#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Capture check for the namespace tests: has tshark validate every checksum
# of an underlay capture and prints the counts as name=value words.
"""Usage: check-capture.py PCAP [DECODE-AS...]

Runs tshark once over PCAP with TCP, UDP and IPv4 checksum validation on
(GRE checksums are always validated) and prints, on one line:

  frames max_len oversize          frames, longest frame, frames > 1514
  tcp_good tcp_bad tcp_unverified  inner TCP checksum status
  tcp_ffff                         of the good ones, 0xffff for 0x0000
  udp_good udp_bad udp_zero udp_total   outer UDP checksums (zero = absent)
  ip_good ip_bad                   every IPv4 header checksum (outer, inner)
  gre_total gre_csum gre_good gre_bad   GRE headers, with C bit, status
  gpe_total gpe_ipv4 gpe_ipv6 gpe_eth gpe_4790   VXLAN-GPE headers, by next
                                   protocol (1, 2, 3), in datagrams to 4790
  gpe_ip                           of them IP (1 or 2): a tun's
  geneve_total geneve_v0 geneve_eth geneve_ip geneve_vni42 geneve_opts
  geneve_0102 geneve_6081          Geneve headers: of version 0, by
                                   protocol type (0x6558; 0x0800 or
                                   0x86dd), of VNI 42, with options;
                                   options of class 0x0102; headers in
                                   datagrams to 6081
  geneve_ipv4 geneve_ipv6          of them 0x0800 over an IPv4 packet,
                                   0x86dd over an IPv6 one
  bad_frames                       numbers of the first frames with a bad
                                   checksum (tshark -r PCAP -Y frame.number==N)

DECODE-AS arguments go to tshark -d (e.g. udp.port==4754,gre).
Wireshark's checksum status: 0 bad, 1 good, 2 unverified. Wireshark calls
a TCP checksum of 0xffff where it computes 0x0000 bad (RFC 1624), but the
two are the same number in one's complement, every receiver accepts both,
and the kernel writes 0xffff itself (skb_checksum_help() stores
CSUM_MANGLED_0 for a folded 0): those count as good, and as tcp_ffff.
"""

import subprocess
import sys

FIELDS = [
    "frame.number",
    "frame.len",
    "tcp.checksum.status",
    "tcp.checksum",
    "tcp.checksum_calculated",
    "udp.checksum.status",
    "udp.checksum",
    "ip.checksum.status",
    "gre.flags.checksum",
    "gre.checksum.status",
    "vxlan.next_proto",
    "udp.dstport",
    "geneve.version",
    "geneve.proto_type",
    "geneve.vni",
    "geneve.options",
    "geneve.option.class",
    "frame.protocols",
]

# VXLAN-GPE next protocols (draft-ietf-nvo3-vxlan-gpe-12 section 3.1).
GPE_NP = {"1": "gpe_ipv4", "2": "gpe_ipv6", "3": "gpe_eth"}

# Geneve protocol types (RFC 8926 section 3.4, ethertypes).
GENEVE_PT = {"0x6558": "geneve_eth", "0x0800": "geneve_ip",
             "0x86dd": "geneve_ip"}

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


def tcp_statuses(vals, c):
    """TCP checksum statuses of one frame, 0xffff-for-0x0000 made good."""
    out = []
    calc = [int(v, 16) for v in vals["tcp.checksum_calculated"]]
    for s, v in zip(vals["tcp.checksum.status"], vals["tcp.checksum"]):
        if s == "0" and int(v, 16) == 0xffff and 0 in calc:
            c["tcp_ffff"] += 1
            s = "1"
        out.append(s)
    return out


def geneve_inner(protocols):
    """The family of the packet behind a frame's first Geneve header, by
    its own version, not by the header's protocol type: tshark hands what
    follows 0x0800 to its ip dissector, which passes a version-6 packet on
    to ipv6 ("geneve:ip:ipv6"), and shows what it cannot read under
    0x86dd as data."""
    p = protocols[0].split(":") if protocols else []
    if "geneve" not in p:
        return None
    inner = p[p.index("geneve") + 1:] + ["", ""]
    if inner[0] == "ip":
        return "ipv6" if inner[1] == "ipv6" else "ipv4"
    return "ipv6" if inner[0] == "ipv6" else None


def tally_geneve(vals, c):
    """The Geneve headers of one frame, by version, type, VNI, port."""
    ver = vals["geneve.version"]
    c["geneve_total"] += len(ver)
    c["geneve_v0"] += ver.count("0")
    for pt in vals["geneve.proto_type"]:
        key = GENEVE_PT.get(pt.lower())
        if key:
            c[key] += 1
    # RFC 8926 section 3.4: the type is the Ethertype of what follows.
    pt = [v.lower() for v in vals["geneve.proto_type"][:1]]
    inner = geneve_inner(vals["frame.protocols"])
    if (pt, inner) in ((["0x0800"], "ipv4"), (["0x86dd"], "ipv6")):
        c["geneve_" + inner] += 1
    c["geneve_vni42"] += sum(v in ("42", "0x0000002a", "0x00002a")
                             for v in vals["geneve.vni"])
    c["geneve_opts"] += len(vals["geneve.options"])
    c["geneve_0102"] += sum(v.lower() in ("0x0102", "258")
                            for v in vals["geneve.option.class"])
    if ver and "6081" in vals["udp.dstport"]:
        c["geneve_6081"] += len(ver)


def tally(out):
    c = dict.fromkeys(
        ["frames", "max_len", "oversize",
         "tcp_good", "tcp_bad", "tcp_unverified", "tcp_ffff",
         "udp_good", "udp_bad", "udp_zero", "udp_total",
         "ip_good", "ip_bad",
         "gre_total", "gre_csum", "gre_good", "gre_bad",
         "gpe_total", "gpe_ipv4", "gpe_ipv6", "gpe_eth", "gpe_4790",
         "gpe_ip", "geneve_total", "geneve_v0", "geneve_eth", "geneve_ip",
         "geneve_vni42", "geneve_opts", "geneve_0102", "geneve_6081",
         "geneve_ipv4", "geneve_ipv6"], 0)
    status = {"0": "_bad", "1": "_good"}
    bad = []
    for line in out.splitlines():
        col = line.split("\t")
        col += [""] * (len(FIELDS) - len(col))
        vals = dict(zip(FIELDS, (v.split(";") if v else [] for v in col)))
        flen = int(vals["frame.len"][0])
        c["frames"] += 1
        c["max_len"] = max(c["max_len"], flen)
        if flen > MAX_FRAME:
            c["oversize"] += 1
        tcp = tcp_statuses(vals, c)
        for s in tcp:
            c["tcp" + status.get(s, "_unverified")] += 1
        # A zero UDP checksum is an absent one (IPv4), not a bad one.
        udp = [s for s, v in zip(vals["udp.checksum.status"],
                                 vals["udp.checksum"]) if int(v, 16) != 0]
        c["udp_total"] += len(vals["udp.checksum"])
        c["udp_zero"] += len(vals["udp.checksum"]) - len(udp)
        c["udp_bad"] += udp.count("0")
        c["udp_good"] += udp.count("1")
        c["ip_bad"] += vals["ip.checksum.status"].count("0")
        c["ip_good"] += vals["ip.checksum.status"].count("1")
        c["gre_total"] += len(vals["gre.flags.checksum"])
        c["gre_csum"] += sum(f in ("1", "True")
                             for f in vals["gre.flags.checksum"])
        c["gre_bad"] += vals["gre.checksum.status"].count("0")
        c["gre_good"] += vals["gre.checksum.status"].count("1")
        gpe = vals["vxlan.next_proto"]
        c["gpe_total"] += len(gpe)
        for np in gpe:
            if np in GPE_NP:
                c[GPE_NP[np]] += 1
        if gpe and "4790" in vals["udp.dstport"]:
            c["gpe_4790"] += len(gpe)
        c["gpe_ip"] = c["gpe_ipv4"] + c["gpe_ipv6"]
        tally_geneve(vals, c)
        if "0" in tcp + udp + vals["ip.checksum.status"] + \
                vals["gre.checksum.status"]:
            bad.append(vals["frame.number"][0])
    return c, bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    c, bad = tally(run_tshark(sys.argv[1], sys.argv[2:]))
    words = ["%s=%d" % kv for kv in c.items()]
    if bad:
        words.append("bad_frames=" + ",".join(bad[:10]))
    print(" ".join(words))


if __name__ == "__main__":
    main()
