// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotun: set-up, the libev loop that runs the transmit (tx.c) and receive
 * (rx.c) paths and the path policy (path.c), signals and shutdown.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <ev.h>
#include "clock.h"
#include "conffile.h"
#include "control.h"
#include "daemon.h"
#include "encap.h"
#include "link.h"
#include "log.h"
#include "notify.h"
#include "priv.h"
#include "report.h"
#include "sandbox.h"
#include "tap.h"
#include "tunnel.h"

/*
 * Submission queue entries: a batch of reads and the sends of another,
 * one per UDP GSO run (a few per batch) or, for raw GRE, per segment (a
 * full ring is run and refilled).
 */
#define RING_ENTRIES 512

/* What set-up opens and the loop watches, beside the tunnels' parts. */
struct gsotun {
	struct config cfg;
	struct port port;
	struct tunnel tun[CONFIG_MAX_TUNNELS];
	struct pidfile pidfile;
	bool dropped;		/* --user took effect */
	struct control ctl;
	ev_io ring_w;
	ev_signal sigint_w, sigterm_w, sighup_w, sigusr1_w;
};

void tunnel_done(void *ctx, uint64_t data, int res)
{
	struct tunnel *any = ctx;
	struct tunnel *t = any->port->tun[TAG_TUN_OF(data)];

	if (TAG_KIND(data) == TAG_WRITE)
		rx_done(t, (uint32_t)data, res);
	else
		tx_done(t, data, res);
}

/* Completions that came after their submission: sends that waited. */
static void ring_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct tunnel *t = w->data;

	ring_ack(t->ring);
	ring_reap(t->ring, tunnel_done, t);
}

static void stop_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	log_info("signal %d: stopping", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/* The counters dump (SIGUSR1, exit) where the messages go. */
static void print_counters(const struct port *port)
{
	struct log_stream ls;

	report_write(log_stream_open(&ls), port, REPORT_DUMP);
	log_stream_close(&ls);
}

/*
 * For the service manager (STATUS=) the main tunnel in a few words:
 * "VXLAN VNI 1 to 198.18.0.2, MTU 1450".
 */
static void notify_port_ready(const struct port *port)
{
	const struct tunnel *t = port->tun[0];
	const struct config *cfg = t->cfg;
	char peer[INET6_ADDRSTRLEN] = "no peer", id[24] = "", more[32] = "";
	char taps[24] = "", status[192];

	if (cfg->n_remotes)
		inet_ntop(cfg->remotes[0].family, &cfg->remotes[0].addr, peer,
			  sizeof(peer));
	if (cfg->n_remotes > 1)
		snprintf(more, sizeof(more), " and %u more",
			 cfg->n_remotes - 1);
	report_id(t, id, sizeof(id));
	if (port->n_tun > 1)
		snprintf(taps, sizeof(taps), ", %u taps", port->n_tun);
	snprintf(status, sizeof(status), "%s%s to %s%s, MTU %u%s",
		 encap_name(t->encap.type), id, peer, more,
		 path_tap_mtu(&t->path), taps);
	notify_ready(status);
}

/*
 * SIGHUP: the peers file read again (--peers). Without, it stops a
 * gsotun on a terminal (a hang-up), but not a --daemon, which has no
 * terminal to hang up, nor one a service manager runs: to those it is a
 * reload ("systemctl reload", or a Type=forking unit's kill -HUP), which
 * must not end the tunnel (nor leave it to Restart=on-failure after an
 * exit status of 0).
 */
static void hup_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct tunnel *t = w->data;

	if (!t->cfg->peers_file && !t->cfg->daemon && !notify_active()) {
		stop_cb(loop, w, revents);
		return;
	}
	notify_reloading();
	if (t->cfg->peers_file) {
		log_info("signal %d: reading %s again", w->signum,
			 t->cfg->peers_file);
		fwd_reload(t);
	} else {
		log_info("SIGHUP: nothing to read again (no --peers)");
	}
	notify_port_ready(t->port);
}

static void usr1_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct tunnel *t = w->data;

	print_counters(t->port);
}

/*
 * The tap's MAC: --mac, else the stable one of its name and the local
 * address (--local, else the source of the route to the first peer).
 */
static int setup_mac(struct tunnel *t)
{
	const uint8_t *mac = options_tap_mac(t->cfg, t->idx);
	struct ipaddr local = t->cfg->local;
	struct link_route r;

	if (mac) {
		memcpy(t->mac, mac, MAC_LEN);
	} else {
		if (!local.family &&
		    !link_route_get(t->link, &t->cfg->remotes[0], true, &r))
			local = r.src;
		tap_stable_mac(t->ifname, &local, t->mac);
	}
	return link_set_mac(t->link, t->ifindex, t->mac);
}

/* The tap, its MTU (path.c), MAC, addresses, up; the receive batch. */
static int setup_tap(struct tunnel *t)
{
	unsigned int i;
	int err;

	t->tap_fd = tap_open(t->dev, t->cfg->offload, t->ifname);
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
	if (!err)
		err = setup_mac(t);
	if (err)
		return err;
	tap_set_sysctls(t->ifname);
	for (i = 0; i < t->cfg->n_addrs; i++) {
		if (t->cfg->addr_tap[i] != t->idx)
			continue;
		err = link_add_addr(t->link, t->ifindex, &t->cfg->addrs[i]);
		if (err)
			return err;
	}
	/* Up before the first write: a down tap answers EIO. */
	return link_set_up(t->link, t->ifindex);
}

/*
 * Tunnel i of the port: the main one (--dev, --vni or --key), or the tap
 * of taps[i - 1] with its VNI or key.
 */
static void tunnel_init(struct gsotun *g, unsigned int i)
{
	struct tunnel *t = &g->tun[i];
	struct port *port = &g->port;

	t->cfg = &g->cfg;
	t->encap = g->cfg.encap;
	t->dev = g->cfg.dev;
	if (i) {
		const struct config_tap *tap = &g->cfg.taps[i - 1];

		t->dev = tap->dev;
		encap_set_id(&t->encap, tap->id);
	}
	t->idx = i;
	t->port = port;
	t->ul = &port->ul;
	t->ring = &port->ring;
	t->peers = &port->peers;
	t->tap_fd = -1;
	t->fwd.peers_dir = -1;
	port->tun[port->n_tun++] = t;
}

static int setup(struct gsotun *g)
{
	struct port *port = &g->port;
	unsigned int i;
	int err;

	for (i = 0; i <= g->cfg.n_taps; i++)
		tunnel_init(g, i);
	err = fwd_peers_open(port, &g->cfg);
	if (!err)
		err = ring_init(&port->ring, RING_ENTRIES);
	if (err)
		return err;
	port->ring_up = true;
	err = underlay_open(&port->ul, &g->cfg, &port->peers);
	for (i = 0; !err && i < port->n_tun; i++) {
		struct tunnel *t = port->tun[i];

		err = tx_init(t);
		if (!err)
			err = fwd_open(t);
		if (!err)
			err = setup_tap(t);
	}
	/* Named after the tap, which may have been named by the kernel. */
	if (!err)
		err = control_open(&g->ctl, &g->cfg, port->tun[0]->ifname);
	return err;
}

static void teardown(struct gsotun *g)
{
	struct port *port = &g->port;
	unsigned int i;

	for (i = 0; i < port->n_tun; i++) {
		struct tunnel *t = port->tun[i];

		if (t->tap_fd >= 0)
			close(t->tap_fd);
		path_close(&t->path);
		fwd_close(t);
		link_close(t->link);
		tx_free(&t->tx);
		rx_free(&t->rx);
	}
	control_close(&g->ctl);
	underlay_close(&port->ul);
	peers_free(&port->peers);
	if (port->ring_up)
		ring_exit(&port->ring);
	options_free(&g->cfg);
}

static void watch(struct gsotun *g, struct ev_loop *loop)
{
	struct tunnel *t = g->port.tun[0];
	unsigned int i;

	for (i = 0; i < g->port.n_tun; i++) {
		struct tunnel *u = g->port.tun[i];

		u->loop = loop;
		tx_watch(u);
		path_watch(u);
		fwd_watch(u);
	}
	/* The shared sockets: received packets go to their tunnel. */
	rx_watch(t);
	ev_io_init(&g->ring_w, ring_cb, ring_eventfd(t->ring), EV_READ);
	ev_signal_init(&g->sigint_w, stop_cb, SIGINT);
	ev_signal_init(&g->sigterm_w, stop_cb, SIGTERM);
	ev_signal_init(&g->sighup_w, hup_cb, SIGHUP);
	ev_signal_init(&g->sigusr1_w, usr1_cb, SIGUSR1);
	g->ring_w.data = g->sigusr1_w.data = g->sighup_w.data = t;
	ev_io_start(loop, &g->ring_w);
	ev_signal_start(loop, &g->sigint_w);
	ev_signal_start(loop, &g->sigterm_w);
	ev_signal_start(loop, &g->sighup_w);
	ev_signal_start(loop, &g->sigusr1_w);
	control_watch(&g->ctl, loop, &g->port);
}

static void log_tunnel(const struct tunnel *t)
{
	const struct ipaddr *first = &t->cfg->remotes[0];
	const struct ipaddr *local = &t->cfg->local;
	char remote[INET6_ADDRSTRLEN], more[80] = "", id[24] = "";
	char where[INET6_ADDRSTRLEN + 24] = "", addr[INET6_ADDRSTRLEN];
	char mac[MAC_TEXT_LEN], offl[80], ports[32] = "";
	unsigned int n_src = underlay_n_src(t->ul);

	inet_ntop(first->family, &first->addr, remote, sizeof(remote));
	/* Where it listens: --local, and the port of UDP encapsulations. */
	if (local->family)
		inet_ntop(local->family, &local->addr, addr, sizeof(addr));
	if (encap_is_udp(t->encap.type))
		snprintf(where, sizeof(where), " on %s%sport %u",
			 local->family ? addr : "", local->family ? " " : "",
			 t->cfg->port);
	else if (local->family)
		snprintf(where, sizeof(where), " on %s", addr);
	if (t->peers->n > 1)
		snprintf(more, sizeof(more), " and %u more peer%s%s%s",
			 t->peers->n - 1, t->peers->n > 2 ? "s" : "",
			 t->fwd.learning ? ", learning" : "",
			 t->cfg->n_fdb ? ", static fdb entries" : "");
	/* Raw GRE has no ports. */
	if (encap_is_udp(t->encap.type))
		snprintf(ports, sizeof(ports), ", %u source port%s", n_src,
			 n_src > 1 ? "s" : "");
	report_id(t, id, sizeof(id));
	report_offloads(offl, sizeof(offl));
	log_info("%s: %s%s tunnel%s to %s%s, MAC %s, MTU %u, tap offloads "
		 "%s%s", t->ifname, encap_name(t->encap.type), id, where,
		 remote, more, mac_ntoa(t->mac, mac), path_tap_mtu(&t->path),
		 offl, ports);
}

/*
 * --daemon or not, the pidfile; then --user, or, started as a user with
 * capabilities (the unit's User= and AmbientCapabilities=), those that
 * set-up alone needed dropped. 0 or -errno (logged, on standard error
 * still: a --daemon detaches at the end of set-up).
 */
static int become_service(struct gsotun *g)
{
	struct config *cfg = &g->cfg;
	bool net_admin = path_needs_net_admin(g->port.tun[0]);
	int err = 0;

	if (cfg->daemon)
		err = daemon_start(&g->pidfile, cfg->pidfile);
	else if (cfg->pidfile)
		err = pidfile_write(&g->pidfile, cfg->pidfile);
	if (!err && cfg->user) {
		err = priv_drop(cfg->user, cfg->chroot, net_admin);
		g->dropped = !err;
	} else if (!err && geteuid() != 0) {
		err = priv_trim(net_admin);
	}
	return err;
}

/*
 * --user and --admin-group name a user and a group that exist: one that
 * does not is a usage error (64) of --check and of a start alike, said
 * before anything is set up, not a start that fails (1) and is retried.
 */
static bool names_exist(const struct config *cfg)
{
	gid_t gid;

	if (cfg->user && !getpwnam(cfg->user)) {
		log_err("no user %s (--user)", cfg->user);
		return false;
	}
	if (cfg->admin_group && control_admin_gid(cfg->admin_group, &gid)) {
		log_err("no group %s (--admin-group)", cfg->admin_group);
		return false;
	}
	return true;
}

/*
 * --check: the configuration options_parse() made of the command line
 * and --config, checked there, printed; nothing is set up.
 */
static int check_config(struct config *cfg)
{
	int ret;

	conffile_write(stdout, cfg);
	ret = fflush(stdout) || ferror(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	if (ret)
		log_err_errno("cannot write the configuration");
	options_free(cfg);
	return ret;
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
		.port = { .ul = { .fd = -1, .fd_df = -1, .fd_nocsum = -1 } },
		.pidfile = { .fd = -1 },
		.ctl = { .fd = -1 },
	};
	struct ev_loop *loop;
	int ret = EXIT_FAILURE;
	unsigned int i;

	g.port.start_ns = clock_now_ns();
	options_parse(argc, argv, &g.cfg);
	if (!names_exist(&g.cfg)) {
		options_free(&g.cfg);
		return EX_USAGE;
	}
	if (g.cfg.check)
		return check_config(&g.cfg);
	set_log_level(g.cfg.verbosity);
	log_open(g.cfg.log_time);
	notify_open();
	signal(SIGPIPE, SIG_IGN);
	if (setup(&g) || become_service(&g))
		goto out;
	loop = ev_default_loop(EVFLAG_AUTO);
	if (!loop) {
		log_err("cannot start the event loop");
		goto out;
	}
	watch(&g, loop);
	/* Set up: from here on only the loop's system calls (sandbox.c). */
	if (g.cfg.seccomp && sandbox_enter())
		goto out_loop;
	/* Ready (with MAINPID=) before the parent of a --daemon exits. */
	notify_port_ready(&g.port);
	if (daemon_detach())
		goto out_loop;
	for (i = 0; i < g.port.n_tun; i++)
		log_tunnel(g.port.tun[i]);
	ev_run(loop, 0);
	notify_stopping();
	ret = EXIT_SUCCESS;
	/* Sends still waiting for room are cancelled and counted as drops. */
	ring_drain(&g.port.ring, tunnel_done, g.port.tun[0]);
	print_counters(&g.port);
out_loop:
	control_close(&g.ctl);
	ev_loop_destroy(loop);
out:
	/*
	 * After --user the file is root's: the service manager removes it.
	 * A drop that failed left us root, and the file ours to remove.
	 */
	pidfile_close(&g.pidfile, !g.dropped);
	teardown(&g);
	notify_close();
	return ret;
}
