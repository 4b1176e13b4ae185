// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe-12): its row of the
 * encapsulations' table, its header (VXLAN's, with a next protocol)
 * written in front of each segment and checked and stripped on receive.
 */
#include "config.h"

#include <netinet/in.h>
#include "base/bytes.h"
#include "encap/encap-priv.h"
#include "encap/vxlan.h"

#define VXLAN_GPE_PORT 4790	/* draft-ietf-nvo3-vxlan-gpe-12 section 3.2 */

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
static uint8_t *encap_gpe_build(const struct encap_cfg *c,
				const struct seg *s, uint32_t seq)
{
	uint8_t *h = s->hdr - VXLAN_HLEN;

	put_be32(h, VXLAN_W0_I | GPE_W0_P | gpe_seg_np(c, s));
	put_be32(h + 4, (c->vni & VXLAN_VNI_MASK) << 8);
	return h;
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

static const enum drop encap_gpe_foreign[] = {
	DROP_RX_GPE_FLAGS, DROP_RX_GPE_PROTO, DROP_NONE,
};

static const enum drop encap_gpe_drops[] = {
	DROP_RX_SHORT, DROP_RX_FLAGS, DROP_RX_VNI, DROP_RX_GPE_FLAGS,
	DROP_RX_GPE_PROTO, DROP_RX_INNER_SHORT, DROP_RX_INNER_HDR, DROP_NONE,
};

/*
 * draft-ietf-nvo3-vxlan-gpe-12: VXLAN's header with a next protocol,
 * so IP packets as well as Ethernet frames; the VNI as in VXLAN
 */
const struct encap_ops encap_gpe = {
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
	.evpn = false,
	.drops = encap_gpe_drops,
	.foreign = encap_gpe_foreign,
	.hdr_len = encap_vxlan_hdr_len,
	.build = encap_gpe_build,
	.parse = encap_gpe_parse,
	.peek_id = encap_vxlan_peek_id,
};
