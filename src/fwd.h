/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Forwarding over many peers, as the kernel's vxlan does it: the peers
 * from --remote, the forwarding table (--fdb, --learning) that sends a
 * frame to one of them, and head-end replication of what it does not
 * know (broadcast, multicast, unknown unicast) to every peer.
 */
#ifndef GSOTUN_FWD_H
#define GSOTUN_FWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/if_ether.h>
#include <ev.h>
#include "fdb.h"
#include "log.h"
#include "options.h"
#include "stats.h"

struct tunnel;

/* fwd_dest() of a frame that goes to every peer. */
#define FWD_FLOOD (-1)

struct fwd {
	struct fdb fdb;
	bool learning;		/* --learning */
	ev_timer age_w;		/* learnt entries aged (fdb_age()) */
	/* The last source learnt, not looked up again within a second. */
	uint8_t last_mac[ETH_ALEN];
	uint16_t last_vlan;
	int last_peer;
	uint64_t last_ns;
	struct log_limit share_warn;	/* a peer holds its share */
	struct log_limit move_warn;	/* a MAC moved */
	int peers_dir;		/* --peers: its directory; else -1 */
	const char *peers_name;	/* and its name there */
};

struct port;

/* The peers (--remote, --peers) of c into port->peers. 0 or -errno. */
int fwd_peers_open(struct port *port, const struct config *c);

/*
 * The forwarding table of tunnel t with its --fdb entries (those for
 * every tunnel, and those with t's DEV=). 0 or -errno (logged).
 */
int fwd_open(struct tunnel *t);
void fwd_close(struct tunnel *t);

/*
 * SIGHUP with --peers, to the main tunnel: read the file again; peers it
 * no longer has go (with their entries in every tunnel), new ones come,
 * its fdb entries replace the old ones; traffic to the others goes on. A
 * file that does not read or parse, or would leave no peer, changes
 * nothing (logged).
 */
void fwd_reload(struct tunnel *t);

/*
 * At run time (the control socket): a peer more (-EEXIST, -ENOSPC,
 * -EINVAL for the other family, -EISCONN when the raw GRE socket is
 * connected to the one peer), or the peer at a gone with its forwarding
 * entries in every tunnel (-ENOENT, -EBUSY for the last one). Peers
 * added so last until a reload of --peers. 0 or -errno.
 */
int fwd_peer_add(struct port *port, const struct ipaddr *a);
int fwd_peer_del(struct port *port, const struct ipaddr *a);

/*
 * A static forwarding entry of tunnel t, to a peer (-ENOENT when e's
 * address is none), or one gone (-ENOENT: none); as fdb_add_static()
 * and fdb_del().
 */
int fwd_fdb_add(struct tunnel *t, const struct config_fdb *e);
int fwd_fdb_del(struct tunnel *t, const uint8_t *mac, uint16_t vlan);

/*
 * The ageing of learnt entries, every 10 s as vxlan_cleanup() runs; and
 * a warning at start when every frame would go to every peer.
 */
void fwd_watch(struct tunnel *t);

/*
 * Where the frame of len bytes read from the tap goes: the slot of the
 * peer its destination MAC is behind, or FWD_FLOOD.
 */
int fwd_dest(struct tunnel *t, const uint8_t *frame, size_t len);

/*
 * The frame of len bytes came from the peer in slot peer (or
 * UNDERLAY_ALLOWED: a source --allow takes): learn its source MAC with
 * --learning. Why it must be dropped, or DROP_NONE: its source MAC is
 * the tap's own (a loop, as vxlan_set_mac() drops it), or fixed to
 * another peer by --fdb (vxlan_snoop() drops those too).
 */
enum drop fwd_learn(struct tunnel *t, int peer, const uint8_t *frame,
		    size_t len);


#endif
