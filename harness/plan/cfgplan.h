/* SPDX-License-Identifier: MIT */
/*
 * A matrix as a command uses it: read (conf.h), each VM configuration
 * planned once on the host model (plan.h), then completed (conf.h) and
 * its memory checked (memfit.h).  The matrix never calls the planner;
 * this is the one place that plans a matrix's configurations, once per
 * campaign.  The plan stays with the configuration (c->plan) for `plan`,
 * the store (its JSON, for provenance) and the boots: nothing plans
 * again.
 */
#ifndef VTB_CFGPLAN_H
#define VTB_CFGPLAN_H

#include "../matrix/conf.h"

/*
 * Plans each VM configuration of @m read by vtb_matrix_read() (and not
 * already refused) on h->model, once: sets c->plan, plan_free,
 * plan_json, cpus, vm_cpus, mems, why_not and runnable.  A host too small
 * for a configuration makes it not runnable ("does not fit this host:
 * ..."), so one matrix serves hosts of every size; without a host model
 * only what needs no planner is runnable.  -1 with vtb_error()
 * "FILE:LINE: LABEL: why" when the planner refuses a request (an input
 * error).
 */
int vtb_matrix_plan(struct vtb_matrix *m, const struct vtb_host_ctx *h);

/*
 * Every step: vtb_matrix_read() (or _read_text()), vtb_matrix_plan(),
 * vtb_matrix_complete(), vtb_matrix_fit_memory().  Errors as
 * vtb_matrix_read(); the matrix is owned by the caller.
 */
int vtb_matrix_load(const char *path, const struct vtb_host_ctx *h, struct vtb_matrix **out);
int vtb_matrix_parse(const char *path, const char *text, size_t len, const struct vtb_host_ctx *h,
		     struct vtb_matrix **out);

#endif
