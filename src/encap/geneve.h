/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Geneve (RFC 8926): the options a tunnel sends after its base header,
 * one "CLASS:TYPE:HEX" value at a time, for the configuration to add.
 */
#ifndef GSOTUN_GENEVE_H
#define GSOTUN_GENEVE_H

#include <stddef.h>
#include <stdint.h>
#include "encap/encap.h"

/* An option's header: class 16 bits, type 8, R 3, length 5 (words). */
#define GENEVE_OPT_HLEN 4
/* An option's length field, its fourth byte: its data's 4-byte words. */
#define GENEVE_OPT_LEN_MASK 0x1f
/* Its data: the length field's 5 bits of 4-byte words, 0 to 124 bytes. */
#define GENEVE_OPT_DATA_MAX 124

/*
 * Parse one option, "CLASS:TYPE:HEX" (class 0..ffff and type 0..ff in
 * hex, the data as hex digits, a multiple of 4 bytes, at most 124; none
 * is an option of length 0), and append it to c's options, which must
 * stay within ENCAP_GENEVE_OPTS_MAX bytes. Its type's high bit is the
 * critical bit (RFC 8926 section 3.5), which sets the header's C bit.
 * 0; -EINVAL for a value that does not parse, -ENOSPC when the options
 * would pass 252 bytes (c is left as it was).
 */
int encap_geneve_opt_add(struct encap_cfg *c, const char *text);

#endif
