/* SPDX-License-Identifier: MIT */
/*
 * The tail statistic (tails.h): a high percentile of each side's pooled
 * histograms and a bootstrap over whole boots.
 *
 * Speed.  A row may be one of tens of thousands, and each replicate needs
 * the percentile of a weighted pool (a boot drawn twice counts twice).
 * Merging histograms per replicate would cost every bucket of every boot.
 * Instead: the q-quantile of a mixture lies between the smallest and the
 * largest of its components' own q-quantiles (with ranks ceil(q n): at the
 * largest own quantile every component has at least ceil(q n_i) values at
 * or below it, so the pool has at least ceil(q N); just below the smallest
 * each has fewer than q n_i, so the pool fewer than q N).  So each side
 * keeps only the grid of the values between its boots' smallest and
 * largest own percentile, and per boot the cumulative count at each grid
 * point; a replicate's percentile is a binary search of that grid between
 * its drawn boots' own percentiles, each step a weighted sum over the
 * boots.  For the bound to hold exactly the ranks are computed exactly
 * (rank_of), and counts are doubles, exact below 2^53 (a side whose
 * counts could reach that is not judged).
 *
 * The test and the interval are read from the same replicates, and the
 * interval's k for a level is the smallest k whose p is at least that
 * level (k_of): the two cannot disagree, even at a tie or a rounding.
 */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tails.h"
#include "../../common/vtbutil.h"

/* Counts and their weighted sums are doubles: exact below 2^53. */
#define EXACT_MAX 9007199254740992.0

/* One side, prepared for the bootstrap. */
struct side {
	const struct vtb_tail_boot *b;
	size_t n;
	uint64_t q;   /* the percentile in millionths of a percent (rank_of) */
	double *tot;  /* per boot: its count */
	size_t *qpos; /* per boot: its own percentile's position in grid */
	double *grid; /* ascending values, from the smallest own percentile to the largest */
	size_t g;
	double *cum; /* g x n: cum[j * n + i], boot i's count at or below grid[j] */
	double *w;   /* a replicate's multiplicity per boot */
};

static void side_release(struct side *s)
{
	free(s->tot);
	free(s->qpos);
	free(s->grid);
	free(s->cum);
	free(s->w);
}

/* The rank of percentile @q (in millionths of a percent: 99.9 is
 * 99900000) among @total values, ceil(q total / 10^8), exactly, clamped to
 * 1..total.  vtb_hist_percentile's ceil(pct / 100.0 * total) is the same
 * for any percentile of up to six decimals and total below 10^10 or so
 * (where its rounding cannot cross an integer); exactness matters here
 * because the grid's bounds hold only for a rank that is exactly
 * ceil(q' total) for one real q' at every total.  total < 2^53. */
static double rank_of(uint64_t q, double total)
{
	uint64_t n = (uint64_t)total, a = n / 100000000, b = n % 100000000;
	uint64_t r = q * a + (q * b + 99999999) / 100000000; /* q b < 10^16 */

	return r < 1 ? 1 : r > n ? total : (double)r;
}

/* Can the side be judged: boots with values, finite, ascending, not
 * negative, counts that add up exactly?  Fills s->tot. */
static bool side_valid(struct side *s, double pct)
{
	double most = 0;

	if (!s->n || s->n > UINT32_MAX)
		return false;
	for (size_t i = 0; i < s->n; i++) {
		const struct vtb_tail_boot *b = &s->b[i];
		double t = 0;

		if (!b->n || !b->v || !b->c)
			return false;
		for (size_t j = 0; j < b->n; j++) {
			if (!isfinite(b->v[j]) || b->v[j] < 0 || (j && !(b->v[j] > b->v[j - 1])))
				return false;
			t += (double)b->c[j];
		}
		if (!(t > 0) || t >= EXACT_MAX)
			return false;
		if (pct >= 100 && !(isfinite(b->max) && b->max >= 0))
			return false;
		s->tot[i] = t;
		most = t > most ? t : most;
	}
	return most * (double)s->n < EXACT_MAX;
}

/* The grid and the cumulative counts (see the file's comment). */
static int side_grid(struct side *s)
{
	double *q = NULL, qlo = INFINITY, qhi = -INFINITY;
	size_t *at = NULL, g = 0, cap = 0;
	int ret = -1;

	q = malloc(s->n * sizeof(*q));
	at = malloc(s->n * sizeof(*at));
	if (!q || !at)
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		const struct vtb_tail_boot *b = &s->b[i];
		double r = rank_of(s->q, s->tot[i]), cum = 0;
		size_t j;

		for (j = 0; j < b->n - 1; j++) {
			cum += (double)b->c[j];
			if (cum >= r)
				break;
		}
		q[i] = b->v[j];
		qlo = q[i] < qlo ? q[i] : qlo;
		qhi = q[i] > qhi ? q[i] : qhi;
	}
	/* every grid value is some boot's value in [qlo, qhi]: at most the
	 * sum of their counts of values, bounded by each boot's n */
	for (size_t i = 0; i < s->n; i++)
		cap += s->b[i].n;
	s->grid = malloc(cap * sizeof(*s->grid));
	s->w = malloc(s->n * sizeof(*s->w));
	if (!s->grid || !s->w)
		goto out;
	/* a merge of the boots' values from qlo up to qhi */
	for (size_t i = 0; i < s->n; i++)
		for (at[i] = 0; at[i] < s->b[i].n && s->b[i].v[at[i]] < qlo; at[i]++)
			;
	for (;;) {
		double v = INFINITY;

		for (size_t i = 0; i < s->n; i++)
			if (at[i] < s->b[i].n && s->b[i].v[at[i]] < v)
				v = s->b[i].v[at[i]];
		if (!(v <= qhi))
			break;
		s->grid[g++] = v;
		for (size_t i = 0; i < s->n; i++)
			if (at[i] < s->b[i].n && s->b[i].v[at[i]] == v)
				at[i]++;
	}
	s->g = g;
	s->cum = malloc(g * s->n * sizeof(*s->cum));
	s->qpos = malloc(s->n * sizeof(*s->qpos));
	if (!s->cum || !s->qpos)
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		const struct vtb_tail_boot *b = &s->b[i];
		double c = 0;
		size_t k = 0, lo = 0, hi = g - 1;

		for (size_t j = 0; j < g; j++) {
			for (; k < b->n && b->v[k] <= s->grid[j]; k++)
				c += (double)b->c[k];
			s->cum[j * s->n + i] = c;
		}
		while (lo < hi) { /* q[i] is in the grid: it is in [qlo, qhi] */
			size_t mid = lo + (hi - lo) / 2;

			if (s->grid[mid] < q[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		s->qpos[i] = lo;
	}
	ret = 0;
out:
	free(q);
	free(at);
	return ret;
}

/* The percentile of the pool weighted by s->w, whose drawn boots' own
 * percentiles are at grid positions lo..hi; @total its count. */
static double side_percentile(const struct side *s, double total, size_t lo, size_t hi)
{
	double rank = rank_of(s->q, total);
	size_t len = hi - lo + 1;

	/* the first position at or above the rank, known to be in lo..hi:
	 * halving without a branch on the outcome (it is a coin toss, and a
	 * mispredicted branch costs as much as the sum) */
	while (len > 1) {
		size_t half = len / 2;
		const double *c = s->cum + (lo + half - 1) * s->n;
		/* exact integers: any order of addition, four chains at once */
		double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
		size_t i;

		for (i = 0; i + 3 < s->n; i += 4) {
			s0 += s->w[i] * c[i];
			s1 += s->w[i + 1] * c[i + 1];
			s2 += s->w[i + 2] * c[i + 2];
			s3 += s->w[i + 3] * c[i + 3];
		}
		for (; i < s->n; i++)
			s0 += s->w[i] * c[i];
		lo += (s0 + s2) + (s1 + s3) < rank ? half : 0;
		len -= half;
	}
	return s->grid[lo];
}

/* The side's statistic with every boot once. */
static double side_estimate(struct side *s, double pct)
{
	double total = 0, m = -INFINITY;
	size_t lo = SIZE_MAX, hi = 0;

	for (size_t i = 0; i < s->n; i++) {
		s->w[i] = 1;
		total += s->tot[i];
		m = s->b[i].max > m ? s->b[i].max : m;
		lo = s->qpos && s->qpos[i] < lo ? s->qpos[i] : lo;
		hi = s->qpos && s->qpos[i] > hi ? s->qpos[i] : hi;
	}
	return pct >= 100 ? m : side_percentile(s, total, lo, hi);
}

/* Uniform draws in [0, n) from mt19937's 32-bit words: Lemire's multiply
 * and reject (no modulo bias), with a 16-bit half of a word per draw when
 * n fits in 16 bits (as for any side of boots): the generator is a good
 * part of a replicate's cost. */
struct draws {
	gsl_rng *r;
	uint32_t word;
	bool half; /* the word's upper half is unused */
};

static size_t pick(struct draws *g, size_t n)
{
	if (n <= 0xffff) {
		uint32_t t = (uint32_t)(0x10000 - n) % (uint32_t)n, m;

		do {
			if (g->half) {
				m = (g->word >> 16) * (uint32_t)n;
				g->half = false;
			} else {
				g->word = (uint32_t)gsl_rng_get(g->r);
				m = (g->word & 0xffff) * (uint32_t)n;
				g->half = true;
			}
		} while ((m & 0xffff) < t);
		return m >> 16;
	} else {
		uint32_t t = (uint32_t)(-(uint32_t)n) % (uint32_t)n;
		uint64_t m;

		do
			m = (uint64_t)gsl_rng_get(g->r) * n;
		while ((uint32_t)m < t);
		return (size_t)(m >> 32);
	}
}

/* The side's statistic over n boots drawn with replacement. */
static double side_replicate(struct side *s, struct draws *r, double pct)
{
	double total = 0, m = -INFINITY;
	size_t lo = SIZE_MAX, hi = 0;

	if (pct >= 100) {
		for (size_t k = 0; k < s->n; k++) {
			double v = s->b[pick(r, s->n)].max;

			m = v > m ? v : m;
		}
		return m;
	}
	memset(s->w, 0, s->n * sizeof(*s->w));
	for (size_t k = 0; k < s->n; k++) {
		size_t i = pick(r, s->n);

		s->w[i] += 1;
		total += s->tot[i];
		lo = s->qpos[i] < lo ? s->qpos[i] : lo;
		hi = s->qpos[i] > hi ? s->qpos[i] : hi;
	}
	return side_percentile(s, total, lo, hi);
}

/* x / b with 0 / 0 = 1 (the same value on both sides is no change):
 * replicates are kept as ratios, ordered and counted as their logs are,
 * and only the kept ones become logs. */
static double ratio(double x, double b)
{
	return x == b ? 1 : x / b;
}

/* The p of n replicates on a side of 0 out of B (the header's formula,
 * written once so that k_of agrees with it). */
static double p_of(size_t n, size_t B)
{
	double p = 2.0 * (double)n / (double)B;

	return p < 1 ? p : 1;
}

/* The smallest k >= 1 with p_of(k) >= a: fewer than k replicates on a
 * side of 0 is then exactly p < a. */
static size_t k_of(double a, size_t B)
{
	double x = ceil(a * (double)B / 2);
	size_t k = x < 1 ? 1 : x > (double)B ? B : (size_t)x;

	while (k > 1 && p_of(k - 1, B) >= a)
		k--;
	while (k < B && p_of(k, B) < a)
		k++;
	return k;
}

static void swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Rearranges @a so that a[k] is the k-th smallest (from 0), smaller ones
 * before it and larger ones after: quickselect with a three-way partition
 * (replicates tie often: they are grid values). */
static void select_nth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1], piv;
		size_t lt = lo, i = lo, gt = hi;

		piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		while (i < gt) {
			if (a[i] < piv)
				swapd(&a[lt++], &a[i++]);
			else if (a[i] > piv)
				swapd(&a[i], &a[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

static int cmp_up(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_down(const void *a, const void *b)
{
	return cmp_up(b, a);
}

int vtb_tail_compare(const struct vtb_tail_boot *base, size_t nb, const struct vtb_tail_boot *x,
		     size_t nx, double pct, double alpha, size_t B, uint64_t seed,
		     struct vtb_tail *t)
{
	uint64_t q = pct >= 0 && pct < 100 ? (uint64_t)llround(pct * 1e6) : 0;
	struct side sb = { .b = base, .n = nb, .q = q }, sx = { .b = x, .n = nx, .q = q };
	double *d = NULL; /* the replicates' ratios */
	struct draws g = { 0 };
	size_t le = 0, ge = 0;
	bool tail = pct >= 100;
	int ret = -1;

	*t = (struct vtb_tail){ .d = NAN, .p = NAN };
	if (!(pct >= 0)) /* NaN */
		return 0;
	sb.tot = malloc((nb ? nb : 1) * sizeof(*sb.tot));
	sx.tot = malloc((nx ? nx : 1) * sizeof(*sx.tot));
	if (!sb.tot || !sx.tot)
		goto out;
	if (!side_valid(&sb, pct) || !side_valid(&sx, pct)) {
		ret = 0;
		goto out;
	}
	if (tail) {
		sb.w = malloc(nb * sizeof(*sb.w));
		sx.w = malloc(nx * sizeof(*sx.w));
		if (!sb.w || !sx.w)
			goto out;
	} else if (side_grid(&sb) || side_grid(&sx)) {
		goto out;
	}
	t->d = log(ratio(side_estimate(&sx, pct), side_estimate(&sb, pct)));
	if (!B) {
		ret = 0;
		goto out;
	}
	d = malloc(B * sizeof(*d));
	g.r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!d || !g.r)
		goto out;
	gsl_rng_set(g.r, (unsigned long)seed);
	for (size_t i = 0; i < B; i++) {
		double pb = side_replicate(&sb, &g, pct);

		d[i] = ratio(side_replicate(&sx, &g, pct), pb);
		le += d[i] <= 1;
		ge += d[i] >= 1;
	}
	t->B = B;
	t->p = p_of(le < ge ? le : ge, B);
	t->k = k_of(alpha > 0 && alpha <= 1 ? alpha : 1, B);
	t->lo = malloc(t->k * sizeof(*t->lo));
	t->hi = malloc(t->k * sizeof(*t->hi));
	if (!t->lo || !t->hi)
		goto out;
	select_nth(d, B, t->k - 1);
	qsort(d, t->k, sizeof(*d), cmp_up);
	for (size_t i = 0; i < t->k; i++)
		t->lo[i] = log(d[i]);
	select_nth(d, B, B - t->k);
	qsort(d + (B - t->k), t->k, sizeof(*d), cmp_down);
	for (size_t i = 0; i < t->k; i++)
		t->hi[i] = log(d[B - t->k + i]);
	ret = 0;
out:
	if (ret || isnan(t->d)) /* no estimate: no test either */
		vtb_tail_release(t);
	free(d);
	gsl_rng_free(g.r);
	side_release(&sb);
	side_release(&sx);
	return ret ? vtb_error("out of memory comparing the tails of %zu and %zu boots", nb, nx)
		   : 0;
}

void vtb_tail_interval(const struct vtb_tail *t, double a, double *dlo, double *dhi)
{
	size_t k;

	*dlo = *dhi = NAN;
	if (!t->lo || !t->hi || !t->k || !(a > 0))
		return;
	k = k_of(a, t->B);
	if (k > t->k) /* a above the alpha the replicates were kept for */
		k = t->k;
	*dlo = t->lo[k - 1];
	*dhi = t->hi[k - 1];
}

void vtb_tail_release(struct vtb_tail *t)
{
	if (!t)
		return;
	free(t->lo);
	free(t->hi);
	*t = (struct vtb_tail){ .d = NAN, .p = NAN };
}
