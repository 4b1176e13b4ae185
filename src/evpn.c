// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evpn: the shadow devices zebra reads for each tap, kept in step with
 * the tap: its local MACs written on the shadow bridge, the remote MACs
 * and flood list zebra installs on the shadow vxlan device taken as the
 * tap's forwarding entries and peers. As OVN's EVPN support keeps a
 * kernel bridge and vxlan device per VNI "maintained for the routing
 * daemon" beside a datapath of its own.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <linux/neighbour.h>
#include "clock.h"
#include "device.h"
#include "evpn.h"
#include "fdb.h"
#include "link.h"
#include "log.h"
#include "port.h"

/* Seconds between sweeps of local MACs aged out (as vxlan_cleanup()). */
#define EVPN_AGE_INTERVAL 10.0
/* A dump that could not be asked for is asked again after (s). */
#define EVPN_RESYNC_RETRY 1.0
/* A refused entry (own VTEP, table full) is said once a minute at most. */
#define EVPN_WARN_NS (60 * 1000000000ull)
/*
 * A local MAC seen in the last 5 s is here (the queues hand an active
 * source up every second): the fabric's entry of it is where it came
 * from, which zebra leaves on the vxlan device after a move.
 */
#define EVPN_LOCAL_FRESH_NS (5 * 1000000000ull)
/* A VTEP that comes or goes: said once a second at most. */
#define EVPN_SAY_NS 1000000000ull

/* One tap's shadow devices and what the fabric said of its VNI. */
struct evpn_dev {
	struct device *d;
	char br[IF_NAMESIZE], vx[IF_NAMESIZE], vp[IF_NAMESIZE],
		vq[IF_NAMESIZE];
	unsigned int br_if, vx_if, vp_if, vq_if;
	bool made_br, made_vx, made_veth;	/* deleted at exit */
	/*
	 * The tap's local MACs, written on vp: learnt entries of one
	 * peer, 0, which never age in the table (ageing_ns 0): evpn_age()
	 * ages them, as it must delete each from the bridge too.
	 */
	struct fdb local;
	/* Fabric entries set aside for local MACs: read again when they go. */
	bool shadowed;
	/* Flood entries by peer slot: the dump that last said it; 0 none. */
	uint32_t flood_gen[CONFIG_MAX_PEERS];
};

struct evpn {
	struct port *port;
	struct ev_loop *loop;
	struct link *link;		/* requests */
	struct link_watch *watch;	/* RTNLGRP_NEIGH */
	ev_io watch_w;
	ev_timer age_w;
	ev_timer resync_w;		/* a dump asked for again */
	uint32_t gen;			/* of the last dump asked for; not 0 */
	bool dumping, again;
	bool dump_lost;			/* notifications lost during it */
	/* Fabric entries (MACs, flood) naming each peer slot, every tap. */
	uint32_t refs[CONFIG_MAX_PEERS];
	struct log_limit own_warn, full_warn, link_warn, lost_warn;
	struct log_limit vtep_say;
	struct evpn_dev dev[CONFIG_MAX_TUNNELS];
	unsigned int n_dev;
};

/*
 * A VTEP that comes or goes is said, once a second at most (a route
 * that flaps would say it every time), with how many were held back.
 */
static void evpn_say_vtep(struct evpn *e, unsigned int idx, bool comes)
{
	const struct peer *pe = &e->port->peers.v[idx];
	char addr[INET6_ADDRSTRLEN] = "?", more[40] = "";
	unsigned long held;

	if (!log_limit_take(&e->vtep_say, clock_now_ns(), EVPN_SAY_NS, &held))
		return;
	if (held)
		snprintf(more, sizeof(more), " (and %lu more since)", held);
	inet_ntop(pe->addr.family, &pe->addr.addr, addr, sizeof(addr));
	log_info("evpn: VTEP %s %s%s", addr,
		 comes ? "named by the fabric: a peer" :
		 pe->evpn_only ? "withdrawn: no longer a peer" :
				 "withdrawn: a configured peer still", more);
}

/* One more fabric entry names the peer in slot idx. */
static void evpn_ref(struct evpn *e, unsigned int idx)
{
	if (!e->refs[idx]++)
		evpn_say_vtep(e, idx, true);
}

/* One fewer: the fabric lets the peer go with its last. */
static void evpn_unref(struct evpn *e, unsigned int idx)
{
	if (e->refs[idx] && --e->refs[idx])
		return;
	evpn_say_vtep(e, idx, false);
	port_peer_release(e->port, idx);
}

/* A peer held for an entry that was not taken after all. */
static void evpn_drop_hold(struct evpn *e, unsigned int idx)
{
	if (!e->refs[idx])
		port_peer_release(e->port, idx);
}

static struct evpn_dev *evpn_dev_of_vx(struct evpn *e, unsigned int ifindex)
{
	unsigned int i;

	for (i = 0; i < e->n_dev; i++)
		if (e->dev[i].vx_if == ifindex)
			return &e->dev[i];
	return NULL;
}

/* Said at most once a minute, with how many were held back. */
static void evpn_warn(struct log_limit *l, const char *ifname,
		      const char *what, const char *detail)
{
	unsigned long held;

	char more[40] = "";

	if (!log_limit_take(l, clock_now_ns(), EVPN_WARN_NS, &held))
		return;
	if (held)
		snprintf(more, sizeof(more), " (and %lu more since)", held);
	log_warn("%s: fabric entry %s not taken: %s%s", ifname, what, detail,
		 more);
}

/* The entry as text for a warning: "MAC dst VTEP". */
static const char *evpn_entry_text(const struct link_fdb *f, char *buf,
				   size_t len)
{
	char mac[MAC_TEXT_LEN], addr[INET6_ADDRSTRLEN] = "?";

	inet_ntop(f->dst.family, &f->dst.addr, addr, sizeof(addr));
	snprintf(buf, len, "%s dst %s", mac_ntoa(f->mac, mac), addr);
	return buf;
}

static bool evpn_mac_zero(const uint8_t *mac)
{
	static const uint8_t zero[MAC_LEN];

	return !memcmp(mac, zero, MAC_LEN);
}

/*
 * A VTEP the fabric names that cannot be a peer: gsotun's own address
 * (a loop: every flooded frame would come back), of the other family.
 */
static bool evpn_vtep_refused(struct evpn *e, struct evpn_dev *v,
			      const struct link_fdb *f)
{
	const struct config *c = e->port->cfg;
	char text[80];

	if (f->dst.family != c->family)
		return true;
	if (!optvalue_ip_equal(&f->dst, &c->local))
		return false;
	/* Its deletion is no news: counted and said when it came. */
	if (f->del)
		return true;
	v->d->st.evpn_own_vtep++;
	evpn_warn(&e->own_warn, v->d->s.ifname,
		  evpn_entry_text(f, text, sizeof(text)),
		  "the VTEP is our own --local (a loop in the fabric?)");
	return true;
}

/* The VTEP of a type-3 route on the tap's flood list, or off it. */
static void evpn_flood(struct evpn *e, struct evpn_dev *v,
		       const struct link_fdb *f)
{
	struct peers *ps = &e->port->peers;
	int idx = -ENOENT;

	if (f->del) {
		idx = peers_find(ps, (const uint8_t *)&f->dst.addr);
		if (idx < 0 || !v->flood_gen[idx])
			return;
		v->flood_gen[idx] = 0;
		ps->v[idx].flood &= (uint16_t)~(1u << v->d->idx);
		evpn_unref(e, (unsigned int)idx);
		return;
	}
	idx = port_peer_hold(e->port, &f->dst);
	if (idx < 0) {
		v->d->st.evpn_remote_full++;
		evpn_warn(&e->full_warn, v->d->s.ifname, "flood entry",
			  "no room for another peer");
		return;
	}
	if (!v->flood_gen[idx])
		evpn_ref(e, (unsigned int)idx);
	v->flood_gen[idx] = e->gen;
	ps->v[idx].flood |= (uint16_t)(1u << v->d->idx);
}

static int evpn_local_write(struct evpn *e, struct evpn_dev *v,
			    const uint8_t *mac, bool add);

/*
 * Is the MAC of a fabric's entry one of the tap's (seen of late)? Then
 * the entry is set aside: it says where the MAC was before it came
 * here (MAC mobility: zebra advertises it from here with a higher
 * sequence number, RFC 7432 section 15, and leaves the old entry on the
 * vxlan device). One not seen of late has moved away: no longer local.
 */
static bool evpn_remote_is_local(struct evpn *e, struct evpn_dev *v,
				 const uint8_t *mac)
{
	uint64_t age;

	if (fdb_lookup_learnt(&v->local, mac, 0, clock_now_ns(), &age) < 0)
		return false;
	if (age < EVPN_LOCAL_FRESH_NS) {
		v->d->st.evpn_remote_local++;
		v->shadowed = true;
		return true;
	}
	fdb_del(&v->local, mac, 0);
	evpn_local_write(e, v, mac, false);
	v->d->st.evpn_local_moved++;
	return false;
}

/* A remote MAC of the tap's VNI behind the VTEP f names. */
static void evpn_remote_add(struct evpn *e, struct evpn_dev *v,
			    const struct link_fdb *f)
{
	struct fdb *t = &v->d->s.fdb;
	struct stats *st = &v->d->st;
	int idx, before, err;
	char text[80];

	if (evpn_remote_is_local(e, v, f->mac))
		return;

	/* Bounded as learnt entries are: --max-address. */
	if (fdb_lookup_static(t, f->mac, 0) < 0 &&
	    fdb_count_evpn(t) >= v->d->s.cfg->max_address) {
		st->evpn_remote_full++;
		evpn_warn(&e->full_warn, v->d->s.ifname,
			  evpn_entry_text(f, text, sizeof(text)),
			  "--max-address remote MACs held");
		return;
	}
	idx = port_peer_hold(e->port, &f->dst);
	if (idx < 0) {
		st->evpn_remote_full++;
		evpn_warn(&e->full_warn, v->d->s.ifname,
			  evpn_entry_text(f, text, sizeof(text)),
			  "no room for another peer");
		return;
	}
	err = fdb_add_evpn(t, f->mac, 0, (unsigned int)idx, e->gen, &before);
	if (err) {
		if (err == -EEXIST)
			st->evpn_remote_fixed++;
		else
			st->evpn_remote_full++;
		evpn_drop_hold(e, (unsigned int)idx);
		return;
	}
	if (before == idx)
		return;
	evpn_ref(e, (unsigned int)idx);
	if (before < 0) {
		st->evpn_remote_added++;
		return;
	}
	/* Moved (MAC mobility, RFC 7432 section 15): the old VTEP's ref. */
	st->evpn_remote_moved++;
	evpn_unref(e, (unsigned int)before);
}

/*
 * A remote MAC withdrawn: gone from the table if it is still behind the
 * VTEP the deletion names (after a move, the older VTEP's entry may be
 * deleted after the new one came).
 */
static void evpn_remote_del(struct evpn *e, struct evpn_dev *v,
			    const struct link_fdb *f)
{
	struct fdb *t = &v->d->s.fdb;
	int idx, peer;

	idx = peers_find(&e->port->peers, (const uint8_t *)&f->dst.addr);
	if (idx < 0 || fdb_lookup_static(t, f->mac, 0) != idx)
		return;
	peer = fdb_del_evpn(t, f->mac, 0);
	if (peer < 0)
		return;
	v->d->st.evpn_remote_removed++;
	evpn_unref(e, (unsigned int)peer);
}

/*
 * An entry of the watch: those of a shadow vxlan device with a VTEP
 * (zebra's, `self extern_learn dst VTEP`), not the bridge's own.
 */
static void evpn_entry(void *ctx, const struct link_fdb *f)
{
	struct evpn *e = ctx;
	struct evpn_dev *v = evpn_dev_of_vx(e, f->ifindex);

	if (!v || !f->dst.family || evpn_vtep_refused(e, v, f))
		return;
	if (evpn_mac_zero(f->mac))
		evpn_flood(e, v, f);
	else if (f->mac[0] & 0x01)
		return;
	else if (f->del)
		evpn_remote_del(e, v, f);
	else
		evpn_remote_add(e, v, f);
}

/* What a sweep of one tap's table needs to let each gone entry's peer go. */
struct evpn_sweep {
	struct evpn *e;
	struct evpn_dev *v;
};

/* A remote MAC the dump no longer had: its peer's ref. */
static void evpn_swept(void *ctx, unsigned int peer)
{
	struct evpn_sweep *w = ctx;

	w->v->d->st.evpn_remote_removed++;
	evpn_unref(w->e, peer);
}

/* The flood entries the dump of gen did not say, off the list. */
static void evpn_sweep_flood(struct evpn *e, struct evpn_dev *v)
{
	struct peers *ps = &e->port->peers;
	unsigned int i;

	for (i = 0; i < CONFIG_MAX_PEERS; i++) {
		if (!v->flood_gen[i] || v->flood_gen[i] == e->gen)
			continue;
		v->flood_gen[i] = 0;
		ps->v[i].flood &= (uint16_t)~(1u << v->d->idx);
		evpn_unref(e, i);
	}
}

static void evpn_resync(struct evpn *e);

/* The end of a dump: what it did not say is no more (mark and sweep). */
static void evpn_dumped(void *ctx)
{
	struct evpn *e = ctx;
	unsigned int i;

	if (!e->dumping)
		return;
	/*
	 * Notifications lost meanwhile: an entry added after the dump
	 * passed it is in neither, and would be swept. The next dump,
	 * asked for now, sweeps instead.
	 */
	for (i = 0; !e->dump_lost && i < e->n_dev; i++) {
		struct evpn_dev *v = &e->dev[i];
		struct evpn_sweep w = { .e = e, .v = v };

		fdb_sweep_evpn(&v->d->s.fdb, e->gen, evpn_swept, &w);
		evpn_sweep_flood(e, v);
	}
	e->dumping = false;
	e->dump_lost = false;
	if (e->again) {
		e->again = false;
		evpn_resync(e);
	}
}

/* Notifications were lost (the socket's buffer overran): read it all. */
static void evpn_lost(void *ctx)
{
	struct evpn *e = ctx;
	unsigned long held;
	char more[48] = "";

	if (log_limit_take(&e->lost_warn, clock_now_ns(), EVPN_WARN_NS,
			   &held)) {
		if (held)
			snprintf(more, sizeof(more), " (and %lu more times "
				 "since)", held);
		log_warn("%s: fabric notifications lost: reading the shadow "
			 "devices' tables again%s", e->dev[0].d->s.ifname,
			 more);
	}
	e->dump_lost |= e->dumping;
	evpn_resync(e);
}

static const struct link_fdb_ops evpn_ops = {
	.entry = evpn_entry,
	.dumped = evpn_dumped,
	.lost = evpn_lost,
};

/*
 * A dump of every forwarding entry, marked with a new generation:
 * what it and the notifications meanwhile say is marked so, and what is
 * not at its end goes (evpn_dumped()). One at a time on the socket.
 */
static void evpn_resync(struct evpn *e)
{
	if (e->dumping) {
		e->again = true;
		return;
	}
	if (!++e->gen)
		e->gen = 1;
	if (link_fdb_dump(e->watch)) {
		ev_timer_set(&e->resync_w, EVPN_RESYNC_RETRY, 0.);
		ev_timer_start(e->loop, &e->resync_w);
		return;
	}
	e->dumping = true;
	e->dev[0].d->st.evpn_resyncs++;
}

static void evpn_resync_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	evpn_resync(w->data);
}

static void evpn_watch_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct evpn *e = w->data;

	link_fdb_watch_read(e->watch, &evpn_ops, e);
}

/* Write (add) or delete a local MAC on the shadow bridge's port. */
static int evpn_local_write(struct evpn *e, struct evpn_dev *v,
			    const uint8_t *mac, bool add)
{
	char text[MAC_TEXT_LEN], more[40] = "";
	unsigned long held;
	int err = link_fdb_set(e->link, v->vp_if, mac, add);

	if (!err || !log_limit_take(&e->link_warn, clock_now_ns(),
				    EVPN_WARN_NS, &held))
		return err;
	if (held)
		snprintf(more, sizeof(more), " (and %lu more since)", held);
	log_warn("%s: cannot %s local MAC %s on %s%s", v->d->s.ifname,
		 add ? "write" : "delete", mac_ntoa(mac, text), v->vp, more);
	return err;
}

/*
 * A source of the tap's frames (device.c's local_seen): a local MAC,
 * written for zebra when new, its age restarted when known. VLANs are
 * not told apart: the shadow bridge has no VLAN filtering.
 */
static void evpn_local_seen(void *ctx, struct device *d, const uint8_t *mac,
			    uint16_t vlan, uint64_t now)
{
	struct evpn *e = ctx;
	struct evpn_dev *v = &e->dev[d->idx];
	int before;

	(void)vlan;
	if (fdb_lookup(&v->local, mac, 0, now) < 0 &&
	    fdb_count_learnt(&v->local) >= d->s.cfg->max_address) {
		d->st.evpn_local_full++;
		return;
	}
	if (fdb_learn(&v->local, mac, 0, 0, now, &before) != FDB_LEARN_NEW)
		return;
	if (evpn_local_write(e, v, mac, true)) {
		/* Tried again when a frame of it comes after a second. */
		fdb_del(&v->local, mac, 0);
		return;
	}
	d->st.evpn_local_added++;
	/* It came here: the fabric's entry of it is where it was. */
	before = fdb_del_evpn(&d->s.fdb, mac, 0);
	if (before >= 0) {
		d->st.evpn_remote_local++;
		v->shadowed = true;
		evpn_unref(e, (unsigned int)before);
	}
}

/*
 * Local MACs not seen for --ageing seconds: off the bridge, withdrawn.
 * Whether one went while fabric entries were set aside for local MACs:
 * they are read again (the MAC's entry may now hold).
 */
static bool evpn_age_dev(struct evpn *e, struct evpn_dev *v, uint64_t now)
{
	uint64_t ageing = (uint64_t)v->d->s.cfg->ageing * 1000000000u;
	unsigned int cursor = 0, aged = 0;
	struct fdb_entry x;

	while (fdb_next(&v->local, &cursor, now, &x)) {
		if (x.age_ns < ageing)
			continue;
		/* A removal may move a later entry back: seen next time. */
		fdb_del(&v->local, x.mac, 0);
		evpn_local_write(e, v, x.mac, false);
		v->d->st.evpn_local_aged++;
		aged++;
	}
	if (!aged || !v->shadowed)
		return false;
	v->shadowed = false;
	return true;
}

static void evpn_age_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct evpn *e = w->data;
	uint64_t now = clock_now_ns();
	unsigned int i;

	bool again = false;

	for (i = 0; i < e->n_dev; i++)
		again |= evpn_age_dev(e, &e->dev[i], now);
	if (again)
		evpn_resync(e);
}

/*
 * Make device s, or adopt the one of its name (made by an earlier run,
 * or by hand): *made says whether it goes at exit. Its ifindex, or 0.
 */
static unsigned int evpn_make(struct evpn *e, const struct link_spec *s,
			      bool *made)
{
	unsigned int ifindex;
	int err = link_add(e->link, s);

	*made = !err;
	if (err && err != -EEXIST)
		return 0;
	ifindex = if_nametoindex(s->name);
	if (!ifindex)
		log_err_errno("cannot find %s", s->name);
	else if (err == -EEXIST)
		log_info("evpn: adopted %s device %s", s->kind, s->name);
	return ifindex;
}

/* The tap's bridge, vxlan device and veth pair, made or adopted, up. */
static int evpn_dev_open(struct evpn *e, struct evpn_dev *v)
{
	const struct config *c = e->port->cfg;
	uint32_t vni = v->d->s.encap.vni;
	struct link_spec br = { .name = v->br, .kind = "bridge" };
	struct link_spec vx = { .name = v->vx, .kind = "vxlan", .vni = vni,
				.local = c->local, .port = c->evpn_port };
	struct link_spec vp = { .name = v->vp, .kind = "veth", .peer = v->vq };

	snprintf(v->br, sizeof(v->br), "gsbr%u", vni);
	snprintf(v->vx, sizeof(v->vx), "gsvx%u", vni);
	snprintf(v->vp, sizeof(v->vp), "gsp%u", vni);
	snprintf(v->vq, sizeof(v->vq), "gsq%u", vni);
	v->br_if = evpn_make(e, &br, &v->made_br);
	if (!v->br_if)
		return -EIO;
	vx.master = vp.master = v->br_if;
	v->vx_if = evpn_make(e, &vx, &v->made_vx);
	v->vp_if = v->vx_if ? evpn_make(e, &vp, &v->made_veth) : 0;
	v->vq_if = v->vp_if ? if_nametoindex(v->vq) : 0;
	if (!v->vq_if)
		return -EIO;
	/* zebra takes a VNI's vxlan device only when it is up. */
	if (link_set_up(e->link, v->br_if) || link_set_up(e->link, v->vx_if) ||
	    link_set_up(e->link, v->vp_if) || link_set_up(e->link, v->vq_if))
		return -EIO;
	log_info("%s: evpn VNI %u: shadow bridge %s, vxlan %s (port %u), "
		 "port %s", v->d->s.ifname, vni, v->br, v->vx, c->evpn_port,
		 v->vp);
	return 0;
}

/* The devices made, deleted: the veth with its peer, then vxlan, bridge. */
static void evpn_dev_close(struct evpn *e, struct evpn_dev *v)
{
	if (v->made_veth)
		link_del(e->link, v->vp_if);
	if (v->made_vx)
		link_del(e->link, v->vx_if);
	if (v->made_br)
		link_del(e->link, v->br_if);
	fdb_free(&v->local);
}

static int evpn_dev_init(struct evpn *e, struct evpn_dev *v,
			 struct device *d)
{
	uint64_t seed;
	int err;

	v->d = d;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed)) {
		log_err_errno("getrandom");
		return -EIO;
	}
	err = fdb_init(&v->local, d->s.cfg->max_address, 0, 1, 0, seed);
	if (err) {
		log_err_ret(err, "cannot set up the table of local MACs");
		return err;
	}
	err = evpn_dev_open(e, v);
	if (!err) {
		d->local_seen = evpn_local_seen;
		d->local_ctx = e;
	}
	return err;
}

static void evpn_watch(struct evpn *e)
{
	ev_io_init(&e->watch_w, evpn_watch_cb, link_watch_fd(e->watch),
		   EV_READ);
	e->watch_w.data = e;
	ev_io_start(e->loop, &e->watch_w);
	ev_init(&e->resync_w, evpn_resync_cb);
	e->resync_w.data = e;
	if (e->port->cfg->ageing) {
		ev_timer_init(&e->age_w, evpn_age_cb, EVPN_AGE_INTERVAL,
			      EVPN_AGE_INTERVAL);
		e->age_w.data = e;
		ev_timer_start(e->loop, &e->age_w);
	}
}

int evpn_open(struct evpn **out, struct port *port, struct ev_loop *loop)
{
	struct evpn *e;
	unsigned int i;
	int err = 0;

	*out = NULL;
	if (!port->cfg->evpn)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e) {
		log_err("out of memory");
		return -ENOMEM;
	}
	*out = e;
	e->port = port;
	e->loop = loop;
	e->link = link_open();
	e->watch = link_fdb_watch_open();
	if (!e->link || !e->watch)
		return -EIO;
	/* Counted first: evpn_close() deletes what a failed one made. */
	for (i = 0; !err && i < port->n_dev; i++, e->n_dev++)
		err = evpn_dev_init(e, &e->dev[i], port->dev[i]);
	if (err)
		return err;
	evpn_watch(e);
	evpn_resync(e);
	return 0;
}

void evpn_close(struct evpn *e)
{
	unsigned int i;

	if (!e)
		return;
	for (i = 0; i < e->n_dev; i++) {
		e->dev[i].d->local_seen = NULL;
		evpn_dev_close(e, &e->dev[i]);
	}
	if (e->watch)
		link_watch_close(e->watch);
	link_close(e->link);
	free(e);
}
