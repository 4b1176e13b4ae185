// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of a new encapsulation's reach: a build of the table with a
 * dummy row (tests/encap-dummy.c, its line in encap-dummy.h) and every
 * other module of libgsotun.a as gsotun has them. What the row says
 * reaches the lookups by name and type, the option checks, --help and
 * the messages, the configuration written out, the overhead and budget,
 * and the header built on xmit_frame()'s segments and parsed back by
 * decap_packet(): no other file knows the dummy.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/bytes.h"
#include "pkt/gro.h"
#include "encap/decap.h"
#include "pipe/pmtu.h"
#include "pipe/xmit.h"
#include "conf/cfg.h"
#include "conf/conffile.h"
#include "conf/options.h"
#include "pkt.h"
#include "tap.h"

#define SEGS 64

static struct pkt P;
static uint8_t rd[VNET_HDR_LEN + PKT_MAX];
static uint8_t slots[SEGS * GSO_SLOT];
static struct seg segs[SEGS];
/* Segment k as the peer receives it, outer IP and UDP stripped. */
static uint8_t wire[SEGS][2048];
static uint32_t wire_len[SEGS];
static struct gro G;
static uint8_t back[PKT_MAX];

static void test_table(void)
{
	char buf[128];

	is_int(encap_count(), 6, "the table has the five rows and the dummy");
	is_int(encap_from_name("dummy"), ENCAP_DUMMY,
	       "encap_from_name(\"dummy\") is ENCAP_DUMMY");
	ok(!strcmp(encap_name(ENCAP_DUMMY), "dummy"), "its name is dummy");
	is_int(encap_from_name("vxlan-gpe"), ENCAP_VXLAN_GPE,
	       "the other rows keep their types");
	is_int(encap_default_port(ENCAP_DUMMY), 7777, "its port is 7777");
	ok(encap_is_udp(ENCAP_DUMMY) && encap_ip_proto(ENCAP_DUMMY) ==
	   IPPROTO_UDP, "it rides on UDP");
	ok(!strcmp(encap_id_name(ENCAP_DUMMY), "VNI") &&
	   !strcmp(encap_id_option(ENCAP_DUMMY), "vni"),
	   "its id is a VNI, given by --vni");
	ok(encap_takes(ENCAP_DUMMY, ENCAP_OPT_VNI) &&
	   encap_takes(ENCAP_DUMMY, ENCAP_OPT_UDP) &&
	   !encap_takes(ENCAP_DUMMY, ENCAP_OPT_KEY) &&
	   !encap_takes(ENCAP_DUMMY, ENCAP_OPT_SEQ) &&
	   !encap_takes(ENCAP_DUMMY, ENCAP_OPT_EVPN) &&
	   !encap_takes(ENCAP_DUMMY, ENCAP_OPT_TUN),
	   "it takes --vni, --port; not --key, --seq, --evpn, --mode tun");
	encap_names(buf, sizeof(buf), ENCAP_OPT_ENCAP, true, "or");
	ok(!strcmp(buf, "vxlan, gre, gre-udp, vxlan-gpe, geneve or dummy"),
	   "the names, last: %s", buf);
}

/* The dummy header: magic 0xd5, then the VNI. */
static void test_header(void)
{
	struct encap_cfg c = { .type = ENCAP_DUMMY, .vni = 0xabcdef };
	uint8_t pkt[64] = { 0 };
	struct encap_rx rx;
	uint32_t id = 0;

	is_int(encap_hdr_len(&c), 4, "its header is 4 bytes");
	is_int(encap_overhead(&c, false), 20 + 8 + 4,
	       "overhead over IPv4: IP, UDP, its header");
	is_int(encap_overhead(&c, true), 40 + 8 + 4,
	       "overhead over IPv6: IP, UDP, its header");
	is_int(pmtu_frame_budget(&c, false, 1500), 1500 - 32,
	       "a 1500 path leaves 1468 for a tap's frame");
	put_be32(pkt, 0xd5abcdef);
	ok(encap_peek_id(ENCAP_DUMMY, pkt, sizeof(pkt), &id) &&
	   id == 0xabcdef, "encap_peek_id(): its VNI");
	is_int(encap_parse(&c, pkt, sizeof(pkt), &rx), DROP_NONE,
	       "parsed: accepted");
	is_int(rx.inner_off, 4, "the frame after the header");
	is_int(encap_parse(&c, pkt, 3, &rx), DROP_RX_SHORT,
	       "3 bytes: rx_drop_short");
	is_int(encap_parse(&c, pkt, 4 + 13, &rx), DROP_RX_INNER_SHORT,
	       "no Ethernet header behind: rx_drop_inner_short");
	c.vni = 5;
	is_int(encap_parse(&c, pkt, sizeof(pkt), &rx), DROP_RX_VNI,
	       "another VNI: rx_drop_vni");
	pkt[0] = 0xd4;
	is_int(encap_parse(&c, pkt, sizeof(pkt), &rx), DROP_RX_FLAGS,
	       "no magic: rx_drop_flags");
}

/* xmit_frame() of a tap's TCP super-frame over c: the wire segments. */
static uint32_t test_send(const struct encap_cfg *c)
{
	const struct pkt_spec s = { .tcp_opt_len = 12, .payload_len = 5000,
				    .gso_size = 1400, .seq = 7 };
	struct xmit_cfg xc = { .encap = c, .pmtud = true, .n_src = 1 };
	struct seg_arena a;
	struct xmit_out out;
	uint32_t seq = 0, k;
	bool hdr = true;

	xc.budget = pmtu_frame_budget(c, false, 1500);
	pkt_build(&s, &P);
	memcpy(rd, &P.vh, VNET_HDR_LEN);
	memcpy(rd + VNET_HDR_LEN, P.buf, P.len);
	seg_arena_init(&a, slots, segs, SEGS);
	if (!is_int(xmit_frame(&xc, &seq, rd, VNET_HDR_LEN + P.len, &a, &out),
		    DROP_NONE, "xmit_frame() takes a TCP super-frame") ||
	    !is_int(out.n, 4, "4 segments of 1400"))
		return 0;
	for (k = 0; k < out.n; k++) {
		const struct seg *sg = &segs[out.first + k];

		memcpy(wire[k], sg->hdr - 4, 4 + sg->hdr_len);
		memcpy(wire[k] + 4 + sg->hdr_len, sg->payload,
		       sg->payload_len);
		wire_len[k] = 4 + seg_len(sg);
		hdr = hdr && get_be32(wire[k]) == (0xd5000000u | c->vni);
	}
	ok(hdr, "each segment has the dummy header, its VNI");
	return out.n;
}

/* The segments back through decap_packet(): the super-frame. */
static void test_receive(const struct encap_cfg *c, uint32_t n)
{
	const struct gro_frame *fr;
	struct decap_out out;
	bool res = true;
	uint32_t i, len = 0;

	gro_init(&G, pmtu_frame_budget(c, false, 1500), true, true, false);
	for (i = 0; i < n; i++)
		res = res && decap_packet(c, &G, wire[i], wire_len[i], 0,
					  &out) == (i ? GRO_MERGED : GRO_QUEUED);
	gro_flush(&G);
	if (!ok(res && G.n_frames == 1, "decap_packet() merges all %u", n))
		return;
	fr = &G.frames[0];
	memcpy(back, fr->hdr, fr->hdr_len);
	len = fr->hdr_len;
	for (i = 0; i < fr->n_slices; i++) {
		memcpy(back + len, fr->slices[i].iov_base,
		       fr->slices[i].iov_len);
		len += (uint32_t)fr->slices[i].iov_len;
	}
	ok(len == P.len && !memcmp(back, P.buf, len),
	   "the super-frame the tap gave, byte for byte");
}

/* What options_parse() of args said (stderr) and wrote (--check's). */
struct run {
	int status;
	char out[8192];
};

static void test_run(const char *const *args, struct run *r)
{
	char *argv[16];
	FILE *f = tmpfile();
	struct config cfg;
	int argc = 0, st;
	size_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!f)
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fileno(f), STDOUT_FILENO);
		dup2(fileno(f), STDERR_FILENO);
		argv[argc++] = (char *)"gsotun";
		while (*args && argc < 15)
			argv[argc++] = (char *)*args++;
		argv[argc] = NULL;
		options_parse(argc, argv, &cfg);
		conffile_write(stdout, &cfg);
		fflush(stdout);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	rewind(f);
	n = fread(r->out, 1, sizeof(r->out) - 1, f);
	r->out[n] = '\0';
	fclose(f);
}

struct opt_row {
	const char *says;
	const char *args[8];
	int status;
	const char *want;	/* in what it printed */
	const char *not;	/* not in it */
};

static const struct opt_row opt_rows[] = {
	{ "--encap dummy --vni 9: written out as encap dummy, vni 9",
	  { "--remote", "192.0.2.2", "--encap", "dummy", "--vni", "9" }, 0,
	  "\nencap dummy\nvni 9\n", "port" },
	{ "--encap dummy --port 7777: its row's port, not written",
	  { "--remote", "192.0.2.2", "--encap", "dummy", "--port", "7777" },
	  0, "\nencap dummy\n", "port" },
	{ "--encap dummy --port 4789: another port, written",
	  { "--remote", "192.0.2.2", "--encap", "dummy", "--port", "4789" },
	  0, "\nport 4789\n", NULL },
	{ "--encap dummy --key: refused, the keyed ones named",
	  { "--remote", "192.0.2.2", "--encap", "dummy", "--key", "5" }, 64,
	  "--key is for --encap gre or gre-udp, not dummy (use --vni)", NULL },
	{ "--encap gre --vni: the dummy among those that take it",
	  { "--remote", "192.0.2.2", "--encap", "gre", "--vni", "5" }, 64,
	  "--vni is for --encap vxlan, vxlan-gpe, geneve or dummy, not "
	  "gre", NULL },
	{ "--encap dummy --mode tun: refused, Ethernet only",
	  { "--remote", "192.0.2.2", "--encap", "dummy", "--mode", "tun" }, 64,
	  "--encap dummy carries Ethernet frames only, not the IP packets of "
	  "--mode tun: use --encap gre, gre-udp, vxlan-gpe or geneve",
	  NULL },
	{ "--encap dummy --seq: refused",
	  { "--remote", "192.0.2.2", "--encap", "dummy", "--seq" }, 64,
	  "--seq is for --encap gre or gre-udp, not dummy", NULL },
	{ "--encap dummy --evpn: refused",
	  { "--local", "192.0.2.1", "--encap", "dummy", "--evpn" }, 64,
	  "--evpn needs --encap vxlan, not dummy", NULL },
	{ "an unknown --encap: the dummy among the names",
	  { "--remote", "192.0.2.2", "--encap", "dumm" }, 64,
	  "must be vxlan, gre, gre-udp, vxlan-gpe, geneve or dummy", NULL },
	{ "--help: --encap lists it", { "--help" }, 0,
	  "vxlan, gre, gre-udp, vxlan-gpe, geneve or dummy (default vxlan)",
	  NULL },
	{ "--help: --port gives its default", { "--help" }, 0,
	  "4790 for vxlan-gpe, 6081 for geneve, 7777 for dummy; not with gre)",
	  NULL },
	{ "--help: --vni is for it", { "--help" }, 0,
	  "(default 1; vxlan, vxlan-gpe, geneve and dummy only)", NULL },
	{ "--help: --mode tun is not", { "--help" }, 0,
	  "IP packets (--encap gre, gre-udp, vxlan-gpe or geneve)", NULL },
};

#define N_OPT_ROWS (sizeof(opt_rows) / sizeof(opt_rows[0]))

/* --help wraps its lines: its blanks squeezed to one space each. */
static void squeeze(char *s)
{
	bool blank = false;
	char *o = s;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\n') {
			blank = true;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = false;
		*o++ = *s;
	}
	*o = '\0';
}

static void test_options(void)
{
	const struct opt_row *r;
	struct run run;
	size_t i;

	for (i = 0; i < N_OPT_ROWS; i++) {
		r = &opt_rows[i];
		test_run(r->args, &run);
		if (!strcmp(r->args[0], "--help"))
			squeeze(run.out);
		if (!ok(run.status == r->status && strstr(run.out, r->want) &&
				(!r->not || !strstr(run.out, r->not)),
			"%s: exit %d", r->says, r->status))
			printf("#   want '%s', not '%s'; exit %d:\n%s\n", r->want,
			       r->not ? r->not : "", run.status, run.out);
	}
}

int main(void)
{
	const struct encap_cfg c = { .type = ENCAP_DUMMY, .vni = 0x123456 };
	uint32_t n;

	plan(9 + 11 + 5 + N_OPT_ROWS);
	test_table();
	test_header();
	n = test_send(&c);
	if (n)
		test_receive(&c, n);
	test_options();
	return done_testing();
}
