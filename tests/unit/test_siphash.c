/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4 (common/siphash.c) against the reference test vectors of
 * its authors: key 00 01 .. 0f, messages 00 01 .. (n-1) for n = 0..63,
 * the 64-bit outputs read as little-endian words (n = 15 is the paper's
 * worked example, appendix A: a129ca6149be45e5).  Every length from 0 to
 * 63 passes each tail length 0-7 and one to seven full words.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "../../common/siphash.h"

static const uint64_t vectors[64] = {
	0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
	0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
	0x93f5f5799a932462, 0x9e0082df0ba9e4b0, 0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7,
	0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee, 0xa129ca6149be45e5,
	0x3f2acc7f57c29bdb, 0x699ae9f52cbe4794, 0x4bc1b3f0968dd39c, 0xbb6dc91da77961bd,
	0xbed65cf21aa2ee98, 0xd0f2cbb02e3b67c7, 0x93536795e3a33e88, 0xa80c038ccd5ccec8,
	0xb8ad50c6f649af94, 0xbce192de8a85b8ea, 0x17d835b85bbb15f3, 0x2f2e6163076bcfad,
	0xde4daaaca71dc9a5, 0xa6a2506687956571, 0xad87a3535c49ef28, 0x32d892fad841c342,
	0x7127512f72f27cce, 0xa7f32346f95978e3, 0x12e0b01abb051238, 0x15e034d40fa197ae,
	0x314dffbe0815a3b4, 0x027990f029623981, 0xcadcd4e59ef40c4d, 0x9abfd8766a33735c,
	0x0e3ea96b5304a7d0, 0xad0c42d6fc585992, 0x187306c89bc215a9, 0xd4a60abcf3792b95,
	0xf935451de4f21df2, 0xa9538f0419755787, 0xdb9acddff56ca510, 0xd06c98cd5c0975eb,
	0xe612a3cb9ecba951, 0xc766e62cfcadaf96, 0xee64435a9752fe72, 0xa192d576b245165a,
	0x0a8787bf8ecb74b2, 0x81b3e73d20b49b6f, 0x7fa8220ba3b2ecea, 0x245731c13ca42499,
	0xb78dbfaf3a8d83bd, 0xea1ad565322a1a0b, 0x60e61c23a3795013, 0x6606d7e446282b93,
	0x6ca4ecb15c5f91e1, 0x9f626da15c9625f3, 0xe51b38608ef25f57, 0x958a324ceb064572,
};

static void reference_key(struct vtb_sipkey *k)
{
	uint8_t b[16];

	for (int i = 0; i < 16; i++)
		b[i] = (uint8_t)i;
	vtb_sipkey_from_bytes(k, b);
}

Test(siphash, matches_the_reference_vectors)
{
	struct vtb_sipkey k;
	uint8_t msg[64];

	reference_key(&k);
	cr_assert_eq(k.k0, 0x0706050403020100);
	cr_assert_eq(k.k1, 0x0f0e0d0c0b0a0908);
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	for (size_t n = 0; n < 64; n++)
		cr_assert_eq(vtb_siphash(&k, msg, n), vectors[n], "length %zu: %016llx", n,
			     (unsigned long long)vtb_siphash(&k, msg, n));
}

/* An unaligned message hashes as an aligned one: words are read a byte
 * at a time. */
Test(siphash, does_not_depend_on_alignment)
{
	struct vtb_sipkey k;
	uint8_t buf[80];

	reference_key(&k);
	for (size_t off = 1; off < 8; off++) {
		for (int i = 0; i < 64; i++)
			buf[off + (size_t)i] = (uint8_t)i;
		cr_assert_eq(vtb_siphash(&k, buf + off, 63), vectors[63], "offset %zu", off);
	}
}

Test(siphash, hashes_a_string_without_its_nul)
{
	struct vtb_sipkey k;

	reference_key(&k);
	cr_assert_eq(vtb_siphash_str(&k, ""), vectors[0]);
	cr_assert_eq(vtb_siphash_str(&k, "abc"), vtb_siphash(&k, "abcd", 3));
}

/* Two random keys differ (a chance of 2^-128 otherwise), and so do the
 * hashes of one string under them: the slot is the key's secret. */
Test(siphash, random_keys_differ)
{
	struct vtb_sipkey a, b;

	cr_assert_eq(vtb_sipkey_random(&a), 0);
	cr_assert_eq(vtb_sipkey_random(&b), 0);
	cr_assert(a.k0 != b.k0 || a.k1 != b.k1);
	cr_assert_neq(vtb_siphash_str(&a, "cell"), vtb_siphash_str(&b, "cell"));
}
