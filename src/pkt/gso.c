// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gso: cut a validated super-frame into segments the way the kernel's
 * software GSO does, writing only header blocks; payloads stay in the frame.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "base/bytes.h"
#include "base/csum.h"
#include "base/proto.h"
#include "pkt/gso.h"

/* What every segment of one super-frame shares. */
struct gso_ctx {
	const struct frame *f;
	uint32_t end;		/* end of the IP datagram */
	uint32_t mss;		/* L4 payload bytes per segment */
	uint16_t hlen;		/* header block length */
	uint16_t check;		/* offset of the check field in the L4 header */
	uint16_t ip_id;		/* IPv4 id of the first segment, host order */
	uint32_t seq;		/* TCP seq of the first segment, host order */
	uint32_t pseudo;	/* pseudo-header sum less its length */
	bool tcp;
	bool ip4;
};

static void gso_ctx_init(struct gso_ctx *c, const struct frame *f,
			 uint16_t mss_cap)
{
	const uint8_t *l4 = f->data + f->l4_off;

	c->f = f;
	c->end = f->end;
	c->hlen = f->hdr_len;
	c->tcp = f->gso == FRAME_GSO_TCP4 || f->gso == FRAME_GSO_TCP6;
	c->ip4 = f->gso == FRAME_GSO_TCP4 || f->gso == FRAME_GSO_UDP4;
	c->check = c->tcp ? TCP_CHECK_OFF : UDP_CHECK_OFF;
	c->mss = f->gso_size;
	/*
	 * TCP may be cut finer to fit the path (the receiver cannot tell);
	 * USO segment boundaries are datagram boundaries the sender chose.
	 */
	if (c->tcp && mss_cap && mss_cap < c->mss)
		c->mss = mss_cap;
	c->ip_id = c->ip4 ? get_be16(f->data + f->l3_off + 4) : 0;
	c->seq = c->tcp ? get_be32(l4 + 4) : 0;
	/*
	 * The tap seeded the check field with the pseudo-header sum over the
	 * whole L4 length; take that length out so each segment can add its
	 * own, as tcp_gso_segment() and __udp_gso_segment() adjust it.
	 */
	c->pseudo = csum_sub(get_sum16(l4 + c->check),
			     htonl(c->end - f->l4_off));
}

/*
 * inet_gso_segment(): tot_len, id counting up per segment (a tap frame
 * never has FIXEDID) and the header checksum; ipv6_gso_segment():
 * payload_len, extension headers included.
 */
static void gso_patch_ip(const struct gso_ctx *c, uint8_t *blk, uint32_t i,
			 uint32_t plen)
{
	uint8_t *ip = blk + c->f->l3_off;
	uint32_t len = c->hlen - c->f->l3_off + plen;

	if (!c->ip4) {
		put_be16(ip + 4, len - 40);
		return;
	}
	put_be16(ip + 2, len);
	put_be16(ip + 4, c->ip_id + i);
	put_sum16(ip + 10, 0);
	put_sum16(ip + 10, csum_ip4_header(ip, (ip[0] & 0x0f) * 4u));
}

/* tcp_gso_segment(): FIN and PSH go with the last segment, CWR the first. */
static void gso_patch_tcp(const struct gso_ctx *c, uint8_t *blk, uint32_t i,
			  uint32_t n)
{
	uint8_t *th = blk + c->f->l4_off;

	put_be32(th + 4, c->seq + i * c->mss);
	if (i + 1 < n)
		th[TCP_FLAGS_OFF] &= (uint8_t)~(TCP_F_FIN | TCP_F_PSH);
	if (i > 0)
		th[TCP_FLAGS_OFF] &= (uint8_t)~TCP_F_CWR;
}

/*
 * The segment's own pseudo-header sum, then one pass over its header and
 * payload. The field is left in place, so the sum from the L4 header to
 * the end is known without another pass (lco_csum()).
 */
static void gso_l4_csum(const struct gso_ctx *c, struct seg *s)
{
	uint16_t l4_off = c->f->l4_off;
	uint8_t *l4 = s->hdr + l4_off;
	uint32_t pseudo, sum;
	uint16_t check;

	pseudo = csum_add(c->pseudo, htonl(c->hlen - l4_off + s->payload_len));
	put_sum16(l4 + c->check, 0);
	sum = csum_partial(l4, c->hlen - l4_off, pseudo);
	sum = csum_partial(s->payload, s->payload_len, sum);
	check = csum_fold(sum);
	/* RFC 768: a computed 0 goes out as all ones (__udp_gso_segment()). */
	if (!c->tcp && check == 0)
		check = 0xffff;
	put_sum16(l4 + c->check, check);
	s->sum_off = l4_off;
	s->sum = csum_lco_tail(pseudo);
	s->sum_valid = true;
}

static void gso_seg_build(const struct gso_ctx *c, uint8_t *blk, uint32_t i,
			  uint32_t n, struct seg *s)
{
	uint32_t off = i * c->mss;
	uint32_t left = c->end - c->hlen - off;

	memcpy(blk, c->f->data, c->hlen);
	s->hdr = blk;
	s->hdr_len = c->hlen;
	s->payload = c->f->data + c->hlen + off;
	s->payload_len = left < c->mss ? left : c->mss;
	gso_patch_ip(c, blk, i, s->payload_len);
	if (c->tcp)
		gso_patch_tcp(c, blk, i, n);
	else
		put_be16(blk + c->f->l4_off + 4, 8 + s->payload_len);
	gso_l4_csum(c, s);
}

/* A frame that fits one segment still gets one (with its checksum done). */
static int gso_plan_gso(const struct frame *f, struct seg_arena *a,
			uint16_t mss_cap)
{
	struct gso_ctx c;
	uint32_t total, n, i;

	if (!f->l4_off || !f->gso_size)
		return -EINVAL;
	gso_ctx_init(&c, f, mss_cap);
	if (c.hlen > GSO_HDR_MAX || c.hlen > c.end)
		return -EINVAL;
	total = c.end - c.hlen;
	n = total ? (total + c.mss - 1) / c.mss : 1;
	if (n > a->cap - a->n)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		gso_seg_build(&c, seg_arena_block(a, a->n + i), i, n,
			      &a->segs[a->n + i]);
	a->n += n;
	return (int)n;
}

/*
 * skb_checksum_help(): sum from csum_start to the end over the seed the
 * field holds, store the folded result (0 as 0xffff). The tail from
 * csum_start then sums to the complement of the seed (lco_csum()).
 */
static void gso_csum_complete(const struct frame *f, uint32_t end,
			      struct seg *s)
{
	uint32_t at = (uint32_t)f->csum_start + f->csum_offset;
	uint16_t seed = get_sum16(f->data + at);
	uint16_t check;

	check = csum_fold(csum_partial(f->data + f->csum_start,
				       end - f->csum_start, 0));
	if (check == 0)
		check = 0xffff;
	put_sum16(s->hdr + at, check);
	s->sum_off = f->csum_start;
	s->sum = csum_lco_tail(seed);
	s->sum_valid = true;
}

/*
 * One segment. The header block only has to hold the check field that may
 * be written; past GSO_HDR_MAX the headers simply travel in the payload.
 */
static int gso_plan_single(const struct frame *f, struct seg_arena *a,
			   bool want_sum)
{
	uint32_t end = f->end;
	uint32_t need = 0, blen = f->hdr_len;
	struct seg *s;

	if (f->needs_csum)
		need = (uint32_t)f->csum_start + f->csum_offset + 2;
	if (need > GSO_HDR_MAX || need > end)
		return -EINVAL;
	if (blen > GSO_HDR_MAX)
		blen = GSO_HDR_MAX;
	if (blen < need)
		blen = need;
	if (blen > end)
		blen = end;
	if (a->n >= a->cap)
		return -ENOSPC;
	s = &a->segs[a->n];
	s->hdr = seg_arena_block(a, a->n++);
	s->hdr_len = (uint16_t)blen;
	memcpy(s->hdr, f->data, blen);
	s->payload = f->data + blen;
	s->payload_len = end - blen;
	s->sum_off = (uint16_t)blen;
	s->sum = 0;
	s->sum_valid = false;
	if (f->needs_csum) {
		gso_csum_complete(f, end, s);
	} else if (want_sum) {
		s->sum = csum_partial(s->payload, s->payload_len, 0);
		s->sum_valid = true;
	}
	return 1;
}

int gso_plan(const struct frame *f, struct seg_arena *a, uint16_t mss_cap,
	     bool want_sum)
{
	if (f->gso == FRAME_GSO_NONE)
		return gso_plan_single(f, a, want_sum);
	return gso_plan_gso(f, a, mss_cap);
}
