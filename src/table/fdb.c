// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdb: which peer a frame read from the tap goes to, by its destination MAC
 * and VLAN, learnt from the source MACs of frames the peers send us.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/siphash.h"
#include "table/fdb.h"

#define FDB_SLOT_USED 0x01
#define FDB_SLOT_STATIC 0x02
#define FDB_SLOT_EVPN 0x04	/* static, the fabric's (fdb_add_evpn()) */
#define FDB_NIL UINT32_MAX	/* end of the list of learnt entries */

/*
 * One slot of an open-addressing table with linear probing. At most half
 * the slots are used (fdb_init()), so probes are short and always end at an
 * empty slot. Deletion closes the gap it leaves (fdb_remove()) instead of
 * leaving a tombstone: however much learning and ageing churn there is, a
 * lookup never walks more than the cluster its key hashes into.
 *
 * Learnt entries are also on their peer's list through prev and next,
 * oldest updated first (fdb_touch()): the next of the peer's to age, or
 * to give way when the peer holds its share, is at its head, so neither
 * the ageing timer nor a full table looks at entries that are still live.
 */
struct fdb_slot {
	uint64_t updated;	/* learnt: when last learnt or refreshed */
	uint32_t peer;
	uint32_t prev, next;	/* learnt: the neighbours' slots, or FDB_NIL */
	uint8_t mac[ETH_ALEN];
	uint16_t vlan;
	uint8_t flags;
};

_Static_assert(sizeof(struct fdb_slot) <= 32, "an fdb slot grew");

/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012) of the 8 bytes mac, vlan
 * (little-endian) under the table's key. A keyed hash: the MACs of frames
 * come from the peers' side, and with a known hash a sender could pick
 * thousands that land in one cluster and turn every lookup into a scan.
 */
static uint64_t fdb_hash(const struct fdb *f, const uint8_t *mac, uint16_t vlan)
{
	uint8_t key[8];

	memcpy(key, mac, ETH_ALEN);
	key[6] = (uint8_t)vlan;
	key[7] = (uint8_t)(vlan >> 8);
	return siphash24(f->k0, f->k1, key, sizeof(key));
}

/*
 * SplitMix64's output function: the caller gives 64 bits of secret, SipHash
 * takes 128; the second half is derived so that the two differ.
 */
static uint64_t fdb_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline bool fdb_used(const struct fdb *f, uint32_t i)
{
	return f->slots[i].flags & FDB_SLOT_USED;
}

static inline uint32_t fdb_home(const struct fdb *f, const struct fdb_slot *s)
{
	return (uint32_t)fdb_hash(f, s->mac, s->vlan) & f->mask;
}

/* Time since then; 0 if the caller's clock went back. */
static inline uint64_t fdb_since(uint64_t now_ns, uint64_t then)
{
	return now_ns > then ? now_ns - then : 0;
}

/*
 * A learnt entry counts no more once ageing has passed since it was last
 * learnt, as vxlan_cleanup() compares updated + age_interval with now.
 */
static bool fdb_expired(const struct fdb *f, const struct fdb_slot *s,
			uint64_t now_ns)
{
	return !(s->flags & FDB_SLOT_STATIC) && f->ageing_ns &&
	       fdb_since(now_ns, s->updated) >= f->ageing_ns;
}

/* mac and vlan as one number, for fdb_next_static()'s order. */
static uint64_t fdb_order(const uint8_t *mac, uint16_t vlan)
{
	uint64_t k = 0;
	unsigned int i;

	for (i = 0; i < ETH_ALEN; i++)
		k = k << 8 | mac[i];
	return k << 16 | vlan;
}

/* The first of the sorted static keys above k (n_static: none). */
static unsigned int fdb_static_above(const struct fdb *f, uint64_t k)
{
	unsigned int lo = 0, hi = f->n_static, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->static_keys[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Slot s became static: its key into static_keys, in order. Room was
 * checked (n_static below max_static); the caller counts it.
 */
static void fdb_static_key_add(struct fdb *f, const struct fdb_slot *s)
{
	uint64_t k = fdb_order(s->mac, s->vlan);
	unsigned int at = fdb_static_above(f, k);

	memmove(&f->static_keys[at + 1], &f->static_keys[at],
		(f->n_static - at) * sizeof(*f->static_keys));
	f->static_keys[at] = k;
}

/* Static slot s goes: its key out of static_keys (before n_static--). */
static void fdb_static_key_del(struct fdb *f, const struct fdb_slot *s)
{
	unsigned int at = fdb_static_above(f, fdb_order(s->mac, s->vlan)) - 1;

	memmove(&f->static_keys[at], &f->static_keys[at + 1],
		(f->n_static - at - 1) * sizeof(*f->static_keys));
}

/*
 * A MAC that may be in the table: unicast (the I/G bit, the lowest of the
 * first byte, clear) and not all-zero, as is_valid_ether_addr() asks of
 * what the bridge and vxlan learn.
 */
static bool fdb_key_ok(const uint8_t *mac, uint16_t vlan)
{
	static const uint8_t zero[ETH_ALEN];

	return vlan <= FDB_VLAN_MAX && !(mac[0] & 0x01) &&
	       memcmp(mac, zero, ETH_ALEN);
}

/*
 * The slot holding mac on vlan: true; or false with *pos the empty slot
 * that ends its probe, where it would go.
 */
static bool fdb_find(const struct fdb *f, const uint8_t *mac, uint16_t vlan,
		     uint32_t *pos)
{
	uint32_t i = (uint32_t)fdb_hash(f, mac, vlan) & f->mask;

	for (;; i = (i + 1) & f->mask) {
		const struct fdb_slot *s = &f->slots[i];

		*pos = i;
		if (!(s->flags & FDB_SLOT_USED))
			return false;
		if (s->vlan == vlan && !memcmp(s->mac, mac, ETH_ALEN))
			return true;
	}
}

/* Take learnt entry i off its peer's list; the peer holds one less. */
static void fdb_unlink(struct fdb *f, uint32_t i)
{
	const struct fdb_slot *s = &f->slots[i];
	struct fdb_peer *p = &f->peers[s->peer];

	if (s->prev == FDB_NIL)
		p->oldest = s->next;
	else
		f->slots[s->prev].next = s->next;
	if (s->next == FDB_NIL)
		p->newest = s->prev;
	else
		f->slots[s->next].prev = s->prev;
	if (!--p->n)
		f->n_holders--;
}

/* Put learnt entry i at the young end of its peer's list. */
static void fdb_append(struct fdb *f, uint32_t i)
{
	struct fdb_slot *s = &f->slots[i];
	struct fdb_peer *p = &f->peers[s->peer];

	s->prev = p->newest;
	s->next = FDB_NIL;
	if (p->newest == FDB_NIL)
		p->oldest = i;
	else
		f->slots[p->newest].next = i;
	p->newest = i;
	if (!p->n++)
		f->n_holders++;
}

/* A learnt entry moved into slot i: point its neighbours at it. */
static void fdb_relink(struct fdb *f, uint32_t i)
{
	const struct fdb_slot *s = &f->slots[i];
	struct fdb_peer *p = &f->peers[s->peer];

	if (s->prev == FDB_NIL)
		p->oldest = i;
	else
		f->slots[s->prev].next = i;
	if (s->next == FDB_NIL)
		p->newest = i;
	else
		f->slots[s->next].prev = i;
}

/*
 * The time an entry of peer is learnt at: now_ns, or that of the peer's
 * newest if the caller's clock went back, so that its list stays in order.
 */
static uint64_t fdb_stamp(const struct fdb *f, unsigned int peer,
			  uint64_t now_ns)
{
	uint32_t newest = f->peers[peer].newest;

	if (newest != FDB_NIL && f->slots[newest].updated > now_ns)
		return f->slots[newest].updated;
	return now_ns;
}

/* An entry learnt at t: fdb_age() looks again at t + ageing at the latest. */
static void fdb_expires_at(struct fdb *f, uint64_t t)
{
	if (f->ageing_ns && t + f->ageing_ns < f->next_expiry)
		f->next_expiry = t + f->ageing_ns;
}

/*
 * Learnt entry i was learnt again, from peer: it is now the youngest of
 * that peer's (which it moved to, if another's before).
 */
static void fdb_touch(struct fdb *f, uint32_t i, unsigned int peer,
		      uint64_t now_ns)
{
	struct fdb_slot *s = &f->slots[i];
	uint64_t t = fdb_stamp(f, peer, now_ns);

	if (s->peer != peer || f->peers[peer].newest != i) {
		fdb_unlink(f, i);
		s->peer = peer;
		fdb_append(f, i);
	}
	s->updated = t;
	fdb_expires_at(f, t);
}

static void fdb_insert(struct fdb *f, uint32_t i, const uint8_t *mac,
		       uint16_t vlan, unsigned int peer, bool is_static,
		       uint64_t now_ns)
{
	struct fdb_slot *s = &f->slots[i];

	memcpy(s->mac, mac, ETH_ALEN);
	s->vlan = vlan;
	s->peer = peer;
	s->updated = 0;
	s->prev = s->next = FDB_NIL;
	s->flags = FDB_SLOT_USED;
	if (is_static) {
		s->flags |= FDB_SLOT_STATIC;
		fdb_static_key_add(f, s);
		f->n_static++;
		return;
	}
	s->updated = fdb_stamp(f, peer, now_ns);
	fdb_expires_at(f, s->updated);
	fdb_append(f, i);
	f->n_learnt++;
}

/* One fabric's entry more (delta 1) or fewer (-1) behind peer. */
static void fdb_evpn_count(struct fdb *f, unsigned int peer, int delta)
{
	struct fdb_peer *p = &f->peers[peer];

	if (delta > 0) {
		f->n_evpn++;
		f->n_evpn_holders += !p->n_evpn++;
	} else {
		f->n_evpn--;
		f->n_evpn_holders -= !--p->n_evpn;
	}
}

/*
 * Empty slot i and close the gap (Knuth, TAOCP vol. 3, 6.4 Algorithm R):
 * each later entry of the cluster whose home slot is not between the gap
 * and itself moves back into the gap, which moves on to where it was. Every
 * entry stays reachable from its home, with no tombstone left behind.
 */
static void fdb_remove(struct fdb *f, uint32_t i)
{
	uint32_t j = i, home;

	if (f->slots[i].flags & FDB_SLOT_STATIC) {
		fdb_static_key_del(f, &f->slots[i]);
		f->n_static--;
		if (f->slots[i].flags & FDB_SLOT_EVPN)
			fdb_evpn_count(f, f->slots[i].peer, -1);
	} else {
		fdb_unlink(f, i);
		f->n_learnt--;
	}
	for (;;) {
		j = (j + 1) & f->mask;
		if (!fdb_used(f, j))
			break;
		home = fdb_home(f, &f->slots[j]);
		/* Its home is cyclically in (i, j]: it must stay. */
		if (((j - home) & f->mask) < ((j - i) & f->mask))
			continue;
		f->slots[i] = f->slots[j];
		if (!(f->slots[i].flags & FDB_SLOT_STATIC))
			fdb_relink(f, i);
		i = j;
	}
	memset(&f->slots[i], 0, sizeof(f->slots[i]));
}

int fdb_init(struct fdb *f, unsigned int max_learnt, unsigned int max_static,
	     unsigned int max_peers, uint64_t ageing_ns, uint64_t seed)
{
	uint32_t n = 2;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	if (max_learnt > FDB_ENTRIES_MAX ||
	    max_static > FDB_ENTRIES_MAX - max_learnt ||
	    !(max_learnt + max_static) || !max_peers ||
	    max_peers > FDB_PEERS_MAX)
		return -EINVAL;
	/* At most half full: see struct fdb_slot. */
	while (n < 2 * (max_learnt + max_static))
		n <<= 1;
	f->slots = calloc(n, sizeof(*f->slots));
	f->peers = calloc(max_peers, sizeof(*f->peers));
	f->static_keys = calloc(max_static ? max_static : 1,
				sizeof(*f->static_keys));
	if (!f->slots || !f->peers || !f->static_keys) {
		fdb_free(f);
		return -ENOMEM;
	}
	for (i = 0; i < max_peers; i++)
		f->peers[i].oldest = f->peers[i].newest = FDB_NIL;
	f->max_peers = max_peers;
	f->mask = n - 1;
	f->max_learnt = max_learnt;
	f->max_static = max_static;
	f->ageing_ns = ageing_ns;
	f->k0 = seed;
	f->k1 = fdb_mix(seed);
	return 0;
}

void fdb_free(struct fdb *f)
{
	free(f->slots);
	free(f->peers);
	free(f->static_keys);
	memset(f, 0, sizeof(*f));
}

/* Learnt entry i made static: off its peer's list, its key sorted in. */
static void fdb_make_static(struct fdb *f, uint32_t i)
{
	struct fdb_slot *s = &f->slots[i];

	fdb_unlink(f, i);
	s->prev = s->next = FDB_NIL;
	s->flags |= FDB_SLOT_STATIC;
	fdb_static_key_add(f, s);
	f->n_learnt--;
	f->n_static++;
}

/*
 * The static slot of mac on vlan in *out: 1 when it was static already,
 * 0 when made so (new, or the learnt entry of the key), or -errno as
 * fdb_add_static().
 */
static int fdb_take_static(struct fdb *f, const uint8_t *mac, uint16_t vlan,
			   unsigned int peer, struct fdb_slot **out)
{
	bool found;
	uint32_t i;

	if (!fdb_key_ok(mac, vlan) || peer >= f->max_peers)
		return -EINVAL;
	found = fdb_find(f, mac, vlan, &i);
	*out = &f->slots[i];
	if (found && (f->slots[i].flags & FDB_SLOT_STATIC))
		return 1;
	if (f->n_static >= f->max_static)
		return -ENOSPC;
	if (found) {
		fdb_make_static(f, i);
		f->slots[i].updated = 0;
	} else {
		fdb_insert(f, i, mac, vlan, peer, true, 0);
	}
	return 0;
}

int fdb_add_static(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
		   unsigned int peer)
{
	struct fdb_slot *s;
	int r = fdb_take_static(f, mac, vlan, peer, &s);

	if (r < 0)
		return r;
	if (s->flags & FDB_SLOT_EVPN)
		return -EPERM;
	s->peer = peer;
	return 0;
}

int fdb_del(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan)
{
	uint32_t i;

	if (!fdb_find(f, mac, vlan, &i))
		return -ENOENT;
	if (f->slots[i].flags & FDB_SLOT_EVPN)
		return -EPERM;
	fdb_remove(f, i);
	return 0;
}

int fdb_add_evpn(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
		 unsigned int peer, uint32_t gen, int *before)
{
	struct fdb_slot *s;
	int r = fdb_take_static(f, mac, vlan, peer, &s);

	*before = -ENOENT;
	if (r < 0)
		return r;
	if (r && !(s->flags & FDB_SLOT_EVPN))
		return -EEXIST;
	if (s->flags & FDB_SLOT_EVPN) {
		*before = (int)s->peer;
		fdb_evpn_count(f, s->peer, -1);
	}
	fdb_evpn_count(f, peer, 1);
	s->flags |= FDB_SLOT_EVPN;
	s->peer = peer;
	/* A static entry has no time: the slot keeps the dump's mark. */
	s->updated = gen;
	return 0;
}

int fdb_del_evpn(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan)
{
	uint32_t i;
	int peer;

	if (!fdb_find(f, mac, vlan, &i) ||
	    !(f->slots[i].flags & FDB_SLOT_EVPN))
		return -ENOENT;
	peer = (int)f->slots[i].peer;
	fdb_remove(f, i);
	return peer;
}

/* The first slot after an empty one: fdb_del_peer() says why. */
static uint32_t fdb_walk_start(const struct fdb *f)
{
	uint32_t start = 0;

	while (fdb_used(f, start))
		start++;
	return start;
}

unsigned int fdb_sweep_evpn(struct fdb *f, uint32_t keep,
			    void (*gone)(void *ctx, unsigned int peer),
			    void *ctx)
{
	uint32_t start = fdb_walk_start(f), k, i;
	unsigned int n = 0;

	for (k = 1; k <= f->mask + 1; k++) {
		i = (start + k) & f->mask;
		while (fdb_used(f, i) &&
		       (f->slots[i].flags & FDB_SLOT_EVPN) &&
		       (int32_t)((uint32_t)f->slots[i].updated - keep) < 0) {
			unsigned int peer = f->slots[i].peer;

			fdb_remove(f, i);
			gone(ctx, peer);
			n++;
		}
	}
	return n;
}

unsigned int fdb_count_evpn(const struct fdb *f)
{
	return f->n_evpn;
}

unsigned int fdb_count_evpn_peer(const struct fdb *f, unsigned int peer)
{
	return peer < f->max_peers ? f->peers[peer].n_evpn : 0;
}

unsigned int fdb_share_evpn(const struct fdb *f, unsigned int max,
			    unsigned int peer)
{
	unsigned int holders = f->n_evpn_holders;

	if (peer >= f->max_peers || !f->peers[peer].n_evpn)
		holders++;
	return max / holders ? max / holders : 1;
}

/* The peer that holds the most of the fabric's entries (first of equals). */
static unsigned int fdb_biggest_evpn(const struct fdb *f)
{
	unsigned int p, big = 0;

	for (p = 1; p < f->max_peers; p++)
		if (f->peers[p].n_evpn > f->peers[big].n_evpn)
			big = p;
	return big;
}

int fdb_evict_evpn(struct fdb *f, unsigned int max, unsigned int peer)
{
	unsigned int share = fdb_share_evpn(f, max, peer), big;
	uint32_t i;

	if (peer >= f->max_peers || f->peers[peer].n_evpn >= share)
		return -ENOSPC;
	big = fdb_biggest_evpn(f);
	if (f->peers[big].n_evpn <= share)
		return -ENOBUFS;
	/* Any of its entries: the fabric's have no age to go by. */
	for (i = 0; i <= f->mask; i++) {
		const struct fdb_slot *s = &f->slots[i];

		if ((s->flags & FDB_SLOT_EVPN) && s->peer == big) {
			fdb_remove(f, i);
			return (int)big;
		}
	}
	return -ENOBUFS;	/* not reached: it holds some */
}

/*
 * The walk starts after an empty slot: no cluster wraps over it, so
 * fdb_remove() only ever moves back entries the walk has still to see,
 * into the slot it is looking at.
 */
unsigned int fdb_del_peer(struct fdb *f, unsigned int peer)
{
	uint32_t start = fdb_walk_start(f), k, i;
	unsigned int n = 0;

	for (k = 1; k <= f->mask + 1; k++) {
		i = (start + k) & f->mask;
		while (fdb_used(f, i) && f->slots[i].peer == peer) {
			fdb_remove(f, i);
			n++;
		}
	}
	return n;
}

int fdb_lookup(const struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
	       uint64_t now_ns)
{
	uint32_t i;

	/* Not even hashed: the caller floods these. */
	if (mac[0] & 0x01)
		return -ENOENT;
	if (!fdb_find(f, mac, vlan, &i) || fdb_expired(f, &f->slots[i], now_ns))
		return -ENOENT;
	return (int)f->slots[i].peer;
}

int fdb_lookup_learnt(const struct fdb *f, const uint8_t mac[ETH_ALEN],
		      uint16_t vlan, uint64_t now_ns, uint64_t *age_ns)
{
	const struct fdb_slot *s;
	uint32_t i;

	if (!fdb_key_ok(mac, vlan) || !fdb_find(f, mac, vlan, &i))
		return -ENOENT;
	s = &f->slots[i];
	if ((s->flags & FDB_SLOT_STATIC) || fdb_expired(f, s, now_ns))
		return -ENOENT;
	*age_ns = fdb_since(now_ns, s->updated);
	return (int)s->peer;
}

int fdb_lookup_static(const struct fdb *f, const uint8_t mac[ETH_ALEN],
		      uint16_t vlan)
{
	uint32_t i;

	if (!fdb_key_ok(mac, vlan) || !fdb_find(f, mac, vlan, &i) ||
	    !(f->slots[i].flags & FDB_SLOT_STATIC))
		return -ENOENT;
	return (int)f->slots[i].peer;
}

/*
 * The key is held already. As vxlan_snoop(): a static entry stays as it
 * is; a learnt one follows the MAC to the peer it was last seen behind.
 */
static enum fdb_learn fdb_relearn(struct fdb *f, uint32_t i, unsigned int peer,
				  uint64_t now_ns, int *before)
{
	enum fdb_learn ret = FDB_LEARN_MOVED;
	struct fdb_slot *s = &f->slots[i];

	*before = (int)s->peer;
	if (s->flags & FDB_SLOT_STATIC)
		return FDB_LEARN_STATIC;
	if (fdb_expired(f, s, now_ns)) {
		*before = -ENOENT;
		ret = FDB_LEARN_NEW;
	} else if (s->peer == peer) {
		ret = FDB_LEARN_REFRESHED;
	}
	fdb_touch(f, i, peer, now_ns);
	return ret;
}

/* The aged entries of peer p gone; how many. */
static unsigned int fdb_age_peer(struct fdb *f, unsigned int p,
				 uint64_t now_ns)
{
	unsigned int n = 0;

	while (f->peers[p].oldest != FDB_NIL &&
	       fdb_expired(f, &f->slots[f->peers[p].oldest], now_ns)) {
		fdb_remove(f, f->peers[p].oldest);
		n++;
	}
	return n;
}

/* The peer that holds the most learnt entries (the first of equals). */
static unsigned int fdb_biggest(const struct fdb *f)
{
	unsigned int p, big = 0;

	for (p = 1; p < f->max_peers; p++)
		if (f->peers[p].n > f->peers[big].n)
			big = p;
	return big;
}

/*
 * The table holds max_learnt learnt entries and peer brings a new key:
 * make room by the rule of fdb_learn() and say how, or FDB_LEARN_FULL.
 */
static enum fdb_learn fdb_make_room(struct fdb *f, unsigned int peer,
				    uint64_t now_ns)
{
	const struct fdb_peer *me = &f->peers[peer];
	unsigned int share, big;

	if (fdb_age(f, now_ns))
		return FDB_LEARN_NEW;
	share = fdb_share(f, peer);
	if (!share)
		return FDB_LEARN_FULL;
	if (me->n >= share) {
		fdb_remove(f, me->oldest);
		return FDB_LEARN_REPLACED;
	}
	/*
	 * Below its share in a full table: the others hold more than theirs
	 * together, and the one that holds the most is over its own.
	 */
	big = fdb_biggest(f);
	if (f->peers[big].n <= share)
		return FDB_LEARN_FULL;
	fdb_remove(f, f->peers[big].oldest);
	return FDB_LEARN_EVICTED;
}

enum fdb_learn fdb_learn(struct fdb *f, const uint8_t mac[ETH_ALEN],
			 uint16_t vlan, unsigned int peer, uint64_t now_ns,
			 int *before)
{
	enum fdb_learn ret = FDB_LEARN_NEW;
	uint32_t i;

	*before = -ENOENT;
	if (!fdb_key_ok(mac, vlan) || peer >= f->max_peers)
		return FDB_LEARN_INVALID;
	if (fdb_find(f, mac, vlan, &i))
		return fdb_relearn(f, i, peer, now_ns, before);
	if (f->n_learnt >= f->max_learnt) {
		ret = fdb_make_room(f, peer, now_ns);
		if (ret == FDB_LEARN_FULL)
			return ret;
		/* Removing moved entries about: find the key's place again. */
		fdb_find(f, mac, vlan, &i);
	}
	fdb_insert(f, i, mac, vlan, peer, false, now_ns);
	return ret;
}

/*
 * next_expiry is never later than the time the next entry ages, so that
 * a full table under a flood of new MACs costs a comparison here, not a
 * look at every peer.
 */
unsigned int fdb_age(struct fdb *f, uint64_t now_ns)
{
	unsigned int p, seen = 0, n = 0;
	uint64_t next = UINT64_MAX;

	if (!f->ageing_ns || now_ns < f->next_expiry)
		return 0;
	for (p = 0; p < f->max_peers && seen < f->n_holders; p++) {
		uint32_t oldest;

		n += fdb_age_peer(f, p, now_ns);
		oldest = f->peers[p].oldest;
		if (oldest == FDB_NIL)
			continue;
		seen++;
		if (f->slots[oldest].updated + f->ageing_ns < next)
			next = f->slots[oldest].updated + f->ageing_ns;
	}
	f->next_expiry = next;
	return n;
}

unsigned int fdb_count_learnt(const struct fdb *f)
{
	return f->n_learnt;
}

unsigned int fdb_count_static(const struct fdb *f)
{
	return f->n_static;
}

unsigned int fdb_count_peer(const struct fdb *f, unsigned int peer)
{
	return peer < f->max_peers ? f->peers[peer].n : 0;
}

unsigned int fdb_share(const struct fdb *f, unsigned int peer)
{
	unsigned int holders = f->n_holders;

	if (!f->max_learnt)
		return 0;
	if (peer >= f->max_peers || !f->peers[peer].n)
		holders++;
	return f->max_learnt / holders ? f->max_learnt / holders : 1;
}

bool fdb_next(const struct fdb *f, unsigned int *cursor, uint64_t now_ns,
	      struct fdb_entry *e)
{
	while (*cursor <= f->mask) {
		const struct fdb_slot *s = &f->slots[(*cursor)++];

		if (!(s->flags & FDB_SLOT_USED) || fdb_expired(f, s, now_ns))
			continue;
		memcpy(e->mac, s->mac, ETH_ALEN);
		e->vlan = s->vlan;
		e->peer = s->peer;
		e->is_static = s->flags & FDB_SLOT_STATIC;
		e->evpn = s->flags & FDB_SLOT_EVPN;
		e->age_ns = e->is_static ? 0 : fdb_since(now_ns, s->updated);
		return true;
	}
	return false;
}

unsigned int fdb_next_static(const struct fdb *f, uint64_t *after,
			     struct fdb_entry *e, unsigned int max)
{
	unsigned int at = fdb_static_above(f, *after), n = 0, i;
	uint64_t k;
	uint32_t slot;

	for (; n < max && at < f->n_static; at++, n++) {
		k = f->static_keys[at];
		e[n].vlan = (uint16_t)k;
		for (i = ETH_ALEN; i--;) {
			k >>= 8 * (i == ETH_ALEN - 1 ? 2 : 1);
			e[n].mac[i] = (uint8_t)k;
		}
		/* Always there: the keys are those of static slots. */
		fdb_find(f, e[n].mac, e[n].vlan, &slot);
		e[n].peer = f->slots[slot].peer;
		e[n].is_static = true;
		e[n].evpn = f->slots[slot].flags & FDB_SLOT_EVPN;
		e[n].age_ns = 0;
		*after = f->static_keys[at];
	}
	return n;
}

uint16_t fdb_frame_vlan(const uint8_t *frame, size_t len)
{
	uint16_t type;

	if (len < ETH_HLEN + 4)
		return 0;
	type = frame[12] << 8 | frame[13];
	if (type != ETH_P_8021Q && type != ETH_P_8021AD)
		return 0;
	return (frame[14] << 8 | frame[15]) & FDB_VLAN_MAX;
}
