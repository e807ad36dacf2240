/* SPDX-License-Identifier: MIT */
/*
 * tails: the pooled percentile of a side's boots, its bootstrap test and
 * interval (they cannot disagree), and the rows' side: which metrics are
 * tails and which histogram a sample metric is judged from.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../common/hist.h"
#include "../../harness/compare/compare-priv.h"
#include "../../harness/compare/tails.h"
#include "../../harness/store/store.h"

/* ---- boots made by hand ---- */

/* A boot with @n buckets (values @v ascending, counts @c), owned by the
 * test's static storage. */
static struct vtb_tail_boot boot(const double *v, const uint64_t *c, size_t n)
{
	return (struct vtb_tail_boot){ .v = v, .c = c, .n = n, .max = n ? v[n - 1] : 0 };
}

/* A boot from a histogram, as the loader makes it (values malloc'ed:
 * boot_free). */
static struct vtb_tail_boot boot_of(const struct vtb_hist *h)
{
	double *v = malloc(h->n_buckets * sizeof(*v));
	uint64_t *c = malloc(h->n_buckets * sizeof(*c));
	size_t n = 0;

	cr_assert(v && c);
	for (size_t i = 0; i < h->n_buckets; i++)
		if (h->buckets[i]) {
			uint64_t w = vtb_hist_bucket_width(h->bits, i);
			uint64_t x = vtb_hist_bucket_lo(h->bits, i) + (w - 1) / 2;

			v[n] = (double)(x < h->min ? h->min : x > h->max ? h->max : x);
			c[n++] = h->buckets[i];
		}
	return (struct vtb_tail_boot){ .v = v, .c = c, .n = n, .max = (double)h->max };
}

static void boots_free(struct vtb_tail_boot *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((void *)b[i].v);
		free((void *)b[i].c);
	}
}

/* The side with one value 1: d is then the log of the other side's P. */
static const double one_v[] = { 1 };
static const uint64_t one_c[] = { 1 };

static double P_of(const struct vtb_tail_boot *x, size_t n, double pct)
{
	struct vtb_tail_boot u = boot(one_v, one_c, 1);
	struct vtb_tail t;

	cr_assert_eq(vtb_tail_compare(&u, 1, x, n, pct, 0.05, 0, 1, &t), 0);
	return exp(t.d);
}

Test(tails, the_pooled_percentile_is_the_bucket_of_the_rank_of_all_boots_added)
{
	/* A: 10 x50, 20 x40, 30 x10; B: 20 x90, 40 x10.  Pooled: 10 x50,
	 * 20 x130, 30 x10, 40 x10 (200 values) */
	static const double av[] = { 10, 20, 30 }, bv[] = { 20, 40 };
	static const uint64_t ac[] = { 50, 40, 10 }, bc[] = { 90, 10 };
	struct vtb_tail_boot x[] = { boot(av, ac, 3), boot(bv, bc, 2) };

	cr_expect_float_eq(P_of(x, 2, 99), 40, 1e-9);	/* rank 198 */
	cr_expect_float_eq(P_of(x, 2, 95), 30, 1e-9);	/* rank 190 */
	cr_expect_float_eq(P_of(x, 2, 94.9), 30, 1e-9); /* rank 190 (189.8) */
	cr_expect_float_eq(P_of(x, 2, 95.1), 40, 1e-9); /* rank 191 (190.2) */
	cr_expect_float_eq(P_of(x, 2, 90), 20, 1e-9);	/* rank 180 */
	cr_expect_float_eq(P_of(x, 2, 90.5), 30, 1e-9); /* rank 181 */
	cr_expect_float_eq(P_of(x, 2, 99.5), 40, 1e-9); /* rank 199 */
	cr_expect_float_eq(P_of(x, 2, 25), 10, 1e-9);	/* rank 50 */
	cr_expect_float_eq(P_of(x, 2, 25.5), 20, 1e-9); /* rank 51 */
	/* the same as one histogram of them all (vtb_hist_percentile) */
	cr_expect_float_eq(P_of(x, 1, 99), 30, 1e-9);
	cr_expect_float_eq(P_of(x + 1, 1, 99), 40, 1e-9);
}

Test(tails, a_boot_drawn_twice_counts_twice)
{
	/* A twice and B once: 10 x100, 20 x170, 30 x20, 40 x10 (300): p90 is
	 * the 270th: 20; p95 the 285th: 30 */
	static const double av[] = { 10, 20, 30 }, bv[] = { 20, 40 };
	static const uint64_t ac[] = { 50, 40, 10 }, bc[] = { 90, 10 };
	struct vtb_tail_boot x[] = { boot(av, ac, 3), boot(bv, bc, 2), boot(av, ac, 3) };

	cr_expect_float_eq(P_of(x, 3, 90), 20, 1e-9);
	cr_expect_float_eq(P_of(x, 3, 95), 30, 1e-9);
	cr_expect_float_eq(P_of(x, 3, 99), 40, 1e-9); /* 297th */
}

/* The pooled percentile the slow way: every boot's buckets merged. */
static double brute_pooled(const struct vtb_tail_boot *b, size_t n, double pct)
{
	double total = 0, rank, best = INFINITY;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < b[i].n; j++)
			total += (double)b[i].c[j];
	rank = ceil(pct / 100 * total);
	/* the smallest value v with at least rank values at or below it */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < b[i].n; j++) {
			double v = b[i].v[j], cum = 0;

			for (size_t k = 0; k < n; k++)
				for (size_t l = 0; l < b[k].n && b[k].v[l] <= v; l++)
					cum += (double)b[k].c[l];
			if (cum >= rank && v < best)
				best = v;
		}
	return best;
}

/* @n boots of random small histograms (values on a coarse grid, so that
 * boots share values), malloc'ed. */
static void random_boots(gsl_rng *r, struct vtb_tail_boot *b, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++) {
		size_t m = 1 + gsl_rng_uniform_int(r, 12), k = 0;
		double *v = malloc(m * sizeof(*v)), x = gsl_rng_uniform_int(r, 5);
		uint64_t *c = malloc(m * sizeof(*c));

		cr_assert(v && c);
		for (k = 0; k < m; k++) {
			x += 1 + (double)gsl_rng_uniform_int(r, 3);
			v[k] = x * scale;
			c[k] = 1 + gsl_rng_uniform_int(r, gsl_rng_uniform(r) < 0.2 ? 1000 : 20);
		}
		b[i] = (struct vtb_tail_boot){ .v = v, .c = c, .n = m, .max = v[m - 1] };
	}
}

Test(tails, the_pooled_percentile_matches_merging_every_boot)
{
	static const double pcts[] = { 99, 99.9, 50, 90, 1, 99.99 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, 7);
	for (int round = 0; round < 400; round++) {
		struct vtb_tail_boot b[9];
		size_t n = 1 + gsl_rng_uniform_int(r, 9);
		double pct = pcts[round % 6];

		random_boots(r, b, n, 1);
		cr_assert_float_eq(P_of(b, n, pct), brute_pooled(b, n, pct), 1e-9,
				   "round %d: %zu boots, p%g", round, n, pct);
		boots_free(b, n);
	}
	gsl_rng_free(r);
}

Test(tails, the_max_is_the_largest_boot_maximum)
{
	static const double av[] = { 1, 2 }, bv[] = { 3 };
	static const uint64_t ac[] = { 5, 5 }, bc[] = { 1 };
	struct vtb_tail_boot base = boot(av, ac, 2), x[] = { boot(av, ac, 2), boot(bv, bc, 1) };
	struct vtb_tail t;

	base.max = 5;
	x[0].max = 7;
	x[1].max = 12;
	cr_assert_eq(vtb_tail_compare(&base, 1, x, 2, 100, 0.05, 200, 3, &t), 0);
	cr_expect_float_eq(t.d, log(12.0 / 5), 1e-12);
	cr_expect_eq(t.B, 200);
	vtb_tail_release(&t);
}

/* ---- the bootstrap ---- */

Test(tails, the_interval_leaves_out_0_exactly_when_p_is_below_its_level)
{
	static const size_t Bs[] = { 1, 2, 7, 50, 101, 200, 999, 1000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t checked = 0, out = 0;

	gsl_rng_set(r, 11);
	for (int round = 0; round < 600; round++) {
		struct vtb_tail_boot b[6], x[6];
		size_t nb = 1 + gsl_rng_uniform_int(r, 6), nx = 1 + gsl_rng_uniform_int(r, 6);
		size_t B = Bs[round % 8];
		double pct = round % 5 == 0 ? 100 : round % 3 ? 99 : 99.9, alpha = 0.25;
		double as[] = { 0.25, 0.2, 0.1, 0.05, 0.013, 0.01, 1.0 / (double)B, 2.0 / (double)B,
				1e-9 };
		struct vtb_tail t;

		random_boots(r, b, nb, 1);
		/* same, somewhat or much slower: ties, small and large effects */
		random_boots(r, x, nx, round % 4 == 0 ? 1 : 1 + (double)(round % 3));
		if (round % 7 == 0) { /* identical sides: d* ties at 0 */
			boots_free(x, nx);
			memcpy(x, b, (nx = nb) * sizeof(*b));
		}
		cr_assert_eq(vtb_tail_compare(b, nb, x, nx, pct, alpha, B, (uint64_t)round, &t), 0);
		cr_assert(!isnan(t.d) && !isnan(t.p));
		for (size_t i = 0; i < sizeof(as) / sizeof(*as); i++) {
			double lo, hi, a = as[i] > alpha ? alpha : as[i];

			vtb_tail_interval(&t, a, &lo, &hi);
			cr_assert(lo <= hi, "round %d", round);
			cr_assert_eq(lo > 0 || hi < 0, t.p < a,
				     "round %d B %zu a %g: p %g, interval [%g, %g]", round, B, a,
				     t.p, lo, hi);
			checked++;
			out += t.p < a;
		}
		vtb_tail_release(&t);
		boots_free(b, nb);
		if (round % 7)
			boots_free(x, nx);
	}
	/* both outcomes were seen, many times */
	cr_expect_gt(out, checked / 10);
	cr_expect_lt(out, checked - checked / 10);
	gsl_rng_free(r);
}

/* @n boots of @values lognormal latencies in ns (median 5 us), the top
 * 1% 10 times slower in the first @slow. */
static void lognormal_boots(gsl_rng *r, struct vtb_tail_boot *b, size_t n, size_t slow,
			    size_t values)
{
	double *x = malloc(values * sizeof(*x));

	cr_assert(x);
	for (size_t i = 0; i < n; i++) {
		struct vtb_hist h;

		cr_assert_eq(vtb_hist_init(&h, 6, "ns"), 0);
		for (size_t j = 0; j < values; j++)
			x[j] = 5000 * exp(gsl_ran_gaussian(r, 0.4));
		if (i < slow) {
			size_t top = values / 100;

			/* the top 1%: the largest values, by a partial sort */
			for (size_t k = 0; k < top; k++)
				for (size_t j = k + 1; j < values; j++)
					if (x[j] > x[k]) {
						double s = x[j];

						x[j] = x[k];
						x[k] = s;
					}
			for (size_t k = 0; k < top; k++)
				x[k] *= 10;
		}
		for (size_t j = 0; j < values; j++)
			vtb_hist_add(&h, (uint64_t)x[j]);
		b[i] = boot_of(&h);
		vtb_hist_release(&h);
	}
	free(x);
}

Test(tails, four_boots_of_ten_with_a_slow_top_percent_move_the_p999)
{
	struct vtb_tail_boot b[10], x[10];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_tail t;
	double lo, hi;

	gsl_rng_set(r, 26);
	lognormal_boots(r, b, 10, 0, 20000);
	lognormal_boots(r, x, 10, 4, 20000);
	cr_assert_eq(vtb_tail_compare(b, 10, x, 10, 99.9, 0.05, 2000, 42, &t), 0);
	vtb_tail_interval(&t, 0.05, &lo, &hi);
	cr_expect_gt(lo, 0, "p %g interval [%g, %g] d %g", t.p, lo, hi, t.d);
	cr_expect_lt(t.p, 0.05);
	cr_expect_gt(t.d, log(2));
	vtb_tail_release(&t);
	/* and the max */
	cr_assert_eq(vtb_tail_compare(b, 10, x, 10, 100, 0.05, 2000, 42, &t), 0);
	vtb_tail_interval(&t, 0.05, &lo, &hi);
	cr_expect_gt(lo, 0, "p %g interval [%g, %g] d %g", t.p, lo, hi, t.d);
	vtb_tail_release(&t);
	boots_free(b, 10);
	boots_free(x, 10);
	gsl_rng_free(r);
}

Test(tails, no_slow_boot_on_either_side_gives_a_large_p)
{
	struct vtb_tail_boot b[10], x[10];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_tail t;
	double lo, hi;

	gsl_rng_set(r, 27);
	lognormal_boots(r, b, 10, 0, 20000);
	lognormal_boots(r, x, 10, 0, 20000);
	cr_assert_eq(vtb_tail_compare(b, 10, x, 10, 99.9, 0.05, 2000, 43, &t), 0);
	vtb_tail_interval(&t, 0.05, &lo, &hi);
	cr_expect_gt(t.p, 0.2, "p %g", t.p);
	cr_expect(lo <= 0 && hi >= 0, "[%g, %g]", lo, hi);
	cr_expect_lt(fabs(t.d), 0.1);
	vtb_tail_release(&t);
	boots_free(b, 10);
	boots_free(x, 10);
	gsl_rng_free(r);
}

Test(tails, identical_sides_hold_0_and_give_p_near_1)
{
	struct vtb_tail_boot b[8];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_tail t;
	double lo, hi;

	gsl_rng_set(r, 28);
	lognormal_boots(r, b, 8, 2, 5000);
	cr_assert_eq(vtb_tail_compare(b, 8, b, 8, 99, 0.05, 2000, 44, &t), 0);
	vtb_tail_interval(&t, 0.05, &lo, &hi);
	cr_expect_eq(t.d, 0);
	cr_expect_gt(t.p, 0.7, "p %g", t.p);
	cr_expect(lo < 0 && hi > 0, "[%g, %g]", lo, hi);
	vtb_tail_release(&t);
	boots_free(b, 8);
	gsl_rng_free(r);
}

Test(tails, the_same_seed_gives_the_same_figures)
{
	struct vtb_tail_boot b[5], x[5];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_tail t1, t2, t3;

	gsl_rng_set(r, 29);
	random_boots(r, b, 5, 1);
	random_boots(r, x, 5, 1.5);
	cr_assert_eq(vtb_tail_compare(b, 5, x, 5, 99, 0.1, 500, 1234, &t1), 0);
	cr_assert_eq(vtb_tail_compare(b, 5, x, 5, 99, 0.1, 500, 1234, &t2), 0);
	cr_assert_eq(vtb_tail_compare(b, 5, x, 5, 99, 0.1, 500, 1235, &t3), 0);
	cr_expect_eq(t1.d, t2.d);
	cr_expect_eq(t1.p, t2.p);
	cr_assert_eq(t1.k, 25);
	cr_expect_eq(memcmp(t1.lo, t2.lo, t1.k * sizeof(double)), 0);
	cr_expect_eq(memcmp(t1.hi, t2.hi, t1.k * sizeof(double)), 0);
	/* the replicates are kept sorted: smallest first, largest first */
	for (size_t i = 1; i < t1.k; i++)
		cr_expect(t1.lo[i - 1] <= t1.lo[i] && t1.hi[i - 1] >= t1.hi[i]);
	cr_expect_eq(t3.d, t1.d);
	vtb_tail_release(&t1);
	vtb_tail_release(&t2);
	vtb_tail_release(&t3);
	boots_free(b, 5);
	boots_free(x, 5);
	gsl_rng_free(r);
}

Test(tails, sides_without_values_give_no_estimate)
{
	static const double v[] = { 1, 2 }, nanv[] = { 1, NAN }, down[] = { 2, 1 };
	static const uint64_t c[] = { 3, 4 }, zero[] = { 0, 0 };
	struct vtb_tail_boot ok = boot(v, c, 2), empty = boot(NULL, NULL, 0),
			     none = boot(v, zero, 2), bad = boot(nanv, c, 2),
			     unsorted = boot(down, c, 2), sides[] = { ok, empty };
	struct vtb_tail t;
	double lo, hi;

	cr_assert_eq(vtb_tail_compare(&ok, 1, &ok, 0, 99, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d) && isnan(t.p) && !t.lo && !t.hi && !t.B);
	vtb_tail_interval(&t, 0.05, &lo, &hi);
	cr_expect(isnan(lo) && isnan(hi));
	vtb_tail_release(&t);
	cr_assert_eq(vtb_tail_compare(NULL, 0, &ok, 1, 100, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d));
	cr_assert_eq(vtb_tail_compare(&ok, 1, sides, 2, 99.9, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d), "a boot without values");
	cr_assert_eq(vtb_tail_compare(&none, 1, &ok, 1, 99.9, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d), "a boot of zero counts");
	cr_assert_eq(vtb_tail_compare(&ok, 1, &bad, 1, 99.9, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d), "a NaN value");
	cr_assert_eq(vtb_tail_compare(&ok, 1, &unsorted, 1, 99.9, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d), "values out of order");
	ok.max = NAN;
	cr_assert_eq(vtb_tail_compare(&ok, 1, &ok, 1, 100, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d), "a NaN max");
	cr_assert_eq(vtb_tail_compare(&ok, 1, &ok, 1, NAN, 0.05, 100, 1, &t), 0);
	cr_expect(isnan(t.d), "a NaN percentile");
	vtb_tail_release(&t);
	vtb_tail_release(NULL);
}

Test(tails, zero_latencies_give_infinite_or_no_change)
{
	static const double z[] = { 0 }, v[] = { 0, 5 };
	static const uint64_t c[] = { 100 }, c2[] = { 50, 50 };
	struct vtb_tail_boot zb = boot(z, c, 1), vb = boot(v, c2, 2);
	struct vtb_tail t;

	cr_assert_eq(vtb_tail_compare(&zb, 1, &zb, 1, 99, 0.05, 100, 1, &t), 0);
	cr_expect_eq(t.d, 0);
	cr_expect_eq(t.p, 1);
	vtb_tail_release(&t);
	cr_assert_eq(vtb_tail_compare(&zb, 1, &vb, 1, 99, 0.05, 100, 1, &t), 0);
	cr_expect(isinf(t.d) && t.d > 0);
	cr_expect_eq(t.p, 0);
	vtb_tail_release(&t);
}

/* ---- rows ---- */

Test(tails, tail_metrics_are_high_percentiles_and_maxima_by_name)
{
	static const struct {
		const char *name;
		bool tail;
		double pct;
	} cases[] = {
		{ "wake_p999", true, 99.9 },   { "timer_p99", true, 99 },
		{ "lat_p99_9", true, 99.9 },   { "lat_p99.9", true, 99.9 },
		{ "wake_p9999", true, 99.99 }, { "wake_p995", true, 99.5 },
		{ "wake_max", true, 100 },     { "c2c_max", true, 100 },
		{ "wake_p100", true, 100 },    { "wake_p50", false, 0 },
		{ "wake_p90", false, 0 },      { "wake_p98_9", false, 0 },
		{ "seconds", false, 0 },       { "p999", false, 0 },
		{ "_max", false, 0 },	       { "wake_p", false, 0 },
		{ "wake_p9", false, 0 },       { "wake_99", false, 0 },
		{ "wake_p999_9", false, 0 },   { "maximum", false, 0 },
		{ "wake_p99_", false, 0 },     { "", false, 0 },
		{ "lat_p5", false, 0 },	       { "x_p1", false, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		/* the name ends where a page no one may read begins: a read past
		 * it (as "lat_p5" once did) crashes the test; names come from
		 * guests */
		size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = strlen(cases[i].name) + 1;
		char *map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
		char *name;
		double pct = -1;

		cr_assert(map != MAP_FAILED);
		cr_assert_eq(mprotect(map + pg, pg, PROT_NONE), 0);
		name = memcpy(map + pg - len, cases[i].name, len);
		cr_expect_eq(vtb_metric_tail(name, &pct, NULL), cases[i].tail, "%s", cases[i].name);
		munmap(map, 2 * pg);
		if (cases[i].tail)
			cr_expect_float_eq(pct, cases[i].pct, 1e-9, "%s: %g", cases[i].name, pct);
	}
	cr_expect(vtb_metric_tail("wake_max", NULL, NULL));
}

/* A store with a baseline and a VM, cells wakeup and timer, three boots
 * each: "wake" histograms (the VM's twice as slow) and "timer_latency"
 * ones; the VM's boot 2 has no "wake", the baseline's boot 1 stores its
 * "timer_latency" with other bucket bits. */
static char dir[64], dbpath[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vtbtails.XXXXXX");
	cr_assert(mkdtemp(dir));
	snprintf(dbpath, sizeof(dbpath), "%s/t.db", dir);
}

static void teardown(void)
{
	const char *suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[160];

	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s%s", dbpath, suffix[i]);
		unlink(p);
	}
	rmdir(dir);
}

#define S(x) ((char *)(x))

/* The JSON texts of a histogram of @n values @v (and @bits). */
static void hist_texts(unsigned bits, uint64_t v, size_t n, char **params, char **buckets)
{
	struct vtb_hist h;
	json_t *p, *b;

	cr_assert_eq(vtb_hist_init(&h, bits, "ns"), 0);
	for (size_t i = 0; i < n; i++)
		vtb_hist_add(&h, v + i % 7);
	p = vtb_hist_params_json(&h);
	b = vtb_hist_buckets_json(&h);
	*params = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
	*buckets = json_dumps(b, JSON_COMPACT);
	json_decref(p);
	json_decref(b);
	vtb_hist_release(&h);
}

static int64_t make_store(struct vtb_store *st)
{
	static const char *keys[] = { "b000000000000000", "v000000000000000" };
	struct vtb_config configs[2];
	struct vtb_cell cells[2][2];
	struct vtb_matrix m = { .path = S("t.conf"), .text = S("[global]\nreps = 3\n"), .reps = 3 };
	struct vtb_host_info host = { .hostname = "box",
				      .cpu_vendor = "GenuineIntel",
				      .cpu_model_name = "cpu",
				      .topo_digest = "abcd",
				      .topo_summary = "1 package",
				      .kernel = "6.1.0" };
	struct vtb_campaign_info ci = { .uuid = "00000000-0000-4000-8000-000000000026",
					.matrix_path = "t.conf",
					.matrix_text = m.text,
					.version = "test",
					.cmdline = "vtbench run t.conf",
					.state_json = "{}" };
	int64_t id = 0;

	snprintf(m.digest, sizeof(m.digest), "%064d", 26);
	ci.matrix_digest = m.digest;
	memset(configs, 0, sizeof(configs));
	for (size_t c = 0; c < 2; c++) {
		configs[c] = (struct vtb_config){ .kind = c ? VTB_CONFIG_VM : VTB_CONFIG_BASELINE,
						  .label = S(c ? "vm vcpus=2" : "baseline cpus=2"),
						  .params_json = S("{}"),
						  .mems = S("0"),
						  .runnable = true,
						  .cells = cells[c],
						  .n_cells = 2 };
		snprintf(configs[c].key, sizeof(configs[c].key), "%s", keys[c]);
		cr_assert_eq(vtb_cpuset_parse("0-1", &configs[c].cpus), 0);
		for (size_t i = 0; i < 2; i++) {
			cells[c][i] = (struct vtb_cell){ .name = S(i ? "timer" : "wakeup"),
							 .workload = S(i ? "timer" : "wakeup"),
							 .params_json = S("{}"),
							 .resolved_json = S("{}") };
			snprintf(cells[c][i].key, sizeof(cells[c][i].key), "%c%015zu", keys[c][0],
				 i);
		}
	}
	m.configs = configs;
	m.n_configs = 2;
	cr_assert_eq(vtb_store_host(st, &host, &ci.host_id), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_begin(st, &ci, &m, &id), 0, "%s", vtb_errmsg());
	for (size_t c = 0; c < 2; c++) {
		for (int rep = 0; rep < 3; rep++) {
			struct vtb_rs_cell rc[2];
			struct vtb_rs_hist rh[2];
			char uuid[37], *wp, *wb, *tp, *tbk;
			struct vtb_boot_records r = { .cells = rc, .n_cells = 2, .hists = rh };
			struct vtb_boot_info bi = { .campaign_id = id,
						    .uuid = uuid,
						    .config_key = keys[c],
						    .rep = rep,
						    .status = "ok",
						    .started_ns = 1000,
						    .ended_ns = 2000,
						    .nonce = "00ff",
						    .cpus = "0-1",
						    .confinement = "affinity" };

			snprintf(uuid, sizeof(uuid), "00000000-0000-4000-8000-%012d",
				 (int)c * 10 + rep);
			hist_texts(6, c ? 2000 : 1000, 1000, &wp, &wb);
			hist_texts(c == 0 && rep == 1 ? 5 : 6, 300, 500, &tp, &tbk);
			for (size_t i = 0; i < 2; i++)
				rc[i] = (struct vtb_rs_cell){ .cell = cells[c][i].key,
							      .workload = cells[c][i].workload,
							      .status = S("ok"),
							      .seconds = 1,
							      .info_json = S("{}") };
			if (!(c == 1 && rep == 2))
				rh[r.n_hists++] = (struct vtb_rs_hist){ cells[c][0].key, S("wake"),
									S("ns"), wp, wb };
			rh[r.n_hists++] = (struct vtb_rs_hist){ cells[c][1].key, S("timer_latency"),
								S("ns"), tp, tbk };
			cr_assert_eq(vtb_store_boot(st, &bi, &r), 0, "%s", vtb_errmsg());
			free(wp);
			free(wb);
			free(tp);
			free(tbk);
		}
		vtb_cpuset_release(&configs[c].cpus);
	}
	return id;
}

/* The boots make_store() stored: the baseline's reps 0-2 are boot ids
 * 1-3, the VM's 4-6 (a series names its boots by id, as side-by-side VMs
 * share a rep). */
static int64_t *boot_ids(const char *config, const int *reps, size_t n)
{
	static int64_t pool[8][8];
	static size_t next;
	int64_t *ids = pool[next++ % 8];

	for (size_t i = 0; i < n && i < 8; i++)
		ids[i] = (config[0] == 'b' ? 0 : 3) + reps[i] + 1;
	return ids;
}

static struct series series(const char *config, const char *cell, const char *metric, int *reps,
			    size_t n)
{
	return (struct series){ .boot = boot_ids(config, reps, n),
				.config_key = S(config),
				.label = S(config[0] == 'b' ? "baseline cpus=2" : "vm vcpus=2"),
				.cell_key = S(cell),
				.cell_name = S(cell[1] == '0' ? "wakeup" : "timer"),
				.metric = S(metric),
				.rep = reps,
				.n = n };
}

Test(tails, a_row_finds_its_histogram_by_the_metric_stem, .init = setup, .fini = teardown)
{
	int all[] = { 2, 0, 1, 0 }, two[] = { 0, 1 }, ends[] = { 0, 2 };
	struct vtb_store *st = NULL;
	struct campaign c = { 0 };
	struct cm_tails *tl = NULL;
	struct series b, x;
	struct vtb_tail t, t2;
	char *why = NULL;
	/* the p99.9 bucket of 1000..1006 (rebuilt from its record: the
	 * bucket's middle, 1003) and of 2000..2006 (2007: the record keeps no
	 * maximum, so the bucket's middle is not clamped to 2006) */
	double expect = log(2007.0 / 1003.0);

	cr_assert_eq(vtb_store_open(dbpath, &st), 0, "%s", vtb_errmsg());
	c.st = st;
	c.id = make_store(st);
	cr_assert_eq(cm_tails_load(st, &c, &tl), 0, "%s", vtb_errmsg());

	/* wake_p999 -> wake */
	b = series("b000000000000000", "b000000000000000", "wake_p999", all, 4);
	x = series("v000000000000000", "v000000000000000", "wake_p999", two, 2);
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 1, "%s %s", why, vtb_errmsg());
	cr_expect_null(why);
	cr_expect_float_eq(t.d, expect, 1e-12);
	cr_expect_eq(t.B, CM_TAIL_B);
	cr_expect_eq(t.p, 0); /* every boot alike on each side */
	/* the same row again: the same figures (its seed is its identity) */
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t2, &why), 1);
	cr_expect_eq(t.p, t2.p);
	cr_expect_eq(memcmp(t.lo, t2.lo, t.k * sizeof(double)), 0);
	vtb_tail_release(&t);
	vtb_tail_release(&t2);
	/* wake_max as well */
	b.metric = x.metric = S("wake_max");
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 1);
	cr_expect_gt(t.d, 0);
	vtb_tail_release(&t);

	/* the VM's boot 2 has no wake histogram */
	x = series("v000000000000000", "v000000000000000", "wake_p99", all, 3);
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 0);
	cr_expect_str_eq(why, "no 'wake' histogram in boot id 6 of 'vm vcpus=2'");
	cr_expect(isnan(t.d));
	free(why);

	/* not a tail metric: no note */
	b.metric = x.metric = S("wake_p50");
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 0);
	cr_expect_null(why);
	/* no histogram of that stem */
	b.metric = x.metric = S("wakeup_p99");
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 0);
	cr_expect_str_eq(
		why,
		"no histogram named 'wakeup' or 'wakeup_*' in cell 'wakeup' of 'baseline cpus=2'");
	free(why);

	/* timer_p99 -> timer_latency, the only timer_* histogram of its cell */
	b = series("b000000000000000", "b000000000000001", "timer_p99", ends, 2);
	x = series("v000000000000000", "v000000000000001", "timer_p99", all, 4);
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 1, "%s", why);
	cr_expect_eq(t.d, 0);
	cr_expect_eq(t.p, 1);
	vtb_tail_release(&t);
	/* but the baseline's boot 1 has other bucket bits */
	b = series("b000000000000000", "b000000000000001", "timer_p99", all, 3);
	cr_assert_eq(cm_tail_row(tl, &b, tl, &x, 0.05, &t, &why), 0);
	cr_expect(why && strstr(why, "boot id 2 of 'baseline cpus=2' has other bucket parameters"),
		  "%s", why);
	free(why);

	cm_tails_free(tl);
	cm_tails_free(NULL);
	vtb_store_close(st);
}
