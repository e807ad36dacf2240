/* SPDX-License-Identifier: MIT */
/*
 * vtbench explore's driver (explore.h).  Why the race is rebuilt from the
 * store after every round rather than fed incrementally: one code path
 * serves a fresh race, a resumed one and the last save after an
 * interruption, and what is saved is always what the stored boots say.
 * The cost is a read of the campaign's samples per round, small next to
 * a boot.  The candidates are picked in one place (vtb_explore_candidates())
 * for the race and for what vtbench plan shows of it (the end of this
 * file).
 */
#include "explore.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race.h"
#include "../matrix/conf.h"
#include "../store/store.h"

struct cand {
	size_t cfg;  /* index in the matrix */
	size_t base; /* its baseline's index, SIZE_MAX: none */
	long stored; /* reps 0 .. stored - 1 are in the store */
};

struct vtb_explore {
	const struct vtb_matrix *m;
	const struct vtb_explore_conf *conf;
	struct cand *c;
	size_t n, nm, cap;	 /* candidates, objective metrics, rounds at most */
	double *sum;		 /* [c][metric][rep]: the rep's value (VMs side by side: summed) */
	unsigned *cnt;		 /* ... how many */
	char **unit;		 /* per metric, from its first sample (NULL: none yet) */
	int *better;		 /* per metric: 1 higher, 0 lower, -1 not seen */
	struct vtb_strbuf *seen; /* per metric: the metrics its cell reported */
	struct vtb_race *race;
	int64_t campaign;
	bool started;
	const char *stop; /* as saved */
	char *why;	  /* the futility sentence of the last replay, or NULL */
	size_t noted;	  /* rounds already said */
	bool told_stop;
	size_t noted_elims;
	void (*note)(const char *msg, void *arg);
	void *note_arg;
};

static size_t idx3(const struct vtb_explore *ex, size_t c, size_t k, size_t r)
{
	return (c * ex->nm + k) * ex->cap + r;
}

static size_t cpus_of(const struct vtb_config *c)
{
	return c->cpus.n;
}

static bool same_cpus(const struct vtb_cpuset *a, const struct vtb_cpuset *b)
{
	return a->n && a->n == b->n && !memcmp(a->cpus, b->cpus, a->n * sizeof(*a->cpus));
}

/* A VM configuration's own baseline, as compare pairs them (pair.c):
 * the baseline on exactly its pCPUs, else the first with as many CPUs. */
static size_t baseline_of(const struct vtb_matrix *m, size_t v)
{
	const struct vtb_config *vm = &m->configs[v];

	for (size_t j = 0; j < m->n_configs; j++)
		if (m->configs[j].kind == VTB_CONFIG_BASELINE && m->configs[j].runnable &&
		    same_cpus(&m->configs[j].cpus, &vm->cpus))
			return j;
	for (size_t j = 0; j < m->n_configs; j++)
		if (m->configs[j].kind == VTB_CONFIG_BASELINE && m->configs[j].runnable &&
		    cpus_of(&m->configs[j]) == cpus_of(vm))
			return j;
	return SIZE_MAX;
}

size_t vtb_explore_candidates(const struct vtb_matrix *m, size_t *cfg, size_t *base)
{
	size_t vms = 0, n = 0;

	for (size_t i = 0; i < m->n_configs; i++)
		vms += m->configs[i].runnable && m->configs[i].kind == VTB_CONFIG_VM;
	for (size_t i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];

		if (!c->runnable || (c->kind == VTB_CONFIG_VM) != (vms > 0))
			continue;
		cfg[n] = i;
		base[n++] = vms ? baseline_of(m, i) : SIZE_MAX;
	}
	return n;
}

struct vtb_explore *vtb_explore_new(const struct vtb_matrix *m,
				    void (*note)(const char *msg, void *arg), void *note_arg)
{
	struct vtb_explore *ex;
	size_t *cfg, *base;

	if (!m->explore) {
		vtb_error("'%s' has no [explore] section: it names the objective (objective = "
			  "CELL/METRIC)",
			  m->path);
		return NULL;
	}
	ex = calloc(1, sizeof(*ex));
	if (!ex)
		goto oom;
	ex->m = m;
	ex->conf = m->explore;
	ex->nm = m->explore->n_objective;
	ex->cap = (size_t)m->explore->max_rounds;
	ex->note = note;
	ex->note_arg = note_arg;
	ex->c = calloc(m->n_configs ? m->n_configs : 1, sizeof(*ex->c));
	cfg = calloc(m->n_configs ? m->n_configs : 1, sizeof(*cfg));
	base = calloc(m->n_configs ? m->n_configs : 1, sizeof(*base));
	if (!ex->c || !cfg || !base) {
		free(cfg);
		free(base);
		goto oom;
	}
	ex->n = vtb_explore_candidates(m, cfg, base);
	for (size_t i = 0; i < ex->n; i++)
		ex->c[i] = (struct cand){ .cfg = cfg[i], .base = base[i] };
	free(cfg);
	free(base);
	if (!ex->n) {
		vtb_error("'%s': no runnable configuration to race", m->path);
		vtb_explore_free(ex);
		return NULL;
	}
	ex->sum = calloc(ex->n * ex->nm * ex->cap, sizeof(*ex->sum));
	ex->cnt = calloc(ex->n * ex->nm * ex->cap, sizeof(*ex->cnt));
	ex->unit = calloc(ex->nm, sizeof(*ex->unit));
	ex->better = calloc(ex->nm, sizeof(*ex->better));
	ex->seen = calloc(ex->nm, sizeof(*ex->seen));
	if (!ex->sum || !ex->cnt || !ex->unit || !ex->better || !ex->seen)
		goto oom;
	ex->stop = "running";
	return ex;
oom:
	vtb_explore_free(ex);
	vtb_error("out of memory");
	return NULL;
}

void vtb_explore_free(struct vtb_explore *ex)
{
	if (!ex)
		return;
	for (size_t k = 0; ex->unit && k < ex->nm; k++)
		free(ex->unit[k]);
	for (size_t k = 0; ex->seen && k < ex->nm; k++)
		vtb_strbuf_release(&ex->seen[k]);
	free(ex->unit);
	free(ex->better);
	free(ex->seen);
	free(ex->sum);
	free(ex->cnt);
	free(ex->c);
	free(ex->why);
	vtb_race_free(ex->race);
	free(ex);
}

static size_t cand_of_key(const struct vtb_explore *ex, const char *key)
{
	for (size_t i = 0; i < ex->n; i++)
		if (!strcmp(ex->m->configs[ex->c[i].cfg].key, key))
			return i;
	return SIZE_MAX;
}

/* Notes " 'NAME'" in @sb once. */
static void seen_add(struct vtb_strbuf *sb, const char *name)
{
	char *q = vtb_asprintf("'%s'", name);

	if (q && !strstr(vtb_strbuf_str(sb), q))
		vtb_strbuf_addf(sb, "%s%s", sb->len ? ", " : "", q);
	free(q);
}

static int on_sample(const struct vtb_sample_row *row, void *arg)
{
	struct vtb_explore *ex = arg;
	size_t c = cand_of_key(ex, row->config_key);

	if (c == SIZE_MAX)
		return 0;
	for (size_t k = 0; k < ex->nm; k++) {
		const struct vtb_explore_metric *om = &ex->conf->objective[k];

		if (strcmp(row->cell_name, om->cell))
			continue;
		seen_add(&ex->seen[k], row->metric);
		if (strcmp(row->metric, om->metric) || row->rep < 0 || (size_t)row->rep >= ex->cap)
			continue;
		if (!ex->unit[k] && !(ex->unit[k] = vtb_strdup(row->unit ? row->unit : "")))
			return -1;
		if (ex->better[k] < 0)
			ex->better[k] = row->better ? 1 : 0;
		ex->sum[idx3(ex, c, k, (size_t)row->rep)] += row->value;
		ex->cnt[idx3(ex, c, k, (size_t)row->rep)]++;
	}
	return 0;
}

/* Reps 0 .. n - 1 of configuration @cfg stored: their count */
static int stored_reps(struct vtb_store *st, int64_t campaign, const char *key, size_t cap, long *n)
{
	bool exists = true;

	*n = 0;
	while ((size_t)*n < cap && exists) {
		if (vtb_store_boot_exists(st, campaign, key, (int)*n, &exists))
			return -1;
		*n += exists;
	}
	return 0;
}

/* Reads what the candidates' boots stored. */
static int read_samples(struct vtb_explore *ex, struct vtb_store *st, bool *input)
{
	size_t cells = ex->n * ex->nm * ex->cap;
	bool booted = false;

	memset(ex->sum, 0, cells * sizeof(*ex->sum));
	memset(ex->cnt, 0, cells * sizeof(*ex->cnt));
	for (size_t k = 0; k < ex->nm; k++) {
		free(ex->unit[k]);
		ex->unit[k] = NULL;
		ex->better[k] = -1;
		vtb_strbuf_release(&ex->seen[k]);
	}
	if (vtb_store_foreach_sample(st, ex->campaign, on_sample, ex) < 0)
		return -1;
	for (size_t i = 0; i < ex->n; i++) {
		if (stored_reps(st, ex->campaign, ex->m->configs[ex->c[i].cfg].key, ex->cap,
				&ex->c[i].stored) < 0)
			return -1;
		booted |= ex->c[i].stored > 0;
	}
	/* a metric the cell does not report is a typo: say what it reports */
	for (size_t k = 0; booted && k < ex->nm; k++) {
		const struct vtb_explore_metric *om = &ex->conf->objective[k];

		if (!ex->unit[k] && ex->seen[k].len) {
			*input = true;
			return vtb_error("%s:%d: objective '%s/%s': cell '%s' reports no metric "
					 "'%s' (it reports: %s)",
					 ex->m->path, ex->conf->objective_line, om->cell,
					 om->metric, om->cell, om->metric,
					 vtb_strbuf_str(&ex->seen[k]));
		}
	}
	return 0;
}

/* The race's metrics: the class from the samples' unit, the direction
 * from [explore] direction = or the workload's word. */
static void race_metrics(const struct vtb_explore *ex, struct vtb_race_metric *rm)
{
	for (size_t k = 0; k < ex->nm; k++) {
		const struct vtb_explore_metric *om = &ex->conf->objective[k];

		rm[k].k = vtb_metric_class(om->metric, ex->unit[k]);
		if (om->direction)
			rm[k].higher_better = om->direction > 0;
		else if (ex->better[k] >= 0)
			rm[k].higher_better = ex->better[k] == 1;
		else
			rm[k].higher_better = rm[k].k == VTB_MC_THROUGHPUT;
	}
}

/* Feeds every complete stored round to a new race. */
static int replay(struct vtb_explore *ex)
{
	struct vtb_race_metric *rm = calloc(ex->nm, sizeof(*rm));
	size_t *surv = calloc(ex->n, sizeof(*surv));
	double *x = calloc(ex->n * ex->nm, sizeof(*x));
	struct vtb_race_opts o;
	int ret = -1;

	if (!rm || !surv || !x) {
		vtb_error("out of memory");
		goto out;
	}
	race_metrics(ex, rm);
	vtb_race_opts_default(&o);
	o.min_rounds = (size_t)ex->conf->min_rounds;
	o.max_rounds = (size_t)ex->conf->max_rounds;
	o.budget = (size_t)ex->conf->budget_boots;
	o.adjust = ex->conf->holm ? VTB_RACE_HOLM : VTB_RACE_BH;
	o.futility = ex->conf->futility;
	vtb_race_free(ex->race);
	ex->race = vtb_race_new(ex->n, rm, ex->nm, &o);
	if (!ex->race)
		goto out;
	for (size_t r = 0; r < ex->cap && vtb_race_stopped(ex->race) == VTB_RACE_RUNNING; r++) {
		size_t ns = vtb_race_survivors(ex->race, surv);
		bool whole = true;

		for (size_t i = 0; i < ns; i++)
			whole &= (size_t)ex->c[surv[i]].stored > r;
		if (!whole)
			break;
		for (size_t i = 0; i < ns; i++)
			for (size_t k = 0; k < ex->nm; k++) {
				size_t j = idx3(ex, surv[i], k, r);
				double v = ex->cnt[j] ? ex->sum[j] / ex->cnt[j] : NAN;

				/* what the statistic cannot take is a missing sample */
				if (!isfinite(v) || (rm[k].k != VTB_MC_TIME && v <= 0))
					v = NAN;
				x[i * ex->nm + k] = v;
			}
		if (vtb_race_round(ex->race, x) < 0)
			goto out;
	}
	ret = 0;
out:
	free(rm);
	free(surv);
	free(x);
	return ret;
}

static const char *key_of(const struct vtb_explore *ex, size_t c)
{
	return ex->m->configs[ex->c[c].cfg].key;
}

static const char *label_of(const struct vtb_explore *ex, size_t c)
{
	return ex->m->configs[ex->c[c].cfg].label;
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The elimination's evidence (the JSON stored with it) */
static json_t *evidence_json(const struct vtb_explore *ex, const struct vtb_race_elim *e)
{
	const struct vtb_comparison *c = &e->cmp;
	struct vtb_race_metric rm;

	rm.k = vtb_metric_class(ex->conf->objective[e->metric].metric, ex->unit[e->metric]);
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s?, s:I, s:I, s:I, s:s, s:s, s:s}",
			 "verdict", vtb_verdict_name(e->why), "change_pct", jnum(c->change_pct),
			 "ci_low_pct", jnum(c->ci_low_pct), "ci_high_pct", jnum(c->ci_high_pct),
			 "p", jnum(c->p), "q", jnum(c->q), "df", jnum(c->df), "test", c->test,
			 "boots", (json_int_t)c->nx, "boots_best", (json_int_t)c->nb, "family",
			 (json_int_t)e->family, "adjust", e->adjust, "class",
			 vtb_metric_class_name(rm.k), "best_label", label_of(ex, e->against));
}

static json_t *objective_json(const struct vtb_explore *ex)
{
	struct vtb_race_metric *rm = calloc(ex->nm, sizeof(*rm));
	json_t *a = json_array();

	if (!rm || !a)
		goto fail;
	race_metrics(ex, rm);
	for (size_t k = 0; k < ex->nm; k++)
		if (json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s?}", "cell",
						       ex->conf->objective[k].cell, "metric",
						       ex->conf->objective[k].metric, "class",
						       vtb_metric_class_name(rm[k].k), "better",
						       rm[k].higher_better ? "higher" : "lower",
						       "unit", ex->unit[k])))
			goto fail;
	free(rm);
	return a;
fail:
	free(rm);
	json_decref(a);
	return NULL;
}

/* The winner, then the survivors tied with it on every metric */
static json_t *winners_json(const struct vtb_explore *ex, size_t *tied)
{
	size_t w = vtb_race_winner(ex->race);
	json_t *a = json_array();

	*tied = 0;
	if (!a || w == SIZE_MAX)
		return a;
	json_array_append_new(a, json_string(key_of(ex, w)));
	for (size_t c = 0; c < ex->n; c++) {
		const struct vtb_race_standing *s = vtb_race_standing(ex->race, c);

		if (c != w && s->alive && s->metric == ex->nm - 1 && s->cmp.verdict == VTB_V_SAME) {
			json_array_append_new(a, json_string(key_of(ex, c)));
			(*tied)++;
		}
	}
	return a;
}

/* Futility's figures: survivors, open comparisons, the last round the
 * caps allow, the fewest boots a side an open comparison needs (NAN:
 * none would decide any at its spread). */
struct futility {
	size_t survivors, open, last;
	double need;
};

static void futility_of(const struct vtb_explore *ex, struct futility *f)
{
	size_t w = vtb_race_winner(ex->race);

	*f = (struct futility){ .last = vtb_race_last_round(ex->race), .need = NAN };
	for (size_t c = 0; c < ex->n; c++) {
		const struct vtb_race_standing *s = vtb_race_standing(ex->race, c);

		if (!s->alive)
			continue;
		f->survivors++;
		if (c == w || s->cmp.verdict == VTB_V_SAME)
			continue;
		f->open++;
		if (isfinite(s->boots_needed) && !(s->boots_needed >= f->need))
			f->need = s->boots_needed;
	}
}

/* "futile: the 3 survivors could not be told apart ..." (NULL: out of
 * memory) */
static char *futility_text(const struct vtb_explore *ex)
{
	struct futility f;
	char *need, *s;

	futility_of(ex, &f);
	need = isfinite(f.need)
		       ? vtb_asprintf("each open comparison needs >= %.0f boots a side", f.need)
		       : vtb_strdup("no number of boots would decide one at its spread");
	if (!need)
		return NULL;
	s = vtb_asprintf("futile: the %zu survivors could not be told apart within the rounds "
			 "left (round %zu is the last max_rounds and budget_boots allow; %s)",
			 f.survivors, f.last, need);
	free(need);
	return s;
}

/* The evidence of a futile stop (the JSON stored with the race): the
 * figures and each open comparison against the best it was compared with
 * (the winner, or with several metrics the best on an earlier one) */
static json_t *futility_json(const struct vtb_explore *ex)
{
	size_t w = vtb_race_winner(ex->race);
	struct futility f;
	json_t *a = json_array(), *o;

	futility_of(ex, &f);
	for (size_t c = 0; a && c < ex->n; c++) {
		const struct vtb_race_standing *s = vtb_race_standing(ex->race, c);
		const struct vtb_explore_metric *om;
		char *met;

		if (!s->alive || c == w || s->cmp.verdict == VTB_V_SAME || s->metric >= ex->nm)
			continue;
		om = &ex->conf->objective[s->metric];
		met = vtb_asprintf("%s/%s", om->cell, om->metric);
		if (!met ||
		    json_array_append_new(
			    a,
			    json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:o, s:o, s:o, "
				      "s:I, s:o}",
				      "config", key_of(ex, c), "label", label_of(ex, c), "against",
				      s->against < ex->n ? key_of(ex, s->against) : NULL,
				      "against_label",
				      s->against < ex->n ? label_of(ex, s->against) : NULL,
				      "metric", met, "change_pct", jnum(s->cmp.change_pct),
				      "ci_low_pct", jnum(s->cmp.ci_low_pct), "ci_high_pct",
				      jnum(s->cmp.ci_high_pct), "boots", (json_int_t)s->cmp.nx,
				      "boots_needed", jnum(s->boots_needed)))) {
			free(met);
			json_decref(a);
			return NULL;
		}
		free(met);
	}
	if (!a)
		return NULL;
	o = json_pack("{s:I, s:I, s:I, s:o, s:o}", "survivors", (json_int_t)f.survivors, "open",
		      (json_int_t)f.open, "last_round", (json_int_t)f.last, "boots_needed",
		      jnum(f.need), "comparisons", a);
	return o;
}

static char *dumps(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;

	json_decref(j);
	return s;
}

/* Saves the race as it stands (@stop NULL: the engine's word). */
static int save(struct vtb_explore *ex, struct vtb_store *st, const char *stop)
{
	size_t ne = 0, tied;
	const struct vtb_race_elim *el = vtb_race_elims(ex->race, &ne);
	struct vtb_race_elim_row *rows = calloc(ne ? ne : 1, sizeof(*rows));
	char **ev = calloc(ne ? ne : 1, sizeof(*ev)), **met = calloc(ne ? ne : 1, sizeof(*met));
	json_t *cands = json_array();
	struct vtb_race_row r = { 0 };
	char *obj = NULL, *cj = NULL, *wj = NULL, *fj = NULL;
	bool futile = !stop && vtb_race_stopped(ex->race) == VTB_RACE_FUTILE;
	int ret = -1;

	for (size_t c = 0; cands && c < ex->n; c++)
		json_array_append_new(cands, json_string(key_of(ex, c)));
	obj = dumps(objective_json(ex));
	cj = dumps(cands);
	wj = dumps(winners_json(ex, &tied));
	fj = futile ? dumps(futility_json(ex)) : NULL;
	free(ex->why);
	ex->why = futile ? futility_text(ex) : NULL;
	if (!rows || !ev || !met || !obj || !cj || !wj || (futile && (!fj || !ex->why))) {
		vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < ne; i++) {
		const struct vtb_explore_metric *om = &ex->conf->objective[el[i].metric];

		ev[i] = dumps(evidence_json(ex, &el[i]));
		met[i] = vtb_asprintf("%s/%s", om->cell, om->metric);
		if (!ev[i] || !met[i]) {
			vtb_error("out of memory");
			goto out;
		}
		rows[i] = (struct vtb_race_elim_row){
			.round = (long)el[i].round,
			.config_key = key_of(ex, el[i].candidate),
			.metric = met[i],
			.best_key = key_of(ex, el[i].against),
			.reason = el[i].why == VTB_V_MISSING ? "missing" : "worse",
			.evidence = ev[i],
		};
	}
	ex->stop = stop ? stop : vtb_race_stop_name(vtb_race_stopped(ex->race));
	r = (struct vtb_race_row){ .objective = obj,
				   .candidates = cj,
				   .stop = ex->stop,
				   .winners = wj,
				   .stop_evidence = fj,
				   .rounds = (long)vtb_race_rounds(ex->race),
				   .boots = (long)vtb_race_boots(ex->race) };
	ret = vtb_store_race_save(st, ex->campaign, &r, rows, ne);
out:
	for (size_t i = 0; ev && met && i < ne; i++) {
		free(ev[i]);
		free(met[i]);
	}
	free(ev);
	free(met);
	free(rows);
	free(obj);
	free(cj);
	free(wj);
	free(fj);
	return ret;
}

static void say(const struct vtb_explore *ex, char *msg)
{
	if (msg && ex->note)
		ex->note(msg, ex->note_arg);
	free(msg);
}

/* News since the last note: the rounds, each elimination, the stop */
static void tell(struct vtb_explore *ex)
{
	size_t ne = 0, rounds = vtb_race_rounds(ex->race);
	const struct vtb_race_elim *el = vtb_race_elims(ex->race, &ne);
	size_t *surv = calloc(ex->n, sizeof(*surv));
	size_t ns = surv ? vtb_race_survivors(ex->race, surv) : 0;
	int stop = vtb_race_stopped(ex->race);

	free(surv);
	for (size_t i = ex->noted_elims; i < ne; i++) {
		const struct vtb_explore_metric *om = &ex->conf->objective[el[i].metric];

		if (el[i].why == VTB_V_MISSING)
			say(ex, vtb_asprintf("explore, round %zu: '%s' dropped: under 2 values of "
					     "%s/%s (its boots failed, or it was not run)",
					     el[i].round, label_of(ex, el[i].candidate), om->cell,
					     om->metric));
		else
			say(ex, vtb_asprintf("explore, round %zu: '%s' dropped: %s/%s %+.1f%% "
					     "[%+.1f%%, %+.1f%%] against '%s', q = %.3g",
					     el[i].round, label_of(ex, el[i].candidate), om->cell,
					     om->metric, el[i].cmp.change_pct, el[i].cmp.ci_low_pct,
					     el[i].cmp.ci_high_pct, label_of(ex, el[i].against),
					     el[i].cmp.q));
	}
	ex->noted_elims = ne;
	if (rounds > ex->noted && stop == VTB_RACE_RUNNING)
		say(ex, vtb_asprintf("explore, round %zu: %zu of %zu candidates left", rounds, ns,
				     ex->n));
	else if (stop != VTB_RACE_RUNNING && !ex->told_stop &&
		 vtb_race_winner(ex->race) != SIZE_MAX)
		say(ex, vtb_asprintf("explore: stopped after %zu rounds (%s): '%s' wins", rounds,
				     ex->why ? ex->why : vtb_race_stop_name(stop),
				     label_of(ex, vtb_race_winner(ex->race))));
	ex->told_stop |= stop != VTB_RACE_RUNNING;
	ex->noted = rounds;
}

int vtb_explore_decide(void *arg, struct vtb_store *st, int64_t campaign, const int *next,
		       bool *want, bool *input)
{
	struct vtb_explore *ex = arg;
	size_t *surv, ns, round;

	ex->campaign = campaign;
	ex->started = true;
	*input = false;
	if (read_samples(ex, st, input) < 0 || replay(ex) < 0 || save(ex, st, NULL) < 0)
		return -1;
	tell(ex);
	if (vtb_race_stopped(ex->race) != VTB_RACE_RUNNING)
		return 1;
	surv = calloc(ex->n, sizeof(*surv));
	if (!surv)
		return vtb_error("out of memory");
	ns = vtb_race_survivors(ex->race, surv);
	round = vtb_race_rounds(ex->race) + 1;
	memset(want, 0, ex->m->n_configs * sizeof(*want));
	for (size_t i = 0; i < ns; i++) {
		const struct cand *c = &ex->c[surv[i]];

		want[c->cfg] = (size_t)next[c->cfg] < round;
		if (c->base != SIZE_MAX && (size_t)next[c->base] < round)
			want[c->base] = true;
	}
	free(surv);
	return 0;
}

int vtb_explore_finish(struct vtb_explore *ex, struct vtb_store *st, bool interrupted,
		       bool time_spent)
{
	bool input = false;

	if (!ex->started)
		return 0;
	if (read_samples(ex, st, &input) < 0 || replay(ex) < 0)
		return -1;
	if (vtb_race_stopped(ex->race) != VTB_RACE_RUNNING)
		return save(ex, st, NULL);
	return save(ex, st, interrupted ? "interrupted" : time_spent ? "time" : "running");
}

void vtb_explore_outcome(const struct vtb_explore *ex, struct vtb_explore_outcome *out)
{
	size_t w = ex->race ? vtb_race_winner(ex->race) : SIZE_MAX, ne = 0;

	memset(out, 0, sizeof(*out));
	out->stop = ex->stop;
	out->why = ex->why;
	out->candidates = ex->n;
	if (!ex->race)
		return;
	out->winner = w != SIZE_MAX ? label_of(ex, w) : NULL;
	for (size_t c = 0; w != SIZE_MAX && c < ex->n; c++) {
		const struct vtb_race_standing *s = vtb_race_standing(ex->race, c);

		out->tied += c != w && s->alive && s->metric == ex->nm - 1 &&
			     s->cmp.verdict == VTB_V_SAME;
	}
	vtb_race_elims(ex->race, &ne);
	out->eliminated = ne;
	out->rounds = vtb_race_rounds(ex->race);
	out->boots = vtb_race_boots(ex->race);
}

/* ---- what vtbench plan shows ---- */

void vtb_explore_plan_release(struct vtb_explore_plan *x)
{
	free(x->cfg);
	free(x->base);
	free(x->bases);
	free(x->with_cell);
}

static bool has_cell(const struct vtb_config *c, const char *name)
{
	for (size_t j = 0; j < c->n_cells; j++)
		if (!strcmp(c->cells[j].name, name))
			return true;
	return false;
}

/*
 * The race's bounds.  Every round boots each survivor once; before
 * min_rounds nothing is dropped, and a running race has 2 survivors at
 * least (one left ends it), so a boot budget B bounds the rounds to B/n
 * before the first test and to 2 boots a round after it (race.c stops
 * before a round that would pass B).  One candidate: the race is over
 * before it starts.
 */
static void plan_bounds(const struct vtb_explore_conf *e, struct vtb_explore_plan *x)
{
	long long n = (long long)x->n, mr = e->min_rounds, rounds = e->max_rounds;
	long long b = e->budget_boots, cand;

	if (n < 2) {
		x->rounds = x->cand_boots = x->base_boots = 0;
		return;
	}
	cand = rounds * n;
	if (b > 0) {
		long long r = b < n * mr ? b / n : mr + (b - n * mr) / 2;

		x->short_budget = b < n * mr;
		if (r < rounds)
			rounds = r;
		if (x->short_budget)
			cand = rounds * n;
		else if (b < cand)
			cand = b;
	}
	x->rounds = rounds;
	x->cand_boots = cand;
	x->base_boots = rounds * (long long)x->nb;
}

int vtb_explore_plan_make(const struct vtb_matrix *m, struct vtb_explore_plan *x)
{
	const struct vtb_explore_conf *e = m->explore;
	size_t nc = m->n_configs ? m->n_configs : 1;

	memset(x, 0, sizeof(*x));
	x->cfg = calloc(nc, sizeof(*x->cfg));
	x->base = calloc(nc, sizeof(*x->base));
	x->bases = calloc(nc, sizeof(*x->bases));
	x->with_cell = calloc(e->n_objective ? e->n_objective : 1, sizeof(*x->with_cell));
	if (!x->cfg || !x->base || !x->bases || !x->with_cell) {
		vtb_explore_plan_release(x);
		return vtb_error("out of memory");
	}
	x->n = vtb_explore_candidates(m, x->cfg, x->base);
	for (size_t i = 0; i < x->n; i++) {
		size_t j;

		for (size_t k = 0; k < e->n_objective; k++)
			x->with_cell[k] += has_cell(&m->configs[x->cfg[i]], e->objective[k].cell);
		if (x->base[i] == SIZE_MAX) {
			x->no_base += m->configs[x->cfg[i]].kind == VTB_CONFIG_VM;
			continue;
		}
		for (j = 0; j < x->nb && x->bases[j] != x->base[i]; j++)
			;
		if (j == x->nb)
			x->bases[x->nb++] = x->base[i];
	}
	plan_bounds(e, x);
	return 0;
}

json_t *vtb_explore_plan_json(const struct vtb_matrix *m, const struct vtb_explore_plan *x)
{
	const struct vtb_explore_conf *e = m->explore;
	json_t *o, *obj = json_array(), *cands = json_array(), *bases = json_array();

	if (!obj || !cands || !bases)
		goto fail;
	for (size_t k = 0; k < e->n_objective; k++)
		if (json_array_append_new(obj, json_pack("{s:s, s:s, s:s, s:I}", "cell",
							 e->objective[k].cell, "metric",
							 e->objective[k].metric, "direction",
							 e->objective[k].direction > 0	 ? "higher"
							 : e->objective[k].direction < 0 ? "lower"
											 : "auto",
							 "candidates_with_cell",
							 (json_int_t)x->with_cell[k])))
			goto fail;
	for (size_t i = 0; i < x->n; i++) {
		const struct vtb_config *c = &m->configs[x->cfg[i]];
		char id[32];

		snprintf(id, sizeof(id), "c%zu", i + 1);
		if (json_array_append_new(cands, json_pack("{s:s, s:s, s:s, s:s?}", "id", id, "key",
							   c->key, "label", c->label, "baseline",
							   x->base[i] == SIZE_MAX
								   ? NULL
								   : m->configs[x->base[i]].key)))
			goto fail;
	}
	for (size_t j = 0; j < x->nb; j++)
		if (json_array_append_new(bases, json_string(m->configs[x->bases[j]].key)))
			goto fail;
	o = json_pack("{s:i, s:O, s:I, s:I, s:I, s:I, s:s, s:s, s:O, s:O, s:{s:I, s:I, s:I}, "
		      "s:{s:I, s:I, s:I, s:I}, s:b, s:b}",
		      "line", e->line, "objective", obj, "min_rounds", (json_int_t)e->min_rounds,
		      "max_rounds", (json_int_t)e->max_rounds, "budget_boots",
		      (json_int_t)e->budget_boots, "budget_ns", (json_int_t)e->budget_ns,
		      "multiplicity", e->holm ? "holm" : "bh", "kind",
		      x->n && m->configs[x->cfg[0]].kind == VTB_CONFIG_BASELINE ? "baseline" : "vm",
		      "candidates", cands, "baselines", bases, "round", "candidate_boots",
		      (json_int_t)x->n, "baseline_boots", (json_int_t)x->nb, "boots",
		      (json_int_t)(x->n + x->nb), "at_most", "rounds", (json_int_t)x->rounds,
		      "candidate_boots", (json_int_t)x->cand_boots, "baseline_boots",
		      (json_int_t)x->base_boots, "boots",
		      (json_int_t)(x->cand_boots + x->base_boots), "budget_short", x->short_budget,
		      "futility", (int)e->futility);
	json_decref(obj);
	json_decref(cands);
	json_decref(bases);
	return o;
fail:
	json_decref(obj);
	json_decref(cands);
	json_decref(bases);
	return NULL;
}
