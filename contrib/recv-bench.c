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
#include <sys/socket.h>
#include <unistd.h>
#include "base/compat.h"
#include "bench-util.h"

#define BUF_LEN (65536 + 4096)
#define N_BUFS 64
#define BATCH 32
#define SEG 1400
#define SEGS 45

struct meter {
	double t0, c0;
	unsigned long long bytes, calls;
};

/* Count n bytes; the clock starts with the first datagram. */
static void meter_add(struct meter *m, size_t n)
{
	if (!m->t0) {
		m->t0 = bench_now();
		m->c0 = bench_cpu_seconds();
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
	double t0 = bench_now();

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
		fprintf(stderr, "recv-bench: bad address or no UDP GSO\n");
		exit(1);
	}
	while (bench_now() - t0 < secs)
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
	} while (!m->t0 || bench_now() - m->t0 < secs);
}

/* A datagram of the multishot receive (bench_recv_reap()). */
static void uring_got(void *ctx, void *payload, size_t n)
{
	(void)payload;
	meter_add(ctx, n);
}

static void run_uring(int fd, double secs, struct meter *m)
{
	struct msghdr mh = { .msg_controllen = CMSG_SPACE(sizeof(int)) };
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	bool armed = false;
	char *bufs;

	if (io_uring_queue_init(256, &ring, 0)) {
		fprintf(stderr, "recv-bench: no io_uring\n");
		exit(1);
	}
	bufs = bench_bufs(&ring, &br, N_BUFS, BUF_LEN, "recv-bench");
	do {
		if (!armed) {
			bench_recv_arm(&ring, fd, &mh);
			armed = true;
		}
		io_uring_submit_and_wait(&ring, 1);
		m->calls++;
		bench_recv_reap(&ring, br, bufs, N_BUFS, BUF_LEN, &mh, &armed,
				uring_got, m);
	} while (!m->t0 || bench_now() - m->t0 < secs);
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
	dt = bench_now() - m.t0;
	printf("%s: %.2f Gbit/s, %.3f CPU seconds per GB, %llu waits\n",
	       argv[1], m.bytes * 8 / dt / 1e9,
	       (bench_cpu_seconds() - m.c0) / (m.bytes / 1e9), m.calls);
	return 0;
}
