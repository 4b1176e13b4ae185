// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Micro-benchmark: csum_partial() against memcpy() on the same buffers,
 * cache-hot (64 KiB, one super-frame) and from memory (64 MiB), in GB/s.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/csum.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Keeps the compiler from dropping work whose result is unused. */
static volatile uint32_t sink;

static double bench_csum(const uint8_t *buf, size_t len, size_t rounds)
{
	uint32_t sum = 0;
	double t0 = now();
	size_t i;

	for (i = 0; i < rounds; i++)
		sum = csum_partial(buf, len, sum);
	sink = sum;
	return (double)len * rounds / (now() - t0) / 1e9;
}

static double bench_memcpy(uint8_t *dst, const uint8_t *src, size_t len,
			   size_t rounds)
{
	double t0 = now();
	size_t i;

	for (i = 0; i < rounds; i++) {
		memcpy(dst, src, len);
		sink = dst[i % len];
	}
	return (double)len * rounds / (now() - t0) / 1e9;
}

static int bench_size(size_t len, size_t bytes)
{
	size_t rounds = bytes / len ? bytes / len : 1;
	uint8_t *src = malloc(len), *dst = malloc(len);
	size_t i;

	if (!src || !dst) {
		free(src);
		free(dst);
		return -1;
	}
	for (i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	memcpy(dst, src, len);
	/* One warm-up pass of each, then the timed runs. */
	bench_csum(src, len, 1);
	bench_memcpy(dst, src, len, 1);
	printf("%-9zu %10.1f %10.1f\n", len, bench_csum(src, len, rounds),
	       bench_memcpy(dst, src, len, rounds));
	free(src);
	free(dst);
	return 0;
}

int main(void)
{
	static const size_t sizes[] = { 1500, 65536, 64 << 20 };
	size_t i;

	printf("%-9s %10s %10s\n", "bytes", "csum GB/s", "memcpy GB/s");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (bench_size(sizes[i], (size_t)8 << 30) < 0)
			return 1;
	return 0;
}
