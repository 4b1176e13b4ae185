// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * steer.c: the flow hash against its definition written out again, the
 * same both ways; then the kernel running the two programs, in a network
 * namespace of the test's own: a reuseport group of UDP sockets on
 * loopback gets each datagram on the socket of its source's queue (and
 * those without a checksum on their own), and (as root) a multi-queue
 * tap hands each frame it sends to the queue of its hash.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "table/steer.h"
#include "tap.h"

#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF 51
#endif

static uint32_t rnd_state = 2463534242u;

/* xorshift32: the same frames every run. */
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
}

/* What a flow is made of, to build a frame from. */
struct flow {
	int v6;
	uint8_t proto;		/* 6, 17, or another */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	int frag;		/* IPv4: a later fragment */
	int ihl;		/* IPv4 header words, 5 or more */
	uint16_t type;		/* not IP: this ethertype */
};

static void flow_random(struct flow *f)
{
	unsigned int i, k = rnd() % 10;

	memset(f, 0, sizeof(*f));
	f->v6 = k >= 5;
	f->proto = k % 5 == 4 ? 1 : k % 2 ? IPPROTO_UDP : IPPROTO_TCP;
	for (i = 0; i < 16; i++) {
		f->src[i] = (uint8_t)rnd();
		f->dst[i] = (uint8_t)rnd();
	}
	f->sport = (uint16_t)rnd();
	f->dport = (uint16_t)rnd();
	f->ihl = 5 + (rnd() % 4 == 0 ? (int)(rnd() % 3) : 0);
	f->frag = !f->v6 && rnd() % 8 == 0;
	if (rnd() % 16 == 0)
		f->type = 0x0806;
}

/* The frame of f into buf: Ethernet, IP, ports; its length. */
static size_t flow_frame(const struct flow *f, uint8_t *buf)
{
	size_t l3 = 14, l4;

	memset(buf, 0, 128);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (f->type) {
		put16(buf + 12, f->type);
		return 60;
	}
	if (!f->v6) {
		put16(buf + 12, 0x0800);
		buf[l3] = 0x40 | f->ihl;
		put16(buf + l3 + 2, 20 + 4 * f->ihl);
		if (f->frag)
			put16(buf + l3 + 6, 0x2000 | 185);
		buf[l3 + 8] = 64;
		buf[l3 + 9] = f->proto;
		memcpy(buf + l3 + 12, f->src, 4);
		memcpy(buf + l3 + 16, f->dst, 4);
		l4 = l3 + 4 * f->ihl;
	} else {
		put16(buf + 12, 0x86dd);
		buf[l3] = 0x60;
		put16(buf + l3 + 4, 20);
		buf[l3 + 6] = f->proto;
		buf[l3 + 7] = 64;
		memcpy(buf + l3 + 8, f->src, 16);
		memcpy(buf + l3 + 24, f->dst, 16);
		l4 = l3 + 40;
	}
	put16(buf + l4, f->sport);
	put16(buf + l4 + 2, f->dport);
	return l4 + 20;
}

/* The same flow the other way. */
static void flow_reverse(const struct flow *f, struct flow *r)
{
	*r = *f;
	memcpy(r->src, f->dst, 16);
	memcpy(r->dst, f->src, 16);
	r->sport = f->dport;
	r->dport = f->sport;
}

/* The definition of steer_hash(), written out from the flow. */
static uint16_t ref_hash(const struct flow *f)
{
	uint32_t h = 0;
	unsigned int i, n = f->v6 ? 16 : 4;

	if (f->type) {
		h = f->type;
	} else {
		for (i = 0; i < n; i += 4)
			h ^= get32(f->src + i) ^ get32(f->dst + i);
		if ((f->proto == 6 || f->proto == 17) && !f->frag)
			h ^= (uint32_t)(f->sport ^ f->dport);
		h ^= f->proto;
	}
	h ^= h >> 16;
	h *= 0x45d9f3bu;
	h ^= h >> 16;
	return (uint16_t)h;
}

static void test_hash(void)
{
	unsigned int i, bad_ref = 0, bad_rev = 0, bad_cut = 0, spread[4] = {};
	struct flow f, r;
	uint8_t a[128], b[128];
	size_t la, lb;

	for (i = 0; i < 4000; i++) {
		flow_random(&f);
		flow_reverse(&f, &r);
		la = flow_frame(&f, a);
		lb = flow_frame(&r, b);
		bad_ref += steer_hash(a, la) != ref_hash(&f);
		bad_rev += steer_hash(a, la) != steer_hash(b, lb);
		spread[steer_queue(a, la, 4)]++;
		/* Cut before the ports (or the addresses): 0. */
		if (!f.type && (f.proto == 6 || f.proto == 17) && !f.frag)
			bad_cut += steer_hash(a, la - 18) != 0;
	}
	is_int(bad_ref, 0, "steer_hash is its definition, 4000 frames");
	is_int(bad_rev, 0, "the two directions of a flow hash alike");
	is_int(bad_cut, 0, "a frame cut before its ports hashes to 0");
	ok(spread[0] > 800 && spread[1] > 800 && spread[2] > 800 &&
	   spread[3] > 800, "four queues each take a share (%u %u %u %u)",
	   spread[0], spread[1], spread[2], spread[3]);
	is_int(steer_hash(a, 13), 0, "no ethertype: 0");
}

/* A tun's packets hash as the same packets in a tap's frames. */
static void test_hash_ip(void)
{
	unsigned int i, bad = 0, n = 0;
	uint8_t a[128];
	struct flow f;
	size_t la;

	for (i = 0; i < 4000; i++) {
		flow_random(&f);
		if (f.type)
			continue;
		la = flow_frame(&f, a);
		bad += steer_hash_ip(a + 14, la - 14) != steer_hash(a, la);
		n++;
	}
	ok(n > 3000 && !bad, "steer_hash_ip of %u packets is steer_hash of "
	   "their frames (%u differ)", n, bad);
	a[14] = 0x20;
	is_int(steer_hash_ip(a + 14, 1), steer_hash_ip(a + 14, 60),
	       "another version: the nibble's mix, whatever the length");
}

/* Loopback up in a network namespace of our own (user one if need be). */
static int own_namespace(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(CLONE_NEWNET) && unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -1;
	close(fd);
	return 0;
}

static socklen_t loop_addr(int family, uint16_t port,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*s);
	}
	((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
	((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	return sizeof(struct sockaddr_in6);
}

/* n sockets of a reuseport group on port, the program on the first. */
static int group_open(int family, uint16_t port, int *fds, unsigned int n,
		      const struct sock_fprog *prog)
{
	struct sockaddr_storage ss;
	socklen_t sl = loop_addr(family, port, &ss);
	unsigned int i;
	int one = 1;

	for (i = 0; i < n; i++) {
		fds[i] = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		if (fds[i] < 0 ||
		    setsockopt(fds[i], SOL_SOCKET, SO_REUSEPORT, &one,
			       sizeof(one)) ||
		    bind(fds[i], (struct sockaddr *)&ss, sl))
			return -1;
		if (!i && setsockopt(fds[0], SOL_SOCKET,
				     SO_ATTACH_REUSEPORT_CBPF, prog,
				     sizeof(*prog)))
			return -1;
	}
	return 0;
}

/*
 * A sender from a random loopback address (IPv4: any of 127/8) and
 * port, without a UDP checksum when nocsum; its address in *from.
 */
static int group_sender(int family, bool nocsum,
			struct sockaddr_storage *from, socklen_t *fl)
{
	int fd = socket(family, SOCK_DGRAM, 0), one = 1;

	*fl = loop_addr(family, 1024 + rnd() % 60000, from);
	if (family == AF_INET)
		((struct sockaddr_in *)from)->sin_addr.s_addr =
			htonl(0x7f000000u | (rnd() & 0xffffff));
	if (fd >= 0 && nocsum &&
	    setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)))
		goto fail;
	if (fd >= 0 && !bind(fd, (struct sockaddr *)from, *fl))
		return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;	/* a port in use: another one */
}

/* The socket the group should have chosen for a datagram from ss. */
static unsigned int group_want(const struct sockaddr_storage *ss,
			       unsigned int n, bool zero)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (zero)
		return n;
	if (ss->ss_family == AF_INET)
		return steer_sock_queue(AF_INET, (const uint8_t *)&s4->sin_addr,
					ntohs(s4->sin_port), n);
	return steer_sock_queue(AF_INET6, s6->sin6_addr.s6_addr,
				ntohs(s6->sin6_port), n);
}

/*
 * 300 datagrams from random sources to a group of n sockets (and one
 * more for those without a checksum, with nocsum; a third of them have
 * none): how many landed on a socket other than their source's.
 */
static int group_run(int family, unsigned int n, bool nocsum,
		     unsigned int *wrong, unsigned int *got)
{
	static const uint16_t port = 4789;
	struct sock_filter insns[STEER_SOCK_INSNS];
	struct sock_fprog prog = { .filter = insns };
	unsigned int i, j, socks = n + nocsum;
	struct sockaddr_storage to, from;
	socklen_t tl = loop_addr(family, port, &to), fl;
	uint8_t pkt[64] = { 0x08 }, in[64];
	int fds[5], ret = -1;

	prog.len = (unsigned short)steer_sock_prog(insns, family, n, nocsum);
	for (i = 0; i < socks; i++)
		fds[i] = -1;
	*wrong = *got = 0;
	if (group_open(family, port, fds, socks, &prog))
		goto out;
	for (i = 0; i < 300; i++) {
		bool zero = nocsum && i % 3 == 0;
		int tx = group_sender(family, zero, &from, &fl);
		struct pollfd p[5];

		if (tx < 0)
			continue;
		if (sendto(tx, pkt, sizeof(pkt), 0, (struct sockaddr *)&to,
			   tl) != (ssize_t)sizeof(pkt)) {
			close(tx);
			continue;
		}
		close(tx);
		for (j = 0; j < socks; j++)
			p[j] = (struct pollfd){ .fd = fds[j],
						.events = POLLIN };
		if (poll(p, socks, 1000) <= 0)
			goto out;
		for (j = 0; j < socks; j++) {
			if (recv(fds[j], in, sizeof(in), 0) != sizeof(pkt))
				continue;
			(*got)++;
			*wrong += j != group_want(&from, n, zero);
		}
	}
	ret = 0;
out:
	for (i = 0; i < socks; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ret;
}

static void test_group(void)
{
	static const struct {
		int family;
		unsigned int n;
		bool nocsum;
		const char *what;
	} runs[] = {
		{ AF_INET, 1, true, "IPv4, 1 socket and one for no checksum" },
		{ AF_INET, 2, true, "IPv4, 2 sockets and one for no checksum" },
		{ AF_INET, 3, false, "IPv4, 3 sockets" },
		{ AF_INET, 4, true, "IPv4, 4 sockets and one for no checksum" },
		{ AF_INET6, 2, false, "IPv6, 2 sockets" },
		{ AF_INET6, 3, false, "IPv6, 3 sockets" },
	};
	unsigned int i, wrong, got;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		int r = group_run(runs[i].family, runs[i].n, runs[i].nocsum,
				  &wrong, &got);

		ok(!r && got > 250 && !wrong,
		   "reuseport: %s: each datagram on the socket of its source "
		   "(%u of %u elsewhere)", runs[i].what, wrong, got);
	}
}

/* A load that failed for want of the right (CAP_BPF), not the program. */
static bool bpf_refused(void)
{
	return errno == EPERM || errno == EACCES;
}

static int bpf_load(const struct bpf_insn *insns, unsigned int n)
{
	static char log[16384];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0 && !bpf_refused())
		printf("# BPF_PROG_LOAD: %s\n# %.400s\n", strerror(errno), log);
	return fd;
}

/*
 * The program's result for frame f, run by the kernel
 * (BPF_PROG_TEST_RUN), or -1. A socket filter's test run starts past
 * an Ethernet header that it takes off first (eth_type_trans()): a
 * header of its own goes in front, so the program sees f at 0; its
 * type is no IP's, which the test run would want a header of.
 */
static int64_t bpf_run(int prog, const uint8_t *f, size_t len)
{
	uint8_t in[14 + 256];
	union bpf_attr a;

	/* An ethertype the test run does not look into (not IP). */
	memset(in, 0, 14);
	in[12] = 0x88;
	in[13] = 0xb5;
	memcpy(in + 14, f, len);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog;
	a.test.data_in = (uintptr_t)in;
	a.test.data_size_in = (uint32_t)(14 + len);
	a.test.repeat = 1;
	if (syscall(SYS_bpf, BPF_PROG_TEST_RUN, &a, sizeof(a)))
		return -1;
	return a.test.retval;
}

/*
 * The eBPF program run by the kernel on 4000 random frames (IPv4 and
 * IPv6, TCP, UDP and other protocols, fragments, other ethertypes, cut
 * short): the same as steer_hash() each time.
 */
/* What the program of a tap (tun) should return for the n bytes at f. */
static uint16_t want_hash(const uint8_t *f, size_t n, bool tun)
{
	return tun ? steer_hash_ip(f + 14, n - 14) : steer_hash(f, n);
}

static void test_tap_prog(bool tun)
{
	struct bpf_insn insns[STEER_TAP_INSNS];
	unsigned int len = steer_tap_prog(insns, tun), i, bad = 0, ran = 0;
	const char *kind = tun ? "tun" : "tap";
	int prog = bpf_load(insns, len);
	uint8_t f[128];

	if (prog < 0 && bpf_refused()) {
		printf("ok %d - # SKIP the %s's program: cannot load eBPF "
		       "(needs CAP_BPF)\n", ++tap_n, kind);
		return;
	}
	for (i = 0; prog >= 0 && i < 4000; i++) {
		struct flow fl;
		size_t n, at = tun ? 14 : 0;
		int64_t r;

		flow_random(&fl);
		n = flow_frame(&fl, f);
		if (i % 10 == 0)
			n = 14 + rnd() % (n - 14);
		/* A tun's program sees the packet, past the Ethernet header. */
		r = bpf_run(prog, f + at, n - at);
		ran += r >= 0;
		if (r != want_hash(f, n, tun) && bad++ < 5)
			printf("# frame of %zu bytes, type %02x%02x: %lld, "
			       "want %u (%s)\n", n, f[12], f[13],
			       (long long)r, want_hash(f, n, tun),
			       r < 0 ? strerror(errno) : "ran");
	}
	ok(prog >= 0 && ran == 4000 && !bad,
	   "the %s's program, run by the kernel, is steer_hash%s on 4000 "
	   "frames (%u of %u differ)", kind, tun ? "_ip" : "", bad, ran);
	if (prog >= 0)
		close(prog);
}

/* Queue i of tap (tun) name, as gsotun will open them. */
static int tap_queue(const char *name, bool tun)
{
	struct ifreq ifr = { .ifr_flags = (tun ? IFF_TUN : IFF_TAP) |
					  IFF_NO_PI | IFF_MULTI_QUEUE };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (fd >= 0 && ioctl(fd, TUNSETIFF, &ifr) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The tap up with 10.99.0.1/24, sending UDP to its broadcast address. */
static int tap_address(const char *name)
{
	struct ifreq ifr;
	struct sockaddr_in *a = (struct sockaddr_in *)&ifr.ifr_addr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), r;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(0x0a630001);
	r = ioctl(fd, SIOCSIFADDR, &ifr);
	a->sin_addr.s_addr = htonl(0xffffff00);
	r = r ? r : ioctl(fd, SIOCSIFNETMASK, &ifr);
	r = r ? r : ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	r = r ? r : ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return r;
}

/* Datagrams from many source ports to the tap's broadcast address. */
static void tap_send(const char *name)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(0x0a6300ff) };
	unsigned int i;
	int one = 1;

	for (i = 0; i < 200; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		to.sin_port = htons((uint16_t)(1024 + rnd() % 60000));
		setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name,
			   (socklen_t)strlen(name));
		sendto(fd, "steer", 5, 0, (struct sockaddr *)&to, sizeof(to));
		close(fd);
	}
}

/* Every frame read from the n queues: on the queue of its hash? */
static void tap_read(const int *q, unsigned int n, bool tun,
		     unsigned int *wrong, unsigned int *got, unsigned int *udp)
{
	uint8_t buf[2048];
	unsigned int i;
	ssize_t len;

	*wrong = *got = *udp = 0;
	for (i = 0; i < n; i++) {
		while ((len = read(q[i], buf, sizeof(buf))) > 0) {
			(*got)++;
			if (tun) {
				*udp += len > 20 && buf[0] == 0x45 &&
					buf[9] == 17;
				*wrong += i != steer_hash_ip(buf, (size_t)len)
						       % n;
				continue;
			}
			*udp += len > 34 && buf[12] == 8 && buf[23] == 17;
			*wrong += i != steer_queue(buf, (size_t)len, n);
		}
	}
}

static void test_tap(unsigned int n, bool tun)
{
	struct bpf_insn insns[STEER_TAP_INSNS];
	unsigned int len = steer_tap_prog(insns, tun), i, wrong, got, udp;
	const char *kind = tun ? "tun" : "tap";
	char name[IFNAMSIZ];
	int q[4], prog;

	snprintf(name, sizeof(name), "gs%c%u.%u", tun ? 'u' : 't',
		 (unsigned)getpid() % 10000, n);
	for (i = 0; i < n; i++)
		q[i] = tap_queue(name, tun);
	prog = bpf_load(insns, len);
	if (prog < 0 && !bpf_refused()) {
		ok(0, "%s steering with %u queues: the program loads", kind,
		   n);
	} else if (prog < 0 || q[0] < 0 || q[n - 1] < 0) {
		printf("ok %d - # SKIP %s steering: %s\n", ++tap_n, kind,
		       prog < 0 ? "cannot load eBPF (needs CAP_BPF)"
				: "cannot open a multi-queue device");
	} else if (ioctl(q[0], TUNSETSTEERINGEBPF, &prog) < 0 ||
		   tap_address(name)) {
		ok(0, "%s steering with %u queues: set up (%s)", kind, n,
		   strerror(errno));
	} else {
		tap_send(name);
		tap_read(q, n, tun, &wrong, &got, &udp);
		ok(udp >= 150 && !wrong,
		   "%s with %u queues: each packet on the queue of its flow "
		   "(%u of %u elsewhere, %u UDP)", kind, n, wrong, got, udp);
	}
	if (prog >= 0)
		close(prog);
	for (i = 0; i < n; i++)
		if (q[i] >= 0)
			close(q[i]);
}

int main(void)
{
	plan(5 + 2 + 6 + 6);
	test_hash();
	test_hash_ip();
	if (own_namespace()) {
		printf("# no network namespace of our own: %s\n",
		       strerror(errno));
		for (; tap_n < 19;)
			printf("ok %d - # SKIP needs a network namespace\n",
			       ++tap_n);
		return done_testing();
	}
	test_group();
	test_tap_prog(false);
	test_tap_prog(true);
	test_tap(2, false);
	test_tap(3, false);
	test_tap(2, true);
	test_tap(3, true);
	return done_testing();
}
