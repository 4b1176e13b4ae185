// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of a device's forwarding table (fwd.c) and of the port's
 * peers (port.c), on devices set up from an argv in a network namespace
 * of the test's own: the --fdb entries each tap takes, what learning
 * counts and says, entries added, removed, replaced and aged, the
 * source the queues learnt last forgotten, peers added, removed and read
 * again from a --peers file.
 */
#include "config.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include "conf/optvalue.h"
#include "dev/fwd.h"
#include "devenv.h"

#define S 1000000000ull

/* MAC 52:54:00:00:00:n. */
static const uint8_t *mac(unsigned int n)
{
	static uint8_t m[16][ETH_ALEN];
	static unsigned int next;
	uint8_t *p = m[next++ % 16];

	memcpy(p, (uint8_t[]){ 0x52, 0x54, 0, 0, 0, (uint8_t)n }, ETH_ALEN);
	return p;
}

/* An argv of the words of fmt, split at spaces, after "gsotun". */
static int argv_of(char **argv, int max, char *words)
{
	int n = 0;

	argv[n++] = "gsotun";
	for (char *w = strtok(words, " "); w && n < max - 1;
	     w = strtok(NULL, " "))
		argv[n++] = w;
	argv[n] = NULL;
	return n;
}

static void open_env(struct env *e, const char *fmt, ...)
{
	static char words[1024];
	char *argv[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	env_open(e, argv_of(argv, 64, words), argv);
}

static int lookup(const struct device *d, unsigned int m, uint16_t vlan)
{
	return fdb_lookup(&d->s.fdb, mac(m), vlan, clock_now_ns());
}

static int lookup_static(const struct device *d, unsigned int m, uint16_t vlan)
{
	return fdb_lookup_static(&d->s.fdb, mac(m), vlan);
}

static struct config_fdb fdb_entry(unsigned int m, const char *peer,
				   const char *dev)
{
	struct config_fdb f = { .vlan = 0 };

	memcpy(f.mac, mac(m), ETH_ALEN);
	optvalue_ip_parse(peer, &f.peer);
	snprintf(f.dev, sizeof(f.dev), "%s", dev);
	return f;
}

/*
 * The main tap ut-a and ut-b (VNI 2), three peers, --fdb entries for
 * both, for ut-a, for ut-b.
 */
#define TWO_TAPS                                                              \
	"--dev ut-a --vni 2=ut-b --mtu 1400 --learning "                      \
	"--remote 198.18.0.2 --remote 198.18.0.3 --remote 198.18.0.4 "        \
	"--fdb 52:54:00:00:00:01=198.18.0.2 "                                 \
	"--fdb ut-a=52:54:00:00:00:02=198.18.0.3 "                            \
	"--fdb ut-b=52:54:00:00:00:03=198.18.0.4 "                            \
	"--fdb 52:54:00:00:00:04@7=198.18.0.3"

static void test_open(struct env *e)
{
	const struct device *a = &e->dev[0], *b = &e->dev[1];
	int p2 = env_peer(e, "198.18.0.2"), p3 = env_peer(e, "198.18.0.3");
	int p4 = env_peer(e, "198.18.0.4");

	ok(p2 >= 0 && p3 >= 0 && p4 >= 0 && e->port.n_dev == 2,
	   "two devices, three peers");
	is_int(fdb_count_static(&a->s.fdb), 3,
	       "fwd_open: ut-a holds the entries of every tap and its own");
	ok(lookup_static(a, 1, 0) == p2 && lookup_static(a, 2, 0) == p3 &&
		   lookup_static(a, 4, 7) == p3,
	   "each to its peer, the VLAN's too");
	is_int(lookup_static(a, 3, 0), -ENOENT,
	       "not the entry with DEV= of the other tap");
	is_int(fdb_count_static(&b->s.fdb), 3,
	       "ut-b holds the entries of every tap and its own");
	ok(lookup_static(b, 3, 0) == p4 && lookup_static(b, 1, 0) == p2 &&
		   lookup_static(b, 4, 7) == p3 &&
		   lookup_static(b, 2, 0) == -ENOENT,
	   "ut-b: its own and the shared one, not ut-a's");
}

static void test_learn(struct env *e)
{
	struct device *a = &e->dev[0];
	int p2 = env_peer(e, "198.18.0.2"), p3 = env_peer(e, "198.18.0.3");
	int p4 = env_peer(e, "198.18.0.4");
	uint64_t t = clock_now_ns();
	const char *log;

	is_int(fwd_learn(a, p2, mac(0x20), 0, t), DROP_NONE,
	       "a new source: taken");
	ok(a->st.rx_learnt == 1 && lookup(a, 0x20, 0) == p2,
	   "rx_learnt 1, and frames to it go to its peer");
	fwd_learn(a, p2, mac(0x20), 0, t + 1000);
	ok(a->st.rx_learnt == 1 && a->st.rx_learn_moved == 0,
	   "seen again from the same peer: nothing counted");
	is_int(lookup(&e->dev[1], 0x20, 0), -ENOENT,
	       "the other tap did not learn it");

	env_log_start();
	fwd_learn(a, p3, mac(0x20), 0, t + S / 100);
	fwd_learn(a, p2, mac(0x20), 0, t + S / 2);
	fwd_learn(a, p3, mac(0x20), 0, t + S / 100 + S);
	log = env_log_end();
	is_int(a->st.rx_learn_moved, 3, "three moves: rx_learn_moved 3");
	is_int(a->st.rx_learnt, 1, "a move is not a new entry");
	is_int(lookup(a, 0x20, 0), p3, "it is where it was seen last");
	is_int(env_count(log, "moved from peer"), 2,
	       "moves said once a second at most: the first and the third");
	ok(strstr(log, "52:54:00:00:00:20 (VLAN 0) moved from peer "
		       "198.18.0.2 to peer 198.18.0.3") != NULL,
	   "the first names the MAC and both peers");
	ok(strstr(log, "(and 1 more since)") != NULL,
	   "the next one counts the one held back");

	is_int(fwd_learn(a, p4, mac(1), 0, t + 2 * S), DROP_RX_MAC_STATIC,
	       "a MAC --fdb fixes to another peer: DROP_RX_MAC_STATIC");
	is_int(lookup(a, 1, 0), p2, "and the entry stays");
	is_int(fwd_learn(a, p2, mac(1), 0, t + 2 * S), DROP_NONE,
	       "from its own peer: not a drop");
	ok(a->st.rx_learnt == 1 && a->st.rx_learn_moved == 3,
	   "neither learnt nor moved");
}

/* The queue's source learnt last, set to something to forget. */
static void set_last(struct device *d)
{
	d->q[0].rx.last.peer = 1;
}

static void test_fdb_add_del(struct env *e)
{
	struct device *a = &e->dev[0];
	struct config_fdb f = fdb_entry(0x10, "198.18.0.9", "");
	int p4 = env_peer(e, "198.18.0.4");

	set_last(a);
	is_int(fwd_fdb_add(a, &f), -ENOENT, "fwd_fdb_add to a non-peer");
	f = fdb_entry(0x10, "fd00::4", "");
	is_int(fwd_fdb_add(a, &f), -ENOENT, "to an address of another family");
	is_int(fdb_count_static(&a->s.fdb), 3, "neither was added");
	f = fdb_entry(0x10, "198.18.0.4", "");
	is_int(fwd_fdb_add(a, &f), 0, "to a peer: 0");
	ok(lookup_static(a, 0x10, 0) == p4 && fdb_count_static(&a->s.fdb) == 4,
	   "it is in the table");
	is_int(a->q[0].rx.last.peer, -1,
	       "the queue's source learnt last is forgotten");
	set_last(a);
	is_int(fwd_fdb_del(a, mac(0x99), 0), -ENOENT,
	       "fwd_fdb_del of an entry not held: -ENOENT");
	set_last(a);
	is_int(fwd_fdb_del(a, mac(0x10), 0), 0, "of one held: 0");
	ok(lookup_static(a, 0x10, 0) == -ENOENT &&
		   fdb_count_static(&a->s.fdb) == 3,
	   "it is gone");
	is_int(a->q[0].rx.last.peer, -1, "the source learnt last forgotten");
}

static void test_replace(struct env *e)
{
	struct device *a = &e->dev[0], *b = &e->dev[1];
	struct config *c = &e->cfg;
	struct config_fdb old[8];
	unsigned int n_old = c->n_fdb;
	int p2 = env_peer(e, "198.18.0.2"), p3 = env_peer(e, "198.18.0.3");
	int p4 = env_peer(e, "198.18.0.4");

	fwd_learn(a, p2, mac(0x21), 0, clock_now_ns());
	memcpy(old, c->fdb, n_old * sizeof(*old));
	/* What a reload of --peers makes of the config's entries. */
	c->fdb[0] = fdb_entry(1, "198.18.0.4", "");
	c->fdb[1] = fdb_entry(5, "198.18.0.3", "ut-a");
	c->fdb[2] = fdb_entry(6, "198.18.0.3", "ut-b");
	c->n_fdb = 3;
	set_last(a);
	ok(fwd_replace_static(a, old, n_old) == 0 &&
		   fwd_replace_static(b, old, n_old) == 0,
	   "fwd_replace_static: 0 on both taps");
	is_int(fdb_count_static(&a->s.fdb), 2, "ut-a: two entries now");
	ok(lookup_static(a, 1, 0) == p4 && lookup_static(a, 5, 0) == p3,
	   "the new ones, the shared one to its new peer");
	ok(lookup_static(a, 2, 0) == -ENOENT &&
		   lookup_static(a, 4, 7) == -ENOENT,
	   "the old ones gone");
	is_int(lookup(a, 0x21, 0), p2, "a learnt entry stays");
	is_int(a->q[0].rx.last.peer, -1, "the source learnt last forgotten");
	ok(fdb_count_static(&b->s.fdb) == 2 && lookup_static(b, 6, 0) == p3 &&
		   lookup_static(b, 1, 0) == p4 &&
		   lookup_static(b, 3, 0) == -ENOENT,
	   "ut-b: its new ones, its old one gone");
}

static void test_forget_peer(struct env *e)
{
	struct device *a = &e->dev[0], *b = &e->dev[1];
	int p2 = env_peer(e, "198.18.0.2"), p3 = env_peer(e, "198.18.0.3");
	int p4 = env_peer(e, "198.18.0.4");

	/* ut-a: 0x20 learnt at p3, 0x21 at p2; 1 static to p4, 5 to p3. */
	set_last(a);
	fwd_forget_peer(a, p3);
	ok(lookup(a, 0x20, 0) == -ENOENT && lookup_static(a, 5, 0) == -ENOENT,
	   "fwd_forget_peer: its learnt and static entries gone");
	is_int(fdb_count_peer(&a->s.fdb, p3), 0, "none left behind it");
	ok(lookup(a, 0x21, 0) == p2 && lookup_static(a, 1, 0) == p4,
	   "the other peers' stay");
	is_int(a->q[0].rx.last.peer, -1, "the source learnt last forgotten");
	is_int(lookup_static(b, 6, 0), p3, "the other tap's are its own");
}

static void test_ageing(void)
{
	struct env e;
	struct device *d = &e.dev[0];
	uint64_t now = clock_now_ns();
	int p2, p3;

	open_env(&e, "--dev ut-a --mtu 1400 --learning --ageing 1 "
		     "--remote 198.18.0.2 --remote 198.18.0.3");
	p2 = env_peer(&e, "198.18.0.2");
	p3 = env_peer(&e, "198.18.0.3");
	fwd_watch(d);
	ok(ev_is_active(&d->fwd.age_w), "--learning: the ageing timer runs");
	fwd_learn(d, p2, mac(0x30), 0, now - 2 * S);
	fwd_learn(d, p3, mac(0x31), 0, now);
	is_int(fdb_count_learnt(&d->s.fdb), 2, "two learnt");
	ev_invoke(e.loop, &d->fwd.age_w, EV_TIMER);
	is_int(fdb_count_learnt(&d->s.fdb), 1,
	       "the timer: the one not seen for --ageing 1 s is swept");
	ok(lookup(d, 0x30, 0) == -ENOENT && lookup(d, 0x31, 0) == p3,
	   "the one seen just now stays");
	env_close(&e);

	open_env(&e, "--dev ut-a --mtu 1400 --learning --ageing 0 "
		     "--remote 198.18.0.2");
	fwd_watch(&e.dev[0]);
	ok(!ev_is_active(&e.dev[0].fwd.age_w), "--ageing 0: no timer");
	env_close(&e);
}

static void test_full(void)
{
	struct env e;
	struct device *d = &e.dev[0];
	uint64_t t = clock_now_ns();
	const char *log;
	int p2, p3;

	open_env(&e, "--dev ut-a --mtu 1400 --learning --max-address 4 "
		     "--remote 198.18.0.2 --remote 198.18.0.3");
	p2 = env_peer(&e, "198.18.0.2");
	p3 = env_peer(&e, "198.18.0.3");
	fwd_learn(d, p2, mac(0x40), 0, t);
	fwd_learn(d, p2, mac(0x41), 0, t + 1);
	fwd_learn(d, p3, mac(0x42), 0, t + 2);
	fwd_learn(d, p3, mac(0x43), 0, t + 3);
	ok(d->st.rx_learnt == 4 && d->st.rx_learn_replaced == 0,
	   "--max-address 4: four learnt, the table full");
	env_log_start();
	is_int(fwd_learn(d, p3, mac(0x44), 0, t + 4), DROP_NONE,
	       "a fifth from a peer at its share (2): taken");
	log = env_log_end();
	ok(d->st.rx_learn_replaced == 1 && d->st.rx_learnt == 5,
	   "rx_learn_replaced 1, rx_learnt 5");
	ok(lookup(d, 0x42, 0) == -ENOENT && lookup(d, 0x44, 0) == p3 &&
		   lookup(d, 0x40, 0) == p2 && lookup(d, 0x41, 0) == p2,
	   "in place of its own oldest; the other peer's stay");
	ok(strstr(log, "peer 198.18.0.3 holds its share of the forwarding "
		       "table (2 of 4") != NULL,
	   "said, naming the peer and its share");
	env_close(&e);

	open_env(&e, "--dev ut-a --mtu 1400 --learning --max-address 1 "
		     "--remote 198.18.0.2 --remote 198.18.0.3");
	p2 = env_peer(&e, "198.18.0.2");
	p3 = env_peer(&e, "198.18.0.3");
	fwd_learn(d, p2, mac(0x40), 0, t);
	is_int(fwd_learn(d, p3, mac(0x41), 0, t + 1), DROP_NONE,
	       "--max-address 1, two peers: a second MAC is not a drop");
	ok(d->st.rx_learn_full == 1 && d->st.rx_learnt == 1,
	   "but not learnt: rx_learn_full 1");
	ok(lookup(d, 0x41, 0) == -ENOENT && lookup(d, 0x40, 0) == p2,
	   "the first peer keeps its one entry");
	env_close(&e);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static void test_peers(void)
{
	struct env e;
	struct device *a = &e.dev[0], *b = &e.dev[1];
	struct config_fdb f = fdb_entry(0x50, "198.18.0.5", "");
	struct ipaddr ip;
	int p5;

	open_env(&e, "--dev ut-a --vni 2=ut-b --mtu 1400 --learning "
		     "--remote 198.18.0.2 --remote 198.18.0.3");
	optvalue_ip_parse("198.18.0.2", &ip);
	is_int(port_peer_add(&e.port, &ip), -EEXIST,
	       "port_peer_add of a peer: -EEXIST");
	optvalue_ip_parse("198.18.0.5", &ip);
	is_int(port_peer_add(&e.port, &ip), 0, "of a new one: 0");
	p5 = env_peer(&e, "198.18.0.5");
	ok(p5 >= 0 && e.port.peers.n == 3, "three peers now");
	fwd_learn(a, p5, mac(0x51), 0, clock_now_ns());
	fwd_learn(b, p5, mac(0x52), 0, clock_now_ns());
	fwd_fdb_add(a, &f);
	fwd_fdb_add(b, &f);
	a->q[0].rx.last.peer = b->q[0].rx.last.peer = p5;

	optvalue_ip_parse("198.18.0.9", &ip);
	is_int(port_peer_del(&e.port, &ip), -ENOENT,
	       "port_peer_del of a stranger: -ENOENT");
	optvalue_ip_parse("fd00::2", &ip);
	is_int(port_peer_del(&e.port, &ip), -ENOENT,
	       "of an address of another family: -ENOENT");
	is_int(e.port.peers.n, 3, "nobody went");
	optvalue_ip_parse("198.18.0.5", &ip);
	is_int(port_peer_del(&e.port, &ip), 0, "of a peer: 0");
	ok(e.port.peers.n == 2 && env_peer(&e, "198.18.0.5") == -ENOENT,
	   "it is gone");
	ok(!fdb_count_peer(&a->s.fdb, p5) && !fdb_count_peer(&b->s.fdb, p5) &&
		   lookup(a, 0x51, 0) == -ENOENT &&
		   lookup(b, 0x52, 0) == -ENOENT,
	   "with its learnt entries, in every device");
	ok(lookup_static(a, 0x50, 0) == -ENOENT &&
		   lookup_static(b, 0x50, 0) == -ENOENT,
	   "and its static ones");
	ok(a->q[0].rx.last.peer == -1 && b->q[0].rx.last.peer == -1,
	   "every queue forgot the source it learnt last");
	optvalue_ip_parse("198.18.0.3", &ip);
	is_int(port_peer_del(&e.port, &ip), 0, "another one: 0");
	optvalue_ip_parse("198.18.0.2", &ip);
	is_int(port_peer_del(&e.port, &ip), 0, "the last one: 0");
	ok(e.port.peers.n == 0 && env_peer(&e, "198.18.0.2") == -ENOENT,
	   "no peer left");
	is_int(port_peer_add(&e.port, &ip), 0, "and one added again: 0");
	ok(e.port.peers.n == 1 && env_peer(&e, "198.18.0.2") >= 0,
	   "it is the one peer");
	env_close(&e);
}

/* A port that starts with --local and an empty --peers: none, and more. */
static void test_no_peer(void)
{
	char dir[] = "/tmp/unit-fwd.XXXXXX", file[64];
	struct config_fdb f = fdb_entry(0x60, "198.18.0.6", "");
	struct env e;
	struct device *a = &e.dev[0];
	struct ipaddr ip;
	const char *log;
	int p6;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	snprintf(file, sizeof(file), "%s/peers", dir);
	write_file(file, "# none yet\n");
	open_env(&e, "--dev ut-a --mtu 1400 --local 198.18.0.1 --peers %s",
		 file);
	is_int(e.port.peers.n, 0, "--local and an empty --peers: no peer");
	optvalue_ip_parse("198.18.0.6", &ip);
	is_int(port_peer_add(&e.port, &ip), 0, "port_peer_add: 0");
	p6 = env_peer(&e, "198.18.0.6");
	fwd_fdb_add(a, &f);
	ok(p6 >= 0 && lookup_static(a, 0x60, 0) == p6,
	   "the first peer, with an entry to it");
	is_int(port_peer_del(&e.port, &ip), 0, "port_peer_del of it: 0");
	ok(e.port.peers.n == 0 && lookup_static(a, 0x60, 0) == -ENOENT &&
		   !fdb_count_static(&a->s.fdb),
	   "no peer, and no entry to the one gone");

	write_file(file, "remote 198.18.0.7\n");
	port_reload(&e.port);
	ok(e.port.peers.n == 1 && env_peer(&e, "198.18.0.7") >= 0,
	   "port_reload of a file with a peer: it comes");
	write_file(file, "\n");
	env_log_start();
	port_reload(&e.port);
	log = env_log_end();
	ok(e.port.peers.n == 0 && env_peer(&e, "198.18.0.7") == -ENOENT,
	   "port_reload of an empty file: taken, no peer left");
	ok(strstr(log, "0 peers (1 gone)") && strstr(log, "holds none"),
	   "said so");
	env_close(&e);
	unlink(file);
	rmdir(dir);
}

static void test_reload(void)
{
	char dir[] = "/tmp/unit-fwd.XXXXXX", file[64];
	struct env e;
	struct device *a = &e.dev[0], *b = &e.dev[1];
	int p2, p3, p4;
	const char *log;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	snprintf(file, sizeof(file), "%s/peers", dir);
	write_file(file, "remote 198.18.0.3\n"
			 "fdb 52:54:00:00:00:31=198.18.0.3\n");
	open_env(&e, "--dev ut-a --vni 2=ut-b --mtu 1400 --learning "
		     "--remote 198.18.0.2 --fdb 52:54:00:00:00:21=198.18.0.2 "
		     "--peers %s", file);
	p2 = env_peer(&e, "198.18.0.2");
	p3 = env_peer(&e, "198.18.0.3");
	ok(p3 >= 0 && lookup_static(a, 0x31, 0) == p3 &&
		   lookup_static(b, 0x31, 0) == p3,
	   "--peers: its peer and its entry, in both taps");
	fwd_learn(a, p3, mac(0x32), 0, clock_now_ns());
	fwd_learn(b, p3, mac(0x33), 0, clock_now_ns());

	write_file(file, "remote 198.18.0.4\n"
			 "fdb 52:54:00:00:00:41=198.18.0.4\n"
			 "fdb ut-b=52:54:00:00:00:42=198.18.0.2\n");
	port_reload(&e.port);
	p4 = env_peer(&e, "198.18.0.4");
	ok(e.port.peers.n == 2 && p4 >= 0 &&
		   env_peer(&e, "198.18.0.3") == -ENOENT,
	   "port_reload: the file's new peer in, its old one out");
	ok(lookup(a, 0x32, 0) == -ENOENT && lookup(b, 0x33, 0) == -ENOENT,
	   "the old peer's learnt entries gone in every device");
	ok(lookup_static(a, 0x31, 0) == -ENOENT &&
		   lookup_static(b, 0x31, 0) == -ENOENT,
	   "its static entry gone");
	ok(lookup_static(a, 0x41, 0) == p4 && lookup_static(b, 0x41, 0) == p4,
	   "the file's new entry in both");
	ok(lookup_static(b, 0x42, 0) == p2 &&
		   lookup_static(a, 0x42, 0) == -ENOENT,
	   "its entry with DEV= in that tap alone");
	ok(lookup_static(a, 0x21, 0) == p2 && lookup_static(b, 0x21, 0) == p2,
	   "the command line's entry stays");

	write_file(file, "remote 198.18.0.9\nbogus line\n");
	env_log_start();
	port_reload(&e.port);
	log = env_log_end();
	ok(e.port.peers.n == 2 && env_peer(&e, "198.18.0.9") == -ENOENT &&
		   env_peer(&e, "198.18.0.4") == p4,
	   "a file that does not parse: the peers unchanged");
	ok(fdb_count_static(&a->s.fdb) == 2 &&
		   lookup_static(a, 0x41, 0) == p4 &&
		   fdb_count_static(&b->s.fdb) == 3,
	   "and the entries");
	ok(strstr(log, "peers unchanged") != NULL, "said so");
	env_close(&e);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	struct env e;

	env_netns();
	plan(89);
	open_env(&e, TWO_TAPS);
	test_open(&e);
	test_learn(&e);
	test_fdb_add_del(&e);
	test_replace(&e);
	test_forget_peer(&e);
	env_close(&e);
	test_ageing();
	test_full();
	test_peers();
	test_reload();
	test_no_peer();
	return done_testing();
}
