// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Geneve (RFC 8926): its row of the encapsulations' table, its header and
 * options written in front of each segment, checked and stripped on
 * receive, and the parser of one option the configuration sends.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include "base/bytes.h"
#include "base/log.h"
#include "encap/encap-priv.h"
#include "encap/geneve.h"

#define GENEVE_PORT 6081	/* RFC 8926 section 3.3, IANA */
#define ETH_P_TEB_GENEVE 0x6558	/* Transparent Ethernet Bridging */

/*
 * Geneve header, RFC 8926 section 3.4, then Opt Len 4-byte words of
 * options, each as section 3.5 draws it:
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |Ver|  Opt Len  |O|C|    Rsvd.  |          Protocol Type        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |        Virtual Network Identifier (VNI)       |    Reserved   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Option Class         |      Type     |R|R|R| Length  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |              Variable-Length Option Data (Length words)       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The type's high bit is the option's critical bit. Rsvd, Reserved and
 * an option's R bits MUST be zero on transmission and ignored on receipt.
 */
#define GENEVE_BASE_HLEN 8
#define GENEVE_HLEN_MAX (GENEVE_BASE_HLEN + ENCAP_GENEVE_OPTS_MAX)
#define GENEVE_VER_SHIFT 6
#define GENEVE_OPTLEN_MASK 0x3f
#define GENEVE_F_O 0x80		/* second byte: OAM, a control packet */
#define GENEVE_F_C 0x40		/* second byte: a critical option */
#define GENEVE_VNI_MASK 0x00ffffffu
#define GENEVE_OPT_CRIT 0x80	/* an option's type byte */

_Static_assert(GENEVE_HLEN_MAX <= GSO_HEADROOM,
	       "the Geneve header and options do not fit in the headroom");
_Static_assert(ENCAP_GENEVE_OPTS_MAX == GENEVE_OPTLEN_MASK * 4,
	       "Opt Len's 6 bits of words hold the options");

static bool encap_geneve_peek_id(const uint8_t *pkt, size_t len,
				 uint32_t *id)
{
	if (len < GENEVE_BASE_HLEN)
		return false;
	*id = get_be32(pkt + 4) >> 8;
	return true;
}

static size_t encap_geneve_hdr_len(const struct encap_cfg *c)
{
	return GENEVE_BASE_HLEN + c->geneve_opts_len;
}

/* --geneve-echo: a flow's options may be longer than the configured. */
static size_t encap_geneve_hdr_max(const struct encap_cfg *c)
{
	size_t n = c->geneve_opts_len;

	return GENEVE_BASE_HLEN + (c->tlv_room > n ? c->tlv_room : n);
}

/*
 * The protocol type of s, as geneve_build_header() writes skb->protocol:
 * Transparent Ethernet Bridging for a frame, the IP version's ethertype
 * for a packet (the kernel's inner_proto_inherit).
 */
static uint16_t geneve_seg_proto(const struct encap_cfg *c,
				 const struct seg *s)
{
	if (!c->l3)
		return ETH_P_TEB_GENEVE;
	return encap_seg_ip6(s) ? ETH_P_IPV6 : ETH_P_IP;
}

/* Version 0, no O bit, C if an option is critical; the options as given. */
static uint8_t *encap_geneve_build(const struct encap_cfg *c,
				   const struct seg *s, uint32_t seq)
{
	size_t olen = c->geneve_opts_len;
	uint8_t *h = s->hdr - GENEVE_BASE_HLEN - olen;

	h[0] = (uint8_t)(olen / 4);
	h[1] = c->geneve_crit ? GENEVE_F_C : 0;
	put_be16(h + 2, geneve_seg_proto(c, s));
	put_be32(h + 4, (c->vni & GENEVE_VNI_MASK) << 8);
	memcpy(h + GENEVE_BASE_HLEN, c->geneve_opts, olen);
	return h;
}

/*
 * The IP version a protocol type carries (ENCAP_VERSION_ETH for TEB), or
 * 0 for one Geneve does not carry here: geneve_udp_encap_recv() takes
 * TEB, IPv4 and IPv6 only, and an IP one only on a device that inherits
 * the inner protocol (a tun here), TEB only on one that does not (a tap).
 */
static unsigned int geneve_proto_version(const struct encap_cfg *c,
					 uint16_t proto)
{
	if (!c->l3)
		return proto == ETH_P_TEB_GENEVE ? ENCAP_VERSION_ETH : 0;
	if (proto == ETH_P_IP)
		return 4;
	if (proto == ETH_P_IPV6)
		return 6;
	return 0;
}

/*
 * RFC 8926 section 3.5: the options' TLVs, each its 4-byte header and
 * Length words, must fill the len bytes Opt Len gave exactly; one that
 * runs past them is malformed. gsotun knows no option: one with the
 * critical bit MUST drop the packet, the others are ignored. The walk
 * goes to the end first, so that a malformed list is counted as one
 * whatever its critical bits say.
 */
static enum drop geneve_opts_check(const uint8_t *opt, size_t len)
{
	bool crit = false;
	size_t at = 0, n;

	while (at < len) {
		/* len and at are whole words: a header's 4 bytes are there */
		n = GENEVE_OPT_HLEN + (opt[at + 3] & GENEVE_OPT_LEN_MASK) * 4;
		if (n > len - at)
			return DROP_RX_GENEVE_OPT;
		crit |= opt[at + 2] & GENEVE_OPT_CRIT;
		at += n;
	}
	return crit ? DROP_RX_GENEVE_CRITICAL : DROP_NONE;
}

/*
 * What follows the VNI: Opt Len within the packet (the pull of
 * iptunnel_pull_header()), the options, then the O bit: "Tunnel endpoints
 * MUST NOT forward the payload" of a control packet (section 3.4). The
 * C bit alone does not drop, as the kernel's geneve_rx() does (it parses
 * no option): it tells a receiver to walk the options, which is always
 * done here, and an option that is critical drops by its own bit.
 */
static enum drop geneve_check_opts(const uint8_t *pkt, size_t len)
{
	size_t olen = (pkt[0] & GENEVE_OPTLEN_MASK) * 4;
	enum drop err;

	if (olen > len - GENEVE_BASE_HLEN)
		return DROP_RX_GENEVE_OPT;
	err = geneve_opts_check(pkt + GENEVE_BASE_HLEN, olen);
	if (err)
		return err;
	if (pkt[1] & GENEVE_F_O)
		return DROP_RX_GENEVE_OAM;
	return DROP_NONE;
}

/*
 * In geneve_udp_encap_recv()'s order: the version ("Packets received by
 * a tunnel endpoint with an unknown version MUST be dropped", section
 * 3.4), a protocol type Geneve carries, the VNI (geneve_lookup_skb()),
 * the protocol this device's mode takes, then the options and the O bit;
 * then the payload's length and, for an IP packet, its version.
 */
static enum drop encap_geneve_parse(const struct encap_cfg *c,
				    const uint8_t *pkt, size_t len,
				    struct encap_rx *rx)
{
	unsigned int version;
	uint16_t proto;
	size_t off;
	enum drop err;

	if (len < GENEVE_BASE_HLEN)
		return DROP_RX_SHORT;
	if (pkt[0] >> GENEVE_VER_SHIFT)
		return DROP_RX_GENEVE_VERSION;
	proto = get_be16(pkt + 2);
	if (proto != ETH_P_TEB_GENEVE && proto != ETH_P_IP &&
	    proto != ETH_P_IPV6)
		return DROP_RX_GENEVE_PROTO;
	if (get_be32(pkt + 4) >> 8 != (c->vni & GENEVE_VNI_MASK))
		return DROP_RX_VNI;
	version = geneve_proto_version(c, proto);
	if (!version)
		return DROP_RX_GENEVE_PROTO;
	err = geneve_check_opts(pkt, len);
	if (err)
		return err;
	off = GENEVE_BASE_HLEN + (pkt[0] & GENEVE_OPTLEN_MASK) * 4;
	err = encap_inner_check(c, pkt + off, len - off, version);
	if (err)
		return err;
	rx->tlv = pkt + GENEVE_BASE_HLEN;
	rx->tlv_len = (uint16_t)(off - GENEVE_BASE_HLEN);
	rx->inner_off = off;
	rx->sum_valid = false;
	return DROP_NONE;
}

/* Hex digits at *p into *v, at least 1, at most max; false if none. */
static bool geneve_hex(const char **p, unsigned int max, uint32_t *v)
{
	unsigned int n = 0;
	int d;

	*v = 0;
	for (; n < max; n++, (*p)++) {
		d = hex_digit(**p);
		if (d < 0)
			break;
		*v = *v << 4 | (uint32_t)d;
	}
	return n > 0;
}

/* The data's hex digits into out, at most max bytes; its length or -1. */
static int geneve_hex_data(const char *p, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi, lo;

	while (*p) {
		hi = hex_digit(p[0]);
		lo = hi < 0 ? -1 : hex_digit(p[1]);
		if (lo < 0 || n == max)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	return (int)n;
}

int encap_geneve_opt_add(struct encap_cfg *c, const char *text)
{
	uint8_t data[GENEVE_OPT_DATA_MAX + 1];
	uint32_t class, type;
	const char *p = text;
	uint8_t *o;
	int n;

	if (!geneve_hex(&p, 4, &class) || *p++ != ':' ||
	    !geneve_hex(&p, 2, &type) || *p++ != ':')
		return -EINVAL;
	n = geneve_hex_data(p, data, sizeof(data));
	if (n < 0 || n % 4 || n > GENEVE_OPT_DATA_MAX)
		return -EINVAL;
	if ((size_t)n + GENEVE_OPT_HLEN >
	    (size_t)ENCAP_GENEVE_OPTS_MAX - c->geneve_opts_len)
		return -ENOSPC;
	o = c->geneve_opts + c->geneve_opts_len;
	put_be16(o, class);
	o[2] = (uint8_t)type;
	o[3] = (uint8_t)(n / 4);	/* R bits zero */
	memcpy(o + GENEVE_OPT_HLEN, data, (size_t)n);
	c->geneve_opts_len += (uint16_t)(GENEVE_OPT_HLEN + n);
	c->geneve_crit |= (type & GENEVE_OPT_CRIT) != 0;
	return 0;
}

void encap_set_tlv(struct encap_cfg *c, const uint8_t *opts, size_t len)
{
	size_t at = 0;

	BUG_ON(len > ENCAP_GENEVE_OPTS_MAX);
	memcpy(c->geneve_opts, opts, len);
	c->geneve_opts_len = (uint16_t)len;
	c->geneve_crit = false;
	/* Whole TLVs (geneve_opts_check() walked them): the C bit's types. */
	while (at + GENEVE_OPT_HLEN <= len) {
		c->geneve_crit |= (opts[at + 2] & GENEVE_OPT_CRIT) != 0;
		at += GENEVE_OPT_HLEN + (opts[at + 3] & GENEVE_OPT_LEN_MASK) * 4;
	}
}

static const enum drop encap_geneve_foreign[] = {
	DROP_RX_GENEVE_VERSION, DROP_RX_GENEVE_PROTO, DROP_NONE,
};

static const enum drop encap_geneve_drops[] = {
	DROP_RX_SHORT, DROP_RX_GENEVE_VERSION, DROP_RX_GENEVE_PROTO,
	DROP_RX_VNI, DROP_RX_GENEVE_OPT, DROP_RX_GENEVE_CRITICAL,
	DROP_RX_GENEVE_OAM, DROP_RX_INNER_SHORT, DROP_RX_INNER_HDR, DROP_NONE,
};

/*
 * RFC 8926: a VNI as VXLAN's, a protocol type as GRE's (Ethernet frames
 * and IP packets), options; the kernel's geneve takes IANA's port too.
 */
const struct encap_ops encap_geneve = {
	.name = "geneve",
	.id_name = "VNI",
	.id_option = "vni",
	.id_optional = false,
	.ip_proto = IPPROTO_UDP,
	.port = GENEVE_PORT,
	.linux_port = 0,
	.seq = false,
	.l2 = true,
	.l3 = true,
	.evpn = false,
	.tlv = true,
	.drops = encap_geneve_drops,
	.foreign = encap_geneve_foreign,
	.hdr_len = encap_geneve_hdr_len,
	.hdr_max = encap_geneve_hdr_max,
	.build = encap_geneve_build,
	.parse = encap_geneve_parse,
	.peek_id = encap_geneve_peek_id,
};
