/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The data path's types. A device's queues: each one data path (a tap fd, its transmit and
 * receive state, its counters) on a lane (a ring, the underlay's sockets,
 * a loop). What a queue reads of its device is struct dev_state; what it
 * has to tell its device goes up through struct queue_ops, so that the
 * rooms below the device (tx.c, rx.c) call none above them (doc/design.md).
 * Types only: queue.h, lane.h, tx.h and rx.h have the calls.
 */
#ifndef GSOTUN_DATA_TYPES_H
#define GSOTUN_DATA_TYPES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <sys/uio.h>
#include <linux/if_ether.h>
#include <ev.h>
#include "base/log.h"
#include "base/mac.h"
#include "base/pool.h"
#include "base/stats.h"
#include "pkt/gro.h"
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "encap/encap.h"
#include "pipe/pmtu.h"
#include "pipe/sendq.h"
#include "pipe/xmit.h"
#include "conf/types.h"
#include "table/echo.h"
#include "table/fdb.h"
#include "table/peer.h"
#include "table/route.h"
#include "sys/ring.h"
#include "sys/underlay.h"

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
	/* --geneve-echo: flows and their options, every lane's; NULL off. */
	struct echo_table *echo;
};

/* What a queue sends (tx.c). */
/*
 * Frames read from the tap per wake-up before their segments go out in
 * one flush and the loop looks elsewhere.
 */
#define TAP_BATCH 32

/* Transmit buffer sets: one filling while the other's sends go. */
#define TX_SETS 2

/*
 * The buffers of one transmit batch: the frames read from the tap, the
 * segments planned for them and the messages that send them. The set is
 * free again once every send pointing into it has completed; two sets
 * let the sends of one batch go to the kernel in the same
 * io_uring_enter() as the reads of the next.
 */
struct tx_set {
	uint8_t *bufs[TAP_BATCH];	/* vnet header + frame, per read */
	int lens[TAP_BATCH];		/* what each read returned */
	struct seg_arena arena;		/* segments planned for the batch */
	struct sendq *q;		/* their messages */
	unsigned int idx;		/* 0 or 1: tags its completions */
};

/* Sources of tap frames a queue remembers handing up, by hash. */
#define TX_LOCAL_CACHE 16

struct tx {
	struct tx_set sets[TX_SETS];
	struct pool pool;	/* the sets' references */
	struct tx_set *cur;	/* the one frames are read into */
	int batch;		/* reads to ask for next time */
	int batch_max;		/* TAP_BATCH; 1 with --no-offload */
	unsigned int reads;	/* tap reads in flight */
	uint32_t gre_seq;
	struct xmit_udp_train train;	/* bulk UDP (xmit_udp_bulk()) */
	struct pmtu_limit icmp_limit;	/* ICMP "too big" into the tap */
	/* --evpn: local sources handed up lately (tx_local_source()). */
	struct tx_local {
		uint8_t mac[6];
		uint16_t vlan;
		uint64_t ns;
	} local[TX_LOCAL_CACHE];
	uint8_t icmp_buf[VNET_HDR_LEN + PMTU_ICMP_MAX];
	/* --geneve-echo: a flow's options (tx_echo()), in a copy of encap. */
	struct echo_hit echo_hit;
	struct encap_cfg echo_encap;
	ev_io tap_w;
};

/* What a queue receives (rx.c). */
/* Causes of drops said in the log (rx_warn()), each limited on its own. */
enum rx_warn {
	RX_WARN_SOURCE = 0,	/* not a peer */
	RX_WARN_ID,		/* another VNI or GRE key */
	RX_WARN_FOREIGN,	/* not our encapsulation */
	RX_WARN_MAX,
};

/* The last packet dropped for a cause of rx_warn: whence, its id. */
struct rx_seen {
	struct ipaddr from;
	uint32_t id;		/* VNI or GRE key */
	bool has_id;
};

/*
 * The source learnt last, not handed to the device again within a
 * second (rx_learn()); peer -1: none.
 */
struct rx_learnt {
	uint8_t mac[ETH_ALEN];
	uint16_t vlan;
	int peer;
	uint64_t ns;
};

/*
 * --geneve-echo: the flow, peer and options kept last, not looked up
 * again within a second (rx_echo_learn()); ns 0: none.
 */
struct rx_echo {
	struct echo_key key;
	unsigned int peer;
	uint16_t len;
	uint64_t ns;
	uint8_t opts[ECHO_ROOM_MAX];
};

struct rx {
	struct gro *gro;	/* the batch on its way to the tap */
	struct log_limit warn[RX_WARN_MAX];
	struct rx_seen seen[RX_WARN_MAX];
	struct iovec (*tap_iov)[2 + GRO_MAX_SEGS];	/* one per frame */
	unsigned int writes;	/* tap writes in flight */
	struct rx_learnt last;
	struct rx_echo echo;
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
/* Receiving sockets of a lane: one, or IPv4 and IPv6 (--local both). */
#define LANE_SOCKS 2

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
	ev_io sock_w[LANE_SOCKS];	/* the underlay's receiving sockets */
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
	/*
	 * --busy-poll: after work, the loop polls without sleeping (an
	 * idle watcher) until busy_until; busy_ns the window, 0: off.
	 */
	ev_idle busy_w;
	uint64_t busy_ns;
	uint64_t busy_until;
	uint64_t busy_since;	/* when this spell of polling began */
	/*
	 * --rx-coalesce: while packets stream in, a wake-up that emptied
	 * its socket stops watching it for coal_w's window (coal_paused:
	 * the watchers stopped, a bit each of sock_w[]). A stream is
	 * RX_COALESCE_STREAM receives a millisecond or more over the last
	 * spell: coal_n since coal_t (seconds, ev_now()), judged each
	 * millisecond or later into coal_stream.
	 */
	ev_timer coal_w;
	double coal_window;	/* seconds; 0: off */
	unsigned int coal_paused;
	bool coal_stream;
	unsigned int coal_n;
	double coal_t;
};

#endif
