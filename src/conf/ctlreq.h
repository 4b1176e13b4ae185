/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket's requests: the bytes a client sent, cut into its
 * request line, and that line parsed into what it asks. Pure: control.c
 * runs the request, tests/fuzz-control.c drives this without a tunnel.
 */
#ifndef GSOTUN_CTLREQ_H
#define GSOTUN_CTLREQ_H

#include <stdbool.h>
#include <stddef.h>
#include "conf/ctlproto.h"
#include "conf/types.h"

/* A request: what it asks, with its arguments parsed. */
struct ctlreq {
	enum ctlreq_kind kind;	/* its command's row (ctlproto.h) */
	bool json;		/* its JSON form: "json" after its words */
	const char *arg;	/* peer, fdb, route add|del: ADDR or entry,
				 * as sent */
	const char *tap;	/* fdb, route add|del: TAP, or NULL for the
				 * main one; show, fdb show, route show:
				 * TAP, or NULL for all */
	struct ipaddr peer;	/* peer add|del */
	struct config_fdb fdb;	/* fdb add; fdb del: mac and vlan only */
	struct config_route route;	/* route add; route del: prefix only */
};

/* What ctlreq_line() found in what a client sent so far. */
enum ctlreq_line {
	CTLREQ_LINE_MORE = 0,	/* no whole line yet: receive more */
	CTLREQ_LINE_DONE,	/* a line: parse it */
	CTLREQ_LINE_TOO_LONG,	/* CONTROL_REQ_MAX bytes and no newline */
	CTLREQ_LINE_NONE,	/* the client is done and sent nothing */
};

/*
 * The request line in the len bytes at buf (CONTROL_REQ_MAX bytes of
 * room) a client has sent; eof: it sends no more. A line ends at the
 * first newline (a CR before it is dropped: nc -C, socat crlf) or, with
 * eof, at the end. CTLREQ_LINE_DONE: the line is NUL-terminated in buf,
 * its length (NULs it holds counted) in *line_len.
 */
enum ctlreq_line ctlreq_line(char *buf, size_t len, bool eof,
			     size_t *line_len);

/*
 * The len bytes of line (ctlreq_line()'s; its words are cut apart in it,
 * and r points into it) into *r: 0, or CONTROL_EUSAGE with why (one line
 * of at most why_len bytes, NUL included) saying what is wrong.
 */
int ctlreq_parse(char *line, size_t len, struct ctlreq *r, char *why,
		 size_t why_len);

/*
 * Does r change the tunnel (peers, forwarding, routes), rather than read
 * it? Only root and --admin-group may.
 */
static inline bool ctlreq_changes(const struct ctlreq *r)
{
	return control_commands[r->kind].who == CONTROL_ADMINS;
}

#endif
