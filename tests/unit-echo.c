// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of --geneve-echo's flow table: keys from real IPv4 and IPv6
 * packets (both directions one key, ports only where the protocol has
 * them, fragments), what is learnt and looked up, idle times, eviction
 * within a set, the room bound, a peer forgotten, and threads that
 * learn and look up at once.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include "table/echo.h"
#include "tap.h"

#define S(sec) ((uint64_t)(sec) * 1000000000ull)

/* Options as the Gateway Load Balancer sends them: class 0x0108. */
static const uint8_t GWLB_A[] = {
	0x01, 0x08, 0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x0a,
	0x01, 0x08, 0x03, 0x01, 0xde, 0xad, 0xbe, 0xef,
};
static const uint8_t GWLB_B[] = {
	0x01, 0x08, 0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x0b,
	0x01, 0x08, 0x03, 0x01, 0x12, 0x34, 0x56, 0x78,
};

/* An IPv4 header (20 bytes) and 4 bytes of ports into p; its length. */
static size_t ip4(uint8_t *p, uint8_t proto, uint32_t src, uint32_t dst,
		  uint16_t sport, uint16_t dport, uint16_t frag)
{
	memset(p, 0, 28);
	p[0] = 0x45;
	p[3] = 28;
	p[6] = (uint8_t)(frag >> 8);
	p[7] = (uint8_t)frag;
	p[8] = 64;
	p[9] = proto;
	p[12] = (uint8_t)(src >> 24), p[13] = (uint8_t)(src >> 16);
	p[14] = (uint8_t)(src >> 8), p[15] = (uint8_t)src;
	p[16] = (uint8_t)(dst >> 24), p[17] = (uint8_t)(dst >> 16);
	p[18] = (uint8_t)(dst >> 8), p[19] = (uint8_t)dst;
	p[20] = (uint8_t)(sport >> 8), p[21] = (uint8_t)sport;
	p[22] = (uint8_t)(dport >> 8), p[23] = (uint8_t)dport;
	return 28;
}

/* An IPv6 header, an optional 8-byte extension header, then ports. */
static size_t ip6(uint8_t *p, uint8_t proto, uint8_t src, uint8_t dst,
		  uint16_t sport, uint16_t dport, uint8_t ext)
{
	size_t l4 = ext ? 48 : 40;

	memset(p, 0, l4 + 8);
	p[0] = 0x60;
	p[6] = ext ? ext : proto;
	p[7] = 64;
	p[8] = 0xfd, p[23] = src;
	p[24] = 0xfd, p[39] = dst;
	if (ext)
		p[40] = proto;	/* its length 0: 8 bytes; a fragment at 0 */
	p[l4] = (uint8_t)(sport >> 8), p[l4 + 1] = (uint8_t)sport;
	p[l4 + 2] = (uint8_t)(dport >> 8), p[l4 + 3] = (uint8_t)dport;
	return l4 + 8;
}

static bool key_eq(const struct echo_key *a, const struct echo_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void test_keys(void)
{
	struct echo_key a, b;
	uint8_t p[64], q[64];
	size_t n, m;

	n = ip4(p, IPPROTO_TCP, 0x0a000001, 0x0a000002, 40000, 80, 0);
	m = ip4(q, IPPROTO_TCP, 0x0a000002, 0x0a000001, 80, 40000, 0);
	ok(echo_key_of(p, n, &a) && echo_key_of(q, m, &b) && key_eq(&a, &b),
	   "IPv4 TCP: a segment and its answer are one flow");
	ok(a.version == 4 && a.proto == IPPROTO_TCP, "IPv4 TCP: version, "
	   "protocol");
	m = ip4(q, IPPROTO_TCP, 0x0a000001, 0x0a000002, 40001, 80, 0);
	ok(echo_key_of(q, m, &b) && !key_eq(&a, &b),
	   "IPv4 TCP: another source port is another flow");
	m = ip4(q, IPPROTO_UDP, 0x0a000001, 0x0a000002, 40000, 80, 0);
	ok(echo_key_of(q, m, &b) && !key_eq(&a, &b),
	   "IPv4: UDP of the same ports is another flow");
	n = ip4(p, IPPROTO_ICMP, 0x0a000001, 0x0a000002, 0x0800, 0x1234, 0);
	m = ip4(q, IPPROTO_ICMP, 0x0a000002, 0x0a000001, 0x0000, 0x5678, 0);
	ok(echo_key_of(p, n, &a) && echo_key_of(q, m, &b) && key_eq(&a, &b) &&
	   !a.port[0] && !a.port[1],
	   "IPv4 ICMP: by addresses alone, both ways one flow");
	n = ip4(p, IPPROTO_UDP, 0x0a000001, 0x0a000002, 5000, 53, 0x2000);
	m = ip4(q, IPPROTO_UDP, 0x0a000001, 0x0a000002, 9, 9, 0x0010);
	ok(echo_key_of(p, n, &a) && a.port[0] && echo_key_of(q, m, &b) &&
	   !b.port[0] && !b.port[1],
	   "IPv4: a first fragment has ports, a later one none");
	n = ip6(p, IPPROTO_TCP, 1, 2, 40000, 443, 0);
	m = ip6(q, IPPROTO_TCP, 2, 1, 443, 40000, 0);
	ok(echo_key_of(p, n, &a) && echo_key_of(q, m, &b) && key_eq(&a, &b) &&
	   a.version == 6, "IPv6 TCP: a segment and its answer are one flow");
	m = ip6(q, IPPROTO_TCP, 1, 2, 40000, 443, IPPROTO_DSTOPTS);
	ok(echo_key_of(q, m, &b) && key_eq(&a, &b),
	   "IPv6: ports found past a destination options header");
	m = ip6(q, IPPROTO_TCP, 1, 2, 40000, 443, IPPROTO_FRAGMENT);
	ok(echo_key_of(q, m, &b) && key_eq(&a, &b),
	   "IPv6: ports found past the fragment header of a first fragment");
	ok(!echo_key_of(p, 39, &a), "IPv6 cut short: no key");
	n = ip4(p, IPPROTO_TCP, 0x0a000001, 0x0a000002, 40000, 80, 0);
	ok(!echo_key_of(p, 19, &a), "IPv4 cut short: no key");
	p[0] = 0x50;
	ok(!echo_key_of(p, 60, &a), "IP version 5: no key");
}

/* The key of a TCP flow from 10.0.0.src:sport to 10.0.0.2:80. */
static struct echo_key tcp_key(uint8_t src, uint16_t sport)
{
	struct echo_key k;
	uint8_t p[64];

	echo_key_of(p, ip4(p, IPPROTO_TCP, 0x0a000000u | src, 0x0a000002,
			   sport, 80, 0), &k);
	return k;
}

static struct echo_key udp_key(uint16_t sport)
{
	struct echo_key k;
	uint8_t p[64];

	echo_key_of(p, ip4(p, IPPROTO_UDP, 0x0a000001, 0x0a000002, sport, 53,
			   0), &k);
	return k;
}

static bool hit_is(const struct echo_hit *h, unsigned int peer,
		   const uint8_t *opts, size_t len)
{
	return h->peer == peer && h->len == len && !memcmp(h->opts, opts, len);
}

static void test_learn(void)
{
	struct echo_table t;
	struct echo_key k = tcp_key(1, 40000), u = udp_key(5000);
	struct echo_hit h;
	uint32_t hk, hu;

	is_int(echo_init(&t, 0, 64, 1), -EINVAL, "0 flows: refused");
	is_int(echo_init(&t, 8, 256, 1), -EINVAL, "room over 252: refused");
	is_int(echo_init(&t, 8, 64, 1), 0, "8 flows of 64 bytes");
	hk = echo_hash(&t, &k);
	hu = echo_hash(&t, &u);
	ok(!echo_lookup(&t, &k, hk, S(1), &h), "an empty table holds no flow");
	is_int(echo_learn(&t, &k, hk, 3, GWLB_A, sizeof(GWLB_A), S(1)),
	       ECHO_NEW, "a new TCP flow from peer 3");
	ok(echo_lookup(&t, &k, hk, S(2), &h) &&
	   hit_is(&h, 3, GWLB_A, sizeof(GWLB_A)),
	   "its answer goes to peer 3 with its options");
	is_int(echo_learn(&t, &k, hk, 3, GWLB_A, sizeof(GWLB_A), S(3)),
	       ECHO_KEPT, "the same again: kept");
	is_int(echo_learn(&t, &k, hk, 4, GWLB_B, sizeof(GWLB_B), S(4)),
	       ECHO_CHANGED, "from peer 4 with other options: changed");
	ok(echo_lookup(&t, &k, hk, S(5), &h) &&
	   hit_is(&h, 4, GWLB_B, sizeof(GWLB_B)),
	   "the last packet's peer and options are sent");
	is_int(echo_learn(&t, &u, hu, 3, NULL, 0, S(5)), ECHO_NEW,
	       "a UDP flow without options");
	ok(echo_lookup(&t, &u, hu, S(5), &h) && hit_is(&h, 3, NULL, 0),
	   "its answer goes to its peer with no options");
	ok(echo_lookup(&t, &u, hu, S(5 + 119), &h),
	   "UDP: held after 119 s idle");
	ok(!echo_lookup(&t, &u, hu, S(5 + 120), &h),
	   "UDP: forgotten after 120 s idle");
	ok(echo_lookup(&t, &k, hk, S(4 + 349), &h),
	   "TCP: held after 349 s idle");
	ok(!echo_lookup(&t, &k, hk, S(4 + 350), &h),
	   "TCP: forgotten after 350 s idle");
	is_int(echo_learn(&t, &k, hk, 3, GWLB_A, 68, S(400)), ECHO_TOO_LONG,
	       "options over the room: not kept");
	ok(!echo_lookup(&t, &k, hk, S(400), &h), "... nor looked up");
	is_int(echo_count(&t, S(400)), 0, "nothing live at 400 s");
	echo_free(&t);
}

/* Learn TCP flows from 10.0.0.1 until n of them fell in set; their ports. */
static unsigned int flows_of_set(struct echo_table *t, uint32_t set,
				 uint16_t *ports, unsigned int n)
{
	unsigned int got = 0;
	uint16_t port;
	struct echo_key k;

	for (port = 1; port && got < n; port++) {
		k = tcp_key(1, port);
		if ((echo_hash(t, &k) & t->set_mask) == set)
			ports[got++] = port;
	}
	return got;
}

static void test_evict(void)
{
	struct echo_table t;
	uint16_t ports[ECHO_WAYS + 1];
	struct echo_key k;
	struct echo_hit h;
	unsigned int i;
	int r;

	echo_init(&t, 64, 8, 7);
	is_int(flows_of_set(&t, 5, ports, ECHO_WAYS + 1), ECHO_WAYS + 1,
	       "5 flows that fall in one set");
	for (i = 0; i < ECHO_WAYS; i++) {
		k = tcp_key(1, ports[i]);
		r = echo_learn(&t, &k, echo_hash(&t, &k), i, NULL, 0,
			       S(10 + i));
		is_int(r, ECHO_NEW, "flow %u of the set is new", i);
	}
	k = tcp_key(1, ports[0]);
	echo_learn(&t, &k, echo_hash(&t, &k), 0, NULL, 0, S(20));
	k = tcp_key(1, ports[ECHO_WAYS]);
	is_int(echo_learn(&t, &k, echo_hash(&t, &k), 9, NULL, 0, S(21)),
	       ECHO_EVICTED, "a fifth flow in a full set evicts a live one");
	k = tcp_key(1, ports[1]);
	ok(!echo_lookup(&t, &k, echo_hash(&t, &k), S(21), &h),
	   "... the least recently seen (flow 1, not flow 0 seen again)");
	k = tcp_key(1, ports[0]);
	ok(echo_lookup(&t, &k, echo_hash(&t, &k), S(21), &h) && h.peer == 0,
	   "flow 0 is still held");
	is_int(echo_count(&t, S(21)), ECHO_WAYS, "the set holds 4 flows");
	k = tcp_key(1, ports[1]);
	is_int(echo_learn(&t, &k, echo_hash(&t, &k), 1, NULL, 0, S(400)),
	       ECHO_NEW, "once the set is idle, a flow takes a place as new");
	echo_forget_peer(&t, 1);
	ok(!echo_lookup(&t, &k, echo_hash(&t, &k), S(400), &h),
	   "a forgotten peer's flows are gone");
	is_int(echo_count(&t, S(400)), 0, "nothing else was live");
	echo_free(&t);
}

/*
 * Threads learning and looking up one flow at once: a lookup sees the
 * peer and the 252 bytes of options of one packet, never parts of two.
 */
struct race {
	struct echo_table *t;
	struct echo_key k;
	uint8_t opts[2][ECHO_ROOM_MAX];
	atomic_int go;
};

#define RACE_ROUNDS 300000

/* Learn the flow from peer 0 and 1 by turns until told to stop. */
static void *race_learn(void *arg)
{
	struct race *r = arg;
	uint32_t h = echo_hash(r->t, &r->k);
	unsigned int i;

	atomic_store(&r->go, 1);
	for (i = 0; atomic_load_explicit(&r->go, memory_order_relaxed) == 1;
	     i++)
		echo_learn(r->t, &r->k, h, i & 1, r->opts[i & 1],
			   ECHO_ROOM_MAX, S(1));
	return NULL;
}

/* Lookups while the other thread learns; how many were torn. */
static int race_look(struct race *r, int *seen)
{
	uint32_t h = echo_hash(r->t, &r->k);
	struct echo_hit hit;
	int torn = 0, i;

	for (i = 0; i < RACE_ROUNDS; i++) {
		if (!echo_lookup(r->t, &r->k, h, S(1), &hit))
			continue;
		(*seen)++;
		if (hit.peer > 1 || hit.len != ECHO_ROOM_MAX ||
		    memcmp(hit.opts, r->opts[hit.peer], ECHO_ROOM_MAX))
			torn++;
	}
	return torn;
}

static void test_race(void)
{
	static struct race r;
	struct echo_table t;
	pthread_t th;
	int seen = 0, torn;

	echo_init(&t, 4, ECHO_ROOM_MAX, 3);
	r.t = &t;
	r.k = tcp_key(7, 7);
	memset(r.opts[0], 0xaa, ECHO_ROOM_MAX);
	memset(r.opts[1], 0x55, ECHO_ROOM_MAX);
	echo_learn(&t, &r.k, echo_hash(&t, &r.k), 0, r.opts[0],
		   ECHO_ROOM_MAX, S(1));
	pthread_create(&th, NULL, race_learn, &r);
	while (!atomic_load(&r.go))
		;
	torn = race_look(&r, &seen);
	atomic_store(&r.go, 2);
	pthread_join(th, NULL);
	ok(seen > 0 && !torn, "a lookup beside a learning thread sees a "
	   "whole entry: peer and options of one packet (%d seen, %d torn)",
	   seen, torn);
	echo_free(&t);
}

int main(void)
{
	test_keys();
	test_learn();
	test_evict();
	test_race();
	plan(tap_n);
	return done_testing();
}
