/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Watching a segment arena (struct seg_arena) around an append, for
 * tests/unit-gso.c and tests/unit-pmtu.c: what the call may not touch is
 * filled with a pattern first and compared after.
 */
#ifndef GSOTUN_TESTS_ARENA_H
#define GSOTUN_TESTS_ARENA_H

#include <stdbool.h>
#include <string.h>
#include "pkt/gso.h"

/* The first n slots and seg entries, and room for a copy of them. */
struct arena_watch {
	uint8_t *slots, *slots_was;
	struct seg *segs, *segs_was;
	unsigned int n;
};

/*
 * Fill the watched slots and entries with patterns, keep a copy, and set
 * a up over them with room for cap segments, pre of them taken already.
 */
static inline void arena_watch_start(const struct arena_watch *w,
				     struct seg_arena *a, unsigned int cap,
				     unsigned int pre)
{
	size_t slots = (size_t)w->n * GSO_SLOT;
	size_t segs = w->n * sizeof(w->segs[0]);

	memset(w->slots, 0x5a, slots);
	memset(w->segs, 0xa5, segs);
	memcpy(w->slots_was, w->slots, slots);
	memcpy(w->segs_was, w->segs, segs);
	seg_arena_init(a, w->slots, w->segs, cap);
	a->n = pre;
}

/* The watched slots and entries, but those in [from, to), as they were. */
static inline bool arena_untouched_but(const struct arena_watch *w,
				       unsigned int from, unsigned int to)
{
	size_t a = (size_t)from * GSO_SLOT, b = (size_t)to * GSO_SLOT;
	size_t end = (size_t)w->n * GSO_SLOT;

	return !memcmp(w->slots, w->slots_was, a) &&
	       !memcmp(w->slots + b, w->slots_was + b, end - b) &&
	       !memcmp(w->segs, w->segs_was, from * sizeof(w->segs[0])) &&
	       !memcmp(w->segs + to, w->segs_was + to,
		       (w->n - to) * sizeof(w->segs[0]));
}

#endif
