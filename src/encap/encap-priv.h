/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the encapsulations' files (vxlan.c, gre.c, gpe.c) share, and no
 * one else reads: the checks of an inner payload. Inline, so that a row's
 * file calls nothing of encap.c, whose table points at the rows.
 */
#ifndef GSOTUN_ENCAP_PRIV_H
#define GSOTUN_ENCAP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/stats.h"
#include "pkt/gso.h"
#include "encap/encap.h"

/*
 * Smallest inner payload: an Ethernet header (ETH_HLEN), or an IPv4
 * header for an IP packet (l3), as ip_rcv_core() pulls sizeof(struct
 * iphdr) before it looks at the version.
 */
#define ENCAP_INNER_MIN 14
#define ENCAP_INNER_MIN_IP 20

/* What a protocol field announces that is not IP: an Ethernet frame. */
#define ENCAP_VERSION_ETH 0xff

/*
 * Is segment s's IP packet (l3: its header block starts with the IP
 * header) IPv6? The transmit path sends only what frame_parse_ip() took,
 * version 4 or 6.
 */
static inline bool encap_seg_ip6(const struct seg *s)
{
	return s->hdr_len && s->hdr[0] >> 4 == 6;
}

/*
 * The inner payload's length, and with l3 its IP version against the
 * version the encapsulation header announced (4 or 6; ENCAP_VERSION_ETH,
 * in l2, is not checked): the kernel hands
 * the packet to ip_rcv() or ipv6_rcv() by the header's protocol alone,
 * and ip_rcv_core() drops a version that is not 4 (ipv6_rcv() one not 6)
 * as a header error, IPSTATS_MIB_INHDRERRORS: so an inner header fault.
 */
static inline enum drop encap_inner_check(const struct encap_cfg *c,
					  const uint8_t *inner, size_t len,
					  unsigned int version)
{
	if (len < (c->l3 ? ENCAP_INNER_MIN_IP : ENCAP_INNER_MIN))
		return DROP_RX_INNER_SHORT;
	if (c->l3 && inner[0] >> 4 != version)
		return DROP_RX_INNER_HDR;
	return DROP_NONE;
}

#endif
