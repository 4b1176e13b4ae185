/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the libFuzzer harnesses share: a check that aborts with the file,
 * line and condition, so libFuzzer keeps the input that broke it.
 */
#ifndef GSOTUN_TESTS_FUZZ_H
#define GSOTUN_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: check failed: %s\n",          \
				__FILE__, __LINE__, #cond);                   \
			abort();                                              \
		}                                                             \
	} while (0)

/*
 * Where L3 starts in an Ethernet frame of len bytes, after up to two VLAN
 * tags (802.1Q, 802.1ad), and its ethertype in *type; 0 if the frame ends
 * first.
 */
static inline uint32_t fuzz_l3_off(const uint8_t *d, size_t len,
				   uint16_t *type)
{
	uint32_t off = 12;
	int tags;

	if (len < 14)
		return 0;
	*type = (uint16_t)(d[off] << 8 | d[off + 1]);
	for (tags = 0; tags < 2 && (*type == 0x8100 || *type == 0x88a8);
	     tags++) {
		off += 4;
		if (off + 2 > len)
			return 0;
		*type = (uint16_t)(d[off] << 8 | d[off + 1]);
	}
	return off + 2;
}

/* libFuzzer's entry point, also called by tests/fuzz-replay.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
