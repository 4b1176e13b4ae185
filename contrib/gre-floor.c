// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gre-floor: what the kernel itself can move as raw GRE, with no tunnel
 * around it: a sender of GRE packets of a fixed size and a receiver that
 * only counts them. It bounds what --encap gre can carry (issue 38): the
 * kernel has no GSO for a raw socket, nor GRO for one without its GRE
 * module, so every packet takes the whole IP path each way.
 *
 * Usage, two namespaces joined by veth (see contrib/gre-floor.sh):
 *   gre-floor recv mmsg|uring SECONDS
 *	read a raw IPPROTO_GRE socket, 128 packets a recvmmsg() or
 *	io_uring multishot recvmsg with provided buffers; print packets/s,
 *	Gbit/s of GRE payload, packets per system call and CPU
 *   gre-floor send ip ADDR SECONDS
 *	sendmmsg() of 64 packets a call to a raw IPPROTO_GRE socket
 *   gre-floor send packet IFNAME DSTMAC SRC DST SECONDS
 *	the same packets as Ethernet frames to an AF_PACKET socket with
 *	PACKET_QDISC_BYPASS: past the IP output path and the qdisc
 */
#include "config.h"

#include <arpa/inet.h>
#include <liburing.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "base/compat.h"
#include "base/csum.h"
#include "bench-util.h"

#define GRE_HLEN 4
/*
 * What follows the IPv4 header: a GRE header and a 1476-byte frame, a
 * 1500-byte packet, as gsotun sends a full frame on a 1500-byte path
 * (its tunnel MTU 1462).
 */
#define PAYLOAD (GRE_HLEN + 1476)
#define SEND_BATCH 64
#define RECV_BATCH 128
#define BUF_LEN 2048
#define N_BUFS 512
#define GRE_PROTO_TEB 0x6558 /* Transparent Ethernet Bridging */

struct meter {
	double t0, c0, t1, c1;
	unsigned long long pkts, bytes, calls;
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Count one packet of n bytes; the clock starts with the first. */
static void meter_add(struct meter *m, size_t n)
{
	if (!m->t0) {
		m->t0 = bench_now();
		m->c0 = bench_cpu_seconds();
	}
	m->pkts++;
	m->bytes += n;
}

/* After each call: one clock read a batch, not one a packet. */
static bool meter_done(struct meter *m, double secs)
{
	m->t1 = bench_now();
	return m->t0 && m->t1 - m->t0 >= secs;
}

static void meter_print(const char *what, struct meter *m)
{
	double dt = m->t1 - m->t0;

	m->c1 = bench_cpu_seconds();
	if (dt <= 0) {
		printf("%s: nothing measured\n", what);
		return;
	}
	printf("%s: %.0f kpps, %.2f Gbit/s of GRE payload, %.1f packets a "
	       "call, CPU %.0f%%\n",
	       what, m->pkts / dt / 1e3, m->bytes * 8 / dt / 1e9,
	       m->calls ? (double)m->pkts / m->calls : 0,
	       (m->c1 - m->c0) / dt * 100);
}

static int gre_socket(void)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_GRE);
	int big = 8 << 20;

	if (fd < 0)
		die("gre-floor: raw GRE socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	return fd;
}

/* A GRE header of Transparent Ethernet Bridging and a zeroed payload. */
static void gre_fill(uint8_t *p)
{
	uint16_t proto = htons(GRE_PROTO_TEB);

	memset(p, 0, PAYLOAD);
	memcpy(p + 2, &proto, sizeof(proto));
}

/* n messages of one buffer of len bytes each, to a (or from anyone). */
static void mmsg_init(struct mmsghdr *mm, struct iovec *iov,
		      uint8_t (*bufs)[BUF_LEN], int n, size_t len, void *a,
		      socklen_t alen)
{
	int i;

	memset(mm, 0, n * sizeof(*mm));
	for (i = 0; i < n; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = a;
		mm[i].msg_hdr.msg_namelen = alen;
	}
}

/* sendmmsg() of the buffers, len bytes each, to a for secs seconds. */
static void send_loop(int fd, uint8_t (*bufs)[BUF_LEN], size_t len, void *a,
		      socklen_t alen, double secs)
{
	struct mmsghdr mm[SEND_BATCH];
	struct iovec iov[SEND_BATCH];
	struct meter m = { 0 };
	int i, n;

	mmsg_init(mm, iov, bufs, SEND_BATCH, len, a, alen);
	while (!meter_done(&m, secs)) {
		n = sendmmsg(fd, mm, SEND_BATCH, 0);
		if (n < 0)
			die("gre-floor: sendmmsg");
		m.calls++;
		for (i = 0; i < n; i++)
			meter_add(&m, PAYLOAD);
	}
	meter_print("sent", &m);
}

static void run_send_ip(const char *addr, double secs)
{
	static uint8_t bufs[SEND_BATCH][BUF_LEN];
	struct sockaddr_in a = { .sin_family = AF_INET };
	int i;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "gre-floor: bad address %s\n", addr);
		exit(1);
	}
	for (i = 0; i < SEND_BATCH; i++)
		gre_fill(bufs[i]);
	send_loop(gre_socket(), bufs, PAYLOAD, &a, sizeof(a), secs);
}

/* An Ethernet frame to mac, IPv4 src to dst with DF, GRE and payload. */
static size_t frame_fill(uint8_t *b, const uint8_t *mac, in_addr_t src,
			 in_addr_t dst)
{
	struct iphdr ip = {
		.version = 4,
		.ihl = 5,
		.ttl = 64,
		.protocol = IPPROTO_GRE,
		.tot_len = htons(sizeof(ip) + PAYLOAD),
		.frag_off = htons(IP_DF),
		.saddr = src,
		.daddr = dst,
	};
	uint16_t type = htons(ETH_P_IP);

	memset(b, 0, ETH_HLEN);
	memcpy(b, mac, ETH_ALEN);
	memcpy(b + 2 * ETH_ALEN, &type, sizeof(type));
	ip.check = csum_ip4_header(&ip, sizeof(ip));
	memcpy(b + ETH_HLEN, &ip, sizeof(ip));
	gre_fill(b + ETH_HLEN + sizeof(ip));
	return ETH_HLEN + sizeof(ip) + PAYLOAD;
}

static void run_send_packet(char **argv, double secs)
{
	static uint8_t bufs[SEND_BATCH][BUF_LEN];
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_IP),
				  .sll_halen = ETH_ALEN };
	struct in_addr src, dst;
	int fd, one = 1, i;
	size_t len = 0;
	uint8_t *mac = ll.sll_addr;

	ll.sll_ifindex = (int)if_nametoindex(argv[0]);
	if (!ll.sll_ifindex ||
	    sscanf(argv[1], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		   &mac[2], &mac[3], &mac[4], &mac[5]) != 6 ||
	    inet_pton(AF_INET, argv[2], &src) != 1 ||
	    inet_pton(AF_INET, argv[3], &dst) != 1) {
		fprintf(stderr, "gre-floor: bad interface, MAC or address\n");
		exit(1);
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("gre-floor: packet socket");
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	for (i = 0; i < SEND_BATCH; i++)
		len = frame_fill(bufs[i], mac, src.s_addr, dst.s_addr);
	send_loop(fd, bufs, len, &ll, sizeof(ll), secs);
}

/* A received packet: its IPv4 header comes with it on a raw socket. */
static void count_packet(struct meter *m, const uint8_t *p, size_t n)
{
	size_t ihl = n ? (size_t)(p[0] & 0xf) * 4 : 0;

	if (n >= ihl + GRE_HLEN)
		meter_add(m, n - ihl);
}

static void run_recv_mmsg(int fd, double secs, struct meter *m)
{
	static uint8_t bufs[RECV_BATCH][BUF_LEN];
	struct mmsghdr mm[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	int i, n;

	mmsg_init(mm, iov, bufs, RECV_BATCH, BUF_LEN, NULL, 0);
	do {
		n = recvmmsg(fd, mm, RECV_BATCH, MSG_WAITFORONE, NULL);
		if (n < 0)
			die("gre-floor: recvmmsg");
		m->calls++;
		for (i = 0; i < n; i++)
			count_packet(m, bufs[i], mm[i].msg_len);
	} while (!meter_done(m, secs));
}

/* A packet of the multishot receive (bench_recv_reap()). */
static void uring_got(void *ctx, void *payload, size_t n)
{
	count_packet(ctx, payload, n);
}

static void run_recv_uring(int fd, double secs, struct meter *m)
{
	struct msghdr mh = { 0 };
	struct io_uring_buf_ring *br;
	struct io_uring ring;
	bool armed = false;
	char *bufs;

	/*
	 * Completions posted only when asked for, in io_uring_enter(): of
	 * the setups tried, the one that read the most (twice what a ring
	 * without it read: every packet's task work woke the sleeper).
	 */
	if (io_uring_queue_init(1024, &ring,
				IORING_SETUP_SINGLE_ISSUER |
					IORING_SETUP_DEFER_TASKRUN) &&
	    io_uring_queue_init(1024, &ring, 0))
		die("gre-floor: io_uring");
	bufs = bench_bufs(&ring, &br, N_BUFS, BUF_LEN, "gre-floor");
	do {
		/* It ends when the buffers run out: armed again. */
		if (!armed) {
			bench_recv_arm(&ring, fd, &mh);
			armed = true;
		}
		io_uring_submit_and_wait(&ring, 1);
		m->calls++;
		bench_recv_reap(&ring, br, bufs, N_BUFS, BUF_LEN, &mh, &armed,
				uring_got, m);
	} while (!meter_done(m, secs));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gre-floor recv mmsg|uring SECONDS\n"
		"       gre-floor send ip ADDR SECONDS\n"
		"       gre-floor send packet IFNAME DSTMAC SRC DST SECONDS\n");
	exit(64);
}

int main(int argc, char **argv)
{
	struct meter m = { 0 };

	if (argc == 4 && !strcmp(argv[1], "recv")) {
		int fd = gre_socket();

		if (!strcmp(argv[2], "mmsg"))
			run_recv_mmsg(fd, atof(argv[3]), &m);
		else if (!strcmp(argv[2], "uring"))
			run_recv_uring(fd, atof(argv[3]), &m);
		else
			usage();
		meter_print(argv[2], &m);
	} else if (argc == 5 && !strcmp(argv[1], "send") &&
		   !strcmp(argv[2], "ip")) {
		run_send_ip(argv[3], atof(argv[4]));
	} else if (argc == 8 && !strcmp(argv[1], "send") &&
		   !strcmp(argv[2], "packet")) {
		run_send_packet(argv + 3, atof(argv[7]));
	} else {
		usage();
	}
	return 0;
}
