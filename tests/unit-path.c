// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of a device's path policy (path.c) on devices set up from an
 * argv in a network namespace of the test's own: the tap's MTU and the
 * budget from --mtu or the route, what an ICMP "fragmentation needed"
 * injected into the namespace changes, the tap's gso_max_size for bulk
 * UDP, what ICMP errors are said to mean, the look at the routes after
 * a send that failed, and a peer whose route goes through a tap of ours
 * (refused, a loop) or is one that refuses it.
 */
#include "config.h"

#include <poll.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/icmp6.h>
#include <linux/udp.h>
#include <linux/errqueue.h>
#include "dev/path.h"
#include "devenv.h"
#include "pkt.h"

/*
 * The peers: one behind a route of MTU 1300 (for --mtu N), one behind a
 * route of MTU 1400 (--mtu auto), both over ut0 (MTU 1500), so that a
 * PMTU the kernel learns for one leaves the other alone.
 */
#define PEER_N "198.18.0.2"
#define PEER_AUTO "198.18.0.3"
#define ROUTE_N 1300
#define ROUTE_AUTO 1400
/* VXLAN over IPv4: outer IPv4, UDP and VXLAN, and the inner Ethernet. */
#define VXLAN4_OVERHEAD (20 + 8 + 8 + 14)

static const char *no_tap = "no tap without root";

/* The Internet checksum of len bytes at data (pkt.h's reference). */
static uint16_t sum16(const void *data, size_t len)
{
	return htons((uint16_t)~pkt_fold(pkt_sum(data, len, 0)));
}

/*
 * An ICMP error of type and code (with next-hop MTU mtu) about a VXLAN
 * datagram from ENV_LOCAL:4789 to peer:4789, sent to ENV_LOCAL as a
 * router on the way would: the kernel hands it to the underlay socket's
 * error queue (__udp4_lib_err()). 0 or -errno.
 */
static int inject_icmp(const char *peer, uint8_t type, uint8_t code,
		       uint16_t mtu)
{
	struct {
		struct icmphdr icmp;
		struct iphdr ip;
		struct udphdr udp;
	} __attribute__((packed)) m = { 0 };
	struct sockaddr_in to = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	int err = 0;

	if (fd < 0)
		return -errno;
	m.icmp.type = type;
	m.icmp.code = code;
	m.icmp.un.frag.mtu = htons(mtu);
	m.ip.version = 4;
	m.ip.ihl = 5;
	m.ip.tot_len = htons(1450);
	m.ip.frag_off = htons(IP_DF);
	m.ip.ttl = 64;
	m.ip.protocol = IPPROTO_UDP;
	inet_pton(AF_INET, ENV_LOCAL, &m.ip.saddr);
	inet_pton(AF_INET, peer, &m.ip.daddr);
	m.ip.check = sum16(&m.ip, sizeof(m.ip));
	m.udp.source = m.udp.dest = htons(encap_default_port(ENCAP_VXLAN));
	m.udp.len = htons(1430);
	m.icmp.checksum = sum16(&m, sizeof(m));
	inet_pton(AF_INET, ENV_LOCAL, &to.sin_addr);
	if (sendto(fd, &m, sizeof(m), 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/*
 * What the loop does when an underlay socket has errors queued: wait a
 * second at most for one, then path_errors() on each such socket.
 * Returns how many had one.
 */
static int read_errors(struct env *e, int ms)
{
	struct pollfd p[2];
	unsigned int i, n;
	int fds[2], had = 0;

	n = underlay_recv_fds(&e->port.ul[0], fds);
	for (i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = fds[i] };
	if (poll(p, n, ms) <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (!(p[i].revents & POLLERR))
			continue;
		path_errors(&e->dev[0], &e->port.ul[0], p[i].fd);
		had++;
	}
	return had;
}

static uint32_t gro_mtu(const struct device *d)
{
	return d->q[0].rx.gro ? d->q[0].rx.gro->mtu : 0;
}

static void test_mtu_fixed(void)
{
	char *argv[] = { "gsotun", "--dev", "ut-n", "--mtu", "1400", "--df",
			 "set", "--remote", PEER_N, NULL };
	struct env e;
	struct device *d = &e.dev[0];
	struct peer *p;

	env_open(&e, 9, argv);
	p = &e.port.peers.v[env_peer(&e, PEER_N)];
	if (e.tap) {
		is_int(env_mtu("ut-n"), 1400, "--mtu 1400: the tap's MTU");
		is_int(path_tap_mtu(&d->path), 1400, "path_tap_mtu() says it");
	} else {
		env_skip(no_tap, "--mtu 1400: the tap's MTU");
		env_skip(no_tap, "path_tap_mtu() says it");
	}
	if (e.tap)
		is_int(d->s.budget, ROUTE_N - 36,
		       "the budget: the route's MTU 1300 less outer IPv4, "
		       "UDP and VXLAN");
	else
		env_skip(no_tap, "the budget from the route");

	is_int(inject_icmp(PEER_N, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, 1200),
	       0, "an ICMP fragmentation needed (MTU 1200) sent back");
	is_int(read_errors(&e, 1000), 1,
	       "it reaches the underlay's error queue");
	is_int(p->path_mtu, 1200, "path_errors(): the peer's path MTU 1200");
	is_int(d->s.budget, 1200 - 36, "the budget follows");
	is_int(d->st.tx_icmp_too_big, 1, "tx_icmp_too_big 1");
	if (e.tap) {
		is_int(env_mtu("ut-n"), 1400, "--mtu N: the tap keeps its MTU");
		is_int(gro_mtu(d), 1400, "and so does what its queue merges");
	} else {
		env_skip(no_tap, "--mtu N: the tap keeps its MTU");
		env_skip(no_tap, "and so does what its queue merges");
	}
	ok(!path_needs_net_admin(d), "--mtu N: no CAP_NET_ADMIN kept");
	env_close(&e);
}

static void test_mtu_auto(void)
{
	char *argv[] = { "gsotun", "--dev", "ut-a", "--df", "set",
			 "--remote", PEER_AUTO, NULL };
	struct env e;
	struct device *d = &e.dev[0];
	uint32_t fit;
	struct peer *p;

	env_open(&e, 7, argv);
	if (!e.tap) {
		/* --mtu auto sets the tap's MTU: nothing else to look at. */
		env_skip(no_tap, "--mtu auto: the tap's MTU and the budget");
		for (int i = 0; i < 16; i++)
			env_skip(no_tap, "--mtu auto, ICMP, bulk UDP");
		env_close(&e);
		return;
	}
	p = &e.port.peers.v[env_peer(&e, PEER_AUTO)];
	ok(env_mtu("ut-a") == ROUTE_AUTO - VXLAN4_OVERHEAD &&
		   path_tap_mtu(&d->path) == ROUTE_AUTO - VXLAN4_OVERHEAD,
	   "--mtu auto, a route of MTU 1400 on a link of 1500: tap MTU 1350");
	is_int(d->s.budget, ROUTE_AUTO - VXLAN4_OVERHEAD + 14,
	       "the budget: the tap's MTU and its Ethernet header");
	is_int(gro_mtu(d), ROUTE_AUTO - VXLAN4_OVERHEAD,
	       "the queue merges to the tap's MTU");
	ok(path_needs_net_admin(d), "--mtu auto: CAP_NET_ADMIN kept");

	fit = d->s.udp_fit;
	ok(fit > 0 && fit < 65536, "dev_state.udp_fit: the TCP size, %u", fit);
	is_int(env_gso_max_size(d->ifindex), fit,
	       "the tap's gso_max_size is that size");

	is_int(inject_icmp(PEER_AUTO, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
			   1280), 0, "an ICMP fragmentation needed (1280)");
	is_int(read_errors(&e, 1000), 1, "on the error queue");
	is_int(p->path_mtu, 1280, "the peer's path MTU 1280");
	is_int(d->s.budget, 1280 - 36, "the budget follows");
	is_int(env_mtu("ut-a"), 1280 - VXLAN4_OVERHEAD,
	       "--mtu auto: the tap's MTU follows (1230)");
	is_int(gro_mtu(d), 1280 - VXLAN4_OVERHEAD,
	       "rx_set_mtu(): so does what the queue merges");
	ok(d->s.udp_fit > 0 && d->s.udp_fit < fit &&
		   env_gso_max_size(d->ifindex) == d->s.udp_fit,
	   "udp_fit and the tap's gso_max_size go down with the path (%u)",
	   d->s.udp_fit);

	fit = d->s.udp_fit;
	path_udp_bulk(d, XMIT_BULK_SUPER);
	is_int(env_gso_max_size(d->ifindex), 65536,
	       "path_udp_bulk(): the tap's gso_max_size 64 KB");
	is_int(d->st.tx_udp_bulk, 1, "tx_udp_bulk 1");
	path_udp_bulk(d, XMIT_BULK_SUPER);
	is_int(d->st.tx_udp_bulk, 1, "raised already: not counted again");
	is_int(d->s.udp_fit, fit, "udp_fit stays what raises it");
	env_close(&e);
}

static void test_unreach(void)
{
	char *argv[] = { "gsotun", "--dev", "ut-u", "--mtu", "1400",
			 "--remote", PEER_AUTO, NULL };
	struct env e;
	struct device *d = &e.dev[0];
	const char *log;
	struct peer *p;

	env_open(&e, 7, argv);
	p = &e.port.peers.v[env_peer(&e, PEER_AUTO)];
	inject_icmp(PEER_AUTO, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH, 0);
	env_log_start();
	is_int(read_errors(&e, 1000), 1,
	       "an ICMP port unreachable on the queue");
	log = env_log_end();
	ok(d->st.tx_icmp_unreach == 1 && p->st.icmp_unreach == 1,
	   "tx_icmp_unreach 1, and the peer's icmp_unreach 1");
	ok(p->icmp.origin == SO_EE_ORIGIN_ICMP &&
		   p->icmp.type == ICMP_DEST_UNREACH &&
		   p->icmp.code == ICMP_PORT_UNREACH && p->icmp_ns,
	   "the peer keeps what it said, and when");
	ok(strstr(log, "ICMP says of peer " PEER_AUTO ": port unreachable: "
		       "nothing takes UDP port 4789") != NULL,
	   "said, naming the peer and the port");
	is_int(d->st.tx_icmp_too_big, 0, "not counted as too big");
	env_close(&e);
}

/*
 * With --df set a "fragmentation needed" about any peer is heeded: the
 * kernel hands it to one of the port's two receiving sockets by a hash of
 * the addresses, so eight peers find both.
 */
static void test_df_peers(void)
{
	char *argv[32] = { "gsotun", "--dev", "ut-d", "--mtu", "1400", "--df",
			   "set" };
	char addr[8][16];
	struct env e;
	int i, argc = 7, learnt = 0;

	for (i = 0; i < 8; i++) {
		snprintf(addr[i], sizeof(addr[i]), "198.18.0.%d", 10 + i);
		argv[argc++] = "--remote";
		argv[argc++] = addr[i];
	}
	env_open(&e, argc, argv);
	for (i = 0; i < 8; i++)
		inject_icmp(addr[i], ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, 1300);
	if (read_errors(&e, 1000))
		while (read_errors(&e, 100))
			;
	for (i = 0; i < 8; i++) {
		const struct peer *p = &e.port.peers.v[env_peer(&e, addr[i])];

		learnt += p->path_mtu == 1300;
	}
	is_int(learnt, 8, "an ICMP fragmentation needed about each of eight "
	       "peers: every one's path MTU learnt");
	is_int(e.dev[0].st.tx_icmp_too_big, 8, "tx_icmp_too_big 8");
	env_close(&e);
}

struct cause_row {
	uint8_t origin, type, code;
	enum path_icmp want;
	const char *name;
};

static const struct cause_row causes[] = {
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH,
	  PATH_ICMP_PORT, "port" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_PROT_UNREACH,
	  PATH_ICMP_PROTOCOL, "protocol" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_HOST_UNREACH,
	  PATH_ICMP_HOST, "host" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_HOST_UNKNOWN,
	  PATH_ICMP_HOST, "host" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_NET_UNREACH,
	  PATH_ICMP_NETWORK, "network" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_NET_UNKNOWN,
	  PATH_ICMP_NETWORK, "network" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_NET_UNR_TOS,
	  PATH_ICMP_NETWORK, "network" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_PKT_FILTERED,
	  PATH_ICMP_PROHIBITED, "prohibited" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_HOST_ANO,
	  PATH_ICMP_PROHIBITED, "prohibited" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_PREC_CUTOFF,
	  PATH_ICMP_PROHIBITED, "prohibited" },
	{ SO_EE_ORIGIN_ICMP, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, PATH_ICMP_TTL,
	  "ttl" },
	{ SO_EE_ORIGIN_ICMP, ICMP_PARAMETERPROB, 0, PATH_ICMP_OTHER, "other" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_DST_UNREACH, ICMP6_DST_UNREACH_NOPORT,
	  PATH_ICMP_PORT, "port" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_DST_UNREACH, ICMP6_DST_UNREACH_ADDR,
	  PATH_ICMP_HOST, "host" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_DST_UNREACH, ICMP6_DST_UNREACH_NOROUTE,
	  PATH_ICMP_NETWORK, "network" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_DST_UNREACH, ICMP6_DST_UNREACH_ADMIN,
	  PATH_ICMP_PROHIBITED, "prohibited" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_DST_UNREACH, 6, PATH_ICMP_PROHIBITED,
	  "prohibited" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_TIME_EXCEEDED, 0, PATH_ICMP_TTL, "ttl" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_PARAM_PROB, ICMP6_PARAMPROB_NEXTHEADER,
	  PATH_ICMP_PROTOCOL, "protocol" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_PARAM_PROB, ICMP6_PARAMPROB_HEADER,
	  PATH_ICMP_OTHER, "other" },
	{ SO_EE_ORIGIN_LOCAL, 0, 0, PATH_ICMP_LOCAL, "local" },
	{ SO_EE_ORIGIN_NONE, 0, 0, PATH_ICMP_OTHER, "other" },
};
#define N_CAUSES (sizeof(causes) / sizeof(causes[0]))

/*
 * The same errors sent by this host (peer_icmp.own): a host unreachable
 * is ARP or neighbour discovery unanswered; anything else what it says.
 */
static const struct cause_row own_causes[] = {
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_HOST_UNREACH,
	  PATH_ICMP_NEIGHBOUR, "neighbour" },
	{ SO_EE_ORIGIN_ICMP6, ICMP6_DST_UNREACH, ICMP6_DST_UNREACH_ADDR,
	  PATH_ICMP_NEIGHBOUR, "neighbour" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH,
	  PATH_ICMP_PORT, "port" },
	{ SO_EE_ORIGIN_ICMP, ICMP_DEST_UNREACH, ICMP_NET_UNREACH,
	  PATH_ICMP_NETWORK, "network" },
};
#define N_OWN_CAUSES (sizeof(own_causes) / sizeof(own_causes[0]))

/* A device of encapsulation type on port, filled by hand. */
static void hand_device(struct device *d, struct config *c,
			enum encap_type type, uint16_t port)
{
	memset(d, 0, sizeof(*d));
	memset(c, 0, sizeof(*c));
	c->port = port;
	c->encap.type = type;
	d->s.cfg = c;
	d->s.encap = c->encap;
}

static void test_icmp_text(void)
{
	struct peer_icmp i = { .origin = SO_EE_ORIGIN_ICMP,
			       .type = ICMP_DEST_UNREACH,
			       .code = ICMP_PORT_UNREACH };
	unsigned int k;
	struct device d;
	struct config c;
	char buf[256];

	for (k = 0; k < N_CAUSES; k++) {
		const struct cause_row *r = &causes[k];
		struct peer_icmp q = { .origin = r->origin, .type = r->type,
				       .code = r->code };
		enum path_icmp got = path_icmp_cause(&q);

		ok(got == r->want && !strcmp(path_icmp_name(got), r->name),
		   "origin %u type %u code %u: %s", r->origin, r->type,
		   r->code, r->name);
	}
	for (k = 0; k < N_OWN_CAUSES; k++) {
		const struct cause_row *r = &own_causes[k];
		struct peer_icmp q = { .origin = r->origin, .type = r->type,
				       .code = r->code, .own = true };
		enum path_icmp got = path_icmp_cause(&q);

		ok(got == r->want && !strcmp(path_icmp_name(got), r->name),
		   "origin %u type %u code %u from this host: %s", r->origin,
		   r->type, r->code, r->name);
	}
	hand_device(&d, &c, ENCAP_VXLAN, 4789);
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "port unreachable: nothing takes UDP port 4789") &&
		   strstr(buf, "(vxlan's port is 4789; the kernel's vxlan "
			       "listens on 8472 unless given dstport 4789)"),
	   "vxlan's port hint: its port, and the kernel's vxlan's 8472");
	hand_device(&d, &c, ENCAP_VXLAN, 5000);
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "UDP port 5000") && strstr(buf, "dstport 5000"),
	   "another --port: that one");
	hand_device(&d, &c, ENCAP_GRE_UDP, 4754);
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "UDP port 4754") &&
		   strstr(buf, "(gre-udp's port is 4754)") &&
		   !strstr(buf, "vxlan") && !strstr(buf, "8472"),
	   "gre-udp's: its port, no vxlan's");
	hand_device(&d, &c, ENCAP_GENEVE, 6081);
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(!strcmp(buf, "port unreachable: nothing takes UDP port 6081 there: "
		   "is its tunnel up, on that port? (geneve's port is 6081)"),
	   "geneve's: its port, named: \"%s\"", buf);
	hand_device(&d, &c, ENCAP_GENEVE, 4789);
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "UDP port 4789") &&
		   strstr(buf, "(geneve's port is 6081)") && !strstr(buf, "8472"),
	   "geneve on vxlan's port: geneve's own, not the kernel's vxlan's");
	i = (struct peer_icmp){ .origin = SO_EE_ORIGIN_ICMP,
				.type = ICMP_DEST_UNREACH,
				.code = ICMP_PROT_UNREACH };
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "takes no GRE") != NULL, "protocol: no GRE there");
	i.code = ICMP_HOST_UNREACH;
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(!strncmp(buf, "host unreachable: a router", 26), "host: a router");
	i.own = true;
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(!strncmp(buf, "host unreachable, said by this host: no answer to "
		    "ARP", 52) && !strstr(buf, "a router on the way"),
	   "host, from this host: no answer to ARP, no router's word");
	path_icmp_what(&i, buf, sizeof(buf));
	ok(!strcmp(buf, "host unreachable (no neighbour)"),
	   "what it is, without the causes: \"%s\"", buf);
	i.own = false;
	i.code = ICMP_PKT_FILTERED;
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "a filter on the way") != NULL, "prohibited: a filter");
	i.type = ICMP_TIME_EXCEEDED;
	i.code = 0;
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "routing loop") && strstr(buf, "--ttl"),
	   "time exceeded: a loop, or --ttl");
	i = (struct peer_icmp){ .origin = SO_EE_ORIGIN_LOCAL,
				.err = EHOSTUNREACH };
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, strerror(EHOSTUNREACH)) && strstr(buf, "this host"),
	   "local: the error, said by this host");
	i = (struct peer_icmp){ .origin = SO_EE_ORIGIN_ICMP, .type = 12,
				.code = 1, .err = EPROTO };
	path_icmp_hint(&d, &i, buf, sizeof(buf));
	ok(strstr(buf, "type 12 code 1") != NULL, "other: its type and code");
}

static void test_send_failed(void)
{
	char *argv[] = { "gsotun", "--dev", "ut-s", "--mtu", "1400",
			 "--remote", PEER_AUTO, NULL };
	struct env e;
	struct device *d = &e.dev[0];
	const char *log;
	struct peer *p;

	env_open(&e, 7, argv);
	p = &e.port.peers.v[env_peer(&e, PEER_AUTO)];
	path_watch(d);
	log_level = LOG_LVL_DEBUG;
	env_log_start();
	path_send_failed(d, p, ENETUNREACH);
	ok(ev_is_active(&d->path.look_w),
	   "path_send_failed(): a look at the routes is started");
	ev_run(e.loop, EVRUN_ONCE);
	ok(!ev_is_active(&d->path.look_w), "the loop ran it");
	path_send_failed(d, p, ENETUNREACH);
	ok(!ev_is_active(&d->path.look_w),
	   "another failure at once: no look again within the limit");
	log = env_log_end();
	log_level = LOG_LVL_INFO;
	is_int(env_count(log, "a send to the peer " PEER_AUTO " failed (" ),
	       1, "the look found its route up, said once");
	ok(strstr(log, strerror(ENETUNREACH)) != NULL, "with the error");
	env_close(&e);
}

/*
 * ip route replace dst/32 of type (RTN_UNICAST dev oif, RTN_UNREACHABLE,
 * RTN_PROHIBIT, RTN_BLACKHOLE), or with del the route of dst/32 deleted.
 */
static int route_to(const char *dst, uint8_t type, unsigned int oif, bool del)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;
	struct in_addr a;

	inet_pton(AF_INET, dst, &a);
	nlh->nlmsg_type = del ? RTM_DELROUTE : RTM_NEWROUTE;
	nlh->nlmsg_flags = del ? 0 : NLM_F_CREATE | NLM_F_REPLACE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 32;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = del		     ? RT_SCOPE_NOWHERE :
			 type == RTN_UNICAST ? RT_SCOPE_LINK :
					       RT_SCOPE_UNIVERSE;
	rtm->rtm_type = type;
	mnl_attr_put(nlh, RTA_DST, sizeof(a), &a);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	return env_nl(nlh);
}

#define PEER_LOOP "198.18.0.4"

/*
 * Its route through tap ifindex: refused, its path MTU and the tap's
 * kept; said, or (again within ten seconds) not.
 */
static void circular_checks(struct env *e, struct peer *p, unsigned int ifindex,
			    const char *what, bool said)
{
	struct device *d = &e->dev[0];
	const char *log;
	int n;

	is_int(route_to(PEER_LOOP, RTN_UNICAST, ifindex, false), 0,
	       "%s: the peer's route through it", what);
	env_log_start();
	path_check(d);
	log = env_log_end();
	ok(p->route == PEER_ROUTE_CIRCULAR && p->reach == PEER_REACH_CIRCULAR,
	   "%s: path_check(): circular, refused", what);
	ok(p->path_mtu == 1500 && env_mtu("ut-c") == 1450,
	   "%s: the peer's path MTU and the tap's MTU kept", what);
	ok(!strstr(log, "the route to the peer " PEER_LOOP " goes out through "
			"ut-c") == !said,
	   said ? "%s: said, naming the peer" :
		  "%s: not said again within ten seconds", what);
	inject_icmp(PEER_LOOP, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, 600);
	n = read_errors(e, 1000);
	path_check(d);
	ok(n == 1 && p->path_mtu == 1500 && env_mtu("ut-c") == 1450,
	   "%s: an ICMP too big (600) of the loop: MTUs kept", what);
	is_int(route_to(PEER_LOOP, 0, 0, true), 0, "%s: the route gone", what);
	path_check(d);
	ok(p->route == PEER_ROUTE_OK && p->reach == PEER_REACH_OK &&
		   p->path_mtu == 1500,
	   "%s: back over the underlay: taken again", what);
}

/* The routes that refuse a peer: marked, unmarked when one takes it. */
static void refusing_checks(struct env *e, struct peer *p)
{
	static const struct {
		uint8_t type;
		const char *name;
	} rows[] = {
		{ RTN_UNREACHABLE, "unreachable" },
		{ RTN_PROHIBIT, "prohibit" },
		{ RTN_BLACKHOLE, "blackhole" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		route_to(PEER_LOOP, rows[i].type, 0, false);
		path_check(&e->dev[0]);
		ok(p->route == PEER_ROUTE_NONE &&
			   p->reach == PEER_REACH_NO_ROUTE,
		   "a route of type %s: no route, no frame sent", rows[i].name);
	}
	route_to(PEER_LOOP, 0, 0, true);
	path_check(&e->dev[0]);
	ok(p->route == PEER_ROUTE_OK, "the route gone: frames go again");
}

/*
 * A peer routed through a tap of the process, the one that sends or
 * another (as vxlan_get_route() refuses its own device), and routes that
 * refuse it.
 */
static void test_circular(void)
{
	char *argv[] = { "gsotun", "--dev", "ut-c", "--vni", "1", "--vni",
			 "2=ut-c2", "--df", "set", "--remote", PEER_LOOP,
			 NULL };
	struct env e;
	struct peer *p;

	env_open(&e, 11, argv);
	p = &e.port.peers.v[env_peer(&e, PEER_LOOP)];
	if (!e.tap) {
		for (int i = 0; i < 19; i++)
			env_skip(no_tap, "a route through a tap of ours");
		env_close(&e);
		return;
	}
	ok(p->route == PEER_ROUTE_OK && p->path_mtu == 1500 &&
		   env_mtu("ut-c") == 1450,
	   "over the underlay: path MTU 1500, the tap's 1450");
	circular_checks(&e, p, e.dev[0].ifindex, "the main tap", true);
	circular_checks(&e, p, e.dev[1].ifindex, "the second tap", false);
	refusing_checks(&e, p);
	env_close(&e);
}

int main(void)
{
	env_netns();
	if (env_route_mtu(PEER_N, if_nametoindex(ENV_UL), ROUTE_N) ||
	    env_route_mtu(PEER_AUTO, if_nametoindex(ENV_UL), ROUTE_AUTO))
		skip_all("cannot add the routes");
	plan(11 + 17 + 5 + 2 + N_CAUSES + N_OWN_CAUSES + 13 + 5 + 19);
	test_mtu_fixed();
	test_mtu_auto();
	test_unreach();
	test_df_peers();
	test_icmp_text();
	test_send_failed();
	test_circular();
	return done_testing();
}
