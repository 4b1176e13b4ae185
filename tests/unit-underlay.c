// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the receive batch size (underlay_rx_next()): as many
 * datagrams of the last batch's mean size as fit in UNDERLAY_RX_BYTES,
 * never fewer than one nor more than the maximum (a UDP socket's or a
 * raw GRE socket's).
 */
#include "config.h"

#include "pkt/gro.h"
#include "sys/underlay.h"
#include "tap.h"

struct row {
	unsigned int n;		/* datagrams the last batch brought */
	size_t bytes;		/* and their bytes */
	unsigned int max;
	unsigned int want;
	const char *what;
};

static const struct row rows[] = {
	{ 32, 32 * 64, UNDERLAY_RX_BATCH, UNDERLAY_RX_BATCH,
	  "64-byte datagrams: the whole batch" },
	{ 32, 32 * 1450, UNDERLAY_RX_BATCH, UNDERLAY_RX_BATCH,
	  "1450-byte datagrams: the whole batch" },
	{ 4, 4 * 65000, UNDERLAY_RX_BATCH, UNDERLAY_RX_BYTES / 65000,
	  "64 KB GRO datagrams: what fits in UNDERLAY_RX_BYTES" },
	{ 6, 6 * 40600, UNDERLAY_RX_BATCH, UNDERLAY_RX_BYTES / 40600,
	  "40 KB GRO datagrams (veth's GRO)" },
	{ 3, 2 * 65000 + 100, UNDERLAY_RX_BATCH,
	  UNDERLAY_RX_BYTES * 3 / (2 * 65000 + 100),
	  "a mix: by the mean size" },
	{ 1, UNDERLAY_RX_BYTES * 2, UNDERLAY_RX_BATCH, 1,
	  "one datagram over the aim: still one" },
	{ 0, 0, UNDERLAY_RX_BATCH, UNDERLAY_RX_BATCH,
	  "nothing came: the maximum again" },
	{ 2, 0, UNDERLAY_RX_BATCH, UNDERLAY_RX_BATCH,
	  "empty datagrams: the maximum" },
	{ 128, 128 * 1500, UNDERLAY_RX_BATCH_RAW, UNDERLAY_RX_BATCH_RAW,
	  "raw GRE, 1500-byte packets: the whole raw batch" },
	{ 20, 20 * 9000, UNDERLAY_RX_BATCH_RAW, UNDERLAY_RX_BYTES / 9000,
	  "raw GRE, 9000-byte packets (jumbo underlay): what fits" },
	{ 32, 32 * 64, 1, 1, "--no-offload: one, whatever the size" },
	{ 4, 4 * 65000, 1, 1, "--no-offload, big datagrams: one" },
};

int main(void)
{
	unsigned int i, n = sizeof(rows) / sizeof(rows[0]);

	plan((int)n + 3);
	ok(UNDERLAY_RX_BYTES / 65536 >= 2 &&
		   UNDERLAY_RX_BYTES / 65536 < UNDERLAY_RX_BATCH,
	   "the aim holds a few 64 KB datagrams, fewer than the maximum");
	ok(UNDERLAY_RX_BATCH_RAW * 1500 <= UNDERLAY_RX_BYTES &&
		   UNDERLAY_RX_BATCH_RAW * 1500 >= 2 * 65536,
	   "a raw batch of 1500-byte packets: two 64 KB frames, in the aim");
	ok(UNDERLAY_RX_BATCH_RAW <= GRO_MAX_FRAMES &&
		   UNDERLAY_RX_SLOTS >= UNDERLAY_RX_BATCH_RAW &&
		   UNDERLAY_RX_SLOTS >= UNDERLAY_RX_BATCH,
	   "a raw batch fits gro's frames; the slots hold either batch");
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		is_int(underlay_rx_next(r->n, r->bytes, r->max), r->want,
		       "%s", r->what);
	}
	return done_testing();
}
