// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtnetlink's devices: the tap's MTU, GSO size, MAC, state and
 * addresses set; kernel devices (bridge, vxlan, veth) made, read, deleted.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <libmnl/libmnl.h>
#include "base/log.h"
#include "base/mac.h"
#include "sys/link-priv.h"
#include "sys/link.h"

static struct ifinfomsg *link_put_ifinfo(struct nlmsghdr *nlh,
					 unsigned int ifindex)
{
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	return ifi;
}

/* RTM_NEWLINK without NLM_F_CREATE changes an existing link only. */
static int link_set_u32(struct link *l, unsigned int ifindex, uint16_t type,
			uint32_t val, struct link_reply *r)
{
	struct nlmsghdr *nlh = link_req(l, RTM_NEWLINK, 0);

	link_put_ifinfo(nlh, ifindex);
	mnl_attr_put_u32(nlh, type, val);
	return link_talk(l, NULL, r);
}

int link_set_mtu(struct link *l, unsigned int ifindex, uint32_t mtu)
{
	struct link_reply r = { 0 };
	char name[32];
	int ret;

	ret = link_set_u32(l, ifindex, IFLA_MTU, mtu, &r);
	if (ret < 0)
		link_log(LOG_LVL_ERR, ret, &r, "cannot set MTU %u on %s", mtu,
			 link_name(l, ifindex, name, sizeof(name)));
	return ret;
}

/*
 * Changing gso_max_size or gso_max_segs of an existing link needs Linux
 * 5.19 or later; the caller can live without it, so the failure is only a
 * warning.
 */
static int link_set_gso_limit(struct link *l, unsigned int ifindex,
			      uint16_t type, const char *what, uint32_t val)
{
	struct link_reply r = { 0 };
	char name[32];
	int ret;

	ret = link_set_u32(l, ifindex, type, val, &r);
	if (ret < 0)
		link_log(LOG_LVL_WARN, ret, &r, "cannot set %s %u on %s", what,
			 val, link_name(l, ifindex, name, sizeof(name)));
	return ret;
}

int link_set_gso_max_size(struct link *l, unsigned int ifindex, uint32_t size)
{
	return link_set_gso_limit(l, ifindex, IFLA_GSO_MAX_SIZE,
				  "gso_max_size", size);
}

int link_set_gso_max_segs(struct link *l, unsigned int ifindex, uint32_t segs)
{
	return link_set_gso_limit(l, ifindex, IFLA_GSO_MAX_SEGS,
				  "gso_max_segs", segs);
}

int link_set_up(struct link *l, unsigned int ifindex)
{
	struct nlmsghdr *nlh = link_req(l, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = link_put_ifinfo(nlh, ifindex);
	struct link_reply r = { 0 };
	char name[32];
	int ret;

	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	ret = link_talk(l, NULL, &r);
	if (ret < 0)
		link_log(LOG_LVL_ERR, ret, &r, "cannot bring %s up",
			 link_name(l, ifindex, name, sizeof(name)));
	return ret;
}

int link_set_mac(struct link *l, unsigned int ifindex,
		 const uint8_t mac[MAC_LEN])
{
	struct nlmsghdr *nlh = link_req(l, RTM_NEWLINK, 0);
	struct link_reply r = { 0 };
	char name[32], text[MAC_TEXT_LEN];
	int ret;

	link_put_ifinfo(nlh, ifindex);
	mnl_attr_put(nlh, IFLA_ADDRESS, MAC_LEN, mac);
	ret = link_talk(l, NULL, &r);
	if (ret < 0)
		link_log(LOG_LVL_ERR, ret, &r, "cannot set MAC %s on %s",
			 mac_ntoa(mac, text),
			 link_name(l, ifindex, name, sizeof(name)));
	return ret;
}

int link_add_addr(struct link *l, unsigned int ifindex, const struct cidr *a)
{
	struct link_reply r = { 0 };
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	char name[32], addr[INET6_ADDRSTRLEN];
	size_t len = link_addr_len(a->family);
	int ret;

	if (a->family != AF_INET && a->family != AF_INET6) {
		ret = -EAFNOSUPPORT;
		goto out;
	}
	/* REPLACE makes a restart with the address still there succeed. */
	nlh = link_req(l, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = (uint8_t)a->family;
	ifa->ifa_prefixlen = a->prefix;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	if (a->family == AF_INET) {
		/* IPv4 takes IFA_LOCAL as the address, IFA_ADDRESS as peer. */
		mnl_attr_put(nlh, IFA_LOCAL, len, &a->addr);
	} else {
		/* Usable at once: no duplicate address detection first. */
		ifa->ifa_flags = IFA_F_NODAD;
	}
	mnl_attr_put(nlh, IFA_ADDRESS, len, &a->addr);
	ret = link_talk(l, NULL, &r);
out:
	if (ret < 0)
		link_log(LOG_LVL_ERR, ret, &r, "cannot add address %s/%u to %s",
			 link_ntop(a->family, &a->addr, addr, sizeof(addr)),
			 a->prefix, link_name(l, ifindex, name, sizeof(name)));
	return ret;
}

static int link_mtu_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_reply *r = data;

	if (mnl_attr_get_type(attr) == IFLA_MTU &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		r->mtu = mnl_attr_get_u32(attr);
	if (mnl_attr_get_type(attr) == IFLA_ADDRESS &&
	    mnl_attr_get_payload_len(attr) == MAC_LEN) {
		memcpy(r->mac, mnl_attr_get_payload(attr), MAC_LEN);
		r->has_mac = true;
	}
	if (mnl_attr_get_type(attr) == IFLA_IFNAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(r->name, sizeof(r->name), "%s",
			 mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

static int link_mtu_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct link_reply *r = data;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return MNL_CB_OK;
	r->flags = ifi->ifi_flags;
	r->ifindex = (unsigned int)ifi->ifi_index;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_mtu_attr_cb,
			      data);
}

int link_get_mtu(struct link *l, unsigned int ifindex, struct link_reply *r)
{
	struct nlmsghdr *nlh = link_req(l, RTM_GETLINK, 0);

	link_put_ifinfo(nlh, ifindex);
	return link_talk(l, link_mtu_cb, r);
}

/*
 * Asked on the request socket, not with if_indextoname(), which opens a
 * socket for its ioctl: the running process may open none (sandbox.c).
 */
const char *link_name(struct link *l, unsigned int ifindex, char *buf,
		      size_t len)
{
	struct link_reply r = { 0 };

	if (link_get_mtu(l, ifindex, &r) == 0 && r.name[0])
		snprintf(buf, len, "%s", r.name);
	else
		snprintf(buf, len, "ifindex %u", ifindex);
	return buf;
}

int link_get_mac(struct link *l, unsigned int ifindex, uint8_t mac[MAC_LEN])
{
	struct link_reply r = { 0 };
	int ret = link_get_mtu(l, ifindex, &r);

	if (!ret && !r.has_mac)
		ret = -ENODATA;
	if (!ret)
		memcpy(mac, r.mac, MAC_LEN);
	return ret;
}

/*
 * What a dump of the links found of the kernel's vxlan devices on port;
 * the reply first, as link_talk()'s ACK callback takes it.
 */
struct link_vxlan_scan {
	struct link_reply r;
	uint16_t port;		/* network order */
	unsigned int n;
	struct link_vxlan *first;
};

/* IFLA_INFO_DATA of a vxlan device: *port, and the VNI into v. */
static void link_vxlan_data(const struct nlattr *data, uint16_t *port,
			    struct link_vxlan *v)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, data) {
		uint16_t type = mnl_attr_get_type(a);

		if (type == IFLA_VXLAN_PORT &&
		    !mnl_attr_validate(a, MNL_TYPE_U16))
			*port = mnl_attr_get_u16(a);
		else if (type == IFLA_VXLAN_ID &&
			 !mnl_attr_validate(a, MNL_TYPE_U32))
			v->vni = mnl_attr_get_u32(a);
		else if (type == IFLA_VXLAN_COLLECT_METADATA &&
			 !mnl_attr_validate(a, MNL_TYPE_U8))
			v->external = mnl_attr_get_u8(a);
	}
}

/* IFLA_LINKINFO: a vxlan device's port, or false for another kind. */
static bool link_vxlan_info(const struct nlattr *info, uint16_t *port,
			    struct link_vxlan *v)
{
	const struct nlattr *a, *data = NULL;
	bool vxlan = false;

	mnl_attr_for_each_nested(a, info) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			vxlan = !strcmp(mnl_attr_get_str(a), "vxlan");
		else if (mnl_attr_get_type(a) == IFLA_INFO_DATA)
			data = a;
	}
	if (vxlan && data)
		link_vxlan_data(data, port, v);
	return vxlan;
}

static int link_vxlan_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct link_vxlan_scan *s = data;
	struct link_vxlan v = { .name = "" };
	const struct nlattr *a;
	uint16_t port = 0;
	bool vxlan = false;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    !(ifi->ifi_flags & IFF_UP))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(a) == IFLA_IFNAME &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			snprintf(v.name, sizeof(v.name), "%s",
				 mnl_attr_get_str(a));
		else if (mnl_attr_get_type(a) == IFLA_LINKINFO)
			vxlan = link_vxlan_info(a, &port, &v);
	}
	if (vxlan && port == s->port && !s->n++)
		*s->first = v;
	return MNL_CB_OK;
}

int link_vxlan_on_port(struct link *l, uint16_t port, struct link_vxlan *first)
{
	struct nlmsghdr *nlh = link_req(l, RTM_GETLINK, NLM_F_DUMP);
	struct link_vxlan_scan s = { .port = htons(port), .first = first };
	struct ifinfomsg *ifi;
	int ret;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ret = link_talk(l, link_vxlan_cb, &s.r);
	return ret < 0 ? ret : (int)s.n;
}

int link_is_up(struct link *l, unsigned int ifindex, bool *up)
{
	struct link_reply r = { 0 };
	int ret = link_get_mtu(l, ifindex, &r);

	*up = ret == 0 && link_flags_up(r.flags);
	return ret;
}

/* IFLA_AF_SPEC / AF_INET6: no IPv6 address of its own (addrgenmode). */
static void link_put_no_addrgen(struct nlmsghdr *nlh)
{
	struct nlattr *spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	struct nlattr *in6 = mnl_attr_nest_start(nlh, AF_INET6);

	mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE,
			IN6_ADDR_GEN_MODE_NONE);
	mnl_attr_nest_end(nlh, in6);
	mnl_attr_nest_end(nlh, spec);
}

/*
 * IFLA_INFO_DATA of a vxlan device as `ip link add NAME type vxlan id
 * VNI local ADDR dstport PORT nolearning` says it.
 */
static void link_put_vxlan(struct nlmsghdr *nlh, const struct link_spec *s)
{
	mnl_attr_put_u32(nlh, IFLA_VXLAN_ID, s->vni);
	if (s->local.family == AF_INET)
		mnl_attr_put(nlh, IFLA_VXLAN_LOCAL, sizeof(struct in_addr),
			     &s->local.addr);
	else if (s->local.family == AF_INET6)
		mnl_attr_put(nlh, IFLA_VXLAN_LOCAL6, sizeof(struct in6_addr),
			     &s->local.addr);
	mnl_attr_put_u16(nlh, IFLA_VXLAN_PORT, htons(s->port));
	mnl_attr_put_u8(nlh, IFLA_VXLAN_LEARNING, 0);
}

/* VETH_INFO_PEER: the other end, an ifinfomsg and its name. */
static void link_put_veth_peer(struct nlmsghdr *nlh, const char *peer)
{
	struct nlattr *p = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };

	/* The peer's header is the attribute's payload, as veth_newlink(). */
	memcpy(mnl_nlmsg_get_payload_tail(nlh), &ifi, sizeof(ifi));
	nlh->nlmsg_len += MNL_ALIGN(sizeof(ifi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	mnl_attr_nest_end(nlh, p);
}

/*
 * Asked on the request socket, not with if_nametoindex(), which opens a
 * socket for its ioctl: the running process may open none (sandbox.c).
 */
unsigned int link_ifindex(struct link *l, const char *name)
{
	struct nlmsghdr *nlh = link_req(l, RTM_GETLINK, 0);
	struct link_reply r = { 0 };

	link_put_ifinfo(nlh, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (link_talk(l, link_mtu_cb, &r) < 0)
		return 0;
	return r.ifindex;
}

/*
 * Device name made: addrgenmode none on it. Not in the request that
 * makes it: inet6_validate_link_af() refuses IFLA_AF_SPEC for a device
 * without its IPv6 state yet (EAFNOSUPPORT).
 */
static int link_no_addrgen(struct link *l, const char *name)
{
	unsigned int ifindex = link_ifindex(l, name);
	struct link_reply r = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	if (!ifindex) {
		log_err("cannot find %s, just made", name);
		return -ENODEV;
	}
	nlh = link_req(l, RTM_NEWLINK, 0);
	link_put_ifinfo(nlh, ifindex);
	link_put_no_addrgen(nlh);
	ret = link_talk(l, NULL, &r);
	if (ret < 0)
		link_log(LOG_LVL_ERR, ret, &r, "cannot set addrgenmode none "
			 "on %s", name);
	return ret;
}

int link_add(struct link *l, const struct link_spec *s)
{
	struct nlmsghdr *nlh = link_req(l, RTM_NEWLINK,
					NLM_F_CREATE | NLM_F_EXCL);
	struct link_reply r = { 0 };
	struct nlattr *info, *data;
	int ret;

	link_put_ifinfo(nlh, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, s->name);
	if (s->master)
		mnl_attr_put_u32(nlh, IFLA_MASTER, s->master);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, s->kind);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	if (!strcmp(s->kind, "vxlan"))
		link_put_vxlan(nlh, s);
	else if (!strcmp(s->kind, "veth") && s->peer)
		link_put_veth_peer(nlh, s->peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	ret = link_talk(l, NULL, &r);
	if (ret < 0) {
		link_log(ret == -EEXIST ? LOG_LVL_DEBUG : LOG_LVL_ERR, ret, &r,
			 "cannot create %s device %s", s->kind, s->name);
		return ret;
	}
	ret = link_no_addrgen(l, s->name);
	if (!ret && s->peer)
		ret = link_no_addrgen(l, s->peer);
	return ret;
}

/* A reply of link_get_kind(); the reply first, as link_talk() takes it. */
struct link_kind_scan {
	struct link_reply r;
	struct link_kind *k;
};

/* IFLA_INFO_DATA of a vxlan device into k. */
static void link_kind_vxlan(const struct nlattr *data, struct link_kind *k)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, data) {
		size_t len = mnl_attr_get_payload_len(a);

		switch (mnl_attr_get_type(a)) {
		case IFLA_VXLAN_ID:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				k->vni = mnl_attr_get_u32(a);
			break;
		case IFLA_VXLAN_PORT:
			if (!mnl_attr_validate(a, MNL_TYPE_U16))
				k->port = ntohs(mnl_attr_get_u16(a));
			break;
		case IFLA_VXLAN_LOCAL:
		case IFLA_VXLAN_LOCAL6:
			if (len != link_addr_len(AF_INET) &&
			    len != link_addr_len(AF_INET6))
				break;
			k->local.family = len == 4 ? AF_INET : AF_INET6;
			memcpy(&k->local.addr, mnl_attr_get_payload(a), len);
			break;
		}
	}
}

static void link_kind_info(const struct nlattr *info, struct link_kind *k)
{
	const struct nlattr *a, *data = NULL;

	mnl_attr_for_each_nested(a, info) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			snprintf(k->kind, sizeof(k->kind), "%s",
				 mnl_attr_get_str(a));
		else if (mnl_attr_get_type(a) == IFLA_INFO_DATA)
			data = a;
	}
	if (data && !strcmp(k->kind, "vxlan"))
		link_kind_vxlan(data, k);
}

static int link_kind_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_kind_scan *s = data;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(a) == IFLA_MASTER &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			s->k->master = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == IFLA_LINKINFO)
			link_kind_info(a, s->k);
	}
	return MNL_CB_OK;
}

int link_get_kind(struct link *l, unsigned int ifindex, struct link_kind *k)
{
	struct nlmsghdr *nlh = link_req(l, RTM_GETLINK, 0);
	struct link_kind_scan s = { .k = k };

	memset(k, 0, sizeof(*k));
	link_put_ifinfo(nlh, ifindex);
	return link_talk(l, link_kind_cb, &s.r);
}

int link_del(struct link *l, unsigned int ifindex)
{
	struct link_reply r = { 0 };
	struct nlmsghdr *nlh;
	char name[32];
	int ret;

	/* Its name while it has one; asked before l->buf holds the request. */
	link_name(l, ifindex, name, sizeof(name));
	nlh = link_req(l, RTM_DELLINK, 0);
	link_put_ifinfo(nlh, ifindex);
	ret = link_talk(l, NULL, &r);
	/* Gone already: what was asked. */
	if (ret == -ENODEV)
		ret = 0;
	if (ret < 0)
		link_log(LOG_LVL_ERR, ret, &r, "cannot delete %s", name);
	return ret;
}
