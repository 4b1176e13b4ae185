// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlproto: the control socket's address, as gsotun and gsotunctl name it,
 * and the table of its commands (ctlproto.h): their words and help.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "conf/ctlproto.h"
#include "conf/optable.h"

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

/*
 * Here, not in ctlreq.c: gsotunctl, which passes requests on, needs no
 * parser of their values (ctlreq.c, optvalue.c).
 */
const struct control_command control_commands[CTLREQ_N] = {
#define CONTROL_ROW(kind, ...) [CTLREQ_##kind] = { __VA_ARGS__ },
	CONTROL_COMMANDS(CONTROL_ROW)
#undef CONTROL_ROW
};

const char *const control_arg_names[CONTROL_ARG_N] = {
	[CONTROL_ARG_NONE] = NULL,
	[CONTROL_ARG_PEER] = "ADDR",
	[CONTROL_ARG_FDB] = "MAC[@VID]=ADDR",
	[CONTROL_ARG_FDB_KEY] = "MAC[@VID]",
	[CONTROL_ARG_ROUTE] = "PREFIX=ADDR",
	[CONTROL_ARG_PREFIX] = "PREFIX",
};

const struct control_command *control_command(char *const *w, int n)
{
	const struct control_command *c;

	if (n < 1)
		return NULL;
	for (c = control_commands; c < control_commands + CTLREQ_N; c++)
		if (!strcmp(w[0], c->w0) &&
		    (!c->w1 || (n > 1 && !strcmp(w[1], c->w1))))
			return c;
	return NULL;
}

bool control_is_command(const char *word)
{
	size_t i;

	for (i = 0; i < CTLREQ_N; i++)
		if (!strcmp(word, control_commands[i].w0))
			return true;
	return false;
}

const char *control_closest(const char *word)
{
	const char *first[CTLREQ_N];
	size_t i, n = 0;

	/* Each first word once, in the order of the table (rows together). */
	for (i = 0; i < CTLREQ_N; i++)
		if (!i || strcmp(control_commands[i].w0,
				 control_commands[i - 1].w0))
			first[n++] = control_commands[i].w0;
	return optable_nearest(word, strlen(word), first, n);
}

int control_usage(const struct control_command *c, char *buf, size_t len)
{
	const char *arg = control_arg_names[c->arg];
	char line[CONTROL_REQ_MAX];

	snprintf(line, sizeof(line), "%s%s%s%s%s%s%s", c->w0,
		 c->w1 ? " " : "", c->w1 ? c->w1 : "",
		 c->json == CONTROL_JSON_WORD ? " [json]" : "",
		 arg ? " " : "", arg ? arg : "", c->tap ? " [TAP]" : "");
	if (c->json == CONTROL_JSON_LINE)
		return snprintf(buf, len, "%s\n%s json\n", line, line);
	return snprintf(buf, len, "%s\n", line);
}

int control_help(char *buf, size_t len, bool local)
{
	size_t i, at = 0;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < CTLREQ_N; i++) {
		if (control_commands[i].who == CONTROL_LOCAL && !local)
			continue;
		n = control_usage(&control_commands[i],
				  at < len ? buf + at : NULL,
				  at < len ? len - at : 0);
		if (n < 0)
			return n;
		at += (size_t)n;
	}
	return (int)at;
}
