// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decap: a packet from the peer to frames for the tap, the receive path
 * between the socket and the tap write.
 */
#include "config.h"

#include "encap/decap.h"

enum drop decap_strip(const struct encap_cfg *c, uint8_t *pkt, size_t len,
		      uint8_t ecn, struct decap_out *out)
{
	struct encap_rx rx;

	out->drop = encap_parse(c, pkt, len, &rx);
	out->ce = false;
	if (out->drop)
		return out->drop;
	switch (encap_ecn_decap(c->l3, pkt + rx.inner_off, len - rx.inner_off,
				ecn)) {
	case ENCAP_ECN_DROP:
		out->drop = DROP_RX_ECN;
		return out->drop;
	case ENCAP_ECN_MARK:
		out->ce = true;
		break;
	case ENCAP_ECN_KEEP:
		break;
	}
	out->inner = pkt + rx.inner_off;
	out->inner_len = len - rx.inner_off;
	/* An outer CE may have changed bytes the GRE checksum's sum covers. */
	out->has_sum = rx.sum_valid && ecn != ECN_CE;
	out->sum = rx.inner_sum;
	out->tlv = rx.tlv;
	out->tlv_len = rx.tlv_len;
	return DROP_NONE;
}

enum gro_result decap_packet(const struct encap_cfg *c, struct gro *g,
			     uint8_t *pkt, size_t len, uint8_t ecn,
			     struct decap_out *out)
{
	if (decap_strip(c, pkt, len, ecn, out))
		return GRO_DROPPED;
	return decap_again(g, out);
}

enum gro_result decap_again(struct gro *g, struct decap_out *out)
{
	return gro_add_tlv(g, out->inner, out->inner_len,
			   out->has_sum ? &out->sum : NULL, out->tlv,
			   out->tlv_len, &out->drop);
}
