/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Threads that each run a libev loop (the lanes of --queues), and the one
 * way the main thread may change what they read: it stops them all at
 * the end of a batch, does its work, and lets them go (as the kernel's
 * stop_machine(), for changes that are rare). The mutex is what orders
 * every hand-over between them.
 */
#ifndef GSOTUN_THREADS_H
#define GSOTUN_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <ev.h>
#include "conf/types.h"

struct threads;

struct thread {
	struct threads *all;
	struct ev_loop *loop;
	ev_async wake_w;	/* stop or end, from the main thread */
	pthread_t id;
	bool started;
	bool running;		/* it said so: its start is over */
	unsigned long stop_seen;	/* the last stop it parked for */
	int cpu;		/* pinned to; -1 not */
	/* After each stop, on the thread (rx_resume_sockets()). */
	void (*resumed)(void *arg);
	void *arg;
};

struct threads {
	pthread_mutex_t mu;
	pthread_cond_t cond;	/* parked or let go */
	bool stop, end;
	unsigned long stop_seq, go_seq;	/* stops asked, and gos */
	unsigned int parked;	/* threads parked for this stop */
	bool stopped;		/* the main thread's: all are parked */
	struct thread t[CONFIG_MAX_QUEUES];
	unsigned int n;
};

/* Room for n threads; nothing runs yet. 0 or -errno (logged). */
int threads_init(struct threads *ts, unsigned int n);

/*
 * Thread i runs loop (named name, on CPU cpu unless it is -1) until
 * threads_end(), with resumed(arg) after each stop. Signals stay with
 * the main thread. 0 or -errno (logged).
 */
int threads_start(struct threads *ts, unsigned int i, struct ev_loop *loop,
		  const char *name, int cpu, void (*resumed)(void *),
		  void *arg);

/* The calling thread on CPU cpu (one queue, --cpus). 0 or -errno (logged). */
int threads_pin_self(int cpu);

/* Every thread parked at the end of a batch; returns when they are. */
void threads_stop(struct threads *ts);
/* Let them go on (nothing, if they were not stopped). */
void threads_go(struct threads *ts);

/* Their loops ended and the threads joined; then their state is ours. */
void threads_end(struct threads *ts);
void threads_free(struct threads *ts);

#endif
