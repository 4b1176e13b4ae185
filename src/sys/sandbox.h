/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seccomp filter of the running tunnel: after set-up, the system
 * calls of the loop, the control socket, signals and exit, no others.
 */
#ifndef GSOTUN_SANDBOX_H
#define GSOTUN_SANDBOX_H

/*
 * Set no_new_privs and install the filter, for every thread of this
 * process and all it would start. A system call outside the list fails
 * with EPERM (logged by the kernel's audit); openat() only reads,
 * setsockopt() only sets IP_RECVERR and IPV6_RECVERR, tgkill() only
 * signals this process; a call through another ABI (x32) kills the
 * process. On an architecture it has no table for, a warning and no
 * filter. 0 or -errno (logged).
 */
int sandbox_enter(void);

#endif
