// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlproto: the control socket's address, as gsotun and gsotunctl name it,
 * and the words requests start with.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "conf/ctlproto.h"

socklen_t control_name(const char *opt, const char *dev,
		       struct sockaddr_un *sa)
{
	size_t room = sizeof(sa->sun_path);
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* The abstract name's leading NUL is sun_path[0]; '@' shows it. */
	if (!opt)
		n = snprintf(sa->sun_path + 1, room - 1, "%s%s",
			     CONTROL_PREFIX, dev);
	else if (opt[0] == '@')
		n = snprintf(sa->sun_path + 1, room - 1, "%s", opt + 1);
	else
		n = snprintf(sa->sun_path, room, "%s", opt);
	if (n <= 0 || (size_t)n >= room - 1)
		return 0;
	/*
	 * One byte more either way: an abstract name's leading NUL, or the
	 * NUL a path's length counts, as sun_path's users expect.
	 */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* Here, not in ctlreq.c: gsotunctl prints it without asking gsotun. */
const char control_help[] =
	"show [json] [TAP]\nstats\nstats json\nmetrics\nversion\nhelp\n"
	"taps\npeer add ADDR\npeer del ADDR\npeer list [json]\n"
	"fdb show [json] [TAP]\nfdb add MAC[@VID]=ADDR [TAP]\n"
	"fdb del MAC[@VID] [TAP]\nroute show [json] [TAP]\n"
	"route add PREFIX=ADDR [TAP]\nroute del PREFIX [TAP]\nconfig\n";

/*
 * The first words of ctlreq.c's requests: every request that parses
 * begins with one, as tests/fuzz-control.c checks of each (its corpus
 * holds them all). Here, so that gsotunctl, which passes requests on,
 * needs no parser of their values (ctlreq.c, optvalue.c).
 */
const char *const control_commands[] = {
	"show", "stats", "metrics", "version", "help", "peer", "fdb",
	"route", "taps", "config",
};
const size_t control_n_commands =
	sizeof(control_commands) / sizeof(*control_commands);

bool control_is_command(const char *word)
{
	size_t i;

	for (i = 0; i < control_n_commands; i++)
		if (!strcmp(word, control_commands[i]))
			return true;
	return false;
}
