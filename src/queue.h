/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device's queues: each one data path (a tap fd, its transmit and
 * receive state, its counters) on a lane (a ring, the underlay's sockets,
 * a loop). What a queue reads of its device is struct dev_state; what it
 * has to tell its device goes up through struct queue_ops, so that the
 * rooms below the device (tx.c, rx.c) call none above them (doc/design.md).
 */
#ifndef GSOTUN_QUEUE_H
#define GSOTUN_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <ev.h>
#include "encap.h"
#include "fdb.h"
#include "mac.h"
#include "options.h"
#include "peer.h"
#include "route.h"
#include "ring.h"
#include "rx.h"
#include "stats.h"
#include "tx.h"
#include "underlay.h"
#include "xmit.h"

/*
 * User data of a ring request: its kind, the device (its queue on the
 * ring's lane) and the transmit set it belongs to, and an index (the
 * read's slot, the message, the receive frame).
 */
#define TAG_READ (0ull << 62)
#define TAG_SEND (1ull << 62)
#define TAG_WRITE (2ull << 62)
#define TAG_KIND(d) ((d) & (3ull << 62))
#define TAG_SET(i) ((uint64_t)(i) << 32)
#define TAG_SET_OF(d) (((d) >> 32) & 0xff)
#define TAG_DEV(i) ((uint64_t)(i) << 40)
#define TAG_DEV_OF(d) (((d) >> 40) & 0xff)

/*
 * What the queues read of their device on every frame. The device's
 * rooms (fwd.c, path.c, port.c) write it: between batches, or, the
 * forwarding table, through queue_ops' learn.
 */
struct dev_state {
	const struct config *cfg;	/* shared by the devices */
	struct encap_cfg encap;	/* with this device's VNI or key */
	uint32_t id;		/* encap_id(): the VNI or key, for rx_queue() */
	char ifname[IFNAMSIZ];	/* the tap's */
	uint8_t mac[MAC_LEN];	/* the tap's: frames from it are a loop */
	bool learning;		/* --learning */
	bool evpn;		/* --evpn: sources handed up, flood list */
	bool ipv6;		/* the underlay is */
	struct peers *peers;	/* the port's */
	struct fdb fdb;		/* where MACs are; learnt by the device */
	struct route_table routes;	/* a tun's: where prefixes are */
	uint32_t budget;	/* largest inner frame that fits every peer */
	uint32_t udp_fit;	/* path_publish_fit(): 0, none */
	const struct lane *lanes;	/* the port's, for lane_recent_peer() */
	unsigned int n_lanes;
};

struct queue;

/*
 * What a queue tells its device (the device's handlers, set at set-up).
 * Each is called from the queue's loop, between the packets of a batch.
 */
struct queue_ops {
	/* A source MAC on vlan from peer, not learnt just now: 0 or a drop. */
	enum drop (*learn)(struct queue *q, unsigned int peer,
			   const uint8_t *mac, uint16_t vlan, uint64_t now);
	/* Bulk UDP seen (xmit_udp_bulk()): the tap's GSO size may follow. */
	void (*udp_bulk)(struct queue *q, enum xmit_bulk b);
	/* A send to e failed for want of a route (errno err). */
	void (*send_failed)(struct queue *q, struct peer *e, int err);
	/* An underlay socket of the lane was readable with nothing to read. */
	void (*sock_errors)(struct queue *q, int fd);
	/* --evpn: a source MAC on vlan of a frame from the tap, seen now. */
	void (*local_mac)(struct queue *q, const uint8_t *mac, uint16_t vlan,
			  uint64_t now);
};

/*
 * One data path of a device: its tap fd, what is on its way out (tx) and
 * in (rx), and the counters of both.
 */
struct queue {
	struct dev_state *dev;	/* its device's, read */
	const struct queue_ops *ops;
	void *owner;		/* its device, for ops */
	struct lane *lane;
	unsigned int idx;	/* its device's in the lane (TAG_DEV) */
	int tap_fd;
	struct stats st;
	struct tx tx;
	struct rx rx;
};

/* What a lane counts of one peer (its slot's), beside the peer's own. */
struct lane_peer {
	struct peer_stats st;
	uint64_t rx_last_ns;	/* its last packet here; 0: none */
	uint64_t rx_ok_ns;	/* its last packet accepted (not dropped) */
	/* Its drops here: by cause (peer_drop_slot()), and the last. */
	uint64_t drop[PEER_DROPS];
	uint64_t drop_ns;	/* the last one's time; 0: none */
	uint8_t drop_why;	/* its cause (enum drop) */
	bool drop_has_id;	/* it carried a VNI or key, */
	uint32_t drop_id;	/* this one */
};

/*
 * What the queues of a lane on a thread of its own told their devices
 * (queue_ops), kept until the main thread applies it (device.c).
 */
enum lane_event_kind {
	LANE_EV_LEARN,
	LANE_EV_UDP_BULK,
	LANE_EV_SEND_FAILED,
	LANE_EV_SOCK_ERRORS,
	LANE_EV_LOCAL_MAC,
};

struct lane_event {
	uint8_t kind;		/* enum lane_event_kind */
	uint8_t dev;		/* the queue's index in the lane */
	uint16_t vlan;
	uint8_t mac[MAC_LEN];
	int peer;		/* its slot; -1 none */
	int arg;		/* the bulk, the errno, the socket */
	uint64_t now;
};

/*
 * Events a lane keeps (a burst of new sources), the main thread woken
 * at once past half of them; past all, a source is learnt a second
 * later.
 */
#define LANE_EVENTS 4096
/* Sources a lane remembers handing up (LANE_EV_LEARN), by hash. */
#define LANE_LEARNT 64
/* And for how long: as rx_learn(), a second. */
#define LANE_RELEARN_NS 1000000000ull

/*
 * A source handed up (LANE_EV_LEARN), not again for a second; until the
 * main thread has learnt it, the other lanes' queues send frames to it
 * by it rather than flood them (lane_recent_peer()). Written by its
 * lane alone (or the main thread, the lanes stopped) and read by every
 * lane: a sequence lock of C11 atomics, odd while written.
 */
struct lane_learnt {
	_Atomic uint32_t seq;
	_Atomic uint64_t key;	/* lane_learnt_key() */
	_Atomic int32_t peer;	/* -1: none */
	_Atomic uint64_t ns;	/* when (clock.h) */
};

/*
 * What one loop runs: a ring, the underlay's sockets, and a queue of
 * every device of the port, [0] the main device's. A received datagram
 * goes to the queue of its VNI or key. With several lanes each runs on
 * a thread of its own; what its queues tell their devices then waits in
 * ev[] for the main thread, which reads and resets it only while the
 * lane is stopped (doc/design.md).
 */
struct lane {
	struct ev_loop *loop;
	struct ring *ring;
	ring_done_fn done;	/* queue_done(): completions to the queues */
	struct underlay *ul;
	struct queue *q[CONFIG_MAX_TUNNELS];
	unsigned int n_q;
	unsigned int idx;	/* in the port: the queues' index */
	ev_io sock_w[2];	/* the underlay's receiving sockets */
	ev_io err_w[2 * CONFIG_MAX_SRC_PORTS];	/* and its senders' errors */
	unsigned int n_err_w;
	struct lane_peer *peer;	/* by the peers' slot, their cap of them */
	unsigned int peer_cap;
	/* A lane on its own thread: its events, and how it says so. */
	struct lane_event *ev;	/* LANE_EVENTS of them */
	unsigned int n_ev;
	uint64_t ev_lost;	/* dropped for want of room */
	struct lane_learnt learnt[LANE_LEARNT];
	void (*posted)(struct lane *l, bool now);	/* wakes the main one */
	void *owner;		/* the port, for posted */
};

/* Room for the counters of cap peers, and the events. 0 or -ENOMEM. */
int lane_init(struct lane *l, unsigned int idx, unsigned int peer_cap);
void lane_free(struct lane *l);

/* The entry of the table of l for a source of device dev. */
struct lane_learnt *lane_learnt_slot(struct lane *l, unsigned int dev,
				     const uint8_t *mac, uint16_t vlan);

/* Its source, peer and time now: the lane's thread, or stopped. */
void lane_learnt_set(struct lane_learnt *t, unsigned int dev,
		     const uint8_t *mac, uint16_t vlan, int peer, uint64_t ns);

/*
 * The peer that source mac on vlan of device dev was handed up from, by
 * lane l, less than a second before now; -1 if none (or it was being
 * written).
 */
int lane_learnt_peer(const struct lane *l, unsigned int dev,
		     const uint8_t *mac, uint16_t vlan, uint64_t now);

/*
 * The peer that any of the n lanes handed source mac up from just now:
 * what a frame to mac whose entry the main thread has not made yet goes
 * to, so that it is not flooded meanwhile (the kernel learns before it
 * forwards the answer). -1 if none.
 */
int lane_recent_peer(const struct lane *lanes, unsigned int n,
		     unsigned int dev, const uint8_t *mac, uint16_t vlan,
		     uint64_t now);

/*
 * The peer in slot i gone: the lane's counters of it zeroed (for the
 * next peer of the slot), its events and the sources handed up from it
 * forgotten. Only while the lane is stopped.
 */
void lane_forget_peer(struct lane *l, unsigned int i);

/*
 * An event for the main thread (a lane on its own thread); false when
 * ev[] is full (counted). It is woken at the first of a batch, to take
 * them within 10 ms, and at once for one that cannot wait (now: a new
 * source, whose frames are flooded until it is learnt; a socket's
 * errors) and past half of ev[].
 */
bool lane_post(struct lane *l, const struct lane_event *e, bool now);

/*
 * Every completion of the lane's ring, handed to tx or rx of the queue
 * its tag names; ctx is any queue of the lane. The queues reach it as
 * their lane's done, as they call nothing above them.
 */
void queue_done(void *ctx, uint64_t data, int res);

#endif
