// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copy-only: the least a process between a tap and a UDP socket must do
 * to carry bulk UDP over VXLAN, and nothing more, for contrib/bench.sh to
 * set beside gsotun: what no such process can go beyond on the machine.
 *
 *   copy-only DEV LOCAL REMOTE     IPv4 underlay, VNI 1, UDP port 4789
 *
 * Each super-frame costs it one tap read, one UDP GSO send, one UDP GRO
 * receive and one tap write, the four copies the kernel's interfaces
 * impose. It does less than a tunnel may: it fills in no inner UDP
 * checksum of a cut super-frame (zero, "none", which IPv4 allows) and
 * verifies none; it checks no source, counts nothing, takes no TSO, and
 * merges a received GRO datagram back into one frame only when every
 * datagram in it carries the same inner IPv4 and UDP addresses and ports.
 * Not a tunnel to use: a measure.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "base/bytes.h"
#include "base/compat.h"
#include "base/csum.h"

#define VXLAN_PORT 4789
#define VH ((int)sizeof(struct virtio_net_hdr))
#define VX 8			/* VXLAN header */
#define ETH 14
#define IP4 20
#define UDP 8
#define HL (ETH + IP4 + UDP)	/* inner headers of an IPv4 UDP frame */
#define SEGS_MAX 64		/* UDP GSO's limit (UDP_MAX_SEGMENTS) */
#define BATCH 64		/* reads or receives before polling again */
#define BUF_LEN 65536

static uint8_t tap_buf[VH + BUF_LEN];
static uint8_t sock_buf[BUF_LEN];
static uint8_t seg_hdr[SEGS_MAX][VX + HL];
static struct iovec iov[2 + 2 * SEGS_MAX];
static const uint8_t vxlan_hdr[VX] = { 0x08, 0, 0, 0, 0, 0, 1, 0 };

/* An Ethernet frame of IPv4 without options carrying UDP. */
static int is_ip4_udp(const uint8_t *f, size_t len)
{
	return len >= HL && get_be16(f + 12) == 0x0800 && f[ETH] == 0x45 &&
	       f[ETH + 9] == IPPROTO_UDP;
}

/* Inner IPv4 total length, ID and header checksum. */
static void ip4_set(uint8_t *ip, size_t len, uint16_t id)
{
	put_be16(ip + 2, len);
	put_be16(ip + 4, id);
	put_sum16(ip + 10, 0);
	put_sum16(ip + 10, csum_ip4_header(ip, IP4));
}

static int tap_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK), sz = VH;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) ||
	    ioctl(fd, TUNSETVNETHDRSZ, &sz) ||
	    ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_USO4 | TUN_F_USO6)) {
		perror("copy-only: tap (USO needs Linux 6.2)");
		exit(1);
	}
	return fd;
}

static int sock_open(const char *local, const char *remote)
{
	struct sockaddr_in l = { .sin_family = AF_INET,
				 .sin_port = htons(VXLAN_PORT) };
	struct sockaddr_in r = l;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	int one = 1, big = 32 << 20;

	if (fd < 0 || inet_pton(AF_INET, local, &l.sin_addr) != 1 ||
	    inet_pton(AF_INET, remote, &r.sin_addr) != 1 ||
	    setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) ||
	    bind(fd, (struct sockaddr *)&l, sizeof(l)) ||
	    connect(fd, (struct sockaddr *)&r, sizeof(r))) {
		perror("copy-only: socket");
		exit(1);
	}
	return fd;
}

/* A frame as it is, in one datagram. */
static void send_frame(int sock, uint8_t *f, size_t len)
{
	struct iovec v[2] = { { (void *)vxlan_hdr, VX }, { f, len } };
	struct msghdr m = { .msg_iov = v, .msg_iovlen = 2 };

	sendmsg(sock, &m, 0);
}

/* A USO super-frame cut at gso_size, its datagrams in one GSO send. */
static void send_cut(int sock, uint8_t *f, size_t len, size_t gso_size)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctl = { { 0 } };
	struct msghdr m = { .msg_iov = iov, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	uint16_t size = VX + HL + gso_size, id = get_be16(f + ETH + 4);
	size_t off, n;
	int i = 0;

	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(size));
	memcpy(CMSG_DATA(cm), &size, sizeof(size));
	for (off = HL; off < len && i < SEGS_MAX; off += n, i++) {
		uint8_t *h = seg_hdr[i];

		n = len - off < gso_size ? len - off : gso_size;
		memcpy(h, vxlan_hdr, VX);
		memcpy(h + VX, f, HL);
		ip4_set(h + VX + ETH, IP4 + UDP + n, id + i);
		put_be16(h + VX + ETH + IP4 + 4, UDP + n);
		put_be16(h + VX + ETH + IP4 + 6, 0);
		iov[2 * i] = (struct iovec){ h, VX + HL };
		iov[2 * i + 1] = (struct iovec){ f + off, n };
	}
	m.msg_iovlen = 2 * i;
	sendmsg(sock, &m, 0);
}

static void tap_to_sock(int tap, int sock)
{
	struct virtio_net_hdr *vh = (struct virtio_net_hdr *)tap_buf;
	uint8_t *f = tap_buf + VH;
	int k;

	for (k = 0; k < BATCH; k++) {
		ssize_t got = read(tap, tap_buf, sizeof(tap_buf));
		size_t len, start, at;
		uint32_t sum;

		if (got <= VH + ETH)
			return;
		len = got - VH;
		if (vh->gso_type == VIRTIO_NET_HDR_GSO_UDP_L4 && vh->gso_size &&
		    is_ip4_udp(f, len)) {
			send_cut(sock, f, len, vh->gso_size);
			continue;
		}
		if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE)
			continue;
		start = vh->csum_start;
		at = start + vh->csum_offset;
		if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
			if (at + 2 > len)
				continue;
			sum = csum_partial(f + start, len - start, 0);
			put_sum16(f + at, csum_fold(sum));
		}
		send_frame(sock, f, len);
	}
}

/* Every datagram of the receive has the first one's inner flow. */
static int one_flow(const uint8_t *d, size_t len, size_t seg)
{
	const uint8_t *first = d + VX;
	size_t off;

	if (!is_ip4_udp(first, seg - VX))
		return 0;
	for (off = seg; off < len; off += seg) {
		const uint8_t *f = d + off + VX;

		if (len - off < VX + HL + 1 || !is_ip4_udp(f, len - off - VX) ||
		    memcmp(f + ETH + 12, first + ETH + 12, 12))
			return 0;
	}
	return 1;
}

/* A GRO receive of one inner flow: one GSO_UDP_L4 frame for the tap. */
static void write_merged(int tap, uint8_t *d, size_t len, size_t seg)
{
	struct virtio_net_hdr vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4,
		.hdr_len = HL,
		.gso_size = seg - VX - HL,
		.csum_start = ETH + IP4,
		.csum_offset = 6,
	};
	uint8_t *f = d + VX;
	size_t off, pay = 0, n;
	struct in_addr src, dst;
	int i = 2;

	for (off = 0; off < len; off += seg, i++) {
		n = len - off < seg ? len - off : seg;
		iov[i] = (struct iovec){ d + off + VX + HL, n - VX - HL };
		pay += n - VX - HL;
	}
	ip4_set(f + ETH, IP4 + UDP + pay, get_be16(f + ETH + 4));
	put_be16(f + ETH + IP4 + 4, UDP + pay);
	memcpy(&src, f + ETH + 12, 4);
	memcpy(&dst, f + ETH + 16, 4);
	/* NEEDS_CSUM: the pseudo-header sum, as udp4_hwcsum() leaves it. */
	put_sum16(f + ETH + IP4 + 6,
		  csum_fold16(csum_pseudo4(&src, &dst, IPPROTO_UDP, UDP + pay)));
	iov[0] = (struct iovec){ &vh, VH };
	iov[1] = (struct iovec){ f, HL };
	writev(tap, iov, i);
}

/* Datagram by datagram, each frame as it came. */
static void write_each(int tap, uint8_t *d, size_t len, size_t seg)
{
	struct virtio_net_hdr vh = { 0 };
	size_t off, n;

	iov[0] = (struct iovec){ &vh, VH };
	for (off = 0; off < len; off += seg) {
		n = len - off < seg ? len - off : seg;
		if (n <= VX + ETH)
			continue;
		iov[1] = (struct iovec){ d + off + VX, n - VX };
		writev(tap, iov, 2);
	}
}

static void sock_to_tap(int sock, int tap)
{
	int k;

	for (k = 0; k < BATCH; k++) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct iovec v = { sock_buf, sizeof(sock_buf) };
		struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1,
				    .msg_control = ctl.buf,
				    .msg_controllen = sizeof(ctl.buf) };
		ssize_t got = recvmsg(sock, &m, 0);
		struct cmsghdr *cm;
		size_t seg;
		int gro = 0;

		if (got <= VX + ETH)
			return;
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_UDP &&
			    cm->cmsg_type == UDP_GRO)
				memcpy(&gro, CMSG_DATA(cm), sizeof(gro));
		seg = gro > VX + HL && gro < got ? (size_t)gro : (size_t)got;
		if (seg < (size_t)got && one_flow(sock_buf, got, seg))
			write_merged(tap, sock_buf, got, seg);
		else
			write_each(tap, sock_buf, got, seg);
	}
}

int main(int argc, char **argv)
{
	struct pollfd p[2];

	if (argc != 4) {
		fprintf(stderr, "usage: copy-only DEV LOCAL REMOTE\n");
		return 64;
	}
	p[0] = (struct pollfd){ .fd = tap_open(argv[1]), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = sock_open(argv[2], argv[3]),
				.events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("copy-only: poll");
			return 1;
		}
		if (p[0].revents & POLLIN)
			tap_to_sock(p[0].fd, p[1].fd);
		if (p[1].revents & POLLIN)
			sock_to_tap(p[1].fd, p[0].fd);
	}
}
