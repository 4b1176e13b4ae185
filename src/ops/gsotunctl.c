// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotunctl: ask a running gsotun, over its control socket, what it is
 * doing (show, stats, metrics) or to change its peers and forwarding
 * table. One request a run, to the gsotun that has the tap named; the
 * reply goes to stdout.
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
#include "conf/ctlproto.h"

/* Seconds to wait for gsotun: it answers within its own loop's turn. */
#define CTL_TIMEOUT 10

/* Sockets looked at when no tap is named. */
#define CTL_MAX_FOUND 64
/* Flags of a listening socket in /proc/net/unix (__SO_ACCEPTCON). */
#define CTL_UNIX_LISTENING 0x10000

enum { CTL_OPT_JSON = 256, CTL_OPT_CONTROL };

struct ctl_args {
	bool json;
	const char *control;	/* --control */
	char **words;		/* [DEV] COMMAND [ARG...] */
	int n_words;
};

const char *argp_program_version = "gsotunctl " PACKAGE_VERSION;
const char *argp_program_bug_address = PACKAGE_BUGREPORT;

static const struct argp_option ctl_options[] = {
	/*
	 * The commands of a JSON form (ctlproto.h's .json), in an order of
	 * their own, as in ctl_request()'s refusal (tests/cli.sh checks
	 * both against gsotunctl help).
	 */
	{ .name = "json", .key = CTL_OPT_JSON,
	  .doc = "show, stats, fdb show, route show, peer list: as one "
		 "JSON object (its fields in gsotunctl(8))" },
	{ .name = "control", .key = CTL_OPT_CONTROL, .arg = "@NAME|PATH",
	  .doc = "The control socket, as gsotun's --control gave it "
		 "(default /run/gsotun/DEV/ctl, else @gsotun/DEV)" },
	/* -h is --help, as people expect; argp has -? only. */
	{ .key = 'h', .flags = OPTION_HIDDEN, .doc = "Give this help list" },
	{ 0 }
};

/* --help's text, before its commands (ctl_doc_make() adds them). */
static const char ctl_doc_head[] =
	"gsotunctl -- ask a running gsotun what it does, or change its peers, "
	"forwarding table and routes."
	"\v"
	"Commands:\n";

/* Where --help's line of a command says what it does. */
#define CTL_DOC_COLUMN 29

static error_t ctl_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ctl_args *a = state->input;

	switch (key) {
	case CTL_OPT_JSON:
		a->json = true;
		return 0;
	case CTL_OPT_CONTROL:
		if (!*arg || !strcmp(arg, "@"))
			argp_error(state, "invalid --control '%s'", arg);
		a->control = arg;
		return 0;
	case 'h':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return 0;
	case ARGP_KEY_ARGS:
		a->words = state->argv + state->next;
		a->n_words = state->argc - state->next;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* ctl_doc_make() gives its doc. */
static struct argp ctl_argp = {
	.options = ctl_options,
	.parser = ctl_parse_opt,
	.args_doc = "[DEV] [COMMAND [ARG...]]",
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

/* Is the socket fd is connected to, name, served by whom it may be? */
static bool ctl_served_trusted(int fd, const char *name)
{
	uid_t uid;

	return ctl_server_uid(fd, &uid) && ctl_trusted(name, uid);
}

/*
 * A connection to the socket f names, if it is served by whom it may
 * be; else -1 with its name cleared, counted in *others (served by
 * another user) or *denied (we may not connect).
 */
static int ctl_dial_trusted(struct ctl_found *f, int *others, int *denied)
{
	/* Non-blocking: a squatter's full backlog holds nothing. */
	int fd = ctl_dial(f->name, true);

	if (fd >= 0 && !ctl_served_trusted(fd, f->name)) {
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

/*
 * The gsotun of this namespace by their default names, one at a time:
 * those that answer and whose server is trusted, each once; another
 * user's socket (one who bound @gsotun/NAME first) is not one.
 */
struct ctl_scan {
	struct ctl_found found[CTL_MAX_FOUND];
	int n, i;
	int others;		/* served by another user */
	int denied;		/* we may not connect */
};

static void ctl_scan_start(struct ctl_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->n = ctl_find(s->found, CTL_MAX_FOUND, NULL);
	if (s->n < 0)
		ctl_die(EXIT_FAILURE, "cannot read /proc/net/unix: %s",
			strerror(-s->n));
}

/* A connection to the next (non-blocking), *f its socket; -1 after all. */
static int ctl_scan_next(struct ctl_scan *s, const struct ctl_found **f)
{
	int fd;

	while (s->i < s->n) {
		/* A tap by a file and by a name is one gsotun. */
		if (ctl_seen(s->found, s->i)) {
			s->i++;
			continue;
		}
		*f = &s->found[s->i];
		fd = ctl_dial_trusted(&s->found[s->i++], &s->others,
				      &s->denied);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* fd blocking, within CTL_TIMEOUT each way. */
static void ctl_blocking(int fd)
{
	struct timeval tv = { .tv_sec = CTL_TIMEOUT };

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		ctl_die(EXIT_FAILURE, "fcntl: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/*
 * The one gsotun of this namespace, its socket's name in name: none or
 * several are an error.
 */
static int ctl_find_one(char *name, size_t len)
{
	static struct ctl_scan s;
	const struct ctl_found *f;
	int fd, use = -1, taps = 0;
	char list[256] = "";
	size_t at = 0;

	ctl_scan_start(&s);
	while ((fd = ctl_scan_next(&s, &f)) >= 0) {
		if (use < 0) {
			use = fd;
			snprintf(name, len, "%s", f->name);
		} else {
			close(fd);
		}
		taps++;
		if (at < sizeof(list))
			at += snprintf(list + at, sizeof(list) - at, "%s%s",
				       at ? ", " : "", f->dev);
	}
	if (use < 0 && s.denied)
		ctl_die(EXIT_FAILURE, "permission denied (root, or the user "
			"or group gsotun runs as)");
	if (use < 0)
		ctl_die(EXIT_FAILURE, "no gsotun runs in this network "
			"namespace (with its default control socket)%s",
			s.others ? "; sockets of that name another user serves "
			"are not trusted" : "");
	if (taps > 1)
		ctl_die(EX_USAGE, "several gsotun run here (%s): name the "
			"tap", list);
	ctl_blocking(use);
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

/* word after what buf holds (*at bytes), a space between. */
static void ctl_word(char *buf, size_t len, size_t *at, const char *word)
{
	if (strpbrk(word, "\n\r"))
		ctl_die(EX_USAGE, "an argument with a line break");
	if (*at < len)
		*at += snprintf(buf + *at, len - *at, "%s%s", *at ? " " : "",
				word);
}

/*
 * The request line from the command words ("show" without any), "json"
 * after the command's own words with --json, and dev as its TAP where
 * the command takes one (ctlproto.h) and none is given.
 */
static void ctl_request(const struct ctl_args *a, const char *dev, char *buf,
			size_t len)
{
	static char *show[] = { "show" };
	char **w = a->n_words ? a->words : show;
	int n = a->n_words ? a->n_words : 1, i, own, rest;
	const struct control_command *c = control_command(w, n);
	size_t at = 0;

	if (a->json && !(c && c->json))
		ctl_die(EX_USAGE, "--json goes with show, stats, fdb show, "
			"route show and peer list");
	own = c && c->w1 ? 2 : 1;
	for (i = 0; i <= n; i++) {
		if (i == own && a->json)
			ctl_word(buf, len, &at, "json");
		if (i < n)
			ctl_word(buf, len, &at, w[i]);
	}
	rest = n - own - (n > own && !strcmp(w[own], "json"));
	if (dev && c && c->tap && rest == (c->arg ? 1 : 0))
		ctl_word(buf, len, &at, dev);
	if (at + 1 >= len)
		ctl_die(EX_USAGE, "request too long (at most %d bytes)",
			CONTROL_REQ_MAX);
	snprintf(buf + at, len - at, "\n");
}

/*
 * fd, ctl_dial()'s connection to the socket name (--control, or DEV's),
 * with who serves it checked: a socket that a gsotun did not open is not
 * trusted with the answer, nor with the request. Blocking.
 */
static int ctl_checked(int fd, const char *name)
{
	uid_t uid;

	if (fd == -ENAMETOOLONG)
		ctl_die(EX_USAGE, "'%s' is too long for a socket name", name);
	if (fd == -ENOENT || fd == -ECONNREFUSED)
		ctl_die(EXIT_FAILURE, "no gsotun listens at %s", name);
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
	ctl_blocking(fd);
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
			break;
		if (n < 0)
			ctl_die(EXIT_FAILURE, "cannot send the request: %s",
				strerror(errno));
		off += (size_t)n;
	}
	shutdown(fd, SHUT_WR);
}

/*
 * A status line other than "ok": its code (gsotunctl's exit status
 * then), why in *why (in line).
 */
static int ctl_status(char *line, const char **why)
{
	int code, off;

	if (sscanf(line, "error %d %n", &code, &off) == 1 && code > 0 &&
	    code < 256) {
		*why = line + off;
		return code;
	}
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
 * The reply on fd (ctlproto.h), which it closes: "ok" and its chunks,
 * or "ok LEN" and LEN bytes (gsotun 0.1), into *b: 0; or "error CODE
 * WHY": CODE, and WHY in why. A reply cut short or malformed is fatal.
 */
static int ctl_receive(int fd, struct ctl_body *b, char *why, size_t why_len)
{
	char line[CONTROL_REQ_MAX + 2];
	FILE *in = fdopen(fd, "r");
	const char *said;
	size_t len;
	int off, code = 0;

	if (!in)
		ctl_die(EXIT_FAILURE, "fdopen: %s", strerror(errno));
	ctl_line(in, line, sizeof(line), false, 0);
	if (sscanf(line, "ok %zu%n", &len, &off) == 1 && !line[off]) {
		ctl_take(in, b, len);
	} else if (!strcmp(line, "ok")) {
		for (;;) {
			ctl_line(in, line, sizeof(line), true, b->len);
			if (sscanf(line, "%zu%n", &len, &off) != 1 ||
			    line[off] || !isdigit((unsigned char)line[0]) ||
			    len > CONTROL_CHUNK_MAX)
				ctl_die(EXIT_FAILURE, "a malformed reply");
			if (!len)
				break;
			ctl_take(in, b, len);
		}
	} else {
		code = ctl_status(line, &said);
		snprintf(why, why_len, "%s", said);
	}
	if (fgetc(in) != EOF)
		ctl_die(EXIT_FAILURE, "a malformed reply: more than said");
	fclose(in);
	return code;
}

/*
 * The taps of the gsotun on fd (connected, not yet asked), which it
 * closes, as "taps" answers: a line each, its name first, the main one
 * first. 0, or the status code of a refusal (why in why).
 */
static int ctl_taps(int fd, struct ctl_body *b, char *why, size_t why_len)
{
	b->len = 0;
	ctl_blocking(fd);
	ctl_send(fd, "taps\n");
	return ctl_receive(fd, b, why, why_len);
}

/*
 * The next tap of ctl_taps()'s answer from *at: its name, *len bytes,
 * the first word of its line; NULL after the last.
 */
static const char *ctl_next_tap(const struct ctl_body *b, size_t *at,
				size_t *len)
{
	const char *p;
	size_t n = 0;

	if (*at >= b->len)
		return NULL;
	p = b->p + *at;
	while (*at + n < b->len && p[n] != '\n')
		n++;
	*at += n + 1;
	for (*len = 0; *len < n && p[*len] != ' '; (*len)++)
		;
	return p;
}

/* Is dev one of the taps ctl_taps() gave? */
static bool ctl_has_tap(const struct ctl_body *b, const char *dev)
{
	size_t at = 0, len;
	const char *tap;

	while ((tap = ctl_next_tap(b, &at, &len)))
		if (len == strlen(dev) && !memcmp(tap, dev, len))
			return true;
	return false;
}

/*
 * word is no command: said, with the one it may be a slip for; where no
 * tap is named (--control), or none of that name is here.
 */
static void __attribute__((noreturn)) ctl_unknown(const char *word,
						  bool control)
{
	const char *near = control_closest(word);

	if (near)
		ctl_die(EX_USAGE, "unknown command '%s'; did you mean '%s'?%s",
			word, near, control ? " (with --control, no DEV)" : "");
	if (control)
		ctl_die(EX_USAGE, "unknown command '%s' (with --control, no "
			"DEV; gsotunctl help: the commands)", word);
	ctl_die(EX_USAGE, "unknown command '%s', and no tap %s here "
		"(gsotunctl help: the commands)", word, word);
}

/*
 * No gsotun has tap dev, and dev is where a command goes (no command
 * follows it): a word that no interface here is named either is a
 * command mistyped, not a tap.
 */
static void ctl_no_tap(const char *dev, bool alone)
{
	if (alone && !if_nametoindex(dev))
		ctl_unknown(dev, false);
}

/*
 * The gsotun that has tap dev, connected: the one its socket is named
 * after (its main tap), else the one of this namespace whose taps have
 * it (gsotun takes one socket, named after its main tap). Its socket's
 * name in name. alone: no command follows dev, which may be one
 * mistyped.
 */
static int ctl_find_tap(const char *dev, bool alone, char *name, size_t len)
{
	static struct ctl_scan s;
	struct ctl_body b = { 0 };
	const struct ctl_found *f;
	char why[CONTROL_REQ_MAX];
	int fd, refused = 0;
	bool squatted = false;

	ctl_dev_name(dev, name, len);
	fd = ctl_dial(name, true);
	/*
	 * Anyone may bind the name of a tap that is not a main one (no
	 * gsotun binds it): one not trusted, or whose backlog is full, is
	 * passed over, not obeyed nor waited for.
	 */
	if (fd == -EAGAIN || (fd >= 0 && !ctl_served_trusted(fd, name))) {
		if (fd >= 0)
			close(fd);
		fd = -ENOENT;
		squatted = true;
	}
	if (fd != -ENOENT && fd != -ECONNREFUSED)
		return ctl_checked(fd, name);
	ctl_scan_start(&s);
	while ((fd = ctl_scan_next(&s, &f)) >= 0) {
		if (ctl_taps(fd, &b, why, sizeof(why))) {
			refused++;
		} else if (ctl_has_tap(&b, dev)) {
			free(b.p);
			snprintf(name, len, "%s", f->name);
			return ctl_checked(ctl_dial(name, false), name);
		}
	}
	free(b.p);
	if (squatted)
		fprintf(stderr, "gsotunctl: %s is served by another user, not "
			"by a gsotun: not trusted\n", name);
	if (refused || s.denied)
		ctl_die(EXIT_FAILURE, "no gsotun with tap %s among those "
			"this user may ask (root, or the user or group gsotun "
			"runs as)", dev);
	ctl_no_tap(dev, alone);
	ctl_die(EXIT_FAILURE, "no gsotun with tap %s in this network "
		"namespace (gsotunctl help: the commands)", dev);
}

/*
 * The connection the request goes to: --control's, DEV's gsotun's, or
 * the one of the namespace; its socket's name in name.
 */
static int ctl_open(const struct ctl_args *a, const char *dev, char *name,
		    size_t len)
{
	if (a->control) {
		snprintf(name, len, "%s", a->control);
		return ctl_checked(ctl_dial(name, false), name);
	}
	if (dev)
		return ctl_find_tap(dev, !a->n_words ||
					 !control_is_command(a->words[0]),
				    name, len);
	return ctl_find_one(name, len);
}

/*
 * A line for the gsotun on fd, its socket name: its main tap, which
 * names it, its socket and its taps (last). false: it refused.
 */
static bool ctl_list_one(int fd, const char *name)
{
	struct ctl_body b = { 0 };
	char why[CONTROL_REQ_MAX];
	const char *tap;
	size_t at = 0, len;

	if (ctl_taps(fd, &b, why, sizeof(why))) {
		fprintf(stderr, "gsotunctl: %s: %s\n", name, why);
		return false;
	}
	tap = ctl_next_tap(&b, &at, &len);
	printf("%.*s socket %s taps", tap ? (int)len : 0, tap ? tap : "",
	       name);
	for (at = 0; (tap = ctl_next_tap(&b, &at, &len));)
		printf(" %.*s", (int)len, tap);
	putchar('\n');
	free(b.p);
	return true;
}

/*
 * list: a line for each gsotun of this namespace (or the one that
 * --control or DEV names); those that refuse said on stderr, and the
 * exit status 1.
 */
static int ctl_list(const struct ctl_args *a, const char *dev)
{
	static struct ctl_scan s;
	const struct ctl_found *f;
	char name[CONTROL_REQ_MAX];
	bool ok = true;
	int fd;

	if (a->json || a->n_words > 1)
		ctl_die(EX_USAGE, "list takes nothing more");
	if (a->control || dev) {
		fd = ctl_open(a, dev, name, sizeof(name));
		ok = ctl_list_one(fd, name);
	} else {
		ctl_scan_start(&s);
		while ((fd = ctl_scan_next(&s, &f)) >= 0)
			ok &= ctl_list_one(fd, f->name);
		if (s.denied) {
			fprintf(stderr, "gsotunctl: %d gsotun not listed: "
				"permission denied\n", s.denied);
			ok = false;
		}
	}
	if (fflush(stdout))
		ctl_die(EXIT_FAILURE, "cannot write the list");
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* help: the requests, and list, which gsotunctl answers itself. */
static int ctl_help(const struct ctl_args *a)
{
	char help[CONTROL_HELP_MAX];

	if (a->json || a->n_words > 1)
		ctl_die(EX_USAGE, "help takes nothing more");
	control_help(help, sizeof(help), true);
	if (fputs(help, stdout) == EOF || fflush(stdout))
		ctl_die(EXIT_FAILURE, "cannot write the help");
	return EXIT_SUCCESS;
}

/*
 * The reply to the request on fd: what was asked for to stdout, once
 * all of it came (a metrics file is never cut short); a refusal's WHY to
 * stderr, its CODE the exit status.
 */
static int ctl_reply(int fd)
{
	struct ctl_body b = { 0 };
	char why[CONTROL_REQ_MAX];
	int code = ctl_receive(fd, &b, why, sizeof(why));

	if (code)
		ctl_die(code, "%s", why);
	if ((b.len && fwrite(b.p, 1, b.len, stdout) != b.len) || fflush(stdout))
		ctl_die(EXIT_FAILURE, "cannot write the reply");
	free(b.p);
	return EXIT_SUCCESS;
}

/*
 * The line of c in --help, its second word w1 (two: "add|del"), and doc
 * after it ("\n" in it goes on at its column).
 */
static void ctl_doc_line(FILE *out, const struct control_command *c,
			 const char *w1, const char *doc)
{
	const char *arg = control_arg_names[c->arg];
	int n;

	n = fprintf(out, "  %s%s%s%s%s%s", c->w0, w1 ? " " : "", w1 ? w1 : "",
		    arg ? " " : "", arg ? arg : "", c->tap ? " [TAP]" : "");
	if (!doc) {
		fputc('\n', out);
		return;
	}
	if (n >= CTL_DOC_COLUMN) {
		fputc('\n', out);
		n = 0;
	}
	for (; *doc; doc++) {
		for (; n < CTL_DOC_COLUMN; n++)
			fputc(' ', out);
		fputc(*doc, out);
		n = *doc == '\n' ? 0 : n + 1;
	}
	fputc('\n', out);
}

/*
 * The command of row i in --help, said with the next if it has no doc
 * ("peer add|del ADDR" if they take the same); the row said last.
 */
static size_t ctl_doc_command(FILE *out, size_t i)
{
	const struct control_command *c = &control_commands[i], *d = c + 1;
	char w1[64];

	if (c->doc || i + 1 == CTLREQ_N || !c->w1 || !d->w1 ||
	    strcmp(c->w0, d->w0) || c->arg != d->arg || c->tap != d->tap ||
	    c->about != d->about) {
		ctl_doc_line(out, c, c->w1, c->doc);
		return i;
	}
	snprintf(w1, sizeof(w1), "%s|%s", c->w1, d->w1);
	ctl_doc_line(out, c, w1, d->doc);
	return i + 1;
}

/* The reports of a tap, or of all: "show, fdb show and route show". */
static void ctl_doc_taps(FILE *out)
{
	const struct control_command *c;
	int n = 0, k = 0;

	for (c = control_commands; c < control_commands + CTLREQ_N; c++)
		n += c->tap && !c->arg;
	for (c = control_commands; c < control_commands + CTLREQ_N; c++) {
		if (!c->tap || c->arg)
			continue;
		fprintf(out, "%s%s%s%s", k ? (k == n - 1 ? " and " : ", ") : "",
			c->w0, c->w1 ? " " : "", c->w1 ? c->w1 : "");
		k++;
	}
}

/*
 * --help's doc: its head, the commands (ctlproto.h's table) by what
 * they are about, then DEV and the exit status.
 */
static char *ctl_doc_make(void)
{
	unsigned int about;
	char *doc = NULL;
	size_t len, i;
	FILE *out = open_memstream(&doc, &len);

	if (!out)
		ctl_die(EXIT_FAILURE, "out of memory");
	fputs(ctl_doc_head, out);
	for (about = CONTROL_ABOUT_TUNNEL; about <= CONTROL_ABOUT_GSOTUNCTL;
	     about++)
		for (i = 0; i < CTLREQ_N; i++)
			if (control_commands[i].about == about)
				i = ctl_doc_command(out, i);
	fputs("\n"
	      "DEV is a tap (its --dev, or a --vni or --key N=DEV): the "
	      "command goes to the gsotun that has it, and is about that tap "
	      "where it takes a TAP and none is given. It may be left out "
	      "when one gsotun runs in this network namespace (then TAP is "
	      "its main tap, or all of them for ", out);
	ctl_doc_taps(out);
	fputs("). Without a command: show.\n"
	      "\n"
	      "Exit status: 0 on success, 1 when gsotun refused or cannot be "
	      "reached, 64 on a usage error.", out);
	if (ferror(out) | fclose(out))
		ctl_die(EXIT_FAILURE, "out of memory");
	return doc;
}

int main(int argc, char **argv)
{
	char req[CONTROL_REQ_MAX + 1], name[sizeof(req)];
	struct ctl_args a = { 0 };
	const char *dev = NULL;
	char *doc;
	int fd;

	argp_err_exit_status = EX_USAGE;
	doc = ctl_doc_make();
	ctl_argp.doc = doc;
	argp_parse(&ctl_argp, argc, argv, 0, NULL, &a);
	free(doc);
	ctl_argp.doc = NULL;
	/* --control names the socket: the first word is the command. */
	if (a.control && a.n_words && !control_is_command(a.words[0]))
		ctl_unknown(a.words[0], true);
	if (!a.control && a.n_words && !control_is_command(a.words[0])) {
		dev = *a.words++;
		a.n_words--;
		if (strlen(dev) >= IFNAMSIZ)
			ctl_die(EX_USAGE, "'%s' is not a tap name (at most %d "
				"bytes)", dev, IFNAMSIZ - 1);
	}
	if (a.n_words && !strcmp(a.words[0], "help"))
		return ctl_help(&a);
	if (a.n_words && !strcmp(a.words[0], "list"))
		return ctl_list(&a, dev);
	ctl_request(&a, dev, req, sizeof(req));
	fd = ctl_open(&a, dev, name, sizeof(name));
	ctl_send(fd, req);
	return ctl_reply(fd);
}
