/* SPDX-License-Identifier: MIT */
/*
 * Tails judged on the data (issue 26): a high percentile (p99 and above)
 * or the maximum of a latency, compared from the POOLED histograms of
 * each side's boots, with an interval and a test from a bootstrap that
 * resamples whole boots (the boot stays the unit of observation).  Pure:
 * no I/O; the loader that reads a campaign's histograms is tailrows.c.
 *
 * The statistic: d = log(P_x / P_base), P a side's pooled percentile
 * (the representative value of the bucket holding the ceil(pct/100 *
 * total)-th smallest value, as vtb_hist_percentile) or, for the max, the
 * largest boot maximum.  The bootstrap draws each side's boots with
 * replacement (B replicates, a seed fixed by the caller: the same
 * database gives the same figures), d* per replicate;
 *   p = min(1, 2 min(#{d* <= 0}, #{d* >= 0}) / B)
 * and the interval at level 1 - a is [k-th smallest d*, k-th largest d*]
 * with k = ceil(a B / 2): it leaves out 0 exactly when p < a.
 */
#ifndef VTB_TAILS_H
#define VTB_TAILS_H

#include <stddef.h>
#include <stdint.h>

/* One boot's histogram, sparse: ascending representative values (in the
 * histogram's unit) and their counts; max the largest value seen. */
struct vtb_tail_boot {
	const double *v;
	const uint64_t *c;
	size_t n;
	double max;
	int rep;
};

/* A bootstrap row: its estimate and test, and the replicates an interval
 * at any level 1 - a (a <= alpha given to vtb_tail_compare) is read from. */
struct vtb_tail {
	double d, p;
	size_t B, k;	 /* replicates; k = ceil(alpha B / 2) kept at each end */
	double *lo, *hi; /* the k smallest d* ascending, the k largest descending */
};

/* Percentile @pct (99 <= pct < 100), or the max (pct == 100), of side @x
 * against side @base.  0, or -1 with vtb_error() (memory); t->d is NAN
 * when a side has no value (empty histograms). */
int vtb_tail_compare(const struct vtb_tail_boot *base, size_t nb, const struct vtb_tail_boot *x,
		     size_t nx, double pct, double alpha, size_t B, uint64_t seed,
		     struct vtb_tail *t);
/* The interval at level 1 - @a on the log scale; a in (0, alpha]. */
void vtb_tail_interval(const struct vtb_tail *t, double a, double *dlo, double *dhi);
void vtb_tail_release(struct vtb_tail *t);

#endif
