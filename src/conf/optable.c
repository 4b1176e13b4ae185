// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * optable: the options gsotun takes (argp's table: names, keys, values,
 * what each does), and the one of them a name means or nearly means.
 */
#include "config.h"

#include <argp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encap/encap.h"
#include "conf/optable.h"
#include "conf/types.h"

#define G(d) { .doc = d },
#define O(k, n, a, parse, put, d)                                             \
	{ .name = n, .key = OPT_##k, .arg = a, .doc = d },
#define L(letter, n, f, parse, put, d)                                        \
	{ .name = n, .key = letter, .flags = f, .doc = d },
const struct argp_option optable[] = {
	OPTIONS_LIST(G, O, L)
	{ 0 }
};
#undef G
#undef O
#undef L

/*
 * The rows: where each parse puts a value. A field of the wrong type
 * does not build: _Generic has no branch for it.
 */
#define OPTABLE_FIELD(f) .off = offsetof(struct config, f)
#define SET_FLAG(f, v)                                                        \
	.kind = OPTABLE_FLAG, OPTABLE_FIELD(f), .value = (v),                 \
	.width = _Generic(((struct config *)0)->f, bool: 1)
#define SET_NUM(f, lo, hi, d)                                                 \
	.kind = OPTABLE_NUM, OPTABLE_FIELD(f), .min = (lo), .max = (hi),      \
	.def = (d),                                                           \
	.width = _Generic(((struct config *)0)->f, uint16_t: 16,              \
			  unsigned int: 32, int: 32)
#define SET_TEXT(f)                                                           \
	.kind = OPTABLE_TEXT, OPTABLE_FIELD(f),                               \
	.width = _Generic(((struct config *)0)->f, char *: 64)
#define SET_PATH(f)                                                           \
	.kind = OPTABLE_PATH, OPTABLE_FIELD(f),                               \
	.width = _Generic(((struct config *)0)->f, char *: 64)
#define PARSE(fn) .kind = OPTABLE_CALL
#define PUT_SAME .put = OPTABLE_PUT_SAME
#define PUT(fn) .put = OPTABLE_PUT_CALL
#define PUT_NONE .put = OPTABLE_PUT_NONE
#define G(d) { .kind = OPTABLE_GROUP },
#define O(k, n, a, parse, put, d) { .key = OPT_##k, parse, put },
#define L(k, n, f, parse, put, d) { .key = k, parse, put },
const struct optable_row optable_rows[] = {
	OPTIONS_LIST(G, O, L)
};
#undef G
#undef O
#undef L
#undef OPTABLE_FIELD
#undef SET_FLAG
#undef SET_NUM
#undef SET_TEXT
#undef SET_PATH
#undef PARSE
#undef PUT_SAME
#undef PUT
#undef PUT_NONE

#define OPTABLE_N_ROWS (sizeof(optable_rows) / sizeof(*optable_rows))

const struct optable_row *optable_row(int key)
{
	size_t i;

	for (i = 0; i < OPTABLE_N_ROWS; i++)
		if (optable_rows[i].kind != OPTABLE_GROUP &&
		    optable_rows[i].key == key)
			return &optable_rows[i];
	return NULL;
}

const char *optable_name(int key)
{
	const struct optable_row *r = optable_row(key);

	return r && optable[r - optable_rows].name ?
	       optable[r - optable_rows].name : "?";
}

unsigned long long optable_get(const struct config *c,
			       const struct optable_row *r)
{
	const char *p = (const char *)c + r->off;

	switch (r->width) {
	case 1:
		return *(const bool *)p;
	case 16:
		return *(const uint16_t *)p;
	case 32:
		return *(const unsigned int *)p;
	}
	return 0;
}

void optable_set(struct config *c, const struct optable_row *r,
		 unsigned long long v)
{
	char *p = (char *)c + r->off;

	switch (r->width) {
	case 1:
		*(bool *)p = v;
		break;
	case 16:
		*(uint16_t *)p = v;
		break;
	case 32:
		*(unsigned int *)p = v;
		break;
	}
}

char **optable_text_at(struct config *c, const struct optable_row *r)
{
	return (char **)((char *)c + r->off);
}

const char *optable_text(const struct config *c, const struct optable_row *r)
{
	return *(char *const *)((const char *)c + r->off);
}

void optable_defaults(struct config *c)
{
	size_t i;

	for (i = 0; i < OPTABLE_N_ROWS; i++) {
		if (optable_rows[i].kind == OPTABLE_FLAG)
			optable_set(c, &optable_rows[i],
				    !optable_rows[i].value);
		else if (optable_rows[i].kind == OPTABLE_NUM)
			optable_set(c, &optable_rows[i], optable_rows[i].def);
	}
}

/* Long options argp adds to the table. */
static const char *const optable_argp_own[] = { "help", "usage", "version",
						"program-name", "HANG" };
#define OPTABLE_N_ARGP_OWN                                                    \
	(sizeof(optable_argp_own) / sizeof(*optable_argp_own))

/*
 * The edits from a (la bytes) to b, both under 64 bytes: Levenshtein's
 * distance, a swap of two letters side by side one edit ("shwo" is one
 * from "show", as in Damerau's optimal string alignment).
 */
static unsigned int optable_distance(const char *a, size_t la, const char *b)
{
	unsigned int rows[3][64], *prev2, *prev, *row, i, j, v;
	size_t lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return UINT_MAX;
	/* Row i in rows[(i + 1) % 3], the two before it beside it. */
	for (j = 0; j <= lb; j++)
		rows[1][j] = j;
	for (i = 1; i <= la; i++) {
		prev2 = rows[(i + 2) % 3];
		prev = rows[i % 3];
		row = rows[(i + 1) % 3];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			row[j] = v;
		}
	}
	return rows[(la + 1) % 3][lb];
}

/* The option of the table named name (len bytes) or by a prefix of it. */
const struct argp_option *optable_find(const char *name, size_t len,
					      bool *known)
{
	const struct argp_option *o, *hit = NULL;
	unsigned int i, hits = 0;

	*known = false;
	for (i = 0; i < OPTABLE_N_ARGP_OWN; i++)
		*known |= !strncmp(optable_argp_own[i], name, len);
	for (o = optable; o->name || o->doc; o++) {
		if (!o->name || strncmp(o->name, name, len))
			continue;
		*known = true;
		if (!o->name[len])
			return o;
		hit = o;
		hits++;
	}
	return hits == 1 ? hit : NULL;
}

/*
 * Is candidate closer to name (len bytes) than *best edits, and close: two
 * edits at most, and not more than a third of what was typed? Then *best
 * is its distance.
 */
static bool optable_closer(const char *name, size_t len,
			   const char *candidate, unsigned int *best)
{
	unsigned int d = optable_distance(name, len, candidate);

	if (d >= *best || 3 * d > len)
		return false;
	*best = d;
	return true;
}

/* The name of the table closest to name (len bytes), if it is close. */
const char *optable_closest(const char *name, size_t len)
{
	const struct argp_option *o;
	const char *hit = NULL;
	unsigned int best = 3;

	for (o = optable; o->name || o->doc; o++)
		if (o->name && optable_closer(name, len, o->name, &best))
			hit = o->name;
	return hit;
}

const char *optable_nearest(const char *name, size_t len,
			    const char *const *names, size_t n)
{
	const char *hit = NULL;
	unsigned int best = 3;
	size_t i;

	for (i = 0; i < n; i++)
		if (optable_closer(name, len, names[i], &best))
			hit = names[i];
	return hit;
}

/*
 * --help's lists of encapsulations, from their table: the doc of each
 * of these options above holds %s where its list goes (--port's first
 * %s: the default ports, optable_ports()).
 */
static const struct optable_encaps {
	int key;
	enum encap_opt o;
	bool takes;		/* those that take o, or those that do not */
	const char *conj;
} optable_encaps[] = {
	{ OPT_PORT, ENCAP_OPT_UDP, false, "or" },
	{ OPT_SOURCE_PORTS, ENCAP_OPT_UDP, false, "or" },
	{ OPT_EVPN, ENCAP_OPT_EVPN, true, "or" },
	{ OPT_ENCAP, ENCAP_OPT_ENCAP, true, "or" },
	{ OPT_VNI, ENCAP_OPT_VNI, true, "and" },
	{ OPT_KEY, ENCAP_OPT_KEY, true, "and" },
	{ OPT_SEQ, ENCAP_OPT_SEQ, true, "and" },
	{ OPT_GENEVE_OPT, ENCAP_OPT_TLV, true, "and" },
	{ OPT_GENEVE_ECHO, ENCAP_OPT_TLV, true, "and" },
	{ OPT_MODE, ENCAP_OPT_TUN, true, "or" },
};

#define OPTABLE_N_ENCAPS (sizeof(optable_encaps) / sizeof(optable_encaps[0]))

/* "4789 for vxlan, 4754 for gre-udp": the default ports, into buf. */
static const char *optable_ports(char *buf, size_t len)
{
	unsigned int t, n = encap_count();
	size_t at = 0;

	buf[0] = '\0';
	for (t = 0; t < n && at < len; t++)
		if (encap_default_port(t))
			at += snprintf(buf + at, len - at, "%s%u for %s",
				       at ? ", " : "", encap_default_port(t),
				       encap_name(t));
	return buf;
}

/* text with its first %s as a, its second as b: malloc'd, or text. */
static char *optable_fill(const char *text, const char *a, const char *b)
{
	char *out = malloc(strlen(text) + strlen(a) + strlen(b) + 1);
	const char *p;
	char *o = out;

	if (!out)
		return (char *)text;
	while ((p = strstr(text, "%s"))) {
		memcpy(o, text, p - text);
		o = stpcpy(o + (p - text), a);
		a = b;
		b = "";
		text = p + 2;
	}
	strcpy(o, text);
	return out;
}

char *optable_help_filter(int key, const char *text, void *input)
{
	const struct optable_encaps *e = NULL;
	char list[256], ports[256];
	size_t i;

	for (i = 0; i < OPTABLE_N_ENCAPS && text; i++)
		if (optable_encaps[i].key == key)
			e = &optable_encaps[i];
	if (!e)
		return (char *)text;
	encap_names(list, sizeof(list), e->o, e->takes, e->conj);
	if (key == OPT_PORT)
		return optable_fill(text, optable_ports(ports, sizeof(ports)),
				    list);
	return optable_fill(text, list, "");
}
