// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tap device (or, --mode tun, the tun device): created non-persistent
 * with vnet headers, so the kernel hands over whole TSO/USO super-frames
 * (super-packets) and removes the device when we exit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <net/if.h>
#include "base/compat.h"
#include "base/log.h"
#include "base/mac.h"
#include "pkt/vnet.h"
#include "table/steer.h"
#include "sys/tap.h"

/*
 * TSO needs CSUM (tun's set_offload() refuses it alone). The UDP tunnel
 * GSO bits (0x80, 0x100) are never set: they would have the kernel hand us
 * frames that are already encapsulated.
 */
#define TAP_OFFLOAD_TSO (TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)
#define TAP_OFFLOAD_USO (TUN_F_USO4 | TUN_F_USO6)

static unsigned int tap_offload_flags;

unsigned int tap_offloads(void)
{
	return tap_offload_flags;
}

/* What the device is called in messages. */
static const char *tap_kind(short flags)
{
	return flags & IFF_TUN ? "tun" : "tap";
}

static int tap_try_offload(int fd, unsigned int flags)
{
	return ioctl(fd, TUNSETOFFLOAD, (unsigned long)flags) < 0 ? -errno : 0;
}

/* The same bits for a tun (tun_set_offload() serves both kinds). */
static int tap_set_offload(int fd, const char *name, bool offload,
			   const char *kind)
{
	unsigned int flags = offload ? TAP_OFFLOAD_TSO | TAP_OFFLOAD_USO : 0;
	int ret;

	ret = tap_try_offload(fd, flags);
	/*
	 * tun learnt USO4|USO6 in Linux 6.2 (and takes them only together);
	 * older kernels refuse the unknown bits with EINVAL.
	 */
	if (ret == -EINVAL && offload) {
		log_debug("%s %s: no UDP segmentation offload, TSO only",
			  kind, name);
		flags = TAP_OFFLOAD_TSO;
		ret = tap_try_offload(fd, flags);
	}
	if (ret < 0) {
		log_msg(LOG_LVL_ERR, -ret, "cannot set offloads 0x%x on %s %s",
			flags, kind, name);
		return ret;
	}
	tap_offload_flags = flags;
	return 0;
}

/* What an error err of creating a tap (or tun) most likely means. */
static const char *tap_why(int err, short flags)
{
	bool tun = flags & IFF_TUN;

	switch (err) {
	case EPERM:
	case EACCES:
		return tun ? " (creating a tun needs CAP_NET_ADMIN: run gsotun "
			     "as root or with that capability)"
			   : " (creating a tap needs CAP_NET_ADMIN: run gsotun "
			     "as root or with that capability)";
	case EBUSY:
		return tun ? " (a tun of that name is open already, another "
			     "gsotun's?: give another --dev)"
			   : " (a tap of that name is open already, another "
			     "gsotun's?: give another --dev)";
	case EINVAL:
		return tun ? " (a device of that name exists and is not a "
			     "tun: give another --dev)"
			   : " (a device of that name exists and is not a "
			     "tap: give another --dev)";
	}
	return "";
}

/*
 * TUNSETIFF attaches to a persistent tap of the name (ip tuntap add) as
 * if it were new: say so, as it outlives gsotun, with its addresses.
 */
static void tap_warn_persistent(int fd, const char *name, short flags)
{
	struct ifreq ifr = { 0 };

	if (ioctl(fd, TUNGETIFF, &ifr) < 0 || !(ifr.ifr_flags & IFF_PERSIST))
		return;
	log_warn("%s %s exists already and is persistent (ip tuntap add?): "
		 "gsotun uses it, and it stays, with its addresses, when "
		 "gsotun exits ('ip link del %s' removes it)", tap_kind(flags),
		 name, name);
}

/* /dev/net/tun opened for the tap shown as kind shown, or -errno (said). */
static int tap_open_node(const char *kind, const char *shown, short flags)
{
	int fd, ret;

	/* Non-blocking from the start: the event loop owns every read. */
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0)
		return fd;
	ret = -errno;
	/*
	 * The node's mode (udev makes it 0666), which CAP_NET_ADMIN does
	 * not get past; TUNSETIFF then asks for CAP_NET_ADMIN.
	 */
	if (ret == -EACCES)
		log_err("cannot open /dev/net/tun for %s %s: %s (its mode "
			"keeps this user out: ls -l /dev/net/tun, which udev "
			"makes 0666; creating a %s needs CAP_NET_ADMIN too)",
			kind, shown, strerror(-ret), kind);
	else
		log_err("cannot open /dev/net/tun for %s %s: %s%s", kind, shown,
			strerror(-ret), tap_why(-ret, flags));
	return ret;
}

/*
 * One fd of the tap: it created (flags without IFF_MULTI_QUEUE, or the
 * first of several queues), or another queue of it attached.
 */
static int tap_open_one(const char *name, bool offload, short flags,
			char *ifname)
{
	struct ifreq ifr = { .ifr_flags = flags };
	const char *kind = tap_kind(flags);
	const char *shown = name && *name ? name
			    : flags & IFF_TUN ? "tun%d" : "tap%d";
	int hdr_len = VNET_HDR_LEN;
	int fd, ret;

	if (strlen(shown) >= IFNAMSIZ) {
		log_err("cannot create %s %s: name longer than %d bytes",
			kind, shown, IFNAMSIZ - 1);
		return -EINVAL;
	}
	/* An empty name lets the kernel pick one from "tap%d" or "tun%d". */
	if (name)
		memcpy(ifr.ifr_name, name, strlen(name));

	fd = tap_open_node(kind, shown, flags);
	if (fd < 0)
		return fd;
	/* Not TUNSETPERSIST: closing the fd removes the tap. */
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		log_err("cannot create %s %s: %s%s", kind, shown,
			strerror(-ret),
			ret == -EINVAL && (flags & IFF_MULTI_QUEUE)
				? " (a device of that name exists and is not "
				  "one of several queues of this kind: a "
				  "persistent one needs 'ip tuntap add ... "
				  "multi_queue' for --queues, or give another "
				  "--dev)"
				: tap_why(-ret, flags));
		goto err;
	}
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_len) < 0) {
		ret = -errno;
		log_err_errno("cannot set vnet header size %d on %s %s",
			      hdr_len, kind, ifr.ifr_name);
		goto err;
	}
	ret = tap_set_offload(fd, ifr.ifr_name, offload, kind);
	if (ret < 0)
		goto err;
	memcpy(ifname, ifr.ifr_name, IFNAMSIZ);
	return fd;
err:
	close(fd);
	return ret;
}

int tap_open(const char *name, bool tun, bool offload, unsigned int n,
	     int *fds, char *ifname)
{
	short flags = (tun ? IFF_TUN : IFF_TAP) | IFF_NO_PI | IFF_VNET_HDR;
	unsigned int i;

	if (n > 1)
		flags |= IFF_MULTI_QUEUE;
	for (i = 0; i < n; i++) {
		/* The others attach to the tap the first made (its name). */
		int fd = tap_open_one(i ? ifname : name, offload, flags,
				      ifname);

		if (fd < 0) {
			while (i--) {
				close(fds[i]);
				fds[i] = -1;
			}
			return fd;
		}
		fds[i] = fd;
	}
	tap_warn_persistent(fds[0], ifname, flags);
	return 0;
}

/* steer_tap_prog() loaded (GPL: it uses LD_ABS): its fd, or -1 and errno. */
static int tap_load_steering(bool tun)
{
	struct bpf_insn insns[STEER_TAP_INSNS];
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = steer_tap_prog(insns, tun);
	attr.license = (uintptr_t)"GPL";
	return (int)syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

bool tap_steer(int fd, const char *ifname, bool tun)
{
	int prog = tap_load_steering(tun), off = -1, err;

	if (prog >= 0) {
		err = ioctl(fd, TUNSETSTEERINGEBPF, &prog) < 0 ? -errno : 0;
		close(prog);
		if (!err)
			return true;
	} else {
		err = -errno;
	}
	/*
	 * A program of an earlier user of a persistent tap would stay:
	 * none, so that the tap picks by the queue that last wrote a flow.
	 */
	ioctl(fd, TUNSETSTEERINGEBPF, &off);
	log_info("%s %s: queues chosen by the kernel, not by the flow "
		 "(its steering program: %s%s); a flow keeps to the queue "
		 "that last wrote to it", tun ? "tun" : "tap", ifname,
		 strerror(-err),
		 err == -EPERM ? ", loading one needs CAP_BPF" : "");
	return false;
}

/*
 * What names this host in the stable MACs: /etc/machine-id, as
 * systemd-networkd's, else the host name (a container without one).
 */
static void tap_host_id(char *buf, size_t len)
{
	FILE *f = fopen("/etc/machine-id", "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
	}
	if (buf[0])
		return;
	if (gethostname(buf, len) < 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
	log_debug("no /etc/machine-id: stable MACs from host name '%s'", buf);
}

void tap_stable_mac(const char *ifname, const struct ipaddr *local,
		    uint8_t mac[MAC_LEN])
{
	char host[256];

	tap_host_id(host, sizeof(host));
	mac_stable(host, ifname, local, mac);
}

/* Why a write to /proc/sys failed, as what to change. */
static const char *tap_sysctl_hint(int err)
{
	switch (err) {
	case EROFS:
		return " (/proc/sys is read-only here: a container, or "
		       "systemd's ProtectKernelTunables=yes without "
		       "ReadWritePaths= for /proc/sys/net/ipv4/conf and "
		       "/proc/sys/net/ipv6/conf)";
	case EACCES:
	case EPERM:
		return " (needs root, with CAP_NET_ADMIN)";
	}
	return "";
}

static void tap_sysctl(const char *family, const char *ifname,
		       const char *key)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", family,
		 ifname, key);
	errno = 0;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	/* No IPv6 conf/ when IPv6 is disabled: nothing to set there. */
	if (err == ENOENT)
		log_debug("cannot set %s: %s", path, strerror(err));
	else if (err)
		log_warn("cannot set %s: %s%s", path, strerror(err),
			 tap_sysctl_hint(err));
}

void tap_set_sysctls(const char *ifname, bool tun)
{
	/* A tun has no MAC to announce. */
	if (!tun) {
		tap_sysctl("ipv4", ifname, "arp_notify");
		tap_sysctl("ipv6", ifname, "ndisc_notify");
	}
	tap_sysctl("ipv6", ifname, "keep_addr_on_down");
}
