// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Encapsulation headers (VXLAN, GRE, GRE-in-UDP): written in front of each
 * segment's inner headers on transmit, checked and stripped on receive.
 */
#include "config.h"

#include <string.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include "bytes.h"
#include "csum.h"
#include "encap.h"
#include "frame.h"
#include "log.h"

/* Smallest inner frame: an Ethernet header (ETH_HLEN). */
#define ENCAP_INNER_MIN 14

/* Outer headers in front of the encapsulation header. */
#define ENCAP_IP4_HLEN 20
#define ENCAP_IP6_HLEN 40
#define ENCAP_UDP_HLEN 8

/*
 * VXLAN header, RFC 7348 section 5:
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |R|R|R|R|I|R|R|R|            Reserved                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                VXLAN Network Identifier (VNI) |   Reserved    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#define VXLAN_HLEN 8
#define VXLAN_W0_I 0x08000000u	/* I flag in the first 32-bit word */
#define VXLAN_VNI_MASK 0x00ffffffu

/*
 * GRE header, RFC 2784 section 2.1, with the key and sequence number of
 * RFC 2890 section 2 (R, s and Recur are RFC 1701 leftovers):
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |C|R|K|S|s|Recur|  Flags  | Ver |         Protocol Type         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |      Checksum (optional)      |       Reserved1 (optional)    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Key (optional)                        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 Sequence Number (optional)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * GRE-in-UDP (RFC 8086 section 3) carries the same header in UDP.
 */
#define GRE_BASE_HLEN 4
#define GRE_HLEN_MAX 16
#define GRE_F_CSUM 0x8000
#define GRE_F_ROUTING 0x4000
#define GRE_F_KEY 0x2000
#define GRE_F_SEQ 0x1000
#define GRE_F_SSR 0x0800
#define GRE_F_RECUR 0x0700
#define GRE_F_RESERVED 0x00f8
#define GRE_VERSION 0x0007
#define GRE_F_BAD (GRE_F_ROUTING | GRE_F_SSR | GRE_F_RECUR | GRE_F_RESERVED)

_Static_assert(VXLAN_HLEN <= GSO_HEADROOM && GRE_HLEN_MAX <= GSO_HEADROOM,
	       "encapsulation header does not fit in the segment headroom");

static size_t encap_vxlan_hdr_len(const struct encap_cfg *c)
{
	return VXLAN_HLEN;
}

static void encap_vxlan_build(const struct encap_cfg *c, uint8_t *h,
			      const struct seg *s, uint32_t seq)
{
	put_be32(h, VXLAN_W0_I);
	put_be32(h + 4, (c->vni & VXLAN_VNI_MASK) << 8);
}

/*
 * RFC 7348 says receivers ignore the reserved fields; like the kernel's
 * vxlan_rcv() without extensions (GBP, GPE, RCO) we drop instead: the I
 * flag first, then the VNI, then any reserved bit left over.
 */
static enum drop encap_vxlan_parse(const struct encap_cfg *c,
				   const uint8_t *pkt, size_t len,
				   struct encap_rx *rx)
{
	uint32_t w0, w1;

	if (len < VXLAN_HLEN)
		return DROP_RX_SHORT;
	w0 = get_be32(pkt);
	w1 = get_be32(pkt + 4);
	if (!(w0 & VXLAN_W0_I))
		return DROP_RX_FLAGS;
	if (w1 >> 8 != (c->vni & VXLAN_VNI_MASK))
		return DROP_RX_VNI;
	if ((w0 & ~VXLAN_W0_I) || (w1 & 0xff))
		return DROP_RX_FLAGS;
	/* vxlan_rcv() pulls ETH_HLEN before eth_type_trans() */
	if (len - VXLAN_HLEN < ENCAP_INNER_MIN)
		return DROP_RX_INNER_SHORT;
	rx->inner_off = VXLAN_HLEN;
	rx->sum_valid = false;
	return DROP_NONE;
}

static size_t gre_hlen(uint16_t flags)
{
	size_t n = GRE_BASE_HLEN;

	if (flags & GRE_F_CSUM)
		n += 4;
	if (flags & GRE_F_KEY)
		n += 4;
	if (flags & GRE_F_SEQ)
		n += 4;
	return n;
}

static uint16_t gre_cfg_flags(const struct encap_cfg *c)
{
	uint16_t flags = 0;

	if (c->gre_csum)
		flags |= GRE_F_CSUM;
	if (c->has_key)
		flags |= GRE_F_KEY;
	if (c->gre_seq)
		flags |= GRE_F_SEQ;
	return flags;
}

static size_t encap_gre_hdr_len(const struct encap_cfg *c)
{
	return gre_hlen(gre_cfg_flags(c));
}

/*
 * RFC 2784 section 2.2: the checksum covers the GRE header and the payload.
 * The payload is the inner segment, whose sum from sum_off on is s->sum
 * (local checksum offload, as the kernel's lco_csum()): only the GRE header
 * and the inner bytes in front of sum_off are summed here.
 */
static uint16_t gre_csum_seg(const uint8_t *h, size_t hlen,
			     const struct seg *s)
{
	uint32_t sum;

	BUG_ON(!s->sum_valid || s->sum_off > s->hdr_len);
	sum = csum_partial(h, hlen, 0);
	/* hlen is a multiple of 4: the inner frame starts at an even offset */
	sum = csum_partial(s->hdr, s->sum_off, sum);
	sum = csum_block_add(sum, s->sum, s->sum_off);
	return csum_fold(sum);
}

static void encap_gre_build(const struct encap_cfg *c, uint8_t *h,
			    const struct seg *s, uint32_t seq)
{
	uint16_t flags = gre_cfg_flags(c);
	size_t hlen = gre_hlen(flags);
	uint8_t *opt = h + GRE_BASE_HLEN;
	uint16_t check;

	put_be16(h, flags);
	put_be16(h + 2, ETH_P_TEB_GRE);
	if (flags & GRE_F_CSUM) {
		/* checksum and Reserved1 zero while summing */
		put_be32(opt, 0);
		opt += 4;
	}
	if (flags & GRE_F_KEY) {
		put_be32(opt, c->key);
		opt += 4;
	}
	if (flags & GRE_F_SEQ)
		put_be32(opt, seq);
	if (flags & GRE_F_CSUM) {
		check = gre_csum_seg(h, hlen, s);
		memcpy(h + GRE_BASE_HLEN, &check, sizeof(check));
	}
}

/* Version and flag bits, in the order of the kernel's gre_parse_header(). */
static enum drop gre_check_flags(uint16_t flags)
{
	if (flags & GRE_VERSION)
		return DROP_RX_GRE_VERSION;
	/*
	 * The kernel drops routing (RFC 1701 source routes); RFC 2784
	 * section 2.1 has a receiver that does not implement RFC 1701
	 * discard packets with any of bits 1-12 set, so SSR, Recur and the
	 * other flag bits go too.
	 */
	if (flags & GRE_F_BAD)
		return DROP_RX_GRE_FLAGS;
	return DROP_NONE;
}

/*
 * A key in the packet must be ours and we must have one, as ip_gre's
 * ip_tunnel_lookup() matches tunnels: a keyless tunnel takes only keyless
 * packets.
 */
static enum drop gre_check_key(const struct encap_cfg *c, uint16_t flags,
			 const uint8_t *key)
{
	if (!(flags & GRE_F_KEY) != !c->has_key)
		return DROP_RX_KEY;
	if (c->has_key && get_be32(key) != c->key)
		return DROP_RX_KEY;
	return DROP_NONE;
}

/*
 * Checks in the kernel's order: flags and length (gre_parse_header()),
 * the checksum over header and payload (also there), protocol (gre_rcv()),
 * key (ip_tunnel_lookup()), a required checksum (ip_tunnel_rcv(), as a
 * gretap with icsum). Unlike ip_tunnel_rcv(), a checksum the configuration
 * does not ask for is verified and accepted rather than dropped.
 * Reserved1 is not checked (RFC 2784 only says to send it as zero).
 * Sequence numbers are accepted whatever they are, present or not: the
 * kernel's iseq drop of out-of-order packets is not implemented.
 */
static enum drop encap_gre_parse(const struct encap_cfg *c,
				 const uint8_t *pkt, size_t len,
				 struct encap_rx *rx)
{
	const uint8_t *opt = pkt + GRE_BASE_HLEN;
	uint32_t sum = 0;
	uint16_t flags;
	enum drop err;
	size_t hlen;

	if (len < GRE_BASE_HLEN)
		return DROP_RX_SHORT;
	flags = get_be16(pkt);
	err = gre_check_flags(flags);
	if (err)
		return err;
	hlen = gre_hlen(flags);
	if (len < hlen)
		return DROP_RX_SHORT;
	if (flags & GRE_F_CSUM) {
		sum = csum_partial(pkt, len, 0);
		if (csum_fold(sum) != 0)
			return DROP_RX_CSUM;
		opt += 4;
	}
	if (get_be16(pkt + 2) != ETH_P_TEB_GRE)
		return DROP_RX_GRE_PROTO;
	err = gre_check_key(c, flags, opt);
	if (err)
		return err;
	if (c->gre_csum && !(flags & GRE_F_CSUM))
		return DROP_RX_CSUM_MISSING;
	/* ip_tunnel_rcv() pulls ETH_HLEN for an ARPHRD_ETHER tunnel */
	if (len - hlen < ENCAP_INNER_MIN)
		return DROP_RX_INNER_SHORT;
	rx->inner_off = hlen;
	rx->sum_valid = (flags & GRE_F_CSUM) != 0;
	/* hlen is a multiple of 4: the frame's words are the packet's */
	if (rx->sum_valid)
		rx->inner_sum = csum_sub(sum, csum_partial(pkt, hlen, 0));
	return DROP_NONE;
}

const struct encap_ops encap_ops_table[] = {
	[ENCAP_VXLAN] = {
		.name = "vxlan",
		.id_name = "VNI",
		.id_option = "vni",
		.id_optional = false,
		.ip_proto = IPPROTO_UDP,
		.port = VXLAN_PORT,
		/* the kernel's vxlan: dstport 8472 unless given one */
		.linux_port = 8472,
		.seq = false,
		.l2 = true,
		.l3 = false,
		.hdr_len = encap_vxlan_hdr_len,
		.build = encap_vxlan_build,
		.parse = encap_vxlan_parse,
	},
	[ENCAP_GRE] = {
		.name = "gre",
		.id_name = "key",
		.id_option = "key",
		.id_optional = true,
		/* RFC 2784: directly on IP protocol 47, no port */
		.ip_proto = IPPROTO_GRE,
		.port = 0,
		.linux_port = 0,
		.seq = true,
		.l2 = true,
		.l3 = true,
		.hdr_len = encap_gre_hdr_len,
		.build = encap_gre_build,
		.parse = encap_gre_parse,
	},
	/* RFC 8086: the GRE header unchanged, in UDP */
	[ENCAP_GRE_UDP] = {
		.name = "gre-udp",
		.id_name = "key",
		.id_option = "key",
		.id_optional = true,
		.ip_proto = IPPROTO_UDP,
		.port = GRE_UDP_PORT,
		.linux_port = 0,
		.seq = true,
		.l2 = true,
		.l3 = true,
		.hdr_len = encap_gre_hdr_len,
		.build = encap_gre_build,
		.parse = encap_gre_parse,
	},
};

#define ENCAP_N_TYPES (sizeof(encap_ops_table) / sizeof(encap_ops_table[0]))

/* NULL for a type that does not exist. */
static const struct encap_ops *encap_ops_find(enum encap_type t)
{
	if ((unsigned int)t >= ENCAP_N_TYPES)
		return NULL;
	return &encap_ops_table[t];
}

/* The row of t; for a type that does not exist, one that says nothing. */
static const struct encap_ops *encap_ops_row(enum encap_type t)
{
	static const struct encap_ops none = {
		.name = "unknown", .id_name = "id", .id_option = "",
	};
	const struct encap_ops *ops = encap_ops_find(t);

	return ops ? ops : &none;
}

/* The configuration was validated: an unknown type here is a bug. */
static const struct encap_ops *encap_ops_get(const struct encap_cfg *c)
{
	const struct encap_ops *ops = encap_ops_find(c->type);

	BUG_ON(!ops);
	return ops;
}

size_t encap_hdr_len(const struct encap_cfg *c)
{
	return encap_ops_get(c)->hdr_len(c);
}

uint8_t *encap_build(const struct encap_cfg *c, struct seg *s, uint32_t seq)
{
	const struct encap_ops *ops = encap_ops_get(c);
	uint8_t *h = s->hdr - ops->hdr_len(c);

	ops->build(c, h, s, seq);
	return h;
}

enum drop encap_parse(const struct encap_cfg *c, const uint8_t *pkt,
		      size_t len, struct encap_rx *rx)
{
	return encap_ops_get(c)->parse(c, pkt, len, rx);
}

enum encap_ecn encap_ecn_decap(uint8_t *frame, size_t len, uint8_t outer_ecn)
{
	uint16_t old, check;
	struct frame f;
	uint8_t *ip, inner;

	/* Most packets: nothing to do, and nothing parsed. */
	if ((outer_ecn & 3) != ECN_CE)
		return ENCAP_ECN_KEEP;
	/* The walk gro_add() makes too; a frame it refuses, GRO drops. */
	if (frame_parse(frame, len, &f) != FRAME_OK || !f.ip)
		return ENCAP_ECN_KEEP;
	ip = frame + f.l3_off;
	inner = f.ethertype == ETH_P_IP ? ip[1] & 3 : (ip[1] >> 4) & 3;
	if (inner == ECN_NOT_ECT)
		return ENCAP_ECN_DROP;
	if (inner == ECN_CE)
		return ENCAP_ECN_KEEP;
	if (f.ethertype == ETH_P_IP) {
		old = get_sum16(ip);
		ip[1] |= ECN_CE;
		check = get_sum16(ip + 10);
		csum_replace2(&check, old, get_sum16(ip));
		put_sum16(ip + 10, check);
	} else {
		ip[1] |= ECN_CE << 4;
	}
	return ENCAP_ECN_MARK;
}

int encap_strip_ip4(const uint8_t *buf, size_t *len, size_t *off)
{
	size_t ihl, tot;

	if (*len < ENCAP_IP4_HLEN || buf[0] >> 4 != 4)
		return -1;
	ihl = (buf[0] & 0x0fu) * 4;
	tot = get_be16(buf + 2);
	if (ihl < ENCAP_IP4_HLEN || tot < ihl || tot > *len)
		return -1;
	*off = ihl;
	*len = tot;
	return 0;
}

uint8_t encap_ecn_encap(uint8_t inner_ecn)
{
	inner_ecn &= 3;
	return inner_ecn == ECN_CE ? ECN_ECT_0 : inner_ecn;
}

const char *encap_name(enum encap_type t)
{
	return encap_ops_row(t)->name;
}

int encap_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < ENCAP_N_TYPES; i++)
		if (!strcmp(name, encap_ops_table[i].name))
			return (int)i;
	return -1;
}

bool encap_is_udp(enum encap_type t)
{
	return encap_ops_row(t)->ip_proto == IPPROTO_UDP;
}

void encap_set_id(struct encap_cfg *c, uint32_t id)
{
	if (encap_ops_get(c)->id_optional) {
		c->key = id;
		c->has_key = true;
	} else {
		c->vni = id;
	}
}

const char *encap_id_name(enum encap_type t)
{
	return encap_ops_row(t)->id_name;
}

const char *encap_id_option(enum encap_type t)
{
	return encap_ops_row(t)->id_option;
}

uint16_t encap_default_port(enum encap_type t)
{
	return encap_ops_row(t)->port;
}

uint16_t encap_linux_port(enum encap_type t)
{
	return encap_ops_row(t)->linux_port;
}

bool encap_carries(enum encap_type t, bool l3)
{
	const struct encap_ops *ops = encap_ops_row(t);

	return l3 ? ops->l3 : ops->l2;
}

bool encap_takes(enum encap_type t, enum encap_opt o)
{
	const struct encap_ops *ops = encap_ops_row(t);

	switch (o) {
	case ENCAP_OPT_UDP:
		return ops->ip_proto == IPPROTO_UDP;
	case ENCAP_OPT_VNI:
		return !strcmp(ops->id_option, "vni");
	case ENCAP_OPT_KEY:
		return !strcmp(ops->id_option, "key");
	case ENCAP_OPT_SEQ:
		return ops->seq;
	}
	return false;
}

/*
 * Outer IP + UDP (when UDP) + encapsulation header. The inner Ethernet
 * header is not included: tap MTU = underlay MTU - overhead - 14, e.g.
 * VXLAN over IPv4: 1500 - (20 + 8 + 8) - 14 = 1450, the MTU the kernel's
 * vxlan picks (its VXLAN_HEADROOM, 50, counts the inner Ethernet header).
 */
size_t encap_overhead(const struct encap_cfg *c, bool ipv6_underlay)
{
	size_t n = ipv6_underlay ? ENCAP_IP6_HLEN : ENCAP_IP4_HLEN;

	if (encap_is_udp(c->type))
		n += ENCAP_UDP_HLEN;
	return n + encap_hdr_len(c);
}

bool encap_peek_id(enum encap_type type, const uint8_t *pkt, size_t len,
		   uint32_t *id)
{
	uint16_t flags;
	size_t off;

	if (type == ENCAP_VXLAN) {
		if (len < VXLAN_HLEN)
			return false;
		*id = get_be32(pkt + 4) >> 8;
		return true;
	}
	if (len < GRE_BASE_HLEN)
		return false;
	flags = get_be16(pkt);
	off = GRE_BASE_HLEN + (flags & GRE_F_CSUM ? 4 : 0);
	if (!(flags & GRE_F_KEY) || len < off + 4)
		return false;
	*id = get_be32(pkt + off);
	return true;
}
