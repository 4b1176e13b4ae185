// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port: the peers of the port, from --remote and --peers, read again at
 * SIGHUP, added and removed at run time; each device follows.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/log.h"
#include "conf/peersfile.h"
#include "data/lane.h"
#include "data/queue.h"
#include "dev/device.h"
#include "dev/fwd.h"
#include "dev/path.h"
#include "dev/port.h"

/* Whom but root st lets write: its owner, its group, anyone; or NULL. */
static const char *port_writer(const struct stat *st, char *buf, size_t len)
{
	if (st->st_uid != 0) {
		snprintf(buf, len, "its owner, uid %u", (unsigned)st->st_uid);
		return buf;
	}
	if (st->st_mode & S_IWOTH)
		return "anyone";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0) {
		snprintf(buf, len, "group %u", (unsigned)st->st_gid);
		return buf;
	}
	return NULL;
}

/*
 * Whoever may write the peers file, or replace it in its directory (a
 * sticky one only where they own it), chooses where the tunnel's traffic
 * goes: said at start when that is someone but root.
 */
static void port_say_writable(const char *path)
{
	char *dir = strdup(path), buf[40];
	struct stat st, dst;
	const char *who;

	if (!dir || stat(path, &st))
		goto out;
	who = port_writer(&st, buf, sizeof(buf));
	if (who) {
		log_warn("--peers %s may be written by %s, not only root: "
			 "whoever writes it chooses the peers", path, who);
		goto out;
	}
	*strrchr(dir, '/') = '\0';
	if (stat(dir[0] ? dir : "/", &dst))
		goto out;
	who = port_writer(&dst, buf, sizeof(buf));
	if (who && !((dst.st_mode & S_ISVTX) && st.st_uid == 0))
		log_warn("the directory of --peers %s may be written by %s, "
			 "not only root: whoever replaces the file chooses the "
			 "peers", path, who);
out:
	free(dir);
}


/*
 * Where --peers is read again: through its directory, kept open, from
 * wherever the daemon's working directory is; after a --chroot by its
 * path inside it (a directory outside, kept open, would lead out).
 */
static int port_open_peers_dir(struct port *port, const struct config *c)
{
	const char *slash = strrchr(c->peers_file, '/');
	char *dir;

	if (c->peers_in_root) {
		port->peers_dir = AT_FDCWD;
		port->peers_name = c->peers_in_root;
		return 0;
	}
	dir = strndup(c->peers_file,
		      slash == c->peers_file ? 1
					     : (size_t)(slash - c->peers_file));
	port->peers_name = slash + 1;
	if (!dir) {
		log_err("out of memory");
		return -ENOMEM;
	}
	port->peers_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (port->peers_dir < 0)
		log_err_errno("cannot open %s, the directory of --peers", dir);
	free(dir);
	return port->peers_dir < 0 ? -errno : 0;
}

int port_peers_open(struct port *port, struct config *c)
{
	unsigned int i;
	int err;

	port->cfg = c;
	port->peers_dir = -1;
	err = peers_init(&port->peers, CONFIG_MAX_PEERS, c->family,
			 encap_is_udp(c->encap.type) ? c->port : 0);
	for (i = 0; !err && i < c->n_remotes; i++) {
		int r = peers_add(&port->peers, &c->remotes[i]);

		err = r < 0 ? r : 0;
	}
	if (err) {
		log_err_ret(err, "cannot set up the peers");
		return err;
	}
	if (!c->peers_file)
		return 0;
	port_say_writable(c->peers_file);
	return port_open_peers_dir(port, c);
}

void port_peers_close(struct port *port)
{
	if (port->peers_dir >= 0)
		close(port->peers_dir);
	port->peers_dir = -1;
	peers_free(&port->peers);
}

/* Is a in cfg's peers? */
static bool port_configured(const struct config *c, const struct ipaddr *a)
{
	unsigned int i;

	for (i = 0; i < c->n_remotes; i++)
		if (optvalue_ip_equal(&c->remotes[i], a))
			return true;
	return false;
}

/* Messages in flight name peers by their slots' addresses: done first. */
static void port_quiesce(struct port *port)
{
	unsigned int i;

	for (i = 0; i < port->n_dev; i++)
		device_quiesce(port->dev[i]);
}

/*
 * The peer in slot idx gone, with every device's entries to it and the
 * source its queues learnt last (which may name it); after
 * port_quiesce().
 */
static void port_forget_peer(struct port *port, unsigned int idx)
{
	unsigned int j;

	for (j = 0; j < port->n_dev; j++)
		fwd_forget_peer(port->dev[j], idx);
	peers_del(&port->peers, idx);
	for (j = 0; j < port->n_lanes; j++)
		lane_forget_peer(&port->lane[j], idx);
}

/* The live peers cfg no longer has: gone, with every device's entries. */
static unsigned int port_remove_peers(struct port *port,
				      const struct config *c)
{
	struct peers *ps = &port->peers;
	unsigned int i = 0, n = 0;

	while (i < ps->n) {
		unsigned int idx = ps->live[i];

		if (port_configured(c, &ps->v[idx].addr)) {
			i++;
			continue;
		}
		/* The fabric's still: it alone holds it now. */
		if (ps->v[idx].evpn) {
			ps->v[idx].evpn_only = true;
			i++;
			continue;
		}
		port_forget_peer(port, idx);
		n++;
	}
	return n;
}

/*
 * The peer at a is also configured or added by hand: no longer the
 * fabric's alone, it stays when the fabric lets it go.
 */
static void port_peer_taken(struct port *port, const struct ipaddr *a)
{
	int idx = peers_find(&port->peers, (const uint8_t *)&a->addr);

	if (idx >= 0)
		port->peers.v[idx].evpn_only = false;
}

/* The peers cfg has that are not live yet. */
static unsigned int port_new_peers(struct port *port, const struct config *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->n_remotes; i++) {
		int r = peers_add(&port->peers, &c->remotes[i]);

		if (r == -EEXIST)
			port_peer_taken(port, &c->remotes[i]);
		n += r >= 0;
	}
	return n;
}

/* Read the peers file into cfg; 0, or -errno with the reason logged. */
static int port_read_peers(struct port *port, struct config *cfg)
{
	char why[320];
	FILE *file;
	int err;

	file = peersfile_open(port->peers_dir, port->peers_name, why,
				  sizeof(why));
	if (!file) {
		log_warn("cannot read %s: %s: peers unchanged",
			 cfg->peers_file, why);
		return -EIO;
	}
	err = peersfile_load(cfg, file, why, sizeof(why));
	fclose(file);
	if (err)
		log_warn("%s: %s: peers unchanged", cfg->peers_file, why);
	return err;
}

/* A copy of n elements of size bytes at src (at least a byte), or NULL. */
static void *port_copy(const void *src, size_t n, size_t size)
{
	void *p = malloc(n * size + 1);

	if (p && n)
		memcpy(p, src, n * size);
	return p;
}

/*
 * What the reload left of the tables, said as one line; no peer at all
 * as a warning, since the tunnel then carries nothing.
 */
static void port_reload_said(const struct port *port, unsigned int added,
			     unsigned int gone)
{
	const struct device *main = port->dev[0];
	unsigned int n, peers = port->peers.n;

	if (!peers) {
		log_warn("%s: 0 peers (%u gone): %s holds none, what the %s "
			 "sends is dropped (tx_drop_no_peer)", main->s.ifname,
			 gone, port->cfg->peers_file,
			 main->s.encap.l3 ? "tun" : "tap");
		return;
	}
	if (main->s.encap.l3) {
		n = route_count(&main->s.routes);
		log_info("%s: %u peer%s (%u new, %u gone), %u route%s",
			 main->s.ifname, peers, peers == 1 ? "" : "s", added,
			 gone, n, n == 1 ? "" : "s");
		return;
	}
	n = fdb_count_static(&main->s.fdb);
	log_info("%s: %u peer%s (%u new, %u gone), %u static fdb entr%s",
		 main->s.ifname, peers, peers == 1 ? "" : "s", added, gone, n,
		 n == 1 ? "y" : "ies");
}

void port_reload(struct port *port)
{
	struct device *main = port->dev[0];
	struct config *cfg = port->cfg;
	unsigned int n_old = cfg->n_fdb, n_old_routes = cfg->n_routes;
	struct config_fdb *old = port_copy(cfg->fdb, n_old, sizeof(*old));
	struct config_route *old_routes =
		port_copy(cfg->routes, n_old_routes, sizeof(*old_routes));
	unsigned int gone, added, i;
	bool partial = false, partial_routes = false;

	if (!old || !old_routes) {
		log_warn("out of memory: peers unchanged");
		goto out;
	}
	if (port_read_peers(port, cfg))
		goto out;
	port_quiesce(port);
	gone = port_remove_peers(port, cfg);
	added = port_new_peers(port, cfg);
	for (i = 0; i < port->n_dev; i++) {
		partial |= fwd_replace_static(port->dev[i], old, n_old) != 0;
		partial_routes |= fwd_replace_routes(port->dev[i], old_routes,
						     n_old_routes) != 0;
	}
	path_peers_changed(main);
	if (partial)
		log_warn("%s: not every fdb entry was taken", cfg->peers_file);
	if (partial_routes)
		log_warn("%s: not every route was taken", cfg->peers_file);
	port_reload_said(port, added, gone);
out:
	free(old);
	free(old_routes);
}

int port_peer_add(struct port *port, const struct ipaddr *a)
{
	int r;

	/* Connected only without a control socket (underlay_init()). */
	BUG_ON(port->ul[0].connected);
	r = peers_add(&port->peers, a);
	if (r == -EEXIST && a->family == port->peers.family) {
		int idx = peers_find(&port->peers, (const uint8_t *)&a->addr);

		/* The fabric's alone: now by hand too, it stays after. */
		if (idx >= 0 && port->peers.v[idx].evpn_only) {
			port->peers.v[idx].evpn_only = false;
			return 0;
		}
	}
	if (r < 0)
		return r;
	path_peers_changed(port->dev[0]);
	return 0;
}

/*
 * May the fabric make one more peer? Its VTEPs alone hold at most
 * --evpn-vteps of the slots, so that a fabric that names
 * thousands leaves room for the peers of the configuration and `peer
 * add`.
 */
static bool port_fabric_room(const struct port *port)
{
	const struct peers *ps = &port->peers;
	unsigned int i, n = 0;

	for (i = 0; i < ps->n; i++)
		n += ps->v[ps->live[i]].evpn_only;
	return n < (unsigned long)ps->cap * port->cfg->evpn_vteps / 100;
}

int port_peer_hold(struct port *port, const struct ipaddr *a)
{
	struct peers *ps = &port->peers;
	int idx = -EINVAL;
	bool made = false;

	if (a->family == ps->family)
		idx = peers_find(ps, (const uint8_t *)&a->addr);
	if (idx == -ENOENT && !port_fabric_room(port))
		return -ENOSPC;
	if (idx == -ENOENT) {
		idx = peers_add(ps, a);
		made = idx >= 0;
	}
	if (idx < 0)
		return idx;
	if (!ps->v[idx].evpn)
		ps->v[idx].evpn_only = made;
	ps->v[idx].evpn = true;
	if (made)
		path_peers_changed(port->dev[0]);
	return idx;
}

void port_peer_release(struct port *port, unsigned int idx)
{
	struct peer *e = &port->peers.v[idx];

	if (!e->live || !e->evpn)
		return;
	e->evpn = false;
	e->flood = 0;
	if (!e->evpn_only)
		return;
	port_quiesce(port);
	port_forget_peer(port, idx);
	path_peers_changed(port->dev[0]);
}

int port_peer_del(struct port *port, const struct ipaddr *a)
{
	struct peers *ps = &port->peers;
	int idx = -ENOENT;

	if (a->family == ps->family)
		idx = peers_find(ps, (const uint8_t *)&a->addr);
	if (idx < 0)
		return -ENOENT;
	if (ps->v[idx].evpn)
		return -EPERM;
	BUG_ON(port->ul[0].connected);
	port_quiesce(port);
	port_forget_peer(port, (unsigned int)idx);
	path_peers_changed(port->dev[0]);
	return 0;
}

/* The times and drops of lane l's counts of a peer, into sum. */
static void port_peer_sum_lane(struct peer_sum *sum, const struct lane_peer *l)
{
	unsigned int j;

	if (l->rx_last_ns > sum->rx_last_ns)
		sum->rx_last_ns = l->rx_last_ns;
	if (l->rx_ok_ns > sum->rx_ok_ns)
		sum->rx_ok_ns = l->rx_ok_ns;
	for (j = 0; j < PEER_DROPS; j++)
		sum->drop[j] += l->drop[j];
	if (l->drop_ns && l->drop_ns >= sum->drop_ns) {
		sum->drop_ns = l->drop_ns;
		sum->drop_why = (enum drop)l->drop_why;
		sum->drop_has_id = l->drop_has_id;
		sum->drop_id = l->drop_id;
	}
}

void port_peer_sum(const struct port *port, const struct peer *e,
		   struct peer_sum *sum)
{
	size_t slot = (size_t)(e - port->peers.v);
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	sum->st = e->st;
	for (i = 0; i < port->n_lanes; i++) {
		const struct lane_peer *l = &port->lane[i].peer[slot];

#define PEER_SUM(name, help) sum->st.name += l->st.name;
		PEER_STATS_LIST(PEER_SUM)
#undef PEER_SUM
		port_peer_sum_lane(sum, l);
	}
}

int port_init_lanes(struct port *port, unsigned int n)
{
	unsigned int i;
	int err = 0;

	port->n_lanes = n;
	for (i = 0; !err && i < n; i++) {
		struct lane *l = &port->lane[i];

		err = lane_init(l, i, CONFIG_MAX_PEERS);
		/* Closed by underlay_close() whether opened or not. */
		port->ul[i].fd = port->ul[i].fd_df = -1;
		port->ul[i].fd_nocsum = -1;
		l->ring = &port->ring[i];
		l->done = queue_done;
		l->ul = &port->ul[i];
		l->owner = port;
	}
	return err;
}

void port_free_lanes(struct port *port)
{
	unsigned int i;

	for (i = 0; i < port->n_lanes; i++)
		lane_free(&port->lane[i]);
}
