/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control protocol, shared by gsotun (control.c) and gsotunctl: where
 * the socket is, and what its lines look like (gsotunctl(8), PROTOCOL).
 */
#ifndef GSOTUN_CTLPROTO_H
#define GSOTUN_CTLPROTO_H

#include <stdbool.h>
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

/*
 * The systemd unit's socket, in its RuntimeDirectory= (gsotun@.service
 * gives --control /run/gsotun/DEV/ctl): a directory only root and the
 * service may write, so nobody else can take the name. gsotunctl looks
 * for it before the abstract name.
 */
#define CONTROL_RUN_DIR "/run/gsotun/"
#define CONTROL_RUN_FILE "/ctl"

/*
 * The reply: a status line, "error CODE WHY" and nothing after it, or
 * "ok" and what was asked for in chunks, each a line with its size in
 * bytes (decimal, at most CONTROL_CHUNK_MAX) and that many bytes, the
 * last of size 0: "ok\n5\nhello0\n". gsotun makes a reply as the client
 * takes it, so its length is not known when it starts. (gsotun 0.1
 * answered "ok LEN" and LEN bytes; gsotunctl reads that too.)
 */
#define CONTROL_CHUNK_MAX (1 << 20)

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

/*
 * Is word the first of some request ("show", "fdb", ...; ctlreq.c parses
 * them)? gsotunctl: a first word that is not is the tap's name.
 */
bool control_is_command(const char *word);

/* Those first words, control_n_commands of them. */
extern const char *const control_commands[];
extern const size_t control_n_commands;

/*
 * The reply to "help", and what gsotunctl help prints: every request,
 * a line each, as ctlreq.c parses them.
 */
extern const char control_help[];

#endif
