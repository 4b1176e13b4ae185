/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The receive path's composition: one encapsulated packet from the peer
 * becomes inner frames for the tap (encap, ECN, gro). Pure: the caller
 * receives and writes the tap.
 */
#ifndef GSOTUN_DECAP_H
#define GSOTUN_DECAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/stats.h"
#include "pkt/gro.h"
#include "encap/encap.h"

/* What decap_packet() did besides queueing (the stats.h names). */
struct decap_out {
	enum drop drop;		/* with GRO_DROPPED: why */
	bool ce;		/* rx_ecn_ce: the outer CE mark copied in */
	/* The inner frame as handed to gro_add(), for decap_again(). */
	uint8_t *inner;
	size_t inner_len;
	bool has_sum;
	uint32_t sum;
	/* The tunnel options it came with (struct encap_rx's tlv). */
	const uint8_t *tlv;
	uint16_t tlv_len;
};

/*
 * One packet from the peer, at its VXLAN or GRE header (outer IP and UDP
 * stripped), with the outer header's ECN field: check and strip the
 * encapsulation (encap_parse()), carry a CE mark inwards (RFC 6040,
 * encap_ecn_decap()) and add the inner frame to g (gro_add(), with the
 * sum a GRE checksum gave). Returns gro_add()'s result. With GRO_FULL,
 * write g's frames to the tap, gro_reset() it and call decap_again().
 */
enum gro_result decap_packet(const struct encap_cfg *c, struct gro *g,
			     uint8_t *pkt, size_t len, uint8_t ecn,
			     struct decap_out *out);

/*
 * decap_packet() in two steps, for a caller that looks at the inner
 * frame first: check and strip the encapsulation and carry the ECN
 * mark, the inner frame in out->inner (DROP_NONE) or why it is dropped;
 * then decap_again() adds it.
 */
enum drop decap_strip(const struct encap_cfg *c, uint8_t *pkt, size_t len,
		      uint8_t ecn, struct decap_out *out);

/*
 * The inner frame of the packet that met GRO_FULL, added again: it was
 * checked, stripped and marked once, and gro_add() changed nothing
 * before it said GRO_FULL (a segment that merges is tried before room
 * is looked for, as the kernel's GRO holds it without a new skb).
 */
enum gro_result decap_again(struct gro *g, struct decap_out *out);

#endif
