/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The port's peers: those of --remote and --peers, the file read again
 * at SIGHUP, and peers added or removed at run time, with what each
 * device keeps of them.
 */
#ifndef GSOTUN_PORT_H
#define GSOTUN_PORT_H

#include "conf/types.h"
#include "table/peer.h"

struct port;

/*
 * The peers (--remote, --peers) of c into port->peers, and where
 * --peers is read again: the file changes c (the devices' config).
 * 0 or -errno (logged).
 */
int port_peers_open(struct port *port, struct config *c);
void port_peers_close(struct port *port);

/*
 * SIGHUP with --peers: read the file again; peers it no longer has go
 * (with their entries in every device), new ones come, its fdb entries
 * replace the old ones; traffic to the others goes on. A file that does
 * not read or parse changes nothing (logged); one that leaves no peer is
 * taken (warned of).
 */
void port_reload(struct port *port);

/*
 * At run time (the control socket): a peer more (-EEXIST, -ENOSPC,
 * -EINVAL for the other family), or the peer at a gone with its
 * forwarding entries in every device (-ENOENT; -EPERM: the fabric's,
 * port_peer_hold()), the last one too: the port then has none. Peers
 * added so last until a reload of --peers (the fabric's: until it lets
 * them go too). 0 or -errno.
 */
int port_peer_add(struct port *port, const struct ipaddr *a);
int port_peer_del(struct port *port, const struct ipaddr *a);

/*
 * The fabric (evpn.c) names the VTEP at a: a peer from now on, made one
 * if it is none (then it goes with port_peer_release()), and neither
 * `peer del` nor a reload removes it. Its slot, or -errno as
 * peers_add() (-ENOSPC: CONFIG_MAX_PEERS held, or --evpn-vteps of
 * them the fabric's alone).
 */
int port_peer_hold(struct port *port, const struct ipaddr *a);
/*
 * The fabric no longer names the peer in slot idx: gone with its
 * entries if only the fabric made it a peer, else kept as configured.
 */
void port_peer_release(struct port *port, unsigned int idx);
/*
 * The port's n lanes (--queues): lane i with ring[i] and ul[i], room
 * for its counters of every peer (CONFIG_MAX_PEERS slots, as
 * port_peers_open() makes); neither opened. 0 or -ENOMEM (logged).
 */
int port_init_lanes(struct port *port, unsigned int n);
void port_free_lanes(struct port *port);

/*
 * A peer's counters: its own and every lane's, its last packet, the last
 * it sent that was accepted (decapsulated and passed on to the tap), its
 * drops by cause and the last of them (of the lane that dropped last).
 */
struct peer_sum {
	struct peer_stats st;
	uint64_t rx_last_ns;	/* clock.h; 0: none */
	uint64_t rx_ok_ns;	/* clock.h; 0: none */
	uint64_t drop[PEER_DROPS];	/* by peer_drop_slot() */
	uint64_t drop_ns;	/* clock.h; 0: none */
	enum drop drop_why;
	bool drop_has_id;	/* the last came with a VNI or key: */
	uint32_t drop_id;
};

void port_peer_sum(const struct port *port, const struct peer *e,
		   struct peer_sum *sum);

#endif
