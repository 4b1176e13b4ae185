// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for tests/udp-gro.sh: gsotun sees an older kernel.
 *   OLD_KERNEL_NO_USO=1     TUNSETOFFLOAD with the USO bits fails with
 *                           EINVAL, as before Linux 6.2: a tap that takes
 *                           no UDP super-frames
 *   OLD_KERNEL_RELEASE=R    uname() reports release R
 * Everything else goes through.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <linux/if_tun.h>
#include "base/compat.h"

int ioctl(int fd, unsigned long req, ...);
int uname(struct utsname *u);

static void *next_fn(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*next)(int, unsigned long, unsigned long);
	const char *no_uso = getenv("OLD_KERNEL_NO_USO");
	unsigned long arg;
	va_list ap;

	/* gsotun passes TUNSETOFFLOAD's flags, others a pointer: a word. */
	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (!next)
		next = (int (*)(int, unsigned long, unsigned long))next_fn(
			"ioctl");
	if (no_uso && *no_uso == '1' && req == TUNSETOFFLOAD &&
	    (arg & (TUN_F_USO4 | TUN_F_USO6))) {
		errno = EINVAL;
		return -1;
	}
	return next(fd, req, arg);
}

int uname(struct utsname *u)
{
	static int (*next)(struct utsname *);
	const char *release = getenv("OLD_KERNEL_RELEASE");

	if (!next)
		next = (int (*)(struct utsname *))next_fn("uname");
	if (next(u) < 0)
		return -1;
	if (release)
		snprintf(u->release, sizeof(u->release), "%s", release);
	return 0;
}
