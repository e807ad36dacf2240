/* SPDX-License-Identifier: MIT */
/*
 * The compare model: from the store, the report document
 * ("schema": "vtbench-compare/2", docs/commands.md "compare") that every emitter
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
#include "../store/store.h"

#define VTB_COMPARE_SCHEMA "vtbench-compare/2"

/* --fail-on: what makes compare exit 1 (flags; 0 is none) */
#define VTB_FAIL_WORSE 1u /* a worse, missing or error row */
#define VTB_FAIL_POSSIBLE                                                \
	2u /* an inconclusive row whose CI reaches past the threshold on \
	      the worse side */

struct vtb_compare_opts {
	const char *campaign;	      /* uuid or prefix; NULL: the latest */
	const char *against_campaign; /* uuid or prefix in the against store; NULL: none
					 (or its latest when there is an against store) */
	const char *baseline;	      /* NULL or "own": each VM against its own baseline;
					 else a configuration key prefix or label glob */
	const char *axis;	      /* NULL or an axis name (docs/commands.md) */
	const char *metric;	      /* glob on metric names; NULL: all */
	const char *workload;	      /* workload type or cell name; NULL: all */
	unsigned fail_on;	      /* VTB_FAIL_* (default: VTB_FAIL_WORSE) */
	bool family_all;	      /* --family all: BH over every row of the comparison,
					 whatever --metric and --workload show */
	struct vtb_test_opts test;    /* test.plain: --no-robust */
};

/* Defaults: own baseline, fail on worse (with missing and error rows),
 * vtb_test_opts_default(). */
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

/*
 * The same document, its "rows" and "series" made one element at a time
 * (each from the statistics kept: a few hundred bytes a row, not its
 * JSON), so that a writer of 100,000 rows holds one of them at once.
 * vtb_compare_doc_head() is every other member (a borrowed reference,
 * valid until vtb_compare_doc_free()); vtb_compare_doc_row() and
 * vtb_compare_doc_series() return element @i as a new reference, or NULL
 * with vtb_error() when out of memory.  Errors of vtb_compare_open() are
 * vtb_compare_build()'s.
 */
struct vtb_compare_doc;
int vtb_compare_open(struct vtb_store *st, const char *db, struct vtb_store *against,
		     const char *against_db, const struct vtb_compare_opts *o,
		     struct vtb_compare_doc **out, bool *bad_input);
/* Accepts NULL. */
void vtb_compare_doc_free(struct vtb_compare_doc *d);
const json_t *vtb_compare_doc_head(const struct vtb_compare_doc *d);
size_t vtb_compare_doc_nrows(const struct vtb_compare_doc *d);
json_t *vtb_compare_doc_row(const struct vtb_compare_doc *d, size_t i);
size_t vtb_compare_doc_nseries(const struct vtb_compare_doc *d);
json_t *vtb_compare_doc_series(const struct vtb_compare_doc *d, size_t i);
/* vtb_compare_failing() of the document @d is. */
size_t vtb_compare_doc_failing(const struct vtb_compare_doc *d, unsigned fail_on);

/*
 * Rows of @doc that fail under @fail_on (VTB_FAIL_*): worse, missing and
 * error rows under VTB_FAIL_WORSE; possible and few rows under
 * VTB_FAIL_POSSIBLE (a row that could not be judged never passes a
 * strict gate).  And under VTB_FAIL_WORSE, when the table has rows and
 * every one is few (nothing could be judged): all of them.
 */
size_t vtb_compare_failing(const json_t *doc, unsigned fail_on);

/* The "evidence" entry of configuration @key in compare document @doc,
 * or NULL. */
const json_t *vtb_compare_evidence_of(const json_t *doc, const char *key);

/*
 * The largest differences between two VM configurations' scheduler
 * evidence in one cell: @xev and @bev are entries of a compare
 * document's "evidence" (with their "sched"), @cell the cell's name.  A new
 * array of at most 4 {"metric" (without the evidence/ prefix), "x",
 * "base", "unit"}, largest first, [] when none is a quarter apart; NULL
 * when either side has no evidence for the cell (or on ENOMEM, with
 * vtb_error()).
 */
json_t *vtb_compare_evidence_diff(const json_t *xev, const json_t *bev, const char *cell);

/* Rows of @doc whose verdict is @verdict. */
size_t vtb_compare_count(const json_t *doc, const char *verdict);

/* Nothing could be judged: the table has rows and every one is few.
 * *@need: the boots a side the test needs. */
bool vtb_compare_nothing_judged(const json_t *doc, long *need);

/*
 * reps = auto: which configurations need more boots.  For every row of
 * @doc that is undecided (inconclusive or few), both of its
 * configurations are marked in @more (parallel to @keys, configuration
 * keys; members of other rows are left as they are); *undecided counts
 * those rows.  A configuration no undecided row involves is decided.
 */
int vtb_compare_pending(const json_t *doc, const char *const *keys, size_t nkeys, bool *more,
			size_t *undecided);

#endif
