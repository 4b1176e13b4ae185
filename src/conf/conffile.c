// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * conffile: the configuration file, a long option a line, read into argv
 * words for options.c's argp table and written back out of a config.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "base/mac.h"
#include "encap/geneve.h"
#include "conf/conffile.h"
#include "conf/optable.h"
#include "conf/peersfile.h"

/* A file grows no longer than the peers file, which is opened alike. */
#define CONFFILE_BYTES_MAX PEERSFILE_MAX

void conffile_free(struct conffile *cf)
{
	unsigned int i;

	for (i = 0; i < cf->n; i++)
		free(cf->words[i]);
	free(cf->words);
	free(cf->lines);
	memset(cf, 0, sizeof(*cf));
}

static bool conffile_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* What conffile_getline() found. */
enum conffile_got {
	CONFFILE_END = 0,	/* the end of the file */
	CONFFILE_LINE,		/* a line */
	CONFFILE_BAD_LINE,	/* a line that is not text, or too long */
	CONFFILE_BAD_FILE,	/* a file too big, or unreadable */
};

/*
 * The next line of f into buf (CONFFILE_LINE_MAX + 1 bytes), its newline
 * and a CR before it dropped, *total counting what was read; why it is
 * bad in *why. Only text: a NUL or another control character than a tab
 * is in no configuration.
 */
static enum conffile_got conffile_getline(FILE *f, char *buf, size_t *total,
					  const char **why)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (++*total > CONFFILE_BYTES_MAX) {
			*why = "more than 1024 KiB";
			return CONFFILE_BAD_FILE;
		}
		if (n == CONFFILE_LINE_MAX) {
			*why = "line too long (at most 4096 bytes)";
			return CONFFILE_BAD_LINE;
		}
		buf[n++] = (char)c;
	}
	if (ferror(f)) {
		*why = "cannot read it";
		return CONFFILE_BAD_FILE;
	}
	if (c == EOF && !n)
		return CONFFILE_END;
	*total += c == '\n';
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	*why = "a NUL byte (not a text file?)";
	if (strlen(buf) != n)
		return CONFFILE_BAD_LINE;
	*why = "a control character (not a text file?)";
	for (; n; n--)
		if ((unsigned char)buf[n - 1] < 0x20 && buf[n - 1] != '\t')
			return CONFFILE_BAD_LINE;
	*why = NULL;
	return CONFFILE_LINE;
}

/* The option of the table named name, exactly; NULL if none is. */
static const struct argp_option *conffile_option(const char *name)
{
	const struct argp_option *o;

	for (o = optable; o->name || o->doc; o++)
		if (o->name && !strcmp(o->name, name))
			return o;
	return NULL;
}

/*
 * A line cut into its name and value (NULL: none), in place: blanks at
 * the ends dropped, a comment from a '#' at the start of a word on.
 * false for a line of nothing but blanks and comment.
 */
static bool conffile_split(char *line, char **name, char **value)
{
	char *p = line, *end;

	while (conffile_blank(*p))
		p++;
	if (!*p || *p == '#')
		return false;
	*name = p;
	while (*p && !conffile_blank(*p))
		p++;
	*value = NULL;
	if (!*p)
		return true;
	*p++ = '\0';
	while (conffile_blank(*p))
		p++;
	for (end = p; *end; end++)
		if (*end == '#' && conffile_blank(end[-1]))
			break;
	while (end > p && conffile_blank(end[-1]))
		end--;
	*end = '\0';
	if (*p && *p != '#')
		*value = p;
	return true;
}

/* Why name and value are no option of a file, in buf; or NULL. */
static const char *conffile_invalid(const char *name, const char *value,
				    char *buf, size_t len)
{
	const struct argp_option *o = conffile_option(name);
	const char *near;

	if (!strncmp(name, "GSOTUN_OPTS=", 12))
		return "an environment file (GSOTUN_OPTS=...): the unit reads "
		       "it as /etc/gsotun/NAME.env; here, an option a line";
	if (!o) {
		near = optable_closest(name, strlen(name));
		snprintf(buf, len, "unknown option '%.64s'%s%s%s", name,
			 near ? " (did you mean " : "", near ? near : "",
			 near ? "?)" : "");
		return buf;
	}
	if (optable_row(o->key)->put == OPTABLE_PUT_NONE) {
		snprintf(buf, len, "%s is for the command line only", name);
		return buf;
	}
	if (o->arg && !value) {
		snprintf(buf, len, "%s needs a value (%s %s)", name, name,
			 o->arg);
		return buf;
	}
	if (!o->arg && value) {
		snprintf(buf, len, "%s takes no value", name);
		return buf;
	}
	return NULL;
}

/* One word more in cf, "--name" or "--name=value", from line. */
static int conffile_add(struct conffile *cf, const char *name,
			const char *value, unsigned int line)
{
	char **w = realloc(cf->words, (cf->n + 1) * sizeof(*w));
	unsigned int *l;

	if (!w)
		return -ENOMEM;
	cf->words = w;
	l = realloc(cf->lines, (cf->n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	cf->lines = l;
	if (asprintf(&w[cf->n], "--%s%s%s", name, value ? "=" : "",
		     value ? value : "") < 0)
		return -ENOMEM;
	l[cf->n++] = line;
	return 0;
}

int conffile_read(FILE *f, struct conffile *cf, unsigned int *line,
		  char *why, size_t len)
{
	char buf[CONFFILE_LINE_MAX + 1], *name, *value;
	enum conffile_got got = CONFFILE_LINE;
	const char *bad = NULL;
	size_t total = 0;
	int err = 0;

	memset(cf, 0, sizeof(*cf));
	*line = 0;
	while (!bad && !err) {
		got = conffile_getline(f, buf, &total, &bad);
		if (got == CONFFILE_END || got == CONFFILE_BAD_FILE)
			break;
		++*line;
		if (got == CONFFILE_BAD_LINE ||
		    !conffile_split(buf, &name, &value))
			continue;
		bad = conffile_invalid(name, value, why, len);
		if (!bad && cf->n == CONFFILE_OPTIONS_MAX)
			bad = "more than 8192 options";
		if (!bad)
			err = conffile_add(cf, name, value, *line);
	}
	if (!bad && !err)
		return 0;
	if (got == CONFFILE_BAD_FILE)
		*line = 0;
	if (err)
		snprintf(why, len, "out of memory");
	else if (bad != why)
		snprintf(why, len, "%s", bad);
	conffile_free(cf);
	return err ? err : -EINVAL;
}

int conffile_row(unsigned int i)
{
	const struct argp_option *o = &optable[i];

	if (!o->name && !o->doc)
		return 0;
	if (optable_rows[i].kind == OPTABLE_GROUP ||
	    optable_rows[i].put == OPTABLE_PUT_NONE)
		return -1;
	return o->key;
}

/*
 * Can value be read back as it is? Not with a newline (no option takes
 * one, but --user and the like keep what they are given), blanks at its
 * ends or a '#' that would start a comment.
 */
static bool conffile_fits(const char *value)
{
	size_t n = strlen(value), i;

	if (!n || conffile_blank(value[0]) || conffile_blank(value[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)value[i] < 0x20 && value[i] != '\t')
			return false;
	/* A '#' after a blank starts a comment: the value's first too. */
	for (i = 0; i < n; i++)
		if (value[i] == '#' && (!i || conffile_blank(value[i - 1])))
			return false;
	return true;
}

/* "NAME VALUE", or a comment saying why it cannot be written. */
static void conffile_put_str(FILE *out, int key, const char *value)
{
	if (conffile_fits(value))
		fprintf(out, "%s %s\n", optable_name(key), value);
	else
		fprintf(out, "# %s: its value cannot be written here\n",
			optable_name(key));
}

/* An address of family at addr, as text in buf (INET6_ADDRSTRLEN). */
static const char *conffile_addr(int family, const void *addr, char *buf)
{
	if (!inet_ntop(family, addr, buf, INET6_ADDRSTRLEN))
		snprintf(buf, INET6_ADDRSTRLEN, "?");
	return buf;
}

static void conffile_put_cidr(FILE *out, int key, const char *dev,
			      const struct cidr *c)
{
	char buf[INET6_ADDRSTRLEN];

	fprintf(out, "%s %s%s%s/%u\n", optable_name(key), dev,
		*dev ? "=" : "", conffile_addr(c->family, &c->addr, buf),
		c->prefix);
}

void conffile_put_remote(FILE *out, const struct ipaddr *a)
{
	char buf[INET6_ADDRSTRLEN];

	fprintf(out, "%s %s\n", optable_name(OPT_REMOTE),
		conffile_addr(a->family, &a->addr, buf));
}

void conffile_put_local(FILE *out, const struct ipaddr *a)
{
	char buf[INET6_ADDRSTRLEN];

	fprintf(out, "%s %s\n", optable_name(OPT_LOCAL),
		conffile_addr(a->family, &a->addr, buf));
}

void conffile_put_fdb(FILE *out, const char *dev, const uint8_t *mac,
		      uint16_t vlan, const struct ipaddr *peer)
{
	char text[MAC_TEXT_LEN], buf[INET6_ADDRSTRLEN], vid[8] = "";

	if (vlan)
		snprintf(vid, sizeof(vid), "@%u", vlan);
	fprintf(out, "%s %s%s%s%s=%s\n", optable_name(OPT_FDB),
		dev ? dev : "", dev && *dev ? "=" : "", mac_ntoa(mac, text),
		vid, conffile_addr(peer->family, &peer->addr, buf));
}

void conffile_put_route(FILE *out, const char *dev, const struct cidr *prefix,
			const struct ipaddr *peer)
{
	char net[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN];

	fprintf(out, "%s %s%s%s/%u=%s\n", optable_name(OPT_ROUTE),
		dev ? dev : "", dev && *dev ? "=" : "",
		conffile_addr(prefix->family, &prefix->addr, net),
		prefix->prefix, conffile_addr(peer->family, &peer->addr, buf));
}

static void conffile_put_mac(FILE *out, const struct config_mac *m)
{
	char text[MAC_TEXT_LEN];

	fprintf(out, "%s %s%s%s\n", optable_name(OPT_MAC), m->dev,
		m->dev[0] ? "=" : "", mac_ntoa(m->mac, text));
}

/*
 * "cpus LIST" in the order given, which is the queues': a run of CPUs
 * one up from the last as LO-HI ("3,0-1" for 3, 0, 1).
 */
static void conffile_put_cpus(FILE *out, const uint16_t *cpus,
			      unsigned int n)
{
	unsigned int i, j;

	fprintf(out, "%s ", optable_name(OPT_CPUS));
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j + 1 < n && cpus[j + 1] == cpus[j] + 1; j++)
			;
		fprintf(out, "%s%u", i ? "," : "", cpus[i]);
		if (j > i)
			fprintf(out, "-%u", cpus[j]);
	}
	fputc('\n', out);
}

static const char *conffile_df_name(enum df_mode df)
{
	return df == DF_SET ? "set" : df == DF_INHERIT ? "inherit" : "unset";
}

/*
 * --vni or --key: the main tap's when it is not the default (VNI 1, no
 * key), then the other taps', N=DEV. false past the last.
 */
static bool conffile_opt_id(FILE *out, const struct config *c, int key,
			    unsigned int item)
{
	bool keyed = encap_takes(c->encap.type, ENCAP_OPT_KEY);
	bool main = keyed ? c->encap.has_key : c->encap.vni != CONFIG_VNI;

	if (keyed != (key == OPT_KEY))
		return false;
	if (main && !item) {
		fprintf(out, "%s %u\n", optable_name(key),
			encap_id(&c->encap));
		return true;
	}
	item -= main;
	if (item >= c->n_taps)
		return false;
	fprintf(out, "%s %u=%s\n", optable_name(key), c->taps[item].id,
		c->taps[item].dev);
	return true;
}

/* A flag: its name when on. */
static bool conffile_put_flag(FILE *out, int key, bool on, unsigned int item)
{
	if (on && !item)
		fprintf(out, "%s\n", optable_name(key));
	return on && !item;
}

/* A string: its value when set. */
static bool conffile_put_set(FILE *out, int key, const char *value,
			     unsigned int item)
{
	if (value && !item)
		conffile_put_str(out, key, value);
	return value && !item;
}

/* A number: its value when it is not the default. */
static bool conffile_put_num(FILE *out, int key, unsigned long long v,
			     unsigned long long def, unsigned int item)
{
	if (v != def && !item)
		fprintf(out, "%s %llu\n", optable_name(key), v);
	return v != def && !item;
}

/*
 * The writers of the PUT(fn) options, optlist.h's: the item-th line of
 * option key, or false when there is none.
 */
static bool conffile_opt_remote(FILE *out, const struct config *c, int key,
				unsigned int i)
{
	if (i < c->n_remotes_cmd)
		conffile_put_remote(out, &c->remotes[i]);
	return i < c->n_remotes_cmd;
}

static bool conffile_opt_local(FILE *out, const struct config *c, int key,
			       unsigned int i)
{
	char buf[INET6_ADDRSTRLEN];

	return conffile_put_set(out, key, c->local.family ?
				 conffile_addr(c->local.family, &c->local.addr,
					       buf) : NULL, i);
}

static bool conffile_opt_allow(FILE *out, const struct config *c, int key,
			       unsigned int i)
{
	if (i < c->n_allow)
		conffile_put_cidr(out, key, "", &c->allow[i]);
	return i < c->n_allow;
}

/* --port and --source-ports: of a UDP encapsulation, not its default. */
static bool conffile_opt_port(FILE *out, const struct config *c, int key,
			      unsigned int i)
{
	enum encap_type t = c->encap.type;

	return encap_is_udp(t) &&
	       conffile_put_num(out, key, c->port, encap_default_port(t), i);
}

static bool conffile_opt_source_ports(FILE *out, const struct config *c,
				      int key, unsigned int i)
{
	return encap_is_udp(c->encap.type) &&
	       conffile_put_num(out, key, c->src_ports, CONFIG_SRC_PORTS, i);
}

static bool conffile_opt_tos(FILE *out, const struct config *c, int key,
			     unsigned int i)
{
	if (c->tos_mode == TOS_INHERIT)
		return conffile_put_set(out, key, "inherit", i);
	return conffile_put_num(out, key, c->tos, 0, i);
}

static bool conffile_opt_df(FILE *out, const struct config *c, int key,
			    unsigned int i)
{
	return conffile_put_set(out, key, c->df != DF_UNSET ?
				 conffile_df_name(c->df) : NULL, i);
}

static bool conffile_opt_pmtud(FILE *out, const struct config *c, int key,
			       unsigned int i)
{
	return conffile_put_set(out, key, c->pmtud ? NULL : "off", i);
}

static bool conffile_opt_fdb(FILE *out, const struct config *c, int key,
			     unsigned int i)
{
	if (i < c->n_fdb_cmd)
		conffile_put_fdb(out, c->fdb[i].dev, c->fdb[i].mac,
				 c->fdb[i].vlan, &c->fdb[i].peer);
	return i < c->n_fdb_cmd;
}

static bool conffile_opt_route(FILE *out, const struct config *c, int key,
			       unsigned int i)
{
	if (i < c->n_routes_cmd)
		conffile_put_route(out, c->routes[i].dev, &c->routes[i].prefix,
				   &c->routes[i].peer);
	return i < c->n_routes_cmd;
}

static bool conffile_opt_encap(FILE *out, const struct config *c, int key,
			       unsigned int i)
{
	enum encap_type t = c->encap.type;

	return conffile_put_set(out, key, t != CONFIG_ENCAP ?
				 encap_name(t) : NULL, i);
}

/* On by default for UDP (udpcsum), off for GRE (ip_gre). */
static bool conffile_opt_csum(FILE *out, const struct config *c, int key,
			      unsigned int i)
{
	return conffile_put_flag(out, key,
				 c->csum && !encap_is_udp(c->encap.type), i);
}

static bool conffile_opt_no_csum(FILE *out, const struct config *c, int key,
				 unsigned int i)
{
	return conffile_put_flag(out, key,
				 !c->csum && encap_is_udp(c->encap.type), i);
}

static bool conffile_opt_mode(FILE *out, const struct config *c, int key,
			      unsigned int i)
{
	return conffile_put_set(out, key, c->encap.l3 ? "tun" : NULL, i);
}

static bool conffile_opt_dev(FILE *out, const struct config *c, int key,
			     unsigned int i)
{
	return conffile_put_set(out, key, strcmp(c->dev, CONFIG_DEV) ?
				 c->dev : NULL, i);
}

static bool conffile_opt_mtu(FILE *out, const struct config *c, int key,
			     unsigned int i)
{
	return conffile_put_num(out, key, c->mtu, 0, i);
}

static bool conffile_opt_address(FILE *out, const struct config *c, int key,
				 unsigned int i)
{
	if (i < c->n_addrs)
		conffile_put_cidr(out, key, c->addr_dev[i], &c->addrs[i]);
	return i < c->n_addrs;
}

static bool conffile_opt_mac(FILE *out, const struct config *c, int key,
			     unsigned int i)
{
	if (i < c->n_macs)
		conffile_put_mac(out, &c->macs[i]);
	return i < c->n_macs;
}

static bool conffile_opt_no_offload(FILE *out, const struct config *c,
				    int key, unsigned int i)
{
	return conffile_put_flag(out, key, !c->offload, i);
}

/* --no-offload says it already. */
static bool conffile_opt_no_gro(FILE *out, const struct config *c, int key,
				unsigned int i)
{
	return conffile_put_flag(out, key, !c->gro && c->offload, i);
}

static bool conffile_opt_udp_gro(FILE *out, const struct config *c, int key,
				 unsigned int i)
{
	static const char *const udp_gro[] = {
		[UDP_GRO_AUTO] = "auto", [UDP_GRO_ON] = "on",
		[UDP_GRO_OFF] = "off",
	};

	return conffile_put_set(out, key, c->udp_gro != UDP_GRO_AUTO ?
				 udp_gro[c->udp_gro] : NULL, i);
}

static bool conffile_opt_queues(FILE *out, const struct config *c, int key,
				unsigned int i)
{
	if (!c->queues)
		return conffile_put_set(out, key, "auto", i);
	return conffile_put_num(out, key, c->queues, CONFIG_QUEUES, i);
}

static bool conffile_opt_cpus(FILE *out, const struct config *c, int key,
			      unsigned int i)
{
	if (c->n_cpus && !i)
		conffile_put_cpus(out, c->cpus, c->n_cpus);
	return c->n_cpus && !i;
}

/* -v and -q: the name once for each step from 0. */
static bool conffile_opt_verbose(FILE *out, const struct config *c, int key,
				 unsigned int i)
{
	if ((int)i < c->verbosity)
		fprintf(out, "%s\n", optable_name(key));
	return (int)i < c->verbosity;
}

static bool conffile_opt_quiet(FILE *out, const struct config *c, int key,
			       unsigned int i)
{
	if ((int)i < -c->verbosity)
		fprintf(out, "%s\n", optable_name(key));
	return (int)i < -c->verbosity;
}

static bool conffile_opt_control(FILE *out, const struct config *c, int key,
				 unsigned int i)
{
	return conffile_put_set(out, key, c->control, i);
}

/*
 * --geneve-opt: the item-th option TLV of the header, as
 * "CLASS:TYPE:HEX" (encap_geneve_opt_add() reads it back).
 */
static bool conffile_opt_geneve_opt(FILE *out, const struct config *c,
				    int key, unsigned int i)
{
	const uint8_t *o = c->encap.geneve_opts;
	size_t at = 0, n, j;

	for (;;) {
		if (at >= c->encap.geneve_opts_len)
			return false;
		n = GENEVE_OPT_HLEN + (o[at + 3] & GENEVE_OPT_LEN_MASK) * 4;
		if (!i--)
			break;
		at += n;
	}
	fprintf(out, "%s %04x:%02x:", optable_name(key), get_be16(o + at),
		o[at + 2]);
	for (j = GENEVE_OPT_HLEN; j < n; j++)
		fprintf(out, "%02x", o[at + j]);
	fputc('\n', out);
	return true;
}

typedef bool conffile_writer(FILE *out, const struct config *c, int key,
			     unsigned int item);

#define PUT_SAME NULL
#define PUT_NONE NULL
#define PUT(fn) conffile_opt_##fn
#define G(d)
#define O(k, n, a, parse, put, d) [OPT_##k] = put,
#define L(letter, n, f, parse, put, d) [letter] = put,
static conffile_writer *const conffile_writers[OPT_AFTER_LAST] = {
	OPTIONS_LIST(G, O, L)
};
#undef PUT_SAME
#undef PUT_NONE
#undef PUT
#undef G
#undef O
#undef L

/* An option of PUT_SAME: as its row's parse set it. */
static bool conffile_put_same(FILE *out, const struct config *c,
			      const struct optable_row *r, unsigned int i)
{
	switch (r->kind) {
	case OPTABLE_FLAG:
		return conffile_put_flag(out, r->key,
					 optable_get(c, r) == r->value, i);
	case OPTABLE_NUM:
		return conffile_put_num(out, r->key, optable_get(c, r), r->def,
					i);
	case OPTABLE_TEXT:
	case OPTABLE_PATH:
		return conffile_put_set(out, r->key, optable_text(c, r), i);
	default:
		return false;
	}
}

bool conffile_put(FILE *out, const struct config *c, int key,
		  unsigned int item)
{
	const struct optable_row *r = optable_row(key);

	if (!r)
		return false;
	if (r->put == OPTABLE_PUT_SAME)
		return conffile_put_same(out, c, r, item);
	if (r->put == OPTABLE_PUT_CALL)
		return conffile_writers[key](out, c, key, item);
	return false;
}

void conffile_head(FILE *out)
{
	fputs("# gsotun " PACKAGE_VERSION ": an option a line, as gsotun "
	      "--config reads it (gsotun(8))\n", out);
}

void conffile_write(FILE *out, const struct config *c)
{
	unsigned int row, item;
	int key;

	conffile_head(out);
	for (row = 0; (key = conffile_row(row)); row++)
		for (item = 0; key > 0 && conffile_put(out, c, key, item);
		     item++)
			;
}
