/* SPDX-License-Identifier: MIT */
/* A matrix's VM configurations planned on the host model (cfgplan.h). */
#include <stdlib.h>

#include "cfgplan.h"
#include "memfit.h"
#include "plan.h"

static void plan_free(struct vtb_plan *p)
{
	vtb_plan_free(p);
}

/* Carries @plan on @c: its JSON, each VM's pCPUs and all of them. */
static int carry(struct vtb_config *c, struct vtb_plan *plan)
{
	size_t i;
	int v;

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

/* One VM configuration on h->model: the planner's one call for it. */
static int place(const struct vtb_matrix *m, const struct vtb_host_ctx *h, struct vtb_config *c)
{
	struct vtb_plan *plan = NULL;
	uint64_t t0 = vtb_now_ns();
	int r = vtb_plan_make(h->model, &c->req, &plan);

	c->plan_ns = vtb_now_ns() - t0;
	/* a host too small for it: listed as not runnable here, so one
	 * matrix serves hosts of every size */
	if (r == VTB_PLAN_NO_ROOM) {
		c->why_not = vtb_asprintf("does not fit this host: %s", vtb_errmsg());
		return c->why_not ? 0 : vtb_error("out of memory");
	}
	if (r < 0)
		return vtb_error("%s:%d: %s: %s", m->path, c->line, c->label, vtb_errmsg());
	if (carry(c, plan) < 0)
		return -1;
	if (h->mems_of && !(c->mems = h->mems_of(h, &c->cpus)))
		return vtb_error("out of memory");
	return 0;
}

/* Without a host model: what needs the planner is not runnable. */
static int no_model(struct vtb_config *c)
{
	const struct vtb_plan_req *r = &c->req;
	const struct vtb_preset *t = vtb_preset_of(r->topology);

	if (t->from_host)
		c->why_not = vtb_asprintf("topology '%s' needs a host model to plan on", t->name);
	else if (r->topology == VTB_VTOPO_EXPLICIT && r->cells)
		c->why_not = vtb_asprintf("[topology %s]: guest cells need a host model to plan on",
					  vtb_params_get(&c->params, "topology"));
	else if (r->pinning != VTB_PIN_NONE)
		c->why_not = vtb_asprintf("pinning '%s' needs a host model to plan on",
					  vtb_pinning_name(r->pinning));
	else if (r->vms != 1)
		c->why_not = vtb_asprintf("vms = %d: side-by-side VMs need a host model to plan on",
					  r->vms);
	else
		return 0;
	return c->why_not ? 0 : vtb_error("out of memory");
}

int vtb_matrix_plan(struct vtb_matrix *m, const struct vtb_host_ctx *h)
{
	size_t i;

	for (i = 0; i < m->n_configs; i++) {
		struct vtb_config *c = &m->configs[i];

		if (c->kind != VTB_CONFIG_VM || c->plan)
			continue;
		if (!c->why_not && (h->model ? place(m, h, c) : no_model(c)) < 0)
			return -1;
		c->runnable = !c->why_not;
	}
	return 0;
}

/* The steps after reading (cfgplan.h); frees the matrix on errors. */
static int finish(struct vtb_matrix **m, const struct vtb_host_ctx *h)
{
	if (vtb_matrix_plan(*m, h) < 0 || vtb_matrix_complete(*m, h) < 0 ||
	    vtb_matrix_fit_memory(*m, h) < 0) {
		vtb_matrix_free(*m);
		*m = NULL;
		return -1;
	}
	return 0;
}

int vtb_matrix_load(const char *path, const struct vtb_host_ctx *h, struct vtb_matrix **out)
{
	return vtb_matrix_read(path, h, out) < 0 ? -1 : finish(out, h);
}

int vtb_matrix_parse(const char *path, const char *text, size_t len, const struct vtb_host_ctx *h,
		     struct vtb_matrix **out)
{
	return vtb_matrix_read_text(path, text, len, h, out) < 0 ? -1 : finish(out, h);
}
