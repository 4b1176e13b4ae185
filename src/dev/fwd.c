// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fwd: a device's forwarding table, the --fdb entries in it and what
 * frames from the peers teach about where MACs live (the kernel's
 * vxlan_snoop() and vxlan_cleanup()); a tun's route table, its --route
 * entries and their routes into the tun.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "base/clock.h"
#include "base/log.h"
#include "table/echo.h"
#include "table/route.h"
#include "sys/link.h"
#include "data/rx.h"
#include "dev/fwd.h"
#include "dev/path.h"
#include "dev/types.h"

/* Seconds between sweeps of aged entries (vxlan's FDB_AGE_INTERVAL). */
#define FWD_AGE_INTERVAL 10.0

/* A peer at its share of the table: said once a minute at most (ns). */
#define FWD_SHARE_WARN_NS (60 * 1000000000ull)
/* A MAC that moved: said once a second at most, as net_ratelimit() (ns). */
#define FWD_MOVE_WARN_NS 1000000000ull

/* Is --fdb e one of d's: one for every tap, or for d's name? */
static bool fwd_fdb_of(const struct device *d, const struct config_fdb *e)
{
	return !e->dev[0] || !strcmp(e->dev, d->name);
}

/*
 * The table changed under the queues: the source each learnt last is
 * handed up again (rx_learn()).
 */
static void fwd_forget_learnt(struct device *d)
{
	unsigned int i;

	for (i = 0; i < d->n_q; i++)
		rx_forget_learnt(&d->q[i]);
}

/* The --fdb entries, each naming a peer (options_check_fdb()). */
static int fwd_add_static(struct device *d)
{
	const struct config *c = d->s.cfg;
	unsigned int i;

	for (i = 0; i < c->n_fdb; i++) {
		const struct config_fdb *e = &c->fdb[i];
		const uint8_t *addr = (const uint8_t *)&e->peer.addr;
		int peer = peers_find(d->s.peers, addr), err = peer;

		if (!fwd_fdb_of(d, e))
			continue;
		if (peer >= 0)
			err = fdb_add_static(&d->s.fdb, e->mac, e->vlan,
					     (unsigned int)peer);
		if (err) {
			log_err_ret(err, "cannot add forwarding entry %u", i);
			return err;
		}
	}
	return 0;
}

/* Is --route e one of d's: one for every tun, or for d's name? */
static bool fwd_route_of(const struct device *d, const struct config_route *e)
{
	return !e->dev[0] || !strcmp(e->dev, d->name);
}

static bool fwd_cidr_equal(const struct cidr *a, const struct cidr *b)
{
	size_t len = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && a->prefix == b->prefix &&
	       !memcmp(&a->addr, &b->addr, len);
}

/* The --route entries of a tun, each naming a peer (optcheck.c). */
static int fwd_add_routes(struct device *d)
{
	const struct config *c = d->s.cfg;
	unsigned int i;

	for (i = 0; i < c->n_routes; i++) {
		const struct config_route *e = &c->routes[i];
		const uint8_t *addr = (const uint8_t *)&e->peer.addr;
		int peer = -ENOENT, err;

		if (!fwd_route_of(d, e))
			continue;
		if (e->peer.family == d->s.peers->family)
			peer = peers_find(d->s.peers, addr);
		err = peer;
		if (peer >= 0)
			err = route_add(&d->s.routes, &e->prefix,
					(unsigned int)peer);
		if (err) {
			log_err_ret(err, "cannot add route %u", i);
			return err;
		}
	}
	return 0;
}

/*
 * Would p, routed into the tun, take the underlay's own packets to a
 * peer of d's? It would when p holds the peer's address and the route
 * that takes them now is no longer than p (the longest prefix chooses):
 * each tunnel packet would go into the tun again, a loop. Refused,
 * -ELOOP, naming the peer: a more specific route to the peer lets p be,
 * as OpenVPN's redirect-gateway adds one (a route of ours is never
 * policy routing, as wg-quick's fwmark rule, the host's table stays as
 * the administrator made it).
 */
static int fwd_route_captures(struct device *d, const struct cidr *p)
{
	const struct peers *ps = d->s.peers;
	char peer[INET6_ADDRSTRLEN], pre[INET6_ADDRSTRLEN];
	unsigned int i, len, oif;

	for (i = 0; i < ps->n; i++) {
		const struct peer *e = &ps->v[ps->live[i]];
		const uint8_t *a = (const uint8_t *)&e->addr.addr;

		if (e->addr.family != p->family ||
		    !optvalue_cidr_contains(p, a))
			continue;
		if (!link_route_entry(d->link, &e->addr, path_local(d), &len,
				      &oif) &&
		    len > p->prefix)
			continue;
		inet_ntop(p->family, &p->addr, pre, sizeof(pre));
		inet_ntop(p->family, a, peer, sizeof(peer));
		log_err("%s: route %s/%u refused: it holds peer %s, whose "
			"tunnel packets it would route into %s (route %s "
			"more specifically first)", d->s.ifname, pre,
			p->prefix, peer, d->s.ifname, peer);
		return -ELOOP;
	}
	return 0;
}

/*
 * Has the host a route to p itself (any metric)? 1 through the tun (the
 * one a persistent tun kept from our last run: ours), -EEXIST through
 * another device (said), 0 none.
 */
static int fwd_route_exists(struct device *d, const struct cidr *p)
{
	char pre[INET6_ADDRSTRLEN];
	int ret = link_route_find(d->link, p, d->ifindex);

	if (ret != -EEXIST)
		return ret < 0 ? 0 : ret;
	inet_ntop(p->family, &p->addr, pre, sizeof(pre));
	log_err("%s: route %s/%u refused: the host has a route to %s/%u "
		"already, which gsotun does not replace (ip route del it, "
		"or route another prefix)", d->s.ifname, pre, p->prefix, pre,
		p->prefix);
	return -EEXIST;
}

/*
 * p routed into the tun, as ip route add does (EXCL): a route the host
 * has to p already is not replaced, nor one that would take the tunnel
 * packets to a peer made.
 */
static int fwd_route_up(struct device *d, const struct cidr *p)
{
	int err = fwd_route_exists(d, p);

	if (err)
		return err > 0 ? 0 : err;
	err = fwd_route_captures(d, p);
	if (!err)
		err = link_route_dev(d->link, d->ifindex, p, true);
	/* One made between our look and our add: still not replaced. */
	if (err == -EEXIST)
		err = fwd_route_exists(d, p) > 0 ? 0 : -EEXIST;
	return err;
}

/*
 * Each route of the table routed into the tun (ip route add PREFIX dev
 * TUN), or out of it, for the routes of peer (-1: of every peer).
 */
static int fwd_routes_kernel(struct device *d, int peer, bool add)
{
	unsigned int cursor = 0, of;
	struct cidr p;
	int err = 0;

	if (!d->link)
		return 0;
	while (route_next(&d->s.routes, &cursor, &p, &of)) {
		int r;

		if (peer >= 0 && (unsigned int)peer != of)
			continue;
		r = add ? fwd_route_up(d, &p)
			: link_route_dev(d->link, d->ifindex, &p, false);
		/* The first: at start a refusal is a usage error (64). */
		if (r && !err)
			err = r;
	}
	return err;
}

int fwd_routes_up(struct device *d)
{
	return fwd_routes_kernel(d, -1, true);
}

void fwd_routes_down(struct device *d)
{
	fwd_routes_kernel(d, -1, false);
}

/* A tun's table, of CONFIG_MAX_ROUTES, and its --route entries. */
static int fwd_open_routes(struct device *d, uint64_t seed)
{
	int err;

	err = route_init(&d->s.routes, CONFIG_MAX_ROUTES, seed);
	if (err) {
		log_err_ret(err, "cannot set up the route table");
		return err;
	}
	return fwd_add_routes(d);
}

/* --geneve-echo: the flows of a tun whose options go back. */
static int fwd_open_echo(struct device *d, uint64_t seed)
{
	const struct config *c = d->s.cfg;
	struct echo_table *t = calloc(1, sizeof(*t));
	int err = t ? echo_init(t, c->geneve_echo, c->geneve_echo_room, seed)
		    : -ENOMEM;

	if (err) {
		free(t);
		log_err_ret(err, "cannot set up the --geneve-echo flow table");
		return err;
	}
	d->s.echo = t;
	return 0;
}

int fwd_open(struct device *d)
{
	const struct config *c = d->s.cfg;
	uint64_t seed[3];
	int err;

	d->s.learning = c->learning;
	if (getrandom(seed, sizeof(seed), 0) != sizeof(seed)) {
		log_err_errno("getrandom");
		return -EIO;
	}
	err = fdb_init(&d->s.fdb, c->max_address, CONFIG_MAX_FDB,
		       d->s.peers->cap, (uint64_t)c->ageing * 1000000000u,
		       seed[0]);
	if (err) {
		log_err_ret(err, "cannot set up the forwarding table");
		return err;
	}
	if (d->s.encap.l3)
		err = fwd_open_routes(d, seed[1]);
	if (!err && c->geneve_echo)
		err = fwd_open_echo(d, seed[2]);
	return err ? err : fwd_add_static(d);
}

void fwd_close(struct device *d)
{
	fdb_free(&d->s.fdb);
	route_free(&d->s.routes);
	if (d->s.echo)
		echo_free(d->s.echo);
	free(d->s.echo);
	d->s.echo = NULL;
}

void fwd_forget_peer(struct device *d, unsigned int idx)
{
	fdb_del_peer(&d->s.fdb, idx);
	fwd_forget_learnt(d);
	if (d->s.echo)
		echo_forget_peer(d->s.echo, idx);
	if (!d->s.encap.l3)
		return;
	fwd_routes_kernel(d, (int)idx, false);
	route_del_peer(&d->s.routes, idx);
}

/* Was p a --route of d's in the config (the one just loaded)? */
static bool fwd_route_kept(const struct device *d, const struct cidr *p)
{
	const struct config *c = d->s.cfg;
	unsigned int i;

	for (i = 0; i < c->n_routes; i++)
		if (fwd_route_of(d, &c->routes[i]) &&
		    fwd_cidr_equal(&c->routes[i].prefix, p))
			return true;
	return false;
}

int fwd_replace_routes(struct device *d, const struct config_route *old,
		       unsigned int n)
{
	unsigned int i;
	int err;

	if (!d->s.encap.l3)
		return 0;
	for (i = 0; i < n; i++) {
		if (!fwd_route_of(d, &old[i]))
			continue;
		route_del(&d->s.routes, &old[i].prefix);
		/* Kept: replaced in place below, never a moment without. */
		if (d->link && !fwd_route_kept(d, &old[i].prefix))
			link_route_dev(d->link, d->ifindex, &old[i].prefix,
				       false);
	}
	err = fwd_add_routes(d);
	if (fwd_routes_up(d) && !err)
		err = -EIO;
	return err;
}

int fwd_replace_static(struct device *d, const struct config_fdb *old,
		       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fwd_fdb_of(d, &old[i]))
			fdb_del(&d->s.fdb, old[i].mac, old[i].vlan);
	fwd_forget_learnt(d);
	return fwd_add_static(d);
}

int fwd_route_add(struct device *d, const struct config_route *e)
{
	const struct peers *ps = d->s.peers;
	int peer = -ENOENT, err;

	if (e->peer.family == ps->family)
		peer = peers_find(ps, (const uint8_t *)&e->peer.addr);
	if (peer < 0)
		return peer;
	err = route_add(&d->s.routes, &e->prefix, (unsigned int)peer);
	if (err || !d->link)
		return err;
	err = fwd_route_up(d, &e->prefix);
	/* Refused: not ours, so neither is it ours to delete later. */
	if (err)
		route_del(&d->s.routes, &e->prefix);
	return err;
}

int fwd_route_del(struct device *d, const struct cidr *p)
{
	int err = route_del(&d->s.routes, p);

	if (!err && d->link)
		link_route_dev(d->link, d->ifindex, p, false);
	return err;
}

int fwd_fdb_add(struct device *d, const struct config_fdb *e)
{
	const struct peers *ps = d->s.peers;
	int peer = -ENOENT;

	if (e->peer.family == ps->family)
		peer = peers_find(ps, (const uint8_t *)&e->peer.addr);
	if (peer < 0)
		return peer;
	fwd_forget_learnt(d);
	return fdb_add_static(&d->s.fdb, e->mac, e->vlan, (unsigned int)peer);
}

int fwd_fdb_del(struct device *d, const uint8_t *mac, uint16_t vlan)
{
	fwd_forget_learnt(d);
	return fdb_del(&d->s.fdb, mac, vlan);
}

static void fwd_age_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct device *d = w->data;

	fdb_age(&d->s.fdb, clock_now_ns());
}

/*
 * Several peers and nothing to tell them apart: head-end replication of
 * every frame, which the kernel's vxlan does silently; in a tun, no
 * packet goes anywhere. Said at start.
 */
static void fwd_say_flooding(const struct device *d)
{
	const struct dev_state *s = &d->s;

	if (s->encap.l3) {
		if (s->peers->n > 1 && !route_count(&s->routes))
			log_warn("%s: %u peers and no --route: every packet "
				 "is dropped, answered with ICMP net "
				 "unreachable (give --route PREFIX=ADDR for "
				 "what is behind each peer)", s->ifname,
				 s->peers->n);
		return;
	}
	if (s->peers->n < 2 || s->learning || fdb_count_static(&s->fdb))
		return;
	log_warn("%s: %u peers, and no --learning nor --fdb entry: every "
		 "frame is sent to every peer (give --learning, or --fdb "
		 "entries for the MACs behind each peer)", s->ifname,
		 s->peers->n);
}

void fwd_watch(struct device *d)
{
	struct fwd *f = &d->fwd;

	fwd_say_flooding(d);
	if (!d->s.learning || !d->s.cfg->ageing)
		return;
	ev_timer_init(&f->age_w, fwd_age_cb, FWD_AGE_INTERVAL,
		      FWD_AGE_INTERVAL);
	f->age_w.data = d;
	ev_timer_start(d->loop, &f->age_w);
}

/* The address of the peer in slot idx, as text in buf. */
static const char *fwd_peer_name(const struct device *d, unsigned int idx,
				 char *buf, size_t len)
{
	const struct ipaddr *a = &d->s.peers->v[idx].addr;

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
static void fwd_say_share(struct device *d, unsigned int peer, uint64_t now)
{
	char addr[INET6_ADDRSTRLEN], more[40];
	unsigned long held;

	if (!log_limit_take(&d->fwd.share_warn, now, FWD_SHARE_WARN_NS, &held))
		return;
	log_warn("%s: peer %s holds its share of the forwarding table (%u "
		 "of %u learnt entries, --max-address): each new source MAC "
		 "from it replaces its oldest%s", d->s.ifname,
		 fwd_peer_name(d, peer, addr, sizeof(addr)),
		 fdb_count_peer(&d->s.fdb, peer), d->s.cfg->max_address,
		 fwd_held(held, more, sizeof(more)));
}

/*
 * mac on vlan, behind the peer in slot from, was seen behind peer: it
 * moved, as the kernel's vxlan_snoop() says "migrated".
 */
static void fwd_say_moved(struct device *d, const uint8_t *mac, uint16_t vlan,
			  int from, unsigned int peer, uint64_t now)
{
	char old[INET6_ADDRSTRLEN] = "?", new[INET6_ADDRSTRLEN];
	char text[MAC_TEXT_LEN], more[40];
	unsigned long held;

	if (!log_limit_take(&d->fwd.move_warn, now, FWD_MOVE_WARN_NS, &held))
		return;
	if (from >= 0)
		fwd_peer_name(d, (unsigned int)from, old, sizeof(old));
	log_info("%s: %s (VLAN %u) moved from peer %s to peer %s%s",
		 d->s.ifname, mac_ntoa(mac, text), vlan, old,
		 fwd_peer_name(d, peer, new, sizeof(new)),
		 fwd_held(held, more, sizeof(more)));
}

enum drop fwd_learn(struct device *d, unsigned int peer, const uint8_t *mac,
		    uint16_t vlan, uint64_t now)
{
	int before;

	switch (fdb_learn(&d->s.fdb, mac, vlan, peer, now, &before)) {
	case FDB_LEARN_NEW:
		d->st.rx_learnt++;
		break;
	case FDB_LEARN_REPLACED:
		d->st.rx_learnt++;
		d->st.rx_learn_replaced++;
		fwd_say_share(d, peer, now);
		break;
	case FDB_LEARN_EVICTED:
		d->st.rx_learnt++;
		d->st.rx_learn_evicted++;
		break;
	case FDB_LEARN_MOVED:
		d->st.rx_learn_moved++;
		fwd_say_moved(d, mac, vlan, before, peer, now);
		break;
	case FDB_LEARN_REFRESHED:
		break;
	case FDB_LEARN_STATIC:
		/* Fixed to another peer: a frame that claims it is dropped. */
		if (before != (int)peer)
			return DROP_RX_MAC_STATIC;
		break;
	case FDB_LEARN_FULL:
		d->st.rx_learn_full++;
		return DROP_NONE;
	case FDB_LEARN_INVALID:
		return DROP_NONE;
	}
	return DROP_NONE;
}
