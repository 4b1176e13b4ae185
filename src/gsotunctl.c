// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotunctl: ask a running gsotun, over its control socket, what it is
 * doing (show, stats, metrics) or to change its peers and forwarding
 * table. One request a run; the reply goes to stdout.
 */
#include "config.h"

#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include "ctlproto.h"

/* Seconds to wait for gsotun: it answers within its own loop's turn. */
#define CTL_TIMEOUT 10

/* Sockets looked at when no tap is named. */
#define CTL_MAX_FOUND 64
/* Flags of a listening socket in /proc/net/unix (__SO_ACCEPTCON). */
#define CTL_UNIX_LISTENING 0x10000

enum { OPT_JSON = 256, OPT_CONTROL };

struct ctl_args {
	bool json;
	const char *control;	/* --control */
	char **words;		/* [DEV] COMMAND [ARG...] */
	int n_words;
};

const char *argp_program_version = "gsotunctl " PACKAGE_VERSION;
const char *argp_program_bug_address = PACKAGE_BUGREPORT;

static const struct argp_option ctl_options[] = {
	{ .name = "json", .key = OPT_JSON,
	  .doc = "stats: every counter as one JSON object" },
	{ .name = "control", .key = OPT_CONTROL, .arg = "@NAME|PATH",
	  .doc = "The control socket, as gsotun's --control gave it "
		 "(default /run/gsotun/DEV/ctl, else @gsotun/DEV)" },
	{ 0 }
};

static const char ctl_doc[] =
	"gsotunctl -- ask a running gsotun what it does, or change its peers "
	"and forwarding table."
	"\v"
	"Commands:\n"
	"  show                       the tunnel, its peers and drops\n"
	"  stats [--json]             every counter\n"
	"  metrics                    every counter, for Prometheus\n"
	"  peer add|del ADDR          a peer more, or one less\n"
	"  fdb show                   the forwarding table\n"
	"  fdb add MAC[@VID]=ADDR [TAP]\n"
	"  fdb del MAC[@VID] [TAP]    a static entry more, or one less (in\n"
	"                             the main tap, or TAP)\n"
	"  config                     the configuration running, peers and\n"
	"                             entries of now, as gsotun --config\n"
	"                             reads it\n"
	"\n"
	"DEV, the gsotun's tap (--dev), may be left out when one gsotun runs "
	"in this network namespace. Without a command: show.\n"
	"\n"
	"Exit status: 0 on success, 1 when gsotun refused or cannot be "
	"reached, 64 on a usage error.";

static error_t ctl_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ctl_args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_CONTROL:
		if (!*arg || !strcmp(arg, "@"))
			argp_error(state, "invalid --control '%s'", arg);
		a->control = arg;
		return 0;
	case ARGP_KEY_ARGS:
		a->words = state->argv + state->next;
		a->n_words = state->argc - state->next;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp ctl_argp = {
	.options = ctl_options,
	.parser = ctl_parse_opt,
	.args_doc = "[DEV] [COMMAND [ARG...]]",
	.doc = ctl_doc,
};

static void __attribute__((noreturn, format(printf, 2, 3)))
ctl_die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("gsotunctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* A control socket of this network namespace by a default name. */
struct ctl_found {
	char dev[IFNAMSIZ];
	char name[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
};

/*
 * The tap of a default control socket name, as /proc/net/unix shows it
 * ("@gsotun/DEV", or the unit's "/run/gsotun/DEV/ctl"), in dev; false
 * for another name.
 */
static bool ctl_default_dev(const char *name, char *dev)
{
	const char *run = CONTROL_RUN_DIR, *file = CONTROL_RUN_FILE;
	size_t len;

	if (!strncmp(name, "@" CONTROL_PREFIX, strlen(CONTROL_PREFIX) + 1)) {
		name += strlen(CONTROL_PREFIX) + 1;
		len = strlen(name);
	} else if (!strncmp(name, run, strlen(run))) {
		name += strlen(run);
		len = strcspn(name, "/");
		if (strcmp(name + len, file))
			return false;
	} else {
		return false;
	}
	if (!len || len >= IFNAMSIZ || memchr(name, '/', len))
		return false;
	memcpy(dev, name, len);
	dev[len] = '\0';
	return true;
}

/*
 * The listening sockets of this network namespace by a default name:
 * /proc/net/unix lists those of the namespace it is read in, files too
 * (whose paths all namespaces share). For dev, its own only.
 */
static int ctl_find(struct ctl_found *found, int max, const char *dev)
{
	FILE *f = fopen("/proc/net/unix", "re");
	unsigned int flags, type;
	char line[512];
	int n = 0, off;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*s %*s %*s %x %x %*s %*s %n", &flags, &type,
			   &off) != 2 || !(flags & CTL_UNIX_LISTENING) ||
		    type != SOCK_STREAM ||
		    !ctl_default_dev(line + off, found[n].dev) ||
		    (dev && strcmp(dev, found[n].dev)) ||
		    strlen(line + off) >= sizeof(found[n].name))
			continue;
		strcpy(found[n].name, line + off);
		/* The unit's file first: nobody but root can take it. */
		if (line[off] == '/' && n) {
			struct ctl_found first = found[0];

			found[0] = found[n];
			found[n] = first;
		}
		n++;
	}
	fclose(f);
	return n;
}

/*
 * May a socket served by uid be a gsotun? One opened by root (a gsotun
 * listens before it drops privileges), or by ourselves; or a file in
 * directories that only root or uid can write, all the way up, such as
 * the unit's RuntimeDirectory= of its User=: nobody else could have put
 * it there. Abstract names have no owner: anyone may bind one first.
 */
static bool ctl_trusted(const char *name, uid_t uid)
{
	char dir[sizeof(((struct ctl_found *)0)->name)], *slash;
	struct stat st;

	if (uid == 0 || uid == getuid())
		return true;
	if (name[0] != '/' || strlen(name) >= sizeof(dir))
		return false;
	strcpy(dir, name);
	while ((slash = strrchr(dir, '/'))) {
		slash[slash == dir] = '\0';
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
		    (st.st_uid != 0 && st.st_uid != uid) ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)))
			return false;
		if (slash == dir)
			return true;
	}
	return false;
}

/* Who serves the socket fd is connected to (SO_PEERCRED); false: unknown. */
static bool ctl_server_uid(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	*uid = cr.uid;
	return true;
}

/* Connected to name ("@NAME" or a path), or -errno. */
static int ctl_dial(const char *name, bool nonblock)
{
	struct sockaddr_un sa;
	socklen_t len = control_name(name, NULL, &sa);
	int fd, err;

	if (!len)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
		    (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -errno;
	if (!connect(fd, (struct sockaddr *)&sa, len))
		return fd;
	err = -errno;
	close(fd);
	return err;
}

/* Is found[i]'s tap that of an earlier one in found[]? */
static bool ctl_seen(const struct ctl_found *found, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (found[j].name[0] && !strcmp(found[j].dev, found[i].dev))
			return true;
	return false;
}

/*
 * The one gsotun of this namespace: of the sockets by a default name,
 * those that answer and whose server is trusted; another user's socket
 * (one who bound @gsotun/NAME first) is not counted. Its connection,
 * its name in name.
 */
/*
 * A connection to the socket f names, if it is served by whom it may
 * be; else -1 with its name cleared, counted in *others (served by
 * another user) or *denied (we may not connect).
 */
static int ctl_dial_trusted(struct ctl_found *f, int *others, int *denied)
{
	/* Non-blocking: a squatter's full backlog holds nothing. */
	int fd = ctl_dial(f->name, true);
	uid_t uid;

	if (fd >= 0 && (!ctl_server_uid(fd, &uid) ||
			!ctl_trusted(f->name, uid))) {
		(*others)++;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		*denied += fd == -EACCES;
		f->name[0] = '\0';
		return -1;
	}
	return fd;
}

static int ctl_find_one(char *name, size_t len)
{
	static struct ctl_found found[CTL_MAX_FOUND];
	int n, i, fd, use = -1, taps = 0, others = 0, denied = 0;
	char list[256] = "";
	size_t at = 0;

	n = ctl_find(found, CTL_MAX_FOUND, NULL);
	if (n < 0)
		ctl_die(EXIT_FAILURE, "cannot read /proc/net/unix: %s",
			strerror(-n));
	for (i = 0; i < n; i++) {
		fd = ctl_dial_trusted(&found[i], &others, &denied);
		if (fd < 0)
			continue;
		if (use < 0) {
			use = fd;
			snprintf(name, len, "%s", found[i].name);
		} else {
			close(fd);
		}
		/* A tap by a file and by a name is one gsotun. */
		if (ctl_seen(found, i))
			continue;
		taps++;
		if (at < sizeof(list))
			at += snprintf(list + at, sizeof(list) - at, "%s%s",
				       at ? ", " : "", found[i].dev);
	}
	if (use < 0 && denied)
		ctl_die(EXIT_FAILURE, "permission denied (root, or the user "
			"or group gsotun runs as)");
	if (use < 0)
		ctl_die(EXIT_FAILURE, "no gsotun runs in this network "
			"namespace (with its default control socket)%s",
			others ? "; sockets of that name another user serves "
			"are not trusted" : "");
	if (taps > 1)
		ctl_die(EX_USAGE, "several gsotun run here (%s): name the "
			"tap", list);
	/* Blocking from here on, within CTL_TIMEOUT. */
	if (fcntl(use, F_SETFL, fcntl(use, F_GETFL) & ~O_NONBLOCK))
		ctl_die(EXIT_FAILURE, "fcntl: %s", strerror(errno));
	return use;
}

/*
 * The socket of tap dev: the unit's file when this namespace has it
 * listening, else the abstract name.
 */
static void ctl_dev_name(const char *dev, char *name, size_t len)
{
	struct ctl_found found[2];

	if (ctl_find(found, 2, dev) > 0 && found[0].name[0] == '/')
		snprintf(name, len, "%s", found[0].name);
	else
		snprintf(name, len, "@%s%s", CONTROL_PREFIX, dev);
}

/* The request line from the command words; "show" without any. */
static void ctl_request(const struct ctl_args *a, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	if (a->json && (!a->n_words || strcmp(a->words[0], "stats")))
		ctl_die(EX_USAGE, "--json goes with stats only");
	if (!a->n_words) {
		snprintf(buf, len, "show\n");
		return;
	}
	for (i = 0; i < a->n_words && n < len; i++) {
		if (strpbrk(a->words[i], "\n\r"))
			ctl_die(EX_USAGE, "an argument with a line break");
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "",
			      a->words[i]);
	}
	if (a->json && n < len)
		n += snprintf(buf + n, len - n, " json");
	if (n + 1 >= len)
		ctl_die(EX_USAGE, "request too long (at most %d bytes)",
			CONTROL_REQ_MAX);
	snprintf(buf + n, len - n, "\n");
}

/*
 * Connected to the named socket (--control, or DEV's), with who serves
 * it checked: a socket that a gsotun did not open is not trusted with
 * the answer, nor with the request.
 */
static int ctl_connect(const char *name, const char *dev)
{
	int fd = ctl_dial(name, false);
	uid_t uid;

	if (fd == -ENAMETOOLONG)
		ctl_die(EX_USAGE, "'%s' is too long for a socket name", name);
	if ((fd == -ENOENT || fd == -ECONNREFUSED) && !dev)
		ctl_die(EXIT_FAILURE, "no gsotun listens at %s", name);
	if (fd == -ENOENT || fd == -ECONNREFUSED)
		ctl_die(EXIT_FAILURE, "no gsotun with tap %s in this network "
			"namespace (commands: show, stats, metrics, peer, "
			"fdb)", dev);
	if (fd == -EACCES || fd == -EPERM)
		ctl_die(EXIT_FAILURE, "%s: permission denied (root, or the "
			"user or group gsotun runs as)", name);
	if (fd < 0)
		ctl_die(EXIT_FAILURE, "cannot reach gsotun %s: %s", name,
			strerror(-fd));
	if (!ctl_server_uid(fd, &uid))
		ctl_die(EXIT_FAILURE, "cannot tell who serves %s: %s", name,
			strerror(errno));
	if (!ctl_trusted(name, uid))
		ctl_die(EXIT_FAILURE, "%s is served by uid %u, not by a gsotun "
			"started by root: not trusted", name,
			(unsigned int)uid);
	return fd;
}

static void ctl_send(int fd, const char *req)
{
	size_t len = strlen(req), off = 0;

	while (off < len) {
		ssize_t n = send(fd, req + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		/* Turned away at once: the reply says why. */
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return;
		if (n < 0)
			ctl_die(EXIT_FAILURE, "cannot send the request: %s",
				strerror(errno));
		off += (size_t)n;
	}
}

/* A status line other than "ok": its code is the exit status. */
static void __attribute__((noreturn)) ctl_status(const char *line)
{
	int code, off;

	if (sscanf(line, "error %d %n", &code, &off) == 1 && code > 0 &&
	    code < 256)
		ctl_die(code, "%s", line + off);
	ctl_die(EXIT_FAILURE, "a malformed reply");
}

/*
 * What gsotun failed to send: the read's error, or the end too soon
 * (before the status line: !started), got bytes of the body in.
 */
static void __attribute__((noreturn)) ctl_short(FILE *in, bool started,
						size_t got)
{
	if (ferror(in) && errno != ECONNRESET)
		ctl_die(EXIT_FAILURE, "no reply from gsotun: %s",
			errno == EAGAIN ? "timed out" : strerror(errno));
	if (!started)
		ctl_die(EXIT_FAILURE, "gsotun closed without a reply");
	ctl_die(EXIT_FAILURE, "the reply was cut short after %zu bytes", got);
}

/* A line of the reply's framing, its newline cut off. */
static void ctl_line(FILE *in, char *line, size_t len, bool started,
		     size_t got)
{
	if (!fgets(line, (int)len, in))
		ctl_short(in, started, got);
	if (!strchr(line, '\n'))
		ctl_die(EXIT_FAILURE, "a malformed reply");
	line[strcspn(line, "\n")] = '\0';
}

/* The reply's body, growing as it comes. */
struct ctl_body {
	char *p;
	size_t len, room;
};

/* len bytes more of the body from in. */
static void ctl_take(FILE *in, struct ctl_body *b, size_t len)
{
	char *more;

	if (b->len + len > b->room) {
		b->room = b->len + len > 2 * b->room ? b->len + len
						     : 2 * b->room;
		more = realloc(b->p, b->room);
		if (!more)
			ctl_die(EXIT_FAILURE, "out of memory for a reply of "
				"%zu bytes", b->room);
		b->p = more;
	}
	if (fread(b->p + b->len, 1, len, in) != len)
		ctl_short(in, true, b->len);
	b->len += len;
}

/*
 * The reply (ctlproto.h): "ok" and its chunks, or "ok LEN" and LEN
 * bytes (gsotun 0.1), or "error CODE WHY". What was asked for goes to
 * stdout only once all of it came (a metrics file is never cut short).
 */
static int ctl_reply(int fd)
{
	char line[CONTROL_REQ_MAX + 2];
	struct ctl_body b = { 0 };
	FILE *in = fdopen(fd, "r");
	size_t len;
	int off;

	if (!in)
		ctl_die(EXIT_FAILURE, "fdopen: %s", strerror(errno));
	ctl_line(in, line, sizeof(line), false, 0);
	if (sscanf(line, "ok %zu%n", &len, &off) == 1 && !line[off]) {
		ctl_take(in, &b, len);
	} else if (!strcmp(line, "ok")) {
		for (;;) {
			ctl_line(in, line, sizeof(line), true, b.len);
			if (sscanf(line, "%zu%n", &len, &off) != 1 ||
			    line[off] || !isdigit((unsigned char)line[0]) ||
			    len > CONTROL_CHUNK_MAX)
				ctl_die(EXIT_FAILURE, "a malformed reply");
			if (!len)
				break;
			ctl_take(in, &b, len);
		}
	} else {
		ctl_status(line);
	}
	if (fgetc(in) != EOF)
		ctl_die(EXIT_FAILURE, "a malformed reply: more than said");
	fclose(in);
	if ((b.len && fwrite(b.p, 1, b.len, stdout) != b.len) || fflush(stdout))
		ctl_die(EXIT_FAILURE, "cannot write the reply");
	free(b.p);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct timeval tv = { .tv_sec = CTL_TIMEOUT };
	char req[CONTROL_REQ_MAX + 1], name[sizeof(req)];
	struct ctl_args a = { 0 };
	const char *dev = NULL;
	int fd;

	argp_err_exit_status = EX_USAGE;
	argp_parse(&ctl_argp, argc, argv, 0, NULL, &a);
	/* --control names the socket: the first word is the command. */
	if (a.control && a.n_words && !control_is_command(a.words[0]))
		ctl_die(EX_USAGE, "'%s' is not a command (with --control, no "
			"DEV)", a.words[0]);
	if (!a.control && a.n_words && !control_is_command(a.words[0])) {
		dev = *a.words++;
		a.n_words--;
		if (strlen(dev) >= IFNAMSIZ)
			ctl_die(EX_USAGE, "'%s' is not a tap name (at most %d "
				"bytes)", dev, IFNAMSIZ - 1);
	}
	ctl_request(&a, req, sizeof(req));
	if (a.control || dev) {
		if (dev)
			ctl_dev_name(dev, name, sizeof(name));
		fd = ctl_connect(a.control ? a.control : name, dev);
	} else {
		fd = ctl_find_one(name, sizeof(name));
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ctl_send(fd, req);
	shutdown(fd, SHUT_WR);
	return ctl_reply(fd);
}
