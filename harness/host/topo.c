/* SPDX-License-Identifier: MIT */
/*
 * The host topology model: pure code, no hwloc.  vtb_topo_finish() puts
 * whatever a source described into one canonical form (PUs in compact
 * order, groups numbered by first appearance, nodes by number), so that
 * two sources describing the same machine give equal models and equal
 * digests.
 */
#include "topo.h"

#include <stdlib.h>
#include <string.h>

#include "../matrix/digest.h"

/* Linux's NR_CPUS tops out at 8192; leave room for odd numbering. */
#define VTB_TOPO_MAX_OS (1 << 20)

/* pseudo level for the NUMA node field of a PU */
#define NODE_FIELD VTB_TOPO_NLEVELS

const char *vtb_topo_level_name(enum vtb_topo_level level)
{
	static const char *const names[] = {
		[VTB_TOPO_CORE] = "core", [VTB_TOPO_L2] = "L2",	      [VTB_TOPO_LLC] = "LLC",
		[VTB_TOPO_DIE] = "die",	  [VTB_TOPO_PKG] = "package",
	};

	return (unsigned)level < VTB_ARRAY_SIZE(names) ? names[level] : "?";
}

static int *pu_field(struct vtb_topo_pu *p, int level)
{
	switch (level) {
	case VTB_TOPO_CORE:
		return &p->core;
	case VTB_TOPO_L2:
		return &p->l2;
	case VTB_TOPO_LLC:
		return &p->llc;
	case VTB_TOPO_DIE:
		return &p->die;
	case VTB_TOPO_PKG:
		return &p->pkg;
	default:
		return &p->node;
	}
}

static int pu_get(const struct vtb_topo_pu *p, int level)
{
	return *pu_field((struct vtb_topo_pu *)p, level);
}

struct vtb_topo_pu *vtb_topo_add_pu(struct vtb_topo *t, int os, bool online, bool allowed)
{
	struct vtb_topo_pu *p = realloc(t->pus, (t->n_pus + 1) * sizeof(*p));

	if (!p) {
		vtb_error("out of memory");
		return NULL;
	}
	t->pus = p;
	p = &t->pus[t->n_pus++];
	memset(p, 0, sizeof(*p));
	p->os = os;
	p->core = p->l2 = p->llc = p->die = p->pkg = p->node = -1;
	p->online = online;
	p->allowed = allowed;
	return p;
}

struct vtb_topo_group *vtb_topo_add_group(struct vtb_topo *t, enum vtb_topo_level level)
{
	struct vtb_topo_group *g;

	g = realloc(t->groups[level], (t->n_groups[level] + 1) * sizeof(*g));
	if (!g) {
		vtb_error("out of memory");
		return NULL;
	}
	t->groups[level] = g;
	g = &g[t->n_groups[level]++];
	memset(g, 0, sizeof(*g));
	g->os = -1;
	return g;
}

struct vtb_topo_node *vtb_topo_add_node(struct vtb_topo *t)
{
	struct vtb_topo_node *n = realloc(t->nodes, (t->n_nodes + 1) * sizeof(*n));

	if (!n) {
		vtb_error("out of memory");
		return NULL;
	}
	t->nodes = n;
	n = &n[t->n_nodes++];
	memset(n, 0, sizeof(*n));
	n->os = -1;
	n->hugepages = n->hugepages_free = -1;
	return n;
}

static int cmp_pu_os(const void *a, const void *b)
{
	const struct vtb_topo_pu *x = a, *y = b;

	return (x->os > y->os) - (x->os < y->os);
}

static int build_by_os(struct vtb_topo *t)
{
	size_t i;
	int max = -1;

	for (i = 0; i < t->n_pus; i++)
		if (t->pus[i].os > max)
			max = t->pus[i].os;
	free(t->by_os);
	t->by_os = malloc(((size_t)max + 1) * sizeof(int) + 1);
	if (!t->by_os)
		return vtb_error("out of memory");
	t->max_os = max;
	for (i = 0; i < (size_t)max + 1; i++)
		t->by_os[i] = -1;
	for (i = 0; i < t->n_pus; i++)
		t->by_os[t->pus[i].os] = (int)i;
	return 0;
}

/* Sets each PU's field at @level from the groups' (or nodes') PU sets. */
static int assign(struct vtb_topo *t, int level)
{
	size_t n = level == NODE_FIELD ? t->n_nodes : t->n_groups[level];
	const char *what = level == NODE_FIELD ? "NUMA node" : vtb_topo_level_name(level);
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct vtb_cpuset *s = level == NODE_FIELD ? &t->nodes[i].pus
								 : &t->groups[level][i].pus;

		for (j = 0; j < s->n; j++) {
			int cpu = s->cpus[j], k, *f;

			k = cpu >= 0 && cpu <= t->max_os ? t->by_os[cpu] : -1;
			if (k < 0 || !t->pus[k].online)
				return vtb_error("%s %zu holds CPU %d, which is not an online CPU",
						 what, i, cpu);
			f = pu_field(&t->pus[k], level);
			if (*f >= 0)
				return vtb_error("CPU %d is in two %ss", cpu, what);
			*f = (int)i;
		}
	}
	return 0;
}

struct rule_ctx {
	const int *keys; /* n_keys per online PU */
	size_t n_keys;
};

static int cmp_keys(const void *a, const void *b, void *arg)
{
	const struct rule_ctx *c = arg;
	const int *x = c->keys + (size_t) * (const int *)a * c->n_keys;
	const int *y = c->keys + (size_t) * (const int *)b * c->n_keys;
	size_t k;

	for (k = 0; k < c->n_keys; k++)
		if (x[k] != y[k])
			return (x[k] > y[k]) - (x[k] < y[k]);
	return 0;
}

/* Do all PUs of every node with CPUs share one group at @level? */
static bool nodes_nest_in(const struct vtb_topo *t, int level)
{
	size_t i, j;

	for (i = 0; i < t->n_nodes; i++) {
		const struct vtb_cpuset *s = &t->nodes[i].pus;
		int g = -2;

		for (j = 0; j < s->n; j++) {
			const struct vtb_topo_pu *p = vtb_topo_pu_by_os(t, s->cpus[j]);
			int v = p ? pu_get(p, level) : -1;

			if (v < 0 || (g != -2 && v != g))
				return false;
			g = v;
		}
	}
	return true;
}

void vtb_topo_compact_rule(const struct vtb_topo *t, int *out)
{
	static const int chain[] = { VTB_TOPO_PKG, VTB_TOPO_DIE, VTB_TOPO_LLC, VTB_TOPO_L2,
				     VTB_TOPO_CORE };
	int levels[VTB_ARRAY_SIZE(chain) + 1];
	struct rule_ctx c;
	int *keys, *idx;
	size_t i, k, n = 0, nl = 0, node_after = 0;
	bool placed = false;

	/* the node level goes right below the deepest level it nests in */
	for (i = VTB_ARRAY_SIZE(chain); i-- > 0;) {
		if (t->n_groups[chain[i]] && nodes_nest_in(t, chain[i])) {
			node_after = i + 1;
			placed = true;
			break;
		}
	}
	for (i = 0; i <= VTB_ARRAY_SIZE(chain); i++) {
		if (i == (placed ? node_after : 0))
			levels[nl++] = NODE_FIELD;
		if (i < VTB_ARRAY_SIZE(chain))
			levels[nl++] = chain[i];
	}
	c.n_keys = nl + 1;
	keys = calloc((t->n_online ? t->n_online : 1) * c.n_keys, sizeof(int));
	idx = calloc(t->n_online ? t->n_online : 1, sizeof(int));
	if (!keys || !idx) {
		/* best effort without memory: OS order */
		for (i = 0; i < t->n_pus; i++)
			if (t->pus[i].online && n < t->n_online)
				out[n++] = t->pus[i].os;
		free(keys);
		free(idx);
		return;
	}
	for (i = 0; i < t->n_pus; i++) {
		const struct vtb_topo_pu *p = &t->pus[i];
		int *key = keys + n * c.n_keys;

		if (!p->online || n >= t->n_online)
			continue;
		for (k = 0; k < nl; k++) {
			int g = pu_get(p, levels[k]);
			const struct vtb_cpuset *s = g < 0 ? NULL
						     : levels[k] == NODE_FIELD
							     ? &t->nodes[g].pus
							     : &t->groups[levels[k]][g].pus;

			key[k] = s && s->n ? s->cpus[0] : -1;
		}
		key[nl] = p->os;
		idx[n] = (int)n;
		n++;
	}
	c.keys = keys;
	qsort_r(idx, n, sizeof(int), cmp_keys, &c);
	for (i = 0; i < n; i++)
		out[i] = keys[(size_t)idx[i] * c.n_keys + nl];
	free(keys);
	free(idx);
}

/* Renumbers the groups of @level (or the nodes' users) by first
 * appearance in pus[] order, dropping groups no PU is in. */
static int renumber(struct vtb_topo *t, int level)
{
	size_t n = t->n_groups[level], i, next = 0;
	struct vtb_topo_group *g;
	int *map;

	if (!n)
		return 0;
	map = malloc(n * sizeof(int));
	g = calloc(n, sizeof(*g));
	if (!map || !g) {
		free(map);
		free(g);
		return vtb_error("out of memory");
	}
	for (i = 0; i < n; i++)
		map[i] = -1;
	for (i = 0; i < t->n_pus; i++) {
		int *f = pu_field(&t->pus[i], level);

		if (*f < 0)
			continue;
		if (map[*f] < 0) {
			map[*f] = (int)next;
			g[next++] = t->groups[level][*f];
			t->groups[level][*f].pus.cpus = NULL;
		}
		*f = map[*f];
	}
	for (i = 0; i < n; i++)
		vtb_cpuset_release(&t->groups[level][i].pus);
	free(t->groups[level]);
	free(map);
	t->groups[level] = g;
	t->n_groups[level] = next;
	return 0;
}

struct node_sort {
	int os;
	size_t from;
};

static int cmp_node_sort(const void *a, const void *b)
{
	const struct node_sort *x = a, *y = b;

	return (x->os > y->os) - (x->os < y->os);
}

static int sort_nodes(struct vtb_topo *t)
{
	size_t n = t->n_nodes, i, j;
	struct node_sort *ns = calloc(n ? n : 1, sizeof(*ns));
	struct vtb_topo_node *nodes = calloc(n ? n : 1, sizeof(*nodes));
	unsigned *dist = t->distances ? calloc(n * n, sizeof(*dist)) : NULL;
	int *map = calloc(n ? n : 1, sizeof(int));
	int ret = -1;

	if (!ns || !nodes || !map || (t->distances && !dist)) {
		vtb_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		ns[i].os = t->nodes[i].os;
		ns[i].from = i;
	}
	qsort(ns, n, sizeof(*ns), cmp_node_sort);
	for (i = 0; i < n; i++) {
		if (ns[i].os < 0) {
			vtb_error("a NUMA node has no number");
			goto out;
		}
		if (i && ns[i].os == ns[i - 1].os) {
			vtb_error("NUMA node %d is listed twice", ns[i].os);
			goto out;
		}
		nodes[i] = t->nodes[ns[i].from];
		map[ns[i].from] = (int)i;
	}
	if (dist)
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				dist[i * n + j] = t->distances[ns[i].from * n + ns[j].from];
	for (i = 0; i < t->n_pus; i++)
		if (t->pus[i].node >= 0)
			t->pus[i].node = map[t->pus[i].node];
	free(t->nodes);
	free(t->distances);
	t->nodes = nodes;
	t->distances = dist;
	nodes = NULL;
	dist = NULL;
	ret = 0;
out:
	free(ns);
	free(nodes);
	free(dist);
	free(map);
	return ret;
}

int vtb_topo_finish(struct vtb_topo *t, const int *order, size_t n_order)
{
	struct vtb_topo_pu *pus = NULL;
	int *rule = NULL;
	bool *seen = NULL;
	size_t i, n = 0;
	int level, ret = -1;

	if (t->n_pus) /* qsort(NULL, 0) is undefined (a topology without PUs) */
		qsort(t->pus, t->n_pus, sizeof(*t->pus), cmp_pu_os);
	t->n_online = 0;
	for (i = 0; i < t->n_pus; i++) {
		struct vtb_topo_pu *p = &t->pus[i];

		if (p->os < 0 || p->os >= VTB_TOPO_MAX_OS)
			return vtb_error("CPU number %d is out of range", p->os);
		if (i && p->os == t->pus[i - 1].os)
			return vtb_error("CPU %d is listed twice", p->os);
		p->core = p->l2 = p->llc = p->die = p->pkg = p->node = -1;
		p->allowed = p->allowed && p->online;
		t->n_online += p->online;
	}
	if (!t->n_online)
		return vtb_error("the topology has no online CPU");
	if (build_by_os(t))
		return -1;
	for (level = 0; level <= NODE_FIELD; level++)
		if (assign(t, level))
			return -1;
	/* no dies in the source: each package is one die */
	if (!t->n_groups[VTB_TOPO_DIE]) {
		for (i = 0; i < t->n_groups[VTB_TOPO_PKG]; i++) {
			struct vtb_topo_group *d = vtb_topo_add_group(t, VTB_TOPO_DIE);
			const struct vtb_cpuset *s = &t->groups[VTB_TOPO_PKG][i].pus;

			if (!d)
				return -1;
			for (size_t j = 0; j < s->n; j++)
				if (vtb_cpuset_add(&d->pus, s->cpus[j]))
					return -1;
		}
		for (i = 0; i < t->n_pus; i++)
			t->pus[i].die = t->pus[i].pkg;
	}

	if (!order) {
		rule = calloc(t->n_online, sizeof(int));
		if (!rule)
			return vtb_error("out of memory");
		vtb_topo_compact_rule(t, rule);
		order = rule;
		n_order = t->n_online;
	}
	pus = calloc(t->n_pus, sizeof(*pus));
	seen = calloc(t->n_pus, sizeof(*seen));
	if (!pus || !seen) {
		vtb_error("out of memory");
		goto out;
	}
	if (n_order != t->n_online) {
		vtb_error("the compact order lists %zu CPUs, the topology has %zu online", n_order,
			  t->n_online);
		goto out;
	}
	for (i = 0; i < n_order; i++) {
		int k = order[i] >= 0 && order[i] <= t->max_os ? t->by_os[order[i]] : -1;

		if (k < 0 || !t->pus[k].online || seen[k]) {
			vtb_error(
				"the compact order lists CPU %d, which is not an online CPU or is listed twice",
				order[i]);
			goto out;
		}
		seen[k] = true;
		pus[n++] = t->pus[k];
	}
	for (i = 0; i < t->n_pus; i++)
		if (!t->pus[i].online)
			pus[n++] = t->pus[i];
	free(t->pus);
	t->pus = pus;
	pus = NULL;
	for (level = 0; level < VTB_TOPO_NLEVELS; level++)
		if (renumber(t, level))
			goto out;
	if (sort_nodes(t) || build_by_os(t))
		goto out;
	for (i = 0; i < t->n_pus; i++) {
		struct vtb_topo_pu *p = &t->pus[i];

		p->nodeless = p->allowed && (p->node < 0 || t->nodes[p->node].denied);
		p->allowed = p->allowed && !p->nodeless;
	}
	ret = 0;
out:
	free(pus);
	free(seen);
	free(rule);
	return ret;
}

const struct vtb_topo_pu *vtb_topo_pu_by_os(const struct vtb_topo *t, int os)
{
	if (!t->by_os || os < 0 || os > t->max_os || t->by_os[os] < 0)
		return NULL;
	return &t->pus[t->by_os[os]];
}

const struct vtb_cpuset *vtb_topo_pus_of(const struct vtb_topo *t, enum vtb_topo_level level,
					 int os)
{
	const struct vtb_topo_pu *p = vtb_topo_pu_by_os(t, os);
	int g;

	if (!p || (unsigned)level >= VTB_TOPO_NLEVELS)
		return NULL;
	g = pu_get(p, level);
	return g < 0 ? NULL : &t->groups[level][g].pus;
}

unsigned vtb_topo_distance(const struct vtb_topo *t, size_t i, size_t j)
{
	if (!t->distances || i >= t->n_nodes || j >= t->n_nodes)
		return 0;
	return t->distances[i * t->n_nodes + j];
}

bool vtb_topo_node_capacity(const struct vtb_topo *t, size_t i, bool hugepages, uint64_t *bytes,
			    bool *free_known)
{
	const struct vtb_topo_node *n = i < t->n_nodes ? &t->nodes[i] : NULL;

	*bytes = 0;
	if (free_known)
		*free_known = n && (!hugepages || n->hugepages_free >= 0);
	if (!n || !n->memory)
		return false;
	if (!hugepages) {
		*bytes = n->normal ? n->normal : n->memory;
		return true;
	}
	if (n->hugepages_free < 0 && n->hugepages < 0)
		return false;
	*bytes = (uint64_t)(n->hugepages_free >= 0 ? n->hugepages_free : n->hugepages) *
		 VTB_TOPO_HUGEPAGE;
	return true;
}

static const struct vtb_topo_pu *online_pu(const struct vtb_topo *t, int os)
{
	const struct vtb_topo_pu *p = vtb_topo_pu_by_os(t, os);

	if (!p || !p->online) {
		vtb_error("CPU %d is not in the host topology", os);
		return NULL;
	}
	return p;
}

int vtb_topo_llc_bytes(const struct vtb_topo *t, const struct vtb_cpuset *cpus, uint64_t *out)
{
	bool *seen = calloc(t->n_groups[VTB_TOPO_LLC] + 1, sizeof(bool));
	uint64_t sum = 0;
	size_t i;

	if (!seen)
		return vtb_error("out of memory");
	for (i = 0; i < cpus->n; i++) {
		const struct vtb_topo_pu *p = online_pu(t, cpus->cpus[i]);

		if (!p) {
			free(seen);
			return -1;
		}
		if (p->llc < 0 || seen[p->llc])
			continue;
		seen[p->llc] = true;
		sum += t->groups[VTB_TOPO_LLC][p->llc].size;
	}
	free(seen);
	*out = sum;
	return 0;
}

int vtb_topo_nodes_of(const struct vtb_topo *t, const struct vtb_cpuset *cpus,
		      struct vtb_cpuset *out)
{
	size_t i;

	out->cpus = NULL;
	out->n = 0;
	for (i = 0; i < cpus->n; i++) {
		const struct vtb_topo_pu *p = online_pu(t, cpus->cpus[i]);

		if (!p || (p->node >= 0 && vtb_cpuset_add(out, t->nodes[p->node].os))) {
			vtb_cpuset_release(out);
			return -1;
		}
	}
	return 0;
}

/* A group by its lowest OS number: the same whichever source numbered it. */
static int group_name(const struct vtb_topo *t, int level, int g)
{
	const struct vtb_cpuset *s = g < 0 ? NULL : &t->groups[level][g].pus;

	return s && s->n ? s->cpus[0] : -1;
}

int vtb_topo_digest(const struct vtb_topo *t, char out[65])
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int os, ret = 0;
	size_t i;

	for (os = 0; os <= t->max_os && !ret; os++) {
		const struct vtb_topo_pu *p = vtb_topo_pu_by_os(t, os);

		if (!p || !p->online)
			continue;
		ret = vtb_strbuf_addf(
			&sb, "pu %d core %d llc %d/%llu die %d pkg %d node %d\n", p->os,
			group_name(t, VTB_TOPO_CORE, p->core), group_name(t, VTB_TOPO_LLC, p->llc),
			p->llc < 0 ? 0ULL
				   : (unsigned long long)t->groups[VTB_TOPO_LLC][p->llc].size,
			group_name(t, VTB_TOPO_DIE, p->die), group_name(t, VTB_TOPO_PKG, p->pkg),
			p->node < 0 ? -1 : t->nodes[p->node].os);
	}
	for (i = 0; i < t->n_nodes && !ret; i++)
		if (!t->nodes[i].pus.n)
			ret = vtb_strbuf_addf(&sb, "node %d no cpus\n", t->nodes[i].os);
	if (!ret)
		ret = vtb_sha256_hex(sb.buf ? sb.buf : "", sb.len, out);
	vtb_strbuf_release(&sb);
	return ret;
}

void vtb_topo_release(struct vtb_topo *t)
{
	size_t i;
	int level;

	if (!t)
		return;
	for (level = 0; level < VTB_TOPO_NLEVELS; level++) {
		for (i = 0; i < t->n_groups[level]; i++)
			vtb_cpuset_release(&t->groups[level][i].pus);
		free(t->groups[level]);
	}
	for (i = 0; i < t->n_nodes; i++)
		vtb_cpuset_release(&t->nodes[i].pus);
	free(t->nodes);
	free(t->pus);
	free(t->distances);
	free(t->by_os);
	memset(t, 0, sizeof(*t));
}
