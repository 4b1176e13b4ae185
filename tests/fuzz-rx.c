// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the receive path: batches of encapsulated packets
 * through decap_packet() (encap_parse(), encap_ecn_decap(), gro_add()) and
 * gro_flush(), as rx.c drives them; every outcome checked against
 * references written here, every frame checked.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "base/stats.h"
#include "pkt/gro.h"
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "encap/decap.h"
#include "encap/encap.h"
#include "fuzz-input.h"
#include "fuzz.h"
#include "pkt.h"

/*
 * Input:
 *   byte 0      bits 0-1: encapsulation (0 VXLAN, 1 GRE, 2 GRE-in-UDP,
 *               3 VXLAN-GPE); bit 2: GRE key; bit 3: GRE checksum
 *               required; bit 4: GRE sequence numbers; bit 5: GRO
 *               merging off; bit 6: UDP datagrams merged too (a tap with
 *               USO); bit 7: --mode tun, IP packets inside, no Ethernet
 *               (VXLAN, which carries none, becomes VXLAN-GPE:
 *               fuzz_encap_fit())
 *   bytes 1-2   the tap's MTU, big-endian (0 means 1500, at least 68)
 *   bytes 3-5   VNI
 *   bytes 6-9   GRE key
 *   then records: ctl (1 byte), length (2, big-endian), the packet as
 *   encap_parse() gets it (outer IP and UDP stripped); a length past the
 *   end of the input takes what is left.
 *   ctl bit 0: fix the packet's checksums first (inner IPv4 header and
 *   lengths that lie, inner TCP/UDP, GRE), so mutations get past them;
 *   bit 1: with bit 0, seed the inner TCP/UDP check field with the
 *   pseudo-header sum (a sender's partial checksum) instead;
 *   bit 2: the batch ends after this packet (flush, check, reset);
 *   bits 3-4: the outer header's ECN field (encap_ecn_decap()).
 * A batch that fills gro is flushed and the inner frame added again
 * (decap_again()), as rx.c does with GRO_FULL.
 */
#define RX_CFG_LEN 10
#define RX_REC_LEN 3
#define RX_MAX_PKTS 1024


#define RX_GRE_C 0x8000
#define RX_GRE_K 0x2000
#define RX_GRE_S 0x1000
#define RX_GRE_VERSION 0x0007
/* Bits 1-12 but K and S: RFC 2784 section 2.1 (RFC 1701's routing too). */
#define RX_GRE_FLAGS 0x4ff8

/*
 * tcp_gro_receive(): flags that end a run, flags a segment may differ in
 * (CWR not since AccECN, Linux 6.15: and a segment with CWR joins none).
 */
#define RX_TCP_FLUSH (PKT_URG | PKT_PSH | PKT_RST | PKT_SYN | PKT_FIN)
#define RX_TCP_FREE (PKT_FIN | PKT_PSH)

/* One packet of the input, in a buffer of exactly its size. */
struct rx_pkt {
	uint8_t *buf;
	/* its bytes before gro_add() saw them: the input's, then the ECN's */
	uint8_t *orig;
	size_t len;
	size_t inner_off;
	bool ok;		/* encap_parse() took it */
	bool added;		/* given to gro_add() */
	bool bad;		/* counted in inner_csum_bad */
	enum gro_result res;
	unsigned int uses;	/* slices of the batch's frames inside it */
};

/*
 * The counters, kept as rx.c keeps them (drop[] by the reason
 * decap_packet() gives, CE marks), beside what the references here say
 * they must be.
 */
struct rx_ctx {
	struct encap_cfg cfg;
	struct rx_pkt pkts[RX_MAX_PKTS];
	unsigned int n_pkts;
	unsigned int batch;	/* first packet of the batch */
	unsigned int queued;	/* GRO_QUEUED since the last reset */
	unsigned int merged;	/* GRO_MERGED since the last reset */
	uint64_t n_merged;	/* all GRO_MERGED */
	uint64_t n_bad;		/* all TCP segments with a wrong checksum */
	uint64_t n_seed;	/* all segments whose check held the seed */
	uint64_t n_gso;		/* all frames written with a GSO header */
	uint64_t n_ce, want_ce;
	uint64_t drop[DROP__MAX], want_drop[DROP__MAX];
};

/* Where the headers of an inner frame are, found independently of vnet.c. */
struct rx_layout {
	uint32_t l3;
	uint32_t l4;		/* 0: no TCP/UDP header to look at */
	uint32_t end;		/* end of the IP datagram */
	uint16_t check;		/* the L4 check field */
	uint8_t proto;
	bool routed;		/* an IPv6 routing header with segments left */
};

/* What an L4 check field says, by rx_verdict(). */
enum rx_csum {
	RX_CSUM_NONE = 0,	/* nothing gro.c verifies */
	RX_CSUM_GOOD,		/* TCP, or UDP that may merge: verified */
	RX_CSUM_SEED,		/* TCP or UDP, the pseudo-header seed */
	RX_CSUM_BAD,		/* TCP, or UDP that may merge: neither */
};

/* A TCP segment or UDP datagram, as the walk finds it in its bytes. */
struct rx_tcp {
	uint8_t *o;
	uint32_t len;
	struct rx_layout l;
	uint32_t hl;		/* headers, through TCP's or UDP's */
	uint32_t plen;
	uint32_t seq;
	uint8_t flags;
};

static struct gro G;
static struct rx_ctx X;
static uint8_t arena[VNET_MAX_SEGS * GSO_SLOT];
static struct seg segs[VNET_MAX_SEGS];
static uint8_t segbuf[VNET_FRAME_MAX];
/* A packet as RFC 6040 leaves it (rx_ecn_ref()); records are < 64 KiB. */
static uint8_t ecn_want[65536];

/* ---- an independent walk through an inner frame ------------------------ */

/* What the walk found: vnet_hdr_parse()'s verdict, reached another way. */
enum rx_walk_res {
	RX_NOT_IP = 0,	/* no IP header (or a VLAN tag cut short) */
	RX_BAD,		/* IP, but headers that lie or are cut short */
	RX_IP,		/* IP; l4 set when a TCP/UDP header is there */
};

/* RFC 791: ihl >= 5, ihl <= total length <= what the frame holds. */
static int rx_walk_ip4(uint8_t *d, size_t len, bool fix, struct rx_layout *l)
{
	uint8_t *ip = d + l->l3;
	uint32_t room = (uint32_t)len - l->l3, ihl, tot;

	if (room < 20 || ip[0] >> 4 != 4)
		return RX_BAD;
	ihl = (ip[0] & 15) * 4u;
	if (ihl < 20 || ihl > room)
		return RX_BAD;
	tot = pkt_get16(ip + 2);
	if (tot < ihl || tot > room) {
		if (!fix)
			return RX_BAD;
		tot = room > 0xffff ? 0xffff : room;
		pkt_put16(ip + 2, tot);
	}
	if (fix) {
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	}
	l->end = l->l3 + tot;
	l->proto = ip[9];
	if (!(pkt_get16(ip + 6) & 0x3fff))
		l->l4 = l->l3 + ihl;
	return RX_IP;
}

/* IPv6 and the extension headers vnet.c skips (RFC 8200 section 4). */
static int rx_walk_ip6(uint8_t *d, size_t len, bool fix, struct rx_layout *l)
{
	uint8_t *ip = d + l->l3;
	uint32_t room = (uint32_t)len - l->l3, plen, off, hl;

	if (room < 40 || ip[0] >> 4 != 6)
		return RX_BAD;
	plen = pkt_get16(ip + 4);
	if (plen > room - 40) {
		if (!fix)
			return RX_BAD;
		plen = room - 40 > 0xffff ? 0xffff : room - 40;
		pkt_put16(ip + 4, plen);
	}
	l->end = l->l3 + 40 + plen;
	l->proto = ip[6];
	off = l->l3 + 40;
	while (l->proto == IPPROTO_HOPOPTS || l->proto == IPPROTO_ROUTING ||
	       l->proto == IPPROTO_DSTOPTS) {
		if (l->end - off < 8)
			return RX_BAD;
		hl = (d[off + 1] + 1u) * 8;
		if (l->end - off < hl)
			return RX_BAD;
		/* RFC 8200 section 8.1: not yet at its final destination. */
		if (l->proto == IPPROTO_ROUTING && d[off + 3])
			l->routed = true;
		l->proto = d[off];
		off += hl;
	}
	if (l->proto == IPPROTO_FRAGMENT) {
		if (l->end - off < 8)
			return RX_BAD;
		return RX_IP;
	}
	l->l4 = off;
	return RX_IP;
}

/* TCP with 5 <= doff <= what is there, or UDP, inside the datagram. */
static int rx_walk_l4(const uint8_t *d, struct rx_layout *l)
{
	uint32_t room = l->end - l->l4, hl;

	if (!l->l4)
		return RX_IP;
	if (l->proto == IPPROTO_TCP) {
		if (room < 20)
			return RX_BAD;
		hl = (d[l->l4 + 12] >> 4) * 4u;
		if (hl < 20 || hl > room || l->l4 + hl > 0xffff)
			return RX_BAD;
		l->check = (uint16_t)(l->l4 + 16);
		return RX_IP;
	}
	if (l->proto == IPPROTO_UDP) {
		if (room < 8 || l->l4 + 8 > 0xffff)
			return RX_BAD;
		l->check = (uint16_t)(l->l4 + 6);
		return RX_IP;
	}
	l->l4 = 0;
	return RX_IP;
}

/*
 * The family of a tun's packet, by its version nibble (tun_get_user()):
 * a tun takes nothing else, so anything else is a bad header.
 */
static int rx_walk_tun(const uint8_t *d, size_t len, uint16_t *type)
{
	if (len && d[0] >> 4 == 4)
		*type = 0x0800;
	else if (len && d[0] >> 4 == 6)
		*type = 0x86dd;
	else
		return RX_BAD;
	return RX_IP;
}

/*
 * Ethernet, up to two VLAN tags (as vnet.c), or a tun's bare IP packet
 * (the tunnel's l3); IPv4 or IPv6, TCP or UDP.
 */
static int rx_walk(uint8_t *d, size_t len, bool fix, struct rx_layout *l)
{
	uint16_t type;
	int res;

	memset(l, 0, sizeof(*l));
	if (X.cfg.l3) {
		if (rx_walk_tun(d, len, &type) != RX_IP)
			return RX_BAD;
	} else {
		l->l3 = fuzz_l3_off(d, len, &type);
		if (!l->l3)
			return RX_NOT_IP;
	}
	if (type == 0x0800)
		res = rx_walk_ip4(d, len, fix, l);
	else if (type == 0x86dd)
		res = rx_walk_ip6(d, len, fix, l);
	else
		return RX_NOT_IP;
	if (res == RX_IP)
		res = rx_walk_l4(d, l);
	if (res != RX_IP)
		l->l4 = 0;
	return res;
}

/* Pseudo-header sum of the L4 header at l, host order (pkt.h's way). */
static uint64_t rx_pseudo(const uint8_t *d, const struct rx_layout *l)
{
	return pkt_pseudo(d + l->l3, l->proto, l->end - l->l4);
}

static bool rx_l4_valid(const uint8_t *d, const struct rx_layout *l)
{
	return pkt_fold(rx_pseudo(d, l) +
			pkt_sum(d + l->l4, l->end - l->l4, 0)) == 0xffff;
}

static bool rx_ip4_valid(const uint8_t *d, const struct rx_layout *l)
{
	return pkt_fold(pkt_sum(d + l->l3, (d[l->l3] & 15) * 4u, 0)) == 0xffff;
}

static bool rx_l4_seeded(const uint8_t *d, const struct rx_layout *l)
{
	return pkt_get16(d + l->check) == pkt_fold(rx_pseudo(d, l));
}

/*
 * A UDP datagram gro.c may merge (udp_gro_receive_segment(), and the
 * issue's stricter rules): merging on, data, a UDP length that is the
 * datagram's, no Ethernet padding, within the tap's MTU, IPv4 without
 * options or fragment bits and with a valid header checksum, IPv6
 * without extension headers, and a checksum (over IPv4, 0 is none).
 */
static bool rx_udp_mergeable(const uint8_t *o, uint32_t len,
			     const struct rx_layout *l)
{
	const uint8_t *ip = o + l->l3;

	if (!G.merge_udp || l->proto != IPPROTO_UDP || l->end - l->l4 <= 8)
		return false;
	if (pkt_get16(o + l->l4 + 4) != l->end - l->l4 || l->end != len ||
	    l->end - l->l3 > G.mtu)
		return false;
	if (ip[0] >> 4 == 6)
		return l->l4 - l->l3 == 40;
	return ip[0] == 0x45 && !(pkt_get16(ip + 6) & ~0x4000) &&
	       rx_ip4_valid(o, l) && pkt_get16(o + l->check) != 0;
}

/* What gro.c is to make of the packet's check field (gro.h, integrity). */
static enum rx_csum rx_verdict(const struct rx_pkt *p)
{
	uint8_t *o = p->orig + p->inner_off;
	uint32_t len = (uint32_t)(p->len - p->inner_off);
	struct rx_layout l;

	if (rx_walk(o, len, false, &l) != RX_IP || !l.l4 || l.routed)
		return RX_CSUM_NONE;
	if (rx_l4_seeded(o, &l))
		return RX_CSUM_SEED;
	if (l.proto != IPPROTO_TCP && !rx_udp_mergeable(o, len, &l))
		return RX_CSUM_NONE;
	return rx_l4_valid(o, &l) ? RX_CSUM_GOOD : RX_CSUM_BAD;
}

/* ---- fixing checksums so that mutated packets get through --------------- */

static void rx_fix_inner(uint8_t *d, size_t len, bool seed)
{
	struct rx_layout l;

	if (rx_walk(d, len, true, &l) != RX_IP || !l.l4)
		return;
	pkt_put16(d + l.check, 0);
	if (seed)
		pkt_put16(d + l.check, pkt_fold(rx_pseudo(d, &l)));
	else
		pkt_put16(d + l.check,
			  (uint16_t)~pkt_fold(rx_pseudo(d, &l) +
					      pkt_sum(d + l.l4, l.end - l.l4,
						      0)));
}

static size_t rx_gre_hlen(uint16_t flags)
{
	return 4 + (flags & RX_GRE_C ? 4 : 0) + (flags & RX_GRE_K ? 4 : 0) +
	       (flags & RX_GRE_S ? 4 : 0);
}

static void rx_fix(const struct encap_cfg *c, uint8_t *p, size_t len,
		   bool seed)
{
	bool gre = fuzz_hdr_of(c->type) == FUZZ_HDR_GRE;
	size_t hlen = 8;
	uint16_t flags = 0;

	if (gre) {
		if (len < 4)
			return;
		flags = pkt_get16(p);
		hlen = rx_gre_hlen(flags);
	}
	if (len < hlen)
		return;
	rx_fix_inner(p + hlen, len - hlen, seed);
	/* RFC 2784 section 2.2: over the GRE header and the payload. */
	if (gre && (flags & RX_GRE_C)) {
		pkt_put16(p + 4, 0);
		pkt_put16(p + 4, (uint16_t)~pkt_fold(pkt_sum(p, len, 0)));
	}
}

/* ---- encap_parse() against a reference ---------------------------------- */

/*
 * RFC 7348 section 5, dropping reserved bits as vxlan_rcv() does: the I
 * flag, the VNI, then the rest; an inner frame needs an Ethernet header.
 */
static enum drop rx_ref_vxlan(const struct encap_cfg *c, const uint8_t *p,
			      size_t len)
{
	if (len < 8)
		return DROP_RX_SHORT;
	if (!(p[0] & 0x08))
		return DROP_RX_FLAGS;
	if (pkt_get32(p + 4) >> 8 != (c->vni & 0xffffff))
		return DROP_RX_VNI;
	if (pkt_get32(p) != 0x08000000 || p[7])
		return DROP_RX_FLAGS;
	return len < 8 + 14 ? DROP_RX_INNER_SHORT : DROP_NONE;
}

/*
 * What the payload must be once the header said what it carries: an
 * Ethernet header (a tap's frame), or an IPv4 header's worth of the IP
 * version the header named (ip_rcv_core() drops another as a header
 * error); version 0 here: Ethernet.
 */
static enum drop rx_ref_inner(const struct encap_cfg *c, const uint8_t *in,
			      size_t len, unsigned int version)
{
	if (len < (c->l3 ? 20u : 14u))
		return DROP_RX_INNER_SHORT;
	if (c->l3 && in[0] >> 4 != version)
		return DROP_RX_INNER_HDR;
	return DROP_NONE;
}

/*
 * draft-ietf-nvo3-vxlan-gpe-12 section 3, in vxlan_rcv()'s order: the I
 * flag, the VNI, P set with version 0 and no O (OAM) bit, a next
 * protocol the kernel knows (1 to 5), no other bit; then one the mode
 * carries: 3, Ethernet, in a tap; 1 (IPv4) or 2 (IPv6) in a tun.
 */
static enum drop rx_ref_gpe(const struct encap_cfg *c, const uint8_t *p,
			    size_t len)
{
	uint32_t w0, np;
	unsigned int version = 0;

	if (len < 8)
		return DROP_RX_SHORT;
	w0 = pkt_get32(p);
	np = w0 & 0xff;
	if (!(w0 & 0x08000000))
		return DROP_RX_FLAGS;
	if (pkt_get32(p + 4) >> 8 != (c->vni & 0xffffff))
		return DROP_RX_VNI;
	if (!(w0 & 0x04000000) || (w0 & 0x30000000) || (w0 & 0x01000000))
		return DROP_RX_GPE_FLAGS;
	if (np < 1 || np > 5)
		return DROP_RX_GPE_PROTO;
	if ((w0 & 0xc2ffff00) || p[7])
		return DROP_RX_FLAGS;
	if (c->l3 && (np == 1 || np == 2))
		version = np == 1 ? 4 : 6;
	else if (c->l3 || np != 3)
		return DROP_RX_GPE_PROTO;
	return rx_ref_inner(c, p + 8, len - 8, version);
}

/*
 * RFC 2784 and RFC 2890, as encap.c says the receiver checks them, in
 * the kernel's order: version, flags, length, checksum, protocol, key, a
 * checksum the tunnel requires, an inner Ethernet header.
 */
static enum drop rx_ref_gre(const struct encap_cfg *c, const uint8_t *p,
			    size_t len)
{
	unsigned int version = 0;
	uint16_t flags;
	size_t hlen;

	if (len < 4)
		return DROP_RX_SHORT;
	flags = pkt_get16(p);
	if (flags & RX_GRE_VERSION)
		return DROP_RX_GRE_VERSION;
	if (flags & RX_GRE_FLAGS)
		return DROP_RX_GRE_FLAGS;
	hlen = rx_gre_hlen(flags);
	if (len < hlen)
		return DROP_RX_SHORT;
	if ((flags & RX_GRE_C) && pkt_fold(pkt_sum(p, len, 0)) != 0xffff)
		return DROP_RX_CSUM;
	/* TEB in a tap, an IP ethertype in a tun (ipgre_rcv(), RFC 2784) */
	if (c->l3 && pkt_get16(p + 2) == 0x0800)
		version = 4;
	else if (c->l3 && pkt_get16(p + 2) == 0x86dd)
		version = 6;
	else if (c->l3 || pkt_get16(p + 2) != 0x6558)
		return DROP_RX_GRE_PROTO;
	if (!(flags & RX_GRE_K) != !c->has_key)
		return DROP_RX_KEY;
	if (c->has_key &&
	    pkt_get32(p + (flags & RX_GRE_C ? 8 : 4)) != c->key)
		return DROP_RX_KEY;
	if (c->gre_csum && !(flags & RX_GRE_C))
		return DROP_RX_CSUM_MISSING;
	return rx_ref_inner(c, p + hlen, len - hlen, version);
}

/*
 * The VNI or GRE key a packet carries, the tap rx.c's rx_queue() gives
 * it to (encap_peek_id()): against the bytes, and for a packet that
 * encap_parse() takes, the tunnel's own (a GRE packet without a key only
 * for a tunnel without one).
 */
static void rx_peek_id(const struct encap_cfg *c, const struct rx_pkt *p,
		       enum drop err)
{
	bool gre = fuzz_hdr_of(c->type) == FUZZ_HDR_GRE, has, want;
	size_t off = 4;
	uint32_t id = 0;

	has = encap_peek_id(c->type, p->buf, p->len, &id);
	if (!gre) {
		want = p->len >= 8;
		FUZZ_CHECK(has == want);
		if (has)
			FUZZ_CHECK(id == pkt_get32(p->buf + 4) >> 8);
	} else {
		if (p->len >= 4 && (pkt_get16(p->buf) & RX_GRE_C))
			off = 8;
		want = p->len >= 4 && (pkt_get16(p->buf) & RX_GRE_K) &&
		       p->len >= off + 4;
		FUZZ_CHECK(has == want);
		if (has)
			FUZZ_CHECK(id == pkt_get32(p->buf + off));
	}
	if (err)
		return;
	if (gre)
		FUZZ_CHECK(has == c->has_key && (!has || id == c->key));
	else
		FUZZ_CHECK(has && id == (c->vni & 0xffffff));
}

/*
 * encap_parse() on its own, against the reference: the reason it gives,
 * where the inner frame starts, and with a GRE checksum the sum of the
 * inner frame. Returns the reason.
 */
static enum drop rx_encap(const struct encap_cfg *c, struct rx_pkt *p)
{
	enum fuzz_hdr kind = fuzz_hdr_of(c->type);
	bool gre = kind == FUZZ_HDR_GRE;
	struct encap_rx rx;
	enum drop err, want;
	size_t off;

	err = encap_parse(c, p->buf, p->len, &rx);
	if (gre)
		want = rx_ref_gre(c, p->buf, p->len);
	else if (kind == FUZZ_HDR_GPE)
		want = rx_ref_gpe(c, p->buf, p->len);
	else
		want = rx_ref_vxlan(c, p->buf, p->len);
	FUZZ_CHECK(err == want);
	rx_peek_id(c, p, err);
	if (err)
		return err;
	off = rx.inner_off;
	FUZZ_CHECK(off == (gre ? rx_gre_hlen(pkt_get16(p->buf)) : 8));
	FUZZ_CHECK(rx.sum_valid == (gre && (pkt_get16(p->buf) & RX_GRE_C)));
	if (rx.sum_valid)
		FUZZ_CHECK(pkt_ones_eq(pkt_wsum16(rx.inner_sum),
				       pkt_fold(pkt_sum(p->buf + off,
							p->len - off, 0))));
	p->inner_off = off;
	p->ok = true;
	return DROP_NONE;
}

/* ---- RFC 6040 decapsulation --------------------------------------------- */

/*
 * RFC 6040 section 4.2 from the inner frame's own bytes, into ecn_want:
 * under an outer CE an IP packet (one the walk takes, as gro does) that
 * is not ECN-capable is dropped, an ECT one marked CE (an IPv4 header
 * checksum updated as RFC 1624 equation 3 says, so a wrong one stays as
 * wrong), a CE one left; nothing else changes anything.
 */
static enum encap_ecn rx_ecn_ref(const struct rx_pkt *p, uint8_t ecn)
{
	uint8_t *f = ecn_want + p->inner_off, *ip, inner;
	struct rx_layout l;
	uint16_t old;
	bool v4;

	memcpy(ecn_want, p->orig, p->len);
	if (ecn != ECN_CE ||
	    rx_walk(f, p->len - p->inner_off, false, &l) != RX_IP)
		return ENCAP_ECN_KEEP;
	ip = f + l.l3;
	v4 = ip[0] >> 4 == 4;
	inner = v4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
	if (inner == ECN_NOT_ECT)
		return ENCAP_ECN_DROP;
	if (inner == ECN_CE)
		return ENCAP_ECN_KEEP;
	if (!v4) {
		ip[1] |= ECN_CE << 4;
		return ENCAP_ECN_MARK;
	}
	old = pkt_get16(ip);
	ip[1] |= ECN_CE;
	pkt_put16(ip + 10, (uint16_t)~pkt_fold((uint16_t)~pkt_get16(ip + 10) +
						(uint16_t)~old +
						pkt_get16(ip)));
	return ENCAP_ECN_MARK;
}

/*
 * What decap_packet() left in a packet it gave to gro: the reference's
 * bytes, but for the L4 check field gro may reseed and an IPv4 header
 * checksum that need only be the same one's-complement number. They
 * become the packet's bytes before gro (p->orig), for the checks after.
 */
static void rx_ecn_check(struct rx_pkt *p, enum encap_ecn e)
{
	size_t i, ip4_ck = 0, l4_ck = 0;
	uint8_t *f = ecn_want + p->inner_off;
	struct rx_layout l;

	if (rx_walk(f, p->len - p->inner_off, false, &l) == RX_IP) {
		if (e == ENCAP_ECN_MARK && f[l.l3] >> 4 == 4)
			ip4_ck = p->inner_off + l.l3 + 10;
		if (l.l4)
			l4_ck = p->inner_off + l.check;
	}
	for (i = 0; i < p->len; i++) {
		if (p->buf[i] == ecn_want[i])
			continue;
		FUZZ_CHECK((l4_ck && (i == l4_ck || i == l4_ck + 1)) ||
			   (ip4_ck && (i == ip4_ck || i == ip4_ck + 1)));
	}
	memcpy(p->orig, ecn_want, p->len);
	if (ip4_ck) {
		FUZZ_CHECK(pkt_ones_eq(pkt_get16(p->buf + ip4_ck),
				       pkt_get16(ecn_want + ip4_ck)));
		memcpy(p->orig + ip4_ck, p->buf + ip4_ck, 2);
	}
}

/* ---- the frames gro produced -------------------------------------------- */

/* The packet of this batch whose inner frame holds [base, base + len). */
static struct rx_pkt *rx_owner(struct rx_ctx *x, const struct iovec *v)
{
	uintptr_t b = (uintptr_t)v->iov_base;
	unsigned int i;

	for (i = x->batch; i < x->n_pkts; i++) {
		struct rx_pkt *p = &x->pkts[i];
		uintptr_t lo = (uintptr_t)(p->buf + p->inner_off);
		uintptr_t hi = (uintptr_t)(p->buf + p->len);

		if (p->added && b >= lo && b < hi && v->iov_len <= hi - b)
			return p;
	}
	return NULL;
}

static void rx_check_vnet(const struct virtio_net_hdr *h, uint32_t len)
{
	uint8_t base = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;

	FUZZ_CHECK(!(h->flags & ~VIRTIO_NET_HDR_F_NEEDS_CSUM));
	FUZZ_CHECK(base == VIRTIO_NET_HDR_GSO_NONE ||
		 base == VIRTIO_NET_HDR_GSO_TCPV4 ||
		 base == VIRTIO_NET_HDR_GSO_TCPV6 ||
		 (base == VIRTIO_NET_HDR_GSO_UDP_L4 && G.merge_udp));
	FUZZ_CHECK(base || !(h->gso_type & VIRTIO_NET_HDR_GSO_ECN));
	FUZZ_CHECK(base != VIRTIO_NET_HDR_GSO_UDP_L4 ||
		   !(h->gso_type & VIRTIO_NET_HDR_GSO_ECN));
	if (base) {
		FUZZ_CHECK(h->gso_size > 0);
		FUZZ_CHECK(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM);
		FUZZ_CHECK(h->hdr_len > h->csum_start && h->hdr_len <= len);
	}
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		/* Past the link header, or a tun's smallest IP header. */
		FUZZ_CHECK(h->csum_start >= (G.l3 ? 20 : 14));
		FUZZ_CHECK((uint32_t)h->csum_start + h->csum_offset + 2 <= len);
	} else {
		FUZZ_CHECK(!h->gso_type && !h->gso_size && !h->hdr_len &&
			 !h->csum_start && !h->csum_offset);
	}
}

/*
 * doc/design.md, integrity: a frame the kernel will not verify (NEEDS_CSUM)
 * came from segments whose TCP checksum verified or held the seed,
 * whatever an outer checksum said, or from UDP datagrams whose check
 * field held the seed or, merged, verified; a GSO frame, from segments
 * whose IPv4 header checksum verified.
 */
static void rx_check_source(const struct rx_pkt *p, bool gso)
{
	uint8_t *o = p->orig + p->inner_off;
	enum rx_csum v = rx_verdict(p);
	struct rx_layout l;

	FUZZ_CHECK(rx_walk(o, p->len - p->inner_off, false, &l) == RX_IP);
	FUZZ_CHECK(l.l4 && !l.routed);
	/*
	 * Segmenting a GSO frame rewrites the IPv4 header checksum
	 * (inet_gso_segment()): a wrong one must not be laundered, as
	 * inet_gro_receive() does not merge it.
	 */
	if (gso && o[l.l3] >> 4 == 4)
		FUZZ_CHECK(rx_ip4_valid(o, &l));
	if (l.proto == IPPROTO_TCP)
		FUZZ_CHECK(v == RX_CSUM_GOOD || v == RX_CSUM_SEED);
	else
		FUZZ_CHECK(l.proto == IPPROTO_UDP &&
			   (v == RX_CSUM_SEED || (gso && v == RX_CSUM_GOOD)));
}

/*
 * A frame passed on as it came: one whole inner frame, untouched (a UDP
 * datagram that began a run and stayed alone: its headers copied, the
 * payload in place).
 */
static void rx_check_plain(const struct gro_frame *fr, const struct rx_pkt *p)
{
	size_t ilen = p->len - p->inner_off;
	const uint8_t *in = p->buf + p->inner_off;

	FUZZ_CHECK(fr->n_slices == 1 && fr->len == ilen);
	FUZZ_CHECK(fr->slices[0].iov_base == in + fr->hdr_len);
	FUZZ_CHECK(!memcmp(fr->hdr, p->orig + p->inner_off, fr->hdr_len));
	FUZZ_CHECK(!memcmp(in, p->orig + p->inner_off, ilen));
}

/* Bytes of a and b equal but for the 2-byte fields at skip[]. */
static bool rx_same_but(const uint8_t *a, const uint8_t *b, uint32_t len,
			const uint32_t *skip, unsigned int n_skip)
{
	unsigned int j;
	uint32_t i;

	for (i = 0; i < len; i++) {
		for (j = 0; j < n_skip; j++)
			if (i >= skip[j] && i < skip[j] + 2)
				break;
		if (j == n_skip && a[i] != b[i])
			return false;
	}
	return true;
}

/* ---- the kernel's GRO rules, from the segments' own bytes --------------- */

/*
 * A segment of a run: TCP, or UDP when UDP merges, and not on its way
 * elsewhere (RFC 8200 8.1).
 */
static void rx_tcp_get(const struct rx_pkt *p, struct rx_tcp *t)
{
	t->o = p->orig + p->inner_off;
	t->len = (uint32_t)(p->len - p->inner_off);
	FUZZ_CHECK(rx_walk(t->o, t->len, false, &t->l) == RX_IP);
	FUZZ_CHECK(t->l.l4 && !t->l.routed);
	FUZZ_CHECK(t->l.proto == IPPROTO_TCP ||
		   (t->l.proto == IPPROTO_UDP && G.merge_udp));
	t->seq = 0;
	t->flags = 0;
	if (t->l.proto == IPPROTO_UDP) {
		t->hl = t->l.l4 + 8;
		t->plen = t->l.end - t->hl;
		return;
	}
	t->hl = t->l.l4 + (t->o[t->l.l4 + 12] >> 4) * 4u;
	t->plen = t->l.end - t->hl;
	t->seq = pkt_get32(t->o + t->l.l4 + 4);
	t->flags = t->o[t->l.l4 + 13];
}

/*
 * inet_gro_receive(): no options, a valid header checksum, no fragment
 * (nor the reserved bit), TOS, TTL, DF, protocol and addresses as the
 * first's; inet_gro_flush(): the second segment's id fixes the mode of
 * the run, fixed (DF or not) or counting up by one.
 */
static void rx_rule_ip4(const struct rx_tcp *t, unsigned int k)
{
	const uint8_t *ip = t[k].o + t[k].l.l3, *ip0 = t[0].o + t[0].l.l3;
	uint16_t id0 = pkt_get16(ip0 + 4);
	bool fixed = pkt_get16(t[1].o + t[1].l.l3 + 4) == id0;

	FUZZ_CHECK(ip[0] == 0x45 && rx_ip4_valid(t[k].o, &t[k].l));
	FUZZ_CHECK(!(pkt_get16(ip + 6) & ~0x4000));
	FUZZ_CHECK(ip[1] == ip0[1] && !memcmp(ip + 6, ip0 + 6, 4));
	FUZZ_CHECK(!memcmp(ip + 12, ip0 + 12, 8));
	FUZZ_CHECK(pkt_get16(ip + 4) == (fixed ? id0 : (uint16_t)(id0 + k)));
}

/*
 * ipv6_gro_receive(): version, traffic class, flow label, next header,
 * hop limit, addresses and every extension header byte as the first's.
 */
static void rx_rule_ip6(const struct rx_tcp *t, unsigned int k)
{
	const uint8_t *ip = t[k].o + t[k].l.l3, *ip0 = t[0].o + t[0].l.l3;

	FUZZ_CHECK(!memcmp(ip, ip0, 4) && !memcmp(ip + 6, ip0 + 6, 34));
	FUZZ_CHECK(!memcmp(ip + 40, ip0 + 40, t[k].l.l4 - t[k].l.l3 - 40));
}

/*
 * tcp_gro_receive(): ports, ACK number, data offset, window and options
 * as the first's; flags too but FIN and PSH; CWR on none (the first's
 * flags are the run's), a flag that flushes only on the last; in order,
 * with data, none longer than the first (the mss) and only the last
 * shorter. The urgent pointer is not compared.
 */
static void rx_rule_tcp(const struct rx_tcp *t, unsigned int k,
			unsigned int n, uint32_t seq)
{
	const uint8_t *th = t[k].o + t[k].l.l4, *th0 = t[0].o + t[0].l.l4;

	FUZZ_CHECK(!memcmp(th, th0, 4) && !memcmp(th + 8, th0 + 8, 5));
	FUZZ_CHECK(!memcmp(th + 14, th0 + 14, 2));
	FUZZ_CHECK(!memcmp(th + 20, th0 + 20, t[0].hl - t[0].l.l4 - 20));
	FUZZ_CHECK(!((t[k].flags ^ t[0].flags) & ~RX_TCP_FREE));
	FUZZ_CHECK(!(t[k].flags & PKT_CWR));
	FUZZ_CHECK(k == n - 1 || !(t[k].flags & RX_TCP_FLUSH));
	FUZZ_CHECK(t[k].plen > 0 && t[k].plen <= t[0].plen);
	FUZZ_CHECK(k == n - 1 || t[k].plen == t[0].plen);
	FUZZ_CHECK(t[k].seq == seq);
	FUZZ_CHECK(rx_l4_valid(t[k].o, &t[k].l) ||
		   rx_l4_seeded(t[k].o, &t[k].l));
}

/*
 * udp_gro_receive_segment(): ports as the first's, every datagram one
 * the kernel takes whole (rx_udp_mergeable()) with a checksum that
 * verified or held the seed; none longer than the first, only the last
 * shorter.
 */
static void rx_rule_udp(const struct rx_tcp *t, unsigned int k,
			unsigned int n)
{
	const uint8_t *uh = t[k].o + t[k].l.l4, *uh0 = t[0].o + t[0].l.l4;

	FUZZ_CHECK(t[k].l.proto == IPPROTO_UDP && !memcmp(uh, uh0, 4));
	FUZZ_CHECK(rx_udp_mergeable(t[k].o, t[k].len, &t[k].l));
	FUZZ_CHECK(t[k].plen > 0 && t[k].plen <= t[0].plen);
	FUZZ_CHECK(k == n - 1 || t[k].plen == t[0].plen);
	FUZZ_CHECK(rx_l4_valid(t[k].o, &t[k].l) ||
		   rx_l4_seeded(t[k].o, &t[k].l));
}

/* Segment k of a merged run of n: same flow, and what the kernel merges. */
static void rx_rule_seg(const struct rx_tcp *t, unsigned int k,
			unsigned int n, uint32_t seq)
{
	FUZZ_CHECK(t[k].l.l3 == t[0].l.l3 && t[k].l.l4 == t[0].l.l4 &&
		   t[k].hl == t[0].hl);
	/* dev_gro_receive(): MACs, VLAN tags and ethertype. */
	FUZZ_CHECK(!memcmp(t[k].o, t[0].o, t[0].l.l3));
	/* No Ethernet padding: the IP length is the frame's. */
	FUZZ_CHECK(t[k].l.end == t[k].len);
	if (t[k].o[t[k].l.l3] >> 4 == 4)
		rx_rule_ip4(t, k);
	else
		rx_rule_ip6(t, k);
	if (t[0].l.proto == IPPROTO_UDP)
		rx_rule_udp(t, k, n);
	else
		rx_rule_tcp(t, k, n, seq);
}

/*
 * tcp_gro_complete() and inet_gro_complete(): the first segment's headers
 * with the lengths of the whole, FIN and PSH of any segment, the check
 * field seeded; a GSO header that cuts it at the first payload's length,
 * never with ECN (no run holds CWR). One segment: its headers as
 * they came but the check field, without GSO. udp_gro_complete(): the
 * UDP length of the whole, and GSO_UDP_L4.
 */
static void rx_check_head(const struct gro_frame *fr, const struct rx_tcp *t,
			  unsigned int n)
{
	const struct rx_layout *l = &t[0].l;
	bool udp = l->proto == IPPROTO_UDP;
	uint16_t check = udp ? 6 : 16;
	uint8_t e[GSO_HDR_MAX], *ip, gso;
	unsigned int k;
	bool v4;

	FUZZ_CHECK(fr->hdr_len == t[0].hl && fr->len - l->l3 <= GRO_MAX_LEN);
	memcpy(e, t[0].o, t[0].hl);
	ip = e + l->l3;
	v4 = ip[0] >> 4 == 4;
	for (k = 1; k < n && !udp; k++)
		e[l->l4 + 13] |= t[k].flags & (PKT_FIN | PKT_PSH);
	if (n > 1 && v4) {
		pkt_put16(ip + 2, fr->len - l->l3);
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	} else if (n > 1) {
		pkt_put16(ip + 4, fr->len - l->l3 - 40);
	}
	if (udp)
		pkt_put16(e + l->l4 + 4, fr->len - l->l4);
	pkt_put16(e + l->l4 + check,
		  pkt_fold(pkt_pseudo(ip, l->proto, fr->len - l->l4)));
	FUZZ_CHECK(!memcmp(fr->hdr, e, t[0].hl));
	FUZZ_CHECK(fr->vnet.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM);
	FUZZ_CHECK(fr->vnet.csum_start == l->l4 &&
		   fr->vnet.csum_offset == check);
	if (n == 1) {
		FUZZ_CHECK(fr->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE);
		return;
	}
	gso = v4 ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_TCPV6;
	if (udp)
		gso = VIRTIO_NET_HDR_GSO_UDP_L4;
	FUZZ_CHECK(fr->vnet.gso_type == gso && fr->vnet.gso_size == t[0].plen &&
		   fr->vnet.hdr_len == t[0].hl);
}

/*
 * A frame with headers of its own: a run of segments that could have
 * come out of the kernel's GRO, each payload in place and untouched.
 */
static void rx_check_run(const struct gro_frame *fr, struct rx_pkt **src)
{
	struct rx_tcp t[GRO_MAX_SEGS];
	unsigned int k, n = fr->n_slices;
	uint32_t seq;

	for (k = 0; k < n; k++)
		rx_tcp_get(src[k], &t[k]);
	for (k = 0, seq = t[0].seq; k < n; seq += t[k].plen, k++) {
		if (n > 1)
			rx_rule_seg(t, k, n, seq);
		FUZZ_CHECK(fr->slices[k].iov_base ==
			   src[k]->buf + src[k]->inner_off + t[k].hl);
		FUZZ_CHECK(fr->slices[k].iov_len == t[k].plen);
		FUZZ_CHECK(!memcmp(fr->slices[k].iov_base, t[k].o + t[k].hl,
				   t[k].plen));
	}
	rx_check_head(fr, t, n);
}

/* ---- and what the transmit side makes of them --------------------------- */

/* Segment i's bytes into segbuf; returns its length. */
static uint32_t rx_seg_bytes(const struct seg *s)
{
	memcpy(segbuf, s->hdr, s->hdr_len);
	memcpy(segbuf + s->hdr_len, s->payload, s->payload_len);
	return seg_len(s);
}

/* What the tap's own segmentation would send: checksums that verify. */
static void rx_check_seg(const struct frame *f, uint32_t len, uint32_t mtu)
{
	struct rx_layout l;

	FUZZ_CHECK(rx_walk(segbuf, len, false, &l) == RX_IP);
	FUZZ_CHECK(l.l4 == f->l4_off && l.end == len);
	if (f->gso)
		FUZZ_CHECK(len - f->l3_off <= mtu);
	if (f->gso && f->ethertype == 0x0800)
		FUZZ_CHECK(rx_ip4_valid(segbuf, &l));
	FUZZ_CHECK(rx_l4_valid(segbuf, &l));
}

/*
 * A merged frame cut again gives back its very segments (unit-gro's round
 * trip): the headers as they came, but for the check field, the urgent
 * pointer of all but the first (not compared when merging) and, in a run
 * with a fixed IPv4 id, the id and header checksum (the tap's GSO counts
 * up: virtio_net_hdr has no SKB_GSO_TCP_FIXEDID).
 */
static void rx_check_merged(const struct gro_frame *fr, const struct frame *f,
			    int n)
{
	const uint8_t *o1 = (const uint8_t *)fr->slices[1].iov_base -
			    fr->hdr_len;
	uint32_t id_at = f->l3_off + 4u;
	bool udp = f->l4_proto == IPPROTO_UDP;
	/* UDP: the check field, and (unused) its first payload bytes. */
	uint32_t skip[] = { f->l4_off + (udp ? 6u : 16u),
			    f->l4_off + (udp ? 6u : 18u), id_at,
			    f->l3_off + 10u };
	bool fixed = f->ethertype == 0x0800 &&
		     pkt_get16(o1 + id_at) == pkt_get16(fr->hdr + id_at);
	int k;

	FUZZ_CHECK(n == fr->n_slices);
	for (k = 0; k < n; k++) {
		const struct seg *s = &segs[k];
		const uint8_t *o = (const uint8_t *)fr->slices[k].iov_base -
				   fr->hdr_len;

		FUZZ_CHECK(s->hdr_len == fr->hdr_len);
		FUZZ_CHECK(s->payload_len == fr->slices[k].iov_len);
		FUZZ_CHECK(!memcmp(s->payload, fr->slices[k].iov_base,
				 s->payload_len));
		FUZZ_CHECK(rx_same_but(o, s->hdr, s->hdr_len, skip,
				       k == 0 ? 1 : fixed ? 4 : 2));
	}
}

/* One frame of the whole segment: its bytes as they came but the check. */
static void rx_check_whole(const struct gro_frame *fr, const uint8_t *buf,
			   const struct rx_pkt *p)
{
	const uint8_t *o = p->orig + p->inner_off;
	uint32_t at = (uint32_t)fr->vnet.csum_start + fr->vnet.csum_offset;
	bool cwr;

	FUZZ_CHECK(fr->slices[0].iov_base == p->buf + p->inner_off);
	FUZZ_CHECK(rx_same_but(o, buf, fr->len, &at, 1));
	/*
	 * Its sender's SKB_GSO_TCP_ECN, for CWR on the first segment only.
	 * Only a GSO frame is TCP for sure: a UDP datagram may end before
	 * byte 13 of its L4 header.
	 */
	if (!fr->vnet.gso_type)
		return;
	cwr = o[fr->vnet.csum_start + 13] & PKT_CWR;
	FUZZ_CHECK(!(fr->vnet.gso_type & VIRTIO_NET_HDR_GSO_ECN) == !cwr);
}

/* The transmit side must take the frame back and cut it the same way. */
static void rx_round_trip(const struct gro_frame *fr, const uint8_t *buf,
			  uint32_t mtu)
{
	uint32_t total, mss = fr->vnet.gso_size, off;
	struct seg_arena a;
	struct frame f;
	int err, n, k;

	/* Within the limits of rx_check_bound(): vnet.c takes it back. */
	err = vnet_hdr_parse_as(G.l3, &fr->vnet, buf, fr->len, &f);
	FUZZ_CHECK(err == DROP_NONE);
	seg_arena_init(&a, arena, segs, VNET_MAX_SEGS);
	n = gso_plan(&f, &a, 0, false);
	if (n == -EINVAL) {
		/* A frame without GSO, headers more than gso_plan() holds. */
		FUZZ_CHECK(fr->n_slices == 1 && !fr->vnet.gso_type);
		FUZZ_CHECK(f.hdr_len > GSO_HDR_MAX ||
			 f.csum_start + f.csum_offset + 2u > GSO_HDR_MAX);
		return;
	}
	FUZZ_CHECK(n > 0);
	for (k = 0, off = 0; k < n; k++) {
		uint32_t len = rx_seg_bytes(&segs[k]);

		FUZZ_CHECK(len <= fr->len);
		rx_check_seg(&f, len, mtu);
		if (f.gso)
			FUZZ_CHECK(segs[k].payload == buf + f.hdr_len + off);
		off += segs[k].payload_len;
	}
	if (!f.gso) {
		FUZZ_CHECK(n == 1 && seg_len(&segs[0]) == fr->len);
		return;
	}
	total = fr->len - f.hdr_len;
	FUZZ_CHECK(off == total);
	FUZZ_CHECK(n == (int)(total ? (total + mss - 1) / mss : 1));
	if (fr->n_slices > 1)
		rx_check_merged(fr, &f, n);
}

/*
 * Issue 12: what a frame becomes behind the tap is bounded. A GSO frame
 * is cut into at most VNET_MAX_SEGS segments (the tap's gso_max_segs);
 * one written whole from one segment over the MTU, with segments of at
 * least 48 bytes (the smallest MSS a Linux sender uses) and headers of
 * at most GSO_HDR_MAX; a merged one into the very segments it was made
 * of.
 */
static void rx_check_bound(const struct gro_frame *fr)
{
	const struct virtio_net_hdr *h = &fr->vnet;
	uint32_t n;

	if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return;
	n = (fr->len - h->hdr_len + h->gso_size - 1) / h->gso_size;
	FUZZ_CHECK(h->hdr_len <= GSO_HDR_MAX && n <= VNET_MAX_SEGS);
	if (fr->n_slices > 1)
		FUZZ_CHECK(n == fr->n_slices);
	else
		FUZZ_CHECK(h->gso_size >= 48);
}

static void rx_check_frame(struct rx_ctx *x, const struct gro_frame *fr)
{
	bool csum = fr->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
	struct rx_pkt *src[GRO_MAX_SEGS];
	uint32_t total = fr->hdr_len, k;
	uint8_t *buf, *w;

	FUZZ_CHECK(fr->n_slices >= 1 && fr->n_slices <= GRO_MAX_SEGS);
	FUZZ_CHECK(fr->hdr_len <= GSO_HDR_MAX);
	for (k = 0; k < fr->n_slices; k++) {
		src[k] = rx_owner(x, &fr->slices[k]);
		FUZZ_CHECK(src[k]);
		FUZZ_CHECK(fr->slices[k].iov_len > 0);
		/* A wrong checksum goes plain, for the stack behind to drop. */
		FUZZ_CHECK(!src[k]->bad || !csum);
		src[k]->uses++;
		total += (uint32_t)fr->slices[k].iov_len;
	}
	FUZZ_CHECK(total == fr->len && fr->len <= VNET_FRAME_MAX);
	rx_check_vnet(&fr->vnet, fr->len);
	rx_check_bound(fr);
	if (!csum) {
		rx_check_plain(fr, src[0]);
		return;
	}

	for (k = 0; k < fr->n_slices; k++)
		rx_check_source(src[k], fr->vnet.gso_type);
	/* The frame as the tap gets it, in a buffer of its own size. */
	buf = malloc(fr->len);
	FUZZ_CHECK(buf);
	memcpy(buf, fr->hdr, fr->hdr_len);
	w = buf + fr->hdr_len;
	for (k = 0; k < fr->n_slices; k++) {
		memcpy(w, fr->slices[k].iov_base, fr->slices[k].iov_len);
		w += fr->slices[k].iov_len;
	}
	if (fr->hdr_len) {
		rx_check_run(fr, src);
	} else {
		FUZZ_CHECK(fr->n_slices == 1);
		rx_check_whole(fr, buf, src[0]);
	}
	rx_round_trip(fr, buf, G.mtu);
	free(buf);
}

/*
 * Flush, check every frame and the counts, forget the batch. Every packet
 * gro_add() did not drop is in exactly one frame; gro counted each frame
 * that goes with a GSO header.
 */
static void rx_batch_end(struct rx_ctx *x, unsigned int next)
{
	unsigned int i, merged = 0;

	gro_flush(&G);
	FUZZ_CHECK(G.n_open == 0);
	FUZZ_CHECK(G.n_frames <= GRO_MAX_FRAMES);
	FUZZ_CHECK(G.n_frames == x->queued);
	for (i = 0; i < G.n_frames; i++) {
		rx_check_frame(x, &G.frames[i]);
		if (G.frames[i].hdr_len)
			merged += G.frames[i].n_slices - 1u;
		if (G.frames[i].vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE)
			x->n_gso++;
	}
	FUZZ_CHECK(merged == x->merged);
	FUZZ_CHECK(G.n.gso_frames + G.n.udp_gso_frames == x->n_gso);
	FUZZ_CHECK(G.n.merged + G.n.udp_merged == x->n_merged);
	for (i = x->batch; i < next; i++) {
		const struct rx_pkt *p = &x->pkts[i];

		FUZZ_CHECK(p->uses == (p->added && p->res != GRO_DROPPED));
	}
	gro_reset(&G);
	x->queued = 0;
	x->merged = 0;
	x->batch = next;
}

/*
 * GRO_DROPPED: an IP packet with headers that lie or are cut short, or
 * a UDP length that lies; nothing else.
 */
/*
 * Issue 12: a TCP frame over the tap's MTU that would go out as a GSO
 * frame (verified or seeded, with data, no SYN, RST or URG, a good IPv4
 * header checksum) is dropped unless its headers fit GSO_HDR_MAX, its
 * segments carry at least 48 bytes and there are at most VNET_MAX_SEGS.
 */
static bool rx_oversize(const uint8_t *o, const struct rx_layout *l,
			const struct rx_pkt *p)
{
	enum rx_csum v = rx_verdict(p);
	uint32_t hl, plen, mss;

	if (l->proto != IPPROTO_TCP || !l->l4 ||
	    (v != RX_CSUM_GOOD && v != RX_CSUM_SEED) ||
	    l->end - l->l3 <= G.mtu)
		return false;
	hl = l->l4 + (o[l->l4 + 12] >> 4) * 4u;
	plen = l->end - hl;
	if (!plen || (o[l->l4 + 13] & (PKT_SYN | PKT_RST | PKT_URG)) ||
	    (o[l->l3] >> 4 == 4 && !rx_ip4_valid(o, l)))
		return false;
	if (hl > GSO_HDR_MAX || G.mtu < hl - l->l3 + 48)
		return true;
	mss = G.mtu - (hl - l->l3);
	if (mss > 65535)
		mss = 65535;
	return (plen + mss - 1) / mss > VNET_MAX_SEGS;
}

/*
 * gro's drop against the walk: the reason decap_packet() gave, and the
 * walk's own verdict counted for the end of the input.
 */
static void rx_check_drop(struct rx_ctx *x, const struct rx_pkt *p,
			  bool hdr, bool over)
{
	uint8_t *o = p->orig + p->inner_off;
	struct rx_layout l;
	int res;
	bool udp_lies, bad_hdr, too_big;

	res = rx_walk(o, p->len - p->inner_off, false, &l);
	udp_lies = res == RX_IP && l.l4 && l.proto == IPPROTO_UDP &&
		   (pkt_get16(o + l.l4 + 4) < 8 ||
		    pkt_get16(o + l.l4 + 4) > l.end - l.l4);
	bad_hdr = res == RX_BAD || udp_lies;
	too_big = res == RX_IP && rx_oversize(o, &l, p);
	FUZZ_CHECK(hdr == bad_hdr);
	FUZZ_CHECK(over == too_big);
	x->want_drop[DROP_RX_INNER_HDR] += bad_hdr;
	x->want_drop[DROP_RX_OVERSIZE] += too_big;
}

/*
 * What gro did with a packet, against the walk's verdict: a wrong TCP
 * checksum is counted and queued (as it came: rx_check_frame()), a seed
 * counted, a drop is a bad header or a frame over the MTU (rx_oversize()),
 * a merge counted; nothing else.
 */
static void rx_count(struct rx_ctx *x, struct rx_pkt *p, enum gro_result r,
		     const struct decap_out *out,
		     const struct gro_counts *before)
{
	uint64_t bad = G.n.inner_csum_bad - before->inner_csum_bad;
	uint64_t seed = G.n.csum_partial - before->csum_partial;
	uint64_t merged = G.n.merged - before->merged +
			  G.n.udp_merged - before->udp_merged;
	bool kept = r != GRO_DROPPED;
	bool hdr = !kept && out->drop == DROP_RX_INNER_HDR;
	bool over = !kept && out->drop == DROP_RX_OVERSIZE;
	enum rx_csum v = rx_verdict(p);

	FUZZ_CHECK(r == GRO_QUEUED || r == GRO_MERGED || r == GRO_DROPPED);
	FUZZ_CHECK(kept == (out->drop == DROP_NONE));
	FUZZ_CHECK(hdr + over == !kept);
	FUZZ_CHECK(bad == (kept && v == RX_CSUM_BAD));
	FUZZ_CHECK(seed == (kept && v == RX_CSUM_SEED));
	FUZZ_CHECK(merged == (r == GRO_MERGED));
	FUZZ_CHECK(!bad || r == GRO_QUEUED);
	rx_check_drop(x, p, hdr, over);
	p->res = r;
	p->bad = bad;
	x->n_bad += bad;
	x->n_seed += seed;
	if (r == GRO_QUEUED)
		x->queued++;
	if (r == GRO_MERGED) {
		x->merged++;
		x->n_merged++;
	}
}

/* Refused before gro: nothing changed, nothing counted by gro. */
static void rx_check_refused(const struct rx_pkt *p, enum gro_result r,
			     const struct decap_out *out, enum drop why,
			     const struct gro_counts *before)
{
	FUZZ_CHECK(r == GRO_DROPPED && out->drop == why && !out->ce);
	FUZZ_CHECK(!memcmp(p->buf, p->orig, p->len));
	FUZZ_CHECK(!memcmp(before, &G.n, sizeof(*before)));
}

/*
 * One packet through decap_packet(), as rx.c's rx_packet() does: with
 * GRO_FULL the batch is written out and decap_again() adds it. Its
 * encapsulation, ECN and gro outcomes against the references.
 */
static void rx_packet(struct rx_ctx *x, unsigned int i, uint8_t ecn)
{
	struct rx_pkt *p = &x->pkts[i];
	enum encap_ecn e = ENCAP_ECN_KEEP;
	struct gro_counts before = G.n;
	struct decap_out out;
	enum gro_result r;
	enum drop why;

	why = rx_encap(&x->cfg, p);
	if (!why)
		e = rx_ecn_ref(p, ecn);
	r = decap_packet(&x->cfg, &G, p->buf, p->len, ecn, &out);
	if (r == GRO_FULL) {
		FUZZ_CHECK(gro_full(&G) && G.n_frames == GRO_MAX_FRAMES);
		FUZZ_CHECK(out.drop == DROP_NONE && !why);
		FUZZ_CHECK(!memcmp(&before, &G.n, sizeof(before)));
		rx_batch_end(x, i);
		r = decap_again(&G, &out);
		FUZZ_CHECK(r != GRO_FULL);
	}
	if (r == GRO_DROPPED)
		x->drop[out.drop]++;
	x->n_ce += out.ce;
	if (why) {
		rx_check_refused(p, r, &out, why, &before);
		x->want_drop[why]++;
		return;
	}
	if (e == ENCAP_ECN_DROP) {
		rx_check_refused(p, r, &out, DROP_RX_ECN, &before);
		x->want_drop[DROP_RX_ECN]++;
		return;
	}
	FUZZ_CHECK(out.ce == (e == ENCAP_ECN_MARK));
	x->want_ce += e == ENCAP_ECN_MARK;
	rx_ecn_check(p, e);
	p->added = true;
	rx_count(x, p, r, &out, &before);
}

static bool rx_read_cfg(struct rx_ctx *x, const uint8_t *d, size_t n)
{
	uint32_t mtu;

	if (n < RX_CFG_LEN)
		return false;
	fuzz_encap_cfg(&x->cfg, d, d[0] & RX_TUN);
	FUZZ_CHECK(encap_carries(x->cfg.type, x->cfg.l3));
	mtu = pkt_get16(d + 1);
	if (!mtu)
		mtu = 1500;
	if (mtu < 68)
		mtu = 68;
	gro_init(&G, mtu, !(d[0] & RX_NO_GRO), d[0] & RX_UDP_GRO,
		 x->cfg.l3);
	return true;
}

/* The next record into a packet of its own; false at the end. */
static bool rx_read_pkt(struct rx_ctx *x, const uint8_t **d, size_t *n,
			uint8_t *ctl)
{
	struct rx_pkt *p = &x->pkts[x->n_pkts];
	size_t len;

	if (*n < RX_REC_LEN || x->n_pkts == RX_MAX_PKTS)
		return false;
	*ctl = (*d)[0];
	len = pkt_get16(*d + 1);
	*d += RX_REC_LEN;
	*n -= RX_REC_LEN;
	if (len > *n)
		len = *n;
	memset(p, 0, sizeof(*p));
	p->len = len;
	p->buf = malloc(len ? len : 1);
	p->orig = malloc(len ? len : 1);
	FUZZ_CHECK(p->buf && p->orig);
	memcpy(p->buf, *d, len);
	*d += len;
	*n -= len;
	if (*ctl & RX_CTL_FIX)
		rx_fix(&x->cfg, p->buf, len, *ctl & RX_CTL_SEED);
	memcpy(p->orig, p->buf, len);
	x->n_pkts++;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rx_ctx *x = &X;
	unsigned int i;
	uint8_t ctl;

	memset(x, 0, sizeof(*x));
	if (!rx_read_cfg(x, data, size))
		return 0;
	data += RX_CFG_LEN;
	size -= RX_CFG_LEN;
	while (rx_read_pkt(x, &data, &size, &ctl)) {
		rx_packet(x, x->n_pkts - 1, RX_CTL_ECN(ctl));
		if (ctl & RX_CTL_END)
			rx_batch_end(x, x->n_pkts);
	}
	rx_batch_end(x, x->n_pkts);
	FUZZ_CHECK(G.n.merged + G.n.udp_merged == x->n_merged);
	FUZZ_CHECK(G.n.inner_csum_bad == x->n_bad);
	FUZZ_CHECK(G.n.csum_partial == x->n_seed);
	FUZZ_CHECK(G.n.gso_frames + G.n.udp_gso_frames == x->n_gso);
	/* UDP merges only when asked to. */
	FUZZ_CHECK(G.merge_udp || !G.n.udp_merged);
	FUZZ_CHECK(x->n_ce == x->want_ce);
	FUZZ_CHECK(!memcmp(x->drop, x->want_drop, sizeof(x->drop)));
	for (i = 0; i < x->n_pkts; i++) {
		free(x->pkts[i].buf);
		free(x->pkts[i].orig);
	}
	return 0;
}
