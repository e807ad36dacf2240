/* SPDX-License-Identifier: MIT */
/*
 * A campaign read from the store for compare: its samples into series
 * (one per configuration x cell x metric x unit, the per-boot values in
 * rep order), its configurations, its cells with their series, and the
 * document's "campaign" object (provenance, boots by status, failures).
 * The --metric and --workload filters apply here.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compare-priv.h"
#include "../evidence/evidence.h"
#include "../../workloads/workload.h"

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
	if (s->kv != s->v)
		free(s->kv);
	free(s->v);
	free(s->rep);
	free(s->boot);
	free(s->aside);
}

void cm_campaign_release(struct campaign *c)
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
	json_decref(c->sched);
	memset(c, 0, sizeof(*c));
}

/* ---- loading ---- */

void *cm_grow(void *p, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;

	if (n < *cap)
		return p;
	p = realloc(p, c * size);
	if (p)
		*cap = c;
	return p;
}

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
	/* the scheduler's evidence is shown in its own section; as rows
	 * only when asked for by name (--metric 'evidence/...'), so that
	 * neither '*' nor --family all mixes it into the gated table */
	if (vtb_evidence_metric(s->metric)) {
		if (cm_sched_add(c, s) < 0)
			return -1;
		if (!vtb_evidence_metric(c->metric))
			return 0;
	}
	if (c->metric && fnmatch(c->metric, s->metric, 0))
		return 0;
	r = find_series(c, s);
	if (!r) {
		struct series *g = cm_grow(c->s, &c->cap, c->n, sizeof(*g), 64);

		if (!g)
			return vtb_error("out of memory");
		c->s = g;
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
		int64_t *bp;
		int *rp;

		if (!g)
			return vtb_error("out of memory");
		r->v = g;
		rp = realloc(r->rep, cap * sizeof(*rp));
		if (!rp)
			return vtb_error("out of memory");
		r->rep = rp;
		bp = realloc(r->boot, cap * sizeof(*bp));
		if (!bp)
			return vtb_error("out of memory");
		r->boot = bp;
		r->cap = cap;
	}
	r->boot[r->n] = s->boot;
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
	ci = cm_grow(c->ci, &c->capci, c->nci, sizeof(*ci), 32);
	if (!ci)
		return vtb_error("out of memory");
	c->ci = ci;
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

/* ---- index ---- */

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->k, ((const struct ent *)b)->k);
}

static char *key2(const char *a, const char *b)
{
	return vtb_asprintf("%s\x1f%s", a, b);
}

/* The cells of @c by (configuration, cell key), or by name. */
int cm_index_cells(const struct campaign *c, bool by_name, struct index *ix)
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

void cm_index_release(struct index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->e[i].k);
	free(ix->e);
	ix->e = NULL;
	ix->n = 0;
}

/* The position for (@a, @b), or -1 (-2: no memory). */
long cm_index_find(const struct index *ix, const char *a, const char *b)
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

	if (cm_index_cells(c, false, &ix) < 0)
		goto out;
	for (size_t i = 0; i < c->n;) {
		size_t j = i + 1;
		long k;

		while (j < c->n && !strcmp(c->s[j].config_key, c->s[i].config_key) &&
		       !strcmp(c->s[j].cell_key, c->s[i].cell_key))
			j++;
		k = cm_index_find(&ix, c->s[i].config_key, c->s[i].cell_key);
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
	cm_index_release(&ix);
	return ret;
}

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

/* The names a filter could have matched, for the error when it matches
 * nothing: distinct, in the order met, counted; the first NAMES_SHOWN kept. */
#define NAMES_SHOWN 20
struct names {
	const char *workload; /* metrics: of the samples this one matches */
	bool metrics;	      /* metrics, else workloads and cell names */
	char *v[2][NAMES_SHOWN];
	size_t n[2], total[2];
	/* every distinct name, to count them (all of a list's distinct ones) */
	char **seen;
	size_t nseen, capseen;
};

/* @name into list @k of @nm unless it is there; -1 when out of memory. */
static int names_add(struct names *nm, int k, const char *name)
{
	char *d;

	/* newest first: a cell's samples come together, metric by metric */
	for (size_t i = nm->nseen; i-- > 0;)
		if (nm->seen[i][0] == '0' + k && !strcmp(nm->seen[i] + 1, name))
			return 0;
	if (nm->nseen == nm->capseen) {
		size_t cap = nm->capseen ? 2 * nm->capseen : 32;
		char **g = realloc(nm->seen, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		nm->seen = g;
		nm->capseen = cap;
	}
	d = vtb_asprintf("%c%s", '0' + k, name);
	if (!d)
		return vtb_error("out of memory");
	nm->seen[nm->nseen++] = d;
	if (nm->n[k] < NAMES_SHOWN)
		nm->v[k][nm->n[k]++] = d + 1;
	nm->total[k]++;
	return 0;
}

static int names_of_sample(const struct vtb_sample_row *s, void *arg)
{
	struct names *nm = arg;

	if (!nm->metrics) {
		if (names_add(nm, 0, s->workload) < 0 || names_add(nm, 1, s->cell_name) < 0)
			return -1;
		return 0;
	}
	if (!workload_matches(nm->workload, s->workload, s->cell_name) ||
	    vtb_evidence_metric(s->metric))
		return 0;
	return names_add(nm, 0, s->metric);
}

/* "a, b, c (and 12 more)" of list @k into @sb. */
static int names_list(struct vtb_strbuf *sb, const struct names *nm, int k)
{
	int fail = 0;

	for (size_t i = 0; i < nm->n[k]; i++)
		fail |= vtb_strbuf_addf(sb, "%s%s", i ? ", " : "", nm->v[k][i]);
	if (nm->total[k] > nm->n[k])
		fail |= vtb_strbuf_addf(sb, " (and %zu more)", nm->total[k] - nm->n[k]);
	return fail;
}

/*
 * The error for a --metric or --workload that matches nothing in @c:
 * what the campaign has (the metrics of the workloads selected, else its
 * workloads and cell names), counted, the first NAMES_SHOWN named; for a
 * reference tool's name, the workload that models it.
 */
static int filter_unmatched(struct vtb_store *st, const struct campaign *c,
			    const struct vtb_compare_opts *o, bool metrics)
{
	struct names nm = { .workload = o->workload, .metrics = metrics };
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int fail = 0, ret;

	if (vtb_store_foreach_sample(st, c->id, names_of_sample, &nm) < 0) {
		ret = -1;
		goto out;
	}
	if (metrics) {
		fail |= vtb_strbuf_addf(&sb, "no metric matches '%s' in campaign %s; ", o->metric,
					c->uuid);
		fail |= vtb_strbuf_addf(&sb, "%zu metric%s%s%s: ", nm.total[0],
					nm.total[0] == 1 ? "" : "s", o->workload ? " of " : "",
					o->workload ? o->workload : "");
		fail |= names_list(&sb, &nm, 0);
	} else {
		const struct vtb_workload_ops *w = vtb_workload_modelling(o->workload);

		fail |= vtb_strbuf_addf(&sb, "no workload or cell '%s' in campaign %s", o->workload,
					c->uuid);
		if (w)
			fail |= vtb_strbuf_addf(&sb, " ('%s' is the %s model)", w->name,
						o->workload);
		fail |= vtb_strbuf_addf(&sb, "; %zu workload%s: ", nm.total[0],
					nm.total[0] == 1 ? "" : "s");
		fail |= names_list(&sb, &nm, 0);
		fail |= vtb_strbuf_addf(&sb, "; %zu cell%s: ", nm.total[1],
					nm.total[1] == 1 ? "" : "s");
		fail |= names_list(&sb, &nm, 1);
	}
	ret = fail ? vtb_error("out of memory") : vtb_error("%s", vtb_strbuf_str(&sb));
out:
	for (size_t i = 0; i < nm.nseen; i++)
		free(nm.seen[i]);
	free(nm.seen);
	vtb_strbuf_release(&sb);
	return ret;
}

int cm_campaign_load(struct vtb_store *st, const char *db, const char *spec,
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
		return filter_unmatched(st, c, o, false);
	}
	if (o->metric && c->workload_seen && !c->n) {
		*bad = true;
		return filter_unmatched(st, c, o, true);
	}
	return 0;
}

long cm_config_index(const struct campaign *c, const char *key)
{
	for (size_t i = 0; i < c->nc; i++)
		if (!strcmp(c->c[i].key, key))
			return (long)i;
	return -1;
}
