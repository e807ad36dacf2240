/* SPDX-License-Identifier: MIT */
/*
 * What a placement means for the guest: its vCPU pins by pinning, its
 * guest NUMA cells and their memory, and each claim the topology makes
 * (SMT pairs, LLC groups, nodes) with whether the placement backs it.
 */
#include <stdlib.h>
#include <string.h>

#include "planint.h"

/* The host group of @pu a claim of kind @k is about; a PU the source
 * puts in no core is a core of its own (as the host view takes it). */
static int group_at(const struct ctx *x, const struct vtb_topo_pu *pu, enum vtb_claim_kind k)
{
	if (k == VTB_CLAIM_SMT)
		return pu->core >= 0 ? pu->core
				     : (int)x->t->n_groups[VTB_TOPO_CORE] + pu->os;
	return k == VTB_CLAIM_LLC ? pl_llc_of(x, pu) : pu->node;
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
		i = pl_set_of(a, set->n, &c->vcpus);
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

int pl_node_index(const struct vtb_topo *t, int os)
{
	size_t i;

	for (i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].os == os)
			return (int)i;
	return -1;
}

/*
 * Splits @bytes over @n cells in proportion to their vCPUs (@count), in
 * whole granules (2 MiB with huge pages, else 1 KiB: what libvirt and
 * the huge page pools take), largest remainders first and the lowest
 * cell on a tie, so equal cells get equal shares (up to one granule)
 * and the sum is @bytes.  The shares are of the counts' own sum, so at
 * most n - 1 granules are left to hand out one by one whatever the
 * memory (a divisor larger than that sum once made this loop run a
 * granule at a time: 200 million rounds for 200G).  All to cell 0 when
 * every count is 0.  Into @out; 0 or -1.
 */
int pl_split_memory(uint64_t bytes, bool huge, const size_t *count, size_t n, uint64_t *out)
{
	uint64_t g = huge && !(bytes % VTB_TOPO_HUGEPAGE) ? VTB_TOPO_HUGEPAGE : 1024;
	uint64_t units = bytes / g, given = 0, nv = 0;
	bool *got = calloc(n + 1, sizeof(*got));
	size_t i;

	if (!got)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++)
		nv += count[i];
	for (i = 0; i < n; i++) {
		/* units < 2^41 and count <= 2^20: no overflow */
		out[i] = nv ? units * count[i] / nv : (i ? 0 : units);
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

/* Guest cells of VM @m: r->cells equal slices, under lie mirror's cells
 * (x->cells), else (numa = auto) by host node of @cellof, the
 * assignment.  A cell's host node is that of its vCPUs' pCPUs when they
 * share one. */
int pl_cells_of(struct ctx *x, struct vtb_plan_vm *m, const int *cellof)
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
		if (x->cells) {
			cell_of[i] = x->cells[(size_t)(m - x->p->vm) * (size_t)nv + (size_t)i];
			nc = cell_of[i] + 1 > nc ? cell_of[i] + 1 : nc;
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
	if (pl_split_memory(r->memory_bytes, r->hugepages, count, (size_t)nc, mem) < 0)
		goto fail;
	for (i = 0; i < nc; i++) {
		m->cells[i].host_node = -2;
		m->cells[i].memory_bytes = mem[i];
	}
	for (i = 0; i < nv; i++) {
		struct vtb_plan_cell *c = &m->cells[cell_of[i]];
		int os = pl_node_os(t, vtb_topo_pu_by_os(t, m->pcpu[i]));

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
					t, (size_t)pl_node_index(t, m->cells[i].host_node),
					(size_t)pl_node_index(t, m->cells[j].host_node));
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

/* The group a pin of kind @pin keeps a vCPU on pCPU @pu in; -1 none. */
static int pin_group(const struct ctx *x, enum vtb_pinning pin, const struct vtb_topo_pu *pu)
{
	switch (pin) {
	case VTB_PIN_STRICT:
		return pu->os;
	case VTB_PIN_CORE:
		return pu->core;
	case VTB_PIN_LLC:
		return pl_llc_of(x, pu);
	default:
		return pu->node;
	}
}

struct keyed {
	int key, os;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *p = a, *q = b;

	if (p->key != q->key)
		return (p->key > q->key) - (p->key < q->key);
	return (p->os > q->os) - (p->os < q->os);
}

/* Each vCPU's pins: the VM's pCPUs in the group of its own (by pinning),
 * itself alone where it has no such group.  The VM's pCPUs sorted by
 * group once, each vCPU's set one range of them (a loop over every pCPU
 * per vCPU was 4 million steps for 4 x 1024 vCPUs). */
int pl_pins_of(struct ctx *x, struct vtb_plan_vm *m)
{
	const struct vtb_topo *t = x->t;
	enum vtb_pinning pin = x->r->pinning;
	int nv = x->r->vcpus, i;
	size_t n = m->cpus.n, j, lo, hi;
	struct keyed *k = NULL;

	if (pin == VTB_PIN_NONE)
		return 0;
	m->pins = calloc((size_t)nv, sizeof(*m->pins));
	k = malloc((n + 1) * sizeof(*k));
	if (!m->pins || !k) {
		free(k);
		return vtb_error("out of memory");
	}
	for (j = 0; j < n; j++)
		k[j] = (struct keyed){ pin_group(x, pin, vtb_topo_pu_by_os(t, m->cpus.cpus[j])),
				       m->cpus.cpus[j] };
	qsort(k, n, sizeof(*k), cmp_keyed);
	for (i = 0; i < nv; i++) {
		const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, m->pcpu[i]);
		int g = pin_group(x, pin, pu);
		struct vtb_cpuset *set = &m->pins[i];

		if (g < 0) {
			lo = hi = 0;
		} else {
			/* the range of group g: binary search of its first */
			for (lo = 0, hi = n; lo < hi;) {
				size_t mid = lo + (hi - lo) / 2;

				if (k[mid].key < g)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (hi = lo; hi < n && k[hi].key == g; hi++)
				;
		}
		set->cpus = malloc((hi - lo + 1) * sizeof(int));
		if (!set->cpus) {
			free(k);
			return vtb_error("out of memory");
		}
		for (j = lo; j < hi; j++)
			set->cpus[set->n++] = k[j].os;
		if (!set->n) /* no group: the vCPU's own pCPU */
			set->cpus[set->n++] = pu->os;
	}
	free(k);
	return 0;
}

/* Spanning dies and sockets: labelled, never silent. */
int pl_check_spans(struct ctx *x, int vm)
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
				ret = pl_note(
					p, vm,
					vtb_asprintf(
						"virtual die %d spans guest cells %d and %d: its LLC crosses NUMA nodes, which the guest kernel rewrites (sched: llc-sibling not on the same node)",
						i, cell[i * per_die], cell[v]));
				break;
			}
	for (i = 0; i < p->sockets && ret == 0; i++)
		for (v = i * per_sock + 1; v < (i + 1) * per_sock; v++)
			if (cell[v] != cell[i * per_sock]) {
				ret = pl_note(
					p, vm,
					vtb_asprintf(
						"virtual socket %d spans guest cells %d and %d: the guest kernel drops its package level (NUMA in package)",
						i, cell[i * per_sock], cell[v]));
				break;
			}
	free(cell);
	return ret;
}

int pl_claims_of(struct ctx *x, int vm)
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
