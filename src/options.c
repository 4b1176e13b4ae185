// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command line: the argp table, strict parsing of every value, and the
 * checks that need all options at once, into the struct config gsotun runs.
 */
#include "config.h"

#include <argp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <sys/stat.h>
#include "conffile.h"
#include "ctlproto.h"
#include "options.h"

const char *argp_program_version = PACKAGE_STRING;
const char *argp_program_bug_address = "<" PACKAGE_BUGREPORT ">";

#define VNI_MAX 0xffffffu
#define KEY_MAX 0xffffffffu
#define MTU_MIN 68		/* RFC 791: every IPv4 host takes 68 bytes */
#define MTU_MAX 65535

const struct argp_option options_table[] = {
	{ .doc = "Tunnel:" },
	{ .name = "remote", .key = OPT_REMOTE, .arg = "ADDR",
	  .doc = "A peer's IPv4 or IPv6 address (required); repeatable, one "
		 "per peer, all of one family, up to 1024" },
	{ .name = "local", .key = OPT_LOCAL, .arg = "ADDR",
	  .doc = "Local address to bind and send from, same family as "
		 "--remote (default: any)" },
	{ .name = "allow", .key = OPT_ALLOW, .arg = "CIDR",
	  .doc = "Also take packets from sources in CIDR (same family as "
		 "--remote); repeatable, up to 16" },
	{ .name = "port", .key = OPT_PORT, .arg = "N",
	  .doc = "UDP port sent to and bound, 1..65535 (default 4789 for "
		 "vxlan, 4754 for gre-udp; not with gre)" },
	{ .name = "source-ports", .key = OPT_SOURCE_PORTS, .arg = "N",
	  .doc = "UDP source ports that inner flows are spread over, for "
		 "ECMP and RSS on the way, 1..64 (default 8; 1: --port "
		 "only; not with gre)" },
	{ .name = "ttl", .key = OPT_TTL, .arg = "N",
	  .doc = "Outer TTL or hop limit, 1..255 (default: the kernel's)" },
	{ .name = "tos", .key = OPT_TOS, .arg = "N|inherit",
	  .doc = "Outer TOS or traffic class, 0..255, or 'inherit' from the "
		 "inner packet (default 0)" },
	{ .name = "df", .key = OPT_DF, .arg = "set|unset|inherit",
	  .doc = "Outer DF bit on an IPv4 underlay: always, never, or as the "
		 "inner packet (IPv4 DF, or IPv6) has it (default unset)" },
	{ .name = "pmtud", .key = OPT_PMTUD, .arg = "on|off",
	  .doc = "Answer packets too big for the path with ICMP "
		 "'fragmentation needed' / ICMPv6 'packet too big' into the "
		 "tap (default on)" },

	{ .doc = "Forwarding (several --remote):" },
	{ .name = "fdb", .key = OPT_FDB, .arg = "[DEV=]MAC[@VID]=ADDR",
	  .doc = "Frames to MAC (on VLAN VID) go to the peer at ADDR, one "
		 "of --remote, in every tap (or tap DEV); repeatable, up to "
		 "4096 (others are flooded to every peer)" },
	{ .name = "learning", .key = OPT_LEARNING,
	  .doc = "Learn the source MACs of frames from each peer" },
	{ .name = "ageing", .key = OPT_AGEING, .arg = "SECONDS",
	  .doc = "Forget a learnt MAC not seen for SECONDS, 0..1000000 "
		 "(default 300; 0: never)" },
	{ .name = "max-address", .key = OPT_MAX_ADDRESS, .arg = "N",
	  .doc = "Learn at most N MACs, 1..1048576 (default 4096)" },
	{ .name = "peers", .key = OPT_PEERS, .arg = "FILE",
	  .doc = "More peers and entries from FILE, lines 'remote ADDR' and "
		 "'fdb [DEV=]MAC[@VID]=ADDR', read again on SIGHUP" },

	{ .doc = "Encapsulation:" },
	{ .name = "encap", .key = OPT_ENCAP, .arg = "TYPE",
	  .doc = "vxlan, gre or gre-udp (default vxlan)" },
	{ .name = "vni", .key = OPT_VNI, .arg = "N",
	  .doc = "VXLAN network identifier, 0..16777215 (default 1; vxlan "
		 "only); N=DEV: another tap, DEV, for VNI N (repeatable, up "
		 "to 16 taps)" },
	{ .name = "key", .key = OPT_KEY, .arg = "N",
	  .doc = "GRE key, 0..4294967295 (default none; gre and gre-udp "
		 "only); N=DEV: another tap, DEV, for key N (repeatable)" },
	{ .name = "csum", .key = OPT_CSUM,
	  .doc = "Outer checksum: UDP checksum for vxlan and gre-udp, GRE "
		 "checksum for gre (default: on for vxlan and gre-udp, off "
		 "for gre)" },
	{ .name = "no-csum", .key = OPT_NO_CSUM,
	  .doc = "No outer checksum" },
	{ .name = "seq", .key = OPT_SEQ,
	  .doc = "GRE sequence numbers (gre and gre-udp only)" },

	{ .doc = "Device:" },
	{ .name = "dev", .key = OPT_DEV, .arg = "NAME",
	  .doc = "Tap device name (default gsotun0)" },
	{ .name = "mtu", .key = OPT_MTU, .arg = "N|auto",
	  .doc = "Tap MTU, 68..65535 (default auto: the underlay path MTU "
		 "minus the encapsulation overhead)" },
	{ .name = "address", .key = OPT_ADDRESS, .arg = "[DEV=]CIDR",
	  .doc = "Address/prefix for the tap (or tap DEV), IPv4 or IPv6; "
		 "repeatable, up to 16" },
	{ .name = "mac", .key = OPT_MAC, .arg = "[DEV=]MAC",
	  .doc = "Ethernet address of the tap (or tap DEV), unicast, not "
		 "zero (default: a stable one derived from the machine id, "
		 "the tap's name and the local address)" },
	{ .name = "no-offload", .key = OPT_NO_OFFLOAD,
	  .doc = "The classic userspace tunnel, as a baseline: no TSO or "
		 "checksum offload on the tap, no UDP GSO or GRO, no TCP "
		 "merging, one packet per system call" },
	{ .name = "no-gro", .key = OPT_NO_GRO,
	  .doc = "Do not merge received TCP segments or UDP datagrams into "
		 "super-frames for the tap" },
	{ .name = "udp-gro", .key = OPT_UDP_GRO, .arg = "auto|on|off",
	  .doc = "Merge received UDP datagrams: auto (default) on kernels "
		 "that cut them at their tunnel sockets (Linux 6.9, 6.8.5, "
		 "6.6.26 and later), on for one with that fix backported" },

	{ .doc = "Process:" },
	{ .name = "config", .key = OPT_CONFIG, .arg = "FILE",
	  .doc = "Read options from FILE first, one a line as 'NAME [VALUE]' "
		 "('learning', 'remote 192.0.2.2'); those of the command "
		 "line add to its lists and override the rest" },
	{ .name = "check", .key = OPT_CHECK,
	  .doc = "Check the options, print the configuration they make in "
		 "the form of --config, and exit (0, or 64 on an error) "
		 "without setting anything up" },
	{ .name = "verbose", .key = 'v',
	  .doc = "More messages (repeatable)" },
	{ .name = "quiet", .key = 'q',
	  .doc = "Fewer messages (repeatable)" },
	/* -h is --help, as people expect; argp has -? only. */
	{ .key = 'h', .flags = OPTION_HIDDEN, .doc = "Give this help list" },
	{ .name = "log-time", .key = OPT_LOG_TIME,
	  .doc = "Start each message on stderr with the local time" },
	{ .name = "daemon", .key = OPT_DAEMON,
	  .doc = "Run in the background, logging to syslog" },
	{ .name = "pidfile", .key = OPT_PIDFILE, .arg = "FILE",
	  .doc = "Write the process id to FILE" },
	{ .name = "control", .key = OPT_CONTROL, .arg = "@NAME|PATH|none",
	  .doc = "The control socket gsotunctl talks to: an abstract name "
		 "(default @gsotun/DEV, of this network namespace), a file, "
		 "or none" },
	{ .name = "admin-group", .key = OPT_ADMIN_GROUP, .arg = "GROUP",
	  .doc = "Members of GROUP (a name or a number) may change peers "
		 "and forwarding through the control socket, as root may; "
		 "gsotun's user and group only read" },
	{ .name = "user", .key = OPT_USER, .arg = "NAME",
	  .doc = "Once set up, run as user NAME (and its group) with no "
		 "capabilities but CAP_NET_ADMIN where the MTU must follow "
		 "the path" },
	{ .name = "chroot", .key = OPT_CHROOT, .arg = "DIR",
	  .doc = "Once set up, change root to DIR (with --user)" },
	{ .name = "no-seccomp", .key = OPT_NO_SECCOMP,
	  .doc = "Run without the seccomp filter that, once set up, "
		 "refuses every system call the tunnel does not make" },
	{ 0 }
};

static const char options_doc[] =
	"gsotun -- userspace tunnel endpoint that carries TSO/GSO "
	"super-frames from a tap over VXLAN, GRE or GRE-in-UDP."
	"\v"
	"Examples:\n"
	"  gsotun --remote 192.0.2.2 --address 10.0.0.1/24\n"
	"  gsotun --encap gre --key 7 --remote 2001:db8::2 "
	"--address fd00::1/64\n"
	"  gsotun --remote 192.0.2.2 --remote 192.0.2.3 --learning \\\n"
	"         --address 10.0.0.1/24\n"
	"  gsotun --encap gre-udp --local 198.51.100.1 "
	"--remote 198.51.100.2 \\\n"
	"         --mtu 1400 --daemon --pidfile /run/gsotun.pid\n"
	"\n"
	"Exit status: 0 on success, 1 on a runtime failure, 64 on a usage "
	"error.";

/* What the parser remembers besides struct config. */
struct options_state {
	struct config *cfg;
	bool port_set;
	bool src_ports_set;
	bool vni_set;
	bool key_tap_set;
	bool csum_set;
	/*
	 * --config: its lines, argv[1] to argv[n_conf] (conffile.c), and
	 * the line of the option being parsed (0: the command line's).
	 */
	const char *conf_name;
	const unsigned int *conf_lines;
	unsigned int n_conf;
	unsigned int line;
};

static void options_error(const struct argp_state *state, const char *fmt,
			  ...) __attribute__((format(printf, 2, 3)));

/* argp_error(), saying the file and line of an option from --config. */
static void options_error(const struct argp_state *state, const char *fmt,
			  ...)
{
	const struct options_state *st = state->input;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st->line)
		argp_error(state, "%s:%u: %s", st->conf_name, st->line, msg);
	else
		argp_error(state, "%s", msg);
}

/*
 * A strictly unsigned number: decimal, or hex after 0x; the whole string
 * and nothing else. strtoull() alone would take " +1", "-1" (as a huge
 * value) and "0x" prefixes in the middle, so the digits are checked first.
 */
static int options_num(const char *s, bool hex_ok, unsigned long long max,
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

/* A number option in min..max, or a usage error naming it. */
static int options_range(struct argp_state *state, const char *opt,
			 const char *arg, unsigned long long min,
			 unsigned long long max, unsigned long long *out)
{
	if (options_num(arg, true, max, out) || *out < min) {
		options_error(state, "invalid %s '%s': must be %llu..%llu", opt,
			   arg, min, max);
		return EINVAL;
	}
	return 0;
}

/*
 * The rules of dev_valid_name() in net/core/dev.c. '%' is refused too:
 * the kernel would expand "name%d", and the rest of gsotun addresses the
 * device by the name given here.
 */
static const char *options_dev_invalid(const char *name)
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

int options_ip_parse(const char *s, struct ipaddr *ip)
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
static const char *options_ip_unusable(const struct ipaddr *ip)
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

/* One unicast host's address into *ip; why it is not one, or NULL. */
const char *options_endpoint_parse(const char *arg, struct ipaddr *ip)
{
	if (options_ip_parse(arg, ip))
		return "not an IPv4 or IPv6 address";
	return options_ip_unusable(ip);
}

static int options_endpoint(struct argp_state *state, const char *opt,
			    const char *arg, struct ipaddr *ip)
{
	const char *why = options_endpoint_parse(arg, ip);

	if (why) {
		options_error(state, "invalid %s '%s': %s", opt, arg, why);
		return EINVAL;
	}
	return 0;
}

bool options_ip_equal(const struct ipaddr *a, const struct ipaddr *b)
{
	size_t len = a->family == AF_INET6 ? 16 : 4;

	return a->family == b->family && !memcmp(&a->addr, &b->addr, len);
}

/* A peer more in cfg, from the text of its address; why not, or NULL. */
static const char *options_add_remote(struct config *cfg, const char *arg)
{
	const char *why;
	struct ipaddr ip, *v;
	unsigned int i;

	why = options_endpoint_parse(arg, &ip);
	if (why)
		return why;
	for (i = 0; i < cfg->n_remotes; i++)
		if (options_ip_equal(&cfg->remotes[i], &ip))
			return "that peer is given already";
	if (cfg->n_remotes == CONFIG_MAX_PEERS)
		return "too many peers (at most 1024)";
	v = realloc(cfg->remotes, (cfg->n_remotes + 1) * sizeof(*v));
	if (!v)
		return "out of memory";
	cfg->remotes = v;
	v[cfg->n_remotes++] = ip;
	return NULL;
}

static int options_remote(struct argp_state *state, struct config *cfg,
			  const char *arg)
{
	const char *why = options_add_remote(cfg, arg);

	if (why) {
		options_error(state, "invalid --remote '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_remotes_cmd = cfg->n_remotes;
	return 0;
}

/* The value of hex digit c, or -1. */
static int options_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* xx:xx:xx:xx:xx:xx in len bytes at s, either case; false if not that. */
static bool options_mac_parse(const char *s, size_t len, uint8_t *mac)
{
	unsigned int i;

	if (len != 17)
		return false;
	for (i = 0; i < 6; i++) {
		int hi = options_hex_digit(s[3 * i]);
		int lo = options_hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return false;
		mac[i] = hi << 4 | lo;
	}
	return true;
}

const char *options_mac_vlan_parse(const char *s, size_t len, uint8_t *mac,
				   uint16_t *vlan)
{
	static const uint8_t zero[6];
	const char *at = memchr(s, '@', len);
	unsigned long long vid = 0;
	char buf[8];
	size_t n;

	if (!options_mac_parse(s, (at ? at : s + len) - s, mac))
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
		if (options_num(buf, false, 4094, &vid) || !vid)
			return "VID must be 1..4094";
	}
	*vlan = vid;
	return NULL;
}

const char *options_fdb_parse(const char *s, struct config_fdb *e)
{
	const char *eq = strchr(s, '='), *why;

	memset(e, 0, sizeof(*e));
	if (!eq)
		return "missing =ADDR";
	why = options_mac_vlan_parse(s, eq - s, e->mac, &e->vlan);
	if (why)
		return why;
	if (options_ip_parse(eq + 1, &e->peer))
		return "not an IPv4 or IPv6 address";
	return NULL;
}

static const char *options_address_dev(const char *arg, char *dev,
				       const char **rest);

/*
 * [DEV=]MAC[@VID]=ADDR into *e: a tap's name before the entry when there
 * are two '='. Why not, or NULL.
 */
static const char *options_fdb_dev_parse(const char *arg,
					 struct config_fdb *e)
{
	const char *eq = strchr(arg, '='), *entry = arg, *why;
	char dev[IFNAMSIZ] = "";

	if (eq && strchr(eq + 1, '=')) {
		why = options_address_dev(arg, dev, &entry);
		if (why)
			return why;
	}
	why = options_fdb_parse(entry, e);
	strcpy(e->dev, dev);
	return why;
}

/* Do a and b hold one key in one tap (either in every tap)? */
static bool options_fdb_clash(const struct config_fdb *a,
			      const struct config_fdb *b)
{
	return !memcmp(a->mac, b->mac, 6) && a->vlan == b->vlan &&
	       (!a->dev[0] || !b->dev[0] || !strcmp(a->dev, b->dev));
}

/* A static forwarding entry more in cfg; why not, or NULL. */
static const char *options_add_fdb(struct config *cfg, const char *arg)
{
	struct config_fdb e, *v;
	const char *why = options_fdb_dev_parse(arg, &e);
	unsigned int i;

	if (why)
		return why;
	for (i = 0; i < cfg->n_fdb; i++)
		if (options_fdb_clash(&cfg->fdb[i], &e))
			return "that MAC and VLAN have an entry already";
	if (cfg->n_fdb == CONFIG_MAX_FDB)
		return "too many entries (at most 4096)";
	v = realloc(cfg->fdb, (cfg->n_fdb + 1) * sizeof(*v));
	if (!v)
		return "out of memory";
	cfg->fdb = v;
	v[cfg->n_fdb++] = e;
	return NULL;
}

static int options_fdb(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	const char *why = options_add_fdb(cfg, arg);

	if (why) {
		options_error(state, "invalid --fdb '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_fdb_cmd = cfg->n_fdb;
	return 0;
}

/* ADDR/PREFIX; returns why it is not one, or NULL. */
static const char *options_cidr_parse(const char *s, struct cidr *c)
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
	if (options_num(slash + 1, false, max, &prefix))
		return max == 32 ? "IPv4 prefix must be 0..32"
				 : "IPv6 prefix must be 0..128";
	c->prefix = prefix;
	return NULL;
}

/* [DEV=]CIDR: the name into dev ("" without), the rest at *cidr. */
static const char *options_address_dev(const char *arg, char *dev,
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
	return options_dev_invalid(dev);
}

static int options_address(struct argp_state *state, struct config *cfg,
			   const char *arg)
{
	const char *why, *cidr;

	if (cfg->n_addrs == CONFIG_MAX_ADDRS) {
		options_error(state, "too many --address: at most %d",
			   CONFIG_MAX_ADDRS);
		return E2BIG;
	}
	why = options_address_dev(arg, cfg->addr_dev[cfg->n_addrs], &cidr);
	if (!why)
		why = options_cidr_parse(cidr, &cfg->addrs[cfg->n_addrs]);
	if (why) {
		options_error(state, "invalid --address '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_addrs++;
	return 0;
}

/* A tap's unicast MAC; returns why it is not one, or NULL. */
static const char *options_tap_mac_invalid(const char *s, uint8_t *mac)
{
	static const uint8_t zero[6];

	if (!options_mac_parse(s, strlen(s), mac))
		return "not a MAC address (xx:xx:xx:xx:xx:xx)";
	if (mac[0] & 1)
		return "a multicast MAC (a tap's address is unicast)";
	if (!memcmp(mac, zero, sizeof(zero)))
		return "the all-zero MAC";
	return NULL;
}

/* --mac [DEV=]MAC; which tap DEV is, options_check_macs() finds. */
static int options_mac(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	struct config_mac *m = &cfg->macs[cfg->n_macs];
	const char *why, *mac;

	if (cfg->n_macs == CONFIG_MAX_TUNNELS) {
		options_error(state, "too many --mac: at most %d",
			   CONFIG_MAX_TUNNELS);
		return E2BIG;
	}
	why = options_address_dev(arg, m->dev, &mac);
	if (!why)
		why = options_tap_mac_invalid(mac, m->mac);
	if (why) {
		options_error(state, "invalid --mac '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_macs++;
	return 0;
}

/* The host part of an --allow prefix must be zero: say what was meant. */
static bool options_cidr_host_bits(const struct cidr *c)
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

static int options_allow(struct argp_state *state, struct config *cfg,
			 const char *arg)
{
	const char *why;

	if (cfg->n_allow == CONFIG_MAX_ALLOW) {
		options_error(state, "too many --allow: at most %d",
			   CONFIG_MAX_ALLOW);
		return E2BIG;
	}
	why = options_cidr_parse(arg, &cfg->allow[cfg->n_allow]);
	if (!why && options_cidr_host_bits(&cfg->allow[cfg->n_allow]))
		why = "host bits set after the prefix";
	if (why) {
		options_error(state, "invalid --allow '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_allow++;
	return 0;
}

/* --user, --admin-group and --chroot: a non-empty string, kept. */
static int options_string(struct argp_state *state, const char *opt,
			  const char *arg, char **out)
{
	char *copy;

	if (!*arg) {
		options_error(state, "invalid %s '': empty", opt);
		return EINVAL;
	}
	copy = strdup(arg);
	if (!copy) {
		argp_failure(state, EXIT_FAILURE, ENOMEM, "%s", opt);
		return ENOMEM;
	}
	free(*out);
	*out = copy;
	return 0;
}

/*
 * Daemons chdir("/"), so a relative pid file or peers file is made absolute
 * against the directory gsotun was started in; otherwise writing and
 * removing it, or reading it again, would act on different files.
 */
static int options_path(struct argp_state *state, const char *opt,
			const char *arg, char **out)
{
	char *cwd = NULL, *path;
	int n;

	if (!*arg) {
		options_error(state, "invalid %s '': empty file name", opt);
		return EINVAL;
	}
	if (arg[0] == '/') {
		path = strdup(arg);
	} else {
		cwd = get_current_dir_name();
		if (!cwd) {
			n = errno;
			argp_failure(state, EXIT_FAILURE, n,
				     "%s '%s': cannot get the current "
				     "directory", opt, arg);
			return n;
		}
		n = asprintf(&path, "%s%s%s", cwd,
			     cwd[strlen(cwd) - 1] == '/' ? "" : "/", arg);
		if (n < 0)
			path = NULL;
		free(cwd);
	}
	if (!path) {
		argp_failure(state, EXIT_FAILURE, ENOMEM, "%s", opt);
		return ENOMEM;
	}
	free(*out);
	*out = path;
	return 0;
}

static int options_dev(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	const char *why = options_dev_invalid(arg);

	if (why) {
		options_error(state, "invalid --dev '%s': %s", arg, why);
		return EINVAL;
	}
	strcpy(cfg->dev, arg);
	return 0;
}

static int options_encap(struct argp_state *state, struct config *cfg,
			 const char *arg)
{
	int t = encap_from_name(arg);

	if (t < 0) {
		options_error(state, "invalid --encap '%s': must be vxlan, gre or "
			   "gre-udp", arg);
		return EINVAL;
	}
	cfg->encap.type = t;
	return 0;
}

static int options_mtu(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	unsigned long long v;

	if (!strcmp(arg, "auto")) {
		cfg->mtu = 0;
		return 0;
	}
	if (options_num(arg, true, MTU_MAX, &v) || v < MTU_MIN) {
		options_error(state, "invalid --mtu '%s': must be %d..%d or auto",
			   arg, MTU_MIN, MTU_MAX);
		return EINVAL;
	}
	cfg->mtu = v;
	return 0;
}

static int options_tos(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	unsigned long long v;

	if (!strcmp(arg, "inherit")) {
		cfg->tos_mode = TOS_INHERIT;
		cfg->tos = 0;
		return 0;
	}
	if (options_num(arg, true, 255, &v)) {
		options_error(state, "invalid --tos '%s': must be 0..255 or "
			   "inherit", arg);
		return EINVAL;
	}
	cfg->tos_mode = TOS_FIXED;
	cfg->tos = v;
	return 0;
}

static int options_df(struct argp_state *state, struct config *cfg,
		      const char *arg)
{
	static const char *const names[] = {
		[DF_UNSET] = "unset", [DF_SET] = "set",
		[DF_INHERIT] = "inherit",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(arg, names[i])) {
			cfg->df = i;
			cfg->df_set = true;
			return 0;
		}
	}
	options_error(state, "invalid --df '%s': must be set, unset or inherit",
		   arg);
	return EINVAL;
}

static int options_udp_gro(struct argp_state *state, struct config *cfg,
			   const char *arg)
{
	if (!strcmp(arg, "auto")) {
		cfg->udp_gro = UDP_GRO_AUTO;
	} else if (!strcmp(arg, "on")) {
		cfg->udp_gro = UDP_GRO_ON;
	} else if (!strcmp(arg, "off")) {
		cfg->udp_gro = UDP_GRO_OFF;
	} else {
		options_error(state, "invalid --udp-gro '%s': must be auto, on "
			   "or off", arg);
		return EINVAL;
	}
	return 0;
}

static int options_pmtud(struct argp_state *state, struct config *cfg,
			 const char *arg)
{
	if (strcmp(arg, "on") && strcmp(arg, "off")) {
		options_error(state, "invalid --pmtud '%s': must be on or off",
			   arg);
		return EINVAL;
	}
	cfg->pmtud = !strcmp(arg, "on");
	return 0;
}

/* Options that take a number straight into a field. */
/* --vni N=DEV or --key N=DEV: one more tap, for VNI or key N. */
static int options_tap(struct argp_state *state, const char *opt,
		       const char *arg, unsigned long long max)
{
	struct options_state *st = state->input;
	struct config *cfg = st->cfg;
	const char *eq = strchr(arg, '='), *why;
	struct config_tap *tap;
	unsigned long long v;
	char num[16];

	if (cfg->n_taps == CONFIG_MAX_TUNNELS - 1) {
		options_error(state, "too many taps: at most %d",
			   CONFIG_MAX_TUNNELS);
		return E2BIG;
	}
	tap = &cfg->taps[cfg->n_taps];
	why = "not a number in range before '='";
	if ((size_t)(eq - arg) < sizeof(num)) {
		memcpy(num, arg, eq - arg);
		num[eq - arg] = '\0';
		if (!options_num(num, true, max, &v))
			why = options_dev_invalid(eq + 1);
	}
	if (why) {
		options_error(state, "invalid %s '%s': %s", opt, arg, why);
		return EINVAL;
	}
	strcpy(tap->dev, eq + 1);
	tap->id = v;
	cfg->n_taps++;
	if (opt[2] == 'v')
		st->vni_set = true;
	else
		st->key_tap_set = true;
	return 0;
}

static int options_number(struct argp_state *state, int key, const char *arg)
{
	struct options_state *st = state->input;
	struct config *cfg = st->cfg;
	unsigned long long v;
	int err;

	switch (key) {
	case OPT_PORT:
		err = options_range(state, "--port", arg, 1, 65535, &v);
		if (!err) {
			cfg->port = v;
			st->port_set = true;
		}
		return err;
	case OPT_SOURCE_PORTS:
		err = options_range(state, "--source-ports", arg, 1,
				    CONFIG_MAX_SRC_PORTS, &v);
		if (!err) {
			cfg->src_ports = v;
			st->src_ports_set = true;
		}
		return err;
	case OPT_VNI:
		if (strchr(arg, '='))
			return options_tap(state, "--vni", arg, VNI_MAX);
		err = options_range(state, "--vni", arg, 0, VNI_MAX, &v);
		if (!err) {
			cfg->encap.vni = v;
			st->vni_set = true;
		}
		return err;
	case OPT_KEY:
		if (strchr(arg, '='))
			return options_tap(state, "--key", arg, KEY_MAX);
		err = options_range(state, "--key", arg, 0, KEY_MAX, &v);
		if (!err) {
			cfg->encap.key = v;
			cfg->encap.has_key = true;
		}
		return err;
	case OPT_TTL:
		err = options_range(state, "--ttl", arg, 1, 255, &v);
		if (!err)
			cfg->ttl = v;
		return err;
	case OPT_AGEING:
		err = options_range(state, "--ageing", arg, 0,
				    CONFIG_MAX_AGEING, &v);
		if (!err)
			cfg->ageing = v;
		return err;
	case OPT_MAX_ADDRESS:
		err = options_range(state, "--max-address", arg, 1,
				    CONFIG_MAX_ADDRESS_MAX, &v);
		if (!err)
			cfg->max_address = v;
		return err;
	}
	return ARGP_ERR_UNKNOWN;
}

/* Options of one encapsulation given with another. */
static int options_check_encap(struct argp_state *state,
			       const struct options_state *st)
{
	const struct config *cfg = st->cfg;
	enum encap_type t = cfg->encap.type;

	/* GRE rides directly on IP protocol 47 (RFC 2784): no port. */
	if (st->port_set && t == ENCAP_GRE) {
		options_error(state, "--port is not used with --encap gre");
		return EINVAL;
	}
	if (st->src_ports_set && t == ENCAP_GRE) {
		options_error(state, "--source-ports is not used with --encap "
			   "gre");
		return EINVAL;
	}
	if (st->vni_set && t != ENCAP_VXLAN) {
		options_error(state, "--vni is for --encap vxlan, not %s (use "
			   "--key)", encap_name(t));
		return EINVAL;
	}
	if (cfg->encap.has_key && t == ENCAP_VXLAN) {
		options_error(state, "--key is for --encap gre or gre-udp, not "
			   "vxlan (use --vni)");
		return EINVAL;
	}
	if (cfg->encap.gre_seq && t == ENCAP_VXLAN) {
		options_error(state, "--seq is for --encap gre or gre-udp, not "
			   "vxlan");
		return EINVAL;
	}
	return 0;
}

/*
 * The peers: at least one (with --peers, one may come from the file), all
 * of one family, which becomes cfg->family. Why not, or NULL.
 */
static const char *options_peers_invalid(struct config *cfg, bool need_one)
{
	unsigned int i;

	if (!cfg->n_remotes && need_one && cfg->peers_file)
		return "no peer: give --remote ADDR or a 'remote' line in "
		       "--peers";
	if (!cfg->n_remotes)
		return need_one ? "missing --remote ADDR: the peer's address"
				: NULL;
	if (!cfg->family)
		cfg->family = cfg->remotes[0].family;
	for (i = 0; i < cfg->n_remotes; i++)
		if (cfg->remotes[i].family != cfg->family)
			return "every --remote must be IPv4, or every one IPv6";
	return NULL;
}

/* The tap named dev: 0 for --dev, i for taps[i - 1]; -1 if none. */
static int options_tap_index(const struct config *cfg, const char *dev)
{
	unsigned int i;

	if (!strcmp(dev, cfg->dev))
		return 0;
	for (i = 0; i < cfg->n_taps; i++)
		if (!strcmp(dev, cfg->taps[i].dev))
			return (int)i + 1;
	return -1;
}

/*
 * Every --fdb names a peer, and a tap with DEV=; which one does not, in
 * buf, or NULL.
 */
static const char *options_fdb_invalid(const struct config *cfg, char *buf,
				       size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned int i, j;

	for (i = 0; i < cfg->n_fdb; i++) {
		const struct ipaddr *a = &cfg->fdb[i].peer;
		const char *dev = cfg->fdb[i].dev;

		if (dev[0] && options_tap_index(cfg, dev) < 0) {
			snprintf(buf, len, "--fdb %s=...: no tap is named %s "
				 "(--dev, --vni N=DEV, --key N=DEV)", dev, dev);
			return buf;
		}
		for (j = 0; j < cfg->n_remotes; j++)
			if (options_ip_equal(&cfg->remotes[j], a))
				break;
		if (j < cfg->n_remotes)
			continue;
		inet_ntop(a->family, &a->addr, addr, sizeof(addr));
		snprintf(buf, len, "--fdb: %s is not a --remote", addr);
		return buf;
	}
	return NULL;
}

/*
 * One line of a peers file: "remote ADDR", "fdb MAC[@VID]=ADDR", or
 * nothing; '#' starts a comment. Why not, or NULL.
 */
static const char *options_peers_line(struct config *cfg, char *line)
{
	char *hash = strchr(line, '#'), *key, *val, *save;

	if (hash)
		*hash = '\0';
	key = strtok_r(line, " \t\r\n", &save);
	if (!key)
		return NULL;
	val = strtok_r(NULL, " \t\r\n", &save);
	if (!val)
		return "a value is missing";
	if (strtok_r(NULL, " \t\r\n", &save))
		return "one value a line";
	if (!strcmp(key, "remote"))
		return options_add_remote(cfg, val);
	if (!strcmp(key, "fdb"))
		return options_add_fdb(cfg, val);
	return "neither 'remote ADDR' nor 'fdb [DEV=]MAC[@VID]=ADDR'";
}

/* The command line's part of cfg's lists, copied into c. */
static int options_copy_cmd(const struct config *cfg, struct config *c)
{
	size_t r = cfg->n_remotes_cmd * sizeof(*c->remotes);
	size_t f = cfg->n_fdb_cmd * sizeof(*c->fdb);

	c->remotes = r ? malloc(r) : NULL;
	c->fdb = f ? malloc(f) : NULL;
	if ((r && !c->remotes) || (f && !c->fdb))
		return -ENOMEM;
	if (r)
		memcpy(c->remotes, cfg->remotes, r);
	if (f)
		memcpy(c->fdb, cfg->fdb, f);
	c->n_remotes = cfg->n_remotes_cmd;
	c->n_fdb = cfg->n_fdb_cmd;
	return 0;
}

/* Read the lines of f into c; why not, with its line number, or NULL. */
static const char *options_peers_read(struct config *c, FILE *f, char *buf,
				      size_t len)
{
	char line[256];
	const char *why = NULL;
	unsigned int n = 0;
	size_t read = 0;

	while (!why && fgets(line, sizeof(line), f)) {
		n++;
		/* A file that grows as it is read is cut where it may. */
		read += strlen(line);
		if (read > OPTIONS_PEERS_FILE_MAX)
			why = "more than 1024 KiB";
		else if (!strchr(line, '\n') && !feof(f))
			why = "line too long";
		else
			why = options_peers_line(c, line);
	}
	if (!why && ferror(f))
		return "cannot read it";
	if (!why)
		return NULL;
	snprintf(buf, len, "line %u: %s", n, why);
	return buf;
}

int options_peers_load(struct config *cfg, FILE *f, char *why, size_t len)
{
	struct config c = *cfg;
	const char *err;

	if (options_copy_cmd(cfg, &c)) {
		err = "out of memory";
	} else {
		err = options_peers_read(&c, f, why, len);
		if (!err)
			err = options_peers_invalid(&c, true);
		if (!err)
			err = options_fdb_invalid(&c, why, len);
	}
	if (err) {
		if (err != why)
			snprintf(why, len, "%s", err);
		free(c.remotes);
		free(c.fdb);
		return -EINVAL;
	}
	free(cfg->remotes);
	free(cfg->fdb);
	cfg->remotes = c.remotes;
	cfg->n_remotes = c.n_remotes;
	cfg->fdb = c.fdb;
	cfg->n_fdb = c.n_fdb;
	cfg->family = c.family;
	return 0;
}

/*
 * A regular file of at most OPTIONS_PEERS_FILE_MAX bytes, opened with
 * flags more (O_NOFOLLOW), never blocking on a FIFO put at its name.
 */
static FILE *options_file_open(int dir, const char *name, int flags,
			       char *why, size_t len)
{
	struct stat st;
	FILE *f = NULL;
	int fd;

	fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				       flags);
	if (fd < 0 && errno == ELOOP && (flags & O_NOFOLLOW)) {
		snprintf(why, len, "a symbolic link: give the file itself");
		return NULL;
	}
	if (fd < 0) {
		snprintf(why, len, "cannot open it: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st))
		snprintf(why, len, "cannot read it: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, len, "not a regular file");
	else if (st.st_size > OPTIONS_PEERS_FILE_MAX)
		snprintf(why, len, "larger than %u KiB",
			 OPTIONS_PEERS_FILE_MAX >> 10);
	else if (!(f = fdopen(fd, "r")))
		snprintf(why, len, "%s", strerror(errno));
	if (!f)
		close(fd);
	return f;
}

FILE *options_peers_open(int dir, const char *name, char *why, size_t len)
{
	return options_file_open(dir, name, O_NOFOLLOW, why, len);
}

/* --peers: the file's entries after the command line's. */
static int options_check_peers_file(struct argp_state *state,
				    struct config *cfg)
{
	char why[160];
	FILE *f;
	int err;

	if (!cfg->peers_file)
		return 0;
	f = options_peers_open(AT_FDCWD, cfg->peers_file, why, sizeof(why));
	if (!f) {
		options_error(state, "cannot read --peers '%s': %s",
			   cfg->peers_file, why);
		return EINVAL;
	}
	err = options_peers_load(cfg, f, why, sizeof(why));
	fclose(f);
	if (err) {
		options_error(state, "--peers '%s': %s", cfg->peers_file, why);
		return EINVAL;
	}
	return 0;
}

/* The peers, and the local address of their family. */
static int options_check_peer(struct argp_state *state, struct config *cfg)
{
	const char *why = options_peers_invalid(cfg, true);

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	if (cfg->local.family && cfg->local.family != cfg->family) {
		options_error(state, "--local and --remote must both be IPv4 or "
			   "both IPv6");
		return EINVAL;
	}
	return 0;
}

static int options_check_fdb(struct argp_state *state,
			     const struct config *cfg)
{
	char buf[160];
	const char *why = options_fdb_invalid(cfg, buf, sizeof(buf));

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
}

static int options_check_allow(struct argp_state *state,
			       const struct config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->n_allow; i++) {
		if (cfg->allow[i].family != cfg->family) {
			options_error(state, "--allow must be of the family of "
				   "--remote");
			return EINVAL;
		}
	}
	return 0;
}

/*
 * The taps of --vni N=DEV and --key N=DEV: names and VNIs or keys of
 * their own, and the --address DEV=CIDR of each. Why not, or NULL.
 */
static const char *options_taps_invalid(struct config *cfg, bool key_taps)
{
	bool keyed = cfg->encap.type != ENCAP_VXLAN;
	uint32_t main_id = keyed ? cfg->encap.key : cfg->encap.vni;
	bool main_has = !keyed || cfg->encap.has_key;
	unsigned int i, j;
	int tap;

	if (key_taps && !keyed)
		return "--key N=DEV is for --encap gre or gre-udp (use --vni "
		       "N=DEV)";
	for (i = 0; i < cfg->n_taps; i++) {
		const struct config_tap *t = &cfg->taps[i];

		if (main_has && t->id == main_id)
			return keyed ? "two taps with one --key"
				     : "two taps with one --vni";
		if (options_tap_index(cfg, t->dev) != (int)i + 1)
			return "two taps with one name";
		for (j = 0; j < i; j++)
			if (cfg->taps[j].id == t->id)
				return keyed ? "two taps with one --key"
					     : "two taps with one --vni";
	}
	for (i = 0; i < cfg->n_addrs; i++) {
		tap = cfg->addr_dev[i][0]
			      ? options_tap_index(cfg, cfg->addr_dev[i]) : 0;
		if (tap < 0)
			return "--address DEV=CIDR names no tap (--dev, --vni "
			       "N=DEV, --key N=DEV)";
		cfg->addr_tap[i] = tap;
	}
	return NULL;
}

static int options_check_taps(struct argp_state *state,
			      struct options_state *st)
{
	const char *why = options_taps_invalid(st->cfg, st->key_tap_set);

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
}

/* Each --mac DEV=MAC names a tap, and a tap has one --mac at most. */
static int options_check_macs(struct argp_state *state, struct config *cfg)
{
	unsigned int i, j;
	int tap;

	for (i = 0; i < cfg->n_macs; i++) {
		struct config_mac *m = &cfg->macs[i];

		tap = m->dev[0] ? options_tap_index(cfg, m->dev) : 0;
		if (tap < 0) {
			options_error(state, "--mac %s=MAC: no tap is named %s "
				   "(--dev, --vni N=DEV, --key N=DEV)", m->dev,
				   m->dev);
			return EINVAL;
		}
		m->tap = tap;
		for (j = 0; j < i; j++) {
			if (cfg->macs[j].tap == tap) {
				options_error(state, "two --mac for tap %s",
					   tap ? cfg->taps[tap - 1].dev
					       : cfg->dev);
				return EINVAL;
			}
		}
	}
	return 0;
}

const uint8_t *options_tap_mac(const struct config *cfg, unsigned int tap)
{
	unsigned int i;

	for (i = 0; i < cfg->n_macs; i++)
		if (cfg->macs[i].tap == tap)
			return cfg->macs[i].mac;
	return NULL;
}

/* IPv6 routers never fragment (RFC 8200 section 5): no DF bit. */
static int options_check_df(struct argp_state *state,
			    const struct config *cfg)
{
	if (cfg->df_set && cfg->family == AF_INET6) {
		options_error(state, "--df is for IPv4 underlays; IPv6 packets "
			   "are never fragmented on the way");
		return EINVAL;
	}
	return 0;
}

/*
 * The peers file as gsotun will see it inside the chroot, in *out: the
 * file is read again there on SIGHUP, and a descriptor of a directory
 * outside kept open would lead out of it (openat(fd, "../..")). Why it
 * cannot be, or NULL.
 */
static const char *options_peers_root(const char *root, const char *file,
				      char **out)
{
	char *r = realpath(root, NULL), *f = realpath(file, NULL);
	const char *why = NULL;
	size_t n;

	if (!r || !f) {
		why = !r ? "cannot resolve --chroot" : "cannot resolve --peers";
		goto out;
	}
	n = strlen(r);
	/* "/" as the root holds everything. */
	if (n == 1)
		n = 0;
	if (strncmp(f, r, n) || f[n] != '/') {
		why = "--peers must be a file inside --chroot, where gsotun "
		      "reads it again on SIGHUP";
		goto out;
	}
	*out = strdup(f + n);
	if (!*out)
		why = "out of memory";
out:
	free(r);
	free(f);
	return why;
}

static int options_check_process(struct argp_state *state,
				 struct config *cfg)
{
	const char *why;

	if (cfg->chroot && !cfg->user) {
		options_error(state, "--chroot needs --user (root can leave a "
			   "chroot)");
		return EINVAL;
	}
	if (cfg->admin_group && cfg->control &&
	    !strcmp(cfg->control, "none")) {
		options_error(state, "--admin-group with --control none: there "
			   "is no control socket to change anything through");
		return EINVAL;
	}
	if (cfg->chroot && cfg->chroot[0] != '/') {
		options_error(state, "invalid --chroot '%s': not an absolute "
			   "path", cfg->chroot);
		return EINVAL;
	}
	if (!cfg->chroot || !cfg->peers_file)
		return 0;
	why = options_peers_root(cfg->chroot, cfg->peers_file,
				 &cfg->peers_in_root);
	if (why) {
		options_error(state, "--peers '%s' with --chroot '%s': %s",
			   cfg->peers_file, cfg->chroot, why);
		return EINVAL;
	}
	return 0;
}

/* What the encapsulation implies where no option said. */
static void options_implied(struct options_state *st)
{
	struct config *cfg = st->cfg;
	enum encap_type t = cfg->encap.type;

	if (!st->port_set)
		cfg->port = t == ENCAP_VXLAN ? VXLAN_PORT
			    : t == ENCAP_GRE_UDP ? GRE_UDP_PORT : 0;
	if (t != ENCAP_VXLAN)
		cfg->encap.vni = 0;
	if (!st->src_ports_set)
		cfg->src_ports = encap_is_udp(t) ? CONFIG_SRC_PORTS : 1;
	/*
	 * Outer UDP checksums are on by default, as the kernel's vxlan
	 * sends them (udpcsum); the GRE checksum is off, as in ip_gre.
	 */
	if (!st->csum_set)
		cfg->csum = encap_is_udp(t);
	cfg->encap.gre_csum = t == ENCAP_GRE && cfg->csum;
}

/*
 * Checks and defaults that depend on several options, given in any
 * order; the first check that fails is the one reported.
 */
static int options_finish(struct argp_state *state)
{
	struct options_state *st = state->input;
	int err;

	err = options_check_peers_file(state, st->cfg);
	if (!err)
		err = options_check_peer(state, st->cfg);
	if (!err)
		err = options_check_fdb(state, st->cfg);
	if (!err)
		err = options_check_encap(state, st);
	if (!err)
		err = options_check_allow(state, st->cfg);
	if (!err)
		err = options_check_process(state, st->cfg);
	if (!err)
		err = options_check_taps(state, st);
	if (!err)
		err = options_check_macs(state, st->cfg);
	if (!err)
		err = options_check_df(state, st->cfg);
	if (!err)
		options_implied(st);
	return err;
}

/* The options that only set something; false for any other key. */
static bool options_flag(int key, struct options_state *st)
{
	struct config *cfg = st->cfg;

	switch (key) {
	case OPT_CSUM:
	case OPT_NO_CSUM:
		cfg->csum = key == OPT_CSUM;
		st->csum_set = true;
		return true;
	case OPT_SEQ:
		cfg->encap.gre_seq = true;
		return true;
	case OPT_NO_OFFLOAD:
		/* No offload of any kind, TCP merging included (--no-gro). */
		cfg->offload = false;
		cfg->gro = false;
		return true;
	case OPT_NO_GRO:
		cfg->gro = false;
		return true;
	case 'v':
		cfg->verbosity++;
		return true;
	case 'q':
		cfg->verbosity--;
		return true;
	case OPT_DAEMON:
		cfg->daemon = true;
		return true;
	case OPT_LOG_TIME:
		cfg->log_time = true;
		return true;
	case OPT_NO_SECCOMP:
		cfg->seccomp = false;
		return true;
	case OPT_LEARNING:
		cfg->learning = true;
		return true;
	case OPT_CHECK:
		cfg->check = true;
		return true;
	}
	return false;
}

/* --control: "none", "@NAME" or a file, made absolute; it must fit. */
static int options_control(struct argp_state *state, struct config *cfg,
			   const char *arg)
{
	struct sockaddr_un sa;
	int err = 0;

	free(cfg->control);
	cfg->control = NULL;
	if (arg[0] == '@' && !arg[1]) {
		options_error(state, "invalid --control '@': empty name");
		return EINVAL;
	}
	if (!strcmp(arg, "none") || arg[0] == '@') {
		cfg->control = strdup(arg);
		if (!cfg->control)
			argp_failure(state, EXIT_FAILURE, ENOMEM, "--control");
	} else {
		err = options_path(state, "--control", arg, &cfg->control);
	}
	if (!err && strcmp(cfg->control, "none") &&
	    !control_name(cfg->control, "", &sa)) {
		options_error(state, "invalid --control '%s': longer than a "
			   "socket name can be (%zu bytes)", arg,
			   sizeof(sa.sun_path) - 2);
		return EINVAL;
	}
	return err;
}

/*
 * The line of --config an option came from, or 0: the file's are argv[1]
 * to argv[n_conf], one each ("--NAME=VALUE"), so the option argp parses
 * is the word before state->next. argp's own keys are no option's.
 */
static unsigned int options_line(const struct argp_state *state, int key)
{
	const struct options_state *st = state->input;
	int i = state->next - 1;

	if (key <= 0 || key >= ARGP_KEY_END || i < 1 || i > (int)st->n_conf)
		return 0;
	return st->conf_lines[i - 1];
}

static error_t options_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct options_state *st = state->input;
	struct config *cfg = st->cfg;

	st->line = options_line(state, key);
	if (options_flag(key, st))
		return 0;
	switch (key) {
	case 'h':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return 0;
	case OPT_CONFIG:
		/* Read before the rest, by options_parse(). */
		return 0;
	case OPT_REMOTE:
		return options_remote(state, cfg, arg);
	case OPT_FDB:
		return options_fdb(state, cfg, arg);
	case OPT_LOCAL:
		return options_endpoint(state, "--local", arg, &cfg->local);
	case OPT_ALLOW:
		return options_allow(state, cfg, arg);
	case OPT_PORT:
	case OPT_SOURCE_PORTS:
	case OPT_VNI:
	case OPT_KEY:
	case OPT_TTL:
	case OPT_AGEING:
	case OPT_MAX_ADDRESS:
		return options_number(state, key, arg);
	case OPT_TOS:
		return options_tos(state, cfg, arg);
	case OPT_DF:
		return options_df(state, cfg, arg);
	case OPT_PMTUD:
		return options_pmtud(state, cfg, arg);
	case OPT_UDP_GRO:
		return options_udp_gro(state, cfg, arg);
	case OPT_ENCAP:
		return options_encap(state, cfg, arg);
	case OPT_DEV:
		return options_dev(state, cfg, arg);
	case OPT_MTU:
		return options_mtu(state, cfg, arg);
	case OPT_ADDRESS:
		return options_address(state, cfg, arg);
	case OPT_MAC:
		return options_mac(state, cfg, arg);
	case OPT_PIDFILE:
		return options_path(state, "--pidfile", arg, &cfg->pidfile);
	case OPT_PEERS:
		return options_path(state, "--peers", arg, &cfg->peers_file);
	case OPT_CONTROL:
		return options_control(state, cfg, arg);
	case OPT_USER:
		return options_string(state, "--user", arg, &cfg->user);
	case OPT_ADMIN_GROUP:
		return options_string(state, "--admin-group", arg,
				      &cfg->admin_group);
	case OPT_CHROOT:
		return options_string(state, "--chroot", arg, &cfg->chroot);
	case ARGP_KEY_ARG:
		options_error(state, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		return options_finish(state);
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp options_argp = {
	.options = options_table,
	.parser = options_parse_opt,
	.doc = options_doc,
};

static void options_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->dev, CONFIG_DEV);
	cfg->encap.type = ENCAP_VXLAN;
	cfg->encap.vni = CONFIG_VNI;
	cfg->tos_mode = TOS_FIXED;
	cfg->offload = true;
	cfg->gro = true;
	cfg->pmtud = true;
	cfg->seccomp = true;
	cfg->ageing = CONFIG_AGEING;
	cfg->max_address = CONFIG_MAX_ADDRESS;
}

/* Long options argp adds to the table. */
static const char *const options_argp_own[] = { "help", "usage", "version",
						"program-name", "HANG" };
#define OPTIONS_N_ARGP_OWN                                                    \
	(sizeof(options_argp_own) / sizeof(*options_argp_own))

/* Levenshtein's distance of a (la bytes) and b, both under 64 bytes. */
static unsigned int options_distance(const char *a, size_t la, const char *b)
{
	unsigned int row[64], i, j, diag, up;
	size_t lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return UINT_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* The option of the table named name (len bytes) or by a prefix of it. */
static const struct argp_option *options_find(const char *name, size_t len,
					      bool *known)
{
	const struct argp_option *o, *hit = NULL;
	unsigned int i, hits = 0;

	*known = false;
	for (i = 0; i < OPTIONS_N_ARGP_OWN; i++)
		*known |= !strncmp(options_argp_own[i], name, len);
	for (o = options_table; o->name || o->doc; o++) {
		if (!o->name || strncmp(o->name, name, len))
			continue;
		*known = true;
		if (!o->name[len])
			return o;
		hit = o;
		hits++;
	}
	return hits == 1 ? hit : NULL;
}

/*
 * The name of the table closest to name (len bytes), if it is close: two
 * edits at most, and not more than a third of what was typed.
 */
const char *options_closest(const char *name, size_t len)
{
	const struct argp_option *o;
	unsigned int d, best = 3;
	const char *hit = NULL;

	for (o = options_table; o->name || o->doc; o++) {
		if (!o->name)
			continue;
		d = options_distance(name, len, o->name);
		if (d < best && 3 * d <= len) {
			best = d;
			hit = o->name;
		}
	}
	return hit;
}

/* Where options_scan_next() is in an argv. */
struct options_scan {
	int argc, i;
	char **argv;
	const char *name;		/* after "--", len bytes before '=' */
	size_t len;
	const struct argp_option *o;	/* NULL: none, or ambiguous (known) */
	bool known;			/* it names one, or the start of some */
	const char *value;		/* what o takes, or NULL */
};

/*
 * The next long option of argv, as getopt_long() will see it, up to
 * "--": its argument, given with '=' or as the next word, taken too.
 * false at the end.
 */
static bool options_scan_next(struct options_scan *sc)
{
	while (++sc->i < sc->argc && strcmp(sc->argv[sc->i], "--")) {
		if (strncmp(sc->argv[sc->i], "--", 2))
			continue;
		sc->name = sc->argv[sc->i] + 2;
		sc->len = strcspn(sc->name, "=");
		sc->o = options_find(sc->name, sc->len, &sc->known);
		sc->value = NULL;
		if (sc->o && sc->o->arg)
			sc->value = sc->name[sc->len] ? sc->name + sc->len + 1
				    : sc->i + 1 < sc->argc ? sc->argv[++sc->i]
							   : NULL;
		return true;
	}
	return false;
}

/*
 * A long option that names none, nor the start of one: said with the
 * closest name (getopt_long() says "unrecognized" alone), exit 64. The
 * scan stops at one that is ambiguous, which getopt_long() explains.
 */
static void options_check_unknown(int argc, char **argv)
{
	struct options_scan sc = { .argc = argc, .argv = argv };
	const char *near;

	while (options_scan_next(&sc)) {
		if (sc.known && !sc.o)
			return;
		if (sc.known)
			continue;
		near = options_closest(sc.name, sc.len);
		fprintf(stderr, "gsotun: unrecognized option '--%.*s'",
			(int)sc.len, sc.name);
		if (near)
			fprintf(stderr, " (did you mean --%s?)", near);
		fprintf(stderr, "\nTry `gsotun --help' or `gsotun --usage' for "
			"more information.\n");
		exit(EX_USAGE);
	}
}

/* The file of the last --config of argv, or NULL. */
static const char *options_config_file(int argc, char **argv)
{
	struct options_scan sc = { .argc = argc, .argv = argv };
	const char *file = NULL;

	while (options_scan_next(&sc))
		if (sc.o && sc.o->key == OPT_CONFIG)
			file = sc.value;
	return file;
}

/* argv[0], the words of cf, the rest of argv: one argv for argp. */
static char **options_join(int argc, char **argv, const struct conffile *cf,
			   int *n)
{
	char **v = malloc((cf->n + (argc > 0 ? argc : 1) + 1) * sizeof(*v));
	int i;

	if (!v)
		return NULL;
	/* getopt_long()'s messages begin "gsotun:" as the others do. */
	v[0] = (char *)"gsotun";
	for (i = 0; i < (int)cf->n; i++)
		v[1 + i] = cf->words[i];
	*n = 1 + (int)cf->n;
	for (i = 1; i < argc; i++)
		v[(*n)++] = argv[i];
	v[*n] = NULL;
	return v;
}

int options_parse_file(int argc, char **argv, FILE *f, const char *name,
		       bool quiet, struct config *cfg)
{
	struct options_state st = { .cfg = cfg, .conf_name = name };
	struct conffile cf = { 0 };
	unsigned int line = 0;
	char why[160], **v;
	int n, err = 0;

	options_defaults(cfg);
	if (f)
		err = conffile_read(f, &cf, &line, why, sizeof(why));
	if (err && !quiet) {
		/* Line 0: of the file as a whole (its size, a read error). */
		if (line)
			fprintf(stderr, "gsotun: %s:%u: %s\n", name, line, why);
		else
			fprintf(stderr, "gsotun: %s: %s\n", name, why);
		exit(err == -ENOMEM ? EXIT_FAILURE : EX_USAGE);
	}
	if (err)
		return err;
	v = options_join(argc, argv, &cf, &n);
	if (!v) {
		conffile_free(&cf);
		if (quiet)
			return -ENOMEM;
		fprintf(stderr, "gsotun: out of memory\n");
		exit(EXIT_FAILURE);
	}
	st.conf_lines = cf.lines;
	st.n_conf = cf.n;
	/* glibc's default already, but the exit status is our interface. */
	argp_err_exit_status = EX_USAGE;
	err = argp_parse(&options_argp, n, v,
			 quiet ? ARGP_NO_EXIT | ARGP_NO_ERRS : 0, NULL, &st);
	free(v);
	conffile_free(&cf);
	return err ? -err : 0;
}

int options_parse(int argc, char **argv, struct config *cfg)
{
	const char *file;
	char why[160];
	FILE *f = NULL;
	int err;

	options_check_unknown(argc, argv);
	file = options_config_file(argc, argv);
	if (file) {
		/*
		 * A symlink followed, unlike --peers: read once, at start, as
		 * root, never again after privileges are dropped.
		 */
		f = options_file_open(AT_FDCWD, file, 0, why, sizeof(why));
		if (!f) {
			fprintf(stderr, "gsotun: cannot read --config '%s': "
				"%s\n", file, why);
			exit(EX_USAGE);
		}
	}
	err = options_parse_file(argc, argv, f, file, false, cfg);
	if (f)
		fclose(f);
	return err;
}

void options_free(struct config *cfg)
{
	free(cfg->pidfile);
	free(cfg->user);
	free(cfg->admin_group);
	free(cfg->chroot);
	free(cfg->remotes);
	free(cfg->fdb);
	free(cfg->peers_file);
	free(cfg->peers_in_root);
	free(cfg->control);
	cfg->peers_file = NULL;
	cfg->peers_in_root = NULL;
	cfg->control = NULL;
	cfg->pidfile = NULL;
	cfg->user = NULL;
	cfg->admin_group = NULL;
	cfg->chroot = NULL;
	cfg->remotes = NULL;
	cfg->fdb = NULL;
}

bool options_cidr_contains(const struct cidr *c, const uint8_t *addr)
{
	const uint8_t *net = (const uint8_t *)&c->addr;
	unsigned int bytes = c->prefix / 8, bits = c->prefix % 8;

	if (memcmp(net, addr, bytes))
		return false;
	return !bits || !((net[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}
