// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vnet: check the virtio_net_hdr of a frame read from the tap (or of a
 * packet read from the tun) against the frame itself before segmentation
 * trusts it; build headers for tap writes.
 * The legacy virtio_net_hdr of a tap is in native byte order unless
 * TUNSETVNETLE/BE says otherwise (tun_is_little_endian()); we never set it.
 */
#include "config.h"

#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include "base/bytes.h"
#include "base/proto.h"
#include "pkt/vnet.h"

#define VNET_GSO_BASE(t) ((uint8_t)((t) & ~VIRTIO_NET_HDR_GSO_ECN))

/*
 * The gso_types a tap with TUN_F_TSO4/6 and TUN_F_USO4/6 produces; the ECN
 * bit only qualifies TCP (virtio spec 5.1.6.2, virtio_net_hdr_to_skb()).
 */
static enum drop vnet_check_type(const struct virtio_net_hdr *h)
{
	uint8_t base = VNET_GSO_BASE(h->gso_type);

	switch (base) {
	case VIRTIO_NET_HDR_GSO_NONE:
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		break;
	default:
		return DROP_TX_GSO_TYPE;
	}
	if ((h->gso_type & VIRTIO_NET_HDR_GSO_ECN) &&
	    base != VIRTIO_NET_HDR_GSO_TCPV4 &&
	    base != VIRTIO_NET_HDR_GSO_TCPV6)
		return DROP_TX_GSO_TYPE;
	if (base != VIRTIO_NET_HDR_GSO_NONE && h->gso_size == 0)
		return DROP_TX_GSO_SIZE;
	return DROP_NONE;
}

/*
 * The field must lie in the data that gets summed: the IP datagram (not
 * the Ethernet padding), or the frame for non-IP (skb_partial_csum_set()).
 * A start inside the Ethernet header is refused, as tun_get_user() and
 * virtio_net_hdr_to_skb() do; in a tun's packet, one inside the smallest
 * IP header (its L4 checksum would be written over the IP header).
 */
static enum drop vnet_check_csum(const struct virtio_net_hdr *h,
			   const struct frame *f, uint16_t min_start)
{
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return DROP_NONE;
	if (h->csum_start < min_start ||
	    (uint32_t)h->csum_start + h->csum_offset + 2 > f->end)
		return DROP_TX_CSUM_RANGE;
	return DROP_NONE;
}

/* Which family the packet is, for a gso_type base; NONE if it does not fit. */
static uint8_t vnet_gso_kind(uint8_t base, const struct frame *f)
{
	bool v4 = f->ethertype == ETH_P_IP, v6 = f->ethertype == ETH_P_IPV6;

	if (!f->l4_off)
		return FRAME_GSO_NONE;
	if (base == VIRTIO_NET_HDR_GSO_TCPV4 && v4 &&
	    f->l4_proto == IPPROTO_TCP)
		return FRAME_GSO_TCP4;
	if (base == VIRTIO_NET_HDR_GSO_TCPV6 && v6 &&
	    f->l4_proto == IPPROTO_TCP)
		return FRAME_GSO_TCP6;
	if (base == VIRTIO_NET_HDR_GSO_UDP_L4 && f->l4_proto == IPPROTO_UDP)
		return v4 ? FRAME_GSO_UDP4 : FRAME_GSO_UDP6;
	return FRAME_GSO_NONE;
}

/*
 * GSO needs the packet that gso_type names (IPv4 fragments have no L4
 * header and never qualify), NEEDS_CSUM aimed at the L4 check field
 * (virtio_net_hdr_to_skb() refuses anything else) and a sane number of
 * segments. A frame that fits one segment stays valid: one segment.
 */
static enum drop vnet_check_gso(const struct virtio_net_hdr *h, struct frame *f)
{
	uint8_t base = VNET_GSO_BASE(h->gso_type);
	uint16_t check;
	uint32_t payload, segs;

	if (base == VIRTIO_NET_HDR_GSO_NONE)
		return DROP_NONE;
	f->gso = vnet_gso_kind(base, f);
	if (f->gso == FRAME_GSO_NONE)
		return DROP_TX_GSO_PROTO;
	check = f->l4_proto == IPPROTO_TCP ? TCP_CHECK_OFF : UDP_CHECK_OFF;
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) ||
	    h->csum_start != f->l4_off || h->csum_offset != check)
		return DROP_TX_GSO_PROTO;
	payload = f->end - f->hdr_len;
	segs = (payload + h->gso_size - 1) / h->gso_size;
	if (segs > VNET_MAX_SEGS)
		return DROP_TX_GSO_SIZE;
	f->gso_size = h->gso_size;
	f->ecn = (h->gso_type & VIRTIO_NET_HDR_GSO_ECN) != 0;
	return DROP_NONE;
}

/* A tun's packet is at least this long: an IPv4 header. */
#define VNET_IP_MIN 20

/* vnet_hdr_parse() of an Ethernet frame, or of an IP packet (l3). */
static enum drop vnet_hdr_parse_link(const struct virtio_net_hdr *hdr,
				     const uint8_t *data, size_t len,
				     bool l3, struct frame *f)
{
	uint16_t min = l3 ? VNET_IP_MIN : ETH_HLEN;
	enum drop err;

	memset(f, 0, sizeof(*f));
	f->data = data;
	f->len = (uint32_t)len;
	err = vnet_check_type(hdr);
	if (err)
		return err;
	if (len < min)
		return DROP_TX_SHORT;
	if (hdr->hdr_len > len)
		return DROP_TX_HDR_LEN;
	switch (frame_parse_as(l3, data, len, f)) {
	case FRAME_OK:
		break;
	case FRAME_ERR_SHORT:
		return DROP_TX_SHORT;
	case FRAME_ERR_L3:
		return DROP_TX_L3;
	}
	err = vnet_check_csum(hdr, f, min);
	if (err)
		return err;
	err = vnet_check_gso(hdr, f);
	if (err)
		return err;
	f->needs_csum = (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0;
	if (f->needs_csum) {
		f->csum_start = hdr->csum_start;
		f->csum_offset = hdr->csum_offset;
	}
	return DROP_NONE;
}

enum drop vnet_hdr_parse(const struct virtio_net_hdr *hdr,
			 const uint8_t *data, size_t len, struct frame *f)
{
	return vnet_hdr_parse_link(hdr, data, len, false, f);
}

enum drop vnet_hdr_parse_ip(const struct virtio_net_hdr *hdr,
			    const uint8_t *data, size_t len, struct frame *f)
{
	return vnet_hdr_parse_link(hdr, data, len, true, f);
}

void vnet_hdr_build_plain(struct virtio_net_hdr *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
}

void vnet_hdr_build_csum(struct virtio_net_hdr *hdr, uint16_t csum_start,
			 uint16_t csum_offset)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr->csum_start = csum_start;
	hdr->csum_offset = csum_offset;
}

void vnet_hdr_build_tcp(struct virtio_net_hdr *hdr, bool ipv6,
			uint16_t l4_off, uint16_t hdr_len, uint16_t mss)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr->gso_type = ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
			       VIRTIO_NET_HDR_GSO_TCPV4;
	hdr->hdr_len = hdr_len;
	hdr->gso_size = mss;
	hdr->csum_start = l4_off;
	hdr->csum_offset = TCP_CHECK_OFF;
}

void vnet_hdr_build_udp(struct virtio_net_hdr *hdr, uint16_t l4_off,
			uint16_t hdr_len, uint16_t size)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr->gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
	hdr->hdr_len = hdr_len;
	hdr->gso_size = size;
	hdr->csum_start = l4_off;
	hdr->csum_offset = UDP_CHECK_OFF;
}
