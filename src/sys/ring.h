/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io_uring: the tap reads and underlay sends of a transmit batch, the tap
 * writes of a receive batch, each handed to the kernel with one system call.
 */
#ifndef GSOTUN_RING_H
#define GSOTUN_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <liburing.h>

struct ring {
	struct io_uring uring;
	unsigned int queued;	/* SQEs prepared, not yet submitted */
	unsigned int inflight;	/* submitted, completion not yet reaped */
	int efd;		/* eventfd: completions that were not inline */
};

/* Called for each completion with the user data and the result. */
typedef void (*ring_done_fn)(void *ctx, uint64_t data, int res);
/* ring_wait() waits while this says there is more to wait for. */
typedef bool (*ring_more_fn)(void *ctx);

/*
 * Set up a ring of entries SQEs, with an eventfd that becomes readable
 * when a request completes after its submission returned (a send that
 * waited for socket space). The ring takes only the operations of the
 * functions below, without SQE flags, and no more io_uring_register()
 * calls: any other request completes with -EACCES. 0 or -errno (logged).
 */
int ring_init(struct ring *r, unsigned int entries);

/* The eventfd to watch, and its count taken once it is readable. */
int ring_eventfd(const struct ring *r);
void ring_ack(struct ring *r);
void ring_exit(struct ring *r);

/*
 * Queue a writev of iov[0..n) to fd; iov and what it points to must stay
 * valid until the completion. -ENOSPC when the ring is full.
 */
int ring_writev(struct ring *r, int fd, const struct iovec *iov, int n,
		uint64_t data);

/*
 * Queue a read of up to len bytes from fd into buf (valid until the
 * completion). On a non-blocking tap it completes inline, with -EAGAIN
 * when no frame is waiting. -ENOSPC when the ring is full.
 */
int ring_read(struct ring *r, int fd, void *buf, unsigned int len,
	      uint64_t data);

/*
 * Queue a sendmsg of msg on fd (msg and all it points to valid until the
 * completion). -ENOSPC when the ring is full.
 */
int ring_sendmsg(struct ring *r, int fd, const struct msghdr *msg,
		 uint64_t data);

/* Submit what is queued, without waiting. */
void ring_submit(struct ring *r);

/* Report every completion already there to done, without waiting. */
void ring_reap(struct ring *r, ring_done_fn done, void *ctx);

/*
 * Submit what is queued, then report completions to done until more()
 * says there is nothing left to wait for.
 */
void ring_wait(struct ring *r, ring_done_fn done, void *ctx,
	       ring_more_fn more);

/*
 * Cancel what is still in flight and wait for every completion (reported
 * to done, -ECANCELED for the cancelled): the ring's buffers are free.
 */
void ring_drain(struct ring *r, ring_done_fn done, void *ctx);

#endif
