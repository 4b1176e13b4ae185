/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bits of the fuzz harnesses' input formats, for the harnesses and for
 * tests/fuzz-seeds.c, which writes their seeds. The whole formats are
 * described at the top of tests/fuzz-rx.c and tests/fuzz-tx.c.
 */
#ifndef GSOTUN_TESTS_FUZZ_INPUT_H
#define GSOTUN_TESTS_FUZZ_INPUT_H

#include <string.h>
#include "encap/encap.h"
#include "pkt.h"

/*
 * Byte 0 of both: bits 0-1 the encapsulation, enum encap_type (3 was
 * VXLAN again before VXLAN-GPE), and its options.
 */
#define FUZZ_VXLAN 0
#define FUZZ_GRE 1
#define FUZZ_GRE_UDP 2
#define FUZZ_VXLAN_GPE 3
#define FUZZ_TYPES 4
#define FUZZ_KEY 0x04
#define FUZZ_CSUM 0x08
#define FUZZ_SEQ 0x10

_Static_assert(ENCAP_VXLAN_GPE == FUZZ_TYPES - 1,
	       "bits 0-1 of byte 0 no longer name every encapsulation");

/*
 * The mode (--mode tun: a tun's IP packets, encap_cfg.l3) of a type that
 * does not carry it is no configuration gsotun runs (optcheck.c refuses
 * plain VXLAN in a tun, RFC 7348): the type after it that carries the
 * mode and names its id alike, as the encapsulation table says (VXLAN
 * becomes VXLAN-GPE, the same VNI), else any that carries it.
 */
static inline void fuzz_encap_fit(struct encap_cfg *c)
{
	enum encap_type any = c->type, t = any;
	unsigned int i;

	if (encap_carries(c->type, c->l3))
		return;
	for (i = FUZZ_TYPES - 1; i > 0; i--) {
		t = (enum encap_type)((c->type + i) % FUZZ_TYPES);
		if (!encap_carries(t, c->l3))
			continue;
		any = t;
		if (!strcmp(encap_id_name(t), encap_id_name(c->type)))
			break;
	}
	c->type = i ? t : any;
}

/*
 * Both formats: byte 0 as above, the VNI in bytes 3-5, the key in 6-9;
 * l3 where each format keeps its tun bit (RX_TUN, TX_TUN).
 */
static inline void fuzz_encap_cfg(struct encap_cfg *c, const uint8_t *d,
				  bool l3)
{
	memset(c, 0, sizeof(*c));
	c->type = (enum encap_type)(d[0] & 3);
	c->l3 = l3;
	c->has_key = d[0] & FUZZ_KEY;
	c->gre_csum = d[0] & FUZZ_CSUM;
	c->gre_seq = d[0] & FUZZ_SEQ;
	c->vni = pkt_get32(d + 2) & 0xffffff;
	c->key = pkt_get32(d + 6);
	fuzz_encap_fit(c);
}

/*
 * Which header the references here read and write, from what the table
 * says of a type (not its name): an id that may be absent is a GRE key
 * (RFC 2890), so the GRE header; else a VNI, in VXLAN's header, with a
 * next protocol when the type carries IP too (VXLAN-GPE).
 */
enum fuzz_hdr {
	FUZZ_HDR_VXLAN = 0,
	FUZZ_HDR_GPE,
	FUZZ_HDR_GRE,
};

static inline enum fuzz_hdr fuzz_hdr_of(enum encap_type t)
{
	if (encap_ops_table[t]->id_optional)
		return FUZZ_HDR_GRE;
	return encap_carries(t, true) ? FUZZ_HDR_GPE : FUZZ_HDR_VXLAN;
}

/* fuzz-rx.c: byte 0. */
#define RX_NO_GRO 0x20
#define RX_UDP_GRO 0x40
#define RX_TUN 0x80
/* fuzz-rx.c: the ctl byte of a record; bits 3-4 the outer ECN field. */
#define RX_CTL_FIX 0x01
#define RX_CTL_SEED 0x02
#define RX_CTL_END 0x04
#define RX_CTL_ECN(ctl) (((ctl) >> 3) & 3)
#define RX_CTL_ECT1 0x08
#define RX_CTL_CE 0x18

/* fuzz-tx.c: byte 0. */
#define TX_WANT_SUM 0x20
#define TX_FIX 0x40
#define TX_NO_PMTUD 0x80
/* fuzz-tx.c: the low byte of the sequence number, the transmit side. */
#define TX_TOS_INHERIT 0x01
#define TX_DF_INHERIT 0x02
#define TX_ONE_SRC 0x04
#define TX_NO_GSO 0x08
#define TX_NO_DF_SOCK 0x10
#define TX_UNDERLAY6 0x20
#define TX_CONNECTED 0x40
#define TX_SUBMIT 0x80
/* fuzz-tx.c: the top bit of the sequence number, --mode tun. */
#define TX_TUN 0x80000000u

#endif
