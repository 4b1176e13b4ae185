// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recv-bench: UDP GRO receive with recvmmsg() against io_uring multishot
 * recvmsg with a provided buffer ring, the choice behind src/sys/underlay.c.
 *
 * Usage, two namespaces joined by veth (see contrib/recv-bench.sh):
 *   recv-bench mmsg|uring PORT SECONDS    receive, print Gbit/s and CPU
 *   recv-bench send ADDR PORT SECONDS     send 63000-byte UDP GSO writes
 */
#include "config.h"

#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "base/compat.h"

#define BUF_LEN (65536 + 4096)
#define N_BUFS 64
#define BATCH 32
#define SEG 1400
#define SEGS 45

struct meter {
	double t0, c0;
	unsigned long long bytes, calls;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 +
	       r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

/* Count n bytes; the clock starts with the first datagram. */
static void meter_add(struct meter *m, size_t n)
{
	if (!m->t0) {
		m->t0 = now();
		m->c0 = cpu_seconds();
	}
	m->bytes += n;
}

static int udp_socket(int port, int gro)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int big = 8 << 20;

	if (fd < 0 || (gro && setsockopt(fd, SOL_UDP, UDP_GRO, &gro,
					 sizeof(gro)))) {
		perror("recv-bench: socket");
		exit(1);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (gro && bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("recv-bench: bind");
		exit(1);
	}
	return fd;
}

static void run_send(const char *addr, int port, double secs)
{
	static char buf[SEG * SEGS];
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = udp_socket(0, 0), seg = SEG;
	double t0 = now();

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
		fprintf(stderr, "recv-bench: bad address or no UDP GSO\n");
		exit(1);
	}
	while (now() - t0 < secs)
		sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&a,
		       sizeof(a));
}

static void run_mmsg(int fd, double secs, struct meter *m)
{
	static char bufs[BATCH][BUF_LEN], ctl[BATCH][64];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	int i, n;

	do {
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = BUF_LEN;
			memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = ctl[i];
			mm[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		n = recvmmsg(fd, mm, BATCH, MSG_WAITFORONE, NULL);
		m->calls++;
		for (i = 0; i < n; i++)
			meter_add(m, mm[i].msg_len);
	} while (!m->t0 || now() - m->t0 < secs);
}

/* The buffer ring of group 1: N_BUFS buffers of BUF_LEN. */
static char *uring_bufs(struct io_uring *ring, struct io_uring_buf_ring **br)
{
	struct io_uring_buf_reg reg = { .ring_entries = N_BUFS, .bgid = 1 };
	char *bufs = malloc((size_t)N_BUFS * BUF_LEN);
	int i;

	*br = mmap(NULL, N_BUFS * sizeof(struct io_uring_buf),
		   PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (!bufs || *br == MAP_FAILED) {
		fprintf(stderr, "recv-bench: out of memory\n");
		exit(1);
	}
	reg.ring_addr = (unsigned long)*br;
	io_uring_buf_ring_init(*br);
	if (io_uring_register_buf_ring(ring, &reg, 0)) {
		fprintf(stderr, "recv-bench: no provided buffer rings\n");
		exit(1);
	}
	for (i = 0; i < N_BUFS; i++)
		io_uring_buf_ring_add(*br, bufs + (size_t)i * BUF_LEN, BUF_LEN,
				      i, N_BUFS - 1, i);
	io_uring_buf_ring_advance(*br, N_BUFS);
	return bufs;
}

static void run_uring(int fd, double secs, struct meter *m)
{
	struct msghdr mh = { .msg_controllen = CMSG_SPACE(sizeof(int)) };
	struct io_uring_buf_ring *br;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned int head, n;
	bool armed = false;
	char *bufs, *b;

	if (io_uring_queue_init(256, &ring, 0)) {
		fprintf(stderr, "recv-bench: no io_uring\n");
		exit(1);
	}
	bufs = uring_bufs(&ring, &br);
	do {
		if (!armed) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_recvmsg_multishot(sqe, fd, &mh, 0);
			sqe->flags |= IOSQE_BUFFER_SELECT;
			sqe->buf_group = 1;
			armed = true;
		}
		io_uring_submit_and_wait(&ring, 1);
		m->calls++;
		n = 0;
		io_uring_for_each_cqe(&ring, head, cqe) {
			struct io_uring_recvmsg_out *o;
			int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

			n++;
			if (!(cqe->flags & IORING_CQE_F_MORE))
				armed = false;
			if (cqe->res <= 0)
				continue;
			b = bufs + (size_t)bid * BUF_LEN;
			o = io_uring_recvmsg_validate(b, cqe->res, &mh);
			if (o)
				meter_add(m, io_uring_recvmsg_payload_length(
						     o, cqe->res, &mh));
			io_uring_buf_ring_add(br, b, BUF_LEN, bid, N_BUFS - 1,
					      0);
			io_uring_buf_ring_advance(br, 1);
		}
		io_uring_cq_advance(&ring, n);
	} while (!m->t0 || now() - m->t0 < secs);
}

int main(int argc, char **argv)
{
	struct meter m = { 0 };
	double secs, dt;

	if (argc == 5 && !strcmp(argv[1], "send")) {
		run_send(argv[2], atoi(argv[3]), atof(argv[4]));
		return 0;
	}
	if (argc != 4 ||
	    (strcmp(argv[1], "mmsg") && strcmp(argv[1], "uring"))) {
		fprintf(stderr, "usage: recv-bench mmsg|uring PORT SECONDS\n"
				"       recv-bench send ADDR PORT SECONDS\n");
		return 64;
	}
	secs = atof(argv[3]);
	if (!strcmp(argv[1], "mmsg"))
		run_mmsg(udp_socket(atoi(argv[2]), 1), secs, &m);
	else
		run_uring(udp_socket(atoi(argv[2]), 1), secs, &m);
	dt = now() - m.t0;
	printf("%s: %.2f Gbit/s, %.3f CPU seconds per GB, %llu waits\n",
	       argv[1], m.bytes * 8 / dt / 1e9,
	       (cpu_seconds() - m.c0) / (m.bytes / 1e9), m.calls);
	return 0;
}
