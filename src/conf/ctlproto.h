/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control protocol, shared by gsotun (control.c) and gsotunctl: where
 * the socket is, and what its lines look like (gsotunctl(8), PROTOCOL).
 */
#ifndef GSOTUN_CTLPROTO_H
#define GSOTUN_CTLPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

/* A request: one line, newline included, at most this long. */
#define CONTROL_REQ_MAX 512

/*
 * Abstract socket names are scoped to the network namespace, so two
 * gsotun with one tap name in two namespaces never meet, and gsotunctl
 * run in a namespace (ip netns exec) reaches the gsotun of that one.
 */
#define CONTROL_PREFIX "gsotun/"

/*
 * The systemd unit's socket, in its RuntimeDirectory= (gsotun@.service
 * gives --control /run/gsotun/DEV/ctl): a directory only root and the
 * service may write, so nobody else can take the name. gsotunctl looks
 * for it before the abstract name.
 */
#define CONTROL_RUN_DIR "/run/gsotun/"
#define CONTROL_RUN_FILE "/ctl"

/*
 * The reply: a status line, "error CODE WHY" and nothing after it, or
 * "ok" and what was asked for in chunks, each a line with its size in
 * bytes (decimal, at most CONTROL_CHUNK_MAX) and that many bytes, the
 * last of size 0: "ok\n5\nhello0\n". gsotun makes a reply as the client
 * takes it, so its length is not known when it starts. (gsotun 0.1
 * answered "ok LEN" and LEN bytes; gsotunctl reads that too.)
 */
#define CONTROL_CHUNK_MAX (1 << 20)

/* The status line's codes: the exit status gsotunctl then has. */
#define CONTROL_OK 0
#define CONTROL_EFAIL 1		/* refused: no such peer, table full... */
#define CONTROL_EUSAGE 64	/* a malformed request (EX_USAGE) */

/*
 * The socket's address: the abstract "@gsotun/DEV" by default (opt NULL),
 * else what --control gives ("@NAME": abstract; else a path). Its length,
 * or 0 when it does not fit.
 */
socklen_t control_name(const char *opt, const char *dev,
		       struct sockaddr_un *sa);

/*
 * The control commands, one row each: the only list of them. gsotun
 * parses requests by it (ctlreq.c) and runs each by its handler
 * (control.c's control_handlers[], by kind); gsotunctl builds its
 * requests, its --help, its help and its guesses at a mistyped command
 * by it; bash completion asks gsotunctl help. A new command is its row
 * here and its handler in control.c (and its entry in gsotunctl(8),
 * which tests/cli.sh holds to gsotunctl help).
 *
 * C(KIND, fields of struct control_command), in the order help lists
 * them. A row says:
 *   .w0, .w1   its words ("peer", "add"); .w1 NULL: one word. A first
 *              word has one command of one word or commands of two, in
 *              rows one after the other.
 *   .arg       the argument that follows them (enum control_arg):
 *              parsed by ctlreq.c, by kind
 *   .tap       a TAP may come last: the tap it is about (none: the
 *              main one, or for a report every tap)
 *   .json      its JSON form (enum control_json), --json in gsotunctl
 *   .who       who may run it (enum control_who)
 *   .about     where gsotunctl --help lists it (enum control_about)
 *   .usage     what a request of its words is told when the rest does
 *              not parse, after "usage: " (NULL: its help line; a
 *              command of no argument, TAP nor [json]: "W: too many
 *              words"). A first word alone, or with a second word of
 *              no command, is told its first command's .usage, or
 *              without one its second words ("fdb show|add|del").
 *   .doc       gsotunctl --help's line ("\n" goes on at its column);
 *              NULL: said with the next command, as "peer add|del ADDR"
 *              when the two take the same
 */
#define CONTROL_COMMANDS(C)                                                   \
	C(SHOW, .w0 = "show", .json = CONTROL_JSON_WORD, .tap = true,         \
	  .doc = "the tunnel, its peers and drops")                           \
	C(STATS, .w0 = "stats", .json = CONTROL_JSON_LINE,                    \
	  .doc = "every counter")                                             \
	C(METRICS, .w0 = "metrics", .doc = "every counter, for Prometheus")   \
	C(VERSION, .w0 = "version", .about = CONTROL_ABOUT_GSOTUN,            \
	  .doc = "the version of the gsotun asked")                           \
	C(HELP, .w0 = "help", .about = CONTROL_ABOUT_GSOTUNCTL,               \
	  .doc = "the requests (no gsotun is asked)")                         \
	C(TAPS, .w0 = "taps", .about = CONTROL_ABOUT_GSOTUN,                  \
	  .doc = "its taps, the main one first")                              \
	C(PEER_ADD, .w0 = "peer", .w1 = "add", .arg = CONTROL_ARG_PEER,       \
	  .who = CONTROL_ADMINS, .usage = CONTROL_PEER_USAGE)                 \
	C(PEER_DEL, .w0 = "peer", .w1 = "del", .arg = CONTROL_ARG_PEER,       \
	  .who = CONTROL_ADMINS, .usage = CONTROL_PEER_USAGE,                 \
	  .doc = "a peer more, or one less")                                  \
	C(PEER_LIST, .w0 = "peer", .w1 = "list", .json = CONTROL_JSON_WORD,   \
	  .doc = "the peers")                                                 \
	C(FDB_SHOW, .w0 = "fdb", .w1 = "show", .json = CONTROL_JSON_WORD,     \
	  .tap = true, .doc = "the forwarding table")                         \
	C(FDB_ADD, .w0 = "fdb", .w1 = "add", .arg = CONTROL_ARG_FDB,          \
	  .tap = true, .who = CONTROL_ADMINS, .usage = CONTROL_FDB_USAGE)     \
	C(FDB_DEL, .w0 = "fdb", .w1 = "del", .arg = CONTROL_ARG_FDB_KEY,      \
	  .tap = true, .who = CONTROL_ADMINS, .usage = CONTROL_FDB_USAGE,     \
	  .doc = "a static entry more, or one less")                          \
	C(ROUTE_SHOW, .w0 = "route", .w1 = "show", .json = CONTROL_JSON_WORD, \
	  .tap = true, .doc = "a tun's routes (--mode tun)")                  \
	C(ROUTE_ADD, .w0 = "route", .w1 = "add", .arg = CONTROL_ARG_ROUTE,    \
	  .tap = true, .who = CONTROL_ADMINS, .usage = CONTROL_ROUTE_USAGE)   \
	C(ROUTE_DEL, .w0 = "route", .w1 = "del", .arg = CONTROL_ARG_PREFIX,   \
	  .tap = true, .who = CONTROL_ADMINS, .usage = CONTROL_ROUTE_USAGE,   \
	  .doc = "a route more, or one less")                                 \
	C(CONFIG, .w0 = "config",                                             \
	  .doc = "the configuration running, as\ngsotun --config reads it")   \
	C(LIST, .w0 = "list", .who = CONTROL_LOCAL,                           \
	  .about = CONTROL_ABOUT_GSOTUN,                                      \
	  .doc = "the gsotun of this namespace, their taps")

/* What a malformed change is told, the same for a word's add and del. */
#define CONTROL_PEER_USAGE "peer add|del ADDR, peer list [json]"
#define CONTROL_FDB_USAGE                                                     \
	"fdb add MAC[@VID]=ADDR [TAP], fdb del MAC[@VID] [TAP]"
#define CONTROL_ROUTE_USAGE                                                   \
	"route add PREFIX=ADDR [TAP], route del PREFIX [TAP]"

/* A request's kind: the row of its command. */
enum ctlreq_kind {
#define CONTROL_KIND(kind, ...) CTLREQ_##kind,
	CONTROL_COMMANDS(CONTROL_KIND)
#undef CONTROL_KIND
	CTLREQ_N
};

/* The argument after a command's words (ctlreq.c parses each kind). */
enum control_arg {
	CONTROL_ARG_NONE = 0,
	CONTROL_ARG_PEER,	/* ADDR: an endpoint */
	CONTROL_ARG_FDB,	/* MAC[@VID]=ADDR: an fdb entry */
	CONTROL_ARG_FDB_KEY,	/* MAC[@VID]: what names one */
	CONTROL_ARG_ROUTE,	/* PREFIX=ADDR: a route of a tun */
	CONTROL_ARG_PREFIX,	/* PREFIX: what names one */
	CONTROL_ARG_N
};

/* A command's JSON form. */
enum control_json {
	CONTROL_JSON_NONE = 0,
	CONTROL_JSON_WORD,	/* "json" may follow its words: "[json]" */
	CONTROL_JSON_LINE,	/* "W json", a line of help of its own; its
				 * words take nothing else */
};

/* Who may run a command. */
enum control_who {
	CONTROL_READERS = 0,	/* whoever may ask (control.c): it reads */
	CONTROL_ADMINS,		/* root and --admin-group: it changes the
				 * tunnel (peers, forwarding, routes) */
	CONTROL_LOCAL,		/* gsotunctl answers it: never sent */
};

/* The parts of gsotunctl --help's list of commands, in this order. */
enum control_about {
	CONTROL_ABOUT_TUNNEL = 0,	/* what it does, its state */
	CONTROL_ABOUT_GSOTUN,		/* the gsotun asked, or which */
	CONTROL_ABOUT_GSOTUNCTL,	/* gsotunctl itself */
};

struct control_command {
	const char *w0, *w1;
	enum control_arg arg;
	bool tap;
	enum control_json json;
	enum control_who who;
	enum control_about about;
	const char *usage;
	const char *doc;
};

/* The rows of CONTROL_COMMANDS, by kind. */
extern const struct control_command control_commands[CTLREQ_N];

/* Each argument's placeholder in help: "ADDR", "MAC[@VID]=ADDR"... */
extern const char *const control_arg_names[CONTROL_ARG_N];

/*
 * The command the n words w start with (its words, the rest not looked
 * at), gsotunctl's own too; NULL when none does.
 */
const struct control_command *control_command(char *const *w, int n);

/*
 * Is word the first of some command ("show", "fdb", "list"...)?
 * gsotunctl: a first word that is not is the tap's name.
 */
bool control_is_command(const char *word);

/* The first word of a command closest to word, if one is close. */
const char *control_closest(const char *word);

/*
 * c's lines of help, newline-terminated, into buf: "fdb add
 * MAC[@VID]=ADDR [TAP]", "stats" and "stats json". Its length, as
 * snprintf() has it.
 */
int control_usage(const struct control_command *c, char *buf, size_t len);

/*
 * The reply to "help": every command's lines, as ctlreq.c parses them,
 * gsotunctl's own too if local (gsotunctl help). As control_usage().
 */
int control_help(char *buf, size_t len, bool local);

/* Room enough for control_help(). */
#define CONTROL_HELP_MAX 4096

#endif
