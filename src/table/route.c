// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * route: which peer an IP packet read from the tun goes to, by longest
 * prefix match of its destination over the --route prefixes.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "base/siphash.h"
#include "table/route.h"

/*
 * One slot of an open-addressing table with linear probing, at most half
 * full (route_init()), deletion closing its gap (route_remove()), as the
 * forwarding table's (fdb.c). The key is (family, length, prefix), the
 * prefix's bits past its length zero; family 0 is an empty slot.
 */
struct route_slot {
	uint8_t addr[16];
	uint32_t peer;
	uint8_t family;		/* ROUTE_V4 + 1, ROUTE_V6 + 1; 0: empty */
	uint8_t len;
};

_Static_assert(sizeof(struct route_slot) <= 24, "a route slot grew");

enum { ROUTE_V4, ROUTE_V6 };

static const struct {
	unsigned int bytes, bits;
} route_family[2] = {
	[ROUTE_V4] = { 4, 32 },
	[ROUTE_V6] = { 16, 128 },
};

/* AF_INET, AF_INET6 as ROUTE_V4, ROUTE_V6; -1 for any other. */
static inline int route_fam(int family)
{
	if (family == AF_INET)
		return ROUTE_V4;
	if (family == AF_INET6)
		return ROUTE_V6;
	return -1;
}

/*
 * SipHash-2-4 of family, length and the family's bytes of the prefix
 * under the table's key. Keyed as the fdb's is: prefixes come from the
 * configuration, but lookups are by the addresses of packets, and a
 * known hash would let anyone who picks the routes pile them into one
 * cluster every lookup walks.
 */
static inline uint64_t route_hash(const struct route_table *t, int fam,
				  unsigned int len, const uint8_t *addr)
{
	uint8_t key[2 + 16];
	unsigned int n = route_family[fam].bytes;

	key[0] = (uint8_t)fam;
	key[1] = (uint8_t)len;
	memcpy(key + 2, addr, n);
	return siphash24(t->k0, t->k1, key, 2 + n);
}

/* SplitMix64's output function: the second half of the key, as fdb_mix(). */
static uint64_t route_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Zero the bits of addr (n bytes) from bit len on. */
static inline void route_mask(uint8_t *addr, unsigned int n, unsigned int len)
{
	unsigned int byte = len / 8;

	if (byte >= n)
		return;
	if (len % 8)
		addr[byte++] &= (uint8_t)(0xff00u >> (len % 8));
	memset(addr + byte, 0, n - byte);
}

static inline bool route_used(const struct route_table *t, uint32_t i)
{
	return t->slots[i].family;
}

static inline uint32_t route_home(const struct route_table *t,
				  const struct route_slot *s)
{
	return (uint32_t)route_hash(t, s->family - 1, s->len, s->addr) &
	       t->mask;
}

/*
 * The slot holding (fam, len, addr): true; or false with *pos the empty
 * slot that ends its probe, where it would go. addr is masked, and its
 * bytes past the family's zero (as a slot's are).
 */
static inline bool route_find(const struct route_table *t, int fam,
			      unsigned int len, const uint8_t *addr,
			      uint32_t *pos)
{
	uint32_t i = (uint32_t)route_hash(t, fam, len, addr) & t->mask;

	for (;; i = (i + 1) & t->mask) {
		const struct route_slot *s = &t->slots[i];

		*pos = i;
		if (!s->family)
			return false;
		if (s->family == fam + 1 && s->len == len &&
		    !memcmp(s->addr, addr, route_family[fam].bytes))
			return true;
	}
}

static void route_len_add(struct route_table *t, int fam, unsigned int len)
{
	if (!t->n_len[fam][len]++)
		t->lens[fam][len / 64] |= 1ull << (len % 64);
}

static void route_len_del(struct route_table *t, int fam, unsigned int len)
{
	if (!--t->n_len[fam][len])
		t->lens[fam][len / 64] &= ~(1ull << (len % 64));
}

/*
 * Empty slot i and close the gap (Knuth, TAOCP vol. 3, 6.4 Algorithm R),
 * as fdb_remove(): no tombstones, however many routes come and go.
 */
static void route_remove(struct route_table *t, uint32_t i)
{
	uint32_t j = i, home;

	route_len_del(t, t->slots[i].family - 1, t->slots[i].len);
	t->n--;
	for (;;) {
		j = (j + 1) & t->mask;
		if (!route_used(t, j))
			break;
		home = route_home(t, &t->slots[j]);
		/* Its home is cyclically in (i, j]: it must stay. */
		if (((j - home) & t->mask) < ((j - i) & t->mask))
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
}

/*
 * p as a key into addr (16 bytes, zero past the family's): its family's
 * index, or -EINVAL for a family, a length or host bits `ip route'
 * would refuse (inet_rtm_newroute() says "Invalid prefix for given
 * prefix length").
 */
static int route_key(const struct cidr *p, uint8_t *addr)
{
	int fam = route_fam(p->family);
	uint8_t masked[16];
	unsigned int n;

	if (fam < 0 || p->prefix > route_family[fam].bits)
		return -EINVAL;
	n = route_family[fam].bytes;
	memset(addr, 0, 16);
	if (fam == ROUTE_V4)
		memcpy(addr, &p->addr.v4, n);
	else
		memcpy(addr, &p->addr.v6, n);
	memcpy(masked, addr, 16);
	route_mask(masked, n, p->prefix);
	return memcmp(masked, addr, n) ? -EINVAL : fam;
}

int route_init(struct route_table *t, unsigned int max, uint64_t seed)
{
	uint32_t n = 2;

	memset(t, 0, sizeof(*t));
	if (!max || max > ROUTE_MAX)
		return -EINVAL;
	/* At most half full: see struct route_slot. */
	while (n < 2 * max)
		n <<= 1;
	t->slots = calloc(n, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->mask = n - 1;
	t->max = max;
	t->k0 = seed;
	t->k1 = route_mix(seed);
	return 0;
}

void route_free(struct route_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int route_add(struct route_table *t, const struct cidr *p, unsigned int peer)
{
	uint8_t addr[16];
	int fam = route_key(p, addr);
	struct route_slot *s;
	uint32_t i;

	if (fam < 0 || peer > INT_MAX)
		return -EINVAL;
	if (!t->slots)
		return -ENOSPC;
	if (route_find(t, fam, p->prefix, addr, &i)) {
		t->slots[i].peer = peer;
		return 0;
	}
	if (t->n >= t->max)
		return -ENOSPC;
	s = &t->slots[i];
	memcpy(s->addr, addr, sizeof(s->addr));
	s->peer = peer;
	s->family = (uint8_t)(fam + 1);
	s->len = p->prefix;
	route_len_add(t, fam, p->prefix);
	t->n++;
	return 0;
}

int route_get(const struct route_table *t, const struct cidr *p)
{
	uint8_t addr[16];
	int fam = route_key(p, addr);
	uint32_t i;

	if (fam < 0 || !t->n || !route_find(t, fam, p->prefix, addr, &i))
		return -1;
	return (int)t->slots[i].peer;
}

int route_del(struct route_table *t, const struct cidr *p)
{
	uint8_t addr[16];
	int fam = route_key(p, addr);
	uint32_t i;

	if (fam < 0)
		return -EINVAL;
	if (!t->n || !route_find(t, fam, p->prefix, addr, &i))
		return -ENOENT;
	route_remove(t, i);
	return 0;
}

/*
 * The walk starts after an empty slot: no cluster wraps over it, so
 * route_remove() only ever moves back routes the walk has still to see,
 * into the slot it is looking at (as fdb_del_peer()).
 */
unsigned int route_del_peer(struct route_table *t, unsigned int peer)
{
	uint32_t start = 0, k, i;
	unsigned int n = 0;

	if (!t->n)
		return 0;
	while (route_used(t, start))
		start++;
	for (k = 1; k <= t->mask + 1; k++) {
		i = (start + k) & t->mask;
		while (route_used(t, i) && t->slots[i].peer == peer) {
			route_remove(t, i);
			n++;
		}
	}
	return n;
}

/*
 * Per packet: the lengths held, longest first, each one hash and a
 * probe of a cluster (short: the table is at most half full). The
 * address is masked shorter as the walk goes down, in place.
 */
int route_lookup(const struct route_table *t, int family, const uint8_t *addr)
{
	int fam = route_fam(family);
	uint8_t key[16] = { 0 };
	unsigned int n, len, w;
	uint32_t i;

	if (fam < 0 || !t->n)
		return -1;
	n = route_family[fam].bytes;
	memcpy(key, addr, n);
	for (w = route_family[fam].bits / 64 + 1; w--;) {
		uint64_t held = t->lens[fam][w];

		while (held) {
			len = 63 - (unsigned int)__builtin_clzll(held);
			held &= ~(1ull << len);
			len += w * 64;
			route_mask(key, n, len);
			if (route_find(t, fam, len, key, &i))
				return (int)t->slots[i].peer;
		}
	}
	return -1;
}

unsigned int route_count(const struct route_table *t)
{
	return t->n;
}

bool route_next(const struct route_table *t, unsigned int *cursor,
		struct cidr *p, unsigned int *peer)
{
	if (!t->slots)
		return false;
	while (*cursor <= t->mask) {
		const struct route_slot *s = &t->slots[(*cursor)++];

		if (!s->family)
			continue;
		memset(p, 0, sizeof(*p));
		if (s->family - 1 == ROUTE_V4) {
			p->family = AF_INET;
			memcpy(&p->addr.v4, s->addr, 4);
		} else {
			p->family = AF_INET6;
			memcpy(&p->addr.v6, s->addr, 16);
		}
		p->prefix = s->len;
		*peer = s->peer;
		return true;
	}
	return false;
}
