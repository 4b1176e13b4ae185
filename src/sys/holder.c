// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * holder: the process behind a socket that another holds, found through
 * /proc, so that a port or name in use is said with who has it.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "sys/holder.h"

unsigned long holder_unix_inode(const char *name)
{
	FILE *f = fopen("/proc/net/unix", "re");
	unsigned long inode, found = 0;
	char line[512];
	int off;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %n", &inode,
			   &off) == 1 && line[off] == '@' &&
		    !strcmp(line + off + 1, name))
			found = inode;
	}
	fclose(f);
	return found;
}

/*
 * /proc/net/udp and udp6, as udp4_format_sock() writes them: the local
 * address and port in hex, then past uid and timeout the inode.
 */
unsigned long holder_udp_inode(int family, uint16_t port)
{
	FILE *f = fopen(family == AF_INET6 ? "/proc/net/udp6"
					   : "/proc/net/udp", "re");
	unsigned long inode, found = 0;
	unsigned int p;
	char line[512];

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*s %*s %*s %*s "
			   "%*s %*s %*s %lu", &p, &inode) == 2 && p == port)
			found = inode;
	fclose(f);
	return found;
}

/* Does process pid (a /proc entry's name) have link open? */
static bool holder_pid_has(const char *pid, const char *link)
{
	char path[300], target[64];
	struct dirent *d;
	bool held = false;
	ssize_t n;
	DIR *fds;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	fds = opendir(path);
	if (!fds)
		return false;
	while (!held && (d = readdir(fds))) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%.16s", pid,
			 d->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		held = n > 0 && (size_t)n == strlen(link) &&
		       !memcmp(target, link, (size_t)n);
	}
	closedir(fds);
	return held;
}

bool holder_pid(unsigned long inode, pid_t *pid)
{
	char link[40];
	struct dirent *d;
	bool found = false;
	DIR *proc;

	if (!inode)
		return false;
	snprintf(link, sizeof(link), "socket:[%lu]", inode);
	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!found && (d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]) ||
		    !holder_pid_has(d->d_name, link))
			continue;
		*pid = (pid_t)atol(d->d_name);
		found = true;
	}
	closedir(proc);
	return found;
}

bool holder_uid(pid_t pid, uid_t *uid)
{
	char path[64], line[128];
	unsigned int u;
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f))
		ok = sscanf(line, "Uid: %u", &u) == 1;
	fclose(f);
	if (ok)
		*uid = u;
	return ok;
}

bool holder_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}
