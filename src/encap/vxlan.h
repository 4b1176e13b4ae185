/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * VXLAN (RFC 7348): its header's layout and the VNI's place, which
 * VXLAN-GPE (gpe.c) shares.
 */
#ifndef GSOTUN_VXLAN_H
#define GSOTUN_VXLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "encap/encap.h"

/*
 * VXLAN header, RFC 7348 section 5:
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |R|R|R|R|I|R|R|R|            Reserved                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                VXLAN Network Identifier (VNI) |   Reserved    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
#define VXLAN_HLEN 8
#define VXLAN_W0_I 0x08000000u	/* I flag in the first 32-bit word */
#define VXLAN_VNI_MASK 0x00ffffffu

/* The VNI of a VXLAN or VXLAN-GPE header: bytes 4 to 6, either way. */
bool encap_vxlan_peek_id(const uint8_t *pkt, size_t len, uint32_t *id);

/* VXLAN_HLEN, whatever c says: VXLAN's and VXLAN-GPE's hdr_len. */
size_t encap_vxlan_hdr_len(const struct encap_cfg *c);

#endif
