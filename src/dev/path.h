/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Path MTU policy: the tap's MTU and offload limits, the routes to the
 * peers followed over rtnetlink, what ICMP errors from the underlay teach,
 * and the ICMP "too big" written back into the tap.
 */
#ifndef GSOTUN_PATH_H
#define GSOTUN_PATH_H

#include <stdbool.h>
#include <stdint.h>
#include <ev.h>
#include "base/log.h"
#include "pkt/frame.h"
#include "pkt/vnet.h"
#include "pipe/pmtu.h"
#include "pipe/xmit.h"
#include "conf/types.h"
#include "table/peer.h"
#include "dev/types.h"

struct underlay;

/*
 * Learn the path MTU (the route, over d->link), give the tap its MTU
 * (--mtu or the path's less the tunnel's overhead) and offload limits,
 * and open the watch of link and route changes. 0 or -errno (logged).
 */
int path_open(struct device *d);
void path_close(struct path *p);

/* Watch links, routes, the send-only sockets' errors and a timer. */
void path_watch(struct device *d);

/*
 * Bulk UDP from the tap (xmit_udp_bulk() says which sign): the tap's
 * gso_max_size goes to 64 KB so that UDP_SEGMENT sends reach gsotun
 * whole, until no UDP super-frame has come for PATH_UDP_HOLD seconds.
 */
void path_udp_bulk(struct device *d, enum xmit_bulk b);

/*
 * A send to peer e failed for want of a route (err: ENETUNREACH,
 * EHOSTUNREACH, ENETDOWN): every route is looked at soon, and the peers
 * lost said, at most once an interval.
 */
void path_send_failed(struct device *d, struct peer *e, int err);

/*
 * Ask every route to the peers again, for every device of d's port: a
 * learnt PMTU may have expired.
 */
void path_check(struct device *d);

/*
 * Peers of d's port came or went: the routes to the new ones, and every
 * device's tap MTU and budget for the peers as they are now.
 */
void path_peers_changed(struct device *d);

/* The tap's MTU. */
uint32_t path_tap_mtu(const struct path *p);

/*
 * Read the error queue of fd, a socket of underlay u: ICMP errors
 * counted, a learnt MTU heeded, what ICMP said of a peer kept in it
 * (icmp_ns, icmp_err).
 */
void path_errors(struct device *d, struct underlay *u, int fd);

/* What an ICMP error says of a peer, by its type and code. */
enum path_icmp {
	PATH_ICMP_PORT = 0,	/* nothing takes the port there */
	PATH_ICMP_PROTOCOL,	/* the peer takes no GRE */
	PATH_ICMP_HOST,		/* a router cannot reach the host */
	PATH_ICMP_NETWORK,	/* or its network */
	PATH_ICMP_PROHIBITED,	/* a filter refuses the packets */
	PATH_ICMP_TTL,		/* time exceeded: a loop, or a low TTL */
	PATH_ICMP_LOCAL,	/* an error of this host's (no neighbour) */
	PATH_ICMP_NEIGHBOUR,	/* host unreachable from this host: no */
				/* neighbour answered (peer_icmp.own) */
	PATH_ICMP_OTHER,
};

enum path_icmp path_icmp_cause(const struct peer_icmp *i);

/* The cause's name for JSON: "port", "host", ... */
const char *path_icmp_name(enum path_icmp c);

/*
 * What ICMP error i says of a peer of d, and its likely causes, as text in
 * buf: "port unreachable: nothing takes UDP port 4789 there: ...".
 * Returns buf.
 */
const char *path_icmp_hint(const struct device *d, const struct peer_icmp *i,
			   char *buf, size_t len);

/* The same without the causes: "port unreachable". Returns buf. */
const char *path_icmp_what(const struct peer_icmp *i, char *buf, size_t len);

/*
 * What needs CAP_NET_ADMIN after set-up: the tap's MTU, and with it its
 * gso_max_size, following the path (--mtu auto).
 */
bool path_needs_net_admin(const struct device *d);

/*
 * The address the underlay's sockets are bound to, which their sends
 * route from (`ip rule from` may hold their route): --local, or NULL.
 */
const struct ipaddr *path_local(const struct device *d);

#endif
