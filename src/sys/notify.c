// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify: the sd_notify protocol (sd_notify(3), "Notification socket" in
 * systemd's doc/NOTIFY.md) written out: one datagram of VAR=value lines.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "base/log.h"
#include "conf/ctlproto.h"
#include "sys/notify.h"

static int notify_fd = -1;
static pid_t notify_pid;	/* the process that connected */

/*
 * $NOTIFY_SOCKET as an address: a path, or '@' for the abstract name,
 * as a --control name is spelt.
 */
static socklen_t notify_addr(const char *name, struct sockaddr_un *sun)
{
	if (name[0] != '/' && name[0] != '@')
		return 0;
	return control_name(name, NULL, sun);
}

void notify_open(void)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	socklen_t len;

	if (!name || notify_fd >= 0)
		return;
	len = notify_addr(name, &sun);
	if (!len) {
		log_warn("NOTIFY_SOCKET=%s: not a path or an @name: "
			 "the service manager will not hear of readiness",
			 name);
		return;
	}
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (notify_fd < 0) {
		log_warn_errno("NOTIFY_SOCKET=%s: cannot open a socket", name);
		return;
	}
	if (connect(notify_fd, (struct sockaddr *)&sun, len)) {
		log_warn_errno("NOTIFY_SOCKET=%s: cannot connect", name);
		notify_close();
		return;
	}
	notify_pid = getpid();
}

void notify_close(void)
{
	if (notify_fd >= 0)
		close(notify_fd);
	notify_fd = -1;
}

bool notify_active(void)
{
	return notify_fd >= 0;
}

static void notify_send(const char *msg)
{
	/* From the event loop: a manager too slow to read loses one. */
	int flags = MSG_DONTWAIT | MSG_NOSIGNAL;

	if (notify_fd < 0)
		return;
	if (send(notify_fd, msg, strlen(msg), flags) < 0)
		log_debug("cannot notify the service manager: %s",
			  strerror(errno));
}

void notify_ready(const char *status)
{
	char msg[512], pid[32] = "";

	if (getpid() != notify_pid)
		snprintf(pid, sizeof(pid), "MAINPID=%ld\n", (long)getpid());
	snprintf(msg, sizeof(msg), "READY=1\n%sSTATUS=%s\n", pid, status);
	notify_send(msg);
}

void notify_reloading(void)
{
	struct timespec ts;
	char msg[96];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu\n",
		 (unsigned long long)ts.tv_sec * 1000000ull +
			 (unsigned long long)ts.tv_nsec / 1000);
	notify_send(msg);
}

void notify_stopping(void)
{
	notify_send("STOPPING=1\nSTATUS=stopping\n");
}
