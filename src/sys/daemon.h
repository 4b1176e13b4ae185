/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process around the tunnel: --daemon (detach, report success to the
 * parent) and --pidfile (written safely, locked while the tunnel runs).
 */
#ifndef GSOTUN_DAEMON_H
#define GSOTUN_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

/* A pidfile this process wrote; fd, read-only, holds its lock. */
struct pidfile {
	const char *path;
	int fd;			/* -1: none written */
	dev_t dev;
	ino_t ino;
};

/*
 * Write this process's PID to path: into a new file of its own, locked
 * on a read-only descriptor (the one that wrote it closed), renamed over
 * path, so that nothing that was there (a symlink, a file of someone
 * else's) is followed, truncated or chmod'ed. Refused when the
 * file at path is locked by a live gsotun (-EBUSY). 0 or -errno (logged).
 */
int pidfile_write(struct pidfile *pf, const char *path);

/*
 * At exit: remove the file when remove is true and path still names the
 * file written (not one a later process put there), and drop the lock.
 */
void pidfile_close(struct pidfile *pf, bool remove);

/*
 * --daemon: fork; the parent waits for the child's daemon_detach() and
 * exits 0 then, or 1 if the child exits before (its set-up failed, said
 * on standard error). The child starts a session, connects to syslog
 * (before a --chroot hides it) and writes its pidfile (when pidfile is
 * not NULL). In the child, 0 or -errno (logged).
 */
int daemon_start(struct pidfile *pf, const char *pidfile);

/*
 * --daemon, once set-up is over and the service manager was told: the
 * child logs to syslog from now on, leaves the caller's stdin, stdout
 * and stderr for /dev/null (stderr stays when it is the journal's), and
 * lets the parent exit 0. Nothing without --daemon. 0 or -EPIPE (the
 * parent is gone).
 */
int daemon_detach(void);

#endif
