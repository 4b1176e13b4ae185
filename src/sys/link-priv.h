/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What link.c and the files of its jobs (linkdev.c, linkroute.c,
 * linkwatch.c, linkfdb.c) share, and no one else reads.
 */
#ifndef GSOTUN_LINK_PRIV_H
#define GSOTUN_LINK_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include "base/mac.h"
#include "sys/link.h"

/*
 * Large enough for a whole RTM_NEWLINK reply with its statistics: the
 * kernel truncates what does not fit and recvfrom() then fails.
 */
#define LINK_BUF_SIZE 32768

struct link {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	/* Requests are built here and replies read into it. */
	uint32_t buf[LINK_BUF_SIZE / sizeof(uint32_t)];
};

/* What one request brought back: reply values and the kernel's reason. */
struct link_reply {
	uint32_t oif; /* RTA_OIF of a route */
	uint32_t mtu; /* RTAX_MTU of a route, IFLA_MTU of a link */
	unsigned int flags; /* ifi_flags of a link */
	unsigned int ifindex; /* ifi_index of a link */
	uint8_t mac[MAC_LEN]; /* IFLA_ADDRESS of a link */
	bool has_mac;
	int family; /* rtm_family of a route */
	unsigned int dst_len; /* rtm_dst_len of a route */
	struct ipaddr src; /* RTA_PREFSRC of a route */
	char name[IF_NAMESIZE]; /* IFLA_IFNAME of a link */
	char why[128]; /* NLMSGERR_ATTR_MSG of a failed request */
};

/*
 * The watch: a second rtnetlink socket that only listens to the link and
 * route multicast groups, so a change of the underlay (an MTU, a route, a
 * link going down) wakes the loop; what changed is asked again on the
 * request socket, which keeps requests and notifications apart. The
 * forwarding database watch is one of RTNLGRP_NEIGH, which also asks for
 * dumps (portid and seq).
 */
struct link_watch {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	struct link_fdb_dump dump;	/* the fdb watch's */
	char buf[LINK_BUF_SIZE];
};

/* Log "what: strerror (kernel's reason)". */
void link_log(int level, int ret, const struct link_reply *r,
	      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An address in text for a message; "(family N)" if it has none. */
const char *link_ntop(int family, const void *addr, char *buf, socklen_t len);
/* A request of type in l->buf, to be sent by link_talk(). */
struct nlmsghdr *link_req(struct link *l, uint16_t type, uint16_t flags);
int link_talk(struct link *l, mnl_cb_t cb, struct link_reply *r);

/* RTM_GETLINK of ifindex: its MTU, flags, MAC and name into *r. */
int link_get_mtu(struct link *l, unsigned int ifindex, struct link_reply *r);

/* A watch of the legacy groups mask, or of group (RTNLGRP_*, 0: none). */
struct link_watch *link_watch_new(unsigned int groups, int group);

static inline size_t link_addr_len(int family)
{
	return family == AF_INET ? sizeof(struct in_addr) :
				   sizeof(struct in6_addr);
}

/* An address of family (AF_INET, AF_INET6) in attr. */
static inline bool link_attr_is_addr(const struct nlattr *attr, int family)
{
	return (family == AF_INET || family == AF_INET6) &&
	       mnl_attr_get_payload_len(attr) == link_addr_len(family);
}

/*
 * Up, and running: IFF_RUNNING is the operational state (netif_oper_up()),
 * which a veth loses when its peer goes down, a NIC with its carrier.
 */
static inline bool link_flags_up(unsigned int flags)
{
	return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

/*
 * A whole message in the left bytes at nlh, as mnl_nlmsg_ok() says, but
 * unsigned: that one takes a length of 2 GiB or more for a negative int,
 * within any buffer, and the next message then far outside it. With its
 * padding too, which the kernel puts after each (nlmsg_put()): libmnl
 * reads attributes up to the aligned end (mnl_nlmsg_get_payload_tail()).
 */
static inline bool link_nlmsg_ok(const struct nlmsghdr *nlh, int left)
{
	return left >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)left &&
	       MNL_ALIGN(nlh->nlmsg_len) <= (unsigned int)left;
}

#endif
