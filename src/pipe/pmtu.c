// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmtu: what fits the underlay path, the ICMP "too big" written back into
 * the tap when a frame does not, and IPv4 fragmentation when it may.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <linux/if_ether.h>
#include "base/bytes.h"
#include "base/csum.h"
#include "base/proto.h"
#include "pipe/pmtu.h"

#define PMTU_IP4_HLEN 20u
#define PMTU_IP6_HLEN 40u
#define PMTU_ICMP_HLEN 8u	/* ICMP and ICMPv6 error header */
/* Largest packets an underlay can carry (no IPv6 jumbograms). */
#define PMTU_IP4_MAX 65535u
#define PMTU_IP6_MAX (40u + 65535u)

/* RFC 1812 section 4.3.2.3: an ICMP error is at most 576 bytes. */
#define PMTU_ICMP4_MAX 576u
/* RFC 4443 section 2.4 (c): at most the IPv6 minimum MTU. */
#define PMTU_ICMP6_MAX 1280u

#define PMTU_ICMP_DEST_UNREACH 3
#define PMTU_ICMP_NET_UNREACH 0
#define PMTU_ICMP_FRAG_NEEDED 4
#define PMTU_ICMPV6_DEST_UNREACH 1	/* code 0: no route to destination */
#define PMTU_ICMPV6_PKT_TOOBIG 2
#define PMTU_NDISC_REDIRECT 137

/* IPTOS_PREC_INTERNETCONTROL, as icmp_send() uses for its replies. */
#define PMTU_TOS_INTERNETCONTROL 0xc0
#define PMTU_ICMP_TTL 64

#define PMTU_IPOPT_END 0
#define PMTU_IPOPT_NOOP 1
#define PMTU_IPOPT_COPIED 0x80

#define PMTU_NS_PER_SEC 1000000000ull

uint32_t pmtu_frame_budget(const struct encap_cfg *c, bool ipv6_underlay,
			   uint32_t path_mtu)
{
	uint32_t cap = ipv6_underlay ? PMTU_IP6_MAX : PMTU_IP4_MAX;
	uint32_t over = (uint32_t)encap_overhead(c, ipv6_underlay);

	if (path_mtu > cap)
		path_mtu = cap;
	/*
	 * encap_parse() refuses an inner frame shorter than Ethernet, an
	 * inner packet shorter than an IPv4 header.
	 */
	if (path_mtu < over + (c->l3 ? PMTU_IP4_HLEN : ETH_HLEN))
		return 0;
	return path_mtu - over;
}

uint32_t pmtu_path_budget(const struct encap_cfg *c, bool ipv6_underlay,
			  uint32_t path_mtu)
{
	return path_mtu ? pmtu_frame_budget(c, ipv6_underlay, path_mtu)
			: UINT32_MAX;
}

uint32_t pmtu_lower(uint32_t cur, uint32_t reported, bool ipv6_underlay)
{
	uint32_t floor = ipv6_underlay ? PMTU_FLOOR6 : PMTU_FLOOR4;

	if (reported == 0 || reported > cur)
		return cur;
	/*
	 * Like min_pmtu in __ip_rt_update_pmtu(): a tiny reported MTU is
	 * more likely an attack than a path; a cur already below the floor
	 * (a small link MTU) is never raised.
	 */
	if (reported < floor)
		reported = floor;
	return reported < cur ? reported : cur;
}

/*
 * End of the IP datagram in the frame (Ethernet padding left out), as
 * frame_parse() found it, or 0 when the frame is not IP.
 */
static uint32_t pmtu_ip_end(const struct frame *f)
{
	return f->ip ? f->end : 0;
}

bool pmtu_frame_df(const struct frame *f)
{
	if (!pmtu_ip_end(f))
		return false;
	/* RFC 8200 section 5: no router fragments IPv6 */
	if (f->ethertype == ETH_P_IPV6)
		return true;
	return (get_be16(f->data + f->l3_off + 6) & IP4_F_DF) != 0;
}

/* Length on the wire of f's largest packet, Ethernet header included. */
static uint32_t pmtu_packet_max(const struct frame *f)
{
	if (f->gso != FRAME_GSO_NONE)
		return (uint32_t)f->hdr_len + f->gso_size;
	return f->len;
}

/*
 * A TCP frame the tap left for us to checksum is a super-frame of one
 * segment: gso_plan() may cut it like one.
 */
static bool pmtu_tcp_cuttable(struct frame *f)
{
	if (f->gso == FRAME_GSO_TCP4 || f->gso == FRAME_GSO_TCP6)
		return true;
	if (f->gso != FRAME_GSO_NONE || f->l4_proto != IPPROTO_TCP ||
	    !f->l4_off || !f->needs_csum || f->csum_start != f->l4_off ||
	    f->csum_offset != 16 || f->len <= f->hdr_len ||
	    f->len - f->hdr_len > UINT16_MAX)
		return false;
	f->gso = f->ethertype == ETH_P_IP ? FRAME_GSO_TCP4 : FRAME_GSO_TCP6;
	f->gso_size = (uint16_t)(f->len - f->hdr_len);
	return true;
}

enum pmtu_fit pmtu_fit(struct frame *f, uint32_t budget, bool pmtud,
		       uint16_t *mss_cap)
{
	uint32_t end;

	if (pmtu_packet_max(f) <= budget)
		return PMTU_FIT_SEND;
	if (pmtu_tcp_cuttable(f)) {
		/* Room for the headers and a little data, as TCP_MIN_MSS. */
		if (budget < (uint32_t)f->hdr_len + 8)
			return PMTU_FIT_DROP;
		*mss_cap = (uint16_t)(budget - f->hdr_len);
		return PMTU_FIT_CUT;
	}
	if (!pmtud)
		return PMTU_FIT_SEND;
	end = pmtu_ip_end(f);
	if (!end)
		return PMTU_FIT_DROP;
	if (f->ethertype == ETH_P_IP && !pmtu_frame_df(f))
		return PMTU_FIT_FRAGMENT;
	if (f->ethertype == ETH_P_IPV6 && f->gso == FRAME_GSO_NONE &&
	    end - f->l3_off <= PMTU_FLOOR6)
		return PMTU_FIT_SEND;
	return PMTU_FIT_ICMP;
}

uint32_t pmtu_icmp_mtu(const struct frame *f, uint32_t budget)
{
	uint32_t mtu = budget > f->l3_off ? budget - f->l3_off : 0;

	if (f->ethertype == ETH_P_IPV6 && mtu < PMTU_FLOOR6)
		return PMTU_FLOOR6;
	return mtu < 68 ? 68 : mtu;
}

/* icmp_is_err(): the ICMP types that are errors (RFC 1122 3.2.2). */
static bool pmtu_icmp4_is_err(uint8_t type)
{
	switch (type) {
	case 3:		/* destination unreachable */
	case 4:		/* source quench */
	case 5:		/* redirect */
	case 11:	/* time exceeded */
	case 12:	/* parameter problem */
		return true;
	}
	return false;
}

static bool pmtu_ip4_mcast(const uint8_t *a)
{
	return (a[0] & 0xf0) == 0xe0;
}

static bool pmtu_ip4_bcast(const uint8_t *a)
{
	return a[0] == 0xff && a[1] == 0xff && a[2] == 0xff && a[3] == 0xff;
}

/*
 * iptunnel_pmtud_check_icmp() and RFC 1812 section 4.3.2.7: no error about
 * a non-first fragment, about an ICMP error, to a source that names no
 * single host, or about a packet sent to many.
 */
static bool pmtu_icmp4_allowed(const uint8_t *ip, uint32_t len)
{
	const uint8_t *src = ip + 12, *dst = ip + 16;
	uint32_t ihl = (ip[0] & 0x0fu) * 4;

	if (get_be16(ip + 6) & IP4_OFFSET)
		return false;
	if (pmtu_ip4_bcast(dst) || pmtu_ip4_mcast(dst))
		return false;
	/* ipv4_is_zeronet(), ipv4_is_loopback(): 0/8 and 127/8 */
	if (src[0] == 0 || src[0] == 127 || pmtu_ip4_bcast(src) ||
	    pmtu_ip4_mcast(src))
		return false;
	if (ip[9] == IPPROTO_ICMP) {
		if (len < ihl + 1)
			return false;
		if (pmtu_icmp4_is_err(ip[ihl]))
			return false;
	}
	return true;
}

static bool pmtu_ip6_unspec(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static bool pmtu_ip6_loopback(const uint8_t *a)
{
	static const uint8_t one[16] = { [15] = 1 };

	return memcmp(a, one, 16) == 0;
}

/*
 * The upper-layer protocol and its offset, past extension headers, as
 * ipv6_skip_exthdr() finds them: false for a non-first fragment, a
 * truncated chain or No Next Header (which the kernel gives up on too).
 */
static bool pmtu_ip6_upper(const uint8_t *ip, uint32_t len, uint8_t *proto,
			   uint32_t *off)
{
	uint8_t next = ip[6];
	uint32_t at = PMTU_IP6_HLEN, hlen;

	for (;;) {
		switch (next) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_AH:
		case IPPROTO_FRAGMENT:
			break;
		case IPPROTO_NONE:
			return false;
		default:
			*proto = next;
			*off = at;
			return true;
		}
		if (len < at + 8)
			return false;
		if (next == IPPROTO_FRAGMENT) {
			if (get_be16(ip + at + 2) & ~7u)
				return false;
			hlen = 8;
		} else if (next == IPPROTO_AH) {
			hlen = (ip[at + 1] + 2u) * 4;	/* RFC 4302 2.2 */
		} else {
			hlen = (ip[at + 1] + 1u) * 8;	/* RFC 8200 4.3 */
		}
		next = ip[at];
		at += hlen;
	}
}

/*
 * iptunnel_pmtud_check_icmpv6(): the same rules for IPv6, but a multicast
 * destination is fine: Packet Too Big is the exception RFC 4443 section
 * 2.4 (e.3) makes for path MTU discovery to multicast groups.
 */
static bool pmtu_icmp6_allowed(const uint8_t *ip, uint32_t len)
{
	const uint8_t *src = ip + 8;
	uint32_t off;
	uint8_t proto;

	if (pmtu_ip6_unspec(src) || pmtu_ip6_loopback(src) || src[0] == 0xff)
		return false;
	if (!pmtu_ip6_upper(ip, len, &proto, &off))
		return false;
	if (proto == IPPROTO_ICMPV6) {
		if (len < off + 1)
			return false;
		/* icmpv6_is_err(): types below 128; and NDISC redirects */
		if (ip[off] < 128 || ip[off] == PMTU_NDISC_REDIRECT)
			return false;
	}
	return true;
}

/*
 * The frame's own L2 header, VLAN tags kept, the MAC addresses swapped;
 * nothing for a tun's packet (l3_off 0: no link header).
 */
static void pmtu_l2_reply(const struct frame *f, uint8_t *out)
{
	if (!f->l3_off)
		return;
	memcpy(out, f->data, f->l3_off);
	memcpy(out, f->data + ETH_ALEN, ETH_ALEN);
	memcpy(out + ETH_ALEN, f->data, ETH_ALEN);
}

/*
 * RFC 792 / RFC 1191: type 3 code 4, unused 16 bits, next-hop MTU, then
 * the quote; for unreach, type 3 code 0 (net unreachable, as a router
 * without a route sends, RFC 1812 section 5.2.7.1), 32 bits unused. The
 * IP header follows icmp_send() (TOS internetcontrol, a fresh TTL)
 * rather than iptunnel_pmtud_build_icmp(), which uses TOS 0 and the
 * original's TTL.
 */
static void pmtu_icmp4_write(const uint8_t *oip, uint32_t quote, bool unreach,
			     uint32_t mtu, uint8_t *ip)
{
	uint8_t *icmp = ip + PMTU_IP4_HLEN;
	uint32_t len = PMTU_ICMP_HLEN + quote;

	ip[0] = 0x45;
	ip[1] = PMTU_TOS_INTERNETCONTROL;
	put_be16(ip + 2, PMTU_IP4_HLEN + len);
	put_be32(ip + 4, IP4_F_DF);	/* id 0, DF */
	ip[8] = PMTU_ICMP_TTL;
	ip[9] = IPPROTO_ICMP;
	put_sum16(ip + 10, 0);
	memcpy(ip + 12, oip + 16, 4);
	memcpy(ip + 16, oip + 12, 4);
	put_sum16(ip + 10, csum_ip4_header(ip, PMTU_IP4_HLEN));

	icmp[0] = PMTU_ICMP_DEST_UNREACH;
	icmp[1] = unreach ? PMTU_ICMP_NET_UNREACH : PMTU_ICMP_FRAG_NEEDED;
	put_sum16(icmp + 2, 0);
	put_be16(icmp + 4, 0);
	put_be16(icmp + 6, unreach ? 0 : mtu > 0xffff ? 0xffff : mtu);
	memcpy(icmp + PMTU_ICMP_HLEN, oip, quote);
	put_sum16(icmp + 2, csum_fold(csum_partial(icmp, len, 0)));
}

/*
 * RFC 4443 section 3.2 (for unreach, section 3.1: type 1 code 0, no
 * route to destination). As iptunnel_pmtud_build_icmpv6(): traffic
 * class and flow label 0, and the hop limit copied from the original
 * packet (it goes back the way the original came).
 */
static void pmtu_icmp6_write(const uint8_t *oip, uint32_t quote, bool unreach,
			     uint32_t mtu, uint8_t *ip)
{
	uint8_t *icmp = ip + PMTU_IP6_HLEN;
	uint32_t len = PMTU_ICMP_HLEN + quote;
	struct in6_addr src, dst;
	uint32_t sum;

	put_be32(ip, 0x60000000);
	put_be16(ip + 4, len);
	ip[6] = IPPROTO_ICMPV6;
	ip[7] = oip[7];
	memcpy(ip + 8, oip + 24, 16);
	memcpy(ip + 24, oip + 8, 16);

	icmp[0] = unreach ? PMTU_ICMPV6_DEST_UNREACH : PMTU_ICMPV6_PKT_TOOBIG;
	icmp[1] = 0;
	put_sum16(icmp + 2, 0);
	put_be32(icmp + 4, unreach ? 0 : mtu);
	memcpy(icmp + PMTU_ICMP_HLEN, oip, quote);
	/* RFC 4443 section 2.3: the pseudo-header of RFC 8200 section 8.1 */
	memcpy(&src, ip + 8, sizeof(src));
	memcpy(&dst, ip + 24, sizeof(dst));
	sum = csum_pseudo6(&src, &dst, IPPROTO_ICMPV6, len);
	put_sum16(icmp + 2, csum_fold(csum_partial(icmp, len, sum)));
}

/*
 * May f be answered so? RFC 4443 section 2.4 (e.3) lets only Packet Too
 * Big (and a parameter problem) answer a packet to a multicast group.
 */
static bool pmtu_icmp_allowed(const struct frame *f, const uint8_t *oip,
			      uint32_t dlen, bool unreach)
{
	if (f->ethertype != ETH_P_IPV6)
		return pmtu_icmp4_allowed(oip, dlen);
	if (unreach && oip[24] == 0xff)
		return false;
	return pmtu_icmp6_allowed(oip, dlen);
}

static size_t pmtu_icmp_err_build(const struct frame *f, bool unreach,
				  uint32_t mtu, uint8_t *out, size_t out_len)
{
	uint32_t end = pmtu_ip_end(f), dlen, quote, hlen, max;
	const uint8_t *oip = f->data + f->l3_off;
	bool v6 = f->ethertype == ETH_P_IPV6;

	if (!end)
		return 0;
	dlen = end - f->l3_off;
	if (!pmtu_icmp_allowed(f, oip, dlen, unreach))
		return 0;
	hlen = (v6 ? PMTU_IP6_HLEN : PMTU_IP4_HLEN) + PMTU_ICMP_HLEN;
	max = v6 ? PMTU_ICMP6_MAX : PMTU_ICMP4_MAX;
	quote = dlen < max - hlen ? dlen : max - hlen;
	if (out_len < (size_t)f->l3_off + hlen + quote)
		return 0;
	pmtu_l2_reply(f, out);
	if (v6)
		pmtu_icmp6_write(oip, quote, unreach, mtu, out + f->l3_off);
	else
		pmtu_icmp4_write(oip, quote, unreach, mtu, out + f->l3_off);
	return f->l3_off + hlen + quote;
}

size_t pmtu_icmp_build(const struct frame *f, uint32_t mtu, uint8_t *out,
		       size_t out_len)
{
	return pmtu_icmp_err_build(f, false, mtu, out, out_len);
}

size_t pmtu_icmp_unreach_build(const struct frame *f, uint8_t *out,
			       size_t out_len)
{
	return pmtu_icmp_err_build(f, true, 0, out, out_len);
}

/* What every fragment of one segment shares. */
struct pmtu_frag {
	const struct seg *s;
	uint16_t l3_off;
	uint16_t hlen;		/* L2 + IP header */
	uint32_t tail;		/* IP data bytes inside s->hdr */
	uint32_t data;		/* IP data bytes in all */
	uint32_t step;		/* data per fragment but the last */
	uint32_t off0;		/* s's own fragment offset, in bytes */
	bool mf;		/* s's own MF */
	bool want_sum;
};

/*
 * ip_options_fragment(): options without the "copied" flag are for the
 * first fragment only (RFC 791 section 3.1); the others get NOPs in their
 * place so the header length stays.
 */
static void pmtu_opts_fragment(uint8_t *ip)
{
	uint32_t ihl = (ip[0] & 0x0fu) * 4;
	uint32_t at = PMTU_IP4_HLEN, olen;

	while (at < ihl) {
		if (ip[at] == PMTU_IPOPT_END)
			return;
		if (ip[at] == PMTU_IPOPT_NOOP) {
			at++;
			continue;
		}
		if (at + 1 >= ihl)
			return;
		olen = ip[at + 1];
		if (olen < 2 || olen > ihl - at)
			return;
		if (!(ip[at] & PMTU_IPOPT_COPIED))
			memset(ip + at, PMTU_IPOPT_NOOP, olen);
		at += olen;
	}
}

/*
 * Fragment i carries IP data [from, from + len). What of it lies in s->hdr
 * is copied behind the IP header; the rest is a slice of s->payload.
 */
static void pmtu_frag_build(const struct pmtu_frag *c, uint8_t *blk,
			    uint32_t from, uint32_t len, bool last,
			    struct seg *o)
{
	const struct seg *s = c->s;
	uint32_t extra = 0, pstart;
	uint8_t *ip = blk + c->l3_off;
	uint16_t fo;

	memcpy(blk, s->hdr, c->hlen);
	/* only a fragment at offset 0 may carry the uncopied options */
	if (from > 0 || c->off0 > 0)
		pmtu_opts_fragment(ip);
	if (from < c->tail) {
		extra = c->tail - from < len ? c->tail - from : len;
		memcpy(blk + c->hlen, s->hdr + c->hlen + from, extra);
	}
	pstart = from + extra - c->tail;
	o->hdr = blk;
	o->hdr_len = (uint16_t)(c->hlen + extra);
	o->payload = s->payload + pstart;
	o->payload_len = len - extra;

	/* ip_frag_next(): DF and the reserved bit go, MF unless last */
	fo = (uint16_t)((c->off0 + from) >> 3);
	if (!last || c->mf)
		fo |= IP4_F_MF;
	put_be16(ip + 2, c->hlen - c->l3_off + len);
	put_be16(ip + 6, fo);
	put_sum16(ip + 10, 0);
	put_sum16(ip + 10, csum_ip4_header(ip, c->hlen - c->l3_off));

	o->sum_off = o->hdr_len;
	o->sum = 0;
	o->sum_valid = c->want_sum;
	if (c->want_sum)
		o->sum = csum_partial(o->payload, o->payload_len, 0);
}

/*
 * The IPv4 header must be whole inside s->hdr, behind an IPv4 ethertype
 * (a tap's frame), or at its start (l3_off 0: a tun's packet).
 */
static int pmtu_frag_check(const struct seg *s, uint16_t l3_off)
{
	const uint8_t *ip = s->hdr + l3_off;
	uint32_t ihl;

	if ((l3_off && l3_off < ETH_HLEN) || s->hdr_len > GSO_HDR_MAX ||
	    s->hdr_len < l3_off + PMTU_IP4_HLEN)
		return -EINVAL;
	if (l3_off && get_be16(s->hdr + l3_off - 2) != ETH_P_IP)
		return -EINVAL;
	if (ip[0] >> 4 != 4)
		return -EINVAL;
	ihl = (ip[0] & 0x0fu) * 4;
	if (ihl < PMTU_IP4_HLEN || s->hdr_len < l3_off + ihl)
		return -EINVAL;
	return 0;
}

static void pmtu_frag_init(struct pmtu_frag *c, const struct seg *s,
			   uint16_t l3_off, bool want_sum)
{
	const uint8_t *ip = s->hdr + l3_off;
	uint16_t fo = get_be16(ip + 6);

	c->s = s;
	c->l3_off = l3_off;
	c->hlen = (uint16_t)(l3_off + (ip[0] & 0x0fu) * 4);
	c->tail = s->hdr_len - c->hlen;
	c->data = c->tail + s->payload_len;
	c->off0 = (fo & IP4_OFFSET) * 8u;
	c->mf = (fo & IP4_F_MF) != 0;
	c->want_sum = want_sum;
}

int pmtu_fragment(const struct seg *s, uint16_t l3_off, uint32_t max_len,
		  bool want_sum, struct seg_arena *a)
{
	struct pmtu_frag c;
	uint32_t room, n, i, from = 0, len;
	int err;

	err = pmtu_frag_check(s, l3_off);
	if (err)
		return err;
	if (seg_len(s) <= max_len) {
		if (a->n >= a->cap)
			return -ENOSPC;
		a->segs[a->n++] = *s;
		return 1;
	}
	if (get_be16(s->hdr + l3_off + 6) & IP4_F_DF)
		return -EINVAL;
	/*
	 * Each fragment gets a header checksum of its own: a header whose
	 * checksum is wrong must not come out with good ones (ip_rcv_core()
	 * would have dropped it before ip_do_fragment() saw it).
	 */
	if (csum_ip4_header(s->hdr + l3_off, (s->hdr[l3_off] & 0x0fu) * 4))
		return -EINVAL;
	pmtu_frag_init(&c, s, l3_off, want_sum);
	if (max_len < c.hlen + 8u)
		return -EINVAL;
	room = max_len - c.hlen;
	c.step = room & ~7u;
	/* it does not fit, so c.data > room: whole steps, then the rest */
	n = 1 + (c.data - room + c.step - 1) / c.step;
	if (c.off0 + c.data > PMTU_IP4_MAX)
		return -EINVAL;
	if (n > a->cap - a->n)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		len = i + 1 < n ? c.step : c.data - from;
		pmtu_frag_build(&c, seg_arena_block(a, a->n + i), from, len,
				i + 1 == n, &a->segs[a->n + i]);
		from += len;
	}
	a->n += n;
	return (int)n;
}

uint32_t pmtu_serr_mtu(const struct sock_extended_err *e)
{
	switch (e->ee_origin) {
	case SO_EE_ORIGIN_ICMP:
		return e->ee_type == PMTU_ICMP_DEST_UNREACH &&
		       e->ee_code == PMTU_ICMP_FRAG_NEEDED ? e->ee_info : 0;
	case SO_EE_ORIGIN_ICMP6:
		return e->ee_type == PMTU_ICMPV6_PKT_TOOBIG ? e->ee_info : 0;
	case SO_EE_ORIGIN_LOCAL:
		return e->ee_errno == EMSGSIZE ? e->ee_info : 0;
	}
	return 0;
}

void pmtu_limit_init(struct pmtu_limit *l, uint32_t per_sec, uint32_t burst)
{
	l->last_ns = 0;
	l->ns_per_token = 0;
	if (per_sec) {
		l->ns_per_token = PMTU_NS_PER_SEC / per_sec;
		if (!l->ns_per_token)
			l->ns_per_token = 1;
	}
	l->tokens = burst;
	l->burst = burst;
}

/*
 * Credit whole tokens for the time since last_ns and keep the remainder
 * for next time (icmp_global_allow() drops it and waits 20 ms instead).
 * A clock that went back restarts from now: no wrap-around credit.
 */
static void pmtu_limit_refill(struct pmtu_limit *l, uint64_t now_ns)
{
	uint64_t add;

	if (now_ns < l->last_ns || !l->ns_per_token) {
		l->last_ns = now_ns;
		return;
	}
	add = (now_ns - l->last_ns) / l->ns_per_token;
	if (add >= (uint64_t)(l->burst - l->tokens)) {
		l->tokens = l->burst;
		l->last_ns = now_ns;
		return;
	}
	l->tokens += (uint32_t)add;
	l->last_ns += add * l->ns_per_token;
}

bool pmtu_limit_take(struct pmtu_limit *l, uint64_t now_ns)
{
	pmtu_limit_refill(l, now_ns);
	if (!l->tokens)
		return false;
	l->tokens--;
	return true;
}
