// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the forwarding table's insides: fdb.c compiled in, so that
 * after every step of long random runs the slots, the peers' lists and
 * next_expiry are checked against what they must be, the clock going
 * back now and then. unit-fdb checks what the table answers; this, what
 * it holds.
 */
#include "table/fdb.c"

#include <stdio.h>
#include "tap.h"

/* What is wrong with f, or NULL: its whole state walked from scratch. */
static const char *lists_check_slots(const struct fdb *f, unsigned int *learnt,
				     unsigned int *statics)
{
	uint32_t i, pos;

	*learnt = *statics = 0;
	for (i = 0; i <= f->mask; i++) {
		const struct fdb_slot *s = &f->slots[i];

		if (!fdb_used(f, i))
			continue;
		if (!fdb_find(f, s->mac, s->vlan, &pos) || pos != i)
			return "an entry its lookup does not reach";
		if (s->flags & FDB_SLOT_STATIC) {
			unsigned int at = fdb_static_above(f,
					fdb_order(s->mac, s->vlan));

			if (!at || f->static_keys[at - 1] !=
					   fdb_order(s->mac, s->vlan))
				return "a static entry whose key is not kept";
			(*statics)++;
			continue;
		}
		(*learnt)++;
		if (s->peer >= f->max_peers)
			return "a learnt entry of no peer";
	}
	return NULL;
}

/*
 * Peer p's list: linked both ways, oldest first, every entry learnt and
 * its own; its length in *n, its oldest's expiry lowered into *first.
 */
static const char *lists_check_peer(const struct fdb *f, unsigned int p,
				    unsigned int *n, uint64_t *first)
{
	const struct fdb_peer *fp = &f->peers[p];
	uint32_t i, prev = FDB_NIL;
	uint64_t t = 0;

	*n = 0;
	for (i = fp->oldest; i != FDB_NIL; i = f->slots[i].next) {
		const struct fdb_slot *s = &f->slots[i];

		if (i > f->mask || !fdb_used(f, i) ||
		    (s->flags & FDB_SLOT_STATIC) || s->peer != p)
			return "a list holds what is not its peer's learnt entry";
		if (s->prev != prev)
			return "a list's links disagree";
		if (s->updated < t)
			return "a list out of order";
		t = s->updated;
		prev = i;
		if (++*n > f->mask + 1)
			return "a list that loops";
	}
	if (fp->newest != prev)
		return "a list's newest is not its last";
	if (*n != fp->n)
		return "a peer's count is not its list's length";
	if (*n && f->ageing_ns &&
	    f->slots[fp->oldest].updated + f->ageing_ns < *first)
		*first = f->slots[fp->oldest].updated + f->ageing_ns;
	return NULL;
}

static const char *lists_check(const struct fdb *f)
{
	unsigned int learnt, statics, p, n, in_lists = 0, holders = 0;
	uint64_t first = UINT64_MAX;
	const char *why;

	why = lists_check_slots(f, &learnt, &statics);
	if (why)
		return why;
	if (learnt != f->n_learnt || statics != f->n_static)
		return "the counts are not the slots'";
	/* Sorted and as many as the static slots: each one's, once. */
	for (p = 1; p < f->n_static; p++)
		if (f->static_keys[p - 1] >= f->static_keys[p])
			return "the static keys out of order";
	for (p = 0; p < f->max_peers; p++) {
		why = lists_check_peer(f, p, &n, &first);
		if (why)
			return why;
		in_lists += n;
		holders += n > 0;
	}
	if (in_lists != learnt)
		return "a learnt entry on no list";
	if (holders != f->n_holders)
		return "n_holders is not the peers that hold entries";
	/* fdb_age() skips what it may only while nothing can have aged. */
	if (f->n_holders && f->next_expiry > first)
		return "next_expiry is after an entry ages";
	return NULL;
}

static uint64_t rnd_state;

/* xorshift64*: the same runs on every libc. */
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

/* Key k of a run: a locally administered unicast MAC, and a VLAN. */
static void lists_key(uint32_t k, uint8_t mac[ETH_ALEN], uint16_t *vlan)
{
	mac[0] = 0x02;
	mac[1] = 0x4c;
	mac[2] = 0;
	mac[3] = (uint8_t)(k >> 16);
	mac[4] = (uint8_t)(k >> 8);
	mac[5] = (uint8_t)k;
	*vlan = (uint16_t)(k % 3);
}

/* One random step on f at *now: mostly learning, some of everything. */
static void lists_step(struct fdb *f, unsigned int nkeys, unsigned int peers,
		       uint64_t *now)
{
	unsigned int dice = (unsigned int)(rnd() % 100);
	unsigned int peer = (unsigned int)(rnd() % peers);
	uint8_t mac[ETH_ALEN];
	uint16_t vlan;
	int before;

	/* The clock goes back now and then; fdb_stamp() keeps order. */
	*now += rnd() % 5;
	if (!(rnd() % 50) && *now > 3)
		*now -= 3;
	lists_key((uint32_t)(rnd() % nkeys), mac, &vlan);
	/* A flood from peer 0, as the attack of fdb_make_room() does. */
	if (dice < 30)
		peer = 0;
	if (dice < 80)
		fdb_learn(f, mac, vlan, peer, *now, &before);
	else if (dice < 86)
		fdb_add_static(f, mac, vlan, peer);
	else if (dice < 93)
		fdb_del(f, mac, vlan);
	else if (dice < 95)
		fdb_del_peer(f, peer);
	else
		fdb_age(f, *now);
}

struct lists_run {
	const char *name;
	unsigned int max_learnt, max_static, peers, nkeys, steps;
	uint64_t ageing, seed;
};

static const struct lists_run runs[] = {
	{ "64 learnt, 8 static, 8 peers, 256 keys", 64, 8, 8, 256, 200000,
	  400, 0x1234567887654321ull },
	{ "5 learnt, 2 static, 9 peers, 20 keys", 5, 2, 9, 20, 200000, 60,
	  0x0badc0ffee0ddf00ull },
	{ "1000 learnt, no ageing, 32 peers", 1000, 16, 32, 3000, 100000, 0,
	  0xdeadbeefcafef00dull },
};

static void test_run(const struct lists_run *r)
{
	unsigned int step;
	const char *why = NULL;
	uint64_t now = 1000;
	struct fdb f;

	rnd_state = r->seed;
	if (!is_int(fdb_init(&f, r->max_learnt, r->max_static, r->peers,
			     r->ageing, rnd()),
		    0, "%s: init", r->name))
		return;
	for (step = 0; step < r->steps && !why; step++) {
		lists_step(&f, r->nkeys, r->peers, &now);
		why = lists_check(&f);
	}
	if (why)
		printf("# step %u: %s\n", step, why);
	ok(!why, "%s: %u steps keep every invariant", r->name, r->steps);
	fdb_free(&f);
}

/*
 * A MAC moved to a peer that holds nothing, with the clock gone back: the
 * move must lower next_expiry, or fdb_age() skips the entry.
 */
static void test_move_back(void)
{
	static const uint8_t a[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0a };
	static const uint8_t b[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x0b };
	struct fdb f;
	int before;

	fdb_init(&f, 4, 0, 4, 300, 5);
	fdb_learn(&f, a, 0, 0, 1000, &before);
	fdb_learn(&f, b, 0, 0, 1000, &before);
	fdb_age(&f, 1000);
	fdb_learn(&f, a, 0, 1, 100, &before);
	is_int(fdb_age(&f, 500), 1, "a MAC moved with the clock back ages "
	       "when it should");
	ok(!lists_check(&f), "and the table holds together");
	fdb_free(&f);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		test_run(&runs[i]);
	test_move_back();
	plan(tap_n);
	return done_testing();
}
