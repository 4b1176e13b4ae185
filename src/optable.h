/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options' table, which the command line (options.c) and the
 * configuration file (conffile.c) both go by.
 */
#ifndef GSOTUN_OPTABLE_H
#define GSOTUN_OPTABLE_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The argp table, in the order of --help: its long names are those of a
 * configuration file too (conffile.c). Ends with an all-zero entry.
 */
extern const struct argp_option optable[];

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

#endif
