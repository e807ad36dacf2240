/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf's expansion: axes into cells and configurations with
 * stable keys, the baselines (the cpus axis, and on each planned VM's
 * pCPUs), the cells' llc = auto from the host.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/index.h"
#include "../../workloads/workload.h"
#include "confint.h"

/* ---------------------------------------------------------------- expansion */

void mx_axes_release(struct axis *ax, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		mx_strv_release(&ax[i].vals);
}

/* Advances the odometer @idx over @ax; false when it wrapped. */
bool mx_next_combo(const struct axis *ax, size_t n, size_t *idx)
{
	size_t i = n;

	while (i--) {
		if (++idx[i] < ax[i].vals.n)
			return true;
		idx[i] = 0;
	}
	return false;
}

int mx_product(const struct parser *p, int line, const struct axis *ax, size_t n, size_t limit,
	       size_t *out)
{
	size_t i, total = 1;

	for (i = 0; i < n; i++) {
		if (ax[i].vals.n && total > limit / ax[i].vals.n)
			return mx_perr(p, line, "matrix too large (more than %zu combinations)",
				       limit);
		total *= ax[i].vals.n;
	}
	if (total > limit)
		return mx_perr(p, line, "matrix too large (%zu combinations, limit %zu)", total,
			       limit);
	*out = total;
	return 0;
}

static bool glob_any(const struct strv *globs, const char *s)
{
	size_t i;

	for (i = 0; i < globs->n; i++)
		if (!fnmatch(globs->v[i], s, 0))
			return true;
	return false;
}

static bool keep_cell(const struct parser *p, const char *label, const char *cell)
{
	char *full = vtb_asprintf("%s/%s", label, cell);
	bool keep;

	if (!full)
		return true;
	keep = !p->only.n || glob_any(&p->only, label) || glob_any(&p->only, full);
	if (glob_any(&p->exclude, label) || glob_any(&p->exclude, full))
		keep = false;
	free(full);
	return keep;
}

int vtb_cell_set_resolved(struct vtb_cell *c, const char *key, const char *value)
{
	char *v = strdup(value), *text;
	size_t i, alloc = c->resolved.n;
	json_t *j;

	if (!v)
		return vtb_error("out of memory");
	for (i = 0; i < c->resolved.n && strcmp(c->resolved.kv[i].key, key); i++)
		;
	if (i < c->resolved.n) {
		free(c->resolved.kv[i].value);
		c->resolved.kv[i].value = v;
	} else {
		int r = mx_params_add(&c->resolved, &alloc, key, v);

		free(v);
		if (r < 0)
			return -1;
		mx_params_sort(&c->resolved);
	}
	j = mx_params_json(&c->resolved);
	text = mx_canonical(j);
	json_decref(j);
	if (!text)
		return vtb_error("out of memory");
	free(c->resolved_json);
	c->resolved_json = text;
	return 0;
}

static void cell_release(struct vtb_cell *c)
{
	free(c->note);
	free(c->name);
	free(c->workload);
	mx_params_release(&c->params);
	mx_params_release(&c->resolved);
	free(c->params_json);
	free(c->resolved_json);
}

void mx_config_release(struct vtb_config *c)
{
	size_t i;

	free(c->label);
	mx_params_release(&c->params);
	free(c->params_json);
	vtb_cpuset_release(&c->cpus);
	free(c->mems);
	free(c->plan_json);
	if (c->plan && c->plan_free)
		c->plan_free(c->plan);
	for (i = 0; i < c->n_vm_cpus; i++)
		vtb_cpuset_release(&c->vm_cpus[i]);
	free(c->vm_cpus);
	free(c->why_not);
	free(c->kernel_name);
	free(c->kernel_path);
	free(c->kernel_config);
	for (i = 0; i < c->n_cells; i++)
		cell_release(&c->cells[i]);
	free(c->cells);
}

/*
 * A configuration's cells are indexed by key for the check that no two
 * workload sections measure the same: sorting the earlier cells again
 * for each section made a matrix of many sections quadratic (100k cells
 * in 1000 sections: 12 s).
 */
static const struct vtb_cell *cell_with_key(const struct vtb_index *x, const struct vtb_config *c,
					    const char *key)
{
	size_t pos = 0, i;

	while (vtb_index_next(x, key, strlen(key), &pos, &i))
		if (!strcmp(c->cells[i].key, key))
			return &c->cells[i];
	return NULL;
}

/*
 * A workload section's axes: each option of @w set in @s or with a
 * default (integers may use variables), then the prefix keys of @s.
 * *out holds *n axes, released by the caller even on errors.
 */
static int workload_axes(struct parser *p, const struct sect *s, const struct vtb_workload_ops *w,
			 long long vcpus, struct axis **out, size_t *n)
{
	struct varctx vc = { s->title, vcpus, vcpus };
	size_t n_opts = s->n, i; /* prefix keys: at most one per entry */
	struct axis *ax;

	for (i = 0; w->opts && w->opts[i].name; i++)
		n_opts++;
	ax = *out = calloc(n_opts + 1, sizeof(*ax));
	if (!ax)
		return vtb_error("out of memory");
	for (i = 0; w->opts && w->opts[i].name; i++) {
		const struct vtb_opt *o = &w->opts[i];
		const struct ent *e;
		struct vtb_opt vo = *o;

		if (o->flags & VTB_OPT_PREFIX)
			continue;
		e = mx_sect_ent(s, o->name);
		if (!e && !o->def)
			continue;
		if (vo.type == VTB_OPT_INT)
			vo.flags |= VTB_OPT_VARS;
		ax[*n].key = o->name;
		if (mx_values_of(p, e ? e->line : s->line, &vo, o->name, e ? e->val.buf : o->def,
				 true, &vc, &ax[(*n)++].vals) < 0)
			return -1;
	}
	for (i = 0; i < s->n; i++) {
		const struct ent *e = &s->ents[i];
		const struct vtb_opt *o = vtb_opt_find(w->opts, e->key);

		if (!o || !(o->flags & VTB_OPT_PREFIX))
			continue;
		ax[*n].key = e->key;
		if (mx_values_of(p, e->line, o, e->key, e->val.buf, true, &vc, &ax[(*n)++].vals) <
		    0)
			return -1;
	}
	return 0;
}

/* The cell of @s at @idx: its name (NAME plus the varying axes), params
 * and resolved (the same until the host resolves llc = auto). */
static int make_cell(const struct sect *s, const struct vtb_workload_ops *w, const struct axis *ax,
		     size_t n_ax, const size_t *idx, struct vtb_cell *cell)
{
	struct vtb_strbuf name = VTB_STRBUF_INIT;
	size_t palloc = 0, ralloc = 0, i;

	if (vtb_strbuf_addstr(&name, s->name) < 0)
		goto fail;
	for (i = 0; i < n_ax; i++) {
		const char *v = ax[i].vals.v[idx[i]];

		if (ax[i].vals.n > 1 && vtb_strbuf_addf(&name, " %s=%s", ax[i].key, v) < 0)
			goto fail;
		if (mx_params_add(&cell->params, &palloc, ax[i].key, v) < 0 ||
		    mx_params_add(&cell->resolved, &ralloc, ax[i].key, v) < 0)
			goto fail;
	}
	mx_params_sort(&cell->params);
	mx_params_sort(&cell->resolved);
	cell->name = vtb_strbuf_detach(&name);
	cell->workload = strdup(w->name);
	if (!cell->name || !cell->workload)
		return vtb_error("out of memory");
	return 0;
fail:
	vtb_strbuf_release(&name);
	return -1;
}

/* The cell's JSON texts and its key: the configuration's (@cobj), the
 * workload type and the params, canonical. */
static int cell_key(struct vtb_cell *cell, const struct vtb_workload_ops *w, const json_t *cobj)
{
	json_t *pj = mx_params_json(&cell->params), *rj = mx_params_json(&cell->resolved), *obj;
	char *ctext;
	int ret = 0;

	cell->params_json = mx_canonical(pj);
	cell->resolved_json = mx_canonical(rj);
	obj = json_pack("{s:O, s:s, s:O}", "config", cobj, "workload", w->name, "params", pj);
	ctext = mx_canonical(obj);
	if (!cell->params_json || !cell->resolved_json || !ctext)
		ret = vtb_error("out of memory");
	else
		vtb_key_of(ctext, cell->key);
	free(ctext);
	json_decref(obj);
	json_decref(pj);
	json_decref(rj);
	return ret;
}

/* The cells of one workload section for @c, appended to c->cells. */
static int expand_workload(struct parser *p, struct vtb_config *c, size_t *alloc,
			   struct vtb_index *x, const struct sect *s, long long vcpus,
			   const json_t *cobj)
{
	const struct vtb_workload_ops *w = vtb_workload_find(mx_sect_ent(s, "type")->val.buf);
	struct axis *ax = NULL;
	size_t n_ax = 0, total = 0, *idx = NULL;
	struct vtb_cell cell;
	int ret = -1;

	memset(&cell, 0, sizeof(cell));
	if (workload_axes(p, s, w, vcpus, &ax, &n_ax) < 0 ||
	    mx_product(p, s->line, ax, n_ax, CELL_LIMIT, &total) < 0)
		goto out;
	if (p->n_cells + total > CELL_LIMIT) {
		ret = mx_perr(p, s->line, "matrix too large (more than %d cells)", CELL_LIMIT);
		goto out;
	}
	idx = calloc(n_ax + 1, sizeof(*idx));
	if (!idx) {
		ret = vtb_error("out of memory");
		goto out;
	}
	do {
		const struct vtb_cell *hit;

		memset(&cell, 0, sizeof(cell));
		if (make_cell(s, w, ax, n_ax, idx, &cell) < 0)
			goto out;
		if (!keep_cell(p, c->label, cell.name)) {
			cell_release(&cell);
			memset(&cell, 0, sizeof(cell));
			continue;
		}
		if (cell_key(&cell, w, cobj) < 0)
			goto out;
		/* the key leaves the section name out: two sections with the same
		 * type and parameters are one measurement, said twice (cells of
		 * one section differ by construction) */
		hit = cell_with_key(x, c, cell.key);
		if (hit) {
			ret = mx_perr(
				p, s->line,
				"[workload %s] measures the same as '%s' (same type and parameters): remove one",
				s->name, hit->name);
			goto out;
		}
		if (mx_grow(&c->cells, alloc, c->n_cells + 1, sizeof(*c->cells)) < 0 ||
		    vtb_index_add(x, cell.key, strlen(cell.key), c->n_cells) < 0)
			goto out;
		c->cells[c->n_cells++] = cell;
		memset(&cell, 0, sizeof(cell));
		p->n_cells++;
	} while (mx_next_combo(ax, n_ax, idx));
	ret = 0;
out:
	cell_release(&cell);
	mx_axes_release(ax, n_ax);
	free(ax);
	free(idx);
	return ret;
}

/*
 * The host's LLC bytes over @c's pCPUs for its cells' llc = auto (the
 * options flagged VTB_OPT_HOST_LLC): a baseline's when it is expanded, a
 * VM configuration's once planned.  Unknown: "auto" stays, the agent
 * resolves it where it runs.
 */
int mx_resolve_host_llc(const struct vtb_host_ctx *h, struct vtb_config *c)
{
	char *llc = NULL;
	uint64_t bytes;
	size_t i, j;
	int ret = -1;

	if (!c->cpus.n || !h->llc_bytes)
		return 0;
	if (h->llc_bytes(h, &c->cpus, &bytes) < 0 || !bytes) {
		vtb_error_clear(); /* unknown: the agent resolves "auto" itself */
		return 0;
	}
	llc = vtb_asprintf("%llu", (unsigned long long)bytes);
	if (!llc)
		return vtb_error("out of memory");
	for (i = 0; i < c->n_cells; i++) {
		struct vtb_cell *cell = &c->cells[i];
		const struct vtb_workload_ops *w = vtb_workload_find(cell->workload);

		for (j = 0; w && j < cell->params.n; j++) {
			const struct vtb_kv *kv = &cell->params.kv[j];
			const struct vtb_opt *o = vtb_opt_find(w->opts, kv->key);

			if (o && (o->flags & VTB_OPT_HOST_LLC) && !strcmp(kv->value, "auto") &&
			    vtb_cell_set_resolved(cell, kv->key, llc) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	free(llc);
	return ret;
}

/* What a configuration's key hashes, and each of its cells' keys. */
static json_t *config_obj(const struct vtb_config *c)
{
	return json_pack("{s:s, s:o}", "kind", c->kind == VTB_CONFIG_VM ? "vm" : "baseline",
			 "params", mx_params_json(&c->params));
}

/*
 * Finishes @c (kind, label, params, cpus set by the caller): its key.
 * Appends it to the matrix without cells: mx_expand_cells() counts the
 * cells of every configuration before it makes any.
 */
int mx_add_config(struct parser *p, struct vtb_config *c, long long vcpus)
{
	struct vtb_matrix *m = p->m;
	json_t *cobj;
	char *ctext = NULL;
	int ret = -1;

	mx_params_sort(&c->params);
	cobj = config_obj(c);
	ctext = mx_canonical(cobj);
	c->params_json = mx_canonical(json_object_get(cobj, "params"));
	if (!ctext || !c->params_json) {
		ret = vtb_error("out of memory");
		goto out;
	}
	vtb_key_of(ctext, c->key);
	if (mx_grow(&m->configs, &p->alloc_configs, m->n_configs + 1, sizeof(*m->configs)) < 0 ||
	    mx_grow(&p->vcpus, &p->alloc_vcpus, m->n_configs + 1, sizeof(*p->vcpus)) < 0)
		goto out;
	p->vcpus[m->n_configs] = vcpus;
	m->configs[m->n_configs++] = *c;
	memset(c, 0, sizeof(*c));
	ret = 0;
out:
	if (ret < 0)
		mx_config_release(c);
	memset(c, 0, sizeof(*c));
	json_decref(cobj);
	free(ctext);
	return ret;
}

/* Whether @s's cell count may depend on the configuration's vCPUs: a
 * value (or a default) with a variable or a percentage. */
static bool counts_vary(const struct sect *s, const struct vtb_workload_ops *w)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strpbrk(s->ents[i].val.buf, "$%"))
			return true;
	for (i = 0; w->opts && w->opts[i].name; i++)
		if (w->opts[i].def && !mx_sect_ent(s, w->opts[i].name) &&
		    strpbrk(w->opts[i].def, "$%"))
			return true;
	return false;
}

/* The cells of workload section @s for a configuration of @vcpus: the
 * product of its axes (an error naming @s past the limit). */
static int section_cells(struct parser *p, const struct sect *s, long long vcpus, size_t *out)
{
	const struct vtb_workload_ops *w = vtb_workload_find(mx_sect_ent(s, "type")->val.buf);
	struct axis *ax = NULL;
	size_t n_ax = 0;
	int ret = -1;

	if (workload_axes(p, s, w, vcpus, &ax, &n_ax) == 0 &&
	    mx_product(p, s->line, ax, n_ax, CELL_LIMIT, out) == 0)
		ret = 0;
	mx_axes_release(ax, n_ax);
	free(ax);
	return ret;
}

/* a + b, or SIZE_MAX when that overflows (the count is only compared) */
static size_t sat_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

static size_t sat_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

struct vcpus_cells {
	long long vcpus;
	size_t cells;
};

/* The workload sections whose cell count varies with the vCPUs, and
 * what they count for each vCPU count met so far. */
struct varying {
	const struct sect **sects;
	size_t n, alloc;
	struct vcpus_cells *memo;
	size_t n_memo, alloc_memo;
};

/* The cells of @v's sections in a configuration of @vcpus, counted once
 * per distinct @vcpus. */
static int varying_cells(struct parser *p, struct varying *v, long long vcpus, size_t *out)
{
	size_t i, n, sum = 0;

	for (i = 0; i < v->n_memo; i++)
		if (v->memo[i].vcpus == vcpus) {
			*out = v->memo[i].cells;
			return 0;
		}
	for (i = 0; i < v->n; i++) {
		if (section_cells(p, v->sects[i], vcpus, &n) < 0)
			return -1;
		sum = sat_add(sum, n);
	}
	if (mx_grow(&v->memo, &v->alloc_memo, v->n_memo + 1, sizeof(*v->memo)) < 0)
		return -1;
	v->memo[v->n_memo++] = (struct vcpus_cells){ vcpus, sum };
	*out = sum;
	return 0;
}

/*
 * The cells configurations [@first, n_configs) will have, counted from
 * their axes before any is made, so a matrix past the cell limit is
 * refused at once (making its cells first took 20 s for 100k).  Each
 * section's count is the product of its axes: the same for every
 * configuration unless a value varies with the vCPUs ($vcpus, N%), then
 * counted once per distinct vCPU count.  Each section has a cell at least
 * in every configuration, so where that is past the limit already the
 * varying sections are not counted ("at least").  With only/exclude the
 * product says too much: the cells are counted as they are kept
 * (expand_workload()).  The error names the section of the configuration
 * with which the count passes the limit.
 */
static int count_cells(struct parser *p, size_t first)
{
	struct vtb_matrix *m = p->m;
	struct varying v = { 0 };
	size_t fixed = 0, total = p->n_cells, i, n;
	bool at_least;
	int line = 1, ret = -1;

	if (p->only.n || p->exclude.n || first == m->n_configs)
		return 0;
	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];

		if (s->kind != S_WORKLOAD)
			continue;
		if (counts_vary(s, vtb_workload_find(mx_sect_ent(s, "type")->val.buf))) {
			if (mx_grow(&v.sects, &v.alloc, v.n + 1, sizeof(*v.sects)) < 0)
				goto out;
			v.sects[v.n++] = s;
			continue;
		}
		if (section_cells(p, s, 1, &n) < 0)
			goto out;
		fixed = sat_add(fixed, n);
	}
	/* every section has a cell in every configuration: a bound that
	 * also bounds the sections counted per vCPU count below */
	at_least = v.n &&
		   sat_add(total, sat_mul(m->n_configs - first, sat_add(fixed, v.n))) > CELL_LIMIT;
	for (i = first; i < m->n_configs; i++) {
		size_t cells = v.n;

		if (!at_least && varying_cells(p, &v, p->vcpus[i], &cells) < 0)
			goto out;
		cells = sat_add(fixed, cells);
		if (total <= CELL_LIMIT && sat_add(total, cells) > CELL_LIMIT)
			line = m->configs[i].line ? m->configs[i].line : 1;
		total = sat_add(total, cells);
	}
	ret = 0;
	if (total > CELL_LIMIT)
		ret = mx_perr(p, line,
			      "matrix too large (%s%zu cells in %zu configuration%s, limit %d)",
			      at_least ? "at least " : "", total, m->n_configs,
			      m->n_configs == 1 ? "" : "s", CELL_LIMIT);
out:
	free(v.sects);
	free(v.memo);
	return ret;
}

/* @c's cells: each workload section's, filtered; llc = auto resolved
 * where its pCPUs are known. */
static int config_cells(struct parser *p, struct vtb_config *c, long long vcpus)
{
	struct vtb_index x = VTB_INDEX_INIT;
	json_t *cobj = config_obj(c);
	size_t i, alloc = 0;
	int ret = -1;

	if (!cobj)
		return vtb_error("out of memory");
	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == S_WORKLOAD &&
		    expand_workload(p, c, &alloc, &x, &p->sects[i], vcpus, cobj) < 0)
			goto out;
	if (mx_resolve_host_llc(p->host, c) < 0)
		goto out;
	ret = 0;
out:
	vtb_index_release(&x);
	json_decref(cobj);
	return ret;
}

int mx_expand_cells(struct parser *p, size_t first)
{
	struct vtb_matrix *m = p->m;
	size_t i, kept = first;

	if (count_cells(p, first) < 0)
		return -1;
	for (i = first; i < m->n_configs; i++) {
		struct vtb_config *c = &m->configs[i];

		if (config_cells(p, c, p->vcpus[i]) < 0)
			return -1;
		if (!c->n_cells) {
			/* filtered out: dropped */
			mx_config_release(c);
			memset(c, 0, sizeof(*c));
			continue;
		}
		if (kept >= CONFIG_LIMIT)
			return mx_perr(p, 1, "matrix too large (more than %d configurations)",
				       CONFIG_LIMIT);
		if (kept != i) {
			m->configs[kept] = *c;
			memset(c, 0, sizeof(*c));
			p->vcpus[kept] = p->vcpus[i];
		}
		kept++;
	}
	m->n_configs = kept;
	return 0;
}

/* [baseline] confinement (or its former name confine); in the key as
 * "confine", so keys made before the rename stay. */
static int baseline_confinement(struct parser *p, char **out)
{
	const struct sect *s = mx_find_sect(p, S_BASELINE, NULL);
	int line;

	if (mx_sect_ent(s, "confine") && mx_sect_ent(s, "confinement"))
		return mx_perr(p, mx_sect_ent(s, "confine")->line,
			       "both confine and confinement in [baseline]: keep confinement");
	if (mx_sect_ent(s, "confine"))
		return mx_single(p, s, mx_baseline_opts, "confine", out, &line);
	return mx_single(p, s, mx_baseline_opts, "confinement", out, &line);
}

int mx_expand_baseline(struct parser *p)
{
	const struct sect *s = mx_find_sect(p, S_BASELINE, NULL);
	const struct vtb_host_ctx *h = p->host;
	struct varctx vc = { "[baseline]", -1, h->host_cpus };
	struct vtb_cpuset pool = { NULL, 0 }, set = { NULL, 0 };
	struct strv cpus = { 0 };
	struct vtb_config c;
	char *enabled = NULL, *cpuset = NULL, *confine = NULL, *dflt = NULL, *vm = NULL;
	const char *text;
	size_t i, alloc;
	int line, cpus_line, cpuset_line = 0, ret = -1;

	memset(&c, 0, sizeof(c));
	if (mx_single(p, s, mx_baseline_opts, "vm", &vm, &line) < 0)
		goto out;
	p->vm_baselines = s && mx_is_yes(vm);
	if (mx_single(p, s, mx_baseline_opts, "enabled", &enabled, &line) < 0 ||
	    mx_single(p, s, mx_baseline_opts, "cpuset", &cpuset, &cpuset_line) < 0 ||
	    baseline_confinement(p, &confine) < 0)
		goto out;
	if (cpuset && vtb_cpuset_parse(cpuset, &set) < 0)
		goto out;
	/* the pool keeps the compact order (not a sorted set) */
	pool.cpus = calloc(h->n_compact + 1, sizeof(*pool.cpus));
	if (!pool.cpus)
		goto oom;
	for (i = 0; i < h->n_compact; i++)
		if (!cpuset || vtb_cpuset_has(&set, h->compact[i]))
			pool.cpus[pool.n++] = h->compact[i];
	if (cpuset && !pool.n) {
		ret = mx_perr(p, cpuset_line,
			      "cpuset = %s holds none of the %zu CPUs this host allows", cpuset,
			      h->n_compact);
		goto out;
	}
	text = mx_val_of(s, mx_baseline_opts, "cpus", &cpus_line);
	if (!mx_sect_ent(s, "cpus")) {
		/* default: every CPU of the pool */
		dflt = vtb_asprintf("%zu", pool.n ? pool.n : 1);
		if (!dflt)
			goto oom;
		text = dflt;
	}
	if (mx_values_of(p, cpus_line, vtb_opt_find(mx_baseline_opts, "cpus"), "cpus", text, true,
			 &vc, &cpus) < 0)
		goto out;
	if (!mx_is_yes(enabled)) {
		p->vm_baselines = false;
		ret = 0;
		goto out;
	}
	for (i = 0; i < cpus.n; i++) {
		long long n = strtoll(cpus.v[i], NULL, 10);
		size_t k;

		if ((size_t)n > pool.n) {
			ret = mx_perr(p, cpus_line,
				      "cpus = %lld but the host has only %zu CPUs available", n,
				      pool.n);
			goto out;
		}
		memset(&c, 0, sizeof(c));
		alloc = 0;
		c.kind = VTB_CONFIG_BASELINE;
		c.line = s ? s->line : 1;
		c.runnable = true;
		c.label = vtb_asprintf("baseline cpus=%lld", n);
		if (!c.label)
			goto oom;
		if (mx_params_add(&c.params, &alloc, "cpus", cpus.v[i]) < 0 ||
		    mx_params_add(&c.params, &alloc, "confine", confine) < 0 ||
		    (cpuset && mx_params_add(&c.params, &alloc, "cpuset", cpuset) < 0))
			goto out;
		for (k = 0; k < (size_t)n; k++)
			if (vtb_cpuset_add(&c.cpus, pool.cpus[k]) < 0)
				goto out;
		if (h->mems_of)
			c.mems = h->mems_of(h, &c.cpus);
		if (mx_add_config(p, &c, n) < 0)
			goto out;
	}
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	mx_config_release(&c);
	free(enabled);
	free(cpuset);
	free(confine);
	free(dflt);
	free(vm);
	mx_strv_release(&cpus);
	vtb_cpuset_release(&pool);
	vtb_cpuset_release(&set);
	return ret;
}

/*
 * The baseline of each planned VM configuration: the agent on exactly
 * the VM's pCPUs and memory nodes, so the comparison is like for like.
 * One per distinct pCPU set; none where a baseline of the cpus axis
 * already has that set.
 */
static int add_vm_baseline(struct parser *p, struct vtb_index *x, const struct vtb_cpuset *set,
			   const char *mems, const char *confine)
{
	struct vtb_matrix *m = p->m;
	struct vtb_config c;
	char *cpus = NULL, *count = NULL, *own_mems = NULL;
	size_t j, pos = 0, alloc = 0;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	while (vtb_index_next(x, set->cpus, set->n * sizeof(*set->cpus), &pos, &j))
		if (vtb_cpuset_equal(&m->configs[j].cpus, set))
			return 0;
	cpus = vtb_cpuset_format(set);
	count = vtb_asprintf("%zu", set->n);
	if (!mems && p->host->mems_of)
		mems = own_mems = p->host->mems_of(p->host, set);
	if (!cpus || !count)
		goto oom;
	c.kind = VTB_CONFIG_BASELINE;
	c.line = mx_find_sect(p, S_BASELINE, NULL)->line; /* [baseline] vm = yes */
	c.runnable = true;
	c.label = vtb_asprintf("baseline cpus=%zu cpuset=%s", set->n, cpus);
	if (!c.label || mx_params_add(&c.params, &alloc, "cpus", count) < 0 ||
	    mx_params_add(&c.params, &alloc, "confine", confine) < 0 ||
	    mx_params_add(&c.params, &alloc, "cpuset", cpus) < 0)
		goto out;
	for (j = 0; j < set->n; j++)
		if (vtb_cpuset_add(&c.cpus, set->cpus[j]) < 0)
			goto out;
	if (mems && !(c.mems = vtb_strdup(mems)))
		goto oom;
	/* indexed before it is added: set may point into m->configs, which moves */
	if (vtb_index_add(x, set->cpus, set->n * sizeof(*set->cpus), m->n_configs) < 0 ||
	    mx_add_config(p, &c, (long long)set->n) < 0)
		goto out;
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	mx_config_release(&c);
	free(cpus);
	free(count);
	free(own_mems);
	return ret;
}

/*
 * The baseline of each planned VM configuration: the agent on exactly
 * the VM's pCPUs and memory nodes, so the comparison is like for like.
 * Side-by-side VMs (vms = N) get one per VM, on that VM's pCPUs (each
 * guest runs the cells alone in itself; the baseline runs them once, on
 * one VM's share).  One per distinct pCPU set; none where a baseline of
 * the cpus axis already has that set.
 */
int mx_expand_vm_baselines(struct parser *p)
{
	struct vtb_matrix *m = p->m;
	struct vtb_index x = VTB_INDEX_INIT; /* the baselines by their pCPUs */
	size_t n = m->n_configs, i, k;
	char *confine = NULL;
	int ret = -1;

	if (!p->vm_baselines)
		return 0;
	if (baseline_confinement(p, &confine) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (m->configs[i].kind == VTB_CONFIG_BASELINE &&
		    vtb_index_add(&x, m->configs[i].cpus.cpus,
				  m->configs[i].cpus.n * sizeof(*m->configs[i].cpus.cpus), i) < 0)
			goto out;
	for (i = 0; i < n; i++) {
		/* m->configs moves as baselines are added: no pointer into it */
		if (m->configs[i].kind != VTB_CONFIG_VM || !m->configs[i].plan ||
		    !m->configs[i].cpus.n)
			continue;
		if (m->configs[i].n_vm_cpus <= 1) {
			if (add_vm_baseline(p, &x, &m->configs[i].cpus, m->configs[i].mems,
					    confine) < 0)
				goto out;
			continue;
		}
		for (k = 0; k < m->configs[i].n_vm_cpus; k++)
			if (add_vm_baseline(p, &x, &m->configs[i].vm_cpus[k], NULL, confine) < 0)
				goto out;
	}
	ret = mx_expand_cells(p, n);
out:
	vtb_index_release(&x);
	free(confine);
	return ret;
}
