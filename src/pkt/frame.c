// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame: one walk through the headers of an Ethernet frame or an IP
 * packet, for the frames read from the tap or tun (vnet_hdr_parse()) and
 * the inner frames received (gro, ECN).
 */
#include "config.h"

#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include "base/bytes.h"
#include "base/proto.h"
#include "pkt/frame.h"

/* Where the walk through the frame's headers stands. */
struct frame_walk {
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
static int frame_parse_l2(struct frame_walk *w, struct frame *f)
{
	uint16_t type = get_be16(w->d + 12);
	int tags;

	w->off = ETH_HLEN;
	for (tags = 0; tags < 2; tags++) {
		if (type != ETH_P_8021Q && type != ETH_P_8021AD)
			break;
		if (w->len - w->off < 4)
			return FRAME_ERR_SHORT;
		type = get_be16(w->d + w->off + 2);
		w->off += 4;
	}
	f->ethertype = type;
	return FRAME_OK;
}

/* RFC 791: ihl >= 5, ihl <= tot_len <= what the frame holds. */
static int frame_parse_ip4(struct frame_walk *w)
{
	const uint8_t *ip = w->d + w->off;
	uint32_t room = w->len - w->off;
	uint32_t ihl, tot;

	if (room < 20)
		return FRAME_ERR_SHORT;
	if (ip[0] >> 4 != 4)
		return FRAME_ERR_L3;
	ihl = (ip[0] & 0x0f) * 4u;
	if (ihl < 20)
		return FRAME_ERR_L3;
	if (room < ihl)
		return FRAME_ERR_SHORT;
	tot = get_be16(ip + 2);
	if (tot < ihl || tot > room)
		return FRAME_ERR_L3;
	w->end = w->off + tot;
	w->proto = ip[9];
	/* MF or a fragment offset: the L4 header is absent or incomplete. */
	w->frag = (get_be16(ip + 6) & (IP4_F_MF | IP4_OFFSET)) != 0;
	w->off += ihl;
	return FRAME_OK;
}

/*
 * RFC 8200 section 4: skip hop-by-hop, routing and destination options
 * (8 + 8 * len bytes each) to reach the upper layer. Past a fragment
 * header there is no usable L4 header; any other next header is the upper
 * layer (TCP, UDP or one we do not look into).
 */
static int frame_parse_ip6_ext(struct frame_walk *w)
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
				return FRAME_ERR_SHORT;
			w->proto = w->d[w->off];
			w->off += 8;
			w->frag = true;
			return FRAME_OK;
		default:
			return FRAME_OK;
		}
		if (w->end - w->off < 8)
			return FRAME_ERR_SHORT;
		hlen = (w->d[w->off + 1] + 1u) * 8;
		if (w->end - w->off < hlen)
			return FRAME_ERR_SHORT;
		w->proto = w->d[w->off];
		w->off += hlen;
	}
}

static int frame_parse_ip6(struct frame_walk *w)
{
	const uint8_t *ip = w->d + w->off;
	uint32_t room = w->len - w->off;

	if (room < 40)
		return FRAME_ERR_SHORT;
	if (ip[0] >> 4 != 6)
		return FRAME_ERR_L3;
	if (get_be16(ip + 4) > room - 40)
		return FRAME_ERR_L3;
	w->end = w->off + 40 + get_be16(ip + 4);
	w->proto = ip[6];
	w->off += 40;
	return frame_parse_ip6_ext(w);
}

/* TCP (doff >= 5, options included) or UDP, inside the IP datagram. */
static int frame_parse_l4(struct frame_walk *w, struct frame *f)
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
			return FRAME_ERR_SHORT;
	} else {
		if (room < 20)
			return FRAME_ERR_SHORT;
		hlen = (w->d[w->off + 12] >> 4) * 4u;
		if (hlen < 20)
			return FRAME_ERR_L3;
		if (room < hlen)
			return FRAME_ERR_SHORT;
	}
	/* A long IPv6 extension chain could push offsets past 16 bits. */
	if (w->off + hlen > UINT16_MAX)
		return FRAME_ERR_L3;
	if (hlen)
		f->l4_off = (uint16_t)w->off;
	f->hdr_len = (uint16_t)(w->off + hlen);
	return FRAME_OK;
}

/* IPv4 or IPv6 at w->off, then TCP or UDP; f->ethertype says which. */
static int frame_parse_l3(struct frame_walk *w, struct frame *f)
{
	int err;

	f->l3_off = (uint16_t)w->off;
	f->ip = true;
	if (f->ethertype == ETH_P_IP)
		err = frame_parse_ip4(w);
	else
		err = frame_parse_ip6(w);
	if (err)
		return err;
	f->end = w->end;
	return frame_parse_l4(w, f);
}

/* Start a walk of the len bytes at data: *f empty but for them. */
static int frame_walk_start(struct frame_walk *w, const uint8_t *data,
			    size_t len, struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->data = data;
	f->len = (uint32_t)len;
	f->end = f->len;
	w->d = data;
	w->len = (uint32_t)len;
	w->end = w->len;
	/* No frame read or received is this long. */
	if (len > UINT32_MAX)
		return FRAME_ERR_L3;
	return FRAME_OK;
}

int frame_parse(const uint8_t *data, size_t len, struct frame *f)
{
	struct frame_walk w = { 0 };
	int err;

	err = frame_walk_start(&w, data, len, f);
	if (err)
		return err;
	if (len < ETH_HLEN)
		return FRAME_ERR_SHORT;
	err = frame_parse_l2(&w, f);
	if (err)
		return err;
	if (f->ethertype != ETH_P_IP && f->ethertype != ETH_P_IPV6)
		return FRAME_OK;
	return frame_parse_l3(&w, f);
}

int frame_parse_ip(const uint8_t *data, size_t len, struct frame *f)
{
	struct frame_walk w = { 0 };
	int err;

	err = frame_walk_start(&w, data, len, f);
	if (err)
		return err;
	if (len < 1)
		return FRAME_ERR_SHORT;
	switch (data[0] >> 4) {
	case 4:
		f->ethertype = ETH_P_IP;
		break;
	case 6:
		f->ethertype = ETH_P_IPV6;
		break;
	default:
		return FRAME_ERR_L3;
	}
	return frame_parse_l3(&w, f);
}

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

	if (!f->ip) {
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

