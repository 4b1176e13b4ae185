/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A lane (data/types.h's struct lane): its counters of each peer, the
 * events its queues leave the main thread, the sources it handed up.
 */
#ifndef GSOTUN_LANE_H
#define GSOTUN_LANE_H

#include <stdbool.h>
#include <stdint.h>
#include "data/types.h"

/* Room for the counters of cap peers, and the events. 0 or -ENOMEM. */
int lane_init(struct lane *l, unsigned int idx, unsigned int peer_cap);
void lane_free(struct lane *l);

/* The entry of the table of l for a source of device dev. */
struct lane_learnt *lane_learnt_slot(struct lane *l, unsigned int dev,
				     const uint8_t *mac, uint16_t vlan);

/* Its source, peer and time now: the lane's thread, or stopped. */
void lane_learnt_set(struct lane_learnt *t, unsigned int dev,
		     const uint8_t *mac, uint16_t vlan, int peer, uint64_t ns);

/*
 * The peer that source mac on vlan of device dev was handed up from, by
 * lane l, less than a second before now; -1 if none (or it was being
 * written).
 */
int lane_learnt_peer(const struct lane *l, unsigned int dev,
		     const uint8_t *mac, uint16_t vlan, uint64_t now);

/*
 * The peer that any of the n lanes handed source mac up from just now:
 * what a frame to mac whose entry the main thread has not made yet goes
 * to, so that it is not flooded meanwhile (the kernel learns before it
 * forwards the answer). -1 if none.
 */
int lane_recent_peer(const struct lane *lanes, unsigned int n,
		     unsigned int dev, const uint8_t *mac, uint16_t vlan,
		     uint64_t now);

/*
 * The peer in slot i gone: the lane's counters of it zeroed (for the
 * next peer of the slot), its events and the sources handed up from it
 * forgotten. Only while the lane is stopped.
 */
void lane_forget_peer(struct lane *l, unsigned int i);

/*
 * --busy-poll usec (0: off) for the lane's loop, whose queues are set
 * up: after work, poll on for the next for up to usec before sleeping.
 */
void lane_busy_init(struct lane *l, unsigned int usec);

void lane_busy_on(struct lane *l);

/*
 * The lane's loop found work (a receive, a tap read): with --busy-poll,
 * it polls on for the window before it may sleep again.
 */
static inline void lane_busy(struct lane *l)
{
	if (l->busy_ns)
		lane_busy_on(l);
}

/*
 * An event for the main thread (a lane on its own thread); false when
 * ev[] is full (counted). It is woken at the first of a batch, to take
 * them within 10 ms, and at once for one that cannot wait (now: a new
 * source, whose frames are flooded until it is learnt; a socket's
 * errors) and past half of ev[].
 */
bool lane_post(struct lane *l, const struct lane_event *e, bool now);

#endif
