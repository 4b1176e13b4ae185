/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forwarding table of the VTEP: which peer an inner destination MAC and
 * VLAN live behind, set by hand or learnt from received frames. Pure.
 */
#ifndef GSOTUN_FDB_H
#define GSOTUN_FDB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/if_ether.h>

#define FDB_VLAN_MAX 4095		/* 802.1Q VID; 0 is untagged */
#define FDB_PEER_MAX INT_MAX		/* so that fdb_lookup() can return it */
#define FDB_ENTRIES_MAX (1u << 24)	/* max_learnt + max_static */

struct fdb_slot;

/*
 * A table of fixed size, allocated once by fdb_init(): a flood of new
 * source MACs fills it up to max_learnt and no further. Others go through
 * the functions below, never these fields.
 */
struct fdb {
	struct fdb_slot *slots;
	uint32_t mask;			/* number of slots - 1 */
	unsigned int n_learnt, n_static;
	unsigned int max_learnt, max_static;
	uint64_t ageing_ns;
	uint32_t oldest, newest;	/* ends of the list of learnt entries */
	uint64_t k0, k1;		/* the hash key */
};

/*
 * Room for max_learnt learnt and max_static static entries (together 1 to
 * FDB_ENTRIES_MAX). A learnt entry not learnt again for ageing_ns is gone;
 * 0: learnt entries never age. seed keys the hash: random (getrandom()),
 * so that nobody can send MACs that collide in it. -EINVAL, -ENOMEM.
 */
int fdb_init(struct fdb *f, unsigned int max_learnt, unsigned int max_static,
	     uint64_t ageing_ns, uint64_t seed);

/* Free the table; f may then be given to fdb_init() again. */
void fdb_free(struct fdb *f);

/*
 * mac on vlan is behind peer, until fdb_del(): replaces a learnt entry of
 * the key, or the peer of a static one. -EINVAL for a multicast, broadcast
 * or all-zero mac, a vlan above FDB_VLAN_MAX or a peer above FDB_PEER_MAX;
 * -ENOSPC when max_static static entries are held already.
 */
int fdb_add_static(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan,
		   unsigned int peer);

/*
 * Forget mac on vlan, static or learnt (an expired learnt entry not yet
 * swept too). -ENOENT when the table holds no such entry.
 */
int fdb_del(struct fdb *f, const uint8_t mac[ETH_ALEN], uint16_t vlan);

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

/* What fdb_learn() did. */
enum fdb_learn {
	FDB_LEARN_NEW = 0,	/* learnt: a key not held, or aged out */
	FDB_LEARN_REFRESHED,	/* same peer as before: its age restarts */
	FDB_LEARN_MOVED,	/* another peer before: the MAC moved there */
	FDB_LEARN_STATIC,	/* a static entry has the key: left as it is */
	FDB_LEARN_FULL,		/* max_learnt live entries held: not learnt */
	FDB_LEARN_INVALID,	/* multicast, broadcast, all-zero mac, vlan or
				 * peer out of range: never learnt */
};

/*
 * A frame from peer came with source mac on vlan: remember that mac is
 * there, as vxlan_snoop() does. At max_learnt, entries aged out are removed
 * first to make room. now_ns must not go back (CLOCK_MONOTONIC): an earlier
 * time is taken as that of the entry learnt last.
 */
enum fdb_learn fdb_learn(struct fdb *f, const uint8_t mac[ETH_ALEN],
			 uint16_t vlan, unsigned int peer, uint64_t now_ns);

/*
 * Remove the learnt entries aged out by now_ns (from a timer, as
 * vxlan_cleanup() runs); returns how many. Costs only what it removes.
 */
unsigned int fdb_age(struct fdb *f, uint64_t now_ns);

/* Learnt entries held, aged ones not yet swept included. */
unsigned int fdb_count_learnt(const struct fdb *f);

/* Static entries held. */
unsigned int fdb_count_static(const struct fdb *f);

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
	uint64_t age_ns;	/* since learnt or refreshed; 0 if static */
};

/*
 * Walk the live entries in table order: *cursor 0 at first, then left to
 * fdb_next(). true with *e filled, false at the end. The table must not
 * change during a walk.
 */
bool fdb_next(const struct fdb *f, unsigned int *cursor, uint64_t now_ns,
	      struct fdb_entry *e);

#endif
