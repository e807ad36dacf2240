/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram: bucket edges, bounded relative error, merge,
 * percentiles against a sorted-array reference, JSON round trip.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/hist.h"
#include "../../common/vtbutil.h"

Test(hist, small_values_have_exact_buckets)
{
	unsigned b = 6;
	uint64_t v;

	for (v = 0; v < 128; v++) {
		cr_assert_eq(vtb_hist_index(b, v), v);
		cr_assert_eq(vtb_hist_bucket_lo(b, v), v);
		cr_assert_eq(vtb_hist_bucket_width(b, v), 1);
	}
}

Test(hist, bucket_edges_are_contiguous_and_contain_their_values)
{
	unsigned bits;

	for (bits = 1; bits <= 10; bits++) {
		size_t n = vtb_hist_n_buckets(bits), i;

		for (i = 0; i + 1 < n; i++) {
			uint64_t lo = vtb_hist_bucket_lo(bits, i);
			uint64_t w = vtb_hist_bucket_width(bits, i);
			uint64_t hi = lo + (w - 1);

			cr_assert_eq(vtb_hist_bucket_lo(bits, i + 1), lo + w, "bits %u bucket %zu",
				     bits, i);
			cr_assert_eq(vtb_hist_index(bits, lo), i);
			cr_assert_eq(vtb_hist_index(bits, hi), i);
			/* width at most lo / 2^bits: bounded relative error */
			if (w > 1)
				cr_assert_leq(w, lo >> bits);
		}
		cr_assert_eq(vtb_hist_index(bits, UINT64_MAX), n - 1);
		cr_assert_eq(vtb_hist_bucket_lo(bits, n - 1) +
				     (vtb_hist_bucket_width(bits, n - 1) - 1),
			     UINT64_MAX);
	}
}

Test(hist, known_edges_for_six_bits)
{
	/* 128..255 in width-2 buckets, 256..511 in width-4 */
	cr_assert_eq(vtb_hist_index(6, 128), 128);
	cr_assert_eq(vtb_hist_index(6, 129), 128);
	cr_assert_eq(vtb_hist_index(6, 130), 129);
	cr_assert_eq(vtb_hist_index(6, 255), 191);
	cr_assert_eq(vtb_hist_index(6, 256), 192);
	cr_assert_eq(vtb_hist_index(6, 259), 192);
	cr_assert_eq(vtb_hist_bucket_lo(6, 192), 256);
	cr_assert_eq(vtb_hist_bucket_width(6, 192), 4);
	cr_assert_eq(vtb_hist_n_buckets(6), 59 * 64);
}

Test(hist, init_rejects_bad_bits)
{
	struct vtb_hist h;

	cr_assert_eq(vtb_hist_init(&h, 0, "us"), -1);
	cr_assert_eq(vtb_hist_init(&h, 17, "us"), -1);
	vtb_hist_release(&h);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t ref_percentile(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

Test(hist, percentiles_match_a_sorted_reference)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };
	const size_t n = 100000;
	uint64_t *vals = malloc(n * sizeof(*vals));
	struct vtb_hist h;
	unsigned seed = 7;
	size_t i, j;

	cr_assert_eq(vtb_hist_init(&h, VTB_HIST_BITS_DEFAULT, "ns"), 0);
	for (i = 0; i < n; i++) {
		/* log-uniform over 1..2^30: every group gets values */
		int e = rand_r(&seed) % 30;

		vals[i] = ((uint64_t)1 << e) + (uint64_t)rand_r(&seed) % ((uint64_t)1 << e);
		vtb_hist_add(&h, vals[i]);
	}
	qsort(vals, n, sizeof(*vals), cmp_u64);
	cr_assert_eq(h.count, n);
	cr_assert_eq(h.min, vals[0]);
	cr_assert_eq(h.max, vals[n - 1]);
	for (j = 0; j < VTB_ARRAY_SIZE(ps); j++) {
		uint64_t ref = ref_percentile(vals, n, ps[j]);
		uint64_t got = vtb_hist_percentile(&h, ps[j]);

		/* same bucket as the exact answer, so within its width */
		cr_assert_eq(vtb_hist_index(h.bits, got), vtb_hist_index(h.bits, ref),
			     "p%g: got %llu, reference %llu", ps[j], (unsigned long long)got,
			     (unsigned long long)ref);
		cr_assert_leq(got > ref ? got - ref : ref - got, ref / 64 + 1);
	}
	cr_assert_eq(vtb_hist_percentile(&h, 100), vals[n - 1]);
	cr_assert_eq(vtb_hist_percentile(&h, 0), vals[0]);
	vtb_hist_release(&h);
	free(vals);
}

Test(hist, merge_equals_adding_everything_to_one)
{
	struct vtb_hist a, b, all, other;
	unsigned seed = 3;
	int i;

	cr_assert_eq(vtb_hist_init(&a, 5, "us"), 0);
	cr_assert_eq(vtb_hist_init(&b, 5, "us"), 0);
	cr_assert_eq(vtb_hist_init(&all, 5, "us"), 0);
	cr_assert_eq(vtb_hist_init(&other, 4, "us"), 0);
	for (i = 0; i < 5000; i++) {
		uint64_t v = (uint64_t)rand_r(&seed) % 100000;

		vtb_hist_add(i % 3 ? &a : &b, v);
		vtb_hist_add(&all, v);
	}
	cr_assert_eq(vtb_hist_merge(&a, &b), 0);
	cr_assert_eq(a.count, all.count);
	cr_assert_eq(a.min, all.min);
	cr_assert_eq(a.max, all.max);
	cr_assert_eq(memcmp(a.buckets, all.buckets, a.n_buckets * sizeof(*a.buckets)), 0);
	cr_assert_eq(vtb_hist_percentile(&a, 99), vtb_hist_percentile(&all, 99));
	cr_assert_eq(vtb_hist_merge(&a, &other), -1);
	vtb_hist_release(&a);
	vtb_hist_release(&b);
	vtb_hist_release(&all);
	vtb_hist_release(&other);
}

static void add_all(struct vtb_hist *h, const uint64_t *v, size_t n)
{
	cr_assert_eq(vtb_hist_init(h, 6, "ns"), 0);
	for (size_t i = 0; i < n; i++)
		vtb_hist_add(h, v[i]);
}

/*
 * The exact value the documented rule gives, where the reference above
 * only asks for the right bucket (off-by-one ranks and middles land in
 * the same bucket there): the ceil(p/100 * count)-th smallest value, a
 * bucket's middle lo + (width - 1) / 2, clamped to the minimum and the
 * maximum seen.
 */
Test(hist, percentiles_are_exact_ranks_middles_and_clamps)
{
	static const uint64_t ten[] = { 7, 3, 9, 1, 5, 10, 2, 8, 6, 4 };
	static const uint64_t wide[] = { 1000, 1007 }, high[] = { 1005, 1006 },
			      low[] = { 1000, 1001 };
	struct vtb_hist h;

	/* values under 128 have a bucket each: ranks are exact */
	add_all(&h, ten, VTB_ARRAY_SIZE(ten));
	cr_assert_eq(vtb_hist_percentile(&h, 10), 1);
	cr_assert_eq(vtb_hist_percentile(&h, 50), 5, "p50 of 1..10 is the 5th value");
	cr_assert_eq(vtb_hist_percentile(&h, 50.5), 6, "rank ceil(5.05) = 6");
	cr_assert_eq(vtb_hist_percentile(&h, 55), 6, "rank ceil(5.5) = 6");
	cr_assert_eq(vtb_hist_percentile(&h, 90), 9);
	cr_assert_eq(vtb_hist_percentile(&h, 90.01), 10);
	cr_assert_eq(vtb_hist_percentile(&h, 100), 10);
	vtb_hist_release(&h);
	/* 1000 and 1007 share the bucket [1000, 1007]: its middle is 1003 */
	cr_assert_eq(vtb_hist_bucket_lo(6, vtb_hist_index(6, 1007)), 1000);
	cr_assert_eq(vtb_hist_bucket_width(6, vtb_hist_index(6, 1000)), 8);
	add_all(&h, wide, VTB_ARRAY_SIZE(wide));
	cr_assert_eq(vtb_hist_percentile(&h, 50), 1003);
	cr_assert_eq(vtb_hist_percentile(&h, 99), 1003);
	cr_assert_eq(vtb_hist_percentile(&h, 100), 1007);
	vtb_hist_release(&h);
	/* the middle below the minimum seen: the minimum */
	add_all(&h, high, VTB_ARRAY_SIZE(high));
	cr_assert_eq(vtb_hist_percentile(&h, 50), 1005);
	cr_assert_eq(vtb_hist_percentile(&h, 99), 1005);
	cr_assert_eq(vtb_hist_percentile(&h, 100), 1006);
	vtb_hist_release(&h);
	/* the middle above the maximum seen: the maximum */
	add_all(&h, low, VTB_ARRAY_SIZE(low));
	cr_assert_eq(vtb_hist_percentile(&h, 50), 1001);
	cr_assert_eq(vtb_hist_percentile(&h, 1), 1001);
	vtb_hist_release(&h);
}

Test(hist, empty_histogram_has_zero_percentiles)
{
	struct vtb_hist h;

	cr_assert_eq(vtb_hist_init(&h, 6, "us"), 0);
	cr_assert_eq(vtb_hist_percentile(&h, 50), 0);
	cr_assert_eq(vtb_hist_mean(&h), 0);
	vtb_hist_release(&h);
}

Test(hist, json_is_sparse_and_round_trips)
{
	struct vtb_hist h, back;
	json_t *params, *buckets;
	char *ptext;

	cr_assert_eq(vtb_hist_init(&h, 6, "us"), 0);
	vtb_hist_add(&h, 3);
	vtb_hist_add(&h, 3);
	vtb_hist_add(&h, 1000);
	params = vtb_hist_params_json(&h);
	buckets = vtb_hist_buckets_json(&h);
	ptext = json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT);
	cr_assert_str_eq(ptext, "{\"bits\":6,\"kind\":\"loglinear\",\"unit\":\"us\"}");
	free(ptext);
	cr_assert_eq(json_array_size(buckets), 2);
	cr_assert_eq(vtb_hist_from_json(&back, params, buckets), 0, "%s", vtb_errmsg());
	cr_assert_eq(back.count, 3);
	cr_assert_eq(memcmp(back.buckets, h.buckets, h.n_buckets * sizeof(*h.buckets)), 0);
	cr_assert_eq(vtb_hist_percentile(&back, 50), 3);
	vtb_hist_release(&back);
	json_array_append_new(buckets, json_pack("[i,i]", 1 << 20, 1));
	cr_assert_eq(vtb_hist_from_json(&back, params, buckets), -1);
	json_decref(params);
	json_decref(buckets);
	vtb_hist_release(&h);
}

/* A reader rebuilding a histogram from stored JSON: counts that add up
 * past 2^63 - 1 are refused, not wrapped (issue 16). */
Test(hist, counts_that_overflow_are_refused_by_the_reader)
{
	json_t *params = json_pack("{s:s, s:i, s:s}", "kind", "loglinear", "bits", 6, "unit", "us");
	json_t *b = json_loads("[[1,9223372036854775807],[2,1]]", 0, NULL);
	json_t *ok = json_loads("[[1,9223372036854775806],[2,1]]", 0, NULL);
	struct vtb_hist h;

	cr_assert_not_null(params);
	cr_assert_not_null(b);
	cr_assert_eq(vtb_hist_from_json(&h, params, b), -1);
	cr_expect(strstr(vtb_errmsg(), "more than 2^63 - 1"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_hist_from_json(&h, params, ok), 0, "%s", vtb_errmsg());
	cr_expect_eq(h.count, 9223372036854775807ULL);
	cr_expect_eq(h.min, 1);
	cr_expect_eq(h.max, 2);
	vtb_hist_release(&h);
	json_decref(params);
	json_decref(b);
	json_decref(ok);
}
