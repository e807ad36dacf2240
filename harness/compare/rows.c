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
#include "tails.h"
#include "../../common/index.h"

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

/* The series' screen (unless --no-robust, a tail, or a value the
 * statistic cannot take) and its summary over the values kept, once; its
 * JSON is made each time a row or the series section writes it. */
static int series_summarise(struct series *s, const struct vtb_test_opts *t)
{
	if (s->summed)
		return 0;
	s->kv = s->v;
	s->kn = s->n;
	if (!t->plain) {
		s->aside = calloc(s->n ? s->n : 1, sizeof(*s->aside));
		if (!s->aside)
			return vtb_error("out of memory");
		s->naside = vtb_screen_series(s->v, s->n, s->k, s->metric, t->threshold_pct,
					      s->aside);
	}
	if (s->naside) {
		s->kv = malloc(s->n * sizeof(*s->kv));
		if (!s->kv)
			return vtb_error("out of memory");
		s->kn = vtb_screen_keep(s->v, s->n, s->aside, s->kv);
	}
	if (vtb_summarise(s->kv, s->kn, s->k, &s->sum) < 0)
		return -1;
	s->summed = true;
	return 0;
}

/* The boots of @s set aside: [{"rep", "boot", "value", "z", "ratio",
 * "why"}] (ratio: the value over the median of the boots kept; z null
 * when more than half the side share one value). */
static json_t *aside_json(const struct series *s)
{
	json_t *a = json_array();
	bool fail = !a;

	for (size_t i = 0; s->naside && !fail && i < s->n; i++) {
		double z, ratio;
		char *why;

		if (!s->aside[i])
			continue;
		z = vtb_screen_z(s->v, s->n, i);
		ratio = s->sum.median != 0 ? s->v[i] / s->sum.median : NAN;
		if (isinf(z))
			why = vtb_asprintf(
				"%.3gx the median of the other boots, most of which share one value",
				ratio);
		else
			why = vtb_asprintf(
				"%.3gx the median of the other boots, %.3g robust deviations (modified z) from it",
				ratio, z);
		push(a,
		     why ? json_pack("{s:i, s:I, s:o, s:o, s:o, s:s}", "rep", s->rep[i], "boot",
				     (json_int_t)s->boot[i], "value", jreal(s->v[i]), "z", jreal(z),
				     "ratio", jreal(ratio), "why", why)
			 : NULL,
		     &fail);
		free(why);
	}
	if (fail) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *values_json(const struct series *s)
{
	json_t *a = json_array();
	bool fail = !a;

	for (size_t i = 0; i < s->n && !fail; i++)
		push(a, jreal(s->v[i]), &fail);
	if (fail) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *side_json(const struct series *s, const char *campaign)
{
	json_t *o = json_object();
	bool fail = !o;

	if (fail)
		return NULL;
	put(o, "config", json_string(s->config_key), &fail);
	put(o, "campaign", json_string(campaign), &fail);
	put(o, "summary", summary_json(&s->sum), &fail);
	put(o, "values", values_json(s), &fail);
	put(o, "set_aside", aside_json(s), &fail);
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
	put(o, "set_aside", json_array(), &fail);
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

/* Each row's tail test, when it has one (freed by tails_release). */
struct tails {
	struct cm_tails *b, *x; /* the campaigns' histograms (x may be b) */
	struct vtb_tail *t;	/* per row */
	char **note;		/* per row: why a tail metric had no tail test */
	size_t n;
};

static void tails_release(struct tails *tl)
{
	for (size_t i = 0; tl->t && i < tl->n; i++) {
		vtb_tail_release(&tl->t[i]);
		free(tl->note[i]);
	}
	free(tl->t);
	free(tl->note);
	if (tl->x != tl->b)
		cm_tails_free(tl->x);
	cm_tails_free(tl->b);
}

/* Boots a side the tail test needs: with fewer, every candidate boot's
 * own percentile above every baseline boot's happens by chance in 2 /
 * C(2n, n) of rows without a change (1/3 at n = 2, 1/35 at 4, 1/126 at
 * 5), and then every replicate agrees: p = 0. */
#define TAIL_MIN_BOOTS 5

/* The campaigns' histograms, read the first time a row needs them. */
static int tails_of(struct tails *tl, struct campaign *bc, struct campaign *xc)
{
	if (tl->b)
		return 0;
	if (cm_tails_load(bc->st, bc, &tl->b) < 0)
		return -1;
	if (xc == bc)
		tl->x = tl->b;
	else if (cm_tails_load(xc->st, xc, &tl->x) < 0)
		return -1;
	return 0;
}

/*
 * A tail row (p99 and above, _max) judged on the pooled histograms of its
 * boots (tails.h): 1 when it was (@c filled), 0 when it has no tail test
 * (the per-boot statistic then; tl->note[i] says why for a tail metric),
 * -1 with vtb_error().
 */
static int tail_row(struct tails *tl, size_t i, struct campaign *bc, struct campaign *xc,
		    const struct series *b, const struct series *x, const struct vtb_test_opts *t,
		    struct vtb_comparison *c)
{
	struct vtb_tail *tt = &tl->t[i];
	int r;

	if (x->k != VTB_MC_LATENCY || !vtb_metric_tail(x->metric, NULL, NULL))
		return 0;
	if (t->plain) {
		tl->note[i] = vtb_strdup("--no-robust: judged on one value per boot");
		return tl->note[i] ? 0 : vtb_error("out of memory");
	}
	if (b->n < TAIL_MIN_BOOTS || x->n < TAIL_MIN_BOOTS) {
		tl->note[i] = vtb_asprintf("%zu boots against %zu: the pooled test needs %d a side",
					   x->n, b->n, TAIL_MIN_BOOTS);
		return tl->note[i] ? 0 : vtb_error("out of memory");
	}
	if (tails_of(tl, bc, xc) < 0)
		return -1;
	r = cm_tail_row(tl->b, b, tl->x, x, t->alpha, tt, &tl->note[i]);
	if (r <= 0)
		return r;
	if (!isfinite(tt->d)) {
		/* a side without a value (or a pooled 0): the per-boot statistic */
		tl->note[i] = vtb_asprintf("the pooled histograms give no ratio (%g)", tt->d);
		vtb_tail_release(tt);
		return tl->note[i] ? 0 : vtb_error("out of memory");
	}
	*c = (struct vtb_comparison){ .nb = b->n,
				      .nx = x->n,
				      .change_pct = expm1(tt->d) * 100,
				      .ci_low_pct = NAN,
				      .ci_high_pct = NAN,
				      .row_low_pct = NAN,
				      .row_high_pct = NAN,
				      .d = tt->d,
				      .se = NAN,
				      .df = NAN,
				      .t = NAN,
				      .sd_base = NAN,
				      .sd_x = NAN,
				      .test = "pooled-boot-bootstrap",
				      .p = tt->p,
				      .q = NAN,
				      .a = t->alpha,
				      .verdict = VTB_V_INCONCLUSIVE,
				      .boots_needed = NAN,
				      .tail = tt };
	vtb_set_level(c, t->alpha);
	c->row_low_pct = c->ci_low_pct;
	c->row_high_pct = c->ci_high_pct;
	return 1;
}

/* Each row with both sides tested: every pair's series summarised, the
 * statistic in cmp[], its p-value in p[] (NaN for a row not tested). */
static int test_rows(struct campaign *bc, struct campaign *xc, const struct pairs *ps,
		     const struct vtb_test_opts *t, struct tails *tl, struct vtb_comparison *cmp,
		     double *p)
{
	tl->t = calloc(ps->n ? ps->n : 1, sizeof(*tl->t));
	tl->note = calloc(ps->n ? ps->n : 1, sizeof(*tl->note));
	if (!tl->t || !tl->note)
		return vtb_error("out of memory");
	tl->n = ps->n;
	for (size_t i = 0; i < ps->n; i++) {
		const struct pair *pr = &ps->p[i];
		struct series *b = pr->b >= 0 ? &bc->s[pr->b] : NULL;
		struct series *x = pr->x >= 0 ? &xc->s[pr->x] : NULL;
		int r;

		if ((b && series_summarise(b, t) < 0) || (x && series_summarise(x, t) < 0))
			return -1;
		p[i] = NAN;
		if (pr->kind != P_OK)
			continue;
		r = tail_row(tl, i, bc, xc, b, x, t, &cmp[i]);
		if (r < 0)
			return -1;
		if (!r)
			vtb_compare_samples(b->kv, b->kn, x->kv, x->kn, x->k, t, &cmp[i]);
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
	const char *tail_note; /* a tail metric judged per boot: why */
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

/* The level of a table's intervals and the level a row not yet
 * significant would face (the next BH step). */
struct level {
	double a, a_next;
};

/* The row's verdict, @q its q-value, its interval at level @lv->a;
 * rw->reason for an error or missing row.  -1 with vtb_error(): the
 * store, or memory. */
static int row_verdict(struct row *rw, const struct campaign *bc, const struct campaign *xc,
		       double q, const struct level *lv, const struct vtb_test_opts *t, bool cross)
{
	struct vtb_comparison *c = rw->c;

	if (rw->pr->kind == P_OK) {
		c->q = q;
		vtb_set_level(c, lv->a);
		vtb_verdict(c, rw->x->better != 0, t, lv->a_next);
		if (c->verdict != VTB_V_ERROR)
			return 0;
		rw->reason = why_error(c, rw->b, rw->x, bc, xc, cross);
		return rw->reason ? 0 : vtb_error("out of memory");
	}
	*c = (struct vtb_comparison){ .change_pct = NAN,
				      .ci_low_pct = NAN,
				      .ci_high_pct = NAN,
				      .row_low_pct = NAN,
				      .row_high_pct = NAN,
				      .a = lv->a,
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
	put(r, "ci_level", jreal(isnan(c->ci_low_pct) ? NAN : 1 - c->a), fail);
	put(r, "row_ci_low_pct", jreal(c->row_low_pct), fail);
	put(r, "row_ci_high_pct", jreal(c->row_high_pct), fail);
	put(r, "test",
	    rw->pr->kind != P_OK ? json_null() : jstr(c->tail ? "pooled-boot-bootstrap" : c->test),
	    fail);
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
	/* beyond the cap: null above, and how far it was looked */
	put(r, "boots_needed_over",
	    isinf(c->boots_needed) ? json_integer(VTB_BOOTS_NEEDED_CAP) : json_null(), fail);
	put(r, "set_aside", json_integer((json_int_t)((b ? b->naside : 0) + (x ? x->naside : 0))),
	    fail);
	put(r, "tail_note", jstr(rw->tail_note), fail);
	put(r, "noisy", json_boolean(rw->noisy), fail);
	put(r, "reason", jstr(rw->reason), fail);
}

/* The table's counts: rows, per verdict, confirmed, possible, noisy,
 * rows with a boot set aside; the family BH ran over and the level of
 * the intervals. */
struct counts {
	size_t verdict[VTB_V_COUNT], confirmed, possible, noisy, set_aside, tested, significant;
	double a;
	bool family;
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
	put(sum, "set_aside", json_integer((json_int_t)n->set_aside), &fail);
	put(sum, "tested", json_integer((json_int_t)n->tested), &fail);
	put(sum, "significant", json_integer((json_int_t)n->significant), &fail);
	put(sum, "family", json_string(n->family ? "all" : "shown"), &fail);
	put(sum, "ci_level", jreal(1 - n->a), &fail);
	if (fail) {
		json_decref(sum);
		return NULL;
	}
	return sum;
}

/* A row's key in a family: both configurations, the cell, the metric. */
static char *family_key(const char *xcfg, const char *bcfg, const char *cell, const char *metric)
{
	return vtb_asprintf("%s\x1f%s\x1f%s\x1f%s", xcfg ? xcfg : "", bcfg ? bcfg : "",
			    cell ? cell : "", metric ? metric : "");
}

/* The family key of row @i of @R (its sides' configurations, its cell
 * key, its metric). */
static char *row_key(const struct cm_rows *R, size_t i)
{
	const struct pair *pr = &R->ps->p[i];
	const struct series *any = pr->x >= 0	? &R->xc->s[pr->x]
				   : pr->b >= 0 ? &R->bc->s[pr->b]
						: NULL;

	return family_key(R->xc->ci[pr->xci].config_key, R->bc->ci[pr->bci].config_key,
			  R->xc->ci[pr->xci].cell_key, any ? any->metric : NULL);
}

/*
 * --family all: each row's q from the rows of the whole comparison
 * (@family, the same comparison without --metric and --workload), and
 * the levels from them.  A tested row (p[i]) the family lacks is an
 * error.
 */
static int family_q(const struct cm_rows *family, const struct cm_rows *R,
		    const struct vtb_test_opts *t, const double *p, double *q, struct level *lv,
		    struct counts *n)
{
	struct vtb_index ix = VTB_INDEX_INIT;
	size_t nf = family->n;
	char **keys = calloc(nf ? nf : 1, sizeof(*keys));
	double *fq = calloc(nf ? nf : 1, sizeof(*fq));
	int ret = -1;

	if (!keys || !fq) {
		vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < nf; i++) {
		fq[i] = family->r[i].c.q;
		if (!isnan(fq[i])) {
			n->tested++;
			n->significant += fq[i] < t->alpha;
		}
		keys[i] = row_key(family, i);
		if (!keys[i]) {
			vtb_error("out of memory");
			goto out;
		}
		if (vtb_index_add(&ix, keys[i], strlen(keys[i]), i) < 0)
			goto out;
	}
	for (size_t i = 0; i < R->ps->n; i++) {
		const struct pair *pr = &R->ps->p[i];
		char *k;
		size_t pos = 0, item;

		q[i] = NAN;
		if (pr->kind != P_OK)
			continue;
		k = row_key(R, i);
		if (!k) {
			vtb_error("out of memory");
			goto out;
		}
		while (vtb_index_next(&ix, k, strlen(k), &pos, &item))
			if (!strcmp(keys[item], k)) {
				q[i] = fq[item];
				break;
			}
		free(k);
		/* a tested row the whole comparison lacks cannot happen: the
		 * family is the same comparison unfiltered */
		if (isnan(q[i]) && !isnan(p[i])) {
			const struct series *any = &R->xc->s[pr->x];

			vtb_error("--family all: row %zu (%s, %s) is not in the whole comparison",
				  i, R->xc->ci[pr->xci].cell_name, any->metric);
			goto out;
		}
	}
	lv->a = vtb_fcr_level(fq, nf, t->alpha);
	lv->a_next = vtb_fcr_level_next(fq, nf, t->alpha);
	n->family = true;
	ret = 0;
out:
	for (size_t i = 0; keys && i < nf; i++)
		free(keys[i]);
	free(keys);
	free(fq);
	vtb_index_release(&ix);
	return ret;
}

/* Row @i of @R as it is being built or written. */
static struct row row_at(const struct cm_rows *R, size_t i)
{
	const struct pair *pr = &R->ps->p[i];
	struct row rw = { .pr = pr,
			  .B = &R->bc->ci[pr->bci],
			  .X = &R->xc->ci[pr->xci],
			  .b = pr->b >= 0 ? &R->bc->s[pr->b] : NULL,
			  .x = pr->x >= 0 ? &R->xc->s[pr->x] : NULL,
			  .c = &R->r[i].c,
			  .reason = R->r[i].reason,
			  .tail_note = R->r[i].tail_note,
			  .noisy = R->r[i].noisy };

	rw.any = rw.x ? rw.x : rw.b;
	return rw;
}

/* The statistic of every row, BH over them (or their q from @family),
 * each row's verdict, then the table's counts. */
static int rows_judge(struct cm_rows *R, const struct cm_rows *family, struct counts *n)
{
	const struct vtb_compare_opts *o = R->o;
	double *p = calloc(R->n ? R->n : 1, sizeof(*p)), *q = calloc(R->n ? R->n : 1, sizeof(*q));
	struct vtb_comparison *cmp = calloc(R->n ? R->n : 1, sizeof(*cmp));
	struct tails tl = { 0 };
	struct level lv;
	int ret = -1;

	if (!p || !q || !cmp) {
		vtb_error("out of memory");
		goto out;
	}
	if (test_rows(R->bc, R->xc, R->ps, &o->test, &tl, cmp, p) < 0)
		goto out;
	if (family) {
		if (family_q(family, R, &o->test, p, q, &lv, n) < 0)
			goto out;
	} else {
		if (vtb_bh(p, R->n, q) < 0)
			goto out;
		for (size_t i = 0; i < R->n; i++)
			if (!isnan(q[i])) {
				n->tested++;
				n->significant += q[i] < o->test.alpha;
			}
		lv.a = vtb_fcr_level(q, R->n, o->test.alpha);
		lv.a_next = vtb_fcr_level_next(q, R->n, o->test.alpha);
	}
	n->a = lv.a;
	/* --family all without a filter: the rows shown are the whole family */
	n->family = n->family || o->family_all;
	for (size_t i = 0; i < R->n; i++) {
		struct cm_row *cr = &R->r[i];
		struct row rw;

		cr->c = cmp[i];
		rw = row_at(R, i);
		rw.noisy = noisy(rw.b, &o->test) || noisy(rw.x, &o->test);
		if (row_verdict(&rw, R->bc, R->xc, q[i], &lv, &o->test, R->cross) < 0)
			goto out;
		cr->reason = rw.reason;
		cr->noisy = rw.noisy;
		/* the bootstrap's replicates were for the interval, read now */
		cr->c.tail = NULL;
		cr->tail_note = tl.note ? tl.note[i] : NULL;
		if (tl.note)
			tl.note[i] = NULL;
		n->verdict[cr->c.verdict]++;
		n->confirmed += cr->c.confirmed;
		n->possible += cr->c.possible;
		n->noisy += cr->noisy;
		n->set_aside += (rw.b && rw.b->naside) || (rw.x && rw.x->naside);
	}
	ret = 0;
out:
	tails_release(&tl);
	free(cmp);
	free(p);
	free(q);
	return ret;
}

int cm_build_rows(struct campaign *bc, struct campaign *xc, const struct pairs *ps,
		  const struct vtb_compare_opts *o, bool cross, const struct cm_rows *family,
		  struct cm_rows *R, json_t *doc)
{
	struct counts n = { .confirmed = 0 };
	bool fail = false;

	*R = (struct cm_rows){ .bc = bc, .xc = xc, .ps = ps, .o = o, .cross = cross, .n = ps->n };
	R->r = calloc(ps->n ? ps->n : 1, sizeof(*R->r));
	if (!R->r)
		return vtb_error("out of memory");
	if (rows_judge(R, family, &n) < 0)
		return -1;
	put(doc, "summary", counts_json(&n, ps->n), &fail);
	return fail ? vtb_error("out of memory") : 0;
}

json_t *cm_row_json(const struct cm_rows *R, size_t i)
{
	struct row rw = row_at(R, i);
	json_t *r = json_object();
	bool fail = !r;

	if (!fail)
		row_json(r, &rw, R->bc, R->xc, R->o, &fail);
	if (fail) {
		json_decref(r);
		vtb_error("out of memory");
		return NULL;
	}
	return r;
}

void cm_rows_release(struct cm_rows *R)
{
	for (size_t i = 0; R->r && i < R->n; i++) {
		free(R->r[i].reason);
		free(R->r[i].tail_note);
	}
	free(R->r);
	R->r = NULL;
	R->n = 0;
}

int cm_series_prepare(struct campaign *c, const struct vtb_compare_opts *opts)
{
	for (size_t i = 0; i < c->n; i++)
		if (series_summarise(&c->s[i], &opts->test) < 0)
			return -1;
	return 0;
}

/* A series of the main campaign with its summary: what a table of one
 * campaign shows, compared or not (a campaign of baselines only has no
 * rows). */
json_t *cm_series_json(const struct campaign *c, size_t i)
{
	const struct series *s = &c->s[i];
	json_t *o = json_object();
	bool fail = !o;

	if (fail)
		return NULL;
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
	put(o, "summary", summary_json(&s->sum), &fail);
	put(o, "set_aside", aside_json(s), &fail);
	if (fail) {
		json_decref(o);
		vtb_error("out of memory");
		return NULL;
	}
	return o;
}
