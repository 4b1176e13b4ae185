// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for the control socket's requests: what a client
 * sends, cut into its line as control.c's reads do (ctlreq_line()) and
 * parsed (ctlreq_parse()), each outcome checked against references here.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "base/mac.h"
#include "conf/ctlproto.h"
#include "conf/ctlreq.h"
#include "conf/optvalue.h"
#include "conf/types.h"
#include "fuzz.h"

/*
 * Input:
 *   byte 0   bits 0-6: the bytes a read takes at most, less one (1-128:
 *            a request may come a byte at a time); bit 7: the client
 *            shuts its side down once all is sent (a last line with no
 *            newline is taken then)
 *   then     the bytes the client sends
 */
#define CTL_EOF 0x80
#define CTL_WORDS_MAX 8

/* The line control.c must see, by the protocol's rules, not ctlreq.c's. */
static enum ctlreq_line want_line(const uint8_t *d, size_t n, bool eof,
				  size_t *len)
{
	size_t span = n < CONTROL_REQ_MAX ? n : CONTROL_REQ_MAX;
	const uint8_t *nl = memchr(d, '\n', span);

	if (nl)
		*len = (size_t)(nl - d);
	else if (n >= CONTROL_REQ_MAX)
		return CTLREQ_LINE_TOO_LONG;
	else if (!eof)
		return CTLREQ_LINE_MORE;
	else if (!n)
		return CTLREQ_LINE_NONE;
	else
		*len = n;
	if (*len && d[*len - 1] == '\r')
		(*len)--;
	return CTLREQ_LINE_DONE;
}

/* Its words, split apart independently of ctlreq.c; -1: too many. */
static int words(const char *line, size_t len, char w[][CONTROL_REQ_MAX])
{
	size_t i = 0, k;
	int n = 0;

	for (;;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			return n;
		if (n == CTL_WORDS_MAX)
			return -1;
		for (k = 0; i < len && line[i] != ' ' && line[i] != '\t'; i++)
			w[n][k++] = line[i];
		w[n++][k] = '\0';
	}
}

static bool has_control_char(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return true;
	return false;
}

/*
 * The words a request of kind has: its own, then "json" if json and its
 * JSON form is asked for, then an argument if arg (peer's ADDR, fdb's
 * and route's entry), then a TAP if tap allows one. Written here again,
 * not read from ctlproto.h's table, as the reference it is held to.
 */
static const struct {
	const char *w[2];
	bool json, arg, tap, changes;
} shape[] = {
	[CTLREQ_SHOW] = { .w = { "show" }, .tap = true, .json = true },
	[CTLREQ_STATS] = { .w = { "stats" }, .json = true },
	[CTLREQ_METRICS] = { .w = { "metrics" } },
	[CTLREQ_VERSION] = { .w = { "version" } },
	[CTLREQ_HELP] = { .w = { "help" } },
	[CTLREQ_TAPS] = { .w = { "taps" } },
	[CTLREQ_PEER_ADD] = { .w = { "peer", "add" }, .arg = true,
			      .changes = true },
	[CTLREQ_PEER_DEL] = { .w = { "peer", "del" }, .arg = true,
			      .changes = true },
	[CTLREQ_PEER_LIST] = { .w = { "peer", "list" }, .json = true },
	[CTLREQ_FDB_SHOW] = { .w = { "fdb", "show" }, .tap = true,
			      .json = true },
	[CTLREQ_FDB_ADD] = { .w = { "fdb", "add" }, .arg = true, .tap = true,
			     .changes = true },
	[CTLREQ_FDB_DEL] = { .w = { "fdb", "del" }, .arg = true, .tap = true,
			     .changes = true },
	[CTLREQ_ROUTE_SHOW] = { .w = { "route", "show" }, .tap = true,
				.json = true },
	[CTLREQ_ROUTE_ADD] = { .w = { "route", "add" }, .arg = true,
			       .tap = true, .changes = true },
	[CTLREQ_ROUTE_DEL] = { .w = { "route", "del" }, .arg = true,
			       .tap = true, .changes = true },
	[CTLREQ_CONFIG] = { .w = { "config" } },
	/* CTLREQ_LIST is gsotunctl's: gsotun never parses it. */
};

/*
 * How many words of its own a request has: its command's, and "json"
 * for its JSON form.
 */
static int shape_own(const struct ctlreq *r)
{
	return (shape[r->kind].w[1] ? 2 : 1) + r->json;
}

/* Its i-th own word. */
static const char *shape_word(const struct ctlreq *r, int i)
{
	return i < (shape[r->kind].w[1] ? 2 : 1) ? shape[r->kind].w[i]
						 : "json";
}

static bool same_addr(const struct ipaddr *a, const struct ipaddr *b)
{
	size_t len = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && !memcmp(&a->addr, &b->addr, len);
}

static bool same_prefix(const struct cidr *a, const struct cidr *b)
{
	size_t len = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && a->prefix == b->prefix &&
	       !memcmp(&a->addr, &b->addr, len);
}

/* A prefix route_add() takes: a family, a length, no host bits. */
static bool prefix_ok(const struct cidr *p)
{
	return (p->family == AF_INET && p->prefix <= 32) ||
	       (p->family == AF_INET6 && p->prefix <= 128) ?
	       !optvalue_cidr_host_bits(p) : false;
}

static bool mac_ok(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return !(mac[0] & 1) && memcmp(mac, zero, 6);
}

/*
 * The request written back as text, parsed again: the same request.
 * What is parsed is what a canonical spelling of it means.
 */
static void check_again(const struct ctlreq *r)
{
	char line[2 * CONTROL_REQ_MAX], addr[INET6_ADDRSTRLEN];
	char mac[MAC_TEXT_LEN], prefix[OPTVALUE_CIDR_TEXT_LEN];
	char vid[8] = "", why[160];
	struct ctlreq again;
	int n;

	mac_ntoa(r->fdb.mac, mac);
	if (r->fdb.vlan)
		snprintf(vid, sizeof(vid), "@%u", r->fdb.vlan);
	switch (r->kind) {
	case CTLREQ_PEER_ADD:
	case CTLREQ_PEER_DEL:
		FUZZ_CHECK(inet_ntop(r->peer.family, &r->peer.addr, addr,
				     sizeof(addr)));
		n = snprintf(line, sizeof(line), "peer %s %s",
			     r->kind == CTLREQ_PEER_ADD ? "add" : "del", addr);
		break;
	case CTLREQ_FDB_ADD:
		FUZZ_CHECK(inet_ntop(r->fdb.peer.family, &r->fdb.peer.addr,
				     addr, sizeof(addr)));
		n = snprintf(line, sizeof(line), "fdb add %s%s=%s %s", mac,
			     vid, addr, r->tap ? r->tap : "");
		break;
	case CTLREQ_FDB_DEL:
		n = snprintf(line, sizeof(line), "fdb del %s%s %s", mac, vid,
			     r->tap ? r->tap : "");
		break;
	case CTLREQ_ROUTE_ADD:
		FUZZ_CHECK(inet_ntop(r->route.peer.family,
				     &r->route.peer.addr, addr, sizeof(addr)));
		n = snprintf(line, sizeof(line), "route add %s=%s %s",
			     optvalue_cidr_text(&r->route.prefix, prefix),
			     addr, r->tap ? r->tap : "");
		break;
	case CTLREQ_ROUTE_DEL:
		n = snprintf(line, sizeof(line), "route del %s %s",
			     optvalue_cidr_text(&r->route.prefix, prefix),
			     r->tap ? r->tap : "");
		break;
	default:
		/* Of one tap: its own words, and the tap. */
		if (!r->tap)
			return;
		n = snprintf(line, sizeof(line), "%s %s %s %s",
			     shape[r->kind].w[0],
			     shape[r->kind].w[1] ? shape[r->kind].w[1] : "",
			     r->json ? "json" : "", r->tap);
		break;
	}
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(line));
	FUZZ_CHECK(!ctlreq_parse(line, (size_t)n, &again, why, sizeof(why)));
	FUZZ_CHECK(again.kind == r->kind && again.json == r->json);
	FUZZ_CHECK(!r->tap == !again.tap &&
		   (!r->tap || !strcmp(r->tap, again.tap)));
	if (r->kind == CTLREQ_PEER_ADD || r->kind == CTLREQ_PEER_DEL) {
		FUZZ_CHECK(same_addr(&again.peer, &r->peer));
		return;
	}
	if (r->kind == CTLREQ_ROUTE_ADD || r->kind == CTLREQ_ROUTE_DEL) {
		FUZZ_CHECK(same_prefix(&again.route.prefix,
				       &r->route.prefix));
		if (r->kind == CTLREQ_ROUTE_ADD)
			FUZZ_CHECK(same_addr(&again.route.peer,
					     &r->route.peer));
		return;
	}
	if (r->kind != CTLREQ_FDB_ADD && r->kind != CTLREQ_FDB_DEL)
		return;
	FUZZ_CHECK(!memcmp(again.fdb.mac, r->fdb.mac, 6));
	FUZZ_CHECK(again.fdb.vlan == r->fdb.vlan);
	if (r->kind == CTLREQ_FDB_ADD)
		FUZZ_CHECK(same_addr(&again.fdb.peer, &r->fdb.peer));
}

/* What ctlreq_parse() made of a line, against its words. */
static void check_request(const char *line, size_t len, int ret,
			  const struct ctlreq *r, const char *why)
{
	static char w[CTL_WORDS_MAX][CONTROL_REQ_MAX];
	int n = has_control_char(line, len) ? -1 : words(line, len, w);
	int own, min, i;

	if (ret) {
		/* The status line it goes in is one line. */
		FUZZ_CHECK(ret == CONTROL_EUSAGE);
		FUZZ_CHECK(why[0] && !has_control_char(why, strlen(why)));
		return;
	}
	FUZZ_CHECK(n > 0 && n <= 6);
	FUZZ_CHECK((size_t)r->kind < sizeof(shape) / sizeof(*shape));
	FUZZ_CHECK(shape[r->kind].w[0]);
	FUZZ_CHECK(!r->json || shape[r->kind].json);
	own = shape_own(r);
	min = own + shape[r->kind].arg;
	FUZZ_CHECK(n == min || (shape[r->kind].tap && n == min + 1));
	for (i = 0; i < own; i++)
		FUZZ_CHECK(!strcmp(w[i], shape_word(r, i)));
	FUZZ_CHECK(!r->arg == !shape[r->kind].arg &&
		   (!r->arg || !strcmp(r->arg, w[own])));
	FUZZ_CHECK(!r->tap == (n == min) &&
		   (!r->tap || !strcmp(r->tap, w[min])));
	FUZZ_CHECK(!(shape[r->kind].json && !r->json && n > own &&
		     !strcmp(w[own], "json")));
	FUZZ_CHECK(ctlreq_changes(r) == shape[r->kind].changes);
	FUZZ_CHECK(control_is_command(w[0]));
	if (r->kind == CTLREQ_PEER_ADD || r->kind == CTLREQ_PEER_DEL)
		FUZZ_CHECK(r->peer.family == AF_INET ||
			   r->peer.family == AF_INET6);
	if (r->kind == CTLREQ_FDB_ADD || r->kind == CTLREQ_FDB_DEL)
		FUZZ_CHECK(mac_ok(r->fdb.mac) && r->fdb.vlan <= 4095);
	if (r->kind == CTLREQ_FDB_ADD)
		FUZZ_CHECK(r->fdb.peer.family == AF_INET ||
			   r->fdb.peer.family == AF_INET6);
	if (r->kind == CTLREQ_ROUTE_ADD || r->kind == CTLREQ_ROUTE_DEL)
		FUZZ_CHECK(prefix_ok(&r->route.prefix));
	if (r->kind == CTLREQ_ROUTE_ADD)
		FUZZ_CHECK(r->route.peer.family == AF_INET ||
			   r->route.peer.family == AF_INET6);
	check_again(r);
}

/* The line, parsed from a buffer of exactly its size (NUL and all). */
static void parse_line(const char *buf, size_t len)
{
	char *line = malloc(len + 1), *orig = malloc(len + 1), why[160];
	struct ctlreq r;
	int ret;

	FUZZ_CHECK(line && orig);
	memcpy(line, buf, len + 1);
	memcpy(orig, buf, len + 1);
	memset(why, 0x7f, sizeof(why));
	why[sizeof(why) - 1] = '\0';
	ret = ctlreq_parse(line, len, &r, why, sizeof(why));
	check_request(orig, len, ret, &r, why);
	free(line);
	free(orig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[CONTROL_REQ_MAX];
	size_t piece, sent = 0, have = 0, len = 0, want_len = 0, n;
	enum ctlreq_line got = CTLREQ_LINE_MORE, want;
	bool eof;

	if (!size)
		return 0;
	piece = (data[0] & 0x7f) + 1u;
	eof = data[0] & CTL_EOF;
	data++;
	size--;
	want = want_line(data, size, eof, &want_len);
	/* As control_read(): a read at a time, then the end if it comes. */
	while (got == CTLREQ_LINE_MORE && sent < size) {
		n = size - sent < piece ? size - sent : piece;
		if (n > sizeof(buf) - have)
			n = sizeof(buf) - have;
		memcpy(buf + have, data + sent, n);
		have += n;
		sent += n;
		got = ctlreq_line(buf, have, false, &len);
	}
	if (got == CTLREQ_LINE_MORE && eof)
		got = ctlreq_line(buf, have, true, &len);
	FUZZ_CHECK(got == want);
	if (got != CTLREQ_LINE_DONE)
		return 0;
	FUZZ_CHECK(len == want_len && !memcmp(buf, data, len) &&
		   buf[len] == '\0');
	parse_line(buf, len);
	return 0;
}
