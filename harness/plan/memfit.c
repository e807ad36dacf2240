/* SPDX-License-Identifier: MIT */
/*
 * Memory feasibility and membw's size = auto, at matrix resolution
 * (memfit.h).  Every figure a refusal prints is computed here from the
 * configuration's parameters and the host model, never from a boot.
 */
#include "memfit.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/index.h"
#include "../../workloads/workload.h"
#include "../host/topo.h"

#define MiB (UINT64_C(1) << 20)

/*
 * Measured (docs/guest-runs.md "Memory feasibility" has the table and the commands):
 * TCG guests of Debian 12's kernel 6.1.0-57-amd64 with the agent as init
 * and the pc machine, 1 to 16 vCPUs, 160 MiB to 16 GiB; the agent's
 * header record gives MemTotal and MemAvailable, read before any cell
 * runs.  memory - MemAvailable was 72 MiB at 160 MiB, 83 at 512 MiB, 165
 * at 1 GiB, 187 at 2 GiB, 332 at 4 GiB (the PCI hole and the 64 MiB
 * swiotlb buffer once RAM passes 4 GiB), 424 at 8 GiB and 603 at 16 GiB
 * with 2 vCPUs; each vCPU added about 1.5 MiB (188 MiB at 1 GiB with 16
 * vCPUs).  The model is an envelope over all of them with a margin of at
 * least 30 MiB (the least, at 4 GiB; hundreds of MiB for large guests),
 * for other kernels and KVM: 200 MiB + 4% of the memory + 2 MiB per vCPU.
 */
uint64_t vtb_guest_reserve(uint64_t memory, long vcpus)
{
	uint64_t r = 200 * MiB + memory / 25;

	if (vcpus > 0)
		r += (uint64_t)vcpus * 2 * MiB;
	return r;
}

/* A memory a configuration's cells run in: its size and words for
 * messages. */
struct room {
	bool known;
	uint64_t avail;	 /* what MemAvailable is expected to be at least */
	char *what;	 /* "the guest's available memory (memory = 1G, ...)" */
	const char *key; /* the key that changes it */
};

struct cfg {
	struct vtb_config *c;
	size_t ncpus; /* vCPUs of one VM, or the baseline's CPUs */
	struct room room;
	size_t comp; /* union-find parent */
	struct vtb_cpuset *vm_sets; /* VM: each VM's pCPUs (from the plan) */
	size_t n_vm_sets;
};

static size_t find(struct cfg *cf, size_t i)
{
	while (cf[i].comp != i) {
		cf[i].comp = cf[cf[i].comp].comp;
		i = cf[i].comp;
	}
	return i;
}

static void unite(struct cfg *cf, size_t a, size_t b)
{
	a = find(cf, a);
	b = find(cf, b);
	if (a != b)
		cf[a > b ? a : b].comp = a < b ? a : b;
}

/* "1G" for 1073741824 (labels use the matrix's binary units). */
static char *fmt(uint64_t bytes)
{
	char *s = vtb_format_size(bytes);

	return s ? s : vtb_strdup("?");
}

static int set_copy(struct vtb_cpuset *dst, const struct vtb_cpuset *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (vtb_cpuset_add(dst, src->cpus[i]) < 0)
			return -1;
	return 0;
}

/* Each VM's pCPUs, from the plan (one set, the configuration's,
 * without a plan). */
static int vm_sets(struct cfg *f)
{
	const struct vtb_config *c = f->c;
	size_t k, n = c->n_vm_cpus ? c->n_vm_cpus : 1;

	f->vm_sets = calloc(n, sizeof(*f->vm_sets));
	if (!f->vm_sets)
		return vtb_error("out of memory");
	for (k = 0; k < c->n_vm_cpus; k++)
		if (set_copy(&f->vm_sets[k], &c->vm_cpus[k]) < 0)
			return -1;
	f->n_vm_sets = c->n_vm_cpus;
	if (!f->n_vm_sets) {
		if (set_copy(&f->vm_sets[0], &c->cpus) < 0)
			return -1;
		f->n_vm_sets = 1;
	}
	return 0;
}

/* The room of a VM configuration: one guest's memory minus its reserve. */
static int vm_room(struct cfg *f)
{
	uint64_t mem = f->c->req.memory_bytes;
	uint64_t res = vtb_guest_reserve(mem, (long)f->ncpus);
	char *m = fmt(mem), *r = fmt(res), *a;

	f->room.known = true;
	f->room.avail = mem > res ? mem - res : 0;
	a = fmt(f->room.avail);
	f->room.what = vtb_asprintf(
		"the guest's available memory (about %s: memory = %s less about %s for the guest kernel and agent)",
		a, m, r);
	f->room.key = "[vm] memory";
	free(m);
	free(r);
	free(a);
	return f->room.what ? 0 : vtb_error("out of memory");
}

/* The room of a baseline: the memory of the host nodes it is bound to,
 * as the host model gives it (unknown without one, or for a node of
 * unknown size). */
static int baseline_room(struct cfg *f, const struct vtb_host_ctx *h)
{
	const struct vtb_topo *t = h->model;
	struct vtb_cpuset nodes = { NULL, 0 };
	uint64_t sum = 0;
	size_t i, j;
	char *s;

	if (!t || !f->c->mems || vtb_cpuset_parse(f->c->mems, &nodes) < 0 || !nodes.n) {
		vtb_error_clear();
		vtb_cpuset_release(&nodes);
		return 0;
	}
	for (i = 0; i < nodes.n; i++) {
		for (j = 0; j < t->n_nodes && t->nodes[j].os != nodes.cpus[i]; j++)
			;
		if (j == t->n_nodes || !t->nodes[j].memory) {
			vtb_cpuset_release(&nodes);
			return 0;
		}
		sum += t->nodes[j].memory;
	}
	s = fmt(sum);
	f->room.known = true;
	f->room.avail = sum;
	if (h->mem_available && h->mem_available < sum) {
		/* this host, now: the nodes hold less than their size */
		char *a = fmt(h->mem_available);

		f->room.avail = h->mem_available;
		f->room.what = vtb_asprintf("the memory of host node%s %s (%s, %s available now)",
					    nodes.n > 1 ? "s" : "", f->c->mems, s, a);
		free(a);
	} else {
		f->room.what = vtb_asprintf("the memory of host node%s %s (%s)",
					    nodes.n > 1 ? "s" : "", f->c->mems, s);
	}
	f->room.key = "[baseline] cpus or cpuset (the nodes follow the CPUs)";
	free(s);
	vtb_cpuset_release(&nodes);
	return f->room.what ? 0 : vtb_error("out of memory");
}

/* The largest array size in whole mebibytes whose 3 arrays fit in
 * @avail as the agent checks it (vtb_mem_fits()). */
static uint64_t fitting_size(uint64_t avail)
{
	uint64_t share = avail / 100 * VTB_MEM_SHARE_PCT;

	return share ? (share - 1) / 3 / MiB * MiB : 0;
}

/* LLC bytes one guest of VM configuration @f sees: the most of any of
 * its VMs (each guest runs the cells alone); its resolved llc otherwise. */
static int cell_llc(const struct cfg *f, const struct vtb_cell *cell,
		    const struct vtb_host_ctx *h, uint64_t *out)
{
	const char *v = vtb_params_get(&cell->resolved, "llc");
	uint64_t best = 0, b;

	*out = v && strcmp(v, "auto") ? strtoull(v, NULL, 10) : 0;
	if (f->c->kind != VTB_CONFIG_VM || f->n_vm_sets < 2 || !h->llc_bytes)
		return 0;
	for (size_t k = 0; k < f->n_vm_sets; k++) {
		if (h->llc_bytes(h, &f->vm_sets[k], &b) < 0 || !b) {
			vtb_error_clear();
			return 0;
		}
		if (b > best)
			best = b;
	}
	*out = best;
	return 0;
}

/* membw threads (auto: one per CPU) x a cache line: the smallest size. */
static uint64_t min_size(const struct cfg *f, const struct vtb_cell *cell)
{
	const char *t = vtb_params_get(&cell->resolved, "threads");
	uint64_t n = t && strcmp(t, "auto") ? strtoull(t, NULL, 10) : f->ncpus;

	return n * 64 > MiB ? n * 64 : MiB;
}

/* A membw cell and its configuration, and the group fit_membw() sizes
 * together: the cells of one name in one component. */
struct fit_cell {
	size_t cfg, root, group;
	struct vtb_cell *cell;
};

/*
 * membw size = auto for the cells @fc (@n of them: one name, one
 * component, in the order of their configurations): 4 x LLC rounded up
 * to a mebibyte, or the largest size that fits every room of the
 * component when that is less.  Every configuration of the component
 * gets the same size (a VM and its baseline move the same bytes).
 */
static int fit_membw(struct cfg *cf, const struct fit_cell *fc, size_t n,
		     const struct vtb_host_ctx *h)
{
	uint64_t llc = 0, rule, cap = UINT64_MAX, size, l;
	const struct cfg *binding = NULL;
	bool unknown = false;
	struct vtb_cell *cell;
	char *sz = NULL, *val = NULL, *lv = NULL, *note = NULL, *rs = NULL, *ls = NULL;
	int ret = -1;

	for (size_t k = 0; k < n; k++) {
		const struct cfg *f = &cf[fc[k].cfg];

		cell = fc[k].cell;
		if (cell_llc(f, cell, h, &l) < 0)
			return -1;
		if (!l)
			unknown = true;
		if (l > llc)
			llc = l;
		/* what cannot run (or cannot hold even the smallest arrays, and
		 * is refused below) does not shrink the others' arrays */
		if (f->c->runnable && f->room.known &&
		    fitting_size(f->room.avail) >= min_size(f, cell) &&
		    fitting_size(f->room.avail) < cap) {
			cap = fitting_size(f->room.avail);
			binding = f;
		}
	}
	if (unknown) {
		/* the agent resolves it where it runs, and cuts it to fit there */
		for (size_t k = 0; k < n; k++)
			if (!(cell = fc[k].cell)->note &&
			    !(cell->note = vtb_strdup(
				      "size = auto: the host model gives no LLC size, so the agent takes 4 x the LLC it finds where it runs (guest and host may differ), or the most that fits its memory")))
				return vtb_error("out of memory");
		return 0;
	}
	rule = (4 * llc + MiB - 1) / MiB * MiB;
	size = rule < cap ? rule : cap;
	sz = fmt(size);
	rs = fmt(4 * llc);
	ls = fmt(llc);
	val = vtb_asprintf("%" PRIu64, size);
	lv = vtb_asprintf("%" PRIu64, llc);
	if (!lv)
		goto oom;
	if (size < 4 * llc && binding)
		note = vtb_asprintf(
			"size = auto: arrays of %s, %.1f%% of STREAM's 4 x LLC (4 x %s = %s), the most that fits %s; VM and baseline alike",
			sz, 100.0 * (double)size / (4.0 * (double)llc), ls, rs, binding->room.what);
	if (!val || (size < 4 * llc && binding && !note))
		goto oom;
	for (size_t k = 0; k < n; k++) {
		const struct cfg *f = &cf[fc[k].cfg];

		cell = fc[k].cell;
		if (vtb_cell_set_resolved(cell, "size", val) < 0)
			goto out;
		/* side by side: the LLC of one guest's share, as its baseline */
		if (f->c->kind == VTB_CONFIG_VM && f->n_vm_sets > 1 &&
		    vtb_cell_set_resolved(cell, "llc", lv) < 0)
			goto out;
		if (note && !(cell->note = vtb_strdup(note)))
			goto oom;
	}
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	free(sz);
	free(rs);
	free(ls);
	free(val);
	free(lv);
	free(note);
	return ret;
}

/* The need of @cell run on @ncpus CPUs: 0 with *need, 1 unknown. */
static int cell_need(const struct vtb_cell *cell, size_t ncpus, uint64_t *need)
{
	const struct vtb_workload_ops *w = vtb_workload_find(cell->workload);
	const char **names = NULL, **vals = NULL;
	void *params = NULL;
	int ret = -1;

	*need = 0;
	if (!w || !w->memory_need)
		return 1;
	names = calloc(cell->resolved.n + 1, sizeof(*names));
	vals = calloc(cell->resolved.n + 1, sizeof(*vals));
	if (!names || !vals) {
		ret = vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < cell->resolved.n; i++) {
		names[i] = cell->resolved.kv[i].key;
		vals[i] = cell->resolved.kv[i].value;
	}
	if (vtb_workload_params(w, names, vals, cell->resolved.n, &params) < 0)
		goto out;
	ret = vtb_workload_memory_need(w, params, ncpus, need);
out:
	vtb_workload_params_free(params);
	free(names);
	free(vals);
	return ret;
}

/* Whether every cell of @f fits its room; else why_not (in one buffer:
 * joining the reasons string by string was quadratic in the cells that
 * do not fit). */
static int check_config(struct cfg *f)
{
	struct vtb_config *c = f->c;
	uint64_t share = f->room.avail / 100 * VTB_MEM_SHARE_PCT;
	struct vtb_strbuf why = VTB_STRBUF_INIT;
	bool too_small;
	int ret = -1;

	if (!c->runnable || !f->room.known)
		return 0;
	too_small = c->kind == VTB_CONFIG_VM && fitting_size(f->room.avail) < MiB;
	if (too_small) {
		uint64_t mem = c->req.memory_bytes;
		char *m = fmt(mem), *r = fmt(vtb_guest_reserve(mem, (long)f->ncpus));
		int added = vtb_strbuf_addf(
			&why,
			"memory = %s leaves the workloads no room: the guest kernel and agent keep about %s of it: raise [vm] memory",
			m, r);

		free(m);
		free(r);
		if (added < 0)
			goto out;
	}
	for (size_t j = 0; !too_small && j < c->n_cells; j++) {
		const struct vtb_cell *cell = &c->cells[j];
		const struct vtb_workload_ops *w = vtb_workload_find(cell->workload);
		uint64_t need = 0;
		char *ns, *ss;
		int r = cell_need(cell, f->ncpus, &need);

		if (r < 0)
			goto out;
		if (r > 0 || vtb_mem_fits(need, f->room.avail))
			continue;
		ns = fmt(need);
		ss = fmt(share);
		r = vtb_strbuf_addf(
			&why,
			"%s[workload %s] (%s) needs about %s, more than %d%% of %s = %s: raise %s%s%s",
			why.len ? "; " : "", cell->name, cell->workload, ns, VTB_MEM_SHARE_PCT,
			f->room.what, ss, f->room.key, w && w->memory_keys ? " or lower " : "",
			w && w->memory_keys ? w->memory_keys : "");
		free(ns);
		free(ss);
		if (r < 0)
			goto out;
	}
	if (why.len) {
		c->runnable = false;
		free(c->why_not);
		c->why_not = vtb_strbuf_detach(&why);
	}
	ret = 0;
out:
	vtb_strbuf_release(&why);
	return ret;
}

/*
 * A VM configuration and the baselines on its (each VM's) pCPUs are one
 * component.  The baselines are indexed by their set: every VM against
 * every configuration was quadratic (10k configurations: 10^8 pairs).
 */
static int pair_baselines(struct cfg *cf, size_t n)
{
	struct vtb_index x = VTB_INDEX_INIT;
	size_t i, j, k, pos;
	int ret = -1;

	for (j = 0; j < n; j++)
		if (cf[j].c->kind == VTB_CONFIG_BASELINE &&
		    vtb_index_add(&x, cf[j].c->cpus.cpus, cf[j].c->cpus.n * sizeof(int), j) < 0)
			goto out;
	for (i = 0; i < n; i++) {
		if (cf[i].c->kind != VTB_CONFIG_VM || !cf[i].c->cpus.n)
			continue;
		/* each VM's set, then the configuration's (all VMs') */
		for (k = 0; k <= cf[i].n_vm_sets; k++) {
			const struct vtb_cpuset *set = k < cf[i].n_vm_sets ? &cf[i].vm_sets[k]
									   : &cf[i].c->cpus;

			for (pos = 0;
			     vtb_index_next(&x, set->cpus, set->n * sizeof(int), &pos, &j);)
				if (vtb_cpuset_equal(set, &cf[j].c->cpus))
					unite(cf, i, j);
		}
	}
	ret = 0;
out:
	vtb_index_release(&x);
	return ret;
}

/* Whether membw's size = auto is still to be fitted in @cell. */
static bool wants_fit(const struct vtb_cell *cell)
{
	const char *size = vtb_params_get(&cell->params, "size");
	const char *rsize = vtb_params_get(&cell->resolved, "size");

	return size && !strcmp(size, "auto") && rsize && !strcmp(rsize, "auto") && !cell->note;
}

/* A group's key in @buf: the component, then the cell name. */
static int group_key(struct vtb_strbuf *buf, size_t root, const char *name)
{
	buf->len = 0;
	if (vtb_strbuf_add(buf, (const char *)&root, sizeof(root)) < 0)
		return -1;
	return vtb_strbuf_addstr(buf, name);
}

/*
 * membw size = auto, per component and cell name.  The cells are grouped
 * once (an index by component and name, then a counting sort), so each
 * group is fitted over its own cells: looking each one up by name in
 * every configuration of the matrix was quadratic in cells (25k membw
 * cells in one configuration: 3 s).
 */
static int fit_membw_all(struct cfg *cf, size_t n, const struct vtb_host_ctx *host)
{
	struct vtb_index x = VTB_INDEX_INIT;
	struct vtb_strbuf key = VTB_STRBUF_INIT;
	struct fit_cell *all = NULL, *sorted = NULL;
	size_t n_all = 0, n_groups = 0, *start = NULL, i, j, k, pos;
	bool *want = NULL;
	int ret = -1;

	for (i = 0; i < n; i++)
		for (j = 0; j < cf[i].c->n_cells; j++)
			n_all += !strcmp(cf[i].c->cells[j].workload, "membw");
	if (!n_all)
		return 0;
	all = calloc(n_all, sizeof(*all));
	sorted = calloc(n_all, sizeof(*sorted));
	want = calloc(n_all, sizeof(*want));
	start = calloc(n_all + 1, sizeof(*start));
	if (!all || !sorted || !want || !start) {
		ret = vtb_error("out of memory");
		goto out;
	}
	n_all = 0;
	for (i = 0; i < n; i++) {
		size_t root = find(cf, i);

		for (j = 0; j < cf[i].c->n_cells; j++) {
			struct vtb_cell *cell = &cf[i].c->cells[j];
			struct fit_cell *fc = &all[n_all];

			if (strcmp(cell->workload, "membw"))
				continue;
			if (group_key(&key, root, cell->name) < 0)
				goto out;
			*fc = (struct fit_cell){
				.cfg = i, .root = root, .group = n_groups, .cell = cell
			};
			for (pos = 0; vtb_index_next(&x, key.buf, key.len, &pos, &k);)
				if (all[k].root == root && !strcmp(all[k].cell->name, cell->name)) {
					fc->group = all[k].group;
					break;
				}
			if (fc->group == n_groups) {
				if (vtb_index_add(&x, key.buf, key.len, n_all) < 0)
					goto out;
				n_groups++;
			}
			if (wants_fit(cell))
				want[fc->group] = true;
			start[fc->group + 1]++;
			n_all++;
		}
	}
	/* a stable counting sort: each group in the order of its
	 * configurations, as fit_membw() picks the first that binds */
	for (k = 0; k < n_groups; k++)
		start[k + 1] += start[k];
	for (k = 0; k < n_all; k++)
		sorted[start[all[k].group]++] = all[k];
	for (k = n_groups; k > 0; k--)
		start[k] = start[k - 1];
	start[0] = 0;
	for (k = 0; k < n_groups; k++)
		if (want[k] && fit_membw(cf, sorted + start[k], start[k + 1] - start[k], host) < 0)
			goto out;
	ret = 0;
out:
	vtb_index_release(&x);
	vtb_strbuf_release(&key);
	free(all);
	free(sorted);
	free(want);
	free(start);
	return ret;
}

int vtb_matrix_fit_memory(struct vtb_matrix *m, const struct vtb_host_ctx *host)
{
	size_t n = m->n_configs, i, k;
	struct cfg *cf = calloc(n ? n : 1, sizeof(*cf));
	int ret = -1;

	if (!cf)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++) {
		struct cfg *f = &cf[i];

		f->c = &m->configs[i];
		f->comp = i;
		if (f->c->kind == VTB_CONFIG_VM) {
			f->ncpus = (size_t)f->c->req.vcpus;
			if (vm_sets(f) < 0 || vm_room(f) < 0)
				goto out;
		} else {
			f->ncpus = f->c->cpus.n;
			if (baseline_room(f, host) < 0)
				goto out;
		}
	}
	if (pair_baselines(cf, n) < 0 || fit_membw_all(cf, n, host) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (check_config(&cf[i]) < 0)
			goto out;
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		free(cf[i].room.what);
		for (k = 0; k < cf[i].n_vm_sets; k++)
			vtb_cpuset_release(&cf[i].vm_sets[k]);
		free(cf[i].vm_sets);
	}
	free(cf);
	return ret;
}
