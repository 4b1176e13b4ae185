/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The peers (--remote), static forwarding entries (--fdb) and routes
 * (--route) of a config: each added with its checks, on the command line
 * or from the peers file (--peers), which is read at start and again on
 * SIGHUP.
 */
#ifndef GSOTUN_PEERSFILE_H
#define GSOTUN_PEERSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "conf/types.h"

/* The largest peers file read (bytes). */
#define PEERSFILE_MAX (1u << 20)

/* A peer more in cfg, from the text of its address; why not, or NULL. */
const char *peersfile_add_remote(struct config *cfg, const char *arg);

/*
 * A static forwarding entry, [DEV=]MAC[@VID]=ADDR, more in cfg; why not,
 * or NULL.
 */
const char *peersfile_add_fdb(struct config *cfg, const char *arg);

/*
 * A route, [DEV=]PREFIX=ADDR, more in cfg; why not (in buf, len bytes,
 * when it names the prefix), or NULL.
 */
const char *peersfile_add_route(struct config *cfg, const char *arg,
				char *buf, size_t len);

/*
 * The peers, none or more (--remote and the file's), all of the
 * underlay's family, cfg->family: --local's, else the first peer's.
 * With neither there is no family to open the underlay in. Why not, or
 * NULL.
 */
const char *peersfile_remotes_invalid(struct config *cfg);

/*
 * Every --fdb names a peer, and a tap with DEV=; which one does not, in
 * buf, or NULL.
 */
const char *peersfile_fdb_invalid(const struct config *cfg, char *buf,
				  size_t len);

/*
 * Every --route names a peer, and a tap with DEV=; which one does not, in
 * buf, or NULL.
 */
const char *peersfile_route_invalid(const struct config *cfg, char *buf,
				    size_t len);

/*
 * Read the peers file f again: on success its entries replace the file's
 * in cfg (the command line's stay), else cfg is left as it was and why
 * says what is wrong. A file that leaves no peer is taken (the peers may
 * come and go, down to none), given cfg's family (at start --local's).
 * 0 or -EINVAL.
 */
int peersfile_load(struct config *cfg, FILE *f, char *why, size_t len);

/*
 * Open the peers file name in directory dir (AT_FDCWD, or an fd) as the
 * pidfile is opened: without following a symlink at its name or blocking
 * on a FIFO put there; a regular file of at most PEERSFILE_MAX bytes.
 * NULL with why said in buf.
 */
FILE *peersfile_open(int dir, const char *name, char *why, size_t len);

/*
 * As peersfile_open(), with flags added to openat()'s instead of
 * O_NOFOLLOW: 0 follows a symlink (--config, read once, as root).
 */
FILE *peersfile_open_flags(int dir, const char *name, int flags, char *why,
			   size_t len);

#endif
