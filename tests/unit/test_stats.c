/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare: metric classes, summaries (harmonic mean for
 * rates), percentiles and BH on known data, the bootstrap's reproducibility
 * (same seed, any thread count, B = 0), verdict rules, and verdicts on
 * synthetic data over fixed seeds.  p-values against scipy are in
 * tests/cli/stats_scipy.sh.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/stats.h"
#include "../../workloads/lib/vtbutil.h"

#define EPS 1e-9

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

Test(stats, metric_class_from_unit_and_name)
{
	cr_assert_eq(vtb_metric_class("copy", "MB/s"), VTB_MC_THROUGHPUT);
	cr_assert_eq(vtb_metric_class("rps", "rps"), VTB_MC_THROUGHPUT);
	cr_assert_eq(vtb_metric_class("wakeups", "1/s"), VTB_MC_THROUGHPUT);
	cr_assert_eq(vtb_metric_class("seconds", "s"), VTB_MC_TIME);
	cr_assert_eq(vtb_metric_class("timer_avg", "us"), VTB_MC_LATENCY);
	cr_assert_eq(vtb_metric_class("c2c_min", "ns"), VTB_MC_LATENCY);
	cr_assert_eq(vtb_metric_class("startup", "ms"), VTB_MC_LATENCY);
	/* Names mark latency whatever the unit. */
	cr_assert_eq(vtb_metric_class("wakeup_p99", "s"), VTB_MC_LATENCY);
	cr_assert_eq(vtb_metric_class("wakeup_p999_local", ""), VTB_MC_LATENCY);
	cr_assert_eq(vtb_metric_class("x_max", "s"), VTB_MC_LATENCY);
	cr_assert_eq(vtb_metric_class("io_latency", "s"), VTB_MC_LATENCY);
	/* "_pipe" is not a percentile; counts are not rates. */
	cr_assert_eq(vtb_metric_class("msg_pipe", "s"), VTB_MC_TIME);
	cr_assert_eq(vtb_metric_class("c2c_levels", "count"), VTB_MC_TIME);
	cr_assert_eq(vtb_metric_class(NULL, NULL), VTB_MC_TIME);
	cr_assert_str_eq(vtb_metric_class_name(VTB_MC_THROUGHPUT), "throughput");
	cr_assert_str_eq(vtb_metric_class_name(VTB_MC_TIME), "time");
	cr_assert_str_eq(vtb_metric_class_name(VTB_MC_LATENCY), "latency");
}

Test(stats, verdict_names_and_defaults)
{
	struct vtb_test_opts o;

	cr_assert_str_eq(vtb_verdict_name(VTB_V_BETTER), "better");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_WORSE), "worse");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_SAME), "no significant change");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_NOISY), "too noisy");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_FEW), "too few boots");
	cr_assert_null(vtb_verdict_name(-1));
	cr_assert_null(vtb_verdict_name(5));
	vtb_test_opts_default(&o);
	cr_assert_eq(o.B, 2000);
	cr_assert_eq(o.seed, 1);
	cr_assert_float_eq(o.alpha, 0.05, EPS);
	cr_assert_float_eq(o.threshold_pct, 5, EPS);
	cr_assert_float_eq(o.cov_limit[VTB_MC_THROUGHPUT], 5, EPS);
	cr_assert_float_eq(o.cov_limit[VTB_MC_TIME], 5, EPS);
	cr_assert_float_eq(o.cov_limit[VTB_MC_LATENCY], 20, EPS);
	cr_assert_eq(o.min_n, 3);
	cr_assert_eq(o.threads, 0);
}

Test(stats, percentiles_are_linear_as_numpy)
{
	const double d[] = { 15, 20, 35, 40, 50 };

	cr_assert_float_eq(vtb_percentile(d, 5, 0), 15, EPS);
	cr_assert_float_eq(vtb_percentile(d, 5, 40), 29, EPS); /* 20 + 0.6 * 15 */
	cr_assert_float_eq(vtb_percentile(d, 5, 50), 35, EPS);
	cr_assert_float_eq(vtb_percentile(d, 5, 95), 48, EPS); /* 40 + 0.8 * 10 */
	cr_assert_float_eq(vtb_percentile(d, 5, 100), 50, EPS);
	cr_assert_float_eq(vtb_percentile(d, 1, 37), 15, EPS);
	cr_assert(isnan(vtb_percentile(d, 0, 50)));
	cr_assert(isnan(vtb_percentile(d, 5, -1)));
	cr_assert(isnan(vtb_percentile(d, 5, 100.5)));
	cr_assert(isnan(vtb_percentile(d, 5, NAN)));
}

Test(stats, percentile_by_selection_matches_the_sorted_one)
{
	static const double pcts[] = { 0, 2.5, 25, 50, 90, 97.5, 100 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double v[257], sorted[257];
	size_t n, i, k;

	gsl_rng_set(r, 5);
	for (n = 1; n <= 257; n += 16) {
		for (i = 0; i < n; i++) /* few distinct values: ties at the percentiles */
			v[i] = (double)gsl_rng_uniform_int(r, n / 8 + 2);
		memcpy(sorted, v, n * sizeof(*v));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
			double want = vtb_percentile(sorted, n, pcts[k]);

			cr_assert_float_eq(vtb_percentile_select(v, n, pcts[k]), want, EPS,
					   "n %zu pct %g", n, pcts[k]);
		}
		for (i = 0; i < n; i++)
			v[i] += gsl_rng_uniform(r); /* now distinct */
		memcpy(sorted, v, n * sizeof(*v));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++)
			cr_assert_float_eq(vtb_percentile_select(v, n, pcts[k]),
					   vtb_percentile(sorted, n, pcts[k]), EPS);
	}
	cr_assert(isnan(vtb_percentile_select(v, 0, 50)));
	cr_assert(isnan(vtb_percentile_select(v, 3, 101)));
	gsl_rng_free(r);
}

Test(stats, summary_of_rates_uses_the_harmonic_mean)
{
	const double v[] = { 50, 100, 200, 100 }; /* hmean 4 / (0.02 + 0.01 + 0.005 + 0.01) */
	struct vtb_summary s, t;

	cr_assert_eq(vtb_summarise(v, 4, VTB_MC_THROUGHPUT, &s), 0);
	cr_assert_eq(s.n, 4);
	cr_assert_float_eq(s.mean, 4 / 0.045, EPS);
	cr_assert_float_eq(s.amean, 112.5, EPS);
	cr_assert_float_eq(s.median, 100, EPS);
	cr_assert_float_eq(s.stddev, sqrt((62.5 * 62.5 + 12.5 * 12.5 * 2 + 87.5 * 87.5) / 3), EPS);
	cr_assert_float_eq(s.cov, s.stddev / 112.5, EPS);
	cr_assert_float_eq(s.min, 50, EPS);
	cr_assert_float_eq(s.max, 200, EPS);
	cr_assert_float_eq(s.p5, 57.5, EPS);  /* idx 0.15: 50 + 0.15 * 50 */
	cr_assert_float_eq(s.p25, 87.5, EPS); /* idx 0.75 */
	cr_assert_float_eq(s.p75, 125, EPS);  /* idx 2.25: 100 + 0.25 * 100 */
	cr_assert_float_eq(s.p95, 185, EPS);  /* idx 2.85 */
	cr_assert_float_eq(v[0], 50, EPS);    /* input left alone */
	cr_assert_eq(vtb_summarise(v, 4, VTB_MC_TIME, &t), 0);
	cr_assert_float_eq(t.mean, 112.5, EPS);
	cr_assert_eq(vtb_summarise(v, 4, VTB_MC_LATENCY, &t), 0);
	cr_assert_float_eq(t.mean, 112.5, EPS);
}

Test(stats, summary_edges)
{
	const double one[] = { 7 }, zero_rate[] = { 0, 10 }, neg_rate[] = { -1, 10 };
	const double zeros[] = { -1, 1 }, bad[] = { 1, NAN };
	struct vtb_summary s;

	cr_assert_eq(vtb_summarise(one, 1, VTB_MC_TIME, &s), 0);
	cr_assert_eq(s.n, 1);
	cr_assert_float_eq(s.stddev, 0, EPS);
	cr_assert_float_eq(s.cov, 0, EPS);
	cr_assert_float_eq(s.p95, 7, EPS);
	cr_assert_eq(vtb_summarise(one, 0, VTB_MC_TIME, &s), 0);
	cr_assert_eq(s.n, 0);
	cr_assert(isnan(s.mean) && isnan(s.median) && isnan(s.p5) && isnan(s.cov));
	cr_assert_eq(vtb_summarise(zero_rate, 2, VTB_MC_THROUGHPUT, &s), 0);
	cr_assert_float_eq(s.mean, 0, EPS);
	cr_assert_eq(vtb_summarise(neg_rate, 2, VTB_MC_THROUGHPUT, &s), 0);
	cr_assert(isnan(s.mean));
	cr_assert_eq(vtb_summarise(zeros, 2, VTB_MC_TIME, &s), 0);
	cr_assert(isnan(s.cov)); /* mean 0, spread: no relative spread */
	cr_assert_eq(vtb_summarise(bad, 2, VTB_MC_TIME, &s), -1);
	cr_assert(strstr(vtb_errmsg(), "non-finite"));
}

Test(stats, bh_on_known_p_vectors)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005, 0.2 };
	const double want[] = { 0.025, 0.05, 0.05, 0.025, 0.2 };
	const double p2[] = { 0.02, NAN, 0.01, 0.5, NAN, 0.03 };
	const double want2[] = { 0.04, NAN, 0.04, 0.5, NAN, 0.04 };
	double q[6], inplace[] = { 0.9, 0.8, 0.001 };
	size_t i;

	cr_assert_eq(vtb_bh(p, 5, q), 0);
	for (i = 0; i < 5; i++)
		cr_assert_float_eq(q[i], want[i], EPS, "q[%zu] = %g", i, q[i]);
	cr_assert_eq(vtb_bh(p2, 6, q), 0);
	for (i = 0; i < 6; i++) {
		if (isnan(want2[i]))
			cr_assert(isnan(q[i]), "q[%zu] = %g", i, q[i]);
		else
			cr_assert_float_eq(q[i], want2[i], EPS, "q[%zu] = %g", i, q[i]);
	}
	/* q may be p; capped at 1 never needed here, the running minimum is. */
	cr_assert_eq(vtb_bh(inplace, 3, inplace), 0);
	cr_assert_float_eq(inplace[0], 0.9, EPS);
	cr_assert_float_eq(inplace[1], 0.9, EPS);
	cr_assert_float_eq(inplace[2], 0.003, EPS);
	cr_assert_eq(vtb_bh(p, 0, q), 0);
}

static void gen(gsl_rng *r, double *v, size_t n, double mean, double cov)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = mean + gsl_ran_gaussian(r, mean * cov);
}

static struct vtb_comparison cmp(const double *b, size_t nb, const double *x, size_t nx,
				 enum vtb_metric_class k, unsigned B, uint64_t seed, int threads,
				 uint64_t row_seed)
{
	struct vtb_test_opts o;
	struct vtb_comparison c;

	vtb_test_opts_default(&o);
	o.B = B;
	o.seed = seed;
	o.threads = threads;
	cr_assert_eq(vtb_compare_samples(b, nb, x, nx, k, &o, row_seed, &c), 0, "%s", vtb_errmsg());
	return c;
}

Test(stats, bootstrap_is_reproducible_and_independent_of_threads)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double b[10], x[12];
	enum vtb_metric_class k;

	gsl_rng_set(r, 42);
	gen(r, b, 10, 1000, 0.03);
	gen(r, x, 12, 950, 0.03);
	for (k = VTB_MC_THROUGHPUT; k <= VTB_MC_LATENCY; k++) {
		/* 2000: 8 blocks; 1000 and 300 end in a partial block. */
		static const unsigned Bs[] = { 2000, 1000, 300 };
		size_t i;

		for (i = 0; i < 3; i++) {
			struct vtb_comparison c1 = cmp(b, 10, x, 12, k, Bs[i], 1, 1, 7);
			struct vtb_comparison c1b = cmp(b, 10, x, 12, k, Bs[i], 1, 1, 7);
			struct vtb_comparison c2 = cmp(b, 10, x, 12, k, Bs[i], 1, 2, 7);
			struct vtb_comparison c3 = cmp(b, 10, x, 12, k, Bs[i], 1, 3, 7);
			struct vtb_comparison c0 = cmp(b, 10, x, 12, k, Bs[i], 1, 0, 7);

			cr_assert(isfinite(c1.ci_low_pct) && isfinite(c1.ci_high_pct));
			/* Bit for bit: the same replicates, whoever draws them. */
			cr_assert(c1.ci_low_pct == c1b.ci_low_pct &&
				  c1.ci_high_pct == c1b.ci_high_pct);
			cr_assert(c1.ci_low_pct == c2.ci_low_pct &&
					  c1.ci_high_pct == c2.ci_high_pct,
				  "class %d B %u: 1 thread [%.17g, %.17g], 2 threads [%.17g, %.17g]",
				  k, Bs[i], c1.ci_low_pct, c1.ci_high_pct, c2.ci_low_pct,
				  c2.ci_high_pct);
			cr_assert(c1.ci_low_pct == c3.ci_low_pct &&
				  c1.ci_high_pct == c3.ci_high_pct);
			cr_assert(c1.ci_low_pct == c0.ci_low_pct &&
				  c1.ci_high_pct == c0.ci_high_pct);
			cr_assert(c1.ci_low_pct < c1.change_pct && c1.change_pct < c1.ci_high_pct,
				  "[%g, %g] around %g", c1.ci_low_pct, c1.ci_high_pct,
				  c1.change_pct);
		}
	}
	gsl_rng_free(r);
}

Test(stats, bootstrap_seeds_change_the_ci_and_b0_gives_none)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_comparison a, s, w, z;
	double b[10], x[10];

	gsl_rng_set(r, 3);
	gen(r, b, 10, 10, 0.05);
	gen(r, x, 10, 10.5, 0.05);
	a = cmp(b, 10, x, 10, VTB_MC_TIME, 2000, 1, 1, 100);
	s = cmp(b, 10, x, 10, VTB_MC_TIME, 2000, 2, 1, 100); /* campaign seed */
	w = cmp(b, 10, x, 10, VTB_MC_TIME, 2000, 1, 1, 101); /* row seed */
	z = cmp(b, 10, x, 10, VTB_MC_TIME, 0, 1, 1, 100);
	cr_assert(a.ci_low_pct != s.ci_low_pct || a.ci_high_pct != s.ci_high_pct);
	cr_assert(a.ci_low_pct != w.ci_low_pct || a.ci_high_pct != w.ci_high_pct);
	/* A different stream, the same distribution: CIs close. */
	cr_assert(fabs(a.ci_low_pct - s.ci_low_pct) < 1.5, "%g vs %g", a.ci_low_pct, s.ci_low_pct);
	cr_assert(isnan(z.ci_low_pct) && isnan(z.ci_high_pct));
	/* --no-ci leaves the rest alone. */
	cr_assert(z.change_pct == a.change_pct && z.p == a.p);
	cr_assert(isnan(a.q) && a.verdict == VTB_V_SAME);
	cr_assert_neq(vtb_stats_row_seed("membw\x1f"
					 "copy"),
		      vtb_stats_row_seed("membw\x1f"
					 "scale"));
	cr_assert_eq(vtb_stats_row_seed(""), 0xcbf29ce484222325ULL);
	gsl_rng_free(r);
}

Test(stats, compare_rows_matches_row_by_row_on_any_thread_count)
{
	enum { NR = 23 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	static double v[NR][2][10];
	struct vtb_row_job jobs[NR];
	struct vtb_test_opts o;
	int threads;
	size_t i;

	gsl_rng_set(r, 11);
	vtb_test_opts_default(&o);
	o.B = 600;
	for (threads = 1; threads <= 4; threads++) {
		for (i = 0; i < NR; i++) {
			gsl_rng_set(r, i + 1);
			gen(r, v[i][0], 10, 100, 0.03);
			gen(r, v[i][1], 10, 100 + (double)i, 0.03);
			jobs[i] = (struct vtb_row_job){ .base = v[i][0],
							.nb = 10,
							.x = v[i][1],
							.nx = 10 - i % 3,
							.k = (enum vtb_metric_class)(i % 3),
							.row_seed = 1000 + i };
		}
		o.threads = threads;
		cr_assert_eq(vtb_compare_rows(jobs, NR, &o), 0, "%s", vtb_errmsg());
		for (i = 0; i < NR; i++) {
			struct vtb_comparison want = cmp(v[i][0], 10, v[i][1], 10 - i % 3,
							 jobs[i].k, 600, 1, 1, 1000 + i);

			cr_assert(jobs[i].out.ci_low_pct == want.ci_low_pct &&
					  jobs[i].out.ci_high_pct == want.ci_high_pct &&
					  jobs[i].out.p == want.p &&
					  jobs[i].out.change_pct == want.change_pct,
				  "row %zu on %d threads", i, threads);
		}
	}
	v[7][1][3] = NAN;
	cr_assert_eq(vtb_compare_rows(jobs, NR, &o), -1);
	cr_assert(strstr(vtb_errmsg(), "non-finite"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_compare_rows(jobs, 0, &o), 0);
	gsl_rng_free(r);
}

/*
 * A baseline that does not vary and a side of two values, twice each: a
 * resample of 4 is all-low or all-high in 1/16 of replicates each (over the
 * 2.5% of either tail), so the percentiles are known exactly.
 */
Test(stats, bootstrap_ci_on_a_known_ratio_distribution)
{
	const double flat[] = { 100, 100, 100, 100 };
	const double two[] = { 90, 110, 90, 110 };
	const double rates[] = { 50, 100, 50, 100 };
	struct vtb_comparison c;

	c = cmp(flat, 4, two, 4, VTB_MC_TIME, 2000, 9, 2, 1);
	cr_assert_float_eq(c.change_pct, 0, EPS);
	cr_assert_float_eq(c.ci_low_pct, -10, EPS, "%g", c.ci_low_pct);
	cr_assert_float_eq(c.ci_high_pct, 10, EPS, "%g", c.ci_high_pct);
	/* Rates: the ratio of harmonic means, hmean(50, 100, 50, 100) = 66.7. */
	c = cmp(flat, 4, rates, 4, VTB_MC_THROUGHPUT, 2000, 9, 2, 1);
	cr_assert_float_eq(c.change_pct, (200.0 / 3 / 100 - 1) * 100, EPS);
	cr_assert_float_eq(c.ci_low_pct, -50, EPS, "%g", c.ci_low_pct);
	cr_assert_float_eq(c.ci_high_pct, 0, EPS, "%g", c.ci_high_pct);
}

Test(stats, compare_samples_edges)
{
	const double b[] = { 10, 11, 12, 10.5 }, x[] = { 9, 9.5, 9.2, 9.1 };
	const double zero[] = { 10, 0, 12, 11 }, bad[] = { 1, INFINITY, 2 };
	struct vtb_test_opts o;
	struct vtb_comparison c;

	c = cmp(b, 4, x, 4, VTB_MC_THROUGHPUT, 100, 1, 1, 0);
	cr_assert_str_eq(c.test, "welch");
	cr_assert(c.p < 0.05);
	c = cmp(b, 4, x, 4, VTB_MC_LATENCY, 100, 1, 1, 0);
	cr_assert_str_eq(c.test, "mann-whitney");
	cr_assert_float_eq(c.p, 2.0 / 70, EPS); /* exact, separated 4 v 4: 2 / C(8,4) */
	/* Too few boots: the change, but no test and no CI. */
	c = cmp(b, 2, x, 4, VTB_MC_TIME, 100, 1, 1, 0);
	cr_assert(isfinite(c.change_pct) && isnan(c.p) && isnan(c.ci_low_pct));
	/* A rate of 0 has no inverse: hmean 0, not tested. */
	c = cmp(b, 4, zero, 4, VTB_MC_THROUGHPUT, 100, 1, 1, 0);
	cr_assert_float_eq(c.change_pct, -100, EPS);
	cr_assert(isnan(c.p) && isnan(c.ci_low_pct));
	c = cmp(zero, 4, b, 4, VTB_MC_THROUGHPUT, 100, 1, 1, 0);
	cr_assert(isnan(c.change_pct) && isnan(c.p));
	vtb_test_opts_default(&o);
	cr_assert_eq(vtb_compare_samples(b, 4, bad, 3, VTB_MC_TIME, &o, 0, &c), -1);
	cr_assert(strstr(vtb_errmsg(), "non-finite"));
}

Test(stats, verdict_rules_and_their_order)
{
	struct vtb_test_opts o;
	struct vtb_summary sb = { .n = 10, .cov = 0.01 }, sx = { .n = 10, .cov = 0.01 };
	struct vtb_comparison c = { .change_pct = -10, .q = 0.001 };

	vtb_test_opts_default(&o);
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_THROUGHPUT, true, &o), VTB_V_WORSE);
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_TIME, false, &o), VTB_V_BETTER);
	c.change_pct = 10;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_THROUGHPUT, true, &o), VTB_V_BETTER);
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_TIME, false, &o), VTB_V_WORSE);
	/* Significant but within the threshold; beyond it but not significant. */
	c.change_pct = 4.9;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_TIME, false, &o), VTB_V_SAME);
	c.change_pct = 10;
	c.q = 0.05;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_TIME, false, &o), VTB_V_SAME);
	c.q = NAN;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_TIME, false, &o), VTB_V_SAME);
	c.q = 0.001;
	/* Noisy by class: 6% is too noisy for time, fine for latency. */
	sx.cov = 0.06;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_TIME, false, &o), VTB_V_NOISY);
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_LATENCY, false, &o), VTB_V_WORSE);
	sx.cov = 0.21;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_LATENCY, false, &o), VTB_V_NOISY);
	sx.cov = NAN;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_LATENCY, false, &o), VTB_V_NOISY);
	/* Too few boots before too noisy. */
	sb.n = 2;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_LATENCY, false, &o), VTB_V_FEW);
	sb.n = 3;
	sx.cov = 0.01;
	cr_assert_eq(vtb_verdict(&c, &sb, &sx, VTB_MC_LATENCY, false, &o), VTB_V_WORSE);
}

/*
 * The acceptance test: per fixed seed, a table of six rows at
 * n = 10 boots and CoV 2% -- a 10% slowdown of a rate (higher is better), a
 * time and a latency (lower is better), and the same three with identical
 * distributions -- through compare, BH over the table and the verdict.
 */
Test(stats, verdicts_on_synthetic_slowdowns_over_100_seeds)
{
	static const struct {
		const char *what;
		enum vtb_metric_class k;
		bool higher_better;
		double base, x;
	} rows[] = {
		{ "throughput -10%", VTB_MC_THROUGHPUT, true, 1000, 900 },
		{ "time +10%", VTB_MC_TIME, false, 10, 11 },
		{ "latency +10%", VTB_MC_LATENCY, false, 50, 55 },
		{ "throughput same", VTB_MC_THROUGHPUT, true, 1000, 1000 },
		{ "time same", VTB_MC_TIME, false, 10, 10 },
		{ "latency same", VTB_MC_LATENCY, false, 50, 50 },
	};
	enum { NR = sizeof(rows) / sizeof(rows[0]), N = 10 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned worse[NR] = { 0 }, seed;
	struct vtb_test_opts o;
	size_t i;

	vtb_test_opts_default(&o);
	for (seed = 1; seed <= 100; seed++) {
		struct vtb_comparison c[NR];
		struct vtb_summary sb[NR], sx[NR];
		double p[NR], q[NR];

		gsl_rng_set(r, seed);
		o.seed = seed;
		for (i = 0; i < NR; i++) {
			double b[N], x[N];

			gen(r, b, N, rows[i].base, 0.02);
			gen(r, x, N, rows[i].x, 0.02);
			cr_assert_eq(vtb_compare_samples(b, N, x, N, rows[i].k, &o, i, &c[i]), 0);
			cr_assert_eq(vtb_summarise(b, N, rows[i].k, &sb[i]), 0);
			cr_assert_eq(vtb_summarise(x, N, rows[i].k, &sx[i]), 0);
			p[i] = c[i].p;
		}
		cr_assert_eq(vtb_bh(p, NR, q), 0);
		for (i = 0; i < NR; i++) {
			c[i].q = q[i];
			c[i].verdict = vtb_verdict(&c[i], &sb[i], &sx[i], rows[i].k,
						   rows[i].higher_better, &o);
			worse[i] += c[i].verdict == VTB_V_WORSE;
		}
	}
	for (i = 0; i < NR; i++)
		fprintf(stderr, "stats: %-16s worse in %3u of 100 seeds\n", rows[i].what, worse[i]);
	for (i = 0; i < NR; i++) {
		if (rows[i].base != rows[i].x)
			cr_expect_geq(worse[i], 95, "%s: worse in %u of 100", rows[i].what,
				      worse[i]);
		else
			cr_expect_leq(worse[i], 5, "%s: worse in %u of 100", rows[i].what,
				      worse[i]);
	}
	gsl_rng_free(r);
}

/* Calibration: on identical distributions each test rejects at 5% about
 * 5% of the time (1000 fixed seeds, n = 10; Mann-Whitney with continuity
 * correction a little less). */
Test(stats, p_values_are_calibrated_under_the_null)
{
	static const enum vtb_metric_class ks[] = { VTB_MC_THROUGHPUT, VTB_MC_TIME,
						    VTB_MC_LATENCY };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t i;

	for (i = 0; i < 3; i++) {
		unsigned seed, rejected = 0;

		for (seed = 1; seed <= 1000; seed++) {
			double b[10], x[10];
			struct vtb_comparison c;

			gsl_rng_set(r, seed);
			gen(r, b, 10, 100, 0.02);
			gen(r, x, 10, 100, 0.02);
			c = cmp(b, 10, x, 10, ks[i], 0, 1, 1, 0);
			rejected += c.p < 0.05;
		}
		fprintf(stderr, "stats: %-10s p < 0.05 in %3u of 1000 null seeds\n",
			vtb_metric_class_name(ks[i]), rejected);
		cr_expect(rejected >= 20 && rejected <= 80, "%s: %u of 1000",
			  vtb_metric_class_name(ks[i]), rejected);
	}
	gsl_rng_free(r);
}

/* GSL's default error handler aborts the process: every entry point of
 * stats.c turns it off, so an error comes back as NaN (issue 16). */
Test(stats, no_gsl_error_aborts)
{
	static const double a[] = { 1, 2, 3, 4 }, b[] = { 2, 3, 4, 6 };
	gsl_error_handler_t *h;

	gsl_set_error_handler(NULL); /* the default: abort() */
	(void)vtb_welch_p(a, 4, b, 4);
	h = gsl_set_error_handler(NULL);
	cr_assert_not_null(h, "vtb_welch_p() left GSL's aborting handler on");
	gsl_set_error_handler(NULL);
	(void)vtb_mwu_p(a, 4, b, 4);
	h = gsl_set_error_handler(h);
	cr_assert_not_null(h, "vtb_mwu_p() left GSL's aborting handler on");
	/* with it off, an error is a value */
	cr_expect(isnan(gsl_cdf_beta_Pinv(1.5, 1, 1)));
}
