/* SPDX-License-Identifier: MIT */
/*
 * A row per pair: both sides summarised, one vtb_compare_samples() per
 * row with both sides, Benjamini-Hochberg over every tested row of the
 * table, a verdict per row; a missing or units row says why, naming the
 * side (its label, and its campaign across campaigns).  Then the table's
 * counts, and every series of the main campaign with its summary.
 */
#include <stdlib.h>
#include <string.h>

#include "compare-priv.h"

static json_t *summary_json(const struct vtb_summary *m)
{
	json_t *o = json_object();
	bool fail = !o;

	if (fail)
		return NULL;
	put(o, "n", json_integer((json_int_t)m->n), &fail);
	put(o, "mean", jreal(m->mean), &fail);
	put(o, "amean", jreal(m->amean), &fail);
	put(o, "median", jreal(m->median), &fail);
	put(o, "stddev", jreal(m->stddev), &fail);
	put(o, "cov", jreal(m->cov), &fail);
	put(o, "min", jreal(m->min), &fail);
	put(o, "max", jreal(m->max), &fail);
	put(o, "p5", jreal(m->p5), &fail);
	put(o, "p25", jreal(m->p25), &fail);
	put(o, "p75", jreal(m->p75), &fail);
	put(o, "p95", jreal(m->p95), &fail);
	if (fail) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int series_summarise(struct series *s)
{
	if (s->summed)
		return 0;
	if (vtb_summarise(s->v, s->n, s->k, &s->sum) < 0)
		return -1;
	s->jsum = summary_json(&s->sum);
	s->jvalues = json_array();
	if (!s->jsum || !s->jvalues)
		return vtb_error("out of memory");
	for (size_t i = 0; i < s->n; i++)
		if (json_array_append_new(s->jvalues, jreal(s->v[i])))
			return vtb_error("out of memory");
	s->summed = true;
	return 0;
}

static json_t *side_json(const struct series *s, const char *campaign)
{
	json_t *o = json_object();
	bool fail = !o;

	if (fail)
		return NULL;
	put(o, "config", json_string(s->config_key), &fail);
	put(o, "campaign", json_string(campaign), &fail);
	put(o, "summary", json_incref(s->jsum), &fail);
	put(o, "values", json_incref(s->jvalues), &fail);
	if (fail) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A side without a series: its configuration, no values. */
static json_t *empty_side_json(const char *config_key, const char *campaign)
{
	struct vtb_summary none;
	json_t *o = json_object();
	bool fail = !o;

	if (fail)
		return NULL;
	vtb_summarise(NULL, 0, VTB_MC_TIME, &none);
	put(o, "config", json_string(config_key), &fail);
	put(o, "campaign", json_string(campaign), &fail);
	put(o, "summary", summary_json(&none), &fail);
	put(o, "values", json_array(), &fail);
	if (fail) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A configuration as a row's reason names it: its label, and with
 * --against the campaign it belongs to. */
static char *side_name(const struct campaign *c, const char *config_key, bool cross)
{
	long i = cm_config_index(c, config_key);
	const char *label = i >= 0 ? c->c[i].label : config_key;

	return cross ? vtb_asprintf("'%s' of campaign %.8s", label, c->uuid)
		     : vtb_asprintf("'%s'", label);
}

/* Why a side has no value of @metric (NULL: of any metric) in its cell;
 * NULL with vtb_error() on a failure. */
static char *why_missing(const struct campaign *c, const struct cellinfo *ci, const char *metric,
			 bool cross)
{
	struct vtb_cell_outcome oc;
	char *who, *r;

	if (vtb_store_cell_outcome(c->st, c->id, ci->config_key, ci->cell_key, &oc) < 0)
		return NULL;
	who = side_name(c, ci->config_key, cross);
	if (!who)
		r = NULL;
	else if (!oc.results)
		r = vtb_asprintf("no boot of %s is stored", who);
	else if (!oc.usable && oc.unexpected == oc.results)
		r = vtb_asprintf("every boot of %s (%ld) built another topology than planned "
				 "(unexpected-topology)",
				 who, oc.results);
	else if (!oc.usable && oc.results == 1)
		r = vtb_asprintf("%s failed in its only boot%s%s%s", who,
				 oc.unexpected ? " (unexpected-topology)" : "",
				 oc.error ? ": " : "", oc.error ? oc.error : "");
	else if (!oc.usable)
		r = vtb_asprintf("%s failed in all %ld boots%s%s%s", who, oc.results,
				 oc.unexpected ? " (some unexpected-topology)" : "",
				 oc.error ? ": " : "", oc.error ? oc.error : "");
	else if (metric)
		r = vtb_asprintf("%s reported no '%s' in %ld ok boot%s", who, metric, oc.usable,
				 oc.usable == 1 ? "" : "s");
	else
		r = vtb_asprintf("%s reported nothing in %ld ok boot%s", who, oc.usable,
				 oc.usable == 1 ? "" : "s");
	if (!r && who)
		vtb_error("out of memory");
	free(who);
	free(oc.error);
	return r;
}

/* Why the statistic cannot be taken (a row-level error). */
static char *why_error(const struct vtb_comparison *c, const struct series *b,
		       const struct series *x, const struct campaign *bc, const struct campaign *xc,
		       bool cross)
{
	const struct series *s = c->error_side ? x : b;
	char *who = side_name(c->error_side ? xc : bc, s->config_key, cross), *r = NULL;
	double v = c->error_index < s->n ? s->v[c->error_index] : NAN;
	int rep = c->error_index < s->n ? s->rep[c->error_index] : -1;

	if (!who)
		return NULL;
	switch (c->error) {
	case VTB_RE_NONFINITE:
		r = vtb_asprintf("a value that is not a number (%g) in boot %d of %s", v, rep, who);
		break;
	case VTB_RE_NONPOSITIVE:
		r = vtb_asprintf("%s of %g in boot %d of %s: the %s needs values above 0",
				 s->k == VTB_MC_THROUGHPUT ? "a rate" : "a latency", v, rep, who,
				 vtb_metric_class_effect(s->k));
		break;
	case VTB_RE_ZERO_MEAN:
		r = vtb_asprintf("the mean of %s is %g: a relative change is not defined", who,
				 s->sum.amean);
		break;
	}
	free(who);
	return r;
}

/* Units of a metric that differ between the sides, or within one. */
static char *why_units(const struct pair *pr, const struct campaign *bc, const struct campaign *xc,
		       bool cross)
{
	const struct cellinfo *B = &bc->ci[pr->bci], *X = &xc->ci[pr->xci];
	const char *m = xc->s[pr->x].metric;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *bw = side_name(bc, B->config_key, cross), *xw = side_name(xc, X->config_key, cross);
	bool err = !bw || !xw;

	err |= vtb_strbuf_addf(&sb, "units of '%s' differ:", m) < 0;
	for (size_t k = X->lo; k < X->hi; k++)
		if (!strcmp(xc->s[k].metric, m))
			err |= vtb_strbuf_addf(&sb, " '%s'", xc->s[k].unit) < 0;
	err |= vtb_strbuf_addf(&sb, " in %s,", xw ? xw : "?") < 0;
	for (size_t k = B->lo; k < B->hi; k++)
		if (!strcmp(bc->s[k].metric, m))
			err |= vtb_strbuf_addf(&sb, " '%s'", bc->s[k].unit) < 0;
	err |= vtb_strbuf_addf(&sb, " in %s: values in other units are not comparable",
			       bw ? bw : "?") < 0;
	free(bw);
	free(xw);
	if (err) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

static bool noisy(const struct series *s, const struct vtb_test_opts *o)
{
	return s && s->sum.n > 1 && !(s->sum.cov * 100 <= o->cov_limit[s->k]);
}

/* Each row with both sides tested: every pair's series summarised, the
 * statistic in cmp[], its p-value in p[] (NaN for a row not tested). */
static int test_rows(struct campaign *bc, struct campaign *xc, const struct pairs *ps,
		     const struct vtb_test_opts *t, struct vtb_comparison *cmp, double *p)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct pair *pr = &ps->p[i];
		struct series *b = pr->b >= 0 ? &bc->s[pr->b] : NULL;
		struct series *x = pr->x >= 0 ? &xc->s[pr->x] : NULL;

		if ((b && series_summarise(b) < 0) || (x && series_summarise(x) < 0))
			return -1;
		p[i] = NAN;
		if (pr->kind != P_OK)
			continue;
		vtb_compare_samples(b->v, b->n, x->v, x->n, x->k, t, &cmp[i]);
		p[i] = cmp[i].p;
	}
	return 0;
}

/* A row being built: its pair's cells and series (NULL: none on that
 * side; any: x's, else b's), its statistic and why it has none. */
struct row {
	const struct pair *pr;
	const struct cellinfo *B, *X;
	struct series *b, *x;
	const struct series *any;
	struct vtb_comparison *c;
	char *reason;
	bool noisy;
};

/* Why both sides, or one, have no value of the row's metric. */
static char *why_missing_row(const struct row *rw, const struct campaign *bc,
			     const struct campaign *xc, bool cross)
{
	const char *m = rw->any ? rw->any->metric : NULL;
	char *rb = rw->b ? NULL : why_missing(bc, rw->B, m, cross);
	char *rx = rw->x ? NULL : why_missing(xc, rw->X, m, cross);
	char *r = NULL;

	if ((!rw->b && !rb) || (!rw->x && !rx))
		goto out;
	r = rb && rx ? vtb_asprintf("%s; %s", rx, rb) : vtb_strdup(rb ? rb : rx);
	if (!r)
		vtb_error("out of memory");
out:
	free(rb);
	free(rx);
	return r;
}

/* The row's verdict, @q its q-value; rw->reason for an error or missing
 * row.  -1 with vtb_error(): the store, or memory. */
static int row_verdict(struct row *rw, const struct campaign *bc, const struct campaign *xc,
		       double q, const struct vtb_test_opts *t, bool cross)
{
	struct vtb_comparison *c = rw->c;

	if (rw->pr->kind == P_OK) {
		c->q = q;
		vtb_verdict(c, rw->x->better != 0, t);
		if (c->verdict != VTB_V_ERROR)
			return 0;
		rw->reason = why_error(c, rw->b, rw->x, bc, xc, cross);
		return rw->reason ? 0 : vtb_error("out of memory");
	}
	*c = (struct vtb_comparison){ .change_pct = NAN,
				      .ci_low_pct = NAN,
				      .ci_high_pct = NAN,
				      .p = NAN,
				      .q = NAN,
				      .boots_needed = NAN };
	if (rw->pr->kind == P_UNITS) {
		c->verdict = VTB_V_ERROR;
		rw->reason = why_units(rw->pr, bc, xc, cross);
		return rw->reason ? 0 : vtb_error("out of memory");
	}
	c->verdict = VTB_V_MISSING;
	rw->reason = why_missing_row(rw, bc, xc, cross);
	return rw->reason ? 0 : -1;
}

/* The row's members, in the document's order. */
static void row_json(json_t *r, const struct row *rw, const struct campaign *bc,
		     const struct campaign *xc, const struct vtb_compare_opts *o, bool *fail)
{
	const struct series *any = rw->any, *b = rw->b, *x = rw->x;
	const struct vtb_comparison *c = rw->c;

	put(r, "workload", json_string(rw->X->workload), fail);
	put(r, "cell", json_string(rw->X->cell_name), fail);
	put(r, "cell_key", json_string(rw->X->cell_key), fail);
	put(r, "metric", any ? json_string(any->metric) : json_null(), fail);
	put(r, "unit", any ? json_string(any->unit) : json_null(), fail);
	put(r, "class", any ? json_string(vtb_metric_class_name(any->k)) : json_null(), fail);
	put(r, "better", any ? json_string(any->better ? "higher" : "lower") : json_null(), fail);
	put(r, "base", b ? side_json(b, bc->uuid) : empty_side_json(rw->B->config_key, bc->uuid),
	    fail);
	put(r, "x", x ? side_json(x, xc->uuid) : empty_side_json(rw->X->config_key, xc->uuid),
	    fail);
	put(r, "effect", any ? json_string(vtb_metric_class_effect(any->k)) : json_null(), fail);
	put(r, "change_pct", jreal(c->change_pct), fail);
	put(r, "ci_low_pct", jreal(c->ci_low_pct), fail);
	put(r, "ci_high_pct", jreal(c->ci_high_pct), fail);
	put(r, "test", rw->pr->kind == P_OK ? jstr(c->test) : json_null(), fail);
	put(r, "df", jreal(c->df), fail);
	put(r, "p", jreal(c->p), fail);
	put(r, "q", jreal(c->q), fail);
	put(r, "significant", json_boolean(!isnan(c->q) && c->q < o->test.alpha), fail);
	put(r, "verdict", json_string(vtb_verdict_name(c->verdict)), fail);
	put(r, "confirmed", json_boolean(c->confirmed), fail);
	put(r, "possible", json_boolean(c->possible), fail);
	put(r, "boots_needed",
	    isfinite(c->boots_needed) ? json_integer((json_int_t)c->boots_needed) : json_null(),
	    fail);
	put(r, "noisy", json_boolean(rw->noisy), fail);
	put(r, "reason", jstr(rw->reason), fail);
}

/* The table's counts: rows, per verdict, confirmed, possible, noisy. */
struct counts {
	size_t verdict[VTB_V_COUNT], confirmed, possible, noisy;
};

static json_t *counts_json(const struct counts *n, size_t rows)
{
	json_t *sum = json_object();
	bool fail = !sum;

	put(sum, "rows", json_integer((json_int_t)rows), &fail);
	for (int v = 0; v < VTB_V_COUNT; v++)
		put(sum, vtb_verdict_name(v), json_integer((json_int_t)n->verdict[v]), &fail);
	put(sum, "confirmed", json_integer((json_int_t)n->confirmed), &fail);
	put(sum, "possible", json_integer((json_int_t)n->possible), &fail);
	put(sum, "noisy", json_integer((json_int_t)n->noisy), &fail);
	if (fail) {
		json_decref(sum);
		return NULL;
	}
	return sum;
}

int cm_build_rows(struct campaign *bc, struct campaign *xc, const struct pairs *ps,
		  const struct vtb_compare_opts *o, bool cross, json_t *doc)
{
	struct vtb_comparison *cmp = calloc(ps->n ? ps->n : 1, sizeof(*cmp));
	double *p = calloc(ps->n ? ps->n : 1, sizeof(*p)),
	       *q = calloc(ps->n ? ps->n : 1, sizeof(*q));
	struct counts n = { .confirmed = 0 };
	json_t *rows = json_array();
	bool fail = !rows;
	int ret = -1;

	if (!cmp || !p || !q || fail) {
		vtb_error("out of memory");
		goto out;
	}
	if (test_rows(bc, xc, ps, &o->test, cmp, p) < 0 || vtb_bh(p, ps->n, q) < 0)
		goto out;
	for (size_t i = 0; i < ps->n && !fail; i++) {
		const struct pair *pr = &ps->p[i];
		struct row rw = { .pr = pr,
				  .B = &bc->ci[pr->bci],
				  .X = &xc->ci[pr->xci],
				  .b = pr->b >= 0 ? &bc->s[pr->b] : NULL,
				  .x = pr->x >= 0 ? &xc->s[pr->x] : NULL,
				  .c = &cmp[i] };
		json_t *r;

		rw.any = rw.x ? rw.x : rw.b;
		rw.noisy = noisy(rw.b, &o->test) || noisy(rw.x, &o->test);
		if (row_verdict(&rw, bc, xc, q[i], &o->test, cross) < 0)
			goto out;
		n.verdict[rw.c->verdict]++;
		n.confirmed += rw.c->confirmed;
		n.possible += rw.c->possible;
		n.noisy += rw.noisy;
		r = json_object();
		push(rows, r, &fail);
		if (!fail)
			row_json(r, &rw, bc, xc, o, &fail);
		free(rw.reason);
	}
	put(doc, "rows", rows, &fail);
	rows = NULL;
	put(doc, "summary", counts_json(&n, ps->n), &fail);
	if (fail) {
		vtb_error("out of memory");
		goto out;
	}
	ret = 0;
out:
	json_decref(rows);
	free(cmp);
	free(p);
	free(q);
	return ret;
}

/* Every series of the main campaign with its summary: what a table of
 * one campaign shows, compared or not (a campaign of baselines only has
 * no rows). */
int cm_build_series(struct campaign *c, json_t *doc)
{
	json_t *a = json_array();
	bool fail = !a;

	for (size_t i = 0; i < c->n && !fail; i++) {
		struct series *s = &c->s[i];
		json_t *o = json_object();

		if (series_summarise(s) < 0) {
			json_decref(o);
			json_decref(a);
			return -1;
		}
		push(a, o, &fail);
		if (fail)
			break;
		put(o, "config", json_string(s->config_key), &fail);
		put(o, "label", json_string(s->label), &fail);
		put(o, "kind", json_string(s->kind), &fail);
		put(o, "campaign", json_string(c->uuid), &fail);
		put(o, "workload", json_string(s->workload), &fail);
		put(o, "cell", json_string(s->cell_name), &fail);
		put(o, "cell_key", json_string(s->cell_key), &fail);
		put(o, "metric", json_string(s->metric), &fail);
		put(o, "unit", json_string(s->unit), &fail);
		put(o, "class", json_string(vtb_metric_class_name(s->k)), &fail);
		put(o, "better", json_string(s->better ? "higher" : "lower"), &fail);
		put(o, "summary", json_incref(s->jsum), &fail);
	}
	put(doc, "series", a, &fail);
	return fail ? vtb_error("out of memory") : 0;
}
