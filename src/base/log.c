// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Logging, one line per message, to the sink chosen at start: stderr with
 * the level (and the time) first, the journal's stream, or syslog.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/log.h"

int log_level = LOG_LVL_INFO;

enum log_sink { LOG_SINK_STDERR = 0, LOG_SINK_JOURNAL, LOG_SINK_SYSLOG };

static enum log_sink log_sink;
static bool log_timestamps;
static bool log_syslog_ready;	/* openlog() done, for log_detach() */

static const struct {
	const char *word;	/* on stderr */
	int prio;		/* syslog(3)'s, also the journal's prefix */
} levels[] = {
	[LOG_LVL_ERR] = { .word = "error", .prio = LOG_ERR },
	[LOG_LVL_WARN] = { .word = "warning", .prio = LOG_WARNING },
	[LOG_LVL_INFO] = { .word = "info", .prio = LOG_INFO },
	[LOG_LVL_DEBUG] = { .word = "debug", .prio = LOG_DEBUG },
};

/*
 * systemd sets JOURNAL_STREAM to "DEV:INO" of the stream it connects to
 * stderr; it is inherited, so it counts only while stderr is that stream
 * (systemd.exec(5)).
 */
static bool log_stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int n = 0;

	if (!env || sscanf(env, "%llu:%llu%n", &dev, &ino, &n) != 2 ||
	    env[n] || fstat(STDERR_FILENO, &st))
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_open(bool timestamps)
{
	/* Read the zone now: a --chroot hides /etc/localtime later. */
	tzset();
	log_timestamps = timestamps;
	log_sink = log_stderr_is_journal() ? LOG_SINK_JOURNAL : LOG_SINK_STDERR;
}

void log_syslog_open(void)
{
	if (log_sink == LOG_SINK_JOURNAL || log_syslog_ready)
		return;
	/* Connected now, while /dev/log is still there (--chroot). */
	openlog("gsotun", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	log_syslog_ready = true;
}

bool log_detach(void)
{
	if (!log_syslog_ready)
		return false;
	log_sink = LOG_SINK_SYSLOG;
	return true;
}

/* ISO 8601 local time to the millisecond: 2026-12-01T09:30:00.123+01:00 */
static void log_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	long off;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff / 60;
	snprintf(buf + n, len - n, ".%03ld%c%02ld:%02ld ",
		 ts.tv_nsec / 1000000, off < 0 ? '-' : '+', labs(off) / 60,
		 labs(off) % 60);
}

/* One line of text to the sink; on stderr after prefix. */
static void log_emit(int level, const char *prefix, const char *text)
{
	char ts[48] = "";

	switch (log_sink) {
	case LOG_SINK_SYSLOG:
		syslog(levels[level].prio, "%s", text);
		break;
	case LOG_SINK_JOURNAL:
		fprintf(stderr, "<%d>%s\n", levels[level].prio, text);
		break;
	case LOG_SINK_STDERR:
		if (log_timestamps)
			log_time(ts, sizeof(ts));
		fprintf(stderr, "%s%s%s\n", ts, prefix, text);
		break;
	}
}

void log_msg(int level, int err, const char *fmt, ...)
{
	char text[1024], prefix[24];
	va_list ap;
	int n;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (err && n >= 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, ": %s", strerror(err));
	snprintf(prefix, sizeof(prefix), "gsotun: %s: ", levels[level].word);
	log_emit(level, prefix, text);
}

FILE *log_stream_open(struct log_stream *ls)
{
	ls->text = NULL;
	ls->len = 0;
	ls->f = open_memstream(&ls->text, &ls->len);
	return ls->f ? ls->f : stderr;
}

void log_stream_close(struct log_stream *ls)
{
	char *line, *save = NULL;

	if (!ls->f)
		return;
	if (fclose(ls->f) || !ls->text) {
		free(ls->text);
		return;
	}
	for (line = strtok_r(ls->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		log_emit(LOG_LVL_INFO, "", line);
	free(ls->text);
}

void bug(const char *file, int line, const char *cond)
{
	char text[512];

	snprintf(text, sizeof(text), "BUG at %s:%d: %s", file, line, cond);
	log_emit(LOG_LVL_ERR, "gsotun: ", text);
	abort();
}

bool log_limit_take(struct log_limit *l, uint64_t now_ns,
		    uint64_t interval_ns, unsigned long *held)
{
	if (now_ns < l->next_ns) {
		l->held++;
		return false;
	}
	*held = l->held;
	l->held = 0;
	l->next_ns = now_ns + interval_ns;
	return true;
}

bool log_limit_due(const struct log_limit *l, uint64_t now_ns)
{
	return now_ns >= l->next_ns;
}
