/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012): the keyed hash of the
 * forwarding table (fdb.c) and of the stable MACs (mac.c), written from
 * the paper ("SipHash: a fast short-input PRF"). Pure.
 */
#ifndef GSOTUN_SIPHASH_H
#define GSOTUN_SIPHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Inline: the forwarding table hashes 8 bytes per frame, which the
 * compiler unrolls with the length known.
 */
static inline uint64_t siphash_rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

/* 8 bytes at p as a little-endian word: a half of a 16-byte key. */
static inline uint64_t siphash_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline void siphash_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = siphash_rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = siphash_rotl(v[0], 32);
	v[2] += v[3];
	v[3] = siphash_rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = siphash_rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = siphash_rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = siphash_rotl(v[2], 32);
}

/* Two compression rounds per 8-byte word. */
static inline void siphash_word(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	siphash_round(v);
	siphash_round(v);
	v[0] ^= m;
}

/* SipHash-2-4 of len bytes at data under the key k0, k1. */
static inline uint64_t siphash24(uint64_t k0, uint64_t k1, const void *data,
				 size_t len)
{
	const uint8_t *p = data;
	uint64_t v[4] = {
		k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
		k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull,
	};
	uint8_t last[8] = { 0 };
	size_t n;

	for (n = len; n >= 8; n -= 8, p += 8)
		siphash_word(v, siphash_le64(p));
	/* The last word: the bytes left, and the length in its top byte. */
	memcpy(last, p, n);
	last[7] = (uint8_t)len;
	siphash_word(v, siphash_le64(last));
	/* Four finalisation rounds. */
	v[2] ^= 0xff;
	siphash_round(v);
	siphash_round(v);
	siphash_round(v);
	siphash_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

#endif
