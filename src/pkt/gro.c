// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gro: the receive side's inverse of gso: verify inner TCP (and UDP)
 * checksums and merge in-order segments of a flow into super-frames for
 * the tap.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "base/bytes.h"
#include "base/csum.h"
#include "base/proto.h"
#include "pkt/gro.h"

/* The smallest MSS a Linux sender uses (tcp_min_snd_mss's default). */
#define GRO_GSO_MSS_MIN 48

/*
 * tcp_gro_receive(): a segment with one of these ends its run (it is
 * merged first if it can be), and so one never starts a run; FIN and
 * PSH may differ from the first segment's flags, the others not, CWR
 * included: since Linux 6.15 (commit 4e4f7cefb130, "gro: prevent ACE
 * field corruption & better AccECN handling"; so in 6.18) CWR is a bit
 * of AccECN's ACE counter, whose changes must reach TCP. A segment with
 * CWR is never merged into a run ("flush = flags & TCP_FLAG_CWR"), and
 * as a run's flags are its first segment's, none is merged into it.
 */
#define GRO_TCP_FLUSH (TCP_F_URG | TCP_F_PSH | TCP_F_RST | \
		       TCP_F_SYN | TCP_F_FIN)
#define GRO_TCP_FREE (TCP_F_FIN | TCP_F_PSH)

/* What the TCP or UDP checksum of a segment says (gro_csum_check()). */
enum gro_csum {
	GRO_CSUM_BAD = 0,
	GRO_CSUM_GOOD,		/* verified */
	GRO_CSUM_SEED,		/* the pseudo-header seed: left partial */
	GRO_CSUM_NONE,		/* UDP over IPv4 sent without (RFC 768) */
	GRO_CSUM_UNKNOWN,	/* not looked at: the kernel verifies it */
};

/* One inner frame of the batch, parsed. */
struct gro_seg {
	struct frame f;
	uint8_t *data;		/* f.data, writable */
	uint32_t plen;		/* TCP or UDP payload length */
	uint32_t seq;		/* host order */
	uint32_t pseudo;	/* pseudo-header sum over the L4 length */
	uint16_t seed;		/* csum_fold16(pseudo), as in memory */
	uint8_t flags;		/* TCP flags */
	bool ipv6;
	const uint32_t *sum;	/* sum of the whole frame, if known */
	const uint8_t *tlv;	/* its tunnel options (gro_add_tlv()) */
	uint16_t tlv_len;
};

/* Addresses are copied out: in a frame they are only 2-byte aligned. */
static uint32_t gro_pseudo(const uint8_t *ip, bool ipv6, uint8_t proto,
			   uint32_t l4len)
{
	struct in6_addr s6, d6;
	struct in_addr s4, d4;

	if (ipv6) {
		memcpy(&s6, ip + 8, sizeof(s6));
		memcpy(&d6, ip + 24, sizeof(d6));
		return csum_pseudo6(&s6, &d6, proto, l4len);
	}
	memcpy(&s4, ip + 12, sizeof(s4));
	memcpy(&d4, ip + 16, sizeof(d4));
	return csum_pseudo4(&s4, &d4, proto, l4len);
}

/*
 * RFC 8200 section 8.1: the pseudo-header holds the final destination,
 * which is the IPv6 destination only once no segments are left in a
 * routing header. Before that the packet is on its way elsewhere and its
 * checksum cannot be verified here, as tcp6_gro_receive() cannot either:
 * it goes to the kernel as it came. The chain was validated by
 * frame_parse().
 */
static bool gro_ip6_routed(const struct gro_seg *s)
{
	const uint8_t *d = s->data;
	uint8_t next = d[s->f.l3_off + 6];
	uint32_t off = s->f.l3_off + 40u;

	while (off < s->f.l4_off) {
		if (next == IPPROTO_ROUTING && d[off + 3] != 0)
			return true;
		next = d[off];
		off += (d[off + 1] + 1u) * 8;
	}
	return false;
}

static void gro_seg_init(struct gro_seg *s, uint8_t *frame)
{
	const uint8_t *ip = frame + s->f.l3_off;
	const uint8_t *th = frame + s->f.l4_off;

	s->data = frame;
	s->ipv6 = s->f.ethertype == ETH_P_IPV6;
	s->plen = 0;
	s->seq = 0;
	s->flags = 0;
	s->pseudo = 0;
	s->seed = 0;
	if (!s->f.l4_off)
		return;
	s->pseudo =
		gro_pseudo(ip, s->ipv6, s->f.l4_proto, s->f.end - s->f.l4_off);
	s->seed = csum_fold16(s->pseudo);
	if (s->f.l4_proto != IPPROTO_TCP && s->f.l4_proto != IPPROTO_UDP)
		return;
	s->plen = s->f.end - s->f.hdr_len;
	if (s->f.l4_proto != IPPROTO_TCP)
		return;
	s->seq = get_be32(th + 4);
	s->flags = th[TCP_FLAGS_OFF];
}

/*
 * The sum of the L4 bytes: one pass over them, or none when the caller
 * summed the whole frame already (a GRE checksum), less what lies in
 * front (l4_off is even: Ethernet, VLAN and IP headers are) and any
 * Ethernet padding behind.
 */
static uint32_t gro_l4_sum(const struct gro_seg *s)
{
	const uint8_t *d = s->data;
	uint32_t sum, pad;

	if (!s->sum)
		return csum_partial(d + s->f.l4_off, s->f.end - s->f.l4_off, 0);
	sum = csum_sub(*s->sum, csum_partial(d, s->f.l4_off, 0));
	if (s->f.end < s->f.len) {
		pad = csum_partial(d + s->f.end, s->f.len - s->f.end, 0);
		sum = csum_sub(sum, csum_block_add(0, pad, s->f.end));
	}
	return sum;
}

static uint16_t gro_check_off(uint8_t proto)
{
	return proto == IPPROTO_TCP ? TCP_CHECK_OFF : UDP_CHECK_OFF;
}

/*
 * A check field holding exactly the seed was left partial by a sender on
 * this host (the kernel's vxlan across a veth); anything else must
 * verify (doc/design.md, integrity), whatever an outer checksum said: it
 * proves the datagram intact on the underlay, not what was put in it.
 * Pure: the caller counts.
 */
static enum gro_csum gro_csum_check(const struct gro_seg *s)
{
	const uint8_t *l4 = s->data + s->f.l4_off;
	uint16_t check = get_sum16(l4 + gro_check_off(s->f.l4_proto));

	if (check == s->seed)
		return GRO_CSUM_SEED;
	if (!check && s->f.l4_proto == IPPROTO_UDP && !s->ipv6)
		return GRO_CSUM_NONE;
	if (csum_fold(csum_add(gro_l4_sum(s), s->pseudo)) == 0)
		return GRO_CSUM_GOOD;
	return GRO_CSUM_BAD;
}

static void gro_csum_count(struct gro *g, enum gro_csum v)
{
	if (v == GRO_CSUM_SEED)
		g->n.csum_partial++;
	else if (v == GRO_CSUM_BAD)
		g->n.inner_csum_bad++;
}

static struct gro_frame *gro_slot(struct gro *g)
{
	struct gro_frame *fr = &g->frames[g->n_frames++];

	vnet_hdr_build_plain(&fr->vnet);
	fr->hdr_len = 0;
	fr->n_slices = 0;
	fr->len = 0;
	return fr;
}

static void gro_slice_add(struct gro_frame *fr, uint8_t *base, uint32_t len)
{
	fr->slices[fr->n_slices].iov_base = base;
	fr->slices[fr->n_slices].iov_len = len;
	fr->n_slices++;
	fr->len += len;
}

/*
 * Same flow: L2 header (MACs, VLAN tags, ethertype) as dev_gro_receive()
 * compares it, addresses as inet_gro_receive()/ipv6_gro_receive(), ports
 * as tcp_gro_receive() and udp_gro_receive_segment(), with the protocol.
 * A fragment has no ports: it matches on addresses, so it still closes
 * the flow it may belong to.
 */
static bool gro_flow_match(const struct gro_flow *o, const struct gro_seg *s)
{
	const uint8_t *h = o->fr->hdr;
	const uint8_t *d = s->data;
	uint16_t l3 = s->f.l3_off;

	if (o->l3_off != l3 || o->ipv6 != s->ipv6 || memcmp(h, d, l3))
		return false;
	if (s->ipv6 ? memcmp(h + l3 + 8, d + l3 + 8, 32) :
		      memcmp(h + l3 + 12, d + l3 + 12, 8))
		return false;
	if (!s->f.l4_off)
		return true;
	return o->proto == s->f.l4_proto &&
	       !memcmp(h + o->l4_off, d + s->f.l4_off, 4);
}

/*
 * Close a super-frame: lengths, IPv4 header checksum (the id stays the
 * first segment's: the tap's GSO counts up from it, as inet_gso_segment()
 * does; virtio_net_hdr has no SKB_GSO_TCP_FIXEDID, so the ids of a run
 * merged with a fixed id count up when the frame is cut again behind
 * the tap), check field seeded for NEEDS_CSUM. No run holds CWR
 * (gro_seg_starts(), gro_seg_joins()), so none is SKB_GSO_TCP_ECN
 * (tcp_gro_complete()). A UDP run gets the UDP length of the whole, as
 * udp_gro_complete() gives it, and GSO_UDP_L4: __udp_gso_segment() cuts
 * it again into datagrams of mss bytes, the last one shorter. One TCP
 * segment goes without GSO; its headers are as they came, so only the
 * check field changes. One UDP datagram goes as it came, with NEEDS_CSUM
 * only if its sender left it so: the kernel verifies the others, as it
 * does every datagram when none is merged.
 */
static void gro_finish(const struct gro_flow *o)
{
	struct gro_frame *fr = o->fr;
	uint8_t *ip = fr->hdr + o->l3_off;
	uint8_t *th = fr->hdr + o->l4_off;
	uint16_t check = gro_check_off(o->proto);
	uint32_t pseudo, l4len = fr->len - o->l4_off;
	uint16_t seed;

	pseudo = gro_pseudo(ip, o->ipv6, o->proto, l4len);
	seed = csum_fold16(pseudo);
	if (fr->n_slices == 1 && o->proto == IPPROTO_UDP) {
		if (get_sum16(th + check) == seed)
			vnet_hdr_build_csum(&fr->vnet, o->l4_off, check);
		return;
	}
	if (fr->n_slices == 1) {
		vnet_hdr_build_csum(&fr->vnet, o->l4_off, check);
	} else if (o->proto == IPPROTO_UDP) {
		put_be16(th + UDP_LEN_OFF, l4len);
		vnet_hdr_build_udp(&fr->vnet, o->l4_off, fr->hdr_len, o->mss);
	} else {
		vnet_hdr_build_tcp(&fr->vnet, o->ipv6, o->l4_off, fr->hdr_len,
				   o->mss);
	}
	if (fr->n_slices > 1 && o->ipv6) {
		put_be16(ip + 4, fr->len - o->l3_off - 40);
	} else if (fr->n_slices > 1) {
		put_be16(ip + 2, fr->len - o->l3_off);
		put_sum16(ip + 10, 0);
		put_sum16(ip + 10, csum_ip4_header(ip, 20));
	}
	put_sum16(th + check, seed);
}

/* Close open[i], keeping the others in the order they opened. */
static void gro_close(struct gro *g, unsigned int i)
{
	gro_finish(&g->open[i]);
	memmove(&g->open[i], &g->open[i + 1],
		(g->n_open - i - 1) * sizeof(g->open[0]));
	g->n_open--;
}

/* Before anything of a flow is queued, its open frame goes first. */
static void gro_close_flows(struct gro *g, const struct gro_seg *s)
{
	unsigned int i = 0;

	while (i < g->n_open) {
		if (gro_flow_match(&g->open[i], s))
			gro_close(g, i);
		else
			i++;
	}
}

static int gro_open_find(const struct gro *g, const struct gro_seg *s)
{
	unsigned int i;

	for (i = 0; i < g->n_open; i++)
		if (gro_flow_match(&g->open[i], s))
			return (int)i;
	return -1;
}

/* The IPv4 header checksum, over the header's own length, verifies. */
static bool gro_ip4_hdr_ok(const struct gro_seg *s)
{
	const uint8_t *ip = s->data + s->f.l3_off;

	return csum_ip4_header(ip, (ip[0] & 0x0fu) * 4) == 0;
}

/*
 * IP headers a run may hold, as inet_gro_receive() and ipv6_gro_receive()
 * take them: no Ethernet padding (the IP length is the frame's); IPv4
 * without options, not a fragment (nor the reserved bit) and with a valid
 * header checksum (the merged header gets a new one, so a bad one must
 * not be laundered); IPv6 through hop-by-hop, routing and destination
 * options headers (ipv6_gso_pull_exthdrs()), which must be the same in
 * every segment (gro_l3_match()); a fragment header has no L4 offset.
 */
static bool gro_ip_clean(const struct gro_seg *s)
{
	const uint8_t *ip = s->data + s->f.l3_off;

	if (s->f.end != s->f.len || s->f.hdr_len > GSO_HDR_MAX)
		return false;
	if (s->ipv6)
		return true;
	return ip[0] == 0x45 && !(get_be16(ip + 6) & ~IP4_F_DF) &&
	       gro_ip4_hdr_ok(s);
}

/*
 * tcp_gro_receive() holds a segment with data and no flag that flushes;
 * one with CWR it holds too, but nothing ever joins it: it goes alone.
 */
static bool gro_seg_starts(const struct gro_seg *s)
{
	return s->plen && !(s->flags & (GRO_TCP_FLUSH | TCP_F_CWR)) &&
	       gro_ip_clean(s);
}

/* It merges data into a held run, never a segment with CWR. */
static bool gro_seg_joins(const struct gro_seg *s)
{
	return s->plen && !(s->flags & TCP_F_CWR) && gro_ip_clean(s);
}

/*
 * The IPv4 id (inet_gro_flush()): the second segment sets the mode of
 * the run, counting up by one per segment or fixed (on any datagram, DF
 * or not, as this kernel does), and a segment that breaks it ends the run.
 */
static bool gro_ip4_id_match(const struct gro_flow *o, const uint8_t *ip)
{
	uint16_t id = get_be16(ip + 4);
	uint16_t first = get_be16(o->fr->hdr + o->l3_off + 4);
	uint16_t n = o->fr->n_slices;

	if (n == 1)
		return id == first || id == (uint16_t)(first + 1);
	if (o->id_fixed)
		return id == first;
	return id == (uint16_t)(first + n);
}

/*
 * inet_gro_receive(): TOS, TTL, DF and protocol equal, the id as above.
 * ipv6_gro_receive(): version, traffic class, flow label, next header,
 * hop limit and every byte of the extension headers equal.
 */
static bool gro_l3_match(const struct gro_flow *o, const struct gro_seg *s)
{
	const uint8_t *ip = s->data + s->f.l3_off;
	const uint8_t *oip = o->fr->hdr + o->l3_off;
	uint32_t ext = s->f.l4_off - s->f.l3_off - 40u;

	if (s->ipv6)
		return !memcmp(ip, oip, 4) && !memcmp(ip + 6, oip + 6, 2) &&
		       !memcmp(ip + 40, oip + 40, ext);
	if (memcmp(ip, oip, 2) || memcmp(ip + 6, oip + 6, 4))
		return false;
	return gro_ip4_id_match(o, ip);
}

/*
 * tcp_gro_receive(): ACK number, data offset, reserved bits and AE,
 * window and every option byte (timestamps too) equal, and the flags
 * but FIN and PSH (GRO_TCP_FREE: so a segment that carries ECE joins a
 * run that does, and only such a run).
 * The urgent pointer is not compared: URG never merges.
 */
static bool gro_l4_match(const struct gro_flow *o, const struct gro_seg *s)
{
	const uint8_t *th = s->data + s->f.l4_off;
	const uint8_t *oth = o->fr->hdr + o->l4_off;
	uint16_t hl = s->f.hdr_len - s->f.l4_off;

	return !memcmp(th + 8, oth + 8, 5) &&
	       !((th[TCP_FLAGS_OFF] ^ oth[TCP_FLAGS_OFF]) & ~GRO_TCP_FREE) &&
	       !memcmp(th + 14, oth + 14, 2) &&
	       !memcmp(th + 20, oth + 20, hl - 20u);
}

/*
 * In order (seq), no longer than the first segment (its length is the
 * mss: tcp_gro_receive() flushes on "len > mss"), and room left.
 */
/* The same tunnel options as the run's first segment, byte for byte. */
static bool gro_tlv_match(const struct gro_flow *o, const struct gro_seg *s)
{
	return o->tlv_len == s->tlv_len &&
	       (!s->tlv_len || !memcmp(o->tlv, s->tlv, s->tlv_len));
}

static bool gro_can_merge(const struct gro_flow *o, const struct gro_seg *s)
{
	const struct gro_frame *fr = o->fr;

	if (s->f.hdr_len != fr->hdr_len || s->f.l4_off != o->l4_off ||
	    !gro_tlv_match(o, s))
		return false;
	if (s->seq != o->next_seq || s->plen > o->mss)
		return false;
	if (fr->n_slices >= GRO_MAX_SEGS ||
	    fr->len - o->l3_off + s->plen > GRO_MAX_LEN)
		return false;
	return gro_l3_match(o, s) && gro_l4_match(o, s);
}

/* The second segment fixes the IPv4 id mode of the run. */
static void gro_id_mode(struct gro_flow *o, const struct gro_seg *s)
{
	if (o->fr->n_slices == 1 && !s->ipv6)
		o->id_fixed = get_be16(s->data + s->f.l3_off + 4) ==
			      get_be16(o->fr->hdr + o->l3_off + 4);
}

/*
 * Append the payload. FIN and PSH go onto the merged header and end the
 * run, and so does a short segment, as in tcp_gro_receive() ("flush =
 * len < mss").
 */
static void gro_merge(struct gro *g, unsigned int i, const struct gro_seg *s)
{
	struct gro_flow *o = &g->open[i];
	struct gro_frame *fr = o->fr;

	gro_id_mode(o, s);
	gro_slice_add(fr, s->data + s->f.hdr_len, s->plen);
	o->next_seq += s->plen;
	g->n.merged++;
	/* From its second segment on, the frame goes with a GSO header. */
	if (fr->n_slices == 2)
		g->n.gso_frames++;
	fr->hdr[o->l4_off + TCP_FLAGS_OFF] |= s->flags & (TCP_F_FIN | TCP_F_PSH);
	if ((s->flags & GRO_TCP_FLUSH) || s->plen < o->mss ||
	    fr->n_slices == GRO_MAX_SEGS)
		gro_close(g, i);
}

/* A new run: headers copied, the payload stays in the frame. */
static void gro_start(struct gro *g, const struct gro_seg *s)
{
	struct gro_frame *fr = gro_slot(g);
	struct gro_flow *o;

	if (g->n_open == GRO_MAX_FLOWS)
		gro_close(g, 0);
	memcpy(fr->hdr, s->data, s->f.hdr_len);
	fr->hdr_len = s->f.hdr_len;
	fr->len = s->f.hdr_len;
	gro_slice_add(fr, s->data + s->f.hdr_len, s->plen);
	o = &g->open[g->n_open++];
	o->fr = fr;
	o->proto = s->f.l4_proto;
	o->mss = (uint16_t)s->plen;
	o->l3_off = s->f.l3_off;
	o->l4_off = s->f.l4_off;
	o->next_seq = s->seq + s->plen;
	o->ipv6 = s->ipv6;
	o->id_fixed = false;
	o->tlv = s->tlv;
	o->tlv_len = s->tlv_len;
}

static void gro_queue_plain(struct gro *g, uint8_t *frame, uint32_t len)
{
	gro_slice_add(gro_slot(g), frame, len);
}

/* Verified (or left partial by its sender): the kernel completes it. */
static struct gro_frame *gro_queue_csum(struct gro *g, const struct gro_seg *s,
					uint16_t check)
{
	struct gro_frame *fr;

	put_sum16(s->data + s->f.l4_off + check, s->seed);
	fr = gro_slot(g);
	gro_slice_add(fr, s->data, s->f.end);
	vnet_hdr_build_csum(&fr->vnet, s->f.l4_off, check);
	return fr;
}

/*
 * tcp_gso_segment() copies SYN, RST and URG onto every segment: such a
 * frame (never one a real TCP sender builds) goes without GSO. So does one
 * with a bad IPv4 header checksum: inet_gso_segment() would write good
 * ones into the segments (found by tests/fuzz-rx.c).
 */
static bool gro_gso_able(const struct gro_seg *s)
{
	return s->plen &&
	       !(s->flags & (TCP_F_SYN | TCP_F_RST | TCP_F_URG)) &&
	       (s->ipv6 || gro_ip4_hdr_ok(s));
}

/*
 * The segment size of a TCP frame over the tap's MTU, 0 when no real
 * sender builds such a frame: its segments would be cut wherever it
 * meets a device without TSO, and one datagram whose sender chose a long
 * header chain would become tens of thousands of frames there. So the
 * headers must fit what gso_plan() holds (GSO_HDR_MAX, within the
 * kernel's MAX_TCP_HEADER), a segment must carry at least the smallest
 * MSS a Linux sender uses (tcp_mtu_to_mss(): tcp_min_snd_mss, 48), and
 * the frame must stay within the segments the tap was told to take
 * (VNET_MAX_SEGS, its gso_max_segs): at most 1024 frames behind the tap,
 * about 50 at a usual MTU.
 */
static uint32_t gro_gso_mss(const struct gro *g, const struct gro_seg *s)
{
	uint32_t hl = s->f.hdr_len - s->f.l3_off, mss;

	if (s->f.hdr_len > GSO_HDR_MAX || g->mtu < hl + GRO_GSO_MSS_MIN)
		return 0;
	mss = g->mtu - hl;
	if (mss > UINT16_MAX)
		mss = UINT16_MAX;
	if ((s->plen + mss - 1) / mss > VNET_MAX_SEGS)
		return 0;
	return mss;
}

/*
 * A TCP frame over the tap's MTU (the kernel's vxlan hands a veth its
 * unsegmented TSO frame, doc/design.md): written as it is it could not
 * be forwarded behind the tap, so it becomes a super-frame of MTU-sized
 * segments. Its sender marked it SKB_GSO_TCP_ECN if it carries CWR
 * (tcp_ecn_send()); the hint is restored so CWR stays on the first
 * segment only.
 */
static void gro_queue_gso(struct gro *g, const struct gro_seg *s)
{
	struct gro_frame *fr = gro_queue_csum(g, s, TCP_CHECK_OFF);
	uint32_t mss;

	if (!gro_gso_able(s))
		return;
	mss = gro_gso_mss(g, s);
	vnet_hdr_build_tcp(&fr->vnet, s->ipv6, s->f.l4_off, s->f.hdr_len,
			   (uint16_t)mss);
	/*
	 * A super-frame as its sender's TSO left it, not a run: one with CWR
	 * is cut again behind the tap as classic ECN has it, CWR on the
	 * first segment only (tcp_gso_segment()).
	 */
	if (s->flags & TCP_F_CWR)
		fr->vnet.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	g->n.gso_frames++;
}

/* A frame the kernel is to check; it still ends its flow's run. */
static void gro_add_plain(struct gro *g, const struct gro_seg *s)
{
	if (s->f.l4_proto == IPPROTO_TCP || s->f.l4_proto == IPPROTO_UDP)
		gro_close_flows(g, s);
	gro_queue_plain(g, s->data, s->f.len);
}

/*
 * A datagram that may be merged (udp_gro_receive_segment()): with data,
 * a UDP length that is the datagram's ("padded or malicious packets" are
 * not), IP headers as a TCP run takes them but no IPv6 extension header
 * either, and within the tap's MTU. Only then is its checksum verified:
 * the others go up as they came, for the kernel to judge.
 */
static bool gro_udp_shape_ok(const struct gro *g, const struct gro_seg *s)
{
	const uint8_t *uh = s->data + s->f.l4_off;

	return s->plen &&
	       get_be16(uh + UDP_LEN_OFF) == s->f.end - s->f.l4_off &&
	       (!s->ipv6 || s->f.l4_off - s->f.l3_off == 40) &&
	       s->f.end - s->f.l3_off <= g->mtu && gro_ip_clean(s);
}

/*
 * udp_gro_receive_segment(): no longer than the first datagram (a longer
 * one ends the run and starts another), room left (64 datagrams, as
 * UDP_GRO_CNT_MAX, and 64 KB), and the IP header fields a TCP run
 * compares.
 */
static bool gro_udp_can_merge(const struct gro_flow *o,
			      const struct gro_seg *s)
{
	const struct gro_frame *fr = o->fr;

	if (s->f.hdr_len != fr->hdr_len || s->plen > o->mss ||
	    !gro_tlv_match(o, s))
		return false;
	if (fr->n_slices >= GRO_MAX_SEGS ||
	    fr->len - o->l3_off + s->plen > GRO_MAX_LEN)
		return false;
	return gro_l3_match(o, s);
}

/* Append the datagram's payload; a shorter one ends the run. */
static void gro_udp_merge(struct gro *g, unsigned int i,
			  const struct gro_seg *s)
{
	struct gro_flow *o = &g->open[i];
	struct gro_frame *fr = o->fr;

	gro_id_mode(o, s);
	gro_slice_add(fr, s->data + s->f.hdr_len, s->plen);
	g->n.udp_merged++;
	if (fr->n_slices == 2)
		g->n.udp_gso_frames++;
	if (s->plen < o->mss || fr->n_slices == GRO_MAX_SEGS)
		gro_close(g, i);
}

/*
 * A UDP datagram that cannot merge goes as it came (the kernel verifies
 * it) or, seeded by a sender on this host, with NEEDS_CSUM. One that may
 * merge has its checksum verified first: a good one joins or starts a
 * run, a wrong one goes as it came, after what went before it in its
 * flow.
 */
static enum gro_result gro_add_udp(struct gro *g, struct gro_seg *s)
{
	enum gro_csum v = GRO_CSUM_UNKNOWN;
	bool joins = false;
	int i = -1;

	if (s->ipv6 && gro_ip6_routed(s)) {
		if (gro_full(g))
			return GRO_FULL;
		gro_queue_plain(g, s->data, s->f.len);
		return GRO_QUEUED;
	}
	/*
	 * A zero checksum ("none") never merges: udp_gro_receive() wants
	 * one, for symmetry with GSO.
	 */
	if (g->merge_udp && gro_udp_shape_ok(g, s)) {
		v = gro_csum_check(s);
		joins = v == GRO_CSUM_GOOD || v == GRO_CSUM_SEED;
	} else if (get_sum16(s->data + s->f.l4_off + UDP_CHECK_OFF) ==
		   s->seed) {
		v = GRO_CSUM_SEED;
	}
	if (joins)
		i = gro_open_find(g, s);
	if (i >= 0 && gro_udp_can_merge(&g->open[i], s)) {
		gro_csum_count(g, v);
		gro_udp_merge(g, (unsigned int)i, s);
		return GRO_MERGED;
	}
	if (gro_full(g))
		return GRO_FULL;
	gro_csum_count(g, v);
	gro_close_flows(g, s);
	if (joins)
		gro_start(g, s);
	else if (v == GRO_CSUM_SEED)
		gro_queue_csum(g, s, UDP_CHECK_OFF);
	else
		gro_queue_plain(g, s->data, s->f.len);
	return GRO_QUEUED;
}

/*
 * A segment that merges needs no new frame, so it is tried first. Nothing
 * changes (no counter, no check field) before GRO_FULL is returned, so
 * the caller can add the same frame again after a flush
 * (decap_again()).
 */
static enum gro_result gro_add_tcp(struct gro *g, struct gro_seg *s,
				   enum drop *why)
{
	bool big = s->f.end - s->f.l3_off > g->mtu;
	enum gro_csum v;
	int i = -1;

	if (s->ipv6 && gro_ip6_routed(s)) {
		if (g->n_frames == GRO_MAX_FRAMES)
			return GRO_FULL;
		gro_add_plain(g, s);
		return GRO_QUEUED;
	}
	v = gro_csum_check(s);
	/* Counted once: a drop is decided before GRO_FULL can be. */
	if (big && v != GRO_CSUM_BAD && gro_gso_able(s) && !gro_gso_mss(g, s)) {
		*why = DROP_RX_OVERSIZE;
		return GRO_DROPPED;
	}
	if (g->merge && v != GRO_CSUM_BAD && gro_seg_joins(s))
		i = gro_open_find(g, s);
	if (i >= 0 && gro_can_merge(&g->open[i], s)) {
		gro_csum_count(g, v);
		gro_merge(g, (unsigned int)i, s);
		return GRO_MERGED;
	}
	if (g->n_frames == GRO_MAX_FRAMES)
		return GRO_FULL;
	gro_csum_count(g, v);
	gro_close_flows(g, s);
	/*
	 * A wrong checksum goes as it came, after what went before it in
	 * its flow, for the stack behind the tap to drop (or a bridge to
	 * pass on), as behind the kernel's vxlan.
	 */
	if (v == GRO_CSUM_BAD)
		gro_queue_plain(g, s->data, s->f.len);
	else if (big)
		gro_queue_gso(g, s);
	else if (g->merge && gro_seg_starts(s))
		gro_start(g, s);
	else
		gro_queue_csum(g, s, TCP_CHECK_OFF);
	return GRO_QUEUED;
}

/*
 * An IP packet with headers no receiver takes: what frame_parse()
 * refuses (IPv4 version or IHL wrong, a total length over the frame or
 * under the header, an IPv6 payload length over the frame, an extension
 * chain or a TCP/UDP header cut short, TCP doff < 5), and a UDP length
 * under 8 or over the datagram. The kernel's GRO only declines to merge
 * them (inet_gro_receive() wants 0x45, ipv6_gro_receive() a whole
 * header) and its stack drops them later (ip_rcv_core(), ipv6_rcv_core(),
 * tcp_v4_rcv(), __udp4_lib_rcv()); a bridge behind the tap would forward
 * them, so they are dropped and counted here. A parse that fails before
 * the IP header (VLAN tag cut) leaves ip false: not IP, it goes on as it
 * came; but a tun takes nothing that is not IP (tun_get_user() refuses
 * another version nibble), so in one every refusal is a drop.
 */
static bool gro_inner_bad(const struct gro *g, int err,
			  const struct gro_seg *s)
{
	const uint8_t *uh = s->data + s->f.l4_off;
	uint32_t ulen;

	if (err)
		return s->f.ip || g->l3;
	if (!s->f.l4_off || s->f.l4_proto != IPPROTO_UDP)
		return false;
	ulen = get_be16(uh + 4);
	return ulen < 8 || ulen > s->f.end - s->f.l4_off;
}

/*
 * The releases that segment a GSO_UDP_L4 skb landing on an encapsulation
 * socket: commit 3d010c8031e3 ("udp: do not accept non-tunnel GSO skbs
 * landing in a tunnel", CVE-2024-35884) in udp_unexpected_gso(), Linux 6.9
 * and the stable releases below. Without it the VXLAN and GENEVE sockets
 * (which take UDP_L4 aggregates, udp_allow_gso()) decapsulate a merged
 * frame whole with a gso_size that no longer fits it: corrupt packets or
 * a BUG in skb_segment(). Taps take USO from 6.2, so 6.2 to 6.6.25, 6.7,
 * 6.8.0 to 6.8.4 and 6.9-rc1 and -rc2 are the kernels where merging
 * would do that; what is said of releases before 6.2 does not matter.
 */
static const struct {
	unsigned int major, minor, patch;
} udp_gso_fixed[] = {
	{ 6, 8, 5 }, { 6, 6, 26 }, { 6, 1, 85 }, { 5, 15, 154 },
	{ 5, 10, 215 },
};

/* 6.9-rc1 and -rc2 came before the fix, which is in 6.9-rc3. */
static bool gro_kernel_early_rc(const char *release)
{
	unsigned int rc;

	return !strncmp(release, "6.9-rc", 6) &&
	       sscanf(release + 6, "%u", &rc) == 1 && rc < 3;
}

bool gro_kernel_cuts_udp_gso(const char *release)
{
	unsigned int major = 0, minor = 0, patch = 0, i;

	/* "6.6.26-amd64", "6.9-rc3", "6.12.0+": the patch level is optional. */
	if (sscanf(release, "%u.%u.%u", &major, &minor, &patch) < 2)
		return false;
	if (major > 6 || (major == 6 && minor >= 9))
		return !gro_kernel_early_rc(release);
	for (i = 0; i < sizeof(udp_gso_fixed) / sizeof(udp_gso_fixed[0]); i++)
		if (udp_gso_fixed[i].major == major &&
		    udp_gso_fixed[i].minor == minor)
			return patch >= udp_gso_fixed[i].patch;
	return false;
}

void gro_init(struct gro *g, uint32_t mtu, bool merge, bool merge_udp,
	      bool l3)
{
	memset(g, 0, sizeof(*g));
	g->l3 = l3;
	g->mtu = mtu;
	g->merge = merge;
	g->merge_udp = merge && merge_udp;
}

enum gro_result gro_add_tlv(struct gro *g, uint8_t *frame, size_t len,
			    const uint32_t *sum, const uint8_t *tlv,
			    uint16_t tlv_len, enum drop *why)
{
	struct gro_seg s;
	int err;

	s.sum = sum;
	s.tlv = tlv;
	s.tlv_len = tlv_len;
	err = frame_parse_as(g->l3, frame, len, &s.f);
	if (!err && s.f.ip)
		gro_seg_init(&s, frame);
	else
		s.data = frame;
	/* Counted once: a drop is decided before GRO_FULL can be. */
	if (gro_inner_bad(g, err, &s)) {
		*why = DROP_RX_INNER_HDR;
		return GRO_DROPPED;
	}
	if (err || !s.f.ip) {
		if (g->n_frames == GRO_MAX_FRAMES)
			return GRO_FULL;
		gro_queue_plain(g, frame, (uint32_t)len);
		return GRO_QUEUED;
	}
	if (s.f.l4_off && s.f.l4_proto == IPPROTO_TCP)
		return gro_add_tcp(g, &s, why);
	if (s.f.l4_off && s.f.l4_proto == IPPROTO_UDP)
		return gro_add_udp(g, &s);
	if (gro_full(g))
		return GRO_FULL;
	gro_add_plain(g, &s);
	return GRO_QUEUED;
}

void gro_flush(struct gro *g)
{
	unsigned int i;

	for (i = 0; i < g->n_open; i++)
		gro_finish(&g->open[i]);
	g->n_open = 0;
}

void gro_reset(struct gro *g)
{
	g->n_frames = 0;
	g->n_open = 0;
}

void gro_split_init(struct gro_split *s, size_t len, uint16_t gso_size)
{
	s->len = len;
	s->off = 0;
	s->step = gso_size && gso_size < len ? gso_size : len;
	s->done = false;
}

bool gro_split_next(struct gro_split *s, size_t *off, size_t *dlen)
{
	if (s->done)
		return false;
	*off = s->off;
	*dlen = s->len - s->off < s->step ? s->len - s->off : s->step;
	s->off += *dlen;
	s->done = s->off >= s->len;
	return true;
}
