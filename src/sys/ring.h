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

/*
 * What a completion is (flags of ring_done_fn): a zero-copy send's
 * result, whose notification follows (RING_MORE), or that notification
 * (RING_NOTIF): only then are the send's buffers the caller's again.
 * The notification's res is 1 if the kernel copied the data after all,
 * else 0.
 */
#define RING_MORE IORING_CQE_F_MORE
#ifdef IORING_CQE_F_NOTIF
#define RING_NOTIF IORING_CQE_F_NOTIF
#else
#define RING_NOTIF (1U << 3)
#endif

/*
 * Called for each completion with the user data, the result and flags,
 * 0 or one of RING_MORE and RING_NOTIF.
 */
typedef void (*ring_done_fn)(void *ctx, uint64_t data, int res,
			     unsigned int flags);
/* ring_wait() waits while this says there is more to wait for. */
typedef bool (*ring_more_fn)(void *ctx);

/*
 * Set up a ring of entries SQEs, with an eventfd that becomes readable
 * when a request completes after its submission returned (a send that
 * waited for socket space). The ring takes only the operations of the
 * functions below, without SQE flags, and no more io_uring_register()
 * calls: any other request completes with -EACCES. 0 or -errno (logged).
 * A zero-copy send's notification never signals the eventfd (it is
 * posted by task work, not by an io-wq worker): see ring_sendmsg_zc().
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

/*
 * ring_sendmsg(), zero-copy (IORING_OP_SENDMSG_ZC): the kernel takes the
 * pages of the iovecs instead of copying them, and the data must stay
 * unchanged until the second completion, RING_NOTIF, with the same user
 * data. The first, the send's result, has RING_MORE, unless the send
 * failed before it took anything (then it is the only one). The
 * notification comes when the kernel frees the packet (the NIC sent it),
 * as task work of the submitting thread: posted when that thread next
 * leaves a system call (a sleeping epoll_wait() is interrupted, EINTR,
 * for it), without a count on the eventfd; so the caller reaps the ring
 * on every pass of its loop while it waits for one. -ENOSPC when the
 * ring is full.
 */
int ring_sendmsg_zc(struct ring *r, int fd, const struct msghdr *msg,
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
