/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tunnel: what set-up opens and the loop runs on, shared by the
 * transmit path (tx.c), the receive path (rx.c) and the path policy
 * (path.c), each of which keeps its own part.
 */
#ifndef GSOTUN_TUNNEL_H
#define GSOTUN_TUNNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <ev.h>
#include "fwd.h"
#include "options.h"
#include "path.h"
#include "peer.h"
#include "ring.h"
#include "rx.h"
#include "stats.h"
#include "tx.h"
#include "underlay.h"

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

struct tunnel {
	struct config cfg;
	struct ev_loop *loop;
	struct stats st;
	struct underlay ul;
	struct ring ring;	/* tap reads and writes, sends */
	bool ring_up;
	struct link *link;	/* rtnetlink */
	int tap_fd;
	unsigned int ifindex;
	char ifname[IFNAMSIZ];
	struct peers peers;	/* --remote */
	struct fwd fwd;		/* which of them a frame goes to */
	struct path path;
	struct tx tx;
	struct rx rx;
};

/* Every completion of the ring, handed to tx or rx by its tag. */
void tunnel_done(void *ctx, uint64_t data, int res);

#endif
