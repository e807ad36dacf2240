/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4, written from the paper's description (section 2): the
 * state is four 64-bit words initialised from the key and the constants
 * "somepseudorandomlygeneratedbytes"; each 8-byte little-endian message
 * word m is absorbed as v3 ^= m, two SipRounds, v0 ^= m; the last word
 * holds the remaining bytes and the length mod 256 in its top byte;
 * finalisation is v2 ^= 0xff, four SipRounds, v0 ^ v1 ^ v2 ^ v3.
 */
#include <string.h>

#include "siphash.h"
#include "vtbutil.h"

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL(v[2], 32);
}

/* Bytes @p[0..n) as a little-endian word (n <= 8), whatever the host. */
static uint64_t le_word(const unsigned char *p, size_t n)
{
	uint64_t m = 0;

	while (n--)
		m |= (uint64_t)p[n] << (8 * n);
	return m;
}

static void absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
}

uint64_t vtb_siphash(const struct vtb_sipkey *k, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t v[4] = {
		k->k0 ^ UINT64_C(0x736f6d6570736575),
		k->k1 ^ UINT64_C(0x646f72616e646f6d),
		k->k0 ^ UINT64_C(0x6c7967656e657261),
		k->k1 ^ UINT64_C(0x7465646279746573),
	};
	size_t left = len;

	for (; left >= 8; p += 8, left -= 8)
		absorb(v, le_word(p, 8));
	absorb(v, le_word(p, left) | (uint64_t)(len & 0xff) << 56);
	v[2] ^= 0xff;
	for (int i = 0; i < 4; i++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t vtb_siphash_str(const struct vtb_sipkey *k, const char *s)
{
	return vtb_siphash(k, s, strlen(s));
}

void vtb_sipkey_from_bytes(struct vtb_sipkey *k, const uint8_t b[16])
{
	k->k0 = le_word(b, 8);
	k->k1 = le_word(b + 8, 8);
}

int vtb_sipkey_random(struct vtb_sipkey *k)
{
	uint8_t b[16];

	if (vtb_random_bytes(b, sizeof(b)) < 0)
		return -1;
	vtb_sipkey_from_bytes(k, b);
	return 0;
}
