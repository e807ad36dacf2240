/* SPDX-License-Identifier: MIT */
/*
 * Where a matrix meets the planner: a VM configuration's typed request
 * (conf.h, c->req) planned on the host model (plan.h), once per
 * configuration when the matrix is loaded.  The plan stays with the
 * configuration (c->plan) for `plan`, the store (its JSON, for
 * provenance) and the boots: nothing plans again.
 */
#ifndef VTB_CFGPLAN_H
#define VTB_CFGPLAN_H

#include "../matrix/conf.h"

/* struct vtb_host_ctx's place (h->model is the host model). */
int vtb_cfgplan_place(const struct vtb_host_ctx *h, struct vtb_config *c);

#endif
