// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the transmit path: a tap frame and its vnet header
 * through vnet_hdr_parse() and gso_plan() on their own, then read twice
 * (a batch) through xmit_frame() into one arena as tx.c drives it, every
 * outcome checked against references written here: the segments, the cut,
 * the fragments or the ICMP a path budget leads to, the encapsulation
 * parsed back, and the segments grouped into messages by sendq_add().
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "encap/encap.h"
#include "pipe/pmtu.h"
#include "pipe/sendq.h"
#include "pipe/xmit.h"
#include "cmsg.h"
#include "fuzz-input.h"
#include "fuzz.h"
#include "pkt.h"

/*
 * Input:
 *   byte 0      bits 0-1: encapsulation (0 VXLAN, 1 GRE, 2 GRE-in-UDP,
 *               3 VXLAN-GPE); bit 2: GRE key; bit 3: GRE checksum; bit 4: GRE
 *               sequence numbers; bit 5: want_sum; bit 6: fix the frame
 *               first (IP lengths that lie, IPv4 header checksum, the L4
 *               check field as the tap leaves it, csum_start/offset of a
 *               GSO frame), so mutations get past vnet_hdr_parse(); bit
 *               7: --pmtud off
 *   bytes 1-2   mss_cap of gso_plan() on its own, big-endian (0: none);
 *               also the path budget of xmit_frame() (0: 1514)
 *   bytes 3-5   VNI
 *   bytes 6-9   GRE key
 *   bytes 10-13 GRE sequence number of the first segment; its top bit
 *               also says --mode tun (the rest is a tun's IP packet, no
 *               Ethernet; VXLAN, which carries none, becomes VXLAN-GPE:
 *               fuzz_encap_fit()); its low byte
 *               also sets the transmit side: bit 0 --tos inherit, bit 1
 *               --df inherit, bit 2 one source socket (else 8), bit 3 UDP
 *               GSO off, bit 4 no DF socket, bit 5 an IPv6 underlay, bit
 *               6 a connected socket (no msg_name), bit 7 the first
 *               read's messages submitted before the second read
 *   bytes 14-23 struct virtio_net_hdr, little-endian fields: flags,
 *               gso_type, hdr_len, gso_size, csum_start, csum_offset
 *   the rest    the Ethernet frame, or in a tun the IP packet
 */
#define TX_CFG_LEN 14
#define TX_HDR_LEN (TX_CFG_LEN + 10)

/* Tap reads of the frame in one batch, as tx.c reads a batch. */
#define TX_READS 2

#define TX_TCP_FIN 0x01
#define TX_TCP_PSH 0x08
#define TX_TCP_CWR 0x80

struct tx_in {
	struct encap_cfg cfg;
	uint16_t mss_cap;
	bool want_sum;
	uint32_t seq;
	bool pmtud;
	uint8_t path;		/* TX_TOS_INHERIT ... TX_SUBMIT */
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

/* gso_plan() on its own: one segment in use before it, then its own. */
static uint8_t arena[(VNET_MAX_SEGS + 1) * GSO_SLOT];
static struct seg segs[VNET_MAX_SEGS + 1];
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

/* Is the frame a tun's IP packet (TX_TUN)? Set by the input. */
static bool tx_l3;

/*
 * Ethernet, up to two VLAN tags, or a tun's bare packet whose version
 * nibble says its family; IP; the L4 header if TCP or UDP.
 */
static bool tx_walk(uint8_t *d, uint32_t len, struct tx_layout *l)
{
	uint32_t room;
	uint16_t type = 0;
	bool ok;

	memset(l, 0, sizeof(*l));
	if (tx_l3 && len && (d[0] >> 4 == 4 || d[0] >> 4 == 6))
		type = d[0] >> 4 == 4 ? 0x0800 : 0x86dd;
	else if (tx_l3)
		return false;
	else
		l->l3 = fuzz_l3_off(d, len, &type);
	if (!l->l3 && !tx_l3)
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
 * The least a frame must hold and a checksum start must pass: an
 * Ethernet header, or in a tun an IPv4 header (vnet.h).
 */
static uint32_t tx_min(void)
{
	return tx_l3 ? 20 : 14;
}

/*
 * Headers that lie are never taken (issue 5, "Bad input"): an unknown
 * gso_type, ECN without TCP, GSO without a size or without NEEDS_CSUM, a
 * csum_start in the Ethernet header (a tun's smallest IP header) or a
 * check field past the frame.
 */
static void tx_check_refused(const struct virtio_net_hdr *h, size_t len,
			     int err)
{
	uint8_t base = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	bool tcp = base == VIRTIO_NET_HDR_GSO_TCPV4 ||
		   base == VIRTIO_NET_HDR_GSO_TCPV6;
	bool csum = h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;

	FUZZ_CHECK(err >= DROP_NONE && err < DROP__MAX);
	if (err)
		return;
	FUZZ_CHECK(len >= tx_min() && h->hdr_len <= len);
	FUZZ_CHECK(tcp || base == VIRTIO_NET_HDR_GSO_NONE ||
		 base == VIRTIO_NET_HDR_GSO_UDP_L4);
	FUZZ_CHECK(tcp || !(h->gso_type & VIRTIO_NET_HDR_GSO_ECN));
	FUZZ_CHECK(!base || (h->gso_size && csum));
	FUZZ_CHECK(!csum || (h->csum_start >= tx_min() &&
			   (uint32_t)h->csum_start + h->csum_offset + 2 <=
				   len));
}

/* End of the data a segment carries: the IP datagram, else the frame. */
static uint32_t tx_data_end(const struct frame *f)
{
	const uint8_t *ip = f->data + f->l3_off;
	uint32_t end = f->len;

	if (f->ip && f->ethertype == 0x0800)
		end = f->l3_off + pkt_get16(ip + 2);
	else if (f->ip && f->ethertype == 0x86dd)
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
	/* A tun takes IP alone (vnet_hdr_parse_ip()), at offset 0. */
	FUZZ_CHECK(!tx_l3 || (f->ip && !f->l3_off));
	FUZZ_CHECK(f->ip == (f->l3_off != 0) || tx_l3);
	if (f->ip) {
		FUZZ_CHECK(tx_l3 || f->l3_off == 14 || f->l3_off == 18 ||
			 f->l3_off == 22);
		FUZZ_CHECK(f->ethertype == 0x0800 || f->ethertype == 0x86dd);
		FUZZ_CHECK(f->hdr_len >= f->l3_off + (f->ethertype == 0x0800 ?
							    20u : 40u));
	}
	end = tx_data_end(f);
	FUZZ_CHECK(f->hdr_len <= end);
	if (f->l4_off) {
		FUZZ_CHECK(f->ip && f->l4_off > f->l3_off);
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
static uint32_t tx_mss(const struct frame *f, uint16_t mss_cap)
{
	uint32_t mss = f->gso_size;

	if (f->l4_proto == IPPROTO_TCP && mss_cap && mss_cap < mss)
		mss = mss_cap;
	return mss;
}

/* The segment count gso.h promises, or -EINVAL; room is not counted. */
static int tx_want_segs(const struct frame *f, uint16_t mss_cap)
{
	uint32_t end = tx_data_end(f), need = 0, mss, total;

	if (!f->gso) {
		if (f->needs_csum)
			need = (uint32_t)f->csum_start + f->csum_offset + 2;
		return need > GSO_HDR_MAX ? -EINVAL : 1;
	}
	if (f->hdr_len > GSO_HDR_MAX)
		return -EINVAL;
	mss = tx_mss(f, mss_cap);
	total = end - f->hdr_len;
	return total ? (int)((total + mss - 1) / mss) : 1;
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
		FUZZ_CHECK(pkt_fold(pkt_pseudo(ip, f->l4_proto,
					       len - f->l4_off) +
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
			    const uint8_t *slot)
{
	FUZZ_CHECK(s->hdr >= slot + GSO_HEADROOM);
	FUZZ_CHECK(s->hdr_len <= GSO_HDR_MAX);
	FUZZ_CHECK(s->hdr + s->hdr_len <= slot + GSO_SLOT);
	FUZZ_CHECK(s->payload >= f->data);
	FUZZ_CHECK(s->payload_len <= (size_t)(f->data + f->len - s->payload));
	FUZZ_CHECK(seg_len(s) >= tx_min());
}

/*
 * The n segments gso_plan() made of f with mss_cap and want_sum, segment
 * k in the slot at slots + k * GSO_SLOT: what gso.h promises, each one
 * against tcp_gso_segment() or skb_checksum_help().
 */
static void tx_check_segs(const struct frame *f, const struct seg *sg, int n,
			  const uint8_t *slots, uint16_t mss_cap,
			  bool want_sum)
{
	uint32_t end = tx_data_end(f), off = 0, k, len, mss;
	bool seed_ok;

	seed_ok = f->gso && tx_seed_ok(f, end);
	mss = f->gso ? tx_mss(f, mss_cap) : 0;
	for (k = 0; k < (uint32_t)n; k++) {
		const struct seg *s = &sg[k];

		tx_check_layout(f, s, slots + (size_t)k * GSO_SLOT);
		len = tx_seg_bytes(s);
		FUZZ_CHECK(s->sum_valid || (!f->gso && !f->needs_csum &&
					    !want_sum));
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
}

static bool tx_all(const void *p, uint8_t v, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

/*
 * gso_plan() on its own, with caps and sums the transmit path never asks
 * for (any mss_cap, want_sum without a GRE checksum), appended behind a
 * segment already in the arena that it must leave alone; VNET_MAX_SEGS
 * are left, which a frame vnet_hdr_parse() took fills without a cap.
 */
static void tx_plan(const struct frame *f, const struct tx_in *in)
{
	int want = tx_want_segs(f, in->mss_cap), n;
	struct seg_arena a;

	if (want > VNET_MAX_SEGS)
		want = -ENOSPC;
	memset(arena, 0x5a, GSO_SLOT);
	memset(segs, 0x5a, sizeof(segs[0]));
	memset(segs + 1, 0xa5, sizeof(segs[0]) * 2);
	seg_arena_init(&a, arena, segs, VNET_MAX_SEGS + 1);
	a.n = 1;
	n = gso_plan(f, &a, in->mss_cap, in->want_sum);
	FUZZ_CHECK(n == want);
	FUZZ_CHECK(a.n == 1u + (n > 0 ? (unsigned int)n : 0u));
	FUZZ_CHECK(tx_all(arena, 0x5a, GSO_SLOT));
	FUZZ_CHECK(tx_all(segs, 0x5a, sizeof(segs[0])));
	if (n > 0)
		tx_check_segs(f, segs + 1, n, arena + GSO_SLOT, in->mss_cap,
			      in->want_sum);
}

/* ---- the encapsulation, parsed back ------------------------------------- */

/*
 * What the header says the payload is: Ethernet in a tap (GRE's TEB,
 * GPE's next protocol 3), in a tun the version of the segment's own IP
 * header (0x0800 or 0x86dd; 1 or 2).
 */
static uint16_t tx_want_proto(const struct encap_cfg *c,
			      const struct seg *s, bool gre)
{
	bool v6 = s->hdr[0] >> 4 == 6;

	if (!c->l3)
		return gre ? 0x6558 : 3;
	if (gre)
		return v6 ? 0x86dd : 0x0800;
	return v6 ? 2 : 1;
}

static void tx_check_hdr(const struct encap_cfg *c, const uint8_t *h,
			 const struct seg *s, uint32_t seq)
{
	enum fuzz_hdr kind = fuzz_hdr_of(c->type);
	const uint8_t *opt = h + 4;
	uint16_t flags = 0;

	if (kind != FUZZ_HDR_GRE) {
		/* RFC 7348's I flag; GPE's P and a next protocol too */
		FUZZ_CHECK(pkt_get32(h) == (kind == FUZZ_HDR_VXLAN ?
					    0x08000000 :
					    0x0c000000u |
						    tx_want_proto(c, s,
								  false)));
		FUZZ_CHECK(pkt_get32(h + 4) == (c->vni & 0xffffff) << 8);
		return;
	}
	flags = (c->gre_csum ? 0x8000 : 0) | (c->has_key ? 0x2000 : 0) |
		(c->gre_seq ? 0x1000 : 0);
	FUZZ_CHECK(pkt_get16(h) == flags &&
		   pkt_get16(h + 2) == tx_want_proto(c, s, true));
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

/*
 * Segment s as the peer receives it, outer headers off: the header
 * xmit_frame() built in front of it for GRE sequence number seq, the GRE
 * checksum over all of it, and encap_parse() taking it back.
 */
static void tx_check_encap(const struct encap_cfg *c, const struct frame *f,
			   const struct seg *s, uint32_t seq)
{
	size_t hl = encap_hdr_len(c);
	const uint8_t *h = s->hdr - hl;
	bool gre = fuzz_hdr_of(c->type) == FUZZ_HDR_GRE;
	struct encap_rx rx;
	uint8_t *pkt;
	uint32_t len;

	FUZZ_CHECK(hl <= GSO_HEADROOM);
	tx_check_hdr(c, h, s, seq);
	len = (uint32_t)hl + seg_len(s);
	pkt = malloc(len);
	FUZZ_CHECK(pkt);
	memcpy(pkt, h, hl + s->hdr_len);
	memcpy(pkt + hl + s->hdr_len, s->payload, s->payload_len);
	if (gre && c->gre_csum && !tx_lco_sound(f)) {
		free(pkt);
		return;
	}
	if (gre && c->gre_csum)
		FUZZ_CHECK(pkt_fold(pkt_sum(pkt, len, 0)) == 0xffff);
	FUZZ_CHECK(encap_parse(c, pkt, len, &rx) == DROP_NONE);
	FUZZ_CHECK(rx.inner_off == hl);
	FUZZ_CHECK(rx.sum_valid == (gre && c->gre_csum));
	if (rx.sum_valid)
		FUZZ_CHECK(pkt_ones_eq(pkt_wsum16(rx.inner_sum),
				       pkt_fold(pkt_sum(pkt + hl, len - hl,
							0))));
	free(pkt);
}

/* ---- the input ----------------------------------------------------------- */

static void tx_read_in(struct tx_in *in, const uint8_t *d)
{
	const uint8_t *v = d + TX_CFG_LEN;

	memset(in, 0, sizeof(*in));
	fuzz_encap_cfg(&in->cfg, d, pkt_get32(d + 10) & TX_TUN);
	FUZZ_CHECK(encap_carries(in->cfg.type, in->cfg.l3));
	tx_l3 = in->cfg.l3;
	/* gsotun asks for sums whenever the GRE checksum needs them. */
	in->want_sum = (d[0] & TX_WANT_SUM) || in->cfg.gre_csum;
	in->pmtud = !(d[0] & TX_NO_PMTUD);
	in->mss_cap = pkt_get16(d + 1);
	in->seq = pkt_get32(d + 10);
	in->path = d[13];
	in->vh.flags = v[0];
	in->vh.gso_type = v[1];
	in->vh.hdr_len = tx_get_le16(v + 2);
	in->vh.gso_size = tx_get_le16(v + 4);
	in->vh.csum_start = tx_get_le16(v + 6);
	in->vh.csum_offset = tx_get_le16(v + 8);
}

/* ---- ICMP "too big" and fragments: what a path budget leads to -------- */

static uint8_t icmp[PMTU_ICMP_MAX];
static uint8_t fragbuf[VNET_FRAME_MAX];

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

/* Does the frame forbid fragmentation: IPv6 always, IPv4 with DF. */
static bool tx_df(const struct frame *f)
{
	if (!f->ip)
		return false;
	return f->ethertype == 0x86dd ||
	       (pkt_get16(f->data + f->l3_off + 6) & 0x4000);
}

/*
 * What pmtu_fragment() is to make of segment e for budget (pmtu.h): 1
 * when it fits (a copy), -EINVAL with no room for the headers and 8 data
 * bytes, a wrong header checksum or offsets past 65535, else as many as
 * ip_do_fragment() makes.
 */
static int tx_ref_frags(const struct frame *f, const struct seg *e,
			uint32_t budget)
{
	const uint8_t *ip = e->hdr + f->l3_off;
	uint32_t ihl = (ip[0] & 15) * 4u, hl = f->l3_off + ihl;
	uint32_t data, room, step;

	if (seg_len(e) <= budget)
		return 1;
	if (tx_naive_sum(ip, ihl, 0) != 0xffff || budget < hl + 8)
		return -EINVAL;
	data = seg_len(e) - hl;
	room = budget - hl;
	step = room & ~7u;
	if ((pkt_get16(ip + 6) & 0x1fff) * 8u + data > 65535)
		return -EINVAL;
	return (int)(1 + (data - room + step - 1) / step);
}

/* Fragment o is the very segment e, a copy. */
static void tx_check_copy(const struct seg *e, const struct seg *o)
{
	uint32_t len = tx_seg_bytes(e);

	FUZZ_CHECK(o->hdr_len == e->hdr_len && seg_len(o) == len);
	FUZZ_CHECK(!memcmp(o->hdr, segbuf, o->hdr_len));
	FUZZ_CHECK(o->payload == e->payload && o->sum_off == e->sum_off &&
		   o->sum_valid == e->sum_valid &&
		   (!e->sum_valid || o->sum == e->sum));
}

/*
 * One fragment of e (in segbuf, IP header at l3 of ihl bytes) carrying
 * its data from at: RFC 791 section 3.2 as ip_do_fragment() does it.
 */
static uint32_t tx_check_frag(const struct frame *f, const struct seg *o,
			      uint32_t ihl, uint32_t data, uint32_t at,
			      uint32_t budget)
{
	const uint8_t *eip = segbuf + f->l3_off, *ip = fragbuf + f->l3_off;
	uint32_t hl = f->l3_off + ihl, len = seg_len(o), dlen, i;
	uint32_t step = (budget - hl) & ~7u;
	uint16_t efo = pkt_get16(eip + 6), fo;
	bool last;

	FUZZ_CHECK(len <= budget && o->hdr_len >= hl &&
		   o->hdr_len <= GSO_HDR_MAX);
	memcpy(fragbuf, o->hdr, o->hdr_len);
	memcpy(fragbuf + o->hdr_len, o->payload, o->payload_len);
	dlen = len - hl;
	last = at + dlen >= data;
	FUZZ_CHECK(last ? at + dlen == data : dlen == step);
	FUZZ_CHECK(!memcmp(fragbuf, segbuf, f->l3_off));
	FUZZ_CHECK(ip[0] == eip[0] && ip[1] == eip[1] &&
		   !memcmp(ip + 4, eip + 4, 2) && !memcmp(ip + 8, eip + 8, 2) &&
		   !memcmp(ip + 12, eip + 12, 8));
	FUZZ_CHECK(pkt_get16(ip + 2) == ihl + dlen);
	FUZZ_CHECK(tx_naive_sum(ip, ihl, 0) == 0xffff);
	fo = pkt_get16(ip + 6);
	/* ip_frag_next(): DF and the reserved bit go, MF but on the last. */
	FUZZ_CHECK(!(fo & 0xc000));
	FUZZ_CHECK((fo & 0x1fff) * 8u == (efo & 0x1fff) * 8u + at);
	FUZZ_CHECK(!!(fo & 0x2000) == (!last || (efo & 0x2000)));
	/* Options: as they were, or NOP'd past the first (not copied). */
	for (i = 20; i < ihl; i++)
		FUZZ_CHECK(ip[i] == eip[i] ||
			   (ip[i] == 1 && (at || (efo & 0x1fff))));
	FUZZ_CHECK(!memcmp(fragbuf + hl, segbuf + hl + at, dlen));
	return dlen;
}

/*
 * The fragments of segment e, o[*k] on: one copy when e fits, else data
 * that reassembles exactly e's, each fragment as large as the budget
 * lets it be.
 */
static void tx_check_frag_group(const struct frame *f, const struct seg *e,
				const struct seg *o, unsigned int n_o,
				unsigned int *k, uint32_t budget)
{
	uint32_t ihl, data, at = 0;

	FUZZ_CHECK(*k < n_o);
	if (seg_len(e) <= budget) {
		tx_check_copy(e, &o[(*k)++]);
		return;
	}
	tx_seg_bytes(e);
	ihl = (segbuf[f->l3_off] & 15) * 4u;
	data = seg_len(e) - f->l3_off - ihl;
	while (at < data) {
		FUZZ_CHECK(*k < n_o);
		at += tx_check_frag(f, &o[(*k)++], ihl, data, at, budget);
	}
}

/* ---- xmit_frame(): the transmit path --------------------------------- */

/* The transmit side's arena, as tx.c sizes it, and a copy of it. */
static uint8_t xslots[SENDQ_SEGS * GSO_SLOT];
static struct seg xsegs[SENDQ_SEGS];
static uint8_t was_slots[SENDQ_SEGS * GSO_SLOT];
static struct seg was_segs[SENDQ_SEGS];
/* Segments planned here to check fragments against. */
static uint8_t rslots[VNET_MAX_SEGS * GSO_SLOT];
static struct seg rsegs[VNET_MAX_SEGS];
static struct sendq Q;

/* A segment handed to sendq_add(), as it was handed. */
struct tx_sent {
	struct seg s;
	uint8_t src;
	int tos;
	bool df;		/* and a DF socket exists */
};

static struct tx_sent sent[SENDQ_SEGS];

/* The transmit side over one batch of reads. */
struct tx_path {
	const struct tx_in *in;
	struct xmit_cfg cfg;
	struct sendq_params sp;
	struct sockaddr_in peer4;
	struct sockaddr_in6 peer6;
	struct sendq_dst dst;
	const struct sendq_dst *to;	/* NULL: a connected socket */
	uint32_t seq;		/* the next GRE sequence number */
	struct seg_arena a;
	size_t hl;		/* encap_hdr_len() */
	unsigned int n_sent;
	unsigned int sub_msgs;	/* messages submitted (TX_SUBMIT) */
	unsigned int sub_segs;	/* and their segments */
	bool have_prev;		/* a read before was sent: */
	struct xmit_out prev;	/* what xmit_frame() said of it */
};

static void tx_path_init(struct tx_path *t, const struct tx_in *in)
{
	memset(t, 0, sizeof(*t));
	t->in = in;
	t->cfg.encap = &in->cfg;
	t->cfg.budget = in->mss_cap ? in->mss_cap : 1514;
	t->cfg.pmtud = in->pmtud;
	t->cfg.tos_inherit = in->path & TX_TOS_INHERIT;
	t->cfg.df_inherit = in->path & TX_DF_INHERIT;
	t->cfg.n_src = in->path & TX_ONE_SRC ? 1 : 8;
	t->sp.family = in->path & TX_UNDERLAY6 ? AF_INET6 : AF_INET;
	t->sp.gso = !(in->path & TX_NO_GSO);
	t->sp.df_sock = !(in->path & TX_NO_DF_SOCK);
	t->peer4.sin_family = AF_INET;
	t->peer6.sin6_family = AF_INET6;
	if (t->sp.family == AF_INET6) {
		t->dst.addr = (const struct sockaddr *)&t->peer6;
		t->dst.len = sizeof(t->peer6);
	} else {
		t->dst.addr = (const struct sockaddr *)&t->peer4;
		t->dst.len = sizeof(t->peer4);
	}
	t->to = in->path & TX_CONNECTED ? NULL : &t->dst;
	t->seq = in->seq;
	t->hl = encap_hdr_len(&in->cfg);
	seg_arena_init(&t->a, xslots, xsegs, SENDQ_SEGS);
	sendq_reset(&Q);
}

/* ---- sendq_add(): segments into messages ------------------------------ */

static uint32_t tx_wire(const struct tx_path *t, const struct seg *s)
{
	return (uint32_t)t->hl + seg_len(s);
}

static bool tx_iov_is(const struct tx_path *t, const struct iovec *v,
		      const struct seg *s)
{
	return v[0].iov_base == s->hdr - t->hl &&
	       v[0].iov_len == t->hl + s->hdr_len &&
	       v[1].iov_base == s->payload && v[1].iov_len == s->payload_len;
}

static bool tx_peer_is(const struct tx_path *t, const struct msghdr *h)
{
	return h->msg_name == (t->to ? (const void *)t->to->addr : NULL) &&
	       h->msg_namelen == (t->to ? t->to->len : 0);
}

/* A message's own fields and control, and its last segment resent alone. */
static void tx_check_msg(const struct tx_path *t, unsigned int m,
			 const struct tx_sent *x)
{
	const struct sendq_msg *g = &Q.msgs[m];
	uint32_t size = tx_wire(t, &x[0].s), bytes = 0, len;
	union sendq_cmsg cbuf;
	struct msghdr one;
	int gso, tos;
	unsigned int j;

	FUZZ_CHECK(g->msg.msg_iovlen == 2u * g->segs);
	FUZZ_CHECK(t->sp.gso || g->segs == 1);
	FUZZ_CHECK(g->segs <= UDP_GSO_MAX_SEGS);
	for (j = 0; j < g->segs; j++) {
		len = tx_wire(t, &x[j].s);
		FUZZ_CHECK(tx_iov_is(t, &g->msg.msg_iov[2 * j], &x[j].s));
		FUZZ_CHECK(x[j].src == x[0].src && x[j].tos == x[0].tos &&
			   x[j].df == x[0].df);
		/* udp_send_skb(): the first's size, only the last shorter. */
		FUZZ_CHECK(j + 1 == g->segs ? len <= size : len == size);
		bytes += len;
	}
	FUZZ_CHECK(g->segs == 1 || bytes <= UDP_GSO_MAX_BYTES);
	FUZZ_CHECK(g->size == size && g->bytes == bytes &&
		   g->src == x[0].src && g->tos == x[0].tos &&
		   g->df == x[0].df);
	FUZZ_CHECK(cmsgs_of(&g->msg, t->sp.family, &gso, &tos));
	FUZZ_CHECK(gso == (g->segs > 1 ? (int)size : 0) && tos == x[0].tos);
	FUZZ_CHECK(tx_peer_is(t, &g->msg));
	if (g->segs < 2)
		return;
	j = g->segs - 1u;
	sendq_single(&Q, &t->sp, m, j, &one, &cbuf);
	FUZZ_CHECK(one.msg_iovlen == 2 &&
		   one.msg_iov == &g->msg.msg_iov[2 * j]);
	FUZZ_CHECK(cmsgs_of(&one, t->sp.family, &gso, &tos) && !gso && tos == x[0].tos);
	FUZZ_CHECK(tx_peer_is(t, &one));
}

/*
 * Message m was closed where sendq.h says it must be: the first segment
 * of the next could not have joined it (another socket, TOS or DF, a
 * shorter segment ended it, the next is longer, 128 segments or 64000
 * bytes, GSO off, or m was submitted).
 */
static void tx_check_split(const struct tx_path *t, unsigned int m,
			   const struct tx_sent *x, const struct tx_sent *next)
{
	const struct sendq_msg *g = &Q.msgs[m];
	uint32_t len = tx_wire(t, &next->s);
	bool closed = tx_wire(t, &x[g->segs - 1].s) < g->size;

	FUZZ_CHECK(!t->sp.gso || m < t->sub_msgs || closed ||
		   next->src != x[0].src || next->tos != x[0].tos ||
		   next->df != x[0].df || len > g->size ||
		   g->segs == UDP_GSO_MAX_SEGS ||
		   g->bytes + len > UDP_GSO_MAX_BYTES);
}

/* The queue against the segments handed to it, in order. */
static void tx_check_sendq(const struct tx_path *t)
{
	unsigned int m, k = 0, sub = 0;

	FUZZ_CHECK(Q.n_segs == t->n_sent && Q.n_msgs <= Q.n_segs);
	FUZZ_CHECK(Q.submitted <= Q.n_msgs);
	FUZZ_CHECK(sendq_pending(&Q) == Q.n_msgs - Q.submitted);
	for (m = 0; m < Q.n_msgs; m++) {
		const struct sendq_msg *g = &Q.msgs[m];

		FUZZ_CHECK(g->segs >= 1 && k + g->segs <= t->n_sent);
		tx_check_msg(t, m, &sent[k]);
		if (m + 1 < Q.n_msgs)
			tx_check_split(t, m, &sent[k], &sent[k + g->segs]);
		if (m < t->sub_msgs)
			sub += g->segs;
		k += g->segs;
	}
	FUZZ_CHECK(k == t->n_sent);
	/* A submitted message is never extended. */
	FUZZ_CHECK(sub == t->sub_segs);
}

/* As tx.c's tx_flush(): what the arena holds is sent, both emptied. */
static void tx_flush(struct tx_path *t)
{
	tx_check_sendq(t);
	sendq_reset(&Q);
	FUZZ_CHECK(!Q.n_msgs && !Q.n_segs && !Q.submitted);
	t->a.n = 0;
	t->n_sent = 0;
	t->sub_msgs = 0;
	t->sub_segs = 0;
}

static void tx_queue(struct tx_path *t, const struct xmit_out *o)
{
	unsigned int k;

	/* tx.c: the queue holds as many segments as the arena. */
	FUZZ_CHECK(!sendq_add(&Q, &t->sp, t->to, o->src,
			      &t->a.segs[o->first], (int)o->n, t->hl, o->tos,
			      o->df));
	for (k = 0; k < o->n; k++) {
		FUZZ_CHECK(t->n_sent < SENDQ_SEGS);
		sent[t->n_sent].s = t->a.segs[o->first + k];
		sent[t->n_sent].src = (uint8_t)o->src;
		sent[t->n_sent].tos = o->tos;
		sent[t->n_sent].df = o->df && t->sp.df_sock;
		t->n_sent++;
	}
}

/* ---- xmit_frame()'s outcome against the references --------------------- */

/* The frame xmit_frame() parsed is ours, but for a cut's rewrite. */
static void tx_check_parsed(const struct frame *p, const struct xmit_out *o)
{
	const struct frame *f = &o->f;

	FUZZ_CHECK(f->data == p->data && f->len == p->len &&
		   f->end == p->end && f->ethertype == p->ethertype &&
		   f->l3_off == p->l3_off && f->l4_off == p->l4_off &&
		   f->hdr_len == p->hdr_len && f->l4_proto == p->l4_proto &&
		   f->ecn == p->ecn && f->needs_csum == p->needs_csum &&
		   f->csum_start == p->csum_start &&
		   f->csum_offset == p->csum_offset);
	if (f->gso == p->gso) {
		FUZZ_CHECK(f->gso_size == p->gso_size);
		return;
	}
	/*
	 * pmtu.h: a TCP frame with NEEDS_CSUM at its check field is a
	 * super-frame of one segment, to be cut.
	 */
	FUZZ_CHECK(o->fit == PMTU_FIT_CUT || o->fit == PMTU_FIT_DROP);
	FUZZ_CHECK(p->gso == FRAME_GSO_NONE && p->l4_proto == IPPROTO_TCP &&
		   p->l4_off && p->needs_csum && p->csum_start == p->l4_off &&
		   p->csum_offset == 16);
	FUZZ_CHECK(f->gso == (p->ethertype == 0x0800 ? FRAME_GSO_TCP4 :
						       FRAME_GSO_TCP6));
	FUZZ_CHECK(f->gso_size == p->len - p->hdr_len);
}

/* RFC 6040 section 4.1 under --tos inherit: DSCP and ECN, CE as ECT(0). */
static int tx_ref_tos(const struct frame *f)
{
	const uint8_t *ip = f->data + f->l3_off;
	int tos;

	if (!f->ip)
		return 0;
	if (f->ethertype == 0x0800)
		tos = ip[1];
	else
		tos = (ip[0] & 0x0f) << 4 | ip[1] >> 4;
	return (tos & 3) == 3 ? (tos & ~3) | 2 : tos;
}

/*
 * SEND and CUT: the segments of the frame with the cut a path budget asks
 * (as large as it lets them be). Returns what xmit_frame() must return
 * with room segments free, the count in *n.
 */
static int tx_ref_plan(const struct tx_path *t, const struct frame *f,
		       enum pmtu_fit fit, unsigned int room, uint16_t *cap,
		       unsigned int *n)
{
	int want;

	*cap = 0;
	if (fit == PMTU_FIT_CUT)
		*cap = (uint16_t)(t->cfg.budget - f->hdr_len);
	want = tx_want_segs(f, *cap);
	if (want < 0)
		return DROP_TX_SEGMENT;
	if ((unsigned int)want > room)
		return -ENOSPC;
	*n = (unsigned int)want;
	return DROP_NONE;
}

/*
 * FRAGMENT: the frame's segments (planned here into rsegs, m of them,
 * checked), then each one's fragments appended behind them all
 * (xmit.c), in order; the first that cannot be made decides.
 */
static int tx_ref_frag(const struct tx_path *t, const struct frame *f,
		       unsigned int room, unsigned int *m, unsigned int *n)
{
	bool sum = t->in->cfg.gre_csum;
	struct seg_arena r;
	int want, k, j;

	want = tx_want_segs(f, 0);
	if (want < 0)
		return DROP_TX_SEGMENT;
	if ((unsigned int)want > room)
		return -ENOSPC;
	seg_arena_init(&r, rslots, rsegs, VNET_MAX_SEGS);
	FUZZ_CHECK(gso_plan(f, &r, 0, sum) == want);
	tx_check_segs(f, rsegs, want, rslots, 0, sum);
	*m = (unsigned int)want;
	room -= *m;
	*n = 0;
	for (j = 0; j < want; j++) {
		k = tx_ref_frags(f, &rsegs[j], t->cfg.budget);
		if (k < 0)
			return DROP_TX_SEGMENT;
		if ((unsigned int)k > room)
			return -ENOSPC;
		room -= (unsigned int)k;
		*n += (unsigned int)k;
	}
	return DROP_NONE;
}

/*
 * The segments xmit_frame() gave: each header block in a slot the arena
 * holds, with the encapsulation in its headroom, numbered on from seq0.
 */
static void tx_check_out(const struct tx_path *t, const struct xmit_out *o,
			 uint32_t seq0)
{
	unsigned int k;

	for (k = 0; k < o->n; k++) {
		const struct seg *s = &t->a.segs[o->first + k];
		size_t slot = (size_t)(s->hdr - xslots) / GSO_SLOT;

		FUZZ_CHECK(s->hdr >= xslots && slot < t->a.n);
		FUZZ_CHECK(s->hdr - t->hl >= xslots + slot * GSO_SLOT);
		tx_check_encap(&t->in->cfg, &o->f, s, seq0 + k);
	}
	FUZZ_CHECK(o->tos == (t->cfg.tos_inherit ? tx_ref_tos(&o->f) : -1));
	FUZZ_CHECK(o->df == (t->cfg.df_inherit && tx_df(&o->f)));
	FUZZ_CHECK(o->src < t->cfg.n_src);
	/* The same frame again: the same flow, the same socket and TOS. */
	if (t->have_prev)
		FUZZ_CHECK(o->src == t->prev.src && o->tos == t->prev.tos &&
			   o->df == t->prev.df);
}

/* A frame that fits the path is sent whole, but small IPv6 (RFC 8200). */
static void tx_check_fits(const struct tx_path *t, const struct xmit_out *o)
{
	const struct frame *f = &o->f;
	unsigned int k;

	if (!t->cfg.pmtud)
		return;
	if (f->ethertype == 0x86dd && f->ip && !f->gso &&
	    f->end - f->l3_off <= 1280)
		return;
	for (k = 0; k < o->n; k++)
		FUZZ_CHECK(seg_len(&t->a.segs[o->first + k]) <= t->cfg.budget);
}

/*
 * What xmit_frame() did with a frame it parsed, by what fitting it to
 * the path asked; the result it must have returned.
 */
static int tx_check_fit(struct tx_path *t, const struct xmit_out *o,
			unsigned int n0, unsigned int *m, unsigned int *n)
{
	const struct frame *f = &o->f;
	uint32_t budget = t->cfg.budget;
	uint16_t cap = 0;
	size_t len;
	int want;

	*m = 0;
	switch (o->fit) {
	case PMTU_FIT_SEND:
	case PMTU_FIT_CUT:
		if (o->fit == PMTU_FIT_CUT)
			FUZZ_CHECK(f->gso == FRAME_GSO_TCP4 ||
				   f->gso == FRAME_GSO_TCP6);
		want = tx_ref_plan(t, f, o->fit, t->a.cap - n0, &cap, n);
		if (want == DROP_NONE)
			tx_check_segs(f, &t->a.segs[n0], (int)*n,
				      xslots + (size_t)n0 * GSO_SLOT, cap,
				      t->in->cfg.gre_csum);
		return want;
	case PMTU_FIT_FRAGMENT:
		FUZZ_CHECK(t->cfg.pmtud && f->ip &&
			   f->ethertype == 0x0800 && !tx_df(f));
		return tx_ref_frag(t, f, t->a.cap - n0, m, n);
	case PMTU_FIT_ICMP:
		FUZZ_CHECK(t->cfg.pmtud && tx_df(f));
		len = pmtu_icmp_build(f, pmtu_icmp_mtu(f, budget), icmp,
				      sizeof(icmp));
		if (len)
			tx_check_icmp(f, len);
		return DROP_TX_TOO_BIG;
	case PMTU_FIT_DROP:
		/* Not IP, or a cut that leaves not even 8 bytes of data. */
		FUZZ_CHECK((!f->ip && t->cfg.pmtud) ||
			   ((f->gso == FRAME_GSO_TCP4 ||
			     f->gso == FRAME_GSO_TCP6) &&
			    budget < f->hdr_len + 8u));
		return DROP_TX_TOO_BIG;
	}
	FUZZ_CHECK(!"fit out of range");
	return 0;
}

/*
 * One xmit_frame() call with the arena as it is: the segments already in
 * it stay as they were, and what it returns and appends is what the
 * references say. perr: what vnet_hdr_parse() said of the frame, p.
 */
static int tx_xmit(struct tx_path *t, const uint8_t *rd, size_t rlen,
		   enum drop perr, const struct frame *p, struct xmit_out *o)
{
	unsigned int n0 = t->a.n, m, n = 0, j, k = 0;
	uint32_t seq0 = t->seq;
	int r, want;

	memcpy(was_slots, xslots, (size_t)n0 * GSO_SLOT);
	memcpy(was_segs, xsegs, n0 * sizeof(xsegs[0]));
	r = xmit_frame(&t->cfg, &t->seq, rd, rlen, &t->a, o);
	FUZZ_CHECK(!memcmp(was_slots, xslots, (size_t)n0 * GSO_SLOT));
	FUZZ_CHECK(!memcmp(was_segs, xsegs, n0 * sizeof(xsegs[0])));
	if (perr) {
		FUZZ_CHECK(r == (int)perr && !o->parsed);
		FUZZ_CHECK(t->a.n == n0 && t->seq == seq0);
		return r;
	}
	FUZZ_CHECK(o->parsed);
	tx_check_parsed(p, o);
	want = tx_check_fit(t, o, n0, &m, &n);
	FUZZ_CHECK(r == want);
	if (r) {
		/* Nothing appended, not even the segments before fragments. */
		FUZZ_CHECK(t->a.n == n0 && t->seq == seq0);
		return r;
	}
	FUZZ_CHECK(o->n == n && o->first == n0 + m && t->a.n == o->first + n);
	FUZZ_CHECK(t->seq == seq0 + n);
	if (o->fit == PMTU_FIT_FRAGMENT) {
		for (j = 0; j < m; j++)
			tx_check_frag_group(&o->f, &rsegs[j],
					    &t->a.segs[o->first], o->n, &k,
					    t->cfg.budget);
		FUZZ_CHECK(k == o->n);
	} else {
		tx_check_fits(t, o);
		if (o->fit == PMTU_FIT_CUT)
			for (j = 0; j < o->n; j++)
				FUZZ_CHECK(seg_len(&t->a.segs[o->first + j]) <=
					   t->cfg.budget);
	}
	tx_check_out(t, o, seq0);
	return r;
}

/*
 * The frame read TX_READS times in one batch, as tx.c's tx_frame() takes
 * each read: a full arena is sent and emptied and the frame planned
 * again; what is planned goes to the send queue, checked when the arena
 * is emptied and at the end of the batch.
 */
static void tx_batch(const struct tx_in *in, const uint8_t *rd, size_t rlen,
		     enum drop perr, const struct frame *p)
{
	static struct tx_path t;
	struct xmit_out o;
	unsigned int i;
	int r;

	tx_path_init(&t, in);
	for (i = 0; i < TX_READS; i++) {
		if (i && (in->path & TX_SUBMIT)) {
			/* underlay_submit(): handed to the ring. */
			Q.submitted = Q.n_msgs;
			t.sub_msgs = Q.n_msgs;
			t.sub_segs = Q.n_segs;
		}
		r = tx_xmit(&t, rd, rlen, perr, p, &o);
		if (r == -ENOSPC && t.a.n) {
			tx_flush(&t);
			r = tx_xmit(&t, rd, rlen, perr, p, &o);
		}
		if (r)
			continue;
		tx_queue(&t, &o);
		t.prev = o;
		t.have_prev = true;
	}
	tx_check_sendq(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tx_in in;
	uint8_t *rd, *frame, *orig;
	struct frame f;
	size_t len;
	enum drop err;

	if (size < TX_HDR_LEN || size - TX_HDR_LEN > VNET_FRAME_MAX)
		return 0;
	tx_read_in(&in, data);
	len = size - TX_HDR_LEN;
	/*
	 * The tap read: the vnet header, then the frame up to the end of
	 * the buffer, so that a read past it is caught.
	 */
	rd = malloc(VNET_HDR_LEN + len);
	orig = malloc(len ? len : 1);
	FUZZ_CHECK(rd && orig);
	frame = rd + VNET_HDR_LEN;
	memcpy(frame, data + TX_HDR_LEN, len);
	if (data[0] & TX_FIX)
		tx_fix(frame, (uint32_t)len, &in);
	memcpy(rd, &in.vh, VNET_HDR_LEN);
	memcpy(orig, frame, len);

	err = vnet_hdr_parse_as(in.cfg.l3, &in.vh, frame, len, &f);
	tx_check_refused(&in.vh, len, err);
	if (err == DROP_NONE) {
		tx_check_frame(&in.vh, frame, len, &f);
		tx_plan(&f, &in);
	}
	tx_batch(&in, rd, VNET_HDR_LEN + len, err, &f);
	FUZZ_CHECK(!memcmp(frame, orig, len));
	free(rd);
	free(orig);
	return 0;
}
