/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): the entry points
 * libFuzzer calls, and CHECK(), which turns a broken invariant into a
 * crash libFuzzer reports with its input.
 */
#ifndef VTB_FUZZ_H
#define VTB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
				#cond);                                                      \
			abort();                                                             \
		}                                                                            \
	} while (0)

#endif
