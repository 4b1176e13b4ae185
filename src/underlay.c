// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The underlay socket: sends segment plans as iovecs (header block, then a
 * payload slice of the tap buffer) and receives encapsulated packets.
 */
#include "config.h"

#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compat.h"
#include "encap.h"
#include "log.h"
#include "pmtu.h"
#include "underlay.h"

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

static socklen_t ipaddr_to_sockaddr(const struct ipaddr *a, uint16_t port,
				    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = a->addr.v6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_addr = a->addr.v4;
	s4->sin_port = htons(port);
	return sizeof(*s4);
}

/* Per-datagram state of one recvmmsg() batch. */
struct underlay_rx {
	struct mmsghdr mm[UNDERLAY_RX_BATCH];
	struct iovec iov[UNDERLAY_RX_BATCH];
	struct sockaddr_storage from[UNDERLAY_RX_BATCH];
	union {
		/* UDP_GRO and IP_TOS / IPV6_TCLASS */
		char buf[2 * CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctrl[UNDERLAY_RX_BATCH];
	uint8_t *bufs[UNDERLAY_RX_BATCH];
};

static void underlay_rx_free(struct underlay_rx *rx)
{
	int i;

	if (!rx)
		return;
	for (i = 0; i < UNDERLAY_RX_BATCH; i++)
		free(rx->bufs[i]);
	free(rx);
}

static struct underlay_rx *underlay_rx_alloc(void)
{
	struct underlay_rx *rx = calloc(1, sizeof(*rx));
	int i;

	if (!rx)
		return NULL;
	for (i = 0; i < UNDERLAY_RX_BATCH; i++) {
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
		u->gso = false;
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
	struct sock_fprog prog = { .len = 1, .filter = drop_all };
	struct sockaddr_storage addr = *local;
	int fd, err = 0;

	fd = socket(u->family, (u->udp ? SOCK_DGRAM : SOCK_RAW) |
		    SOCK_CLOEXEC, u->udp ? IPPROTO_UDP : IPPROTO_GRE);
	if (fd < 0)
		return -errno;
	/* sin_port and sin6_port are at the same offset. */
	((struct sockaddr_in *)&addr)->sin_port = 0;
	if (u->family == AF_INET6)
		sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) ||
	    bind(fd, (struct sockaddr *)&addr, local_len) ||
	    (!u->udp && connect(fd, (struct sockaddr *)&u->peer,
				u->peer_len)))
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

static void underlay_set_recverr_all(struct underlay *u, bool on)
{
	int fds[2 * CONFIG_MAX_SRC_PORTS];
	unsigned int i, n;

	n = underlay_send_only_fds(u, fds);
	fds[n++] = u->fd;
	for (i = 0; i < n; i++)
		if (underlay_set_recverr(fds[i], u->family, on))
			log_debug("IP_RECVERR %s: %s", on ? "on" : "off",
				  strerror(errno));
	u->err_muted = !on;
}

static void underlay_mute_errors(struct underlay *u, struct stats *st)
{
	if (!st->tx_icmp_muted)
		log_warn("ICMP errors about the tunnel's packets faster than "
			 "%u a second (a spoofed flood?): ignored for some "
			 "seconds", UNDERLAY_ERR_PER_SEC);
	st->tx_icmp_muted++;
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
 * steers them: the two receiving sockets share the port (SO_REUSEPORT)
 * and a classic BPF program picks fd (index 0) or fd_nocsum (index 1) by
 * the check field, reached from the network header, as UDP's reuseport
 * selection runs past the UDP header. An IPv6 datagram behind extension
 * headers goes to fd, uncounted. The kernel's UDP GRO never merges
 * datagrams without a checksum (udp_gro_receive_segment()), so each one
 * is one message.
 */
static int underlay_steer_nocsum(int fd, int family)
{
	static struct sock_filter steer4[] = {
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, (uint32_t)SKF_NET_OFF),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, (uint32_t)SKF_NET_OFF + 6),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	static struct sock_filter steer6[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF + 6),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 3),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_NET_OFF + 46),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = 5, .filter = steer4 };

	if (family == AF_INET6) {
		prog.len = 6;
		prog.filter = steer6;
	}
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
static int underlay_open_rx(int family, bool udp, bool shared,
			    const struct sockaddr_storage *a, socklen_t len)
{
	int fd;

	fd = socket(family, (udp ? SOCK_DGRAM : SOCK_RAW) | SOCK_CLOEXEC,
		    udp ? IPPROTO_UDP : IPPROTO_GRE);
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

/* fd and, where datagrams without a checksum may come, fd_nocsum. */
static int underlay_bind(struct underlay *u, const struct config *cfg,
			 const struct sockaddr_storage *a, socklen_t len)
{
	bool shared = u->udp && (u->family == AF_INET || !cfg->csum);
	int fd, err;

	if (shared) {
		err = underlay_port_free(u->family, a, len);
		if (err)
			return err;
	}
	fd = underlay_open_rx(u->family, u->udp, shared, a, len);
	if (fd < 0)
		return fd;
	u->fd = fd;
	if (!shared)
		return 0;
	if (underlay_steer_nocsum(u->fd, u->family))
		return -errno;
	fd = underlay_open_rx(u->family, true, true, a, len);
	if (fd < 0)
		return fd;
	u->fd_nocsum = fd;
	return 0;
}

int underlay_open(struct underlay *u, const struct config *cfg)
{
	struct sockaddr_storage local;
	socklen_t local_len;
	uint16_t port;
	int err;

	memset(u, 0, sizeof(*u));
	u->fd = -1;
	u->fd_df = -1;
	u->fd_nocsum = -1;
	underlay_err_limit_reset(u);
	u->family = cfg->remote.family;
	u->udp = encap_is_udp(cfg->encap.type);
	/*
	 * --no-offload, the classic userspace tunnel: no UDP GSO, one
	 * datagram per send and per receive call.
	 */
	u->gso = u->udp && cfg->offload;
	u->rx_batch = cfg->offload ? UNDERLAY_RX_BATCH : 1;
	port = u->udp ? cfg->port : 0;

	u->rx = underlay_rx_alloc();
	if (!u->rx) {
		err = -ENOMEM;
		goto fail;
	}

	if (cfg->local.family) {
		local_len = ipaddr_to_sockaddr(&cfg->local, port, &local);
	} else {
		struct ipaddr any = { .family = u->family };

		local_len = ipaddr_to_sockaddr(&any, port, &local);
	}
	err = underlay_bind(u, cfg, &local, local_len);
	if (err) {
		if (u->udp)
			log_err("cannot bind the underlay socket to port %u: "
				"%s", port, strerror(-err));
		else
			log_err("cannot open the %s underlay socket: %s",
				encap_name(cfg->encap.type), strerror(-err));
		goto fail;
	}
	u->peer_len = ipaddr_to_sockaddr(&cfg->remote, port, &u->peer);
	u->allow = cfg->allow;
	u->n_allow = cfg->n_allow;
	/*
	 * A raw socket connected to the peer sees only the peer's GRE
	 * packets (raw_v4_match), unless --allow takes others. UDP stays
	 * unconnected: the kernel's vxlan sends from a source port hashed
	 * from the inner flow (RFC 7348).
	 */
	u->connected = !u->udp && !u->n_allow;
	if (u->connected && connect(u->fd, (struct sockaddr *)&u->peer,
				    u->peer_len)) {
		err = -errno;
		log_err_errno("cannot connect the GRE socket");
		goto fail;
	}
	err = underlay_configure(u, u->fd, cfg->df == DF_SET, cfg);
	if (!err && u->fd_nocsum >= 0)
		err = underlay_configure(u, u->fd_nocsum, false, cfg);
	if (err) {
		log_err("cannot configure the underlay socket: %s",
			strerror(-err));
		goto fail;
	}
	if (u->family == AF_INET && cfg->df == DF_INHERIT) {
		err = underlay_open_sender(u, cfg, &local, local_len, true);
		if (err < 0) {
			log_err("cannot open the underlay socket for DF "
				"packets: %s", strerror(-err));
			goto fail;
		}
		u->fd_df = err;
	}
	err = underlay_open_sources(u, cfg, &local, local_len);
	if (err) {
		log_err("cannot open the underlay sockets for source ports: "
			"%s", strerror(-err));
		goto fail;
	}
	return 0;
fail:
	underlay_close(u);
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

static size_t seg_wire_len(const struct seg *s, size_t encap_len)
{
	return encap_len + seg_len(s);
}

static void seg_to_iov(const struct seg *s, size_t encap_len,
		       struct iovec *iov)
{
	iov[0].iov_base = s->hdr - encap_len;
	iov[0].iov_len = encap_len + s->hdr_len;
	iov[1].iov_base = (void *)s->payload;
	iov[1].iov_len = s->payload_len;
}

/* Room for UDP_SEGMENT (u16) and IP_TOS/IPV6_TCLASS (int). */
union send_cmsg {
	char buf[CMSG_SPACE(sizeof(uint16_t)) + CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

static size_t cmsg_put(struct msghdr *msg, size_t used, int level, int type,
		       const void *data, size_t len)
{
	struct cmsghdr *cm = (struct cmsghdr *)((char *)msg->msg_control +
						 used);

	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
	return used + CMSG_SPACE(len);
}

static void msg_set_cmsgs(struct underlay *u, struct msghdr *msg,
			  union send_cmsg *cbuf, uint16_t gso_size, int tos)
{
	size_t used = 0;

	msg->msg_control = cbuf->buf;
	if (gso_size)
		used = cmsg_put(msg, used, SOL_UDP, UDP_SEGMENT, &gso_size,
				sizeof(gso_size));
	if (tos >= 0) {
		if (u->family == AF_INET6)
			used = cmsg_put(msg, used, IPPROTO_IPV6, IPV6_TCLASS,
					&tos, sizeof(tos));
		else
			used = cmsg_put(msg, used, IPPROTO_IP, IP_TOS, &tos,
					sizeof(tos));
	}
	msg->msg_controllen = used;
	if (!used)
		msg->msg_control = NULL;
}

static void msg_set_peer(struct underlay *u, struct msghdr *msg)
{
	/* A connected GRE socket knows the peer; others name it each time. */
	if (!u->connected) {
		msg->msg_name = &u->peer;
		msg->msg_namelen = u->peer_len;
	}
}

/*
 * Messages of one transmit batch: GSO runs or single segments, each an
 * io_uring SENDMSG whose msghdr, iovec and control buffer stay here until
 * its completion.
 */
struct underlay_tx {
	struct msghdr msg[UNDERLAY_TX_SEGS];
	struct iovec iov[2 * UNDERLAY_TX_SEGS];
	union send_cmsg cmsg[UNDERLAY_TX_SEGS];
	/* Per message: segments, the first one's bytes, all its bytes. */
	uint16_t segs[UNDERLAY_TX_SEGS];
	uint32_t size[UNDERLAY_TX_SEGS];
	uint32_t bytes[UNDERLAY_TX_SEGS];
	bool closed[UNDERLAY_TX_SEGS];	/* a shorter segment ended it */
	int16_t tos[UNDERLAY_TX_SEGS];
	bool df[UNDERLAY_TX_SEGS];	/* goes out on fd_df */
	uint8_t src[UNDERLAY_TX_SEGS];	/* source socket (port) */
	unsigned int n_msgs, n_segs;
	unsigned int submitted;		/* messages handed to the ring */
};

struct underlay_tx *underlay_tx_alloc(void)
{
	return calloc(1, sizeof(struct underlay_tx));
}

void underlay_tx_free(struct underlay_tx *tx)
{
	free(tx);
}

void underlay_tx_reset(struct underlay_tx *tx)
{
	tx->n_msgs = 0;
	tx->n_segs = 0;
	tx->submitted = 0;
}

unsigned int underlay_tx_pending(const struct underlay_tx *tx)
{
	return tx->n_msgs - tx->submitted;
}

/* The socket message m leaves from: its source port, DF or not. */
static int tx_fd(const struct underlay *u, const struct underlay_tx *tx,
		 unsigned int m)
{
	return tx->df[m] ? u->src_fd_df[tx->src[m]] : u->src_fd[tx->src[m]];
}

/* A message of one segment, which later ones may join (tx_extend()). */
static void tx_new_msg(struct underlay *u, struct underlay_tx *tx,
		       unsigned int src, const struct seg *s, size_t encap_len,
		       int tos, bool df)
{
	unsigned int m = tx->n_msgs++;
	struct msghdr *msg = &tx->msg[m];
	struct iovec *iov = &tx->iov[2 * tx->n_segs];

	memset(msg, 0, sizeof(*msg));
	seg_to_iov(s, encap_len, iov);
	msg->msg_iov = iov;
	msg->msg_iovlen = 2;
	msg_set_peer(u, msg);
	msg_set_cmsgs(u, msg, &tx->cmsg[m], 0, tos);
	tx->segs[m] = 1;
	tx->size[m] = (uint32_t)seg_wire_len(s, encap_len);
	tx->bytes[m] = tx->size[m];
	tx->closed[m] = false;
	tx->tos[m] = tos;
	tx->df[m] = df && u->fd_df >= 0;
	tx->src[m] = (uint8_t)src;
	tx->n_segs++;
}

/*
 * Add s to the last message as one more UDP GSO segment, if it can be:
 * udp_send_skb() cuts a send into segments of the first one's size, the
 * last possibly shorter, at most 128 and (over veth) about 64000 bytes.
 * The segments need not be of one frame: small frames of a batch, ACKs
 * or 64-byte datagrams, leave in one send as well.
 */
static bool tx_extend(struct underlay *u, struct underlay_tx *tx,
		      unsigned int src, const struct seg *s, size_t encap_len,
		      int tos, bool df)
{
	unsigned int m = tx->n_msgs - 1;
	size_t len = seg_wire_len(s, encap_len);

	if (!u->gso || !tx->n_msgs || m < tx->submitted || tx->closed[m] ||
	    tx->src[m] != src || tx->tos[m] != tos ||
	    tx->df[m] != (df && u->fd_df >= 0) ||
	    len > tx->size[m] || tx->segs[m] >= UDP_GSO_MAX_SEGS ||
	    tx->bytes[m] + len > UDP_GSO_MAX_BYTES)
		return false;
	/* Within UDP_GSO_MAX_BYTES, size fits UDP_SEGMENT's u16. */
	/* The message's iovecs are the last ones: this pair follows them. */
	seg_to_iov(s, encap_len, &tx->iov[2 * tx->n_segs]);
	tx->msg[m].msg_iovlen += 2;
	if (++tx->segs[m] == 2)
		msg_set_cmsgs(u, &tx->msg[m], &tx->cmsg[m],
			      (uint16_t)tx->size[m], tos);
	tx->bytes[m] += len;
	tx->closed[m] = len < tx->size[m];
	tx->n_segs++;
	return true;
}

/*
 * Send the segments of GSO message m one datagram each, with one
 * sendmmsg(): the rare path after EIO or EMSGSIZE.
 */
static void tx_send_split(struct underlay *u, struct underlay_tx *tx,
			  unsigned int m, struct stats *st)
{
	int fd = tx_fd(u, tx, m);
	struct msghdr *gso = &tx->msg[m];
	struct mmsghdr mm[UDP_GSO_MAX_SEGS];
	union send_cmsg cbuf;
	int i, n = tx->segs[m], sent = 0;

	memset(mm, 0, sizeof(mm[0]) * n);
	for (i = 0; i < n; i++) {
		mm[i].msg_hdr.msg_iov = &gso->msg_iov[2 * i];
		mm[i].msg_hdr.msg_iovlen = 2;
		msg_set_peer(u, &mm[i].msg_hdr);
		/* Same TOS for all, so they may share one control buffer. */
		msg_set_cmsgs(u, &mm[i].msg_hdr, &cbuf, 0, tx->tos[m]);
	}
	while (sent < n) {
		int r = sendmmsg(fd, mm + sent, n - sent, 0);

		st->tx_sends++;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			st->tx_drop_send++;
			sent++;
			continue;
		}
		st->tx_segments += r;
		sent += r;
	}
}

int underlay_queue(struct underlay *u, struct underlay_tx *tx,
		   unsigned int src, const struct seg *segs, int n,
		   size_t encap_len, int tos, bool df)
{
	int i;

	if (tx->n_segs + n > UNDERLAY_TX_SEGS)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		if (!tx_extend(u, tx, src, &segs[i], encap_len, tos, df))
			tx_new_msg(u, tx, src, &segs[i], encap_len, tos, df);
	return 0;
}

int underlay_submit(struct underlay *u, struct underlay_tx *tx,
		    struct ring *r, uint64_t tag, struct stats *st)
{
	for (; tx->submitted < tx->n_msgs; tx->submitted++) {
		unsigned int m = tx->submitted;
		int fd = tx_fd(u, tx, m);

		if (ring_sendmsg(r, fd, &tx->msg[m], tag | m))
			return -ENOSPC;
		st->tx_sends++;
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
static int tx_resend(struct underlay *u, struct underlay_tx *tx,
		     unsigned int m, struct stats *st)
{
	int fd = tx_fd(u, tx, m);
	int tries = 8;
	ssize_t r;

	do {
		st->tx_sends++;
		r = sendmsg(fd, &tx->msg[m], 0);
	} while (r < 0 && (errno == EINTR || send_err_is_icmp(errno)) &&
		 --tries);
	return r < 0 ? -errno : 0;
}

void underlay_complete(struct underlay *u, struct underlay_tx *tx,
		       unsigned int m, int res, struct stats *st)
{
	if (res < 0 && send_err_is_icmp(-res))
		res = tx_resend(u, tx, m, st);
	if (res >= 0) {
		st->tx_segments += tx->segs[m];
		return;
	}
	/*
	 * udp_send_skb() refuses GSO with EIO when the way out has no
	 * checksum offload: from now on one datagram per segment.
	 */
	if (res == -EIO && tx->segs[m] > 1) {
		if (u->gso)
			log_info("UDP GSO refused by the underlay, sending segment by segment");
		u->gso = false;
		st->tx_gso_fallback++;
		tx_send_split(u, tx, m, st);
		return;
	}
	/*
	 * Segments larger than the path allows (the route's MTU changed
	 * before the watch saw it, or --pmtud off): as single datagrams the
	 * kernel may still fragment them (no DF).
	 */
	if (res == -EMSGSIZE && tx->segs[m] > 1) {
		st->tx_gso_oversize++;
		tx_send_split(u, tx, m, st);
		return;
	}
	log_debug("underlay send: %s", strerror(-res));
	st->tx_drop_send += tx->segs[m];
}

/* Is addr (4 or 16 bytes) inside prefix c? */
static bool cidr_contains(const struct cidr *c, const uint8_t *addr)
{
	const uint8_t *net = (const uint8_t *)&c->addr;
	unsigned int bytes = c->prefix / 8, bits = c->prefix % 8;

	if (memcmp(net, addr, bytes))
		return false;
	return !bits || !((net[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}

/*
 * Only the configured remote, or a source --allow names, is taken; any
 * source port, as the kernel's vxlan sends from a port hashed from the
 * inner flow (RFC 7348 section 5).
 */
static bool sockaddr_is_peer(const struct underlay *u,
			     const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *peer6 = (const void *)&u->peer;
	const struct sockaddr_in *peer4 = (const void *)&u->peer;
	const uint8_t *addr;
	unsigned int i;

	if (ss->ss_family != u->family)
		return false;
	if (u->family == AF_INET6) {
		addr = ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;
		if (!memcmp(addr, &peer6->sin6_addr, 16))
			return true;
	} else {
		addr = (const uint8_t *)&((const struct sockaddr_in *)ss)
			       ->sin_addr.s_addr;
		if (!memcmp(addr, &peer4->sin_addr.s_addr, 4))
			return true;
	}
	for (i = 0; i < u->n_allow; i++)
		if (cidr_contains(&u->allow[i], addr))
			return true;
	return false;
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

/*
 * A raw IPv4 socket hands us the outer IP header: check and skip it, and
 * end the packet where the header says.
 */
static int strip_ip4(const uint8_t *buf, size_t *len, size_t *off)
{
	const struct iphdr *iph = (const struct iphdr *)buf;
	size_t ihl, tot;

	if (*len < sizeof(*iph) || iph->version != 4)
		return -1;
	ihl = iph->ihl * 4u;
	tot = ntohs(iph->tot_len);
	if (ihl < sizeof(*iph) || tot < ihl || tot > *len)
		return -1;
	*off = ihl;
	*len = tot;
	return 0;
}

/* Reset the headers the kernel overwrote in the last batch. */
static void underlay_rx_arm(struct underlay_rx *rx)
{
	int i;

	for (i = 0; i < UNDERLAY_RX_BATCH; i++) {
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
			    struct rx_pkt *p, struct stats *st)
{
	struct underlay_rx *rx = u->rx;
	struct msghdr *msg = &rx->mm[i].msg_hdr;
	size_t n = rx->mm[i].msg_len, off = 0;
	uint8_t *buf = rx->bufs[i];

	p->data = NULL;
	st->rx_packets++;
	st->rx_bytes += n;
	if (msg->msg_flags & MSG_TRUNC) {
		st->rx_drop_trunc++;
		return;
	}
	if (!sockaddr_is_peer(u, &rx->from[i])) {
		st->rx_drop_source++;
		return;
	}
	if (fd == u->fd_nocsum)
		st->rx_udp_csum_zero++;
	if (!u->udp && u->family == AF_INET && strip_ip4(buf, &n, &off)) {
		st->rx_drop_outer++;
		return;
	}
	p->data = buf + off;
	p->len = n - off;
	p->gso_size = 0;
	p->ecn = off ? buf[1] & 3 : 0;
	msg_rx_cmsgs(msg, p);
}

int underlay_recv(struct underlay *u, int fd, struct rx_pkt *p,
		  struct stats *st)
{
	int n, i;

	underlay_rx_arm(u->rx);
	n = recvmmsg(fd, u->rx->mm, u->rx_batch, MSG_DONTWAIT, NULL);
	if (n <= 0) {
		/* EAGAIN, or an ICMP error queued on the socket. */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			log_debug("underlay receive: %s", strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++)
		underlay_rx_one(u, fd, i, &p[i], st);
	return n;
}

static const struct sock_extended_err *msg_serr(struct msghdr *msg)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if ((cm->cmsg_level == IPPROTO_IP &&
		     cm->cmsg_type == IP_RECVERR) ||
		    (cm->cmsg_level == IPPROTO_IPV6 &&
		     cm->cmsg_type == IPV6_RECVERR))
			return (const struct sock_extended_err *)CMSG_DATA(cm);
	}
	return NULL;
}

/*
 * One errqueue entry per failed packet; its msg_name is the destination of
 * the packet that failed (ip_recv_error()), so errors about anything but
 * the peer are ignored.
 */
/* Monotonic nanoseconds, for the ICMP error limit. */
static uint64_t underlay_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t underlay_read_errors(struct underlay *u, int fd, struct stats *st)
{
	uint64_t now = underlay_now_ns();
	uint32_t lowest = 0;
	unsigned int i;

	/* Bounded: a flood of ICMP must not keep the loop here. */
	for (i = 0; i < 64; i++) {
		union {
			char buf[CMSG_SPACE(sizeof(struct sock_extended_err) +
					    sizeof(struct sockaddr_in6))];
			struct cmsghdr align;
		} ctrl;
		struct sockaddr_storage dst;
		const struct sock_extended_err *e;
		uint8_t data[64];
		struct iovec iov = { data, sizeof(data) };
		struct msghdr msg = {
			.msg_name = &dst, .msg_namelen = sizeof(dst),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctrl.buf,
			.msg_controllen = sizeof(ctrl.buf),
		};
		uint32_t mtu;

		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		e = msg_serr(&msg);
		/* Errors of our own sends (EMSGSIZE) are not from outside. */
		if (e && e->ee_origin != SO_EE_ORIGIN_LOCAL &&
		    !pmtu_limit_take(&u->err_limit, now)) {
			underlay_mute_errors(u, st);
			break;
		}
		if (!e || !sockaddr_is_peer(u, &dst))
			continue;
		mtu = pmtu_serr_mtu(e);
		if (mtu) {
			st->tx_icmp_too_big++;
			if (!lowest || mtu < lowest)
				lowest = mtu;
		} else {
			st->tx_icmp_unreach++;
		}
	}
	return lowest;
}
