/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steering: the queue a flow takes, the same both ways. A hash of the
 * inner flow that does not change when source and destination swap
 * (steer_hash()) picks it; two programs make the kernel pick the same:
 * an eBPF one for the tap's reads (TUNSETSTEERINGEBPF) and a classic
 * one for the underlay's receives (SO_ATTACH_REUSEPORT_CBPF), which
 * computes the hash of the frame inside the encapsulation.
 */
#ifndef GSOTUN_STEER_H
#define GSOTUN_STEER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include "encap.h"

/* Room for the programs steer_tap_prog() and steer_sock_prog() build. */
#define STEER_TAP_INSNS 96
#define STEER_SOCK_INSNS 128

/*
 * The flow hash of the Ethernet frame of len bytes: IPv4 or IPv6
 * addresses, protocol, and TCP or UDP ports (none for an IPv4 fragment),
 * each pair folded by xor so that the two directions hash alike; else
 * the ethertype. 16 bits: the tap keeps that much of a steering
 * program's result (tun_ebpf_select_queue()). 0 for a frame too short
 * for what it says, as the programs end on a load past the end.
 */
uint16_t steer_hash(const uint8_t *frame, size_t len);

/* The queue of n that a frame's flow takes. */
static inline unsigned int steer_queue(const uint8_t *frame, size_t len,
				       unsigned int n)
{
	return steer_hash(frame, len) % n;
}

/*
 * The eBPF socket filter for TUNSETSTEERINGEBPF, which returns
 * steer_hash() of the frame the tap is about to hand a reader (the
 * tap takes it % its queues), into out (STEER_TAP_INSNS); the number of
 * instructions.
 */
unsigned int steer_tap_prog(struct bpf_insn *out);

/*
 * The classic BPF program for SO_ATTACH_REUSEPORT_CBPF on the UDP
 * sockets of encapsulation e: steer_hash() of the inner frame % n, the
 * index of the socket in the group (in the order they were bound). It
 * sees the UDP payload (reuseport_select_sock() pulls the UDP header):
 * VXLAN's inner frame is 8 bytes in, GRE-in-UDP's after the GRE header
 * and the words its C, K and S flags announce. Into out
 * (STEER_SOCK_INSNS); the number of instructions, 0 for raw GRE (no
 * reuseport group).
 */
unsigned int steer_sock_prog(struct sock_filter *out, enum encap_type e,
			     unsigned int n);

#endif
