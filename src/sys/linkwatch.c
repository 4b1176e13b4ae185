// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtnetlink's notifications of link and route changes, by which
 * path.c follows the underlay: what a read saw, and what it may touch.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "base/log.h"
#include "conf/optvalue.h"
#include "sys/link-priv.h"
#include "sys/link.h"

/* A watch of the legacy groups mask, or of group (RTNLGRP_*, 0: none). */
struct link_watch *link_watch_new(unsigned int groups, int group)
{
	struct link_watch *w;

	w = calloc(1, sizeof(*w));
	if (!w) {
		log_err_errno("cannot allocate netlink state");
		return NULL;
	}
	w->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!w->nl || mnl_socket_bind(w->nl, groups, MNL_SOCKET_AUTOPID) < 0 ||
	    (group && mnl_socket_setsockopt(w->nl, NETLINK_ADD_MEMBERSHIP,
					    &group, sizeof(group)) < 0)) {
		link_watch_close(w);
		return NULL;
	}
	w->portid = mnl_socket_get_portid(w->nl);
	w->seq = (unsigned int)time(NULL);
	return w;
}

struct link_watch *link_watch_open(void)
{
	struct link_watch *w = link_watch_new(RTMGRP_LINK | RTMGRP_IPV4_ROUTE |
					      RTMGRP_IPV6_ROUTE, 0);

	if (!w)
		log_err_errno("cannot listen to rtnetlink link and route "
			      "changes");
	return w;
}

void link_watch_close(struct link_watch *w)
{
	if (!w)
		return;
	if (w->nl)
		mnl_socket_close(w->nl);
	free(w);
}

int link_watch_fd(const struct link_watch *w)
{
	return mnl_socket_get_fd(w->nl);
}

/* Link ifindex changed, or a route through it: once in c->links. */
static void link_changes_add_link(struct link_changes *c, unsigned int ifindex)
{
	unsigned int i;

	for (i = 0; i < c->n_links; i++)
		if (c->links[i] == ifindex)
			return;
	if (c->n_links == LINK_CHANGES_MAX)
		c->all = true;
	else
		c->links[c->n_links++] = ifindex;
}

/* The interfaces of a multipath route's next hops. */
static void link_changes_nexthops(struct link_changes *c,
				  const struct nlattr *a)
{
	const struct rtnexthop *nh = mnl_attr_get_payload(a);
	int left = (int)mnl_attr_get_payload_len(a);

	while (RTNH_OK(nh, left)) {
		link_changes_add_link(c, (unsigned int)nh->rtnh_ifindex);
		left -= RTNH_ALIGN(nh->rtnh_len);
		nh = RTNH_NEXT(nh);
	}
}

/*
 * A route's prefix, and its interfaces as links that changed: routes the
 * kernel removes without a word (those of an address deleted, of a link
 * gone down) leave only the routes of that address, or the link, said.
 */
static void link_changes_route(struct link_changes *c,
			       const struct nlmsghdr *nlh)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct nlattr *a;
	struct cidr *r;
	size_t len;

	/* What cannot be read may be any change. */
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*rtm)) {
		c->all = true;
		return;
	}
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return;
	if (c->n_routes == LINK_CHANGES_MAX) {
		c->all = true;
		return;
	}
	/* No RTA_DST (a default route) or none that reads: every address. */
	r = &c->routes[c->n_routes++];
	memset(r, 0, sizeof(*r));
	r->family = rtm->rtm_family;
	len = rtm->rtm_family == AF_INET ? 4 : 16;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_DST:
			if (mnl_attr_get_payload_len(a) != len ||
			    rtm->rtm_dst_len > 8 * len)
				break;
			memcpy(&r->addr, mnl_attr_get_payload(a), len);
			r->prefix = rtm->rtm_dst_len;
			break;
		case RTA_OIF:
			if (mnl_attr_get_payload_len(a) == sizeof(uint32_t))
				link_changes_add_link(c, mnl_attr_get_u32(a));
			break;
		case RTA_MULTIPATH:
			link_changes_nexthops(c, a);
			break;
		}
	}
}

static void link_changes_link(struct link_changes *c,
			      const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*ifi))
		c->all = true;
	else
		link_changes_add_link(c, (unsigned int)ifi->ifi_index);
}

static void link_changes_one(struct link_changes *c, const struct nlmsghdr *nlh)
{
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		c->any = true;
		link_changes_link(c, nlh);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		c->any = true;
		link_changes_route(c, nlh);
		break;
	}
}

/* A buffer that does not read to its end may have held any change. */
void link_changes_parse(struct link_changes *c, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = len > INT_MAX ? INT_MAX : (int)len;

	for (; link_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left))
		link_changes_one(c, nlh);
	if (left)
		c->any = c->all = true;
}

/*
 * Everything the kernel queued. A full socket buffer (ENOBUFS) lost some
 * notifications, one too big for the buffer (ENOSPC: MSG_TRUNC) lost its
 * end: then everything may have changed.
 */
void link_watch_read(struct link_watch *w, struct link_changes *c)
{
	ssize_t n;

	memset(c, 0, offsetof(struct link_changes, routes));
	for (;;) {
		n = mnl_socket_recvfrom(w->nl, w->buf, sizeof(w->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == ENOBUFS || errno == ENOSPC)) {
			c->any = c->all = true;
			continue;
		}
		if (n < 0)
			break;
		link_changes_parse(c, w->buf, (size_t)n);
	}
}

bool link_changes_touch_link(const struct link_changes *c, unsigned int oif)
{
	unsigned int i;

	if (!c || c->all)
		return true;
	for (i = 0; oif && i < c->n_links; i++)
		if (c->links[i] == oif)
			return true;
	return false;
}

/*
 * A route lookup takes the longest prefix that holds the address: a
 * route of such a prefix added or removed can change it, and a change of
 * the link it went out of, or of a route through that link (which may be
 * all that is said when the kernel removes routes of its own). Next-hop
 * objects and rules are not watched; the ten-second look finds those.
 */
bool link_changes_touch(const struct link_changes *c, const struct ipaddr *dst,
			unsigned int oif)
{
	unsigned int i;

	if (link_changes_touch_link(c, oif))
		return true;
	for (i = 0; i < c->n_routes; i++)
		if (c->routes[i].family == dst->family &&
		    optvalue_cidr_contains(&c->routes[i],
					   (const uint8_t *)&dst->addr))
			return true;
	return false;
}
