/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare: summaries, the log-ratio t statistic of a row
 * (estimate, CI and test from one t), Benjamini-Hochberg, the verdict of a
 * row and the boots that would decide it.  GSL does the t distribution,
 * sorting, quantiles and moments; by hand only BH and the verdict rules.
 *
 * Why t intervals and not the bootstrap: a percentile bootstrap CI of a
 * ratio of means covers the true ratio in 76-84% of seeds at n = 3 and
 * 84-90% at n = 5 (it resamples from a handful of values and uses normal,
 * not t, tails), where 95% is promised; the t interval on the log of the
 * ratio keeps 94-98% down to n = 2 for normal, lognormal and contaminated
 * data (tests/unit/test_stats.c, make bench).
 */
#include "stats.h"
#include "../evidence/evidence.h"
#include "tails.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../common/vtbutil.h"

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* "_p50", "_p99", "_p999", "_p99_9": a percentile component in a name. */
static bool has_percentile_part(const char *name)
{
	const char *s;

	for (s = strstr(name, "_p"); s; s = strstr(s + 1, "_p")) {
		const char *d = s + 2;

		if (*d < '0' || *d > '9')
			continue;
		while (*d >= '0' && *d <= '9')
			d++;
		if (!*d || *d == '_' || *d == '.')
			return true;
	}
	return false;
}

/* A tail metric's percentile and the length of its stem (the name before
 * "_pNN..." or "_max"). */
bool vtb_metric_tail(const char *m, double *pct_out, size_t *stem_out)
{
	size_t n = m ? strlen(m) : 0, e = n, d1, d2 = 0, stem0;
	double pct0, *pct = pct_out ? pct_out : &pct0;
	size_t *stem = stem_out ? stem_out : &stem0;
	char num[64];

	if (n > 4 && !strcmp(m + n - 4, "_max")) {
		*pct = 100;
		*stem = n - 4;
		return true;
	}
	/* _pDD...  or  _pDD_D... / _pDD.D... */
	while (e > 0 && m[e - 1] >= '0' && m[e - 1] <= '9')
		e--;
	d1 = n - e;
	if (d1 && e > 1 && (m[e - 1] == '_' || m[e - 1] == '.') && m[e - 2] >= '0' &&
	    m[e - 2] <= '9') {
		d2 = d1; /* the decimals */
		e--;
		while (e > 0 && m[e - 1] >= '0' && m[e - 1] <= '9')
			e--;
		d1 = n - d2 - 1 - e;
		if (d1 != 2)
			return false;
	}
	/* at least the two digits of "99" (a "_p5" would read past the name) */
	if (d1 < 2 || e < 3 || m[e - 1] != 'p' || m[e - 2] != '_' || d1 + d2 + 2 > sizeof(num))
		return false;
	if (d2) /* 99_9 -> 99.9 */
		snprintf(num, sizeof(num), "%.2s.%.*s", m + e, (int)d2, m + e + 3);
	else if (d1 == 3 && !memcmp(m + e, "100", 3))
		snprintf(num, sizeof(num), "100");
	else /* 999 -> 99.9, 9999 -> 99.99 */
		snprintf(num, sizeof(num), "%.2s.%.*s", m + e, (int)(d1 - 2), m + e + 2);
	*pct = strtod(num, NULL);
	*stem = e - 2;
	return *pct >= 99 && *pct <= 100;
}

enum vtb_metric_class vtb_metric_class(const char *metric, const char *unit)
{
	const char *m = metric ? metric : "", *u = unit ? unit : "";

	/* the scheduler's evidence: counts per second and shares that may
	 * well be 0, averaged as they are (docs/evidence.md) */
	if (vtb_evidence_metric(m))
		return VTB_MC_TIME;
	if (!strcmp(u, "us") || !strcmp(u, "ns") || !strcmp(u, "ms") || !strcmp(u, "\u00b5s") ||
	    strstr(m, "latency") || has_percentile_part(m) || has_suffix(m, "_max"))
		return VTB_MC_LATENCY;
	if (!strcmp(u, "s"))
		return VTB_MC_TIME;
	if (!strcmp(u, "rps") || !strcmp(u, "iops") || !strcasecmp(u, "hz") || has_suffix(u, "/s"))
		return VTB_MC_THROUGHPUT;
	return VTB_MC_TIME;
}

/* Per class: its name, and what its rows' change is a ratio of. */
static const struct {
	const char *name, *effect;
} metric_classes[] = {
	[VTB_MC_THROUGHPUT] = { "throughput", "ratio of harmonic means" },
	[VTB_MC_TIME] = { "time", "ratio of means" },
	[VTB_MC_LATENCY] = { "latency", "ratio of geometric means" },
};

const char *vtb_metric_class_name(enum vtb_metric_class k)
{
	return (size_t)k < VTB_ARRAY_SIZE(metric_classes) ? metric_classes[k].name : NULL;
}

const char *vtb_metric_class_effect(enum vtb_metric_class k)
{
	return (size_t)k < VTB_ARRAY_SIZE(metric_classes) ? metric_classes[k].effect : NULL;
}

const char *vtb_verdict_name(int v)
{
	static const char *const names[] = {
		[VTB_V_WORSE] = "worse", [VTB_V_BETTER] = "better",
		[VTB_V_SAME] = "same",	 [VTB_V_INCONCLUSIVE] = "inconclusive",
		[VTB_V_FEW] = "few",	 [VTB_V_MISSING] = "missing",
		[VTB_V_ERROR] = "error",
	};

	if (v < 0 || v >= VTB_V_COUNT)
		return NULL;
	return names[v];
}

void vtb_test_opts_default(struct vtb_test_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	o->threshold_pct = 5;
	o->cov_limit[VTB_MC_THROUGHPUT] = 5;
	o->cov_limit[VTB_MC_TIME] = 5;
	o->cov_limit[VTB_MC_LATENCY] = 20;
	o->min_n = 2;
}

double vtb_percentile(const double *sorted, size_t n, double pct)
{
	if (!n || !(pct >= 0 && pct <= 100))
		return NAN;
	return gsl_stats_quantile_from_sorted_data(sorted, 1, n, pct / 100);
}

/* The first non-finite value, or n. */
static size_t first_nonfinite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && isfinite(v[i]); i++)
		;
	return i;
}

/* The first value <= 0, or n. */
static size_t first_nonpositive(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v[i] > 0; i++)
		;
	return i;
}

/* As scipy.stats.hmean: 0 when a value is 0, NAN when one is negative. */
static double hmean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return NAN;
		if (v[i] == 0)
			return 0;
		s += 1 / v[i];
	}
	return n ? (double)n / s : NAN;
}

/* NAN when a value is <= 0. */
static double gmean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		s += log(v[i]);
	}
	return n ? exp(s / (double)n) : NAN;
}

int vtb_summarise(const double *v, size_t n, enum vtb_metric_class k, struct vtb_summary *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	out->mean = out->amean = out->median = out->stddev = out->cov = NAN;
	out->min = out->max = out->p5 = out->p25 = out->p75 = out->p95 = NAN;
	out->n = n;
	if (!n || first_nonfinite(v, n) < n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return vtb_error("out of memory");
	memcpy(s, v, n * sizeof(*s));
	gsl_sort(s, 1, n);
	out->amean = gsl_stats_mean(s, 1, n);
	out->mean = k == VTB_MC_THROUGHPUT ? hmean(s, n)
		    : k == VTB_MC_LATENCY  ? gmean(s, n)
					   : out->amean;
	out->median = gsl_stats_median_from_sorted_data(s, 1, n);
	/* one value has no spread: undefined, not 0 (numpy's std(ddof=1) is nan) */
	out->stddev = n > 1 ? gsl_stats_sd_m(s, 1, n, out->amean) : NAN;
	if (n < 2)
		out->cov = NAN;
	else if (out->stddev == 0)
		out->cov = 0;
	else
		out->cov = out->amean != 0 ? out->stddev / fabs(out->amean) : NAN;
	out->min = s[0];
	out->max = s[n - 1];
	out->p5 = vtb_percentile(s, n, 5);
	out->p25 = vtb_percentile(s, n, 25);
	out->p75 = vtb_percentile(s, n, 75);
	out->p95 = vtb_percentile(s, n, 95);
	free(s);
	return 0;
}

/* GSL's default error handler aborts the process (a quantile's domain
 * error would kill compare): every entry point that calls GSL turns it
 * off, and the callers check what GSL returns (NaN on an error). */
static void gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

int vtb_bh(const double *p, size_t n, double *q)
{
	double *ps = NULL, cur = INFINITY;
	size_t *idx = NULL, *order = NULL, m = 0, i;

	ps = malloc((n ? n : 1) * sizeof(*ps));
	idx = malloc((n ? n : 1) * sizeof(*idx));
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!ps || !idx || !order) {
		free(ps);
		free(idx);
		free(order);
		return vtb_error("out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!isnan(p[i])) {
			ps[m] = p[i];
			idx[m++] = i;
		}
	}
	for (i = 0; i < n; i++)
		q[i] = NAN;
	if (m) {
		gsl_sort_index(order, ps, 1, m);
		for (i = m; i-- > 0;) {
			double v = ps[order[i]] * (double)m / (double)(i + 1);

			if (v < cur)
				cur = v;
			q[idx[order[i]]] = cur > 1 ? 1 : cur;
		}
	}
	free(ps);
	free(idx);
	free(order);
	return 0;
}

/*
 * One side on the statistic's scale: its mean m (of the values, of their
 * inverses for THROUGHPUT, of their logs for LATENCY) and its per-boot
 * spread sd on the log scale: sd / m by the delta method (TIME,
 * THROUGHPUT), the sd of the logs (LATENCY).  Values were checked.
 */
static void side_moments(const double *v, size_t n, enum vtb_metric_class k, double *m, double *sd)
{
	double s = 0, ss = 0, u;
	size_t i;

	for (i = 0; i < n; i++)
		s += k == VTB_MC_THROUGHPUT ? 1 / v[i] : k == VTB_MC_LATENCY ? log(v[i]) : v[i];
	*m = s / (double)n;
	for (i = 0; i < n; i++) {
		u = (k == VTB_MC_THROUGHPUT ? 1 / v[i]
		     : k == VTB_MC_LATENCY  ? log(v[i])
					    : v[i]) -
		    *m;
		ss += u * u;
	}
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	if (k != VTB_MC_LATENCY)
		*sd /= *m;
}

static bool all_equal(const double *a, size_t na, const double *b, size_t nb)
{
	double v = na ? a[0] : nb ? b[0] : 0;
	size_t i;

	for (i = 0; i < na; i++)
		if (a[i] != v)
			return false;
	for (i = 0; i < nb; i++)
		if (b[i] != v)
			return false;
	return true;
}

static void row_error(struct vtb_comparison *c, int why, int side, size_t index)
{
	c->error = why;
	c->error_side = side;
	c->error_index = index;
}

/* Welch-Satterthwaite degrees of freedom of se^2 = a + b. */
static double welch_df(double a, size_t na, double b, size_t nb)
{
	return (a + b) * (a + b) / (a * a / (double)(na - 1) + b * b / (double)(nb - 1));
}

void vtb_compare_samples(const double *base, size_t nb, const double *x, size_t nx,
			 enum vtb_metric_class k, const struct vtb_test_opts *o,
			 struct vtb_comparison *out)
{
	size_t min_n = o->min_n > 2 ? o->min_n : 2, i;
	double mb, mx, a, b;

	gsl_quiet();
	*out = (struct vtb_comparison){ .nb = nb,
					.nx = nx,
					.change_pct = NAN,
					.ci_low_pct = NAN,
					.ci_high_pct = NAN,
					.d = NAN,
					.se = NAN,
					.df = NAN,
					.t = NAN,
					.sd_base = NAN,
					.sd_x = NAN,
					.test = k == VTB_MC_LATENCY ? "welch-log" : "log-ratio-t",
					.p = NAN,
					.q = NAN,
					.verdict = VTB_V_INCONCLUSIVE,
					.boots_needed = NAN,
					.row_low_pct = NAN,
					.row_high_pct = NAN,
					.a = o->alpha };
	if ((i = first_nonfinite(base, nb)) < nb) {
		row_error(out, VTB_RE_NONFINITE, 0, i);
		return;
	}
	if ((i = first_nonfinite(x, nx)) < nx) {
		row_error(out, VTB_RE_NONFINITE, 1, i);
		return;
	}
	if (!nb || !nx)
		return;
	/* identical constants (a count that stays 0): nothing changed */
	if (all_equal(base, nb, x, nx)) {
		out->change_pct = 0;
		if (nb < min_n || nx < min_n)
			return;
		out->d = out->se = out->t = 0;
		out->sd_base = out->sd_x = 0;
		out->ci_low_pct = out->ci_high_pct = 0;
		out->row_low_pct = out->row_high_pct = 0;
		out->p = 1;
		return;
	}
	if (k != VTB_MC_TIME) {
		if ((i = first_nonpositive(base, nb)) < nb) {
			row_error(out, VTB_RE_NONPOSITIVE, 0, i);
			return;
		}
		if ((i = first_nonpositive(x, nx)) < nx) {
			row_error(out, VTB_RE_NONPOSITIVE, 1, i);
			return;
		}
	}
	side_moments(base, nb, k, &mb, &out->sd_base);
	side_moments(x, nx, k, &mx, &out->sd_x);
	if (k == VTB_MC_TIME && !(mb > 0)) {
		row_error(out, VTB_RE_ZERO_MEAN, 0, 0);
		return;
	}
	if (k == VTB_MC_TIME && !(mx > 0)) {
		row_error(out, VTB_RE_ZERO_MEAN, 1, 0);
		return;
	}
	/* log r: r = mx / mb (means), mb / mx (means of inverses: the ratio of
	 * harmonic means), exp(mx - mb) (means of logs) */
	out->d = k == VTB_MC_LATENCY	  ? mx - mb
		 : k == VTB_MC_THROUGHPUT ? log(mb / mx)
					  : log(mx / mb);
	out->change_pct = expm1(out->d) * 100;
	if (nb < min_n || nx < min_n)
		return;
	a = out->sd_base * out->sd_base / (double)nb;
	b = out->sd_x * out->sd_x / (double)nx;
	out->se = sqrt(a + b);
	if (out->se == 0) {
		/* both sides constant, and different: as scipy, p = 0 */
		out->t = out->d > 0 ? INFINITY : -INFINITY;
		out->p = 0;
		out->ci_low_pct = out->ci_high_pct = out->change_pct;
		out->row_low_pct = out->row_high_pct = out->change_pct;
		return;
	}
	out->df = welch_df(a, nb, b, nx);
	out->t = out->d / out->se;
	out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
	vtb_set_level(out, o->alpha);
	out->row_low_pct = out->ci_low_pct;
	out->row_high_pct = out->ci_high_pct;
}

void vtb_set_level(struct vtb_comparison *c, double a)
{
	double tc, lo, hi;

	gsl_quiet();
	c->a = a;
	if (isnan(c->p))
		return;
	if (c->tail) {
		vtb_tail_interval(c->tail, a, &lo, &hi);
		c->ci_low_pct = expm1(lo) * 100;
		c->ci_high_pct = expm1(hi) * 100;
		return;
	}
	if (!(c->se > 0)) /* constant sides: the interval is the point */
		return;
	tc = gsl_cdf_tdist_Qinv(a / 2, c->df);
	c->ci_low_pct = expm1(c->d - tc * c->se) * 100;
	c->ci_high_pct = expm1(c->d + tc * c->se) * 100;
}

/* m tested (q not NAN), r of them with q < alpha. */
static void fcr_counts(const double *q, size_t n, double alpha, size_t *m, size_t *r)
{
	*m = *r = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(q[i])) {
			(*m)++;
			*r += q[i] < alpha;
		}
}

double vtb_fcr_level(const double *q, size_t n, double alpha)
{
	size_t m, r;

	fcr_counts(q, n, alpha, &m, &r);
	return m ? (double)(r ? r : 1) * alpha / (double)m : alpha;
}

double vtb_fcr_level_next(const double *q, size_t n, double alpha)
{
	size_t m, r;

	fcr_counts(q, n, alpha, &m, &r);
	return m ? (double)(r < m ? r + 1 : m) * alpha / (double)m : alpha;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorted copy in @w, which may be @v). */
static double median_of(const double *v, size_t n, double *w)
{
	if (w != v)
		memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), cmp_double);
	return n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
}

/* The screen's scale of @v: u[i] (log or value), its median and MAD;
 * false when there is none (fewer than 2 values, a non-finite one).  A
 * MAD of 0 (more than half the boots equal, as quantised percentiles
 * are) is kept: then every other value is infinitely far in robust
 * deviations, and only the threshold decides. */
static bool screen_scale(const double *v, size_t n, double *u, double *w, double *med, double *mad)
{
	bool logs = true;

	if (n < 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return false;
		logs = logs && v[i] > 0;
	}
	for (size_t i = 0; i < n; i++)
		u[i] = logs ? log(v[i]) : v[i];
	*med = median_of(u, n, w);
	for (size_t i = 0; i < n; i++)
		w[i] = fabs(u[i] - *med);
	*mad = median_of(w, n, w);
	return true;
}

/* The modified z-score of u: INFINITY off a median that more than half
 * the values share (MAD 0). */
static double mod_z(double u, double med, double mad)
{
	double d = fabs(u - med);

	if (mad > 0)
		return 0.6745 * d / mad;
	return d > 0 ? INFINITY : 0;
}

double vtb_screen_z(const double *v, size_t n, size_t i)
{
	double *u = malloc((n ? n : 1) * 2 * sizeof(*u)), med, mad, z = NAN;

	if (!u || i >= n)
		goto out;
	if (screen_scale(v, n, u, u + n, &med, &mad))
		z = mod_z(u[i], med, mad);
out:
	free(u);
	return z;
}

size_t vtb_screen_series(const double *v, size_t n, enum vtb_metric_class k, const char *metric,
			 double min_pct, bool *aside)
{
	for (size_t i = 0; i < n; i++) {
		aside[i] = false;
		/* a value the statistic cannot take makes the row an error */
		if (!isfinite(v[i]) || (k != VTB_MC_TIME && !(v[i] > 0)))
			return 0;
	}
	if (vtb_metric_tail(metric, NULL, NULL))
		return 0;
	return vtb_screen(v, n, min_pct, aside);
}

size_t vtb_screen_keep(const double *v, size_t n, const bool *aside, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!aside[i])
			out[k++] = v[i];
	return k;
}

/* Is u (on the screen's scale) beyond the cut? */
static bool screened(double u, double med, double mad, double far)
{
	return mod_z(u, med, mad) > VTB_SCREEN_Z && fabs(u - med) > far;
}

size_t vtb_screen(const double *v, size_t n, double min_pct, bool *aside)
{
	double *u, med, mad, far;
	size_t beyond = 0, cap = n / 5;
	bool logs = true;

	for (size_t i = 0; i < n; i++) {
		aside[i] = false;
		logs = logs && v[i] > 0;
	}
	if (!cap)
		return 0;
	u = malloc(n * 2 * sizeof(*u));
	if (!u || !screen_scale(v, n, u, u + n, &med, &mad)) {
		free(u); /* out of memory: nothing set aside, the plain statistic */
		return 0;
	}
	/* min_pct from the median: a factor on the log scale */
	far = logs ? log1p(fmax(min_pct, 0) / 100) : fabs(med) * fmax(min_pct, 0) / 100;
	for (size_t i = 0; i < n; i++)
		beyond += screened(u[i], med, mad, far);
	if (beyond > cap)
		beyond = 0;
	for (size_t i = 0; beyond && i < n; i++)
		aside[i] = screened(u[i], med, mad, far);
	free(u);
	return beyond;
}

double vtb_boots_needed(const struct vtb_comparison *c, const struct vtb_test_opts *o, double a_sig)
{
	double va = c->sd_base * c->sd_base, vb = c->sd_x * c->sd_x, v = va + vb, room, df1, a;
	double hi = log1p(o->threshold_pct / 100), lo = log1p(-fmin(o->threshold_pct, 99.9) / 100);
	size_t n, have = c->nb > c->nx ? c->nb : c->nx;

	gsl_quiet();
	if (!isfinite(c->d) || !isfinite(v) || v <= 0 || c->error || c->tail)
		return NAN;
	/* what the interval must clear: 0 (significance, at the level the row
	 * would face) when the estimate is beyond the threshold, else the
	 * nearer threshold (equivalence, at the table's level) */
	if (c->d > hi || c->d < lo) {
		room = fabs(c->d);
		a = a_sig;
	} else {
		room = fmin(hi - c->d, c->d - lo);
		a = c->a;
	}
	if (!(room > 0) || !(a > 0 && a < 1))
		return NAN;
	/* df(n) = (n - 1) (va + vb)^2 / (va^2 + vb^2) for n a side */
	df1 = v * v / (va * va + vb * vb);
	/* from the normal quantile up: t's is larger, so n only grows */
	n = (size_t)fmin(ceil(pow(gsl_cdf_ugaussian_Qinv(a / 2) / room, 2) * v),
			 VTB_BOOTS_NEEDED_CAP + 1.0);
	if (n < 2)
		n = 2;
	for (; n <= VTB_BOOTS_NEEDED_CAP; n++) {
		double tc = gsl_cdf_tdist_Qinv(a / 2, (double)(n - 1) * df1);

		if (tc * sqrt(v / (double)n) < room)
			return (double)(n > have ? n : have + 1);
	}
	return INFINITY;
}

int vtb_verdict(struct vtb_comparison *c, bool higher_better, const struct vtb_test_opts *o,
		double a_next)
{
	double t = o->threshold_pct, lo = c->ci_low_pct, hi = c->ci_high_pct;
	size_t min_n = o->min_n > 2 ? o->min_n : 2;
	bool up_is_worse = !higher_better;

	c->confirmed = c->possible = false;
	c->boots_needed = NAN;
	if (c->error)
		return c->verdict = VTB_V_ERROR;
	if (c->nb < min_n || c->nx < min_n || isnan(c->p))
		return c->verdict = VTB_V_FEW;
	/* significant: q < alpha and the interval leaves out 0, one condition
	 * twice when the interval is at the table's FCR level (vtb_fcr_level:
	 * BH selects exactly the rows whose p is at most the level) */
	if (c->q < o->alpha && (lo > 0 || hi < 0) && fabs(c->change_pct) > t) {
		c->verdict = (c->change_pct > 0) == up_is_worse ? VTB_V_WORSE : VTB_V_BETTER;
		c->confirmed = lo > t || hi < -t;
		return c->verdict;
	}
	if (lo >= -t && hi <= t)
		return c->verdict = VTB_V_SAME;
	c->possible = up_is_worse ? hi > t : lo < -t;
	c->boots_needed = vtb_boots_needed(c, o, a_next);
	return c->verdict = VTB_V_INCONCLUSIVE;
}
