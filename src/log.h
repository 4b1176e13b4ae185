/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging to stderr in fastd's manner; and BUG_ON for invariants.
 */
#ifndef GSOTUN_LOG_H
#define GSOTUN_LOG_H

#include <errno.h>

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Messages above this level are not printed (default LOG_LVL_INFO). */
extern int log_level;

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

void bug(const char *file, int line, const char *cond)
	__attribute__((noreturn));
#define BUG_ON(cond)                                                          \
	do {                                                                  \
		if (cond)                                                     \
			bug(__FILE__, __LINE__, #cond);                       \
	} while (0)

#endif
