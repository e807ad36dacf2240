/* SPDX-License-Identifier: MIT */
/*
 * The selection: which configuration is compared with which (each VM
 * with its own bare-metal baseline, a named baseline, along an axis, or
 * the same configuration of another campaign), then their cells (by name
 * within a campaign, by cell key across campaigns), then per cell its
 * metrics on both sides: each (cell, metric) becomes a pair, a row to
 * be.  A metric on one side only, or a cell without a result on a side,
 * is a missing pair; units that differ are a units pair.  Rows follow
 * the store's order: configurations in matrix order, cells in matrix
 * order, metrics in the order the workload reported them (then metrics
 * the baseline side alone has).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/opt.h"
#include "compare-priv.h"

static int pair_add(struct pairs *ps, struct pair p)
{
	struct pair *g = cm_grow(ps->p, &ps->cap, ps->n, sizeof(*g), 64);

	if (!g)
		return vtb_error("out of memory");
	ps->p = g;
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
void cm_own_baselines(const struct campaign *c, long *base)
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
int cm_named_baseline(const struct campaign *c, const char *spec, long *base, bool *bad)
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

/*
 * Configurations equal in everything but @axis form a group; its first
 * (matrix order) is the others' base[] (-1 for it and for a
 * configuration alone).  *has: a configuration has the axis.  Returns
 * how many have a base, or -1 when out of memory.
 */
static long axis_groups(const struct campaign *c, const char *axis, long *base, bool *has)
{
	char **rest = calloc(c->nc ? c->nc : 1, sizeof(*rest));
	long groups = -1;

	*has = false;
	if (!rest)
		return -1;
	for (size_t i = 0; i < c->nc; i++) {
		base[i] = -1;
		rest[i] = without_axis(&c->c[i], axis, has);
		if (!rest[i])
			goto out;
	}
	groups = 0;
	for (size_t i = 0; i < c->nc; i++)
		for (size_t j = 0; j < i; j++)
			if (base[j] < 0 && !strcmp(rest[i], rest[j])) {
				base[i] = (long)j;
				groups++;
				break;
			}
out:
	for (size_t i = 0; i < c->nc; i++)
		free(rest[i]);
	free(rest);
	return groups;
}

/* @name in @v (a NULL-terminated list of @n) unless it is there already;
 * false when it is not and there is no room left. */
static bool add_name(const char **v, size_t *n, size_t cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(v[i], name))
			return true;
	if (*n + 1 >= cap)
		return false;
	v[(*n)++] = name;
	v[*n] = NULL;
	return true;
}

/*
 * The error for an --axis no configuration of @c has: the nearest axis
 * by spelling and the axes there are (the fixed ones, then the
 * parameters of the campaign's configurations: the first 40, then "...").
 */
static int axis_unknown(const struct campaign *c, const char *axis)
{
	static const char *const fixed[] = { "topology",     "pinning", "sched",      "vcpus",
					     "guest_kernel", "host",	"host_kernel" };
	const char *names[48];
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *near;
	size_t n = 0, params;
	int fail = 0, ret;
	bool all = true;

	names[0] = NULL;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(fixed); i++)
		add_name(names, &n, VTB_ARRAY_SIZE(names), fixed[i]);
	params = n;
	for (size_t i = 0; i < c->nc; i++) {
		const char *k;
		json_t *v;

		json_object_foreach(c->c[i].params, k, v)
		{
			all &= add_name(names, &n, VTB_ARRAY_SIZE(names), k);
		}
	}
	near = vtb_suggest(names, axis);
	for (size_t i = 0; i < n; i++)
		fail |= vtb_strbuf_addf(&sb, "%s%s",
					!i	      ? ""
					: i == params ? "; parameters: "
						      : ", ",
					names[i]);
	if (!all)
		fail |= vtb_strbuf_addf(&sb, ", ...");
	if (fail) {
		vtb_strbuf_release(&sb);
		return vtb_error("out of memory");
	}
	ret = vtb_error("no configuration of campaign %s has the axis '%s'%s%s%s (axes: %s)",
			c->uuid, axis, near ? " (did you mean '" : "", near ? near : "",
			near ? "'?)" : "", vtb_strbuf_str(&sb));
	vtb_strbuf_release(&sb);
	return ret;
}

/* --axis NAME over configuration parameters: each group's first is the
 * others' baseline. */
int cm_axis_baselines(const struct campaign *c, const char *axis, long *base, bool *bad)
{
	bool has;
	long groups;

	/* guest kernels are the configurations' kernel = ([vm] kernel =) */
	if (cm_guest_kernel_axis(axis))
		axis = "kernel";
	groups = axis_groups(c, axis, base, &has);

	if (groups < 0)
		return vtb_error("out of memory");
	if (!has) {
		*bad = true;
		return axis_unknown(c, !strcmp(axis, "kernel") ? "guest_kernel" : axis);
	}
	if (!groups) {
		*bad = true;
		return vtb_error("no two configurations of campaign %s differ only in '%s'",
				 c->uuid, axis);
	}
	return 0;
}

/* Would --axis @axis pair two configurations of @c?  -1 when out of
 * memory. */
static int axis_pairs(const struct campaign *c, const char *axis)
{
	long *base = calloc(c->nc ? c->nc : 1, sizeof(*base));
	bool has = false;
	long groups = base ? axis_groups(c, axis, base, &has) : -1;

	free(base);
	return groups < 0 ? -1 : has && groups > 0;
}

/*
 * Each VM against its own baseline found nothing to compare: what would
 * (the "advice" of the document).  Axes are the configurations'
 * parameters (the part before a '.') that pair two of them; a campaign of
 * baselines alone has no VM to compare with them.  NULL when out of
 * memory.
 */
json_t *cm_advice_json(const struct campaign *c)
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
			if (works < 0 ||
			    (works &&
			     vtb_strbuf_addf(&axes, "%s--axis %s", naxes ? " or " : "",
					     !strcmp(a, "kernel") ? "guest_kernel" : a) < 0))
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
			naxes ? vtb_strbuf_str(&axes)
			      : "with one named configuration (--baseline "
				"LABEL-GLOB)");
	out = msg ? json_string(msg) : NULL;
out:
	free(msg);
	vtb_strbuf_release(&axes);
	json_decref(seen);
	return out;
}

/* Axes that are not configuration parameters: they differ between
 * campaigns (compared with --against, or found in a merged database).
 * "kernel" is the former name of host_kernel. */
bool cm_campaign_axis(const char *axis)
{
	return !strcmp(axis, "host") || !strcmp(axis, "kernel") || !strcmp(axis, "host_kernel") ||
	       !strcmp(axis, "host-kernel");
}

/* The guest kernel: the configurations' kernel = within one campaign;
 * with --against, a name for what differs between the two campaigns. */
bool cm_guest_kernel_axis(const char *axis)
{
	return !strcmp(axis, "guest_kernel") || !strcmp(axis, "guest-kernel") ||
	       !strcmp(axis, "guest kernel");
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

	if (!f->shares && cm_config_index(f->x, r->key) >= 0)
		f->shares = true;
	return 0;
}

static int other_host(const struct vtb_campaign_row *r, void *arg)
{
	struct other_find *f = arg;
	const char *h = r->hostname ? r->hostname : "", *k = r->host_kernel ? r->host_kernel : "";

	if (!strcmp(f->axis, "host"))
		f->host_ok = strcmp(h, f->host) != 0;
	/* host_kernel (or its former name kernel) */
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

int cm_find_other(struct vtb_store *st, const char *db, const struct campaign *x, const char *axis,
		  char **uuid, bool *bad)
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
int cm_pair_campaigns(const struct campaign *bc, const struct campaign *xc, const long *base,
		      bool metric_filter, struct pairs *ps)
{
	struct index ix = { 0 };
	long last_cfg = -1;
	const char *last_key = NULL;
	int ret = -1;

	if (cm_index_cells(bc, base != NULL, &ix) < 0)
		goto out;
	for (size_t i = 0; i < xc->nci; i++) {
		const struct cellinfo *X = &xc->ci[i];
		long bcfg, b;

		if (!last_key || strcmp(last_key, X->config_key)) {
			last_cfg = cm_config_index(xc, X->config_key);
			last_key = X->config_key;
		}
		if (last_cfg < 0 || !xc->c[last_cfg].runnable)
			continue;
		bcfg = base ? base[last_cfg] : cm_config_index(bc, X->config_key);
		if (bcfg < 0 || !bc->c[bcfg].runnable)
			continue;
		b = cm_index_find(&ix, bc->c[bcfg].key, base ? X->cell_name : X->cell_key);
		if (b == -2) {
			vtb_error("out of memory");
			goto out;
		}
		if (b >= 0 && pair_cell(bc, (size_t)b, xc, i, metric_filter, ps) < 0)
			goto out;
	}
	ret = 0;
out:
	cm_index_release(&ix);
	return ret;
}
