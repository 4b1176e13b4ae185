// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * queue: a lane's ring completions, each to the transmit or receive path
 * of the queue its tag names.
 */
#include "config.h"

#include "data/queue.h"
#include "data/rx.h"
#include "data/tx.h"
#include "data/types.h"

void queue_done(void *ctx, uint64_t data, int res, unsigned int flags)
{
	const struct queue *any = ctx;
	struct queue *q = any->lane->q[TAG_DEV_OF(data)];

	if (TAG_KIND(data) == TAG_WRITE)
		rx_done(q, (uint32_t)data, res);
	else
		tx_done(q, data, res, flags);
}
