// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the receive path (rx.c) on a real ring and real underlay
 * sockets on loopback: datagrams sent to the lane's socket reach the
 * "tap" of the queue of their VNI, merged, learnt from or dropped.
 */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>
#include "lane.h"
#include "pkt.h"

#define PORT 47891

static uint8_t buf[70000] __attribute__((aligned(8)));

/* The peer's socket (127.0.0.2, the --remote) and a stranger's. */
static int peer, stranger;

/* Frame p in a VXLAN datagram of vni, from fd to the lane's socket. */
static void send_vxlan(int fd, uint32_t vni, const struct pkt *p)
{
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
		.sin_addr.s_addr = htonl(0x7f000001),
	};
	uint8_t h[8] = { 0x08 };
	struct iovec iov[2] = {
		{ h, sizeof(h) },
		{ (void *)p->buf, p->len },
	};
	struct msghdr m = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = iov, .msg_iovlen = 2,
	};

	pkt_put32(h + 4, vni << 8);
	if (sendmsg(fd, &m, 0) < 0)
		printf("# send: %s\n", strerror(errno));
}

/* The next frame at queue i's tap: its length (vnet header too), or -1. */
static ssize_t tap_read(struct lane_test *t, unsigned int i)
{
	return lane_recv(t->tap[i], buf, sizeof(buf), NULL);
}

/* Nothing (more) at queue i's tap. */
static bool tap_none(struct lane_test *t, unsigned int i)
{
	return recv(t->tap[i], buf, sizeof(buf), MSG_DONTWAIT) < 0 &&
	       errno == EAGAIN;
}

static const struct virtio_net_hdr *vnet(void)
{
	return (const struct virtio_net_hdr *)buf;
}

/* What was read is a plain vnet header and frame p as it was sent. */
static bool read_as_sent(ssize_t n, const struct pkt *p)
{
	static const uint8_t plain[VNET_HDR_LEN];

	return n == VNET_HDR_LEN + (ssize_t)p->len &&
	       !memcmp(buf, plain, VNET_HDR_LEN) &&
	       !memcmp(buf + VNET_HDR_LEN, p->buf, p->len);
}

/* TCP segment i of a flow: payload plen, seq and IPv4 id counting up. */
static void tcp_seg(struct pkt *p, unsigned int i, uint32_t plen)
{
	struct pkt_spec s = {
		.seq = 5000 + i * plen, .ip_id = (uint16_t)(300 + i),
		.payload_len = plen, .seed = 40 + i,
	};

	pkt_build(&s, p);
}

static void test_plain(struct lane_test *t)
{
	struct pkt_spec s = {
		.l4 = IPPROTO_UDP, .payload_len = 300, .seed = 1,
	};
	struct queue *q = &t->q[0];
	struct lane_peer *e = &t->lane.peer[t->peers.live[0]];
	struct stats st = q->st;
	uint64_t from_peer = e->st.rx_packets;
	struct pkt p;

	pkt_build(&s, &p);
	send_vxlan(peer, 1, &p);
	lane_run(t);
	ok(read_as_sent(tap_read(t, 0), &p) && tap_none(t, 0),
	   "a datagram of VNI 1 reaches its queue's tap as its frame after a "
	   "vnet header (plain: a UDP datagram with its checksum)");
	ok(q->st.rx_packets == st.rx_packets + 1 &&
		   q->st.rx_segments == st.rx_segments + 1 &&
		   q->st.rx_frames == st.rx_frames + 1 &&
		   q->st.rx_frame_bytes == st.rx_frame_bytes + p.len &&
		   q->st.rx_bytes == st.rx_bytes + 8 + p.len,
	   "rx_packets, rx_segments, rx_bytes, rx_frames, rx_frame_bytes");
	is_int(e->st.rx_packets - from_peer, 1, "the peer's rx_packets");
	ok(e->rx_ok_ns && e->rx_ok_ns == e->rx_last_ns && !e->st.rx_drops,
	   "the peer's last packet is its last accepted, none dropped");
}

/* Segments of one flow, payload plen, sent in one go: n, bad the corrupt. */
static void send_flow(struct lane_test *t, struct pkt *segs, unsigned int n,
		      uint32_t plen, int bad)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		tcp_seg(&segs[i], i, plen);
		if ((int)i == bad)
			segs[i].buf[segs[i].check_off] ^= 0x5a;
		send_vxlan(peer, 1, &segs[i]);
	}
	lane_run(t);
}

/* A merged frame read (n bytes) of segs[0..k): headers and payload. */
static bool merged_ok(ssize_t n, const struct pkt *segs, unsigned int k,
		      uint32_t plen)
{
	const struct virtio_net_hdr *h = vnet();
	const uint8_t *f = buf + VNET_HDR_LEN, *ip = f + 14;
	uint32_t l4len = 20 + k * plen;
	unsigned int i;

	if (n != VNET_HDR_LEN + 54 + (ssize_t)(k * plen))
		return false;
	if (h->gso_type != VIRTIO_NET_HDR_GSO_TCPV4 || h->gso_size != plen ||
	    h->flags != VIRTIO_NET_HDR_F_NEEDS_CSUM || h->csum_start != 34 ||
	    h->csum_offset != 16 || h->hdr_len != 54)
		return false;
	/* The first segment's headers, lengths and checksums made anew. */
	if (memcmp(f, segs[0].buf, 14) || pkt_get16(ip + 2) != 20 + l4len ||
	    pkt_fold(pkt_sum(ip, 20, 0)) != 0xffff ||
	    pkt_get32(f + 38) != pkt_get32(segs[0].buf + 38))
		return false;
	/* The check field is the pseudo-header seed (NEEDS_CSUM). */
	if (!pkt_ones_eq(pkt_get16(f + 50),
			 pkt_fold(pkt_pseudo(ip, IPPROTO_TCP, l4len))))
		return false;
	for (i = 0; i < k; i++)
		if (memcmp(f + 54 + i * plen, segs[i].buf + 54, plen))
			return false;
	return true;
}

static void test_merge(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	static struct pkt segs[4];
	ssize_t n;

	send_flow(t, segs, 4, 1000, -1);
	n = tap_read(t, 0);
	ok(merged_ok(n, segs, 4, 1000) && tap_none(t, 0),
	   "4 TCP segments of a flow reach the tap as one frame: GSO_TCPV4, "
	   "gso_size 1000, NEEDS_CSUM, the IP length and checksum made anew, "
	   "the payloads in order");
	ok(q->st.rx_gro_merged == st.rx_gro_merged + 3 &&
		   q->st.rx_gso_frames == st.rx_gso_frames + 1 &&
		   q->st.rx_frames == st.rx_frames + 1,
	   "rx_gro_merged 3, rx_gso_frames 1, rx_frames 1");
}

static void test_corrupt(struct lane_test *t)
{
	const struct virtio_net_hdr *h = vnet();
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	static struct pkt segs[4];
	ssize_t n;

	send_flow(t, segs, 4, 1000, 2);
	n = tap_read(t, 0);
	ok(merged_ok(n, segs, 2, 1000),
	   "a flow whose third TCP segment has a wrong checksum: the two "
	   "before it are merged");
	n = tap_read(t, 0);
	ok(read_as_sent(n, &segs[2]),
	   "the corrupt one reaches the tap as it came, unmerged, without "
	   "NEEDS_CSUM or GSO (the kernel drops it)");
	n = tap_read(t, 0);
	ok(n == VNET_HDR_LEN + (ssize_t)segs[3].len &&
		   h->flags == VIRTIO_NET_HDR_F_NEEDS_CSUM &&
		   h->gso_type == VIRTIO_NET_HDR_GSO_NONE &&
		   !memcmp(buf + VNET_HDR_LEN + 54, segs[3].buf + 54, 1000) &&
		   tap_none(t, 0),
	   "the one after it goes alone, NEEDS_CSUM");
	is_int(q->st.rx_inner_csum_bad - st.rx_inner_csum_bad, 1,
	       "rx_inner_csum_bad counts it");
}

static void test_dispatch(struct lane_test *t)
{
	struct pkt_spec s = { .l4 = IPPROTO_UDP, .payload_len = 64, .seed = 2 };
	struct queue *q0 = &t->q[0], *q1 = &t->q[1];
	struct lane_peer *e = &t->lane.peer[t->peers.live[0]];
	struct stats st0 = q0->st, st1 = q1->st;
	struct lane_peer was = *e;
	int vni = peer_drop_slot(DROP_RX_VNI);
	char seen[64] = "";
	struct pkt a, b;

	pkt_build(&s, &a);
	s.seed = 3;
	pkt_build(&s, &b);
	send_vxlan(peer, 2, &b);
	send_vxlan(peer, 1, &a);
	send_vxlan(peer, 3, &a);
	send_vxlan(peer, 2, &b);
	lane_run(t);
	ok(read_as_sent(tap_read(t, 1), &b) &&
		   read_as_sent(tap_read(t, 1), &b) && tap_none(t, 1),
	   "two queues: the datagrams of VNI 2 reach the second one's tap");
	ok(read_as_sent(tap_read(t, 0), &a) && tap_none(t, 0),
	   "the one of VNI 1 the first one's, and nothing else does");
	ok(q0->st.drop[DROP_RX_VNI] == st0.drop[DROP_RX_VNI] + 1 &&
		   q1->st.drop[DROP_RX_VNI] == st1.drop[DROP_RX_VNI],
	   "VNI 3: dropped, counted on the main queue (rx_drop_vni)");
	ok(rx_seen_text(q0, DROP_RX_VNI, seen, sizeof(seen)) &&
		   !strcmp(seen, "VNI 3 from 127.0.0.2"),
	   "rx_seen_text() says \"%s\"", seen);
	ok(e->st.rx_drops == was.st.rx_drops + 1 && vni >= 0 &&
		   e->drop[vni] == was.drop[vni] + 1 &&
		   e->drop_why == DROP_RX_VNI && e->drop_has_id &&
		   e->drop_id == 3 && e->drop_ns &&
		   e->st.rx_packets == was.st.rx_packets + 4,
	   "the peer's lane counts its drop by cause, and its VNI 3");
	ok(e->rx_ok_ns >= was.rx_ok_ns && e->rx_ok_ns == e->rx_last_ns,
	   "and the batch's others as accepted");
	ok(q1->st.rx_segments == st1.rx_segments + 2 &&
		   q1->st.rx_frames == st1.rx_frames + 2 &&
		   q0->st.rx_segments == st0.rx_segments + 2 &&
		   q0->st.rx_frames == st0.rx_frames + 1,
	   "each queue counts its own datagrams and frames");
	/* Past a tick of the coarse clock, a batch of nothing but drops. */
	was = *e;
	usleep(20000);
	send_vxlan(peer, 3, &a);
	lane_run(t);
	ok(e->rx_last_ns > was.rx_last_ns && e->rx_ok_ns == was.rx_ok_ns &&
		   tap_none(t, 0),
	   "a batch all dropped: heard from, not accepted");
}

/* A frame from src on vlan (0: untagged), of seed. */
static void frame_from(struct pkt *p, const uint8_t *src, int vlans,
		       uint32_t seed)
{
	struct pkt_spec s = {
		.l4 = IPPROTO_UDP, .payload_len = 64, .seed = seed,
		.vlans = vlans,
	};

	pkt_build(&s, p);
	memcpy(p->buf + ETH_ALEN, src, ETH_ALEN);
}

static const uint8_t mac_x[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

static void test_learn(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st;
	struct pkt p, v;

	t->ds[0].learning = true;
	memset(&rec, 0, sizeof(rec));
	frame_from(&p, mac_x, 0, 4);
	send_vxlan(peer, 1, &p);
	send_vxlan(peer, 1, &p);
	lane_run(t);
	ok(rec.learn == 1 && rec.q == q && rec.peer == t->peers.live[0] &&
		   !memcmp(rec.mac, mac_x, ETH_ALEN) && rec.vlan == 0,
	   "learning: a new source, twice: learn once, with the peer, the "
	   "MAC and VLAN 0");
	is_int(lane_drain(t->tap[0]), 2, "both frames reach the tap");
	send_vxlan(peer, 1, &p);
	lane_run(t);
	is_int(rec.learn, 1, "not again within a second");
	rx_forget_learnt(q);
	send_vxlan(peer, 1, &p);
	lane_run(t);
	is_int(rec.learn, 2, "again after rx_forget_learnt()");
	/* A second later: the time it was learnt moved back, not slept. */
	q->rx.last.ns -= 1000000000ull;
	send_vxlan(peer, 1, &p);
	lane_run(t);
	is_int(rec.learn, 3, "and again a second later");
	frame_from(&v, mac_x, 1, 5);
	send_vxlan(peer, 1, &v);
	lane_run(t);
	ok(rec.learn == 4 && rec.vlan == 100,
	   "the same MAC on VLAN 100 is another source: learn, VLAN 100");
	lane_drain(t->tap[0]);
	/* The device refuses it (a MAC fixed to another peer). */
	st = q->st;
	rec.learn_ret = DROP_RX_MAC_STATIC;
	frame_from(&p, (const uint8_t[]){ 2, 0x99, 0, 0, 0, 1 }, 0, 6);
	send_vxlan(peer, 1, &p);
	lane_run(t);
	send_vxlan(peer, 1, &p);
	lane_run(t);
	ok(q->st.drop[DROP_RX_MAC_STATIC] == st.drop[DROP_RX_MAC_STATIC] + 2 &&
		   tap_none(t, 0),
	   "a source learn refuses: its frames dropped for learn's reason");
	is_int(rec.learn, 6, "and it is asked again (not remembered)");
	rec.learn_ret = DROP_NONE;
}

static void test_own_mac(struct lane_test *t)
{
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	unsigned int learnt = rec.learn;
	struct pkt p;

	frame_from(&p, t->ds[0].mac, 0, 7);
	send_vxlan(peer, 1, &p);
	lane_run(t);
	ok(q->st.drop[DROP_RX_MAC_OWN] == st.drop[DROP_RX_MAC_OWN] + 1 &&
		   tap_none(t, 0),
	   "a frame from the tap's own MAC: dropped (rx_drop_mac_own)");
	is_int(rec.learn - learnt, 0, "without a learn");
	t->ds[0].learning = false;
}

static void test_stranger(struct lane_test *t)
{
	struct pkt_spec s = { .l4 = IPPROTO_UDP, .payload_len = 64, .seed = 8 };
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	char seen[64] = "";
	struct pkt p;

	pkt_build(&s, &p);
	send_vxlan(stranger, 1, &p);
	lane_run(t);
	ok(q->st.drop[DROP_RX_SOURCE] == st.drop[DROP_RX_SOURCE] + 1 &&
		   tap_none(t, 0),
	   "a datagram from 127.0.0.9, no peer: dropped (rx_drop_source)");
	ok(rx_seen_text(q, DROP_RX_SOURCE, seen, sizeof(seen)) &&
		   !strcmp(seen, "from 127.0.0.9"),
	   "rx_seen_text() says \"%s\"", seen);
}

/*
 * An ICMP port unreachable about a datagram the lane's socket sent: one
 * of its receiving sockets (the kernel's reuseport lookup picks which)
 * is readable, with nothing but its error queue to read.
 */
static void test_sock_errors(struct lane_test *t)
{
	struct sockaddr_in closed = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(0x7f000002),
	};
	uint8_t cbuf[512];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	int fds[2] = { -1, -1 };

	underlay_recv_fds(&t->ul, fds);
	memset(&rec, 0, sizeof(rec));
	if (sendto(t->ul.fd, "x", 1, 0, (struct sockaddr *)&closed,
		   sizeof(closed)) < 0)
		printf("# sendto: %s\n", strerror(errno));
	lane_run(t);
	ok(rec.sock_errors == 1 && rec.q == &t->q[0] &&
		   (rec.fd == fds[0] || rec.fd == fds[1]),
	   "a receiving socket readable with nothing to read (an ICMP error "
	   "queued): sock_errors, once, on the main queue, with its fd");
	ok(rec.sock_errors &&
		   recvmsg(rec.fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0,
	   "whose error queue holds the error");
}

/* One TCP segment of an IP length of 3000 to a tap of MTU mtu. */
static void big_segment(struct lane_test *t, uint32_t mtu)
{
	struct pkt p;

	rx_set_mtu(&t->q[0], mtu);
	tcp_seg(&p, 0, 2960);
	send_vxlan(peer, 1, &p);
	lane_run(t);
}

static void test_set_mtu(struct lane_test *t)
{
	const struct virtio_net_hdr *h = vnet();
	struct queue *q = &t->q[0];
	struct stats st;
	ssize_t n;

	big_segment(t, 1500);
	n = tap_read(t, 0);
	ok(n == VNET_HDR_LEN + 3014 &&
		   h->gso_type == VIRTIO_NET_HDR_GSO_TCPV4 &&
		   h->gso_size == 1460,
	   "a TCP segment of 3000 bytes over a tap MTU of 1500: GSO, "
	   "gso_size 1460 (%u)", h->gso_size);
	big_segment(t, 2000);
	n = tap_read(t, 0);
	ok(n == VNET_HDR_LEN + 3014 &&
		   h->gso_type == VIRTIO_NET_HDR_GSO_TCPV4 &&
		   h->gso_size == 1960,
	   "rx_set_mtu(2000): gso_size 1960 (%u)", h->gso_size);
	big_segment(t, 9000);
	n = tap_read(t, 0);
	ok(n == VNET_HDR_LEN + 3014 &&
		   h->gso_type == VIRTIO_NET_HDR_GSO_NONE &&
		   h->flags == VIRTIO_NET_HDR_F_NEEDS_CSUM,
	   "rx_set_mtu(9000): it fits, one frame without GSO");
	st = q->st;
	big_segment(t, 68);
	ok(q->st.drop[DROP_RX_OVERSIZE] == st.drop[DROP_RX_OVERSIZE] + 1 &&
		   tap_none(t, 0),
	   "rx_set_mtu(68): no segment size fits, dropped (rx_drop_oversize)");
	rx_set_mtu(q, 1500);
}

/* ---- --mode tun: IP packets in GRE-in-UDP ---------------------------- */

/* The n-byte packet at pkt in GRE-in-UDP of protocol proto, from fd. */
static void send_gre(int fd, uint16_t proto, const uint8_t *pkt, size_t n)
{
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
		.sin_addr.s_addr = htonl(0x7f000001),
	};
	uint8_t h[4] = { 0 };
	struct iovec iov[2] = { { h, sizeof(h) }, { (void *)pkt, n } };
	struct msghdr m = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = iov, .msg_iovlen = 2,
	};

	pkt_put16(h + 2, proto);
	if (sendmsg(fd, &m, 0) < 0)
		printf("# send: %s\n", strerror(errno));
}

/* Frame p's IP packet (no Ethernet header) in GRE, from the peer. */
static void send_ip(const struct pkt *p, uint16_t proto)
{
	send_gre(peer, proto, p->buf + p->l3_off, p->len - p->l3_off);
}

/* What the tun read is a plain vnet header and frame p's packet. */
static bool read_as_packet(ssize_t n, const struct pkt *p)
{
	static const uint8_t plain[VNET_HDR_LEN];
	size_t len = p->len - p->l3_off;

	return n == VNET_HDR_LEN + (ssize_t)len &&
	       !memcmp(buf, plain, VNET_HDR_LEN) &&
	       !memcmp(buf + VNET_HDR_LEN, p->buf + p->l3_off, len);
}

/* segs[0..k) of payload plen merged into one super-packet, n bytes. */
static bool merged_packet_ok(ssize_t n, const struct pkt *segs,
			     unsigned int k, uint32_t plen)
{
	const struct virtio_net_hdr *h = vnet();
	const uint8_t *ip = buf + VNET_HDR_LEN;
	unsigned int i;

	if (n != VNET_HDR_LEN + 40 + (ssize_t)(k * plen) ||
	    h->gso_type != VIRTIO_NET_HDR_GSO_TCPV4 || h->gso_size != plen ||
	    h->flags != VIRTIO_NET_HDR_F_NEEDS_CSUM || h->csum_start != 20 ||
	    h->csum_offset != 16 || h->hdr_len != 40)
		return false;
	if (ip[0] != 0x45 || pkt_get16(ip + 2) != 40 + k * plen ||
	    pkt_fold(pkt_sum(ip, 20, 0)) != 0xffff)
		return false;
	for (i = 0; i < k; i++)
		if (memcmp(ip + 40 + i * plen, segs[i].buf + 54, plen))
			return false;
	return true;
}

static void test_tun_rx(struct lane_test *t)
{
	struct pkt_spec s = { .l4 = IPPROTO_UDP, .payload_len = 300,
			      .seed = 61 };
	struct queue *q = &t->q[0];
	struct stats st = q->st;
	unsigned int learnt = rec.learn, i;
	static struct pkt segs[4];
	struct pkt p;

	pkt_build(&s, &p);
	send_ip(&p, 0x0800);
	lane_run(t);
	ok(read_as_packet(tap_read(t, 0), &p) && tap_none(t, 0),
	   "tun: an IPv4 packet in GRE-in-UDP 0x0800 reaches the tun as "
	   "itself after a plain vnet header");
	is_int(rec.learn - learnt, 0, "tun: nothing learnt");
	for (i = 0; i < 4; i++) {
		tcp_seg(&segs[i], i, 1000);
		send_ip(&segs[i], 0x0800);
	}
	lane_run(t);
	ok(merged_packet_ok(tap_read(t, 0), segs, 4, 1000) && tap_none(t, 0),
	   "tun: 4 TCP segments reach the tun as one super-packet: "
	   "GSO_TCPV4, csum_start 20, hdr_len 40, payloads in order");
	ok(q->st.rx_gro_merged - st.rx_gro_merged == 3,
	   "tun: rx_gro_merged 3");
	/* A source outside every route of the peer's. */
	pkt_build(&s, &p);
	inet_pton(AF_INET, "10.99.0.1", p.buf + p.l3_off + 12);
	st = q->st;
	send_ip(&p, 0x0800);
	lane_run(t);
	ok(tap_none(t, 0) && q->st.drop[DROP_RX_SOURCE_ROUTE] -
					   st.drop[DROP_RX_SOURCE_ROUTE] == 1,
	   "tun --strict-source: a source not routed to the peer is dropped "
	   "(rx_drop_source_route)");
	pkt_build(&s, &p);
	send_gre(peer, 0x6558, p.buf, p.len);
	lane_run(t);
	ok(tap_none(t, 0) && q->st.drop[DROP_RX_GRE_PROTO] -
					   st.drop[DROP_RX_GRE_PROTO] == 1,
	   "tun: an Ethernet frame (GRE 0x6558) is dropped "
	   "(rx_drop_gre_proto)");
}

/* A second lane: --mode tun --encap gre-udp --strict-source. */
static void test_tun(void)
{
	char port[8];
	char *argv[] = {
		"unit-rx", "--mode", "tun", "--encap", "gre-udp", "--remote",
		"127.0.0.2", "--local", "127.0.0.1", "--port", port,
		"--strict-source", "--route", "192.0.2.0/24=127.0.0.2", NULL,
	};
	struct lane_test t;
	struct cidr c;

	snprintf(port, sizeof(port), "%u", PORT);
	if (lane_open_tun(&t, (int)(sizeof(argv) / sizeof(argv[0])) - 1,
			  argv) ||
	    optvalue_cidr_parse("192.0.2.0/24", &c) ||
	    route_add(&t.ds[0].routes, &c, t.peers.live[0])) {
		printf("Bail out! cannot set up the tun's lane\n");
		exit(1);
	}
	rx_watch(&t.lane);
	test_tun_rx(&t);
	lane_close(&t);
}

int main(void)
{
	char port[8];
	char *argv[] = {
		"unit-rx", "--remote", "127.0.0.2", "--local", "127.0.0.1",
		"--port", port, "--vni", "1", NULL,
	};
	const uint32_t vnis[] = { 1, 2 };
	struct lane_test t;

	alarm(30);
	snprintf(port, sizeof(port), "%u", PORT);
	lane_netns();
	peer = lane_udp_socket(2, 0);
	stranger = lane_udp_socket(9, 0);
	if (peer < 0 || stranger < 0 ||
	    lane_open(&t, (int)(sizeof(argv) / sizeof(argv[0])) - 1, argv, 2,
		      vnis)) {
		printf("Bail out! cannot set up the lane\n");
		return 1;
	}
	plan(32 + 6 + 4);
	rx_watch(&t.lane);
	test_plain(&t);
	test_merge(&t);
	test_corrupt(&t);
	test_dispatch(&t);
	test_learn(&t);
	test_own_mac(&t);
	test_stranger(&t);
	test_sock_errors(&t);
	test_set_mtu(&t);
	lane_close(&t);
	test_tun();
	close(peer);
	close(stranger);
	return done_testing();
}
