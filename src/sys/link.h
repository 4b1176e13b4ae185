/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtnetlink through libmnl: bring the tap up with its MTU and addresses,
 * ask the route to the peer for the underlay MTU, and watch for changes.
 */
#ifndef GSOTUN_LINK_H
#define GSOTUN_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "base/mac.h"
#include "conf/types.h"

struct link;

/* Open an rtnetlink socket. NULL on error (logged). */
struct link *link_open(void);
void link_close(struct link *l);

/* Each returns 0 or -errno (logged with the interface name). */
int link_set_mtu(struct link *l, unsigned int ifindex, uint32_t mtu);
int link_set_up(struct link *l, unsigned int ifindex);
int link_add_addr(struct link *l, unsigned int ifindex, const struct cidr *a);
/* The route to prefix p through ifindex added (ip route add p dev), or not. */
int link_route_dev(struct link *l, unsigned int ifindex, const struct cidr *p,
		   bool add);
/*
 * IFLA_GSO_MAX_SIZE and IFLA_GSO_MAX_SEGS: the largest super-frame the
 * kernel hands the device, in bytes and in segments.
 */
int link_set_gso_max_size(struct link *l, unsigned int ifindex, uint32_t size);
int link_set_gso_max_segs(struct link *l, unsigned int ifindex, uint32_t segs);

/* Set the link's Ethernet address (IFLA_ADDRESS). */
int link_set_mac(struct link *l, unsigned int ifindex,
		 const uint8_t mac[MAC_LEN]);

/* Read it into mac. 0 or -errno (-ENODEV), not logged. */
int link_get_mac(struct link *l, unsigned int ifindex, uint8_t mac[MAC_LEN]);

/* The route the kernel takes to a destination now (`ip route get`). */
struct link_route {
	uint32_t mtu;		/* of the path (> 0) */
	unsigned int oif;	/* its output interface */
	bool oif_up;		/* that is up and running (carrier) */
	struct ipaddr src;	/* the source it picks; family 0: none said */
};

/*
 * The route to dst into *out, from src (the sockets' bound address, for
 * rules that choose by it; NULL: none). mtu: the route's RTAX_MTU metric
 * if set (a learnt PMTU included), else the MTU of the route's output
 * interface. 0 or -errno (-ENETUNREACH: no route; -EHOSTUNREACH,
 * -EACCES, -EINVAL: an unreachable, prohibit or blackhole route), logged
 * as a warning unless quiet.
 */
int link_route_get(struct link *l, const struct ipaddr *dst,
		   const struct ipaddr *src, bool quiet,
		   struct link_route *out);

/*
 * The route of the host's table that dst takes from src (NULL: any), as
 * `ip route get DST from SRC fibmatch` says it: its prefix length into
 * *len, its output interface into *oif (0: none). 0 or -errno
 * (-ENETUNREACH: none), not logged.
 */
int link_route_entry(struct link *l, const struct ipaddr *dst,
		     const struct ipaddr *src, unsigned int *len,
		     unsigned int *oif);

/*
 * The routes of the main table to prefix p itself (`ip route show
 * exact P`), any metric: -EEXIST when one goes through a device other
 * than ifindex (or none: blackhole, unreachable), 1 when there are ones
 * through ifindex only, 0 none; or -errno.
 */
int link_route_find(struct link *l, const struct cidr *p, unsigned int ifindex);
/* The messages of such a dump in buf, as link_route_find() reads them. */
int link_route_scan(const void *buf, size_t len, const struct cidr *p,
		    unsigned int ifindex);

/*
 * The MTU of the interface that holds local address a (as `ip addr show
 * to A` finds it) into *mtu: 0, -ENODEV (no interface has it) or -errno,
 * not logged.
 */
int link_addr_mtu(struct link *l, const struct ipaddr *a, uint32_t *mtu);

/*
 * The name of interface ifindex in buf ("gsotun0"), or "ifindex 7" when
 * it has none (any more); buf is returned.
 */
const char *link_name(struct link *l, unsigned int ifindex, char *buf,
		      size_t len);

/* Whether interface ifindex is up and running. 0 or -errno (-ENODEV). */
int link_is_up(struct link *l, unsigned int ifindex, bool *up);

/* A kernel vxlan device, as link_vxlan_on_port() finds it. */
struct link_vxlan {
	char name[IF_NAMESIZE];
	uint32_t vni;		/* IFLA_VXLAN_ID */
	bool external;		/* collect_metadata: every VNI */
};

/*
 * The kernel's vxlan devices of this network namespace that are up with
 * UDP port port (host order) as their dstport, which they then hold on
 * every address (vxlan_sock_add() binds the wildcard): how many, the
 * first in *first; or -errno (not logged). A dump cut short (EINTR: the
 * links changed meanwhile) leaves the rest of it on l's socket: give it
 * an l of its own, closed after.
 */
int link_vxlan_on_port(struct link *l, uint16_t port, struct link_vxlan *first);

/*
 * A device to make, down and without an IPv6 address of its own
 * (addrgenmode none): `ip link add NAME [master MASTER] type KIND`.
 */
struct link_spec {
	const char *name;
	const char *kind;	/* "bridge", "vxlan" or "veth" */
	unsigned int master;	/* the bridge it is a port of; 0: none */
	const char *peer;	/* veth: the other end's name */
	uint32_t vni;		/* vxlan: id VNI ... nolearning */
	struct ipaddr local;	/* vxlan: local ADDR (family 0: none) */
	uint16_t port;		/* vxlan: dstport, host order */
};

/* 0, -EEXIST when the name is taken (logged at debug), or -errno. */
int link_add(struct link *l, const struct link_spec *s);
/* The ifindex of the device name, or 0 (none: not logged). */
unsigned int link_ifindex(struct link *l, const char *name);

/* What a device is (IFLA_LINKINFO), as link_get_kind() reads it. */
struct link_kind {
	char kind[16];		/* IFLA_INFO_KIND; "": none said */
	unsigned int master;	/* IFLA_MASTER; 0: none */
	uint32_t vni;		/* vxlan: IFLA_VXLAN_ID */
	struct ipaddr local;	/* vxlan: IFLA_VXLAN_LOCAL(6); family 0 */
	uint16_t port;		/* vxlan: IFLA_VXLAN_PORT, host order */
};

/* The device ifindex: its kind, master and vxlan values; 0 or -errno. */
int link_get_kind(struct link *l, unsigned int ifindex, struct link_kind *k);
/* `ip link del`: 0 (a link gone already too) or -errno (logged). */
int link_del(struct link *l, unsigned int ifindex);

/*
 * `bridge fdb add|del MAC dev PORT master static`: an entry of the
 * bridge that PORT is a port of (a bridge without VLAN filtering). 0
 * (deleting one that is not there too) or -errno (logged at debug level
 * only: a caller that writes one per MAC says it, rate limited).
 */
int link_fdb_set(struct link *l, unsigned int port,
		 const uint8_t mac[MAC_LEN], bool add);

/* A bridge forwarding database entry, as RTM_NEWNEIGH/DELNEIGH say it. */
struct link_fdb {
	bool del;		/* gone (RTM_DELNEIGH) */
	unsigned int ifindex;	/* the device: a bridge port, a vxlan */
	unsigned int master;	/* NDA_MASTER, its bridge; 0: not said */
	uint8_t mac[MAC_LEN];
	uint16_t vlan;		/* NDA_VLAN; 0: none */
	struct ipaddr dst;	/* NDA_DST, a vxlan's VTEP; family 0: none */
	uint16_t state;		/* NUD_* */
	uint8_t flags;		/* NTF_SELF, NTF_MASTER, NTF_EXT_LEARNED... */
};

/* What a read of the watch calls, with its ctx. */
struct link_fdb_ops {
	void (*entry)(void *ctx, const struct link_fdb *e);
	/*
	 * The end of the dump link_fdb_dump() asked for: err 0 when it
	 * was whole; -EINTR when the kernel flagged it inconsistent
	 * (NLM_F_DUMP_INTR), or the error it ended with (NLMSG_ERROR, or
	 * that of its NLMSG_DONE): then it may have missed entries.
	 */
	void (*dumped)(void *ctx, int err);
	/* Notifications were lost: dump again to know what is. */
	void (*lost)(void *ctx);
	/* The device ifindex was deleted (RTM_DELLINK); may be NULL. */
	void (*link_gone)(void *ctx, unsigned int ifindex);
};

/*
 * The dump in progress, as the messages of a read say it: those of
 * another sequence number (an older dump's) do not end it.
 */
struct link_fdb_dump {
	uint32_t seq;		/* of the dump asked for; 0: none */
	bool intr;		/* one of its messages had NLM_F_DUMP_INTR */
};

struct link_watch;

/*
 * A watch of the bridges' forwarding databases (RTNLGRP_NEIGH) and of
 * the devices deleted (RTNLGRP_LINK), closed and polled as the link
 * watch below; NULL on error (logged).
 */
struct link_watch *link_fdb_watch_open(void);
/* Ask for every entry (`bridge fdb show`); they come as reads. */
int link_fdb_dump(struct link_watch *w);
/*
 * Read what waits, until at least max messages were read (then true:
 * more may wait; the fd stays readable) or none is left (false): each
 * entry, a dump's end, or a loss, to ops. A bound, so that a dump of a
 * big table comes in slices between the data path's batches.
 */
bool link_fdb_watch_read(struct link_watch *w, const struct link_fdb_ops *ops,
			 void *ctx, unsigned int max);
/*
 * The messages in buf to ops, d the dump in progress; one that does not
 * read is a loss. How many messages there were.
 */
unsigned int link_fdb_parse(struct link_fdb_dump *d, const void *buf,
			    size_t len, const struct link_fdb_ops *ops,
			    void *ctx);

/* Notifications of link and route changes (RTNLGRP_LINK, *_ROUTE). */

/* NULL on error (logged). */
struct link_watch *link_watch_open(void);
void link_watch_close(struct link_watch *w);
/* A non-blocking descriptor, readable when notifications wait. */
int link_watch_fd(const struct link_watch *w);

/* The routes and links one read of the watch saw change. */
#define LINK_CHANGES_MAX 32

struct link_changes {
	bool any;			/* something changed */
	bool all;			/* more than fit, or some were lost */
	unsigned int n_routes, n_links;
	struct cidr routes[LINK_CHANGES_MAX];	/* added or removed */
	unsigned int links[LINK_CHANGES_MAX];	/* ifindex, of routes too */
};

/* Read all waiting notifications into c. */
void link_watch_read(struct link_watch *w, struct link_changes *c);

/* Add what the rtnetlink notifications in buf say changed to c. */
void link_changes_parse(struct link_changes *c, const void *buf, size_t len);

/*
 * Whether the changes c may have changed the route to dst, whose last
 * lookup went out through oif (0: none): a route of a prefix that holds
 * dst, a change of oif (its MTU, its state) or of a route through it.
 * NULL: look at everything.
 */
bool link_changes_touch(const struct link_changes *c, const struct ipaddr *dst,
			unsigned int oif);

/* Whether c holds a change of link oif (0: none) or of everything. */
bool link_changes_touch_link(const struct link_changes *c, unsigned int oif);

#endif
