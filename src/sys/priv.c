// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * priv: the privilege drop of --user and --chroot, done after set-up and
 * before the loop, so that what faces the network runs as nobody.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "base/log.h"
#include "sys/priv.h"

/*
 * The bounding set goes while we still hold CAP_SETPCAP, that is before
 * setuid(); capabilities past the last the kernel knows give EINVAL.
 */
static int priv_drop_bounding(bool keep_net_admin)
{
	int cap;

	for (cap = 0; cap < 64; cap++) {
		if (keep_net_admin && cap == CAP_NET_ADMIN)
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;
	}
	return 0;
}

/* capset(2) with nothing but, maybe, CAP_NET_ADMIN. */
static int priv_set_caps(bool keep_net_admin)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (keep_net_admin) {
		data[CAP_TO_INDEX(CAP_NET_ADMIN)].effective =
			CAP_TO_MASK(CAP_NET_ADMIN);
		data[CAP_TO_INDEX(CAP_NET_ADMIN)].permitted =
			CAP_TO_MASK(CAP_NET_ADMIN);
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

static int priv_fail(const char *what, const char *arg)
{
	int err = -errno;

	log_err_errno("cannot %s %s", what, arg);
	return err;
}

int priv_trim(bool keep_net_admin)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned int i;
	bool any = false;

	if (syscall(SYS_capget, &hdr, data))
		return priv_fail("read the capabilities", "held");
	for (i = 0; i < 2; i++)
		any |= data[i].permitted || data[i].inheritable;
	/* A plain user (a tap made persistent for it): nothing to drop. */
	if (!any)
		return 0;
	keep_net_admin &= !!(data[CAP_TO_INDEX(CAP_NET_ADMIN)].permitted &
			     CAP_TO_MASK(CAP_NET_ADMIN));
	if (priv_set_caps(keep_net_admin) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return priv_fail("drop the capabilities of", "set-up");
	log_info("set up: capabilities dropped%s",
		 keep_net_admin ? " but CAP_NET_ADMIN (--mtu auto)" : "");
	return 0;
}

int priv_drop(const char *user, const char *dir, bool keep_net_admin)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;

	/* Before the chroot: the user database is outside it. */
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		if (!errno)
			errno = ENOENT;
		return priv_fail("find user", user);
	}
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	if (dir && (chroot(dir) || chdir("/")))
		return priv_fail("change root to", dir);
	if (priv_drop_bounding(keep_net_admin))
		return priv_fail("drop the capability bounding set for", user);
	/* Keep the permitted set across setuid() to pick from it below. */
	if (keep_net_admin && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return priv_fail("keep CAP_NET_ADMIN for", user);
	if (setgroups(1, &gid) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return priv_fail("become user", user);
	if (priv_set_caps(keep_net_admin) ||
	    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return priv_fail("clear the capabilities of", user);
	/* A drop that can be undone is no drop. */
	if (uid != 0 && setuid(0) == 0) {
		log_err("still able to become root after --user %s", user);
		return -EPERM;
	}
	log_info("running as %s (uid %u, gid %u)%s%s%s", user, (unsigned)uid,
		 (unsigned)gid, dir ? " in " : "", dir ? dir : "",
		 keep_net_admin ? ", keeping CAP_NET_ADMIN" : "");
	return 0;
}
