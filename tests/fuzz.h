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

/* libFuzzer's entry point, also called by tests/fuzz-replay.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
