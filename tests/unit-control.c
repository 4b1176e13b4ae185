// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the control socket (control.c): gsotun's loop and its
 * clients in one process, in a network namespace of the test's own (the
 * abstract name is per namespace), on a port built without a tap;
 * clients of other users connect from children that hand their sockets
 * over (SO_PEERCRED is taken at connect()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ev.h>
#include "sys/link.h"
#include "ops/control.h"
#include "rig.h"
#include "tap.h"

static const char *const port_argv[] = {
	"gsotun", "--dev", "ut-c0", "--vni", "2=ut-c1",
	"--remote", "127.0.0.2", "--remote", "127.0.0.3",
	"--remote", "127.0.0.4", "--mtu", "1400", "--learning", NULL,
};

/* A port of two tuns, with a route each (route add|del|show). */
static const char *const tun_argv[] = {
	"gsotun", "--dev", "ut-t0", "--mode", "tun", "--encap", "gre",
	"--key", "1", "--key", "2=ut-t1",
	"--remote", "127.0.0.2", "--remote", "127.0.0.3",
	"--route", "10.1.0.0/16=127.0.0.2",
	"--route", "ut-t1=fd00:1::/64=127.0.0.3", NULL,
};

/* Users the children take: none of them is gsotun's (root). */
#define NOBODY 65534
#define ADMIN_GID 4242
#define ADMIN_GROUP "4242"

static struct ev_loop *loop;
static struct rig rig, tun;
static struct control ctl, admin, tctl;
/* Children may take another uid: root of the first user namespace. */
static bool others;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A user and network namespace of our own (or a network one, as root). */
static const char *isolate(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int fd;

	others = uid == 0;
	if (uid == 0) {
		if (unshare(CLONE_NEWNET))
			return "cannot unshare the network namespace";
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			return "cannot unshare user and network namespaces";
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd < 0 || write(fd, "deny", 4) != 4)
			return "cannot write setgroups";
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			return "cannot write uid_map";
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			return "cannot write gid_map";
		close(fd);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		return "no lo";
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		return "cannot bring lo up";
	close(fd);
	return NULL;
}

/* Is a socket of name ("@gsotun/x" or a path) in this namespace's list? */
static bool unix_listed(const char *name)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512];
	bool found = false;
	size_t n = strlen(name);

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strrchr(line, ' ');

		if (p && !strncmp(p + 1, name, n) && p[1 + n] == '\n')
			found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static void break_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	ev_break(l, EVBREAK_ONE);
}

/* The loop's work for secs seconds (0: what is ready now). */
static void pump(double secs)
{
	ev_timer t;

	ev_timer_init(&t, break_cb, secs, 0);
	ev_timer_start(loop, &t);
	ev_run(loop, secs > 0 ? 0 : EVRUN_NOWAIT);
	ev_timer_stop(loop, &t);
}

static int client(const struct control *c)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)&c->sa, c->sa_len)) {
		printf("Bail out! cannot connect: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

/* What came back on a client's socket. */
struct reply {
	char *buf;
	size_t len;
	bool closed;		/* gsotun closed it */
	/* What it says (reply_parse()): */
	char status[CONTROL_REQ_MAX];
	char *body;		/* the chunks' bytes, NUL-terminated */
	size_t body_len;
	unsigned int chunks;
	size_t largest;
	bool whole;		/* its last chunk came (size 0) */
};

static void reply_parse(struct reply *r)
{
	const char *p = r->buf, *end = r->buf + r->len, *nl;
	FILE *out;

	r->body = NULL;
	r->body_len = 0;
	r->chunks = 0;
	r->largest = 0;
	r->whole = false;
	nl = memchr(p, '\n', (size_t)(end - p));
	snprintf(r->status, sizeof(r->status), "%.*s",
		 nl ? (int)(nl - p) : (int)(end - p), p);
	out = open_memstream(&r->body, &r->body_len);
	while (nl && !strcmp(r->status, "ok")) {
		char *e;
		unsigned long n;

		p = nl + 1;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		n = strtoul(p, &e, 10);
		if (e != nl || (size_t)(end - nl - 1) < n)
			break;
		if (!n) {
			r->whole = nl + 1 == end;
			break;
		}
		fwrite(nl + 1, 1, n, out);
		r->chunks++;
		if (n > r->largest)
			r->largest = n;
		nl += n;
	}
	fclose(out);
}

static void reply_free(struct reply *r)
{
	free(r->buf);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/* A client reading in the loop, as gsotunctl reads. */
struct reading {
	ev_io io;
	struct reply *r;
};

static void reading_cb(struct ev_loop *l, ev_io *w, int revents)
{
	struct reply *r = ((struct reading *)w)->r;
	char buf[65536];
	ssize_t n = recv(w->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n > 0) {
		r->buf = realloc(r->buf, r->len + (size_t)n + 1);
		memcpy(r->buf + r->len, buf, (size_t)n);
		r->len += (size_t)n;
		r->buf[r->len] = '\0';
		return;
	}
	/* Unread bytes of ours at its close: ECONNRESET after the reply. */
	if (n == 0 || errno == ECONNRESET) {
		r->closed = true;
		ev_break(l, EVBREAK_ONE);
	}
}

/*
 * What fd has until gsotun closes it (or secs pass), the loop run
 * meanwhile.
 */
static void reply_read(int fd, struct reply *r, double secs)
{
	struct reading rd = { .r = r };
	ev_timer t;

	memset(r, 0, sizeof(*r));
	ev_io_init(&rd.io, reading_cb, fd, EV_READ);
	ev_timer_init(&t, break_cb, secs, 0);
	ev_io_start(loop, &rd.io);
	ev_timer_start(loop, &t);
	ev_run(loop, 0);
	ev_io_stop(loop, &rd.io);
	ev_timer_stop(loop, &t);
	if (!r->buf)
		r->buf = strdup("");
	reply_parse(r);
}

static void send_req(int fd, const char *req)
{
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		printf("Bail out! cannot send: %s\n", strerror(errno));
		exit(1);
	}
}

/* req on a client of c's, and the whole reply. */
static void ask_on(const struct control *c, int fd, const char *req,
		   struct reply *r)
{
	if (fd < 0)
		fd = client(c);
	send_req(fd, req);
	reply_read(fd, r, 3);
	close(fd);
}

static void ask(const char *req, struct reply *r)
{
	ask_on(&ctl, -1, req, r);
}

/*
 * The status line of req's reply on c is want, and nothing follows an
 * error.
 */
static void status_on(const struct control *c, const char *req,
		      const char *want, const char *what)
{
	struct reply r;

	ask_on(c, -1, req, &r);
	if (!ok(r.closed && !strcmp(r.status, want) &&
			(!strcmp(want, "ok") ? r.whole :
			 r.len == strlen(want) + 1),
		"%s", what))
		printf("#   asked %.60s, got: %.200s\n", req, r.buf);
	reply_free(&r);
}

static void status_is(const char *req, const char *want, const char *what)
{
	status_on(&ctl, req, want, what);
}

/* The clients served now, of uid (-1: of anyone). */
static unsigned int served(long uid)
{
	unsigned int i, n = 0;

	for (i = 0; i < CONTROL_CLIENTS; i++)
		n += ctl.clients[i].fd >= 0 &&
		     (uid < 0 || ctl.clients[i].uid == (uid_t)uid);
	return n;
}

/*
 * n clients of c connected by a child as uid, gid and groups, their
 * sockets handed back into fds. false when the child could not.
 */
static bool connect_as(const struct control *c, uid_t uid, gid_t gid,
		       const gid_t *groups, size_t n_groups, int *fds,
		       unsigned int n)
{
	char data = 0, cbuf[CMSG_SPACE(sizeof(int) * 32)];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = CMSG_SPACE(sizeof(int) * n),
	};
	struct cmsghdr *cm;
	int sv[2], status;
	unsigned int i;
	pid_t pid;

	memset(cbuf, 0, sizeof(cbuf));
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return false;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		if (setgroups(n_groups, groups) || setresgid(gid, gid, gid) ||
		    setresuid(uid, uid, uid))
			_exit(1);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		for (i = 0; i < n; i++) {
			int fd = socket(AF_UNIX, SOCK_STREAM, 0);
			const struct sockaddr *sa = (const void *)&c->sa;

			if (fd < 0 || connect(fd, sa, c->sa_len))
				_exit(1);
			memcpy(CMSG_DATA(cm) + i * sizeof(int), &fd,
			       sizeof(int));
		}
		_exit(sendmsg(sv[1], &msg, 0) == 1 ? 0 : 1);
	}
	close(sv[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) ||
	    recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC) != 1) {
		close(sv[0]);
		return false;
	}
	close(sv[0]);
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_len != CMSG_LEN(sizeof(int) * n))
		return false;
	memcpy(fds, CMSG_DATA(cm), sizeof(int) * n);
	return true;
}

/* One client as uid, gid, groups; -1 when it cannot be had. */
static int client_as(const struct control *c, uid_t uid, gid_t gid,
		     const gid_t *groups, size_t n_groups)
{
	int fd;

	return connect_as(c, uid, gid, groups, n_groups, &fd, 1) ? fd : -1;
}

static struct device *dev(unsigned int i)
{
	return rig.port.dev[i];
}

static int lookup(unsigned int d, uint8_t last)
{
	const uint8_t mac[6] = { 2, 0, 0, 0, 0, last };

	return fdb_lookup_static(&dev(d)->s.fdb, mac, 0);
}

/* How many times needle is in text. */
static unsigned int count(const char *text, const char *needle)
{
	unsigned int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

/* The peer tun d routes IPv4 address s to, or -1. */
static int tun_route(unsigned int d, const char *s)
{
	struct ipaddr a;

	if (optvalue_ip_parse(s, &a))
		abort();
	return route_lookup(&tun.port.dev[d]->s.routes, a.family,
			    (const uint8_t *)&a.addr);
}

/* route show and its JSON, of both tuns and of one. */
static void test_route_show(void)
{
	/* --route without DEV= is every tun's. */
	static const char l0[] = "10.1.0.0/16 dst 127.0.0.2 dev ut-t0\n",
			  l1[] = "10.1.0.0/16 dst 127.0.0.2 dev ut-t1\n",
			  l2[] = "fd00:1::/64 dst 127.0.0.3 dev ut-t1\n";
	struct reply r;

	ask_on(&tctl, -1, "route show\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole && !strncmp(r.body, l0,
							   strlen(l0)) &&
		   r.body_len == strlen(l0) + strlen(l1) + strlen(l2) &&
		   strstr(r.body, l1) && strstr(r.body, l2),
	   "route show: every tun's routes, a line each, the main's first");
	reply_free(&r);
	ask_on(&tctl, -1, "route show ut-t1\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole &&
		   r.body_len == strlen(l1) + strlen(l2) &&
		   strstr(r.body, l1) && strstr(r.body, l2),
	   "route show TAP: that tun's alone");
	reply_free(&r);
	ask_on(&tctl, -1, "route show json\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole &&
		   !strncmp(r.body, "{\"routes\":[{", 12) &&
		   count(r.body, "\"prefix\":") == 3 &&
		   strstr(r.body, "{\"prefix\":\"10.1.0.0/16\",\"dst\":"
			  "\"127.0.0.2\",\"dev\":\"ut-t0\"}") &&
		   strstr(r.body, "{\"prefix\":\"fd00:1::/64\",\"dst\":"
			  "\"127.0.0.3\",\"dev\":\"ut-t1\"}") &&
		   strstr(r.body, "},{") && strstr(r.body, "}]}\n"),
	   "route show json: an object a route");
	reply_free(&r);
	status_on(&tctl, "route show json ut-t1 more\n",
		  "error 64 usage: route show [json] [TAP]",
		  "route show with a word too many: error 64");
}

/* route add|del on the tun rig, and what it refuses. */
static void test_route_changes(void)
{
	int p2 = rig_peer(&tun, "127.0.0.2"), p3 = rig_peer(&tun, "127.0.0.3");

	status_on(&tctl, "route add 10.2.0.0/16=127.0.0.3\n", "ok",
		  "route add: ok");
	ok(tun_route(0, "10.2.3.4") == p3 && tun_route(1, "10.2.3.4") < 0 &&
		   tun_route(0, "10.1.3.4") == p2,
	   "route add: in the main tun's table, to the peer");
	status_on(&tctl, "route add 10.2.0.0/16=127.0.0.2 ut-t1\n", "ok",
		  "route add ... TAP: ok");
	ok(tun_route(1, "10.2.3.4") == p2 && tun_route(0, "10.2.3.4") == p3,
	   "route add ... TAP: in that tun's table only");
	status_on(&tctl, "route add 10.2.0.0/16=127.0.0.2\n", "ok",
		  "route add of a prefix routed: ok");
	ok(tun_route(0, "10.2.3.4") == p2 &&
		   route_count(&tun.port.dev[0]->s.routes) == 2,
	   "... its route goes to the new peer, no route more");
	status_on(&tctl, "route add 10.3.0.0/16=127.0.0.99\n",
		  "error 1 10.3.0.0/16=127.0.0.99: 127.0.0.99 is not a peer "
		  "(peer add it first)", "route add to no peer: error 1");
	status_on(&tctl, "route add 10.3.0.1/16=127.0.0.2\n",
		  "error 64 invalid route '10.3.0.1/16=127.0.0.2': host bits "
		  "set after the prefix: the prefix is 10.3.0.0/16 (ip route "
		  "refuses host bits too)",
		  "route add with host bits: error 64");
	status_on(&tctl, "route add 10.3.0.0/16\n", "error 64 invalid route "
		  "'10.3.0.0/16': missing =ADDR",
		  "route add without =ADDR: error 64");
	status_on(&tctl, "route add 10.3.0.0=127.0.0.2\n", "error 64 invalid "
		  "route '10.3.0.0=127.0.0.2': missing /PREFIX",
		  "route add without /LEN: error 64");
	status_on(&tctl, "route add 10.3.0.0/33=127.0.0.2\n", "error 64 "
		  "invalid route '10.3.0.0/33=127.0.0.2': IPv4 prefix must be "
		  "0..32", "route add of /33: error 64");
	status_on(&tctl, "route add 10.3.0.0/16=nohost\n", "error 64 invalid "
		  "route '10.3.0.0/16=nohost': not an IPv4 or IPv6 address "
		  "after '='", "route add to no address: error 64");
	status_on(&tctl, "route add 10.3.0.0/16=127.0.0.2 nosuch\n",
		  "error 64 no tap nosuch in this gsotun",
		  "route add to a tun it has not: error 64");
	status_on(&tctl, "route add 10.3.0.0/16=127.0.0.2 ut-t0 more\n",
		  "error 64 usage: route add PREFIX=ADDR [TAP], route del "
		  "PREFIX [TAP]", "route add with a word too many: error 64");
	status_on(&tctl, "route\n", "error 64 usage: route show|add|del",
		  "route alone: error 64");
	status_on(&tctl, "route flush 10.0.0.0/8\n",
		  "error 64 usage: route show|add|del",
		  "route of no such verb: error 64");
	ok(route_count(&tun.port.dev[0]->s.routes) == 2 &&
		   tun_route(0, "10.3.0.1") < 0,
	   "the refused ones changed nothing");

	status_on(&tctl, "route del 10.2.0.0/16\n", "ok", "route del: ok");
	ok(tun_route(0, "10.2.3.4") < 0 && tun_route(1, "10.2.3.4") == p2,
	   "route del: gone from the main tun, not from the other");
	status_on(&tctl, "route del 10.2.0.0/16\n", "error 1 no such route",
		  "route del of none: error 1");
	status_on(&tctl, "route del 10.2.0.0/16 ut-t1\n", "ok",
		  "route del ... TAP: ok");
	ok(tun_route(1, "10.2.3.4") < 0, "route del ... TAP: gone there");
	status_on(&tctl, "route del 10.1.0.1/16\n", "error 64 invalid route "
		  "'10.1.0.1/16': host bits set after the prefix: the prefix "
		  "is 10.1.0.0/16 (ip route refuses host bits too)",
		  "route del with host bits: error 64");
	status_on(&tctl, "route del\n", "error 64 usage: route add "
		  "PREFIX=ADDR [TAP], route del PREFIX [TAP]",
		  "route del without a prefix: error 64");
	status_on(&tctl, "fdb add 02:00:00:00:00:09=127.0.0.2\n",
		  "error 1 ut-t0 is a tun (--mode tun): no MACs, no "
		  "forwarding entries", "fdb add on a tun: error 1");
}

/* A full table, and a reader who may not change it. */
static void test_route_limits(void)
{
	struct route_table *t = &tun.port.dev[0]->s.routes;
	struct cidr p = { .family = AF_INET, .prefix = 32 };
	unsigned int i, n = route_count(t);
	struct reply r;
	int fd;

	if (others) {
		fd = client_as(&tctl, NOBODY, 0, NULL, 0);
		ask_on(&tctl, fd, "route add 10.5.0.0/16=127.0.0.2\n", &r);
		ok(fd >= 0 && !strncmp(r.status, "error 1 permission denied",
				       25) && tun_route(0, "10.5.0.1") < 0,
		   "a reader may not route add");
		reply_free(&r);
	} else {
		ok(1, "a reader may not route add # SKIP no other uid");
	}
	for (i = 0; n < CONFIG_MAX_ROUTES; i++, n++) {
		p.addr.v4.s_addr = htonl(0x0b000000 + i);
		if (route_add(t, &p, 0))
			break;
	}
	status_on(&tctl, "route add 10.6.0.0/16=127.0.0.2\n", "error 1 the "
		  "table holds as many routes as it can",
		  "route add to a full table: error 1");
	status_on(&tctl, "route add 10.1.0.0/16=127.0.0.3\n", "ok",
		  "... but a route of a prefix held is replaced");
	ok(route_count(t) == CONFIG_MAX_ROUTES, "the table holds %u routes",
	   route_count(t));
}

/* The route requests on a port of taps: refused, with why. */
static void test_route_taps(void)
{
	struct reply r;

	status_is("route add 10.1.0.0/16=127.0.0.2\n", "error 1 ut-c0 is a "
		  "tap (no --mode tun): no routes", "route add on a tap: "
		  "error 1");
	status_is("route del 10.1.0.0/16 ut-c1\n", "error 1 ut-c1 is a tap "
		  "(no --mode tun): no routes", "route del on a tap: error 1");
	status_is("route show json ut-c1\n", "error 1 ut-c1 is a tap (no "
		  "--mode tun): no routes", "route show of a tap: error 1");
	ask("route show\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole && r.body_len == 0,
	   "route show of all taps: none");
	reply_free(&r);
}

static void test_requests(void)
{
	struct reply r;
	char *dump, want[64];

	snprintf(want, sizeof(want), "gsotun %s\n", PACKAGE_VERSION);
	ask("version\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole && r.chunks == 1 &&
		   !strcmp(r.body, want) && r.closed,
	   "version: ok, its chunk, the end, closed");
	reply_free(&r);

	ask("show\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole &&
		   strstr(r.body, "\ntunnel ut-c0: vxlan VNI 1\n") &&
		   strstr(r.body, "\ntunnel ut-c1: vxlan VNI 2\n") &&
		   strstr(r.body, ", port 4789, 3 peers\n") &&
		   strstr(r.body, "\npeer 127.0.0.4\n"),
	   "show: every tap, every peer");
	reply_free(&r);
	ask("show ut-c1\r\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole &&
		   strstr(r.body, "\ntunnel ut-c1: vxlan VNI 2\n") &&
		   !strstr(r.body, "ut-c0"),
	   "show TAP (a line in CR LF): that tap only");
	reply_free(&r);

	dev(0)->q[0].st.rx_learnt = 3;
	dev(1)->st.tx_flood = 4;
	dump = rig_report(&rig, REPORT_DUMP);
	ask("stats\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole && !strcmp(r.body, dump) &&
		   strstr(r.body, " rx_learnt=3 ") &&
		   strstr(r.body, " tx_flood=4 "),
	   "stats: the counters dump, the queue's and the device's");
	reply_free(&r);
	free(dump);

	status_is("show nosuch\n", "error 64 no tap nosuch in this gsotun",
		  "show of a tap it has not: error 64, nothing after");
}

static void test_changes(void)
{
	int p3 = rig_peer(&rig, "127.0.0.3");

	status_is("fdb add 02:00:00:00:00:09=127.0.0.3\n", "ok",
		  "fdb add: ok");
	ok(lookup(0, 9) == p3 && lookup(1, 9) < 0,
	   "fdb add: in the main tap's table, to the peer");
	status_is("fdb add 02:00:00:00:00:0a=127.0.0.3 ut-c1\n", "ok",
		  "fdb add ... TAP: ok");
	ok(lookup(1, 10) == p3 && lookup(0, 10) < 0,
	   "fdb add ... TAP: in that tap's table only");
	status_is("fdb add 02:00:00:00:00:0b=127.0.0.99\n",
		  "error 1 02:00:00:00:00:0b=127.0.0.99: 127.0.0.99 is not a "
		  "peer (peer add it first)", "fdb add to no peer: error 1");
	status_is("fdb del 02:00:00:00:00:09\n", "ok", "fdb del: ok");
	ok(lookup(0, 9) < 0, "fdb del: the entry is gone");
	status_is("fdb del 02:00:00:00:00:09\n", "error 1 no such entry",
		  "fdb del of none: error 1");

	status_is("peer add 127.0.0.5\n", "ok", "peer add: ok");
	ok(rig.port.peers.n == 4 && rig_peer(&rig, "127.0.0.5") >= 0,
	   "peer add: a peer more");
	status_is("peer add 127.0.0.5\n", "error 1 127.0.0.5 is a peer already",
		  "peer add of a peer: error 1");
	status_is("peer add ::1\n", "error 1 ::1 is not of the underlay's "
		  "address family", "peer add of IPv6 to IPv4: error 1");
	status_is("fdb add 02:00:00:00:00:0c=127.0.0.5\n", "ok",
		  "fdb add to the new peer: ok");
	status_is("peer del 127.0.0.5\n", "ok", "peer del: ok");
	ok(rig.port.peers.n == 3 && rig_peer(&rig, "127.0.0.5") < 0 &&
		   lookup(0, 12) < 0,
	   "peer del: the peer is gone, and its entries");
	status_is("peer del 127.0.0.5\n", "error 1 127.0.0.5 is not a peer",
		  "peer del of none: error 1");
	status_is("peer del 127.0.0.3\n", "ok", "peer del: a second");
	status_is("peer del 127.0.0.4\n", "ok", "peer del: a third");
	status_is("peer del 127.0.0.2\n", "ok", "peer del of the last: ok");
	ok(rig.port.peers.n == 0, "peer del of the last: no peer left");
	status_is("peer add 127.0.0.2\n", "ok", "peer add: the first again");
	status_is("peer add 127.0.0.3\n", "ok", "peer add: back");
	status_is("peer add 127.0.0.4\n", "ok", "peer add: back again");

	status_is("frobnicate\n", "error 64 unknown request (try help)",
		  "an unknown request: error 64");
}

static void test_long(void)
{
	char line[CONTROL_REQ_MAX + 2];

	/* A line of CONTROL_REQ_MAX bytes, newline included, is parsed. */
	memset(line, 'x', sizeof(line));
	line[CONTROL_REQ_MAX - 1] = '\n';
	line[CONTROL_REQ_MAX] = '\0';
	status_is(line, "error 64 unknown request (try help)",
		  "a request of 512 bytes is read whole");
	line[CONTROL_REQ_MAX - 1] = 'x';
	line[CONTROL_REQ_MAX] = '\n';
	line[CONTROL_REQ_MAX + 1] = '\0';
	status_is(line, "error 64 request too long (at most 512 bytes)",
		  "a request of 513 bytes is too long: error 64");
}

/* Who may ask what, by the credentials of the client. */
static void test_creds(void)
{
	static const gid_t g0[] = { 0 }, gadmin[] = { ADMIN_GID };
	struct reply r;
	int fd;

	if (!others) {
		for (fd = 0; fd < 7; fd++)
			ok(1, "credentials # SKIP no other uid to take");
		return;
	}
	fd = client_as(&ctl, NOBODY, 0, NULL, 0);
	ask_on(&ctl, fd, "show\n", &r);
	ok(fd >= 0 && !strcmp(r.status, "ok") && r.whole,
	   "a user of gsotun's group may read");
	reply_free(&r);
	fd = client_as(&ctl, NOBODY, 0, NULL, 0);
	ask_on(&ctl, fd, "fdb add 02:00:00:00:00:0d=127.0.0.2\n", &r);
	ok(!strcmp(r.status, "error 1 permission denied: only root changes "
		   "peers and forwarding (no --admin-group)") &&
		   lookup(0, 13) < 0,
	   "... but not change: permission denied, nothing changed");
	reply_free(&r);
	fd = client_as(&ctl, NOBODY, 0, NULL, 0);
	ask_on(&ctl, fd, "peer add 127.0.0.6\n", &r);
	ok(!strncmp(r.status, "error 1 permission denied", 25) &&
		   rig_peer(&rig, "127.0.0.6") < 0,
	   "... nor add a peer");
	reply_free(&r);
	fd = client_as(&ctl, NOBODY, NOBODY, g0, 1);
	ask_on(&ctl, fd, "version\n", &r);
	ok(!strcmp(r.status, "ok"), "a supplementary member of its group "
	   "may read");
	reply_free(&r);
	fd = client_as(&ctl, NOBODY, NOBODY, NULL, 0);
	ask_on(&ctl, fd, "version\n", &r);
	ok(!strcmp(r.status, "error 1 permission denied: root, or the user "
		   "or group gsotun runs as") && r.closed,
	   "anyone else is refused");
	reply_free(&r);

	fd = client_as(&admin, NOBODY, NOBODY, gadmin, 1);
	ask_on(&admin, fd, "peer add 127.0.0.6\n", &r);
	ok(!strcmp(r.status, "ok") && rig_peer(&rig, "127.0.0.6") >= 0,
	   "a member of --admin-group may change");
	reply_free(&r);
	fd = client_as(&admin, NOBODY, 0, NULL, 0);
	ask_on(&admin, fd, "peer del 127.0.0.6\n", &r);
	ok(!strcmp(r.status, "error 1 permission denied: only root and group "
		   ADMIN_GROUP " change peers and forwarding") &&
		   rig_peer(&rig, "127.0.0.6") >= 0,
	   "a reader not of --admin-group may not");
	reply_free(&r);
}

/* The fdb report of now without its ages, which move. */
static char *fdb_no_ages(const char *t)
{
	char *out = strdup(t), *p, *q;

	for (p = q = out; *p;) {
		if (!strncmp(p, " age ", 5)) {
			p += strcspn(p, "\n");
			continue;
		}
		*q++ = *p++;
	}
	*q = '\0';
	return out;
}

static void bulk(void)
{
	uint8_t mac[6] = { 0x02, 0x01, 0, 0, 0, 0 };
	struct fdb *f = &dev(0)->s.fdb;
	const struct peers *ps = &rig.port.peers;
	uint64_t now = clock_now_ns();
	unsigned int i;
	int before;

	for (i = 0; i < 4000; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		if (fdb_add_static(f, mac, 0, ps->live[i % ps->n]))
			abort();
	}
	mac[0] = 0x0e;
	for (i = 0; i < 4000; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		fdb_learn(f, mac, 0, ps->live[i % ps->n], now, &before);
	}
}

/* The slot serving a reply not all made yet, or NULL. */
static const struct control_client *busy_slot(void)
{
	unsigned int i;

	for (i = 0; i < CONTROL_CLIENTS; i++)
		if (ctl.clients[i].fd >= 0 && ctl.clients[i].answered &&
		    ctl.clients[i].more)
			return &ctl.clients[i];
	return NULL;
}

/* Unread bytes on fd, once gsotun has stopped sending more. */
static int stalled(int fd)
{
	int n = -1, last = -2, tries;

	for (tries = 0; tries < 100 && n != last; tries++) {
		last = n;
		pump(0.05);
		if (ioctl(fd, FIONREAD, &n))
			return -1;
	}
	return n;
}

/* A big reply in chunks; another client answered while it is sent. */
static void test_big(void)
{
	const struct control_client *cl;
	char *want, *got, *whole;
	struct reply r, v;
	int a, unread;

	bulk();
	whole = rig_report(&rig, REPORT_FDB);
	a = client(&ctl);
	send_req(a, "fdb show\n");
	unread = stalled(a);
	cl = busy_slot();
	ok(cl && cl->body_len <= CONTROL_CHUNK + REPORT_PIECE_MAX,
	   "fdb show of %u entries to a client not reading: %d bytes sent, "
	   "the rest not made, a chunk held",
	   fdb_count_static(&dev(0)->s.fdb) + fdb_count_learnt(&dev(0)->s.fdb),
	   unread);
	ask("version\n", &v);
	ok(!strcmp(v.status, "ok") && v.whole && busy_slot(),
	   "another client is answered meanwhile");
	reply_free(&v);
	reply_read(a, &r, 5);
	close(a);
	want = fdb_no_ages(whole);
	got = fdb_no_ages(r.body ? r.body : "");
	ok(!strcmp(r.status, "ok") && r.whole && !strcmp(got, want),
	   "the big reply whole, as the report is (%zu bytes)", r.body_len);
	ok(r.chunks > 10 && r.largest <= CONTROL_CHUNK + REPORT_PIECE_MAX,
	   "in %u chunks of at most %zu bytes", r.chunks, r.largest);
	free(want);
	free(got);
	free(whole);
	reply_free(&r);
}

/* Clients of CONTROL_PER_UID a user, the last place kept for root. */
static void test_limits(void)
{
	int fds[CONTROL_CLIENTS], more[CONTROL_CLIENTS], held = 0, i, n;
	unsigned int before = served(-1);
	struct reply r;
	uid_t u;

	if (!others) {
		for (i = 0; i < 4; i++)
			ok(1, "client limits # SKIP no other uid to take");
		return;
	}
	if (!connect_as(&ctl, NOBODY, 0, NULL, 0, fds, CONTROL_PER_UID + 1)) {
		printf("Bail out! cannot connect as %u\n", NOBODY);
		exit(1);
	}
	pump(0.05);
	reply_read(fds[CONTROL_PER_UID], &r, 1);
	ok(served(NOBODY) == CONTROL_PER_UID &&
		   !strcmp(r.status, "error 1 busy: too many clients of this "
			   "user") && r.closed,
	   "%d clients of a user are served, one more is told busy",
	   CONTROL_PER_UID);
	reply_free(&r);
	close(fds[CONTROL_PER_UID]);
	/* Others fill all places but root's. */
	for (u = NOBODY - 1; served(-1) < CONTROL_CLIENTS - 1; u--) {
		n = CONTROL_CLIENTS - 1 - (int)served(-1);
		n = n < CONTROL_PER_UID ? n : CONTROL_PER_UID;
		if (!connect_as(&ctl, u, 0, NULL, 0, more + held, (unsigned)n))
			break;
		held += n;
		pump(0.02);
	}
	i = client_as(&ctl, u, 0, NULL, 0);
	reply_read(i, &r, 1);
	ok(served(-1) == CONTROL_CLIENTS - 1 &&
		   !strcmp(r.status, "error 1 busy: too many clients"),
	   "with %d served, another user is told busy",
	   CONTROL_CLIENTS - 1);
	reply_free(&r);
	close(i);
	ask("version\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole, "root is answered still, in "
	   "the last place");
	reply_free(&r);
	for (i = 0; i < CONTROL_PER_UID; i++)
		close(fds[i]);
	for (i = 0; i < held; i++)
		close(more[i]);
	pump(0.05);
	is_int(served(-1), before, "clients that go are let go");
}

static void test_squatter(void)
{
	struct config c = rig.cfg;
	struct control sq;
	struct sockaddr_un sa;
	socklen_t len;
	int fd;

	len = control_name("@ut-squat", NULL, &sa);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len)) {
		printf("Bail out! cannot bind @ut-squat\n");
		exit(1);
	}
	c.control = "@ut-squat";
	ok(control_open(&sq, &c, "ut-c0") == 0 && sq.fd < 0,
	   "a name another holds: gsotun runs without a socket");
	control_close(&sq);
	close(fd);
}

static void test_path(const char *dir)
{
	struct config c = rig.cfg;
	char path[128];
	struct control pc;
	struct stat st;
	struct reply r;

	snprintf(path, sizeof(path), "%s/ctl", dir);
	c.control = path;
	if (control_open(&pc, &c, "ut-c0")) {
		printf("Bail out! cannot open %s\n", path);
		exit(1);
	}
	control_watch(&pc, loop, &rig.port);
	ok(!lstat(path, &st) && S_ISSOCK(st.st_mode) &&
		   (st.st_mode & 07777) == 0660,
	   "--control PATH: a socket file of mode 0660");
	ask_on(&pc, -1, "version\n", &r);
	ok(!strcmp(r.status, "ok") && r.whole, "... that answers");
	reply_free(&r);
	control_close(&pc);
	ok(lstat(path, &st) && errno == ENOENT,
	   "control_close: the file is removed");
}

int main(void)
{
	const char *why = isolate();
	struct config c;
	int silent, reader, err, fd;
	struct sockaddr_un sa;
	char dir[] = "/tmp/unit-control.XXXXXX";
	struct reply r;
	double t0, t;

	if (why)
		skip_all(why);
	log_level = LOG_LVL_ERR;
	rig_open(&rig, port_argv);
	err = ring_init(&rig.port.ring[0], 64);
	if (err == -ENOSYS || err == -EPERM)
		skip_all("no io_uring here");
	dev(0)->link = link_open();
	if (err || !dev(0)->link || !mkdtemp(dir)) {
		printf("Bail out! no ring, rtnetlink or directory\n");
		return 1;
	}
	loop = ev_loop_new(EVFLAG_AUTO);
	plan(55 + 40);

	ok(control_open(&ctl, &rig.cfg, "ut-c0") == 0 && ctl.fd >= 0 &&
		   unix_listed("@gsotun/ut-c0"),
	   "control_open: listening on @gsotun/ut-c0 in our namespace");
	c = rig.cfg;
	c.control = "@ut-admin";
	c.admin_group = (char *)ADMIN_GROUP;
	ok(control_open(&admin, &c, "ut-c0") == 0 && admin.fd >= 0,
	   "control_open with --admin-group");
	control_watch(&ctl, loop, &rig.port);
	control_watch(&admin, loop, &rig.port);

	rig_open(&tun, tun_argv);
	c = tun.cfg;
	c.control = "@ut-tun";
	ok(control_open(&tctl, &c, "ut-t0") == 0 && tctl.fd >= 0,
	   "control_open of a port of tuns");
	control_watch(&tctl, loop, &tun.port);

	test_requests();
	test_route_show();
	test_route_changes();
	test_route_limits();
	test_route_taps();
	test_changes();
	test_long();
	test_big();

	/* Never sends; never reads: each dropped CONTROL_TIMEOUT later. */
	t0 = now_s();
	silent = client(&ctl);
	reader = client(&ctl);
	send_req(reader, "fdb show\n");
	pump(0.05);

	test_creds();
	test_limits();
	test_squatter();
	test_path(dir);

	ok(served(-1) == 2, "the silent clients are still there at %.1f s",
	   now_s() - t0);
	while (served(-1) && now_s() - t0 < CONTROL_TIMEOUT + 2)
		pump(0.05);
	t = now_s() - t0;
	ok(!served(-1) && t > CONTROL_TIMEOUT - 0.5, "they are dropped %.1f s "
	   "after they stopped (CONTROL_TIMEOUT %.0f s, fixed in control.h)",
	   t, CONTROL_TIMEOUT);
	reply_read(silent, &r, 1);
	ok(r.closed && r.len == 0, "the one that sent nothing: closed");
	reply_free(&r);
	reply_read(reader, &r, 1);
	ok(r.closed && !strcmp(r.status, "ok") && r.len > CONTROL_CHUNK &&
		   !r.whole,
	   "the one that did not read: its reply cut short (%zu bytes)",
	   r.len);
	reply_free(&r);
	close(silent);
	close(reader);

	control_close(&ctl);
	control_close(&admin);
	control_close(&tctl);
	rig_close(&tun);
	sa = ctl.sa;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(!unix_listed("@gsotun/ut-c0") && !unix_listed("@ut-admin") &&
		   ctl.fd < 0 &&
		   connect(fd, (struct sockaddr *)&sa, ctl.sa_len) &&
		   errno == ECONNREFUSED,
	   "control_close: no socket left, none listening");
	close(fd);

	rmdir(dir);
	ev_loop_destroy(loop);
	ring_exit(&rig.port.ring[0]);
	rig_close(&rig);
	return done_testing();
}
