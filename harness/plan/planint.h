/* SPDX-License-Identifier: MIT */
/*
 * Private to harness/plan/plan*.c: the planner's context, the shape
 * mirror and lie take, the host view, and the helpers the planner's files
 * share (prefixed pl_).  The planner's interface is plan.h.
 */
#ifndef VTB_PLANINT_H
#define VTB_PLANINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* mirror's shape (lie repeats it): t threads per core, c cores per die,
 * l dies, s sockets (0: the packages used hold different numbers of the
 * dies, told one socket).  t == 0: no shape (flat, cores, explicit). */
struct shape {
	int t, c, l, s;
};

struct ctx {
	const struct vtb_topo *t;
	const struct vtb_plan_req *r;
	struct vtb_plan *p;
	/* the level that stands for the LLC: VTB_TOPO_LLC, or without cache
	 * information the die, else the package; -1: the whole host */
	int llc_level;
	bool notes; /* the placement kept (not a trial): say what it did */
	/* lie: mirror's guest cell of each VM's vCPUs (vms x vcpus), which
	 * lie keeps; NULL: cells by host node of the assignment */
	const int *cells;
	/* lie within mirror's cores: no second core for one virtual core's
	 * threads, no half of a die from another LLC (claims may stay
	 * true); the fallback when lying leaves a VM no room */
	bool modest;
};

struct hview {
	struct hunit *units;
	int n;
	int *pu_store;
	struct hcore *core_store;
};

int pl_assign(struct ctx *x, int vm, const int *pool, size_t n_pool, const struct shape *sh,
	      const int *load, const bool *used, int *pcpu, int *cellof);
int pl_assign_loose(struct ctx *x, int vm, const int *cand, size_t n, const struct shape *sh,
		    const bool *used, int *pcpu, int *cellof);
int pl_cells_of(struct ctx *x, struct vtb_plan_vm *m, const int *cellof);
int pl_check_spans(struct ctx *x, int vm);
int pl_claims_of(struct ctx *x, int vm);
int pl_enum_shapes(const struct hview *v, int nv, struct shape **out, size_t *n_out);
int pl_hview_build(const struct ctx *x, const int *pool, size_t n, bool by_node, struct hview *v);
void pl_hview_release(struct hview *v);
int pl_llc_level_of(const struct vtb_topo *t);
int pl_llc_fallback_note(struct ctx *x);
int pl_llc_of(const struct ctx *x, const struct vtb_topo_pu *p);
int pl_mem_check(struct ctx *x);
int pl_node_index(const struct vtb_topo *t, int os);
int pl_node_os(const struct vtb_topo *t, const struct vtb_topo_pu *p);
int pl_note(struct vtb_plan *p, int vm, char *text);
int pl_pins_of(struct ctx *x, struct vtb_plan_vm *m);
int pl_pool_of(struct ctx *x, const struct vtb_cpuset *hk_set, int **pool, size_t *n_pool);
int pl_set_of(const int *cpus, size_t n, struct vtb_cpuset *out);
int pl_split_memory(uint64_t bytes, bool huge, const size_t *count, size_t n, uint64_t *out);

#endif
