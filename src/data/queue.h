/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A lane's completions to its queues: the one call a lane's ring makes up
 * (its done), as the queues call nothing above them (doc/design.md).
 */
#ifndef GSOTUN_QUEUE_H
#define GSOTUN_QUEUE_H

#include <stdint.h>

/*
 * Every completion of the lane's ring, handed to tx or rx of the queue
 * its tag names; ctx is any queue of the lane. The queues reach it as
 * their lane's done, as they call nothing above them.
 */
void queue_done(void *ctx, uint64_t data, int res, unsigned int flags);

#endif
