// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotun: set-up, the libev loop that runs the transmit (tx.c) and receive
 * (rx.c) paths and the path policy (path.c), signals and shutdown.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ev.h>
#include "daemon.h"
#include "encap.h"
#include "link.h"
#include "log.h"
#include "priv.h"
#include "tap.h"
#include "tunnel.h"

/*
 * Submission queue entries: a batch of reads and the sends of another,
 * one per UDP GSO run (a few per batch) or, for raw GRE, per segment (a
 * full ring is run and refilled).
 */
#define RING_ENTRIES 512

/* What set-up opens and the loop watches, beside the tunnel's parts. */
struct gsotun {
	struct tunnel t;
	struct pidfile pidfile;
	ev_io ring_w;
	ev_signal sigint_w, sigterm_w, sighup_w, sigusr1_w;
};

void tunnel_done(void *ctx, uint64_t data, int res)
{
	struct tunnel *t = ctx;

	if (TAG_KIND(data) == TAG_WRITE)
		rx_done(t, (uint32_t)data, res);
	else
		tx_done(t, data, res);
}

/* Completions that came after their submission: sends that waited. */
static void ring_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;

	ring_ack(&t->ring);
	ring_reap(&t->ring, tunnel_done, t);
}

static void stop_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	log_info("signal %d: stopping", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/* The peers' lines, then the tunnel's (the last: readers wait for it). */
static void print_counters(const struct tunnel *t)
{
	fwd_print(stderr, t);
	stats_print(stderr, &t->st);
}

/* SIGHUP: the peers file read again (--peers), else stop. */
static void hup_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct tunnel *t = w->data;

	if (!t->cfg.peers_file) {
		stop_cb(loop, w, revents);
		return;
	}
	log_info("signal %d: reading %s again", w->signum, t->cfg.peers_file);
	fwd_reload(t);
}

static void usr1_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	print_counters(w->data);
}

/* The tap, its MTU (path.c), addresses, up; and the receive batch. */
static int setup_tap(struct tunnel *t)
{
	unsigned int i;
	int err;

	t->tap_fd = tap_open(t->cfg.dev, t->cfg.offload, t->ifname);
	if (t->tap_fd < 0)
		return t->tap_fd;
	t->ifindex = if_nametoindex(t->ifname);
	if (!t->ifindex) {
		log_err_errno("cannot find tap %s", t->ifname);
		return -errno;
	}
	t->link = link_open();
	if (!t->link)
		return -EIO;
	err = path_open(t);
	if (!err)
		err = rx_init(t, path_tap_mtu(&t->path));
	if (err)
		return err;
	tap_set_sysctls(t->ifname);
	for (i = 0; i < t->cfg.n_addrs; i++) {
		err = link_add_addr(t->link, t->ifindex, &t->cfg.addrs[i]);
		if (err)
			return err;
	}
	/* Up before the first write: a down tap answers EIO. */
	return link_set_up(t->link, t->ifindex);
}

static int setup(struct tunnel *t)
{
	int err = tx_init(t);

	if (!err)
		err = fwd_open(t);
	if (err)
		return err;
	err = ring_init(&t->ring, RING_ENTRIES);
	if (err)
		return err;
	t->ring_up = true;
	err = underlay_open(&t->ul, &t->cfg, &t->peers);
	if (err)
		return err;
	return setup_tap(t);
}

static void teardown(struct tunnel *t)
{
	if (t->tap_fd >= 0)
		close(t->tap_fd);
	underlay_close(&t->ul);
	path_close(&t->path);
	fwd_close(t);
	link_close(t->link);
	tx_free(&t->tx);
	rx_free(&t->rx);
	if (t->ring_up)
		ring_exit(&t->ring);
	options_free(&t->cfg);
}

static void watch(struct gsotun *g)
{
	struct tunnel *t = &g->t;

	tx_watch(t);
	rx_watch(t);
	path_watch(t);
	fwd_watch(t);
	ev_io_init(&g->ring_w, ring_cb, ring_eventfd(&t->ring), EV_READ);
	ev_signal_init(&g->sigint_w, stop_cb, SIGINT);
	ev_signal_init(&g->sigterm_w, stop_cb, SIGTERM);
	ev_signal_init(&g->sighup_w, hup_cb, SIGHUP);
	ev_signal_init(&g->sigusr1_w, usr1_cb, SIGUSR1);
	g->ring_w.data = g->sigusr1_w.data = g->sighup_w.data = t;
	ev_io_start(t->loop, &g->ring_w);
	ev_signal_start(t->loop, &g->sigint_w);
	ev_signal_start(t->loop, &g->sigterm_w);
	ev_signal_start(t->loop, &g->sighup_w);
	ev_signal_start(t->loop, &g->sigusr1_w);
}

static void log_tunnel(const struct tunnel *t)
{
	const struct ipaddr *first = &t->cfg.remotes[0];
	char remote[INET6_ADDRSTRLEN], more[80] = "";

	inet_ntop(first->family, &first->addr, remote, sizeof(remote));
	if (t->peers.n > 1)
		snprintf(more, sizeof(more), " and %u more peers%s%s",
			 t->peers.n - 1, t->fwd.learning ? ", learning" : "",
			 t->cfg.n_fdb ? ", static fdb entries" : "");
	log_info("%s: %s tunnel to %s%s, MTU %u, tap offloads 0x%x, %u source "
		 "port(s)", t->ifname, encap_name(t->cfg.encap.type), remote,
		 more, path_tap_mtu(&t->path), tap_offloads(),
		 underlay_n_src(&t->ul));
}

/* --daemon or not, the pidfile; then --user. 0 or -errno (logged). */
static int become_service(struct gsotun *g)
{
	struct tunnel *t = &g->t;
	int err = 0;

	if (t->cfg.daemon)
		err = daemon_start(&g->pidfile, t->cfg.pidfile);
	else if (t->cfg.pidfile)
		err = pidfile_write(&g->pidfile, t->cfg.pidfile);
	if (!err && t->cfg.user)
		err = priv_drop(t->cfg.user, t->cfg.chroot,
				path_needs_net_admin(t));
	return err;
}

static void set_log_level(int verbosity)
{
	log_level = LOG_LVL_INFO + verbosity;
	if (log_level < LOG_LVL_ERR)
		log_level = LOG_LVL_ERR;
	if (log_level > LOG_LVL_DEBUG)
		log_level = LOG_LVL_DEBUG;
}

int main(int argc, char **argv)
{
	static struct gsotun g = {
		.t = { .tap_fd = -1,
		       .ul = { .fd = -1, .fd_df = -1, .fd_nocsum = -1 } },
		.pidfile = { .fd = -1 },
	};
	struct tunnel *t = &g.t;
	int ret = EXIT_FAILURE;

	options_parse(argc, argv, &t->cfg);
	set_log_level(t->cfg.verbosity);
	signal(SIGPIPE, SIG_IGN);
	if (setup(t) || become_service(&g))
		goto out;
	t->loop = ev_default_loop(EVFLAG_AUTO);
	if (!t->loop) {
		log_err("cannot start the event loop");
		goto out;
	}
	watch(&g);
	log_tunnel(t);
	ev_run(t->loop, 0);
	ret = EXIT_SUCCESS;
	/* Sends still waiting for room are cancelled and counted as drops. */
	ring_drain(&t->ring, tunnel_done, t);
	ev_loop_destroy(t->loop);
	print_counters(t);
out:
	/* After --user the file is root's: the service manager removes it. */
	pidfile_close(&g.pidfile, !t->cfg.user);
	teardown(t);
	return ret;
}
