// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes the seed corpus of the fuzz harnesses, tests/corpus/rx and tx:
 * real packets built with pkt.h, in the formats fuzz-rx.c, fuzz-tx.c read.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz-input.h"
#include "pkt.h"

#define TS 12
#define UDP IPPROTO_UDP

static struct pkt P;
static uint8_t in[1 << 18];
static size_t in_len;
static const char *out_dir;
static int n_written;

static void in_put(const void *p, size_t n)
{
	if (in_len + n > sizeof(in)) {
		fprintf(stderr, "fuzz-seeds: input too long\n");
		exit(1);
	}
	memcpy(in + in_len, p, n);
	in_len += n;
}

static void in_u8(uint32_t v)
{
	uint8_t b = (uint8_t)v;

	in_put(&b, 1);
}

static void in_be16(uint32_t v)
{
	uint8_t b[2];

	pkt_put16(b, v);
	in_put(b, 2);
}

static void in_be32(uint32_t v)
{
	uint8_t b[4];

	pkt_put32(b, v);
	in_put(b, 4);
}

static void in_le16(uint32_t v)
{
	in_u8(v);
	in_u8(v >> 8);
}

/* Write the input built so far to out_dir/sub/name and start anew. */
static void seed_save(const char *sub, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, sub);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(in, 1, in_len, f) != in_len || fclose(f)) {
		perror(path);
		exit(1);
	}
	in_len = 0;
	n_written++;
}

/* Recompute the checksums of P after its bytes were changed. */
static void seed_resum(const struct pkt_spec *s)
{
	uint8_t *ip = P.buf + P.l3_off;

	if (!s->ipv6 && !s->non_ip) {
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	}
	if (P.l4_off)
		pkt_l4_csum(s, &P);
}

/* ---- receive side: encapsulated packets --------------------------------- */

struct tun {
	uint8_t cfg;		/* fuzz-rx.c byte 0 */
	uint32_t vni;
	uint32_t key;
	uint32_t seq;		/* GRE sequence number to send next */
};

static void rx_begin(const struct tun *t, uint32_t mtu)
{
	in_u8(t->cfg);
	in_be16(mtu);
	in_u8(t->vni >> 16);
	in_be16(t->vni);
	in_be32(t->key);
}

static void rx_raw(uint8_t ctl, const uint8_t *p, size_t n)
{
	in_u8(ctl);
	in_be16((uint32_t)n);
	in_put(p, n);
}

/*
 * What the header says the payload is: Ethernet (GRE's TEB, GPE's next
 * protocol 3), or in a tun (RX_TUN) the packet's own IP version.
 */
static uint32_t rx_proto(const struct tun *t, const uint8_t *f, bool gre)
{
	bool v6 = f[0] >> 4 == 6;

	if (!(t->cfg & RX_TUN))
		return gre ? 0x6558 : 3;
	if (gre)
		return v6 ? 0x86dd : 0x0800;
	return v6 ? 2 : 1;
}

/*
 * The packet a peer sends for frame f (a tun's IP packet with RX_TUN):
 * VXLAN, VXLAN-GPE (I and P, the next protocol) or GRE header, then f.
 */
static void rx_frame(struct tun *t, uint8_t ctl, const uint8_t *f, size_t n)
{
	static uint8_t pkt[PKT_MAX + 16];
	struct encap_cfg c = { .type = t->cfg & 3, .l3 = t->cfg & RX_TUN };
	uint8_t type;
	size_t hl = 4;

	/* The header of the type fuzz-rx.c runs (VXLAN in a tun: GPE). */
	fuzz_encap_fit(&c);
	type = (uint8_t)c.type;
	if (type == FUZZ_VXLAN || type == FUZZ_VXLAN_GPE) {
		pkt_put32(pkt, 0x08000000);
		if (type == FUZZ_VXLAN_GPE)
			pkt_put32(pkt, 0x0c000000 | rx_proto(t, f, false));
		pkt_put32(pkt + 4, t->vni << 8);
		hl = 8;
	} else {
		pkt_put16(pkt, (t->cfg & FUZZ_CSUM ? 0x8000 : 0) |
				       (t->cfg & FUZZ_KEY ? 0x2000 : 0) |
				       (t->cfg & FUZZ_SEQ ? 0x1000 : 0));
		pkt_put16(pkt + 2, rx_proto(t, f, true));
		if (t->cfg & FUZZ_CSUM) {
			pkt_put32(pkt + hl, 0);
			hl += 4;
		}
		if (t->cfg & FUZZ_KEY) {
			pkt_put32(pkt + hl, t->key);
			hl += 4;
		}
		if (t->cfg & FUZZ_SEQ) {
			pkt_put32(pkt + hl, t->seq++);
			hl += 4;
		}
	}
	memcpy(pkt + hl, f, n);
	if ((type == FUZZ_GRE || type == FUZZ_GRE_UDP) && (t->cfg & FUZZ_CSUM))
		pkt_put16(pkt + 4,
			  (uint16_t)~pkt_fold(pkt_sum(pkt, hl + n, 0)));
	rx_raw(ctl, pkt, hl + n);
}

static void rx_spec(struct tun *t, uint8_t ctl, const struct pkt_spec *s)
{
	pkt_build(s, &P);
	rx_frame(t, ctl, P.buf, P.len);
}

/* Segment i of a run of one flow: seq, id and payload follow on. */
static const struct pkt *rx_seg(const struct pkt_spec *s0, uint32_t i,
				struct pkt_spec *s)
{
	*s = *s0;
	s->seq = s0->seq + i * s0->payload_len;
	s->ip_id = (uint16_t)(s0->ip_id + i);
	s->seed = s0->seed + i;
	pkt_build(s, &P);
	return &P;
}

static void rx_run(struct tun *t, const struct pkt_spec *s0, uint32_t n)
{
	struct pkt_spec s;
	uint32_t i;

	for (i = 0; i < n; i++) {
		rx_seg(s0, i, &s);
		rx_frame(t, 0, P.buf, P.len);
	}
}

static const struct pkt_spec tcp4 = { .tcp_opt_len = TS,
				      .payload_len = 1448,
				      .seq = 1000,
				      .ip_id = 7 };
static const struct pkt_spec tcp6 = { .ipv6 = true,
				      .tcp_opt_len = TS,
				      .payload_len = 1428,
				      .seq = 0xfffff000 };
/* The same with the IPv4 minimum MSS (RFC 879): smaller seeds. */
static const struct pkt_spec tcp4s = { .tcp_opt_len = TS,
				       .payload_len = 536,
				       .seq = 1000,
				       .ip_id = 7 };
static const struct pkt_spec tcp6s = { .ipv6 = true,
				       .tcp_opt_len = TS,
				       .payload_len = 536,
				       .seq = 0xfffffe00 };

static void rx_simple_runs(void)
{
	struct tun vx = { .vni = 42 };
	struct tun gre = { .cfg = FUZZ_GRE };
	struct tun grek = { .cfg = FUZZ_GRE | FUZZ_KEY, .key = 0x01020304 };
	struct tun grecks = { .cfg = FUZZ_GRE | FUZZ_KEY | FUZZ_CSUM | FUZZ_SEQ,
			      .key = 77 };
	struct tun gudp = { .cfg = FUZZ_GRE_UDP };
	struct tun gudpc = { .cfg = FUZZ_GRE_UDP | FUZZ_CSUM };
	struct tun nogro = { .cfg = RX_NO_GRO, .vni = 1 };
	struct pkt_spec s;

	rx_begin(&vx, 1500);
	rx_run(&vx, &tcp4, 4);
	seed_save("rx", "vxlan-tcp4-run4");
	rx_begin(&vx, 1500);
	rx_run(&vx, &tcp6, 4);
	seed_save("rx", "vxlan-tcp6-run4");
	s = tcp4;
	s.partial = true;
	rx_begin(&vx, 1500);
	rx_run(&vx, &s, 3);
	seed_save("rx", "vxlan-tcp4-seeded-run3");
	s = tcp4;
	s.vlans = 1;
	rx_begin(&vx, 1500);
	rx_run(&vx, &s, 3);
	seed_save("rx", "vxlan-tcp4-vlan-run3");
	s = tcp6;
	s.vlans = 2;
	s.partial = true;
	rx_begin(&vx, 1500);
	rx_run(&vx, &s, 3);
	seed_save("rx", "vxlan-tcp6-qinq-seeded-run3");
	rx_begin(&gre, 1500);
	rx_run(&gre, &tcp4, 3);
	seed_save("rx", "gre-tcp4-run3");
	rx_begin(&grek, 1500);
	rx_run(&grek, &tcp6, 3);
	seed_save("rx", "gre-key-tcp6-run3");
	rx_begin(&grecks, 1500);
	rx_run(&grecks, &tcp4, 3);
	seed_save("rx", "gre-key-csum-seq-tcp4-run3");
	rx_begin(&gudp, 1500);
	rx_run(&gudp, &tcp4, 3);
	seed_save("rx", "greudp-tcp4-run3");
	rx_begin(&gudpc, 1500);
	rx_run(&gudpc, &tcp6, 3);
	seed_save("rx", "greudp-csum-tcp6-run3");
	rx_begin(&nogro, 1500);
	rx_run(&nogro, &tcp4, 3);
	seed_save("rx", "vxlan-nogro-tcp4-run3");
}

/* Two flows told apart by the source port, segments interleaved. */
static void rx_two_flows(void)
{
	struct tun vx = { .vni = 42 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < 6; i++) {
		rx_seg(&tcp4s, i / 2, &s);
		if (i & 1) {
			pkt_put16(P.buf + P.l4_off, 40001);
			seed_resum(&s);
		}
		rx_frame(&vx, 0, P.buf, P.len);
	}
	seed_save("rx", "vxlan-tcp4-2flows");
}

/* Runs that end early: PSH, a short segment, a gap, FIN, a bad checksum. */
static void rx_run_ends(void)
{
	struct tun vx = { .vni = 42 };
	struct tun grec = { .cfg = FUZZ_GRE | FUZZ_CSUM };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < 6; i++) {
		rx_seg(&tcp4s, i, &s);
		if (i == 1) {
			P.buf[P.l4_off + 13] |= PKT_PSH;
			seed_resum(&s);
		}
		if (i == 3) {
			s.payload_len = 300;
			pkt_build(&s, &P);
		}
		if (i == 5) {
			P.buf[P.l4_off + 13] |= PKT_FIN;
			seed_resum(&s);
		}
		rx_frame(&vx, 0, P.buf, P.len);
	}
	seed_save("rx", "vxlan-tcp4-psh-short-fin");

	rx_begin(&vx, 1500);
	for (i = 0; i < 5; i++) {
		rx_seg(&tcp4s, i, &s);
		if (i == 2) {
			pkt_put32(P.buf + P.l4_off + 4, s.seq + 1);
			seed_resum(&s);
		}
		if (i == 3)
			P.buf[P.ip_end - 1] ^= 0x55;
		rx_frame(&vx, 0, P.buf, P.len);
	}
	seed_save("rx", "vxlan-tcp4-gap-badcsum");

	/* And under a GRE checksum that covers the damage. */
	rx_begin(&grec, 1500);
	for (i = 0; i < 4; i++) {
		rx_seg(&tcp4s, i, &s);
		if (i == 2)
			P.buf[P.ip_end - 1] ^= 0x55;
		rx_frame(&grec, 0, P.buf, P.len);
	}
	seed_save("rx", "gre-csum-tcp4-badcsum");
}

/* One segment of rx_flags(): flags, source port, IPv4 frag_off field. */
static void rx_flag_seg(struct tun *t, uint32_t i, uint8_t flags,
			uint16_t port, uint16_t frag)
{
	struct pkt_spec s0 = tcp4s, s;

	s0.payload_len = 200;
	s0.tcp_flags = flags;
	rx_seg(&s0, i, &s);
	pkt_put16(P.buf + P.l3_off + 6, frag);
	pkt_put16(P.buf + P.l4_off, port);
	/* An urgent pointer without URG: not compared. */
	pkt_put16(P.buf + P.l4_off + 18, i);
	seed_resum(&s);
	rx_frame(t, RX_CTL_FIX, P.buf, P.len);
}

/*
 * tcp_gro_receive()'s flags: ECE on all, FIN on the last merge; ECE on
 * some only, CWR anywhere (AccECN: a segment with CWR joins no run and
 * none joins it) and the reserved IPv4 bit do not.
 */
static void rx_flags(void)
{
	static const uint8_t merge[] = { PKT_ECE, PKT_ECE, PKT_ECE,
					 PKT_ECE | PKT_FIN };
	static const uint8_t apart[] = { PKT_ECE, PKT_ECE | PKT_CWR, PKT_ECE,
					 PKT_CWR };
	struct tun vx = { .vni = 42 };
	uint32_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < 4; i++)
		rx_flag_seg(&vx, i, PKT_ACK | merge[i], 40000, 0x4000);
	for (i = 0; i < 4; i++)
		rx_flag_seg(&vx, i, PKT_ACK | apart[i], 40001, 0x4000);
	for (i = 0; i < 3; i++)
		rx_flag_seg(&vx, i, PKT_ACK, 40002, 0xc000);
	seed_save("rx", "vxlan-tcp4-cwr-ece-fin");
}

/*
 * IPv6 extension headers the kernel's GRO skips: hop-by-hop and
 * destination options, a routing header done (segments left 0) and
 * one on its way (not verified, not merged).
 */
static void rx_ext(void)
{
	struct pkt_spec a = tcp6s, b = tcp6s, s;
	struct tun vx = { .vni = 42 };
	uint32_t i, k;

	a.ip6_hbh = true;
	a.ip6_dst_len = 16;
	b.ip6_dst_len = 8;
	rx_begin(&vx, 1500);
	for (i = 0; i < 3; i++) {
		rx_seg(&a, i, &s);
		rx_frame(&vx, RX_CTL_FIX, P.buf, P.len);
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 3; i++) {
			rx_seg(&b, i, &s);
			P.buf[P.l3_off + 6] = IPPROTO_ROUTING;
			P.buf[P.l3_off + 42] = 0;
			P.buf[P.l3_off + 43] = (uint8_t)k;
			pkt_put16(P.buf + P.l4_off, 40001 + k);
			seed_resum(&s);
			rx_frame(&vx, RX_CTL_FIX, P.buf, P.len);
		}
	}
	seed_save("rx", "vxlan-tcp6-exthdrs");
}

/*
 * IPv4 ids: fixed with DF, counting without, fixed without (this kernel).
 * Here and in rx_flags(), rx_ext() the harness fixes the checksums
 * (RX_CTL_FIX), so that the fuzzer's changes to a header still reach the
 * merge rules.
 */
static void rx_ids(void)
{
	struct tun vx = { .vni = 42 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp4s, i, &s);
		pkt_put16(P.buf + P.l3_off + 4, 0x1234);
		seed_resum(&s);
		rx_frame(&vx, RX_CTL_FIX, P.buf, P.len);
	}
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp4s, i + 3, &s);
		pkt_put16(P.buf + P.l3_off + 6, 0);
		pkt_put16(P.buf + P.l4_off, 40002);
		seed_resum(&s);
		rx_frame(&vx, RX_CTL_FIX, P.buf, P.len);
	}
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp4s, i + 6, &s);
		pkt_put16(P.buf + P.l3_off + 4, 0x4321);
		pkt_put16(P.buf + P.l3_off + 6, 0);
		pkt_put16(P.buf + P.l4_off, 40003);
		seed_resum(&s);
		rx_frame(&vx, RX_CTL_FIX, P.buf, P.len);
	}
	seed_save("rx", "vxlan-tcp4-fixedid-nodf");
}

/* Whatever is not a TCP segment that merges, in one batch. */
static void rx_mixed(void)
{
	static const struct pkt_spec specs[] = {
		{ .non_ip = true, .payload_len = 28 },
		{ .non_ip = true, .vlans = 1, .payload_len = 28, .pad = 14 },
		{ .l4 = IPPROTO_ICMP, .payload_len = 64 },
		{ .l4 = UDP, .payload_len = 500 },
		{ .l4 = UDP, .payload_len = 200, .partial = true },
		{ .l4 = UDP, .ipv6 = true, .payload_len = 3, .partial = true,
		  .pad = 11 },
		{ .payload_len = 0, .pad = 6 },
		{ .tcp_flags = PKT_SYN, .tcp_opt_len = 20 },
		{ .tcp_flags = PKT_RST | PKT_ACK },
		{ .ip_opt_len = 8, .payload_len = 10 },
		{ .payload_len = 100, .ip_frag = 0x2000 },
		{ .payload_len = 100, .ip_frag = 0x00b9 },
		{ .ipv6 = true, .payload_len = 100, .ip6_frag = true },
		{ .ipv6 = true, .ip6_hbh = true, .ip6_dst_len = 16,
		  .payload_len = 100 },
		{ .ipv6 = true, .ip6_dst_len = 8, .payload_len = 100,
		  .partial = true },
	};
	struct tun vx = { .vni = 42 };
	size_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		rx_spec(&vx, 0, &specs[i]);
	/* A routing header: the pseudo-header is not the packet's. */
	P.buf[P.l3_off + 6] = IPPROTO_ROUTING;
	rx_frame(&vx, 0, P.buf, P.len);
	seed_save("rx", "vxlan-mixed");
}

/* TCP frames over the tap's MTU become GSO frames of MTU-sized segments. */
/*
 * Issue 12's amplifier: a 1384-byte destination options header leaves
 * segments of 2 bytes; headers of 254 and 262 bytes; at MTU 88, 1024 and
 * 1025 segments of 48 bytes.
 */
static void rx_oversize(void)
{
	struct pkt_spec a = { .ipv6 = true, .ip6_dst_len = 1384,
			      .payload_len = 60000, .partial = true };
	struct pkt_spec b = { .ipv6 = true, .ip6_dst_len = 168,
			      .tcp_opt_len = TS, .payload_len = 3000 };
	struct pkt_spec c = { .payload_len = 48 * 1024 };
	struct tun vx = { .vni = 42 };

	rx_begin(&vx, 1500);
	rx_spec(&vx, 0, &a);
	rx_spec(&vx, 0, &b);
	b.ip6_dst_len = 176;
	rx_spec(&vx, 0, &b);
	seed_save("rx", "vxlan-tcp6-oversize");
	/* One each: both together would pass libFuzzer's -max_len. */
	rx_begin(&vx, 88);
	rx_spec(&vx, 0, &c);
	seed_save("rx", "vxlan-tcp4-mtu88-1024segs");
	rx_begin(&vx, 88);
	c.payload_len++;
	rx_spec(&vx, 0, &c);
	seed_save("rx", "vxlan-tcp4-mtu88-1025segs");
}

static void rx_big(void)
{
	struct pkt_spec a = { .tcp_opt_len = TS, .payload_len = 4000,
			      .partial = true };
	struct pkt_spec b = { .tcp_flags = PKT_CWR | PKT_ECE | PKT_ACK,
			      .payload_len = 3000 };
	struct pkt_spec c = { .ipv6 = true, .vlans = 1, .ip6_dst_len = 16,
			      .tcp_opt_len = TS, .payload_len = 4000 };
	struct pkt_spec d = { .tcp_flags = PKT_URG | PKT_ACK,
			      .payload_len = 2000 };
	struct pkt_spec e = { .payload_len = 1400, .seq = 5 };
	struct tun vx = { .vni = 42 };
	struct tun gre = { .cfg = FUZZ_GRE | FUZZ_CSUM };

	rx_begin(&vx, 1500);
	rx_spec(&vx, 0, &a);
	rx_spec(&vx, 0, &b);
	rx_spec(&vx, 0, &c);
	rx_spec(&vx, 0, &d);
	seed_save("rx", "vxlan-over-mtu");
	rx_begin(&gre, 576);
	rx_spec(&gre, 0, &e);
	seed_save("rx", "gre-csum-tcp4-mtu576");
	rx_begin(&vx, 68);
	e.payload_len = 1000;
	rx_spec(&vx, 0, &e);
	seed_save("rx", "vxlan-tcp4-mtu68");
	rx_oversize();
}

/* The limits: GRO_MAX_SEGS, GRO_MAX_LEN, GRO_MAX_FRAMES, jumbo MTU. */
static void rx_limits(void)
{
	struct pkt_spec s = tcp4, t;
	struct tun vx = { .vni = 42 };
	uint32_t i;

	s.payload_len = 100;
	rx_begin(&vx, 1500);
	rx_run(&vx, &s, 66);
	seed_save("rx", "vxlan-tcp4-66segs");

	/* 52 bytes of headers + 65483 of payload: IP length 65535. */
	s.payload_len = 15000;
	rx_begin(&vx, 16000);
	rx_run(&vx, &s, 4);
	rx_seg(&s, 4, &t);
	t.payload_len = 5483;
	pkt_build(&t, &P);
	rx_frame(&vx, 0, P.buf, P.len);
	seed_save("rx", "vxlan-tcp4-iplen65535");

	s.payload_len = 2948;
	rx_begin(&vx, 3000);
	rx_run(&vx, &s, 3);
	seed_save("rx", "vxlan-tcp4-mtu3000");

	/*
	 * GRO_MAX_FRAMES - 1 ARP frames, a run of two in the last frame,
	 * then a segment after a gap: no frame left, a new batch.
	 */
	t = (struct pkt_spec){ .non_ip = true, .payload_len = 28 };
	rx_begin(&vx, 1500);
	for (i = 0; i < 127; i++)
		rx_spec(&vx, 0, &t);
	s.payload_len = 200;
	rx_run(&vx, &s, 2);
	rx_seg(&s, 3, &t);
	rx_frame(&vx, 0, P.buf, P.len);
	seed_save("rx", "vxlan-full");
}

/* Batches: a flow's run goes on across a batch boundary. */
static void rx_batches(void)
{
	struct tun vx = { .vni = 42 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < 6; i++) {
		rx_seg(&tcp6s, i, &s);
		rx_frame(&vx, i == 2 ? RX_CTL_END : 0, P.buf, P.len);
	}
	seed_save("rx", "vxlan-tcp6-2batches");
}

/* Zeroed checksums that the harness fixes (ctl bit 0, with bit 1 too). */
static void rx_fixed(void)
{
	struct tun vx = { .vni = 42 };
	struct tun gre = { .cfg = FUZZ_GRE | FUZZ_CSUM | FUZZ_KEY, .key = 9 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&vx, 1500);
	for (i = 0; i < 4; i++) {
		rx_seg(&tcp4, i, &s);
		pkt_put16(P.buf + P.check_off, 0);
		pkt_put16(P.buf + P.l3_off + 10, 0);
		rx_frame(&vx, i & 1 ? RX_CTL_FIX | RX_CTL_SEED : RX_CTL_FIX,
			 P.buf, P.len);
	}
	seed_save("rx", "vxlan-tcp4-fix");
	rx_begin(&gre, 1500);
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp6, i, &s);
		pkt_put16(P.buf + P.check_off, 0);
		rx_frame(&gre, RX_CTL_FIX, P.buf, P.len);
	}
	seed_save("rx", "gre-csum-tcp6-fix");
}

/* P's inner ECN field (RFC 3168), its checksums made good again. */
static void seed_ecn(const struct pkt_spec *s, uint8_t ecn)
{
	uint8_t *ip = P.buf + P.l3_off;

	if (s->ipv6)
		ip[1] = (uint8_t)((ip[1] & 0xcf) | ecn << 4);
	else
		ip[1] = (uint8_t)((ip[1] & 0xfc) | ecn);
	seed_resum(s);
}

/*
 * An outer CE (RFC 6040) copied onto ECT packets, which then merge, a
 * Not-ECT one dropped, a CE one left; under a GRE checksum, whose sum
 * must not go along once the mark changed the packet.
 */
static void rx_ecn(void)
{
	struct tun gre = { .cfg = FUZZ_GRE | FUZZ_CSUM };
	struct tun vx = { .vni = 42 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&gre, 1500);
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp6, i, &s);
		seed_ecn(&s, 2);
		rx_frame(&gre, RX_CTL_CE, P.buf, P.len);
	}
	for (i = 0; i < 2; i++) {
		rx_seg(&tcp4, i, &s);
		seed_ecn(&s, 2);
		rx_frame(&gre, RX_CTL_CE, P.buf, P.len);
	}
	seed_save("rx", "gre-csum-ect0-ce-runs");
	rx_begin(&vx, 1500);
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp4, i, &s);
		seed_ecn(&s, 1);
		rx_frame(&vx, i == 1 ? RX_CTL_ECT1 : RX_CTL_CE, P.buf, P.len);
	}
	rx_seg(&tcp4, 3, &s);
	rx_frame(&vx, RX_CTL_CE, P.buf, P.len);
	rx_seg(&tcp6, 0, &s);
	seed_ecn(&s, 3);
	rx_frame(&vx, RX_CTL_CE, P.buf, P.len);
	seed_save("rx", "vxlan-ect1-notect-ce");
}

/* Packets encap_parse() refuses, each followed by one it takes. */
static void rx_errors(void)
{
	static const uint8_t vx_bad[][8] = {
		{ 0x00, 0, 0, 0, 0, 0, 42, 0 },	/* no I flag */
		{ 0x08, 0, 0, 0, 0, 0, 43, 0 },	/* another VNI */
		{ 0x0c, 0, 0, 0, 0, 0, 42, 0 },	/* reserved flag */
		{ 0x08, 0, 0, 0, 0, 0, 42, 1 },	/* reserved byte */
	};
	static const uint8_t gre_bad[][12] = {
		{ 0xa0, 0x01, 0x65, 0x58 },	/* version 1 */
		{ 0xe0, 0x00, 0x65, 0x58 },	/* routing */
		{ 0xa0, 0x00, 0x08, 0x00 },	/* not Ethernet */
		{ 0x20, 0x00, 0x65, 0x58, 0, 0, 0, 5 },	/* no checksum */
		{ 0x80, 0x00, 0x65, 0x58 },	/* no key */
		{ 0xa0, 0x00, 0x65, 0x58, 0x12, 0x34, 0, 0, 0, 0, 0, 5 },
		{ 0xa0, 0x00, 0x65, 0x58, 0, 0, 0, 0, 0, 0, 0, 6 },
	};
	struct pkt_spec a = { .non_ip = true, .payload_len = 28 };
	struct tun vx = { .vni = 42 };
	struct tun gre = { .cfg = FUZZ_GRE | FUZZ_KEY | FUZZ_CSUM, .key = 5 };
	uint8_t pkt[64];
	size_t i;

	pkt_build(&a, &P);
	rx_begin(&vx, 1500);
	for (i = 0; i < sizeof(vx_bad) / sizeof(vx_bad[0]); i++) {
		memcpy(pkt, vx_bad[i], 8);
		memcpy(pkt + 8, P.buf, 42);
		rx_raw(0, pkt, 50);
	}
	rx_raw(0, vx_bad[1], 7);		/* short */
	rx_raw(0, (const uint8_t *)"\x08\0\0\0\0\0\x2a\0abcdefghijklm", 21);
	rx_frame(&vx, 0, P.buf, P.len);
	seed_save("rx", "vxlan-errors");

	rx_begin(&gre, 1500);
	/* Checksums fixed (ctl bit 0) but for the one that must be wrong. */
	for (i = 0; i < sizeof(gre_bad) / sizeof(gre_bad[0]); i++) {
		memcpy(pkt, gre_bad[i], 12);
		memcpy(pkt + 12, P.buf, 42);
		rx_raw(i == 5 ? 0 : RX_CTL_FIX, pkt, 54);
	}
	rx_raw(0, gre_bad[5], 3);		/* short */
	rx_frame(&gre, 0, P.buf, P.len);
	seed_save("rx", "gre-errors");
}

/*
 * UDP datagrams merged into GSO_UDP_L4 frames (RX_UDP_GRO): runs of one
 * size with a shorter last one, a wrong checksum, a zero one, and over
 * IPv6 and GRE-in-UDP; small datagrams keep the seeds small.
 */
static void rx_udp(void)
{
	struct tun vx = { .cfg = FUZZ_VXLAN | RX_UDP_GRO, .vni = 42 };
	struct tun gu = { .cfg = FUZZ_GRE_UDP | FUZZ_CSUM | RX_UDP_GRO };
	const struct pkt_spec u4 = { .l4 = UDP, .payload_len = 300,
				     .ip_id = 9 };
	const struct pkt_spec u6 = { .l4 = UDP, .ipv6 = true,
				     .payload_len = 280 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&vx, 1500);
	rx_run(&vx, &u4, 5);
	s = u4;
	s.payload_len = 100;
	s.ip_id = 14;
	rx_spec(&vx, 0, &s);
	seed_save("rx", "vxlan-udp4-run-short-last");

	rx_begin(&vx, 1500);
	for (i = 0; i < 6; i++) {
		rx_seg(&u4, i, &s);
		if (i == 2)
			P.buf[P.ip_end - 1] ^= 0x55;
		if (i == 4)
			pkt_put16(P.buf + P.check_off, 0);
		rx_frame(&vx, 0, P.buf, P.len);
	}
	seed_save("rx", "vxlan-udp4-badcsum-nocsum");

	rx_begin(&gu, 1500);
	rx_run(&gu, &u6, 4);
	s = u6;
	s.partial = true;
	rx_spec(&gu, 0, &s);
	seed_save("rx", "gre-udp-udp6-run-seeded");
}

/* ---- receive side, --mode tun: IP packets, no Ethernet ------------------ */

/* Segment i of a run, as the IP packet a tun's peer sends. */
static void rx_tun_seg(struct tun *t, uint8_t ctl, const struct pkt_spec *s0,
		       uint32_t i)
{
	struct pkt_spec s;

	rx_seg(s0, i, &s);
	pkt_to_ip(&P);
	rx_frame(t, ctl, P.buf, P.len);
}

static void rx_tun_run(struct tun *t, const struct pkt_spec *s0, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		rx_tun_seg(t, 0, s0, i);
}

/*
 * Runs of TCP and UDP over IPv4 and IPv6 that merge into a tun's
 * super-packets, in GRE (0x0800, 0x86dd), GRE-in-UDP and VXLAN-GPE
 * (next protocol 1, 2); VXLAN asked for in a tun (VXLAN-GPE); GPE in a
 * tap (next protocol 3).
 */
static void rx_tun_runs(void)
{
	struct tun gre = { .cfg = FUZZ_GRE | RX_TUN };
	struct tun grek = { .cfg = FUZZ_GRE | FUZZ_KEY | FUZZ_CSUM |
				   FUZZ_SEQ | RX_TUN, .key = 0x80000001 };
	struct tun gu = { .cfg = FUZZ_GRE_UDP | RX_UDP_GRO | RX_TUN };
	struct tun gpe = { .cfg = FUZZ_VXLAN_GPE | RX_UDP_GRO | RX_TUN,
			   .vni = 0x123456 };
	struct tun vx = { .cfg = FUZZ_VXLAN | RX_TUN, .vni = 42 };
	struct tun gpe2 = { .cfg = FUZZ_VXLAN_GPE, .vni = 42 };
	const struct pkt_spec u4 = { .l4 = UDP, .payload_len = 300,
				     .ip_id = 9 };
	const struct pkt_spec u6 = { .l4 = UDP, .ipv6 = true,
				     .payload_len = 280 };
	struct pkt_spec s;

	rx_begin(&gre, 1500);
	rx_tun_run(&gre, &tcp4s, 3);
	seed_save("rx", "tun-gre-tcp4-run3");
	rx_begin(&grek, 1500);
	rx_tun_run(&grek, &tcp6s, 3);
	rx_tun_run(&grek, &tcp4s, 2);
	seed_save("rx", "tun-gre-all-tcp6-tcp4-runs");
	rx_begin(&gu, 1500);
	rx_tun_run(&gu, &u4, 4);
	s = u4;
	s.payload_len = 100;
	s.ip_id = 13;
	pkt_build_ip(&s, &P);
	rx_frame(&gu, 0, P.buf, P.len);
	seed_save("rx", "tun-greudp-udp4-run-short-last");
	rx_begin(&gpe, 1500);
	rx_tun_run(&gpe, &tcp4s, 3);
	rx_tun_run(&gpe, &u6, 3);
	seed_save("rx", "tun-gpe-tcp4-udp6-runs");
	rx_begin(&vx, 1500);
	rx_tun_run(&vx, &tcp6s, 3);
	seed_save("rx", "tun-vxlan-as-gpe-tcp6-run3");
	rx_begin(&gpe2, 1500);
	rx_run(&gpe2, &tcp4s, 3);
	seed_save("rx", "gpe-tcp4-run3");
	/* One TCP packet over the tun's MTU: a GSO frame of its own. */
	rx_begin(&gre, 1500);
	s = tcp4;
	s.payload_len = 20000;
	pkt_build_ip(&s, &P);
	rx_frame(&gre, RX_CTL_END, P.buf, P.len);
	s = tcp6;
	s.payload_len = 9000;
	s.partial = true;
	pkt_build_ip(&s, &P);
	rx_frame(&gre, 0, P.buf, P.len);
	seed_save("rx", "tun-gre-tcp4-tcp6-over-mtu");
}

/* hdr (8 bytes of VXLAN-GPE, or 4 of GRE), then the packet p of n bytes. */
static void rx_raw_hdr(uint8_t ctl, const uint8_t *hdr, size_t hl,
		       const uint8_t *p, size_t n)
{
	static uint8_t pkt[2048];

	memcpy(pkt, hdr, hl);
	memcpy(pkt + hl, p, n);
	rx_raw(ctl, pkt, hl + n);
}

/*
 * Headers a tun's encapsulation refuses, each among ones it takes: GPE
 * next protocols it does not carry (3, Ethernet; 4, NSH; 6), a version,
 * O, B, no P, a next protocol that is not the packet's version, a
 * payload under an IPv4 header; GRE TEB in a tun, 0x86dd over IPv4;
 * and GPE's next protocol 1 in a tap.
 */
static void rx_tun_errors(void)
{
	static const uint8_t gpe_bad[][8] = {
		{ 0x0c, 0, 0, 3, 0, 0, 42, 0 },	/* Ethernet in a tun */
		{ 0x0c, 0, 0, 4, 0, 0, 42, 0 },	/* NSH */
		{ 0x0c, 0, 0, 6, 0, 0, 42, 0 },	/* unknown */
		{ 0x08, 0, 0, 1, 0, 0, 42, 0 },	/* no P */
		{ 0x1c, 0, 0, 1, 0, 0, 42, 0 },	/* version 1 */
		{ 0x0d, 0, 0, 1, 0, 0, 42, 0 },	/* O: OAM */
		{ 0x0e, 0, 0, 1, 0, 0, 42, 0 },	/* B */
		{ 0x0c, 0, 0, 2, 0, 0, 42, 0 },	/* IPv6 over an IPv4 packet */
		{ 0x0c, 0, 0, 1, 0, 0, 42, 1 },	/* reserved byte */
		{ 0x0c, 0, 0, 1, 0, 0, 42, 0 },	/* good */
	};
	static const uint8_t gre_bad[][4] = {
		{ 0x00, 0x00, 0x65, 0x58 },	/* TEB in a tun */
		{ 0x00, 0x00, 0x86, 0xdd },	/* IPv6 over an IPv4 packet */
		{ 0x00, 0x00, 0x88, 0x47 },	/* MPLS */
		{ 0x00, 0x00, 0x08, 0x00 },	/* good */
	};
	struct tun gpe = { .cfg = FUZZ_VXLAN_GPE | RX_TUN, .vni = 42 };
	struct tun gre = { .cfg = FUZZ_GRE | RX_TUN };
	struct tun gpe2 = { .cfg = FUZZ_VXLAN_GPE, .vni = 42 };
	struct pkt_spec s = { .payload_len = 20 };
	size_t i;

	pkt_build_ip(&s, &P);
	rx_begin(&gpe, 1500);
	for (i = 0; i < sizeof(gpe_bad) / sizeof(gpe_bad[0]); i++)
		rx_raw_hdr(0, gpe_bad[i], 8, P.buf, P.len);
	rx_raw_hdr(0, gpe_bad[9], 8, P.buf, 19);	/* under 20 bytes */
	seed_save("rx", "tun-gpe-errors");
	rx_begin(&gre, 1500);
	for (i = 0; i < sizeof(gre_bad) / sizeof(gre_bad[0]); i++)
		rx_raw_hdr(0, gre_bad[i], 4, P.buf, P.len);
	seed_save("rx", "tun-gre-errors");
	pkt_build(&s, &P);
	rx_begin(&gpe2, 1500);
	rx_raw_hdr(0, gpe_bad[9], 8, P.buf, P.len);	/* IPv4 in a tap */
	rx_frame(&gpe2, 0, P.buf, P.len);
	seed_save("rx", "gpe-errors");
}

/* An outer CE on a tun's ECT packets, which then merge; a Not-ECT one. */
static void rx_tun_ecn(void)
{
	struct tun gpe = { .cfg = FUZZ_VXLAN_GPE | RX_TUN, .vni = 7 };
	struct pkt_spec s;
	uint32_t i;

	rx_begin(&gpe, 1500);
	for (i = 0; i < 3; i++) {
		rx_seg(&tcp4s, i, &s);
		seed_ecn(&s, 2);
		pkt_to_ip(&P);
		rx_frame(&gpe, RX_CTL_CE, P.buf, P.len);
	}
	rx_tun_seg(&gpe, RX_CTL_CE, &tcp6s, 0);
	seed_save("rx", "tun-gpe-ce-ect0-notect");
}

/* ---- transmit side: tap frames with a vnet header ----------------------- */

/* cfg is fuzz-tx.c's byte 0; seq's low byte sets the transmit side. */
static void tx_write_seq(uint8_t cfg, uint16_t mss_cap, uint32_t seq,
			 const struct virtio_net_hdr *h, const uint8_t *f,
			 size_t n, const char *name)
{
	in_u8(cfg);
	in_be16(mss_cap);
	in_u8(0);
	in_be16(42);		/* VNI */
	in_be32(0x0a0b0c0d);	/* GRE key */
	in_be32(seq);		/* GRE sequence number */
	in_u8(h->flags);
	in_u8(h->gso_type);
	in_le16(h->hdr_len);
	in_le16(h->gso_size);
	in_le16(h->csum_start);
	in_le16(h->csum_offset);
	in_put(f, n);
	seed_save("tx", name);
}

static void tx_write(uint8_t cfg, uint16_t mss_cap,
		     const struct virtio_net_hdr *h, const uint8_t *f,
		     size_t n, const char *name)
{
	tx_write_seq(cfg, mss_cap, 100, h, f, n, name);
}

struct tx_case {
	const char *name;
	struct pkt_spec s;
	uint8_t cfg;
	uint16_t mss_cap;
	bool tun;	/* a tun's IP packet (TX_TUN) */
};

static void tx_spec(const struct tx_case *c)
{
	pkt_build(&c->s, &P);
	if (c->tun)
		pkt_to_ip(&P);
	tx_write_seq(c->cfg, c->mss_cap, c->tun ? TX_TUN | 100 : 100, &P.vh,
		     P.buf, P.len, c->name);
}

#define FP (PKT_ACK | PKT_PSH | PKT_FIN)
#define GRE_ALL (FUZZ_GRE | FUZZ_KEY | FUZZ_CSUM | FUZZ_SEQ)

static const struct tx_case tx_cases[] = {
	{ .name = "vxlan-tcp4-tso",
	  .s = { .payload_len = 5792, .gso_size = 1448 } },
	{ .name = "gre-all-tcp4-ts-shortlast",
	  .s = { .tcp_opt_len = TS, .payload_len = 4351, .gso_size = 1448,
		 .seq = 1000, .ip_id = 77 },
	  .cfg = GRE_ALL },
	{ .name = "vxlan-tcp4-ipopt-ts",
	  .s = { .ip_opt_len = 8, .tcp_opt_len = TS, .payload_len = 7000,
		 .gso_size = 1440, .seq = 0x12345678, .ip_id = 4242 } },
	{ .name = "greudp-tcp4-vlan",
	  .s = { .vlans = 1, .payload_len = 3000, .gso_size = 1448 },
	  .cfg = FUZZ_GRE_UDP },
	{ .name = "vxlan-tcp4-qinq",
	  .s = { .vlans = 2, .payload_len = 2896, .gso_size = 1448 } },
	{ .name = "vxlan-tcp4-ecn-cwr",
	  .s = { .tcp_flags = PKT_ACK | PKT_CWR | PKT_ECE, .ecn = true,
		 .payload_len = 4000, .gso_size = 1448 } },
	{ .name = "gre-csum-tcp4-finpshurg-cap1000",
	  .s = { .tcp_flags = FP | PKT_CWR | PKT_URG, .ecn = true,
		 .payload_len = 4000, .gso_size = 1448 },
	  .cfg = FUZZ_GRE | FUZZ_CSUM, .mss_cap = 1000 },
	{ .name = "vxlan-tcp4-one-seg",
	  .s = { .tcp_flags = FP | PKT_CWR, .payload_len = 1000,
		 .gso_size = 1448 } },
	{ .name = "vxlan-tcp4-no-payload",
	  .s = { .tcp_flags = FP, .payload_len = 0, .gso_size = 1448 } },
	{ .name = "greudp-csum-tcp4-cap999",
	  .s = { .payload_len = 3000, .gso_size = 1448 },
	  .cfg = FUZZ_GRE_UDP | FUZZ_CSUM, .mss_cap = 999 },
	{ .name = "vxlan-tcp4-wrap",
	  .s = { .payload_len = 5792, .gso_size = 1448, .ip_id = 0xfffe,
		 .seq = 0xfffffc00 } },
	{ .name = "vxlan-tcp4-padded",
	  .s = { .payload_len = 3000, .gso_size = 1448, .pad = 7 } },
	{ .name = "vxlan-tcp6-tso",
	  .s = { .ipv6 = true, .payload_len = 5712, .gso_size = 1428 } },
	{ .name = "gre-key-tcp6-vlan-ecn",
	  .s = { .ipv6 = true, .vlans = 1, .tcp_flags = PKT_ACK | PKT_CWR,
		 .ecn = true, .tcp_opt_len = TS, .payload_len = 3000,
		 .gso_size = 1428 },
	  .cfg = FUZZ_GRE | FUZZ_KEY },
	{ .name = "vxlan-tcp6-hbh-dst",
	  .s = { .ipv6 = true, .ip6_hbh = true, .ip6_dst_len = 16,
		 .payload_len = 4000, .gso_size = 1400 } },
	{ .name = "vxlan-tcp6-qinq-cap600",
	  .s = { .ipv6 = true, .vlans = 2, .tcp_opt_len = TS,
		 .payload_len = 5000, .gso_size = 1428 },
	  .mss_cap = 600 },
	{ .name = "vxlan-udp4-uso",
	  .s = { .l4 = UDP, .payload_len = 4100, .gso_size = 1200,
		 .ip_id = 9 },
	  .cfg = TX_WANT_SUM, .mss_cap = 500 },
	{ .name = "gre-csum-udp6-uso-vlan-dst",
	  .s = { .l4 = UDP, .ipv6 = true, .vlans = 1, .ip6_dst_len = 8,
		 .payload_len = 2500, .gso_size = 1000 },
	  .cfg = FUZZ_GRE | FUZZ_CSUM },
	{ .name = "vxlan-udp4-odd",
	  .s = { .l4 = UDP, .payload_len = 3000, .gso_size = 1001 } },
	{ .name = "vxlan-udp4-ipopt",
	  .s = { .l4 = UDP, .ip_opt_len = 4, .payload_len = 2000,
		 .gso_size = 1000 } },
	{ .name = "vxlan-tcp4-partial",
	  .s = { .payload_len = 1000, .partial = true } },
	{ .name = "gre-csum-udp6-partial",
	  .s = { .l4 = UDP, .ipv6 = true, .payload_len = 777,
		 .partial = true },
	  .cfg = FUZZ_GRE | FUZZ_CSUM },
	{ .name = "vxlan-tcp4-partial-padded",
	  .s = { .payload_len = 2, .partial = true, .pad = 4 } },
	{ .name = "gre-csum-tcp4-complete",
	  .s = { .payload_len = 999 },
	  .cfg = FUZZ_GRE | FUZZ_CSUM },
	{ .name = "vxlan-arp-padded-wantsum",
	  .s = { .non_ip = true, .payload_len = 28, .pad = 18 },
	  .cfg = TX_WANT_SUM },
	{ .name = "greudp-csum-icmp4-partial",
	  .s = { .l4 = IPPROTO_ICMP, .payload_len = 64, .partial = true },
	  .cfg = FUZZ_GRE_UDP | FUZZ_CSUM },
	{ .name = "vxlan-ipv6-frag",
	  .s = { .ipv6 = true, .ip6_frag = true, .payload_len = 301 },
	  .cfg = TX_WANT_SUM },
	{ .name = "vxlan-ipv6-dst256-partial",
	  .s = { .ipv6 = true, .ip6_dst_len = 256, .payload_len = 100,
		 .partial = true } },
	{ .name = "vxlan-tcp6-hdr262",
	  .s = { .ipv6 = true, .ip6_dst_len = 176, .tcp_opt_len = TS,
		 .payload_len = 1500, .gso_size = 1000 } },
	{ .name = "vxlan-tcp4-64k",
	  .s = { .tcp_opt_len = TS, .payload_len = 65483, .gso_size = 1448,
		 .seq = 7 } },
	{ .name = "vxlan-tcp4-cap1-enospc",
	  .s = { .payload_len = 2000, .gso_size = 1448 },
	  .mss_cap = 1 },
	{ .name = "vxlan-tcp4-gso1-toomany",
	  .s = { .payload_len = 1100, .gso_size = 1 } },
	/* --mode tun: a tun's super-packets, no Ethernet */
	{ .name = "tun-gre-tcp4-tso",
	  .s = { .tcp_opt_len = TS, .payload_len = 5792, .gso_size = 1448,
		 .seq = 0xfffffc00, .ip_id = 0xfffe },
	  .cfg = FUZZ_GRE, .tun = true },
	{ .name = "tun-gre-all-tcp6-tso-cap1000",
	  .s = { .ipv6 = true, .tcp_flags = FP, .payload_len = 5000,
		 .gso_size = 1428 },
	  .cfg = GRE_ALL, .mss_cap = 1000, .tun = true },
	{ .name = "tun-greudp-csum-udp4-uso",
	  .s = { .l4 = UDP, .payload_len = 3600, .gso_size = 1200,
		 .ip_id = 9 },
	  .cfg = FUZZ_GRE_UDP | FUZZ_CSUM, .tun = true },
	{ .name = "tun-gpe-udp6-uso",
	  .s = { .l4 = UDP, .ipv6 = true, .payload_len = 2500,
		 .gso_size = 1000 },
	  .cfg = FUZZ_VXLAN_GPE, .tun = true },
	{ .name = "tun-gpe-tcp4-tso-ecn",
	  .s = { .tcp_flags = PKT_ACK | PKT_CWR, .ecn = true,
		 .payload_len = 4000, .gso_size = 1448 },
	  .cfg = FUZZ_VXLAN_GPE, .tun = true },
	{ .name = "tun-vxlan-as-gpe-tcp6-tso",
	  .s = { .ipv6 = true, .tcp_opt_len = TS, .payload_len = 4000,
		 .gso_size = 1428 },
	  .cfg = FUZZ_VXLAN, .tun = true },
	{ .name = "tun-gre-tcp4-partial",
	  .s = { .payload_len = 1000, .partial = true },
	  .cfg = FUZZ_GRE | FUZZ_CSUM, .tun = true },
	{ .name = "tun-gre-icmp4",
	  .s = { .l4 = IPPROTO_ICMP, .payload_len = 56 },
	  .cfg = FUZZ_GRE, .tun = true },
	{ .name = "gpe-tcp4-tso",
	  .s = { .payload_len = 5792, .gso_size = 1448 },
	  .cfg = FUZZ_VXLAN_GPE },
};

/* Headers that lie: vnet_hdr_parse() must refuse every one. */
static void tx_lies(void)
{
	struct pkt_spec t = { .payload_len = 3000, .gso_size = 1448 };
	struct pkt_spec u = { .l4 = UDP, .payload_len = 3000,
			      .gso_size = 1000 };
	struct virtio_net_hdr h;

	pkt_build(&t, &P);
	h = P.vh;
	h.gso_size = 0;
	tx_write(0, 0, &h, P.buf, P.len, "lie-gso-size-0");
	h = P.vh;
	h.csum_start = (uint16_t)(P.len - 1);
	h.csum_offset = 0;
	tx_write(0, 0, &h, P.buf, P.len, "lie-csum-start-past-end");
	h = P.vh;
	h.gso_type = 2;
	tx_write(0, 0, &h, P.buf, P.len, "lie-gso-type-unknown");
	h = P.vh;
	h.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	tx_write(0, 0, &h, P.buf, P.len, "lie-gso-tcpv6-on-ipv4");
	h = P.vh;
	h.csum_offset = 6;
	tx_write(0, 0, &h, P.buf, P.len, "lie-gso-csum-offset");
	h = P.vh;
	h.hdr_len = 60000;
	tx_write(0, 0, &h, P.buf, P.len, "lie-hdr-len");
	pkt_put16(P.buf + P.l3_off + 2, 4000);
	tx_write(0, 0, &P.vh, P.buf, P.len, "lie-ip-length");
	pkt_build(&u, &P);
	h = P.vh;
	h.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	tx_write(0, 0, &h, P.buf, P.len, "lie-ecn-udp");
}

/* Frames the harness puts right (input byte 0 bit 6). */
static void tx_fixed(void)
{
	struct pkt_spec t = { .payload_len = 3000, .gso_size = 1448 };
	struct pkt_spec u = { .l4 = UDP, .ipv6 = true, .payload_len = 2500,
			      .gso_size = 1200 };
	uint8_t cfg = TX_FIX;

	pkt_build(&t, &P);
	pkt_put16(P.buf + P.l3_off + 2, 0);
	pkt_put16(P.buf + P.l3_off + 10, 0);
	pkt_put16(P.buf + P.check_off, 0);
	tx_write(cfg, 0, &P.vh, P.buf, P.len, "fix-tcp4-tso");
	cfg |= FUZZ_GRE | FUZZ_CSUM;
	pkt_build(&u, &P);
	pkt_put16(P.buf + P.l3_off + 4, 0xffff);
	pkt_put16(P.buf + P.check_off, 0);
	P.vh.csum_start = 0;
	tx_write(cfg, 0, &P.vh, P.buf, P.len, "fix-gre-csum-udp6-uso");
}

/*
 * The transmit side as xmit_frame() and sendq see it (the sequence
 * number's low byte): TOS and DF inherited, IPv4 fragments, a cut whose
 * messages are submitted between the reads, small frames that share a
 * message, a cut that fills the arena on the second read, a TCP frame
 * with NEEDS_CSUM cut like a super-frame, an ICMPv6 "packet too big".
 */
static void tx_path(void)
{
	struct pkt_spec t = { .payload_len = 5792, .gso_size = 1448 };
	struct pkt_spec u = { .l4 = UDP, .payload_len = 3000 };
	struct pkt_spec uso = { .l4 = UDP, .payload_len = 3600,
				.gso_size = 1200 };
	struct pkt_spec t6 = { .ipv6 = true, .tcp_opt_len = TS,
			       .payload_len = 4000, .gso_size = 1428 };
	struct pkt_spec ack = { .tcp_opt_len = TS, .partial = true };
	struct pkt_spec big = { .tcp_opt_len = TS, .payload_len = 65483,
				.gso_size = 1448 };
	struct pkt_spec p6 = { .ipv6 = true, .payload_len = 3000,
			       .partial = true };
	struct pkt_spec u6 = { .ipv6 = true, .l4 = UDP, .payload_len = 3000 };

	pkt_build(&t, &P);
	P.buf[P.l3_off + 1] = 0xbb;	/* EF and CE: ECT(0) outside */
	seed_resum(&t);
	tx_write_seq(0, 0, 0x100 | TX_TOS_INHERIT | TX_DF_INHERIT, &P.vh,
		     P.buf, P.len, "vxlan-tcp4-tso-tos-df-inherit");
	pkt_build(&u, &P);
	pkt_put16(P.buf + P.l3_off + 6, 0);	/* DF clear */
	seed_resum(&u);
	tx_write_seq(0, 1400, 0x200, &P.vh, P.buf, P.len,
		     "vxlan-udp4-nodf-frag");
	pkt_build(&uso, &P);
	pkt_put16(P.buf + P.l3_off + 6, 0);
	seed_resum(&uso);
	tx_write_seq(FUZZ_GRE | FUZZ_CSUM, 800, 0x300 | TX_NO_DF_SOCK, &P.vh,
		     P.buf, P.len, "gre-csum-udp4-uso-nodf-frag");
	pkt_build(&t6, &P);
	tx_write_seq(FUZZ_GRE_UDP, 1000, 0x400 | TX_SUBMIT | TX_UNDERLAY6,
		     &P.vh, P.buf, P.len, "gre-udp-tcp6-cut-submit");
	pkt_build(&ack, &P);
	tx_write_seq(0, 0, 0x500 | TX_ONE_SRC, &P.vh, P.buf, P.len,
		     "vxlan-tcp4-acks-share");
	pkt_build(&ack, &P);
	tx_write_seq(0, 0, 0x600 | TX_NO_GSO, &P.vh, P.buf, P.len,
		     "vxlan-tcp4-acks-nogso");
	pkt_build(&big, &P);
	tx_write_seq(0, 150, 0x700, &P.vh, P.buf, P.len,
		     "vxlan-tcp4-64k-cut-flush");
	pkt_build(&p6, &P);
	seed_ecn(&p6, 3);
	tx_write_seq(0, 1000, 0x800 | TX_TOS_INHERIT, &P.vh, P.buf, P.len,
		     "vxlan-tcp6-partial-cut-tos");
	pkt_build(&u6, &P);
	tx_write_seq(0, 1400, 0x900 | TX_UNDERLAY6, &P.vh, P.buf, P.len,
		     "vxlan-udp6-big-icmp6");
	/* --mode tun: fragments, ICMPv6 into the tun, a cut, not IP. */
	pkt_build(&u, &P);
	pkt_put16(P.buf + P.l3_off + 6, 0);
	seed_resum(&u);
	pkt_to_ip(&P);
	tx_write_seq(FUZZ_GRE, 1400, TX_TUN | 0xa00, &P.vh, P.buf, P.len,
		     "tun-gre-udp4-nodf-frag");
	pkt_build_ip(&u6, &P);
	tx_write_seq(FUZZ_VXLAN_GPE, 1400, TX_TUN | 0xb00 | TX_TOS_INHERIT,
		     &P.vh, P.buf, P.len, "tun-gpe-udp6-big-icmp6");
	pkt_build_ip(&p6, &P);
	tx_write_seq(FUZZ_GRE_UDP, 1000, TX_TUN | 0xc00 | TX_UNDERLAY6, &P.vh,
		     P.buf, P.len, "tun-greudp-tcp6-partial-cut");
	pkt_build_ip(&t, &P);
	P.buf[0] = 0x55;
	tx_write_seq(FUZZ_GRE, 0, TX_TUN | 0xd00, &P.vh, P.buf, P.len,
		     "tun-gre-not-ip");
}

/* The sum runs from csum_start whatever its parity (virtio 5.1.6.2). */
static void tx_odd_start(void)
{
	struct pkt_spec s = { .l4 = IPPROTO_ICMP, .payload_len = 65,
			      .partial = true };

	pkt_build(&s, &P);
	P.vh.csum_start = 35;
	P.vh.csum_offset = 2;
	P.buf[38] = 0;
	tx_write(FUZZ_GRE | FUZZ_CSUM, 0, &P.vh, P.buf, P.len,
		 "gre-csum-odd-csum-start");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR (writes OUTDIR/rx, tx)\n",
			argv[0]);
		return 2;
	}
	out_dir = argv[1];
	rx_simple_runs();
	rx_two_flows();
	rx_run_ends();
	rx_ids();
	rx_flags();
	rx_ext();
	rx_mixed();
	rx_big();
	rx_limits();
	rx_batches();
	rx_fixed();
	rx_errors();
	rx_ecn();
	rx_udp();
	rx_tun_runs();
	rx_tun_errors();
	rx_tun_ecn();
	for (i = 0; i < sizeof(tx_cases) / sizeof(tx_cases[0]); i++)
		tx_spec(&tx_cases[i]);
	tx_lies();
	tx_fixed();
	tx_odd_start();
	tx_path();
	printf("fuzz-seeds: %d inputs written to %s\n", n_written, out_dir);
	return 0;
}
