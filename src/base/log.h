/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging in fastd's manner, to the sink chosen at start (stderr, the
 * journal's stream, syslog); and BUG_ON for invariants.
 */
#ifndef GSOTUN_LOG_H
#define GSOTUN_LOG_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Messages above this level are not printed (default LOG_LVL_INFO). */
extern int log_level;

/*
 * Choose the sink: systemd's journal when stderr is its stream
 * (JOURNAL_STREAM, see systemd.exec(5)), each line then prefixed with its
 * priority ("<3>", sd-daemon(3)); else stderr, each line prefixed with the
 * local time when timestamps (--log-time).
 */
void log_open(bool timestamps);

/*
 * --daemon: connect to syslog(3) now, before --chroot hides /dev/log,
 * for log_detach() later; nothing when stderr is the journal's.
 */
void log_syslog_open(void);

/*
 * --daemon, once detached: syslog(3) from now on, when log_syslog_open()
 * connected to it. True when stderr is no longer written (to be pointed
 * at /dev/null by the caller).
 */
bool log_detach(void);

void log_msg(int level, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(...) log_msg(LOG_LVL_ERR, 0, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, 0, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, 0, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, 0, __VA_ARGS__)
/* The _errno variants append ": strerror(errno)". */
#define log_err_errno(...) log_msg(LOG_LVL_ERR, errno, __VA_ARGS__)
#define log_warn_errno(...) log_msg(LOG_LVL_WARN, errno, __VA_ARGS__)
/* The _ret variants, ": strerror(-ret)" of a returned -errno. */
#define log_err_ret(ret, ...) log_msg(LOG_LVL_ERR, -(ret), __VA_ARGS__)
#define log_debug_ret(ret, ...) log_msg(LOG_LVL_DEBUG, -(ret), __VA_ARGS__)

/*
 * Text of several lines (the counters) written to a stream, then said a
 * line at a time to the sink at info, whatever the level: as a daemon,
 * one syslog message each. log_stream_open() returns the stream to
 * write to (stderr if memory is short), log_stream_close() says it.
 */
struct log_stream {
	FILE *f;
	char *text;
	size_t len;
};

FILE *log_stream_open(struct log_stream *ls);
void log_stream_close(struct log_stream *ls);

/*
 * A warning about what the network sends, at most once an interval for
 * each cause: the first of a burst is said at once, the others held and
 * counted, and said as a number with the next.
 */
struct log_limit {
	uint64_t next_ns;	/* the next one may be said from then */
	unsigned long held;	/* held back since the last said */
};

/*
 * Whether to say it now (then *held is how many were held back before
 * it) or to hold it. now_ns from CLOCK_MONOTONIC.
 */
bool log_limit_take(struct log_limit *l, uint64_t now_ns,
		    uint64_t interval_ns, unsigned long *held);

/* Whether one may be said now, without taking it or counting it held. */
bool log_limit_due(const struct log_limit *l, uint64_t now_ns);

void bug(const char *file, int line, const char *cond)
	__attribute__((noreturn));
#define BUG_ON(cond)                                                          \
	do {                                                                  \
		if (cond)                                                     \
			bug(__FILE__, __LINE__, #cond);                       \
	} while (0)

#endif
