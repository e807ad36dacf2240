/* SPDX-License-Identifier: MIT */
/*
 * The racing engine (race.h, docs/explore.md).  A round's test works in
 * two phases so that a failure (out of memory) leaves the race as it was:
 * first every estimate, comparison and adjusted p into scratch arrays,
 * then the drops and the stop decision.
 *
 * BH by default because it is compare's rule; Holm on request, for a
 * family-wise bound on a round's wrong drops (a drop is final).  The
 * benchmark measures both (docs/explore.md): Holm spends about 16% more
 * boots; either drops the true best in 1-2% of seeds.
 *
 * Why `same` is read before `worse`: a candidate within the threshold of
 * the best on a metric is tied on it, and the next metric of a
 * lexicographic objective decides between them; with drop_significant a
 * significant difference inside the threshold must not end the race on
 * the first metric.  Without it the two verdicts exclude each other (a
 * `worse` estimate is beyond the threshold, a `same` interval within it)
 * and the rule is compare's exactly.
 *
 * Futility (opts.futility, off by default) is decided last, from the
 * standings, so it never pre-empts a stop the round reached otherwise;
 * futile() says how it is guarded and docs/explore.md measures it.
 */
#include "race.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"

struct series {
	double *v;
	size_t n, cap;
};

struct vtb_race {
	size_t n, nm;
	struct vtb_race_metric *m;
	struct vtb_race_opts o;
	size_t rounds, boots, winner;
	int stop;
	struct series *s; /* s[c * nm + metric] */
	struct vtb_race_standing *st;
	struct vtb_race_elim *elims; /* room for n: a candidate drops once */
	size_t nelims;
	/* scratch of one round's test */
	size_t *alive, *tied, *next, *lvl, *against, *fam;
	bool *missing;
	struct vtb_comparison *cmp;
	double *p, *q;
};

void vtb_race_opts_default(struct vtb_race_opts *o)
{
	*o = (struct vtb_race_opts){ .min_rounds = 3,
				     .max_rounds = 40,
				     .budget = 0,
				     .alpha = 0.05,
				     .threshold_pct = 5,
				     .adjust = VTB_RACE_BH,
				     .drop_significant = false,
				     .futility = false };
}

const char *vtb_race_stop_name(int stop)
{
	static const char *const names[] = {
		[VTB_RACE_RUNNING] = "running", [VTB_RACE_ONE] = "one",
		[VTB_RACE_SAME] = "same",	[VTB_RACE_BUDGET] = "budget",
		[VTB_RACE_ROUNDS] = "rounds",	[VTB_RACE_EMPTY] = "empty",
		[VTB_RACE_FUTILE] = "futile",
	};

	return stop >= 0 && (size_t)stop < VTB_ARRAY_SIZE(names) ? names[stop] : NULL;
}

static int check_opts(const struct vtb_race_opts *o)
{
	if (o->min_rounds < 2)
		return vtb_error(
			"race: min_rounds %zu is below 2 (the test needs a spread on each side)",
			o->min_rounds);
	if (o->max_rounds && o->max_rounds < o->min_rounds)
		return vtb_error(
			"race: max_rounds %zu is below min_rounds %zu: the race would never test",
			o->max_rounds, o->min_rounds);
	if (!(o->alpha > 0 && o->alpha < 1))
		return vtb_error("race: alpha %g is not in (0, 1)", o->alpha);
	if (!(o->threshold_pct >= 0 && o->threshold_pct < 100))
		return vtb_error("race: threshold %g%% is not in [0, 100)", o->threshold_pct);
	if (o->adjust != VTB_RACE_BH && o->adjust != VTB_RACE_HOLM)
		return vtb_error("race: unknown multiplicity adjustment %d", (int)o->adjust);
	return 0;
}

void vtb_race_free(struct vtb_race *r)
{
	size_t i;

	if (!r)
		return;
	if (r->s)
		for (i = 0; i < r->n * r->nm; i++)
			free(r->s[i].v);
	free(r->s);
	free(r->m);
	free(r->st);
	free(r->elims);
	free(r->alive);
	free(r->tied);
	free(r->next);
	free(r->lvl);
	free(r->against);
	free(r->fam);
	free(r->missing);
	free(r->cmp);
	free(r->p);
	free(r->q);
	free(r);
}

struct vtb_race *vtb_race_new(size_t n, const struct vtb_race_metric *metrics, size_t nm,
			      const struct vtb_race_opts *o)
{
	struct vtb_race *r;
	size_t i;

	if (!n) {
		vtb_error("race: no candidates");
		return NULL;
	}
	if (!nm || !metrics) {
		vtb_error("race: no objective metric");
		return NULL;
	}
	for (i = 0; i < nm; i++)
		if (!vtb_metric_class_name(metrics[i].k)) {
			vtb_error("race: objective metric %zu has an unknown class %d", i,
				  (int)metrics[i].k);
			return NULL;
		}
	if (o && check_opts(o))
		return NULL;
	if (n > SIZE_MAX / sizeof(struct vtb_comparison) / (nm + 1)) {
		vtb_error("race: %zu candidates are too many", n);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		vtb_error("out of memory");
		return NULL;
	}
	r->n = n;
	r->nm = nm;
	if (o)
		r->o = *o;
	else
		vtb_race_opts_default(&r->o);
	r->m = calloc(nm, sizeof(*r->m));
	r->s = calloc(n * nm, sizeof(*r->s));
	r->st = calloc(n, sizeof(*r->st));
	r->elims = calloc(n, sizeof(*r->elims));
	r->alive = calloc(n, sizeof(*r->alive));
	r->tied = calloc(n, sizeof(*r->tied));
	r->next = calloc(n, sizeof(*r->next));
	r->lvl = calloc(n, sizeof(*r->lvl));
	r->against = calloc(n, sizeof(*r->against));
	r->fam = calloc(n, sizeof(*r->fam));
	r->missing = calloc(n, sizeof(*r->missing));
	r->cmp = calloc(n, sizeof(*r->cmp));
	r->p = calloc(n, sizeof(*r->p));
	r->q = calloc(n, sizeof(*r->q));
	if (!r->m || !r->s || !r->st || !r->elims || !r->alive || !r->tied || !r->next || !r->lvl ||
	    !r->against || !r->fam || !r->missing || !r->cmp || !r->p || !r->q) {
		vtb_race_free(r);
		vtb_error("out of memory");
		return NULL;
	}
	memcpy(r->m, metrics, nm * sizeof(*r->m));
	for (i = 0; i < n; i++) {
		r->st[i].alive = true;
		r->st[i].elim = SIZE_MAX;
		r->st[i].metric = SIZE_MAX;
		r->st[i].boots_needed = NAN;
	}
	r->winner = SIZE_MAX;
	if (n == 1) {
		r->winner = 0;
		r->st[0].winner = true;
		r->stop = VTB_RACE_ONE;
	} else if (r->o.budget && r->o.budget < n)
		r->stop = VTB_RACE_BUDGET;
	return r;
}

size_t vtb_race_survivors(const struct vtb_race *r, size_t *idx)
{
	size_t c, k = 0;

	for (c = 0; c < r->n; c++)
		if (r->st[c].alive)
			idx[k++] = c;
	return k;
}

int vtb_race_stopped(const struct vtb_race *r)
{
	return r->stop;
}

size_t vtb_race_rounds(const struct vtb_race *r)
{
	return r->rounds;
}

size_t vtb_race_boots(const struct vtb_race *r)
{
	return r->boots;
}

size_t vtb_race_last_round(const struct vtb_race *r)
{
	size_t last = r->o.max_rounds ? r->o.max_rounds : SIZE_MAX, left = 0, c;

	for (c = 0; c < r->n; c++)
		left += r->st[c].alive;
	if (r->o.budget && left && r->boots <= r->o.budget) {
		size_t b = r->rounds + (r->o.budget - r->boots) / left;

		if (b < last)
			last = b;
	}
	return last;
}

size_t vtb_race_winner(const struct vtb_race *r)
{
	return r->winner;
}

const struct vtb_race_elim *vtb_race_elims(const struct vtb_race *r, size_t *n)
{
	*n = r->nelims;
	return r->elims;
}

const struct vtb_race_standing *vtb_race_standing(const struct vtb_race *r, size_t c)
{
	return c < r->n ? &r->st[c] : NULL;
}

static struct series *series_of(struct vtb_race *r, size_t c, size_t m)
{
	return &r->s[c * r->nm + m];
}

/* The candidate of @set (n of them) with the best mean on metric @m, or
 * SIZE_MAX when none has one; ties go to the lower index (set order). */
static int best_of(struct vtb_race *r, const size_t *set, size_t n, size_t m, size_t *best)
{
	bool hb = r->m[m].higher_better;
	double bv = NAN;
	size_t i;

	*best = SIZE_MAX;
	for (i = 0; i < n; i++) {
		struct series *s = series_of(r, set[i], m);
		struct vtb_summary sum;

		if (!s->n)
			continue;
		if (vtb_summarise(s->v, s->n, r->m[m].k, &sum))
			return -1;
		if (!isfinite(sum.mean))
			continue;
		if (*best == SIZE_MAX || (hb ? sum.mean > bv : sum.mean < bv)) {
			*best = set[i];
			bv = sum.mean;
		}
	}
	return 0;
}

/* Holm's step-down adjustment of p[0 .. m-1] into q (m small: an
 * insertion sort of the order, stable, so equal p keep their order). */
static void holm(const double *p, size_t m, size_t *ord, double *q)
{
	double run = 0;
	size_t i, j;

	for (i = 0; i < m; i++) {
		for (j = i; j > 0 && p[ord[j - 1]] > p[i]; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	for (i = 0; i < m; i++) {
		double v = fmin(1, p[ord[i]] * (double)(m - i));

		run = fmax(run, v);
		q[ord[i]] = run;
	}
}

static void test_opts(const struct vtb_race *r, double threshold, struct vtb_test_opts *t)
{
	vtb_test_opts_default(t);
	t->alpha = r->o.alpha;
	t->threshold_pct = threshold;
	t->min_n = 2;
}

/*
 * Phase 1 of a round's test, into scratch only: the missing candidates,
 * then level by level of the objective the best of the candidates tied so
 * far and every other one's comparison against it; the candidates `same`
 * on a level go on to the next.  Then BH or Holm over each candidate's last
 * comparison.  Returns the winner in *win.
 */
static int compare_round(struct vtb_race *r, bool test, size_t *win, size_t *nfam)
{
	struct vtb_test_opts same;
	size_t na, nt, k, i, m, b = SIZE_MAX;

	test_opts(r, r->o.threshold_pct, &same);
	na = vtb_race_survivors(r, r->alive);
	*win = SIZE_MAX;
	*nfam = 0;
	if (!test) {
		/* before min_rounds: nothing to compute, the samples only accrue */
		for (i = 0; i < na; i++)
			r->lvl[r->alive[i]] = SIZE_MAX;
		return 0;
	}
	nt = 0;
	for (i = 0; i < na; i++) {
		size_t c = r->alive[i];

		r->missing[c] = false;
		r->lvl[c] = SIZE_MAX;
		for (m = 0; m < r->nm; m++)
			if (series_of(r, c, m)->n < 2)
				r->missing[c] = true;
		if (!r->missing[c])
			r->tied[nt++] = c;
	}
	for (k = 0; k < r->nm && nt; k++) {
		size_t nn = 0, bk;

		if (best_of(r, r->tied, nt, k, &bk))
			return -1;
		if (bk == SIZE_MAX)
			break;
		b = bk;
		r->next[nn++] = b;
		for (i = 0; i < nt; i++) {
			size_t c = r->tied[i];
			struct series *sb = series_of(r, b, k), *sx = series_of(r, c, k);

			if (c == b)
				continue;
			vtb_compare_samples(sb->v, sb->n, sx->v, sx->n, r->m[k].k, &same,
					    &r->cmp[c]);
			vtb_verdict(&r->cmp[c], r->m[k].higher_better, &same, same.alpha);
			r->lvl[c] = k;
			r->against[c] = b;
			if (r->cmp[c].verdict == VTB_V_SAME)
				r->next[nn++] = c;
		}
		memcpy(r->tied, r->next, nn * sizeof(*r->tied));
		nt = nn;
		if (nt == 1)
			break;
	}
	*win = b;
	/* the family: each candidate's last comparison that has a p */
	for (i = 0; i < na; i++) {
		size_t c = r->alive[i];

		if (r->lvl[c] != SIZE_MAX && !isnan(r->cmp[c].p)) {
			r->p[*nfam] = r->cmp[c].p;
			r->fam[(*nfam)++] = c;
		}
	}
	if (r->o.adjust == VTB_RACE_HOLM)
		holm(r->p, *nfam, r->next, r->q);
	else if (vtb_bh(r->p, *nfam, r->q))
		return -1;
	for (i = 0; i < *nfam; i++) {
		struct vtb_comparison *c = &r->cmp[r->fam[i]];

		c->q = r->q[i];
		vtb_verdict(c, r->m[r->lvl[r->fam[i]]].higher_better, &same, same.alpha);
	}
	return 0;
}

static void drop(struct vtb_race *r, size_t c, size_t metric, size_t against, int why,
		 size_t family, const struct vtb_comparison *cmp)
{
	struct vtb_race_elim *e = &r->elims[r->nelims];

	*e = (struct vtb_race_elim){ .candidate = c,
				     .round = r->rounds,
				     .metric = metric,
				     .against = against,
				     .why = why,
				     .family = family,
				     .adjust = r->o.adjust == VTB_RACE_HOLM ? "holm" : "bh",
				     .cmp = *cmp };
	e->cmp.verdict = why;
	r->st[c].alive = false;
	r->st[c].elim = r->nelims++;
	r->st[c].winner = false;
}

/* Boots a side that would decide survivor @c's open comparison at its
 * observed estimate and spread: `same` (within the threshold) or, beyond
 * it, a significant difference; with drop_significant also a significant
 * difference inside the threshold, whichever comes first.  NAN: none. */
static double need_of(const struct vtb_race *r, size_t c)
{
	struct vtb_test_opts t;
	double n, s;

	test_opts(r, r->o.threshold_pct, &t);
	n = vtb_boots_needed(&r->cmp[c], &t, t.alpha);
	if (r->o.drop_significant) {
		test_opts(r, 0, &t);
		s = vtb_boots_needed(&r->cmp[c], &t, t.alpha);
		if (isnan(n) || s < n)
			n = s;
	}
	return n;
}

/*
 * Could survivor @c's open comparison still end in a drop?  Yes while its
 * estimate plus one standard error (on the log scale, towards worse)
 * reaches past the threshold: an estimate near the threshold moves, and
 * its projection (boots_needed) says little.  The benchmark
 * (docs/explore.md) measures the guard: without it the race stopped
 * `futile` from round 3 on in 60% of the seeds, among them races that
 * went on to drop every other candidate, and found the true best in 92.8%
 * of them.  No spread (se not finite): yes, nothing to judge by.
 */
static bool drop_plausible(const struct vtb_race *r, size_t c)
{
	const struct vtb_comparison *k = &r->st[c].cmp;
	double t = r->o.threshold_pct / 100;

	if (!isfinite(k->se) || !isfinite(k->d))
		return true;
	if (r->m[r->st[c].metric].higher_better)
		return k->d - k->se <= log1p(-fmin(t, 0.999));
	return k->d + k->se >= log1p(t);
}

/*
 * Futility, after a test that did not stop the race: every open
 * comparison (a survivor neither the winner nor `same` on the metric that
 * decides it) needs more boots a side than the rounds up to
 * vtb_race_last_round() can add, or cannot be decided at its spread at
 * all (NAN), and could not end in a drop either (drop_plausible()).  A
 * round adds at most one boot a side, so the comparison needs
 * boots_needed - (the fewer boots of its sides) more rounds.  The
 * survivors are assumed to stay: an open comparison that cannot be
 * decided drops nobody, and a tied survivor keeps booting.  A survivor
 * with no comparison (none of its metrics had a best) keeps the race
 * going: there is nothing to judge it by.
 */
static bool futile(const struct vtb_race *r)
{
	size_t last = vtb_race_last_round(r), c, open = 0;

	if (!r->o.futility || last == SIZE_MAX)
		return false;
	for (c = 0; c < r->n; c++) {
		const struct vtb_race_standing *st = &r->st[c];
		size_t have;

		if (!st->alive || st->winner)
			continue;
		if (r->lvl[c] == SIZE_MAX)
			return false;
		if (st->cmp.verdict == VTB_V_SAME)
			continue;
		open++;
		have = st->cmp.nb < st->cmp.nx ? st->cmp.nb : st->cmp.nx;
		if (!isnan(st->boots_needed) &&
		    (double)r->rounds + st->boots_needed - (double)have <= (double)last)
			return false;
		if (drop_plausible(r, c))
			return false;
	}
	return open > 0;
}

/* Phase 2: the drops (from min_rounds on), the standings, the stop. */
static void apply_round(struct vtb_race *r, bool test, size_t win, size_t nfam)
{
	struct vtb_test_opts elim;
	size_t na, i, c, left = 0;
	bool all_same = true;

	test_opts(r, r->o.drop_significant ? 0 : r->o.threshold_pct, &elim);
	na = vtb_race_survivors(r, r->alive);
	for (i = 0; test && i < na; i++) {
		c = r->alive[i];
		if (r->missing[c]) {
			struct vtb_comparison none;
			size_t m;

			for (m = 0; series_of(r, c, m)->n >= 2; m++)
				;
			vtb_compare_samples(NULL, 0, series_of(r, c, m)->v, series_of(r, c, m)->n,
					    r->m[m].k, &elim, &none);
			drop(r, c, m, SIZE_MAX, VTB_V_MISSING, nfam, &none);
		}
	}
	for (i = 0; test && i < nfam; i++) {
		struct vtb_comparison e;
		size_t k;

		c = r->fam[i];
		k = r->lvl[c];
		if (r->cmp[c].verdict == VTB_V_SAME)
			continue;
		e = r->cmp[c];
		if (vtb_verdict(&e, r->m[k].higher_better, &elim, elim.alpha) == VTB_V_WORSE)
			drop(r, c, k, r->against[c], VTB_V_WORSE, nfam, &e);
	}
	if (win != SIZE_MAX)
		r->winner = win;
	for (c = 0; c < r->n; c++) {
		struct vtb_race_standing *st = &r->st[c];

		if (!st->alive)
			continue;
		left++;
		st->winner = c == r->winner;
		st->metric = st->winner ? SIZE_MAX : r->lvl[c];
		st->against = SIZE_MAX;
		st->boots_needed = NAN;
		if (st->winner || r->lvl[c] == SIZE_MAX) {
			memset(&st->cmp, 0, sizeof(st->cmp));
			if (!st->winner)
				all_same = false;
			continue;
		}
		st->cmp = r->cmp[c];
		st->against = r->against[c];
		if (r->cmp[c].verdict != VTB_V_SAME)
			st->boots_needed = need_of(r, c);
		if (r->lvl[c] != r->nm - 1 || r->cmp[c].verdict != VTB_V_SAME)
			all_same = false;
	}
	if (test && !left)
		r->stop = VTB_RACE_EMPTY;
	else if (test && left == 1)
		r->stop = VTB_RACE_ONE;
	else if (test && all_same)
		r->stop = VTB_RACE_SAME;
	else if (r->o.budget && r->boots + left > r->o.budget)
		r->stop = VTB_RACE_BUDGET;
	else if (r->o.max_rounds && r->rounds >= r->o.max_rounds)
		r->stop = VTB_RACE_ROUNDS;
	else if (test && futile(r))
		r->stop = VTB_RACE_FUTILE;
}

static int reserve(struct series *s)
{
	double *v;
	size_t cap;

	if (s->n < s->cap)
		return 0;
	cap = s->cap ? 2 * s->cap : 8;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return vtb_error("out of memory");
	s->v = v;
	s->cap = cap;
	return 0;
}

int vtb_race_round(struct vtb_race *r, const double *samples)
{
	size_t na, i, m, win, nfam;
	bool test;

	if (r->stop)
		return vtb_error("race: stopped (%s): no more rounds", vtb_race_stop_name(r->stop));
	na = vtb_race_survivors(r, r->alive);
	for (i = 0; i < na; i++)
		for (m = 0; m < r->nm; m++) {
			double v = samples[i * r->nm + m];

			if (isinf(v))
				return vtb_error("race: candidate %zu, metric %zu: infinite sample",
						 r->alive[i], m);
			if (r->m[m].k != VTB_MC_TIME && v <= 0)
				return vtb_error(
					"race: candidate %zu, metric %zu: %s sample %g is not positive",
					r->alive[i], m, vtb_metric_class_name(r->m[m].k), v);
			if (reserve(series_of(r, r->alive[i], m)))
				return -1;
		}
	for (i = 0; i < na; i++) {
		for (m = 0; m < r->nm; m++) {
			struct series *s = series_of(r, r->alive[i], m);
			double v = samples[i * r->nm + m];

			if (!isnan(v))
				s->v[s->n++] = v;
		}
		r->st[r->alive[i]].boots++;
	}
	r->rounds++;
	r->boots += na;
	test = r->rounds >= r->o.min_rounds;
	if (compare_round(r, test, &win, &nfam)) {
		/* undo the round: nothing else changed yet */
		for (i = 0; i < na; i++) {
			for (m = 0; m < r->nm; m++) {
				struct series *s = series_of(r, r->alive[i], m);

				if (!isnan(samples[i * r->nm + m]))
					s->n--;
			}
			r->st[r->alive[i]].boots--;
		}
		r->rounds--;
		r->boots -= na;
		return -1;
	}
	apply_round(r, test, win, nfam);
	return 0;
}
