/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Receive offload: turn the inner frames of one receive batch into frames
 * for the tap, merging consecutive in-order TCP segments of a flow into
 * super-frames with a vnet GSO header, and the datagrams of a UDP flow
 * into GSO_UDP_L4 frames, as the kernel's GRO would.
 * Pure: no I/O; frames are described by a header block and slices that
 * point into the caller's receive buffers.
 */
#ifndef GSOTUN_GRO_H
#define GSOTUN_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "base/stats.h"
#include "pkt/gso.h"
#include "pkt/vnet.h"

#define GRO_MAX_FRAMES 128	/* frames for the tap per batch */
#define GRO_MAX_SEGS 64		/* segments merged into one frame */
#define GRO_MAX_FLOWS 8		/* TCP flows open for merging at once */
#define GRO_MAX_LEN 65535	/* IP length of a merged frame */

/*
 * One frame for the tap: vnet header, then hdr[0..hdr_len) (the patched
 * headers of a merged frame; empty for a frame passed as it came), then
 * the slices in order.
 */
struct gro_frame {
	struct virtio_net_hdr vnet;
	uint8_t hdr[GSO_HDR_MAX];
	uint16_t hdr_len;
	uint16_t n_slices;
	uint32_t len;			/* hdr_len + all slices */
	struct iovec slices[GRO_MAX_SEGS];
};

/*
 * A run of a TCP or UDP flow still taking segments: its frame and what
 * the next segment must match. gro.c's own; struct gro only holds the
 * storage.
 */
struct gro_flow {
	struct gro_frame *fr;
	uint8_t proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t mss;			/* payload of the first segment */
	uint16_t l3_off, l4_off;
	uint32_t next_seq;		/* host order */
	bool ipv6;
	bool id_fixed;			/* IPv4 id mode: fixed, not counting */
	/* The first segment's tunnel options (gro_add_tlv()). */
	const uint8_t *tlv;
	uint16_t tlv_len;
};

/*
 * What gro_add() did besides queueing, for the caller's counters (the
 * stats.h names in brackets); gro_init() zeroes it.
 */
struct gro_counts {
	uint64_t merged;		/* rx_gro_merged */
	uint64_t gso_frames;		/* rx_gso_frames */
	uint64_t udp_merged;		/* rx_udp_merged */
	uint64_t udp_gso_frames;	/* rx_udp_gso_frames */
	uint64_t csum_partial;		/* rx_csum_partial */
	uint64_t inner_csum_bad;	/* rx_inner_csum_bad */
};

struct gro {
	uint32_t mtu;		/* the tap's: larger TCP frames go as GSO */
	bool merge;		/* false with --no-gro */
	bool merge_udp;		/* UDP too: the tap takes GSO_UDP_L4 */
	bool l3;		/* IP packets for a tun, not Ethernet frames */
	struct gro_counts n;
	unsigned int n_frames;
	unsigned int n_open;
	struct gro_flow open[GRO_MAX_FLOWS];	/* oldest first */
	struct gro_frame frames[GRO_MAX_FRAMES];
};

enum gro_result {
	GRO_QUEUED = 0,		/* queued as a frame of its own */
	GRO_MERGED,		/* appended to an open super-frame */
	GRO_DROPPED,		/* dropped, for the reason in *why */
	GRO_FULL,		/* no room: flush and add it again */
};

/*
 * merge: TCP segments are merged; merge_udp: UDP datagrams too, for a
 * tap that takes USO (TUN_F_USO4|TUN_F_USO6, Linux 6.2 and later); l3:
 * the frames are IP packets with no link header, for a tun (--mode tun).
 */
void gro_init(struct gro *g, uint32_t mtu, bool merge, bool merge_udp,
	      bool l3);

/*
 * Add one inner Ethernet frame (or a tun's IP packet) of the batch.
 * frame must stay valid (and is written to: a checksum field may be
 * reseeded) until gro_reset(). sum,
 * when not NULL, is the one's-complement sum of the whole frame, known
 * from a verified outer checksum (struct encap_rx): it spares a pass
 * over the payload, it is not trusted in place of one.
 *
 * Integrity (doc/design.md): every TCP checksum is verified, whatever the
 * outer checksum said, and so is every UDP checksum when UDP is merged;
 * a segment is merged, or written with NEEDS_CSUM, only when its
 * checksum verified or its check field holds exactly the pseudo-header
 * seed (a sender on this host left it partial, as the kernel's vxlan on
 * a veth does). A segment whose checksum is wrong, and a UDP datagram
 * over IPv4 sent without one (zero), goes to the tap as it came, alone
 * and without flags, so that the stack behind judges it, as behind the
 * kernel's vxlan; an IP frame whose
 * headers no receiver would take (lengths that lie, headers cut short)
 * is dropped (DROP_RX_INNER_HDR), and so is a TCP frame over the tap's
 * MTU that no real sender builds (DROP_RX_OVERSIZE). Other frames go as
 * they came, plain (the kernel verifies them), except UDP with the seed
 * (NEEDS_CSUM). What else happened is counted in g->n.
 */
enum gro_result gro_add_tlv(struct gro *g, uint8_t *frame, size_t len,
			    const uint32_t *sum, const uint8_t *tlv,
			    uint16_t tlv_len, enum drop *why);

/*
 * gro_add_tlv() of a frame whose tunnel header carries tlv_len bytes of
 * options at tlv (Geneve's, struct encap_rx), which must stay valid as
 * frame does: segments merge only into a run whose options are the
 * same bytes, as geneve_gro_receive() holds packets whose headers and
 * options differ apart (it compares the whole header). gro_add(): none.
 */
static inline enum gro_result gro_add(struct gro *g, uint8_t *frame,
				      size_t len, const uint32_t *sum,
				      enum drop *why)
{
	return gro_add_tlv(g, frame, len, sum, NULL, 0, why);
}

/*
 * Whether the kernel of release (uname's) cuts a UDP super-frame that
 * reaches a UDP tunnel socket (the kernel's VXLAN or GENEVE nested in
 * the overlay) back into datagrams before decapsulating them, see
 * gro.c. Pure.
 */
bool gro_kernel_cuts_udp_gso(const char *release);

/* UDP datagrams go one by one from now on (the tap refused USO). */
static inline void gro_stop_udp(struct gro *g)
{
	g->merge_udp = false;
}

static inline bool gro_merges_udp(const struct gro *g)
{
	return g->merge_udp;
}

/* No room for another frame: flush, reset and add again. */
static inline bool gro_full(const struct gro *g)
{
	return g->n_frames == GRO_MAX_FRAMES;
}

/*
 * Close every open super-frame: patch its headers (IP lengths and header
 * checksum, TCP flags, check field = pseudo-header seed) and its vnet
 * header. After this, frames[0..n_frames) are ready for the tap.
 */
void gro_flush(struct gro *g);

/* Forget the batch (after its frames were written). */
void gro_reset(struct gro *g);

/*
 * The datagrams of one UDP GRO receive: len bytes of datagrams of
 * gso_size back to back, the last possibly shorter, as
 * udp_gro_receive_segment() joins them (gso_size 0: one datagram). A
 * receive of 0 bytes is one datagram of 0 bytes, to be counted as short.
 */
struct gro_split {
	size_t len, off;
	size_t step;
	bool done;
};

void gro_split_init(struct gro_split *s, size_t len, uint16_t gso_size);

/* The next datagram: its offset and length; false when none is left. */
bool gro_split_next(struct gro_split *s, size_t *off, size_t *dlen);

#endif
