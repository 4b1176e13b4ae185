/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The send queue of a transmit batch: segments grouped into the messages
 * the underlay sends, one UDP GSO run or one datagram each. Pure: it only
 * builds msghdrs; underlay.c hands them to the ring.
 */
#ifndef GSOTUN_SENDQ_H
#define GSOTUN_SENDQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "pkt/gso.h"
#include "pkt/vnet.h"

/*
 * UDP GSO limits measured here (doc/design.md): at most 128 segments per
 * send, and a send must stay clearly below veth's 64 KiB gso_max_size
 * or the kernel segments it in software.
 */
#define UDP_GSO_MAX_SEGS 128
#define UDP_GSO_MAX_BYTES 64000

/* Segments queued per batch (a whole super-frame always fits). */
#define SENDQ_SEGS VNET_MAX_SEGS

/* What every message of the queue shares, fixed by the underlay. */
struct sendq_params {
	int family;		/* AF_INET or AF_INET6: the TOS cmsg */
	bool gso;		/* UDP GSO runs; else a message per segment */
	bool df_sock;		/* a socket for DF packets exists */
};

/*
 * Where a message goes: its msg_name, which must stay valid until the
 * send completes. A destination is told from another by its address
 * (the same peer, the same struct).
 */
struct sendq_dst {
	const struct sockaddr *addr;
	socklen_t len;
};

/*
 * Room for UDP_SEGMENT (u16) and IP_TOS/IPV6_TCLASS (int), aligned as a
 * cmsghdr (a size_t): not the cmsghdr itself, whose flexible data member
 * would make this a variable-sized member of struct sendq_msg.
 */
union sendq_cmsg {
	char buf[CMSG_SPACE(sizeof(uint16_t)) + CMSG_SPACE(sizeof(int))];
	size_t align;
};

/*
 * One message: a UDP GSO run of segments of size bytes (the last maybe
 * shorter), or one datagram, sent from source socket src (DF or not).
 */
struct sendq_msg {
	struct msghdr msg;
	union sendq_cmsg cmsg;
	uint32_t size;		/* the first segment's bytes on the wire */
	uint32_t bytes;		/* all of them */
	uint16_t segs;
	int16_t tos;		/* -1: the socket's */
	uint8_t src;		/* source socket (port) */
	bool df;		/* goes out on the DF socket */
	bool closed;		/* a shorter segment ended the run */
};

/*
 * The messages of one batch, with their iovecs (two per segment: the
 * encapsulation and inner headers, then the payload), which must stay
 * here until the sends complete.
 */
struct sendq {
	struct sendq_msg msgs[SENDQ_SEGS];
	struct iovec iov[2 * SENDQ_SEGS];
	unsigned int n_msgs, n_segs;
	unsigned int submitted;	/* messages handed to the ring */
};

/* Empty the queue: every message submitted has completed. */
void sendq_reset(struct sendq *q);

/* Messages queued and not yet submitted. */
unsigned int sendq_pending(const struct sendq *q);

/*
 * Queue n segments whose encapsulation header (encap_len bytes in front of
 * seg.hdr) is built, for destination to (NULL: a connected socket's
 * peer): a segment joins the last message as one more UDP GSO segment
 * when it can (udp_send_skb(): the same socket, destination, TOS and DF,
 * no longer than the first, a shorter one ends the run; at most
 * UDP_GSO_MAX_SEGS and UDP_GSO_MAX_BYTES; not once submitted), so the
 * small frames of a batch share sends too; else it starts a message. tos
 * >= 0 sets the outer TOS or traffic class. -ENOSPC when the queue has no
 * room for n more segments (nothing queued then).
 */
int sendq_add(struct sendq *q, const struct sendq_params *p,
	      const struct sendq_dst *to, unsigned int src,
	      const struct seg *segs, int n, size_t encap_len, int tos,
	      bool df);

/*
 * The message for segment i of message m alone, with its own control
 * buffer (no UDP_SEGMENT), to resend a GSO run one datagram each.
 */
void sendq_single(const struct sendq *q, const struct sendq_params *p,
		  unsigned int m, unsigned int i, struct msghdr *out,
		  union sendq_cmsg *cbuf);

#endif
