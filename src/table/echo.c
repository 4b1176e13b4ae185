// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * echo: a set-associative table of flows and the tunnel options their
 * packets came with. Bounded: sets of ECHO_WAYS entries, a new flow takes
 * the place of an idle one or of the least recently seen of its set, so a
 * flood of new flows costs the table nothing but its oldest entries. The
 * receive path writes (a lane's rx), the transmit path reads (any lane's
 * tx): each set has a lock, held for a copy of one entry.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "base/bytes.h"
#include "base/siphash.h"
#include "table/echo.h"

struct echo_entry {
	struct echo_key key;
	uint32_t hash;
	uint32_t peer;
	uint64_t seen;			/* ns; 0: a free place */
	uint16_t len;
	uint8_t opts[];			/* room bytes */
};

/* An IPv4 fragment's offset and MF bits, and an IPv6 fragment's offset. */
#define ECHO_IP4_FRAG 0x3fff
#define ECHO_IP4_OFFSET 0x1fff
#define ECHO_IP6_OFFSET 0xfff8
/* IPv6 extension headers walked before the ports, at most. */
#define ECHO_IP6_EXT_MAX 8

static struct echo_entry *echo_at(const struct echo_table *t, uint32_t set,
				  unsigned int way)
{
	size_t i = (size_t)set * ECHO_WAYS + way;

	return (struct echo_entry *)(t->slots + i * t->stride);
}

static void echo_lock(struct echo_table *t, uint32_t set)
{
	while (atomic_flag_test_and_set_explicit(&t->locks[set],
						 memory_order_acquire))
		;
}

static void echo_unlock(struct echo_table *t, uint32_t set)
{
	atomic_flag_clear_explicit(&t->locks[set], memory_order_release);
}

int echo_init(struct echo_table *t, unsigned int flows, uint16_t room,
	      uint64_t seed)
{
	uint32_t sets = 1, i;

	memset(t, 0, sizeof(*t));
	if (!flows || flows > ECHO_FLOWS_MAX || room < 4 ||
	    room > ECHO_ROOM_MAX)
		return -EINVAL;
	while (sets * ECHO_WAYS < flows)
		sets <<= 1;
	t->stride = (sizeof(struct echo_entry) + room + 7) & ~(size_t)7;
	t->slots = calloc((size_t)sets * ECHO_WAYS, t->stride);
	t->locks = calloc(sets, sizeof(*t->locks));
	if (!t->slots || !t->locks) {
		echo_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < sets; i++)
		atomic_flag_clear(&t->locks[i]);
	t->set_mask = sets - 1;
	t->room = room;
	t->k0 = seed;
	t->k1 = seed * 0x9e3779b97f4a7c15ull + 1;
	return 0;
}

void echo_free(struct echo_table *t)
{
	free(t->slots);
	free(t->locks);
	t->slots = NULL;
	t->locks = NULL;
}

/* Do the protocol's first 4 bytes hold its ports (source, destination)? */
static bool echo_has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP;
}

/*
 * Where an IPv6 packet's upper-layer header is, past the extension
 * headers that may come before it (RFC 8200 section 4.1), its protocol
 * in *proto; 0 when it is a later fragment or cannot be found.
 */
static size_t echo_ip6_l4(const uint8_t *ip, size_t len, uint8_t *proto)
{
	size_t off = 40;
	unsigned int i;

	*proto = ip[6];
	for (i = 0; i < ECHO_IP6_EXT_MAX; i++) {
		if (*proto == IPPROTO_FRAGMENT) {
			if (len < off + 8 ||
			    get_be16(ip + off + 2) & ECHO_IP6_OFFSET)
				return 0;
			*proto = ip[off];
			off += 8;
		} else if (*proto == IPPROTO_HOPOPTS ||
			   *proto == IPPROTO_ROUTING ||
			   *proto == IPPROTO_DSTOPTS) {
			if (len < off + 8)
				return 0;
			*proto = ip[off];
			off += (ip[off + 1] + 1u) * 8;
		} else {
			return off;
		}
	}
	return 0;
}

/* The ports of the L4 header at l4 (0: none) into k, if they are there. */
static void echo_ports(const uint8_t *ip, size_t len, size_t l4,
		       struct echo_key *k)
{
	if (!l4 || !echo_has_ports(k->proto) || len < l4 + 4)
		return;
	memcpy(&k->port[0], ip + l4, 2);
	memcpy(&k->port[1], ip + l4 + 2, 2);
}

/* The endpoints in ascending order: a flow's two ways are one key. */
static void echo_order(struct echo_key *k)
{
	int c = memcmp(k->addr[0], k->addr[1], sizeof(k->addr[0]));
	uint8_t a[16];
	uint16_t p;

	if (c < 0 || (c == 0 && get_be16((uint8_t *)&k->port[0]) <=
					get_be16((uint8_t *)&k->port[1])))
		return;
	memcpy(a, k->addr[0], sizeof(a));
	memcpy(k->addr[0], k->addr[1], sizeof(a));
	memcpy(k->addr[1], a, sizeof(a));
	p = k->port[0];
	k->port[0] = k->port[1];
	k->port[1] = p;
}

bool echo_key_of(const uint8_t *ip, size_t len, struct echo_key *k)
{
	size_t l4 = 0, ihl;

	memset(k, 0, sizeof(*k));
	if (len >= 20 && ip[0] >> 4 == 4) {
		ihl = (ip[0] & 0x0f) * 4u;
		k->version = 4;
		k->proto = ip[9];
		memcpy(k->addr[0], ip + 12, 4);
		memcpy(k->addr[1], ip + 16, 4);
		if (ihl >= 20 && !(get_be16(ip + 6) & ECHO_IP4_OFFSET))
			l4 = ihl;
	} else if (len >= 40 && ip[0] >> 4 == 6) {
		k->version = 6;
		memcpy(k->addr[0], ip + 8, 16);
		memcpy(k->addr[1], ip + 24, 16);
		l4 = echo_ip6_l4(ip, len, &k->proto);
	} else {
		return false;
	}
	echo_ports(ip, len, l4, k);
	echo_order(k);
	return true;
}

uint32_t echo_hash(const struct echo_table *t, const struct echo_key *k)
{
	return (uint32_t)siphash24(t->k0, t->k1, k, sizeof(*k));
}

static uint64_t echo_idle_ns(const struct echo_entry *e)
{
	return e->key.proto == IPPROTO_TCP ? ECHO_IDLE_TCP_NS : ECHO_IDLE_NS;
}

static bool echo_live(const struct echo_entry *e, uint64_t now)
{
	return e->seen && now - e->seen < echo_idle_ns(e);
}

static bool echo_is(const struct echo_entry *e, const struct echo_key *k,
		    uint32_t h)
{
	return e->seen && e->hash == h && !memcmp(&e->key, k, sizeof(*k));
}

/* Flow k's entry in set, or NULL. */
static struct echo_entry *echo_find(const struct echo_table *t, uint32_t set,
				    const struct echo_key *k, uint32_t h)
{
	unsigned int w;

	for (w = 0; w < ECHO_WAYS; w++)
		if (echo_is(echo_at(t, set, w), k, h))
			return echo_at(t, set, w);
	return NULL;
}

/* The place for a new flow in set: a free or idle one, or the oldest. */
static struct echo_entry *echo_victim(const struct echo_table *t,
				      uint32_t set, uint64_t now)
{
	struct echo_entry *e, *old = echo_at(t, set, 0);
	unsigned int w;

	for (w = 0; w < ECHO_WAYS; w++) {
		e = echo_at(t, set, w);
		if (!echo_live(e, now))
			return e;
		if (e->seen < old->seen)
			old = e;
	}
	return old;
}

static bool echo_same(const struct echo_entry *e, unsigned int peer,
		      const uint8_t *opts, size_t len)
{
	return e->peer == peer && e->len == len && !memcmp(e->opts, opts, len);
}

enum echo_learnt echo_learn(struct echo_table *t, const struct echo_key *k,
			    uint32_t h, unsigned int peer, const uint8_t *opts,
			    size_t len, uint64_t now)
{
	uint32_t set = h & t->set_mask;
	enum echo_learnt r = ECHO_CHANGED;
	struct echo_entry *e;

	if (len > t->room)
		return ECHO_TOO_LONG;
	/* 0 marks a free place: a clock at 0 is a nanosecond later. */
	now += !now;
	echo_lock(t, set);
	e = echo_find(t, set, k, h);
	if (e && echo_same(e, peer, opts, len))
		r = ECHO_KEPT;
	if (!e) {
		e = echo_victim(t, set, now);
		r = echo_live(e, now) ? ECHO_EVICTED : ECHO_NEW;
		e->key = *k;
		e->hash = h;
	}
	e->peer = peer;
	e->len = (uint16_t)len;
	memcpy(e->opts, opts, len);
	e->seen = now;
	echo_unlock(t, set);
	return r;
}

bool echo_lookup(struct echo_table *t, const struct echo_key *k, uint32_t h,
		 uint64_t now, struct echo_hit *hit)
{
	uint32_t set = h & t->set_mask;
	struct echo_entry *e;
	bool found;

	echo_lock(t, set);
	e = echo_find(t, set, k, h);
	found = e && echo_live(e, now);
	if (found) {
		hit->peer = e->peer;
		hit->len = e->len;
		memcpy(hit->opts, e->opts, e->len);
	}
	echo_unlock(t, set);
	return found;
}

void echo_forget_peer(struct echo_table *t, unsigned int peer)
{
	struct echo_entry *e;
	uint32_t set;
	unsigned int w;

	for (set = 0; set <= t->set_mask; set++) {
		echo_lock(t, set);
		for (w = 0; w < ECHO_WAYS; w++) {
			e = echo_at(t, set, w);
			if (e->seen && e->peer == peer)
				e->seen = 0;
		}
		echo_unlock(t, set);
	}
}

unsigned int echo_count(struct echo_table *t, uint64_t now)
{
	unsigned int n = 0, w;
	uint32_t set;

	for (set = 0; set <= t->set_mask; set++) {
		echo_lock(t, set);
		for (w = 0; w < ECHO_WAYS; w++)
			n += echo_live(echo_at(t, set, w), now);
		echo_unlock(t, set);
	}
	return n;
}
