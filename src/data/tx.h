/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transmit path: frames read from the tap in batches through
 * io_uring, composed for the wire (xmit_frame()) and sent, with
 * backpressure when the sends of two batches are still under way.
 */
#ifndef GSOTUN_TX_H
#define GSOTUN_TX_H

#include <stdint.h>
#include <ev.h>
#include "base/pool.h"
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "pipe/pmtu.h"
#include "pipe/sendq.h"
#include "pipe/xmit.h"
#include "data/types.h"


/* Buffers for q->tx. 0 or -ENOMEM (logged). */
int tx_init(struct queue *q);
void tx_free(struct tx *x);

/*
 * Wait until no send is in flight (between batches): the peers' socket
 * addresses that queued messages point to may then change.
 */
void tx_quiesce(struct queue *q);

/* Read the tap when it is readable. */
void tx_watch(struct queue *q);

/*
 * A completion of a tap read or of a send (TAG_READ, TAG_SEND); flags:
 * a zero-copy send's (ring_done_fn).
 */
void tx_done(struct queue *q, uint64_t data, int res, unsigned int flags);

#endif
