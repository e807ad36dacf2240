/* SPDX-License-Identifier: MIT */
/*
 * Cell keys that all collided in the record parser's former hash tables
 * (issue 25): those hashed with unkeyed 64-bit FNV-1a and took the low
 * bits as the slot, so keys whose hashes share their low @bits bits
 * land in one probe chain of every table of up to 2^@bits slots.  Used
 * by tests/unit/test_recparse.c (behaviour) and tests/tools/parsebench.c
 * (the figure).
 *
 * FNV-1a steps h = (h ^ c) * P mod 2^64; the low k bits of a product
 * depend only on the low k bits of its factors, so the low k bits of the
 * state depend only on the low k bits before.  A key is PREFIX C1 C2:
 * for each prefix and each C1, the state s before C2 is known, and
 * (s ^ C2) * P has low k bits 0 exactly when s ^ C2 has (P is odd): bits
 * 8..k-1 of s must be 0 (one prefix and C1 in 2^(k-8)), and C2 is then
 * s's low byte, kept when it is a plain printable character.
 */
#ifndef VTB_FNVKEYS_H
#define VTB_FNVKEYS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET UINT64_C(1469598103934665603)
#define FNV_PRIME UINT64_C(1099511628211)

static inline uint64_t fnv1a_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

static inline uint64_t fnv1a(const char *s)
{
	uint64_t h = FNV_OFFSET;

	while (*s)
		h = fnv1a_step(h, (unsigned char)*s++);
	return h;
}

/* Printable ASCII but the two characters JSON escapes ('"' and '\'): a
 * key goes into a record as it is.  The parser takes any string. */
static inline int fnv_plain(unsigned c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * @n distinct keys of 10 bytes, "k" + 7 hex digits + C1 + C2, whose
 * FNV-1a hashes have their low @bits (8 to 32) bits 0, in a malloc'ed
 * array of n + 1 strings (n NUL-terminated keys of 11 bytes each, then
 * NULL); free() the array.  NULL on ENOMEM.
 */
static inline char **fnv_colliding_keys(size_t n, unsigned bits)
{
	char **keys = malloc((n + 1) * sizeof(*keys) + n * 11);
	char *text = (char *)(keys + n + 1);
	uint64_t high = (UINT64_C(1) << bits) - 256; /* bits 8..bits-1 */
	size_t got = 0;

	if (!keys)
		return NULL;
	for (uint32_t pre = 0; got < n; pre++) {
		char prefix[9];
		uint64_t s0 = FNV_OFFSET;

		snprintf(prefix, sizeof(prefix), "k%07x", pre & 0xfffffffu);
		for (int i = 0; i < 8; i++)
			s0 = fnv1a_step(s0, (unsigned char)prefix[i]);
		for (unsigned c1 = 0x20; c1 < 0x7f && got < n; c1++) {
			uint64_t s1;

			if (!fnv_plain(c1))
				continue;
			s1 = fnv1a_step(s0, (unsigned char)c1);
			if ((s1 & high) || !fnv_plain((unsigned)(s1 & 0xff)))
				continue;
			keys[got] = text + got * 11;
			memcpy(keys[got], prefix, 8);
			keys[got][8] = (char)c1;
			keys[got][9] = (char)(s1 & 0xff);
			keys[got][10] = '\0';
			got++;
		}
	}
	keys[n] = NULL;
	return keys;
}

/* @n distinct keys of the same shape, C1 C2 drawn from @seed: what a
 * well-behaved guest's keys cost (same layout and release as above). */
static inline char **fnv_random_keys(size_t n, uint64_t seed)
{
	char **keys = malloc((n + 1) * sizeof(*keys) + n * 11);
	char *text = (char *)(keys + n + 1);

	if (!keys)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned c[2];

		for (int j = 0; j < 2; j++) {
			do {
				/* xorshift64 */
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				c[j] = 0x20 + (unsigned)(seed % 95);
			} while (!fnv_plain(c[j]));
		}
		keys[i] = text + i * 11;
		snprintf(keys[i], 11, "k%07zx%c%c", i & 0xfffffff, (char)c[0], (char)c[1]);
	}
	keys[n] = NULL;
	return keys;
}

#endif
