/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counters: traffic each way and every drop by cause; printed as one line
 * of name=value pairs on SIGUSR1 and at exit.
 */
#ifndef GSOTUN_STATS_H
#define GSOTUN_STATS_H

#include <stdint.h>
#include <stdio.h>

/*
 * Every counter, in the order the dump prints them: C(name) counts an
 * event, D(name, REASON) a drop by cause, which the pure modules return
 * as DROP_REASON (enum drop) and the caller counts in drop[]. The name is
 * what the dump prints.
 */
#define STATS_LIST(C, D)                                                      \
	/* frames read from the tap */                                        \
	C(tx_frames)                                                          \
	/* their bytes (Ethernet, no vnet header) */                          \
	C(tx_bytes)                                                           \
	/* of which GSO super-frames */                                       \
	C(tx_gso_frames)                                                      \
	/* segments sent on the underlay */                                   \
	C(tx_segments)                                                        \
	/* SENDMSG requests and resends */                                    \
	C(tx_sends)                                                           \
	/* tap left unread until sends completed */                           \
	C(tx_backpressure)                                                    \
	/* UDP GSO refused (EIO): per-segment sends */                        \
	C(tx_gso_fallback)                                                    \
	/* GSO send over the path MTU: split */                               \
	C(tx_gso_oversize)                                                    \
	/* tap's gso_max_size raised for bulk UDP */                          \
	C(tx_udp_bulk)                                                        \
	/* TCP frames cut finer to fit the path */                            \
	C(tx_resegmented)                                                     \
	/* IPv4 packets fragmented to fit the path */                         \
	C(tx_fragmented)                                                      \
	/* ICMP "too big" written to the tap */                               \
	C(tx_icmp_sent)                                                       \
	/* ICMP "too big" held back: rate limit */                            \
	C(tx_icmp_limited)                                                    \
	/* underlay ICMP: our packets too big */                              \
	C(tx_icmp_too_big)                                                    \
	/* underlay ICMP: unreachable, others */                              \
	C(tx_icmp_unreach)                                                    \
	/* underlay ICMP flooding: not heeded */                              \
	C(tx_icmp_muted)                                                      \
	/* frames sent to every peer (no fdb entry) */                        \
	C(tx_flood)                                                           \
	/* frames too big for the path, dropped */                            \
	D(tx_drop_too_big, TX_TOO_BIG)                                        \
	/* vnet: frame shorter than its headers */                            \
	D(tx_drop_short, TX_SHORT)                                            \
	/* vnet: malformed IP header */                                       \
	D(tx_drop_l3, TX_L3)                                                  \
	/* vnet: csum_start/offset outside the frame */                       \
	D(tx_drop_csum_range, TX_CSUM_RANGE)                                  \
	/* vnet: unknown gso_type */                                          \
	D(tx_drop_gso_type, TX_GSO_TYPE)                                      \
	/* vnet: bad gso_size */                                              \
	D(tx_drop_gso_size, TX_GSO_SIZE)                                      \
	/* vnet: gso_type does not match the packet */                        \
	D(tx_drop_gso_proto, TX_GSO_PROTO)                                    \
	/* vnet: hdr_len beyond the frame */                                  \
	D(tx_drop_hdr_len, TX_HDR_LEN)                                        \
	/* could not be segmented */                                          \
	D(tx_drop_segment, TX_SEGMENT)                                        \
	/* underlay send failed */                                            \
	D(tx_drop_send, TX_SEND)                                              \
	/* tap read error */                                                  \
	D(tx_drop_read, TX_READ)                                              \
	/* datagrams/packets from the underlay */                             \
	C(rx_packets)                                                         \
	/* their encapsulated bytes */                                        \
	C(rx_bytes)                                                           \
	/* frames written to the tap */                                       \
	C(rx_frames)                                                          \
	/* their bytes (Ethernet) */                                          \
	C(rx_frame_bytes)                                                     \
	/* of which written as TCP super-frames */                            \
	C(rx_gso_frames)                                                      \
	/* and their bytes */                                                 \
	C(rx_gso_bytes)                                                       \
	/* segments merged into a previous one */                             \
	C(rx_gro_merged)                                                      \
	/* frames written as UDP super-frames (GSO_UDP_L4) */                 \
	C(rx_udp_gso_frames)                                                  \
	/* and their bytes */                                                 \
	C(rx_udp_gso_bytes)                                                   \
	/* UDP datagrams merged into a previous one */                        \
	C(rx_udp_merged)                                                      \
	/* the tap refused a UDP super-frame: UDP merging off */              \
	C(rx_uso_refused)                                                     \
	/* outer CE copied onto the inner packet */                           \
	C(rx_ecn_ce)                                                          \
	/* check field held the seed: NEEDS_CSUM */                           \
	C(rx_csum_partial)                                                    \
	/* inner TCP checksum wrong: passed as is */                          \
	C(rx_inner_csum_bad)                                                  \
	/* datagrams without a UDP checksum */                                \
	C(rx_udp_csum_zero)                                                   \
	/* --learning: source MACs learnt */                                  \
	C(rx_learnt)                                                          \
	/* --learning: MACs moved to another peer */                          \
	C(rx_learn_moved)                                                     \
	/* --learning: not learnt, --max-address held */                      \
	C(rx_learn_full)                                                      \
	/* --learning: from an --allow source: not learnt */                  \
	C(rx_learn_not_peer)                                                  \
	/* not from a peer or --allow */                                      \
	D(rx_drop_source, RX_SOURCE)                                          \
	/* source MAC fixed to another peer (--fdb) */                        \
	D(rx_drop_mac_static, RX_MAC_STATIC)                                  \
	/* truncated encapsulation header */                                  \
	D(rx_drop_short, RX_SHORT)                                            \
	/* VXLAN flags / reserved bits */                                     \
	D(rx_drop_flags, RX_FLAGS)                                            \
	/* wrong VNI */                                                       \
	D(rx_drop_vni, RX_VNI)                                                \
	/* GRE version != 0 */                                                \
	D(rx_drop_gre_version, RX_GRE_VERSION)                                \
	/* GRE routing/recursion bits */                                      \
	D(rx_drop_gre_flags, RX_GRE_FLAGS)                                    \
	/* GRE protocol not 0x6558 */                                         \
	D(rx_drop_gre_proto, RX_GRE_PROTO)                                    \
	/* GRE key mismatch */                                                \
	D(rx_drop_key, RX_KEY)                                                \
	/* GRE checksum wrong */                                              \
	D(rx_drop_csum, RX_CSUM)                                              \
	/* outer CE over an inner Not-ECT packet */                           \
	D(rx_drop_ecn, RX_ECN)                                                \
	/* required checksum absent */                                        \
	D(rx_drop_csum_missing, RX_CSUM_MISSING)                              \
	/* inner frame shorter than Ethernet */                               \
	D(rx_drop_inner_short, RX_INNER_SHORT)                                \
	/* inner IP/TCP/UDP header bad or lying */                            \
	D(rx_drop_inner_hdr, RX_INNER_HDR)                                    \
	/* inner TCP over the MTU that no sender builds */                    \
	D(rx_drop_oversize, RX_OVERSIZE)                                      \
	/* outer IP header malformed (raw GRE) */                             \
	D(rx_drop_outer, RX_OUTER)                                            \
	/* datagram larger than the buffer */                                 \
	D(rx_drop_trunc, RX_TRUNC)                                            \
	/* tap write failed */                                                \
	D(rx_drop_write, RX_WRITE)

/* Why a frame or packet was dropped: 0 or an index of stats.drop[]. */
enum drop {
	DROP_NONE = 0,
#define STATS_DROP_ENUM(name, reason) DROP_##reason,
#define STATS_NO_ENUM(name)
	STATS_LIST(STATS_NO_ENUM, STATS_DROP_ENUM)
#undef STATS_NO_ENUM
#undef STATS_DROP_ENUM
	DROP__MAX,
};

struct stats {
#define STATS_FIELD(name) uint64_t name;
#define STATS_NO_FIELD(name, reason)
	STATS_LIST(STATS_FIELD, STATS_NO_FIELD)
#undef STATS_NO_FIELD
#undef STATS_FIELD
	uint64_t drop[DROP__MAX];	/* [DROP_NONE] is not printed */
};

/* Print every counter as "name=value" pairs separated by spaces, one line. */
void stats_print(FILE *out, const struct stats *s);

#endif
