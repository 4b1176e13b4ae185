// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The encapsulations' table and what is asked of it by type or by name;
 * each row, with its header written and stripped, is in its own file
 * (vxlan.c, gre.c, gpe.c). ECN and the outer headers, the same for all.
 */
#include "config.h"

#include <string.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include "base/bytes.h"
#include "base/csum.h"
#include "base/log.h"
#include "pkt/frame.h"
#include "encap/encap.h"

/* Outer headers in front of the encapsulation header. */
#define ENCAP_IP4_HLEN 20
#define ENCAP_IP6_HLEN 40
#define ENCAP_UDP_HLEN 8

#define ENCAP_ROW(type, row) [ENCAP_##type] = &encap_##row,
const struct encap_ops *const encap_ops_table[] = {
	ENCAP_LIST(ENCAP_ROW)
};
#undef ENCAP_ROW

#define ENCAP_N_TYPES (sizeof(encap_ops_table) / sizeof(encap_ops_table[0]))

/* NULL for a type that does not exist. */
static const struct encap_ops *encap_ops_find(enum encap_type t)
{
	if ((unsigned int)t >= ENCAP_N_TYPES)
		return NULL;
	return encap_ops_table[t];
}

/* The row of t; for a type that does not exist, one that says nothing. */
static const struct encap_ops *encap_ops_row(enum encap_type t)
{
	static const struct encap_ops none = {
		.name = "unknown", .id_name = "id", .id_option = "",
	};
	const struct encap_ops *ops = encap_ops_find(t);

	return ops ? ops : &none;
}

/* The configuration was validated: an unknown type here is a bug. */
static const struct encap_ops *encap_ops_get(const struct encap_cfg *c)
{
	const struct encap_ops *ops = encap_ops_find(c->type);

	BUG_ON(!ops);
	return ops;
}

size_t encap_hdr_len(const struct encap_cfg *c)
{
	return encap_ops_get(c)->hdr_len(c);
}

uint8_t *encap_build(const struct encap_cfg *c, struct seg *s, uint32_t seq)
{
	return encap_ops_get(c)->build(c, s, seq);
}

enum drop encap_parse(const struct encap_cfg *c, const uint8_t *pkt,
		      size_t len, struct encap_rx *rx)
{
	rx->tlv = NULL;
	rx->tlv_len = 0;
	return encap_ops_get(c)->parse(c, pkt, len, rx);
}

enum encap_ecn encap_ecn_decap(bool l3, uint8_t *frame, size_t len,
			       uint8_t outer_ecn)
{
	uint16_t old, check;
	struct frame f;
	uint8_t *ip, inner;

	/* Most packets: nothing to do, and nothing parsed. */
	if ((outer_ecn & 3) != ECN_CE)
		return ENCAP_ECN_KEEP;
	/* The walk gro_add() makes too; a frame it refuses, GRO drops. */
	if (frame_parse_as(l3, frame, len, &f) != FRAME_OK || !f.ip)
		return ENCAP_ECN_KEEP;
	ip = frame + f.l3_off;
	inner = f.ethertype == ETH_P_IP ? ip[1] & 3 : (ip[1] >> 4) & 3;
	if (inner == ECN_NOT_ECT)
		return ENCAP_ECN_DROP;
	if (inner == ECN_CE)
		return ENCAP_ECN_KEEP;
	if (f.ethertype == ETH_P_IP) {
		old = get_sum16(ip);
		ip[1] |= ECN_CE;
		check = get_sum16(ip + 10);
		csum_replace2(&check, old, get_sum16(ip));
		put_sum16(ip + 10, check);
	} else {
		ip[1] |= ECN_CE << 4;
	}
	return ENCAP_ECN_MARK;
}

int encap_strip_ip4(const uint8_t *buf, size_t *len, size_t *off)
{
	size_t ihl, tot;

	if (*len < ENCAP_IP4_HLEN || buf[0] >> 4 != 4)
		return -1;
	ihl = (buf[0] & 0x0fu) * 4;
	tot = get_be16(buf + 2);
	if (ihl < ENCAP_IP4_HLEN || tot < ihl || tot > *len)
		return -1;
	*off = ihl;
	*len = tot;
	return 0;
}

uint8_t encap_ecn_encap(uint8_t inner_ecn)
{
	inner_ecn &= 3;
	return inner_ecn == ECN_CE ? ECN_ECT_0 : inner_ecn;
}

const char *encap_name(enum encap_type t)
{
	return encap_ops_row(t)->name;
}

int encap_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < ENCAP_N_TYPES; i++)
		if (!strcmp(name, encap_ops_table[i]->name))
			return (int)i;
	return -1;
}

bool encap_is_udp(enum encap_type t)
{
	return encap_ops_row(t)->ip_proto == IPPROTO_UDP;
}

int encap_ip_proto(enum encap_type t)
{
	return encap_ops_row(t)->ip_proto;
}

void encap_set_id(struct encap_cfg *c, uint32_t id)
{
	if (encap_ops_get(c)->id_optional) {
		c->key = id;
		c->has_key = true;
	} else {
		c->vni = id;
	}
}

const char *encap_id_name(enum encap_type t)
{
	return encap_ops_row(t)->id_name;
}

const char *encap_id_option(enum encap_type t)
{
	return encap_ops_row(t)->id_option;
}

uint16_t encap_default_port(enum encap_type t)
{
	return encap_ops_row(t)->port;
}

uint16_t encap_linux_port(enum encap_type t)
{
	return encap_ops_row(t)->linux_port;
}

bool encap_carries(enum encap_type t, bool l3)
{
	const struct encap_ops *ops = encap_ops_row(t);

	return l3 ? ops->l3 : ops->l2;
}

bool encap_takes(enum encap_type t, enum encap_opt o)
{
	const struct encap_ops *ops = encap_ops_row(t);

	switch (o) {
	case ENCAP_OPT_UDP:
		return ops->ip_proto == IPPROTO_UDP;
	case ENCAP_OPT_VNI:
		return !strcmp(ops->id_option, "vni");
	case ENCAP_OPT_KEY:
		return !strcmp(ops->id_option, "key");
	case ENCAP_OPT_SEQ:
		return ops->seq;
	case ENCAP_OPT_EVPN:
		return ops->evpn;
	case ENCAP_OPT_TUN:
		return ops->l3;
	case ENCAP_OPT_ENCAP:
		return encap_ops_find(t) != NULL;
	case ENCAP_OPT_TLV:
		return ops->tlv;
	}
	return false;
}

bool encap_drop_foreign(enum encap_type t, enum drop why)
{
	const enum drop *d = encap_ops_row(t)->foreign;

	for (; d && *d != DROP_NONE; d++)
		if (*d == why)
			return true;
	return false;
}

unsigned int encap_count(void)
{
	return ENCAP_N_TYPES;
}

/* s after the *at bytes of buf, cut to len with its NUL. */
static void encap_names_put(char *buf, size_t len, size_t *at, const char *s)
{
	*at += snprintf(buf + *at, len - *at, "%s", s);
	if (*at >= len)
		*at = len - 1;
}

const char *encap_names(char *buf, size_t len, enum encap_opt o, bool takes,
			const char *conj)
{
	const char *names[ENCAP_N_TYPES];
	unsigned int t, n = 0, i;
	size_t at = 0;

	for (t = 0; t < ENCAP_N_TYPES; t++)
		if (encap_takes(t, o) == takes)
			names[n++] = encap_ops_table[t]->name;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i && i + 1 < n) {
			encap_names_put(buf, len, &at, ", ");
		} else if (i) {
			encap_names_put(buf, len, &at, " ");
			encap_names_put(buf, len, &at, conj);
			encap_names_put(buf, len, &at, " ");
		}
		encap_names_put(buf, len, &at, names[i]);
	}
	return buf;
}

/*
 * Outer IP + UDP (when UDP) + encapsulation header. The inner Ethernet
 * header is not included: tap MTU = underlay MTU - overhead - 14, e.g.
 * VXLAN over IPv4: 1500 - (20 + 8 + 8) - 14 = 1450, the MTU the kernel's
 * vxlan picks (its VXLAN_HEADROOM, 50, counts the inner Ethernet header).
 */
size_t encap_overhead(const struct encap_cfg *c, bool ipv6_underlay)
{
	const struct encap_ops *ops = encap_ops_get(c);
	size_t n = ipv6_underlay ? ENCAP_IP6_HLEN : ENCAP_IP4_HLEN;

	if (encap_is_udp(c->type))
		n += ENCAP_UDP_HLEN;
	return n + (ops->hdr_max ? ops->hdr_max(c) : ops->hdr_len(c));
}

bool encap_peek_id(enum encap_type type, const uint8_t *pkt, size_t len,
		   uint32_t *id)
{
	const struct encap_ops *ops = encap_ops_find(type);

	return ops && ops->peek_id(pkt, len, id);
}
