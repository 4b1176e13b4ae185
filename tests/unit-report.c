// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the reports (report.c): every kind, of a port of two
 * devices (VNI 1 and 2) and three peers built without a tap, its
 * counters set by hand; the JSON read back by Python's json module.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "data/lane.h"
#include "data/rx.h"
#include "ops/report.h"
#include "rig.h"
#include "tap.h"

#define SEC 1000000000ull

/*
 * The clocks report.c reads (clock_now_ns(): CLOCK_MONOTONIC_COARSE; and
 * CLOCK_REALTIME, which the metrics' times are given in), held still
 * from the start: ages, uptime and "last N s ago" are then exact, and
 * two reports made apart say the same. Other clocks are the kernel's.
 */
static uint64_t frozen_ns;
/* The Unix time held: 2026-12-05 00:00:00 UTC. */
#define UNIX_NOW 1796428800ull

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (frozen_ns && id == CLOCK_MONOTONIC_COARSE) {
		ts->tv_sec = (time_t)(frozen_ns / SEC);
		ts->tv_nsec = (long)(frozen_ns % SEC);
		return 0;
	}
	if (frozen_ns && id == CLOCK_REALTIME) {
		ts->tv_sec = (time_t)UNIX_NOW;
		ts->tv_nsec = 0;
		return 0;
	}
	return (int)syscall(SYS_clock_gettime, id, ts);
}

#define NOW frozen_ns

static const char *const port_argv[] = {
	"gsotun", "--dev", "ut-r0", "--vni", "1", "--vni", "2=ut-r1",
	"--local", "198.18.0.1",
	"--remote", "198.18.0.2", "--remote", "198.18.0.3",
	"--remote", "198.18.0.4",
	"--mtu", "1400", "--learning",
	"--mac", "02:aa:00:00:00:01", "--mac", "ut-r1=02:aa:00:00:00:02",
	"--fdb", "02:00:00:00:00:01=198.18.0.2",
	"--fdb", "ut-r1=02:00:00:00:00:02@7=198.18.0.3",
	NULL,
};

/* Two tuns, a route of both, one of each, IPv4 and IPv6 inside. */
static const char *const tun_argv[] = {
	"gsotun", "--dev", "ut-t0", "--mode", "tun", "--encap", "gre-udp",
	"--key", "1", "--key", "2=ut-t1", "--local", "198.18.0.1",
	"--remote", "198.18.0.2", "--remote", "198.18.0.3",
	"--route", "10.1.0.0/16=198.18.0.2",
	"--route", "ut-t0=0.0.0.0/0=198.18.0.3",
	"--route", "ut-t1=fd00:1::/64=198.18.0.3", NULL,
};

static char tmpdir[] = "/tmp/unit-report.XXXXXX";
/* The system's, where it is: quicker to start than a pyenv shim. */
static const char *python;

static bool has(const char *text, const char *needle, const char *what)
{
	unsigned int n;

	if (ok(strstr(text, needle) != NULL, "%s", what))
		return true;
	printf("#   no \"%s\" in:\n", needle);
	for (n = 0; *text && n < 40; n++, text += strcspn(text, "\n") + 1)
		printf("#   %.*s\n", (int)strcspn(text, "\n"), text);
	return false;
}

/* How many times needle is in text. */
static unsigned int count(const char *text, const char *needle)
{
	unsigned int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

static int strcmp_ptr(const char *const *a, const char *const *b)
{
	return strcmp(*a, *b);
}

/* The line of text that starts with lead, or NULL (a copy: free it). */
static char *line_of(const char *text, const char *lead)
{
	size_t n = strlen(lead);

	for (; *text; text += strcspn(text, "\n") + (text[strcspn(text,
						     "\n")] != 0))
		if (!strncmp(text, lead, n))
			return strndup(text, strcspn(text, "\n"));
	return NULL;
}

/* Is field ("name=value") one of line's space-separated fields? */
static bool field(const char *line, const char *field)
{
	size_t n = strlen(field);
	const char *p;

	for (p = line; p && (p = strstr(p, field)); p++)
		if ((p == line || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

static void set_ip(struct ipaddr *a, const char *s)
{
	if (optvalue_ip_parse(s, a))
		abort();
}

/*
 * A peer every packet of which was dropped, on two lanes: on lane 0
 * three of another VNI, on lane 1 one with a bad header, and last one
 * of VNI 5 on lane 0. The lanes' times are summed to the latest.
 */
static void fill_refused(struct rig *r, const struct peer *e)
{
	size_t slot = (size_t)(e - r->port.peers.v);
	struct lane_peer *a, *b;

	/* A second lane's counts, as --queues 2 keeps them. */
	if (lane_init(&r->port.lane[1], 1, CONFIG_MAX_PEERS))
		abort();
	r->port.n_lanes = 2;
	a = &r->port.lane[0].peer[slot];
	b = &r->port.lane[1].peer[slot];

	a->st.rx_packets = 3;
	a->st.rx_bytes = 330;
	a->st.rx_drops = 3;
	a->drop[peer_drop_slot(DROP_RX_VNI)] = 3;
	a->rx_last_ns = a->drop_ns = NOW - SEC;
	a->drop_why = DROP_RX_VNI;
	a->drop_has_id = true;
	a->drop_id = 5;
	b->st.rx_packets = 1;
	b->st.rx_bytes = 40;
	b->st.rx_drops = 1;
	b->drop[peer_drop_slot(DROP_RX_SHORT)] = 1;
	b->rx_last_ns = b->drop_ns = NOW - 2 * SEC;
	b->drop_why = DROP_RX_SHORT;
}

/* The counters, peers and tables the checks below look for. */
static void fill(struct rig *r)
{
	struct device *d0 = &r->dev[0], *d1 = &r->dev[1];
	struct queue *q0 = &d0->q[0], *q1 = &d1->q[0];
	struct peer *p0 = &r->port.peers.v[rig_peer(r, "198.18.0.2")];
	struct peer *p1 = &r->port.peers.v[rig_peer(r, "198.18.0.3")];
	struct peer *p2 = &r->port.peers.v[rig_peer(r, "198.18.0.4")];
	struct lane_peer *lp0 = &r->port.lane[0].peer[p0 - r->port.peers.v];
	static const uint8_t l1[] = { 0x0a, 0, 0, 0, 0, 1 };
	static const uint8_t l2[] = { 0x0a, 0, 0, 0, 0, 2 };
	int before;

	r->port.start_ns = NOW - 3723 * SEC;
	/* The device's own and its queue's: the report says their sum. */
	d0->st.rx_learnt = 5;
	q0->st.rx_learnt = 7;
	q0->st.tx_frames = 1000;
	q0->st.tx_bytes = 1536000;
	q0->st.tx_segments = 1200;
	q0->st.rx_segments = 40;
	q0->st.rx_frames = 30;
	q0->st.rx_frame_bytes = 900;
	/* Later in the queue for one drop, in the device for the other. */
	stats_drop(&d0->st, DROP_RX_VNI, 2, NOW - 5 * SEC);
	stats_drop(&q0->st, DROP_RX_VNI, 3, NOW - 2 * SEC);
	stats_drop(&d0->st, DROP_RX_SOURCE, 1, NOW - 1 * SEC);
	stats_drop(&q0->st, DROP_RX_SOURCE, 3, NOW - 4 * SEC);
	set_ip(&q0->rx.seen[RX_WARN_ID].from, "198.18.0.9");
	q0->rx.seen[RX_WARN_ID].id = 7;
	q0->rx.seen[RX_WARN_ID].has_id = true;
	set_ip(&q0->rx.seen[RX_WARN_SOURCE].from, "198.18.0.66");
	q1->st.rx_learnt = 1;
	stats_drop(&q1->st, DROP_RX_FLAGS, 6, NOW - 3 * SEC);
	stats_drop(&d1->st, DROP_TX_TOO_BIG, 9, NOW - 10 * SEC);

	/*
	 * A peer's: its lane's, and the device's own (icmp_unreach). The
	 * first's ICMP error is older than what it sent since.
	 */
	lp0->st.tx_packets = 7;
	lp0->st.tx_bytes = 700;
	lp0->st.rx_packets = 3;
	lp0->st.rx_bytes = 300;
	lp0->rx_last_ns = NOW - SEC / 2;
	lp0->rx_ok_ns = NOW - SEC / 2;
	p0->icmp_ns = NOW - 4 * SEC;
	p0->icmp = (struct peer_icmp){ .origin = SO_EE_ORIGIN_ICMP, .type = 3,
				       .code = 3, .err = ECONNREFUSED };
	p0->st.icmp_unreach = 1;
	p1->icmp_ns = NOW - 3 * SEC;
	p1->icmp = p0->icmp;
	p1->st.icmp_unreach = 2;
	fill_refused(r, p1);
	p2->path_mtu = 1500;
	p2->reach = PEER_REACH_NO_ROUTE;
	/* A host unreachable that this host said: no neighbour answers. */
	p2->icmp_ns = NOW - 1 * SEC;
	p2->icmp = (struct peer_icmp){ .origin = SO_EE_ORIGIN_ICMP, .type = 3,
				       .code = 1, .err = EHOSTUNREACH,
				       .own = true };
	set_ip(&p2->icmp.from, "198.18.0.1");
	p2->st.icmp_unreach = 3;

	fdb_learn(&d0->s.fdb, l1, 0, (unsigned int)rig_peer(r, "198.18.0.3"),
		  NOW - 3 * SEC, &before);
	fdb_learn(&d0->s.fdb, l2, 5, (unsigned int)rig_peer(r, "198.18.0.4"),
		  NOW - 3 * SEC / 2, &before);
}

static void test_stats(const struct rig *r)
{
	const struct device *d0 = &r->dev[0];
	struct stats s;

	device_stats(d0, &s);
	is_int(s.rx_learnt, 12, "device_stats: the device's 5 and its "
	       "queue's 7 learnt");
	is_int(s.drop[DROP_RX_VNI], 5, "device_stats: drops summed");
	ok(s.drop_ns[DROP_RX_VNI] == NOW - 2 * SEC &&
		   s.drop_ns[DROP_RX_SOURCE] == NOW - 1 * SEC,
	   "device_stats: a drop's time is the later of the two");
	is_int(device_stat(d0, &stats_desc[0]), 1000,
	       "device_stat: tx_frames of the device and its queue");
}

static void test_dump(const struct rig *r)
{
	char *t = rig_report(r, REPORT_DUMP);
	char *l0 = line_of(t, "tunnel ut-r0 ");
	char *l1 = line_of(t, "tunnel ut-r1 ");

	has(t, "peer 198.18.0.2 path_mtu=0 peer_tx_packets=7 "
	    "peer_tx_bytes=700 peer_tx_flood=0 peer_tx_drops=0 "
	    "peer_rx_packets=3 peer_rx_bytes=300 peer_rx_drops=0 "
	    "peer_icmp_unreach=1\n",
	    "dump: a peer's line with its counters");
	has(t, "peer 198.18.0.3 path_mtu=0 peer_tx_packets=0 "
	    "peer_tx_bytes=0 peer_tx_flood=0 peer_tx_drops=0 "
	    "peer_rx_packets=4 peer_rx_bytes=370 peer_rx_drops=4 "
	    "peer_icmp_unreach=2\n",
	    "dump: a peer's drops, its two lanes' summed");
	ok(!strncmp(t, "peer 198.18.0.2 ", 16) && count(t, "\npeer ") == 2 &&
		   count(t, "\n") == 5 && l0 && l1 &&
		   strstr(t, "tunnel ut-r1 ") < strstr(t, "tunnel ut-r0 "),
	   "dump: three peer lines first, then the taps, the main one last");
	ok(l0 && field(l0, "rx_learnt=12") && field(l0, "rx_drop_vni=5") &&
		   field(l0, "rx_drop_source=4") && field(l0, "tx_frames=1000"),
	   "dump: the main tap's counters are its own plus its queue's");
	ok(l1 && field(l1, "rx_learnt=1") && field(l1, "rx_drop_flags=6") &&
		   field(l1, "tx_drop_too_big=9") && field(l1, "tx_frames=0"),
	   "dump: the second tap's counters are its own");
	free(l0);
	free(l1);
	free(t);
}

static void test_show(const struct rig *r)
{
	char *t = rig_report(r, REPORT_SHOW), head[128], seen[80];
	struct report_cursor c;
	char *one = NULL;
	size_t len = 0;
	FILE *out;

	snprintf(head, sizeof(head), "gsotun %s, pid %ld, up 0d 01:02:03\n"
		 "underlay: IPv4, local 198.18.0.1, port 4789, 3 peers\n",
		 PACKAGE_VERSION, (long)getpid());
	ok(!strncmp(t, head, strlen(head)), "show: the process and underlay");
	has(t, "tunnel ut-r0: vxlan VNI 1\n"
	    "  tap: mac 02:aa:00:00:00:01, mtu 1400, offloads none\n"
	    "  forwarding: 2 learnt, 1 static\n"
	    "  sent: 1000 frames (1.46 MiB) in 1200 packets\n"
	    "  received: 40 packets, 30 frames (900 B)\n",
	    "show: the main tap's VNI, MAC, MTU, table and traffic");
	has(t, "tunnel ut-r1: vxlan VNI 2\n"
	    "  tap: mac 02:aa:00:00:00:02, mtu 1400, offloads none\n"
	    "  forwarding: 0 learnt, 2 static\n",
	    "show: the second tap's VNI, MAC, MTU, table");
	ok(rx_seen_text(&r->dev[0].q[0], DROP_RX_VNI, seen, sizeof(seen)) &&
		   !strcmp(seen, "VNI 7 from 198.18.0.9"),
	   "rx_seen_text: the VNI and sender of the last wrong VNI");
	has(t, "  drops:    4 not from a peer or --allow source "
	    "(rx_drop_source), from 198.18.0.66, last 1.0 s ago\n"
	    "            5 wrong VNI (rx_drop_vni), VNI 7 from 198.18.0.9, "
	    "last 2.0 s ago\n",
	    "show: drops summed, with what they came with, the later time");
	has(t, "  drops:    9 too big for the path (tx_drop_too_big), last "
	    "10.0 s ago\n"
	    "            6 VXLAN flags or reserved bits (rx_drop_flags), "
	    "last 3.0 s ago\npeer ",
	    "show: drops without a sender seen say none");
	has(t, "peer 198.18.0.2\n  route: ok, path mtu: unknown\n"
	    "  sent: 7 packets (700 B), 0 refused\n"
	    "  received: 3 packets (300 B), last 0.5 s ago, last accepted "
	    "0.5 s ago\n",
	    "show: a peer's route, traffic and when it was heard from");
	has(t, "0.5 s ago\n  underlay: past ICMP port unreachable, 4.0 s ago "
	    "(1 in all); it has sent since\npeer 198.18.0.3\n",
	    "show: an ICMP error older than what the peer sent is past, "
	    "without the causes");
	has(t, "peer 198.18.0.3\n  route: ok, path mtu: unknown\n"
	    "  sent: 0 packets (0 B), 0 refused\n"
	    "  received: 4 packets (370 B), last 1.0 s ago, last accepted "
	    "never\n"
	    "  dropped: 4 of them, every one: 3 wrong VNI (rx_drop_vni), 1 "
	    "truncated encapsulation header (rx_drop_short); the last 1.0 s "
	    "ago, VNI 5 (no tap has it)\n",
	    "show: a peer all of whose packets are dropped: by cause, the "
	    "commonest first, the last one's VNI");
	has(t, "\n  underlay: ICMP port unreachable: nothing takes UDP port "
	    "4789 there: is its tunnel up",
	    "show: the ICMP error by its cause, the peer heard since all "
	    "dropped");
	has(t, ", 3.0 s ago (2 in all; it has sent since, all dropped)\n"
	    "peer 198.18.0.4\n  route: no route, path mtu: 1500\n",
	    "show: what ICMP said of a peer; a peer without a route");
	has(t, "\n  underlay: ICMP host unreachable, said by this host: no "
	    "answer to ARP from it",
	    "show: a host unreachable from this host: no neighbour");
	ok(!strstr(t, "a router on the way"),
	   "show: a neighbour that does not answer is no router's word");

	out = open_memstream(&one, &len);
	report_start(&c, REPORT_SHOW);
	report_only(&c, 1);
	while (report_step(out, &r->port, &c))
		;
	fclose(out);
	ok(strstr(one, "tunnel ut-r1: vxlan VNI 2\n") &&
		   !strstr(one, "ut-r0") && !strstr(one, "VNI 1") &&
		   count(one, "\npeer ") == 3 && count(one, "\ntunnel ") == 1,
	   "show of the second tap only: it, and every peer");
	free(one);
	free(t);
}

/*
 * The JSON text, read by Python's json module, and each of the Python
 * expressions want true of it (as d); what is not is said.
 */
static const char json_script[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"bad = 0\n"
	"for e in sys.argv[2:]:\n"
	"    try:\n"
	"        r = eval(e, {'d': d})\n"
	"    except Exception as x:\n"
	"        r = False\n"
	"    if not r:\n"
	"        print('#   not so:', e)\n"
	"        bad += 1\n"
	"sys.exit(1 if bad else 0)\n";

static bool json_run(const char *text, const char *const *want)
{
	const char *argv[64] = { python, "-c", json_script };
	char path[sizeof(tmpdir) + 16];
	unsigned int n = 4, i;
	int status;
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return false;
	argv[3] = path;
	for (i = 0; want[i] && n < 63; i++)
		argv[n++] = want[i];
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execvp(python, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void json_check(const char *text, const char *const *want,
		       const char *what)
{
	if (!python) {
		ok(1, "%s # SKIP no python3", what);
		return;
	}
	if (!ok(json_run(text, want), "%s", what))
		printf("#   the JSON: %.300s...\n", text);
}

/* Every counter's name, as a Python list. */
static char *counter_names(void)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *out = open_memstream(&buf, &len);

	fputc('[', out);
	for (i = 0; i < stats_n; i++)
		fprintf(out, "%s'%s'", i ? "," : "", stats_desc[i].name);
	fputc(']', out);
	fclose(out);
	return buf;
}

static void test_json(const struct rig *r)
{
	char *t = rig_report(r, REPORT_JSON), *names = counter_names();
	char pid[64], all[8192];
	struct report_cursor c;
	char *one = NULL;
	size_t len = 0;
	FILE *out;

	snprintf(pid, sizeof(pid), "d['pid'] == %ld", (long)getpid());
	snprintf(all, sizeof(all), "all(sorted(t['counters']) == "
		 "sorted(%s) for t in d['tunnels'])", names);
	{
		const char *const head[] = {
			"set(d) >= {'version', 'pid', 'uptime', 'encap', "
			"'family', 'port', 'local', 'tunnels', 'peers'}",
			"d['version'] == '" PACKAGE_VERSION "'", pid,
			"d['uptime'] == 3723.0", "d['encap'] == 'vxlan'",
			"d['family'] == 'ipv4'", "d['port'] == 4789",
			"d['local'] == '198.18.0.1'", NULL,
		};
		const char *const tun[] = {
			"[t['dev'] for t in d['tunnels']] == "
			"['ut-r0', 'ut-r1']",
			"[t['vni'] for t in d['tunnels']] == [1, 2]",
			"all(set(t) >= {'dev', 'ifindex', 'mac', 'mtu', "
			"'fdb_learnt', 'fdb_static', 'learning', 'offloads', "
			"'counters'} and 'key' not in t for t in d['tunnels'])",
			"[(t['mac'], t['mtu'], t['ifindex']) for t in "
			"d['tunnels']] == [('02:aa:00:00:00:01', 1400, 100), "
			"('02:aa:00:00:00:02', 1400, 101)]",
			"[(t['fdb_learnt'], t['fdb_static'], t['learning'], "
			"t['offloads']) for t in d['tunnels']] == "
			"[(2, 1, True, []), (0, 2, True, [])]",
			all,
			"d['tunnels'][0]['counters']['rx_learnt'] == 12",
			"d['tunnels'][0]['counters']['rx_drop_vni'] == 5",
			"d['tunnels'][0]['counters']['tx_frames'] == 1000",
			"d['tunnels'][1]['counters']['rx_drop_flags'] == 6",
			"d['tunnels'][1]['counters']['rx_learnt'] == 1",
			NULL,
		};
		const char *const peers[] = {
			"[p['address'] for p in d['peers']] == ['198.18.0.2', "
			"'198.18.0.3', '198.18.0.4']",
			"all(set(p) >= {'address', 'route', 'path_mtu', "
			"'rx_last_seconds', 'icmp_last_seconds', 'icmp_cause', "
			"'counters'} for p in d['peers'])",
			"all(sorted(p['counters']) == sorted(['tx_packets', "
			"'tx_bytes', 'tx_flood', 'tx_drops', 'rx_packets', "
			"'rx_bytes', 'rx_drops', 'icmp_unreach']) for p in "
			"d['peers'])",
			"d['peers'][0]['counters']['tx_packets'] == 7",
			"d['peers'][0]['rx_last_seconds'] == 0.5",
			"d['peers'][0]['rx_accepted_seconds'] == 0.5",
			"(d['peers'][0]['icmp_cause'], "
			"d['peers'][0]['icmp_past']) == ('port', True)",
			"(d['peers'][0]['drops'], d['peers'][0]['drop_last'], "
			"d['peers'][0]['drop_last_seconds'], "
			"d['peers'][0]['drop_last_id']) == ({}, None, None, "
			"None)",
			"d['peers'][1]['rx_last_seconds'] == 1.0",
			"d['peers'][1]['rx_accepted_seconds'] is None",
			"d['peers'][1]['drops'] == {'rx_drop_vni': 3, "
			"'rx_drop_short': 1}",
			"(d['peers'][1]['drop_last'], "
			"d['peers'][1]['drop_last_seconds'], "
			"d['peers'][1]['drop_last_id']) == "
			"('rx_drop_vni', 1.0, 5)",
			"d['peers'][1]['counters']['rx_drops'] == 4",
			"(d['peers'][1]['icmp_cause'], "
			"d['peers'][1]['icmp_type'], "
			"d['peers'][1]['icmp_code'], "
			"d['peers'][1]['icmp_last_seconds'], "
			"d['peers'][1]['icmp_past']) == "
			"('port', 3, 3, 3.0, False)",
			"d['peers'][1]['counters']['icmp_unreach'] == 2",
			"(d['peers'][2]['icmp_cause'], "
			"d['peers'][2]['icmp_code']) == ('neighbour', 1)",
			"(d['peers'][2]['route'], d['peers'][2]['path_mtu'])"
			" == ('no route', 1500)",
			"d['peers'][0]['route'] == 'ok'",
			NULL,
		};

		json_check(t, head, "json: parses; the process's fields");
		json_check(t, tun, "json: each tunnel's fields and counters");
		json_check(t, peers, "json: each peer's fields and counters");
	}

	out = open_memstream(&one, &len);
	report_start(&c, REPORT_JSON);
	report_only(&c, 1);
	while (report_step(out, &r->port, &c))
		;
	fclose(out);
	{
		const char *const want[] = {
			"[t['dev'] for t in d['tunnels']] == ['ut-r1']",
			"d['tunnels'][0]['vni'] == 2", "len(d['peers']) == 3",
			NULL,
		};

		json_check(one, want, "json of the second tap only");
	}
	free(one);
	free(names);
	free(t);
}

/*
 * Every sample's family was announced by HELP and TYPE lines before it;
 * NULL, or the first line that is not.
 */
static char *metrics_unannounced(const char *t)
{
	char *copy = strdup(t), *line, *save = NULL, *bad = NULL;
	char typed[256] = "";

	for (line = strtok_r(copy, "\n", &save); line && !bad;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t n = strcspn(line, "{ ");

		if (!strncmp(line, "# TYPE ", 7)) {
			snprintf(typed, sizeof(typed), "%.*s",
				 (int)strcspn(line + 7, " "), line + 7);
			continue;
		}
		if (line[0] == '#')
			continue;
		if (strlen(typed) != n || strncmp(line, typed, n))
			bad = strdup(line);
	}
	free(copy);
	return bad;
}

static void test_metrics(const struct rig *r)
{
	char *t = rig_report(r, REPORT_METRICS), *bad;

	has(t, "# HELP gsotun_rx_learnt_total Source MACs learnt\n"
	    "# TYPE gsotun_rx_learnt_total counter\n"
	    "gsotun_rx_learnt_total{dev=\"ut-r0\"} 12\n"
	    "gsotun_rx_learnt_total{dev=\"ut-r1\"} 1\n",
	    "metrics: a counter of each tap, its own plus its queue's");
	has(t, "gsotun_rx_drop_vni_total{dev=\"ut-r0\"} 5\n",
	    "metrics: a drop counter summed");
	has(t, "gsotun_uptime_seconds 3723.000\n# HELP gsotun_peers "
	    "Peers of the tunnel\n# TYPE gsotun_peers gauge\n"
	    "gsotun_peers 3\n", "metrics: uptime and peers");
	has(t, "gsotun_tap_mtu{dev=\"ut-r0\"} 1400\n"
	    "gsotun_tap_mtu{dev=\"ut-r1\"} 1400\n", "metrics: the taps' MTU");
	has(t, "gsotun_fdb_entries{dev=\"ut-r0\",type=\"learnt\"} 2\n"
	    "gsotun_fdb_entries{dev=\"ut-r0\",type=\"static\"} 1\n"
	    "gsotun_fdb_entries{dev=\"ut-r0\",type=\"evpn\"} 0\n"
	    "gsotun_fdb_entries{dev=\"ut-r1\",type=\"learnt\"} 0\n"
	    "gsotun_fdb_entries{dev=\"ut-r1\",type=\"static\"} 2\n"
	    "gsotun_fdb_entries{dev=\"ut-r1\",type=\"evpn\"} 0\n",
	    "metrics: the tables' sizes");
	has(t, "gsotun_peer_tx_packets_total{dev=\"ut-r0\","
	    "peer=\"198.18.0.2\"} 7\n", "metrics: a peer's counter");
	has(t, "gsotun_peer_reachable{dev=\"ut-r0\",peer=\"198.18.0.4\"} 0\n",
	    "metrics: a peer without a route is not reachable");
	has(t, "# TYPE gsotun_peer_rx_last_timestamp_seconds gauge\n"
	    "gsotun_peer_rx_last_timestamp_seconds{dev=\"ut-r0\","
	    "peer=\"198.18.0.2\"} 1796428799.500\n"
	    "gsotun_peer_rx_last_timestamp_seconds{dev=\"ut-r0\","
	    "peer=\"198.18.0.3\"} 1796428799.000\n"
	    "gsotun_peer_rx_last_timestamp_seconds{dev=\"ut-r0\","
	    "peer=\"198.18.0.4\"} 0\n",
	    "metrics: when each peer last sent, as Unix time (0: never)");
	has(t, "gsotun_peer_rx_accepted_timestamp_seconds{dev=\"ut-r0\","
	    "peer=\"198.18.0.2\"} 1796428799.500\n"
	    "gsotun_peer_rx_accepted_timestamp_seconds{dev=\"ut-r0\","
	    "peer=\"198.18.0.3\"} 0\n",
	    "metrics: when each last sent a packet not dropped");
	has(t, "gsotun_peer_rx_drops_total{dev=\"ut-r0\","
	    "peer=\"198.18.0.3\"} 4\n",
	    "metrics: a peer's drops");
	has(t, "# TYPE gsotun_peer_rx_drops_by_cause_total counter\n"
	    "gsotun_peer_rx_drops_by_cause_total{dev=\"ut-r0\","
	    "peer=\"198.18.0.3\",cause=\"rx_drop_short\"} 1\n"
	    "gsotun_peer_rx_drops_by_cause_total{dev=\"ut-r0\","
	    "peer=\"198.18.0.3\",cause=\"rx_drop_vni\"} 3\n",
	    "metrics: a peer's drops by cause, those that moved");
	bad = metrics_unannounced(t);
	ok(!bad, "metrics: every sample's family has its HELP and TYPE first");
	if (bad)
		printf("#   %s\n", bad);
	free(bad);
	free(t);
}

static const char *const fdb_lines[] = {
	"02:00:00:00:00:01 dst 198.18.0.2 dev ut-r0 static\n",
	"0a:00:00:00:00:01 dst 198.18.0.3 dev ut-r0 age 3.0 s\n",
	"0a:00:00:00:00:02 vlan 5 dst 198.18.0.4 dev ut-r0 age 1.5 s\n",
	"02:00:00:00:00:01 dst 198.18.0.2 dev ut-r1 static\n",
	"02:00:00:00:00:02 vlan 7 dst 198.18.0.3 dev ut-r1 static\n",
};

static void test_fdb(const struct rig *r)
{
	char *t = rig_report(r, REPORT_FDB), *one = NULL;
	const char *first1;
	struct report_cursor c;
	bool each = true;
	size_t len = 0, i;
	FILE *out;

	for (i = 0; i < sizeof(fdb_lines) / sizeof(*fdb_lines); i++)
		if (count(t, fdb_lines[i]) != 1) {
			printf("#   not once: %s", fdb_lines[i]);
			each = false;
		}
	ok(each && count(t, "\n") == 5, "fdb: each entry once, as bridge "
	   "fdb show says it");
	first1 = strstr(t, " dev ut-r1 ");
	ok(first1 && !strstr(first1, " dev ut-r0 "),
	   "fdb: the main tap's entries first");

	out = open_memstream(&one, &len);
	report_start(&c, REPORT_FDB);
	report_only(&c, 1);
	while (report_step(out, &r->port, &c))
		;
	fclose(out);
	ok(count(one, "\n") == 2 && count(one, " dev ut-r1 ") == 2,
	   "fdb of the second tap only");
	free(one);
	free(t);

	t = rig_report(r, REPORT_FDB_JSON);
	{
		const char *const want[] = {
			"set(d) == {'fdb'} and len(d['fdb']) == 5",
			"all(set(e) == {'mac', 'vlan', 'dst', 'dev', 'source', "
			"'static', 'age_seconds'} for e in d['fdb'])",
			"all(e['source'] == ('static' if e['static'] else "
			"'learnt') for e in d['fdb'])",
			"sorted((e['dev'], e['mac'], e['vlan'], e['dst'], "
			"e['static'], e['age_seconds']) for e in d['fdb']) == "
			"sorted([('ut-r0', '02:00:00:00:00:01', None, "
			"'198.18.0.2', True, None), ('ut-r0', "
			"'0a:00:00:00:00:01', None, '198.18.0.3', False, 3.0), "
			"('ut-r0', '0a:00:00:00:00:02', 5, '198.18.0.4', "
			"False, 1.5), ('ut-r1', '02:00:00:00:00:01', None, "
			"'198.18.0.2', True, None), ('ut-r1', "
			"'02:00:00:00:00:02', 7, '198.18.0.3', True, None)])",
			NULL,
		};

		json_check(t, want, "fdb json: parses, every entry's fields");
	}
	free(t);
}

static void test_lists(const struct rig *r)
{
	char *t = rig_report(r, REPORT_TAPS);

	ok(!strcmp(t, "ut-r0\nut-r1\n"), "taps: a line each, the main first");
	free(t);
	t = rig_report(r, REPORT_PEERS);
	if (!ok(!strcmp(t, "198.18.0.2 route ok path_mtu 0 rx_last 0.5 "
			"rx_accepted 0.5\n"
			"198.18.0.3 route ok path_mtu 0 rx_last 1.0 "
			"rx_accepted never\n"
			"198.18.0.4 route no-route path_mtu 1500 rx_last "
			"never rx_accepted never\n"),
		"peers: a line each, route, path MTU, heard from, accepted"))
		printf("#   %s", t);
	free(t);
	t = rig_report(r, REPORT_PEERS_JSON);
	{
		const char *const want[] = {
			"set(d) == {'peers'}",
			"[(p['address'], p['route'], p['path_mtu'], "
			"p['rx_last_seconds']) for p in d['peers']] == "
			"[('198.18.0.2', 'ok', 0, 0.5), "
			"('198.18.0.3', 'ok', 0, 1.0), "
			"('198.18.0.4', 'no route', 1500, None)]",
			NULL,
		};

		json_check(t, want, "peers json: parses, each peer");
	}
	free(t);
}

static void test_id(const struct rig *r)
{
	struct device d = r->dev[1];
	char id[24];

	report_id(&d, id, sizeof(id));
	ok(!strcmp(id, " VNI 2"), "report_id: a VXLAN tap's VNI");
	d.s.encap.type = ENCAP_GRE;
	d.s.encap.has_key = true;
	d.s.encap.key = 7;
	report_id(&d, id, sizeof(id));
	ok(!strcmp(id, " key 7"), "report_id: a GRE tap's key");
	d.s.encap.has_key = false;
	report_id(&d, id, sizeof(id));
	ok(!strcmp(id, ""), "report_id: a GRE tap without a key: nothing");
}

static const struct {
	enum report_kind kind;
	const char *name;
} kinds[] = {
	{ REPORT_DUMP, "dump" }, { REPORT_SHOW, "show" },
	{ REPORT_JSON, "json" }, { REPORT_METRICS, "metrics" },
	{ REPORT_FDB, "fdb" }, { REPORT_TAPS, "taps" },
	{ REPORT_PEERS, "peers" }, { REPORT_PEERS_JSON, "peers json" },
	{ REPORT_FDB_JSON, "fdb json" }, { REPORT_CONFIG, "config" },
};
#define N_KINDS (sizeof(kinds) / sizeof(*kinds))

/* More steps than any report here takes: one that does not end. */
#define STEPS_MAX 100000

/* What report_chunks() saw of a report. */
struct pieces {
	unsigned int chunks;
	size_t largest;		/* piece: what one report_step() wrote */
	size_t cut;		/* the text's length at the change */
	bool added;		/* and the change after it made */
};

/* Between two chunks of a report, len bytes of text made so far. */
typedef void between_fn(struct rig *r, const char *text, size_t len,
			struct pieces *p);

/*
 * The report of c as control.c makes it (control_fill()): chunks, each
 * of pieces until it holds chunk bytes or more, one after the other,
 * between(r) before each but the first; NULL when it had not ended
 * after STEPS_MAX steps.
 */
static char *report_chunks(struct rig *r, struct report_cursor *c,
			   size_t chunk, between_fn *between, struct pieces *p)
{
	char *all = NULL, *buf;
	size_t all_len = 0, len;
	unsigned int steps = 0;
	FILE *whole = open_memstream(&all, &all_len), *out;
	bool more = true;

	memset(p, 0, sizeof(*p));
	while (more && steps < STEPS_MAX) {
		if (p->chunks && between) {
			fflush(whole);
			between(r, all, all_len, p);
		}
		buf = NULL;
		out = open_memstream(&buf, &len);
		while (more && ftell(out) < (long)chunk &&
		       steps++ < STEPS_MAX) {
			long before = ftell(out);

			more = report_step(out, &r->port, c);
			if ((size_t)(ftell(out) - before) > p->largest)
				p->largest = (size_t)(ftell(out) - before);
		}
		fclose(out);
		fwrite(buf, 1, len, whole);
		free(buf);
		p->chunks++;
	}
	fclose(whole);
	if (more) {
		free(all);
		return NULL;
	}
	return all;
}

/* Are the lines of text each there once? */
static bool lines_unique(const char *text, unsigned int *n)
{
	char *copy = strdup(text), *line, *save = NULL;
	char **v = NULL;
	unsigned int i;
	bool once = true;

	*n = 0;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = line;
	}
	qsort(v, *n, sizeof(*v), (int (*)(const void *, const void *))
	      strcmp_ptr);
	for (i = 1; i < *n; i++)
		if (!strcmp(v[i - 1], v[i])) {
			printf("#   twice: %s\n", v[i]);
			once = false;
		}
	free(v);
	free(copy);
	return once;
}

/* Thousands of entries: the tables span many chunks. */
static void bulk(struct rig *r)
{
	struct device *d0 = &r->dev[0], *d1 = &r->dev[1];
	unsigned int i, n = r->port.peers.n;
	uint8_t mac[6] = { 0x02, 0x01, 0, 0, 0, 0 };
	int before;

	for (i = 0; i < 2000; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		if (fdb_add_static(&d0->s.fdb, mac, (uint16_t)(i % 3),
				   r->port.peers.live[i % n]))
			abort();
	}
	mac[0] = 0x0e;
	for (i = 0; i < 3000; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		if (fdb_learn(&d1->s.fdb, mac, 0, r->port.peers.live[i % n],
			      NOW - (i % 100) * SEC / 10, &before) !=
		    FDB_LEARN_NEW)
			abort();
	}
}

static void test_pieces(struct rig *r)
{
	struct report_cursor c;
	size_t largest = 0, i;
	struct pieces p;
	unsigned int n;

	for (i = 0; i < N_KINDS; i++) {
		char *whole = rig_report(r, kinds[i].kind), *big, *small;

		report_start(&c, kinds[i].kind);
		big = report_chunks(r, &c, REPORT_PIECE_MAX, NULL, &p);
		if (p.largest > largest)
			largest = p.largest;
		if (kinds[i].kind == REPORT_FDB)
			ok(p.chunks > 20 && lines_unique(whole, &n) &&
				   n == 5 + 2000 + 3000,
			   "fdb: 5005 entries, in %u chunks, each once",
			   p.chunks);
		report_start(&c, kinds[i].kind);
		small = report_chunks(r, &c, 1, NULL, &p);
		ok(big && small && !strcmp(whole, big) && !strcmp(whole, small),
		   "%s: written in chunks of %d bytes and a step at a time, "
		   "it is what report_write() writes", kinds[i].name,
		   REPORT_PIECE_MAX);
		free(whole);
		free(big);
		free(small);
	}
	ok(largest <= REPORT_PIECE_MAX, "no piece is over REPORT_PIECE_MAX "
	   "(the largest: %zu bytes)", largest);
}

/* The peer at s gone, with its entries in every device (port_peer_del). */
static void peer_del(struct rig *r, const char *s)
{
	int idx = rig_peer(r, s);
	unsigned int i;

	if (idx < 0)
		abort();
	for (i = 0; i < r->port.n_dev; i++)
		fwd_forget_peer(r->port.dev[i], (unsigned int)idx);
	peers_del(&r->port.peers, (unsigned int)idx);
}

static void peer_add(struct rig *r, const char *s)
{
	struct ipaddr a;

	set_ip(&a, s);
	if (peers_add(&r->port.peers, &a) < 0)
		abort();
}

/*
 * Once the report has named the first peer, it goes (with its entries),
 * before the cursor; a chunk later a new one comes.
 */
static void churn(struct rig *r, const char *text, size_t len,
		  struct pieces *p)
{
	if (!p->cut && memmem(text, len, "198.18.0.2", 10)) {
		peer_del(r, "198.18.0.2");
		p->cut = len;
	} else if (p->cut && !p->added) {
		peer_add(r, "198.18.0.7");
		p->added = true;
	}
}

/* Each report of a port of its own, as unit-report's, churned. */
static void test_churn(void)
{
	struct report_cursor c;
	struct pieces p;
	unsigned int n;
	struct rig rig, *r = &rig;
	size_t i;
	char *t;

	for (i = 0; i < N_KINDS; i++) {
		rig_open(r, port_argv);
		fill(r);
		bulk(r);
		report_start(&c, kinds[i].kind);
		t = report_chunks(r, &c, 1, churn, &p);
		ok(t != NULL, "%s: it ends when a peer goes and one comes "
		   "between its pieces", kinds[i].name);
		if (t && kinds[i].kind == REPORT_PEERS)
			ok(lines_unique(t, &n) && n == 3 &&
				   strstr(t, "\n198.18.0.7 route"),
			   "peers: no peer twice, the new one said");
		if (t && kinds[i].kind == REPORT_FDB)
			ok(!strstr(t + p.cut, " dst 198.18.0.2 ") &&
				   lines_unique(t + p.cut, &n) && n > 1000,
			   "fdb: nothing of the peer gone after it went");
		if (t && kinds[i].kind == REPORT_PEERS_JSON) {
			const char *const want[] = {
				"len(set(p['address'] for p in d['peers'])) "
				"== len(d['peers'])",
				"d['peers'][-1]['address'] == '198.18.0.7'",
				NULL,
			};

			json_check(t, want, "peers json: still JSON, no peer "
				   "twice, the new one last");
		}
		if (t && kinds[i].kind == REPORT_JSON) {
			const char *const want[] = {
				"len(d['tunnels']) == 2",
				"[p['address'] for p in d['peers']] == "
				"['198.18.0.2', '198.18.0.4', '198.18.0.7']",
				NULL,
			};

			json_check(t, want, "json: still JSON, of the peers "
				   "as they are at its end");
		}
		free(t);
		rig_close(r);
	}
}

static const char *const route_lines[] = {
	"10.1.0.0/16 dst 198.18.0.2 dev ut-t0\n",
	"0.0.0.0/0 dst 198.18.0.3 dev ut-t0\n",
	"10.1.0.0/16 dst 198.18.0.2 dev ut-t1\n",
	"fd00:1::/64 dst 198.18.0.3 dev ut-t1\n",
};

/* A report of kind of device dev of r's alone (malloc'd). */
static char *report_of(const struct rig *r, enum report_kind kind,
		       unsigned int dev)
{
	struct report_cursor c;
	char *t = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&t, &len);

	report_start(&c, kind);
	report_only(&c, dev);
	while (report_step(out, &r->port, &c))
		;
	fclose(out);
	return t;
}

/* 3000 routes more in the main tun, to each peer in turn. */
static void route_bulk(struct rig *r)
{
	struct cidr p = { .family = AF_INET6, .prefix = 64 };
	unsigned int i, n = r->port.peers.n;

	p.addr.v6.s6_addr[0] = 0xfd;
	for (i = 0; i < 3000; i++) {
		p.addr.v6.s6_addr[6] = (uint8_t)(i >> 8);
		p.addr.v6.s6_addr[7] = (uint8_t)i;
		if (route_add(&r->dev[0].s.routes, &p,
			      r->port.peers.live[i % n]))
			abort();
	}
}

/* Once the first peer's route is said, that peer goes (port_peer_del). */
static void route_churn(struct rig *r, const char *text, size_t len,
			struct pieces *p)
{
	if (!p->cut && memmem(text, len, " dst 198.18.0.2 ", 16)) {
		peer_del(r, "198.18.0.2");
		p->cut = len;
	}
}

/* route show of a port of tuns: the lines, of one tun, the JSON. */
static void test_routes(void)
{
	struct report_cursor c;
	struct pieces p;
	unsigned int n;
	bool each = true;
	struct rig rig, *r = &rig;
	char *t, *big;
	size_t i;

	rig_open(r, tun_argv);
	t = rig_report(r, REPORT_ROUTES);
	for (i = 0; i < sizeof(route_lines) / sizeof(*route_lines); i++)
		if (count(t, route_lines[i]) != 1) {
			printf("#   not once: %s", route_lines[i]);
			each = false;
		}
	ok(each && count(t, "\n") == 4, "routes: each route once, PREFIX dst "
	   "ADDR dev TUN");
	ok(strstr(t, " dev ut-t1\n") && !strstr(strstr(t, " dev ut-t1\n"),
						" dev ut-t0\n"),
	   "routes: the main tun's first");
	free(t);
	t = report_of(r, REPORT_ROUTES, 1);
	ok(count(t, "\n") == 2 && count(t, " dev ut-t1\n") == 2,
	   "routes of the second tun only");
	free(t);

	t = rig_report(r, REPORT_ROUTES_JSON);
	{
		const char *const want[] = {
			"set(d) == {'routes'} and len(d['routes']) == 4",
			"all(set(e) == {'prefix', 'dst', 'dev'} "
			"for e in d['routes'])",
			"sorted((e['dev'], e['prefix'], e['dst']) for e in "
			"d['routes']) == sorted([('ut-t0', '10.1.0.0/16', "
			"'198.18.0.2'), ('ut-t0', '0.0.0.0/0', '198.18.0.3'), "
			"('ut-t1', '10.1.0.0/16', '198.18.0.2'), ('ut-t1', "
			"'fd00:1::/64', '198.18.0.3')])",
			NULL,
		};

		json_check(t, want, "routes json: parses, every route's "
			   "fields");
	}
	free(t);
	t = report_of(r, REPORT_ROUTES_JSON, 1);
	{
		const char *const want[] = {
			"[e['dev'] for e in d['routes']] == ['ut-t1', 'ut-t1']",
			NULL,
		};

		json_check(t, want, "routes json of the second tun only");
	}
	free(t);
	ok(!report_reads_lanes(REPORT_ROUTES) &&
		   !report_reads_lanes(REPORT_ROUTES_JSON) &&
		   report_reads_lanes(REPORT_JSON),
	   "routes: the main thread's table, read with the lanes going");

	route_bulk(r);
	t = rig_report(r, REPORT_ROUTES);
	report_start(&c, REPORT_ROUTES);
	big = report_chunks(r, &c, 1, NULL, &p);
	ok(big && !strcmp(t, big) && lines_unique(t, &n) && n == 3004,
	   "routes: 3004, a step at a time as report_write() writes them, "
	   "each once");
	free(big);
	free(t);
	t = rig_report(r, REPORT_ROUTES_JSON);
	report_start(&c, REPORT_ROUTES_JSON);
	big = report_chunks(r, &c, REPORT_PIECE_MAX, NULL, &p);
	ok(big && !strcmp(t, big) && count(t, "\"prefix\"") == 3004,
	   "routes json: in chunks, the same");
	free(big);
	free(t);

	report_start(&c, REPORT_ROUTES);
	t = report_chunks(r, &c, 1, route_churn, &p);
	/* A route may be said twice across the change (report.h). */
	ok(t && p.cut && !strstr(t + p.cut, " dst 198.18.0.2 ") &&
		   lines_unique(t + p.cut, &n) && n > 1000,
	   "routes: a peer gone between pieces: none of its routes after, "
	   "it ends (%u lines after)", t ? n : 0);
	free(t);
	rig_close(r);
}

/* text to a file of tmpdir; its path (static). */
static const char *write_file(const char *name, const char *text)
{
	static char path[sizeof(tmpdir) + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	return path;
}

/* The lines of text that hold with (static entries, routes), sorted. */
static char *sorted_lines(const char *text, const char *with)
{
	char *copy = strdup(text), *line, *save = NULL, **v = NULL, *out;
	unsigned int n = 0, i;
	size_t len = 0;
	FILE *f;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, with)) {
			v = realloc(v, (n + 1) * sizeof(*v));
			v[n++] = line;
		}
	qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))
	      strcmp_ptr);
	out = NULL;
	f = open_memstream(&out, &len);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", v[i]);
	fclose(f);
	free(v);
	free(copy);
	return out;
}

/*
 * The configuration of now, fed back to --config: a port of the same
 * peers and static entries, and that says the same configuration.
 */
static void test_config(struct rig *a)
{
	static const uint8_t m1[] = { 2, 0, 0, 0, 0, 1 };
	struct config_fdb e = { .mac = { 2, 0, 0, 0, 0, 3 } };
	const char *argv[] = { "gsotun", "--config", NULL, NULL };
	char *ca, *cb, *pa, *pb, *fa, *fb;
	struct rig b;

	peer_add(a, "198.18.0.5");
	set_ip(&e.peer, "198.18.0.5");
	fwd_fdb_add(&a->dev[1], &e);
	e.mac[5] = 4;
	e.vlan = 9;
	fwd_fdb_add(&a->dev[0], &e);
	fwd_fdb_add(&a->dev[1], &e);
	fwd_fdb_del(&a->dev[0], m1, 0);
	peer_del(a, "198.18.0.4");

	ca = rig_report(a, REPORT_CONFIG);
	has(ca, "\nremote 198.18.0.2\nremote 198.18.0.3\nremote 198.18.0.5\n",
	    "config: the peers of now, those added at run time too");
	ok(!strstr(ca, "198.18.0.4\n"), "config: a peer gone is not said");
	has(ca, "\nfdb ut-r1=02:00:00:00:00:01=198.18.0.2\n"
	    "fdb ut-r1=02:00:00:00:00:02@7=198.18.0.3\n"
	    "fdb ut-r1=02:00:00:00:00:03=198.18.0.5\n",
	    "config: an entry of one tap as DEV=ENTRY");
	ok(count(ca, "\nfdb 02:00:00:00:00:04@9=198.18.0.5\n") == 1 &&
		   !strstr(ca, "=02:00:00:00:00:04"),
	   "config: an entry every tap holds, once, without DEV=");

	argv[2] = write_file("config", ca);
	rig_open(&b, argv);
	cb = rig_report(&b, REPORT_CONFIG);
	ok(!strcmp(ca, cb), "config fed back to --config: the same config");
	if (strcmp(ca, cb))
		printf("#   first:\n%.400s\n#   then:\n%.400s\n", ca, cb);
	ok(b.port.peers.n == 3 && rig_peer(&b, "198.18.0.2") >= 0 &&
		   rig_peer(&b, "198.18.0.3") >= 0 &&
		   rig_peer(&b, "198.18.0.5") >= 0,
	   "config fed back: the same peers");
	pa = rig_report(a, REPORT_FDB);
	pb = rig_report(&b, REPORT_FDB);
	fa = sorted_lines(pa, " static");
	fb = sorted_lines(pb, " static");
	ok(!strcmp(fa, fb) && count(fa, "\n") > 1000,
	   "config fed back: the same static entries in every tap (%u)",
	   count(fa, "\n"));
	free(fa);
	free(fb);
	free(pa);
	free(pb);
	free(ca);
	free(cb);
	rig_close(&b);
	unlink(argv[2]);
}

static void tun_route_add(struct rig *r, unsigned int dev, const char *prefix,
			  const char *peer)
{
	struct config_route e = { .prefix.family = 0 };

	if (optvalue_cidr_parse(prefix, &e.prefix))
		abort();
	set_ip(&e.peer, peer);
	if (fwd_route_add(&r->dev[dev], &e))
		abort();
}

/*
 * config of a port of tuns: the routes of now, route add and del's too,
 * in an order of their own; fed back to --config, the same routes.
 */
static void test_config_routes(void)
{
	const char *argv[] = { "gsotun", "--config", NULL, NULL };
	struct cidr gone;
	struct rig a, b;
	char *ca, *cb, *ra, *rb;

	rig_open(&a, tun_argv);
	tun_route_add(&a, 0, "10.2.0.0/16", "198.18.0.3");
	tun_route_add(&a, 0, "fd00:9::/64", "198.18.0.2");
	tun_route_add(&a, 1, "fd00:9::/64", "198.18.0.2");
	if (optvalue_cidr_parse("10.1.0.0/16", &gone) ||
	    fwd_route_del(&a.dev[1], &gone))
		abort();
	ca = rig_report(&a, REPORT_CONFIG);
	has(ca, "\nroute ut-t0=0.0.0.0/0=198.18.0.3\n"
	    "route ut-t0=10.1.0.0/16=198.18.0.2\n"
	    "route ut-t0=10.2.0.0/16=198.18.0.3\n"
	    "route fd00:9::/64=198.18.0.2\n"
	    "route ut-t1=fd00:1::/64=198.18.0.3\n",
	    "config: the routes of now, by tun, family, address, length; "
	    "one of every tun once, without DEV=");
	ok(count(ca, "\nroute ") == 5, "config: no other route said");

	argv[2] = write_file("config-tun", ca);
	rig_open(&b, argv);
	cb = rig_report(&b, REPORT_CONFIG);
	ok(!strcmp(ca, cb), "config of tuns fed back: the same config");
	if (strcmp(ca, cb))
		printf("#   first:\n%.600s\n#   then:\n%.600s\n", ca, cb);
	free(cb);
	cb = rig_report(&a, REPORT_ROUTES);
	ra = sorted_lines(cb, " dst ");
	free(cb);
	cb = rig_report(&b, REPORT_ROUTES);
	rb = sorted_lines(cb, " dst ");
	ok(!strcmp(ra, rb) && count(ra, "\n") == 6,
	   "config of tuns fed back: the same routes in each tun (%u)",
	   count(ra, "\n"));
	free(ra);
	free(rb);
	free(ca);
	free(cb);
	rig_close(&b);
	rig_close(&a);
	unlink(argv[2]);
}

/*
 * A port with no peer: started with --remote, the last one gone. Each
 * report says none, without a peer line; the config says the family
 * as the unspecified --local, and reads back.
 */
static void test_no_peer(void)
{
	static const char *const argv[] = {
		"gsotun", "--dev", "ut-n0", "--remote", "198.18.0.2",
		"--mtu", "1400", NULL,
	};
	static const char *const want[] = {
		"d['peers'] == []",
		NULL,
	};
	struct rig rig, *r = &rig;
	char *t;

	rig_open(r, argv);
	peer_del(r, "198.18.0.2");
	t = rig_report(r, REPORT_SHOW);
	ok(strstr(t, ", 0 peers\n") && !strstr(t, "\npeer "),
	   "no peer: show says 0 peers, no peer line");
	free(t);
	t = rig_report(r, REPORT_JSON);
	json_check(t, want, "no peer: show --json parses, peers []");
	free(t);
	t = rig_report(r, REPORT_METRICS);
	ok(strstr(t, "\ngsotun_peers 0\n") && !strstr(t, "\ngsotun_peer_"),
	   "no peer: metrics say gsotun_peers 0, no peer's series");
	free(t);
	t = rig_report(r, REPORT_DUMP);
	ok(strstr(t, "tx_drop_no_peer=0") && !strstr(t, "peer 198"),
	   "no peer: the dump has tx_drop_no_peer, no peer line");
	free(t);
	t = rig_report(r, REPORT_CONFIG);
	ok(strstr(t, "\nlocal 0.0.0.0\n") && !strstr(t, "remote"),
	   "no peer: config says local 0.0.0.0 for the family, no remote");
	free(t);
	rig_close(r);
}

int main(void)
{
	struct rig r;

	frozen_ns = clock_now_ns();
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	if (!access("/usr/bin/python3", X_OK))
		python = "/usr/bin/python3";
	else if (!system("python3 -c pass 2>/dev/null"))
		python = "python3";
	log_level = LOG_LVL_WARN;
	plan(73 + 9 + 4 + 5 + 9);
	rig_open(&r, port_argv);
	fill(&r);
	test_stats(&r);
	test_dump(&r);
	test_show(&r);
	test_json(&r);
	test_metrics(&r);
	test_fdb(&r);
	test_lists(&r);
	test_id(&r);
	bulk(&r);
	test_pieces(&r);
	test_config(&r);
	rig_close(&r);
	test_churn();
	test_routes();
	test_config_routes();
	test_no_peer();
	rmdir(tmpdir);
	return done_testing();
}
