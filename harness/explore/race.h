/* SPDX-License-Identifier: MIT */
/*
 * The racing engine of `vtbench explore` (issue 19; in the style of
 * F-Race and irace): N candidate configurations, an objective of one or
 * more metrics in lexicographic order, one boot of every surviving
 * candidate per round.  From round min_rounds on, each round compares
 * every survivor against the round's best with compare's statistic
 * (stats.h: the log-ratio t interval and test of the metric's class),
 * adjusts the round's p-values (BH, as compare, or Holm) and drops the
 * candidates whose verdict is `worse` by compare's rules.  Every elimination keeps its round and
 * its evidence.  It stops at one survivor, when every survivor is `same` as the best within the
 * threshold on every metric, when the boots or rounds are spent, or when no open comparison could
 * be decided within the rounds the caps leave (futility).  docs/explore.md gives the algorithm
 * and the benchmark.
 *
 * Pure: no I/O, no globals, no randomness: the same rounds give the same
 * race, so a resumed campaign replays its stored rounds to rebuild it.
 * Errors: -1 or NULL with vtb_error().
 */
#ifndef VTB_RACE_H
#define VTB_RACE_H

#include <stdbool.h>
#include <stddef.h>

#include "../compare/stats.h"

/* One metric of the objective, in priority order. */
struct vtb_race_metric {
	enum vtb_metric_class k; /* the statistic and its mean (stats.h) */
	bool higher_better;
};

/* Multiplicity control across the comparisons of one round. */
enum vtb_race_adjust {
	VTB_RACE_BH,   /* Benjamini-Hochberg, compare's (vtb_bh()) */
	VTB_RACE_HOLM, /* Holm's step-down: the family-wise error of a round */
};

struct vtb_race_opts {
	size_t min_rounds;	     /* rounds before the first test (>= 2; default 3) */
	size_t max_rounds;	     /* rounds at most (0: no cap; default 40) */
	size_t budget;		     /* boots at most, over all candidates (0: no cap) */
	double alpha;		     /* q below which a difference is significant, and 1 - the
					intervals' level (default .05) */
	double threshold_pct;	     /* compare's threshold (default 5): `worse` beyond it,
					`same` within +-it */
	enum vtb_race_adjust adjust; /* default BH, as compare */
	bool drop_significant;	     /* also drop a candidate significantly worse by less
					than the threshold (F-Race's rule); default false:
					compare's `worse` verdict only */
	bool futility;		     /* stop (VTB_RACE_FUTILE) when every open comparison
					needs more boots a side than the last round the
					caps allow (vtb_race_last_round()) and none could
					still end in a drop; never without a cap; default
					false (docs/explore.md: it saves boots but costs
					found-best and the ratios to the full design) */
};
/* min_rounds 3, max_rounds 40, budget 0, alpha .05, threshold 5%, BH,
 * compare's `worse` only, futility off. */
void vtb_race_opts_default(struct vtb_race_opts *o);

/* Why a race stopped (vtb_race_stopped()). */
enum vtb_race_stop {
	VTB_RACE_RUNNING, /* not stopped: boot the survivors again */
	VTB_RACE_ONE,	  /* one survivor */
	VTB_RACE_SAME,	  /* every survivor `same` as the best on every metric */
	VTB_RACE_BUDGET,  /* another round would pass the boot budget */
	VTB_RACE_ROUNDS,  /* max_rounds rounds done */
	VTB_RACE_EMPTY,	  /* every candidate dropped as missing */
	VTB_RACE_FUTILE,  /* futility: every open comparison needs more boots a side
			     than the rounds the caps leave, and none is near a drop */
};
/* "running" "one" "same" "budget" "rounds" "empty" "futile"; NULL out of
 * range. */
const char *vtb_race_stop_name(int stop);

/* An elimination and its evidence. */
struct vtb_race_elim {
	size_t candidate;
	size_t round;		   /* 1-based round whose test dropped it */
	size_t metric;		   /* index in the objective of the metric that decided */
	size_t against;		   /* the round's best on that metric */
	int why;		   /* VTB_V_WORSE, or VTB_V_MISSING: under 2 samples of a metric
				      after min_rounds rounds (its boots failed) */
	size_t family;		   /* comparisons in the round's multiplicity family */
	const char *adjust;	   /* "bh" or "holm" */
	struct vtb_comparison cmp; /* the candidate (x) against `against` (base):
				      change, interval, p, q (adjusted p), test,
				      boots a side; verdict VTB_V_WORSE or VTB_V_MISSING */
};

/* Where a candidate stands after the last round. */
struct vtb_race_standing {
	bool alive;
	bool winner;		   /* the round's best on the last metric reached */
	size_t boots;		   /* rounds it was booted in */
	size_t elim;		   /* index in vtb_race_elims() when dropped, else SIZE_MAX */
	size_t metric;		   /* survivor: the metric of its last comparison */
	size_t against;		   /* survivor, not winner: the best on that metric, whom
				      cmp compares it with (not always the winner with
				      several metrics); else SIZE_MAX */
	struct vtb_comparison cmp; /* survivor, not winner: that comparison against the
				      best; its verdict VTB_V_SAME on the last metric
				      means tied on every metric */
	double boots_needed;	   /* survivor whose comparison is open (neither `same`
				      nor dropped): boots a side that would decide it at
				      the observed estimate and spread (vtb_boots_needed();
				      with drop_significant the fewer of `same` and a
				      significant difference), NAN when no number would;
				      NAN for the winner, a tied or an untested survivor */
};

struct vtb_race;

/*
 * A race of @n candidates (0 .. n - 1) on the @nm metrics of @metrics
 * (copied), with @o (NULL: the defaults).  NULL with vtb_error() when
 * n or nm is 0, an option is out of range or memory runs out.  One
 * candidate: the race is over before it starts (VTB_RACE_ONE, winner 0);
 * a budget smaller than n: VTB_RACE_BUDGET before round 1.
 * vtb_race_free() it (NULL is fine).
 */
struct vtb_race *vtb_race_new(size_t n, const struct vtb_race_metric *metrics, size_t nm,
			      const struct vtb_race_opts *o);
void vtb_race_free(struct vtb_race *r);

/* Survivors in candidate order into @idx (room for n), their count. */
size_t vtb_race_survivors(const struct vtb_race *r, size_t *idx);

/*
 * One round: @samples[i * nm + m] is metric m of the boot of the i-th
 * survivor (vtb_race_survivors() order).  NAN is a missing sample (a
 * failed boot); the boot still counts.  Before round min_rounds the
 * samples only accrue (no comparison, no standing); from it on, each round
 * tests, drops and decides whether to stop.  -1 with vtb_error(), the race
 * unchanged, when it is stopped, a sample is infinite, a THROUGHPUT or
 * LATENCY sample is <= 0 (no inverse or log), or memory runs out.
 */
int vtb_race_round(struct vtb_race *r, const double *samples);

/* enum vtb_race_stop: RUNNING while another round is wanted. */
int vtb_race_stopped(const struct vtb_race *r);
/* Rounds fed, boots spent. */
size_t vtb_race_rounds(const struct vtb_race *r);
size_t vtb_race_boots(const struct vtb_race *r);
/* The last round the race can reach: max_rounds, or with a budget the
 * round its current survivors would end within it, whichever comes first;
 * SIZE_MAX without a cap.  Futility compares each open comparison's
 * boots_needed against it. */
size_t vtb_race_last_round(const struct vtb_race *r);
/* The best survivor at the last test; SIZE_MAX before the first (round
 * min_rounds), 0 in a one-candidate race. */
size_t vtb_race_winner(const struct vtb_race *r);
/* The eliminations in the order they happened; *n their count.  Owned by
 * the race. */
const struct vtb_race_elim *vtb_race_elims(const struct vtb_race *r, size_t *n);
/* Candidate @c's standing (owned by the race); NULL when c >= n. */
const struct vtb_race_standing *vtb_race_standing(const struct vtb_race *r, size_t c);

#endif
