// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the route table: scripted adds, replaces and deletes, what
 * it refuses, then random tables of both families checked against a
 * brute-force longest prefix match.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "table/route.h"
#include "tap.h"

/* "ADDR/LEN" as a cidr, taken as given (host bits and all). */
static struct cidr C(const char *s)
{
	struct cidr c = { 0 };
	char buf[64];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	*slash = '\0';
	c.prefix = (uint8_t)atoi(slash + 1);
	if (inet_pton(AF_INET, buf, &c.addr.v4) == 1) {
		c.family = AF_INET;
	} else if (inet_pton(AF_INET6, buf, &c.addr.v6) == 1) {
		c.family = AF_INET6;
	} else {
		printf("Bail out! %s is no prefix\n", s);
		exit(1);
	}
	return c;
}

/* The peer route_lookup() gives for the address in s. */
static int look(const struct route_table *t, const char *s)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, s, a) == 1)
		return route_lookup(t, AF_INET, a);
	if (inet_pton(AF_INET6, s, a) == 1)
		return route_lookup(t, AF_INET6, a);
	printf("Bail out! %s is no address\n", s);
	exit(1);
}

static int add(struct route_table *t, const char *s, unsigned int peer)
{
	struct cidr c = C(s);

	return route_add(t, &c, peer);
}

static int del(struct route_table *t, const char *s)
{
	struct cidr c = C(s);

	return route_del(t, &c);
}

static void test_script(void)
{
	struct route_table t;

	is_int(route_init(&t, 16, 1), 0, "a table of 16");
	is_int(look(&t, "10.1.2.3"), -1, "an empty table routes nothing");
	is_int(look(&t, "fd00::1"), -1, "nor IPv6");
	is_int(add(&t, "10.0.0.0/8", 1), 0, "10.0.0.0/8 to peer 1");
	is_int(look(&t, "10.200.0.1"), 1, "one route routes 10.200.0.1");
	is_int(add(&t, "10.1.0.0/16", 2), 0, "10.1.0.0/16 to peer 2");
	is_int(add(&t, "10.1.2.3/32", 3), 0, "host 10.1.2.3/32 to peer 3");
	is_int(look(&t, "10.9.9.9"), 1, "10.9.9.9 by the /8");
	is_int(look(&t, "10.1.9.9"), 2, "10.1.9.9 by the /16 inside it");
	is_int(look(&t, "10.1.2.3"), 3, "10.1.2.3 by its /32");
	is_int(look(&t, "10.1.2.4"), 2, "10.1.2.4 by the /16 again");
	is_int(look(&t, "11.0.0.1"), -1, "11.0.0.1 by none");
	is_int(look(&t, "::ffff:10.1.2.3"), -1,
	       "a mapped IPv6 address is not routed by IPv4 prefixes");
	is_int(add(&t, "0.0.0.0/0", 4), 0, "an IPv4 default route to 4");
	is_int(look(&t, "11.0.0.1"), 4, "11.0.0.1 by the default");
	is_int(look(&t, "fd00::1"), -1, "IPv6 has no default yet");
	is_int(add(&t, "fd00::/8", 5), 0, "fd00::/8 to 5");
	is_int(add(&t, "fd00:1::/32", 6), 0, "fd00:1::/32 to 6");
	is_int(add(&t, "fd00:1::1/128", 7), 0, "host fd00:1::1/128 to 7");
	is_int(add(&t, "fd00:1:0:0:8000::/65", 8), 0, "a /65 to 8");
	is_int(look(&t, "fd00:1::1"), 7, "fd00:1::1 by its /128");
	is_int(look(&t, "fd00:1::2"), 6, "fd00:1::2 by the /32");
	is_int(look(&t, "fd00:1::8000:0:0:1"), 8, "past bit 64 by the /65");
	is_int(look(&t, "fd00:2::1"), 5, "fd00:2::1 by the /8");
	is_int(look(&t, "2001:db8::1"), -1, "2001:db8::1 by none");
	is_int(route_count(&t), 8, "8 routes");

	is_int(add(&t, "10.1.0.0/16", 9), 0, "10.1.0.0/16 again: to 9");
	is_int(route_count(&t), 8, "replaced: still 8 routes");
	is_int(look(&t, "10.1.9.9"), 9, "10.1.9.9 now to 9");
	is_int(add(&t, "10.1.0.0/17", 9), 0, "10.1.0.0/17: another key");
	is_int(route_count(&t), 9, "9 routes");

	is_int(del(&t, "10.1.0.0/16"), 0, "the /16 deleted");
	is_int(del(&t, "10.1.0.0/16"), -ENOENT, "not twice");
	is_int(del(&t, "10.2.0.0/16"), -ENOENT, "a /16 never held");
	is_int(look(&t, "10.1.200.1"), 1, "10.1.200.1 by the /8 again");
	is_int(look(&t, "10.1.2.1"), 9, "10.1.2.1 by the /17");
	is_int(del(&t, "0.0.0.0/0"), 0, "the default deleted");
	is_int(look(&t, "11.0.0.1"), -1, "11.0.0.1 by none again");
	is_int(del(&t, "10.1.0.1/16"), -EINVAL, "del refuses host bits");

	is_int(add(&t, "10.3.0.0/16", 9), 0, "10.3.0.0/16 to 9");
	is_int(add(&t, "fd00:9::/48", 9), 0, "fd00:9::/48 to 9");
	is_int(route_del_peer(&t, 9), 3, "peer 9 goes: 3 routes");
	is_int(route_del_peer(&t, 9), 0, "then none");
	is_int(route_count(&t), 6, "6 routes left");
	is_int(look(&t, "10.3.0.1"), 1, "10.3.0.1 by the /8");
	is_int(look(&t, "fd00:9::1"), 5, "fd00:9::1 by the /8");
	route_free(&t);
	is_int(route_count(&t), 0, "a freed table holds nothing");
	is_int(look(&t, "10.1.2.3"), -1, "and routes nothing");
	is_int(add(&t, "10.0.0.0/8", 1), -ENOSPC, "nor takes a route");
}

static void test_refused(void)
{
	struct route_table t;
	struct cidr c;

	is_int(route_init(&t, 0, 1), -EINVAL, "a table of 0 is refused");
	is_int(route_init(&t, ROUTE_MAX + 1, 1), -EINVAL,
	       "a table past ROUTE_MAX is refused");
	is_int(route_init(&t, 3, 2), 0, "a table of 3");
	is_int(add(&t, "10.0.0.1/24", 1), -EINVAL,
	       "10.0.0.1/24: host bits set");
	is_int(add(&t, "10.0.0.128/24", 1), -EINVAL,
	       "10.0.0.128/24: the top host bit");
	is_int(add(&t, "10.0.0.1/31", 1), -EINVAL, "10.0.0.1/31: the last bit");
	is_int(add(&t, "0.0.0.1/0", 1), -EINVAL, "0.0.0.1/0: a default's bits");
	is_int(add(&t, "fd00::1/64", 1), -EINVAL, "fd00::1/64: host bits set");
	is_int(add(&t, "fd00::1/127", 1), -EINVAL, "fd00::1/127: the last bit");
	is_int(add(&t, "10.0.0.0/33", 1), -EINVAL, "an IPv4 /33");
	is_int(add(&t, "fd00::/129", 1), -EINVAL, "an IPv6 /129");
	c = C("10.0.0.0/8");
	c.family = AF_UNIX;
	is_int(route_add(&t, &c, 1), -EINVAL, "family AF_UNIX");
	c.family = 0;
	is_int(route_add(&t, &c, 1), -EINVAL, "family 0");
	is_int(route_del(&t, &c), -EINVAL, "del of family 0");
	is_int(route_lookup(&t, AF_UNIX, (const uint8_t *)"abcd"), -1,
	       "a lookup of family AF_UNIX finds nothing");
	c = C("10.0.0.0/8");
	is_int(route_add(&t, &c, (unsigned int)INT_MAX + 1), -EINVAL,
	       "a peer past INT_MAX");
	is_int(route_count(&t), 0, "nothing refused was added");
	is_int(add(&t, "10.0.0.1/32", 1), 0, "10.0.0.1/32 fits");
	is_int(add(&t, "fd00::/8", 2), 0, "fd00::/8 fits");
	is_int(add(&t, "0.0.0.0/0", 3), 0, "the default fits: 3 held");
	is_int(add(&t, "::/0", 4), -ENOSPC, "a 4th: -ENOSPC");
	is_int(add(&t, "fd00::/8", 4), 0, "a full table still replaces");
	is_int(look(&t, "fd00::1"), 4, "fd00::1 to the replaced peer");
	is_int(del(&t, "10.0.0.1/32"), 0, "one deleted");
	is_int(add(&t, "::/0", 4), 0, "then a 4th fits");
	is_int(look(&t, "2001:db8::1"), 4, "and routes");
	route_free(&t);
}

/* ---- random tables against a brute-force match ------------------ */

/* xorshift64*: the same runs on every libc. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

struct model {
	struct cidr c;
	unsigned int peer;
	bool live;
	unsigned int seen;	/* by route_next() */
};

#define MODEL_MAX 6000

static struct model model[MODEL_MAX];
static unsigned int n_model;

static const uint8_t *cidr_bytes(const struct cidr *c)
{
	return c->family == AF_INET ? (const uint8_t *)&c->addr.v4 :
				      (const uint8_t *)&c->addr.v6;
}

static unsigned int fam_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

static void mask_bytes(uint8_t *a, unsigned int n, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < n * 8; i++)
		if (i >= len)
			a[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
}

static bool contains(const struct cidr *c, int family, const uint8_t *a)
{
	const uint8_t *p = cidr_bytes(c);
	unsigned int i;

	if (c->family != family)
		return false;
	for (i = 0; i < c->prefix; i++)
		if ((p[i / 8] ^ a[i / 8]) & (0x80u >> (i % 8)))
			return false;
	return true;
}

/* The longest live prefix of the model holding a, by looking at all. */
static int brute(int family, const uint8_t *a)
{
	int best = -1, len = -1;
	unsigned int i;

	for (i = 0; i < n_model; i++)
		if (model[i].live && contains(&model[i].c, family, a) &&
		    (int)model[i].c.prefix > len) {
			len = model[i].c.prefix;
			best = (int)model[i].peer;
		}
	return best;
}

static int model_find(const struct cidr *c)
{
	unsigned int i;

	for (i = 0; i < n_model; i++)
		if (model[i].live && model[i].c.family == c->family &&
		    model[i].c.prefix == c->prefix &&
		    !memcmp(cidr_bytes(&model[i].c), cidr_bytes(c),
			    c->family == AF_INET ? 4 : 16))
			return (int)i;
	return -1;
}

static void random_bytes(uint8_t *a, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		a[i] = (uint8_t)rnd();
}

/*
 * A prefix to add: nested under one held (longer, same leading bits)
 * a third of the time, so that matches have several lengths to choose
 * from; else of a random length from 9 (the host length often), its
 * leading byte one of four, so that lookups (from eight) both hit and
 * miss. The default routes are added apart (test_random()).
 */
static struct cidr random_prefix(int family)
{
	unsigned int n = family == AF_INET ? 4 : 16, bits = fam_bits(family);
	struct cidr c = { .family = family };
	uint8_t *a = family == AF_INET ? (uint8_t *)&c.addr.v4 :
					 (uint8_t *)&c.addr.v6;
	unsigned int r = (unsigned int)(rnd() % 8);

	random_bytes(a, n);
	a[0] = (uint8_t)(10 + rnd() % 4);
	if (r == 0)
		c.prefix = (uint8_t)bits;
	else
		c.prefix = (uint8_t)(9 + rnd() % (bits - 8));
	if (n_model && rnd() % 3 == 0) {
		const struct model *m = &model[rnd() % n_model];

		if (m->c.family == family && m->c.prefix < bits) {
			memcpy(a, cidr_bytes(&m->c), n);
			/* Random bits below the parent's, then cut. */
			for (r = m->c.prefix; r < bits; r++)
				if (rnd() & 1)
					a[r / 8] ^= (uint8_t)(0x80u >> (r % 8));
			c.prefix = (uint8_t)(m->c.prefix + 1 +
					     rnd() % (bits - m->c.prefix));
		}
	}
	mask_bytes(a, n, c.prefix);
	return c;
}

/* An address to look up: inside a held prefix half the time. */
static int random_addr(int family, uint8_t *a)
{
	unsigned int n = family == AF_INET ? 4 : 16;
	const struct model *m = &model[rnd() % n_model];
	unsigned int i;

	random_bytes(a, n);
	a[0] = (uint8_t)(8 + rnd() % 8);
	if (m->c.family == family && rnd() & 1)
		for (i = 0; i < m->c.prefix; i++) {
			uint8_t bit = (uint8_t)(0x80u >> (i % 8));

			a[i / 8] = (uint8_t)((a[i / 8] & ~bit) |
					     (cidr_bytes(&m->c)[i / 8] & bit));
		}
	return family;
}

/* Every live route once by route_next(), nothing else, peers right. */
static void check_next(const struct route_table *t, const char *name)
{
	unsigned int cursor = 0, peer, n = 0, bad = 0, live = 0, i;
	struct cidr c;
	int at;

	for (i = 0; i < n_model; i++)
		model[i].seen = 0;
	while (route_next(t, &cursor, &c, &peer)) {
		n++;
		at = model_find(&c);
		if (at < 0 || model[at].peer != peer || model[at].seen++)
			bad++;
	}
	for (i = 0; i < n_model; i++)
		if (model[i].live) {
			live++;
			if (model[i].seen != 1)
				bad++;
		}
	ok(!bad && n == live && n == route_count(t),
	   "%s: route_next visits each of the %u routes once", name, live);
	if (bad || n != live)
		printf("#   %u bad, %u visited\n", bad, n);
	bad = 0;
	for (i = 0; i < n_model; i++) {
		at = model_find(&model[i].c);
		if (route_get(t, &model[i].c) != (at < 0 ? -1 :
						  (int)model[at].peer))
			bad++;
	}
	ok(!bad, "%s: route_get gives each prefix's peer, -1 for one gone",
	   name);
}

/*
 * lookups random addresses of both families, against brute(): some
 * routed and, but with default routes, some not.
 */
static void check_lookups(const struct route_table *t, unsigned int lookups,
			  bool defaults, const char *name)
{
	unsigned int i, bad = 0, hits = 0;
	uint8_t a[16];
	int family, got, want;

	for (i = 0; i < lookups; i++) {
		family = rnd() & 1 ? AF_INET : AF_INET6;
		random_addr(family, a);
		got = route_lookup(t, family, a);
		want = brute(family, a);
		if (got != want && !bad++)
			printf("#   lookup %u: got %d, want %d\n", i, got,
			       want);
		hits += want >= 0;
	}
	ok(!bad && hits > lookups / 4 && (hits < lookups) == !defaults,
	   "%s: %u lookups match the brute force (%u routed)", name, lookups,
	   hits);
}

static void test_random(void)
{
	struct route_table t;
	unsigned int i, peer, dels = 0, n_live = 0, bad = 0;
	struct cidr c;
	int at, ret;

	n_model = 0;
	is_int(route_init(&t, MODEL_MAX, rnd()), 0, "a table of %u",
	       MODEL_MAX);
	for (i = 0; i < 5000; i++) {
		c = random_prefix(rnd() & 1 ? AF_INET : AF_INET6);
		at = model_find(&c);
		peer = (unsigned int)(rnd() % 64);
		ret = route_add(&t, &c, peer);
		if (ret) {
			bad++;
		} else if (at >= 0) {
			model[at].peer = peer;
		} else {
			model[n_model].c = c;
			model[n_model].live = true;
			model[n_model++].peer = peer;
		}
	}
	is_int(bad, 0, "5000 random adds of both families succeed");
	for (i = 0; i < n_model; i++)
		n_live += model[i].live;
	is_int(route_count(&t), n_live, "%u distinct prefixes held", n_live);
	check_lookups(&t, 20000, false, "after adds");
	check_next(&t, "after adds");

	/* The default routes of both families. */
	model[n_model].c = C("0.0.0.0/0");
	model[n_model].peer = 16;
	model[n_model++].live = true;
	model[n_model].c = C("::/0");
	model[n_model].peer = 17;
	model[n_model++].live = true;
	is_int(route_add(&t, &model[n_model - 2].c, 16) |
	       route_add(&t, &model[n_model - 1].c, 17), 0,
	       "0.0.0.0/0 and ::/0 added");
	n_live += 2;
	check_lookups(&t, 20000, true, "with defaults");
	check_next(&t, "with defaults");

	/* Delete a third, and the defaults; each twice. */
	bad = 0;
	for (i = 0; i < n_model; i++) {
		if (rnd() % 3 && model[i].c.prefix)
			continue;
		if (route_del(&t, &model[i].c))
			bad++;
		model[i].live = false;
		if (route_del(&t, &model[i].c) != -ENOENT)
			bad++;
		dels++;
	}
	is_int(bad, 0, "%u random deletes succeed, then say -ENOENT", dels);
	is_int(route_count(&t), n_live - dels, "%u held", n_live - dels);
	check_lookups(&t, 20000, false, "after deletes");
	check_next(&t, "after deletes");

	/* Peers 0 to 15 go. */
	bad = 0;
	for (i = 0; i < 16; i++) {
		unsigned int want = 0, j;

		for (j = 0; j < n_model; j++)
			if (model[j].live && model[j].peer == i) {
				model[j].live = false;
				want++;
			}
		if (route_del_peer(&t, i) != want)
			bad++;
	}
	is_int(bad, 0, "route_del_peer() of 16 peers deletes theirs");
	check_lookups(&t, 20000, false, "after peers went");
	check_next(&t, "after peers went");
	route_free(&t);
}

/* A full table of IPv4 hosts, every one found, and the one past refused. */
static void test_full(void)
{
	struct route_table t;
	unsigned int i, bad = 0;
	struct cidr c = { .family = AF_INET, .prefix = 32 };
	uint8_t a[4];

	is_int(route_init(&t, 4096, 7), 0, "a table of 4096");
	for (i = 0; i < 4096; i++) {
		c.addr.v4.s_addr = htonl(0x0a000000u + i * 977);
		bad += route_add(&t, &c, i) != 0;
	}
	is_int(bad, 0, "4096 host routes");
	c.addr.v4.s_addr = htonl(0x0b000000u);
	is_int(route_add(&t, &c, 1), -ENOSPC, "the 4097th: -ENOSPC");
	for (i = 0, bad = 0; i < 4096; i++) {
		uint32_t h = 0x0a000000u + i * 977;

		a[0] = (uint8_t)(h >> 24);
		a[1] = (uint8_t)(h >> 16);
		a[2] = (uint8_t)(h >> 8);
		a[3] = (uint8_t)h;
		bad += route_lookup(&t, AF_INET, a) != (int)i;
		a[3] ^= 1;
		bad += route_lookup(&t, AF_INET, a) != -1;
	}
	is_int(bad, 0, "each of them found, its neighbour not");
	route_free(&t);
}

int main(void)
{
	test_script();
	test_refused();
	test_random();
	test_full();
	plan(tap_n);
	return done_testing();
}
