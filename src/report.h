/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a running gsotun says of itself: to the control socket
 * (gsotunctl) and on SIGUSR1. The formats are an interface, documented in
 * gsotunctl(8): fields may be added, never renamed.
 */
#ifndef GSOTUN_REPORT_H
#define GSOTUN_REPORT_H

#include <stdio.h>

struct port;
struct tunnel;

/* The tunnel's id as its messages say it: " VNI 1", " key 7" or "". */
void report_id(const struct tunnel *t, char *buf, size_t len);

/* The tap's offloads as names, space-separated ("csum tso4 tso6"). */
void report_offloads(char *buf, size_t len);

/* The counters dump: a line per peer, then per tunnel (the main last). */
void report_dump(FILE *out, const struct port *port);

/* For people: the tunnels, their drops by cause, the peers. */
void report_show(FILE *out, const struct port *port);

/* Every counter of every tunnel and peer, one JSON object. */
void report_json(FILE *out, const struct port *port);

/* The same in Prometheus' text exposition format (version 0.0.4). */
void report_metrics(FILE *out, const struct port *port);

/* The forwarding tables, an entry a line as `bridge fdb show` has it. */
void report_fdb(FILE *out, const struct port *port);

#endif
