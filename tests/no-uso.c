// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for tests/udp-gro.sh: TUNSETOFFLOAD with the USO bits
 * fails with EINVAL, as on kernels before 6.2, so that gsotun runs with a
 * tap that takes no UDP super-frames. Every other ioctl goes through.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <linux/if_tun.h>
#include "compat.h"

int ioctl(int fd, unsigned long req, ...);

int ioctl(int fd, unsigned long req, ...)
{
	static int (*next)(int, unsigned long, void *);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next)
		next = (int (*)(int, unsigned long, void *))dlsym(RTLD_NEXT,
								  "ioctl");
	if (req == TUNSETOFFLOAD &&
	    ((unsigned long)arg & (TUN_F_USO4 | TUN_F_USO6))) {
		errno = EINVAL;
		return -1;
	}
	return next(fd, req, arg);
}
