/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket that gsotunctl talks to: a request line in, a status
 * line and a reply in chunks out, one request a connection; served by the
 * loop without ever blocking it.
 */
#ifndef GSOTUN_CONTROL_H
#define GSOTUN_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>
#include <ev.h>

#include "base/log.h"
#include "conf/ctlproto.h"
#include "ops/report.h"

#define CONTROL_CLIENTS 16	/* served at once; more are turned away */
#define CONTROL_PER_UID 4	/* of one user but root */
#define CONTROL_TIMEOUT 5.0	/* seconds a client may not move */
#define CONTROL_MAX_TIME 60.0	/* seconds a client has for all of it */
/*
 * A reply is made a chunk of about this many bytes at a time, the next
 * once the last is sent, one a wake-up of the client: what a client
 * holds is one chunk (and a piece, REPORT_PIECE_MAX) whatever it asked.
 */
#define CONTROL_CHUNK 16384

struct config;
struct port;

struct control_client {
	ev_io io;
	ev_timer timer;
	struct control *ctl;
	int fd;			/* -1: a free slot */
	uid_t uid;		/* who it is (SO_PEERCRED) */
	bool may_change;	/* root or --admin-group: peers, fdb */
	ev_tstamp started;
	char req[CONTROL_REQ_MAX];
	size_t req_len;
	bool answered;		/* the request is in: sending the reply */
	bool more;		/* the report has more to say (cur) */
	bool last;		/* the reply ends with what is being sent */
	struct report_cursor cur;
	char head[CONTROL_REQ_MAX];	/* the status line, a chunk's size */
	size_t head_len;
	char *body;		/* the chunk */
	size_t body_len;
	const char *tail;	/* after the last chunk: "0\n"; or "" */
	size_t off;		/* written, of head, body and tail */
};

struct control {
	int fd;			/* -1: none (--control none, or taken) */
	struct sockaddr_un sa;
	socklen_t sa_len;
	bool is_path;		/* a file, not an abstract name */
	bool bound;		/* by this process: its file to remove */
	bool has_admin;		/* --admin-group */
	gid_t admin_gid;
	const char *admin_name;
	ev_io io;
	ev_timer resume_w;	/* accepting again after EMFILE */
	struct log_limit pause_warn;	/* said once a minute at most */
	struct ev_loop *loop;
	struct port *port;
	struct control_client clients[CONTROL_CLIENTS];
};

/*
 * How many of its watchers wait to run, in this round of the loop: a
 * round that runs only these stops the queues' threads only where it
 * must (port_stop()), as the forwarding table and the configuration
 * are the main thread's alone.
 */
unsigned int control_pending(const struct control *c);

/*
 * Listen on the socket cfg's --control names (the default for dev
 * without), before privileges are dropped; a file is made mode 0660,
 * group --user's (root's without), or 0666 with --admin-group. A name
 * another process holds is a warning (naming it): gsotun runs without a
 * socket then. 0 or -errno (logged).
 */
int control_open(struct control *c, const struct config *cfg,
		 const char *dev);

/* --admin-group's group (a name, or a number) in *gid; -ENOENT: none. */
int control_admin_gid(const char *group, gid_t *gid);

/* Serve it from loop; requests are about port. */
void control_watch(struct control *c, struct ev_loop *loop,
		   struct port *port);

/* Close it and every client; a file is removed. */
void control_close(struct control *c);

#endif
