// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report: what a running gsotun says of itself, to the control socket
 * (control.c) and on SIGUSR1: the counters dump, a summary for people,
 * every counter as JSON and as Prometheus metrics, the forwarding table;
 * and each device's line at start.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include "base/bytes.h"
#include "base/clock.h"
#include "base/compat.h"
#include "conf/conffile.h"
#include "conf/optable.h"
#include "sys/tap.h"
#include "dev/device.h"
#include "dev/path.h"
#include "dev/port.h"
#include "ops/report.h"

static const struct {
	unsigned int bit;
	const char *name;
} offloads[] = {
	{ TUN_F_CSUM, "csum" }, { TUN_F_TSO4, "tso4" },
	{ TUN_F_TSO6, "tso6" }, { TUN_F_TSO_ECN, "tso_ecn" },
	{ TUN_F_UFO, "ufo" }, { TUN_F_USO4, "uso4" },
	{ TUN_F_USO6, "uso6" },
};

static const char *report_reach(const struct peer *e)
{
	switch (e->reach) {
	case PEER_REACH_NO_ROUTE:
		return "no route";
	case PEER_REACH_LINK_DOWN:
		return "link down";
	case PEER_REACH_CIRCULAR:
		return "circular";
	default:
		return "ok";
	}
}

/* The same in one word, for a line of fields. */
static const char *report_reach_word(const struct peer *e)
{
	switch (e->reach) {
	case PEER_REACH_NO_ROUTE:
		return "no-route";
	case PEER_REACH_LINK_DOWN:
		return "link-down";
	case PEER_REACH_CIRCULAR:
		return "circular";
	default:
		return "ok";
	}
}

static double report_uptime(const struct port *port)
{
	return (double)(clock_now_ns() - port->start_ns) / 1e9;
}

static void report_addr(const struct ipaddr *a, char *buf, size_t len)
{
	inet_ntop(a->family, &a->addr, buf, len);
}

/* "1.50 MiB"; bytes below 1 KiB as a number of bytes. */
static void report_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int i = -1;

	if (n < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", n);
		return;
	}
	while (v >= 1024 && i < 3) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.2f %s", v, unit[i]);
}

void report_offloads(char *buf, size_t len)
{
	unsigned int bits = tap_offloads(), i;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(offloads) / sizeof(*offloads); i++)
		if ((bits & offloads[i].bit) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? " " : "",
				      offloads[i].name);
	if (!n)
		snprintf(buf, len, "none");
}

void report_id(const struct device *dev, char *buf, size_t len)
{
	buf[0] = '\0';
	if (encap_has_id(&dev->s.encap))
		snprintf(buf, len, " %s %u", encap_id_name(dev->s.encap.type),
			 encap_id(&dev->s.encap));
}

void report_log_device(const struct device *d)
{
	const struct peers *ps = d->s.peers;
	const struct ipaddr *local = &d->s.cfg->local;
	char remote[INET6_ADDRSTRLEN] = "no peer yet", more[80] = "";
	char id[24] = "";
	char where[INET6_ADDRSTRLEN + 24] = "", addr[INET6_ADDRSTRLEN];
	char mac[MAC_TEXT_LEN], offl[80], ports[32] = "", queues[24] = "";
	char link[40];
	unsigned int n_src = underlay_n_src(&d->port->ul[0]);
	unsigned int n_routes = route_count(&d->s.routes);

	if (ps->n)
		inet_ntop(ps->family, &ps->v[ps->live[0]].addr.addr, remote,
			  sizeof(remote));
	else if (d->s.evpn)
		snprintf(remote, sizeof(remote), "the EVPN fabric's VTEPs");
	/* Where it listens: --local, and the port of UDP encapsulations. */
	if (local->family)
		inet_ntop(local->family, &local->addr, addr, sizeof(addr));
	if (encap_is_udp(d->s.encap.type))
		snprintf(where, sizeof(where), " on %s%sport %u",
			 local->family ? addr : "", local->family ? " " : "",
			 d->s.cfg->port);
	else if (local->family)
		snprintf(where, sizeof(where), " on %s", addr);
	if (d->s.peers->n > 1)
		snprintf(more, sizeof(more), " and %u more peer%s%s%s",
			 d->s.peers->n - 1, d->s.peers->n > 2 ? "s" : "",
			 d->s.learning ? ", learning" : "",
			 d->s.cfg->n_fdb ? ", static fdb entries" : "");
	/* Raw GRE has no ports. */
	if (encap_is_udp(d->s.encap.type))
		snprintf(ports, sizeof(ports), ", %u source port%s", n_src,
			 n_src > 1 ? "s" : "");
	if (d->n_q > 1)
		snprintf(queues, sizeof(queues), ", %u queues", d->n_q);
	/* A tun has no MAC; what it has instead is its routes. */
	if (d->s.encap.l3)
		snprintf(link, sizeof(link), "%u route%s", n_routes,
			 n_routes == 1 ? "" : "s");
	else
		snprintf(link, sizeof(link), "MAC %s", mac_ntoa(d->s.mac, mac));
	report_id(d, id, sizeof(id));
	report_offloads(offl, sizeof(offl));
	log_info("%s: %s%s tunnel%s to %s%s, %s, MTU %u, %s offloads %s%s%s",
		 d->s.ifname, encap_name(d->s.encap.type), id, where, remote,
		 more, link, device_mtu(d), d->s.encap.l3 ? "tun" : "tap",
		 offl, ports, queues);
}

/* The cursor's next section, from its first device or peer. */
static void report_next_part(struct report_cursor *c)
{
	c->part++;
	c->i = 0;
}

/*
 * The i-th device the report is about: of all, or the one it is of
 * (report_only()); NULL past the last.
 */
static const struct device *report_device(const struct port *port,
					  const struct report_cursor *c,
					  unsigned int i)
{
	if (c->one)
		return i ? NULL : port->dev[c->dev];
	return i < port->n_dev ? port->dev[i] : NULL;
}

/* The i-th live peer, or NULL past the last (peers come and go). */
static const struct peer *report_peer(const struct port *port,
				      unsigned int i)
{
	const struct peers *ps = &port->peers;

	return i < ps->n ? &ps->v[ps->live[i]] : NULL;
}

/* A peer's line with its counters, for the counters dump. */
static void report_dump_peer(FILE *out, const struct port *port,
			     const struct peer *e)
{
	char addr[INET6_ADDRSTRLEN];
	struct peer_sum sum;

	port_peer_sum(port, e, &sum);
	report_addr(&e->addr, addr, sizeof(addr));
	fprintf(out, "peer %s path_mtu=%u", addr, e->path_mtu);
#define PEER_DUMP(name, help)                                                 \
	fprintf(out, " peer_%s=%" PRIu64, #name, sum.st.name);
	PEER_STATS_LIST(PEER_DUMP)
#undef PEER_DUMP
	fputc('\n', out);
}

/* Part 0: a line per peer; 1: per device, the main one last. */
static bool report_dump_step(FILE *out, const struct port *port,
			     struct report_cursor *c)
{
	const struct device *dev;
	const struct peer *e;
	struct stats st;

	if (c->part == 0) {
		e = report_peer(port, c->i++);
		if (e) {
			report_dump_peer(out, port, e);
			return true;
		}
		report_next_part(c);
	}
	if (c->i >= port->n_dev)
		return false;
	dev = port->dev[port->n_dev - 1 - c->i++];
	if (port->n_dev > 1)
		fprintf(out, "tunnel %s ", dev->s.ifname);
	device_stats(dev, &st);
	stats_print(out, &st);
	return true;
}

/* Seconds since then (clock.h), for people. */
static double report_ago(uint64_t now, uint64_t then)
{
	return now > then ? (double)(now - then) / 1e9 : 0;
}

/*
 * The drops of dev (its counters st) that are not zero, each with what
 * it means, what the last one came with where that tells the cause (the
 * VNI, the sender), and how long ago it was: a cause that was mended
 * stands out.
 */
static void report_show_drops(FILE *out, const struct device *dev,
			      const struct stats *st, uint64_t now)
{
	const char *lead = "  drops:";
	char seen[80];
	size_t i;

	for (i = 0; i < stats_n; i++) {
		const struct stats_desc *d = &stats_desc[i];
		uint64_t v = stats_value(st, d);
		/* "Packets dropped: wrong VNI" says "wrong VNI" here. */
		const char *colon = strstr(d->help, ": ");
		const char *why = colon ? colon + 2 : d->help;

		if (!d->drop || !v)
			continue;
		fprintf(out, "%-11s %" PRIu64 " %s (%s)", lead, v, why,
			d->name);
		if (device_seen_text(dev, d->reason, seen, sizeof(seen)))
			fprintf(out, ", %s", seen);
		fprintf(out, ", last %.1f s ago\n",
			report_ago(now, st->drop_ns[d->reason]));
		lead = "";
	}
}

static void report_show_device(FILE *out, const struct device *dev)
{
	char id[24], tx[24], rx[24], offl[80], mac[MAC_TEXT_LEN];
	const struct fdb *f = &dev->s.fdb;
	struct stats st, *s = &st;

	device_stats(dev, &st);
	report_id(dev, id, sizeof(id));
	report_offloads(offl, sizeof(offl));
	report_bytes(s->tx_bytes, tx, sizeof(tx));
	report_bytes(s->rx_frame_bytes, rx, sizeof(rx));
	fprintf(out, "tunnel %s: %s%s\n", dev->s.ifname,
		encap_name(dev->s.encap.type), id);
	if (dev->s.encap.l3) {
		fprintf(out, "  tun: mtu %u, offloads %s\n", device_mtu(dev),
			offl);
		fprintf(out, "  routes: %u%s\n", route_count(&dev->s.routes),
			dev->s.cfg->strict_source ? " (strict source)" : "");
		if (dev->s.echo)
			fprintf(out, "  geneve-echo: %u flows held of %u\n",
				echo_count(dev->s.echo, clock_now_ns()),
				echo_capacity(dev->s.echo));
	} else {
		mac_ntoa(dev->s.mac, mac);
		fprintf(out, "  tap: mac %s, mtu %u, offloads %s\n", mac,
			device_mtu(dev), offl);
		fprintf(out, "  forwarding: %u learnt%s, %u static",
			fdb_count_learnt(f),
			dev->s.learning ? "" : " (no learning)",
			fdb_count_static(f) - fdb_count_evpn(f));
		if (dev->s.evpn)
			fprintf(out, ", %u from the EVPN fabric",
				fdb_count_evpn(f));
		fputc('\n', out);
	}
	fprintf(out, "  sent: %" PRIu64 " frames (%s) in %" PRIu64
		" packets\n", s->tx_frames, tx, s->tx_segments);
	fprintf(out, "  received: %" PRIu64 " packets, %" PRIu64
		" frames (%s)\n", s->rx_segments, s->rx_frames, rx);
	report_show_drops(out, dev, s, clock_now_ns());
}

/* "1.6 s ago" of then, or "never" when it is 0, into buf. */
static const char *report_when(uint64_t now, uint64_t then, char *buf,
			       size_t len)
{
	if (then)
		snprintf(buf, len, "%.1f s ago", report_ago(now, then));
	else
		snprintf(buf, len, "never");
	return buf;
}

/*
 * What the underlay last said of peer e, if anything: the ICMP error and
 * its likely causes, how long ago, and whether the peer spoke since. An
 * error the peer's packets came through after is history: what it was,
 * without the causes to look for.
 */
static void report_show_icmp(FILE *out, const struct device *dev,
			     const struct peer *e, const struct peer_sum *sum,
			     uint64_t now)
{
	char text[200];

	if (!e->icmp_ns)
		return;
	if (sum->rx_ok_ns > e->icmp_ns) {
		fprintf(out, "  underlay: past ICMP %s, %.1f s ago (%" PRIu64
			" in all); it has sent since\n",
			path_icmp_what(&e->icmp, text, sizeof(text)),
			report_ago(now, e->icmp_ns), sum->st.icmp_unreach);
		return;
	}
	fprintf(out, "  underlay: ICMP %s, %.1f s ago (%" PRIu64 " in all%s)\n",
		path_icmp_hint(dev, &e->icmp, text, sizeof(text)),
		report_ago(now, e->icmp_ns), sum->st.icmp_unreach,
		sum->rx_last_ns > e->icmp_ns ? "; it has sent since, all "
					       "dropped" : "");
}

/* The counter of drop why, or NULL. */
static const struct stats_desc *report_drop_desc(enum drop why)
{
	size_t i;

	for (i = 0; i < stats_n; i++)
		if (stats_desc[i].drop && stats_desc[i].reason == why)
			return &stats_desc[i];
	return NULL;
}

/* What a drop's help says after its "Packets dropped: ": "wrong VNI". */
static const char *report_drop_why(const struct stats_desc *d)
{
	const char *colon = strstr(d->help, ": ");

	return colon ? colon + 2 : d->help;
}

/*
 * The VNI or key the last drop of a peer's came with, if it was a wrong
 * one, and the one expected: ", VNI 5 (expected 7)"; the main tap's when
 * it is the only one, else none of the taps has it.
 */
static void report_show_drop_id(FILE *out, const struct device *dev,
				const struct peer_sum *sum)
{
	const struct encap_cfg *c = &dev->s.encap;

	if (sum->drop_why != DROP_RX_VNI && sum->drop_why != DROP_RX_KEY)
		return;
	if (sum->drop_has_id)
		fprintf(out, ", %s %u", encap_id_name(c->type), sum->drop_id);
	else
		fprintf(out, ", no %s", encap_id_name(c->type));
	if (dev->port->n_dev > 1)
		fputs(" (no tap has it)", out);
	else if (encap_has_id(c))
		fprintf(out, " (expected %u)", encap_id(c));
	else
		fputs(" (expected none)", out);
}

/*
 * The next of a peer's drop causes, the commonest first: the slot with
 * the most below (count *n, slot *j), or -1 when no more moved.
 */
static int report_drop_next(const struct peer_sum *sum, uint64_t *n, int j)
{
	uint64_t most = 0;
	int i, hit = -1;

	for (i = 0; i < PEER_DROPS; i++) {
		uint64_t v = sum->drop[i];

		/* Below the last: fewer, or as many and after it. */
		if (j >= 0 && (v > *n || (v == *n && i <= j)))
			continue;
		if (v > most) {
			most = v;
			hit = i;
		}
	}
	*n = most;
	return hit;
}

/*
 * What of a peer's packets was dropped: how many (every one, when none
 * was accepted), by cause, the commonest first, the last one when and
 * with what VNI or key.
 */
static void report_show_peer_drops(FILE *out, const struct device *dev,
				   const struct peer_sum *sum, uint64_t now)
{
	const struct stats_desc *d;
	const char *sep = ": ";
	uint64_t n = 0;
	int j = -1;

	if (!sum->st.rx_drops)
		return;
	fprintf(out, "  dropped: %" PRIu64 " of them%s", sum->st.rx_drops,
		sum->st.rx_drops >= sum->st.rx_packets ? ", every one" : "");
	while ((j = report_drop_next(sum, &n, j)) >= 0) {
		d = report_drop_desc(PEER_DROP_FIRST + j);
		if (!d)
			continue;
		fprintf(out, "%s%" PRIu64 " %s (%s)", sep, n,
			report_drop_why(d), d->name);
		sep = ", ";
	}
	fprintf(out, "; the last %.1f s ago", report_ago(now, sum->drop_ns));
	report_show_drop_id(out, dev, sum);
	fputc('\n', out);
}

/*
 * What follows a circular route to a peer (path.c): which device of ours
 * it goes through, and that frames to the peer are refused.
 */
static void report_show_circular(FILE *out, const struct port *port,
				 const struct peer *e)
{
	unsigned int i;

	if (e->reach != PEER_REACH_CIRCULAR)
		return;
	for (i = 0; i < port->n_dev; i++)
		if (port->dev[i]->ifindex == e->oif)
			fprintf(out, ", via %s", port->dev[i]->s.ifname);
	fputs(" (refused)", out);
}

static void report_show_peer(FILE *out, const struct device *dev,
			     const struct peer *e, uint64_t now)
{
	char addr[INET6_ADDRSTRLEN], tx[24], rx[24], mtu[16] = "unknown";
	char last[32], accepted[32];
	const struct peer_stats *s;
	struct peer_sum sum;

	port_peer_sum(dev->port, e, &sum);
	s = &sum.st;
	report_addr(&e->addr, addr, sizeof(addr));
	report_bytes(s->tx_bytes, tx, sizeof(tx));
	report_bytes(s->rx_bytes, rx, sizeof(rx));
	if (e->path_mtu)
		snprintf(mtu, sizeof(mtu), "%u", e->path_mtu);
	fprintf(out, "peer %s\n", addr);
	if (e->evpn)
		fprintf(out, "  source: evpn%s\n",
			e->evpn_only ? "" : " (and configured)");
	fprintf(out, "  route: %s", report_reach(e));
	report_show_circular(out, dev->port, e);
	fprintf(out, ", path mtu: %s\n", mtu);
	fprintf(out, "  sent: %" PRIu64 " packets (%s), %" PRIu64
		" refused\n", s->tx_packets, tx, s->tx_drops);
	fprintf(out, "  received: %" PRIu64 " packets (%s), last %s, last "
		"accepted %s\n", s->rx_packets, rx,
		report_when(now, sum.rx_last_ns, last, sizeof(last)),
		report_when(now, sum.rx_ok_ns, accepted, sizeof(accepted)));
	report_show_peer_drops(out, dev, &sum, now);
	report_show_icmp(out, dev, e, &sum, now);
}

/*
 * --busy-poll: what polling cost, the lanes' time awake polling (all on
 * the main device's counters) against the time up, and what it spared.
 */
static void report_show_busy(FILE *out, const struct port *port)
{
	double up = report_uptime(port);
	struct stats st;

	if (!port->cfg->busy_poll || !port->n_dev)
		return;
	device_stats(port->dev[0], &st);
	fprintf(out, "busy-poll: %u us after work, %.3f s polled (%.1f%% of "
		"a CPU), %" PRIu64 " wake-ups spared\n", port->cfg->busy_poll,
		st.busy_poll_us / 1e6,
		up > 0 ? st.busy_poll_us / 1e4 / up : 0.0,
		st.busy_poll_caught);
}

static void report_show_head(FILE *out, const struct port *port)
{
	const struct config *c = port->cfg;
	const struct peers *ps = &port->peers;
	char local[INET6_ADDRSTRLEN] = "any";
	uint64_t up = (uint64_t)report_uptime(port);

	if (c->local.family)
		report_addr(&c->local, local, sizeof(local));
	fprintf(out, "gsotun %s, pid %ld, up %" PRIu64 "d %02" PRIu64
		":%02" PRIu64 ":%02" PRIu64 "\n", PACKAGE_VERSION,
		(long)getpid(), up / 86400, up / 3600 % 24, up / 60 % 60,
		up % 60);
	fprintf(out, "underlay: %s, local %s", c->family == AF_INET6 ?
		"IPv6" : "IPv4", local);
	if (ps->port)
		fprintf(out, ", port %u", ps->port);
	fprintf(out, ", %u peer%s\n", ps->n, ps->n == 1 ? "" : "s");
	report_show_busy(out, port);
}

/* Part 0: the process and underlay; 1: each device; 2: each peer. */
static bool report_show_step(FILE *out, const struct port *port,
			     struct report_cursor *c)
{
	const struct device *dev;
	const struct peer *e;

	switch (c->part) {
	case 0:
		report_show_head(out, port);
		report_next_part(c);
		return true;
	case 1:
		dev = report_device(port, c, c->i++);
		if (dev) {
			report_show_device(out, dev);
			return true;
		}
		report_next_part(c);
		/* fall through */
	default:
		e = report_peer(port, c->i++);
		if (e)
			report_show_peer(out, port->dev[0], e,
					 clock_now_ns());
		return e != NULL;
	}
}

/* s as a JSON string, with what must be escaped escaped. */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* The tap's offloads, a JSON array of their names. */
static void report_json_offloads(FILE *out)
{
	unsigned int bits = tap_offloads(), i;
	const char *sep = "";

	fputc('[', out);
	for (i = 0; i < sizeof(offloads) / sizeof(*offloads); i++) {
		if (!(bits & offloads[i].bit))
			continue;
		fprintf(out, "%s\"%s\"", sep, offloads[i].name);
		sep = ",";
	}
	fputc(']', out);
}

/* Counters as a JSON object: all of them, or those not zero. */
static void report_json_counters(FILE *out, const struct stats *st,
				 bool moved)
{
	const char *sep = "";
	size_t i;

	fputc('{', out);
	for (i = 0; i < stats_n; i++) {
		const struct stats_desc *d = &stats_desc[i];
		uint64_t v = stats_value(st, d);

		if (moved && !v)
			continue;
		fprintf(out, "%s\"%s\":%" PRIu64, sep, d->name, v);
		sep = ",";
	}
	fputc('}', out);
}

static void report_json_device(FILE *out, const struct device *dev)
{
	char mac[MAC_TEXT_LEN];
	struct stats st;
	size_t i;

	device_stats(dev, &st);
	mac_ntoa(dev->s.mac, mac);
	fputs("{\"dev\":", out);
	json_str(out, dev->s.ifname);
	fprintf(out, ",\"ifindex\":%u,\"mac\":\"%s\",\"mtu\":%u",
		dev->ifindex, mac, device_mtu(dev));
	if (encap_has_id(&dev->s.encap))
		fprintf(out, ",\"%s\":%u", encap_id_option(dev->s.encap.type),
			encap_id(&dev->s.encap));
	fprintf(out, ",\"fdb_learnt\":%u,\"fdb_static\":%u,\"fdb_evpn\":%u,"
		"\"learning\":%s,\"evpn\":%s,",
		fdb_count_learnt(&dev->s.fdb),
		fdb_count_static(&dev->s.fdb) - fdb_count_evpn(&dev->s.fdb),
		fdb_count_evpn(&dev->s.fdb), dev->s.learning ? "true" : "false",
		dev->s.evpn ? "true" : "false");
	if (dev->s.encap.l3)
		fprintf(out, "\"routes\":%u,\"strict_source\":%s,",
			route_count(&dev->s.routes),
			dev->s.cfg->strict_source ? "true" : "false");
	if (dev->s.echo)
		fprintf(out, "\"echo_flows\":%u,\"echo_capacity\":%u,",
			echo_count(dev->s.echo, clock_now_ns()),
			echo_capacity(dev->s.echo));
	fputs("\"offloads\":", out);
	report_json_offloads(out);
	fputs(",\"counters\":", out);
	report_json_counters(out, &st, false);
	/* Each queue's share (--queues), of the counters it moved. */
	fputs(",\"queues\":[", out);
	for (i = 0; i < dev->n_q; i++) {
		fputs(i ? "," : "", out);
		report_json_counters(out, &dev->q[i].st, true);
	}
	fputs("]}", out);
}

/* A time as JSON's seconds since, or null when it is 0 (none). */
static void report_json_ago(FILE *out, const char *name, uint64_t now,
			    uint64_t then)
{
	if (then)
		fprintf(out, "\"%s\":%.3f,", name, report_ago(now, then));
	else
		fprintf(out, "\"%s\":null,", name);
}

/*
 * What a peer sent that was dropped: the drops that moved by cause (the
 * taps' counter names), the last one's cause, age and VNI or key.
 */
static void report_json_peer_drops(FILE *out, const struct peer_sum *sum,
				   uint64_t now)
{
	const struct stats_desc *d;
	const char *sep = "";
	unsigned int j;

	fputs("\"drops\":{", out);
	for (j = 0; j < PEER_DROPS; j++) {
		d = report_drop_desc(PEER_DROP_FIRST + j);
		if (!sum->drop[j] || !d)
			continue;
		fprintf(out, "%s\"%s\":%" PRIu64, sep, d->name, sum->drop[j]);
		sep = ",";
	}
	fputs("},", out);
	d = sum->drop_ns ? report_drop_desc(sum->drop_why) : NULL;
	if (d)
		fprintf(out, "\"drop_last\":\"%s\",", d->name);
	else
		fputs("\"drop_last\":null,", out);
	report_json_ago(out, "drop_last_seconds", now, d ? sum->drop_ns : 0);
	if (d && sum->drop_has_id)
		fprintf(out, "\"drop_last_id\":%u,", sum->drop_id);
	else
		fputs("\"drop_last_id\":null,", out);
}

/* What ICMP said last, by its cause, type and code; whether it is past. */
static void report_json_peer_icmp(FILE *out, const struct peer *e,
				  const struct peer_sum *sum, uint64_t now)
{
	if (!e->icmp_ns) {
		fputs("\"icmp_last_seconds\":null,\"icmp_cause\":null,"
		      "\"icmp_past\":null,", out);
		return;
	}
	fprintf(out, "\"icmp_last_seconds\":%.3f,\"icmp_cause\":\"%s\","
		"\"icmp_type\":%u,\"icmp_code\":%u,\"icmp_past\":%s,",
		report_ago(now, e->icmp_ns),
		path_icmp_name(path_icmp_cause(&e->icmp)), e->icmp.type,
		e->icmp.code, sum->rx_ok_ns > e->icmp_ns ? "true" : "false");
}

static void report_json_peer(FILE *out, const struct port *port,
			     const struct peer *e, uint64_t now)
{
	char addr[INET6_ADDRSTRLEN];
	const struct peer_stats *s;
	const char *sep = "";
	struct peer_sum sum;

	port_peer_sum(port, e, &sum);
	s = &sum.st;
	report_addr(&e->addr, addr, sizeof(addr));
	fprintf(out, "{\"address\":\"%s\",\"route\":\"%s\",\"path_mtu\":%u,",
		addr, report_reach(e), e->path_mtu);
	fprintf(out, "\"source\":\"%s\",\"evpn\":%s,",
		e->evpn_only ? "evpn" : "configured",
		e->evpn ? "true" : "false");
	report_json_ago(out, "rx_last_seconds", now, sum.rx_last_ns);
	report_json_ago(out, "rx_accepted_seconds", now, sum.rx_ok_ns);
	report_json_peer_drops(out, &sum, now);
	report_json_peer_icmp(out, e, &sum, now);
	fputs("\"counters\":{", out);
#define PEER_JSON(name, help)                                                 \
	do {                                                                  \
		fprintf(out, "%s\"%s\":%" PRIu64, sep, #name, s->name);       \
		sep = ",";                                                    \
	} while (0);
	PEER_STATS_LIST(PEER_JSON)
#undef PEER_JSON
	fputs("}}", out);
}

static void report_json_head(FILE *out, const struct port *port)
{
	const struct config *c = port->cfg;
	char local[INET6_ADDRSTRLEN];

	fprintf(out, "{\"version\":\"%s\",\"pid\":%ld,\"uptime\":%.3f,"
		"\"mode\":\"%s\",\"encap\":\"%s\",\"family\":\"%s\","
		"\"port\":%u,\"local\":",
		PACKAGE_VERSION, (long)getpid(), report_uptime(port),
		c->encap.l3 ? "tun" : "tap", encap_name(c->encap.type),
		c->family == AF_INET6 ? "ipv6" : "ipv4", port->peers.port);
	if (c->local.family) {
		report_addr(&c->local, local, sizeof(local));
		fprintf(out, "\"%s\"", local);
	} else {
		fputs("null", out);
	}
	fputs(",\"tunnels\":[", out);
}

/*
 * The "peers" array's next piece, a peer a step from c->i, then its
 * end and the object's: on to the next part.
 */
static void report_json_peers_step(FILE *out, const struct port *port,
				   struct report_cursor *c)
{
	const struct peer *e = report_peer(port, c->i);

	if (e) {
		fputs(c->i++ ? "," : "", out);
		report_json_peer(out, port, e, clock_now_ns());
		return;
	}
	fputs("]}\n", out);
	report_next_part(c);
}

/* Part 0: the process; 1: each device; 2: each peer; 3: the end. */
static bool report_json_step(FILE *out, const struct port *port,
			     struct report_cursor *c)
{
	const struct device *dev;

	switch (c->part) {
	case 0:
		report_json_head(out, port);
		report_next_part(c);
		return true;
	case 1:
		dev = report_device(port, c, c->i);
		if (dev) {
			fputs(c->i++ ? "," : "", out);
			report_json_device(out, dev);
			return true;
		}
		fputs("],\"peers\":[", out);
		report_next_part(c);
		return true;
	case 2:
		report_json_peers_step(out, port, c);
		return true;
	}
	return false;
}

/* A label value of the exposition format: \, " and newline escaped. */
static void metric_label(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void metric_head(FILE *out, const char *name, const char *type,
			const char *help)
{
	fprintf(out, "# HELP gsotun_%s ", name);
	/* HELP escapes backslash and newline (not the quote). */
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", out);
		else if (*help == '\n')
			fputs("\\n", out);
		else
			fputc(*help, out);
	}
	fprintf(out, "\n# TYPE gsotun_%s %s\n", name, type);
}

static void metric_dev(FILE *out, const char *name, const struct device *dev)
{
	fprintf(out, "gsotun_%s{dev=\"", name);
	metric_label(out, dev->s.ifname);
	fputs("\"", out);
}

/*
 * The families of a peer: gauges, two of them times (as Unix time, from
 * METRIC_PEER_TIME on), then its counters.
 */
static const struct {
	const char *name, *type, *help;
} metric_peer_families[] = {
	{ "peer_path_mtu", "gauge",
	  "Path MTU of the underlay to the peer (0: unknown)" },
	{ "peer_reachable", "gauge",
	  "1 when the underlay has a route to the peer on a link up" },
	{ "peer_rx_last_timestamp_seconds", "gauge",
	  "Unix time of the last packet from the peer (0: none)" },
	{ "peer_rx_accepted_timestamp_seconds", "gauge",
	  "Unix time of the last packet from the peer not dropped (0: none)" },
#define PEER_FAMILY(name, help) { "peer_" #name "_total", "counter", help },
	PEER_STATS_LIST(PEER_FAMILY)
#undef PEER_FAMILY
};

#define METRIC_PEER_FAMILIES \
	(sizeof(metric_peer_families) / sizeof(*metric_peer_families))
#define METRIC_PEER_TIME 2

/* Then one more: a peer's drops, a sample each cause that moved. */
#define METRIC_PEER_CAUSES "peer_rx_drops_by_cause_total"

static uint64_t metric_peer_field(const struct peer *e,
				  const struct peer_sum *sum, size_t family)
{
	const uint64_t v[] = {
		e->path_mtu, e->reach == PEER_REACH_OK,
		sum->rx_last_ns, sum->rx_ok_ns,
#define PEER_VALUE(name, help) sum->st.name,
		PEER_STATS_LIST(PEER_VALUE)
#undef PEER_VALUE
	};

	return v[family];
}

/*
 * A time of the clock (clock.h) as Unix time, for a metric: Prometheus
 * takes "when", not "how long ago", as a gauge.
 */
static double metric_unix_time(uint64_t then)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 -
	       report_ago(clock_now_ns(), then);
}

/* A peer's sample of family f, its value and the line's end. */
static void metric_peer_value(FILE *out, const struct port *port,
			      const struct peer *e, size_t f)
{
	struct peer_sum sum;
	uint64_t v;

	port_peer_sum(port, e, &sum);
	v = metric_peer_field(e, &sum, f);
	if (f >= METRIC_PEER_TIME && f < METRIC_PEER_TIME + 2 && v)
		fprintf(out, "%.3f\n", metric_unix_time(v));
	else
		fprintf(out, "%" PRIu64 "\n", v);
}

/* Family f's head before its first peer, then one peer's sample. */
static void metric_peer(FILE *out, const struct port *port, size_t f,
			unsigned int i, const struct peer *e)
{
	const char *name = metric_peer_families[f].name;
	char addr[INET6_ADDRSTRLEN];

	if (!i)
		metric_head(out, name, metric_peer_families[f].type,
			    metric_peer_families[f].help);
	if (!e)
		return;
	report_addr(&e->addr, addr, sizeof(addr));
	metric_dev(out, name, port->dev[0]);
	fprintf(out, ",peer=\"%s\"} ", addr);
	metric_peer_value(out, port, e, f);
}

/*
 * The drops of a peer's packets by cause, the taps' counter names as the
 * label: the head before the first peer, then a sample for each cause
 * that moved.
 */
static void metric_peer_causes(FILE *out, const struct port *port,
			       unsigned int i, const struct peer *e)
{
	const struct stats_desc *d;
	char addr[INET6_ADDRSTRLEN];
	struct peer_sum sum;
	unsigned int j;

	if (!i)
		metric_head(out, METRIC_PEER_CAUSES, "counter",
			    "Packets from the peer dropped, by cause (the "
			    "taps' drop counters)");
	if (!e)
		return;
	port_peer_sum(port, e, &sum);
	report_addr(&e->addr, addr, sizeof(addr));
	for (j = 0; j < PEER_DROPS; j++) {
		d = report_drop_desc(PEER_DROP_FIRST + j);
		if (!sum.drop[j] || !d)
			continue;
		metric_dev(out, METRIC_PEER_CAUSES, port->dev[0]);
		fprintf(out, ",peer=\"%s\",cause=\"%s\"} %" PRIu64 "\n", addr,
			d->name, sum.drop[j]);
	}
}

/* The gauges of the process and of each tap. */
static void report_metrics_head(FILE *out, const struct port *port)
{
	unsigned int i;

	metric_head(out, "uptime_seconds", "gauge",
		    "Seconds since gsotun started");
	fprintf(out, "gsotun_uptime_seconds %.3f\n", report_uptime(port));
	metric_head(out, "peers", "gauge", "Peers of the tunnel");
	fprintf(out, "gsotun_peers %u\n", port->peers.n);
	metric_head(out, "tap_mtu", "gauge", "MTU of the tap");
	for (i = 0; i < port->n_dev; i++) {
		metric_dev(out, "tap_mtu", port->dev[i]);
		fprintf(out, "} %u\n", device_mtu(port->dev[i]));
	}
	metric_head(out, "fdb_entries", "gauge", "Forwarding table entries");
	for (i = 0; i < port->n_dev; i++) {
		const struct fdb *f = &port->dev[i]->s.fdb;

		metric_dev(out, "fdb_entries", port->dev[i]);
		fprintf(out, ",type=\"learnt\"} %u\n", fdb_count_learnt(f));
		metric_dev(out, "fdb_entries", port->dev[i]);
		fprintf(out, ",type=\"static\"} %u\n",
			fdb_count_static(f) - fdb_count_evpn(f));
		metric_dev(out, "fdb_entries", port->dev[i]);
		fprintf(out, ",type=\"evpn\"} %u\n", fdb_count_evpn(f));
	}
}

/* A counter of the taps: its family, a sample per tap. */
static void report_metrics_counter(FILE *out, const struct port *port,
				   const struct stats_desc *d)
{
	char name[64];
	unsigned int i;

	snprintf(name, sizeof(name), "%s_total", d->name);
	metric_head(out, name, "counter", d->help);
	for (i = 0; i < port->n_dev; i++) {
		metric_dev(out, name, port->dev[i]);
		fprintf(out, "} %" PRIu64 "\n",
			device_stat(port->dev[i], d));
	}
}

/*
 * Part 0: the gauges; 1: counter i of the taps; 2 + f: the peers'
 * family f, peer i; after the last family, their drops by cause.
 */
static bool report_metrics_step(FILE *out, const struct port *port,
				struct report_cursor *c)
{
	const struct peer *e;

	switch (c->part) {
	case 0:
		report_metrics_head(out, port);
		report_next_part(c);
		return true;
	case 1:
		if (c->i < stats_n) {
			report_metrics_counter(out, port, &stats_desc[c->i++]);
			return true;
		}
		report_next_part(c);
		/* fall through */
	default:
		if (c->part - 2 > METRIC_PEER_FAMILIES)
			return false;
		e = report_peer(port, c->i);
		if (c->part - 2 == METRIC_PEER_FAMILIES)
			metric_peer_causes(out, port, c->i++, e);
		else
			metric_peer(out, port, c->part - 2, c->i++, e);
		if (!e)
			report_next_part(c);
		return true;
	}
}

/*
 * The next entry of the tables c is about, and its device; false after
 * the last. pos is fdb_next()'s cursor, kept from one piece to
 * the next while the loop learns, ages and deletes entries in between:
 * the table is one array of slots that fdb_next() walks by index (it
 * looks at the table's size on every call), and entries move only back
 * into a gap that a removal closes. So a walk resumed after a change
 * may miss an entry that moved back past it, or see again one that
 * wrapped around, as a netlink dump may; it never reads out of the table
 * and ends after the last slot. Each entry's peer is live at that call:
 * a peer goes only after its entries (port_peer_del()).
 */
static bool report_fdb_next(const struct port *port,
			    struct report_cursor *c, const struct device **dev,
			    struct fdb_entry *e)
{
	for (; (*dev = report_device(port, c, c->i)); c->i++, c->pos = 0)
		if (fdb_next(&(*dev)->s.fdb, &c->pos, clock_now_ns(), e))
			return true;
	return false;
}

/* An entry a line. */
static bool report_fdb_step(FILE *out, const struct port *port,
			    struct report_cursor *c)
{
	char addr[INET6_ADDRSTRLEN], mac[MAC_TEXT_LEN];
	const struct device *dev;
	struct fdb_entry e;

	if (!report_fdb_next(port, c, &dev, &e))
		return false;
	report_addr(&port->peers.v[e.peer].addr, addr, sizeof(addr));
	fputs(mac_ntoa(e.mac, mac), out);
	if (e.vlan)
		fprintf(out, " vlan %u", e.vlan);
	fprintf(out, " dst %s dev %s", addr, dev->s.ifname);
	if (e.evpn)
		fputs(" static evpn\n", out);
	else if (e.is_static)
		fputs(" static\n", out);
	else
		fprintf(out, " age %.1f s\n", (double)e.age_ns / 1e9);
	return true;
}

static void report_json_fdb_entry(FILE *out, const struct port *port,
				  const struct device *dev,
				  const struct fdb_entry *e)
{
	char addr[INET6_ADDRSTRLEN], mac[MAC_TEXT_LEN];

	report_addr(&port->peers.v[e->peer].addr, addr, sizeof(addr));
	fprintf(out, "{\"mac\":\"%s\",\"vlan\":", mac_ntoa(e->mac, mac));
	if (e->vlan)
		fprintf(out, "%u", e->vlan);
	else
		fputs("null", out);
	fprintf(out, ",\"dst\":\"%s\",\"dev\":", addr);
	json_str(out, dev->s.ifname);
	fprintf(out, ",\"source\":\"%s\"",
		e->evpn ? "evpn" : e->is_static ? "static" : "learnt");
	if (e->is_static)
		fputs(",\"static\":true,\"age_seconds\":null}", out);
	else
		fprintf(out, ",\"static\":false,\"age_seconds\":%.3f}",
			(double)e->age_ns / 1e9);
}

/* Part 0: the start; 1: an entry a step; 2: the end. */
static bool report_fdb_json_step(FILE *out, const struct port *port,
				 struct report_cursor *c)
{
	const struct device *dev;
	struct fdb_entry e;

	switch (c->part) {
	case 0:
		fputs("{\"fdb\":[", out);
		report_next_part(c);
		return true;
	case 1:
		if (report_fdb_next(port, c, &dev, &e)) {
			fputs(c->n++ ? "," : "", out);
			report_json_fdb_entry(out, port, dev, &e);
			return true;
		}
		fputs("]}\n", out);
		report_next_part(c);
		return true;
	}
	return false;
}

/*
 * The next route of the tuns c is about, and its device; false after the
 * last. pos is route_next()'s cursor, kept from one piece to the next as
 * report_fdb_next() keeps fdb_next()'s: the table is one array of slots
 * walked by index, of a size fixed at route_init(), so a walk resumed
 * after a change never reads out of it and ends; a route added or gone
 * in between may be missed or said twice (a deletion moves the slots
 * after it back, as a removal in the fdb does). Each route's peer is live
 * at that call: a peer's routes go before it (fwd_forget_peer()).
 */
static bool report_route_next(const struct port *port,
			      struct report_cursor *c,
			      const struct device **dev, struct cidr *p,
			      unsigned int *peer)
{
	for (; (*dev = report_device(port, c, c->i)); c->i++, c->pos = 0)
		if ((*dev)->s.encap.l3 &&
		    route_next(&(*dev)->s.routes, &c->pos, p, peer))
			return true;
	return false;
}

/* A route a line: "10.0.0.0/8 dst 198.18.0.2 dev gt0". */
static bool report_routes_step(FILE *out, const struct port *port,
			       struct report_cursor *c)
{
	char addr[INET6_ADDRSTRLEN], prefix[OPTVALUE_CIDR_TEXT_LEN];
	const struct device *dev;
	unsigned int peer;
	struct cidr p;

	if (!report_route_next(port, c, &dev, &p, &peer))
		return false;
	report_addr(&port->peers.v[peer].addr, addr, sizeof(addr));
	fprintf(out, "%s dst %s dev %s\n", optvalue_cidr_text(&p, prefix),
		addr, dev->s.ifname);
	return true;
}

/* Part 0: the start; 1: a route a step; 2: the end. */
static bool report_routes_json_step(FILE *out, const struct port *port,
				    struct report_cursor *c)
{
	char addr[INET6_ADDRSTRLEN], prefix[OPTVALUE_CIDR_TEXT_LEN];
	const struct device *dev;
	unsigned int peer;
	struct cidr p;

	switch (c->part) {
	case 0:
		fputs("{\"routes\":[", out);
		report_next_part(c);
		return true;
	case 1:
		if (!report_route_next(port, c, &dev, &p, &peer)) {
			fputs("]}\n", out);
			report_next_part(c);
			return true;
		}
		report_addr(&port->peers.v[peer].addr, addr, sizeof(addr));
		fprintf(out, "%s{\"prefix\":\"%s\",\"dst\":\"%s\",\"dev\":",
			c->n++ ? "," : "", optvalue_cidr_text(&p, prefix),
			addr);
		json_str(out, dev->s.ifname);
		fputs("}", out);
		return true;
	}
	return false;
}

/* A tap's name a line, the main one first. */
static bool report_taps_step(FILE *out, const struct port *port,
			     struct report_cursor *c)
{
	const struct device *dev = report_device(port, c, c->i++);

	if (dev)
		fprintf(out, "%s\n", dev->s.ifname);
	return dev != NULL;
}

/* Seconds since then as a field of a line, or "never". */
static void report_peers_ago(FILE *out, uint64_t then)
{
	if (then)
		fprintf(out, "%.1f", report_ago(clock_now_ns(), then));
	else
		fputs("never", out);
}

/* A peer a line: its address, then what show says of its path. */
static bool report_peers_step(FILE *out, const struct port *port,
			      struct report_cursor *c)
{
	const struct peer *e = report_peer(port, c->i++);
	char addr[INET6_ADDRSTRLEN];
	struct peer_sum sum;

	if (!e)
		return false;
	report_addr(&e->addr, addr, sizeof(addr));
	fprintf(out, "%s route %s path_mtu %u rx_last ", addr,
		report_reach_word(e), e->path_mtu);
	port_peer_sum(port, e, &sum);
	report_peers_ago(out, sum.rx_last_ns);
	fputs(" rx_accepted ", out);
	report_peers_ago(out, sum.rx_ok_ns);
	fputs(e->evpn ? " evpn\n" : "\n", out);
	return true;
}

/* Part 0: the start; 1: a peer a step; 2: the end. */
static bool report_peers_json_step(FILE *out, const struct port *port,
				   struct report_cursor *c)
{
	switch (c->part) {
	case 0:
		fputs("{\"peers\":[", out);
		report_next_part(c);
		return true;
	case 1:
		report_json_peers_step(out, port, c);
		return true;
	}
	return false;
}

/* Static entries a piece of the configuration looks at: a line each. */
#define REPORT_CONFIG_BATCH 48

/* Is a one of the peers --peers gave (the file says them)? */
static bool report_peer_of_file(const struct config *cfg,
				const struct ipaddr *a)
{
	unsigned int i;

	for (i = cfg->n_remotes_cmd; i < cfg->n_remotes; i++)
		if (optvalue_ip_equal(&cfg->remotes[i], a))
			return true;
	return false;
}

/* The live peers as "remote" lines, but those of --peers. */
static bool report_config_peer(FILE *out, const struct port *port,
			       struct report_cursor *c)
{
	const struct config *cfg = port->cfg;
	const struct peer *e;

	while ((e = report_peer(port, c->pos++))) {
		if (report_peer_of_file(cfg, &e->addr) || e->evpn_only)
			continue;
		conffile_put_remote(out, &e->addr);
		return true;
	}
	return false;
}

/* Does the config say a live peer as a "remote" line? */
static bool report_config_has_peer(const struct port *port)
{
	const struct peer *e;
	unsigned int i = 0;

	while ((e = report_peer(port, i++)))
		if (!report_peer_of_file(port->cfg, &e->addr) &&
		    !e->evpn_only)
			return true;
	return false;
}

/*
 * --local as given; without, and with no "remote" line to say the
 * underlay's family (every peer gone), the unspecified address of it,
 * which binds any as before: the config read back starts as this runs.
 */
static bool report_config_local(FILE *out, const struct port *port,
				struct report_cursor *c)
{
	const struct config *cfg = port->cfg;
	struct ipaddr any = { .family = cfg->family };

	if (cfg->local.family || report_config_has_peer(port))
		return conffile_put(out, cfg, OPT_LOCAL, c->pos++);
	if (c->pos++)
		return false;
	conffile_put_local(out, &any);
	return true;
}

/* What --peers says of a static entry: */
enum report_file_fdb {
	REPORT_FILE_EVERY = 1,	/* it, for every tap (no DEV=) */
	REPORT_FILE_TAP = 2,	/* it, for the tap asked about (DEV=) */
	REPORT_FILE_ONE = 4,	/* it, for some one tap */
};

/* What --peers says of static entry e, to the peer at a, of tap. */
static unsigned int report_fdb_of_file(const struct config *cfg,
				       const struct fdb_entry *e,
				       const struct ipaddr *a, const char *tap)
{
	unsigned int i, said = 0;

	for (i = cfg->n_fdb_cmd; i < cfg->n_fdb; i++) {
		const struct config_fdb *f = &cfg->fdb[i];

		if (memcmp(f->mac, e->mac, ETH_ALEN) || f->vlan != e->vlan ||
		    !optvalue_ip_equal(&f->peer, a))
			continue;
		if (!f->dev[0])
			said |= REPORT_FILE_EVERY;
		else
			said |= REPORT_FILE_ONE |
				(!strcmp(f->dev, tap) ? REPORT_FILE_TAP : 0);
	}
	return said;
}

/* Does every tap hold e, to its peer, as a static entry? */
static bool report_fdb_in_every_tap(const struct port *port,
				    const struct fdb_entry *e)
{
	unsigned int i;

	for (i = 0; i < port->n_dev; i++)
		if (fdb_lookup_static(&port->dev[i]->s.fdb, e->mac,
				      e->vlan) != (int)e->peer)
			return false;
	return true;
}

/*
 * The static entries of tap c->pos, a batch at a time in the order of
 * their keys (the same in every gsotun that holds them): one that every
 * tap holds as "fdb ENTRY" with the first tap's, as --fdb without DEV=
 * makes them, the others as "fdb DEV=ENTRY"; those of --peers left to
 * the file. false past the last tap.
 */
static bool report_config_fdb(FILE *out, const struct port *port,
			      struct report_cursor *c)
{
	const struct config *cfg = port->cfg;
	struct fdb_entry e[REPORT_CONFIG_BATCH];
	const struct device *dev;
	const struct ipaddr *a;
	unsigned int n, i, file;
	bool every;

	for (; c->pos < port->n_dev; c->pos++, c->after = 0) {
		dev = port->dev[c->pos];
		n = fdb_next_static(&dev->s.fdb, &c->after, e,
				    REPORT_CONFIG_BATCH);
		if (!n)
			continue;
		for (i = 0; i < n; i++) {
			/* The fabric's: it says them again (evpn.c). */
			if (e[i].evpn)
				continue;
			a = &port->peers.v[e[i].peer].addr;
			file = report_fdb_of_file(cfg, &e[i], a, dev->s.ifname);
			/* One line for all taps, unless the file has some. */
			every = !(file & REPORT_FILE_ONE) &&
				report_fdb_in_every_tap(port, &e[i]);
			if ((every && c->pos) || (file & REPORT_FILE_EVERY) ||
			    (file & REPORT_FILE_TAP))
				continue;
			conffile_put_fdb(out, every ? NULL : dev->s.ifname,
					 e[i].mac, e[i].vlan, a);
		}
		return true;
	}
	return false;
}

/*
 * The order config says a tun's routes in, the same in every gsotun
 * that holds them (the table's is its hash's): family, address, length.
 */
static int report_route_cmp(const struct cidr *a, const struct cidr *b)
{
	int r;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	r = memcmp(&a->addr, &b->addr, a->family == AF_INET ? 4 : 16);
	if (r)
		return r;
	return (int)a->prefix - (int)b->prefix;
}

/*
 * The first route of t after c->last (the first of all without one) in
 * report_route_cmp()'s order: a walk of the table for each, the table
 * being small (CONFIG_MAX_ROUTES) and config rare.
 */
static bool report_route_after(const struct route_table *t,
			       const struct report_cursor *c, struct cidr *p,
			       unsigned int *peer)
{
	unsigned int cursor = 0, pr;
	bool found = false;
	struct cidr q;

	while (route_next(t, &cursor, &q, &pr)) {
		if (c->has_last && report_route_cmp(&q, &c->last) <= 0)
			continue;
		if (found && report_route_cmp(&q, p) >= 0)
			continue;
		*p = q;
		*peer = pr;
		found = true;
	}
	return found;
}

/* Is route p to a one of --peers, of every tun or of tun's? */
static bool report_route_of_file(const struct config *cfg,
				 const struct cidr *p, const struct ipaddr *a,
				 const char *tun)
{
	unsigned int i;

	for (i = cfg->n_routes_cmd; i < cfg->n_routes; i++) {
		const struct config_route *r = &cfg->routes[i];

		if (!report_route_cmp(&r->prefix, p) &&
		    optvalue_ip_equal(&r->peer, a) &&
		    (!r->dev[0] || !strcmp(r->dev, tun)))
			return true;
	}
	return false;
}

/* Does every tun route p to peer? */
static bool report_route_in_every_tun(const struct port *port,
				      const struct cidr *p, unsigned int peer)
{
	unsigned int i;

	for (i = 0; i < port->n_dev; i++)
		if (route_get(&port->dev[i]->s.routes, p) != (int)peer)
			return false;
	return true;
}

/*
 * The routes of tun c->pos as they are now, those of route add and del
 * too, a route a step: one every tun holds to one peer as "route
 * PREFIX=ADDR" with the first tun's, as --route without DEV= makes them,
 * the others as "route DEV=PREFIX=ADDR"; those of --peers left to the
 * file. false past the last tun.
 */
static bool report_config_route(FILE *out, const struct port *port,
				struct report_cursor *c)
{
	const struct device *dev;
	const struct ipaddr *a;
	unsigned int peer;
	struct cidr p;
	bool every;

	for (; c->pos < port->n_dev; c->pos++, c->has_last = false) {
		dev = port->dev[c->pos];
		while (dev->s.encap.l3 &&
		       report_route_after(&dev->s.routes, c, &p, &peer)) {
			c->last = p;
			c->has_last = true;
			a = &port->peers.v[peer].addr;
			if (report_route_of_file(port->cfg, &p, a,
						 dev->s.ifname))
				continue;
			every = report_route_in_every_tun(port, &p, peer);
			if (every && c->pos)
				continue;
			conffile_put_route(out, every ? NULL : dev->s.ifname,
					   &p, a);
			return true;
		}
	}
	return false;
}

/*
 * Part 0: the head; 1: row i of the argp table, its item pos: what the
 * config says, but the peers, static entries and routes as they are now.
 */
static bool report_config_step(FILE *out, const struct port *port,
			       struct report_cursor *c)
{
	const struct config *cfg = port->cfg;
	int key;

	if (c->part == 0) {
		conffile_head(out);
		report_next_part(c);
		return true;
	}
	for (; (key = conffile_row(c->i)); c->i++, c->pos = 0, c->after = 0) {
		if (key < 0)
			continue;
		if (key == OPT_REMOTE  ? report_config_peer(out, port, c)
		    : key == OPT_LOCAL ? report_config_local(out, port, c)
		    : key == OPT_FDB   ? report_config_fdb(out, port, c)
		    : key == OPT_ROUTE ? report_config_route(out, port, c)
				       : conffile_put(out, cfg, key, c->pos++))
			return true;
	}
	return false;
}

bool report_step(FILE *out, const struct port *port, struct report_cursor *c)
{
	switch (c->kind) {
	case REPORT_DUMP:
		return report_dump_step(out, port, c);
	case REPORT_SHOW:
		return report_show_step(out, port, c);
	case REPORT_JSON:
		return report_json_step(out, port, c);
	case REPORT_METRICS:
		return report_metrics_step(out, port, c);
	case REPORT_FDB:
		return report_fdb_step(out, port, c);
	case REPORT_TAPS:
		return report_taps_step(out, port, c);
	case REPORT_PEERS:
		return report_peers_step(out, port, c);
	case REPORT_PEERS_JSON:
		return report_peers_json_step(out, port, c);
	case REPORT_FDB_JSON:
		return report_fdb_json_step(out, port, c);
	case REPORT_CONFIG:
		return report_config_step(out, port, c);
	case REPORT_ROUTES:
		return report_routes_step(out, port, c);
	case REPORT_ROUTES_JSON:
		return report_routes_json_step(out, port, c);
	}
	return false;
}

void report_write(FILE *out, const struct port *port, enum report_kind kind)
{
	struct report_cursor c;

	report_start(&c, kind);
	while (report_step(out, port, &c))
		;
}

bool report_reads_lanes(enum report_kind kind)
{
	return kind != REPORT_FDB && kind != REPORT_FDB_JSON &&
	       kind != REPORT_TAPS && kind != REPORT_CONFIG &&
	       kind != REPORT_ROUTES && kind != REPORT_ROUTES_JSON;
}
