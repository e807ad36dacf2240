/* SPDX-License-Identifier: MIT */
/*
 * The placement planner (plan.h).  Everything is derived from the host
 * model's groups, never from OS numbering: siblings may be 64 apart and
 * CPUs may be offline.
 *
 * mirror picks a regular shape from the free pool: t threads per core
 * (the host's SMT width when it divides the vCPUs), c cores per unit and
 * l units, where a unit is an LLC (split per node with numa = auto, so a
 * sub-NUMA-clustered LLC never becomes a die spanning two cells; without
 * cache information a die or package).  enum_shapes() lists the shapes
 * that fit, choose() places every VM with each (place_all(): VM after VM,
 * on free whole cores, with overcommit then on the least loaded pCPUs,
 * away from nodes their memory would overflow) and keeps the best by
 * score_cmp().  make() then tries housekeeping elsewhere when the first
 * core costs the VMs their alignment.  lie keeps mirror's counts and permutes
 * the assignment: virtual core G's thread th runs on real core
 * P((G + th) mod K), so SMT siblings land on different cores, and P
 * moves the upper half of each die's cores to the next unit, so each
 * die spans two LLCs.  When mirror's vCPUs fit one unit, lie takes its
 * cores from two units instead.
 */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/opt.h"
#include "plan.h"

static const char *const kind_names[] = { "smt", "llc", "node" };
static const char *const state_names[] = { "true", "false", "unbacked" };
static unsigned long plan_calls;

const char *vtb_claim_kind_name(enum vtb_claim_kind k)
{
	return (unsigned)k < VTB_ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

const char *vtb_claim_state_name(enum vtb_claim_state s)
{
	return (unsigned)s < VTB_ARRAY_SIZE(state_names) ? state_names[s] : "?";
}

unsigned long vtb_plan_calls(void)
{
	return plan_calls;
}

/* ---------------------------------------------------------------- sets */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A set from @n CPU numbers in any order (duplicates dropped). */
static int set_of(const int *cpus, size_t n, struct vtb_cpuset *out)
{
	size_t i, k = 0;

	out->n = 0;
	out->cpus = malloc((n ? n : 1) * sizeof(int));
	if (!out->cpus)
		return vtb_error("out of memory");
	memcpy(out->cpus, cpus, n * sizeof(int));
	qsort(out->cpus, n, sizeof(int), cmp_int);
	for (i = 0; i < n; i++)
		if (!k || out->cpus[k - 1] != out->cpus[i])
			out->cpus[k++] = out->cpus[i];
	out->n = k;
	return 0;
}

static bool set_equal(const struct vtb_cpuset *a, const struct vtb_cpuset *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->cpus, b->cpus, a->n * sizeof(int)));
}

/* ---------------------------------------------------------------- host view */

/* mirror's shape (lie repeats it): t threads per core, c cores per die,
 * l dies, s sockets (0: the packages used hold different numbers of the
 * dies, told one socket).  t == 0: no shape (flat, cores, explicit). */
struct shape {
	int t, c, l, s;
};

struct ctx {
	const struct vtb_topo *t;
	const struct vtb_plan_req *r;
	struct vtb_plan *p;
	/* the level that stands for the LLC: VTB_TOPO_LLC, or without cache
	 * information the die, else the package; -1: the whole host */
	int llc_level;
	bool notes; /* the placement kept (not a trial): say what it did */
};

/* The LLC group (at x->llc_level) of @p: -1 none, 0 for every PU when
 * the whole host stands for it. */
static int llc_of(const struct ctx *x, const struct vtb_topo_pu *p)
{
	switch (x->llc_level) {
	case VTB_TOPO_LLC:
		return p->llc;
	case VTB_TOPO_DIE:
		return p->die;
	case VTB_TOPO_PKG:
		return p->pkg;
	default:
		return 0;
	}
}

static size_t n_llcs(const struct ctx *x)
{
	return x->llc_level < 0 ? 1 : x->t->n_groups[x->llc_level];
}

/* The PUs of LLC group @g, NULL when the whole host stands for it. */
static const struct vtb_cpuset *llc_pus(const struct ctx *x, int g)
{
	if (x->llc_level < 0 || g < 0 || (size_t)g >= n_llcs(x))
		return NULL;
	return &x->t->groups[x->llc_level][g].pus;
}

struct hcore {
	int *pu; /* free pool PUs of this core (OS numbers), compact order */
	int n;
	int core; /* index in groups[CORE] */
};

struct hunit {
	struct hcore *cores;
	int n;
	int llc, node, pkg;
};

struct hview {
	struct hunit *units;
	int n;
	int *pu_store;
	struct hcore *core_store;
};

static void hview_release(struct hview *v)
{
	free(v->units);
	free(v->pu_store);
	free(v->core_store);
	memset(v, 0, sizeof(*v));
}

static int node_os(const struct vtb_topo *t, const struct vtb_topo_pu *p)
{
	return p->node >= 0 ? t->nodes[p->node].os : -1;
}

/*
 * Units (LLC, or LLC x node with @by_node) of the free pool @pool
 * (@n OS numbers, compact order), their cores and PUs, in order of first
 * appearance.
 */
static int hview_build(const struct ctx *x, const int *pool, size_t n, bool by_node,
		       struct hview *v)
{
	const struct vtb_topo *t = x->t;
	size_t nn = t->n_nodes + 1, nl = n_llcs(x) + 1;
	size_t ncore = t->n_groups[VTB_TOPO_CORE] + 1;
	int *unit_of = NULL, *core_slot = NULL, *core_unit = NULL, *unit_ncores = NULL;
	int *core_n = NULL, *pu_core = NULL, *unit_first = NULL, *pos = NULL, *pu_first = NULL;
	size_t i;
	int ret = -1, ncores = 0, u, c, acc;

	memset(v, 0, sizeof(*v));
	unit_of = malloc(nn * nl * sizeof(int));
	core_slot = malloc(ncore * sizeof(int));
	core_unit = calloc(n + 1, sizeof(int));
	core_n = calloc(n + 1, sizeof(int));
	pu_core = calloc(n + 1, sizeof(int));
	unit_ncores = calloc(n + 1, sizeof(int));
	unit_first = calloc(n + 1, sizeof(int));
	pos = calloc(n + 1, sizeof(int));
	pu_first = calloc(n + 1, sizeof(int));
	v->units = calloc(n + 1, sizeof(*v->units));
	v->pu_store = malloc((n + 1) * sizeof(int));
	v->core_store = calloc(n + 1, sizeof(*v->core_store));
	if (!unit_of || !core_slot || !core_unit || !core_n || !pu_core || !unit_ncores ||
	    !unit_first || !pos || !pu_first || !v->units || !v->pu_store || !v->core_store) {
		vtb_error("out of memory");
		goto out;
	}
	for (i = 0; i < nn * nl; i++)
		unit_of[i] = -1;
	for (i = 0; i < ncore; i++)
		core_slot[i] = -1;
	/* pass 1: units and cores in order of first appearance */
	for (i = 0; i < n; i++) {
		const struct vtb_topo_pu *p = vtb_topo_pu_by_os(t, pool[i]);
		size_t key = (size_t)(llc_of(x, p) + 1) * nn +
			     (by_node ? (size_t)(p->node + 1) : 0);

		u = unit_of[key];
		if (u < 0) {
			u = unit_of[key] = v->n++;
			v->units[u].llc = llc_of(x, p);
			v->units[u].node = by_node ? p->node : -1;
			v->units[u].pkg = p->pkg;
		}
		c = p->core >= 0 ? core_slot[p->core + 1] : -1;
		if (c < 0) { /* a PU without a core is a core of its own */
			c = ncores++;
			if (p->core >= 0)
				core_slot[p->core + 1] = c;
			core_unit[c] = u;
			unit_ncores[u]++;
		}
		core_n[c]++;
		pu_core[i] = c;
	}
	/* pass 2: cores of a unit contiguous, PUs of a core contiguous */
	for (u = 0, acc = 0; u < v->n; u++) {
		unit_first[u] = acc;
		acc += unit_ncores[u];
		v->units[u].cores = v->core_store + unit_first[u];
	}
	for (c = 0, acc = 0; c < ncores; c++) {
		u = core_unit[c];
		pos[c] = unit_first[u] + v->units[u].n++;
		v->core_store[pos[c]].pu = v->pu_store + acc;
		acc += core_n[c];
	}
	for (i = 0; i < n; i++) {
		struct hcore *hc = &v->core_store[pos[pu_core[i]]];

		hc->core = vtb_topo_pu_by_os(t, pool[i])->core;
		hc->pu[hc->n++] = pool[i];
	}
	ret = 0;
out:
	free(unit_of);
	free(core_slot);
	free(core_unit);
	free(core_n);
	free(pu_core);
	free(unit_ncores);
	free(unit_first);
	free(pos);
	free(pu_first);
	if (ret)
		hview_release(v);
	return ret;
}

struct unit_cost {
	long cost;
	int idx;
};

static int cmp_unit_cost(const void *a, const void *b)
{
	const struct unit_cost *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Orders @v's units by the vCPUs already on the pCPUs that shape @sh
 * would take from each (its first c cores of t PUs, as mirror_cores()
 * takes them), least first and otherwise as they were, so that a VM
 * sharing pCPUs (overcommit) takes the least loaded units, not the
 * first ones, and among equals those whose cores no other VM has
 * (@used).  Units that do not fit go last.  @load, @used: by OS number.
 */
static int hview_by_load(struct hview *v, const struct shape *sh, const int *load, const bool *used)
{
	struct unit_cost *uc = calloc((size_t)v->n + 1, sizeof(*uc));
	struct hunit *units = calloc((size_t)v->n + 1, sizeof(*units));
	int u, k, got, th;

	if (!uc || !units) {
		free(uc);
		free(units);
		return vtb_error("out of memory");
	}
	for (u = 0; u < v->n; u++) {
		const struct hunit *h = &v->units[u];

		uc[u].idx = u;
		for (k = 0, got = 0; k < h->n && got < sh->c; k++) {
			if (h->cores[k].n < sh->t)
				continue;
			/* loaded pCPUs first, then cores another VM has */
			for (th = 0; th < sh->t; th++)
				uc[u].cost += 4096L * load[h->cores[k].pu[th]] +
					      (used && used[h->cores[k].pu[th]]);
			got++;
		}
		if (got < sh->c)
			uc[u].cost = LONG_MAX;
	}
	qsort(uc, (size_t)v->n, sizeof(*uc), cmp_unit_cost);
	for (u = 0; u < v->n; u++)
		units[u] = v->units[uc[u].idx];
	memcpy(v->units, units, (size_t)v->n * sizeof(*units));
	free(uc);
	free(units);
	return 0;
}

/* Cores of @u with at least @t PUs. */
static int eligible_cores(const struct hunit *u, int t)
{
	int i, k = 0;

	for (i = 0; i < u->n; i++)
		k += u->cores[i].n >= t;
	return k;
}

/* ---------------------------------------------------------------- plan building */

/* A note for the reader: on VM @vm, or on the whole plan (@vm < 0).
 * Takes @text; duplicates are dropped. */
static int note(struct vtb_plan *p, int vm, char *text)
{
	char ***notes = vm < 0 ? &p->notes : &p->vm[vm].notes;
	size_t *n_notes = vm < 0 ? &p->n_notes : &p->vm[vm].n_notes;
	char **n;

	if (!text)
		return vtb_error("out of memory");
	for (size_t i = 0; i < *n_notes; i++)
		if (!strcmp((*notes)[i], text)) {
			free(text);
			return 0;
		}
	n = realloc(*notes, (*n_notes + 1) * sizeof(*n));
	if (!n) {
		free(text);
		return vtb_error("out of memory");
	}
	*notes = n;
	n[(*n_notes)++] = text;
	return 0;
}

static bool unit_fits(const struct hunit *u, int t, int c)
{
	return eligible_cores(u, t) >= c;
}

/*
 * A regular choice of @l units that fit (t, c): s packages with l/s units
 * each, the fewest packages, each package the first ones in compact order
 * that have enough; @s_fixed > 0: exactly that many.  Unit indexes into
 * @sel, package-major.  Returns s, or 0 when there is none.
 */
static int pick_regular(const struct hview *v, int t, int c, int l, int s_fixed, int *sel)
{
	int s, d, u, w, got, k;

	for (s = s_fixed > 0 ? s_fixed : 1; s <= l && (s_fixed <= 0 || s == s_fixed); s++) {
		if (l % s)
			continue;
		d = l / s;
		for (u = 0, got = 0; u < v->n && got < s; u++) {
			int pkg = v->units[u].pkg;
			bool seen = false;

			for (w = 0; w < u && !seen; w++)
				seen = v->units[w].pkg == pkg;
			if (seen)
				continue;
			for (w = u, k = 0; w < v->n; w++)
				k += v->units[w].pkg == pkg && unit_fits(&v->units[w], t, c);
			if (k < d)
				continue;
			for (w = u, k = 0; w < v->n && k < d; w++)
				if (v->units[w].pkg == pkg && unit_fits(&v->units[w], t, c))
					sel[got * d + k++] = w;
			got++;
		}
		if (got == s)
			return s;
	}
	return 0;
}

/* The first @l units that fit (t, c), in compact order; 0 or -1. */
static int pick_first(const struct hview *v, int t, int c, int l, int *sel)
{
	int u, k = 0;

	for (u = 0; u < v->n && k < l; u++)
		if (unit_fits(&v->units[u], t, c))
			sel[k++] = u;
	return k == l ? 0 : -1;
}

/* The units of shape @sh on @v into @sel (l entries): 0, or -1 when they
 * are not there. */
static int fit_shape(const struct hview *v, const struct shape *sh, int *sel)
{
	if (sh->s > 0)
		return pick_regular(v, sh->t, sh->c, sh->l, sh->s, sel) ? 0 : -1;
	return pick_first(v, sh->t, sh->c, sh->l, sel);
}

/* The packages of @v's units. */
static int n_packages(const struct hview *v)
{
	int u, w, k = 0;

	for (u = 0; u < v->n; u++) {
		for (w = 0; w < u && v->units[w].pkg != v->units[u].pkg; w++)
			;
		k += w == u;
	}
	return k;
}

/*
 * mirror's candidate shapes for @nv vCPUs on @v (the whole pool), in the
 * order of preference among equals: t the host's SMT width first (when
 * it divides the vCPUs), then smaller; c as large as a unit allows, then
 * smaller; for each, every package count s whose packages the units fill
 * alike (pick_regular()), fewest first, then s = 0 (told one socket)
 * when the units fit at all.  Which one a plan takes is decided by
 * placing every VM with each (choose()).  *@out malloc'ed; 0 or -1.
 */
static int enum_shapes(const struct hview *v, int nv, struct shape **out, size_t *n_out)
{
	struct shape *c_out = NULL;
	size_t n = 0, cap = 0;
	int smt = 1, t, c, l, s, i, k, pkgs = n_packages(v);
	int *sel = calloc((size_t)v->n + 1, sizeof(*sel));

	*out = NULL;
	*n_out = 0;
	if (!sel)
		return vtb_error("out of memory");
	for (i = 0; i < v->n; i++)
		for (k = 0; k < v->units[i].n; k++)
			if (v->units[i].cores[k].n > smt)
				smt = v->units[i].cores[k].n;
	for (t = smt; t >= 1; t--) {
		int maxc = 0;

		if (nv % t)
			continue;
		for (i = 0; i < v->n; i++) {
			k = eligible_cores(&v->units[i], t);
			if (k > maxc)
				maxc = k;
		}
		for (c = maxc < nv / t ? maxc : nv / t; c >= 1; c--) {
			int have = 0;

			if ((nv / t) % c)
				continue;
			l = nv / t / c;
			for (i = 0; i < v->n; i++)
				have += unit_fits(&v->units[i], t, c);
			if (have < l)
				continue;
			for (s = 1; s <= l + 1; s++) {
				struct shape sh = { t, c, l, s <= l ? s : 0 };

				if (sh.s && (l % s || s > pkgs || fit_shape(v, &sh, sel) < 0))
					continue;
				if (n == cap) {
					struct shape *m;

					cap = cap ? 2 * cap : 16;
					m = realloc(c_out, cap * sizeof(*m));
					if (!m) {
						free(c_out);
						free(sel);
						return vtb_error("out of memory");
					}
					c_out = m;
				}
				c_out[n++] = sh;
			}
		}
	}
	free(sel);
	*out = c_out;
	*n_out = n;
	return 0;
}

/* The first @c cores with >= @t PUs of each unit of @sel (l), unit-major,
 * into @q (l*c pointers). */
static void mirror_cores(const struct hview *v, const struct shape *sh, const int *sel,
			 const struct hcore **q)
{
	int d, k, got;

	for (d = 0; d < sh->l; d++) {
		const struct hunit *u = &v->units[sel[d]];

		for (k = 0, got = 0; k < u->n && got < sh->c; k++)
			if (u->cores[k].n >= sh->t)
				q[d * sh->c + got++] = &u->cores[k];
	}
}

/* Notes of the units mirror chose (@vm's): sub-NUMA-clustered LLCs,
 * and units that would fit but were skipped before the last one chosen
 * (to keep sockets whole packages alike), which the reader would
 * otherwise wonder about. */
static int units_notes(struct ctx *x, int vm, const struct hview *v, const int *sel,
		       const struct shape *sh)
{
	const struct vtb_topo *t = x->t;
	int d, u, skipped = 0, last = -1, pkg = -1, ret;
	char *where;

	for (d = 0; d < sh->l; d++) {
		const struct hunit *h = &v->units[sel[d]];

		if (sel[d] > last)
			last = sel[d];
		if (h->node >= 0 && x->llc_level == VTB_TOPO_LLC && llc_pus(x, h->llc) &&
		    !vtb_cpuset_has(&t->nodes[h->node].pus, llc_pus(x, h->llc)->cpus[0]) &&
		    note(x->p, -1,
			 vtb_strdup(
				 "a host LLC spans several NUMA nodes (sub-NUMA clustering): one virtual die per node")) <
			    0)
			return -1;
	}
	for (u = 0; u < last; u++) {
		bool in = false;

		for (d = 0; d < sh->l && !in; d++)
			in = sel[d] == u;
		if (in || !unit_fits(&v->units[u], sh->t, sh->c))
			continue;
		if (!skipped++)
			pkg = v->units[u].pkg;
		else if (pkg != v->units[u].pkg)
			pkg = -2;
	}
	if (!skipped || sh->s <= 0)
		return 0;
	if (pkg >= 0 && t->groups[VTB_TOPO_PKG] && t->groups[VTB_TOPO_PKG][pkg].os >= 0)
		pkg = t->groups[VTB_TOPO_PKG][pkg].os;
	where = pkg >= 0 ? vtb_asprintf(" (package %d)", pkg)
			 : vtb_strdup(pkg == -1 ? "" : " (several packages)");
	ret = note(
		x->p, vm,
		vtb_asprintf(
			"mirror skips %d free LLC group%s%s so that each virtual socket is one real package with %d LLC groups of %d cores: the housekeeping CPUs or another VM leave too few free cores or groups there",
			skipped, skipped == 1 ? "" : "s", where ? where : "", sh->l / sh->s,
			sh->c));
	free(where);
	return ret;
}

/* The smallest die shift that moves every die to one on another LLC;
 * 0 when none does. */
static int llc_shift(const struct hunit *const *units, int l)
{
	int s, d;

	for (s = 1; s < l; s++) {
		for (d = 0; d < l && units[d]->llc != units[(d + s) % l]->llc; d++)
			;
		if (d == l)
			return s;
	}
	return 0;
}

/*
 * lie's own units when mirror's leave no shift onto another LLC (mirror
 * took the node halves of one sub-NUMA-clustered LLC): the units that
 * fit (t, c), taken round robin over their LLCs, into @sel (l).  0, or
 * -1 when that does not give a shift either.
 */
static int lie_units(const struct hview *v, const struct shape *sh, int *sel,
		     const struct hunit **units)
{
	bool *taken = calloc((size_t)v->n + 1, sizeof(*taken));
	int *alt = calloc((size_t)sh->l + 1, sizeof(*alt));
	const struct hunit **au = calloc((size_t)sh->l + 1, sizeof(*au));
	int got = 0, u, w, last_llc = -2, ret = -1;
	bool progress = true;

	if (!taken || !alt || !au)
		goto out;
	while (got < sh->l && progress) {
		progress = false;
		for (u = 0; u < v->n && got < sh->l; u++) {
			bool first_of_llc = true;

			if (taken[u] || !unit_fits(&v->units[u], sh->t, sh->c) ||
			    v->units[u].llc == last_llc)
				continue;
			/* one unit per LLC per round: the first not taken */
			for (w = 0; w < u && first_of_llc; w++)
				first_of_llc = taken[w] || v->units[w].llc != v->units[u].llc ||
					       !unit_fits(&v->units[w], sh->t, sh->c);
			if (!first_of_llc)
				continue;
			taken[u] = true;
			alt[got++] = u;
			last_llc = v->units[u].llc;
			progress = true;
		}
		last_llc = -2;
	}
	if (got < sh->l)
		goto out;
	for (u = 0; u < sh->l; u++)
		au[u] = &v->units[alt[u]];
	if (!llc_shift(au, sh->l))
		goto out;
	memcpy(sel, alt, (size_t)sh->l * sizeof(*sel));
	memcpy(units, au, (size_t)sh->l * sizeof(*units));
	ret = 0;
out:
	free(taken);
	free(alt);
	free(au);
	return ret;
}

/*
 * lie on mirror's cores @q (K = c*l, units @units): virtual core G's
 * thread th runs on core (G + th) mod K, and the upper half of each
 * die's cores on the die @shift further (another LLC).  One virtual core:
 * its threads on cores of other LLCs.  One die: half its cores from a
 * unit on another LLC.  @v: every free unit, for the cores taken beyond
 * mirror's.
 */
static int lie_assign(const struct hview *v, const struct shape *sh, const struct hunit **units,
		      const struct hcore **q, int nv, int *pcpu)
{
	int t = sh->t, c = sh->c, l = sh->l, K = c * l, shift = llc_shift(units, l), i;

	if (!shift)
		shift = 1; /* the dies share an LLC whatever the shift */

	if (K == 1 && t >= 2) {
		/* its threads on t different cores, other LLCs first */
		const struct hunit *home = units[0];
		int got = 1, pass, u, k;

		for (pass = 0; pass < 3 && got < t; pass++)
			for (u = 0; u < v->n && got < t; u++) {
				const struct hunit *h = &v->units[u];
				bool other = h->llc != home->llc;

				if ((pass == 0 && !other) || (pass > 0 && other) ||
				    (pass == 1 && h == home) || (pass == 2 && h != home))
					continue;
				for (k = 0; k < h->n && got < t; k++)
					if (&h->cores[k] != q[0]) {
						q[got++] = &h->cores[k];
						if (pass == 0)
							break; /* one per other LLC first */
					}
			}
		if (got < t)
			return vtb_error(
				"topology lie: no room for %d vCPUs on %d distinct cores: %d free (whole cores go to one VM)",
				nv, t, got);
		for (i = 0; i < nv; i++)
			pcpu[i] = q[i]->pu[0];
		return 0;
	}
	if (l == 1 && K >= 2) {
		/* half the cores from another unit, on another LLC when there is one */
		int a = (K + 1) / 2, b = K / 2, u, ub = -1, k, got;

		for (u = 0; u < v->n && ub < 0; u++)
			if (&v->units[u] != units[0] && v->units[u].llc != units[0]->llc &&
			    eligible_cores(&v->units[u], t) >= b)
				ub = u;
		for (u = 0; u < v->n && ub < 0; u++)
			if (&v->units[u] != units[0] && eligible_cores(&v->units[u], t) >= b)
				ub = u;
		if (ub >= 0)
			for (k = 0, got = a; got < K; k++)
				if (v->units[ub].cores[k].n >= t)
					q[got++] = &v->units[ub].cores[k];
	}
	for (i = 0; i < nv; i++) {
		int G = i / t, th = i % t, idx;

		if (c == 1 && l >= 2) {
			/* one core per die: the sibling on the die @shift on */
			idx = (G + th * shift) % K;
		} else {
			idx = (G + th) % K;
			if (l >= 2 && c >= 2) {
				int d = idx / c, k = idx % c;

				if (k >= (c + 1) / 2)
					d = (d + shift) % l;
				idx = d * c + k;
			}
		}
		pcpu[i] = q[idx]->pu[th];
	}
	return 0;
}

/*
 * Assigns VM @vm's vCPUs on @pool (free PUs in the order to take them):
 * pcpu[v] for every vCPU, cellof[v] the pCPU whose node decides the
 * vCPU's guest cell (mirror's pCPU under lie, so lie has mirror's cells).
 * mirror and lie take shape @sh; the others the first pCPUs of @pool.
 * 0; 1 when the shape finds no room (vtb_error() says why); -1 on errors.
 */
static int assign(struct ctx *x, int vm, const int *pool, size_t n_pool, const struct shape *sh,
		  const int *load, const bool *used, int *pcpu, int *cellof)
{
	const struct vtb_plan_req *r = x->r;
	struct hview v = { 0 };
	const struct hcore **q = NULL;
	const struct hunit **units = NULL;
	int *sel = NULL;
	const struct vtb_preset *preset = vtb_preset_of(r->topology);
	int nv = r->vcpus, i, ret = -1;
	const char *name = preset->name;

	if (!n_pool) {
		vtb_error("topology %s: VM %d finds no free pCPU", name, vm);
		return 1;
	}
	if (!preset->from_host) {
		for (i = 0; i < nv; i++)
			pcpu[i] = cellof[i] = pool[(size_t)i % n_pool];
		return 0;
	}
	/* lie has mirror's units (split per node with numa = auto) and so
	 * mirror's counts: sockets, dies, cores, threads and cells */
	if (hview_build(x, pool, n_pool, r->numa, &v) < 0)
		return -1;
	if (load && hview_by_load(&v, sh, load, used) < 0)
		goto out;
	sel = calloc((size_t)v.n + 1, sizeof(*sel));
	q = calloc((size_t)sh->c * (size_t)sh->l + (size_t)sh->t + 2, sizeof(*q));
	units = calloc((size_t)sh->l + 2, sizeof(*units));
	if (!sel || !q || !units) {
		vtb_error("out of memory");
		goto out;
	}
	if (fit_shape(&v, sh, sel) < 0) {
		vtb_error(
			"topology %s: VM %d finds no room for the shape (%d LLC groups of %d cores of %d threads%s) on its %zu free pCPUs (whole cores go to one VM)",
			name, vm, sh->l, sh->c, sh->t, sh->s > 0 ? ", a package per socket" : "",
			n_pool);
		ret = 1;
		goto out;
	}
	for (i = 0; i < sh->l; i++)
		units[i] = &v.units[sel[i]];
	mirror_cores(&v, sh, sel, q);
	if (x->notes && units_notes(x, vm, &v, sel, sh) < 0)
		goto out;
	for (i = 0; i < nv; i++)
		pcpu[i] = cellof[i] = q[i / sh->t]->pu[i % sh->t];
	if (preset->lies) {
		if (sh->l >= 2 && !llc_shift(units, sh->l) && lie_units(&v, sh, sel, units) == 0)
			mirror_cores(&v, sh, sel, q);
		if (lie_assign(&v, sh, units, q, nv, pcpu) < 0) {
			ret = 1;
			goto out;
		}
	}
	ret = 0;
out:
	free(q);
	free(units);
	free(sel);
	hview_release(&v);
	return ret;
}

/*
 * The housekeeping set and the pool (compact order, allowed, online):
 * @hk_set when given (a placement trial), else the request's.  The SMT
 * siblings of housekeeping CPUs stay out of the pool: a vCPU there would
 * share a core with the emulator thread.
 */
/* housekeeping = auto: the first allowed CPU's core, when the rest
 * still holds @need pCPUs; else none, with a note. */
static int housekeeping_auto(struct ctx *x, const int *all, size_t n_allowed, size_t need,
			     struct vtb_cpuset *hk)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, all[0]);
	size_t i, k = 0;

	if (core)
		for (i = 0; i < core->n; i++)
			k += vtb_topo_pu_by_os(t, core->cpus[i])->allowed;
	if (core && n_allowed - k >= need && n_allowed > k) {
		for (i = 0; i < core->n; i++)
			if (vtb_topo_pu_by_os(t, core->cpus[i])->allowed &&
			    vtb_cpuset_add(hk, core->cpus[i]) < 0)
				return -1;
		return 0;
	}
	if (!x->notes)
		return 0;
	return note(
		x->p, -1,
		vtb_strdup(
			"no housekeeping CPUs: the host has no spare CPU, so the harness, libvirt and emulator threads share the vCPUs' pCPUs"));
}

/* The housekeeping set: @hk_set when given (a placement trial), else the
 * request's (auto, none or a list of online allowed CPUs). */
static int housekeeping_of(struct ctx *x, const struct vtb_cpuset *hk_set, const int *all,
			   size_t n_allowed, struct vtb_cpuset *hk)
{
	const struct vtb_plan_req *r = x->r;
	const char *spec = r->housekeeping ? r->housekeeping : "auto";
	size_t i;

	if (hk_set) {
		for (i = 0; i < hk_set->n; i++)
			if (vtb_cpuset_add(hk, hk_set->cpus[i]) < 0)
				return -1;
		return 0;
	}
	if (!strcmp(spec, "none"))
		return 0;
	if (!strcmp(spec, "auto"))
		return housekeeping_auto(x, all, n_allowed,
					 r->overcommit ? (size_t)1
						       : (size_t)r->vcpus * (size_t)r->vms,
					 hk);
	if (vtb_cpuset_parse(spec, hk) < 0)
		return vtb_error("housekeeping = %s: not auto, none or a CPU list", spec);
	for (i = 0; i < hk->n; i++) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(x->t, hk->cpus[i]);

		if (!pu || !pu->online || !pu->allowed)
			return vtb_error(
				"housekeeping = %s: CPU %d is not an online CPU this host allows",
				spec, hk->cpus[i]);
	}
	return 0;
}

/* What stays out of the pool: the housekeeping CPUs' whole cores; their
 * SMT siblings idle, said in a note. */
static int kept_out(struct ctx *x, const struct vtb_cpuset *hk, struct vtb_cpuset *out)
{
	const struct vtb_topo *t = x->t;
	struct vtb_cpuset idle = { NULL, 0 };
	size_t i, j;
	int ret = -1;

	for (i = 0; i < hk->n; i++) {
		const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, hk->cpus[i]);

		if (vtb_cpuset_add(out, hk->cpus[i]) < 0)
			goto out;
		for (j = 0; core && j < core->n; j++)
			if (!vtb_cpuset_has(hk, core->cpus[j]) &&
			    vtb_topo_pu_by_os(t, core->cpus[j])->allowed &&
			    (vtb_cpuset_add(out, core->cpus[j]) < 0 ||
			     vtb_cpuset_add(&idle, core->cpus[j]) < 0))
				goto out;
	}
	if (idle.n && x->notes) {
		char *h = vtb_cpuset_format(hk), *s = vtb_cpuset_format(&idle);
		int r2 = note(
			x->p, -1,
			h && s ? vtb_asprintf(
					 "housekeeping %s: its SMT sibling%s %s stay%s idle, never given to vCPUs (a vCPU there would share a core with the emulator thread)",
					 h, idle.n == 1 ? "" : "s", s, idle.n == 1 ? "s" : "")
			       : NULL);

		free(h);
		free(s);
		if (r2 < 0)
			goto out;
	}
	ret = 0;
out:
	vtb_cpuset_release(&idle);
	return ret;
}

static int pool_of(struct ctx *x, const struct vtb_cpuset *hk_set, int **pool, size_t *n_pool)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan_req *r = x->r;
	struct vtb_cpuset hk = { NULL, 0 }, out = { NULL, 0 };
	size_t i, n_allowed = 0;
	int *all;

	*pool = NULL;
	*n_pool = 0;
	all = malloc((t->n_pus + 1) * sizeof(int));
	if (!all)
		return vtb_error("out of memory");
	for (i = 0; i < t->n_online; i++)
		if (t->pus[i].online && t->pus[i].allowed)
			all[n_allowed++] = t->pus[i].os;
	if (!n_allowed) {
		free(all);
		return vtb_error("the host allows no CPU");
	}
	if (housekeeping_of(x, hk_set, all, n_allowed, &hk) < 0 || kept_out(x, &hk, &out) < 0) {
		vtb_cpuset_release(&hk);
		vtb_cpuset_release(&out);
		free(all);
		return -1;
	}
	x->p->housekeeping = hk;
	for (i = 0; i < n_allowed; i++)
		if (!vtb_cpuset_has(&out, all[i]))
			all[(*n_pool)++] = all[i];
	vtb_cpuset_release(&out);
	*pool = all;
	if (!*n_pool) {
		*pool = NULL;
		free(all);
		return vtb_error("housekeeping = %s leaves no CPU for guests",
				 r->housekeeping ? r->housekeeping : "auto");
	}
	return 0;
}

static int group_at(const struct ctx *x, const struct vtb_topo_pu *pu, enum vtb_claim_kind k)
{
	return k == VTB_CLAIM_SMT ? pu->core : k == VTB_CLAIM_LLC ? llc_of(x, pu) : pu->node;
}

/* Whether @pin fixes the pCPUs for a claim of kind @k (plan.h): strict
 * for every claim, core for SMT pairs; nothing else. */
static bool pin_backs(enum vtb_pinning pin, enum vtb_claim_kind k)
{
	return pin == VTB_PIN_STRICT || (pin == VTB_PIN_CORE && k == VTB_CLAIM_SMT);
}

/* The claim's state (plan.h); a node claim also needs the cell's memory
 * on that node (@host_node, -2: no binding to check). */
static enum vtb_claim_state claim_state(const struct ctx *x, const struct vtb_plan_vm *m,
					enum vtb_claim_kind k, const struct vtb_cpuset *vcpus,
					int host_node)
{
	const struct vtb_topo *t = x->t;
	enum vtb_pinning pin = x->r->pinning;
	int common = -2;
	bool same = true;
	size_t i, j;

	if (!pin_backs(pin, k) || !m->pins)
		return VTB_CLAIM_UNBACKED;
	for (i = 0; i < vcpus->n; i++) {
		const struct vtb_cpuset *a = &m->pins[vcpus->cpus[i]];
		int g = -2;

		for (j = 0; j < a->n; j++) {
			int h = group_at(x, vtb_topo_pu_by_os(t, a->cpus[j]), k);

			if (h < 0 || (g != -2 && h != g))
				return VTB_CLAIM_UNBACKED;
			g = h;
		}
		if (common != -2 && g != common)
			same = false;
		common = g;
	}
	if (same && k == VTB_CLAIM_NODE && host_node != -2 &&
	    (common < 0 || t->nodes[common].os != host_node))
		same = false;
	return same ? VTB_CLAIM_TRUE : VTB_CLAIM_FALSE;
}

static int add_claim(struct ctx *x, int vm, enum vtb_claim_kind k, int first, int n,
		     const struct vtb_cpuset *set, int host_node)
{
	struct vtb_plan *p = x->p;
	struct vtb_claim *c, *nc;
	int i;

	nc = realloc(p->claims, (p->n_claims + 1) * sizeof(*nc));
	if (!nc)
		return vtb_error("out of memory");
	p->claims = nc;
	c = &p->claims[p->n_claims];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->vm = vm;
	if (set) {
		int *a = malloc((set->n + 1) * sizeof(int));

		if (!a)
			return vtb_error("out of memory");
		memcpy(a, set->cpus, set->n * sizeof(int));
		i = set_of(a, set->n, &c->vcpus);
		free(a);
		if (i < 0)
			return -1;
	} else {
		c->vcpus.cpus = malloc((size_t)n * sizeof(int));
		if (!c->vcpus.cpus)
			return vtb_error("out of memory");
		for (i = 0; i < n; i++)
			c->vcpus.cpus[i] = first + i;
		c->vcpus.n = (size_t)n;
	}
	p->n_claims++;
	c->state = claim_state(x, &p->vm[vm], k, &c->vcpus, host_node);
	return 0;
}

static int node_index(const struct vtb_topo *t, int os)
{
	size_t i;

	for (i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].os == os)
			return (int)i;
	return -1;
}

/*
 * Splits @bytes over @n cells in proportion to their vCPUs (@count, @nv
 * in all), in whole granules (2 MiB with huge pages, else 1 KiB: what
 * libvirt and the huge page pools take), largest remainders first and
 * the lowest cell on a tie, so equal cells get equal shares (up to one
 * granule) and the sum is @bytes.  Into @out; 0 or -1.
 */
static int split_memory(uint64_t bytes, bool huge, const size_t *count, size_t n, size_t nv,
			uint64_t *out)
{
	uint64_t g = huge && !(bytes % VTB_TOPO_HUGEPAGE) ? VTB_TOPO_HUGEPAGE : 1024;
	uint64_t units = bytes / g, given = 0;
	bool *got = calloc(n + 1, sizeof(*got));
	size_t i;

	if (!got)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++) {
		/* units < 2^41 and count <= 2^20: no overflow */
		out[i] = units * count[i] / nv;
		given += out[i];
	}
	for (; given < units; given++) { /* fewer than n left */
		size_t best = n;

		for (i = 0; i < n; i++)
			if (!got[i] &&
			    (best == n || units * count[i] % nv > units * count[best] % nv))
				best = i;
		got[best] = true;
		out[best]++;
	}
	for (i = 0; i < n; i++)
		out[i] *= g;
	if (n)
		out[0] += bytes % g;
	free(got);
	return 0;
}

/* Guest cells of VM @m: by host node of @cellof (numa = auto: the
 * assignment, mirror's under lie) or r->cells equal slices.  A cell's
 * host node is that of its vCPUs' pCPUs when they share one. */
static int cells_of(struct ctx *x, struct vtb_plan_vm *m, const int *cellof)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan_req *r = x->r;
	int nv = r->vcpus, i, j, nc = 0;
	int *node_cell = NULL, *cell_of = NULL;
	size_t *count = NULL;
	uint64_t *mem = NULL;

	if (!r->cells && !r->numa)
		return 0;
	cell_of = malloc((size_t)nv * sizeof(int));
	node_cell = malloc((t->n_nodes + 1) * sizeof(int));
	if (!cell_of || !node_cell)
		goto oom;
	for (i = 0; i <= (int)t->n_nodes; i++)
		node_cell[i] = -1;
	for (i = 0; i < nv; i++) {
		if (r->cells) {
			cell_of[i] = i / (nv / r->cells);
			nc = r->cells;
			continue;
		}
		j = vtb_topo_pu_by_os(t, cellof[i])->node + 1;
		if (node_cell[j] < 0)
			node_cell[j] = nc++;
		cell_of[i] = node_cell[j];
	}
	m->cells = calloc((size_t)nc, sizeof(*m->cells));
	count = calloc((size_t)nc, sizeof(*count));
	mem = calloc((size_t)nc, sizeof(*mem));
	if (!m->cells || !count || !mem)
		goto oom;
	m->n_cells = (size_t)nc;
	for (i = 0; i < nv; i++)
		count[cell_of[i]]++;
	/* memory in proportion to each cell's vCPUs */
	if (split_memory(r->memory_bytes, r->hugepages, count, (size_t)nc, (size_t)nv, mem) < 0)
		goto fail;
	for (i = 0; i < nc; i++) {
		m->cells[i].host_node = -2;
		m->cells[i].memory_bytes = mem[i];
	}
	for (i = 0; i < nv; i++) {
		struct vtb_plan_cell *c = &m->cells[cell_of[i]];
		int os = node_os(t, vtb_topo_pu_by_os(t, m->pcpu[i]));

		if (vtb_cpuset_add(&c->vcpus, i) < 0)
			goto fail;
		c->host_node = c->host_node == -2 || c->host_node == os ? os : -1;
	}
	for (i = 0; i < nc; i++)
		if (!m->cells[i].vcpus.n) {
			vtb_error("a guest cell has no vCPUs");
			goto fail;
		}
	/* distances when every cell sits on its own host node (two cells on
	 * one node would be 10 apart, which libvirt refuses for remote cells:
	 * then libvirt's defaults) */
	for (i = 0; i < nc && m->cells[i].host_node >= 0; i++)
		for (j = 0; j < i; j++)
			if (m->cells[j].host_node == m->cells[i].host_node)
				goto no_distances;
	if (i == nc && t->distances) {
		m->distances = malloc((size_t)nc * (size_t)nc * sizeof(unsigned));
		if (!m->distances)
			goto oom;
		for (i = 0; i < nc; i++)
			for (j = 0; j < nc; j++)
				m->distances[i * nc + j] = vtb_topo_distance(
					t, (size_t)node_index(t, m->cells[i].host_node),
					(size_t)node_index(t, m->cells[j].host_node));
	}
no_distances:
	free(cell_of);
	free(node_cell);
	free(count);
	free(mem);
	return 0;
oom:
	vtb_error("out of memory");
fail:
	free(cell_of);
	free(node_cell);
	free(count);
	free(mem);
	return -1;
}

static int pins_of(struct ctx *x, struct vtb_plan_vm *m)
{
	const struct vtb_topo *t = x->t;
	enum vtb_pinning pin = x->r->pinning;
	int nv = x->r->vcpus, i;
	size_t j;
	int *a = NULL;

	if (pin == VTB_PIN_NONE)
		return 0;
	m->pins = calloc((size_t)nv, sizeof(*m->pins));
	a = malloc((m->cpus.n + 1) * sizeof(int));
	if (!m->pins || !a) {
		free(a);
		return vtb_error("out of memory");
	}
	for (i = 0; i < nv; i++) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, m->pcpu[i]);
		size_t n = 0;

		for (j = 0; j < m->cpus.n; j++) {
			const struct vtb_topo_pu *o = vtb_topo_pu_by_os(t, m->cpus.cpus[j]);
			bool in = pin == VTB_PIN_STRICT ? o == pu
				  : pin == VTB_PIN_CORE ? o->core == pu->core && pu->core >= 0
				  : pin == VTB_PIN_LLC
					  ? llc_of(x, o) == llc_of(x, pu) && llc_of(x, pu) >= 0
					  : o->node == pu->node && pu->node >= 0;
			if (in || o == pu)
				a[n++] = o->os;
		}
		if (set_of(a, n, &m->pins[i]) < 0) {
			free(a);
			return -1;
		}
	}
	free(a);
	return 0;
}

/* Spanning dies and sockets: labelled, never silent. */
static int check_spans(struct ctx *x, int vm)
{
	const struct vtb_plan_vm *m = &x->p->vm[vm];
	struct vtb_plan *p = x->p;
	int per_die = p->cores * p->threads, per_sock = per_die * p->dies, i, v;
	int *cell = NULL;
	size_t c, j;
	int ret = 0;

	if (m->n_cells < 2)
		return 0;
	cell = malloc((size_t)x->r->vcpus * sizeof(int));
	if (!cell)
		return vtb_error("out of memory");
	for (c = 0; c < m->n_cells; c++)
		for (j = 0; j < m->cells[c].vcpus.n; j++)
			cell[m->cells[c].vcpus.cpus[j]] = (int)c;
	for (i = 0; i < p->sockets * p->dies && ret == 0; i++)
		for (v = i * per_die + 1; v < (i + 1) * per_die; v++)
			if (cell[v] != cell[i * per_die]) {
				ret = note(
					p, vm,
					vtb_asprintf(
						"virtual die %d spans guest cells %d and %d: its LLC crosses NUMA nodes, which the guest kernel rewrites (sched: llc-sibling not on the same node)",
						i, cell[i * per_die], cell[v]));
				break;
			}
	for (i = 0; i < p->sockets && ret == 0; i++)
		for (v = i * per_sock + 1; v < (i + 1) * per_sock; v++)
			if (cell[v] != cell[i * per_sock]) {
				ret = note(
					p, vm,
					vtb_asprintf(
						"virtual socket %d spans guest cells %d and %d: the guest kernel drops its package level (NUMA in package)",
						i, cell[i * per_sock], cell[v]));
				break;
			}
	free(cell);
	return ret;
}

static int claims_of(struct ctx *x, int vm)
{
	struct vtb_plan *p = x->p;
	struct vtb_plan_vm *m = &p->vm[vm];
	int per_die = p->cores * p->threads, n = x->r->vcpus, i;
	size_t c;

	if (p->threads > 1)
		for (i = 0; i < n; i += p->threads)
			if (add_claim(x, vm, VTB_CLAIM_SMT, i, p->threads, NULL, -2) < 0)
				return -1;
	if (per_die > 1)
		for (i = 0; i < n; i += per_die)
			if (add_claim(x, vm, VTB_CLAIM_LLC, i, per_die, NULL, -2) < 0)
				return -1;
	for (c = 0; c < m->n_cells; c++)
		if (add_claim(x, vm, VTB_CLAIM_NODE, 0, 0, &m->cells[c].vcpus,
			      m->cells[c].host_node) < 0)
			return -1;
	if (!m->n_cells && add_claim(x, vm, VTB_CLAIM_NODE, 0, n, NULL, -2) < 0)
		return -1;
	return 0;
}

static int check_req(const struct vtb_plan_req *r)
{
	if (r->vcpus < 1 || r->vms < 1)
		return vtb_error("vcpus and vms must be at least 1");
	if (r->clusters > 1)
		return vtb_error(
			"clusters = %d: clusters cannot be expressed with Debian 12's libvirt 9.0 / QEMU 7.2 (no <topology clusters=> before libvirt 10.1)",
			r->clusters);
	if (r->topology == VTB_VTOPO_EXPLICIT) {
		long long prod = (long long)r->sockets * r->dies * r->cores * r->threads;

		if (r->sockets < 1 || r->dies < 1 || r->cores < 1 || r->threads < 1)
			return vtb_error(
				"impossible topology: sockets, dies, cores and threads must be at least 1");
		if (prod != r->vcpus)
			return vtb_error(
				"impossible topology: %d sockets x %d dies x %d cores x %d threads = %lld CPUs, not %d vCPUs",
				r->sockets, r->dies, r->cores, r->threads, prod, r->vcpus);
	}
	if (r->cells < 0 || r->cells > r->vcpus || (r->cells && r->vcpus % r->cells))
		return vtb_error("impossible topology: %d cells do not divide %d vCPUs evenly",
				 r->cells, r->vcpus);
	if (r->cells && r->topology != VTB_VTOPO_EXPLICIT)
		return vtb_error(
			"cells = %d needs an explicit [topology] (presets take their cells from the host)",
			r->cells);
	if (r->memory_bytes < (uint64_t)(r->cells ? r->cells : 1) * 1024)
		return vtb_error("memory too small for the guest cells");
	if (r->memory_bytes % 1024)
		return vtb_error("memory = %llu bytes: not a whole number of KiB (libvirt's unit)",
				 (unsigned long long)r->memory_bytes);
	return 0;
}

/* Drops the notes added after @n (a failed attempt's). */
static void notes_truncate(char **notes, size_t *n_notes, size_t n)
{
	while (*n_notes > n)
		free(notes[--*n_notes]);
}

struct load_slot {
	int load, idx;
};

static int cmp_load(const void *a, const void *b)
{
	const struct load_slot *x = a, *y = b;

	if (x->load != y->load)
		return (x->load > y->load) - (x->load < y->load);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * How well a placement of every VM of a configuration does; compared
 * field by field in this order (score_cmp()): the memory fits the host
 * nodes it is bound to; every VM on free whole cores (nothing shared);
 * mirror's threads per core (the host's SMT width); the most vCPUs on
 * one pCPU, the fewest on one, and the vCPUs beyond one per pCPU
 * (overcommit: the loads as even as the shape allows); sockets that
 * are whole packages alike; the fewest host nodes, then packages, summed
 * over the VMs; the most cores per die.
 */
struct score {
	bool mem_ok, whole;
	int t, max_load, min_load;
	long excess;
	bool regular;
	long nodes, pkgs;
	int c;
};

static int score_cmp(const struct score *a, const struct score *b)
{
	if (a->mem_ok != b->mem_ok)
		return a->mem_ok ? -1 : 1;
	if (a->whole != b->whole)
		return a->whole ? -1 : 1;
	if (a->t != b->t)
		return a->t > b->t ? -1 : 1;
	if (a->max_load != b->max_load)
		return a->max_load < b->max_load ? -1 : 1;
	if (a->min_load != b->min_load)
		return a->min_load > b->min_load ? -1 : 1;
	if (a->excess != b->excess)
		return a->excess < b->excess ? -1 : 1;
	if (a->regular != b->regular)
		return a->regular ? -1 : 1;
	if (a->nodes != b->nodes)
		return a->nodes < b->nodes ? -1 : 1;
	if (a->pkgs != b->pkgs)
		return a->pkgs < b->pkgs ? -1 : 1;
	if (a->c != b->c)
		return a->c > b->c ? -1 : 1;
	return 0;
}

/* Scratch of place_all(), sized once per plan. */
struct scratch {
	bool *used;	/* by OS number: a core some VM has */
	int *load;	/* by OS number: vCPUs on it */
	bool *barred;	/* by node index: this VM's memory does not fit there */
	bool *pkg_seen; /* by package index */
	uint64_t *left; /* by node index: memory not yet bound, 0 unknown */
	size_t *count;	/* by node index */
	uint64_t *mem;	/* by node index */
	int *cand, *tp, *tc;
	struct load_slot *slot;
};

static void scratch_release(struct scratch *s)
{
	free(s->used);
	free(s->load);
	free(s->barred);
	free(s->pkg_seen);
	free(s->left);
	free(s->count);
	free(s->mem);
	free(s->cand);
	free(s->tp);
	free(s->tc);
	free(s->slot);
}

static int scratch_init(const struct ctx *x, size_t n_pool, struct scratch *s)
{
	const struct vtb_topo *t = x->t;
	size_t nn = t->n_nodes + 1, nv = (size_t)x->r->vcpus;

	s->used = calloc((size_t)t->max_os + 2, sizeof(*s->used));
	s->load = calloc((size_t)t->max_os + 2, sizeof(*s->load));
	s->barred = calloc(nn, sizeof(*s->barred));
	s->pkg_seen = calloc(t->n_groups[VTB_TOPO_PKG] + 1, sizeof(*s->pkg_seen));
	s->left = calloc(nn, sizeof(*s->left));
	s->count = calloc(nn, sizeof(*s->count));
	s->mem = calloc(nn, sizeof(*s->mem));
	s->cand = calloc(n_pool + 1, sizeof(*s->cand));
	s->tp = calloc(nv, sizeof(*s->tp));
	s->tc = calloc(nv, sizeof(*s->tc));
	s->slot = calloc(n_pool + 1, sizeof(*s->slot));
	if (!s->used || !s->load || !s->barred || !s->pkg_seen || !s->left || !s->count ||
	    !s->mem || !s->cand || !s->tp || !s->tc || !s->slot)
		return vtb_error("out of memory");
	return 0;
}

static bool pool_ok(const struct ctx *x, const struct scratch *s, int os)
{
	const struct vtb_topo_pu *p = vtb_topo_pu_by_os(x->t, os);

	return p->node < 0 || !s->barred[p->node];
}

/*
 * One VM on @pool (compact order): the free pCPUs as without overcommit,
 * whole cores; with overcommit, when they do not hold the VM, the pool's
 * least loaded pCPUs (the fewest that hold its vCPUs: free siblings
 * first), then the whole pool by load, least loaded first and in compact
 * order among equals.  pCPUs on barred nodes are left out.  Into s->tp,
 * s->tc; *@whole: on free whole cores.  0, 1 (no room, vtb_error() says
 * why) or -1.
 */
static int place_one(struct ctx *x, int vm, const int *pool, size_t n_pool, const struct shape *sh,
		     struct scratch *s, bool *whole)
{
	struct vtb_plan *p = x->p;
	size_t nv = (size_t)x->r->vcpus, n = 0, n_ok = 0, i, last = 0;
	size_t p_notes = p->n_notes, vm_notes = p->vm[vm].n_notes;
	int tier, rc = 1;

	for (tier = 0; tier < 3 && rc == 1; tier++) {
		n = 0;
		if (tier == 0) {
			for (i = 0; i < n_pool; i++)
				if (!s->used[pool[i]] && pool_ok(x, s, pool[i]))
					s->cand[n++] = pool[i];
			if (n < nv) {
				vtb_error(
					"too many vCPUs: VM %d of %d finds %zu free pCPUs for its %zu vCPUs (whole cores go to one VM: side-by-side VMs never share SMT siblings; set overcommit = yes to share)",
					vm, x->r->vms, n, nv);
				if (!x->r->overcommit)
					return 1;
				continue;
			}
		} else {
			int lim;

			if (!x->r->overcommit)
				break;
			if (tier == 1) {
				for (i = 0, n_ok = 0; i < n_pool; i++)
					if (pool_ok(x, s, pool[i]))
						s->slot[n_ok++] = (struct load_slot){
							s->load[pool[i]], (int)i
						};
				if (!n_ok)
					break;
				qsort(s->slot, n_ok, sizeof(*s->slot), cmp_load);
			}
			lim = s->slot[(nv < n_ok ? nv : n_ok) - 1].load;
			for (i = 0; i < n_ok && (tier == 2 || s->slot[i].load <= lim); i++)
				s->cand[n++] = pool[s->slot[i].idx];
			if (tier == 2 && n == last)
				continue; /* tier 1 took the whole pool already */
			last = n;
		}
		rc = assign(x, vm, s->cand, n, sh, tier ? s->load : NULL, s->used, s->tp, s->tc);
		if (rc) {
			notes_truncate(p->notes, &p->n_notes, p_notes);
			notes_truncate(p->vm[vm].notes, &p->vm[vm].n_notes, vm_notes);
		}
		*whole = tier == 0;
	}
	return rc;
}

/*
 * The memory VM's placement s->tp/s->tc binds to each host node (its
 * cells, by node of cellof, in proportion to their vCPUs; with numa =
 * off all of it over the nodes of its pCPUs) against s->left.  -1 when it
 * fits (or the nodes' memory is unknown), else the index of a node it
 * overflows.  With @take, binds it.
 */
static int mem_over(const struct ctx *x, struct scratch *s, bool take)
{
	const struct vtb_topo *t = x->t;
	size_t nv = (size_t)x->r->vcpus, nn = t->n_nodes, i;
	uint64_t need = x->r->memory_bytes, have = 0;
	int worst = -1;

	if (!nn)
		return -1;
	memset(s->count, 0, nn * sizeof(*s->count));
	for (i = 0; i < nv; i++) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t,
								 x->r->numa ? s->tc[i] : s->tp[i]);

		if (pu->node >= 0)
			s->count[pu->node]++;
	}
	if (x->r->numa) {
		if (split_memory(need, x->r->hugepages, s->count, nn, nv, s->mem) < 0)
			return -1;
		for (i = 0; i < nn; i++) {
			if (!s->count[i] || !s->left[i])
				continue;
			if (take)
				s->left[i] = s->left[i] > s->mem[i] ? s->left[i] - s->mem[i] : 1;
			/* fits while mem <= what is left, that is mem < left */
			else if (s->mem[i] >= s->left[i])
				return (int)i;
		}
		return -1;
	}
	for (i = 0; i < nn; i++) {
		if (!s->count[i])
			continue;
		if (!s->left[i])
			return -1; /* unknown: nothing to say */
		have += s->left[i] - 1;
		if (worst < 0 || s->left[i] < s->left[worst])
			worst = (int)i;
	}
	for (i = 0; take && i < nn && need; i++) {
		uint64_t part;

		if (!s->count[i])
			continue;
		part = s->left[i] - 1 < need ? s->left[i] - 1 : need;
		s->left[i] -= part;
		need -= part;
	}
	return !take && need > have ? worst : -1;
}

/*
 * Places every VM of the configuration with shape @sh on @pool, VM
 * after VM (a core one VM uses is used up for the others), and scores
 * it.  A VM whose memory would overflow a host node (as far as the nodes'
 * memory is known) tries again without that node; when nothing fits it
 * keeps its first placement and the score says so.  @pcpu, @cellof:
 * vms x vcpus.  0, 1 when a VM finds no room (vtb_error() says why), -1.
 */
static int place_all(struct ctx *x, const int *pool, size_t n_pool, const struct shape *sh,
		     struct scratch *s, int *pcpu, int *cellof, struct score *sc)
{
	const struct vtb_topo *t = x->t;
	size_t nv = (size_t)x->r->vcpus, nn = t->n_nodes, i, k;
	int vm, rc;

	memset(s->used, 0, ((size_t)t->max_os + 2) * sizeof(*s->used));
	memset(s->load, 0, ((size_t)t->max_os + 2) * sizeof(*s->load));
	/* left: what each node has not yet bound, plus 1 (0: unknown) */
	for (i = 0; i < nn; i++) {
		uint64_t cap;

		s->left[i] = vtb_topo_node_capacity(t, i, x->r->hugepages, &cap, NULL) ? cap + 1
										       : 0;
	}
	*sc = (struct score){ .mem_ok = true,
			      .whole = true,
			      .t = sh->t,
			      .regular = !sh->t || sh->s > 0,
			      .c = sh->c };
	for (vm = 0; vm < x->r->vms; vm++) {
		int *vp = pcpu + (size_t)vm * nv, *vc = cellof + (size_t)vm * nv;
		bool whole = false, fits = false, first_whole = false;
		size_t tries;

		memset(s->barred, 0, (nn + 1) * sizeof(*s->barred));
		for (tries = 0; tries <= nn && !fits; tries++) {
			int over;

			rc = place_one(x, vm, pool, n_pool, sh, s, &whole);
			if (rc < 0 || (rc && !tries))
				return rc;
			if (rc)
				break;
			over = mem_over(x, s, false);
			if (!tries || over < 0) {
				memcpy(vp, s->tp, nv * sizeof(*vp));
				memcpy(vc, s->tc, nv * sizeof(*vc));
				first_whole = whole;
			}
			fits = over < 0;
			if (over >= 0)
				s->barred[over] = true;
		}
		/* bind what the kept placement binds */
		memcpy(s->tp, vp, nv * sizeof(*vp));
		memcpy(s->tc, vc, nv * sizeof(*vc));
		mem_over(x, s, true);
		sc->mem_ok = sc->mem_ok && fits;
		sc->whole = sc->whole && first_whole;
		memset(s->count, 0, nn * sizeof(*s->count));
		for (i = 0; i < nv; i++) {
			const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, vp[i]);
			const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, vp[i]);

			/* the whole core: a sibling given to another VM would
			 * make the VMs each other's noise */
			s->used[vp[i]] = true;
			for (k = 0; core && k < core->n; k++)
				s->used[core->cpus[k]] = true;
			s->load[vp[i]]++;
			if (pu->node >= 0 && !s->count[pu->node]++)
				sc->nodes++;
		}
		memset(s->pkg_seen, 0, (t->n_groups[VTB_TOPO_PKG] + 1) * sizeof(*s->pkg_seen));
		for (i = 0; i < nv; i++) {
			int pk = vtb_topo_pu_by_os(t, vp[i])->pkg;

			if (pk >= 0 && !s->pkg_seen[pk]) {
				s->pkg_seen[pk] = true;
				sc->pkgs++;
			}
		}
	}
	sc->min_load = INT_MAX;
	for (i = 0; i < n_pool; i++) {
		int l = s->load[pool[i]];

		if (l > sc->max_load)
			sc->max_load = l;
		if (l < sc->min_load)
			sc->min_load = l;
		if (l > 1)
			sc->excess += l - 1;
	}
	return 0;
}

/*
 * The shape every VM takes (mirror and lie) and its score: the best by
 * score_cmp() among enum_shapes()'s candidates, each tried by placing
 * every VM (so that side-by-side and overcommitted VMs get the shape that
 * leaves room for all, not the one that suits the first).  0, 1 when
 * nothing fits (vtb_error() says why, for the first candidate), -1.
 */
static int choose(struct ctx *x, const int *pool, size_t n_pool, struct scratch *s,
		  const struct shape *forced, struct shape *best, struct score *bsc)
{
	const struct vtb_plan_req *r = x->r;
	size_t nvv = (size_t)r->vms * (size_t)r->vcpus, n = 0, i;
	int *pcpu = calloc(nvv, sizeof(int)), *cellof = calloc(nvv, sizeof(int));
	struct shape *cands = NULL, none = { 0, 0, 0, 0 };
	struct hview v = { 0 };
	char *first_err = NULL;
	bool found = false;
	int rc = -1;

	if (!pcpu || !cellof) {
		vtb_error("out of memory");
		goto out;
	}
	if (forced) {
		cands = malloc(sizeof(*cands));
		if (!cands) {
			vtb_error("out of memory");
			goto out;
		}
		cands[n++] = *forced;
	} else if (vtb_preset_of(r->topology)->from_host) {
		if (hview_build(x, pool, n_pool, r->numa, &v) < 0 ||
		    enum_shapes(&v, r->vcpus, &cands, &n) < 0)
			goto out;
		if (!n) {
			vtb_error(
				"topology %s: %d vCPUs do not form a regular shape (LLC groups of equal cores of equal threads) on the %zu free pCPUs",
				vtb_preset_of(r->topology)->name, r->vcpus, n_pool);
			rc = 1;
			goto out;
		}
	} else {
		cands = malloc(sizeof(*cands));
		if (!cands) {
			vtb_error("out of memory");
			goto out;
		}
		cands[n++] = none;
	}
	for (i = 0; i < n; i++) {
		struct score sc;

		/* candidates come with t decreasing: a smaller t is worse
		 * than a found placement that fits on whole cores */
		if (found && bsc->mem_ok && bsc->whole && cands[i].t < bsc->t)
			break;
		rc = place_all(x, pool, n_pool, &cands[i], s, pcpu, cellof, &sc);
		if (rc < 0)
			goto out;
		if (rc) {
			if (!first_err && !(first_err = vtb_strdup(vtb_errmsg()))) {
				rc = vtb_error("out of memory");
				goto out;
			}
			continue;
		}
		if (!found || score_cmp(&sc, bsc) < 0) {
			*bsc = sc;
			*best = cands[i];
			found = true;
		}
	}
	rc = found ? 0 : 1;
	if (!found)
		vtb_error("%s", first_err ? first_err : "no placement");
out:
	free(first_err);
	free(cands);
	free(pcpu);
	free(cellof);
	hview_release(&v);
	return rc;
}

/* The cells bound to host node @node as "vm 0 cell 0 24GiB, ..." (the
 * first few). */
static char *cells_on(const struct vtb_plan *p, int node)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t c, k = 0;
	int v;
	char *out;

	for (v = 0; v < p->req.vms; v++)
		for (c = 0; c < p->vm[v].n_cells; c++) {
			char *m;

			if (p->vm[v].cells[c].host_node != node)
				continue;
			if (k++ == 4) {
				vtb_strbuf_addf(&sb, ", ...");
				continue;
			}
			if (k > 5)
				continue;
			m = vtb_format_size(p->vm[v].cells[c].memory_bytes);
			vtb_strbuf_addf(&sb, "%svm %d cell %zu %s", k > 1 ? ", " : "", v, c,
					m ? m : "?");
			free(m);
		}
	out = vtb_strdup(vtb_strbuf_str(&sb));
	vtb_strbuf_release(&sb);
	return out;
}

/* "X in free 2MiB huge pages" or "X" for what node @i can give. */
static char *capacity_text(const struct ctx *x, size_t i)
{
	bool free_known;
	uint64_t cap;
	char *sz, *s;

	vtb_topo_node_capacity(x->t, i, x->r->hugepages, &cap, &free_known);
	sz = vtb_format_size(cap);

	if (!x->r->hugepages)
		s = vtb_asprintf("%s", sz ? sz : "?");
	else if (free_known)
		s = vtb_asprintf("%s in free 2MiB huge pages (hugepages = yes)", sz ? sz : "?");
	else
		s = vtb_asprintf(
			"%s in its 2MiB huge page pool (hugepages = yes; how much of it is free the host description does not say)",
			sz ? sz : "?");
	free(sz);
	return s;
}

/* What mem_check() finds on the way, per host node index. */
struct memck {
	uint64_t *fixed; /* memory of the guest cells bound to the node */
	uint64_t *cap;	 /* what the node can give (its huge page pool with hugepages) */
	bool *known;
	struct vtb_cpuset unknown, fnodes; /* nodes of unknown memory; floating memory's */
	uint64_t all_float, all_avail;
	bool pool_only, fl_unknown;
};

static void memck_release(struct memck *k)
{
	free(k->fixed);
	free(k->cap);
	free(k->known);
	vtb_cpuset_release(&k->unknown);
	vtb_cpuset_release(&k->fnodes);
}

/* Each node's capacity and the memory of the guest cells bound to it. */
static int memck_init(struct ctx *x, struct memck *k)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan *p = x->p;
	size_t nn = t->n_nodes, i, c;
	int v;

	k->fixed = calloc(nn + 1, sizeof(*k->fixed));
	k->cap = calloc(nn + 1, sizeof(*k->cap));
	k->known = calloc(nn + 1, sizeof(*k->known));
	if (!k->fixed || !k->cap || !k->known)
		return vtb_error("out of memory");
	for (i = 0; i < nn; i++)
		k->known[i] = vtb_topo_node_capacity(t, i, p->req.hugepages, &k->cap[i], NULL);
	for (v = 0; v < p->req.vms; v++) {
		const struct vtb_plan_vm *m = &p->vm[v];

		for (c = 0; c < m->n_cells; c++)
			if (m->cells[c].host_node >= 0) {
				int n = node_index(t, m->cells[c].host_node);

				if (n >= 0)
					k->fixed[n] += m->cells[c].memory_bytes;
			}
	}
	return 0;
}

/* Guest cells bound to one node must fit it; *why when they do not. */
static int check_bound(struct ctx *x, struct memck *k, char **why)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan *p = x->p;
	size_t i;

	for (i = 0; i < t->n_nodes && !*why; i++) {
		bool free_known;
		char *need, *has, *list;

		if (!k->fixed[i])
			continue;
		vtb_topo_node_capacity(t, i, p->req.hugepages, &k->cap[i], &free_known);
		k->pool_only = k->pool_only || (k->known[i] && !free_known);
		if (!k->known[i]) {
			if (vtb_cpuset_add(&k->unknown, t->nodes[i].os) < 0)
				return -1;
			continue;
		}
		if (k->fixed[i] <= k->cap[i])
			continue;
		need = vtb_format_size(k->fixed[i]);
		has = capacity_text(x, i);
		list = cells_on(p, t->nodes[i].os);
		*why = vtb_asprintf(
			"guest memory does not fit host node %d: it has %s, the guest cells bound to it need %s (%s); lower memory%s",
			t->nodes[i].os, has ? has : "?", need ? need : "?", list ? list : "?",
			p->req.vms > 1 ? " or vms" : "");
		free(need);
		free(has);
		free(list);
		if (!*why)
			return vtb_error("out of memory");
	}
	return 0;
}

/* VM @v's memory bound to several nodes (numa = off, cells spanning
 * nodes) must fit what they have left; *why when it does not. */
static int check_floating(struct ctx *x, struct memck *k, int v, char **why)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan *p = x->p;
	const struct vtb_plan_vm *m = &p->vm[v];
	uint64_t fl = m->n_cells ? 0 : p->req.memory_bytes, avail = 0;
	bool unk = false, one = m->nodes.n == 1;
	char *need, *has, *nodes;
	size_t i, c;

	for (c = 0; c < m->n_cells; c++)
		if (m->cells[c].host_node < 0)
			fl += m->cells[c].memory_bytes;
	if (!fl || !m->nodes.n)
		return 0;
	for (i = 0; i < m->nodes.n; i++) {
		int n = node_index(t, m->nodes.cpus[i]);
		uint64_t left;

		if (n >= 0 && k->known[n] && p->req.hugepages && t->nodes[n].hugepages_free < 0)
			k->pool_only = true;
		if (n < 0 || !k->known[n]) {
			unk = true;
			if (vtb_cpuset_add(&k->unknown, m->nodes.cpus[i]) < 0)
				return -1;
			continue;
		}
		left = k->cap[n] > k->fixed[n] ? k->cap[n] - k->fixed[n] : 0;
		avail += left;
		if (!vtb_cpuset_has(&k->fnodes, m->nodes.cpus[i])) {
			k->all_avail += left;
			if (vtb_cpuset_add(&k->fnodes, m->nodes.cpus[i]) < 0)
				return -1;
		}
	}
	k->fl_unknown = k->fl_unknown || unk;
	k->all_float += fl;
	if (unk || fl <= avail)
		return 0;
	need = vtb_format_size(fl);
	has = vtb_format_size(avail);
	nodes = vtb_cpuset_format(&m->nodes);
	*why = vtb_asprintf(
		"guest memory does not fit host node%s %s: vm %d binds %s to %s (%s), %s %s left%s; lower memory%s",
		one ? "" : "s", nodes ? nodes : "?", v, need ? need : "?", one ? "it" : "them",
		m->n_cells ? "cells spanning host nodes" : "numa = off",
		one ? "it has" : "they have", has ? has : "?",
		p->req.hugepages ? " in 2MiB huge pages (hugepages = yes)" : "",
		p->req.vms > 1 ? " or vms" : "");
	free(need);
	free(has);
	free(nodes);
	return *why ? 0 : vtb_error("out of memory");
}

/* The VMs' floating memory together against the nodes it may use. */
static int check_all_floating(const struct ctx *x, const struct memck *k, char **why)
{
	char *need, *has, *nodes;

	if (*why || k->fl_unknown || k->all_float <= k->all_avail)
		return 0;
	need = vtb_format_size(k->all_float);
	has = vtb_format_size(k->all_avail);
	nodes = vtb_cpuset_format(&k->fnodes);
	*why = vtb_asprintf(
		"guest memory does not fit host nodes %s: the %d VMs bind %s to them, they have %s left; lower memory or vms",
		nodes ? nodes : "?", x->p->req.vms, need ? need : "?", has ? has : "?");
	free(need);
	free(has);
	free(nodes);
	return *why ? 0 : vtb_error("out of memory");
}

/* Notes: nodes whose memory (or huge pages) the description does not
 * give, and huge page pools whose free part is unknown. */
static int mem_notes(struct ctx *x, const struct memck *k)
{
	struct vtb_plan *p = x->p;

	if (k->unknown.n) {
		char *nodes = vtb_cpuset_format(&k->unknown);
		bool one = k->unknown.n == 1;
		int r;

		r = note(
			p, -1,
			!nodes ? NULL
			: p->req.hugepages
				? vtb_asprintf(
					  "huge pages of host node%s %s unknown (the host description gives no 2MiB page counts): guest memory is not checked against %s",
					  one ? "" : "s", nodes, one ? "it" : "them")
				: vtb_asprintf(
					  "memory of host node%s %s unknown (the host description gives none): guest memory is not checked against %s",
					  one ? "" : "s", nodes, one ? "it" : "them"));
		free(nodes);
		if (r < 0)
			return -1;
	}
	if (k->pool_only && p->req.hugepages &&
	    note(p, -1,
		 vtb_strdup(
			 "hugepages = yes: the host description gives the huge page pools but not how much of them is free; guest memory is checked against the pools")) <
		    0)
		return -1;
	return 0;
}

/*
 * Guest memory against the host nodes it is bound to (numatune strict):
 * a cell on one host node (memnode) must fit that node, counting the
 * other VMs' cells there; memory bound to several nodes (numa = off, or
 * a cell whose vCPUs span nodes) must fit what they have left.  Free
 * huge pages with hugepages = yes, else the normal memory.  The first
 * misfit becomes p->why_not (the configuration is not runnable); nodes
 * of unknown memory are said in a note.
 */
static int mem_check(struct ctx *x)
{
	struct memck k = { 0 };
	char *why = NULL;
	int v, ret = -1;

	if (memck_init(x, &k) < 0 || check_bound(x, &k, &why) < 0)
		goto out;
	for (v = 0; v < x->p->req.vms && !why; v++)
		if (check_floating(x, &k, v, &why) < 0)
			goto out;
	if (check_all_floating(x, &k, &why) < 0)
		goto out;
	x->p->why_not = why;
	why = NULL;
	ret = mem_notes(x, &k);
out:
	free(why);
	memck_release(&k);
	return ret;
}

/* What the plan says when no cache information stands behind "LLC". */
static int llc_fallback_note(struct ctx *x)
{
	struct vtb_plan *p = x->p;
	const struct vtb_preset *preset = vtb_preset_of(p->req.topology);
	const struct vtb_topo *t = x->t;
	const char *what = "the whole host";
	bool llc_claims = false;
	size_t i;

	if (x->llc_level == VTB_TOPO_LLC)
		return 0;
	for (i = 0; i < p->n_claims; i++)
		llc_claims |= p->claims[i].kind == VTB_CLAIM_LLC;
	if (!llc_claims && p->req.pinning != VTB_PIN_LLC && !preset->from_host)
		return 0;
	/* dies: the packages' own when the source names none */
	if (x->llc_level == VTB_TOPO_DIE)
		what = t->n_groups[VTB_TOPO_DIE] > t->n_groups[VTB_TOPO_PKG] ? "its dies"
									     : "its packages";
	else if (x->llc_level == VTB_TOPO_PKG)
		what = "its packages";
	return note(
		p, -1,
		vtb_asprintf(
			"the host description gives no caches: its LLC groups are taken to be %s%s%s%s",
			what, preset->llc_fallback,
			p->req.pinning == VTB_PIN_LLC ? "; pinning llc pins to them" : "",
			llc_claims ? "; the LLC claims are stated against them" : ""));
}

/*
 * The placement kept: every VM with shape @sh (the same as in choose(),
 * now with its notes), the guest's shape, and per VM its pCPUs, nodes,
 * pins, cells, claims and notes; then the memory check.
 */
static int place_final(struct ctx *x, const int *pool, size_t n_pool, struct scratch *s,
		       const struct shape *sh, struct score *sc)
{
	const struct vtb_plan_req *r = x->r;
	struct vtb_plan *p = x->p;
	size_t nv = (size_t)r->vcpus, nvv = (size_t)r->vms * nv, i;
	int *pcpu = calloc(nvv, sizeof(int)), *cellof = calloc(nvv, sizeof(int));
	int vm, rc, ret = -1;

	if (!pcpu || !cellof) {
		vtb_error("out of memory");
		goto out;
	}
	x->notes = true;
	rc = place_all(x, pool, n_pool, sh, s, pcpu, cellof, sc);
	if (rc) {
		if (rc > 0) /* choose() placed it a moment ago */
			vtb_error("internal error: the chosen placement does not place");
		goto out;
	}
	if (sh->t) {
		p->threads = sh->t;
		p->cores = sh->c;
		p->sockets = sh->s > 0 ? sh->s : 1;
		p->dies = sh->s > 0 ? sh->l / sh->s : sh->l;
		if (!sh->s &&
		    note(p, -1,
			 vtb_asprintf(
				 "the packages used hold different numbers of the %d LLC groups used (no regular choice fits): told 1 socket of %d dies, the real package boundary is not shown",
				 sh->l, sh->l)) < 0)
			goto out;
	} else {
		vtb_vtopo_shape(r, &p->sockets, &p->dies, &p->cores, &p->threads);
	}
	for (vm = 0; vm < r->vms; vm++) {
		struct vtb_plan_vm *m = &p->vm[vm];

		m->pcpu = malloc(nv * sizeof(int));
		if (!m->pcpu) {
			vtb_error("out of memory");
			goto out;
		}
		memcpy(m->pcpu, pcpu + (size_t)vm * nv, nv * sizeof(int));
		if (set_of(m->pcpu, nv, &m->cpus) < 0)
			goto out;
		for (i = 0; i < m->cpus.n; i++)
			if (vtb_cpuset_add(&m->nodes,
					   node_os(x->t,
						   vtb_topo_pu_by_os(x->t, m->cpus.cpus[i]))) < 0)
				goto out;
		if (m->nodes.n && m->nodes.cpus[0] < 0) /* unknown nodes */
			vtb_cpuset_release(&m->nodes);
		if (pins_of(x, m) < 0 || cells_of(x, m, cellof + (size_t)vm * nv) < 0 ||
		    claims_of(x, vm) < 0 || check_spans(x, vm) < 0)
			goto out;
		if (vtb_preset_of(r->topology)->lies) {
			size_t held = 0;

			for (i = 0; i < p->n_claims; i++)
				held += p->claims[i].vm == vm &&
					p->claims[i].kind != VTB_CLAIM_NODE &&
					p->claims[i].state == VTB_CLAIM_TRUE;
			if (held &&
			    note(p, vm,
				 vtb_asprintf(
					 "lie: %zu SMT or LLC claim%s still true (the free pCPUs hold no second core or LLC to lie with)",
					 held, held == 1 ? "" : "s")) < 0)
				goto out;
		}
	}
	if (r->overcommit && sh->t) {
		/* overcommit shares evenly where the shape allows: say where not */
		int lo = 1 << 30, hi = 0;
		size_t n_lo = 0, n_hi = 0;

		for (i = 0; i < n_pool; i++) {
			int l = s->load[pool[i]];

			n_lo = l < lo ? 1 : n_lo + (l == lo);
			lo = l < lo ? l : lo;
			n_hi = l > hi ? 1 : n_hi + (l == hi);
			hi = l > hi ? l : hi;
		}
		if (hi - lo > 1 &&
		    note(p, -1,
			 vtb_asprintf(
				 "overcommit: %s's shape (%d LLC groups of %d cores of %d threads per VM) cannot spread the VMs evenly over the pool: %zu pCPUs hold %d vCPUs while %zu hold %d",
				 vtb_preset_of(r->topology)->name, sh->l, sh->c, sh->t, n_hi, hi,
				 n_lo, lo)) < 0)
			goto out;
	}
	if (llc_fallback_note(x) < 0 || mem_check(x) < 0)
		goto out;
	sc->mem_ok = !p->why_not;
	ret = 0;
out:
	free(pcpu);
	free(cellof);
	return ret;
}

static int llc_level_of(const struct vtb_topo *t)
{
	if (t->n_groups[VTB_TOPO_LLC])
		return VTB_TOPO_LLC;
	if (t->n_groups[VTB_TOPO_DIE])
		return VTB_TOPO_DIE;
	if (t->n_groups[VTB_TOPO_PKG])
		return VTB_TOPO_PKG;
	return -1;
}

/* A whole plan of @req with housekeeping @hk_set (NULL: the request's),
 * and its score.  0 or -1 with vtb_error(). */
static int build(const struct vtb_topo *t, const struct vtb_plan_req *req,
		 const struct vtb_cpuset *hk_set, const struct shape *forced, struct vtb_plan **out,
		 struct score *sc, struct shape *sh_out)
{
	struct vtb_plan *p;
	struct ctx x;
	struct scratch s = { 0 };
	struct shape sh = { 0, 0, 0, 0 };
	int *pool = NULL;
	size_t n_pool = 0;
	int rc, ret = -1;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return vtb_error("out of memory");
	p->req = *req;
	p->req.housekeeping = NULL; /* not owned */
	p->req.machine = NULL;
	if (req->machine && !strcmp(req->machine, "q35"))
		p->machine = "q35";
	x = (struct ctx){ t, req, p, llc_level_of(t), true };
	if (pool_of(&x, hk_set, &pool, &n_pool) < 0)
		goto out;
	if (!req->overcommit && (size_t)req->vcpus * (size_t)req->vms > n_pool) {
		char *hk = vtb_cpuset_format(&p->housekeeping);

		vtb_error(
			"too many vCPUs: %d x %d VM%s need %lld pCPUs, %zu available (%zu allowed, housekeeping %s)",
			req->vcpus, req->vms, req->vms == 1 ? "" : "s",
			(long long)req->vcpus * req->vms, n_pool, n_pool + p->housekeeping.n,
			hk && *hk ? hk : "none");
		free(hk);
		ret = VTB_PLAN_NO_ROOM;
		goto out;
	}
	if ((size_t)req->vcpus > n_pool &&
	    (req->pinning != VTB_PIN_NONE || vtb_preset_of(req->topology)->from_host)) {
		vtb_error(
			"too many vCPUs: %d vCPUs pinned (or mirrored) on %zu available pCPUs; only pinning = none overcommits one VM",
			req->vcpus, n_pool);
		ret = VTB_PLAN_NO_ROOM;
		goto out;
	}
	p->vm = calloc((size_t)req->vms, sizeof(*p->vm));
	if (!p->vm || scratch_init(&x, n_pool, &s) < 0) {
		vtb_error("out of memory");
		goto out;
	}
	x.notes = false;
	rc = choose(&x, pool, n_pool, &s, forced, &sh, sc);
	if (rc) {
		if (rc > 0) /* no placement holds the VMs: vtb_error() says why */
			ret = VTB_PLAN_NO_ROOM;
		goto out;
	}
	if (place_final(&x, pool, n_pool, &s, &sh, sc) < 0)
		goto out;
	if (sh_out)
		*sh_out = sh;
	*out = p;
	p = NULL;
	ret = 0;
out:
	free(pool);
	scratch_release(&s);
	vtb_plan_free(p);
	return ret;
}

/* Whether a placement cannot get better by moving housekeeping: each VM
 * on one node of one package, nothing shared, the memory fits. */
static bool settled(const struct score *sc, int vms)
{
	return sc->mem_ok && sc->whole && sc->nodes <= vms && sc->pkgs <= vms;
}

/*
 * Where housekeeping costs least, from a plan made without it (@q): a
 * core of a node no VM uses, else the last core no VM uses, else the
 * last core; its allowed PUs into @out.  @why: which it is.
 */
static int hk_elsewhere(const struct vtb_topo *t, const struct vtb_plan *q, struct vtb_cpuset *out,
			const char **why)
{
	struct vtb_cpuset nodes = { NULL, 0 }, cpus = { NULL, 0 };
	int pick = -1, last_free = -1, last = -1, v;
	size_t i, k;

	for (v = 0; v < q->req.vms; v++)
		for (i = 0; i < q->vm[v].cpus.n; i++) {
			const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, q->vm[v].cpus.cpus[i]);

			if (vtb_cpuset_add(&cpus, pu->os) < 0 ||
			    (pu->node >= 0 && vtb_cpuset_add(&nodes, pu->node) < 0))
				goto oom;
		}
	for (i = 0; i < t->n_online; i++) {
		const struct vtb_topo_pu *pu = &t->pus[i];
		const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, pu->os);
		bool busy = false;

		if (!pu->online || !pu->allowed || !core || core->cpus[0] != pu->os)
			continue; /* each core once, by its first PU */
		for (k = 0; k < core->n && !busy; k++)
			busy = vtb_cpuset_has(&cpus, core->cpus[k]);
		last = pu->os;
		if (busy)
			continue;
		last_free = pu->os;
		if (pick < 0 && pu->node >= 0 && !vtb_cpuset_has(&nodes, pu->node))
			pick = pu->os;
	}
	*why = "a core of a host node no VM uses";
	if (pick < 0) {
		pick = last_free;
		*why = "the last core no VM needs";
	}
	if (pick < 0) {
		pick = last;
		*why = "the last core";
	}
	vtb_cpuset_release(&nodes);
	vtb_cpuset_release(&cpus);
	if (pick < 0)
		return vtb_error("no core for housekeeping");
	{
		const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, pick);

		for (k = 0; k < core->n; k++)
			if (vtb_topo_pu_by_os(t, core->cpus[k])->allowed &&
			    vtb_cpuset_add(out, core->cpus[k]) < 0)
				return -1;
	}
	return 0;
oom:
	vtb_cpuset_release(&nodes);
	vtb_cpuset_release(&cpus);
	return vtb_error("out of memory");
}

/* Why the housekeeping core moved: what the first core would cost. */
static char *moved_why(const struct score *was, const struct score *now, int vms)
{
	if (!was)
		return vtb_strdup("on the first core the VMs find no room");
	if (was->mem_ok != now->mem_ok)
		return vtb_strdup(
			"on the first core the guest memory would not fit the host nodes");
	if (was->whole != now->whole || was->max_load != now->max_load ||
	    was->excess != now->excess)
		return vtb_asprintf(
			"on the first core the VMs would share pCPUs (%ld vCPUs beyond one per pCPU instead of %ld)",
			was->excess, now->excess);
	if (was->t != now->t || was->regular != now->regular)
		return vtb_strdup("on the first core mirror's shape would not follow the host");
	return vtb_asprintf(
		"on the first core the VM%s would take %ld host node%s and %ld package%s instead of %ld and %ld",
		vms == 1 ? "" : "s", was->nodes, was->nodes == 1 ? "" : "s", was->pkgs,
		was->pkgs == 1 ? "" : "s", now->nodes, now->pkgs);
}

/*
 * A plan with its housekeeping where it costs least: the first core
 * (housekeeping auto) may cost the VMs their alignment with nodes and
 * packages (64 vCPUs on nodes of 32 PUs then take three nodes) or their
 * room.  So when the plan it gives is not settled(), plan again without
 * housekeeping, put it where that plan leaves room (hk_elsewhere()), and
 * keep that plan when it scores better, with a note saying so.  The
 * shape chosen into @sh; *@moved_note: that note (caller frees), NULL
 * when housekeeping stayed.
 */
static int make(const struct vtb_topo *t, const struct vtb_plan_req *req, struct vtb_plan **out,
		struct shape *sh, char **moved_note)
{
	struct vtb_plan *p = NULL, *q = NULL, *r = NULL;
	struct vtb_cpuset none = { NULL, 0 }, hk = { NULL, 0 };
	struct score sp, sq, sr;
	struct shape shp = { 0, 0, 0, 0 }, shr = { 0, 0, 0, 0 };
	const char *where = NULL;
	char *err = NULL, *why = NULL, *cpus = NULL, *text = NULL;
	bool auto_hk = !req->housekeeping || !strcmp(req->housekeeping, "auto");
	int ret = -1, rc;

	*out = NULL;
	*moved_note = NULL;
	rc = build(t, req, NULL, NULL, &p, &sp, &shp);
	if (!auto_hk || (rc == 0 && (!p->housekeeping.n || settled(&sp, req->vms)))) {
		*out = p;
		*sh = shp;
		return rc;
	}
	if (rc < 0 && !(err = vtb_strdup(vtb_errmsg())))
		return -1;
	if (build(t, req, &none, NULL, &q, &sq, NULL) == 0 &&
	    hk_elsewhere(t, q, &hk, &where) == 0 && (!p || !set_equal(&hk, &p->housekeeping)) &&
	    build(t, req, &hk, NULL, &r, &sr, &shr) == 0 && (!p || score_cmp(&sr, &sp) < 0)) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, hk.cpus[0]);

		why = moved_why(p ? &sp : NULL, &sr, req->vms);
		cpus = vtb_cpuset_format(&hk);
		text = why && cpus
			       ? vtb_asprintf(
					 "housekeeping on CPUs %s (host node %d), %s, not on the first core: %s",
					 cpus, node_os(t, pu), where, why)
			       : NULL;
		if (!text || note(r, -1, vtb_strdup(text)) < 0) {
			vtb_error("out of memory");
			goto out;
		}
		vtb_plan_free(p);
		p = r;
		r = NULL;
		shp = shr;
		*moved_note = text;
		text = NULL;
	}
	if (!p) {
		vtb_error("%s", err);
		if (rc == VTB_PLAN_NO_ROOM)
			ret = VTB_PLAN_NO_ROOM;
		goto out;
	}
	*out = p;
	*sh = shp;
	p = NULL;
	ret = 0;
out:
	vtb_plan_free(p);
	vtb_plan_free(q);
	vtb_plan_free(r);
	vtb_cpuset_release(&hk);
	free(err);
	free(why);
	free(cpus);
	free(text);
	return ret;
}

int vtb_plan_make(const struct vtb_topo *t, const struct vtb_plan_req *req, struct vtb_plan **out)
{
	struct vtb_plan_req mreq;
	struct vtb_plan *m = NULL;
	struct shape sh;
	struct score sc;
	char *moved = NULL;
	int ret;

	*out = NULL;
	plan_calls++;
	if (check_req(req) < 0)
		return -1;
	if (vtb_preset_of(req->topology)->plan_as == req->topology) {
		ret = make(t, req, out, &sh, &moved);
		free(moved);
		return ret;
	}
	/* lie has exactly mirror's counts and housekeeping: mirror's plan
	 * decides them, lie places its VMs with them (where mirror has no
	 * plan, lie's own attempt says why in its words) */
	mreq = *req;
	mreq.topology = vtb_preset_of(req->topology)->plan_as;
	if (make(t, &mreq, &m, &sh, &moved) < 0) {
		ret = make(t, req, out, &sh, &moved);
		free(moved);
		return ret;
	}
	ret = build(t, req, moved ? &m->housekeeping : NULL, &sh, out, &sc, NULL);
	vtb_plan_free(m);
	if (ret == 0 && moved) {
		ret = note(*out, -1, moved); /* takes it */
		moved = NULL;
		if (ret < 0) {
			vtb_plan_free(*out);
			*out = NULL;
		}
	}
	free(moved);
	return ret;
}

void vtb_plan_free(struct vtb_plan *p)
{
	size_t i;
	int v;

	if (!p)
		return;
	for (v = 0; p->vm && v < p->req.vms; v++) {
		struct vtb_plan_vm *m = &p->vm[v];

		if (m->pins)
			for (i = 0; i < (size_t)p->req.vcpus; i++)
				vtb_cpuset_release(&m->pins[i]);
		free(m->pins);
		free(m->pcpu);
		vtb_cpuset_release(&m->cpus);
		vtb_cpuset_release(&m->nodes);
		for (i = 0; i < m->n_cells; i++)
			vtb_cpuset_release(&m->cells[i].vcpus);
		free(m->cells);
		free(m->distances);
		for (i = 0; i < m->n_notes; i++)
			free(m->notes[i]);
		free(m->notes);
	}
	free(p->vm);
	for (i = 0; i < p->n_claims; i++)
		vtb_cpuset_release(&p->claims[i].vcpus);
	free(p->claims);
	for (i = 0; i < p->n_notes; i++)
		free(p->notes[i]);
	free(p->notes);
	vtb_cpuset_release(&p->housekeeping);
	free(p->why_not);
	free(p);
}

/* ---------------------------------------------------------------- outputs */

static json_t *set_json(const struct vtb_cpuset *s)
{
	char *f = vtb_cpuset_format(s);
	json_t *j = f ? json_string(f) : NULL;

	free(f);
	return j;
}

char *vtb_plan_json(const struct vtb_plan *p)
{
	json_t *root, *claims = json_array(), *vms = json_array(), *notes = json_array();
	char *text = NULL;
	size_t i, j;
	int v;

	for (i = 0; claims && i < p->n_claims; i++)
		json_array_append_new(claims, json_pack("{s:s, s:i, s:o, s:s}", "kind",
							vtb_claim_kind_name(p->claims[i].kind),
							"vm", p->claims[i].vm, "vcpus",
							set_json(&p->claims[i].vcpus), "state",
							vtb_claim_state_name(p->claims[i].state)));
	for (v = 0; vms && v < p->req.vms; v++) {
		const struct vtb_plan_vm *m = &p->vm[v];
		json_t *pins = json_array(), *cells = json_array(), *vnotes = json_array();

		for (i = 0; pins && i < (size_t)p->req.vcpus; i++)
			json_array_append_new(pins, m->pins ? set_json(&m->pins[i]) : json_null());
		for (j = 0; cells && j < m->n_cells; j++)
			json_array_append_new(cells,
					      json_pack("{s:o, s:I, s:i}", "vcpus",
							set_json(&m->cells[j].vcpus), "memory",
							(json_int_t)m->cells[j].memory_bytes,
							"host_node", m->cells[j].host_node));
		for (j = 0; vnotes && j < m->n_notes; j++)
			json_array_append_new(vnotes, json_string(m->notes[j]));
		json_array_append_new(vms,
				      json_pack("{s:o, s:o, s:o, s:o, s:o}", "cpus",
						set_json(&m->cpus), "nodes", set_json(&m->nodes),
						"vcpupin", pins, "cells", cells, "notes", vnotes));
	}
	for (i = 0; notes && i < p->n_notes; i++)
		json_array_append_new(notes, json_string(p->notes[i]));
	root = json_pack("{s:i, s:s, s:{s:i, s:i, s:i, s:i}, s:o, s:o, s:o, s:o}", "schema", 1,
			 "pinning", vtb_pinning_name(p->req.pinning), "topology", "sockets",
			 p->sockets, "dies", p->dies, "cores", p->cores, "threads", p->threads,
			 "housekeeping", set_json(&p->housekeeping), "vms", vms, "claims", claims,
			 "notes", notes);
	if (root && p->why_not)
		json_object_set_new(root, "not_runnable", json_string(p->why_not));
	if (root)
		text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		vtb_error("out of memory");
	return text;
}

int vtb_plan_domspec(const struct vtb_plan *p, int vm, struct vtb_domspec *d,
		     struct vtb_plan_domstore *store)
{
	const struct vtb_plan_vm *m;
	size_t i;

	memset(store, 0, sizeof(*store));
	if (vm < 0 || vm >= p->req.vms)
		return vtb_error("no VM %d in the plan", vm);
	m = &p->vm[vm];
	d->vcpus = p->req.vcpus;
	d->sockets = p->sockets;
	d->dies = p->dies;
	d->cores = p->cores;
	d->threads = p->threads;
	d->memory_bytes = p->req.memory_bytes;
	d->vcpupin = m->pins;
	d->emulatorpin = p->housekeeping.n ? &p->housekeeping : NULL;
	d->hint_dedicated = p->req.pinning == VTB_PIN_STRICT && !p->req.overcommit;
	d->hugepages = p->req.hugepages;
	d->locked = p->req.locked;
	d->machine = p->machine;
	d->cells = NULL;
	d->n_cells = 0;
	if (m->n_cells) {
		store->cells = calloc(m->n_cells, sizeof(*store->cells));
		if (!store->cells)
			return vtb_error("out of memory");
		for (i = 0; i < m->n_cells; i++) {
			store->cells[i].vcpus = &m->cells[i].vcpus;
			store->cells[i].memory_bytes = m->cells[i].memory_bytes;
			store->cells[i].distances = m->distances ? m->distances + i * m->n_cells
								 : NULL;
			store->cells[i].host_node = m->cells[i].host_node;
		}
		d->cells = store->cells;
		d->n_cells = (int)m->n_cells;
	}
	d->numatune_nodes = m->nodes.n ? &m->nodes : NULL;
	d->numatune_mode = m->nodes.n ? "strict" : NULL;
	return 0;
}

void vtb_plan_domstore_release(struct vtb_plan_domstore *s)
{
	if (!s)
		return;
	free(s->cells);
	s->cells = NULL;
}
