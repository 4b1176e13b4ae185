// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of sendq: segments grouped into the messages the underlay
 * sends (UDP GSO runs), their iovecs, control messages and peer.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "pipe/sendq.h"
#include "cmsg.h"
#include "tap.h"

/* VXLAN's header in front of each segment's inner headers. */
#define ENCAP_LEN 8
/* Inner headers in each segment's header block. */
#define HDR_LEN 54
/* Segments one row may add, -ENOSPC rows included. */
#define SEGS_MAX (SENDQ_SEGS + 64)

static uint8_t slots[SEGS_MAX * GSO_SLOT];
static uint8_t pay[SEGS_MAX * 8 + 2048];
static struct seg batch[SEGS_MAX];
static struct sendq Q;

/* What was queued, segment by segment, to check the queue against. */
struct queued {
	struct seg s;
	const struct sendq_dst *to;
	uint8_t src;
	int tos;
	bool df;
};

static struct queued rec[SEGS_MAX];
static unsigned int n_rec;
/* Segments made so far: each gets its own slot and payload pointer. */
static unsigned int n_made;

/* Two peers of each family; a row sends to the family's dsts[]. */
static struct sockaddr_in peer4[2];
static struct sockaddr_in6 peer6[2];
static struct sendq_dst dsts[2];
static bool use_dst;

/* One sendq_add() call: n segments of size bytes on the wire each. */
struct add {
	unsigned int n;
	uint16_t size;
	uint16_t last;		/* the last one's size, when not 0 */
	uint8_t src;
	uint8_t dst;		/* dsts[] index */
	int tos;		/* -1: the socket's */
	bool df;
	bool submit;		/* the queue is submitted before this call */
	int want;		/* sendq_add()'s result */
};

/* Rows: the calls in order, and the segments of each message that must
 * come out of them. */
struct row {
	const char *name;
	bool no_gso;
	bool no_df_sock;
	struct add adds[4];	/* up to the first with n == 0 */
	uint16_t msgs[12];	/* up to the first 0 */
};

/* n segments of size bytes from source 0, no TOS, no DF. */
#define SEGS(n_, size_) { .n = (n_), .size = (size_), .tos = -1 }
#define SHORT(n_, size_, last_)                                               \
	{ .n = (n_), .size = (size_), .last = (last_), .tos = -1 }

static const struct row rows[] = {
	{ "same size segments of a frame: one message",
	  .adds = { SEGS(4, 1000) }, .msgs = { 4 } },
	{ "same size segments of two frames: one message",
	  .adds = { SEGS(4, 1000), SEGS(3, 1000) }, .msgs = { 7 } },
	{ "small frames of a batch share a message",
	  .adds = { SEGS(1, 90), SEGS(1, 90), SEGS(1, 90) }, .msgs = { 3 } },
	{ "a shorter last segment ends the run, the next frame starts anew",
	  .adds = { SHORT(3, 1000, 500), SEGS(2, 1000) }, .msgs = { 3, 2 } },
	{ "after a shorter segment even a shorter one starts anew",
	  .adds = { SHORT(2, 1000, 400), SEGS(1, 300) }, .msgs = { 2, 1 } },
	{ "a shorter frame joins the run as its last, the next starts anew",
	  .adds = { SEGS(3, 1000), SEGS(1, 400), SEGS(1, 400) },
	  .msgs = { 4, 1 } },
	{ "a longer segment starts a new message",
	  .adds = { SEGS(2, 1000), SEGS(2, 1200) }, .msgs = { 2, 2 } },
	{ "another source socket starts a new message",
	  .adds = { SEGS(2, 1000),
		    { .n = 2, .size = 1000, .src = 1, .tos = -1 },
		    { .n = 1, .size = 1000, .src = 1, .tos = -1 } },
	  .msgs = { 2, 3 } },
	{ "another destination starts a new message, and so does the first",
	  .adds = { SEGS(2, 1000),
		    { .n = 2, .size = 1000, .dst = 1, .tos = -1 },
		    { .n = 1, .size = 1000, .dst = 1, .tos = -1 },
		    SEGS(1, 1000) },
	  .msgs = { 2, 3, 1 } },
	{ "another TOS starts a new message",
	  .adds = { { .n = 2, .size = 1000, .tos = 0 },
		    { .n = 2, .size = 1000, .tos = 0x28 },
		    { .n = 2, .size = 1000, .tos = 0x28 } },
	  .msgs = { 2, 4 } },
	{ "a TOS after none starts a new message",
	  .adds = { SEGS(2, 1000), { .n = 2, .size = 1000, .tos = 0 } },
	  .msgs = { 2, 2 } },
	{ "DF after not DF starts a new message when a DF socket exists",
	  .adds = { SEGS(2, 1000),
		    { .n = 2, .size = 1000, .tos = -1, .df = true },
		    { .n = 1, .size = 1000, .tos = -1, .df = true } },
	  .msgs = { 2, 3 } },
	{ "DF does not split without a DF socket",
	  .no_df_sock = true,
	  .adds = { SEGS(2, 1000),
		    { .n = 2, .size = 1000, .tos = -1, .df = true } },
	  .msgs = { 4 } },
	{ "128 segments at most: the 129th starts a message",
	  .adds = { SEGS(130, 100) }, .msgs = { 128, 2 } },
	{ "128 segments at most, across frames",
	  .adds = { SEGS(100, 100), SEGS(100, 100) }, .msgs = { 128, 72 } },
	{ "64000 bytes at most: 64 segments of 1000, the 65th starts anew",
	  .adds = { SEGS(65, 1000) }, .msgs = { 64, 1 } },
	{ "64000 bytes at most, across frames",
	  .adds = { SEGS(40, 1000), SEGS(30, 1000) }, .msgs = { 64, 6 } },
	{ "a segment that would pass 64000 bytes starts anew, if shorter",
	  .adds = { SEGS(45, 1400), SEGS(1, 1200) }, .msgs = { 45, 1 } },
	{ "a submitted message is not extended",
	  .adds = { SEGS(2, 1000),
		    { .n = 2, .size = 1000, .tos = -1, .submit = true } },
	  .msgs = { 2, 2 } },
	{ "after a submission new messages group again",
	  .adds = { SEGS(2, 1000),
		    { .n = 2, .size = 1000, .tos = -1, .submit = true },
		    SEGS(2, 1000) },
	  .msgs = { 2, 4 } },
	{ "gso off: one message per segment",
	  .no_gso = true,
	  .adds = { SEGS(3, 1000), SEGS(2, 1000) },
	  .msgs = { 1, 1, 1, 1, 1 } },
	{ "-ENOSPC when SENDQ_SEGS would be passed: nothing queued",
	  .adds = { SEGS(1000, 100),
		    { .n = 25, .size = 100, .tos = -1, .want = -ENOSPC },
		    SEGS(24, 100) },
	  .msgs = { 128, 128, 128, 128, 128, 128, 128, 128 } },
	{ "-ENOSPC for a frame larger than the whole queue",
	  .adds = { { .n = SENDQ_SEGS + 1, .size = 100, .tos = -1,
		      .want = -ENOSPC },
		    SEGS(1, 100) },
	  .msgs = { 1 } },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static void params_init(struct sendq_params *p, int family, bool peer)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->family = family;
	p->gso = true;
	p->df_sock = true;
	use_dst = peer;
	for (i = 0; i < 2; i++) {
		if (family == AF_INET6) {
			dsts[i].addr = (const struct sockaddr *)&peer6[i];
			dsts[i].len = sizeof(peer6[i]);
		} else {
			dsts[i].addr = (const struct sockaddr *)&peer4[i];
			dsts[i].len = sizeof(peer4[i]);
		}
	}
}

/* Segment k of an add: its own header slot and payload pointer. */
static void make_seg(struct seg *s, uint16_t size)
{
	unsigned int i = n_made++;

	memset(s, 0, sizeof(*s));
	s->hdr = slots + (size_t)i * GSO_SLOT + GSO_HEADROOM;
	s->hdr_len = HDR_LEN;
	s->payload = pay + (size_t)i * 8;
	s->payload_len = size - ENCAP_LEN - HDR_LEN;
}

static int do_add(const struct sendq_params *p, const struct add *a)
{
	unsigned int k;
	int r;

	for (k = 0; k < a->n; k++)
		make_seg(&batch[k], k + 1 == a->n && a->last ? a->last :
							       a->size);
	r = sendq_add(&Q, p, use_dst ? &dsts[a->dst] : NULL, a->src, batch,
		      (int)a->n, ENCAP_LEN, a->tos, a->df);
	for (k = 0; r == 0 && k < a->n; k++) {
		rec[n_rec].s = batch[k];
		rec[n_rec].to = use_dst ? &dsts[a->dst] : NULL;
		rec[n_rec].src = a->src;
		rec[n_rec].tos = a->tos;
		rec[n_rec].df = a->df && p->df_sock;
		n_rec++;
	}
	return r;
}

static uint32_t wire_len(const struct seg *s)
{
	return ENCAP_LEN + seg_len(s);
}

/* The iovec pair of a segment: encapsulation and inner headers, payload. */
static bool iov_is_seg(const struct iovec *v, const struct seg *s)
{
	return v[0].iov_base == s->hdr - ENCAP_LEN &&
	       v[0].iov_len == ENCAP_LEN + (size_t)s->hdr_len &&
	       v[1].iov_base == s->payload && v[1].iov_len == s->payload_len;
}

/* Every queued segment in order, message after message. */
static bool check_iovs(void)
{
	unsigned int m, j, k = 0;

	for (m = 0; m < Q.n_msgs; m++) {
		const struct msghdr *h = &Q.msgs[m].msg;

		if (h->msg_iovlen != 2u * Q.msgs[m].segs)
			return false;
		for (j = 0; j < Q.msgs[m].segs; j++, k++)
			if (k >= n_rec || !iov_is_seg(&h->msg_iov[2 * j],
						      &rec[k].s))
				return false;
	}
	return k == n_rec && Q.n_segs == n_rec;
}

/* Segments, sizes, source, TOS and DF of each message, from its own. */
static bool check_fields(void)
{
	unsigned int m, j, k = 0;

	for (m = 0; m < Q.n_msgs; m++) {
		const struct sendq_msg *g = &Q.msgs[m];
		uint32_t bytes = 0;

		if (!g->segs || k + g->segs > n_rec)
			return false;
		for (j = 0; j < g->segs; j++) {
			const struct queued *r = &rec[k + j];

			bytes += wire_len(&r->s);
			if (r->src != rec[k].src || r->tos != rec[k].tos ||
			    r->df != rec[k].df)
				return false;
		}
		if (g->size != wire_len(&rec[k].s) || g->bytes != bytes ||
		    g->src != rec[k].src || g->tos != rec[k].tos ||
		    g->df != rec[k].df)
			return false;
		k += g->segs;
	}
	return true;
}

/* UDP_SEGMENT with the first's size on runs of 2+ only; TOS when set. */
static bool check_cmsgs(int family)
{
	unsigned int m;
	int gso, tos;

	for (m = 0; m < Q.n_msgs; m++) {
		const struct sendq_msg *g = &Q.msgs[m];

		if (!cmsgs_of(&g->msg, family, &gso, &tos))
			return false;
		if (gso != (g->segs > 1 ? (int)g->size : 0) || tos != g->tos)
			return false;
	}
	return true;
}

/* msg_name: the destination every segment of the message was for. */
static bool check_peer(void)
{
	unsigned int m, j, k = 0;

	for (m = 0; m < Q.n_msgs; m++) {
		const struct msghdr *h = &Q.msgs[m].msg;
		const struct sendq_dst *to = rec[k].to;

		if (h->msg_name != (to ? (const void *)to->addr : NULL) ||
		    h->msg_namelen != (to ? to->len : 0) || h->msg_flags)
			return false;
		for (j = 0; j < Q.msgs[m].segs; j++, k++)
			if (rec[k].to != to)
				return false;
	}
	return true;
}

static void print_split(void)
{
	unsigned int m;

	printf("#   messages:");
	for (m = 0; m < Q.n_msgs; m++)
		printf(" %u", Q.msgs[m].segs);
	printf("\n");
}

static void test_row(const struct row *r, int family, bool peer)
{
	struct sendq_params p;
	const struct add *a;
	bool adds_ok = true, split;
	unsigned int m;

	params_init(&p, family, peer);
	p.gso = !r->no_gso;
	p.df_sock = !r->no_df_sock;
	sendq_reset(&Q);
	n_rec = 0;
	n_made = 0;
	for (a = r->adds; a < r->adds + 4 && a->n; a++) {
		if (a->submit)
			Q.submitted = Q.n_msgs;
		if (do_add(&p, a) != a->want)
			adds_ok = false;
	}
	ok(adds_ok, "%s: sendq_add() results", r->name);
	for (m = 0; m < Q.n_msgs && m < 12; m++)
		if (Q.msgs[m].segs != r->msgs[m])
			break;
	split = m == Q.n_msgs && (m == 12 || !r->msgs[m]);
	if (!ok(split, "%s: segments per message", r->name))
		print_split();
	ok(check_iovs(), "%s: iovecs are each segment's headers and payload, "
	   "in order", r->name);
	ok(check_fields(), "%s: size, bytes, source, TOS and DF of each",
	   r->name);
	ok(check_cmsgs(family), "%s: UDP_SEGMENT on runs of 2+, TOS when set",
	   r->name);
	ok(check_peer(), "%s: msg_name the segments' destination", r->name);
}

/* IPv6: IPV6_TCLASS in place of IP_TOS; no peer: a connected socket. */
static void test_family_peer(void)
{
	static const struct row v6 = {
		"IPv6, a traffic class: IPV6_TCLASS",
		.adds = { { .n = 3, .size = 1000, .tos = 0xb8 },
			  SEGS(1, 1000) },
		.msgs = { 3, 1 }
	};
	static const struct row v6_np = {
		"IPv6, no peer (a connected socket)",
		.adds = { { .n = 3, .size = 1000, .tos = 0xb8 } },
		.msgs = { 3 }
	};
	static const struct row v4_np = {
		"IPv4, no peer (a connected socket)",
		.adds = { { .n = 2, .size = 1000, .tos = 0x10 }, SEGS(1, 90) },
		.msgs = { 2, 1 }
	};

	test_row(&v6, AF_INET6, true);
	test_row(&v6_np, AF_INET6, false);
	ok(Q.msgs[0].msg.msg_name == NULL && Q.msgs[0].msg.msg_namelen == 0,
	   "%s: msg_name NULL", v6_np.name);
	test_row(&v4_np, AF_INET, false);
	ok(Q.msgs[1].msg.msg_name == NULL && Q.msgs[1].msg.msg_namelen == 0,
	   "%s: msg_name NULL", v4_np.name);
}

/* A GSO run resent one datagram each (underlay.c after EIO). */
static void test_single(void)
{
	static const int toses[] = { 0x28, -1 };
	union sendq_cmsg cbuf;
	struct sendq_params p;
	struct msghdr out;
	unsigned int t, i;
	int gso, tos;

	for (t = 0; t < 2; t++) {
		const struct add a = { .n = 3, .size = 1000, .last = 700,
				       .tos = toses[t] };
		bool good = true;

		params_init(&p, AF_INET, true);
		sendq_reset(&Q);
		n_rec = 0;
		n_made = 0;
		do_add(&p, &a);
		if (!is_int(Q.n_msgs, 1, "single, TOS %d: one message of 3",
			    toses[t]))
			continue;
		for (i = 0; i < 3; i++) {
			memset(&cbuf, 0xa5, sizeof(cbuf));
			sendq_single(&Q, &p, 0, i, &out, &cbuf);
			good = good && out.msg_iovlen == 2 &&
			       iov_is_seg(out.msg_iov, &rec[i].s) &&
			       out.msg_iov == &Q.msgs[0].msg.msg_iov[2 * i] &&
			       out.msg_name == (const void *)dsts[0].addr &&
			       out.msg_namelen == dsts[0].len &&
			       cmsgs_of(&out, AF_INET, &gso, &tos) &&
			       gso == 0 && tos == toses[t] &&
			       (tos < 0 || out.msg_control == cbuf.buf);
		}
		ok(good, "single, TOS %d: segment i alone, its TOS, no "
		   "UDP_SEGMENT", toses[t]);
		ok(cmsgs_of(&Q.msgs[0].msg, AF_INET, &gso, &tos) &&
		   gso == 1000 && tos == toses[t],
		   "single, TOS %d: the run's own control left as it was",
		   toses[t]);
	}
}

/* Pending: queued but not submitted; reset empties everything. */
static void test_pending(void)
{
	struct sendq_params p;
	const struct add a = { .n = 3, .size = 1000, .tos = -1 };
	const struct add b = { .n = 1, .size = 1000, .tos = 4 };

	params_init(&p, AF_INET, true);
	sendq_reset(&Q);
	is_int(sendq_pending(&Q), 0, "pending: an empty queue has none");
	do_add(&p, &a);
	do_add(&p, &b);
	is_int(sendq_pending(&Q), 2, "pending: two messages queued");
	Q.submitted = 1;
	is_int(sendq_pending(&Q), 1, "pending: one submitted, one left");
	sendq_reset(&Q);
	ok(Q.n_msgs == 0 && Q.n_segs == 0 && Q.submitted == 0 &&
	   sendq_pending(&Q) == 0, "pending: reset empties the queue");
}

int main(void)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		peer4[i].sin_family = AF_INET;
		peer4[i].sin_port = htons(4789);
		peer4[i].sin_addr.s_addr = htonl(0xc0000202 + i);
		peer6[i].sin6_family = AF_INET6;
		peer6[i].sin6_port = htons(4789);
		inet_pton(AF_INET6, i ? "2001:db8::3" : "2001:db8::2",
			  &peer6[i].sin6_addr);
	}
	for (i = 0; i < N_ROWS; i++)
		test_row(&rows[i], AF_INET, true);
	test_family_peer();
	test_single();
	test_pending();
	plan(tap_n);
	return done_testing();
}
