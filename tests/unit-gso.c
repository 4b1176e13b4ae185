// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test for gso: every segment of every super-frame is checked field by
 * field and against a kernel-style segmentation written out by hand here.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "arena.h"
#include "pkt.h"
#include "tap.h"

#define ARENA_SEGS 4096

static uint8_t arena[ARENA_SEGS * GSO_SLOT];
static struct seg segs[ARENA_SEGS];
static struct seg_arena A;
static struct pkt P;
static uint8_t orig[PKT_MAX];
static uint8_t got[PKT_MAX];
static uint8_t want[PKT_MAX];
static uint8_t payload[PKT_MAX];

struct gso_case {
	const char *name;
	struct pkt_spec s;
	uint16_t mss_cap;
	bool want_sum;
	int nsegs;	/* worked out by hand */
};

#define TS 12
#define UDP IPPROTO_UDP
#define FP (PKT_ACK | PKT_PSH | PKT_FIN)

static const struct gso_case cases[] = {
	/* TCP over IPv4 */
	{ "tcp4 exact multiple", { .payload_len = 5792, .gso_size = 1448 },
	  0, false, 4 },
	{ "tcp4 short last", { .payload_len = 5892, .gso_size = 1448 },
	  0, false, 5 },
	{ "tcp4 timestamps",
	  { .tcp_opt_len = TS, .payload_len = 4351, .gso_size = 1448,
	    .seq = 1000, .ip_id = 77 },
	  0, true, 4 },
	{ "tcp4 ip options + timestamps",
	  { .ip_opt_len = 8, .tcp_opt_len = TS, .payload_len = 10000,
	    .gso_size = 1440, .seq = 0x12345678, .ip_id = 4242 },
	  0, false, 7 },
	{ "tcp4 vlan", { .vlans = 1, .payload_len = 3000, .gso_size = 1448 },
	  0, false, 3 },
	{ "tcp4 qinq", { .vlans = 2, .payload_len = 2896, .gso_size = 1448 },
	  0, false, 2 },
	{ "tcp4 ecn cwr",
	  { .tcp_flags = PKT_ACK | PKT_CWR | PKT_ECE, .ecn = true,
	    .payload_len = 4000, .gso_size = 1448 },
	  0, false, 3 },
	{ "tcp4 fin psh", { .tcp_flags = FP, .payload_len = 4000,
			    .gso_size = 1448 },
	  0, false, 3 },
	{ "tcp4 cwr fin psh urg, mss_cap",
	  { .tcp_flags = FP | PKT_CWR | PKT_URG, .ecn = true,
	    .payload_len = 4000, .gso_size = 1448 },
	  1000, false, 4 },
	{ "tcp4 fits one segment",
	  { .tcp_flags = FP | PKT_CWR, .payload_len = 1000, .gso_size = 1448 },
	  0, false, 1 },
	{ "tcp4 exactly gso_size", { .payload_len = 1448, .gso_size = 1448 },
	  0, false, 1 },
	{ "tcp4 no payload",
	  { .tcp_flags = FP | PKT_CWR, .payload_len = 0, .gso_size = 1448 },
	  0, false, 1 },
	{ "tcp4 64k", { .tcp_opt_len = TS, .payload_len = 65483,
			.gso_size = 1448, .seq = 7 },
	  0, false, 46 },
	{ "tcp4 mss_cap", { .payload_len = 5792, .gso_size = 1448 },
	  1000, false, 6 },
	{ "tcp4 mss_cap above gso_size",
	  { .payload_len = 5792, .gso_size = 1448 }, 9000, false, 4 },
	{ "tcp4 odd mss_cap", { .payload_len = 3000, .gso_size = 1448 },
	  999, true, 4 },
	{ "tcp4 id and seq wrap",
	  { .payload_len = 5792, .gso_size = 1448, .ip_id = 0xfffe,
	    .seq = 0xfffffc00 },
	  0, false, 4 },
	{ "tcp4 trailing junk",
	  { .payload_len = 3000, .gso_size = 1448, .pad = 7 }, 0, false, 3 },
	/* TCP over IPv6 */
	{ "tcp6 exact multiple",
	  { .ipv6 = true, .payload_len = 5712, .gso_size = 1428 },
	  0, false, 4 },
	{ "tcp6 timestamps short last",
	  { .ipv6 = true, .tcp_opt_len = TS, .payload_len = 5000,
	    .gso_size = 1428, .seq = 99 },
	  0, true, 4 },
	{ "tcp6 vlan ecn",
	  { .ipv6 = true, .vlans = 1, .tcp_flags = PKT_ACK | PKT_CWR,
	    .ecn = true, .payload_len = 3000, .gso_size = 1428 },
	  0, false, 3 },
	{ "tcp6 fin psh",
	  { .ipv6 = true, .tcp_flags = FP, .payload_len = 3000,
	    .gso_size = 1428 },
	  0, false, 3 },
	{ "tcp6 hop-by-hop + dest opts",
	  { .ipv6 = true, .ip6_hbh = true, .ip6_dst_len = 16,
	    .payload_len = 4000, .gso_size = 1400 },
	  0, false, 3 },
	{ "tcp6 mss_cap",
	  { .ipv6 = true, .payload_len = 5712, .gso_size = 1428 },
	  600, false, 10 },
	{ "tcp6 fits one segment",
	  { .ipv6 = true, .payload_len = 500, .gso_size = 1428 },
	  0, false, 1 },
	{ "tcp6 64k",
	  { .ipv6 = true, .tcp_opt_len = TS, .payload_len = 65503,
	    .gso_size = 1428, .seq = 0xffffffff },
	  0, false, 46 },
	{ "tcp6 qinq timestamps",
	  { .ipv6 = true, .vlans = 2, .tcp_opt_len = TS,
	    .payload_len = 10000, .gso_size = 1428 },
	  0, false, 8 },
	/* UDP L4 (USO) */
	{ "udp4 short last, mss_cap ignored",
	  { .l4 = UDP, .payload_len = 4100, .gso_size = 1200, .ip_id = 9 },
	  500, false, 4 },
	{ "udp4 exact multiple",
	  { .l4 = UDP, .payload_len = 3600, .gso_size = 1200 }, 0, true, 3 },
	{ "udp6", { .l4 = UDP, .ipv6 = true, .payload_len = 4100,
		    .gso_size = 1200 },
	  0, false, 4 },
	{ "udp6 vlan dest opts",
	  { .l4 = UDP, .ipv6 = true, .vlans = 1, .ip6_dst_len = 8,
	    .payload_len = 2500, .gso_size = 1000 },
	  0, false, 3 },
	{ "udp4 fits one segment",
	  { .l4 = UDP, .payload_len = 800, .gso_size = 1200 }, 0, false, 1 },
	{ "udp4 odd gso_size",
	  { .l4 = UDP, .payload_len = 3000, .gso_size = 1001 }, 0, false, 3 },
	{ "udp4 ip options",
	  { .l4 = UDP, .ip_opt_len = 4, .payload_len = 2000,
	    .gso_size = 1000 },
	  0, false, 2 },
	{ "udp4 64k", { .l4 = UDP, .payload_len = 65507, .gso_size = 1472 },
	  0, false, 45 },
	/* Not GSO */
	{ "tcp4 partial", { .payload_len = 1000, .partial = true },
	  0, false, 1 },
	{ "tcp4 partial want_sum", { .payload_len = 1001, .partial = true },
	  0, true, 1 },
	{ "udp6 partial",
	  { .l4 = UDP, .ipv6 = true, .payload_len = 777, .partial = true },
	  0, false, 1 },
	{ "tcp4 partial padded",
	  { .payload_len = 2, .partial = true, .pad = 4 }, 0, false, 1 },
	{ "tcp4 complete, want_sum", { .payload_len = 999 }, 0, true, 1 },
	{ "udp4 complete", { .l4 = UDP, .payload_len = 500 }, 0, false, 1 },
	{ "tcp6 complete, mss_cap ignored",
	  { .ipv6 = true, .payload_len = 3000 }, 1000, true, 1 },
	{ "arp padded, want_sum",
	  { .non_ip = true, .payload_len = 28, .pad = 18 }, 0, true, 1 },
	{ "arp vlan", { .non_ip = true, .vlans = 1, .payload_len = 28 },
	  0, false, 1 },
	{ "icmp4 partial",
	  { .l4 = IPPROTO_ICMP, .payload_len = 64, .partial = true },
	  0, false, 1 },
	{ "ipv6 fragment, want_sum",
	  { .ipv6 = true, .ip6_frag = true, .payload_len = 301 }, 0, true, 1 },
	{ "ipv6 headers beyond GSO_HDR_MAX",
	  { .ipv6 = true, .ip6_dst_len = 256, .payload_len = 500 },
	  0, true, 1 },
};

/* ---- reference --------------------------------------------------------- */

/* Plan f into the whole arena, empty. */
static int plan_empty(const struct frame *f, uint16_t mss_cap, bool want_sum)
{
	seg_arena_init(&A, arena, segs, ARENA_SEGS);
	return gso_plan(f, &A, mss_cap, want_sum);
}

static bool is_tcp(const struct pkt *p)
{
	return p->l4_off && p->proto == IPPROTO_TCP;
}

/* The L4 checksum of a segment of len bytes in s, recomputed naively. */
static uint16_t ref_l4_check(uint8_t *s, const struct pkt *p, uint32_t len)
{
	uint32_t l4len = len - p->l4_off;
	uint16_t c;

	pkt_put16(s + p->check_off, 0);
	c = (uint16_t)~pkt_fold(pkt_pseudo(s + p->l3_off, p->proto, l4len) +
				 pkt_sum(s + p->l4_off, l4len, 0));
	return c;
}

/*
 * Segment i of n as tcp_gso_segment()/__udp_gso_segment() and
 * inet_gso_segment()/ipv6_gso_segment() make it: headers copied, lengths,
 * IPv4 id + i and header checksum, seq + offset, FIN/PSH last only, CWR
 * first only, UDP length, L4 checksum over the segment (UDP: 0 -> 0xffff).
 */
static uint32_t ref_gso_seg(const struct pkt *p, const struct pkt_spec *s,
			    uint32_t mss, uint32_t i, uint32_t n, uint8_t *out)
{
	uint32_t total = p->ip_end - p->hdr_len, off = i * mss;
	uint32_t plen = total - off < mss ? total - off : mss;
	uint32_t len = p->hdr_len + plen;
	uint8_t *ip = out + p->l3_off, *l4 = out + p->l4_off;
	uint16_t c;

	memcpy(out, p->buf, p->hdr_len);
	memcpy(out + p->hdr_len, p->buf + p->hdr_len + off, plen);
	if (s->ipv6) {
		pkt_put16(ip + 4, len - p->l3_off - 40);
	} else {
		pkt_put16(ip + 2, len - p->l3_off);
		pkt_put16(ip + 4, (uint16_t)(s->ip_id + i));
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	}
	if (is_tcp(p)) {
		pkt_put32(l4 + 4, s->seq + off);
		if (i + 1 < n)
			l4[13] &= (uint8_t)~(PKT_FIN | PKT_PSH);
		if (i > 0)
			l4[13] &= (uint8_t)~PKT_CWR;
	} else {
		pkt_put16(l4 + 4, len - p->l4_off);
	}
	c = ref_l4_check(out, p, len);
	if (!is_tcp(p) && c == 0)
		c = 0xffff;
	pkt_put16(out + p->check_off, c);
	return len;
}

/* What is sent for a frame that is not GSO: IP frames lose padding. */
static uint32_t ref_end(const struct pkt *p, const struct frame *f)
{
	return f->ip ? p->ip_end : p->len;
}

/* skb_checksum_help(): the field completed over csum_start..end. */
static uint32_t ref_single(const struct pkt *p, const struct frame *f,
			   uint8_t *out)
{
	uint32_t end = ref_end(p, f);
	uint32_t at = (uint32_t)p->vh.csum_start + p->vh.csum_offset;
	uint16_t c;

	memcpy(out, p->buf, end);
	if (p->vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		c = (uint16_t)~pkt_fold(pkt_sum(out + p->vh.csum_start,
						end - p->vh.csum_start, 0));
		pkt_put16(out + at, c ? c : 0xffff);
	}
	return end;
}

/* Header block a single segment must have: all headers, or at least the
 * bytes through the check field, capped at GSO_HDR_MAX. */
static uint32_t ref_single_hlen(const struct pkt *p, const struct frame *f)
{
	uint32_t h = f->hdr_len < GSO_HDR_MAX ? f->hdr_len : GSO_HDR_MAX;
	uint32_t need = 0;

	if (p->vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		need = (uint32_t)p->vh.csum_start + p->vh.csum_offset + 2;
	return h > need ? h : need;
}

/* ---- checks ------------------------------------------------------------ */

enum {
	C_LAYOUT, C_PAYLOAD, C_IPID, C_LEN, C_IPCSUM, C_SEQ, C_FLAGS,
	C_L4CSUM, C_SUM, C_REF, C_UNTOUCHED, C__N
};

static const char *const check_names[C__N] = {
	[C_LAYOUT] = "header blocks in arena slots, payload points into frame",
	[C_PAYLOAD] = "concatenated payload equals the original",
	[C_IPID] = "IPv4 id sequence",
	[C_LEN] = "IP/UDP lengths",
	[C_IPCSUM] = "IPv4 header checksums",
	[C_SEQ] = "TCP seq",
	[C_FLAGS] = "TCP flags by position",
	[C_L4CSUM] = "L4 checksums recomputed naively",
	[C_SUM] = "seg.sum equals a naive sum from sum_off",
	[C_REF] = "segments equal the hand-written segmentation",
	[C_UNTOUCHED] = "frame not modified",
};

static int fails[C__N];

static void fail(int c, uint32_t i, const char *fmt, ...)
{
	va_list ap;

	if (fails[c]++)
		return;
	printf("#   segment %u: ", i);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* 32-bit memory-order wsum to a host-order value modulo 0xffff. */
static uint32_t wsum_mod(uint32_t wsum)
{
	uint16_t v = (uint16_t)pkt_fold(wsum);

	return ntohs(v) % 0xffff;
}

static void check_sum(const struct seg *s, uint32_t i, uint32_t len,
		      bool want_valid, uint32_t want_off)
{
	uint32_t naive;

	if (s->sum_valid != want_valid) {
		fail(C_SUM, i, "sum_valid %d", s->sum_valid);
		return;
	}
	if (!want_valid)
		return;
	if (s->sum_off != want_off) {
		fail(C_SUM, i, "sum_off %u, want %u", s->sum_off, want_off);
		return;
	}
	naive = pkt_fold(pkt_sum(got + s->sum_off, len - s->sum_off, 0));
	if (wsum_mod(s->sum) != naive % 0xffff)
		fail(C_SUM, i, "sum %#x, naive %#x", wsum_mod(s->sum), naive);
}

/* Fields of segment i (bytes in got) checked on their own. */
static void check_fields(const struct pkt *p, const struct pkt_spec *s,
			 uint32_t mss, uint32_t i, uint32_t n, uint32_t len)
{
	const uint8_t *ip = got + p->l3_off, *l4 = got + p->l4_off;
	uint8_t flags = s->tcp_flags ? s->tcp_flags : PKT_ACK;
	uint32_t l3len = s->ipv6 ? pkt_get16(ip + 4) + 40u : pkt_get16(ip + 2);
	uint16_t c;

	if (!s->ipv6 && pkt_get16(ip + 4) != (uint16_t)(s->ip_id + i))
		fail(C_IPID, i, "id %u", pkt_get16(ip + 4));
	if (l3len != len - p->l3_off)
		fail(C_LEN, i, "IP length %u, want %u", l3len, len - p->l3_off);
	if (!is_tcp(p) && pkt_get16(l4 + 4) != len - p->l4_off)
		fail(C_LEN, i, "UDP length %u", pkt_get16(l4 + 4));
	if (!s->ipv6 && pkt_fold(pkt_sum(ip, (ip[0] & 15) * 4u, 0)) != 0xffff)
		fail(C_IPCSUM, i, "IPv4 header checksum wrong");
	if (is_tcp(p) && pkt_get32(l4 + 4) != s->seq + i * mss)
		fail(C_SEQ, i, "seq %u", pkt_get32(l4 + 4));
	if (i + 1 < n)
		flags &= (uint8_t)~(PKT_FIN | PKT_PSH);
	if (i > 0)
		flags &= (uint8_t)~PKT_CWR;
	if (is_tcp(p) && l4[13] != flags)
		fail(C_FLAGS, i, "flags %#x, want %#x", l4[13], flags);
	memcpy(want, got, len);
	c = ref_l4_check(want, p, len);
	if (!is_tcp(p) && c == 0)
		c = 0xffff;
	if (pkt_get16(l4 + p->check_off - p->l4_off) != c)
		fail(C_L4CSUM, i, "check %#x, want %#x",
		     pkt_get16(got + p->check_off), c);
}

/* Copy segment s (header block, then payload) into got; returns length. */
static uint32_t seg_bytes(const struct seg *s)
{
	memcpy(got, s->hdr, s->hdr_len);
	memcpy(got + s->hdr_len, s->payload, s->payload_len);
	return seg_len(s);
}

static void check_gso_segs(const struct pkt *p, const struct gso_case *c,
			   uint32_t n)
{
	uint32_t mss = c->s.gso_size, total = p->ip_end - p->hdr_len;
	uint32_t i, len, wlen, off = 0;

	if (is_tcp(p) && c->mss_cap && c->mss_cap < mss)
		mss = c->mss_cap;
	for (i = 0; i < n; i++) {
		const struct seg *s = &segs[i];

		if (s->hdr != arena + i * GSO_SLOT + GSO_HEADROOM ||
		    s->hdr_len != p->hdr_len ||
		    s->payload != P.buf + p->hdr_len + off)
			fail(C_LAYOUT, i, "hdr %p hdr_len %u payload %p",
			     (void *)s->hdr, s->hdr_len,
			     (const void *)s->payload);
		if (off + s->payload_len <= total)
			memcpy(payload + off, s->payload, s->payload_len);
		off += s->payload_len;
		len = seg_bytes(s);
		check_fields(p, &c->s, mss, i, n, len);
		check_sum(s, i, len, true, p->l4_off);
		wlen = ref_gso_seg(p, &c->s, mss, i, n, want);
		if (wlen != len || memcmp(want, got, len))
			fail(C_REF, i, "differs (len %u, want %u)", len, wlen);
	}
	if (off != total || memcmp(payload, orig + p->hdr_len, total))
		fail(C_PAYLOAD, 0, "%u bytes of %u, or content", off, total);
}

static void check_single(const struct pkt *p, const struct gso_case *c,
			 const struct frame *f)
{
	const struct seg *s = &segs[0];
	uint32_t hlen = ref_single_hlen(p, f), end = ref_end(p, f), len;
	bool partial = c->s.partial;

	if (s->hdr != arena + GSO_HEADROOM || s->hdr_len != hlen ||
	    s->payload != P.buf + hlen || s->payload_len != end - hlen)
		fail(C_LAYOUT, 0, "hdr_len %u (want %u) payload_len %u",
		     s->hdr_len, hlen, s->payload_len);
	len = seg_bytes(s);
	if (len != end || memcmp(got + hlen, orig + hlen, end - hlen))
		fail(C_PAYLOAD, 0, "payload differs");
	if (f->ip && f->l4_off)
		check_fields(p, &c->s, 0, 0, 1, len);
	check_sum(s, 0, len, partial || c->want_sum,
		  partial ? p->vh.csum_start : hlen);
	if (ref_single(p, f, want) != len || memcmp(want, got, len))
		fail(C_REF, 0, "differs");
}

/*
 * Build case c's frame, or with tun its IP packet as a tun reads it (no
 * link header, vnet offsets from the IP header: pkt_to_ip()), and parse
 * it as the device's mode does.
 */
static enum drop build_parse(const struct pkt_spec *s, bool tun,
			     struct frame *f)
{
	if (tun)
		pkt_build_ip(s, &P);
	else
		pkt_build(s, &P);
	return vnet_hdr_parse_as(tun, &P.vh, P.buf, P.len, f);
}

/* A tun carries IP alone: no VLAN tags, no ARP. */
static bool tun_carries(const struct pkt_spec *s)
{
	return !s->vlans && !s->non_ip;
}

static void run_case(const struct gso_case *c, bool tun)
{
	const char *mode = tun ? "tun: " : "";
	struct frame f;
	int n, k;
	bool ip4 = !c->s.ipv6 && !c->s.non_ip;

	memset(fails, 0, sizeof(fails));
	memset(segs, 0xa5, sizeof(segs[0]) * (size_t)(c->nsegs + 1));
	if (!is_int(build_parse(&c->s, tun, &f), DROP_NONE, "%s%s: parses",
		    mode, c->name))
		return;
	memcpy(orig, P.buf, P.len);
	n = plan_empty(&f, c->mss_cap, c->want_sum);
	if (!is_int(n, c->nsegs, "%s%s: segment count", mode, c->name))
		return;
	if (A.n != (unsigned int)n)
		fail(C_LAYOUT, 0, "a->n %u after %d segments", A.n, n);
	if (f.gso)
		check_gso_segs(&P, c, (uint32_t)n);
	else
		check_single(&P, c, &f);
	if (memcmp(P.buf, orig, P.len))
		fail(C_UNTOUCHED, 0, "frame bytes changed");
	for (k = 0; k < C__N; k++) {
		bool tcp = is_tcp(&P), l4 = P.l4_off && f.l4_off;

		if ((k == C_IPID || k == C_IPCSUM) && !(ip4 && l4))
			continue;
		if ((k == C_SEQ || k == C_FLAGS) && !(tcp && l4))
			continue;
		if ((k == C_LEN || k == C_L4CSUM) && !l4)
			continue;
		ok(!fails[k], "%s%s: %s", mode, c->name, check_names[k]);
	}
}

/*
 * Every case again as a tun's packet (--mode tun) but those a tun does
 * not carry: the same segments, their offsets from the IP header.
 */
static void test_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i], false);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (tun_carries(&cases[i].s))
			run_case(&cases[i], true);
}

/* ---- zero checksums ----------------------------------------------------- */

/*
 * Make the L4 checksum of segment k come out as 0 by choosing the first
 * payload word of that segment, then see what is sent: UDP gives 0xffff
 * (RFC 768, __udp_gso_segment()), TCP keeps 0 (tcp_gso_segment() does not
 * remap), and a completed non-GSO checksum gives 0xffff for both
 * (skb_checksum_help()).
 */
static void test_zero_one(const char *name, const struct pkt_spec *s,
			  uint32_t k, uint16_t want_check, bool tun)
{
	uint32_t mss = s->gso_size ? s->gso_size : 65535;
	uint32_t total, n, at, len;
	uint64_t acc;
	struct frame f;
	int r;

	if (tun)
		pkt_build_ip(s, &P);
	else
		pkt_build(s, &P);
	total = P.ip_end - P.hdr_len;
	n = (total + mss - 1) / mss;
	at = P.hdr_len + k * mss;
	pkt_put16(P.buf + at, 0);
	len = ref_gso_seg(&P, s, mss, k, n, want);
	pkt_put16(want + P.check_off, 0);
	acc = pkt_pseudo(want + P.l3_off, P.proto, len - P.l4_off) +
	      pkt_sum(want + P.l4_off, len - P.l4_off, 0);
	pkt_put16(P.buf + at, 0xffff - pkt_fold(acc));
	if (vnet_hdr_parse_as(tun, &P.vh, P.buf, P.len, &f) != DROP_NONE) {
		ok(0, "zero checksum, %s: parse", name);
		return;
	}
	r = plan_empty(&f, 0, false);
	ok(r == (int)n && (uint32_t)r > k &&
		   pkt_get16(segs[k].hdr + P.check_off) == want_check,
	   "zero checksum, %s: sent as %#x", name, want_check);
	if ((uint32_t)r > k) {
		len = seg_bytes(&segs[k]);
		acc = pkt_pseudo(got + P.l3_off, P.proto, len - P.l4_off) +
		      pkt_sum(got + P.l4_off, len - P.l4_off, 0);
		ok(pkt_fold(acc) == 0xffff,
		   "zero checksum, %s: segment verifies", name);
	}
}

static void test_zero(void)
{
	struct pkt_spec u4 = { .l4 = UDP, .payload_len = 3000,
			       .gso_size = 1000 };
	struct pkt_spec u6 = { .l4 = UDP, .ipv6 = true, .payload_len = 3000,
			       .gso_size = 1000 };
	struct pkt_spec t4 = { .payload_len = 3000, .gso_size = 1000 };
	struct pkt_spec u4p = { .l4 = UDP, .payload_len = 300,
				.partial = true };
	struct pkt_spec t6p = { .ipv6 = true, .payload_len = 300,
				.partial = true };

	test_zero_one("USO IPv4 segment 1", &u4, 1, 0xffff, false);
	test_zero_one("USO IPv6 last segment", &u6, 2, 0xffff, false);
	test_zero_one("TSO IPv4 segment 1", &t4, 1, 0, false);
	test_zero_one("UDP IPv4 not GSO", &u4p, 0, 0xffff, false);
	test_zero_one("TCP IPv6 not GSO", &t6p, 0, 0xffff, false);
	test_zero_one("tun, USO IPv4 segment 1", &u4, 1, 0xffff, true);
	test_zero_one("tun, USO IPv6 last segment", &u6, 2, 0xffff, true);
	test_zero_one("tun, TSO IPv4 segment 1", &t4, 1, 0, true);
	test_zero_one("tun, UDP IPv4 not GSO", &u4p, 0, 0xffff, true);
}

/* ---- odd csum_start ------------------------------------------------------ */

/* The sum runs from csum_start whatever its parity (virtio spec 5.1.6.2). */
static void test_odd_start(void)
{
	struct pkt_spec s = { .l4 = IPPROTO_ICMP, .payload_len = 65,
			      .partial = true };
	struct frame f;
	uint32_t len;
	int r;

	pkt_build(&s, &P);
	P.vh.csum_start = 35;
	P.vh.csum_offset = 2;	/* the field at 37, seeded 0 */
	P.buf[38] = 0;
	if (!is_int(vnet_hdr_parse(&P.vh, P.buf, P.len, &f), DROP_NONE,
		    "odd csum_start: parses"))
		return;
	r = plan_empty(&f, 0, true);
	len = r == 1 ? seg_bytes(&segs[0]) : 0;
	ok(r == 1 && len == P.ip_end &&
		   pkt_fold(pkt_sum(got + 35, len - 35, 0)) == 0xffff,
	   "odd csum_start: sum from byte 35 verifies");
	memset(fails, 0, sizeof(fails));
	if (r == 1)
		check_sum(&segs[0], 0, len, true, 35);
	ok(!fails[C_SUM], "odd csum_start: seg.sum from byte 35");
}

/* ---- room in the arena ------------------------------------------------- */

static int plan_spec_as(const struct pkt_spec *s, uint16_t mss_cap, bool tun)
{
	struct frame f;

	if (build_parse(s, tun, &f) != DROP_NONE)
		return -1000;
	return plan_empty(&f, mss_cap, true);
}

static int plan_spec(const struct pkt_spec *s, uint16_t mss_cap)
{
	return plan_spec_as(s, mss_cap, false);
}

/*
 * A plan appends at a->n: pre segments are in use before it, and the
 * arena holds cap in all. Room is counted in segments only.
 */
struct room_row {
	const char *name;
	struct pkt_spec s;
	uint16_t mss_cap;
	unsigned int pre, cap;
	int want;
};

#define TSO4 { .payload_len = 5792, .gso_size = 1448 }
#define USO3 { .l4 = UDP, .ipv6 = true, .payload_len = 3600, .gso_size = 1200 }
#define ONE { .payload_len = 100, .partial = true }
/* Headers of 262 bytes, over GSO_HDR_MAX. */
#define BIG { .ipv6 = true, .ip6_dst_len = 176, .tcp_opt_len = TS,       \
	      .payload_len = 3000, .gso_size = 1000 }

static const struct room_row room_rows[] = {
	{ "4 segments, an arena of exactly 4: planned", TSO4, 0, 0, 4, 4 },
	{ "4 segments, an arena of 3 (one too few): -ENOSPC", TSO4, 0, 0, 3,
	  -ENOSPC },
	{ "mss_cap needing 6 segments, an arena of 4: -ENOSPC", TSO4, 1000, 0,
	  4, -ENOSPC },
	{ "mss_cap needing 6 segments, an arena of 6: planned", TSO4, 1000, 0,
	  6, 6 },
	{ "USO of 3 segments, an arena of 2: -ENOSPC", USO3, 0, 0, 2,
	  -ENOSPC },
	{ "USO of 3 segments, an arena of exactly 3: planned", USO3, 0, 0, 3,
	  3 },
	{ "single segment, an arena of 1: planned", ONE, 0, 0, 1, 1 },
	{ "single segment, an arena of 0: -ENOSPC", ONE, 0, 0, 0, -ENOSPC },
	{ "4 segments after 3 in an arena of 7: appended at 3", TSO4, 0, 3, 7,
	  4 },
	{ "4 segments after 4 in an arena of 7: -ENOSPC", TSO4, 0, 4, 7,
	  -ENOSPC },
	{ "USO after 5 in an arena of 8: appended at 5", USO3, 0, 5, 8, 3 },
	{ "USO after 6 in an arena of 8: -ENOSPC", USO3, 0, 6, 8, -ENOSPC },
	{ "mss_cap needing 6 after 1 in an arena of 6: -ENOSPC", TSO4, 1000,
	  1, 6, -ENOSPC },
	{ "single segment after 2 in an arena of 3: appended at 2", ONE, 0, 2,
	  3, 1 },
	{ "single segment into a full arena of 2: -ENOSPC", ONE, 0, 2, 2,
	  -ENOSPC },
	{ "headers over GSO_HDR_MAX after 2: -EINVAL", BIG, 0, 2, 64,
	  -EINVAL },
};

static struct seg ref_segs[8];
static uint8_t ref_blk[8][GSO_HDR_MAX];
static uint8_t arena_was[sizeof(arena)];
static struct seg segs_was[ARENA_SEGS];
static const struct arena_watch watch = {
	arena, arena_was, segs, segs_was, ARENA_SEGS
};

/* Segment i of A planned as ref_segs[i] was into an empty arena. */
static bool same_as_ref(unsigned int at, unsigned int i)
{
	const struct seg *s = &segs[at], *r = &ref_segs[i];

	return s->hdr == seg_arena_block(&A, at) && s->hdr_len == r->hdr_len &&
	       !memcmp(s->hdr, ref_blk[i], s->hdr_len) &&
	       s->payload == r->payload && s->payload_len == r->payload_len &&
	       s->sum_off == r->sum_off && s->sum == r->sum &&
	       s->sum_valid == r->sum_valid;
}

static void test_room_row(const struct room_row *r)
{
	unsigned int i, n = r->want > 0 ? (unsigned int)r->want : 0;
	int res, ref;
	bool same = true;
	struct frame f;

	ref = plan_spec(&r->s, r->mss_cap);
	for (i = 0; ref > 0 && i < (unsigned int)ref && i < 8; i++) {
		ref_segs[i] = segs[i];
		memcpy(ref_blk[i], segs[i].hdr, segs[i].hdr_len);
	}
	if (vnet_hdr_parse(&P.vh, P.buf, P.len, &f) != DROP_NONE) {
		ok(0, "%s: parses", r->name);
		return;
	}
	/* Whatever was there before: a pattern the plan must not touch. */
	arena_watch_start(&watch, &A, r->cap, r->pre);
	res = gso_plan(&f, &A, r->mss_cap, true);
	is_int(res, r->want, "%s", r->name);
	is_int(A.n, r->pre + n, "%s: a->n counts what was appended", r->name);
	ok(arena_untouched_but(&watch, r->pre, r->pre + n),
	   "%s: other slots and segments untouched", r->name);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		same = same && (int)n == ref && same_as_ref(r->pre + i, i);
	ok(same, "%s: the segments of an empty arena, at its slots", r->name);
}

static void test_room(void)
{
	size_t i;

	for (i = 0; i < sizeof(room_rows) / sizeof(room_rows[0]); i++)
		test_room_row(&room_rows[i]);
}

/* ---- errors ------------------------------------------------------------- */

static void test_einval(void)
{
	/* Header lengths are 2 mod 4: 254 is the most that fits in 256. */
	struct pkt_spec big = { .ipv6 = true, .ip6_dst_len = 176,
				.tcp_opt_len = TS, .payload_len = 3000,
				.gso_size = 1000 };
	struct pkt_spec edge = { .ipv6 = true, .ip6_dst_len = 168,
				 .tcp_opt_len = TS, .payload_len = 3000,
				 .gso_size = 1000 };
	struct pkt_spec far = { .ipv6 = true, .ip6_dst_len = 256,
				.payload_len = 100, .partial = true };

	is_int(plan_spec(&big, 0), -EINVAL,
	       "GSO headers of 262 bytes (> GSO_HDR_MAX): -EINVAL");
	is_int(plan_spec(&edge, 0), 3,
	       "GSO headers of 254 bytes: segmented");
	is_int(plan_spec(&far, 0), -EINVAL,
	       "check field beyond GSO_HDR_MAX: -EINVAL");
	/* A tun's packet has no Ethernet header: 14 more bytes of room. */
	edge.ip6_dst_len = 184;
	is_int(plan_spec_as(&edge, 0, true), 3,
	       "tun: GSO headers of exactly 256 bytes: segmented");
	edge.ip6_dst_len = 192;
	is_int(plan_spec_as(&edge, 0, true), -EINVAL,
	       "tun: GSO headers of 264 bytes (> GSO_HDR_MAX): -EINVAL");
	is_int(plan_spec_as(&far, 0, true), -EINVAL,
	       "tun: check field beyond GSO_HDR_MAX: -EINVAL");
}

int main(void)
{
	test_cases();
	test_zero();
	test_odd_start();
	test_room();
	test_einval();
	plan(tap_n);
	return done_testing();
}
