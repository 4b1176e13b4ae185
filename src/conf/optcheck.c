// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * optcheck: the checks that need every option at once and the defaults
 * they imply, run by the argp parser at the end of argv (options_finish()).
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conf/cfg.h"
#include "conf/optable.h"
#include "conf/optcheck.h"
#include "conf/optvalue.h"
#include "conf/peersfile.h"

/*
 * The line of --config that gave the option an error of the checks at
 * the end is about: the first one msg names ("--queues 2: raw GRE has
 * one socket...; use --encap gre-udp"), if the file gave it last; else 0.
 */
static unsigned int options_msg_line(const struct options_state *st,
				     const char *msg)
{
	const struct argp_option *o;
	const char *p = strstr(msg, "--");
	bool known;
	size_t n;

	if (!p || !st->n_conf)
		return 0;
	p += 2;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-");
	o = optable_find(p, n, &known);
	if (!o || o->name[n] || o->key < OPT_FIRST ||
	    o->key >= OPT_AFTER_LAST)
		return 0;
	return st->key_line[o->key - OPT_FIRST];
}

/*
 * argp_error(), saying the file and line of an option from --config: of
 * the option being parsed, or at the end of the one the error names.
 */
void options_escape(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (; *in && n + 5 <= len; in++) {
		unsigned char c = (unsigned char)*in;

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(out + n, len - n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	if (len)
		out[n < len ? n : len - 1] = '\0';
}

void options_error(const struct argp_state *state, const char *fmt, ...)
{
	const struct options_state *st = state->input;
	unsigned int line = st->line;
	char msg[512], where[600], safe[2400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!line && st->finishing)
		line = options_msg_line(st, msg);
	if (line)
		snprintf(where, sizeof(where), "%s:%u: %s", st->conf_name, line,
			 msg);
	else
		snprintf(where, sizeof(where), "%s", msg);
	/* A value quoted as given may hold bytes a terminal would obey. */
	options_escape(where, safe, sizeof(safe));
	argp_error(state, "%s", safe);
}

/*
 * opt, an option the encapsulations that take o take, given with t:
 * those are named, and t's own id option where use says so.
 */
static int options_not_for(struct argp_state *state, const char *opt,
			   enum encap_opt o, enum encap_type t, bool use)
{
	char list[128];

	options_error(state, "%s is for --encap %s, not %s%s%s%s", opt,
		      encap_names(list, sizeof(list), o, true, "or"),
		      encap_name(t), use ? " (use --" : "",
		      use ? encap_id_option(t) : "", use ? ")" : "");
	return EINVAL;
}

/* Options of one encapsulation given with another. */
static int options_check_encap(struct argp_state *state,
			       const struct options_state *st)
{
	const struct config *cfg = st->cfg;
	enum encap_type t = cfg->encap.type;

	/* GRE rides directly on IP protocol 47 (RFC 2784): no port. */
	if (options_given(st, OPT_PORT) && !encap_takes(t, ENCAP_OPT_UDP)) {
		options_error(state, "--port is not used with --encap %s",
			      encap_name(t));
		return EINVAL;
	}
	if (options_given(st, OPT_SOURCE_PORTS) &&
	    !encap_takes(t, ENCAP_OPT_UDP)) {
		options_error(state, "--source-ports is not used with --encap "
			      "%s", encap_name(t));
		return EINVAL;
	}
	/* io_uring refuses a raw socket's zero-copy send: EOPNOTSUPP. */
	if (cfg->zerocopy && !encap_is_udp(t)) {
		options_error(state, "--zerocopy: a raw GRE socket cannot "
			      "send zero-copy; use --encap gre-udp");
		return EINVAL;
	}
	if (options_given(st, OPT_VNI) && !encap_takes(t, ENCAP_OPT_VNI))
		return options_not_for(state, "--vni", ENCAP_OPT_VNI, t, true);
	if (cfg->encap.has_key && !encap_takes(t, ENCAP_OPT_KEY))
		return options_not_for(state, "--key", ENCAP_OPT_KEY, t, true);
	if (cfg->encap.gre_seq && !encap_takes(t, ENCAP_OPT_SEQ))
		return options_not_for(state, "--seq", ENCAP_OPT_SEQ, t, false);
	if (cfg->encap.geneve_opts_len && !encap_takes(t, ENCAP_OPT_TLV))
		return options_not_for(state, "--geneve-opt", ENCAP_OPT_TLV, t,
				       false);
	if (cfg->geneve_echo && !encap_takes(t, ENCAP_OPT_TLV))
		return options_not_for(state, "--geneve-echo", ENCAP_OPT_TLV,
				       t, false);
	return 0;
}

/*
 * --geneve-echo: a tun's flows (the Gateway Load Balancer sends IP
 * packets), their options in whole 4-byte words (RFC 8926 section 3.5).
 */
static int options_check_echo(struct argp_state *state,
			      const struct options_state *st)
{
	const struct config *cfg = st->cfg;
	const char *why = NULL;

	if (cfg->geneve_echo && !cfg->encap.l3)
		why = "--geneve-echo is for --mode tun: it keys flows by their "
		      "IP addresses and ports";
	else if (cfg->geneve_echo_room % 4)
		why = "--geneve-echo-room must be a multiple of 4: options "
		      "are whole 4-byte words";
	else if (options_given(st, OPT_GENEVE_ECHO_ROOM) && !cfg->geneve_echo)
		why = "--geneve-echo-room without --geneve-echo";
	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
}

/* --peers: the file's entries after the command line's. */
static int options_check_peers_file(struct argp_state *state,
				    struct config *cfg)
{
	char why[320];
	FILE *f;
	int err;

	if (!cfg->peers_file)
		return 0;
	f = peersfile_open(AT_FDCWD, cfg->peers_file, why, sizeof(why));
	if (!f) {
		options_error(state, "cannot read --peers '%s': %s",
			   cfg->peers_file, why);
		return EINVAL;
	}
	err = peersfile_load(cfg, f, why, sizeof(why));
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
	const char *why = peersfile_remotes_invalid(cfg);

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
}

static int options_check_fdb(struct argp_state *state,
			     const struct config *cfg)
{
	char buf[160];
	const char *why = peersfile_fdb_invalid(cfg, buf, sizeof(buf));

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
}

static int options_check_route(struct argp_state *state,
			       const struct config *cfg)
{
	char buf[160];
	const char *why = peersfile_route_invalid(cfg, buf, sizeof(buf));

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
}

/*
 * What a tun has not: an Ethernet header. The options of MACs (static
 * entries, the tap's own, learning and its bounds) mean nothing there.
 */
static const char *options_tun_invalid(const struct options_state *st)
{
	const struct config *cfg = st->cfg;

	if (cfg->n_fdb)
		return "--fdb is for --mode tap: a tun's IP packets carry no "
		       "MACs (use --route PREFIX=ADDR)";
	if (cfg->n_macs)
		return "--mac is for --mode tap: a tun has no Ethernet address";
	if (cfg->learning)
		return "--learning is for --mode tap: it learns source MACs, "
		       "and a tun's IP packets carry none";
	if (options_given(st, OPT_AGEING))
		return "--ageing is for --mode tap: it ages learnt MACs, and a "
		       "tun's IP packets carry none";
	if (options_given(st, OPT_MAX_ADDRESS))
		return "--max-address is for --mode tap: it bounds learnt "
		       "MACs, and a tun's IP packets carry none";
	return NULL;
}

/* --mode tun and the options each mode takes. */
static int options_check_mode(struct argp_state *state,
			      const struct options_state *st)
{
	const struct config *cfg = st->cfg;
	enum encap_type t = cfg->encap.type;
	const char *why = NULL;
	char buf[128];

	if (cfg->encap.l3 && !encap_carries(t, true)) {
		options_error(state, "--encap %s carries Ethernet frames only, "
			      "not the IP packets of --mode tun: use --encap "
			      "%s", encap_name(t),
			      encap_names(buf, sizeof(buf), ENCAP_OPT_TUN, true,
					  "or"));
		return EINVAL;
	}
	if (cfg->encap.l3)
		why = options_tun_invalid(st);
	else if (cfg->n_routes)
		why = "--route is for --mode tun: a tap's frames go by MAC "
		      "(use --fdb MAC=ADDR)";
	else if (cfg->strict_source)
		why = "--strict-source is for --mode tun: it checks the inner "
		      "IP sources by --route";
	/* As WireGuard's AllowedIPs: with none, nothing is let in. */
	if (!why && cfg->strict_source && !cfg->n_routes)
		why = "--strict-source without --route: every packet received "
		      "would be dropped (no source is routed to its peer)";
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
				   "--remote (or --local)");
			return EINVAL;
		}
	}
	return 0;
}

/*
 * The taps of --vni N=DEV and --key N=DEV: names and VNIs or keys of
 * their own, and the --address DEV=CIDR of each. Why not, or NULL.
 */
static const char *options_taps_invalid(struct config *cfg)
{
	bool keyed = encap_takes(cfg->encap.type, ENCAP_OPT_KEY);
	uint32_t main_id = encap_id(&cfg->encap);
	bool main_has = encap_has_id(&cfg->encap);
	unsigned int i, j;
	int tap;

	for (i = 0; i < cfg->n_taps; i++) {
		const struct config_tap *t = &cfg->taps[i];

		if (main_has && t->id == main_id)
			return keyed ? "two taps with one --key"
				     : "two taps with one --vni";
		if (cfg_tap_index(cfg, t->dev) != (int)i + 1)
			return "two taps with one name";
		for (j = 0; j < i; j++)
			if (cfg->taps[j].id == t->id)
				return keyed ? "two taps with one --key"
					     : "two taps with one --vni";
	}
	for (i = 0; i < cfg->n_addrs; i++) {
		tap = cfg->addr_dev[i][0]
			      ? cfg_tap_index(cfg, cfg->addr_dev[i]) : 0;
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
	enum encap_type t = st->cfg->encap.type;
	const char *why;
	char list[128];

	if (st->key_tap_set && !encap_takes(t, ENCAP_OPT_KEY)) {
		options_error(state, "--key N=DEV is for --encap %s (use --%s "
			      "N=DEV)", encap_names(list, sizeof(list),
						    ENCAP_OPT_KEY, true, "or"),
			      encap_id_option(t));
		return EINVAL;
	}
	why = options_taps_invalid(st->cfg);
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

		tap = m->dev[0] ? cfg_tap_index(cfg, m->dev) : 0;
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

/*
 * --evpn: zebra (FRR) sees the fabric through kernel devices, a vxlan
 * device per VNI that evpn.c makes beside each tap. Why the options
 * cannot run that, or NULL.
 */
static const char *options_evpn_invalid(const struct options_state *st,
					char *buf, size_t len)
{
	const struct config *cfg = st->cfg;
	enum encap_type t = cfg->encap.type;
	unsigned int port;
	bool port_set;
	char list[64];

	if (!cfg->evpn && options_given(st, OPT_EVPN_VTEPS))
		return "--evpn-vteps without --evpn: it bounds the "
		       "peers the fabric makes";
	if (!cfg->evpn)
		return options_given(st, OPT_EVPN_PORT) ?
		       "--evpn-port without --evpn: it is the port of the "
		       "shadow vxlan devices that --evpn makes" : NULL;
	if (cfg->encap.l3)
		return "--evpn is for --mode tap: the fabric advertises MACs, "
		       "and a tun's IP packets carry none";
	if (!encap_takes(t, ENCAP_OPT_EVPN)) {
		encap_names(list, sizeof(list), ENCAP_OPT_EVPN, true, "or");
		snprintf(buf, len, "--evpn needs --encap %s, not %s: zebra "
			 "knows the fabric only through the kernel's vxlan "
			 "devices (RFC 8365)", list, encap_name(t));
		return buf;
	}
	if (!cfg->local.family || optvalue_ip_is_any(&cfg->local))
		return "--evpn needs --local ADDR, a unicast address of this "
		       "host (not 0.0.0.0 or ::): the VTEP address that the "
		       "shadow vxlan devices carry and zebra advertises";
	if (cfg->learning)
		return "--learning with --evpn: where a MAC lives is the "
		       "fabric's to say (type-2 routes, through zebra), not "
		       "learnt from frames; leave out --learning";
	port_set = options_given(st, OPT_PORT);
	port = port_set ? cfg->port : encap_default_port(t);
	if (cfg->evpn_port == port) {
		snprintf(buf, len, "--evpn-port %u is the underlay's port "
			 "(%s%s): the kernel binds a vxlan device's port on "
			 "every address (vxlan_sock_add()), so the two would "
			 "clash; give another --evpn-port", port,
			 port_set ? "--port" : encap_name(t),
			 port_set ? "" : "'s, with no --port");
		return buf;
	}
	return NULL;
}

static int options_check_evpn(struct argp_state *state,
			      const struct options_state *st)
{
	char buf[256];
	const char *why = options_evpn_invalid(st, buf, sizeof(buf));

	if (why) {
		options_error(state, "%s", why);
		return EINVAL;
	}
	return 0;
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
 * Queues spread what is received over a SO_REUSEPORT group of UDP
 * sockets: raw GRE has one raw IP socket, so one queue; and GRE sequence
 * numbers (RFC 2890 section 2.2) come from one counter, which queues
 * sending side by side would put out of order. auto takes one there.
 */
static int options_check_queues(struct argp_state *state,
				const struct config *cfg)
{
	unsigned int q = cfg->queues;

	if (q > 1 && !encap_is_udp(cfg->encap.type)) {
		options_error(state, "--queues %u: raw GRE has one socket and "
			      "one queue; use --encap gre-udp for queues", q);
		return EINVAL;
	}
	if (q > 1 && cfg->encap.gre_seq) {
		options_error(state, "--queues %u with --seq: one sequence "
			      "counter cannot stay in order across queues; "
			      "leave out --seq for queues", q);
		return EINVAL;
	}
	/* One waits for packets to gather, the other for none to wait. */
	if (cfg->busy_poll && cfg->rx_coalesce) {
		options_error(state, "--busy-poll and --rx-coalesce pull "
			      "opposite ways: give one of them");
		return EINVAL;
	}
	if (cfg->n_cpus && q > cfg->n_cpus) {
		options_error(state, "--cpus lists %u CPU%s for --queues %u: "
			      "list one for each queue", cfg->n_cpus,
			      cfg->n_cpus > 1 ? "s" : "", q);
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

	if (!options_given(st, OPT_PORT))
		cfg->port = encap_default_port(t);
	if (!encap_takes(t, ENCAP_OPT_VNI))
		cfg->encap.vni = 0;
	if (!options_given(st, OPT_SOURCE_PORTS))
		cfg->src_ports = encap_is_udp(t) ? CONFIG_SRC_PORTS : 1;
	/*
	 * Outer UDP checksums are on by default, as the kernel's vxlan
	 * sends them (udpcsum); the GRE checksum is off, as in ip_gre.
	 */
	if (!options_given(st, OPT_CSUM) && !options_given(st, OPT_NO_CSUM))
		cfg->csum = encap_is_udp(t);
	/* Without UDP, the outer checksum is GRE's own (RFC 2784). */
	cfg->encap.gre_csum = !encap_is_udp(t) && cfg->csum;
	/* What a flow's options may take of the MTU: none without echo. */
	cfg->encap.tlv_room = cfg->geneve_echo ? cfg->geneve_echo_room : 0;
	/*
	 * auto with --cpus: a queue per CPU listed, said so by --check;
	 * where one queue is all there can be, auto stays for the set-up
	 * to say it takes one.
	 */
	if (!cfg->queues && cfg->n_cpus && encap_is_udp(t) &&
	    !cfg->encap.gre_seq)
		cfg->queues = cfg->n_cpus;
}

/* Given in any order; the first check that fails is the one reported. */
int options_finish(struct argp_state *state)
{
	struct options_state *st = state->input;
	int err;

	st->finishing = true;
	err = options_check_peers_file(state, st->cfg);
	if (!err)
		err = options_check_evpn(state, st);
	if (!err)
		err = options_check_peer(state, st->cfg);
	if (!err)
		err = options_check_mode(state, st);
	if (!err)
		err = options_check_fdb(state, st->cfg);
	if (!err)
		err = options_check_route(state, st->cfg);
	if (!err)
		err = options_check_encap(state, st);
	if (!err)
		err = options_check_echo(state, st);
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
		err = options_check_queues(state, st->cfg);
	if (!err)
		options_implied(st);
	return err;
}
