/* SPDX-License-Identifier: MIT */
/*
 * The placement planner (plan.h).  Everything is derived from the host
 * model's groups, never from OS numbering: siblings may be 64 apart and
 * CPUs may be offline.
 *
 * mirror picks a regular shape from the free pool: t threads per core
 * (the host's SMT width when it divides the vCPUs), c cores per unit and
 * l units, where a unit is an LLC (split per node with numa = auto, so a
 * sub-NUMA-clustered LLC never becomes a die spanning two cells), with c
 * as large as possible (compact).  lie keeps mirror's counts and permutes
 * the assignment: virtual core G's thread th runs on real core
 * P((G + th) mod K), so SMT siblings land on different cores, and P
 * moves the upper half of each die's cores to the next unit, so each
 * die spans two LLCs.  When mirror's vCPUs fit one unit, lie takes its
 * cores from two units instead.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/lib/opt.h"
#include "plan.h"

static const char *const pin_names[] = { "none", "strict", "core", "llc", "node" };
static const char *const kind_names[] = { "smt", "llc", "node" };
static const char *const state_names[] = { "true", "false", "unbacked" };

const char *vtb_pinning_name(enum vtb_pinning p)
{
	return (unsigned)p < VTB_ARRAY_SIZE(pin_names) ? pin_names[p] : "?";
}

const char *vtb_claim_kind_name(enum vtb_claim_kind k)
{
	return (unsigned)k < VTB_ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

const char *vtb_claim_state_name(enum vtb_claim_state s)
{
	return (unsigned)s < VTB_ARRAY_SIZE(state_names) ? state_names[s] : "?";
}

int vtb_pinning_parse(const char *s, enum vtb_pinning *out)
{
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(pin_names); i++)
		if (s && !strcmp(s, pin_names[i])) {
			*out = (enum vtb_pinning)i;
			return 0;
		}
	return vtb_error("unknown pinning '%s': expected none, strict, core, llc or node",
			 s ? s : "");
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

/* ---------------------------------------------------------------- host view */

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
static int hview_build(const struct vtb_topo *t, const int *pool, size_t n, bool by_node,
		       struct hview *v)
{
	size_t nn = t->n_nodes + 1, nl = t->n_groups[VTB_TOPO_LLC] + 1;
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
		size_t key = (size_t)(p->llc + 1) * nn + (by_node ? (size_t)(p->node + 1) : 0);

		u = unit_of[key];
		if (u < 0) {
			u = unit_of[key] = v->n++;
			v->units[u].llc = p->llc;
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

/* Cores of @u with at least @t PUs. */
static int eligible_cores(const struct hunit *u, int t)
{
	int i, k = 0;

	for (i = 0; i < u->n; i++)
		k += u->cores[i].n >= t;
	return k;
}

/* ---------------------------------------------------------------- plan building */

/* mirror's shape (lie repeats it): t threads per core, c cores per die,
 * l dies, s sockets (0: the packages used hold different numbers of the
 * dies, told one socket). */
struct shape {
	int t, c, l, s;
};

struct ctx {
	const struct vtb_topo *t;
	const struct vtb_plan_req *r;
	struct vtb_plan *p;
	struct shape shape; /* VM 0's, which later VMs repeat; t == 0 until set */
};

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

/*
 * mirror's shape on @v for @nv vCPUs and its units (@sel, l entries):
 * t the host's SMT width when it divides the vCPUs (else smaller), then c
 * as large as possible among the shapes whose units fill whole packages
 * alike (s packages x l/s units); only when no shape does, the first
 * that fits, told one socket (s = 0).  @fixed (t > 0): that shape only.
 * 0, or -1 (no error set) when nothing fits.
 */
static int mirror_shape(const struct hview *v, int nv, const struct shape *fixed, struct shape *out,
			int *sel)
{
	struct shape first = { 0, 0, 0, 0 };
	int smt = 1, t, c, l, i, k, s;

	if (fixed->t) {
		*out = *fixed;
		if (fixed->s > 0)
			return pick_regular(v, fixed->t, fixed->c, fixed->l, fixed->s, sel) ? 0
											    : -1;
		return pick_first(v, fixed->t, fixed->c, fixed->l, sel);
	}
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
			if (!first.t)
				first = (struct shape){ t, c, l, 0 };
			s = pick_regular(v, t, c, l, 0, sel);
			if (s) {
				*out = (struct shape){ t, c, l, s };
				return 0;
			}
		}
	}
	if (!first.t)
		return -1;
	*out = first;
	return pick_first(v, first.t, first.c, first.l, sel);
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
		if (h->node >= 0 && t->groups[VTB_TOPO_LLC] && h->llc >= 0 &&
		    !vtb_cpuset_has(&t->nodes[h->node].pus,
				    t->groups[VTB_TOPO_LLC][h->llc].pus.cpus[0]) &&
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
 * Assigns VM @vm's vCPUs: pcpu[v] for every vCPU, cellof[v] the pCPU
 * whose node decides the vCPU's guest cell (mirror's pCPU under lie, so
 * lie has mirror's cells), and the shape (first VM only; every VM of a
 * configuration has the same shape).  @pool: the free PUs in compact
 * order.
 */
static int assign(struct ctx *x, int vm, const int *pool, size_t n_pool, int *pcpu, int *cellof)
{
	const struct vtb_plan_req *r = x->r;
	struct vtb_plan *p = x->p;
	struct hview v = { 0 };
	const struct hcore **q = NULL;
	const struct hunit **units = NULL;
	struct shape sh;
	int *sel = NULL;
	int nv = r->vcpus, K, i, ret = -1;
	const char *name = r->topology == VTB_VTOPO_MIRROR ? "mirror" : "lie";

	if (r->topology != VTB_VTOPO_MIRROR && r->topology != VTB_VTOPO_LIE) {
		for (i = 0; i < nv; i++)
			pcpu[i] = cellof[i] = pool[(size_t)i % n_pool];
		if (vm == 0) {
			switch (r->topology) {
			case VTB_VTOPO_FLAT:
				p->sockets = nv;
				p->dies = p->cores = p->threads = 1;
				break;
			case VTB_VTOPO_CORES:
				p->sockets = p->dies = p->threads = 1;
				p->cores = nv;
				break;
			default:
				p->sockets = r->sockets;
				p->dies = r->dies;
				p->cores = r->cores;
				p->threads = r->threads;
			}
		}
		return 0;
	}
	/* lie has mirror's units (split per node with numa = auto) and so
	 * mirror's counts: sockets, dies, cores, threads and cells */
	if (hview_build(x->t, pool, n_pool, r->numa, &v) < 0)
		return -1;
	sel = calloc((size_t)v.n + 1, sizeof(*sel));
	if (!sel) {
		ret = vtb_error("out of memory");
		goto out;
	}
	if (mirror_shape(&v, nv, &x->shape, &sh, sel) < 0) {
		if (vm > 0) {
			ret = vtb_error(
				"topology %s: VM %d finds no room for the shape of VM 0 (%d LLC groups of %d cores of %d threads%s) on the %zu free pCPUs (whole cores go to one VM)",
				name, vm, x->shape.l, x->shape.c, x->shape.t,
				x->shape.s > 0 ? ", a package per socket" : "", n_pool);
			goto out;
		}
		ret = vtb_error(
			"topology %s: %d vCPUs do not form a regular shape (LLC groups of equal cores of equal threads) on the %zu free pCPUs",
			name, nv, n_pool);
		goto out;
	}
	K = sh.c * sh.l;
	q = calloc((size_t)K + (size_t)sh.t + 2, sizeof(*q));
	units = calloc((size_t)sh.l + 2, sizeof(*units));
	if (!q || !units) {
		ret = vtb_error("out of memory");
		goto out;
	}
	for (i = 0; i < sh.l; i++)
		units[i] = &v.units[sel[i]];
	mirror_cores(&v, &sh, sel, q);
	if (units_notes(x, vm, &v, sel, &sh) < 0)
		goto out;
	if (vm == 0) {
		x->shape = sh;
		p->threads = sh.t;
		p->cores = sh.c;
		p->sockets = sh.s > 0 ? sh.s : 1;
		p->dies = sh.s > 0 ? sh.l / sh.s : sh.l;
		if (sh.s == 0 &&
		    note(p, -1,
			 vtb_asprintf(
				 "the packages used hold different numbers of the %d LLC groups used (no regular choice fits): told 1 socket of %d dies, the real package boundary is not shown",
				 sh.l, sh.l)) < 0)
			goto out;
	}
	for (i = 0; i < nv; i++)
		pcpu[i] = cellof[i] = q[i / sh.t]->pu[i % sh.t];
	if (r->topology == VTB_VTOPO_LIE) {
		if (sh.l >= 2 && !llc_shift(units, sh.l) && lie_units(&v, &sh, sel, units) == 0)
			mirror_cores(&v, &sh, sel, q);
		if (lie_assign(&v, &sh, units, q, nv, pcpu) < 0)
			goto out;
	}
	ret = 0;
out:
	free(q);
	free(units);
	free(sel);
	hview_release(&v);
	return ret;
}

/* The housekeeping set and the pool (compact order, allowed, online). */
static int pool_of(struct ctx *x, int **pool, size_t *n_pool)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan_req *r = x->r;
	struct vtb_plan *p = x->p;
	struct vtb_cpuset hk = { NULL, 0 };
	const char *spec = r->housekeeping ? r->housekeeping : "auto";
	size_t i, n_allowed = 0, need;
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
	need = r->overcommit ? (size_t)1 : (size_t)r->vcpus * (size_t)r->vms;
	if (!strcmp(spec, "none")) {
		/* nothing kept back */
	} else if (!strcmp(spec, "auto")) {
		const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, all[0]);
		size_t k = 0;

		if (core)
			for (i = 0; i < core->n; i++)
				k += vtb_topo_pu_by_os(t, core->cpus[i])->allowed;
		if (core && n_allowed - k >= need && n_allowed > k) {
			for (i = 0; i < core->n; i++)
				if (vtb_topo_pu_by_os(t, core->cpus[i])->allowed &&
				    vtb_cpuset_add(&hk, core->cpus[i]) < 0)
					goto fail;
		} else if (
			note(p, -1,
			     vtb_strdup(
				     "no housekeeping CPUs: the host has no spare CPU, so the harness, libvirt and emulator threads share the vCPUs' pCPUs")) <
			0) {
			goto fail;
		}
	} else if (vtb_cpuset_parse(spec, &hk) < 0) {
		vtb_error("housekeeping = %s: not auto, none or a CPU list", spec);
		goto fail;
	} else {
		for (i = 0; i < hk.n; i++) {
			const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, hk.cpus[i]);

			if (!pu || !pu->online || !pu->allowed) {
				vtb_error(
					"housekeeping = %s: CPU %d is not an online CPU this host allows",
					spec, hk.cpus[i]);
				goto fail;
			}
		}
	}
	p->housekeeping = hk;
	for (i = 0; i < n_allowed; i++)
		if (!vtb_cpuset_has(&hk, all[i]))
			all[(*n_pool)++] = all[i];
	*pool = all;
	if (!*n_pool) {
		*pool = NULL;
		free(all);
		return vtb_error("housekeeping = %s leaves no CPU for guests", spec);
	}
	return 0;
fail:
	vtb_cpuset_release(&hk);
	free(all);
	return -1;
}

static int group_at(const struct vtb_topo_pu *pu, enum vtb_claim_kind k)
{
	return k == VTB_CLAIM_SMT ? pu->core : k == VTB_CLAIM_LLC ? pu->llc : pu->node;
}

/* Whether @pin fixes the pCPUs for a claim of kind @k (plan.h): strict
 * for every claim, core for SMT pairs; nothing else. */
static bool pin_backs(enum vtb_pinning pin, enum vtb_claim_kind k)
{
	return pin == VTB_PIN_STRICT || (pin == VTB_PIN_CORE && k == VTB_CLAIM_SMT);
}

/* The claim's state (plan.h); a node claim also needs the cell's memory
 * on that node (@host_node, -2: no binding to check). */
static enum vtb_claim_state claim_state(const struct vtb_topo *t, enum vtb_pinning pin,
					const struct vtb_plan_vm *m, enum vtb_claim_kind k,
					const struct vtb_cpuset *vcpus, int host_node)
{
	int common = -2;
	bool same = true;
	size_t i, j;

	if (!pin_backs(pin, k) || !m->pins)
		return VTB_CLAIM_UNBACKED;
	for (i = 0; i < vcpus->n; i++) {
		const struct vtb_cpuset *a = &m->pins[vcpus->cpus[i]];
		int g = -2;

		for (j = 0; j < a->n; j++) {
			int h = group_at(vtb_topo_pu_by_os(t, a->cpus[j]), k);

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
	c->state = claim_state(x->t, x->r->pinning, &p->vm[vm], k, &c->vcpus, host_node);
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

/* Guest cells of VM @m: by host node of @cellof (numa = auto: the
 * assignment, mirror's under lie) or r->cells equal slices.  A cell's
 * host node is that of its vCPUs' pCPUs when they share one. */
static int cells_of(struct ctx *x, struct vtb_plan_vm *m, const int *cellof)
{
	const struct vtb_topo *t = x->t;
	const struct vtb_plan_req *r = x->r;
	int nv = r->vcpus, i, j, nc = 0;
	int *node_cell = NULL, *cell_of = NULL;
	uint64_t kib = r->memory_bytes / 1024, base;

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
	if (!m->cells)
		goto oom;
	m->n_cells = (size_t)nc;
	base = kib / (uint64_t)nc;
	for (i = 0; i < nc; i++) {
		m->cells[i].host_node = -2;
		m->cells[i].memory_bytes = (i ? base : kib - base * (uint64_t)(nc - 1)) * 1024 +
					   (i ? 0 : r->memory_bytes % 1024);
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
	return 0;
oom:
	vtb_error("out of memory");
fail:
	free(cell_of);
	free(node_cell);
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
				  : pin == VTB_PIN_LLC	? o->llc == pu->llc && pu->llc >= 0
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
 * overcommit: VMs share pCPUs only when they have to.  First the free
 * pCPUs (@used: a core another VM has) as without overcommit, whole cores
 * per VM; then the pool's least loaded pCPUs (@load: vCPUs already on
 * each), the fewest that hold the VM's vCPUs, least loaded first and in
 * compact order among equals; then the whole pool in that order.  The
 * first of these that the topology can place wins (mirror and lie need a
 * regular shape, which the first ones may not hold).  @cand: n_pool ints.
 */
static int assign_shared(struct ctx *x, int vm, const int *pool, size_t n_pool, const bool *used,
			 const int *load, int *cand, int *pcpu, int *cellof)
{
	struct vtb_plan *p = x->p;
	size_t nv = (size_t)x->r->vcpus, n, i, last = 0, p_notes = p->n_notes;
	size_t vm_notes = p->vm[vm].n_notes;
	struct load_slot *slot = malloc((n_pool + 1) * sizeof(*slot));
	int tier, ret = -1;

	if (!slot)
		return vtb_error("out of memory");
	for (i = 0; i < n_pool; i++)
		slot[i] = (struct load_slot){ load[pool[i]], (int)i };
	qsort(slot, n_pool, sizeof(*slot), cmp_load);
	for (tier = 0; tier < 3 && ret < 0; tier++) {
		n = 0;
		if (tier == 0) {
			for (i = 0; i < n_pool; i++)
				if (!used[pool[i]])
					cand[n++] = pool[i];
			if (n < nv)
				continue;
		} else {
			int lim = slot[(nv < n_pool ? nv : n_pool) - 1].load;

			for (i = 0; i < n_pool && (tier == 2 || slot[i].load <= lim); i++)
				cand[n++] = pool[slot[i].idx];
			if (tier == 2 && n == last)
				continue; /* tier 1 took the whole pool already */
			last = n;
		}
		ret = assign(x, vm, cand, n, pcpu, cellof);
		if (ret < 0) {
			notes_truncate(p->notes, &p->n_notes, p_notes);
			notes_truncate(p->vm[vm].notes, &p->vm[vm].n_notes, vm_notes);
			if (vm == 0)
				x->shape = (struct shape){ 0, 0, 0, 0 };
		}
	}
	free(slot);
	return ret;
}

int vtb_plan_make(const struct vtb_topo *t, const struct vtb_plan_req *req, struct vtb_plan **out)
{
	struct vtb_plan *p;
	struct ctx x;
	int *pool = NULL, *free_pool = NULL, *cellof = NULL, *load = NULL;
	bool *used = NULL;
	size_t n_pool = 0, n_free, i;
	int vm, ret = -1;

	*out = NULL;
	if (check_req(req) < 0)
		return -1;
	p = calloc(1, sizeof(*p));
	if (!p)
		return vtb_error("out of memory");
	p->req = *req;
	p->req.housekeeping = NULL; /* not owned */
	p->req.machine = NULL;
	if (req->machine && !strcmp(req->machine, "q35"))
		p->machine = "q35";
	x = (struct ctx){ t, req, p, { 0, 0, 0, 0 } };
	if (pool_of(&x, &pool, &n_pool) < 0)
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
	    (req->pinning != VTB_PIN_NONE || req->topology == VTB_VTOPO_MIRROR ||
	     req->topology == VTB_VTOPO_LIE)) {
		vtb_error(
			"too many vCPUs: %d vCPUs pinned (or mirrored) on %zu available pCPUs; only pinning = none overcommits one VM",
			req->vcpus, n_pool);
		ret = VTB_PLAN_NO_ROOM;
		goto out;
	}
	p->vm = calloc((size_t)req->vms, sizeof(*p->vm));
	used = calloc(t->max_os + 2, sizeof(*used));
	load = calloc(t->max_os + 2, sizeof(*load));
	free_pool = malloc((n_pool + 1) * sizeof(int));
	cellof = malloc((size_t)req->vcpus * sizeof(int));
	if (!p->vm || !used || !load || !free_pool || !cellof) {
		vtb_error("out of memory");
		goto out;
	}
	for (vm = 0; vm < req->vms; vm++) {
		struct vtb_plan_vm *m = &p->vm[vm];

		m->pcpu = malloc((size_t)req->vcpus * sizeof(int));
		if (!m->pcpu) {
			vtb_error("out of memory");
			goto out;
		}
		if (req->overcommit) {
			if (assign_shared(&x, vm, pool, n_pool, used, load, free_pool, m->pcpu,
					  cellof) < 0)
				goto out;
		} else {
			for (i = 0, n_free = 0; i < n_pool; i++)
				if (!used[pool[i]])
					free_pool[n_free++] = pool[i];
			if (n_free < (size_t)req->vcpus) {
				vtb_error(
					"too many vCPUs: VM %d of %d finds %zu free pCPUs for its %d vCPUs (whole cores go to one VM: side-by-side VMs never share SMT siblings; set overcommit = yes to share)",
					vm, req->vms, n_free, req->vcpus);
				ret = VTB_PLAN_NO_ROOM;
				goto out;
			}
			if (assign(&x, vm, free_pool, n_free, m->pcpu, cellof) < 0)
				goto out;
		}
		for (i = 0; i < (size_t)req->vcpus; i++)
			load[m->pcpu[i]]++;
		if (set_of(m->pcpu, (size_t)req->vcpus, &m->cpus) < 0)
			goto out;
		for (i = 0; i < m->cpus.n; i++) {
			/* the whole core: a sibling given to another VM would
			 * make the VMs each other's noise */
			const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE,
									m->cpus.cpus[i]);

			used[m->cpus.cpus[i]] = true;
			for (size_t k = 0; core && k < core->n; k++)
				used[core->cpus[k]] = true;
			if (vtb_cpuset_add(&m->nodes,
					   node_os(t, vtb_topo_pu_by_os(t, m->cpus.cpus[i]))) < 0)
				goto out;
		}
		if (m->nodes.n && m->nodes.cpus[0] < 0) { /* unknown nodes */
			vtb_cpuset_release(&m->nodes);
		}
		if (pins_of(&x, m) < 0 || cells_of(&x, m, cellof) < 0 || claims_of(&x, vm) < 0 ||
		    check_spans(&x, vm) < 0)
			goto out;
		if (req->topology == VTB_VTOPO_LIE) {
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
	*out = p;
	p = NULL;
	ret = 0;
out:
	free(pool);
	free(free_pool);
	free(cellof);
	free(used);
	free(load);
	vtb_plan_free(p);
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
	free(p);
}

/* ---------------------------------------------------------------- from a configuration */

static int int_param(const struct vtb_config *c, const char *key, int dflt, int *out)
{
	const char *v = vtb_params_get(&c->params, key);
	long long n;

	if (!v) {
		*out = dflt;
		return 0;
	}
	if (vtb_parse_int(v, 0, 1 << 20, &n) < 0)
		return vtb_error("%s = %s: not an integer", key, v);
	*out = (int)n;
	return 0;
}

/* A yes/no param (absent: no); anything else is an error, never "no". */
static int bool_param(const struct vtb_config *c, const char *key, bool *out)
{
	const char *v = vtb_params_get(&c->params, key);

	*out = v && !strcmp(v, "yes");
	if (v && strcmp(v, "yes") && strcmp(v, "no"))
		return vtb_error("%s = %s: expected yes or no", key, v);
	return 0;
}

/* @v (NULL: @dflt) must be one of @names; its index into *out. */
static int word_param(const char *key, const char *v, const char *dflt, const char *const *names,
		      int *out)
{
	const char *near;
	int i;

	if (!v)
		v = dflt;
	for (i = 0; names[i]; i++)
		if (!strcmp(v, names[i])) {
			*out = i;
			return 0;
		}
	near = vtb_suggest(names, v);
	return vtb_error("unknown %s '%s'%s%s%s", key, v, near ? " (did you mean '" : "",
			 near ? near : "", near ? "'?)" : "");
}

int vtb_plan_req_of(const struct vtb_config *c, struct vtb_plan_req *r)
{
	static const char *const presets[] = { "flat", "cores", "mirror", "lie", NULL };
	static const char *const numa_words[] = { "auto", "off", NULL };
	static const char *const machines[] = { "pc", "q35", NULL };
	const char *topo = vtb_params_get(&c->params, "topology");
	const char *mem = vtb_params_get(&c->params, "memory");
	long long bytes = 0;
	int k;
	size_t i;
	bool shape = false;

	memset(r, 0, sizeof(*r));
	if (int_param(c, "vcpus", 1, &r->vcpus) < 0 || int_param(c, "vms", 1, &r->vms) < 0 ||
	    int_param(c, "topology.sockets", 1, &r->sockets) < 0 ||
	    int_param(c, "topology.dies", 1, &r->dies) < 0 ||
	    int_param(c, "topology.cores", 1, &r->cores) < 0 ||
	    int_param(c, "topology.threads", 1, &r->threads) < 0 ||
	    int_param(c, "topology.clusters", 1, &r->clusters) < 0 ||
	    int_param(c, "topology.cells", 0, &r->cells) < 0)
		return -1;
	if (vtb_pinning_parse(vtb_params_get(&c->params, "pinning")
				      ? vtb_params_get(&c->params, "pinning")
				      : "none",
			      &r->pinning) < 0)
		return -1;
	/* a name that is not a preset is an explicit [topology NAME]: it
	 * comes with its shape keys; a bare unknown name is a typo, never
	 * silently a 1x1x1x1 shape */
	if (!topo)
		topo = "flat";
	for (i = 0; i < c->params.n && !shape; i++)
		shape = !strncmp(c->params.kv[i].key, "topology.", strlen("topology."));
	if (word_param("topology", topo, "flat", presets, &k) == 0) {
		r->topology = (enum vtb_vtopo)k;
	} else if (shape) {
		r->topology = VTB_VTOPO_EXPLICIT;
	} else {
		const char *near = vtb_suggest(presets, topo);

		return vtb_error(
			"unknown topology '%s': not a preset (flat, cores, mirror, lie) nor a [topology %s] with a shape%s%s%s",
			topo, topo, near ? " (did you mean '" : "", near ? near : "",
			near ? "'?)" : "");
	}
	if (mem && vtb_parse_int(mem, 0, 1LL << 50, &bytes) < 0)
		return vtb_error("memory = %s: not a size in bytes", mem);
	r->memory_bytes = mem ? (uint64_t)bytes : 1ull << 30;
	if (word_param("numa", vtb_params_get(&c->params, "numa"), "auto", numa_words, &k) < 0)
		return -1;
	r->numa = k == 0;
	if (bool_param(c, "overcommit", &r->overcommit) < 0 ||
	    bool_param(c, "hugepages", &r->hugepages) < 0 ||
	    bool_param(c, "locked", &r->locked) < 0)
		return -1;
	r->housekeeping = vtb_params_get(&c->params, "housekeeping");
	r->machine = vtb_params_get(&c->params, "machine");
	if (r->machine && word_param("machine", r->machine, "pc", machines, &k) < 0)
		return -1;
	return 0;
}

int vtb_plan_config(const struct vtb_topo *t, const struct vtb_config *c, struct vtb_plan **out)
{
	struct vtb_plan_req r;

	*out = NULL;
	if (vtb_plan_req_of(c, &r) < 0)
		return -1;
	return vtb_plan_make(t, &r, out);
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
