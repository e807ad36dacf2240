/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of the c2c workload (workloads/c2c.c), kept apart so
 * unit tests can drive them with hand-written matrices and fake sysfs
 * trees: which CPU pairs to measure (full or sampled), the median of a
 * pair's batches, the hierarchical clustering of a latency matrix into
 * levels of close CPUs, the topology sysfs claims (to name the levels),
 * and the matrix as JSON.
 *
 * A matrix is n x n doubles, row-major, indexed by position in the
 * cell's CPU list (not by CPU number); NaN means "not measured" (the
 * diagonal, and the pairs sampled mode skips).  Values are round-trip
 * nanoseconds.  A partition of the n positions is a size_t array whose
 * entry i is the smallest position in i's group (canonical form, so two
 * partitions are equal when their arrays are).
 */
#ifndef VTB_C2CCLUST_H
#define VTB_C2CCLUST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vtbutil.h"

/* Most CPUs a cell may have: a 2048-CPU matrix is about 25 MB of JSON,
 * well inside the record parser's 64 MiB payload limit. */
#define VTB_C2C_MAX_CPUS 2048

/* Level boundaries also need an absolute jump of at least this much, so
 * noise on tiny values never splits a level. */
#define VTB_C2C_MIN_GAP_NS 1.0

/* Median of @v[0..n) (sorted in place; NaN when n == 0). */
double vtb_c2c_median(double *v, size_t n);

struct vtb_c2c_pair {
	uint32_t a, b; /* positions, a < b; a pings (its row holds the line) */
};

/*
 * The pairs to measure, row-major (by a, then b).  @rep_of NULL: every
 * unordered pair (full mode).  Otherwise sampled mode over the partition
 * @rep_of (rep_of[i] = the first CPU of i's group, its representative):
 *  - @against_all false (groups are SMT cores): every pair of two
 *    representatives, and each CPU with its own representative.  The
 *    other CPUs of a core reach the other cores only through their
 *    representative, which shares their L1 and L2.
 *  - @against_all true (groups are LLCs or nodes, used when there is no
 *    SMT): every pair with a representative in it, so each group's
 *    representative is measured against every CPU.
 * *out is malloc'ed (NULL when there is no pair); -1 with vtb_error() on
 * ENOMEM.
 */
int vtb_c2c_plan(size_t n, const size_t *rep_of, bool against_all, struct vtb_c2c_pair **out,
		 size_t *n_out);

/*
 * Expected seconds of a run of @pairs pairs: a pair runs batches until
 * @time_ns is spent, but at least MIN_BATCHES + 1 of @rounds round trips
 * (the first is discarded), and a batch is cut once 2 x @time_ns has
 * passed.  So per pair: max(time, min(2 x time, (MIN_BATCHES + 1) x
 * rounds x VTB_C2C_RT_ESTIMATE_NS)).
 */
#define VTB_C2C_MIN_BATCHES 3	     /* measured batches per pair, whatever the time */
#define VTB_C2C_RT_ESTIMATE_NS 200.0 /* a cross-socket round trip, roughly */
double vtb_c2c_expected_seconds(size_t pairs, uint64_t time_ns, long long rounds);

struct vtb_c2c_level {
	double lo_ns, hi_ns; /* merge heights (average linkage) of this level */
	double mean_ns;	     /* mean of the measured pairs first joined here */
	size_t n_pairs;	     /* how many measured pairs that is */
	size_t n_clusters;
	size_t *cluster_of; /* the partition after this level (canonical) */
};

struct vtb_c2c_clusters {
	size_t n; /* positions */
	size_t n_levels;
	struct vtb_c2c_level *levels; /* finest (closest CPUs) first */
};

/*
 * Hierarchical clustering of @m (n x n, NaN = unmeasured; m[i][j] and
 * m[j][i] are averaged when both are finite).  Average linkage (UPGMA)
 * merges the two closest clusters until one is left or no measured pair
 * links the rest; a cluster's distance to another is the mean of the
 * measured pairs between them, so one noisy pair moves it little.  The
 * merge heights never decrease; a new level starts where a height
 * exceeds the previous one by more than the fraction @gap (0.25: 25%)
 * and by VTB_C2C_MIN_GAP_NS.  So SMT siblings, then CPUs sharing an LLC,
 * then a node, then the machine come out as successive levels, whatever
 * their numbering.  -1 with vtb_error() on ENOMEM or bad arguments.
 */
int vtb_c2c_cluster(const double *m, size_t n, double gap, struct vtb_c2c_clusters *out);
void vtb_c2c_clusters_release(struct vtb_c2c_clusters *c);

/* What sysfs claims: the partitions of the cell's CPUs by SMT core, LLC
 * instance, package and NUMA node.  A kind sysfs does not describe is
 * NULL. */
enum { VTB_C2C_SMT, VTB_C2C_LLC, VTB_C2C_PACKAGE, VTB_C2C_NODE, VTB_C2C_N_KINDS };
extern const char *const vtb_c2c_kind_names[VTB_C2C_N_KINDS]; /* "smt", ... */

struct vtb_c2c_topo {
	size_t n;
	size_t *of[VTB_C2C_N_KINDS];
};

/*
 * Reads the partition of @kind for @cpus from ROOT/cpuN (@root NULL:
 * VTB_SYSFS_CPU_ROOT): topology/thread_siblings_list, the
 * shared_cpu_list of the highest data cache level, topology/
 * package_cpus_list (core_siblings_list on older kernels), the nodeM
 * entry.  Into @of (cpus->n entries).  -1 with vtb_error() when sysfs
 * lacks it or it is malformed.
 */
int vtb_c2c_sysfs_partition(const char *root, const struct vtb_cpuset *cpus, int kind, size_t *of);
/* Every kind that can be read; never fails for a missing kind (NULL),
 * only on ENOMEM. */
int vtb_c2c_topo_read(const char *root, const struct vtb_cpuset *cpus, struct vtb_c2c_topo *t);
void vtb_c2c_topo_release(struct vtb_c2c_topo *t);

/* Number of groups of a canonical partition. */
size_t vtb_c2c_count_groups(const size_t *of, size_t n);

/*
 * What sampled mode groups by, from sysfs under @root (NULL: the real
 * one): the SMT cores when some CPU of @cpus has a sibling among them;
 * else the LLCs, else the NUMA nodes, when they make more than one group
 * and fewer than the CPUs.  Returns the kind (VTB_C2C_SMT, _LLC or
 * _NODE) with its partition in @rep_of (cpus->n entries), or -1 when no
 * kind groups the CPUs (or sysfs lacks them, or memory ran out): then
 * every pair is measured.  Never an error.
 */
int vtb_c2c_sample_kind(const char *root, const struct vtb_cpuset *cpus, size_t *rep_of);

/*
 * The names of level @k of @cl (@lv) for metrics: the sysfs kinds whose
 * partition it equals ("smt", "llc", "package", "node"), else "machine"
 * when it is one cluster, else "unmatched<k>".  A new JSON array of
 * strings, NULL on ENOMEM.
 */
json_t *vtb_c2c_level_names(const struct vtb_c2c_topo *t, const struct vtb_c2c_level *lv, size_t k);

/*
 * {"cpus":[CPU,...],"ns":[[v|null,...],...]}: the matrix by CPU
 * number order of @cpus, values rounded to a quarter nanosecond (exact
 * in binary, so the JSON stays short: 123.25, not 123.2999...), null
 * where not measured.  NULL on ENOMEM.
 */
json_t *vtb_c2c_matrix_json(const struct vtb_cpuset *cpus, const double *m);
double vtb_c2c_round_quarter(double v);

#endif
