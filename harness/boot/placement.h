/* SPDX-License-Identifier: MIT */
/*
 * Where a VM's vCPUs really ran, against its plan: an accumulator fed
 * one sample at a time (for every vCPU the host CPU it was on), so
 * memory stays bounded however long the guest runs, and the per-boot
 * summary JSON of spec E made from it.  Pure: no /proc, no libvirt
 * (vcpusample.c and provision.c feed it); tests give it hand-made
 * traces on synthetic hosts.
 *
 * Definitions:
 * - planned: the vCPU's pin set from the plan, or for pinning none its
 *   pCPU in the plan's assignment.  off_planned = the fraction of the
 *   vCPU's samples where it ran outside that set.
 * - Groups are the claims of the VM (plan.h): virtual SMT pairs, virtual
 *   dies (LLC groups) and virtual cells (nodes).  One observation is one
 *   (sample, group) where every member's CPU is known and is a PU of the
 *   host model with a group at that level; split_X = the fraction of
 *   observations whose members were not all in one real X (core, LLC,
 *   node).  A member on a CPU the model does not know (another host's
 *   model, an offline CPU) leaves that observation out; it still counts
 *   as off_planned.
 * - migrations and run_delay_ns are the differences between the first
 *   and the last counter readings (null with fewer than two).
 */
#ifndef VTB_PLACEMENT_H
#define VTB_PLACEMENT_H

#include <stdint.h>

#include "../plan/plan.h"
#include "../host/topo.h"

struct vtb_placement;

/*
 * An accumulator for VM @vm of @plan, planned on host model @t (both
 * only read here: what is needed is copied).  @plan NULL: no planned
 * sets and no groups (off_planned and the splits are null); @t NULL:
 * no splits.  @n_vcpus must match the plan's.  -1 with vtb_error().
 */
int vtb_placement_new(const struct vtb_plan *plan, int vm, const struct vtb_topo *t, int n_vcpus,
		      uint64_t interval_ns, struct vtb_placement **out);
void vtb_placement_free(struct vtb_placement *p);

int vtb_placement_vcpus(const struct vtb_placement *p);
/* "proc" (the default) or "libvirt"; a static string. */
void vtb_placement_set_source(struct vtb_placement *p, const char *source);
void vtb_placement_set_tid(struct vtb_placement *p, int vcpu, int tid);

/*
 * One sample: cpus[v] = the host CPU vCPU v was on, -1 unknown.  A
 * sample where every vCPU is unknown is not counted.  -1 with
 * vtb_error() on ENOMEM only.
 */
int vtb_placement_add(struct vtb_placement *p, const int *cpus);

/* A reading of vCPU @vcpu's cumulative counters: the first one is the
 * start, each later one the end. */
void vtb_placement_counters(struct vtb_placement *p, int vcpu, uint64_t migrations,
			    uint64_t run_delay_ns);

/* The live vCPU pinning read back from libvirt: @n cpulists (copied).
 * -1 with vtb_error() on ENOMEM. */
int vtb_placement_set_live_pins(struct vtb_placement *p, const char *const *pins, int n);

/* The summary (spec E), compact with sorted keys, malloc'ed; NULL with
 * vtb_error(). */
char *vtb_placement_json(const struct vtb_placement *p);

/* The claims of VM @vm of @plan as a JSON array of {kind, vm, vcpus,
 * state} (the members of vtb_plan_json()'s "claims"), compact with
 * sorted keys, malloc'ed; NULL with vtb_error(). */
char *vtb_placement_claims_json(const struct vtb_plan *plan, int vm);

#endif
