// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the sd_notify datagrams: what a listener at a path and at
 * an abstract name receives, MAINPID= from a forked child, and nothing
 * (and no harm) without NOTIFY_SOCKET or with one that is not an address.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "base/log.h"
#include "sys/notify.h"
#include "tap.h"

/* A listener at name ('@' first: abstract); its fd, -1 if it failed. */
static int listener(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(name);
	int fd;

	memcpy(sun.sun_path, name, strlen(name));
	if (name[0] == '@')
		sun.sun_path[0] = '\0';
	else
		len++;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sun, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The next datagram as a string, "" when none is waiting. */
static const char *next(int fd)
{
	static char buf[1024];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/*
 * A manager that reads nothing: its queue fills (net.unix.max_dgram_qlen,
 * 512 by default), and a send from the event loop must not wait for it.
 * SIGALRM ends the test if one does.
 */
static void test_full(int fd, const char *what)
{
	int i;

	alarm(10);
	for (i = 0; i < 5000; i++)
		notify_stopping();
	alarm(0);
	ok(1, "%s: 5000 datagrams to a listener that reads none: "
	      "none waited", what);
	while (*next(fd))
		;
}

static void test_messages(const char *name, const char *what)
{
	char want[64];
	const char *got;
	int fd = listener(name);
	pid_t pid;

	if (!ok(fd >= 0, "%s: a listener", what))
		return;
	setenv("NOTIFY_SOCKET", name, 1);
	notify_open();
	ok(notify_active(), "%s: active once connected", what);
	notify_ready("VXLAN VNI 1 to 198.18.0.2, MTU 1450");
	got = next(fd);
	ok(!strcmp(got, "READY=1\nSTATUS=VXLAN VNI 1 to 198.18.0.2, "
			"MTU 1450\n"),
	   "%s: READY=1 and STATUS=, no MAINPID= from the same process",
	   what);
	notify_reloading();
	got = next(fd);
	ok(!strncmp(got, "RELOADING=1\nMONOTONIC_USEC=", 27) &&
		   strtoull(got + 27, NULL, 10) > 0 &&
		   got[strlen(got) - 1] == '\n',
	   "%s: RELOADING=1 with MONOTONIC_USEC=", what);
	notify_stopping();
	ok(!strncmp(next(fd), "STOPPING=1\n", 11), "%s: STOPPING=1", what);

	/* A --daemon child: MAINPID= names it. */
	pid = fork();
	if (!pid) {
		notify_ready("child");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	snprintf(want, sizeof(want), "READY=1\nMAINPID=%ld\nSTATUS=child\n",
		 (long)pid);
	got = next(fd);
	ok(!strcmp(got, want), "%s: a forked child adds MAINPID=%ld", what,
	   (long)pid);
	test_full(fd, what);
	notify_close();
	ok(!notify_active(), "%s: not active after notify_close()", what);
	notify_ready("after close");
	ok(!*next(fd), "%s: nothing after notify_close()", what);
	close(fd);
}

static void test_unset(void)
{
	unsetenv("NOTIFY_SOCKET");
	notify_open();
	notify_ready("nobody listens");
	notify_stopping();
	ok(!notify_active(), "no NOTIFY_SOCKET: not active");
	ok(1, "no NOTIFY_SOCKET: nothing sent, nothing broken");
	log_level = LOG_LVL_ERR;	/* the warning is expected */
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	notify_open();
	notify_ready("nowhere");
	setenv("NOTIFY_SOCKET", "/nonexistent/gsotun-notify", 1);
	notify_open();
	notify_ready("nowhere");
	ok(!notify_active(), "a NOTIFY_SOCKET that does not connect: "
			     "not active");
	ok(1, "a bad NOTIFY_SOCKET: a warning, nothing broken");
	log_level = LOG_LVL_INFO;
}

int main(void)
{
	char dir[] = "/tmp/unit-notify.XXXXXX", path[64], abs[64];

	if (!mkdtemp(dir))
		skip_all("cannot make a temporary directory");
	snprintf(path, sizeof(path), "%s/notify", dir);
	snprintf(abs, sizeof(abs), "@gsotun-unit-notify-%ld", (long)getpid());
	test_messages(path, "a path");
	test_messages(abs, "an abstract name");
	test_unset();
	unlink(path);
	rmdir(dir);
	plan(tap_n);
	return done_testing();
}
