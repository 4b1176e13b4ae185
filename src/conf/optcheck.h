/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks of the command line that need every option at once
 * (optcheck.c), what the parser (options.c) remembers for them, and the
 * usage error both say. The two files are one module, the argp parser,
 * options.c above optcheck.c: others include options.h.
 */
#ifndef GSOTUN_OPTCHECK_H
#define GSOTUN_OPTCHECK_H

#include <argp.h>
#include <stdbool.h>
#include "conf/optable.h"
#include "conf/types.h"

/* What the parser remembers besides struct config. */
struct options_state {
	struct config *cfg;
	bool given[OPTIONS_KEYS];	/* by key from OPT_FIRST on */
	bool key_tap_set;		/* --key N=DEV */
	/*
	 * --config: its lines, argv[1] to argv[n_conf] (conffile.c), and
	 * the line of the option being parsed (0: the command line's).
	 */
	const char *conf_name;
	const unsigned int *conf_lines;
	unsigned int n_conf;
	unsigned int line;
	/*
	 * The line of --config each option last came from, by its key
	 * from OPT_FIRST on (0: the command line's, or not given), for
	 * an error of options_finish() between two of them.
	 */
	unsigned int key_line[OPTIONS_KEYS];
	bool finishing;		/* in options_finish() */
};

/* Was option key (OPT_FIRST on) given, on the command line or --config? */
static inline bool options_given(const struct options_state *st, int key)
{
	return st->given[key - OPT_FIRST];
}

/*
 * in into out (len bytes) with each control byte written \\xHH, so that
 * a message quoting a value moves no terminal's cursor (as ls -b).
 */
void options_escape(const char *in, char *out, size_t len);

/*
 * A usage error, as argp_error() says it (exit 64), with the file and line
 * of an option from --config, control bytes escaped (options_escape()).
 */
void options_error(const struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * At the end of argv (ARGP_KEY_END): checks and defaults that depend on
 * several options, the peers file read; 0, or the error options_error()
 * said.
 */
int options_finish(struct argp_state *state);

#endif
