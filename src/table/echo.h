/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --geneve-echo: the flows of a tun whose received tunnel options are sent
 * back on the flow's return packets, to the peer that sent them, as an
 * appliance behind AWS's Gateway Load Balancer must (its flow cookie and
 * endpoint options, class 0x0108). Pure: no I/O; the lanes of a port share
 * one table, each set under a lock of its own.
 */
#ifndef GSOTUN_ECHO_H
#define GSOTUN_ECHO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ECHO_WAYS 4			/* entries a set holds */
#define ECHO_FLOWS_MAX (1u << 20)
#define ECHO_ROOM_MAX 252		/* Geneve's Opt Len: 63 words */

/*
 * Idle times after which a flow is forgotten, those of the Gateway Load
 * Balancer: 350 s for TCP, 120 s for anything else.
 */
#define ECHO_IDLE_TCP_NS (350ull * 1000000000ull)
#define ECHO_IDLE_NS (120ull * 1000000000ull)

/*
 * A flow, the same both ways: IP version, protocol, and its two
 * endpoints (address, and port for TCP, UDP, UDP-Lite and SCTP) in
 * ascending order, so that a packet and its answer have one key.
 */
struct echo_key {
	uint8_t version;		/* 4 or 6 */
	uint8_t proto;
	uint16_t port[2];		/* as on the wire */
	uint8_t addr[2][16];		/* IPv4: the first 4 bytes */
};

struct echo_entry;

struct echo_table {
	uint8_t *slots;			/* n_sets * ECHO_WAYS entries */
	atomic_flag *locks;		/* one a set */
	size_t stride;			/* bytes of an entry */
	uint32_t set_mask;		/* sets - 1 */
	uint16_t room;			/* option bytes an entry holds */
	uint64_t k0, k1;		/* the hash key */
};

/* What a flow sends its return packets with (echo_lookup()). */
struct echo_hit {
	unsigned int peer;
	uint16_t len;
	uint8_t opts[ECHO_ROOM_MAX];
};

/* What echo_learn() did. */
enum echo_learnt {
	ECHO_KEPT = 0,		/* as the table held it already */
	ECHO_NEW,		/* a flow not held before */
	ECHO_EVICTED,		/* new, in the place of a live flow */
	ECHO_CHANGED,		/* a held flow's options or peer changed */
	ECHO_TOO_LONG,		/* options over room: not kept */
};

/*
 * Room for at least flows flows (1 to ECHO_FLOWS_MAX), each with up to
 * room bytes of options (4 to ECHO_ROOM_MAX); seed keys the hash, random
 * so that nobody can send flows that collide. -EINVAL, -ENOMEM.
 */
int echo_init(struct echo_table *t, unsigned int flows, uint16_t room,
	      uint64_t seed);

void echo_free(struct echo_table *t);

/*
 * The flow of the IP packet of len bytes at ip (a tun's: no link header);
 * false when it is not IPv4 or IPv6 or is too short for its addresses.
 * A fragment after the first, which has no ports, is keyed without them.
 */
bool echo_key_of(const uint8_t *ip, size_t len, struct echo_key *k);

/* The key's hash under the table's key, for the two calls below. */
uint32_t echo_hash(const struct echo_table *t, const struct echo_key *k);

/*
 * Flow k (hash h) came from peer with len bytes of options at opts, at
 * now (ns): held, or its entry updated. A new flow takes a free or idle
 * place in its set, or the least recently seen one's.
 */
enum echo_learnt echo_learn(struct echo_table *t, const struct echo_key *k,
			    uint32_t h, unsigned int peer, const uint8_t *opts,
			    size_t len, uint64_t now);

/* Flow k's peer and options into *hit, if it is held and not idle. */
bool echo_lookup(struct echo_table *t, const struct echo_key *k, uint32_t h,
		 uint64_t now, struct echo_hit *hit);

/* Forget the flows of peer (gone: its slot may be given to another). */
void echo_forget_peer(struct echo_table *t, unsigned int peer);

/* The flows held and not idle at now. */
unsigned int echo_count(struct echo_table *t, uint64_t now);

/* The flows the table has places for (at least echo_init()'s flows). */
static inline unsigned int echo_capacity(const struct echo_table *t)
{
	return (t->set_mask + 1) * ECHO_WAYS;
}

#endif
