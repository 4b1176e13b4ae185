/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --evpn: gsotun as a VTEP of a BGP EVPN fabric (RFC 7432, RFC 8365)
 * whose control plane is FRR on this host. zebra knows only kernel
 * devices, so each tap gets shadow devices that carry no traffic: a
 * bridge, a vxlan device of the tap's VNI in it, and a veth port. The
 * tap's local MACs are written on the bridge's port (zebra advertises
 * them, type-2 routes); what zebra installs on the vxlan device (remote
 * MACs with their VTEP, the all-zeros flood entries of type-3 routes)
 * becomes the tap's forwarding entries, flood list and peers.
 */
#ifndef GSOTUN_EVPN_H
#define GSOTUN_EVPN_H

#include <ev.h>

struct port;
struct evpn;

/*
 * The shadow devices of every device of port made (or adopted, when
 * there already), up, and their forwarding databases watched on loop,
 * read whole at once. 0 (NULL in *out without --evpn) or -errno
 * (logged).
 */
int evpn_open(struct evpn **out, struct port *port, struct ev_loop *loop);

/* The shadow devices gsotun made deleted; e may be NULL. */
void evpn_close(struct evpn *e);

#endif
