// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lane: what a lane keeps beside its queues: its counters of each peer,
 * its events for the main thread, the sources it handed up.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "base/clock.h"
#include "base/log.h"
#include "data/lane.h"
#include "data/types.h"

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
		atomic_init(&l->learnt[i].peer, -1);
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
		if (atomic_load(&l->learnt[j].peer) == (int)i)
			atomic_store(&l->learnt[j].peer, -1);
}

/* A source as one word: its MAC, its device (16 at most) and VLAN. */
static uint64_t lane_learnt_key(unsigned int dev, const uint8_t *mac,
				uint16_t vlan)
{
	uint64_t k = 0;
	unsigned int i;

	for (i = 0; i < MAC_LEN; i++)
		k = k << 8 | mac[i];
	return k << 16 | (uint64_t)(dev & 0xf) << 12 | (vlan & 0xfff);
}

static unsigned int lane_learnt_idx(unsigned int dev, const uint8_t *mac,
				    uint16_t vlan)
{
	return (mac[3] ^ mac[4] * 7u ^ mac[5] * 31u ^ vlan ^ dev) % LANE_LEARNT;
}

struct lane_learnt *lane_learnt_slot(struct lane *l, unsigned int dev,
				     const uint8_t *mac, uint16_t vlan)
{
	return &l->learnt[lane_learnt_idx(dev, mac, vlan)];
}

void lane_learnt_set(struct lane_learnt *t, unsigned int dev,
		     const uint8_t *mac, uint16_t vlan, int peer, uint64_t ns)
{
	uint32_t s = atomic_load_explicit(&t->seq, memory_order_relaxed);

	atomic_store_explicit(&t->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&t->key, lane_learnt_key(dev, mac, vlan),
			      memory_order_relaxed);
	atomic_store_explicit(&t->peer, peer, memory_order_relaxed);
	atomic_store_explicit(&t->ns, ns, memory_order_relaxed);
	atomic_store_explicit(&t->seq, s + 2, memory_order_release);
}

/* The peer of t if it is the source key of less than a second; -1. */
static int lane_learnt_read(const struct lane_learnt *t, uint64_t key,
			    uint64_t now)
{
	uint32_t s = atomic_load_explicit(&t->seq, memory_order_acquire);
	uint64_t k, ns;
	int peer;

	if (s & 1)
		return -1;
	k = atomic_load_explicit(&t->key, memory_order_relaxed);
	peer = atomic_load_explicit(&t->peer, memory_order_relaxed);
	ns = atomic_load_explicit(&t->ns, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&t->seq, memory_order_relaxed) != s ||
	    k != key || now - ns >= LANE_RELEARN_NS)
		return -1;
	return peer;
}

int lane_learnt_peer(const struct lane *l, unsigned int dev,
		     const uint8_t *mac, uint16_t vlan, uint64_t now)
{
	return lane_learnt_read(&l->learnt[lane_learnt_idx(dev, mac, vlan)],
				lane_learnt_key(dev, mac, vlan), now);
}

int lane_recent_peer(const struct lane *lanes, unsigned int n,
		     unsigned int dev, const uint8_t *mac, uint16_t vlan,
		     uint64_t now)
{
	unsigned int i;
	int peer;

	for (i = 0; i < n; i++) {
		peer = lane_learnt_peer(&lanes[i], dev, mac, vlan, now);
		if (peer >= 0)
			return peer;
	}
	return -1;
}

bool lane_post(struct lane *l, const struct lane_event *e, bool now)
{
	bool first = !l->n_ev;

	if (l->n_ev == LANE_EVENTS) {
		l->ev_lost++;
		return false;
	}
	l->ev[l->n_ev++] = *e;
	if (now || l->n_ev == LANE_EVENTS / 2)
		l->posted(l, true);
	else if (first)
		l->posted(l, false);
	return true;
}

/*
 * The window is over without work: the spell of polling ends, its time
 * counted as the CPU it cost (the work it found meanwhile included), and
 * the loop sleeps in its next poll.
 */
static void lane_busy_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	struct lane *l = w->data;
	uint64_t now = clock_fine_ns();

	/*
	 * A thread that needs this CPU (the application waiting for the
	 * answer, the other end's gsotun) runs first: polling takes what
	 * nobody else wants, and is back without a wake-up.
	 */
	if (now < l->busy_until) {
		sched_yield();
		return;
	}
	ev_idle_stop(loop, w);
	l->q[0]->st.busy_poll_us += (now - l->busy_since) / 1000;
}

/*
 * An active idle watcher makes libev poll with a zero timeout, so the
 * loop spins through its watchers (epoll_wait() returning at once)
 * instead of sleeping: the next packet finds it awake, without the
 * wake-up a sleeping thread costs (a scheduler round trip).
 */
void lane_busy_on(struct lane *l)
{
	uint64_t now = clock_fine_ns();

	if (ev_is_active(&l->busy_w)) {
		l->q[0]->st.busy_poll_caught++;
	} else {
		l->busy_since = now;
		ev_idle_start(l->loop, &l->busy_w);
	}
	l->busy_until = now + l->busy_ns;
}

void lane_busy_init(struct lane *l, unsigned int usec)
{
	l->busy_ns = (uint64_t)usec * 1000;
	ev_idle_init(&l->busy_w, lane_busy_cb);
	l->busy_w.data = l;
}
