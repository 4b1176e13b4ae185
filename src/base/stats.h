/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counters: traffic each way and every drop by cause; printed as one line
 * of name=value pairs on SIGUSR1 and at exit.
 */
#ifndef GSOTUN_STATS_H
#define GSOTUN_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Every counter, in the order the dump prints them: C(name, help) counts
 * an event, D(name, REASON, help) a drop by cause, which the pure modules
 * return as DROP_REASON (enum drop) and the caller counts in drop[]. The
 * name is what the dump, `gsotunctl stats` and the metrics call it; help
 * says what it counts (the metrics' HELP). Names are an interface: a
 * counter may be added, never renamed.
 */
#define STATS_LIST(C, D)                                                      \
	C(tx_frames,                                                          \
	  "Frames read from the tap")                                         \
	C(tx_bytes,                                                           \
	  "Bytes of the frames read from the tap (Ethernet)")                 \
	C(tx_gso_frames,                                                      \
	  "Frames read from the tap that were GSO super-frames")              \
	C(tx_segments,                                                        \
	  "Encapsulated packets sent on the underlay")                        \
	C(tx_sends,                                                           \
	  "Send requests made to the kernel, resends included")               \
	C(tx_backpressure,                                                    \
	  "Times the tap was left unread until sends completed")              \
	C(tx_gso_fallback,                                                    \
	  "UDP GSO sends refused by the kernel, sent one by one")             \
	C(tx_gso_oversize,                                                    \
	  "GSO sends over the path MTU, split")                               \
	C(tx_zerocopy,                                                        \
	  "Sends made zero-copy, their notification come (--zerocopy)")       \
	C(tx_zerocopy_copied,                                                 \
	  "Of those, sends the kernel copied after all (--zerocopy)")         \
	C(tx_udp_bulk,                                                        \
	  "Times the tap's gso_max_size was raised for bulk UDP")             \
	C(tx_resegmented,                                                     \
	  "TCP super-frames cut finer to fit the path MTU")                   \
	C(tx_fragmented,                                                      \
	  "IPv4 packets fragmented to fit the path MTU")                      \
	C(tx_icmp_sent,                                                       \
	  "ICMP too-big messages written to the tap")                         \
	C(tx_icmp_limited,                                                    \
	  "ICMP too-big messages held back by the rate limit")                \
	C(tx_icmp_no_route,                                                   \
	  "ICMP net-unreachable messages written to the tun (no route/peer)") \
	C(tx_icmp_too_big,                                                    \
	  "Underlay ICMP: our packets were too big")                          \
	C(tx_icmp_unreach,                                                    \
	  "Underlay ICMP: unreachable and other errors")                      \
	C(tx_icmp_muted,                                                      \
	  "Underlay ICMP errors not heeded (flooding)")                       \
	C(tx_flood,                                                           \
	  "Frames sent to every peer (no forwarding entry)")                  \
	C(tx_echo,                                                            \
	  "Packets sent with their flow's received options (--geneve-echo)")  \
	C(tx_echo_miss,                                                       \
	  "Packets of no flow --geneve-echo holds, sent as routed")           \
	D(tx_drop_too_big, TX_TOO_BIG,                                        \
	  "Frames dropped: too big for the path")                             \
	D(tx_drop_short, TX_SHORT,                                            \
	  "Frames dropped: shorter than their headers")                       \
	D(tx_drop_l3, TX_L3,                                                  \
	  "Frames dropped: malformed IP header")                              \
	D(tx_drop_csum_range, TX_CSUM_RANGE,                                  \
	  "Frames dropped: vnet csum_start/offset outside")                   \
	D(tx_drop_gso_type, TX_GSO_TYPE,                                      \
	  "Frames dropped: unknown vnet gso_type")                            \
	D(tx_drop_gso_size, TX_GSO_SIZE,                                      \
	  "Frames dropped: bad vnet gso_size")                                \
	D(tx_drop_gso_proto, TX_GSO_PROTO,                                    \
	  "Frames dropped: gso_type does not match the packet")               \
	D(tx_drop_hdr_len, TX_HDR_LEN,                                        \
	  "Frames dropped: vnet hdr_len beyond the frame")                    \
	D(tx_drop_segment, TX_SEGMENT,                                        \
	  "Frames dropped: could not be segmented")                           \
	D(tx_drop_send, TX_SEND,                                              \
	  "Packets dropped: the underlay send failed")                        \
	D(tx_drop_no_route, TX_NO_ROUTE,                                      \
	  "Packets dropped: no --route to their destination (tun)")           \
	D(tx_drop_link_scope, TX_LINK_SCOPE,                                  \
	  "Packets dropped: link-scoped, several peers, no --route (tun)")    \
	D(tx_drop_no_peer, TX_NO_PEER,                                        \
	  "Frames dropped: the tunnel has no peer")                           \
	D(tx_drop_circular_route, TX_CIRCULAR_ROUTE,                          \
	  "Frames dropped: the route to their peer goes through our device")  \
	D(tx_drop_peer_no_route, TX_PEER_NO_ROUTE,                            \
	  "Frames dropped: the underlay has no route to their peer")          \
	D(tx_drop_read, TX_READ,                                              \
	  "Tap read errors")                                                  \
	C(rx_packets,                                                         \
	  "Receives from the underlay (a UDP GRO batch counts once)")         \
	C(rx_segments,                                                        \
	  "Encapsulated packets received (compare: peer's tx_segments)")      \
	C(rx_calls,                                                           \
	  "Receive system calls that returned packets from the underlay")     \
	C(rx_bytes,                                                           \
	  "Bytes received from the underlay (encapsulated)")                  \
	C(rx_frames,                                                          \
	  "Frames written to the tap")                                        \
	C(rx_frame_bytes,                                                     \
	  "Bytes of the frames written to the tap (Ethernet)")                \
	C(rx_gso_frames,                                                      \
	  "Frames written to the tap as TCP super-frames")                    \
	C(rx_gso_bytes,                                                       \
	  "Bytes of the TCP super-frames written to the tap")                 \
	C(rx_gro_merged,                                                      \
	  "TCP segments merged into a previous one")                          \
	C(rx_udp_gso_frames,                                                  \
	  "Frames written to the tap as UDP super-frames")                    \
	C(rx_udp_gso_bytes,                                                   \
	  "Bytes of the UDP super-frames written to the tap")                 \
	C(rx_udp_merged,                                                      \
	  "UDP datagrams merged into a previous one")                         \
	C(rx_uso_refused,                                                     \
	  "Times the tap refused a UDP super-frame")                          \
	C(rx_ecn_ce,                                                          \
	  "Outer ECN CE marks copied onto the inner packet")                  \
	C(rx_csum_partial,                                                    \
	  "Inner packets passed on with NEEDS_CSUM")                          \
	C(rx_inner_csum_bad,                                                  \
	  "Inner TCP checksums found wrong, passed as they were")             \
	C(rx_udp_csum_zero,                                                   \
	  "Datagrams received without a UDP checksum")                        \
	C(rx_learnt,                                                          \
	  "Source MACs learnt")                                               \
	C(rx_learn_moved,                                                     \
	  "Learnt MACs that moved to another peer")                           \
	C(rx_learn_full,                                                      \
	  "Source MACs not learnt: --max-address reached")                    \
	C(rx_learn_replaced,                                                  \
	  "Source MACs learnt in place of the same peer's oldest")            \
	C(rx_learn_evicted,                                                   \
	  "Source MACs learnt in place of an over-share peer's oldest")       \
	C(rx_learn_not_peer,                                                  \
	  "Source MACs not learnt: from an --allow source")                   \
	C(rx_echo_new,                                                        \
	  "Flows --geneve-echo began to hold")                                \
	C(rx_echo_evicted,                                                    \
	  "Flows --geneve-echo held in place of a live one (table full)")     \
	C(rx_echo_too_long,                                                   \
	  "Packets whose options were over --geneve-echo-room: not kept")     \
	D(rx_drop_source, RX_SOURCE,                                          \
	  "Packets dropped: not from a peer or --allow source")               \
	D(rx_drop_source_route, RX_SOURCE_ROUTE,                              \
	  "Packets dropped: inner source not routed to its peer (tun)")       \
	D(rx_drop_mac_static, RX_MAC_STATIC,                                  \
	  "Frames dropped: source MAC fixed to another peer")                 \
	D(rx_drop_mac_own, RX_MAC_OWN,                                        \
	  "Frames dropped: source MAC is the tap's own (a loop)")             \
	D(rx_drop_short, RX_SHORT,                                            \
	  "Packets dropped: truncated encapsulation header")                  \
	D(rx_drop_flags, RX_FLAGS,                                            \
	  "Packets dropped: VXLAN flags or reserved bits")                    \
	D(rx_drop_vni, RX_VNI,                                                \
	  "Packets dropped: wrong VNI")                                       \
	D(rx_drop_gre_version, RX_GRE_VERSION,                                \
	  "Packets dropped: GRE version not 0")                               \
	D(rx_drop_gre_flags, RX_GRE_FLAGS,                                    \
	  "Packets dropped: GRE routing or recursion bits")                   \
	D(rx_drop_gre_proto, RX_GRE_PROTO,                                    \
	  "Packets dropped: GRE protocol not 0x6558 (tap), IPv4/IPv6 (tun)")  \
	D(rx_drop_gpe_flags, RX_GPE_FLAGS,                                    \
	  "Packets dropped: VXLAN-GPE version not 0, OAM, or no P flag")      \
	D(rx_drop_gpe_proto, RX_GPE_PROTO,                                    \
	  "Packets dropped: VXLAN-GPE next protocol not carried")             \
	D(rx_drop_geneve_version, RX_GENEVE_VERSION,                          \
	  "Packets dropped: Geneve version not 0")                            \
	D(rx_drop_geneve_proto, RX_GENEVE_PROTO,                              \
	  "Packets dropped: Geneve protocol type not carried")                \
	D(rx_drop_geneve_opt, RX_GENEVE_OPT,                                  \
	  "Packets dropped: Geneve options past Opt Len or the packet")       \
	D(rx_drop_geneve_critical, RX_GENEVE_CRITICAL,                        \
	  "Packets dropped: unknown critical Geneve option")                  \
	D(rx_drop_geneve_oam, RX_GENEVE_OAM,                                  \
	  "Packets dropped: Geneve OAM (O bit), not for the tap")             \
	D(rx_drop_key, RX_KEY,                                                \
	  "Packets dropped: wrong GRE key")                                   \
	D(rx_drop_csum, RX_CSUM,                                              \
	  "Packets dropped: GRE checksum wrong")                              \
	D(rx_drop_ecn, RX_ECN,                                                \
	  "Packets dropped: outer CE over an inner Not-ECT packet")           \
	D(rx_drop_csum_missing, RX_CSUM_MISSING,                              \
	  "Packets dropped: required checksum absent")                        \
	D(rx_drop_inner_short, RX_INNER_SHORT,                                \
	  "Packets dropped: inner frame under Ethernet, packet under IPv4")   \
	D(rx_drop_inner_hdr, RX_INNER_HDR,                                    \
	  "Packets dropped: inner IP/TCP/UDP header bad")                     \
	D(rx_drop_oversize, RX_OVERSIZE,                                      \
	  "Packets dropped: inner TCP over what a sender builds")             \
	D(rx_drop_outer, RX_OUTER,                                            \
	  "Packets dropped: outer IP header malformed (raw GRE)")             \
	D(rx_drop_trunc, RX_TRUNC,                                            \
	  "Packets dropped: larger than the receive buffer")                  \
	D(rx_drop_write, RX_WRITE,                                            \
	  "Tap write errors")                                                 \
	C(evpn_local_added,                                                   \
	  "Local MACs written to the shadow bridge for the fabric (--evpn)")  \
	C(evpn_local_aged,                                                    \
	  "Local MACs aged out of the shadow bridge (--evpn)")                \
	C(evpn_local_full,                                                    \
	  "Local MACs not written: --max-address reached (--evpn)")           \
	C(evpn_remote_added,                                                  \
	  "Remote MACs the fabric gave, taken as forwarding entries")         \
	C(evpn_remote_moved,                                                  \
	  "Remote MACs the fabric moved to another VTEP")                     \
	C(evpn_remote_removed,                                                \
	  "Remote MACs the fabric withdrew")                                  \
	C(evpn_remote_full,                                                   \
	  "Fabric entries not taken: --max-address or the peers' limit")      \
	C(evpn_remote_fixed,                                                  \
	  "Fabric entries not taken: an --fdb entry holds the MAC")           \
	C(evpn_own_vtep,                                                      \
	  "Fabric entries not taken: the VTEP is our own --local")            \
	C(evpn_resyncs,                                                       \
	  "Full reads of the fabric's entries (start, lost notifications)")   \
	C(lane_events_lost,                                                   \
	  "Events of queue threads lost for want of room (--queues)")         \
	C(evpn_remote_local,                                                  \
	  "Fabric entries set aside: the MAC is local now (it moved here)")   \
	C(evpn_local_moved,                                                   \
	  "Local MACs the fabric placed behind another VTEP (moved away)")    \
	C(evpn_resync_failed,                                                 \
	  "Full reads of the fabric's entries that failed, asked again")      \
	C(evpn_remote_share,                                                  \
	  "Fabric MACs not taken: their VTEP holds its share of the table")   \
	C(evpn_remote_evicted,                                                \
	  "Fabric MACs given up for a VTEP below its share of the table")     \
	C(evpn_bad_vtep,                                                      \
	  "Fabric entries not taken: a VTEP that can be nobody's")            \
	C(evpn_shadow_remade,                                                 \
	  "Shadow devices deleted under gsotun, made again (--evpn)")          \
	C(busy_poll_us,                                                       \
	  "Microseconds spent polling, not asleep, after packets (--busy-poll)") \
	C(busy_poll_caught,                                                   \
	  "Wake-ups polling spared: work found while polling (--busy-poll)") \
	C(rx_coalesce_waits,                                                  \
	  "Streams' reads put off for a window (--rx-coalesce)")

/* Why a frame or packet was dropped: 0 or an index of stats.drop[]. */
enum drop {
	DROP_NONE = 0,
#define STATS_DROP_ENUM(name, reason, help) DROP_##reason,
#define STATS_NO_ENUM(name, help)
	STATS_LIST(STATS_NO_ENUM, STATS_DROP_ENUM)
#undef STATS_NO_ENUM
#undef STATS_DROP_ENUM
	DROP__MAX,
};

struct stats {
#define STATS_FIELD(name, help) uint64_t name;
#define STATS_NO_FIELD(name, reason, help)
	STATS_LIST(STATS_FIELD, STATS_NO_FIELD)
#undef STATS_NO_FIELD
#undef STATS_FIELD
	uint64_t drop[DROP__MAX];	/* [DROP_NONE] is not printed */
	uint64_t drop_ns[DROP__MAX];	/* when each last moved (clock.h) */
};

/*
 * n more dropped for why at now_ns (clock.h; a batch's time will do):
 * `gsotunctl show' says how long ago, so that a cause that was mended
 * stands out from one that goes on.
 */
static inline void stats_drop(struct stats *s, enum drop why, uint64_t n,
			      uint64_t now_ns)
{
	s->drop[why] += n;
	s->drop_ns[why] = now_ns;
}

/* A counter: its name, what it counts, where it is in struct stats. */
struct stats_desc {
	const char *name;
	const char *help;
	size_t off;
	bool drop;		/* a drop by cause */
	enum drop reason;	/* which, if a drop; else DROP_NONE */
};

/* Every counter, in STATS_LIST's order. */
extern const struct stats_desc stats_desc[];
extern const size_t stats_n;

static inline uint64_t stats_value(const struct stats *s,
				   const struct stats_desc *d)
{
	return *(const uint64_t *)((const char *)s + d->off);
}

/*
 * The counters of s added into sum; each drop's time the later of the
 * two (a device's counters and its queues' as one).
 */
void stats_add(struct stats *sum, const struct stats *s);

/* Print every counter as "name=value" pairs separated by spaces, one line. */
void stats_print(FILE *out, const struct stats *s);

#endif
