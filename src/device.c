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
#include "device.h"
#include "link.h"
#include "log.h"
#include "tap.h"

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
	path_errors(q->owner, fd);
}

static const struct queue_ops device_queue_ops = {
	.learn = device_learn,
	.udp_bulk = device_udp_bulk,
	.send_failed = device_send_failed,
	.sock_errors = device_sock_errors,
};

int device_init(struct device *d, const struct config *cfg,
		struct port *port, unsigned int i)
{
	struct queue *q;

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
	d->idx = i;
	d->port = port;
	d->q = calloc(1, sizeof(*d->q));
	if (!d->q) {
		log_err("out of memory");
		return -ENOMEM;
	}
	d->n_q = 1;
	q = &d->q[0];
	q->dev = &d->s;
	q->ops = &device_queue_ops;
	q->owner = d;
	q->lane = &port->lane;
	q->idx = i;
	q->tap_fd = -1;
	port->lane.q[port->lane.n_q++] = q;
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
	const uint8_t *mac = options_tap_mac(c, d->idx);
	struct ipaddr local = c->local;
	struct link_route r;

	if (mac) {
		memcpy(d->s.mac, mac, MAC_LEN);
	} else {
		if (!local.family &&
		    !link_route_get(d->link, &c->remotes[0], true, &r))
			local = r.src;
		tap_stable_mac(d->s.ifname, &local, d->s.mac);
	}
	return link_set_mac(d->link, d->ifindex, d->s.mac);
}

/* The tap's addresses (--address of this tap), then the link up. */
static int device_set_up(struct device *d)
{
	const struct config *c = d->s.cfg;
	unsigned int i;
	int err;

	tap_set_sysctls(d->s.ifname);
	for (i = 0; i < c->n_addrs; i++) {
		if (c->addr_tap[i] != d->idx)
			continue;
		err = link_add_addr(d->link, d->ifindex, &c->addrs[i]);
		if (err)
			return err;
	}
	/* Up before the first write: a down tap answers EIO. */
	return link_set_up(d->link, d->ifindex);
}

/* The tap, its MTU (path.c), MAC, addresses, up; the queues' buffers. */
static int device_open_tap(struct device *d)
{
	struct queue *q = &d->q[0];
	int err;

	q->tap_fd = tap_open(d->name, d->s.cfg->offload, d->s.ifname);
	if (q->tap_fd < 0)
		return q->tap_fd;
	d->ifindex = if_nametoindex(d->s.ifname);
	if (!d->ifindex) {
		log_err_errno("cannot find tap %s", d->s.ifname);
		return -errno;
	}
	d->link = link_open();
	if (!d->link)
		return -EIO;
	err = path_open(d);
	if (!err)
		err = rx_init(q, path_tap_mtu(&d->path));
	if (!err)
		err = device_set_mac(d);
	if (!err)
		err = device_set_up(d);
	return err;
}

int device_open(struct device *d)
{
	int err = tx_init(&d->q[0]);

	if (!err)
		err = fwd_open(d);
	if (!err)
		err = device_open_tap(d);
	return err;
}

void device_close(struct device *d)
{
	unsigned int i;

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
