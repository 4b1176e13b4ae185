// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the forwarding table: scripted steps on a fake clock, then
 * long random runs checked step by step against a plain array model.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/fdb.h"
#include "tap.h"

#define S(sec) ((uint64_t)(sec) * 1000000000ull)

static const uint8_t A[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t B[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0b };
static const uint8_t C[ETH_ALEN] = { 0x52, 0x54, 0, 0x12, 0x34, 0x0c };
static const uint8_t D[ETH_ALEN] = { 0x00, 0x16, 0x3e, 0, 0, 0x0d };
static const uint8_t E[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0e };
static const uint8_t S1[ETH_ALEN] = { 0x02, 0, 0, 0, 0x05, 0x01 };
static const uint8_t S2[ETH_ALEN] = { 0x02, 0, 0, 0, 0x05, 0x02 };
static const uint8_t BCAST[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t MCAST4[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0, 0, 0x01 };
static const uint8_t MCAST6[ETH_ALEN] = { 0x33, 0x33, 0, 0, 0, 0x01 };
static const uint8_t ZERO[ETH_ALEN];

enum op { LEARN, LEARN_FROM, LOOKUP, ADD, DEL, DEL_PEER, AGE, LEARNT,
	  STATICS };

/*
 * One step of a script: op on (mac, vlan, peer) at time t gives want.
 * LEARN_FROM learns too, and gives where the MAC was before.
 */
struct step {
	const char *name;
	enum op op;
	const uint8_t *mac;
	uint16_t vlan;
	unsigned int peer;
	uint64_t t;
	long long want;
};

/* A script and the table it runs on. */
struct script {
	const char *name;
	unsigned int max_learnt, max_static;
	uint64_t ageing_ns;
	const struct step *steps;
	unsigned int n;
};

/* 3 learnt, 2 static, 300 s ageing (the kernel's default). */
static const struct step main_steps[] = {
	{ "an empty table knows nothing", LOOKUP, A, 0, 0, S(0), -ENOENT },
	{ "A on vlan 0 from peer 1 is new", LEARN, A, 0, 1, S(0),
	  FDB_LEARN_NEW },
	{ "A on vlan 0 goes to peer 1", LOOKUP, A, 0, 0, S(0), 1 },
	{ "A on vlan 10 is another key", LOOKUP, A, 10, 0, S(0), -ENOENT },
	{ "A on vlan 10 from peer 2 is new", LEARN, A, 10, 2, S(0),
	  FDB_LEARN_NEW },
	{ "A on vlan 10 goes to peer 2", LOOKUP, A, 10, 0, S(0), 2 },
	{ "A on vlan 0 still goes to peer 1", LOOKUP, A, 0, 0, S(0), 1 },
	{ "A on vlan 0 from peer 1 again is a refresh", LEARN, A, 0, 1,
	  S(100), FDB_LEARN_REFRESHED },
	{ "A on vlan 0 from peer 3 moved from peer 1", LEARN_FROM, A, 0, 3,
	  S(100), 1 },
	{ "A on vlan 0 from peer 1 moves back", LEARN, A, 0, 1, S(100),
	  FDB_LEARN_MOVED },
	{ "A on vlan 0 from peer 3 moved", LEARN, A, 0, 3, S(100),
	  FDB_LEARN_MOVED },
	{ "a refresh says where it was: peer 3", LEARN_FROM, A, 0, 3, S(100),
	  3 },
	{ "a new key was nowhere", LEARN_FROM, E, 7, 3, S(100), -ENOENT },
	{ "which goes", DEL, E, 7, 0, S(100), 0 },
	{ "A on vlan 0 now goes to peer 3", LOOKUP, A, 0, 0, S(100), 3 },
	{ "two learnt", LEARNT, NULL, 0, 0, 0, 2 },

	{ "a broadcast source is not learnt", LEARN, BCAST, 0, 1, S(100),
	  FDB_LEARN_INVALID },
	{ "an IPv4 multicast source is not learnt", LEARN, MCAST4, 0, 1,
	  S(100), FDB_LEARN_INVALID },
	{ "an all-zero source is not learnt", LEARN, ZERO, 0, 1, S(100),
	  FDB_LEARN_INVALID },
	{ "vlan 4096 is not learnt", LEARN, B, 4096, 1, S(100),
	  FDB_LEARN_INVALID },
	{ "a peer past the table's 16 is not learnt", LEARN, B, 0, 16,
	  S(100), FDB_LEARN_INVALID },
	{ "still two learnt", LEARNT, NULL, 0, 0, 0, 2 },
	{ "broadcast is never found", LOOKUP, BCAST, 0, 0, S(100), -ENOENT },
	{ "IPv4 multicast is never found", LOOKUP, MCAST4, 0, 0, S(100),
	  -ENOENT },
	{ "IPv6 multicast is never found", LOOKUP, MCAST6, 0, 0, S(100),
	  -ENOENT },

	{ "static S1 on peer 7", ADD, S1, 0, 7, S(100), 0 },
	{ "S1 goes to peer 7", LOOKUP, S1, 0, 0, S(100), 7 },
	{ "S1 from peer 8 does not override the static entry", LEARN, S1, 0,
	  8, S(100), FDB_LEARN_STATIC },
	{ "S1 from peer 7 is static too", LEARN, S1, 0, 7, S(100),
	  FDB_LEARN_STATIC },
	{ "S1 still goes to peer 7", LOOKUP, S1, 0, 0, S(100), 7 },
	{ "static A on vlan 10 replaces the learnt one", ADD, A, 10, 9,
	  S(100), 0 },
	{ "A on vlan 10 goes to peer 9", LOOKUP, A, 10, 0, S(100), 9 },
	{ "one learnt after the replacement", LEARNT, NULL, 0, 0, 0, 1 },
	{ "two static", STATICS, NULL, 0, 0, 0, 2 },
	{ "a third static is refused", ADD, S2, 0, 1, S(100), -ENOSPC },
	{ "a static entry over a learnt one is refused when full", ADD, A, 0,
	  1, S(100), -ENOSPC },
	{ "A on vlan 0 is still learnt, on peer 3", LOOKUP, A, 0, 0, S(100),
	  3 },
	{ "S1 moves to peer 5 by hand", ADD, S1, 0, 5, S(100), 0 },
	{ "S1 goes to peer 5", LOOKUP, S1, 0, 0, S(100), 5 },
	{ "still two static", STATICS, NULL, 0, 0, 0, 2 },
	{ "a static broadcast is refused", ADD, BCAST, 0, 1, S(100),
	  -EINVAL },
	{ "a static all-zero MAC is refused", ADD, ZERO, 0, 1, S(100),
	  -EINVAL },
	{ "a static vlan 4096 is refused", ADD, B, 4096, 1, S(100), -EINVAL },
	{ "a static peer past the table's 16 is refused", ADD, B, 0, 16,
	  S(100), -EINVAL },
	{ "static A on vlan 10 is not learnt over", LEARN, A, 10, 1, S(100),
	  FDB_LEARN_STATIC },

	{ "A on vlan 0 is found 1 ns before it ages", LOOKUP, A, 0, 0,
	  S(400) - 1, 3 },
	{ "A on vlan 0 is gone 300 s after it moved", LOOKUP, A, 0, 0, S(400),
	  -ENOENT },
	{ "static entries do not age", LOOKUP, S1, 0, 0, S(100000), 5 },
	{ "B from peer 1 is new", LEARN, B, 0, 1, S(200), FDB_LEARN_NEW },
	{ "C from peer 2 is new", LEARN, C, 0, 2, S(250), FDB_LEARN_NEW },
	{ "three learnt, the limit", LEARNT, NULL, 0, 0, 0, 3 },
	{ "D from a fourth peer is not learnt: three hold one each, none "
	  "over its share", LEARN, D, 0, 5, S(260), FDB_LEARN_FULL },
	{ "D is not found", LOOKUP, D, 0, 0, S(260), -ENOENT },
	{ "static entries did not count against the limit", STATICS, NULL, 0,
	  0, 0, 2 },
	{ "once A has aged D takes its place", LEARN, D, 0, 5, S(400),
	  FDB_LEARN_NEW },
	{ "still three learnt", LEARNT, NULL, 0, 0, 0, 3 },
	{ "D goes to peer 5", LOOKUP, D, 0, 0, S(400), 5 },
	{ "A was reclaimed", LOOKUP, A, 0, 0, S(400), -ENOENT },
	{ "B refreshed", LEARN, B, 0, 1, S(450), FDB_LEARN_REFRESHED },
	{ "the refresh keeps B past its first 300 s", LOOKUP, B, 0, 0,
	  S(520), 1 },
	{ "C is found 1 ns before it ages", LOOKUP, C, 0, 0, S(550) - 1, 2 },
	{ "C is gone at 300 s", LOOKUP, C, 0, 0, S(550), -ENOENT },
	{ "the sweep removes C only", AGE, NULL, 0, 0, S(600), 1 },
	{ "two learnt after the sweep", LEARNT, NULL, 0, 0, 0, 2 },
	{ "a second sweep finds nothing", AGE, NULL, 0, 0, S(600), 0 },
	{ "E from peer 4 is new", LEARN, E, 0, 4, S(600), FDB_LEARN_NEW },
	{ "C is not learnt again while all three live", LEARN, C, 0, 2,
	  S(600), FDB_LEARN_FULL },
	{ "B and D age together", AGE, NULL, 0, 0, S(750), 2 },
	{ "E is left", LOOKUP, E, 0, 0, S(750), 4 },
	{ "delete E", DEL, E, 0, 0, S(750), 0 },
	{ "E is gone", LOOKUP, E, 0, 0, S(750), -ENOENT },
	{ "deleting E twice", DEL, E, 0, 0, S(750), -ENOENT },
	{ "nothing learnt", LEARNT, NULL, 0, 0, 0, 0 },
	{ "delete static S1", DEL, S1, 0, 0, S(750), 0 },
	{ "S1 is gone", LOOKUP, S1, 0, 0, S(750), -ENOENT },
	{ "one static left", STATICS, NULL, 0, 0, 0, 1 },
	{ "deleting a broadcast MAC", DEL, BCAST, 0, 0, S(750), -ENOENT },

	{ "B from peer 4", LEARN, B, 0, 4, S(800), FDB_LEARN_NEW },
	{ "C from peer 4", LEARN, C, 0, 4, S(800), FDB_LEARN_NEW },
	{ "D from peer 5", LEARN, D, 0, 5, S(800), FDB_LEARN_NEW },
	{ "static S2 on peer 4", ADD, S2, 0, 4, S(800), 0 },
	{ "peer 4 goes: three entries with it", DEL_PEER, NULL, 0, 4, S(800),
	  3 },
	{ "B is gone with peer 4", LOOKUP, B, 0, 0, S(800), -ENOENT },
	{ "S2 is gone with peer 4", LOOKUP, S2, 0, 0, S(800), -ENOENT },
	{ "D stays on peer 5", LOOKUP, D, 0, 0, S(800), 5 },
	{ "static A on vlan 10 stays on peer 9", LOOKUP, A, 10, 0, S(800),
	  9 },
	{ "one learnt left", LEARNT, NULL, 0, 0, 0, 1 },
	{ "one static left, again", STATICS, NULL, 0, 0, 0, 1 },
	{ "peer 4 has nothing left", DEL_PEER, NULL, 0, 4, S(800), 0 },
	{ "B is learnt again, behind peer 6", LEARN, B, 0, 6, S(801),
	  FDB_LEARN_NEW },
	{ "C from peer 6 with a clock gone back to 700 s", LEARN, C, 0, 6,
	  S(700), FDB_LEARN_NEW },
	{ "C counts as learnt at 801 s, with B: found at 1101 s less 1 ns",
	  LOOKUP, C, 0, 0, S(1101) - 1, 6 },
	{ "D, learnt at 800 s, ages first", AGE, NULL, 0, 0, S(1100), 1 },
	{ "then B and C, at 1101 s", AGE, NULL, 0, 0, S(1101), 2 },
};

/* ageing 0: learnt entries stay until deleted, 1 learnt, 1 static. */
static const struct step forever_steps[] = {
	{ "A from peer 1", LEARN, A, 0, 1, S(0), FDB_LEARN_NEW },
	{ "A is found a year later", LOOKUP, A, 0, 0, S(31536000), 1 },
	{ "the sweep removes nothing", AGE, NULL, 0, 0, S(31536000), 0 },
	{ "B from peer 2 is not learnt: the one place is peer 1's", LEARN, B,
	  0, 2, S(31536000), FDB_LEARN_FULL },
	{ "peer 1 at its share: its B takes A's place", LEARN, B, 0, 1,
	  S(31536000), FDB_LEARN_REPLACED },
	{ "A is gone", LOOKUP, A, 0, 0, S(31536000), -ENOENT },
	{ "A again, in B's place", LEARN, A, 0, 1, S(31536000),
	  FDB_LEARN_REPLACED },
	{ "a static entry still fits", ADD, S1, 0, 2, S(31536000), 0 },
	{ "A goes", DEL, A, 0, 0, S(31536000), 0 },
	{ "then B is learnt", LEARN, B, 0, 1, S(31536000), FDB_LEARN_NEW },
};

/* max_learnt 0: learning off, static entries only. */
static const struct step static_only_steps[] = {
	{ "nothing is learnt", LEARN, A, 0, 1, S(0), FDB_LEARN_FULL },
	{ "A is not found", LOOKUP, A, 0, 0, S(0), -ENOENT },
	{ "static A", ADD, A, 0, 3, S(0), 0 },
	{ "A goes to peer 3", LOOKUP, A, 0, 0, S(0), 3 },
	{ "A from peer 1 is static", LEARN, A, 0, 1, S(1), FDB_LEARN_STATIC },
	{ "static B is one too many", ADD, B, 0, 3, S(0), -ENOSPC },
};

#define SCRIPT(n, l, s, age, st)                                             \
	{ n, l, s, age, st, sizeof(st) / sizeof(st[0]) }

static const struct script scripts[] = {
	SCRIPT("3 learnt, 2 static, 300 s", 3, 2, S(300), main_steps),
	SCRIPT("no ageing", 1, 1, 0, forever_steps),
	SCRIPT("static only", 0, 1, S(300), static_only_steps),
};

static long long step_run(struct fdb *f, const struct step *s)
{
	int before;

	switch (s->op) {
	case LEARN:
		return fdb_learn(f, s->mac, s->vlan, s->peer, s->t, &before);
	case LEARN_FROM:
		fdb_learn(f, s->mac, s->vlan, s->peer, s->t, &before);
		return before;
	case LOOKUP:
		return fdb_lookup(f, s->mac, s->vlan, s->t);
	case ADD:
		return fdb_add_static(f, s->mac, s->vlan, s->peer);
	case DEL:
		return fdb_del(f, s->mac, s->vlan);
	case DEL_PEER:
		return fdb_del_peer(f, s->peer);
	case AGE:
		return fdb_age(f, s->t);
	case LEARNT:
		return fdb_count_learnt(f);
	case STATICS:
		return fdb_count_static(f);
	}
	return -1;
}

static void test_script(const struct script *sc)
{
	struct fdb f;
	unsigned int i;

	if (!is_int(fdb_init(&f, sc->max_learnt, sc->max_static, 16,
			     sc->ageing_ns, 0x5eed0000 + sc->max_learnt),
		    0, "%s: init", sc->name))
		return;
	for (i = 0; i < sc->n; i++)
		is_int(step_run(&f, &sc->steps[i]), sc->steps[i].want,
		       "%s: %s", sc->name, sc->steps[i].name);
	fdb_free(&f);
}

static void test_init(void)
{
	struct fdb f;
	int before;

	is_int(fdb_init(&f, 0, 0, 4, S(300), 1), -EINVAL,
	       "no room is refused");
	is_int(fdb_init(&f, 1, 0, 0, S(300), 1), -EINVAL,
	       "no peer is refused");
	is_int(fdb_init(&f, 1, 0, FDB_PEERS_MAX + 1, S(300), 1), -EINVAL,
	       "more than FDB_PEERS_MAX peers is refused");
	is_int(fdb_init(&f, FDB_ENTRIES_MAX + 1, 0, 4, S(300), 1), -EINVAL,
	       "more than FDB_ENTRIES_MAX learnt is refused");
	is_int(fdb_init(&f, FDB_ENTRIES_MAX, 1, 4, S(300), 1), -EINVAL,
	       "more than FDB_ENTRIES_MAX together is refused");
	is_int(fdb_init(&f, 1, UINT_MAX, 4, S(300), 1), -EINVAL,
	       "a sum that would wrap is refused");
	is_int(fdb_init(&f, 1, 0, 4, S(300), 1), 0, "room for one: two slots");
	is_int(fdb_learn(&f, A, 0, 1, 0, &before), FDB_LEARN_NEW,
	       "one learnt");
	is_int(fdb_learn(&f, B, 0, 2, 0, &before), FDB_LEARN_FULL,
	       "and no more from another peer");
	is_int(fdb_lookup(&f, A, 0, 0), 1, "the one is found");
	is_int(fdb_lookup(&f, B, 0, 0), -ENOENT, "the other is not");
	fdb_free(&f);
	fdb_free(&f);
	ok(1, "fdb_free() twice is harmless");
}

/* MAC i of a flood: locally administered unicast, 02:f1:00:00:hi:lo. */
static void flood_mac(unsigned int i, uint8_t mac[ETH_ALEN])
{
	static const uint8_t base[ETH_ALEN] = { 0x02, 0xf1, 0, 0, 0, 0 };

	memcpy(mac, base, ETH_ALEN);
	mac[4] = (uint8_t)(i >> 8);
	mac[5] = (uint8_t)i;
}

/* Flood MACs first to first + n - 1 from peer at t; outcomes counted. */
static void flood(struct fdb *f, unsigned int peer, unsigned int first,
		  unsigned int n, uint64_t t, unsigned int *count)
{
	uint8_t mac[ETH_ALEN];
	unsigned int i;
	int before;

	for (i = first; i < first + n; i++) {
		flood_mac(i, mac);
		count[fdb_learn(f, mac, 0, peer, t, &before)]++;
	}
}

/*
 * The attack of a peer that sends random source MACs until the table is
 * full (the kernel's vxlan then floods every frame to a MAC it has not
 * learnt to every peer, the attacker too): it churns only its own
 * entries, the others keep theirs and learn new ones.
 */
static void test_shares(void)
{
	unsigned int count[FDB_LEARN_EVICTED + 1] = { 0 };
	uint8_t mac[ETH_ALEN];
	struct fdb f;
	int before;

	fdb_init(&f, 8, 4, 16, S(300), 99);
	fdb_learn(&f, A, 0, 1, S(0), &before);
	fdb_learn(&f, B, 0, 1, S(0), &before);
	fdb_add_static(&f, S1, 0, 3);
	flood(&f, 2, 0, 100, S(1), count);
	is_int(count[FDB_LEARN_NEW], 6, "shares: peer 2's flood fills the 6 "
	       "free places");
	is_int(count[FDB_LEARN_REPLACED], 94, "shares: then each new MAC "
	       "replaces its own oldest");
	ok(fdb_lookup(&f, A, 0, S(2)) == 1 && fdb_lookup(&f, B, 0, S(2)) == 1,
	   "shares: peer 1's A and B are kept");
	is_int(fdb_lookup(&f, S1, 0, S(2)), 3, "shares: the static entry too");
	flood_mac(99, mac);
	is_int(fdb_lookup(&f, mac, 0, S(2)), 2, "shares: the flood's last MAC "
	       "is held");
	flood_mac(93, mac);
	is_int(fdb_lookup(&f, mac, 0, S(2)), -ENOENT, "shares: its seventh "
	       "last is not");
	is_int(fdb_count_peer(&f, 2), 6, "shares: peer 2 holds 6");
	is_int(fdb_share(&f, 2), 4, "shares: its share is 4 (8 by 2)");
	is_int(fdb_share(&f, 4), 2, "shares: a third peer's would be 2");
	is_int(fdb_learn(&f, C, 0, 4, S(3), &before), FDB_LEARN_EVICTED,
	       "shares: peer 4's C takes the place of peer 2's oldest");
	is_int(fdb_learn(&f, D, 0, 4, S(3), &before), FDB_LEARN_EVICTED,
	       "shares: and its D another");
	is_int(fdb_count_peer(&f, 2), 4, "shares: peer 2 holds 4");
	is_int(fdb_learn(&f, E, 0, 4, S(3), &before), FDB_LEARN_REPLACED,
	       "shares: peer 4 at its share (2): its E replaces its C");
	is_int(fdb_lookup(&f, C, 0, S(3)), -ENOENT, "shares: C is gone");
	memset(count, 0, sizeof(count));
	flood(&f, 2, 100, 50, S(4), count);
	is_int(count[FDB_LEARN_REPLACED], 50, "shares: peer 2's next 50 "
	       "replace its own");
	ok(fdb_count_peer(&f, 1) == 2 && fdb_count_peer(&f, 2) == 4 &&
	   fdb_count_peer(&f, 4) == 2 && fdb_count_learnt(&f) == 8,
	   "shares: peers 1, 2 and 4 hold 2, 4 and 2");
	is_int(fdb_learn(&f, A, 0, 1, S(5), &before), FDB_LEARN_REFRESHED,
	   "shares: peer 1 refreshing A");
	ok(fdb_count_peer(&f, 1) == 2 && fdb_count_peer(&f, 2) == 4,
	   "shares: takes nothing from anyone");
	is_int(fdb_learn(&f, A, 0, 2, S(6), &before), FDB_LEARN_MOVED,
	       "shares: A seen behind peer 2 moves");
	is_int(before, 1, "shares: from peer 1");
	ok(fdb_count_peer(&f, 1) == 1 && fdb_count_peer(&f, 2) == 5 &&
	   fdb_count_learnt(&f) == 8, "shares: a move frees nothing and "
	   "takes nothing");
	is_int(fdb_age(&f, S(304)), 7, "shares: all but A, moved at 6 s, age "
	       "by 304 s");
	ok(fdb_count_peer(&f, 1) == 0 && fdb_count_peer(&f, 4) == 0 &&
	   fdb_count_peer(&f, 2) == 1, "shares: peer 2 holds A alone");
	is_int(fdb_share(&f, 2), 8, "shares: the whole table is its share");
	is_int(fdb_age(&f, S(305)), 0, "shares: nothing ages before A");
	is_int(fdb_age(&f, S(306)), 1, "shares: A ages at 306 s");
	is_int(fdb_del_peer(&f, 3), 1, "shares: peer 3 goes with its static "
	       "entry");
	fdb_free(&f);
}

/* The walk shows each live entry once, as it was put in. */
static void test_walk(void)
{
	struct fdb_entry e;
	unsigned int cursor = 0, seen = 0, bad = 0;
	struct fdb f;
	int before;

	fdb_init(&f, 8, 8, 16, S(300), 42);
	fdb_add_static(&f, S1, 0, 7);
	fdb_add_static(&f, S2, 4094, 8);
	fdb_learn(&f, D, 0, 4, S(0), &before);	/* aged out by S(305) */
	fdb_learn(&f, A, 0, 1, S(10), &before);
	fdb_learn(&f, B, 5, 2, S(20), &before);
	fdb_learn(&f, C, 0, 3, S(30), &before);
	while (fdb_next(&f, &cursor, S(305), &e)) {
		if (!memcmp(e.mac, S1, ETH_ALEN))
			bad += e.vlan != 0 || e.peer != 7 || !e.is_static ||
			       e.age_ns != 0;
		else if (!memcmp(e.mac, S2, ETH_ALEN))
			bad += e.vlan != 4094 || e.peer != 8 || !e.is_static;
		else if (!memcmp(e.mac, A, ETH_ALEN))
			bad += e.vlan != 0 || e.peer != 1 || e.is_static ||
			       e.age_ns != S(295);
		else if (!memcmp(e.mac, B, ETH_ALEN))
			bad += e.vlan != 5 || e.peer != 2 || e.age_ns != S(285);
		else if (!memcmp(e.mac, C, ETH_ALEN))
			bad += e.vlan != 0 || e.peer != 3 || e.age_ns != S(275);
		else
			bad++;
		seen++;
	}
	is_int(seen, 5, "the walk shows five live entries");
	is_int(bad, 0, "each with its vlan, peer, kind and age");
	ok(!fdb_next(&f, &cursor, S(305), &e), "and stays at its end");
	is_int(fdb_count_learnt(&f), 4, "the aged entry is held until swept");
	fdb_free(&f);
}

/*
 * The static entries in the order of their keys, a few at a time, from
 * two tables of other hash keys and of other learnt entries: the same,
 * each once.
 */
static void test_walk_static(void)
{
	uint8_t mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0 };
	struct fdb_entry e[3], all[2][64];
	unsigned int n[2] = { 0, 0 }, t, i, got, bad = 0;
	uint64_t after;
	struct fdb f;
	int before;

	for (t = 0; t < 2; t++) {
		fdb_init(&f, 64, 64, 16, 0, 7 + t);
		/* 40 static, MACs and VLANs out of order; learnt beside. */
		for (i = 0; i < 40; i++) {
			mac[4] = (uint8_t)(i * 37 % 11);
			mac[5] = (uint8_t)(i * 13 % 40);
			fdb_add_static(&f, mac, (uint16_t)(i % 3 * 100), i % 16);
			mac[3] = 1;
			fdb_learn(&f, mac, 0, (t + i) % 16, S(1), &before);
			mac[3] = 0;
		}
		/* One taken out half way: the walk goes on past its gap. */
		after = 0;
		while ((got = fdb_next_static(&f, &after, e, 3))) {
			if (n[t] == 21)
				fdb_del(&f, all[t][0].mac, all[t][0].vlan);
			for (i = 0; i < got && n[t] < 64; i++)
				all[t][n[t]++] = e[i];
		}
		fdb_free(&f);
	}
	is_int(n[0], 40, "the ordered walk gives each static entry once");
	ok(n[0] == n[1] && !memcmp(all[0], all[1], sizeof(all[0][0]) * n[0]),
	   "alike from two tables of other hash keys and learnt entries");
	for (i = 0; i < n[0]; i++) {
		bad += !all[0][i].is_static;
		if (i)
			bad += memcmp(all[0][i - 1].mac, all[0][i].mac,
				      ETH_ALEN) > 0 ||
			       (!memcmp(all[0][i - 1].mac, all[0][i].mac,
					ETH_ALEN) &&
				all[0][i - 1].vlan >= all[0][i].vlan);
	}
	is_int(bad, 0, "by MAC, then VLAN, only static ones");
	fdb_init(&f, 8, 8, 16, 0, 1);
	fdb_add_static(&f, S1, 5, 3);
	fdb_learn(&f, A, 0, 2, S(1), &before);
	is_int(fdb_lookup_static(&f, S1, 5), 3,
	       "fdb_lookup_static: a static entry's peer");
	is_int(fdb_lookup_static(&f, A, 0), -ENOENT,
	       "fdb_lookup_static: not a learnt one");
	is_int(fdb_lookup_static(&f, S1, 6), -ENOENT,
	       "fdb_lookup_static: nor another VLAN");
	after = 0;
	ok(!fdb_next_static(&f, &after, e, 0), "max 0: nothing");
	fdb_free(&f);
}

/* ---- random runs against a model ------------------------------------ */

static uint64_t rnd_state;

/* xorshift64*: the same runs on every libc. */
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

#define MODEL_NIL UINT32_MAX
#define MODEL_PEERS 16

/* What the table should hold for key k: mac of k / 2, vlan of k's parity. */
struct model_entry {
	uint8_t mac[ETH_ALEN];
	uint16_t vlan;
	bool used, is_static;
	unsigned int peer;
	uint64_t updated;
	uint32_t touch;		/* its last learn or refresh: an event */
};

/*
 * A learn or refresh of key at t: it ages out at t + ageing unless renewed.
 * Events are also chained by the peer that learnt them (next), so that
 * the peer's oldest entry is the key of its first event still current.
 */
struct model_event {
	uint32_t key;
	uint64_t t;
	uint32_t next;
};

struct model_peer {
	unsigned int n;		/* learnt entries behind it */
	uint32_t head, tail;	/* its events, oldest first; some stale */
};

/*
 * The model: an array by key, and every learn in time order so that what
 * has aged is forgotten without a scan of the array at each step.
 */
struct model {
	struct model_entry *e;
	unsigned int nkeys, learnt, statics, holders;
	unsigned int max_learnt, max_static, peers;
	uint64_t ageing;
	struct model_event *q;
	unsigned int q_head, q_tail;
	struct model_peer p[MODEL_PEERS];
};

/* Learnt entry e counted behind its peer, or no longer. */
static void model_hold(struct model *m, const struct model_entry *e)
{
	if (!m->p[e->peer].n++)
		m->holders++;
}

static void model_unhold(struct model *m, const struct model_entry *e)
{
	if (!--m->p[e->peer].n)
		m->holders--;
}

static void model_forget_learnt(struct model *m, struct model_entry *e)
{
	model_unhold(m, e);
	m->learnt--;
	e->used = false;
}

/* Forget what has aged by now, oldest first. */
static void model_expire(struct model *m, uint64_t now)
{
	while (m->q_head < m->q_tail &&
	       m->q[m->q_head].t + m->ageing <= now) {
		struct model_entry *e = &m->e[m->q[m->q_head++].key];

		if (e->used && !e->is_static && e->updated + m->ageing <= now)
			model_forget_learnt(m, e);
	}
}

/* Key k, learnt behind its peer, is learnt or refreshed at now. */
static void model_touch(struct model *m, uint32_t k, uint64_t now)
{
	struct model_peer *p = &m->p[m->e[k].peer];
	uint32_t i = m->q_tail++;

	m->e[k].updated = now;
	m->e[k].touch = i;
	m->q[i].key = k;
	m->q[i].t = now;
	m->q[i].next = MODEL_NIL;
	if (p->head == MODEL_NIL)
		p->head = i;
	else
		m->q[p->tail].next = i;
	p->tail = i;
}

/* The key of peer's oldest learnt entry; it holds one. */
static uint32_t model_oldest(struct model *m, unsigned int peer)
{
	struct model_peer *p = &m->p[peer];

	for (;;) {
		uint32_t i = p->head, k = m->q[i].key;
		const struct model_entry *e = &m->e[k];

		if (e->used && !e->is_static && e->peer == peer &&
		    e->touch == i)
			return k;
		p->head = m->q[i].next;
	}
}

/* fdb_make_room() written out plainly: the share rule of fdb_learn(). */
static int model_make_room(struct model *m, unsigned int peer)
{
	unsigned int holders = m->holders + !m->p[peer].n, share, q, big = 0;

	if (!m->max_learnt)
		return FDB_LEARN_FULL;
	share = m->max_learnt / holders ? m->max_learnt / holders : 1;
	if (m->p[peer].n >= share) {
		model_forget_learnt(m, &m->e[model_oldest(m, peer)]);
		return FDB_LEARN_REPLACED;
	}
	for (q = 0; q < m->peers; q++)
		if (m->p[q].n > m->p[big].n)
			big = q;
	if (m->p[big].n <= share)
		return FDB_LEARN_FULL;
	model_forget_learnt(m, &m->e[model_oldest(m, big)]);
	return FDB_LEARN_EVICTED;
}

static int model_learn(struct model *m, uint32_t k, unsigned int peer,
		       uint64_t now)
{
	struct model_entry *e = &m->e[k];
	int ret = FDB_LEARN_NEW;

	if (e->used && e->is_static)
		return FDB_LEARN_STATIC;
	if (e->used) {
		ret = e->peer == peer ? FDB_LEARN_REFRESHED : FDB_LEARN_MOVED;
		model_unhold(m, e);
	} else if (m->learnt >= m->max_learnt) {
		ret = model_make_room(m, peer);
		if (ret == FDB_LEARN_FULL)
			return ret;
	}
	if (!e->used)
		m->learnt++;
	e->used = true;
	e->peer = peer;
	model_hold(m, e);
	model_touch(m, k, now);
	return ret;
}

static int model_add(struct model *m, uint32_t k, unsigned int peer)
{
	struct model_entry *e = &m->e[k];

	if (!(e->used && e->is_static)) {
		if (m->statics >= m->max_static)
			return -ENOSPC;
		if (e->used)
			model_forget_learnt(m, e);
		e->used = e->is_static = true;
		m->statics++;
	}
	e->peer = peer;
	return 0;
}

static void model_forget(struct model *m, struct model_entry *e)
{
	if (e->is_static) {
		m->statics--;
		e->used = e->is_static = false;
	} else {
		model_forget_learnt(m, e);
	}
}

/*
 * A churn run: its table and key space, how many steps, and one step in
 * how many is a command or the timer rather than a frame; the outcomes of
 * learning it must show (a bit each).
 */
struct churn {
	const char *name;
	unsigned int max_learnt, max_static, nkeys, peers;
	uint64_t ageing;	/* in clock steps of 0..3 ns */
	unsigned int steps, control;
	uint64_t seed;
	unsigned int outcomes;
};

#define OUT(r) (1u << (r))
#define OUT_ALL_BUT_FULL                                                      \
	(OUT(FDB_LEARN_NEW) | OUT(FDB_LEARN_REFRESHED) |                      \
	 OUT(FDB_LEARN_MOVED) | OUT(FDB_LEARN_STATIC) |                       \
	 OUT(FDB_LEARN_INVALID) | OUT(FDB_LEARN_REPLACED) |                   \
	 OUT(FDB_LEARN_EVICTED))

static const struct churn churns[] = {
	{ "4096 learnt, 16384 keys, 16 peers", 4096, 64, 16384, 16, 16000,
	  1000000, 1000, 0x0123456789abcdefull, OUT_ALL_BUT_FULL },
	{ "6 learnt, 2 static in 16 slots, 24 keys, 4 peers", 6, 2, 24, 4, 40,
	  200000, 20, 0xfeedfacecafebeefull, OUT_ALL_BUT_FULL },
	{ "3 learnt, 1 static, 16 keys, more peers than room", 3, 1, 16, 8, 40,
	  200000, 20, 0x5ca1ab1e0ddba11ull,
	  OUT_ALL_BUT_FULL | OUT(FDB_LEARN_FULL) },
};

/* Keys 2i and 2i + 1 share a random unicast MAC, on vlan 0 and another. */
static void model_init(struct model *m, const struct churn *c)
{
	unsigned int k;

	memset(m, 0, sizeof(*m));
	m->e = calloc(c->nkeys, sizeof(*m->e));
	m->q = calloc(c->steps, sizeof(*m->q));
	if (!m->e || !m->q || c->peers > MODEL_PEERS) {
		printf("Bail out! out of memory, or too many peers\n");
		exit(1);
	}
	m->nkeys = c->nkeys;
	m->max_learnt = c->max_learnt;
	m->max_static = c->max_static;
	m->peers = c->peers;
	m->ageing = c->ageing;
	for (k = 0; k < MODEL_PEERS; k++)
		m->p[k].head = m->p[k].tail = MODEL_NIL;
	for (k = 0; k < c->nkeys; k += 2) {
		uint64_t r = rnd();

		/* Random, unicast, distinct: k / 2 in the last two bytes. */
		m->e[k].mac[0] = (uint8_t)(r & 0xfe);
		m->e[k].mac[1] = (uint8_t)(r >> 8);
		m->e[k].mac[2] = (uint8_t)(r >> 16);
		m->e[k].mac[3] = (uint8_t)(r >> 24);
		m->e[k].mac[4] = (uint8_t)(k >> 9);
		m->e[k].mac[5] = (uint8_t)(k >> 1);
		m->e[k].mac[0] |= 0x02;
		if (k + 1 >= c->nkeys)
			break;
		memcpy(m->e[k + 1].mac, m->e[k].mac, ETH_ALEN);
		m->e[k + 1].vlan = (uint16_t)(1 + (r >> 32) % FDB_VLAN_MAX);
	}
}

static void model_free(struct model *m)
{
	free(m->e);
	free(m->q);
}

/* Tallies of a churn run. */
struct churn_result {
	unsigned int bad, lookups, found;
	unsigned int learn[FDB_LEARN_EVICTED + 1];
};

static void churn_bad(struct churn_result *r, unsigned int step,
		      const char *what, long long got, long long want)
{
	if (!r->bad++)
		printf("# step %u: %s: got %lld, want %lld\n", step, what, got,
		       want);
}

/* A frame: its source learnt, or its destination looked up. */
static void churn_frame(struct fdb *f, struct model *m, struct churn_result *r,
			uint32_t k, unsigned int peer, unsigned int step,
			uint64_t now)
{
	struct model_entry *e = &m->e[k];
	unsigned int dice = (unsigned int)(rnd() % 100);
	uint8_t mc[ETH_ALEN];
	long long got, want;
	int before;

	if (dice < 56) {
		got = fdb_learn(f, e->mac, e->vlan, peer, now, &before);
		want = model_learn(m, k, peer, now);
		r->learn[got >= 0 && got <= FDB_LEARN_EVICTED ? got : 0]++;
		if (got != want)
			churn_bad(r, step, "learn", got, want);
	} else if (dice < 96) {
		got = fdb_lookup(f, e->mac, e->vlan, now);
		want = e->used ? (long long)e->peer : -ENOENT;
		r->lookups++;
		r->found += got >= 0;
		if (got != want)
			churn_bad(r, step, "lookup", got, want);
	} else {
		/* The MAC with the I/G bit set: neither learnt nor found. */
		memcpy(mc, e->mac, ETH_ALEN);
		mc[0] |= 0x01;
		got = fdb_learn(f, mc, e->vlan, peer, now, &before);
		r->learn[FDB_LEARN_INVALID]++;
		if (got != FDB_LEARN_INVALID)
			churn_bad(r, step, "multicast learn", got,
				  FDB_LEARN_INVALID);
		got = fdb_lookup(f, mc, e->vlan, now);
		if (got != -ENOENT)
			churn_bad(r, step, "multicast lookup", got, -ENOENT);
	}
}

/*
 * A command or the ageing timer. fdb_del() and fdb_del_peer() also remove
 * aged entries not yet swept, which the model has forgotten: a sweep
 * first makes the two hold the same.
 */
static void churn_control(struct fdb *f, struct model *m,
			  struct churn_result *r, uint32_t k,
			  unsigned int peer, unsigned int step, uint64_t now)
{
	struct model_entry *e = &m->e[k];
	unsigned int dice = (unsigned int)(rnd() % 100);
	long long got, want;

	fdb_age(f, now);
	if (dice < 40) {
		got = fdb_add_static(f, e->mac, e->vlan, peer);
		want = model_add(m, k, peer);
		if (got != want)
			churn_bad(r, step, "add static", got, want);
	} else if (dice < 75) {
		got = fdb_del(f, e->mac, e->vlan);
		want = e->used ? 0 : -ENOENT;
		if (e->used)
			model_forget(m, e);
		if (got != want)
			churn_bad(r, step, "del", got, want);
	} else if (dice < 80) {
		want = 0;
		for (k = 0; k < m->nkeys; k++) {
			if (m->e[k].used && m->e[k].peer == peer) {
				model_forget(m, &m->e[k]);
				want++;
			}
		}
		got = fdb_del_peer(f, peer);
		if (got != want)
			churn_bad(r, step, "del peer", got, want);
	}
	/* After a sweep the counts are exact, the peers' too. */
	if (fdb_count_learnt(f) != m->learnt)
		churn_bad(r, step, "learnt", fdb_count_learnt(f), m->learnt);
	if (fdb_count_static(f) != m->statics)
		churn_bad(r, step, "static", fdb_count_static(f), m->statics);
	if (fdb_count_peer(f, peer) != m->p[peer].n)
		churn_bad(r, step, "peer's", fdb_count_peer(f, peer),
			  m->p[peer].n);
}

/* Half the frames from peer 0, which floods; the others at random. */
static unsigned int churn_peer(const struct churn *c)
{
	return rnd() % 2 ? 0 : (unsigned int)(rnd() % c->peers);
}

static void test_churn(const struct churn *c)
{
	struct churn_result r;
	unsigned int step, seen = 0, i;
	struct model m;
	uint64_t now = 1;
	struct fdb f;

	memset(&r, 0, sizeof(r));
	rnd_state = c->seed;
	model_init(&m, c);
	if (!is_int(fdb_init(&f, c->max_learnt, c->max_static, c->peers,
			     c->ageing, rnd()),
		    0, "%s: init", c->name))
		return;
	for (step = 0; step < c->steps; step++) {
		uint32_t k = (uint32_t)(rnd() % c->nkeys);
		unsigned int peer = churn_peer(c);

		now += rnd() % 4;
		model_expire(&m, now);
		if (rnd() % c->control)
			churn_frame(&f, &m, &r, k, peer, step, now);
		else
			churn_control(&f, &m, &r, k, peer, step, now);
	}
	is_int(r.bad, 0, "%s: %u steps agree with the model", c->name,
	       c->steps);
	for (i = 0; i <= FDB_LEARN_EVICTED; i++)
		seen |= r.learn[i] ? OUT(i) : 0;
	is_int(seen & c->outcomes, c->outcomes,
	       "%s: every outcome of learning was seen (new %u, refreshed %u, "
	       "moved %u, static %u, full %u, replaced %u, evicted %u)",
	       c->name, r.learn[FDB_LEARN_NEW], r.learn[FDB_LEARN_REFRESHED],
	       r.learn[FDB_LEARN_MOVED], r.learn[FDB_LEARN_STATIC],
	       r.learn[FDB_LEARN_FULL], r.learn[FDB_LEARN_REPLACED],
	       r.learn[FDB_LEARN_EVICTED]);
	ok(r.found && r.found < r.lookups, "%s: %u of %u lookups found",
	   c->name, r.found, r.lookups);
	fdb_free(&f);
	model_free(&m);
}

/* The VLAN a frame is keyed by: its outer tag's VID, or 0. */
static void test_frame_vlan(void)
{
	uint8_t f[64] = { 0 };

	is_int(fdb_frame_vlan(f, sizeof(f)), 0, "vlan: untagged (type 0)");
	f[12] = 0x08;
	is_int(fdb_frame_vlan(f, sizeof(f)), 0, "vlan: IPv4, untagged");
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = 0xe0;	/* PCP 7 */
	f[15] = 0x64;
	is_int(fdb_frame_vlan(f, sizeof(f)), 100, "vlan: 802.1Q VID 100");
	f[14] = 0x1f;	/* DEI and the top VID bits */
	f[15] = 0xff;
	is_int(fdb_frame_vlan(f, sizeof(f)), 4095, "vlan: VID bits only");
	is_int(fdb_frame_vlan(f, 17), 0, "vlan: a tag cut short: 0");
	is_int(fdb_frame_vlan(f, 18), 4095, "vlan: tag just whole");
	f[12] = 0x88;
	f[13] = 0xa8;
	f[14] = 0x00;
	f[15] = 0x0a;
	is_int(fdb_frame_vlan(f, sizeof(f)), 10, "vlan: 802.1ad outer VID");
	f[13] = 0xa9;
	is_int(fdb_frame_vlan(f, sizeof(f)), 0, "vlan: other type: 0");
}

/* What evpn_swept() is told: the peers of the entries swept. */
static unsigned int swept_peers[16];

static void count_swept(void *ctx, unsigned int peer)
{
	unsigned int *n = ctx;

	(*n)++;
	swept_peers[peer % 16]++;
}

/*
 * The fabric's entries (fdb_add_evpn()): static, not removed by hand
 * nor by a configured entry of the key, moved in place, marked by the
 * dump that said them last and swept by it; a configured static entry
 * is never theirs.
 */
static void test_evpn(void)
{
	uint8_t mac[ETH_ALEN] = { 0x02, 0x10, 0, 0, 0, 0 };
	struct fdb_entry e;
	unsigned int cursor = 0, i, n = 0, evpn = 0;
	struct fdb f;
	int before;

	fdb_init(&f, 8, 64, 16, S(300), 3);
	is_int(fdb_add_evpn(&f, A, 0, 1, 1, &before), 0, "evpn: A taken");
	is_int(before, -ENOENT, "evpn: new, nothing before");
	is_int(fdb_lookup(&f, A, 0, S(1000)), 1, "evpn: A found, never aged");
	is_int(fdb_count_evpn(&f), 1, "evpn: counted");
	is_int(fdb_count_static(&f), 1, "evpn: as a static entry");
	is_int(fdb_del(&f, A, 0), -EPERM, "evpn: fdb_del refuses it");
	is_int(fdb_add_static(&f, A, 0, 2), -EPERM,
	       "evpn: a configured entry of its key refused");
	is_int(fdb_lookup(&f, A, 0, 0), 1, "evpn: and it stays to its peer");
	is_int(fdb_add_evpn(&f, A, 0, 3, 1, &before), 0, "evpn: A moved");
	is_int(before, 1, "evpn: from peer 1");
	is_int(fdb_lookup(&f, A, 0, 0), 3, "evpn: now to peer 3");
	is_int(fdb_count_evpn(&f), 1, "evpn: still one");
	fdb_add_static(&f, S1, 0, 7);
	is_int(fdb_add_evpn(&f, S1, 0, 4, 1, &before), -EEXIST,
	       "evpn: a configured static entry wins");
	is_int(fdb_lookup(&f, S1, 0, 0), 7, "evpn: which stays as it was");
	fdb_learn(&f, B, 0, 5, S(1), &before);
	is_int(fdb_add_evpn(&f, B, 0, 6, 1, &before), 0,
	       "evpn: a learnt entry replaced");
	is_int(fdb_count_learnt(&f), 0, "evpn: learnt entries none left");
	is_int(fdb_learn(&f, B, 0, 5, S(2), &before), FDB_LEARN_STATIC,
	       "evpn: and the fabric's not learnt over");
	is_int(fdb_add_evpn(&f, (const uint8_t[]){ 1, 0, 0, 0, 0, 1 }, 0, 1, 1,
			    &before), -EINVAL, "evpn: a multicast MAC refused");
	/* 30 more of dump 1, then dump 2 says half of them and A. */
	for (i = 0; i < 30; i++) {
		mac[5] = (uint8_t)i;
		fdb_add_evpn(&f, mac, 0, i % 8, 1, &before);
	}
	for (i = 0; i < 30; i += 2) {
		mac[5] = (uint8_t)i;
		fdb_add_evpn(&f, mac, 0, i % 8, 2, &before);
	}
	fdb_add_evpn(&f, A, 0, 3, 2, &before);
	memset(swept_peers, 0, sizeof(swept_peers));
	is_int(fdb_sweep_evpn(&f, 2, count_swept, &n), 16,
	       "evpn: the sweep takes what dump 2 did not say (15 + B)");
	is_int(n, 16, "evpn: each told");
	is_int(swept_peers[6], 1, "evpn: B's peer among them");
	is_int(fdb_count_evpn(&f), 16, "evpn: 16 left");
	for (i = 0; i < 30; i++) {
		mac[5] = (uint8_t)i;
		n += (fdb_lookup(&f, mac, 0, 0) >= 0) != !(i % 2);
	}
	is_int(n, 16, "evpn: exactly the said ones left");
	is_int(fdb_lookup(&f, S1, 0, 0), 7, "evpn: the configured one kept");
	while (fdb_next(&f, &cursor, 0, &e))
		evpn += e.evpn && e.is_static;
	is_int(evpn, 16, "evpn: the walk marks them");
	is_int(fdb_del_evpn(&f, A, 0), 3, "evpn: A deleted, its peer said");
	{
		uint64_t age = 0;

		fdb_learn(&f, C, 0, 2, S(10), &before);
		is_int(fdb_lookup_learnt(&f, C, 0, S(14), &age), 2,
		       "learnt lookup: C's peer");
		ok(age == S(4), "learnt lookup: and its age");
		is_int(fdb_lookup_learnt(&f, S1, 0, S(14), &age), -ENOENT,
		       "learnt lookup: not a static entry");
		is_int(fdb_lookup_learnt(&f, C, 0, S(311), &age), -ENOENT,
		       "learnt lookup: not one aged out");
		fdb_del(&f, C, 0);
	}
	is_int(fdb_del_evpn(&f, S1, 0), -ENOENT,
	       "evpn: fdb_del_evpn leaves a configured entry");
	is_int(fdb_del_peer(&f, 0), 4, "evpn: a peer's going takes its own");
	is_int(fdb_count_evpn(&f), 11, "evpn: 11 left");
	fdb_free(&f);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		test_script(&scripts[i]);
	test_init();
	test_walk();
	test_walk_static();
	test_shares();
	test_frame_vlan();
	test_evpn();
	for (i = 0; i < sizeof(churns) / sizeof(churns[0]); i++)
		test_churn(&churns[i]);
	plan(tap_n);
	return done_testing();
}
