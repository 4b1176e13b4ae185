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
#include "base/stats.h"
#include "conf/types.h"
#include "table/peer.h"
#include "sys/ring.h"
#include "sys/threads.h"
#include "sys/underlay.h"
#include "data/types.h"
#include "dev/types.h"


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
