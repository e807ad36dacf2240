/* SPDX-License-Identifier: MIT */
/*
 * Statistics of compare: summaries, Welch's t, Mann-Whitney U,
 * Benjamini-Hochberg, the bootstrap CI of a ratio of means and the verdict
 * of a row.  GSL does the distributions (t, normal), sorting, quantiles,
 * selection and random numbers; by hand only what GSL lacks (the exact
 * Mann-Whitney null distribution, BH, tie-averaged ranks).
 */
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../workloads/lib/vtbutil.h"

/* Both samples at most this size and no ties: exact Mann-Whitney p. */
#define MWU_EXACT_MAX 8

/*
 * The bootstrap's generator: L'Ecuyer's maximally equidistributed combined
 * Tausworthe (period 2^88), 32-bit outputs.  As good as mt19937 for
 * resampling and twice as fast to draw from (the draws are most of a
 * compare's time), with a 24-byte state that is cheap to seed per block.
 */
#define BOOT_RNG gsl_rng_taus2

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

enum vtb_metric_class vtb_metric_class(const char *metric, const char *unit)
{
	const char *m = metric ? metric : "", *u = unit ? unit : "";

	if (!strcmp(u, "us") || !strcmp(u, "ns") || !strcmp(u, "ms") || !strcmp(u, "\u00b5s") ||
	    strstr(m, "latency") || has_percentile_part(m) || has_suffix(m, "_max"))
		return VTB_MC_LATENCY;
	if (!strcmp(u, "s"))
		return VTB_MC_TIME;
	if (!strcmp(u, "rps") || !strcmp(u, "iops") || !strcasecmp(u, "hz") || has_suffix(u, "/s"))
		return VTB_MC_THROUGHPUT;
	return VTB_MC_TIME;
}

const char *vtb_metric_class_name(enum vtb_metric_class k)
{
	switch (k) {
	case VTB_MC_THROUGHPUT:
		return "throughput";
	case VTB_MC_TIME:
		return "time";
	case VTB_MC_LATENCY:
		return "latency";
	}
	return NULL;
}

const char *vtb_verdict_name(int v)
{
	static const char *const names[] = {
		[VTB_V_BETTER] = "better",
		[VTB_V_WORSE] = "worse",
		[VTB_V_SAME] = "no significant change",
		[VTB_V_NOISY] = "too noisy",
		[VTB_V_FEW] = "too few boots",
	};

	if (v < 0 || (size_t)v >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[v];
}

void vtb_test_opts_default(struct vtb_test_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->B = 2000;
	o->seed = 1;
	o->alpha = 0.05;
	o->threshold_pct = 5;
	o->cov_limit[VTB_MC_THROUGHPUT] = 5;
	o->cov_limit[VTB_MC_TIME] = 5;
	o->cov_limit[VTB_MC_LATENCY] = 20;
	o->min_n = 3;
	o->threads = 0;
}

double vtb_percentile(const double *sorted, size_t n, double pct)
{
	if (!n || !(pct >= 0 && pct <= 100))
		return NAN;
	return gsl_stats_quantile_from_sorted_data(sorted, 1, n, pct / 100);
}

static int check_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return vtb_error("non-finite value %g in a sample", v[i]);
	}
	return 0;
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

static double class_mean(const double *v, size_t n, enum vtb_metric_class k)
{
	if (!n)
		return NAN;
	return k == VTB_MC_THROUGHPUT ? hmean(v, n) : gsl_stats_mean(v, 1, n);
}

int vtb_summarise(const double *v, size_t n, enum vtb_metric_class k, struct vtb_summary *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (!n) {
		out->mean = out->amean = out->median = out->stddev = out->cov = NAN;
		out->min = out->max = out->p5 = out->p25 = out->p75 = out->p95 = NAN;
		return 0;
	}
	if (check_finite(v, n))
		return -1;
	s = malloc(n * sizeof(*s));
	if (!s)
		return vtb_error("out of memory");
	memcpy(s, v, n * sizeof(*s));
	gsl_sort(s, 1, n);
	out->n = n;
	out->amean = gsl_stats_mean(s, 1, n);
	out->mean = k == VTB_MC_THROUGHPUT ? hmean(s, n) : out->amean;
	out->median = gsl_stats_median_from_sorted_data(s, 1, n);
	out->stddev = n > 1 ? gsl_stats_sd_m(s, 1, n, out->amean) : 0;
	if (out->stddev == 0)
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

/* GSL's default error handler aborts the process (a p-value's underflow
 * would kill compare): every entry point here turns it off, and the
 * callers check what GSL returns (NaN on an error). */
static void gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

double vtb_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, mb, vna, vnb, df, t, p;

	gsl_quiet();
	if (na < 2 || nb < 2)
		return NAN;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	vna = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	vnb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	/* Welch-Satterthwaite; undefined when both variances are 0, where
	 * scipy takes df = 1 (t is then 0/0 or infinite, df does not matter). */
	df = (vna + vnb) * (vna + vnb) /
	     (vna * vna / (double)(na - 1) + vnb * vnb / (double)(nb - 1));
	if (isnan(df))
		df = 1;
	t = (ma - mb) / sqrt(vna + vnb);
	if (isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	p = 2 * gsl_cdf_tdist_Q(fabs(t), df);
	if (isnan(p))
		return NAN; /* GSL's error: no test rather than a wrong one */
	return p > 1 ? 1 : p;
}

/* P(U >= u) under the null for sample sizes m, n <= MWU_EXACT_MAX without
 * ties: f(i, j, k) counts the arrangements of i + j values in which U = k,
 * f(i, j, k) = f(i - 1, j, k - j) + f(i, j - 1, k) (Mann and Whitney 1947;
 * scipy's _MWU). */
static double mwu_exact_sf(size_t m, size_t n, double u)
{
	static const size_t K = MWU_EXACT_MAX * MWU_EXACT_MAX + 1;
	double f[MWU_EXACT_MAX + 1][MWU_EXACT_MAX + 1][MWU_EXACT_MAX * MWU_EXACT_MAX + 1];
	double tail = 0, total = 0;
	size_t i, j, k;

	for (i = 0; i <= m; i++) {
		for (j = 0; j <= n; j++) {
			for (k = 0; k < K; k++) {
				if (k == 0)
					f[i][j][k] = 1;
				else if (k > i * j)
					f[i][j][k] = 0;
				else
					f[i][j][k] = (k >= j ? f[i - 1][j][k - j] : 0) +
						     f[i][j - 1][k];
			}
		}
	}
	for (k = 0; k <= m * n; k++) {
		total += f[m][n][k];
		if ((double)k >= u)
			tail += f[m][n][k];
	}
	return tail / total;
}

double vtb_mwu_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, i, j, *perm = NULL;
	double *xy = NULL, r1 = 0, ties = 0, u1, u, p;

	gsl_quiet();
	if (!na || !nb)
		return NAN;
	xy = malloc(n * sizeof(*xy));
	perm = malloc(n * sizeof(*perm));
	if (!xy || !perm) {
		vtb_error("out of memory");
		p = NAN;
		goto out;
	}
	memcpy(xy, a, na * sizeof(*xy));
	memcpy(xy + na, b, nb * sizeof(*xy));
	gsl_sort_index(perm, xy, 1, n);
	/* Average ranks over each run of equal values. */
	for (i = 0; i < n; i = j) {
		double t, rank;

		for (j = i + 1; j < n && xy[perm[j]] == xy[perm[i]]; j++)
			;
		t = (double)(j - i);
		rank = (double)(i + 1 + j) / 2;
		ties += t * t * t - t;
		for (size_t k = i; k < j; k++) {
			if (perm[k] < na)
				r1 += rank;
		}
	}
	u1 = r1 - (double)na * (double)(na + 1) / 2;
	u = fmax(u1, (double)na * (double)nb - u1);
	if (na <= MWU_EXACT_MAX && nb <= MWU_EXACT_MAX && ties == 0) {
		p = 2 * mwu_exact_sf(na, nb, u);
	} else {
		double nn = (double)n;
		double s = sqrt((double)na * (double)nb / 12 * ((nn + 1) - ties / (nn * (nn - 1))));

		/* All values equal: s = 0, z = -inf, p = 1 as in scipy. */
		p = s > 0 ? 2 * gsl_cdf_ugaussian_Q((u - (double)na * (double)nb / 2 - 0.5) / s)
			  : 1;
	}

	if (p > 1)
		p = 1;
out:
	free(xy);
	free(perm);
	return p;
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

int vtb_verdict(const struct vtb_comparison *c, const struct vtb_summary *base,
		const struct vtb_summary *x, enum vtb_metric_class k, bool higher_better,
		const struct vtb_test_opts *o)
{
	double lim = o->cov_limit[k];

	if (base->n < o->min_n || x->n < o->min_n || !base->n || !x->n)
		return VTB_V_FEW;
	if (!isfinite(base->cov) || !isfinite(x->cov) || base->cov * 100 > lim ||
	    x->cov * 100 > lim)
		return VTB_V_NOISY;
	if (!(c->q < o->alpha) || !(fabs(c->change_pct) > o->threshold_pct))
		return VTB_V_SAME;
	return (c->change_pct > 0) == higher_better ? VTB_V_BETTER : VTB_V_WORSE;
}

uint64_t vtb_stats_row_seed(const char *key)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *key; key++) {
		h ^= (unsigned char)*key;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* splitmix64's finaliser: decorrelates neighbouring seeds and blocks. */
static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * taus2's state and step as GSL has them (gsl/rng/taus.c, unchanged since
 * GSL 1.0): the step inlined in the resampling loop instead of an indirect
 * call through gsl_rng_get() per draw, which was half of the bootstrap's
 * time.  GSL still seeds the state (gsl_rng_set), and taus_inline_ok()
 * checks the layout against GSL's own outputs before the inline step is
 * used, so the draws are GSL's either way.
 */
struct taus {
	unsigned long s1, s2, s3;
};

#define TAUS_MASK 0xffffffffUL
#define TAUS_STEP(s, a, b, c, d) \
	((((s) & (c)) << (d)) & TAUS_MASK) ^ (((((s) << (a)) & TAUS_MASK) ^ (s)) >> (b))

static inline uint32_t taus_next(struct taus *t)
{
	t->s1 = TAUS_STEP(t->s1, 13, 19, 4294967294UL, 12);
	t->s2 = TAUS_STEP(t->s2, 2, 25, 4294967288UL, 4);
	t->s3 = TAUS_STEP(t->s3, 3, 11, 4294967280UL, 17);
	return (uint32_t)(t->s1 ^ t->s2 ^ t->s3);
}

/* Does the inline step draw what GSL draws from a state GSL seeded? */
static bool taus_inline_ok(gsl_rng *r)
{
	struct taus t;

	if (r->type != gsl_rng_taus2 || r->type->size != sizeof(t))
		return false;
	gsl_rng_set(r, 0x5eed);
	memcpy(&t, r->state, sizeof(t));
	for (int i = 0; i < 16; i++)
		if (taus_next(&t) != gsl_rng_get(r))
			return false;
	return true;
}

struct boot_job {
	const double *b, *x; /* per-boot values, or their inverses for rates */
	size_t nb, nx;
	bool inverse;	 /* b and x hold 1/value: ratio of harmonic means */
	bool inline_rng; /* taus_inline_ok() */
	uint64_t seed;	 /* mix of the campaign and row seeds */
	unsigned B;
	double *ratio; /* [B], each block writes its own range */
	size_t blk_lo, blk_hi;
	gsl_rng rng;
};

/*
 * An index below n from one 32-bit BOOT_RNG output, by multiply and shift
 * (Lemire): gsl_rng_uniform_int() divides and may loop, which took half of
 * a 10,000-row compare.  The bias, at most n / 2^32, is far below what B
 * replicates can resolve.
 */
static inline size_t draw(const gsl_rng *r, size_t n)
{
	return (size_t)(((uint64_t)gsl_rng_get(r) * n) >> 32);
}

/* The same from the inline step. */
static inline size_t draw_inline(struct taus *t, size_t n)
{
	return (size_t)(((uint64_t)taus_next(t) * n) >> 32);
}

/* Replicates [lo, hi) from the state GSL seeded, inline: the sums are
 * taken in the same order as boot_run()'s, so the ratios are identical. */
static void boot_inline(struct boot_job *j, size_t lo, size_t hi)
{
	struct taus t;
	size_t i, k;

	memcpy(&t, j->rng.state, sizeof(t));
	for (i = lo; i < hi; i++) {
		double sb = 0, sx = 0, mb, mx;

		for (k = 0; k < j->nb; k++)
			sb += j->b[draw_inline(&t, j->nb)];
		for (k = 0; k < j->nx; k++)
			sx += j->x[draw_inline(&t, j->nx)];
		mb = sb / (double)j->nb;
		mx = sx / (double)j->nx;
		j->ratio[i] = j->inverse ? mb / mx : mx / mb;
	}
}

static void *boot_run(void *arg)
{
	struct boot_job *j = arg;
	size_t blk, i, k;

	for (blk = j->blk_lo; blk < j->blk_hi; blk++) {
		uint64_t s = mix64(j->seed ^ mix64(blk));
		size_t end = (blk + 1) * VTB_BOOT_BLOCK < j->B ? (blk + 1) * VTB_BOOT_BLOCK : j->B;

		/* taus2 takes 32 bits of seed: fold the high half in. */
		gsl_rng_set(&j->rng, (unsigned long)(s ^ (s >> 32)));
		if (j->inline_rng) {
			boot_inline(j, blk * VTB_BOOT_BLOCK, end);
			continue;
		}
		for (i = blk * VTB_BOOT_BLOCK; i < end; i++) {
			double sb = 0, sx = 0, mb, mx;

			for (k = 0; k < j->nb; k++)
				sb += j->b[draw(&j->rng, j->nb)];
			for (k = 0; k < j->nx; k++)
				sx += j->x[draw(&j->rng, j->nx)];
			mb = sb / (double)j->nb;
			mx = sx / (double)j->nx;
			/* hmean_x / hmean_b = mean(1/b) / mean(1/x) */
			j->ratio[i] = j->inverse ? mb / mx : mx / mb;
		}
	}
	return NULL;
}

/* The i-th order statistic by GSL's selection, the (i+1)-th by one pass. */
double vtb_percentile_select(double *v, size_t n, double pct)
{
	double idx = pct / 100 * (double)(n - 1), d, lo, next = INFINITY;
	size_t i, k, le = 0;

	if (!n || !(pct >= 0 && pct <= 100))
		return NAN;
	i = (size_t)idx;
	d = idx - (double)i;
	lo = gsl_stats_select(v, 1, n, i);
	if (i + 1 >= n || d == 0)
		return lo;
	for (k = 0; k < n; k++) {
		if (v[k] <= lo)
			le++;
		else if (v[k] < next)
			next = v[k];
	}
	if (le >= i + 2) /* lo repeats past position i */
		next = lo;
	return (1 - d) * lo + d * next;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* The 95% CI of the ratio of class means, as % change, into lo and hi. */
static int bootstrap(const double *b, size_t nb, const double *x, size_t nx, bool inverse,
		     const struct vtb_test_opts *o, uint64_t row_seed, double *lo, double *hi)
{
	size_t nblk = (o->B + VTB_BOOT_BLOCK - 1) / VTB_BOOT_BLOCK, nt, t, i;
	struct boot_job *jobs = NULL;
	pthread_t *tid = NULL;
	bool *started = NULL;
	double *ratio = NULL;
	int ret = -1;

	/* draw() needs full 32-bit outputs. */
	if (BOOT_RNG->min != 0 || BOOT_RNG->max != 0xffffffffUL)
		return vtb_error("bootstrap generator '%s' does not give 32-bit outputs",
				 BOOT_RNG->name);
	nt = (size_t)(o->threads > 0 ? o->threads : online_cpus());
	if (nt > nblk)
		nt = nblk;
	ratio = malloc(o->B * sizeof(*ratio));
	jobs = calloc(nt, sizeof(*jobs));
	tid = calloc(nt, sizeof(*tid));
	started = calloc(nt, sizeof(*started));
	if (!ratio || !jobs || !tid || !started) {
		vtb_error("out of memory");
		goto out;
	}
	for (t = 0; t < nt; t++) {
		struct boot_job *j = &jobs[t];

		*j = (struct boot_job){ .b = b,
					.nb = nb,
					.x = x,
					.nx = nx,
					.inverse = inverse,
					.seed = mix64(mix64(o->seed) ^ row_seed),
					.B = o->B,
					.ratio = ratio,
					.blk_lo = t * nblk / nt,
					.blk_hi = (t + 1) * nblk / nt };
		/* Our own allocation: gsl_rng_alloc() aborts through GSL's
		 * default error handler when out of memory. */
		j->rng.type = BOOT_RNG;
		j->rng.state = malloc(BOOT_RNG->size);
		if (!j->rng.state) {
			vtb_error("out of memory");
			goto out;
		}
		j->inline_rng = taus_inline_ok(&j->rng);
	}
	/* Job 0 runs here; a thread that cannot start runs here too (the
	 * blocks, not the threads, fix the random streams). */
	for (t = 1; t < nt; t++)
		started[t] = !pthread_create(&tid[t], NULL, boot_run, &jobs[t]);
	boot_run(&jobs[0]);
	for (t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			boot_run(&jobs[t]);
	}
	*lo = *hi = NAN;
	for (i = 0; i < o->B; i++) {
		if (!isfinite(ratio[i]))
			break;
	}
	if (i == o->B) {
		*lo = (vtb_percentile_select(ratio, o->B, 2.5) - 1) * 100;
		*hi = (vtb_percentile_select(ratio, o->B, 97.5) - 1) * 100;
	}
	ret = 0;
out:
	for (t = 0; jobs && t < nt; t++)
		free(jobs[t].rng.state);
	free(jobs);
	free(tid);
	free(started);
	free(ratio);
	return ret;
}

static bool all_positive(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return false;
	}
	return true;
}

static double *inverses(const double *v, size_t n)
{
	double *r = malloc((n ? n : 1) * sizeof(*r));
	size_t i;

	if (!r) {
		vtb_error("out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++)
		r[i] = 1 / v[i];
	return r;
}

int vtb_compare_samples(const double *base, size_t nb, const double *x, size_t nx,
			enum vtb_metric_class k, const struct vtb_test_opts *o, uint64_t row_seed,
			struct vtb_comparison *out)
{
	size_t min_n = o->min_n > 2 ? o->min_n : 2;
	bool rate = k == VTB_MC_THROUGHPUT;
	double *ib = NULL, *ix = NULL, mb, mx;

	gsl_quiet();
	int ret = -1;

	*out = (struct vtb_comparison){ .change_pct = NAN,
					.ci_low_pct = NAN,
					.ci_high_pct = NAN,
					.test = k == VTB_MC_LATENCY ? "mann-whitney" : "welch",
					.p = NAN,
					.q = NAN,
					.verdict = VTB_V_SAME };
	if (check_finite(base, nb) || check_finite(x, nx))
		return -1;
	mb = class_mean(base, nb, k);
	mx = class_mean(x, nx, k);
	if (mb != 0 && isfinite(mb) && isfinite(mx))
		out->change_pct = (mx / mb - 1) * 100;
	if (nb < min_n || nx < min_n)
		return 0;
	if (k == VTB_MC_LATENCY) {
		out->p = vtb_mwu_p(base, nb, x, nx);
	} else if (!rate) {
		out->p = vtb_welch_p(base, nb, x, nx);
	} else {
		/* Rates: Welch on 1/x, and the bootstrap on 1/x too (the ratio
		 * of harmonic means); a rate <= 0 has no inverse to test. */
		if (!all_positive(base, nb) || !all_positive(x, nx))
			return 0;
		ib = inverses(base, nb);
		ix = inverses(x, nx);
		if (!ib || !ix)
			goto out;
		out->p = vtb_welch_p(ib, nb, ix, nx);
	}
	if (o->B && isfinite(out->change_pct) &&
	    bootstrap(rate ? ib : base, nb, rate ? ix : x, nx, rate, o, row_seed, &out->ci_low_pct,
		      &out->ci_high_pct))
		goto out;
	ret = 0;
out:
	free(ib);
	free(ix);
	return ret;
}

struct rows_ctx {
	struct vtb_row_job *rows;
	size_t n;
	struct vtb_test_opts o; /* threads = 1: the rows are the parallelism */
	atomic_size_t next;
	atomic_bool failed;
	pthread_mutex_t lock;
	char *err; /* the first failure's message (vtb_error() is per thread) */
};

static void *rows_run(void *arg)
{
	struct rows_ctx *c = arg;
	size_t i;

	while (!atomic_load(&c->failed) && (i = atomic_fetch_add(&c->next, 1)) < c->n) {
		struct vtb_row_job *r = &c->rows[i];

		if (vtb_compare_samples(r->base, r->nb, r->x, r->nx, r->k, &c->o, r->row_seed,
					&r->out)) {
			pthread_mutex_lock(&c->lock);
			if (!atomic_load(&c->failed)) {
				c->err = strdup(vtb_errmsg());
				atomic_store(&c->failed, true);
			}
			pthread_mutex_unlock(&c->lock);
		}
	}
	return NULL;
}

int vtb_compare_rows(struct vtb_row_job *rows, size_t n, const struct vtb_test_opts *o)
{
	struct rows_ctx c = { .rows = rows, .n = n, .o = *o };
	size_t nt = (size_t)(o->threads > 0 ? o->threads : online_cpus()), t;
	pthread_t *tid;
	bool *started;
	int ret = 0;

	gsl_quiet();

	if (nt > n)
		nt = n ? n : 1;
	c.o.threads = 1;
	atomic_init(&c.next, 0);
	atomic_init(&c.failed, false);
	tid = calloc(nt, sizeof(*tid));
	started = calloc(nt, sizeof(*started));
	if (!tid || !started) {
		free(tid);
		free(started);
		return vtb_error("out of memory");
	}
	pthread_mutex_init(&c.lock, NULL);
	/* A thread that cannot start leaves its rows to the others. */
	for (t = 1; t < nt; t++)
		started[t] = !pthread_create(&tid[t], NULL, rows_run, &c);
	rows_run(&c);
	for (t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
	}
	pthread_mutex_destroy(&c.lock);
	if (atomic_load(&c.failed))
		ret = vtb_error("%s", c.err ? c.err : "out of memory");
	free(c.err);
	free(tid);
	free(started);
	return ret;
}
