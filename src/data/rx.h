/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The receive path: packets from the underlay sockets, made into frames
 * for the tap (decap_packet()) a receive batch at a time, and written to
 * the tap through io_uring.
 */
#ifndef GSOTUN_RX_H
#define GSOTUN_RX_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/if_ether.h>
#include "base/log.h"
#include "base/stats.h"
#include "pkt/gro.h"
#include "conf/types.h"
#include "data/types.h"


/* Buffers for q->rx, for a tap of MTU mtu. 0 or -ENOMEM (logged). */
int rx_init(struct queue *q, uint32_t mtu);
void rx_free(struct rx *r);

/* The tap's MTU changed: what gro merges follows. Between batches. */
void rx_set_mtu(struct queue *q, uint32_t mtu);

/*
 * The forwarding table or the peers changed: the source learnt last is
 * handed to the device again.
 */
void rx_forget_learnt(struct queue *q);

/* Start reading the lane's underlay sockets, and its senders' errors. */
void rx_watch(struct lane *l);

/*
 * --rx-coalesce MSEC (0: off): while a stream comes in, a socket
 * emptied by a wake-up is read again only MSEC later, in one batch,
 * rather than a packet or two at every wake-up.
 */
void rx_coalesce_init(struct lane *l, unsigned int msec);

/*
 * A lane on a thread of its own: its watcher of socket fd stopped until
 * the main thread has read the socket's errors, and then all of them
 * started again (between batches, on the lane's thread).
 */
void rx_pause_socket(struct lane *l, int fd);
void rx_resume_sockets(struct lane *l);

/* The completion of tap write i of the batch (TAG_WRITE). */
void rx_done(struct queue *q, unsigned int i, int res);

/*
 * What the last packet that q dropped for why came with, as `gsotunctl
 * show' says it ("VNI 2 from 198.18.0.3"), into buf; false when why is
 * not a cause a wrong set-up gives, or none was seen.
 */
bool rx_seen_text(const struct queue *q, enum drop why, char *buf,
		  size_t len);

#endif
