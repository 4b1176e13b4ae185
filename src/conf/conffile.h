/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The configuration file (--config): its lines read into the argv words
 * options.c parses, and a config written out in its form (--check, the
 * control socket's config). Pure.
 */
#ifndef GSOTUN_CONFFILE_H
#define GSOTUN_CONFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "conf/types.h"

/* The bytes of a line at most, its newline not counted: a path fits. */
#define CONFFILE_LINE_MAX 4096
/* Options a file holds at most: more than every list's limit together. */
#define CONFFILE_OPTIONS_MAX 8192

/* A file's options, as words of argv: "--NAME" or "--NAME=VALUE". */
struct conffile {
	char **words;
	unsigned int *lines;	/* the line of each */
	unsigned int n;
};

/*
 * The lines of f into *cf: "NAME [VALUE]", NAME a long option of the
 * table without its dashes, VALUE the rest of the line (blanks at its
 * ends dropped), a flag's NAME alone; blank lines, and comments from a
 * '#' that starts a word to the end of the line, skipped. A NAME of
 * none, a value missing or one too many: -EINVAL with why said in why
 * and its line in *line (0: the file as a whole). 0, -EINVAL, -ENOMEM;
 * cf then holds nothing.
 */
int conffile_read(FILE *f, struct conffile *cf, unsigned int *line,
		  char *why, size_t len);
void conffile_free(struct conffile *cf);

/*
 * The key of row i of optable, for a walk in its order: 0 past
 * its end, -1 for a row that is never written (a group's header,
 * --config, --check).
 */
int conffile_row(unsigned int i);

/*
 * The item-th line (0 on) of option key of c to out, "NAME VALUE" or a
 * flag's "NAME"; false when there is none: the value is the default,
 * or item is past the last of a list. The peers and static entries are
 * c's own, the command line's and --config's (not --peers').
 */
bool conffile_put(FILE *out, const struct config *c, int key,
		  unsigned int item);

/*
 * "remote ADDR"; "fdb [DEV=]MAC[@VID]=ADDR", "route [DEV=]PREFIX=ADDR"
 * (dev NULL or "": none).
 */
void conffile_put_remote(FILE *out, const struct ipaddr *a);
/* "local ADDR" (the unspecified address: the family only). */
void conffile_put_local(FILE *out, const struct ipaddr *a);
void conffile_put_fdb(FILE *out, const char *dev, const uint8_t *mac,
		      uint16_t vlan, const struct ipaddr *peer);
void conffile_put_route(FILE *out, const char *dev, const struct cidr *prefix,
			const struct ipaddr *peer);

/* The comment a configuration written out starts with. */
void conffile_head(FILE *out);

/* All of c, the head first: what --check prints. */
void conffile_write(FILE *out, const struct config *c);

#endif
