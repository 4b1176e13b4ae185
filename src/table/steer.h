/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steering: the queue a flow takes, in each direction always the same.
 * Frames from the tap by a hash of the inner flow (steer_hash()), which
 * an eBPF program makes the tap compute (TUNSETSTEERINGEBPF); datagrams
 * from the underlay by their outer source (steer_sock_queue()), which a
 * classic program makes the socket group compute
 * (SO_ATTACH_REUSEPORT_CBPF).
 */
#ifndef GSOTUN_STEER_H
#define GSOTUN_STEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/filter.h>

/* Room for the programs steer_tap_prog() and steer_sock_prog() build. */
#define STEER_TAP_INSNS 96
#define STEER_SOCK_INSNS 48

/*
 * The flow hash of the Ethernet frame of len bytes: IPv4 or IPv6
 * addresses, protocol, and TCP or UDP ports (none for an IPv4 fragment),
 * each pair folded by xor so that the two directions hash alike; else
 * the ethertype. 16 bits: the tap keeps that much of a steering
 * program's result (tun_ebpf_select_queue()). 0 for a frame too short
 * for what it says, as the programs end on a load past the end.
 */
uint16_t steer_hash(const uint8_t *frame, size_t len);

/*
 * The same hash of a tun's IP packet of len bytes (no link header):
 * IPv4 or IPv6 by its version nibble; else the nibble.
 */
uint16_t steer_hash_ip(const uint8_t *pkt, size_t len);

/* The queue of n that a frame's flow takes. */
static inline unsigned int steer_queue(const uint8_t *frame, size_t len,
				       unsigned int n)
{
	return steer_hash(frame, len) % n;
}

/*
 * The eBPF socket filter for TUNSETSTEERINGEBPF, which returns
 * steer_hash() of the frame the tap is about to hand a reader (the
 * tap takes it % its queues), or with tun steer_hash_ip() of a tun's
 * packet, into out (STEER_TAP_INSNS); the number of instructions.
 */
unsigned int steer_tap_prog(struct bpf_insn *out, bool tun);

/*
 * The queue of n that a datagram from saddr (4 or 16 bytes by family)
 * and UDP source port sport takes: the folded address xor the port,
 * % n. By the outer source, not the inner flow: the socket's UDP GRO
 * merges datagrams of one outer source before the group's program
 * chooses (it sees the first), so a choice by the inner flow would
 * split a flow whose datagrams sometimes come merged behind another's.
 */
unsigned int steer_sock_queue(int family, const uint8_t *saddr, uint16_t sport,
			      unsigned int n);

/*
 * The classic BPF program for SO_ATTACH_REUSEPORT_CBPF on the UDP
 * sockets of family: steer_sock_queue() of each datagram, the index of
 * the socket in the group (in the order they were bound); with nocsum,
 * a datagram without a UDP checksum goes to socket n instead (to be
 * counted: a socket cannot see the UDP header). Its data starts at the
 * UDP payload (reuseport_select_sock() pulls the UDP header), so it
 * reads the outer headers by SKF_NET_OFF; an IPv6 datagram behind an
 * extension header goes to socket 0. Into out (STEER_SOCK_INSNS); the
 * number of instructions.
 */
unsigned int steer_sock_prog(struct sock_filter *out, int family,
			     unsigned int n, bool nocsum);

#endif
