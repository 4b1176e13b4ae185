// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the transmit path: a tap frame and its vnet header
 * through vnet_hdr_parse(), gso_plan() and encap_build(), each segment
 * checked; and through pmtu_fit() against a path budget: the cut, the
 * fragments or the ICMP it leads to.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "encap.h"
#include "gso.h"
#include "pmtu.h"
#include "vnet.h"
#include "pkt.h"
#include "fuzz.h"

/*
 * Input:
 *   byte 0      bits 0-1: encapsulation (0 VXLAN, 1 GRE, 2 GRE-in-UDP,
 *               3 VXLAN); bit 2: GRE key; bit 3: GRE checksum; bit 4: GRE
 *               sequence numbers; bit 5: want_sum; bit 6: fix the frame
 *               first (IP lengths that lie, IPv4 header checksum, the L4
 *               check field as the tap leaves it, csum_start/offset of a
 *               GSO frame), so mutations get past vnet_hdr_parse(); bit
 *               7: --pmtud off
 *   bytes 1-2   mss_cap, big-endian (0: none); also the path budget of
 *               pmtu_fit() (0: 1514)
 *   bytes 3-5   VNI
 *   bytes 6-9   GRE key
 *   bytes 10-13 GRE sequence number of the first segment
 *   bytes 14-23 struct virtio_net_hdr, little-endian fields: flags,
 *               gso_type, hdr_len, gso_size, csum_start, csum_offset
 *   the rest    the Ethernet frame
 */
#define TX_CFG_LEN 14
#define TX_HDR_LEN (TX_CFG_LEN + 10)

#define TX_WANT_SUM 0x20
#define TX_FIX 0x40
#define TX_NO_PMTUD 0x80

#define TX_TCP_FIN 0x01
#define TX_TCP_PSH 0x08
#define TX_TCP_CWR 0x80

struct tx_in {
	struct encap_cfg cfg;
	uint16_t mss_cap;
	bool want_sum;
	uint32_t seq;
	struct virtio_net_hdr vh;
};

/* Where the headers are, found independently of vnet.c. */
struct tx_layout {
	uint32_t l3;
	uint32_t l4;		/* 0: no TCP/UDP header */
	uint32_t end;		/* end of the IP datagram */
	uint8_t proto;
	bool ip6;
};

static uint8_t arena[VNET_MAX_SEGS * GSO_SLOT];
static struct seg segs[VNET_MAX_SEGS];
static uint8_t segbuf[VNET_FRAME_MAX];

static uint16_t tx_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ---- fixing a mutated frame into one a tap could give ------------------- */

static bool tx_walk_ip4(uint8_t *d, uint32_t len, struct tx_layout *l)
{
	uint8_t *ip = d + l->l3;
	uint32_t room = len - l->l3, ihl, tot;

	if (room < 20 || ip[0] >> 4 != 4)
		return false;
	ihl = (ip[0] & 15) * 4u;
	if (ihl < 20 || ihl > room)
		return false;
	tot = pkt_get16(ip + 2);
	if (tot < ihl || tot > room) {
		tot = room > 0xffff ? 0xffff : room;
		pkt_put16(ip + 2, tot);
	}
	pkt_put16(ip + 10, 0);
	pkt_put16(ip + 10, pkt_ip4_check(ip));
	l->end = l->l3 + tot;
	l->proto = ip[9];
	if (!(pkt_get16(ip + 6) & 0x3fff))
		l->l4 = l->l3 + ihl;
	return true;
}

static bool tx_walk_ip6(uint8_t *d, uint32_t len, struct tx_layout *l)
{
	uint8_t *ip = d + l->l3;
	uint32_t room = len - l->l3, plen, off;

	if (room < 40 || ip[0] >> 4 != 6)
		return false;
	plen = pkt_get16(ip + 4);
	if (plen > room - 40) {
		plen = room - 40 > 0xffff ? 0xffff : room - 40;
		pkt_put16(ip + 4, plen);
	}
	l->ip6 = true;
	l->end = l->l3 + 40 + plen;
	l->proto = ip[6];
	off = l->l3 + 40;
	while (l->proto == IPPROTO_HOPOPTS || l->proto == IPPROTO_ROUTING ||
	       l->proto == IPPROTO_DSTOPTS) {
		uint32_t hl;

		if (l->end - off < 8)
			return true;
		hl = (d[off + 1] + 1u) * 8;
		if (l->end - off < hl)
			return true;
		l->proto = d[off];
		off += hl;
	}
	if (l->proto != IPPROTO_FRAGMENT)
		l->l4 = off;
	return true;
}

/* Ethernet, up to two VLAN tags, IP; the L4 header if TCP or UDP. */
static bool tx_walk(uint8_t *d, uint32_t len, struct tx_layout *l)
{
	uint32_t room;
	uint16_t type;
	bool ok;

	memset(l, 0, sizeof(*l));
	l->l3 = fuzz_l3_off(d, len, &type);
	if (!l->l3)
		return false;
	if (type == 0x0800)
		ok = tx_walk_ip4(d, len, l);
	else if (type == 0x86dd)
		ok = tx_walk_ip6(d, len, l);
	else
		ok = false;
	if (!ok || !l->l4)
		return ok;
	room = l->end - l->l4;
	if (!((l->proto == IPPROTO_TCP && room >= 20 &&
	       (d[l->l4 + 12] >> 4) * 4u >= 20 &&
	       (d[l->l4 + 12] >> 4) * 4u <= room) ||
	      (l->proto == IPPROTO_UDP && room >= 8)))
		l->l4 = 0;
	return true;
}

/*
 * What a tap gives for a frame the stack left for the device to finish:
 * the L4 check field holds the pseudo-header seed and csum_start/offset
 * point at it (tun_put_user() via virtio_net_hdr_from_skb()); otherwise
 * a complete checksum.
 */
static void tx_fix(uint8_t *d, uint32_t len, struct tx_in *in)
{
	struct virtio_net_hdr *h = &in->vh;
	struct tx_layout l;
	uint32_t l4len;
	uint16_t check;
	uint64_t pseudo;

	if (!tx_walk(d, len, &l) || !l.l4)
		return;
	l4len = l.end - l.l4;
	check = l.proto == IPPROTO_TCP ? 16 : 6;
	if (l.proto == IPPROTO_UDP)
		pkt_put16(d + l.l4 + 4, l4len);
	if (h->gso_type) {
		h->flags |= VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)l.l4;
		h->csum_offset = check;
	}
	pseudo = pkt_pseudo(d + l.l3, l.proto, l4len);
	pkt_put16(d + l.l4 + check, 0);
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		pkt_put16(d + l.l4 + check, pkt_fold(pseudo));
	else
		pkt_put16(d + l.l4 + check,
			  (uint16_t)~pkt_fold(pseudo + pkt_sum(d + l.l4, l4len,
							       0)));
}

/* ---- vnet_hdr_parse() --------------------------------------------------- */

/*
 * Headers that lie are never taken (issue 5, "Bad input"): an unknown
 * gso_type, ECN without TCP, GSO without a size or without NEEDS_CSUM, a
 * csum_start in the Ethernet header or a check field past the frame.
 */
static void tx_check_refused(const struct virtio_net_hdr *h, size_t len,
			     int err)
{
	uint8_t base = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	bool tcp = base == VIRTIO_NET_HDR_GSO_TCPV4 ||
		   base == VIRTIO_NET_HDR_GSO_TCPV6;
	bool csum = h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;

	FUZZ_CHECK(err >= VNET_OK && err < VNET_ERR__MAX);
	if (err)
		return;
	FUZZ_CHECK(len >= 14 && h->hdr_len <= len);
	FUZZ_CHECK(tcp || base == VIRTIO_NET_HDR_GSO_NONE ||
		 base == VIRTIO_NET_HDR_GSO_UDP_L4);
	FUZZ_CHECK(tcp || !(h->gso_type & VIRTIO_NET_HDR_GSO_ECN));
	FUZZ_CHECK(!base || (h->gso_size && csum));
	FUZZ_CHECK(!csum || (h->csum_start >= 14 &&
			   (uint32_t)h->csum_start + h->csum_offset + 2 <=
				   len));
}

/* End of the data a segment carries: the IP datagram, else the frame. */
static uint32_t tx_data_end(const struct frame *f)
{
	const uint8_t *ip = f->data + f->l3_off;
	uint32_t end = f->len;

	if (f->l3_off && f->ethertype == 0x0800)
		end = f->l3_off + pkt_get16(ip + 2);
	else if (f->l3_off && f->ethertype == 0x86dd)
		end = f->l3_off + 40u + pkt_get16(ip + 4);
	FUZZ_CHECK(end <= f->len);
	return end;
}

/* What vnet_hdr_parse() says about the frame must hold for the frame. */
static void tx_check_frame(const struct virtio_net_hdr *h, const uint8_t *d,
			   size_t len, const struct frame *f)
{
	uint8_t base = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	uint32_t end;

	FUZZ_CHECK(f->data == d && f->len == len);
	FUZZ_CHECK(f->hdr_len <= len);
	if (f->l3_off) {
		FUZZ_CHECK(f->l3_off == 14 || f->l3_off == 18 ||
			 f->l3_off == 22);
		FUZZ_CHECK(f->ethertype == 0x0800 || f->ethertype == 0x86dd);
		FUZZ_CHECK(f->hdr_len >= f->l3_off + (f->ethertype == 0x0800 ?
							    20u : 40u));
	}
	end = tx_data_end(f);
	FUZZ_CHECK(f->hdr_len <= end);
	if (f->l4_off) {
		FUZZ_CHECK(f->l3_off && f->l4_off > f->l3_off);
		FUZZ_CHECK(f->l4_proto == IPPROTO_TCP ||
			 f->l4_proto == IPPROTO_UDP);
		FUZZ_CHECK(f->hdr_len >= f->l4_off +
				 (f->l4_proto == IPPROTO_TCP ? 20u : 8u));
	}
	FUZZ_CHECK(f->needs_csum == !!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM));
	if (f->needs_csum)
		FUZZ_CHECK((uint32_t)f->csum_start + f->csum_offset + 2 <= end);
	if (!f->gso) {
		FUZZ_CHECK(base == VIRTIO_NET_HDR_GSO_NONE);
		return;
	}
	FUZZ_CHECK(f->l4_off && f->needs_csum && f->csum_start == f->l4_off);
	FUZZ_CHECK(f->gso_size == h->gso_size && f->gso_size > 0);
	FUZZ_CHECK(f->ecn == !!(h->gso_type & VIRTIO_NET_HDR_GSO_ECN));
	switch (f->gso) {
	case FRAME_GSO_TCP4:
		FUZZ_CHECK(base == VIRTIO_NET_HDR_GSO_TCPV4);
		FUZZ_CHECK(f->ethertype == 0x0800);
		break;
	case FRAME_GSO_TCP6:
		FUZZ_CHECK(base == VIRTIO_NET_HDR_GSO_TCPV6);
		FUZZ_CHECK(f->ethertype == 0x86dd);
		break;
	case FRAME_GSO_UDP4:
	case FRAME_GSO_UDP6:
		FUZZ_CHECK(base == VIRTIO_NET_HDR_GSO_UDP_L4);
		FUZZ_CHECK(f->ethertype ==
			 (f->gso == FRAME_GSO_UDP4 ? 0x0800 : 0x86dd));
		break;
	default:
		FUZZ_CHECK(f->gso <= FRAME_GSO_UDP6);
		break;
	}
	FUZZ_CHECK(f->l4_proto == (f->gso == FRAME_GSO_TCP4 ||
						 f->gso == FRAME_GSO_TCP6 ?
					 IPPROTO_TCP :
					 IPPROTO_UDP));
	FUZZ_CHECK(f->csum_offset == (f->l4_proto == IPPROTO_TCP ? 16 : 6));
	FUZZ_CHECK((end - f->hdr_len + f->gso_size - 1u) / f->gso_size <=
		 VNET_MAX_SEGS);
}

/* ---- gso_plan() ---------------------------------------------------------- */

/* TCP may be cut finer than gso_size, UDP never (gso.h). */
static uint32_t tx_mss(const struct frame *f, const struct tx_in *in)
{
	uint32_t mss = f->gso_size;

	if (f->l4_proto == IPPROTO_TCP && in->mss_cap && in->mss_cap < mss)
		mss = in->mss_cap;
	return mss;
}

/* The segment count gso.h promises, or the error it gives. */
static int tx_want_segs(const struct frame *f, const struct tx_in *in)
{
	uint32_t end = tx_data_end(f), need = 0, mss, total, n;

	if (!f->gso) {
		if (f->needs_csum)
			need = (uint32_t)f->csum_start + f->csum_offset + 2;
		return need > GSO_HDR_MAX ? -EINVAL : 1;
	}
	if (f->hdr_len > GSO_HDR_MAX)
		return -EINVAL;
	mss = tx_mss(f, in);
	total = end - f->hdr_len;
	n = total ? (total + mss - 1) / mss : 1;
	return n > VNET_MAX_SEGS ? -ENOSPC : (int)n;
}

static uint32_t tx_seg_bytes(const struct seg *s)
{
	memcpy(segbuf, s->hdr, s->hdr_len);
	memcpy(segbuf + s->hdr_len, s->payload, s->payload_len);
	return seg_len(s);
}

/* A memory-order wsum as a host-order value modulo 0xffff. */
static uint32_t tx_wsum_mod(uint32_t wsum)
{
	return ntohs((uint16_t)pkt_fold(wsum)) % 0xffff;
}

/*
 * The sum a segment carries for an outer checksum (local checksum
 * offload). It stands only if the check field is a whole 16-bit word of
 * the summed bytes: an odd csum_offset (which no stack sets) breaks the
 * lco_csum() identity for gso.c as for the kernel.
 */
static bool tx_lco_sound(const struct frame *f)
{
	return f->gso || !f->needs_csum || !(f->csum_offset & 1);
}

static void tx_check_sum(const struct frame *f, const struct seg *s,
			 uint32_t len)
{
	if (!s->sum_valid || !tx_lco_sound(f))
		return;
	FUZZ_CHECK(s->sum_off <= s->hdr_len && s->sum_off <= len);
	FUZZ_CHECK(tx_wsum_mod(s->sum) ==
		 pkt_fold(pkt_sum(segbuf + s->sum_off, len - s->sum_off, 0)) %
			 0xffff);
}

/* Where in the L3/L4 headers gso.c may write, per segment. */
static bool tx_patched(const struct frame *f, uint32_t i)
{
	uint32_t ip = f->l3_off, l4 = f->l4_off;

	if (f->ethertype == 0x0800 &&
	    ((i >= ip + 2 && i < ip + 6) || (i >= ip + 10 && i < ip + 12)))
		return true;
	if (f->ethertype == 0x86dd && i >= ip + 4 && i < ip + 6)
		return true;
	if (f->l4_proto == IPPROTO_TCP)
		return (i >= l4 + 4 && i < l4 + 8) || i == l4 + 13 ||
		       (i >= l4 + 16 && i < l4 + 18);
	return i >= l4 + 4 && i < l4 + 8;
}

/* tcp_gso_segment() and __udp_gso_segment(), field by field. */
static void tx_check_gso_seg(const struct frame *f, const struct seg *s,
			     uint32_t k, uint32_t n, uint32_t off,
			     uint32_t len, bool seed_ok)
{
	const uint8_t *ip = segbuf + f->l3_off, *l4 = segbuf + f->l4_off;
	const uint8_t *oip = f->data + f->l3_off, *ol4 = f->data + f->l4_off;
	uint8_t flags;
	uint32_t i;

	for (i = 0; i < s->hdr_len; i++)
		FUZZ_CHECK(tx_patched(f, i) || segbuf[i] == f->data[i]);
	if (f->ethertype == 0x0800) {
		FUZZ_CHECK(pkt_get16(ip + 2) == len - f->l3_off);
		FUZZ_CHECK(pkt_get16(ip + 4) ==
			 (uint16_t)(pkt_get16(oip + 4) + k));
		FUZZ_CHECK(pkt_fold(pkt_sum(ip, (ip[0] & 15) * 4u, 0)) ==
			 0xffff);
	} else {
		FUZZ_CHECK(pkt_get16(ip + 4) + 40u == len - f->l3_off);
	}
	if (f->l4_proto == IPPROTO_TCP) {
		FUZZ_CHECK(pkt_get32(l4 + 4) == pkt_get32(ol4 + 4) + off);
		flags = ol4[13];
		if (k + 1 < n)
			flags &= (uint8_t)~(TX_TCP_FIN | TX_TCP_PSH);
		if (k > 0)
			flags &= (uint8_t)~TX_TCP_CWR;
		FUZZ_CHECK(l4[13] == flags);
	} else {
		FUZZ_CHECK(pkt_get16(l4 + 4) == len - f->l4_off);
	}
	if (seed_ok)
		FUZZ_CHECK(pkt_fold(pkt_pseudo(ip, f->l4_proto, len - f->l4_off) +
				  pkt_sum(l4, len - f->l4_off, 0)) == 0xffff);
}

/* The check field holds the seed a tap leaves: segments must verify. */
static bool tx_seed_ok(const struct frame *f, uint32_t end)
{
	const uint8_t *at = f->data + f->csum_start + f->csum_offset;

	return pkt_get16(at) == pkt_fold(pkt_pseudo(f->data + f->l3_off,
						    f->l4_proto,
						    end - f->l4_off));
}

/*
 * skb_checksum_help(): the field completed over csum_start..end, so that
 * those bytes sum to the complement of the seed the field held.
 */
static void tx_check_single(const struct frame *f, const struct seg *s,
			    uint32_t end, uint32_t len)
{
	uint32_t at = (uint32_t)f->csum_start + f->csum_offset, i;

	FUZZ_CHECK(len == end);
	FUZZ_CHECK(s->payload == f->data + s->hdr_len);
	for (i = 0; i < len; i++)
		FUZZ_CHECK(segbuf[i] == f->data[i] ||
			 (f->needs_csum && (i == at || i == at + 1)));
	if (!f->needs_csum || (f->csum_offset & 1))
		return;
	FUZZ_CHECK(pkt_fold(pkt_sum(segbuf + f->csum_start, end - f->csum_start,
				  pkt_get16(f->data + at))) == 0xffff);
}

/* Header blocks in their arena slots, payloads inside the frame. */
static void tx_check_layout(const struct frame *f, const struct seg *s,
			    uint32_t k)
{
	const uint8_t *slot = arena + (size_t)k * GSO_SLOT;

	FUZZ_CHECK(s->hdr >= slot + GSO_HEADROOM);
	FUZZ_CHECK(s->hdr_len <= GSO_HDR_MAX);
	FUZZ_CHECK(s->hdr + s->hdr_len <= slot + GSO_SLOT);
	FUZZ_CHECK(s->payload >= f->data);
	FUZZ_CHECK(s->payload_len <= (size_t)(f->data + f->len - s->payload));
	FUZZ_CHECK(seg_len(s) >= 14);
}

static int tx_plan(const struct frame *f, const struct tx_in *in)
{
	uint32_t end = tx_data_end(f), off = 0, k, len, mss;
	int want = tx_want_segs(f, in), n;
	bool seed_ok;

	memset(segs, 0xa5, sizeof(segs[0]) * 2);
	n = gso_plan(f, arena, sizeof(arena), segs, VNET_MAX_SEGS,
		     in->mss_cap, in->want_sum);
	FUZZ_CHECK(n == want);
	if (n <= 0)
		return n;
	seed_ok = f->gso && tx_seed_ok(f, end);
	mss = f->gso ? tx_mss(f, in) : 0;
	for (k = 0; k < (uint32_t)n; k++) {
		const struct seg *s = &segs[k];

		tx_check_layout(f, s, k);
		len = tx_seg_bytes(s);
		FUZZ_CHECK(s->sum_valid || (!f->gso && !f->needs_csum &&
					  !in->want_sum));
		tx_check_sum(f, s, len);
		if (!f->gso) {
			tx_check_single(f, s, end, len);
			continue;
		}
		FUZZ_CHECK(s->hdr_len == f->hdr_len);
		FUZZ_CHECK(s->payload == f->data + f->hdr_len + off);
		FUZZ_CHECK(s->payload_len == (end - f->hdr_len - off < mss ?
						    end - f->hdr_len - off :
						    mss));
		tx_check_gso_seg(f, s, k, (uint32_t)n, off, len, seed_ok);
		off += s->payload_len;
	}
	if (f->gso)
		FUZZ_CHECK(f->hdr_len + off == end);
	return n;
}

/* ---- encap_build(), and encap_parse() of what it built ------------------ */

static void tx_check_hdr(const struct encap_cfg *c, const uint8_t *h,
			 uint32_t seq)
{
	const uint8_t *opt = h + 4;
	uint16_t flags = 0;

	if (c->type == ENCAP_VXLAN) {
		FUZZ_CHECK(pkt_get32(h) == 0x08000000);
		FUZZ_CHECK(pkt_get32(h + 4) == (c->vni & 0xffffff) << 8);
		return;
	}
	flags = (c->gre_csum ? 0x8000 : 0) | (c->has_key ? 0x2000 : 0) |
		(c->gre_seq ? 0x1000 : 0);
	FUZZ_CHECK(pkt_get16(h) == flags && pkt_get16(h + 2) == 0x6558);
	if (c->gre_csum) {
		FUZZ_CHECK(pkt_get16(opt + 2) == 0);
		opt += 4;
	}
	if (c->has_key) {
		FUZZ_CHECK(pkt_get32(opt) == c->key);
		opt += 4;
	}
	if (c->gre_seq)
		FUZZ_CHECK(pkt_get32(opt) == seq);
}

static void tx_encap(const struct frame *f, const struct tx_in *in, int n)
{
	const struct encap_cfg *c = &in->cfg;
	size_t hl = encap_hdr_len(c);
	struct encap_rx rx;
	uint8_t *h, *pkt;
	uint32_t len;
	int k;

	FUZZ_CHECK(hl <= GSO_HEADROOM);
	for (k = 0; k < n; k++) {
		struct seg *s = &segs[k];

		h = encap_build(c, s, in->seq + (uint32_t)k);
		FUZZ_CHECK(h == s->hdr - hl);
		FUZZ_CHECK(h >= arena + (size_t)k * GSO_SLOT);
		tx_check_hdr(c, h, in->seq + (uint32_t)k);
		/* The packet as the peer receives it, outer headers off. */
		len = (uint32_t)hl + seg_len(s);
		pkt = malloc(len);
		FUZZ_CHECK(pkt);
		memcpy(pkt, h, hl + s->hdr_len);
		memcpy(pkt + hl + s->hdr_len, s->payload, s->payload_len);
		if (c->type != ENCAP_VXLAN && c->gre_csum && !tx_lco_sound(f)) {
			free(pkt);
			continue;
		}
		if (c->type != ENCAP_VXLAN && c->gre_csum)
			FUZZ_CHECK(pkt_fold(pkt_sum(pkt, len, 0)) == 0xffff);
		FUZZ_CHECK(encap_parse(c, pkt, len, &rx) == ENCAP_OK);
		FUZZ_CHECK(rx.inner_off == hl);
		FUZZ_CHECK(rx.sum_valid == (c->type != ENCAP_VXLAN &&
					    c->gre_csum));
		if (rx.sum_valid)
			FUZZ_CHECK(pkt_ones_eq(pkt_wsum16(rx.inner_sum),
					       pkt_fold(pkt_sum(pkt + hl,
								len - hl,
								0))));
		free(pkt);
	}
}

/* ---- the input ----------------------------------------------------------- */

static void tx_read_in(struct tx_in *in, const uint8_t *d)
{
	const uint8_t *v = d + TX_CFG_LEN;

	memset(in, 0, sizeof(*in));
	in->cfg.type = (enum encap_type)((d[0] & 3) % 3);
	in->cfg.has_key = d[0] & 0x04;
	in->cfg.gre_csum = d[0] & 0x08;
	in->cfg.gre_seq = d[0] & 0x10;
	/* gsotun asks for sums whenever the GRE checksum needs them. */
	in->want_sum = (d[0] & TX_WANT_SUM) || in->cfg.gre_csum;
	in->mss_cap = pkt_get16(d + 1);
	in->cfg.vni = pkt_get32(d + 2) & 0xffffff;
	in->cfg.key = pkt_get32(d + 6);
	in->seq = pkt_get32(d + 10);
	in->vh.flags = v[0];
	in->vh.gso_type = v[1];
	in->vh.hdr_len = tx_get_le16(v + 2);
	in->vh.gso_size = tx_get_le16(v + 4);
	in->vh.csum_start = tx_get_le16(v + 6);
	in->vh.csum_offset = tx_get_le16(v + 8);
}

/* ---- pmtu_fit() and what it leads to ---------------------------------- */

static uint8_t icmp[PMTU_ICMP_MAX];
static uint8_t frag_arena[VNET_MAX_SEGS * GSO_SLOT];
static struct seg frags[VNET_MAX_SEGS];

/* The naive one's-complement sum of the 16-bit words of p. */
static uint16_t tx_naive_sum(const uint8_t *p, uint32_t len, uint64_t acc)
{
	return pkt_fold(pkt_sum(p, len, acc));
}

/* An ICMP "too big": addresses swapped, checksums good, quote verbatim. */
static void tx_check_icmp(const struct frame *f, size_t n)
{
	const uint8_t *ip = icmp + f->l3_off, *oip = f->data + f->l3_off;
	uint32_t hl, qlen;

	FUZZ_CHECK(n <= sizeof(icmp) && n > f->l3_off);
	if (f->ethertype == 0x0800) {
		hl = 20;
		FUZZ_CHECK(n <= f->l3_off + 576u);
		FUZZ_CHECK(tx_naive_sum(ip, hl, 0) == 0xffff);
		FUZZ_CHECK(!memcmp(ip + 12, oip + 16, 4) &&
			 !memcmp(ip + 16, oip + 12, 4));
		FUZZ_CHECK(ip[hl] == 3 && ip[hl + 1] == 4);
		FUZZ_CHECK(tx_naive_sum(ip + hl, n - f->l3_off - hl, 0) ==
			 0xffff);
	} else {
		hl = 40;
		FUZZ_CHECK(n <= f->l3_off + 1280u);
		FUZZ_CHECK(!memcmp(ip + 8, oip + 24, 16) &&
			 !memcmp(ip + 24, oip + 8, 16));
		FUZZ_CHECK(ip[hl] == 2 && ip[hl + 1] == 0);
		FUZZ_CHECK(tx_naive_sum(ip + hl, n - f->l3_off - hl,
				      pkt_pseudo(ip, 58,
						 n - f->l3_off - hl)) ==
			 0xffff);
	}
	qlen = n - f->l3_off - hl - 8;
	FUZZ_CHECK(f->l3_off + qlen <= f->len);
	FUZZ_CHECK(!memcmp(ip + hl + 8, oip, qlen));
}

/* Every fragment fits, and together they carry the segment's bytes. */
static void tx_check_frags(const struct frame *f, const struct seg *s,
			   uint32_t budget, int n)
{
	uint32_t k, data = 0, want = seg_len(s) - f->l3_off -
				      (s->hdr[f->l3_off] & 0x0fu) * 4;

	for (k = 0; k < (uint32_t)n; k++) {
		const struct seg *o = &frags[k];
		const uint8_t *ip = o->hdr + f->l3_off;

		FUZZ_CHECK(seg_len(o) <= budget || n == 1);
		/* One: the segment as it was, fitting; else new headers. */
		FUZZ_CHECK(n == 1 ||
			 tx_naive_sum(ip, (ip[0] & 0x0fu) * 4, 0) == 0xffff);
		data += seg_len(o) - f->l3_off - (ip[0] & 0x0fu) * 4;
	}
	FUZZ_CHECK(data == want);
}

static void tx_pmtu(const struct frame *orig, const struct tx_in *in,
		    bool pmtud)
{
	uint32_t budget = in->mss_cap ? in->mss_cap : 1514, k;
	struct frame f = *orig;
	uint16_t cap = 0;
	size_t len;
	int n, r;

	switch (pmtu_fit(&f, budget, pmtud, &cap)) {
	case PMTU_FIT_SEND:
		/* Fits, or --pmtud off for anything but TCP. */
		break;
	case PMTU_FIT_CUT:
		FUZZ_CHECK(f.gso == FRAME_GSO_TCP4 || f.gso == FRAME_GSO_TCP6);
		FUZZ_CHECK(cap >= 8 && f.hdr_len + cap <= budget);
		n = gso_plan(&f, arena, sizeof(arena), segs, VNET_MAX_SEGS,
			     cap, false);
		for (k = 0; n > 0 && k < (uint32_t)n; k++)
			FUZZ_CHECK(seg_len(&segs[k]) <= budget);
		break;
	case PMTU_FIT_FRAGMENT:
		FUZZ_CHECK(pmtud && f.ethertype == 0x0800 && !pmtu_frame_df(&f));
		n = gso_plan(&f, arena, sizeof(arena), segs, VNET_MAX_SEGS, 0,
			     false);
		for (k = 0; n > 0 && k < (uint32_t)n; k++) {
			r = pmtu_fragment(&segs[k], f.l3_off, budget, true,
					  frag_arena, sizeof(frag_arena),
					  frags, VNET_MAX_SEGS);
			if (r > 0)
				tx_check_frags(&f, &segs[k], budget, r);
		}
		break;
	case PMTU_FIT_ICMP:
		FUZZ_CHECK(pmtud && pmtu_frame_df(&f));
		len = pmtu_icmp_build(&f, pmtu_icmp_mtu(&f, budget), icmp,
				      sizeof(icmp));
		if (len)
			tx_check_icmp(&f, len);
		break;
	case PMTU_FIT_DROP:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tx_in in;
	uint8_t *frame, *orig;
	struct frame f;
	size_t len;
	int err, n;

	if (size < TX_HDR_LEN || size - TX_HDR_LEN > VNET_FRAME_MAX)
		return 0;
	tx_read_in(&in, data);
	len = size - TX_HDR_LEN;
	/* Buffers of the frame's own size: a read past it is caught. */
	frame = malloc(len ? len : 1);
	orig = malloc(len ? len : 1);
	FUZZ_CHECK(frame && orig);
	memcpy(frame, data + TX_HDR_LEN, len);
	if (data[0] & TX_FIX)
		tx_fix(frame, (uint32_t)len, &in);
	memcpy(orig, frame, len);

	err = vnet_hdr_parse(&in.vh, frame, len, &f);
	tx_check_refused(&in.vh, len, err);
	if (err == VNET_OK) {
		tx_check_frame(&in.vh, frame, len, &f);
		n = tx_plan(&f, &in);
		if (n > 0)
			tx_encap(&f, &in, n);
		tx_pmtu(&f, &in, !(data[0] & TX_NO_PMTUD));
	}
	FUZZ_CHECK(!memcmp(frame, orig, len));
	free(frame);
	free(orig);
	return 0;
}
