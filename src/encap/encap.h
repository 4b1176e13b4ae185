/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Encapsulations: VXLAN (RFC 7348), GRE (RFC 2784/2890), GRE-in-UDP
 * (RFC 8086), VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe-12) and Geneve (RFC
 * 8926), each a row of one table, in its own file, with header length,
 * build and parse. Pure: byte arrays in, byte arrays out.
 */
#ifndef GSOTUN_ENCAP_H
#define GSOTUN_ENCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/stats.h"
#include "pkt/gso.h"

/*
 * The table of encapsulations, a row each: X(TYPE, row) makes the type
 * ENCAP_TYPE and puts the row `const struct encap_ops encap_row`, which
 * the encapsulation's own file (src/encap/ROW.c) defines, in
 * encap_ops_table[] at that index. The order is --help's. A test build
 * adds its rows by defining ENCAP_LIST_TEST (tests/encap-dummy.h), after
 * these: the types here keep their numbers.
 */
#ifndef ENCAP_LIST_TEST
#define ENCAP_LIST_TEST(X)
#endif
#define ENCAP_LIST(X)                                                         \
	X(VXLAN, vxlan)                                                       \
	X(GRE, gre)                                                           \
	X(GRE_UDP, gre_udp)                                                   \
	X(VXLAN_GPE, gpe)                                                     \
	X(GENEVE, geneve)                                                     \
	ENCAP_LIST_TEST(X)

/*
 * No count of the types here: code outside encap.c, built without a test
 * build's rows, asks encap_count().
 */
#define ENCAP_TYPE(type, row) ENCAP_##type,
enum encap_type {
	ENCAP_LIST(ENCAP_TYPE)
};
#undef ENCAP_TYPE

/*
 * Geneve's options, whole TLVs, at most what its Opt Len's 6 bits of
 * 4-byte words say: 252 bytes (RFC 8926 section 3.4).
 */
#define ENCAP_GENEVE_OPTS_MAX 252

/* Parameters of the encapsulation header, fixed for the tunnel's life. */
struct encap_cfg {
	enum encap_type type;
	uint32_t vni;		/* VXLAN, VXLAN-GPE and Geneve, 24 bits */
	uint32_t key;		/* GRE key (RFC 2890), when has_key */
	bool has_key;
	bool gre_csum;		/* GRE C bit (gre only) */
	bool gre_seq;		/* GRE S bit */
	/*
	 * --mode tun: the payload is an IP packet (a tun's), not an
	 * Ethernet frame (a tap's); it says the GRE protocol type or the
	 * VXLAN-GPE next protocol of each packet.
	 */
	bool l3;
	/*
	 * Geneve: the options sent after the base header of every packet
	 * (encap_geneve_opt_add()), geneve_opts_len bytes, and whether one
	 * is critical (the header's C bit).
	 */
	uint8_t geneve_opts[ENCAP_GENEVE_OPTS_MAX];
	uint16_t geneve_opts_len;
	bool geneve_crit;
	/*
	 * --geneve-echo: a packet may carry up to this many bytes of
	 * options, a flow's own (encap_set_tlv()), so the MTU leaves room
	 * for them (encap_overhead()); 0 without.
	 */
	uint16_t tlv_room;
};

/* Length of the header encap_build() writes for this configuration. */
size_t encap_hdr_len(const struct encap_cfg *c);

/*
 * c with the len bytes of option TLVs at opts (a flow's, as a packet
 * brought them: encap_rx's tlv) in place of its own, for the packets
 * that echo them; len is at most ENCAP_GENEVE_OPTS_MAX.
 */
void encap_set_tlv(struct encap_cfg *c, const uint8_t *opts, size_t len);

/*
 * Write the encapsulation header for segment s into the encap_hdr_len()
 * bytes immediately in front of s->hdr (inside GSO_HEADROOM). With c->l3,
 * s->hdr starts with the inner IP header, whose version says the GRE
 * protocol type (0x0800, 0x86DD) or VXLAN-GPE next protocol (1, 2) of
 * the packet; without, the payload is Ethernet (0x6558, 3). seq is the
 * GRE sequence number when gre_seq. A GRE checksum is derived from s->sum
 * (local checksum offload, no pass over the payload); s->sum_valid must be
 * true then. Returns a pointer to the start of the header.
 */
uint8_t *encap_build(const struct encap_cfg *c, struct seg *s, uint32_t seq);

/* What encap_parse() found in a received packet. */
struct encap_rx {
	size_t inner_off;	/* where the inner frame or IP packet begins */
	/*
	 * A GRE checksum was present and verified: that pass summed the
	 * inner frame too, and inner_sum is its one's-complement sum (a
	 * wsum of bytes inner_off to the end), which spares gro a second
	 * pass to verify the inner TCP checksum.
	 */
	bool sum_valid;
	uint32_t inner_sum;
	/*
	 * The header's fields that vary by packet and say something of it
	 * beyond the flow: Geneve's options (tlv_len bytes at tlv, whole
	 * TLVs, all of them non-critical). Packets whose tlv differ are
	 * never merged (gro), and --geneve-echo keeps a flow's. NULL and 0
	 * for the others.
	 */
	const uint8_t *tlv;
	uint16_t tlv_len;
};

/*
 * The VNI (vxlan, vxlan-gpe, geneve) or GRE key (gre, gre-udp) a
 * received packet carries, at its VXLAN, Geneve or GRE header, into *id:
 * which tap it is for (the header's other fields are not looked at).
 * false when it has none or is too short to say (encap_parse() then says
 * why).
 */
bool encap_peek_id(enum encap_type type, const uint8_t *pkt, size_t len,
		   uint32_t *id);

/*
 * Parse a received encapsulated packet (starting at the VXLAN or GRE header;
 * outer IP/UDP already stripped) into *rx. The payload must be what c's
 * mode carries: an Ethernet frame, or with c->l3 an IP packet whose
 * version agrees with the header's protocol field. Returns DROP_NONE or
 * the DROP_RX_* reason it is refused for.
 */
enum drop encap_parse(const struct encap_cfg *c, const uint8_t *pkt,
		      size_t len, struct encap_rx *rx);

/*
 * What each encapsulation is, one row of encap.c's encap_ops_table a
 * type, defined in the encapsulation's own file with its header's
 * functions. Its id tells the taps of one port apart (--vni N=DEV, --key
 * N=DEV): a VXLAN packet always carries a VNI, a GRE packet a key only
 * when its K bit is set (RFC 2890 section 2.1), so a GRE tap may have
 * none. A new encapsulation is its file and its line in ENCAP_LIST.
 */
struct encap_ops {
	const char *name;		/* --encap NAME */
	const char *id_name;		/* the id in messages: "VNI", "key" */
	const char *id_option;		/* the id's option and JSON name */
	bool id_optional;		/* a tap may have none (has_key) */
	uint8_t ip_proto;		/* IPPROTO_UDP, or its own over IP */
	uint16_t port;			/* IANA's UDP port; 0: not UDP */
	uint16_t linux_port;		/* Linux's own default, if not that */
	bool seq;			/* sequence numbers (--seq) */
	bool l2;			/* carries Ethernet frames (a tap) */
	bool l3;			/* carries IP packets (--mode tun) */
	/*
	 * --evpn: zebra sees the fabric through the kernel's vxlan devices
	 * (RFC 8365), which evpn.c makes: it can stand for this one.
	 */
	bool evpn;
	/* Option TLVs after its header, sent as --geneve-opt gives them. */
	bool tlv;
	/*
	 * The counters (stats.h) its parse drops by, DROP_NONE last: those
	 * named for it (rx_drop_gre_*, rx_drop_gpe_*, rx_drop_key, ...) are
	 * its own, the rest shared.
	 */
	const enum drop *drops;
	/*
	 * Those of its drops that say the sender speaks another
	 * encapsulation, or this one set up otherwise (flags, version,
	 * protocol), DROP_NONE last; NULL: none. rx.c warns of them so.
	 */
	const enum drop *foreign;
	size_t (*hdr_len)(const struct encap_cfg *c);
	/*
	 * The longest header a packet of c's may have, where it is not
	 * hdr_len() (a flow's own options, tlv_room); NULL: hdr_len().
	 */
	size_t (*hdr_max)(const struct encap_cfg *c);
	/*
	 * encap_build(): the header written into the hdr_len() bytes in
	 * front of s->hdr, and where it starts; one call a segment.
	 */
	uint8_t *(*build)(const struct encap_cfg *c, const struct seg *s,
			  uint32_t seq);
	enum drop (*parse)(const struct encap_cfg *c, const uint8_t *pkt,
			   size_t len, struct encap_rx *rx);
	bool (*peek_id)(const uint8_t *pkt, size_t len, uint32_t *id);
};

/* The rows, each in its own file. */
#define ENCAP_ROW(type, row) extern const struct encap_ops encap_##row;
ENCAP_LIST(ENCAP_ROW)
#undef ENCAP_ROW

/* Indexed by enum encap_type. */
extern const struct encap_ops *const encap_ops_table[];

/*
 * The id of c's tap: its VNI, or its GRE key (0 when it has none). Inline,
 * two loads of the table: the receive path asks it of every datagram.
 */
static inline uint32_t encap_id(const struct encap_cfg *c)
{
	return encap_ops_table[c->type]->id_optional ? c->key : c->vni;
}

/* Has c's tap an id: always a VNI; a GRE key when one was given. */
static inline bool encap_has_id(const struct encap_cfg *c)
{
	return !encap_ops_table[c->type]->id_optional || c->has_key;
}

/* Give c's tap the id id: its VNI, or its GRE key. */
void encap_set_id(struct encap_cfg *c, uint32_t id);

/* What t's id is called in messages ("VNI", "key"). */
const char *encap_id_name(enum encap_type t);

/* The option that gives t's id, and its name in JSON ("vni", "key"). */
const char *encap_id_option(enum encap_type t);

/* The UDP port t is sent to without --port; 0 for raw GRE. */
uint16_t encap_default_port(enum encap_type t);

/*
 * The port Linux's own tunnel of kind t takes when not told, where it is
 * not encap_default_port(): 8472 for vxlan (from before IANA gave 4789);
 * 0 where it is, or Linux has none (fou).
 */
uint16_t encap_linux_port(enum encap_type t);

/*
 * Can t carry what a device of the mode reads: Ethernet frames (a tap),
 * or IP packets (l3, a tun)? VXLAN carries only Ethernet (RFC 7348);
 * VXLAN-GPE both (next protocol 3, or 1 and 2).
 */
bool encap_carries(enum encap_type t, bool l3);

/*
 * The link header in front of the inner IP header of c's payload: an
 * Ethernet header (14) for a tap's frames, none for a tun's packets.
 */
static inline size_t encap_link_hlen(const struct encap_cfg *c)
{
	return c->l3 ? 0 : 14;
}

/* Options that only some encapsulations take (options_check_encap()). */
enum encap_opt {
	ENCAP_OPT_UDP = 0,	/* --port, --source-ports: a UDP one */
	ENCAP_OPT_VNI,		/* --vni */
	ENCAP_OPT_KEY,		/* --key */
	ENCAP_OPT_SEQ,		/* --seq */
	ENCAP_OPT_EVPN,		/* --evpn */
	ENCAP_OPT_TUN,		/* --mode tun: it carries IP packets */
	ENCAP_OPT_ENCAP,	/* --encap: every one */
	ENCAP_OPT_TLV,		/* --geneve-opt: option TLVs */
};

/* Does encapsulation t take option o? */
bool encap_takes(enum encap_type t, enum encap_opt o);

/* Is why one of t's drops for a sender that speaks something else? */
bool encap_drop_foreign(enum encap_type t, enum drop why);

/* How many rows the table has: the types are 0 to encap_count() - 1. */
unsigned int encap_count(void);

/*
 * The names of the encapsulations that take o (with !takes, of those
 * that do not), in the table's order, as --help and messages list them:
 * "a, b or c" with conj "or"; "" for none. Into buf, cut to len; returns
 * buf.
 */
const char *encap_names(char *buf, size_t len, enum encap_opt o, bool takes,
			const char *conj);

/* The ECN field (RFC 3168): the low two bits of TOS or traffic class. */
#define ECN_NOT_ECT 0
#define ECN_ECT_1 1
#define ECN_ECT_0 2
#define ECN_CE 3

/* What encap_ecn_decap() did. */
enum encap_ecn {
	ENCAP_ECN_KEEP = 0,	/* inner packet as it was */
	ENCAP_ECN_MARK,		/* inner packet marked CE */
	ENCAP_ECN_DROP,		/* outer CE over a packet that is not ECT */
};

/*
 * RFC 6040 section 4.2, as the kernel's INET_ECN_decapsulate(): the outer
 * ECN field outer_ecn meets the inner IPv4 or IPv6 packet, parsed as the
 * device's mode carries it (frame_parse_as()): with l3 the len bytes at
 * frame are the IP packet, else an Ethernet frame with it behind up to
 * two VLAN tags. A CE mark is copied onto an ECN-capable inner packet
 * (its IPv4 header checksum updated, RFC 1624); an inner packet that is
 * not ECN-capable under a CE mark is to be dropped. Without an outer CE
 * nothing is parsed; non-IP frames and those frame_parse_as() refuses
 * (gro_add() drops them) are left alone.
 */
enum encap_ecn encap_ecn_decap(bool l3, uint8_t *frame, size_t len,
			       uint8_t outer_ecn);

/*
 * A raw IPv4 socket hands over the outer IP header too: check it (version
 * 4, IHL >= 5, a total length within the *len bytes received and not
 * under the header), then *off is where the GRE header starts and *len
 * where the packet ends. 0, or -1 for a malformed header.
 */
int encap_strip_ip4(const uint8_t *buf, size_t *len, size_t *off);

/*
 * RFC 6040 section 4.1, as INET_ECN_encapsulate(): the outer ECN field for
 * an inner one under --tos inherit: copied, but CE leaves as ECT(0).
 */
uint8_t encap_ecn_encap(uint8_t inner_ecn);

/* "vxlan", "gre", "gre-udp", "vxlan-gpe", "geneve" */
const char *encap_name(enum encap_type t);
/* Parse a name; -1 if unknown. */
int encap_from_name(const char *name);
/* Does this encapsulation ride on UDP? */
bool encap_is_udp(enum encap_type t);
/* The IP protocol its packets are: IPPROTO_UDP, or its own over IP. */
int encap_ip_proto(enum encap_type t);

/*
 * Bytes the tunnel adds in front of an inner frame, outer IP included:
 * the device's MTU is the underlay MTU minus this, minus its link header
 * (encap_link_hlen(): 14 for a tap, 0 for a tun).
 */
size_t encap_overhead(const struct encap_cfg *c, bool ipv6_underlay);

#endif
