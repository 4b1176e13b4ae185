/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test packet builder: Ethernet [+ VLAN tags] + IPv4 [options] / IPv6 [ext
 * headers] + TCP [options] / UDP + payload, with the vnet header a tap gives.
 */
#ifndef GSOTUN_TESTS_PKT_H
#define GSOTUN_TESTS_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include "base/compat.h"

/* 64 KiB IP datagram + Ethernet, 3 tags and room for trailing bytes. */
#define PKT_MAX (65535 + 14 + 12 + 64)

#define PKT_FIN 0x01
#define PKT_SYN 0x02
#define PKT_RST 0x04
#define PKT_PSH 0x08
#define PKT_ACK 0x10
#define PKT_URG 0x20
#define PKT_ECE 0x40
#define PKT_CWR 0x80

/* What to build. Zero means the ordinary choice everywhere. */
struct pkt_spec {
	int vlans;		/* tags: 1 = 802.1Q; 2 = 802.1ad + 802.1Q */
	bool non_ip;		/* ARP: no IP at all */
	bool ipv6;
	uint8_t l4;		/* IPPROTO_TCP (0 too) / UDP / other: raw */
	uint8_t ip_opt_len;	/* IPv4 options, multiple of 4 */
	bool ip6_hbh;		/* IPv6 hop-by-hop header (8 bytes) */
	uint16_t ip6_dst_len;	/* IPv6 destination options, multiple of 8 */
	bool ip6_frag;		/* IPv6 fragment header before L4 */
	uint16_t ip_frag;	/* IPv4 frag_off field; 0 means DF */
	uint8_t tcp_opt_len;	/* 12 gives NOP, NOP, timestamps */
	uint8_t tcp_flags;	/* 0 means ACK */
	uint32_t seq;
	uint16_t ip_id;
	uint32_t payload_len;
	uint32_t seed;		/* payload pattern */
	uint16_t gso_size;	/* a GSO super-frame when non-zero */
	bool ecn;		/* gso_type ECN bit */
	bool partial;		/* NEEDS_CSUM (always with GSO) */
	uint16_t pad;		/* junk after the IP datagram (Ethernet pad) */
};

/* A built frame and what the builder knows about its layout. */
struct pkt {
	struct virtio_net_hdr vh;
	uint8_t buf[PKT_MAX];
	uint32_t len;		/* frame length, padding included */
	uint16_t l3_off;	/* 0 for non-IP */
	uint16_t l4_off;	/* 0 when no TCP/UDP header */
	uint16_t hdr_len;	/* through the L4 header */
	uint16_t check_off;	/* L4 check field in the frame, 0 if none */
	uint32_t ip_end;	/* end of the IP datagram (or of the frame) */
	uint8_t proto;		/* upper-layer protocol number */
};

static inline void pkt_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pkt_put32(uint8_t *p, uint32_t v)
{
	pkt_put16(p, v >> 16);
	pkt_put16(p + 2, v);
}

static inline uint16_t pkt_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pkt_get32(const uint8_t *p)
{
	return (uint32_t)pkt_get16(p) << 16 | pkt_get16(p + 2);
}

/*
 * Reference checksum, deliberately naive: bytes one at a time as the high
 * or low half of big-endian 16-bit words, a 64-bit accumulator, values in
 * host order. Parity is that of the byte's position in p.
 */
static inline uint64_t pkt_sum(const uint8_t *p, size_t len, uint64_t acc)
{
	size_t i;

	for (i = 0; i < len; i++)
		acc += (i & 1) ? p[i] : (uint64_t)p[i] << 8;
	return acc;
}

static inline uint16_t pkt_fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/*
 * Pseudo-header (RFC 793 / RFC 8200 section 8.1) of the IP header at ip,
 * read from the packet: addresses, protocol, L4 length.
 */
static inline uint64_t pkt_pseudo(const uint8_t *ip, uint8_t proto,
				  uint32_t l4len)
{
	uint64_t acc;

	if (ip[0] >> 4 == 4)
		acc = pkt_sum(ip + 12, 8, 0);
	else
		acc = pkt_sum(ip + 8, 32, 0);
	return acc + proto + (l4len >> 16) + (l4len & 0xffff);
}

/*
 * A library wsum (csum.h: 16-bit words as they lie in memory), folded and
 * read as pkt_fold() gives a sum: RFC 1071's byte-order independence.
 */
static inline uint16_t pkt_wsum16(uint32_t wsum)
{
	uint16_t m = pkt_fold(wsum);
	uint8_t b[2];

	memcpy(b, &m, sizeof(b));
	return pkt_get16(b);
}

/* Equal as one's-complement numbers: 0x0000 and 0xffff are both zero. */
static inline bool pkt_ones_eq(uint16_t a, uint16_t b)
{
	return a == b || ((a == 0 || a == 0xffff) && (b == 0 || b == 0xffff));
}

/* Value for an IPv4 header checksum field (field must be zero). */
static inline uint16_t pkt_ip4_check(const uint8_t *ip)
{
	return (uint16_t)~pkt_fold(pkt_sum(ip, (ip[0] & 15) * 4u, 0));
}

/* Deterministic junk: a 32-bit LCG, one byte from the high bits. */
static inline void pkt_fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 12345;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1664525u + 1013904223u;
		p[i] = (uint8_t)(x >> 24);
	}
}

static inline uint32_t pkt_eth(const struct pkt_spec *s, uint8_t *b)
{
	static const uint8_t macs[12] = { 0x02, 0, 0, 0, 0, 0x02,
					  0x02, 0, 0, 0, 0, 0x01 };
	uint32_t off = 12;
	int i;

	memcpy(b, macs, sizeof(macs));
	for (i = 0; i < s->vlans; i++) {
		pkt_put16(b + off, i == 0 && s->vlans > 1 ? 0x88a8 : 0x8100);
		pkt_put16(b + off + 2, 100 + i);
		off += 4;
	}
	if (s->non_ip)
		pkt_put16(b + off, 0x0806);
	else
		pkt_put16(b + off, s->ipv6 ? 0x86dd : 0x0800);
	return off + 2;
}

/* IPv4 header without lengths/checksum; returns its length. */
static inline uint32_t pkt_ip4(const struct pkt_spec *s, uint8_t *ip,
			       uint8_t proto)
{
	static const uint8_t addrs[8] = { 192, 0, 2, 1, 198, 51, 100, 2 };
	uint32_t ihl = 20 + s->ip_opt_len;

	memset(ip, 0, ihl);
	ip[0] = (uint8_t)(0x40 | ihl / 4);
	pkt_put16(ip + 4, s->ip_id);
	pkt_put16(ip + 6, s->ip_frag ? s->ip_frag : 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, addrs, sizeof(addrs));
	/* Options: NOPs, then end of list. */
	memset(ip + 20, 1, s->ip_opt_len);
	if (s->ip_opt_len)
		ip[ihl - 1] = 0;
	return ihl;
}

/* An extension header of len bytes padded with PadN options. */
static inline void pkt_ip6_ext(uint8_t *h, uint32_t len, uint8_t next)
{
	uint32_t off = 2;

	memset(h, 0, len);
	h[0] = next;
	h[1] = (uint8_t)(len / 8 - 1);
	while (len - off >= 2) {
		uint32_t n = len - off - 2 > 255 ? 255 : len - off - 2;

		h[off] = 1;
		h[off + 1] = (uint8_t)n;
		off += 2 + n;
	}
}

/* IPv6 header and extension headers; returns their length. */
static inline uint32_t pkt_ip6(const struct pkt_spec *s, uint8_t *ip,
			       uint8_t proto)
{
	uint32_t off = 40;
	uint8_t *next = ip + 6;

	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[7] = 64;
	ip[8] = 0x20;
	ip[9] = 0x01;
	ip[10] = 0x0d;
	ip[11] = 0xb8;
	ip[23] = 1;
	memcpy(ip + 24, ip + 8, 15);
	ip[39] = 2;
	if (s->ip6_hbh) {
		*next = IPPROTO_HOPOPTS;
		next = ip + off;
		pkt_ip6_ext(ip + off, 8, 0);
		off += 8;
	}
	if (s->ip6_dst_len) {
		*next = IPPROTO_DSTOPTS;
		next = ip + off;
		pkt_ip6_ext(ip + off, s->ip6_dst_len, 0);
		off += s->ip6_dst_len;
	}
	if (s->ip6_frag) {
		*next = IPPROTO_FRAGMENT;
		next = ip + off;
		memset(ip + off, 0, 8);
		ip[off + 3] = 1;	/* M: more fragments */
		pkt_put32(ip + off + 4, 0x1234);
		off += 8;
	}
	*next = proto;
	return off;
}

/* TCP or UDP header with a zero check field; returns its length. */
static inline uint32_t pkt_l4(const struct pkt_spec *s, uint8_t *l4,
			      uint8_t proto, uint32_t l4len)
{
	uint32_t hlen = 20 + s->tcp_opt_len, i;

	if (proto == IPPROTO_UDP) {
		memset(l4, 0, 8);
		pkt_put16(l4, 40001);
		pkt_put16(l4 + 2, 4433);
		pkt_put16(l4 + 4, l4len);
		return 8;
	}
	memset(l4, 0, hlen);
	pkt_put16(l4, 40000);
	pkt_put16(l4 + 2, 5201);
	pkt_put32(l4 + 4, s->seq);
	pkt_put32(l4 + 8, 0x01020304);
	l4[12] = (uint8_t)(hlen / 4 << 4);
	l4[13] = s->tcp_flags ? s->tcp_flags : PKT_ACK;
	pkt_put16(l4 + 14, 502);
	for (i = 20; i < hlen; i++)
		l4[i] = 1;
	if (s->tcp_opt_len == 12) {
		l4[22] = 8;
		l4[23] = 10;
		pkt_put32(l4 + 24, 0xaabbccdd);
		pkt_put32(l4 + 28, 0x11223344);
	}
	return hlen;
}

/*
 * The L4 check field as a tap leaves it: NEEDS_CSUM frames carry the folded,
 * non-inverted pseudo-header sum over the whole L4 length; others a full
 * checksum (raw protocols: over the payload, ICMP style, no pseudo-header).
 */
static inline void pkt_l4_csum(const struct pkt_spec *s, struct pkt *p)
{
	const uint8_t *ip = p->buf + p->l3_off;
	uint32_t start = p->l4_off ? p->l4_off : p->hdr_len;
	uint32_t l4len = p->ip_end - start;
	uint64_t acc = 0;

	if (p->l4_off)
		acc = pkt_pseudo(ip, p->proto, l4len);
	if (s->partial || s->gso_size) {
		if (p->l4_off)
			pkt_put16(p->buf + p->check_off, pkt_fold(acc));
		return;
	}
	if (p->check_off + 2u > p->ip_end)
		return;
	pkt_put16(p->buf + p->check_off, 0);
	acc = pkt_sum(p->buf + start, l4len, acc);
	pkt_put16(p->buf + p->check_off, (uint16_t)~pkt_fold(acc));
}

static inline void pkt_vnet(const struct pkt_spec *s, struct pkt *p)
{
	memset(&p->vh, 0, sizeof(p->vh));
	if (s->partial || s->gso_size) {
		p->vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		p->vh.csum_start = p->l4_off ? p->l4_off : p->hdr_len;
		p->vh.csum_offset = (uint16_t)(p->check_off - p->vh.csum_start);
	}
	if (!s->gso_size)
		return;
	if (p->proto == IPPROTO_UDP)
		p->vh.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
	else if (s->ipv6)
		p->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	else
		p->vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	if (s->ecn)
		p->vh.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	p->vh.gso_size = s->gso_size;
	p->vh.hdr_len = p->hdr_len;
}

static inline void pkt_arp(const struct pkt_spec *s, struct pkt *p,
			   uint32_t off)
{
	p->l3_off = 0;
	p->l4_off = 0;
	p->hdr_len = 0;
	p->check_off = 0;
	p->proto = 0;
	pkt_fill(p->buf + off, s->payload_len, s->seed);
	p->ip_end = off + s->payload_len;
}

/*
 * Build the frame spec describes into p. Raw (non TCP/UDP) protocols with
 * partial get csum_start at the payload and csum_offset 2 (ICMP), the
 * field seeded 0. Returns the frame length.
 */
static inline uint32_t pkt_build(const struct pkt_spec *s, struct pkt *p)
{
	uint8_t proto = s->l4 ? s->l4 : IPPROTO_TCP;
	bool l4 = proto == IPPROTO_TCP || proto == IPPROTO_UDP;
	uint32_t off, l3len, l4hlen = 0;
	uint8_t *ip;

	memset(p, 0, sizeof(*p));
	off = pkt_eth(s, p->buf);
	if (s->non_ip) {
		pkt_arp(s, p, off);
		goto out;
	}
	p->proto = proto;
	p->l3_off = (uint16_t)off;
	ip = p->buf + off;
	l3len = s->ipv6 ? pkt_ip6(s, ip, proto) : pkt_ip4(s, ip, proto);
	off += l3len;
	if (l4) {
		uint32_t l4len = s->payload_len;

		if (proto == IPPROTO_UDP)
			l4len += 8;
		p->l4_off = (uint16_t)off;
		l4hlen = pkt_l4(s, p->buf + off, proto, l4len);
		p->check_off = p->l4_off + (proto == IPPROTO_UDP ? 6 : 16);
	} else {
		p->check_off = (uint16_t)(off + 2);
	}
	p->hdr_len = (uint16_t)(off + l4hlen);
	off += l4hlen;
	pkt_fill(p->buf + off, s->payload_len, s->seed);
	/* ICMP style: type, code and a zero seed for the check field. */
	if (!l4 && s->partial)
		memset(p->buf + off, 0,
		       s->payload_len < 4 ? s->payload_len : 4);
	p->ip_end = off + s->payload_len;
	if (s->ipv6) {
		pkt_put16(ip + 4, p->ip_end - p->l3_off - 40);
	} else {
		pkt_put16(ip + 2, p->ip_end - p->l3_off);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	}
	pkt_l4_csum(s, p);
out:
	pkt_fill(p->buf + p->ip_end, s->pad, ~s->seed);
	p->len = p->ip_end + s->pad;
	pkt_vnet(s, p);
	return p->len;
}

/*
 * p as a tun reads it (--mode tun, IFF_NO_PI): the IP packet without its
 * link header, every offset and the vnet header's moved with it, so that
 * what holds of the frame's offsets holds of the packet's. p must be IP.
 */
static inline uint32_t pkt_to_ip(struct pkt *p)
{
	uint16_t l3 = p->l3_off;

	memmove(p->buf, p->buf + l3, p->len - l3);
	p->len -= l3;
	p->ip_end -= l3;
	p->l3_off = 0;
	if (p->l4_off)
		p->l4_off = (uint16_t)(p->l4_off - l3);
	p->hdr_len = (uint16_t)(p->hdr_len - l3);
	p->check_off = (uint16_t)(p->check_off - l3);
	if (p->vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		p->vh.csum_start = (uint16_t)(p->vh.csum_start - l3);
	if (p->vh.hdr_len)
		p->vh.hdr_len = (uint16_t)(p->vh.hdr_len - l3);
	return p->len;
}

/* pkt_build() of a tun's packet: spec's frame without its link header. */
static inline uint32_t pkt_build_ip(const struct pkt_spec *s, struct pkt *p)
{
	pkt_build(s, p);
	return pkt_to_ip(p);
}

#endif
