// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * queue: a lane's ring completions, each to the transmit or receive path
 * of the queue its tag names; its peers' counters and its events.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include "log.h"
#include "queue.h"

int lane_init(struct lane *l, unsigned int idx, unsigned int peer_cap)
{
	unsigned int i;

	l->idx = idx;
	l->peer = calloc(peer_cap ? peer_cap : 1, sizeof(*l->peer));
	l->ev = calloc(LANE_EVENTS, sizeof(*l->ev));
	if (!l->peer || !l->ev) {
		lane_free(l);
		log_err("out of memory");
		return -ENOMEM;
	}
	l->peer_cap = peer_cap;
	for (i = 0; i < LANE_LEARNT; i++)
		l->learnt[i].peer = -1;
	return 0;
}

void lane_free(struct lane *l)
{
	free(l->peer);
	free(l->ev);
	l->peer = NULL;
	l->ev = NULL;
	l->peer_cap = 0;
}

void lane_forget_peer(struct lane *l, unsigned int i)
{
	unsigned int j;

	l->peer[i] = (struct lane_peer){ 0 };
	for (j = 0; j < l->n_ev; j++)
		if (l->ev[j].peer == (int)i)
			l->ev[j].peer = -1;
	for (j = 0; j < LANE_LEARNT; j++)
		if (l->learnt[j].peer == (int)i)
			l->learnt[j].peer = -1;
}

bool lane_post(struct lane *l, const struct lane_event *e)
{
	bool first = !l->n_ev;

	if (l->n_ev == LANE_EVENTS) {
		l->ev_lost++;
		return false;
	}
	l->ev[l->n_ev++] = *e;
	if (e->kind == LANE_EV_SOCK_ERRORS || l->n_ev == LANE_EVENTS / 2)
		l->posted(l, true);
	else if (first)
		l->posted(l, false);
	return true;
}

void queue_done(void *ctx, uint64_t data, int res)
{
	const struct queue *any = ctx;
	struct queue *q = any->lane->q[TAG_DEV_OF(data)];

	if (TAG_KIND(data) == TAG_WRITE)
		rx_done(q, (uint32_t)data, res);
	else
		tx_done(q, data, res);
}
