/* SPDX-License-Identifier: MIT */
/*
 * Guest memory against the host nodes a placement binds it to: the
 * first misfit makes the plan not runnable (p->why_not), nodes of unknown
 * memory are said in a note.
 */
#include <stdlib.h>

#include "planint.h"

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

/* What pl_mem_check() finds on the way, per host node index. */
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
				int n = pl_node_index(t, m->cells[c].host_node);

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
		int n = pl_node_index(t, m->nodes.cpus[i]);
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

		r = pl_note(
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
	    pl_note(p, -1,
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
int pl_mem_check(struct ctx *x)
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
