// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the peers file (--peers), which SIGHUP reads while
 * the tunnel runs: peersfile_load() on any bytes, beside a command
 * line with or without a --remote and an --fdb entry of its own.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <string.h>
#include "conf/optvalue.h"
#include "conf/peersfile.h"
#include "conf/types.h"
#include "fuzz.h"

/*
 * Input: a byte whose bit 0 gives the command line a --remote and an
 * --fdb entry to it (bit 1: IPv6), then the file. What a load must give:
 * on success at least one peer, all of one family, the command line's
 * first and unchanged, every static entry naming one of them; on failure
 * a reason and the configuration as it was.
 */
static const struct config_fdb cmd_fdb = {
	.mac = { 0x02, 0, 0, 0, 0, 0x01 },
};

static void peers_cmd_line(struct config *c, bool v6)
{
	struct ipaddr *a = calloc(1, sizeof(*a));
	struct config_fdb *e = malloc(sizeof(*e));

	FUZZ_CHECK(a && e);
	a->family = v6 ? AF_INET6 : AF_INET;
	if (v6)
		a->addr.v6.s6_addr[15] = 1;
	else
		a->addr.v4.s_addr = htonl(0xc6120001);	/* 198.18.0.1 */
	*e = cmd_fdb;
	e->peer = *a;
	c->remotes = a;
	c->n_remotes = c->n_remotes_cmd = 1;
	c->fdb = e;
	c->n_fdb = c->n_fdb_cmd = 1;
	c->family = a->family;
}

/* Every static entry of c names one of its peers. */
static bool peers_fdb_named(const struct config *c)
{
	unsigned int i, j;

	for (i = 0; i < c->n_fdb; i++) {
		for (j = 0; j < c->n_remotes; j++)
			if (optvalue_ip_equal(&c->remotes[j], &c->fdb[i].peer))
				break;
		if (j == c->n_remotes)
			return false;
	}
	return true;
}

static void peers_check_loaded(const struct config *c,
			       const struct config *before, bool cmd)
{
	unsigned int i;

	/* No peer is taken; the family then stays what it was. */
	FUZZ_CHECK(c->n_remotes <= CONFIG_MAX_PEERS);
	FUZZ_CHECK(c->n_remotes ? c->family != 0
				: c->family == before->family);
	FUZZ_CHECK(c->n_fdb <= CONFIG_MAX_FDB);
	for (i = 0; i < c->n_remotes; i++)
		FUZZ_CHECK(c->remotes[i].family == c->family);
	FUZZ_CHECK(peers_fdb_named(c));
	if (cmd)
		FUZZ_CHECK(c->n_remotes_cmd == 1 && c->n_fdb_cmd == 1 &&
			   c->family == before->family &&
			   optvalue_ip_equal(&c->remotes[0], &c->fdb[0].peer) &&
			   !memcmp(c->fdb[0].mac, cmd_fdb.mac, 6));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c, before;
	char why[160];
	FILE *f;
	bool cmd;
	int err;

	if (size < 1 || size > PEERSFILE_MAX)
		return 0;
	memset(&c, 0, sizeof(c));
	cmd = data[0] & 1;
	if (cmd)
		peers_cmd_line(&c, data[0] & 2);
	/* fmemopen() of 0 bytes is an error: the file empty is data + 1. */
	f = size > 1 ? fmemopen((void *)(data + 1), size - 1, "r")
		     : fopen("/dev/null", "r");
	FUZZ_CHECK(f);
	before = c;
	why[0] = '\0';
	err = peersfile_load(&c, f, why, sizeof(why));
	fclose(f);
	if (err) {
		FUZZ_CHECK(err == -EINVAL);
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)));
		FUZZ_CHECK(!memcmp(&c, &before, sizeof(c)));
	} else {
		peers_check_loaded(&c, &before, cmd);
	}
	free(c.remotes);
	free(c.fdb);
	return 0;
}
