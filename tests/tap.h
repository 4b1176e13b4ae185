/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal TAP producer for the unit tests: plan(), ok(), is_int().
 */
#ifndef GSOTUN_TESTS_TAP_H
#define GSOTUN_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

/*
 * Every line out at its newline, before a test forks: a child that
 * leaves by _exit() writes nothing, except under TSan, whose _exit()
 * flushes the child's copy of a full buffer (the parent's lines twice).
 */
__attribute__((constructor)) static void tap_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline void plan(int n)
{
	printf("1..%d\n", n);
}

static inline void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

#define is_int(got, want, ...)                                                \
	({                                                                    \
		long long _g = (got), _w = (want);                            \
		int _r = ok(_g == _w, __VA_ARGS__);                           \
		if (!_r)                                                      \
			printf("#   got %lld, want %lld\n", _g, _w);          \
		_r;                                                           \
	})

/* Exit status for main(): non-zero when any test failed. */
static inline int done_testing(void)
{
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
