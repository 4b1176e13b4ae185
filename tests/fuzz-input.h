/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bits of the fuzz harnesses' input formats, for the harnesses and for
 * tests/fuzz-seeds.c, which writes their seeds. The whole formats are
 * described at the top of tests/fuzz-rx.c and tests/fuzz-tx.c.
 */
#ifndef GSOTUN_TESTS_FUZZ_INPUT_H
#define GSOTUN_TESTS_FUZZ_INPUT_H

#include <string.h>
#include "encap.h"
#include "pkt.h"

/* Byte 0 of both: the encapsulation (3 is VXLAN too) and its options. */
#define FUZZ_VXLAN 0
#define FUZZ_GRE 1
#define FUZZ_GRE_UDP 2
#define FUZZ_KEY 0x04
#define FUZZ_CSUM 0x08
#define FUZZ_SEQ 0x10

/* Both formats: byte 0 as above, the VNI in bytes 3-5, the key in 6-9. */
static inline void fuzz_encap_cfg(struct encap_cfg *c, const uint8_t *d)
{
	memset(c, 0, sizeof(*c));
	c->type = (enum encap_type)((d[0] & 3) % 3);
	c->has_key = d[0] & FUZZ_KEY;
	c->gre_csum = d[0] & FUZZ_CSUM;
	c->gre_seq = d[0] & FUZZ_SEQ;
	c->vni = pkt_get32(d + 2) & 0xffffff;
	c->key = pkt_get32(d + 6);
}

/* fuzz-rx.c: byte 0. */
#define RX_NO_GRO 0x20
#define RX_UDP_GRO 0x40
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

#endif
