// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for what the forwarding database watch reads from
 * rtnetlink (evpn.c's fabric): a receive buffer through link_fdb_parse(),
 * its entries, a dump's end, devices deleted and losses.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "sys/link.h"
#include "fuzz.h"

/*
 * Input: the sequence number of the dump under way (4 bytes, host
 * order; 0: none), a byte whose bit 0 says one of its messages was
 * flagged NLM_F_DUMP_INTR already, then the bytes recvfrom() gave: any
 * messages at all, as a hostile or broken kernel peer might send them.
 */
#define FDBW_HDR_LEN 5

struct fdbw_seen {
	unsigned int entries, dumped, lost, gone;
	int err;
	const uint8_t *buf;	/* the messages, to check entries against */
	size_t len;
};

static void fdbw_entry(void *ctx, const struct link_fdb *e)
{
	struct fdbw_seen *s = ctx;

	s->entries++;
	FUZZ_CHECK(e->dst.family == 0 || e->dst.family == AF_INET ||
		   e->dst.family == AF_INET6);
	/* What it says was copied out: the buffer may go. */
	FUZZ_CHECK(!((const uint8_t *)e >= s->buf &&
		     (const uint8_t *)e < s->buf + s->len));
}

static void fdbw_dumped(void *ctx, int err)
{
	struct fdbw_seen *s = ctx;

	s->dumped++;
	s->err = err;
	FUZZ_CHECK(err <= 0);
}

static void fdbw_lost(void *ctx)
{
	((struct fdbw_seen *)ctx)->lost++;
}

static void fdbw_gone(void *ctx, unsigned int ifindex)
{
	((struct fdbw_seen *)ctx)->gone++;
	FUZZ_CHECK(ifindex > 0);
}

static const struct link_fdb_ops fdbw_ops = {
	.entry = fdbw_entry,
	.dumped = fdbw_dumped,
	.lost = fdbw_lost,
	.link_gone = fdbw_gone,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdbw_seen s = { 0 };
	struct link_fdb_dump d = { 0 };
	unsigned int n, seq;
	uint32_t *buf;
	size_t len;

	if (size < FDBW_HDR_LEN)
		return 0;
	memcpy(&seq, data, 4);
	d.seq = seq;
	d.intr = data[4] & 1;
	len = size - FDBW_HDR_LEN;
	/* Aligned as the socket's buffer is; exactly len bytes for ASan. */
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + FDBW_HDR_LEN, len);
	s.buf = (const uint8_t *)buf;
	s.len = len;
	n = link_fdb_parse(&d, buf, len, &fdbw_ops, &s);

	FUZZ_CHECK(s.entries + s.gone <= n);
	/* A dump ends once, and only the one under way. */
	FUZZ_CHECK(s.dumped <= 1);
	FUZZ_CHECK(!s.dumped || (seq && !d.seq));
	FUZZ_CHECK(!seq || s.dumped || d.seq == seq);
	if (s.dumped && !s.err)
		FUZZ_CHECK(!d.intr);
	FUZZ_CHECK(s.lost <= 1);
	/* Nothing read: nothing said, but a loss for a runt. */
	if (len < sizeof(struct nlmsghdr))
		FUZZ_CHECK(!n && s.lost == (len > 0));
	free(buf);
	return 0;
}
