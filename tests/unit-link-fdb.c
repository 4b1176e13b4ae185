// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the devices and forwarding databases link.c makes and
 * watches, against the kernel in a network namespace of the test's own:
 * a bridge, a vxlan device (nolearning, its own port) and a veth pair as
 * its port, made with link_add(); a static entry on the port
 * (link_fdb_set()), checked with iproute2's bridge(8); entries such as
 * FRR's zebra writes on a vxlan device (`self extern_learn dst VTEP`,
 * and the all-zeros flood entries), written with bridge(8) and seen by
 * the watch as they come and go, and in a dump; a watch whose socket
 * overflows says so.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include "base/log.h"
#include "sys/link.h"
#include "tap.h"

#define BR "gtbr100"
#define VX "gtvx100"
#define PORT "gtpo100"
#define PEER "gtpi100"
#define VTEP "198.18.0.9"
#define VTEP2 "198.18.0.10"

static const uint8_t mac_local[MAC_LEN] = { 0x02, 0x00, 0x5e, 0, 0, 1 };
static const uint8_t mac_remote[MAC_LEN] = { 0x02, 0x00, 0x5e, 0, 0, 2 };
static const uint8_t mac_zero[MAC_LEN];

/* What the watch said, since the last seen_reset(). */
static struct seen {
	unsigned int entries, dumped, lost;
	int dump_err;
	struct link_fdb last[64];
	unsigned int n;
} seen;

static void seen_entry(void *ctx, const struct link_fdb *e)
{
	(void)ctx;
	seen.entries++;
	if (seen.n < sizeof(seen.last) / sizeof(seen.last[0]))
		seen.last[seen.n++] = *e;
}

static void seen_dumped(void *ctx, int err)
{
	(void)ctx;
	seen.dumped++;
	seen.dump_err = err;
}

static void seen_lost(void *ctx)
{
	(void)ctx;
	seen.lost++;
}

static const struct link_fdb_ops ops = {
	.entry = seen_entry, .dumped = seen_dumped, .lost = seen_lost,
};

static void seen_reset(void)
{
	memset(&seen, 0, sizeof(seen));
}

/* Read the watch until quiet for 200 ms. */
static void watch_drain(struct link_watch *w)
{
	struct pollfd p = { .fd = link_watch_fd(w), .events = POLLIN };

	while (poll(&p, 1, 200) == 1)
		while (link_fdb_watch_read(w, &ops, NULL, 64))
			;
}

/* The entry of mac seen last on ifindex, or NULL. */
static const struct link_fdb *seen_of(const uint8_t *mac, unsigned int ifindex)
{
	unsigned int i;

	for (i = seen.n; i-- > 0;)
		if (!memcmp(seen.last[i].mac, mac, MAC_LEN) &&
		    seen.last[i].ifindex == ifindex)
			return &seen.last[i];
	return NULL;
}

static bool is_vtep(const struct ipaddr *a, const char *text)
{
	struct in_addr want;

	inet_pton(AF_INET, text, &want);
	return a->family == AF_INET && !memcmp(&a->addr, &want, sizeof(want));
}

/* The lines of `bridge fdb show dev DEV` that hold what. */
static unsigned int bridge_shows(const char *dev, const char *what)
{
	char cmd[128], line[512];
	unsigned int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "bridge fdb show dev %s 2>&1", dev);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			n++;
	pclose(f);
	return n;
}

static int run(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
}

/* lo up in a network namespace of our own (a user one too if need be). */
static int own_namespace(struct link **l)
{
	if (unshare(CLONE_NEWNET) && unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return -errno;
	*l = link_open();
	if (!*l)
		return -EIO;
	return link_set_up(*l, if_nametoindex("lo"));
}

struct devs {
	unsigned int br, vx, port, peer;
};

static void test_make(struct link *l, struct devs *d)
{
	struct link_spec br = { .name = BR, .kind = "bridge" };
	struct link_spec vx = { .name = VX, .kind = "vxlan", .vni = 100,
				.port = 48879 };
	struct link_spec po = { .name = PORT, .kind = "veth", .peer = PEER };
	bool up = false;

	vx.local.family = AF_INET;
	inet_pton(AF_INET, "198.18.0.1", &vx.local.addr);
	ok(!link_add(l, &br) && (d->br = if_nametoindex(BR)),
	   "link_add: a bridge");
	is_int(link_add(l, &br), -EEXIST, "link_add of a name taken: -EEXIST");
	vx.master = po.master = d->br;
	ok(!link_add(l, &vx) && (d->vx = if_nametoindex(VX)),
	   "link_add: a vxlan device, VNI 100, its own port, in the bridge");
	ok(!link_add(l, &po) && (d->port = if_nametoindex(PORT)) &&
		   (d->peer = if_nametoindex(PEER)),
	   "link_add: a veth pair, one end in the bridge");
	ok(!run("ip -d link show " VX " | grep -q 'id 100 local 198.18.0.1 "
		".*dstport 48879 .*nolearning'"),
	   "ip -d link: vxlan id 100 local 198.18.0.1 dstport 48879 "
	   "nolearning");
	ok(!run("ip link show " VX " | grep -q 'master " BR "'") &&
		   !run("ip link show " PORT " | grep -q 'master " BR "'") &&
		   run("ip link show " PEER " | grep -q master"),
	   "ip link: the vxlan device and one veth end are the bridge's "
	   "ports");
	ok(!link_set_up(l, d->br) && !link_set_up(l, d->vx) &&
		   !link_set_up(l, d->port) && !link_set_up(l, d->peer) &&
		   !link_is_up(l, d->port, &up) && up,
	   "all four up, the port running");
	usleep(300000);
	ok(run("ip -6 addr show | grep -q 'inet6 fe80'"),
	   "addrgenmode none: none of them has an IPv6 address");
}

static void test_local(struct link *l, struct link_watch *w,
		       const struct devs *d)
{
	const struct link_fdb *e;

	seen_reset();
	ok(!link_fdb_set(l, d->port, mac_local, true) &&
		   bridge_shows(PORT, "02:00:5e:00:00:01 master " BR
				      " static") == 1,
	   "link_fdb_set: bridge fdb shows 02:00:5e:00:00:01 master static");
	watch_drain(w);
	e = seen_of(mac_local, d->port);
	/* The bridge says NDA_MASTER, and no NTF_MASTER in ndm_flags. */
	ok(e && !e->del && e->master == d->br && e->state == NUD_NOARP &&
		   !e->dst.family,
	   "the watch: the new entry, its port, its bridge, static");
	ok(!link_fdb_set(l, d->port, mac_local, true) &&
		   bridge_shows(PORT, "02:00:5e:00:00:01") == 1,
	   "link_fdb_set again: replaced, not refused, once");
	seen_reset();
	ok(!link_fdb_set(l, d->port, mac_local, false) &&
		   bridge_shows(PORT, "02:00:5e:00:00:01") == 0,
	   "link_fdb_set del: gone");
	watch_drain(w);
	e = seen_of(mac_local, d->port);
	ok(e && e->del, "the watch: the entry gone");
	ok(!link_fdb_set(l, d->port, mac_local, false),
	   "link_fdb_set del of one not there: 0");
}

static void test_remote(struct link_watch *w, const struct devs *d)
{
	const struct link_fdb *e;

	seen_reset();
	ok(!run("bridge fdb add 02:00:5e:00:00:02 dev " VX " dst " VTEP
		" self extern_learn") &&
		   !run("bridge fdb append 00:00:00:00:00:00 dev " VX
			" dst " VTEP " self permanent") &&
		   !run("bridge fdb append 00:00:00:00:00:00 dev " VX
			" dst " VTEP2 " self permanent"),
	   "bridge fdb: a remote MAC and two flood entries, as zebra "
	   "writes them");
	watch_drain(w);
	e = seen_of(mac_remote, d->vx);
	ok(e && !e->del && is_vtep(&e->dst, VTEP) &&
		   (e->flags & NTF_EXT_LEARNED) && (e->flags & NTF_SELF),
	   "the watch: the remote MAC, its VTEP, extern_learn, self");
	e = seen_of(mac_zero, d->vx);
	ok(e && !e->del && is_vtep(&e->dst, VTEP2) &&
		   (e->state & NUD_PERMANENT),
	   "the watch: the all-zeros flood entry of the second VTEP");


	seen_reset();
	ok(!link_fdb_dump(w), "link_fdb_dump: asked");
	watch_drain(w);
	ok(seen.dumped == 1 && seen_of(mac_remote, d->vx) &&
		   seen.lost == 0,
	   "the dump: every entry, the remote one among them, and its end "
	   "(%u entries)", seen.entries);
	{
		unsigned int i, zero = 0;

		for (i = 0; i < seen.n; i++)
			zero += seen.last[i].ifindex == d->vx &&
				!memcmp(seen.last[i].mac, mac_zero, MAC_LEN);
		is_int(zero, 2, "the dump: both flood entries");
	}

	seen_reset();
	ok(!run("bridge fdb del 02:00:5e:00:00:02 dev " VX " self") &&
		   !run("bridge fdb del 00:00:00:00:00:00 dev " VX " dst "
			VTEP " self"),
	   "bridge fdb del: the remote MAC, one flood entry");
	watch_drain(w);
	e = seen_of(mac_remote, d->vx);
	ok(e && e->del, "the watch: the remote MAC gone");
	e = seen_of(mac_zero, d->vx);
	ok(e && e->del && is_vtep(&e->dst, VTEP),
	   "the watch: the flood entry of the first VTEP gone");
}

/* A socket buffer too small for what comes: the watch says it lost. */
static void test_overrun(struct link *l, struct link_watch *w,
			 const struct devs *d)
{
	int small = 1;
	uint8_t mac[MAC_LEN] = { 0x02, 0x00, 0x5e, 0x01, 0, 0 };
	unsigned int i, bad = 0;

	setsockopt(link_watch_fd(w), SOL_SOCKET, SO_RCVBUF, &small,
		   sizeof(small));
	seen_reset();
	for (i = 0; i < 300; i++) {
		mac[5] = (uint8_t)i;
		mac[4] = (uint8_t)(i >> 8);
		bad += link_fdb_set(l, d->port, mac, true) != 0;
	}
	watch_drain(w);
	ok(!bad && seen.lost >= 1 && seen.entries < 300,
	   "300 entries into a tiny socket buffer: the watch says it lost "
	   "some (%u seen, %u losses)", seen.entries, seen.lost);
}

/* Messages that do not read are losses, never read past their end. */
static void test_parse(void)
{
	uint32_t words[64] = { 0 };
	struct nlmsghdr *nlh = (struct nlmsghdr *)words;
	struct link_fdb_dump d = { 0 };

	seen_reset();
	nlh->nlmsg_len = sizeof(*nlh) + 4;
	nlh->nlmsg_type = RTM_NEWNEIGH;
	link_fdb_parse(&d, words, nlh->nlmsg_len, &ops, NULL);
	ok(seen.lost == 1 && !seen.entries,
	   "a neighbour message shorter than its ndmsg: a loss");
	seen_reset();
	nlh->nlmsg_len = 4096;
	link_fdb_parse(&d, words, 64, &ops, NULL);
	ok(seen.lost == 1 && !seen.entries,
	   "a message longer than the buffer: a loss");
}

/* put_msg BUF TYPE FLAGS SEQ ERR: a message of an int payload. */
static size_t put_msg(uint32_t *words, uint16_t type, uint16_t flags,
		      uint32_t seq, int err)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)words;

	memset(words, 0, 64);
	nlh->nlmsg_len = sizeof(*nlh) + sizeof(struct ndmsg);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	if (type == RTM_NEWNEIGH)
		((struct ndmsg *)(nlh + 1))->ndm_family = PF_BRIDGE;
	else
		memcpy(nlh + 1, &err, sizeof(err));
	return nlh->nlmsg_len;
}

/* The end of a dump: whole, failed, interrupted, or another's. */
static void test_dump_end(void)
{
	struct link_fdb_dump d = { .seq = 7 };
	uint32_t words[16];
	size_t n;

	seen_reset();
	n = put_msg(words, NLMSG_DONE, NLM_F_MULTI, 6, 0);
	link_fdb_parse(&d, words, n, &ops, NULL);
	ok(!seen.dumped && !seen.lost && d.seq == 7,
	   "the end of another dump (an older one's) ends nothing");
	n = put_msg(words, NLMSG_DONE, NLM_F_MULTI, 7, 0);
	link_fdb_parse(&d, words, n, &ops, NULL);
	ok(seen.dumped == 1 && !seen.dump_err && !d.seq,
	   "NLMSG_DONE of the dump: whole");
	seen_reset();
	d.seq = 8;
	n = put_msg(words, NLMSG_DONE, NLM_F_MULTI, 8, -EMSGSIZE);
	link_fdb_parse(&d, words, n, &ops, NULL);
	ok(seen.dumped == 1 && seen.dump_err == -EMSGSIZE,
	   "NLMSG_DONE with an error: the dump failed with it");
	seen_reset();
	d.seq = 9;
	n = put_msg(words, NLMSG_ERROR, 0, 9, -EBUSY);
	link_fdb_parse(&d, words, n, &ops, NULL);
	ok(seen.dumped == 1 && seen.dump_err == -EBUSY && !seen.lost,
	   "NLMSG_ERROR to the dump's request: failed with its error");
	seen_reset();
	d.seq = 10;
	n = put_msg(words, RTM_NEWNEIGH, NLM_F_MULTI | NLM_F_DUMP_INTR, 10, 0);
	link_fdb_parse(&d, words, n, &ops, NULL);
	n = put_msg(words, NLMSG_DONE, NLM_F_MULTI, 10, 0);
	link_fdb_parse(&d, words, n, &ops, NULL);
	ok(seen.dumped == 1 && seen.dump_err == -EINTR,
	   "an entry flagged NLM_F_DUMP_INTR: the dump ends interrupted");
}

int main(void)
{
	struct link_watch *w;
	struct link *l = NULL;
	struct devs d = { 0 };
	int err;

	log_level = LOG_LVL_WARN;
	plan(2 + 5 + 8 + 6 + 9 + 1 + 1);
	test_parse();
	test_dump_end();
	err = own_namespace(&l);
	if (err || run("command -v bridge >/dev/null")) {
		printf("# no network namespace of our own or no bridge(8): "
		       "%s\n", strerror(-err));
		for (; tap_n < 32;)
			printf("ok %d - # SKIP needs a network namespace and "
			       "iproute2\n", ++tap_n);
		return done_testing();
	}
	w = link_fdb_watch_open();
	if (!w) {
		printf("Bail out! no rtnetlink watch\n");
		return 1;
	}
	test_make(l, &d);
	if (!d.br || !d.vx || !d.port) {
		printf("Bail out! the devices could not be made\n");
		return 1;
	}
	test_local(l, w, &d);
	test_remote(w, &d);
	test_overrun(l, w, &d);
	ok(!link_del(l, d.vx) && !link_del(l, d.port) && !link_del(l, d.br) &&
		   !if_nametoindex(BR) && !if_nametoindex(VX) &&
		   !if_nametoindex(PORT) && !if_nametoindex(PEER) &&
		   !link_del(l, d.vx),
	   "link_del: all gone (the veth's peer with it), again: 0");
	link_watch_close(w);
	link_close(l);
	return done_testing();
}
