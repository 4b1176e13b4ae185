// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pool: reference counts of the transmit buffer sets, so that a buffer is
 * reused only when every send that points into it has completed.
 */
#include "config.h"

#include "base/log.h"
#include "base/pool.h"

void pool_init(struct pool *p, unsigned int n)
{
	unsigned int i;

	BUG_ON(n < 1 || n > POOL_MAX);
	p->n = n;
	for (i = 0; i < POOL_MAX; i++)
		p->refs[i] = 0;
}

int pool_take(struct pool *p)
{
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		if (!p->refs[i]) {
			p->refs[i] = 1;
			return (int)i;
		}
	}
	return -1;
}

void pool_ref(struct pool *p, unsigned int i, unsigned int n)
{
	BUG_ON(i >= p->n || !p->refs[i]);
	p->refs[i] += n;
}

bool pool_put(struct pool *p, unsigned int i)
{
	BUG_ON(i >= p->n || !p->refs[i]);
	return --p->refs[i] == 0;
}

unsigned int pool_free(const struct pool *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < p->n; i++)
		n += !p->refs[i];
	return n;
}

bool pool_busy(const struct pool *p, unsigned int i)
{
	return p->refs[i] > 1;
}
