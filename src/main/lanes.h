/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The port's lanes as the main loop runs them: how many (--queues), their
 * rings, their loops and, with several, their threads, which the main
 * loop stops around its own work and whose events it applies.
 */
#ifndef GSOTUN_LANES_H
#define GSOTUN_LANES_H

#include <stdbool.h>
#include <ev.h>
#include "conf/options.h"
#include "sys/threads.h"

struct control;
struct port;

struct lanes {
	struct port *port;
	const struct control *ctl;	/* a round of its alone stops none */
	ev_io ring_w[CONFIG_MAX_QUEUES];
	ev_prepare notif_w[CONFIG_MAX_QUEUES];	/* --zerocopy: notif_cb() */
	/* With several queues, each lane's thread, and the main loop's. */
	struct threads threads;
	bool threads_up;
	ev_check stop_w;
	ev_prepare go_w;
};

/* How many lanes --queues asks for (auto: the CPUs gsotun may run on). */
unsigned int lanes_count(const struct config *cfg);

/*
 * The port's n lanes and their rings; the loops come later. 0 or -errno
 * (logged); what was set up goes with lanes_free().
 */
int lanes_init(struct lanes *ls, struct port *port, unsigned int n);
void lanes_free(struct lanes *ls);

/*
 * Each lane's loop: loop, or with several lanes, one of its own. 0 or
 * -ENOMEM (logged). Before the devices watch their queues.
 */
int lanes_loops(struct lanes *ls, struct ev_loop *loop);

/*
 * The lanes' rings and sockets watched; with several, the main loop
 * stops them around whatever else it runs (but a round of ctl's
 * watchers alone) and applies their events.
 */
void lanes_watch(struct lanes *ls, struct ev_loop *loop,
		 const struct control *ctl);

/*
 * With several lanes, each on its thread (on the CPUs of --cpus); with
 * one, the main thread on cpus[0]. 0 or -errno (logged).
 */
int lanes_start(struct lanes *ls, const struct config *cfg);

/* The threads ended and joined, their loops destroyed: ours again. */
void lanes_end(struct lanes *ls);

/* Sends still waiting for room cancelled (counted as drops). */
void lanes_drain(struct lanes *ls);

#endif
