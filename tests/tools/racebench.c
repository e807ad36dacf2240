/* SPDX-License-Identifier: MIT */
/*
 * racebench [-s SEEDS] [-r MIN_ROUNDS] [-c MAX_ROUNDS] [-H] [-F] [-f yes|no]
 *           [-n NMIN-NMAX] [-v COVMIN-COVMAX]: the racing engine
 * (harness/explore/race.c) on generated candidates with known effects,
 * against the full cross product at fixed reps (issue 19, item 5; for
 * scripts/bench-race.sh and docs/explore.md).
 *
 * A seed: 8-24 candidates, one metric (time, throughput or latency by
 * seed), per-boot noise normal or lognormal at a CoV drawn in 2-10%, one
 * true best, the others worse by a ratio drawn in 3-30% (a quarter of
 * them copy the previous one's: ties), the best at a random position.
 * Candidate c's k-th boot is the same value in every design (common
 * random numbers), so the designs differ only in which boots they use.
 *
 * Per seed, the full design at fixed reps R is analysed once, with the
 * same tests (one round of the engine at R boots each: every candidate
 * against the best, Holm across all of them).  Two R:
 *   - same precision: R = the race's rounds, the reps its final
 *     comparisons had (the full design must give them to every
 *     candidate, not knowing which ones will need them);
 *   - same decisions ("oracle"): the smallest R at which that analysis
 *     reaches every decision the race reached (each candidate it dropped
 *     dropped, each one it ended `same` ended `same`, its winner kept),
 *     searched up to twice the cap; known only in hindsight, so it
 *     flatters the full design.  When no R does (the race dropped a
 *     candidate less than the threshold worse on an early estimate beyond
 *     it, which a fixed design with more reps does not repeat), the race's
 *     rounds, as above.
 * And across seeds, as a fixed design is planned (one R for every problem,
 * before any boot): same confidence in the winner, the smallest R from
 * which the full design names the true best (the best mean at R boots
 * each) in as many seeds as the race did, at every R up to twice the cap.
 * R is chosen on the even seeds and the ratio measured on the odd ones,
 * so the R is not tuned to the seeds it is judged on.
 * Prints the found-best rate, the boots of each design and their ratios.
 */
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../harness/explore/race.h"
#include "../../common/vtbutil.h"

#define NMAX 64

struct seedcase {
	size_t n, best, len;
	struct vtb_race_metric m;
	double cov;
	double *v; /* v[c * len + k]: candidate c's k-th boot */
};

static void gen(unsigned long seed, size_t nlo, size_t nhi, double clo, double chi, size_t len,
		struct seedcase *sc)
{
	static const enum vtb_metric_class cls[] = { VTB_MC_TIME, VTB_MC_THROUGHPUT,
						     VTB_MC_LATENCY };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double gap[NMAX], prev = -1;
	bool logn;
	size_t c, k;

	gsl_rng_set(g, seed + 1);
	sc->n = nlo + gsl_rng_uniform_int(g, nhi - nlo + 1);
	sc->cov = clo + (chi - clo) * gsl_rng_uniform(g);
	sc->m.k = cls[seed % 3];
	sc->m.higher_better = sc->m.k == VTB_MC_THROUGHPUT;
	logn = sc->m.k == VTB_MC_LATENCY || (seed / 3) % 2;
	sc->best = gsl_rng_uniform_int(g, sc->n);
	for (c = 0; c < sc->n; c++) {
		if (c == sc->best) {
			gap[c] = 0;
			continue;
		}
		if (prev >= 0 && gsl_rng_uniform(g) < 0.25)
			gap[c] = prev;
		else
			gap[c] = 0.03 + 0.27 * gsl_rng_uniform(g);
		prev = gap[c];
	}
	sc->len = len;
	for (c = 0; c < sc->n; c++) {
		/* worse by the gap: the statistic's ratio is 1 + gap */
		double mu = sc->m.higher_better ? 100 / (1 + gap[c]) : 100 * (1 + gap[c]);
		double s = sqrt(log1p(sc->cov * sc->cov));

		for (k = 0; k < len; k++) {
			double z = gsl_ran_ugaussian(g);

			sc->v[c * len + k] = logn ? mu * exp(s * z - s * s / 2)
						  : mu * (1 + sc->cov * z);
		}
	}
	gsl_rng_free(g);
}

/* Feeds rounds to @r until it stops or @upto rounds; boot k of a survivor
 * is its k-th value (every survivor has been in every round). */
static int feed(struct vtb_race *r, const struct seedcase *sc, size_t upto)
{
	size_t idx[NMAX], na, i;
	double smp[NMAX];

	while (!vtb_race_stopped(r) && vtb_race_rounds(r) < upto) {
		size_t k = vtb_race_rounds(r);

		na = vtb_race_survivors(r, idx);
		for (i = 0; i < na; i++)
			smp[i] = sc->v[idx[i] * sc->len + k];
		if (vtb_race_round(r, smp))
			return -1;
	}
	return 0;
}

/* The full design at R reps a candidate, analysed once with the race's
 * tests (a race whose first test is at round R). */
static struct vtb_race *full_design(const struct seedcase *sc, const struct vtb_race_opts *o,
				    size_t R)
{
	struct vtb_race_opts fo = *o;
	struct vtb_race *f;

	fo.min_rounds = R;
	fo.max_rounds = R;
	fo.budget = 0;
	fo.futility = false;
	f = vtb_race_new(sc->n, &sc->m, 1, &fo);
	if (!f || feed(f, sc, R)) {
		vtb_race_free(f);
		return NULL;
	}
	return f;
}

/* Does @f reach every decision the race @r reached? */
static bool same_decisions(const struct vtb_race *r, const struct vtb_race *f, size_t n)
{
	size_t c;

	if (!vtb_race_standing(f, vtb_race_winner(r))->alive)
		return false;
	for (c = 0; c < n; c++) {
		const struct vtb_race_standing *a = vtb_race_standing(r, c);
		const struct vtb_race_standing *b = vtb_race_standing(f, c);

		if (!a->alive && b->alive)
			return false;
		if (a->alive && !a->winner && a->cmp.verdict == VTB_V_SAME &&
		    (!b->alive || b->winner || b->cmp.verdict != VTB_V_SAME))
			return false;
	}
	return true;
}

static void parse_range(const char *s, double *lo, double *hi)
{
	char *e;

	*lo = strtod(s, &e);
	*hi = *e == '-' ? strtod(e + 1, NULL) : *lo;
}

int main(int argc, char **argv)
{
	struct vtb_race_opts o;
	struct seedcase sc;
	unsigned long seeds = 200, s;
	double nlo = 8, nhi = 24, clo = 2, chi = 10, t0;
	double boots_race = 0, boots_full = 0, boots_oracle = 0, rounds = 0;
	unsigned found = 0, dropped = 0, full_found = 0, unreached = 0, stops[8] = { 0 };
	/* same confidence, held out: R is chosen on the even seeds (h = 0)
	 * and judged on the odd ones (h = 1).  found_at[h][R]: seeds of half
	 * h the full design at R names right; per half the race's hits,
	 * boots and the candidates summed. */
	unsigned *found_at[2] = { NULL, NULL }, found_h[2] = { 0, 0 };
	double n_sum[2] = { 0, 0 }, race_h[2] = { 0, 0 };
	size_t R_pcs = 0;
	struct timespec ts;
	int opt;

	vtb_race_opts_default(&o);
	while ((opt = getopt(argc, argv, "s:r:c:HFf:n:v:")) != -1) {
		switch (opt) {
		case 's':
			seeds = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			o.min_rounds = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			o.max_rounds = strtoul(optarg, NULL, 10);
			break;
		case 'H':
			o.adjust = VTB_RACE_HOLM;
			break;
		case 'F':
			o.drop_significant = true;
			break;
		case 'f':
			o.futility = !strcmp(optarg, "yes");
			break;
		case 'n':
			parse_range(optarg, &nlo, &nhi);
			break;
		case 'v':
			parse_range(optarg, &clo, &chi);
			break;
		default:
			fprintf(stderr,
				"usage: racebench [-s SEEDS] [-r MIN_ROUNDS] [-c MAX_ROUNDS] [-H] [-F] [-f yes|no] [-n NMIN-NMAX] [-v COVMIN-COVMAX]\n");
			return 2;
		}
	}
	if (!seeds || nlo < 2 || nhi > NMAX || nhi < nlo || !o.max_rounds || !(clo > 0) ||
	    chi < clo) {
		fprintf(stderr,
			"racebench: bad arguments (seeds > 0, 2 <= NMIN <= NMAX <= %d, MAX_ROUNDS > 0)\n",
			NMAX);
		return 2;
	}
	sc.v = malloc((size_t)nhi * 2 * o.max_rounds * sizeof(*sc.v));
	found_at[0] = calloc(2 * o.max_rounds + 1, sizeof(*found_at[0]));
	found_at[1] = calloc(2 * o.max_rounds + 1, sizeof(*found_at[1]));
	if (!sc.v || !found_at[0] || !found_at[1]) {
		fprintf(stderr, "racebench: out of memory\n");
		free(sc.v);
		free(found_at[0]);
		free(found_at[1]);
		return 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	for (s = 0; s < seeds; s++) {
		struct vtb_race *r, *f;
		size_t nel, i, R, R_oracle;
		const struct vtb_race_elim *el;

		gen(s, (size_t)nlo, (size_t)nhi, clo / 100, chi / 100, 2 * o.max_rounds, &sc);
		r = vtb_race_new(sc.n, &sc.m, 1, &o);
		if (!r || feed(r, &sc, SIZE_MAX))
			goto fail;
		found += vtb_race_winner(r) == sc.best;
		el = vtb_race_elims(r, &nel);
		for (i = 0; i < nel; i++)
			dropped += el[i].candidate == sc.best;
		stops[vtb_race_stopped(r)]++;
		boots_race += (double)vtb_race_boots(r);
		rounds += (double)vtb_race_rounds(r);
		boots_full += (double)(sc.n * vtb_race_rounds(r));
		/* every full design of the seed once: at the race's rounds (same
		 * precision), the first from min_rounds that reaches the race's
		 * decisions (same decisions), and each R for same confidence */
		R_oracle = 0;
		for (R = 2; R <= sc.len; R++) {
			bool hit;

			f = full_design(&sc, &o, R);
			if (!f)
				goto fail;
			hit = vtb_race_winner(f) == sc.best;
			found_at[s % 2][R] += hit;
			if (R == vtb_race_rounds(r))
				full_found += hit;
			if (!R_oracle && R >= o.min_rounds && same_decisions(r, f, sc.n))
				R_oracle = R;
			vtb_race_free(f);
		}
		if (!R_oracle) {
			/* never: the race dropped a candidate less than the
			 * threshold worse on an early estimate beyond it; count
			 * the race's rounds (the smaller cost, against the race) */
			unreached++;
			R_oracle = vtb_race_rounds(r);
		}
		boots_oracle += (double)(sc.n * R_oracle);
		n_sum[s % 2] += (double)sc.n;
		race_h[s % 2] += (double)vtb_race_boots(r);
		found_h[s % 2] += vtb_race_winner(r) == sc.best;
		vtb_race_free(r);
		continue;
	fail:
		fprintf(stderr, "racebench: seed %lu: %s\n", s, vtb_errmsg());
		vtb_race_free(r);
		free(sc.v);
		free(found_at[0]);
		free(found_at[1]);
		return 3;
	}
	/* from the cap down: the smallest R from which every larger R names
	 * the true best as often as the race (the rate is flat near its top,
	 * so a first R that reaches it by luck would flatter the race) */
	for (R_pcs = 2 * o.max_rounds; R_pcs >= 2 && found_at[0][R_pcs] >= found_h[0]; R_pcs--)
		;
	R_pcs++;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("seeds %lu, candidates %g-%g, CoV %g-%g%%, min_rounds %zu, cap %zu rounds, alpha %g (%s), threshold %g%%, drop %s, futility %s\n",
	       seeds, nlo, nhi, clo, chi, o.min_rounds, o.max_rounds, o.alpha,
	       o.adjust == VTB_RACE_HOLM ? "Holm" : "BH", o.threshold_pct,
	       o.drop_significant ? "any significant difference" : "worse",
	       o.futility ? "on" : "off");
	printf("  found the true best  %6.1f%% of seeds (true best dropped %.1f%%; the full design at the race's rounds: %.1f%%)\n",
	       100.0 * found / seeds, 100.0 * dropped / seeds, 100.0 * full_found / seeds);
	printf("  mean boots           race %7.1f (%.1f rounds)  full, same precision %7.1f  full, same decisions %7.1f\n",
	       boots_race / seeds, rounds / seeds, boots_full / seeds, boots_oracle / seeds);
	printf("  ratio race / full    same precision %5.1f%%  same decisions %5.1f%%\n",
	       100 * boots_race / boots_full, 100 * boots_race / boots_oracle);
	if (R_pcs <= 2 * o.max_rounds && seeds > 1)
		printf("  same confidence      one R for every seed, planned ahead: R = %zu, chosen on the even seeds; on the odd ones the full design at R names the true best in %.1f%% (the race %.1f%%); boots %7.1f, ratio %5.1f%%\n",
		       R_pcs, 100.0 * found_at[1][R_pcs] / (double)(seeds / 2),
		       100.0 * found_h[1] / (double)(seeds / 2),
		       n_sum[1] * (double)R_pcs / (double)(seeds / 2),
		       100 * race_h[1] / (n_sum[1] * (double)R_pcs));
	else
		printf("  same confidence      no R up to %zu names the true best as often as the race\n",
		       2 * o.max_rounds);
	printf("  stops                one %u  same %u  futile %u  rounds %u  budget %u  empty %u  (decisions no fixed R reaches: %u)\n",
	       stops[VTB_RACE_ONE], stops[VTB_RACE_SAME], stops[VTB_RACE_FUTILE],
	       stops[VTB_RACE_ROUNDS], stops[VTB_RACE_BUDGET], stops[VTB_RACE_EMPTY], unreached);
	printf("  goals                found >= 95%%: %s; boots <= 40%% of full, same precision: %s; same decisions: %s; same confidence: %s\n",
	       found >= 0.95 * seeds ? "met" : "NOT met",
	       boots_race <= 0.4 * boots_full ? "met" : "NOT met",
	       boots_race <= 0.4 * boots_oracle ? "met" : "NOT met",
	       R_pcs <= 2 * o.max_rounds && seeds > 1 && race_h[1] <= 0.4 * n_sum[1] * (double)R_pcs
		       ? "met"
		       : "NOT met");
	printf("  time                 %.1f s\n",
	       (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - t0);
	free(sc.v);
	free(found_at[0]);
	free(found_at[1]);
	return 0;
}
