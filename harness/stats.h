/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare (issue 7): per-boot summaries, the change of a
 * configuration against its baseline with a seeded bootstrap CI of the
 * ratio of means, Welch's t and Mann-Whitney U p-values, Benjamini-Hochberg
 * across a table, and the verdict of a row.  Pure: no I/O, no globals; GSL
 * for distributions, sorting, quantiles and random numbers.
 *
 * The unit of observation is the boot: every array here holds one value per
 * boot (for a latency metric, that boot's percentile).
 *
 * Conventions, matched against scipy 1.10 / numpy 1.24 in
 * tests/cli/stats_scipy.sh:
 *   - percentiles: linear interpolation between order statistics,
 *     numpy.percentile's default (R type 7, GSL's quantile);
 *   - stddev: sample standard deviation (n - 1), 0 when n == 1;
 *     cov = stddev / |arithmetic mean|, a FRACTION (0.02 = 2%);
 *   - mean: the harmonic mean for THROUGHPUT (rates, as mmtests), the
 *     arithmetic mean otherwise; amean is always the arithmetic mean;
 *   - Welch: scipy.stats.ttest_ind(a, b, equal_var=False), two-sided; on
 *     1/x for THROUGHPUT (the test then matches the harmonic mean shown),
 *     on x for TIME;
 *   - Mann-Whitney U (LATENCY): two-sided, U = max(U1, U2).  Exact null
 *     distribution when both samples have n <= 8 and no value is tied
 *     (scipy.stats.mannwhitneyu(method="exact")); otherwise the normal
 *     approximation with average ranks, tie correction
 *     sigma^2 = n1 n2 / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))) and
 *     continuity correction 0.5 (method="asymptotic", use_continuity=True).
 *     Note scipy's method="auto" would already choose "exact" when only ONE
 *     side has n <= 8; vtbench asks for both;
 *   - Benjamini-Hochberg: q(i) = min over j >= i of p(j) m / j over the
 *     ascending p-values, capped at 1 (scipy.stats.false_discovery_control,
 *     scipy >= 1.11).
 */
#ifndef VTB_STATS_H
#define VTB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vtb_metric_class { VTB_MC_THROUGHPUT, VTB_MC_TIME, VTB_MC_LATENCY };

/*
 * Class of a metric from its unit and name, first match wins:
 *   unit "us", "ns" or "ms", or a name containing "latency", a percentile
 *     component ("_p50", "_p99", "_p999", followed by the end, '_' or '.')
 *     or ending in "_max" -> LATENCY;
 *   unit "s" -> TIME;
 *   a rate: unit "rps", "iops", "Hz" or ending in "/s" ("MB/s", "1/s") ->
 *     THROUGHPUT (its mean is the harmonic mean);
 *   anything else (counts, unitless, NULL) -> TIME: an arithmetic mean and
 *     Welch's t on x, the safe choice for values that are not rates.
 */
enum vtb_metric_class vtb_metric_class(const char *metric, const char *unit);
/* "throughput", "time", "latency" (the JSON "class"). */
const char *vtb_metric_class_name(enum vtb_metric_class k);

struct vtb_summary {
	size_t n;
	double mean; /* hmean for THROUGHPUT */
	double amean, median, stddev, cov, min, max, p5, p25, p75, p95;
};

/*
 * Summary of @n per-boot values (any order; @v is not modified).  n == 0:
 * n = 0 and every figure NAN.  The harmonic mean of THROUGHPUT is 0 when a
 * value is 0 and NAN when one is negative (as scipy.stats.hmean); cov is NAN
 * when the arithmetic mean is 0 and stddev is not.  -1 with vtb_error() on a
 * non-finite value or when out of memory.
 */
int vtb_summarise(const double *v, size_t n, enum vtb_metric_class k, struct vtb_summary *out);

struct vtb_test_opts {
	unsigned B;	      /* bootstrap replicates; 0: no CI (--no-ci) */
	uint64_t seed;	      /* campaign-wide seed, mixed into every row's */
	double alpha;	      /* BH q below which a change is significant */
	double threshold_pct; /* |change| must exceed it for better/worse */
	double cov_limit[3];  /* per class, percent: throughput 5, time 5, latency 20 */
	size_t min_n;	      /* fewer boots on either side: too few boots; default 3 */
	int threads;	      /* bootstrap threads, 0 = online CPUs */
};
/* B 2000, seed 1, alpha .05, threshold 5%, cov_limit {5, 5, 20}, min_n 3, threads 0. */
void vtb_test_opts_default(struct vtb_test_opts *o);

struct vtb_comparison {
	double change_pct;		/* (mean_x / mean_base - 1) * 100, mean as in vtb_summary */
	double ci_low_pct, ci_high_pct; /* 95% percentile bootstrap CI of the ratio, as % change;
					   NAN when B == 0 (--no-ci) */
	const char *test; /* "welch" (THROUGHPUT on 1/x, TIME on x) | "mann-whitney" */
	double p;	  /* two-sided */
	double q;	  /* BH-adjusted, filled by vtb_bh() */
	int verdict;	  /* enum below, filled by vtb_verdict() after vtb_bh() */
};
enum { VTB_V_BETTER, VTB_V_WORSE, VTB_V_SAME, VTB_V_NOISY, VTB_V_FEW };
/* "better" "worse" "no significant change" "too noisy" "too few boots"; NULL out of range. */
const char *vtb_verdict_name(int v);

/*
 * Compares per-boot values @x against @base (metric class @k).  Fills
 * change_pct, the CI (B = o->B bootstrap replicates on o->threads threads),
 * test and p; q = NAN and verdict = VTB_V_SAME until vtb_bh() and
 * vtb_verdict().  Not tested (p = NAN, left out of BH): fewer than o->min_n
 * (or 2) boots on either side, a THROUGHPUT side with a value <= 0, or
 * Welch's t undefined (both sides constant and equal).  Figures that cannot
 * be computed (a zero baseline mean, an empty side) are NAN.
 *
 * Bootstrap: each replicate resamples both sides with replacement and takes
 * the ratio of their class means (hmean for THROUGHPUT); the CI is the
 * 2.5th and 97.5th percentile (linear) of the B ratios, NAN when any ratio
 * is not finite.  Replicates come in fixed blocks of VTB_BOOT_BLOCK, each
 * with its own random stream (GSL's taus2) seeded from (o->seed, @row_seed,
 * block index);
 * threads take whole blocks, so the CI is the same for any thread count and
 * reproducible for a given (seed, row_seed); the blocks of a thread that
 * cannot be started run in the caller.
 *
 * -1 with vtb_error() on a non-finite value or when out of memory; 0
 * otherwise.
 */
#define VTB_BOOT_BLOCK 256
int vtb_compare_samples(const double *base, size_t nb, const double *x, size_t nx,
			enum vtb_metric_class k, const struct vtb_test_opts *o, uint64_t row_seed,
			struct vtb_comparison *out);

/*
 * Many rows at once, the rows spread over o->threads threads (0 = online
 * CPUs), each row's bootstrap on one: fills every rows[i].out exactly as
 * vtb_compare_samples() would, for any thread count, with one
 * synchronisation per table instead of one per row.  Stops at the first
 * failure: -1 with vtb_error(), the outputs then partly filled.
 */
struct vtb_row_job {
	const double *base, *x;
	size_t nb, nx;
	enum vtb_metric_class k;
	uint64_t row_seed;
	struct vtb_comparison out;
};
int vtb_compare_rows(struct vtb_row_job *rows, size_t n, const struct vtb_test_opts *o);

/*
 * A row's seed from its identity (e.g. "workload\x1fcell\x1fmetric\x1fconfig"):
 * 64-bit FNV-1a, so a row keeps its CI when other rows come and go.
 */
uint64_t vtb_stats_row_seed(const char *key);

/* Benjamini-Hochberg over n p-values (NAN p = not tested, left out, q NAN): q[i].
 * @q may be @p.  -1 with vtb_error() when out of memory. */
int vtb_bh(const double *p, size_t n, double *q);

/*
 * better/worse need q < alpha AND |change| > threshold; direction from
 * higher_better; too few boots (either side below o->min_n) before too
 * noisy (cov * 100 of either side above o->cov_limit[k], or not finite)
 * before the rest.  A row not tested (q NAN) is "no significant change".
 */
int vtb_verdict(const struct vtb_comparison *c, const struct vtb_summary *base,
		const struct vtb_summary *x, enum vtb_metric_class k, bool higher_better,
		const struct vtb_test_opts *o);

/* Welch p (two-sided): NAN when either side has fewer than 2 values, or both
 * are constant and equal; 0 when both are constant and differ (as scipy). */
double vtb_welch_p(const double *a, size_t na, const double *b, size_t nb);
/* Mann-Whitney U p (two-sided), conventions above; NAN when a side is empty
 * (or, with vtb_error(), when out of memory). */
double vtb_mwu_p(const double *a, size_t na, const double *b, size_t nb);
/* pct in [0, 100] of @n ascending values, linear as numpy's default; NAN when
 * n == 0 or pct is out of range. */
double vtb_percentile(const double *sorted, size_t n, double pct);
/* The same of @n values in any order, in O(n) (GSL's selection); reorders @v. */
double vtb_percentile_select(double *v, size_t n, double pct);

#endif
