// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of xmit_udp_bulk(): what the transmit side takes for bulk UDP
 * from a sender behind the tap, for which the tap's gso_max_size goes
 * back to 64 KB (path_udp_bulk()).
 */
#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <linux/if_ether.h>
#include "tap.h"
#include "xmit.h"

/* The gso_max_size TCP is given behind a vxlan tap of MTU 1450. */
#define FIT 58570

static struct frame udp(uint32_t len, uint8_t gso)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.len = len;
	f.l3_off = ETH_HLEN;
	f.l4_off = ETH_HLEN + 20;
	f.l4_proto = IPPROTO_UDP;
	f.gso = gso;
	return f;
}

/* n frames like f in a row: the 1-based index of the first that is bulk. */
static int first_bulk(struct xmit_udp_train *tr, const struct frame *f,
		      int n)
{
	int i;

	for (i = 1; i <= n; i++)
		if (xmit_udp_bulk(tr, f, FIT) == XMIT_BULK_TRAIN)
			return i;
	return 0;
}

static void test_trains(void)
{
	struct xmit_udp_train tr = { 0 };
	struct frame d = udp(1442, FRAME_GSO_NONE);
	struct frame other = udp(1000, FRAME_GSO_NONE);
	struct frame small = udp(XMIT_UDP_TRAIN_MIN - 1, FRAME_GSO_NONE);
	struct frame frag = d;
	struct frame tcp = d;

	frag.l4_off = 0;
	tcp.l4_proto = IPPROTO_TCP;
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "a train of full datagrams is bulk at its 32nd");
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "and again 32 later, not at every one after");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	ok(!xmit_udp_bulk(&tr, &other, FIT), "another size breaks the row");
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "which starts again from one");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	ok(!xmit_udp_bulk(&tr, &tcp, FIT), "a TCP frame is not bulk UDP");
	ok(xmit_udp_bulk(&tr, &d, FIT) == XMIT_BULK_TRAIN,
	   "nor does it break the row");
	is_int(first_bulk(&tr, &small, 1000), 0,
	       "small datagrams never make a train");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	xmit_udp_bulk(&tr, &small, FIT);
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "a small one breaks the row");
	is_int(first_bulk(&tr, &tcp, 1000), 0, "TCP never is");
	is_int(first_bulk(&tr, &frag, 1000), 0,
	       "fragments of large datagrams never make a train");
	first_bulk(&tr, &d, XMIT_UDP_TRAIN - 1);
	xmit_udp_bulk(&tr, &frag, FIT);
	is_int(first_bulk(&tr, &d, 100), XMIT_UDP_TRAIN,
	       "a fragment breaks the row");
}

static void test_super_frames(void)
{
	struct xmit_udp_train tr = { 0 };
	struct frame big = udp(FIT + 1, FRAME_GSO_UDP4);
	struct frame fits = udp(FIT, FRAME_GSO_UDP4);
	struct frame tso = udp(65000, FRAME_GSO_TCP4);

	tso.l4_proto = IPPROTO_TCP;
	ok(xmit_udp_bulk(&tr, &big, FIT) == XMIT_BULK_SUPER,
	   "a UDP super-frame over TCP's size is bulk");
	ok(!xmit_udp_bulk(&tr, &fits, FIT),
	   "one that fits TCP's size is not");
	ok(!xmit_udp_bulk(&tr, &tso, FIT), "a TCP super-frame is not");
}

int main(void)
{
	test_trains();
	test_super_frames();
	plan(tap_n);
	return done_testing();
}
