// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A dummy encapsulation, as a new one is written: this file (its row and
 * its header's functions) and its line of the table (encap-dummy.h), and
 * nothing else of src/. It rides on UDP port 7777, carries Ethernet
 * frames only, and its tap's id is a VNI (--vni). Its header, 4 bytes:
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Magic 0xd5   |                      VNI                      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#include "config.h"

#include <netinet/in.h>
#include "base/bytes.h"
#include "encap/encap-priv.h"

#define DUMMY_HLEN 4
#define DUMMY_MAGIC 0xd5u
#define DUMMY_PORT 7777

_Static_assert(DUMMY_HLEN <= GSO_HEADROOM,
	       "the dummy header does not fit in the segment headroom");

static bool dummy_peek_id(const uint8_t *pkt, size_t len, uint32_t *id)
{
	if (len < DUMMY_HLEN)
		return false;
	*id = get_be32(pkt) & 0x00ffffffu;
	return true;
}

static size_t dummy_hdr_len(const struct encap_cfg *c)
{
	return DUMMY_HLEN;
}

static uint8_t *dummy_build(const struct encap_cfg *c, const struct seg *s,
			    uint32_t seq)
{
	uint8_t *h = s->hdr - DUMMY_HLEN;

	put_be32(h, DUMMY_MAGIC << 24 | (c->vni & 0x00ffffffu));
	return h;
}

static enum drop dummy_parse(const struct encap_cfg *c, const uint8_t *pkt,
			     size_t len, struct encap_rx *rx)
{
	uint32_t w;
	enum drop err;

	if (len < DUMMY_HLEN)
		return DROP_RX_SHORT;
	w = get_be32(pkt);
	if (w >> 24 != DUMMY_MAGIC)
		return DROP_RX_FLAGS;
	if ((w & 0x00ffffffu) != (c->vni & 0x00ffffffu))
		return DROP_RX_VNI;
	err = encap_inner_check(c, pkt + DUMMY_HLEN, len - DUMMY_HLEN,
				ENCAP_VERSION_ETH);
	if (err)
		return err;
	rx->inner_off = DUMMY_HLEN;
	rx->sum_valid = false;
	return DROP_NONE;
}

static const enum drop dummy_drops[] = {
	DROP_RX_SHORT, DROP_RX_FLAGS, DROP_RX_VNI, DROP_RX_INNER_SHORT,
	DROP_NONE,
};

const struct encap_ops encap_dummy = {
	.name = "dummy",
	.id_name = "VNI",
	.id_option = "vni",
	.id_optional = false,
	.ip_proto = IPPROTO_UDP,
	.port = DUMMY_PORT,
	.linux_port = 0,
	.seq = false,
	.l2 = true,
	.l3 = false,
	.evpn = false,
	.drops = dummy_drops,
	.hdr_len = dummy_hdr_len,
	.build = dummy_build,
	.parse = dummy_parse,
	.peek_id = dummy_peek_id,
};
