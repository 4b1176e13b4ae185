// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the configuration file (--config): any bytes as
 * the file, read by conffile_read() and parsed by the argp table through
 * options_parse_file(), then written out and read back.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conf/cfg.h"
#include "conf/conffile.h"
#include "conf/options.h"
#include "conf/optvalue.h"
#include "conf/peersfile.h"
#include "fuzz.h"

/*
 * Input: a byte whose bit 0 puts a command line after the file (it adds
 * a peer, overrides --dev and --mtu), then the file. What a parse must
 * give: an error, or a config within the table's limits that, written
 * out (conffile_write()) and read back alone, is written the same: the
 * file reproduces what the file and the command line made.
 */
static char *cmd_line[] = {
	"gsotun", "--dev", "fz0", "--remote", "198.18.0.9", "--mtu", "1400",
	NULL,
};

static void config_check_limits(const struct config *c)
{
	unsigned int i;

	FUZZ_CHECK((c->n_remotes >= 1 || c->local.family) &&
		   c->n_remotes <= CONFIG_MAX_PEERS);
	FUZZ_CHECK(c->n_remotes_cmd <= c->n_remotes);
	FUZZ_CHECK(c->n_fdb_cmd <= c->n_fdb && c->n_fdb <= CONFIG_MAX_FDB);
	FUZZ_CHECK(c->n_taps < CONFIG_MAX_TUNNELS);
	FUZZ_CHECK(c->n_addrs <= CONFIG_MAX_ADDRS);
	FUZZ_CHECK(c->n_allow <= CONFIG_MAX_ALLOW);
	FUZZ_CHECK(c->n_macs <= c->n_taps + 1);
	for (i = 0; i < c->n_remotes; i++)
		FUZZ_CHECK(c->remotes[i].family == c->family);
	for (i = 0; i < c->n_addrs; i++)
		FUZZ_CHECK(c->addr_tap[i] <= c->n_taps);
	FUZZ_CHECK(memchr(c->dev, '\0', sizeof(c->dev)) && c->dev[0]);
	FUZZ_CHECK(c->queues <= CONFIG_MAX_QUEUES);
	FUZZ_CHECK(c->n_cpus <= CONFIG_MAX_QUEUES);
	FUZZ_CHECK(!c->n_cpus || c->queues <= c->n_cpus);
	for (i = 0; i < c->n_cpus; i++)
		FUZZ_CHECK(c->cpus[i] < CPU_SETSIZE);
	/* --evpn: a tap of vxlan, a VTEP address, no learning, two ports. */
	FUZZ_CHECK(c->evpn || c->evpn_port == CONFIG_EVPN_PORT);
	FUZZ_CHECK(!c->evpn ||
		   (!c->encap.l3 && c->encap.type == ENCAP_VXLAN &&
		    c->local.family && !optvalue_ip_is_any(&c->local) &&
		    !c->learning && c->evpn_port && c->evpn_port != c->port));
}

/* c as --check prints it (owned by the caller). */
static char *config_text(const struct config *c)
{
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	FUZZ_CHECK(f);
	conffile_write(f, c);
	FUZZ_CHECK(!fclose(f) && text);
	return text;
}

/* What c is written as, read back alone, written again: the same. */
static void config_check_again(const struct config *c)
{
	char *text = config_text(c), *again, *argv[] = { "gsotun", NULL };
	struct config c2;
	FILE *f = fmemopen(text, strlen(text), "r");
	int err;

	FUZZ_CHECK(f);
	err = options_parse_file(1, argv, f, "written", true, &c2);
	fclose(f);
	if (err)
		fprintf(stderr, "written:\n%s", text);
	FUZZ_CHECK(!err);
	again = config_text(&c2);
	if (strcmp(text, again))
		fprintf(stderr, "written:\n%s\nread back:\n%s", text, again);
	FUZZ_CHECK(!strcmp(text, again));
	free(text);
	free(again);
	cfg_free(&c2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool cmd = size && (data[0] & 1);
	char *alone[] = { "gsotun", NULL };
	struct config c;
	FILE *f;
	int err;

	if (size < 1 || size > PEERSFILE_MAX)
		return 0;
	/* fmemopen() of 0 bytes is an error: the file empty is data + 1. */
	f = size > 1 ? fmemopen((void *)(data + 1), size - 1, "r")
		     : fopen("/dev/null", "r");
	FUZZ_CHECK(f);
	err = cmd ? options_parse_file(7, cmd_line, f, "fuzz", true, &c)
		  : options_parse_file(1, alone, f, "fuzz", true, &c);
	fclose(f);
	if (!err) {
		config_check_limits(&c);
		if (cmd)
			FUZZ_CHECK(!strcmp(c.dev, "fz0") && c.mtu == 1400);
		config_check_again(&c);
	} else {
		FUZZ_CHECK(err < 0);
	}
	cfg_free(&c);
	return 0;
}
