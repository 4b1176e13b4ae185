// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io_uring for the tap: the reads of a transmit batch, the writes of a
 * receive batch; one io_uring_enter() submits and reaps each batch.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include "log.h"
#include "ring.h"

int ring_init(struct ring *r, unsigned int entries)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = io_uring_queue_init(entries, &r->uring, 0);
	if (err < 0) {
		log_err("cannot set up io_uring: %s", strerror(-err));
		return err;
	}
	return 0;
}

void ring_exit(struct ring *r)
{
	io_uring_queue_exit(&r->uring);
}

int ring_writev(struct ring *r, int fd, const struct iovec *iov, int n,
		uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);

	if (!sqe)
		return -ENOSPC;
	io_uring_prep_writev(sqe, fd, iov, n, 0);
	io_uring_sqe_set_data64(sqe, data);
	r->queued++;
	return 0;
}

int ring_read(struct ring *r, int fd, void *buf, unsigned int len,
	      uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);

	if (!sqe)
		return -ENOSPC;
	io_uring_prep_read(sqe, fd, buf, len, 0);
	/*
	 * Complete with -EAGAIN rather than wait in a poll for the next
	 * frame: the batch is what is there now.
	 */
	sqe->rw_flags = RWF_NOWAIT;
	io_uring_sqe_set_data64(sqe, data);
	r->queued++;
	return 0;
}

void ring_run(struct ring *r, ring_done_fn done, void *ctx)
{
	struct io_uring_cqe *cqe;
	int err;

	while (r->queued) {
		err = io_uring_submit_and_wait(&r->uring, r->queued);
		if (err < 0 && err != -EINTR && err != -EAGAIN &&
		    err != -EBUSY) {
			/* Nothing can be reaped: the ring is unusable. */
			log_err("io_uring submit: %s", strerror(-err));
			BUG_ON(1);
		}
		while (r->queued && io_uring_peek_cqe(&r->uring, &cqe) == 0) {
			done(ctx, io_uring_cqe_get_data64(cqe), cqe->res);
			io_uring_cqe_seen(&r->uring, cqe);
			r->queued--;
		}
	}
}
