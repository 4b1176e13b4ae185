/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parsed frame: where the headers of an Ethernet frame (a tap's) or
 * of an IP packet (a tun's, --mode tun) lie (VLAN tags, IPv4 or IPv6 with
 * its extension headers, TCP or UDP), walked once and then used by every
 * later stage of both paths.
 */
#ifndef GSOTUN_FRAME_H
#define GSOTUN_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inner L4 protocol families that segmentation knows. */
enum frame_gso {
	FRAME_GSO_NONE = 0,
	FRAME_GSO_TCP4,
	FRAME_GSO_TCP6,
	FRAME_GSO_UDP4,	/* UDP L4 (USO) over IPv4 */
	FRAME_GSO_UDP6,
};

/*
 * What a frame is. Offsets are from the start of the Ethernet frame, or of
 * the IP packet of a tun (after any vnet header; its l3_off is 0). l3/l4
 * fields are 0 when not IP (ip false). The offload fields
 * (gso to csum_offset) are what the tap said, filled by vnet_hdr_parse();
 * frame_parse() leaves them 0.
 */
struct frame {
	const uint8_t *data;	/* Ethernet frame */
	uint32_t len;		/* its length */
	uint32_t end;		/* end of the IP datagram (no padding); len */
	uint16_t ethertype;	/* host order, after any VLAN tags */
	uint16_t l3_off;	/* IP header */
	uint16_t l4_off;	/* TCP/UDP header; 0 if none */
	uint16_t hdr_len;	/* through the L4 header (TCP options too) */
	uint8_t l4_proto;	/* IPPROTO_TCP/UDP/...; 0 if not IP */
	bool ip;		/* IPv4 or IPv6, its header reached at l3_off */
	uint8_t gso;		/* enum frame_gso */
	bool ecn;		/* VIRTIO_NET_HDR_GSO_ECN */
	bool needs_csum;	/* VIRTIO_NET_HDR_F_NEEDS_CSUM */
	uint16_t gso_size;	/* L4 payload per segment */
	uint16_t csum_start;	/* valid when needs_csum */
	uint16_t csum_offset;
};

/* Why frame_parse() refused a frame. */
enum frame_err {
	FRAME_OK = 0,
	FRAME_ERR_SHORT,	/* shorter than its headers */
	FRAME_ERR_L3,		/* IP or TCP header malformed, lengths that lie */
};

/*
 * Walk the headers of the len-byte Ethernet frame at data into *f: up to
 * two VLAN tags, IPv4 (RFC 791: IHL >= 5, a total length within the
 * frame) or IPv6 through hop-by-hop, routing and destination options
 * headers (RFC 8200 section 4), then TCP (data offset >= 5) or UDP unless
 * the packet is a fragment. Frames that are not IP are fine (l3_off 0).
 * On an error *f holds what was found before it (l3_off is set once the
 * IP header is reached). Returns FRAME_OK or an enum frame_err.
 */
int frame_parse(const uint8_t *data, size_t len, struct frame *f);

/*
 * The same walk for the len-byte IP packet at data, as a tun with
 * IFF_NO_PI reads it and an L3 tunnel carries it: no link header, the
 * version nibble says IPv4 or IPv6 (ethertype is set from it, l3_off is
 * 0). Anything else is FRAME_ERR_L3: a tun carries only IP.
 */
int frame_parse_ip(const uint8_t *data, size_t len, struct frame *f);

/* frame_parse_ip() for an IP packet (l3), else frame_parse(). */
static inline int frame_parse_as(bool l3, const uint8_t *data, size_t len,
				 struct frame *f)
{
	return l3 ? frame_parse_ip(data, len, f) : frame_parse(data, len, f);
}

/*
 * A hash of the frame's flow, for the outer UDP source port (the kernel's
 * vxlan takes skb_get_hash() in udp_flow_src_port()): the IP addresses
 * and protocol, and the ports of TCP and UDP outside fragments; for other
 * frames the Ethernet addresses and type (a tun's are all IP). The
 * packets of one flow hash alike, so that they keep their order on an
 * ECMP path.
 */
uint32_t frame_flow_hash(const struct frame *f);

#endif
