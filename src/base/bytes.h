/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unaligned big-endian loads and stores for packet headers, and checksum
 * fields kept as they lie in memory (the csum.h convention); hex digits.
 */
#ifndef GSOTUN_BYTES_H
#define GSOTUN_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

static inline uint16_t get_sum16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put_sum16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The value of hex digit c, or -1. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
