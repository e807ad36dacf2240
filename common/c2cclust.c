/* SPDX-License-Identifier: MIT */
/*
 * c2c's pure logic: pair planning, medians, average-linkage clustering
 * with gap detection on the merge heights, the sysfs topology used to
 * name the levels, and the matrix as JSON.  See c2cclust.h.
 *
 * Why average linkage and not gaps in the raw sorted latencies: raw
 * values carry every pair's noise and outliers (a pair hit by an
 * interrupt, a preempted vCPU), and single linkage lets one low value
 * glue two nodes together.  A UPGMA merge height is the mean over all
 * measured pairs between two clusters, so noise averages out as clusters
 * grow, heights never decrease, and a gap between consecutive heights is
 * a gap between levels of the machine.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "c2cclust.h"
#include "sysfs.h"

const char *const vtb_c2c_kind_names[VTB_C2C_N_KINDS] = { "smt", "llc", "package", "node" };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double vtb_c2c_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool sampled_pair(const size_t *rep_of, bool against_all, size_t a, size_t b)
{
	if (against_all)
		return rep_of[a] == a || rep_of[b] == b;
	return (rep_of[a] == a && rep_of[b] == b) || rep_of[b] == a;
}

int vtb_c2c_plan(size_t n, const size_t *rep_of, bool against_all, struct vtb_c2c_pair **out,
		 size_t *n_out)
{
	struct vtb_c2c_pair *p = NULL;
	size_t a, b, k = 0, count = 0;

	*out = NULL;
	*n_out = 0;
	if (n > UINT32_MAX)
		return vtb_error("too many cpus for c2c: %zu", n);
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			if (!rep_of || sampled_pair(rep_of, against_all, a, b))
				count++;
	if (count == 0)
		return 0;
	p = calloc(count, sizeof(*p));
	if (!p)
		return vtb_error("out of memory");
	for (a = 0; a < n; a++) {
		for (b = a + 1; b < n; b++) {
			if (rep_of && !sampled_pair(rep_of, against_all, a, b))
				continue;
			p[k].a = (uint32_t)a;
			p[k].b = (uint32_t)b;
			k++;
		}
	}
	*out = p;
	*n_out = count;
	return 0;
}

double vtb_c2c_expected_seconds(size_t pairs, uint64_t time_ns, long long rounds)
{
	double t = (double)time_ns,
	       batches = (VTB_C2C_MIN_BATCHES + 1) * (double)rounds * VTB_C2C_RT_ESTIMATE_NS;

	if (batches > 2 * t)
		batches = 2 * t; /* the batch is cut there */
	return (double)pairs * (batches > t ? batches : t) * 1e-9;
}

/* The pair's value: the mean of both directions when both are finite. */
static double pair_value(const double *m, size_t n, size_t i, size_t j)
{
	double x = m[i * n + j], y = m[j * n + i];

	if (isfinite(x) && isfinite(y))
		return (x + y) / 2;
	if (isfinite(x))
		return x;
	if (isfinite(y))
		return y;
	return NAN;
}

struct linkage {
	size_t n;
	double *sum;   /* n x n: sum of measured pair values between clusters */
	uint32_t *cnt; /* n x n: how many */
	bool *active;  /* slot i holds a cluster (whose smallest member is i) */
	size_t *nn;    /* nearest active slot, SIZE_MAX when none is linked */
	double *nnd;   /* its distance */
	size_t *label; /* position -> slot */
};

static void nn_update(struct linkage *l, size_t i)
{
	size_t j, n = l->n;

	l->nn[i] = SIZE_MAX;
	l->nnd[i] = INFINITY;
	for (j = 0; j < n; j++) {
		double d;

		if (j == i || !l->active[j] || l->cnt[i * n + j] == 0)
			continue;
		d = l->sum[i * n + j] / l->cnt[i * n + j];
		if (d < l->nnd[i]) {
			l->nnd[i] = d;
			l->nn[i] = j;
		}
	}
}

/* Merges slot b into slot a (a < b) and repairs the nearest-neighbour
 * cache: rows that pointed at a or b are rescanned, others may now find
 * the merged cluster closer. */
static void merge(struct linkage *l, size_t a, size_t b)
{
	size_t x, n = l->n;

	l->active[b] = false;
	for (x = 0; x < n; x++) {
		if (!l->active[x] || x == a)
			continue;
		l->sum[a * n + x] += l->sum[b * n + x];
		l->cnt[a * n + x] += l->cnt[b * n + x];
		l->sum[x * n + a] = l->sum[a * n + x];
		l->cnt[x * n + a] = l->cnt[a * n + x];
	}
	for (x = 0; x < n; x++)
		if (l->label[x] == b)
			l->label[x] = a;
	nn_update(l, a);
	for (x = 0; x < n; x++) {
		double d;

		if (!l->active[x] || x == a)
			continue;
		if (l->nn[x] == a || l->nn[x] == b) {
			nn_update(l, x);
			continue;
		}
		if (l->cnt[x * n + a] == 0)
			continue;
		d = l->sum[x * n + a] / l->cnt[x * n + a];
		if (d < l->nnd[x]) {
			l->nnd[x] = d;
			l->nn[x] = a;
		}
	}
}

static void linkage_release(struct linkage *l)
{
	free(l->sum);
	free(l->cnt);
	free(l->active);
	free(l->nn);
	free(l->nnd);
	free(l->label);
}

struct merge_step {
	size_t a, b;
	double h;
};

size_t vtb_c2c_count_groups(const size_t *of, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (of[i] == i)
			k++;
	return k;
}

void vtb_c2c_clusters_release(struct vtb_c2c_clusters *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n_levels; i++)
		free(c->levels[i].cluster_of);
	free(c->levels);
	c->levels = NULL;
	c->n_levels = 0;
}

/* Mean of the measured pairs joined by level @cur (not yet by @prev). */
static void level_mean(const double *m, size_t n, const size_t *prev, struct vtb_c2c_level *lv)
{
	double s = 0;
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			double v;

			if (lv->cluster_of[i] != lv->cluster_of[j])
				continue;
			if (prev && prev[i] == prev[j])
				continue;
			v = pair_value(m, n, i, j);
			if (!isfinite(v))
				continue;
			s += v;
			k++;
		}
	}
	lv->n_pairs = k;
	lv->mean_ns = k ? s / (double)k : NAN;
}

/* Every cpu a cluster of its own, the measured pairs their distances. */
static int linkage_init(struct linkage *l, const double *m, size_t n)
{
	size_t i, j;

	l->sum = calloc(n * n, sizeof(*l->sum));
	l->cnt = calloc(n * n, sizeof(*l->cnt));
	l->active = calloc(n, sizeof(*l->active));
	l->nn = calloc(n, sizeof(*l->nn));
	l->nnd = calloc(n, sizeof(*l->nnd));
	l->label = calloc(n, sizeof(*l->label));
	if (!l->sum || !l->cnt || !l->active || !l->nn || !l->nnd || !l->label)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++) {
		l->active[i] = true;
		l->label[i] = i;
		for (j = i + 1; j < n; j++) {
			double v = pair_value(m, n, i, j);

			if (!isfinite(v))
				continue;
			l->sum[i * n + j] = l->sum[j * n + i] = v;
			l->cnt[i * n + j] = l->cnt[j * n + i] = 1;
		}
	}
	for (i = 0; i < n; i++)
		nn_update(l, i);
	return 0;
}

/* Merges the closest pair of clusters until none is left to merge;
 * each merge into steps[*nsteps] (at most n - 1 of them). */
static void linkage_run(struct linkage *l, struct merge_step *steps, size_t *nsteps)
{
	*nsteps = 0;
	for (;;) {
		size_t best = SIZE_MAX, a, b;
		double bd = INFINITY;

		for (size_t i = 0; i < l->n; i++) {
			if (l->active[i] && l->nn[i] != SIZE_MAX && l->nnd[i] < bd) {
				bd = l->nnd[i];
				best = i;
			}
		}
		if (best == SIZE_MAX)
			break;
		a = best < l->nn[best] ? best : l->nn[best];
		b = best < l->nn[best] ? l->nn[best] : best;
		steps[*nsteps].a = a;
		steps[*nsteps].b = b;
		steps[*nsteps].h = bd;
		(*nsteps)++;
		merge(l, a, b);
	}
}

/* Cuts the merge sequence into levels at the gaps: out->levels. */
static int cut_levels(const double *m, size_t n, const struct merge_step *steps, size_t nsteps,
		      double gap, struct vtb_c2c_clusters *out)
{
	size_t i, j, k, start, *label = calloc(n, sizeof(*label));

	if (!label)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++)
		label[i] = i;
	for (start = 0; start < nsteps; start = k) {
		struct vtb_c2c_level *lv, *nl;

		for (k = start + 1; k < nsteps; k++) {
			double prev = steps[k - 1].h, h = steps[k].h;

			if (h > prev * (1 + gap) && h - prev >= VTB_C2C_MIN_GAP_NS)
				break;
		}
		nl = realloc(out->levels, (out->n_levels + 1) * sizeof(*nl));
		if (!nl)
			goto oom;
		out->levels = nl;
		lv = &nl[out->n_levels];
		memset(lv, 0, sizeof(*lv));
		lv->cluster_of = calloc(n, sizeof(size_t));
		if (!lv->cluster_of)
			goto oom;
		out->n_levels++;
		lv->lo_ns = steps[start].h;
		lv->hi_ns = steps[k - 1].h;
		for (j = start; j < k; j++)
			for (i = 0; i < n; i++)
				if (label[i] == steps[j].b)
					label[i] = steps[j].a;
		memcpy(lv->cluster_of, label, n * sizeof(size_t));
		lv->n_clusters = vtb_c2c_count_groups(label, n);
		level_mean(m, n,
			   out->n_levels > 1 ? out->levels[out->n_levels - 2].cluster_of : NULL,
			   lv);
	}
	free(label);
	return 0;
oom:
	free(label);
	return vtb_error("out of memory");
}

int vtb_c2c_cluster(const double *m, size_t n, double gap, struct vtb_c2c_clusters *out)
{
	struct linkage l = { .n = n };
	struct merge_step *steps = NULL;
	size_t nsteps = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!(gap >= 0) || !isfinite(gap))
		return vtb_error("invalid clustering gap %g", gap);
	if (n < 2)
		return 0;
	if (n > SIZE_MAX / n / sizeof(double)) {
		vtb_error("matrix of %zu cpus is too large", n);
		goto out;
	}
	steps = calloc(n, sizeof(*steps));
	if (!steps) {
		vtb_error("out of memory");
		goto out;
	}
	if (linkage_init(&l, m, n))
		goto out;
	linkage_run(&l, steps, &nsteps);
	if (cut_levels(m, n, steps, nsteps, gap, out))
		goto out;
	ret = 0;
out:
	if (ret)
		vtb_c2c_clusters_release(out);
	linkage_release(&l);
	free(steps);
	return ret;
}

/* ---- what sysfs claims ---- */

static char *read_cpu_attr(const char *root, int cpu, const char *rel)
{
	char *path = vtb_asprintf("%s/cpu%d/%s", root, cpu, rel);
	char *s;

	if (!path) {
		vtb_error("out of memory");
		return NULL;
	}
	s = vtb_read_file(path, 1 << 16);
	free(path);
	return s;
}

static int read_cpu_list(const char *root, int cpu, const char *rel, struct vtb_cpuset *set)
{
	char *s = read_cpu_attr(root, cpu, rel);
	int ret;

	set->cpus = NULL;
	set->n = 0;
	if (!s)
		return -1;
	ret = vtb_cpuset_parse(s, set);
	if (ret)
		vtb_error("malformed cpu list in '%s/cpu%d/%s'", root, cpu, rel);
	free(s);
	return ret;
}

/* The shared_cpu_list of the highest data or unified cache of @cpu. */
static int read_llc_list(const char *root, int cpu, struct vtb_cpuset *set)
{
	long long best = -1;
	int idx;

	set->cpus = NULL;
	set->n = 0;
	for (idx = 0; idx < 32; idx++) {
		char rel[64];
		char *type, *level;
		long long lvl;
		int bad;

		snprintf(rel, sizeof(rel), "cache/index%d/type", idx);
		type = read_cpu_attr(root, cpu, rel);
		if (!type)
			continue;
		snprintf(rel, sizeof(rel), "cache/index%d/level", idx);
		level = read_cpu_attr(root, cpu, rel);
		bad = !level || vtb_parse_int(level, 0, 16, &lvl);
		if (!bad && strcmp(type, "Instruction") != 0 && lvl > best) {
			struct vtb_cpuset s;

			snprintf(rel, sizeof(rel), "cache/index%d/shared_cpu_list", idx);
			if (read_cpu_list(root, cpu, rel, &s)) {
				bad = 1;
			} else {
				vtb_cpuset_release(set);
				*set = s;
				best = lvl;
			}
		}
		free(type);
		free(level);
		if (bad) {
			vtb_cpuset_release(set);
			return vtb_error("malformed cache description of cpu %d in '%s'", cpu,
					 root);
		}
	}
	if (best < 0)
		return vtb_error("no cache information for cpu %d in '%s'", cpu, root);
	return 0;
}

static int read_node(const char *root, int cpu, long long *node)
{
	char *dir = vtb_asprintf("%s/cpu%d", root, cpu);
	struct dirent *de;
	DIR *d;
	int ret = -1;

	if (!dir)
		return vtb_error("out of memory");
	d = opendir(dir);
	if (!d) {
		vtb_error("cannot open '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "node", 4) == 0 &&
		    vtb_parse_int(de->d_name + 4, 0, 1 << 20, node) == 0) {
			ret = 0;
			break;
		}
	}
	if (ret)
		vtb_error("no node entry for cpu %d in '%s'", cpu, root);
	closedir(d);
	free(dir);
	return ret;
}

int vtb_c2c_sysfs_partition(const char *root, const struct vtb_cpuset *cpus, int kind, size_t *of)
{
	long long *node = NULL;
	size_t i, j;
	int ret = -1;

	if (!root)
		root = VTB_SYSFS_CPU_ROOT;
	if (kind < 0 || kind >= VTB_C2C_N_KINDS)
		return vtb_error("unknown topology kind %d", kind);
	if (kind == VTB_C2C_NODE) {
		node = calloc(cpus->n ? cpus->n : 1, sizeof(*node));
		if (!node)
			return vtb_error("out of memory");
	}
	for (i = 0; i < cpus->n; i++) {
		struct vtb_cpuset set = { 0 };
		int cpu = cpus->cpus[i], r;

		of[i] = i;
		switch (kind) {
		case VTB_C2C_SMT:
			r = read_cpu_list(root, cpu, "topology/thread_siblings_list", &set);
			break;
		case VTB_C2C_LLC:
			r = read_llc_list(root, cpu, &set);
			break;
		case VTB_C2C_PACKAGE:
			r = read_cpu_list(root, cpu, "topology/package_cpus_list", &set);
			if (r)
				r = read_cpu_list(root, cpu, "topology/core_siblings_list", &set);
			break;
		default:
			r = read_node(root, cpu, &node[i]);
			for (j = 0; !r && j < i; j++) {
				if (node[j] == node[i]) {
					of[i] = of[j];
					break;
				}
			}
			break;
		}
		if (r)
			goto out;
		/* the first cell CPU in the list: the group's smallest position */
		for (j = 0; kind != VTB_C2C_NODE && j < i; j++) {
			if (vtb_cpuset_has(&set, cpus->cpus[j])) {
				of[i] = of[j];
				break;
			}
		}
		vtb_cpuset_release(&set);
	}
	ret = 0;
out:
	free(node);
	return ret;
}

int vtb_c2c_topo_read(const char *root, const struct vtb_cpuset *cpus, struct vtb_c2c_topo *t)
{
	int k;

	memset(t, 0, sizeof(*t));
	t->n = cpus->n;
	for (k = 0; k < VTB_C2C_N_KINDS; k++) {
		t->of[k] = calloc(cpus->n ? cpus->n : 1, sizeof(size_t));
		if (!t->of[k]) {
			vtb_c2c_topo_release(t);
			return vtb_error("out of memory");
		}
		if (vtb_c2c_sysfs_partition(root, cpus, k, t->of[k])) {
			free(t->of[k]);
			t->of[k] = NULL;
		}
	}
	vtb_error_clear();
	return 0;
}

int vtb_c2c_sample_kind(const char *root, const struct vtb_cpuset *cpus, size_t *rep_of)
{
	static const int order[] = { VTB_C2C_SMT, VTB_C2C_LLC, VTB_C2C_NODE };
	size_t i, n = cpus->n;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t groups;

		if (vtb_c2c_sysfs_partition(root, cpus, order[i], rep_of))
			continue; /* sysfs lacks it: try the next kind */
		groups = vtb_c2c_count_groups(rep_of, n);
		/* SMT: one core is still a gain (its siblings pair only with
		 * their representative); an LLC or a node of every CPU would
		 * leave one representative's row, too little to cluster. */
		if (groups < n && (order[i] == VTB_C2C_SMT || groups > 1)) {
			vtb_error_clear();
			return order[i];
		}
	}
	vtb_error_clear();
	return -1;
}

json_t *vtb_c2c_level_names(const struct vtb_c2c_topo *t, const struct vtb_c2c_level *lv, size_t k)
{
	json_t *a = json_array();
	char name[32];
	int kind;

	for (kind = 0; a && kind < VTB_C2C_N_KINDS; kind++) {
		if (!t->of[kind] || memcmp(t->of[kind], lv->cluster_of, t->n * sizeof(size_t)) != 0)
			continue;
		if (json_array_append_new(a, json_string(vtb_c2c_kind_names[kind])))
			goto fail;
	}
	if (a && json_array_size(a) == 0) {
		if (lv->n_clusters == 1)
			snprintf(name, sizeof(name), "machine");
		else
			snprintf(name, sizeof(name), "unmatched%zu", k);
		if (json_array_append_new(a, json_string(name)))
			goto fail;
	}
	return a;
fail:
	json_decref(a);
	return NULL;
}

void vtb_c2c_topo_release(struct vtb_c2c_topo *t)
{
	int k;

	if (!t)
		return;
	for (k = 0; k < VTB_C2C_N_KINDS; k++) {
		free(t->of[k]);
		t->of[k] = NULL;
	}
}

/* ---- JSON ---- */

double vtb_c2c_round_quarter(double v)
{
	return round(v * 4) / 4;
}

json_t *vtb_c2c_matrix_json(const struct vtb_cpuset *cpus, const double *m)
{
	json_t *jc = json_array(), *rows = json_array();
	size_t i, j, n = cpus->n;

	if (!jc || !rows)
		goto fail;
	for (i = 0; i < n; i++) {
		json_t *row = json_array();

		/* append_new steals (and frees on failure), NULL included */
		if (json_array_append_new(rows, row) ||
		    json_array_append_new(jc, json_integer(cpus->cpus[i])))
			goto fail;
		for (j = 0; j < n; j++) {
			double v = m[i * n + j];

			if (json_array_append_new(row, isfinite(v)
							       ? json_real(vtb_c2c_round_quarter(v))
							       : json_null()))
				goto fail;
		}
	}
	/* "o" steals both references, also when packing fails */
	return json_pack("{s:o, s:o}", "cpus", jc, "ns", rows);
fail:
	json_decref(jc);
	json_decref(rows);
	return NULL;
}
