/* SPDX-License-Identifier: MIT */
/*
 * statsref REF.json: recomputes every case of the reference document that
 * tests/tools/stats_scipy.py wrote with scipy and numpy, using
 * harness/compare/stats.c, and prints "ok - ..." or "not ok - ..." per case (the
 * lines tests/run.sh counts).  A figure matches when it is within 1e-6 of
 * scipy's (relative beyond 1; p-values relative to 1e-6 as well), or both
 * are NaN (JSON null).  Exit 1 when
 * any case fails, 2 on a bad document.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/compare/stats.h"
#include "../../common/vtbutil.h"

#define TOL 1e-6

static int failed;
static double worst_rel_p; /* largest relative error over p-values > 0 */

static double num(json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

/* A JSON array of numbers (null = NAN) as a malloc'ed vector; NULL when it
 * is not one.  An empty array gives a 1-element allocation and *n = 0. */
static double *vec(json_t *a, size_t *n)
{
	double *v;
	size_t i;

	if (!json_is_array(a))
		return NULL;
	*n = json_array_size(a);
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < *n; i++)
		v[i] = num(json_array_get(a, i));
	return v;
}

static bool near(double got, double want)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	return fabs(got - want) <= TOL * fmax(1, fabs(want));
}

/* p-values also relatively: a p of 1e-12 must not pass as 0. */
static bool near_p(double got, double want)
{
	double rel = want > 0 ? fabs(got - want) / want : 0;

	if (rel > worst_rel_p)
		worst_rel_p = rel;
	return near(got, want) && (isnan(want) || rel <= TOL);
}

static void report(bool ok, const char *kind, const char *name, const char *what, double got,
		   double want)
{
	if (ok) {
		printf("ok - %s %s\n", kind, name);
		return;
	}
	failed++;
	printf("not ok - %s %s\n# %s: got %.17g, scipy %.17g\n", kind, name, what, got, want);
}

static const char *name_of(json_t *c)
{
	const char *s = json_string_value(json_object_get(c, "name"));

	return s ? s : "?";
}

static int two_samples(json_t *c, double **a, size_t *na, double **b, size_t *nb, const char *ka,
		       const char *kb)
{
	*a = vec(json_object_get(c, ka), na);
	*b = vec(json_object_get(c, kb), nb);
	if (*a && *b)
		return 0;
	free(*a);
	free(*b);
	fprintf(stderr, "statsref: case '%s' lacks '%s' or '%s'\n", name_of(c), ka, kb);
	return -1;
}

static int check_bh(json_t *doc)
{
	json_t *c;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "bh"), i, c)
	{
		size_t np, nq;
		double *p = vec(json_object_get(c, "p"), &np);
		double *want = vec(json_object_get(c, "q"), &nq);
		double *q = calloc(np ? np : 1, sizeof(*q));
		bool ok = true;

		if (!p || !want || !q || np != nq) {
			fprintf(stderr, "statsref: bad bh case '%s'\n", name_of(c));
			return -1;
		}
		if (vtb_bh(p, np, q)) {
			fprintf(stderr, "statsref: %s\n", vtb_errmsg());
			return -1;
		}
		for (k = 0; k < np && ok; k++)
			ok = near(q[k], want[k]);
		report(ok, "bh", name_of(c), "q", k ? q[k - 1] : NAN, k ? want[k - 1] : NAN);
		free(p);
		free(q);
		free(want);
	}
	return 0;
}

static int check_percentiles(json_t *doc)
{
	json_t *c;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "percentile"), i, c)
	{
		size_t n, npct, nw;
		double *d = vec(json_object_get(c, "data"), &n);
		double *pct = vec(json_object_get(c, "pct"), &npct);
		double *want = vec(json_object_get(c, "want"), &nw);
		double got = NAN;
		bool ok = true;

		if (!d || !pct || !want || npct != nw) {
			fprintf(stderr, "statsref: bad percentile case '%s'\n", name_of(c));
			return -1;
		}
		for (k = 0; k < npct && ok; k++) {
			got = vtb_percentile(d, n, pct[k]);
			ok = near(got, want[k]);
		}
		report(ok, "percentile", name_of(c), "value", got, k ? want[k - 1] : NAN);
		free(d);
		free(pct);
		free(want);
	}
	return 0;
}

static enum vtb_metric_class class_of(json_t *c)
{
	const char *s = json_string_value(json_object_get(c, "class"));

	if (s && !strcmp(s, "throughput"))
		return VTB_MC_THROUGHPUT;
	if (s && !strcmp(s, "latency"))
		return VTB_MC_LATENCY;
	return VTB_MC_TIME;
}

static int check_summaries(json_t *doc)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(doc, "summary"), i, c)
	{
		static const struct {
			const char *key;
			size_t off;
		} fields[] = {
#define F(x) { #x, offsetof(struct vtb_summary, x) }
			F(mean), F(amean), F(median), F(stddev), F(cov), F(min),
			F(max),	 F(p5),	   F(p25),    F(p75),	 F(p95),
#undef F
		};
		json_t *w = json_object_get(c, "want");
		struct vtb_summary s;
		size_t n, k;
		double *d = vec(json_object_get(c, "data"), &n);
		bool ok;

		if (!d || !json_is_object(w)) {
			fprintf(stderr, "statsref: bad summary case '%s'\n", name_of(c));
			return -1;
		}
		if (vtb_summarise(d, n, class_of(c), &s)) {
			fprintf(stderr, "statsref: %s\n", vtb_errmsg());
			return -1;
		}
		ok = s.n == (size_t)json_integer_value(json_object_get(w, "n"));
		for (k = 0; k < sizeof(fields) / sizeof(fields[0]) && ok; k++) {
			double got = *(const double *)((const char *)&s + fields[k].off);
			double want = num(json_object_get(w, fields[k].key));

			if (!near(got, want)) {
				report(false, "summary", name_of(c), fields[k].key, got, want);
				ok = false;
				break;
			}
		}
		if (ok)
			report(true, "summary", name_of(c), "", 0, 0);
		free(d);
	}
	return 0;
}

/* The row statistic: change, p, the CI and the degrees of freedom. */
static int check_compare(json_t *doc)
{
	struct vtb_test_opts o;
	json_t *c;
	size_t i;

	vtb_test_opts_default(&o);
	json_array_foreach(json_object_get(doc, "compare"), i, c)
	{
		struct vtb_comparison r;
		double *b, *x, want_p = num(json_object_get(c, "p"));
		double want_c = num(json_object_get(c, "change_pct"));
		double want_lo = num(json_object_get(c, "ci_low_pct"));
		double want_hi = num(json_object_get(c, "ci_high_pct"));
		double want_df = num(json_object_get(c, "df"));
		size_t nb, nx;

		if (two_samples(c, &b, &nb, &x, &nx, "base", "x"))
			return -1;
		vtb_compare_samples(b, nb, x, nx, class_of(c), &o, &r);
		if (!near(r.change_pct, want_c))
			report(false, "compare", name_of(c), "change_pct", r.change_pct, want_c);
		else if (!near(r.ci_low_pct, want_lo))
			report(false, "compare", name_of(c), "ci_low_pct", r.ci_low_pct, want_lo);
		else if (!near(r.ci_high_pct, want_hi))
			report(false, "compare", name_of(c), "ci_high_pct", r.ci_high_pct, want_hi);
		else if (!near(r.df, want_df))
			report(false, "compare", name_of(c), "df", r.df, want_df);
		else
			report(near_p(r.p, want_p), "compare", name_of(c), "p", r.p, want_p);
		free(b);
		free(x);
	}
	return 0;
}

/* Which boots vtb_screen() sets aside, as the reference's list says. */
static bool same_aside(const bool *aside, size_t n, json_t *want)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!aside[i])
			continue;
		if (k >= json_array_size(want) ||
		    json_integer_value(json_array_get(want, k)) != (json_int_t)i)
			return false;
		k++;
	}
	return k == json_array_size(want);
}

/*
 * A table as compare decides it (issue 26): each side screened, the row
 * statistic of the boots kept, BH, the Benjamini-Yekutieli level and each
 * row's interval at it.
 */
static int check_tables(json_t *doc)
{
	struct vtb_test_opts o;
	json_t *t;
	size_t ti;

	vtb_test_opts_default(&o);
	json_array_foreach(json_object_get(doc, "table"), ti, t)
	{
		json_t *rows = json_object_get(t, "rows"), *c;
		size_t m = json_array_size(rows), i;
		struct vtb_comparison *r = calloc(m ? m : 1, sizeof(*r));
		double *p = calloc(m ? m : 1, sizeof(*p)), *q = calloc(m ? m : 1, sizeof(*q)), a;
		bool ok = r && p && q;
		const char *what = "memory";
		double got = NAN, want = NAN;

		json_array_foreach(rows, i, c)
		{
			double *b, *x, *kb, *kx;
			size_t nb, nx;
			bool *ab, *ax;

			if (!ok || two_samples(c, &b, &nb, &x, &nx, "base", "x")) {
				ok = false;
				break;
			}
			ab = calloc(nb + 1, sizeof(*ab));
			ax = calloc(nx + 1, sizeof(*ax));
			kb = calloc(nb + 1, sizeof(*kb));
			kx = calloc(nx + 1, sizeof(*kx));
			if (ab && ax && kb && kx) {
				vtb_screen(b, nb, o.threshold_pct, ab);
				vtb_screen(x, nx, o.threshold_pct, ax);
				if (!same_aside(ab, nb, json_object_get(c, "aside_base")) ||
				    !same_aside(ax, nx, json_object_get(c, "aside_x"))) {
					ok = false;
					what = "the boots set aside";
				}
				vtb_compare_samples(kb, vtb_screen_keep(b, nb, ab, kb), kx,
						    vtb_screen_keep(x, nx, ax, kx), class_of(c), &o,
						    &r[i]);
				p[i] = r[i].p;
			} else {
				ok = false;
			}
			free(ab);
			free(ax);
			free(kb);
			free(kx);
			free(b);
			free(x);
		}
		if (ok && vtb_bh(p, m, q) < 0)
			ok = false;
		a = ok ? vtb_fcr_level(q, m, o.alpha) : NAN;
		if (ok && !near(a, num(json_object_get(t, "level")))) {
			ok = false;
			what = "level";
			got = a;
			want = num(json_object_get(t, "level"));
		}
		json_array_foreach(rows, i, c)
		{
			if (!ok)
				break;
			vtb_set_level(&r[i], a);
			if (!near(r[i].change_pct, num(json_object_get(c, "change_pct")))) {
				what = "change_pct", got = r[i].change_pct;
				want = num(json_object_get(c, "change_pct"));
			} else if (!near(q[i], num(json_object_get(c, "q")))) {
				what = "q", got = q[i], want = num(json_object_get(c, "q"));
			} else if (!near(r[i].ci_low_pct, num(json_object_get(c, "ci_low_pct")))) {
				what = "ci_low_pct at the level", got = r[i].ci_low_pct;
				want = num(json_object_get(c, "ci_low_pct"));
			} else if (!near(r[i].ci_high_pct,
					 num(json_object_get(c, "ci_high_pct")))) {
				what = "ci_high_pct at the level", got = r[i].ci_high_pct;
				want = num(json_object_get(c, "ci_high_pct"));
			} else {
				continue;
			}
			ok = false;
		}
		report(ok, "table", name_of(t), what, got, want);
		free(r);
		free(p);
		free(q);
	}
	return 0;
}

int main(int argc, char **argv)
{
	json_error_t jerr;
	json_t *doc;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: statsref REF.json\n");
		return 2;
	}
	doc = json_load_file(argv[1], 0, &jerr);
	if (!doc) {
		fprintf(stderr, "statsref: %s: %s (line %d)\n", argv[1], jerr.text, jerr.line);
		return 2;
	}
	ret = check_bh(doc) || check_percentiles(doc) || check_summaries(doc) ||
	      check_compare(doc) || check_tables(doc);
	printf("# scipy %s, numpy %s; largest relative p-value error %.3g\n",
	       json_string_value(json_object_get(doc, "scipy")),
	       json_string_value(json_object_get(doc, "numpy")), worst_rel_p);
	json_decref(doc);
	if (ret)
		return 2;
	return failed ? 1 : 0;
}
