/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input
 * PRF", 2012): a keyed 64-bit hash for hash tables whose keys come from
 * untrusted input.  With a secret random key per table, an attacker who
 * picks the keys cannot pick where they land, so open addressing stays
 * linear on hostile streams (an unkeyed hash such as FNV-1a lets a guest
 * put every key in one probe chain: quadratic).
 */
#ifndef VTB_SIPHASH_H
#define VTB_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* The 128-bit key as the paper's two little-endian words k0, k1. */
struct vtb_sipkey {
	uint64_t k0, k1;
};

/* A fresh secret key from getrandom(2).  -1 with vtb_error() when the
 * kernel gives no random bytes. */
int vtb_sipkey_random(struct vtb_sipkey *k);
/* The key of 16 bytes @b (byte 0 the lowest of k0): the paper's layout,
 * for its test vectors. */
void vtb_sipkey_from_bytes(struct vtb_sipkey *k, const uint8_t b[16]);

/* SipHash-2-4 of @len bytes at @data under @k. */
uint64_t vtb_siphash(const struct vtb_sipkey *k, const void *data, size_t len);
/* Of a NUL-terminated string (its bytes without the NUL). */
uint64_t vtb_siphash_str(const struct vtb_sipkey *k, const char *s);

#endif
