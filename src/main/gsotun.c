// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsotun: set-up, the libev loop that runs the transmit (tx.c) and receive
 * (rx.c) paths and the path policy (path.c), signals and shutdown; the
 * lanes' loops and threads are lanes.c's.
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
#include <sys/resource.h>
#include <ev.h>
#include "base/clock.h"
#include "base/log.h"
#include "encap/encap.h"
#include "conf/cfg.h"
#include "conf/conffile.h"
#include "sys/daemon.h"
#include "sys/link.h"
#include "sys/notify.h"
#include "sys/priv.h"
#include "sys/sandbox.h"
#include "sys/tap.h"
#include "dev/device.h"
#include "dev/evpn.h"
#include "dev/path.h"
#include "dev/port.h"
#include "ops/control.h"
#include "ops/report.h"
#include "main/lanes.h"

/* What set-up opens and the loop watches, beside the devices' parts. */
struct gsotun {
	struct config cfg;
	struct port port;
	struct device dev[CONFIG_MAX_TUNNELS];
	struct pidfile pidfile;
	bool dropped;		/* --user took effect */
	struct control ctl;
	struct evpn *evpn;	/* --evpn; else NULL */
	struct lanes lanes;
	ev_signal sigint_w, sigterm_w, sighup_w, sigusr1_w;
};

static void signal_stop_cb(struct ev_loop *loop, ev_signal *w, int revents)
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
 * For the service manager (STATUS=) the main device in a few words:
 * "VXLAN VNI 1 to 198.18.0.2, MTU 1450".
 */
static void notify_port_ready(const struct port *port)
{
	const struct device *d = port->dev[0];
	const struct config *cfg = port->cfg;
	char peer[INET6_ADDRSTRLEN] = "no peer", id[24] = "", more[32] = "";
	char taps[24] = "", status[192];

	if (cfg->n_remotes)
		inet_ntop(cfg->remotes[0].family, &cfg->remotes[0].addr, peer,
			  sizeof(peer));
	if (cfg->n_remotes > 1)
		snprintf(more, sizeof(more), " and %u more",
			 cfg->n_remotes - 1);
	report_id(d, id, sizeof(id));
	if (port->n_dev > 1)
		snprintf(taps, sizeof(taps), ", %u taps", port->n_dev);
	snprintf(status, sizeof(status), "%s%s to %s%s, MTU %u%s",
		 encap_name(d->s.encap.type), id, peer, more, device_mtu(d),
		 taps);
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
	struct port *port = w->data;
	const struct config *cfg = port->cfg;

	if (!cfg->peers_file && !cfg->daemon && !notify_active()) {
		signal_stop_cb(loop, w, revents);
		return;
	}
	notify_reloading();
	if (cfg->peers_file) {
		log_info("signal %d: reading %s again", w->signum,
			 cfg->peers_file);
		port_reload(port);
	} else {
		log_info("SIGHUP: nothing to read again (no --peers)");
	}
	notify_port_ready(port);
}

static void usr1_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	print_counters(w->data);
}

static int setup(struct gsotun *g)
{
	struct port *port = &g->port;
	unsigned int i, n = lanes_count(&g->cfg);
	int err;

	err = lanes_init(&g->lanes, port, n);
	for (i = 0; !err && i <= g->cfg.n_taps; i++)
		err = device_init(&g->dev[i], &g->cfg, port, i);
	if (!err)
		err = port_peers_open(port, &g->cfg);
	if (err)
		return err;
	err = underlay_open(port->ul, n, &g->cfg, &port->peers);
	for (i = 0; !err && i < port->n_dev; i++)
		err = device_open(port->dev[i]);
	/* Named after the tap, which may have been named by the kernel. */
	if (!err)
		err = control_open(&g->ctl, &g->cfg, port->dev[0]->s.ifname);
	return err;
}

static void teardown(struct gsotun *g)
{
	struct port *port = &g->port;
	unsigned int i;

	evpn_close(g->evpn);
	for (i = 0; i < port->n_dev; i++)
		device_close(port->dev[i]);
	control_close(&g->ctl);
	for (i = 0; i < port->n_lanes; i++)
		underlay_close(&port->ul[i]);
	port_peers_close(port);
	lanes_free(&g->lanes);
	cfg_free(&g->cfg);
}

static int watch(struct gsotun *g, struct ev_loop *loop)
{
	struct port *port = &g->port;
	unsigned int i;
	int err;

	err = lanes_loops(&g->lanes, loop);
	if (err)
		return err;
	for (i = 0; i < port->n_dev; i++)
		device_watch(port->dev[i], loop);
	err = evpn_open(&g->evpn, port, loop);
	if (err)
		return err;
	lanes_watch(&g->lanes, loop, &g->ctl);
	ev_signal_init(&g->sigint_w, signal_stop_cb, SIGINT);
	ev_signal_init(&g->sigterm_w, signal_stop_cb, SIGTERM);
	ev_signal_init(&g->sighup_w, hup_cb, SIGHUP);
	ev_signal_init(&g->sigusr1_w, usr1_cb, SIGUSR1);
	g->sigusr1_w.data = g->sighup_w.data = port;
	ev_signal_start(loop, &g->sigint_w);
	ev_signal_start(loop, &g->sigterm_w);
	ev_signal_start(loop, &g->sighup_w);
	ev_signal_start(loop, &g->sigusr1_w);
	control_watch(&g->ctl, loop, port);
	return 0;
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
	/* --evpn writes and deletes bridge entries as long as it runs. */
	bool net_admin = path_needs_net_admin(g->port.dev[0]) || cfg->evpn;
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
	cfg_free(cfg);
	return ret;
}

/*
 * A system call of libev's that failed (its signal pipe, its epoll fd):
 * libev would abort() with a bare line. Said as gsotun's error, with
 * the likely cause, and the exit status of a start that failed.
 */
static void libev_failed(const char *msg)
{
	int err = errno;
	struct rlimit r;

	if ((err == EMFILE || err == ENFILE) && !getrlimit(RLIMIT_NOFILE, &r))
		log_err("%s: %s: ulimit -n %llu is too low for this "
			"configuration", msg, strerror(err),
			(unsigned long long)r.rlim_cur);
	else
		log_err("%s: %s", msg, strerror(err));
	exit(EXIT_FAILURE);
}

/*
 * Set up, then a service: 0, or the exit status of a start that failed,
 * 64 for a --route the host's table refuses (the command line's error).
 */
static int start(struct gsotun *g)
{
	int err;

	ev_set_syserr_cb(libev_failed);
	err = setup(g);
	if (err == -EEXIST || err == -ELOOP)
		return EX_USAGE;
	return err || become_service(g) ? EXIT_FAILURE : 0;
}

static void set_log_level(int verbosity)
{
	log_level = LOG_LVL_INFO + verbosity;
	if (log_level < LOG_LVL_ERR)
		log_level = LOG_LVL_ERR;
	if (log_level > LOG_LVL_DEBUG)
		log_level = LOG_LVL_DEBUG;
}

/*
 * The watchers and lanes started, the sandbox entered, then the loop
 * until a signal ends it: its exit status, with the lanes ended and
 * drained and the counters printed; EXIT_FAILURE if it did not start.
 */
static int run(struct gsotun *g, struct ev_loop *loop)
{
	unsigned int i;
	int ret;

	if (watch(g, loop) || lanes_start(&g->lanes, &g->cfg))
		return EXIT_FAILURE;
	/* Set up: from here on only the loops' system calls (sandbox.c). */
	if (g->cfg.seccomp && sandbox_enter())
		return EXIT_FAILURE;
	/* Ready (with MAINPID=) before the parent of a --daemon exits. */
	notify_port_ready(&g->port);
	if (daemon_detach())
		return EXIT_FAILURE;
	for (i = 0; i < g->port.n_dev; i++)
		report_log_device(g->port.dev[i]);
	ev_run(loop, 0);
	notify_stopping();
	ret = g->port.exit_status ? g->port.exit_status : EXIT_SUCCESS;
	lanes_end(&g->lanes);
	lanes_drain(&g->lanes);
	print_counters(&g->port);
	return ret;
}

int main(int argc, char **argv)
{
	static struct gsotun g = {
		.port = { .peers_dir = -1 },
		.pidfile = { .fd = -1 },
		.ctl = { .fd = -1 },
	};
	struct ev_loop *loop;
	int ret = EXIT_FAILURE;

	g.port.start_ns = clock_now_ns();
	options_parse(argc, argv, &g.cfg);
	if (!names_exist(&g.cfg)) {
		cfg_free(&g.cfg);
		return EX_USAGE;
	}
	if (g.cfg.check)
		return check_config(&g.cfg);
	set_log_level(g.cfg.verbosity);
	log_open(g.cfg.log_time);
	notify_open();
	signal(SIGPIPE, SIG_IGN);
	ret = start(&g);
	if (ret)
		goto out;
	ret = EXIT_FAILURE;
	loop = ev_default_loop(EVFLAG_AUTO);
	if (!loop) {
		log_err("cannot start the event loop");
		goto out;
	}
	ret = run(&g, loop);
	lanes_end(&g.lanes);
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
