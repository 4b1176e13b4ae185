/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Encapsulations: VXLAN (RFC 7348), GRE (RFC 2784/2890) and GRE-in-UDP
 * (RFC 8086), each an ops table with header length, build and parse.
 * Pure: byte arrays in, byte arrays out.
 */
#ifndef GSOTUN_ENCAP_H
#define GSOTUN_ENCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gso.h"
#include "stats.h"

enum encap_type {
	ENCAP_VXLAN = 0,
	ENCAP_GRE,
	ENCAP_GRE_UDP,
};

#define VXLAN_PORT 4789		/* RFC 7348 section 5 */
#define GRE_UDP_PORT 4754	/* RFC 8086 section 3 */
#define ETH_P_TEB_GRE 0x6558	/* Transparent Ethernet Bridging */

/* Parameters of the encapsulation header, fixed for the tunnel's life. */
struct encap_cfg {
	enum encap_type type;
	uint32_t vni;		/* VXLAN, 24 bits */
	uint32_t key;		/* GRE key (RFC 2890), when has_key */
	bool has_key;
	bool gre_csum;		/* GRE C bit (gre only) */
	bool gre_seq;		/* GRE S bit */
};

/* Length of the header encap_build() writes for this configuration. */
size_t encap_hdr_len(const struct encap_cfg *c);

/*
 * Write the encapsulation header for segment s into the encap_hdr_len()
 * bytes immediately in front of s->hdr (inside GSO_HEADROOM). seq is the
 * GRE sequence number when gre_seq. A GRE checksum is derived from s->sum
 * (local checksum offload, no pass over the payload); s->sum_valid must be
 * true then. Returns a pointer to the start of the header.
 */
uint8_t *encap_build(const struct encap_cfg *c, struct seg *s, uint32_t seq);

/* What encap_parse() found in a received packet. */
struct encap_rx {
	size_t inner_off;	/* where the inner Ethernet frame begins */
	/*
	 * A GRE checksum was present and verified: that pass summed the
	 * inner frame too, and inner_sum is its one's-complement sum (a
	 * wsum of bytes inner_off to the end), which spares gro a second
	 * pass to verify the inner TCP checksum.
	 */
	bool sum_valid;
	uint32_t inner_sum;
};

/*
 * The VNI (vxlan) or GRE key (gre, gre-udp) a received packet carries,
 * at its VXLAN or GRE header, into *id: which tap it is for. false when
 * it has none or is too short to say (encap_parse() then says why).
 */
bool encap_peek_id(enum encap_type type, const uint8_t *pkt, size_t len,
		   uint32_t *id);

/*
 * Parse a received encapsulated packet (starting at the VXLAN or GRE header;
 * outer IP/UDP already stripped) into *rx. Returns DROP_NONE or the
 * DROP_RX_* reason it is refused for.
 */
enum drop encap_parse(const struct encap_cfg *c, const uint8_t *pkt,
		      size_t len, struct encap_rx *rx);

/* The ECN field (RFC 3168): the low two bits of TOS or traffic class. */
#define ECN_NOT_ECT 0
#define ECN_ECT_1 1
#define ECN_ECT_0 2
#define ECN_CE 3

/* What encap_ecn_decap() did. */
enum encap_ecn {
	ENCAP_ECN_KEEP = 0,	/* inner packet as it was */
	ENCAP_ECN_MARK,		/* inner packet marked CE */
	ENCAP_ECN_DROP,		/* outer CE over a packet that is not ECT */
};

/*
 * RFC 6040 section 4.2, as the kernel's INET_ECN_decapsulate(): the outer
 * ECN field outer_ecn meets the inner Ethernet frame's IPv4 or IPv6
 * packet (behind up to two VLAN tags). A CE mark is copied onto an
 * ECN-capable inner packet (its IPv4 header checksum updated, RFC 1624);
 * an inner packet that is not ECN-capable under a CE mark is to be
 * dropped. Without an outer CE nothing is parsed; non-IP frames and
 * those frame_parse() refuses (gro_add() drops them) are left alone.
 */
enum encap_ecn encap_ecn_decap(uint8_t *frame, size_t len, uint8_t outer_ecn);

/*
 * A raw IPv4 socket hands over the outer IP header too: check it (version
 * 4, IHL >= 5, a total length within the *len bytes received and not
 * under the header), then *off is where the GRE header starts and *len
 * where the packet ends. 0, or -1 for a malformed header.
 */
int encap_strip_ip4(const uint8_t *buf, size_t *len, size_t *off);

/*
 * RFC 6040 section 4.1, as INET_ECN_encapsulate(): the outer ECN field for
 * an inner one under --tos inherit: copied, but CE leaves as ECT(0).
 */
uint8_t encap_ecn_encap(uint8_t inner_ecn);

/* "vxlan", "gre", "gre-udp" */
const char *encap_name(enum encap_type t);
/* Parse a name; -1 if unknown. */
int encap_from_name(const char *name);
/* Does this encapsulation ride on UDP? */
bool encap_is_udp(enum encap_type t);

/*
 * Bytes the tunnel adds in front of an inner frame, outer IP included:
 * the tap MTU is the underlay MTU minus this, minus the inner Ethernet
 * header (14).
 */
size_t encap_overhead(const struct encap_cfg *c, bool ipv6_underlay);

#endif
