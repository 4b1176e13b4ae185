// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GRE (RFC 2784, with RFC 2890's key and sequence number) and GRE-in-UDP
 * (RFC 8086), one header two ways: their rows of the encapsulations'
 * table, the header written in front of each segment (its checksum by
 * local checksum offload) and checked and stripped on receive.
 */
#include "config.h"

#include <string.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include "base/bytes.h"
#include "base/csum.h"
#include "base/log.h"
#include "encap/encap-priv.h"

#define GRE_UDP_PORT 4754	/* RFC 8086 section 3 */
#define ETH_P_TEB_GRE 0x6558	/* Transparent Ethernet Bridging */

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

_Static_assert(GRE_HLEN_MAX <= GSO_HEADROOM,
	       "the GRE header does not fit in the segment headroom");

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

static uint8_t *encap_gre_build(const struct encap_cfg *c,
				const struct seg *s, uint32_t seq)
{
	uint16_t flags = gre_cfg_flags(c);
	size_t hlen = gre_hlen(flags);
	uint8_t *h = s->hdr - hlen, *opt = h + GRE_BASE_HLEN;
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
	return h;
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

static const enum drop encap_gre_foreign[] = {
	DROP_RX_GRE_PROTO, DROP_RX_GRE_VERSION,
	DROP_RX_GRE_FLAGS, DROP_NONE,
};

static const enum drop encap_gre_drops[] = {
	DROP_RX_SHORT, DROP_RX_GRE_VERSION, DROP_RX_GRE_FLAGS, DROP_RX_CSUM,
	DROP_RX_GRE_PROTO, DROP_RX_KEY, DROP_RX_CSUM_MISSING,
	DROP_RX_INNER_SHORT, DROP_RX_INNER_HDR, DROP_NONE,
};

const struct encap_ops encap_gre = {
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
	.evpn = false,
	.drops = encap_gre_drops,
	.foreign = encap_gre_foreign,
	.hdr_len = encap_gre_hdr_len,
	.build = encap_gre_build,
	.parse = encap_gre_parse,
	.peek_id = encap_gre_peek_id,
};

/* RFC 8086: the GRE header unchanged, in UDP */
const struct encap_ops encap_gre_udp = {
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
	.evpn = false,
	.drops = encap_gre_drops,
	.foreign = encap_gre_foreign,
	.hdr_len = encap_gre_hdr_len,
	.build = encap_gre_build,
	.parse = encap_gre_parse,
	.peek_id = encap_gre_peek_id,
};
