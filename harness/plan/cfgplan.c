/* SPDX-License-Identifier: MIT */
/* A VM configuration planned on the host model (cfgplan.h). */
#include <stdlib.h>

#include "cfgplan.h"
#include "plan.h"

static void plan_free(struct vtb_plan *p)
{
	vtb_plan_free(p);
}

int vtb_cfgplan_place(const struct vtb_host_ctx *h, struct vtb_config *c)
{
	struct vtb_plan *plan = NULL;
	uint64_t t0 = vtb_now_ns();
	int r = vtb_plan_make(h->model, &c->req, &plan), v;
	size_t i;

	c->plan_ns = vtb_now_ns() - t0;
	if (r == VTB_PLAN_NO_ROOM)
		return VTB_PLACE_NO_ROOM;
	if (r < 0)
		return -1;
	c->plan = plan;
	c->plan_free = plan_free;
	c->plan_json = vtb_plan_json(plan);
	c->vm_cpus = calloc((size_t)plan->req.vms, sizeof(*c->vm_cpus));
	if (!c->plan_json || !c->vm_cpus)
		return vtb_error("out of memory");
	c->n_vm_cpus = (size_t)plan->req.vms;
	for (v = 0; v < plan->req.vms; v++)
		for (i = 0; i < plan->vm[v].cpus.n; i++)
			if (vtb_cpuset_add(&c->vm_cpus[v], plan->vm[v].cpus.cpus[i]) < 0 ||
			    vtb_cpuset_add(&c->cpus, plan->vm[v].cpus.cpus[i]) < 0)
				return -1;
	/* placed, but its memory does not fit the host nodes */
	if (plan->why_not && !(c->why_not = vtb_strdup(plan->why_not)))
		return -1;
	return 0;
}
