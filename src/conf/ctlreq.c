// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlreq: the control socket's request lines, cut out of what a client
 * sent and parsed into requests, for control.c to run. Pure.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "conf/ctlproto.h"
#include "conf/ctlreq.h"
#include "conf/optvalue.h"

/* Words a request has at most: "fdb add MAC@VID=ADDR DEV". */
#define CTLREQ_MAX_WORDS 6

enum ctlreq_line ctlreq_line(char *buf, size_t len, bool eof,
			     size_t *line_len)
{
	char *nl = memchr(buf, '\n', len);

	if (!nl && len >= CONTROL_REQ_MAX)
		return CTLREQ_LINE_TOO_LONG;
	if (!nl && !eof)
		return CTLREQ_LINE_MORE;
	if (!nl && !len)
		return CTLREQ_LINE_NONE;
	/* At the end without a newline: a last line all the same. */
	if (!nl)
		nl = buf + len;
	if (nl > buf && nl[-1] == '\r')
		nl--;
	*nl = '\0';
	*line_len = (size_t)(nl - buf);
	return CTLREQ_LINE_DONE;
}

static int ctlreq_fail(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ctlreq_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return CONTROL_EUSAGE;
}

/*
 * The words of line, split at spaces and tabs; false if it holds what no
 * request has: a control character (a NUL too), or too many words. Its
 * words, and so the messages that quote them, are then one line.
 */
static bool ctlreq_words(char *line, size_t len, char **argv, int *argc)
{
	char *save = NULL, *w;
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			return false;
	*argc = 0;
	for (w = strtok_r(line, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (*argc == CTLREQ_MAX_WORDS)
			return false;
		argv[(*argc)++] = w;
	}
	return *argc > 0;
}

/* An ADDR: peer add|del's. */
static int ctlreq_peer(const char *arg, struct ctlreq *r, char *why,
		       size_t why_len)
{
	const char *bad = optvalue_endpoint_parse(arg, &r->peer);

	if (bad)
		return ctlreq_fail(why, why_len, "invalid peer '%s': %s", arg,
				   bad);
	return 0;
}

/* MAC[@VID]=ADDR: fdb add's. */
static int ctlreq_fdb(const char *arg, struct ctlreq *r, char *why,
		      size_t why_len)
{
	const char *bad = optvalue_fdb_parse(arg, &r->fdb);

	if (bad)
		return ctlreq_fail(why, why_len, "invalid entry '%s': %s",
				   arg, bad);
	return 0;
}

/* MAC[@VID]: fdb del's, into the mac and vlan of r->fdb. */
static int ctlreq_fdb_key(const char *arg, struct ctlreq *r, char *why,
			  size_t why_len)
{
	const char *bad = optvalue_mac_vlan_parse(arg, strlen(arg),
						  r->fdb.mac, &r->fdb.vlan);

	if (bad)
		return ctlreq_fail(why, why_len, "invalid entry '%s': %s",
				   arg, bad);
	return 0;
}

/*
 * A route's prefix: why it is not one (into why), in the words of
 * --route's (optvalue.c), and with host bits the prefix meant.
 */
static int ctlreq_bad_route(const char *arg, const char *bad,
			    struct cidr *p, char *why, size_t why_len)
{
	char text[OPTVALUE_CIDR_TEXT_LEN];

	if (bad != optvalue_host_bits)
		return ctlreq_fail(why, why_len, "invalid route '%s': %s",
				   arg, bad);
	optvalue_cidr_mask(p);
	return ctlreq_fail(why, why_len, "invalid route '%s': %s: the prefix "
			   "is %s (ip route refuses host bits too)", arg, bad,
			   optvalue_cidr_text(p, text));
}

/* PREFIX=ADDR: route add's. */
static int ctlreq_route(const char *arg, struct ctlreq *r, char *why,
			size_t why_len)
{
	const char *bad = optvalue_route_parse(arg, &r->route);

	if (bad)
		return ctlreq_bad_route(arg, bad, &r->route.prefix, why,
					why_len);
	return 0;
}

/* PREFIX: route del's, into r->route.prefix. */
static int ctlreq_prefix(const char *arg, struct ctlreq *r, char *why,
			 size_t why_len)
{
	struct cidr *p = &r->route.prefix;
	const char *bad = optvalue_cidr_parse(arg, p);

	if (!bad && optvalue_cidr_host_bits(p))
		bad = optvalue_host_bits;
	if (bad)
		return ctlreq_bad_route(arg, bad, p, why, why_len);
	return 0;
}

/* The parser of each argument (ctlproto.h), into r, or why it fails. */
static int (*const ctlreq_args[CONTROL_ARG_N])(const char *arg,
					       struct ctlreq *r, char *why,
					       size_t why_len) = {
	[CONTROL_ARG_PEER] = ctlreq_peer,
	[CONTROL_ARG_FDB] = ctlreq_fdb,
	[CONTROL_ARG_FDB_KEY] = ctlreq_fdb_key,
	[CONTROL_ARG_ROUTE] = ctlreq_route,
	[CONTROL_ARG_PREFIX] = ctlreq_prefix,
};

/*
 * A request of c's words whose rest does not parse: its usage, or, if it
 * takes nothing more, that it does not.
 */
static int ctlreq_usage(const struct control_command *c, char *why,
			size_t why_len)
{
	char line[CONTROL_REQ_MAX];

	if (!c->arg && !c->tap && c->json != CONTROL_JSON_WORD)
		return ctlreq_fail(why, why_len, "%s: too many words (try "
				   "help)", c->w0);
	if (c->usage)
		return ctlreq_fail(why, why_len, "usage: %s", c->usage);
	control_usage(c, line, sizeof(line));
	return ctlreq_fail(why, why_len, "usage: %.*s",
			   (int)strcspn(line, "\n"), line);
}

/*
 * Words that are no command's: if w0 is the first of commands (of two
 * words: none of whose second words came), the first one's usage, or
 * their second words; else unknown.
 */
static int ctlreq_group(const char *w0, char *why, size_t why_len)
{
	const struct control_command *c, *first = NULL;
	char words[CONTROL_REQ_MAX] = "";
	size_t at = 0;

	for (c = control_commands; c < control_commands + CTLREQ_N; c++) {
		if (c->who == CONTROL_LOCAL || strcmp(c->w0, w0))
			continue;
		if (!first)
			first = c;
		if (at < sizeof(words))
			at += (size_t)snprintf(words + at, sizeof(words) - at,
					       "%s%s", at ? "|" : "", c->w1);
	}
	if (!first)
		return ctlreq_fail(why, why_len, "unknown request (try help)");
	if (first->usage)
		return ctlreq_fail(why, why_len, "usage: %s", first->usage);
	return ctlreq_fail(why, why_len, "usage: %s %s", w0, words);
}

/*
 * The words after c's own: "json" for its JSON form, its argument, a
 * TAP; each parsed into r.
 */
static int ctlreq_rest(const struct control_command *c, char **argv,
		       int argc, struct ctlreq *r, char *why, size_t why_len)
{
	int at = c->w1 ? 2 : 1;

	if (c->json && at < argc && !strcmp(argv[at], "json")) {
		r->json = true;
		at++;
	}
	if (c->arg && at < argc)
		r->arg = argv[at++];
	if (c->tap && at < argc)
		r->tap = argv[at++];
	if (at < argc || (c->arg && !r->arg))
		return ctlreq_usage(c, why, why_len);
	return c->arg ? ctlreq_args[c->arg](r->arg, r, why, why_len) : 0;
}

int ctlreq_parse(char *line, size_t len, struct ctlreq *r, char *why,
		 size_t why_len)
{
	const struct control_command *c;
	char *argv[CTLREQ_MAX_WORDS];
	int argc;

	memset(r, 0, sizeof(*r));
	if (!ctlreq_words(line, len, argv, &argc))
		return ctlreq_fail(why, why_len, "malformed request");
	c = control_command(argv, argc);
	if (c && c->who != CONTROL_LOCAL) {
		r->kind = (enum ctlreq_kind)(c - control_commands);
		return ctlreq_rest(c, argv, argc, r, why, why_len);
	}
	if (!c)
		return ctlreq_group(argv[0], why, why_len);
	return ctlreq_fail(why, why_len, "unknown request (try help)");
}
