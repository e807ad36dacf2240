/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend's document: from a campaign vtbench explore ran, per
 * objective metric the winner (and the candidates tied with it) with its
 * change against its bare-metal baseline (compare's row) and against the
 * runner-up (compare's statistic), the sched-domain trees its guests
 * built, its claims and vCPU drift (compare's evidence) and its sched
 * profile as applied, every candidate's values round by round, and the
 * eliminations with their round and evidence and each loser's setup: its
 * sched profile as its boots applied and read it back (the store's sched
 * records), its sched-domain trees with the levels per CPU, and a slot
 * ("evidence", null for now) for the scheduler counters in which it
 * differs most from the winner.  The campaign carries its accelerators
 * (the TCG note).  reports/recommend.c renders it (text, HTML); JSON is
 * the document itself.  docs/explore.md "recommend" lists its members.
 */
#ifndef VTB_RECOMMEND_H
#define VTB_RECOMMEND_H

#include <jansson.h>
#include <stdbool.h>

#define VTB_RECOMMEND_SCHEMA "vtbench-recommend/1"

struct vtb_store;

/*
 * Builds the document of @campaign (a uuid or prefix; NULL: the latest
 * campaign with a race) of the store @st (@db its name, for messages)
 * into *doc (a new reference).  0, or -1 with vtb_error() and *bad_input
 * true for an input error (no such campaign, an ambiguous prefix, a
 * campaign without a race, a damaged race) or false for a failure of the
 * database or memory.
 */
int vtb_recommend_build(struct vtb_store *st, const char *db, const char *campaign, json_t **doc,
			bool *bad_input);

#endif
