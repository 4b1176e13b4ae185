// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the warnings' limit: the first of a burst said at once,
 * the rest held and counted until the interval is over.
 */
#include "config.h"

#include "log.h"
#include "tap.h"

#define S 1000000000ull

static void test_limit(void)
{
	struct log_limit l = { 0 };
	unsigned long held = 99;

	ok(log_limit_take(&l, 5 * S, 10 * S, &held) && held == 0,
	   "the first is said, nothing held before it");
	ok(!log_limit_take(&l, 5 * S, 10 * S, &held), "at once again: held");
	ok(!log_limit_take(&l, 14 * S, 10 * S, &held), "9 s later: held");
	ok(!log_limit_take(&l, 15 * S - 1, 10 * S, &held),
	   "1 ns before the interval is over: held");
	ok(log_limit_take(&l, 15 * S, 10 * S, &held) && held == 3,
	   "10 s after the first: said, with the 3 held back");
	ok(!log_limit_take(&l, 20 * S, 10 * S, &held),
	   "the interval starts again from it");
	ok(log_limit_take(&l, 100 * S, 10 * S, &held) && held == 1,
	   "much later: said, with the 1 held");
	ok(log_limit_take(&l, 200 * S, 10 * S, &held) && held == 0,
	   "and the next, with none held");
}

int main(void)
{
	test_limit();
	plan(tap_n);
	return done_testing();
}
