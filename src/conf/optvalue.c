// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * optvalue: the values of options, strictly parsed (numbers, names,
 * addresses, MACs, fdb entries, routes, CPU lists), for argv, --peers and
 * control.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "conf/optvalue.h"

/*
 * A strictly unsigned number: decimal, or hex after 0x; the whole string
 * and nothing else. strtoull() alone would take " +1", "-1" (as a huge
 * value) and "0x" prefixes in the middle, so the digits are checked first.
 */
int optvalue_num(const char *s, bool hex_ok, unsigned long long max,
		 unsigned long long *out)
{
	const char *digits = "0123456789";
	unsigned long long v;
	int base = 10;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		digits = "0123456789abcdefABCDEF";
	}
	if (!*s || s[strspn(s, digits)])
		return -EINVAL;
	errno = 0;
	v = strtoull(s, NULL, base);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * The rules of dev_valid_name() in net/core/dev.c. '%' is refused too:
 * the kernel would expand "name%d", and the rest of gsotun addresses the
 * device by the name given here.
 */
const char *optvalue_dev_invalid(const char *name)
{
	const char *p;

	if (!*name)
		return "empty name";
	if (strlen(name) >= IFNAMSIZ)
		return "longer than 15 characters";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "not a device name";
	/* '=' ends DEV in DEV=VALUE; '#' would start a --config comment. */
	if (*name == '#')
		return "it may not begin with '#'";
	for (p = name; *p; p++) {
		if (*p == '/' || *p == ':' || *p == '%' || *p == '=' ||
		    *p == ' ' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return "'/', ':', '%', '=', white space and control "
			       "characters are not allowed";
	}
	return NULL;
}

int optvalue_ip_parse(const char *s, struct ipaddr *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, &ip->addr.v4) == 1)
		ip->family = AF_INET;
	else if (inet_pton(AF_INET6, s, &ip->addr.v6) == 1)
		ip->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

/*
 * An underlay endpoint must be one unicast host: every peer is named (no
 * multicast group as the kernel's vxlan may flood to), and struct ipaddr
 * holds no scope id, which an IPv6 link-local address would need.
 */
static const char *optvalue_ip_unusable(const struct ipaddr *ip)
{
	if (ip->family == AF_INET) {
		in_addr_t a = ntohl(ip->addr.v4.s_addr);

		if (a == INADDR_ANY)
			return "the unspecified address";
		if (IN_MULTICAST(a))
			return "a multicast address";
		if (a == INADDR_BROADCAST)
			return "the broadcast address";
		return NULL;
	}
	if (IN6_IS_ADDR_UNSPECIFIED(&ip->addr.v6))
		return "the unspecified address";
	if (IN6_IS_ADDR_MULTICAST(&ip->addr.v6))
		return "a multicast address";
	if (IN6_IS_ADDR_LINKLOCAL(&ip->addr.v6))
		return "link-local (scopes are not supported)";
	if (IN6_IS_ADDR_V4MAPPED(&ip->addr.v6))
		return "IPv4-mapped (give the IPv4 form)";
	return NULL;
}

const char *optvalue_endpoint_parse(const char *arg, struct ipaddr *ip)
{
	if (optvalue_ip_parse(arg, ip))
		return "not an IPv4 or IPv6 address";
	return optvalue_ip_unusable(ip);
}

bool optvalue_ip_is_any(const struct ipaddr *ip)
{
	if (ip->family == AF_INET)
		return ip->addr.v4.s_addr == htonl(INADDR_ANY);
	return ip->family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&ip->addr.v6);
}

const char *optvalue_local_parse(const char *arg, struct ipaddr *ip)
{
	if (optvalue_ip_parse(arg, ip))
		return "not an IPv4 or IPv6 address";
	return optvalue_ip_is_any(ip) ? NULL : optvalue_ip_unusable(ip);
}

bool optvalue_ip_equal(const struct ipaddr *a, const struct ipaddr *b)
{
	size_t len = a->family == AF_INET6 ? 16 : 4;

	return a->family == b->family && !memcmp(&a->addr, &b->addr, len);
}

/* xx:xx:xx:xx:xx:xx in len bytes at s, either case; false if not that. */
static bool optvalue_mac_parse(const char *s, size_t len, uint8_t *mac)
{
	unsigned int i;

	if (len != 17)
		return false;
	for (i = 0; i < 6; i++) {
		int hi = hex_digit(s[3 * i]);
		int lo = hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return false;
		mac[i] = hi << 4 | lo;
	}
	return true;
}

const char *optvalue_mac_vlan_parse(const char *s, size_t len, uint8_t *mac,
				    uint16_t *vlan)
{
	static const uint8_t zero[6];
	const char *at = memchr(s, '@', len);
	unsigned long long vid = 0;
	char buf[8];
	size_t n;

	if (!optvalue_mac_parse(s, (at ? at : s + len) - s, mac))
		return "not a MAC address (xx:xx:xx:xx:xx:xx)";
	if (mac[0] & 1)
		return "a multicast MAC (those frames go to every peer)";
	if (!memcmp(mac, zero, sizeof(zero)))
		return "the all-zero MAC";
	if (at) {
		n = s + len - at - 1;
		if (!n || n >= sizeof(buf))
			return "VID must be 1..4094";
		memcpy(buf, at + 1, n);
		buf[n] = '\0';
		if (optvalue_num(buf, false, 4094, &vid) || !vid)
			return "VID must be 1..4094";
	}
	*vlan = vid;
	return NULL;
}

const char *optvalue_fdb_parse(const char *s, struct config_fdb *e)
{
	const char *eq = strchr(s, '='), *why;

	memset(e, 0, sizeof(*e));
	if (!eq)
		return "missing =ADDR";
	why = optvalue_mac_vlan_parse(s, eq - s, e->mac, &e->vlan);
	if (why)
		return why;
	if (optvalue_ip_parse(eq + 1, &e->peer))
		return "not an IPv4 or IPv6 address";
	return NULL;
}

const char *optvalue_address_dev(const char *arg, char *dev,
				 const char **cidr)
{
	const char *eq = strchr(arg, '=');

	*dev = '\0';
	*cidr = arg;
	if (!eq)
		return NULL;
	if ((size_t)(eq - arg) >= IFNAMSIZ || eq == arg)
		return "not a device name before '='";
	memcpy(dev, arg, eq - arg);
	dev[eq - arg] = '\0';
	*cidr = eq + 1;
	return optvalue_dev_invalid(dev);
}

/*
 * [DEV=]ENTRY where ENTRY holds an '=' of its own: a device's name in
 * dev ("" without) and the entry in *entry; why not, or NULL.
 */
static const char *optvalue_entry_dev(const char *arg, char *dev,
				      const char **entry)
{
	const char *eq = strchr(arg, '=');

	dev[0] = '\0';
	*entry = arg;
	if (eq && strchr(eq + 1, '='))
		return optvalue_address_dev(arg, dev, entry);
	return NULL;
}

const char *optvalue_fdb_dev_parse(const char *arg, struct config_fdb *e)
{
	char dev[IFNAMSIZ];
	const char *entry, *why = optvalue_entry_dev(arg, dev, &entry);

	if (why)
		return why;
	why = optvalue_fdb_parse(entry, e);
	strcpy(e->dev, dev);
	return why;
}

const char *optvalue_cidr_parse(const char *s, struct cidr *c)
{
	char buf[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	unsigned long long prefix, max;
	size_t len;

	memset(c, 0, sizeof(*c));
	if (!slash)
		return "missing /PREFIX";
	len = slash - s;
	if (len >= sizeof(buf))
		return "not an IPv4 or IPv6 address";
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, &c->addr.v4) == 1) {
		c->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, &c->addr.v6) == 1) {
		c->family = AF_INET6;
		max = 128;
	} else {
		return "not an IPv4 or IPv6 address";
	}
	if (optvalue_num(slash + 1, false, max, &prefix))
		return max == 32 ? "IPv4 prefix must be 0..32"
				 : "IPv6 prefix must be 0..128";
	c->prefix = prefix;
	return NULL;
}

const char optvalue_host_bits[] = "host bits set after the prefix";

const char *optvalue_cidr_text(const struct cidr *c, char *buf)
{
	char addr[INET6_ADDRSTRLEN];

	if (!inet_ntop(c->family, &c->addr, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "?");
	snprintf(buf, OPTVALUE_CIDR_TEXT_LEN, "%s/%u", addr, c->prefix);
	return buf;
}

void optvalue_cidr_mask(struct cidr *c)
{
	uint8_t *a = (uint8_t *)&c->addr;
	unsigned int n = c->family == AF_INET6 ? 16 : 4, i;

	for (i = c->prefix; i < n * 8; i++)
		a[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
}

const char *optvalue_route_parse(const char *s, struct config_route *e)
{
	const char *eq = strchr(s, '='), *why;
	char prefix[INET6_ADDRSTRLEN + 4];

	memset(e, 0, sizeof(*e));
	if (!eq)
		return "missing =ADDR";
	if ((size_t)(eq - s) >= sizeof(prefix))
		return "not an IPv4 or IPv6 address";
	memcpy(prefix, s, eq - s);
	prefix[eq - s] = '\0';
	why = optvalue_cidr_parse(prefix, &e->prefix);
	if (why)
		return why;
	/* inet_rtm_newroute(): "Invalid prefix for given prefix length". */
	if (optvalue_cidr_host_bits(&e->prefix))
		return optvalue_host_bits;
	if (optvalue_ip_parse(eq + 1, &e->peer))
		return "not an IPv4 or IPv6 address after '='";
	return NULL;
}

const char *optvalue_route_dev_parse(const char *arg, struct config_route *e)
{
	char dev[IFNAMSIZ];
	const char *entry, *why = optvalue_entry_dev(arg, dev, &entry);

	if (why)
		return why;
	why = optvalue_route_parse(entry, e);
	strcpy(e->dev, dev);
	return why;
}

const char *optvalue_tap_mac_invalid(const char *s, uint8_t *mac)
{
	static const uint8_t zero[6];

	if (!optvalue_mac_parse(s, strlen(s), mac))
		return "not a MAC address (xx:xx:xx:xx:xx:xx)";
	if (mac[0] & 1)
		return "a multicast MAC (a tap's address is unicast)";
	if (!memcmp(mac, zero, sizeof(zero)))
		return "the all-zero MAC";
	return NULL;
}

bool optvalue_cidr_host_bits(const struct cidr *c)
{
	const uint8_t *a = (const uint8_t *)&c->addr;
	unsigned int len = c->family == AF_INET ? 4 : 16, i;

	for (i = 0; i < len; i++) {
		unsigned int keep = c->prefix > i * 8 ? c->prefix - i * 8 : 0;
		uint8_t mask = keep >= 8 ? 0xff : (uint8_t)(0xff00 >> keep);

		if (a[i] & ~mask)
			return true;
	}
	return false;
}

bool optvalue_cidr_contains(const struct cidr *c, const uint8_t *addr)
{
	const uint8_t *net = (const uint8_t *)&c->addr;
	unsigned int bytes = c->prefix / 8, bits = c->prefix % 8;

	if (memcmp(net, addr, bytes))
		return false;
	return !bits || !((net[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}

/* err, with why said in buf (len bytes). */
static int __attribute__((format(printf, 4, 5)))
optvalue_why(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * An item of a cpulist, "N" or "LO-HI", the len bytes at s, into *lo and
 * *hi. As bitmap_parselist() in lib/bitmap-str.c, HI is not below LO.
 * An item fits 15 bytes, so no number overflows.
 */
static int optvalue_cpu_range(const char *s, size_t len,
			      unsigned long long *lo, unsigned long long *hi,
			      char *why, size_t why_len)
{
	char buf[16], *hi_s;

	if (!len)
		return optvalue_why(why, why_len, -EINVAL,
				    "an empty item (two commas, or one at an "
				    "end)");
	if (len >= sizeof(buf))
		return optvalue_why(why, why_len, -EINVAL,
				    "'%.15s...' is not a CPU nor a range", s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	hi_s = strchr(buf, '-');
	if (hi_s)
		*hi_s++ = '\0';
	if (optvalue_num(buf, false, ULLONG_MAX, lo) ||
	    (hi_s && optvalue_num(hi_s, false, ULLONG_MAX, hi)))
		return optvalue_why(why, why_len, -EINVAL,
				    "'%.*s' is not a CPU nor a range (N or "
				    "LO-HI)", (int)len, s);
	if (!hi_s)
		*hi = *lo;
	if (*lo > *hi)
		return optvalue_why(why, why_len, -EINVAL,
				    "%.*s is not a range (LO-HI, LO first)",
				    (int)len, s);
	if (*hi >= CPU_SETSIZE)
		return optvalue_why(why, why_len, -EINVAL,
				    "CPU %llu is out of range (0..%d)", *hi,
				    CPU_SETSIZE - 1);
	return 0;
}

int optvalue_cpus_parse(const char *s, uint16_t *cpus, unsigned int max,
			unsigned int *n, char *why, size_t why_len)
{
	unsigned long long lo, hi, c;
	const char *end;
	cpu_set_t seen;
	int err;

	*n = 0;
	CPU_ZERO(&seen);
	if (!*s)
		return optvalue_why(why, why_len, -EINVAL, "an empty list");
	for (;; s = end + 1) {
		end = s + strcspn(s, ",");
		err = optvalue_cpu_range(s, end - s, &lo, &hi, why, why_len);
		if (err)
			goto fail;
		for (c = lo; c <= hi; c++) {
			if (CPU_ISSET(c, &seen)) {
				err = optvalue_why(why, why_len, -EINVAL,
						   "CPU %llu twice", c);
				goto fail;
			}
			if (*n == max) {
				err = optvalue_why(why, why_len, -E2BIG,
						   "more than %u CPUs", max);
				goto fail;
			}
			CPU_SET(c, &seen);
			cpus[(*n)++] = c;
		}
		if (!*end)
			return 0;
	}
fail:
	*n = 0;
	return err;
}
