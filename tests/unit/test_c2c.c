/* SPDX-License-Identifier: MIT */
/*
 * c2c: option validation, pair planning (full and sampled), medians, the
 * clustering on hand-made matrices shaped like real machines (SMT pairs
 * inside LLCs inside nodes, EPYC-like CCXs, two sockets) with seeded
 * noise, the sysfs topology reader on a fake tree, the matrix as JSON,
 * a 512-CPU matrix through the record writer and parser (chunked and
 * reassembled), and a real ping-pong on two CPUs.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../harness/records/recparse.h"
#include "../../common/c2cclust.h"
#include "../../common/record.h"
#include "../../common/sysfs.h"
#include "../../workloads/workload.h"
#include "wltest.h"

static void setup(void)
{
	W = vtb_workload_find("c2c");
	cr_assert_not_null(W);
}

TestSuite(c2c, .init = setup);

static void *new_params(void)
{
	return wl_new_params();
}

/* ---- options ---- */

Test(c2c, registered_and_names_its_reference)
{
	cr_assert_eq(vtb_workloads_check(), 0, "%s", vtb_errmsg());
	cr_assert_not(W->hidden);
	cr_assert(strstr(W->summary, "core-to-core-latency"), "%s", W->summary);
}

Test(c2c, bad_values_are_rejected_naming_the_option)
{
	void *p = new_params();

	cr_assert_eq(set(p, "mode", "some"), -1);
	cr_assert(strstr(vtb_errmsg(), "sampled"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "time", "1us"), -1);
	cr_assert(strstr(vtb_errmsg(), "time"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "time", "forever"), -1);
	cr_assert_eq(set(p, "rounds", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "rounds"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "batches", "2"), -1);
	cr_assert_eq(set(p, "gap", "1"), -1);
	cr_assert_eq(set(p, "sample_above", "1"), -1);
	free(p);
}

Test(c2c, good_values_are_accepted)
{
	void *p = new_params();

	cr_assert_eq(set(p, "mode", "full"), 0);
	cr_assert_eq(set(p, "mode", "sampled"), 0);
	cr_assert_eq(set(p, "mode", "auto"), 0);
	cr_assert_eq(set(p, "time", "250us"), 0);
	cr_assert_eq(set(p, "time", "2s"), 0);
	cr_assert_eq(set(p, "rounds", "1"), 0);
	cr_assert_eq(set(p, "batches", "3"), 0);
	cr_assert_eq(set(p, "gap", "40"), 0);
	cr_assert_eq(set(p, "sample_above", "128"), 0);
	free(p);
}

Test(c2c, fewer_than_two_cpus_is_an_error)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	cr_assert_eq(vtb_cpuset_parse("3", &ctx.cpus), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "at least 2 cpus"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(c2c, too_many_cpus_is_an_error)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();
	char list[32];

	snprintf(list, sizeof(list), "0-%d", VTB_C2C_MAX_CPUS);
	cr_assert_eq(vtb_cpuset_parse(list, &ctx.cpus), 0);
	cr_assert_eq(set(p, "mode", "full"), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "at most"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* ---- median and pair planning ---- */

Test(c2c, median_of_odd_even_and_empty)
{
	double a[] = { 9, 1, 5 }, b[] = { 4, 1, 3, 100 };

	cr_assert_float_eq(vtb_c2c_median(a, 3), 5, 1e-12);
	cr_assert_float_eq(vtb_c2c_median(b, 4), 3.5, 1e-12);
	cr_assert(isnan(vtb_c2c_median(b, 0)));
}

Test(c2c, full_plan_is_every_pair_row_major)
{
	struct vtb_c2c_pair *p;
	size_t n, k = 0, a, b;

	cr_assert_eq(vtb_c2c_plan(5, NULL, false, &p, &n), 0);
	cr_assert_eq(n, 10);
	for (a = 0; a < 5; a++)
		for (b = a + 1; b < 5; b++, k++)
			cr_assert(p[k].a == a && p[k].b == b, "pair %zu is %u-%u", k, p[k].a,
				  p[k].b);
	free(p);
	cr_assert_eq(vtb_c2c_plan(1, NULL, false, &p, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_null(p);
}

Test(c2c, sampled_plan_is_representatives_and_own_siblings)
{
	/* 4 cores x 2 threads, Intel numbering: position c and c+4 */
	size_t rep_of[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	struct vtb_c2c_pair *p;
	size_t n, k, reps = 0, sib = 0;

	cr_assert_eq(vtb_c2c_plan(8, rep_of, false, &p, &n), 0);
	cr_assert_eq(n, 6 + 4, "C(4,2) representative pairs + 4 sibling pairs, got %zu", n);
	for (k = 0; k < n; k++) {
		cr_assert_lt(p[k].a, p[k].b);
		if (p[k].b < 4)
			reps++;
		else if (rep_of[p[k].b] == p[k].a)
			sib++;
		else
			cr_assert_fail("unexpected pair %u-%u", p[k].a, p[k].b);
		if (k)
			cr_assert(p[k - 1].a < p[k].a ||
				  (p[k - 1].a == p[k].a && p[k - 1].b < p[k].b));
	}
	cr_assert_eq(reps, 6);
	cr_assert_eq(sib, 4);
	free(p);
}

Test(c2c, llc_plan_is_each_representative_against_all)
{
	/* no SMT, 4 LLCs of 2 CPUs: positions 0-1, 2-3, 4-5, 6-7 */
	size_t rep_of[8] = { 0, 0, 2, 2, 4, 4, 6, 6 };
	struct vtb_c2c_pair *p;
	size_t n, k, a, b, row[8] = { 0 };

	cr_assert_eq(vtb_c2c_plan(8, rep_of, true, &p, &n), 0);
	cr_assert_eq(n, 28 - 6, "every pair but the C(4,2) of two non-representatives, got %zu", n);
	for (k = 0; k < n; k++) {
		cr_assert(rep_of[p[k].a] == p[k].a || rep_of[p[k].b] == p[k].b,
			  "pair %u-%u has no representative", p[k].a, p[k].b);
		row[p[k].a]++;
		row[p[k].b]++;
	}
	for (a = 0; a < 8; a += 2)
		cr_assert_eq(row[a], 7, "representative %zu is measured against all", a);
	for (b = 1; b < 8; b += 2)
		cr_assert_eq(row[b], 4, "cpu %zu only against the 4 representatives", b);
	free(p);
}

Test(c2c, expected_duration_counts_the_batches_and_their_cut)
{
	/* time dominates short batches */
	cr_assert_float_eq(vtb_c2c_expected_seconds(10, 1000000, 100), 0.010, 1e-12);
	/* 4 batches x 2000 x 200 ns = 1.6 ms over a 1 ms time */
	cr_assert_float_eq(vtb_c2c_expected_seconds(10, 1000000, 2000), 0.016, 1e-12);
	/* huge batches are cut at 2 x time */
	cr_assert_float_eq(vtb_c2c_expected_seconds(10, 1000000, 10000000), 0.020, 1e-12);
	cr_assert_float_eq(vtb_c2c_expected_seconds(0, 1000000, 100), 0, 1e-12);
}

/* ---- machines ---- */

/* Where a CPU sits: ids of its node, its LLC (unique), its core (unique). */
struct place {
	int node, llc, core, ccx_in_node;
};

struct machine {
	size_t n;
	struct place pl[512];
	/* round trips by first level in common */
	double smt, llc, node, remote;
	double llc_step;  /* node level: + step per CCX of distance (EPYC) */
	double mesh_step; /* llc level: + step per core of distance (mesh) */
};

static double truth(const struct machine *mc, size_t i, size_t j)
{
	const struct place *a = &mc->pl[i], *b = &mc->pl[j];

	if (a->core == b->core)
		return mc->smt;
	if (a->llc == b->llc)
		return mc->llc + mc->mesh_step * abs(a->core - b->core);
	if (a->node == b->node)
		return mc->node + mc->llc_step * (abs(a->ccx_in_node - b->ccx_in_node) - 1);
	return mc->remote;
}

/* Uniform in [-1, 1) from a seeded generator. */
static double unit_noise(unsigned *seed)
{
	return 2.0 * rand_r(seed) / ((double)RAND_MAX + 1) - 1.0;
}

/* The machine's matrix with multiplicative noise of +-@noise; @sampled
 * leaves out what sampled mode would not measure. */
static double *matrix_of(const struct machine *mc, double noise, unsigned seed,
			 const size_t *sampled)
{
	size_t n = mc->n, i, j;
	double *m = malloc(n * n * sizeof(*m));

	cr_assert_not_null(m);
	for (i = 0; i < n * n; i++)
		m[i] = NAN;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			bool rep_pair = sampled && sampled[i] == i && sampled[j] == j;

			if (sampled && !rep_pair && sampled[j] != i && sampled[i] != j)
				continue;
			m[i * n + j] = m[j * n + i] = truth(mc, i, j) *
						      (1 + noise * unit_noise(&seed));
		}
	}
	return m;
}

/* The canonical partition by a key of each CPU. */
static void partition_by(const struct machine *mc, int level, size_t *of)
{
	size_t i, j;

	for (i = 0; i < mc->n; i++) {
		of[i] = i;
		for (j = 0; j < i; j++) {
			const struct place *a = &mc->pl[i], *b = &mc->pl[j];
			bool same = level == 0	 ? a->core == b->core
				    : level == 1 ? a->llc == b->llc
				    : level == 2 ? a->node == b->node
						 : true;

			if (same) {
				of[i] = of[j];
				break;
			}
		}
	}
}

static void expect_levels(const struct machine *mc, const struct vtb_c2c_clusters *cl,
			  const int *levels, size_t n_levels, const char *what)
{
	size_t k, i, *of = calloc(mc->n, sizeof(size_t));

	cr_assert_not_null(of);
	cr_assert_eq(cl->n_levels, n_levels, "%s: %zu levels, want %zu", what, cl->n_levels,
		     n_levels);
	for (k = 0; k < n_levels; k++) {
		partition_by(mc, levels[k], of);
		for (i = 0; i < mc->n; i++)
			cr_assert_eq(cl->levels[k].cluster_of[i], of[i],
				     "%s: level %zu: cpu position %zu in cluster %zu, want %zu",
				     what, k, i, cl->levels[k].cluster_of[i], of[i]);
		cr_assert_eq(cl->levels[k].n_clusters, vtb_c2c_count_groups(of, mc->n));
	}
	cr_assert_eq(cl->levels[n_levels - 1].n_clusters, 1);
	free(of);
}

/*
 * Intel-like two sockets: @cores per socket, 2 threads, CPU c and
 * c + 2*cores are siblings (Linux's Intel numbering), one LLC per socket
 * (mesh: latency grows with core distance), one node per socket.
 */
static void two_sockets(struct machine *mc, int cores)
{
	size_t i, half = (size_t)cores * 2;

	memset(mc, 0, sizeof(*mc));
	mc->n = half * 2;
	for (i = 0; i < mc->n; i++) {
		int c = (int)(i % half);

		mc->pl[i].core = c;
		mc->pl[i].llc = c / cores;
		mc->pl[i].node = c / cores;
	}
	mc->smt = 14;
	mc->llc = 55;
	mc->mesh_step = 1.5;
	mc->node = mc->remote = 270;
}

/*
 * EPYC-like: @sockets x @ccx CCXs of 4 cores x 2 threads sharing an L3;
 * cross-CCX latency grows with CCX distance on the IO die; CPU c and
 * c + ncores are siblings.
 */
static void epyc(struct machine *mc, int sockets, int ccx)
{
	int ncores = sockets * ccx * 4;
	size_t i;

	memset(mc, 0, sizeof(*mc));
	mc->n = (size_t)ncores * 2;
	for (i = 0; i < mc->n; i++) {
		int c = (int)(i % (size_t)ncores);

		mc->pl[i].core = c;
		mc->pl[i].llc = c / 4;
		mc->pl[i].ccx_in_node = (c / 4) % ccx;
		mc->pl[i].node = c / (4 * ccx);
	}
	mc->smt = 16;
	mc->llc = 48;
	mc->node = 180;
	mc->llc_step = 15;
	mc->remote = 420;
}

/*
 * SMT pairs inside LLCs inside nodes: 2 nodes x 2 LLCs x 4 cores x 2
 * threads, siblings adjacent (0-1, 2-3: AMD numbering).
 */
static void nodes_llcs(struct machine *mc)
{
	size_t i;

	memset(mc, 0, sizeof(*mc));
	mc->n = 32;
	for (i = 0; i < mc->n; i++) {
		mc->pl[i].core = (int)i / 2;
		mc->pl[i].llc = (int)i / 8;
		mc->pl[i].node = (int)i / 16;
	}
	mc->smt = 12;
	mc->llc = 50;
	mc->node = 115;
	mc->remote = 260;
}

static void cluster_ok(const struct machine *mc, double noise, unsigned seed, const int *levels,
		       size_t n_levels, const char *what)
{
	struct vtb_c2c_clusters cl;
	double *m = matrix_of(mc, noise, seed, NULL);
	char label[96];

	snprintf(label, sizeof(label), "%s, noise %.0f%%, seed %u", what, noise * 100, seed);
	cr_assert_eq(vtb_c2c_cluster(m, mc->n, 0.25, &cl), 0, "%s", vtb_errmsg());
	expect_levels(mc, &cl, levels, n_levels, label);
	vtb_c2c_clusters_release(&cl);
	free(m);
}

Test(c2c, two_sockets_give_smt_socket_machine)
{
	static const int lv[] = { 0, 1, 3 };
	struct machine mc;
	unsigned seed;

	two_sockets(&mc, 12);
	for (seed = 1; seed <= 20; seed++)
		cluster_ok(&mc, 0.08, seed, lv, 3, "two sockets");
}

Test(c2c, epyc_ccxs_give_smt_ccx_socket_machine)
{
	static const int lv[] = { 0, 1, 2, 3 };
	struct machine mc;
	unsigned seed;

	epyc(&mc, 2, 4);
	for (seed = 1; seed <= 20; seed++)
		cluster_ok(&mc, 0.08, seed, lv, 4, "2 x 4 CCX");
	epyc(&mc, 1, 8);
	for (seed = 1; seed <= 10; seed++)
		cluster_ok(&mc, 0.08, seed, lv + 0, 3, "1 x 8 CCX");
}

Test(c2c, smt_inside_llc_inside_nodes)
{
	static const int lv[] = { 0, 1, 2, 3 };
	struct machine mc;
	unsigned seed;

	nodes_llcs(&mc);
	for (seed = 1; seed <= 20; seed++)
		cluster_ok(&mc, 0.10, seed, lv, 4, "nodes of llcs");
}

Test(c2c, level_means_are_the_pair_latencies_of_each_level)
{
	struct vtb_c2c_clusters cl;
	struct machine mc;
	double *m;

	nodes_llcs(&mc);
	m = matrix_of(&mc, 0.05, 7, NULL);
	cr_assert_eq(vtb_c2c_cluster(m, mc.n, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 4);
	cr_assert_float_eq(cl.levels[0].mean_ns, 12, 12 * 0.05);
	cr_assert_float_eq(cl.levels[1].mean_ns, 50, 50 * 0.05);
	cr_assert_float_eq(cl.levels[2].mean_ns, 115, 115 * 0.05);
	cr_assert_float_eq(cl.levels[3].mean_ns, 260, 260 * 0.05);
	/* pairs first joined per level: 16 SMT pairs; per LLC C(8,2)-4;
	 * per node 8x8; across nodes 16x16 */
	cr_assert_eq(cl.levels[0].n_pairs, 16);
	cr_assert_eq(cl.levels[1].n_pairs, 4 * (28 - 4));
	cr_assert_eq(cl.levels[2].n_pairs, 2 * 64);
	cr_assert_eq(cl.levels[3].n_pairs, 256);
	cr_assert(cl.levels[0].lo_ns <= cl.levels[0].hi_ns);
	cr_assert(cl.levels[0].hi_ns < cl.levels[1].lo_ns);
	vtb_c2c_clusters_release(&cl);
	free(m);
}

Test(c2c, outlier_pairs_do_not_move_cpus)
{
	static const int lv[] = { 0, 1, 2, 3 };
	struct vtb_c2c_clusters cl;
	struct machine mc;
	unsigned seed = 99;
	size_t i, j, k;
	double *m;

	epyc(&mc, 2, 4);
	m = matrix_of(&mc, 0.05, 3, NULL);
	/* 2% of the pairs beyond a CCX read 2x high or half: interrupts,
	 * a preempted vCPU, a lucky batch */
	for (k = 0; k < mc.n * mc.n / 100; k++) {
		i = (size_t)rand_r(&seed) % mc.n;
		j = (size_t)rand_r(&seed) % mc.n;
		if (i == j || mc.pl[i].llc == mc.pl[j].llc)
			continue;
		m[i * mc.n + j] = m[j * mc.n + i] = m[i * mc.n + j] * (k % 2 ? 2.0 : 0.5);
	}
	/* and one pair across the sockets as fast as a CCX: single linkage
	 * would merge the sockets at the CCX level for it */
	m[5 * mc.n + 40] = m[40 * mc.n + 5] = 50;
	cr_assert_eq(vtb_c2c_cluster(m, mc.n, 0.25, &cl), 0);
	expect_levels(&mc, &cl, lv, 4, "epyc with outliers");
	vtb_c2c_clusters_release(&cl);
	free(m);
}

Test(c2c, sampled_matrix_gives_the_same_clusters)
{
	static const int lv[] = { 0, 1, 2, 3 };
	struct vtb_c2c_clusters cl;
	struct vtb_c2c_pair *pairs;
	struct machine mc;
	size_t i, npairs, measured = 0, *rep_of;
	double *m;

	epyc(&mc, 2, 4);
	rep_of = calloc(mc.n, sizeof(size_t));
	partition_by(&mc, 0, rep_of);
	m = matrix_of(&mc, 0.08, 11, rep_of);
	cr_assert_eq(vtb_c2c_plan(mc.n, rep_of, false, &pairs, &npairs), 0);
	for (i = 0; i < mc.n * mc.n; i++)
		measured += isfinite(m[i]);
	cr_assert_eq(measured, 2 * npairs, "the plan measures what the matrix holds");
	cr_assert_eq(vtb_c2c_cluster(m, mc.n, 0.25, &cl), 0);
	expect_levels(&mc, &cl, lv, 4, "sampled epyc");
	vtb_c2c_clusters_release(&cl);
	free(pairs);
	free(rep_of);
	free(m);
}

Test(c2c, flat_machine_is_one_level)
{
	struct vtb_c2c_clusters cl;
	struct machine mc;
	size_t i;
	double *m;

	memset(&mc, 0, sizeof(mc));
	mc.n = 8;
	for (i = 0; i < 8; i++)
		mc.pl[i].core = (int)i;
	mc.llc = 60;
	m = matrix_of(&mc, 0.10, 5, NULL);
	cr_assert_eq(vtb_c2c_cluster(m, 8, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 1);
	cr_assert_eq(cl.levels[0].n_clusters, 1);
	cr_assert_eq(cl.levels[0].n_pairs, 28);
	vtb_c2c_clusters_release(&cl);
	free(m);
}

Test(c2c, unlinked_cpus_stay_apart_and_two_cpus_make_one_level)
{
	double m4[16], m2[4] = { NAN, 30, 30, NAN };
	struct vtb_c2c_clusters cl;
	size_t i;

	for (i = 0; i < 16; i++)
		m4[i] = NAN;
	m4[0 * 4 + 1] = m4[1 * 4 + 0] = 20; /* 0-1 and 2-3 measured, nothing between */
	m4[2 * 4 + 3] = m4[3 * 4 + 2] = 21;
	cr_assert_eq(vtb_c2c_cluster(m4, 4, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 1);
	cr_assert_eq(cl.levels[0].n_clusters, 2);
	vtb_c2c_clusters_release(&cl);
	cr_assert_eq(vtb_c2c_cluster(m2, 2, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 1);
	cr_assert_float_eq(cl.levels[0].mean_ns, 30, 1e-9);
	vtb_c2c_clusters_release(&cl);
	cr_assert_eq(vtb_c2c_cluster(m2, 1, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 0);
	cr_assert_eq(vtb_c2c_cluster(m2, 2, NAN, &cl), -1);
}

/* ---- sysfs ---- */

static char *fixture(const char *name)
{
	const char *src = getenv("SRCDIR");

	return vtb_asprintf("%s/tests/fixtures/sysfs-cpu/%s", src ? src : ".", name);
}

static void partition_is(const size_t *of, size_t n, const size_t *want, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		cr_assert_eq(of[i], want[i], "%s: position %zu in group %zu, want %zu", what, i,
			     of[i], want[i]);
}

Test(c2c, sysfs_partitions_of_a_two_socket_tree)
{
	/* positions = cpus 0..15; core c has threads c and c+8 */
	static const size_t smt[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7 };
	static const size_t llc[16] = { 0, 0, 2, 2, 4, 4, 6, 6, 0, 0, 2, 2, 4, 4, 6, 6 };
	static const size_t pkg[16] = { 0, 0, 0, 0, 4, 4, 4, 4, 0, 0, 0, 0, 4, 4, 4, 4 };
	struct vtb_cpuset cpus = { 0 };
	struct vtb_c2c_topo t;
	char *root = fixture("c2c-16");

	cr_assert_eq(vtb_cpuset_parse("0-15", &cpus), 0);
	cr_assert_eq(vtb_c2c_topo_read(root, &cpus, &t), 0);
	cr_assert(t.of[VTB_C2C_SMT] && t.of[VTB_C2C_LLC] && t.of[VTB_C2C_PACKAGE] &&
		  t.of[VTB_C2C_NODE]);
	partition_is(t.of[VTB_C2C_SMT], 16, smt, "smt");
	partition_is(t.of[VTB_C2C_LLC], 16, llc, "llc");
	partition_is(t.of[VTB_C2C_PACKAGE], 16, pkg, "package");
	partition_is(t.of[VTB_C2C_NODE], 16, pkg, "node");
	vtb_c2c_topo_release(&t);
	vtb_cpuset_release(&cpus);
	free(root);
}

Test(c2c, sysfs_partition_of_a_subset_uses_cell_positions)
{
	/* cell 4-5,12-13: one LLC, two cores */
	static const size_t smt[4] = { 0, 1, 0, 1 };
	static const size_t one[4] = { 0, 0, 0, 0 };
	struct vtb_cpuset cpus = { 0 };
	size_t of[4];
	char *root = fixture("c2c-16");

	cr_assert_eq(vtb_cpuset_parse("4-5,12-13", &cpus), 0);
	cr_assert_eq(vtb_c2c_sysfs_partition(root, &cpus, VTB_C2C_SMT, of), 0);
	partition_is(of, 4, smt, "smt");
	cr_assert_eq(vtb_c2c_sysfs_partition(root, &cpus, VTB_C2C_LLC, of), 0);
	partition_is(of, 4, one, "llc");
	vtb_cpuset_release(&cpus);
	free(root);
}

Test(c2c, sysfs_missing_cpu_is_an_error_and_a_missing_kind_null)
{
	struct vtb_cpuset cpus = { 0 };
	struct vtb_c2c_topo t;
	size_t of[2];
	char *root = fixture("c2c-16"), *l2 = fixture("l2-only");

	cr_assert_eq(vtb_cpuset_parse("0,16", &cpus), 0);
	cr_assert_eq(vtb_c2c_sysfs_partition(root, &cpus, VTB_C2C_SMT, of), -1);
	cr_assert(strstr(vtb_errmsg(), "cpu16"), "%s", vtb_errmsg());
	vtb_cpuset_release(&cpus);
	/* a tree with caches but no topology: only the llc is known */
	cr_assert_eq(vtb_cpuset_parse("0", &cpus), 0);
	cr_assert_eq(vtb_c2c_topo_read(l2, &cpus, &t), 0);
	cr_assert_null(t.of[VTB_C2C_SMT]);
	cr_assert_not_null(t.of[VTB_C2C_LLC]);
	cr_assert_null(t.of[VTB_C2C_NODE]);
	vtb_c2c_topo_release(&t);
	vtb_cpuset_release(&cpus);
	free(root);
	free(l2);
}

Test(c2c, measured_levels_match_the_sysfs_levels_of_the_same_machine)
{
	struct vtb_cpuset cpus = { 0 };
	struct vtb_c2c_clusters cl;
	struct vtb_c2c_topo t;
	struct machine mc;
	char *root = fixture("c2c-16");
	size_t i;
	double *m;

	/* the fixture's machine: cpu c and c+8 siblings, LLC of 2 cores,
	 * socket of 2 LLCs */
	memset(&mc, 0, sizeof(mc));
	mc.n = 16;
	for (i = 0; i < 16; i++) {
		mc.pl[i].core = (int)i % 8;
		mc.pl[i].llc = (int)i % 8 / 2;
		mc.pl[i].node = (int)i % 8 / 4;
	}
	mc.smt = 15;
	mc.llc = 45;
	mc.node = 100;
	mc.remote = 240;
	m = matrix_of(&mc, 0.08, 21, NULL);
	cr_assert_eq(vtb_cpuset_parse("0-15", &cpus), 0);
	cr_assert_eq(vtb_c2c_topo_read(root, &cpus, &t), 0);
	cr_assert_eq(vtb_c2c_cluster(m, 16, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 4);
	cr_assert_arr_eq(cl.levels[0].cluster_of, t.of[VTB_C2C_SMT], 16 * sizeof(size_t));
	cr_assert_arr_eq(cl.levels[1].cluster_of, t.of[VTB_C2C_LLC], 16 * sizeof(size_t));
	cr_assert_arr_eq(cl.levels[2].cluster_of, t.of[VTB_C2C_NODE], 16 * sizeof(size_t));
	cr_assert_arr_eq(cl.levels[2].cluster_of, t.of[VTB_C2C_PACKAGE], 16 * sizeof(size_t));
	vtb_c2c_clusters_release(&cl);
	vtb_c2c_topo_release(&t);
	vtb_cpuset_release(&cpus);
	free(root);
	free(m);
}

Test(c2c, sampling_groups_by_smt_else_llc_else_node)
{
	static const size_t llc[8] = { 0, 0, 2, 2, 4, 4, 6, 6 };
	static const size_t node[4] = { 0, 0, 2, 2 };
	struct vtb_cpuset cpus = { 0 };
	size_t of[16];
	char *root = fixture("c2c-16");

	/* c2c-16: core c has threads c and c+8, LLCs of 2 cores, 2 nodes */
	cr_assert_eq(vtb_cpuset_parse("0-15", &cpus), 0);
	cr_assert_eq(vtb_c2c_sample_kind(root, &cpus, of), VTB_C2C_SMT);
	vtb_cpuset_release(&cpus);
	/* no sibling in the cell: by LLC */
	cr_assert_eq(vtb_cpuset_parse("0-7", &cpus), 0);
	cr_assert_eq(vtb_c2c_sample_kind(root, &cpus, of), VTB_C2C_LLC);
	partition_is(of, 8, llc, "llc");
	vtb_cpuset_release(&cpus);
	/* one CPU per LLC: by node */
	cr_assert_eq(vtb_cpuset_parse("0,2,4,6", &cpus), 0);
	cr_assert_eq(vtb_c2c_sample_kind(root, &cpus, of), VTB_C2C_NODE);
	partition_is(of, 4, node, "node");
	vtb_cpuset_release(&cpus);
	/* two LLCs of one node: nothing groups them, every pair */
	cr_assert_eq(vtb_cpuset_parse("0,2", &cpus), 0);
	cr_assert_eq(vtb_c2c_sample_kind(root, &cpus, of), -1);
	vtb_cpuset_release(&cpus);
	free(root);
}

/* A machine without SMT (EPYC-like CCXs of 4 cores), measured by LLC
 * representatives against all: the same llc, node, machine levels. */
Test(c2c, llc_sampled_matrix_gives_the_same_clusters)
{
	static const int lv[] = { 1, 2, 3 };
	struct vtb_c2c_clusters cl;
	struct vtb_c2c_pair *pairs;
	struct machine mc;
	size_t i, j, k, npairs, *rep_of;
	double *m, *full;

	epyc(&mc, 2, 4);
	mc.n /= 2; /* the first thread of every core: no SMT */
	rep_of = calloc(mc.n, sizeof(size_t));
	partition_by(&mc, 1, rep_of);
	full = matrix_of(&mc, 0.08, 5, NULL);
	m = malloc(mc.n * mc.n * sizeof(*m));
	cr_assert(rep_of && m);
	for (i = 0; i < mc.n * mc.n; i++)
		m[i] = NAN;
	cr_assert_eq(vtb_c2c_plan(mc.n, rep_of, true, &pairs, &npairs), 0);
	cr_assert_lt(npairs, mc.n * (mc.n - 1) / 2);
	for (k = 0; k < npairs; k++) {
		i = pairs[k].a;
		j = pairs[k].b;
		m[i * mc.n + j] = m[j * mc.n + i] = full[i * mc.n + j];
	}
	cr_assert_eq(vtb_c2c_cluster(m, mc.n, 0.25, &cl), 0);
	expect_levels(&mc, &cl, lv, 3, "llc-sampled epyc without smt");
	vtb_c2c_clusters_release(&cl);
	free(pairs);
	free(rep_of);
	free(full);
	free(m);
}

static void names_are(json_t *names, const char *want, const char *what)
{
	char *got = json_dumps(names, JSON_COMPACT);

	cr_assert_not_null(got);
	cr_assert_str_eq(got, want, "%s: names %s, want %s", what, got, want);
	free(got);
	json_decref(names);
}

Test(c2c, levels_are_named_by_the_sysfs_kind_they_match)
{
	struct vtb_cpuset cpus = { 0 };
	struct vtb_c2c_level odd = { 0 };
	struct vtb_c2c_clusters cl;
	struct vtb_c2c_topo t;
	struct machine mc;
	char *root = fixture("c2c-16");
	size_t i, of[16];
	double *m;

	memset(&mc, 0, sizeof(mc));
	mc.n = 16;
	for (i = 0; i < 16; i++) {
		mc.pl[i].core = (int)i % 8;
		mc.pl[i].llc = (int)i % 8 / 2;
		mc.pl[i].node = (int)i % 8 / 4;
	}
	mc.smt = 15;
	mc.llc = 45;
	mc.node = 100;
	mc.remote = 240;
	m = matrix_of(&mc, 0.05, 3, NULL);
	cr_assert_eq(vtb_cpuset_parse("0-15", &cpus), 0);
	cr_assert_eq(vtb_c2c_topo_read(root, &cpus, &t), 0);
	cr_assert_eq(vtb_c2c_cluster(m, 16, 0.25, &cl), 0);
	cr_assert_eq(cl.n_levels, 4);
	names_are(vtb_c2c_level_names(&t, &cl.levels[0], 0), "[\"smt\"]", "level 0");
	names_are(vtb_c2c_level_names(&t, &cl.levels[1], 1), "[\"llc\"]", "level 1");
	names_are(vtb_c2c_level_names(&t, &cl.levels[2], 2), "[\"package\",\"node\"]", "level 2");
	names_are(vtb_c2c_level_names(&t, &cl.levels[3], 3), "[\"machine\"]", "level 3");
	/* adjacent cpus: finer than an LLC, not cores: nothing in sysfs */
	for (i = 0; i < 16; i++)
		of[i] = i % 2 ? i - 1 : i;
	odd.cluster_of = of;
	odd.n_clusters = 8;
	names_are(vtb_c2c_level_names(&t, &odd, 1), "[\"unmatched1\"]", "odd level");
	vtb_c2c_clusters_release(&cl);
	vtb_c2c_topo_release(&t);
	vtb_cpuset_release(&cpus);
	free(root);
	free(m);
}

/* ---- JSON and records ---- */

Test(c2c, matrix_json_rounds_to_quarters_and_nulls_the_unmeasured)
{
	struct vtb_cpuset cpus = { 0 };
	double m[4] = { NAN, 45.3, 45.3, NAN };
	json_t *j;
	char *s;

	cr_assert_eq(vtb_cpuset_parse("2,7", &cpus), 0);
	j = vtb_c2c_matrix_json(&cpus, m);
	cr_assert_not_null(j);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(s, "{\"cpus\":[2,7],\"ns\":[[null,45.25],[45.25,null]]}");
	free(s);
	json_decref(j);
	vtb_cpuset_release(&cpus);
	cr_assert_float_eq(vtb_c2c_round_quarter(10.13), 10.25, 1e-12);
	cr_assert_float_eq(vtb_c2c_round_quarter(10.12), 10.0, 1e-12);
}

#define NONCE "ab12"
#define CHUNK_PREFIX "@vtb1 " NONCE " {\"type\":\"chunk\""

static void write_rec(struct vtb_rec *w, json_t *r)
{
	cr_assert_not_null(r);
	cr_assert_eq(vtb_rec_write(w, r), 0, "%s", vtb_errmsg());
	json_decref(r);
}

Test(c2c, matrix_of_512_cpus_is_chunked_and_reassembled)
{
	const size_t n = 512;
	struct vtb_cpuset cpus = { 0 };
	struct vtb_rec_parser *P = vtb_rec_parser_new(NONCE, NULL);
	const struct vtb_boot_records *res;
	json_t *mx, *info, *back, *row;
	double *m = malloc(n * n * sizeof(*m));
	int fd = memfd_create("c2c", 0);
	struct vtb_rec w;
	size_t i, j, off, chunk_lines = 0;
	char *text;
	off_t len;

	cr_assert(P && m && fd >= 0);
	for (i = 0; i < n; i++) {
		cr_assert_eq(vtb_cpuset_add(&cpus, (int)(i < 256 ? i : i + 100)), 0);
		for (j = 0; j < n; j++)
			m[i * n + j] = i == j ? NAN : 20.0 + (double)((i * 7 + j * 13) % 400) + 0.3;
	}
	mx = vtb_c2c_matrix_json(&cpus, m);
	cr_assert_not_null(mx);
	info = json_pack("{s:o, s:s}", "matrix", mx, "mode", "full");
	cr_assert_eq(vtb_rec_init(&w, fd, NONCE), 0);
	write_rec(&w, json_pack("{s:s, s:i, s:s}", "type", "header", "schema", 1, "agent", "t"));
	write_rec(&w, json_pack("{s:s, s:s, s:s, s:{}}", "type", "cell", "cell", "k", "workload",
				"c2c", "params"));
	write_rec(&w, json_pack("{s:s, s:s, s:s, s:f, s:O}", "type", "cell_end", "cell", "k",
				"status", "ok", "seconds", 1.0, "info", info));
	write_rec(&w, json_pack("{s:s, s:s, s:i}", "type", "end", "status", "ok", "cells", 1));

	len = lseek(fd, 0, SEEK_END);
	cr_assert_gt(len, VTB_REC_MAX_JSON, "a 512-cpu matrix is over 1 MiB (%lld bytes)",
		     (long long)len);
	text = malloc((size_t)len);
	cr_assert_eq(pread(fd, text, (size_t)len, 0), len);
	close(fd);
	for (off = 0; off + 1 < (size_t)len; off++)
		if (text[off] == '\n' &&
		    strncmp(text + off + 1, CHUNK_PREFIX, strlen(CHUNK_PREFIX)) == 0)
			chunk_lines++;
	cr_assert_geq(chunk_lines, 2, "the matrix was not chunked (%zu chunks)", chunk_lines);
	cr_assert_eq(vtb_rec_parser_feed(P, text, (size_t)len), 0);
	free(text);
	vtb_rec_parser_finish(P);
	res = vtb_rec_parser_result(P);
	for (i = 0; i < res->n_errors; i++)
		cr_log_error("%s", res->errors[i]);
	cr_assert_eq(res->n_errors, 0);
	cr_assert_eq(res->n_cells, 1);
	cr_assert_str_eq(res->cells[0].status, "ok");
	back = json_loads(res->cells[0].info_json, 0, NULL);
	cr_assert_not_null(back);
	mx = json_object_get(back, "matrix");
	cr_assert_eq(json_array_size(json_object_get(mx, "cpus")), n);
	cr_assert_eq(json_integer_value(json_array_get(json_object_get(mx, "cpus"), 300)), 400);
	row = json_array_get(json_object_get(mx, "ns"), 300);
	cr_assert_eq(json_array_size(row), n);
	cr_assert(json_is_null(json_array_get(row, 300)));
	cr_assert_float_eq(json_number_value(json_array_get(row, 17)),
			   vtb_c2c_round_quarter(m[300 * n + 17]), 1e-9);
	json_decref(back);
	json_decref(info);
	vtb_rec_parser_free(P);
	vtb_cpuset_release(&cpus);
	free(m);
}

/* ---- a real ping-pong ---- */

static const struct vtb_sample *sample(const struct vtb_workload_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->n_samples; i++)
		if (strcmp(ctx->samples[i].metric, name) == 0)
			return &ctx->samples[i];
	return NULL;
}

/* The cell: the first two CPUs of the affinity, or NULL (skip). */
static bool two_cpus(struct vtb_workload_ctx *ctx)
{
	cr_assert_eq(vtb_affinity_cpuset(&ctx->cpus), 0);
	if (ctx->cpus.n < 2)
		return false;
	while (ctx->cpus.n > 2)
		ctx->cpus.n--;
	return true;
}

static void tiny_run(const char *mode)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	const char *names[] = { "c2c_min", "c2c_median", "c2c_max" };
	json_t *mx, *ns, *lv0, *nm, *ow;
	void *p = new_params();
	char metric[64];
	size_t i;

	if (!two_cpus(&ctx)) {
		vtb_workload_ctx_release(&ctx);
		free(p);
		cr_skip_test("needs 2 cpus");
	}
	cr_assert_eq(set(p, "time", "100us"), 0);
	cr_assert_eq(set(p, "rounds", "50"), 0);
	cr_assert_eq(set(p, "mode", mode), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	for (i = 0; i < 3; i++) {
		const struct vtb_sample *s = sample(&ctx, names[i]);

		cr_assert_not_null(s, "no %s", names[i]);
		cr_assert(isfinite(s->value) && s->value > 0, "%s = %g", names[i], s->value);
		cr_assert_str_eq(s->unit, "ns");
		cr_assert_eq(s->better, VTB_BETTER_LOWER);
	}
	cr_assert_eq(sample(&ctx, "c2c_levels")->value, 1);
	/* the one level is named by what it matches, never by its rank */
	lv0 = json_array_get(json_object_get(ctx.info, "clusters"), 0);
	cr_assert_geq(json_array_size(json_object_get(lv0, "names")), 1);
	json_array_foreach(json_object_get(lv0, "names"), i, nm)
	{
		snprintf(metric, sizeof(metric), "c2c_%s_ns", json_string_value(nm));
		cr_assert_not_null(sample(&ctx, metric), "no %s", metric);
		cr_assert_gt(sample(&ctx, metric)->value, 0);
		snprintf(metric, sizeof(metric), "c2c_%s_clusters", json_string_value(nm));
		cr_assert_not_null(sample(&ctx, metric), "no %s", metric);
		cr_assert_eq(sample(&ctx, metric)->value, 1);
	}
	cr_assert_null(sample(&ctx, "c2c_level0_ns"));
	mx = json_object_get(ctx.info, "matrix");
	ns = json_object_get(mx, "ns");
	cr_assert_eq(json_array_size(json_object_get(mx, "cpus")), 2);
	cr_assert(json_is_null(json_array_get(json_array_get(ns, 0), 0)));
	cr_assert_gt(json_number_value(json_array_get(json_array_get(ns, 0), 1)), 0);
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "pairs")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(ctx.info, "mode")), mode);
	cr_assert_geq(json_integer_value(json_object_get(ctx.info, "batches_min_measured")), 3);
	ow = json_object_get(ctx.info, "one_way_mean_ns");
	cr_assert_gt(json_number_value(json_object_get(ow, "median")), 0);
	cr_assert_leq(json_number_value(json_object_get(ow, "min")),
		      json_number_value(json_object_get(ow, "max")));
	cr_assert_gt(json_number_value(json_object_get(ctx.info, "expected_seconds")), 0);
	if (strcmp(mode, "sampled") == 0)
		cr_assert_not_null(json_object_get(ctx.info, "sampled_by"));
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(c2c, ping_pong_on_two_cpus_reports_positive_round_trips)
{
	tiny_run("full");
}

Test(c2c, sampled_ping_pong_on_two_cpus_runs)
{
	tiny_run("sampled");
}

/* A partner that never answers (the hidden "silent" hook: pong only
 * watches for STOP) fails the pair at its deadline, max(1s, 100 x time),
 * naming the cpu, instead of spinning forever. */
Test(c2c, a_cpu_that_never_answers_fails_the_pair)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	alarm(60); /* a hang becomes a crash (criterion's timeout leaks under LSan) */

	if (!two_cpus(&ctx)) {
		vtb_workload_ctx_release(&ctx);
		free(p);
		cr_skip_test("needs 2 cpus");
	}
	cr_assert_eq(set(p, "time", "100us"), 0);
	cr_assert_eq(set(p, "silent", "yes"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "did not answer"), "%s", vtb_errmsg());
	cr_assert(strstr(vtb_errmsg(), "within 1s"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* Batches of 10^7 round trips (seconds each) are cut once 2 x time has
 * passed, so the pair keeps to its time instead of running 4 of them. */
Test(c2c, long_batches_are_cut_at_twice_the_time)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	alarm(60); /* a hang becomes a crash */

	if (!two_cpus(&ctx)) {
		vtb_workload_ctx_release(&ctx);
		free(p);
		cr_skip_test("needs 2 cpus");
	}
	cr_assert_eq(set(p, "time", "100us"), 0);
	cr_assert_eq(set(p, "rounds", "10000000"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_geq(json_integer_value(json_object_get(ctx.info, "batches_min_measured")), 3);
	cr_assert_geq(json_integer_value(json_object_get(ctx.info, "batches_cut")), 3);
	cr_assert_float_eq(json_number_value(json_object_get(ctx.info, "expected_seconds")), 200e-6,
			   1e-12);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

static void setup_stderr(void)
{
	setup();
	cr_redirect_stderr();
}

/* Prepare warns on stderr, before anything runs, when the estimate is
 * over 10 minutes (full mode on 100 cpus, 1s per pair: 4950 s). */
Test(c2c, prepare_warns_when_the_estimate_is_over_the_budget, .init = setup_stderr)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();
	char buf[4096];
	size_t len;
	FILE *f;

	cr_assert_eq(vtb_cpuset_parse("0-99", &ctx.cpus), 0);
	cr_assert_eq(set(p, "mode", "full"), 0);
	cr_assert_eq(set(p, "time", "1s"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	fflush(stderr);
	f = cr_get_redirected_stderr();
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	cr_assert(strstr(buf, "warning: 4950 pairs will take about"), "stderr: %s", buf);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* ---- memory need (the planner's feasibility check) ---- */

Test(c2c, memory_need_grows_with_the_square_of_the_cpus)
{
	void *p = new_params();
	uint64_t n2 = 0, n64 = 0, n256 = 0;

	cr_assert_eq(vtb_workload_memory_need(W, p, 2, &n2), 0);
	cr_assert_eq(vtb_workload_memory_need(W, p, 64, &n64), 0);
	cr_assert_eq(vtb_workload_memory_need(W, p, 256, &n256), 0);
	/* the matrix, its pairs and their JSON: about 64 bytes a pair */
	cr_assert_geq(n256, (uint64_t)256 * 256 * 64, "%" PRIu64, n256);
	cr_assert_geq(n64, (uint64_t)64 * 64 * 64, "%" PRIu64, n64);
	/* a page per pinging CPU: 2 CPUs need little, but not nothing */
	cr_assert_gt(n2, 0);
	cr_assert_lt(n2, (uint64_t)1 << 20, "%" PRIu64, n2);
	/* from 64 to 256 CPUs the pairs add 64 bytes each at least */
	cr_assert_geq(n256 - n64, (uint64_t)(256 * 256 - 64 * 64) * 64, "%" PRIu64 " vs %" PRIu64,
		      n256, n64);
	free(p);
}
