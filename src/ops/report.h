/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a running gsotun says of itself: to the control socket
 * (gsotunctl) and on SIGUSR1. The formats are an interface, documented in
 * gsotunctl(8): fields may be added, never renamed.
 */
#ifndef GSOTUN_REPORT_H
#define GSOTUN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "conf/optvalue.h"

struct port;
struct device;

enum report_kind {
	/* The counters dump: a line per peer, then per device (main last). */
	REPORT_DUMP = 0,
	/* For people: the devices, their drops by cause, the peers. */
	REPORT_SHOW,
	/* Every counter of every device and peer, one JSON object. */
	REPORT_JSON,
	/* The same in Prometheus' text exposition format (version 0.0.4). */
	REPORT_METRICS,
	/* The forwarding tables, an entry a line as `bridge fdb show`. */
	REPORT_FDB,
	/* The taps' names, a line each, the main one first. */
	REPORT_TAPS,
	/* The peers, a line each. */
	REPORT_PEERS,
	/* The peers as one JSON object, each as REPORT_JSON has it. */
	REPORT_PEERS_JSON,
	/* The forwarding tables as one JSON object. */
	REPORT_FDB_JSON,
	/*
	 * The configuration running, as --config reads it: the options,
	 * the peers and static entries of now (conffile.h).
	 */
	REPORT_CONFIG,
	/* The tuns' route tables, a route a line, as `ip route` says one. */
	REPORT_ROUTES,
	/* The same as one JSON object. */
	REPORT_ROUTES_JSON,
};

/*
 * Where a report is, so that it can be written a piece at a time from
 * the loop, as a netlink dump is: what it has come to is kept here, not
 * what it said. Between two pieces the device may change (peers come
 * and go, entries are learnt and age): each piece says the state of its
 * moment, and a peer or entry that came, went or moved in between may
 * be missed or said twice; the report still ends.
 */
struct report_cursor {
	enum report_kind kind;
	unsigned int part;	/* the section it has come to */
	unsigned int i;		/* the device, peer or counter in it */
	unsigned int pos;	/* REPORT_FDB, REPORT_ROUTES: fdb_next()'s,
				 * route_next()'s cursor in device i */
	unsigned int n;		/* REPORT_FDB_JSON, REPORT_ROUTES_JSON: the
				 * entries written */
	bool one;		/* of one device only, dev (report_only()) */
	unsigned int dev;
	uint64_t after;		/* REPORT_CONFIG: fdb_next_static()'s */
	struct cidr last;	/* REPORT_CONFIG: the route said last, */
	bool has_last;		/* if one was, in device i */
};

/* The largest piece report_step() writes, about: a device in JSON. */
#define REPORT_PIECE_MAX 8192

static inline void report_start(struct report_cursor *c,
				enum report_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
}

/*
 * The report of c, started, of device dev only (the show, JSON,
 * forwarding and route reports; the others are of the port).
 */
static inline void report_only(struct report_cursor *c, unsigned int dev)
{
	c->one = true;
	c->dev = dev;
}

/*
 * The next piece of c's report to out; false once it is all written
 * (nothing is written then).
 */
bool report_step(FILE *out, const struct port *port,
		 struct report_cursor *c);

/*
 * Whether a report of kind reads what the queues count (their
 * counters, the peers' last packet): the main thread makes it with
 * them stopped. The forwarding and route tables and the configuration
 * are the main thread's.
 */
bool report_reads_lanes(enum report_kind kind);

/* A whole report to out, at once (SIGUSR1, exit). */
void report_write(FILE *out, const struct port *port, enum report_kind kind);

/* The device's id as its messages say it: " VNI 1", " key 7" or "". */
void report_id(const struct device *dev, char *buf, size_t len);

/* The tap's offloads as names, space-separated ("csum tso4 tso6"). */
void report_offloads(char *buf, size_t len);

/*
 * The device's start-up line: its encapsulation and id, where it
 * listens, its peers, its MAC (a tun's routes), MTU, offloads, source
 * ports and queues.
 */
void report_log_device(const struct device *d);

#endif
