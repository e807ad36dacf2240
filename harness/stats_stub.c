/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY STUB of harness/stats.h -- DELETE WHEN MERGING harness/stats.c.
 *
 * The compare model (branch i7-model) is built in parallel with the real
 * statistics (harness/stats.c, another branch).  This file implements the
 * declared API just well enough for compare to build and for its tests
 * to exercise exit codes: plain single-threaded bootstrap, Welch and a
 * normal-approximation Mann-Whitney without the exact small-sample path.
 * None of it is the reference implementation.
 */
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/lib/vtbutil.h"

enum vtb_metric_class vtb_metric_class(const char *metric, const char *unit)
{
	size_t ul = unit ? strlen(unit) : 0;

	if (unit && (!strcmp(unit, "us") || !strcmp(unit, "ns") || !strcmp(unit, "ms")))
		return VTB_MC_LATENCY;
	if (metric && (strstr(metric, "latency") || strstr(metric, "_p5") ||
		       strstr(metric, "_p9") || strstr(metric, "_max")))
		return VTB_MC_LATENCY;
	if (unit && !strcmp(unit, "s"))
		return VTB_MC_TIME;
	if (ul >= 2 && !strcmp(unit + ul - 2, "/s"))
		return VTB_MC_THROUGHPUT;
	if (unit && !strcmp(unit, "rps"))
		return VTB_MC_THROUGHPUT;
	return VTB_MC_TIME;
}

double vtb_percentile(const double *sorted, size_t n, double pct)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	pos = pct / 100 * (double)(n - 1);
	i = (size_t)floor(pos);
	frac = pos - (double)i;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

static double class_mean(const double *v, size_t n, enum vtb_metric_class k)
{
	double s = 0;

	if (k != VTB_MC_THROUGHPUT)
		return gsl_stats_mean(v, 1, n);
	for (size_t i = 0; i < n; i++)
		s += 1 / v[i];
	return (double)n / s;
}

int vtb_summarise(const double *v, size_t n, enum vtb_metric_class k, struct vtb_summary *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (!n)
		return vtb_error("no values");
	s = malloc(n * sizeof(*s));
	if (!s)
		return vtb_error("out of memory");
	memcpy(s, v, n * sizeof(*s));
	gsl_sort(s, 1, n);
	out->n = n;
	out->amean = gsl_stats_mean(s, 1, n);
	out->mean = class_mean(s, n, k);
	out->median = vtb_percentile(s, n, 50);
	out->stddev = n > 1 ? gsl_stats_sd_m(s, 1, n, out->amean) : 0;
	out->cov = out->amean != 0 ? out->stddev / fabs(out->amean) : 0;
	out->min = s[0];
	out->max = s[n - 1];
	out->p5 = vtb_percentile(s, n, 5);
	out->p25 = vtb_percentile(s, n, 25);
	out->p75 = vtb_percentile(s, n, 75);
	out->p95 = vtb_percentile(s, n, 95);
	free(s);
	return 0;
}

void vtb_test_opts_default(struct vtb_test_opts *o)
{
	*o = (struct vtb_test_opts){ .B = 2000,
				     .seed = 1,
				     .alpha = 0.05,
				     .threshold_pct = 5,
				     .cov_limit = { 5, 5, 20 },
				     .min_n = 3 };
}

const char *vtb_verdict_name(int v)
{
	static const char *const names[] = { "better", "worse", "no significant change",
					     "too noisy", "too few boots" };

	return v >= 0 && v < (int)VTB_ARRAY_SIZE(names) ? names[v] : "?";
}

double vtb_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, mb, va, vb, se2, t, df;

	if (na < 2 || nb < 2)
		return NAN;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	se2 = va + vb;
	if (se2 == 0)
		return ma == mb ? 1 : 0;
	t = (ma - mb) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

double vtb_mwu_p(const double *a, size_t na, const double *b, size_t nb)
{
	double u = 0, mu, sd, z;

	if (!na || !nb)
		return NAN;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	mu = (double)na * (double)nb / 2;
	sd = sqrt((double)na * (double)nb * (double)(na + nb + 1) / 12);
	if (sd == 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sd;
	return z <= 0 ? 1 : 2 * gsl_cdf_ugaussian_Q(z);
}

int vtb_compare_samples(const double *base, size_t nb, const double *x, size_t nx,
			enum vtb_metric_class k, const struct vtb_test_opts *o, uint64_t row_seed,
			struct vtb_comparison *out)
{
	double mb, mx, *ratios = NULL, *rb = NULL, *rx = NULL, *ib = NULL, *ix = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->ci_low_pct = out->ci_high_pct = out->p = out->q = NAN;
	out->verdict = VTB_V_SAME;
	if (!nb || !nx)
		return vtb_error("no values to compare");
	mb = class_mean(base, nb, k);
	mx = class_mean(x, nx, k);
	out->change_pct = mb != 0 ? (mx / mb - 1) * 100 : NAN;
	if (k == VTB_MC_LATENCY) {
		out->test = "mann-whitney";
		out->p = vtb_mwu_p(base, nb, x, nx);
	} else {
		out->test = "welch";
		if (k == VTB_MC_THROUGHPUT) {
			ib = malloc(nb * sizeof(*ib));
			ix = malloc(nx * sizeof(*ix));
			if (!ib || !ix) {
				vtb_error("out of memory");
				goto out;
			}
			for (size_t i = 0; i < nb; i++)
				ib[i] = 1 / base[i];
			for (size_t i = 0; i < nx; i++)
				ix[i] = 1 / x[i];
			out->p = vtb_welch_p(ib, nb, ix, nx);
		} else {
			out->p = vtb_welch_p(base, nb, x, nx);
		}
	}
	if (o->B && mb != 0) {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

		ratios = malloc(o->B * sizeof(*ratios));
		rb = malloc(nb * sizeof(*rb));
		rx = malloc(nx * sizeof(*rx));
		if (!r || !ratios || !rb || !rx) {
			gsl_rng_free(r);
			vtb_error("out of memory");
			goto out;
		}
		gsl_rng_set(r, (unsigned long)(o->seed * 0x9e3779b97f4a7c15ull ^ row_seed));
		for (unsigned b = 0; b < o->B; b++) {
			for (size_t i = 0; i < nb; i++)
				rb[i] = base[gsl_rng_uniform_int(r, nb)];
			for (size_t i = 0; i < nx; i++)
				rx[i] = x[gsl_rng_uniform_int(r, nx)];
			ratios[b] = class_mean(rx, nx, k) / class_mean(rb, nb, k);
		}
		gsl_rng_free(r);
		gsl_sort(ratios, 1, o->B);
		out->ci_low_pct = (vtb_percentile(ratios, o->B, 2.5) - 1) * 100;
		out->ci_high_pct = (vtb_percentile(ratios, o->B, 97.5) - 1) * 100;
	}
	ret = 0;
out:
	free(ratios);
	free(rb);
	free(rx);
	free(ib);
	free(ix);
	return ret;
}

static const double *bh_p;

static int bh_cmp(const void *a, const void *b)
{
	double x = bh_p[*(const size_t *)a], y = bh_p[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

int vtb_bh(const double *p, size_t n, double *q)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), m = 0;
	double prev = 1;

	if (!idx)
		return vtb_error("out of memory");
	for (size_t i = 0; i < n; i++) {
		q[i] = NAN;
		if (!isnan(p[i]))
			idx[m++] = i;
	}
	bh_p = p;
	qsort(idx, m, sizeof(*idx), bh_cmp);
	for (size_t r = m; r-- > 0;) {
		double v = p[idx[r]] * (double)m / (double)(r + 1);

		prev = v < prev ? v : prev;
		q[idx[r]] = prev;
	}
	free(idx);
	return 0;
}

int vtb_verdict(const struct vtb_comparison *c, const struct vtb_summary *base,
		const struct vtb_summary *x, enum vtb_metric_class k, bool higher_better,
		const struct vtb_test_opts *o)
{
	if (base->n < o->min_n || x->n < o->min_n)
		return VTB_V_FEW;
	if (base->cov * 100 > o->cov_limit[k] || x->cov * 100 > o->cov_limit[k])
		return VTB_V_NOISY;
	if (isnan(c->q) || c->q >= o->alpha || isnan(c->change_pct) ||
	    fabs(c->change_pct) <= o->threshold_pct)
		return VTB_V_SAME;
	return (c->change_pct > 0) == higher_better ? VTB_V_BETTER : VTB_V_WORSE;
}
