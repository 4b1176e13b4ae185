/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify: telling the service manager that the tunnel is ready, reloading
 * or stopping, with sd_notify(3)'s datagrams but without libsystemd.
 */
#ifndef GSOTUN_NOTIFY_H
#define GSOTUN_NOTIFY_H

#include <stdbool.h>

/*
 * Connect to $NOTIFY_SOCKET (a path, or "@name" in the abstract
 * namespace) now, before a --chroot hides it. Nothing, and every later
 * call a no-op, when it is unset.
 */
void notify_open(void);
void notify_close(void);

/* Whether a service manager listens: NOTIFY_SOCKET set and connected. */
bool notify_active(void);

/*
 * READY=1 with STATUS=status; from a process forked since notify_open()
 * (--daemon), MAINPID= too, so the manager follows the child.
 */
void notify_ready(const char *status);

/* RELOADING=1 with MONOTONIC_USEC=, as systemd 253 wants; READY=1 after. */
void notify_reloading(void);

void notify_stopping(void);

#endif
