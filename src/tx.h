/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transmit path: frames read from the tap in batches through
 * io_uring, composed for the wire (xmit_frame()) and sent, with
 * backpressure when the sends of two batches are still under way.
 */
#ifndef GSOTUN_TX_H
#define GSOTUN_TX_H

#include <stdint.h>
#include <ev.h>
#include "gso.h"
#include "pmtu.h"
#include "pool.h"
#include "sendq.h"
#include "vnet.h"
#include "xmit.h"

/*
 * Frames read from the tap per wake-up before their segments go out in
 * one flush and the loop looks elsewhere.
 */
#define TAP_BATCH 32
/* Transmit buffer sets: one filling while the other's sends go. */
#define TX_SETS 2

struct queue;

/*
 * The buffers of one transmit batch: the frames read from the tap, the
 * segments planned for them and the messages that send them. The set is
 * free again once every send pointing into it has completed; two sets
 * let the sends of one batch go to the kernel in the same
 * io_uring_enter() as the reads of the next.
 */
struct tx_set {
	uint8_t *bufs[TAP_BATCH];	/* vnet header + frame, per read */
	int lens[TAP_BATCH];		/* what each read returned */
	struct seg_arena arena;		/* segments planned for the batch */
	struct sendq *q;		/* their messages */
	unsigned int idx;		/* 0 or 1: tags its completions */
};

/* Sources of tap frames a queue remembers handing up, by hash. */
#define TX_LOCAL_CACHE 16

struct tx {
	struct tx_set sets[TX_SETS];
	struct pool pool;	/* the sets' references */
	struct tx_set *cur;	/* the one frames are read into */
	int batch;		/* reads to ask for next time */
	int batch_max;		/* TAP_BATCH; 1 with --no-offload */
	unsigned int reads;	/* tap reads in flight */
	uint32_t gre_seq;
	struct xmit_udp_train train;	/* bulk UDP (xmit_udp_bulk()) */
	struct pmtu_limit icmp_limit;	/* ICMP "too big" into the tap */
	/* --evpn: local sources handed up lately (tx_local_source()). */
	struct tx_local {
		uint8_t mac[6];
		uint16_t vlan;
		uint64_t ns;
	} local[TX_LOCAL_CACHE];
	uint8_t icmp_buf[VNET_HDR_LEN + PMTU_ICMP_MAX];
	ev_io tap_w;
};

/* Buffers for q->tx. 0 or -ENOMEM (logged). */
int tx_init(struct queue *q);
void tx_free(struct tx *x);

/*
 * Wait until no send is in flight (between batches): the peers' socket
 * addresses that queued messages point to may then change.
 */
void tx_quiesce(struct queue *q);

/* Read the tap when it is readable. */
void tx_watch(struct queue *q);

/* A completion of a tap read or of a send (TAG_READ, TAG_SEND). */
void tx_done(struct queue *q, uint64_t data, int res);

#endif
