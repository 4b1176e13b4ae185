// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of what the route watch makes of rtnetlink notifications
 * (link_changes_parse()) and of which peers' routes they may have changed
 * (link_changes_touch()): a route of a prefix that holds the peer, a
 * default route, a change of the peer's last interface or of a route
 * through it; not a route of another prefix or family, nor another
 * interface.
 */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "sys/link.h"
#include "tap.h"

/* Netlink headers are read in place: aligned as the kernel's. */
static uint32_t words[4096];
static char *const buf = (char *)words;
static size_t used;

/* A route notification's header, at the end of buf. */
static struct nlmsghdr *put_route_head(int type, int family, int plen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + used);
	struct rtmsg *rtm;

	nlh->nlmsg_type = type;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	return nlh;
}

/* A route notification through link 7; dst NULL: a default route. */
static void put_route(int type, int family, const char *dst, int plen)
{
	struct nlmsghdr *nlh = put_route_head(type, family, plen);
	uint8_t addr[16];

	if (dst) {
		inet_pton(family, dst, addr);
		mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, addr);
	}
	mnl_attr_put_u32(nlh, RTA_OIF, 7);
	used += nlh->nlmsg_len;
}

/* An IPv4 multipath route through links a and b. */
static void put_multipath(const char *dst, int plen, int a, int b)
{
	struct nlmsghdr *nlh = put_route_head(RTM_NEWROUTE, AF_INET, plen);
	struct rtnexthop *nh;
	struct nlattr *mp;
	uint8_t addr[4];

	inet_pton(AF_INET, dst, addr);
	mnl_attr_put(nlh, RTA_DST, sizeof(addr), addr);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	nh = mnl_nlmsg_get_payload_tail(nlh);
	memset(nh, 0, 2 * sizeof(*nh));
	nh[0].rtnh_len = nh[1].rtnh_len = sizeof(*nh);
	nh[0].rtnh_ifindex = a;
	nh[1].rtnh_ifindex = b;
	nlh->nlmsg_len += 2 * sizeof(*nh);
	mnl_attr_nest_end(nlh, mp);
	used += nlh->nlmsg_len;
}

static void put_link(int type, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + used);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	used += nlh->nlmsg_len;
}

static void parse(struct link_changes *c)
{
	memset(c, 0, sizeof(*c));
	link_changes_parse(c, buf, used);
	used = 0;
}

static struct ipaddr addr(int family, const char *s)
{
	struct ipaddr a = { .family = family };

	inet_pton(family, s, &a.addr);
	return a;
}

static void test_routes(void)
{
	struct ipaddr p4 = addr(AF_INET, "198.18.5.7");
	struct ipaddr q4 = addr(AF_INET, "198.19.0.1");
	struct ipaddr p6 = addr(AF_INET6, "fd00:198:18:5::7");
	struct link_changes c;

	put_route(RTM_NEWROUTE, AF_INET, "10.99.1.0", 24);
	parse(&c);
	ok(c.any && !c.all && c.n_routes == 1 && c.routes[0].prefix == 24,
	   "a route notification: one route, its prefix length");
	ok(!link_changes_touch(&c, &p4, 3),
	   "a pod's route (10.99.1.0/24) leaves a peer in 198.18/15 alone");

	put_route(RTM_DELROUTE, AF_INET, "198.18.5.0", 24);
	parse(&c);
	ok(link_changes_touch(&c, &p4, 3),
	   "a route removed of a prefix that holds the peer: look again");
	ok(!link_changes_touch(&c, &q4, 3), "but not at a peer outside it");

	put_route(RTM_NEWROUTE, AF_INET, "198.18.5.7", 32);
	parse(&c);
	ok(link_changes_touch(&c, &p4, 3), "a host route to the peer");

	put_route(RTM_NEWROUTE, AF_INET, "198.18.0.0", 15);
	parse(&c);
	ok(link_changes_touch(&c, &p4, 3) && link_changes_touch(&c, &q4, 3),
	   "a /15 holds both peers");

	put_route(RTM_NEWROUTE, AF_INET, NULL, 0);
	parse(&c);
	ok(link_changes_touch(&c, &p4, 3) && !link_changes_touch(&c, &p6, 3),
	   "a default route: every IPv4 peer, no IPv6 one");

	put_route(RTM_NEWROUTE, AF_INET6, "fd00:198:18:5::", 64);
	parse(&c);
	ok(link_changes_touch(&c, &p6, 3) && !link_changes_touch(&c, &p4, 3),
	   "an IPv6 /64 holds the IPv6 peer, not the IPv4 one");

	put_route(RTM_NEWROUTE, AF_INET6, "fd00:198:18:6::", 64);
	parse(&c);
	ok(!link_changes_touch(&c, &p6, 3), "another /64 does not");

	/* An IPv6 destination in an IPv4 route: taken as everything. */
	{
		struct nlmsghdr *nlh;
		uint8_t a6[16] = { 10, 99 };

		nlh = put_route_head(RTM_NEWROUTE, AF_INET, 16);
		mnl_attr_put(nlh, RTA_DST, sizeof(a6), a6);
		used += nlh->nlmsg_len;
	}
	parse(&c);
	ok(link_changes_touch(&c, &p4, 3),
	   "a route whose RTA_DST is not of its family's length: everything");

	/* A prefix length the address cannot have: taken as everything. */
	put_route(RTM_NEWROUTE, AF_INET, "10.99.1.0", 40);
	parse(&c);
	ok(link_changes_touch(&c, &p4, 3),
	   "a route whose prefix length is beyond its family: everything");
}

static void test_links(void)
{
	struct ipaddr p4 = addr(AF_INET, "198.18.5.7");
	struct link_changes c;

	put_link(RTM_NEWLINK, 9);
	parse(&c);
	ok(c.any && c.n_links == 1 && c.links[0] == 9,
	   "a link notification: its ifindex");
	ok(!link_changes_touch(&c, &p4, 3),
	   "another link (a tap's MTU, a pod's veth) leaves the peer alone");
	ok(link_changes_touch(&c, &p4, 9),
	   "the link the peer's route went through: look again");
	ok(link_changes_touch_link(&c, 9) && !link_changes_touch_link(&c, 3) &&
	   !link_changes_touch_link(&c, 0),
	   "the link alone: that one, not another, not none");

	put_link(RTM_DELLINK, 3);
	put_route(RTM_NEWROUTE, AF_INET, "10.99.2.0", 24);
	put_link(RTM_NEWLINK, 4);
	parse(&c);
	ok(c.n_links == 3 && c.n_routes == 1 && link_changes_touch(&c, &p4, 3),
	   "several in one read: each counts, a route's link too");
	ok(link_changes_touch(&c, &p4, 7),
	   "a route through the peer's link, of another prefix: look again");

	put_link(RTM_NEWLINK, 5);
	put_link(RTM_NEWLINK, 5);
	put_route(RTM_DELROUTE, AF_INET6, "fe80::", 64);
	put_route(RTM_DELROUTE, AF_INET6, "ff00::", 8);
	parse(&c);
	ok(c.n_links == 2 && c.n_routes == 2 && !c.all,
	   "a link said twice, two routes through one: each link once");

	put_multipath("10.99.5.0", 24, 11, 12);
	parse(&c);
	ok(link_changes_touch(&c, &p4, 12) && !link_changes_touch(&c, &p4, 3),
	   "a multipath route: the links of its next hops");
}

static void test_limits(void)
{
	struct ipaddr p4 = addr(AF_INET, "198.18.5.7");
	struct link_changes c;
	struct nlmsghdr *nlh;
	int i;

	for (i = 0; i < LINK_CHANGES_MAX; i++)
		put_route(RTM_NEWROUTE, AF_INET, "10.99.3.0", 24);
	parse(&c);
	ok(!c.all && !link_changes_touch(&c, &p4, 3),
	   "%d unrelated routes: still told apart", LINK_CHANGES_MAX);
	for (i = 0; i <= LINK_CHANGES_MAX; i++)
		put_route(RTM_NEWROUTE, AF_INET, "10.99.3.0", 24);
	parse(&c);
	ok(c.all && link_changes_touch(&c, &p4, 3),
	   "one more than fit: everything may have changed");

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWROUTE;
	used = nlh->nlmsg_len;
	parse(&c);
	ok(c.any && !c.n_routes && c.all,
	   "a route notification too short to read: everything");

	put_route(RTM_NEWROUTE, AF_INET, "10.99.4.0", 24);
	nlh = mnl_nlmsg_put_header(buf + used);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_len = 44;	/* more than the buffer holds */
	used += 20;
	parse(&c);
	ok(c.any && c.all, "a buffer cut in a message: everything");

	for (i = 0; i <= LINK_CHANGES_MAX; i++)
		put_link(RTM_NEWLINK, 100 + i);
	parse(&c);
	ok(c.all, "one link more than fit: everything");

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	used = nlh->nlmsg_len;
	parse(&c);
	ok(c.any && c.all, "a link notification too short to read: everything");

	put_link(RTM_NEWADDR, 3);
	parse(&c);
	ok(!c.any, "an address notification is no change of route or link");

	ok(link_changes_touch(NULL, &p4, 0), "no changes given: everything");
	memset(&c, 0, sizeof(c));
	ok(!link_changes_touch(&c, &p4, 3), "none (peers changed): no peer");
}

int main(void)
{
	plan(28);
	test_routes();
	test_links();
	test_limits();
	return done_testing();
}
