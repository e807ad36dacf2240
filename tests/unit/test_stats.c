/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare: metric classes, summaries (harmonic mean for
 * rates, geometric for latencies), percentiles and BH on known data, the
 * one statistic of a row on known values (its direction, CI and test
 * agree), row-level errors, the verdict rules, the boots that would decide
 * a row, CI coverage by simulation, and verdicts on synthetic data over
 * fixed seeds.  p-values against scipy are in tests/cli/stats_scipy.sh.
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

#include "../../harness/compare/stats.h"
#include "../../common/vtbutil.h"

#define EPS 1e-9

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

	cr_assert_str_eq(vtb_verdict_name(VTB_V_WORSE), "worse");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_BETTER), "better");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_SAME), "same");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_INCONCLUSIVE), "inconclusive");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_FEW), "few");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_MISSING), "missing");
	cr_assert_str_eq(vtb_verdict_name(VTB_V_ERROR), "error");
	cr_assert_null(vtb_verdict_name(-1));
	cr_assert_null(vtb_verdict_name(VTB_V_COUNT));
	cr_assert_str_eq(vtb_metric_class_effect(VTB_MC_THROUGHPUT), "ratio of harmonic means");
	cr_assert_str_eq(vtb_metric_class_effect(VTB_MC_TIME), "ratio of means");
	cr_assert_str_eq(vtb_metric_class_effect(VTB_MC_LATENCY), "ratio of geometric means");
	vtb_test_opts_default(&o);
	cr_assert_float_eq(o.alpha, 0.05, EPS);
	cr_assert_float_eq(o.threshold_pct, 5, EPS);
	cr_assert_float_eq(o.cov_limit[VTB_MC_THROUGHPUT], 5, EPS);
	cr_assert_float_eq(o.cov_limit[VTB_MC_TIME], 5, EPS);
	cr_assert_float_eq(o.cov_limit[VTB_MC_LATENCY], 20, EPS);
	cr_assert_eq(o.min_n, 2);
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

Test(stats, summary_means_by_class)
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
	/* latency: the geometric mean, (50 * 100 * 200 * 100)^(1/4) = 100 */
	cr_assert_eq(vtb_summarise(v, 4, VTB_MC_LATENCY, &t), 0);
	cr_assert_float_eq(t.mean, 100, EPS);
}

Test(stats, summary_edges)
{
	const double one[] = { 7 }, zero_rate[] = { 0, 10 }, neg_rate[] = { -1, 10 };
	const double zeros[] = { -1, 1 }, bad[] = { 1, NAN };
	struct vtb_summary s;

	cr_assert_eq(vtb_summarise(one, 1, VTB_MC_TIME, &s), 0);
	cr_assert_eq(s.n, 1);
	/* one boot has no spread: undefined (printed '-'), not 0% */
	cr_assert(isnan(s.stddev) && isnan(s.cov));
	cr_assert_float_eq(s.p95, 7, EPS);
	cr_assert_eq(vtb_summarise(one, 0, VTB_MC_TIME, &s), 0);
	cr_assert_eq(s.n, 0);
	cr_assert(isnan(s.mean) && isnan(s.median) && isnan(s.p5) && isnan(s.cov));
	cr_assert_eq(vtb_summarise(zero_rate, 2, VTB_MC_THROUGHPUT, &s), 0);
	cr_assert_float_eq(s.mean, 0, EPS);
	cr_assert_eq(vtb_summarise(neg_rate, 2, VTB_MC_THROUGHPUT, &s), 0);
	cr_assert(isnan(s.mean));
	cr_assert_eq(vtb_summarise(zero_rate, 2, VTB_MC_LATENCY, &s), 0);
	cr_assert(isnan(s.mean)); /* no geometric mean of a 0 */
	cr_assert_eq(vtb_summarise(zeros, 2, VTB_MC_TIME, &s), 0);
	cr_assert(isnan(s.cov)); /* mean 0, spread: no relative spread */
	/* a non-finite value is the row's error, not the whole compare's */
	cr_assert_eq(vtb_summarise(bad, 2, VTB_MC_TIME, &s), 0);
	cr_assert_eq(s.n, 2);
	cr_assert(isnan(s.mean) && isnan(s.min));
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
	cr_assert_eq(vtb_bh(inplace, 3, inplace), 0);
	cr_assert_float_eq(inplace[0], 0.9, EPS);
	cr_assert_float_eq(inplace[1], 0.9, EPS);
	cr_assert_float_eq(inplace[2], 0.003, EPS);
	cr_assert_eq(vtb_bh(p, 0, q), 0);
}

static struct vtb_comparison cmp(const double *b, size_t nb, const double *x, size_t nx,
				 enum vtb_metric_class k)
{
	struct vtb_test_opts o;
	struct vtb_comparison c;

	vtb_test_opts_default(&o);
	vtb_compare_samples(b, nb, x, nx, k, &o, &c);
	return c;
}

/*
 * Known values (scipy 1.10): time {9, 11} -> {18, 22}: r = 2, sd of each
 * side 0.1414 relative, se = 0.1414, df = 2, t = 4.9013, p = 0.039196,
 * t_{0.975, 2} = 4.3027: CI exp(log 2 -+ 4.3027 * 0.1414) - 1 =
 * +8.835% .. +267.53%.  Latency: Welch's t on the logs,
 * scipy.stats.ttest_ind(log x, log b, equal_var=False): t 4.81369, p
 * 0.00416590.
 */
Test(stats, one_statistic_per_row_on_known_values)
{
	const double b[] = { 9, 11 }, x[] = { 18, 22 };
	const double lb[] = { 50, 52, 48, 51 }, lx[] = { 55, 57, 54, 56 };
	const double rb[] = { 100, 100 }, rx[] = { 50, 50 };
	struct vtb_comparison c;

	c = cmp(b, 2, x, 2, VTB_MC_TIME);
	cr_assert_str_eq(c.test, "log-ratio-t");
	cr_assert_float_eq(c.change_pct, 100, 1e-9);
	cr_assert_float_eq(c.df, 2, 1e-9);
	cr_assert_float_eq(c.t, 4.901290717342736, 1e-9);
	cr_assert_float_eq(c.p, 0.03919623302166434, 1e-9);
	cr_assert_float_eq(c.ci_low_pct, 8.83471792170607, 1e-7);
	cr_assert_float_eq(c.ci_high_pct, 267.52978060526004, 1e-7);
	c = cmp(lb, 4, lx, 4, VTB_MC_LATENCY);
	cr_assert_str_eq(c.test, "welch-log");
	cr_assert_float_eq(c.t, 4.8136914301707305, 1e-9);
	cr_assert_float_eq(c.p, 0.00416589967562765, 1e-9);
	/* rates: the ratio of harmonic means, constant sides */
	c = cmp(rb, 2, rx, 2, VTB_MC_THROUGHPUT);
	cr_assert_float_eq(c.change_pct, -50, 1e-9);
	cr_assert_float_eq(c.p, 0, 1e-12);
	cr_assert_float_eq(c.ci_low_pct, -50, 1e-9);
	cr_assert_float_eq(c.ci_high_pct, -50, 1e-9);
}

/*
 * The disagreement: a latency row read better from the arithmetic
 * mean while its rank test said worse.  Now the change, its CI and t are
 * one statistic: they point the same way, always.
 */
Test(stats, direction_ci_and_test_agree)
{
	const double b[] = { 100, 100, 100, 100, 100, 100, 100, 100, 135, 135 };
	const double x[] = { 101.0, 101.1, 101.2, 101.3, 101.4, 101.5, 101.6, 101.7, 101.8, 101.9 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_comparison c;

	for (int k = VTB_MC_THROUGHPUT; k <= VTB_MC_LATENCY; k++) {
		c = cmp(b, 10, x, 10, (enum vtb_metric_class)k);
		cr_assert((c.change_pct < 0) == (c.t < 0), "class %d: change %g, t %g", k,
			  c.change_pct, c.t);
		cr_assert(c.ci_low_pct <= c.change_pct && c.change_pct <= c.ci_high_pct);
	}
	gsl_rng_set(r, 99);
	for (int i = 0; i < 2000; i++) {
		double vb[6], vx[6];

		for (int j = 0; j < 6; j++) {
			vb[j] = 100 * exp(gsl_ran_gaussian(r, 0.2));
			vx[j] = 100 * exp(gsl_ran_gaussian(r, 0.2));
		}
		for (int k = VTB_MC_THROUGHPUT; k <= VTB_MC_LATENCY; k++) {
			c = cmp(vb, 6, vx, 6, (enum vtb_metric_class)k);
			cr_assert((c.change_pct < 0) == (c.t < 0));
			/* significant at alpha exactly when the CI leaves out 0 */
			cr_assert((c.p < 0.05) == (c.ci_low_pct > 0 || c.ci_high_pct < 0),
				  "p %g, ci %g..%g", c.p, c.ci_low_pct, c.ci_high_pct);
		}
	}
	gsl_rng_free(r);
}

Test(stats, rows_the_statistic_cannot_take_are_errors_not_failures)
{
	const double b[] = { 10, 11, 12, 10.5 }, zero[] = { 10, 0, 12, 11 };
	const double inf[] = { 1, INFINITY, 2 }, zeros[] = { 0, 0, 0 }, five[] = { 5, 6, 5 };
	const double cz[] = { 0, 0, 0 };
	struct vtb_comparison c;
	struct vtb_test_opts o;

	vtb_test_opts_default(&o);
	/* a rate of 0: no inverse; the side and the value are named */
	c = cmp(b, 4, zero, 4, VTB_MC_THROUGHPUT);
	cr_assert_eq(c.error, VTB_RE_NONPOSITIVE);
	cr_assert_eq(c.error_side, 1);
	cr_assert_eq(c.error_index, 1);
	cr_assert_eq(vtb_verdict(&c, true, &o, o.alpha), VTB_V_ERROR);
	c = cmp(zero, 4, b, 4, VTB_MC_LATENCY);
	cr_assert_eq(c.error, VTB_RE_NONPOSITIVE);
	cr_assert_eq(c.error_side, 0);
	/* infinity: an error, not an abort */
	c = cmp(b, 4, inf, 3, VTB_MC_TIME);
	cr_assert_eq(c.error, VTB_RE_NONFINITE);
	cr_assert_eq(c.error_index, 1);
	/* a count going from 0 to 5: no relative change */
	c = cmp(zeros, 3, five, 3, VTB_MC_TIME);
	cr_assert_eq(c.error, VTB_RE_ZERO_MEAN);
	cr_assert_eq(c.error_side, 0);
	/* a count that stays 0: nothing changed, same */
	c = cmp(zeros, 3, cz, 3, VTB_MC_TIME);
	cr_assert_eq(c.error, VTB_RE_NONE);
	cr_assert_float_eq(c.change_pct, 0, EPS);
	cr_assert_float_eq(c.p, 1, EPS);
	c.q = 1;
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_SAME);
	/* one boot a side: the change, no test */
	c = cmp(b, 1, five, 3, VTB_MC_TIME);
	cr_assert(isfinite(c.change_pct) && isnan(c.p) && isnan(c.ci_low_pct));
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_FEW);
	/* two a side is enough for the t test */
	c = cmp(b, 2, five, 2, VTB_MC_TIME);
	cr_assert(isfinite(c.p));
}

/* A comparison with the given estimate, interval and q. */
static struct vtb_comparison row(double change, double lo, double hi, double q)
{
	return (struct vtb_comparison){ .nb = 10,
					.nx = 10,
					.change_pct = change,
					.ci_low_pct = lo,
					.ci_high_pct = hi,
					.d = log1p(change / 100),
					.sd_base = 0.05,
					.sd_x = 0.05,
					.p = q,
					.q = q,
					.a = 0.05 };
}

Test(stats, verdict_rules_read_the_interval)
{
	struct vtb_test_opts o;
	struct vtb_comparison c;

	vtb_test_opts_default(&o);
	/* worse: significant, CI on one side, estimate beyond 5% */
	c = row(10, 3, 17, 0.001);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_WORSE);
	cr_assert(!c.confirmed);
	cr_assert_eq(vtb_verdict(&c, true, &o, o.alpha), VTB_V_BETTER);
	/* confirmed: the whole interval beyond the threshold */
	c = row(-20, -25, -15, 0.001);
	cr_assert_eq(vtb_verdict(&c, true, &o, o.alpha), VTB_V_WORSE);
	cr_assert(c.confirmed);
	/* significant, within the threshold, interval inside +-5%: same */
	c = row(2, 1, 3, 0.001);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_SAME);
	/* not significant, but the interval inside +-5%: same (equivalence) */
	c = row(0.5, -2, 3, 0.6);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_SAME);
	/* beyond the threshold but not significant after BH: inconclusive */
	c = row(10, 1, 19, 0.07);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
	cr_assert(c.possible); /* reaches past +5% on the worse side */
	cr_assert(isfinite(c.boots_needed) && c.boots_needed > 10, "%g", c.boots_needed);
	/* significant with an estimate inside the threshold, the CI past it */
	c = row(4, 0.5, 8, 0.01);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
	cr_assert(c.possible);
	/* possible only on the worse side */
	c = row(-4, -9, 0.5, 0.2);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
	cr_assert(!c.possible);
	cr_assert_eq(vtb_verdict(&c, true, &o, o.alpha), VTB_V_INCONCLUSIVE);
	cr_assert(c.possible);
	/* error and few come first */
	c = row(50, 40, 60, 0.001);
	c.error = VTB_RE_NONFINITE;
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_ERROR);
	c = row(50, 40, 60, 0.001);
	c.nx = 1;
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_FEW);
	/* the threshold is an option */
	o.threshold_pct = 15;
	c = row(10, 3, 17, 0.001);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
}

/*
 * The boots that would decide an inconclusive row: with that many a side
 * at the same estimate and spread, the row is decided (worse or same).
 */
Test(stats, boots_needed_would_decide_the_row)
{
	static const struct {
		double change, sd;
	} cases[] = { { 10, 0.1 }, { 8, 0.05 }, { 1, 0.05 }, { -3, 0.1 }, { 30, 0.3 } };
	struct vtb_test_opts o;

	vtb_test_opts_default(&o);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		double d = log1p(cases[i].change / 100), sd = cases[i].sd, need;
		struct vtb_comparison c = {
			.nb = 3, .nx = 3, .d = d, .sd_base = sd, .sd_x = sd, .a = 0.05
		};
		size_t n;

		need = vtb_boots_needed(&c, &o, o.alpha);
		cr_assert(isfinite(need) && need >= 4, "case %zu: %g", i, need);
		/* at need boots a side, the same figures decide the row; one
		 * fewer (when above 4) does not */
		for (n = (size_t)need - (need > 4); n <= (size_t)need; n++) {
			double se = sd * sqrt(2.0 / (double)n);
			double tc = gsl_cdf_tdist_Qinv(0.025, 2.0 * (double)(n - 1));
			struct vtb_comparison r = { .nb = n,
						    .nx = n,
						    .d = d,
						    .sd_base = sd,
						    .sd_x = sd,
						    .change_pct = expm1(d) * 100,
						    .ci_low_pct = expm1(d - tc * se) * 100,
						    .ci_high_pct = expm1(d + tc * se) * 100 };
			int v;

			r.p = r.q = 2 * gsl_cdf_tdist_Q(fabs(d / se), 2.0 * (double)(n - 1));
			v = vtb_verdict(&r, false, &o, o.alpha);
			if (n == (size_t)need)
				cr_assert(v != VTB_V_INCONCLUSIVE, "case %zu: %zu boots: %s", i, n,
					  vtb_verdict_name(v));
			else
				cr_assert_eq(v, VTB_V_INCONCLUSIVE, "case %zu: %zu boots decide", i,
					     n);
		}
	}
	/* at the threshold exactly: nothing would decide it */
	{
		struct vtb_comparison c = {
			.nb = 3, .nx = 3, .d = log1p(0.05), .sd_base = 0.1, .sd_x = 0.1, .a = 0.05
		};

		cr_assert(isnan(vtb_boots_needed(&c, &o, o.alpha)));
	}
}

static void gen(gsl_rng *r, double *v, size_t n, double mean, double cov)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = mean + gsl_ran_gaussian(r, mean * cov);
}

/*
 * Per-boot values of one side with a given scale (the true ratio between
 * two sides is the ratio of their scales, for every class's mean):
 * normal, lognormal, or contaminated (10% of boots hit by a slow
 * neighbour: up to 4 CoVs slower).
 */
enum dist { NORMAL, LOGNORMAL, CONTAMINATED };

static void draw(gsl_rng *r, enum dist d, double *v, size_t n, double scale, double cov)
{
	double s = sqrt(log1p(cov * cov));

	for (size_t i = 0; i < n; i++) {
		switch (d) {
		case NORMAL:
			v[i] = scale * (1 + gsl_ran_gaussian(r, cov));
			break;
		case LOGNORMAL:
			v[i] = scale * exp(gsl_ran_gaussian(r, s) - s * s / 2);
			break;
		case CONTAMINATED:
			v[i] = scale * (1 + gsl_ran_gaussian(r, cov));
			if (gsl_rng_uniform(r) < 0.1)
				v[i] += scale * cov * 4 * gsl_rng_uniform(r);
			break;
		}
		if (v[i] <= 0) /* CoV 10% at 10 sigma: never, but a rate must be > 0 */
			v[i] = scale * 1e-3;
	}
}

/*
 * The coverage goal: the CI holds the true ratio in at least 93%
 * of seeds at n = 5 and n = 10, for normal, lognormal and contaminated
 * data, every class, CoV 10%, a true change of +10% (2000 fixed seeds).
 * The figures are printed (make bench prints the wider table).
 */
Test(stats, ci_coverage_by_simulation, .timeout = 60)
{
	static const char *const dn[] = { "normal", "lognormal", "contaminated" };
	static const size_t ns[] = { 3, 5, 10 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_test_opts o;

	vtb_test_opts_default(&o);
	for (int d = NORMAL; d <= CONTAMINATED; d++)
		for (int k = VTB_MC_THROUGHPUT; k <= VTB_MC_LATENCY; k++)
			for (size_t j = 0; j < VTB_ARRAY_SIZE(ns); j++) {
				size_t n = ns[j], hit = 0, seeds = 2000;
				/* the x side's scale: worse by 10% in each class's sense */
				double f = k == VTB_MC_THROUGHPUT ? 1 / 1.1 : 1.1;
				double truth = (f - 1) * 100;

				gsl_rng_set(r, 1000 * (unsigned long)d + 10 * (unsigned long)k + n);
				for (size_t s = 0; s < seeds; s++) {
					double b[10], x[10];
					struct vtb_comparison c;

					draw(r, (enum dist)d, b, n, 100, 0.1);
					draw(r, (enum dist)d, x, n, 100 * f, 0.1);
					vtb_compare_samples(b, n, x, n, (enum vtb_metric_class)k,
							    &o, &c);
					hit += c.ci_low_pct <= truth && truth <= c.ci_high_pct;
				}
				fprintf(stderr, "stats: coverage %-12s %-10s n=%2zu %.1f%%\n",
					dn[d], vtb_metric_class_name((enum vtb_metric_class)k), n,
					100.0 * (double)hit / (double)seeds);
				if (n >= 5)
					cr_expect_geq(hit, seeds * 93 / 100,
						      "%s %s n=%zu: %zu of %zu", dn[d],
						      vtb_metric_class_name(
							      (enum vtb_metric_class)k),
						      n, hit, seeds);
			}
	gsl_rng_free(r);
}

/*
 * Per fixed seed, a table of six rows at n = 10 boots and CoV 2% -- a 10%
 * slowdown of a rate (higher is better), a time and a latency (lower is
 * better), and the same three with identical distributions -- through
 * compare's statistic, BH over the table and the verdict.
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
	unsigned worse[NR] = { 0 }, same[NR] = { 0 }, seed;
	struct vtb_test_opts o;
	size_t i;

	vtb_test_opts_default(&o);
	for (seed = 1; seed <= 100; seed++) {
		struct vtb_comparison c[NR];
		double p[NR], q[NR];

		gsl_rng_set(r, seed);
		for (i = 0; i < NR; i++) {
			double b[N], x[N];

			gen(r, b, N, rows[i].base, 0.02);
			gen(r, x, N, rows[i].x, 0.02);
			vtb_compare_samples(b, N, x, N, rows[i].k, &o, &c[i]);
			p[i] = c[i].p;
		}
		cr_assert_eq(vtb_bh(p, NR, q), 0);
		for (i = 0; i < NR; i++) {
			c[i].q = q[i];
			vtb_verdict(&c[i], rows[i].higher_better, &o, o.alpha);
			worse[i] += c[i].verdict == VTB_V_WORSE;
			same[i] += c[i].verdict == VTB_V_SAME;
		}
	}
	for (i = 0; i < NR; i++)
		fprintf(stderr, "stats: %-16s worse in %3u, same in %3u of 100 seeds\n",
			rows[i].what, worse[i], same[i]);
	for (i = 0; i < NR; i++) {
		if (rows[i].base != rows[i].x) {
			cr_expect_geq(worse[i], 95, "%s: worse in %u of 100", rows[i].what,
				      worse[i]);
		} else {
			cr_expect_leq(worse[i], 5, "%s: worse in %u of 100", rows[i].what,
				      worse[i]);
			cr_expect_geq(same[i], 95, "%s: same in %u of 100", rows[i].what, same[i]);
		}
	}
	gsl_rng_free(r);
}

/* Calibration: on identical distributions each test rejects at 5% about
 * 5% of the time (1000 fixed seeds, n = 10). */
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
			c = cmp(b, 10, x, 10, ks[i]);
			rejected += c.p < 0.05;
		}
		fprintf(stderr, "stats: %-10s p < 0.05 in %3u of 1000 null seeds\n",
			vtb_metric_class_name(ks[i]), rejected);
		cr_expect(rejected >= 30 && rejected <= 70, "%s: %u of 1000",
			  vtb_metric_class_name(ks[i]), rejected);
	}
	gsl_rng_free(r);
}

/* GSL's default error handler aborts the process: every entry point of
 * stats.c turns it off, so an error comes back as NaN (issue 16). */
Test(stats, no_gsl_error_aborts)
{
	static const double a[] = { 1, 2, 3, 4 }, b[] = { 2, 3, 4, 6 };
	struct vtb_test_opts o;
	struct vtb_comparison c;
	gsl_error_handler_t *h;

	vtb_test_opts_default(&o);
	gsl_set_error_handler(NULL); /* the default: abort() */
	vtb_compare_samples(a, 4, b, 4, VTB_MC_TIME, &o, &c);
	h = gsl_set_error_handler(NULL);
	cr_assert_not_null(h, "vtb_compare_samples() left GSL's aborting handler on");
	gsl_set_error_handler(NULL);
	(void)vtb_boots_needed(&c, &o, o.alpha);
	h = gsl_set_error_handler(h);
	cr_assert_not_null(h, "vtb_boots_needed() left GSL's aborting handler on");
	/* with it off, an error is a value */
	cr_expect(isnan(gsl_cdf_beta_Pinv(1.5, 1, 1)));
}

/* ---- issue 26: the screen, the FCR level, the gate's edges ---- */

/* Two mutations a run left standing: a verdict read from p instead of the
 * BH q, and `same` with strict bounds at exactly +-threshold. */
Test(stats, verdict_reads_q_and_same_includes_the_threshold)
{
	struct vtb_test_opts o;
	struct vtb_comparison c;

	vtb_test_opts_default(&o);
	/* p < 0.05 <= q: not significant, whatever the interval says */
	c = row(10, 3, 17, 0.06);
	c.p = 0.01;
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
	c.q = 0.049;
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_WORSE);
	/* the interval exactly on +-5%: same; a hair beyond: not */
	c = row(0, -5, 5, 0.5);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_SAME);
	c = row(0, -5.0001, 5, 0.5);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
	c = row(0, -5, 5.0001, 0.5);
	cr_assert_eq(vtb_verdict(&c, false, &o, o.alpha), VTB_V_INCONCLUSIVE);
}

static size_t screen(const double *v, size_t n, bool *aside)
{
	return vtb_screen(v, n, 5, aside);
}

Test(stats, the_screen_sets_aside_a_slow_boot_and_names_it)
{
	double ten[10] = { 100, 101, 99, 100.5, 300, 99.5, 100.2, 98.8, 101.1, 100 };
	double fast[10] = { 100, 101, 99, 100.5, 33, 99.5, 100.2, 98.8, 101.1, 100 };
	double two[10] = { 100, 301, 99, 100.5, 300, 99.5, 100.2, 98.8, 101.1, 100 };
	double three[10] = { 100, 301, 99, 100.5, 300, 99.5, 302, 98.8, 101.1, 100 };
	double near[10] = { 100, 101, 99, 100.5, 104, 99.5, 100.2, 100.1, 100.3, 100 };
	double flat[5] = { 61, 61, 180, 61, 62 }, four[4] = { 100, 101, 300, 99 };
	double neg[6] = { -0.3, 0, 0.1, -0.2, 40, 0.05 }, nan5[5] = { 1, 2, NAN, 1, 1 };
	bool a[10];

	cr_assert_eq(screen(ten, 10, a), 1);
	for (size_t i = 0; i < 10; i++)
		cr_assert_eq(a[i], i == 4, "boot %zu", i);
	cr_assert(vtb_screen_z(ten, 10, 4) > 50, "%g", vtb_screen_z(ten, 10, 4));
	/* both ways: a fast boot too */
	cr_assert_eq(screen(fast, 10, a), 1);
	cr_assert(a[4]);
	/* at most a fifth: two of ten, not three (three is a mode) */
	cr_assert_eq(screen(two, 10, a), 2);
	cr_assert(a[1] && a[4]);
	cr_assert_eq(screen(three, 10, a), 0);
	/* 4% from the median is data, however many deviations (threshold 5%) */
	cr_assert_eq(screen(near, 10, a), 0);
	cr_assert_eq(vtb_screen(near, 10, 3, a), 1);
	/* a MAD of 0 (quantised percentiles): the threshold decides */
	cr_assert_eq(screen(flat, 5, a), 1);
	cr_assert(a[2]);
	cr_assert(isinf(vtb_screen_z(flat, 5, 2)));
	/* under five boots nothing is set aside */
	cr_assert_eq(screen(four, 4, a), 0);
	/* values that are not all positive: on the values, not their logs */
	cr_assert_eq(screen(neg, 6, a), 1);
	cr_assert(a[4]);
	/* a value that is not a number: the row is an error, nothing set aside */
	cr_assert_eq(screen(nan5, 5, a), 0);
	cr_assert(isnan(vtb_screen_z(nan5, 5, 0)));
}

/* Clean data rarely loses a boot: figures printed, bounds loose. */
Test(stats, the_screen_on_clean_data)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t ns[] = { 5, 10, 20 };

	gsl_rng_set(r, 26);
	for (size_t k = 0; k < VTB_ARRAY_SIZE(ns); k++) {
		size_t hit = 0, n = ns[k];
		double v[20];
		bool a[20];

		for (int t = 0; t < 4000; t++) {
			for (size_t i = 0; i < n; i++)
				v[i] = 100 * exp(gsl_ran_gaussian(r, 0.02));
			hit += screen(v, n, a) > 0;
		}
		printf("stats: clean sides of %2zu boots (CoV 2%%) with a boot set aside: %.2f%%\n",
		       n, 100.0 * (double)hit / 4000);
		cr_assert(hit < 4000 / 20, "n=%zu: %zu of 4000", n, hit);
	}
	gsl_rng_free(r);
}

/*
 * The interval a verdict reads is at the Benjamini-Yekutieli level: over
 * random tables, a row's interval at vtb_fcr_level() leaves out 0 exactly
 * when BH selects it (q < alpha).
 */
Test(stats, fcr_interval_leaves_out_0_exactly_when_bh_selects)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_test_opts o;
	size_t agree = 0, total = 0, selected = 0;

	vtb_test_opts_default(&o);
	gsl_rng_set(r, 2605);
	for (int t = 0; t < 400; t++) {
		enum { M = 24 };
		struct vtb_comparison c[M];
		double p[M], q[M], a;

		for (size_t i = 0; i < M; i++) {
			double b[6], x[6],
				shift = gsl_rng_uniform(r) < 0.3 ? 0.1 * gsl_rng_uniform(r) : 0;

			for (size_t j = 0; j < 6; j++) {
				b[j] = 100 * exp(gsl_ran_gaussian(r, 0.05));
				x[j] = 100 * exp(shift + gsl_ran_gaussian(r, 0.05));
			}
			vtb_compare_samples(b, 6, x, 6, (enum vtb_metric_class)(i % 3), &o, &c[i]);
			p[i] = c[i].p;
		}
		cr_assert_eq(vtb_bh(p, M, q), 0);
		a = vtb_fcr_level(q, M, o.alpha);
		for (size_t i = 0; i < M; i++) {
			bool sel = q[i] < o.alpha, out;

			vtb_set_level(&c[i], a);
			out = c[i].ci_low_pct > 0 || c[i].ci_high_pct < 0;
			agree += sel == out;
			selected += sel;
			total++;
			cr_assert_eq(sel, out, "table %d row %zu: q %g p %g level %g ci %g..%g", t,
				     i, q[i], p[i], a, c[i].ci_low_pct, c[i].ci_high_pct);
			/* and the level only widens the row's own interval */
			cr_assert(c[i].ci_low_pct <= c[i].row_low_pct + 1e-9);
		}
	}
	printf("stats: FCR intervals: %zu of %zu rows agree with BH (%zu selected)\n", agree, total,
	       selected);
	cr_assert(selected > 100 && selected < total / 2);
	/* nothing tested: alpha; none significant: alpha / m; all: alpha */
	{
		double none[3] = { NAN, NAN, NAN }, ns[4] = { 0.5, 0.9, 0.2, 0.07 },
		       all[4] = { 0.01, 0.02, 0.001, 0.04 };

		cr_assert_float_eq(vtb_fcr_level(none, 3, 0.05), 0.05, 1e-12);
		cr_assert_float_eq(vtb_fcr_level(ns, 4, 0.05), 0.05 / 4, 1e-12);
		cr_assert_float_eq(vtb_fcr_level(all, 4, 0.05), 0.05, 1e-12);
		/* the next step: one more selected (all: stays at m) */
		cr_assert_float_eq(vtb_fcr_level_next(none, 3, 0.05), 0.05, 1e-12);
		cr_assert_float_eq(vtb_fcr_level_next(ns, 4, 0.05), 0.05 / 4, 1e-12);
		cr_assert_float_eq(vtb_fcr_level_next(all, 4, 0.05), 0.05, 1e-12);
		{
			double half[4] = { 0.01, 0.5, NAN, 0.9 };

			cr_assert_float_eq(vtb_fcr_level(half, 4, 0.05), 0.05 / 3, 1e-12);
			cr_assert_float_eq(vtb_fcr_level_next(half, 4, 0.05), 2 * 0.05 / 3, 1e-12);
		}
	}
	gsl_rng_free(r);
}

/* boots_needed faces the level it is given, and stops at the cap. */
Test(stats, boots_needed_faces_the_bh_level_and_is_capped)
{
	struct vtb_test_opts o;
	struct vtb_comparison c = {
		.nb = 10, .nx = 10, .d = log1p(0.08), .sd_base = 0.1, .sd_x = 0.1, .a = 0.05
	};
	double at_alpha, at_m;

	vtb_test_opts_default(&o);
	at_alpha = vtb_boots_needed(&c, &o, 0.05);
	at_m = vtb_boots_needed(&c, &o, 0.05 / 24);
	cr_assert(isfinite(at_alpha) && isfinite(at_m) && at_m > at_alpha, "%g %g", at_alpha, at_m);
	/* an estimate a hair inside the threshold: equivalence is past the cap */
	c.d = log1p(0.0499);
	cr_assert(isinf(vtb_boots_needed(&c, &o, 0.05)));
	/* equivalence at the row's level: CoV 10%, no change, within the cap */
	c.d = 0;
	c.a = 0.05 / 24;
	at_m = vtb_boots_needed(&c, &o, 0.05);
	cr_assert(isfinite(at_m) && at_m <= VTB_BOOTS_NEEDED_CAP, "%g", at_m);
	printf("stats: same at CoV 10%% (sd 0.1 a side), level 1 - 0.05/24: %g boots a side\n",
	       at_m);
}
