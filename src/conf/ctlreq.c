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

/* The requests of a fixed set of words, with no argument. */
static const struct {
	const char *w0, *w1;	/* w1 NULL: one word */
	enum ctlreq_kind kind;
} ctlreq_fixed[] = {
	{ .w0 = "stats", .w1 = NULL, .kind = CTLREQ_STATS },
	{ .w0 = "stats", .w1 = "json", .kind = CTLREQ_STATS_JSON },
	{ .w0 = "metrics", .w1 = NULL, .kind = CTLREQ_METRICS },
	{ .w0 = "version", .w1 = NULL, .kind = CTLREQ_VERSION },
	{ .w0 = "help", .w1 = NULL, .kind = CTLREQ_HELP },
	{ .w0 = "taps", .w1 = NULL, .kind = CTLREQ_TAPS },
	{ .w0 = "config", .w1 = NULL, .kind = CTLREQ_CONFIG },
};

/*
 * The reads that may say more after their words: "json" for their JSON
 * form, then, if they take one, the TAP they are about ("fdb show json
 * gt1"; all taps without).
 */
static const struct {
	const char *w0, *w1;	/* w1 NULL: one word */
	enum ctlreq_kind kind, json;
	bool tap;
	const char *usage;
} ctlreq_views[] = {
	{ .w0 = "show", .w1 = NULL, .kind = CTLREQ_SHOW,
	  .json = CTLREQ_SHOW_JSON, .tap = true, .usage = "show [json] [TAP]" },
	{ .w0 = "fdb", .w1 = "show", .kind = CTLREQ_FDB_SHOW,
	  .json = CTLREQ_FDB_SHOW_JSON, .tap = true,
	  .usage = "fdb show [json] [TAP]" },
	{ .w0 = "peer", .w1 = "list", .kind = CTLREQ_PEER_LIST,
	  .json = CTLREQ_PEER_LIST_JSON, .tap = false,
	  .usage = "peer list [json]" },
	{ .w0 = "route", .w1 = "show", .kind = CTLREQ_ROUTE_SHOW,
	  .json = CTLREQ_ROUTE_SHOW_JSON, .tap = true,
	  .usage = "route show [json] [TAP]" },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

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

static int ctlreq_peer(char **argv, int argc, struct ctlreq *r, char *why,
		       size_t why_len)
{
	const char *bad;

	if (argc != 3 || (strcmp(argv[1], "add") && strcmp(argv[1], "del")))
		return ctlreq_fail(why, why_len, "usage: peer add|del ADDR, "
				   "peer list [json]");
	bad = optvalue_endpoint_parse(argv[2], &r->peer);
	if (bad)
		return ctlreq_fail(why, why_len, "invalid peer '%s': %s",
				   argv[2], bad);
	r->kind = argv[1][0] == 'a' ? CTLREQ_PEER_ADD : CTLREQ_PEER_DEL;
	r->arg = argv[2];
	return 0;
}

static int ctlreq_fdb(char **argv, int argc, struct ctlreq *r, char *why,
		      size_t why_len)
{
	bool add = argc >= 2 && !strcmp(argv[1], "add");
	const char *bad;

	if (argc < 2 || (!add && strcmp(argv[1], "del")))
		return ctlreq_fail(why, why_len, "usage: fdb show|add|del");
	if (argc < 3 || argc > 4)
		return ctlreq_fail(why, why_len, "usage: fdb add "
				   "MAC[@VID]=ADDR [TAP], fdb del MAC[@VID] "
				   "[TAP]");
	if (add)
		bad = optvalue_fdb_parse(argv[2], &r->fdb);
	else
		bad = optvalue_mac_vlan_parse(argv[2], strlen(argv[2]),
					      r->fdb.mac, &r->fdb.vlan);
	if (bad)
		return ctlreq_fail(why, why_len, "invalid entry '%s': %s",
				   argv[2], bad);
	r->kind = add ? CTLREQ_FDB_ADD : CTLREQ_FDB_DEL;
	r->arg = argv[2];
	r->tap = argc == 4 ? argv[3] : NULL;
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

/* route add PREFIX=ADDR [TAP], route del PREFIX [TAP]. */
static int ctlreq_route(char **argv, int argc, struct ctlreq *r, char *why,
			size_t why_len)
{
	bool add = argc >= 2 && !strcmp(argv[1], "add");
	struct cidr *p = &r->route.prefix;
	const char *bad;

	if (argc < 2 || (!add && strcmp(argv[1], "del")))
		return ctlreq_fail(why, why_len, "usage: route show|add|del");
	if (argc < 3 || argc > 4)
		return ctlreq_fail(why, why_len, "usage: route add "
				   "PREFIX=ADDR [TAP], route del PREFIX "
				   "[TAP]");
	if (add) {
		bad = optvalue_route_parse(argv[2], &r->route);
	} else {
		bad = optvalue_cidr_parse(argv[2], p);
		if (!bad && optvalue_cidr_host_bits(p))
			bad = optvalue_host_bits;
	}
	if (bad)
		return ctlreq_bad_route(argv[2], bad, p, why, why_len);
	r->kind = add ? CTLREQ_ROUTE_ADD : CTLREQ_ROUTE_DEL;
	r->arg = argv[2];
	r->tap = argc == 4 ? argv[3] : NULL;
	return 0;
}

/* The requests of more words, by their first, and what parses them. */
static const struct {
	const char *w0;
	int (*parse)(char **argv, int argc, struct ctlreq *r, char *why,
		     size_t why_len);
} ctlreq_parsed[] = {
	{ .w0 = "peer", .parse = ctlreq_peer },
	{ .w0 = "fdb", .parse = ctlreq_fdb },
	{ .w0 = "route", .parse = ctlreq_route },
};


/* Are the words those of ctlreq_fixed[i]? */
static bool ctlreq_is_fixed(size_t i, char **argv, int argc)
{
	const char *w1 = ctlreq_fixed[i].w1;

	if (strcmp(argv[0], ctlreq_fixed[i].w0))
		return false;
	return w1 ? argc == 2 && !strcmp(argv[1], w1) : argc == 1;
}

/* Do the words start as those of ctlreq_views[i]? */
static bool ctlreq_is_view(size_t i, char **argv, int argc)
{
	const char *w1 = ctlreq_views[i].w1;

	if (strcmp(argv[0], ctlreq_views[i].w0))
		return false;
	return !w1 || (argc >= 2 && !strcmp(argv[1], w1));
}

static int ctlreq_view(size_t i, char **argv, int argc, struct ctlreq *r,
		       char *why, size_t why_len)
{
	int at = ctlreq_views[i].w1 ? 2 : 1;

	r->kind = ctlreq_views[i].kind;
	if (at < argc && !strcmp(argv[at], "json")) {
		r->kind = ctlreq_views[i].json;
		at++;
	}
	if (at < argc && ctlreq_views[i].tap)
		r->tap = argv[at++];
	if (at < argc)
		return ctlreq_fail(why, why_len, "usage: %s",
				   ctlreq_views[i].usage);
	return 0;
}

int ctlreq_parse(char *line, size_t len, struct ctlreq *r, char *why,
		 size_t why_len)
{
	char *argv[CTLREQ_MAX_WORDS];
	size_t i;
	int argc;

	memset(r, 0, sizeof(*r));
	if (!ctlreq_words(line, len, argv, &argc))
		return ctlreq_fail(why, why_len, "malformed request");
	for (i = 0; i < ARRAY_LEN(ctlreq_fixed); i++) {
		if (ctlreq_is_fixed(i, argv, argc)) {
			r->kind = ctlreq_fixed[i].kind;
			return 0;
		}
	}
	for (i = 0; i < ARRAY_LEN(ctlreq_views); i++)
		if (ctlreq_is_view(i, argv, argc))
			return ctlreq_view(i, argv, argc, r, why, why_len);
	for (i = 0; i < ARRAY_LEN(ctlreq_parsed); i++)
		if (!strcmp(argv[0], ctlreq_parsed[i].w0))
			return ctlreq_parsed[i].parse(argv, argc, r, why,
						      why_len);
	/* A request's own words, and more ("config extra"). */
	for (i = 0; i < ARRAY_LEN(ctlreq_fixed); i++)
		if (!strcmp(argv[0], ctlreq_fixed[i].w0))
			return ctlreq_fail(why, why_len, "%s: too many words "
					   "(try help)", argv[0]);
	return ctlreq_fail(why, why_len, "unknown request (try help)");
}
