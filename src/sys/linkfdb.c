// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtnetlink's bridge forwarding databases, which --evpn reads and
 * writes (evpn.c): an entry set, all dumped, and their changes watched.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "base/log.h"
#include "base/mac.h"
#include "sys/link-priv.h"
#include "sys/link.h"

/*
 * `bridge fdb add|del MAC dev PORT master static`: an entry of the
 * bridge PORT is in, NUD_NOARP (iproute2's "static"; "permanent"
 * would be an address of the bridge's own). REPLACE makes a restart with
 * the entry still there succeed.
 */
int link_fdb_set(struct link *l, unsigned int port,
		 const uint8_t mac[MAC_LEN], bool add)
{
	struct nlmsghdr *nlh;
	struct link_reply r = { 0 };
	char name[32], text[MAC_TEXT_LEN];
	struct ndmsg *ndm;
	int ret;

	nlh = add ? link_req(l, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE)
		  : link_req(l, RTM_DELNEIGH, 0);
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = PF_BRIDGE;
	ndm->ndm_ifindex = (int)port;
	ndm->ndm_state = NUD_NOARP;
	ndm->ndm_flags = NTF_MASTER;
	mnl_attr_put(nlh, NDA_LLADDR, MAC_LEN, mac);
	ret = link_talk(l, NULL, &r);
	if (!add && ret == -ENOENT)
		ret = 0;
	/* At debug level: its caller says it, rate limited (evpn.c). */
	if (ret < 0)
		link_log(LOG_LVL_DEBUG, ret, &r, "cannot %s fdb entry %s on %s",
			 add ? "add" : "delete", mac_ntoa(mac, text),
			 link_name(l, port, name, sizeof(name)));
	return ret;
}

/*
 * The forwarding database watch, whose dumps and notifications read
 * alike (a dump says what is, a notification what changed); neighbours
 * of other families are passed over.
 */
/*
 * The fdb watch's receive buffer: a fabric that adds thousands of MACs
 * at once (a host's VMs, a route reflector's resend) overruns the
 * default (rmem_default) and costs a dump each time; zebra's own socket
 * asks far more (nl_rcvbufsize). Forced past rmem_max with
 * CAP_NET_ADMIN, else as much as rmem_max lets.
 */
#define LINK_FDB_RCVBUF (8 << 20)

struct link_watch *link_fdb_watch_open(void)
{
	struct link_watch *w = link_watch_new(0, RTNLGRP_NEIGH);
	int size = LINK_FDB_RCVBUF, group = RTNLGRP_LINK, fd;

	if (w && mnl_socket_setsockopt(w->nl, NETLINK_ADD_MEMBERSHIP, &group,
				       sizeof(group)) < 0) {
		link_watch_close(w);
		w = NULL;
	}
	if (!w) {
		log_err_errno("cannot listen to forwarding database changes");
		return NULL;
	}
	fd = mnl_socket_get_fd(w->nl);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return w;
}

int link_fdb_dump(struct link_watch *w)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(w->buf);
	struct ndmsg *ndm;

	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++w->seq;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = PF_BRIDGE;
	if (mnl_socket_sendto(w->nl, nlh, nlh->nlmsg_len) < 0) {
		log_err_errno("cannot ask for the forwarding database");
		return -errno;
	}
	w->dump.seq = nlh->nlmsg_seq;
	w->dump.intr = false;
	return 0;
}

/* NDA_DST: the VTEP of a vxlan device's entry. */
static void link_fdb_dst(const struct nlattr *a, struct ipaddr *dst)
{
	size_t len = mnl_attr_get_payload_len(a);

	if (len == sizeof(struct in_addr))
		dst->family = AF_INET;
	else if (len == sizeof(struct in6_addr))
		dst->family = AF_INET6;
	else
		return;
	memcpy(&dst->addr, mnl_attr_get_payload(a), len);
}

/* One RTM_NEWNEIGH or RTM_DELNEIGH of AF_BRIDGE into *e; false if not. */
static bool link_fdb_read_one(const struct nlmsghdr *nlh, struct link_fdb *e)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	bool mac = false;

	memset(e, 0, sizeof(*e));
	if (ndm->ndm_family != PF_BRIDGE)
		return false;
	e->del = nlh->nlmsg_type == RTM_DELNEIGH;
	e->ifindex = (unsigned int)ndm->ndm_ifindex;
	e->state = ndm->ndm_state;
	e->flags = ndm->ndm_flags;
	mnl_attr_for_each(a, nlh, sizeof(*ndm)) {
		switch (mnl_attr_get_type(a)) {
		case NDA_LLADDR:
			if (mnl_attr_get_payload_len(a) != MAC_LEN)
				break;
			memcpy(e->mac, mnl_attr_get_payload(a), MAC_LEN);
			mac = true;
			break;
		case NDA_DST:
			link_fdb_dst(a, &e->dst);
			break;
		case NDA_VLAN:
			if (!mnl_attr_validate(a, MNL_TYPE_U16))
				e->vlan = mnl_attr_get_u16(a);
			break;
		case NDA_MASTER:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				e->master = mnl_attr_get_u32(a);
			break;
		}
	}
	return mac;
}

/*
 * The error a dump ended with: that of its NLMSG_ERROR, or of its
 * NLMSG_DONE (netlink_dump_done() puts the dump's there), else 0.
 */
static int link_fdb_dump_err(const struct nlmsghdr *nlh)
{
	int err = 0;

	if (nlh->nlmsg_len >= MNL_NLMSG_HDRLEN + sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (nlh->nlmsg_type == NLMSG_ERROR && !err)
		err = -EPROTO;		/* an ack: never asked for */
	return err < 0 ? err : 0;
}

/* The end of the dump d, if nlh is of it: ops->dumped(). */
static void link_fdb_dump_end(struct link_fdb_dump *d,
			      const struct nlmsghdr *nlh,
			      const struct link_fdb_ops *ops, void *ctx)
{
	int err = link_fdb_dump_err(nlh);

	if (!d->seq || nlh->nlmsg_seq != d->seq)
		return;
	if (!err && (d->intr || (nlh->nlmsg_flags & NLM_F_DUMP_INTR)))
		err = -EINTR;
	d->seq = 0;
	ops->dumped(ctx, err);
}

/* A device deleted: to ops->link_gone(); false if it does not read. */
static bool link_fdb_link_gone(const struct nlmsghdr *nlh,
			       const struct link_fdb_ops *ops, void *ctx)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*ifi))
		return false;
	if (ops->link_gone && ifi->ifi_index > 0)
		ops->link_gone(ctx, (unsigned int)ifi->ifi_index);
	return true;
}

/* One message: an entry, a dump's end, or one that does not read. */
static bool link_fdb_one(struct link_fdb_dump *d, const struct nlmsghdr *nlh,
			 const struct link_fdb_ops *ops, void *ctx)
{
	struct link_fdb e;

	switch (nlh->nlmsg_type) {
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(struct ndmsg))
			return false;
		/* The kernel saw the table change under the dump. */
		if (d->seq && nlh->nlmsg_seq == d->seq &&
		    (nlh->nlmsg_flags & NLM_F_DUMP_INTR))
			d->intr = true;
		if (link_fdb_read_one(nlh, &e))
			ops->entry(ctx, &e);
		return true;
	case NLMSG_DONE:
	case NLMSG_ERROR:
		link_fdb_dump_end(d, nlh, ops, ctx);
		return true;
	case RTM_DELLINK:
		return link_fdb_link_gone(nlh, ops, ctx);
	}
	return true;
}

unsigned int link_fdb_parse(struct link_fdb_dump *d, const void *buf,
			    size_t len, const struct link_fdb_ops *ops,
			    void *ctx)
{
	const struct nlmsghdr *nlh = buf;
	int left = len > INT_MAX ? INT_MAX : (int)len;
	unsigned int n = 0;
	bool lost = false;

	for (; link_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left), n++)
		lost |= !link_fdb_one(d, nlh, ops, ctx);
	if (left || lost)
		ops->lost(ctx);
	return n;
}

/*
 * A full socket buffer (ENOBUFS) lost notifications, one too big for
 * the buffer (ENOSPC) its end: ops->lost() then, for a dump of
 * everything again.
 */
bool link_fdb_watch_read(struct link_watch *w, const struct link_fdb_ops *ops,
			 void *ctx, unsigned int max)
{
	unsigned int n = 0;
	ssize_t r;

	while (n < max) {
		r = mnl_socket_recvfrom(w->nl, w->buf, sizeof(w->buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == ENOSPC && w->dump.seq) {
			/* Its end may be what was cut: over, failed. */
			w->dump.seq = 0;
			ops->dumped(ctx, -ENOSPC);
		}
		if (r < 0 && (errno == ENOBUFS || errno == ENOSPC)) {
			ops->lost(ctx);
			continue;
		}
		if (r < 0)
			return false;
		n += link_fdb_parse(&w->dump, w->buf, (size_t)r, ops, ctx);
	}
	return true;
}
