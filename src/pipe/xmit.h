/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transmit path's composition: one frame read from the tap becomes
 * encapsulated wire segments (vnet, pmtu, gso, encap). Pure: the caller
 * reads the tap and sends.
 */
#ifndef GSOTUN_XMIT_H
#define GSOTUN_XMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pkt/frame.h"
#include "pkt/gso.h"
#include "encap/encap.h"
#include "pipe/pmtu.h"

/* What the transmit side knows of the tunnel. */
struct xmit_cfg {
	const struct encap_cfg *encap;
	uint32_t budget;	/* the path's (pmtu_frame_budget()) */
	bool pmtud;		/* --pmtud: fit frames to the path */
	bool tos_inherit;	/* --tos inherit */
	bool df_inherit;	/* --df inherit */
	unsigned int n_src;	/* source sockets to spread flows over */
};

/* One frame from the tap, composed for the wire. */
struct xmit_out {
	struct frame f;		/* as parsed: valid once parsed is true */
	bool parsed;		/* its vnet header and headers were sane */
	enum pmtu_fit fit;	/* what fitting it to the path did */
	unsigned int first, n;	/* its segments in the arena */
	size_t encap_len;	/* the header in front of each (c->encap's) */
	int tos;		/* outer TOS or traffic class; -1: the socket's */
	bool df;		/* to go with DF (--df inherit) */
	unsigned int src;	/* the source socket, by the flow's hash */
};

/*
 * Bulk UDP from a sender behind the tap, the signs path_udp_bulk() acts
 * on: a UDP super-frame over fit bytes (the tap's gso_max_size was raised
 * for them, and they still come), or XMIT_UDP_TRAIN datagrams in a row,
 * frames of one length of at least XMIT_UDP_TRAIN_MIN bytes: what the
 * kernel cuts a UDP_SEGMENT send over the tap's gso_max_size into, but a
 * fast sender of plain datagrams looks so too. Fragments and smaller
 * datagrams break a row.
 */
#define XMIT_UDP_TRAIN 32
#define XMIT_UDP_TRAIN_MIN 1024

enum xmit_bulk {
	XMIT_BULK_NONE = 0,
	XMIT_BULK_TRAIN,	/* a row of datagrams: maybe a cut send */
	XMIT_BULK_SUPER,	/* a UDP super-frame over TCP's size */
};

struct xmit_udp_train {
	uint32_t len;		/* of the frames in the row */
	unsigned int run;	/* how many */
};

/* Whether frame f (parsed) is bulk UDP, after the frames before it. */
enum xmit_bulk xmit_udp_bulk(struct xmit_udp_train *tr, const struct frame *f,
			     uint32_t fit);

/*
 * A tap read of len bytes at buf (virtio_net_hdr, then the frame): parse
 * it, fit it to the path (pmtu_fit()), plan its segments at the end of
 * arena a and build their encapsulation headers (GRE sequence numbers
 * from *gre_seq on). Returns DROP_NONE with the segments at
 * a->segs[out->first] on, a drop reason (with DROP_TX_TOO_BIG,
 * out->fit == PMTU_FIT_ICMP asks for an ICMP "too big" back into the tap:
 * pmtu_icmp_build()), or -ENOSPC when a had no room for them: nothing
 * was appended, and the caller sends what a holds, empties it and tries
 * again.
 */
int xmit_frame(const struct xmit_cfg *c, uint32_t *gre_seq,
	       const uint8_t *buf, size_t len, struct seg_arena *a,
	       struct xmit_out *out);

#endif
