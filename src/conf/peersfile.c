// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * peersfile: the peers, static entries and routes of a config, from argv
 * or the peers file, checked as a whole; the file read again on SIGHUP by
 * fwd.c.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "conf/cfg.h"
#include "conf/optvalue.h"
#include "conf/peersfile.h"

const char *peersfile_add_remote(struct config *cfg, const char *arg)
{
	const char *why;
	struct ipaddr ip, *v;
	unsigned int i;

	why = optvalue_endpoint_parse(arg, &ip);
	if (why)
		return why;
	for (i = 0; i < cfg->n_remotes; i++)
		if (optvalue_ip_equal(&cfg->remotes[i], &ip))
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

/* Do a and b hold one key in one tap (either in every tap)? */
static bool peersfile_fdb_clash(const struct config_fdb *a,
				const struct config_fdb *b)
{
	return !memcmp(a->mac, b->mac, 6) && a->vlan == b->vlan &&
	       (!a->dev[0] || !b->dev[0] || !strcmp(a->dev, b->dev));
}

const char *peersfile_add_fdb(struct config *cfg, const char *arg)
{
	struct config_fdb e, *v;
	const char *why = optvalue_fdb_dev_parse(arg, &e);
	unsigned int i;

	if (why)
		return why;
	for (i = 0; i < cfg->n_fdb; i++)
		if (peersfile_fdb_clash(&cfg->fdb[i], &e))
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

/* Do a and b route one prefix in one tap (either in every tap)? */
static bool peersfile_route_clash(const struct config_route *a,
				  const struct config_route *b)
{
	size_t n = a->prefix.family == AF_INET6 ? 16 : 4;

	return a->prefix.family == b->prefix.family &&
	       a->prefix.prefix == b->prefix.prefix &&
	       !memcmp(&a->prefix.addr, &b->prefix.addr, n) &&
	       (!a->dev[0] || !b->dev[0] || !strcmp(a->dev, b->dev));
}

const char *peersfile_add_route(struct config *cfg, const char *arg,
				char *buf, size_t len)
{
	char prefix[OPTVALUE_CIDR_TEXT_LEN], peer[INET6_ADDRSTRLEN];
	struct config_route e, *v;
	const char *why = optvalue_route_dev_parse(arg, &e);
	unsigned int i;

	if (why == optvalue_host_bits) {
		optvalue_cidr_mask(&e.prefix);
		snprintf(buf, len, "%s: the prefix is %s (ip route refuses "
			 "host bits too)", why,
			 optvalue_cidr_text(&e.prefix, prefix));
		return buf;
	}
	if (why)
		return why;
	for (i = 0; i < cfg->n_routes; i++) {
		const struct config_route *r = &cfg->routes[i];

		if (!peersfile_route_clash(r, &e))
			continue;
		inet_ntop(r->peer.family, &r->peer.addr, peer, sizeof(peer));
		snprintf(buf, len, "%s has a route already (to %s%s%s)",
			 optvalue_cidr_text(&e.prefix, prefix), peer,
			 r->dev[0] ? " in " : "", r->dev);
		return buf;
	}
	if (cfg->n_routes == CONFIG_MAX_ROUTES)
		return "too many routes (at most 4096)";
	v = realloc(cfg->routes, (cfg->n_routes + 1) * sizeof(*v));
	if (!v)
		return "out of memory";
	cfg->routes = v;
	v[cfg->n_routes++] = e;
	return NULL;
}

/* Why the peers and --local are of two families, or NULL. */
static const char *peersfile_families_invalid(const struct config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->n_remotes; i++) {
		if (cfg->remotes[i].family == cfg->family)
			continue;
		return cfg->local.family ? "--local and --remote must both be "
					   "IPv4 or both IPv6"
					 : "every --remote must be IPv4, or "
					   "every one IPv6";
	}
	return NULL;
}

const char *peersfile_remotes_invalid(struct config *cfg)
{
	if (!cfg->family && cfg->local.family)
		cfg->family = cfg->local.family;
	else if (!cfg->family && cfg->n_remotes)
		cfg->family = cfg->remotes[0].family;
	if (!cfg->family && cfg->peers_file)
		return "no peer and no --local: give --remote ADDR, a 'remote' "
		       "line in --peers, or --local ADDR (the underlay's "
		       "family) to start with no peer";
	if (!cfg->family)
		return "missing --remote ADDR (the peer's address), or --local "
		       "ADDR (the underlay's own) to start with no peer";
	return peersfile_families_invalid(cfg);
}

const char *peersfile_fdb_invalid(const struct config *cfg, char *buf,
				  size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned int i, j;

	for (i = 0; i < cfg->n_fdb; i++) {
		const struct ipaddr *a = &cfg->fdb[i].peer;
		const char *dev = cfg->fdb[i].dev;

		if (dev[0] && cfg_tap_index(cfg, dev) < 0) {
			snprintf(buf, len, "--fdb %s=...: no tap is named %s "
				 "(--dev, --vni N=DEV, --key N=DEV)", dev, dev);
			return buf;
		}
		for (j = 0; j < cfg->n_remotes; j++)
			if (optvalue_ip_equal(&cfg->remotes[j], a))
				break;
		if (j < cfg->n_remotes)
			continue;
		inet_ntop(a->family, &a->addr, addr, sizeof(addr));
		snprintf(buf, len, "--fdb: %s is not a --remote", addr);
		return buf;
	}
	return NULL;
}

/* Is the peer at a one of cfg's? */
static bool peersfile_is_remote(const struct config *cfg,
				const struct ipaddr *a)
{
	unsigned int j;

	for (j = 0; j < cfg->n_remotes; j++)
		if (optvalue_ip_equal(&cfg->remotes[j], a))
			return true;
	return false;
}

const char *peersfile_route_invalid(const struct config *cfg, char *buf,
				    size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < cfg->n_routes; i++) {
		const struct ipaddr *a = &cfg->routes[i].peer;
		const char *dev = cfg->routes[i].dev;

		if (dev[0] && cfg_tap_index(cfg, dev) < 0) {
			snprintf(buf, len, "--route %s=...: no tap is named %s "
				 "(--dev, --vni N=DEV, --key N=DEV)", dev, dev);
			return buf;
		}
		if (peersfile_is_remote(cfg, a))
			continue;
		inet_ntop(a->family, &a->addr, addr, sizeof(addr));
		snprintf(buf, len, "--route: %s is not a --remote", addr);
		return buf;
	}
	return NULL;
}

/*
 * The kind of line that the mode of cfg takes not: a tap has no routes,
 * a tun no MACs.
 */
static const char *peersfile_mode_line(const struct config *cfg,
				       const char *key)
{
	if (cfg->encap.l3 && !strcmp(key, "fdb"))
		return "'fdb' is for --mode tap: a tun's IP packets carry no "
		       "MACs (use 'route [DEV=]PREFIX=ADDR')";
	if (!cfg->encap.l3 && !strcmp(key, "route"))
		return "'route' is for --mode tun: a tap's frames go by MAC "
		       "(use 'fdb [DEV=]MAC[@VID]=ADDR')";
	return NULL;
}

/* What a line of key takes ("ADDR" for remote), or NULL: no such line. */
static const char *peersfile_arg(const char *key)
{
	if (!strcmp(key, "remote"))
		return "ADDR";
	if (!strcmp(key, "fdb"))
		return "[DEV=]MAC[@VID]=ADDR";
	if (!strcmp(key, "route"))
		return "[DEV=]PREFIX=ADDR";
	return NULL;
}

/*
 * line cut, in place, into its first word *key and the rest *val, blanks
 * at either end of it dropped; false for a line of blanks.
 */
static bool peersfile_split(char *line, char **key, char **val)
{
	static const char blank[] = " \t\r\n";
	char *end;

	*key = line + strspn(line, blank);
	if (!**key)
		return false;
	*val = *key + strcspn(*key, blank);
	if (**val)
		*(*val)++ = '\0';
	*val += strspn(*val, blank);
	end = *val + strlen(*val);
	while (end > *val && strchr(blank, end[-1]))
		*--end = '\0';
	return true;
}

/* The entry of a line of key, its value val; why not, or NULL. */
static const char *peersfile_add(struct config *cfg, const char *key,
				 const char *val, char *buf, size_t len)
{
	if (!strcmp(key, "remote"))
		return peersfile_add_remote(cfg, val);
	if (!strcmp(key, "fdb"))
		return peersfile_add_fdb(cfg, val);
	return peersfile_add_route(cfg, val, buf, len);
}

/*
 * One line of a peers file: "remote ADDR", "fdb MAC[@VID]=ADDR" (a tap),
 * "route PREFIX=ADDR" (a tun), or nothing; '#' starts a comment. Why
 * not, in buf (len bytes) as the configuration file says it: the value
 * quoted, the whole rest of the line ("fdb MAC ADDR": missing =ADDR); or
 * NULL.
 */
static const char *peersfile_line(struct config *cfg, char *line, char *buf,
				  size_t len)
{
	char *hash = strchr(line, '#'), *key, *val, more[160];
	const char *arg, *why;

	if (hash)
		*hash = '\0';
	if (!peersfile_split(line, &key, &val))
		return NULL;
	arg = peersfile_arg(key);
	if (!arg) {
		snprintf(buf, len, "'%.64s' is neither 'remote ADDR', 'fdb "
			 "[DEV=]MAC[@VID]=ADDR' nor 'route [DEV=]PREFIX=ADDR'",
			 key);
		return buf;
	}
	if (peersfile_mode_line(cfg, key))
		return peersfile_mode_line(cfg, key);
	if (!*val) {
		snprintf(buf, len, "%s needs a value (%s %s)", key, key, arg);
		return buf;
	}
	why = peersfile_add(cfg, key, val, more, sizeof(more));
	if (!why)
		return NULL;
	snprintf(buf, len, "invalid %s '%.64s': %s", key, val, why);
	return buf;
}

/* The command line's part of cfg's lists, copied into c. */
static int peersfile_copy_cmd(const struct config *cfg, struct config *c)
{
	size_t r = cfg->n_remotes_cmd * sizeof(*c->remotes);
	size_t f = cfg->n_fdb_cmd * sizeof(*c->fdb);
	size_t t = cfg->n_routes_cmd * sizeof(*c->routes);

	c->remotes = r ? malloc(r) : NULL;
	c->fdb = f ? malloc(f) : NULL;
	c->routes = t ? malloc(t) : NULL;
	if ((r && !c->remotes) || (f && !c->fdb) || (t && !c->routes))
		return -ENOMEM;
	if (r)
		memcpy(c->remotes, cfg->remotes, r);
	if (f)
		memcpy(c->fdb, cfg->fdb, f);
	if (t)
		memcpy(c->routes, cfg->routes, t);
	c->n_remotes = cfg->n_remotes_cmd;
	c->n_fdb = cfg->n_fdb_cmd;
	c->n_routes = cfg->n_routes_cmd;
	return 0;
}

/* Read the lines of f into c; why not, with its line number, or NULL. */
static const char *peersfile_read(struct config *c, FILE *f, char *buf,
				  size_t len)
{
	char line[256], msg[256];
	const char *why = NULL;
	unsigned int n = 0;
	size_t read = 0;

	while (!why && fgets(line, sizeof(line), f)) {
		n++;
		/* A file that grows as it is read is cut where it may. */
		read += strlen(line);
		if (read > PEERSFILE_MAX)
			why = "more than 1024 KiB";
		else if (!strchr(line, '\n') && !feof(f))
			why = "line too long";
		else
			why = peersfile_line(c, line, msg, sizeof(msg));
	}
	if (!why && ferror(f))
		return "cannot read it";
	if (!why)
		return NULL;
	snprintf(buf, len, "line %u: %s", n, why);
	return buf;
}

int peersfile_load(struct config *cfg, FILE *f, char *why, size_t len)
{
	struct config c = *cfg;
	const char *err;

	if (peersfile_copy_cmd(cfg, &c)) {
		err = "out of memory";
	} else {
		err = peersfile_read(&c, f, why, len);
		/* No family at all: the option checks say what is missing. */
		if (!err && (c.family || c.local.family || c.n_remotes))
			err = peersfile_remotes_invalid(&c);
		if (!err)
			err = peersfile_fdb_invalid(&c, why, len);
		if (!err)
			err = peersfile_route_invalid(&c, why, len);
	}
	if (err) {
		if (err != why)
			snprintf(why, len, "%s", err);
		free(c.remotes);
		free(c.fdb);
		free(c.routes);
		return -EINVAL;
	}
	free(cfg->remotes);
	free(cfg->fdb);
	free(cfg->routes);
	cfg->remotes = c.remotes;
	cfg->n_remotes = c.n_remotes;
	cfg->fdb = c.fdb;
	cfg->n_fdb = c.n_fdb;
	cfg->routes = c.routes;
	cfg->n_routes = c.n_routes;
	cfg->family = c.family;
	return 0;
}

FILE *peersfile_open_flags(int dir, const char *name, int flags,
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
	else if (st.st_size > PEERSFILE_MAX)
		snprintf(why, len, "larger than %u KiB",
			 PEERSFILE_MAX >> 10);
	else if (!(f = fdopen(fd, "r")))
		snprintf(why, len, "%s", strerror(errno));
	if (!f)
		close(fd);
	return f;
}

FILE *peersfile_open(int dir, const char *name, char *why, size_t len)
{
	return peersfile_open_flags(dir, name, O_NOFOLLOW, why, len);
}
