// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * threads: the lanes' threads, each running its own loop, stopped all
 * together by the main thread when it changes what they read.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include "base/log.h"
#include "sys/threads.h"

int threads_init(struct threads *ts, unsigned int n)
{
	int err;

	memset(ts, 0, sizeof(*ts));
	ts->n = n;
	err = pthread_mutex_init(&ts->mu, NULL);
	if (!err) {
		err = pthread_cond_init(&ts->cond, NULL);
		if (err)
			pthread_mutex_destroy(&ts->mu);
	}
	if (err) {
		log_err_ret(-err, "cannot set up the queues' threads");
		return -err;
	}
	return 0;
}

/*
 * The main thread asked (threads_stop(), threads_end()): parked here,
 * between two callbacks of the loop, once for each stop, until it lets
 * us go. Let go is let go, even if the next stop came before this
 * thread woke: it runs the rest of its loop's round first (and parks
 * at the next), so that a main thread busy round after round (the
 * control socket's readers) cannot keep the lanes parked.
 */
static void threads_wake_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct thread *t = w->data;
	struct threads *ts = t->all;
	unsigned long go;
	bool end;

	pthread_mutex_lock(&ts->mu);
	if (ts->stop && !ts->end && t->stop_seen != ts->stop_seq) {
		t->stop_seen = ts->stop_seq;
		ts->parked++;
		pthread_cond_broadcast(&ts->cond);
		go = ts->go_seq;
		while (go == ts->go_seq && !ts->end)
			pthread_cond_wait(&ts->cond, &ts->mu);
	}
	end = ts->end;
	pthread_mutex_unlock(&ts->mu);
	if (end)
		ev_break(loop, EVBREAK_ALL);
	else if (t->resumed)
		t->resumed(t->arg);
}

static void *threads_run(void *arg)
{
	struct thread *t = arg;
	struct threads *ts = t->all;

	pthread_mutex_lock(&ts->mu);
	t->running = true;
	pthread_cond_broadcast(&ts->cond);
	pthread_mutex_unlock(&ts->mu);
	ev_run(t->loop, 0);
	return NULL;
}

/*
 * Until the thread runs: glibc's start of a thread makes system calls
 * (rseq, set_robust_list) that the seccomp filter, installed on every
 * thread once set-up is over (sandbox_enter()), refuses.
 */
static void threads_wait_running(struct threads *ts, struct thread *t)
{
	pthread_mutex_lock(&ts->mu);
	while (!t->running)
		pthread_cond_wait(&ts->cond, &ts->mu);
	pthread_mutex_unlock(&ts->mu);
}

static int threads_pin(pthread_t id, int cpu, const char *name)
{
	cpu_set_t set;
	int err;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(id, sizeof(set), &set);
	if (err)
		log_err_ret(-err, "cannot run %s on CPU %d (--cpus)", name,
			    cpu);
	return -err;
}

int threads_pin_self(int cpu)
{
	return threads_pin(pthread_self(), cpu, "the loop");
}

int threads_start(struct threads *ts, unsigned int i, struct ev_loop *loop,
		  const char *name, int cpu, void (*resumed)(void *),
		  void *arg)
{
	struct thread *t = &ts->t[i];
	sigset_t all, old;
	int err;

	t->all = ts;
	t->loop = loop;
	t->cpu = cpu;
	t->resumed = resumed;
	t->arg = arg;
	ev_async_init(&t->wake_w, threads_wake_cb);
	t->wake_w.data = t;
	ev_async_start(loop, &t->wake_w);
	/* Signals are the main loop's (ev_signal): none here. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->id, NULL, threads_run, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		log_err_ret(-err, "cannot start the thread of %s", name);
		return -err;
	}
	t->started = true;
	threads_wait_running(ts, t);
	pthread_setname_np(t->id, name);
	return threads_pin(t->id, cpu, name);
}

void threads_stop(struct threads *ts)
{
	unsigned int i, n = 0;

	if (ts->stopped)
		return;
	pthread_mutex_lock(&ts->mu);
	ts->stop = true;
	ts->stop_seq++;
	pthread_mutex_unlock(&ts->mu);
	for (i = 0; i < ts->n; i++) {
		if (!ts->t[i].started)
			continue;
		ev_async_send(ts->t[i].loop, &ts->t[i].wake_w);
		n++;
	}
	pthread_mutex_lock(&ts->mu);
	while (ts->parked < n)
		pthread_cond_wait(&ts->cond, &ts->mu);
	pthread_mutex_unlock(&ts->mu);
	ts->stopped = true;
}

void threads_go(struct threads *ts)
{
	if (!ts->stopped)
		return;
	pthread_mutex_lock(&ts->mu);
	ts->stop = false;
	ts->parked = 0;
	ts->go_seq++;
	pthread_cond_broadcast(&ts->cond);
	pthread_mutex_unlock(&ts->mu);
	ts->stopped = false;
}

void threads_end(struct threads *ts)
{
	unsigned int i;

	pthread_mutex_lock(&ts->mu);
	ts->end = true;
	pthread_cond_broadcast(&ts->cond);
	pthread_mutex_unlock(&ts->mu);
	for (i = 0; i < ts->n; i++) {
		struct thread *t = &ts->t[i];

		if (!t->started)
			continue;
		ev_async_send(t->loop, &t->wake_w);
		pthread_join(t->id, NULL);
		t->started = false;
	}
	ts->stopped = false;
}

void threads_free(struct threads *ts)
{
	pthread_cond_destroy(&ts->cond);
	pthread_mutex_destroy(&ts->mu);
}
