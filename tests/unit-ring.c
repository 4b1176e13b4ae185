// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the ring's restrictions (ring_init()): its own operations
 * work, any other opcode, an SQE flag and a later io_uring_register() are
 * refused with -EACCES, so the ring cannot get round the seccomp filter;
 * a zero-copy send completes twice, its request in flight until the
 * notification.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "sys/ring.h"
#include "tap.h"

static struct ring r;
static int last_res;

/* A completion of ring.c's, its result kept. */
static void record(void *ctx, uint64_t data, int res, unsigned int flags)
{
	last_res = res;
}

/* Submit what is queued, wait for one completion: its result. */
static int complete_one(void)
{
	struct io_uring_cqe *cqe;
	int res, err;

	err = io_uring_submit_and_wait(&r.uring, 1);
	if (err < 0)
		return err;
	err = io_uring_wait_cqe(&r.uring, &cqe);
	if (err < 0)
		return err;
	res = cqe->res;
	io_uring_cqe_seen(&r.uring, cqe);
	return res;
}

static int nop(void)
{
	io_uring_prep_nop(io_uring_get_sqe(&r.uring));
	return complete_one();
}

static int open_dev_null(void)
{
	io_uring_prep_openat(io_uring_get_sqe(&r.uring), AT_FDCWD, "/dev/null",
			     O_RDONLY | O_CLOEXEC, 0);
	return complete_one();
}

static int make_socket(void)
{
	io_uring_prep_socket(io_uring_get_sqe(&r.uring), AF_INET, SOCK_DGRAM,
			     0, 0);
	return complete_one();
}

/* From a pipe holding a byte: done at once, unless refused. */
static int read_with_flag(int p[2])
{
	static char buf[8];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r.uring);

	if (write(p[1], "x", 1) != 1)
		return -errno;
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_IO_DRAIN;
	return complete_one();
}

static bool waiting(void *ctx)
{
	return last_res == INT_MIN;
}

/* What ring.c queued, submitted: the result of its one completion. */
static int ring_one(void)
{
	last_res = INT_MIN;
	ring_wait(&r, record, NULL, waiting);
	return last_res;
}

/* ring_writev() then ring_read() through a pipe: what came back. */
static bool pipe_round_trip(int p[2])
{
	static char out[] = "frame", in[sizeof(out)];
	struct iovec iov = { .iov_base = out, .iov_len = sizeof(out) };

	return !ring_writev(&r, p[1], &iov, 1, 1) &&
	       ring_one() == (int)sizeof(out) &&
	       !ring_read(&r, p[0], in, sizeof(in), 2) &&
	       ring_one() == (int)sizeof(in) && !memcmp(in, out, sizeof(out));
}

/*
 * A writev to a full pipe waits in the ring; ring_drain() cancels it
 * (ASYNC_CANCEL): -ECANCELED. Were the cancellation refused, the wait
 * would not end: the alarm of main() makes that a failure.
 */
static int drain_waiting_write(void)
{
	static char fill[4096];
	struct iovec iov = { .iov_base = fill, .iov_len = sizeof(fill) };
	int q[2];

	if (pipe2(q, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	while (write(q[1], fill, sizeof(fill)) > 0)
		;
	fcntl(q[1], F_SETFL, 0);
	last_res = INT_MIN;
	if (!ring_writev(&r, q[1], &iov, 1, 3)) {
		ring_submit(&r);
		ring_drain(&r, record, NULL);
	}
	close(q[0]);
	close(q[1]);
	return last_res;
}

/* The completions of a zero-copy send, in order: res and flags. */
static struct {
	uint64_t data;
	int res;
	unsigned int flags;
} zc[4];
static unsigned int n_zc;

static void record_zc(void *ctx, uint64_t data, int res, unsigned int flags)
{
	if (n_zc < 4)
		zc[n_zc++] = (typeof(zc[0])){ data, res, flags };
}

static bool ring_busy_now(void *ctx)
{
	return r.inflight || r.queued;
}

/* Two UDP sockets on the loopback, tx connected to rx; 0 or -errno. */
static int udp_pair(int *tx, int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	*rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	*tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (*rx < 0 || *tx < 0 || bind(*rx, (struct sockaddr *)&a, len) ||
	    getsockname(*rx, (struct sockaddr *)&a, &len) ||
	    connect(*tx, (struct sockaddr *)&a, len))
		return -errno;
	return 0;
}

/*
 * ring_sendmsg_zc() of 20000 bytes in two iovecs over the loopback: a
 * result with RING_MORE, then RING_NOTIF with the same user data (the
 * loopback's local delivery copies: 1), the request in flight until
 * then, and the datagram intact.
 */
static bool zc_round_trip(void)
{
	static char a[8000], b[12000], in[20001];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	int tx, rx;
	ssize_t got = -1;

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	if (!udp_pair(&tx, &rx) && !ring_sendmsg_zc(&r, tx, &msg, 9)) {
		ring_wait(&r, record_zc, NULL, ring_busy_now);
		got = recv(rx, in, sizeof(in), MSG_DONTWAIT);
	}
	close(tx);
	close(rx);
	return n_zc == 2 && zc[0].data == 9 &&
	       zc[0].res == (int)sizeof(in) - 1 && zc[0].flags == RING_MORE &&
	       zc[1].data == 9 && zc[1].flags == RING_NOTIF &&
	       zc[1].res == 1 && !r.inflight &&
	       got == (ssize_t)sizeof(in) - 1 && !memcmp(in, a, sizeof(a)) &&
	       !memcmp(in + sizeof(a), b, sizeof(b));
}

int main(void)
{
	int p[2], efd, err;

	/* A request that waits for ever is a failure (SIGALRM), not a hang. */
	alarm(20);
	err = ring_init(&r, 8);
	if (err == -ENOSYS || err == -EPERM)
		skip_all("no io_uring here");
	plan(9);
	ok(err == 0, "ring_init() sets up a restricted ring");
	if (err)
		return done_testing();
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return 1;
	ok(pipe_round_trip(p), "its WRITEV and READ carry a frame");
	is_int(nop(), -EACCES, "a NOP (not one of its opcodes) is refused");
	is_int(open_dev_null(), -EACCES, "an OPENAT is refused");
	is_int(make_socket(), -EACCES, "a SOCKET is refused");
	is_int(read_with_flag(p), -EACCES,
	       "a READ with IOSQE_IO_DRAIN is refused (no SQE flags)");
	efd = eventfd(0, EFD_CLOEXEC);
	is_int(io_uring_register_eventfd(&r.uring, efd), -EACCES,
	       "io_uring_register() after set-up is refused");
	is_int(drain_waiting_write(), -ECANCELED,
	       "ring_drain() cancels a write that waits (ASYNC_CANCEL)");
	ok(zc_round_trip(), "its SENDMSG_ZC completes twice, in flight "
	   "until the notification (RING_MORE, RING_NOTIF), data intact");
	ring_exit(&r);
	close(efd);
	close(p[0]);
	close(p[1]);
	return done_testing();
}
