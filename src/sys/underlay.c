// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The underlay socket: sends segment plans as iovecs (header block, then a
 * payload slice of the tap buffer) and receives encapsulated packets.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/compat.h"
#include "base/log.h"
#include "encap/encap.h"
#include "pipe/pmtu.h"
#include "conf/optvalue.h"
#include "table/steer.h"
#include "sys/holder.h"
#include "sys/link.h"
#include "sys/ring.h"
#include "sys/underlay.h"

/* Socket buffers big enough for a few super-frames in flight each way. */
#define UNDERLAY_SOCKBUF (4 << 20)

static int sockopt_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

static void set_sockbuf(int fd)
{
	/* The FORCE variants pass rmem_max/wmem_max when we are root. */
	if (sockopt_int(fd, SOL_SOCKET, SO_SNDBUFFORCE, UNDERLAY_SOCKBUF))
		sockopt_int(fd, SOL_SOCKET, SO_SNDBUF, UNDERLAY_SOCKBUF);
	if (sockopt_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, UNDERLAY_SOCKBUF))
		sockopt_int(fd, SOL_SOCKET, SO_RCVBUF, UNDERLAY_SOCKBUF);
}

/* The one peer a connected raw GRE socket sends to. */
static const struct peer *underlay_only_peer(const struct underlay *u)
{
	return &u->peers->v[u->peers->live[0]];
}

static int underlay_connect(const struct underlay *u, int fd)
{
	const struct peer *p = underlay_only_peer(u);

	return connect(fd, (const struct sockaddr *)&p->sa, p->dst.len);
}

/* Per-datagram state of one recvmmsg() batch. */
struct underlay_rx {
	struct mmsghdr mm[UNDERLAY_RX_SLOTS];
	struct iovec iov[UNDERLAY_RX_SLOTS];
	struct sockaddr_storage from[UNDERLAY_RX_SLOTS];
	union {
		/* UDP_GRO and IP_TOS / IPV6_TCLASS */
		char buf[2 * CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctrl[UNDERLAY_RX_SLOTS];
	uint8_t *bufs[UNDERLAY_RX_SLOTS];	/* rx_batch_max of them */
};

static void underlay_rx_free(struct underlay_rx *rx)
{
	int i;

	if (!rx)
		return;
	for (i = 0; i < UNDERLAY_RX_SLOTS; i++)
		free(rx->bufs[i]);
	free(rx);
}

/* Buffers for n datagrams (of a raw socket: touched only as they fill). */
static struct underlay_rx *underlay_rx_alloc(unsigned int n)
{
	struct underlay_rx *rx = calloc(1, sizeof(*rx));
	unsigned int i;

	if (!rx)
		return NULL;
	for (i = 0; i < n; i++) {
		rx->bufs[i] = malloc(UNDERLAY_RX_BUF);
		if (!rx->bufs[i]) {
			underlay_rx_free(rx);
			return NULL;
		}
	}
	return rx;
}

/* ip(7) IP_RECVERR, ipv6(7) IPV6_RECVERR on or off. */
static int underlay_set_recverr(int fd, int family, bool on)
{
	if (family == AF_INET6)
		return sockopt_int(fd, IPPROTO_IPV6, IPV6_RECVERR, on);
	return sockopt_int(fd, IPPROTO_IP, IP_RECVERR, on);
}

/*
 * ICMP errors about what we send reach the error queue (IP_RECVERR):
 * "fragmentation needed" then lowers the budget. On IPv4 the DF bit
 * follows --df; IP_PMTUDISC_DONT sends none, as the kernel's vxlan does
 * by default (df unset).
 */
static int underlay_set_pmtu(int fd, int family, bool df)
{
	if (underlay_set_recverr(fd, family, true))
		return -1;
	if (family == AF_INET6)
		return 0;
	return sockopt_int(fd, IPPROTO_IP, IP_MTU_DISCOVER,
			   df ? IP_PMTUDISC_DO : IP_PMTUDISC_DONT);
}

/* The sockets packets from the peer arrive on; the others only send. */
static bool underlay_receives(const struct underlay *u, int fd)
{
	return fd == u->fd || fd == u->fd_nocsum;
}

/* TTL, fixed TOS, DF and, for UDP, the checksum and GRO options. */
static int underlay_configure(struct underlay *u, int fd, bool df,
			      const struct config *cfg)
{
	bool v6 = u->family == AF_INET6;

	if (cfg->ttl &&
	    sockopt_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			v6 ? IPV6_UNICAST_HOPS : IP_TTL, cfg->ttl))
		return -errno;
	if (cfg->tos_mode == TOS_FIXED && cfg->tos &&
	    sockopt_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			v6 ? IPV6_TCLASS : IP_TOS, cfg->tos))
		return -errno;
	if (underlay_set_pmtu(fd, u->family, df))
		return -errno;
	/* The outer ECN field of what arrives (RFC 6040 decapsulation). */
	if (underlay_receives(u, fd) &&
	    sockopt_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			v6 ? IPV6_RECVTCLASS : IP_RECVTOS, 1))
		return -errno;
	set_sockbuf(fd);
	if (!u->udp)
		return 0;

	if (!cfg->csum) {
		/*
		 * Zero outer checksums, as the kernel's vxlan with noudpcsum /
		 * udp6zerocsumtx. The kernel refuses UDP GSO on such a socket
		 * (udp_send_skb: sk_no_check_tx), so send segment by segment.
		 */
		if (v6) {
			if (sockopt_int(fd, SOL_UDP, UDP_NO_CHECK6_TX, 1) ||
			    sockopt_int(fd, SOL_UDP, UDP_NO_CHECK6_RX, 1))
				return -errno;
		} else if (sockopt_int(fd, SOL_SOCKET, SO_NO_CHECK, 1)) {
			return -errno;
		}
		u->sq.gso = false;
	}
	/* Back-to-back datagrams from the peer arrive as one (udp(7)). */
	if (underlay_receives(u, fd) && cfg->offload &&
	    sockopt_int(fd, SOL_UDP, UDP_GRO, 1))
		log_debug("UDP_GRO not available: %s", strerror(errno));
	return 0;
}

/*
 * A socket that only sends: from the same address and, for UDP, an
 * ephemeral source port (RFC 7348 and RFC 8086 leave the source port to
 * the sender). It takes in no packets, only the errors about its own. The
 * DF socket of --df inherit, and the other source ports. Returns the
 * socket or -errno.
 */
static int underlay_open_sender(struct underlay *u, const struct config *cfg,
				const struct sockaddr_storage *local,
				socklen_t local_len, bool df)
{
	static struct sock_filter drop_all[] = {
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog;
	struct sockaddr_storage addr = *local;
	int fd, err = 0;

	memset(&prog, 0, sizeof(prog));
	prog.len = 1;
	prog.filter = drop_all;

	fd = socket(u->family, (u->udp ? SOCK_DGRAM : SOCK_RAW) |
		    SOCK_CLOEXEC, u->proto);
	if (fd < 0)
		return -errno;
	/* sin_port and sin6_port are at the same offset. */
	((struct sockaddr_in *)&addr)->sin_port = 0;
	if (u->family == AF_INET6)
		sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) ||
	    bind(fd, (struct sockaddr *)&addr, local_len) ||
	    (u->connected && underlay_connect(u, fd)))
		err = -errno;
	if (!err)
		err = underlay_configure(u, fd, df, cfg);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * The other source ports of UDP encapsulations, a socket each (and one
 * more each for DF packets with --df inherit), so that the outer flows
 * differ as the inner ones do.
 */
static int underlay_open_sources(struct underlay *u, const struct config *cfg,
				 const struct sockaddr_storage *local,
				 socklen_t local_len)
{
	int fd;

	u->src_fd[0] = u->fd;
	u->src_fd_df[0] = u->fd_df;
	u->n_src = 1;
	while (u->udp && u->n_src < cfg->src_ports) {
		unsigned int i = u->n_src;

		u->src_fd_df[i] = -1;
		fd = underlay_open_sender(u, cfg, local, local_len,
					  cfg->df == DF_SET);
		if (fd < 0)
			return fd;
		u->src_fd[i] = fd;
		u->n_src++;
		if (u->fd_df < 0)
			continue;
		fd = underlay_open_sender(u, cfg, local, local_len, true);
		if (fd < 0)
			return fd;
		u->src_fd_df[i] = fd;
	}
	return 0;
}

/*
 * ICMP errors are believed from anyone who can send them (the kernel's
 * vxlan believes them as much): what they quote is all there is to go
 * by. But with IP_RECVERR each one also fails the socket's next send
 * (sk_err) and costs a system call to read, so a flood of spoofed
 * errors quoting the tunnel's port would cost sends and CPU: past
 * UNDERLAY_ERR_PER_SEC (burst UNDERLAY_ERR_BURST) IP_RECVERR is switched
 * off on every socket, which also purges their error queues
 * (do_ip_setsockopt()), until underlay_errors_resume(). Meanwhile the
 * kernel still keeps a learnt path MTU in the route, where the route
 * watch finds it. Legitimate errors come far slower: the kernel sends at
 * most about one a second to a host (icmp_ratelimit). Connecting the
 * sockets to the peer would not do instead: the peer's address and port
 * are no secret, the receiving socket takes any source port (the
 * kernel's vxlan sends from a hashed one), and a connected socket takes
 * a "port unreachable" as a hard error even without IP_RECVERR
 * (__udp4_lib_err()).
 */
#define UNDERLAY_ERR_PER_SEC 100
#define UNDERLAY_ERR_BURST 200

static void underlay_err_limit_reset(struct underlay *u)
{
	pmtu_limit_init(&u->err_limit, UNDERLAY_ERR_PER_SEC,
			UNDERLAY_ERR_BURST);
}

/*
 * Every socket of the underlay, fd_nocsum too: the kernel hands an error
 * about fd's datagrams to any socket of the port, as
 * underlay_setup_rx() says.
 */
static void underlay_set_recverr_all(struct underlay *u, bool on)
{
	int fds[2 * CONFIG_MAX_SRC_PORTS + 2];
	unsigned int i, n;

	n = underlay_send_only_fds(u, fds);
	n += underlay_recv_fds(u, fds + n);
	for (i = 0; i < n; i++)
		if (underlay_set_recverr(fds[i], u->family, on))
			log_debug("IP_RECVERR %s: %s", on ? "on" : "off",
				  strerror(errno));
	u->err_muted = !on;
}

static void underlay_mute_errors(struct underlay *u)
{
	if (!u->err_warned)
		log_warn("ICMP errors about the tunnel's packets faster than "
			 "%u a second (a spoofed flood?): ignored for some "
			 "seconds", UNDERLAY_ERR_PER_SEC);
	u->err_warned = true;
	underlay_set_recverr_all(u, false);
}

void underlay_errors_resume(struct underlay *u)
{
	if (!u->err_muted)
		return;
	underlay_err_limit_reset(u);
	underlay_set_recverr_all(u, true);
}

unsigned int underlay_send_only_fds(const struct underlay *u, int *fds)
{
	unsigned int i, n = 0;

	if (u->fd_df >= 0)
		fds[n++] = u->fd_df;
	for (i = 1; i < u->n_src; i++) {
		fds[n++] = u->src_fd[i];
		if (u->src_fd_df[i] >= 0)
			fds[n++] = u->src_fd_df[i];
	}
	return n;
}

/*
 * A zero UDP checksum means "none" (RFC 768: a computed 0 is sent as
 * 0xffff). Such datagrams are taken: RFC 7348 section 5 says a VXLAN
 * receiver MUST accept them, RFC 8086 section 3.2.1 that a GRE-in-UDP one
 * SHOULD by default, and the kernel's vxlan does whatever its udpcsum
 * says; over IPv6 only with --no-csum (RFC 6935 and RFC 6936, as the
 * kernel's udp6zerocsumrx), the kernel dropping them otherwise. Every
 * inner checksum is verified anyway (gro_add()), so nothing is trusted on
 * an outer checksum; the datagrams without one are told apart only to be
 * counted. A socket cannot see a datagram's UDP header, so the kernel
 * steers them: fd_nocsum joins the port's reuseport group last, and the
 * group's program (steer_sock_prog()) gives it those datagrams. The
 * kernel's UDP GRO never merges datagrams without a checksum
 * (udp_gro_receive_segment()), so each one is one message.
 */
static bool underlay_takes_nocsum(const struct underlay *u,
				  const struct config *cfg)
{
	return u->udp && (u->family == AF_INET || !cfg->csum);
}

/*
 * The group's program on its first socket, before the others join
 * (it covers those that join later): queue i's datagrams to socket i,
 * those without a checksum to socket n.
 */
static int underlay_steer(int fd, int family, unsigned int n, bool nocsum)
{
	struct sock_filter insns[STEER_SOCK_INSNS];
	struct sock_fprog prog;

	/* Zeroed whole: the kernel copies its padding too. */
	memset(&prog, 0, sizeof(prog));
	prog.filter = insns;
	prog.len = (unsigned short)steer_sock_prog(insns, family, n, nocsum);
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			  sizeof(prog));
}

/*
 * SO_REUSEPORT would let a second tunnel on the same port share it
 * silently: a bind without it first fails, as before, when the port is
 * taken (by another gsotun or the kernel's vxlan).
 */
static int underlay_port_free(int family, const struct sockaddr_storage *a,
			      socklen_t len)
{
	int fd, err = 0;

	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if (bind(fd, (const struct sockaddr *)a, len))
		err = -errno;
	close(fd);
	return err;
}

/* A receiving socket, bound to the underlay's port and address. */
static int underlay_open_rx(int family, int proto, bool shared,
			    const struct sockaddr_storage *a, socklen_t len)
{
	int fd;

	fd = socket(family, (proto == IPPROTO_UDP ? SOCK_DGRAM : SOCK_RAW) |
		    SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if ((shared && sockopt_int(fd, SOL_SOCKET, SO_REUSEPORT, 1)) ||
	    bind(fd, (const struct sockaddr *)a, len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * The receiving sockets of n queues: u[i].fd is socket i of the port's
 * reuseport group, and u[0].fd_nocsum, where datagrams without a
 * checksum may come, socket n. One queue without it needs no group.
 */
static int underlay_bind(struct underlay *u, unsigned int n,
			 const struct config *cfg,
			 const struct sockaddr_storage *a, socklen_t len)
{
	bool nocsum = underlay_takes_nocsum(u, cfg), shared = nocsum || n > 1;
	unsigned int i;
	int fd, err;

	if (shared) {
		err = underlay_port_free(u->family, a, len);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		fd = underlay_open_rx(u->family, u->proto, shared, a, len);
		if (fd < 0)
			return fd;
		u[i].fd = fd;
		if (!i && shared && underlay_steer(fd, u->family, n, nocsum))
			return -errno;
	}
	if (!nocsum)
		return 0;
	fd = underlay_open_rx(u->family, IPPROTO_UDP, true, a, len);
	if (fd < 0)
		return fd;
	u->fd_nocsum = fd;
	return 0;
}

/* What the configuration says, before any socket is opened. */
static void underlay_init(struct underlay *u, const struct config *cfg,
			  const struct peers *peers)
{
	memset(u, 0, sizeof(*u));
	u->fd = -1;
	u->fd_df = -1;
	u->fd_nocsum = -1;
	underlay_err_limit_reset(u);
	u->family = cfg->family;
	u->peers = peers;
	u->proto = encap_ip_proto(cfg->encap.type);
	u->udp = u->proto == IPPROTO_UDP;
	/*
	 * --no-offload, the classic userspace tunnel: no UDP GSO, one
	 * datagram per send and per receive call.
	 */
	u->sq.gso = u->udp && cfg->offload;
	u->zerocopy = u->udp && cfg->zerocopy;
	u->sq.family = u->family;
	u->rx_batch_max = !cfg->offload ? 1
			  : u->udp ? UNDERLAY_RX_BATCH
				   : UNDERLAY_RX_BATCH_RAW;
	u->rx_wake_max = !cfg->offload ? 1
			 : u->udp ? UNDERLAY_RX_BATCH
				  : UNDERLAY_RX_WAKE_RAW;
	u->rx_batch = u->rx_batch_max;
	u->allow = cfg->allow;
	u->n_allow = cfg->n_allow;
	/*
	 * A raw socket connected to the one peer sees only the peer's GRE
	 * packets (raw_v4_match), so only where the peer can never change:
	 * no --allow to take others, no --peers, no control socket (peer
	 * add|del). A connected raw socket cannot be let go: connect() of
	 * AF_UNSPEC unhashes it (__udp_disconnect()), and it receives
	 * nothing more. The others check the source (underlay_source()).
	 * UDP stays unconnected: the kernel's vxlan sends from a source
	 * port hashed from the inner flow (RFC 7348). A connected socket
	 * knows the peer; the others name it in each message.
	 */
	u->connected = !u->udp && !u->n_allow && cfg->n_remotes == 1 &&
		       !cfg->peers_file && cfg->control &&
		       !strcmp(cfg->control, "none");
}

/*
 * UDP port port of family is taken, not by the kernel's vxlan: by another
 * gsotun, or by some other process, said with the fix; or by whom it
 * cannot be found.
 */
static void underlay_port_process(int family, uint16_t port)
{
	char comm[32] = "?";
	pid_t pid;

	if (!holder_pid(holder_udp_inode(family, port), &pid)) {
		log_err("cannot bind the underlay socket to port %u: it is in "
			"use: give --port N", port);
		return;
	}
	holder_comm(pid, comm, sizeof(comm));
	if (!strcmp(comm, "gsotun"))
		log_err("cannot bind the underlay socket to port %u: another "
			"gsotun (pid %ld) has it: one gsotun serves several VNIs "
			"or keys (--vni N=DEV, --key N=DEV), or give --port N",
			port, (long)pid);
	else
		log_err("cannot bind the underlay socket to port %u: %s (pid "
			"%ld) has it: give --port N", port, comm, (long)pid);
}

/*
 * UDP port port is taken: by the kernel's vxlan (which holds its dstport
 * on every address of the namespace while a device is up), said with the
 * device to remove or the other port to take; else by whom it may be.
 */
static void underlay_port_taken(int family, uint16_t port)
{
	struct link *l = link_open();
	char vni[32], more[32] = "";
	struct link_vxlan v;
	int n = l ? link_vxlan_on_port(l, port, &v) : 0;

	link_close(l);
	if (n <= 0) {
		underlay_port_process(family, port);
		return;
	}
	if (v.external)
		snprintf(vni, sizeof(vni), "external");
	else
		snprintf(vni, sizeof(vni), "VNI %u", v.vni);
	if (n > 1)
		snprintf(more, sizeof(more), " and %d more", n - 1);
	log_err("cannot bind the underlay socket to port %u: the kernel's "
		"vxlan device %s (%s)%s %s it on every address: give gsotun "
		"another --port (its peers send there), or remove the device "
		"(ip link del %s)", port, v.name, vni, more,
		n > 1 ? "use" : "uses", v.name);
}

/*
 * Why the receiving socket could not be opened or bound (err), said so
 * that it points at what to change.
 */
static void underlay_bind_failed(const struct underlay *u,
				 const struct config *cfg, uint16_t port,
				 int err)
{
	char local[INET6_ADDRSTRLEN];

	if (!err)
		return;
	if (err == -EADDRINUSE && u->udp) {
		underlay_port_taken(u->family, port);
	} else if (err == -EADDRNOTAVAIL && cfg->local.family) {
		inet_ntop(cfg->local.family, &cfg->local.addr, local,
			  sizeof(local));
		log_err("cannot bind the underlay socket: --local %s is not an "
			"address of this host", local);
	} else if ((err == -EPERM || err == -EACCES) && !u->udp) {
		log_err_ret(err, "cannot open the gre underlay socket (a raw "
			    "IP socket needs CAP_NET_RAW)");
	} else if (u->udp) {
		log_err_ret(err, "cannot bind the underlay socket to port %u",
			    port);
	} else {
		log_err_ret(err, "cannot open the %s underlay socket",
			    encap_name(cfg->encap.type));
	}
}

/* Connect (raw GRE, one peer) and configure queue u's receiving sockets. */
static int underlay_setup_rx(struct underlay *u, const struct config *cfg)
{
	int err;

	if (u->connected && underlay_connect(u, u->fd)) {
		err = -errno;
		log_err_ret(err, "cannot connect the GRE socket");
		return err;
	}
	err = underlay_configure(u, u->fd, cfg->df == DF_SET, cfg);
	/*
	 * fd_nocsum sends nothing, but the kernel hands an ICMP error about
	 * fd's datagrams to any socket of the port (the lookup has no skb
	 * for the BPF program: __udp4_lib_err()), and drops a "fragmentation
	 * needed" for a socket of IP_PMTUDISC_DONT: it takes fd's DF.
	 */
	if (!err && u->fd_nocsum >= 0)
		err = underlay_configure(u, u->fd_nocsum, cfg->df == DF_SET,
					 cfg);
	if (err)
		log_err_ret(err, "cannot configure the underlay socket");
	return err;
}

/* The receiving sockets of n queues, bound to --local (or any) and --port. */
static int underlay_open_rx_socks(struct underlay *u, unsigned int n,
				  const struct config *cfg,
				  struct sockaddr_storage *local,
				  socklen_t *local_len)
{
	uint16_t port = u->udp ? cfg->port : 0;
	struct ipaddr any = { .family = u->family };
	unsigned int i;
	int err;

	*local_len = peer_sockaddr(cfg->local.family ? &cfg->local : &any, port,
				   local);
	err = underlay_bind(u, n, cfg, local, *local_len);
	underlay_bind_failed(u, cfg, port, err);
	for (i = 0; !err && i < n; i++)
		err = underlay_setup_rx(&u[i], cfg);
	return err;
}

/* The sockets that only send: DF packets, other source ports. */
static int underlay_open_tx_socks(struct underlay *u, const struct config *cfg,
				  const struct sockaddr_storage *local,
				  socklen_t local_len)
{
	int err;

	if (u->family == AF_INET && cfg->df == DF_INHERIT) {
		err = underlay_open_sender(u, cfg, local, local_len, true);
		if (err < 0) {
			log_err_ret(err, "cannot open the underlay socket for "
				    "DF packets");
			return err;
		}
		u->fd_df = err;
		u->sq.df_sock = true;
	}
	err = underlay_open_sources(u, cfg, local, local_len);
	if (err)
		log_err_ret(err, "cannot open the underlay sockets for "
			    "source ports");
	return err;
}

int underlay_open(struct underlay *u, unsigned int n, const struct config *cfg,
		  const struct peers *peers)
{
	struct sockaddr_storage local;
	socklen_t local_len;
	unsigned int i;
	int err = 0;

	for (i = 0; i < n; i++) {
		underlay_init(&u[i], cfg, peers);
		u[i].rx = underlay_rx_alloc(u[i].rx_batch_max);
		if (!u[i].rx) {
			log_err("out of memory");
			err = -ENOMEM;
		}
	}
	if (!err)
		err = underlay_open_rx_socks(u, n, cfg, &local, &local_len);
	for (i = 0; !err && i < n; i++)
		err = underlay_open_tx_socks(&u[i], cfg, &local, local_len);
	if (!err)
		return 0;
	for (i = 0; i < n; i++)
		underlay_close(&u[i]);
	return err;
}

void underlay_close(struct underlay *u)
{
	unsigned int i;

	/* [0] are fd and fd_df, closed below. */
	for (i = 1; i < u->n_src; i++) {
		close(u->src_fd[i]);
		if (u->src_fd_df[i] >= 0)
			close(u->src_fd_df[i]);
	}
	u->n_src = 0;
	if (u->fd >= 0)
		close(u->fd);
	if (u->fd_df >= 0)
		close(u->fd_df);
	if (u->fd_nocsum >= 0)
		close(u->fd_nocsum);
	u->fd = -1;
	u->fd_df = -1;
	u->fd_nocsum = -1;
	underlay_rx_free(u->rx);
	u->rx = NULL;
}

/* The socket message m leaves from: its source port, DF or not. */
static int tx_fd(const struct underlay *u, const struct sendq *q,
		 unsigned int m)
{
	const struct sendq_msg *g = &q->msgs[m];

	return g->df ? u->src_fd_df[g->src] : u->src_fd[g->src];
}

const struct sendq_params *underlay_sendq_params(const struct underlay *u)
{
	return &u->sq;
}

const struct sendq_dst *underlay_dst(const struct underlay *u,
				     const struct peer *p)
{
	return u->connected ? NULL : &p->dst;
}

unsigned int underlay_n_src(const struct underlay *u)
{
	return u->n_src;
}

unsigned int underlay_recv_fds(const struct underlay *u, int *fds)
{
	unsigned int n = 0;

	fds[n++] = u->fd;
	if (u->fd_nocsum >= 0)
		fds[n++] = u->fd_nocsum;
	return n;
}

/* The bytes of segments i to i + n - 1 of g (the last may be shorter). */
static uint32_t tx_split_bytes(const struct sendq_msg *g, unsigned int i,
			       unsigned int n)
{
	uint32_t bytes = n * g->size;

	if (i + n == g->segs)
		bytes -= g->segs * g->size - g->bytes;
	return bytes;
}

/*
 * Send the segments of GSO message m one datagram each, with one
 * sendmmsg(): the rare path after EIO or EMSGSIZE.
 */
static void tx_send_split(struct underlay *u, const struct sendq *q,
			  unsigned int m, struct underlay_sent *out)
{
	int fd = tx_fd(u, q, m);
	struct mmsghdr mm[UDP_GSO_MAX_SEGS];
	union sendq_cmsg cbuf;
	int i, n = q->msgs[m].segs, sent = 0;

	memset(mm, 0, sizeof(mm[0]) * n);
	/* Same TOS for all, so they may share one control buffer. */
	for (i = 0; i < n; i++)
		sendq_single(q, &u->sq, m, i, &mm[i].msg_hdr, &cbuf);
	while (sent < n) {
		int r = sendmmsg(fd, mm + sent, n - sent, 0);

		out->sends++;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			out->dropped++;
			out->err = errno;
			sent++;
			continue;
		}
		out->segments += r;
		out->bytes += tx_split_bytes(&q->msgs[m], sent, r);
		sent += r;
	}
}

/*
 * --zerocopy: a send of at least this many bytes goes zero-copy. Below,
 * pinning the pages and the notification cost more than the copy they
 * spare (the kernel's msg_zerocopy.rst: "generally only effective at
 * writes over around 10 KB"); measured here (ChangeLog, 2026-12-06),
 * single datagrams into a sink that drops them: 12% more CPU a byte
 * zero-copy at 1.4 KB, 10% more at 32 KB, 15% less at 60 KB.
 */
#define UNDERLAY_ZC_MIN 32768

/*
 * A zero-copy datagram holds each page its iovecs touch as a fragment of
 * one skb, at most MAX_SKB_FRAGS of them (17 unless the kernel was built
 * otherwise); past that __zerocopy_sg_from_iter() fails the send with
 * EMSGSIZE. Counted in 4 KiB pages, the smallest, and without merging
 * neighbours: an estimate never below the kernel's count.
 */
#define UNDERLAY_ZC_FRAGS 17
#define UNDERLAY_ZC_PAGE 4096u

static bool underlay_zc_fits(const struct msghdr *msg)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < msg->msg_iovlen && n <= UNDERLAY_ZC_FRAGS; i++) {
		uintptr_t a = (uintptr_t)msg->msg_iov[i].iov_base;
		size_t len = msg->msg_iov[i].iov_len;

		if (len)
			n += (a + len - 1) / UNDERLAY_ZC_PAGE -
			     a / UNDERLAY_ZC_PAGE + 1;
	}
	return n <= UNDERLAY_ZC_FRAGS;
}

/*
 * Message m of q, handed to the ring: zero-copy when it pays and the
 * kernel can take it so. A UDP GSO run of a 1500-byte path has two
 * iovecs a segment (headers, then the payload in the tap's buffer): too
 * many fragments for more than about 8 segments, 11 KB.
 */
static int underlay_send(struct underlay *u, const struct sendq *q,
			 unsigned int m, struct ring *r, uint64_t tag)
{
	const struct sendq_msg *g = &q->msgs[m];

	if (u->zerocopy && g->bytes >= UNDERLAY_ZC_MIN &&
	    underlay_zc_fits(&g->msg))
		return ring_sendmsg_zc(r, tx_fd(u, q, m), &g->msg, tag | m);
	return ring_sendmsg(r, tx_fd(u, q, m), &g->msg, tag | m);
}

int underlay_submit(struct underlay *u, struct sendq *q, struct ring *r,
		    uint64_t tag)
{
	for (; q->submitted < q->n_msgs; q->submitted++) {
		if (underlay_send(u, q, q->submitted, r, tag))
			return -ENOSPC;
	}
	return 0;
}

/*
 * Errors an earlier packet's ICMP left on the socket (IP_RECVERR sets
 * sk_err): sock_alloc_send_pskb() hands the first one to whatever send
 * comes next, which then did not go out.
 */
static bool send_err_is_icmp(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENOPROTOOPT:
	case EPROTO:
		return true;
	}
	return false;
}

/*
 * Send message m again now that the pending error is consumed; each try
 * takes one more error, should ICMP keep coming (a peer not yet up).
 */
static int tx_resend(struct underlay *u, const struct sendq *q,
		     unsigned int m, struct underlay_sent *out)
{
	int fd = tx_fd(u, q, m);
	int tries = 8;
	ssize_t r;

	do {
		out->sends++;
		r = sendmsg(fd, &q->msgs[m].msg, 0);
	} while (r < 0 && (errno == EINTR || send_err_is_icmp(errno)) &&
		 --tries);
	return r < 0 ? -errno : 0;
}

void underlay_complete(struct underlay *u, const struct sendq *q,
		       unsigned int m, int res, struct underlay_sent *out)
{
	unsigned int segs = q->msgs[m].segs;

	memset(out, 0, sizeof(*out));
	if (res < 0 && send_err_is_icmp(-res))
		res = tx_resend(u, q, m, out);
	if (res >= 0) {
		out->segments += segs;
		out->bytes += q->msgs[m].bytes;
		return;
	}
	/*
	 * udp_send_skb() refuses GSO with EIO when the way out has no
	 * checksum offload: from now on one datagram per segment.
	 */
	if (res == -EIO && segs > 1) {
		if (u->sq.gso)
			log_info("UDP GSO refused by the underlay, sending "
				 "segment by segment");
		u->sq.gso = false;
		out->gso_fallback = true;
		tx_send_split(u, q, m, out);
		return;
	}
	/*
	 * Segments larger than the path allows (the route's MTU changed
	 * before the watch saw it, or --pmtud off): as single datagrams the
	 * kernel may still fragment them (no DF).
	 */
	if (res == -EMSGSIZE && segs > 1) {
		out->gso_oversize = true;
		tx_send_split(u, q, m, out);
		return;
	}
	log_debug_ret(res, "underlay send");
	out->dropped += segs;
	out->err = -res;
}

/*
 * Only a peer, or a source --allow names, is taken; any source port, as
 * the kernel's vxlan sends from a port hashed from the inner flow (RFC
 * 7348 section 5). The peer's slot, UNDERLAY_ALLOWED, or -ENOENT.
 */
static int underlay_source(const struct underlay *u,
			   const struct sockaddr_storage *ss)
{
	const uint8_t *addr;
	unsigned int i;
	int peer;

	if (ss->ss_family != u->family)
		return -ENOENT;
	addr = peer_sockaddr_bytes(ss);
	peer = peers_find(u->peers, addr);
	if (peer >= 0)
		return peer;
	for (i = 0; i < u->n_allow; i++)
		if (optvalue_cidr_contains(&u->allow[i], addr))
			return UNDERLAY_ALLOWED;
	return -ENOENT;
}

/* What the control messages of a datagram say: GRO size, outer ECN. */
static void msg_rx_cmsgs(struct msghdr *msg, struct rx_pkt *p)
{
	struct cmsghdr *cm;
	int v;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			p->gso_size = v > 0 && v < 65536 ? v : 0;
		} else if (cm->cmsg_level == IPPROTO_IP &&
			   cm->cmsg_type == IP_TOS) {
			p->ecn = *CMSG_DATA(cm) & 3;
		} else if (cm->cmsg_level == IPPROTO_IPV6 &&
			   cm->cmsg_type == IPV6_TCLASS) {
			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			p->ecn = v & 3;
		}
	}
}

/* Reset the headers the kernel overwrote in the last batch. */
static void underlay_rx_arm(struct underlay_rx *rx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct msghdr *msg = &rx->mm[i].msg_hdr;

		rx->iov[i].iov_base = rx->bufs[i];
		rx->iov[i].iov_len = UNDERLAY_RX_BUF;
		msg->msg_name = &rx->from[i];
		msg->msg_namelen = sizeof(rx->from[i]);
		msg->msg_iov = &rx->iov[i];
		msg->msg_iovlen = 1;
		msg->msg_control = rx->ctrl[i].buf;
		msg->msg_controllen = sizeof(rx->ctrl[i].buf);
		msg->msg_flags = 0;
	}
}

/* Check one received datagram and find its encapsulation header. */
static void underlay_rx_one(struct underlay *u, int fd, int i,
			    struct rx_pkt *p)
{
	struct underlay_rx *rx = u->rx;
	struct msghdr *msg = &rx->mm[i].msg_hdr;
	size_t n = rx->mm[i].msg_len, off = 0;
	uint8_t *buf = rx->bufs[i];

	p->data = NULL;
	p->wire_len = n;
	/* A drop counts as one datagram in rx_segments (rx_dropped()). */
	p->len = n;
	p->gso_size = 0;
	p->drop = DROP_NONE;
	p->from = &rx->from[i];
	p->csum_zero = false;
	p->peer = underlay_source(u, &rx->from[i]);
	if (msg->msg_flags & MSG_TRUNC) {
		p->drop = DROP_RX_TRUNC;
		return;
	}
	if (p->peer == -ENOENT) {
		p->drop = DROP_RX_SOURCE;
		return;
	}
	p->csum_zero = fd == u->fd_nocsum;
	if (!u->udp && u->family == AF_INET && encap_strip_ip4(buf, &n, &off)) {
		p->drop = DROP_RX_OUTER;
		return;
	}
	p->data = buf + off;
	p->len = n - off;
	p->gso_size = 0;
	p->ecn = off ? buf[1] & 3 : 0;
	msg_rx_cmsgs(msg, p);
}

int underlay_recv(struct underlay *u, int fd, struct rx_pkt *p)
{
	size_t bytes = 0;
	int n, i;

	underlay_rx_arm(u->rx, u->rx_batch);
	n = recvmmsg(fd, u->rx->mm, u->rx_batch, MSG_DONTWAIT, NULL);
	if (n <= 0) {
		/* EAGAIN, or an ICMP error queued on the socket. */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			log_debug("underlay receive: %s", strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++) {
		underlay_rx_one(u, fd, i, &p[i]);
		bytes += p[i].wire_len;
	}
	u->rx_batch = underlay_rx_next(n, bytes, u->rx_batch_max);
	return n;
}

/* The error of an error queue's message, and its bytes in *len. */
static const struct sock_extended_err *msg_serr(struct msghdr *msg,
						size_t *len)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if ((cm->cmsg_level == IPPROTO_IP &&
		     cm->cmsg_type == IP_RECVERR) ||
		    (cm->cmsg_level == IPPROTO_IPV6 &&
		     cm->cmsg_type == IPV6_RECVERR)) {
			*len = cm->cmsg_len - CMSG_LEN(0);
			return (const struct sock_extended_err *)CMSG_DATA(cm);
		}
	}
	return NULL;
}

/*
 * Who sent error e (SO_EE_OFFENDER, the sockaddr after it in its cmsg of
 * len bytes) into *a; family 0 if it says none.
 */
static void underlay_offender(const struct sock_extended_err *e, size_t len,
			      struct ipaddr *a)
{
	struct sockaddr_in6 sa;

	memset(a, 0, sizeof(*a));
	if (len < sizeof(*e) + sizeof(struct sockaddr_in))
		return;
	len -= sizeof(*e);
	memcpy(&sa, e + 1, len < sizeof(sa) ? len : sizeof(sa));
	if (sa.sin6_family == AF_INET) {
		a->family = AF_INET;
		memcpy(&a->addr.v4, &((struct sockaddr_in *)&sa)->sin_addr, 4);
	} else if (sa.sin6_family == AF_INET6 && len >= sizeof(sa)) {
		a->family = AF_INET6;
		a->addr.v6 = sa.sin6_addr;
	}
}

/*
 * One entry of fd's error queue: *e points to it, copied into buf (NULL
 * when it came without one), its sender in *from, and *dst is the
 * destination of the packet that failed; false when the queue is empty.
 */
static bool underlay_error_take(int fd, struct sock_extended_err *buf,
				struct sock_extended_err **e,
				struct ipaddr *from,
				struct sockaddr_storage *dst)
{
	/*
	 * ip_recv_error() (ipv6_recv_error()) puts the error's TOS (traffic
	 * class) before IP_RECVERR on a socket that asked for it
	 * (IP_RECVTOS, IPV6_RECVTCLASS: the one that receives, for ECN); a
	 * buffer sized for the error alone cut the offender off it
	 * (MSG_CTRUNC), and this host's own host unreachable looked a
	 * router's whenever the packet had left from that socket.
	 */
	union {
		char buf[CMSG_SPACE(sizeof(int)) +
			 CMSG_SPACE(sizeof(struct sock_extended_err) +
				    sizeof(struct sockaddr_in6))];
		struct cmsghdr align;
	} ctrl;
	const struct sock_extended_err *serr;
	uint8_t data[64];
	size_t len;
	struct iovec iov = { data, sizeof(data) };
	struct msghdr msg = {
		.msg_name = dst, .msg_namelen = sizeof(*dst),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf),
	};

	if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return false;
	serr = msg_serr(&msg, &len);
	if (serr) {
		*buf = *serr;
		underlay_offender(serr, len, from);
	}
	*e = serr ? buf : NULL;
	return true;
}

/* The smallest MTU reported for peer, among those of one read. */
static void underlay_errors_mtu(struct underlay_errors *out, int peer,
				uint32_t mtu)
{
	unsigned int i;

	for (i = 0; i < out->n_mtu && out->mtu[i].peer != peer; i++)
		;
	if (i == out->n_mtu) {
		out->n_mtu++;
		out->mtu[i].peer = peer;
		out->mtu[i].mtu = mtu;
	} else if (mtu < out->mtu[i].mtu) {
		out->mtu[i].mtu = mtu;
	}
}

/* An unreachable error e about peer, sent by from. */
static void underlay_errors_unreach(struct underlay_errors *out, int peer,
				    const struct sock_extended_err *e,
				    const struct ipaddr *from)
{
	unsigned int i;

	out->unreach++;
	for (i = 0; i < out->n_unreach && out->unreach_of[i].peer != peer; i++)
		;
	if (i == out->n_unreach) {
		out->n_unreach++;
		out->unreach_of[i].peer = peer;
		out->unreach_of[i].n = 0;
	}
	out->unreach_of[i].n++;
	out->unreach_of[i].last = (struct peer_icmp){
		.origin = e->ee_origin,
		.type = e->ee_type,
		.code = e->ee_code,
		.err = (int)e->ee_errno,
		.from = *from,
	};
}

/*
 * One errqueue entry per failed packet; its msg_name is the destination of
 * the packet that failed (ip_recv_error()), so errors about anything but
 * a peer are ignored.
 */
void underlay_read_errors(struct underlay *u, int fd,
			  struct underlay_errors *out)
{
	uint64_t now = clock_now_ns();
	struct sockaddr_storage dst;
	struct sock_extended_err buf, *e;
	struct ipaddr from;
	unsigned int i;
	uint32_t mtu;
	int peer;

	memset(out, 0, sizeof(*out));
	/* Bounded: a flood of ICMP must not keep the loop here. */
	for (i = 0; i < UNDERLAY_ERR_MAX &&
		    underlay_error_take(fd, &buf, &e, &from, &dst); i++) {
		/* Errors of our own sends (EMSGSIZE) are not from outside. */
		if (e && e->ee_origin != SO_EE_ORIGIN_LOCAL &&
		    !pmtu_limit_take(&u->err_limit, now)) {
			underlay_mute_errors(u);
			out->muted++;
			break;
		}
		peer = e ? underlay_source(u, &dst) : -ENOENT;
		if (peer < 0)
			continue;
		mtu = pmtu_serr_mtu(e);
		if (!mtu) {
			underlay_errors_unreach(out, peer, e, &from);
			continue;
		}
		out->too_big++;
		underlay_errors_mtu(out, peer, mtu);
	}
}
