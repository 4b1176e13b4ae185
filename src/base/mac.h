/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tap's Ethernet address: a stable default derived from the host, the
 * tap's name and the tunnel's local address, as systemd-networkd derives
 * its stable MACs. Pure.
 */
#ifndef GSOTUN_MAC_H
#define GSOTUN_MAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/types.h"

#define MAC_LEN 6
/* "xx:xx:xx:xx:xx:xx" and its NUL. */
#define MAC_TEXT_LEN 18

/*
 * The stable MAC of a tap: a keyed hash of host (the machine id, or the
 * host name where there is none), ifname and local (the tunnel's local
 * underlay address; NULL or family 0 when unknown), each input framed so
 * that no two sets of inputs hash the same bytes. Unicast and locally
 * administered (IEEE 802 U/L bit set, I/G bit clear).
 */
void mac_stable(const char *host, const char *ifname,
		const struct ipaddr *local, uint8_t mac[MAC_LEN]);

/* mac as "xx:xx:xx:xx:xx:xx" into buf (MAC_TEXT_LEN bytes); buf. */
const char *mac_ntoa(const uint8_t mac[MAC_LEN], char *buf);

#endif
