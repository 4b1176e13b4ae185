/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line's entry points that parse argv, after --config's file,
 * into the configuration gsotun runs (conf/types.h's struct config).
 */
#ifndef GSOTUN_OPTIONS_H
#define GSOTUN_OPTIONS_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "conf/types.h"

/*
 * Parse argv into *cfg (which it initialises with the defaults first),
 * after the file of --config FILE when argv has one (options_parse_file()).
 * Bad usage prints a message naming the option and exits with EX_USAGE (64)
 * through argp_error(). Returns 0.
 */
int options_parse(int argc, char **argv, struct config *cfg);

/*
 * As options_parse(), with the options of configuration file f (NULL:
 * none) before argv's: those of argv add to the file's list options
 * (--remote, --fdb, --address...) and override its others. A bad line
 * is said as "gsotun: NAME:LINE: what" (NAME: the file's, in messages).
 * quiet: a usage error returns -EINVAL, said nowhere, instead of exit 64
 * (the fuzz harness); argv must then hold no --help, --usage nor
 * --version.
 */
int options_parse_file(int argc, char **argv, FILE *f, const char *name,
		       bool quiet, struct config *cfg);

#endif
