/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internet checksum (RFC 1071): fast one's-complement sum, fold, incremental
 * update (RFC 1624), pseudo-headers and local checksum offload.
 */
#ifndef GSOTUN_CSUM_H
#define GSOTUN_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

/*
 * Conventions follow the kernel's: a "wsum" (uint32_t) is an unfolded
 * one's-complement sum of 16-bit words as they lie in memory (so values
 * read from packets need no byte swapping); csum_fold() returns the
 * complemented 16-bit result ready to store in a checksum field.
 */

/* Sum of len bytes at buf (any alignment) added to sum. */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);

/* One's-complement add/sub of two wsums. */
uint32_t csum_add(uint32_t a, uint32_t b);
uint32_t csum_sub(uint32_t a, uint32_t b);

/* Add a block sum that starts at an odd byte offset (kernel csum_block_add). */
uint32_t csum_block_add(uint32_t sum, uint32_t block, size_t offset);

/* Fold to 16 bits, not complemented. */
uint16_t csum_fold16(uint32_t sum);
/* Fold and complement: the value for a checksum field (kernel csum_fold). */
uint16_t csum_fold(uint32_t sum);

/*
 * RFC 1624 eqn. 3: update a checksum field *check when a 16-bit word changes
 * from old to new (all in network byte order as in memory).
 */
void csum_replace2(uint16_t *check, uint16_t old, uint16_t new);
/* Same for a 32-bit field. */
void csum_replace4(uint16_t *check, uint32_t old, uint32_t new);

/* IPv4 header checksum over ihl*4 bytes at iph, value to store. */
uint16_t csum_ip4_header(const void *iph, size_t len);

/*
 * Pseudo-header sums (RFC 793, RFC 8200 section 8.1), unfolded. len is the
 * L4 length in host byte order; addresses are in network byte order.
 */
uint32_t csum_pseudo4(const struct in_addr *saddr, const struct in_addr *daddr,
		      uint8_t proto, uint32_t len);
uint32_t csum_pseudo6(const struct in6_addr *saddr,
		      const struct in6_addr *daddr, uint8_t proto,
		      uint32_t len);

/*
 * Local checksum offload (kernel lco_csum()): once an inner L4 checksum is
 * in place, the sum from the inner L4 header to the end of the packet is the
 * complement of the inner pseudo-header sum. pseudo is that unfolded
 * pseudo-header sum; the result is the wsum of the inner L4 header and
 * everything after it.
 */
uint32_t csum_lco_tail(uint32_t pseudo);

#endif
