/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options' table, made from optlist.h's list, which the command line
 * (options.c) and the configuration file (conffile.c) both go by.
 */
#ifndef GSOTUN_OPTABLE_H
#define GSOTUN_OPTABLE_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include "conf/optlist.h"
#include "conf/types.h"

/*
 * The options' keys, OPT_ and the KEY of their row in OPTIONS_LIST,
 * above the character range (-v, -q and -h are their letters).
 */
#define OPTABLE_KEY(k, ...) OPT_##k,
#define OPTABLE_NO_KEY(...)
enum options_key {
	OPT_BEFORE_FIRST = 255,
	OPTIONS_LIST(OPTABLE_NO_KEY, OPTABLE_KEY, OPTABLE_NO_KEY)
	OPT_AFTER_LAST
};
#undef OPTABLE_KEY
#undef OPTABLE_NO_KEY

#define OPT_FIRST (OPT_BEFORE_FIRST + 1)
/* Options with a key of their own, OPT_FIRST on. */
#define OPTIONS_KEYS (OPT_AFTER_LAST - OPT_FIRST)

/* What an option's value does (optlist.h's parse). */
enum optable_kind {
	OPTABLE_GROUP,		/* a heading, no option */
	OPTABLE_FLAG,		/* SET_FLAG */
	OPTABLE_NUM,		/* SET_NUM */
	OPTABLE_TEXT,		/* SET_TEXT */
	OPTABLE_PATH,		/* SET_PATH */
	OPTABLE_CALL,		/* PARSE: options.c's own */
};

/* How a configuration writes it out (optlist.h's put). */
enum optable_put {
	OPTABLE_PUT_NONE,
	OPTABLE_PUT_SAME,
	OPTABLE_PUT_CALL,	/* conffile.c's own */
};

/*
 * An option's row: optable[i]'s is optable_rows[i]. off is the offset
 * of its field in struct config; width what the field is: 1 a bool, 16
 * or 32 an integer of those bits, 64 a string's pointer.
 */
struct optable_row {
	int key;
	enum optable_kind kind;
	enum optable_put put;
	size_t off;
	unsigned int width;
	unsigned long long min, max, def;	/* SET_NUM */
	bool value;				/* SET_FLAG */
};

/*
 * The argp table, in the order of --help: its long names are those of a
 * configuration file too (conffile.c). Ends with an all-zero entry.
 */
extern const struct argp_option optable[];
extern const struct optable_row optable_rows[];

/* The row of option key, or NULL. */
const struct optable_row *optable_row(int key);

/* The long name of option key, or "?". */
const char *optable_name(int key);

/*
 * The value of r's field in c (SET_NUM; SET_FLAG: 0 or 1), and v into
 * it.
 */
unsigned long long optable_get(const struct config *c,
			       const struct optable_row *r);
void optable_set(struct config *c, const struct optable_row *r,
		 unsigned long long v);

/* r's string field in c (SET_TEXT, SET_PATH): where it is, what it is. */
char **optable_text_at(struct config *c, const struct optable_row *r);
const char *optable_text(const struct config *c, const struct optable_row *r);

/* Every SET_FLAG and SET_NUM field of c at its default. */
void optable_defaults(struct config *c);

/*
 * The option named name (len bytes), or by a prefix of it that is no
 * other's; NULL when none or more than one is. *known: the name, or a
 * prefix of it, is an option's (argp's own --help, --usage, --version
 * too).
 */
const struct argp_option *optable_find(const char *name, size_t len,
				       bool *known);

/* The long name of the table closest to name (len bytes), or NULL. */
const char *optable_closest(const char *name, size_t len);

/*
 * The one of the n names closest to name (len bytes), if it is close as
 * optable_closest() judges; NULL if none is. For gsotunctl's commands.
 */
const char *optable_nearest(const char *name, size_t len,
			    const char *const *names, size_t n);

/*
 * argp's help_filter for optable: the docs that list encapsulations get
 * their lists from the encapsulations' table (a doc holds %s where its
 * list goes). A new string to free, or text as it was.
 */
char *optable_help_filter(int key, const char *text, void *input);

#endif
