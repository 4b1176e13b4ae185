// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Internet checksum (RFC 1071) for the segmentation and encapsulation paths:
 * a fast byte-stream sum, folding, RFC 1624 updates, pseudo-headers and LCO.
 */
#include "config.h"

#include <string.h>
#include <arpa/inet.h>
#include "base/csum.h"

/*
 * A one's-complement sum is independent of the word size it is computed in
 * and of the host's byte order (RFC 1071 section 2 (B) and (C)): summing
 * native 64-bit loads with end-around carry and folding down to 16 bits
 * gives the same result as summing 16-bit words as they lie in memory, as
 * long as every word starts at an even offset of the byte stream.
 */

static inline uint64_t csum_add64(uint64_t a, uint64_t b)
{
	a += b;
	return a + (a < b);
}

static inline uint64_t csum_load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t csum_fold64(uint64_t s)
{
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	return (uint32_t)s;
}

/*
 * The last n < 8 bytes, as pieces that each start at an even offset so
 * each can be added as a number on its own.  The final odd byte is the
 * first byte of a zero-padded word, whatever the host's byte order.
 */
static inline uint64_t csum_tail(const unsigned char *p, size_t n)
{
	unsigned char last[2] = { 0, 0 };
	uint64_t s = 0;
	uint32_t w4;
	uint16_t w2;

	if (n & 4) {
		memcpy(&w4, p, 4);
		s += w4;
		p += 4;
	}
	if (n & 2) {
		memcpy(&w2, p, 2);
		s += w2;
		p += 2;
	}
	if (n & 1) {
		last[0] = *p;
		memcpy(&w2, last, 2);
		s += w2;
	}
	return s;
}

#if defined(__x86_64__) && !defined(CSUM_GENERIC)

/*
 * One add-with-carry chain: the carry of each addition goes into the next,
 * so no carry is lost and none needs to be counted separately.  This is how
 * the kernel's csum_partial() for x86-64 gets about one 8-byte word per
 * cycle.  Unaligned operands are legal and cheap on x86-64.
 */
static inline uint64_t csum_blk64(const unsigned char *p, uint64_t s)
{
	__asm__("addq 0*8(%[p]), %[s]\n\t"
		"adcq 1*8(%[p]), %[s]\n\t"
		"adcq 2*8(%[p]), %[s]\n\t"
		"adcq 3*8(%[p]), %[s]\n\t"
		"adcq 4*8(%[p]), %[s]\n\t"
		"adcq 5*8(%[p]), %[s]\n\t"
		"adcq 6*8(%[p]), %[s]\n\t"
		"adcq 7*8(%[p]), %[s]\n\t"
		"adcq $0, %[s]"
		: [s] "+r"(s)
		: [p] "r"(p), "m"(*(const unsigned char(*)[64])p)
		: "cc");
	return s;
}

#else

/*
 * Portable: two independent accumulators, each addition followed by its
 * end-around carry; the compiler turns "a < b" into the carry flag.
 */
static inline uint64_t csum_blk64(const unsigned char *p, uint64_t s)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < 64; i += 16) {
		s = csum_add64(s, csum_load64(p + i));
		t = csum_add64(t, csum_load64(p + i + 8));
	}
	return csum_add64(s, t);
}

#endif

/* Sum of len bytes starting at an even offset of the stream, unfolded. */
static uint64_t csum_bytes(const unsigned char *p, size_t len)
{
	uint64_t s = 0;

	for (; len >= 64; p += 64, len -= 64)
		s = csum_blk64(p, s);
	for (; len >= 8; p += 8, len -= 8)
		s = csum_add64(s, csum_load64(p));
	if (len)
		s = csum_add64(s, csum_tail(p, len));
	return s;
}

/*
 * The sum is of the byte stream at buf, so an odd address is only an
 * alignment matter: unaligned loads cost nothing measurable here, and
 * aligning first (as the kernel's do_csum() does) was slower on 1500 bytes.
 */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	return csum_add(csum_fold64(csum_bytes(buf, len)), sum);
}

uint32_t csum_add(uint32_t a, uint32_t b)
{
	a += b;
	return a + (a < b);
}

uint32_t csum_sub(uint32_t a, uint32_t b)
{
	return csum_add(a, ~b);
}

/*
 * A block summed on its own starting at an odd offset of the packet has
 * its bytes in the wrong halves of each word: rotating by 8 swaps them
 * modulo 0xffff (kernel csum_shift()).
 */
uint32_t csum_block_add(uint32_t sum, uint32_t block, size_t offset)
{
	if (offset & 1)
		block = (block >> 8) | (block << 24);
	return csum_add(sum, block);
}

uint16_t csum_fold16(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t csum_fold(uint32_t sum)
{
	return (uint16_t)~csum_fold16(sum);
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), as kernel csum_replace2(). */
void csum_replace2(uint16_t *check, uint16_t old, uint16_t new)
{
	uint32_t s;

	s = csum_add((uint16_t)~*check, (uint16_t)~old);
	*check = csum_fold(csum_add(s, new));
}

/* ~old over 32 bits is the negation of both of its 16-bit words at once. */
void csum_replace4(uint16_t *check, uint32_t old, uint32_t new)
{
	uint32_t s;

	s = csum_add((uint16_t)~*check, ~old);
	*check = csum_fold(csum_add(s, new));
}

/*
 * Like the kernel's ip_fast_csum(): sums the header as it is, so the check
 * field must be zero to compute a value to store; over a valid header the
 * result is 0.
 */
uint16_t csum_ip4_header(const void *iph, size_t len)
{
	return csum_fold(csum_partial(iph, len, 0));
}

/*
 * RFC 793 section 3.1: saddr, daddr, zero, protocol, TCP length.  The
 * length is added as 32 bits in network order, which equals the 16-bit
 * field for any IPv4 length and extends it for GSO super-frames over 64 KB
 * as the kernel's csum_tcpudp_nofold() does.
 */
uint32_t csum_pseudo4(const struct in_addr *saddr, const struct in_addr *daddr,
		      uint8_t proto, uint32_t len)
{
	uint32_t s;

	s = csum_add(saddr->s_addr, daddr->s_addr);
	s = csum_add(s, htonl(len));
	return csum_add(s, htons(proto));
}

/* RFC 8200 section 8.1: 32-bit upper-layer length, 24 zero bits, next hdr. */
uint32_t csum_pseudo6(const struct in6_addr *saddr,
		      const struct in6_addr *daddr, uint8_t proto,
		      uint32_t len)
{
	uint32_t s;

	s = csum_partial(saddr, sizeof(*saddr), 0);
	s = csum_partial(daddr, sizeof(*daddr), s);
	s = csum_add(s, htonl(len));
	return csum_add(s, htonl(proto));
}

/*
 * Kernel lco_csum(): the inner check field holds ~csum_fold(pseudo), and
 * sum(L4 .. end) + pseudo folds to 0xffff (negative zero), so the tail sums
 * to -pseudo, that is csum_fold(pseudo).  When fold16(pseudo) is 0xffff this
 * gives +0 where the bytes fold to -0: equal in one's complement, and never
 * visible once anything non-zero (an outer header) is added.
 */
uint32_t csum_lco_tail(uint32_t pseudo)
{
	return csum_fold(pseudo);
}
