/* SPDX-License-Identifier: MIT */
/*
 * The host as the planner sees it: the pool (allowed PUs less the
 * housekeeping set and its cores), the host view (units: LLC groups,
 * split per node with numa = auto; their cores), the regular shapes
 * mirror and lie can take on it, and each VM's vCPU -> pCPU assignment.
 */
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "planint.h"

/* ---------------------------------------------------------------- host view */

/* The LLC group (at x->llc_level) of @p: -1 none, 0 for every PU when
 * the whole host stands for it. */
int pl_llc_of(const struct ctx *x, const struct vtb_topo_pu *p)
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

void pl_hview_release(struct hview *v)
{
	free(v->units);
	free(v->pu_store);
	free(v->core_store);
	memset(v, 0, sizeof(*v));
}

int pl_node_os(const struct vtb_topo *t, const struct vtb_topo_pu *p)
{
	return p->node >= 0 ? t->nodes[p->node].os : -1;
}

/*
 * Units (LLC, or LLC x node with @by_node) of the free pool @pool
 * (@n OS numbers, compact order), their cores and PUs, in order of first
 * appearance.
 */
int pl_hview_build(const struct ctx *x, const int *pool, size_t n, bool by_node, struct hview *v)
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
		size_t key = (size_t)(pl_llc_of(x, p) + 1) * nn +
			     (by_node ? (size_t)(p->node + 1) : 0);

		u = unit_of[key];
		if (u < 0) {
			u = unit_of[key] = v->n++;
			v->units[u].llc = pl_llc_of(x, p);
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
		pl_hview_release(v);
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
int pl_note(struct vtb_plan *p, int vm, char *text)
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
int pl_enum_shapes(const struct hview *v, int nv, struct shape **out, size_t *n_out)
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
		    pl_note(x->p, -1,
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
	ret = pl_note(
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
 * lie with one die of K >= 2 cores takes half of them from a unit on
 * another LLC (lie_assign()), so it needs (K+1)/2 cores of t PUs on one
 * unit and K/2 on such a second one, not mirror's K on one: the first
 * unit with the first half that has one, into @sel[0].  0, or -1 when
 * there is none.
 */
static int lie_split(const struct hview *v, const struct shape *sh, int *sel)
{
	int K = sh->c * sh->l, a = (K + 1) / 2, b = K / 2, u, w, best = -1;

	if (sh->l != 1 || K < 2)
		return -1;
	for (u = 0; u < v->n && best < 0; u++) {
		if (eligible_cores(&v->units[u], sh->t) < a)
			continue;
		for (w = 0; w < v->n && best < 0; w++)
			if (v->units[w].llc != v->units[u].llc &&
			    eligible_cores(&v->units[w], sh->t) >= b)
				best = u;
	}
	if (best < 0)
		return -1;
	sel[0] = best;
	return 0;
}

/* lie's core for vCPU @i (its thread is i mod t): virtual core G's
 * thread th on core (G + th) mod K, the upper half of each die's cores
 * on the die @shift further; one core per die: the sibling on the die
 * @shift on. */
static int lie_index(const struct shape *sh, int shift, int i)
{
	int t = sh->t, c = sh->c, l = sh->l, K = c * l, G = i / t, th = i % t, idx;

	if (c == 1 && l >= 2)
		return (G + th * shift) % K;
	idx = (G + th) % K;
	if (l >= 2 && c >= 2) {
		int d = idx / c, k = idx % c;

		if (k >= (c + 1) / 2)
			d = (d + shift) % l;
		idx = d * c + k;
	}
	return idx;
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
		      const struct hcore **q, int nv, bool modest, int *pcpu)
{
	int t = sh->t, c = sh->c, l = sh->l, K = c * l, shift = llc_shift(units, l), i;

	if (!shift)
		shift = 1; /* the dies share an LLC whatever the shift */

	if (K == 1 && t >= 2 && !modest) {
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
	if (l == 1 && K >= 2 && !modest) {
		/* half the cores from another unit, on another LLC when there is one */
		int a = (K + 1) / 2, b = K / 2, u, ub = -1, k, got;

		for (u = 0; u < v->n && ub < 0; u++)
			if (&v->units[u] != units[0] && v->units[u].llc != units[0]->llc &&
			    eligible_cores(&v->units[u], t) >= b)
				ub = u;
		/* none: another unit of the same LLC (a node half of a
		 * sub-NUMA-clustered one) would lie about nothing and only
		 * split the VM over nodes, so it keeps its cores (claims
		 * still true, said in a note) */
		if (ub >= 0)
			for (k = 0, got = a; got < K; k++)
				if (v->units[ub].cores[k].n >= t)
					q[got++] = &v->units[ub].cores[k];
	}
	for (i = 0; i < nv; i++)
		pcpu[i] = q[lie_index(sh, shift, i)]->pu[i % t];
	return 0;
}

/*
 * Assigns VM @vm's vCPUs on @pool (free PUs in the order to take them):
 * pcpu[v] for every vCPU, cellof[v] the pCPU whose node decides the
 * vCPU's guest cell and where its memory is counted while placing (under
 * lie the cores in die order before lie's permutation; lie's cells are
 * mirror's, given in x->cells).
 * mirror and lie take shape @sh; the others the first pCPUs of @pool.
 * 0; 1 when the shape finds no room (vtb_error() says why); -1 on errors.
 */
int pl_assign(struct ctx *x, int vm, const int *pool, size_t n_pool, const struct shape *sh,
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
	if (pl_hview_build(x, pool, n_pool, r->numa, &v) < 0)
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
	if (fit_shape(&v, sh, sel) < 0 &&
	    !(preset->lies && !x->modest && lie_split(&v, sh, sel) == 0)) {
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
	if (preset->lies) {
		if (!x->modest && sh->l >= 2 && !llc_shift(units, sh->l) &&
		    lie_units(&v, sh, sel, units) == 0)
			mirror_cores(&v, sh, sel, q);
		if (lie_assign(&v, sh, units, q, nv, x->modest, pcpu) < 0) {
			ret = 1;
			goto out;
		}
	}
	/* cellof: the cores in die order before lie's permutation (its
	 * cells are mirror's, vtb_plan_make(): this only says where the
	 * memory goes while placing) */
	for (i = 0; i < nv; i++) {
		cellof[i] = q[i / sh->t]->pu[i % sh->t];
		if (!preset->lies)
			pcpu[i] = cellof[i];
	}
	ret = 0;
out:
	free(q);
	free(units);
	free(sel);
	pl_hview_release(&v);
	return ret;
}

/* Whether core @hc of @v is free of other VMs: all its PUs in the pool
 * view and none on a core another VM has (@used, by OS number). */
static bool core_free(const struct hcore *hc, const bool *used)
{
	int k;

	for (k = 0; k < hc->n; k++)
		if (used && used[hc->pu[k]])
			return false;
	return true;
}

/* The unit of @v that holds the most of @need vCPUs (@left: its PUs not
 * yet taken), on a tie the one on node @node, then the one with the most
 * cores of @t PUs left, then the first.  -1 when none has any left. */
static int loose_unit(const struct hview *v, const int *ufree, const int *left, int need, int t,
		      int node)
{
	int u, k, best = -1, best_have = 0, best_whole = 0;
	bool best_near = false;

	for (u = 0; u < v->n; u++) {
		const struct hunit *h = &v->units[u];
		int have = ufree[u] < need ? ufree[u] : need, whole = 0;
		bool near = node >= 0 && h->node == node;

		if (!have)
			continue;
		for (k = 0; k < h->n; k++)
			whole += left[h->cores[k].pu - v->pu_store] >= t;
		if (best >= 0 &&
		    (have < best_have ||
		     (have == best_have &&
		      (best_near > near || (best_near == near && whole <= best_whole)))))
			continue;
		best = u;
		best_have = have;
		best_near = near;
		best_whole = whole;
	}
	return best;
}

/*
 * VM @vm's vCPUs on @cand (@n >= vCPUs pCPUs, in the order to prefer
 * them) when shape @sh does not fit there (overcommit): every vCPU still
 * gets a pCPU of its own, as aligned as the pCPUs allow.  Die after die
 * (c*t vCPUs), each from the unit that holds the most of it (its node
 * when the last die's unit holds none); in a unit, each virtual core on
 * a core with t PUs left, cores no other VM has (@used) first, else on
 * the PUs of the cores with the most left.  lie permutes that as
 * lie_assign() does (cellof keeps the unpermuted pCPUs: mirror's cells).
 * 0, or 1 when @cand is too short (vtb_error() says so); -1 on errors.
 */
int pl_assign_loose(struct ctx *x, int vm, const int *cand, size_t n, const struct shape *sh,
		    const bool *used, int *pcpu, int *cellof)
{
	const struct vtb_preset *preset = vtb_preset_of(x->r->topology);
	struct hview v = { 0 };
	int nv = x->r->vcpus, t = sh->t, D = sh->c * sh->t, pos = 0, node = -1, u, k, i;
	int *left = NULL, *ufree = NULL, ret = -1;

	if (n < (size_t)nv) {
		vtb_error("topology %s: VM %d finds %zu pCPUs for its %d vCPUs", preset->name, vm,
			  n, nv);
		return 1;
	}
	if (pl_hview_build(x, cand, n, x->r->numa, &v) < 0)
		return -1;
	/* left: by PU slot of a core's first PU (pu - pu_store), PUs of the
	 * core not yet taken (taken from the front) */
	left = calloc(n + 1, sizeof(*left));
	ufree = calloc((size_t)v.n + 1, sizeof(*ufree));
	if (!left || !ufree) {
		vtb_error("out of memory");
		goto out;
	}
	for (u = 0; u < v.n; u++)
		for (k = 0; k < v.units[u].n; k++) {
			left[v.units[u].cores[k].pu - v.pu_store] = v.units[u].cores[k].n;
			ufree[u] += v.units[u].cores[k].n;
		}
	while (pos < nv) {
		int need = D - pos % D;

		u = loose_unit(&v, ufree, left, need, t, node);
		if (u < 0) { /* cannot be: n >= nv */
			vtb_error("internal error: loose placement ran out of pCPUs");
			goto out;
		}
		node = v.units[u].node;
		while (need > 0 && ufree[u] > 0) {
			const struct hunit *h = &v.units[u];
			int th_need = t - pos % t, pick = -1, score = -1, take;

			/* a whole virtual core on one core, a free one first;
			 * else the core with the most PUs left */
			for (k = 0; k < h->n; k++) {
				int lk = left[h->cores[k].pu - v.pu_store], sc;

				if (!lk)
					continue;
				sc = th_need == t && lk >= t
					     ? 4 * (nv + 1) + (lk == h->cores[k].n &&
							       core_free(&h->cores[k], used))
					     : lk;
				if (sc > score) {
					score = sc;
					pick = k;
				}
			}
			take = left[h->cores[pick].pu - v.pu_store];
			take = take < th_need ? take : th_need;
			take = take < need ? take : need;
			for (i = 0; i < take; i++) {
				const struct hcore *hc = &h->cores[pick];
				int *lp = &left[hc->pu - v.pu_store];

				cellof[pos++] = hc->pu[hc->n - (*lp)--];
			}
			ufree[u] -= take;
			need -= take;
		}
	}
	for (i = 0; i < nv; i++)
		pcpu[i] = preset->lies ? cellof[lie_index(sh, 1, i) * t + i % t] : cellof[i];
	ret = 0;
out:
	free(left);
	free(ufree);
	pl_hview_release(&v);
	return ret;
}

/*
 * The housekeeping set and the pool (compact order, allowed, online):
 * @hk_set when given (a placement trial), else the request's.  The SMT
 * siblings of housekeeping CPUs stay out of the pool: a vCPU there would
 * share a core with the emulator thread.
 */
/* housekeeping = auto: the first core of CPUs on no node (never a
 * guest's: housekeeping there costs the guests nothing); else the first
 * allowed CPU's core, when the rest still holds @need pCPUs; else none,
 * with a note. */
static int housekeeping_auto(struct ctx *x, const int *all, size_t n_allowed, size_t need,
			     struct vtb_cpuset *hk)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, all[0]);
	size_t i, k = 0;

	for (i = 0; i < t->n_online; i++) {
		const struct vtb_topo_pu *pu = &t->pus[i];
		const struct vtb_cpuset *nc;

		if (!pu->nodeless)
			continue;
		nc = vtb_topo_pus_of(t, VTB_TOPO_CORE, pu->os);
		for (k = 0; nc && k < nc->n; k++)
			if (vtb_topo_pu_by_os(t, nc->cpus[k])->nodeless &&
			    vtb_cpuset_add(hk, nc->cpus[k]) < 0)
				return -1;
		return nc ? 0 : vtb_cpuset_add(hk, pu->os);
	}
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
	return pl_note(
		x->p, -1,
		vtb_strdup(
			"no housekeeping CPUs: the host has no spare CPU, so the harness, libvirt and emulator threads share the vCPUs' pCPUs"));
}

/* The pCPUs housekeeping auto must leave @r: every VM's own with
 * overcommit = no; with overcommit one VM's (overcommit shares pCPUs
 * between VMs: a VM is never made to share among its own vCPUs for the
 * sake of a housekeeping core, and a pinned or mirrored one cannot). */
static size_t pool_need(const struct vtb_plan_req *r)
{
	return (size_t)r->vcpus * (size_t)(r->overcommit ? 1 : r->vms);
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
		return housekeeping_auto(x, all, n_allowed, pool_need(r), hk);
	if (vtb_cpuset_parse(spec, hk) < 0)
		return vtb_error("housekeeping = %s: not auto, none or a CPU list", spec);
	for (i = 0; i < hk->n; i++) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(x->t, hk->cpus[i]);

		if (!pu || !pu->online || (!pu->allowed && !pu->nodeless))
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
		int r2 = pl_note(
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

/* The CPUs on no node (topo.h) are never in the pool: say which, and
 * whether housekeeping went there. */
static int nodeless_note(struct ctx *x)
{
	const struct vtb_topo *t = x->t;
	struct vtb_cpuset nl = { NULL, 0 };
	bool hk = false;
	char *s;
	size_t i;
	int ret;

	for (i = 0; i < t->n_online; i++)
		if (t->pus[i].nodeless) {
			if (vtb_cpuset_add(&nl, t->pus[i].os) < 0)
				return -1;
			hk = hk || vtb_cpuset_has(&x->p->housekeeping, t->pus[i].os);
		}
	if (!nl.n)
		return 0;
	s = vtb_cpuset_format(&nl);
	ret = pl_note(
		x->p, -1,
		s ? vtb_asprintf(
			    "CPU%s %s %s on no NUMA node the host gives memory from (offline, or outside the allowed node set): never given to guests or baselines%s",
			    nl.n == 1 ? "" : "s", s, nl.n == 1 ? "is" : "are",
			    hk ? "; housekeeping goes there" : "")
		  : NULL);
	free(s);
	vtb_cpuset_release(&nl);
	return ret;
}

int pl_pool_of(struct ctx *x, const struct vtb_cpuset *hk_set, int **pool, size_t *n_pool)
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
		vtb_error("the host allows no CPU");
		return VTB_PLAN_NO_ROOM;
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
	if (x->notes && nodeless_note(x) < 0) {
		free(all);
		return -1;
	}
	*pool = all;
	if (!*n_pool) { /* a fact about this host: the configuration cannot run here */
		*pool = NULL;
		free(all);
		vtb_error("housekeeping = %s leaves no CPU for guests",
			  r->housekeeping ? r->housekeeping : "auto");
		return VTB_PLAN_NO_ROOM;
	}
	return 0;
}

/* The level that stands for the LLC (struct ctx's llc_level). */
int pl_llc_level_of(const struct vtb_topo *t)
{
	if (t->n_groups[VTB_TOPO_LLC])
		return VTB_TOPO_LLC;
	if (t->n_groups[VTB_TOPO_DIE])
		return VTB_TOPO_DIE;
	if (t->n_groups[VTB_TOPO_PKG])
		return VTB_TOPO_PKG;
	return -1;
}

/* What the plan says when no cache information stands behind "LLC". */
int pl_llc_fallback_note(struct ctx *x)
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
	return pl_note(
		p, -1,
		vtb_asprintf(
			"the host description gives no caches: its LLC groups are taken to be %s%s%s%s",
			what, preset->llc_fallback,
			p->req.pinning == VTB_PIN_LLC ? "; pinning llc pins to them" : "",
			llc_claims ? "; the LLC claims are stated against them" : ""));
}
