// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of encap: every encapsulation and option set built over real
 * inner frames and IP packets (tap and tun mode), checked against
 * hand-written layouts, naive sums and the bytes the kernel sends, parsed.
 */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encap/encap.h"
#include "encap/geneve.h"
#include "tap.h"

#define FRAME_MAX 9000
#define ETH_LEN 14
#define IP4_LEN 20
#define IP6_LEN 40
#define PROTO_TCP 6
#define PROTO_UDP 17
/* The longest header: Geneve's 8 bytes and 252 of options (RFC 8926) */
#define HDR_MAX 264

/* ---- independent reference: big-endian 16-bit words, byte by byte ---- */

static uint64_t ref_sum(const uint8_t *p, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (i & 1) ? p[i] : (uint64_t)p[i] << 8;
	return s;
}

static uint16_t ref_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* A folded big-endian sum as the library's wsum sees it: memory order. */
static uint32_t ref_mem16(uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	uint16_t m;

	memcpy(&m, b, 2);
	return m;
}

/* Wsum of a block summed as if it began a packet (kernel skb->csum). */
static uint32_t ref_wsum(const uint8_t *p, size_t n)
{
	return ref_mem16(ref_fold(ref_sum(p, n)));
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

static uint32_t rng_state = 0x2545f491;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/*
 * ---- inner payloads: [Ethernet /] IPv4 or IPv6 / UDP or TCP, checksums
 * filled: an Ethernet frame for a tap (l2), the bare IP packet for a tun
 */

struct inner {
	uint8_t buf[FRAME_MAX];
	size_t len;
	size_t l4_off;		/* the UDP or TCP header */
	size_t l4_end;		/* end of the UDP or TCP header */
	uint64_t pseudo;	/* big-endian sum of the pseudo-header */
	bool l3, v6;
};

/* The IP header at ip, for an L4 datagram of l4_len bytes; its length. */
static size_t inner_ip(uint8_t *ip, bool v6, uint8_t proto, size_t l4_len)
{
	size_t i;

	if (v6) {
		/* RFC 8200 section 3: traffic class 0, a flow label */
		memset(ip, 0, IP6_LEN);
		ip[0] = 0x60;
		wr16(ip + 2, (uint16_t)rnd() & 0x0fff);
		wr16(ip + 4, (uint16_t)l4_len);
		ip[6] = proto;
		ip[7] = 64;
		ip[8] = 0xfd;
		for (i = 9; i < IP6_LEN; i++)
			ip[i] = (uint8_t)rnd();
		return IP6_LEN;
	}
	memset(ip, 0, IP4_LEN);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(IP4_LEN + l4_len));
	wr16(ip + 4, (uint16_t)rnd());
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = proto;
	wr32(ip + 12, rnd());
	wr32(ip + 16, rnd());
	wr16(ip + 10, (uint16_t)~ref_fold(ref_sum(ip, IP4_LEN)));
	return IP4_LEN;
}

static void inner_make(struct inner *f, uint8_t proto, size_t plen, bool l3,
		       bool v6)
{
	size_t l4_hlen = proto == PROTO_TCP ? 20 : 8;
	size_t l4_len = l4_hlen + plen, ip_off = l3 ? 0 : ETH_LEN;
	uint8_t *ip = f->buf + ip_off, *l4;
	uint16_t check;
	size_t i;

	if (!l3) {
		for (i = 0; i < 12; i++)
			f->buf[i] = (uint8_t)rnd();
		f->buf[0] &= 0xfe;	/* unicast */
		wr16(f->buf + 12, v6 ? 0x86dd : 0x0800);
	}
	f->l3 = l3;
	f->v6 = v6;
	f->l4_off = ip_off + inner_ip(ip, v6, proto, l4_len);
	l4 = f->buf + f->l4_off;

	memset(l4, 0, l4_hlen);
	wr16(l4, (uint16_t)rnd());
	wr16(l4 + 2, (uint16_t)rnd());
	if (proto == PROTO_TCP) {
		wr32(l4 + 4, rnd());
		wr32(l4 + 8, rnd());
		l4[12] = 5 << 4;
		l4[13] = 0x18;	/* PSH ACK */
		wr16(l4 + 14, (uint16_t)rnd());
	} else {
		wr16(l4 + 4, (uint16_t)l4_len);
	}
	for (i = 0; i < plen; i++)
		l4[l4_hlen + i] = (uint8_t)rnd();

	/* RFC 793 / RFC 768 pseudo-header; RFC 8200 section 8.1 */
	if (v6)
		f->pseudo = ref_sum(ip + 8, 32) + proto + l4_len;
	else
		f->pseudo = ref_sum(ip + 12, 8) + proto + l4_len;
	check = (uint16_t)~ref_fold(f->pseudo + ref_sum(l4, l4_len));
	if (proto == PROTO_UDP && check == 0)
		check = 0xffff;
	wr16(l4 + (proto == PROTO_TCP ? 16 : 6), check);
	f->len = f->l4_off + l4_len;
	f->l4_end = f->l4_off + l4_hlen;
}

/* ---- segments made by hand, with s->sum computed several ways ---- */

enum sum_mode {
	SUM_LCO,	/* from the L4 header: ~pseudo (lco_csum()) */
	SUM_TAIL,	/* payload only, sum_off = hdr_len = L4 end */
	SUM_TAIL_ODD,	/* payload only, hdr_len one byte past L4 end */
	SUM_MID,	/* from an odd offset inside the IP header */
	SUM_ALL,	/* the whole inner frame */
	SUM__MAX,
};

static const char *const sum_mode_names[] = {
	"lco", "tail", "tail-odd", "mid-odd", "all",
};

struct segbuf {
	uint8_t arena[1 + GSO_SLOT];
	struct seg s;
};

static void seg_make(struct segbuf *sb, const struct inner *f,
		     enum sum_mode mode, int align, uint8_t fill)
{
	struct seg *s = &sb->s;
	size_t split = f->l4_end, off;

	if (mode == SUM_TAIL_ODD && split < f->len)
		split++;
	memset(sb->arena, fill, sizeof(sb->arena));
	s->hdr = sb->arena + align + GSO_HEADROOM;
	memcpy(s->hdr, f->buf, split);
	s->hdr_len = (uint16_t)split;
	s->payload = f->buf + split;
	s->payload_len = (uint32_t)(f->len - split);
	s->sum_valid = true;
	switch (mode) {
	case SUM_LCO:
		off = f->l4_off;
		s->sum = ref_mem16((uint16_t)~ref_fold(f->pseudo));
		break;
	case SUM_MID:
		off = 21;
		s->sum = ref_wsum(f->buf + off, f->len - off);
		break;
	case SUM_ALL:
		off = 0;
		s->sum = ref_wsum(f->buf, f->len);
		break;
	default:
		off = split;
		s->sum = ref_wsum(f->buf + off, f->len - off);
		break;
	}
	s->sum_off = (uint16_t)off;
}

/* ---- expected header layouts, written from the RFCs ---- */

static bool is_gre(const struct encap_cfg *c)
{
	return c->type == ENCAP_GRE || c->type == ENCAP_GRE_UDP;
}

static bool is_gpe(const struct encap_cfg *c)
{
	return c->type == ENCAP_VXLAN_GPE;
}

static bool is_geneve(const struct encap_cfg *c)
{
	return c->type == ENCAP_GENEVE;
}

/* The GRE protocol type: RFC 1701's 0x6558 for Ethernet, else IP's. */
static uint16_t ref_gre_proto(const struct encap_cfg *c, bool v6)
{
	if (!c->l3)
		return 0x6558;
	return v6 ? 0x86dd : 0x0800;
}

/* VXLAN-GPE Next Protocol, draft-ietf-nvo3-vxlan-gpe-12 section 3.1 */
static uint8_t ref_gpe_np(const struct encap_cfg *c, bool v6)
{
	if (!c->l3)
		return 3;
	return v6 ? 2 : 1;
}

static size_t ref_hdr_len(const struct encap_cfg *c)
{
	if (is_geneve(c))
		return 8 + c->geneve_opts_len;
	if (!is_gre(c))
		return 8;
	return 4 + 4 * c->gre_csum + 4 * c->has_key + 4 * c->gre_seq;
}

/* Offsets of the optional GRE fields, or 0 when absent. */
static size_t ref_key_off(const struct encap_cfg *c)
{
	return c->has_key ? 4 + 4 * c->gre_csum : 0;
}

static size_t ref_seq_off(const struct encap_cfg *c)
{
	return c->gre_seq ? 4 + 4 * c->gre_csum + 4 * c->has_key : 0;
}

/* Recompute the GRE checksum of a contiguous packet (RFC 2784 2.2). */
static void ref_gre_fix(uint8_t *pkt, size_t len)
{
	wr16(pkt + 4, 0);
	wr16(pkt + 4, (uint16_t)~ref_fold(ref_sum(pkt, len)));
}

/* Expected header in front of inner frame f, checksum included. */
static size_t ref_hdr(const struct encap_cfg *c, uint32_t seq,
		      const struct inner *f, uint8_t *out)
{
	static uint8_t pkt[HDR_MAX + FRAME_MAX];
	size_t n = ref_hdr_len(c);

	memset(out, 0, n);
	if (is_geneve(c)) {
		/* RFC 8926 3.4: version 0, Opt Len, C, protocol, VNI */
		out[0] = (uint8_t)(c->geneve_opts_len / 4);
		out[1] = c->geneve_crit ? 0x40 : 0;
		wr16(out + 2, ref_gre_proto(c, f->v6));
		wr32(out + 4, c->vni << 8);
		memcpy(out + 8, c->geneve_opts, c->geneve_opts_len);
		return n;
	}
	if (!is_gre(c)) {
		/* VXLAN: I; VXLAN-GPE: I and P, version 0, next protocol */
		out[0] = is_gpe(c) ? 0x0c : 0x08;
		if (is_gpe(c))
			out[3] = ref_gpe_np(c, f->v6);
		out[4] = (uint8_t)(c->vni >> 16);
		out[5] = (uint8_t)(c->vni >> 8);
		out[6] = (uint8_t)c->vni;
		return n;
	}
	out[0] = (c->gre_csum ? 0x80 : 0) | (c->has_key ? 0x20 : 0) |
		 (c->gre_seq ? 0x10 : 0);
	wr16(out + 2, ref_gre_proto(c, f->v6));
	if (c->has_key)
		wr32(out + ref_key_off(c), c->key);
	if (c->gre_seq)
		wr32(out + ref_seq_off(c), seq);
	if (c->gre_csum) {
		memcpy(pkt, out, n);
		memcpy(pkt + n, f->buf, f->len);
		ref_gre_fix(pkt, n + f->len);
		memcpy(out + 4, pkt + 4, 2);
	}
	return n;
}

/* ---- configurations under test ---- */

static struct encap_cfg cfgs[] = {
	{ .type = ENCAP_VXLAN, .vni = 0 },
	{ .type = ENCAP_VXLAN, .vni = 1 },
	{ .type = ENCAP_VXLAN, .vni = 4242 },
	{ .type = ENCAP_VXLAN, .vni = 0x123456 },
	{ .type = ENCAP_VXLAN, .vni = 0xffffff },
	/* the GRE fields mean nothing to VXLAN */
	{ .type = ENCAP_VXLAN, .vni = 0x800001, .key = 7, .has_key = true,
	  .gre_csum = true, .gre_seq = true },
#define GRE_CFGS(t, m)                                                        \
	{ .type = t, .l3 = m },                                               \
	{ .type = t, .l3 = m, .gre_csum = true },                             \
	{ .type = t, .l3 = m, .has_key = true, .key = 0 },                    \
	{ .type = t, .l3 = m, .gre_csum = true, .has_key = true,              \
	  .key = 0xffffffff },                                                \
	{ .type = t, .l3 = m, .gre_seq = true },                              \
	{ .type = t, .l3 = m, .gre_csum = true, .gre_seq = true },            \
	{ .type = t, .l3 = m, .has_key = true, .gre_seq = true,               \
	  .key = 0x01020304 },                                                \
	{ .type = t, .l3 = m, .gre_csum = true, .has_key = true,              \
	  .gre_seq = true, .key = 0x89abcdef }
	GRE_CFGS(ENCAP_GRE, false),
	GRE_CFGS(ENCAP_GRE_UDP, false),
	GRE_CFGS(ENCAP_GRE, true),
	GRE_CFGS(ENCAP_GRE_UDP, true),
#undef GRE_CFGS
#define GPE_CFGS(m)                                                           \
	{ .type = ENCAP_VXLAN_GPE, .l3 = m, .vni = 0 },                       \
	{ .type = ENCAP_VXLAN_GPE, .l3 = m, .vni = 1 },                       \
	{ .type = ENCAP_VXLAN_GPE, .l3 = m, .vni = 0x123456 },                \
	{ .type = ENCAP_VXLAN_GPE, .l3 = m, .vni = 0xffffff },                \
	{ .type = ENCAP_VXLAN_GPE, .l3 = m, .vni = 0x800001, .key = 7,        \
	  .has_key = true, .gre_csum = true, .gre_seq = true }
	GPE_CFGS(false),
	GPE_CFGS(true),
#undef GPE_CFGS
	/*
	 * Geneve, RFC 8926: options of OVN's class 0x0102 (length 0) and
	 * AWS GWLB's 0x0108 (8 bytes), none critical; the last row's 252
	 * bytes of options (Opt Len 63) are written by main().
	 */
#define GENEVE_CFGS(m)                                                        \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 0 },                          \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 1 },                          \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 0x123456 },                   \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 0xffffff },                   \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 0x800001, .key = 7,           \
	  .has_key = true, .gre_csum = true, .gre_seq = true },               \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 5,                            \
	  .geneve_opts = { 0x01, 0x02, 0x00, 0x00 }, .geneve_opts_len = 4 },  \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 0xabcdef,                     \
	  .geneve_opts = { 0x01, 0x08, 0x01, 0x02, 0xde, 0xad, 0xbe, 0xef,    \
			   0x00, 0x11, 0x22, 0x33 },                          \
	  .geneve_opts_len = 12 },                                            \
	{ .type = ENCAP_GENEVE, .l3 = m, .vni = 77 }
	GENEVE_CFGS(false),
	GENEVE_CFGS(true),
#undef GENEVE_CFGS
};

#define N_CFGS (sizeof(cfgs) / sizeof(cfgs[0]))

static const char *cfg_str(const struct encap_cfg *c)
{
	static char buf[96];

	if (is_geneve(c))
		snprintf(buf, sizeof(buf), "geneve vni %#x opts %u %s",
			 c->vni, c->geneve_opts_len, c->l3 ? "tun" : "tap");
	else if (!is_gre(c))
		snprintf(buf, sizeof(buf), "%s vni %#x %s",
			 is_gpe(c) ? "vxlan-gpe" : "vxlan", c->vni,
			 c->l3 ? "tun" : "tap");
	else
		snprintf(buf, sizeof(buf), "%s [%c%c%c] %s",
			 c->type == ENCAP_GRE ? "gre" : "gre-udp",
			 c->gre_csum ? 'C' : '-', c->has_key ? 'K' : '-',
			 c->gre_seq ? 'S' : '-', c->l3 ? "tun" : "tap");
	return buf;
}

/* Equal as one's-complement numbers: 0x0000 and 0xffff are both zero. */
static bool ones_equal(uint16_t a, uint16_t b)
{
	return a == b || ((a == 0 || a == 0xffff) && (b == 0 || b == 0xffff));
}

/*
 * Parse from an exact-size heap copy, so ASan sees any over-read. Where
 * a GRE checksum was verified, the sum handed on must be the inner
 * frame's, by a naive sum; -1 if it is not.
 */
static int parse_copy(const struct encap_cfg *c, const uint8_t *pkt,
		      size_t len, size_t *inner_off, bool *csum_ok)
{
	uint8_t *p = malloc(len ? len : 1);
	struct encap_rx rx = { .inner_off = *inner_off };
	uint16_t got, want;
	int r;

	if (!p) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	memcpy(p, pkt, len);
	r = encap_parse(c, p, len, &rx);
	if (r == DROP_NONE)
		*inner_off = rx.inner_off;
	*csum_ok = r == DROP_NONE ? rx.sum_valid : *csum_ok;
	if (r == DROP_NONE && rx.sum_valid) {
		got = ref_fold(rx.inner_sum);
		want = (uint16_t)ref_wsum(p + rx.inner_off,
					  len - rx.inner_off);
		if (!ones_equal(ref_fold(got), want))
			r = -1;
	}
	free(p);
	return r;
}

/* ---- build: layout, checksum, untouched neighbours, round trip ---- */

enum build_check {
	BC_LEN,		/* hdr_len and the returned pointer */
	BC_LAYOUT,	/* bytes equal the expected layout */
	BC_CLEAN,	/* nothing written outside the header */
	BC_CSUM,	/* naive sum over header + hdr + payload */
	BC_PARSE,	/* parse round trip */
	BC__MAX,
};

static const char *const bc_names[] = {
	"header length and position",
	"header bytes match the RFC (draft) layout",
	"nothing written outside the header, seg unchanged",
	"GRE checksum verifies by a naive sum over the whole packet",
	"parse round trip gives inner_off and csum_ok",
};

static const size_t payload_lens[] = { 0, 1, 2, 333, 1400, 8191 };

#define N_PLENS (sizeof(payload_lens) / sizeof(payload_lens[0]))

struct build_case {
	bool v6;		/* the inner packet's IP version */
	uint8_t proto;
	size_t plen;
	enum sum_mode mode;
	int align;
	uint32_t seq;
};

static void case_str(const struct build_case *bc, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s payload %zu sum %s align %d seq %#x",
		 bc->v6 ? "ipv6" : "ipv4",
		 bc->proto == PROTO_TCP ? "tcp" : "udp", bc->plen,
		 sum_mode_names[bc->mode], bc->align, bc->seq);
}

/* Runs one case; sets bad[check] and prints a diagnostic on failure. */
static void build_one(const struct encap_cfg *c, const struct build_case *bc,
		      int *bad)
{
	static struct inner f;
	static struct segbuf sb;
	static uint8_t pkt[1 + HDR_MAX + FRAME_MAX];
	uint8_t want[HDR_MAX], fill = bc->align ? 0xff : 0xa5;
	bool want_ok = is_gre(c) && c->gre_csum;
	bool csum_ok = !want_ok, clean = true;
	size_t hlen, n, i, inner_off = 99;
	struct seg copy;
	uint8_t *h;
	char what[128];
	int r;

	inner_make(&f, bc->proto, bc->plen, c->l3, bc->v6);
	seg_make(&sb, &f, bc->mode, bc->align, fill);
	copy = sb.s;
	hlen = ref_hdr(c, bc->seq, &f, want);
	case_str(bc, what, sizeof(what));

	h = encap_build(c, &sb.s, bc->seq);
	if (encap_hdr_len(c) != hlen || h != sb.s.hdr - hlen) {
		if (!bad[BC_LEN]++)
			printf("# %s: %s: hdr_len %zu, offset %td\n",
			       cfg_str(c), what, encap_hdr_len(c),
			       sb.s.hdr - h);
		return;
	}
	if (memcmp(h, want, hlen)) {
		if (!bad[BC_LAYOUT]++) {
			printf("# %s: %s:\n#  got ", cfg_str(c), what);
			for (i = 0; i < hlen; i++)
				printf("%02x", h[i]);
			printf("\n# want ");
			for (i = 0; i < hlen; i++)
				printf("%02x", want[i]);
			printf("\n");
		}
	}
	for (i = 0; i < (size_t)(h - sb.arena); i++)
		clean &= sb.arena[i] == fill;
	clean &= !memcmp(sb.s.hdr, f.buf, sb.s.hdr_len);
	for (i = (size_t)(sb.s.hdr - sb.arena) + sb.s.hdr_len;
	     i < sizeof(sb.arena); i++)
		clean &= sb.arena[i] == fill;
	clean &= !memcmp(&copy, &sb.s, sizeof(copy));
	if (!clean && !bad[BC_CLEAN]++)
		printf("# %s: %s: bytes outside the header changed\n",
		       cfg_str(c), what);

	/* the packet as it goes on the wire: three pieces joined */
	n = bc->align;
	memcpy(pkt + n, h, hlen);
	n += hlen;
	memcpy(pkt + n, sb.s.hdr, sb.s.hdr_len);
	n += sb.s.hdr_len;
	memcpy(pkt + n, sb.s.payload, sb.s.payload_len);
	n += sb.s.payload_len;
	n -= bc->align;
	if (is_gre(c) && c->gre_csum &&
	    ref_fold(ref_sum(pkt + bc->align, n)) != 0xffff) {
		if (!bad[BC_CSUM]++)
			printf("# %s: %s: sum %#x\n", cfg_str(c), what,
			       ref_fold(ref_sum(pkt + bc->align, n)));
	}

	r = parse_copy(c, pkt + bc->align, n, &inner_off, &csum_ok);
	if (r != DROP_NONE || inner_off != hlen || csum_ok != want_ok) {
		if (!bad[BC_PARSE]++)
			printf("# %s: %s: parse %d inner_off %zu csum_ok %d\n",
			       cfg_str(c), what, r, inner_off, csum_ok);
	}
}

static const uint32_t seqs[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff };

static void test_build(const struct encap_cfg *c)
{
	static const uint8_t protos[] = { PROTO_UDP, PROTO_TCP };
	int bad[BC__MAX] = { 0 }, k = 0, v;
	struct build_case bc;
	size_t p, l;
	int m;

	for (v = 0; v < 2; v++) {
		for (p = 0; p < 2; p++) {
			for (l = 0; l < N_PLENS; l++) {
				for (m = 0; m < SUM__MAX; m++) {
					bc.v6 = v;
					bc.proto = protos[p];
					bc.plen = payload_lens[l];
					bc.mode = (enum sum_mode)m;
					bc.align = k & 1;
					bc.seq = k < 5 ? seqs[k] : rnd();
					k++;
					build_one(c, &bc, bad);
				}
			}
		}
	}
	for (m = 0; m < BC__MAX; m++) {
		if (m == BC_CSUM && !(is_gre(c) && c->gre_csum))
			continue;
		ok(!bad[m], "%s: %s (%d cases)", cfg_str(c), bc_names[m], k);
	}
}

static int count_build(const struct encap_cfg *c)
{
	return BC__MAX - !(is_gre(c) && c->gre_csum);
}

/* ---- mutations of a good packet ---- */

/* Where a mutation applies in the packet (as the test lays it out). */
enum field {
	F_ABS,		/* from the start of the header */
	F_PROTO,	/* GRE protocol type */
	F_CSUM,		/* GRE checksum */
	F_KEY,		/* GRE key */
	F_SEQ,		/* GRE sequence number */
	F_OPT,		/* the first Geneve option */
	F_INNER,	/* the inner frame */
	F_END,		/* from the end of the packet */
};

/* A change to the configuration the packet is parsed with. */
enum tweak {
	TW_NONE,
	TW_VNI,		/* another VNI */
	TW_KEY_ON,	/* ask for a key (the packet's, when it has one) */
	TW_KEY_OFF,
	TW_KEY_OTHER,	/* another key */
	TW_CSUM_ON,
	TW_CSUM_OFF,
	TW_SEQ_ON,
	TW_SEQ_OFF,
};

/*
 * When a mutation applies: all bits must hold for the configuration and
 * the good packet's inner IP version.
 */
#define W_VXLAN 0x001		/* plain VXLAN */
#define W_GRE 0x002		/* gre, gre-udp */
#define W_C 0x004
#define W_NO_C 0x008
#define W_K 0x010
#define W_NO_K 0x020
#define W_S 0x040
#define W_NO_S 0x080
#define W_GPE 0x100		/* VXLAN-GPE */
#define W_VNI 0x200		/* VXLAN or VXLAN-GPE: an id by VNI */
#define W_L2 0x400		/* tap mode: Ethernet inside */
#define W_L3 0x800		/* tun mode: IP inside */
#define W_V4 0x1000		/* the inner packet is IPv4 */
#define W_V6 0x2000		/* ... IPv6 */
#define W_GENEVE 0x4000		/* Geneve */
#define W_OPT1 0x8000		/* Geneve with exactly one option */

struct mutation {
	const char *name;
	unsigned int when;
	enum field field;
	int off;
	uint16_t xor16;		/* XORed into the big-endian word there */
	enum tweak tweak;
	bool stale;		/* leave the GRE checksum as it was */
	int want;
	bool set;		/* write xor16 there instead */
};

static const struct mutation mutations[] = {
	{ "good packet", W_VNI, F_ABS, 0, 0, TW_NONE, false, DROP_NONE, false },
	{ "good packet", W_GRE, F_ABS, 0, 0, TW_NONE, false, DROP_NONE, false },
	/* VXLAN, RFC 7348 section 5 and the kernel's vxlan_rcv() */
	{ "I flag clear", W_VNI, F_ABS, 0, 0x0800, TW_NONE, false,
	  DROP_RX_FLAGS, false },
	{ "VNI lowest bit flipped", W_VNI, F_ABS, 6, 0x0100, TW_NONE, false,
	  DROP_RX_VNI, false },
	{ "VNI highest bit flipped", W_VNI, F_ABS, 4, 0x8000, TW_NONE,
	  false, DROP_RX_VNI, false },
	{ "configured VNI differs", W_VNI, F_ABS, 0, 0, TW_VNI, false,
	  DROP_RX_VNI, false },
	{ "I flag clear beats wrong VNI", W_VNI, F_ABS, 0, 0x0800, TW_VNI,
	  false, DROP_RX_FLAGS, false },
	{ "wrong VNI beats reserved bit", W_VXLAN, F_ABS, 2, 0x0001, TW_VNI,
	  false, DROP_RX_VNI, false },
	{ "GRE key in cfg ignored", W_VNI, F_ABS, 0, 0, TW_KEY_ON, false,
	  DROP_NONE, false },
	{ "GRE csum in cfg ignored", W_VNI, F_ABS, 0, 0, TW_CSUM_ON, false,
	  DROP_NONE, false },
	/*
	 * VXLAN-GPE, draft-ietf-nvo3-vxlan-gpe-12 section 3.1, in the order
	 * of vxlan_rcv() and vxlan_parse_gpe_proto()
	 */
	{ "P flag clear", W_GPE, F_ABS, 0, 0x0400, TW_NONE, false,
	  DROP_RX_GPE_FLAGS, false },
	{ "version 1", W_GPE, F_ABS, 0, 0x1000, TW_NONE, false,
	  DROP_RX_GPE_FLAGS, false },
	{ "version 2", W_GPE, F_ABS, 0, 0x2000, TW_NONE, false,
	  DROP_RX_GPE_FLAGS, false },
	{ "version 3", W_GPE, F_ABS, 0, 0x3000, TW_NONE, false,
	  DROP_RX_GPE_FLAGS, false },
	{ "O bit (OAM)", W_GPE, F_ABS, 0, 0x0100, TW_NONE, false,
	  DROP_RX_GPE_FLAGS, false },
	{ "B bit: a reserved bit to the kernel", W_GPE, F_ABS, 0, 0x0200,
	  TW_NONE, false, DROP_RX_FLAGS, false },
	{ "wrong VNI beats version 1", W_GPE, F_ABS, 0, 0x1000, TW_VNI, false,
	  DROP_RX_VNI, false },
	{ "wrong VNI beats OAM", W_GPE, F_ABS, 0, 0x0100, TW_VNI, false,
	  DROP_RX_VNI, false },
	{ "I flag clear beats P flag clear", W_GPE, F_ABS, 0, 0x0c00,
	  TW_NONE, false, DROP_RX_FLAGS, false },
	{ "version beats reserved bit", W_GPE, F_ABS, 0, 0x9000, TW_NONE,
	  false, DROP_RX_GPE_FLAGS, false },
	{ "OAM beats reserved bit", W_GPE, F_ABS, 0, 0x0d01, TW_NONE, false,
	  DROP_RX_GPE_FLAGS, true },
	{ "next protocol 0", W_GPE, F_ABS, 2, 0x0000, TW_NONE, false,
	  DROP_RX_GPE_PROTO, true },
	{ "next protocol 4 (NSH)", W_GPE, F_ABS, 2, 0x0004, TW_NONE, false,
	  DROP_RX_GPE_PROTO, true },
	{ "next protocol 5 (MPLS)", W_GPE, F_ABS, 2, 0x0005, TW_NONE, false,
	  DROP_RX_GPE_PROTO, true },
	{ "next protocol 6", W_GPE, F_ABS, 2, 0x0006, TW_NONE, false,
	  DROP_RX_GPE_PROTO, true },
	{ "next protocol 0xff", W_GPE, F_ABS, 2, 0x00ff, TW_NONE, false,
	  DROP_RX_GPE_PROTO, true },
	{ "unknown next protocol beats reserved bit", W_GPE, F_ABS, 2, 0x0106,
	  TW_NONE, false, DROP_RX_GPE_PROTO, true },
	{ "reserved bit beats next protocol not carried (NSH)", W_GPE, F_ABS,
	  2, 0x0104, TW_NONE, false, DROP_RX_FLAGS, true },
	{ "reserved last byte", W_GPE, F_ABS, 6, 0x0001, TW_NONE, false,
	  DROP_RX_FLAGS, false },
	{ "next protocol 3 (Ethernet) in tun mode", W_GPE | W_L3, F_ABS, 2,
	  0x0003, TW_NONE, false, DROP_RX_GPE_PROTO, true },
	{ "next protocol 1 (IPv4) in tap mode", W_GPE | W_L2, F_ABS, 2, 0x0001,
	  TW_NONE, false, DROP_RX_GPE_PROTO, true },
	{ "next protocol 2 (IPv6) in tap mode", W_GPE | W_L2, F_ABS, 2, 0x0002,
	  TW_NONE, false, DROP_RX_GPE_PROTO, true },
	{ "next protocol 2 over an IPv4 packet", W_GPE | W_L3 | W_V4, F_ABS, 2,
	  0x0002, TW_NONE, false, DROP_RX_INNER_HDR, true },
	{ "next protocol 1 over an IPv6 packet", W_GPE | W_L3 | W_V6, F_ABS, 2,
	  0x0001, TW_NONE, false, DROP_RX_INNER_HDR, true },
	{ "inner IP version 5", W_GPE | W_L3, F_INNER, 0, 0x1000, TW_NONE,
	  false, DROP_RX_INNER_HDR, false },
	{ "inner version not looked at in tap mode", W_VNI | W_L2, F_INNER,
	  14, 0x1000, TW_NONE, false, DROP_NONE, false },
	/* GRE version and flags, RFC 2784 section 2.1, gre_parse_header() */
	{ "version 1", W_GRE, F_ABS, 0, 0x0001, TW_NONE, false,
	  DROP_RX_GRE_VERSION, false },
	{ "version 2", W_GRE, F_ABS, 0, 0x0002, TW_NONE, false,
	  DROP_RX_GRE_VERSION, false },
	{ "version 4", W_GRE, F_ABS, 0, 0x0004, TW_NONE, false,
	  DROP_RX_GRE_VERSION, false },
	{ "version 7 with routing", W_GRE, F_ABS, 0, 0x4007, TW_NONE, false,
	  DROP_RX_GRE_VERSION, false },
	{ "version 1, stale checksum", W_GRE | W_C, F_ABS, 0, 0x0001, TW_NONE,
	  true, DROP_RX_GRE_VERSION, false },
	{ "routing bit", W_GRE, F_ABS, 0, 0x4000, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "strict source route bit", W_GRE, F_ABS, 0, 0x0800, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "recursion control 1", W_GRE, F_ABS, 0, 0x0100, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "recursion control 2", W_GRE, F_ABS, 0, 0x0200, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "recursion control 4", W_GRE, F_ABS, 0, 0x0400, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "reserved flag 0x0008", W_GRE, F_ABS, 0, 0x0008, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "reserved flag 0x0010", W_GRE, F_ABS, 0, 0x0010, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "reserved flag 0x0020", W_GRE, F_ABS, 0, 0x0020, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "reserved flag 0x0040", W_GRE, F_ABS, 0, 0x0040, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	{ "reserved flag 0x0080", W_GRE, F_ABS, 0, 0x0080, TW_NONE, false,
	  DROP_RX_GRE_FLAGS, false },
	/* protocol type: TEB in tap mode, IPv4 or IPv6 in tun mode */
	{ "protocol 0x0800 in tap mode", W_GRE | W_L2, F_PROTO, 0, 0x0800,
	  TW_NONE, false, DROP_RX_GRE_PROTO, true },
	{ "protocol 0x86dd in tap mode", W_GRE | W_L2, F_PROTO, 0, 0x86dd,
	  TW_NONE, false, DROP_RX_GRE_PROTO, true },
	{ "protocol 0x6558 (TEB) in tun mode", W_GRE | W_L3, F_PROTO, 0,
	  0x6558, TW_NONE, false, DROP_RX_GRE_PROTO, true },
	{ "protocol low bit flipped", W_GRE, F_PROTO, 0, 0x0001, TW_NONE,
	  false, DROP_RX_GRE_PROTO, false },
	{ "bad protocol, stale checksum", W_GRE | W_C, F_PROTO, 0, 0x0001,
	  TW_NONE, true, DROP_RX_CSUM, false },
	{ "protocol 0x86dd over an IPv4 packet", W_GRE | W_L3 | W_V4, F_PROTO,
	  0, 0x86dd, TW_NONE, false, DROP_RX_INNER_HDR, true },
	{ "protocol 0x0800 over an IPv6 packet", W_GRE | W_L3 | W_V6, F_PROTO,
	  0, 0x0800, TW_NONE, false, DROP_RX_INNER_HDR, true },
	{ "inner IP version 5", W_GRE | W_L3, F_INNER, 0, 0x1000, TW_NONE,
	  false, DROP_RX_INNER_HDR, false },
	{ "inner version 5, stale checksum", W_GRE | W_L3 | W_C, F_INNER, 0,
	  0x1000, TW_NONE, true, DROP_RX_CSUM, false },
	{ "TEB in tun mode beats a wrong key", W_GRE | W_L3 | W_K, F_PROTO, 0,
	  0x6558, TW_KEY_OTHER, false, DROP_RX_GRE_PROTO, true },
	{ "wrong key beats a wrong inner version", W_GRE | W_L3 | W_K, F_INNER,
	  0, 0x1000, TW_KEY_OTHER, false, DROP_RX_KEY, false },
	{ "inner version not looked at in tap mode", W_GRE | W_L2, F_INNER,
	  14, 0x1000, TW_NONE, false, DROP_NONE, false },
	/* key, RFC 2890 section 2.1, as ip_tunnel_lookup() matches */
	{ "key absent, cfg has one", W_GRE | W_NO_K, F_ABS, 0, 0, TW_KEY_ON,
	  false, DROP_RX_KEY, false },
	{ "key present, cfg has none", W_GRE | W_K, F_ABS, 0, 0, TW_KEY_OFF,
	  false, DROP_RX_KEY, false },
	{ "cfg has another key", W_GRE | W_K, F_ABS, 0, 0, TW_KEY_OTHER,
	  false, DROP_RX_KEY, false },
	{ "key low bit flipped", W_GRE | W_K, F_KEY, 2, 0x0001, TW_NONE, false,
	  DROP_RX_KEY, false },
	{ "key high bit flipped", W_GRE | W_K, F_KEY, 0, 0x8000, TW_NONE,
	  false, DROP_RX_KEY, false },
	{ "key flipped, stale checksum", W_GRE | W_K | W_C, F_KEY, 0, 0x0100,
	  TW_NONE, true, DROP_RX_CSUM, false },
	/* checksum, RFC 2784 section 2.2 */
	{ "first inner byte corrupted", W_GRE | W_C, F_INNER, 0, 0x0100,
	  TW_NONE, true, DROP_RX_CSUM, false },
	{ "last byte corrupted", W_GRE | W_C, F_END, -2, 0x0001, TW_NONE, true,
	  DROP_RX_CSUM, false },
	{ "payload byte corrupted", W_GRE | W_C, F_INNER, 61, 0x2000, TW_NONE,
	  true, DROP_RX_CSUM, false },
	{ "checksum field corrupted", W_GRE | W_C, F_CSUM, 0, 0x0001, TW_NONE,
	  true, DROP_RX_CSUM, false },
	{ "sequence corrupted, stale checksum", W_GRE | W_C | W_S, F_SEQ, 0,
	  0x8000, TW_NONE, true, DROP_RX_CSUM, false },
	{ "reserved1 nonzero", W_GRE | W_C, F_CSUM, 2, 0x1234, TW_NONE, false,
	  DROP_NONE, false },
	{ "checksum absent, cfg requires it", W_GRE | W_NO_C, F_ABS, 0, 0,
	  TW_CSUM_ON, false, DROP_RX_CSUM_MISSING, false },
	{ "checksum present, cfg does not ask", W_GRE | W_C, F_ABS, 0, 0,
	  TW_CSUM_OFF, false, DROP_NONE, false },
	/* sequence numbers: any accepted (no ISEQ ordering) */
	{ "sequence absent, cfg has seq", W_GRE | W_NO_S, F_ABS, 0, 0,
	  TW_SEQ_ON, false, DROP_NONE, false },
	{ "sequence present, cfg has none", W_GRE | W_S, F_ABS, 0, 0,
	  TW_SEQ_OFF, false, DROP_NONE, false },
	{ "sequence number changed", W_GRE | W_S, F_SEQ, 0, 0xffff, TW_NONE,
	  false, DROP_NONE, false },
	/*
	 * Geneve, RFC 8926 section 3.4, in geneve_udp_encap_recv()'s order:
	 * version, protocol type, VNI, the protocol of the mode, options
	 */
	{ "good packet", W_GENEVE, F_ABS, 0, 0, TW_NONE, false, DROP_NONE,
	  false },
	{ "version 1", W_GENEVE, F_ABS, 0, 0x4000, TW_NONE, false,
	  DROP_RX_GENEVE_VERSION, false },
	{ "version 2", W_GENEVE, F_ABS, 0, 0x8000, TW_NONE, false,
	  DROP_RX_GENEVE_VERSION, false },
	{ "version 3", W_GENEVE, F_ABS, 0, 0xc000, TW_NONE, false,
	  DROP_RX_GENEVE_VERSION, false },
	{ "version 1 beats wrong VNI", W_GENEVE, F_ABS, 0, 0x4000, TW_VNI,
	  false, DROP_RX_GENEVE_VERSION, false },
	{ "version 1 beats OAM", W_GENEVE, F_ABS, 0, 0x4080, TW_NONE, false,
	  DROP_RX_GENEVE_VERSION, false },
	{ "VNI lowest bit flipped", W_GENEVE, F_ABS, 6, 0x0100, TW_NONE, false,
	  DROP_RX_VNI, false },
	{ "VNI highest bit flipped", W_GENEVE, F_ABS, 4, 0x8000, TW_NONE,
	  false, DROP_RX_VNI, false },
	{ "configured VNI differs", W_GENEVE, F_ABS, 0, 0, TW_VNI, false,
	  DROP_RX_VNI, false },
	{ "wrong VNI beats OAM", W_GENEVE, F_ABS, 0, 0x0080, TW_VNI, false,
	  DROP_RX_VNI, false },
	{ "GRE key in cfg ignored", W_GENEVE, F_ABS, 0, 0, TW_KEY_ON, false,
	  DROP_NONE, false },
	{ "protocol 0x0800 in tap mode", W_GENEVE | W_L2, F_PROTO, 0, 0x0800,
	  TW_NONE, false, DROP_RX_GENEVE_PROTO, true },
	{ "protocol 0x86dd in tap mode", W_GENEVE | W_L2, F_PROTO, 0, 0x86dd,
	  TW_NONE, false, DROP_RX_GENEVE_PROTO, true },
	{ "protocol 0x6558 (TEB) in tun mode", W_GENEVE | W_L3, F_PROTO, 0,
	  0x6558, TW_NONE, false, DROP_RX_GENEVE_PROTO, true },
	{ "protocol 0x8847 (MPLS)", W_GENEVE, F_PROTO, 0, 0x8847, TW_NONE,
	  false, DROP_RX_GENEVE_PROTO, true },
	{ "protocol 0x894f (NSH)", W_GENEVE, F_PROTO, 0, 0x894f, TW_NONE,
	  false, DROP_RX_GENEVE_PROTO, true },
	{ "protocol low bit flipped", W_GENEVE, F_PROTO, 0, 0x0001, TW_NONE,
	  false, DROP_RX_GENEVE_PROTO, false },
	{ "unknown protocol beats wrong VNI", W_GENEVE, F_PROTO, 0, 0x8847,
	  TW_VNI, false, DROP_RX_GENEVE_PROTO, true },
	{ "wrong VNI beats TEB in tun mode", W_GENEVE | W_L3, F_PROTO, 0,
	  0x6558, TW_VNI, false, DROP_RX_VNI, true },
	{ "protocol 0x86dd over an IPv4 packet", W_GENEVE | W_L3 | W_V4,
	  F_PROTO, 0, 0x86dd, TW_NONE, false, DROP_RX_INNER_HDR, true },
	{ "protocol 0x0800 over an IPv6 packet", W_GENEVE | W_L3 | W_V6,
	  F_PROTO, 0, 0x0800, TW_NONE, false, DROP_RX_INNER_HDR, true },
	{ "inner IP version 5", W_GENEVE | W_L3, F_INNER, 0, 0x1000, TW_NONE,
	  false, DROP_RX_INNER_HDR, false },
	{ "inner version not looked at in tap mode", W_GENEVE | W_L2, F_INNER,
	  14, 0x1000, TW_NONE, false, DROP_NONE, false },
	{ "O bit (OAM): not for the tap", W_GENEVE, F_ABS, 0, 0x0080, TW_NONE,
	  false, DROP_RX_GENEVE_OAM, false },
	{ "C bit with no critical option: accepted", W_GENEVE, F_ABS, 0,
	  0x0040, TW_NONE, false, DROP_NONE, false },
	{ "reserved bits (Rsvd) ignored", W_GENEVE, F_ABS, 0, 0x003f, TW_NONE,
	  false, DROP_NONE, false },
	{ "reserved last byte ignored", W_GENEVE, F_ABS, 6, 0x00ff, TW_NONE,
	  false, DROP_NONE, false },
	/* the options, section 3.5 */
	{ "option's critical bit set: unknown, dropped", W_GENEVE | W_OPT1,
	  F_OPT, 2, 0x8000, TW_NONE, false, DROP_RX_GENEVE_CRITICAL, false },
	{ "option's R bits ignored", W_GENEVE | W_OPT1, F_OPT, 2, 0x00e0,
	  TW_NONE, false, DROP_NONE, false },
	{ "option class changed: ignored", W_GENEVE | W_OPT1, F_OPT,
	  0, 0x7f7f, TW_NONE, false, DROP_NONE, false },
	{ "option one word longer: past Opt Len", W_GENEVE | W_OPT1, F_OPT, 2,
	  0x0001, TW_NONE, false, DROP_RX_GENEVE_OPT, false },
	{ "option length bits flipped: past Opt Len", W_GENEVE | W_OPT1,
	  F_OPT, 2, 0x001f, TW_NONE, false, DROP_RX_GENEVE_OPT, false },
	{ "option past Opt Len beats critical", W_GENEVE | W_OPT1, F_OPT, 2,
	  0x8001, TW_NONE, false, DROP_RX_GENEVE_OPT, false },
};

#define N_MUTATIONS (sizeof(mutations) / sizeof(mutations[0]))

/* Has c exactly one Geneve option? */
static bool geneve_one_opt(const struct encap_cfg *c)
{
	return c->geneve_opts_len &&
	       4 + (c->geneve_opts[3] & 0x1f) * 4 == c->geneve_opts_len;
}

/* The W_* bits of c with an inner packet of IP version v6 or not. */
static unsigned int cfg_bits(const struct encap_cfg *c, bool v6)
{
	unsigned int w = (c->l3 ? W_L3 : W_L2) | (v6 ? W_V6 : W_V4);

	if (is_geneve(c))
		return w | W_GENEVE | (geneve_one_opt(c) ? W_OPT1 : 0);
	if (!is_gre(c))
		return w | W_VNI | (is_gpe(c) ? W_GPE : W_VXLAN);
	return w | W_GRE | (c->gre_csum ? W_C : W_NO_C) |
	       (c->has_key ? W_K : W_NO_K) | (c->gre_seq ? W_S : W_NO_S);
}

static bool mut_applies(const struct mutation *m, const struct encap_cfg *c,
			bool v6)
{
	return (m->when & cfg_bits(c, v6)) == m->when;
}

static struct encap_cfg cfg_tweak(const struct encap_cfg *c, enum tweak t)
{
	struct encap_cfg r = *c;

	switch (t) {
	case TW_VNI:
		r.vni = (c->vni + 1) & 0xffffff;
		break;
	case TW_KEY_ON:
		r.has_key = true;
		break;
	case TW_KEY_OFF:
		r.has_key = false;
		break;
	case TW_KEY_OTHER:
		r.key = c->key + 1;
		break;
	case TW_CSUM_ON:
		r.gre_csum = true;
		break;
	case TW_CSUM_OFF:
		r.gre_csum = false;
		break;
	case TW_SEQ_ON:
		r.gre_seq = true;
		break;
	case TW_SEQ_OFF:
		r.gre_seq = false;
		break;
	default:
		break;
	}
	return r;
}

/* A good packet for c: TCP over IPv4 or IPv6, 100 bytes of payload. */
static size_t good_packet(const struct encap_cfg *c, bool v6, uint8_t *pkt)
{
	static struct inner f;
	static struct segbuf sb;
	size_t hlen;
	uint8_t *h;

	inner_make(&f, PROTO_TCP, 100, c->l3, v6);
	seg_make(&sb, &f, SUM_LCO, 0, 0);
	h = encap_build(c, &sb.s, 0x01020304);
	hlen = ref_hdr_len(c);
	memcpy(pkt, h, hlen);
	memcpy(pkt + hlen, f.buf, f.len);
	return hlen + f.len;
}

static size_t field_off(const struct encap_cfg *c, enum field fld,
			size_t len)
{
	switch (fld) {
	case F_PROTO:
		return 2;
	case F_CSUM:
		return 4;
	case F_OPT:
		return 8;
	case F_KEY:
		return ref_key_off(c);
	case F_SEQ:
		return ref_seq_off(c);
	case F_INNER:
		return ref_hdr_len(c);
	case F_END:
		return len;
	default:
		return 0;
	}
}

static void test_mutations(const struct encap_cfg *c, bool v6)
{
	static uint8_t good[HDR_MAX + FRAME_MAX], pkt[HDR_MAX + FRAME_MAX];
	size_t len = good_packet(c, v6, good), at, inner_off;
	const struct mutation *m;
	struct encap_cfg pc;
	bool csum_ok;
	size_t i;
	int r;

	for (i = 0; i < N_MUTATIONS; i++) {
		m = &mutations[i];
		if (!mut_applies(m, c, v6))
			continue;
		memcpy(pkt, good, len);
		at = field_off(c, m->field, len) + (size_t)m->off;
		if (m->set)
			wr16(pkt + at, 0);
		pkt[at] ^= (uint8_t)(m->xor16 >> 8);
		pkt[at + 1] ^= (uint8_t)m->xor16;
		if (is_gre(c) && c->gre_csum && !m->stale)
			ref_gre_fix(pkt, len);
		pc = cfg_tweak(c, m->tweak);
		inner_off = 0;
		csum_ok = !(is_gre(c) && c->gre_csum);
		r = parse_copy(&pc, pkt, len, &inner_off, &csum_ok);
		if (m->want == DROP_NONE)
			ok(r == DROP_NONE && inner_off == ref_hdr_len(c) &&
				   csum_ok == (is_gre(c) && c->gre_csum),
			   "%s %s: %s: accepted (got %d, inner_off %zu, "
			   "csum_ok %d)", cfg_str(c), v6 ? "ipv6" : "ipv4",
			   m->name, r, inner_off, csum_ok);
		else
			is_int(r, m->want, "%s %s: %s: error %d", cfg_str(c),
			       v6 ? "ipv6" : "ipv4", m->name, m->want);
	}
}

static int count_mutations(const struct encap_cfg *c, bool v6)
{
	size_t i;
	int n = 0;

	for (i = 0; i < N_MUTATIONS; i++)
		n += mut_applies(&mutations[i], c, v6);
	return n;
}

/* Every reserved VXLAN bit (all of the first word but I, the last byte). */
static void test_vxlan_reserved(const struct encap_cfg *c)
{
	static uint8_t good[HDR_MAX + FRAME_MAX], pkt[HDR_MAX + FRAME_MAX];
	size_t len = good_packet(c, false, good), byte, inner_off;
	int bad = 0, n = 0, bit, r;
	bool csum_ok;

	for (byte = 0; byte < 8; byte++) {
		if (byte >= 4 && byte < 7)
			continue;	/* the VNI */
		for (bit = 0; bit < 8; bit++) {
			if (byte == 0 && bit == 3)
				continue;	/* I */
			memcpy(pkt, good, len);
			pkt[byte] ^= (uint8_t)(1 << bit);
			r = parse_copy(c, pkt, len, &inner_off, &csum_ok);
			n++;
			if (r != DROP_RX_FLAGS && !bad++)
				printf("# byte %zu bit %d: got %d\n", byte,
				       bit, r);
		}
	}
	ok(!bad && n == 39, "%s: each of the %d reserved bits gives FLAGS",
	   cfg_str(c), n);
}

/*
 * Each bit of mask (the first 8 bytes of c's header) flipped alone in a
 * good packet: parse gives want every time; n bits are looked at.
 */
static int test_header_bits(const struct encap_cfg *c, const uint8_t *mask,
			    enum drop want, int *n)
{
	static uint8_t good[HDR_MAX + FRAME_MAX], pkt[HDR_MAX + FRAME_MAX];
	size_t len = good_packet(c, false, good), byte, inner_off;
	int bad = 0, bit, r;
	bool csum_ok;

	*n = 0;
	for (byte = 0; byte < 8; byte++) {
		for (bit = 0; bit < 8; bit++) {
			if (!(mask[byte] & 1 << bit))
				continue;
			memcpy(pkt, good, len);
			pkt[byte] ^= (uint8_t)(1 << bit);
			r = parse_copy(c, pkt, len, &inner_off, &csum_ok);
			(*n)++;
			if (r != (int)want && !bad++)
				printf("# byte %zu bit %d: got %d\n", byte,
				       bit, r);
		}
	}
	return bad;
}

/*
 * Every bit of a VXLAN-GPE header that vxlan_rcv() leaves unparsed (not
 * in VXLAN_GPE_USED_BITS, not I) gives FLAGS as in VXLAN: the two top
 * bits and B of the first byte, the reserved 16 bits, the last byte.
 */
static void test_gpe_reserved(const struct encap_cfg *c)
{
	static const uint8_t mask[8] = { 0xc2, 0xff, 0xff, 0, 0, 0, 0, 0xff };
	int n, bad = test_header_bits(c, mask, DROP_RX_FLAGS, &n);

	ok(!bad && n == 27, "%s: each of the %d reserved bits gives FLAGS",
	   cfg_str(c), n);
}

/*
 * Every reserved bit of a Geneve header (Rsvd, the last byte) is ignored
 * on receipt (RFC 8926 section 3.4), as the kernel's geneve does.
 */
static void test_geneve_reserved(const struct encap_cfg *c)
{
	static const uint8_t mask[8] = { 0, 0x3f, 0, 0, 0, 0, 0, 0xff };
	int n, bad = test_header_bits(c, mask, DROP_NONE, &n);

	ok(!bad && n == 14, "%s: each of the %d reserved bits is ignored",
	   cfg_str(c), n);
}

/*
 * Truncation: below the header SHORT (Geneve: below its base header;
 * into its options, Opt Len past the packet, OPT); an inner payload under
 * an Ethernet header (tap) or an IPv4 header (tun, ip_rcv_core())
 * INNER_SHORT.
 */
static void test_lengths(const struct encap_cfg *c)
{
	static uint8_t good[HDR_MAX + FRAME_MAX], pkt[HDR_MAX + FRAME_MAX];
	size_t hlen = ref_hdr_len(c), l, inner_off, min = c->l3 ? 20 : 14;
	bool csum_ok, fix = is_gre(c) && c->gre_csum;
	int bad_short = 0, bad_inner = 0, r;

	good_packet(c, false, good);
	for (l = 0; l < hlen; l++) {
		r = parse_copy(c, good, l, &inner_off, &csum_ok);
		if (r != (is_geneve(c) && l >= 8 ? DROP_RX_GENEVE_OPT :
			  DROP_RX_SHORT) && !bad_short++)
			printf("# length %zu: got %d\n", l, r);
	}
	ok(!bad_short, "%s: truncated to each of 0..%zu bytes gives SHORT",
	   cfg_str(c), hlen - 1);

	for (l = hlen; l < hlen + min; l++) {
		memcpy(pkt, good, l);
		if (fix)
			ref_gre_fix(pkt, l);
		r = parse_copy(c, pkt, l, &inner_off, &csum_ok);
		if (r != DROP_RX_INNER_SHORT && !bad_inner++)
			printf("# length %zu: got %d\n", l, r);
	}
	ok(!bad_inner, "%s: inner payload of 0..%zu bytes gives INNER_SHORT",
	   cfg_str(c), min - 1);

	l = hlen + min;
	memcpy(pkt, good, l);
	if (fix)
		ref_gre_fix(pkt, l);
	r = parse_copy(c, pkt, l, &inner_off, &csum_ok);
	ok(r == DROP_NONE && inner_off == hlen,
	   "%s: inner payload of exactly %zu bytes accepted (got %d)",
	   cfg_str(c), min, r);
}

/*
 * encap_peek_id(): the id of c's packets where they have one (a VNI
 * always; a GRE key when K is set), nothing from fewer bytes than hold it.
 */
static void test_peek(const struct encap_cfg *c)
{
	static uint8_t good[HDR_MAX + FRAME_MAX];
	size_t len = good_packet(c, false, good), l;
	size_t need = is_gre(c) ? ref_key_off(c) + 4 : 8;
	uint32_t id = 0xdeadbeef;
	bool has, bad = false;

	has = encap_peek_id(c->type, good, len, &id);
	if (encap_has_id(c))
		ok(has && id == encap_id(c), "%s: peek_id gives %#x (got %d "
		   "%#x)", cfg_str(c), encap_id(c), has, id);
	else
		ok(!has, "%s: peek_id finds no key", cfg_str(c));
	for (l = 0; encap_has_id(c) && l < need; l++)
		bad |= encap_peek_id(c->type, good, l, &id);
	ok(!bad, "%s: peek_id finds nothing in fewer than %zu bytes",
	   cfg_str(c), encap_has_id(c) ? need : 0);
}

/*
 * What the kernel's vxlan sends in GPE mode, captured on 2026-12-02 from
 * Linux 6.18 (tests run as in KERNEL-FACTS.md): in a namespace, `ip link
 * add vxgpe0 type vxlan gpe external dstport 4790`, routes `ip route add
 * 10.20.1.0/24 encap ip id 1193046 dst 198.18.7.1 dev vxgpe0 src
 * 10.20.1.2` and `ip -6 route add fd20::/64 encap ip id 1193046 dst
 * 198.18.7.1 dev vxgpe0 src fd20::2`, then `ping 10.20.1.1` and `ping -6
 * fd20::1`, `tcpdump -w` on the veth in the other namespace. Below: the
 * VXLAN-GPE header (VNI 1193046, 0x123456) and the inner IP header of
 * the first echo request of each.
 */
static const uint8_t kernel_gpe4[] = {
	0x0c, 0x00, 0x00, 0x01, 0x12, 0x34, 0x56, 0x00,
	0x45, 0x00, 0x00, 0x54, 0xdc, 0xc3, 0x40, 0x00, 0x40, 0x01, 0x47, 0xbb,
	0x0a, 0x14, 0x01, 0x02, 0x0a, 0x14, 0x01, 0x01,
};

static const uint8_t kernel_gpe6[] = {
	0x0c, 0x00, 0x00, 0x02, 0x12, 0x34, 0x56, 0x00,
	0x60, 0x06, 0x31, 0x3e, 0x00, 0x40, 0x3a, 0x40,
	0xfd, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xfd, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

#define KERNEL_CHECKS 5

static void test_kernel_one(const char *what, const uint8_t *pkt, size_t len)
{
	struct encap_cfg c = {
		.type = ENCAP_VXLAN_GPE, .vni = 1193046, .l3 = true,
	};
	static struct segbuf sb;
	size_t inner_off = 0;
	bool csum_ok = false;
	uint32_t id = 0;
	uint8_t *h;
	int r;

	r = parse_copy(&c, pkt, len, &inner_off, &csum_ok);
	ok(r == DROP_NONE && inner_off == 8 && !csum_ok,
	   "kernel %s: parsed in tun mode (got %d, inner_off %zu)", what, r,
	   inner_off);
	c.l3 = false;
	is_int(parse_copy(&c, pkt, len, &inner_off, &csum_ok),
	       DROP_RX_GPE_PROTO, "kernel %s: next protocol %u refused in "
	       "tap mode", what, pkt[3]);
	c.l3 = true;
	c.vni = 1193047;
	is_int(parse_copy(&c, pkt, len, &inner_off, &csum_ok), DROP_RX_VNI,
	       "kernel %s: refused under VNI 1193047", what);
	c.vni = 1193046;
	ok(encap_peek_id(c.type, pkt, len, &id) && id == 1193046,
	   "kernel %s: peek_id gives VNI 1193046 (got %u)", what, id);

	/* the inner header as a tun's segment, with no payload */
	memset(&sb, 0, sizeof(sb));
	sb.s.hdr = sb.arena + GSO_HEADROOM;
	memcpy(sb.s.hdr, pkt + 8, len - 8);
	sb.s.hdr_len = (uint16_t)(len - 8);
	sb.s.sum_off = sb.s.hdr_len;
	sb.s.sum_valid = true;
	h = encap_build(&c, &sb.s, 0);
	ok(h == sb.s.hdr - 8 && !memcmp(h, pkt, 8),
	   "kernel %s: built the same 8 header bytes", what);
}

static void test_kernel(void)
{
	test_kernel_one("IPv4 in VXLAN-GPE", kernel_gpe4, sizeof(kernel_gpe4));
	test_kernel_one("IPv6 in VXLAN-GPE", kernel_gpe6, sizeof(kernel_gpe6));
}

/* ---- overhead, names ---- */

struct overhead_row {
	enum encap_type type;
	bool csum, key, seq;
	size_t hdr_len, v4, v6;
};

/*
 * Hand-counted: IPv4 20 / IPv6 40, UDP 8, VXLAN and VXLAN-GPE 8, GRE 4 + 4
 * per option.
 */
static const struct overhead_row overhead_rows[] = {
	{ ENCAP_VXLAN, false, false, false, 8, 36, 56 },
	{ ENCAP_VXLAN, true, true, true, 8, 36, 56 },
	{ ENCAP_GRE, false, false, false, 4, 24, 44 },
	{ ENCAP_GRE, true, false, false, 8, 28, 48 },
	{ ENCAP_GRE, false, true, false, 8, 28, 48 },
	{ ENCAP_GRE, false, false, true, 8, 28, 48 },
	{ ENCAP_GRE, true, true, false, 12, 32, 52 },
	{ ENCAP_GRE, true, false, true, 12, 32, 52 },
	{ ENCAP_GRE, false, true, true, 12, 32, 52 },
	{ ENCAP_GRE, true, true, true, 16, 36, 56 },
	{ ENCAP_GRE_UDP, false, false, false, 4, 32, 52 },
	{ ENCAP_GRE_UDP, true, false, false, 8, 36, 56 },
	{ ENCAP_GRE_UDP, false, true, false, 8, 36, 56 },
	{ ENCAP_GRE_UDP, false, false, true, 8, 36, 56 },
	{ ENCAP_GRE_UDP, true, true, false, 12, 40, 60 },
	{ ENCAP_GRE_UDP, true, false, true, 12, 40, 60 },
	{ ENCAP_GRE_UDP, false, true, true, 12, 40, 60 },
	{ ENCAP_GRE_UDP, true, true, true, 16, 44, 64 },
	/* VXLAN-GPE: VXLAN's 8 bytes, whatever the GRE options */
	{ ENCAP_VXLAN_GPE, false, false, false, 8, 36, 56 },
	{ ENCAP_VXLAN_GPE, true, true, true, 8, 36, 56 },
	/* Geneve without options: 8 bytes, as VXLAN */
	{ ENCAP_GENEVE, false, false, false, 8, 36, 56 },
	{ ENCAP_GENEVE, true, true, true, 8, 36, 56 },
};

#define N_OVERHEAD (sizeof(overhead_rows) / sizeof(overhead_rows[0]))

static void test_overhead(void)
{
	const struct overhead_row *o;
	struct encap_cfg c;
	size_t i;

	for (i = 0; i < N_OVERHEAD; i++) {
		o = &overhead_rows[i];
		memset(&c, 0, sizeof(c));
		c.type = o->type;
		c.gre_csum = o->csum;
		c.has_key = o->key;
		c.gre_seq = o->seq;
		c.key = 1;
		c.vni = 1;
		ok(encap_hdr_len(&c) == o->hdr_len &&
			   encap_overhead(&c, false) == o->v4 &&
			   encap_overhead(&c, true) == o->v6,
		   "%s: hdr %zu, overhead v4 %zu v6 %zu (got %zu %zu %zu)",
		   cfg_str(&c), o->hdr_len, o->v4, o->v6, encap_hdr_len(&c),
		   encap_overhead(&c, false), encap_overhead(&c, true));
	}
	memset(&c, 0, sizeof(c));
	c.type = ENCAP_VXLAN;
	is_int(1500 - encap_overhead(&c, false) - 14, 1450,
	       "vxlan over IPv4: tap MTU 1450 under a 1500 underlay");
	is_int(1500 - encap_overhead(&c, true) - 14, 1430,
	       "vxlan over IPv6: tap MTU 1430 under a 1500 underlay");
}

struct name_row {
	const char *name;
	int type;
	bool udp;
};

static const struct name_row name_rows[] = {
	{ "vxlan", ENCAP_VXLAN, true },
	{ "gre", ENCAP_GRE, false },
	{ "gre-udp", ENCAP_GRE_UDP, true },
	{ "vxlan-gpe", ENCAP_VXLAN_GPE, true },
	{ "geneve", ENCAP_GENEVE, true },
};

static const char *const bad_names[] = {
	"", "VXLAN", "gre_udp", "greudp", "gre-udp ", "vxla", "ipip",
	"vxlan_gpe", "gpe", "vxlan-gpe ", "Geneve", "genev", "geneve ",
};

#define N_NAMES (sizeof(name_rows) / sizeof(name_rows[0]))
#define N_BAD_NAMES (sizeof(bad_names) / sizeof(bad_names[0]))

static void test_names(void)
{
	const struct name_row *r;
	size_t i;

	for (i = 0; i < N_NAMES; i++) {
		r = &name_rows[i];
		ok(!strcmp(encap_name((enum encap_type)r->type), r->name),
		   "encap_name(%d) is \"%s\"", r->type, r->name);
		is_int(encap_from_name(r->name), r->type,
		       "encap_from_name(\"%s\")", r->name);
		is_int(encap_is_udp((enum encap_type)r->type), r->udp,
		       "%s rides on UDP: %d", r->name, r->udp);
	}
	for (i = 0; i < N_BAD_NAMES; i++)
		is_int(encap_from_name(bad_names[i]), -1,
		       "encap_from_name(\"%s\") is -1", bad_names[i]);
	ok(encap_name((enum encap_type)99) != NULL,
	   "encap_name of an unknown type is not NULL");
	ok(!encap_is_udp((enum encap_type)99),
	   "an unknown type does not ride on UDP");
}

/* ---- the table: what each encapsulation is ------------------------------ */

/*
 * Written out by hand from the RFCs (and Linux for linux_port), not from
 * encap.c: a row of its table that is wrong fails here.
 */
struct table_row {
	const char *says;
	int type;
	const char *id_name, *id_option;
	bool id_always;		/* every packet carries it (no has_key) */
	int ip_proto;
	unsigned int port, linux_port;
	bool udp, vni, key, seq, evpn;	/* encap_takes() */
	bool l2, l3;			/* encap_carries() */
};

static const struct table_row table_rows[] = {
	/* --evpn: zebra's kernel vxlan devices are VXLAN's (RFC 8365) */
	{ "vxlan: a VNI always, UDP port 4789 (Linux's 8472), --vni, --evpn",
	  ENCAP_VXLAN, "VNI", "vni", true, PROTO_UDP, 4789, 8472,
	  true, true, false, false, true, true, false },
	{ "gre: a key or none, IP protocol 47 and no port, --key and --seq",
	  ENCAP_GRE, "key", "key", false, 47, 0, 0,
	  false, false, true, true, false, true, true },
	{ "gre-udp: a key or none, UDP port 4754, --key and --seq",
	  ENCAP_GRE_UDP, "key", "key", false, PROTO_UDP, 4754, 0,
	  true, false, true, true, false, true, true },
	/* the kernel's gpe takes 4790 too (vxlan_config_validate()) */
	{ "vxlan-gpe: a VNI always, UDP port 4790, --vni, Ethernet and IP",
	  ENCAP_VXLAN_GPE, "VNI", "vni", true, PROTO_UDP, 4790, 0,
	  true, true, false, false, false, true, true },
	/* RFC 8926 section 3.3; the kernel's geneve takes 6081 too */
	{ "geneve: a VNI always, UDP port 6081, --vni, Ethernet and IP",
	  ENCAP_GENEVE, "VNI", "vni", true, PROTO_UDP, 6081, 0,
	  true, true, false, false, false, true, true },
};

#define N_TABLE (sizeof(table_rows) / sizeof(table_rows[0]))
#define TABLE_CHECKS 19

static void test_table_row(const struct table_row *r)
{
	enum encap_type t = (enum encap_type)r->type;
	struct encap_cfg c = { .type = t, .vni = 5, .key = 9 };

	ok(!strcmp(encap_id_name(t), r->id_name), "%s: its id is the %s",
	   r->says, r->id_name);
	ok(!strcmp(encap_id_option(t), r->id_option), "%s: given by --%s",
	   r->says, r->id_option);
	is_int(encap_ops_table[t]->ip_proto, r->ip_proto, "%s: IP protocol %d",
	       r->says, r->ip_proto);
	is_int(encap_default_port(t), r->port, "%s: port %u", r->says,
	       r->port);
	is_int(encap_linux_port(t), r->linux_port, "%s: Linux's port %u",
	       r->says, r->linux_port);
	is_int(encap_takes(t, ENCAP_OPT_UDP), r->udp,
	       "%s: --port, --source-ports: %d", r->says, r->udp);
	is_int(encap_takes(t, ENCAP_OPT_VNI), r->vni, "%s: --vni: %d",
	       r->says, r->vni);
	is_int(encap_takes(t, ENCAP_OPT_KEY), r->key, "%s: --key: %d",
	       r->says, r->key);
	is_int(encap_takes(t, ENCAP_OPT_SEQ), r->seq, "%s: --seq: %d",
	       r->says, r->seq);
	is_int(encap_takes(t, ENCAP_OPT_EVPN), r->evpn, "%s: --evpn: %d",
	       r->says, r->evpn);
	is_int(encap_carries(t, false), r->l2, "%s: carries Ethernet: %d",
	       r->says, r->l2);
	is_int(encap_carries(t, true), r->l3, "%s: carries IP: %d", r->says,
	       r->l3);
	is_int(encap_takes(t, ENCAP_OPT_TUN), r->l3, "%s: --mode tun: %d",
	       r->says, r->l3);
	ok(encap_takes(t, ENCAP_OPT_ENCAP), "%s: is an --encap", r->says);
	is_int(encap_has_id(&c), r->id_always, "%s: without a key, an id: %d",
	       r->says, r->id_always);
	is_int(encap_id(&c), r->id_always ? 5 : 9,
	       "%s: the id is the %s field", r->says,
	       r->id_always ? "vni" : "key");
	c.has_key = true;
	ok(encap_has_id(&c), "%s: with a key, an id", r->says);
	memset(&c, 0, sizeof(c));
	c.type = t;
	encap_set_id(&c, 77);
	ok(encap_id(&c) == 77 && encap_has_id(&c), "%s: an id set is its id",
	   r->says);
	ok(c.has_key != r->id_always && (r->id_always ? c.vni : c.key) == 77 &&
	   (r->id_always ? c.key : c.vni) == 0,
	   "%s: set in the %s field alone", r->says,
	   r->id_always ? "vni" : "key (has_key)");
}

static void test_table(void)
{
	enum encap_type none = (enum encap_type)99;
	size_t i;

	for (i = 0; i < N_TABLE; i++)
		test_table_row(&table_rows[i]);
	ok(encap_id_name(none) && encap_id_option(none),
	   "an unknown type has names all the same");
	is_int(encap_default_port(none), 0, "an unknown type has no port");
	ok(!encap_takes(none, ENCAP_OPT_UDP) &&
	   !encap_takes(none, ENCAP_OPT_VNI) &&
	   !encap_takes(none, ENCAP_OPT_KEY) &&
	   !encap_takes(none, ENCAP_OPT_SEQ) &&
	   !encap_takes(none, ENCAP_OPT_EVPN) &&
	   !encap_takes(none, ENCAP_OPT_TUN) &&
	   !encap_takes(none, ENCAP_OPT_ENCAP),
	   "an unknown type takes no option");
}

/*
 * The lists --help and the messages print, in the table's order, written
 * out here: a row added, lost or moved changes them.
 */
struct list_row {
	enum encap_opt o;
	bool takes;
	const char *conj, *want;
	size_t len;
};

static const struct list_row list_rows[] = {
	{ ENCAP_OPT_ENCAP, true, "or",
	  "vxlan, gre, gre-udp, vxlan-gpe or geneve", 0 },
	{ ENCAP_OPT_VNI, true, "and", "vxlan, vxlan-gpe and geneve", 0 },
	{ ENCAP_OPT_KEY, true, "or", "gre or gre-udp", 0 },
	{ ENCAP_OPT_SEQ, true, "and", "gre and gre-udp", 0 },
	{ ENCAP_OPT_TUN, true, "or", "gre, gre-udp, vxlan-gpe or geneve", 0 },
	{ ENCAP_OPT_TUN, false, "or", "vxlan", 0 },
	{ ENCAP_OPT_EVPN, true, "or", "vxlan", 0 },
	{ ENCAP_OPT_UDP, false, "or", "gre", 0 },
	{ ENCAP_OPT_UDP, true, "or", "vxlan, gre-udp, vxlan-gpe or geneve",
	  0 },
	{ ENCAP_OPT_ENCAP, false, "or", "", 0 },
	/* cut to the buffer, its NUL in the last byte */
	{ ENCAP_OPT_ENCAP, true, "or", "vxlan, gr", 10 },
	{ ENCAP_OPT_VNI, true, "and", "vxlan, vx", 10 },
	{ ENCAP_OPT_VNI, true, "and", "", 1 },
};

#define N_LISTS (sizeof(list_rows) / sizeof(list_rows[0]))

static void test_lists(void)
{
	const struct list_row *r;
	char buf[128];
	size_t i;

	is_int(encap_count(), N_TABLE, "the table has %zu rows", N_TABLE);
	for (i = 0; i < N_LISTS; i++) {
		r = &list_rows[i];
		memset(buf, 'x', sizeof(buf));
		encap_names(buf, r->len ? r->len : sizeof(buf), r->o, r->takes,
			    r->conj);
		ok(!strcmp(buf, r->want), "encap_names(%d, %s, \"%s\", %zu): "
		   "\"%s\" (got \"%s\")", r->o, r->takes ? "takes" : "not",
		   r->conj, r->len, r->want, buf);
	}
}

_Static_assert(DROP__MAX <= 64, "a drop reason is a bit of a uint64_t");

/* Is d among the drops of c's row (encap_ops.drops)? */
static bool row_drops(const struct encap_cfg *c, enum drop d)
{
	const enum drop *p = encap_ops_table[c->type]->drops;

	for (; *p != DROP_NONE; p++)
		if (*p == d)
			return true;
	return false;
}

/*
 * Every reason a row's parse gives is one its row lists: the good packet
 * with each bit of its first 48 bytes flipped, and cut at every length
 * up to there. *seen gathers the reasons given (bit d).
 */
static void test_drops(const struct encap_cfg *c, uint64_t *seen)
{
	static uint8_t good[HDR_MAX + FRAME_MAX], pkt[HDR_MAX + FRAME_MAX];
	size_t len = good_packet(c, false, good), at;
	unsigned int bit, bad = 0;
	enum drop d, first = DROP_NONE;
	struct encap_rx rx;

	for (at = 0; at < 48 && at < len; at++) {
		for (bit = 0; bit < 9; bit++) {
			memcpy(pkt, good, len);
			if (bit < 8)
				pkt[at] ^= (uint8_t)(1u << bit);
			d = encap_parse(c, pkt, bit < 8 ? len : at, &rx);
			*seen |= 1ull << d;
			if (d && !row_drops(c, d) && !bad++)
				first = d;
		}
	}
	ok(!bad, "%s: each drop its parse gives is its row's (%u not, the "
	   "first %d)", cfg_str(c), bad, first);
}

/*
 * Each row's drops: no DROP_NONE before the end, none twice, all seen;
 * those it calls foreign (rx.c's warning) among them.
 */
static void test_row_drops(enum encap_type t, uint64_t seen)
{
	const enum drop *p = encap_ops_table[t]->drops;
	const enum drop *f = encap_ops_table[t]->foreign;
	uint64_t listed = 0;
	bool twice = false, own = true;

	for (; *p != DROP_NONE; p++) {
		twice |= (listed >> *p) & 1;
		listed |= 1ull << *p;
	}
	ok(!twice && listed == (seen & ~1ull), "%s: its row lists the drops "
	   "its parse gave, once each (listed %#llx, seen %#llx)",
	   encap_name(t), (unsigned long long)listed,
	   (unsigned long long)(seen & ~1ull));
	for (; f && *f != DROP_NONE; f++)
		own &= encap_drop_foreign(t, *f) && ((listed >> *f) & 1);
	ok(own && !encap_drop_foreign(t, DROP_RX_SHORT),
	   "%s: the drops its row calls foreign are among its own",
	   encap_name(t));
}

/* ---- ECN (RFC 6040) ------------------------------------------------------ */

/* A naive one's-complement sum of 16-bit words, folded. */
static uint16_t ecn_sum(const uint8_t *p, size_t len)
{
	uint32_t acc = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* An Ethernet frame with tags VLAN tags and an IPv4/IPv6 packet. */
static size_t ecn_frame(uint8_t *f, int tags, bool v6, uint8_t ecn)
{
	size_t off = 12, ip;
	uint16_t check;
	int i;

	memset(f, 0, 128);
	memset(f, 0x02, 12);
	for (i = 0; i < tags; i++) {
		f[off] = i ? 0x81 : 0x88;
		f[off + 1] = i ? 0x00 : 0xa8;
		f[off + 3] = 7;
		off += 4;
	}
	f[off] = v6 ? 0x86 : 0x08;
	f[off + 1] = v6 ? 0xdd : 0x00;
	ip = off + 2;
	if (v6) {
		/* traffic class 0xb8 | ecn, as the IPv4 TOS below */
		f[ip] = 0x6b;
		f[ip + 1] = (uint8_t)(0x80 | ecn << 4);
		f[ip + 5] = 24;
		f[ip + 6] = 17;
		f[ip + 7] = 64;
		return ip + 40 + 24;
	}
	f[ip] = 0x45;
	f[ip + 1] = (uint8_t)(0xb8 | ecn);
	f[ip + 3] = 44;
	f[ip + 8] = 64;
	f[ip + 9] = 17;
	f[ip + 12] = 198;
	f[ip + 15] = 1;
	check = (uint16_t)~ecn_sum(f + ip, 20);
	f[ip + 10] = (uint8_t)(check >> 8);
	f[ip + 11] = (uint8_t)check;
	return ip + 44;
}

#define N_ECN (5 * 16 + 4 + 2 + 3)

/*
 * RFC 6040 section 4.2's table (normal mode), written out: only an outer
 * CE changes anything; it marks ECT(0)/ECT(1) inner packets CE and drops
 * Not-ECT ones; an inner CE stays CE. In tap mode (Ethernet frames,
 * with VLAN tags or not) and in tun mode (bare IP packets).
 */
static void test_ecn(void)
{
	static const char *const kinds[] = {
		"IPv4", "IPv4 QinQ", "IPv6", "tun IPv4", "tun IPv6",
	};
	uint8_t f[128], ref[128];
	int k, in, out;
	size_t len, ip;

	for (k = 0; k < 5; k++) {
		for (in = 0; in < 4; in++) {
			for (out = 0; out < 4; out++) {
				bool v6 = k == 2 || k == 4, l3 = k >= 3;
				int tags = k == 1 ? 2 : 0;
				enum encap_ecn want = ENCAP_ECN_KEEP, got;
				bool good;

				len = ecn_frame(f, tags, v6, (uint8_t)in);
				ip = 14 + 4 * tags;
				if (l3) {
					/* the IP packet alone, as a tun's */
					memmove(f, f + ip, len - ip);
					len -= ip;
					ip = 0;
				}
				memcpy(ref, f, len);
				if (out == ECN_CE && in == ECN_NOT_ECT)
					want = ENCAP_ECN_DROP;
				else if (out == ECN_CE && in != ECN_CE)
					want = ENCAP_ECN_MARK;
				got = encap_ecn_decap(l3, f, len, (uint8_t)out);
				if (want == ENCAP_ECN_MARK && v6)
					ref[ip + 1] |= 0x30;
				if (want == ENCAP_ECN_MARK && !v6)
					ref[ip + 1] |= 0x03;
				/* the IPv4 checksum is checked by its sum */
				if (!v6)
					memcpy(ref + ip + 10, f + ip + 10, 2);
				good = got == want && !memcmp(f, ref, len);
				if (!v6)
					good = good &&
					       ecn_sum(f + ip, 20) == 0xffff;
				ok(good, "ecn: %s inner %d outer %d: %s",
				   kinds[k], in, out,
				   want == ENCAP_ECN_DROP ? "drop" :
				   want == ENCAP_ECN_MARK ? "marked CE" :
				   "as it was");
			}
		}
	}
	for (in = 0; in < 4; in++)
		is_int(encap_ecn_encap((uint8_t)in),
		       in == ECN_CE ? ECN_ECT_0 : in,
		       "ecn: encapsulating inner %d", in);
	len = ecn_frame(f, 0, false, ECN_ECT_0);
	f[12] = 0x08;
	f[13] = 0x06;		/* ARP */
	memcpy(ref, f, len);
	ok(encap_ecn_decap(false, f, len, ECN_CE) == ENCAP_ECN_KEEP &&
	   !memcmp(f, ref, len), "ecn: a non-IP frame is left alone");
	len = ecn_frame(f, 0, false, ECN_NOT_ECT);
	ok(encap_ecn_decap(false, f, 14 + 19, ECN_CE) == ENCAP_ECN_KEEP,
	   "ecn: an IPv4 header cut short is left alone");
	/* an IPv4 packet in an Ethernet frame, read as a tun's: not IP */
	len = ecn_frame(f, 0, false, ECN_ECT_0);
	memcpy(ref, f, len);
	ok(encap_ecn_decap(true, f, len, ECN_CE) == ENCAP_ECN_KEEP &&
	   !memcmp(f, ref, len),
	   "ecn: tun mode does not read an Ethernet frame as IP");
	len = ecn_frame(f, 0, false, ECN_NOT_ECT) - 14;
	memmove(f, f + 14, len);
	ok(encap_ecn_decap(true, f, 19, ECN_CE) == ENCAP_ECN_KEEP,
	   "ecn: tun mode: an IPv4 header cut short is left alone");
	/* and a bare IP packet read as a tap's frame is not marked */
	len = ecn_frame(f, 0, false, ECN_ECT_0) - 14;
	memmove(f, f + 14, len);
	memcpy(ref, f, len);
	ok(encap_ecn_decap(false, f, len, ECN_CE) == ENCAP_ECN_KEEP &&
	   !memcmp(f, ref, len),
	   "ecn: tap mode does not read a bare IP packet as a frame's");
}

/* ---- encap_strip_ip4(): the outer header a raw socket hands over ---- */

struct strip_row {
	const char *name;
	uint8_t vihl;		/* version and IHL byte */
	uint16_t tot;		/* total length field */
	size_t got;		/* bytes received */
	int want;
	size_t want_off, want_len;
};

static const struct strip_row strip_rows[] = {
	{ "good header: GRE at 20, the packet whole", 0x45, 100, 100, 0, 20,
	  100 },
	{ "options (IHL 6): GRE at 24", 0x46, 100, 100, 0, 24, 100 },
	{ "IHL 15: GRE at 60", 0x4f, 80, 80, 0, 60, 80 },
	{ "total length just the header: nothing after it", 0x45, 20, 20, 0,
	  20, 20 },
	{ "Ethernet-style trailing bytes cut off", 0x45, 46, 60, 0, 20, 46 },
	{ "IHL 4: refused", 0x44, 100, 100, -1, 0, 0 },
	{ "IHL 0: refused", 0x40, 100, 100, -1, 0, 0 },
	{ "version 6: refused", 0x65, 100, 100, -1, 0, 0 },
	{ "version 0: refused", 0x05, 100, 100, -1, 0, 0 },
	{ "total length over what was received: refused", 0x45, 101, 100, -1,
	  0, 0 },
	{ "total length under the header: refused", 0x45, 19, 100, -1, 0, 0 },
	{ "total length under the options: refused", 0x46, 23, 100, -1, 0,
	  0 },
	{ "options past what was received: refused", 0x4f, 60, 40, -1, 0, 0 },
	{ "fewer bytes than a header: refused", 0x45, 19, 19, -1, 0, 0 },
	{ "nothing received: refused", 0x45, 0, 0, -1, 0, 0 },
};

#define N_STRIP (sizeof(strip_rows) / sizeof(strip_rows[0]))

static void test_strip(void)
{
	uint8_t buf[128];
	size_t i, len, off;
	int r;

	for (i = 0; i < N_STRIP; i++) {
		const struct strip_row *w = &strip_rows[i];

		memset(buf, 0, sizeof(buf));
		buf[0] = w->vihl;
		buf[2] = (uint8_t)(w->tot >> 8);
		buf[3] = (uint8_t)w->tot;
		buf[9] = 47;	/* GRE */
		len = w->got;
		off = 0;
		r = encap_strip_ip4(buf, &len, &off);
		if (!is_int(r, w->want, "strip: %s", w->name) || r)
			continue;
		ok(off == w->want_off && len == w->want_len,
		   "strip: %s: offset %zu, length %zu", w->name, w->want_off,
		   w->want_len);
	}
}

/* ---- Geneve: hostile options, and the option parser ------------------- */

/*
 * The 252 bytes of options of the Geneve rows with VNI 77, written by
 * hand: class 0x0102 type 1 with 31 words (128 bytes), then class 0xabcd
 * type 0x7f with 30 (124 bytes): Opt Len 63, the most it says.
 */
static void geneve_fill_long(struct encap_cfg *c)
{
	uint8_t *o = c->geneve_opts;
	size_t i;

	o[0] = 0x01;
	o[1] = 0x02;
	o[2] = 0x01;
	o[3] = 31;
	for (i = 4; i < 128; i++)
		o[i] = (uint8_t)i;
	o[128] = 0xab;
	o[129] = 0xcd;
	o[130] = 0x7f;
	o[131] = 30;
	for (i = 132; i < 252; i++)
		o[i] = (uint8_t)~i;
	c->geneve_opts_len = 252;
}

struct hostile_row {
	const char *says;
	uint8_t b0, b1;		/* version and Opt Len; O, C and Rsvd */
	uint8_t opts[16];
	size_t n_opts;		/* bytes of opts put after the header */
	size_t cut;		/* the packet's length, if not all of it */
	int want;
};

static const struct hostile_row hostile_rows[] = {
	{ "a zero-length option: accepted", 0x01, 0,
	  { 0x01, 0x02, 0x00, 0x00 }, 4, 0, DROP_NONE },
	{ "four zero-length options: accepted", 0x04, 0,
	  { 0x01, 0x02, 0x00, 0x00, 0x01, 0x02, 0x01, 0x00, 0x01, 0x02, 0x02,
	    0x00, 0xff, 0xff, 0x7f, 0x00 }, 16, 0, DROP_NONE },
	{ "a zero-length critical option: dropped", 0x01, 0,
	  { 0x01, 0x02, 0x80, 0x00 }, 4, 0, DROP_RX_GENEVE_CRITICAL },
	{ "a critical option with the C bit: dropped", 0x01, 0x40,
	  { 0x01, 0x08, 0x81, 0x00 }, 4, 0, DROP_RX_GENEVE_CRITICAL },
	{ "a critical option after a plain one: dropped", 0x03, 0,
	  { 0x01, 0x02, 0x00, 0x01, 0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x02, 0xff,
	    0x00 }, 12, 0, DROP_RX_GENEVE_CRITICAL },
	{ "the C bit, no critical option: accepted", 0x02, 0x40,
	  { 0x01, 0x02, 0x00, 0x01, 0xaa, 0xbb, 0xcc, 0xdd }, 8, 0,
	  DROP_NONE },
	{ "an option one word past Opt Len: malformed", 0x01, 0,
	  { 0x01, 0x02, 0x00, 0x01 }, 4, 0, DROP_RX_GENEVE_OPT },
	{ "an option 31 words long in Opt Len 1: malformed", 0x01, 0,
	  { 0x01, 0x02, 0x00, 0x1f }, 4, 0, DROP_RX_GENEVE_OPT },
	{ "the second option past Opt Len: malformed", 0x03, 0,
	  { 0x01, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00,
	    0x01 }, 12, 0, DROP_RX_GENEVE_OPT },
	{ "malformed beats an earlier critical option", 0x02, 0x40,
	  { 0x01, 0x02, 0x80, 0x00, 0x01, 0x02, 0x00, 0x02 }, 8, 0,
	  DROP_RX_GENEVE_OPT },
	{ "Opt Len 63 past the packet: malformed", 0x3f, 0, { 0 }, 0, 0,
	  DROP_RX_GENEVE_OPT },
	{ "Opt Len one word past a packet ending after the options", 0x02, 0,
	  { 0x01, 0x02, 0x00, 0x00 }, 4, 12, DROP_RX_GENEVE_OPT },
	{ "Opt Len past a packet cut inside the option", 0x01, 0,
	  { 0x01, 0x02, 0x00, 0x00 }, 4, 10, DROP_RX_GENEVE_OPT },
	{ "options up to the end, no payload: inner short", 0x01, 0,
	  { 0x01, 0x02, 0x00, 0x00 }, 4, 12, DROP_RX_INNER_SHORT },
	{ "version 1: dropped", 0x40, 0, { 0 }, 0, 0,
	  DROP_RX_GENEVE_VERSION },
	{ "version 1 with a good option: dropped", 0x41, 0,
	  { 0x01, 0x02, 0x00, 0x00 }, 4, 0, DROP_RX_GENEVE_VERSION },
	{ "version 3, Opt Len past the end: the version counts", 0xff, 0,
	  { 0 }, 0, 0, DROP_RX_GENEVE_VERSION },
	{ "version 1 cut to its base header: the version counts", 0x41, 0,
	  { 0 }, 0, 8, DROP_RX_GENEVE_VERSION },
	{ "O bit (OAM): not for the tap", 0x00, 0x80, { 0 }, 0, 0,
	  DROP_RX_GENEVE_OAM },
	{ "O bit with a critical option: the option counts", 0x01, 0xc0,
	  { 0x01, 0x02, 0x80, 0x00 }, 4, 0, DROP_RX_GENEVE_CRITICAL },
	{ "O bit with a malformed option: the option counts", 0x01, 0x80,
	  { 0x01, 0x02, 0x00, 0x03 }, 4, 0, DROP_RX_GENEVE_OPT },
	{ "an option's R bits set: ignored", 0x01, 0,
	  { 0x01, 0x02, 0x00, 0xe0 }, 4, 0, DROP_NONE },
	{ "Rsvd bits set: ignored", 0x00, 0x3f, { 0 }, 0, 0, DROP_NONE },
};

#define N_HOSTILE (sizeof(hostile_rows) / sizeof(hostile_rows[0]))

/* Header, opts, then f's frame or packet; cut to cut bytes if given. */
static size_t hostile_packet(const struct encap_cfg *c, const struct inner *f,
			     uint8_t b0, uint8_t b1, const uint8_t *opts,
			     size_t n_opts, uint8_t *pkt)
{
	pkt[0] = b0;
	pkt[1] = b1;
	wr16(pkt + 2, ref_gre_proto(c, f->v6));
	wr32(pkt + 4, c->vni << 8);
	memcpy(pkt + 8, opts, n_opts);
	memcpy(pkt + 8 + n_opts, f->buf, f->len);
	return 8 + n_opts + f->len;
}

static void test_geneve_hostile(bool l3)
{
	static uint8_t pkt[HDR_MAX + FRAME_MAX];
	struct encap_cfg c = { .type = ENCAP_GENEVE, .vni = 0x10203, .l3 = l3 };
	const struct hostile_row *h;
	static struct inner f;
	size_t i, len, inner_off;
	bool csum_ok;
	int r;

	inner_make(&f, PROTO_TCP, 100, l3, false);
	for (i = 0; i < N_HOSTILE; i++) {
		h = &hostile_rows[i];
		len = hostile_packet(&c, &f, h->b0, h->b1, h->opts, h->n_opts,
				     pkt);
		if (h->cut)
			len = h->cut;
		inner_off = 0;
		r = parse_copy(&c, pkt, len, &inner_off, &csum_ok);
		if (h->want == DROP_NONE)
			ok(r == DROP_NONE && inner_off == 8 + h->n_opts,
			   "geneve %s: %s (got %d, inner_off %zu)",
			   l3 ? "tun" : "tap", h->says, r, inner_off);
		else
			is_int(r, h->want, "geneve %s: %s", l3 ? "tun" : "tap",
			       h->says);
	}
}

/* Opt Len 63 of 63 zero-length options, one of them critical or none. */
static void test_geneve_many(void)
{
	static uint8_t pkt[HDR_MAX + FRAME_MAX];
	struct encap_cfg c = { .type = ENCAP_GENEVE, .vni = 9 };
	static struct inner f;
	uint8_t opts[252];
	size_t i, len, inner_off = 0;
	bool csum_ok;
	int r;

	inner_make(&f, PROTO_UDP, 10, false, false);
	for (i = 0; i < 252; i += 4)
		wr32(opts + i, 0x01020000u | (uint32_t)(i / 4) << 8);
	len = hostile_packet(&c, &f, 63, 0, opts, 252, pkt);
	r = parse_copy(&c, pkt, len, &inner_off, &csum_ok);
	ok(r == DROP_NONE && inner_off == 260,
	   "geneve: 63 zero-length options in Opt Len 63 (got %d, %zu)", r,
	   inner_off);
	opts[250] = 0x80;	/* the last one's type */
	len = hostile_packet(&c, &f, 63, 0, opts, 252, pkt);
	is_int(parse_copy(&c, pkt, len, &inner_off, &csum_ok),
	       DROP_RX_GENEVE_CRITICAL,
	       "geneve: the 63rd of 63 options critical: dropped");
	opts[250] = 0x00;
	opts[251] = 0x01;	/* the last one a word longer */
	len = hostile_packet(&c, &f, 63, 0, opts, 252, pkt);
	is_int(parse_copy(&c, pkt, len, &inner_off, &csum_ok),
	       DROP_RX_GENEVE_OPT,
	       "geneve: the 63rd of 63 options past Opt Len: malformed");
	len = hostile_packet(&c, &f, 63, 0, opts, 0, pkt);
	is_int(parse_copy(&c, pkt, 8 + 251, &inner_off, &csum_ok),
	       DROP_RX_GENEVE_OPT,
	       "geneve: Opt Len 63, 251 bytes after the header: malformed");
}

#define GENEVE_MANY_CHECKS 4

struct opt_parse_row {
	const char *text;
	int want;
	const uint8_t tlv[16];
	size_t len;
	bool crit;
};

static const struct opt_parse_row opt_parse_rows[] = {
	{ "0102:80:", 0, { 0x01, 0x02, 0x80, 0x00 }, 4, true },
	{ "102:0:", 0, { 0x01, 0x02, 0x00, 0x00 }, 4, false },
	{ "0:0:", 0, { 0x00, 0x00, 0x00, 0x00 }, 4, false },
	{ "0108:01:0a0b0c0d", 0,
	  { 0x01, 0x08, 0x01, 0x01, 0x0a, 0x0b, 0x0c, 0x0d }, 8, false },
	{ "ffff:ff:DEADBEEFcafef00d", 0,
	  { 0xff, 0xff, 0xff, 0x02, 0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe, 0xf0,
	    0x0d }, 12, true },
	{ "abc:7f:00000000", 0,
	  { 0x0a, 0xbc, 0x7f, 0x01, 0, 0, 0, 0 }, 8, false },
	{ "", -EINVAL, { 0 }, 0, false },
	{ "0102", -EINVAL, { 0 }, 0, false },
	{ "0102:80", -EINVAL, { 0 }, 0, false },
	{ ":80:", -EINVAL, { 0 }, 0, false },
	{ "0102::", -EINVAL, { 0 }, 0, false },
	{ "10000:0:", -EINVAL, { 0 }, 0, false },
	{ "0102:100:", -EINVAL, { 0 }, 0, false },
	{ "0102:80:abc", -EINVAL, { 0 }, 0, false },
	{ "0102:80:abcd", -EINVAL, { 0 }, 0, false },
	{ "0102:80:abcdef", -EINVAL, { 0 }, 0, false },
	{ "0102:80:0x000000", -EINVAL, { 0 }, 0, false },
	{ "0102:80:00000000:", -EINVAL, { 0 }, 0, false },
	{ "0102:80:0000 0000", -EINVAL, { 0 }, 0, false },
	{ "g102:80:", -EINVAL, { 0 }, 0, false },
	{ "-1:0:", -EINVAL, { 0 }, 0, false },
	{ " 102:0:", -EINVAL, { 0 }, 0, false },
	{ "0x102:0:", -EINVAL, { 0 }, 0, false },
	{ "0102:80:0000000g", -EINVAL, { 0 }, 0, false },
};

#define N_OPT_PARSE (sizeof(opt_parse_rows) / sizeof(opt_parse_rows[0]))

/* Each value alone, added to options of 4 bytes with no critical one. */
static void test_geneve_opt_parse(void)
{
	const struct opt_parse_row *r;
	struct encap_cfg c;
	size_t i;
	int got;

	for (i = 0; i < N_OPT_PARSE; i++) {
		r = &opt_parse_rows[i];
		memset(&c, 0, sizeof(c));
		c.type = ENCAP_GENEVE;
		wr32(c.geneve_opts, 0x01020000);
		c.geneve_opts_len = 4;
		got = encap_geneve_opt_add(&c, r->text);
		if (r->want)
			ok(got == r->want && c.geneve_opts_len == 4 &&
			   !c.geneve_crit, "opt \"%s\": refused, %d, options "
			   "as they were (got %d)", r->text, r->want, got);
		else
			ok(!got && c.geneve_opts_len == 4 + r->len &&
			   !memcmp(c.geneve_opts + 4, r->tlv, r->len) &&
			   c.geneve_crit == r->crit, "opt \"%s\": %zu bytes "
			   "appended, critical %d (got %d, %u)", r->text,
			   r->len, r->crit, got, c.geneve_opts_len);
	}
}

/* "0102:01:" and 2 * n hex digits of n bytes, into buf. */
static const char *opt_text(char *buf, size_t n)
{
	size_t i;

	strcpy(buf, "0102:01:");
	for (i = 0; i < n; i++)
		sprintf(buf + 8 + 2 * i, "%02zx", i & 0xff);
	return buf;
}

/*
 * The limits: 124 bytes of data (length 31), not 128; 252 bytes in all,
 * a value past them refused whole; the header built with them, Opt Len
 * 63, parsed back; a critical option sets the C bit.
 */
static void test_geneve_opt_limits(void)
{
	struct encap_cfg c = { .type = ENCAP_GENEVE, .vni = 3 };
	static struct segbuf sb;
	static struct inner f;
	static char buf[512];
	static uint8_t pkt[HDR_MAX + FRAME_MAX];
	size_t inner_off = 0;
	bool csum_ok;
	uint8_t *h;
	int r;

	is_int(encap_geneve_opt_add(&c, opt_text(buf, 128)), -EINVAL,
	       "opt: 128 bytes of data refused");
	is_int(encap_geneve_opt_add(&c, opt_text(buf, 124)), 0,
	       "opt: 124 bytes of data taken");
	ok(c.geneve_opts_len == 128 && c.geneve_opts[3] == 31 &&
	   c.geneve_opts[4 + 123] == 123, "opt: length 31, its data after it");
	is_int(encap_geneve_opt_add(&c, opt_text(buf, 124)), -ENOSPC,
	       "opt: 256 bytes in all refused");
	is_int(c.geneve_opts_len, 128, "opt: the options as they were");
	is_int(encap_geneve_opt_add(&c, opt_text(buf, 120)), 0,
	       "opt: 252 bytes in all taken");
	is_int(encap_geneve_opt_add(&c, "0:0:"), -ENOSPC,
	       "opt: not one more zero-length option");
	is_int(encap_hdr_len(&c), 260, "opt: the header is 8 + 252 bytes");
	ok(encap_overhead(&c, false) == 288 && encap_overhead(&c, true) == 308,
	   "opt: overhead 288 over IPv4, 308 over IPv6");

	inner_make(&f, PROTO_TCP, 50, false, false);
	seg_make(&sb, &f, SUM_LCO, 0, 0);
	h = encap_build(&c, &sb.s, 0);
	ok(h == sb.s.hdr - 260 && h[0] == 63 && h[1] == 0 &&
	   !memcmp(h + 8, c.geneve_opts, 252),
	   "opt: built with Opt Len 63, no C bit, the options as given");
	memcpy(pkt, h, 260);
	memcpy(pkt + 260, f.buf, f.len);
	r = parse_copy(&c, pkt, 260 + f.len, &inner_off, &csum_ok);
	ok(r == DROP_NONE && inner_off == 260,
	   "opt: parsed back, the frame at 260 (got %d, %zu)", r, inner_off);

	memset(&c, 0, sizeof(c));
	c.type = ENCAP_GENEVE;
	encap_geneve_opt_add(&c, "0102:01:");
	encap_geneve_opt_add(&c, "0102:81:01020304");
	h = encap_build(&c, &sb.s, 0);
	ok(h == sb.s.hdr - 20 && h[0] == 3 && h[1] == 0x40 && c.geneve_crit,
	   "opt: a critical option sets the C bit");
	memcpy(pkt, h, 20);
	memcpy(pkt + 20, f.buf, f.len);
	is_int(parse_copy(&c, pkt, 20 + f.len, &inner_off, &csum_ok),
	       DROP_RX_GENEVE_CRITICAL,
	       "opt: sent critical, dropped by gsotun, which knows none");
}

#define GENEVE_LIMIT_CHECKS 13

/*
 * The options a packet brought (encap_rx's tlv): Geneve's, where they
 * are in the packet parsed; none for the others.
 */
static void test_rx_tlv(const struct encap_cfg *c)
{
	static uint8_t pkt[16384];
	struct encap_rx rx = { .tlv = pkt, .tlv_len = 99 };
	size_t len = good_packet(c, false, pkt);
	enum drop r = encap_parse(c, pkt, len, &rx);

	if (is_geneve(c))
		ok(r == DROP_NONE && rx.tlv == pkt + 8 &&
			   rx.tlv_len == c->geneve_opts_len,
		   "%s: the options parsed are the packet's, %u bytes",
		   cfg_str(c), c->geneve_opts_len);
	else
		ok(r == DROP_NONE && !rx.tlv && !rx.tlv_len,
		   "%s: no options", cfg_str(c));
}

#define TLV_CHECKS 7

/*
 * --geneve-echo: a flow's options in place of the configuration's
 * (encap_set_tlv()), sent and read back; the MTU's room for them.
 */
static void test_set_tlv(void)
{
	static const uint8_t gwlb[] = {
		0x01, 0x08, 0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x0a,
		0x01, 0x08, 0x03, 0x01, 0xde, 0xad, 0xbe, 0xef,
	};
	static const uint8_t crit[] = { 0x01, 0x08, 0x81, 0x00 };
	struct encap_cfg c = { .type = ENCAP_GENEVE, .l3 = true, .vni = 9 };
	struct encap_cfg rxc = c;
	static uint8_t pkt[16384];
	struct encap_rx rx;
	size_t len;

	encap_set_tlv(&c, gwlb, sizeof(gwlb));
	len = good_packet(&c, false, pkt);
	ok(encap_hdr_len(&c) == 8 + sizeof(gwlb) && pkt[0] == 5 &&
		   !(pkt[1] & 0x40) && !memcmp(pkt + 8, gwlb, sizeof(gwlb)),
	   "set tlv: a flow's 20 bytes go out after the header, Opt Len 5");
	ok(encap_parse(&rxc, pkt, len, &rx) == DROP_NONE &&
		   rx.tlv_len == sizeof(gwlb) &&
		   !memcmp(rx.tlv, gwlb, sizeof(gwlb)),
	   "set tlv: and are read back as they were");
	encap_set_tlv(&c, crit, sizeof(crit));
	len = good_packet(&c, false, pkt);
	ok(c.geneve_crit && (pkt[1] & 0x40) &&
		   encap_parse(&rxc, pkt, len, &rx) == DROP_RX_GENEVE_CRITICAL,
	   "set tlv: a critical type sets the C bit");
	encap_set_tlv(&c, NULL, 0);
	ok(!c.geneve_crit && encap_hdr_len(&c) == 8,
	   "set tlv: none leaves the base header");
	c.tlv_room = 64;
	is_int((int)encap_overhead(&c, false), 20 + 8 + 8 + 64,
	       "geneve, --geneve-echo-room 64: the MTU leaves room for 64");
	encap_set_tlv(&c, gwlb, sizeof(gwlb));
	c.tlv_room = 12;
	is_int((int)encap_overhead(&c, true), 40 + 8 + 8 + 20,
	       "geneve: options longer than the room count as they are");
	c.type = ENCAP_VXLAN;
	c.tlv_room = 64;
	is_int((int)encap_overhead(&c, false), 20 + 8 + 8,
	       "vxlan: no room for options it cannot carry");
}

int main(void)
{
	uint64_t seen[N_TABLE] = { 0 };
	int n = 0, v;
	size_t i;

	for (i = 0; i < N_CFGS; i++)
		if (is_geneve(&cfgs[i]) && cfgs[i].vni == 77)
			geneve_fill_long(&cfgs[i]);
	for (i = 0; i < N_CFGS; i++) {
		n += count_build(&cfgs[i]) + 3 + 2;
		for (v = 0; v < 2; v++)
			n += count_mutations(&cfgs[i], v);
		n += !is_gre(&cfgs[i]);
	}
	n += N_OVERHEAD + 2 + 3 * N_NAMES + N_BAD_NAMES + 2 + N_ECN;
	n += TABLE_CHECKS * N_TABLE + 3 + 2 * KERNEL_CHECKS + 1 + N_LISTS;
	n += N_CFGS + 2 * N_TABLE;
	for (i = 0; i < N_STRIP; i++)
		n += 1 + !strip_rows[i].want;
	n += 2 * N_HOSTILE + GENEVE_MANY_CHECKS + N_OPT_PARSE;
	n += GENEVE_LIMIT_CHECKS + N_CFGS + TLV_CHECKS;
	plan(n);

	for (i = 0; i < N_CFGS; i++) {
		test_drops(&cfgs[i], &seen[cfgs[i].type]);
		test_build(&cfgs[i]);
		for (v = 0; v < 2; v++)
			test_mutations(&cfgs[i], v);
		test_lengths(&cfgs[i]);
		test_peek(&cfgs[i]);
		if (is_gpe(&cfgs[i]))
			test_gpe_reserved(&cfgs[i]);
		else if (is_geneve(&cfgs[i]))
			test_geneve_reserved(&cfgs[i]);
		else if (!is_gre(&cfgs[i]))
			test_vxlan_reserved(&cfgs[i]);
	}
	for (i = 0; i < N_TABLE; i++)
		test_row_drops((enum encap_type)i, seen[i]);
	for (i = 0; i < N_CFGS; i++)
		test_rx_tlv(&cfgs[i]);
	test_set_tlv();
	test_overhead();
	test_names();
	test_table();
	test_lists();
	test_ecn();
	test_kernel();
	test_strip();
	test_geneve_hostile(false);
	test_geneve_hostile(true);
	test_geneve_many();
	test_geneve_opt_parse();
	test_geneve_opt_limits();
	return done_testing();
}
