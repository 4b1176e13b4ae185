// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * steer: the queue a flow takes: the inner flow hash and the eBPF
 * program that makes the tap pick by it, and the classic one that makes
 * the underlay's reuseport group pick by the outer source.
 */
#include "config.h"

#include <linux/if_ether.h>
#include <netinet/in.h>
#include "base/bytes.h"
#include "base/log.h"
#include "table/steer.h"

/* The mixing step (a 32-bit multiply between two folds). */
#define STEER_MUL 0x45d9f3bu

/* The ethertype, from the Ethernet header. */
#define OFF_TYPE 12
/* Where the fields are, from the IP header. */
#define OFF_IP4_FRAG 6
#define OFF_IP4_PROTO 9
#define OFF_IP4_SRC 12
#define OFF_IP4_DST 16
#define OFF_IP6_NEXT 6
#define OFF_IP6_ADDRS 8
#define OFF_IP6_PORTS 40
/* An IPv4 fragment: MF, or an offset (the first has ports, the rest not). */
#define IP4_FRAG_MASK 0x3fff

static uint16_t steer_mix(uint32_t h)
{
	h ^= h >> 16;
	h *= STEER_MUL;
	h ^= h >> 16;
	return (uint16_t)h;
}

static bool steer_has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP;
}

/* sport ^ dport of the ports word at f + off, len permitting; -1 if not. */
static int64_t steer_ports(const uint8_t *f, size_t len, size_t off)
{
	uint32_t w;

	if (off + 4 > len)
		return -1;
	w = get_be32(f + off);
	return (w >> 16) ^ (w & 0xffff);
}

static uint16_t steer_hash4(const uint8_t *f, size_t len)
{
	uint8_t proto;
	int64_t ports;
	uint32_t h;

	if (len < OFF_IP4_DST + 4)
		return 0;
	h = get_be32(f + OFF_IP4_SRC) ^ get_be32(f + OFF_IP4_DST);
	proto = f[OFF_IP4_PROTO];
	if (steer_has_ports(proto) &&
	    !(get_be16(f + OFF_IP4_FRAG) & IP4_FRAG_MASK)) {
		ports = steer_ports(f, len, 4u * (f[0] & 0xf));
		if (ports < 0)
			return 0;
		h ^= (uint32_t)ports;
	}
	return steer_mix(h ^ proto);
}

static uint16_t steer_hash6(const uint8_t *f, size_t len)
{
	unsigned int i;
	uint8_t proto;
	int64_t ports;
	uint32_t h = 0;

	if (len < OFF_IP6_ADDRS + 32)
		return 0;
	for (i = 0; i < 32; i += 4)
		h ^= get_be32(f + OFF_IP6_ADDRS + i);
	proto = f[OFF_IP6_NEXT];
	if (steer_has_ports(proto)) {
		ports = steer_ports(f, len, OFF_IP6_PORTS);
		if (ports < 0)
			return 0;
		h ^= (uint32_t)ports;
	}
	return steer_mix(h ^ proto);
}

uint16_t steer_hash(const uint8_t *frame, size_t len)
{
	uint16_t type;

	if (len < OFF_TYPE + 2)
		return 0;
	type = get_be16(frame + OFF_TYPE);
	if (type == ETH_P_IP)
		return steer_hash4(frame + ETH_HLEN, len - ETH_HLEN);
	if (type == ETH_P_IPV6)
		return steer_hash6(frame + ETH_HLEN, len - ETH_HLEN);
	return steer_mix(type);
}

uint16_t steer_hash_ip(const uint8_t *pkt, size_t len)
{
	if (len < 1)
		return 0;
	switch (pkt[0] >> 4) {
	case 4:
		return steer_hash4(pkt, len);
	case 6:
		return steer_hash6(pkt, len);
	}
	return steer_mix(pkt[0] >> 4);
}

/*
 * A program being written: its instructions, and jumps to labels not
 * yet placed, patched by steer_*_end(). Labels are small numbers.
 */
enum steer_label {
	L_IP4 = 0,
	L_IP6,
	L_PORTS4,
	L_PORTS6,
	L_PROTO,
	L_MIX,
	L_MAX,
};

struct steer_fix {
	unsigned int insn;
	enum steer_label to;
};

struct steer_asm {
	unsigned int n, max;
	int at[L_MAX];		/* where each label is; -1 not yet */
	struct steer_fix fix[32];
	unsigned int n_fix;
	bool ok;
};

static void steer_asm_init(struct steer_asm *a, unsigned int max)
{
	unsigned int i;

	a->n = a->n_fix = 0;
	a->max = max;
	a->ok = true;
	for (i = 0; i < L_MAX; i++)
		a->at[i] = -1;
}

static void steer_label(struct steer_asm *a, enum steer_label l)
{
	a->at[l] = (int)a->n;
}

/* A jump of the instruction about to be written to label to. */
static void steer_jump(struct steer_asm *a, enum steer_label to)
{
	if (a->n_fix == sizeof(a->fix) / sizeof(a->fix[0])) {
		a->ok = false;
		return;
	}
	a->fix[a->n_fix++] = (struct steer_fix){ a->n, to };
}

/* The distance from after insn to label to; -1 for a label not placed. */
static int steer_distance(const struct steer_asm *a, const struct steer_fix *f)
{
	if (a->at[f->to] <= (int)f->insn)
		return -1;
	return a->at[f->to] - (int)f->insn - 1;
}

/*
 * eBPF: r6 the context (LD_ABS and LD_IND take it there), r7 the
 * hash, r8 the protocol, r9 the ports' offset; LD_ABS and LD_IND load
 * into r0, in host order, and end the program (returning 0) past the
 * frame's end.
 */
#define R_CTX 6
#define R_HASH 7
#define R_PROTO 8
#define R_L4 9

static void eb(struct steer_asm *a, struct bpf_insn *p, uint8_t code,
	       uint8_t dst, uint8_t src, int32_t imm)
{
	if (a->n == a->max) {
		a->ok = false;
		return;
	}
	p[a->n++] = (struct bpf_insn){ .code = code, .dst_reg = dst,
				       .src_reg = src, .imm = imm };
}

/* A jump on dst op imm (BPF_JA: always) to label to. */
static void eb_jmp(struct steer_asm *a, struct bpf_insn *p, uint8_t op,
		   uint8_t dst, int32_t imm, enum steer_label to)
{
	steer_jump(a, to);
	eb(a, p, BPF_JMP | op | BPF_K, dst, 0, imm);
}

/* r0 = the word at off of the frame; r0 ^= into R_HASH when fold. */
static void eb_load(struct steer_asm *a, struct bpf_insn *p, uint8_t size,
		    int32_t off, bool fold)
{
	eb(a, p, BPF_LD | BPF_ABS | size, 0, 0, off);
	if (fold)
		eb(a, p, BPF_ALU | BPF_XOR | BPF_X, R_HASH, 0, 0);
}

/* R_HASH ^= sport ^ dport of the ports word in r0 (r1 clobbered). */
static void eb_fold_ports(struct steer_asm *a, struct bpf_insn *p)
{
	eb(a, p, BPF_ALU64 | BPF_MOV | BPF_X, 1, 0, 0);
	eb(a, p, BPF_ALU | BPF_RSH | BPF_K, 1, 0, 16);
	eb(a, p, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xffff);
	eb(a, p, BPF_ALU | BPF_XOR | BPF_X, R_HASH, 0, 0);
	eb(a, p, BPF_ALU | BPF_XOR | BPF_X, R_HASH, 1, 0);
}

/* r0 ^= r0 >> 16 (r1 clobbered). */
static void eb_fold16(struct steer_asm *a, struct bpf_insn *p)
{
	eb(a, p, BPF_ALU64 | BPF_MOV | BPF_X, 1, 0, 0);
	eb(a, p, BPF_ALU | BPF_RSH | BPF_K, 1, 0, 16);
	eb(a, p, BPF_ALU | BPF_XOR | BPF_X, 0, 1, 0);
}

/*
 * R_PROTO = the protocol byte at off; on to label ports for TCP and
 * UDP, to L_PROTO for the rest.
 */
static void eb_proto(struct steer_asm *a, struct bpf_insn *p, int32_t off,
		     enum steer_label ports)
{
	eb_load(a, p, BPF_B, off, false);
	eb(a, p, BPF_ALU64 | BPF_MOV | BPF_X, R_PROTO, 0, 0);
	eb_jmp(a, p, BPF_JEQ, R_PROTO, IPPROTO_TCP, ports);
	eb_jmp(a, p, BPF_JNE, R_PROTO, IPPROTO_UDP, L_PROTO);
	steer_label(a, ports);
}

/* The IPv4 header at ip (14 for a tap's frame, 0 for a tun's packet). */
static void eb_hash4(struct steer_asm *a, struct bpf_insn *p, int32_t ip)
{
	steer_label(a, L_IP4);
	eb_load(a, p, BPF_W, ip + OFF_IP4_SRC, false);
	eb(a, p, BPF_ALU64 | BPF_MOV | BPF_X, R_HASH, 0, 0);
	eb_load(a, p, BPF_W, ip + OFF_IP4_DST, true);
	eb_proto(a, p, ip + OFF_IP4_PROTO, L_PORTS4);
	eb_load(a, p, BPF_H, ip + OFF_IP4_FRAG, false);
	eb_jmp(a, p, BPF_JSET, 0, IP4_FRAG_MASK, L_PROTO);
	eb_load(a, p, BPF_B, ip, false);
	eb(a, p, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xf);
	eb(a, p, BPF_ALU | BPF_LSH | BPF_K, 0, 0, 2);
	eb(a, p, BPF_ALU64 | BPF_MOV | BPF_X, R_L4, 0, 0);
	eb(a, p, BPF_LD | BPF_IND | BPF_W, 0, R_L4, ip);
	eb_fold_ports(a, p);
	eb_jmp(a, p, BPF_JA, 0, 0, L_PROTO);
}

static void eb_hash6(struct steer_asm *a, struct bpf_insn *p, int32_t ip)
{
	unsigned int i;

	steer_label(a, L_IP6);
	eb(a, p, BPF_ALU64 | BPF_MOV | BPF_K, R_HASH, 0, 0);
	for (i = 0; i < 32; i += 4)
		eb_load(a, p, BPF_W, ip + OFF_IP6_ADDRS + (int32_t)i, true);
	eb_proto(a, p, ip + OFF_IP6_NEXT, L_PORTS6);
	eb_load(a, p, BPF_W, ip + OFF_IP6_PORTS, false);
	eb_fold_ports(a, p);
}

/*
 * To L_IP4 or L_IP6 by the ethertype of a tap's frame, or by the
 * version nibble of a tun's packet (tun_net_xmit() hands the program
 * the skb at its network header); other values on to L_MIX in r0.
 */
static void eb_dispatch(struct steer_asm *a, struct bpf_insn *p, bool tun)
{
	if (tun) {
		eb_load(a, p, BPF_B, 0, false);
		eb(a, p, BPF_ALU | BPF_RSH | BPF_K, 0, 0, 4);
		eb_jmp(a, p, BPF_JEQ, 0, 4, L_IP4);
		eb_jmp(a, p, BPF_JEQ, 0, 6, L_IP6);
	} else {
		eb_load(a, p, BPF_H, OFF_TYPE, false);
		eb_jmp(a, p, BPF_JEQ, 0, ETH_P_IP, L_IP4);
		eb_jmp(a, p, BPF_JEQ, 0, ETH_P_IPV6, L_IP6);
	}
	eb_jmp(a, p, BPF_JA, 0, 0, L_MIX);
}

static bool eb_end(struct steer_asm *a, struct bpf_insn *p)
{
	unsigned int i;

	for (i = 0; a->ok && i < a->n_fix; i++) {
		int d = steer_distance(a, &a->fix[i]);

		if (d < 0)
			a->ok = false;
		else
			p[a->fix[i].insn].off = (int16_t)d;
	}
	return a->ok;
}

unsigned int steer_tap_prog(struct bpf_insn *out, bool tun)
{
	int32_t ip = tun ? 0 : ETH_HLEN;
	struct steer_asm a;

	steer_asm_init(&a, STEER_TAP_INSNS);
	eb(&a, out, BPF_ALU64 | BPF_MOV | BPF_X, R_CTX, 1, 0);
	eb_dispatch(&a, out, tun);
	eb_hash4(&a, out, ip);
	eb_hash6(&a, out, ip);
	steer_label(&a, L_PROTO);
	eb(&a, out, BPF_ALU64 | BPF_MOV | BPF_X, 0, R_HASH, 0);
	eb(&a, out, BPF_ALU | BPF_XOR | BPF_X, 0, R_PROTO, 0);
	/* Another ethertype (version) comes here with r0 = it. */
	steer_label(&a, L_MIX);
	eb_fold16(&a, out);
	eb(&a, out, BPF_ALU | BPF_MUL | BPF_K, 0, 0, (int32_t)STEER_MUL);
	eb_fold16(&a, out);
	eb(&a, out, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xffff);
	eb(&a, out, BPF_JMP | BPF_EXIT, 0, 0, 0);
	if (!eb_end(&a, out)) {
		log_err("steering program does not fit");
		return 0;
	}
	return a.n;
}

unsigned int steer_sock_queue(int family, const uint8_t *saddr, uint16_t sport,
			      unsigned int n)
{
	uint32_t w = get_be32(saddr);
	unsigned int i;

	if (family == AF_INET6)
		for (i = 4; i < 16; i += 4)
			w ^= get_be32(saddr + i);
	w ^= w >> 16;
	return ((w ^ sport) & 0xffff) % n;
}

/*
 * Classic BPF (the socket group's): offsets from the outer network
 * header (SKF_NET_OFF), as the program's data starts at the UDP
 * payload; the folded source address is kept in M[0].
 */
#define NET(off) ((uint32_t)SKF_NET_OFF + (off))

struct steer_cbpf {
	struct sock_filter *p;
	unsigned int n;
};

static void cb(struct steer_cbpf *c, uint16_t code, uint32_t k)
{
	c->p[c->n++] = (struct sock_filter){ .code = code, .k = k };
}

/* M[0] ^= the word at the network header's off (A, X clobbered). */
static void cb_fold_word(struct steer_cbpf *c, uint32_t off)
{
	cb(c, BPF_LD | BPF_W | BPF_ABS, NET(off));
	cb(c, BPF_MISC | BPF_TAX, 0);
	cb(c, BPF_LD | BPF_MEM, 0);
	cb(c, BPF_ALU | BPF_XOR | BPF_X, 0);
	cb(c, BPF_ST, 0);
}

/* M[0] = the source address folded to 32 bits, then w ^ w >> 16. */
static void cb_saddr(struct steer_cbpf *c, int family)
{
	unsigned int i, words = family == AF_INET6 ? 4 : 1;
	uint32_t off = family == AF_INET6 ? 8 : 12;

	cb(c, BPF_LD | BPF_IMM, 0);
	cb(c, BPF_ST, 0);
	for (i = 0; i < words; i++)
		cb_fold_word(c, off + 4 * i);
	cb(c, BPF_RSH | BPF_ALU | BPF_K, 16);
	cb(c, BPF_MISC | BPF_TAX, 0);
	cb(c, BPF_LD | BPF_MEM, 0);
	cb(c, BPF_ALU | BPF_XOR | BPF_X, 0);
	cb(c, BPF_ST, 0);
}

/*
 * A conditional jump whose true branch goes to the return of n (the
 * socket of datagrams without a checksum), patched by steer_sock_prog().
 */
static unsigned int cb_jeq_zero(struct steer_cbpf *c)
{
	cb(c, BPF_JMP | BPF_JEQ | BPF_K, 0);
	return c->n - 1;
}

unsigned int steer_sock_prog(struct sock_filter *out, int family,
			     unsigned int n, bool nocsum)
{
	struct steer_cbpf c = { .p = out };
	/* X = the UDP header's offset from the network header. */
	uint16_t udp = family == AF_INET6 ? BPF_LD | BPF_H | BPF_ABS
					  : BPF_LD | BPF_H | BPF_IND;
	uint32_t base = family == AF_INET6 ? 40 : 0;
	int zero = -1, other = -1;

	if (family == AF_INET6) {
		/* No extension header before UDP: else the first socket. */
		cb(&c, BPF_LD | BPF_B | BPF_ABS, NET(6));
		other = (int)c.n;
		cb(&c, BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP);
	}
	cb_saddr(&c, family);
	if (family == AF_INET)
		cb(&c, BPF_LDX | BPF_B | BPF_MSH, NET(0));
	if (nocsum) {
		cb(&c, udp, NET(base + 6));
		zero = (int)cb_jeq_zero(&c);
	}
	cb(&c, udp, NET(base));
	cb(&c, BPF_MISC | BPF_TAX, 0);
	cb(&c, BPF_LD | BPF_MEM, 0);
	cb(&c, BPF_ALU | BPF_XOR | BPF_X, 0);
	cb(&c, BPF_ALU | BPF_AND | BPF_K, 0xffff);
	cb(&c, BPF_ALU | BPF_MOD | BPF_K, n);
	cb(&c, BPF_RET | BPF_A, 0);
	if (other >= 0) {
		out[other].jf = (uint8_t)(c.n - (unsigned int)other - 1);
		cb(&c, BPF_RET | BPF_K, 0);
	}
	if (zero >= 0) {
		out[zero].jt = (uint8_t)(c.n - (unsigned int)zero - 1);
		cb(&c, BPF_RET | BPF_K, n);
	}
	return c.n;
}
