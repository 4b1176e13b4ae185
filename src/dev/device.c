// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * device: a tap and its queues set up, watched and torn down; what the
 * queues tell the device, handed to fwd.c and path.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"
#include "conf/cfg.h"
#include "sys/link.h"
#include "sys/tap.h"
#include "data/lane.h"
#include "data/rx.h"
#include "data/tx.h"
#include "dev/device.h"
#include "dev/fwd.h"
#include "dev/path.h"

static enum drop device_learn(struct queue *q, unsigned int peer,
			      const uint8_t *mac, uint16_t vlan, uint64_t now)
{
	return fwd_learn(q->owner, peer, mac, vlan, now);
}

static void device_udp_bulk(struct queue *q, enum xmit_bulk b)
{
	path_udp_bulk(q->owner, b);
}

static void device_send_failed(struct queue *q, struct peer *e, int err)
{
	path_send_failed(q->owner, e, err);
}

static void device_sock_errors(struct queue *q, int fd)
{
	path_errors(q->owner, q->lane->ul, fd);
}

static void device_local_seen(struct device *d, const uint8_t *mac,
			      uint16_t vlan, uint64_t now)
{
	if (d->local_seen)
		d->local_seen(d->local_ctx, d, mac, vlan, now);
}

static void device_local_mac(struct queue *q, const uint8_t *mac,
			     uint16_t vlan, uint64_t now)
{
	device_local_seen(q->owner, mac, vlan, now);
}

/* One lane, on the loop of the main thread: its queues call the device. */
static const struct queue_ops device_queue_ops = {
	.learn = device_learn,
	.udp_bulk = device_udp_bulk,
	.send_failed = device_send_failed,
	.sock_errors = device_sock_errors,
	.local_mac = device_local_mac,
};

/*
 * Lanes on threads: what the queues tell the device waits in their
 * lane's events (lane_post()) for the main thread. Learning reads the
 * table, as every frame's lookup does: a frame that claims a MAC fixed
 * to another peer is dropped here (fwd_learn() says why); the rest is
 * handed up once a second per source at most, at once where it is not
 * in the table behind this peer yet (frames to it are flooded till
 * then), else with the others of 10 ms (it was seen again: its age).
 */
static enum drop device_post_learn(struct queue *q, unsigned int peer,
				   const uint8_t *mac, uint16_t vlan,
				   uint64_t now)
{
	int fixed = fdb_lookup_static(&q->dev->fdb, mac, vlan);
	struct lane_event e = {
		.kind = LANE_EV_LEARN, .dev = (uint8_t)q->idx, .vlan = vlan,
		.peer = (int)peer, .now = now,
	};

	if (fixed >= 0 && fixed != (int)peer)
		return DROP_RX_MAC_STATIC;
	if (lane_learnt_peer(q->lane, q->idx, mac, vlan, now) == (int)peer)
		return DROP_NONE;
	memcpy(e.mac, mac, MAC_LEN);
	if (!lane_post(q->lane, &e,
		       fdb_lookup(&q->dev->fdb, mac, vlan, now) != (int)peer))
		return DROP_NONE;
	lane_learnt_set(lane_learnt_slot(q->lane, q->idx, mac, vlan), q->idx,
			mac, vlan, (int)peer, now);
	return DROP_NONE;
}

static void device_post(struct queue *q, enum lane_event_kind kind, int peer,
			int arg)
{
	struct lane_event e = { .kind = (uint8_t)kind, .dev = (uint8_t)q->idx,
				.peer = peer, .arg = arg };

	lane_post(q->lane, &e, kind == LANE_EV_SOCK_ERRORS);
}

static void device_post_udp_bulk(struct queue *q, enum xmit_bulk b)
{
	device_post(q, LANE_EV_UDP_BULK, -1, (int)b);
}

static void device_post_send_failed(struct queue *q, struct peer *e, int err)
{
	device_post(q, LANE_EV_SEND_FAILED, (int)(e - q->dev->peers->v), err);
}

/*
 * The socket's errors are read by the main thread; until then the
 * lane does not watch it (it would be readable again at once).
 */
static void device_post_sock_errors(struct queue *q, int fd)
{
	rx_pause_socket(q->lane, fd);
	device_post(q, LANE_EV_SOCK_ERRORS, -1, fd);
}

/* A local source, with the others of 10 ms: the fabric hears in seconds. */
static void device_post_local_mac(struct queue *q, const uint8_t *mac,
				  uint16_t vlan, uint64_t now)
{
	struct lane_event e = {
		.kind = LANE_EV_LOCAL_MAC, .dev = (uint8_t)q->idx,
		.vlan = vlan, .peer = -1, .now = now,
	};

	memcpy(e.mac, mac, MAC_LEN);
	lane_post(q->lane, &e, false);
}

static const struct queue_ops device_lane_ops = {
	.learn = device_post_learn,
	.udp_bulk = device_post_udp_bulk,
	.send_failed = device_post_send_failed,
	.sock_errors = device_post_sock_errors,
	.local_mac = device_post_local_mac,
};

/* A lane's event, to its device; one naming a peer gone since, not. */
static void device_apply_event(struct port *port, struct lane *l,
			       const struct lane_event *e)
{
	struct device *d = l->q[e->dev]->owner;
	struct peer *pe = e->peer >= 0 ? &port->peers.v[e->peer] : NULL;

	if (pe && !pe->live)
		return;
	switch (e->kind) {
	case LANE_EV_LEARN:
		if (pe)
			fwd_learn(d, (unsigned int)e->peer, e->mac, e->vlan,
				  e->now);
		break;
	case LANE_EV_UDP_BULK:
		path_udp_bulk(d, (enum xmit_bulk)e->arg);
		break;
	case LANE_EV_SEND_FAILED:
		if (pe)
			path_send_failed(d, pe, e->arg);
		break;
	case LANE_EV_SOCK_ERRORS:
		path_errors(d, l->ul, e->arg);
		break;
	case LANE_EV_LOCAL_MAC:
		device_local_seen(d, e->mac, e->vlan, e->now);
		break;
	}
}

void device_apply_events(struct port *port)
{
	unsigned int i, j;

	for (i = 0; i < port->n_lanes; i++) {
		struct lane *l = &port->lane[i];

		for (j = 0; j < l->n_ev; j++)
			device_apply_event(port, l, &l->ev[j]);
		l->n_ev = 0;
		/* The lane is stopped: its count is the main thread's now. */
		port->dev[0]->st.lane_events_lost += l->ev_lost;
		l->ev_lost = 0;
	}
}

int device_init(struct device *d, const struct config *cfg,
		struct port *port, unsigned int i)
{
	unsigned int j;

	d->s.cfg = cfg;
	d->s.encap = cfg->encap;
	d->s.ipv6 = cfg->family == AF_INET6;
	d->s.peers = &port->peers;
	d->name = cfg->dev;
	if (i) {
		d->name = cfg->taps[i - 1].dev;
		encap_set_id(&d->s.encap, cfg->taps[i - 1].id);
	}
	d->s.id = encap_id(&d->s.encap);
	d->s.evpn = cfg->evpn;
	d->s.lanes = port->lane;
	d->s.n_lanes = port->n_lanes;
	d->idx = i;
	d->port = port;
	d->q = calloc(port->n_lanes, sizeof(*d->q));
	if (!d->q) {
		log_err("out of memory");
		return -ENOMEM;
	}
	d->n_q = port->n_lanes;
	for (j = 0; j < d->n_q; j++) {
		struct queue *q = &d->q[j];
		struct lane *l = &port->lane[j];

		q->dev = &d->s;
		q->ops = d->n_q > 1 ? &device_lane_ops : &device_queue_ops;
		q->owner = d;
		q->lane = l;
		q->idx = i;
		q->tap_fd = -1;
		l->q[l->n_q++] = q;
	}
	port->dev[port->n_dev++] = d;
	return 0;
}

/*
 * The tap's MAC: --mac, else the stable one of its name and the local
 * address (--local, else the source of the route to the first peer).
 */
static int device_set_mac(struct device *d)
{
	const struct config *c = d->s.cfg;
	const uint8_t *mac = cfg_tap_mac(c, d->idx);
	struct ipaddr local = c->local;
	struct link_route r;

	if (mac) {
		memcpy(d->s.mac, mac, MAC_LEN);
	} else {
		if ((!local.family || optvalue_ip_is_any(&local)) &&
		    c->n_remotes &&
		    !link_route_get(d->link, &c->remotes[0], NULL, true, &r))
			local = r.src;
		tap_stable_mac(d->s.ifname, &local, d->s.mac);
	}
	return link_set_mac(d->link, d->ifindex, d->s.mac);
}

/* The tap's --address entries of family (0: every one) on it. */
static int device_add_addrs(struct device *d, int family)
{
	const struct config *c = d->s.cfg;
	unsigned int i;
	int err;

	for (i = 0; i < c->n_addrs; i++) {
		if (c->addr_tap[i] != d->idx ||
		    (family && c->addrs[i].family != family))
			continue;
		err = link_add_addr(d->link, d->ifindex, &c->addrs[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Below an MTU of 1280 the kernel takes IPv6 off a device, with its
 * addresses and routes (addrconf_notify(), NETDEV_CHANGEMTU; RFC 8200
 * section 5), and above it again makes only the link-local address. The
 * tap's MTU is back from below (path.c): its IPv6 --address entries go
 * on it again, and a tun's routes (fwd_routes_up() leaves alone those
 * still there).
 */
static void device_ipv6_back(struct device *d)
{
	log_info("%s: MTU %u, IPv6 again: its addresses%s put back",
		 d->s.ifname, d->path.mtu, d->s.encap.l3 ? " and routes" : "");
	device_add_addrs(d, AF_INET6);
	if (d->s.encap.l3)
		fwd_routes_up(d);
}

/* The tap's addresses (--address of this tap), then the link up. */
static int device_set_up(struct device *d)
{
	int err;

	tap_set_sysctls(d->s.ifname, d->s.encap.l3);
	err = device_add_addrs(d, 0);
	if (err)
		return err;
	/* Up before the first write: a down tap answers EIO. */
	err = link_set_up(d->link, d->ifindex);
	if (!err && d->s.encap.l3)
		err = fwd_routes_up(d);
	return err;
}

/* The tap's queues, each with its fd; with several, steered by flow. */
static int device_open_queues(struct device *d)
{
	int fds[CONFIG_MAX_QUEUES], err;
	unsigned int i;

	err = tap_open(d->name, d->s.encap.l3, d->s.cfg->offload, d->n_q, fds,
		       d->s.ifname);
	if (err)
		return err;
	for (i = 0; i < d->n_q; i++)
		d->q[i].tap_fd = fds[i];
	if (d->n_q > 1)
		tap_steer(fds[0], d->s.ifname, d->s.encap.l3);
	return 0;
}

/* The tap, its MTU (path.c), MAC, addresses, up; the queues' buffers. */
static int device_open_tap(struct device *d)
{
	unsigned int i;
	int err;

	err = device_open_queues(d);
	if (err)
		return err;
	d->link = link_open();
	if (!d->link)
		return -EIO;
	/* Not if_nametoindex(): its socket may fail (EMFILE) as "none". */
	d->ifindex = link_ifindex(d->link, d->s.ifname);
	if (!d->ifindex) {
		log_err("cannot find tap %s", d->s.ifname);
		return -ENODEV;
	}
	err = path_open(d);
	d->path.ipv6_back = device_ipv6_back;
	for (i = 0; !err && i < d->n_q; i++)
		err = rx_init(&d->q[i], path_tap_mtu(&d->path));
	/* A tun has no MAC (ARPHRD_NONE). */
	if (!err && !d->s.encap.l3)
		err = device_set_mac(d);
	if (!err)
		err = device_set_up(d);
	return err;
}

int device_open(struct device *d)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < d->n_q; i++)
		err = tx_init(&d->q[i]);
	if (!err)
		err = fwd_open(d);
	if (!err)
		err = device_open_tap(d);
	return err;
}

void device_close(struct device *d)
{
	unsigned int i;

	/* While the tun is there (closing its fd removes it). */
	if (d->s.encap.l3)
		fwd_routes_down(d);
	for (i = 0; i < d->n_q; i++) {
		struct queue *q = &d->q[i];

		if (q->tap_fd >= 0)
			close(q->tap_fd);
		tx_free(&q->tx);
		rx_free(&q->rx);
	}
	path_close(&d->path);
	fwd_close(d);
	link_close(d->link);
	free(d->q);
	d->q = NULL;
	d->n_q = 0;
}

void device_watch(struct device *d, struct ev_loop *loop)
{
	unsigned int i;

	d->loop = loop;
	for (i = 0; i < d->n_q; i++)
		tx_watch(&d->q[i]);
	path_watch(d);
	fwd_watch(d);
}

void device_stats(const struct device *d, struct stats *sum)
{
	unsigned int i;

	*sum = d->st;
	for (i = 0; i < d->n_q; i++)
		stats_add(sum, &d->q[i].st);
}

uint64_t device_stat(const struct device *d, const struct stats_desc *desc)
{
	uint64_t v = stats_value(&d->st, desc);
	unsigned int i;

	for (i = 0; i < d->n_q; i++)
		v += stats_value(&d->q[i].st, desc);
	return v;
}

void device_quiesce(struct device *d)
{
	unsigned int i;

	for (i = 0; i < d->n_q; i++)
		tx_quiesce(&d->q[i]);
}

uint32_t device_mtu(const struct device *d)
{
	return path_tap_mtu(&d->path);
}

bool device_seen_text(const struct device *d, enum drop why, char *buf,
		      size_t len)
{
	unsigned int i;

	for (i = 0; i < d->n_q; i++)
		if (rx_seen_text(&d->q[i], why, buf, len))
			return true;
	return false;
}
