/* SPDX-License-Identifier: MIT */
/*
 * The compare model: from the store, the report document
 * ("schema": "vtbench-compare/1", README "compare") that every emitter
 * (text, md, csv, html, json) renders.  The unit of observation is the
 * boot: one value per boot and metric.
 *
 * Selection: one campaign (the latest by default) against its own
 * bare-metal baselines, a named baseline configuration, along one axis,
 * or the same configurations of another campaign (--against).
 */
#ifndef VTB_COMPARE_H
#define VTB_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"
#include "store.h"

#define VTB_COMPARE_SCHEMA "vtbench-compare/1"

struct vtb_compare_opts {
	const char *campaign;	      /* uuid or prefix; NULL: the latest */
	const char *against_campaign; /* uuid or prefix in the against store; NULL: none
					 (or its latest when there is an against store) */
	const char *baseline;	      /* NULL or "own": each VM against its own baseline;
					 else a configuration key prefix or label glob */
	const char *axis;	      /* NULL or an axis name (README) */
	const char *metric;	      /* glob on metric names; NULL: all */
	const char *workload;	      /* workload type or cell name; NULL: all */
	bool fail_on_worse;	      /* --fail-on worse (default) */
	struct vtb_test_opts test;
};

/* Defaults: own baseline, fail on worse, vtb_test_opts_default(). */
void vtb_compare_opts_default(struct vtb_compare_opts *o);

/*
 * Builds the report document (a new reference in *doc).  @st is the
 * database (@db its name, for messages); @against another database
 * (--against OTHER.db) or NULL, in which case o->against_campaign (if
 * any) is looked up in @st.  Returns 0, or -1 with vtb_error() and
 * *bad_input true for an input error (exit 2: no campaign, an unknown
 * or ambiguous campaign, nothing to compare, a glob matching nothing)
 * or false for a failure of the database or memory.
 */
int vtb_compare_build(struct vtb_store *st, const char *db, struct vtb_store *against,
		      const char *against_db, const struct vtb_compare_opts *o, json_t **doc,
		      bool *bad_input);

/* Rows of @doc with the verdict "worse". */
size_t vtb_compare_worse(const json_t *doc);

#endif
