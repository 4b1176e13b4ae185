/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Privileges: once the tap and the sockets are open, become an ordinary
 * user in an optional chroot, keeping at most CAP_NET_ADMIN.
 */
#ifndef GSOTUN_PRIV_H
#define GSOTUN_PRIV_H

#include <stdbool.h>

/*
 * Change root to dir (when not NULL), become user and its group (no
 * supplementary groups), and clear every capability from the effective,
 * permitted, inheritable, ambient and bounding sets except CAP_NET_ADMIN
 * when keep_net_admin; no_new_privs is set. Returns 0 or -errno (logged).
 */
int priv_drop(const char *user, const char *dir, bool keep_net_admin);

/*
 * Started as a user other than root with capabilities (a service
 * manager's ambient ones): clear every capability from the effective,
 * permitted, inheritable and ambient sets but CAP_NET_ADMIN when
 * keep_net_admin and held. Nothing when none is held. 0 or -errno
 * (logged).
 */
int priv_trim(bool keep_net_admin);

#endif
