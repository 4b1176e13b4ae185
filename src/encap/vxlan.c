// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * VXLAN (RFC 7348): its row of the encapsulations' table, its header
 * written in front of each segment and checked and stripped on receive.
 */
#include "config.h"

#include <netinet/in.h>
#include "base/bytes.h"
#include "encap/encap-priv.h"
#include "encap/vxlan.h"

#define VXLAN_PORT 4789		/* RFC 7348 section 5 */

_Static_assert(VXLAN_HLEN <= GSO_HEADROOM,
	       "the VXLAN header does not fit in the segment headroom");

bool encap_vxlan_peek_id(const uint8_t *pkt, size_t len, uint32_t *id)
{
	if (len < VXLAN_HLEN)
		return false;
	*id = get_be32(pkt + 4) >> 8;
	return true;
}

size_t encap_vxlan_hdr_len(const struct encap_cfg *c)
{
	return VXLAN_HLEN;
}

static uint8_t *encap_vxlan_build(const struct encap_cfg *c,
				  const struct seg *s, uint32_t seq)
{
	uint8_t *h = s->hdr - VXLAN_HLEN;

	put_be32(h, VXLAN_W0_I);
	put_be32(h + 4, (c->vni & VXLAN_VNI_MASK) << 8);
	return h;
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

static const enum drop encap_vxlan_foreign[] = {
	DROP_RX_FLAGS, DROP_NONE,
};

static const enum drop encap_vxlan_drops[] = {
	DROP_RX_SHORT, DROP_RX_FLAGS, DROP_RX_VNI, DROP_RX_INNER_SHORT,
	DROP_NONE,
};

const struct encap_ops encap_vxlan = {
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
	.evpn = true,
	.drops = encap_vxlan_drops,
	.foreign = encap_vxlan_foreign,
	.hdr_len = encap_vxlan_hdr_len,
	.build = encap_vxlan_build,
	.parse = encap_vxlan_parse,
	.peek_id = encap_vxlan_peek_id,
};
