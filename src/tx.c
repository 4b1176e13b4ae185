// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tx: the transmit path's I/O, tap reads in batches and the sends of
 * what xmit_frame() made of them, through io_uring.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include "clock.h"
#include "log.h"
#include "path.h"
#include "tunnel.h"
#include "tx.h"
#include "xmit.h"

#define TX_BUF_LEN (VNET_HDR_LEN + VNET_FRAME_MAX)

/* Batches one wake-up may chain before the loop looks elsewhere. */
#define TX_CHAIN 8

/* A set whose last reference went: its buffers may take frames again. */
static void tx_set_release(struct tunnel *t, struct tx_set *s)
{
	sendq_reset(s->q);
	s->arena.n = 0;
	/* Backpressure over: the tap is read again (tx_tap_cb). */
	if (!ev_is_active(&t->tx.tap_w) && pool_free(&t->tx.pool) == TX_SETS)
		ev_io_start(t->loop, &t->tx.tap_w);
}

static void tx_put(struct tunnel *t, struct tx_set *s)
{
	if (pool_put(&t->tx.pool, s->idx))
		tx_set_release(t, s);
}

static bool tx_reads_pending(void *ctx)
{
	return ((struct tunnel *)ctx)->tx.reads > 0;
}

/* Sends into the current set still in flight (its owner holds one ref). */
static bool tx_cur_sending(void *ctx)
{
	const struct tunnel *t = ctx;

	return pool_busy(&t->tx.pool, t->tx.cur->idx);
}

/*
 * Hand the set's queued messages to the ring, one reference each; a full
 * ring is submitted (and its completions reaped) to make room.
 */
static void tx_submit(struct tunnel *t, struct tx_set *s)
{
	unsigned int n = sendq_pending(s->q);

	pool_ref(&t->tx.pool, s->idx, n);
	t->st.tx_sends += n;
	while (underlay_submit(t->ul, s->q, t->ring,
			       TAG_SEND | TAG_TUN(t->idx) | TAG_SET(s->idx))) {
		ring_submit(t->ring);
		ring_reap(t->ring, tunnel_done, t);
	}
}

/*
 * The current set's queue is full in the middle of a batch (a frame
 * flooded to many peers): send what it holds and wait for it, so that
 * its messages can be queued again. The arena keeps its segments.
 */
static void tx_flush_queue(struct tunnel *t)
{
	struct tx_set *s = t->tx.cur;

	tx_submit(t, s);
	ring_wait(t->ring, tunnel_done, t, tx_cur_sending);
	sendq_reset(s->q);
}

/*
 * The current set's arena is full in the middle of a batch: send what it
 * holds and wait for it, so that its header blocks can be planned again.
 */
static void tx_flush(struct tunnel *t)
{
	tx_flush_queue(t);
	t->tx.cur->arena.n = 0;
}

/* Counts of one frame that xmit_frame() parsed. */
static void tx_count(struct tunnel *t, const struct xmit_out *o)
{
	t->st.tx_frames++;
	t->st.tx_bytes += o->f.len;
	if (o->f.gso)
		t->st.tx_gso_frames++;
	if (o->fit == PMTU_FIT_CUT)
		t->st.tx_resegmented++;
	else if (o->fit == PMTU_FIT_FRAGMENT)
		t->st.tx_fragmented++;
}

/* sendq_add() of the segments of frame o for peer e. */
static int tx_queue_add(struct tunnel *t, const struct xmit_out *o,
			const struct peer *e)
{
	struct tx_set *s = t->tx.cur;

	return sendq_add(s->q, underlay_sendq_params(t->ul),
			 underlay_dst(t->ul, e), o->src,
			 &s->arena.segs[o->first], (int)o->n,
			 encap_hdr_len(&t->encap), o->tos, o->df);
}

/* The segments of frame o for peer e, queued. */
static void tx_queue(struct tunnel *t, const struct xmit_out *o,
		     const struct peer *e)
{
	int r = tx_queue_add(t, o, e);

	/* Full (a frame flooded to many peers): send what it holds. */
	if (r == -ENOSPC) {
		tx_flush_queue(t);
		r = tx_queue_add(t, o, e);
	}
	/* An empty queue holds as many segments as the arena. */
	BUG_ON(r);
}

/*
 * Head-end replication (vxlan_xmit() over the all-zeros entries): the
 * segments planned once, queued for every peer.
 */
static void tx_flood(struct tunnel *t, const struct xmit_out *o)
{
	struct peers *ps = t->peers;
	unsigned int i;

	t->st.tx_flood++;
	for (i = 0; i < ps->n; i++) {
		struct peer *e = &ps->v[ps->live[i]];

		e->st.tx_flood += o->n;
		tx_queue(t, o, e);
	}
}

/* Where the tap read of len bytes at buf goes: fwd_dest(). */
static int tx_dest(struct tunnel *t, const uint8_t *buf, size_t len)
{
	if (len < VNET_HDR_LEN)
		return FWD_FLOOD;
	return fwd_dest(t, buf + VNET_HDR_LEN, len - VNET_HDR_LEN);
}

/* One frame from the tap: composed for the wire and queued. */
static void tx_frame(struct tunnel *t, const uint8_t *buf, size_t len)
{
	int dest = tx_dest(t, buf, len);
	struct xmit_cfg c = {
		.encap = &t->encap,
		.budget = dest == FWD_FLOOD ?
				  path_budget(&t->path) :
				  path_peer_budget(t, &t->peers->v[dest]),
		.pmtud = t->cfg->pmtud,
		.tos_inherit = t->cfg->tos_mode == TOS_INHERIT,
		.df_inherit = t->cfg->df == DF_INHERIT,
		.n_src = underlay_n_src(t->ul),
	};
	struct tx_set *s = t->tx.cur;
	uint32_t fit = path_udp_bulk_fit(&t->path);
	struct xmit_out o;
	int r;

	r = xmit_frame(&c, &t->tx.gre_seq, buf, len, &s->arena, &o);
	/* The arena is full: send what it holds, plan into it again. */
	if (r == -ENOSPC && s->arena.n) {
		tx_flush(t);
		r = xmit_frame(&c, &t->tx.gre_seq, buf, len, &s->arena, &o);
	}
	if (r == -ENOSPC)
		r = DROP_TX_SEGMENT;
	if (o.parsed)
		tx_count(t, &o);
	if (o.parsed && o.fit == PMTU_FIT_ICMP)
		path_icmp(t, &o.f, c.budget);
	if (o.parsed && fit) {
		enum xmit_bulk b = xmit_udp_bulk(&t->tx.train, &o.f, fit);

		if (b != XMIT_BULK_NONE)
			path_udp_bulk(t, b);
	}
	if (r) {
		stats_drop(&t->st, r, 1, clock_now_ns());
		return;
	}
	if (dest == FWD_FLOOD)
		tx_flood(t, &o);
	else
		tx_queue(t, &o, &t->peers->v[dest]);
}

static void tx_read(struct tunnel *t, struct tx_set *s, int batch)
{
	int i;

	for (i = 0; i < batch; i++)
		s->lens[i] = -EAGAIN;
	for (i = 0; i < batch; i++) {
		if (ring_read(t->ring, t->tap_fd, s->bufs[i], TX_BUF_LEN,
			      TAG_READ | TAG_TUN(t->idx) | TAG_SET(s->idx) | i))
			break;
		t->tx.reads++;
	}
}

/* The frames a batch of reads brought: validate, plan, queue. */
static int tx_frames(struct tunnel *t, struct tx_set *s, int batch)
{
	int i, got = 0;

	for (i = 0; i < batch; i++) {
		int n = s->lens[i];

		if (n >= 0)
			got++;
		/* tun_put_user() reports a frame it truncated at full size. */
		if (n > TX_BUF_LEN)
			stats_drop(&t->st, DROP_TX_READ, 1, clock_now_ns());
		else if (n >= 0)
			tx_frame(t, s->bufs[i], n);
		else if (n != -EAGAIN && n != -EINTR)
			stats_drop(&t->st, DROP_TX_READ, 1, clock_now_ns());
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
static struct tx_set *tx_take(struct tunnel *t, unsigned int busy)
{
	int i;

	if (pool_free(&t->tx.pool) != TX_SETS - busy)
		return NULL;
	i = pool_take(&t->tx.pool);
	return i < 0 ? NULL : &t->tx.sets[i];
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
	struct tunnel *t = w->data;
	struct tx *x = &t->tx;
	int batch = x->batch, got, i;
	struct tx_set *s = tx_take(t, 0), *next;

	if (!s) {
		t->st.tx_backpressure++;
		ev_io_stop(loop, w);
		return;
	}
	x->cur = s;
	tx_read(t, s, batch);
	for (i = 0;; i++) {
		ring_wait(t->ring, tunnel_done, t, tx_reads_pending);
		got = tx_frames(t, s, batch);
		x->batch = tx_next_batch(batch, got, x->batch_max);
		tx_submit(t, s);
		next = NULL;
		if (got == batch && i + 1 < TX_CHAIN && x->batch_max > 1)
			next = tx_take(t, 1);
		tx_put(t, s);
		if (!next)
			break;
		s = x->cur = next;
		batch = x->batch;
		tx_read(t, s, batch);
	}
	ring_submit(t->ring);
	ring_reap(t->ring, tunnel_done, t);
	if (pool_free(&x->pool) != TX_SETS) {
		t->st.tx_backpressure++;
		ev_io_stop(loop, w);
	}
}

/* The peer message m went to: its msg_name, or the connected one. */
static struct peer *tx_msg_peer(struct tunnel *t, const struct sendq *q,
				unsigned int m)
{
	const void *name = q->msgs[m].msg.msg_name;

	return name ? peer_of_name(name) : &t->peers->v[t->peers->live[0]];
}

/* The errors of a send that say the underlay does not reach the peer. */
static bool tx_err_unreachable(int err)
{
	return err == ENETUNREACH || err == EHOSTUNREACH || err == ENETDOWN;
}

/* The completion of one send: counted, a set freed with its last. */
static void tx_send_done(struct tunnel *t, struct tx_set *s, unsigned int m,
			 int res)
{
	struct peer *e = tx_msg_peer(t, s->q, m);
	struct peer_stats *ps = &e->st;
	struct underlay_sent out;

	underlay_complete(t->ul, s->q, m, res, &out);
	if (out.dropped && tx_err_unreachable(out.err))
		path_send_failed(t, e, out.err);
	ps->tx_packets += out.segments;
	ps->tx_bytes += out.bytes;
	ps->tx_drops += out.dropped;
	t->st.tx_segments += out.segments;
	t->st.tx_sends += out.sends;
	if (out.dropped)
		stats_drop(&t->st, DROP_TX_SEND, out.dropped, clock_now_ns());
	t->st.tx_gso_fallback += out.gso_fallback;
	t->st.tx_gso_oversize += out.gso_oversize;
	tx_put(t, s);
}

void tx_done(struct tunnel *t, uint64_t data, int res)
{
	struct tx_set *s = &t->tx.sets[TAG_SET_OF(data)];

	if (TAG_KIND(data) == TAG_SEND) {
		tx_send_done(t, s, (uint32_t)data, res);
		return;
	}
	s->lens[(uint32_t)data] = res;
	t->tx.reads--;
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

int tx_init(struct tunnel *t)
{
	struct tx *x = &t->tx;
	unsigned int i;

	pool_init(&x->pool, TX_SETS);
	x->cur = &x->sets[0];
	/* --no-offload, the classic userspace tunnel: a frame per read. */
	x->batch_max = t->cfg->offload ? TAP_BATCH : 1;
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
	const struct tunnel *t = ctx;

	return pool_free(&t->tx.pool) != TX_SETS;
}

void tx_quiesce(struct tunnel *t)
{
	ring_submit(t->ring);
	ring_wait(t->ring, tunnel_done, t, tx_any_sending);
}

void tx_watch(struct tunnel *t)
{
	ev_io_init(&t->tx.tap_w, tx_tap_cb, t->tap_fd, EV_READ);
	t->tx.tap_w.data = t;
	ev_io_start(t->loop, &t->tx.tap_w);
}
