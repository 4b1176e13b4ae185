/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The types the folders above share that belong to no module: addresses
 * of the underlay and the overlay. Types only.
 */
#ifndef GSOTUN_BASE_TYPES_H
#define GSOTUN_BASE_TYPES_H

#include <stdint.h>
#include <netinet/in.h>

/* An address with prefix length, for --address. */
struct cidr {
	int family;		/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
	uint8_t prefix;
};

/* An underlay address (no prefix). */
struct ipaddr {
	int family;		/* AF_INET, AF_INET6; 0 when unset */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
};

#endif
