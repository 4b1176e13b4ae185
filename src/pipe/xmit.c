// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * xmit: a frame from the tap to encapsulated segments for the wire, the
 * transmit path between the tap read and the send.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include "base/stats.h"
#include "pkt/vnet.h"
#include "pipe/xmit.h"

/*
 * Outer TOS for --tos inherit: the inner DSCP, and the inner ECN field as
 * RFC 6040 section 4.1's normal mode copies it (INET_ECN_encapsulate():
 * CE leaves as ECT(0)); the receiver copies a CE mark the path adds back
 * onto the inner packet (encap_ecn_decap()).
 */
static int xmit_inner_tos(const struct frame *f)
{
	const uint8_t *l3 = f->data + f->l3_off;
	int tos;

	if (f->ethertype == ETH_P_IP)
		tos = l3[1];
	else if (f->ethertype == ETH_P_IPV6)
		tos = ((l3[0] & 0x0f) << 4) | (l3[1] >> 4);
	else
		return 0;
	return (tos & ~3) | encap_ecn_encap(tos & 3);
}

/*
 * Fragment the n segments just planned at first into IPv4 fragments that
 * fit the path, appended after them (the originals stay unused until the
 * arena is emptied); first moves to the first fragment. On -ENOSPC the
 * arena is as before the segments were planned.
 */
static int xmit_fragment(const struct frame *f, uint32_t budget,
			 bool want_sum, struct seg_arena *a, int n,
			 unsigned int *first)
{
	unsigned int out = a->n;
	int i, r;

	for (i = 0; i < n; i++) {
		r = pmtu_fragment(&a->segs[*first + i], f->l3_off, budget,
				  want_sum, a);
		if (r < 0) {
			a->n = *first;
			return r;
		}
	}
	*first = out;
	return (int)(a->n - out);
}

/*
 * Plan f's segments (cut to mss_cap, or fragmented) at the end of a, as
 * doc/design.md's "Segment length, not packet length, meets the MTU" asks.
 */
static int xmit_plan(const struct xmit_cfg *c, const struct frame *f,
		     uint16_t mss_cap, bool frag, struct seg_arena *a,
		     unsigned int *first)
{
	bool want_sum = c->encap->gre_csum;
	int n;

	*first = a->n;
	n = gso_plan(f, a, mss_cap, want_sum);
	if (n > 0 && frag)
		n = xmit_fragment(f, c->budget, want_sum, a, n, first);
	return n;
}

enum xmit_bulk xmit_udp_bulk(struct xmit_udp_train *tr, const struct frame *f,
			     uint32_t fit)
{
	if (f->l4_proto != IPPROTO_UDP)
		return XMIT_BULK_NONE;
	if (f->gso != FRAME_GSO_NONE)
		return f->len > fit ? XMIT_BULK_SUPER : XMIT_BULK_NONE;
	/* A fragment has no UDP header (frame_parse()): no UDP_SEGMENT. */
	if (!f->l4_off || f->len < XMIT_UDP_TRAIN_MIN) {
		tr->run = 0;
		return XMIT_BULK_NONE;
	}
	if (f->len != tr->len) {
		tr->len = f->len;
		tr->run = 0;
	}
	if (++tr->run < XMIT_UDP_TRAIN)
		return XMIT_BULK_NONE;
	tr->run = 0;
	return XMIT_BULK_TRAIN;
}

int xmit_frame(const struct xmit_cfg *c, uint32_t *gre_seq,
	       const uint8_t *buf, size_t len, struct seg_arena *a,
	       struct xmit_out *out)
{
	struct virtio_net_hdr hdr;
	uint16_t mss_cap = 0;
	enum drop err;
	int n, i;

	out->parsed = false;
	if (len < (size_t)VNET_HDR_LEN)
		return DROP_TX_SHORT;
	memcpy(&hdr, buf, sizeof(hdr));
	err = vnet_hdr_parse_as(c->encap->l3, &hdr, buf + VNET_HDR_LEN,
				len - VNET_HDR_LEN, &out->f);
	if (err)
		return err;
	out->parsed = true;
	out->fit = pmtu_fit(&out->f, c->budget, c->pmtud, &mss_cap);
	if (out->fit == PMTU_FIT_ICMP || out->fit == PMTU_FIT_DROP)
		return DROP_TX_TOO_BIG;
	n = xmit_plan(c, &out->f, mss_cap, out->fit == PMTU_FIT_FRAGMENT, a,
		      &out->first);
	if (n == -ENOSPC)
		return -ENOSPC;
	if (n < 0)
		return DROP_TX_SEGMENT;
	out->n = (unsigned int)n;
	out->encap_len = encap_hdr_len(c->encap);
	for (i = 0; i < n; i++)
		encap_build(c->encap, &a->segs[out->first + i], (*gre_seq)++);
	out->tos = c->tos_inherit ? xmit_inner_tos(&out->f) : -1;
	out->df = c->df_inherit && pmtu_frame_df(&out->f);
	out->src = c->n_src > 1 ? frame_flow_hash(&out->f) % c->n_src : 0;
	return DROP_NONE;
}
