/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The devices and their port. A device is one tap: its name, MTU and
 * MAC, its forwarding table (fwd.c), its path policy (path.c), the
 * counters of its own events, and its queues (queue.h), which carry its
 * traffic. The port is what the devices of a process share: the underlay
 * sockets, the ring, the peers (port.c), the lane its queues run on.
 * Set-up, the control socket and netlink change devices; the queues
 * read them (struct dev_state) and tell them what they saw (queue_ops).
 */
#ifndef GSOTUN_DEVICE_H
#define GSOTUN_DEVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <ev.h>
#include "fwd.h"
#include "options.h"
#include "path.h"
#include "peer.h"
#include "queue.h"
#include "ring.h"
#include "stats.h"
#include "threads.h"
#include "underlay.h"

struct device;

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

/*
 * Device i of the port: the main one (--dev, --vni or --key), or the tap
 * of cfg->taps[i - 1] with its VNI or key. Nothing opened yet.
 */
int device_init(struct device *d, const struct config *cfg,
		struct port *port, unsigned int i);

/* Its forwarding table, tap, MTU, MAC, addresses and queues. 0 or -errno. */
int device_open(struct device *d);
void device_close(struct device *d);

/* Its timers and watchers, and its queues' tap reads, on loop. */
void device_watch(struct device *d, struct ev_loop *loop);

/* The device's counters and its queues', into *sum. */
void device_stats(const struct device *d, struct stats *sum);

/* One counter of the device and its queues, summed. */
uint64_t device_stat(const struct device *d, const struct stats_desc *desc);

/*
 * With lanes on threads: all of them stopped at the end of a batch (as
 * the main thread must be to change what they read, or read what they
 * count), until the loop's next round lets them go (gsotun.c). Every
 * round but one of the control socket's reads of the main thread's own
 * state (control_pending()) is stopped so already.
 */
static inline void port_stop(struct port *port)
{
	if (port->threads)
		threads_stop(port->threads);
}

/*
 * What the queues of lanes on threads of their own told the devices
 * (their events), applied: the main thread's, while every lane is
 * stopped.
 */
void device_apply_events(struct port *port);

/* Wait until none of its queues has a send in flight (tx_quiesce()). */
void device_quiesce(struct device *d);

/* The tap's MTU: --mtu, or what the path leaves (path.c). */
uint32_t device_mtu(const struct device *d);

/*
 * What the last packet dropped for why came with (rx_seen_text()), of
 * the queue that saw one; false if none did.
 */
bool device_seen_text(const struct device *d, enum drop why, char *buf,
		      size_t len);

#endif
