/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tap device: opened with IFF_VNET_HDR so super-frames and their
 * offload hints cross the user/kernel boundary whole.
 */
#ifndef GSOTUN_TAP_H
#define GSOTUN_TAP_H

#include <stdbool.h>
#include <net/if.h>

/*
 * Open (create) tap name with IFF_TAP|IFF_NO_PI|IFF_VNET_HDR, vnet header
 * size VNET_HDR_LEN, non-blocking. With offload, TUNSETOFFLOAD gets
 * CSUM|TSO4|TSO6|TSO_ECN, plus USO4|USO6 when the kernel takes them;
 * without, 0. The kernel's name is copied to ifname (IFNAMSIZ).
 * Returns the fd or -errno (logged).
 */
int tap_open(const char *name, bool offload, char *ifname);

/*
 * Before the tap gets its addresses and goes up: announce its (random)
 * MAC address when it comes up (arp_notify, ndisc_notify), so that a peer
 * that knew the tap of a gsotun before a restart learns the new one at
 * once, and keep its IPv6 addresses when an administrator takes it down
 * (keep_addr_on_down), as IPv4 keeps them. Best effort: a sysctl that is
 * missing (IPv6 disabled) is skipped, one that cannot be written (a
 * read-only /proc/sys) is a warning that names it.
 */
void tap_set_sysctls(const char *ifname);

/* Offload flags the tap ended up with (TUN_F_*), for the log. */
unsigned int tap_offloads(void);

#endif
