// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tx: the transmit path's I/O, tap reads in batches and the sends of
 * what xmit_frame() made of them, through io_uring.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include "base/bytes.h"
#include "base/clock.h"
#include "base/log.h"
#include "pipe/xmit.h"
#include "data/lane.h"
#include "data/tx.h"
#include "data/types.h"

#define TX_BUF_LEN (VNET_HDR_LEN + VNET_FRAME_MAX)

/*
 * ICMP "too big" into the tap: the kernel's icmp_msgs_per_sec and
 * icmp_msgs_burst defaults, for each queue.
 */
#define TX_ICMP_PER_SEC 1000
#define TX_ICMP_BURST 50

/* Batches one wake-up may chain before the loop looks elsewhere. */
#define TX_CHAIN 8

/* A set whose last reference went: its buffers may take frames again. */
static void tx_set_release(struct queue *q, struct tx_set *s)
{
	sendq_reset(s->q);
	s->arena.n = 0;
	/* Backpressure over: the tap is read again (tx_tap_cb). */
	if (!ev_is_active(&q->tx.tap_w) && pool_free(&q->tx.pool) == TX_SETS)
		ev_io_start(q->lane->loop, &q->tx.tap_w);
}

static void tx_put(struct queue *q, struct tx_set *s)
{
	if (pool_put(&q->tx.pool, s->idx))
		tx_set_release(q, s);
}

static bool tx_reads_pending(void *ctx)
{
	return ((struct queue *)ctx)->tx.reads > 0;
}

/* Sends into the current set still in flight (its owner holds one ref). */
static bool tx_cur_sending(void *ctx)
{
	const struct queue *q = ctx;

	return pool_busy(&q->tx.pool, q->tx.cur->idx);
}

/*
 * Hand the set's queued messages to the ring, one reference each; a full
 * ring is submitted (and its completions reaped) to make room.
 */
static void tx_submit(struct queue *q, struct tx_set *s)
{
	unsigned int n = sendq_pending(s->q);

	pool_ref(&q->tx.pool, s->idx, n);
	q->st.tx_sends += n;
	while (underlay_submit(q->lane->ul, s->q, q->lane->ring,
			       TAG_SEND | TAG_DEV(q->idx) | TAG_SET(s->idx))) {
		ring_submit(q->lane->ring);
		ring_reap(q->lane->ring, q->lane->done, q);
	}
}

/*
 * The current set's queue is full in the middle of a batch (a frame
 * flooded to many peers): send what it holds and wait for it, so that
 * its messages can be queued again. The arena keeps its segments.
 */
static void tx_flush_queue(struct queue *q)
{
	struct tx_set *s = q->tx.cur;

	tx_submit(q, s);
	ring_wait(q->lane->ring, q->lane->done, q, tx_cur_sending);
	sendq_reset(s->q);
}

/*
 * The current set's arena is full in the middle of a batch: send what it
 * holds and wait for it, so that its header blocks can be planned again.
 */
static void tx_flush(struct queue *q)
{
	tx_flush_queue(q);
	q->tx.cur->arena.n = 0;
}

/* Counts of one frame that xmit_frame() parsed. */
static void tx_count(struct queue *q, const struct xmit_out *o)
{
	q->st.tx_frames++;
	q->st.tx_bytes += o->f.len;
	if (o->f.gso)
		q->st.tx_gso_frames++;
	if (o->fit == PMTU_FIT_CUT)
		q->st.tx_resegmented++;
	else if (o->fit == PMTU_FIT_FRAGMENT)
		q->st.tx_fragmented++;
}

/* sendq_add() of the segments of frame o for peer e. */
static int tx_queue_add(struct queue *q, const struct xmit_out *o,
			const struct peer *e)
{
	struct tx_set *s = q->tx.cur;

	return sendq_add(s->q, underlay_sendq_params(q->lane->ul),
			 underlay_dst(q->lane->ul, e), o->src,
			 &s->arena.segs[o->first], (int)o->n, o->encap_len,
			 o->tos, o->df);
}

/* The segments of frame o for peer e, queued. */
static void tx_queue(struct queue *q, const struct xmit_out *o,
		     const struct peer *e)
{
	int r = tx_queue_add(q, o, e);

	/* Full (a frame flooded to many peers): send what it holds. */
	if (r == -ENOSPC) {
		tx_flush_queue(q);
		r = tx_queue_add(q, o, e);
	}
	/* An empty queue holds as many segments as the arena. */
	BUG_ON(r);
}

/*
 * Copies of frames that peers' routes refused (n[route], enum
 * peer_route), counted by cause.
 */
static void tx_count_refused(struct queue *q, const uint64_t *n)
{
	uint64_t now = clock_now_ns();

	if (n[PEER_ROUTE_NONE])
		stats_drop(&q->st, DROP_TX_PEER_NO_ROUTE, n[PEER_ROUTE_NONE],
			   now);
	if (n[PEER_ROUTE_CIRCULAR])
		stats_drop(&q->st, DROP_TX_CIRCULAR_ROUTE,
			   n[PEER_ROUTE_CIRCULAR], now);
}

/*
 * Head-end replication (vxlan_xmit() over the all-zeros entries): the
 * segments planned once, queued for every peer. A peer whose route
 * refuses frames (path.c) costs no send, only a count, as
 * vxlan_xmit_one() counts a circular route.
 */
static void tx_flood(struct queue *q, const struct xmit_out *o)
{
	struct peers *ps = q->dev->peers;
	uint64_t refused[PEER_ROUTE__MAX] = { 0 };
	unsigned int i;

	q->st.tx_flood++;
	for (i = 0; i < ps->n; i++) {
		unsigned int slot = ps->live[i];
		uint8_t route = ps->v[slot].route;

		/* The fabric's VTEPs of another VNI (evpn.c): not here. */
		if (ps->v[slot].evpn_only && q->dev->evpn &&
		    !(ps->v[slot].flood & (1u << q->idx)))
			continue;
		if (route != PEER_ROUTE_OK) {
			refused[route]++;
			continue;
		}
		q->lane->peer[slot].st.tx_flood += o->n;
		tx_queue(q, o, &ps->v[slot]);
	}
	if (refused[PEER_ROUTE_NONE] || refused[PEER_ROUTE_CIRCULAR])
		tx_count_refused(q, refused);
}

/* Frames for every peer (no forwarding entry; tx_dest()). */
#define TX_FLOOD (-1)
/* A tun's packet with no --route to its destination (tx_dest_ip()). */
#define TX_NO_ROUTE (-2)
/* No peer at all (a port that starts with none, or lost its last). */
#define TX_NO_PEER (-3)

/*
 * The peer a tap's frame of len bytes goes to, or TX_FLOOD: by its
 * destination MAC in the forwarding table (the kernel's vxlan_xmit()).
 */
static int tx_dest_mac(const struct queue *q, const uint8_t *frame,
		       size_t len)
{
	const struct dev_state *d = q->dev;
	int peer = -ENOENT;
	uint16_t vlan;
	uint64_t now;

	if (len < ETH_HLEN || (frame[0] & 1))
		return TX_FLOOD;
	vlan = fdb_frame_vlan(frame, len);
	now = clock_now_ns();
	if (fdb_count_static(&d->fdb) || fdb_count_learnt(&d->fdb))
		peer = fdb_lookup(&d->fdb, frame, vlan, now);
	/* Lanes on threads: a source handed up, not in the table yet. */
	if (peer < 0 && d->n_lanes > 1)
		peer = lane_recent_peer(d->lanes, d->n_lanes, q->idx, frame,
					vlan, now);
	return peer < 0 || !d->peers->v[peer].live ? TX_FLOOD : peer;
}

/* A local source is handed up again after a second, that its age restarts. */
#define TX_LOCAL_RESAY_NS 1000000000ull

/*
 * --evpn: the source MAC of a frame from the tap is local, and the
 * fabric is told of it (evpn.c): handed up unless this queue did so for
 * it in the last second (a small cache by hash), so that a tap whose
 * frames come from a few MACs costs a lookup of the cache per frame.
 */
static void tx_local_source(struct queue *q, const uint8_t *frame, size_t len)
{
	const uint8_t *src = frame + ETH_ALEN;
	struct tx_local *c;
	uint16_t vlan;
	uint64_t now;

	if (len < ETH_HLEN || (src[0] & 1))
		return;
	vlan = fdb_frame_vlan(frame, len);
	c = &q->tx.local[(src[5] ^ src[4] * 7u ^ vlan) % TX_LOCAL_CACHE];
	now = clock_now_ns();
	if (c->ns && !memcmp(c->mac, src, ETH_ALEN) && c->vlan == vlan &&
	    now - c->ns < TX_LOCAL_RESAY_NS)
		return;
	memcpy(c->mac, src, ETH_ALEN);
	c->vlan = vlan;
	c->ns = now;
	q->ops->local_mac(q, src, vlan, now);
}

/*
 * The peer a tun's packet of len bytes goes to, or TX_NO_ROUTE: by the
 * longest --route prefix that holds its destination, as the kernel's
 * lwtunnel routes (`ip route ... encap ip dst VTEP`) choose. A packet too
 * short for its destination has none either: tx_no_route() refuses it
 * for what vnet_hdr_parse_ip() says.
 */
static int tx_dest_ip(const struct queue *q, const uint8_t *pkt, size_t len)
{
	const struct dev_state *d = q->dev;
	int peer = -ENOENT;

	if (len >= 20 && pkt[0] >> 4 == 4)
		peer = route_lookup(&d->routes, AF_INET, pkt + 16);
	else if (len >= 40 && pkt[0] >> 4 == 6)
		peer = route_lookup(&d->routes, AF_INET6, pkt + 24);
	return peer < 0 || !d->peers->v[peer].live ? TX_NO_ROUTE : peer;
}

/*
 * The peer the read of len bytes at buf goes to, TX_FLOOD, TX_NO_ROUTE
 * or TX_NO_PEER.
 */
static int tx_dest(const struct queue *q, const uint8_t *buf, size_t len)
{
	const struct dev_state *d = q->dev;

	if (!d->peers->n)
		return TX_NO_PEER;
	if (len < VNET_HDR_LEN)
		return TX_FLOOD;
	/* One peer: where everything goes, as point to point always did. */
	if (d->peers->n == 1)
		return (int)d->peers->live[0];
	if (d->encap.l3)
		return tx_dest_ip(q, buf + VNET_HDR_LEN, len - VNET_HDR_LEN);
	return tx_dest_mac(q, buf + VNET_HDR_LEN, len - VNET_HDR_LEN);
}

/*
 * The ICMP error of len bytes that x->icmp_buf holds past its vnet
 * header, written into the tap (tun), rate limited; counted in *sent.
 */
static void tx_icmp_write(struct queue *q, size_t len, uint64_t *sent)
{
	struct tx *x = &q->tx;
	struct virtio_net_hdr hdr;

	if (!len)
		return;
	if (!pmtu_limit_take(&x->icmp_limit,
			     (uint64_t)(ev_now(q->lane->loop) * 1e9))) {
		q->st.tx_icmp_limited++;
		return;
	}
	vnet_hdr_build_plain(&hdr);
	memcpy(x->icmp_buf, &hdr, VNET_HDR_LEN);
	if (write(q->tap_fd, x->icmp_buf, VNET_HDR_LEN + len) < 0) {
		log_debug("tap write: %s", strerror(errno));
		stats_drop(&q->st, DROP_RX_WRITE, 1, clock_now_ns());
		return;
	}
	(*sent)++;
}

/*
 * ICMP "fragmentation needed" or "packet too big" for frame f, which
 * does not fit budget, written into the tap, so that its sender learns
 * the path MTU (icmp_send() of ip_tunnel_xmit()); rate limited.
 */
static void tx_icmp(struct queue *q, const struct frame *f, uint32_t budget)
{
	size_t len;

	len = pmtu_icmp_build(f, pmtu_icmp_mtu(f, budget),
			      q->tx.icmp_buf + VNET_HDR_LEN, PMTU_ICMP_MAX);
	tx_icmp_write(q, len, &q->st.tx_icmp_sent);
}

/*
 * Is the destination of IP packet f link-scoped: IPv4 link-local
 * (169.254/16, RFC 3927), the local network control block (224.0.0/24,
 * RFC 5771) or the limited broadcast; IPv6 link-local unicast
 * (fe80::/10) or multicast of interface- or link-local scope (RFC 4291
 * section 2.7)? What the host's own stack sends a tun by itself, router
 * solicitations and MLD reports (addrconf), is such; with several peers
 * it has no one next hop.
 */
static bool tx_link_scoped(const struct frame *f)
{
	const uint8_t *ip = f->data + f->l3_off, *dst;

	if (!f->ip)
		return false;
	if (f->ethertype == ETH_P_IP) {
		dst = ip + 16;
		return (dst[0] == 169 && dst[1] == 254) ||
		       (dst[0] == 224 && dst[1] == 0 && dst[2] == 0) ||
		       get_be32(dst) == 0xffffffffu;
	}
	dst = ip + 24;
	return (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80) ||
	       (dst[0] == 0xff && (dst[1] & 0x0f) <= 2);
}

/*
 * A read of len bytes at buf that goes to no peer, parsed into *f and
 * counted as read; false if it is malformed (counted by its cause).
 */
static bool tx_parse_unsent(struct queue *q, const uint8_t *buf, size_t len,
			    struct frame *f)
{
	struct virtio_net_hdr hdr;
	enum drop err = DROP_TX_SHORT;

	if (len >= VNET_HDR_LEN) {
		memcpy(&hdr, buf, sizeof(hdr));
		err = vnet_hdr_parse_as(q->dev->encap.l3, &hdr,
					buf + VNET_HDR_LEN,
					len - VNET_HDR_LEN, f);
	}
	if (err) {
		stats_drop(&q->st, err, 1, clock_now_ns());
		return false;
	}
	q->st.tx_frames++;
	q->st.tx_bytes += f->len;
	return true;
}

/*
 * A tun's packet that no --route takes (why, DROP_TX_NO_ROUTE, or
 * DROP_TX_NO_PEER with no peer at all): dropped and counted, and
 * answered with ICMP "net unreachable" (ICMPv6 "no route"), as a router
 * without a route does (ip_route_input_slow()'s RTN_UNREACHABLE). A
 * link-scoped one is not answered: no router forwards it, so its loss
 * is no routing error; with peers it is counted apart.
 */
static void tx_no_route(struct queue *q, const uint8_t *buf, size_t len,
			enum drop why)
{
	struct frame f;

	if (!tx_parse_unsent(q, buf, len, &f))
		return;
	if (tx_link_scoped(&f)) {
		stats_drop(&q->st, why == DROP_TX_NO_ROUTE ? DROP_TX_LINK_SCOPE
							   : why,
			   1, clock_now_ns());
		return;
	}
	stats_drop(&q->st, why, 1, clock_now_ns());
	/*
	 * From the packet's destination: gsotun has no address inside the
	 * tunnel, and one of the host's own would be a martian source to
	 * the host (fib_validate_source()).
	 */
	tx_icmp_write(q,
		      pmtu_icmp_unreach_build(&f, q->tx.icmp_buf + VNET_HDR_LEN,
					      PMTU_ICMP_MAX),
		      &q->st.tx_icmp_no_route);
}

/*
 * A frame, no peer to send it to: dropped and counted, as the kernel's
 * vxlan drops one that no forwarding entry and no default destination
 * takes (vxlan_xmit(): "no fdb entry"); a tun's packet is answered as
 * one no route takes (tx_no_route()).
 */
static void tx_no_peer(struct queue *q, const uint8_t *buf, size_t len)
{
	struct frame f;

	if (q->dev->encap.l3) {
		tx_no_route(q, buf, len, DROP_TX_NO_PEER);
		return;
	}
	if (tx_parse_unsent(q, buf, len, &f))
		stats_drop(&q->st, DROP_TX_NO_PEER, 1, clock_now_ns());
}

/*
 * A frame for a peer whose route refuses it (path.c): counted as read,
 * and dropped by the route's cause without a send.
 */
static void tx_refused(struct queue *q, const uint8_t *buf, size_t len,
		       uint8_t route)
{
	uint64_t n[PEER_ROUTE__MAX] = { 0 };
	struct frame f;

	if (!tx_parse_unsent(q, buf, len, &f))
		return;
	n[route] = 1;
	tx_count_refused(q, n);
}

/*
 * Whether the frame goes to no peer (dest, tx_dest()): then it is
 * dropped and counted here.
 */
static bool tx_unsent(struct queue *q, const uint8_t *buf, size_t len, int dest)
{
	const struct peers *ps = q->dev->peers;

	if (dest == TX_NO_PEER)
		tx_no_peer(q, buf, len);
	else if (dest == TX_NO_ROUTE)
		tx_no_route(q, buf, len, DROP_TX_NO_ROUTE);
	else if (dest >= 0 && ps->v[dest].route != PEER_ROUTE_OK)
		tx_refused(q, buf, len, ps->v[dest].route);
	else
		return false;
	return true;
}

/*
 * --geneve-echo: a packet of a flow whose options came from a peer goes
 * to that peer with them (the queue's copy of the device's encapsulation,
 * encap_set_tlv()), wherever its route would send it: the Gateway Load
 * Balancer wants its flow cookie back. Others go as routed, counted.
 */
static const struct encap_cfg *tx_echo(struct queue *q, const uint8_t *buf,
				       size_t len, int *dest)
{
	const struct dev_state *d = q->dev;
	struct echo_hit *hit = &q->tx.echo_hit;
	struct echo_key k;

	if (len <= VNET_HDR_LEN || !d->peers->n ||
	    !echo_key_of(buf + VNET_HDR_LEN, len - VNET_HDR_LEN, &k))
		return &d->encap;
	if (!echo_lookup(d->echo, &k, echo_hash(d->echo, &k), clock_now_ns(),
			 hit) ||
	    hit->peer >= d->peers->cap || !d->peers->v[hit->peer].live) {
		q->st.tx_echo_miss++;
		return &d->encap;
	}
	q->st.tx_echo++;
	*dest = (int)hit->peer;
	q->tx.echo_encap = d->encap;
	encap_set_tlv(&q->tx.echo_encap, hit->opts, hit->len);
	return &q->tx.echo_encap;
}

/* One frame from the tap: composed for the wire and queued. */
static void tx_frame(struct queue *q, const uint8_t *buf, size_t len)
{
	const struct dev_state *d = q->dev;
	int dest = tx_dest(q, buf, len);
	const struct encap_cfg *ec =
		d->echo ? tx_echo(q, buf, len, &dest) : &d->encap;
	struct xmit_cfg c = {
		.encap = ec,
		.budget = dest < 0 ?
				  d->budget :
				  pmtu_path_budget(&d->encap, d->ipv6,
						   d->peers->v[dest].path_mtu),
		.pmtud = d->cfg->pmtud,
		.tos_inherit = d->cfg->tos_mode == TOS_INHERIT,
		.df_inherit = d->cfg->df == DF_INHERIT,
		.n_src = underlay_n_src(q->lane->ul),
	};
	struct tx_set *s = q->tx.cur;
	uint32_t fit = d->udp_fit;
	struct xmit_out o;
	int r;

	if (d->evpn && len > VNET_HDR_LEN)
		tx_local_source(q, buf + VNET_HDR_LEN, len - VNET_HDR_LEN);
	if (tx_unsent(q, buf, len, dest))
		return;
	r = xmit_frame(&c, &q->tx.gre_seq, buf, len, &s->arena, &o);
	/* The arena is full: send what it holds, plan into it again. */
	if (r == -ENOSPC && s->arena.n) {
		tx_flush(q);
		r = xmit_frame(&c, &q->tx.gre_seq, buf, len, &s->arena, &o);
	}
	if (r == -ENOSPC)
		r = DROP_TX_SEGMENT;
	if (o.parsed)
		tx_count(q, &o);
	if (o.parsed && o.fit == PMTU_FIT_ICMP)
		tx_icmp(q, &o.f, c.budget);
	if (o.parsed && fit) {
		enum xmit_bulk b = xmit_udp_bulk(&q->tx.train, &o.f, fit);

		if (b != XMIT_BULK_NONE)
			q->ops->udp_bulk(q, b);
	}
	if (r) {
		stats_drop(&q->st, r, 1, clock_now_ns());
		return;
	}
	if (dest == TX_FLOOD)
		tx_flood(q, &o);
	else
		tx_queue(q, &o, &d->peers->v[dest]);
}

static void tx_read(struct queue *q, struct tx_set *s, int batch)
{
	int i;

	for (i = 0; i < batch; i++)
		s->lens[i] = -EAGAIN;
	for (i = 0; i < batch; i++) {
		if (ring_read(q->lane->ring, q->tap_fd, s->bufs[i], TX_BUF_LEN,
			      TAG_READ | TAG_DEV(q->idx) | TAG_SET(s->idx) | i))
			break;
		q->tx.reads++;
	}
}

/* The frames a batch of reads brought: validate, plan, queue. */
static int tx_frames(struct queue *q, struct tx_set *s, int batch)
{
	int i, got = 0;

	for (i = 0; i < batch; i++) {
		int n = s->lens[i];

		if (n >= 0)
			got++;
		/* tun_put_user() reports a frame it truncated at full size. */
		if (n > TX_BUF_LEN)
			stats_drop(&q->st, DROP_TX_READ, 1, clock_now_ns());
		else if (n >= 0)
			tx_frame(q, s->bufs[i], n);
		else if (n != -EAGAIN && n != -EINTR)
			stats_drop(&q->st, DROP_TX_READ, 1, clock_now_ns());
	}
	return got;
}

/*
 * Twice what the last batch found (all of max when it found all it asked
 * for), so a lone request costs two reads and a stream TAP_BATCH.
 */
static int tx_next_batch(int batch, int got, int max)
{
	int next = got < 1 ? 2 : got * 2;

	return got == batch || next > max ? max : next;
}

/*
 * Take a set for the first batch of reads of a wake-up (no set may have
 * sends in flight, so that sends leave in the order frames came), or for
 * the next batch of a chain (only the current one may).
 */
static struct tx_set *tx_take(struct queue *q, unsigned int busy)
{
	int i;

	if (pool_free(&q->tx.pool) != TX_SETS - busy)
		return NULL;
	i = pool_take(&q->tx.pool);
	return i < 0 ? NULL : &q->tx.sets[i];
}

/*
 * The tap is readable. Each io_uring_enter() carries the sends of the
 * batch just planned and the reads of the next, into the other set (the
 * reads past the last waiting frame end at once with -EAGAIN). Sends
 * complete inline unless the socket is full; then a set stays referenced
 * until its completions come through the eventfd, and the tap is not
 * read meanwhile (backpressure: nothing is dropped for lack of room).
 */
static void tx_tap_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct queue *q = w->data;
	struct tx *x = &q->tx;
	int batch = x->batch, got, i;
	struct tx_set *s = tx_take(q, 0), *next;

	if (!s) {
		q->st.tx_backpressure++;
		ev_io_stop(loop, w);
		return;
	}
	lane_busy(q->lane);
	x->cur = s;
	tx_read(q, s, batch);
	for (i = 0;; i++) {
		ring_wait(q->lane->ring, q->lane->done, q, tx_reads_pending);
		got = tx_frames(q, s, batch);
		x->batch = tx_next_batch(batch, got, x->batch_max);
		tx_submit(q, s);
		next = NULL;
		if (got == batch && i + 1 < TX_CHAIN && x->batch_max > 1)
			next = tx_take(q, 1);
		tx_put(q, s);
		if (!next)
			break;
		s = x->cur = next;
		batch = x->batch;
		tx_read(q, s, batch);
	}
	ring_submit(q->lane->ring);
	ring_reap(q->lane->ring, q->lane->done, q);
	if (pool_free(&x->pool) != TX_SETS) {
		q->st.tx_backpressure++;
		ev_io_stop(loop, w);
	}
}

/* The peer message m went to: its msg_name, or the connected one. */
static struct peer *tx_msg_peer(const struct queue *q,
				const struct sendq *sq, unsigned int m)
{
	const void *name = sq->msgs[m].msg.msg_name;
	struct peers *ps = q->dev->peers;

	return name ? peer_of_name(name) : &ps->v[ps->live[0]];
}

/* The errors of a send that say the underlay does not reach the peer. */
static bool tx_err_unreachable(int err)
{
	return err == ENETUNREACH || err == EHOSTUNREACH || err == ENETDOWN;
}

/*
 * The completion of one send: counted, a set freed with its last. A
 * zero-copy send's result (RING_MORE) keeps its reference: the kernel
 * may still read the set's buffers until the notification (tx_zc_done()).
 */
static void tx_send_done(struct queue *q, struct tx_set *s, unsigned int m,
			 int res, unsigned int flags)
{
	struct peer *e = tx_msg_peer(q, s->q, m);
	struct peer_stats *ps = &q->lane->peer[e - q->dev->peers->v].st;
	struct underlay_sent out;

	underlay_complete(q->lane->ul, s->q, m, res, &out);
	if (out.dropped && tx_err_unreachable(out.err))
		q->ops->send_failed(q, e, out.err);
	ps->tx_packets += out.segments;
	ps->tx_bytes += out.bytes;
	ps->tx_drops += out.dropped;
	q->st.tx_segments += out.segments;
	q->st.tx_sends += out.sends;
	if (out.dropped)
		stats_drop(&q->st, DROP_TX_SEND, out.dropped, clock_now_ns());
	q->st.tx_gso_fallback += out.gso_fallback;
	q->st.tx_gso_oversize += out.gso_oversize;
	if (!(flags & RING_MORE))
		tx_put(q, s);
}

/*
 * A zero-copy send's notification: the kernel let go of the set's pages
 * (copied is 1 if it had copied them after all, as on a veth's local
 * delivery); the send's reference goes.
 */
static void tx_zc_done(struct queue *q, struct tx_set *s, int copied)
{
	q->st.tx_zerocopy++;
	q->st.tx_zerocopy_copied += copied;
	tx_put(q, s);
}

void tx_done(struct queue *q, uint64_t data, int res, unsigned int flags)
{
	struct tx_set *s = &q->tx.sets[TAG_SET_OF(data)];

	if (TAG_KIND(data) == TAG_SEND && (flags & RING_NOTIF)) {
		tx_zc_done(q, s, res);
		return;
	}
	if (TAG_KIND(data) == TAG_SEND) {
		tx_send_done(q, s, (uint32_t)data, res, flags);
		return;
	}
	s->lens[(uint32_t)data] = res;
	q->tx.reads--;
}

static int tx_set_alloc(struct tx_set *s, unsigned int idx)
{
	uint8_t *slots;
	struct seg *segs;
	int i;

	s->idx = idx;
	for (i = 0; i < TAP_BATCH; i++) {
		s->bufs[i] = malloc(TX_BUF_LEN);
		if (!s->bufs[i])
			return -ENOMEM;
	}
	slots = malloc(SENDQ_SEGS * GSO_SLOT);
	segs = calloc(SENDQ_SEGS, sizeof(*segs));
	seg_arena_init(&s->arena, slots, segs, SENDQ_SEGS);
	s->q = calloc(1, sizeof(*s->q));
	if (!slots || !segs || !s->q)
		return -ENOMEM;
	return 0;
}

static void tx_set_free(struct tx_set *s)
{
	int i;

	for (i = 0; i < TAP_BATCH; i++)
		free(s->bufs[i]);
	free(s->arena.slots);
	free(s->arena.segs);
	free(s->q);
}

int tx_init(struct queue *q)
{
	struct tx *x = &q->tx;
	unsigned int i;

	pool_init(&x->pool, TX_SETS);
	pmtu_limit_init(&x->icmp_limit, TX_ICMP_PER_SEC, TX_ICMP_BURST);
	x->cur = &x->sets[0];
	/* --no-offload, the classic userspace tunnel: a frame per read. */
	x->batch_max = q->dev->cfg->offload ? TAP_BATCH : 1;
	x->batch = x->batch_max;
	for (i = 0; i < TX_SETS; i++) {
		if (tx_set_alloc(&x->sets[i], i)) {
			log_err("out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

void tx_free(struct tx *x)
{
	unsigned int i;

	for (i = 0; i < TX_SETS; i++)
		tx_set_free(&x->sets[i]);
}

/* Sends into any set still in flight. */
static bool tx_any_sending(void *ctx)
{
	const struct queue *q = ctx;

	return pool_free(&q->tx.pool) != TX_SETS;
}

void tx_quiesce(struct queue *q)
{
	ring_submit(q->lane->ring);
	ring_wait(q->lane->ring, q->lane->done, q, tx_any_sending);
}

void tx_watch(struct queue *q)
{
	ev_io_init(&q->tx.tap_w, tx_tap_cb, q->tap_fd, EV_READ);
	q->tx.tap_w.data = q;
	ev_io_start(q->lane->loop, &q->tx.tap_w);
}
