/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options' table, which the command line (options.c) and the
 * configuration file (conffile.c) both go by.
 */
#ifndef GSOTUN_OPTABLE_H
#define GSOTUN_OPTABLE_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The options' keys in the argp table (optable), long-only ones
 * above the character range; conffile.c writes a config out by them.
 */
enum options_key {
	OPT_REMOTE = 256,
	OPT_LOCAL,
	OPT_ALLOW,
	OPT_PORT,
	OPT_SOURCE_PORTS,
	OPT_TTL,
	OPT_TOS,
	OPT_DF,
	OPT_PMTUD,
	OPT_ENCAP,
	OPT_VNI,
	OPT_KEY,
	OPT_CSUM,
	OPT_NO_CSUM,
	OPT_SEQ,
	OPT_DEV,
	OPT_MTU,
	OPT_ADDRESS,
	OPT_NO_OFFLOAD,
	OPT_NO_GRO,
	OPT_UDP_GRO,
	OPT_QUEUES,
	OPT_CPUS,
	OPT_DAEMON,
	OPT_PIDFILE,
	OPT_USER,
	OPT_CHROOT,
	OPT_FDB,
	OPT_LEARNING,
	OPT_AGEING,
	OPT_MAX_ADDRESS,
	OPT_PEERS,
	OPT_CONTROL,
	OPT_ADMIN_GROUP,
	OPT_MAC,
	OPT_LOG_TIME,
	OPT_NO_SECCOMP,
	OPT_CONFIG,
	OPT_CHECK,
	OPT_MODE,
	OPT_ROUTE,
	OPT_STRICT_SOURCE,
	OPT_EVPN,
	OPT_EVPN_PORT,
	OPT_EVPN_VTEPS,
};

/*
 * The argp table, in the order of --help: its long names are those of a
 * configuration file too (conffile.c). Ends with an all-zero entry.
 */
extern const struct argp_option optable[];

/*
 * The option named name (len bytes), or by a prefix of it that is no
 * other's; NULL when none or more than one is. *known: the name, or a
 * prefix of it, is an option's (argp's own --help, --usage, --version
 * too).
 */
const struct argp_option *optable_find(const char *name, size_t len,
				       bool *known);

/* The long name of the table closest to name (len bytes), or NULL. */
const char *optable_closest(const char *name, size_t len);

/*
 * The one of the n names closest to name (len bytes), if it is close as
 * optable_closest() judges; NULL if none is. For gsotunctl's commands.
 */
const char *optable_nearest(const char *name, size_t len,
			    const char *const *names, size_t n);

/*
 * argp's help_filter for optable: the docs that list encapsulations get
 * their lists from the encapsulations' table (a doc holds %s where its
 * list goes). A new string to free, or text as it was.
 */
char *optable_help_filter(int key, const char *text, void *input);

#endif
