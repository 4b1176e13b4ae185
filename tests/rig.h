/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A port of devices for the operators' unit tests (unit-report,
 * unit-control): built from an argv as gsotun's set-up builds it, with
 * no tap, socket or ring opened; the test fills in what a tap would say.
 */
#ifndef GSOTUN_TESTS_RIG_H
#define GSOTUN_TESTS_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "conf/cfg.h"
#include "conf/options.h"
#include "conf/optvalue.h"
#include "data/tx.h"
#include "dev/device.h"
#include "dev/fwd.h"
#include "dev/port.h"
#include "ops/report.h"

struct rig {
	struct config cfg;
	struct port port;
	struct device dev[CONFIG_MAX_TUNNELS];
};

/*
 * options_parse() of argv (NULL-terminated), a device for each tap of
 * it and the port's peers, each device's forwarding table with its
 * --fdb entries and its queue's transmit buffers; the tap's name, MAC
 * (--mac, else 02:00:00:00:ff:i) and MTU (--mtu) set as tap_open() and
 * path_open() would. Bail out on any error.
 */
static inline void rig_open(struct rig *r, const char *const *argv)
{
	struct port *port = &r->port;
	char *args[128];
	unsigned int i;
	int argc = 0, err = 0;

	/* argp may permute what it is given. */
	while (argv[argc] && argc < 127) {
		args[argc] = (char *)argv[argc];
		argc++;
	}
	args[argc] = NULL;
	memset(r, 0, sizeof(*r));
	options_parse(argc, args, &r->cfg);
	port->start_ns = clock_now_ns();
	err = port_init_lanes(port, 1);
	for (i = 0; !err && i <= r->cfg.n_taps; i++)
		err = device_init(&r->dev[i], &r->cfg, port, i);
	if (!err)
		err = port_peers_open(port, &r->cfg);
	for (i = 0; !err && i < port->n_dev; i++) {
		struct device *d = port->dev[i];
		const uint8_t *mac = cfg_tap_mac(&r->cfg, i);
		static const uint8_t base[MAC_LEN] = { 2, 0, 0, 0, 0xff };

		snprintf(d->s.ifname, sizeof(d->s.ifname), "%s", d->name);
		memcpy(d->s.mac, mac ? mac : base, MAC_LEN);
		if (!mac)
			d->s.mac[5] = (uint8_t)i;
		d->path.mtu = r->cfg.mtu;
		d->s.budget = UINT32_MAX;
		d->ifindex = 100 + i;
		err = fwd_open(d);
		if (!err)
			err = tx_init(&d->q[0]);
	}
	if (err) {
		printf("Bail out! cannot build the port: %s\n", strerror(-err));
		exit(1);
	}
}

/* Everything rig_open() made, freed. */
static inline void rig_close(struct rig *r)
{
	unsigned int i;

	for (i = 0; i < r->port.n_dev; i++)
		device_close(r->port.dev[i]);
	port_free_lanes(&r->port);
	port_peers_close(&r->port);
	cfg_free(&r->cfg);
}

/* The slot of the peer at text address s, or -1. */
static inline int rig_peer(const struct rig *r, const char *s)
{
	struct ipaddr a;

	if (optvalue_ip_parse(s, &a) || a.family != r->port.peers.family)
		return -1;
	return peers_find(&r->port.peers, (const uint8_t *)&a.addr);
}

/* A whole report of kind, as one string (malloc'd). */
static inline char *rig_report(const struct rig *r, enum report_kind kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out) {
		printf("Bail out! open_memstream\n");
		exit(1);
	}
	report_write(out, &r->port, kind);
	fclose(out);
	return buf;
}

#endif
