// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control: the control socket. A client sends one request line; the loop
 * answers with a status line ("ok", or "error CODE why") and the reply,
 * then closes. Everything is non-blocking and bounded: a request is at
 * most CONTROL_REQ_MAX bytes, a client has CONTROL_TIMEOUT seconds for
 * all of it, at most CONTROL_CLIENTS are served at once; whatever a
 * client does, the tunnel's traffic goes on.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "clock.h"
#include "control.h"
#include "log.h"
#include "report.h"
#include "tunnel.h"

/* Tokens a request has at most: "fdb add MAC@VID=ADDR DEV". */
#define CONTROL_MAX_ARGS 6
/* "cannot accept a client" once a minute at most (EMFILE). */
#define CONTROL_PAUSE_WARN_NS (60 * 1000000000ull)

/* What a request is answered with: its status, and its reply. */
struct control_reply {
	FILE *out;
	int status;		/* CONTROL_OK, CONTROL_EFAIL, CONTROL_EUSAGE */
	char why[160];
};

static void control_fail(struct control_reply *r, int status,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void control_fail(struct control_reply *r, int status,
			 const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/*
 * A socket file left by a gsotun that is gone: nobody answers on it. Only
 * a socket (a file that is something else is never ours to remove), and
 * not one that is bound but not yet listening (ECONNREFUSED too): one
 * whose owner is gone refuses twice, a second apart.
 */
static bool control_stale(const struct control *c)
{
	struct stat st;
	int tries, fd;

	if (lstat(c->sa.sun_path, &st) || !S_ISSOCK(st.st_mode))
		return false;
	/* Non-blocking: a live one with a full backlog says EAGAIN. */
	for (tries = 0; tries < 2; tries++) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    0);
		if (fd < 0)
			return false;
		if (!connect(fd, (const struct sockaddr *)&c->sa, c->sa_len) ||
		    errno != ECONNREFUSED) {
			close(fd);
			return false;
		}
		close(fd);
		if (!tries)
			sleep(1);
	}
	return true;
}

/*
 * A socket file: made mode 0660 by the umask at bind(), then of the
 * group of --user (root's otherwise); lchown(): never through a link.
 */
static int control_own(const struct control *c, const char *user)
{
	struct passwd *pw = user ? getpwnam(user) : NULL;
	int err;

	if (!pw || !lchown(c->sa.sun_path, 0, pw->pw_gid))
		return 0;
	err = -errno;
	log_err_ret(err, "cannot give %s to the group of %s", c->sa.sun_path,
		    user);
	return err;
}

static int control_try_bind(struct control *c)
{
	mode_t old = c->is_path ? umask(0117) : 0;
	int err = bind(c->fd, (const struct sockaddr *)&c->sa, c->sa_len);

	err = err ? -errno : 0;
	if (c->is_path)
		umask(old);
	c->bound = !err;
	return err;
}

static int control_bind(struct control *c, const char *name)
{
	int err = control_try_bind(c);

	if (err == -EADDRINUSE && c->is_path && control_stale(c)) {
		unlink(c->sa.sun_path);
		err = control_try_bind(c);
	}
	if (err == -EADDRINUSE)
		log_err("control socket %s is in use: another gsotun serves "
			"it in this network namespace (give --control NAME)",
			name);
	else if (err)
		log_err_ret(err, "cannot bind the control socket %s", name);
	return err;
}

int control_open(struct control *c, const char *opt, const char *dev,
		 const char *user)
{
	char name[sizeof(c->sa.sun_path) + 1];
	unsigned int i;
	int err;

	c->fd = -1;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		c->clients[i].fd = -1;
	if (opt && !strcmp(opt, "none"))
		return 0;
	c->sa_len = control_name(opt, dev, &c->sa);
	if (!c->sa_len) {
		log_err("control socket name too long: give --control NAME");
		return -ENAMETOOLONG;
	}
	c->is_path = c->sa.sun_path[0] != '\0';
	snprintf(name, sizeof(name), "%s%s", c->is_path ? "" : "@",
		 c->sa.sun_path + !c->is_path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		err = -errno;
		log_err_ret(err, "cannot open the control socket");
		return err;
	}
	err = control_bind(c, name);
	if (!err && c->is_path)
		err = control_own(c, user);
	if (!err && listen(c->fd, CONTROL_CLIENTS)) {
		err = -errno;
		log_err_ret(err, "cannot listen on %s", name);
	}
	if (err) {
		control_close(c);
		return err;
	}
	log_debug("control socket %s", name);
	return 0;
}

static void control_client_close(struct control_client *cl)
{
	struct ev_loop *loop = cl->ctl->loop;

	ev_io_stop(loop, &cl->io);
	ev_timer_stop(loop, &cl->timer);
	close(cl->fd);
	cl->fd = -1;
	free(cl->body);
	cl->body = NULL;
	cl->answered = false;
}

/* Is gid among the groups of the client on fd (SO_PEERGROUPS)? */
static bool control_in_group(int fd, gid_t gid)
{
	gid_t groups[256];
	socklen_t len = sizeof(groups);
	size_t i;

	/* ERANGE: a client in more groups is judged by the others. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		return false;
	for (i = 0; i < len / sizeof(*groups); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * Who may ask: root, the user gsotun runs as, or a member of its group
 * (--user's): the abstract name has no file mode to say it.
 */
static bool control_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	return cr.uid == 0 || cr.uid == geteuid() || cr.gid == getegid() ||
	       control_in_group(fd, getegid());
}

/* The tap named dev (NULL: the main one); NULL when none is. */
static struct tunnel *control_tunnel(struct port *port, const char *dev,
				     struct control_reply *r)
{
	unsigned int i;

	if (!dev)
		return port->tun[0];
	for (i = 0; i < port->n_tun; i++)
		if (!strcmp(port->tun[i]->ifname, dev))
			return port->tun[i];
	control_fail(r, CONTROL_EUSAGE, "no tap %s in this gsotun", dev);
	return NULL;
}

static void control_peer(struct port *port, char **argv, int argc,
			 struct control_reply *r)
{
	struct ipaddr a;
	const char *why;
	int err;

	if (argc != 3 || (strcmp(argv[1], "add") && strcmp(argv[1], "del"))) {
		control_fail(r, CONTROL_EUSAGE, "usage: peer add|del ADDR");
		return;
	}
	why = options_endpoint_parse(argv[2], &a);
	if (why) {
		control_fail(r, CONTROL_EUSAGE, "invalid peer '%s': %s",
			     argv[2], why);
		return;
	}
	if (argv[1][0] == 'a')
		err = fwd_peer_add(port, &a);
	else
		err = fwd_peer_del(port, &a);
	if (err == -EEXIST)
		control_fail(r, CONTROL_EFAIL, "%s is a peer already", argv[2]);
	else if (err == -ENOENT)
		control_fail(r, CONTROL_EFAIL, "%s is not a peer", argv[2]);
	else if (err == -EBUSY)
		control_fail(r, CONTROL_EFAIL, "%s is the last peer",
			     argv[2]);
	else if (err == -EINVAL)
		control_fail(r, CONTROL_EFAIL, "%s is not of the underlay's "
			     "address family", argv[2]);
	else if (err == -EISCONN)
		control_fail(r, CONTROL_EFAIL, "raw GRE with one --remote "
			     "has a connected socket: start it with --peers "
			     "or --allow to add peers");
	else if (err)
		control_fail(r, CONTROL_EFAIL, "%s: %s", argv[2],
			     strerror(-err));
	else
		log_info("control: peer %s %s", argv[2],
			 argv[1][0] == 'a' ? "added" : "removed");
}

static void control_fdb_change(struct port *port, char **argv, int argc,
			       struct control_reply *r)
{
	bool add = !strcmp(argv[1], "add");
	struct config_fdb e = { 0 };
	struct tunnel *t;
	const char *why;
	int err;

	if (argc < 3 || argc > 4) {
		control_fail(r, CONTROL_EUSAGE, "usage: fdb add MAC[@VID]=ADDR "
			     "[TAP], fdb del MAC[@VID] [TAP]");
		return;
	}
	if (add)
		why = options_fdb_parse(argv[2], &e);
	else
		why = options_mac_vlan_parse(argv[2], strlen(argv[2]), e.mac,
					     &e.vlan);
	if (why) {
		control_fail(r, CONTROL_EUSAGE, "invalid entry '%s': %s",
			     argv[2], why);
		return;
	}
	t = control_tunnel(port, argc == 4 ? argv[3] : NULL, r);
	if (!t)
		return;
	err = add ? fwd_fdb_add(t, &e) : fwd_fdb_del(t, e.mac, e.vlan);
	if (err == -ENOENT)
		control_fail(r, CONTROL_EFAIL, add ? "the address is not a "
			     "peer" : "no such entry");
	else if (err == -ENOSPC)
		control_fail(r, CONTROL_EFAIL, "the table holds as many "
			     "static entries as it can");
	else if (err)
		control_fail(r, CONTROL_EFAIL, "%s", strerror(-err));
	else
		log_info("control: %s: fdb entry %s %s", t->ifname, argv[2],
			 add ? "added" : "removed");
}

static void control_fdb(struct port *port, char **argv, int argc,
			struct control_reply *r)
{
	if (argc == 2 && !strcmp(argv[1], "show"))
		report_fdb(r->out, port);
	else if (argc >= 2 && (!strcmp(argv[1], "add") ||
			       !strcmp(argv[1], "del")))
		control_fdb_change(port, argv, argc, r);
	else
		control_fail(r, CONTROL_EUSAGE, "usage: fdb show|add|del");
}

static void control_help(FILE *out)
{
	fputs("show\nstats\nstats json\nmetrics\nversion\n"
	      "peer add ADDR\npeer del ADDR\nfdb show\n"
	      "fdb add MAC[@VID]=ADDR [TAP]\nfdb del MAC[@VID] [TAP]\n", out);
}

/* The request's words run, its reply in r. */
static void control_run(struct port *port, char **argv, int argc,
			struct control_reply *r)
{
	const char *cmd = argv[0];

	if (!strcmp(cmd, "show") && argc == 1)
		report_show(r->out, port);
	else if (!strcmp(cmd, "stats") && argc == 1)
		report_dump(r->out, port);
	else if (!strcmp(cmd, "stats") && argc == 2 &&
		 !strcmp(argv[1], "json"))
		report_json(r->out, port);
	else if (!strcmp(cmd, "metrics") && argc == 1)
		report_metrics(r->out, port);
	else if (!strcmp(cmd, "version") && argc == 1)
		fprintf(r->out, "gsotun %s\n", PACKAGE_VERSION);
	else if (!strcmp(cmd, "help") && argc == 1)
		control_help(r->out);
	else if (!strcmp(cmd, "peer"))
		control_peer(port, argv, argc, r);
	else if (!strcmp(cmd, "fdb"))
		control_fdb(port, argv, argc, r);
	else
		control_fail(r, CONTROL_EUSAGE, "unknown request (try help)");
}

/* Split line into words; false if it holds what no request has. */
static bool control_words(char *line, char **argv, int *argc)
{
	char *save = NULL, *w, *p;

	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return false;
	*argc = 0;
	for (w = strtok_r(line, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (*argc == CONTROL_MAX_ARGS)
			return false;
		argv[(*argc)++] = w;
	}
	return *argc > 0;
}

/*
 * The answer to the request line (NUL-terminated, no newline; NULL: too
 * long): the status line ("ok LEN" or "error CODE WHY") in cl->head,
 * what was asked for, LEN bytes, in cl->body.
 */
static void control_answer(struct control_client *cl, char *line)
{
	struct control_reply r = { .status = CONTROL_OK };
	char *argv[CONTROL_MAX_ARGS];
	int argc, n;

	cl->body = NULL;
	cl->body_len = 0;
	r.out = open_memstream(&cl->body, &cl->body_len);
	if (!r.out)
		control_fail(&r, CONTROL_EFAIL, "out of memory");
	else if (!line)
		control_fail(&r, CONTROL_EUSAGE, "request too long (at most "
			     "%d bytes)", CONTROL_REQ_MAX);
	else if (!control_words(line, argv, &argc))
		control_fail(&r, CONTROL_EUSAGE, "malformed request");
	else
		control_run(cl->ctl->port, argv, argc, &r);
	/* A reply cut short by a lack of memory is no reply. */
	if (r.out && (ferror(r.out) | fclose(r.out)) && !r.status)
		control_fail(&r, CONTROL_EFAIL, "out of memory");
	if (r.status) {
		free(cl->body);
		cl->body = NULL;
		cl->body_len = 0;
		n = snprintf(cl->head, sizeof(cl->head), "error %d %s\n",
			     r.status, r.why);
	} else {
		n = snprintf(cl->head, sizeof(cl->head), "ok %zu\n",
			     cl->body_len);
	}
	cl->head_len = (size_t)n < sizeof(cl->head) ? (size_t)n
						    : sizeof(cl->head) - 1;
	cl->off = 0;
	cl->answered = true;
}

/*
 * Write what the socket takes of the head and body; false once all is
 * written or the client is gone. Each step forward gives the client
 * CONTROL_TIMEOUT more, up to CONTROL_MAX_TIME in all.
 */
static bool control_write(struct control_client *cl)
{
	size_t total = cl->head_len + cl->body_len;
	bool moved = false;

	while (cl->off < total) {
		bool in_head = cl->off < cl->head_len;
		const char *p = in_head ? cl->head + cl->off
					: cl->body + (cl->off - cl->head_len);
		size_t len = in_head ? cl->head_len - cl->off : total - cl->off;
		ssize_t n = send(cl->fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		cl->off += (size_t)n;
		moved = true;
	}
	if (cl->off == total || (errno != EAGAIN && errno != EWOULDBLOCK))
		return false;
	if (moved && ev_now(cl->ctl->loop) - cl->started < CONTROL_MAX_TIME)
		ev_timer_again(cl->ctl->loop, &cl->timer);
	return true;
}

/* A request line is in (NULL: too long): answer, and start writing. */
static void control_respond(struct control_client *cl, char *line)
{
	struct ev_loop *loop = cl->ctl->loop;

	shutdown(cl->fd, SHUT_RD);
	control_answer(cl, line);
	if (!control_write(cl)) {
		control_client_close(cl);
		return;
	}
	ev_io_stop(loop, &cl->io);
	ev_io_set(&cl->io, cl->fd, EV_WRITE);
	ev_io_start(loop, &cl->io);
}

static void control_read(struct control_client *cl)
{
	ssize_t n;
	char *nl;

	n = recv(cl->fd, cl->req + cl->req_len,
		 sizeof(cl->req) - cl->req_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The client is done: a last line without a newline too. */
		if (n == 0 && cl->req_len && cl->req_len < sizeof(cl->req)) {
			cl->req[cl->req_len] = '\0';
			control_respond(cl, cl->req);
		} else {
			control_client_close(cl);
		}
		return;
	}
	cl->req_len += (size_t)n;
	nl = memchr(cl->req, '\n', cl->req_len);
	if (nl) {
		/* A line ended by CR LF too (nc -C, socat crlf). */
		if (nl > cl->req && nl[-1] == '\r')
			nl--;
		*nl = '\0';
		control_respond(cl, cl->req);
	} else if (cl->req_len == sizeof(cl->req)) {
		control_respond(cl, NULL);
	}
}

static void control_client_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct control_client *cl = w->data;

	if (!cl->answered) {
		control_read(cl);
		return;
	}
	if (!control_write(cl))
		control_client_close(cl);
}

/* No step forward for CONTROL_TIMEOUT: the client is given up. */
static void control_timeout_cb(struct ev_loop *loop, ev_timer *w,
			       int revents)
{
	control_client_close(w->data);
}

static struct control_client *control_free_slot(struct control *c)
{
	unsigned int i;

	for (i = 0; i < CONTROL_CLIENTS; i++)
		if (c->clients[i].fd < 0)
			return &c->clients[i];
	return NULL;
}

/* A new client in cl: read its request within CONTROL_TIMEOUT. */
static void control_client_start(struct control *c,
				 struct control_client *cl, int fd)
{
	cl->ctl = c;
	cl->fd = fd;
	cl->req_len = 0;
	cl->body = NULL;
	cl->answered = false;
	cl->started = ev_now(c->loop);
	ev_io_init(&cl->io, control_client_cb, fd, EV_READ);
	ev_timer_init(&cl->timer, control_timeout_cb, CONTROL_TIMEOUT,
		      CONTROL_TIMEOUT);
	cl->io.data = cl->timer.data = cl;
	ev_io_start(c->loop, &cl->io);
	ev_timer_start(c->loop, &cl->timer);
}

/* Turned away with a line it may read, or not: it is never waited for. */
static void control_refuse(int fd, const char *why)
{
	char line[96];
	int n = snprintf(line, sizeof(line), "error %d %s\n", CONTROL_EFAIL,
			 why);

	if (send(fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("control: a client went away");
	close(fd);
}

static void control_resume_cb(struct ev_loop *loop, ev_timer *w,
			      int revents)
{
	struct control *c = w->data;

	ev_io_start(loop, &c->io);
}

/*
 * Out of descriptors (EMFILE) or memory: the pending connection stays,
 * and a level-triggered watcher would spin on it; look again in a second.
 */
static void control_pause(struct control *c)
{
	char more[40] = "";
	unsigned long held;
	int err = errno;

	if (log_limit_take(&c->pause_warn, clock_now_ns(),
			   CONTROL_PAUSE_WARN_NS, &held)) {
		if (held)
			snprintf(more, sizeof(more), " (and %lu more since)",
				 held);
		log_warn("control socket: cannot accept a client: %s%s",
			 strerror(err), more);
	}
	ev_io_stop(c->loop, &c->io);
	ev_timer_set(&c->resume_w, 1.0, 0);
	ev_timer_start(c->loop, &c->resume_w);
}

static void control_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct control *c = w->data;
	struct control_client *cl;
	unsigned int i;
	int fd;

	/* A few a wake-up: a flood of connections cannot hold the loop. */
	for (i = 0; i < CONTROL_CLIENTS; i++) {
		fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == ECONNABORTED || errno == EINTR))
			continue;
		if (fd < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			control_pause(c);
		if (fd < 0)
			return;
		if (!control_allowed(fd)) {
			control_refuse(fd, "permission denied: root, or the "
				       "user or group gsotun runs as");
			continue;
		}
		cl = control_free_slot(c);
		if (!cl)
			control_refuse(fd, "busy: too many clients");
		else
			control_client_start(c, cl, fd);
	}
}

void control_watch(struct control *c, struct ev_loop *loop,
		   struct port *port)
{
	c->loop = loop;
	c->port = port;
	if (c->fd < 0)
		return;
	ev_io_init(&c->io, control_accept_cb, c->fd, EV_READ);
	ev_timer_init(&c->resume_w, control_resume_cb, 1.0, 0);
	c->io.data = c->resume_w.data = c;
	ev_io_start(loop, &c->io);
}

void control_close(struct control *c)
{
	unsigned int i;

	if (c->fd < 0)
		return;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		if (c->clients[i].fd >= 0)
			control_client_close(&c->clients[i]);
	if (c->loop) {
		ev_io_stop(c->loop, &c->io);
		ev_timer_stop(c->loop, &c->resume_w);
	}
	close(c->fd);
	c->fd = -1;
	/* Ours only; after --user the directory may not let us. */
	if (c->is_path && c->bound)
		unlink(c->sa.sun_path);
	c->bound = false;
}
