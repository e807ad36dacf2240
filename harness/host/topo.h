/* SPDX-License-Identifier: MIT */
/*
 * The host topology as plain data: packages, dies, NUMA nodes (memory,
 * distances), last-level caches, L2s, cores and PUs with their OS
 * numbers.  hosttopo.c fills it from hwloc (the local machine, hwloc XML,
 * synthetic strings) or from libvirt capabilities XML; everything else
 * (the placement planner, `vtbench topo`, matrix resolution) reads it
 * without hwloc.  Nothing here assumes that SMT siblings, or the CPUs of
 * one package, have adjacent OS numbers.
 */
#ifndef VTB_TOPO_H
#define VTB_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/vtbutil.h"

/* Grouping levels, innermost first. */
enum vtb_topo_level {
	VTB_TOPO_CORE,
	VTB_TOPO_L2,
	VTB_TOPO_LLC,
	VTB_TOPO_DIE,
	VTB_TOPO_PKG,
	VTB_TOPO_NLEVELS,
};

struct vtb_topo_pu {
	int os; /* OS (Linux) CPU number */
	/* Indexes into struct vtb_topo's arrays: groups[VTB_TOPO_CORE][core]
	 * and so on, nodes[node].  -1: none (the source does not say, or
	 * the PU is offline). */
	int core, l2, llc, die, pkg, node;
	bool online;  /* offline PUs are listed when the source knows them */
	bool allowed; /* usable for benchmarking: online, in the allowed set
			 (cgroup) and, for the local host, our affinity, and
			 on a node (below) */
	/* ours to run on (online, allowed set, affinity) but on no NUMA
	 * node we may take memory from: the source gives it none (its node
	 * is offline) or its node is outside the allowed node set (cgroup
	 * cpuset.mems).  Then not allowed: a guest or baseline there would
	 * have no local memory, and its cell no host node to be bound to;
	 * housekeeping may go there (vtb_topo_finish() sets it) */
	bool nodeless;
};

/* A core, L2, LLC, die or package. */
struct vtb_topo_group {
	int os;		       /* the source's id (core_id, cache id, package id); -1 unknown */
	uint64_t size;	       /* caches: bytes, 0 unknown; else 0 */
	struct vtb_cpuset pus; /* its online PUs (OS numbers) */
};

/*
 * A NUMA node and its memory.  memory is the node's total (MemTotal);
 * huge page pools are carved out of it, so a guest without huge pages
 * can have at most normal bytes, one with huge pages at most the free 2
 * MiB pages (the size libvirt's <hugepages/> takes on x86).  What a
 * source does not say is unknown: memory and normal 0, the huge page
 * counts -1 (hwloc and capabilities XML give the pool's size; only the
 * local host tells how much of it is free).
 */
struct vtb_topo_node {
	int os;		   /* NUMA node number */
	uint64_t memory;   /* bytes, 0 unknown */
	uint64_t normal;   /* bytes in normal pages (memory less the huge page pools), 0 unknown */
	int64_t hugepages; /* 2 MiB pages in the pool, -1 unknown */
	int64_t hugepages_free; /* of those, free now; -1 unknown */
	struct vtb_cpuset pus;	/* online PUs whose node this is (empty: memory only) */
	bool denied;		/* outside the allowed node set (cgroup cpuset.mems) */
};

#define VTB_TOPO_HUGEPAGE (2ull << 20) /* the huge page size nodes count */

/*
 * The model.  Arrays are owned by it (vtb_topo_release()).
 * - pus: the online PUs in compact order (SMT siblings, then cores of an
 *   L2/LLC, then LLCs of a node, ...: a baseline of N CPUs takes the first
 *   N allowed ones), then the offline PUs by OS number.
 * - groups[level]: numbered in order of first appearance in the compact
 *   order, so a package's index is the same whichever source described it.
 *   No L2s when the source does not give them (capabilities XML); when it
 *   gives no dies, each package is one die.
 * - nodes: by OS number; distances: n_nodes x n_nodes, row-major, in
 *   nodes[] order (NULL when unknown).
 */
struct vtb_topo {
	struct vtb_topo_pu *pus;
	size_t n_pus, n_online;
	struct vtb_topo_group *groups[VTB_TOPO_NLEVELS];
	size_t n_groups[VTB_TOPO_NLEVELS];
	struct vtb_topo_node *nodes;
	size_t n_nodes;
	unsigned *distances;
	int llc_level; /* 3, 2 or 1; 0 when the source gives no caches */
	/* index in pus[] by OS number, -1 when absent; max_os + 1 entries */
	int *by_os;
	int max_os;
};

/* "core", "L2", "LLC", "die", "package". */
const char *vtb_topo_level_name(enum vtb_topo_level level);

/*
 * Building (for hosttopo.c and tests).  A source fills pus (any order,
 * with os, online and allowed; indexes ignored), groups[] and nodes (any
 * order, with their PU sets), distances in its nodes[] order, llc_level,
 * then calls vtb_topo_finish().  @order: the online PUs in compact order
 * as the source knows it (hwloc's logical order), or NULL to derive it
 * with vtb_topo_compact_rule().  Checks that every PU is listed once and
 * is in at most one group per level and one node; sorts and numbers
 * everything as documented above; marks the online PUs on no node (or
 * on a denied one) nodeless and not allowed.  -1 with vtb_error() on an
 * inconsistent description.
 */
int vtb_topo_finish(struct vtb_topo *t, const int *order, size_t n_order);
/* Appends a PU, a group (os -1, size 0, no PUs) or a node (os -1); the
 * pointer is valid until the next append of its kind.  NULL with
 * vtb_error() when out of memory. */
struct vtb_topo_pu *vtb_topo_add_pu(struct vtb_topo *t, int os, bool online, bool allowed);
struct vtb_topo_group *vtb_topo_add_group(struct vtb_topo *t, enum vtb_topo_level level);
struct vtb_topo_node *vtb_topo_add_node(struct vtb_topo *t);

/*
 * The compact order of the online PUs derived from the groups alone:
 * depth first through packages, dies, NUMA nodes (at the level where they
 * nest: above the LLCs on EPYC NPS4, below them with sub-NUMA clustering),
 * LLCs, L2s, cores and PUs, siblings ordered by their lowest OS number.
 * This is hwloc's logical order for the shapes hwloc builds from the
 * same groups.  Into @out (t->n_online entries).  Needs a finished model
 * (or one whose PU indexes are set).
 */
void vtb_topo_compact_rule(const struct vtb_topo *t, int *out);

/* The PU with OS number @os, or NULL. */
const struct vtb_topo_pu *vtb_topo_pu_by_os(const struct vtb_topo *t, int os);
/* The PUs of the group at @level holding PU @os (its SMT siblings for
 * VTB_TOPO_CORE, the CPUs sharing its LLC...); NULL when none. */
const struct vtb_cpuset *vtb_topo_pus_of(const struct vtb_topo *t, enum vtb_topo_level level,
					 int os);
/* Distance from nodes[i] to nodes[j]; 0 when unknown. */
unsigned vtb_topo_distance(const struct vtb_topo *t, size_t i, size_t j);

/*
 * What a guest can bind on nodes[i], into *@bytes: with @hugepages the
 * free 2 MiB huge pages (the pool when the source does not say how many
 * are free: *@free_known false; may be NULL), else the normal memory (the
 * total when the source gives no page split).  false when the source
 * does not say (no memory size, or no huge page count).
 */
bool vtb_topo_node_capacity(const struct vtb_topo *t, size_t i, bool hugepages, uint64_t *bytes,
			    bool *free_known);

/* Sum of the sizes of the distinct LLCs holding @cpus (0 when the source
 * gives no sizes).  -1 with vtb_error() for a CPU that is not an online
 * PU of the host. */
int vtb_topo_llc_bytes(const struct vtb_topo *t, const struct vtb_cpuset *cpus, uint64_t *out);
/* OS numbers of the NUMA nodes of @cpus into @out (caller releases);
 * -1 with vtb_error() as above. */
int vtb_topo_nodes_of(const struct vtb_topo *t, const struct vtb_cpuset *cpus,
		      struct vtb_cpuset *out);

/*
 * Identity of the shape as 64 hex digits: for every online PU by OS
 * number, its core, LLC (and its size), die, package and node, each group
 * named by its lowest OS number, node by its number; and the nodes
 * without CPUs.  Not in it: offline and disallowed CPUs, L2s, memory
 * sizes, distances and ids, which some sources lack or which change with
 * no change of shape.  So hwloc XML, synthetic strings and capabilities
 * XML of one machine give the same digest.  -1 with vtb_error().
 */
int vtb_topo_digest(const struct vtb_topo *t, char out[65]);

void vtb_topo_release(struct vtb_topo *t);

#endif
