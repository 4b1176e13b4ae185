/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Path MTU: the inner frame budget a path allows, ICMP "too big" replies for
 * the tap, RFC 791 fragmentation of a segment, an ICMP token bucket. Pure.
 */
#ifndef GSOTUN_PMTU_H
#define GSOTUN_PMTU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "encap/encap.h"

#define PMTU_FLOOR4 552		/* lowest underlay path MTU believed, IPv4 */
#define PMTU_FLOOR6 1280	/* IPv6 (RFC 8200 section 5) */
/*
 * Largest ICMP frame pmtu_icmp_build() writes: L2 (Ethernet + 2 VLAN tags,
 * none in a tun) + 1280.
 */
#define PMTU_ICMP_MAX (14 + 8 + 1280)

/*
 * Largest inner frame (Ethernet header included, as seg_len() counts) that
 * fits one underlay packet on a path of path_mtu bytes: path_mtu less
 * encap_overhead(). path_mtu is first capped at the largest packet the
 * underlay family can carry (IPv4 65535, IPv6 40 + 65535). 0 when not even
 * an Ethernet header fits.
 */
uint32_t pmtu_frame_budget(const struct encap_cfg *c, bool ipv6_underlay,
			   uint32_t path_mtu);

/* pmtu_frame_budget(), but no limit (UINT32_MAX) for path_mtu 0: unknown. */
uint32_t pmtu_path_budget(const struct encap_cfg *c, bool ipv6_underlay,
			  uint32_t path_mtu);

/*
 * A learned path MTU (from an ICMP error about our own packets):
 * min(cur, reported), but never below the floor of the family (and never
 * above cur); a reported 0 or nonsense (> cur) leaves cur.
 */
uint32_t pmtu_lower(uint32_t cur, uint32_t reported, bool ipv6_underlay);

/*
 * Does the frame forbid fragmentation: IPv6 always, IPv4 with DF.
 * false for non-IP.
 */
bool pmtu_frame_df(const struct frame *f);

/* What to do with a frame, given the path's budget (pmtu_fit()). */
enum pmtu_fit {
	PMTU_FIT_SEND = 0,	/* fits, or --pmtud off: send it as it is */
	PMTU_FIT_CUT,		/* TCP: segments of *mss_cap payload bytes */
	PMTU_FIT_FRAGMENT,	/* IPv4 without DF: pmtu_fragment() */
	PMTU_FIT_ICMP,		/* drop it, answer with pmtu_icmp_build() */
	PMTU_FIT_DROP,		/* drop it: not IP, or not even headers fit */
};

/*
 * Compare each packet f puts on the wire (each segment of a super-frame,
 * never the super-frame) with budget (pmtu_frame_budget()). TCP frames
 * whose checksum is left to us (a GSO frame, or NEEDS_CSUM at the TCP
 * check field) are cut finer: TCP allows any boundary. A non-GSO one is
 * then rewritten as a TCP super-frame of one segment, its check field
 * holding the pseudo-header seed as the tap leaves it. Other frames: IPv4
 * without DF is fragmented, the rest is answered with ICMP (as the
 * kernel's skb_tunnel_check_pmtu()), except IPv6 packets of 1280 bytes or
 * less (RFC 8200 section 5: the tunnel must carry them; the outer packet
 * is fragmented). pmtud false sends them as they are.
 */
enum pmtu_fit pmtu_fit(struct frame *f, uint32_t budget, bool pmtud,
		       uint16_t *mss_cap);

/*
 * The MTU an ICMP about f reports: what fits of its L3 packet, at least
 * 1280 for IPv6 (smaller packets get through, see pmtu_fit()) and 68 for
 * IPv4 (RFC 791).
 */
uint32_t pmtu_icmp_mtu(const struct frame *f, uint32_t budget);

/*
 * Build into out an Ethernet frame (f's L2 header up to f->l3_off, VLAN tags
 * kept, MAC addresses swapped) carrying an ICMP "fragmentation needed"
 * (type 3 code 4, next-hop MTU = mtu; RFC 792, RFC 1191) for an IPv4 frame,
 * or an ICMPv6 "packet too big" (type 2, MTU = mtu; RFC 4443 section 3.2)
 * for IPv6, addressed from the original destination to the original source
 * and quoting the original IP packet (576 / 1280 bytes at most in all).
 * mtu is what to report: the caller computes it (an IPv4 value above 65535
 * is reported as 65535).
 *
 * Returns the frame length, or 0 when no ICMP may be sent about this frame
 * (non-IP; a non-first fragment; an ICMP error or an ICMP whose type is not
 * in the frame; a source that is unspecified, multicast, broadcast or
 * loopback; an IPv4 multicast or broadcast destination) or when out_len is
 * too small. PMTU_ICMP_MAX is enough for frames with up to 2 VLAN tags.
 */
size_t pmtu_icmp_build(const struct frame *f, uint32_t mtu, uint8_t *out,
		       size_t out_len);

/*
 * pmtu_icmp_build() for a packet that has no route (a tun's, --route):
 * ICMP type 3 code 0 "net unreachable" (RFC 792; as a router, RFC 1812
 * section 5.2.7.1), or ICMPv6 type 1 code 0 "no route to destination"
 * (RFC 4443 section 3.1), which may not answer a packet to a multicast
 * group (section 2.4 (e.3)). The same rules and addresses otherwise.
 */
size_t pmtu_icmp_unreach_build(const struct frame *f, uint8_t *out,
			       size_t out_len);

/*
 * Cut segment s (an inner frame carrying an IPv4 packet whose header starts
 * at l3_off inside s->hdr) into IPv4 fragments of at most max_len bytes of
 * inner frame each, appended to arena a, as ip_do_fragment() does (RFC 791
 * section 3.2): data a multiple of 8 but in the last, MF but on the last
 * (unless s had MF), DF cleared, options without the copied flag NOP'd in
 * every fragment at offset > 0 (ip_options_fragment()). Payload slices
 * point into s->payload (no payload copy). sum_off is each fragment's
 * hdr_len; with want_sum, sum is the sum of the payload slice (sum_valid),
 * else sum_valid is false. s itself must not be in a's free slots.
 *
 * Returns the number of fragments (1 when s already fits: a copy of *s),
 * -ENOSPC if a has no room for them, -EINVAL if max_len cannot hold the L2
 * + IP header and 8 data bytes, the packet is not IPv4, its header is not
 * in s->hdr (or s->hdr_len > GSO_HDR_MAX), DF is set, its header checksum
 * is wrong, or the offsets would pass 65535.
 */
int pmtu_fragment(const struct seg *s, uint16_t l3_off, uint32_t max_len,
		  bool want_sum, struct seg_arena *a);

struct sock_extended_err;

/*
 * The MTU an error from the socket's error queue reports for a packet we
 * sent: ICMP "fragmentation needed" (type 3 code 4), ICMPv6 "packet too
 * big", or a local EMSGSIZE (ip_local_error()); 0 for any other error.
 */
uint32_t pmtu_serr_mtu(const struct sock_extended_err *e);

/*
 * Token bucket for ICMP generation, like the kernel's icmp_global_allow()
 * (icmp_msgs_per_sec, icmp_msgs_burst). Pure: time comes from the caller.
 */
struct pmtu_limit {
	uint64_t last_ns;	/* time up to which tokens were credited */
	uint64_t ns_per_token;	/* 0: never refills */
	uint32_t tokens;
	uint32_t burst;
};

/* per_sec tokens a second, at most burst banked; starts full. */
void pmtu_limit_init(struct pmtu_limit *l, uint32_t per_sec, uint32_t burst);

/*
 * true: send, one token taken. Refills by the time elapsed since the last
 * credit, capped at burst; a now_ns earlier than before gives nothing.
 */
bool pmtu_limit_take(struct pmtu_limit *l, uint64_t now_ns);

#endif
