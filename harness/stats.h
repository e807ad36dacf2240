/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare (issue 7 spec S): summaries, bootstrap CIs of the
 * ratio, Welch / Mann-Whitney tests, Benjamini-Hochberg and verdicts.
 * Pure (GSL); no I/O.
 */
#ifndef VTB_STATS_H
#define VTB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vtb_metric_class { VTB_MC_THROUGHPUT, VTB_MC_TIME, VTB_MC_LATENCY };
/* class of a metric from its unit and name: units "us"/"ns"/"ms" and names with _p50.._max or
 * latency -> LATENCY; "s" -> TIME; rates ("MB/s", "rps", "1/s", ".../s") -> THROUGHPUT.
 * rate = THROUGHPUT class: its mean is the harmonic mean. */
enum vtb_metric_class vtb_metric_class(const char *metric, const char *unit);

struct vtb_summary {
	size_t n;
	double mean; /* hmean for THROUGHPUT */
	double amean, median, stddev, cov, min, max, p5, p25, p75, p95;
};
int vtb_summarise(const double *v, size_t n, enum vtb_metric_class k, struct vtb_summary *out);

struct vtb_test_opts {
	unsigned B;
	uint64_t seed;
	double alpha;
	double threshold_pct;
	double cov_limit[3]; /* per class, percent: throughput 5, time 5, latency 20 */
	size_t min_n;	     /* fewer boots on either side: too few boots; default 3 */
	int threads;	     /* bootstrap threads, 0 = online CPUs */
};
void vtb_test_opts_default(
	struct vtb_test_opts *o); /* B 2000, seed 1, alpha .05, 5%, {5,5,20}, 3 */

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
/* "better" "worse" "no significant change" "too noisy" "too few boots" */
const char *vtb_verdict_name(int v);
int vtb_compare_samples(const double *base, size_t nb, const double *x, size_t nx,
			enum vtb_metric_class k, const struct vtb_test_opts *o, uint64_t row_seed,
			struct vtb_comparison *out);
/* Benjamini-Hochberg over n p-values (NAN p = not tested, left out): q[i]. */
int vtb_bh(const double *p, size_t n, double *q);
/* better/worse need q < alpha AND |change| > threshold; direction from higher_better;
 * too few boots before too noisy (CoV of either side above its class limit) before the rest. */
int vtb_verdict(const struct vtb_comparison *c, const struct vtb_summary *base,
		const struct vtb_summary *x, enum vtb_metric_class k, bool higher_better,
		const struct vtb_test_opts *o);
/* Welch p (two-sided) and Mann-Whitney U p (two-sided; normal approximation with tie
 * correction and continuity correction 0.5, as scipy.stats.mannwhitneyu(method="asymptotic",
 * use_continuity=True); exact when both n <= 8 and no ties, as method="exact") exposed for tests. */
double vtb_welch_p(const double *a, size_t na, const double *b, size_t nb);
double vtb_mwu_p(const double *a, size_t na, const double *b, size_t nb);
double vtb_percentile(const double *sorted, size_t n, double pct); /* linear, as numpy default */

#endif
