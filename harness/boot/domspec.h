/* SPDX-License-Identifier: MIT */
/* A plan's VM as a domain spec: the step from the typed plan (plan/) to the
 * domain XML (domxml.c), on the boot side so the planner never includes
 * the boot part. */
#ifndef VTB_DOMSPEC_H
#define VTB_DOMSPEC_H

#include "../plan/plan.h"
#include "domxml.h"

/*
 * The placement fields of @d for VM @vm: vcpus and topology, vcpupin,
 * emulatorpin (the housekeeping CPUs, when any), cells, numatune, memory
 * backing, machine type and the dedicated hint (strict pinning without overcommit).  Pointers into
 * @p and @store (which the caller keeps until @d is used and then releases with
 * vtb_plan_domstore_release()).  Other fields of @d are left alone.
 */
struct vtb_plan_domstore {
	struct vtb_domcell *cells;
};
int vtb_plan_domspec(const struct vtb_plan *p, int vm, struct vtb_domspec *d,
		     struct vtb_plan_domstore *store);
void vtb_plan_domstore_release(struct vtb_plan_domstore *s);

#endif
