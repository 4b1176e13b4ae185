// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control: the control socket. A client sends one request line; the loop
 * answers with a status line ("ok", or "error CODE why") and the reply in
 * chunks, then closes. Everything is non-blocking and bounded: a request
 * is at most CONTROL_REQ_MAX bytes, a reply is made CONTROL_CHUNK bytes
 * at a time as the client takes it, a client has CONTROL_TIMEOUT seconds
 * for each step, at most CONTROL_CLIENTS are served at once; whatever a
 * client does, the tunnel's traffic goes on.
 */
#include "config.h"

#include <ctype.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "base/clock.h"
#include "base/log.h"
#include "conf/ctlreq.h"
#include "sys/holder.h"
#include "dev/device.h"
#include "dev/fwd.h"
#include "dev/port.h"
#include "ops/control.h"
#include "ops/report.h"

/* "cannot accept a client" once a minute at most (EMFILE). */
#define CONTROL_PAUSE_WARN_NS (60 * 1000000000ull)
/* Groups of a client looked at (SO_PEERGROUPS); NGROUPS_MAX is 65536. */
#define CONTROL_GROUPS_MAX 65536

/* What a request is answered with: its status, and why. */
struct control_reply {
	int status;		/* CONTROL_OK, CONTROL_EFAIL, CONTROL_EUSAGE */
	char why[160];
	const char *text;	/* what the reply starts with, if anything */
};

/*
 * How a request of a kind (a command of ctlproto.h) is run: its row of
 * control_handlers[].
 */
struct control_handler {
	/* A change made now; a report started (cl->cur); r->text set. */
	void (*run)(struct control_client *cl,
		    const struct control_handler *h, const struct ctlreq *q,
		    struct control_reply *r);
	enum report_kind report;	/* control_report's: what it says */
	enum report_kind json;		/* its JSON form */
	bool tun;		/* control_report's TAP is a tun's */
	const char *text;	/* control_text's answer */
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
 * The listener on c's name, as the kernel recorded it at its listen()
 * and hands to whoever connects (SO_PEERCRED): true with its uid and pid.
 */
static bool control_listener(const struct control *c, uid_t *uid,
			     pid_t *pid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	bool ok;

	if (fd < 0)
		return false;
	ok = !connect(fd, (const struct sockaddr *)&c->sa, c->sa_len) &&
	     !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len);
	close(fd);
	if (ok) {
		*uid = cr.uid;
		*pid = cr.pid;
	}
	return ok;
}

/*
 * A process that holds the socket bound to abstract name but does not
 * listen on it: its inode in /proc/net/unix (of this network namespace),
 * then whose /proc/PID/fd has it (all of them only to root).
 */
static bool control_binder(const char *name, uid_t *uid, pid_t *pid)
{
	return holder_pid(holder_unix_inode(name), pid) &&
	       holder_uid(*pid, uid);
}

/*
 * Who holds c's name, in words: the listener, as connecting to it tells
 * (the kernel's record, no guess); else the owner of a file; else, for
 * an abstract name bound and not listened on, a process that has it.
 */
static void control_holder(const struct control *c, char *buf, size_t len)
{
	struct stat st;
	uid_t uid;
	pid_t pid = 0;

	if (control_listener(c, &uid, &pid) ||
	    (!c->is_path && control_binder(c->sa.sun_path + 1, &uid, &pid))) {
		snprintf(buf, len, "uid %u, pid %ld", (unsigned int)uid,
			 (long)pid);
	} else if (c->is_path && !lstat(c->sa.sun_path, &st)) {
		snprintf(buf, len, "uid %u, a %s", (unsigned int)st.st_uid,
			 S_ISSOCK(st.st_mode) ? "socket" : "file, not a "
			 "socket");
	} else {
		snprintf(buf, len, "whose holder could not be found");
	}
}

/*
 * A socket file: made mode 0660 by the umask at bind() (control_try_bind),
 * then of the group of --user (root's otherwise); lchown(): never through
 * a link, which whoever may write the directory could put there.
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

/*
 * A file's mode comes from the umask at bind(), never from a chmod()
 * after it, which would follow a link put at the name meanwhile. With
 * --admin-group, whose members need not be in --user's group, 0666: the
 * credentials of each client decide then, as for an abstract name.
 */
static int control_try_bind(struct control *c)
{
	mode_t old = c->is_path ? umask(c->has_admin ? 0111 : 0117) : 0;
	int err = bind(c->fd, (const struct sockaddr *)&c->sa, c->sa_len);

	err = err ? -errno : 0;
	if (c->is_path)
		umask(old);
	c->bound = !err;
	return err;
}

/*
 * Bind c's name. -EADDRINUSE when another holds it: anyone may bind an
 * abstract name first, and a squatter must not keep the tunnel from
 * starting, nor win the service manager's restart: a warning, and no
 * control socket.
 */
static int control_bind(struct control *c, const char *name)
{
	char who[64];
	int err = control_try_bind(c);

	if (err == -EADDRINUSE && c->is_path && control_stale(c)) {
		unlink(c->sa.sun_path);
		err = control_try_bind(c);
	}
	if (err == -EADDRINUSE) {
		control_holder(c, who, sizeof(who));
		log_warn("control socket %s is taken (%s): running without "
			 "one, gsotunctl cannot reach this gsotun (a file "
			 "--control in a directory only root and gsotun's "
			 "user may write cannot be taken)", name, who);
	} else if (err) {
		log_err_ret(err, "cannot bind the control socket %s", name);
	}
	return err;
}

int control_admin_gid(const char *group, gid_t *gid)
{
	struct group *gr;
	char *end;
	unsigned long id;

	gr = getgrnam(group);
	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	id = strtoul(group, &end, 10);
	if (!isdigit((unsigned char)*group) || *end || id > (gid_t)-2)
		return -ENOENT;
	*gid = (gid_t)id;
	return 0;
}

/* --admin-group's gid, when given. */
static int control_admin(struct control *c, const char *group)
{
	c->admin_name = group;
	if (!group)
		return 0;
	if (control_admin_gid(group, &c->admin_gid)) {
		log_err("cannot find --admin-group %s", group);
		return -ENOENT;
	}
	c->has_admin = true;
	return 0;
}

int control_open(struct control *c, const struct config *cfg,
		 const char *dev)
{
	char name[sizeof(c->sa.sun_path) + 1];
	unsigned int i;
	int err;

	c->fd = -1;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		c->clients[i].fd = -1;
	if (cfg->control && !strcmp(cfg->control, "none"))
		return 0;
	err = control_admin(c, cfg->admin_group);
	if (err)
		return err;
	c->sa_len = control_name(cfg->control, dev, &c->sa);
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
		err = control_own(c, cfg->user);
	if (!err && listen(c->fd, CONTROL_CLIENTS)) {
		err = -errno;
		log_err_ret(err, "cannot listen on %s", name);
	}
	if (err) {
		control_close(c);
		return err == -EADDRINUSE ? 0 : err;
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

/* The groups of the client on fd (SO_PEERGROUPS); NULL if none. */
static gid_t *control_groups(int fd, size_t *n)
{
	socklen_t len = 64 * sizeof(gid_t);
	gid_t *g = NULL, *more;

	for (;;) {
		more = realloc(g, len);
		if (!more)
			break;
		g = more;
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
			*n = len / sizeof(gid_t);
			return g;
		}
		/* ERANGE says how much room it needs. */
		if (errno != ERANGE ||
		    len > CONTROL_GROUPS_MAX * sizeof(gid_t))
			break;
	}
	free(g);
	*n = 0;
	return NULL;
}

static bool control_has_gid(const struct ucred *cr, const gid_t *g,
			    size_t n, gid_t gid)
{
	size_t i;

	if (cr->gid == gid)
		return true;
	for (i = 0; i < n; i++)
		if (g[i] == gid)
			return true;
	return false;
}

/*
 * Who may ask, by the credentials the kernel gives for the client
 * (SO_PEERCRED, SO_PEERGROUPS: the abstract name has no file mode to say
 * it): root, the user gsotun runs as or a member of its group (--user's)
 * may read; root and members of --admin-group may change too.
 *
 * Root is uid 0 as gsotun's own user namespace sees it (the kernel maps
 * the uid: root of a namespace of one's own is not root here). The
 * client's capabilities are not looked at: /proc/PID/status of
 * SO_PEERCRED's pid may by then be another process's, and its CapEff
 * counts in the client's user namespace, where anyone may have
 * CAP_NET_ADMIN (unshare -r).
 */
static bool control_who(const struct control *c, int fd, uid_t *uid,
			bool *may_change)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	gid_t *groups;
	size_t n;
	bool reads;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	groups = control_groups(fd, &n);
	*uid = cr.uid;
	*may_change = cr.uid == 0 ||
		      (c->has_admin &&
		       control_has_gid(&cr, groups, n, c->admin_gid));
	reads = *may_change || cr.uid == geteuid() ||
		control_has_gid(&cr, groups, n, getegid());
	free(groups);
	return reads;
}

/* The tap named dev (NULL: the main one); NULL when none is. */
static struct device *control_device(struct port *port, const char *dev,
				     struct control_reply *r)
{
	unsigned int i;

	if (!dev)
		return port->dev[0];
	for (i = 0; i < port->n_dev; i++)
		if (!strcmp(port->dev[i]->s.ifname, dev))
			return port->dev[i];
	control_fail(r, CONTROL_EUSAGE, "no tap %s in this gsotun", dev);
	return NULL;
}

static void control_peer(struct control_client *cl,
			 const struct control_handler *h,
			 const struct ctlreq *q, struct control_reply *r)
{
	bool add = q->kind == CTLREQ_PEER_ADD;
	struct port *port = cl->ctl->port;
	int err;

	err = add ? port_peer_add(port, &q->peer)
		  : port_peer_del(port, &q->peer);
	if (err == -EEXIST)
		control_fail(r, CONTROL_EFAIL, "%s is a peer already", q->arg);
	else if (err == -ENOENT)
		control_fail(r, CONTROL_EFAIL, "%s is not a peer", q->arg);
	else if (err == -EPERM)
		control_fail(r, CONTROL_EFAIL, "%s is a VTEP of the EVPN "
			     "fabric: it goes when the fabric withdraws it",
			     q->arg);
	else if (err == -EINVAL)
		control_fail(r, CONTROL_EFAIL, "%s is not of the underlay's "
			     "address family", q->arg);
	else if (err)
		control_fail(r, CONTROL_EFAIL, "%s: %s", q->arg,
			     strerror(-err));
	else
		log_info("control: peer %s %s%s", q->arg,
			 add ? "added" : "removed",
			 port->peers.n ? "" : ": no peer left, what the "
					      "device sends is dropped");
}

/* a as text in buf; buf. */
static const char *control_addr(const struct ipaddr *a, char *buf,
				size_t len)
{
	if (!inet_ntop(a->family, &a->addr, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

static void control_fdb(struct control_client *cl,
			const struct control_handler *h,
			const struct ctlreq *q, struct control_reply *r)
{
	bool add = q->kind == CTLREQ_FDB_ADD;
	struct device *dev = control_device(cl->ctl->port, q->tap, r);
	char addr[INET6_ADDRSTRLEN];
	int err;

	if (!dev)
		return;
	if (dev->s.encap.l3) {
		control_fail(r, CONTROL_EFAIL, "%s is a tun (--mode tun): no "
			     "MACs, no forwarding entries", dev->s.ifname);
		return;
	}
	err = add ? fwd_fdb_add(dev, &q->fdb)
		  : fwd_fdb_del(dev, q->fdb.mac, q->fdb.vlan);
	if (err == -ENOENT && add)
		control_fail(r, CONTROL_EFAIL, "%s: %s is not a peer (peer "
			     "add it first)", q->arg,
			     control_addr(&q->fdb.peer, addr, sizeof(addr)));
	else if (err == -ENOENT)
		control_fail(r, CONTROL_EFAIL, "no such entry");
	else if (err == -EPERM)
		control_fail(r, CONTROL_EFAIL, "%s is the EVPN fabric's: it "
			     "goes when the fabric withdraws it", q->arg);
	else if (err == -ENOSPC)
		control_fail(r, CONTROL_EFAIL, "the table holds as many "
			     "static entries as it can");
	else if (err)
		control_fail(r, CONTROL_EFAIL, "%s", strerror(-err));
	else
		log_info("control: %s: fdb entry %s %s", dev->s.ifname, q->arg,
			 add ? "added" : "removed");
}

/*
 * The tun named dev (NULL: the main one) for a route request; NULL when
 * there is none, or it is a tap (no route table: its frames go by MAC).
 */
static struct device *control_tun(struct port *port, const char *dev,
				  struct control_reply *r)
{
	struct device *d = control_device(port, dev, r);

	if (d && !d->s.encap.l3) {
		control_fail(r, CONTROL_EFAIL, "%s is a tap (no --mode tun): "
			     "no routes", d->s.ifname);
		return NULL;
	}
	return d;
}

static void control_route(struct control_client *cl,
			  const struct control_handler *h,
			  const struct ctlreq *q, struct control_reply *r)
{
	bool add = q->kind == CTLREQ_ROUTE_ADD;
	struct device *dev = control_tun(cl->ctl->port, q->tap, r);
	char addr[INET6_ADDRSTRLEN];
	int err;

	if (!dev)
		return;
	err = add ? fwd_route_add(dev, &q->route)
		  : fwd_route_del(dev, &q->route.prefix);
	if (err == -ENOENT && add)
		control_fail(r, CONTROL_EFAIL, "%s: %s is not a peer (peer "
			     "add it first)", q->arg,
			     control_addr(&q->route.peer, addr, sizeof(addr)));
	else if (err == -ENOENT)
		control_fail(r, CONTROL_EFAIL, "no such route");
	else if (err == -ENOSPC)
		control_fail(r, CONTROL_EFAIL, "the table holds as many "
			     "routes as it can");
	else if (err == -EEXIST && add)
		control_fail(r, CONTROL_EFAIL, "%s: the host has a route to "
			     "that prefix already: not replaced", q->arg);
	else if (err == -ELOOP)
		control_fail(r, CONTROL_EFAIL, "%s: the prefix holds a peer, "
			     "whose tunnel packets it would route into the "
			     "tun: route the peer more specifically first",
			     q->arg);
	else if (err)
		control_fail(r, CONTROL_EFAIL, "%s: %s", q->arg,
			     strerror(-err));
	else
		log_info("control: %s: route %s %s", dev->s.ifname, q->arg,
			 add ? "added" : "removed");
}

/* Start the report h says, of q's TAP only if it names one. */
static void control_report(struct control_client *cl,
			   const struct control_handler *h,
			   const struct ctlreq *q, struct control_reply *r)
{
	const struct device *dev = NULL;

	if (q->tap) {
		dev = h->tun ? control_tun(cl->ctl->port, q->tap, r)
			     : control_device(cl->ctl->port, q->tap, r);
		if (!dev)
			return;
	}
	report_start(&cl->cur, q->json ? h->json : h->report);
	if (dev)
		report_only(&cl->cur, dev->idx);
	cl->more = true;
}

/* The answer h has. */
static void control_text(struct control_client *cl,
			 const struct control_handler *h,
			 const struct ctlreq *q, struct control_reply *r)
{
	r->text = h->text;
}

/* help: every request, as ctlreq.c parses them (ctlproto.h's table). */
static void control_help_text(struct control_client *cl,
			      const struct control_handler *h,
			      const struct ctlreq *q, struct control_reply *r)
{
	static char help[CONTROL_HELP_MAX];
	int n;

	if (!help[0]) {
		n = control_help(help, sizeof(help), false);
		BUG_ON(n < 0 || (size_t)n >= sizeof(help));
	}
	r->text = help;
}

/*
 * Each command's handler, by kind: every command of ctlproto.h's table
 * but gsotunctl's own (CONTROL_LOCAL) has one (control_watch() checks).
 */
static const struct control_handler control_handlers[CTLREQ_N] = {
	[CTLREQ_SHOW] = { .run = control_report, .report = REPORT_SHOW,
			  .json = REPORT_JSON },
	[CTLREQ_STATS] = { .run = control_report, .report = REPORT_DUMP,
			   .json = REPORT_JSON },
	[CTLREQ_METRICS] = { .run = control_report,
			     .report = REPORT_METRICS },
	[CTLREQ_VERSION] = { .run = control_text,
			     .text = "gsotun " PACKAGE_VERSION "\n" },
	[CTLREQ_HELP] = { .run = control_help_text },
	[CTLREQ_TAPS] = { .run = control_report, .report = REPORT_TAPS },
	[CTLREQ_PEER_ADD] = { .run = control_peer },
	[CTLREQ_PEER_DEL] = { .run = control_peer },
	[CTLREQ_PEER_LIST] = { .run = control_report, .report = REPORT_PEERS,
			       .json = REPORT_PEERS_JSON },
	[CTLREQ_FDB_SHOW] = { .run = control_report, .report = REPORT_FDB,
			      .json = REPORT_FDB_JSON },
	[CTLREQ_FDB_ADD] = { .run = control_fdb },
	[CTLREQ_FDB_DEL] = { .run = control_fdb },
	[CTLREQ_ROUTE_SHOW] = { .run = control_report,
				.report = REPORT_ROUTES,
				.json = REPORT_ROUTES_JSON, .tun = true },
	[CTLREQ_ROUTE_ADD] = { .run = control_route },
	[CTLREQ_ROUTE_DEL] = { .run = control_route },
	[CTLREQ_CONFIG] = { .run = control_report, .report = REPORT_CONFIG },
};

/*
 * Run request q of client cl, if it may: a change is made now; a report
 * is started (cl->cur), to be made as it is sent.
 */
static void control_run(struct control_client *cl, const struct ctlreq *q,
			struct control_reply *r)
{
	const struct control *c = cl->ctl;

	if (ctlreq_changes(q) && !cl->may_change) {
		if (c->has_admin)
			control_fail(r, CONTROL_EFAIL, "permission denied: "
				     "only root and group %s change peers and "
				     "forwarding", c->admin_name);
		else
			control_fail(r, CONTROL_EFAIL, "permission denied: "
				     "only root changes peers and forwarding "
				     "(no --admin-group)");
		return;
	}
	if (ctlreq_changes(q))
		port_stop(c->port);
	control_handlers[q->kind].run(cl, &control_handlers[q->kind], q, r);
}

/*
 * The next chunk of cl's reply into cl->body, after text (the first's
 * only), as the protocol has it (ctlproto.h): its size line in cl->head
 * after status ("ok\n" for the first), "0\n" after the last. About
 * CONTROL_CHUNK bytes: the rest waits until this is sent. false: out of
 * memory (the client is dropped, its reply cut short).
 */
static bool control_fill(struct control_client *cl, const char *status,
			 const char *text)
{
	FILE *out;
	int n;

	free(cl->body);
	cl->body = NULL;
	cl->body_len = 0;
	out = open_memstream(&cl->body, &cl->body_len);
	if (!out)
		return false;
	if (text)
		fputs(text, out);
	if (cl->more && report_reads_lanes(cl->cur.kind))
		port_stop(cl->ctl->port);
	while (cl->more && ftell(out) < CONTROL_CHUNK)
		cl->more = report_step(out, cl->ctl->port, &cl->cur);
	if (ferror(out) | fclose(out))
		return false;
	n = snprintf(cl->head, sizeof(cl->head), "%s%zu\n", status,
		     cl->body_len);
	cl->head_len = (size_t)n;
	cl->last = !cl->more;
	/* An empty chunk is the end already. */
	cl->tail = cl->last && cl->body_len ? "0\n" : "";
	cl->off = 0;
	return true;
}

/*
 * The answer to the request line (ctlreq_line()'s; NULL: too long):
 * the first chunk, or "error CODE WHY" and nothing more. false: out of
 * memory.
 */
static bool control_answer(struct control_client *cl, char *line,
			   size_t len)
{
	struct control_reply r = { .status = CONTROL_OK };
	struct ctlreq q;
	int n;

	cl->more = false;
	cl->answered = true;
	if (!line)
		control_fail(&r, CONTROL_EUSAGE, "request too long (at most "
			     "%d bytes)", CONTROL_REQ_MAX);
	else if ((r.status = ctlreq_parse(line, len, &q, r.why,
					  sizeof(r.why))) == CONTROL_OK)
		control_run(cl, &q, &r);
	if (!r.status)
		return control_fill(cl, "ok\n", r.text);
	n = snprintf(cl->head, sizeof(cl->head), "error %d %s\n", r.status,
		     r.why);
	cl->head_len = (size_t)n < sizeof(cl->head) ? (size_t)n
						    : sizeof(cl->head) - 1;
	cl->body_len = 0;
	cl->tail = "";
	cl->off = 0;
	cl->last = true;
	return true;
}

/* What is left of the chunk to write, as iovecs; how many. */
static int control_iov(const struct control_client *cl, struct iovec *iov)
{
	const char *part[3] = { cl->head, cl->body, cl->tail };
	size_t len[3] = { cl->head_len, cl->body_len, strlen(cl->tail) };
	size_t skip = cl->off;
	int i, n = 0;

	for (i = 0; i < 3; i++) {
		if (skip >= len[i]) {
			skip -= len[i];
			continue;
		}
		iov[n].iov_base = (char *)part[i] + skip;
		iov[n++].iov_len = len[i] - skip;
		skip = 0;
	}
	return n;
}

/*
 * Write what the socket takes of the chunk; false when the client is
 * gone. Each step forward gives the client CONTROL_TIMEOUT more, up to
 * CONTROL_MAX_TIME in all.
 */
static bool control_write(struct control_client *cl)
{
	struct iovec iov[3];
	struct msghdr msg = { .msg_iov = iov };
	bool moved = false;
	ev_tstamp left;
	ssize_t n;

	while ((msg.msg_iovlen = control_iov(cl, iov))) {
		n = sendmsg(cl->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		cl->off += (size_t)n;
		moved = true;
	}
	if (msg.msg_iovlen && errno != EAGAIN && errno != EWOULDBLOCK)
		return false;
	left = CONTROL_MAX_TIME - (ev_now(cl->ctl->loop) - cl->started);
	if (moved && left > 0) {
		cl->timer.repeat = left < CONTROL_TIMEOUT ? left
							  : CONTROL_TIMEOUT;
		ev_timer_again(cl->ctl->loop, &cl->timer);
	}
	return true;
}

static bool control_sent(const struct control_client *cl)
{
	struct iovec iov[3];

	return !control_iov(cl, iov);
}

/*
 * A wake-up of a client being answered: the next chunk once the last is
 * sent (one chunk a wake-up: the loop's other work goes between), and
 * what the socket takes of it; the client is let go after the last.
 */
static void control_send(struct control_client *cl)
{
	if (control_sent(cl) && !control_fill(cl, "", NULL))
		goto drop;
	if (!control_write(cl) || (control_sent(cl) && cl->last))
		goto drop;
	return;
drop:
	control_client_close(cl);
}

/* A request line is in (NULL: too long): answer, and start writing. */
static void control_respond(struct control_client *cl, char *line,
			    size_t len)
{
	struct ev_loop *loop = cl->ctl->loop;

	shutdown(cl->fd, SHUT_RD);
	if (!control_answer(cl, line, len)) {
		control_client_close(cl);
		return;
	}
	ev_io_stop(loop, &cl->io);
	ev_io_set(&cl->io, cl->fd, EV_WRITE);
	ev_io_start(loop, &cl->io);
	control_send(cl);
}

static void control_read(struct control_client *cl)
{
	size_t len = 0;
	ssize_t n;

	n = recv(cl->fd, cl->req + cl->req_len,
		 sizeof(cl->req) - cl->req_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		control_client_close(cl);
		return;
	}
	cl->req_len += (size_t)n;
	switch (ctlreq_line(cl->req, cl->req_len, n == 0, &len)) {
	case CTLREQ_LINE_MORE:
		break;
	case CTLREQ_LINE_DONE:
		control_respond(cl, cl->req, len);
		break;
	case CTLREQ_LINE_TOO_LONG:
		control_respond(cl, NULL, 0);
		break;
	case CTLREQ_LINE_NONE:
		control_client_close(cl);
		break;
	}
}

static void control_client_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct control_client *cl = w->data;

	if (!cl->answered)
		control_read(cl);
	else
		control_send(cl);
}

/* No step forward for CONTROL_TIMEOUT: the client is given up. */
static void control_timeout_cb(struct ev_loop *loop, ev_timer *w,
			       int revents)
{
	control_client_close(w->data);
}

/*
 * A slot for a client of uid, or why not: CONTROL_PER_UID a user (root
 * is not counted), and the last slot is root's, so that root can always
 * ask whatever others hold.
 */
static struct control_client *control_slot(struct control *c, uid_t uid,
					   const char **why)
{
	struct control_client *free_slot = NULL;
	unsigned int i, used = 0, of_uid = 0;

	for (i = 0; i < CONTROL_CLIENTS; i++) {
		const struct control_client *cl = &c->clients[i];

		if (cl->fd < 0) {
			free_slot = free_slot ? free_slot : &c->clients[i];
			continue;
		}
		used++;
		of_uid += cl->uid == uid;
	}
	*why = "busy: too many clients";
	if (uid && used >= CONTROL_CLIENTS - 1)
		return NULL;
	if (uid && of_uid >= CONTROL_PER_UID) {
		*why = "busy: too many clients of this user";
		return NULL;
	}
	return free_slot;
}

/* A new client in cl: read its request within CONTROL_TIMEOUT. */
static void control_client_start(struct control *c,
				 struct control_client *cl, int fd, uid_t uid,
				 bool may_change)
{
	cl->ctl = c;
	cl->fd = fd;
	cl->uid = uid;
	cl->may_change = may_change;
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
	char line[128];
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
	const char *why;
	bool may_change;
	unsigned int i;
	uid_t uid;
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
		if (!control_who(c, fd, &uid, &may_change)) {
			control_refuse(fd, "permission denied: root, or the "
				       "user or group gsotun runs as");
			continue;
		}
		cl = control_slot(c, uid, &why);
		if (!cl)
			control_refuse(fd, why);
		else
			control_client_start(c, cl, fd, uid, may_change);
	}
}

void control_watch(struct control *c, struct ev_loop *loop,
		   struct port *port)
{
	size_t i;

	/* A command of the table that gsotun cannot run is a bug. */
	for (i = 0; i < CTLREQ_N; i++)
		BUG_ON(control_commands[i].who != CONTROL_LOCAL &&
		       !control_handlers[i].run);
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

unsigned int control_pending(const struct control *c)
{
	unsigned int i, n = 0;

	/* ev_is_pending() is the watcher's place among them, or 0. */
	n += !!ev_is_pending(&c->io) + !!ev_is_pending(&c->resume_w);
	for (i = 0; i < CONTROL_CLIENTS; i++) {
		const struct control_client *cl = &c->clients[i];

		n += !!ev_is_pending(&cl->io) + !!ev_is_pending(&cl->timer);
	}
	return n;
}
