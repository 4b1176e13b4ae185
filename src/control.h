/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket that gsotunctl talks to: a request line in, a status
 * line and a reply out, one request a connection; served by the loop
 * without ever blocking it.
 */
#ifndef GSOTUN_CONTROL_H
#define GSOTUN_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/un.h>
#include <ev.h>

#include "ctlproto.h"
#include "log.h"

#define CONTROL_CLIENTS 16	/* served at once; more are turned away */
#define CONTROL_TIMEOUT 5.0	/* seconds a client may not move */
#define CONTROL_MAX_TIME 60.0	/* seconds a client has for all of it */

struct port;

struct control_client {
	ev_io io;
	ev_timer timer;
	struct control *ctl;
	int fd;			/* -1: a free slot */
	ev_tstamp started;
	char req[CONTROL_REQ_MAX];
	size_t req_len;
	bool answered;		/* head and body are the answer */
	char head[CONTROL_REQ_MAX];	/* the status line */
	size_t head_len;
	char *body;		/* what was asked for */
	size_t body_len;
	size_t off;		/* written, of head and body */
};

struct control {
	int fd;			/* -1: none (--control none) */
	struct sockaddr_un sa;
	socklen_t sa_len;
	bool is_path;		/* a file, not an abstract name */
	bool bound;		/* by this process: its file to remove */
	ev_io io;
	ev_timer resume_w;	/* accepting again after EMFILE */
	struct log_limit pause_warn;	/* said once a minute at most */
	struct ev_loop *loop;
	struct port *port;
	struct control_client clients[CONTROL_CLIENTS];
};

/*
 * Listen on the socket --control names (opt; NULL: the default for dev),
 * before privileges are dropped; a file is made mode 0660, group user's
 * (--user) when user is not NULL. 0 or -errno (logged).
 */
int control_open(struct control *c, const char *opt, const char *dev,
		 const char *user);

/* Serve it from loop; requests are about port. */
void control_watch(struct control *c, struct ev_loop *loop,
		   struct port *port);

/* Close it and every client; a file is removed. */
void control_close(struct control *c);

#endif
