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
#include "gso.h"
#include "options.h"
#include "pmtu.h"
#include "ring.h"
#include "stats.h"

/*
 * UDP GSO limits measured here (KERNEL-FACTS.md): at most 128 segments per
 * send, and a send must stay clearly below veth's 64 KiB gso_max_size
 * or the kernel segments it in software.
 */
#define UDP_GSO_MAX_SEGS 128
#define UDP_GSO_MAX_BYTES 64000

/* Datagrams taken per receive system call. */
#define UNDERLAY_RX_BATCH 32
/* A UDP GRO datagram is at most 64 KiB; raw IPv4 adds its header. */
#define UNDERLAY_RX_BUF (65536 + 4096)

/* Segments queued per batch (a whole super-frame always fits). */
#define UNDERLAY_TX_SEGS VNET_MAX_SEGS

struct underlay_rx;
struct underlay_tx;

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
	bool gso;		/* UDP GSO usable (outer csum on, no EIO seen) */
	bool connected;		/* raw GRE, only the peer: no msg_name */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	const struct cidr *allow;	/* --allow: other accepted sources */
	struct pmtu_limit err_limit;	/* ICMP errors heeded per second */
	bool err_muted;		/* past it: IP_RECVERR off everywhere */
	unsigned int n_allow;
	struct underlay_rx *rx;	/* receive batch: buffers and headers */
	unsigned int rx_batch;	/* datagrams per receive call */
};

/* A packet taken off the underlay, outer headers stripped. */
struct rx_pkt {
	uint8_t *data;		/* the VXLAN or GRE header; NULL: dropped */
	size_t len;
	uint16_t gso_size;	/* UDP GRO: equal datagrams of this size */
	uint8_t ecn;		/* the outer header's ECN field */
};

/* Open, bind and configure the socket for cfg. 0 or -errno (logged). */
int underlay_open(struct underlay *u, const struct config *cfg);
void underlay_close(struct underlay *u);

/* A transmit queue: the messages of one batch, until they complete. */
struct underlay_tx *underlay_tx_alloc(void);
void underlay_tx_free(struct underlay_tx *tx);
/* Empty it: every message submitted has completed. */
void underlay_tx_reset(struct underlay_tx *tx);
/* Messages queued and not yet submitted. */
unsigned int underlay_tx_pending(const struct underlay_tx *tx);

/*
 * Queue n segments whose encapsulation header (encap_len bytes in front of
 * seg.hdr) is built: one UDP GSO message per run of equal segments (runs
 * go on across calls, so the small frames of a batch share sends too),
 * else one message per segment. They leave from source socket src (below
 * n_src: the inner flow's hash). tos >= 0 sets the outer TOS/traffic
 * class; df sends them with the DF bit (--df inherit; fd_df). Header
 * blocks and payloads must stay valid until the messages complete.
 * Returns -ENOSPC when the queue has no room for n more segments.
 */
int underlay_queue(struct underlay *u, struct underlay_tx *tx,
		   unsigned int src, const struct seg *segs, int n,
		   size_t encap_len, int tos, bool df);

/*
 * The sockets that only send (fd_df and the other source ports): their
 * error queues carry the ICMP errors about what they sent. Fills fds,
 * room for 2 * CONFIG_MAX_SRC_PORTS, and returns how many.
 */
unsigned int underlay_send_only_fds(const struct underlay *u, int *fds);

/*
 * Hand the queued messages to the ring as SENDMSG requests, user data
 * tag | message index (tag leaves the low 32 bits clear). -ENOSPC when
 * the ring filled up first: run it and submit again.
 */
int underlay_submit(struct underlay *u, struct underlay_tx *tx,
		    struct ring *r, uint64_t tag, struct stats *st);

/*
 * The completion of message m: counts it, and resends a GSO message the
 * kernel refused (EIO: no checksum offload; EMSGSIZE: over the path MTU)
 * one datagram per segment.
 */
void underlay_complete(struct underlay *u, struct underlay_tx *tx,
		       unsigned int m, int res, struct stats *st);

/*
 * Receive up to UNDERLAY_RX_BATCH datagrams or packets from fd (fd or
 * fd_nocsum) with one system call into the underlay's own buffers, which
 * stay valid until the next call. Returns how many were read (0: nothing
 * pending); p[i].data is NULL for one that was dropped (counted in st).
 */
int underlay_recv(struct underlay *u, int fd, struct rx_pkt *p,
		  struct stats *st);

/*
 * Read the error queue of fd (u->fd or u->fd_df): ICMP errors about the
 * packets sent to the peer (IP_RECVERR, IPV6_RECVERR), counted in st.
 * Returns the smallest path MTU a "fragmentation needed" / "packet too
 * big" (or a local EMSGSIZE) reported, 0 if none did. Past a rate of
 * errors no peer sends, IP_RECVERR goes off on every socket (counted in
 * tx_icmp_muted) until underlay_errors_resume().
 */
uint32_t underlay_read_errors(struct underlay *u, int fd, struct stats *st);

/* IP_RECVERR on again, if a flood had switched it off. */
void underlay_errors_resume(struct underlay *u);

#endif
