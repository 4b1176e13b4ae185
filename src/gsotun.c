// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotun: set-up, the libev loop that moves frames between the tap and the
 * underlay socket in both directions, signals and shutdown.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <ev.h>
#include <linux/if_ether.h>
#include "csum.h"
#include "daemon.h"
#include "encap.h"
#include "gro.h"
#include "gso.h"
#include "link.h"
#include "log.h"
#include "options.h"
#include "pmtu.h"
#include "pool.h"
#include "priv.h"
#include "ring.h"
#include "stats.h"
#include "tap.h"
#include "underlay.h"
#include "vnet.h"

/*
 * Frames read from the tap per wake-up before their segments go out in
 * one flush and the loop looks elsewhere.
 */
#define TAP_BATCH 32
/*
 * Submission queue entries: a batch of reads and the sends of another,
 * one per UDP GSO run (a few per batch) or, for raw GRE, per segment (a
 * full ring is run and refilled).
 */
#define RING_ENTRIES 512
/* Transmit buffer sets: one filling while the other's sends go. */
#define TX_SETS 2
#define TX_BUF_LEN (VNET_HDR_LEN + VNET_FRAME_MAX)

/*
 * ICMP "too big" into the tap: the kernel's icmp_msgs_per_sec and
 * icmp_msgs_burst defaults.
 */
#define ICMP_PER_SEC 1000
#define ICMP_BURST 50

/* Seconds between looks at the route: learnt PMTUs expire (600 s). */
#define PATH_RECHECK 10.0

/*
 * The buffers of one transmit batch: the frames read from the tap, the
 * header blocks planned for their segments and the messages that send
 * them. The set is free again once every send pointing into it has
 * completed; two sets let the sends of one batch go to the kernel in the
 * same io_uring_enter() as the reads of the next.
 */
struct tx_set {
	uint8_t *bufs[TAP_BATCH];	/* vnet header + frame, per read */
	int lens[TAP_BATCH];		/* what each read returned */
	uint8_t *arena;		/* segment header blocks of the batch */
	struct seg *segs;	/* its segments, n_segs of them so far */
	unsigned int n_segs;
	struct underlay_tx *q;	/* their messages */
	unsigned int idx;	/* 0 or 1: tags its completions */
};

struct tunnel {
	struct config cfg;
	struct ev_loop *loop;
	struct stats st;
	struct underlay ul;
	struct link *link;
	int tap_fd;
	unsigned int ifindex;
	char ifname[IFNAMSIZ];
	uint32_t mtu;		/* the tap's */
	uint32_t path_mtu;	/* underlay path to the peer; 0: unknown */
	uint32_t budget;	/* largest inner frame that fits it */
	struct link_watch *watch;	/* link and route changes */
	struct pmtu_limit icmp_limit;
	uint8_t icmp_buf[VNET_HDR_LEN + PMTU_ICMP_MAX];
	size_t encap_len;
	uint32_t gre_seq;
	struct tx_set sets[TX_SETS];
	struct pool pool;	/* their references */
	struct tx_set *cur;	/* the one frames are read into */
	int tx_batch;		/* reads to ask for next time */
	int tx_batch_max;	/* TAP_BATCH; 1 with --no-offload */
	unsigned int tx_reads;	/* tap reads in flight */
	unsigned int rx_writes;	/* tap writes in flight */
	struct gro *gro;	/* receive batch on its way to the tap */
	struct iovec (*tap_iov)[2 + GRO_MAX_SEGS];	/* one per gro frame */
	struct ring ring;	/* tap reads and writes, a batch at a time */
	bool ring_up;
	ev_io tap_w, sock_w, nocsum_w, watch_w, ring_w;
	ev_io err_w[2 * CONFIG_MAX_SRC_PORTS];	/* send-only sockets */
	unsigned int n_err_w;
	ev_timer path_w;
	ev_signal sigint_w, sigterm_w, sighup_w, sigusr1_w;
};

static void count_vnet_drop(struct stats *st, int err)
{
	switch (err) {
	case VNET_ERR_SHORT:
		st->tx_drop_short++;
		break;
	case VNET_ERR_L3:
		st->tx_drop_l3++;
		break;
	case VNET_ERR_CSUM_RANGE:
		st->tx_drop_csum_range++;
		break;
	case VNET_ERR_GSO_TYPE:
		st->tx_drop_gso_type++;
		break;
	case VNET_ERR_GSO_SIZE:
		st->tx_drop_gso_size++;
		break;
	case VNET_ERR_HDR_LEN:
		st->tx_drop_hdr_len++;
		break;
	default:
		st->tx_drop_gso_proto++;
		break;
	}
}

static void count_encap_drop(struct stats *st, int err)
{
	switch (err) {
	case ENCAP_ERR_SHORT:
		st->rx_drop_short++;
		break;
	case ENCAP_ERR_FLAGS:
		st->rx_drop_flags++;
		break;
	case ENCAP_ERR_VNI:
		st->rx_drop_vni++;
		break;
	case ENCAP_ERR_GRE_VERSION:
		st->rx_drop_gre_version++;
		break;
	case ENCAP_ERR_GRE_FLAGS:
		st->rx_drop_gre_flags++;
		break;
	case ENCAP_ERR_GRE_PROTO:
		st->rx_drop_gre_proto++;
		break;
	case ENCAP_ERR_KEY:
		st->rx_drop_key++;
		break;
	case ENCAP_ERR_CSUM:
		st->rx_drop_csum++;
		break;
	case ENCAP_ERR_CSUM_MISSING:
		st->rx_drop_csum_missing++;
		break;
	default:
		st->rx_drop_inner_short++;
		break;
	}
}

/*
 * Outer TOS for --tos inherit: the inner DSCP, and the inner ECN field as
 * RFC 6040 section 4.1's normal mode copies it (INET_ECN_encapsulate():
 * CE leaves as ECT(0)); the receiver copies a CE mark the path adds back
 * onto the inner packet (encap_ecn_decap()).
 */
static int inner_tos(const struct frame *f)
{
	const uint8_t *l3 = f->data + f->l3_off;
	int tos;

	if (f->ethertype == ETH_P_IP)
		tos = l3[1];
	else if (f->ethertype == ETH_P_IPV6)
		tos = ((l3[0] & 0x0f) << 4) | (l3[1] >> 4);
	else
		return 0;
	return (tos & ~3) | encap_ecn_encap(tos & 3);
}

/*
 * One super-frame from the tap should fit one UDP GSO send (64000 bytes,
 * KERNEL-FACTS.md) once cut into segments with their headers and the
 * encapsulation: lower the tap's gso_max_size so TCP builds frames of that
 * size. The estimate takes the smallest likely MSS (IPv6 with TCP
 * timestamps) of the tap or of the path, whichever is smaller, and leaves
 * MAX_TCP_HEADER (320) for tcp_tso_autosize(); the sender still splits
 * what does not fit (underlay_queue()). With --mtu N it is set once, at
 * start: a path that shrinks later costs a second send per super-frame,
 * not a capability kept for the process's life.
 */
static void tunnel_fit_gso(struct tunnel *t)
{
	uint32_t mtu = t->mtu, seg, size;

	if (t->budget - ETH_HLEN < mtu)
		mtu = t->budget - ETH_HLEN;
	if (!t->cfg.offload || !encap_is_udp(t->cfg.encap.type) || mtu < 576)
		return;
	seg = t->encap_len + ETH_HLEN + mtu;
	size = (uint64_t)UDP_GSO_MAX_BYTES * (mtu - 72) / seg + 320;
	if (link_set_gso_max_size(t->link, t->ifindex, size) == 0)
		log_debug("%s: gso_max_size %u", t->ifname, size);
}

/* The tap MTU --mtu auto gives for the current budget; 0 if none fits. */
static uint32_t tunnel_auto_mtu(const struct tunnel *t)
{
	if (t->budget < ETH_HLEN + 68)
		return 0;
	return t->budget - ETH_HLEN;
}

/*
 * A new path MTU to the peer (0: unknown): the budget follows, and so does
 * the tap's MTU with --mtu auto. Called between batches only.
 */
static void tunnel_set_path(struct tunnel *t, uint32_t path)
{
	uint32_t mtu;

	if (path == t->path_mtu)
		return;
	log_info("%s: path MTU to the peer %u (was %u)", t->ifname, path,
		 t->path_mtu);
	t->path_mtu = path;
	t->budget = path ? pmtu_frame_budget(&t->cfg.encap,
					     t->cfg.remote.family == AF_INET6,
					     path)
			 : UINT32_MAX;
	mtu = tunnel_auto_mtu(t);
	if (t->cfg.mtu || !t->mtu)
		return;
	if (mtu && mtu != t->mtu && !link_set_mtu(t->link, t->ifindex, mtu)) {
		log_info("%s: MTU %u (was %u)", t->ifname, mtu, t->mtu);
		t->mtu = mtu;
		gro_init(t->gro, t->mtu, t->cfg.gro);
	}
	tunnel_fit_gso(t);
}

/* Ask the route again (a change, or a learnt PMTU that may have expired). */
static void tunnel_check_path(struct tunnel *t)
{
	int path = link_route_mtu(t->link, &t->cfg.remote, true);

	/* No route now (the underlay is down): keep what we had. */
	if (path > 0)
		tunnel_set_path(t, path);
}

/* An ICMP error said our packets are too big for reported bytes. */
static void tunnel_lower_path(struct tunnel *t, uint32_t reported)
{
	uint32_t cur = t->path_mtu ? t->path_mtu : UINT32_MAX;

	tunnel_set_path(t, pmtu_lower(cur, reported,
				      t->cfg.remote.family == AF_INET6));
}

/* Send what the current set queued and wait: its buffers are free again. */
static void tunnel_tx_flush(struct tunnel *t);

/*
 * Cut the n segments just planned at segs[first] into IPv4 fragments that
 * fit the path. The fragments go after them in the arena and the segment
 * array (the originals are left unused until the flush), and *first moves
 * to the first fragment.
 */
static int tunnel_fragment(struct tunnel *t, const struct frame *f, int n,
			   unsigned int *first)
{
	struct tx_set *s = t->cur;
	unsigned int out = *first + n;
	int i, r;

	for (i = 0; i < n; i++) {
		r = pmtu_fragment(&s->segs[*first + i], f->l3_off, t->budget,
				  t->cfg.encap.gre_csum,
				  s->arena + (size_t)out * GSO_SLOT,
				  (size_t)(VNET_MAX_SEGS - out) * GSO_SLOT,
				  &s->segs[out], VNET_MAX_SEGS - out);
		if (r < 0)
			return r;
		out += r;
	}
	*first += n;
	return out - *first;
}

/*
 * Plan f's segments (cut to mss_cap, or fragmented) into what is left of
 * the set's arena; a full arena is flushed first (the frames already
 * planned point into their own buffers, which stay untouched until their
 * sends complete). The segments are at segs[*first] on.
 */
static int tunnel_plan(struct tunnel *t, const struct frame *f,
		       uint16_t mss_cap, bool frag, unsigned int *first)
{
	struct tx_set *s = t->cur;
	int n;

	for (;;) {
		*first = s->n_segs;
		n = gso_plan(f, s->arena + (size_t)s->n_segs * GSO_SLOT,
			     (size_t)(VNET_MAX_SEGS - s->n_segs) * GSO_SLOT,
			     &s->segs[s->n_segs], VNET_MAX_SEGS - s->n_segs,
			     mss_cap, t->cfg.encap.gre_csum);
		if (n > 0 && frag)
			n = tunnel_fragment(t, f, n, first);
		if (n != -ENOSPC || !s->n_segs)
			return n;
		tunnel_tx_flush(t);
	}
}

/* Write an ICMP "too big" about f back into the tap, within the limit. */
static void tunnel_icmp(struct tunnel *t, const struct frame *f)
{
	struct virtio_net_hdr hdr;
	size_t len;

	len = pmtu_icmp_build(f, pmtu_icmp_mtu(f, t->budget),
			      t->icmp_buf + VNET_HDR_LEN, PMTU_ICMP_MAX);
	if (!len)
		return;
	if (!pmtu_limit_take(&t->icmp_limit,
			     (uint64_t)(ev_now(t->loop) * 1e9))) {
		t->st.tx_icmp_limited++;
		return;
	}
	vnet_hdr_build_plain(&hdr);
	memcpy(t->icmp_buf, &hdr, VNET_HDR_LEN);
	if (write(t->tap_fd, t->icmp_buf, VNET_HDR_LEN + len) < 0) {
		log_debug("tap write: %s", strerror(errno));
		t->st.rx_drop_write++;
		return;
	}
	t->st.tx_icmp_sent++;
}

/*
 * DESIGN.md "Segment length, not packet length, meets the MTU": see
 * pmtu_fit(). Returns whether f (possibly cut or fragmented) goes out.
 */
static bool tunnel_fit(struct tunnel *t, struct frame *f, uint16_t *mss_cap,
		       bool *frag)
{
	switch (pmtu_fit(f, t->budget, t->cfg.pmtud, mss_cap)) {
	case PMTU_FIT_SEND:
		return true;
	case PMTU_FIT_CUT:
		t->st.tx_resegmented++;
		return true;
	case PMTU_FIT_FRAGMENT:
		t->st.tx_fragmented++;
		*frag = true;
		return true;
	case PMTU_FIT_ICMP:
		tunnel_icmp(t, f);
		break;
	case PMTU_FIT_DROP:
		break;
	}
	t->st.tx_drop_too_big++;
	return false;
}

/* The outer DF bit of f's packets under --df inherit: as vxlan_xmit_one. */
static bool tunnel_df(const struct tunnel *t, const struct frame *f)
{
	return t->cfg.df == DF_INHERIT && pmtu_frame_df(f);
}

/* One frame from the tap: validate, plan segments, encapsulate, queue. */
static void tunnel_xmit(struct tunnel *t, const uint8_t *buf, size_t len)
{
	struct virtio_net_hdr hdr;
	uint16_t mss_cap = 0;
	bool frag = false;
	unsigned int first, src = 0;
	struct seg *segs;
	struct frame f;
	int n, i, err, tos = -1;

	if (len < (size_t)VNET_HDR_LEN) {
		t->st.tx_drop_short++;
		return;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	err = vnet_hdr_parse(&hdr, buf + VNET_HDR_LEN, len - VNET_HDR_LEN, &f);
	if (err) {
		count_vnet_drop(&t->st, err);
		return;
	}
	t->st.tx_frames++;
	t->st.tx_bytes += f.len;
	if (f.gso)
		t->st.tx_gso_frames++;

	if (!tunnel_fit(t, &f, &mss_cap, &frag))
		return;
	n = tunnel_plan(t, &f, mss_cap, frag, &first);
	if (n < 0) {
		t->st.tx_drop_segment++;
		return;
	}
	segs = &t->cur->segs[first];
	for (i = 0; i < n; i++)
		encap_build(&t->cfg.encap, &segs[i], t->gre_seq++);
	if (t->cfg.tos_mode == TOS_INHERIT)
		tos = inner_tos(&f);
	if (t->ul.n_src > 1)
		src = frame_flow_hash(&f) % t->ul.n_src;
	/* The queue holds as many segments as the arena: there is room. */
	BUG_ON(underlay_queue(&t->ul, t->cur->q, src, segs, n, t->encap_len,
			      tos, tunnel_df(t, &f)));
	t->cur->n_segs = first + n;
}

/*
 * User data of a ring request: its kind, the transmit set it belongs to
 * and an index (the read's slot, the message, the receive frame).
 */
#define TAG_READ (0ull << 62)
#define TAG_SEND (1ull << 62)
#define TAG_WRITE (2ull << 62)
#define TAG_KIND(d) ((d) & (3ull << 62))
#define TAG_SET(i) ((uint64_t)(i) << 32)
#define TAG_SET_OF(d) (((d) >> 32) & 0xff)

/* A set whose last reference went: its buffers may take frames again. */
static void tx_set_release(struct tunnel *t, struct tx_set *s)
{
	underlay_tx_reset(s->q);
	s->n_segs = 0;
	/* Backpressure over: the tap is read again (tap_read_cb). */
	if (!ev_is_active(&t->tap_w) && pool_free(&t->pool) == TX_SETS)
		ev_io_start(t->loop, &t->tap_w);
}

static void tx_put(struct tunnel *t, struct tx_set *s)
{
	if (pool_put(&t->pool, s->idx))
		tx_set_release(t, s);
}

static void tap_write_done(struct tunnel *t, unsigned int i, int res)
{
	const struct gro_frame *fr = &t->gro->frames[i];

	t->rx_writes--;
	if (res < 0) {
		log_debug("tap write: %s", strerror(-res));
		t->st.rx_drop_write++;
		return;
	}
	t->st.rx_frames++;
	t->st.rx_frame_bytes += fr->len;
	if (fr->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE)
		t->st.rx_gso_bytes += fr->len;
}

/* Every completion of the ring, whichever path it serves. */
static void tunnel_done(void *ctx, uint64_t data, int res)
{
	struct tunnel *t = ctx;
	struct tx_set *s = &t->sets[TAG_SET_OF(data)];

	switch (TAG_KIND(data)) {
	case TAG_READ:
		s->lens[(uint32_t)data] = res;
		t->tx_reads--;
		break;
	case TAG_SEND:
		underlay_complete(&t->ul, s->q, (uint32_t)data, res, &t->st);
		tx_put(t, s);
		break;
	case TAG_WRITE:
		tap_write_done(t, (uint32_t)data, res);
		break;
	}
}

static bool tx_reads_pending(void *ctx)
{
	return ((struct tunnel *)ctx)->tx_reads > 0;
}

static bool rx_writes_pending(void *ctx)
{
	return ((struct tunnel *)ctx)->rx_writes > 0;
}

/* Sends into the current set still in flight (its owner holds one ref). */
static bool tx_cur_sending(void *ctx)
{
	const struct tunnel *t = ctx;

	return t->pool.refs[t->cur->idx] > 1;
}

/*
 * Hand the set's queued messages to the ring, one reference each; a full
 * ring is submitted (and its completions reaped) to make room.
 */
static void tx_submit(struct tunnel *t, struct tx_set *s)
{
	unsigned int n = underlay_tx_pending(s->q);

	pool_ref(&t->pool, s->idx, n);
	while (underlay_submit(&t->ul, s->q, &t->ring,
			       TAG_SEND | TAG_SET(s->idx), &t->st)) {
		ring_submit(&t->ring);
		ring_reap(&t->ring, tunnel_done, t);
	}
}

/*
 * The current set's arena is full in the middle of a batch: send what it
 * holds and wait for it, so that its header blocks can be planned again.
 */
static void tunnel_tx_flush(struct tunnel *t)
{
	tx_submit(t, t->cur);
	ring_wait(&t->ring, tunnel_done, t, tx_cur_sending);
	underlay_tx_reset(t->cur->q);
	t->cur->n_segs = 0;
}

static void tx_read(struct tunnel *t, struct tx_set *s, int batch)
{
	int i;

	for (i = 0; i < batch; i++)
		s->lens[i] = -EAGAIN;
	for (i = 0; i < batch; i++) {
		if (ring_read(&t->ring, t->tap_fd, s->bufs[i], TX_BUF_LEN,
			      TAG_READ | TAG_SET(s->idx) | i))
			break;
		t->tx_reads++;
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
			t->st.tx_drop_read++;
		else if (n >= 0)
			tunnel_xmit(t, s->bufs[i], n);
		else if (n != -EAGAIN && n != -EINTR)
			t->st.tx_drop_read++;
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

/* Batches one wake-up may chain before the loop looks elsewhere. */
#define TX_CHAIN 8

/*
 * Take a set for the first batch of reads of a wake-up: only when no set
 * has sends in flight, so that sends leave in the order frames came.
 */
static struct tx_set *tx_take(struct tunnel *t)
{
	int i;

	if (pool_free(&t->pool) != TX_SETS)
		return NULL;
	i = pool_take(&t->pool);
	return i < 0 ? NULL : &t->sets[i];
}

/*
 * The set for the next batch of a chain, read while the current one's
 * sends go: only if every other set's sends have completed.
 */
static struct tx_set *tx_take_next(struct tunnel *t)
{
	int i;

	if (pool_free(&t->pool) != TX_SETS - 1)
		return NULL;
	i = pool_take(&t->pool);
	return i < 0 ? NULL : &t->sets[i];
}

/*
 * The tap is readable. Each io_uring_enter() carries the sends of the
 * batch just planned and the reads of the next, into the other set (the
 * reads past the last waiting frame end at once with -EAGAIN). Sends
 * complete inline unless the socket is full; then a set stays referenced
 * until its completions come through the eventfd, and the tap is not
 * read meanwhile (backpressure: nothing is dropped for lack of room).
 */
static void tap_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;
	int batch = t->tx_batch, got, i;
	struct tx_set *s = tx_take(t), *next;

	if (!s) {
		t->st.tx_backpressure++;
		ev_io_stop(loop, w);
		return;
	}
	t->cur = s;
	tx_read(t, s, batch);
	for (i = 0;; i++) {
		ring_wait(&t->ring, tunnel_done, t, tx_reads_pending);
		got = tx_frames(t, s, batch);
		t->tx_batch = tx_next_batch(batch, got, t->tx_batch_max);
		tx_submit(t, s);
		next = NULL;
		if (got == batch && i + 1 < TX_CHAIN && t->tx_batch_max > 1)
			next = tx_take_next(t);
		tx_put(t, s);
		if (!next)
			break;
		s = t->cur = next;
		batch = t->tx_batch;
		tx_read(t, s, batch);
	}
	ring_submit(&t->ring);
	ring_reap(&t->ring, tunnel_done, t);
	if (pool_free(&t->pool) != TX_SETS) {
		t->st.tx_backpressure++;
		ev_io_stop(loop, w);
	}
}

/* Completions that came after their submission: sends that waited. */
static void ring_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;
	uint64_t n;

	if (read(t->ring.efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_debug("io_uring eventfd: %s", strerror(errno));
	ring_reap(&t->ring, tunnel_done, t);
}

/* The iovec of one frame for the tap: vnet header, headers, slices. */
static int tap_frame_iov(struct gro_frame *fr, struct iovec *iov)
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
static void tunnel_rx_flush(struct tunnel *t)
{
	unsigned int i;

	gro_flush(t->gro);
	for (i = 0; i < t->gro->n_frames; i++) {
		struct iovec *iov = t->tap_iov[i];
		int n = tap_frame_iov(&t->gro->frames[i], iov);

		while (ring_writev(&t->ring, t->tap_fd, iov, n,
				   TAG_WRITE | i)) {
			ring_submit(&t->ring);
			ring_reap(&t->ring, tunnel_done, t);
		}
		t->rx_writes++;
	}
	ring_wait(&t->ring, tunnel_done, t, rx_writes_pending);
	gro_reset(t->gro);
}

/*
 * One encapsulated packet from the peer: check, strip, carry a CE mark of
 * the outer header inwards (RFC 6040), hand to GRO.
 */
static void tunnel_rx_one(struct tunnel *t, uint8_t *pkt, size_t len,
			  uint8_t ecn)
{
	struct encap_rx rx;
	const uint32_t *sum;
	size_t off;
	int err;

	err = encap_parse(&t->cfg.encap, pkt, len, &rx);
	if (err) {
		count_encap_drop(&t->st, err);
		return;
	}
	off = rx.inner_off;
	switch (encap_ecn_decap(pkt + off, len - off, ecn)) {
	case ENCAP_ECN_DROP:
		t->st.rx_drop_ecn++;
		return;
	case ENCAP_ECN_MARK:
		t->st.rx_ecn_ce++;
		break;
	case ENCAP_ECN_KEEP:
		break;
	}
	/* A CE mark changes no byte the inner checksums cover. */
	sum = rx.sum_valid && ecn != ECN_CE ? &rx.inner_sum : NULL;
	if (gro_add(t->gro, pkt + off, len - off, sum, &t->st) == GRO_FULL) {
		tunnel_rx_flush(t);
		gro_add(t->gro, pkt + off, len - off, sum, &t->st);
	}
}

/* UDP GRO: the receive's datagrams one by one (gro_split_next()). */
static void tunnel_rx_pkt(struct tunnel *t, const struct rx_pkt *p)
{
	struct gro_split s;
	size_t off, len;

	gro_split_init(&s, p->len, p->gso_size);
	while (gro_split_next(&s, &off, &len))
		tunnel_rx_one(t, p->data + off, len, p->ecn);
}

static void sock_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;
	struct rx_pkt p[UNDERLAY_RX_BATCH];
	int i, n;

	n = underlay_recv(&t->ul, w->fd, p, &t->st);
	/* Nothing, or an error: ICMP about our packets may be queued. */
	if (n <= 0) {
		uint32_t mtu = underlay_read_errors(&t->ul, w->fd, &t->st);

		if (mtu)
			tunnel_lower_path(t, mtu);
		return;
	}
	for (i = 0; i < n; i++)
		if (p[i].data)
			tunnel_rx_pkt(t, &p[i]);
	tunnel_rx_flush(t);
}

/* The sockets that only send (DF, source ports) take in only errors. */
static void sock_err_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;
	uint32_t mtu = underlay_read_errors(&t->ul, w->fd, &t->st);

	if (mtu)
		tunnel_lower_path(t, mtu);
}

static void watch_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;

	if (link_watch_read(t->watch) > 0)
		tunnel_check_path(t);
}

/*
 * Every PATH_RECHECK seconds: the route (a learnt PMTU may have expired),
 * and ICMP errors heeded again after a flood (underlay_read_errors()).
 */
static void path_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct tunnel *t = w->data;

	underlay_errors_resume(&t->ul);
	tunnel_check_path(t);
}

static void stop_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	log_info("signal %d: stopping", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

static void usr1_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct tunnel *t = w->data;

	stats_print(stderr, &t->st);
}

/* The tap's MTU: --mtu, or the path MTU less what the tunnel adds. */
static int tunnel_mtu(struct tunnel *t)
{
	int path = link_route_mtu(t->link, &t->cfg.remote, t->cfg.mtu != 0);

	if (path > 0)
		tunnel_set_path(t, path);
	if (t->cfg.mtu)
		return t->cfg.mtu;
	if (path < 0) {
		/* link_route_mtu() said why; say what it means here. */
		log_err("--mtu auto needs a route to the remote: give --mtu N");
		return path;
	}
	if (!tunnel_auto_mtu(t)) {
		log_err("path MTU %d leaves no room for the tunnel (%zu bytes)",
			path, encap_overhead(&t->cfg.encap,
					     t->cfg.remote.family == AF_INET6) +
				      ETH_HLEN);
		return -EINVAL;
	}
	return tunnel_auto_mtu(t);
}

static int tunnel_setup_tap(struct tunnel *t)
{
	int mtu, err;
	unsigned int i;

	t->tap_fd = tap_open(t->cfg.dev, t->cfg.offload, t->ifname);
	if (t->tap_fd < 0)
		return t->tap_fd;
	t->ifindex = if_nametoindex(t->ifname);
	if (!t->ifindex) {
		log_err_errno("cannot find tap %s", t->ifname);
		return -errno;
	}
	t->link = link_open();
	t->watch = link_watch_open();
	if (!t->link || !t->watch)
		return -EIO;
	mtu = tunnel_mtu(t);
	if (mtu < 0)
		return mtu;
	t->mtu = mtu;
	err = link_set_mtu(t->link, t->ifindex, t->mtu);
	if (err)
		return err;
	/*
	 * No TSO frame of more segments than vnet_hdr_parse() takes: with a
	 * small MSS (48 is allowed) TCP would build them, and they would be
	 * dropped whole.
	 */
	if (t->cfg.offload)
		link_set_gso_max_segs(t->link, t->ifindex, VNET_MAX_SEGS);
	tunnel_fit_gso(t);
	gro_init(t->gro, t->mtu, t->cfg.gro);
	tap_set_sysctls(t->ifname);
	for (i = 0; i < t->cfg.n_addrs; i++) {
		err = link_add_addr(t->link, t->ifindex, &t->cfg.addrs[i]);
		if (err)
			return err;
	}
	/* Up before the first write: a down tap answers EIO. */
	return link_set_up(t->link, t->ifindex);
}

static int tx_set_alloc(struct tx_set *s, unsigned int idx)
{
	int i;

	s->idx = idx;
	for (i = 0; i < TAP_BATCH; i++) {
		s->bufs[i] = malloc(TX_BUF_LEN);
		if (!s->bufs[i])
			return -ENOMEM;
	}
	s->arena = malloc(VNET_MAX_SEGS * GSO_SLOT);
	s->segs = calloc(VNET_MAX_SEGS, sizeof(*s->segs));
	s->q = underlay_tx_alloc();
	if (!s->arena || !s->segs || !s->q)
		return -ENOMEM;
	return 0;
}

static void tx_set_free(struct tx_set *s)
{
	int i;

	for (i = 0; i < TAP_BATCH; i++)
		free(s->bufs[i]);
	free(s->arena);
	free(s->segs);
	underlay_tx_free(s->q);
}

static int tunnel_alloc(struct tunnel *t)
{
	t->cur = &t->sets[0];
	pool_init(&t->pool, TX_SETS);
	t->gro = malloc(sizeof(*t->gro));
	t->tap_iov = calloc(GRO_MAX_FRAMES, sizeof(*t->tap_iov));
	if (tx_set_alloc(&t->sets[0], 0) || tx_set_alloc(&t->sets[1], 1) ||
	    !t->gro || !t->tap_iov) {
		log_err("out of memory");
		return -ENOMEM;
	}
	if (ring_init(&t->ring, RING_ENTRIES))
		return -ENOMEM;
	t->ring_up = true;
	return 0;
}

static void tunnel_free(struct tunnel *t)
{
	if (t->tap_fd >= 0)
		close(t->tap_fd);
	underlay_close(&t->ul);
	link_close(t->link);
	link_watch_close(t->watch);
	tx_set_free(&t->sets[0]);
	tx_set_free(&t->sets[1]);
	free(t->gro);
	free(t->tap_iov);
	if (t->ring_up)
		ring_exit(&t->ring);
	options_free(&t->cfg);
}

/*
 * What needs CAP_NET_ADMIN after set-up: the tap's MTU, and with it its
 * gso_max_size (tunnel_fit_gso()), following the path (--mtu auto).
 */
static bool tunnel_needs_net_admin(const struct tunnel *t)
{
	return !t->cfg.mtu;
}

/* The error queues of the sockets that only send. */
static void tunnel_watch_errors(struct tunnel *t)
{
	int fds[2 * CONFIG_MAX_SRC_PORTS];
	unsigned int i;

	t->n_err_w = underlay_send_only_fds(&t->ul, fds);
	for (i = 0; i < t->n_err_w; i++) {
		ev_io_init(&t->err_w[i], sock_err_cb, fds[i], EV_READ);
		t->err_w[i].data = t;
		ev_io_start(t->loop, &t->err_w[i]);
	}
}

static void tunnel_watch(struct tunnel *t)
{
	ev_io_init(&t->tap_w, tap_read_cb, t->tap_fd, EV_READ);
	ev_io_init(&t->sock_w, sock_read_cb, t->ul.fd, EV_READ);
	ev_io_init(&t->watch_w, watch_cb, link_watch_fd(t->watch), EV_READ);
	ev_io_init(&t->ring_w, ring_cb, t->ring.efd, EV_READ);
	ev_timer_init(&t->path_w, path_timer_cb, PATH_RECHECK, PATH_RECHECK);
	ev_signal_init(&t->sigint_w, stop_cb, SIGINT);
	ev_signal_init(&t->sigterm_w, stop_cb, SIGTERM);
	ev_signal_init(&t->sighup_w, stop_cb, SIGHUP);
	ev_signal_init(&t->sigusr1_w, usr1_cb, SIGUSR1);
	t->tap_w.data = t->sock_w.data = t;
	t->watch_w.data = t->path_w.data = t;
	t->ring_w.data = t;
	t->sigint_w.data = t->sigterm_w.data = t->sigusr1_w.data = t;
	t->sighup_w.data = t;
	ev_io_start(t->loop, &t->tap_w);
	ev_io_start(t->loop, &t->sock_w);
	if (t->ul.fd_nocsum >= 0) {
		ev_io_init(&t->nocsum_w, sock_read_cb, t->ul.fd_nocsum,
			   EV_READ);
		t->nocsum_w.data = t;
		ev_io_start(t->loop, &t->nocsum_w);
	}
	tunnel_watch_errors(t);
	ev_io_start(t->loop, &t->watch_w);
	ev_io_start(t->loop, &t->ring_w);
	ev_timer_start(t->loop, &t->path_w);
	ev_signal_start(t->loop, &t->sigint_w);
	ev_signal_start(t->loop, &t->sigterm_w);
	ev_signal_start(t->loop, &t->sighup_w);
	ev_signal_start(t->loop, &t->sigusr1_w);
}

static void log_tunnel(const struct tunnel *t)
{
	char remote[INET6_ADDRSTRLEN];

	inet_ntop(t->cfg.remote.family, &t->cfg.remote.addr, remote,
		  sizeof(remote));
	log_info("%s: %s tunnel to %s, MTU %u, tap offloads 0x%x, %u source "
		 "port(s)", t->ifname, encap_name(t->cfg.encap.type), remote,
		 t->mtu, tap_offloads(), t->ul.n_src);
}

int main(int argc, char **argv)
{
	struct tunnel t = { .tap_fd = -1,
			    .ul = { .fd = -1, .fd_df = -1, .fd_nocsum = -1 },
			    .budget = UINT32_MAX };
	struct pidfile pidfile = { .fd = -1 };
	int ret = EXIT_FAILURE;

	options_parse(argc, argv, &t.cfg);
	log_level = LOG_LVL_INFO + t.cfg.verbosity;
	if (log_level < LOG_LVL_ERR)
		log_level = LOG_LVL_ERR;
	if (log_level > LOG_LVL_DEBUG)
		log_level = LOG_LVL_DEBUG;
	signal(SIGPIPE, SIG_IGN);

	/* --no-offload, the classic userspace tunnel: a frame per read call. */
	t.tx_batch_max = t.cfg.offload ? TAP_BATCH : 1;
	t.tx_batch = t.tx_batch_max;
	t.encap_len = encap_hdr_len(&t.cfg.encap);
	pmtu_limit_init(&t.icmp_limit, ICMP_PER_SEC, ICMP_BURST);
	if (tunnel_alloc(&t) || underlay_open(&t.ul, &t.cfg) ||
	    tunnel_setup_tap(&t))
		goto out;
	if (t.cfg.daemon) {
		if (daemon_start(&pidfile, t.cfg.pidfile))
			goto out;
	} else if (t.cfg.pidfile && pidfile_write(&pidfile, t.cfg.pidfile)) {
		goto out;
	}
	if (t.cfg.user && priv_drop(t.cfg.user, t.cfg.chroot,
				    tunnel_needs_net_admin(&t)))
		goto out_pidfile;
	t.loop = ev_default_loop(EVFLAG_AUTO);
	if (!t.loop) {
		log_err("cannot start the event loop");
		goto out_pidfile;
	}
	tunnel_watch(&t);
	log_tunnel(&t);
	ev_run(t.loop, 0);
	ret = EXIT_SUCCESS;
	/* Sends still waiting for room are cancelled and counted as drops. */
	ring_drain(&t.ring, tunnel_done, &t);
	ev_loop_destroy(t.loop);
	stats_print(stderr, &t.st);
out_pidfile:
	/* After --user the file is root's: the service manager removes it. */
	pidfile_close(&pidfile, !t.cfg.user);
out:
	tunnel_free(&t);
	return ret;
}
