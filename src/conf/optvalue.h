/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The grammar of option values: numbers, device names, addresses and
 * prefixes, MACs, forwarding entries and CPU lists, each parsed strictly
 * into its struct. The command line (options.c), the peers file
 * (peersfile.c) and the control socket's requests (ctlreq.c) read values
 * by it. Pure.
 */
#ifndef GSOTUN_OPTVALUE_H
#define GSOTUN_OPTVALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "conf/types.h"

/*
 * A strictly unsigned number in s, at most max, into *out: decimal, or
 * hex after 0x when hex_ok; the whole string and nothing else. 0,
 * -EINVAL (not a number) or -ERANGE (over max).
 */
int optvalue_num(const char *s, bool hex_ok, unsigned long long max,
		 unsigned long long *out);

/*
 * Why name cannot be a device's (the rules of dev_valid_name() in
 * net/core/dev.c, and '%' too), or NULL.
 */
const char *optvalue_dev_invalid(const char *name);

/* An IPv4 or IPv6 address in s into *ip: 0, or -EINVAL if s is not one. */
int optvalue_ip_parse(const char *s, struct ipaddr *ip);

/*
 * One unicast host's address (a peer, --local) in arg into *ip: NULL, or
 * why it is not one.
 */
const char *optvalue_endpoint_parse(const char *arg, struct ipaddr *ip);

/*
 * --local: an address of this host, or the unspecified one (0.0.0.0,
 * ::), which binds any as no --local does and says only the underlay's
 * family (a gsotun that starts with no peer).
 */
const char *optvalue_local_parse(const char *arg, struct ipaddr *ip);

/* Is ip the unspecified address (0.0.0.0, ::) of its family? */
bool optvalue_ip_is_any(const struct ipaddr *ip);

/* Are a and b the same address? */
bool optvalue_ip_equal(const struct ipaddr *a, const struct ipaddr *b);

/*
 * MAC[@VID] in the len bytes at s into mac and *vlan (0 without @VID):
 * NULL, or why it is not one (multicast and all-zero MACs are refused).
 */
const char *optvalue_mac_vlan_parse(const char *s, size_t len, uint8_t *mac,
				    uint16_t *vlan);

/* MAC[@VID]=ADDR (--fdb) into *e: NULL, or why it is not one. */
const char *optvalue_fdb_parse(const char *s, struct config_fdb *e);

/*
 * [DEV=]VALUE: the name into dev (IFNAMSIZ bytes; "" without), VALUE at
 * *rest. Why DEV is not a device's name, or NULL.
 */
const char *optvalue_address_dev(const char *arg, char *dev,
				 const char **rest);

/*
 * [DEV=]MAC[@VID]=ADDR into *e: a tap's name before the entry when there
 * are two '='. Why not, or NULL.
 */
const char *optvalue_fdb_dev_parse(const char *arg, struct config_fdb *e);

/* ADDR/PREFIX into *c; why it is not one, or NULL. */
const char *optvalue_cidr_parse(const char *s, struct cidr *c);

/* Room for "ADDR/LEN" of optvalue_cidr_text(), NUL included. */
#define OPTVALUE_CIDR_TEXT_LEN (INET6_ADDRSTRLEN + 4)

/* "ADDR/LEN" of c into buf (OPTVALUE_CIDR_TEXT_LEN bytes); buf. */
const char *optvalue_cidr_text(const struct cidr *c, char *buf);

/* c with its bits after the prefix cleared. */
void optvalue_cidr_mask(struct cidr *c);

/*
 * [DEV=]PREFIX=ADDR (--route) into *e: a tap's name before the entry
 * when there are two '=', a prefix with no host bits set (as `ip
 * route' takes it). Why not, or NULL; optvalue_host_bits (that pointer)
 * with the prefix in e->prefix as given, for the caller to say what it
 * should have been.
 */
extern const char optvalue_host_bits[];
const char *optvalue_route_dev_parse(const char *arg, struct config_route *e);

/*
 * PREFIX=ADDR (`gsotunctl route add'), without a DEV=: as
 * optvalue_route_dev_parse(), e->dev "".
 */
const char *optvalue_route_parse(const char *s, struct config_route *e);

/* Has c bits set after its prefix (an --allow that means less)? */
bool optvalue_cidr_host_bits(const struct cidr *c);

/* Is addr (4 bytes for AF_INET, 16 for AF_INET6) inside prefix c? */
bool optvalue_cidr_contains(const struct cidr *c, const uint8_t *addr);

/* A tap's unicast MAC in s into mac; why it is not one, or NULL. */
const char *optvalue_tap_mac_invalid(const char *s, uint8_t *mac);

/*
 * A list of CPUs in s, the kernel's cpulist ("0-3,8,10-11", as
 * /sys/devices/system/cpu/online and taskset -c write it; decimal, no
 * blanks, no strides), into cpus in the order given and their number
 * into *n: each below CPU_SETSIZE (1024), none twice, at most max. 0;
 * -EINVAL (malformed, a CPU twice or past the last) or -E2BIG (more than
 * max), with why in why (why_len bytes), *n 0 and cpus undefined.
 */
int optvalue_cpus_parse(const char *s, uint16_t *cpus, unsigned int max,
			unsigned int *n, char *why, size_t why_len);

#endif
