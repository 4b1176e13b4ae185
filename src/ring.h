/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io_uring: the reads of a transmit batch and the writes of a receive
 * batch, each handed to the kernel with one system call.
 */
#ifndef GSOTUN_RING_H
#define GSOTUN_RING_H

#include <stdint.h>
#include <sys/uio.h>
#include <liburing.h>

struct ring {
	struct io_uring uring;
	unsigned int queued;	/* SQEs not yet submitted and reaped */
};

/* Called for each completion with the user data and the result. */
typedef void (*ring_done_fn)(void *ctx, uint64_t data, int res);

/* Set up a ring of entries SQEs. 0 or -errno (logged). */
int ring_init(struct ring *r, unsigned int entries);
void ring_exit(struct ring *r);

/*
 * Queue a writev of iov[0..n) to fd; iov and what it points to must stay
 * valid until ring_run() returns. -ENOSPC when the ring is full (run it).
 */
int ring_writev(struct ring *r, int fd, const struct iovec *iov, int n,
		uint64_t data);

/*
 * Queue a read of up to len bytes from fd into buf (valid until
 * ring_run() returns). On a non-blocking tap it completes inline, with
 * -EAGAIN when no frame is waiting. -ENOSPC when the ring is full.
 */
int ring_read(struct ring *r, int fd, void *buf, unsigned int len,
	      uint64_t data);

/*
 * Submit what is queued, wait for every completion and report each to
 * done. Reads and writes of a non-blocking tap complete inline, so this is
 * one system call.
 */
void ring_run(struct ring *r, ring_done_fn done, void *ctx);

#endif
