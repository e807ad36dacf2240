/* SPDX-License-Identifier: MIT */
/*
 * What the guests saw, per VM configuration (the document's "evidence"):
 * what the guest was told (the plan's topology and claims), how many
 * boots built the planned topology, the scheduler domain levels per
 * guest kernel, where the vCPUs ran against the plan; and the membw
 * cells whose arrays were below STREAM's 4 x LLC rule ("stream_rule").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "compare-priv.h"
#include "../evidence/evidence.h"

struct evidence {
	json_t *list; /* the document's "evidence" array */
	json_t *cur;  /* the configuration being filled */
	char *key;
	struct {
		size_t boots, matched, unexpected, unchecked, placed, smt_n, llc_n, node_n;
		double off_sum, off_max, smt_sum, llc_sum, node_sum;
	} n; /* of the configuration being filled */
	bool fail;
};

static void evidence_close(struct evidence *e)
{
	json_t *o = e->cur;

	if (!o)
		return;
	put(o, "boots", json_integer((json_int_t)e->n.boots), &e->fail);
	put(o, "matched", json_integer((json_int_t)e->n.matched), &e->fail);
	put(o, "unexpected", json_integer((json_int_t)e->n.unexpected), &e->fail);
	put(o, "unchecked", json_integer((json_int_t)e->n.unchecked), &e->fail);
	put(o, "placed", json_integer((json_int_t)e->n.placed), &e->fail);
	put(o, "off_planned_mean",
	    e->n.placed ? jreal(e->n.off_sum / (double)e->n.placed) : json_null(), &e->fail);
	put(o, "off_planned_max", e->n.placed ? jreal(e->n.off_max) : json_null(), &e->fail);
	put(o, "smt_split_core",
	    e->n.smt_n ? jreal(e->n.smt_sum / (double)e->n.smt_n) : json_null(), &e->fail);
	put(o, "llc_split_llc", e->n.llc_n ? jreal(e->n.llc_sum / (double)e->n.llc_n) : json_null(),
	    &e->fail);
	put(o, "node_split_node",
	    e->n.node_n ? jreal(e->n.node_sum / (double)e->n.node_n) : json_null(), &e->fail);
	if (!json_object_get(o, "guest_kernel"))
		put(o, "guest_kernel", json_null(), &e->fail);
	if (!json_object_get(o, "first_diff"))
		put(o, "first_diff", json_null(), &e->fail);
	e->cur = NULL;
}

/* What the guest was told: the plan's topology and claims. */
static void evidence_plan(struct evidence *e, json_t *o, const char *plan_json)
{
	json_t *p = plan_json ? json_loads(plan_json, 0, NULL) : NULL;
	json_t *t = json_object_get(p, "topology"), *told, *claims = json_array(), *c;
	size_t i;

	if (!p) {
		put(o, "told", json_null(), &e->fail);
		put(o, "claims", claims, &e->fail);
		return;
	}
	told = json_object();
	put(o, "told", told, &e->fail);
	if (told) {
		static const char *const dims[] = { "sockets", "dies", "cores", "threads" };

		for (i = 0; i < VTB_ARRAY_SIZE(dims); i++) {
			json_t *v = json_object_get(t, dims[i]);

			put(told, dims[i], json_is_integer(v) ? json_incref(v) : json_null(),
			    &e->fail);
		}
		put(told, "pinning", jstr(json_string_value(json_object_get(p, "pinning"))),
		    &e->fail);
	}
	json_array_foreach(json_object_get(p, "claims"), i, c)
	{
		json_t *k = json_object();

		push(claims, k, &e->fail);
		if (!k)
			break;
		put(k, "kind", jstr(json_string_value(json_object_get(c, "kind"))), &e->fail);
		put(k, "vcpus", jstr(json_string_value(json_object_get(c, "vcpus"))), &e->fail);
		put(k, "state", jstr(json_string_value(json_object_get(c, "state"))), &e->fail);
	}
	put(o, "claims", claims, &e->fail);
	json_decref(p);
}

static double num(json_t *o, const char *k, bool *ok)
{
	json_t *v = json_object_get(o, k);

	*ok = json_is_number(v);
	return json_number_value(v);
}

static void evidence_placement(struct evidence *e, const char *placement_json)
{
	json_t *p = json_loads(placement_json, 0, NULL);
	bool ok;
	double v;

	if (!p || json_integer_value(json_object_get(p, "samples")) <= 0) {
		json_decref(p);
		return;
	}
	v = num(p, "off_planned_mean", &ok);
	if (ok) {
		e->n.placed++;
		e->n.off_sum += v;
		v = num(p, "off_planned_max", &ok);
		e->n.off_max = ok && v > e->n.off_max ? v : e->n.off_max;
	}
	v = num(json_object_get(p, "smt_pairs"), "split_core", &ok);
	if (ok) {
		e->n.smt_sum += v;
		e->n.smt_n++;
	}
	v = num(json_object_get(p, "llc_groups"), "split_llc", &ok);
	if (ok) {
		e->n.llc_sum += v;
		e->n.llc_n++;
	}
	v = num(json_object_get(p, "nodes"), "split_node", &ok);
	if (ok) {
		e->n.node_sum += v;
		e->n.node_n++;
	}
	json_decref(p);
}

/* Level names are counted per guest kernel: domain trees are compared
 * only within one kernel. */
static void evidence_levels(struct evidence *e, const char *levels, const char *kernel)
{
	json_t *a = json_object_get(e->cur, "levels"), *l;
	size_t i;

	json_array_foreach(a, i, l)
	{
		const char *k = json_string_value(json_object_get(l, "guest_kernel"));

		if (!strcmp(json_string_value(json_object_get(l, "levels")), levels) &&
		    ((!k && !kernel) || (k && kernel && !strcmp(k, kernel)))) {
			json_object_set_new(l, "boots",
					    json_integer(json_integer_value(
								 json_object_get(l, "boots")) +
							 1));
			return;
		}
	}
	l = json_object();
	push(a, l, &e->fail);
	if (!l)
		return;
	put(l, "levels", json_string(levels), &e->fail);
	put(l, "guest_kernel", jstr(kernel), &e->fail);
	put(l, "boots", json_integer(1), &e->fail);
}

static int add_evidence(const struct vtb_vm_boot_row *r, void *arg)
{
	struct evidence *e = arg;

	if (!e->cur || strcmp(e->key, r->config_key)) {
		evidence_close(e);
		free(e->key);
		memset(&e->n, 0, sizeof(e->n));
		e->key = vtb_strdup(r->config_key);
		e->cur = json_object();
		push(e->list, e->cur, &e->fail);
		if (!e->key || !e->cur || e->fail)
			return vtb_error("out of memory");
		put(e->cur, "config", json_string(r->config_key), &e->fail);
		put(e->cur, "label", json_string(r->config_label), &e->fail);
		evidence_plan(e, e->cur, r->plan_json);
		put(e->cur, "levels", json_array(), &e->fail);
	}
	e->n.boots++;
	if (r->topology_check && !strcmp(r->topology_check, "match"))
		e->n.matched++;
	else if (!r->topology_check || !strcmp(r->topology_check, "unchecked"))
		e->n.unchecked++;
	if (!strcmp(r->status, "unexpected-topology"))
		e->n.unexpected++;
	if (r->topology_diff && !json_object_get(e->cur, "first_diff") &&
	    ((r->topology_check && !strcmp(r->topology_check, "differs")) ||
	     !strcmp(r->status, "unexpected-topology")))
		put(e->cur, "first_diff", json_string(r->topology_diff), &e->fail);
	if (r->guest_kernel && !json_object_get(e->cur, "guest_kernel"))
		put(e->cur, "guest_kernel", json_string(r->guest_kernel), &e->fail);
	/* the image's identity (schema 8): only where stored, so that the
	 * documents of older databases stay as they were */
	if (r->guest_kernel_sha256 && !json_object_get(e->cur, "guest_kernel_sha256"))
		put(e->cur, "guest_kernel_sha256", json_string(r->guest_kernel_sha256), &e->fail);
	if (r->guest_kernel_config_sha256 && !json_object_get(e->cur, "guest_kernel_config_sha256"))
		put(e->cur, "guest_kernel_config_sha256",
		    json_string(r->guest_kernel_config_sha256), &e->fail);
	if (r->levels)
		evidence_levels(e, r->levels, r->guest_kernel);
	if (r->placement_json)
		evidence_placement(e, r->placement_json);
	return e->fail ? vtb_error("out of memory") : 0;
}

/*
 * membw cells whose arrays were below STREAM's 4 x LLC rule (size = auto
 * cut to fit a guest's memory, or a size given smaller): a note on the
 * VM configuration's evidence ("notes"), and every such cell, baselines
 * included, in the document's "stream_rule".
 */
struct stream_notes {
	json_t *evidence, *list;
	bool fail;
};

static int add_stream_note(const struct vtb_stream_rule_row *r, void *arg)
{
	struct stream_notes *sn = arg;
	char *lo = vtb_format_size((uint64_t)r->array_min);
	char *hi = vtb_format_size((uint64_t)r->array_max);
	char *rule = vtb_format_size((uint64_t)r->rule_bytes);
	double pct = r->rule_bytes > 0 ? 100.0 * (double)r->array_max / (double)r->rule_bytes : NAN;
	char *note = NULL;
	json_t *e, *o = json_object();
	size_t i;

	push(sn->list, o, &sn->fail);
	if (o) {
		put(o, "config", jstr(r->config_key), &sn->fail);
		put(o, "kind", jstr(r->config_kind), &sn->fail);
		put(o, "cell", jstr(r->cell_name), &sn->fail);
		put(o, "array_bytes_min", json_integer(r->array_min), &sn->fail);
		put(o, "array_bytes_max", json_integer(r->array_max), &sn->fail);
		put(o, "rule_bytes", json_integer(r->rule_bytes), &sn->fail);
		put(o, "rule_pct", jreal(pct), &sn->fail);
		put(o, "boots", json_integer(r->boots), &sn->fail);
		put(o, "llc_source", jstr(r->llc_source), &sn->fail);
	}
	if (lo && hi && rule)
		note = r->array_min == r->array_max
			       ? vtb_asprintf(
					 "%s (membw): arrays of %s, %.1f%% of STREAM's 4 x LLC (%s): below the rule in %" PRId64
					 " boot%s",
					 r->cell_name ? r->cell_name : "?", hi, pct, rule, r->boots,
					 r->boots == 1 ? "" : "s")
			       : vtb_asprintf(
					 "%s (membw): arrays of %s to %s, at most %.1f%% of STREAM's 4 x LLC (%s): below the rule in %" PRId64
					 " boot%s",
					 r->cell_name ? r->cell_name : "?", lo, hi, pct, rule,
					 r->boots, r->boots == 1 ? "" : "s");
	if (!note)
		sn->fail = true;
	json_array_foreach(sn->evidence, i, e)
	{
		const char *k = json_string_value(json_object_get(e, "config"));
		json_t *notes;

		if (!note || !k || !r->config_key || strcmp(k, r->config_key))
			continue;
		notes = json_object_get(e, "notes");
		if (!notes) {
			notes = json_array();
			put(e, "notes", notes, &sn->fail);
		}
		push(notes, json_string(note), &sn->fail);
	}
	free(lo);
	free(hi);
	free(rule);
	free(note);
	return sn->fail ? vtb_error("out of memory") : 0;
}

static int build_stream_notes(struct vtb_store *st, const struct campaign *c, json_t *doc,
			      json_t *evidence)
{
	struct stream_notes sn = { evidence, json_array(), false };
	int ret = -1;

	if (!sn.list)
		return vtb_error("out of memory");
	if (vtb_store_foreach_stream_rule(st, c->id, add_stream_note, &sn) < 0)
		goto out;
	ret = json_array_size(sn.list) && json_object_set(doc, "stream_rule", sn.list)
		      ? vtb_error("out of memory")
		      : 0;
out:
	json_decref(sn.list);
	return ret;
}

/* ---- the scheduler's counters (issue 28) ---- */

int cm_sched_add(struct campaign *c, const struct vtb_sample_row *s)
{
	char *id;
	json_t *cell, *m, *acc;
	bool fail = false;

	if (!isfinite(s->value))
		return 0;
	id = vtb_asprintf("%s\t%s", s->config_key, s->cell_key);
	if (!id)
		return vtb_error("out of memory");
	if (!c->sched && !(c->sched = json_object()))
		goto oom;
	cell = json_object_get(c->sched, id);
	if (!cell) {
		cell = json_pack("{s:s, s:s, s:{}}", "cell", s->cell_name, "cell_key", s->cell_key,
				 "m");
		if (!cell || json_object_set_new(c->sched, id, cell))
			goto oom;
	}
	m = json_object_get(cell, "m");
	acc = json_object_get(m, s->metric + strlen(VTB_EVIDENCE_PREFIX));
	if (!acc) {
		acc = json_pack("[f, i, s]", 0.0, 0, s->unit ? s->unit : "");
		if (!acc || json_object_set_new(m, s->metric + strlen(VTB_EVIDENCE_PREFIX), acc))
			goto oom;
	}
	/* a sum past a double's range: this value is left out, the rest stays */
	if (!isfinite(json_real_value(json_array_get(acc, 0)) + s->value)) {
		free(id);
		return 0;
	}
	fail |= json_array_set_new(acc, 0,
				   json_real(json_real_value(json_array_get(acc, 0)) + s->value)) != 0;
	fail |= json_array_set_new(acc, 1,
				   json_integer(json_integer_value(json_array_get(acc, 1)) + 1)) != 0;
	free(id);
	return fail ? vtb_error("out of memory") : 0;
oom:
	free(id);
	return vtb_error("out of memory");
}

/* Level keys ("mc_lb_per_s") in the order of the hierarchy, innermost
 * first: SMT, CLS, MC, PKG, NUMA, then the others by name. */
static int level_rank(const char *k)
{
	static const char *const order[] = { "smt", "cls", "mc", "pkg", "numa" };
	size_t n = strlen(k) - strlen("_lb_per_s");

	for (size_t i = 0; i < VTB_ARRAY_SIZE(order); i++)
		if (strlen(order[i]) == n && !strncmp(k, order[i], n))
			return (int)i;
	return (int)VTB_ARRAY_SIZE(order);
}

static int cmp_level(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int d = level_rank(x) - level_rank(y);

	return d ? d : strcmp(x, y);
}

static json_t *mean_of(const json_t *m, const char *k)
{
	const json_t *a = json_object_get(m, k);
	json_int_t n = json_integer_value(json_array_get(a, 1));

	return n > 0 ? jreal(json_real_value(json_array_get(a, 0)) / (double)n) : json_null();
}

/* One cell of a configuration: per level the balancing rates, and every
 * evidence metric's mean over the boots. */
static json_t *sched_cell(const json_t *cell, bool *fail)
{
	const json_t *m = json_object_get(cell, "m"), *a;
	json_t *o = json_object(), *levels = json_array(), *means = json_object();
	const char *k, *keys[32];
	size_t nk = 0;
	json_int_t boots = 0;

	if (!o || !levels || !means) {
		json_decref(o);
		json_decref(levels);
		json_decref(means);
		*fail = true;
		return NULL;
	}
	json_object_foreach((json_t *)m, k, a)
	{
		size_t len = strlen(k), sl = strlen("_lb_per_s");

		if (json_integer_value(json_array_get(a, 1)) > boots)
			boots = json_integer_value(json_array_get(a, 1));
		put(means, k,
		    json_pack("{s:o, s:s}", "mean", mean_of(m, k), "unit",
			      json_string_value(json_array_get(a, 2))),
		    fail);
		if (len > sl && !strcmp(k + len - sl, "_lb_per_s") && nk < VTB_ARRAY_SIZE(keys))
			keys[nk++] = k;
	}
	qsort(keys, nk, sizeof(*keys), cmp_level);
	for (size_t i = 0; i < nk; i++) {
		size_t ll = strlen(keys[i]) - strlen("_lb_per_s");
		char name[64], mv[80], fl[80];

		snprintf(name, sizeof(name), "%.*s", (int)ll, keys[i]);
		snprintf(mv, sizeof(mv), "%s_moved_per_s", name);
		snprintf(fl, sizeof(fl), "%s_lb_failed_pct", name);
		push(levels,
		     json_pack("{s:s, s:o, s:o, s:o}", "level", name, "lb_per_s",
			       mean_of(m, keys[i]), "moved_per_s", mean_of(m, mv), "lb_failed_pct",
			       mean_of(m, fl)),
		     fail);
	}
	put(o, "cell", json_string(json_string_value(json_object_get(cell, "cell"))), fail);
	put(o, "cell_key", json_string(json_string_value(json_object_get(cell, "cell_key"))),
	    fail);
	put(o, "boots", json_integer(boots), fail);
	put(o, "levels", levels, fail);
	put(o, "metrics", means, fail);
	return o;
}

/* Each VM configuration's "sched": its cells' evidence, in cell order. */
static int build_sched(const struct campaign *c, json_t *list)
{
	json_t *e;
	size_t i;
	bool fail = false;

	if (!c->sched)
		return 0;
	json_array_foreach(list, i, e)
	{
		const char *key = json_string_value(json_object_get(e, "config"));
		json_t *cells = json_array();

		for (size_t k = 0; key && cells && k < c->nci; k++) {
			char *id;
			const json_t *cell;

			if (strcmp(c->ci[k].config_key, key))
				continue;
			id = vtb_asprintf("%s\t%s", key, c->ci[k].cell_key);
			if (!id) {
				fail = true;
				break;
			}
			cell = json_object_get(c->sched, id);
			free(id);
			if (cell)
				push(cells, sched_cell(cell, &fail), &fail);
		}
		if (!cells)
			fail = true;
		else if (json_array_size(cells))
			put(e, "sched", cells, &fail);
		else
			json_decref(cells);
	}
	return fail ? vtb_error("out of memory") : 0;
}

static double ev_mean(const json_t *cell, const char *metric)
{
	const json_t *v = json_object_get(json_object_get(json_object_get(cell, "metrics"), metric),
					  "mean");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* How far apart two means are: |ln| of their ratio, with one unit (per
 * second, percentage point) added to both so that near-zero values do
 * not make a big ratio of nothing. */
static double ev_score(double x, double b)
{
	return fabs(log((x + 1.0) / (b + 1.0)));
}

#define EV_DIFF_MAX 4
#define EV_DIFF_MIN 0.22314355131420976 /* ln 1.25: a quarter apart at least */

/* A cell is named alike in every configuration; its key is not (the
 * configuration is part of it). */
static const json_t *sched_cell_of(const json_t *ev, const char *cell)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(ev, "sched"), i, c)
	if (!strcmp(json_string_value(json_object_get(c, "cell")) ?: "", cell))
		return c;
	return NULL;
}

/* A level's rate is 0 on a side whose guests balanced (the total is
 * there) but never at that level: it has no such domain (isolcpus). */
static double ev_level_mean(const json_t *cell, const char *k)
{
	double v = ev_mean(cell, k);
	size_t n = strlen(k);

	if (isfinite(v))
		return v;
	if (((n > 9 && !strcmp(k + n - 9, "_lb_per_s")) ||
	     (n > 12 && !strcmp(k + n - 12, "_moved_per_s"))) &&
	    isfinite(ev_mean(cell, "lb_per_s")))
		return 0;
	return NAN;
}

static bool has_level(const json_t *cell)
{
	const char *k;
	const json_t *v;

	json_object_foreach((json_t *)json_object_get(cell, "metrics"), k, v)
	{
		size_t n = strlen(k);

		if (n > 9 && !strcmp(k + n - 9, "_lb_per_s"))
			return true;
	}
	return false;
}

static const char *ev_unit(const json_t *xc, const json_t *bc, const char *k)
{
	const char *u = json_string_value(
		json_object_get(json_object_get(json_object_get(xc, "metrics"), k), "unit"));

	if (!u)
		u = json_string_value(
			json_object_get(json_object_get(json_object_get(bc, "metrics"), k), "unit"));
	return u ? u : "";
}

json_t *vtb_compare_evidence_diff(const json_t *xev, const json_t *bev, const char *cell)
{
	const json_t *xc = sched_cell_of(xev, cell), *bc = sched_cell_of(bev, cell);
	const char *k;
	const json_t *v;
	struct {
		const char *metric;
		double score;
	} top[EV_DIFF_MAX];
	size_t n = 0;
	json_t *items;
	bool fail = false;

	if (!xc || !bc)
		return NULL;
	for (int side = 0; side < 2; side++)
	json_object_foreach((json_t *)json_object_get(side ? bc : xc, "metrics"), k, v)
	{
		double x = ev_level_mean(xc, k), b = ev_level_mean(bc, k), sc;
		size_t i;

		/* a metric of both: once, from x's side */
		if (side && json_object_get(json_object_get(xc, "metrics"), k))
			continue;
		if (!isfinite(x) || !isfinite(b) || !strcmp(k, "vcpu_pcpus"))
			continue;
		/* the totals say again what a level says */
		if ((!strcmp(k, "lb_per_s") || !strcmp(k, "moved_per_s") ||
		     !strcmp(k, "lb_failed_pct")) &&
		    (has_level(xc) || has_level(bc)))
			continue;
		sc = ev_score(x, b);
		if (sc < EV_DIFF_MIN)
			continue;
		for (i = n; i > 0 && top[i - 1].score < sc; i--)
			if (i < EV_DIFF_MAX)
				top[i] = top[i - 1];
		if (i < EV_DIFF_MAX) {
			top[i].metric = k;
			top[i].score = sc;
			if (n < EV_DIFF_MAX)
				n++;
		}
	}
	items = json_array();
	for (size_t i = 0; items && i < n; i++)
		push(items,
		     json_pack("{s:s, s:o, s:o, s:s}", "metric", top[i].metric, "x",
			       jreal(ev_level_mean(xc, top[i].metric)), "base",
			       jreal(ev_level_mean(bc, top[i].metric)), "unit",
			       ev_unit(xc, bc, top[i].metric)),
		     &fail);
	if (!items || fail) {
		json_decref(items);
		vtb_error("out of memory");
		return NULL;
	}
	return items;
}

const json_t *vtb_compare_evidence_of(const json_t *doc, const char *key)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "evidence"), i, e)
	if (key && !strcmp(json_string_value(json_object_get(e, "config")) ?: "", key))
		return e;
	return NULL;
}

/* "evidence_diffs": for each pair of VM configurations a row compares
 * (an axis, a named baseline) and each cell, the largest differences of
 * their scheduler evidence.  The rows are the pairs @ps of @bc against
 * @xc, in the document's order. */
static int build_diffs(json_t *doc, const struct campaign *xc, const struct campaign *bc,
		       const struct pairs *ps)
{
	json_t *diffs = json_array(), *seen = json_object();
	bool fail = !diffs || !seen;

	for (size_t i = 0; i < ps->n && !fail; i++) {
		const struct pair *pr = &ps->p[i];
		const char *xk = xc->ci[pr->xci].config_key, *bk = bc->ci[pr->bci].config_key;
		const char *ck = xc->ci[pr->xci].cell_name;
		const json_t *xe = vtb_compare_evidence_of(doc, xk);
		const json_t *be = vtb_compare_evidence_of(doc, bk);
		json_t *items;
		char *id;

		if (fail || !xe || !be || !ck || !strcmp(xk, bk))
			continue;
		id = vtb_asprintf("%s\t%s\t%s", xk, bk, ck);
		if (!id) {
			fail = true;
			break;
		}
		if (json_object_get(seen, id) || json_object_set_new(seen, id, json_true())) {
			free(id);
			continue;
		}
		free(id);
		items = vtb_compare_evidence_diff(xe, be, ck);
		if (!items)
			continue;
		if (!json_array_size(items)) {
			json_decref(items);
			continue;
		}
		push(diffs,
		     json_pack("{s:s, s:s, s:s, s:o}", "x", xk, "base", bk, "cell", ck, "items",
			       items),
		     &fail);
	}
	if (!fail && json_array_size(diffs) && json_object_set(doc, "evidence_diffs", diffs))
		fail = true;
	json_decref(diffs);
	json_decref(seen);
	return fail ? vtb_error("out of memory") : 0;
}

int cm_build_evidence(struct vtb_store *st, const struct campaign *c, const struct campaign *bc,
		      const struct pairs *ps, json_t *doc)
{
	struct evidence e = { .list = json_array() };
	int ret = -1;

	if (!e.list)
		return vtb_error("out of memory");
	if (vtb_store_foreach_vm_boot(st, c->id, add_evidence, &e) < 0)
		goto out;
	evidence_close(&e);
	if (e.fail) {
		vtb_error("out of memory");
		goto out;
	}
	ret = json_object_set(doc, "evidence", e.list) ? vtb_error("out of memory") : 0;
	if (!ret)
		ret = build_stream_notes(st, c, doc, e.list);
	if (!ret)
		ret = build_sched(c, e.list);
	if (!ret)
		ret = build_diffs(doc, c, bc, ps);
out:
	json_decref(e.list);
	free(e.key);
	return ret;
}
