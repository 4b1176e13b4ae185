// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of xmit_udp_bulk(): what the transmit side takes for bulk UDP
 * from a sender behind the tap, for which the tap's gso_max_size goes
 * back to 64 KB (path_udp_bulk()); and of xmit_frame() in tun mode, for
 * every encapsulation that carries IP, both ways: a tun's super-packet
 * cut into wire segments checked by hand, then taken back through
 * decap_packet() into the very super-packet.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include "pkt/gro.h"
#include "encap/decap.h"
#include "pipe/xmit.h"
#include "pkt.h"
#include "tap.h"

/* The gso_max_size TCP is given behind a vxlan tap of MTU 1450. */
#define FIT 58570

static struct frame udp(uint32_t len, uint8_t gso)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.len = len;
	f.l3_off = ETH_HLEN;
	f.l4_off = ETH_HLEN + 20;
	f.l4_proto = IPPROTO_UDP;
	f.gso = gso;
	return f;
}

/* n frames like f in a row: the 1-based index of the first that is bulk. */
static int first_bulk(struct xmit_udp_train *tr, const struct frame *f,
		      int n)
{
	int i;

	for (i = 1; i <= n; i++)
		if (xmit_udp_bulk(tr, f, FIT) == XMIT_BULK_TRAIN)
			return i;
	return 0;
}

static void test_trains(void)
{
	struct xmit_udp_train tr = { 0 };
	struct frame d = udp(1442, FRAME_GSO_NONE);
	struct frame other = udp(1000, FRAME_GSO_NONE);
	struct frame small = udp(XMIT_UDP_TRAIN_MIN - 1, FRAME_GSO_NONE);
	struct frame frag = d;
	struct frame tcp = d;

	frag.l4_off = 0;
	tcp.l4_proto = IPPROTO_TCP;
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "a train of full datagrams is bulk at its 32nd");
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "and again 32 later, not at every one after");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	ok(!xmit_udp_bulk(&tr, &other, FIT), "another size breaks the row");
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "which starts again from one");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	ok(!xmit_udp_bulk(&tr, &tcp, FIT), "a TCP frame is not bulk UDP");
	ok(xmit_udp_bulk(&tr, &d, FIT) == XMIT_BULK_TRAIN,
	   "nor does it break the row");
	is_int(first_bulk(&tr, &small, 1000), 0,
	       "small datagrams never make a train");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	xmit_udp_bulk(&tr, &small, FIT);
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "a small one breaks the row");
	is_int(first_bulk(&tr, &tcp, 1000), 0, "TCP never is");
	is_int(first_bulk(&tr, &frag, 1000), 0,
	       "fragments of large datagrams never make a train");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	xmit_udp_bulk(&tr, &frag, FIT);
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "a fragment breaks the row");
}

static void test_super_frames(void)
{
	struct xmit_udp_train tr = { 0 };
	struct frame big = udp(FIT + 1, FRAME_GSO_UDP4);
	struct frame fits = udp(FIT, FRAME_GSO_UDP4);
	struct frame tso = udp(65000, FRAME_GSO_TCP4);

	tso.l4_proto = IPPROTO_TCP;
	ok(xmit_udp_bulk(&tr, &big, FIT) == XMIT_BULK_SUPER,
	   "a UDP super-frame over TCP's size is bulk");
	ok(!xmit_udp_bulk(&tr, &fits, FIT),
	   "one that fits TCP's size is not");
	ok(!xmit_udp_bulk(&tr, &tso, FIT), "a TCP super-frame is not");
}

/* ---- --mode tun: xmit_frame() and back ---------------------------- */

#define TUN_SEGS 64

static struct pkt P;
static uint8_t rd[VNET_HDR_LEN + PKT_MAX];
static uint8_t slots[TUN_SEGS * GSO_SLOT];
static struct seg segs[TUN_SEGS];
/* Segment k as the peer receives it, outer IP and UDP stripped. */
static uint8_t wire[TUN_SEGS][2048];
static uint32_t wire_len[TUN_SEGS];
static struct gro G;
static uint8_t back[PKT_MAX];

struct tun_encap {
	const char *name;
	struct encap_cfg c;
};

static const struct tun_encap tun_encaps[] = {
	{ "gre", { .type = ENCAP_GRE, .l3 = true } },
	{ "gre csum key seq",
	  { .type = ENCAP_GRE, .l3 = true, .gre_csum = true,
	    .has_key = true, .key = 0xfedcba98, .gre_seq = true } },
	{ "gre-udp key", { .type = ENCAP_GRE_UDP, .l3 = true,
			   .has_key = true, .key = 7 } },
	{ "gre-udp csum", { .type = ENCAP_GRE_UDP, .l3 = true,
			    .gre_csum = true } },
	{ "vxlan-gpe", { .type = ENCAP_VXLAN_GPE, .l3 = true,
			 .vni = 0x123456 } },
};

struct tun_pkt {
	const char *name;
	struct pkt_spec s;
	int nsegs;	/* worked out by hand */
};

/* Each segment 1452 bytes at most: under every budget of a 1500 path. */
static const struct tun_pkt tun_pkts[] = {
	{ "tcp4", { .tcp_opt_len = 12, .payload_len = 5000,
		    .gso_size = 1400, .seq = 0xfffff000, .ip_id = 0xfffe,
		    .tcp_flags = PKT_ACK | PKT_PSH }, 4 },
	{ "tcp6", { .ipv6 = true, .tcp_opt_len = 12, .payload_len = 4140,
		    .gso_size = 1380, .seq = 99 }, 3 },
	{ "udp4", { .l4 = IPPROTO_UDP, .payload_len = 3000,
		    .gso_size = 1200, .ip_id = 9 }, 3 },
	{ "udp6", { .l4 = IPPROTO_UDP, .ipv6 = true, .payload_len = 2400,
		    .gso_size = 1200 }, 2 },
};

/* The encapsulation header in front of segment k, field by field. */
static bool tun_hdr_ok(const struct encap_cfg *c, const uint8_t *h,
		       bool v6, uint32_t seq)
{
	const uint8_t *opt = h + 4;
	uint16_t flags;

	if (c->type == ENCAP_VXLAN_GPE)
		/* I and P, next protocol 1 (IPv4) or 2 (IPv6), the VNI */
		return pkt_get32(h) == (0x0c000000u | (v6 ? 2 : 1)) &&
		       pkt_get32(h + 4) == c->vni << 8;
	flags = (c->gre_csum ? 0x8000 : 0) | (c->has_key ? 0x2000 : 0) |
		(c->gre_seq ? 0x1000 : 0);
	/* RFC 2784: the protocol type is the inner packet's ethertype */
	if (pkt_get16(h) != flags || pkt_get16(h + 2) != (v6 ? 0x86dd : 0x0800))
		return false;
	if (c->gre_csum)
		opt += 4;
	if (c->has_key) {
		if (pkt_get32(opt) != c->key)
			return false;
		opt += 4;
	}
	return !c->gre_seq || pkt_get32(opt) == seq;
}

/*
 * The inner packet of segment k of n (at ip, len bytes), against what
 * tcp_gso_segment() and __udp_gso_segment() make of the super-packet:
 * lengths, IPv4 id and header checksum, sequence, flags, checksums that
 * verify from scratch.
 */
static bool tun_inner_ok(const struct tun_pkt *t, const uint8_t *ip,
			 uint32_t len, uint32_t k, uint32_t n)
{
	const struct pkt_spec *s = &t->s;
	const uint8_t *l4 = ip + P.l4_off;
	uint32_t l4len = len - P.l4_off;
	uint8_t flags = s->tcp_flags ? s->tcp_flags : PKT_ACK;
	bool tcp = !s->l4;

	if (s->ipv6 ? pkt_get16(ip + 4) + 40u != len :
		      pkt_get16(ip + 2) != len ||
			      pkt_get16(ip + 4) != (uint16_t)(s->ip_id + k) ||
			      pkt_fold(pkt_sum(ip, 20, 0)) != 0xffff)
		return false;
	if (pkt_fold(pkt_pseudo(ip, P.proto, l4len) +
		     pkt_sum(l4, l4len, 0)) != 0xffff)
		return false;
	if (!tcp)
		return pkt_get16(l4 + 4) == l4len;
	if (k + 1 < n)
		flags &= (uint8_t)~(PKT_FIN | PKT_PSH);
	return pkt_get32(l4 + 4) == s->seq + k * s->gso_size &&
	       l4[13] == flags;
}

/* xmit_frame() of the tun's super-packet t over e: the wire segments. */
static int tun_send(const struct tun_encap *e, const struct tun_pkt *t,
		    const char *name)
{
	struct xmit_cfg xc = { .encap = &e->c, .pmtud = true, .n_src = 1 };
	uint32_t seq = 0x7fffffff, k;
	struct seg_arena a;
	struct xmit_out out;
	bool hdr = true, inner = true, fits = true;
	size_t hl = encap_hdr_len(&e->c);
	int r;

	xc.budget = pmtu_frame_budget(&e->c, false, 1500);
	pkt_build_ip(&t->s, &P);
	memcpy(rd, &P.vh, VNET_HDR_LEN);
	memcpy(rd + VNET_HDR_LEN, P.buf, P.len);
	seg_arena_init(&a, slots, segs, TUN_SEGS);
	r = xmit_frame(&xc, &seq, rd, VNET_HDR_LEN + P.len, &a, &out);
	if (!is_int(r, DROP_NONE, "%s: xmit_frame() takes it", name) ||
	    !is_int(out.n, t->nsegs, "%s: %d segments", name, t->nsegs))
		return -1;
	for (k = 0; k < out.n; k++) {
		const struct seg *sg = &segs[out.first + k];
		uint8_t *w = wire[k];

		memcpy(w, sg->hdr - hl, hl + sg->hdr_len);
		memcpy(w + hl + sg->hdr_len, sg->payload, sg->payload_len);
		wire_len[k] = (uint32_t)hl + seg_len(sg);
		hdr = hdr && tun_hdr_ok(&e->c, w, t->s.ipv6, 0x7fffffff + k);
		inner = inner && tun_inner_ok(t, w + hl, seg_len(sg), k,
					      out.n);
		fits = fits && seg_len(sg) <= xc.budget;
	}
	ok(hdr, "%s: %s header of each segment", name,
	   e->c.type == ENCAP_VXLAN_GPE ? "VXLAN-GPE" : "GRE");
	ok(inner, "%s: each inner packet: lengths, id, seq, flags, checksums",
	   name);
	ok(fits, "%s: each segment within the budget", name);
	if (e->c.gre_csum) {
		bool good = true;

		for (k = 0; k < out.n; k++)
			good = good &&
			       pkt_fold(pkt_sum(wire[k], wire_len[k], 0)) ==
				       0xffff;
		ok(good, "%s: GRE checksums verify", name);
	}
	return (int)out.n;
}

/* The wire segments back through decap_packet(): the super-packet. */
static void tun_receive(const struct tun_encap *e, const struct tun_pkt *t,
			const char *name, int n)
{
	const struct gro_frame *fr;
	struct decap_out out;
	bool udp = t->s.l4 == IPPROTO_UDP, res = true;
	uint32_t len, k;
	uint8_t type;
	int i;

	gro_init(&G, pmtu_frame_budget(&e->c, false, 1500), true, true,
		 true);
	for (i = 0; i < n; i++) {
		enum gro_result r = decap_packet(&e->c, &G, wire[i],
						 wire_len[i], 0, &out);

		res = res && r == (i ? GRO_MERGED : GRO_QUEUED);
	}
	gro_flush(&G);
	ok(res && G.n_frames == 1, "%s: decap_packet() merges all %d", name,
	   n);
	if (G.n_frames != 1)
		return;
	fr = &G.frames[0];
	memcpy(back, fr->hdr, fr->hdr_len);
	len = fr->hdr_len;
	for (k = 0; k < fr->n_slices; k++) {
		memcpy(back + len, fr->slices[k].iov_base,
		       fr->slices[k].iov_len);
		len += (uint32_t)fr->slices[k].iov_len;
	}
	ok(len == P.len && fr->len == len && !memcmp(back, P.buf, len),
	   "%s: the super-packet the tun gave, byte for byte", name);
	type = udp ? VIRTIO_NET_HDR_GSO_UDP_L4 :
	       t->s.ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
	ok(fr->vnet.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM &&
		   fr->vnet.gso_type == type &&
		   fr->vnet.gso_size == t->s.gso_size &&
		   fr->vnet.hdr_len == P.hdr_len &&
		   fr->vnet.csum_start == P.l4_off &&
		   fr->vnet.csum_offset == (udp ? 6 : 16),
	   "%s: vnet header for the tun, csum_start %u from the IP header",
	   name, P.l4_off);
	ok((udp ? G.n.udp_merged : G.n.merged) == (uint64_t)n - 1 &&
		   (udp ? G.n.udp_gso_frames : G.n.gso_frames) == 1 &&
		   !G.n.inner_csum_bad,
	   "%s: %s %d, one GSO frame", name,
	   udp ? "rx_udp_merged" : "rx_gro_merged", n - 1);
}

static void test_tun_both_ways(void)
{
	char name[128];
	size_t i, j;
	int n;

	for (i = 0; i < sizeof(tun_encaps) / sizeof(tun_encaps[0]); i++) {
		const struct tun_encap *e = &tun_encaps[i];

		ok(encap_carries(e->c.type, true),
		   "tun, %s: the encapsulation carries IP", e->name);
		for (j = 0; j < sizeof(tun_pkts) / sizeof(tun_pkts[0]); j++) {
			snprintf(name, sizeof(name), "tun, %s, %s", e->name,
				 tun_pkts[j].name);
			n = tun_send(e, &tun_pkts[j], name);
			if (n > 0)
				tun_receive(e, &tun_pkts[j], name, n);
		}
	}
	ok(!encap_carries(ENCAP_VXLAN, true),
	   "tun: plain VXLAN carries no IP (RFC 7348)");
}

/* A tun's packet that is not IP never reaches the wire. */
static void test_tun_not_ip(void)
{
	const struct encap_cfg c = { .type = ENCAP_GRE, .l3 = true };
	struct xmit_cfg xc = { .encap = &c, .budget = 1476, .pmtud = true,
			       .n_src = 1 };
	struct seg_arena a;
	struct xmit_out out;
	uint32_t seq = 0;

	pkt_build_ip(&(struct pkt_spec){ .payload_len = 100 }, &P);
	P.buf[0] = 0x55;
	memcpy(rd, &P.vh, VNET_HDR_LEN);
	memcpy(rd + VNET_HDR_LEN, P.buf, P.len);
	seg_arena_init(&a, slots, segs, TUN_SEGS);
	ok(xmit_frame(&xc, &seq, rd, VNET_HDR_LEN + P.len, &a, &out) ==
		   DROP_TX_L3 && !a.n && !seq,
	   "tun: version 5 refused (tx_drop_l3), nothing planned");
}

/*
 * xmit_frame()'s outer TOS and DF of a tun's packet with tos (IPv4 TOS
 * or IPv6 traffic class) and, for IPv4, DF or not, inherited or not.
 */
static void tun_tos_df(bool v6, uint8_t tos, bool df, bool inherit,
		       int want_tos, bool want_df, const char *name)
{
	const struct encap_cfg c = { .type = ENCAP_GRE_UDP, .l3 = true };
	struct xmit_cfg xc = { .encap = &c, .budget = 1464, .pmtud = true,
			       .n_src = 1, .tos_inherit = inherit,
			       .df_inherit = inherit };
	struct seg_arena a;
	struct xmit_out out;
	uint32_t seq = 0;
	int r;

	pkt_build_ip(&(struct pkt_spec){ .ipv6 = v6, .payload_len = 100 },
		     &P);
	if (v6) {
		P.buf[0] = (uint8_t)(0x60 | tos >> 4);
		P.buf[1] = (uint8_t)((tos & 0x0f) << 4 | (P.buf[1] & 0x0f));
	} else {
		P.buf[1] = tos;
		pkt_put16(P.buf + 6, df ? 0x4000 : 0);
		pkt_put16(P.buf + 10, 0);
		pkt_put16(P.buf + 10, pkt_ip4_check(P.buf));
	}
	memcpy(rd, &P.vh, VNET_HDR_LEN);
	memcpy(rd + VNET_HDR_LEN, P.buf, P.len);
	seg_arena_init(&a, slots, segs, TUN_SEGS);
	r = xmit_frame(&xc, &seq, rd, VNET_HDR_LEN + P.len, &a, &out);
	ok(r == DROP_NONE && out.tos == want_tos && out.df == want_df,
	   "tun: %s (outer TOS %d, DF %d)", name, out.tos, out.df);
}

/* --tos inherit and --df inherit read a tun's packet at l3_off 0. */
static void test_tun_tos_df(void)
{
	tun_tos_df(false, 0xb9, true, true, 0xb9, true,
		   "IPv4 EF with ECT(1) and DF: both inherited");
	tun_tos_df(false, 0x2b, false, true, 0x2a, false,
		   "IPv4 AF11 with CE, no DF: CE goes out as ECT(0) "
		   "(RFC 6040 section 4.1), no DF");
	tun_tos_df(true, 0xb9, false, true, 0xb9, true,
		   "IPv6 traffic class EF, ECT(1): inherited, DF for IPv6");
	tun_tos_df(true, 0x2b, false, true, 0x2a, true,
		   "IPv6 traffic class with CE: ECT(0) outside");
	tun_tos_df(false, 0xb9, true, false, -1, false,
		   "not inherited: the configured TOS, DF as --df says");
}

/* xmit_udp_bulk() of a tun's datagrams: at l3_off 0, the same trains. */
static void test_tun_trains(void)
{
	struct xmit_udp_train tr = { 0 };
	struct frame d = udp(1442, FRAME_GSO_NONE);
	struct frame big = udp(FIT + 1, FRAME_GSO_UDP6);

	d.l3_off = 0;
	d.l4_off = 40;
	d.ip = true;
	big.l3_off = 0;
	big.l4_off = 40;
	big.ip = true;
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "tun: a train of full datagrams is bulk at its 32nd");
	ok(xmit_udp_bulk(&tr, &big, FIT) == XMIT_BULK_SUPER,
	   "tun: a UDP super-packet over TCP's size is bulk");
}

int main(void)
{
	test_trains();
	test_super_frames();
	test_tun_both_ways();
	test_tun_not_ip();
	test_tun_tos_df();
	test_tun_trains();
	plan(tap_n);
	return done_testing();
}
