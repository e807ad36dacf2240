/* SPDX-License-Identifier: MIT */
/*
 * The racing engine (harness/explore/race.c) on fixed data: a clearly
 * worse candidate is dropped at the first test with its evidence, nothing
 * is dropped before min_rounds, tied candidates end as `same` survivors,
 * the budget and round caps stop the race, a lexicographic objective
 * falls through to its next metric only on a tie, futility stops a
 * near-tie that no round within the caps could decide (and nothing
 * else), the same rounds give the same race, and hostile inputs (NaN, Inf, <= 0 rates, no or one
 * candidate, bad options) give an error or a defined result.  The
 * benchmark on generated candidates is tests/tools/racebench.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../harness/explore/race.h"
#include "../../common/vtbutil.h"

/* A fixed spread around a centre: boot k of a candidate is
 * centre * (1 + cov * J[k % 10]). */
static const double J[] = { 0, 1, -1, 0.5, -0.5, 0.8, -0.8, 0.3, -0.3, 0.1 };

static const struct vtb_race_metric TIME_LOW = { VTB_MC_TIME, false };

/* Feeds one round: survivor c's metric m is centre[c * nm + m] with the
 * jitter of boot k at @cov. */
static int round_of(struct vtb_race *r, const double *centre, size_t nm, double cov, size_t k)
{
	size_t idx[16], smp_n, i, m;
	double smp[64];

	smp_n = vtb_race_survivors(r, idx);
	for (i = 0; i < smp_n; i++)
		for (m = 0; m < nm; m++)
			smp[i * nm + m] = centre[idx[i] * nm + m] * (1 + cov * J[k % 10]);
	return vtb_race_round(r, smp);
}

/* Rounds until the race stops or @upto rounds. */
static void run(struct vtb_race *r, const double *centre, size_t nm, double cov, size_t upto)
{
	while (!vtb_race_stopped(r) && vtb_race_rounds(r) < upto)
		cr_assert_eq(round_of(r, centre, nm, cov, vtb_race_rounds(r)), 0, "%s",
			     vtb_errmsg());
}

static size_t ndrops(const struct vtb_race *r)
{
	size_t n;

	vtb_race_elims(r, &n);
	return n;
}

Test(race, defaults_and_names)
{
	struct vtb_race_opts o;

	vtb_race_opts_default(&o);
	cr_assert_eq(o.min_rounds, 3);
	cr_assert_eq(o.max_rounds, 40);
	cr_assert_eq(o.budget, 0);
	cr_assert_float_eq(o.alpha, 0.05, 1e-12);
	cr_assert_float_eq(o.threshold_pct, 5, 1e-12);
	cr_assert_eq(o.adjust, VTB_RACE_BH);
	cr_assert_not(o.drop_significant);
	cr_assert_not(o.futility);
	cr_assert_str_eq(vtb_race_stop_name(VTB_RACE_RUNNING), "running");
	cr_assert_str_eq(vtb_race_stop_name(VTB_RACE_FUTILE), "futile");
	cr_assert_str_eq(vtb_race_stop_name(VTB_RACE_SAME), "same");
	cr_assert_str_eq(vtb_race_stop_name(VTB_RACE_EMPTY), "empty");
	cr_assert_null(vtb_race_stop_name(-1));
	cr_assert_null(vtb_race_stop_name(99));
}

Test(race, clearly_worse_candidate_dropped_with_its_evidence)
{
	/* candidate 1 takes 50% longer; 0 and 2 are tied */
	const double centre[] = { 100, 150, 100.5 };
	const struct vtb_race_elim *e;
	struct vtb_race *r = vtb_race_new(3, &TIME_LOW, 1, NULL);
	size_t n;

	cr_assert_not_null(r);
	run(r, centre, 1, 0.01, 3);
	e = vtb_race_elims(r, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(e[0].candidate, 1);
	cr_assert_eq(e[0].round, 3);
	cr_assert_eq(e[0].metric, 0);
	cr_assert_eq(e[0].against, 0);
	cr_assert_eq(e[0].why, VTB_V_WORSE);
	cr_assert_eq(e[0].cmp.verdict, VTB_V_WORSE);
	cr_assert_eq(e[0].family, 2);
	cr_assert_str_eq(e[0].adjust, "bh");
	cr_assert_str_eq(e[0].cmp.test, "log-ratio-t");
	cr_assert_float_eq(e[0].cmp.change_pct, 50, 1e-9);
	cr_assert_gt(e[0].cmp.ci_low_pct, 5);
	cr_assert_lt(e[0].cmp.q, 0.05);
	cr_assert_geq(e[0].cmp.q, e[0].cmp.p);
	cr_assert_eq(e[0].cmp.nb, 3);
	cr_assert_eq(e[0].cmp.nx, 3);
	cr_assert_not(vtb_race_standing(r, 1)->alive);
	cr_assert_eq(vtb_race_standing(r, 1)->elim, 0);
	cr_assert_eq(vtb_race_winner(r), 0);
	cr_assert(vtb_race_standing(r, 0)->winner);
	cr_assert_eq(vtb_race_boots(r), 9);
	vtb_race_free(r);
}

Test(race, no_elimination_before_min_rounds)
{
	const double centre[] = { 100, 200 };
	struct vtb_race_opts o;
	struct vtb_race *r;
	size_t n;

	vtb_race_opts_default(&o);
	o.min_rounds = 5;
	r = vtb_race_new(2, &TIME_LOW, 1, &o);
	run(r, centre, 1, 0.01, 4);
	cr_assert_eq(ndrops(r), 0);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_RUNNING);
	cr_assert_eq(vtb_race_winner(r), SIZE_MAX);
	cr_assert_eq(vtb_race_standing(r, 1)->boots, 4);
	cr_assert_eq(round_of(r, centre, 1, 0.01, 4), 0);
	cr_assert_eq(vtb_race_elims(r, &n)[0].round, 5);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ONE);
	cr_assert_eq(vtb_race_winner(r), 0);
	/* a stopped race takes no more rounds */
	cr_assert_eq(round_of(r, centre, 1, 0.01, 5), -1);
	cr_assert(strstr(vtb_errmsg(), "stopped (one)"));
	vtb_race_free(r);
}

Test(race, ties_end_as_same_survivors)
{
	/* 0 and 1 within 0.5%, 3 better than 0 by 0.2%; 2 is 40% slower */
	const double centre[] = { 100, 100.5, 140, 99.8 };
	const struct vtb_race_standing *s;
	struct vtb_race *r = vtb_race_new(4, &TIME_LOW, 1, NULL);
	size_t c;

	run(r, centre, 1, 0.005, 40);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_SAME);
	cr_assert_eq(ndrops(r), 1);
	cr_assert_eq(vtb_race_winner(r), 3);
	for (c = 0; c < 4; c++) {
		s = vtb_race_standing(r, c);
		if (c == 2) {
			cr_assert_not(s->alive);
			continue;
		}
		cr_assert(s->alive);
		cr_assert_eq(s->winner, c == 3);
		if (c != 3) {
			cr_assert_eq(s->cmp.verdict, VTB_V_SAME);
			cr_assert_eq(s->metric, 0);
			cr_assert_geq(s->cmp.ci_low_pct, -5);
			cr_assert_leq(s->cmp.ci_high_pct, 5);
		}
	}
	vtb_race_free(r);
}

Test(race, budget_and_round_caps_stop_the_race)
{
	/* 3% apart at CoV 10%: undecided for many rounds */
	const double centre[] = { 100, 103, 103 };
	struct vtb_race_opts o;
	struct vtb_race *r;

	vtb_race_opts_default(&o);
	o.budget = 14;
	r = vtb_race_new(3, &TIME_LOW, 1, &o);
	run(r, centre, 1, 0.1, 100);
	/* 4 rounds of 3 = 12 boots; a fifth would pass 14 */
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_BUDGET);
	cr_assert_eq(vtb_race_rounds(r), 4);
	cr_assert_eq(vtb_race_boots(r), 12);
	cr_assert_eq(vtb_race_winner(r), 0);
	vtb_race_free(r);

	o.budget = 2; /* under one round */
	r = vtb_race_new(3, &TIME_LOW, 1, &o);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_BUDGET);
	cr_assert_eq(round_of(r, centre, 1, 0.1, 0), -1);
	vtb_race_free(r);

	vtb_race_opts_default(&o);
	o.max_rounds = 6;
	r = vtb_race_new(3, &TIME_LOW, 1, &o);
	run(r, centre, 1, 0.1, 100);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ROUNDS);
	cr_assert_eq(vtb_race_rounds(r), 6);
	vtb_race_free(r);
}

/* A near-tie at high noise: 1% and 1.5% apart at CoV 15%.  `same` needs
 * the interval within +-5%, more boots a side than 40 rounds give once the
 * estimate settles; a drop needs it past 5%, implausible once its
 * standard error shrinks (from round 18 here). */
static const double NEAR_TIE[] = { 100, 101, 101.5 };

static struct vtb_race *futile_race(size_t max_rounds, size_t budget, bool futility)
{
	struct vtb_race_opts o;

	vtb_race_opts_default(&o);
	o.max_rounds = max_rounds;
	o.budget = budget;
	o.futility = futility;
	return vtb_race_new(3, &TIME_LOW, 1, &o);
}

Test(race, futility_stops_a_near_tie_well_before_the_cap)
{
	struct vtb_race *r = futile_race(40, 0, true);
	size_t c;

	cr_assert_not_null(r);
	run(r, NEAR_TIE, 1, 0.15, 100);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_FUTILE);
	cr_assert_lt(vtb_race_rounds(r), 30, "stopped at round %zu", vtb_race_rounds(r));
	cr_assert_gt(vtb_race_rounds(r), 3, "the estimate near the threshold at first");
	cr_assert_eq(ndrops(r), 0);
	cr_assert_eq(vtb_race_winner(r), 0);
	cr_assert_eq(vtb_race_last_round(r), 40);
	for (c = 0; c < 3; c++) {
		const struct vtb_race_standing *s = vtb_race_standing(r, c);

		cr_assert(s->alive, "survivor %zu kept", c);
		cr_assert_eq(s->winner, c == 0);
		if (!c) {
			cr_assert(isnan(s->boots_needed));
			continue;
		}
		/* its comparison kept, open, with the evidence of futility */
		cr_assert_eq(s->metric, 0);
		cr_assert_eq(s->cmp.verdict, VTB_V_INCONCLUSIVE);
		cr_assert_eq(s->cmp.nx, vtb_race_rounds(r));
		cr_assert(isnan(s->boots_needed) ||
				  vtb_race_rounds(r) + s->boots_needed - s->cmp.nx > 40,
			  "candidate %zu needs %g boots a side", c, s->boots_needed);
	}
	cr_assert_eq(round_of(r, NEAR_TIE, 1, 0.15, vtb_race_rounds(r)), -1);
	cr_assert(strstr(vtb_errmsg(), "stopped (futile)"));
	vtb_race_free(r);
}

Test(race, futility_spares_what_the_caps_can_decide)
{
	/* 25% apart at the same noise and cap: decided, one survivor */
	const double apart[] = { 100, 125, 126 };
	/* 0.5% apart at CoV 0.5%: every survivor `same` */
	const double tie[] = { 100, 100.5, 100.2 };
	struct vtb_race *r = futile_race(40, 0, true);

	run(r, apart, 1, 0.15, 100);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ONE);
	cr_assert_eq(vtb_race_winner(r), 0);
	vtb_race_free(r);
	r = futile_race(40, 0, true);
	run(r, tie, 1, 0.005, 100);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_SAME);
	vtb_race_free(r);
	/* no cap at all: nothing is out of reach, the race goes on */
	r = futile_race(0, 0, true);
	cr_assert_eq(vtb_race_last_round(r), SIZE_MAX);
	run(r, NEAR_TIE, 1, 0.15, 100);
	cr_assert_neq(vtb_race_stopped(r), VTB_RACE_FUTILE);
	cr_assert_gt(vtb_race_rounds(r), 40);
	vtb_race_free(r);
}

Test(race, futility_off_runs_to_the_cap)
{
	struct vtb_race *r = futile_race(40, 0, false);

	run(r, NEAR_TIE, 1, 0.15, 100);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ROUNDS);
	cr_assert_eq(vtb_race_rounds(r), 40);
	cr_assert_eq(vtb_race_winner(r), 0);
	vtb_race_free(r);
}

Test(race, futility_counts_the_boot_budget)
{
	/* 1.5% and 2% apart at CoV 10%; a cap far off (200 rounds: `same` is
	 * within reach) but a budget of 3 survivors x 30 rounds: futile well
	 * before the budget */
	const double near[] = { 100, 101.5, 102 };
	struct vtb_race *r = futile_race(200, 90, true);
	size_t rounds;

	cr_assert_eq(vtb_race_last_round(r), 30);
	run(r, near, 1, 0.1, 300);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_FUTILE);
	cr_assert_lt(vtb_race_rounds(r), 30);
	cr_assert_eq(vtb_race_last_round(r), 30);
	rounds = vtb_race_rounds(r);
	vtb_race_free(r);
	/* the same cap without the budget: the race goes on past that round */
	r = futile_race(200, 0, true);
	run(r, near, 1, 0.1, rounds);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_RUNNING);
	vtb_race_free(r);
}

Test(race, lexicographic_objective)
{
	/* metric 0: a latency, lower better; metric 1: a rate, higher better */
	const struct vtb_race_metric m[] = { { VTB_MC_LATENCY, false },
					     { VTB_MC_THROUGHPUT, true } };
	/* 0 and 1 tie on latency, 1 has 30% less throughput; 2 has the best
	 * throughput but 40% more latency */
	const double centre[] = { 50, 1000, 50.2, 700, 70, 2000 };
	const struct vtb_race_elim *e;
	struct vtb_race *r = vtb_race_new(3, m, 2, NULL);
	size_t n, i;

	run(r, centre, 2, 0.005, 40);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ONE);
	cr_assert_eq(vtb_race_winner(r), 0);
	e = vtb_race_elims(r, &n);
	cr_assert_eq(n, 2);
	for (i = 0; i < n; i++) {
		if (e[i].candidate == 2) {
			/* worse on the first metric: decided there */
			cr_assert_eq(e[i].metric, 0);
			cr_assert_str_eq(e[i].cmp.test, "welch-log");
			cr_assert_gt(e[i].cmp.change_pct, 5);
		} else {
			/* tied on the first: the second decides */
			cr_assert_eq(e[i].candidate, 1);
			cr_assert_eq(e[i].metric, 1);
			cr_assert_eq(e[i].against, 0);
			cr_assert_lt(e[i].cmp.change_pct, -5);
		}
	}
	vtb_race_free(r);
}

/* With several metrics a survivor left open on the first is compared with
 * the best on it, who need not be the winner: its standing says whom. */
Test(race, an_open_comparison_names_whom_it_is_against)
{
	const struct vtb_race_metric m[] = { { VTB_MC_LATENCY, false },
					     { VTB_MC_THROUGHPUT, true } };
	/* 0 the best latency, 1 tied with it there and 30% more throughput
	 * (the winner), 2 4% slower than 0: neither worse nor same yet */
	const double centre[] = { 49.9, 1000, 50, 1300, 51.9, 5000 };
	const struct vtb_race_standing *s;
	struct vtb_race *r = vtb_race_new(3, m, 2, NULL);

	run(r, centre, 2, 0.02, 3);
	cr_assert_eq(vtb_race_rounds(r), 3);
	cr_assert_eq(vtb_race_winner(r), 1);
	s = vtb_race_standing(r, 2);
	cr_assert(s->alive);
	cr_assert_eq(s->metric, 0);
	cr_assert_eq(s->against, 0, "against %zu, not the winner 1", s->against);
	cr_assert_eq(s->cmp.verdict, VTB_V_INCONCLUSIVE);
	cr_assert_eq(vtb_race_standing(r, 1)->against, SIZE_MAX);
	vtb_race_free(r);
}

Test(race, holm_and_drop_significant_options)
{
	/* 4% slower at CoV 1.5%: compare's `worse` needs 5%, so only the
	 * F-Race rule drops it, while its interval still reaches past 5% */
	const double centre[] = { 100, 104 };
	struct vtb_race_opts o;
	struct vtb_race *r;
	size_t n;

	vtb_race_opts_default(&o);
	o.max_rounds = 10;
	r = vtb_race_new(2, &TIME_LOW, 1, &o);
	run(r, centre, 1, 0.015, 100);
	cr_assert_eq(ndrops(r), 0);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_SAME);
	vtb_race_free(r);

	o.drop_significant = true;
	o.adjust = VTB_RACE_HOLM;
	r = vtb_race_new(2, &TIME_LOW, 1, &o);
	run(r, centre, 1, 0.015, 100);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ONE);
	cr_assert_lt(vtb_race_elims(r, &n)[0].cmp.change_pct, 5);
	cr_assert_eq(vtb_race_elims(r, &n)[0].candidate, 1);
	cr_assert_str_eq(vtb_race_elims(r, &n)[0].adjust, "holm");
	vtb_race_free(r);
}

Test(race, same_rounds_same_race)
{
	const double centre[] = { 100, 106, 103, 125, 100.4, 112 };
	struct vtb_race *a = vtb_race_new(6, &TIME_LOW, 1, NULL);
	struct vtb_race *b = vtb_race_new(6, &TIME_LOW, 1, NULL);
	const struct vtb_race_elim *ea, *eb;
	size_t na, nb, i;

	run(a, centre, 1, 0.04, 40);
	run(b, centre, 1, 0.04, 40);
	ea = vtb_race_elims(a, &na);
	eb = vtb_race_elims(b, &nb);
	cr_assert_eq(na, nb);
	cr_assert_gt(na, 0);
	for (i = 0; i < na; i++) {
		cr_assert_eq(ea[i].candidate, eb[i].candidate);
		cr_assert_eq(ea[i].round, eb[i].round);
		cr_assert_eq(ea[i].cmp.p, eb[i].cmp.p);
		cr_assert_eq(ea[i].cmp.q, eb[i].cmp.q);
	}
	cr_assert_eq(vtb_race_winner(a), vtb_race_winner(b));
	cr_assert_eq(vtb_race_boots(a), vtb_race_boots(b));
	vtb_race_free(a);
	vtb_race_free(b);
}

Test(race, hostile_inputs)
{
	const struct vtb_race_metric rate = { VTB_MC_THROUGHPUT, true };
	struct vtb_race_opts o;
	struct vtb_race *r;
	double s[3];
	size_t n, k;

	cr_assert_null(vtb_race_new(0, &TIME_LOW, 1, NULL));
	cr_assert(strstr(vtb_errmsg(), "no candidates"));
	cr_assert_null(vtb_race_new(2, &TIME_LOW, 0, NULL));
	cr_assert_null(vtb_race_new(2, NULL, 1, NULL));
	vtb_race_opts_default(&o);
	o.min_rounds = 1;
	cr_assert_null(vtb_race_new(2, &TIME_LOW, 1, &o));
	vtb_race_opts_default(&o);
	o.alpha = NAN;
	cr_assert_null(vtb_race_new(2, &TIME_LOW, 1, &o));
	vtb_race_opts_default(&o);
	o.max_rounds = 2;
	cr_assert_null(vtb_race_new(2, &TIME_LOW, 1, &o));
	vtb_race_free(NULL);

	/* one candidate: nothing to race */
	r = vtb_race_new(1, &TIME_LOW, 1, NULL);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_ONE);
	cr_assert_eq(vtb_race_winner(r), 0);
	cr_assert_eq(vtb_race_round(r, s), -1);
	cr_assert_null(vtb_race_standing(r, 1));
	vtb_race_free(r);

	/* Inf and a rate <= 0: refused, the race unchanged */
	r = vtb_race_new(3, &rate, 1, NULL);
	s[0] = 10, s[1] = INFINITY, s[2] = 10;
	cr_assert_eq(vtb_race_round(r, s), -1);
	cr_assert(strstr(vtb_errmsg(), "candidate 1, metric 0: infinite"));
	s[1] = 0;
	cr_assert_eq(vtb_race_round(r, s), -1);
	cr_assert(strstr(vtb_errmsg(), "not positive"));
	cr_assert_eq(vtb_race_rounds(r), 0);
	cr_assert_eq(vtb_race_boots(r), 0);

	/* NaN is a failed boot: candidate 1 never yields a sample and is
	 * dropped as missing at the first test; 0 and 2 tie */
	for (k = 0; k < 3; k++) {
		s[0] = 10 * (1 + 0.001 * J[k]), s[1] = NAN, s[2] = 10 * (1 - 0.001 * J[k]);
		cr_assert_eq(vtb_race_round(r, s), 0);
	}
	cr_assert_eq(vtb_race_elims(r, &n)[0].candidate, 1);
	cr_assert_eq(n, 1);
	cr_assert_eq(vtb_race_elims(r, &n)[0].why, VTB_V_MISSING);
	cr_assert_eq(vtb_race_elims(r, &n)[0].cmp.nx, 0);
	cr_assert_eq(vtb_race_standing(r, 1)->boots, 3);
	cr_assert_eq(vtb_race_boots(r), 9);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_SAME);
	vtb_race_free(r);

	/* every boot failed: every candidate dropped, the race is empty */
	r = vtb_race_new(2, &TIME_LOW, 1, NULL);
	s[0] = s[1] = NAN;
	for (k = 0; k < 3; k++)
		cr_assert_eq(vtb_race_round(r, s), 0);
	cr_assert_eq(vtb_race_stopped(r), VTB_RACE_EMPTY);
	cr_assert_eq(ndrops(r), 2);
	vtb_race_free(r);
}
