// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * optable: the options gsotun takes (argp's table: names, keys, values,
 * what each does), and the one of them a name means or nearly means.
 */
#include "config.h"

#include <argp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encap/encap.h"
#include "conf/optable.h"
#include "conf/types.h"

const struct argp_option optable[] = {
	{ .doc = "Tunnel:" },
	{ .name = "remote", .key = OPT_REMOTE, .arg = "ADDR",
	  .doc = "A peer's IPv4 or IPv6 address; repeatable, one per peer, "
		 "all of one family, up to 1024 (none: --local gives the "
		 "family, peers come later)" },
	{ .name = "local", .key = OPT_LOCAL, .arg = "ADDR",
	  .doc = "Local address to bind and send from, same family as "
		 "--remote (default: any; 0.0.0.0 or :: any of a family)" },
	{ .name = "allow", .key = OPT_ALLOW, .arg = "CIDR",
	  .doc = "Also take packets from sources in CIDR (same family as "
		 "--remote); repeatable, up to 16" },
	{ .name = "port", .key = OPT_PORT, .arg = "N",
	  .doc = "UDP port sent to and bound, 1..65535 (default %s; not "
		 "with %s)" },
	{ .name = "source-ports", .key = OPT_SOURCE_PORTS, .arg = "N",
	  .doc = "UDP source ports that inner flows are spread over, for "
		 "ECMP and RSS on the way, 1..64 (default 8; 1: --port "
		 "only; not with %s)" },
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
	  .doc = "More peers and entries from FILE, lines 'remote ADDR', "
		 "'fdb [DEV=]MAC[@VID]=ADDR' and 'route [DEV=]PREFIX=ADDR', "
		 "read again on SIGHUP" },
	{ .name = "evpn", .key = OPT_EVPN,
	  .doc = "Join a BGP EVPN fabric that FRR on this host runs: peers "
		 "and remote MACs from zebra, the taps' MACs advertised "
		 "(--mode tap, --encap %s, --local ADDR; no --learning)" },
	{ .name = "evpn-port", .key = OPT_EVPN_PORT, .arg = "N",
	  .doc = "UDP port of the shadow vxlan devices --evpn makes for "
		 "zebra, 1..65535, not the underlay's --port (default "
		 "64789)" },
	{ .name = "evpn-vteps", .key = OPT_EVPN_VTEPS,
	  .arg = "PERCENT",
	  .doc = "The most of the peer slots the fabric's VTEPs may take, "
		 "1..100 per cent of 1024 (default 75): the rest stay for "
		 "--remote, --peers and peer add" },

	{ .doc = "Routing (--mode tun, several --remote):" },
	{ .name = "route", .key = OPT_ROUTE, .arg = "[DEV=]PREFIX=ADDR",
	  .doc = "IP packets to PREFIX (IPv4 or IPv6, longest match) go to "
		 "the peer at ADDR, one of --remote, in every tun (or tun "
		 "DEV), and PREFIX is routed into the tun; repeatable, up to "
		 "4096 (others are dropped)" },
	{ .name = "strict-source", .key = OPT_STRICT_SOURCE,
	  .doc = "Drop a received packet whose inner source is not routed "
		 "(by --route) to the peer it came from (default: taken, as "
		 "the kernel's GRE takes it)" },

	{ .doc = "Encapsulation:" },
	{ .name = "encap", .key = OPT_ENCAP, .arg = "TYPE",
	  .doc = "%s (default vxlan)" },
	{ .name = "vni", .key = OPT_VNI, .arg = "N",
	  .doc = "VXLAN network identifier, 0..16777215 (default 1; %s "
		 "only); N=DEV: another tap, DEV, for VNI N (repeatable, up "
		 "to 16 taps)" },
	{ .name = "key", .key = OPT_KEY, .arg = "N",
	  .doc = "GRE key, 0..4294967295 (default none; %s only); N=DEV: "
		 "another tap, DEV, for key N (repeatable)" },
	{ .name = "csum", .key = OPT_CSUM,
	  .doc = "Outer checksum: UDP checksum for the UDP encapsulations, "
		 "GRE checksum for gre (default: on over UDP, off for gre)" },
	{ .name = "no-csum", .key = OPT_NO_CSUM,
	  .doc = "No outer checksum" },
	{ .name = "seq", .key = OPT_SEQ,
	  .doc = "GRE sequence numbers (%s only)" },

	{ .doc = "Device:" },
	{ .name = "mode", .key = OPT_MODE, .arg = "tap|tun",
	  .doc = "A tap, Ethernet frames (default), or a tun, IP packets "
		 "(--encap %s)" },
	{ .name = "dev", .key = OPT_DEV, .arg = "NAME",
	  .doc = "Tap (or tun) device name (default gsotun0)" },
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
	{ .name = "queues", .key = OPT_QUEUES, .arg = "N|auto",
	  .doc = "Data paths, each with a tap queue, an underlay socket and "
		 "a thread of its own: 1..64, or auto, one per CPU gsotun may "
		 "run on or --cpus lists (default 1; gre and --seq take 1)" },
	{ .name = "cpus", .key = OPT_CPUS, .arg = "LIST",
	  .doc = "Run queue i on the i-th CPU of LIST, as taskset -c takes "
		 "it ('0-3,8'); at least as many as --queues" },

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

/* Long options argp adds to the table. */
static const char *const optable_argp_own[] = { "help", "usage", "version",
						"program-name", "HANG" };
#define OPTABLE_N_ARGP_OWN                                                    \
	(sizeof(optable_argp_own) / sizeof(*optable_argp_own))

/*
 * The edits from a (la bytes) to b, both under 64 bytes: Levenshtein's
 * distance, a swap of two letters side by side one edit ("shwo" is one
 * from "show", as in Damerau's optimal string alignment).
 */
static unsigned int optable_distance(const char *a, size_t la, const char *b)
{
	unsigned int rows[3][64], *prev2, *prev, *row, i, j, v;
	size_t lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return UINT_MAX;
	/* Row i in rows[(i + 1) % 3], the two before it beside it. */
	for (j = 0; j <= lb; j++)
		rows[1][j] = j;
	for (i = 1; i <= la; i++) {
		prev2 = rows[(i + 2) % 3];
		prev = rows[i % 3];
		row = rows[(i + 1) % 3];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			row[j] = v;
		}
	}
	return rows[(la + 1) % 3][lb];
}

/* The option of the table named name (len bytes) or by a prefix of it. */
const struct argp_option *optable_find(const char *name, size_t len,
					      bool *known)
{
	const struct argp_option *o, *hit = NULL;
	unsigned int i, hits = 0;

	*known = false;
	for (i = 0; i < OPTABLE_N_ARGP_OWN; i++)
		*known |= !strncmp(optable_argp_own[i], name, len);
	for (o = optable; o->name || o->doc; o++) {
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
 * Is candidate closer to name (len bytes) than *best edits, and close: two
 * edits at most, and not more than a third of what was typed? Then *best
 * is its distance.
 */
static bool optable_closer(const char *name, size_t len,
			   const char *candidate, unsigned int *best)
{
	unsigned int d = optable_distance(name, len, candidate);

	if (d >= *best || 3 * d > len)
		return false;
	*best = d;
	return true;
}

/* The name of the table closest to name (len bytes), if it is close. */
const char *optable_closest(const char *name, size_t len)
{
	const struct argp_option *o;
	const char *hit = NULL;
	unsigned int best = 3;

	for (o = optable; o->name || o->doc; o++)
		if (o->name && optable_closer(name, len, o->name, &best))
			hit = o->name;
	return hit;
}

const char *optable_nearest(const char *name, size_t len,
			    const char *const *names, size_t n)
{
	const char *hit = NULL;
	unsigned int best = 3;
	size_t i;

	for (i = 0; i < n; i++)
		if (optable_closer(name, len, names[i], &best))
			hit = names[i];
	return hit;
}

/*
 * --help's lists of encapsulations, from their table: the doc of each
 * of these options above holds %s where its list goes (--port's first
 * %s: the default ports, optable_ports()).
 */
static const struct optable_encaps {
	int key;
	enum encap_opt o;
	bool takes;		/* those that take o, or those that do not */
	const char *conj;
} optable_encaps[] = {
	{ OPT_PORT, ENCAP_OPT_UDP, false, "or" },
	{ OPT_SOURCE_PORTS, ENCAP_OPT_UDP, false, "or" },
	{ OPT_EVPN, ENCAP_OPT_EVPN, true, "or" },
	{ OPT_ENCAP, ENCAP_OPT_ENCAP, true, "or" },
	{ OPT_VNI, ENCAP_OPT_VNI, true, "and" },
	{ OPT_KEY, ENCAP_OPT_KEY, true, "and" },
	{ OPT_SEQ, ENCAP_OPT_SEQ, true, "and" },
	{ OPT_MODE, ENCAP_OPT_TUN, true, "or" },
};

#define OPTABLE_N_ENCAPS (sizeof(optable_encaps) / sizeof(optable_encaps[0]))

/* "4789 for vxlan, 4754 for gre-udp": the default ports, into buf. */
static const char *optable_ports(char *buf, size_t len)
{
	unsigned int t, n = encap_count();
	size_t at = 0;

	buf[0] = '\0';
	for (t = 0; t < n && at < len; t++)
		if (encap_default_port(t))
			at += snprintf(buf + at, len - at, "%s%u for %s",
				       at ? ", " : "", encap_default_port(t),
				       encap_name(t));
	return buf;
}

/* text with its first %s as a, its second as b: malloc'd, or text. */
static char *optable_fill(const char *text, const char *a, const char *b)
{
	char *out = malloc(strlen(text) + strlen(a) + strlen(b) + 1);
	const char *p;
	char *o = out;

	if (!out)
		return (char *)text;
	while ((p = strstr(text, "%s"))) {
		memcpy(o, text, p - text);
		o = stpcpy(o + (p - text), a);
		a = b;
		b = "";
		text = p + 2;
	}
	strcpy(o, text);
	return out;
}

char *optable_help_filter(int key, const char *text, void *input)
{
	const struct optable_encaps *e = NULL;
	char list[256], ports[256];
	size_t i;

	for (i = 0; i < OPTABLE_N_ENCAPS && text; i++)
		if (optable_encaps[i].key == key)
			e = &optable_encaps[i];
	if (!e)
		return (char *)text;
	encap_names(list, sizeof(list), e->o, e->takes, e->conj);
	if (key == OPT_PORT)
		return optable_fill(text, optable_ports(ports, sizeof(ports)),
				    list);
	return optable_fill(text, list, "");
}
