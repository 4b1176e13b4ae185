/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What contrib/recv-bench.c and contrib/gre-floor.c share: the clocks
 * they measure with and io_uring's provided buffer ring they receive
 * into. A header of static functions: each is a program of one file.
 */
#ifndef GSOTUN_CONTRIB_BENCH_UTIL_H
#define GSOTUN_CONTRIB_BENCH_UTIL_H

#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

/* The buffer group bench_bufs() registers. */
#define BENCH_BGID 1

static inline double bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* User and system CPU of this process so far, in seconds. */
static inline double bench_cpu_seconds(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 +
	       r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

/*
 * A buffer ring of group BENCH_BGID on ring: n (a power of two) buffers
 * of len bytes, all given to the kernel; exits with a message naming
 * prog if it cannot.
 */
static inline char *bench_bufs(struct io_uring *ring,
			       struct io_uring_buf_ring **br, unsigned int n,
			       size_t len, const char *prog)
{
	struct io_uring_buf_reg reg = { .ring_entries = n, .bgid = BENCH_BGID };
	char *bufs = malloc(n * len);
	unsigned int i;

	*br = mmap(NULL, n * sizeof(struct io_uring_buf),
		   PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (!bufs || *br == MAP_FAILED) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	reg.ring_addr = (unsigned long)*br;
	io_uring_buf_ring_init(*br);
	if (io_uring_register_buf_ring(ring, &reg, 0)) {
		fprintf(stderr, "%s: no provided buffer rings\n", prog);
		exit(1);
	}
	for (i = 0; i < n; i++)
		io_uring_buf_ring_add(*br, bufs + i * len, len, i, n - 1, i);
	io_uring_buf_ring_advance(*br, n);
	return bufs;
}

/* Arm a multishot recvmsg on fd into the buffers of BENCH_BGID. */
static inline void bench_recv_arm(struct io_uring *ring, int fd,
				  struct msghdr *mh)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_recvmsg_multishot(sqe, fd, mh, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BENCH_BGID;
}

/*
 * The completions of that receive: got(ctx, payload, length) for each
 * message, its buffer given back to the ring (n buffers of len at bufs);
 * *armed false once the receive has ended (out of buffers).
 */
static inline void
bench_recv_reap(struct io_uring *ring, struct io_uring_buf_ring *br, char *bufs,
		unsigned int n, size_t len, struct msghdr *mh, bool *armed,
		void (*got)(void *, void *, size_t), void *ctx)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		struct io_uring_recvmsg_out *o;
		unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		char *b = bufs + bid * len;

		seen++;
		if (!(cqe->flags & IORING_CQE_F_MORE))
			*armed = false;
		if (cqe->res <= 0 || !(cqe->flags & IORING_CQE_F_BUFFER))
			continue;
		o = io_uring_recvmsg_validate(b, cqe->res, mh);
		if (o)
			got(ctx, io_uring_recvmsg_payload(o, mh),
			    io_uring_recvmsg_payload_length(o, cqe->res, mh));
		io_uring_buf_ring_add(br, b, len, bid, n - 1, 0);
		io_uring_buf_ring_advance(br, 1);
	}
	io_uring_cq_advance(ring, seen);
}

#endif
