/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare: per-boot summaries, the change of a configuration
 * against its baseline as ONE statistic per row (its estimate, direction,
 * confidence interval and test come from the same t statistic, so they
 * cannot disagree), Benjamini-Hochberg across a table, and the verdict of
 * a row read from its interval.  Pure: no I/O, no globals; GSL for
 * distributions, sorting and quantiles.
 *
 * The unit of observation is the boot: every array here holds one value per
 * boot (for a latency metric, that boot's percentile).
 *
 * The statistic of a row, by metric class (docs/statistics.md):
 *   - TIME: the ratio of arithmetic means, r = mean(x) / mean(base);
 *   - THROUGHPUT: the ratio of harmonic means (rates, as mmtests),
 *     r = mean(1/base) / mean(1/x);
 *   - LATENCY: the ratio of geometric means, r = exp(mean(log x) -
 *     mean(log base)): per-boot percentiles are skewed, and a ratio of
 *     geometric means is Welch's t on log(x), the textbook test for them.
 * In each case d = log r, its standard error se from the two sides'
 * relative standard errors (TIME, THROUGHPUT: the delta method,
 * se^2 = s_b^2 / (n_b m_b^2) + s_x^2 / (n_x m_x^2) over the values or their
 * inverses; LATENCY: Welch's se^2 = s_b^2 / n_b + s_x^2 / n_x of the logs),
 * Welch-Satterthwaite degrees of freedom df, t = d / se, p = 2 P(T_df > |t|)
 * and the CI exp(d -+ t_{1 - alpha/2, df} se) - 1.  The change shown is
 * r - 1: the ratio of the means shown (vtb_summary.mean).  Coverage of the
 * CI is checked by simulation in tests/unit/test_stats.c and make bench.
 *
 * Conventions, matched against scipy 1.10 / numpy 1.24 in
 * tests/cli/stats_scipy.sh:
 *   - percentiles: linear interpolation between order statistics,
 *     numpy.percentile's default (R type 7, GSL's quantile);
 *   - stddev: sample standard deviation (n - 1), 0 when n == 1;
 *     cov = stddev / |arithmetic mean|, a FRACTION (0.02 = 2%);
 *   - mean: the harmonic mean for THROUGHPUT, the geometric mean for
 *     LATENCY, the arithmetic mean for TIME; amean is always the arithmetic
 *     mean;
 *   - LATENCY's test is scipy.stats.ttest_ind(log(x), log(base),
 *     equal_var=False);
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
 *   anything else (counts, unitless, NULL) -> TIME: an arithmetic mean,
 *     the safe choice for values that are not rates.
 */
enum vtb_metric_class vtb_metric_class(const char *metric, const char *unit);
/*
 * Is @metric a tail: a percentile component of 99 or more at its end
 * (_p99, _p995, _p999, _p9999, _p99_9, _p99.9; _p100) or a name ending in
 * _max?  *@pct (may be NULL): 99.9 etc, 100 for the max; *@stem (may be
 * NULL): the length of the name before that part.  A tail's slow boots
 * are its signal: it is never screened, and with histograms it is judged
 * on them (tails.h).
 */
bool vtb_metric_tail(const char *metric, double *pct, size_t *stem);
/* "throughput", "time", "latency" (the JSON "class"). */
const char *vtb_metric_class_name(enum vtb_metric_class k);
/* What a row's change is the ratio of: "ratio of harmonic means", "ratio
 * of means", "ratio of geometric means". */
const char *vtb_metric_class_effect(enum vtb_metric_class k);

struct vtb_summary {
	size_t n;
	double mean; /* hmean for THROUGHPUT, gmean for LATENCY, amean for TIME */
	double amean, median, stddev, cov, min, max, p5, p25, p75, p95;
};

/*
 * Summary of @n per-boot values (any order; @v is not modified).  n == 0:
 * n = 0 and every figure NAN.  The harmonic mean of THROUGHPUT is 0 when a
 * value is 0 and NAN when one is negative (as scipy.stats.hmean); the
 * geometric mean of LATENCY is NAN when a value is <= 0; cov is NAN when
 * the arithmetic mean is 0 and stddev is not.  A non-finite value makes
 * every figure but n NAN (compare reports the row as an error).  -1 with
 * vtb_error() when out of memory.
 */
int vtb_summarise(const double *v, size_t n, enum vtb_metric_class k, struct vtb_summary *out);

struct vtb_test_opts {
	double alpha;	      /* BH q below which a change is significant; CIs at 1 - alpha */
	double threshold_pct; /* a change that matters: worse/better beyond it, same within */
	double cov_limit[3];  /* per class, percent: the "noisy" note (never a verdict) */
	size_t min_n;	      /* fewer boots on either side: few (default 2: the t test
				 needs a spread on each side) */
	bool plain;	      /* --no-robust: no boot set aside, tails from per-boot values */
};
/* alpha .05, threshold 5%, cov_limit {5, 5, 20}, min_n 2. */
void vtb_test_opts_default(struct vtb_test_opts *o);

/* Verdicts, in the words of the compare document. */
enum {
	VTB_V_WORSE,	    /* significant (BH), the CI on the worse side of 0, the
			       estimate beyond the threshold */
	VTB_V_BETTER,	    /* the same on the better side */
	VTB_V_SAME,	    /* the CI within +-threshold */
	VTB_V_INCONCLUSIVE, /* anything else: more boots would decide it */
	VTB_V_FEW,	    /* under min_n boots on a side: no test */
	VTB_V_MISSING,	    /* a series absent on one side (compare.c) */
	VTB_V_ERROR,	    /* values the statistic cannot take (or units differ) */
	VTB_V_COUNT
};
/* "worse" "better" "same" "inconclusive" "few" "missing" "error"; NULL out of range. */
const char *vtb_verdict_name(int v);

/* Why a row is an error (vtb_comparison.error). */
enum vtb_row_error {
	VTB_RE_NONE,
	VTB_RE_NONFINITE,   /* a value is NaN or infinite */
	VTB_RE_NONPOSITIVE, /* a rate or latency <= 0: no inverse or log */
	VTB_RE_ZERO_MEAN,   /* TIME: a side's mean <= 0: no relative change */
};

struct vtb_comparison {
	size_t nb, nx;			/* boots of each side */
	double change_pct;		/* (r - 1) * 100; NAN when it cannot be computed */
	double ci_low_pct, ci_high_pct; /* the (1 - alpha) CI of r, as % change; NAN untested */
	double d, se, df, t;		/* log r, its standard error, Welch-Satterthwaite df */
	double sd_base, sd_x;		/* per-boot spreads of the two sides on the scale of
					   se (se^2 = sd_base^2 / nb + sd_x^2 / nx) */
	const char *test;		/* "log-ratio-t" (TIME, THROUGHPUT) | "welch-log" */
	double p;			/* two-sided; NAN: not tested */
	double q;			/* BH-adjusted, filled by vtb_bh() */
	int error;			/* enum vtb_row_error */
	int error_side;			/* 0: base, 1: x */
	size_t error_index;		/* the offending value's position in its side */
	/* filled by vtb_verdict() after vtb_bh(): */
	int verdict;
	bool confirmed;	     /* worse/better with the whole CI beyond the threshold */
	bool possible;	     /* inconclusive with the CI reaching past the threshold on the
				worse side (--fail-on possible) */
	double boots_needed; /* inconclusive: boots a side that would decide the row at the
				observed estimate and spread (vtb_boots_needed); NAN unknown,
				INFINITY beyond VTB_BOOTS_NEEDED_CAP */
	/* the interval of the row as a test of its own (1 - alpha), beside the
	   one its verdict reads (ci_low_pct, ci_high_pct at level 1 - a) */
	double row_low_pct, row_high_pct;
	double a; /* the level the verdict's interval is at: 1 - a (vtb_set_level) */
	const struct vtb_tail *tail; /* a tail row: its bootstrap (tails.h), else NULL */
};

/* boots_needed past this is shown as "> 1000" (INFINITY). */
#define VTB_BOOTS_NEEDED_CAP 1000

struct vtb_tail;

/*
 * Compares per-boot values @x against @base (metric class @k) at level
 * 1 - o->alpha: fills every member up to error; q = NAN and verdict =
 * VTB_V_INCONCLUSIVE until vtb_bh() and vtb_verdict().  Not tested (p
 * NAN): fewer than o->min_n (at least 2) boots on either side, or an
 * error (a non-finite value; a THROUGHPUT or LATENCY value <= 0; a TIME
 * side whose mean is <= 0).  Both sides constant and equal: change 0, CI
 * [0, 0], p 1.  Both constant and different: se 0, p 0, the CI the point.
 */
void vtb_compare_samples(const double *base, size_t nb, const double *x, size_t nx,
			 enum vtb_metric_class k, const struct vtb_test_opts *o,
			 struct vtb_comparison *out);

/*
 * The outlier screen of one side (docs/statistics.md "Outlier boots"):
 * which of @n per-boot values are set aside (aside[i] true; returns how
 * many).  On the log scale when every value is above 0 (a slow boot is a
 * factor), else on the values: a value whose modified z-score
 * 0.6745 |x - median| / MAD is above VTB_SCREEN_Z (Iglewicz and Hoaglin's score;
 * with a MAD of 0, more than half the boots equal, any other value is) and
 * that is also more than @min_pct percent from the median (compare gives
 * its threshold: a boot closer than the change that matters is data).  At
 * most n / 5 values (integer division) are set aside, so none under 5
 * boots; when more than that are beyond the cut, none is: a fifth of the
 * boots is a mode of the data, not an accident.  Non-finite values: none.
 */
#define VTB_SCREEN_Z 8.0
size_t vtb_screen(const double *v, size_t n, double min_pct, bool *aside);
/*
 * The screen as compare applies it to one side of a row (and upload to
 * its aggregates): vtb_screen(), except for a tail metric
 * (vtb_metric_tail) and for values the statistic cannot take (a
 * non-finite value, a rate or latency <= 0: the row is an error).
 */
size_t vtb_screen_series(const double *v, size_t n, enum vtb_metric_class k, const char *metric,
			 double min_pct, bool *aside);
/* The values of @v (@n) not set aside (@aside) into @out, in order (@out
 * may be @v): their count. */
size_t vtb_screen_keep(const double *v, size_t n, const bool *aside, double *out);
/* The modified z-score of @v[i] as vtb_screen() computes it (NAN when it
 * has no scale, INFINITY off a median more than half share): for the
 * row's note. */
double vtb_screen_z(const double *v, size_t n, size_t i);

/*
 * Sets @c's interval (ci_low_pct, ci_high_pct) at level 1 - @a: from its
 * t statistic, or from its bootstrap (c->tail).  A row not tested keeps
 * NAN.  vtb_compare_samples() sets it at 1 - alpha (also row_*_pct).
 */
void vtb_set_level(struct vtb_comparison *c, double a);

/*
 * The level of a table's intervals (Benjamini and Yekutieli 2005: the
 * false-coverage-rate adjusted intervals of the rows BH selects): with m
 * rows tested and R of them with q < alpha, a = max(R, 1) alpha / m.  A
 * row's interval at 1 - a leaves out 0 exactly when BH selects it (its p
 * is at most R alpha / m).  alpha when nothing was tested.
 */
double vtb_fcr_level(const double *q, size_t n, double alpha);
/* The level a row not yet significant would face were it selected too
 * (the next BH step): min(R + 1, m) alpha / m; for boots_needed. */
double vtb_fcr_level_next(const double *q, size_t n, double alpha);

/* Benjamini-Hochberg over n p-values (NAN p = not tested, left out, q NAN): q[i].
 * @q may be @p.  -1 with vtb_error() when out of memory. */
int vtb_bh(const double *p, size_t n, double *q);

/*
 * The verdict of @c read from its interval (as vtb_set_level() left it)
 * and estimate (enum above), direction from @higher_better; sets
 * c->verdict, c->confirmed, c->possible and c->boots_needed, and returns
 * the verdict.  Order: error, few, then worse/better (the interval leaves
 * out 0 and the estimate is beyond the threshold), same, inconclusive.
 * @a_next: the level the row would face were it significant (the next
 * BH step: min(R + 1, m) alpha / m), for boots_needed.
 */
int vtb_verdict(struct vtb_comparison *c, bool higher_better, const struct vtb_test_opts *o,
		double a_next);

/*
 * Boots a side (the same on both) that would decide @c if the estimate d
 * and the per-boot spreads stayed as observed: the smallest n with
 * t_{1 - a_sig/2, df(n)} se(n) < |d| when |change| is beyond the
 * threshold (significance, at the level @a_sig the row would face), or
 * with the interval at 1 - c->a inside +-threshold otherwise
 * (equivalence); se(n)^2 = (sd_base^2 + sd_x^2) / n, df(n) Welch's.  At
 * least one more than the larger side has.  INFINITY past
 * VTB_BOOTS_NEEDED_CAP (shown "> 1000"); NAN when the row has no spread
 * estimate (a tail row), or when no n would do (|change| on the
 * threshold).  A planning figure, not a promise: the estimate moves.
 */
double vtb_boots_needed(const struct vtb_comparison *c, const struct vtb_test_opts *o,
			double a_sig);

/* pct in [0, 100] of @n ascending values, linear as numpy's default; NAN when
 * n == 0 or pct is out of range. */
double vtb_percentile(const double *sorted, size_t n, double pct);

#endif
