/* SPDX-License-Identifier: MIT */
/*
 * vtbench explore's driver: the matrix's [explore] objective raced over
 * its configurations with the racing engine (race.h), one round of boots
 * at a time through the runner's round hook (runner.h struct
 * vtb_run_rounds).  After each round it rebuilds the race from the
 * stored boots (the engine is deterministic, so a resumed campaign is the
 * same race), saves the race and its eliminations in the store, and says
 * which configurations boot next: every surviving candidate and its
 * bare-metal baseline.
 *
 * Candidates: the runnable VM configurations, each with its own baseline
 * (the baseline on exactly its pCPUs, else one with as many CPUs, as
 * compare pairs them); a matrix without VM configurations races its
 * bare-metal configurations.  docs/explore.md.
 */
#ifndef VTB_EXPLORE_H
#define VTB_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct vtb_matrix;
struct vtb_store;
struct vtb_explore;

/* The candidates explore races in @m, in matrix order: @cfg[i] is the
 * index of candidate i in m->configs, @base[i] that of its baseline
 * (SIZE_MAX: none, and always for bare-metal candidates).  Both arrays
 * hold m->n_configs.  Returns the count (0: nothing runnable to race).
 * vtbench plan shows them. */
size_t vtb_explore_candidates(const struct vtb_matrix *m, size_t *cfg, size_t *base);

/* Reads @m's [explore] (m->explore) and picks the candidates; @m is
 * borrowed for the explore's life.  NULL with vtb_error() (an input
 * error) when the matrix has no [explore] or no runnable candidate.
 * @note, when not NULL, gets one line of news per round. */
struct vtb_explore *vtb_explore_new(const struct vtb_matrix *m,
				    void (*note)(const char *msg, void *arg), void *note_arg);
void vtb_explore_free(struct vtb_explore *ex);

/* The runner's round hook (struct vtb_run_rounds.decide); @arg is the
 * explore. */
int vtb_explore_decide(void *arg, struct vtb_store *st, int64_t campaign, const int *next,
		       bool *want, bool *input);

/* After the runner: rebuilds the race from what is stored once more and
 * saves it, with stop "interrupted" or "time" (the budget_time) when the
 * race was still running.  0, or -1 with vtb_error(); nothing to do when
 * decide was never called. */
int vtb_explore_finish(struct vtb_explore *ex, struct vtb_store *st, bool interrupted,
		       bool time_spent);

/* The outcome, for the command's summary (valid until the next call). */
struct vtb_explore_outcome {
	const char *stop;   /* as stored: running one same budget rounds empty futile time
			       interrupted */
	const char *why;    /* futile: the sentence that says why ("futile: the 2 survivors
			       ..."), else NULL */
	const char *winner; /* its label; NULL: none yet */
	size_t tied;	    /* survivors tied with it (same on every metric) */
	size_t rounds, boots, candidates, eliminated;
};
void vtb_explore_outcome(const struct vtb_explore *ex, struct vtb_explore_outcome *out);

/*
 * What vtbench explore would race in @m, for vtbench plan: the candidates
 * as explore picks them, the distinct baselines they need, how many have
 * each objective metric's cell, and what the race can cost at most (by
 * max_rounds and budget_boots).  m->explore must be set.
 */
struct vtb_explore_plan {
	/* candidate i: m->configs[cfg[i]] beside m->configs[base[i]] (SIZE_MAX:
	 * none) */
	size_t n, *cfg, *base; /* candidates, their configuration and baseline */
	size_t nb, *bases;     /* the distinct baselines they need */
	size_t no_base;	       /* VM candidates without a baseline */
	size_t *with_cell;     /* per objective metric: candidates with its cell */
	long long rounds;      /* rounds at most */
	long long cand_boots;  /* candidate boots at most */
	long long base_boots;  /* baseline boots at most */
	bool short_budget;     /* budget_boots stops the race before its first test */
};

/* 0, or -1 with vtb_error() on ENOMEM (nothing to release then). */
int vtb_explore_plan_make(const struct vtb_matrix *m, struct vtb_explore_plan *x);
void vtb_explore_plan_release(struct vtb_explore_plan *x);
/* The plan's "explore" object (new reference; NULL on ENOMEM). */
json_t *vtb_explore_plan_json(const struct vtb_matrix *m, const struct vtb_explore_plan *x);

#endif
