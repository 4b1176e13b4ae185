// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * path: the path MTU to each peer and what follows from it, the tap's MTU
 * and offload limits, the transmit budgets, ICMP both ways.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/icmp6.h>
#include <netinet/ip_icmp.h>
#include <linux/errqueue.h>
#include <linux/if_ether.h>
#include "base/clock.h"
#include "base/log.h"
#include "encap/encap.h"
#include "sys/link.h"
#include "sys/tap.h"
#include "data/rx.h"
#include "dev/path.h"
#include "dev/types.h"

/* Seconds between looks at the route: learnt PMTUs expire (600 s). */
#define PATH_RECHECK 10.0

/*
 * Seconds the tap's gso_max_size stays raised after the raise or the
 * last UDP super-frame over TCP's size; and seconds without a raise for
 * a row of datagrams after one that brought no such frame (a sender of
 * plain datagrams, not a cut UDP_SEGMENT send).
 */
#define PATH_UDP_HOLD 10.0
#define PATH_UDP_BACKOFF 60.0

/* The kernel's default gso_max_size (GSO_LEGACY_MAX_SIZE). */
#define PATH_GSO_MAX 65536

static int path_set_gso(struct device *d, uint32_t size)
{
	int err = link_set_gso_max_size(d->link, d->ifindex, size);

	if (!err)
		log_debug("%s: gso_max_size %u", d->s.ifname, size);
	return err;
}

/*
 * What the queues take of path_fit_gso() and path_udp_bulk() (struct
 * dev_state's udp_fit): the size a bulk UDP frame must reach to raise
 * the tap's gso_max_size, 0 for never.
 */
static void path_publish_fit(struct device *d)
{
	const struct path *p = &d->path;

	d->s.udp_fit = p->udp_raise ? p->gso_fit : 0;
}

/*
 * One super-frame from the tap should fit one UDP GSO send (64000 bytes,
 * doc/design.md) once cut into segments with their headers and the
 * encapsulation: lower the tap's gso_max_size so TCP builds frames of that
 * size. The estimate takes the smallest likely MSS (IPv6 with TCP
 * timestamps) of the tap or of the path, whichever is smaller, and leaves
 * MAX_TCP_HEADER (320) for tcp_tso_autosize(); the sender still splits
 * what does not fit (sendq_add()). With --mtu N it is set once, at
 * start: a path that shrinks later costs a second send per super-frame,
 * not a capability kept for the process's life. While bulk UDP is
 * seen, the tap keeps 64 KB (path_udp_bulk()).
 */
static void path_fit_gso(struct device *d)
{
	uint32_t link = (uint32_t)encap_link_hlen(&d->s.encap);
	struct path *p = &d->path;
	uint32_t mtu = p->mtu, seg;

	if (d->s.budget - link < mtu)
		mtu = d->s.budget - link;
	p->gso_fit = 0;
	if (d->s.cfg->offload && encap_is_udp(d->s.encap.type) && mtu >= 576) {
		seg = encap_hdr_len(&d->s.encap) + link + mtu;
		p->gso_fit = (uint64_t)UDP_GSO_MAX_BYTES * (mtu - 72) / seg +
			     320;
	}
	/* Not lowered (Linux before 5.19, no CAP_NET_ADMIN): never raised. */
	if (p->gso_fit && !p->gso_raised && path_set_gso(d, p->gso_fit))
		p->gso_fit = 0;
	path_publish_fit(d);
}

/*
 * A UDP_SEGMENT send bigger than the tap's gso_max_size is cut by the
 * kernel before the tap (gso_features_check()), and gsotun reads its
 * datagrams one by one: for bulk UDP the tap goes back to 64 KB. A TCP
 * connection takes the size when it routes (sk_setup_caps()): one that
 * starts while the tap is raised keeps 64 KB super-frames, which cost a
 * second send each, until it routes again; so only UDP super-frames
 * that need the raise keep it, and a row of datagrams that brought none
 * cannot raise it again for PATH_UDP_BACKOFF seconds.
 */
void path_udp_bulk(struct device *d, enum xmit_bulk b)
{
	struct path *p = &d->path;
	ev_tstamp now = ev_now(d->loop);

	if (b == XMIT_BULK_SUPER) {
		p->udp_bulk_at = now;
		p->udp_super_seen = true;
	}
	if (p->gso_raised || now < p->udp_backoff)
		return;
	if (path_set_gso(d, PATH_GSO_MAX)) {
		p->udp_raise = false;
		path_publish_fit(d);
		return;
	}
	p->gso_raised = true;
	p->udp_super_seen = b == XMIT_BULK_SUPER;
	p->udp_bulk_at = now;
	d->st.tx_udp_bulk++;
}

/* No UDP super-frame for PATH_UDP_HOLD seconds: TCP's size again. */
static void path_udp_bulk_over(struct device *d)
{
	struct path *p = &d->path;
	ev_tstamp now = ev_now(d->loop);

	if (!p->gso_raised || now - p->udp_bulk_at < PATH_UDP_HOLD)
		return;
	p->gso_raised = false;
	if (!p->udp_super_seen)
		p->udp_backoff = now + PATH_UDP_BACKOFF;
	if (p->gso_fit)
		path_set_gso(d, p->gso_fit);
}


/*
 * The tap MTU --mtu auto gives for the current budget (a tap's frames
 * carry an Ethernet header the MTU does not count, a tun's packets
 * none); 0 if none fits.
 */
static uint32_t path_auto_mtu(const struct device *d)
{
	uint32_t link = (uint32_t)encap_link_hlen(&d->s.encap);

	if (d->s.budget < link + 68)
		return 0;
	return d->s.budget - link;
}

/* The largest inner frame a path MTU (0: unknown) takes. */
static uint32_t path_frame_budget(const struct device *d, uint32_t path)
{
	return pmtu_path_budget(&d->s.encap, d->s.ipv6, path);
}

/* The smallest known path MTU of the peers (0: none known). */
static uint32_t path_smallest(const struct peers *ps)
{
	uint32_t min = 0;
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		uint32_t m = ps->v[ps->live[i]].path_mtu;

		if (m && (!min || m < min))
			min = m;
	}
	return min;
}

/* The tap's MTU changed: what its queues merge follows. */
static void path_queues_mtu(struct device *d, uint32_t mtu)
{
	unsigned int i;

	for (i = 0; i < d->n_q; i++)
		rx_set_mtu(&d->q[i], mtu);
}

/*
 * The peers' paths changed: the device's budget (the one every peer
 * takes, for flooded frames) follows the smallest, and so do the tap's
 * MTU and gso_max_size with --mtu auto. Called between batches only.
 */
static void path_update(struct device *d)
{
	struct path *p = &d->path;
	uint32_t path = path_smallest(d->s.peers), mtu, was;

	if (path == p->path_mtu)
		return;
	p->path_mtu = path;
	d->s.budget = path_frame_budget(d, path);
	mtu = path_auto_mtu(d);
	/* No peer's path known (none left): the tap keeps its MTU. */
	if (d->s.cfg->mtu || !p->mtu || !path)
		return;
	if (mtu && mtu != p->mtu && !link_set_mtu(d->link, d->ifindex, mtu)) {
		log_info("%s: MTU %u (was %u)", d->s.ifname, mtu, p->mtu);
		was = p->mtu;
		p->mtu = mtu;
		path_queues_mtu(d, mtu);
		/* The kernel's IPv6 floor (RFC 8200), crossed upwards. */
		if (was < PMTU_FLOOR6 && mtu >= PMTU_FLOOR6 && p->ipv6_back)
			p->ipv6_back(d);
	}
	path_fit_gso(d);
}

/* A new path MTU to peer e; path_update() makes the rest follow. */
static void path_peer_set(struct device *d, struct peer *e, uint32_t path)
{
	char addr[INET6_ADDRSTRLEN];

	if (path == e->path_mtu)
		return;
	inet_ntop(e->addr.family, &e->addr.addr, addr, sizeof(addr));
	log_info("%s: path MTU to %s %u (was %u)", d->s.ifname, addr, path,
		 e->path_mtu);
	e->path_mtu = path;
}

/* An ICMP error said our packets to peer are too big for reported bytes. */
static void path_lower(struct device *d, int peer, uint32_t reported)
{
	struct peer *e = &d->s.peers->v[peer];
	uint32_t cur = e->path_mtu ? e->path_mtu : UINT32_MAX;

	/* What our own packets met in a loop (a circular route): nothing. */
	if (e->route == PEER_ROUTE_CIRCULAR)
		return;
	path_peer_set(d, e, pmtu_lower(cur, reported, d->s.ipv6));
}

/* Seconds between two warnings that peers are unreachable. */
#define PATH_WARN_INTERVAL 10
#define PATH_WARN_NS (PATH_WARN_INTERVAL * 1000000000ull)

/*
 * Whether interface ifindex is a tap or tun of the port: a route to a
 * peer through any of them sends the tunnel's packets into the tunnel.
 */
static bool path_own_dev(const struct port *port, unsigned int ifindex)
{
	unsigned int i;

	for (i = 0; ifindex && i < port->n_dev; i++)
		if (port->dev[i] && port->dev[i]->ifindex == ifindex)
			return true;
	return false;
}

/*
 * The address the underlay's sockets are bound to, which their sends
 * route from (`ip rule from` may hold their route): --local, or none.
 */
const struct ipaddr *path_local(const struct device *d)
{
	const struct ipaddr *local = &d->s.cfg->local;

	return local->family && !optvalue_ip_is_any(local) ? local : NULL;
}

/*
 * What the route to peer e says: its path MTU into *mtu (0: no route),
 * and whether the underlay reaches the peer. No route through a link
 * that went down (the kernel removes the routes of a link it takes down)
 * is said as the link's fault; *err is why there is no route. A route
 * out through a tap or tun of ours is a loop: its MTU, the tunnel's own,
 * is not the path's (it would shrink the tap's with each look), and the
 * peer is refused, as udp_tunnel_dst_lookup() refuses a "circular
 * route" of the kernel's vxlan.
 */
static enum peer_reach path_peer_route(struct device *d, struct peer *e,
				       bool quiet, uint32_t *mtu, int *err)
{
	struct link_route r;
	bool up;

	*err = -link_route_get(d->link, &e->addr, path_local(d), quiet, &r);
	*mtu = *err ? 0 : r.mtu;
	if (!*err) {
		if (r.oif != e->oif && e->oif)
			e->oif_prev = e->oif;
		e->oif = r.oif;
		if (path_own_dev(d->port, r.oif)) {
			*mtu = 0;
			return PEER_REACH_CIRCULAR;
		}
		return r.oif_up ? PEER_REACH_OK : PEER_REACH_LINK_DOWN;
	}
	if (e->oif && !link_is_up(d->link, e->oif, &up) && !up)
		return PEER_REACH_LINK_DOWN;
	return PEER_REACH_NO_ROUTE;
}

/*
 * The peers said lost or back in one look at the routes: the first few
 * by name, the others as a number, so that a link of a thousand peers
 * going down is a few lines, not a thousand.
 */
#define PATH_SAY_NAMED 3

struct path_say {
	unsigned int lost, back;
};

static void path_say_rest(const struct device *d, const struct path_say *say)
{
	unsigned int lost = say->lost - PATH_SAY_NAMED;
	unsigned int back = say->back - PATH_SAY_NAMED;

	if (say->lost > PATH_SAY_NAMED)
		log_warn("%s: and %u more peer%s unreachable", d->s.ifname,
			 lost, lost > 1 ? "s" : "");
	if (say->back > PATH_SAY_NAMED)
		log_info("%s: and %u more peer%s reachable again", d->s.ifname,
			 back, back > 1 ? "s" : "");
}

/*
 * Peer e's reachability is now reach. Its loss is said once, and at most
 * once an interval for a peer whose route flaps (the others counted); its
 * return is said when its loss was. A loss the interval held back is
 * tried again with each look at the route (path_check(), at least every
 * PATH_RECHECK seconds) until it is said: after a flap, a lasting outage
 * is said too. Past PATH_SAY_NAMED in one look, say only counts them.
 */
static void path_peer_reach(struct device *d, struct peer *e,
			    enum peer_reach reach, int err,
			    struct path_say *say)
{
	char addr[INET6_ADDRSTRLEN], dev[24], more[40] = "";
	uint64_t now = clock_now_ns();
	unsigned long held;

	if (reach == e->reach && (reach == PEER_REACH_OK || e->reach_said))
		return;
	/* The same loss again, still held: not one more to count. */
	if (reach == e->reach && !log_limit_due(&e->reach_warn, now))
		return;
	e->reach = reach;
	inet_ntop(e->addr.family, &e->addr.addr, addr, sizeof(addr));
	if (reach == PEER_REACH_OK) {
		if (e->reach_said && say->back++ < PATH_SAY_NAMED)
			log_info("%s: the peer %s is reachable again",
				 d->s.ifname, addr);
		e->reach_said = false;
		return;
	}
	/* A loss said since it was last reachable: its return is said. */
	if (!log_limit_take(&e->reach_warn, now, PATH_WARN_NS, &held))
		return;
	e->reach_said = true;
	if (say->lost++ >= PATH_SAY_NAMED)
		return;
	if (held)
		snprintf(more, sizeof(more), " (and %lu more since)", held);
	if (reach == PEER_REACH_CIRCULAR)
		log_warn("%s: the route to the peer %s goes out through %s, "
			 "a device of ours: refused, a loop%s",
			 d->s.ifname, addr,
			 link_name(d->link, e->oif, dev, sizeof(dev)), more);
	else if (reach == PEER_REACH_LINK_DOWN)
		log_warn("%s: underlay link %s down: nothing reaches %s%s",
			 d->s.ifname,
			 link_name(d->link, e->oif, dev, sizeof(dev)), addr,
			 more);
	else
		log_warn("%s: no route to the peer %s (%s)%s", d->s.ifname,
			 addr, strerror(err), more);
}

/*
 * Whether frames go to peer e now that its route's lookup said reach
 * (err: why none), enum peer_route: not through a device of ours; nor
 * where the kernel's lookup refuses the address, as each send would:
 * no route (ENETUNREACH), an unreachable, prohibit or blackhole one
 * (EHOSTUNREACH, EACCES, EINVAL: fib_props[]). A lookup that failed
 * otherwise (a netlink error) changes nothing.
 */
static uint8_t path_route_mark(const struct peer *e, enum peer_reach reach,
			       int err)
{
	if (reach == PEER_REACH_CIRCULAR)
		return PEER_ROUTE_CIRCULAR;
	switch (err) {
	case 0:
		return PEER_ROUTE_OK;
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EACCES:
	case EINVAL:
		return PEER_ROUTE_NONE;
	default:
		return e->route;
	}
}

/*
 * Whether the route to peer e needs a look after the changes c (NULL:
 * every route may have changed): one they may have changed, through its
 * link or the one it left (which, back, may take it again: a route with
 * linkdown, a multipath one), and one not known or not reaching it,
 * which a held warning may be waiting on.
 */
static bool path_peer_stale(const struct peer *e, const struct link_changes *c)
{
	return !e->path_mtu || e->reach != PEER_REACH_OK ||
	       link_changes_touch(c, &e->addr, e->oif) ||
	       (e->oif_prev && link_changes_touch_link(c, e->oif_prev));
}

/*
 * The routes to the port's peers that the changes c may have changed
 * (NULL: all of them), looked up by d, the main device, once for every
 * device. A peer without one is warned of (as a failed lookup unless
 * quiet, and as unreachable once) and keeps the path MTU it had (unknown
 * at first).
 */
static void path_look(struct device *d, bool quiet,
		      const struct link_changes *c)
{
	struct peers *ps = d->s.peers;
	struct path_say say = { 0 };
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		struct peer *e = &ps->v[ps->live[i]];
		enum peer_reach reach;
		uint32_t mtu;
		int err;

		if (!path_peer_stale(e, c))
			continue;
		reach = path_peer_route(d, e, quiet, &mtu, &err);
		e->route = path_route_mark(e, reach, err);
		if (mtu)
			path_peer_set(d, e, mtu);
		path_peer_reach(d, e, reach, err, &say);
	}
	path_say_rest(d, &say);
}

/*
 * The tap's own MAC, which frames from the peers may not carry as their
 * source (rx_learn()), after `ip link set DEV address` (c NULL: any).
 */
static void path_follow_mac(struct device *d, const struct link_changes *c)
{
	if (!d->link || (c && !link_changes_touch_link(c, d->ifindex)))
		return;
	if (link_get_mac(d->link, d->ifindex, d->s.mac))
		log_debug("%s: cannot read its MAC address", d->s.ifname);
}

/*
 * The tap deleted under us (ip link del): its fd reads only errors from
 * then on (tun_chr_read_iter(): -EBADFD) and polls ready for ever. Said,
 * and gsotun stops with status 1, so that its service manager starts it
 * again with a new tap (Restart=on-failure), as it does when gsotun
 * cannot make one; made again here, it would race whoever deleted it.
 */
static bool path_tap_gone(struct device *d, const struct link_changes *c)
{
	bool up;

	if (!d->link || (c && !link_changes_touch_link(c, d->ifindex)) ||
	    link_is_up(d->link, d->ifindex, &up) != -ENODEV)
		return false;
	log_err("%s: the %s was deleted: stopping, exit status 1 (a service "
		"manager starts gsotun again)", d->s.ifname,
		d->s.encap.l3 ? "tun" : "tap");
	d->port->exit_status = EXIT_FAILURE;
	ev_break(d->loop, EVBREAK_ALL);
	return true;
}

/* After the changes c (NULL: any), every device of d's port follows. */
static void path_check_changed(struct device *d, const struct link_changes *c)
{
	struct port *port = d->port;
	unsigned int i;

	for (i = 0; i < port->n_dev; i++)
		if (path_tap_gone(port->dev[i], c))
			return;
	path_look(port->dev[0], true, c);
	for (i = 0; i < port->n_dev; i++) {
		path_follow_mac(port->dev[i], c);
		path_update(port->dev[i]);
	}
}

/*
 * At start: the main device looks at the routes, the others of the port
 * take what it found. Whether any peer has one.
 */
static bool path_routes(struct device *d, bool quiet)
{
	if (!d->idx)
		path_look(d, quiet, NULL);
	path_update(d);
	return d->path.path_mtu != 0;
}

/*
 * A send to peer e failed for want of a route. A route is seldom gone
 * for one peer alone: every route is looked at, so that the peers lost
 * are said together, whether this or the watch sees it first; from the
 * loop (path_look_cb()), as path_update() is not for a completion.
 */
void path_send_failed(struct device *d, struct peer *e, int err)
{
	struct path *p = &d->port->dev[0]->path;
	unsigned long held;

	/* Said already, or held; and a look at the routes a while at most. */
	if ((e->reach != PEER_REACH_OK && e->reach_said) ||
	    ev_is_active(&p->look_w) ||
	    !log_limit_take(&p->send_warn, clock_now_ns(), PATH_WARN_NS, &held))
		return;
	/* By address: the peer may be gone, its slot taken, by then. */
	p->look_addr = e->addr;
	p->look_dev = d->idx;
	p->look_err = err;
	ev_timer_start(d->loop, &p->look_w);
}

static void path_look_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct device *d = w->data;
	const struct path *p = &d->path;
	char addr[INET6_ADDRSTRLEN];
	int idx;

	path_check(d);
	idx = peers_find(d->s.peers, (const uint8_t *)&p->look_addr.addr);
	if (idx < 0 || d->s.peers->v[idx].reach != PEER_REACH_OK)
		return;
	/*
	 * The route is there: the route was back already, the kernel found
	 * no neighbour, or the error was an ICMP error that another peer's
	 * traffic queued on the shared socket. Not a loss of this peer.
	 */
	inet_ntop(p->look_addr.family, &p->look_addr.addr, addr, sizeof(addr));
	log_debug("%s: a send to the peer %s failed (%s), its route is up",
		  d->port->dev[p->look_dev]->s.ifname, addr,
		  strerror(p->look_err));
}

/*
 * Ask the routes again (a learnt PMTU may have expired). No route now
 * (the underlay is down): keep what we had.
 */
void path_check(struct device *d)
{
	path_check_changed(d, NULL);
}

/* Nothing changed but the peers: the new ones are not known yet. */
void path_peers_changed(struct device *d)
{
	static const struct link_changes none;

	path_check_changed(d, &none);
}

/*
 * The MTU of the underlay with no peer yet: the interface's that holds
 * --local, else 1500, as ip_tunnel_bind_dev() takes its lower device's
 * MTU, or ETH_DATA_LEN without one (and the kernel's vxlan without a
 * lower device keeps 1500). The first peer's path replaces it.
 */
static uint32_t path_local_mtu(struct device *d)
{
	const struct ipaddr *local = &d->s.cfg->local;
	char addr[INET6_ADDRSTRLEN];
	uint32_t mtu = 0;

	if (local->family && !optvalue_ip_is_any(local) &&
	    !link_addr_mtu(d->link, local, &mtu) && mtu) {
		inet_ntop(local->family, &local->addr, addr, sizeof(addr));
		log_debug("%s: no peer: the MTU of %s's interface, %u",
			  d->s.ifname, addr, mtu);
		return mtu;
	}
	return ETH_DATA_LEN;
}

/* The tap's MTU: --mtu, or the smallest path MTU less the tunnel's. */
static int path_first_mtu(struct device *d)
{
	bool routed = path_routes(d, d->s.cfg->mtu != 0);
	uint32_t mtu;

	if (d->s.cfg->mtu)
		return d->s.cfg->mtu;
	/* No peer: the budget of the underlay's own MTU, until one comes. */
	if (!routed && !d->s.peers->n)
		d->s.budget = path_frame_budget(d, path_local_mtu(d));
	else if (!routed) {
		/* link_route_mtu() said why; say what it means here. */
		log_err("--mtu auto needs a route to a remote: give --mtu N");
		return -ENETUNREACH;
	}
	mtu = path_auto_mtu(d);
	if (!mtu) {
		log_err("path MTU %u leaves no room for the tunnel (%zu bytes)",
			d->path.path_mtu ? d->path.path_mtu :
					   path_local_mtu(d),
			encap_overhead(&d->s.encap, d->s.ipv6) +
				encap_link_hlen(&d->s.encap));
		return -EINVAL;
	}
	return (int)mtu;
}

int path_open(struct device *d)
{
	struct path *p = &d->path;
	int mtu, err;

	d->s.budget = UINT32_MAX;
	/* The routes are to the port's peers: the main device watches. */
	p->watch = d->idx ? NULL : link_watch_open();
	if (!d->idx && !p->watch)
		return -EIO;
	mtu = path_first_mtu(d);
	if (mtu < 0)
		return mtu;
	p->mtu = (uint32_t)mtu;
	err = link_set_mtu(d->link, d->ifindex, p->mtu);
	if (err)
		return err;
	/*
	 * No TSO frame of more segments than vnet_hdr_parse() takes: with a
	 * small MSS (48 is allowed) TCP would build them, and they would be
	 * dropped whole.
	 */
	if (d->s.cfg->offload)
		link_set_gso_max_segs(d->link, d->ifindex, VNET_MAX_SEGS);
	/*
	 * Raised only for UDP super-frames the tap takes (USO), and only
	 * where CAP_NET_ADMIN stays (path_needs_net_admin()).
	 */
	p->udp_raise = (tap_offloads() & TUN_F_USO4) &&
		       (!d->s.cfg->user || path_needs_net_admin(d));
	path_fit_gso(d);
	return 0;
}

void path_close(struct path *p)
{
	link_watch_close(p->watch);
	p->watch = NULL;
}

uint32_t path_tap_mtu(const struct path *p)
{
	return p->mtu;
}

/*
 * Port unreachable, in buf: nothing takes d's port at the peer; the port
 * d's encapsulation has without --port (its row's, IANA's), and where
 * Linux's own tunnel of that kind listens when not told, if elsewhere
 * (the kernel's vxlan's 8472, the port Linux took before IANA gave
 * 4789), which `dstport` changes to ours.
 */
static void path_port_hint(const struct device *d, char *buf, size_t len)
{
	enum encap_type t = d->s.encap.type;
	const char *name = encap_name(t);
	unsigned int port = d->s.cfg->port, linux_port = encap_linux_port(t);
	char linux_hint[96] = "";

	if (linux_port)
		snprintf(linux_hint, sizeof(linux_hint), "; the kernel's %s "
			 "listens on %u unless given dstport %u", name,
			 linux_port, port);
	snprintf(buf, len, "port unreachable: nothing takes UDP port %u "
		 "there: is its tunnel up, on that port? (%s's port is %u%s)",
		 port, name, (unsigned int)encap_default_port(t), linux_hint);
}

/* What an ICMP destination unreachable's code says (RFC 792, 1812). */
static enum path_icmp path_icmp4(uint8_t type, uint8_t code)
{
	if (type == ICMP_TIME_EXCEEDED)
		return PATH_ICMP_TTL;
	if (type != ICMP_DEST_UNREACH)
		return PATH_ICMP_OTHER;
	switch (code) {
	case ICMP_PORT_UNREACH:
		return PATH_ICMP_PORT;
	case ICMP_PROT_UNREACH:
		return PATH_ICMP_PROTOCOL;
	case ICMP_NET_UNREACH:
	case ICMP_NET_UNKNOWN:
	case ICMP_NET_UNR_TOS:
		return PATH_ICMP_NETWORK;
	case ICMP_NET_ANO:
	case ICMP_HOST_ANO:
	case ICMP_PKT_FILTERED:
	case ICMP_PREC_VIOLATION:
	case ICMP_PREC_CUTOFF:
		return PATH_ICMP_PROHIBITED;
	default:
		return PATH_ICMP_HOST;
	}
}

/* The same for ICMPv6 (RFC 4443 section 3). */
static enum path_icmp path_icmp6(uint8_t type, uint8_t code)
{
	if (type == ICMP6_TIME_EXCEEDED)
		return PATH_ICMP_TTL;
	/* An unrecognised next header: the peer takes no GRE. */
	if (type == ICMP6_PARAM_PROB && code == ICMP6_PARAMPROB_NEXTHEADER)
		return PATH_ICMP_PROTOCOL;
	if (type != ICMP6_DST_UNREACH)
		return PATH_ICMP_OTHER;
	switch (code) {
	case ICMP6_DST_UNREACH_NOPORT:
		return PATH_ICMP_PORT;
	case ICMP6_DST_UNREACH_ADDR:
		return PATH_ICMP_HOST;
	case ICMP6_DST_UNREACH_ADMIN:
	case 5:	/* source address failed ingress/egress policy */
	case 6:	/* reject route to destination */
		return PATH_ICMP_PROHIBITED;
	default:
		return PATH_ICMP_NETWORK;
	}
}

/*
 * A host unreachable that this host sent itself is its own neighbour
 * failing, not a router's word: arp_error_report() and
 * ndisc_error_report() answer a packet no neighbour took with an ICMP
 * error from our own address (i->own).
 */
static enum path_icmp path_icmp_own(const struct peer_icmp *i,
				    enum path_icmp c)
{
	return i->own && c == PATH_ICMP_HOST ? PATH_ICMP_NEIGHBOUR : c;
}

enum path_icmp path_icmp_cause(const struct peer_icmp *i)
{
	if (i->origin == SO_EE_ORIGIN_ICMP)
		return path_icmp_own(i, path_icmp4(i->type, i->code));
	if (i->origin == SO_EE_ORIGIN_ICMP6)
		return path_icmp_own(i, path_icmp6(i->type, i->code));
	return i->origin == SO_EE_ORIGIN_LOCAL ? PATH_ICMP_LOCAL
					       : PATH_ICMP_OTHER;
}

const char *path_icmp_name(enum path_icmp c)
{
	static const char *const names[] = {
		[PATH_ICMP_PORT] = "port", [PATH_ICMP_PROTOCOL] = "protocol",
		[PATH_ICMP_HOST] = "host", [PATH_ICMP_NETWORK] = "network",
		[PATH_ICMP_PROHIBITED] = "prohibited",
		[PATH_ICMP_TTL] = "ttl", [PATH_ICMP_LOCAL] = "local",
		[PATH_ICMP_NEIGHBOUR] = "neighbour",
		[PATH_ICMP_OTHER] = "other",
	};

	return names[c];
}

const char *path_icmp_hint(const struct device *d, const struct peer_icmp *i,
			   char *buf, size_t len)
{
	switch (path_icmp_cause(i)) {
	case PATH_ICMP_PORT:
		path_port_hint(d, buf, len);
		break;
	case PATH_ICMP_PROTOCOL:
		snprintf(buf, len, "protocol unreachable: it takes no GRE: is "
			 "its tunnel up?");
		break;
	case PATH_ICMP_HOST:
	case PATH_ICMP_NETWORK:
		snprintf(buf, len, "%s unreachable: a router on the way cannot "
			 "reach it", path_icmp_name(path_icmp_cause(i)));
		break;
	case PATH_ICMP_PROHIBITED:
		snprintf(buf, len, "administratively prohibited: a filter on "
			 "the way refuses the tunnel's packets");
		break;
	case PATH_ICMP_TTL:
		snprintf(buf, len, "time exceeded: a routing loop, or too "
			 "small a --ttl");
		break;
	case PATH_ICMP_LOCAL:
		snprintf(buf, len, "unreachable: %s (said by this host: no "
			 "neighbour answers?)", strerror(i->err));
		break;
	case PATH_ICMP_NEIGHBOUR:
		snprintf(buf, len, "host unreachable, said by this host: no "
			 "answer to %s from it (or from the router to it, if "
			 "one is on the way): is it up, on that link?",
			 i->from.family == AF_INET6 ? "neighbour discovery"
						    : "ARP");
		break;
	case PATH_ICMP_OTHER:
		snprintf(buf, len, "unreachable (type %u code %u): %s",
			 i->type, i->code, strerror(i->err));
		break;
	}
	return buf;
}

const char *path_icmp_what(const struct peer_icmp *i, char *buf, size_t len)
{
	static const char *const what[] = {
		[PATH_ICMP_PORT] = "port unreachable",
		[PATH_ICMP_PROTOCOL] = "protocol unreachable",
		[PATH_ICMP_HOST] = "host unreachable",
		[PATH_ICMP_NETWORK] = "network unreachable",
		[PATH_ICMP_PROHIBITED] = "administratively prohibited",
		[PATH_ICMP_TTL] = "time exceeded",
		[PATH_ICMP_NEIGHBOUR] = "host unreachable (no neighbour)",
	};
	enum path_icmp c = path_icmp_cause(i);

	if (c == PATH_ICMP_LOCAL || c == PATH_ICMP_OTHER)
		snprintf(buf, len, "unreachable (%s)", strerror(i->err));
	else
		snprintf(buf, len, "%s", what[c]);
	return buf;
}

/*
 * ICMP says packets to a peer do not arrive (port or host unreachable):
 * said once in a while, as traffic otherwise just stops.
 */
static void path_warn_unreach(struct device *d, const struct peer *e)
{
	char addr[INET6_ADDRSTRLEN], hint[200];
	unsigned long held;

	if (!log_limit_take(&d->path.unreach_warn, clock_now_ns(),
			    PATH_WARN_NS, &held))
		return;
	inet_ntop(e->addr.family, &e->addr.addr, addr, sizeof(addr));
	log_warn("%s: ICMP says of peer %s: %s", d->s.ifname, addr,
		 path_icmp_hint(d, &e->icmp, hint, sizeof(hint)));
}

/*
 * A peer's new ICMP error n into *i, and for a host unreachable whether
 * this host sent it (i->own): its sender one of our addresses, looked up
 * until it is found to be one (not the data path, and errors come
 * rate-limited), so that a lookup that failed once is not kept.
 */
static void path_icmp_sender(struct device *d, struct peer_icmp *i,
			     const struct peer_icmp *n)
{
	enum path_icmp was = path_icmp_cause(i);
	bool same = i->from.family && n->from.family == i->from.family &&
		    !memcmp(&n->from.addr, &i->from.addr,
			    n->from.family == AF_INET ? 4 : 16);
	bool own = false;
	uint32_t mtu;

	if (path_icmp_cause(n) != PATH_ICMP_HOST || !n->from.family)
		own = false;
	else if (same && was == PATH_ICMP_NEIGHBOUR)
		own = true;
	else if (d->link)
		own = !link_addr_mtu(d->link, &n->from, &mtu);
	*i = *n;
	i->own = own;
}

/* The peers the error queue said were unreachable, each told so. */
static void path_unreach(struct device *d, const struct underlay_errors *u)
{
	uint64_t now = clock_now_ns();
	struct peer *e = NULL;
	unsigned int i;

	for (i = 0; i < u->n_unreach; i++) {
		e = &d->s.peers->v[u->unreach_of[i].peer];
		e->icmp_ns = now;
		path_icmp_sender(d, &e->icmp, &u->unreach_of[i].last);
		e->st.icmp_unreach += u->unreach_of[i].n;
	}
	if (e)
		path_warn_unreach(d, e);
}

void path_errors(struct device *d, struct underlay *u, int fd)
{
	struct underlay_errors e;
	unsigned int i;

	underlay_read_errors(u, fd, &e);
	d->st.tx_icmp_too_big += e.too_big;
	d->st.tx_icmp_unreach += e.unreach;
	d->st.tx_icmp_muted += e.muted;
	path_unreach(d, &e);
	for (i = 0; i < e.n_mtu; i++)
		path_lower(d, e.mtu[i].peer, e.mtu[i].mtu);
	/* The peers are every device's. */
	for (i = 0; e.n_mtu && i < d->port->n_dev; i++)
		path_update(d->port->dev[i]);
}

bool path_needs_net_admin(const struct device *d)
{
	return !d->s.cfg->mtu;
}

static void path_watch_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct device *d = w->data;
	struct link_changes c;

	link_watch_read(d->path.watch, &c);
	if (c.any)
		path_check_changed(d, &c);
}

/*
 * Every PATH_RECHECK seconds: the route (a learnt PMTU may have expired),
 * ICMP errors heeded again after a flood (underlay_read_errors()), and
 * the tap's gso_max_size back to TCP's once bulk UDP is over.
 */
static void path_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct device *d = w->data;
	unsigned int i;

	/* Without a watch (not the main device), seen here. */
	if (path_tap_gone(d, NULL))
		return;
	for (i = 0; !d->idx && i < d->port->n_lanes; i++)
		underlay_errors_resume(&d->port->ul[i]);
	if (!d->idx)
		path_check(d);
	path_udp_bulk_over(d);
}

void path_watch(struct device *d)
{
	struct path *p = &d->path;

	ev_timer_init(&p->timer_w, path_timer_cb, PATH_RECHECK, PATH_RECHECK);
	p->timer_w.data = d;
	ev_timer_start(d->loop, &p->timer_w);
	if (p->watch) {
		ev_io_init(&p->watch_w, path_watch_cb, link_watch_fd(p->watch),
			   EV_READ);
		p->watch_w.data = d;
		ev_io_start(d->loop, &p->watch_w);
	}
	/* Started by path_send_failed(), on the main device's path. */
	ev_timer_init(&p->look_w, path_look_cb, 0., 0.);
	p->look_w.data = d;
}
