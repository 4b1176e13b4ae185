/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the unit tests of the device level (unit-fwd, unit-path): a network
 * namespace of the test's own with lo up and a veth pair, a port and its
 * devices set up from an argv as gsotun's setup() does, rtnetlink asked
 * what the kernel made of them, and the log captured.
 */
#ifndef GSOTUN_TESTS_DEVENV_H
#define GSOTUN_TESTS_DEVENV_H

#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <libmnl/libmnl.h>
#include "base/clock.h"
#include "base/log.h"
#include "conf/cfg.h"
#include "conf/options.h"
#include "sys/link.h"
#include "dev/device.h"
#include "dev/port.h"
#include "tap.h"	/* the tests' TAP output (tests/tap.h) */

/* The underlay: ut0 (this end, 198.18.0.1/24) and ut1, in the namespace. */
#define ENV_UL "ut0"
#define ENV_UL_PEER "ut1"
#define ENV_LOCAL "198.18.0.1"

/* Ring entries, as gsotun's. */
#define ENV_RING 512

struct env {
	struct config cfg;
	struct port port;
	struct device dev[CONFIG_MAX_TUNNELS];
	struct ev_loop *loop;
	bool tap;		/* device_open() made the taps */
};

/* Whether running as root: the taps are made (elsewhere, skipped). */
static bool env_root;

static inline int env_ifup(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		err = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!err && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* One rtnetlink request and its ACK: 0 or -errno. */
static inline int env_nl(struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	int err = -EIO;
	ssize_t n;

	if (!nl)
		return -errno;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto out;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n > 0)
		err = mnl_cb_run(buf, n, 1, mnl_socket_get_portid(nl), NULL,
				 NULL) < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	return err;
}

/* ip link add a type veth peer name b */
static inline int env_veth(const char *a, const char *b)
{
	char buf[1024] = { 0 };	/* the attributes' padding too */
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *info, *data, *peer;
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, a);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	memset(ifi, 0, sizeof(*ifi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, b);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return env_nl(nlh);
}

/* ip route add dst/32 dev oif mtu mtu */
static inline int env_route_mtu(const char *dst, unsigned int oif, uint32_t mtu)
{
	char buf[1024] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *metrics;
	struct rtmsg *rtm;
	struct in_addr a;

	inet_pton(AF_INET, dst, &a);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 32;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_DST, sizeof(a), &a);
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	metrics = mnl_attr_nest_start(nlh, RTA_METRICS);
	mnl_attr_put_u32(nlh, RTAX_MTU, mtu);
	mnl_attr_nest_end(nlh, metrics);
	return env_nl(nlh);
}

static inline int env_gso_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_GSO_MAX_SIZE &&
	    !mnl_attr_validate(a, MNL_TYPE_U32))
		*(long *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static inline int env_gso_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), env_gso_attr,
			      data);
}

/*
 * The gso_max_size of interface ifindex, as rtnetlink says it (sysfs
 * shows the namespace it was mounted in); -errno.
 */
static inline long env_gso_max_size(unsigned int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	long size = -EIO;
	ssize_t n;

	if (!nl)
		return -errno;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = (int)ifindex;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) == 0 &&
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) >= 0) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n > 0)
			mnl_cb_run(buf, n, 1, mnl_socket_get_portid(nl),
				   env_gso_cb, &size);
	}
	mnl_socket_close(nl);
	return size;
}

/* The MTU of interface name, -errno. */
static inline long env_mtu(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long mtu;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	mtu = ioctl(fd, SIOCGIFMTU, &ifr) < 0 ? -errno : ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/*
 * The test's own network namespace (and, as a user, its own user
 * namespace): lo up, the veth pair up with ENV_LOCAL/24 on ENV_UL.
 * Skips the whole test where it cannot be had.
 */
static inline void env_netns(void)
{
	struct cidr local = { .family = AF_INET, .prefix = 24 };
	unsigned int ul;
	struct link *l;
	int err;

	env_root = geteuid() == 0;
	if (unshare(env_root ? CLONE_NEWNET : CLONE_NEWUSER | CLONE_NEWNET))
		skip_all("cannot make a network namespace");
	if (env_ifup("lo") || env_veth(ENV_UL, ENV_UL_PEER))
		skip_all("cannot bring lo up or make a veth pair");
	ul = if_nametoindex(ENV_UL);
	inet_pton(AF_INET, ENV_LOCAL, &local.addr.v4);
	l = link_open();
	if (!l)
		skip_all("no rtnetlink");
	err = link_add_addr(l, ul, &local);
	if (!err)
		err = link_set_up(l, ul);
	if (!err)
		err = link_set_up(l, if_nametoindex(ENV_UL_PEER));
	link_close(l);
	if (err)
		skip_all("cannot set the veth pair up");
}

/*
 * Set-up as gsotun's: the devices, the peers, the ring, the underlay,
 * each device opened (its tap where one can be had), and a loop.
 * Without root a device whose tap fails keeps its forwarding table and
 * gets an rtnetlink socket, for the checks that need no tap. Bails out
 * on any other failure.
 */
static inline void env_open(struct env *e, int argc, char **argv)
{
	struct port *port = &e->port;
	unsigned int i;
	int err = 0;

	memset(e, 0, sizeof(*e));
	port->peers_dir = -1;
	port->start_ns = clock_now_ns();
	options_parse(argc, argv, &e->cfg);
	err = port_init_lanes(port, 1);
	for (i = 0; !err && i <= e->cfg.n_taps; i++)
		err = device_init(&e->dev[i], &e->cfg, port, i);
	if (!err)
		err = port_peers_open(port, &e->cfg);
	if (!err)
		err = ring_init(&port->ring[0], ENV_RING);
	if (err) {
		printf("Bail out! set-up: %s\n", strerror(-err));
		exit(1);
	}
	port->n_rings = 1;
	err = underlay_open(port->ul, 1, &e->cfg, &port->peers);
	e->tap = true;
	for (i = 0; !err && i < port->n_dev; i++) {
		struct device *d = port->dev[i];

		err = device_open(d);
		if (err && !env_root && d->q[0].tap_fd < 0) {
			e->tap = false;
			d->link = link_open();
			err = d->link ? 0 : -EIO;
		}
	}
	e->loop = ev_loop_new(EVFLAG_AUTO);
	if (err || !e->loop) {
		printf("Bail out! set-up: %s\n", strerror(-err));
		exit(1);
	}
	port->lane[0].loop = e->loop;
	for (i = 0; i < port->n_dev; i++)
		port->dev[i]->loop = e->loop;
}

static inline void env_close(struct env *e)
{
	struct port *port = &e->port;
	unsigned int i;

	ev_loop_destroy(e->loop);
	for (i = 0; i < port->n_dev; i++)
		device_close(port->dev[i]);
	underlay_close(&port->ul[0]);
	port_free_lanes(port);
	port_peers_close(port);
	ring_exit(&port->ring[0]);
	cfg_free(&e->cfg);
}

/* The slot of the peer at text address s, or -ENOENT. */
static inline int env_peer(const struct env *e, const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return peers_find(&e->port.peers, (const uint8_t *)&a);
}

/* What the log says between env_log_start() and env_log_end(). */
static FILE *env_log_file;
static int env_log_saved = -1;

static inline void env_log_start(void)
{
	fflush(stderr);
	env_log_file = tmpfile();
	env_log_saved = dup(STDERR_FILENO);
	if (!env_log_file || env_log_saved < 0) {
		printf("Bail out! no temporary file\n");
		exit(1);
	}
	dup2(fileno(env_log_file), STDERR_FILENO);
}

/* The text logged since env_log_start(), also shown as TAP comments. */
static inline const char *env_log_end(void)
{
	static char text[16384];
	const char *p;
	size_t n;

	fflush(stderr);
	dup2(env_log_saved, STDERR_FILENO);
	close(env_log_saved);
	rewind(env_log_file);
	n = fread(text, 1, sizeof(text) - 1, env_log_file);
	text[n] = '\0';
	fclose(env_log_file);
	for (p = text; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("# log: %.*s\n", len, p);
		p += len + (nl != NULL);
	}
	return text;
}

/* How many times needle is in text. */
static inline int env_count(const char *text, const char *needle)
{
	int n = 0;

	for (text = strstr(text, needle); text; text = strstr(text + 1, needle))
		n++;
	return n;
}

/* "ok N - what # SKIP why", for a check that cannot be made here. */
static inline void env_skip(const char *why, const char *what)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
}

#endif
