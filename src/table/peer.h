/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The peers of the overlay: the VTEPs frames are sent to (--remote), each
 * with its address as sends name it, its path MTU and its counters; found
 * by address for what the underlay receives. Pure.
 */
#ifndef GSOTUN_PEER_H
#define GSOTUN_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include "base/log.h"
#include "base/stats.h"
#include "pipe/sendq.h"
#include "conf/types.h"

/* What one peer sent and received (its line of the counters dump). */
struct peer_stats {
	uint64_t tx_packets;	/* datagrams or packets sent to it */
	uint64_t tx_bytes;	/* their bytes on the wire (no outer IP) */
	uint64_t tx_drops;	/* datagrams to it the kernel refused */
	uint64_t rx_packets;	/* datagrams or packets from it */
	uint64_t rx_bytes;	/* their bytes */
	uint64_t rx_drops;	/* of rx_packets, those dropped (refused) */
	uint64_t tx_flood;	/* of tx_packets, copies of flooded frames */
	uint64_t icmp_unreach;	/* ICMP unreachable errors about it */
};

/* Counters of a peer: names as the dump and JSON call them, and help. */
#define PEER_STATS_LIST(X)                                                    \
	X(tx_packets, "Encapsulated packets sent to the peer")                \
	X(tx_bytes, "Bytes sent to the peer (UDP payload or GRE packet)")     \
	X(tx_flood, "Packets to the peer that were copies of flooded frames") \
	X(tx_drops, "Packets to the peer the kernel refused")                 \
	X(rx_packets, "Encapsulated packets received from the peer")          \
	X(rx_bytes, "Bytes received from the peer")                           \
	X(rx_drops, "Packets from the peer dropped, by any cause")            \
	X(icmp_unreach, "ICMP unreachable errors the underlay said of it")

/*
 * The drops a peer's packets meet, by cause: stats.h's from rx_drop_source
 * to rx_drop_trunc, each a slot of a peer's counts (rx_drop_write, of
 * frames merged from many packets, is no one peer's).
 */
#define PEER_DROP_FIRST DROP_RX_SOURCE
#define PEER_DROPS (DROP_RX_WRITE - DROP_RX_SOURCE)
_Static_assert(DROP_RX_SOURCE < DROP_RX_TRUNC && DROP_RX_TRUNC < DROP_RX_WRITE,
	       "a peer's drops are a range of enum drop");

/* The slot of why among a peer's drops, or -1 if it is none of them. */
static inline int peer_drop_slot(enum drop why)
{
	return why >= PEER_DROP_FIRST && why < PEER_DROP_FIRST + PEER_DROPS
		       ? (int)(why - PEER_DROP_FIRST) : -1;
}

/*
 * What the underlay last said of a peer that packets do not reach: an
 * ICMP or ICMPv6 error (or a local one) as the error queue gives it.
 */
struct peer_icmp {
	uint8_t origin;		/* SO_EE_ORIGIN_ICMP, _ICMP6, _LOCAL */
	uint8_t type, code;
	int err;		/* errno, as icmp_err_convert() has it */
	struct ipaddr from;	/* who sent it (SO_EE_OFFENDER); family 0 */
	/*
	 * from is an address of this host: the kernel itself said host
	 * unreachable, as it does when no neighbour answered ARP or
	 * neighbour discovery (arp_error_report(), ndisc_error_report():
	 * an ICMP error to ourselves). Path.c tells.
	 */
	bool own;
};

/* Whether the underlay reaches a peer, as its route says (path.c). */
enum peer_reach {
	PEER_REACH_OK = 0,
	PEER_REACH_NO_ROUTE,	/* no route to it */
	PEER_REACH_LINK_DOWN,	/* the route's interface is down */
	PEER_REACH_CIRCULAR,	/* it goes out through a device of ours */
};

/*
 * Whether frames go to a peer, as its route says (path.c marks it, the
 * queues read it as they read path_mtu): not while the route goes out
 * through a tap or tun of ours, a loop, refused as the kernel's
 * udp_tunnel_dst_lookup() refuses a "circular route"; nor while the
 * kernel has none, which every send would meet at the cost of a call.
 */
enum peer_route {
	PEER_ROUTE_OK = 0,
	PEER_ROUTE_NONE,	/* the lookup found none that takes it */
	PEER_ROUTE_CIRCULAR,	/* through a device of ours */
	PEER_ROUTE__MAX,
};

struct peer {
	struct sockaddr_storage sa;	/* msg_name of sends to it */
	struct sendq_dst dst;		/* sa, as sendq_add() takes it */
	struct ipaddr addr;
	bool live;			/* a peer; else a free slot */
	uint32_t path_mtu;		/* underlay path to it; 0: unknown */
	uint64_t icmp_ns;		/* its last ICMP error; 0: none */
	struct peer_icmp icmp;		/* what it said */
	enum peer_reach reach;
	uint8_t route;			/* enum peer_route */
	bool reach_said;		/* its loss was logged */
	struct log_limit reach_warn;	/* and how often it may be */
	unsigned int oif;		/* the last route's interface; 0 */
	unsigned int oif_prev;		/* the one before, if it moved */
	struct peer_stats st;		/* the device's; the lanes count too */
	/*
	 * A VTEP of the EVPN fabric (evpn.c): entries of the fabric name
	 * it, so neither `peer del` nor a reload removes it; evpn_only,
	 * and nothing else made it a peer: it goes when the fabric's
	 * last entry naming it does. flood: the devices (bit i, device
	 * i) that flood to it, the VTEPs of their VNI's type-3 routes.
	 */
	bool evpn;
	bool evpn_only;
	uint16_t flood;
};

/* A peer's address, for the table kept sorted for lookups. */
struct peer_key {
	uint8_t addr[16];		/* IPv4 in the first 4 bytes */
	unsigned int idx;
};

/*
 * Peers in slots that keep their index for their life (the forwarding
 * table names peers by it); the sorted keys find one by address.
 */
struct peers {
	struct peer *v;			/* cap slots */
	unsigned int cap;
	unsigned int n;			/* live peers */
	unsigned int *live;		/* their slots, in the order added */
	struct peer_key *keys;		/* theirs, sorted by address */
	int family;
	uint16_t port;			/* on the peers; 0 for raw GRE */
};

/*
 * Room for cap peers of family (AF_INET, AF_INET6), sent to on port.
 * 0 or -ENOMEM.
 */
int peers_init(struct peers *p, unsigned int cap, int family, uint16_t port);
void peers_free(struct peers *p);

/*
 * A new peer at a (of the table's family): its slot index, -EEXIST if
 * it is one already, -ENOSPC when cap are held, -EINVAL for another
 * family. Its path is unknown and its counters zero.
 */
int peers_add(struct peers *p, const struct ipaddr *a);

/* Remove the peer in slot idx; its slot may be taken again. */
void peers_del(struct peers *p, unsigned int idx);

/*
 * The slot of the peer at addr (4 bytes for AF_INET, 16 for AF_INET6),
 * or -ENOENT.
 */
int peers_find(const struct peers *p, const uint8_t *addr);

/* Likewise for a socket address, any port; -ENOENT for another family. */
int peers_find_sockaddr(const struct peers *p,
			const struct sockaddr_storage *ss);

/* The peer whose sa a message's msg_name points to (sa comes first). */
static inline struct peer *peer_of_name(const void *name)
{
	return (struct peer *)name;
}

/* The address bytes of ss (4 or 16 by family); NULL for another family. */
const uint8_t *peer_sockaddr_bytes(const struct sockaddr_storage *ss);

/* a and port as a socket address in *ss; returns its length. */
socklen_t peer_sockaddr(const struct ipaddr *a, uint16_t port,
			struct sockaddr_storage *ss);

#endif
