/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The time that rate limits and the forwarding table's ages are kept in:
 * CLOCK_MONOTONIC in nanoseconds, the coarse clock (a tick's resolution
 * is plenty for them, and it is the cheapest to read per packet).
 */
#ifndef GSOTUN_CLOCK_H
#define GSOTUN_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * CLOCK_MONOTONIC itself, to the nanosecond (the vDSO's, no system
 * call): for spans shorter than a tick, --busy-poll's microseconds.
 */
static inline uint64_t clock_fine_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
