/* SPDX-License-Identifier: MIT */
/*
 * The compare document, assembled: the options checked, the campaigns
 * loaded (campaign.c) and paired (pair.c), then the document's parts in
 * order: the campaigns, the options, the configurations, the rows with
 * their statistics (rows.c), the guests' evidence (evidence.c), the
 * merged histograms and c2c matrices (merged.c).  And the verdicts read
 * back: what fails under --fail-on, which configurations need more boots.
 */
#include <stdlib.h>
#include <string.h>

#include "compare-priv.h"
#include "../evidence/evidence.h"

void vtb_compare_opts_default(struct vtb_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fail_on = VTB_FAIL_WORSE;
	vtb_test_opts_default(&o->test);
}

static int build_configs(const struct campaign *c, json_t *a)
{
	bool fail = false;

	for (size_t i = 0; i < c->nc && !fail; i++) {
		const struct config *f = &c->c[i];
		json_t *o = json_object();

		push(a, o, &fail);
		if (fail)
			break;
		put(o, "key", json_string(f->key), &fail);
		put(o, "label", json_string(f->label), &fail);
		put(o, "kind", json_string(f->kind), &fail);
		put(o, "campaign", json_string(c->uuid), &fail);
		put(o, "params", json_incref(f->params), &fail);
		put(o, "cpus", json_string(f->cpus), &fail);
	}
	return fail ? vtb_error("out of memory") : 0;
}

static json_t *options_json(const struct vtb_compare_opts *o)
{
	json_t *j = json_object(), *cov = json_object();
	bool fail = !j || !cov;

	if (fail) {
		json_decref(j);
		json_decref(cov);
		return NULL;
	}
	put(j, "baseline", json_string(o->baseline ? o->baseline : "own"), &fail);
	put(j, "axis", jstr(o->axis), &fail);
	put(j, "metric", jstr(o->metric), &fail);
	put(j, "workload", jstr(o->workload), &fail);
	put(j, "threshold_pct", jreal(o->test.threshold_pct), &fail);
	put(j, "alpha", jreal(o->test.alpha), &fail);
	put(j, "ci_level", jreal(1 - o->test.alpha), &fail);
	put(j, "family", json_string(o->family_all ? "all" : "shown"), &fail);
	put(j, "robust", json_boolean(!o->test.plain), &fail);
	put(j, "min_n", json_integer((json_int_t)(o->test.min_n > 2 ? o->test.min_n : 2)), &fail);
	put(cov, "throughput", jreal(o->test.cov_limit[VTB_MC_THROUGHPUT]), &fail);
	put(cov, "time", jreal(o->test.cov_limit[VTB_MC_TIME]), &fail);
	put(cov, "latency", jreal(o->test.cov_limit[VTB_MC_LATENCY]), &fail);
	put(j, "cov_limit", cov, &fail);
	put(j, "fail_on",
	    json_string(!o->fail_on			  ? "none"
			: o->fail_on == VTB_FAIL_POSSIBLE ? "possible"
			: o->fail_on & VTB_FAIL_POSSIBLE  ? "worse,possible"
							  : "worse"),
	    &fail);
	if (fail) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Options that do not go together (input errors). */
static int check_opts(const struct vtb_compare_opts *o, bool cross, bool find, bool *bad)
{
	if (o->baseline && strcmp(o->baseline, "own") && (cross || o->axis)) {
		*bad = true;
		return vtb_error("--baseline compares configurations of one campaign: not with %s",
				 cross ? "--against or --against-campaign" : "--axis");
	}
	if (o->axis && cm_campaign_axis(o->axis) && !cross && !find) {
		*bad = true;
		return vtb_error(
			"the axis '%s' differs between campaigns: give --against OTHER.db or "
			"--against-campaign ID",
			o->axis);
	}
	if (o->axis && !cm_campaign_axis(o->axis) && !cm_guest_kernel_axis(o->axis) && cross) {
		*bad = true;
		return vtb_error(
			"--axis %s compares configurations of one campaign: not with --against",
			o->axis);
	}
	return 0;
}

/* Within campaign @x: each configuration's base (along --axis, the one
 * --baseline names, or its own baseline), then the pairs. */
static int pair_within(struct campaign *x, const struct vtb_compare_opts *o, struct pairs *ps,
		       bool *bad)
{
	long *base = calloc(x->nc ? x->nc : 1, sizeof(*base));
	bool named = o->baseline && strcmp(o->baseline, "own");
	int ret = -1;

	if (!base)
		return vtb_error("out of memory");
	if (o->axis) {
		if (cm_axis_baselines(x, o->axis, base, bad) < 0)
			goto out;
	} else if (named) {
		if (cm_named_baseline(x, o->baseline, base, bad) < 0)
			goto out;
	} else {
		cm_own_baselines(x, base);
	}
	if (cm_pair_campaigns(x, x, base, o->metric != NULL, ps) < 0)
		goto out;
	if (!ps->n && (o->axis || named)) {
		*bad = true;
		vtb_error("nothing to compare in campaign %s: no cell and metric of the "
			  "selected configurations matches one of their baseline",
			  x->uuid);
		goto out;
	}
	ret = 0;
out:
	free(base);
	return ret;
}

/* Across campaigns: @x against campaign @spec of @bst, loaded into @b;
 * the same configurations, cells matched by key. */
static int pair_across(struct vtb_store *bst, const char *bdb, const char *spec, struct campaign *x,
		       struct campaign *b, const struct vtb_compare_opts *o, struct pairs *ps,
		       bool *bad)
{
	if (cm_campaign_load(bst, bdb, spec, o, b, bad) < 0 ||
	    cm_pair_campaigns(b, x, NULL, o->metric != NULL, ps) < 0)
		return -1;
	if (!ps->n) {
		*bad = true;
		return vtb_error("no cell of campaign %s matches one of campaign %s (cells are "
				 "matched by configuration and cell key)",
				 x->uuid, b->uuid);
	}
	return 0;
}

/* The document being written: its members but "rows" and "series" in
 * head, those two from the campaigns and rows kept here. */
struct vtb_compare_doc {
	json_t *head;
	struct vtb_compare_opts o;
	struct campaign x, b;
	bool cross;
	struct pairs ps;
	struct cm_rows rows;
	bool series; /* head has a "series" section (not a family's rows alone) */
};

void vtb_compare_doc_free(struct vtb_compare_doc *d)
{
	if (!d)
		return;
	cm_rows_release(&d->rows);
	json_decref(d->head);
	free(d->ps.p);
	cm_campaign_release(&d->x);
	cm_campaign_release(&d->b);
	free(d);
}

/* The document's members, in order, into d->head: x against b (when
 * d->cross; else the base side is in x), b read from @bst. */
static int build_doc(struct vtb_store *st, struct vtb_store *bst, struct vtb_compare_doc *d,
		     const struct cm_rows *family)
{
	struct campaign *x = &d->x, *b = d->cross ? &d->b : &d->x;
	const struct vtb_compare_opts *o = &d->o;
	json_t *h = d->head;
	json_t *configs = json_array(), *hists = json_array(), *c2c = json_array();
	bool fail = !configs || !hists || !c2c;
	int ret = -1;

	put(h, "schema", json_string(VTB_COMPARE_SCHEMA), &fail);
	put(h, "campaign", json_incref(x->info), &fail);
	put(h, "against", d->cross ? json_incref(b->info) : json_null(), &fail);
	put(h, "options", options_json(o), &fail);
	put(h, "advice", !d->ps.n && !d->cross ? cm_advice_json(x) : json_null(), &fail);
	if (fail || build_configs(x, configs) < 0 || (d->cross && build_configs(b, configs) < 0))
		goto oom;
	put(h, "configs", configs, &fail);
	configs = NULL;
	if (fail)
		goto oom;
	if (cm_build_rows(b, x, &d->ps, o, d->cross, family, &d->rows, h) < 0 ||
	    cm_series_prepare(x, o) < 0 || cm_build_evidence(st, x, b, &d->ps, h) < 0 ||
	    cm_build_hists(st, x, hists) < 0 || (d->cross && cm_build_hists(bst, b, hists) < 0) ||
	    cm_build_c2c(st, x, c2c) < 0 || (d->cross && cm_build_c2c(bst, b, c2c) < 0))
		goto out;
	d->series = true;
	put(h, "histograms", hists, &fail);
	hists = NULL;
	put(h, "c2c", c2c, &fail);
	c2c = NULL;
	if (fail)
		goto oom;
	ret = 0;
	goto out;
oom:
	vtb_error("out of memory");
out:
	json_decref(configs);
	json_decref(hists);
	json_decref(c2c);
	return ret;
}

/* vtb_compare_open(); @rows_only: the rows and their summary alone (the
 * family --family all takes its q-values from), not the evidence,
 * histograms and matrices. */
static int compare_open(struct vtb_store *st, const char *db, struct vtb_store *against,
			const char *against_db, const struct vtb_compare_opts *o, bool rows_only,
			struct vtb_compare_doc **out, bool *bad_input)
{
	struct vtb_compare_doc *d = calloc(1, sizeof(*d)), *all = NULL;
	bool cross = against || o->against_campaign;
	/* --axis host|host_kernel alone: the other side is found in this database */
	bool find = o->axis && !cross && cm_campaign_axis(o->axis);
	char *other = NULL;
	struct vtb_store *bst = against ? against : st;
	const char *bdb = against ? against_db : db;
	int ret = -1;

	*out = NULL;
	*bad_input = false;
	if (!d || !(d->head = json_object())) {
		vtb_error("out of memory");
		goto out;
	}
	d->o = *o;
	/* --family all with a filter: the whole comparison first, whose rows
	 * give the filtered ones their q and level */
	if (o->family_all && (o->metric || o->workload)) {
		struct vtb_compare_opts wide = *o;

		wide.metric = wide.workload = NULL;
		wide.family_all = false;
		if (compare_open(st, db, against, against_db, &wide, true, &all, bad_input) < 0)
			goto out;
	}
	if (check_opts(o, cross, find, bad_input) < 0 ||
	    cm_campaign_load(st, db, o->campaign, &d->o, &d->x, bad_input) < 0)
		goto out;
	if (find) {
		if (cm_find_other(st, db, &d->x, o->axis, &other, bad_input) < 0)
			goto out;
		cross = true;
	}
	d->cross = cross;
	if (cross ? pair_across(bst, bdb, other ? other : o->against_campaign, &d->x, &d->b,
				&d->o, &d->ps, bad_input) < 0
		  : pair_within(&d->x, &d->o, &d->ps, bad_input) < 0)
		goto out;
	if (rows_only ? cm_build_rows(cross ? &d->b : &d->x, &d->x, &d->ps, &d->o, cross, NULL,
				      &d->rows, d->head) < 0
		      : build_doc(st, bst, d, all ? &all->rows : NULL) < 0)
		goto out;
	*out = d;
	d = NULL;
	ret = 0;
out:
	/* a damaged or crafted database is input too */
	if (ret < 0 && (vtb_store_bad_content(st) || vtb_store_bad_content(bst)))
		*bad_input = true;
	vtb_compare_doc_free(d);
	vtb_compare_doc_free(all);
	free(other);
	return ret;
}

int vtb_compare_open(struct vtb_store *st, const char *db, struct vtb_store *against,
		     const char *against_db, const struct vtb_compare_opts *o,
		     struct vtb_compare_doc **out, bool *bad_input)
{
	return compare_open(st, db, against, against_db, o, false, out, bad_input);
}

const json_t *vtb_compare_doc_head(const struct vtb_compare_doc *d)
{
	return d->head;
}

size_t vtb_compare_doc_nrows(const struct vtb_compare_doc *d)
{
	return d->rows.n;
}

json_t *vtb_compare_doc_row(const struct vtb_compare_doc *d, size_t i)
{
	return cm_row_json(&d->rows, i);
}

size_t vtb_compare_doc_nseries(const struct vtb_compare_doc *d)
{
	return d->series ? d->x.n : 0;
}

json_t *vtb_compare_doc_series(const struct vtb_compare_doc *d, size_t i)
{
	return cm_series_json(&d->x, i);
}

/* An array of @n elements made by @get. */
static json_t *whole_array(const struct vtb_compare_doc *d, size_t n,
			   json_t *(*get)(const struct vtb_compare_doc *, size_t))
{
	json_t *a = json_array();
	bool fail = !a;

	for (size_t i = 0; i < n && !fail; i++)
		push(a, get(d, i), &fail);
	if (fail) {
		json_decref(a);
		return NULL;
	}
	return a;
}

int vtb_compare_build(struct vtb_store *st, const char *db, struct vtb_store *against,
		      const char *against_db, const struct vtb_compare_opts *o, json_t **doc,
		      bool *bad_input)
{
	struct vtb_compare_doc *d;
	bool fail = false;
	json_t *h;

	*doc = NULL;
	if (vtb_compare_open(st, db, against, against_db, o, &d, bad_input) < 0)
		return -1;
	h = json_incref(d->head);
	put(h, "rows", whole_array(d, vtb_compare_doc_nrows(d), vtb_compare_doc_row), &fail);
	put(h, "series", whole_array(d, vtb_compare_doc_nseries(d), vtb_compare_doc_series),
	    &fail);
	vtb_compare_doc_free(d);
	if (fail) {
		json_decref(h);
		return vtb_error("out of memory");
	}
	*doc = h;
	return 0;
}

/* An evidence row (a scheduler counter's rate, --metric 'evidence/...'):
 * it explains, it is never gated nor boots more for reps = auto. */
static bool evidence_row(const json_t *r)
{
	return vtb_evidence_metric(json_string_value(json_object_get(r, "metric")));
}

size_t vtb_compare_count(const json_t *doc, const char *verdict)
{
	json_t *r;
	size_t i, n = 0;

	json_array_foreach(json_object_get(doc, "rows"), i, r)
	{
		const char *v = json_string_value(json_object_get(r, "verdict"));

		n += v && !strcmp(v, verdict);
	}
	return n;
}

bool vtb_compare_nothing_judged(const json_t *doc, long *need)
{
	const json_t *rows = json_object_get(doc, "rows");
	json_int_t min_n = json_integer_value(
		json_object_get(json_object_get(doc, "options"), "min_n"));

	size_t n = 0, few = 0, i;
	json_t *r;

	*need = min_n > 2 ? (long)min_n : 2;
	json_array_foreach(rows, i, r)
	{
		const char *v = json_string_value(json_object_get(r, "verdict"));

		if (evidence_row(r))
			continue;
		n++;
		few += v && !strcmp(v, "few");
	}
	return n && few == n;
}

size_t vtb_compare_failing(const json_t *doc, unsigned fail_on)
{
	json_t *r;
	size_t i, n = 0;
	long need;

	if ((fail_on & VTB_FAIL_WORSE) && vtb_compare_nothing_judged(doc, &need))
		return json_array_size(json_object_get(doc, "rows"));
	json_array_foreach(json_object_get(doc, "rows"), i, r)
	{
		const char *v = json_string_value(json_object_get(r, "verdict"));

		if (!v || evidence_row(r))
			continue;
		if ((fail_on & VTB_FAIL_WORSE) &&
		    (!strcmp(v, "worse") || !strcmp(v, "missing") || !strcmp(v, "error")))
			n++;
		else if ((fail_on & VTB_FAIL_POSSIBLE) &&
			 (json_is_true(json_object_get(r, "possible")) || !strcmp(v, "few")))
			n++;
	}
	return n;
}

int vtb_compare_pending(const json_t *doc, const char *const *keys, size_t nkeys, bool *more,
			size_t *undecided)
{
	json_t *r;
	size_t i;

	*undecided = 0;
	json_array_foreach(json_object_get(doc, "rows"), i, r)
	{
		const char *v = json_string_value(json_object_get(r, "verdict"));
		const char *sides[2] = {
			json_string_value(json_object_get(json_object_get(r, "base"), "config")),
			json_string_value(json_object_get(json_object_get(r, "x"), "config")),
		};

		if (!v)
			return vtb_error("compare row %zu has no verdict", i);
		if ((strcmp(v, "inconclusive") && strcmp(v, "few")) || evidence_row(r))
			continue;
		(*undecided)++;
		for (size_t s = 0; s < 2; s++)
			for (size_t k = 0; sides[s] && k < nkeys; k++)
				if (!strcmp(keys[k], sides[s]))
					more[k] = true;
	}
	return 0;
}

/* The metric of row @i of @R (NULL: a row without one). */
static const char *row_metric(const struct cm_rows *R, size_t i)
{
	const struct pair *pr = &R->ps->p[i];

	return pr->x >= 0 ? R->xc->s[pr->x].metric : pr->b >= 0 ? R->bc->s[pr->b].metric : NULL;
}

size_t vtb_compare_doc_failing(const struct vtb_compare_doc *d, unsigned fail_on)
{
	const struct cm_rows *R = &d->rows;
	size_t n = 0, judged = 0, few = 0;

	for (size_t i = 0; i < R->n; i++)
		if (!vtb_evidence_metric(row_metric(R, i))) {
			judged++;
			few += R->r[i].c.verdict == VTB_V_FEW;
		}
	/* nothing could be judged: every row fails the gate */
	if ((fail_on & VTB_FAIL_WORSE) && judged && few == judged)
		return R->n;
	for (size_t i = 0; i < R->n; i++) {
		const struct vtb_comparison *c = &R->r[i].c;

		if (vtb_evidence_metric(row_metric(R, i)))
			continue;
		if ((fail_on & VTB_FAIL_WORSE) &&
		    (c->verdict == VTB_V_WORSE || c->verdict == VTB_V_MISSING ||
		     c->verdict == VTB_V_ERROR))
			n++;
		else if ((fail_on & VTB_FAIL_POSSIBLE) &&
			 (c->possible || c->verdict == VTB_V_FEW))
			n++;
	}
	return n;
}
