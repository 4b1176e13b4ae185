/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The route table of a tun (--mode tun, --route PREFIX=ADDR): which peer
 * an inner destination address is behind, by longest prefix match over
 * IPv4 and IPv6 prefixes, as `ip route ... encap` and WireGuard's
 * AllowedIPs choose. Pure.
 */
#ifndef GSOTUN_ROUTE_H
#define GSOTUN_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "conf/optvalue.h"

#define ROUTE_MAX (1u << 20)	/* routes a table may be made for */

struct route_slot;

/*
 * A table of fixed size, allocated once by route_init(). Others go
 * through the functions below, never these fields.
 */
struct route_table {
	struct route_slot *slots;	/* hashed by family, length, prefix */
	uint32_t mask;			/* number of slots - 1 */
	unsigned int n, max;
	/*
	 * Prefix lengths held, per family ([0] IPv4, [1] IPv6): bit L of
	 * lens[f] is set while some /L is, so that a lookup hashes only the
	 * lengths held, longest first.
	 */
	uint64_t lens[2][3];		/* bits 0-32, 0-128 */
	unsigned int n_len[2][129];	/* routes of each length */
	uint64_t k0, k1;		/* the hash key */
};

/*
 * Room for max routes (1 to ROUTE_MAX); seed keys the hash (random, so
 * nobody can pick prefixes that collide in it). -EINVAL, -ENOMEM.
 */
int route_init(struct route_table *t, unsigned int max, uint64_t seed);

/* Free the table; t may then be given to route_init() again. */
void route_free(struct route_table *t);

/*
 * p is behind peer: a new route, or the peer of p's route replaced.
 * -EINVAL for a family that is not AF_INET or AF_INET6, a length past
 * the family's, bits set after the prefix (as `ip route' refuses
 * them), a peer past INT_MAX (route_lookup() returns it as an int);
 * -ENOSPC when max routes are held already.
 */
int route_add(struct route_table *t, const struct cidr *p, unsigned int peer);

/* The peer of the route of exactly p, or -1 when there is none. */
int route_get(const struct route_table *t, const struct cidr *p);

/*
 * Forget the route of p. -ENOENT when the table has none, -EINVAL for
 * a p route_add() refuses.
 */
int route_del(struct route_table *t, const struct cidr *p);

/* Forget every route behind peer (a peer going away); how many. */
unsigned int route_del_peer(struct route_table *t, unsigned int peer);

/*
 * The peer of the longest prefix that holds addr (4 bytes for AF_INET,
 * 16 for AF_INET6), or -1 when none does (or family is neither). Per
 * packet: no allocation, one hash for each prefix length held of the
 * family, longest first, until one matches.
 */
int route_lookup(const struct route_table *t, int family,
		 const uint8_t *addr);

/* Routes held. */
unsigned int route_count(const struct route_table *t);

/*
 * The routes one by one, for `route show': *cursor 0 at first; the next
 * route into *p and *peer and true, or false past the last. The order is
 * the table's (stable while it is not changed).
 */
bool route_next(const struct route_table *t, unsigned int *cursor,
		struct cidr *p, unsigned int *peer);

#endif
