// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Counters: the one-line name=value dump printed on SIGUSR1 and at exit.
 */
#include "config.h"

#include <inttypes.h>
#include "stats.h"

void stats_print(FILE *out, const struct stats *s)
{
	const char *sep = "";

#define STATS_PRINT(name)                                                     \
	fprintf(out, "%s%s=%" PRIu64, sep, #name, s->name);                   \
	sep = " ";
#define STATS_PRINT_DROP(name, reason)                                        \
	fprintf(out, "%s%s=%" PRIu64, sep, #name, s->drop[DROP_##reason]);    \
	sep = " ";
	STATS_LIST(STATS_PRINT, STATS_PRINT_DROP)
#undef STATS_PRINT_DROP
#undef STATS_PRINT
	fputc('\n', out);
	fflush(out);
}
