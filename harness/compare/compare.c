/* SPDX-License-Identifier: MIT */
/*
 * The compare model.  A campaign's samples are loaded into series (one
 * per configuration x cell x metric x unit, the per-boot values in rep
 * order) and its cells with what their boots did; the selection pairs
 * configurations, then their cells (by name within a campaign, by cell
 * key across campaigns), then per cell its metrics on both sides: each
 * (cell, metric, unit) becomes a row of the document.  A metric on one
 * side only, or a cell without a result on a side, is a "missing" row
 * that says why; units that differ are an "error" row naming both.
 * Rows with both sides get the statistics of stats.h: summaries, one
 * vtb_compare_samples() per row, Benjamini-Hochberg over every tested
 * row of the table, a verdict per row.  The rest of the document
 * (configurations, evidence, merged histograms, c2c matrices,
 * provenance) is read from the store as it is.
 *
 * Rows follow the store's order: configurations in matrix order, cells
 * in matrix order, metrics in the order the workload reported them
 * (then metrics the baseline side alone has).
 */
#include "compare.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One configuration x cell x metric of one campaign. */
struct series {
	char *config_key, *label, *kind, *cell_key, *cell_name, *workload, *metric, *unit;
	int better, cpus;
	char *pcpus;
	double *v;
	int *rep; /* per value: its boot's rep */
	size_t n, cap;
	enum vtb_metric_class k;
	struct vtb_summary sum;
	bool summed;
	json_t *jsum, *jvalues; /* built once, shared by the rows that use the series */
};

struct config {
	char *key, *label, *kind, *params_json, *cpus;
	json_t *params;
	long ncpus; /* vcpus (VM) or cpus (baseline) */
	bool runnable;
};

/* One cell of one configuration. */
struct cellinfo {
	char *config_key, *cell_key, *cell_name, *workload;
	size_t lo, hi; /* its series: [lo, hi) of the campaign's */
};

/* A campaign as loaded. */
struct campaign {
	struct vtb_store *st; /* where it is (a missing row's reason is read then) */
	int64_t id;
	char *uuid;
	json_t *info; /* the document's "campaign" object */
	struct series *s;
	size_t n, cap;
	struct config *c;
	size_t nc;
	struct cellinfo *ci;
	size_t nci, capci;
	/* filters and what they saw */
	const char *metric, *workload;
	size_t samples_seen, workload_seen;
};

static void series_release(struct series *s)
{
	free(s->config_key);
	free(s->label);
	free(s->kind);
	free(s->cell_key);
	free(s->cell_name);
	free(s->workload);
	free(s->metric);
	free(s->unit);
	free(s->pcpus);
	free(s->v);
	free(s->rep);
	json_decref(s->jsum);
	json_decref(s->jvalues);
}

static void campaign_release(struct campaign *c)
{
	for (size_t i = 0; i < c->n; i++)
		series_release(&c->s[i]);
	free(c->s);
	for (size_t i = 0; i < c->nc; i++) {
		free(c->c[i].key);
		free(c->c[i].label);
		free(c->c[i].kind);
		free(c->c[i].params_json);
		free(c->c[i].cpus);
		json_decref(c->c[i].params);
	}
	free(c->c);
	for (size_t i = 0; i < c->nci; i++) {
		free(c->ci[i].config_key);
		free(c->ci[i].cell_key);
		free(c->ci[i].cell_name);
		free(c->ci[i].workload);
	}
	free(c->ci);
	free(c->uuid);
	json_decref(c->info);
	memset(c, 0, sizeof(*c));
}

void vtb_compare_opts_default(struct vtb_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fail_on = VTB_FAIL_WORSE;
	vtb_test_opts_default(&o->test);
}

/* Finite numbers as reals, everything else as null: never NaN in JSON. */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Sets @k of @o to the new reference @v; a NULL @v is an allocation
 * failure, remembered in *@fail. */
static void put(json_t *o, const char *k, json_t *v, bool *fail)
{
	if (!v || json_object_set_new(o, k, v))
		*fail = true;
}

static void push(json_t *a, json_t *v, bool *fail)
{
	if (!v || json_array_append_new(a, v))
		*fail = true;
}

static const char *class_name(enum vtb_metric_class k)
{
	switch (k) {
	case VTB_MC_THROUGHPUT:
		return "throughput";
	case VTB_MC_TIME:
		return "time";
	case VTB_MC_LATENCY:
		return "latency";
	}
	return "?";
}

/* ------------------------------------------------------------ loading */

static bool workload_matches(const char *want, const char *workload, const char *cell_name)
{
	return !want || !strcmp(want, workload) || !strcmp(want, cell_name);
}

/* The series of @s among the last ones (a cell's samples come together,
 * its series are contiguous), or NULL. */
static struct series *find_series(struct campaign *c, const struct vtb_sample_row *s)
{
	const char *unit = s->unit ? s->unit : "";

	for (size_t k = c->n; k-- > 0;) {
		struct series *t = &c->s[k];

		if (strcmp(t->config_key, s->config_key) || strcmp(t->cell_key, s->cell_key))
			break;
		if (!strcmp(t->metric, s->metric) && !strcmp(t->unit, unit))
			return t;
	}
	return NULL;
}

static int add_sample(const struct vtb_sample_row *s, void *arg)
{
	struct campaign *c = arg;
	struct series *r;

	c->samples_seen++;
	if (!workload_matches(c->workload, s->workload, s->cell_name))
		return 0;
	c->workload_seen++;
	if (c->metric && fnmatch(c->metric, s->metric, 0))
		return 0;
	r = find_series(c, s);
	if (!r) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;
			struct series *g = realloc(c->s, cap * sizeof(*g));

			if (!g)
				return vtb_error("out of memory");
			c->s = g;
			c->cap = cap;
		}
		r = &c->s[c->n++];
		memset(r, 0, sizeof(*r));
		r->config_key = vtb_strdup(s->config_key);
		r->label = vtb_strdup(s->config_label);
		r->kind = vtb_strdup(s->kind);
		r->cell_key = vtb_strdup(s->cell_key);
		r->cell_name = vtb_strdup(s->cell_name);
		r->workload = vtb_strdup(s->workload);
		r->metric = vtb_strdup(s->metric);
		r->unit = vtb_strdup(s->unit ? s->unit : "");
		r->pcpus = vtb_strdup(s->pcpus ? s->pcpus : "");
		r->better = s->better;
		r->cpus = s->cpus;
		if (!r->config_key || !r->label || !r->kind || !r->cell_key || !r->cell_name ||
		    !r->workload || !r->metric || !r->unit || !r->pcpus)
			return vtb_error("out of memory");
		r->k = vtb_metric_class(r->metric, r->unit);
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		double *g = realloc(r->v, cap * sizeof(*g));
		int *rp;

		if (!g)
			return vtb_error("out of memory");
		r->v = g;
		rp = realloc(r->rep, cap * sizeof(*rp));
		if (!rp)
			return vtb_error("out of memory");
		r->rep = rp;
		r->cap = cap;
	}
	r->rep[r->n] = s->rep;
	r->v[r->n++] = s->value;
	return 0;
}

static int add_cell(const struct vtb_campaign_cell *r, void *arg)
{
	struct campaign *c = arg;
	struct cellinfo *ci;

	if (!workload_matches(c->workload, r->workload, r->cell_name))
		return 0;
	if (c->nci == c->capci) {
		size_t cap = c->capci ? c->capci * 2 : 32;
		struct cellinfo *g = realloc(c->ci, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		c->ci = g;
		c->capci = cap;
	}
	ci = &c->ci[c->nci++];
	*ci = (struct cellinfo){ .config_key = vtb_strdup(r->config_key),
				 .cell_key = vtb_strdup(r->cell_key),
				 .cell_name = vtb_strdup(r->cell_name),
				 .workload = vtb_strdup(r->workload) };
	if (!ci->config_key || !ci->cell_key || !ci->cell_name || !ci->workload)
		return vtb_error("out of memory");
	return 0;
}

static int add_config(const struct vtb_config_row *r, void *arg)
{
	struct campaign *c = arg;
	struct config *g = realloc(c->c, (c->nc + 1) * sizeof(*g)), *f;
	json_t *n;

	if (!g)
		return vtb_error("out of memory");
	c->c = g;
	f = &g[c->nc++];
	memset(f, 0, sizeof(*f));
	f->key = vtb_strdup(r->key);
	f->label = vtb_strdup(r->label);
	f->kind = vtb_strdup(r->kind);
	f->params_json = vtb_strdup(r->params_json);
	f->cpus = vtb_strdup(r->cpus ? r->cpus : "");
	f->runnable = r->runnable;
	f->params = json_loads(r->params_json ? r->params_json : "{}", 0, NULL);
	if (!f->params)
		f->params = json_object();
	if (!f->key || !f->label || !f->kind || !f->params_json || !f->cpus || !f->params)
		return vtb_error("out of memory");
	n = json_object_get(f->params, !strcmp(f->kind, "vm") ? "vcpus" : "cpus");
	f->ncpus = json_is_string(n) ? strtol(json_string_value(n), NULL, 10)
				     : json_integer_value(n);
	return 0;
}

static void join_lines(json_t *o, const char *k, const char *lines, const char *sep, bool *fail)
{
	char *s, *p;

	if (!lines || !*lines) {
		put(o, k, json_null(), fail);
		return;
	}
	s = vtb_strdup(lines);
	if (!s) {
		*fail = true;
		return;
	}
	if (sep)
		for (p = s; *p; p++)
			if (*p == '\n')
				*p = *sep;
	put(o, k, json_string(s), fail);
	free(s);
}

static int campaign_info(const struct vtb_campaign_row *r, void *arg)
{
	struct campaign *c = arg;
	json_t *o = json_object(), *kernels = json_array();
	bool fail = !o || !kernels;
	const char *p, *q;

	if (fail) {
		json_decref(o);
		json_decref(kernels);
		return vtb_error("out of memory");
	}
	put(o, "uuid", jstr(r->uuid), &fail);
	put(o, "host", jstr(r->hostname), &fail);
	put(o, "cpu",
	    jstr(r->cpu_model_name && *r->cpu_model_name ? r->cpu_model_name : r->cpu_vendor),
	    &fail);
	put(o, "kernel", jstr(r->host_kernel), &fail);
	put(o, "topology", jstr(r->topo_summary), &fail);
	put(o, "matrix_path", jstr(r->matrix_path), &fail);
	put(o, "matrix_digest", jstr(r->matrix_digest), &fail);
	put(o, "version", jstr(r->version), &fail);
	put(o, "status", jstr(r->status), &fail);
	put(o, "started_ns", json_integer(r->started_ns), &fail);
	put(o, "ended_ns", r->ended_ns ? json_integer(r->ended_ns) : json_null(), &fail);
	join_lines(o, "accelerators", r->accelerators, ",", &fail);
	join_lines(o, "libvirt_version", r->libvirt_versions, ",", &fail);
	join_lines(o, "qemu_version", r->qemu_versions, ",", &fail);
	for (p = r->guest_kernels; p && *p; p = *q ? q + 1 : q) {
		q = strchr(p, '\n');
		if (!q)
			q = p + strlen(p);
		push(kernels, json_stringn(p, (size_t)(q - p)), &fail);
	}
	put(o, "guest_kernels", kernels, &fail);
	put(o, "host_state", r->host_state ? json_loads(r->host_state, 0, NULL) : json_null(),
	    &fail);
	if (fail) {
		json_decref(o);
		return vtb_error("out of memory");
	}
	c->info = o;
	c->uuid = vtb_strdup(r->uuid);
	return c->uuid ? 0 : vtb_error("out of memory");
}

/* ------------------------------------------------------------- index */

/* Strings to positions: sorted keys, binary search. */
struct ent {
	char *k;
	size_t i;
};

struct index {
	struct ent *e;
	size_t n;
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->k, ((const struct ent *)b)->k);
}

static char *key2(const char *a, const char *b)
{
	return vtb_asprintf("%s\x1f%s", a, b);
}

/* The cells of @c by (configuration, cell key), or by name. */
static int index_cells(const struct campaign *c, bool by_name, struct index *ix)
{
	ix->e = calloc(c->nci ? c->nci : 1, sizeof(*ix->e));
	ix->n = 0;
	if (!ix->e)
		return vtb_error("out of memory");
	for (size_t i = 0; i < c->nci; i++) {
		const struct cellinfo *ci = &c->ci[i];

		ix->e[i].i = i;
		ix->e[i].k = key2(ci->config_key, by_name ? ci->cell_name : ci->cell_key);
		if (!ix->e[i].k)
			return vtb_error("out of memory");
		ix->n++;
	}
	qsort(ix->e, ix->n, sizeof(*ix->e), ent_cmp);
	return 0;
}

static void index_release(struct index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->e[i].k);
	free(ix->e);
	ix->e = NULL;
	ix->n = 0;
}

/* The position for (@a, @b), or -1 (-2: no memory). */
static long index_find(const struct index *ix, const char *a, const char *b)
{
	struct ent key = { .k = key2(a, b) }, *e;

	if (!key.k)
		return -2;
	e = bsearch(&key, ix->e, ix->n, sizeof(*ix->e), ent_cmp);
	free(key.k);
	return e ? (long)e->i : -1;
}

/* Each cell's series: those of one (configuration, cell) are contiguous
 * (find_series() keeps them so). */
static int cells_index_series(struct campaign *c)
{
	struct index ix = { 0 };
	int ret = -1;

	if (index_cells(c, false, &ix) < 0)
		goto out;
	for (size_t i = 0; i < c->n;) {
		size_t j = i + 1;
		long k;

		while (j < c->n && !strcmp(c->s[j].config_key, c->s[i].config_key) &&
		       !strcmp(c->s[j].cell_key, c->s[i].cell_key))
			j++;
		k = index_find(&ix, c->s[i].config_key, c->s[i].cell_key);
		if (k == -2) {
			vtb_error("out of memory");
			goto out;
		}
		if (k >= 0) {
			c->ci[k].lo = i;
			c->ci[k].hi = j;
		}
		i = j;
	}
	ret = 0;
out:
	index_release(&ix);
	return ret;
}

/*
 * Resolves @spec (NULL: the latest campaign) in @st and loads it.  An
 * input problem sets *bad.
 */
static int add_failure(const struct vtb_failure_row *r, void *arg)
{
	json_t *a = arg, *o = json_object(), *reps = json_array();
	bool fail = !o || !reps;
	const char *p;

	for (p = r->reps; p && *p && !fail; p += strcspn(p, ","), p += *p == ',')
		push(reps, json_integer(strtoll(p, NULL, 10)), &fail);
	put(o, "config", jstr(r->config_key), &fail);
	put(o, "label", jstr(r->config_label), &fail);
	put(o, "cell", jstr(r->cell_name), &fail);
	put(o, "status", jstr(r->status), &fail);
	put(o, "boots", json_integer(r->boots), &fail);
	put(o, "reps", reps, &fail);
	put(o, "reason", jstr(r->reason), &fail);
	push(a, o, &fail);
	return fail ? vtb_error("out of memory") : 0;
}

/* The campaign's boots by status and what failed (the "boots" and
 * "failures" members of its object): what a reader must see first. */
static int campaign_failures(struct vtb_store *st, struct campaign *c)
{
	struct vtb_boot_counts n;
	json_t *b = json_object(), *f = json_array();
	bool fail = !b || !f;

	if (fail || vtb_store_boot_counts(st, c->id, &n) < 0 ||
	    vtb_store_foreach_failure(st, c->id, add_failure, f) < 0) {
		json_decref(b);
		json_decref(f);
		return fail ? vtb_error("out of memory") : -1;
	}
	put(b, "total", json_integer(n.total), &fail);
	put(b, "ok", json_integer(n.ok), &fail);
	put(b, "failed", json_integer(n.failed), &fail);
	put(b, "timeout", json_integer(n.timeout), &fail);
	put(b, "unexpected-topology", json_integer(n.unexpected), &fail);
	put(c->info, "boots", b, &fail);
	put(c->info, "failures", f, &fail);
	return fail ? vtb_error("out of memory") : 0;
}

static int campaign_load(struct vtb_store *st, const char *db, const char *spec,
			 const struct vtb_compare_opts *o, struct campaign *c, bool *bad)
{
	bool found = false;
	size_t n = 0;

	if (!spec) {
		if (vtb_store_latest_campaign(st, &c->id, &found) < 0)
			return -1;
		if (!found) {
			*bad = true;
			return vtb_error("no campaign in '%s'", db);
		}
	} else {
		if (vtb_store_campaign_lookup(st, spec, &c->id, &n) < 0)
			return -1;
		if (!n) {
			*bad = true;
			return vtb_error("no campaign '%s' in '%s' (vtbench list runs shows them)",
					 spec, db);
		}
		if (n > 1) {
			*bad = true;
			return vtb_error("campaign '%s' is ambiguous in '%s': %zu campaigns start "
					 "with it",
					 spec, db, n);
		}
	}
	c->st = st;
	c->metric = o->metric;
	c->workload = o->workload;
	if (vtb_store_campaign_get(st, c->id, campaign_info, c) < 0 ||
	    vtb_store_foreach_config(st, c->id, add_config, c) < 0 ||
	    vtb_store_foreach_sample(st, c->id, add_sample, c) < 0 ||
	    vtb_store_foreach_campaign_cell(st, c->id, add_cell, c) < 0 ||
	    cells_index_series(c) < 0)
		return -1;
	if (!c->info)
		return vtb_error("campaign %" PRId64 " vanished from '%s'", c->id, db);
	if (campaign_failures(st, c) < 0)
		return -1;
	if (o->workload && c->samples_seen && !c->workload_seen) {
		*bad = true;
		return vtb_error("no workload or cell '%s' in campaign %s", o->workload, c->uuid);
	}
	if (o->metric && c->workload_seen && !c->n) {
		*bad = true;
		return vtb_error("no metric matches '%s' in campaign %s", o->metric, c->uuid);
	}
	return 0;
}

/* ----------------------------------------------------------- pairing */

static long config_index(const struct campaign *c, const char *key)
{
	for (size_t i = 0; i < c->nc; i++)
		if (!strcmp(c->c[i].key, key))
			return (long)i;
	return -1;
}

enum { P_OK, P_MISSING, P_UNITS };

/* A row to be: a metric of a cell on both sides (P_OK), on one side only
 * or on none (P_MISSING), or with units that differ (P_UNITS). */
struct pair {
	long b, x;	 /* series of the base campaign, of the main campaign; -1: none */
	size_t bci, xci; /* their cells */
	int kind;
};

struct pairs {
	struct pair *p;
	size_t n, cap;
};

static int pair_add(struct pairs *ps, struct pair p)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct pair *g = realloc(ps->p, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		ps->p = g;
		ps->cap = cap;
	}
	ps->p[ps->n++] = p;
	return 0;
}

/*
 * Each VM configuration's own baseline: the baseline configuration on
 * exactly its pCPUs with as many CPUs ([baseline] vm = yes), else the
 * first baseline with as many CPUs (VMs side by side: their
 * configuration's pCPUs are all VMs', each VM's baseline has as many as
 * one VM).  base[i] = -1: none (and for baselines).
 */
static void own_baselines(const struct campaign *c, long *base)
{
	for (size_t i = 0; i < c->nc; i++) {
		const struct config *v = &c->c[i];

		base[i] = -1;
		if (strcmp(v->kind, "vm"))
			continue;
		for (size_t j = 0; j < c->nc && base[i] < 0; j++)
			if (!strcmp(c->c[j].kind, "baseline") && c->c[j].ncpus == v->ncpus &&
			    *v->cpus && !strcmp(c->c[j].cpus, v->cpus))
				base[i] = (long)j;
		for (size_t j = 0; j < c->nc && base[i] < 0; j++)
			if (!strcmp(c->c[j].kind, "baseline") && c->c[j].ncpus == v->ncpus)
				base[i] = (long)j;
	}
}

/* --baseline SPEC: a configuration key prefix, else a label glob; one
 * configuration, every other one compared with it. */
static int named_baseline(const struct campaign *c, const char *spec, long *base, bool *bad)
{
	long found = -1;
	size_t n = 0;

	for (size_t i = 0; i < c->nc; i++)
		if (!strncmp(c->c[i].key, spec, strlen(spec)) && (n++, found < 0))
			found = (long)i;
	if (!n)
		for (size_t i = 0; i < c->nc; i++)
			if (!fnmatch(spec, c->c[i].label, 0) && (n++, found < 0))
				found = (long)i;
	if (!n) {
		*bad = true;
		return vtb_error("no configuration of campaign %s matches baseline '%s' (a key "
				 "prefix or a label glob)",
				 c->uuid, spec);
	}
	if (n > 1) {
		*bad = true;
		return vtb_error("baseline '%s' matches %zu configurations of campaign %s; name one",
				 spec, n, c->uuid);
	}
	for (size_t i = 0; i < c->nc; i++)
		base[i] = (long)i == found ? -1 : found;
	return 0;
}

/* Does params key @k belong to axis @axis?  "topology" and "sched" take
 * their sections' keys ("topology.cores") along. */
static bool axis_key(const char *axis, const char *k)
{
	size_t n = strlen(axis);

	return !strncmp(k, axis, n) && (!k[n] || k[n] == '.');
}

/* The configuration's parameters without the axis, canonical. */
static char *without_axis(const struct config *f, const char *axis, bool *has)
{
	json_t *o = json_object();
	const char *k;
	json_t *v;
	char *s;

	if (!o)
		return NULL;
	json_object_foreach(f->params, k, v)
	{
		if (axis_key(axis, k))
			*has = true;
		else if (json_object_set(o, k, v))
			break;
	}
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	if (!s)
		return NULL;
	/* the kind is part of what must be equal */
	{
		char *t = vtb_asprintf("%s %s", f->kind, s);

		free(s);
		return t;
	}
}

/* --axis NAME over configuration parameters: configurations equal in
 * everything but the axis form a group; its first (matrix order) is the
 * others' baseline. */
static int axis_baselines(const struct campaign *c, const char *axis, long *base, bool *bad)
{
	char **rest = calloc(c->nc ? c->nc : 1, sizeof(*rest));
	bool has = false;
	size_t groups = 0;
	int ret = -1;

	if (!rest)
		return vtb_error("out of memory");
	for (size_t i = 0; i < c->nc; i++) {
		base[i] = -1;
		rest[i] = without_axis(&c->c[i], axis, &has);
		if (!rest[i]) {
			vtb_error("out of memory");
			goto out;
		}
	}
	if (!has) {
		*bad = true;
		vtb_error("no configuration of campaign %s has the axis '%s' (axes: topology, "
			  "pinning, sched, vcpus, host, kernel, or a parameter of the "
			  "configurations)",
			  c->uuid, axis);
		goto out;
	}
	for (size_t i = 0; i < c->nc; i++) {
		for (size_t j = 0; j < i; j++)
			if (base[j] < 0 && !strcmp(rest[i], rest[j])) {
				base[i] = (long)j;
				break;
			}
	}
	for (size_t i = 0; i < c->nc; i++)
		groups += base[i] >= 0;
	if (!groups) {
		*bad = true;
		vtb_error("no two configurations of campaign %s differ only in '%s'", c->uuid,
			  axis);
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < c->nc; i++)
		free(rest[i]);
	free(rest);
	return ret;
}

/* Would --axis @axis pair two configurations of @c?  (axis_baselines
 * without its messages.)  -1 when out of memory. */
static int axis_pairs(const struct campaign *c, const char *axis)
{
	char **rest = calloc(c->nc ? c->nc : 1, sizeof(*rest));
	bool has = false;
	int ret = -1, found = 0;

	if (!rest)
		return -1;
	for (size_t i = 0; i < c->nc; i++) {
		bool h = false;

		rest[i] = without_axis(&c->c[i], axis, &h);
		if (!rest[i])
			goto out;
		has |= h;
	}
	for (size_t i = 0; i < c->nc && has && !found; i++)
		for (size_t j = 0; j < i && !found; j++)
			found = !strcmp(rest[i], rest[j]);
	ret = found;
out:
	for (size_t i = 0; i < c->nc; i++)
		free(rest[i]);
	free(rest);
	return ret;
}

/*
 * Each VM against its own baseline found nothing to compare: what would
 * (the "advice" of the document).  Axes are the configurations'
 * parameters (the part before a '.') that pair two of them; a campaign of
 * baselines alone has no VM to compare with them.  NULL when out of
 * memory.
 */
static json_t *advice_json(const struct campaign *c)
{
	struct vtb_strbuf axes = VTB_STRBUF_INIT;
	json_t *seen = json_object(), *out = NULL;
	size_t vms = 0, bases = 0, naxes = 0;
	char *msg = NULL;
	bool fail = !seen;

	for (size_t i = 0; i < c->nc && !fail; i++) {
		const char *k;
		json_t *v;

		vms += !strcmp(c->c[i].kind, "vm");
		bases += !strcmp(c->c[i].kind, "baseline");
		json_object_foreach(c->c[i].params, k, v)
		{
			char *a = vtb_asprintf("%.*s", (int)strcspn(k, "."), k);
			int works;

			if (!a || json_object_get(seen, a)) {
				fail |= !a;
				free(a);
				continue;
			}
			works = json_object_set_new(seen, a, json_true()) ? -1 : axis_pairs(c, a);
			if (works < 0 || (works && vtb_strbuf_addf(&axes, "%s--axis %s",
								     naxes ? " or " : "", a) < 0))
				fail = true;
			naxes += works > 0;
			free(a);
		}
	}
	if (fail)
		goto out;
	if (!vms)
		msg = vtb_asprintf(
			"campaign %s ran %zu bare-metal baseline%s and no VM: there is no guest to "
			"compare with a host. Compare the baselines with each other (%s), or add "
			"[vm] configurations to the matrix",
			c->uuid, bases, bases == 1 ? "" : "s",
			naxes ? vtb_strbuf_str(&axes) : "--baseline LABEL-GLOB");
	else
		msg = vtb_asprintf(
			"no VM configuration of campaign %s has a bare-metal baseline with as many "
			"CPUs: compare %s, or add a [baseline] with the VMs' CPU count to the matrix",
			c->uuid,
			naxes ? vtb_strbuf_str(&axes) : "with one named configuration (--baseline "
							 "LABEL-GLOB)");
	out = msg ? json_string(msg) : NULL;
out:
	free(msg);
	vtb_strbuf_release(&axes);
	json_decref(seen);
	return out;
}

/* Axes that are not configuration parameters: they differ between
 * campaigns (compared with --against). */
static bool campaign_axis(const char *axis)
{
	return !strcmp(axis, "host") || !strcmp(axis, "kernel") || !strcmp(axis, "guest-kernel") ||
	       !strcmp(axis, "guest_kernel") || !strcmp(axis, "guest kernel");
}

/*
 * --axis host|kernel within one database (a merged one, vtbench merge):
 * the campaign @x is compared with the latest other campaign that differs
 * in that axis alone at the campaign level (host: another host name;
 * kernel: the same host name, another host kernel) and shares a
 * configuration key with it.
 */
struct other_find {
	struct vtb_store *st;
	const char *axis, *host, *kernel;
	const struct campaign *x;
	int64_t id;
	char *uuid; /* the latest match so far (runs come oldest first) */
	bool host_ok, shares;
};

static int other_config(const struct vtb_config_row *r, void *arg)
{
	struct other_find *f = arg;

	if (!f->shares && config_index(f->x, r->key) >= 0)
		f->shares = true;
	return 0;
}

static int other_host(const struct vtb_campaign_row *r, void *arg)
{
	struct other_find *f = arg;
	const char *h = r->hostname ? r->hostname : "", *k = r->host_kernel ? r->host_kernel : "";

	if (!strcmp(f->axis, "host"))
		f->host_ok = strcmp(h, f->host) != 0;
	else
		f->host_ok = !strcmp(h, f->host) && strcmp(k, f->kernel) != 0;
	return 0;
}

static int other_run(const struct vtb_run_row *r, void *arg)
{
	struct other_find *f = arg;

	if (r->id == f->x->id)
		return 0;
	f->host_ok = f->shares = false;
	if (vtb_store_campaign_get(f->st, r->id, other_host, f) < 0)
		return -1;
	if (!f->host_ok)
		return 0;
	if (vtb_store_foreach_config(f->st, r->id, other_config, f) < 0)
		return -1;
	if (!f->shares)
		return 0;
	free(f->uuid);
	f->uuid = vtb_strdup(r->uuid);
	if (!f->uuid)
		return vtb_error("out of memory");
	f->id = r->id;
	return 0;
}

static int find_other(struct vtb_store *st, const char *db, const struct campaign *x,
		      const char *axis, char **uuid, bool *bad)
{
	struct other_find f = { .st = st, .axis = axis, .x = x };

	*uuid = NULL;
	f.host = json_string_value(json_object_get(x->info, "host"));
	f.kernel = json_string_value(json_object_get(x->info, "kernel"));
	if (!f.host)
		f.host = "";
	if (!f.kernel)
		f.kernel = "";
	if (vtb_store_foreach_run(st, other_run, &f) < 0) {
		free(f.uuid);
		return -1;
	}
	if (!f.uuid) {
		*bad = true;
		if (!strcmp(axis, "host"))
			return vtb_error(
				"no campaign of another host in '%s' shares a configuration "
				"with campaign %s (vtbench merge unites hosts' databases; or "
				"give --against OTHER.db)",
				db, x->uuid);
		return vtb_error("no campaign of host '%s' with another kernel in '%s' shares a "
				 "configuration with campaign %s (or give --against OTHER.db)",
				 f.host, db, x->uuid);
	}
	*uuid = f.uuid;
	return 0;
}

/* Is @m the metric of an earlier series in [lo, i)? */
static bool seen_before(const struct campaign *c, size_t lo, size_t i, const char *m)
{
	for (size_t k = lo; k < i; k++)
		if (!strcmp(c->s[k].metric, m))
			return true;
	return false;
}

/* Series of [lo, hi) with metric @m: how many, the first in *first. */
static size_t with_metric(const struct campaign *c, size_t lo, size_t hi, const char *m,
			  long *first)
{
	size_t n = 0;

	*first = -1;
	for (size_t k = lo; k < hi; k++)
		if (!strcmp(c->s[k].metric, m) && !n++)
			*first = (long)k;
	return n;
}

/*
 * The rows of one cell on both sides: each metric of either side, in the
 * order the x side reported them, then the base side's others.  A cell
 * without any series on either side is one missing row (unless --metric
 * narrows the rows: then nothing says which metric it would have been).
 */
static int pair_cell(const struct campaign *bc, size_t bci, const struct campaign *xc, size_t xci,
		     bool metric_filter, struct pairs *ps)
{
	const struct cellinfo *B = &bc->ci[bci], *X = &xc->ci[xci];

	if (B->lo == B->hi && X->lo == X->hi)
		return metric_filter ? 0
				     : pair_add(ps, (struct pair){ -1, -1, bci, xci, P_MISSING });
	for (size_t i = X->lo; i < X->hi; i++) {
		const char *m = xc->s[i].metric;
		long fb, fx;
		size_t nb, nx;
		int kind;

		if (seen_before(xc, X->lo, i, m))
			continue;
		nx = with_metric(xc, X->lo, X->hi, m, &fx);
		nb = with_metric(bc, B->lo, B->hi, m, &fb);
		if (!nb)
			kind = P_MISSING;
		else if (nx == 1 && nb == 1 && !strcmp(xc->s[fx].unit, bc->s[fb].unit))
			kind = P_OK;
		else
			kind = P_UNITS;
		if (pair_add(ps, (struct pair){ fb, fx, bci, xci, kind }) < 0)
			return -1;
	}
	for (size_t i = B->lo; i < B->hi; i++) {
		const char *m = bc->s[i].metric;
		long fx;

		if (seen_before(bc, B->lo, i, m) || with_metric(xc, X->lo, X->hi, m, &fx))
			continue;
		if (pair_add(ps, (struct pair){ (long)i, -1, bci, xci, P_MISSING }) < 0)
			return -1;
	}
	return 0;
}

/*
 * Pairs the cells of @xc's configurations with their base's in @bc:
 * within one campaign (@bc == @xc) from @base[] per configuration, cells
 * matched by name (a VM's cell and its baseline's differ in key where
 * their resolved parameters do); across campaigns (@base NULL) the same
 * configuration key, cells matched by key.  Configurations that were not
 * runnable have no rows.
 */
static int pair_campaigns(const struct campaign *bc, const struct campaign *xc, const long *base,
			  bool metric_filter, struct pairs *ps)
{
	struct index ix = { 0 };
	long last_cfg = -1;
	const char *last_key = NULL;
	int ret = -1;

	if (index_cells(bc, base != NULL, &ix) < 0)
		goto out;
	for (size_t i = 0; i < xc->nci; i++) {
		const struct cellinfo *X = &xc->ci[i];
		long bcfg, b;

		if (!last_key || strcmp(last_key, X->config_key)) {
			last_cfg = config_index(xc, X->config_key);
			last_key = X->config_key;
		}
		if (last_cfg < 0 || !xc->c[last_cfg].runnable)
			continue;
		bcfg = base ? base[last_cfg] : config_index(bc, X->config_key);
		if (bcfg < 0 || !bc->c[bcfg].runnable)
			continue;
		b = index_find(&ix, bc->c[bcfg].key, base ? X->cell_name : X->cell_key);
		if (b == -2) {
			vtb_error("out of memory");
			goto out;
		}
		if (b >= 0 && pair_cell(bc, (size_t)b, xc, i, metric_filter, ps) < 0)
			goto out;
	}
	ret = 0;
out:
	index_release(&ix);
	return ret;
}

/* ---------------------------------------------------------- the rows */

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
	long i = config_index(c, config_key);
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

static int build_rows(struct campaign *bc, struct campaign *xc, const struct pairs *ps,
		      const struct vtb_compare_opts *o, bool cross, json_t *doc)
{
	struct vtb_comparison *cmp = calloc(ps->n ? ps->n : 1, sizeof(*cmp));
	double *p = calloc(ps->n ? ps->n : 1, sizeof(*p)),
	       *q = calloc(ps->n ? ps->n : 1, sizeof(*q));
	size_t count[VTB_V_COUNT] = { 0 }, confirmed = 0, possible = 0, nnoisy = 0;
	json_t *rows = json_array(), *sum = json_object();
	bool fail = !rows || !sum;
	int ret = -1;

	if (!cmp || !p || !q || fail) {
		vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < ps->n; i++) {
		const struct pair *pr = &ps->p[i];
		struct series *b = pr->b >= 0 ? &bc->s[pr->b] : NULL;
		struct series *x = pr->x >= 0 ? &xc->s[pr->x] : NULL;

		if ((b && series_summarise(b) < 0) || (x && series_summarise(x) < 0))
			goto out;
		p[i] = NAN;
		if (pr->kind != P_OK)
			continue;
		vtb_compare_samples(b->v, b->n, x->v, x->n, x->k, &o->test, &cmp[i]);
		p[i] = cmp[i].p;
	}
	if (vtb_bh(p, ps->n, q) < 0)
		goto out;
	for (size_t i = 0; i < ps->n && !fail; i++) {
		const struct pair *pr = &ps->p[i];
		const struct cellinfo *B = &bc->ci[pr->bci], *X = &xc->ci[pr->xci];
		struct series *b = pr->b >= 0 ? &bc->s[pr->b] : NULL;
		struct series *x = pr->x >= 0 ? &xc->s[pr->x] : NULL;
		const struct series *any = x ? x : b;
		struct vtb_comparison *c = &cmp[i];
		char *reason = NULL;
		json_t *r = json_object();
		bool nz = noisy(b, &o->test) || noisy(x, &o->test);

		if (pr->kind == P_OK) {
			c->q = q[i];
			vtb_verdict(c, x->better != 0, &o->test);
			if (c->verdict == VTB_V_ERROR)
				reason = why_error(c, b, x, bc, xc, cross);
		} else {
			*c = (struct vtb_comparison){ .change_pct = NAN,
						      .ci_low_pct = NAN,
						      .ci_high_pct = NAN,
						      .p = NAN,
						      .q = NAN,
						      .boots_needed = NAN };
			if (pr->kind == P_UNITS) {
				c->verdict = VTB_V_ERROR;
				reason = why_units(pr, bc, xc, cross);
			} else {
				char *rb = b ? NULL
					     : why_missing(bc, B, any ? any->metric : NULL, cross);
				char *rx = x ? NULL
					     : why_missing(xc, X, any ? any->metric : NULL, cross);

				c->verdict = VTB_V_MISSING;
				if ((!b && !rb) || (!x && !rx)) {
					free(rb);
					free(rx);
					json_decref(r);
					goto out;
				}
				reason = rb && rx ? vtb_asprintf("%s; %s", rx, rb)
						  : vtb_strdup(rb ? rb : rx);
				free(rb);
				free(rx);
			}
		}
		if (c->verdict == VTB_V_ERROR || c->verdict == VTB_V_MISSING)
			fail |= !reason;
		count[c->verdict]++;
		confirmed += c->confirmed;
		possible += c->possible;
		nnoisy += nz;
		push(rows, r, &fail);
		if (fail) {
			free(reason);
			break;
		}
		put(r, "workload", json_string(X->workload), &fail);
		put(r, "cell", json_string(X->cell_name), &fail);
		put(r, "cell_key", json_string(X->cell_key), &fail);
		put(r, "metric", any ? json_string(any->metric) : json_null(), &fail);
		put(r, "unit", any ? json_string(any->unit) : json_null(), &fail);
		put(r, "class", any ? json_string(class_name(any->k)) : json_null(), &fail);
		put(r, "better", any ? json_string(any->better ? "higher" : "lower") : json_null(),
		    &fail);
		put(r, "base",
		    b ? side_json(b, bc->uuid) : empty_side_json(B->config_key, bc->uuid), &fail);
		put(r, "x", x ? side_json(x, xc->uuid) : empty_side_json(X->config_key, xc->uuid),
		    &fail);
		put(r, "effect", any ? json_string(vtb_metric_class_effect(any->k)) : json_null(),
		    &fail);
		put(r, "change_pct", jreal(c->change_pct), &fail);
		put(r, "ci_low_pct", jreal(c->ci_low_pct), &fail);
		put(r, "ci_high_pct", jreal(c->ci_high_pct), &fail);
		put(r, "test", pr->kind == P_OK ? jstr(c->test) : json_null(), &fail);
		put(r, "df", jreal(c->df), &fail);
		put(r, "p", jreal(c->p), &fail);
		put(r, "q", jreal(c->q), &fail);
		put(r, "significant", json_boolean(!isnan(c->q) && c->q < o->test.alpha), &fail);
		put(r, "verdict", json_string(vtb_verdict_name(c->verdict)), &fail);
		put(r, "confirmed", json_boolean(c->confirmed), &fail);
		put(r, "possible", json_boolean(c->possible), &fail);
		put(r, "boots_needed",
		    isfinite(c->boots_needed) ? json_integer((json_int_t)c->boots_needed)
					      : json_null(),
		    &fail);
		put(r, "noisy", json_boolean(nz), &fail);
		put(r, "reason", jstr(reason), &fail);
		free(reason);
	}
	put(sum, "rows", json_integer((json_int_t)ps->n), &fail);
	for (int v = 0; v < VTB_V_COUNT; v++)
		put(sum, vtb_verdict_name(v), json_integer((json_int_t)count[v]), &fail);
	put(sum, "confirmed", json_integer((json_int_t)confirmed), &fail);
	put(sum, "possible", json_integer((json_int_t)possible), &fail);
	put(sum, "noisy", json_integer((json_int_t)nnoisy), &fail);
	put(doc, "rows", rows, &fail);
	rows = NULL;
	put(doc, "summary", sum, &fail);
	sum = NULL;
	if (fail) {
		vtb_error("out of memory");
		goto out;
	}
	ret = 0;
out:
	json_decref(rows);
	json_decref(sum);
	free(cmp);
	free(p);
	free(q);
	return ret;
}

/* Every series of the main campaign with its summary: what a table of
 * one campaign shows, compared or not (a campaign of baselines only has
 * no rows). */
static int build_series(struct campaign *c, json_t *doc)
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
		put(o, "class", json_string(class_name(s->k)), &fail);
		put(o, "better", json_string(s->better ? "higher" : "lower"), &fail);
		put(o, "summary", json_incref(s->jsum), &fail);
	}
	put(doc, "series", a, &fail);
	return fail ? vtb_error("out of memory") : 0;
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

/* ----------------------------------------------------------- evidence */

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

static int build_evidence(struct vtb_store *st, const struct campaign *c, json_t *doc)
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
out:
	json_decref(e.list);
	free(e.key);
	return ret;
}

/* -------------------------------------------------------- histograms */

struct bucket {
	json_int_t idx, count;
};

struct hist_acc {
	json_t *list;
	const char *campaign;
	char *config, *cell_key, *metric, *params;
	json_t *cur;
	struct bucket *b;
	size_t n, cap, boots;
	bool fail;
};

static int bucket_cmp(const void *a, const void *b)
{
	json_int_t x = ((const struct bucket *)a)->idx, y = ((const struct bucket *)b)->idx;

	return x < y ? -1 : x > y;
}

static void hist_close(struct hist_acc *h)
{
	json_int_t total = 0;
	json_t *a;
	size_t i, j;

	if (!h->cur)
		return;
	if (h->n) /* qsort(NULL, 0) is undefined: boots without buckets */
		qsort(h->b, h->n, sizeof(*h->b), bucket_cmp);
	a = json_array();
	for (i = 0; i < h->n; i = j) {
		json_int_t sum = 0;
		bool over = false;

		/* each boot's histogram fits in 63 bits (the record parser checks
		 * it); their sum may not: then the merged one is left out */
		for (j = i; j < h->n && h->b[j].idx == h->b[i].idx; j++)
			over = over || __builtin_add_overflow(sum, h->b[j].count, &sum);
		if (over || __builtin_add_overflow(total, sum, &total)) {
			json_decref(a);
			a = json_null();
			put(h->cur, "error",
			    json_string(
				    "the bucket counts of its boots add up to more than 2^63 - 1: not merged"),
			    &h->fail);
			break;
		}
		push(a, json_pack("[I, I]", h->b[i].idx, sum), &h->fail);
	}
	put(h->cur, "buckets", a, &h->fail);
	put(h->cur, "boots", json_integer((json_int_t)h->boots), &h->fail);
	h->cur = NULL;
	h->n = 0;
}

static int add_hist(const struct vtb_hist_row *r, void *arg)
{
	struct hist_acc *h = arg;
	json_t *buckets, *pair;
	size_t i;

	if (!h->cur || strcmp(h->config, r->config_key) || strcmp(h->cell_key, r->cell_key) ||
	    strcmp(h->metric, r->metric)) {
		hist_close(h);
		free(h->config);
		free(h->cell_key);
		free(h->metric);
		free(h->params);
		h->config = vtb_strdup(r->config_key);
		h->cell_key = vtb_strdup(r->cell_key);
		h->metric = vtb_strdup(r->metric);
		h->params = vtb_strdup(r->params_json);
		h->boots = 0;
		h->cur = json_object();
		push(h->list, h->cur, &h->fail);
		if (!h->config || !h->cell_key || !h->metric || !h->params || h->fail)
			return vtb_error("out of memory");
		put(h->cur, "config", json_string(r->config_key), &h->fail);
		put(h->cur, "campaign", json_string(h->campaign), &h->fail);
		put(h->cur, "cell", json_string(r->cell_name), &h->fail);
		put(h->cur, "cell_key", json_string(r->cell_key), &h->fail);
		put(h->cur, "metric", json_string(r->metric), &h->fail);
		put(h->cur, "unit", json_string(r->unit), &h->fail);
		put(h->cur, "params", json_loads(r->params_json, 0, NULL), &h->fail);
	}
	/* histograms with other bucket parameters cannot be added up */
	if (strcmp(h->params, r->params_json))
		return 0;
	buckets = json_loads(r->buckets_json, 0, NULL);
	h->boots++;
	json_array_foreach(buckets, i, pair)
	{
		json_int_t idx, cnt;

		if (json_unpack(json_array_get(buckets, i), "[I, I]", &idx, &cnt))
			continue;
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 256;
			struct bucket *g = realloc(h->b, cap * sizeof(*g));

			if (!g) {
				json_decref(buckets);
				return vtb_error("out of memory");
			}
			h->b = g;
			h->cap = cap;
		}
		h->b[h->n++] = (struct bucket){ idx, cnt };
	}
	(void)pair;
	json_decref(buckets);
	return h->fail ? vtb_error("out of memory") : 0;
}

static int build_hists(struct vtb_store *st, const struct campaign *c, json_t *list)
{
	struct hist_acc h = { .list = list, .campaign = c->uuid };
	int ret = vtb_store_foreach_hist(st, c->id, add_hist, &h);

	hist_close(&h);
	if (!ret && h.fail)
		ret = vtb_error("out of memory");
	free(h.config);
	free(h.cell_key);
	free(h.metric);
	free(h.params);
	free(h.b);
	return ret;
}

/* ------------------------------------------------------- c2c matrices */

struct c2c_acc {
	json_t *list;
	const char *campaign;
	char *config, *cell_key;
	json_t *cur, *cpus; /* the first boot's CPUs: boots on others are left out */
	double *sum;
	size_t *cnt, n, boots;
	bool fail;
};

static void c2c_close(struct c2c_acc *a)
{
	json_t *rows;

	if (!a->cur)
		return;
	rows = json_array();
	for (size_t i = 0; rows && i < a->n; i++) {
		json_t *row = json_array();

		push(rows, row, &a->fail);
		for (size_t j = 0; row && j < a->n; j++)
			push(row,
			     a->cnt[i * a->n + j]
				     ? jreal(a->sum[i * a->n + j] / (double)a->cnt[i * a->n + j])
				     : json_null(),
			     &a->fail);
	}
	put(a->cur, "matrix_ns", rows, &a->fail);
	put(a->cur, "boots", json_integer((json_int_t)a->boots), &a->fail);
	a->cur = NULL;
}

static int add_matrix(const struct vtb_matrix_row *r, void *arg)
{
	struct c2c_acc *a = arg;
	json_t *m = json_loads(r->matrix_json, 0, NULL), *cpus = json_object_get(m, "cpus"),
	       *ns = json_object_get(m, "ns");
	int ret = 0;

	if (!json_is_array(cpus) || !json_is_array(ns))
		goto out;
	if (!a->cur || strcmp(a->config, r->config_key) || strcmp(a->cell_key, r->cell_key)) {
		c2c_close(a);
		free(a->config);
		free(a->cell_key);
		free(a->sum);
		free(a->cnt);
		a->n = json_array_size(cpus);
		a->boots = 0;
		a->config = vtb_strdup(r->config_key);
		a->cell_key = vtb_strdup(r->cell_key);
		a->sum = calloc(a->n * a->n + 1, sizeof(*a->sum));
		a->cnt = calloc(a->n * a->n + 1, sizeof(*a->cnt));
		a->cur = json_object();
		push(a->list, a->cur, &a->fail);
		if (!a->config || !a->cell_key || !a->sum || !a->cnt || a->fail) {
			ret = vtb_error("out of memory");
			goto out;
		}
		a->cpus = json_deep_copy(cpus);
		put(a->cur, "config", json_string(r->config_key), &a->fail);
		put(a->cur, "campaign", json_string(a->campaign), &a->fail);
		put(a->cur, "cell", json_string(r->cell_name), &a->fail);
		put(a->cur, "cell_key", json_string(r->cell_key), &a->fail);
		put(a->cur, "cpus", a->cpus, &a->fail);
	}
	if (!json_equal(cpus, a->cpus))
		goto out;
	a->boots++;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < a->n; j++) {
			json_t *v = json_array_get(json_array_get(ns, i), j);

			if (json_is_number(v)) {
				a->sum[i * a->n + j] += json_number_value(v);
				a->cnt[i * a->n + j]++;
			}
		}
	if (a->fail)
		ret = vtb_error("out of memory");
out:
	json_decref(m);
	return ret;
}

static int build_c2c(struct vtb_store *st, const struct campaign *c, json_t *list)
{
	struct c2c_acc a = { .list = list, .campaign = c->uuid };
	int ret = vtb_store_foreach_matrix(st, c->id, add_matrix, &a);

	c2c_close(&a);
	if (!ret && a.fail)
		ret = vtb_error("out of memory");
	free(a.config);
	free(a.cell_key);
	free(a.sum);
	free(a.cnt);
	return ret;
}

/* ------------------------------------------------------------ the doc */

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

int vtb_compare_build(struct vtb_store *st, const char *db, struct vtb_store *against,
		      const char *against_db, const struct vtb_compare_opts *o, json_t **doc,
		      bool *bad_input)
{
	struct campaign x = { 0 }, b = { 0 };
	bool cross = against || o->against_campaign;
	/* --axis host|kernel alone: the other side is found in this database */
	bool find = o->axis && !cross && (!strcmp(o->axis, "host") || !strcmp(o->axis, "kernel"));
	char *other = NULL;
	struct vtb_store *bst = against ? against : st;
	const char *bdb = against ? against_db : db;
	struct pairs ps = { 0 };
	json_t *d = json_object(), *configs = json_array(), *hists = json_array(),
	       *c2c = json_array();
	long *base = NULL;
	bool fail = !d || !configs || !hists || !c2c;
	int ret = -1;

	*doc = NULL;
	*bad_input = false;
	if (fail) {
		vtb_error("out of memory");
		goto out;
	}
	if (o->baseline && strcmp(o->baseline, "own") && (cross || o->axis)) {
		*bad_input = true;
		vtb_error("--baseline compares configurations of one campaign: not with %s",
			  cross ? "--against or --against-campaign" : "--axis");
		goto out;
	}
	if (o->axis && campaign_axis(o->axis) && !cross && !find) {
		*bad_input = true;
		vtb_error("the axis '%s' differs between campaigns: give --against OTHER.db or "
			  "--against-campaign ID",
			  o->axis);
		goto out;
	}
	if (o->axis && !campaign_axis(o->axis) && cross) {
		*bad_input = true;
		vtb_error("--axis %s compares configurations of one campaign: not with --against",
			  o->axis);
		goto out;
	}
	if (campaign_load(st, db, o->campaign, o, &x, bad_input) < 0)
		goto out;
	if (find) {
		if (find_other(st, db, &x, o->axis, &other, bad_input) < 0)
			goto out;
		cross = true;
	}
	if (cross) {
		if (campaign_load(bst, bdb, other ? other : o->against_campaign, o, &b, bad_input) <
		    0)
			goto out;
		if (pair_campaigns(&b, &x, NULL, o->metric != NULL, &ps) < 0)
			goto out;
		if (!ps.n) {
			*bad_input = true;
			vtb_error("no cell of campaign %s matches one of campaign %s (cells are "
				  "matched by configuration and cell key)",
				  x.uuid, b.uuid);
			goto out;
		}
	} else {
		base = calloc(x.nc ? x.nc : 1, sizeof(*base));
		if (!base) {
			vtb_error("out of memory");
			goto out;
		}
		if (o->axis) {
			if (axis_baselines(&x, o->axis, base, bad_input) < 0)
				goto out;
		} else if (o->baseline && strcmp(o->baseline, "own")) {
			if (named_baseline(&x, o->baseline, base, bad_input) < 0)
				goto out;
		} else {
			own_baselines(&x, base);
		}
		if (pair_campaigns(&x, &x, base, o->metric != NULL, &ps) < 0)
			goto out;
		if (!ps.n && (o->axis || (o->baseline && strcmp(o->baseline, "own")))) {
			*bad_input = true;
			vtb_error("nothing to compare in campaign %s: no cell and metric of the "
				  "selected configurations matches one of their baseline",
				  x.uuid);
			goto out;
		}
	}
	put(d, "schema", json_string(VTB_COMPARE_SCHEMA), &fail);
	put(d, "campaign", json_incref(x.info), &fail);
	put(d, "against", cross ? json_incref(b.info) : json_null(), &fail);
	put(d, "options", options_json(o), &fail);
	put(d, "advice", !ps.n && !cross ? advice_json(&x) : json_null(), &fail);
	if (fail || build_configs(&x, configs) < 0 || (cross && build_configs(&b, configs) < 0))
		goto oom;
	put(d, "configs", configs, &fail);
	configs = NULL;
	if (fail)
		goto oom;
	if (build_rows(cross ? &b : &x, &x, &ps, o, cross, d) < 0 || build_series(&x, d) < 0 ||
	    build_evidence(st, &x, d) < 0 || build_hists(st, &x, hists) < 0 ||
	    (cross && build_hists(bst, &b, hists) < 0) || build_c2c(st, &x, c2c) < 0 ||
	    (cross && build_c2c(bst, &b, c2c) < 0))
		goto out;
	put(d, "histograms", hists, &fail);
	hists = NULL;
	put(d, "c2c", c2c, &fail);
	c2c = NULL;
	if (fail)
		goto oom;
	*doc = d;
	d = NULL;
	ret = 0;
	goto out;
oom:
	vtb_error("out of memory");
out:
	/* a damaged or crafted database is input too */
	if (ret < 0 && (vtb_store_bad_content(st) || vtb_store_bad_content(bst)))
		*bad_input = true;
	json_decref(d);
	json_decref(configs);
	json_decref(hists);
	json_decref(c2c);
	free(base);
	free(ps.p);
	free(other);
	campaign_release(&x);
	campaign_release(&b);
	return ret;
}

size_t vtb_compare_failing(const json_t *doc, unsigned fail_on)
{
	json_t *r;
	size_t i, n = 0;

	json_array_foreach(json_object_get(doc, "rows"), i, r)
	{
		const char *v = json_string_value(json_object_get(r, "verdict"));

		if (!v)
			continue;
		if ((fail_on & VTB_FAIL_WORSE) &&
		    (!strcmp(v, "worse") || !strcmp(v, "missing") || !strcmp(v, "error")))
			n++;
		else if ((fail_on & VTB_FAIL_POSSIBLE) &&
			 json_is_true(json_object_get(r, "possible")))
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
		if (strcmp(v, "inconclusive") && strcmp(v, "few"))
			continue;
		(*undecided)++;
		for (size_t s = 0; s < 2; s++)
			for (size_t k = 0; sides[s] && k < nkeys; k++)
				if (!strcmp(keys[k], sides[s]))
					more[k] = true;
	}
	return 0;
}
