/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The underlay socket: UDP (vxlan, gre-udp) or raw IPPROTO_GRE, sending
 * segment plans without copying payload and receiving encapsulated packets.
 */
#ifndef GSOTUN_UNDERLAY_H
#define GSOTUN_UNDERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "base/stats.h"
#include "pipe/pmtu.h"
#include "pipe/sendq.h"
#include "conf/types.h"
#include "table/peer.h"

/*
 * Datagrams taken per receive system call, and per wake-up, at most: a
 * UDP socket's are UDP GRO datagrams of up to 64 KiB each.
 */
#define UNDERLAY_RX_BATCH 32
/*
 * The same for a raw GRE socket, which has no GRO: a packet is at most
 * the path's MTU, and a 64 KB TSO frame sent is some 44 of them. With 32
 * a call, a wake-up stopped at 46 KB and bulk TCP cost 9-12 system calls
 * per 64 KB received (issue 38); 128 is 190 KB at 1500 bytes, within
 * UNDERLAY_RX_BYTES, and GRO_MAX_FRAMES frames if none merges.
 */
#define UNDERLAY_RX_BATCH_RAW 128
/*
 * Datagrams a raw socket's wake-up may take, in calls of at most
 * UNDERLAY_RX_BATCH_RAW: another call only after a full one, which
 * would otherwise cost an epoll_wait() that returns at once.
 */
#define UNDERLAY_RX_WAKE_RAW (4 * UNDERLAY_RX_BATCH_RAW)
/* The receive state's slots: the larger of the two. */
#define UNDERLAY_RX_SLOTS UNDERLAY_RX_BATCH_RAW
/*
 * Bytes a receive batch aims at: what it copies in must still be in the
 * CPU's cache when its frames are checked and copied out to the tap. 32
 * GRO datagrams of 64 KiB (2 MiB, a whole L2) were cold again by then,
 * the tap write's copy twice as dear: bulk UDP over veth ran 10-30%
 * slower. Half an L2 of today's server cores or less.
 */
#define UNDERLAY_RX_BYTES (512 * 1024)
/* A UDP GRO datagram is at most 64 KiB; raw IPv4 adds its header. */
#define UNDERLAY_RX_BUF (65536 + 4096)
/* Error queue entries read per call. */
#define UNDERLAY_ERR_MAX 64
/* rx_pkt.peer of a source that --allow takes and that is not a peer. */
#define UNDERLAY_ALLOWED (-1)

struct ring;
struct underlay_rx;

struct underlay {
	int fd;
	int fd_df;		/* --df inherit: sends with DF; else -1 */
	/*
	 * Receives the datagrams without a UDP checksum, which the kernel
	 * steers away from fd (IPv4, or IPv6 with --no-csum); else -1.
	 */
	int fd_nocsum;
	/*
	 * The sockets a send leaves from, by inner-flow hash (source port
	 * entropy): [0] are fd and fd_df, the others send only, from
	 * ephemeral ports.
	 */
	int src_fd[CONFIG_MAX_SRC_PORTS];
	int src_fd_df[CONFIG_MAX_SRC_PORTS];
	unsigned int n_src;
	int family;
	bool udp;		/* UDP socket; else raw GRE */
	int proto;		/* the sockets' protocol: encap_ip_proto() */
	bool connected;		/* raw GRE, one fixed peer: no msg_name */
	bool zerocopy;		/* --zerocopy: large sends SENDMSG_ZC */
	/* How sends are grouped; gso goes off when the kernel says EIO. */
	struct sendq_params sq;
	const struct peers *peers;	/* whose packets are taken */
	const struct cidr *allow;	/* --allow: other accepted sources */
	unsigned int n_allow;
	struct pmtu_limit err_limit;	/* ICMP errors heeded per second */
	bool err_muted;		/* past it: IP_RECVERR off everywhere */
	bool err_warned;	/* that was logged */
	struct underlay_rx *rx;	/* receive batch: buffers and headers */
	unsigned int rx_batch;	/* datagrams per receive call, now */
	/* UNDERLAY_RX_BATCH or _RAW; 1 --no-offload */
	unsigned int rx_batch_max;
	/* A wake-up's: UNDERLAY_RX_BATCH or _WAKE_RAW; 1 --no-offload */
	unsigned int rx_wake_max;
};

/*
 * The datagrams to ask for next, after a batch of n that brought bytes:
 * as many of that mean size as fit in UNDERLAY_RX_BYTES, 1 to max.
 */
static inline unsigned int underlay_rx_next(unsigned int n, size_t bytes,
					    unsigned int max)
{
	size_t fit;

	if (!n || !bytes)
		return max;
	fit = (size_t)UNDERLAY_RX_BYTES * n / bytes;
	return fit < 1 ? 1 : fit > max ? max : fit;
}

/* A packet taken off the underlay, outer headers stripped. */
struct rx_pkt {
	uint8_t *data;		/* the VXLAN or GRE header; NULL: dropped */
	size_t len;
	size_t wire_len;	/* what the socket received (rx_bytes) */
	enum drop drop;		/* why it was dropped */
	int peer;		/* the sender's slot, or UNDERLAY_ALLOWED */
	const struct sockaddr_storage *from;	/* the sender */
	uint16_t gso_size;	/* UDP GRO: equal datagrams of this size */
	uint8_t ecn;		/* the outer header's ECN field */
	bool csum_zero;		/* it came without a UDP checksum */
};

/* What the completion of a message came to (the stats.h names). */
struct underlay_sent {
	uint32_t segments;	/* tx_segments: datagrams sent */
	uint32_t bytes;		/* their bytes */
	uint32_t sends;		/* tx_sends: system calls beyond the ring's */
	uint32_t dropped;	/* DROP_TX_SEND: datagrams not sent */
	int err;		/* why (errno) they were not */
	bool gso_fallback;	/* tx_gso_fallback */
	bool gso_oversize;	/* tx_gso_oversize */
};

/* What an error queue held (the stats.h names). */
struct underlay_errors {
	uint32_t too_big;	/* tx_icmp_too_big */
	uint32_t unreach;	/* tx_icmp_unreach */
	/* The peers they were about: how many each, and the last one. */
	struct {
		int peer;
		uint32_t n;
		struct peer_icmp last;
	} unreach_of[UNDERLAY_ERR_MAX];
	unsigned int n_unreach;
	uint32_t muted;		/* tx_icmp_muted */
	/* The smallest path MTU reported, per peer that had one. */
	struct {
		int peer;
		uint32_t mtu;
	} mtu[UNDERLAY_ERR_MAX];
	unsigned int n_mtu;
};

/*
 * Open, bind and configure the sockets of n queues for cfg, u[0] to
 * u[n - 1], taking packets from peers (which must outlive u): each
 * queue's receiving socket is one of the port's reuseport group, which
 * hands it the datagrams of its sources (steer_sock_queue()); each has
 * its own senders. 0 or -errno (logged; nothing left open).
 */
int underlay_open(struct underlay *u, unsigned int n, const struct config *cfg,
		  const struct peers *peers);
void underlay_close(struct underlay *u);

/* How the send queues of this underlay group their segments. */
const struct sendq_params *underlay_sendq_params(const struct underlay *u);

/* Peer p as a send names it; NULL for a connected socket. */
const struct sendq_dst *underlay_dst(const struct underlay *u,
				     const struct peer *p);

/* The source sockets a frame's flow hash picks from (--source-ports). */
unsigned int underlay_n_src(const struct underlay *u);

/*
 * The sockets packets from the peer arrive on (fd, and fd_nocsum when
 * there is one): fills fds, room for 2, and returns how many.
 */
unsigned int underlay_recv_fds(const struct underlay *u, int *fds);

/*
 * The sockets that only send (fd_df and the other source ports): their
 * error queues carry the ICMP errors about what they sent. Fills fds,
 * room for 2 * CONFIG_MAX_SRC_PORTS, and returns how many.
 */
unsigned int underlay_send_only_fds(const struct underlay *u, int *fds);

/*
 * Hand q's queued messages to the ring as SENDMSG requests, user data
 * tag | message index (tag leaves the low 32 bits clear), each from its
 * source socket; with --zerocopy the large ones zero-copy, which
 * complete twice (ring_sendmsg_zc()). -ENOSPC when the ring filled up
 * first: run it and submit again.
 */
int underlay_submit(struct underlay *u, struct sendq *q, struct ring *r,
		    uint64_t tag);

/*
 * The completion of message m, into *out: a send that an earlier ICMP
 * error failed is made again; a GSO message the kernel refused (EIO: no
 * checksum offload, which also ends GSO; EMSGSIZE: over the path MTU)
 * goes one datagram per segment.
 */
void underlay_complete(struct underlay *u, const struct sendq *q,
		       unsigned int m, int res, struct underlay_sent *out);

/*
 * Receive up to rx_batch datagrams or packets from fd (fd or
 * fd_nocsum) with one system call into the underlay's own buffers, which
 * stay valid until the next call. Returns how many were read (0: nothing
 * pending); p[i].data is NULL for one that was dropped, for p[i].drop.
 */
int underlay_recv(struct underlay *u, int fd, struct rx_pkt *p);

/*
 * Read the error queue of fd (u->fd or a send-only socket) into *out:
 * ICMP errors about the packets sent to the peer (IP_RECVERR,
 * IPV6_RECVERR), and the smallest path MTU a "fragmentation needed" /
 * "packet too big" (or a local EMSGSIZE) reported. Past a rate of errors
 * no peer sends, IP_RECVERR goes off on every socket (out->muted) until
 * underlay_errors_resume().
 */
void underlay_read_errors(struct underlay *u, int fd,
			  struct underlay_errors *out);

/* IP_RECVERR on again, if a flood had switched it off. */
void underlay_errors_resume(struct underlay *u);

#endif
