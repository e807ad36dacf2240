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
 * on free whole cores; with overcommit then on free pCPUs, off the shape
 * if need be, and only when none are left on the least loaded ones, so
 * the loads stay within one vCPU per pCPU; away from nodes their memory
 * would overflow) and keeps the best by score_cmp().  make() then tries
 * housekeeping elsewhere when the first core costs the VMs their
 * alignment.  lie keeps mirror's counts and permutes the assignment:
 * virtual core G's thread th runs on real core P((G + th) mod K), so SMT
 * siblings land on different cores, and P moves the upper half of each
 * die's cores to the next unit, so each die spans two LLCs.  When
 * mirror's vCPUs fit one unit, lie takes its cores from two units
 * instead.
 *
 * Files: plan.c (the search: candidates, scores, the placement kept, the
 * API), plan-host.c (the pool and the host view: units, shapes, mirror's
 * and lie's assignment), plan-claims.c (pins, guest cells, claims),
 * plan-mem.c (guest memory against the host nodes), plan-out.c (the plan
 * as JSON and as a domain spec); planint.h is their private header.
 */
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "planint.h"

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
int pl_set_of(const int *cpus, size_t n, struct vtb_cpuset *out)
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

/* How place_one() placed a VM, best first: on free whole cores; with
 * overcommit on free pCPUs in its shape, on free pCPUs off its shape, on
 * shared pCPUs in its shape, on shared pCPUs off its shape. */
enum fit { FIT_WHOLE, FIT_FREE, FIT_FREE_LOOSE, FIT_SHARED, FIT_SHARED_LOOSE };

static bool fit_loose(enum fit f)
{
	return f == FIT_FREE_LOOSE || f == FIT_SHARED_LOOSE;
}

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
 * the fewest VMs off their shape (overcommit: the free pCPUs no longer
 * hold it); mirror's threads per core (the host's SMT width); the most
 * vCPUs on one pCPU, the fewest on one, and the vCPUs beyond one per
 * pCPU (overcommit: within one vCPU per pCPU unless memory keeps VMs off
 * nodes); sockets that are whole packages alike; the fewest host nodes,
 * then packages, summed over the VMs; the most cores per die.
 */
struct score {
	bool mem_ok, whole;
	long loose;
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
	if (a->loose != b->loose)
		return a->loose < b->loose ? -1 : 1;
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

/* score_cmp() on what a placement must get right, not on how aligned
 * it is (lie spans nodes and packages on purpose): memory, nothing
 * shared, on the shape, the loads. */
static int fit_cmp(const struct score *a, const struct score *b)
{
	struct score x = *a, y = *b;

	x.t = y.t;
	x.regular = y.regular;
	x.nodes = y.nodes;
	x.pkgs = y.pkgs;
	x.c = y.c;
	return score_cmp(&x, &y);
}

/* Scratch of place_all(), sized once per plan. */
struct scratch {
	bool *used;	/* by OS number: a core some VM has */
	bool *mark;	/* by OS number: takes_all()'s, all false between calls */
	enum fit *fit;	/* by VM: how place_all() placed it */
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
	free(s->mark);
	free(s->fit);
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
	s->mark = calloc((size_t)t->max_os + 2, sizeof(*s->mark));
	s->fit = calloc((size_t)x->r->vms, sizeof(*s->fit));
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
	if (!s->used || !s->mark || !s->fit || !s->load || !s->barred || !s->pkg_seen || !s->left ||
	    !s->count || !s->mem || !s->cand || !s->tp || !s->tc || !s->slot)
		return vtb_error("out of memory");
	return 0;
}

static bool pool_ok(const struct ctx *x, const struct scratch *s, int os)
{
	const struct vtb_topo_pu *p = vtb_topo_pu_by_os(x->t, os);

	return p->node < 0 || !s->barred[p->node];
}

/* Calls pl_assign() (@loose: pl_assign_loose()); on failure drops the
 * notes the attempt added. */
static int try_assign(struct ctx *x, int vm, const int *cand, size_t n, const struct shape *sh,
		      const int *load, const bool *used, bool loose, struct scratch *s)
{
	struct vtb_plan *p = x->p;
	size_t p_notes = p->n_notes, vm_notes = p->vm[vm].n_notes;
	int rc = loose ? pl_assign_loose(x, vm, cand, n, sh, used, s->tp, s->tc)
		       : pl_assign(x, vm, cand, n, sh, load, used, s->tp, s->tc);

	if (rc) {
		notes_truncate(p->notes, &p->n_notes, p_notes);
		notes_truncate(p->vm[vm].notes, &p->vm[vm].n_notes, vm_notes);
	}
	return rc;
}

/* Whether the placement in s->tp takes each of @must (@n pCPUs). */
static bool takes_all(const struct ctx *x, struct scratch *s, const int *must, size_t n)
{
	size_t nv = (size_t)x->r->vcpus, i;
	bool all = true;

	for (i = 0; i < nv; i++)
		s->mark[s->tp[i]] = true;
	for (i = 0; i < n && all; i++)
		all = s->mark[must[i]];
	for (i = 0; i < nv; i++)
		s->mark[s->tp[i]] = false;
	return all;
}

/*
 * One VM on @pool (compact order), into s->tp, s->tc, how in *@how:
 * free whole cores (the only way without overcommit).  With overcommit
 * a VM takes free pCPUs before it shares any: its shape on the free
 * pCPUs (free siblings included), else (mirror and lie) the free pCPUs
 * off its shape (pl_assign_loose()).  Only when fewer pCPUs than it has
 * vCPUs are free does it share: the least loaded pCPUs, all of those
 * below the load it must reach and then the shape on those at that load,
 * else those pCPUs off its shape; so the loads over the pool stay within
 * one vCPU.  pCPUs on barred nodes are left out.  0, 1 (no room,
 * vtb_error() says why) or -1.
 */
static int place_one(struct ctx *x, int vm, const int *pool, size_t n_pool, const struct shape *sh,
		     struct scratch *s, enum fit *how)
{
	size_t nv = (size_t)x->r->vcpus, n = 0, n_ok = 0, n_free, n_must, i;
	int rc, lim;

	for (i = 0; i < n_pool; i++)
		if (!s->used[pool[i]] && pool_ok(x, s, pool[i]))
			s->cand[n++] = pool[i];
	*how = FIT_WHOLE;
	if (n >= nv) {
		rc = try_assign(x, vm, s->cand, n, sh, NULL, s->used, false, s);
		/* lie is no shape to keep but mirror's counts on other cores:
		 * where mirror's footprint is not free (another lie VM took
		 * half its cores from a second LLC) it takes the free cores as
		 * aligned as they allow, and says which claims stay true */
		if (rc == 1 && sh->t && vtb_preset_of(x->r->topology)->lies && !x->modest)
			rc = try_assign(x, vm, s->cand, n, sh, NULL, s->used, true, s);
		if (rc <= 0 || !x->r->overcommit)
			return rc;
	} else {
		vtb_error(
			"too many vCPUs: VM %d of %d finds %zu free pCPUs for its %zu vCPUs (whole cores go to one VM: side-by-side VMs never share SMT siblings; set overcommit = yes to share)",
			vm, x->r->vms, n, nv);
		if (!x->r->overcommit)
			return 1;
	}
	/* the pool by load, least loaded first, compact order among equals */
	for (i = 0; i < n_pool; i++)
		if (pool_ok(x, s, pool[i]))
			s->slot[n_ok++] = (struct load_slot){ s->load[pool[i]], (int)i };
	if (!n_ok)
		return 1;
	/* a pinned or mirrored VM never shares a pCPU among its own vCPUs
	 * (only between VMs): with nodes barred for memory it may no longer
	 * find them */
	if (n_ok < nv &&
	    (x->r->pinning != VTB_PIN_NONE || vtb_preset_of(x->r->topology)->from_host)) {
		vtb_error("too many vCPUs: VM %d of %d finds %zu pCPUs for its %zu pinned or mirrored vCPUs", vm,
			  x->r->vms, n_ok, nv);
		return 1;
	}
	qsort(s->slot, n_ok, sizeof(*s->slot), cmp_load);
	for (n_free = 0; n_free < n_ok && !s->slot[n_free].load; n_free++)
		s->cand[n_free] = pool[s->slot[n_free].idx];
	if (n_free >= nv) {
		*how = FIT_FREE;
		rc = try_assign(x, vm, s->cand, n_free, sh, s->load, s->used, false, s);
		if (rc != 1 || !sh->t)
			return rc;
		*how = FIT_FREE_LOOSE;
		return try_assign(x, vm, s->cand, n_free, sh, s->load, s->used, true, s);
	}
	/* the pool is full: every pCPU below load lim gets one more vCPU, the
	 * rest from those at lim (one VM beyond the pool, pinning none: each
	 * pCPU as evenly) */
	lim = s->slot[(nv < n_ok ? nv : n_ok) - 1].load;
	for (n = 0; n < n_ok && s->slot[n].load <= lim; n++)
		s->cand[n] = pool[s->slot[n].idx];
	for (n_must = 0; n_must < n && s->slot[n_must].load < lim; n_must++)
		;
	*how = FIT_SHARED;
	rc = try_assign(x, vm, s->cand, n, sh, s->load, s->used, false, s);
	if (rc < 0 || !sh->t || (rc == 0 && takes_all(x, s, s->cand, n_must)))
		return rc;
	*how = FIT_SHARED_LOOSE;
	return try_assign(x, vm, s->cand, nv < n ? nv : n, sh, s->load, s->used, true, s);
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
		if (pl_split_memory(need, x->r->hugepages, s->count, nn, s->mem) < 0)
			return -1;
		for (i = 0; i < nn; i++) {
			if (!s->count[i] || !s->left[i])
				continue;
			if (take)
				s->left[i] = s->left[i] > s->mem[i] ? s->left[i] - s->mem[i] : 1;
			/* fits while mem <= what is left, that is mem < left;
			 * every node it overflows is barred for the next try */
			else if (s->mem[i] >= s->left[i]) {
				worst = worst < 0 ? (int)i : worst;
				s->barred[i] = true;
			}
		}
		return worst;
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

/* The least memory a host node must take of one VM of shape @sh with
 * numa = auto (cells by node, memory in proportion to their vCPUs): a
 * die's share, one vCPU's without a shape; 0 when memory is not split
 * by node (numa = off, explicit cells). */
static uint64_t least_share(const struct ctx *x, const struct shape *sh)
{
	if (!x->r->numa || x->r->cells)
		return 0;
	return (uint64_t)((double)x->r->memory_bytes * (sh->t ? sh->t * sh->c : 1) /
			  x->r->vcpus);
}

/* Whether no choice of nodes can hold one VM of shape @sh (s->left;
 * nodes of unknown memory hold anything): its memory exceeds what they
 * have left together, or (numa = auto) the least a node must take of it
 * (a die's share, one vCPU's without a shape) exceeds what any has. */
static bool mem_hopeless(const struct ctx *x, const struct scratch *s, const struct shape *sh)
{
	uint64_t have = 0, most = 0;
	size_t i;

	if (!x->t->n_nodes)
		return false;
	for (i = 0; i < x->t->n_nodes; i++) {
		if (!s->left[i])
			return false;
		have += s->left[i] - 1;
		most = s->left[i] - 1 > most ? s->left[i] - 1 : most;
	}
	return x->r->memory_bytes > have || least_share(x, sh) > most;
}

/* Bars the nodes (numa = auto) that cannot take even the least share
 * of a VM of shape @sh (mem_hopeless()): trying them one at a time
 * would multiply the search by the nodes. */
static void bar_small(const struct ctx *x, struct scratch *s, const struct shape *sh)
{
	uint64_t least = least_share(x, sh);
	size_t i;

	if (!least)
		return;
	for (i = 0; i < x->t->n_nodes; i++)
		if (s->left[i] && s->left[i] - 1 < least)
			s->barred[i] = true;
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
		enum fit how = FIT_WHOLE, kept = FIT_WHOLE;
		bool fits = false;
		size_t tries, max_tries;

		memset(s->barred, 0, (nn + 1) * sizeof(*s->barred));
		/* memory that no choice of nodes holds: the first placement
		 * is as good as any (and trying each node's removal would
		 * multiply the search by the nodes) */
		max_tries = mem_hopeless(x, s, sh) ? 0 : nn;
		for (tries = 0; tries <= max_tries && !fits; tries++) {
			int over;

			if (tries == 1)
				bar_small(x, s, sh);
			rc = place_one(x, vm, pool, n_pool, sh, s, &how);
			if (rc < 0 || (rc && !tries))
				return rc;
			if (rc)
				break;
			over = mem_over(x, s, false);
			if (!tries || over < 0) {
				memcpy(vp, s->tp, nv * sizeof(*vp));
				memcpy(vc, s->tc, nv * sizeof(*vc));
				kept = how;
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
		sc->whole = sc->whole && kept == FIT_WHOLE;
		sc->loose += fit_loose(kept);
		s->fit[vm] = kept;
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
 * score_cmp() among pl_enum_shapes()'s candidates, each tried by placing
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
		if (pl_hview_build(x, pool, n_pool, r->numa, &v) < 0 ||
		    pl_enum_shapes(&v, r->vcpus, &cands, &n) < 0)
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
	pl_hview_release(&v);
	return rc;
}

/* Why VM @vm, placed as @how, is off its shape (overcommit), and (mirror)
 * how many of its SMT and LLC claims that costs. */
static int loose_note(struct ctx *x, int vm, enum fit how)
{
	const struct vtb_plan *p = x->p;
	const struct vtb_preset *preset = vtb_preset_of(x->r->topology);
	size_t i, off = 0, all = 0;
	char *cost;
	int ret;

	for (i = 0; i < p->n_claims; i++)
		if (p->claims[i].vm == vm && p->claims[i].kind != VTB_CLAIM_NODE) {
			all++;
			off += p->claims[i].state != VTB_CLAIM_TRUE;
		}
	cost = preset->lies ? vtb_strdup("")
			    : vtb_asprintf("; %zu of its %zu SMT and LLC claims are not true there",
					   off, all);
	if (!cost)
		return vtb_error("out of memory");
	ret = pl_note(
		x->p, vm,
		vtb_asprintf(
			"overcommit: VM %d is off %s's shape (%d LLC groups of %d cores of %d threads): %s, so it takes them as aligned as they allow (whole cores, then one LLC group, one node)%s",
			vm, preset->name, p->dies * p->sockets, p->cores, p->threads,
			how == FIT_FREE_LOOSE
				? "the free pCPUs no longer hold it but hold its vCPUs, and a pCPU is shared only when the pool is full"
				: "the pool is full and its least loaded pCPUs, which keep the loads within one vCPU per pCPU, do not hold it",
			cost));
	free(cost);
	return ret;
}

/* VM @vm of the placement kept (@pcpu, @cellof its vCPUs', placed as
 * @how): its pCPUs, host nodes, pins, guest cells and claims. */
static int final_vm(struct ctx *x, int vm, const int *pcpu, const int *cellof, enum fit how)
{
	struct vtb_plan *p = x->p;
	struct vtb_plan_vm *m = &p->vm[vm];
	size_t nv = (size_t)x->r->vcpus, i, held = 0;

	m->pcpu = malloc(nv * sizeof(int));
	if (!m->pcpu)
		return vtb_error("out of memory");
	memcpy(m->pcpu, pcpu, nv * sizeof(int));
	if (pl_set_of(m->pcpu, nv, &m->cpus) < 0)
		return -1;
	for (i = 0; i < m->cpus.n; i++)
		if (vtb_cpuset_add(&m->nodes,
				   pl_node_os(x->t, vtb_topo_pu_by_os(x->t, m->cpus.cpus[i]))) < 0)
			return -1;
	if (m->nodes.n && m->nodes.cpus[0] < 0) /* unknown nodes */
		vtb_cpuset_release(&m->nodes);
	if (pl_pins_of(x, m) < 0 || pl_cells_of(x, m, cellof) < 0 || pl_claims_of(x, vm) < 0 ||
	    pl_check_spans(x, vm) < 0)
		return -1;
	if (fit_loose(how) && loose_note(x, vm, how) < 0)
		return -1;
	if (!vtb_preset_of(x->r->topology)->lies)
		return 0;
	for (i = 0; i < p->n_claims; i++)
		held += p->claims[i].vm == vm && p->claims[i].kind != VTB_CLAIM_NODE &&
			p->claims[i].state == VTB_CLAIM_TRUE;
	if (held &&
	    pl_note(p, vm,
		    vtb_asprintf(
			    "lie: %zu SMT or LLC claim%s still true (%s)", held, held == 1 ? "" : "s",
			    x->modest
				    ? "lie stays within mirror's cores: taking cores elsewhere to lie with would leave a VM no room, or place the VMs worse on memory or loads"
				    : "the free pCPUs hold no second core or LLC to lie with")) < 0)
		return -1;
	return 0;
}

/* overcommit keeps the loads within one vCPU per pCPU (place_one()) but
 * for VMs kept off host nodes their memory would overflow: say so. */
static int overcommit_note(struct ctx *x, const int *pool, size_t n_pool, const struct scratch *s)
{
	int lo = 1 << 30, hi = 0;
	size_t n_lo = 0, n_hi = 0, i;

	for (i = 0; i < n_pool; i++) {
		int l = s->load[pool[i]];

		n_lo = l < lo ? 1 : n_lo + (l == lo);
		lo = l < lo ? l : lo;
		n_hi = l > hi ? 1 : n_hi + (l == hi);
		hi = l > hi ? l : hi;
	}
	if (hi - lo <= 1)
		return 0;
	return pl_note(
		x->p, -1,
		vtb_asprintf(
			"overcommit: the VMs do not spread evenly over the pool: %zu pCPUs hold %d vCPUs while %zu hold %d (guest memory keeps VMs off the host nodes it would overflow)",
			n_hi, hi, n_lo, lo));
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
	size_t nv = (size_t)r->vcpus, nvv = (size_t)r->vms * nv;
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
		    pl_note(p, -1,
			    vtb_asprintf(
				    "the packages used hold different numbers of the %d LLC groups used (no regular choice fits): told 1 socket of %d dies, the real package boundary is not shown",
				    sh->l, sh->l)) < 0)
			goto out;
	} else {
		vtb_vtopo_shape(r, &p->sockets, &p->dies, &p->cores, &p->threads);
	}
	for (vm = 0; vm < r->vms; vm++)
		if (final_vm(x, vm, pcpu + (size_t)vm * nv, cellof + (size_t)vm * nv, s->fit[vm]) <
		    0)
			goto out;
	if (r->overcommit && overcommit_note(x, pool, n_pool, s) < 0)
		goto out;
	if (pl_llc_fallback_note(x) < 0 || pl_mem_check(x) < 0)
		goto out;
	sc->mem_ok = !p->why_not;
	ret = 0;
out:
	free(pcpu);
	free(cellof);
	return ret;
}

/* A whole plan of @req with housekeeping @hk_set (NULL: the request's),
 * and its score.  0 or -1 with vtb_error(). */
static int build(const struct vtb_topo *t, const struct vtb_plan_req *req,
		 const struct vtb_cpuset *hk_set, const struct shape *forced, const int *cells,
		 struct vtb_plan **out, struct score *sc, struct shape *sh_out)
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
	x = (struct ctx){ t, req, p, pl_llc_level_of(t), true, cells, false };
	rc = pl_pool_of(&x, hk_set, &pool, &n_pool);
	if (rc < 0) {
		ret = rc == VTB_PLAN_NO_ROOM ? VTB_PLAN_NO_ROOM : -1;
		goto out;
	}
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
	/* (a lie already on free whole cores with its memory fitting
	 * cannot do better within mirror's cores) */
	if (rc >= 0 && vtb_preset_of(req->topology)->lies && (rc || !sc->mem_ok || !sc->whole)) {
		/* lie within mirror's cores too: kept when lying leaves a
		 * VM no room or places the VMs worse (memory, loads), so
		 * lie plans wherever mirror does */
		struct score msc;
		struct shape msh = { 0, 0, 0, 0 };
		int mrc;

		x.modest = true;
		mrc = choose(&x, pool, n_pool, &s, forced, &msh, &msc);
		if (mrc < 0)
			rc = mrc;
		else if (mrc == 0 && (rc || fit_cmp(&msc, sc) < 0)) {
			rc = 0;
			*sc = msc;
			sh = msh;
		} else {
			x.modest = false;
		}
	}
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
	if (was->loose != now->loose)
		return vtb_asprintf(
			"on the first core %ld VM%s would be off mirror's shape instead of %ld",
			was->loose, was->loose == 1 ? "" : "s", now->loose);
	if (was->min_load != now->min_load)
		return vtb_asprintf(
			"on the first core the loads would be less even (the least loaded pCPU holding %d vCPUs instead of %d)",
			was->min_load, now->min_load);
	if (was->t != now->t || was->regular != now->regular)
		return vtb_strdup("on the first core mirror's shape would not follow the host");
	if (was->nodes == now->nodes && was->pkgs == now->pkgs && was->c != now->c)
		return vtb_asprintf(
			"on the first core mirror's dies would hold %d cores instead of %d", was->c,
			now->c);
	return vtb_asprintf(
		"on the first core the VM%s would take %ld host node%s and %ld package%s instead of %ld and %ld",
		vms == 1 ? "" : "s", was->nodes, was->nodes == 1 ? "" : "s", was->pkgs,
		was->pkgs == 1 ? "" : "s", now->nodes, now->pkgs);
}

/* Whether every CPU of @hk is on no node (never a guest's). */
static bool all_nodeless(const struct vtb_topo *t, const struct vtb_cpuset *hk)
{
	for (size_t i = 0; i < hk->n; i++)
		if (!vtb_topo_pu_by_os(t, hk->cpus[i])->nodeless)
			return false;
	return hk->n > 0;
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
	struct shape shp = { 0, 0, 0, 0 }, shr = { 0, 0, 0, 0 }, shq = { 0, 0, 0, 0 };
	const char *where = NULL;
	char *err = NULL, *why = NULL, *cpus = NULL, *text = NULL;
	bool auto_hk = !req->housekeeping || !strcmp(req->housekeeping, "auto");
	int ret = -1, rc;

	*out = NULL;
	*moved_note = NULL;
	rc = build(t, req, NULL, NULL, NULL, &p, &sp, &shp);
	/* settled, or housekeeping on CPUs no guest may have: it costs the
	 * VMs nothing, so it never moves */
	if (!auto_hk || (rc == 0 && (!p->housekeeping.n || settled(&sp, req->vms) ||
				     all_nodeless(t, &p->housekeeping)))) {
		*out = p;
		*sh = shp;
		return rc;
	}
	if (rc < 0 && !(err = vtb_strdup(vtb_errmsg())))
		return -1;
	if (build(t, req, &none, NULL, NULL, &q, &sq, &shq) == 0 &&
	    hk_elsewhere(t, q, &hk, &where) == 0 && (!p || !set_equal(&hk, &p->housekeeping)) &&
	    build(t, req, &hk, NULL, NULL, &r, &sr, &shr) == 0 && (!p || score_cmp(&sr, &sp) < 0)) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, hk.cpus[0]);

		why = moved_why(p ? &sp : NULL, &sr, req->vms);
		cpus = vtb_cpuset_format(&hk);
		text = why && cpus
			       ? vtb_asprintf(
					 "housekeeping on CPUs %s (host node %d), %s, not on the first core: %s",
					 cpus, pl_node_os(t, pu), where, why)
			       : NULL;
		if (!text || pl_note(r, -1, vtb_strdup(text)) < 0) {
			vtb_error("out of memory");
			goto out;
		}
		vtb_plan_free(p);
		p = r;
		r = NULL;
		shp = shr;
		sp = sr;
		*moved_note = text;
		text = NULL;
	}
	/* no housekeeping where a housekeeping core would cost the memory
	 * fit (or the room) that none has: with overcommit one VM's vCPUs
	 * leave room for a housekeeping core, but 4 VMs of 1G on 4 nodes of
	 * 1 GiB need every node, as overcommit = no plans them */
	if (q && (!p || (!sp.mem_ok && sq.mem_ok))) {
		free(*moved_note);
		*moved_note = vtb_strdup(
			"no housekeeping CPUs: on a housekeeping core the guest memory would not fit the host nodes (or the VMs would find no room), so the harness, libvirt and emulator threads share the vCPUs' pCPUs");
		if (!*moved_note || pl_note(q, -1, vtb_strdup(*moved_note)) < 0) {
			vtb_error("out of memory");
			goto out;
		}
		vtb_plan_free(p);
		p = q;
		q = NULL;
		shp = shq;
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
	if (ret < 0) {
		free(*moved_note);
		*moved_note = NULL;
	}
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

/* Each VM's vCPUs' guest cells in plan @m (vms x vcpus; cell 0 where
 * it has none), which lie keeps; NULL with vtb_error(). */
static int *mirror_cells(const struct vtb_plan *m)
{
	size_t nv = (size_t)m->req.vcpus, c, i;
	int *cells = calloc((size_t)m->req.vms * nv + 1, sizeof(int));
	int v;

	if (!cells) {
		vtb_error("out of memory");
		return NULL;
	}
	for (v = 0; v < m->req.vms; v++)
		for (c = 0; c < m->vm[v].n_cells; c++)
			for (i = 0; i < m->vm[v].cells[c].vcpus.n; i++)
				cells[(size_t)v * nv + (size_t)m->vm[v].cells[c].vcpus.cpus[i]] =
					(int)c;
	return cells;
}

int vtb_plan_make(const struct vtb_topo *t, const struct vtb_plan_req *req, struct vtb_plan **out)
{
	struct vtb_plan_req mreq;
	int *cells;
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
	cells = mirror_cells(m);
	if (!cells) {
		vtb_plan_free(m);
		free(moved);
		return -1;
	}
	ret = build(t, req, moved ? &m->housekeeping : NULL, &sh, cells, out, &sc, NULL);
	vtb_plan_free(m);
	free(cells);
	if (ret == 0 && moved) {
		ret = pl_note(*out, -1, moved); /* takes it */
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
