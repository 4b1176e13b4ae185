// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * peer: the table of the overlay's peers, slots that keep their index and
 * a sorted array of addresses that finds one for each received datagram.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "table/peer.h"

_Static_assert(offsetof(struct peer, sa) == 0, "peer_of_name() needs sa first");

static size_t peer_addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

int peers_init(struct peers *p, unsigned int cap, int family, uint16_t port)
{
	memset(p, 0, sizeof(*p));
	p->v = calloc(cap, sizeof(*p->v));
	p->live = calloc(cap, sizeof(*p->live));
	p->keys = calloc(cap, sizeof(*p->keys));
	p->cap = cap;
	p->family = family;
	p->port = port;
	if (!p->v || !p->live || !p->keys) {
		peers_free(p);
		return -ENOMEM;
	}
	return 0;
}

void peers_free(struct peers *p)
{
	free(p->v);
	free(p->live);
	free(p->keys);
	memset(p, 0, sizeof(*p));
}

socklen_t peer_sockaddr(const struct ipaddr *a, uint16_t port,
			struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = a->addr.v6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_addr = a->addr.v4;
	s4->sin_port = htons(port);
	return sizeof(*s4);
}

const uint8_t *peer_sockaddr_bytes(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;
	if (ss->ss_family == AF_INET)
		return (const uint8_t *)&((const struct sockaddr_in *)ss)
			->sin_addr.s_addr;
	return NULL;
}

/* The first key not below addr (binary search over p->n keys). */
static unsigned int peers_lower_bound(const struct peers *p,
				      const uint8_t *addr)
{
	size_t len = peer_addr_len(p->family);
	unsigned int lo = 0, hi = p->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (memcmp(p->keys[mid].addr, addr, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int peers_find(const struct peers *p, const uint8_t *addr)
{
	unsigned int i = peers_lower_bound(p, addr);

	if (i < p->n &&
	    !memcmp(p->keys[i].addr, addr, peer_addr_len(p->family)))
		return (int)p->keys[i].idx;
	return -ENOENT;
}

int peers_find_sockaddr(const struct peers *p,
			const struct sockaddr_storage *ss)
{
	if (ss->ss_family != p->family)
		return -ENOENT;
	return peers_find(p, peer_sockaddr_bytes(ss));
}

static unsigned int peers_free_slot(const struct peers *p)
{
	unsigned int i;

	for (i = 0; i < p->cap && p->v[i].live; i++)
		;
	return i;
}

int peers_add(struct peers *p, const struct ipaddr *a)
{
	const uint8_t *addr = (const uint8_t *)&a->addr;
	size_t len = peer_addr_len(p->family);
	struct peer *e;
	unsigned int i, k;

	if (a->family != p->family)
		return -EINVAL;
	if (peers_find(p, addr) >= 0)
		return -EEXIST;
	if (p->n == p->cap)
		return -ENOSPC;
	i = peers_free_slot(p);
	e = &p->v[i];
	memset(e, 0, sizeof(*e));
	e->addr = *a;
	e->dst.addr = (const struct sockaddr *)&e->sa;
	e->dst.len = peer_sockaddr(a, p->port, &e->sa);
	e->live = true;
	k = peers_lower_bound(p, addr);
	memmove(&p->keys[k + 1], &p->keys[k], (p->n - k) * sizeof(*p->keys));
	memset(&p->keys[k], 0, sizeof(p->keys[k]));
	memcpy(p->keys[k].addr, addr, len);
	p->keys[k].idx = i;
	p->live[p->n++] = i;
	return (int)i;
}

/* Remove element at from an array of n. */
static void peers_cut(void *v, size_t size, unsigned int n, unsigned int at)
{
	memmove((char *)v + at * size, (char *)v + (at + 1) * size,
		(n - at - 1) * size);
}

void peers_del(struct peers *p, unsigned int idx)
{
	unsigned int i;

	if (idx >= p->cap || !p->v[idx].live)
		return;
	for (i = 0; p->keys[i].idx != idx; i++)
		;
	peers_cut(p->keys, sizeof(*p->keys), p->n, i);
	for (i = 0; p->live[i] != idx; i++)
		;
	peers_cut(p->live, sizeof(*p->live), p->n, i);
	p->n--;
	p->v[idx].live = false;
}
