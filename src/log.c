// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Logging to stderr, one line per message, with the level as a prefix.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"

int log_level = LOG_LVL_INFO;

static const char *const level_names[] = {
	[LOG_LVL_ERR] = "error",
	[LOG_LVL_WARN] = "warning",
	[LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug",
};

void log_msg(int level, int err, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	fprintf(stderr, "gsotun: %s: ", level_names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "gsotun: BUG at %s:%d: %s\n", file, line, cond);
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
