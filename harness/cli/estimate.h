/* SPDX-License-Identifier: MIT */
/*
 * plan's time estimate of a campaign or a race: each configuration's
 * boots at the mean of its stored boots (plan --db: every campaign's
 * boots of the same configuration key), else of the stored boots of its
 * kind (VM or baseline), else at the per-boot model of plan/eta.h.
 * Under the model, VM boots take one time with KVM and another under
 * TCG: both are kept, and the matrix's accel = says which one applies
 * (auto: the slower, TCG, is the one "seconds" gives).
 */
#ifndef VTB_PLAN_ESTIMATE_H
#define VTB_PLAN_ESTIMATE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct vtb_matrix;
struct vtb_store;

struct vtb_plan_estimate {
	double seconds_kvm, seconds_tcg;
	const char *accel; /* the matrix's: auto | kvm | tcg */
	/* a time budget (reps = auto's budget, the race's budget_ns) the
	 * caller sets after vtb_plan_estimate(); 0: none.  No boot starts
	 * that would end past it: the text says so when the estimate is
	 * longer, the JSON gives it */
	uint64_t budget_ns;
	size_t stored_boots; /* stored boots the estimate stands on */
	/* configurations with boots to run, by what their time came from */
	size_t by_own, by_kind, by_model;
};

/* @boots[i]: the boots of configuration i to run (fractional for a
 * race's mean per candidate); @st NULL: the model only.  0, or -1 with
 * vtb_error(). */
int vtb_plan_estimate(struct vtb_store *st, const struct vtb_matrix *m, const double *boots,
		      struct vtb_plan_estimate *e);
/* "about 31 minutes (model: ...)" (malloc'ed; NULL on ENOMEM) */
char *vtb_plan_estimate_text(const struct vtb_plan_estimate *e);
/* plan's JSON "estimate" object (new reference; NULL on ENOMEM) */
json_t *vtb_plan_estimate_json(const struct vtb_plan_estimate *e);

#endif
