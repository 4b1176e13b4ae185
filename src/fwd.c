// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fwd: which peers a frame from the tap goes to, and what frames from the
 * peers teach about where MACs live (the kernel's vxlan_xmit() and
 * vxlan_snoop()).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "clock.h"
#include "fwd.h"
#include "log.h"
#include "peersfile.h"
#include "tunnel.h"

/* Seconds between sweeps of aged entries (vxlan's FDB_AGE_INTERVAL). */
#define FWD_AGE_INTERVAL 10.0

/* A source learnt this recently is not looked up again (ns). */
#define FWD_RELEARN_NS 1000000000ull

/* A peer at its share of the table: said once a minute at most (ns). */
#define FWD_SHARE_WARN_NS (60 * 1000000000ull)
/* A MAC that moved: said once a second at most, as net_ratelimit() (ns). */
#define FWD_MOVE_WARN_NS 1000000000ull

int fwd_peers_open(struct port *port, const struct config *c)
{
	unsigned int i;
	int err;

	err = peers_init(&port->peers, CONFIG_MAX_PEERS, c->family,
			 encap_is_udp(c->encap.type) ? c->port : 0);
	for (i = 0; !err && i < c->n_remotes; i++) {
		int r = peers_add(&port->peers, &c->remotes[i]);

		err = r < 0 ? r : 0;
	}
	if (err)
		log_err_ret(err, "cannot set up the peers");
	return err;
}

/* Is --fdb e one of t's: one for every tap, or for t's name? */
static bool fwd_fdb_of(const struct tunnel *t, const struct config_fdb *e)
{
	return !e->dev[0] || !strcmp(e->dev, t->dev);
}

/* The --fdb entries, each naming a peer (options_check_fdb()). */
static int fwd_add_static(struct tunnel *t)
{
	const struct config *c = t->cfg;
	unsigned int i;

	for (i = 0; i < c->n_fdb; i++) {
		const struct config_fdb *e = &c->fdb[i];
		const uint8_t *addr = (const uint8_t *)&e->peer.addr;
		int peer = peers_find(t->peers, addr), err = peer;

		if (!fwd_fdb_of(t, e))
			continue;
		if (peer >= 0)
			err = fdb_add_static(&t->fwd.fdb, e->mac, e->vlan,
					     (unsigned int)peer);
		if (err) {
			log_err_ret(err, "cannot add forwarding entry %u", i);
			return err;
		}
	}
	return 0;
}

/* Whom but root st lets write: its owner, its group, anyone; or NULL. */
static const char *fwd_writer(const struct stat *st, char *buf, size_t len)
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
static void fwd_say_writable(const char *path)
{
	char *dir = strdup(path), buf[40];
	struct stat st, dst;
	const char *who;

	if (!dir || stat(path, &st))
		goto out;
	who = fwd_writer(&st, buf, sizeof(buf));
	if (who) {
		log_warn("--peers %s may be written by %s, not only root: "
			 "whoever writes it chooses the peers", path, who);
		goto out;
	}
	*strrchr(dir, '/') = '\0';
	if (stat(dir[0] ? dir : "/", &dst))
		goto out;
	who = fwd_writer(&dst, buf, sizeof(buf));
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
static int fwd_open_peers_dir(struct fwd *f, const struct config *c)
{
	const char *slash = strrchr(c->peers_file, '/');
	char *dir;

	if (c->peers_in_root) {
		f->peers_dir = AT_FDCWD;
		f->peers_name = c->peers_in_root;
		return 0;
	}
	dir = strndup(c->peers_file,
		      slash == c->peers_file ? 1
					     : (size_t)(slash - c->peers_file));
	f->peers_dir = -1;
	f->peers_name = slash + 1;
	if (!dir) {
		log_err("out of memory");
		return -ENOMEM;
	}
	f->peers_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (f->peers_dir < 0)
		log_err_errno("cannot open %s, the directory of --peers", dir);
	free(dir);
	return f->peers_dir < 0 ? -errno : 0;
}

/*
 * The source learnt last (fwd_learnt_just_now()) may name what changed:
 * the next frame from it is learnt again.
 */
static void fwd_forget_last(struct fwd *f)
{
	f->last_peer = -1;
}

int fwd_open(struct tunnel *t)
{
	struct fwd *f = &t->fwd;
	uint64_t seed;
	int err;

	f->learning = t->cfg->learning;
	fwd_forget_last(f);
	f->peers_dir = -1;
	/* The main tunnel reads the file again for all (fwd_reload()). */
	if (t->cfg->peers_file && !t->idx) {
		fwd_say_writable(t->cfg->peers_file);
		err = fwd_open_peers_dir(f, t->cfg);
		if (err)
			return err;
	}
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed)) {
		log_err_errno("getrandom");
		return -EIO;
	}
	err = fdb_init(&f->fdb, t->cfg->max_address, CONFIG_MAX_FDB,
		       t->peers->cap, (uint64_t)t->cfg->ageing * 1000000000u,
		       seed);
	if (err) {
		log_err_ret(err, "cannot set up the forwarding table");
		return err;
	}
	return fwd_add_static(t);
}

void fwd_close(struct tunnel *t)
{
	if (t->fwd.peers_dir >= 0)
		close(t->fwd.peers_dir);
	t->fwd.peers_dir = -1;
	fdb_free(&t->fwd.fdb);
}

/* Is a in cfg's peers? */
static bool fwd_configured(const struct config *c, const struct ipaddr *a)
{
	unsigned int i;

	for (i = 0; i < c->n_remotes; i++)
		if (optvalue_ip_equal(&c->remotes[i], a))
			return true;
	return false;
}

/* Messages in flight name peers by their slots' addresses: done first. */
static void fwd_quiesce(struct port *port)
{
	unsigned int i;

	for (i = 0; i < port->n_tun; i++)
		tx_quiesce(port->tun[i]);
}

/*
 * The peer in slot idx gone, with every tunnel's entries to it and the
 * source learnt last (which may name it); after fwd_quiesce().
 */
static void fwd_forget_peer(struct port *port, unsigned int idx)
{
	unsigned int j;

	for (j = 0; j < port->n_tun; j++) {
		fdb_del_peer(&port->tun[j]->fwd.fdb, idx);
		fwd_forget_last(&port->tun[j]->fwd);
	}
	peers_del(&port->peers, idx);
}

/* The live peers cfg no longer has: gone, with every tunnel's entries. */
static unsigned int fwd_remove_peers(struct port *port,
				     const struct config *c)
{
	struct peers *ps = &port->peers;
	unsigned int i = 0, n = 0;

	while (i < ps->n) {
		unsigned int idx = ps->live[i];

		if (fwd_configured(c, &ps->v[idx].addr)) {
			i++;
			continue;
		}
		fwd_forget_peer(port, idx);
		n++;
	}
	return n;
}

/* The peers cfg has that are not live yet. */
static unsigned int fwd_new_peers(struct tunnel *t)
{
	const struct config *c = t->cfg;
	unsigned int i, n = 0;

	for (i = 0; i < c->n_remotes; i++)
		n += peers_add(t->peers, &c->remotes[i]) >= 0;
	return n;
}

/* The static entries of old (n of them) out, cfg's in. */
static int fwd_replace_static(struct tunnel *t, const struct config_fdb *old,
			      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fwd_fdb_of(t, &old[i]))
			fdb_del(&t->fwd.fdb, old[i].mac, old[i].vlan);
	return fwd_add_static(t);
}

/* Read the peers file; 0, or -errno with the reason logged. */
static int fwd_read_peers(struct tunnel *t)
{
	struct fwd *f = &t->fwd;
	char why[160];
	FILE *file;
	int err;

	file = peersfile_open(f->peers_dir, f->peers_name, why, sizeof(why));
	if (!file) {
		log_warn("cannot read %s: %s: peers unchanged",
			 t->cfg->peers_file, why);
		return -EIO;
	}
	err = peersfile_load(t->cfg, file, why, sizeof(why));
	fclose(file);
	if (err)
		log_warn("%s: %s: peers unchanged", t->cfg->peers_file, why);
	return err;
}

void fwd_reload(struct tunnel *t)
{
	struct port *port = t->port;
	struct config_fdb *old;
	unsigned int n_old, gone, added, i, n;
	bool partial = false;

	n_old = t->cfg->n_fdb;
	old = malloc(n_old * sizeof(*old) + 1);
	if (!old) {
		log_warn("out of memory: peers unchanged");
		return;
	}
	if (n_old)
		memcpy(old, t->cfg->fdb, n_old * sizeof(*old));
	if (fwd_read_peers(t)) {
		free(old);
		return;
	}
	fwd_quiesce(port);
	gone = fwd_remove_peers(port, t->cfg);
	added = fwd_new_peers(t);
	for (i = 0; i < port->n_tun; i++) {
		struct tunnel *u = port->tun[i];

		partial |= fwd_replace_static(u, old, n_old) != 0;
		fwd_forget_last(&u->fwd);
	}
	path_peers_changed(t);
	if (partial)
		log_warn("%s: not every fdb entry was taken",
			 t->cfg->peers_file);
	free(old);
	n = fdb_count_static(&t->fwd.fdb);
	log_info("%s: %u peer%s (%u new, %u gone), %u static fdb entr%s",
		 t->ifname, t->peers->n, t->peers->n == 1 ? "" : "s", added,
		 gone, n, n == 1 ? "y" : "ies");
}

/*
 * A peer more, at run time (gsotunctl peer add): it takes flooded frames
 * at once. It lasts until a reload of --peers, which keeps the file's.
 */
int fwd_peer_add(struct port *port, const struct ipaddr *a)
{
	int r;

	if (port->ul.connected)
		return -EISCONN;
	r = peers_add(&port->peers, a);
	if (r < 0)
		return r;
	path_peers_changed(port->tun[0]);
	return 0;
}

/* The peer at a gone, with its forwarding entries; not the last one. */
int fwd_peer_del(struct port *port, const struct ipaddr *a)
{
	struct peers *ps = &port->peers;
	int idx = -ENOENT;

	if (a->family == ps->family)
		idx = peers_find(ps, (const uint8_t *)&a->addr);
	if (idx < 0)
		return -ENOENT;
	if (ps->n == 1)
		return -EBUSY;
	fwd_quiesce(port);
	fwd_forget_peer(port, (unsigned int)idx);
	path_peers_changed(port->tun[0]);
	return 0;
}

int fwd_fdb_add(struct tunnel *t, const struct config_fdb *e)
{
	int peer = -ENOENT;

	if (e->peer.family == t->peers->family)
		peer = peers_find(t->peers, (const uint8_t *)&e->peer.addr);
	if (peer < 0)
		return peer;
	fwd_forget_last(&t->fwd);
	return fdb_add_static(&t->fwd.fdb, e->mac, e->vlan,
			      (unsigned int)peer);
}

int fwd_fdb_del(struct tunnel *t, const uint8_t *mac, uint16_t vlan)
{
	fwd_forget_last(&t->fwd);
	return fdb_del(&t->fwd.fdb, mac, vlan);
}

static void fwd_age_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct tunnel *t = w->data;

	fdb_age(&t->fwd.fdb, clock_now_ns());
}

/*
 * Several peers and nothing to tell them apart: head-end replication of
 * every frame, which the kernel's vxlan does silently. Said at start.
 */
static void fwd_say_flooding(const struct tunnel *t)
{
	const struct fwd *f = &t->fwd;

	if (t->peers->n < 2 || f->learning || fdb_count_static(&f->fdb))
		return;
	log_warn("%s: %u peers, and no --learning nor --fdb entry: every "
		 "frame is sent to every peer (give --learning, or --fdb "
		 "entries for the MACs behind each peer)", t->ifname,
		 t->peers->n);
}

void fwd_watch(struct tunnel *t)
{
	struct fwd *f = &t->fwd;

	fwd_say_flooding(t);
	if (!f->learning || !t->cfg->ageing)
		return;
	ev_timer_init(&f->age_w, fwd_age_cb, FWD_AGE_INTERVAL,
		      FWD_AGE_INTERVAL);
	f->age_w.data = t;
	ev_timer_start(t->loop, &f->age_w);
}

int fwd_dest(struct tunnel *t, const uint8_t *frame, size_t len)
{
	struct fwd *f = &t->fwd;
	int peer;

	/* One peer: where everything goes, as point to point always did. */
	if (t->peers->n == 1)
		return (int)t->peers->live[0];
	if (len < ETH_HLEN || (frame[0] & 1))
		return FWD_FLOOD;
	if (!fdb_count_static(&f->fdb) && !fdb_count_learnt(&f->fdb))
		return FWD_FLOOD;
	peer = fdb_lookup(&f->fdb, frame, fdb_frame_vlan(frame, len),
			  clock_now_ns());
	return peer < 0 ? FWD_FLOOD : peer;
}

/* A source MAC and VLAN from peer learnt less than a second ago. */
static bool fwd_learnt_just_now(const struct fwd *f, const uint8_t *mac,
				uint16_t vlan, int peer, uint64_t now)
{
	return peer == f->last_peer && vlan == f->last_vlan &&
	       now - f->last_ns < FWD_RELEARN_NS &&
	       !memcmp(mac, f->last_mac, ETH_ALEN);
}

/* The address of the peer in slot idx, as text in buf. */
static const char *fwd_peer_name(const struct tunnel *t, unsigned int idx,
				 char *buf, size_t len)
{
	const struct ipaddr *a = &t->peers->v[idx].addr;

	return inet_ntop(a->family, &a->addr, buf, len) ? buf : "?";
}

/* " (and N more since)" when N were held back, else "". */
static const char *fwd_held(unsigned long held, char *buf, size_t len)
{
	buf[0] = '\0';
	if (held)
		snprintf(buf, len, " (and %lu more since)", held);
	return buf;
}

/*
 * The peer in slot peer holds its share of a full table: its new MACs
 * take the place of its oldest (fdb_learn()). Said, naming it.
 */
static void fwd_say_share(struct tunnel *t, unsigned int peer, uint64_t now)
{
	char addr[INET6_ADDRSTRLEN], more[40];
	unsigned long held;

	if (!log_limit_take(&t->fwd.share_warn, now, FWD_SHARE_WARN_NS, &held))
		return;
	log_warn("%s: peer %s holds its share of the forwarding table (%u "
		 "of %u learnt entries, --max-address): each new source MAC "
		 "from it replaces its oldest%s", t->ifname,
		 fwd_peer_name(t, peer, addr, sizeof(addr)),
		 fdb_count_peer(&t->fwd.fdb, peer), t->cfg->max_address,
		 fwd_held(held, more, sizeof(more)));
}

/*
 * mac on vlan, behind the peer in slot from, was seen behind peer: it
 * moved, as the kernel's vxlan_snoop() says "migrated".
 */
static void fwd_say_moved(struct tunnel *t, const uint8_t *mac, uint16_t vlan,
			  int from, unsigned int peer, uint64_t now)
{
	char old[INET6_ADDRSTRLEN] = "?", new[INET6_ADDRSTRLEN];
	char text[MAC_TEXT_LEN], more[40];
	unsigned long held;

	if (!log_limit_take(&t->fwd.move_warn, now, FWD_MOVE_WARN_NS, &held))
		return;
	if (from >= 0)
		fwd_peer_name(t, (unsigned int)from, old, sizeof(old));
	log_info("%s: %s (VLAN %u) moved from peer %s to peer %s%s",
		 t->ifname, mac_ntoa(mac, text), vlan, old,
		 fwd_peer_name(t, peer, new, sizeof(new)),
		 fwd_held(held, more, sizeof(more)));
}

/*
 * The learning of mac on vlan from peer, counted and said. A source that
 * could not be learnt is not tried again for a second either
 * (fwd_learnt_just_now()).
 */
static enum drop fwd_learn_mac(struct tunnel *t, const uint8_t *mac,
			       uint16_t vlan, unsigned int peer, uint64_t now)
{
	int before;

	switch (fdb_learn(&t->fwd.fdb, mac, vlan, peer, now, &before)) {
	case FDB_LEARN_NEW:
		t->st.rx_learnt++;
		break;
	case FDB_LEARN_REPLACED:
		t->st.rx_learnt++;
		t->st.rx_learn_replaced++;
		fwd_say_share(t, peer, now);
		break;
	case FDB_LEARN_EVICTED:
		t->st.rx_learnt++;
		t->st.rx_learn_evicted++;
		break;
	case FDB_LEARN_MOVED:
		t->st.rx_learn_moved++;
		fwd_say_moved(t, mac, vlan, before, peer, now);
		break;
	case FDB_LEARN_REFRESHED:
		break;
	case FDB_LEARN_STATIC:
		/* Fixed to another peer: a frame that claims it is dropped. */
		if (before != (int)peer)
			return DROP_RX_MAC_STATIC;
		break;
	case FDB_LEARN_FULL:
		t->st.rx_learn_full++;
		return DROP_NONE;
	case FDB_LEARN_INVALID:
		return DROP_NONE;
	}
	return DROP_NONE;
}

enum drop fwd_learn(struct tunnel *t, int peer, const uint8_t *frame,
		    size_t len)
{
	struct fwd *f = &t->fwd;
	const uint8_t *mac = frame + ETH_ALEN;
	enum drop why;
	uint16_t vlan;
	uint64_t now;

	if (len < ETH_HLEN)
		return DROP_NONE;
	/* As vxlan_set_mac(): a loop, or a peer that claims to be us. */
	if (!memcmp(mac, t->mac, ETH_ALEN))
		return DROP_RX_MAC_OWN;
	if (!f->learning)
		return DROP_NONE;
	if (peer < 0) {
		t->st.rx_learn_not_peer++;
		return DROP_NONE;
	}
	vlan = fdb_frame_vlan(frame, len);
	now = clock_now_ns();
	if (fwd_learnt_just_now(f, mac, vlan, peer, now))
		return DROP_NONE;
	why = fwd_learn_mac(t, mac, vlan, (unsigned int)peer, now);
	if (why)
		return why;
	memcpy(f->last_mac, mac, ETH_ALEN);
	f->last_vlan = vlan;
	f->last_peer = peer;
	f->last_ns = now;
	return DROP_NONE;
}

