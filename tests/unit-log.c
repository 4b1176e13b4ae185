// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the warnings' limit: the first of a burst said at once,
 * the rest held and counted until the interval is over; and of the lines
 * stderr gets: plain, with the time (--log-time), or with the journal's
 * priority prefixes when stderr is the journal's stream.
 */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/log.h"
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
	ok(!log_limit_due(&l, 209 * S) && log_limit_due(&l, 210 * S),
	   "due once the interval is over, not before");
	ok(log_limit_take(&l, 210 * S, 10 * S, &held) && held == 0,
	   "asking whether it is due holds nothing back");
}

/* What the messages of one sink leave on stderr (a temporary file). */
static char *captured(bool journal, bool timestamps)
{
	static char buf[4096];
	struct log_stream ls;
	char env[64];
	struct stat st;
	int saved = dup(STDERR_FILENO);
	FILE *tmp = tmpfile(), *out;
	size_t n;

	if (!tmp || saved < 0)
		return strcpy(buf, "(no temporary file)");
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	fstat(STDERR_FILENO, &st);
	/* The journal's stream is known by stderr's device and inode. */
	snprintf(env, sizeof(env), "%llu:%llu",
		 (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + !journal);
	setenv("JOURNAL_STREAM", env, 1);
	log_open(timestamps);
	log_err("cannot open tap %s", "gt0");
	errno = EPERM;
	log_warn_errno("cannot set %s", "x");
	log_info("started");
	log_debug("not shown at info");
	out = log_stream_open(&ls);
	fprintf(out, "peer 1 tx=1\nrx_frames=2 tx_frames=3\n");
	log_stream_close(&ls);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	unsetenv("JOURNAL_STREAM");
	log_open(false);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

static bool matches(const char *text, const char *re)
{
	regex_t r;
	bool m;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		return false;
	m = !regexec(&r, text, 0, NULL, 0);
	regfree(&r);
	return m;
}

static void test_sinks(void)
{
	const char *got;

	got = captured(false, false);
	ok(!strcmp(got, "gsotun: error: cannot open tap gt0\n"
			"gsotun: warning: cannot set x: Operation not "
			"permitted\n"
			"gsotun: info: started\n"
			"peer 1 tx=1\nrx_frames=2 tx_frames=3\n"),
	   "stderr: the level first, counters as they were written");
	if (tap_failed)
		printf("# got:\n%s", got);
	got = captured(true, true);
	ok(!strcmp(got, "<3>cannot open tap gt0\n"
			"<4>cannot set x: Operation not permitted\n"
			"<6>started\n"
			"<6>peer 1 tx=1\n<6>rx_frames=2 tx_frames=3\n"),
	   "the journal's stream: a priority per line, no time, no level");
	got = captured(false, true);
	ok(matches(got, "^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
			"[0-9]{2}\\.[0-9]{3}[-+][0-9]{2}:[0-9]{2} [^\n]*\n)"
			"{5}$") &&
		   strstr(got, " gsotun: info: started\n") &&
		   strstr(got, " rx_frames=2 tx_frames=3\n"),
	   "--log-time: ISO 8601 local time to the ms before every line");
	if (!matches(got, "^[0-9]"))
		printf("# got:\n%s", got);
}

int main(void)
{
	test_limit();
	test_sinks();
	plan(tap_n);
	return done_testing();
}
