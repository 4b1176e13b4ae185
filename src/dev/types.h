/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The devices' types: a device (one tap) with its forwarding table's
 * timers (fwd.c) and its path policy (path.c), and the port the devices
 * of a process share. Types only: device.h, fwd.h, path.h and port.h
 * have the calls.
 */
#ifndef GSOTUN_DEV_TYPES_H
#define GSOTUN_DEV_TYPES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <ev.h>
#include "base/log.h"
#include "base/stats.h"
#include "conf/types.h"
#include "table/peer.h"
#include "sys/ring.h"
#include "sys/threads.h"
#include "sys/underlay.h"
#include "data/types.h"

struct device;

/* A device's forwarding table: its timers and warnings (fwd.c). */
struct fwd {
	ev_timer age_w;		/* learnt entries aged (fdb_age()) */
	struct log_limit share_warn;	/* a peer holds its share */
	struct log_limit move_warn;	/* a MAC moved */
};

/* A device's path: MTU, GSO size, the route watch (path.c). */
struct path {
	struct link_watch *watch;	/* link and route changes; main's */
	uint32_t mtu;		/* the tap's */
	uint32_t path_mtu;	/* the peers' smallest; 0: unknown */
	ev_io watch_w;
	ev_timer timer_w;
	uint32_t gso_fit;	/* the tap's gso_max_size for TCP; 0: none */
	bool udp_raise;		/* it may go to 64 KB for bulk UDP */
	bool gso_raised;	/* it is at 64 KB (path_udp_bulk()) */
	bool udp_super_seen;	/* and a UDP super-frame came since */
	ev_tstamp udp_bulk_at;	/* the raise, or the last such frame */
	ev_tstamp udp_backoff;	/* no raise for a row of datagrams before */
	struct log_limit unreach_warn;	/* "peer unreachable" said */
	struct log_limit send_warn;	/* routes looked at, a send failed */
	ev_timer look_w;	/* that look, from the loop */
	struct ipaddr look_addr;	/* the peer of that send */
	unsigned int look_dev;	/* the device it was sent by */
	int look_err;		/* and its error */
	/*
	 * The tap's MTU is 1280 or more again after it was less: the
	 * device puts back what the kernel took with IPv6 (device.c).
	 */
	void (*ipv6_back)(struct device *d);
};

/*
 * What the devices of one process share: the underlay's port, the
 * peers, and the lanes (--queues): lane i has its ring, its own sockets
 * of the port (ul[i]), queue i of every device, and, with several, a
 * thread of its own. A device is a tap and its VNI or GRE key; received
 * packets go to the one whose VNI or key they carry.
 */
struct port {
	struct config *cfg;	/* the devices'; --peers changes it */
	unsigned int n_lanes;	/* the queues of every device */
	struct underlay ul[CONFIG_MAX_QUEUES];
	struct ring ring[CONFIG_MAX_QUEUES];	/* reads, writes, sends */
	unsigned int n_rings;	/* set up */
	struct peers peers;	/* --remote, --peers */
	struct lane lane[CONFIG_MAX_QUEUES];
	struct device *dev[CONFIG_MAX_TUNNELS];
	unsigned int n_dev;	/* [0] is the main one (--dev) */
	uint64_t start_ns;	/* when it started (clock.h) */
	int peers_dir;		/* --peers: its directory; else -1 */
	const char *peers_name;	/* and its name there */
	/* Lanes on threads: theirs, and the main loop's wake-up for events. */
	struct threads *threads;	/* NULL: one lane, on the main loop */
	struct ev_loop *loop;
	ev_async events_w;
	ev_timer events_timer_w;
	atomic_bool events_now;	/* one that cannot wait came */
	uint64_t events_ns;	/* when they were last applied */
	int exit_status;	/* a stop that is a failure (a tap gone) */
};

struct device {
	struct dev_state s;	/* what its queues read */
	const char *name;	/* the tap's name, as asked */
	unsigned int idx;	/* in port->dev[] */
	struct port *port;
	struct ev_loop *loop;
	struct stats st;	/* its own events; the queues count theirs */
	struct link *link;	/* rtnetlink */
	unsigned int ifindex;
	struct fwd fwd;		/* the table's timers and warnings */
	struct path path;
	struct queue *q;	/* its queues, n_q of them */
	unsigned int n_q;
	/*
	 * --evpn: where the sources of frames its queues read go up to
	 * (evpn.c, a room above), with its ctx.
	 */
	void (*local_seen)(void *ctx, struct device *d, const uint8_t *mac,
			   uint16_t vlan, uint64_t now);
	void *local_ctx;
};

#endif
