// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotunctl: ask a running gsotun, over its control socket, what it is
 * doing (show, stats, metrics) or to change its peers and forwarding
 * table. One request a run; the reply goes to stdout.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>
#include "ctlproto.h"

/* Seconds to wait for gsotun: it answers within its own loop's turn. */
#define CTL_TIMEOUT 10

/* Tunnels listed when none is named and several run. */
#define CTL_MAX_FOUND 64

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
		 "(default @gsotun/DEV)" },
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
	"\n"
	"DEV, the gsotun's tap (--dev), may be left out when one gsotun runs "
	"in this network namespace. Without a command: show.\n"
	"\n"
	"Exit status: 0 on success, 1 when gsotun refused or cannot be "
	"reached, 64 on a usage error.";

static const char *const ctl_commands[] = {
	"show", "stats", "metrics", "peer", "fdb", "version", "help",
};

static bool ctl_is_command(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(ctl_commands) / sizeof(*ctl_commands); i++)
		if (!strcmp(w, ctl_commands[i]))
			return true;
	return false;
}

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

/*
 * The tunnels of this network namespace: the abstract names under
 * CONTROL_PREFIX that /proc/net/unix (per namespace) lists as listening.
 */
static int ctl_find(char found[][IFNAMSIZ], int max)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512], *path;
	int n = 0, i;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		path = strstr(line, " @" CONTROL_PREFIX);
		if (!path)
			continue;
		path += 2 + strlen(CONTROL_PREFIX);
		for (i = 0; i < n && strcmp(found[i], path); i++)
			;
		if (i == n && strlen(path) < IFNAMSIZ)
			strcpy(found[n++], path);
	}
	fclose(f);
	return n;
}

/* The tap named, or the one gsotun of this namespace. */
static const char *ctl_dev(struct ctl_args *a)
{
	static char found[CTL_MAX_FOUND][IFNAMSIZ];
	char list[256] = "";
	size_t len = 0;
	int n, i;

	/* --control names the socket: the first word is the command. */
	if (a->control) {
		if (a->n_words && !ctl_is_command(a->words[0]))
			ctl_die(EX_USAGE, "'%s' is not a command (with "
				"--control, no DEV)", a->words[0]);
		return "";
	}
	if (a->n_words && !ctl_is_command(a->words[0])) {
		a->n_words--;
		return *a->words++;
	}
	n = ctl_find(found, CTL_MAX_FOUND);
	if (n < 0)
		ctl_die(EXIT_FAILURE, "cannot read /proc/net/unix: %s",
			strerror(-n));
	if (n == 0)
		ctl_die(EXIT_FAILURE, "no gsotun runs in this network "
			"namespace (with its default control socket)");
	if (n > 1) {
		for (i = 0; i < n && len < sizeof(list); i++)
			len += snprintf(list + len, sizeof(list) - len, "%s%s",
					i ? ", " : "", found[i]);
		ctl_die(EX_USAGE, "several gsotun run here (%s): name the "
			"tap", list);
	}
	return found[0];
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

static int ctl_connect(const struct ctl_args *a, const char *dev)
{
	struct timeval tv = { .tv_sec = CTL_TIMEOUT };
	struct sockaddr_un sa;
	socklen_t len = control_name(a->control, dev, &sa);
	const char *name = a->control ? a->control : dev;
	int fd;

	if (!len)
		ctl_die(EX_USAGE, "'%s' is too long for a socket name", name);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ctl_die(EXIT_FAILURE, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!connect(fd, (struct sockaddr *)&sa, len))
		return fd;
	if ((errno == ENOENT || errno == ECONNREFUSED) && a->control)
		ctl_die(EXIT_FAILURE, "no gsotun listens at %s", name);
	if (errno == ENOENT || errno == ECONNREFUSED)
		ctl_die(EXIT_FAILURE, "no gsotun with tap %s in this network "
			"namespace (commands: show, stats, metrics, peer, "
			"fdb)", dev);
	if (errno == EACCES || errno == EPERM)
		ctl_die(EXIT_FAILURE, "%s: permission denied (root, or the "
			"user or group gsotun runs as)", name);
	ctl_die(EXIT_FAILURE, "cannot reach gsotun %s: %s", name,
		strerror(errno));
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

/* Read until len bytes are in buf, or the end; how many came. */
static size_t ctl_read(int fd, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;

	while (have < len) {
		n = recv(fd, buf + have, len - have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != ECONNRESET)
			ctl_die(EXIT_FAILURE, "no reply from gsotun: %s",
				errno == EAGAIN ? "timed out"
						: strerror(errno));
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	return have;
}

/*
 * The reply: "ok LEN" and LEN bytes, which go to stdout only once all of
 * them came (a metrics file is never cut short), or "error CODE WHY".
 */
static int ctl_reply(int fd)
{
	char head[CONTROL_REQ_MAX + 1], *nl, *body;
	size_t have = 0, len, got;
	char extra;
	int off;

	/* The status line, a byte at a time: the body is read whole. */
	while (have < CONTROL_REQ_MAX && ctl_read(fd, head + have, 1)) {
		if (head[have++] == '\n')
			break;
	}
	head[have] = '\0';
	nl = strchr(head, '\n');
	if (!have)
		ctl_die(EXIT_FAILURE, "gsotun closed without a reply");
	if (!nl)
		ctl_die(EXIT_FAILURE, "a malformed reply");
	*nl = '\0';
	if (sscanf(head, "ok %zu%n", &len, &off) != 1 || head[off])
		ctl_status(head);
	body = malloc(len ? len : 1);
	if (!body)
		ctl_die(EXIT_FAILURE, "out of memory for a %zu-byte reply",
			len);
	got = ctl_read(fd, body, len);
	if (got < len)
		ctl_die(EXIT_FAILURE, "the reply was cut short after %zu of "
			"%zu bytes", got, len);
	if (ctl_read(fd, &extra, 1))
		ctl_die(EXIT_FAILURE, "a malformed reply: more than said");
	if (fwrite(body, 1, len, stdout) != len || fflush(stdout))
		ctl_die(EXIT_FAILURE, "cannot write the reply");
	free(body);
	return EXIT_SUCCESS;
}

/*
 * Abstract names have no owner: anyone could bind one first. A gsotun
 * listens before it drops privileges, so its socket is root's (or, run
 * by hand without root, ours); another is not trusted with the answer.
 */
static void ctl_check_server(int fd, const char *name)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		ctl_die(EXIT_FAILURE, "cannot tell who serves %s: %s", name,
			strerror(errno));
	if (cr.uid != 0 && cr.uid != getuid())
		ctl_die(EXIT_FAILURE, "%s is served by uid %u, not by a gsotun "
			"started by root: not trusted", name,
			(unsigned int)cr.uid);
}

int main(int argc, char **argv)
{
	struct ctl_args a = { 0 };
	char req[CONTROL_REQ_MAX + 1];
	const char *dev;
	int fd;

	argp_err_exit_status = EX_USAGE;
	argp_parse(&ctl_argp, argc, argv, 0, NULL, &a);
	dev = ctl_dev(&a);
	if (!a.control && strlen(dev) >= IFNAMSIZ)
		ctl_die(EX_USAGE, "'%s' is not a tap name (at most %d bytes)",
			dev, IFNAMSIZ - 1);
	ctl_request(&a, req, sizeof(req));
	fd = ctl_connect(&a, dev);
	ctl_check_server(fd, a.control ? a.control : dev);
	ctl_send(fd, req);
	shutdown(fd, SHUT_WR);
	return ctl_reply(fd);
}
