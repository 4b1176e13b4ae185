// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vnet: check the virtio_net_hdr of a frame read from the tap against the
 * frame itself before segmentation trusts it; build headers for tap writes.
 */
#include "config.h"

#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include "bytes.h"
#include "vnet.h"

#define VNET_GSO_BASE(t) ((uint8_t)((t) & ~VIRTIO_NET_HDR_GSO_ECN))

/* Offsets of the check fields (struct tcphdr / struct udphdr). */
#define VNET_TCP_CHECK 16
#define VNET_UDP_CHECK 6

/* Where the walk through the frame's headers stands. */
struct vnet_walk {
	const uint8_t *d;
	uint32_t len;	/* frame length */
	uint32_t end;	/* end of the IP datagram (Ethernet padding cut) */
	uint32_t off;	/* next header to look at */
	uint8_t proto;	/* its protocol number */
	bool frag;	/* an IP fragment: no usable L4 header */
};

/*
 * Ethernet and up to two VLAN tags (802.1ad, 802.1Q: QinQ). A deeper stack
 * is passed on as a non-IP frame, so GSO on it is refused.
 */
static int vnet_parse_l2(struct vnet_walk *w, struct frame *f)
{
	uint16_t type = get_be16(w->d + 12);
	int tags;

	w->off = ETH_HLEN;
	for (tags = 0; tags < 2; tags++) {
		if (type != ETH_P_8021Q && type != ETH_P_8021AD)
			break;
		if (w->len - w->off < 4)
			return VNET_ERR_SHORT;
		type = get_be16(w->d + w->off + 2);
		w->off += 4;
	}
	f->ethertype = type;
	return VNET_OK;
}

/* RFC 791: ihl >= 5, ihl <= tot_len <= what the frame holds. */
static int vnet_parse_ip4(struct vnet_walk *w)
{
	const uint8_t *ip = w->d + w->off;
	uint32_t room = w->len - w->off;
	uint32_t ihl, tot;

	if (room < 20)
		return VNET_ERR_SHORT;
	if (ip[0] >> 4 != 4)
		return VNET_ERR_L3;
	ihl = (ip[0] & 0x0f) * 4u;
	if (ihl < 20)
		return VNET_ERR_L3;
	if (room < ihl)
		return VNET_ERR_SHORT;
	tot = get_be16(ip + 2);
	if (tot < ihl || tot > room)
		return VNET_ERR_L3;
	w->end = w->off + tot;
	w->proto = ip[9];
	/* MF or a fragment offset: the L4 header is absent or incomplete. */
	w->frag = (get_be16(ip + 6) & 0x3fff) != 0;
	w->off += ihl;
	return VNET_OK;
}

/*
 * RFC 8200 section 4: skip hop-by-hop, routing and destination options
 * (8 + 8 * len bytes each) to reach the upper layer. Past a fragment
 * header there is no usable L4 header; any other next header is the upper
 * layer (TCP, UDP or one we do not look into).
 */
static int vnet_parse_ip6_ext(struct vnet_walk *w)
{
	uint32_t hlen;

	for (;;) {
		switch (w->proto) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			break;
		case IPPROTO_FRAGMENT:
			/* Section 4.5: 8 bytes; what follows is a fragment. */
			if (w->end - w->off < 8)
				return VNET_ERR_SHORT;
			w->proto = w->d[w->off];
			w->off += 8;
			w->frag = true;
			return VNET_OK;
		default:
			return VNET_OK;
		}
		if (w->end - w->off < 8)
			return VNET_ERR_SHORT;
		hlen = (w->d[w->off + 1] + 1u) * 8;
		if (w->end - w->off < hlen)
			return VNET_ERR_SHORT;
		w->proto = w->d[w->off];
		w->off += hlen;
	}
}

static int vnet_parse_ip6(struct vnet_walk *w)
{
	const uint8_t *ip = w->d + w->off;
	uint32_t room = w->len - w->off;

	if (room < 40)
		return VNET_ERR_SHORT;
	if (ip[0] >> 4 != 6)
		return VNET_ERR_L3;
	if (get_be16(ip + 4) > room - 40)
		return VNET_ERR_L3;
	w->end = w->off + 40 + get_be16(ip + 4);
	w->proto = ip[6];
	w->off += 40;
	return vnet_parse_ip6_ext(w);
}

/* TCP (doff >= 5, options included) or UDP, inside the IP datagram. */
static int vnet_parse_l4(struct vnet_walk *w, struct frame *f)
{
	uint32_t room = w->end - w->off;
	uint32_t hlen;

	f->l4_proto = w->proto;
	if (w->frag ||
	    (w->proto != IPPROTO_TCP && w->proto != IPPROTO_UDP)) {
		hlen = 0;
	} else if (w->proto == IPPROTO_UDP) {
		hlen = 8;
		if (room < hlen)
			return VNET_ERR_SHORT;
	} else {
		if (room < 20)
			return VNET_ERR_SHORT;
		hlen = (w->d[w->off + 12] >> 4) * 4u;
		if (hlen < 20)
			return VNET_ERR_L3;
		if (room < hlen)
			return VNET_ERR_SHORT;
	}
	/* A long IPv6 extension chain could push offsets past 16 bits. */
	if (w->off + hlen > UINT16_MAX)
		return VNET_ERR_L3;
	if (hlen)
		f->l4_off = (uint16_t)w->off;
	f->hdr_len = (uint16_t)(w->off + hlen);
	return VNET_OK;
}

static int vnet_parse_frame(struct vnet_walk *w, struct frame *f)
{
	int err;

	err = vnet_parse_l2(w, f);
	if (err)
		return err;
	w->end = w->len;
	if (f->ethertype != ETH_P_IP && f->ethertype != ETH_P_IPV6)
		return VNET_OK;
	f->l3_off = (uint16_t)w->off;
	if (f->ethertype == ETH_P_IP)
		err = vnet_parse_ip4(w);
	else
		err = vnet_parse_ip6(w);
	if (err)
		return err;
	return vnet_parse_l4(w, f);
}

/*
 * The gso_types a tap with TUN_F_TSO4/6 and TUN_F_USO4/6 produces; the ECN
 * bit only qualifies TCP (virtio spec 5.1.6.2, virtio_net_hdr_to_skb()).
 */
static int vnet_check_type(const struct virtio_net_hdr *h)
{
	uint8_t base = VNET_GSO_BASE(h->gso_type);

	switch (base) {
	case VIRTIO_NET_HDR_GSO_NONE:
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		break;
	default:
		return VNET_ERR_GSO_TYPE;
	}
	if ((h->gso_type & VIRTIO_NET_HDR_GSO_ECN) &&
	    base != VIRTIO_NET_HDR_GSO_TCPV4 &&
	    base != VIRTIO_NET_HDR_GSO_TCPV6)
		return VNET_ERR_GSO_TYPE;
	if (base != VIRTIO_NET_HDR_GSO_NONE && h->gso_size == 0)
		return VNET_ERR_GSO_SIZE;
	return VNET_OK;
}

/*
 * The field must lie in the data that gets summed: the IP datagram (not
 * the Ethernet padding), or the frame for non-IP (skb_partial_csum_set()).
 * A start inside the Ethernet header is refused, as tun_get_user() and
 * virtio_net_hdr_to_skb() do.
 */
static int vnet_check_csum(const struct virtio_net_hdr *h,
			   const struct vnet_walk *w)
{
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return VNET_OK;
	if (h->csum_start < ETH_HLEN ||
	    (uint32_t)h->csum_start + h->csum_offset + 2 > w->end)
		return VNET_ERR_CSUM_RANGE;
	return VNET_OK;
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
static int vnet_check_gso(const struct virtio_net_hdr *h,
			  const struct vnet_walk *w, struct frame *f)
{
	uint8_t base = VNET_GSO_BASE(h->gso_type);
	uint16_t check;
	uint32_t payload, segs;

	if (base == VIRTIO_NET_HDR_GSO_NONE)
		return VNET_OK;
	f->gso = vnet_gso_kind(base, f);
	if (f->gso == FRAME_GSO_NONE)
		return VNET_ERR_GSO_PROTO;
	check = f->l4_proto == IPPROTO_TCP ? VNET_TCP_CHECK : VNET_UDP_CHECK;
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) ||
	    h->csum_start != f->l4_off || h->csum_offset != check)
		return VNET_ERR_GSO_PROTO;
	payload = w->end - f->hdr_len;
	segs = (payload + h->gso_size - 1) / h->gso_size;
	if (segs > VNET_MAX_SEGS)
		return VNET_ERR_GSO_SIZE;
	f->gso_size = h->gso_size;
	f->ecn = (h->gso_type & VIRTIO_NET_HDR_GSO_ECN) != 0;
	return VNET_OK;
}

int vnet_hdr_parse(const struct virtio_net_hdr *hdr, const uint8_t *data,
		   size_t len, struct frame *f)
{
	struct vnet_walk w = { .d = data, .len = (uint32_t)len };
	int err;

	memset(f, 0, sizeof(*f));
	f->data = data;
	f->len = (uint32_t)len;
	err = vnet_check_type(hdr);
	if (err)
		return err;
	if (len < ETH_HLEN)
		return VNET_ERR_SHORT;
	if (hdr->hdr_len > len)
		return VNET_ERR_HDR_LEN;
	/* No tap read is this long; struct frame could not hold it. */
	if (len > UINT32_MAX)
		return VNET_ERR_L3;
	err = vnet_parse_frame(&w, f);
	if (err)
		return err;
	err = vnet_check_csum(hdr, &w);
	if (err)
		return err;
	err = vnet_check_gso(hdr, &w, f);
	if (err)
		return err;
	f->needs_csum = (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0;
	if (f->needs_csum) {
		f->csum_start = hdr->csum_start;
		f->csum_offset = hdr->csum_offset;
	}
	return VNET_OK;
}

/*
 * The legacy virtio_net_hdr of a tap is in native byte order unless
 * TUNSETVNETLE/BE says otherwise (tun_is_little_endian()); we never set it.
 */
/* Murmur3's 32-bit steps: a word into the hash, and the final mix. */
static uint32_t hash_word(uint32_t h, uint32_t w)
{
	w *= 0xcc9e2d51u;
	w = (w << 15) | (w >> 17);
	h ^= w * 0x1b873593u;
	h = (h << 13) | (h >> 19);
	return h * 5 + 0xe6546b64u;
}

static uint32_t hash_final(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

static uint32_t hash_bytes(uint32_t h, const uint8_t *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i + 4 <= len; i += 4)
		h = hash_word(h, get_be32(p + i));
	for (; i < len; i++)
		h = hash_word(h, p[i]);
	return h;
}

uint32_t frame_flow_hash(const struct frame *f)
{
	const uint8_t *d = f->data;
	uint32_t h = 0;

	if (!f->l3_off) {
		h = hash_bytes(h, d, 2 * ETH_ALEN);
		return hash_final(hash_word(h, f->ethertype));
	}
	/* Source and destination: IPv4 bytes 12-19, IPv6 bytes 8-39. */
	if (f->ethertype == ETH_P_IP)
		h = hash_bytes(h, d + f->l3_off + 12, 8);
	else
		h = hash_bytes(h, d + f->l3_off + 8, 32);
	h = hash_word(h, f->l4_proto);
	if (f->l4_off)
		h = hash_word(h, get_be32(d + f->l4_off));
	return hash_final(h);
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
	hdr->csum_offset = VNET_TCP_CHECK;
}
