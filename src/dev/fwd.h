/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device's forwarding table, as the kernel's vxlan keeps it: the
 * --fdb entries that send a frame to one peer, the MACs learnt from the
 * peers (--learning, handed up by the queues), their ageing. The queues
 * look frames up in it themselves (tx_dest()).
 */
#ifndef GSOTUN_FWD_H
#define GSOTUN_FWD_H

#include <stdint.h>
#include <ev.h>
#include "base/log.h"
#include "base/stats.h"
#include "conf/types.h"
#include "dev/types.h"


/*
 * The forwarding table of device d with its --fdb entries (those for
 * every device, and those with d's DEV=); a tun's route table with its
 * --route entries. 0 or -errno (logged).
 */
int fwd_open(struct device *d);
void fwd_close(struct device *d);

/*
 * The static entries of old (n of them, the --fdb of before a reload)
 * out, the config's in; 0, or -errno when one was not taken.
 */
int fwd_replace_static(struct device *d, const struct config_fdb *old,
		       unsigned int n);

/*
 * The --route entries of old (n of them, from before a reload) out, the
 * config's in; the tun's kernel routes follow (those kept are replaced
 * in place, so that no packet for them meets the host's other routes
 * meanwhile). 0, or -errno when one was not taken.
 */
int fwd_replace_routes(struct device *d, const struct config_route *old,
		       unsigned int n);

/*
 * A tun's --route prefixes routed into it (ip route add PREFIX dev TUN),
 * once it is up; and out of it at exit (a persistent tun keeps its
 * routes otherwise). 0 or the first -errno (logged): -EEXIST, the host
 * has a route to a prefix already (never replaced); -ELOOP, a prefix
 * would take the tunnel packets to a peer into the tun.
 */
int fwd_routes_up(struct device *d);
void fwd_routes_down(struct device *d);

/*
 * The peer in slot idx is going: d's entries to it go first, and its
 * routes (out of the tun too).
 */
void fwd_forget_peer(struct device *d, unsigned int idx);

/*
 * A static forwarding entry of device d, to a peer (-ENOENT when e's
 * address is none), or one gone (-ENOENT: none); as fdb_add_static()
 * and fdb_del().
 */
int fwd_fdb_add(struct device *d, const struct config_fdb *e);
int fwd_fdb_del(struct device *d, const uint8_t *mac, uint16_t vlan);

/*
 * A route of tun d to a peer (-ENOENT when e's address is none), routed
 * into the tun too (refused as fwd_routes_up() refuses one: -EEXIST,
 * -ELOOP, and not in the table then); or one gone (-ENOENT: none, nor
 * is a route of the host's that gsotun did not make deleted), out of
 * the tun. As route_add() and route_del().
 */
int fwd_route_add(struct device *d, const struct config_route *e);
int fwd_route_del(struct device *d, const struct cidr *p);

/*
 * The ageing of learnt entries, every 10 s as vxlan_cleanup() runs; and
 * a warning at start when every frame would go to every peer.
 */
void fwd_watch(struct device *d);

/*
 * A queue saw mac on vlan behind the peer in slot peer (queue_ops'
 * learn, from rx_learn()): learnt, counted and said. DROP_RX_MAC_STATIC
 * when --fdb fixes it to another peer (vxlan_snoop() drops those too),
 * else DROP_NONE.
 */
enum drop fwd_learn(struct device *d, unsigned int peer, const uint8_t *mac,
		    uint16_t vlan, uint64_t now);

#endif
