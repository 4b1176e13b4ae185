// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test for pmtu: budgets written out from the RFC header sizes, ICMP
 * replies checked field by field, fragments reassembled here independently.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/errqueue.h>
#include "pipe/pmtu.h"
#include "arena.h"
#include "pkt.h"
#include "tap.h"

static struct pkt P;
static uint8_t out[PMTU_ICMP_MAX + 64];
/* 8 data bytes a fragment: a 64 KiB datagram gives up to 8192 */
#define MAXF 8200

static uint8_t arena[MAXF * GSO_SLOT];
static struct seg frags[MAXF];
static struct seg_arena A;
static uint8_t inblk[GSO_SLOT];
static uint8_t inblk_copy[GSO_SLOT];
static uint8_t reasm[70000];
static uint8_t covered[70000];

/* ---- budget ---------------------------------------------------------- */

struct budget_row {
	enum encap_type type;
	bool key, csum, seq, v6;
	uint32_t path;
	uint32_t want;
};

/*
 * want = path - (outer IP 20/40 + UDP 8 (RFC 768) + VXLAN 8 (RFC 7348 5)
 * or GRE 4 + 4 per C/K/S (RFC 2784 2.1, RFC 2890 2)), written out by hand;
 * 0 once less than an inner Ethernet header (14) is left. Paths over the
 * largest packet (65535; IPv6 40 + 65535) count as that.
 */
static const struct budget_row budget_rows[] = {
	{ ENCAP_VXLAN, 0, 0, 0, false, 1500, 1464 },
	{ ENCAP_VXLAN, 0, 0, 0, true, 1500, 1444 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 1400, 1364 },
	{ ENCAP_VXLAN, 0, 0, 0, true, 1280, 1224 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 552, 516 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 9000, 8964 },
	/* GRE options do not change VXLAN */
	{ ENCAP_VXLAN, 1, 1, 1, false, 1500, 1464 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 50, 14 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 49, 0 },
	{ ENCAP_VXLAN, 0, 0, 0, true, 70, 14 },
	{ ENCAP_VXLAN, 0, 0, 0, true, 69, 0 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 0, 0 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 20, 0 },
	{ ENCAP_VXLAN, 0, 0, 0, false, 65536, 65499 },
	{ ENCAP_VXLAN, 0, 0, 0, true, 70000, 65519 },
	{ ENCAP_VXLAN, 0, 0, 0, false, UINT32_MAX, 65499 },
	{ ENCAP_GRE, 0, 0, 0, false, 1500, 1476 },
	{ ENCAP_GRE, 0, 0, 0, true, 1500, 1456 },
	{ ENCAP_GRE, 1, 0, 0, false, 1500, 1472 },
	{ ENCAP_GRE, 0, 1, 0, false, 1500, 1472 },
	{ ENCAP_GRE, 0, 0, 1, false, 1500, 1472 },
	{ ENCAP_GRE, 1, 1, 0, false, 1500, 1468 },
	{ ENCAP_GRE, 1, 0, 1, false, 1500, 1468 },
	{ ENCAP_GRE, 0, 1, 1, false, 1500, 1468 },
	{ ENCAP_GRE, 1, 1, 1, false, 1500, 1464 },
	{ ENCAP_GRE, 1, 0, 0, true, 1500, 1452 },
	{ ENCAP_GRE, 1, 1, 1, true, 1500, 1444 },
	{ ENCAP_GRE, 1, 1, 1, false, 552, 516 },
	{ ENCAP_GRE, 0, 1, 0, true, 1280, 1232 },
	{ ENCAP_GRE, 0, 0, 0, false, 1400, 1376 },
	{ ENCAP_GRE, 0, 0, 0, false, 38, 14 },
	{ ENCAP_GRE, 0, 0, 0, false, 37, 0 },
	{ ENCAP_GRE, 1, 1, 1, true, 69, 0 },
	{ ENCAP_GRE, 1, 1, 1, true, 70, 14 },
	{ ENCAP_GRE, 0, 0, 0, true, 65575, 65531 },
	{ ENCAP_GRE_UDP, 0, 0, 0, false, 1500, 1468 },
	{ ENCAP_GRE_UDP, 0, 0, 0, true, 1500, 1448 },
	{ ENCAP_GRE_UDP, 1, 0, 0, false, 1500, 1464 },
	{ ENCAP_GRE_UDP, 0, 0, 1, false, 1500, 1464 },
	{ ENCAP_GRE_UDP, 1, 0, 1, true, 1500, 1440 },
	{ ENCAP_GRE_UDP, 0, 1, 1, true, 1500, 1440 },
	{ ENCAP_GRE_UDP, 1, 1, 1, false, 1500, 1456 },
	{ ENCAP_GRE_UDP, 1, 1, 1, true, 1500, 1436 },
	{ ENCAP_GRE_UDP, 1, 1, 1, true, 1280, 1216 },
	{ ENCAP_GRE_UDP, 0, 0, 0, false, 1400, 1368 },
	{ ENCAP_GRE_UDP, 0, 0, 0, false, 46, 14 },
	{ ENCAP_GRE_UDP, 0, 0, 0, false, 45, 0 },
	{ ENCAP_GRE_UDP, 1, 1, 1, true, 77, 0 },
	{ ENCAP_GRE_UDP, 1, 1, 1, true, 78, 14 },
	{ ENCAP_GRE_UDP, 0, 0, 0, false, 0, 0 },
};

static const char *const type_names[] = { "vxlan", "gre", "gre-udp" };

static void test_budget(void)
{
	size_t i;

	for (i = 0; i < sizeof(budget_rows) / sizeof(budget_rows[0]); i++) {
		const struct budget_row *r = &budget_rows[i];
		struct encap_cfg c = {
			.type = r->type, .vni = 42, .key = 7,
			.has_key = r->key, .gre_csum = r->csum,
			.gre_seq = r->seq,
		};

		is_int(pmtu_frame_budget(&c, r->v6, r->path), r->want,
		       "budget %s%s%s%s over %s, path %u", type_names[r->type],
		       r->key ? " key" : "", r->csum ? " csum" : "",
		       r->seq ? " seq" : "", r->v6 ? "IPv6" : "IPv4", r->path);
	}
}

/* ---- pmtu_lower ---------------------------------------------------- */

struct lower_row {
	uint32_t cur, reported;
	bool v6;
	uint32_t want;
};

static const struct lower_row lower_rows[] = {
	{ 1500, 1400, false, 1400 },
	{ 1500, 1400, true, 1400 },
	{ 1500, 1500, false, 1500 },
	{ 1500, 0, false, 1500 },
	{ 1500, 0, true, 1500 },
	{ 1500, 1501, false, 1500 },
	{ 1500, 65535, true, 1500 },
	{ 1500, UINT32_MAX, false, 1500 },
	{ 1500, 552, false, 552 },
	{ 1500, 551, false, 552 },
	{ 1500, 68, false, 552 },
	{ 1500, 1, false, 552 },
	{ 1500, 1280, true, 1280 },
	{ 1500, 1279, true, 1280 },
	{ 1500, 576, true, 1280 },
	{ 1500, 1000, false, 1000 },
	{ 500, 400, false, 500 },	/* below the floor already: kept */
	{ 1280, 1000, true, 1280 },
	{ 65535, 9000, false, 9000 },
	{ 9000, 8999, true, 8999 },
};

static void test_lower(void)
{
	size_t i;

	for (i = 0; i < sizeof(lower_rows) / sizeof(lower_rows[0]); i++) {
		const struct lower_row *r = &lower_rows[i];

		is_int(pmtu_lower(r->cur, r->reported, r->v6), r->want,
		       "lower %s cur %u reported %u", r->v6 ? "IPv6" : "IPv4",
		       r->cur, r->reported);
	}
}

/* ---- frames ---------------------------------------------------------- */

/*
 * The frame as the data path sees it: frame_parse()'s walk. false when it
 * refuses the frame, which then never reaches pmtu.
 */
static bool frame_of(const struct pkt *p, struct frame *f)
{
	return frame_parse(p->buf, p->len, f) == FRAME_OK;
}

static void ip4_recheck(uint8_t *ip)
{
	pkt_put16(ip + 10, 0);
	pkt_put16(ip + 10, pkt_ip4_check(ip));
}

static void test_df(void)
{
	struct pkt_spec s = { .payload_len = 100 };
	struct frame f;

	pkt_build(&s, &P);
	frame_of(&P, &f);
	ok(pmtu_frame_df(&f), "df: IPv4 with DF");
	pkt_put16(P.buf + P.l3_off + 6, 0);
	ok(!pmtu_frame_df(&f), "df: IPv4 without DF");
	pkt_put16(P.buf + P.l3_off + 6, 0x2000);
	ok(!pmtu_frame_df(&f), "df: IPv4 MF only");
	pkt_put16(P.buf + P.l3_off + 6, 0x6000);
	ok(pmtu_frame_df(&f), "df: IPv4 DF and MF");
	s.ipv6 = true;
	pkt_build(&s, &P);
	frame_of(&P, &f);
	ok(pmtu_frame_df(&f), "df: IPv6");
	s.vlans = 2;
	pkt_build(&s, &P);
	frame_of(&P, &f);
	ok(pmtu_frame_df(&f), "df: IPv6 with 2 tags");
	s.ipv6 = false;
	s.ip_frag = 0x0001;
	pkt_build(&s, &P);
	frame_of(&P, &f);
	ok(!pmtu_frame_df(&f), "df: IPv4 fragment with 2 tags");
	s.non_ip = true;
	pkt_build(&s, &P);
	frame_of(&P, &f);
	ok(!pmtu_frame_df(&f), "df: ARP");
}

/* ---- ICMP ------------------------------------------------------------ */

struct patch {
	uint16_t at;	/* from the IP header */
	uint8_t len;
	uint8_t b[16];
};

struct icmp_case {
	const char *name;
	struct pkt_spec s;
	uint32_t mtu;
	struct patch patch;
	uint16_t trunc;	/* frame cut to l3_off + trunc */
	bool allowed;
};

#define UDP IPPROTO_UDP
#define ICMP4 IPPROTO_ICMP
#define ICMP6 IPPROTO_ICMPV6
#define V6 .ipv6 = true
#define PT(a, ...) { .at = (a), .len = sizeof((uint8_t[]){ __VA_ARGS__ }), \
		     .b = { __VA_ARGS__ } }
#define FF02_1 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
#define IN6_ANY 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
#define IN6_LO 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1

static const struct icmp_case icmp_cases[] = {
	/* IPv4: allowed */
	{ "v4 tcp small", { .payload_len = 100 }, 1400, { 0 }, 0, true },
	{ "v4 vlan tcp 1400", { .vlans = 1, .payload_len = 1400 }, 1350,
	  { 0 }, 0, true },
	{ "v4 qinq udp 3000", { .vlans = 2, .l4 = UDP, .payload_len = 3000 },
	  576, { 0 }, 0, true },
	{ "v4 options", { .ip_opt_len = 8, .payload_len = 600 }, 1000,
	  { 0 }, 0, true },
	{ "v4 padded", { .l4 = UDP, .payload_len = 2, .pad = 30 }, 1400,
	  { 0 }, 0, true },
	{ "v4 icmp echo", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 8), 0, true },
	{ "v4 icmp echo reply", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 0), 0, true },
	{ "v4 first fragment", { .ip_frag = 0x2000, .payload_len = 1000 },
	  1400, { 0 }, 0, true },
	{ "v4 mtu over 16 bits", { .payload_len = 100 }, 70000, { 0 }, 0,
	  true },
	{ "v4 quote exactly 548", { .payload_len = 508 }, 1400, { 0 }, 0,
	  true },
	{ "v4 quote 549 cut", { .payload_len = 509 }, 1400, { 0 }, 0, true },
	{ "v4 dst 0.0.0.0", { .payload_len = 10 }, 1400, PT(16, 0, 0, 0, 0),
	  0, true },
	/* IPv4: refused */
	{ "v4 non-first fragment", { .ip_frag = 0x0010, .payload_len = 100 },
	  1400, { 0 }, 0, false },
	{ "v4 middle fragment", { .ip_frag = 0x2001, .payload_len = 100 },
	  1400, { 0 }, 0, false },
	{ "v4 icmp dest unreach", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 3), 0, false },
	{ "v4 icmp source quench", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 4), 0, false },
	{ "v4 icmp redirect", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 5), 0, false },
	{ "v4 icmp time exceeded", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 11), 0, false },
	{ "v4 icmp param problem", { .l4 = ICMP4, .payload_len = 56 }, 1400,
	  PT(20, 12), 0, false },
	{ "v4 icmp error behind options",
	  { .l4 = ICMP4, .ip_opt_len = 4, .payload_len = 56 }, 1400,
	  PT(24, 11), 0, false },
	{ "v4 icmp without type byte",
	  { .l4 = ICMP4, .payload_len = 0, .pad = 8 }, 1400, { 0 }, 0, false },
	{ "v4 src 0/8", { .payload_len = 10 }, 1400, PT(12, 0, 1, 2, 3), 0,
	  false },
	{ "v4 src loopback", { .payload_len = 10 }, 1400,
	  PT(12, 127, 0, 0, 1), 0, false },
	{ "v4 src broadcast", { .payload_len = 10 }, 1400,
	  PT(12, 255, 255, 255, 255), 0, false },
	{ "v4 src multicast", { .payload_len = 10 }, 1400,
	  PT(12, 224, 0, 0, 5), 0, false },
	{ "v4 dst broadcast", { .payload_len = 10 }, 1400,
	  PT(16, 255, 255, 255, 255), 0, false },
	{ "v4 dst multicast", { .payload_len = 10 }, 1400,
	  PT(16, 239, 1, 1, 1), 0, false },
	{ "v4 dst 224.0.0.1", { .payload_len = 10 }, 1400,
	  PT(16, 224, 0, 0, 1), 0, false },
	{ "v4 truncated header", { .payload_len = 10 }, 1400, { 0 }, 19,
	  false },
	{ "v4 options cut off", { .ip_opt_len = 4, .payload_len = 10 }, 1400,
	  { 0 }, 22, false },
	{ "v4 total length below IHL", { .payload_len = 10 }, 1400,
	  PT(2, 0, 16), 0, false },
	{ "v4 IHL 4", { .payload_len = 10 }, 1400, PT(0, 0x44), 0, false },
	{ "v4 non-IP (ARP)", { .non_ip = true, .payload_len = 28 }, 1400,
	  { 0 }, 0, false },
	/* IPv6: allowed */
	{ "v6 tcp small", { V6, .payload_len = 100 }, 1280, { 0 }, 0, true },
	{ "v6 vlan tcp 1400", { V6, .vlans = 1, .payload_len = 1400 }, 1300,
	  { 0 }, 0, true },
	{ "v6 qinq udp 9000", { V6, .vlans = 2, .l4 = UDP,
				.payload_len = 9000 },
	  1400, { 0 }, 0, true },
	{ "v6 ext headers icmpv6 echo",
	  { V6, .ip6_hbh = true, .ip6_dst_len = 16, .l4 = ICMP6,
	    .payload_len = 64 },
	  1280, PT(64, 128), 0, true },
	{ "v6 first fragment", { V6, .ip6_frag = true, .payload_len = 500 },
	  1280, { 0 }, 0, true },
	{ "v6 padded", { V6, .l4 = UDP, .payload_len = 3, .pad = 20 }, 1280,
	  { 0 }, 0, true },
	{ "v6 dst multicast (RFC 4443 2.4 e.3)", { V6, .payload_len = 10 },
	  1280, PT(24, FF02_1), 0, true },
	{ "v6 hop limit copied", { V6, .payload_len = 10 }, 1280, PT(7, 9), 0,
	  true },
	{ "v6 mtu 32 bits", { V6, .payload_len = 10 }, 70000, { 0 }, 0,
	  true },
	{ "v6 quote exactly 1232", { V6, .payload_len = 1172 }, 1280, { 0 },
	  0, true },
	{ "v6 quote 1233 cut", { V6, .payload_len = 1173 }, 1280, { 0 }, 0,
	  true },
	/* IPv6: refused */
	{ "v6 src unspecified", { V6, .payload_len = 10 }, 1280,
	  PT(8, IN6_ANY), 0, false },
	{ "v6 src loopback", { V6, .payload_len = 10 }, 1280, PT(8, IN6_LO),
	  0, false },
	{ "v6 src multicast", { V6, .payload_len = 10 }, 1280,
	  PT(8, FF02_1), 0, false },
	{ "v6 icmpv6 dest unreach", { V6, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(40, 1), 0, false },
	{ "v6 icmpv6 packet too big", { V6, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(40, 2), 0, false },
	{ "v6 icmpv6 time exceeded", { V6, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(40, 3), 0, false },
	{ "v6 icmpv6 param problem", { V6, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(40, 4), 0, false },
	{ "v6 icmpv6 type 127", { V6, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(40, 127), 0, false },
	{ "v6 icmpv6 redirect", { V6, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(40, 137), 0, false },
	{ "v6 icmpv6 error behind ext headers",
	  { V6, .ip6_hbh = true, .l4 = ICMP6, .payload_len = 56 },
	  1280, PT(48, 1), 0, false },
	{ "v6 icmpv6 without type byte",
	  { V6, .l4 = ICMP6, .payload_len = 0, .pad = 8 }, 1280, { 0 }, 0,
	  false },
	{ "v6 non-first fragment", { V6, .ip6_frag = true, .payload_len = 100 },
	  1280, PT(42, 0x00, 0x81), 0, false },
	{ "v6 no next header", { V6, .l4 = 253, .payload_len = 10 }, 1280,
	  PT(6, 59), 0, false },
	{ "v6 truncated ext chain", { V6, .l4 = 253, .payload_len = 4 }, 1280,
	  PT(6, 60), 0, false },
	{ "v6 truncated header", { V6, .payload_len = 10 }, 1280, { 0 }, 39,
	  false },
};

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Build the case's frame into P, patched; its frame description, or false
 * if frame_parse() refuses it.
 */
static bool icmp_frame(const struct icmp_case *c, struct frame *f)
{
	uint8_t *ip;

	pkt_build(&c->s, &P);
	ip = P.buf + P.l3_off;
	if (c->patch.len) {
		memcpy(ip + c->patch.at, c->patch.b, c->patch.len);
		if (!c->s.ipv6)
			ip4_recheck(ip);
	}
	if (c->trunc)
		P.len = P.l3_off + c->trunc;
	return frame_of(&P, f);
}

/* Every field of an ICMP reply to IPv4 frame P; returns failures. */
static int icmp4_check(const struct icmp_case *c, size_t n)
{
	const uint8_t *oip = P.buf + P.l3_off, *ip = out + P.l3_off;
	const uint8_t *icmp = ip + 20;
	uint32_t dlen = P.ip_end - P.l3_off, quote = min32(dlen, 576 - 28);
	int bad = 0;

	bad += !is_int(n, P.l3_off + 28 + quote, "%s: length", c->name);
	if (n != P.l3_off + 28 + quote)
		return bad + 1;
	bad += !ok(n - P.l3_off <= 576, "%s: at most 576 bytes", c->name);
	bad += !ok(ip[0] == 0x45 && ip[1] == 0xc0 &&
		   pkt_get16(ip + 2) == 28 + quote &&
		   pkt_get32(ip + 4) == 0x4000 && ip[8] == 64 && ip[9] == 1,
		   "%s: IP version, TOS, length, id, DF, TTL, protocol",
		   c->name);
	bad += !ok(!memcmp(ip + 12, oip + 16, 4) &&
		   !memcmp(ip + 16, oip + 12, 4), "%s: addresses swapped",
		   c->name);
	bad += !ok(pkt_fold(pkt_sum(ip, 20, 0)) == 0xffff,
		   "%s: IP header checksum", c->name);
	bad += !ok(icmp[0] == 3 && icmp[1] == 4 && pkt_get16(icmp + 4) == 0 &&
		   pkt_get16(icmp + 6) == min32(c->mtu, 65535),
		   "%s: type 3 code 4, next-hop MTU", c->name);
	bad += !ok(pkt_fold(pkt_sum(icmp, 8 + quote, 0)) == 0xffff,
		   "%s: ICMP checksum", c->name);
	bad += !ok(!memcmp(icmp + 8, oip, quote), "%s: quote", c->name);
	return bad;
}

static int icmp6_check(const struct icmp_case *c, size_t n)
{
	const uint8_t *oip = P.buf + P.l3_off, *ip = out + P.l3_off;
	const uint8_t *icmp = ip + 40;
	uint32_t dlen = P.ip_end - P.l3_off, quote = min32(dlen, 1280 - 48);
	uint64_t acc;
	int bad = 0;

	bad += !is_int(n, P.l3_off + 48 + quote, "%s: length", c->name);
	if (n != P.l3_off + 48 + quote)
		return bad + 1;
	bad += !ok(n - P.l3_off <= 1280, "%s: at most 1280 bytes", c->name);
	bad += !ok(pkt_get32(ip) == 0x60000000 &&
		   pkt_get16(ip + 4) == 8 + quote && ip[6] == 58 &&
		   ip[7] == oip[7],
		   "%s: version, class, flow, length, next header, hop limit",
		   c->name);
	bad += !ok(!memcmp(ip + 8, oip + 24, 16) &&
		   !memcmp(ip + 24, oip + 8, 16), "%s: addresses swapped",
		   c->name);
	bad += !ok(icmp[0] == 2 && icmp[1] == 0 &&
		   pkt_get32(icmp + 4) == c->mtu,
		   "%s: type 2 code 0, MTU", c->name);
	acc = pkt_pseudo(ip, 58, 8 + quote);
	bad += !ok(pkt_fold(pkt_sum(icmp, 8 + quote, acc)) == 0xffff,
		   "%s: ICMPv6 checksum with pseudo-header", c->name);
	bad += !ok(!memcmp(icmp + 8, oip, quote), "%s: quote", c->name);
	return bad;
}

static void icmp_check_l2(const struct icmp_case *c)
{
	ok(!memcmp(out, P.buf + 6, 6) && !memcmp(out + 6, P.buf, 6) &&
	   !memcmp(out + 12, P.buf + 12, P.l3_off - 12u),
	   "%s: MACs swapped, tags and ethertype kept", c->name);
}

static void test_icmp_case(const struct icmp_case *c)
{
	uint8_t before[PKT_MAX > 4096 ? 4096 : PKT_MAX];
	struct frame f;
	size_t n, keep;

	if (!icmp_frame(c, &f)) {
		ok(!c->allowed, "%s: no ICMP: frame_parse() refuses the frame",
		   c->name);
		return;
	}
	keep = min32(P.len, sizeof(before));
	memcpy(before, P.buf, keep);
	memset(out, 0xa5, sizeof(out));
	n = pmtu_icmp_build(&f, c->mtu, out, sizeof(out));
	if (!c->allowed) {
		is_int(n, 0, "%s: no ICMP", c->name);
		return;
	}
	if (c->s.ipv6)
		icmp6_check(c, n);
	else
		icmp4_check(c, n);
	icmp_check_l2(c);
	ok(!memcmp(before, P.buf, keep), "%s: original untouched", c->name);
}

/* out_len exactly right works, one short gives 0 and writes nothing. */
static void test_icmp_out_len(void)
{
	struct pkt_spec s = { V6, .vlans = 2, .payload_len = 3000 };
	struct pkt_spec s4 = { .vlans = 1, .payload_len = 100 };
	struct frame f;
	size_t want;

	pkt_build(&s, &P);
	frame_of(&P, &f);
	memset(out, 0xa5, sizeof(out));
	is_int(pmtu_icmp_build(&f, 1280, out, PMTU_ICMP_MAX), PMTU_ICMP_MAX,
	       "out_len: qinq IPv6 fills PMTU_ICMP_MAX exactly");
	memset(out, 0xa5, sizeof(out));
	is_int(pmtu_icmp_build(&f, 1280, out, PMTU_ICMP_MAX - 1), 0,
	       "out_len: one byte short gives 0");
	ok(out[0] == 0xa5 && out[PMTU_ICMP_MAX - 2] == 0xa5,
	   "out_len: nothing written when short");
	pkt_build(&s4, &P);
	frame_of(&P, &f);
	want = P.l3_off + 28 + (P.ip_end - P.l3_off);
	is_int(pmtu_icmp_build(&f, 1400, out, want), want,
	       "out_len: IPv4 exact");
	is_int(pmtu_icmp_build(&f, 1400, out, want - 1), 0,
	       "out_len: IPv4 one short");
	is_int(pmtu_icmp_build(&f, 1400, out, 0), 0, "out_len: 0");
}

static void test_icmp(void)
{
	size_t i;

	for (i = 0; i < sizeof(icmp_cases) / sizeof(icmp_cases[0]); i++)
		test_icmp_case(&icmp_cases[i]);
	test_icmp_out_len();
}

/* ---- tun packets (--mode tun) ---------------------------------------- */

static uint8_t tun_pkt[PKT_MAX];
static uint8_t tun_out[PMTU_ICMP_MAX + 64];

/*
 * The ICMP answer to a tun's packet (case c's frame without its link
 * header) is the tap's answer without its link header: *n_tun its
 * length. false when they differ.
 */
static bool icmp_tun_same(const struct icmp_case *c, struct frame *ft,
			  size_t *n_tun)
{
	struct frame f;
	size_t n, len;

	*n_tun = 0;
	if (!icmp_frame(c, &f) || !P.l3_off)
		return true;
	n = pmtu_icmp_build(&f, c->mtu, out, sizeof(out));
	len = P.len - P.l3_off;
	memcpy(tun_pkt, P.buf + P.l3_off, len);
	if (frame_parse_ip(tun_pkt, len, ft) != FRAME_OK)
		return n == 0;
	*n_tun = pmtu_icmp_build(ft, c->mtu, tun_out, sizeof(tun_out));
	if (!n)
		return *n_tun == 0;
	return *n_tun == n - P.l3_off &&
	       !memcmp(tun_out, out + P.l3_off, *n_tun);
}

/*
 * ICMP net unreachable (ICMPv6 no route) to the tun's packet of ft:
 * the too-big answer of n bytes but for type, code and the MTU word,
 * none to an IPv6 multicast group. false when not so.
 */
static bool icmp_unreach_ok(const struct frame *ft, size_t n)
{
	bool v6 = ft->ethertype == 0x86dd;
	const uint8_t *icmp = tun_out + (v6 ? 40 : 20);
	size_t m = pmtu_icmp_unreach_build(ft, tun_out, sizeof(tun_out));

	if (!n || (v6 && ft->data[24] == 0xff))
		return m == 0;
	if (m != n)
		return false;
	if (v6)
		return icmp[0] == 1 && icmp[1] == 0 &&
		       pkt_get32(icmp + 4) == 0 &&
		       pkt_fold(pkt_sum(icmp, m - 40,
					pkt_pseudo(tun_out, 58, m - 40))) ==
			       0xffff;
	return icmp[0] == 3 && icmp[1] == 0 && pkt_get32(icmp + 4) == 0 &&
	       pkt_fold(pkt_sum(icmp, m - 20, 0)) == 0xffff &&
	       pkt_fold(pkt_sum(tun_out, 20, 0)) == 0xffff;
}

static void test_icmp_tun(void)
{
	unsigned int i, differ = 0, bad_unreach = 0, answered = 0;
	struct frame ft;
	size_t n;

	for (i = 0; i < sizeof(icmp_cases) / sizeof(icmp_cases[0]); i++) {
		const struct icmp_case *c = &icmp_cases[i];

		if (!icmp_tun_same(c, &ft, &n)) {
			differ++;
			printf("# %s: the tun's answer is not the tap's\n",
			       c->name);
			continue;
		}
		answered += n != 0;
		if (n && !icmp_unreach_ok(&ft, n)) {
			bad_unreach++;
			printf("# %s: net unreachable wrong\n", c->name);
		}
	}
	ok(!differ && answered > 10, "tun: every ICMP case as a tun's packet "
	   "is answered as the tap's, less its link header (%u answered, "
	   "%u differ)", answered, differ);
	is_int(bad_unreach, 0, "tun: net unreachable / no route: type, "
	       "code, checksums, none to an IPv6 group");
}

/* An IPv4 tun packet of 3000 bytes without DF, cut to fit 1400. */
static void test_frag_tun(void)
{
	struct pkt_spec sp = { .l4 = UDP, .payload_len = 3000, .seed = 3,
			       .ip_frag = 0x0000 };
	uint32_t at = 0, len, total = 0;
	struct seg s;
	int n, i, bad = 0;

	pkt_build(&sp, &P);
	pkt_put16(P.buf + P.l3_off + 6, 0);
	ip4_recheck(P.buf + P.l3_off);
	memset(inblk, 0x5a, sizeof(inblk));
	memcpy(inblk + GSO_HEADROOM, P.buf + P.l3_off, 20);
	memset(&s, 0, sizeof(s));
	s.hdr = inblk + GSO_HEADROOM;
	s.hdr_len = 20;
	s.payload = P.buf + P.l3_off + 20;
	s.payload_len = P.ip_end - P.l3_off - 20;
	s.sum_off = 20;
	seg_arena_init(&A, arena, frags, MAXF);
	n = pmtu_fragment(&s, 0, 1400, false, &A);
	for (i = 0; i < n; i++) {
		const struct seg *o = &A.segs[i];
		const uint8_t *ip = o->hdr;

		len = seg_len(o);
		bad += len > 1400 || ip[0] != 0x45 ||
		       pkt_get16(ip + 2) != len ||
		       (pkt_get16(ip + 6) & 0x1fff) * 8u != at ||
		       !(pkt_get16(ip + 6) & 0x2000) != (i == n - 1) ||
		       pkt_fold(pkt_sum(ip, 20, 0)) != 0xffff;
		at += len - 20;
		total += len - 20;
	}
	ok(n == 3 && !bad && total == s.payload_len,
	   "tun: an IPv4 packet (l3_off 0) fragmented: %d fragments, %d "
	   "bad, %u of %u bytes", n, bad, total, s.payload_len);
}

/* ---- fragmentation --------------------------------------------------- */

/* RFC 791 3.1: Router Alert (copied), Record Route (not copied), EOL. */
static const uint8_t opt_mixed[12] = { 0x94, 4, 0, 0, 0x07, 7, 4, 0, 0, 0,
				       0, 0 };
static const uint8_t opt_mixed_later[12] = { 0x94, 4, 0, 0, 1, 1, 1, 1, 1,
					     1, 1, 0 };
/* Timestamp (not copied) alone. */
static const uint8_t opt_ts[8] = { 0x44, 8, 5, 0, 0, 0, 0, 0 };
static const uint8_t opt_ts_later[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
/* Loose source route (copied), then EOL. */
static const uint8_t opt_lsrr[8] = { 0x83, 7, 4, 10, 0, 0, 1, 0 };

struct frag_case {
	const char *name;
	struct pkt_spec s;
	uint16_t frag;		/* frag_off field installed (DF clear) */
	const uint8_t *opt;	/* options installed (ip_opt_len bytes) */
	const uint8_t *later;	/* what fragments at offset > 0 carry */
	bool hdr_l4;		/* header block runs through L4 */
};

static const struct frag_case frag_cases[] = {
	{ "udp 3000", { .l4 = UDP, .payload_len = 3000, .seed = 1 }, 0,
	  NULL, NULL, true },
	{ "tcp ts 4001 vlan", { .vlans = 1, .tcp_opt_len = 12,
				.payload_len = 4001, .seed = 2 },
	  0, NULL, NULL, true },
	{ "tcp 2500 ip only block", { .payload_len = 2500, .seed = 3 }, 0,
	  NULL, NULL, false },
	{ "raw 1999 qinq", { .vlans = 2, .l4 = 253, .payload_len = 1999,
			     .seed = 4 },
	  0, NULL, NULL, true },
	{ "udp copied + uncopied options",
	  { .l4 = UDP, .ip_opt_len = 12, .payload_len = 3333, .seed = 5 }, 0,
	  opt_mixed, opt_mixed_later, true },
	{ "tcp uncopied option only",
	  { .ip_opt_len = 8, .tcp_opt_len = 12, .payload_len = 2222,
	    .seed = 6 },
	  0, opt_ts, opt_ts_later, true },
	{ "raw copied option only",
	  { .l4 = 253, .ip_opt_len = 8, .payload_len = 1777, .seed = 7 }, 0,
	  opt_lsrr, opt_lsrr, true },
	{ "already a fragment, MF", { .l4 = 253, .payload_len = 3000,
				      .seed = 8 },
	  0x2000 | 100, NULL, NULL, true },
	{ "already the last fragment, options",
	  { .l4 = 253, .ip_opt_len = 12, .payload_len = 2900, .seed = 9 },
	  37, opt_mixed, opt_mixed_later, true },
	{ "tcp 60000", { .tcp_opt_len = 12, .payload_len = 60000,
			 .seed = 10 },
	  0, NULL, NULL, true },
	{ "udp 1 byte", { .l4 = UDP, .payload_len = 1, .seed = 11 }, 0, NULL,
	  NULL, true },
	{ "reserved bit cleared", { .l4 = UDP, .payload_len = 1600,
				    .seed = 12 },
	  0x8000, NULL, NULL, true },
};

/* Frame P as segment s: its header block in inblk, payload in P.buf. */
static void frag_seg(const struct frag_case *c, struct seg *s)
{
	uint8_t *ip;
	uint32_t ihl, blen;

	pkt_build(&c->s, &P);
	ip = P.buf + P.l3_off;
	pkt_put16(ip + 6, c->frag);
	if (c->opt)
		memcpy(ip + 20, c->opt, c->s.ip_opt_len);
	ip4_recheck(ip);
	ihl = (ip[0] & 15) * 4u;
	blen = c->hdr_l4 ? P.hdr_len : P.l3_off + ihl;
	memset(inblk, 0x5a, sizeof(inblk));
	memcpy(inblk + GSO_HEADROOM, P.buf, blen);
	memset(s, 0, sizeof(*s));
	s->hdr = inblk + GSO_HEADROOM;
	s->hdr_len = (uint16_t)blen;
	s->payload = P.buf + blen;
	s->payload_len = P.ip_end - blen;
	s->sum_off = (uint16_t)blen;
}

/* The kernel's loop (ip_frag_next()), written as it is there. */
static uint32_t ref_nfrags(uint32_t data, uint32_t room)
{
	uint32_t left = data, n = 0, len;

	while (left > 0) {
		len = left > room ? room : left;
		if (len < left)
			len &= ~7u;
		left -= len;
		n++;
	}
	return n;
}

/* The 16-bit value, as a big-endian number, of a wsum in memory order. */
static uint16_t wsum_value(uint32_t w)
{
	uint64_t acc = w;
	uint16_t v;
	uint8_t b[2];

	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	v = (uint16_t)acc;
	memcpy(b, &v, 2);
	return pkt_get16(b);
}

/* One's-complement equality: 0 and 0xffff are both zero. */
static bool sum16_eq(uint16_t a, uint16_t b)
{
	if (a == 0xffff)
		a = 0;
	if (b == 0xffff)
		b = 0;
	return a == b;
}

struct frag_run {
	const struct frag_case *c;
	const struct seg *s;
	uint32_t max_len;
	bool want_sum;
	int n;
	char why[160];
};

#define FRAG_FAIL(r, ...)                                                    \
	do {                                                                 \
		if (!(r)->why[0])                                            \
			snprintf((r)->why, sizeof((r)->why), __VA_ARGS__);   \
	} while (0)

/* Header fields of fragment i against the original IP header oip. */
static void frag_check_ip(struct frag_run *r, int i, const uint8_t *oip,
			  const uint8_t *ip, uint32_t dlen, uint32_t *at)
{
	const struct frag_case *c = r->c;
	uint32_t ihl = (oip[0] & 15) * 4u, fo = pkt_get16(ip + 6);
	uint32_t off0 = (c->frag & 0x1fff) * 8u;
	bool last = i + 1 == r->n, mf = (c->frag & 0x2000) != 0;
	const uint8_t *want_opt;

	if (pkt_get16(ip + 2) != ihl + dlen)
		FRAG_FAIL(r, "frag %d: total length %u", i, pkt_get16(ip + 2));
	if (pkt_fold(pkt_sum(ip, ihl, 0)) != 0xffff)
		FRAG_FAIL(r, "frag %d: IP header checksum", i);
	if (ip[0] != oip[0] || ip[1] != oip[1] ||
	    pkt_get16(ip + 4) != pkt_get16(oip + 4) ||
	    memcmp(ip + 8, oip + 8, 2) || memcmp(ip + 12, oip + 12, 8))
		FRAG_FAIL(r, "frag %d: fields not kept", i);
	if (fo & 0xc000)
		FRAG_FAIL(r, "frag %d: DF or reserved bit set", i);
	if (!!(fo & 0x2000) != (!last || mf))
		FRAG_FAIL(r, "frag %d: MF wrong", i);
	*at = (fo & 0x1fff) * 8u;
	if (*at < off0)
		FRAG_FAIL(r, "frag %d: offset below the segment's", i);
	*at -= off0;
	if (!last && dlen % 8)
		FRAG_FAIL(r, "frag %d: data %u not a multiple of 8", i, dlen);
	want_opt = oip + 20;
	if ((fo & 0x1fff) && c->later)
		want_opt = c->later;
	if (memcmp(ip + 20, want_opt, ihl - 20))
		FRAG_FAIL(r, "frag %d: options", i);
}

/* Fragment i's data placed into reasm at its offset. */
static void frag_place(struct frag_run *r, int i, const struct seg *o,
		       uint32_t at, uint32_t hlen, uint32_t dlen)
{
	uint32_t extra = o->hdr_len - hlen, k;

	if (at > sizeof(reasm) || dlen > sizeof(reasm) - at) {
		FRAG_FAIL(r, "frag %d: beyond 64 KiB", i);
		return;
	}
	for (k = 0; k < dlen; k++) {
		if (covered[at + k]++)
			FRAG_FAIL(r, "frag %d: overlaps at %u", i, at + k);
		reasm[at + k] = k < extra ? o->hdr[hlen + k] :
					    o->payload[k - extra];
	}
}

static void frag_check_one(struct frag_run *r, int i, uint32_t *expect_at)
{
	const struct seg *o = &frags[i], *s = r->s;
	const uint8_t *oip = P.buf + P.l3_off, *ip = o->hdr + P.l3_off;
	uint32_t hlen = P.l3_off + (oip[0] & 15) * 4u;
	uint32_t dlen = o->hdr_len - hlen + o->payload_len, at = 0;

	if (o->hdr != arena + (size_t)i * GSO_SLOT + GSO_HEADROOM)
		FRAG_FAIL(r, "frag %d: header block not at its slot", i);
	if (o->hdr_len < hlen || o->hdr_len > GSO_HDR_MAX)
		FRAG_FAIL(r, "frag %d: hdr_len %u", i, o->hdr_len);
	if (seg_len(o) > r->max_len)
		FRAG_FAIL(r, "frag %d: %u bytes > %u", i, seg_len(o),
			  r->max_len);
	if (o->payload_len &&
	    (o->payload < s->payload ||
	     o->payload + o->payload_len > s->payload + s->payload_len))
		FRAG_FAIL(r, "frag %d: payload not a slice of s", i);
	if (memcmp(o->hdr, P.buf, P.l3_off))
		FRAG_FAIL(r, "frag %d: L2 header", i);
	frag_check_ip(r, i, oip, ip, dlen, &at);
	if (at != *expect_at)
		FRAG_FAIL(r, "frag %d: offset %u, want %u", i, at, *expect_at);
	*expect_at = at + dlen;
	if (o->sum_off != o->hdr_len || o->sum_valid != r->want_sum)
		FRAG_FAIL(r, "frag %d: sum_off/sum_valid", i);
	if (r->want_sum &&
	    !sum16_eq(wsum_value(o->sum),
		      pkt_fold(pkt_sum(o->payload, o->payload_len, 0))))
		FRAG_FAIL(r, "frag %d: payload sum", i);
	frag_place(r, i, o, at, hlen, dlen);
}

/* Reassemble and compare with the original IP data byte for byte. */
static void frag_check_all(struct frag_run *r)
{
	const uint8_t *oip = P.buf + P.l3_off;
	uint32_t hlen = P.l3_off + (oip[0] & 15) * 4u;
	uint32_t data = P.ip_end - hlen, k, at = 0;
	int i;

	memset(covered, 0, data + 8);
	for (i = 0; i < r->n; i++)
		frag_check_one(r, i, &at);
	if (at != data)
		FRAG_FAIL(r, "fragments cover %u of %u bytes", at, data);
	for (k = 0; k < data && !r->why[0]; k++) {
		if (covered[k] != 1)
			FRAG_FAIL(r, "byte %u covered %u times", k, covered[k]);
		else if (reasm[k] != P.buf[hlen + k])
			FRAG_FAIL(r, "byte %u differs", k);
	}
}

static void frag_run_one(const struct frag_case *c, uint32_t max_len,
			 bool want_sum)
{
	struct frag_run r = { .c = c, .max_len = max_len,
			      .want_sum = want_sum };
	struct seg s;
	uint32_t hlen, want_n;

	frag_seg(c, &s);
	r.s = &s;
	memcpy(inblk_copy, inblk, sizeof(inblk));
	hlen = P.l3_off + (P.buf[P.l3_off] & 15) * 4u;
	want_n = seg_len(&s) <= max_len ? 1 :
		 ref_nfrags(P.ip_end - hlen, max_len - hlen);
	memset(frags, 0xa5, sizeof(frags[0]) * (want_n + 1));
	seg_arena_init(&A, arena, frags, MAXF);
	r.n = pmtu_fragment(&s, P.l3_off, max_len, want_sum, &A);
	if (!is_int(r.n, want_n, "frag %s, max_len %u: count", c->name,
		    max_len))
		return;
	if (A.n != want_n)
		FRAG_FAIL(&r, "a->n %u after %u fragments", A.n, want_n);
	if (r.n == 1 && seg_len(&s) <= max_len) {
		ok(A.n == 1 && !memcmp(&frags[0], &s, sizeof(s)),
		   "frag %s, max_len %u: fits, a copy of s", c->name, max_len);
		return;
	}
	frag_check_all(&r);
	if (memcmp(inblk, inblk_copy, sizeof(inblk)))
		FRAG_FAIL(&r, "the segment's header block changed");
	if (!ok(!r.why[0], "frag %s, max_len %u%s: fragments", c->name,
		max_len, want_sum ? ", sums" : ""))
		printf("#   %s\n", r.why);
}

static void test_frag_cases(void)
{
	size_t i, j;

	for (i = 0; i < sizeof(frag_cases) / sizeof(frag_cases[0]); i++) {
		const struct frag_case *c = &frag_cases[i];
		struct seg s;
		uint32_t hlen, lens[9];

		frag_seg(c, &s);
		hlen = P.l3_off + (P.buf[P.l3_off] & 15) * 4u;
		lens[0] = 1500;
		lens[1] = 1400;
		lens[2] = 1003;
		lens[3] = 576;
		lens[4] = hlen + 8;
		lens[5] = hlen + 15;
		lens[6] = hlen + 17;
		lens[7] = seg_len(&s);
		lens[8] = seg_len(&s) - 1;
		for (j = 0; j < 9; j++) {
			if (lens[j] < hlen + 8)
				continue;
			frag_run_one(c, lens[j], j % 2 == 1);
		}
	}
}

/* Random-ish packets: sizes, protocols, tags and options from an LCG. */
static void test_frag_random(void)
{
	static const uint8_t *const opts[] = { NULL, opt_mixed, opt_ts,
					       opt_lsrr };
	static const uint8_t *const later[] = { NULL, opt_mixed_later,
						opt_ts_later, opt_lsrr };
	static const uint8_t opt_lens[] = { 0, 12, 8, 8 };
	static const uint8_t protos[] = { IPPROTO_TCP, UDP, 253 };
	static char names[16][32];
	uint32_t x = 12345;
	int i;

	for (i = 0; i < 16; i++) {
		struct frag_case c = { .name = names[i], .hdr_l4 = i % 3 != 0 };
		uint32_t o;

		x = x * 1103515245u + 12345;
		o = (x >> 16) % 4;
		c.s.l4 = protos[(x >> 8) % 3];
		c.s.vlans = (int)((x >> 20) % 3);
		c.s.payload_len = 1 + (x >> 4) % 20000;
		c.s.seed = x;
		c.s.ip_opt_len = opt_lens[o];
		c.opt = opts[o];
		c.later = later[o];
		c.frag = (i % 5 == 4) ? (uint16_t)(0x2000 | (i * 3)) : 0;
		snprintf(names[i], sizeof(names[i]), "random %d", i);
		x = x * 1103515245u + 12345;
		frag_run_one(&c, 600 + (x >> 8) % 1500, (x >> 4) & 1);
	}
}

static int frag_call(struct seg *s, uint16_t l3_off, uint32_t max_len,
		     unsigned int cap)
{
	seg_arena_init(&A, arena, frags, cap);
	return pmtu_fragment(s, l3_off, max_len, false, &A);
}

static void test_frag_errors(void)
{
	struct frag_case c = { "err", { .l4 = UDP, .payload_len = 3000 }, 0,
			       NULL, NULL, true };
	struct frag_case c6 = { "err6", { V6, .l4 = UDP, .payload_len = 3000 },
				0, NULL, NULL, true };
	struct seg s;
	uint16_t l3;
	uint8_t *ip;
	int n;

	frag_seg(&c, &s);
	l3 = P.l3_off;
	ip = s.hdr + l3;
	n = frag_call(&s, l3, 1500, MAXF);
	is_int(n, 3, "errors: baseline 3 fragments");
	is_int(frag_call(&s, l3, 1500, 3), 3,
	       "errors: an arena of exactly 3 segments");
	is_int(frag_call(&s, l3, 1500, 2), -ENOSPC,
	       "errors: an arena of 2 (one too few): -ENOSPC");
	is_int(frag_call(&s, l3, 1500, 0), -ENOSPC,
	       "errors: an arena of 0: -ENOSPC");
	is_int(frag_call(&s, l3, l3 + 28, MAXF), 376,
	       "errors: max_len for exactly 8 data bytes");
	is_int(frag_call(&s, l3, l3 + 27, MAXF), -EINVAL,
	       "errors: max_len below header + 8");
	is_int(frag_call(&s, l3, 0, MAXF), -EINVAL,
	       "errors: max_len 0");
	is_int(frag_call(&s, l3, seg_len(&s), 1), 1,
	       "errors: fits, an arena of 1: its copy");
	is_int(frag_call(&s, l3, seg_len(&s), 0), -ENOSPC,
	       "errors: fits, an arena of 0: -ENOSPC");

	pkt_put16(ip + 6, 0x4000);
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: DF set");
	is_int(frag_call(&s, l3, seg_len(&s), MAXF), 1,
	       "errors: DF set but fits");
	pkt_put16(ip + 6, 0);

	is_int(frag_call(&s, 12, 1500, MAXF), -EINVAL,
	       "errors: l3_off inside Ethernet");
	is_int(frag_call(&s, l3 + 4, 1500, MAXF), -EINVAL,
	       "errors: wrong l3_off (no IPv4 ethertype before)");
	s.hdr_len = (uint16_t)(l3 + 19);
	s.payload = P.buf + l3 + 19;
	s.payload_len = P.ip_end - (l3 + 19u);
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: IP header not in the block");
	frag_seg(&c, &s);
	ip = s.hdr + l3;
	ip[0] = 0x44;
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: IHL 4");
	ip[0] = 0x46;
	s.hdr_len = (uint16_t)(l3 + 20);
	s.payload = P.buf + l3 + 20;
	s.payload_len = P.ip_end - (l3 + 20u);
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: options not in the block");
	frag_seg(&c, &s);
	ip = s.hdr + l3;
	ip[0] = 0x65;
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: version 6 behind an IPv4 ethertype");
	frag_seg(&c, &s);
	ip = s.hdr + l3;
	ip[8]++;		/* the TTL, the checksum left as it was */
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: wrong header checksum (never laundered)");
	ip[8]--;
	pkt_put16(ip + 6, 8000);	/* offset 64000 + 3008 bytes > 65535 */
	ip4_recheck(ip);
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: offsets past 65535");
	pkt_put16(ip + 6, 7800);	/* 62400 + 3008 fits */
	ip4_recheck(ip);
	is_int(frag_call(&s, l3, 1500, MAXF), 3,
	       "errors: high offset that still fits");
	s.hdr_len = GSO_HDR_MAX + 1;
	is_int(frag_call(&s, l3, 1500, MAXF), -EINVAL,
	       "errors: hdr_len over GSO_HDR_MAX");

	c6.s.ipv6 = true;
	pkt_build(&c6.s, &P);
	memcpy(inblk + GSO_HEADROOM, P.buf, P.hdr_len);
	s.hdr = inblk + GSO_HEADROOM;
	s.hdr_len = P.hdr_len;
	s.payload = P.buf + P.hdr_len;
	s.payload_len = P.ip_end - P.hdr_len;
	is_int(frag_call(&s, P.l3_off, 1500, MAXF), -EINVAL,
	       "errors: IPv6 packet");
}

/*
 * pmtu_fragment() appends at a->n, pre segments being in use, cap in all;
 * one that does not fit appends nothing. max_len 0 stands for "fits".
 */
struct append_row {
	const char *name;
	uint32_t max_len;
	unsigned int pre, cap;
	int want;
};

static const struct append_row append_rows[] = {
	{ "3 fragments after 2 in an arena of 5: appended at 2", 1500, 2, 5,
	  3 },
	{ "3 fragments after 3 in an arena of 5: -ENOSPC", 1500, 3, 5,
	  -ENOSPC },
	{ "a segment that fits, after 4 in an arena of 5: its copy at 4", 0,
	  4, 5, 1 },
	{ "a segment that fits, into a full arena of 5: -ENOSPC", 0, 5, 5,
	  -ENOSPC },
	{ "max_len under header + 8, after 2: -EINVAL", 40, 2, 5, -EINVAL },
};

static struct seg ref_frags[3];
static uint8_t ref_blk[3][GSO_HDR_MAX];
static uint8_t arena_was[16 * GSO_SLOT];
static struct seg frags_was[16];
/* The first 16 slots and seg entries. */
static const struct arena_watch watch = {
	arena, arena_was, frags, frags_was, 16
};

/* Fragment i of A as ref_frags[i] came out of an empty arena. */
static bool frag_same_as_ref(unsigned int at, unsigned int i)
{
	const struct seg *o = &frags[at], *r = &ref_frags[i];

	return o->hdr == seg_arena_block(&A, at) && o->hdr_len == r->hdr_len &&
	       !memcmp(o->hdr, ref_blk[i], o->hdr_len) &&
	       o->payload == r->payload && o->payload_len == r->payload_len &&
	       o->sum_off == r->sum_off && o->sum_valid == r->sum_valid;
}

static void test_frag_append_row(const struct append_row *w,
				 const struct frag_case *c)
{
	unsigned int i, n = w->want > 0 ? (unsigned int)w->want : 0;
	uint32_t max_len;
	bool same = true;
	struct seg s;
	int res, ref;

	frag_seg(c, &s);
	max_len = w->max_len ? w->max_len : seg_len(&s);
	ref = frag_call(&s, P.l3_off, max_len, MAXF);
	for (i = 0; ref > 0 && i < (unsigned int)ref && i < 3; i++) {
		ref_frags[i] = frags[i];
		memcpy(ref_blk[i], frags[i].hdr, frags[i].hdr_len);
	}
	arena_watch_start(&watch, &A, w->cap, w->pre);
	res = pmtu_fragment(&s, P.l3_off, max_len, false, &A);
	is_int(res, w->want, "append: %s", w->name);
	is_int(A.n, w->pre + n, "append: %s: a->n counts what was appended",
	       w->name);
	ok(arena_untouched_but(&watch, w->pre, w->pre + n),
	   "append: %s: other slots and segments untouched", w->name);
	if (!n)
		return;
	if (!w->max_len) {
		ok(!memcmp(&frags[w->pre], &s, sizeof(s)),
		   "append: %s: a copy of s", w->name);
		return;
	}
	for (i = 0; i < n; i++)
		same = same && (int)n == ref && frag_same_as_ref(w->pre + i, i);
	ok(same, "append: %s: the fragments of an empty arena, at its slots",
	   w->name);
}

static void test_frag_append(void)
{
	struct frag_case c = { "append", { .l4 = UDP, .payload_len = 3000 },
			       0, NULL, NULL, true };
	size_t i;

	for (i = 0; i < sizeof(append_rows) / sizeof(append_rows[0]); i++)
		test_frag_append_row(&append_rows[i], &c);
}

/* ---- token bucket ---------------------------------------------------- */

#define MS 1000000ull
#define SEC 1000000000ull

static int take_n(struct pmtu_limit *l, uint64_t now, int tries)
{
	int n = 0;

	while (tries-- > 0)
		n += pmtu_limit_take(l, now);
	return n;
}

static void test_limit(void)
{
	struct pmtu_limit l;
	uint64_t t = 1000 * SEC;

	pmtu_limit_init(&l, 10, 5);
	is_int(take_n(&l, 0, 1), 1, "limit: starts full (time 0)");
	pmtu_limit_init(&l, 10, 5);
	is_int(take_n(&l, t, 100), 5, "limit: burst of 5, then refused");
	is_int(take_n(&l, t + 99 * MS, 10), 0, "limit: 99 ms gives nothing");
	is_int(take_n(&l, t + 100 * MS, 10), 1, "limit: 100 ms gives one");
	is_int(take_n(&l, t + 250 * MS, 10), 1, "limit: 250 ms gives one");
	is_int(take_n(&l, t + 300 * MS, 10), 1,
	       "limit: remainder kept (300 ms: one more)");
	is_int(take_n(&l, t + 1300 * MS, 100), 5,
	       "limit: one second later, capped at burst");
	is_int(take_n(&l, t + 100 * SEC, 100), 5,
	       "limit: long idle still capped at burst");
	is_int(take_n(&l, t + 50 * SEC, 10), 0,
	       "limit: time going backwards credits nothing");
	is_int(take_n(&l, t + 50 * SEC + 100 * MS, 10), 1,
	       "limit: refills again from the earlier time");
	is_int(take_n(&l, 0, 10), 0, "limit: back to 0, nothing");
	is_int(take_n(&l, UINT64_MAX, 100), 5,
	       "limit: far future, no overflow, capped");

	pmtu_limit_init(&l, 10, 5);
	is_int(take_n(&l, t, 2), 2, "limit: two taken");
	is_int(take_n(&l, t - SEC, 10), 3,
	       "limit: backwards keeps the tokens left");

	pmtu_limit_init(&l, 0, 3);
	is_int(take_n(&l, t, 10), 3, "limit: 0 per second: burst only");
	is_int(take_n(&l, t + 1000 * SEC, 10), 0,
	       "limit: 0 per second: never refills");
	pmtu_limit_init(&l, 1000, 0);
	is_int(take_n(&l, t, 10), 0, "limit: burst 0 never sends");
	pmtu_limit_init(&l, 2000000000u, 50);
	is_int(take_n(&l, t, 100), 50, "limit: huge rate, burst");
	is_int(take_n(&l, t + 10, 100), 10, "limit: huge rate, 1 ns a token");
	pmtu_limit_init(&l, 1000, 1000);
	is_int(take_n(&l, t, 2000), 1000, "limit: kernel defaults, burst");
	is_int(take_n(&l, t + SEC / 2, 2000), 500,
	       "limit: kernel defaults, half a second");
}

/* ---- fit ------------------------------------------------------------- */

struct fit_row {
	const char *name;
	struct pkt_spec s;
	bool no_df;		/* IPv4: frag_off cleared after the build */
	uint32_t budget;
	bool pmtud;
	enum pmtu_fit want;
	uint16_t mss;		/* PMTU_FIT_CUT: the cap */
};

#define TCP_TS .tcp_opt_len = 12
#define GSO(n) .gso_size = (n), .partial = true

static const struct fit_row fit_rows[] = {
	{ "tcp4 gso fits exactly", { TCP_TS, .payload_len = 14480, GSO(1448) },
	  false, 1514, true, PMTU_FIT_SEND, 0 },
	{ "tcp4 gso one byte over", { TCP_TS, .payload_len = 14480,
	  GSO(1448) }, false, 1513, true, PMTU_FIT_CUT, 1447 },
	{ "tcp4 gso over a 1400 path", { TCP_TS, .payload_len = 14480,
	  GSO(1448) }, false, 1364, true, PMTU_FIT_CUT, 1298 },
	{ "tcp4 gso, --pmtud off cuts too", { TCP_TS, .payload_len = 14480,
	  GSO(1448) }, false, 1364, false, PMTU_FIT_CUT, 1298 },
	{ "tcp4 gso, room for 8 bytes", { TCP_TS, .payload_len = 14480,
	  GSO(1448) }, false, 74, true, PMTU_FIT_CUT, 8 },
	{ "tcp4 gso, room for 7 bytes", { TCP_TS, .payload_len = 14480,
	  GSO(1448) }, false, 73, true, PMTU_FIT_DROP, 0 },
	{ "tcp6 gso", { V6, TCP_TS, .payload_len = 14280, GSO(1428) }, false,
	  1364, true, PMTU_FIT_CUT, 1278 },
	{ "tcp6 gso, vlan", { V6, TCP_TS, .vlans = 1, .payload_len = 14280,
	  GSO(1428) }, false, 1364, true, PMTU_FIT_CUT, 1274 },
	{ "tcp4 partial, not gso", { TCP_TS, .payload_len = 1448,
	  .partial = true }, false, 1364, true, PMTU_FIT_CUT, 1298 },
	{ "tcp6 partial, not gso", { V6, .payload_len = 1440,
	  .partial = true }, false, 1364, true, PMTU_FIT_CUT, 1290 },
	{ "tcp4 checksum done, DF", { .payload_len = 1460 }, false, 1364,
	  true, PMTU_FIT_ICMP, 0 },
	{ "tcp4 checksum done, no DF", { .payload_len = 1460 }, true, 1364,
	  true, PMTU_FIT_FRAGMENT, 0 },
	{ "tcp4 checksum done, --pmtud off", { .payload_len = 1460 }, false,
	  1364, false, PMTU_FIT_SEND, 0 },
	{ "udp4 DF", { .l4 = UDP, .payload_len = 1472 }, false, 1364, true,
	  PMTU_FIT_ICMP, 0 },
	{ "udp4 no DF", { .l4 = UDP, .payload_len = 1472 }, true, 1364, true,
	  PMTU_FIT_FRAGMENT, 0 },
	{ "udp4 DF, --pmtud off", { .l4 = UDP, .payload_len = 1472 }, false,
	  1364, false, PMTU_FIT_SEND, 0 },
	{ "udp4 fits", { .l4 = UDP, .payload_len = 1322 }, false, 1364, true,
	  PMTU_FIT_SEND, 0 },
	{ "udp4 one byte over", { .l4 = UDP, .payload_len = 1323 }, false,
	  1364, true, PMTU_FIT_ICMP, 0 },
	{ "udp6", { V6, .l4 = UDP, .payload_len = 1452 }, false, 1364, true,
	  PMTU_FIT_ICMP, 0 },
	{ "udp6 of 1280 bytes", { V6, .l4 = UDP, .payload_len = 1232 }, false,
	  1200, true, PMTU_FIT_SEND, 0 },
	{ "udp6 of 1281 bytes", { V6, .l4 = UDP, .payload_len = 1233 }, false,
	  1200, true, PMTU_FIT_ICMP, 0 },
	{ "uso4 DF", { .l4 = UDP, .payload_len = 14720, GSO(1472) }, false,
	  1364, true, PMTU_FIT_ICMP, 0 },
	{ "uso4 no DF", { .l4 = UDP, .payload_len = 14720, GSO(1472) }, true,
	  1364, true, PMTU_FIT_FRAGMENT, 0 },
	{ "uso4 segments fit", { .l4 = UDP, .payload_len = 14720,
	  GSO(1300) }, false, 1364, true, PMTU_FIT_SEND, 0 },
	{ "uso6", { V6, .l4 = UDP, .payload_len = 14520, GSO(1452) }, false,
	  1364, true, PMTU_FIT_ICMP, 0 },
	{ "icmp4 DF", { .l4 = ICMP4, .payload_len = 1472 }, false, 1364, true,
	  PMTU_FIT_ICMP, 0 },
	{ "arp over a tiny budget", { .non_ip = true, .payload_len = 28 },
	  false, 30, true, PMTU_FIT_DROP, 0 },
	{ "arp that fits", { .non_ip = true, .payload_len = 28 }, false, 1364,
	  true, PMTU_FIT_SEND, 0 },
};

static void test_fit_row(const struct fit_row *r)
{
	uint16_t mss = 0, before;
	enum pmtu_fit got;
	struct frame f;

	pkt_build(&r->s, &P);
	if (r->no_df) {
		pkt_put16(P.buf + P.l3_off + 6, 0);
		ip4_recheck(P.buf + P.l3_off);
	}
	if (vnet_hdr_parse(&P.vh, P.buf, P.len, &f) != DROP_NONE) {
		ok(0, "fit: %s: the frame parses", r->name);
		return;
	}
	before = f.gso_size;
	got = pmtu_fit(&f, r->budget, r->pmtud, &mss);
	is_int(got, r->want, "fit: %s, budget %u", r->name, r->budget);
	if (r->want != PMTU_FIT_CUT)
		return;
	is_int(mss, r->mss, "fit: %s: segments of %u bytes", r->name, r->mss);
	/* A plain TCP frame now says it is a super-frame of one segment. */
	if (!r->s.gso_size) {
		is_int(f.gso, r->s.ipv6 ? FRAME_GSO_TCP6 : FRAME_GSO_TCP4,
		       "fit: %s: gso type set", r->name);
		is_int(f.gso_size, r->s.payload_len,
		       "fit: %s: gso_size is the whole payload", r->name);
	} else {
		is_int(f.gso_size, before, "fit: %s: gso_size kept", r->name);
	}
}

/* The cut plan really fits: every segment within the budget. */
static void test_fit_plan(void)
{
	struct pkt_spec s = { TCP_TS, .payload_len = 20000, GSO(1448) };
	static struct seg segs[64];
	struct seg_arena a;
	uint32_t i, total = 0, worst = 0;
	uint16_t mss = 0;
	struct frame f;
	int n;

	pkt_build(&s, &P);
	vnet_hdr_parse(&P.vh, P.buf, P.len, &f);
	is_int(pmtu_fit(&f, 1364, true, &mss), PMTU_FIT_CUT, "plan: cut");
	seg_arena_init(&a, arena, segs, 64);
	n = gso_plan(&f, &a, mss, false);
	is_int(n, (20000 + 1297) / 1298, "plan: segment count");
	for (i = 0; n > 0 && i < (uint32_t)n; i++) {
		total += segs[i].payload_len;
		if (seg_len(&segs[i]) > worst)
			worst = seg_len(&segs[i]);
	}
	is_int(worst, 1364, "plan: the largest segment is the budget");
	is_int(total, 20000, "plan: every payload byte planned");
}

static void test_icmp_mtu(void)
{
	struct pkt_spec s = { .l4 = UDP, .payload_len = 1472 };
	struct frame f;

	pkt_build(&s, &P);
	vnet_hdr_parse(&P.vh, P.buf, P.len, &f);
	is_int(pmtu_icmp_mtu(&f, 1364), 1350, "icmp mtu: IPv4");
	is_int(pmtu_icmp_mtu(&f, 60), 68, "icmp mtu: IPv4 at least 68");
	s.vlans = 2;
	pkt_build(&s, &P);
	vnet_hdr_parse(&P.vh, P.buf, P.len, &f);
	is_int(pmtu_icmp_mtu(&f, 1364), 1342, "icmp mtu: IPv4, 2 tags");
	s.vlans = 0;
	s.ipv6 = true;
	pkt_build(&s, &P);
	vnet_hdr_parse(&P.vh, P.buf, P.len, &f);
	is_int(pmtu_icmp_mtu(&f, 1364), 1350, "icmp mtu: IPv6");
	is_int(pmtu_icmp_mtu(&f, 1200), 1280, "icmp mtu: IPv6 at least 1280");
}

/* The error queue's words for "too big", and everything that is not. */
static void test_serr(void)
{
	static const struct {
		uint8_t origin, type, code;
		uint32_t err, info, want;
		const char *name;
	} rows[] = {
		{ SO_EE_ORIGIN_ICMP, 3, 4, EMSGSIZE, 1400, 1400,
		  "ICMP frag needed" },
		{ SO_EE_ORIGIN_ICMP, 3, 3, ECONNREFUSED, 0, 0,
		  "ICMP port unreachable" },
		{ SO_EE_ORIGIN_ICMP, 3, 1, EHOSTUNREACH, 1400, 0,
		  "ICMP host unreachable with junk info" },
		{ SO_EE_ORIGIN_ICMP, 11, 0, EHOSTUNREACH, 0, 0,
		  "ICMP time exceeded" },
		{ SO_EE_ORIGIN_ICMP, 2, 0, EMSGSIZE, 1280, 0,
		  "ICMP type 2 is not ICMPv6's" },
		{ SO_EE_ORIGIN_ICMP6, 2, 0, EMSGSIZE, 1280, 1280,
		  "ICMPv6 packet too big" },
		{ SO_EE_ORIGIN_ICMP6, 1, 4, ECONNREFUSED, 0, 0,
		  "ICMPv6 port unreachable" },
		{ SO_EE_ORIGIN_ICMP6, 3, 4, EMSGSIZE, 1400, 0,
		  "ICMPv6 type 3 is not ICMP's" },
		{ SO_EE_ORIGIN_LOCAL, 0, 0, EMSGSIZE, 1300, 1300,
		  "local EMSGSIZE" },
		{ SO_EE_ORIGIN_LOCAL, 0, 0, ENOBUFS, 1300, 0,
		  "local ENOBUFS" },
		{ SO_EE_ORIGIN_NONE, 3, 4, EMSGSIZE, 1400, 0, "no origin" },
		{ SO_EE_ORIGIN_TIMESTAMPING, 3, 4, EMSGSIZE, 1400, 0,
		  "a timestamp" },
	};
	struct sock_extended_err e;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&e, 0, sizeof(e));
		e.ee_origin = rows[i].origin;
		e.ee_type = rows[i].type;
		e.ee_code = rows[i].code;
		e.ee_errno = rows[i].err;
		e.ee_info = rows[i].info;
		is_int(pmtu_serr_mtu(&e), rows[i].want, "serr: %s",
		       rows[i].name);
	}
}

static void test_fit(void)
{
	size_t i;

	for (i = 0; i < sizeof(fit_rows) / sizeof(fit_rows[0]); i++)
		test_fit_row(&fit_rows[i]);
	test_fit_plan();
	test_icmp_mtu();
}

int main(void)
{
	test_budget();
	test_lower();
	test_df();
	test_icmp();
	test_icmp_tun();
	test_frag_cases();
	test_frag_random();
	test_frag_errors();
	test_frag_append();
	test_frag_tun();
	test_limit();
	test_fit();
	test_serr();
	plan(tap_n);
	return done_testing();
}
