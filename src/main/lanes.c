// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lanes: the port's lanes as the main loop runs them: their rings and
 * loops, their threads stopped and let go around the main loop's work,
 * and their events applied on the main thread.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <ev.h>
#include "base/clock.h"
#include "base/log.h"
#include "encap/encap.h"
#include "sys/ring.h"
#include "sys/threads.h"
#include "data/lane.h"
#include "data/queue.h"
#include "data/rx.h"
#include "dev/device.h"
#include "dev/port.h"
#include "ops/control.h"
#include "main/lanes.h"

/*
 * Submission queue entries: a batch of reads and the sends of another,
 * one per UDP GSO run (a few per batch) or, for raw GRE, per segment (a
 * full ring is run and refilled).
 */
#define RING_ENTRIES 512

/* Completions that came after their submission: sends that waited. */
static void ring_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct lane *l = w->data;

	ring_ack(l->ring);
	ring_reap(l->ring, queue_done, l->q[0]);
}

/*
 * --zerocopy: before each sleep of the lane's loop, the completions
 * already there. A zero-copy send's notification is posted by task work
 * when the kernel frees the packet, and never counts on the ring's
 * eventfd (registered async: io_eventfd_trigger() takes only io-wq's
 * completions); measured here, it interrupts the sleeping epoll_wait()
 * (EINTR: task_work_add() with TWA_SIGNAL, the ring having no
 * COOP_TASKRUN) and is in the ring when it returns, so libev's next pass
 * comes here. Without this, a set held for its notification would keep
 * the tap unread (backpressure) until other traffic woke the lane.
 */
static void notif_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct lane *l = w->data;

	ring_reap(l->ring, queue_done, l->q[0]);
}

/*
 * Lanes on threads: whatever the main loop runs (netlink, timers,
 * signals, the lanes' events, the control socket) runs with every lane
 * stopped at the end of a batch, so that it may change and read what
 * they do (doc/design.md); but a round of the control socket's watchers
 * alone, which stops them only where it must (port_stop()). Stopped
 * after the loop's poll, before any other watcher (the highest
 * priority), let go before the next poll.
 */
static void stop_cb(struct ev_loop *loop, ev_check *w, int revents)
{
	struct lanes *ls = w->data;

	if (ev_pending_count(loop) > control_pending(ls->ctl))
		threads_stop(&ls->threads);
}

static void go_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	threads_go(w->data);
}

/* The lanes' events are applied at most this often, but for errors. */
#define EVENTS_EVERY_NS 10000000ull

static void apply_events(struct port *port)
{
	atomic_store(&port->events_now, false);
	port->events_ns = clock_now_ns();
	device_apply_events(port);
}

/* A lane posted events (lane_post()): applied now, or 10 ms after the last. */
static void events_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct port *port = w->data;
	uint64_t since = clock_now_ns() - port->events_ns;

	if (atomic_load(&port->events_now) || since >= EVENTS_EVERY_NS) {
		ev_timer_stop(loop, &port->events_timer_w);
		apply_events(port);
	} else if (!ev_is_active(&port->events_timer_w)) {
		ev_timer_set(&port->events_timer_w,
			     (double)(EVENTS_EVERY_NS - since) / 1e9, 0.);
		ev_timer_start(loop, &port->events_timer_w);
	}
}

static void events_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	apply_events(w->data);
}

/* On a lane's thread: the main loop woken for its events. */
static void lane_posted(struct lane *l, bool now)
{
	struct port *port = l->owner;

	if (now)
		atomic_store(&port->events_now, true);
	ev_async_send(port->loop, &port->events_w);
}

/* On a lane's thread, let go after a stop: its sockets watched again. */
static void lane_resumed(void *arg)
{
	rx_resume_sockets(arg);
}

/*
 * --queues: a number, or auto: the CPUs this process may run on, at
 * most CONFIG_MAX_QUEUES (with --cpus, options_finish() made it their
 * number). Raw GRE (no reuseport group) and --seq (one sequence) take
 * one.
 */
unsigned int lanes_count(const struct config *cfg)
{
	cpu_set_t set;
	int n;

	if (cfg->queues)
		return cfg->queues;
	if (!encap_is_udp(cfg->encap.type) || cfg->encap.gre_seq) {
		log_info("--queues auto: one queue (%s)",
			 cfg->encap.gre_seq ? "--seq" : "raw GRE");
		return 1;
	}
	n = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	return n < 1 ? 1 : n > CONFIG_MAX_QUEUES ? CONFIG_MAX_QUEUES
						 : (unsigned int)n;
}

int lanes_init(struct lanes *ls, struct port *port, unsigned int n)
{
	unsigned int i;
	int err;

	ls->port = port;
	err = port_init_lanes(port, n);
	for (i = 0; i < n; i++)
		port->lane[i].posted = lane_posted;
	for (i = 0; !err && i < n; i++) {
		err = ring_init(&port->ring[i], RING_ENTRIES);
		port->n_rings += !err;
	}
	return err;
}

void lanes_free(struct lanes *ls)
{
	struct port *port = ls->port;
	unsigned int i;

	port_free_lanes(port);
	for (i = 0; i < port->n_rings; i++)
		ring_exit(&port->ring[i]);
}

int lanes_loops(struct lanes *ls, struct ev_loop *loop)
{
	struct port *port = ls->port;
	unsigned int i;

	for (i = 0; i < port->n_lanes; i++) {
		struct lane *l = &port->lane[i];

		l->loop = port->n_lanes > 1 ? ev_loop_new(EVFLAG_AUTO) : loop;
		if (!l->loop) {
			log_err("cannot start the event loop of queue %u", i);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The lanes' rings and sockets (received packets go to their queue). */
static void lanes_watch_rings(struct lanes *ls)
{
	struct port *port = ls->port;
	unsigned int i;

	for (i = 0; i < port->n_lanes; i++) {
		struct lane *l = &port->lane[i];

		rx_watch(l);
		lane_busy_init(l, port->cfg->busy_poll);
		rx_coalesce_init(l, port->cfg->rx_coalesce);
		ev_io_init(&ls->ring_w[i], ring_cb, ring_eventfd(l->ring),
			   EV_READ);
		ls->ring_w[i].data = l;
		ev_io_start(l->loop, &ls->ring_w[i]);
		if (!port->cfg->zerocopy)
			continue;
		ev_prepare_init(&ls->notif_w[i], notif_cb);
		ls->notif_w[i].data = l;
		ev_prepare_start(l->loop, &ls->notif_w[i]);
	}
}

/* Lanes on threads: the main loop stops them, and takes their events. */
static void lanes_watch_threads(struct lanes *ls, struct ev_loop *loop)
{
	struct port *port = ls->port;

	port->loop = loop;
	ev_async_init(&port->events_w, events_cb);
	port->events_w.data = port;
	ev_async_start(loop, &port->events_w);
	ev_init(&port->events_timer_w, events_timer_cb);
	port->events_timer_w.data = port;
	ev_check_init(&ls->stop_w, stop_cb);
	ev_set_priority(&ls->stop_w, EV_MAXPRI);
	ls->stop_w.data = ls;
	ev_check_start(loop, &ls->stop_w);
	ev_prepare_init(&ls->go_w, go_cb);
	ls->go_w.data = &ls->threads;
	ev_prepare_start(loop, &ls->go_w);
}

void lanes_watch(struct lanes *ls, struct ev_loop *loop,
		 const struct control *ctl)
{
	ls->ctl = ctl;
	lanes_watch_rings(ls);
	if (ls->port->n_lanes > 1)
		lanes_watch_threads(ls, loop);
}

/*
 * With several queues, lane i's loop on thread gsotun-qi (on the i-th
 * CPU of --cpus); with one, the main loop runs it, on cpus[0].
 */
int lanes_start(struct lanes *ls, const struct config *cfg)
{
	struct port *port = ls->port;
	unsigned int i;
	char name[16];
	int err;

	if (port->n_lanes == 1)
		return cfg->n_cpus ? threads_pin_self(cfg->cpus[0]) : 0;
	err = threads_init(&ls->threads, port->n_lanes);
	if (err)
		return err;
	ls->threads_up = true;
	port->threads = &ls->threads;
	for (i = 0; !err && i < port->n_lanes; i++) {
		snprintf(name, sizeof(name), "gsotun-q%u", i);
		err = threads_start(&ls->threads, i, port->lane[i].loop, name,
				    i < cfg->n_cpus ? cfg->cpus[i] : -1,
				    lane_resumed, &port->lane[i]);
	}
	return err;
}

/*
 * The lanes' threads ended and joined (their loops destroyed), so that
 * what they did is the main thread's to drain and print.
 */
void lanes_end(struct lanes *ls)
{
	struct port *port = ls->port;
	unsigned int i;

	if (ls->threads_up) {
		port->threads = NULL;
		threads_end(&ls->threads);
		threads_free(&ls->threads);
		ls->threads_up = false;
	}
	for (i = 0; port->n_lanes > 1 && i < port->n_lanes; i++) {
		if (port->lane[i].loop)
			ev_loop_destroy(port->lane[i].loop);
		port->lane[i].loop = NULL;
	}
}

void lanes_drain(struct lanes *ls)
{
	struct port *port = ls->port;
	unsigned int i;

	for (i = 0; i < port->n_lanes; i++)
		ring_drain(&port->ring[i], queue_done, port->lane[i].q[0]);
}
