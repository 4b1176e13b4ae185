/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transmit buffer pool: sets of buffers counted by the sends that
 * point into them, free again only when the last has completed. Pure.
 */
#ifndef GSOTUN_POOL_H
#define GSOTUN_POOL_H

#include <stdbool.h>

#define POOL_MAX 8

/*
 * refs[i] counts who still needs set i: one for its owner while frames
 * are read into it and planned, one per send in flight.
 */
struct pool {
	unsigned int n;
	unsigned int refs[POOL_MAX];
};

/* n sets (1..POOL_MAX), all free. */
void pool_init(struct pool *p, unsigned int n);

/* Take a free set, held by its owner (one reference); -1 if none. */
int pool_take(struct pool *p);

/* n more references to set i (sends that point into it). */
void pool_ref(struct pool *p, unsigned int i, unsigned int n);

/*
 * Drop one reference to set i; true when that was the last and the set is
 * free. Dropping one that is not held is a bug.
 */
bool pool_put(struct pool *p, unsigned int i);

/* How many sets are free. */
unsigned int pool_free(const struct pool *p);

/* Does anyone but its owner still need set i: sends in flight? */
bool pool_busy(const struct pool *p, unsigned int i);

#endif
