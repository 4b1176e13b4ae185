// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the peer table: slots that keep their index, lookups by
 * address and by socket address, the order peers are flooded in, and a
 * random walk against a model.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "table/peer.h"
#include "tap.h"

static struct ipaddr ip4(const char *s)
{
	struct ipaddr a = { .family = AF_INET };

	inet_pton(AF_INET, s, &a.addr.v4);
	return a;
}

static struct ipaddr ip6(const char *s)
{
	struct ipaddr a = { .family = AF_INET6 };

	inet_pton(AF_INET6, s, &a.addr.v6);
	return a;
}

static int find4(const struct peers *p, const char *s)
{
	struct ipaddr a = ip4(s);

	return peers_find(p, (const uint8_t *)&a.addr);
}

static void test_ipv4(void)
{
	struct peers p;
	struct ipaddr a = ip4("198.18.0.3"), b = ip4("198.18.0.1");
	struct ipaddr c = ip4("198.18.1.0"), v6 = ip6("fd00::1"), d;
	struct sockaddr_storage ss;
	const struct sockaddr_in *sin = (const void *)&ss;
	int ia, ib, ic;

	is_int(peers_init(&p, 3, AF_INET, 4789), 0, "init: room for 3");
	ia = peers_add(&p, &a);
	ib = peers_add(&p, &b);
	ic = peers_add(&p, &c);
	ok(ia == 0 && ib == 1 && ic == 2, "slots in the order added");
	is_int(p.n, 3, "three live");
	is_int(peers_add(&p, &a), -EEXIST, "the same address again: EEXIST");
	is_int(peers_add(&p, &v6), -EINVAL, "IPv6 in an IPv4 table: EINVAL");
	d = ip4("198.18.0.9");
	is_int(peers_add(&p, &d), -ENOSPC, "a fourth: ENOSPC");
	is_int(find4(&p, "198.18.0.3"), ia, "found by address (a)");
	is_int(find4(&p, "198.18.0.1"), ib, "found by address (b)");
	is_int(find4(&p, "198.18.1.0"), ic, "found by address (c)");
	is_int(find4(&p, "198.18.0.2"), -ENOENT, "between them: ENOENT");
	is_int(find4(&p, "0.0.0.0"), -ENOENT, "below all: ENOENT");
	is_int(find4(&p, "255.255.255.255"), -ENOENT, "above all: ENOENT");
	ok(p.keys[0].idx == (unsigned int)ib &&
	   p.keys[1].idx == (unsigned int)ia &&
	   p.keys[2].idx == (unsigned int)ic, "keys sorted by address");
	sin = (const void *)&p.v[ia].sa;
	ok(sin->sin_family == AF_INET && ntohs(sin->sin_port) == 4789 &&
	   sin->sin_addr.s_addr == a.addr.v4.s_addr &&
	   p.v[ia].dst.len == sizeof(struct sockaddr_in) &&
	   p.v[ia].dst.addr == (const struct sockaddr *)&p.v[ia].sa,
	   "a peer's socket address, as sends name it");
	ok(peer_of_name(p.v[ic].dst.addr) == &p.v[ic],
	   "peer_of_name() of its msg_name is the peer");
	ok(!p.v[ia].path_mtu && p.v[ia].reach == PEER_REACH_OK && !p.v[ia].oif,
	   "a new peer's path is unknown");

	peer_sockaddr(&b, 1234, &ss);
	is_int(peers_find_sockaddr(&p, &ss), ib, "by socket address, any port");
	peer_sockaddr(&v6, 4789, &ss);
	is_int(peers_find_sockaddr(&p, &ss), -ENOENT,
	       "a socket address of the other family: ENOENT");

	peers_del(&p, (unsigned int)ib);
	is_int(p.n, 2, "two live after a delete");
	is_int(find4(&p, "198.18.0.1"), -ENOENT, "the deleted one is gone");
	is_int(find4(&p, "198.18.0.3"), ia, "the others keep their slots");
	is_int(find4(&p, "198.18.1.0"), ic, "(both)");
	ok(p.live[0] == (unsigned int)ia && p.live[1] == (unsigned int)ic,
	   "the flood order keeps the order added");
	peers_del(&p, (unsigned int)ib);
	is_int(p.n, 2, "a free slot deleted again: nothing happens");
	d = ip4("10.0.0.1");
	is_int(peers_add(&p, &d), ib, "a new peer takes the free slot");
	is_int(find4(&p, "10.0.0.1"), ib, "and is found");
	ok(p.keys[0].idx == (unsigned int)ib, "first in address order");
	peers_free(&p);
}

static void test_ipv6(void)
{
	struct peers p;
	struct ipaddr a = ip6("fd00::2"), b = ip6("fd00::1");
	struct ipaddr v4 = ip4("198.18.0.1");
	struct sockaddr_storage ss;
	const struct sockaddr_in6 *s6;

	is_int(peers_init(&p, 8, AF_INET6, 4754), 0, "IPv6 table");
	is_int(peers_add(&p, &a), 0, "first IPv6 peer");
	is_int(peers_add(&p, &b), 1, "second IPv6 peer");
	is_int(peers_add(&p, &v4), -EINVAL,
	       "IPv4 in an IPv6 table: EINVAL");
	s6 = (const void *)&p.v[1].sa;
	ok(s6->sin6_family == AF_INET6 && ntohs(s6->sin6_port) == 4754 &&
	   !memcmp(&s6->sin6_addr, &b.addr.v6, 16) &&
	   p.v[1].dst.len == sizeof(*s6), "an IPv6 peer's socket address");
	peer_sockaddr(&a, 9, &ss);
	is_int(peers_find_sockaddr(&p, &ss), 0, "found by socket address");
	s6 = (const void *)&ss;
	ok(peer_sockaddr_bytes(&ss) == s6->sin6_addr.s6_addr,
	   "its address bytes");
	ss.ss_family = AF_UNIX;
	ok(!peer_sockaddr_bytes(&ss), "no address bytes for AF_UNIX");
	peers_free(&p);
}

/* Random adds and deletes of 64 addresses in 32 slots against a model. */
static void test_random(unsigned int seed)
{
	int model[64];		/* slot of address i, or -1 */
	unsigned int step, i, bad = 0, live = 0;
	struct peers p;

	srand(seed);
	peers_init(&p, 32, AF_INET, 0);
	for (i = 0; i < 64; i++)
		model[i] = -1;
	for (step = 0; step < 20000; step++) {
		unsigned int k = (unsigned int)rand() % 64;
		struct ipaddr a = { .family = AF_INET };
		int r;

		a.addr.v4.s_addr = htonl(0xc6120000u + k * 977);
		if (rand() % 2) {
			r = peers_add(&p, &a);
			if (model[k] >= 0) {
				bad += r != -EEXIST;
			} else if (live == 32) {
				bad += r != -ENOSPC;
			} else if (r < 0 || r >= 32 ||
				   p.v[r].addr.addr.v4.s_addr !=
					   a.addr.v4.s_addr) {
				bad++;
			} else {
				model[k] = r;
				live++;
			}
		} else if (model[k] >= 0) {
			peers_del(&p, (unsigned int)model[k]);
			model[k] = -1;
			live--;
		}
		for (i = 0; i < 64; i += 7) {
			struct in_addr x = { htonl(0xc6120000u + i * 977) };

			bad += peers_find(&p, (const uint8_t *)&x) !=
			       (model[i] >= 0 ? model[i] : -ENOENT);
		}
		bad += p.n != live;
		for (i = 1; i < p.n; i++)
			bad += memcmp(p.keys[i - 1].addr, p.keys[i].addr,
				      4) >= 0;
	}
	ok(!bad, "seed %u: 20000 random steps agree with the model", seed);
	peers_free(&p);
}

int main(void)
{
	unsigned int seed;

	test_ipv4();
	test_ipv6();
	for (seed = 1; seed <= 8; seed++)
		test_random(seed);
	plan(tap_n);
	return done_testing();
}
