// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test for gro: runs of TCP segments and of UDP datagrams merge, or
 * stay apart, as the kernel's GRO would; merged frames are compared with
 * super-frames built by hand here and cut back into the very segments by
 * gso_plan().
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/stats.h"
#include "pkt/gro.h"
#include "pkt/gso.h"
#include "pkt/vnet.h"
#include "pkt.h"
#include "tap.h"

#define MAX_SEGS 72
#define SEG_BUF 4096
#define TS 12

/* Payloads of an MSS-sized segment with timestamps at MTU 1500. */
#define MSS4 1448
#define MSS6 1428
/* Payload of the UDP datagrams of a run (QUIC stacks send about so). */
#define UDPSZ 1200

static struct gro G;
static struct pkt P;
/* The frames are a tun's IP packets (--mode tun, gro_init()'s l3). */
static bool tun;
/* What gro counted (G.n) and the drops it reported, by stats.h's names. */
static struct stats st;
static uint8_t out[PKT_MAX];
static uint8_t want[PKT_MAX];
static uint8_t big[PKT_MAX];
static uint8_t arena[VNET_MAX_SEGS * GSO_SLOT];
static struct seg segs[VNET_MAX_SEGS];

/* gso_plan() of f into the test's arena, from its first slot. */
static int plan_frame(const struct frame *f)
{
	struct seg_arena a;

	seg_arena_init(&a, arena, segs, VNET_MAX_SEGS);
	return gso_plan(f, &a, 0, false);
}

/* gro_add(), its counts and drop reasons collected into st. */
static enum gro_result add(uint8_t *frame, size_t len, const uint32_t *sum)
{
	enum drop why = DROP_NONE;
	enum gro_result r = gro_add(&G, frame, len, sum, &why);

	if (r == GRO_DROPPED)
		st.drop[why]++;
	st.rx_gro_merged = G.n.merged;
	st.rx_gso_frames = G.n.gso_frames;
	st.rx_csum_partial = G.n.csum_partial;
	st.rx_inner_csum_bad = G.n.inner_csum_bad;
	st.rx_udp_merged = G.n.udp_merged;
	st.rx_udp_gso_frames = G.n.udp_gso_frames;
	return r;
}

/* ---- building runs of segments ------------------------------------------ */

/* What is changed on one segment of a run (idx -1: on every one). */
enum mod_kind {
	M_END = 0,
	M_LEN,		/* payload length */
	M_FLAGS,	/* TCP flags */
	M_SEQ,		/* add to the flow's sequence from here on: a gap */
	M_ACK,		/* add to the ACK number */
	M_WIN,		/* add to the window */
	M_TSVAL,	/* add to the timestamp value */
	M_URGPTR,	/* urgent pointer */
	M_TOS,		/* IPv4 TOS */
	M_TTL,		/* IPv4 TTL */
	M_NODF,		/* clear IPv4 DF */
	M_IPID,		/* IPv4 id = 100 + arg */
	M_IPOPT,	/* IPv4 options of arg bytes */
	M_FRAG,		/* a fragment (IPv4 frag_off arg; IPv6 header) */
	M_TCLASS,	/* IPv6 traffic class */
	M_FLOWLBL,	/* IPv6 flow label */
	M_HOPS,		/* IPv6 hop limit */
	M_HBH,		/* IPv6 hop-by-hop header */
	M_ROUTING,	/* IPv6 routing header (8 bytes; 4 segments left) */
	M_SPORT,	/* source port 40000 + arg: another flow */
	M_SADDR,	/* source address ^ arg: another flow */
	M_DADDR,	/* destination address ^ arg: another flow */
	M_VLAN,		/* VLAN id 100 + arg: another flow */
	M_MAC,		/* source MAC ^ arg: another flow */
	M_RAWFLAGS,	/* TCP flags byte = arg, as it is (0: no ACK) */
	M_AE,		/* TCP AE bit (AccECN; RFC 3540's NS before) */
	M_PAD,		/* arg bytes of Ethernet padding */
	M_EXTBYTE,	/* an IPv6 extension header's option data ^ arg */
	M_SEGLEFT,	/* routing header: segments left = arg */
	M_DSTOPT,	/* IPv6 destination options of arg bytes */
	M_PARTIAL,	/* check field = pseudo-header seed */
	M_BADCSUM,	/* a payload byte flipped after the checksum */
	M_BADIPSUM,	/* IPv4 header checksum wrong */
	M_UDPZERO,	/* UDP check field 0: sent without a checksum */
	M_ULEN,		/* UDP length field: arg short of the datagram */
};

struct mod {
	int idx;
	int kind;
	uint32_t arg;
};

/*
 * One run: n segments (flows interleaved round-robin, each with its own
 * sequence and ids), changed by mods, fed in order (default 0..n-1).
 * expect lists the frames for the tap: "0-2|3,5|4p": a frame of segments
 * 0, 1 and 2 merged, one of 3 and 5, then 4 alone; a single segment is
 * written with NEEDS_CSUM unless marked p (plain, as it came) or g (a GSO
 * frame of its own, too big for the MTU). Every row runs twice: once as
 * from a UDP encapsulation, once with the sum of each frame given, as a
 * verified GRE checksum hands it on (struct encap_rx).
 */
struct row {
	const char *name;
	bool udp;		/* datagrams of UDPSZ bytes, not segments */
	bool no_uso;		/* the tap takes no UDP super-frames */
	bool ipv6;
	bool vlan;
	bool no_merge;
	bool no_rt;		/* resegmenting does not give back the bytes */
	int n;
	int flows;
	uint32_t mtu;		/* 0: 1500 */
	struct mod mods[4];
	const char *order;
	const char *expect;
	int partial;		/* rx_csum_partial */
	int bad;		/* rx_inner_csum_bad */
};

#define SYNACK (PKT_SYN | PKT_ACK)
#define FINACK (PKT_FIN | PKT_ACK)
#define PSHACK (PKT_PSH | PKT_ACK)

static const struct row rows[] = {
	/* IPv4: what merges */
	{ "tcp4 4 in order", .n = 4, .expect = "0-3" },
	{ "tcp4 45 in order (64 KB)", .n = 45, .expect = "0-44" },
	{ "tcp4 one past 64 KB", .n = 46, .expect = "0-44|45" },
	{ "tcp4 IP length exactly 65535", .n = 46,
	  .mods = { { 45, M_LEN, 323 } }, .expect = "0-45" },
	{ "tcp4 IP length 65536", .n = 46, .mods = { { 45, M_LEN, 324 } },
	  .expect = "0-44|45" },
	{ "tcp4 GRO_MAX_SEGS", .n = 66, .mods = { { -1, M_LEN, 100 } },
	  .expect = "0-63|64,65" },
	{ "tcp4 vlan", .vlan = true, .n = 3, .expect = "0-2" },
	{ "tcp4 no DF, ids count up", .n = 3, .mods = { { -1, M_NODF, 0 } },
	  .expect = "0-2" },
	/* inet_gro_flush(): the second segment sets the id mode */
	{ "tcp4 DF, fixed id", .n = 3, .no_rt = true,
	  .mods = { { -1, M_IPID, 0 } }, .expect = "0-2" },
	{ "tcp4 no DF, fixed id (as this kernel)", .n = 3, .no_rt = true,
	  .mods = { { -1, M_IPID, 0 }, { -1, M_NODF, 0 } }, .expect = "0-2" },
	{ "tcp4 ids 8,9,8: counting, then broken", .n = 3,
	  .mods = { { 0, M_IPID, 8 }, { 1, M_IPID, 9 }, { 2, M_IPID, 8 } },
	  .expect = "0,1|2" },
	{ "tcp4 ids 8,8,10: fixed, then broken", .n = 3, .no_rt = true,
	  .mods = { { 0, M_IPID, 8 }, { 1, M_IPID, 8 }, { 2, M_IPID, 10 } },
	  .expect = "0,1|2" },
	{ "tcp4 ids 8,8,9: fixed, then counting from the first", .n = 3,
	  .no_rt = true,
	  .mods = { { 0, M_IPID, 8 }, { 1, M_IPID, 8 }, { 2, M_IPID, 9 } },
	  .expect = "0,1|2" },
	{ "tcp4 no DF, ids 8,8,10", .n = 3, .no_rt = true,
	  .mods = { { -1, M_NODF, 0 }, { 0, M_IPID, 8 }, { 1, M_IPID, 8 },
		    { 2, M_IPID, 10 } },
	  .expect = "0,1|2" },
	{ "tcp4 ids wrap from 65535", .n = 3,
	  .mods = { { 0, M_IPID, 65435 }, { 1, M_IPID, 65436 },
		    { 2, M_IPID, 65437 } },
	  .expect = "0-2" },
	{ "tcp4 seeded segment merges", .n = 3,
	  .mods = { { 1, M_PARTIAL, 0 } }, .expect = "0-2", .partial = 1 },
	{ "tcp4 all seeded", .n = 3, .mods = { { -1, M_PARTIAL, 0 } },
	  .expect = "0-2", .partial = 3 },
	{ "tcp4 short segment merges, ends run", .n = 4,
	  .mods = { { 1, M_LEN, 1000 } }, .expect = "0,1|2,3" },
	{ "tcp4 PSH merges, ends run", .n = 4,
	  .mods = { { 1, M_FLAGS, PSHACK } }, .expect = "0,1|2,3" },
	{ "tcp4 PSH on the first: alone", .n = 3,
	  .mods = { { 0, M_FLAGS, PSHACK } }, .expect = "0|1,2" },
	/* tcp_gro_receive(): FIN, like PSH, merges and ends the run */
	{ "tcp4 FIN merges, ends run", .n = 3,
	  .mods = { { 2, M_FLAGS, FINACK } }, .expect = "0-2" },
	{ "tcp4 FIN in the middle merges, ends run", .n = 3,
	  .mods = { { 1, M_FLAGS, FINACK } }, .expect = "0,1|2" },
	{ "tcp4 FIN PSH merges, ends run", .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_FIN | PSHACK } }, .expect = "0,1|2" },
	{ "tcp4 FIN on the first: alone", .n = 3,
	  .mods = { { 0, M_FLAGS, FINACK } }, .expect = "0|1,2" },
	/* ECE is compared with the run's: it merges while unchanged */
	{ "tcp4 ECE on every segment", .n = 3,
	  .mods = { { -1, M_FLAGS, PKT_ECE | PKT_ACK } }, .expect = "0-2" },
	{ "tcp4 ECE from the second on", .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_ECE | PKT_ACK },
		    { 2, M_FLAGS, PKT_ECE | PKT_ACK } },
	  .expect = "0|1,2" },
	{ "tcp4 ECE ends", .n = 3,
	  .mods = { { 0, M_FLAGS, PKT_ECE | PKT_ACK },
		    { 1, M_FLAGS, PKT_ECE | PKT_ACK } },
	  .expect = "0,1|2" },
	/*
	 * tcp_gro_receive() since AccECN (Linux 6.15): a segment with CWR
	 * joins no run, and a run's flags are all equal but FIN and PSH,
	 * CWR and AE included, so nothing joins one with CWR either
	 */
	{ "tcp4 CWR on the first: alone, a run after it", .n = 3,
	  .mods = { { 0, M_FLAGS, PKT_CWR | PKT_ACK } }, .expect = "0|1,2" },
	{ "tcp4 CWR ECE on the first, ECE after: alone", .n = 3,
	  .mods = { { -1, M_FLAGS, PKT_ECE | PKT_ACK },
		    { 0, M_FLAGS, PKT_CWR | PKT_ECE | PKT_ACK } },
	  .expect = "0|1,2" },
	{ "tcp4 CWR in the middle: a run on each side, not across", .n = 5,
	  .mods = { { 2, M_FLAGS, PKT_CWR | PKT_ACK } },
	  .expect = "0,1|2|3,4" },
	{ "tcp4 CWR on the last: the run ends before it", .n = 3,
	  .mods = { { 2, M_FLAGS, PKT_CWR | PKT_ACK } }, .expect = "0,1|2" },
	{ "tcp4 CWR on every segment (AccECN's ACE): none merges", .n = 3,
	  .mods = { { -1, M_FLAGS, PKT_CWR | PKT_ACK } }, .expect = "0|1|2" },
	{ "tcp4 AE on every segment merges", .n = 3,
	  .mods = { { -1, M_AE, 0 } }, .expect = "0-2" },
	{ "tcp4 AE changes", .n = 3, .mods = { { 1, M_AE, 0 } },
	  .expect = "0|1|2" },
	{ "tcp4 no ACK on every segment (flags 0)", .n = 3,
	  .mods = { { -1, M_RAWFLAGS, 0 } }, .expect = "0-2" },
	{ "tcp4 two flows interleaved", .n = 6, .flows = 2,
	  .expect = "0,2,4|1,3,5" },
	{ "tcp4 GRO_MAX_FLOWS flows", .n = 16, .flows = 8,
	  .expect = "0,8|1,9|2,10|3,11|4,12|5,13|6,14|7,15" },
	{ "tcp4 GRO_MAX_FLOWS + 1 flows: oldest closed", .n = 18,
	  .flows = 9,
	  .expect = "0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15|16|17" },
	{ "tcp4 new timestamp starts a new run", .n = 3,
	  .mods = { { 1, M_TSVAL, 1 }, { 2, M_TSVAL, 1 } },
	  .expect = "0|1,2" },
	/* tcp_gro_receive() does not compare it; without URG it is noise */
	{ "tcp4 different urgent pointer, no URG", .n = 3, .no_rt = true,
	  .mods = { { 1, M_URGPTR, 7 } }, .expect = "0-2" },
	/* IPv4: what must not merge */
	{ "tcp4 seq gap", .n = 3, .mods = { { 1, M_SEQ, 1 } },
	  .expect = "0|1,2" },
	{ "tcp4 out of order", .n = 4, .order = "0,2,1,3",
	  .expect = "0|2|1|3" },
	{ "tcp4 different ACK", .n = 3, .mods = { { 1, M_ACK, 1 } },
	  .expect = "0|1|2" },
	{ "tcp4 different window", .n = 3, .mods = { { 1, M_WIN, 1 } },
	  .expect = "0|1|2" },
	{ "tcp4 different timestamp", .n = 3, .mods = { { 1, M_TSVAL, 1 } },
	  .expect = "0|1|2" },
	{ "tcp4 SYN", .n = 3, .mods = { { 1, M_FLAGS, SYNACK } },
	  .expect = "0|1|2" },
	{ "tcp4 RST", .n = 3, .mods = { { 1, M_FLAGS, PKT_RST | PKT_ACK } },
	  .expect = "0|1|2" },
	{ "tcp4 URG", .n = 3, .mods = { { 1, M_FLAGS, PKT_URG | PKT_ACK } },
	  .expect = "0|1|2" },
	{ "tcp4 URG on the first", .n = 3,
	  .mods = { { 0, M_FLAGS, PKT_URG | PKT_ACK } }, .expect = "0|1,2" },
	{ "tcp4 CWR joins no run, and none joins it", .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_CWR | PKT_ACK } }, .expect = "0|1|2" },
	{ "tcp4 CWR twice", .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_CWR | PKT_ACK },
		    { 2, M_FLAGS, PKT_CWR | PKT_ACK } },
	  .expect = "0|1|2" },
	{ "tcp4 ECE changes", .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_ECE | PKT_ACK } }, .expect = "0|1|2" },
	{ "tcp4 URG twice", .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_URG | PKT_ACK },
		    { 2, M_FLAGS, PKT_URG | PKT_ACK } },
	  .expect = "0|1|2" },
	{ "tcp4 no ACK", .n = 3, .mods = { { 1, M_FLAGS, PKT_PSH } },
	  .expect = "0|1|2" },
	{ "tcp4 pure ACK", .n = 3, .mods = { { 1, M_LEN, 0 } },
	  .expect = "0|1|2" },
	{ "tcp4 IP options", .n = 3, .mtu = 9000,
	  .mods = { { 1, M_IPOPT, 4 }, { 2, M_IPOPT, 4 } },
	  .expect = "0|1|2" },
	{ "tcp4 fragment: plain, closes the flow", .n = 3,
	  .mods = { { 1, M_FRAG, 0x2000 }, { 2, M_SEQ, -MSS4 },
		    { 2, M_IPID, 1 } },
	  .expect = "0|1p|2" },
	{ "tcp4 fragment of another host", .n = 3,
	  .mods = { { 1, M_FRAG, 0x2000 }, { 1, M_SADDR, 1 } },
	  .expect = "0,2|1p" },
	{ "tcp4 reserved fragment bit", .n = 3,
	  .mods = { { -1, M_FRAG, 0xc000 } }, .expect = "0|1|2" },
	{ "tcp4 Ethernet padding", .n = 3, .mods = { { 1, M_PAD, 4 } },
	  .expect = "0|1|2" },
	{ "tcp4 different TOS", .n = 3, .mods = { { 1, M_TOS, 4 } },
	  .expect = "0|1|2" },
	{ "tcp4 ECN CE", .n = 3, .mods = { { 1, M_TOS, 3 } },
	  .expect = "0|1|2" },
	{ "tcp4 different TTL", .n = 3, .mods = { { 1, M_TTL, 63 } },
	  .expect = "0|1|2" },
	{ "tcp4 DF cleared", .n = 3, .mods = { { 1, M_NODF, 0 } },
	  .expect = "0|1|2" },
	{ "tcp4 id jumps", .n = 3, .mods = { { 1, M_IPID, 5 } },
	  .expect = "0|1|2" },
	{ "tcp4 ids count down", .n = 3,
	  .mods = { { 0, M_IPID, 8 }, { 1, M_IPID, 7 }, { 2, M_IPID, 6 } },
	  .expect = "0|1|2" },
	{ "tcp4 different source port", .n = 3, .mods = { { 1, M_SPORT, 1 } },
	  .expect = "0,2|1" },
	{ "tcp4 different source address", .n = 3,
	  .mods = { { 1, M_SADDR, 1 } }, .expect = "0,2|1" },
	{ "tcp4 different destination address", .n = 3,
	  .mods = { { 1, M_DADDR, 2 } }, .expect = "0,2|1" },
	{ "tcp4 different MAC", .n = 3, .mods = { { 1, M_MAC, 1 } },
	  .expect = "0,2|1" },
	{ "tcp4 different VLAN", .vlan = true, .n = 3,
	  .mods = { { 1, M_VLAN, 1 } }, .expect = "0,2|1" },
	{ "tcp4 longer than mss", .n = 3, .mtu = 9000,
	  .mods = { { 1, M_LEN, 1500 } }, .expect = "0|1,2" },
	{ "tcp4 short first segment sets the mss", .n = 3,
	  .mods = { { -1, M_LEN, 1000 } }, .expect = "0-2" },
	{ "tcp4 after a short first segment", .n = 3,
	  .mods = { { 0, M_LEN, 1000 } }, .expect = "0|1,2" },
	{ "tcp4 bad IPv4 header checksum", .n = 3,
	  .mods = { { 1, M_BADIPSUM, 0 } }, .expect = "0|1|2" },
	/* The end-to-end checksum: never made good, passed as it came */
	{ "tcp4 bad checksum: as it came, alone", .n = 3,
	  .mods = { { 1, M_BADCSUM, 0 } }, .expect = "0|1p|2", .bad = 1 },
	{ "tcp4 bad checksum on the first", .n = 3,
	  .mods = { { 0, M_BADCSUM, 0 } }, .expect = "0p|1,2", .bad = 1 },
	{ "tcp4 bad checksum on the last", .n = 2,
	  .mods = { { 1, M_BADCSUM, 0 } }, .expect = "0|1p", .bad = 1 },
	{ "tcp4 bad checksum between seeded ones", .n = 3,
	  .mods = { { 0, M_PARTIAL, 0 }, { 2, M_PARTIAL, 0 },
		    { 1, M_BADCSUM, 0 } },
	  .expect = "0|1p|2", .partial = 2, .bad = 1 },
	{ "tcp4 bad checksum, PSH", .n = 3,
	  .mods = { { 1, M_FLAGS, PSHACK }, { 1, M_BADCSUM, 0 } },
	  .expect = "0|1p|2", .bad = 1 },
	{ "tcp4 too big for the MTU in a run", .n = 3,
	  .mods = { { 1, M_LEN, 3000 } }, .expect = "0|1g|2" },
	{ "tcp4 too big for the MTU, bad checksum", .n = 3,
	  .mods = { { 1, M_LEN, 3000 }, { 1, M_BADCSUM, 0 } },
	  .expect = "0|1p|2", .bad = 1 },
	{ "tcp4 merge off", .no_merge = true, .n = 3, .expect = "0|1|2" },
	{ "tcp4 merge off, seeded", .no_merge = true, .n = 2,
	  .mods = { { -1, M_PARTIAL, 0 } }, .expect = "0|1", .partial = 2 },
	{ "tcp4 merge off, bad checksum", .no_merge = true, .n = 2,
	  .mods = { { 1, M_BADCSUM, 0 } }, .expect = "0|1p", .bad = 1 },
	/* IPv6 */
	{ "tcp6 4 in order", .ipv6 = true, .n = 4, .expect = "0-3" },
	{ "tcp6 45 in order (64 KB)", .ipv6 = true, .n = 45,
	  .expect = "0-44" },
	{ "tcp6 IP length exactly 65535", .ipv6 = true, .n = 46,
	  .mods = { { 45, M_LEN, 1203 } }, .expect = "0-45" },
	{ "tcp6 IP length 65536", .ipv6 = true, .n = 46,
	  .mods = { { 45, M_LEN, 1204 } }, .expect = "0-44|45" },
	{ "tcp6 GRO_MAX_SEGS", .ipv6 = true, .n = 65,
	  .mods = { { -1, M_LEN, 200 } }, .expect = "0-63|64" },
	{ "tcp6 vlan PSH", .ipv6 = true, .vlan = true, .n = 3,
	  .mods = { { 2, M_FLAGS, PSHACK } }, .expect = "0-2" },
	{ "tcp6 two flows interleaved", .ipv6 = true, .n = 6, .flows = 2,
	  .order = "0,1,3,2,5,4", .expect = "0,2,4|1,3,5" },
	{ "tcp6 seeded", .ipv6 = true, .n = 3, .mods = { { 0, M_PARTIAL, 0 } },
	  .expect = "0-2", .partial = 1 },
	{ "tcp6 FIN merges, ends run", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_FLAGS, FINACK } }, .expect = "0,1|2" },
	{ "tcp6 ECE on every segment", .ipv6 = true, .n = 3,
	  .mods = { { -1, M_FLAGS, PKT_ECE | PKT_ACK } }, .expect = "0-2" },
	{ "tcp6 CWR on the first: alone, a run after it", .ipv6 = true,
	  .n = 3, .mods = { { 0, M_FLAGS, PKT_CWR | PKT_ACK } },
	  .expect = "0|1,2" },
	{ "tcp6 CWR in the middle: a run on each side, not across",
	  .ipv6 = true, .n = 5, .mods = { { 2, M_FLAGS, PKT_CWR | PKT_ACK } },
	  .expect = "0,1|2|3,4" },
	{ "tcp6 CWR on every segment: none merges", .ipv6 = true, .n = 3,
	  .mods = { { -1, M_FLAGS, PKT_CWR | PKT_ACK } }, .expect = "0|1|2" },
	{ "tcp6 AE changes", .ipv6 = true, .n = 3, .mods = { { 1, M_AE, 0 } },
	  .expect = "0|1|2" },
	/* ipv6_gro_receive(): through identical extension headers */
	{ "tcp6 hop-by-hop header on every segment", .ipv6 = true, .n = 3,
	  .mtu = 9000,
	  .mods = { { -1, M_HBH, 0 } }, .expect = "0-2" },
	{ "tcp6 hop-by-hop from the second on", .ipv6 = true, .n = 3,
	  .mtu = 9000, .mods = { { 1, M_HBH, 0 }, { 2, M_HBH, 0 } },
	  .expect = "0|1,2" },
	{ "tcp6 hop-by-hop + dest opts on every segment", .ipv6 = true,
	  .n = 4, .mtu = 9000,
	  .mods = { { -1, M_HBH, 0 }, { -1, M_DSTOPT, 16 } },
	  .expect = "0-3" },
	{ "tcp6 routing header, no segments left", .ipv6 = true, .n = 3,
	  .mtu = 9000,
	  .mods = { { -1, M_ROUTING, 0 }, { -1, M_SEGLEFT, 0 } },
	  .expect = "0-2" },
	{ "tcp6 hop-by-hop option data differs", .ipv6 = true, .n = 3,
	  .mtu = 9000,
	  .mods = { { -1, M_HBH, 0 }, { 1, M_EXTBYTE, 0x20 } },
	  .expect = "0|1|2" },
	{ "tcp6 dest opts of another length", .ipv6 = true, .n = 3,
	  .mtu = 9000,
	  .mods = { { -1, M_DSTOPT, 8 }, { 1, M_DSTOPT, 16 } },
	  .expect = "0|1|2" },
	{ "tcp6 routing header: plain, closes the flow", .ipv6 = true,
	  .n = 3, .mods = { { 1, M_ROUTING, 0 }, { 2, M_SEQ, -MSS6 } },
	  .expect = "0|1p|2" },
	{ "tcp6 routing header with segments left, bad checksum: plain",
	  .ipv6 = true, .n = 3,
	  .mods = { { 1, M_ROUTING, 0 }, { 1, M_BADCSUM, 0 },
		    { 2, M_SEQ, -MSS6 } },
	  .expect = "0|1p|2" },
	{ "tcp6 fragment: plain, closes the flow", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_FRAG, 0 }, { 2, M_SEQ, -MSS6 } },
	  .expect = "0|1p|2" },
	{ "tcp6 Ethernet padding", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_PAD, 2 } }, .expect = "0|1|2" },
	{ "tcp6 seq gap", .ipv6 = true, .n = 3, .mods = { { 2, M_SEQ, 9 } },
	  .expect = "0,1|2" },
	{ "tcp6 different ACK", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_ACK, 1 } }, .expect = "0|1|2" },
	{ "tcp6 different timestamp", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_TSVAL, 1 } }, .expect = "0|1|2" },
	{ "tcp6 different flow label", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_FLOWLBL, 0x12345 } }, .expect = "0|1|2" },
	{ "tcp6 different hop limit", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_HOPS, 63 } }, .expect = "0|1|2" },
	{ "tcp6 different traffic class", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_TCLASS, 0x20 } }, .expect = "0|1|2" },
	{ "tcp6 CWR joins no run, and none joins it", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_FLAGS, PKT_CWR | PKT_ACK } }, .expect = "0|1|2" },
	{ "tcp6 pure ACK", .ipv6 = true, .n = 3, .mods = { { 1, M_LEN, 0 } },
	  .expect = "0|1|2" },
	{ "tcp6 different source address", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_SADDR, 0x80 } }, .expect = "0,2|1" },
	{ "tcp6 different destination address", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_DADDR, 0x40 } }, .expect = "0,2|1" },
	{ "tcp6 bad checksum: as it came, alone", .ipv6 = true, .n = 4,
	  .mods = { { 2, M_BADCSUM, 0 } }, .expect = "0,1|2p|3", .bad = 1 },
	{ "tcp6 too big for the MTU in a run", .ipv6 = true, .n = 3,
	  .mods = { { 1, M_LEN, 3000 } }, .expect = "0|1g|2" },
	{ "tcp6 merge off", .ipv6 = true, .no_merge = true, .n = 3,
	  .expect = "0|1|2" },
	/* udp_gro_receive_segment(): what merges */
	{ "udp4 4 of one size", .udp = true, .n = 4, .expect = "0-3" },
	{ "udp4 shorter last merges, ends run", .udp = true, .n = 4,
	  .mods = { { 2, M_LEN, 500 } }, .expect = "0-2|3" },
	{ "udp4 longer one starts a new run", .udp = true, .n = 3,
	  .mods = { { 1, M_LEN, 1300 } }, .expect = "0|1,2" },
	{ "udp4 GRO_MAX_SEGS (UDP_GRO_CNT_MAX)", .udp = true, .n = 66,
	  .mods = { { -1, M_LEN, 100 } }, .expect = "0-63|64,65" },
	{ "udp4 IP length 64 KB", .udp = true, .n = 56,
	  .expect = "0-53|54,55" },
	{ "udp4 seeded merges", .udp = true, .n = 3,
	  .mods = { { 1, M_PARTIAL, 0 } }, .expect = "0-2", .partial = 1 },
	{ "udp4 vlan", .udp = true, .vlan = true, .n = 3, .expect = "0-2" },
	{ "udp4 no DF, ids count up", .udp = true, .n = 3,
	  .mods = { { -1, M_NODF, 0 } }, .expect = "0-2" },
	{ "udp4 fixed id", .udp = true, .n = 3, .no_rt = true,
	  .mods = { { -1, M_IPID, 0 } }, .expect = "0-2" },
	{ "udp4 two flows interleaved", .udp = true, .n = 6, .flows = 2,
	  .expect = "0,2,4|1,3,5" },
	/* what must not merge */
	{ "udp4 ids 8,9,8", .udp = true, .n = 3,
	  .mods = { { 0, M_IPID, 8 }, { 1, M_IPID, 9 }, { 2, M_IPID, 8 } },
	  .expect = "0,1|2" },
	{ "udp4 zero checksum (none): as it came", .udp = true, .n = 3,
	  .mods = { { 1, M_UDPZERO, 0 } }, .expect = "0|1p|2" },
	{ "udp4 all without checksum", .udp = true, .n = 3,
	  .mods = { { -1, M_UDPZERO, 0 } }, .expect = "0p|1p|2p" },
	{ "udp4 bad checksum: as it came, alone", .udp = true, .n = 4,
	  .mods = { { 2, M_BADCSUM, 0 } }, .expect = "0,1|2p|3", .bad = 1 },
	{ "udp4 UDP length under the datagram", .udp = true, .n = 3,
	  .mods = { { 1, M_ULEN, 4 } }, .expect = "0|1p|2" },
	{ "udp4 empty datagram", .udp = true, .n = 3,
	  .mods = { { 1, M_LEN, 0 } }, .expect = "0|1p|2" },
	{ "udp4 IP options", .udp = true, .n = 3,
	  .mods = { { -1, M_IPOPT, 4 } }, .expect = "0p|1p|2p" },
	{ "udp4 fragment: plain, closes the flow", .udp = true, .n = 3,
	  .mods = { { 1, M_FRAG, 0x2000 } }, .expect = "0|1p|2" },
	{ "udp4 Ethernet padding", .udp = true, .n = 3,
	  .mods = { { 1, M_PAD, 2 } }, .expect = "0|1p|2" },
	{ "udp4 different TOS", .udp = true, .n = 3,
	  .mods = { { 1, M_TOS, 0x20 } }, .expect = "0|1|2" },
	{ "udp4 different TTL", .udp = true, .n = 3,
	  .mods = { { 1, M_TTL, 7 } }, .expect = "0|1|2" },
	{ "udp4 DF differs", .udp = true, .n = 3,
	  .mods = { { 1, M_NODF, 0 } }, .expect = "0|1|2" },
	{ "udp4 another source port", .udp = true, .n = 3,
	  .mods = { { 1, M_SPORT, 1 } }, .expect = "0,2|1" },
	{ "udp4 over the tap's MTU", .udp = true, .n = 3, .mtu = 1000,
	  .expect = "0p|1p|2p" },
	{ "udp4 merge off (--no-gro)", .udp = true, .no_merge = true, .n = 3,
	  .expect = "0p|1p|2p" },
	{ "udp4 no USO on the tap", .udp = true, .no_uso = true, .n = 3,
	  .expect = "0p|1p|2p" },
	{ "udp4 no USO, seeded: NEEDS_CSUM", .udp = true, .no_uso = true,
	  .n = 2, .mods = { { -1, M_PARTIAL, 0 } }, .expect = "0|1",
	  .partial = 2 },
	{ "udp6 4 of one size", .udp = true, .ipv6 = true, .n = 4,
	  .expect = "0-3" },
	{ "udp6 shorter last merges, ends run", .udp = true, .ipv6 = true,
	  .n = 3, .mods = { { 1, M_LEN, 7 } }, .expect = "0,1|2" },
	{ "udp6 hop-by-hop header", .udp = true, .ipv6 = true, .n = 3,
	  .mods = { { -1, M_HBH, 0 } }, .expect = "0p|1p|2p" },
	{ "udp6 different hop limit", .udp = true, .ipv6 = true, .n = 3,
	  .mods = { { 1, M_HOPS, 63 } }, .expect = "0|1|2" },
	{ "udp6 different traffic class", .udp = true, .ipv6 = true, .n = 3,
	  .mods = { { 1, M_TCLASS, 0x20 } }, .expect = "0|1|2" },
	{ "udp6 different flow label", .udp = true, .ipv6 = true, .n = 3,
	  .mods = { { 1, M_FLOWLBL, 0x12345 } }, .expect = "0|1|2" },
	{ "udp6 zero checksum: wrong, as it came", .udp = true, .ipv6 = true,
	  .n = 3, .mods = { { 1, M_UDPZERO, 0 } }, .expect = "0|1p|2",
	  .bad = 1 },
};

/* A segment as built: layout, and three copies. */
struct tseg {
	uint8_t proto;
	uint32_t len;
	uint32_t ip_end;
	uint32_t plen;
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t hdr_len;
};

static struct tseg ts[MAX_SEGS];
static uint8_t work[MAX_SEGS][SEG_BUF];	/* fed to gro_add() */
static uint8_t orig[MAX_SEGS][SEG_BUF];	/* as fed, kept */
static uint8_t ref[MAX_SEGS][SEG_BUF];	/* with correct checksums */

/* Sequence and id of each flow of a run. */
struct flowctr {
	uint32_t key;
	uint32_t seq;
	uint16_t id;
};

static struct flowctr fcs[MAX_SEGS];
static int n_fcs;

static struct flowctr *flow_ctr(uint32_t key)
{
	int i;

	for (i = 0; i < n_fcs; i++)
		if (fcs[i].key == key)
			return &fcs[i];
	fcs[n_fcs].key = key;
	fcs[n_fcs].seq = 0x7ffffa00;
	fcs[n_fcs].id = 100;
	return &fcs[n_fcs++];
}

static bool mod_on(const struct mod *m, int i)
{
	return m->idx == i || m->idx == -1;
}

static uint16_t check_off(uint8_t proto)
{
	return proto == IPPROTO_UDP ? 6 : 16;
}

/* The naive seed: folded, not inverted pseudo-header sum. */
static uint16_t ref_seed(const uint8_t *b, uint16_t l3, uint16_t l4,
			 uint32_t end, uint8_t proto)
{
	return pkt_fold(pkt_pseudo(b + l3, proto, end - l4));
}

static void ref_fix(uint8_t *b, const struct tseg *t)
{
	uint8_t *ip = b + t->l3_off, *th = b + t->l4_off;
	uint32_t l4len = t->ip_end - t->l4_off;
	uint16_t c = check_off(t->proto);

	if (ip[0] >> 4 == 4) {
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	}
	pkt_put16(th + c, 0);
	pkt_put16(th + c,
		  (uint16_t)~pkt_fold(pkt_pseudo(ip, t->proto, l4len) +
				      pkt_sum(th, l4len, 0)));
}

/* Spec-level changes; returns the flow key. */
static uint32_t spec_mods(const struct row *r, int i, struct pkt_spec *s)
{
	uint32_t key = r->flows ? (uint32_t)(i % r->flows) : 0;
	const struct mod *m;

	for (m = r->mods; m->kind; m++) {
		if (!mod_on(m, i))
			continue;
		switch (m->kind) {
		case M_LEN:
			s->payload_len = m->arg;
			break;
		case M_FLAGS:
			s->tcp_flags = (uint8_t)m->arg;
			break;
		case M_IPOPT:
			s->ip_opt_len = (uint8_t)m->arg;
			break;
		case M_FRAG:
			s->ip_frag = (uint16_t)m->arg;
			s->ip6_frag = r->ipv6;
			break;
		case M_HBH:
			s->ip6_hbh = true;
			break;
		case M_DSTOPT:
			s->ip6_dst_len = (uint16_t)m->arg;
			break;
		case M_PAD:
			s->pad = (uint16_t)m->arg;
			break;
		case M_ROUTING:
			s->ip6_dst_len = 8;
			break;
		case M_SPORT:
		case M_SADDR:
		case M_DADDR:
		case M_VLAN:
		case M_MAC:
			key = key * 131 + (uint32_t)m->kind * 17 + m->arg;
			break;
		}
	}
	return key;
}

static void ip6_set_tclass(uint8_t *ip, uint32_t tc)
{
	ip[0] = (uint8_t)(0x60 | tc >> 4);
	ip[1] = (uint8_t)((tc & 15) << 4 | (ip[1] & 15));
}

static void ip6_set_flowlbl(uint8_t *ip, uint32_t fl)
{
	ip[1] = (uint8_t)((ip[1] & 0xf0) | (fl >> 16 & 15));
	pkt_put16(ip + 2, fl & 0xffff);
}

/* Byte-level changes of headers, before the checksums are made. */
static void byte_mod(const struct mod *m, uint8_t *b, const struct tseg *t,
		     bool ipv6)
{
	uint8_t *ip = b + t->l3_off, *th = b + t->l4_off;

	switch (m->kind) {
	case M_ACK:
		pkt_put32(th + 8, pkt_get32(th + 8) + m->arg);
		break;
	case M_WIN:
		pkt_put16(th + 14, pkt_get16(th + 14) + m->arg);
		break;
	case M_TSVAL:
		pkt_put32(th + 24, pkt_get32(th + 24) + m->arg);
		break;
	case M_URGPTR:
		pkt_put16(th + 18, m->arg);
		break;
	case M_TOS:
	case M_TCLASS:
		if (ipv6)
			ip6_set_tclass(ip, m->arg);
		else
			ip[1] = (uint8_t)m->arg;
		break;
	case M_TTL:
	case M_HOPS:
		ip[ipv6 ? 7 : 8] = (uint8_t)m->arg;
		break;
	case M_NODF:
		ip[6] &= (uint8_t)~0x40;
		break;
	case M_FLOWLBL:
		ip6_set_flowlbl(ip, m->arg);
		break;
	case M_ROUTING:
		ip[6] = IPPROTO_ROUTING;
		break;
	case M_SEGLEFT:
		ip[40 + 3] = (uint8_t)m->arg;
		break;
	case M_EXTBYTE:
		ip[40 + 5] ^= (uint8_t)m->arg;
		break;
	case M_RAWFLAGS:
		th[13] = (uint8_t)m->arg;
		break;
	case M_AE:
		th[12] |= 0x01;
		break;
	case M_SPORT:
		pkt_put16(th, 40000 + m->arg);
		break;
	case M_SADDR:
		ip[ipv6 ? 23 : 15] ^= (uint8_t)m->arg;
		break;
	case M_DADDR:
		ip[ipv6 ? 39 : 19] ^= (uint8_t)m->arg;
		break;
	case M_VLAN:
		pkt_put16(b + 14, 100 + m->arg);
		break;
	case M_MAC:
		b[11] ^= (uint8_t)m->arg;
		break;
	}
}

/* Changes that make the fed copy differ from the correct one. */
static void bad_mod(const struct mod *m, uint8_t *b, const struct tseg *t)
{
	switch (m->kind) {
	case M_PARTIAL:
		pkt_put16(b + t->l4_off + check_off(t->proto),
			  ref_seed(b, t->l3_off, t->l4_off, t->ip_end,
				   t->proto));
		break;
	case M_UDPZERO:
		pkt_put16(b + t->l4_off + 6, 0);
		break;
	case M_ULEN:
		pkt_put16(b + t->l4_off + 4, t->ip_end - t->l4_off - m->arg);
		break;
	case M_BADCSUM:
		b[t->ip_end - 1] ^= 0x5a;
		break;
	case M_BADIPSUM:
		b[t->l3_off + 11] ^= 1;
		break;
	}
}

static int build_seg(const struct row *r, int i)
{
	struct pkt_spec s = {
		.ipv6 = r->ipv6,
		.l4 = r->udp ? IPPROTO_UDP : IPPROTO_TCP,
		.vlans = r->vlan ? 1 : 0,
		.tcp_opt_len = r->udp ? 0 : TS,
		.payload_len = r->udp ? UDPSZ : r->ipv6 ? MSS6 : MSS4,
		.seed = (uint32_t)i + 1,
	};
	struct tseg *t = &ts[i];
	const struct mod *m;
	struct flowctr *c;

	c = flow_ctr(spec_mods(r, i, &s));
	for (m = r->mods; m->kind; m++)
		if (mod_on(m, i) && m->kind == M_SEQ)
			c->seq += m->arg;
	s.seq = c->seq;
	s.ip_id = c->id;
	for (m = r->mods; m->kind; m++)
		if (mod_on(m, i) && m->kind == M_IPID)
			s.ip_id = (uint16_t)(100 + m->arg);
	c->seq += s.payload_len;
	c->id++;
	pkt_build(&s, &P);
	if (tun)
		pkt_to_ip(&P);
	if (P.len > SEG_BUF)
		return -1;
	t->proto = P.proto;
	t->len = P.len;
	t->ip_end = P.ip_end;
	t->l3_off = P.l3_off;
	t->l4_off = P.l4_off;
	t->hdr_len = P.hdr_len;
	t->plen = P.ip_end - P.hdr_len;
	pkt_put16(P.buf + t->l4_off, 40000 + (r->flows ? i % r->flows : 0));
	for (m = r->mods; m->kind; m++)
		if (mod_on(m, i))
			byte_mod(m, P.buf, t, r->ipv6);
	ref_fix(P.buf, t);
	memcpy(ref[i], P.buf, t->len);
	for (m = r->mods; m->kind; m++)
		if (mod_on(m, i))
			bad_mod(m, P.buf, t);
	memcpy(orig[i], P.buf, t->len);
	memcpy(work[i], P.buf, t->len);
	return 0;
}

/* ---- expectations -------------------------------------------------------- */

struct xframe {
	int idx[MAX_SEGS];
	int n;
	char kind;	/* 0, 'p' or 'g' */
};

static struct xframe xf[MAX_SEGS];

/* "a" or "a-b" items separated by commas; returns how many indexes. */
static int parse_list(const char **p, int *idx, int max)
{
	int n = 0;
	long a, b;
	char *e;

	for (;;) {
		a = strtol(*p, &e, 10);
		b = a;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (; a <= b && n < max; a++)
			idx[n++] = (int)a;
		*p = e;
		if (**p != ',')
			return n;
		(*p)++;
	}
}

static int parse_expect(const char *s)
{
	int n = 0;

	if (!*s)
		return 0;
	for (;;) {
		xf[n].n = parse_list(&s, xf[n].idx, MAX_SEGS);
		xf[n].kind = 0;
		if (*s == 'p' || *s == 'g')
			xf[n].kind = *s++;
		n++;
		if (*s != '|' || n == MAX_SEGS)
			return n;
		s++;
	}
}

/* The super-frame of segments idx[0..n), made by hand from their bytes. */
static uint32_t ref_super(const int *idx, int n, uint8_t *b)
{
	const struct tseg *t = &ts[idx[0]];
	uint8_t *ip = b + t->l3_off, *th = b + t->l4_off;
	uint8_t flags = 0;
	uint32_t off = t->hdr_len;
	int k;

	memcpy(b, orig[idx[0]], t->hdr_len);
	for (k = 0; k < n; k++) {
		const struct tseg *u = &ts[idx[k]];

		memcpy(b + off, orig[idx[k]] + u->hdr_len, u->plen);
		off += u->plen;
		if (u->proto == IPPROTO_TCP)
			flags |= orig[idx[k]][u->l4_off + 13];
	}
	if (ip[0] >> 4 == 4) {
		pkt_put16(ip + 2, off - t->l3_off);
		pkt_put16(ip + 10, 0);
		pkt_put16(ip + 10, pkt_ip4_check(ip));
	} else {
		pkt_put16(ip + 4, off - t->l3_off - 40);
	}
	/* udp_gro_complete(): the UDP length of the whole. */
	if (t->proto == IPPROTO_UDP)
		pkt_put16(th + 4, off - t->l4_off);
	else
		th[13] |= flags & (PKT_PSH | PKT_FIN);
	pkt_put16(th + check_off(t->proto),
		  ref_seed(b, t->l3_off, t->l4_off, off, t->proto));
	return off;
}

/*
 * A segment alone with NEEDS_CSUM: as it came, check field reseeded; a
 * datagram alone: as it came.
 */
static uint32_t ref_single(int i, uint8_t *b)
{
	const struct tseg *t = &ts[i];

	memcpy(b, orig[i], t->ip_end);
	if (t->proto == IPPROTO_TCP)
		pkt_put16(b + t->l4_off + 16, ref_seed(b, t->l3_off, t->l4_off,
						       t->ip_end, IPPROTO_TCP));
	return t->ip_end;
}

static uint32_t gather(const struct gro_frame *fr, uint8_t *b)
{
	uint32_t off = fr->hdr_len;
	unsigned int k;

	memcpy(b, fr->hdr, fr->hdr_len);
	for (k = 0; k < fr->n_slices; k++) {
		memcpy(b + off, fr->slices[k].iov_base, fr->slices[k].iov_len);
		off += (uint32_t)fr->slices[k].iov_len;
	}
	return off;
}

static bool vnet_is(const struct virtio_net_hdr *h, uint8_t flags,
		    uint8_t gso_type, uint16_t gso_size, uint16_t hdr_len,
		    uint16_t csum_start, uint16_t csum_offset)
{
	return h->flags == flags && h->gso_type == gso_type &&
	       h->gso_size == gso_size && h->hdr_len == hdr_len &&
	       h->csum_start == csum_start && h->csum_offset == csum_offset;
}

/* A datagram whose check field holds the seed, as a sender left it. */
static bool udp_seeded(int i)
{
	const struct tseg *t = &ts[i];

	return pkt_get16(orig[i] + t->l4_off + 6) ==
	       ref_seed(orig[i], t->l3_off, t->l4_off, t->ip_end,
			IPPROTO_UDP);
}

static uint8_t gso_type_of(bool ipv6)
{
	return ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
}

/* What the vnet header of expected frame x must be. */
static bool check_vnet(const struct gro_frame *fr, const struct xframe *x,
		       bool ipv6, uint32_t mtu)
{
	const struct tseg *t = &ts[x->idx[0]];
	const uint8_t F = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	uint8_t type = gso_type_of(ipv6);

	if (x->kind == 'p')
		return vnet_is(&fr->vnet, 0, 0, 0, 0, 0, 0);
	/* A datagram alone goes as it came: NEEDS_CSUM only if seeded. */
	if (t->proto == IPPROTO_UDP && x->n == 1)
		return udp_seeded(x->idx[0]) ?
		       vnet_is(&fr->vnet, F, 0, 0, 0, t->l4_off, 6) :
		       vnet_is(&fr->vnet, 0, 0, 0, 0, 0, 0);
	if (t->proto == IPPROTO_UDP)
		return vnet_is(&fr->vnet, F, VIRTIO_NET_HDR_GSO_UDP_L4,
			       (uint16_t)t->plen, t->hdr_len, t->l4_off, 6);
	if (x->kind == 'g')
		return vnet_is(&fr->vnet, F, gso_type_of(ipv6),
			       (uint16_t)(mtu - (t->hdr_len - t->l3_off)),
			       t->hdr_len, t->l4_off, 16);
	if (x->n == 1)
		return vnet_is(&fr->vnet, F, 0, 0, 0, t->l4_off, 16);
	/* No run holds CWR, so none is ECN (tcp_gro_complete()). */
	return vnet_is(&fr->vnet, F, type, (uint16_t)t->plen, t->hdr_len,
		       t->l4_off, 16);
}

static bool check_bytes(const struct gro_frame *fr, const struct xframe *x)
{
	uint32_t n = gather(fr, out), w;

	if (n != fr->len)
		return false;
	if (x->kind == 'p')
		return n == ts[x->idx[0]].len &&
		       !memcmp(out, orig[x->idx[0]], n);
	if (x->n == 1)
		w = ref_single(x->idx[0], want);
	else
		w = ref_super(x->idx, x->n, want);
	return n == w && !memcmp(out, want, n);
}

/* No payload copied: every slice lies in the buffer that was fed. */
static bool check_zero_copy(const struct gro_frame *fr,
			    const struct xframe *x)
{
	const uint8_t *base;
	int k;

	if (x->n == 1) {
		base = fr->slices[fr->n_slices - 1].iov_base;
		return base >= work[x->idx[0]] &&
		       base < work[x->idx[0]] + ts[x->idx[0]].len;
	}
	if (fr->n_slices != x->n)
		return false;
	for (k = 0; k < x->n; k++) {
		const struct tseg *t = &ts[x->idx[k]];

		if (fr->slices[k].iov_base != work[x->idx[k]] + t->hdr_len ||
		    fr->slices[k].iov_len != t->plen)
			return false;
	}
	return true;
}

/* The transmit side cuts a merged frame back into its segments. */
static bool check_round_trip(const struct gro_frame *fr,
			     const struct xframe *x)
{
	uint32_t n = gather(fr, out);
	struct frame f;
	int r, k;

	if (vnet_hdr_parse_as(tun, &fr->vnet, out, n, &f) != DROP_NONE)
		return false;
	r = plan_frame(&f);
	if (r != x->n)
		return false;
	for (k = 0; k < r; k++) {
		const struct tseg *t = &ts[x->idx[k]];

		if (seg_len(&segs[k]) != t->ip_end ||
		    memcmp(segs[k].hdr, ref[x->idx[k]], segs[k].hdr_len) ||
		    memcmp(segs[k].payload, ref[x->idx[k]] + segs[k].hdr_len,
			   segs[k].payload_len))
			return false;
	}
	return true;
}

/* ---- the table ----------------------------------------------------------- */

struct run_result {
	int merged, queued, dropped, other;
};

/*
 * The sum of the frame as fed, as a verified GRE checksum hands it on:
 * a wsum (csum.h), made from the naive sum.
 */
static uint32_t frame_wsum(const uint8_t *b, uint32_t len)
{
	uint16_t v = pkt_fold(pkt_sum(b, len, 0)), m;
	uint8_t w[2];

	pkt_put16(w, v);
	memcpy(&m, w, sizeof(m));
	return m;
}

static void feed(const struct row *r, bool sums, struct run_result *res)
{
	int order[MAX_SEGS], n, k;
	const char *p = r->order;
	uint32_t sum;

	memset(res, 0, sizeof(*res));
	if (p) {
		n = parse_list(&p, order, MAX_SEGS);
	} else {
		for (n = 0; n < r->n; n++)
			order[n] = n;
	}
	for (k = 0; k < n; k++) {
		int i = order[k];

		sum = frame_wsum(work[i], ts[i].len);
		switch (add(work[i], ts[i].len, sums ? &sum : NULL)) {
		case GRO_MERGED:
			res->merged++;
			break;
		case GRO_QUEUED:
			res->queued++;
			break;
		case GRO_DROPPED:
			res->dropped++;
			break;
		default:
			res->other++;
			break;
		}
	}
	gro_flush(&G);
}

static void run_row(const struct row *r, bool sums)
{
	uint32_t mtu = r->mtu ? r->mtu : 1500;
	int nx, k, merged = 0, gso = 0;
	bool bytes = true, vnet = true, zc = true, rt = true;
	struct run_result res;
	char name[160];

	snprintf(name, sizeof(name), "%s%s%s", tun ? "tun: " : "", r->name,
		 sums ? " (sum given)" : "");
	n_fcs = 0;
	for (k = 0; k < r->n; k++) {
		if (build_seg(r, k)) {
			ok(0, "%s: segment %d too big for the test", name, k);
			return;
		}
	}
	nx = parse_expect(r->expect);
	for (k = 0; k < nx; k++) {
		merged += xf[k].n - 1;
		gso += xf[k].n > 1 || xf[k].kind == 'g';
	}
	memset(&st, 0, sizeof(st));
	gro_init(&G, mtu, !r->no_merge, !r->no_uso, tun);
	feed(r, sums, &res);
	if (!is_int(G.n_frames, nx, "%s: frames", name))
		return;
	ok(G.n_open == 0, "%s: nothing open after flush", name);
	for (k = 0; k < nx; k++) {
		const struct gro_frame *fr = &G.frames[k];

		bytes = bytes && check_bytes(fr, &xf[k]);
		vnet = vnet && check_vnet(fr, &xf[k], r->ipv6, mtu);
		zc = zc && check_zero_copy(fr, &xf[k]);
		if (xf[k].n > 1 && !r->no_rt)
			rt = rt && check_round_trip(fr, &xf[k]);
	}
	ok(bytes, "%s: frame bytes as built by hand", name);
	ok(vnet, "%s: vnet headers", name);
	ok(zc, "%s: payloads not copied", name);
	ok(rt, "%s: gso_plan() gives back the segments", name);
	is_int(st.rx_gro_merged, r->udp ? 0 : merged, "%s: rx_gro_merged",
	       name);
	is_int(st.rx_gso_frames, r->udp ? 0 : gso, "%s: rx_gso_frames", name);
	is_int(st.rx_udp_merged, r->udp ? merged : 0, "%s: rx_udp_merged",
	       name);
	is_int(st.rx_udp_gso_frames, r->udp ? gso : 0,
	       "%s: rx_udp_gso_frames", name);
	is_int(st.rx_csum_partial, r->partial, "%s: rx_csum_partial", name);
	is_int(st.rx_inner_csum_bad, r->bad, "%s: rx_inner_csum_bad", name);
	ok(res.merged == merged && res.dropped == 0 && res.other == 0 &&
		   res.queued == nx,
	   "%s: gro_add() results", name);
}

/* A row a tun's packets can be: no VLAN tags, no MACs to differ. */
static bool row_tun(const struct row *r)
{
	const struct mod *m;

	if (r->vlan)
		return false;
	for (m = r->mods; m->kind; m++)
		if (m->kind == M_VLAN || m->kind == M_MAC)
			return false;
	return true;
}

/*
 * Every row, then every row a tun's packets can be again with the link
 * header gone (gro_init()'s l3): the same runs merge into the same
 * super-packets, csum_start from the IP header, and what must not merge
 * does not.
 */
static void test_rows(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		run_row(&rows[i], false);
		run_row(&rows[i], true);
	}
	tun = true;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (!row_tun(&rows[i]))
			continue;
		run_row(&rows[i], false);
		run_row(&rows[i], true);
	}
	tun = false;
}

/* ---- single frames ------------------------------------------------------ */

/*
 * S_CSUM: a wrong TCP checksum, passed as it came and counted; S_BAD:
 * headers no receiver takes, dropped; S_OVER: over the MTU, and not as a
 * real sender builds it (gro_gso_mss()), dropped.
 */
enum single_kind { S_PLAIN, S_TCP, S_UDP, S_GSO, S_CSUM, S_BAD, S_OVER };

/* Overwrite a field after the build: at l3_off or l4_off + off. */
struct poke {
	uint8_t layer;		/* 3 or 4; 0: none */
	uint8_t off;
	uint8_t width;		/* 1 or 2 bytes */
	uint16_t val;
};

struct single {
	const char *name;
	struct pkt_spec s;
	enum single_kind kind;
	uint32_t mtu;		/* 0: 1500 */
	bool no_merge;
	bool corrupt;		/* flip a payload byte after the checksum */
	bool routing;		/* turn the destination options into routing */
	uint32_t cut;		/* truncate the frame to this length */
	int partial;
	struct poke poke;
	uint8_t only;		/* ONLY_TAP, ONLY_TUN; 0: both */
};

/* A frame's headers a tun's packet cannot have, or only a tun's can. */
#define ONLY_TAP 1
#define ONLY_TUN 2

#define UDP IPPROTO_UDP
/* Lengths of the frames built below: Ethernet + IP + L4 header + data. */
#define ETH 14
#define IP4 20
#define IP6 40

static const struct single singles[] = {
	{ "arp", { .non_ip = true, .payload_len = 28 }, .kind = S_PLAIN },
	{ "arp vlan padded",
	  { .non_ip = true, .vlans = 1, .payload_len = 28, .pad = 14 },
	  .kind = S_PLAIN },
	{ "icmp4", { .l4 = IPPROTO_ICMP, .payload_len = 64 },
	  .kind = S_PLAIN },
	{ "udp4", { .l4 = UDP, .payload_len = 500 }, .kind = S_PLAIN },
	{ "udp6 padded",
	  { .l4 = UDP, .ipv6 = true, .payload_len = 5, .pad = 9 },
	  .kind = S_PLAIN },
	{ "udp4 seeded", { .l4 = UDP, .payload_len = 500, .partial = true },
	  .kind = S_UDP, .partial = 1 },
	{ "udp6 seeded padded",
	  { .l4 = UDP, .ipv6 = true, .payload_len = 3, .partial = true,
	    .pad = 11 },
	  .kind = S_UDP, .partial = 1 },
	{ "udp6 routing header, seeded: plain",
	  { .l4 = UDP, .ipv6 = true, .ip6_dst_len = 8, .payload_len = 100,
	    .partial = true },
	  .kind = S_PLAIN, .routing = true },
	{ "tcp4 data", { .payload_len = 100 }, .kind = S_TCP },
	{ "tcp4 seeded data", { .payload_len = 100, .partial = true },
	  .kind = S_TCP, .partial = 1 },
	{ "tcp4 pure ACK padded", { .payload_len = 0, .pad = 6 },
	  .kind = S_TCP },
	{ "tcp4 SYN", { .tcp_flags = PKT_SYN, .tcp_opt_len = 20 },
	  .kind = S_TCP },
	{ "tcp4 IP options", { .ip_opt_len = 8, .payload_len = 10 },
	  .kind = S_TCP },
	{ "tcp4 qinq", { .vlans = 2, .payload_len = 1000 }, .kind = S_TCP },
	{ "tcp4 merge off", { .payload_len = 1000 }, .kind = S_TCP,
	  .no_merge = true },
	{ "tcp4 bad checksum: as it came", { .payload_len = 100 },
	  .kind = S_CSUM, .corrupt = true },
	{ "tcp4 bad checksum, pure ACK: as it came", { .payload_len = 0 },
	  .kind = S_CSUM, .corrupt = true },
	{ "tcp4 bad checksum, padded: as it came, padding kept",
	  { .payload_len = 10, .pad = 6 }, .kind = S_CSUM, .corrupt = true },
	{ "tcp6 bad checksum, dest opts: as it came",
	  { .ipv6 = true, .ip6_dst_len = 16, .payload_len = 700 },
	  .kind = S_CSUM, .corrupt = true },
	{ "tcp4 fragment", { .payload_len = 100, .ip_frag = 0x2000 },
	  .kind = S_PLAIN },
	{ "tcp4 later fragment", { .payload_len = 100, .ip_frag = 0x00b9 },
	  .kind = S_PLAIN },
	{ "tcp6 fragment",
	  { .ipv6 = true, .payload_len = 100, .ip6_frag = true },
	  .kind = S_PLAIN },
	{ "short frame", { .payload_len = 100 }, .kind = S_PLAIN,
	  .cut = 13 },
	/* ip_rcv_core(), ipv6_rcv_core(), tcp_v4_rcv(), __udp4_lib_rcv() */
	{ "tcp4 truncated in the TCP header", { .payload_len = 100 },
	  .kind = S_BAD, .cut = ETH + IP4 + 10 },
	{ "tcp4 one byte short of its IP length", { .payload_len = 100 },
	  .kind = S_BAD, .cut = ETH + IP4 + 20 + 99 },
	{ "ip4 header cut", { .payload_len = 100 }, .kind = S_BAD,
	  .cut = ETH + 19 },
	{ "ip4 header cut, vlan", { .vlans = 1, .payload_len = 100 },
	  .kind = S_BAD, .cut = ETH + 4 + 12 },
	{ "ip4 IP length over the frame", { .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 2, 2, IP4 + 20 + 101 } },
	{ "ip4 IP length 65535 in a small frame", { .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 2, 2, 65535 } },
	{ "ip4 IP length under the header", { .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 2, 2, IP4 - 1 } },
	{ "ip4 IP length 0", { .l4 = UDP, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 2, 2, 0 } },
	{ "ip4 IHL 4", { .payload_len = 100 }, .kind = S_BAD,
	  .poke = { 3, 0, 1, 0x44 } },
	{ "ip4 IHL 15 past the IP length", { .payload_len = 10 },
	  .kind = S_BAD, .poke = { 3, 0, 1, 0x4f } },
	/* In a tun the version is the family: nothing to contradict. */
	{ "ip4 version 6 in an IPv4 frame", { .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 0, 1, 0x65 }, .only = ONLY_TAP },
	{ "ip4 options past the IP length", { .ip_opt_len = 8 },
	  .kind = S_BAD, .poke = { 3, 2, 2, IP4 + 4 } },
	{ "tcp4 data offset 4", { .payload_len = 100 }, .kind = S_BAD,
	  .poke = { 4, 12, 1, 0x40 } },
	{ "tcp4 data offset past the IP length", { .payload_len = 8 },
	  .kind = S_BAD, .poke = { 4, 12, 1, 0xf0 } },
	{ "udp4 header cut", { .l4 = UDP, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 2, 2, IP4 + 7 } },
	{ "udp4 length 7", { .l4 = UDP, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 4, 4, 2, 7 } },
	{ "udp4 length over the datagram", { .l4 = UDP, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 4, 4, 2, 8 + 101 } },
	{ "udp4 length over the datagram, seeded",
	  { .l4 = UDP, .payload_len = 100, .partial = true },
	  .kind = S_BAD, .poke = { 4, 4, 2, 65535 } },
	{ "udp4 length under the datagram: plain, the kernel trims",
	  { .l4 = UDP, .payload_len = 100 },
	  .kind = S_PLAIN, .poke = { 4, 4, 2, 8 + 50 } },
	{ "udp4 fragment, length over it: plain (no UDP header)",
	  { .l4 = UDP, .payload_len = 100, .ip_frag = 0x2000 },
	  .kind = S_PLAIN, .poke = { 3, 20 + 4, 2, 9000 } },
	{ "ip6 header cut", { .ipv6 = true, .payload_len = 100 },
	  .kind = S_BAD, .cut = ETH + IP6 - 1 },
	{ "ip6 payload length over the frame",
	  { .ipv6 = true, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 4, 2, 20 + 101 } },
	{ "ip6 payload length 65535 in a small frame",
	  { .ipv6 = true, .l4 = UDP, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 4, 2, 65535 } },
	{ "ip6 version 4 in an IPv6 frame",
	  { .ipv6 = true, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 0, 1, 0x45 }, .only = ONLY_TAP },
	{ "tcp6 header past the payload length",
	  { .ipv6 = true, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 4, 2, 19 } },
	{ "ip6 hop-by-hop past the payload length",
	  { .ipv6 = true, .ip6_hbh = true, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 40 + 1, 1, 30 } },
	{ "ip6 payload length 0, hop-by-hop (no jumbogram here)",
	  { .ipv6 = true, .ip6_hbh = true, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 3, 4, 2, 0 } },
	{ "udp6 length over the datagram",
	  { .ipv6 = true, .l4 = UDP, .payload_len = 100 },
	  .kind = S_BAD, .poke = { 4, 4, 2, 8 + 101 } },
	{ "vlan tag cut: not IP, plain", { .vlans = 1, .payload_len = 100 },
	  .kind = S_PLAIN, .cut = ETH + 2 },
	{ "arp cut: plain", { .non_ip = true, .payload_len = 28 },
	  .kind = S_PLAIN, .cut = ETH + 3 },
	{ "tcp6 hop-by-hop + dest opts",
	  { .ipv6 = true, .ip6_hbh = true, .ip6_dst_len = 16,
	    .payload_len = 100 },
	  .kind = S_TCP },
	{ "tcp6 routing header, wrong checksum: plain, not dropped",
	  { .ipv6 = true, .ip6_dst_len = 8, .payload_len = 100 },
	  .kind = S_PLAIN, .routing = true, .corrupt = true },
	{ "tcp4 IP length = MTU", { .tcp_opt_len = TS, .payload_len = 1448 },
	  .kind = S_TCP },
	{ "tcp4 IP length = MTU + 1",
	  { .tcp_opt_len = TS, .payload_len = 1449 }, .kind = S_GSO },
	{ "tcp4 64 KB over MTU 1500",
	  { .tcp_opt_len = TS, .payload_len = 65483, .seq = 0xfffff000 },
	  .kind = S_GSO },
	{ "tcp4 over MTU, seeded (vxlan TSO)",
	  { .tcp_opt_len = TS, .payload_len = 20000, .partial = true },
	  .kind = S_GSO, .partial = 1 },
	{ "tcp4 over MTU, FIN PSH",
	  { .tcp_flags = PKT_FIN | PKT_PSH | PKT_ACK, .payload_len = 5000 },
	  .kind = S_GSO },
	{ "tcp4 over MTU, CWR: ECN",
	  { .tcp_flags = PKT_CWR | PKT_ECE | PKT_ACK, .payload_len = 5000 },
	  .kind = S_GSO },
	{ "tcp4 over MTU 9000", { .payload_len = 20000 }, .kind = S_GSO,
	  .mtu = 9000 },
	{ "tcp4 over MTU, merge off", { .payload_len = 3000 },
	  .kind = S_GSO, .no_merge = true },
	{ "tcp4 over MTU, bad checksum: as it came, no GSO",
	  { .payload_len = 20000 }, .kind = S_CSUM, .corrupt = true },
	/* inet_gso_segment() would write good header checksums (fuzz-rx) */
	{ "tcp4 over MTU, bad IPv4 header checksum: no GSO",
	  { .payload_len = 20000 }, .kind = S_TCP,
	  .poke = { .layer = 3, .off = 8, .width = 1, .val = 17 } },
	{ "tcp6 over MTU",
	  { .ipv6 = true, .tcp_opt_len = TS, .payload_len = 30000 },
	  .kind = S_GSO },
	/* One datagram must not become thousands of frames behind the tap */
	{ "tcp6 over MTU, 1384-byte dest opts (gso_size 2): dropped",
	  { .ipv6 = true, .ip6_dst_len = 1384, .payload_len = 64000 },
	  .kind = S_OVER },
	{ "tcp6 over MTU, headers of 254 bytes: GSO",
	  { .ipv6 = true, .ip6_dst_len = 168, .tcp_opt_len = 12,
	    .payload_len = 60000 },
	  .kind = S_GSO },
	{ "tcp6 over MTU, headers of 262 bytes: dropped",
	  { .ipv6 = true, .ip6_dst_len = 176, .tcp_opt_len = 12,
	    .payload_len = 60000 },
	  .kind = S_OVER, .only = ONLY_TAP },
	/* A tun's packet has no Ethernet header: GSO_HDR_MAX 14 further. */
	{ "tcp6 over MTU, headers of 256 bytes: GSO",
	  { .ipv6 = true, .ip6_dst_len = 184, .tcp_opt_len = 12,
	    .payload_len = 60000 },
	  .kind = S_GSO, .only = ONLY_TUN },
	{ "tcp6 over MTU, headers of 264 bytes: dropped",
	  { .ipv6 = true, .ip6_dst_len = 192, .tcp_opt_len = 12,
	    .payload_len = 60000 },
	  .kind = S_OVER, .only = ONLY_TUN },
	{ "tcp4 over MTU 87, segments of 47 bytes: dropped",
	  { .payload_len = 4700 }, .kind = S_OVER, .mtu = 87 },
	{ "tcp4 over MTU 88, segments of 48 bytes: GSO",
	  { .payload_len = 4800 }, .kind = S_GSO, .mtu = 88 },
	{ "tcp4 over MTU 88, 1024 segments: GSO",
	  { .payload_len = 48 * 1024 }, .kind = S_GSO, .mtu = 88 },
	{ "tcp4 over MTU 88, 1025 segments: dropped",
	  { .payload_len = 48 * 1024 + 1 }, .kind = S_OVER, .mtu = 88 },
	{ "tcp4 over MTU 88, 1025 segments, bad checksum: as it came",
	  { .payload_len = 48 * 1024 + 1 }, .kind = S_CSUM, .mtu = 88,
	  .corrupt = true },
	{ "tcp4 over MTU 88, 1025 segments, SYN: one frame, no GSO",
	  { .tcp_flags = PKT_SYN | PKT_ACK, .payload_len = 48 * 1024 + 1 },
	  .kind = S_TCP, .mtu = 88 },
	{ "tcp6 over MTU, dest opts, vlan",
	  { .ipv6 = true, .vlans = 1, .ip6_dst_len = 16, .tcp_opt_len = TS,
	    .payload_len = 30000, .partial = true },
	  .kind = S_GSO, .partial = 1 },
};

/* The segments the tap would cut: MTU-sized, checksums right, in order. */
static bool check_gso_segs(const struct gro_frame *fr, const struct pkt *p,
			   uint32_t mtu)
{
	uint32_t n = gather(fr, out), off = p->hdr_len, mss, seq;
	struct frame f;
	int r, k;

	mss = mtu - (p->hdr_len - p->l3_off);
	if (vnet_hdr_parse_as(tun, &fr->vnet, out, n, &f) != DROP_NONE)
		return false;
	r = plan_frame(&f);
	if (r != (int)((p->ip_end - p->hdr_len + mss - 1) / mss))
		return false;
	seq = pkt_get32(p->buf + p->l4_off + 4);
	for (k = 0; k < r; k++) {
		const struct seg *s = &segs[k];
		uint8_t *ip = s->hdr + p->l3_off, *th = s->hdr + p->l4_off;
		uint32_t l4len = seg_len(s) - p->l4_off;
		uint64_t acc;

		if (seg_len(s) - p->l3_off > mtu ||
		    (k + 1 < r && s->payload_len != mss) ||
		    memcmp(s->payload, p->buf + off, s->payload_len) ||
		    pkt_get32(th + 4) != seq + off - p->hdr_len)
			return false;
		acc = pkt_pseudo(ip, IPPROTO_TCP, l4len) +
		      pkt_sum(th, s->hdr_len - p->l4_off, 0) +
		      pkt_sum(s->payload, s->payload_len, 0);
		if (pkt_fold(acc) != 0xffff)
			return false;
		off += s->payload_len;
	}
	return off == p->ip_end;
}

static bool single_vnet(const struct gro_frame *fr, const struct single *c,
			uint32_t mtu)
{
	const uint8_t F = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	uint8_t type = gso_type_of(c->s.ipv6);

	/* tcp_ecn_send(): a TSO frame with CWR is SKB_GSO_TCP_ECN. */
	if (c->s.tcp_flags & PKT_CWR)
		type |= VIRTIO_NET_HDR_GSO_ECN;
	switch (c->kind) {
	case S_TCP:
		return vnet_is(&fr->vnet, F, 0, 0, 0, P.l4_off, 16);
	case S_UDP:
		return vnet_is(&fr->vnet, F, 0, 0, 0, P.l4_off, 6);
	case S_GSO:
		return vnet_is(&fr->vnet, F, type,
			       (uint16_t)(mtu - (P.hdr_len - P.l3_off)),
			       P.hdr_len, P.l4_off, 16);
	default:
		return vnet_is(&fr->vnet, 0, 0, 0, 0, 0, 0);
	}
}

/* What the frame must read as: plain as it came, else cut and reseeded. */
static uint32_t single_want(const struct single *c, uint32_t len)
{
	memcpy(want, P.buf, len);
	if (c->kind == S_PLAIN || c->kind == S_CSUM)
		return len;
	pkt_put16(want + P.check_off,
		  ref_seed(want, P.l3_off, P.l4_off, P.ip_end, P.proto));
	return P.ip_end;
}

static void poke_apply(const struct poke *k)
{
	uint8_t *b = P.buf + (k->layer == 3 ? P.l3_off : P.l4_off) + k->off;

	if (k->width == 2)
		pkt_put16(b, k->val);
	else
		*b = (uint8_t)k->val;
}

static void run_single(const struct single *c)
{
	uint32_t mtu = c->mtu ? c->mtu : 1500, len, w;
	enum gro_result r;
	char name[160];

	pkt_build(&c->s, &P);
	if (tun)
		pkt_to_ip(&P);
	if (c->poke.layer)
		poke_apply(&c->poke);
	if (c->routing)
		P.buf[P.l3_off + 6] = IPPROTO_ROUTING;
	if (c->corrupt)
		P.buf[P.ip_end - 1] ^= 0x33;
	/* A cut is written down for the frame: the packet's is 14 less. */
	len = c->cut ? c->cut - (tun ? ETH : 0) : P.len;
	memcpy(big, P.buf, len);
	memset(&st, 0, sizeof(st));
	gro_init(&G, mtu, !c->no_merge, false, tun);
	r = add(big, len, NULL);
	gro_flush(&G);
	snprintf(name, sizeof(name), "%s%s", tun ? "tun: " : "", c->name);
	is_int(st.rx_csum_partial, c->partial, "%s: rx_csum_partial", name);
	is_int(st.rx_gso_frames, c->kind == S_GSO, "%s: rx_gso_frames",
	       name);
	is_int(st.rx_gro_merged, 0, "%s: rx_gro_merged", name);
	is_int(st.drop[DROP_RX_INNER_HDR], c->kind == S_BAD,
	       "%s: rx_drop_inner_hdr", name);
	is_int(st.rx_inner_csum_bad, c->kind == S_CSUM,
	       "%s: rx_inner_csum_bad", name);
	is_int(st.drop[DROP_RX_OVERSIZE], c->kind == S_OVER,
	       "%s: rx_drop_oversize", name);
	if (c->kind == S_BAD || c->kind == S_OVER) {
		is_int(r, GRO_DROPPED, "%s: dropped", name);
		is_int(G.n_frames, 0, "%s: no frame", name);
		return;
	}
	is_int(r, GRO_QUEUED, "%s: queued", name);
	if (!is_int(G.n_frames, 1, "%s: one frame", name))
		return;
	ok(single_vnet(&G.frames[0], c, mtu), "%s: vnet header", name);
	w = single_want(c, len);
	ok(gather(&G.frames[0], out) == w && G.frames[0].len == w &&
		   !memcmp(out, want, w),
	   "%s: bytes", name);
	if (c->kind == S_GSO)
		ok(check_gso_segs(&G.frames[0], &P, mtu),
		   "%s: tap's segments MTU-sized, verified, in order", name);
}

/*
 * What a tun takes nothing else of: every refusal of frame_parse_ip() is
 * a drop (tun_get_user() refuses another version nibble), where a tap
 * passes a frame that is not IP on as it came.
 */
static void poke_ver5(void)
{
	P.buf[0] = (uint8_t)((P.buf[0] & 0x0f) | 0x50);
}

static void poke_mac(void)
{
	P.buf[0] = 0x02;
}

static const struct {
	const char *name;
	struct pkt_spec s;
	uint32_t len;		/* 0: the whole packet */
	void (*poke)(void);
} tun_bad[] = {
	{ "tun: 13 bytes of IPv4: dropped", { .payload_len = 100 }, 13,
	  NULL },
	{ "tun: 0 bytes: dropped", { .payload_len = 100 }, 0, NULL },
	{ "tun: version 5, not IP: dropped", { .payload_len = 100 }, 0,
	  poke_ver5 },
	{ "tun: first byte 0x02 (an Ethernet frame): dropped",
	  { .l4 = UDP, .ipv6 = true, .payload_len = 100 }, 0, poke_mac },
};

static void test_tun_bad(void)
{
	enum gro_result r;
	size_t i;
	uint32_t len;

	for (i = 0; i < sizeof(tun_bad) / sizeof(tun_bad[0]); i++) {
		pkt_build(&tun_bad[i].s, &P);
		len = pkt_to_ip(&P);
		if (tun_bad[i].poke)
			tun_bad[i].poke();
		else
			len = tun_bad[i].len;
		memcpy(big, P.buf, P.len);
		memset(&st, 0, sizeof(st));
		gro_init(&G, 1500, true, true, true);
		r = add(big, len, NULL);
		gro_flush(&G);
		ok(r == GRO_DROPPED && G.n_frames == 0 &&
			   st.drop[DROP_RX_INNER_HDR] == 1,
		   "%s, rx_drop_inner_hdr", tun_bad[i].name);
	}
}

/*
 * Every single frame, then those a tun carries again as its packets:
 * not the ones a tap passes on because they are not IP, or are cut
 * before their IP header (test_tun_bad() has what a tun does with them).
 */
static void test_singles(void)
{
	size_t i;

	for (i = 0; i < sizeof(singles) / sizeof(singles[0]); i++)
		if (singles[i].only != ONLY_TUN)
			run_single(&singles[i]);
	tun = true;
	for (i = 0; i < sizeof(singles) / sizeof(singles[0]); i++) {
		const struct single *c = &singles[i];

		if (c->s.vlans || c->s.non_ip || (c->cut && c->cut <= ETH) ||
		    c->only == ONLY_TAP)
			continue;
		run_single(c);
	}
	tun = false;
	test_tun_bad();
}

/* ---- GRO_FULL, reset ---------------------------------------------------- */

static uint8_t arp[SEG_BUF];
static uint32_t arp_len;

static void fill_arp(int n)
{
	int i;

	for (i = 0; i < n; i++)
		add(arp, arp_len, NULL);
}

static void test_full(void)
{
	static const struct row r = { "full", .n = 3,
				      .mods = { { -1, M_PARTIAL, 0 } } };
	struct pkt_spec a = { .non_ip = true, .payload_len = 28 };
	struct pkt_spec u = { .l4 = UDP, .payload_len = 50, .partial = true };
	uint8_t udp[256], udp0[256];
	uint32_t udp_len;
	int k;

	arp_len = pkt_build(&a, &P);
	memcpy(arp, P.buf, arp_len);
	udp_len = pkt_build(&u, &P);
	memcpy(udp, P.buf, udp_len);
	memcpy(udp0, P.buf, udp_len);
	n_fcs = 0;
	for (k = 0; k < 3; k++)
		build_seg(&r, k);
	/* A gap after segment 1: segment 2 needs a frame of its own. */
	pkt_put32(work[2] + ts[2].l4_off + 4,
		  pkt_get32(work[2] + ts[2].l4_off + 4) + 1);
	memcpy(orig[2], work[2], ts[2].len);

	memset(&st, 0, sizeof(st));
	gro_init(&G, 1500, true, false, false);
	fill_arp(GRO_MAX_FRAMES);
	is_int(G.n_frames, GRO_MAX_FRAMES, "full: frames[] filled");
	is_int(add(arp, arp_len, NULL), GRO_FULL,
	       "full: ARP refused");
	is_int(add(udp, udp_len, NULL), GRO_FULL,
	       "full: UDP refused");
	is_int(st.rx_csum_partial, 0, "full: refused UDP not counted");
	ok(!memcmp(udp, udp0, udp_len), "full: refused UDP untouched");
	/* A malformed frame needs no room: dropped, not GRO_FULL. */
	pkt_put16(udp + 14 + 2, 65535);
	is_int(add(udp, udp_len, NULL), GRO_DROPPED,
	       "full: malformed frame still dropped");
	is_int(st.drop[DROP_RX_INNER_HDR], 1, "full: and counted");
	memcpy(udp, udp0, udp_len);

	gro_reset(&G);
	is_int(G.n_frames, 0, "reset: empty");
	fill_arp(GRO_MAX_FRAMES - 1);
	is_int(add(work[0], ts[0].len, NULL), GRO_QUEUED,
	       "full: last frame starts a run");
	is_int(add(work[1], ts[1].len, NULL), GRO_MERGED,
	       "full: in-order segment still merges");
	is_int(add(work[2], ts[2].len, NULL), GRO_FULL,
	       "full: segment needing a frame refused");
	is_int(G.n_open, 1, "full: run left open");
	is_int(st.rx_csum_partial, 2, "full: refused segment not counted");
	is_int(st.rx_gro_merged, 1, "full: one merged");
	ok(!memcmp(work[2], orig[2], ts[2].len),
	   "full: refused segment untouched");

	gro_flush(&G);
	ok(G.frames[GRO_MAX_FRAMES - 1].vnet.gso_type ==
		   VIRTIO_NET_HDR_GSO_TCPV4 &&
		   G.frames[GRO_MAX_FRAMES - 1].n_slices == 2,
	   "full: flushed run is a super-frame of 2");
	gro_reset(&G);
	is_int(add(work[2], ts[2].len, NULL), GRO_QUEUED,
	       "full: added again after reset");
	is_int(st.rx_csum_partial, 3, "full: counted once");
	gro_flush(&G);
	ok(G.n_frames == 1 && G.frames[0].n_slices == 1 &&
		   G.frames[0].vnet.gso_type == 0,
	   "full: alone after reset");
}

/* After a reset, nothing merges into the frames of the last batch. */
static void test_reset(void)
{
	static const struct row r = { "reset", .n = 3 };
	uint8_t hdr[GSO_HDR_MAX];
	int k;

	n_fcs = 0;
	for (k = 0; k < 3; k++)
		build_seg(&r, k);
	memset(&st, 0, sizeof(st));
	gro_init(&G, 1500, true, false, false);
	add(work[0], ts[0].len, NULL);
	add(work[1], ts[1].len, NULL);
	gro_flush(&G);
	memcpy(hdr, G.frames[0].hdr, G.frames[0].hdr_len);
	gro_flush(&G);
	ok(!memcmp(hdr, G.frames[0].hdr, G.frames[0].hdr_len) &&
		   G.frames[0].vnet.gso_size == MSS4,
	   "reset: a second flush changes nothing");
	gro_reset(&G);
	is_int(add(work[2], ts[2].len, NULL), GRO_QUEUED,
	       "reset: next segment starts anew");
	gro_flush(&G);
	ok(G.n_frames == 1 && G.frames[0].n_slices == 1 &&
		   G.frames[0].vnet.gso_type == 0,
	   "reset: one frame of one segment");
	is_int(st.rx_gro_merged, 1, "reset: merged counted once");
}

/*
 * Geneve's options (gro_add_tlv()): segments of one flow merge only while
 * their options are the same bytes, as geneve_gro_receive() holds
 * headers that differ apart; a run of other options starts a frame of
 * its own after the first, in order.
 */
static void test_tlv_run(const struct row *r, const char *what)
{
	static const uint8_t a[8] = { 0x01, 0x08, 0x03, 0x01, 1, 2, 3, 4 };
	static const uint8_t b[8] = { 0x01, 0x08, 0x03, 0x01, 1, 2, 3, 5 };
	static const uint8_t *const tlv[4] = { a, a, b, b };
	enum drop why = DROP_NONE;
	int k, res[4];

	n_fcs = 0;
	for (k = 0; k < 4; k++)
		build_seg(r, k);
	gro_init(&G, 1500, true, true, false);
	for (k = 0; k < 4; k++)
		res[k] = gro_add_tlv(&G, work[k], ts[k].len, NULL, tlv[k],
				     sizeof(a), &why);
	gro_flush(&G);
	ok(res[0] == GRO_QUEUED && res[1] == GRO_MERGED &&
		   res[2] == GRO_QUEUED && res[3] == GRO_MERGED,
	   "tlv %s: options a, a, b, b: queued, merged, queued, merged",
	   what);
	ok(G.n_frames == 2 && G.frames[0].n_slices == 2 &&
		   G.frames[1].n_slices == 2,
	   "tlv %s: two frames of two, in order", what);
	gro_reset(&G);
	res[0] = gro_add_tlv(&G, work[0], ts[0].len, NULL, a, sizeof(a),
			     &why);
	res[1] = gro_add_tlv(&G, work[1], ts[1].len, NULL, a, 4, &why);
	res[2] = gro_add(&G, work[2], ts[2].len, NULL, &why);
	res[3] = gro_add_tlv(&G, work[3], ts[3].len, NULL, b, 0, &why);
	gro_flush(&G);
	ok(res[0] == GRO_QUEUED && res[1] == GRO_QUEUED &&
		   res[2] == GRO_QUEUED && res[3] == GRO_MERGED,
	   "tlv %s: a shorter list of the same bytes does not merge; none "
	   "and an empty list do", what);
	gro_reset(&G);
}

static void test_tlv(void)
{
	static const struct row tcp = { "tlv tcp", .n = 4 };
	static const struct row udp = { "tlv udp", .udp = true, .n = 4 };

	test_tlv_run(&tcp, "tcp");
	test_tlv_run(&udp, "udp");
}

/*
 * Splitting a UDP GRO receive: every datagram but the last of gso_size,
 * back to back, covering the receive exactly; checked against the
 * datagrams a naive loop lists, and against counts written out.
 */
static void test_split_one(size_t len, uint16_t gso, size_t want_n)
{
	size_t off, dlen, n = 0, ref_off = 0, ref_len;
	struct gro_split s;
	bool good = true;

	gro_split_init(&s, len, gso);
	while (gro_split_next(&s, &off, &dlen)) {
		if (!len)
			ref_len = 0;
		else if (!gso || gso >= len)
			ref_len = len;
		else
			ref_len = len - ref_off < gso ? len - ref_off : gso;
		good = good && off == ref_off && dlen == ref_len;
		ref_off += ref_len;
		if (++n > len + 1)
			break;
	}
	good = good && !gro_split_next(&s, &off, &dlen);
	ok(good && n == want_n && ref_off == len,
	   "split: %zu bytes of %u: %zu datagrams", len, gso, want_n);
}

static void test_split(void)
{
	test_split_one(0, 0, 1);
	test_split_one(0, 1400, 1);
	test_split_one(100, 0, 1);
	test_split_one(100, 200, 1);
	test_split_one(100, 100, 1);
	test_split_one(1400 * 45, 1400, 45);
	test_split_one(1400 * 45 - 1, 1400, 45);
	test_split_one(1400 * 45 + 1, 1400, 46);
	test_split_one(64000, 64000, 1);
	test_split_one(65535, 1, 65535);
	test_split_one(65535, 2, 32768);
	test_split_one(114 * 32, 114, 32);
}

/*
 * The kernels that cut a UDP super-frame reaching a tunnel socket
 * (3d010c8031e3: 6.9, 6.8.5, 6.6.26; taps take USO from 6.2).
 */
static void test_kernels(void)
{
	static const struct {
		const char *release;
		bool cuts;
	} k[] = {
		{ "6.18.44-fc-v657", true }, { "6.9.0", true },
		{ "6.9-rc3", true }, { "6.9-rc2", false }, { "6.9-rc1", false },
		{ "6.10", true }, { "6.10-rc1", true }, { "7.0.1", true },
		{ "6.90.1", true },
		{ "6.8.5", true }, { "6.8.12-arch1-1", true },
		{ "6.6.26", true }, { "6.6.58-amd64", true },
		{ "6.8.4", false }, { "6.8", false }, { "6.7.12", false },
		{ "6.6.25", false }, { "6.6.0-rc1", false },
		{ "6.2.16", false }, { "6.5.13", false }, { "6.1.84", false },
		{ "6.1.85", true }, { "5.15.154", true }, { "", false },
		{ "6", false }, { "linux", false },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		ok(gro_kernel_cuts_udp_gso(k[i].release) == k[i].cuts,
		   "Linux '%s' %s UDP super-frames at tunnel sockets",
		   k[i].release, k[i].cuts ? "cuts" : "does not cut");
}

int main(void)
{
	test_kernels();
	test_rows();
	test_singles();
	test_full();
	test_reset();
	test_tlv();
	test_split();
	plan(tap_n);
	return done_testing();
}
