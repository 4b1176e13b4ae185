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
#include "base/clock.h"
#include "base/log.h"
#include "table/fdb.h"
#include "sys/link.h"
#include "dev/device.h"
#include "dev/evpn.h"
#include "dev/port.h"

/* Seconds between sweeps of local MACs aged out (as vxlan_cleanup()). */
#define EVPN_AGE_INTERVAL 10.0
/*
 * A dump that failed, or saw notifications lost, is asked again after
 * 0.1 s, twice that after each more in a row, 10 s at most.
 */
#define EVPN_RETRY_MIN 0.1
#define EVPN_RETRY_MAX 10.0
/*
 * The most messages read in one turn of the loop: a dump of a table of
 * 200,000 entries comes in slices of about this many, between the data
 * path's batches (each turn of the main loop holds the lanes).
 */
#define EVPN_READ_MAX 512
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
	bool lost;			/* one deleted: made again */
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
	ev_timer remake_w;		/* shadow devices deleted under us */
	uint32_t gen;			/* of the last dump asked for; not 0 */
	bool dumping;			/* a dump asked for, not ended */
	bool want;			/* a dump to ask for (evpn_kick()) */
	bool dump_lost;			/* notifications lost during it */
	bool congested;			/* lost some, not read empty since */
	unsigned int retries;		/* dumps in a row not whole */
	uint64_t dump_start;		/* clock_now_ns() when asked for */
	unsigned long dump_msgs;	/* entries read since */
	/* Fabric entries (MACs, flood) naming each peer slot, every tap. */
	uint32_t refs[CONFIG_MAX_PEERS];
	struct log_limit own_warn, full_warn, link_warn, lost_warn;
	struct log_limit dump_warn, bad_warn;
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
/*
 * Whether a warning limited by l is said now (once a minute at most);
 * then more is its tail: how many were held back since the last.
 */
static bool evpn_say(struct log_limit *l, char *more, size_t len)
{
	unsigned long held;

	more[0] = '\0';
	if (!log_limit_take(l, clock_now_ns(), EVPN_WARN_NS, &held))
		return false;
	if (held)
		snprintf(more, len, " (and %lu more since)", held);
	return true;
}

static void evpn_warn(struct log_limit *l, const char *ifname,
		      const char *what, const char *detail)
{
	char more[40];

	if (!evpn_say(l, more, sizeof(more)))
		return;
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
 * Why a VTEP can be nobody's: unspecified ("this network", 0.0.0.0/8 as
 * RFC 1122 section 3.2.1.3 has it), loopback, multicast (a flood
 * entry's group is the kernel's vxlan's business, not a peer), the
 * limited broadcast, or in a prefix of --address, the overlay (the
 * tunnel would carry its own underlay); or NULL.
 */
static const char *evpn_vtep_bad(const struct config *c,
				 const struct ipaddr *a)
{
	const uint8_t *b = (const uint8_t *)&a->addr;
	const struct in6_addr *b6 = &a->addr.v6;
	unsigned int i;

	if (a->family == AF_INET && (!b[0] || b[0] == 127))
		return "unspecified or loopback";
	if (a->family == AF_INET && (b[0] & 0xf0) == 0xe0)
		return "multicast";
	if (a->family == AF_INET && (b[0] & b[1] & b[2] & b[3]) == 0xff)
		return "broadcast";
	if (a->family == AF_INET6 &&
	    (IN6_IS_ADDR_UNSPECIFIED(b6) || IN6_IS_ADDR_LOOPBACK(b6)))
		return "unspecified or loopback";
	if (a->family == AF_INET6 && IN6_IS_ADDR_MULTICAST(b6))
		return "multicast";
	for (i = 0; i < c->n_addrs; i++)
		if (c->addrs[i].family == a->family &&
		    optvalue_cidr_contains(&c->addrs[i], b))
			return "in the overlay, a prefix of --address";
	return NULL;
}

/*
 * A VTEP the fabric names that cannot be a peer: gsotun's own address
 * (a loop: every flooded frame would come back), of the other family,
 * or one that is nobody's (evpn_vtep_bad()).
 */
static bool evpn_vtep_refused(struct evpn *e, struct evpn_dev *v,
			      const struct link_fdb *f)
{
	const struct config *c = e->port->cfg;
	const char *why;
	char text[80];

	if (f->dst.family != c->family)
		return true;
	why = evpn_vtep_bad(c, &f->dst);
	if (why && !f->del) {
		v->d->st.evpn_bad_vtep++;
		evpn_warn(&e->bad_warn, v->d->s.ifname,
			  evpn_entry_text(f, text, sizeof(text)), why);
	}
	if (why)
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
			  "no room for another peer (--evpn-vteps)");
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

/*
 * Room for one more remote MAC of VTEP idx: bounded as learnt entries
 * are, --max-address, and shared as they are (issue 24): a VTEP that
 * holds its share of a full table gets no more, one below it takes an
 * entry of the VTEP that holds the most. 0, or -ENOSPC (counted, said).
 */
static int evpn_remote_room(struct evpn *e, struct evpn_dev *v,
			    const struct link_fdb *f, unsigned int idx)
{
	unsigned int max = v->d->s.cfg->max_address;
	struct fdb *t = &v->d->s.fdb;
	struct stats *st = &v->d->st;
	char text[80];
	int big;

	if (fdb_lookup_static(t, f->mac, 0) >= 0 || fdb_count_evpn(t) < max)
		return 0;
	big = fdb_evict_evpn(t, max, idx);
	if (big >= 0) {
		st->evpn_remote_evicted++;
		evpn_unref(e, (unsigned int)big);
		return 0;
	}
	if (big == -ENOSPC)
		st->evpn_remote_share++;
	else
		st->evpn_remote_full++;
	evpn_warn(&e->full_warn, v->d->s.ifname,
		  evpn_entry_text(f, text, sizeof(text)),
		  big == -ENOSPC ? "--max-address remote MACs held, the VTEP's "
				   "share of them among them" :
				   "--max-address remote MACs held");
	return -ENOSPC;
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
	idx = port_peer_hold(e->port, &f->dst);
	if (idx < 0) {
		st->evpn_remote_full++;
		evpn_warn(&e->full_warn, v->d->s.ifname,
			  evpn_entry_text(f, text, sizeof(text)),
			  "no room for another peer (--evpn-vteps)");
		return;
	}
	if (evpn_remote_room(e, v, f, (unsigned int)idx)) {
		evpn_drop_hold(e, (unsigned int)idx);
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

	e->dump_msgs++;
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

/* The generation before gen (0 is none: skipped). */
static uint32_t evpn_gen_prev(uint32_t gen)
{
	return gen > 1 ? gen - 1 : UINT32_MAX;
}

/* Mark a was said before keep (RFC 1982 serial number arithmetic). */
static bool evpn_gen_before(uint32_t a, uint32_t keep)
{
	return (int32_t)(a - keep) < 0;
}

/* The flood entries last said before keep, off the list. */
static void evpn_sweep_flood(struct evpn *e, struct evpn_dev *v,
			     uint32_t keep)
{
	struct peers *ps = &e->port->peers;
	unsigned int i;

	for (i = 0; i < CONFIG_MAX_PEERS; i++) {
		if (!v->flood_gen[i] || !evpn_gen_before(v->flood_gen[i], keep))
			continue;
		v->flood_gen[i] = 0;
		ps->v[i].flood &= (uint16_t)~(1u << v->d->idx);
		evpn_unref(e, i);
	}
}

/* The fabric's entries of every tap last said before keep: gone. */
static void evpn_sweep(struct evpn *e, uint32_t keep)
{
	unsigned int i;

	for (i = 0; i < e->n_dev; i++) {
		struct evpn_dev *v = &e->dev[i];
		struct evpn_sweep w = { .e = e, .v = v };

		fdb_sweep_evpn(&v->d->s.fdb, keep, evpn_swept, &w);
		evpn_sweep_flood(e, v, keep);
	}
}

static void evpn_kick(struct evpn *e);

/*
 * A dump that was not whole, asked again after a while that doubles
 * with each in a row (bounded): a dump never stops for good.
 */
static void evpn_retry(struct evpn *e)
{
	double after = EVPN_RETRY_MIN;
	unsigned int i;

	for (i = 0; i < e->retries && after < EVPN_RETRY_MAX; i++)
		after *= 2;
	if (after > EVPN_RETRY_MAX)
		after = EVPN_RETRY_MAX;
	e->retries++;
	e->want = true;
	ev_timer_stop(e->loop, &e->resync_w);
	ev_timer_set(&e->resync_w, after, 0.);
	ev_timer_start(e->loop, &e->resync_w);
}

/* A dump that failed: said once a minute at most, asked again. */
static void evpn_dump_failed(struct evpn *e, int err)
{
	char more[40];

	e->dev[0].d->st.evpn_resync_failed++;
	if (evpn_say(&e->dump_warn, more, sizeof(more)))
		log_warn("%s: reading the shadow devices' tables failed: "
			 "%s: again in a while%s", e->dev[0].d->s.ifname,
			 strerror(-err), more);
	evpn_retry(e);
}

/*
 * The end of a dump: what it did not say is no more (mark and sweep).
 * With notifications lost meanwhile, an entry removed and added again
 * after the dump passed it is in neither and would be swept: then only
 * what neither this dump nor the one before said goes, and another
 * dump is asked for. Entries so go at most two dumps late, even when
 * every dump sees a loss; one that failed sweeps nothing.
 */
static void evpn_dumped(void *ctx, int err)
{
	struct evpn *e = ctx;

	if (!e->dumping)
		return;
	e->dumping = false;
	log_debug("evpn: %lu entries read in %llu ms%s%s", e->dump_msgs,
		  (unsigned long long)(clock_now_ns() - e->dump_start) /
			  1000000u,
		  err ? ": failed" : "",
		  e->dump_lost ? ", notifications lost meanwhile" : "");
	if (err) {
		evpn_dump_failed(e, err);
		return;
	}
	evpn_sweep(e, e->dump_lost ? evpn_gen_prev(e->gen) : e->gen);
	if (e->dump_lost) {
		evpn_retry(e);
		return;
	}
	e->retries = 0;
	evpn_kick(e);
}

/*
 * Notifications were lost (the socket's buffer overran): read it all.
 * The kernel drops what comes after without a word until its queue is
 * read empty (netlink_overrun() sets NETLINK_S_CONGESTED once, and
 * netlink_rcv_wake() clears it), and a dump keeps it from being empty
 * to its end: so a dump is asked for only once it was read empty, and
 * one under way when the loss came is not whole.
 */
static void evpn_lost(void *ctx)
{
	struct evpn *e = ctx;
	char more[40];

	if (evpn_say(&e->lost_warn, more, sizeof(more)))
		log_warn("%s: fabric notifications lost: reading the shadow "
			 "devices' tables again%s", e->dev[0].d->s.ifname,
			 more);
	e->dump_lost |= e->dumping;
	e->congested = true;
	e->want = true;
}

static void evpn_link_gone(void *ctx, unsigned int ifindex);

static const struct link_fdb_ops evpn_ops = {
	.entry = evpn_entry,
	.dumped = evpn_dumped,
	.lost = evpn_lost,
	.link_gone = evpn_link_gone,
};

/*
 * A dump of every forwarding entry, marked with a new generation:
 * what it and the notifications meanwhile say is marked so, and what is
 * not at its end goes (evpn_dumped()). One at a time on the socket; none
 * while one is due (evpn_retry()), nor while notifications may be
 * dropped unsaid (evpn_lost()).
 */
static void evpn_kick(struct evpn *e)
{
	int err;

	if (!e->want || e->dumping || e->congested ||
	    ev_is_active(&e->resync_w))
		return;
	if (!++e->gen)
		e->gen = 1;
	e->want = false;
	e->dump_lost = false;
	err = link_fdb_dump(e->watch);
	if (err) {
		evpn_dump_failed(e, err);
		return;
	}
	e->dumping = true;
	e->dump_start = clock_now_ns();
	e->dump_msgs = 0;
	e->dev[0].d->st.evpn_resyncs++;
}

/* Read every table again, as soon as may be. */
static void evpn_resync(struct evpn *e)
{
	e->want = true;
	evpn_kick(e);
}

static void evpn_resync_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	evpn_kick(w->data);
}

/*
 * A slice at most: the loop comes back while the fd is readable. Read
 * empty, the socket takes notifications again: a dump may be asked.
 */
static void evpn_watch_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct evpn *e = w->data;

	if (link_fdb_watch_read(e->watch, &evpn_ops, e, EVPN_READ_MAX))
		return;
	e->congested = false;
	evpn_kick(e);
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
 * Is the device of s's name, made by another, what s asks? Its kind,
 * its bridge, and a vxlan device's VNI, local address and port: zebra
 * reads the VNI's VTEP from the device, and the kernel binds its port.
 * Why not, in buf; or NULL.
 */
static const char *evpn_adopt_bad(struct evpn *e, const struct link_spec *s,
				  unsigned int ifindex, char *buf, size_t len)
{
	char want[INET6_ADDRSTRLEN] = "?", got[INET6_ADDRSTRLEN] = "none";
	struct link_kind k;

	if (link_get_kind(e->link, ifindex, &k))
		return "it cannot be read";
	if (strcmp(k.kind, s->kind)) {
		snprintf(buf, len, "it is of kind '%s'", k.kind);
		return buf;
	}
	if (s->master && k.master != s->master)
		return "it is not a port of the shadow bridge";
	if (strcmp(s->kind, "vxlan"))
		return NULL;
	inet_ntop(s->local.family, &s->local.addr, want, sizeof(want));
	if (k.local.family)
		inet_ntop(k.local.family, &k.local.addr, got, sizeof(got));
	if (k.vni != s->vni || k.port != s->port ||
	    !optvalue_ip_equal(&k.local, &s->local)) {
		snprintf(buf, len, "it has VNI %u, local %s, port %u (wanted "
			 "VNI %u, local %s, port %u)", k.vni, got, k.port,
			 s->vni, want, s->port);
		return buf;
	}
	return NULL;
}

/*
 * Make device s, or adopt the one of its name (made by an earlier run,
 * or by hand) when it is what s asks: *made says whether it goes at
 * exit (once made, it stays so). Its ifindex, or 0 (said).
 */
static unsigned int evpn_make(struct evpn *e, const struct link_spec *s,
			      bool *made)
{
	const char *why;
	unsigned int ifindex;
	int err = link_add(e->link, s);
	char buf[160];

	if (err && err != -EEXIST)
		return 0;
	*made |= !err;
	ifindex = link_ifindex(e->link, s->name);
	if (!ifindex) {
		log_err("cannot find %s", s->name);
		return 0;
	}
	if (!err)
		return ifindex;
	why = evpn_adopt_bad(e, s, ifindex, buf, sizeof(buf));
	if (why) {
		log_err("evpn: %s is there, but not as zebra must see it: %s: "
			"delete it (ip link del %s) to have it made", s->name,
			why, s->name);
		return 0;
	}
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
	v->vq_if = v->vp_if ? link_ifindex(e->link, v->vq) : 0;
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
static void evpn_dev_unmake(struct evpn *e, struct evpn_dev *v)
{
	if (v->made_veth)
		link_del(e->link, v->vp_if);
	if (v->made_vx)
		link_del(e->link, v->vx_if);
	if (v->made_br)
		link_del(e->link, v->br_if);
	v->made_veth = v->made_vx = v->made_br = false;
}

static void evpn_dev_close(struct evpn *e, struct evpn_dev *v)
{
	evpn_dev_unmake(e, v);
	fdb_free(&v->local);
}

/*
 * A shadow device deleted under us (by hand, a script): zebra would
 * lose the VNI, and the fabric the tap. What is left of the set goes,
 * and the set is made again (or adopted, as at start); the local MACs
 * are written again on the new port, and every table read again (what
 * the old vxlan device held is swept, zebra writes it on the new one).
 */
static int evpn_dev_remake(struct evpn *e, struct evpn_dev *v)
{
	unsigned int cursor = 0;
	struct fdb_entry x;
	int err;

	evpn_dev_unmake(e, v);
	v->br_if = v->vx_if = v->vp_if = v->vq_if = 0;
	err = evpn_dev_open(e, v);
	if (err)
		return err;
	while (fdb_next(&v->local, &cursor, clock_now_ns(), &x))
		evpn_local_write(e, v, x.mac, true);
	v->lost = false;
	v->d->st.evpn_shadow_remade++;
	evpn_resync(e);
	return 0;
}

/* Each tap whose set lost a device: made again; tried on till it is. */
static void evpn_remake_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct evpn *e = w->data;
	unsigned int i;
	bool left = false;

	for (i = 0; i < e->n_dev; i++)
		if (e->dev[i].lost && evpn_dev_remake(e, &e->dev[i]))
			left = true;
	if (!left)
		ev_timer_stop(loop, w);
}

/*
 * A device deleted: one of a tap's shadow devices? Said, and the set
 * made again a moment later (a script may be deleting the others).
 */
static void evpn_link_gone(void *ctx, unsigned int ifindex)
{
	struct evpn *e = ctx;
	unsigned int i;

	for (i = 0; i < e->n_dev; i++) {
		struct evpn_dev *v = &e->dev[i];
		const char *name = ifindex == v->br_if ? v->br :
				   ifindex == v->vx_if ? v->vx :
				   ifindex == v->vp_if ? v->vp :
				   ifindex == v->vq_if ? v->vq : NULL;

		if (!name || v->lost)
			continue;
		v->lost = true;
		log_warn("%s: evpn shadow device %s deleted: making the "
			 "shadow devices again", v->d->s.ifname, name);
		if (!ev_is_active(&e->remake_w))
			ev_timer_start(e->loop, &e->remake_w);
	}
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
	/* 0.2 s after, then every 5 s while it cannot be made. */
	ev_timer_init(&e->remake_w, evpn_remake_cb, 0.2, 5.0);
	e->remake_w.data = e;
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
