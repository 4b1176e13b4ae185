// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the transmit buffer pool: a set comes back from
 * pool_take() only when its owner and every send into it are done.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/pool.h"
#include "tap.h"

static void test_basics(void)
{
	struct pool p;
	int a, b;

	pool_init(&p, 2);
	is_int(pool_free(&p), 2, "two sets free at start");
	a = pool_take(&p);
	b = pool_take(&p);
	ok(a >= 0 && b >= 0 && a != b, "two different sets taken");
	is_int(pool_take(&p), -1, "a third take finds none");
	is_int(pool_free(&p), 0, "none free");
	pool_ref(&p, a, 3);
	ok(!pool_put(&p, a), "owner done, three sends in flight: not free");
	ok(!pool_put(&p, a), "send 1 done: not free");
	ok(!pool_put(&p, a), "send 2 done: not free");
	is_int(pool_take(&p), -1, "still none to take");
	ok(pool_put(&p, a), "send 3 done: free");
	is_int(pool_free(&p), 1, "one free");
	is_int(pool_take(&p), a, "and it is the one taken again");
	ok(pool_put(&p, b), "a set with no sends is free when its owner is");
	ok(pool_put(&p, a), "so is the other");
	is_int(pool_free(&p), 2, "both free at the end");
}

/*
 * Random interleavings against a model that remembers every send in
 * flight by the set it points into: a set is handed out only when the
 * model has nothing outstanding for it.
 */
struct model {
	int owner[POOL_MAX];		/* 1 while held by its owner */
	int flying[POOL_MAX];		/* sends in flight into it */
};

static void test_random(unsigned int seed)
{
	struct model m = { { 0 }, { 0 } };
	unsigned int n = 1 + seed % POOL_MAX, step, bad = 0, frees = 0;
	struct pool p;

	srand(seed);
	pool_init(&p, n);
	for (step = 0; step < 20000; step++) {
		unsigned int i = (unsigned int)rand() % n;
		int op = rand() % 4, got;

		switch (op) {
		case 0:	/* take */
			got = pool_take(&p);
			if (got < 0) {
				for (i = 0; i < n; i++)
					bad += !m.owner[i] && !m.flying[i];
				break;
			}
			bad += m.owner[got] || m.flying[got];
			m.owner[got] = 1;
			break;
		case 1:	/* the owner queues sends */
			if (!m.owner[i])
				break;
			got = 1 + rand() % 5;
			pool_ref(&p, i, got);
			m.flying[i] += got;
			break;
		case 2:	/* the owner is done */
			if (!m.owner[i])
				break;
			m.owner[i] = 0;
			got = pool_put(&p, i);
			bad += got != !m.flying[i];
			frees += got;
			break;
		case 3:	/* a send completes */
			if (!m.flying[i])
				break;
			m.flying[i]--;
			got = pool_put(&p, i);
			bad += got != (!m.flying[i] && !m.owner[i]);
			frees += got;
			break;
		}
	}
	is_int(bad, 0, "seed %u, %u sets: 20000 steps match the model (%u "
	       "frees)", seed, n, frees);
}

/* Dropping a reference nobody holds is a bug: the process aborts. */
static void test_bug(void)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		struct pool p;

		/* Keep the expected report off the test's output. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		pool_init(&p, 1);
		pool_put(&p, 0);
		_exit(0);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid &&
	   WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	   "pool_put() on a free set aborts");
}

int main(void)
{
	unsigned int seed;

	test_basics();
	for (seed = 1; seed <= 24; seed++)
		test_random(seed);
	test_bug();
	plan(tap_n);
	return done_testing();
}
