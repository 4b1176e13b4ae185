/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control protocol, shared by gsotun (control.c) and gsotunctl: where
 * the socket is, and what its lines look like (gsotunctl(8), PROTOCOL).
 */
#ifndef GSOTUN_CTLPROTO_H
#define GSOTUN_CTLPROTO_H

#include <sys/socket.h>
#include <sys/un.h>

/* A request: one line, newline included, at most this long. */
#define CONTROL_REQ_MAX 512

/*
 * Abstract socket names are scoped to the network namespace, so two
 * gsotun with one tap name in two namespaces never meet, and gsotunctl
 * run in a namespace (ip netns exec) reaches the gsotun of that one.
 */
#define CONTROL_PREFIX "gsotun/"

/* The status line's codes: the exit status gsotunctl then has. */
#define CONTROL_OK 0
#define CONTROL_EFAIL 1		/* refused: no such peer, table full... */
#define CONTROL_EUSAGE 64	/* a malformed request (EX_USAGE) */

/*
 * The socket's address: the abstract "@gsotun/DEV" by default (opt NULL),
 * else what --control gives ("@NAME": abstract; else a path). Its length,
 * or 0 when it does not fit.
 */
socklen_t control_name(const char *opt, const char *dev,
		       struct sockaddr_un *sa);

#endif
