// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command line: the argp table, each option's value into the struct config
 * gsotun runs, and the entry points that parse argv after --config's file.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include "encap/geneve.h"
#include "conf/conffile.h"
#include "conf/ctlproto.h"
#include "conf/optable.h"
#include "conf/optcheck.h"
#include "conf/options.h"
#include "conf/optvalue.h"
#include "conf/peersfile.h"

const char *argp_program_version = PACKAGE_STRING;
const char *argp_program_bug_address = "<" PACKAGE_BUGREPORT ">";

#define VNI_MAX 0xffffffu
#define KEY_MAX 0xffffffffu
#define MTU_MIN 68		/* RFC 791: every IPv4 host takes 68 bytes */
#define MTU_MAX 65535

static const char options_doc[] =
	"gsotun -- userspace tunnel endpoint that carries TSO/GSO "
	"super-frames from a tap (or IP super-packets from a tun, --mode tun) "
	"over VXLAN, GRE, GRE-in-UDP, VXLAN-GPE or Geneve."
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
	"  gsotun --mode tun --encap gre-udp --remote 192.0.2.2 "
	"--remote 192.0.2.3 \\\n"
	"         --route 10.2.0.0/16=192.0.2.2 --route 10.3.0.0/16=192.0.2.3\n"
	"\n"
	"Exit status: 0 on success, 1 on a runtime failure, 64 on a usage "
	"error.";

/* A number option in min..max, or a usage error naming it. */
static int options_range(struct argp_state *state, const char *opt,
			 const char *arg, unsigned long long min,
			 unsigned long long max, unsigned long long *out)
{
	if (optvalue_num(arg, true, max, out) || *out < min) {
		options_error(state, "invalid %s '%s': must be %llu..%llu", opt,
			   arg, min, max);
		return EINVAL;
	}
	return 0;
}

static int options_local(struct argp_state *state, struct config *cfg,
			 const char *arg)
{
	const char *why = optvalue_local_parse(arg, &cfg->local);

	if (why) {
		options_error(state, "invalid --local '%s': %s", arg, why);
		return EINVAL;
	}
	return 0;
}

static int options_remote(struct argp_state *state, struct config *cfg,
			  const char *arg)
{
	const char *why = peersfile_add_remote(cfg, arg);

	if (why) {
		options_error(state, "invalid --remote '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_remotes_cmd = cfg->n_remotes;
	return 0;
}

static int options_fdb(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	const char *why = peersfile_add_fdb(cfg, arg);

	if (why) {
		options_error(state, "invalid --fdb '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_fdb_cmd = cfg->n_fdb;
	return 0;
}

static int options_route(struct argp_state *state, struct config *cfg,
			 const char *arg)
{
	char buf[160];
	const char *why = peersfile_add_route(cfg, arg, buf, sizeof(buf));

	if (why) {
		options_error(state, "invalid --route '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_routes_cmd = cfg->n_routes;
	return 0;
}

/* --mode tap|tun: Ethernet frames from a tap, or IP packets from a tun. */
static int options_mode(struct argp_state *state, struct config *cfg,
			const char *arg)
{
	if (strcmp(arg, "tap") && strcmp(arg, "tun")) {
		options_error(state, "invalid --mode '%s': must be tap or tun",
			      arg);
		return EINVAL;
	}
	cfg->encap.l3 = !strcmp(arg, "tun");
	return 0;
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
	why = optvalue_address_dev(arg, cfg->addr_dev[cfg->n_addrs], &cidr);
	if (!why)
		why = optvalue_cidr_parse(cidr, &cfg->addrs[cfg->n_addrs]);
	if (why) {
		options_error(state, "invalid --address '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_addrs++;
	return 0;
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
	why = optvalue_address_dev(arg, m->dev, &mac);
	if (!why)
		why = optvalue_tap_mac_invalid(mac, m->mac);
	if (why) {
		options_error(state, "invalid --mac '%s': %s", arg, why);
		return EINVAL;
	}
	cfg->n_macs++;
	return 0;
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
	why = optvalue_cidr_parse(arg, &cfg->allow[cfg->n_allow]);
	if (!why && optvalue_cidr_host_bits(&cfg->allow[cfg->n_allow]))
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
	const char *why = optvalue_dev_invalid(arg);

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
	char list[128];

	if (t < 0) {
		options_error(state, "invalid --encap '%s': must be %s", arg,
			      encap_names(list, sizeof(list), ENCAP_OPT_ENCAP,
					  true, "or"));
		return EINVAL;
	}
	cfg->encap.type = t;
	return 0;
}

/*
 * A number of min..max or "auto" (0) for option opt: 0, or EINVAL with
 * the message.
 */
static int options_num_auto(struct argp_state *state, const char *opt,
			    const char *arg, unsigned int min,
			    unsigned int max, unsigned long long *v)
{
	*v = 0;
	if (!strcmp(arg, "auto"))
		return 0;
	if (optvalue_num(arg, true, max, v) || *v < min) {
		options_error(state, "invalid %s '%s': must be %u..%u or auto",
			      opt, arg, min, max);
		return EINVAL;
	}
	return 0;
}

static int options_mtu(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	unsigned long long v;
	int err = options_num_auto(state, "--mtu", arg, MTU_MIN, MTU_MAX, &v);

	if (!err)
		cfg->mtu = (uint32_t)v;
	return err;
}

static int options_queues(struct argp_state *state, struct config *cfg,
			  const char *arg)
{
	unsigned long long v;
	int err = options_num_auto(state, "--queues", arg, 1,
				   CONFIG_MAX_QUEUES, &v);

	if (!err)
		cfg->queues = (unsigned int)v;
	return err;
}

static int options_cpus(struct argp_state *state, struct config *cfg,
			const char *arg)
{
	char why[80];

	if (optvalue_cpus_parse(arg, cfg->cpus, CONFIG_MAX_QUEUES,
				&cfg->n_cpus, why, sizeof(why))) {
		options_error(state, "invalid --cpus '%s': %s", arg, why);
		return EINVAL;
	}
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
	if (optvalue_num(arg, true, 255, &v)) {
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
		if (!optvalue_num(num, true, max, &v))
			why = optvalue_dev_invalid(eq + 1);
	}
	if (why) {
		options_error(state, "invalid %s '%s': %s", opt, arg, why);
		return EINVAL;
	}
	strcpy(tap->dev, eq + 1);
	tap->id = v;
	cfg->n_taps++;
	if (opt[2] == 'k')
		st->key_tap_set = true;
	return 0;
}

/* --vni N, or N=DEV for one more tap. */
static int options_vni(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	unsigned long long v;
	int err;

	if (strchr(arg, '='))
		return options_tap(state, "--vni", arg, VNI_MAX);
	err = options_range(state, "--vni", arg, 0, VNI_MAX, &v);
	if (!err)
		cfg->encap.vni = v;
	return err;
}

/* --key N, or N=DEV for one more tap. */
static int options_key(struct argp_state *state, struct config *cfg,
		       const char *arg)
{
	unsigned long long v;
	int err;

	if (strchr(arg, '='))
		return options_tap(state, "--key", arg, KEY_MAX);
	err = options_range(state, "--key", arg, 0, KEY_MAX, &v);
	if (!err) {
		cfg->encap.key = v;
		cfg->encap.has_key = true;
	}
	return err;
}

/* --csum, --no-csum: what options_implied() leaves as it is. */
static int options_csum(struct argp_state *state, struct config *cfg,
			const char *arg)
{
	cfg->csum = true;
	return 0;
}

static int options_no_csum(struct argp_state *state, struct config *cfg,
			   const char *arg)
{
	cfg->csum = false;
	return 0;
}

/* No offload of any kind, TCP merging included (--no-gro). */
static int options_no_offload(struct argp_state *state, struct config *cfg,
			      const char *arg)
{
	cfg->offload = false;
	cfg->gro = false;
	return 0;
}

static int options_verbose(struct argp_state *state, struct config *cfg,
			   const char *arg)
{
	cfg->verbosity++;
	return 0;
}

static int options_quiet(struct argp_state *state, struct config *cfg,
			 const char *arg)
{
	cfg->verbosity--;
	return 0;
}

static int options_help(struct argp_state *state, struct config *cfg,
			const char *arg)
{
	argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
	return 0;
}

/* --config FILE: read before the rest, by options_parse(). */
static int options_config(struct argp_state *state, struct config *cfg,
			  const char *arg)
{
	return 0;
}

/* --geneve-opt CLASS:TYPE:HEX: one more option every packet carries. */
static int options_geneve_opt(struct argp_state *state, struct config *cfg,
			      const char *arg)
{
	int err = encap_geneve_opt_add(&cfg->encap, arg);

	if (err == -ENOSPC) {
		options_error(state, "too many --geneve-opt: %d bytes of "
			      "options at most, 4 each and their data",
			      ENCAP_GENEVE_OPTS_MAX);
		return E2BIG;
	}
	if (err) {
		options_error(state, "invalid --geneve-opt '%s': must be "
			      "CLASS:TYPE:HEX, class 0..ffff and type 0..ff "
			      "in hex, data a multiple of 4 bytes up to %d",
			      arg, GENEVE_OPT_DATA_MAX);
		return EINVAL;
	}
	return 0;
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

typedef int options_parser(struct argp_state *state, struct config *cfg,
			  const char *arg);

/* The PARSE(fn) options' parsers, by key. */
#define SET_FLAG(...) NULL
#define SET_NUM(...) NULL
#define SET_TEXT(...) NULL
#define SET_PATH(...) NULL
#define PARSE(fn) options_##fn
#define G(d)
#define O(k, n, a, parse, put, d) [OPT_##k] = parse,
#define L(letter, n, f, parse, put, d) [letter] = parse,
static options_parser *const options_parsers[OPT_AFTER_LAST] = {
	OPTIONS_LIST(G, O, L)
};
#undef SET_FLAG
#undef SET_NUM
#undef SET_TEXT
#undef SET_PATH
#undef PARSE
#undef G
#undef O
#undef L

/* arg of option r into the field its row says, or by its parser. */
static int options_by_row(struct argp_state *state,
			  const struct optable_row *r, const char *arg)
{
	struct config *cfg = ((struct options_state *)state->input)->cfg;
	unsigned long long v;
	char opt[32];
	int err;

	snprintf(opt, sizeof(opt), "--%s", optable_name(r->key));
	switch (r->kind) {
	case OPTABLE_FLAG:
		optable_set(cfg, r, r->value);
		return 0;
	case OPTABLE_NUM:
		err = options_range(state, opt, arg, r->min, r->max, &v);
		if (!err)
			optable_set(cfg, r, v);
		return err;
	case OPTABLE_TEXT:
		return options_string(state, opt, arg,
				      optable_text_at(cfg, r));
	case OPTABLE_PATH:
		return options_path(state, opt, arg, optable_text_at(cfg, r));
	default:
		return options_parsers[r->key](state, cfg, arg);
	}
}

static error_t options_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct options_state *st = state->input;
	const struct optable_row *r = optable_row(key);

	st->line = options_line(state, key);
	if (key >= OPT_FIRST && key < OPT_AFTER_LAST) {
		st->key_line[key - OPT_FIRST] = st->line;
		st->given[key - OPT_FIRST] = true;
	}
	if (r)
		return options_by_row(state, r, arg);
	switch (key) {
	case ARGP_KEY_ARG:
		options_error(state, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		return options_finish(state);
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp options_argp = {
	.options = optable,
	.parser = options_parse_opt,
	.doc = options_doc,
	.help_filter = optable_help_filter,
};

static void options_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/* Those of SET_FLAG and SET_NUM from the list. */
	optable_defaults(cfg);
	strcpy(cfg->dev, CONFIG_DEV);
	cfg->encap.type = CONFIG_ENCAP;
	cfg->encap.vni = CONFIG_VNI;
	cfg->tos_mode = TOS_FIXED;
	cfg->offload = true;
	cfg->pmtud = true;
	cfg->queues = CONFIG_QUEUES;
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
		sc->o = optable_find(sc->name, sc->len, &sc->known);
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
	char name[256], safe[4 * sizeof(name)];
	const char *near;

	while (options_scan_next(&sc)) {
		if (sc.known && !sc.o)
			return;
		if (sc.known)
			continue;
		near = optable_closest(sc.name, sc.len);
		snprintf(name, sizeof(name), "%.*s", (int)sc.len, sc.name);
		options_escape(name, safe, sizeof(safe));
		fprintf(stderr, "gsotun: unrecognized option '--%s'", safe);
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
	char why[160], safe[4 * PATH_MAX];
	FILE *f = NULL;
	int err;

	options_check_unknown(argc, argv);
	file = options_config_file(argc, argv);
	if (file) {
		/*
		 * A symlink followed, unlike --peers: read once, at start, as
		 * root, never again after privileges are dropped.
		 */
		f = peersfile_open_flags(AT_FDCWD, file, 0, why, sizeof(why));
		if (!f) {
			options_escape(file, safe, sizeof(safe));
			fprintf(stderr, "gsotun: cannot read --config '%s': "
				"%s\n", safe, why);
			exit(EX_USAGE);
		}
	}
	err = options_parse_file(argc, argv, f, file, false, cfg);
	if (f)
		fclose(f);
	return err;
}

