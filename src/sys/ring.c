// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io_uring for the tap and the underlay: batches of reads, sends and
 * writes, each submitted with one io_uring_enter() and reaped by the caller.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "base/log.h"
#include "sys/ring.h"

/* User data of the cancellation itself: never the caller's. */
#define RING_CANCEL_TAG UINT64_MAX

/* liburing 2.2 has neither io_uring_prep_sendmsg_zc() nor the opcode. */
#if HAVE_DECL_IO_URING_PREP_SENDMSG_ZC
#define RING_OP_SENDMSG_ZC IORING_OP_SENDMSG_ZC
#else
#define RING_OP_SENDMSG_ZC 48
#endif

/*
 * With IORING_SEND_ZC_REPORT_USAGE (Linux 6.2) the notification's result
 * says whether the kernel copied the data after all (liburing 2.3 lacks
 * both).
 */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

/*
 * The opcodes of ring_read(), ring_writev(), ring_sendmsg(),
 * ring_sendmsg_zc(), ring_drain().
 */
static const uint8_t ring_ops[] = {
	IORING_OP_READ,
	IORING_OP_WRITEV,
	IORING_OP_SENDMSG,
	RING_OP_SENDMSG_ZC,
	IORING_OP_ASYNC_CANCEL,
};

#if HAVE_IO_URING_REGISTER_RESTRICTIONS && HAVE_IO_URING_ENABLE_RINGS
static int ring_register_restrictions(struct ring *r,
				      struct io_uring_restriction *res,
				      unsigned int n)
{
	return io_uring_register_restrictions(&r->uring, res, n);
}

static int ring_enable(struct ring *r)
{
	return io_uring_enable_rings(&r->uring);
}
#else
/* What liburing does, for one whose library lacks the two (2.3). */
static int ring_register(struct ring *r, unsigned int op, const void *arg,
			 unsigned int n)
{
	long ret = syscall(__NR_io_uring_register, r->uring.ring_fd, op, arg,
			   n);

	return ret < 0 ? -errno : (int)ret;
}

static int ring_register_restrictions(struct ring *r,
				      struct io_uring_restriction *res,
				      unsigned int n)
{
	return ring_register(r, IORING_REGISTER_RESTRICTIONS, res, n);
}

static int ring_enable(struct ring *r)
{
	return ring_register(r, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}
#endif

/*
 * A ring does in the kernel what seccomp never sees: an IORING_OP_OPENAT,
 * _SOCKET or _CONNECT would get round the filter of sandbox.c. So the
 * ring, made disabled, takes its restrictions before it is enabled
 * (io_uring_register(2), IORING_REGISTER_RESTRICTIONS): ring_ops[] only,
 * without SQE flags (none is given: none is allowed), and no register
 * operation after this one. Anything else completes with -EACCES.
 */
static int ring_restrict(struct ring *r)
{
	struct io_uring_restriction res[sizeof(ring_ops)];
	unsigned int i;
	int err;

	memset(res, 0, sizeof(res));
	for (i = 0; i < sizeof(ring_ops); i++) {
		res[i].opcode = IORING_RESTRICTION_SQE_OP;
		res[i].sqe_op = ring_ops[i];
	}
	err = ring_register_restrictions(r, res, sizeof(ring_ops));
	if (err < 0) {
		log_err_ret(err, "cannot restrict io_uring to its operations");
		return err;
	}
	err = ring_enable(r);
	if (err < 0)
		log_err_ret(err, "cannot enable the io_uring");
	return err < 0 ? err : 0;
}

int ring_init(struct ring *r, unsigned int entries)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->efd = -1;
	err = io_uring_queue_init(entries, &r->uring, IORING_SETUP_R_DISABLED);
	if (err < 0) {
		log_err_ret(err, "cannot set up io_uring");
		return err;
	}
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->efd < 0) {
		err = -errno;
		log_err_errno("cannot make an eventfd for io_uring");
		goto fail;
	}
	/* Only completions that did not happen inside the submission. */
	err = io_uring_register_eventfd_async(&r->uring, r->efd);
	if (err < 0) {
		log_err_ret(err, "cannot register the io_uring eventfd");
		goto fail;
	}
	err = ring_restrict(r);
	if (err)
		goto fail;
	return 0;
fail:
	if (r->efd >= 0)
		close(r->efd);
	io_uring_queue_exit(&r->uring);
	return err;
}

void ring_exit(struct ring *r)
{
	io_uring_queue_exit(&r->uring);
	if (r->efd >= 0)
		close(r->efd);
}

/* The next SQE; the caller preps it and then sets its user data. */
static struct io_uring_sqe *ring_sqe(struct ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);

	if (!sqe)
		return NULL;
	r->queued++;
	return sqe;
}

int ring_writev(struct ring *r, int fd, const struct iovec *iov, int n,
		uint64_t data)
{
	struct io_uring_sqe *sqe = ring_sqe(r);

	if (!sqe)
		return -ENOSPC;
	io_uring_prep_writev(sqe, fd, iov, n, 0);
	sqe->user_data = data;
	return 0;
}

int ring_read(struct ring *r, int fd, void *buf, unsigned int len,
	      uint64_t data)
{
	struct io_uring_sqe *sqe = ring_sqe(r);

	if (!sqe)
		return -ENOSPC;
	io_uring_prep_read(sqe, fd, buf, len, 0);
	sqe->user_data = data;
	/*
	 * Complete with -EAGAIN rather than wait in a poll for the next
	 * frame: the batch is what is there now.
	 */
	sqe->rw_flags = RWF_NOWAIT;
	return 0;
}

/* A SENDMSG of msg on fd, queued; its SQE, or NULL when the ring is full. */
static struct io_uring_sqe *ring_sendmsg_sqe(struct ring *r, int fd,
					     const struct msghdr *msg,
					     uint64_t data)
{
	struct io_uring_sqe *sqe = ring_sqe(r);

	if (sqe) {
		io_uring_prep_sendmsg(sqe, fd, msg, 0);
		sqe->user_data = data;
	}
	return sqe;
}

int ring_sendmsg(struct ring *r, int fd, const struct msghdr *msg,
		 uint64_t data)
{
	return ring_sendmsg_sqe(r, fd, msg, data) ? 0 : -ENOSPC;
}

int ring_sendmsg_zc(struct ring *r, int fd, const struct msghdr *msg,
		    uint64_t data)
{
	struct io_uring_sqe *sqe = ring_sendmsg_sqe(r, fd, msg, data);

	if (!sqe)
		return -ENOSPC;
	sqe->opcode = RING_OP_SENDMSG_ZC;
	/* The send's zero-copy flags go in ioprio (io_send_zc_prep()). */
	sqe->ioprio = IORING_SEND_ZC_REPORT_USAGE;
	return 0;
}

/* Submit, and wait for wait_nr completions; a broken ring is a bug. */
static void ring_enter(struct ring *r, unsigned int wait_nr)
{
	int n;

	for (;;) {
		n = io_uring_submit_and_wait(&r->uring, wait_nr);
		if (n >= 0 || n == -EINTR)
			break;
		/* Completions pending, or no memory for now: reap first. */
		if (n == -EAGAIN || n == -EBUSY) {
			if (r->inflight)
				break;
			continue;
		}
		log_err_ret(n, "io_uring submit");
		BUG_ON(1);
	}
	if (n > 0) {
		r->inflight += n;
		r->queued -= (unsigned int)n < r->queued ? (unsigned int)n
							   : r->queued;
	}
}

void ring_submit(struct ring *r)
{
	if (r->queued)
		ring_enter(r, 0);
}

void ring_reap(struct ring *r, ring_done_fn done, void *ctx)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(&r->uring, &cqe) == 0) {
		uint64_t data = io_uring_cqe_get_data64(cqe);
		unsigned int flags = cqe->flags & (RING_MORE | RING_NOTIF);
		int res = cqe->res;

		io_uring_cqe_seen(&r->uring, cqe);
		/* A request is done with its last completion, without MORE. */
		if (!(flags & RING_MORE))
			r->inflight--;
		if (flags & RING_NOTIF)
			res = ((unsigned int)res &
			       IORING_NOTIF_USAGE_ZC_COPIED) != 0;
		if (data != RING_CANCEL_TAG)
			done(ctx, data, res, flags);
	}
}

void ring_wait(struct ring *r, ring_done_fn done, void *ctx,
	       ring_more_fn more)
{
	ring_submit(r);
	ring_reap(r, done, ctx);
	while (more(ctx)) {
		BUG_ON(!r->inflight && !r->queued);
		ring_enter(r, 1);
		ring_reap(r, done, ctx);
	}
}

static bool ring_busy(void *ctx)
{
	const struct ring *r = ctx;

	return r->inflight || r->queued;
}

struct ring_drain_ctx {
	struct ring *r;
	ring_done_fn done;
	void *ctx;
};

static void ring_drain_done(void *ctx, uint64_t data, int res,
			    unsigned int flags)
{
	struct ring_drain_ctx *d = ctx;

	d->done(d->ctx, data, res, flags);
}

static bool ring_drain_more(void *ctx)
{
	struct ring_drain_ctx *d = ctx;

	return ring_busy(d->r);
}

void ring_drain(struct ring *r, ring_done_fn done, void *ctx)
{
	struct ring_drain_ctx d = { r, done, ctx };
	struct io_uring_sqe *sqe;

	ring_submit(r);
	if (r->inflight) {
		sqe = ring_sqe(r);
		if (sqe) {
			io_uring_prep_cancel64(sqe, 0,
					       IORING_ASYNC_CANCEL_ANY);
			sqe->user_data = RING_CANCEL_TAG;
		}
	}
	ring_wait(r, ring_drain_done, &d, ring_drain_more);
}

int ring_eventfd(const struct ring *r)
{
	return r->efd;
}

void ring_ack(struct ring *r)
{
	uint64_t n;

	if (read(r->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_debug("io_uring eventfd: %s", strerror(errno));
}
