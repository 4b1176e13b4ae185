/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * virtio_net_hdr: validate what the tap says about a frame before anything
 * trusts it, and build the header for frames written to the tap.
 */
#ifndef GSOTUN_VNET_H
#define GSOTUN_VNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compat.h"
#include "base/stats.h"
#include "pkt/frame.h"

/* Size of the header the tap is configured for (TUNSETVNETHDRSZ). */
#define VNET_HDR_LEN ((int)sizeof(struct virtio_net_hdr))

/* Largest frame a tap read returns (64 KiB super-frame plus Ethernet). */
#define VNET_FRAME_MAX (65535 + 14 + 8)

/*
 * Most segments one GSO frame may be cut into; a gso_size that would give
 * more is refused as not sane (TCP_MIN_MSS is 88, UDP GSO sends at most
 * 128 segments, so real frames stay far below).
 */
#define VNET_MAX_SEGS 1024

/*
 * Validate hdr for the frame of len bytes at data and fill *f (its
 * headers by frame_parse(), the offload fields from hdr). Never trusts
 * hdr_len: header lengths are computed from the packet, and a hdr_len
 * past the frame's end is refused, as tun_get_user() does. Returns
 * DROP_NONE or the DROP_TX_* reason it is refused for.
 */
enum drop vnet_hdr_parse(const struct virtio_net_hdr *hdr,
			 const uint8_t *data, size_t len, struct frame *f);

/*
 * vnet_hdr_parse() of an IP packet read from a tun (IFF_TUN | IFF_NO_PI):
 * its headers by frame_parse_ip(), a checksum start not inside the
 * smallest IP header. As wireguard-go learnt of forwarded packets, the
 * kernel's hdr_len is not trusted here either.
 */
enum drop vnet_hdr_parse_ip(const struct virtio_net_hdr *hdr,
			    const uint8_t *data, size_t len, struct frame *f);

/* vnet_hdr_parse_ip() for a tun's packet (l3), else vnet_hdr_parse(). */
static inline enum drop vnet_hdr_parse_as(bool l3,
					  const struct virtio_net_hdr *hdr,
					  const uint8_t *data, size_t len,
					  struct frame *f)
{
	return l3 ? vnet_hdr_parse_ip(hdr, data, len, f) :
		    vnet_hdr_parse(hdr, data, len, f);
}

/* Header for a frame written to the tap with no offload flags. */
void vnet_hdr_build_plain(struct virtio_net_hdr *hdr);

/*
 * Header for a frame whose L4 checksum the kernel is to complete:
 * NEEDS_CSUM at csum_start/csum_offset, no GSO.
 */
void vnet_hdr_build_csum(struct virtio_net_hdr *hdr, uint16_t csum_start,
			 uint16_t csum_offset);

/*
 * Header for a TCP super-frame written to the tap: gso_type TCPV4/TCPV6,
 * gso_size mss, NEEDS_CSUM with csum_start l4_off and offset 16; the
 * caller has seeded the TCP check field with the pseudo-header sum.
 */
void vnet_hdr_build_tcp(struct virtio_net_hdr *hdr, bool ipv6,
			uint16_t l4_off, uint16_t hdr_len, uint16_t mss);

/*
 * Header for a UDP super-frame written to the tap: gso_type UDP_L4,
 * gso_size the datagrams' payload, NEEDS_CSUM with csum_start l4_off and
 * offset 6; the caller has seeded the UDP check field.
 */
void vnet_hdr_build_udp(struct virtio_net_hdr *hdr, uint16_t l4_off,
			uint16_t hdr_len, uint16_t size);

#endif
