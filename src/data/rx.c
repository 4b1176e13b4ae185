// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rx: the receive path's I/O, the underlay's datagrams in batches and the
 * tap writes of what decap_packet() made of them, through io_uring.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "base/clock.h"
#include "base/log.h"
#include "encap/decap.h"
#include "sys/tap.h"
#include "data/lane.h"
#include "data/rx.h"
#include "data/types.h"

static bool rx_writes_pending(void *ctx)
{
	return ((struct queue *)ctx)->rx.writes > 0;
}

/*
 * UDP datagrams are merged when the tap was given USO (TUN_F_USO4|6,
 * Linux 6.2) and, with --udp-gro auto, the kernel cuts a UDP super-frame
 * that reaches a tunnel socket behind the tap (gro_kernel_cuts_udp_gso());
 * until the tap refuses one (rx_uso_refused()).
 */
static bool rx_kernel_merges_udp(enum udp_gro mode)
{
	struct utsname u;

	if (!(tap_offloads() & TUN_F_USO4) || mode == UDP_GRO_OFF)
		return false;
	if (mode == UDP_GRO_ON)
		return true;
	if (uname(&u) < 0) {
		log_warn_errno("uname: UDP datagrams are not merged");
		return false;
	}
	if (gro_kernel_cuts_udp_gso(u.release))
		return true;
	log_info("UDP datagrams are not merged: Linux %s would decapsulate "
		 "a UDP super-frame of a tunnel nested in the overlay whole "
		 "(fixed in 6.9, 6.8.5 and 6.6.26; --udp-gro on if it has "
		 "the fix)", u.release);
	return false;
}

/* What gro did in the batch, into the counters. */
static void rx_count_gro(struct queue *q)
{
	struct gro_counts *n = &q->rx.gro->n;

	q->st.rx_gro_merged += n->merged;
	q->st.rx_gso_frames += n->gso_frames;
	q->st.rx_udp_merged += n->udp_merged;
	q->st.rx_udp_gso_frames += n->udp_gso_frames;
	q->st.rx_csum_partial += n->csum_partial;
	q->st.rx_inner_csum_bad += n->inner_csum_bad;
	memset(n, 0, sizeof(*n));
}

/* The iovec of one frame for the tap: vnet header, headers, slices. */
static int rx_frame_iov(struct gro_frame *fr, struct iovec *iov)
{
	int n = 0;

	iov[n].iov_base = &fr->vnet;
	iov[n++].iov_len = VNET_HDR_LEN;
	if (fr->hdr_len) {
		iov[n].iov_base = fr->hdr;
		iov[n++].iov_len = fr->hdr_len;
	}
	memcpy(&iov[n], fr->slices, fr->n_slices * sizeof(iov[0]));
	return n + fr->n_slices;
}

/*
 * The end of a receive batch: every frame goes to the tap, all with one
 * io_uring submission, no timers; the batch's buffers are reused once
 * every write has completed.
 */
static void rx_flush(struct queue *q)
{
	struct gro *g = q->rx.gro;
	unsigned int i;

	gro_flush(g);
	rx_count_gro(q);
	for (i = 0; i < g->n_frames; i++) {
		struct iovec *iov = q->rx.tap_iov[i];
		int n = rx_frame_iov(&g->frames[i], iov);

		while (ring_writev(q->lane->ring, q->tap_fd, iov, n,
				   TAG_WRITE | TAG_DEV(q->idx) | i)) {
			ring_submit(q->lane->ring);
			ring_reap(q->lane->ring, q->lane->done, q);
		}
		q->rx.writes++;
	}
	ring_wait(q->lane->ring, q->lane->done, q, rx_writes_pending);
	gro_reset(g);
}

/* Seconds between two warnings of one cause (rx_warn()). */
#define RX_WARN_INTERVAL 10
/*
 * --rx-coalesce: receives in a millisecond that make a stream, some
 * 770 Mbit/s of 1500-byte packets; a ping or a request's round trips
 * stay under it.
 */
#define RX_COALESCE_STREAM 64

/* A VNI or key as a warning says it, into buf: "none" if there is none. */
static const char *rx_id_text(bool has, uint32_t id, char *buf, size_t size)
{
	if (!has)
		return "none";
	snprintf(buf, size, "%u", id);
	return buf;
}

/*
 * The warning a drop gets, if a wrong set-up is its likely cause; which
 * of its drops say another encapsulation, the row of type t says.
 */
static bool rx_warn_cause(enum encap_type t, enum drop why, enum rx_warn *w)
{
	switch (why) {
	case DROP_RX_SOURCE:
		*w = RX_WARN_SOURCE;
		return true;
	case DROP_RX_VNI:
	case DROP_RX_KEY:
		*w = RX_WARN_ID;
		return true;
	default:
		*w = RX_WARN_FOREIGN;
		return encap_drop_foreign(t, why);
	}
}

/* The sender's address of a dropped packet, as show names it. */
static void rx_seen_from(struct rx_seen *s, const struct sockaddr_storage *ss)
{
	const uint8_t *addr = peer_sockaddr_bytes(ss);

	s->from.family = addr ? ss->ss_family : 0;
	if (addr)
		memcpy(&s->from.addr, addr, ss->ss_family == AF_INET6 ? 16 : 4);
}

/*
 * A packet dropped for a cause a wrong set-up gives (another VNI or key,
 * another encapsulation, a source that is no peer): said once in a while,
 * naming the sender, since otherwise traffic just stops. pkt is the
 * packet at its encapsulation header, or NULL.
 */
static void rx_warn(struct queue *q, const struct rx_pkt *p,
		    const uint8_t *pkt, size_t len, enum drop why,
		    uint64_t now)
{
	char from[INET6_ADDRSTRLEN] = "?", got[16], own[16], more[40] = "";
	const struct encap_cfg *e = &q->dev->encap;
	const char *name = encap_name(e->type);
	bool has;
	struct rx_seen *seen;
	unsigned long held;
	enum rx_warn w;
	uint32_t id = 0;

	if (!rx_warn_cause(e->type, why, &w))
		return;
	/* What gsotunctl show names, of every such packet. */
	seen = &q->rx.seen[w];
	rx_seen_from(seen, p->from);
	seen->has_id = w == RX_WARN_ID && pkt &&
		       encap_peek_id(e->type, pkt, len, &seen->id);
	if (!log_limit_take(&q->rx.warn[w], now,
			    RX_WARN_INTERVAL * 1000000000ull, &held))
		return;
	if (peer_sockaddr_bytes(p->from))
		inet_ntop(p->from->ss_family, peer_sockaddr_bytes(p->from),
			  from, sizeof(from));
	if (held)
		snprintf(more, sizeof(more), " (and %lu more since)", held);
	if (w == RX_WARN_SOURCE) {
		log_warn("%s: dropping packets from %s, which is not a peer "
			 "(--remote, --peers, --allow)%s", q->dev->ifname, from,
			 more);
	} else if (w == RX_WARN_ID) {
		has = seen->has_id;
		id = seen->id;
		log_warn("%s: dropping %s packets with %s %s from %s, "
			 "expecting %s%s", q->dev->ifname, name,
			 encap_id_name(e->type),
			 rx_id_text(has, id, got, sizeof(got)), from,
			 rx_id_text(encap_has_id(e), encap_id(e), own,
				    sizeof(own)),
			 more);
	} else {
		log_warn("%s: dropping packets from %s that are not %s: is "
			 "it set up for another encapsulation?%s",
			 q->dev->ifname, from, name, more);
	}
}

/* A source learnt this recently is not handed to the device again (ns). */
#define RX_RELEARN_NS 1000000000ull

/* A source MAC and VLAN from peer learnt less than a second ago. */
static bool rx_learnt_just_now(const struct rx_learnt *l, const uint8_t *mac,
			       uint16_t vlan, int peer, uint64_t now)
{
	return peer == l->peer && vlan == l->vlan &&
	       now - l->ns < RX_RELEARN_NS && !memcmp(mac, l->mac, ETH_ALEN);
}

/*
 * What the source of a frame from peer (-1: a sender that is no peer)
 * teaches: a frame from the tap's own MAC is a loop, or a peer that
 * claims to be us (vxlan_set_mac()); with --learning a source not
 * learnt just now goes to the device (vxlan_snoop()). One the device
 * could not take is not tried again for a second either.
 */
static enum drop rx_learn(struct queue *q, int peer, const uint8_t *frame,
			  size_t len, uint64_t now)
{
	const struct dev_state *d = q->dev;
	struct rx_learnt *last = &q->rx.last;
	const uint8_t *mac = frame + ETH_ALEN;
	enum drop why;
	uint16_t vlan;

	if (len < ETH_HLEN)
		return DROP_NONE;
	if (!memcmp(mac, d->mac, ETH_ALEN))
		return DROP_RX_MAC_OWN;
	if (!d->learning)
		return DROP_NONE;
	if (peer < 0) {
		q->st.rx_learn_not_peer++;
		return DROP_NONE;
	}
	vlan = fdb_frame_vlan(frame, len);
	if (rx_learnt_just_now(last, mac, vlan, peer, now))
		return DROP_NONE;
	why = q->ops->learn(q, (unsigned int)peer, mac, vlan, now);
	if (why)
		return why;
	memcpy(last->mac, mac, ETH_ALEN);
	last->vlan = vlan;
	last->peer = peer;
	last->ns = now;
	return DROP_NONE;
}

/*
 * --strict-source: a tun's packet from peer (-1: an --allow source, no
 * peer) whose inner source address the route table does not send back
 * to that peer is dropped, as WireGuard checks a packet's source against
 * its peer's allowed IPs. Off, as the kernel's GRE checks nothing. A
 * packet too short for its source is left to gro_add() to drop.
 */
static enum drop rx_check_source(const struct queue *q, int peer,
				 const uint8_t *pkt, size_t len)
{
	const struct dev_state *d = q->dev;
	int routed;

	if (!d->cfg->strict_source)
		return DROP_NONE;
	if (len >= 20 && pkt[0] >> 4 == 4)
		routed = route_lookup(&d->routes, AF_INET, pkt + 12);
	else if (len >= 40 && pkt[0] >> 4 == 6)
		routed = route_lookup(&d->routes, AF_INET6, pkt + 8);
	else
		return DROP_NONE;
	return peer >= 0 && routed == peer ? DROP_NONE : DROP_RX_SOURCE_ROUTE;
}

/*
 * What a packet's inner frame says of its source: a tap's frame teaches
 * where a MAC is (rx_learn()), a tun's packet may be held to its peer's
 * routes (rx_check_source()).
 */
static enum drop rx_source(struct queue *q, int peer, const uint8_t *inner,
			   size_t len, uint64_t now)
{
	if (q->dev->encap.l3)
		return rx_check_source(q, peer, inner, len);
	return rx_learn(q, peer, inner, len, now);
}

void rx_forget_learnt(struct queue *q)
{
	q->rx.last.peer = -1;
}

/*
 * A packet of p dropped for why, counted by its queue and, of a peer, by
 * the lane as that peer's: by cause, and what the last one was (with the
 * VNI or key of a wrong one: pkt, at its encapsulation header, or NULL),
 * so that show can say why a peer's packets are refused. Drops only: the
 * packets that are accepted cost nothing here.
 */
static void rx_drop(struct queue *q, const struct rx_pkt *p,
		    const uint8_t *pkt, size_t len, enum drop why, uint64_t now)
{
	struct lane_peer *lp;
	int slot = peer_drop_slot(why);

	stats_drop(&q->st, why, 1, now);
	if (p->peer < 0)
		return;
	lp = &q->lane->peer[p->peer];
	lp->st.rx_drops++;
	if (slot >= 0)
		lp->drop[slot]++;
	lp->drop_ns = now;
	lp->drop_why = (uint8_t)why;
	lp->drop_has_id = (why == DROP_RX_VNI || why == DROP_RX_KEY) && pkt &&
			  encap_peek_id(q->dev->encap.type, pkt, len,
					&lp->drop_id);
}

/* A flow's options are looked up again after a second, to age it. */
#define RX_ECHO_RESAY_NS 1000000000ull

/* Is this the flow, peer and options rx_echo_learn() kept last? */
static bool rx_echo_same(const struct rx_echo *m, const struct echo_key *k,
			 unsigned int peer, const struct decap_out *out,
			 uint64_t now)
{
	return m->ns && now - m->ns < RX_ECHO_RESAY_NS && m->peer == peer &&
	       m->len == out->tlv_len && !memcmp(&m->key, k, sizeof(*k)) &&
	       !memcmp(m->opts, out->tlv, out->tlv_len);
}

/*
 * --geneve-echo: a tun's packet from peer, its flow and the options it
 * came with kept for the flow's return packets (tx_echo()). A burst of
 * one flow costs a compare a packet, not the table's lock.
 */
static void rx_echo_learn(struct queue *q, unsigned int peer,
			  const struct decap_out *out, uint64_t now)
{
	struct echo_table *t = q->dev->echo;
	struct rx_echo *m = &q->rx.echo;
	struct echo_key k;

	if (!echo_key_of(out->inner, out->inner_len, &k) ||
	    rx_echo_same(m, &k, peer, out, now))
		return;
	switch (echo_learn(t, &k, echo_hash(t, &k), peer, out->tlv,
			   out->tlv_len, now)) {
	case ECHO_TOO_LONG:
		q->st.rx_echo_too_long++;
		return;
	case ECHO_EVICTED:
		q->st.rx_echo_evicted++;
		/* fall through */
	case ECHO_NEW:
		q->st.rx_echo_new++;
		break;
	case ECHO_KEPT:
	case ECHO_CHANGED:
		break;
	}
	m->key = k;
	m->peer = peer;
	m->len = out->tlv_len;
	memcpy(m->opts, out->tlv, out->tlv_len);
	m->ns = now;
}

/*
 * One packet of p (a datagram of its UDP GRO batch): its source MAC
 * learnt (a tun's source checked), then a full batch goes to the tap
 * first. Whether it was accepted (not dropped).
 */
static bool rx_packet(struct queue *q, const struct rx_pkt *p, uint8_t *pkt,
		      size_t len, uint64_t now)
{
	struct decap_out out;
	enum gro_result r;
	enum drop why;

	if (decap_strip(&q->dev->encap, pkt, len, p->ecn, &out)) {
		rx_drop(q, p, pkt, len, out.drop, now);
		rx_warn(q, p, pkt, len, out.drop, now);
		return false;
	}
	q->st.rx_ecn_ce += out.ce;
	why = rx_source(q, p->peer, out.inner, out.inner_len, now);
	if (why) {
		rx_drop(q, p, NULL, 0, why, now);
		return false;
	}
	if (q->dev->echo && p->peer >= 0)
		rx_echo_learn(q, (unsigned int)p->peer, &out, now);
	r = decap_again(q->rx.gro, &out);
	if (r == GRO_FULL) {
		rx_flush(q);
		r = decap_again(q->rx.gro, &out);
	}
	if (r == GRO_DROPPED) {
		rx_drop(q, p, NULL, 0, out.drop, now);
		return false;
	}
	return true;
}

/*
 * A receive the underlay dropped before its datagrams were looked at
 * (p->data is NULL): the main device's queue q counts it as one
 * datagram, and so does its peer's lane, if a peer sent it.
 */
static void rx_dropped(struct queue *q, const struct rx_pkt *p, uint64_t now)
{
	q->st.rx_packets++;
	q->st.rx_segments++;
	q->st.rx_bytes += p->wire_len;
	if (p->peer >= 0) {
		struct lane_peer *lp = &q->lane->peer[p->peer];

		lp->st.rx_packets++;
		lp->st.rx_bytes += p->wire_len;
		lp->rx_last_ns = now;
	}
	rx_drop(q, p, NULL, 0, p->drop, now);
	rx_warn(q, p, NULL, 0, p->drop, now);
}

/* Back-to-back datagrams of one receive for one queue (rx_datagrams()). */
struct rx_run {
	struct queue *q;	/* NULL: none yet */
	uint32_t segs;
	size_t bytes;
	bool accepted;	/* one of them at least was accepted */
};

/*
 * A run of receive p, into its queue's counters and its peer's: a
 * receive counts once in each queue's rx_packets (*seen: the queues that
 * counted it already), its datagrams in rx_segments.
 */
static void rx_count_run(const struct rx_pkt *p, const struct rx_run *r,
			 uint64_t now, uint32_t *seen)
{
	struct queue *q = r->q;

	if (!q)
		return;
	if (!(*seen & 1u << q->idx))
		q->st.rx_packets++;
	*seen |= 1u << q->idx;
	q->st.rx_segments += r->segs;
	q->st.rx_bytes += r->bytes;
	q->st.rx_udp_csum_zero += p->csum_zero ? r->segs : 0;
	if (p->peer >= 0) {
		struct lane_peer *lp = &q->lane->peer[p->peer];

		lp->st.rx_packets += r->segs;
		lp->st.rx_bytes += r->bytes;
		lp->rx_last_ns = now;
		/* The batch's time once a run, not a store a packet. */
		if (r->accepted)
			lp->rx_ok_ns = now;
	}
}

static bool rx_queue_is(const struct queue *q, uint32_t id)
{
	return q->dev->id == id;
}

/*
 * The queue a datagram is for, by the VNI or key it carries: the main
 * device's when no other has it, which then drops it if it is not its
 * own either, counted. Most datagrams are for the queue of the one
 * before (last), looked at first.
 */
static struct queue *rx_queue(const struct lane *l, struct queue *last,
			      const uint8_t *pkt, size_t len)
{
	struct queue *main = l->q[0];
	unsigned int i;
	uint32_t id;

	if (!encap_peek_id(main->dev->encap.type, pkt, len, &id))
		return main;
	if (last && rx_queue_is(last, id))
		return last;
	for (i = 1; i < l->n_q; i++)
		if (rx_queue_is(l->q[i], id))
			return l->q[i];
	return main;
}

/*
 * The datagrams of receive p (gro_split_next()), each to the queue of
 * its VNI or key, counted in runs of one queue; *got gains the queues
 * that got some. One receive may hold several VNIs: the socket's UDP
 * GRO joins datagrams by their UDP flow alone
 * (udp_gro_receive_segment()), while the kernel's vxlan would never
 * merge two VNIs (vxlan_gro_receive() holds packets of another VNI or
 * other flags apart). With one device a receive is one run.
 */
static void rx_datagrams(const struct lane *l, const struct rx_pkt *p,
			 uint64_t now, uint32_t *got)
{
	struct rx_run run = { .q = NULL };
	/* The bytes of the outer headers underlay_recv() stripped. */
	size_t outer = p->wire_len - p->len, off, len;
	bool many = l->n_q > 1;
	struct queue *q = l->q[0];
	struct gro_split s;
	uint32_t seen = 0;

	gro_split_init(&s, p->len, p->gso_size);
	while (gro_split_next(&s, &off, &len)) {
		if (many)
			q = rx_queue(l, run.q, p->data + off, len);
		if (q != run.q) {
			rx_count_run(p, &run, now, &seen);
			run = (struct rx_run){ .q = q, .bytes = outer };
			outer = 0;
		}
		run.segs++;
		run.bytes += len;
		run.accepted |= rx_packet(q, p, p->data + off, len, now);
	}
	rx_count_run(p, &run, now, &seen);
	*got |= seen;
}

/*
 * One receive batch of the lane's socket fd: its packets to their
 * queues, each queue's frames written out. The number of packets, 0
 * when none came or on an error.
 */
static int rx_batch(const struct lane *l, int fd)
{
	struct rx_pkt p[UNDERLAY_RX_SLOTS];
	uint64_t now;
	/* The queues that got packets, and those that counted them. */
	uint32_t got = 0, seen = 0;
	unsigned int j;
	int i, n;

	n = underlay_recv(l->ul, fd, p);
	if (n <= 0)
		return 0;
	/* A batch's packets came at one time, as far as "last heard" goes. */
	now = clock_now_ns();
	for (i = 0; i < n; i++) {
		if (p[i].data) {
			rx_datagrams(l, &p[i], now, &got);
		} else {
			rx_dropped(l->q[0], &p[i], now);
			seen |= 1;
		}
	}
	seen |= got;
	for (j = 0; j < l->n_q; j++) {
		/* The call counts once in each queue, as rx_packets. */
		if (seen & 1u << j)
			l->q[j]->st.rx_calls++;
		if (got & 1u << j)
			rx_flush(l->q[j]);
	}
	return n;
}

/*
 * Up to rx_wake_max packets from socket w, in batches no bigger than the
 * cache holds (underlay_rx_next()), each written to the tap before the
 * next is read; another batch only when the last one found all it asked
 * for. *emptied: the last came back short, the socket is empty.
 */
static unsigned int rx_sock_read(struct lane *l, ev_io *w, bool *emptied)
{
	unsigned int took = 0, asked;
	int n;

	do {
		asked = l->ul->rx_batch;
		n = rx_batch(l, w->fd);
		took += (unsigned int)n;
	} while (n > 0 && (unsigned int)n == asked &&
		 took < l->ul->rx_wake_max);
	*emptied = (unsigned int)n < asked;
	return took;
}

/*
 * Whether packets stream in: RX_COALESCE_STREAM receives a millisecond
 * or more, over the last spell of a millisecond or longer. A request
 * and its answer, a ping, come fewer and are read at once, as without
 * the option.
 */
static bool rx_streaming(struct lane *l, unsigned int took)
{
	double now = ev_now(l->loop), spell = now - l->coal_t;

	/* What this wake-up took came in the spell, during its window. */
	l->coal_n += took;
	if (spell >= 1e-3) {
		l->coal_stream = l->coal_n >= RX_COALESCE_STREAM * spell * 1e3;
		l->coal_t = now;
		l->coal_n = 0;
	}
	return l->coal_stream;
}

/*
 * A wake-up emptied socket w while a stream comes in: the next packets
 * would wake the loop one or two at a time, a system call or three for
 * each (a raw socket has no GRO). Like a NIC's interrupt moderation
 * (ethtool -C rx-usecs), the socket is not watched for the window, and
 * the packets that come meanwhile are read together when it ends.
 */
static void rx_coalesce(struct lane *l, ev_io *w, unsigned int took)
{
	unsigned int i = (unsigned int)(w - l->sock_w);

	if (!rx_streaming(l, took))
		return;
	ev_io_stop(l->loop, w);
	l->coal_paused |= 1u << i;
	if (!ev_is_active(&l->coal_w)) {
		ev_timer_set(&l->coal_w, l->coal_window, 0);
		ev_timer_start(l->loop, &l->coal_w);
	}
	l->q[0]->st.rx_coalesce_waits++;
}

/*
 * The window is over: each socket it left unwatched is read now, what
 * came meanwhile in full batches. While the stream goes on, the next
 * window begins at once, without the loop watching the socket between
 * them (an epoll_wait and two epoll_ctl a window spared); once it has
 * ended, the socket is watched again.
 */
static void rx_coalesce_end(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct lane *l = t->data;
	unsigned int i, took, paused = l->coal_paused;
	bool emptied;

	l->coal_paused = 0;
	for (i = 0; i < LANE_SOCKS; i++) {
		if (!(paused & (1u << i)))
			continue;
		took = rx_sock_read(l, &l->sock_w[i], &emptied);
		if (emptied)
			rx_coalesce(l, &l->sock_w[i], took);
		if (!(l->coal_paused & (1u << i)))
			ev_io_start(loop, &l->sock_w[i]);
	}
}

void rx_coalesce_init(struct lane *l, unsigned int msec)
{
	l->coal_window = msec / 1e3;
	ev_init(&l->coal_w, rx_coalesce_end);
	l->coal_w.data = l;
}

/* A socket is readable: up to rx_wake_max packets a wake-up. */
static void rx_sock_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct lane *l = w->data;
	unsigned int took;
	bool emptied;

	lane_busy(l);
	took = rx_sock_read(l, w, &emptied);
	/*
	 * Readable with nothing to read, or an error: ICMP about our packets
	 * may be queued. (An empty read after a full batch is not that.)
	 */
	if (!took)
		l->q[0]->ops->sock_errors(l->q[0], w->fd);
	else if (l->coal_window > 0 && emptied)
		rx_coalesce(l, w, took);
}

/*
 * A tap that took USO and still refuses a GSO_UDP_L4 write (EINVAL, as
 * some 6.1 and 6.6 stable kernels did for GSO writes to a tun): UDP goes
 * datagram by datagram from the next batch on; TCP merging stays.
 */
static void rx_uso_refused(struct queue *q, const struct gro_frame *fr,
			   int res)
{
	if (res != -EINVAL || !gro_merges_udp(q->rx.gro) ||
	    fr->vnet.gso_type != VIRTIO_NET_HDR_GSO_UDP_L4)
		return;
	q->st.rx_uso_refused++;
	/* The batch's frames are built already: from the next one on. */
	gro_stop_udp(q->rx.gro);
	log_warn("tap %s refuses UDP super-frames: UDP datagrams are no "
		 "longer merged", q->dev->ifname);
}

void rx_done(struct queue *q, unsigned int i, int res)
{
	const struct gro_frame *fr = &q->rx.gro->frames[i];
	uint8_t gso = fr->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;

	q->rx.writes--;
	if (res < 0) {
		log_debug_ret(res, "tap write");
		stats_drop(&q->st, DROP_RX_WRITE, 1, clock_now_ns());
		rx_uso_refused(q, fr, res);
		return;
	}
	q->st.rx_frames++;
	q->st.rx_frame_bytes += fr->len;
	if (gso == VIRTIO_NET_HDR_GSO_UDP_L4)
		q->st.rx_udp_gso_bytes += fr->len;
	else if (gso != VIRTIO_NET_HDR_GSO_NONE)
		q->st.rx_gso_bytes += fr->len;
}

int rx_init(struct queue *q, uint32_t mtu)
{
	struct rx *r = &q->rx;

	r->gro = malloc(sizeof(*r->gro));
	r->tap_iov = calloc(GRO_MAX_FRAMES, sizeof(*r->tap_iov));
	if (!r->gro || !r->tap_iov) {
		log_err("out of memory");
		return -ENOMEM;
	}
	rx_forget_learnt(q);
	gro_init(r->gro, mtu, q->dev->cfg->gro,
		 q->dev->cfg->gro &&
			 rx_kernel_merges_udp(q->dev->cfg->udp_gro),
		 q->dev->encap.l3);
	return 0;
}

void rx_free(struct rx *r)
{
	free(r->gro);
	free(r->tap_iov);
}

void rx_set_mtu(struct queue *q, uint32_t mtu)
{
	gro_init(q->rx.gro, mtu, q->dev->cfg->gro, gro_merges_udp(q->rx.gro),
		 q->rx.gro->l3);
}

/* A sending socket is readable: errors about its packets (path.c). */
static void rx_err_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	const struct lane *l = w->data;

	l->q[0]->ops->sock_errors(l->q[0], w->fd);
}

static void rx_watch_fd(struct lane *l, ev_io *w,
			void (*cb)(struct ev_loop *, ev_io *, int), int fd)
{
	ev_io_init(w, cb, fd, EV_READ);
	w->data = l;
	ev_io_start(l->loop, w);
}

void rx_watch(struct lane *l)
{
	int fds[2 * CONFIG_MAX_SRC_PORTS];
	unsigned int i, n;

	n = underlay_recv_fds(l->ul, fds);
	for (i = 0; i < n; i++)
		rx_watch_fd(l, &l->sock_w[i], rx_sock_cb, fds[i]);
	l->n_err_w = underlay_send_only_fds(l->ul, fds);
	for (i = 0; i < l->n_err_w; i++)
		rx_watch_fd(l, &l->err_w[i], rx_err_cb, fds[i]);
}

/* The lane's watcher of socket fd; NULL if none. */
static ev_io *rx_socket_watcher(struct lane *l, int fd)
{
	unsigned int i, n;
	int fds[2];

	n = underlay_recv_fds(l->ul, fds);
	for (i = 0; i < n; i++)
		if (l->sock_w[i].fd == fd)
			return &l->sock_w[i];
	for (i = 0; i < l->n_err_w; i++)
		if (l->err_w[i].fd == fd)
			return &l->err_w[i];
	return NULL;
}

void rx_pause_socket(struct lane *l, int fd)
{
	ev_io *w = rx_socket_watcher(l, fd);

	if (!w)
		return;
	ev_io_stop(l->loop, w);
	/* Stopped until rx_resume_sockets(), not the window's end. */
	if (w >= l->sock_w && w < l->sock_w + LANE_SOCKS)
		l->coal_paused &= ~(1u << (w - l->sock_w));
}

void rx_resume_sockets(struct lane *l)
{
	int fds[2];
	unsigned int i, n = underlay_recv_fds(l->ul, fds);

	ev_timer_stop(l->loop, &l->coal_w);
	l->coal_paused = 0;
	/* Starting a watcher that runs is nothing (ev_io_start()). */
	for (i = 0; i < n; i++)
		ev_io_start(l->loop, &l->sock_w[i]);
	for (i = 0; i < l->n_err_w; i++)
		ev_io_start(l->loop, &l->err_w[i]);
}

bool rx_seen_text(const struct queue *q, enum drop why, char *buf,
		  size_t len)
{
	const struct rx_seen *s;
	char from[INET6_ADDRSTRLEN];
	enum rx_warn w;
	int n = 0;

	if (!rx_warn_cause(q->dev->encap.type, why, &w))
		return false;
	s = &q->rx.seen[w];
	if (!s->from.family ||
	    !inet_ntop(s->from.family, &s->from.addr, from, sizeof(from)))
		return false;
	if (s->has_id)
		n = snprintf(buf, len, "%s %u ",
			     encap_id_name(q->dev->encap.type),
			     s->id);
	else if (w == RX_WARN_ID)
		n = snprintf(buf, len, "no key ");
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "from %s", from);
	return true;
}
