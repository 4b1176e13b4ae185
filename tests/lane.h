/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The queue tests' lane (unit-tx, unit-rx): a network namespace of their
 * own, a real ring and real underlay sockets on loopback, queues whose
 * "taps" are socketpairs, and queue_ops that record what they were told.
 */
#ifndef GSOTUN_TESTS_LANE_H
#define GSOTUN_TESTS_LANE_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "conf/cfg.h"
#include "conf/options.h"
#include "data/lane.h"
#include "data/queue.h"
#include "data/rx.h"
#include "data/tx.h"
#include "data/types.h"
#include "tap.h"

/* A receive that did not come within this is a failure, not a hang. */
#define LANE_WAIT_MS 2000

/* What the queues told their device through queue_ops. */
struct lane_rec {
	unsigned int learn, udp_bulk, send_failed, sock_errors;
	const struct queue *q;		/* of the last call */
	unsigned int peer;		/* learn's */
	uint8_t mac[ETH_ALEN];
	uint16_t vlan;
	enum drop learn_ret;		/* what learn answers */
	enum xmit_bulk bulk;		/* udp_bulk's */
	int fd;				/* sock_errors' */
};

static struct lane_rec rec;

static inline enum drop lane_learn(struct queue *q, unsigned int peer,
				   const uint8_t *mac, uint16_t vlan,
				   uint64_t now)
{
	rec.learn++;
	rec.q = q;
	rec.peer = peer;
	memcpy(rec.mac, mac, ETH_ALEN);
	rec.vlan = vlan;
	return rec.learn_ret;
}

static inline void lane_udp_bulk(struct queue *q, enum xmit_bulk b)
{
	rec.udp_bulk++;
	rec.q = q;
	rec.bulk = b;
}

static inline void lane_send_failed(struct queue *q, struct peer *e, int err)
{
	rec.send_failed++;
	rec.q = q;
}

static inline void lane_sock_errors(struct queue *q, int fd)
{
	rec.sock_errors++;
	rec.q = q;
	rec.fd = fd;
}

static const struct queue_ops lane_ops = {
	.learn = lane_learn,
	.udp_bulk = lane_udp_bulk,
	.send_failed = lane_send_failed,
	.sock_errors = lane_sock_errors,
};

/* A port's worth of a lane: what gsotun.c and device.c set up. */
struct lane_test {
	struct config cfg;
	struct peers peers;
	struct ring ring;
	struct underlay ul;
	struct lane lane;
	struct dev_state ds[2];
	struct queue q[2];
	int tap[2];		/* the test's ends of the queues' taps */
	ev_io ring_w;
};

/* Become root of a user namespace of our own: uid and gid 0 mapped. */
static inline int lane_map_root(uid_t uid, gid_t gid)
{
	static const char *const files[] = {
		"/proc/self/setgroups", "/proc/self/uid_map",
		"/proc/self/gid_map",
	};
	char maps[3][32];
	unsigned int i;

	snprintf(maps[0], sizeof(maps[0]), "deny");
	snprintf(maps[1], sizeof(maps[1]), "0 %u 1", (unsigned int)uid);
	snprintf(maps[2], sizeof(maps[2]), "0 %u 1", (unsigned int)gid);
	for (i = 0; i < 3; i++) {
		int fd = open(files[i], O_WRONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : write(fd, maps[i], strlen(maps[i]));

		if (fd >= 0)
			close(fd);
		if (n < 0)
			return -1;
	}
	return 0;
}

/*
 * A network namespace of the test's own (in a user namespace of its own
 * unless it is root), lo up: 127.0.0.0/8 is all the test sends to. Skips
 * when that cannot be had.
 */
static inline void lane_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int fd;

	if (unshare(uid ? CLONE_NEWUSER | CLONE_NEWNET : CLONE_NEWNET))
		skip_all("no network namespace of our own (unshare)");
	if (uid && lane_map_root(uid, gid))
		skip_all("no uid map in our user namespace");
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		skip_all("no lo in our network namespace");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		skip_all("cannot bring lo up in our network namespace");
	close(fd);
}

/* Completions that came after their submission (gsotun.c's ring_cb). */
static inline void lane_ring_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct lane *l = w->data;

	ring_ack(l->ring);
	ring_reap(l->ring, l->done, l->q[0]);
}

/*
 * Device i's state and its queue, on the lane: VNI vni, the tap's MAC
 * 02:aa:00:00:00:i, nothing learnt, no path known (every budget open).
 */
static inline int lane_add_queue(struct lane_test *t, unsigned int i,
				 uint32_t vni, uint32_t mtu)
{
	struct dev_state *d = &t->ds[i];
	struct queue *q = &t->q[i];
	int sp[2], err;

	d->cfg = &t->cfg;
	d->encap = t->cfg.encap;
	d->encap.vni = vni;
	d->id = vni;
	snprintf(d->ifname, sizeof(d->ifname), "gt%u", i);
	memcpy(d->mac, (const uint8_t[]){ 0x02, 0xaa, 0, 0, 0, (uint8_t)i },
	       MAC_LEN);
	d->peers = &t->peers;
	d->budget = UINT32_MAX;
	err = fdb_init(&d->fdb, 64, 64, t->peers.cap, 0, 0x5eed + i);
	if (err)
		return err;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, sp))
		return -errno;
	q->dev = d;
	q->ops = &lane_ops;
	q->owner = t;
	q->lane = &t->lane;
	q->idx = i;
	q->tap_fd = sp[0];
	t->tap[i] = sp[1];
	err = tx_init(q);
	if (!err)
		err = rx_init(q, mtu);
	t->lane.q[t->lane.n_q++] = q;
	return err;
}

/*
 * The lane of the gsotun that argv (its options) describes, with n_q
 * queues, device i of VNI vni[i]; the loop not run yet. Skips without
 * io_uring; 0 or -errno.
 */
static inline int lane_open(struct lane_test *t, int argc, char **argv,
			    unsigned int n_q, const uint32_t *vni)
{
	unsigned int i;
	int err;

	memset(t, 0, sizeof(*t));
	t->tap[0] = t->tap[1] = -1;
	options_parse(argc, argv, &t->cfg);
	err = peers_init(&t->peers, 8, t->cfg.family, t->cfg.port);
	for (i = 0; !err && i < t->cfg.n_remotes; i++)
		if (peers_add(&t->peers, &t->cfg.remotes[i]) < 0)
			err = -EINVAL;
	if (err)
		return err;
	err = ring_init(&t->ring, 512);
	if (err == -ENOSYS || err == -EPERM)
		skip_all("no io_uring here");
	if (err)
		return err;
	err = underlay_open(&t->ul, 1, &t->cfg, &t->peers);
	if (!err)
		err = lane_init(&t->lane, 0, t->peers.cap);
	if (err)
		return err;
	t->lane.loop = ev_default_loop(0);
	t->lane.ring = &t->ring;
	t->lane.done = queue_done;
	t->lane.ul = &t->ul;
	for (i = 0; !err && i < n_q; i++)
		err = lane_add_queue(t, i, vni[i], 1500);
	ev_io_init(&t->ring_w, lane_ring_cb, ring_eventfd(&t->ring), EV_READ);
	t->ring_w.data = &t->lane;
	ev_io_start(t->lane.loop, &t->ring_w);
	return err;
}

/*
 * A lane of one queue for the options of a --mode tun in argv, its
 * device with a route table of 64 (empty): 0, or -errno.
 */
static inline int lane_open_tun(struct lane_test *t, int argc, char **argv)
{
	static const uint32_t ids[] = { 0 };
	int err = lane_open(t, argc, argv, 1, ids);

	return err ? err : route_init(&t->ds[0].routes, 64, 0x5eed);
}

static inline void lane_close(struct lane_test *t)
{
	unsigned int i;

	ring_drain(&t->ring, queue_done, t->lane.q[0]);
	for (i = 0; i < t->lane.n_q; i++) {
		close(t->q[i].tap_fd);
		close(t->tap[i]);
		tx_free(&t->q[i].tx);
		rx_free(&t->q[i].rx);
		fdb_free(&t->ds[i].fdb);
		route_free(&t->ds[i].routes);
	}
	ev_loop_destroy(t->lane.loop);
	underlay_close(&t->ul);
	lane_free(&t->lane);
	ring_exit(&t->ring);
	peers_free(&t->peers);
	cfg_free(&t->cfg);
}

/*
 * Valgrind does not see io_uring reads fill q's tap buffers: written once
 * here, they are not "uninitialised" to it.
 */
static inline void lane_define_bufs(struct queue *q)
{
	unsigned int i, j;

	for (i = 0; i < TX_SETS; i++)
		for (j = 0; j < TAP_BATCH; j++)
			memset(q->tx.sets[i].bufs[j], 0,
			       VNET_HDR_LEN + VNET_FRAME_MAX);
}

/* One turn of the loop, waiting at most LANE_WAIT_MS for an event. */
static inline void lane_timeout_cb(struct ev_loop *loop, ev_timer *w,
				   int revents)
{
}

static inline void lane_run(struct lane_test *t)
{
	ev_timer guard;

	ev_timer_init(&guard, lane_timeout_cb, LANE_WAIT_MS / 1000.0, 0);
	ev_timer_start(t->lane.loop, &guard);
	ev_run(t->lane.loop, EVRUN_ONCE);
	ev_timer_stop(t->lane.loop, &guard);
}

/* One datagram or frame from fd within LANE_WAIT_MS: its length or -1. */
static inline ssize_t lane_recv(int fd, void *buf, size_t len,
				struct sockaddr_in *from)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	socklen_t fl = sizeof(*from);

	if (poll(&p, 1, LANE_WAIT_MS) != 1)
		return -1;
	return recvfrom(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)from,
			from ? &fl : NULL);
}

/* What fd holds already, thrown away: how many datagrams or frames. */
static inline unsigned int lane_drain(int fd)
{
	static uint8_t junk[70000];
	unsigned int n = 0;

	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/* A UDP socket bound to 127.0.0.a:port (port 0: any). */
static inline int lane_udp_socket(uint8_t a, uint16_t port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(0x7f000000u | a),
	};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int big = 4 << 20;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif
