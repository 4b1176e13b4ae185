// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtnetlink's routes: the one the kernel takes to the underlay peer
 * (its path MTU), the host's to a prefix, a tun's added and deleted.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "base/log.h"
#include "sys/link-priv.h"
#include "sys/link.h"

/*
 * What `ip route add|del PREFIX dev DEV` sends: a unicast route of scope
 * link in the main table, protocol boot (iproute2's default). Added
 * with EXCL, as ip route add does, never REPLACE: a route the host has
 * to PREFIX already (its default route, a connected underlay) is an
 * error, -EEXIST, not replaced. Deleted with the output interface
 * named, so that only a route through DEV goes (fib_nh_match()).
 */
int link_route_dev(struct link *l, unsigned int ifindex, const struct cidr *p,
		   bool add)
{
	struct link_reply r = { 0 };
	char name[32], addr[INET6_ADDRSTRLEN];
	size_t len = link_addr_len(p->family);
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int ret;

	if (p->family != AF_INET && p->family != AF_INET6) {
		ret = -EAFNOSUPPORT;
		goto out;
	}
	nlh = add ? link_req(l, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL)
		  : link_req(l, RTM_DELROUTE, 0);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)p->family;
	rtm->rtm_dst_len = p->prefix;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_scope = RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	if (p->prefix)
		mnl_attr_put(nlh, RTA_DST, len, &p->addr);
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	ret = link_talk(l, NULL, &r);
	/* Gone already (an administrator's ip route del): what was asked. */
	if (!add && ret == -ESRCH)
		ret = 0;
out:
	/* The caller says which route of the host's is in the way. */
	if (ret < 0 && !(add && ret == -EEXIST))
		link_log(LOG_LVL_ERR, ret, &r, "cannot %s route %s/%u %s %s",
			 add ? "add" : "delete",
			 link_ntop(p->family, &p->addr, addr, sizeof(addr)),
			 p->prefix, add ? "to" : "from",
			 link_name(l, ifindex, name, sizeof(name)));
	return ret;
}

static int link_metric_cb(const struct nlattr *attr, void *data)
{
	struct link_reply *r = data;

	if (mnl_attr_get_type(attr) == RTAX_MTU &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		r->mtu = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int link_route_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_reply *r = data;

	switch (mnl_attr_get_type(attr)) {
	case RTA_OIF:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			r->oif = mnl_attr_get_u32(attr);
		break;
	case RTA_METRICS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
			mnl_attr_parse_nested(attr, link_metric_cb, r);
		break;
	case RTA_PREFSRC:
		if (link_attr_is_addr(attr, r->family)) {
			r->src.family = r->family;
			memcpy(&r->src.addr, mnl_attr_get_payload(attr),
			       link_addr_len(r->family));
		}
		break;
	}
	return MNL_CB_OK;
}

static int link_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct link_reply *r = data;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct rtmsg))
		return MNL_CB_OK;
	/* The family says how long RTA_PREFSRC is. */
	r->family = rtm->rtm_family;
	r->dst_len = rtm->rtm_dst_len;
	return mnl_attr_parse(nlh, sizeof(struct rtmsg), link_route_attr_cb,
			      data);
}

/*
 * As `ip route get dst [from src]`: the route the kernel would use for
 * dst now, from a socket bound to src (NULL: to none). flags:
 * RTM_F_FIB_MATCH for the table's entry (`fibmatch`), not the host
 * route a lookup makes of it.
 */
static int link_get_route(struct link *l, const struct ipaddr *dst,
			  const struct ipaddr *src, unsigned int flags,
			  struct link_reply *r)
{
	struct nlmsghdr *nlh = link_req(l, RTM_GETROUTE, 0);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	size_t len = link_addr_len(dst->family);

	rtm->rtm_flags = flags;
	rtm->rtm_family = (uint8_t)dst->family;
	rtm->rtm_dst_len = (uint8_t)(len * 8);
	mnl_attr_put(nlh, RTA_DST, len, &dst->addr);
	if (src && src->family == dst->family) {
		rtm->rtm_src_len = (uint8_t)(len * 8);
		mnl_attr_put(nlh, RTA_SRC, len, &src->addr);
	}
	return link_talk(l, link_route_cb, r);
}

/*
 * The route's MTU metric covers both `ip route ... mtu [lock] N` and a
 * PMTU the kernel has learnt for dst (a cached exception). Failures are
 * warnings: the caller may fall back to a default MTU.
 */
int link_route_get(struct link *l, const struct ipaddr *dst,
		   const struct ipaddr *src, bool quiet, struct link_route *out)
{
	struct link_reply route = { 0 }, dev = { 0 };
	char addr[INET6_ADDRSTRLEN], name[32];
	int level = quiet ? LOG_LVL_DEBUG : LOG_LVL_WARN;
	int ret;

	memset(out, 0, sizeof(*out));
	link_ntop(dst->family, &dst->addr, addr, sizeof(addr));
	if (dst->family != AF_INET && dst->family != AF_INET6) {
		link_log(level, -EAFNOSUPPORT, &route,
			 "cannot look up route to %s", addr);
		return -EAFNOSUPPORT;
	}
	ret = link_get_route(l, dst, src, 0, &route);
	if (ret < 0) {
		link_log(level, ret, &route,
			 "cannot look up route to %s", addr);
		return ret;
	}
	out->src = route.src;
	out->oif = route.oif;
	if (!route.oif && route.mtu) {
		out->mtu = route.mtu;
		out->oif_up = true;
		return 0;
	}
	if (!route.oif) {
		link_log(level, -ENODEV, &route,
			 "route to %s has no output interface", addr);
		return -ENODEV;
	}
	ret = link_get_mtu(l, route.oif, &dev);
	if (ret == 0 && !dev.mtu && !route.mtu)
		ret = -ENODATA;
	if (ret < 0) {
		link_log(level, ret, &dev,
			 "cannot read MTU of %s (route to %s)",
			 link_name(l, route.oif, name, sizeof(name)), addr);
		return ret;
	}
	out->mtu = route.mtu ? route.mtu : dev.mtu;
	out->oif_up = link_flags_up(dev.flags);
	return 0;
}

int link_route_entry(struct link *l, const struct ipaddr *dst,
		     const struct ipaddr *src, unsigned int *len,
		     unsigned int *oif)
{
	struct link_reply r = { 0 };
	int ret;

	if (dst->family != AF_INET && dst->family != AF_INET6)
		return -EAFNOSUPPORT;
	ret = link_get_route(l, dst, src, RTM_F_FIB_MATCH, &r);
	if (!ret && r.family != dst->family)
		ret = -ENETUNREACH;
	*len = ret ? 0 : r.dst_len;
	*oif = ret ? 0 : r.oif;
	return ret;
}

/* A dump of the main table for the routes to one prefix. */
struct link_route_scan {
	struct link_reply r;	/* first: link_talk() hands it on */
	const struct cidr *p;
	unsigned int ifindex;	/* ours */
	bool dst_ok;		/* the route at hand: to p */
	uint32_t table, oif;	/* its table and device */
	bool ours, other;	/* routes to p through ifindex, others */
};

static int link_route_scan_attr(const struct nlattr *attr, void *data)
{
	struct link_route_scan *s = data;

	switch (mnl_attr_get_type(attr)) {
	case RTA_DST:
		s->dst_ok = link_attr_is_addr(attr, s->p->family) &&
			    !memcmp(mnl_attr_get_payload(attr), &s->p->addr,
				    link_addr_len(s->p->family));
		break;
	case RTA_OIF:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			s->oif = mnl_attr_get_u32(attr);
		break;
	case RTA_TABLE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			s->table = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

/* What a scan found, as link_route_find() says it. */
static int link_route_scan_end(const struct link_route_scan *s)
{
	return s->other ? -EEXIST : s->ours;
}

static int link_route_scan_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct link_route_scan *s = data;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm) ||
	    rtm->rtm_family != s->p->family ||
	    rtm->rtm_dst_len != s->p->prefix)
		return MNL_CB_OK;
	/* A route without RTA_DST is a default route. */
	s->dst_ok = !s->p->prefix;
	s->table = rtm->rtm_table;
	s->oif = 0;
	mnl_attr_parse(nlh, sizeof(*rtm), link_route_scan_attr, s);
	if (s->dst_ok && s->table == RT_TABLE_MAIN) {
		s->ours |= s->oif && s->oif == s->ifindex;
		s->other |= s->oif != s->ifindex;
	}
	return MNL_CB_OK;
}

int link_route_find(struct link *l, const struct cidr *p, unsigned int ifindex)
{
	struct nlmsghdr *nlh = link_req(l, RTM_GETROUTE, NLM_F_DUMP);
	struct link_route_scan s = { .p = p, .ifindex = ifindex };
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	int ret;

	if (p->family != AF_INET && p->family != AF_INET6)
		return -EAFNOSUPPORT;
	rtm->rtm_family = (uint8_t)p->family;
	ret = link_talk(l, link_route_scan_cb, &s.r);
	if (ret < 0)
		return ret;
	return link_route_scan_end(&s);
}

int link_route_scan(const void *buf, size_t len, const struct cidr *p,
		    unsigned int ifindex)
{
	struct link_route_scan s = { .p = p, .ifindex = ifindex };
	const struct nlmsghdr *nlh = buf;
	int left = len > INT_MAX ? INT_MAX : (int)len;

	for (; link_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left))
		link_route_scan_cb(nlh, &s);
	return link_route_scan_end(&s);
}

/* What a dump of the addresses looks for, and where it was found. */
struct link_addr_scan {
	struct link_reply r;
	const struct ipaddr *a;
	unsigned int ifindex;
};

/* IFA_LOCAL is an IPv4 interface's own address, IFA_ADDRESS an IPv6's. */
static int link_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct link_addr_scan *s = data;
	int family = s->a->family;
	uint16_t want = family == AF_INET ? IFA_LOCAL : IFA_ADDRESS;
	const struct nlattr *attr;

	if (nlh->nlmsg_type != RTM_NEWADDR ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa) ||
	    ifa->ifa_family != family || s->ifindex)
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(attr) == want &&
		    link_attr_is_addr(attr, family) &&
		    !memcmp(mnl_attr_get_payload(attr), &s->a->addr,
			    link_addr_len(family)))
			s->ifindex = ifa->ifa_index;
	}
	return MNL_CB_OK;
}

/*
 * The addresses of a's family dumped and a looked for among them: a dump
 * that changed while it was made (an address added, DAD done) is asked
 * again, a few times.
 */
static int link_addr_find(struct link *l, struct link_addr_scan *s)
{
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	int ret, tries = 3;

	do {
		nlh = link_req(l, RTM_GETADDR, NLM_F_DUMP);
		ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
		ifa->ifa_family = (uint8_t)s->a->family;
		s->ifindex = 0;
		ret = link_talk(l, link_addr_cb, &s->r);
	} while (ret == -EINTR && --tries);
	return ret;
}

int link_addr_mtu(struct link *l, const struct ipaddr *a, uint32_t *mtu)
{
	struct link_addr_scan s = { .a = a };
	struct link_reply dev = { 0 };
	int ret;

	ret = link_addr_find(l, &s);
	if (!ret && !s.ifindex)
		ret = -ENODEV;
	if (!ret)
		ret = link_get_mtu(l, s.ifindex, &dev);
	if (!ret && !dev.mtu)
		ret = -ENODATA;
	*mtu = ret ? 0 : dev.mtu;
	return ret;
}
