// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test for vnet: valid frames of each kind parse with the offsets
 * written down here by hand; every malformed header gives its error; the
 * flow hash keeps a flow together and spreads flows apart.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pkt/vnet.h"
#include "pkt.h"
#include "tap.h"

static struct pkt P;
static uint8_t *frame_copy;
/* Parse as a tun's IP packets (vnet_hdr_parse_ip()), not a tap's frames. */
static bool tun;

/*
 * Parse P from a heap copy of exactly P.len bytes, so that the sanitizers
 * catch any read past the end.
 */
static int parse(struct frame *f)
{
	free(frame_copy);
	frame_copy = malloc(P.len ? P.len : 1);
	if (!frame_copy) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	memcpy(frame_copy, P.buf, P.len);
	return vnet_hdr_parse_as(tun, &P.vh, frame_copy, P.len, f);
}

/* spec's frame into P, or with tun its IP packet as a tun reads it. */
static void build(const struct pkt_spec *s)
{
	if (tun)
		pkt_build_ip(s, &P);
	else
		pkt_build(s, &P);
}

/* A tun carries IP alone: no VLAN tags, no ARP. */
static bool tun_carries(const struct pkt_spec *s)
{
	return !s->vlans && !s->non_ip;
}

/* ---- valid frames --------------------------------------------------- */

struct valid_case {
	const char *name;
	struct pkt_spec s;
	uint16_t ethertype;
	uint16_t l3_off, l4_off, hdr_len;
	uint8_t l4_proto;
	uint8_t gso;
};

#define TS 12	/* NOP, NOP, timestamps */

static const struct valid_case valid_cases[] = {
	{ "tcp4 partial", { .payload_len = 100, .partial = true },
	  0x0800, 14, 34, 54, IPPROTO_TCP, FRAME_GSO_NONE },
	{ "tcp4 full checksum", { .payload_len = 100 },
	  0x0800, 14, 34, 54, IPPROTO_TCP, FRAME_GSO_NONE },
	{ "tcp4 gso timestamps",
	  { .tcp_opt_len = TS, .payload_len = 5000, .gso_size = 1448 },
	  0x0800, 14, 34, 66, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp4 gso ip options",
	  { .ip_opt_len = 12, .tcp_opt_len = TS, .payload_len = 5000,
	    .gso_size = 1448 },
	  0x0800, 14, 46, 78, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp4 gso vlan",
	  { .vlans = 1, .payload_len = 3000, .gso_size = 1448 },
	  0x0800, 18, 38, 58, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp4 gso qinq ecn",
	  { .vlans = 2, .payload_len = 3000, .gso_size = 1448, .ecn = true,
	    .tcp_flags = PKT_ACK | PKT_CWR },
	  0x0800, 22, 42, 62, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp4 gso fits one segment",
	  { .payload_len = 1000, .gso_size = 1448 },
	  0x0800, 14, 34, 54, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp4 gso no payload", { .payload_len = 0, .gso_size = 1448 },
	  0x0800, 14, 34, 54, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp4 ethernet padding", { .payload_len = 0, .pad = 6 },
	  0x0800, 14, 34, 54, IPPROTO_TCP, FRAME_GSO_NONE },
	{ "tcp4 gso trailing junk",
	  { .payload_len = 3000, .gso_size = 1448, .pad = 7 },
	  0x0800, 14, 34, 54, IPPROTO_TCP, FRAME_GSO_TCP4 },
	{ "tcp6 gso", { .ipv6 = true, .payload_len = 5000, .gso_size = 1428 },
	  0x86dd, 14, 54, 74, IPPROTO_TCP, FRAME_GSO_TCP6 },
	{ "tcp6 gso timestamps",
	  { .ipv6 = true, .tcp_opt_len = TS, .payload_len = 5000,
	    .gso_size = 1428 },
	  0x86dd, 14, 54, 86, IPPROTO_TCP, FRAME_GSO_TCP6 },
	{ "tcp6 gso hop-by-hop + dest opts",
	  { .ipv6 = true, .ip6_hbh = true, .ip6_dst_len = 16,
	    .payload_len = 5000, .gso_size = 1400 },
	  0x86dd, 14, 78, 98, IPPROTO_TCP, FRAME_GSO_TCP6 },
	{ "tcp6 gso vlan ecn",
	  { .ipv6 = true, .vlans = 1, .payload_len = 3000, .gso_size = 1428,
	    .ecn = true },
	  0x86dd, 18, 58, 78, IPPROTO_TCP, FRAME_GSO_TCP6 },
	{ "udp4 uso",
	  { .l4 = IPPROTO_UDP, .payload_len = 4000, .gso_size = 1200 },
	  0x0800, 14, 34, 42, IPPROTO_UDP, FRAME_GSO_UDP4 },
	{ "udp6 uso vlan",
	  { .l4 = IPPROTO_UDP, .ipv6 = true, .vlans = 1, .payload_len = 4000,
	    .gso_size = 1200 },
	  0x86dd, 18, 58, 66, IPPROTO_UDP, FRAME_GSO_UDP6 },
	{ "udp4 full checksum", { .l4 = IPPROTO_UDP, .payload_len = 33 },
	  0x0800, 14, 34, 42, IPPROTO_UDP, FRAME_GSO_NONE },
	{ "udp6 partial",
	  { .l4 = IPPROTO_UDP, .ipv6 = true, .payload_len = 33,
	    .partial = true },
	  0x86dd, 14, 54, 62, IPPROTO_UDP, FRAME_GSO_NONE },
	{ "arp", { .non_ip = true, .payload_len = 28, .pad = 18 },
	  0x0806, 0, 0, 0, 0, FRAME_GSO_NONE },
	{ "arp vlan", { .non_ip = true, .vlans = 1, .payload_len = 28 },
	  0x0806, 0, 0, 0, 0, FRAME_GSO_NONE },
	{ "three vlan tags: not looked into",
	  { .vlans = 3, .payload_len = 100 },
	  0x8100, 0, 0, 0, 0, FRAME_GSO_NONE },
	{ "icmp4 partial", { .l4 = IPPROTO_ICMP, .payload_len = 64,
			     .partial = true },
	  0x0800, 14, 0, 34, IPPROTO_ICMP, FRAME_GSO_NONE },
	{ "ipv6 no next header", { .ipv6 = true, .l4 = 59 },
	  0x86dd, 14, 0, 54, 59, FRAME_GSO_NONE },
	{ "ipv6 fragment", { .ipv6 = true, .ip6_frag = true,
			     .payload_len = 100 },
	  0x86dd, 14, 0, 62, IPPROTO_TCP, FRAME_GSO_NONE },
	{ "ipv4 first fragment (MF)",
	  { .ip_frag = 0x2000, .payload_len = 100 },
	  0x0800, 14, 0, 34, IPPROTO_TCP, FRAME_GSO_NONE },
	{ "ipv4 later fragment", { .ip_frag = 0x00b9, .payload_len = 100 },
	  0x0800, 14, 0, 34, IPPROTO_TCP, FRAME_GSO_NONE },
};

/* Compare every field; print what differs. Returns the number of misses. */
static int frame_diff(const struct frame *g, const struct frame *w)
{
	int bad = 0;

#define FIELD(x)                                                              \
	do {                                                                  \
		if ((long long)g->x != (long long)w->x) {                     \
			printf("#   " #x ": got %lld, want %lld\n",           \
			       (long long)g->x, (long long)w->x);             \
			bad++;                                                \
		}                                                             \
	} while (0)
	FIELD(len);
	FIELD(ethertype);
	FIELD(l3_off);
	FIELD(l4_off);
	FIELD(hdr_len);
	FIELD(l4_proto);
	FIELD(gso);
	FIELD(ecn);
	FIELD(needs_csum);
	FIELD(gso_size);
	FIELD(csum_start);
	FIELD(csum_offset);
#undef FIELD
	if (g->data != w->data) {
		printf("#   data pointer differs\n");
		bad++;
	}
	return bad;
}

/*
 * Case c, a frame, or with tun the packet a tun reads: the offsets
 * written down for the frame less its link header (l3_off 0).
 */
static void test_valid_one(const struct valid_case *c)
{
	const char *mode = tun ? "tun: " : "";
	uint16_t link = tun ? c->l3_off : 0;
	struct frame f, w = { 0 };
	bool partial = c->s.partial || c->s.gso_size;

	build(&c->s);
	is_int(parse(&f), DROP_NONE, "%svalid: %s", mode, c->name);
	w.data = frame_copy;
	w.len = P.len;
	w.ethertype = c->ethertype;
	w.l3_off = c->l3_off - link;
	w.l4_off = c->l4_off ? c->l4_off - link : 0;
	w.hdr_len = c->hdr_len - link;
	w.l4_proto = c->l4_proto;
	w.gso = c->gso;
	w.ecn = c->s.ecn;
	w.needs_csum = partial;
	w.gso_size = c->s.gso_size;
	if (partial) {
		w.csum_start = w.l4_off ? w.l4_off : w.hdr_len;
		w.csum_offset = c->l4_proto == IPPROTO_TCP ? 16 :
				c->l4_proto == IPPROTO_UDP ? 6 : 2;
	}
	ok(frame_diff(&f, &w) == 0 && f.ip == (c->l3_off != 0),
	   "%svalid: %s: fields", mode, c->name);
}

static void test_valid(void)
{
	size_t i;

	for (i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++)
		test_valid_one(&valid_cases[i]);
	tun = true;
	for (i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++)
		if (tun_carries(&valid_cases[i].s))
			test_valid_one(&valid_cases[i]);
	tun = false;
}

/*
 * hdr_len is never trusted: any value inside the frame gives the computed
 * one; past the frame's end (3066 bytes) it is refused, as tun_get_user().
 */
static void test_hdr_len_lies(void)
{
	static const uint16_t lies[] = { 0, 1, 53, 55, 1000, 3066 };
	static const uint16_t past[] = { 3067, 4000, 65535 };
	struct pkt_spec s = { .tcp_opt_len = TS, .payload_len = 3000,
			      .gso_size = 1448 };
	struct frame f;
	size_t i;
	int bad = 0;

	pkt_build(&s, &P);
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		P.vh.hdr_len = lies[i];
		if (parse(&f) != DROP_NONE || f.hdr_len != 66) {
			printf("#   hdr_len %u: hdr_len %u\n", lies[i],
			       f.hdr_len);
			bad++;
		}
	}
	ok(!bad, "hdr_len from the tap is ignored, computed 66");
	for (i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		P.vh.hdr_len = past[i];
		is_int(parse(&f), DROP_TX_HDR_LEN,
		       "hdr_len %u past the frame's end: refused", past[i]);
	}
}

/* Odds and ends that are valid. */
static void test_valid_edges(void)
{
	struct pkt_spec s = { .payload_len = 100, .partial = true };
	struct pkt_spec many = { .payload_len = 8192, .gso_size = 8 };
	struct frame f;

	pkt_build(&s, &P);
	P.vh.gso_size = 1448;
	ok(parse(&f) == DROP_NONE && f.gso_size == 0 && f.gso == 0,
	   "gso_size without gso_type: ignored");

	pkt_build(&s, &P);
	P.vh.flags |= VIRTIO_NET_HDR_F_DATA_VALID;
	is_int(parse(&f), DROP_NONE, "DATA_VALID beside NEEDS_CSUM accepted");

	pkt_build(&s, &P);
	P.vh.csum_offset = (uint16_t)(P.len - 2 - P.vh.csum_start);
	ok(parse(&f) == DROP_NONE && f.csum_offset == P.vh.csum_offset,
	   "csum field in the last two bytes");

	pkt_build(&s, &P);
	P.vh.csum_start = 14;
	P.vh.csum_offset = 0;
	is_int(parse(&f), DROP_NONE, "csum_start 14 (no GSO) accepted");

	pkt_build(&many, &P);
	ok(parse(&f) == DROP_NONE && f.gso_size == 8,
	   "exactly VNET_MAX_SEGS segments accepted");

	pkt_build(&(struct pkt_spec){ .payload_len = 14 }, &P);
	P.len = 14;
	P.buf[12] = 0x08;
	P.buf[13] = 0x06;
	ok(parse(&f) == DROP_NONE && f.ethertype == 0x0806 && !f.l3_off,
	   "bare 14-byte Ethernet header");
}

/* ---- malformed ------------------------------------------------------ */

struct bad_case {
	const char *name;
	struct pkt_spec s;
	void (*mut)(struct pkt *p);
	int err;
};

static void m_gso_size0(struct pkt *p)
{
	p->vh.gso_size = 0;
}

static void m_csum_start_end(struct pkt *p)
{
	p->vh.csum_start = (uint16_t)p->len;
}

static void m_csum_start_far(struct pkt *p)
{
	p->vh.csum_start = 65535;
}

static void m_csum_offset_end(struct pkt *p)
{
	p->vh.csum_offset = (uint16_t)(p->len - p->vh.csum_start - 1);
}

static void m_csum_offset_far(struct pkt *p)
{
	p->vh.csum_offset = 65535;
}

static void m_csum_start_13(struct pkt *p)
{
	p->vh.csum_start = 13;
	p->vh.csum_offset = 20;
}

static void m_csum_start_0(struct pkt *p)
{
	p->vh.csum_start = 0;
}

/* The field lands in the Ethernet padding, outside the datagram. */
static void m_csum_in_pad(struct pkt *p)
{
	p->vh.csum_offset = (uint16_t)(p->ip_end - p->vh.csum_start - 1);
}

static void m_type2(struct pkt *p)
{
	p->vh.gso_type = 2;
}

static void m_type3(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_UDP;
}

static void m_type6(struct pkt *p)
{
	p->vh.gso_type = 6;
}

static void m_type40(struct pkt *p)
{
	p->vh.gso_type = 0x40;
}

static void m_type80(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_ECN;
}

static void m_typeff(struct pkt *p)
{
	p->vh.gso_type = 0xff;
}

static void m_ecn(struct pkt *p)
{
	p->vh.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
}

static void m_tcpv4(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
}

static void m_tcpv6(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
}

static void m_tcpv6_sized(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	p->vh.gso_size = 1000;
}

static void m_udp_l4(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
}

/* TCPV4 on ARP, with a csum range that fits the frame. */
static void m_arp_gso(struct pkt *p)
{
	p->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	p->vh.gso_size = 1000;
	p->vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	p->vh.csum_start = 14;
	p->vh.csum_offset = 16;
}

static void m_no_needs_csum(struct pkt *p)
{
	p->vh.flags = 0;
}

static void m_csum_start_l4_2(struct pkt *p)
{
	p->vh.csum_start += 2;
	p->vh.csum_offset -= 2;
}

static void m_csum_start_l3(struct pkt *p)
{
	p->vh.csum_start = p->l3_off;
	p->vh.csum_offset = 10;
}

static void m_csum_offset_6(struct pkt *p)
{
	p->vh.csum_offset = 6;
}

static void m_csum_offset_16(struct pkt *p)
{
	p->vh.csum_offset = 16;
}

/* An IPv4 header field, with the header checksum kept right. */
static void ip4_set16(struct pkt *p, int off, uint16_t v)
{
	uint8_t *ip = p->buf + p->l3_off;

	pkt_put16(ip + off, v);
	pkt_put16(ip + 10, 0);
	pkt_put16(ip + 10, pkt_ip4_check(ip));
}

static void m_ip4_mf(struct pkt *p)
{
	ip4_set16(p, 6, 0x2000);
}

static void m_ip4_fragoff(struct pkt *p)
{
	ip4_set16(p, 6, 0x0001);
}

static void m_ihl(struct pkt *p, int ihl)
{
	uint8_t *ip = p->buf + p->l3_off;

	ip[0] = (uint8_t)(0x40 | ihl);
}

static void m_ihl0(struct pkt *p)
{
	m_ihl(p, 0);
}

static void m_ihl4(struct pkt *p)
{
	m_ihl(p, 4);
}

static void m_ihl15(struct pkt *p)
{
	m_ihl(p, 15);
}

static void m_ip_ver(struct pkt *p)
{
	p->buf[p->l3_off] = (uint8_t)((p->buf[p->l3_off] & 0x0f) | 0x60);
}

static void m_ip6_ver(struct pkt *p)
{
	p->buf[p->l3_off] = 0x40;
}

static void m_tot_len_big(struct pkt *p)
{
	ip4_set16(p, 2, (uint16_t)(p->len - p->l3_off + 1));
}

static void m_tot_len_19(struct pkt *p)
{
	ip4_set16(p, 2, 19);
}

static void m_tot_len_lt_ihl(struct pkt *p)
{
	ip4_set16(p, 2, 20);	/* ihl is 6 */
}

/* tot_len ends inside the TCP header; the rest lies in "padding". */
static void m_tot_len_in_l4(struct pkt *p)
{
	ip4_set16(p, 2, (uint16_t)(p->l4_off - p->l3_off + 4));
}

static void m_plen_big(struct pkt *p)
{
	pkt_put16(p->buf + p->l3_off + 4, p->len - p->l3_off - 40 + 1);
}

static void m_plen_in_l4(struct pkt *p)
{
	pkt_put16(p->buf + p->l3_off + 4, p->l4_off - p->l3_off - 40 + 4);
}

/* payload_len ends inside the first extension header. */
static void m_plen_4(struct pkt *p)
{
	pkt_put16(p->buf + p->l3_off + 4, 4);
}

static void m_plen_12(struct pkt *p)
{
	pkt_put16(p->buf + p->l3_off + 4, 12);
}

/* Destination options claiming 256 bytes in a short packet. */
static void m_ext_long(struct pkt *p)
{
	p->buf[p->l3_off + 40 + 1] = 31;
}

static void m_doff(struct pkt *p, int doff)
{
	uint8_t *th = p->buf + p->l4_off;

	th[12] = (uint8_t)((th[12] & 0x0f) | doff << 4);
}

static void m_doff0(struct pkt *p)
{
	m_doff(p, 0);
}

static void m_doff4(struct pkt *p)
{
	m_doff(p, 4);
}

static void m_doff15(struct pkt *p)
{
	m_doff(p, 15);
}

static void m_vlan_short(struct pkt *p)
{
	p->len = 17;
}

#define TCP4G { .payload_len = 3000, .gso_size = 1448 }
#define TCP6G { .ipv6 = true, .payload_len = 3000, .gso_size = 1428 }
#define UDP4G { .l4 = IPPROTO_UDP, .payload_len = 3000, .gso_size = 1200 }
#define UDP6G { .l4 = IPPROTO_UDP, .ipv6 = true, .payload_len = 3000, \
		.gso_size = 1200 }
#define TCP4P { .payload_len = 100, .partial = true }

static const struct bad_case bad_cases[] = {
	{ "gso_size 0 with TCPV4", TCP4G, m_gso_size0, DROP_TX_GSO_SIZE },
	{ "gso_size 0 with TCPV6", TCP6G, m_gso_size0, DROP_TX_GSO_SIZE },
	{ "gso_size 0 with UDP_L4", UDP4G, m_gso_size0, DROP_TX_GSO_SIZE },
	{ "too many segments (gso_size 1)",
	  { .payload_len = 2000, .gso_size = 1 }, NULL, DROP_TX_GSO_SIZE },
	{ "VNET_MAX_SEGS + 1 segments",
	  { .payload_len = 8193, .gso_size = 8 }, NULL, DROP_TX_GSO_SIZE },
	{ "too many UDP segments",
	  { .l4 = IPPROTO_UDP, .payload_len = 3000, .gso_size = 2 }, NULL,
	  DROP_TX_GSO_SIZE },
	{ "csum_start at the end", TCP4P, m_csum_start_end,
	  DROP_TX_CSUM_RANGE },
	{ "csum_start 65535", TCP4P, m_csum_start_far, DROP_TX_CSUM_RANGE },
	{ "csum_offset one past the end", TCP4P, m_csum_offset_end,
	  DROP_TX_CSUM_RANGE },
	{ "csum_offset 65535", TCP4P, m_csum_offset_far,
	  DROP_TX_CSUM_RANGE },
	{ "csum_start 13", TCP4P, m_csum_start_13, DROP_TX_CSUM_RANGE },
	{ "csum_start 0", TCP4P, m_csum_start_0, DROP_TX_CSUM_RANGE },
	{ "csum field in Ethernet padding",
	  { .payload_len = 0, .partial = true, .pad = 6 }, m_csum_in_pad,
	  DROP_TX_CSUM_RANGE },
	{ "csum_start past the end with GSO", TCP4G, m_csum_start_end,
	  DROP_TX_CSUM_RANGE },
	{ "gso_type 2", TCP4G, m_type2, DROP_TX_GSO_TYPE },
	{ "gso_type 3 (UFO)", UDP4G, m_type3, DROP_TX_GSO_TYPE },
	{ "gso_type 6", TCP4G, m_type6, DROP_TX_GSO_TYPE },
	{ "gso_type 0x40", TCP4G, m_type40, DROP_TX_GSO_TYPE },
	{ "gso_type 0x80 (ECN alone)", TCP4P, m_type80, DROP_TX_GSO_TYPE },
	{ "gso_type 0xff", TCP4G, m_typeff, DROP_TX_GSO_TYPE },
	{ "gso_type 2 with gso_size 0", TCP4P, m_type2, DROP_TX_GSO_TYPE },
	{ "ECN with UDP_L4", UDP4G, m_ecn, DROP_TX_GSO_TYPE },
	{ "ECN with UDP_L4 over IPv6", UDP6G, m_ecn, DROP_TX_GSO_TYPE },
	{ "TCPV4 on an IPv6 frame", TCP6G, m_tcpv4, DROP_TX_GSO_PROTO },
	{ "TCPV6 on an IPv4 frame", TCP4G, m_tcpv6, DROP_TX_GSO_PROTO },
	{ "UDP_L4 on TCP", TCP4G, m_udp_l4, DROP_TX_GSO_PROTO },
	{ "UDP_L4 on TCP over IPv6", TCP6G, m_udp_l4, DROP_TX_GSO_PROTO },
	{ "TCPV4 on UDP", UDP4G, m_tcpv4, DROP_TX_GSO_PROTO },
	{ "TCPV6 on UDP over IPv6", UDP6G, m_tcpv6, DROP_TX_GSO_PROTO },
	{ "TCPV4 on ARP", { .non_ip = true, .payload_len = 28 }, m_arp_gso,
	  DROP_TX_GSO_PROTO },
	{ "TCPV4 on ICMP",
	  { .l4 = IPPROTO_ICMP, .payload_len = 3000, .partial = true },
	  m_arp_gso, DROP_TX_GSO_PROTO },
	{ "TCPV4 behind three VLAN tags",
	  { .vlans = 3, .payload_len = 3000, .partial = true }, m_arp_gso,
	  DROP_TX_GSO_PROTO },
	{ "TCP GSO without NEEDS_CSUM", TCP4G, m_no_needs_csum,
	  DROP_TX_GSO_PROTO },
	{ "USO without NEEDS_CSUM", UDP6G, m_no_needs_csum,
	  DROP_TX_GSO_PROTO },
	{ "GSO csum_start not at L4", TCP4G, m_csum_start_l4_2,
	  DROP_TX_GSO_PROTO },
	{ "GSO csum_start at L3", TCP6G, m_csum_start_l3,
	  DROP_TX_GSO_PROTO },
	{ "TCP GSO csum_offset 6", TCP4G, m_csum_offset_6,
	  DROP_TX_GSO_PROTO },
	{ "USO csum_offset 16", UDP4G, m_csum_offset_16, DROP_TX_GSO_PROTO },
	{ "GSO on an IPv4 MF fragment", TCP4G, m_ip4_mf, DROP_TX_GSO_PROTO },
	{ "GSO on an IPv4 offset fragment", TCP4G, m_ip4_fragoff,
	  DROP_TX_GSO_PROTO },
	{ "USO on an IPv4 fragment", UDP4G, m_ip4_mf, DROP_TX_GSO_PROTO },
	{ "GSO on an IPv6 fragment",
	  { .ipv6 = true, .ip6_frag = true, .payload_len = 3000,
	    .partial = true },
	  m_tcpv6_sized, DROP_TX_GSO_PROTO },
	{ "IPv4 ihl 0", TCP4P, m_ihl0, DROP_TX_L3 },
	{ "IPv4 ihl 4", TCP4P, m_ihl4, DROP_TX_L3 },
	{ "IPv4 ihl 15 beyond the frame", { .payload_len = 0 }, m_ihl15,
	  DROP_TX_SHORT },
	{ "IPv4 version 6", TCP4P, m_ip_ver, DROP_TX_L3 },
	{ "IPv6 version 4", TCP6G, m_ip6_ver, DROP_TX_L3 },
	{ "IPv4 tot_len beyond the frame", TCP4G, m_tot_len_big, DROP_TX_L3 },
	{ "IPv4 tot_len 19", TCP4P, m_tot_len_19, DROP_TX_L3 },
	{ "IPv4 tot_len below ihl", { .ip_opt_len = 4, .payload_len = 10 },
	  m_tot_len_lt_ihl, DROP_TX_L3 },
	{ "IPv4 tot_len ends in the TCP header", TCP4P, m_tot_len_in_l4,
	  DROP_TX_SHORT },
	{ "IPv4 tot_len ends in the UDP header",
	  { .l4 = IPPROTO_UDP, .payload_len = 10 }, m_tot_len_in_l4,
	  DROP_TX_SHORT },
	{ "IPv6 payload_len beyond the frame", TCP6G, m_plen_big,
	  DROP_TX_L3 },
	{ "IPv6 payload_len ends in the TCP header", TCP6G, m_plen_in_l4,
	  DROP_TX_SHORT },
	{ "IPv6 extension header beyond the payload",
	  { .ipv6 = true, .ip6_dst_len = 8, .payload_len = 100 }, m_ext_long,
	  DROP_TX_SHORT },
	{ "IPv6 fragment header cut by payload_len",
	  { .ipv6 = true, .ip6_frag = true, .payload_len = 100 },
	  m_plen_4, DROP_TX_SHORT },
	{ "IPv6 dest opts cut by payload_len, 4 bytes in",
	  { .ipv6 = true, .ip6_dst_len = 16, .payload_len = 100 },
	  m_plen_4, DROP_TX_SHORT },
	{ "IPv6 dest opts cut by payload_len, 12 bytes in",
	  { .ipv6 = true, .ip6_dst_len = 16, .payload_len = 100 },
	  m_plen_12, DROP_TX_SHORT },
	{ "TCP doff 0", TCP4P, m_doff0, DROP_TX_L3 },
	{ "TCP doff 4", TCP4G, m_doff4, DROP_TX_L3 },
	{ "TCP doff 15 beyond the datagram", { .payload_len = 20 }, m_doff15,
	  DROP_TX_SHORT },
	{ "VLAN tag cut short", { .vlans = 1, .payload_len = 10 },
	  m_vlan_short, DROP_TX_SHORT },
};

/* A version nibble that is neither 4 nor 6, or a MAC's first byte. */
static void m_ver5(struct pkt *p)
{
	p->buf[0] = (uint8_t)((p->buf[0] & 0x0f) | 0x50);
}

static void m_mac_first(struct pkt *p)
{
	p->buf[0] = 0x02;
}

static void m_len19(struct pkt *p)
{
	p->len = 19;
}

/* In the IPv4 header, the TCP check field still at the frame's end. */
static void m_csum_start_19(struct pkt *p)
{
	p->vh.csum_start = 19;
	p->vh.csum_offset = (uint16_t)(p->check_off - 19);
}

/* What only a tun's packet can be refused for (tun_get_user()). */
static const struct bad_case tun_bad_cases[] = {
	{ "version 5: not IP", TCP4P, m_ver5, DROP_TX_L3 },
	{ "version 5 with GSO", TCP6G, m_ver5, DROP_TX_L3 },
	{ "first byte 0x02 (a MAC: an Ethernet frame)", TCP4G, m_mac_first,
	  DROP_TX_L3 },
	{ "19 bytes, under an IPv4 header", TCP4P, m_len19, DROP_TX_SHORT },
	{ "csum_start 19, inside the smallest IP header", TCP4P,
	  m_csum_start_19, DROP_TX_CSUM_RANGE },
};

/*
 * What case c is refused for in a tun: as in a tap, but a csum_start its
 * mutation puts below 20 (at 14, or at the IP header) lies inside the
 * smallest IP header, which is checked before GSO is.
 */
static int bad_err(const struct bad_case *c)
{
	if (tun && (c->mut == m_arp_gso || c->mut == m_csum_start_l3))
		return DROP_TX_CSUM_RANGE;
	return c->err;
}

/*
 * A tun's packet has no ethertype for its version to contradict: the
 * version is the family (frame_parse_ip()), so those cases are not its.
 */
static bool tun_has(const struct bad_case *c)
{
	return tun_carries(&c->s) && c->mut != m_ip_ver && c->mut != m_ip6_ver;
}

static void test_bad_one(const struct bad_case *c)
{
	struct frame f;

	build(&c->s);
	if (c->mut)
		c->mut(&P);
	is_int(parse(&f), bad_err(c), "%sbad: %s", tun ? "tun: " : "",
	       c->name);
}

/* Every malformed header again as a tun's packet, then the tun's own. */
static void test_bad(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		test_bad_one(&bad_cases[i]);
	tun = true;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		if (tun_has(&bad_cases[i]))
			test_bad_one(&bad_cases[i]);
	for (i = 0; i < sizeof(tun_bad_cases) / sizeof(tun_bad_cases[0]); i++)
		test_bad_one(&tun_bad_cases[i]);
	tun = false;
}

/* ---- truncation ----------------------------------------------------- */

/*
 * Cut the frame at every length. With fix set, the IP length field is made
 * to match the cut (so L4 truncation is seen as such); without it the IP
 * length lies once the IP header is complete.
 */
static void truncate_at(const struct pkt *full, uint32_t n, bool fix)
{
	memcpy(&P, full, sizeof(P));
	P.len = n;
	if (!fix || !P.proto || n < P.l3_off + 40u)
		return;
	if (P.buf[P.l3_off] >> 4 == 6) {
		pkt_put16(P.buf + P.l3_off + 4, n - P.l3_off - 40);
	} else {
		ip4_set16(&P, 2, (uint16_t)(n - P.l3_off));
	}
}

/* IPv4 length fixing needs only the 20-byte header; v6 the 40 above. */
static void truncate_at4(const struct pkt *full, uint32_t n, bool fix)
{
	memcpy(&P, full, sizeof(P));
	P.len = n;
	if (fix && P.proto && n >= P.l3_off + 20u)
		ip4_set16(&P, 2, (uint16_t)(n - P.l3_off));
}

static int want_cut(const struct pkt *full, uint32_t n, bool fix)
{
	const uint8_t *ip = full->buf + full->l3_off;
	uint32_t ipend = full->l3_off + 40u;

	if (ip[0] >> 4 == 4)
		ipend = full->l3_off + (ip[0] & 15) * 4u;
	if (n < ipend)
		return DROP_TX_SHORT;
	if (!fix)
		return DROP_TX_L3;
	return n < full->hdr_len ? DROP_TX_SHORT : DROP_NONE;
}

static void test_truncate_one(const char *name, const struct pkt_spec *s)
{
	static struct pkt full;
	struct frame f;
	uint32_t n;
	int fix;

	if (tun)
		pkt_build_ip(s, &full);
	else
		pkt_build(s, &full);
	for (fix = 0; fix < 2; fix++) {
		int bad = 0;

		for (n = 0; n < full.len; n++) {
			int want = want_cut(&full, n, fix);
			int got;

			if (s->ipv6)
				truncate_at(&full, n, fix);
			else
				truncate_at4(&full, n, fix);
			got = parse(&f);
			if (got != want && bad++ < 3)
				printf("#   len %u: got %d, want %d\n", n, got,
				       want);
		}
		ok(!bad, "%struncated %s at every length%s", tun ? "tun: " : "",
		   name, fix ? ", IP length fixed" : "");
	}
}

static void test_truncate(void)
{
	struct pkt_spec t4 = { .tcp_opt_len = TS, .ip_opt_len = 8,
			       .payload_len = 10 };
	struct pkt_spec t4v = { .vlans = 2, .payload_len = 10 };
	struct pkt_spec u4 = { .l4 = IPPROTO_UDP, .payload_len = 10 };
	struct pkt_spec t6 = { .ipv6 = true, .ip6_hbh = true,
			       .ip6_dst_len = 16, .tcp_opt_len = TS,
			       .payload_len = 10 };
	struct pkt_spec u6 = { .ipv6 = true, .l4 = IPPROTO_UDP,
			       .payload_len = 10 };

	test_truncate_one("tcp4 with options", &t4);
	test_truncate_one("tcp4 qinq", &t4v);
	test_truncate_one("udp4", &u4);
	test_truncate_one("tcp6 with extension headers", &t6);
	test_truncate_one("udp6", &u6);
	/* A tun's packet: under 20 bytes, or its IP header cut, is short. */
	tun = true;
	test_truncate_one("tcp4 with options", &t4);
	test_truncate_one("udp4", &u4);
	test_truncate_one("tcp6 with extension headers", &t6);
	test_truncate_one("udp6", &u6);
	tun = false;
}

/* hdr_len of a tun's packet: ignored, but past its end (3052 bytes). */
static void test_tun_hdr_len(void)
{
	static const uint16_t lies[] = { 0, 1, 51, 53, 1000, 3052 };
	static const uint16_t past[] = { 3053, 65535 };
	struct pkt_spec s = { .tcp_opt_len = TS, .payload_len = 3000,
			      .gso_size = 1448 };
	struct frame f;
	size_t i;
	int bad = 0;

	tun = true;
	build(&s);
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		P.vh.hdr_len = lies[i];
		if (parse(&f) != DROP_NONE || f.hdr_len != 52)
			bad++;
	}
	ok(!bad, "tun: hdr_len from the tun is ignored, computed 52");
	for (i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		P.vh.hdr_len = past[i];
		is_int(parse(&f), DROP_TX_HDR_LEN,
		       "tun: hdr_len %u past the packet's end: refused",
		       past[i]);
	}
	/* A bare IPv4 header, nothing after it: IP, no L4 header. */
	build(&(struct pkt_spec){ .l4 = IPPROTO_ICMP });
	ok(parse(&f) == DROP_NONE && f.ip && !f.l3_off && !f.l4_off &&
		   f.hdr_len == 20 && f.ethertype == 0x0800,
	   "tun: a bare 20-byte IPv4 header");
	tun = false;
}

/* ---- builders ------------------------------------------------------- */

static void test_build(void)
{
	struct virtio_net_hdr h;
	struct frame f;

	memset(&h, 0xa5, sizeof(h));
	vnet_hdr_build_plain(&h);
	ok(!h.flags && !h.gso_type && !h.hdr_len && !h.gso_size &&
		   !h.csum_start && !h.csum_offset,
	   "build_plain: all zero");

	memset(&h, 0xa5, sizeof(h));
	vnet_hdr_build_tcp(&h, false, 34, 66, 1448);
	ok(h.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM &&
		   h.gso_type == VIRTIO_NET_HDR_GSO_TCPV4 && h.hdr_len == 66 &&
		   h.gso_size == 1448 && h.csum_start == 34 &&
		   h.csum_offset == 16,
	   "build_tcp IPv4: the header a tap gives");

	memset(&h, 0xa5, sizeof(h));
	vnet_hdr_build_tcp(&h, true, 54, 86, 1428);
	ok(h.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM &&
		   h.gso_type == VIRTIO_NET_HDR_GSO_TCPV6 && h.hdr_len == 86 &&
		   h.gso_size == 1428 && h.csum_start == 54 &&
		   h.csum_offset == 16,
	   "build_tcp IPv6: the header a tap gives");

	pkt_build(&(struct pkt_spec){ .ipv6 = true, .vlans = 1,
				      .tcp_opt_len = TS,
				      .payload_len = 20000,
				      .gso_size = 1428 },
		  &P);
	vnet_hdr_build_tcp(&P.vh, true, P.l4_off, P.hdr_len, 1000);
	ok(parse(&f) == DROP_NONE && f.gso == FRAME_GSO_TCP6 &&
		   f.gso_size == 1000,
	   "build_tcp output parses back");
}

/* ---- flow hash ------------------------------------------------------ */

/* The flow hash of P (parsed), or 0 with a failure when it does not parse. */
static uint32_t flow_hash(const char *what)
{
	struct frame f;

	if (parse(&f)) {
		ok(0, "%s: parses", what);
		return 0;
	}
	return frame_flow_hash(&f);
}

static void set_sport(uint16_t port)
{
	pkt_put16(P.buf + P.l4_off, port);
}

/*
 * Two packets of one flow, x then y, hash alike; P is left holding y.
 * Returns the hash.
 */
static uint32_t same_flow(const struct pkt_spec *x, const struct pkt_spec *y,
			  const char *what)
{
	uint32_t a;

	pkt_build(x, &P);
	a = flow_hash(what);
	pkt_build(y, &P);
	is_int(flow_hash(what), a, "flow hash: %s", what);
	return a;
}

static void test_flow_hash(void)
{
	unsigned int used = 0, i;
	uint32_t a, b;

	a = same_flow(&(struct pkt_spec){ .payload_len = 100 },
		      &(struct pkt_spec){ .payload_len = 900, .seed = 7,
					  .seq = 12345, .ip_id = 99,
					  .tcp_flags = PKT_ACK | PKT_PSH,
					  .partial = true },
		      "another packet of a TCP flow hashes alike");
	set_sport(40002);
	b = flow_hash("tcp4 other port");
	ok(b != a, "flow hash: another source port, another hash");
	P.buf[P.l3_off + 19] ^= 1;
	ok(flow_hash("tcp4 other address") != b,
	   "flow hash: another destination address, another hash");

	/* Fragments carry no ports: all of a datagram go alike. */
	same_flow(&(struct pkt_spec){ .l4 = IPPROTO_UDP, .ip_frag = 0x2000,
				      .payload_len = 64 },
		  &(struct pkt_spec){ .l4 = IPPROTO_UDP, .ip_frag = 0x0010,
				      .payload_len = 64, .seed = 3 },
		  "the fragments of a datagram hash alike");

	a = same_flow(&(struct pkt_spec){ .ipv6 = true, .vlans = 1,
					  .payload_len = 100 },
		      &(struct pkt_spec){ .ipv6 = true, .vlans = 1,
					  .payload_len = 1000, .seed = 5,
					  .seq = 77 },
		      "IPv6 behind a VLAN tag, another packet alike");
	set_sport(40002);
	ok(flow_hash("tcp6 other port") != a,
	   "flow hash: IPv6, another source port, another hash");

	/* A tun's packet hashes as the frame that carried it did. */
	pkt_build(&(struct pkt_spec){ .payload_len = 100 }, &P);
	a = flow_hash("tcp4 frame");
	tun = true;
	pkt_build_ip(&(struct pkt_spec){ .payload_len = 100 }, &P);
	is_int(flow_hash("tun tcp4"), a,
	       "flow hash: a tun's TCP packet as its frame");
	pkt_build(&(struct pkt_spec){ .ipv6 = true, .l4 = IPPROTO_UDP,
				      .payload_len = 10 }, &P);
	tun = false;
	a = flow_hash("udp6 frame");
	tun = true;
	pkt_to_ip(&P);
	is_int(flow_hash("tun udp6"), a,
	       "flow hash: a tun's UDP/IPv6 packet as its frame");
	set_sport(40002);
	ok(flow_hash("tun udp6 other port") != a,
	   "flow hash: a tun's packet, another source port, another hash");
	tun = false;

	same_flow(&(struct pkt_spec){ .non_ip = true },
		  &(struct pkt_spec){ .non_ip = true, .seed = 9 },
		  "non-IP frames hash by Ethernet addresses");

	/* 64 connections from one host to another use all 8 ports. */
	pkt_build(&(struct pkt_spec){ .payload_len = 100 }, &P);
	for (i = 0; i < 64; i++) {
		set_sport((uint16_t)(33000 + i));
		used |= 1u << (flow_hash("tcp4 spread") % 8);
	}
	is_int(used, 0xff, "flow hash: 64 flows spread over all 8 ports");
}

int main(void)
{
	test_valid();
	test_hdr_len_lies();
	test_valid_edges();
	test_bad();
	test_truncate();
	test_tun_hdr_len();
	test_build();
	test_flow_hash();
	free(frame_copy);
	plan(tap_n);
	return done_testing();
}
