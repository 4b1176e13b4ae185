/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counters: traffic each way and every drop by cause; printed as one line
 * of name=value pairs on SIGUSR1 and at exit.
 */
#ifndef GSOTUN_STATS_H
#define GSOTUN_STATS_H

#include <stdint.h>
#include <stdio.h>

/* X(name): one counter each; the name is what the dump prints. */
#define STATS_COUNTERS(X)                                                     \
	X(tx_frames)		/* frames read from the tap */                \
	X(tx_bytes)		/* their bytes (Ethernet, no vnet header) */  \
	X(tx_gso_frames)	/* of which GSO super-frames */               \
	X(tx_segments)		/* segments (packets) sent on the underlay */ \
	X(tx_sends)		/* SENDMSG requests and resends */            \
	X(tx_backpressure)	/* tap left unread until sends completed */   \
	X(tx_gso_fallback)	/* UDP GSO refused (EIO): per-segment sends */ \
	X(tx_gso_oversize)	/* GSO send over the path MTU: split */      \
	X(tx_resegmented)	/* TCP frames cut finer to fit the path */    \
	X(tx_fragmented)	/* IPv4 packets fragmented to fit the path */ \
	X(tx_icmp_sent)		/* ICMP "too big" written to the tap */       \
	X(tx_icmp_limited)	/* ICMP "too big" held back: rate limit */    \
	X(tx_icmp_too_big)	/* underlay ICMP: our packets too big */      \
	X(tx_icmp_unreach)	/* underlay ICMP: unreachable, others */      \
	X(tx_icmp_muted)	/* underlay ICMP flooding: not heeded */      \
	X(tx_drop_too_big)	/* frames too big for the path, dropped */    \
	X(tx_drop_short)	/* vnet: frame shorter than its headers */    \
	X(tx_drop_l3)		/* vnet: malformed IP header */               \
	X(tx_drop_csum_range)	/* vnet: csum_start/offset outside */          \
	X(tx_drop_gso_type)	/* vnet: unknown gso_type */                  \
	X(tx_drop_gso_size)	/* vnet: bad gso_size */                      \
	X(tx_drop_gso_proto)	/* vnet: gso_type does not match packet */    \
	X(tx_drop_hdr_len)	/* vnet: hdr_len beyond the frame */          \
	X(tx_drop_segment)	/* could not be segmented */                  \
	X(tx_drop_send)		/* underlay send failed */                    \
	X(tx_drop_read)		/* tap read error */                          \
	X(rx_packets)		/* datagrams/packets from the underlay */     \
	X(rx_bytes)		/* their encapsulated bytes */                \
	X(rx_frames)		/* frames written to the tap */               \
	X(rx_frame_bytes)	/* their bytes (Ethernet) */                  \
	X(rx_gso_frames)	/* of which written as TCP super-frames */    \
	X(rx_gso_bytes)		/* and their bytes */                         \
	X(rx_gro_merged)	/* segments merged into a previous one */     \
	X(rx_ecn_ce)		/* outer CE copied onto the inner packet */    \
	X(rx_csum_partial)	/* check field held the seed: NEEDS_CSUM */   \
	X(rx_inner_csum_bad)	/* inner TCP checksum wrong: passed as is */  \
	X(rx_udp_csum_zero)	/* datagrams without a UDP checksum */        \
	X(rx_drop_source)	/* not from the configured remote */          \
	X(rx_drop_short)	/* truncated encapsulation header */          \
	X(rx_drop_flags)	/* VXLAN flags / reserved bits */             \
	X(rx_drop_vni)		/* wrong VNI */                               \
	X(rx_drop_gre_version)	/* GRE version != 0 */                        \
	X(rx_drop_gre_flags)	/* GRE routing/recursion bits */              \
	X(rx_drop_gre_proto)	/* GRE protocol not 0x6558 */                 \
	X(rx_drop_key)		/* GRE key mismatch */                        \
	X(rx_drop_csum)		/* GRE checksum wrong */                      \
	X(rx_drop_ecn)		/* outer CE over an inner Not-ECT packet */  \
	X(rx_drop_csum_missing)	/* required checksum absent */                \
	X(rx_drop_inner_short)	/* inner frame shorter than Ethernet */       \
	X(rx_drop_inner_hdr)	/* inner IP/TCP/UDP header bad or lying */    \
	X(rx_drop_oversize)	/* inner TCP over the MTU no sender builds */ \
	X(rx_drop_outer)	/* outer IP header malformed (raw GRE) */     \
	X(rx_drop_trunc)	/* datagram larger than the buffer */         \
	X(rx_drop_write)	/* tap write failed */

struct stats {
#define STATS_FIELD(name) uint64_t name;
	STATS_COUNTERS(STATS_FIELD)
#undef STATS_FIELD
};

/* Print every counter as "name=value" pairs separated by spaces, one line. */
void stats_print(FILE *out, const struct stats *s);

#endif
