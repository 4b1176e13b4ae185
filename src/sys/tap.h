/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tap device, or the tun of --mode tun: opened with IFF_VNET_HDR so
 * super-frames and their offload hints cross the user/kernel boundary
 * whole.
 */
#ifndef GSOTUN_TAP_H
#define GSOTUN_TAP_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "base/mac.h"
#include "conf/types.h"

/*
 * Open (create) tap name with IFF_TAP|IFF_NO_PI|IFF_VNET_HDR (with tun,
 * a tun: IFF_TUN, IP packets with no link header), and
 * IFF_MULTI_QUEUE for n > 1: its n queues into fds[], each with vnet
 * header size VNET_HDR_LEN, non-blocking. With offload, TUNSETOFFLOAD
 * gets CSUM|TSO4|TSO6|TSO_ECN, plus USO4|USO6 when the kernel takes
 * them; without, 0. The kernel's name is copied to ifname (IFNAMSIZ). A
 * tap of that name that is persistent is used, with a warning.
 * 0 or -errno (logged; nothing left open).
 */
int tap_open(const char *name, bool tun, bool offload, unsigned int n,
	     int *fds, char *ifname);

/*
 * The tap (tun) of queue fd hands each frame to the queue of its flow
 * (steer_hash(), by an eBPF program: TUNSETSTEERINGEBPF); true if so.
 * Where the program cannot be loaded (CAP_BPF) none is left, said.
 */
bool tap_steer(int fd, const char *ifname, bool tun);

/*
 * The stable MAC of tap ifname (mac_stable()): the same across restarts,
 * so that bridges and peers keep the tap in their tables, from this host's
 * machine id (or host name), ifname and local (the tunnel's local
 * underlay address; NULL or family 0 when unknown).
 */
void tap_stable_mac(const char *ifname, const struct ipaddr *local,
		    uint8_t mac[MAC_LEN]);

/*
 * Before the tap gets its addresses and goes up: announce its MAC
 * address when it comes up (arp_notify, ndisc_notify), so that a peer
 * that knew the tap of a gsotun before a restart learns a new one (--mac
 * changed, or another local address) at once; and keep its IPv6
 * addresses when an administrator takes it down (keep_addr_on_down), as
 * IPv4 keeps them. Best effort: a sysctl that is missing (IPv6 disabled)
 * is skipped, one that cannot be written (a read-only /proc/sys) is a
 * warning that names it. A tun (no MAC) gets only keep_addr_on_down.
 */
void tap_set_sysctls(const char *ifname, bool tun);

/* Offload flags the tap ended up with (TUN_F_*), for the log. */
unsigned int tap_offloads(void);

#endif
