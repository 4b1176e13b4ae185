/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Segmentation: cut a validated super-frame into segment plans, each a
 * small patched header block plus a payload slice that points into the
 * frame. Pure: no I/O, no allocation.
 */
#ifndef GSOTUN_GSO_H
#define GSOTUN_GSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pkt/vnet.h"

/*
 * Room reserved in front of each header block for the encapsulation: the
 * longest is Geneve's, 8 bytes and up to 252 of options (RFC 8926), in
 * whole 8-byte words.
 */
#define GSO_HEADROOM 264
/* Largest inner header block: Ethernet + 2 VLAN + IPv6 + TCP with options. */
#define GSO_HDR_MAX 256
/* Bytes of arena one segment uses. */
#define GSO_SLOT (GSO_HEADROOM + GSO_HDR_MAX)

/*
 * One segment to send: hdr[0..hdr_len) is the inner frame's patched
 * headers (with GSO_HEADROOM writable bytes in front of hdr), followed on
 * the wire by payload[0..payload_len), which points into the original frame.
 *
 * sum/sum_off describe the one's-complement sum of the inner segment from
 * byte sum_off (an offset into the inner segment, <= hdr_len) to its end,
 * so that an outer checksum needs to sum only the bytes in front of sum_off
 * (local checksum offload). sum_valid is false when nobody computed it.
 */
struct seg {
	uint8_t *hdr;
	uint16_t hdr_len;
	uint16_t sum_off;
	const uint8_t *payload;
	uint32_t payload_len;
	uint32_t sum;
	bool sum_valid;
};

/*
 * The segments of a batch and their header blocks: segment i's block is
 * slot i, GSO_SLOT bytes of slots with GSO_HEADROOM of them in front of
 * the block for the encapsulation header. Planners (gso_plan(),
 * pmtu_fragment()) append at n; a plan that does not fit appends nothing.
 */
struct seg_arena {
	uint8_t *slots;		/* cap * GSO_SLOT bytes */
	struct seg *segs;	/* cap of them */
	unsigned int cap;
	unsigned int n;		/* used */
};

static inline void seg_arena_init(struct seg_arena *a, uint8_t *slots,
				  struct seg *segs, unsigned int cap)
{
	a->slots = slots;
	a->segs = segs;
	a->cap = cap;
	a->n = 0;
}

/* The header block of slot i (past its headroom). */
static inline uint8_t *seg_arena_block(const struct seg_arena *a,
				       unsigned int i)
{
	return a->slots + (size_t)i * GSO_SLOT + GSO_HEADROOM;
}

/*
 * Plan the segments of frame f at the end of arena a. mss_cap, when
 * non-zero, cuts TCP segments to at most that many payload bytes (never
 * more than gso_size). want_sum asks for seg.sum on frames whose L4
 * checksum is not known (so an outer checksum can be derived); TCP/UDP
 * segments always carry it via LCO.
 *
 * Non-GSO frames give one segment (checksum completed if NEEDS_CSUM).
 * Returns the number of segments appended, or -ENOSPC if a has no room
 * for them, -EINVAL if the frame cannot be segmented.
 */
int gso_plan(const struct frame *f, struct seg_arena *a, uint16_t mss_cap,
	     bool want_sum);

/* Total length on the wire of a segment's inner frame. */
static inline uint32_t seg_len(const struct seg *s)
{
	return s->hdr_len + s->payload_len;
}

#endif
