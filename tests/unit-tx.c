// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the transmit path (tx.c) on a real ring and real underlay
 * sockets on loopback: frames written into a queue's "tap" come out at
 * the peers' sockets, encapsulated, cut, flooded or answered with ICMP.
 */
#include "config.h"

#include <stdlib.h>
#include "lane.h"
#include "pkt.h"

#define PORT 47890
#define VNI 7
/* The kernel's icmp_msgs_burst, tx.c's TX_ICMP_BURST. */
#define ICMP_BURST 50

static uint8_t buf[70000];

/* Peers' sockets: 127.0.0.2 (the --remote) and 127.0.0.3 (added later). */
static int peer_a, peer_b;

static void tap_write(struct lane_test *t, const struct pkt *p)
{
	struct iovec iov[2] = {
		{ (void *)&p->vh, VNET_HDR_LEN },
		{ (void *)p->buf, p->len },
	};

	if (writev(t->tap[0], iov, 2) < 0)
		printf("# tap write: %s\n", strerror(errno));
}

/* A UDP frame of an IP length of ip_len, from the pattern seed. */
static void udp_frame(struct pkt *p, uint32_t ip_len, uint32_t seed)
{
	struct pkt_spec s = {
		.l4 = IPPROTO_UDP,
		.payload_len = ip_len - 28,
		.seed = seed,
	};

	pkt_build(&s, p);
}

/* The VXLAN header (RFC 7348 section 5): the I flag and vni, zeros. */
static bool vxlan_ok(const uint8_t *h, uint32_t vni)
{
	static const uint8_t zero[3];

	return h[0] == 0x08 && !memcmp(h + 1, zero, 3) &&
	       pkt_get32(h + 4) == vni << 8;
}

/* The next datagram at fd is p, encapsulated with VNI. */
static bool got_frame(int fd, const struct pkt *p)
{
	ssize_t n = lane_recv(fd, buf, sizeof(buf), NULL);

	return n == 8 + (ssize_t)p->len && vxlan_ok(buf, VNI) &&
	       !memcmp(buf + 8, p->buf, p->len);
}

/* Nothing more at fd (what was sent came synchronously, on lo). */
static bool got_none(int fd)
{
	return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0 &&
	       errno == EAGAIN;
}

static void test_plain(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	struct sockaddr_in from = { 0 };
	struct pkt p;
	ssize_t n;

	udp_frame(&p, 228, 1);
	tap_write(t, &p);
	lane_run(t);
	n = lane_recv(peer_a, buf, sizeof(buf), &from);
	is_int(n, 8 + p.len, "a plain frame goes out as one datagram of "
	       "VXLAN header and frame");
	ok(vxlan_ok(buf, VNI), "with the I flag and VNI %u", VNI);
	ok(n > 8 && !memcmp(buf + 8, p.buf, p.len), "the frame as it came");
	is_int(ntohl(from.sin_addr.s_addr), 0x7f000001,
	       "from --local 127.0.0.1");
	ok(got_none(peer_a), "and nothing else");
	ok(q->st.tx_frames == st.tx_frames + 1 &&
		   q->st.tx_segments == st.tx_segments + 1 &&
		   q->st.tx_bytes == st.tx_bytes + p.len,
	   "tx_frames, tx_segments and tx_bytes count it");
}

/* TCP segment i of a super-frame: its checksums, seq and payload. */
static bool tso_seg_ok(const struct pkt *p, unsigned int i, uint32_t mss,
		       const uint8_t *d, ssize_t n)
{
	uint32_t plen = p->len - p->hdr_len - i * mss;
	const uint8_t *ip = d + 14, *th = d + 34;
	uint32_t l4len;

	if (plen > mss)
		plen = mss;
	l4len = 20 + plen;
	if (n != 8 + 54 + (ssize_t)plen || !vxlan_ok(d - 8, VNI))
		return false;
	if (pkt_get16(ip + 2) != 40 + plen ||
	    pkt_fold(pkt_sum(ip, 20, 0)) != 0xffff)
		return false;
	if (pkt_fold(pkt_sum(th, l4len, pkt_pseudo(ip, IPPROTO_TCP, l4len))) !=
	    0xffff)
		return false;
	if (pkt_get32(th + 4) != pkt_get32(p->buf + 38) + i * mss)
		return false;
	return !memcmp(th + 20, p->buf + p->hdr_len + i * mss, plen);
}

static void test_tso(struct lane_test *t)
{
	struct pkt_spec s = {
		.gso_size = 1400, .payload_len = 5000, .seq = 0xfffff000,
		.ip_id = 77, .seed = 2,
	};
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	static struct pkt p;
	unsigned int i, good = 0;

	pkt_build(&s, &p);
	tap_write(t, &p);
	lane_run(t);
	for (i = 0; i < 4; i++) {
		ssize_t n = lane_recv(peer_a, buf, sizeof(buf), NULL);

		good += tso_seg_ok(&p, i, 1400, buf + 8, n);
	}
	is_int(good, 4, "a TSO super-frame (GSO_TCPV4, gso_size 1400, 5000 "
	       "bytes) arrives as 4 segments: lengths, IP and TCP checksums "
	       "(reference sum), sequence numbers across the wrap, payload");
	ok(got_none(peer_a), "and no more");
	ok(q->st.tx_gso_frames == st.tx_gso_frames + 1 &&
		   q->st.tx_segments == st.tx_segments + 4,
	   "tx_gso_frames 1, tx_segments 4");
}

static void test_bad_vnet(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	struct pkt bad, marker;

	udp_frame(&bad, 300, 3);
	bad.vh.gso_type = 9;	/* no such gso_type */
	bad.vh.gso_size = 100;
	udp_frame(&marker, 128, 4);
	tap_write(t, &bad);
	tap_write(t, &marker);
	lane_run(t);
	is_int(q->st.drop[DROP_TX_GSO_TYPE] - st.drop[DROP_TX_GSO_TYPE], 1,
	       "a frame of an unknown vnet gso_type: tx_drop_gso_type");
	ok(got_frame(peer_a, &marker) && got_none(peer_a),
	   "it is not sent; the frame after it is");
	is_int(q->st.tx_frames - st.tx_frames, 1,
	       "tx_frames counts only the good one");
}

/* A frame to dst (6 bytes), of seed, and its length. */
static void frame_to(struct pkt *p, const uint8_t *dst, uint32_t seed)
{
	udp_frame(p, 200, seed);
	memcpy(p->buf, dst, ETH_ALEN);
}

static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_b[ETH_ALEN] = { 0x02, 0xbb, 0, 0, 0, 1 };
static const uint8_t mac_a[ETH_ALEN] = { 0x02, 0xaa, 0xaa, 0, 0, 1 };

static void test_one_peer(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	struct pkt b, u;

	frame_to(&b, bcast, 5);
	frame_to(&u, mac_b, 6);
	tap_write(t, &b);
	tap_write(t, &u);
	lane_run(t);
	ok(got_frame(peer_a, &b) && got_frame(peer_a, &u) && got_none(peer_a),
	   "one peer: a broadcast and a unicast both go to it");
	is_int(q->st.tx_flood - st.tx_flood, 0,
	       "nothing is flooded (tx_flood)");
}

/* Check the ICMP "fragmentation needed" at d (n bytes) about frame p. */
static bool icmp_ok(const struct pkt *p, const uint8_t *d, ssize_t n,
		    uint32_t mtu)
{
	static const uint8_t plain[VNET_HDR_LEN];
	const uint8_t *f = d + VNET_HDR_LEN, *ip = f + 14, *ic = ip + 20;
	uint32_t ic_len;

	if (n < VNET_HDR_LEN + 14 + 20 + 8 + 28 ||
	    memcmp(d, plain, VNET_HDR_LEN))
		return false;
	/* Back to its sender: MACs and addresses swapped. */
	if (memcmp(f, p->buf + 6, 6) || memcmp(f + 6, p->buf, 6) ||
	    pkt_get16(f + 12) != 0x0800)
		return false;
	if (ip[9] != IPPROTO_ICMP || memcmp(ip + 12, p->buf + 30, 4) ||
	    memcmp(ip + 16, p->buf + 26, 4) ||
	    pkt_get16(ip + 2) != n - VNET_HDR_LEN - 14 ||
	    pkt_fold(pkt_sum(ip, 20, 0)) != 0xffff)
		return false;
	ic_len = pkt_get16(ip + 2) - 20;
	/* Type 3 code 4, the next-hop MTU (RFC 1191), quoting the packet. */
	return ic[0] == 3 && ic[1] == 4 && pkt_get16(ic + 6) == mtu &&
	       pkt_fold(pkt_sum(ic, ic_len, 0)) == 0xffff &&
	       !memcmp(ic + 8, p->buf + 14, 28);
}

static void test_icmp(struct lane_test *t)
{
	struct peer *a = &t->peers.v[t->peers.live[0]];
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	/* What of an IP packet fits 1280 after IPv4, UDP, VXLAN, Ethernet. */
	uint32_t mtu = 1280 - 20 - 8 - 8 - 14;
	struct pkt big, marker;
	unsigned int i, got = 0;
	ssize_t n;

	a->path_mtu = 1280;
	udp_frame(&big, 1300, 7);
	udp_frame(&marker, 100, 8);
	tap_write(t, &big);
	tap_write(t, &marker);
	lane_run(t);
	n = lane_recv(t->tap[0], buf, sizeof(buf), NULL);
	ok(icmp_ok(&big, buf, n, mtu), "a DF frame over a path MTU of 1280: "
	   "an ICMP fragmentation needed (type 3 code 4, MTU %u) back into "
	   "the tap, to its sender, quoting it, checksums right", mtu);
	ok(got_frame(peer_a, &marker) && got_none(peer_a),
	   "the frame is not sent; the one after it is");
	ok(q->st.tx_icmp_sent == st.tx_icmp_sent + 1 &&
		   q->st.drop[DROP_TX_TOO_BIG] == st.drop[DROP_TX_TOO_BIG] + 1,
	   "tx_icmp_sent and tx_drop_too_big count it");
	/* Past the burst, in one batch (one loop time): held back. */
	st = q->st;
	for (i = 0; i < ICMP_BURST + 10; i++)
		tap_write(t, &big);
	lane_run(t);
	while (recv(t->tap[0], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		got++;
	/* A token or so may not have come back since the first one. */
	ok(q->st.tx_icmp_sent - st.tx_icmp_sent == got &&
		   got >= ICMP_BURST - 2 && got <= ICMP_BURST,
	   "%u more frames: a burst of %u ICMPs at most written (%u)",
	   ICMP_BURST + 10, ICMP_BURST, got);
	ok(q->st.tx_icmp_limited - st.tx_icmp_limited == ICMP_BURST + 10 - got,
	   "the rest held back by the rate limit (tx_icmp_limited %llu)",
	   (unsigned long long)(q->st.tx_icmp_limited - st.tx_icmp_limited));
	a->path_mtu = 0;
}

static void test_two_peers(struct lane_test *t)
{
	struct ipaddr ip_b = { .family = AF_INET };
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	struct pkt b, u, marker;
	struct peer *a;
	int slot_b;

	inet_pton(AF_INET, "127.0.0.3", &ip_b.addr);
	slot_b = peers_add(&t->peers, &ip_b);
	if (slot_b < 0)
		printf("# peers_add: %d\n", slot_b);
	a = &t->peers.v[t->peers.live[0]];
	frame_to(&b, bcast, 9);
	tap_write(t, &b);
	lane_run(t);
	ok(got_frame(peer_a, &b) && got_frame(peer_b, &b) &&
		   got_none(peer_a) && got_none(peer_b),
	   "two peers: a broadcast goes to both, once");
	is_int(q->st.tx_flood - st.tx_flood, 1, "tx_flood counts it once");
	ok(t->lane.peer[a - t->peers.v].st.tx_flood == 1 &&
		   t->lane.peer[slot_b].st.tx_flood == 1,
	   "each peer's tx_flood counts its copy (its lane's counters)");
	frame_to(&u, mac_b, 10);
	tap_write(t, &u);
	lane_run(t);
	ok(got_frame(peer_a, &u) && got_frame(peer_b, &u),
	   "a unicast to a MAC in no entry goes to both");
	is_int(fdb_add_static(&t->ds[0].fdb, mac_b, 0, (unsigned int)slot_b),
	       0, "fdb_add_static: 02:bb:00:00:00:01 behind 127.0.0.3");
	fdb_add_static(&t->ds[0].fdb, mac_a, 0, t->peers.live[0]);
	st = q->st;
	frame_to(&u, mac_b, 11);
	frame_to(&marker, mac_a, 12);
	tap_write(t, &u);
	tap_write(t, &marker);
	lane_run(t);
	ok(got_frame(peer_b, &u) && got_none(peer_b),
	   "a unicast to a static entry goes to its peer");
	ok(got_frame(peer_a, &marker) && got_none(peer_a),
	   "and not to the other, which gets only its own");
	is_int(q->st.tx_flood - st.tx_flood, 0, "nothing flooded");
}

/* n UDP frames to mac_b of an IP length of ip_len; peer_b's drained. */
static void udp_run(struct lane_test *t, unsigned int n, uint32_t ip_len)
{
	struct pkt p;
	unsigned int i;

	udp_frame(&p, ip_len, 13);
	memcpy(p.buf, mac_b, ETH_ALEN);
	for (i = 0; i < n; i++)
		tap_write(t, &p);
	lane_run(t);
	lane_drain(peer_b);
}

static void test_udp_bulk(struct lane_test *t)
{
	struct pkt_spec s = {
		.l4 = IPPROTO_UDP, .gso_size = 1172, .payload_len = 3 * 1172,
		.seed = 14,
	};
	struct queue *q = &t->q[0];
	struct pkt p;

	rec.udp_bulk = 0;
	t->ds[0].udp_fit = 0;
	udp_run(t, 32, 1200);
	is_int(rec.udp_bulk, 0, "no udp_fit: 32 datagrams of 1200 bytes call "
	       "no udp_bulk");
	t->ds[0].udp_fit = 1400;
	udp_run(t, 32, 1200);
	ok(rec.udp_bulk == 1 && rec.bulk == XMIT_BULK_TRAIN && rec.q == q,
	   "udp_fit set: 32 more call udp_bulk once, a train, of the queue");
	pkt_build(&s, &p);
	memcpy(p.buf, mac_b, ETH_ALEN);
	tap_write(t, &p);
	lane_run(t);
	ok(rec.udp_bulk == 2 && rec.bulk == XMIT_BULK_SUPER,
	   "a UDP super-frame over udp_fit: udp_bulk, a super-frame");
	is_int(lane_drain(peer_b), 3, "whose 3 datagrams are sent");
	t->ds[0].udp_fit = 0;
}

/*
 * Sends that wait for room: loopback frees a send's buffer as it passes
 * (skb_orphan() in loopback_xmit()), so a tbf on lo holds them, and the
 * sockets' send buffers are made as small as they go.
 */
static bool hold_sends(struct lane_test *t, bool on)
{
	int small = 1, r;
	unsigned int i;

	if (!on)
		return !system("tc qdisc del dev lo root 2>/dev/null");
	r = system("tc qdisc add dev lo root tbf rate 10mbit burst 16kb "
		   "limit 4mb 2>/dev/null");
	if (r)
		return false;
	for (i = 0; i < t->ul.n_src; i++) {
		setsockopt(t->ul.src_fd[i], SOL_SOCKET, SO_SNDBUF, &small,
			   sizeof(small));
		if (t->ul.src_fd_df[i] >= 0)
			setsockopt(t->ul.src_fd_df[i], SOL_SOCKET, SO_SNDBUF,
				   &small, sizeof(small));
	}
	return true;
}

static void test_quiesce(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	unsigned int i, got = 0;
	bool flight;
	struct pkt p;

	if (!hold_sends(t, true)) {
		for (i = 0; i < 3; i++)
			ok(1, "# SKIP no tc qdisc tbf on lo");
		return;
	}
	/* Two lengths in turn: a send each (no GSO run joins them). */
	for (i = 0; i < 40; i++) {
		udp_frame(&p, 1000 + i % 2, 15);
		memcpy(p.buf, mac_b, ETH_ALEN);
		tap_write(t, &p);
	}
	lane_run(t);
	flight = pool_free(&q->tx.pool) != TX_SETS;
	ok(flight && q->st.tx_backpressure > st.tx_backpressure,
	   "40 frames whose sends wait for room: in flight, the tap left "
	   "unread (tx_backpressure)");
	tx_quiesce(q);
	ok(pool_free(&q->tx.pool) == TX_SETS && t->ring.inflight == 0 &&
		   q->st.tx_segments - st.tx_segments == 40,
	   "tx_quiesce() returns with nothing in flight, every send "
	   "completed (tx_segments %llu)",
	   (unsigned long long)(q->st.tx_segments - st.tx_segments));
	while (got < 40 && lane_recv(peer_b, buf, sizeof(buf), NULL) > 0)
		got++;
	ok(got == 40 && ev_is_active(&q->tx.tap_w),
	   "all 40 arrive, and the tap is read again");
	hold_sends(t, false);
}

/* ---- --mode tun: IP packets, by route ----------------------------- */

/* The IP packet of frame p (its Ethernet header off) to dst, at out. */
static size_t tun_packet(const struct pkt *p, const char *dst, uint8_t *out)
{
	size_t len = p->len - p->l3_off;
	uint8_t *ip = out;

	memcpy(out, p->buf + p->l3_off, len);
	if (ip[0] >> 4 == 4) {
		inet_pton(AF_INET, dst, ip + 16);
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	} else {
		inet_pton(AF_INET6, dst, ip + 24);
	}
	return len;
}

static uint8_t tun_buf[2048];

/* The packet of n bytes at pkt into the tun's queue, no offloads. */
static void tun_write(struct lane_test *t, const uint8_t *pkt, size_t n)
{
	static const uint8_t plain[VNET_HDR_LEN];
	struct iovec iov[2] = {
		{ (void *)plain, VNET_HDR_LEN },
		{ (void *)pkt, n },
	};

	if (writev(t->tap[0], iov, 2) < 0)
		printf("# tun write: %s\n", strerror(errno));
}

/*
 * The next datagram at fd is the n-byte packet pkt in GRE-in-UDP (RFC
 * 8086), with the protocol type of its family (0x0800, 0x86dd) as an L3
 * GRE tunnel sends it.
 */
static bool got_gre_ip(int fd, const uint8_t *pkt, size_t n)
{
	ssize_t got = lane_recv(fd, buf, sizeof(buf), NULL);
	uint16_t proto = pkt[0] >> 4 == 4 ? 0x0800 : 0x86dd;

	return got == 4 + (ssize_t)n && pkt_get16(buf) == 0 &&
	       pkt_get16(buf + 2) == proto && !memcmp(buf + 4, pkt, n);
}

/* ICMP net unreachable (type 3 code 0) back into the tun about pkt. */
static bool got_net_unreach(struct lane_test *t, const uint8_t *pkt)
{
	ssize_t n = lane_recv(t->tap[0], buf, sizeof(buf), NULL);
	const uint8_t *ip = buf + VNET_HDR_LEN, *ic = ip + 20;

	return n > VNET_HDR_LEN + 28 + 28 && ip[0] == 0x45 && ip[9] == 1 &&
	       !memcmp(ip + 16, pkt + 12, 4) && ic[0] == 3 && ic[1] == 0 &&
	       pkt_fold(pkt_sum(ic, (size_t)n - VNET_HDR_LEN - 20, 0)) ==
		       0xffff &&
	       !memcmp(ic + 8, pkt, 28);
}

/* Frame p's packet to dst through the tun, one turn: its length. */
static size_t tun_send(struct lane_test *t, const struct pkt *p,
		       const char *dst)
{
	size_t n = tun_packet(p, dst, tun_buf);

	tun_write(t, tun_buf, n);
	lane_run(t);
	return n;
}

static int tun_route(struct lane_test *t, const char *prefix, int peer)
{
	struct cidr c;

	if (optvalue_cidr_parse(prefix, &c))
		return -EINVAL;
	return route_add(&t->ds[0].routes, &c, (unsigned int)peer);
}

/*
 * What the host's stack sends a tun by itself (router solicitations,
 * MLD reports) has no next hop among several peers: dropped and counted
 * as link-scoped, never answered; a --route for it still takes it.
 */
static void test_tun_link_scope(struct lane_test *t, int slot_b)
{
	static const char *const dst[] = {
		"ff02::2", "ff02::16", "fe80::1", "ff01::1",
		"224.0.0.5", "169.254.7.7", "255.255.255.255",
	};
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	struct pkt p4, p6;
	bool none = true;
	unsigned int i;

	udp_frame(&p4, 64, 23);
	pkt_build(&(struct pkt_spec){ .ipv6 = true, .l4 = IPPROTO_UDP,
				      .payload_len = 64, .seed = 24 },
		  &p6);
	for (i = 0; i < sizeof(dst) / sizeof(dst[0]); i++) {
		tun_send(t, strchr(dst[i], ':') ? &p6 : &p4, dst[i]);
		none &= got_none(peer_a) && got_none(peer_b) &&
			got_none(t->tap[0]);
	}
	ok(none, "tun: to ff02::2, ff02::16, fe80::1, ff01::1, 224.0.0.5, "
		 "169.254.7.7, 255.255.255.255 without a route: nothing sent, "
		 "no ICMP");
	ok(q->st.drop[DROP_TX_LINK_SCOPE] - st.drop[DROP_TX_LINK_SCOPE] == 7 &&
		   q->st.drop[DROP_TX_NO_ROUTE] == st.drop[DROP_TX_NO_ROUTE] &&
		   q->st.tx_icmp_no_route == st.tx_icmp_no_route,
	   "tun: counted as tx_drop_link_scope, not tx_drop_no_route");
	st = q->st;
	ok(!tun_route(t, "ff02::/16", slot_b), "tun: a route ff02::/16 to B");
	tun_send(t, &p6, "ff02::9");
	ok(got_gre_ip(peer_b, tun_buf, p6.len - p6.l3_off) &&
		   q->st.drop[DROP_TX_LINK_SCOPE] ==
			   st.drop[DROP_TX_LINK_SCOPE],
	   "tun: then ff02::9 goes to B");
}

static void test_tun_routes(struct lane_test *t, int slot_b)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	struct pkt p4, p6;
	size_t n;
	int a = (int)t->peers.live[0];

	udp_frame(&p4, 200, 21);
	pkt_build(&(struct pkt_spec){ .ipv6 = true, .l4 = IPPROTO_UDP,
				      .payload_len = 150, .seed = 22 },
		  &p6);
	ok(!tun_route(t, "10.1.0.0/16", a) && !tun_route(t, "10.1.2.0/24",
							  slot_b) &&
		   !tun_route(t, "fd00:1::/64", slot_b),
	   "tun: routes 10.1.0.0/16 to A, 10.1.2.0/24 and fd00:1::/64 to B");
	n = tun_send(t, &p4, "10.1.2.5");
	ok(got_gre_ip(peer_b, tun_buf, n) && got_none(peer_a),
	   "tun: to 10.1.2.5, the /24's peer B, in GRE protocol 0x0800");
	n = tun_send(t, &p4, "10.1.9.9");
	ok(got_gre_ip(peer_a, tun_buf, n) && got_none(peer_b),
	   "tun: to 10.1.9.9, the /16's peer A");
	n = tun_send(t, &p6, "fd00:1::9");
	ok(got_gre_ip(peer_b, tun_buf, n) && got_none(peer_a),
	   "tun: IPv6 to fd00:1::9, B, in GRE protocol 0x86dd");
	tun_send(t, &p4, "10.9.0.1");
	ok(got_none(peer_a) && got_none(peer_b) &&
		   got_net_unreach(t, tun_buf),
	   "tun: to 10.9.0.1, no route: nothing sent, ICMP net "
	   "unreachable back into the tun, quoting it");
	ok(q->st.drop[DROP_TX_NO_ROUTE] - st.drop[DROP_TX_NO_ROUTE] == 1 &&
		   q->st.tx_icmp_no_route - st.tx_icmp_no_route == 1 &&
		   q->st.tx_flood == st.tx_flood,
	   "tun: tx_drop_no_route and tx_icmp_no_route count it, nothing "
	   "flooded");
	test_tun_link_scope(t, slot_b);
}

/* Every peer of t gone (port_peer_del() of the last). */
static void del_every_peer(struct lane_test *t)
{
	while (t->peers.n)
		peers_del(&t->peers, t->peers.live[0]);
}

/*
 * No peer (a gsotun started with --local alone, or after its last
 * went): a frame goes nowhere, dropped and counted as tx_drop_no_peer;
 * one peer added, the frames go to it again.
 */
static void test_no_peer(struct lane_test *t)
{
	struct ipaddr ip_a = { .family = AF_INET };
	struct queue *q = &t->q[0];
	struct stats st;
	struct pkt b, u;

	del_every_peer(t);
	st = q->st;
	frame_to(&b, bcast, 13);
	frame_to(&u, mac_b, 14);
	tap_write(t, &b);
	tap_write(t, &u);
	lane_run(t);
	ok(got_none(peer_a) && got_none(peer_b) && got_none(t->tap[0]),
	   "no peer: a broadcast and a unicast go nowhere, nothing answers");
	ok(q->st.drop[DROP_TX_NO_PEER] - st.drop[DROP_TX_NO_PEER] == 2 &&
		   q->st.tx_frames - st.tx_frames == 2 &&
		   q->st.tx_bytes - st.tx_bytes == b.len + u.len &&
		   q->st.tx_flood == st.tx_flood &&
		   q->st.tx_segments == st.tx_segments,
	   "counted as read and as tx_drop_no_peer, none flooded nor sent");
	inet_pton(AF_INET, "127.0.0.2", &ip_a.addr);
	peers_add(&t->peers, &ip_a);
	frame_to(&u, mac_b, 15);
	tap_write(t, &u);
	lane_run(t);
	ok(got_frame(peer_a, &u) && got_none(peer_a) &&
		   q->st.drop[DROP_TX_NO_PEER] - st.drop[DROP_TX_NO_PEER] == 2,
	   "a peer added: the next frame goes to it");
}

/*
 * A tun with no peer: a packet is dropped as tx_drop_no_peer and
 * answered as one no route takes; a link-scoped one is not answered.
 */
static void test_tun_no_peer(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st;
	struct pkt p4, p6;
	size_t n;

	del_every_peer(t);
	st = q->st;
	udp_frame(&p4, 200, 25);
	pkt_build(&(struct pkt_spec){ .ipv6 = true, .l4 = IPPROTO_UDP,
				      .payload_len = 64, .seed = 26 },
		  &p6);
	n = tun_send(t, &p4, "10.1.2.5");
	ok(got_none(peer_a) && got_none(peer_b) &&
		   got_net_unreach(t, tun_buf) && n,
	   "tun, no peer: to 10.1.2.5 nothing sent, net unreachable back");
	tun_send(t, &p6, "ff02::2");
	ok(got_none(peer_a) && got_none(peer_b) && got_none(t->tap[0]),
	   "tun, no peer: to ff02::2 nothing sent, nothing answered");
	ok(q->st.drop[DROP_TX_NO_PEER] - st.drop[DROP_TX_NO_PEER] == 2 &&
		   q->st.drop[DROP_TX_NO_ROUTE] == st.drop[DROP_TX_NO_ROUTE] &&
		   q->st.drop[DROP_TX_LINK_SCOPE] ==
			   st.drop[DROP_TX_LINK_SCOPE] &&
		   q->st.tx_icmp_no_route - st.tx_icmp_no_route == 1,
	   "tun: both counted as tx_drop_no_peer, one answered");
}

/* A second lane, --mode tun --encap gre-udp, two peers. */
static void test_tun(void)
{
	char port[8];
	char *argv[] = {
		"unit-tx", "--mode", "tun", "--encap", "gre-udp", "--remote",
		"127.0.0.2", "--local", "127.0.0.1", "--port", port, NULL,
	};
	struct ipaddr ip_b = { .family = AF_INET };
	struct lane_test t;
	int slot_b;

	snprintf(port, sizeof(port), "%u", PORT);
	if (lane_open_tun(&t, (int)(sizeof(argv) / sizeof(argv[0])) - 1,
			  argv)) {
		printf("Bail out! cannot set up the tun's lane\n");
		exit(1);
	}
	lane_define_bufs(&t.q[0]);
	inet_pton(AF_INET, "127.0.0.3", &ip_b.addr);
	slot_b = peers_add(&t.peers, &ip_b);
	tx_watch(&t.q[0]);
	test_tun_routes(&t, slot_b);
	test_tun_no_peer(&t);
	lane_close(&t);
}

int main(void)
{
	char port[8], vni[8];
	char *argv[] = {
		"unit-tx", "--remote", "127.0.0.2", "--local", "127.0.0.1",
		"--port", port, "--vni", vni, NULL,
	};
	const uint32_t vnis[] = { VNI };
	struct lane_test t;

	alarm(30);
	snprintf(port, sizeof(port), "%u", PORT);
	snprintf(vni, sizeof(vni), "%u", VNI);
	lane_netns();
	peer_a = lane_udp_socket(2, PORT);
	peer_b = lane_udp_socket(3, PORT);
	if (peer_a < 0 || peer_b < 0 ||
	    lane_open(&t, (int)(sizeof(argv) / sizeof(argv[0])) - 1, argv, 1,
		      vnis)) {
		printf("Bail out! cannot set up the lane\n");
		return 1;
	}
	lane_define_bufs(&t.q[0]);
	plan(37 + 13);
	tx_watch(&t.q[0]);
	test_plain(&t);
	test_tso(&t);
	test_bad_vnet(&t);
	test_one_peer(&t);
	test_icmp(&t);
	test_two_peers(&t);
	test_udp_bulk(&t);
	test_quiesce(&t);
	test_no_peer(&t);
	lane_close(&t);
	test_tun();
	close(peer_a);
	close(peer_b);
	return done_testing();
}
