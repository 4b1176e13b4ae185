/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012): the keyed hash of the
 * forwarding table (fdb.c) and of the stable MACs (mac.c). Pure.
 */
#ifndef GSOTUN_SIPHASH_H
#define GSOTUN_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* 8 bytes at p as a little-endian word: a half of a 16-byte key. */
uint64_t siphash_le64(const uint8_t *p);

/* SipHash-2-4 of len bytes at data under the key k0, k1. */
uint64_t siphash24(uint64_t k0, uint64_t k1, const void *data, size_t len);

#endif
