/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who holds a socket that gsotun cannot have at start (its control name,
 * its UDP port): the socket's inode in /proc/net of this network
 * namespace, then the process whose /proc/PID/fd has it. Set-up only.
 */
#ifndef GSOTUN_HOLDER_H
#define GSOTUN_HOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The inode of the unix socket bound to abstract name (no '@'), or 0. */
unsigned long holder_unix_inode(const char *name);

/*
 * The inode of a UDP socket of family (AF_INET, AF_INET6) bound to port
 * (host order), on whatever address, or 0.
 */
unsigned long holder_udp_inode(int family, uint16_t port);

/* The process that has socket inode open (all of them only to root). */
bool holder_pid(unsigned long inode, pid_t *pid);

/* Its real uid and its name (comm), from /proc; false when it is gone. */
bool holder_uid(pid_t pid, uid_t *uid);
bool holder_comm(pid_t pid, char *buf, size_t len);

#endif
