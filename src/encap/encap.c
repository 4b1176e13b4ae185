// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Encapsulation headers (VXLAN, GRE, GRE-in-UDP, VXLAN-GPE): written in
 * front of each segment's inner headers on transmit, checked and stripped
 * on receive.
 */
#include "config.h"

#include <string.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include "base/bytes.h"
#include "base/csum.h"
#include "base/log.h"
#include "pkt/frame.h"
#include "encap/encap.h"

/*
 * Smallest inner payload: an Ethernet header (ETH_HLEN), or an IPv4
 * header for an IP packet (l3), as ip_rcv_core() pulls sizeof(struct
 * iphdr) before it looks at the version.
 */
#define ENCAP_INNER_MIN 14
#define ENCAP_INNER_MIN_IP 20

/* What a protocol field announces that is not IP: an Ethernet frame. */
#define ENCAP_VERSION_ETH 0xff

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
 * VXLAN-GPE header, draft-ietf-nvo3-vxlan-gpe-12 section 3.1: VXLAN's,
 * with a version, the P bit saying Next Protocol is there, B (BUM) and
 * O (OAM):
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |R|R|Ver|I|P|B|O|           Reserved            | Next Protocol |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                VXLAN Network Identifier (VNI) |   Reserved    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#define GPE_W0_VER 0x30000000u
#define GPE_W0_P 0x04000000u
#define GPE_W0_O 0x01000000u
#define GPE_W0_NP 0x000000ffu
/* The bits vxlan_rcv() takes as parsed: VXLAN_GPE_USED_BITS and I. */
#define GPE_W0_USED (VXLAN_W0_I | GPE_W0_VER | GPE_W0_P | GPE_W0_O | \
		     GPE_W0_NP)
/* Next Protocol, section 3.1; the kernel's TUN_P_* (tun_proto.h). */
#define GPE_NP_IPV4 1
#define GPE_NP_IPV6 2
#define GPE_NP_ETHERNET 3
#define GPE_NP_NSH 4
#define GPE_NP_MPLS 5

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

/*
 * Is segment s's IP packet (l3: its header block starts with the IP
 * header) IPv6? The transmit path sends only what frame_parse_ip() took,
 * version 4 or 6.
 */
static bool encap_seg_ip6(const struct seg *s)
{
	return s->hdr_len && s->hdr[0] >> 4 == 6;
}

/*
 * The inner payload's length, and with l3 its IP version against the
 * version the encapsulation header announced (4 or 6; ENCAP_VERSION_ETH,
 * in l2, is not checked): the kernel hands
 * the packet to ip_rcv() or ipv6_rcv() by the header's protocol alone,
 * and ip_rcv_core() drops a version that is not 4 (ipv6_rcv() one not 6)
 * as a header error, IPSTATS_MIB_INHDRERRORS: so an inner header fault.
 */
static enum drop encap_inner_check(const struct encap_cfg *c,
				   const uint8_t *inner, size_t len,
				   unsigned int version)
{
	if (len < (c->l3 ? ENCAP_INNER_MIN_IP : ENCAP_INNER_MIN))
		return DROP_RX_INNER_SHORT;
	if (c->l3 && inner[0] >> 4 != version)
		return DROP_RX_INNER_HDR;
	return DROP_NONE;
}

/* The VNI of a VXLAN or VXLAN-GPE header: bytes 4 to 6, either way. */
static bool encap_vxlan_peek_id(const uint8_t *pkt, size_t len, uint32_t *id)
{
	if (len < VXLAN_HLEN)
		return false;
	*id = get_be32(pkt + 4) >> 8;
	return true;
}

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
 * The protocol type of s: Transparent Ethernet Bridging for a frame (as
 * gretap), the IP version's ethertype for an IP packet, as ip_gre's L3
 * tunnels (ipgre_xmit(): skb->protocol) and routers send.
 */
static uint16_t gre_seg_proto(const struct encap_cfg *c, const struct seg *s)
{
	if (!c->l3)
		return ETH_P_TEB_GRE;
	return encap_seg_ip6(s) ? ETH_P_IPV6 : ETH_P_IP;
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
	put_be16(h + 2, gre_seg_proto(c, s));
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
 * The IP version a protocol type carries in c's mode, or 0 if it is not
 * one the mode takes: in l2 TEB only (a gretap's, ENCAP_VERSION_ETH); in
 * l3 IPv4 or IPv6,
 * as ipgre_rcv() leaves TEB to the gretap tunnels (and an ipgre tunnel
 * takes nothing else that gsotun could write into a tun).
 */
static unsigned int gre_proto_version(const struct encap_cfg *c,
				      uint16_t proto)
{
	if (!c->l3)
		return proto == ETH_P_TEB_GRE ? ENCAP_VERSION_ETH : 0;
	if (proto == ETH_P_IP)
		return 4;
	if (proto == ETH_P_IPV6)
		return 6;
	return 0;
}

/*
 * Checks in the kernel's order: flags and length (gre_parse_header()),
 * the checksum over header and payload (also there), protocol (gre_rcv()),
 * key (ip_tunnel_lookup()), a required checksum (ip_tunnel_rcv(), as a
 * gretap with icsum), the inner payload (encap_inner_check()). Unlike
 * ip_tunnel_rcv(), a checksum the configuration
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
	unsigned int version;
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
	version = gre_proto_version(c, get_be16(pkt + 2));
	if (!version)
		return DROP_RX_GRE_PROTO;
	err = gre_check_key(c, flags, opt);
	if (err)
		return err;
	if (c->gre_csum && !(flags & GRE_F_CSUM))
		return DROP_RX_CSUM_MISSING;
	/* ip_tunnel_rcv() pulls ETH_HLEN for an ARPHRD_ETHER tunnel */
	err = encap_inner_check(c, pkt + hlen, len - hlen, version);
	if (err)
		return err;
	rx->inner_off = hlen;
	rx->sum_valid = (flags & GRE_F_CSUM) != 0;
	/* hlen is a multiple of 4: the frame's words are the packet's */
	if (rx->sum_valid)
		rx->inner_sum = csum_sub(sum, csum_partial(pkt, hlen, 0));
	return DROP_NONE;
}

/*
 * The next protocol of s, as vxlan_build_gpe_hdr() writes it from the
 * packet's protocol (tun_p_from_eth_p()): Ethernet in l2, else IPv4 or
 * IPv6 by the inner header's version.
 */
static uint8_t gpe_seg_np(const struct encap_cfg *c, const struct seg *s)
{
	if (!c->l3)
		return GPE_NP_ETHERNET;
	return encap_seg_ip6(s) ? GPE_NP_IPV6 : GPE_NP_IPV4;
}

/*
 * What the kernel's vxlan sends in GPE mode: the I flag (vxlan_build_skb())
 * and P with the next protocol (vxlan_build_gpe_hdr()), version 0, no B
 * or O bit, reserved fields zero.
 */
static void encap_gpe_build(const struct encap_cfg *c, uint8_t *h,
			    const struct seg *s, uint32_t seq)
{
	put_be32(h, VXLAN_W0_I | GPE_W0_P | gpe_seg_np(c, s));
	put_be32(h + 4, (c->vni & VXLAN_VNI_MASK) << 8);
}

/*
 * vxlan_parse_gpe_proto(): P must be set, the version 0 ("If a receiver
 * does not support the version indicated it MUST drop the packet"), and
 * O clear (OAM packets are not processed, so dropped); then the next
 * protocol must be one tun_p_to_eth_p() knows.
 */
static enum drop gpe_check_proto(uint32_t w0)
{
	uint8_t np = w0 & GPE_W0_NP;

	if (!(w0 & GPE_W0_P) || (w0 & GPE_W0_VER) || (w0 & GPE_W0_O))
		return DROP_RX_GPE_FLAGS;
	if (np < GPE_NP_IPV4 || np > GPE_NP_MPLS)
		return DROP_RX_GPE_PROTO;
	return DROP_NONE;
}

/*
 * The IP version a next protocol carries in c's mode (ENCAP_VERSION_ETH
 * for Ethernet in l2), or 0 if the device does not take it. The kernel
 * hands a packet it parsed to the stack under that protocol, which has
 * no handler for what the device is not (TEB on its L3 GPE device; NSH
 * and MPLS here at all).
 */
static unsigned int gpe_np_version(const struct encap_cfg *c, uint8_t np)
{
	if (!c->l3)
		return np == GPE_NP_ETHERNET ? ENCAP_VERSION_ETH : 0;
	if (np == GPE_NP_IPV4)
		return 4;
	if (np == GPE_NP_IPV6)
		return 6;
	return 0;
}

/*
 * In vxlan_rcv()'s order: the I flag, the VNI (vxlan_vs_find_vni()), the
 * GPE fields (vxlan_parse_gpe_proto()), then any bit left unparsed (B,
 * the reserved ones) drops as in plain VXLAN; then what the stack does
 * with the payload: a protocol the device carries, its length and, for
 * an IP packet, its version.
 */
static enum drop encap_gpe_parse(const struct encap_cfg *c,
				 const uint8_t *pkt, size_t len,
				 struct encap_rx *rx)
{
	unsigned int version;
	uint32_t w0, w1;
	enum drop err;

	if (len < VXLAN_HLEN)
		return DROP_RX_SHORT;
	w0 = get_be32(pkt);
	w1 = get_be32(pkt + 4);
	if (!(w0 & VXLAN_W0_I))
		return DROP_RX_FLAGS;
	if (w1 >> 8 != (c->vni & VXLAN_VNI_MASK))
		return DROP_RX_VNI;
	err = gpe_check_proto(w0);
	if (err)
		return err;
	if ((w0 & ~GPE_W0_USED) || (w1 & 0xff))
		return DROP_RX_FLAGS;
	version = gpe_np_version(c, w0 & GPE_W0_NP);
	if (!version)
		return DROP_RX_GPE_PROTO;
	err = encap_inner_check(c, pkt + VXLAN_HLEN, len - VXLAN_HLEN,
				version);
	if (err)
		return err;
	rx->inner_off = VXLAN_HLEN;
	rx->sum_valid = false;
	return DROP_NONE;
}

/* The key, where the K bit says there is one (RFC 2890 section 2.1). */
static bool encap_gre_peek_id(const uint8_t *pkt, size_t len, uint32_t *id)
{
	uint16_t flags;
	size_t off;

	if (len < GRE_BASE_HLEN)
		return false;
	flags = get_be16(pkt);
	off = GRE_BASE_HLEN + (flags & GRE_F_CSUM ? 4 : 0);
	if (!(flags & GRE_F_KEY) || len < off + 4)
		return false;
	*id = get_be32(pkt + off);
	return true;
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
		.peek_id = encap_vxlan_peek_id,
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
		.peek_id = encap_gre_peek_id,
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
		.peek_id = encap_gre_peek_id,
	},
	/*
	 * draft-ietf-nvo3-vxlan-gpe-12: VXLAN's header with a next protocol,
	 * so IP packets as well as Ethernet frames; the VNI as in VXLAN
	 */
	[ENCAP_VXLAN_GPE] = {
		.name = "vxlan-gpe",
		.id_name = "VNI",
		.id_option = "vni",
		.id_optional = false,
		.ip_proto = IPPROTO_UDP,
		.port = VXLAN_GPE_PORT,
		/* vxlan_config_validate(): 4790 for gpe, the IANA port */
		.linux_port = 0,
		.seq = false,
		.l2 = true,
		.l3 = true,
		.hdr_len = encap_vxlan_hdr_len,
		.build = encap_gpe_build,
		.parse = encap_gpe_parse,
		.peek_id = encap_vxlan_peek_id,
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

enum encap_ecn encap_ecn_decap(bool l3, uint8_t *frame, size_t len,
			       uint8_t outer_ecn)
{
	uint16_t old, check;
	struct frame f;
	uint8_t *ip, inner;

	/* Most packets: nothing to do, and nothing parsed. */
	if ((outer_ecn & 3) != ECN_CE)
		return ENCAP_ECN_KEEP;
	/* The walk gro_add() makes too; a frame it refuses, GRO drops. */
	if (frame_parse_as(l3, frame, len, &f) != FRAME_OK || !f.ip)
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
	const struct encap_ops *ops = encap_ops_find(type);

	return ops && ops->peek_id(pkt, len, id);
}
