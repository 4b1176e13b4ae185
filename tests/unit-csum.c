// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of csum.c against a naive RFC 1071 reference that sums
 * big-endian byte pairs one at a time; TAP output.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include "base/csum.h"
#include "tap.h"

#define MAXLEN 2000
#define NOFFS 8

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* splitmix64: small, seeded, good enough to make packets. */
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng() % n);
}

static void rng_fill(uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)rng();
}

/*
 * The reference: RFC 1071 in its plainest form, network-order words from
 * byte pairs, an odd last byte padded with zero, carries kept in 64 bits.
 */
static uint64_t ref_sum(const uint8_t *b, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint64_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint64_t)b[n - 1] << 8;
	return s;
}

static uint16_t ref_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * A wsum is in memory order; byte-swapping commutes with one's-complement
 * addition (RFC 1071 section 2 (B)), so folding and then converting to
 * network order gives a value comparable with the reference.
 */
static uint16_t be16(uint32_t wsum)
{
	return ntohs(ref_fold(wsum));
}

/* Store/load a 16-bit value as it lies in memory. */
static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* ---- csum_partial ---- */

enum fill { FILL_RANDOM, FILL_ONES, FILL_ZERO, FILL_RUNS, FILL_MAX };

static const char *const fill_names[] = {
	[FILL_RANDOM] = "random",
	[FILL_ONES] = "all 0xff",
	[FILL_ZERO] = "all zero",
	[FILL_RUNS] = "runs of 0xff/0x00",
};

static void fill_buf(uint8_t *b, size_t n, enum fill f)
{
	size_t i;

	switch (f) {
	case FILL_RANDOM:
		rng_fill(b, n);
		break;
	case FILL_ONES:
		memset(b, 0xff, n);
		break;
	case FILL_ZERO:
		memset(b, 0, n);
		break;
	default:
		for (i = 0; i < n; i++)
			b[i] = (i / 37) & 1 ? 0xff : (i % 5 ? 0 : 0xfe);
		break;
	}
}

/*
 * Every length 0..MAXLEN at one start offset, with a zero and a random
 * initial sum.  The two folds must agree exactly, not just modulo 0xffff:
 * a sum of anything non-zero never folds to +0.
 */
static void test_partial_offset(const uint8_t *base, size_t off,
				const char *what)
{
	const uint8_t *p = base + off;
	size_t len, bad_len = 0;
	uint16_t got = 0, want = 0;
	uint32_t init;
	int bad = 0;

	for (len = 0; len <= MAXLEN && !bad; len++) {
		init = len & 1 ? (uint32_t)rng() : 0;
		got = be16(csum_partial(p, len, init));
		want = ref_fold(ref_sum(p, len) + be16(init));
		if (got != want) {
			bad = 1;
			bad_len = len;
		}
	}
	if (!ok(!bad, "csum_partial %s, offset %zu, lengths 0..%d", what, off,
		MAXLEN))
		printf("#   length %zu: got 0x%04x, want 0x%04x\n", bad_len,
		       got, want);
}

static void test_partial(void)
{
	static uint8_t buf[MAXLEN + NOFFS + 64];
	size_t off;
	int f;

	for (f = 0; f < FILL_MAX; f++) {
		fill_buf(buf, sizeof(buf), (enum fill)f);
		for (off = 0; off < NOFFS; off++)
			test_partial_offset(buf, off, fill_names[f]);
	}
}

/* Long buffers: carries over many adc blocks, and all-ones for the worst. */
static void test_partial_long(void)
{
	static uint8_t big[(1 << 20) + 8];
	size_t lens[] = { 65536, 65535, 65537, sizeof(big) - 3 };
	size_t i, off;
	int bad = 0;

	for (i = 0; i < 2; i++) {
		fill_buf(big, sizeof(big), i ? FILL_ONES : FILL_RANDOM);
		for (off = 0; off < 4; off++) {
			size_t n = lens[(off + i) % 4];
			uint16_t got, want;

			got = be16(csum_partial(big + off, n, 0));
			want = ref_fold(ref_sum(big + off, n));
			if (got != want) {
				printf("#   len %zu off %zu: %04x != %04x\n", n,
				       off, got, want);
				bad = 1;
			}
		}
	}
	ok(!bad, "csum_partial on 64 KB and 1 MB buffers");
}

/* ---- fold, add, sub ---- */

static void test_fold(void)
{
	static const struct {
		uint32_t in;
		uint16_t out;
	} v[] = {
		{ 0, 0 },
		{ 0xffff, 0xffff },
		{ 0x10000, 1 },
		{ 0x1fffe, 0xffff },
		{ 0x1ffff, 1 },
		{ 0xffffffff, 0xffff },
		{ 0xfffeffff, 0xfffe },
		{ 0x12345678, 0x68ac },
	};
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		is_int(csum_fold16(v[i].in), v[i].out, "csum_fold16(0x%x)",
		       v[i].in);
	for (i = 0; i < 100000; i++) {
		uint32_t x = (uint32_t)rng();
		uint16_t f = ref_fold(x);

		if (csum_fold16(x) != f || csum_fold(x) != 0xffff - f)
			bad = 1;
	}
	ok(!bad, "csum_fold16/csum_fold on random sums");
}

static void test_add_sub(void)
{
	int bad_add = 0, bad_sub = 0, bad_inv = 0;
	int i;

	is_int(csum_add(0xffffffff, 1), 1, "csum_add end-around carry");
	is_int(csum_add(0x80000000, 0x80000000), 1, "csum_add 2^31 + 2^31");
	is_int(csum_add(0, 0), 0, "csum_add 0 + 0 stays +0");
	for (i = 0; i < 100000; i++) {
		uint32_t a = (uint32_t)rng(), b = (uint32_t)rng();
		uint64_t nb = 0xffffffffull - b; /* -b modulo 2^32 - 1 */

		if (i & 1)
			a &= 0xffff;
		if (ref_fold(csum_add(a, b)) != ref_fold((uint64_t)a + b))
			bad_add = 1;
		if (ref_fold(csum_sub(a, b)) != ref_fold(a + nb))
			bad_sub = 1;
		/* x - b + b == x modulo 0xffff: +0 and -0 are both zero */
		if (ref_fold(csum_add(csum_sub(a, b), b)) % 0xffff !=
		    ref_fold(a) % 0xffff)
			bad_inv = 1;
	}
	ok(!bad_add, "csum_add on random sums");
	ok(!bad_sub, "csum_sub on random sums");
	ok(!bad_inv, "csum_add(csum_sub(a, b), b) == a modulo 0xffff");
}

/* ---- csum_block_add ---- */

static bool split_ok(const uint8_t *b, size_t n, size_t k)
{
	uint32_t whole = csum_partial(b, n, 0);
	uint32_t part = csum_partial(b, k, 0);

	part = csum_block_add(part, csum_partial(b + k, n - k, 0), k);
	return ref_fold(part) == ref_fold(whole);
}

static void test_block_add(void)
{
	static uint8_t buf[1501];
	int bad_even = 0, bad_odd = 0, sensitive = 0, bad_chain = 0;
	size_t k, n = sizeof(buf), off;
	uint32_t s;
	int t;

	rng_fill(buf, n);
	for (k = 0; k <= n; k++) {
		if (!split_ok(buf, n, k)) {
			if (k & 1)
				bad_odd = 1;
			else
				bad_even = 1;
		}
		if (k & 1) {
			s = csum_add(csum_partial(buf, k, 0),
				     csum_partial(buf + k, n - k, 0));
			if (ref_fold(s) != ref_fold(csum_partial(buf, n, 0)))
				sensitive = 1;
		}
	}
	ok(!bad_even, "csum_block_add at every even split of 1501 bytes");
	ok(!bad_odd, "csum_block_add at every odd split of 1501 bytes");
	ok(sensitive, "plain csum_add is wrong at odd splits (test sees it)");

	/* Many blocks of random odd and even sizes, chained. */
	for (t = 0; t < 2000; t++) {
		s = 0;
		for (off = 0; off < n; off += k) {
			k = rng_below(40);
			if (k > n - off)
				k = n - off;
			s = csum_block_add(s, csum_partial(buf + off, k, 0),
					   off);
		}
		if (be16(s) != ref_fold(ref_sum(buf, n)))
			bad_chain = 1;
	}
	ok(!bad_chain, "csum_block_add over chains of random blocks");
}

/* ---- RFC 1624 updates ---- */

/*
 * A random even-length header with a checksum field at check; the value a
 * full recomputation stores there.
 */
static uint16_t full_check(uint8_t *h, size_t n, size_t check)
{
	uint8_t tmp[64];

	memcpy(tmp, h, n);
	tmp[check] = tmp[check + 1] = 0;
	return htons((uint16_t)~ref_fold(ref_sum(tmp, n)));
}

static void test_replace_one(int width, int *bad, int *bad_verify)
{
	uint8_t h[64];
	size_t n = 8 + 2 * rng_below(29), check, field;
	uint16_t c, o2, n2;
	uint32_t o4, n4;

	rng_fill(h, n);
	check = 2 * rng_below((uint32_t)n / 2);
	do
		field = 2 * rng_below((uint32_t)(n - width) / 2 + 1);
	while (field + width > check && field < check + 2);
	put16(h + check, full_check(h, n, check));
	c = get16(h + check);
	if (width == 2) {
		o2 = get16(h + field);
		n2 = (uint16_t)rng();
		put16(h + field, n2);
		csum_replace2(&c, o2, n2);
	} else {
		memcpy(&o4, h + field, 4);
		n4 = (uint32_t)rng();
		memcpy(h + field, &n4, 4);
		csum_replace4(&c, o4, n4);
	}
	if (c != full_check(h, n, check))
		*bad = 1;
	put16(h + check, c);
	if (ref_fold(ref_sum(h, n)) != 0xffff)
		*bad_verify = 1;
}

static void test_replace(void)
{
	int bad2 = 0, bad4 = 0, bad_verify = 0, i;
	uint16_t c = 0xdd2f;

	/* RFC 1624 section 4: eqn. 3 gives 0x0000 where eqn. 2 gave 0xffff */
	csum_replace2(&c, 0x5555, 0x3285);
	is_int(c, 0x0000, "csum_replace2 on the RFC 1624 section 4 example");
	for (i = 0; i < 20000; i++) {
		test_replace_one(2, &bad2, &bad_verify);
		test_replace_one(4, &bad4, &bad_verify);
	}
	ok(!bad2, "csum_replace2 equals a full recomputation");
	ok(!bad4, "csum_replace4 equals a full recomputation");
	ok(!bad_verify, "headers updated by csum_replace2/4 verify");
}

/* ---- IPv4 header ---- */

static void test_ip4(void)
{
	uint8_t h[60] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
			  0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
			  0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	int bad = 0, i;
	size_t n;

	put16(h + 10, csum_ip4_header(h, 20));
	ok(h[10] == 0xb8 && h[11] == 0x61, "csum_ip4_header known vector");
	is_int(csum_ip4_header(h, 20), 0, "csum_ip4_header over valid is 0");
	for (i = 0; i < 20000; i++) {
		n = 4 * (5 + rng_below(11));
		rng_fill(h, n);
		h[0] = (uint8_t)(0x40 | n / 4);
		put16(h + 10, 0);
		put16(h + 10, csum_ip4_header(h, n));
		if (ref_fold(ref_sum(h, n)) != 0xffff)
			bad = 1;
	}
	ok(!bad, "random IPv4 headers of 20..60 bytes verify");
}

/* ---- pseudo-headers ---- */

/* RFC 793 pseudo-header bytes; the length as 32 bits beyond 64 KB. */
static size_t ref_pseudo4(uint8_t *b, const struct in_addr *s,
			  const struct in_addr *d, uint8_t proto, uint32_t len)
{
	memcpy(b, &s->s_addr, 4);
	memcpy(b + 4, &d->s_addr, 4);
	b[8] = 0;
	b[9] = proto;
	if (len <= 0xffff) {
		b[10] = (uint8_t)(len >> 8);
		b[11] = (uint8_t)len;
		return 12;
	}
	b[10] = (uint8_t)(len >> 24);
	b[11] = (uint8_t)(len >> 16);
	b[12] = (uint8_t)(len >> 8);
	b[13] = (uint8_t)len;
	return 14;
}

/* RFC 8200 section 8.1 pseudo-header bytes. */
static size_t ref_pseudo6(uint8_t *b, const struct in6_addr *s,
			  const struct in6_addr *d, uint8_t proto, uint32_t len)
{
	memcpy(b, s, 16);
	memcpy(b + 16, d, 16);
	b[32] = (uint8_t)(len >> 24);
	b[33] = (uint8_t)(len >> 16);
	b[34] = (uint8_t)(len >> 8);
	b[35] = (uint8_t)len;
	b[36] = b[37] = b[38] = 0;
	b[39] = proto;
	return 40;
}

/* A random pseudo-header, its wsum from csum.c and its reference bytes. */
static uint32_t rand_pseudo(uint8_t *b, size_t *n, bool v6, uint8_t proto,
			    uint32_t len)
{
	struct in6_addr s6, d6;
	struct in_addr s4, d4;

	if (v6) {
		rng_fill(s6.s6_addr, 16);
		rng_fill(d6.s6_addr, 16);
		*n = ref_pseudo6(b, &s6, &d6, proto, len);
		return csum_pseudo6(&s6, &d6, proto, len);
	}
	s4.s_addr = (uint32_t)rng();
	d4.s_addr = (uint32_t)rng();
	*n = ref_pseudo4(b, &s4, &d4, proto, len);
	return csum_pseudo4(&s4, &d4, proto, len);
}

static void test_pseudo(void)
{
	int bad4 = 0, bad4big = 0, bad6 = 0, i;
	uint8_t b[40];
	uint32_t s, len;
	size_t n;

	for (i = 0; i < 100000; i++) {
		uint8_t proto = (uint8_t)rng();

		len = rng_below(0x10000);
		s = rand_pseudo(b, &n, false, proto, len);
		bad4 |= be16(s) != ref_fold(ref_sum(b, n));
		len = 0x10000 + rng_below(0x1000000);
		s = rand_pseudo(b, &n, false, proto, len);
		bad4big |= be16(s) != ref_fold(ref_sum(b, n));
		len = (uint32_t)rng();
		s = rand_pseudo(b, &n, true, proto, len);
		bad6 |= be16(s) != ref_fold(ref_sum(b, n));
	}
	ok(!bad4, "csum_pseudo4 equals the RFC 793 pseudo-header sum");
	ok(!bad4big, "csum_pseudo4 with lengths over 64 KB (32-bit length)");
	ok(!bad6, "csum_pseudo6 equals the RFC 8200 pseudo-header sum");
}

/* ---- local checksum offload ---- */

struct lco_stats {
	int bad_fill, bad_tail, bad_outer;
	int minus_zero; /* pseudo-headers that folded to -0 (0xffff) */
};

/*
 * Make pseudo-header bytes fold to 0xffff by rewriting the last word of the
 * destination address, the case where the tail is +0 but the bytes -0.
 */
static void force_minus_zero(uint8_t *ph, size_t n, bool v6)
{
	size_t w = v6 ? 30 : 6;

	ph[w] = ph[w + 1] = 0;
	put16(ph + w, htons((uint16_t)~ref_fold(ref_sum(ph, n))));
}

static uint32_t pseudo_from_bytes(const uint8_t *ph, bool v6, uint8_t proto,
				  uint32_t len)
{
	struct in6_addr s6, d6;
	struct in_addr s4, d4;

	if (v6) {
		memcpy(&s6, ph, 16);
		memcpy(&d6, ph + 16, 16);
		return csum_pseudo6(&s6, &d6, proto, len);
	}
	memcpy(&s4, ph, 4);
	memcpy(&d4, ph + 4, 4);
	return csum_pseudo4(&s4, &d4, proto, len);
}

/*
 * Outer UDP checksum with LCO: the outer headers (up to the inner L4
 * header, possibly an odd number of bytes) are summed, the inner tail comes
 * from csum_lco_tail(); compared with summing every byte.
 */
static void check_outer(const uint8_t *l4, size_t l4len, uint32_t tail,
			struct lco_stats *st)
{
	uint8_t pkt[128 + MAXLEN], oph[40];
	size_t hl = 8 + rng_below(100), opn;
	uint32_t ops, s;
	uint16_t want;

	ops = rand_pseudo(oph, &opn, rng() & 1, IPPROTO_UDP,
			  (uint32_t)(hl + l4len));
	rng_fill(pkt, hl);
	put16(pkt + 6, 0);
	memcpy(pkt + hl, l4, l4len);
	s = csum_partial(pkt, hl, ops);
	s = csum_block_add(s, tail, hl);
	want = ref_fold(ref_sum(pkt, hl + l4len) + ref_sum(oph, opn));
	if (be16(s) != want)
		st->bad_outer = 1;
}

static void lco_one(bool force, struct lco_stats *st)
{
	bool v6 = rng() & 1, tcp = rng() & 1;
	uint8_t l4[MAXLEN], ph[40];
	size_t off = tcp ? 16 : 6, n, phn;
	uint16_t c, tail, bytes, phf;
	uint8_t proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	uint32_t pseudo;

	n = (tcp ? 20 : 8) + rng_below(MAXLEN - 19);
	rand_pseudo(ph, &phn, v6, proto, (uint32_t)n);
	if (force)
		force_minus_zero(ph, phn, v6);
	pseudo = pseudo_from_bytes(ph, v6, proto, (uint32_t)n);
	rng_fill(l4, n);
	put16(l4 + off, 0);
	c = csum_fold(csum_partial(l4, n, pseudo));
	if (!tcp && !c)
		c = 0xffff; /* RFC 768: zero is sent as all ones */
	put16(l4 + off, c);
	if (ref_fold(ref_sum(l4, n) + ref_sum(ph, phn)) != 0xffff)
		st->bad_fill = 1;

	phf = ref_fold(ref_sum(ph, phn));
	st->minus_zero += phf == 0xffff;
	tail = be16(csum_lco_tail(pseudo));
	bytes = ref_fold(ref_sum(l4, n));
	/* +0 for -0 only when the pseudo-header itself folds to -0 */
	if (tail != bytes && !(phf == 0xffff && tail == 0 && bytes == 0xffff))
		st->bad_tail = 1;
	check_outer(l4, n, csum_lco_tail(pseudo), st);
}

static void test_lco(void)
{
	struct lco_stats st = { 0 };
	int i, forced;

	for (i = 0; i < 5000; i++)
		lco_one(false, &st);
	ok(!st.bad_fill, "filled inner L4 checksums verify");
	ok(!st.bad_tail, "csum_lco_tail equals the sum of the L4 bytes");
	forced = st.minus_zero;
	st.bad_tail = 0;
	for (i = 0; i < 500; i++)
		lco_one(true, &st);
	ok(!st.bad_tail && st.minus_zero - forced == 500,
	   "csum_lco_tail when the pseudo-header folds to 0xffff");
	ok(!st.bad_outer, "outer checksums using csum_lco_tail are exact");
}

/* ---- throughput, informational only ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench(void)
{
	static uint8_t buf[65536];
	volatile uint32_t sink = 0;
	double t, best = 1e9;
	int r, i;

	rng_fill(buf, sizeof(buf));
	for (r = 0; r < 5; r++) {
		t = now();
		for (i = 0; i < 200; i++)
			sink += csum_partial(buf, sizeof(buf), 0);
		t = (now() - t) / 200;
		if (t < best)
			best = t;
	}
	(void)sink;
	printf("# csum_partial 64KB: %.1f GB/s\n", sizeof(buf) / best / 1e9);
}

int main(void)
{
	test_partial();
	test_partial_long();
	test_fold();
	test_add_sub();
	test_block_add();
	test_replace();
	test_ip4();
	test_pseudo();
	test_lco();
	bench();
	plan(tap_n);
	return done_testing();
}
