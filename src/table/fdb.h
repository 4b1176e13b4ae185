/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forwarding table of the VTEP: which peer an inner destination MAC and
 * VLAN live behind, set by hand or learnt from received frames. Pure.
 */
#ifndef GSOTUN_FDB_H
#define GSOTUN_FDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/if_ether.h>

#define FDB_VLAN_MAX 4095		/* 802.1Q VID; 0 is untagged */
#define FDB_PEERS_MAX (1u << 20)	/* peers are 0 to max_peers - 1 */
#define FDB_ENTRIES_MAX (1u << 24)	/* max_learnt + max_static */

struct fdb_slot;

/* The learnt entries of one peer, oldest learnt or refreshed first. */
struct fdb_peer {
	uint32_t oldest, newest;	/* slots, or FDB_NIL (fdb.c) */
	uint32_t n;
	uint32_t n_evpn;		/* the fabric's entries behind it */
};

/*
 * A table of fixed size, allocated once by fdb_init(): a flood of new
 * source MACs fills it up to max_learnt and no further, and then takes
 * room from nobody but the peer that floods (fdb_learn()). Others go
 * through the functions below, never these fields.
 */
struct fdb {
	struct fdb_slot *slots;
	uint32_t mask;			/* number of slots - 1 */
	unsigned int n_learnt, n_static;
	unsigned int n_evpn;		/* of n_static, the fabric's */
	unsigned int max_learnt, max_static;
	struct fdb_peer *peers;		/* max_peers of them */
	unsigned int max_peers;
	unsigned int n_holders;		/* peers with a learnt entry */
	unsigned int n_evpn_holders;	/* peers with a fabric's entry */
	uint64_t ageing_ns;
	uint64_t next_expiry;		/* none ages before it (fdb_age()) */
	uint64_t k0, k1;		/* the hash key */
	uint64_t *static_keys;		/* n_static, sorted: fdb_next_static() */
};

/*
 * Room for max_learnt learnt and max_static static entries (together 1 to
 * FDB_ENTRIES_MAX), behind peers 0 to max_peers - 1 (1 to FDB_PEERS_MAX).
 * A learnt entry not learnt again for ageing_ns is gone; 0: learnt
 * entries never age. seed keys the hash: random (getrandom()), so that
 * nobody can send MACs that collide in it. -EINVAL, -ENOMEM.
 */
int fdb_init(struct fdb *f, unsigned int max_learnt, unsigned int max_static,
	     unsigned int max_peers, uint64_t ageing_ns, uint64_t seed);

/* Free the table; f may then be given to fdb_init() again. */
void fdb_free(struct fdb *f);

/*
 * mac on vlan is behind peer, until fdb_del(): replaces a learnt entry of
 * the key, or the peer of a static one. -EINVAL for a multicast, broadcast
 * or all-zero mac, a vlan above FDB_VLAN_MAX or a peer not below max_peers;
 * -ENOSPC when max_static static entries are held already; -EPERM when
 * the key is the fabric's (fdb_add_evpn()).
 */
int fdb_add_static(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
		   unsigned int peer);

/*
 * Forget mac on vlan, static or learnt (an expired learnt entry not yet
 * swept too). -ENOENT when the table holds no such entry, -EPERM when
 * it is the fabric's: only fdb_del_evpn() or its peer's going removes it.
 */
int fdb_del(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan);

/*
 * The fabric (EVPN, evpn.c) says mac on vlan is behind peer: a static
 * entry of its own, which replaces a learnt one or the fabric's entry of
 * the key before (a MAC that moved, RFC 7432 section 15), marked with
 * gen, the dump that last said it (fdb_sweep_evpn()). *before: the
 * peer of the fabric's entry it replaced, else -ENOENT. -EINVAL, -ENOSPC
 * as fdb_add_static(); -EEXIST when a static entry of the configuration
 * holds the key (it stays: what an operator fixed wins).
 */
int fdb_add_evpn(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
		 unsigned int peer, uint32_t gen, int *before);

/* The fabric's entry of mac on vlan gone: its peer, or -ENOENT. */
int fdb_del_evpn(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan);

/*
 * The fabric's entries marked before keep (RFC 1982 serial number
 * arithmetic: not said by the dump of keep, nor since) gone, gone(ctx,
 * peer) for each; how many.
 */
unsigned int fdb_sweep_evpn(struct fdb *f, uint32_t keep,
			    void (*gone)(void *ctx, unsigned int peer),
			    void *ctx);

/* The fabric's entries held. */
unsigned int fdb_count_evpn(const struct fdb *f);

/* The fabric's entries held behind peer. */
unsigned int fdb_count_evpn_peer(const struct fdb *f, unsigned int peer);

/*
 * The fabric's entries peer may hold once max of them are held: max
 * shared by the peers that hold such entries, peer counted among them
 * (at least 1), as fdb_share() shares learnt ones.
 */
unsigned int fdb_share_evpn(const struct fdb *f, unsigned int max,
			    unsigned int peer);

/*
 * max of the fabric's entries are held, and peer brings one more: make
 * room as fdb_learn() does for learnt ones, so that a VTEP that
 * advertises more MACs than the table holds fills only its share.
 * -ENOSPC when peer holds its share already; -ENOBUFS when no peer
 * holds more than its share; else one entry of the peer that holds the
 * most, over its share, gone: that peer.
 */
int fdb_evict_evpn(struct fdb *f, unsigned int max, unsigned int peer);

/*
 * Forget every entry, static and learnt, behind peer (a peer going away).
 * Returns how many were held.
 */
unsigned int fdb_del_peer(struct fdb *f, unsigned int peer);

/*
 * The peer a frame to mac on vlan goes to, or -ENOENT: not known, learnt
 * but aged out, or a multicast or broadcast mac, which is never in the
 * table (the caller floods those frames).
 */
int fdb_lookup(const struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
	       uint64_t now_ns);

/*
 * The peer of the learnt entry of mac on vlan and in *age_ns how long
 * since it was learnt or refreshed (by now_ns), or -ENOENT: none, a
 * static one, or aged out.
 */
int fdb_lookup_learnt(const struct fdb *f, const uint8_t mac[ETH_ALEN],
		      uint16_t vlan, uint64_t now_ns, uint64_t *age_ns);

/*
 * The peer of the static entry of mac on vlan, or -ENOENT: none, or a
 * learnt one.
 */
int fdb_lookup_static(const struct fdb *f, const uint8_t mac[ETH_ALEN],
		      uint16_t vlan);

/* What fdb_learn() did. */
enum fdb_learn {
	FDB_LEARN_NEW = 0,	/* learnt: a key not held, or aged out */
	FDB_LEARN_REFRESHED,	/* same peer as before: its age restarts */
	FDB_LEARN_MOVED,	/* another peer before: the MAC moved there */
	FDB_LEARN_STATIC,	/* a static entry has the key: left as it is */
	FDB_LEARN_FULL,		/* no room could be made: not learnt */
	FDB_LEARN_INVALID,	/* multicast, broadcast, all-zero mac, vlan or
				 * peer out of range: never learnt */
	FDB_LEARN_REPLACED,	/* learnt in place of the peer's own oldest:
				 * it holds its share of a full table */
	FDB_LEARN_EVICTED,	/* learnt in place of the oldest entry of the
				 * peer that holds the most, over its share */
};

/*
 * A frame from peer came with source mac on vlan: remember that mac is
 * there, as vxlan_snoop() does; *before is what fdb_lookup() would have
 * said just before (a MAC that moved: where from). now_ns must not go
 * back (CLOCK_MONOTONIC): an earlier time is taken as that of the peer's
 * entry learnt last.
 *
 * A new key in a table of max_learnt entries makes room (the kernel's
 * vxlan stops learning there, and from then on floods every frame to a
 * MAC not yet learnt, to every peer): entries aged out go first; then a
 * peer that holds its share (fdb_share()) gives up its own oldest entry,
 * never another's, and one below its share the oldest of the peer that
 * holds the most, which is over its share. So a peer that floods source
 * MACs churns only its own entries, and every other peer keeps its
 * share. FDB_LEARN_FULL only when there are more peers than entries.
 */
enum fdb_learn fdb_learn(struct fdb *f, const uint8_t mac[ETH_ALEN],
			 uint16_t vlan, unsigned int peer, uint64_t now_ns,
			 int *before);

/*
 * Remove the learnt entries aged out by now_ns (from a timer, as
 * vxlan_cleanup() runs); returns how many. Costs nothing before the
 * first entry ages; then a look at the oldest entry of each peer, and
 * what it removes.
 */
unsigned int fdb_age(struct fdb *f, uint64_t now_ns);

/* Learnt entries held, aged ones not yet swept included. */
unsigned int fdb_count_learnt(const struct fdb *f);

/* Static entries held. */
unsigned int fdb_count_static(const struct fdb *f);

/* Learnt entries held behind peer, aged ones not yet swept included. */
unsigned int fdb_count_peer(const struct fdb *f, unsigned int peer);

/*
 * The learnt entries peer may hold once the table is full: max_learnt
 * shared by the peers that hold learnt entries, peer counted among them
 * (at least 1; 0 when nothing is learnt).
 */
unsigned int fdb_share(const struct fdb *f, unsigned int peer);

/*
 * The VLAN an Ethernet frame of len bytes is keyed by: the VID of its
 * outer 802.1Q or 802.1ad tag, 0 when untagged (or too short to say).
 * Its destination MAC is at frame, its source at frame + ETH_ALEN.
 */
uint16_t fdb_frame_vlan(const uint8_t *frame, size_t len);

/* One entry, as fdb_next() shows it. */
struct fdb_entry {
	uint8_t mac[ETH_ALEN];
	uint16_t vlan;
	unsigned int peer;
	bool is_static;
	bool evpn;		/* static, and the fabric's */
	uint64_t age_ns;	/* since learnt or refreshed; 0 if static */
};

/*
 * Walk the live entries in table order: *cursor 0 at first, then left to
 * fdb_next(). true with *e filled, false at the end. A walk may go on
 * across changes of the table, as a netlink dump does (the control
 * socket's fdb show, in chunks): it never loops nor reads past the table,
 * and an entry that moved meanwhile (a removal closes its gap by moving
 * entries back) may be missed or shown twice.
 */
bool fdb_next(const struct fdb *f, unsigned int *cursor, uint64_t now_ns,
	      struct fdb_entry *e);

/*
 * The static entries in the order of their keys, the MAC's six bytes
 * then the VLAN read as one number: at most max of those after *after
 * (0 at first) into e, in that order, and *after past the last of them.
 * Returns how many; 0 at the end. An order of the entries, not of the
 * keyed hash: two tables that hold the same entries give them alike (the
 * control socket's config). A binary search and a lookup an entry (the
 * static keys are kept sorted beside the table); a walk goes on across
 * changes of the table, never giving an entry twice.
 */
unsigned int fdb_next_static(const struct fdb *f, uint64_t *after,
			     struct fdb_entry *e, unsigned int max);

#endif
