/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tunnels and their port: what set-up opens and the loop runs on,
 * shared by the transmit path (tx.c), the receive path (rx.c), the path
 * policy (path.c) and forwarding (fwd.c), each of which keeps its own
 * part. A process runs one tunnel per tap over one port.
 */
#ifndef GSOTUN_TUNNEL_H
#define GSOTUN_TUNNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <ev.h>
#include "fwd.h"
#include "mac.h"
#include "options.h"
#include "path.h"
#include "peer.h"
#include "ring.h"
#include "rx.h"
#include "stats.h"
#include "tx.h"
#include "underlay.h"

/*
 * User data of a ring request: its kind, the tunnel and the transmit set
 * it belongs to, and an index (the read's slot, the message, the receive
 * frame).
 */
#define TAG_READ (0ull << 62)
#define TAG_SEND (1ull << 62)
#define TAG_WRITE (2ull << 62)
#define TAG_KIND(d) ((d) & (3ull << 62))
#define TAG_SET(i) ((uint64_t)(i) << 32)
#define TAG_SET_OF(d) (((d) >> 32) & 0xff)
#define TAG_TUN(i) ((uint64_t)(i) << 40)
#define TAG_TUN_OF(d) (((d) >> 40) & 0xff)

struct tunnel;

/*
 * What the tunnels of one process share: the underlay sockets on one
 * port, the ring, the peers. A tunnel is a tap and its VNI or GRE key;
 * received packets go to the one whose VNI or key they carry.
 */
struct port {
	struct underlay ul;
	struct ring ring;	/* tap reads and writes, sends */
	bool ring_up;
	struct peers peers;	/* --remote, --peers */
	struct tunnel *tun[CONFIG_MAX_TUNNELS];
	unsigned int n_tun;	/* [0] is the main one (--dev) */
	uint64_t start_ns;	/* when it started (clock.h) */
};

struct tunnel {
	struct config *cfg;	/* shared by the tunnels */
	struct encap_cfg encap;	/* with this tunnel's VNI or key */
	const char *dev;	/* the tap's name, as asked */
	unsigned int idx;	/* in port->tun[] */
	struct port *port;
	struct underlay *ul;	/* port's */
	struct ring *ring;	/* port's */
	struct peers *peers;	/* port's */
	struct ev_loop *loop;
	struct stats st;
	struct link *link;	/* rtnetlink */
	int tap_fd;
	unsigned int ifindex;
	char ifname[IFNAMSIZ];
	uint8_t mac[MAC_LEN];	/* the tap's */
	struct fwd fwd;		/* which peers a frame goes to */
	struct path path;
	struct tx tx;
	struct rx rx;
};

/*
 * Every completion of the ring, handed to tx or rx of the tunnel its tag
 * names; ctx is any tunnel of the port.
 */
void tunnel_done(void *ctx, uint64_t data, int res);

#endif
