// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Counters: their table (names, help, places), and the one-line name=value
 * dump printed on SIGUSR1 and at exit.
 */
#include "config.h"

#include <inttypes.h>
#include "base/stats.h"

const struct stats_desc stats_desc[] = {
#define STATS_DESC(name, help)                                                \
	{ #name, help, offsetof(struct stats, name), false, DROP_NONE },
#define STATS_DESC_DROP(name, reason, help)                                   \
	{ #name, help,                                                        \
	  offsetof(struct stats, drop) + DROP_##reason * sizeof(uint64_t),   \
	  true, DROP_##reason },
	STATS_LIST(STATS_DESC, STATS_DESC_DROP)
#undef STATS_DESC_DROP
#undef STATS_DESC
};

const size_t stats_n = sizeof(stats_desc) / sizeof(stats_desc[0]);

void stats_print(FILE *out, const struct stats *s)
{
	size_t i;

	for (i = 0; i < stats_n; i++)
		fprintf(out, "%s%s=%" PRIu64, i ? " " : "", stats_desc[i].name,
			stats_value(s, &stats_desc[i]));
	fputc('\n', out);
	fflush(out);
}

void stats_add(struct stats *sum, const struct stats *s)
{
	size_t i;

	for (i = 0; i < stats_n; i++) {
		uint64_t *v = (uint64_t *)((char *)sum + stats_desc[i].off);

		*v += stats_value(s, &stats_desc[i]);
	}
	for (i = 0; i < DROP__MAX; i++)
		if (s->drop_ns[i] > sum->drop_ns[i])
			sum->drop_ns[i] = s->drop_ns[i];
}
