/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend's document (recommend.h).  The margins come from
 * compare: the row of the winner against its own baseline is compare's
 * document's row (vtb_compare_build, the default selection), the guest
 * evidence its "evidence" entry; the margin over the runner-up is
 * compare's statistic on the two candidates' per-boot values
 * (vtb_compare_samples, vtb_verdict), one comparison, so q = p.
 */
#include "recommend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../compare/compare.h"
#include "../store/store.h"

struct rcand {
	char *key, *label, *kind;
	long elim_round; /* 0: not eliminated */
	double *sum;	 /* [metric][rep] */
	unsigned *cnt;
	json_t *params; /* its configuration's params (the sched profile's keys) */
	/* its VM boots and their sched records as applied: the distinct
	 * records, each {"record", "boots", "reps"}, in first-seen order */
	json_t *sched_seen, *sched_index;
	long vm_boots, unrecorded;
};

struct rec {
	struct vtb_store *st;
	const char *db;
	int64_t id;
	json_t *doc, *race, *objective, *winners, *elims;
	struct rcand *c;
	size_t nc, nm, cap;
	bool bad;
};

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void rec_release(struct rec *r)
{
	for (size_t i = 0; r->c && i < r->nc; i++) {
		free(r->c[i].key);
		free(r->c[i].label);
		free(r->c[i].kind);
		free(r->c[i].sum);
		free(r->c[i].cnt);
		json_decref(r->c[i].params);
		json_decref(r->c[i].sched_seen);
		json_decref(r->c[i].sched_index);
	}
	free(r->c);
	json_decref(r->race);
	json_decref(r->objective);
	json_decref(r->winners);
	json_decref(r->elims);
}

static size_t cand_of(const struct rec *r, const char *key)
{
	for (size_t i = 0; key && i < r->nc; i++)
		if (!strcmp(r->c[i].key, key))
			return i;
	return SIZE_MAX;
}

static int bad(struct rec *r, const char *what)
{
	r->bad = true;
	return vtb_error("'%s': the race of campaign %lld is damaged: %s", r->db, (long long)r->id,
			 what);
}

/* ---- reading ---- */

/* The accelerators the campaign's VM boots ran under, comma-joined as
 * compare's document has them (the TCG note reads them); null: none */
static json_t *accelerators(const char *lines)
{
	char *s = lines && *lines ? vtb_strdup(lines) : NULL;
	json_t *j;

	if (!lines || !*lines)
		return json_null();
	if (!s)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == '\n')
			*p = ',';
	j = json_string(s);
	free(s);
	return j;
}

static int on_campaign(const struct vtb_campaign_row *row, void *arg)
{
	struct rec *r = arg;
	json_t *c = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "uuid", row->uuid, "matrix",
			      row->matrix_path, "host", row->hostname, "status", row->status,
			      "version", row->version, "started_ns", (json_int_t)row->started_ns,
			      "accelerators", accelerators(row->accelerators));

	if (!c || json_object_set_new(r->doc, "campaign", c) < 0)
		return vtb_error("out of memory");
	return 0;
}

static int on_race(const struct vtb_race_row *row, void *arg)
{
	struct rec *r = arg;
	json_t *cands = json_loads(row->candidates, 0, NULL);
	size_t i;
	json_t *k;

	r->objective = json_loads(row->objective, 0, NULL);
	r->winners = json_loads(row->winners, 0, NULL);
	if (!json_is_array(r->objective) || !json_array_size(r->objective) ||
	    !json_is_array(r->winners) || !json_is_array(cands) || !json_array_size(cands)) {
		json_decref(cands);
		return bad(r, "its objective, candidates or winners are not what explore writes");
	}
	r->race = json_pack("{s:s, s:I, s:I}", "stop", row->stop, "rounds", (json_int_t)row->rounds,
			    "boots", (json_int_t)row->boots);
	if (r->race && row->stop_evidence) {
		json_t *fe = json_loads(row->stop_evidence, 0, NULL);

		if (!json_is_object(fe)) {
			json_decref(fe);
			json_decref(cands);
			return bad(r, "its stop's evidence is not a JSON object");
		}
		if (json_object_set_new(r->race, "futility", fe) < 0) {
			json_decref(cands);
			return vtb_error("out of memory");
		}
	}
	r->nm = json_array_size(r->objective);
	r->cap = row->rounds > 0 ? (size_t)row->rounds : 1;
	r->nc = json_array_size(cands);
	r->c = calloc(r->nc, sizeof(*r->c));
	if (!r->race || !r->c) {
		json_decref(cands);
		return vtb_error("out of memory");
	}
	json_array_foreach(cands, i, k)
	{
		r->c[i].key = vtb_strdup(json_string_value(k) ? json_string_value(k) : "?");
		r->c[i].sum = calloc(r->nm * r->cap, sizeof(*r->c[i].sum));
		r->c[i].cnt = calloc(r->nm * r->cap, sizeof(*r->c[i].cnt));
		if (!r->c[i].key || !r->c[i].sum || !r->c[i].cnt) {
			json_decref(cands);
			return vtb_error("out of memory");
		}
	}
	json_decref(cands);
	return 0;
}

static int on_config(const struct vtb_config_row *row, void *arg)
{
	struct rec *r = arg;
	size_t c = cand_of(r, row->key);

	if (c == SIZE_MAX)
		return 0;
	free(r->c[c].label);
	free(r->c[c].kind);
	json_decref(r->c[c].params);
	r->c[c].label = vtb_strdup(row->label);
	r->c[c].kind = vtb_strdup(row->kind);
	/* params are the store's own JSON (checked as read); anything else
	 * reads as a profile without settings */
	r->c[c].params = json_loads(row->params_json ? row->params_json : "{}", 0, NULL);
	return r->c[c].label && r->c[c].kind ? 0 : -1;
}

/*
 * Position @key in the array an index object @index keys (a new entry at
 * @n when absent: *added true).  Keyed, so that a database holding
 * thousands of boots, knobs or CPUs, each unlike the others, costs no
 * more than one holding them alike.  -1 on ENOMEM.
 */
static long index_of(json_t *index, const char *key, size_t n, bool *added)
{
	const json_t *v = json_object_get(index, key);

	*added = !v;
	if (v)
		return (long)json_integer_value(v);
	return json_object_set_new(index, key, json_integer((json_int_t)n)) < 0 ? -1 : (long)n;
}

/* A VM boot's sched record (as the guest applied and read back its
 * profile), counted with its configuration's alike records */
static int on_vm_boot(const struct vtb_vm_boot_row *row, void *arg)
{
	struct rec *r = arg;
	size_t c = cand_of(r, row->config_key);
	json_t *rec, *o, *reps;
	char *text = NULL;
	bool added;
	long at;

	if (c == SIZE_MAX)
		return 0;
	r->c[c].vm_boots++;
	rec = row->sched_json ? json_loads(row->sched_json, 0, NULL) : NULL;
	if (!json_is_object(rec)) {
		json_decref(rec);
		r->c[c].unrecorded++;
		return 0;
	}
	json_object_del(rec, "type");
	if (!r->c[c].sched_seen)
		r->c[c].sched_seen = json_array();
	if (!r->c[c].sched_index)
		r->c[c].sched_index = json_object();
	text = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
	at = text && r->c[c].sched_seen && r->c[c].sched_index
		     ? index_of(r->c[c].sched_index, text, json_array_size(r->c[c].sched_seen),
				&added)
		     : -1;
	free(text);
	if (at < 0) {
		json_decref(rec);
		return vtb_error("out of memory");
	}
	if (added) {
		o = json_pack("{s:o, s:i, s:[i]}", "record", rec, "boots", 1, "reps", row->rep);
		return !o || json_array_append_new(r->c[c].sched_seen, o) < 0
			       ? vtb_error("out of memory")
			       : 0;
	}
	json_decref(rec);
	o = json_array_get(r->c[c].sched_seen, (size_t)at);
	reps = json_object_get(o, "reps");
	json_object_set_new(o, "boots",
			    json_integer(json_integer_value(json_object_get(o, "boots")) + 1));
	/* VMs side by side share a rep; boots come in rep order */
	if (json_integer_value(json_array_get(reps, json_array_size(reps) - 1)) != row->rep &&
	    json_array_append_new(reps, json_integer(row->rep)) < 0)
		return vtb_error("out of memory");
	return 0;
}

static const char *ostr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static int on_sample(const struct vtb_sample_row *row, void *arg)
{
	struct rec *r = arg;
	size_t c = cand_of(r, row->config_key);

	if (c == SIZE_MAX || row->rep < 0 || (size_t)row->rep >= r->cap)
		return 0;
	for (size_t k = 0; k < r->nm; k++) {
		const json_t *om = json_array_get(r->objective, k);

		if (!strcmp(row->cell_name, ostr(om, "cell")) &&
		    !strcmp(row->metric, ostr(om, "metric"))) {
			r->c[c].sum[k * r->cap + (size_t)row->rep] += row->value;
			r->c[c].cnt[k * r->cap + (size_t)row->rep]++;
		}
	}
	return 0;
}

static const char *label_of(const struct rec *r, const char *key)
{
	size_t c = cand_of(r, key);

	return c != SIZE_MAX && r->c[c].label ? r->c[c].label : key;
}

static int on_elim(const struct vtb_race_elim_row *row, void *arg)
{
	struct rec *r = arg;
	size_t c = cand_of(r, row->config_key);
	json_t *ev = json_loads(row->evidence, 0, NULL), *e;

	if (!ev)
		return bad(r, "an elimination's evidence is not JSON");
	if (c != SIZE_MAX)
		r->c[c].elim_round = row->round;
	e = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "round", (json_int_t)row->round,
		      "config", row->config_key, "label", label_of(r, row->config_key), "metric",
		      row->metric, "best", row->best_key, "best_label", label_of(r, row->best_key),
		      "reason", row->reason, "evidence", ev);
	if (!e || json_array_append_new(r->elims, e) < 0)
		return vtb_error("out of memory");
	return 0;
}

/* ---- the figures ---- */

/* Candidate @c's values of metric @k, rep order, the missing left out */
static size_t values(const struct rec *r, size_t c, size_t k, double *out)
{
	size_t n = 0;

	for (size_t rep = 0; rep < r->cap; rep++) {
		size_t j = k * r->cap + rep;

		if (r->c[c].cnt[j])
			out[n++] = r->c[c].sum[j] / r->c[c].cnt[j];
	}
	return n;
}

static enum vtb_metric_class class_of(const json_t *om)
{
	const char *k = ostr(om, "class");

	return !strcmp(k, "throughput") ? VTB_MC_THROUGHPUT
	       : !strcmp(k, "latency")	? VTB_MC_LATENCY
					: VTB_MC_TIME;
}

static double mean_of(const struct rec *r, size_t c, size_t k, double *buf, size_t *n)
{
	struct vtb_summary s;

	*n = values(r, c, k, buf);
	if (vtb_summarise(buf, *n, class_of(json_array_get(r->objective, k)), &s) < 0)
		return NAN;
	return s.mean;
}

/* The runner-up: the best survivor by its mean on the first metric
 * other than the winner, else the candidate dropped last */
static size_t runner_up(const struct rec *r, size_t w, double *buf)
{
	bool higher = !strcmp(ostr(json_array_get(r->objective, 0), "better"), "higher");
	size_t best = SIZE_MAX, n;
	double bm = NAN;
	long last = 0;

	for (size_t c = 0; c < r->nc; c++) {
		double m = mean_of(r, c, 0, buf, &n);

		if (c == w || r->c[c].elim_round || !isfinite(m))
			continue;
		if (best == SIZE_MAX || (higher ? m > bm : m < bm)) {
			best = c;
			bm = m;
		}
	}
	if (best != SIZE_MAX)
		return best;
	for (size_t c = 0; c < r->nc; c++)
		if (c != w && r->c[c].elim_round >= last && r->c[c].elim_round) {
			last = r->c[c].elim_round;
			best = c;
		}
	return best;
}

/* Candidate @x against the winner @w on metric @k (compare's statistic) */
static json_t *margin_json(const struct rec *r, size_t w, size_t x, size_t k)
{
	const json_t *om = json_array_get(r->objective, k);
	double *a = calloc(r->cap, sizeof(*a)), *b = calloc(r->cap, sizeof(*b));
	struct vtb_test_opts o;
	struct vtb_comparison cmp;
	size_t na, nb;
	json_t *j = NULL;
	struct vtb_summary s;

	if (!a || !b)
		goto out;
	vtb_test_opts_default(&o);
	na = values(r, w, k, a);
	nb = values(r, x, k, b);
	vtb_compare_samples(a, na, b, nb, class_of(om), &o, &cmp);
	cmp.q = cmp.p; /* one comparison */
	vtb_verdict(&cmp, !strcmp(ostr(om, "better"), "higher"), &o, o.alpha);
	if (vtb_summarise(b, nb, class_of(om), &s) < 0)
		goto out;
	j = json_pack("{s:s, s:s, s:o, s:I, s:o, s:o, s:o, s:o, s:s?, s:s}", "config", r->c[x].key,
		      "label", label_of(r, r->c[x].key), "mean", jnum(s.mean), "boots",
		      (json_int_t)nb, "change_pct", jnum(cmp.change_pct), "ci_low_pct",
		      jnum(cmp.ci_low_pct), "ci_high_pct", jnum(cmp.ci_high_pct), "p", jnum(cmp.p),
		      "test", cmp.test, "verdict", vtb_verdict_name(cmp.verdict));
out:
	free(a);
	free(b);
	return j;
}

/* The compare row of @key on objective metric @om in compare's document */
static const json_t *compare_row(const json_t *cdoc, const char *key, const json_t *om)
{
	size_t i;
	const json_t *row;

	json_array_foreach(json_object_get(cdoc, "rows"), i, row)
	{
		if (!strcmp(ostr(json_object_get(row, "x"), "config"), key) &&
		    !strcmp(ostr(row, "cell"), ostr(om, "cell")) &&
		    !strcmp(ostr(row, "metric"), ostr(om, "metric")))
			return row;
	}
	return NULL;
}

/* A configuration's label in compare's document ("configs") */
static const char *cdoc_label(const json_t *cdoc, const char *key)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(cdoc, "configs"), i, c)
	{
		if (!strcmp(ostr(c, "key"), key))
			return ostr(c, "label");
	}
	return key;
}

static json_t *baseline_json(const json_t *cdoc, const char *key, const json_t *om)
{
	const json_t *row = compare_row(cdoc, key, om), *base;

	if (!row)
		return json_null();
	base = json_object_get(row, "base");
	return json_pack("{s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "config",
			 ostr(base, "config"), "label", cdoc_label(cdoc, ostr(base, "config")),
			 "mean", json_object_get(json_object_get(base, "summary"), "mean"),
			 "change_pct", json_object_get(row, "change_pct"), "ci_low_pct",
			 json_object_get(row, "ci_low_pct"), "ci_high_pct",
			 json_object_get(row, "ci_high_pct"), "q", json_object_get(row, "q"),
			 "verdict", json_object_get(row, "verdict"), "test",
			 json_object_get(row, "test"));
}

/* Per objective metric: the winner, its baseline, its runner-up */
static int objective_json(struct rec *r, const json_t *cdoc, size_t w, json_t *out)
{
	double *buf = calloc(r->cap, sizeof(*buf));
	size_t up = runner_up(r, w, buf ? buf : NULL);
	int ret = -1;

	if (!buf)
		return vtb_error("out of memory");
	for (size_t k = 0; k < r->nm; k++) {
		const json_t *om = json_array_get(r->objective, k);
		json_t *o = json_deep_copy(om), *bl, *win;
		size_t n;
		double m = mean_of(r, w, k, buf, &n);

		win = json_pack("{s:s, s:s, s:o, s:I}", "config", r->c[w].key, "label",
				label_of(r, r->c[w].key), "mean", jnum(m), "boots", (json_int_t)n);
		bl = baseline_json(cdoc, r->c[w].key, om);
		if (!o || !win || !bl || json_object_set_new(o, "winner", win) < 0 ||
		    json_object_set_new(o, "baseline", bl) < 0 ||
		    json_object_set_new(o, "runner_up",
					up != SIZE_MAX ? margin_json(r, w, up, k) : json_null()) <
			    0 ||
		    json_array_append_new(out, o) < 0) {
			vtb_error("out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

/* Every candidate: its standing and its values round by round (the
 * racing chart) */
static json_t *candidates_json(const struct rec *r)
{
	json_t *a = json_array();

	for (size_t c = 0; a && c < r->nc; c++) {
		const char *status = "alive";
		json_t *vals = json_array(), *o;
		size_t i;
		json_t *w;

		json_array_foreach(r->winners, i, w)
		{
			if (!strcmp(json_string_value(w) ? json_string_value(w) : "", r->c[c].key))
				status = i ? "tied" : "winner";
		}
		if (r->c[c].elim_round)
			status = "eliminated";
		for (size_t k = 0; vals && k < r->nm; k++) {
			json_t *row = json_array();
			size_t last = r->c[c].elim_round ? (size_t)r->c[c].elim_round : r->cap;

			for (size_t rep = 0; row && rep < last && rep < r->cap; rep++) {
				size_t j = k * r->cap + rep;

				json_array_append_new(row, r->c[c].cnt[j] ? jnum(r->c[c].sum[j] /
										 r->c[c].cnt[j])
									  : json_null());
			}
			json_array_append_new(vals, row);
		}
		o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:o}", "config", r->c[c].key, "label",
			      label_of(r, r->c[c].key), "kind", r->c[c].kind ? r->c[c].kind : "?",
			      "status", status, "eliminated_round", (json_int_t)r->c[c].elim_round,
			      "values", vals);
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* A CPU's level names, innermost first ("SMT MC"; "" for none: an
 * isolated CPU, or one alone in its domains) */
static char *cpu_levels(const json_t *cpu)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *l;
	size_t i;

	if (vtb_strbuf_addstr(&sb, ""))
		return NULL;
	json_array_foreach(json_object_get(cpu, "levels"), i, l)
	{
		const char *n = json_string_value(json_object_get(l, "name"));

		if (vtb_strbuf_addf(&sb, "%s%s", i ? " " : "", n ? n : "?")) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
	}
	return vtb_strbuf_detach(&sb);
}

/*
 * A tree's levels per CPU, CPUs with the same levels as one entry, in the
 * order of their first CPU: [{"cpus": "0-1", "levels": "MC"}, {"cpus":
 * "2", "levels": ""}].  What sets two setups apart at a glance, an
 * isolated CPU's empty levels too.  NULL on ENOMEM.
 */
static json_t *levels_by_cpu(const json_t *tree)
{
	json_t *groups = json_array(), *index = json_object(), *out = json_array();
	struct vtb_cpuset *sets = NULL;
	const json_t *cpu;
	size_t i, n = 0;
	bool fail = !groups || !index || !out;

	json_array_foreach(json_object_get(tree, "cpus"), i, cpu)
	{
		json_int_t id = json_integer_value(json_object_get(cpu, "cpu"));
		char *names;
		bool added;
		long k;

		/* the store's tree is the harness's normalised one; a CPU
		 * number that is not one is left out rather than trusted */
		if (fail || !json_is_integer(json_object_get(cpu, "cpu")) || id < 0 ||
		    id >= (1 << 20))
			continue;
		names = cpu_levels(cpu);
		k = names ? index_of(index, names, n, &added) : -1;
		if (k >= 0 && added) {
			struct vtb_cpuset *ns = realloc(sets, (n + 1) * sizeof(*sets));

			if (ns) {
				sets = ns;
				memset(&sets[n++], 0, sizeof(*sets));
			}
			if (!ns || json_array_append_new(groups, json_string(names)) < 0)
				k = -1;
		}
		free(names);
		fail = k < 0 || vtb_cpuset_add(&sets[k], (int)id) < 0;
	}
	for (size_t k = 0; !fail && k < n; k++) {
		char *cpus = vtb_cpuset_format(&sets[k]);

		fail = !cpus ||
		       json_array_append_new(out, json_pack("{s:s, s:O}", "cpus", cpus, "levels",
							    json_array_get(groups, k))) < 0;
		free(cpus);
	}
	for (size_t k = 0; k < n; k++)
		vtb_cpuset_release(&sets[k]);
	free(sets);
	json_decref(groups);
	json_decref(index);
	if (fail) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static int on_tree(const struct vtb_guest_tree_row *row, void *arg)
{
	json_t *a = arg, *tree = json_loads(row->tree, 0, NULL), *o, *by;

	if (!tree)
		return 0; /* a damaged tree is left out: the evidence says what the boots did */
	by = levels_by_cpu(tree);
	o = by ? json_pack("{s:s, s:I, s:i, s:O, s:o}", "digest", row->digest, "boots",
			   (json_int_t)row->boots, "first_rep", row->first_rep, "cpus",
			   json_object_get(tree, "cpus"), "levels_by_cpu", by)
	       : NULL;
	json_decref(tree);
	if (!o || json_array_append_new(a, o) < 0)
		return vtb_error("out of memory");
	return 0;
}

/*
 * A sched record's knobs: its settings (one per file written: a
 * per-domain knob has one per CPU and domain) as one entry per key and
 * value wanted, with how many files it set, whether every one read back
 * as wanted, and the values read back with how many files read each
 * ("read" null: unreadable).  NULL on ENOMEM.
 */
static json_t *knobs_json(const json_t *settings)
{
	json_t *out = json_array(), *kidx = json_object(), *ridx = json_object(), *kn, *reads;
	const json_t *st;
	size_t i;
	bool fail = !out || !kidx || !ridx;

	json_array_foreach(settings, i, st)
	{
		const json_t *read = json_object_get(st, "read");
		char *id = fail ? NULL
				: vtb_asprintf("%s\x1f%s", ostr(st, "key"), ostr(st, "want"));
		bool added;
		long k = id ? index_of(kidx, id, json_array_size(out), &added) : -1, v;
		/* a value read back, within its knob: "K\x1fs..." (null: "K\x1fn") */
		char *rid = k >= 0 ? vtb_asprintf("%ld\x1f%s%s", k,
						  json_is_string(read) ? "s" : "n",
						  json_is_string(read) ? json_string_value(read)
								       : "")
				   : NULL;

		if (k >= 0 && added &&
		    json_array_append_new(out, json_pack("{s:s, s:s, s:i, s:b, s:[]}", "key",
							 ostr(st, "key"), "want", ostr(st, "want"),
							 "files", 0, "ok", 1, "reads")) < 0)
			k = -1;
		kn = k >= 0 ? json_array_get(out, (size_t)k) : NULL;
		reads = json_object_get(kn, "reads");
		v = kn && rid ? index_of(ridx, rid, json_array_size(reads), &added) : -1;
		if (v >= 0 && added &&
		    json_array_append_new(reads, json_pack("{s:O, s:i}", "value",
							   json_is_string(read) ? (json_t *)read
										: json_null(),
							   "files", 0)) < 0)
			v = -1;
		free(id);
		free(rid);
		if (v < 0) {
			fail = true;
			break;
		}
		json_object_set_new(kn, "files",
				    json_integer(json_integer_value(json_object_get(kn, "files")) +
						 1));
		if (!json_is_true(json_object_get(st, "ok")))
			json_object_set_new(kn, "ok", json_false());
		kn = json_array_get(reads, (size_t)v);
		json_object_set_new(kn, "files",
				    json_integer(json_integer_value(json_object_get(kn, "files")) +
						 1));
	}
	json_decref(kidx);
	json_decref(ridx);
	if (fail) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/*
 * Candidate @c's sched profile: its name and keys as the matrix set them
 * ("declared": "cmdline", "sysctl.kernel.numa_balancing", ... from its
 * params), and as its VM boots applied them, read back in the guest:
 * each distinct sched record with its boots and reps (the cmdline tokens
 * found in /proc/cmdline, the knobs with the values read back), the
 * boots without a record, and whether every boot recorded the same.
 * NULL on ENOMEM.
 */
static json_t *sched_json(const struct rec *r, size_t c)
{
	json_t *declared = json_object(), *applied = json_array(), *o, *v, *rec;
	const char *k;
	size_t i;

	if (!declared || !applied)
		goto oom;
	json_object_foreach(r->c[c].params, k, v)
	{
		if (!strncmp(k, "sched.", 6) && json_is_string(v) &&
		    json_object_set(declared, k + 6, v) < 0)
			goto oom;
	}
	json_array_foreach(r->c[c].sched_seen, i, o)
	{
		json_t *knobs, *cmdline, *a;

		rec = json_object_get(o, "record");
		cmdline = json_is_array(json_object_get(rec, "cmdline"))
				  ? json_deep_copy(json_object_get(rec, "cmdline"))
				  : json_array();
		knobs = knobs_json(json_object_get(rec, "settings"));
		if (!knobs || !cmdline) {
			json_decref(knobs);
			json_decref(cmdline);
			goto oom;
		}
		/* "o" steals both, also when packing fails */
		a = json_pack("{s:O, s:O, s:s?, s:b, s:o, s:o}", "boots",
			      json_object_get(o, "boots"), "reps", json_object_get(o, "reps"),
			      "name", json_string_value(json_object_get(rec, "name")), "ok",
			      json_is_true(json_object_get(rec, "ok")), "cmdline", cmdline, "knobs",
			      knobs);
		if (!a || json_array_append_new(applied, a) < 0)
			goto oom;
	}
	return json_pack("{s:s?, s:o, s:I, s:I, s:o, s:b}", "profile",
			 json_string_value(json_object_get(r->c[c].params, "sched")), "declared",
			 declared, "boots", (json_int_t)r->c[c].vm_boots, "unrecorded",
			 (json_int_t)r->c[c].unrecorded, "applied", applied, "agree",
			 json_array_size(applied) == 1 && !r->c[c].unrecorded);
oom:
	json_decref(declared);
	json_decref(applied);
	return NULL;
}

/* The distinct sched-domain trees candidate @key's guests built (NULL on
 * a failure, with vtb_error()) */
static json_t *trees_json(struct rec *r, const char *key)
{
	json_t *trees = json_array();

	if (!trees) {
		vtb_error("out of memory");
		return NULL;
	}
	if (vtb_store_foreach_guest_tree(r->st, r->id, key, on_tree, trees) < 0) {
		json_decref(trees);
		return NULL;
	}
	return trees;
}

/*
 * Each loser's largest evidence differences (the document's
 * eliminations[].setup.evidence, docs/evidence.md): per cell of loser
 * @x's scheduler counters, the ones farthest from the winner @w's
 * (compare's vtb_compare_evidence_diff(), "x" the loser, "base" the
 * winner), largest first: [{"cell", "items": [...]}].  Null where either
 * has no counters (a baseline, boots from before they were collected).
 * A new reference, or NULL on ENOMEM.
 */
static json_t *loser_evidence_json(const struct rec *r, const json_t *cdoc, size_t x, size_t w)
{
	const json_t *xe, *we, *cell;
	json_t *out;
	size_t i;

	if (w == SIZE_MAX)
		return json_null();
	xe = vtb_compare_evidence_of(cdoc, r->c[x].key);
	we = vtb_compare_evidence_of(cdoc, r->c[w].key);
	if (!json_array_size(json_object_get(xe, "sched")) ||
	    !json_array_size(json_object_get(we, "sched")))
		return json_null();
	out = json_array();
	if (!out)
		return NULL;
	json_array_foreach(json_object_get(xe, "sched"), i, cell)
	{
		const char *name = ostr(cell, "cell");
		json_t *items = name ? vtb_compare_evidence_diff(xe, we, name) : NULL;

		/* NULL: the winner has no counters of this cell */
		if (!items)
			continue;
		if (!json_array_size(items)) {
			json_decref(items);
			continue;
		}
		/* "o" steals items, also when packing fails */
		if (json_array_append_new(out,
					  json_pack("{s:s, s:o}", "cell", name, "items", items)))
			goto oom;
	}
	return out;
oom:
	json_decref(out);
	return NULL;
}

/*
 * Why loser @x lost, beside the winner @w (SIZE_MAX: none): its sched
 * profile as applied, the sched-domain trees its guests built (the
 * winner's are the document's guest.trees) and the evidence differences
 * (loser_evidence_json).  Null for a bare-metal candidate: no guest, no
 * profile.  NULL with vtb_error() on a failure.
 */
static json_t *setup_json(struct rec *r, const json_t *cdoc, size_t x, size_t w)
{
	json_t *sched, *trees, *ev;

	if (!r->c[x].kind || strcmp(r->c[x].kind, "vm"))
		return json_null();
	sched = sched_json(r, x);
	trees = sched ? trees_json(r, r->c[x].key) : NULL;
	ev = trees ? loser_evidence_json(r, cdoc, x, w) : NULL;
	if (!sched || !trees || !ev) {
		json_decref(sched);
		json_decref(trees);
		if (!sched || trees) /* trees_json() said why it failed */
			vtb_error("out of memory");
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o}", "sched", sched, "trees", trees, "evidence", ev);
}

/* The winner's guests: compare's evidence (claims, drift, levels), the
 * sched-domain trees they built and its sched profile as applied */
static json_t *guest_json(struct rec *r, const json_t *cdoc, size_t w)
{
	const char *key = r->c[w].key;
	const json_t *ev = vtb_compare_evidence_of(cdoc, key);
	json_t *trees, *sched;

	trees = trees_json(r, key);
	if (!trees)
		return NULL;
	sched = r->c[w].kind && !strcmp(r->c[w].kind, "vm") ? sched_json(r, w) : json_null();
	if (!sched) {
		json_decref(trees);
		vtb_error("out of memory");
		return NULL;
	}
	return json_pack("{s:O?, s:o, s:o}", "evidence", ev, "trees", trees, "sched", sched);
}

/* Each elimination's setup (setup_json), once the boots are read */
static int elims_setup(struct rec *r, const json_t *cdoc, size_t w)
{
	json_t *e;
	size_t i;

	json_array_foreach(r->elims, i, e)
	{
		size_t x = cand_of(r, ostr(e, "config"));
		json_t *setup = x != SIZE_MAX ? setup_json(r, cdoc, x, w) : json_null();

		if (!setup || json_object_set_new(e, "setup", setup) < 0)
			return setup ? vtb_error("out of memory") : -1;
	}
	return 0;
}

static int build(struct rec *r, const char *spec)
{
	const char *uuid;
	struct vtb_compare_opts co;
	json_t *cdoc = NULL, *objs = json_array(), *cands, *guest, *ties = json_array();
	bool found = false, cbad = false;
	size_t n = 0, w, i;
	json_t *k;
	int ret = -1;

	if (!objs || !ties)
		goto oom;
	if (spec) {
		if (vtb_store_campaign_lookup(r->st, spec, &r->id, &n) < 0)
			goto out;
		if (n != 1) {
			r->bad = true;
			ret = n ? vtb_error(
					  "campaign '%s' is ambiguous in '%s': %zu campaigns match",
					  spec, r->db, n)
				: vtb_error("no campaign '%s' in '%s'", spec, r->db);
			goto out;
		}
	} else {
		if (vtb_store_latest_race(r->st, &r->id, &found) < 0)
			goto out;
		if (!found) {
			r->bad = true;
			ret = vtb_error("no campaign of vtbench explore in '%s'", r->db);
			goto out;
		}
	}
	if (vtb_store_campaign_get(r->st, r->id, on_campaign, r) < 0 ||
	    vtb_store_race_get(r->st, r->id, on_race, r, &found) < 0)
		goto out;
	uuid = ostr(json_object_get(r->doc, "campaign"), "uuid");
	if (!found) {
		r->bad = true;
		ret = vtb_error("campaign %s in '%s' has no race: vtbench explore did not run it",
				uuid, r->db);
		goto out;
	}
	if (!(r->elims = json_array()) ||
	    vtb_store_foreach_config(r->st, r->id, on_config, r) < 0 ||
	    vtb_store_foreach_sample(r->st, r->id, on_sample, r) < 0 ||
	    vtb_store_foreach_vm_boot(r->st, r->id, on_vm_boot, r) < 0 ||
	    vtb_store_foreach_race_elim(r->st, r->id, on_elim, r) < 0)
		goto out;
	/* compare's document: each VM against its own baseline, and the
	 * guest evidence; a campaign of baselines alone has no such row */
	vtb_compare_opts_default(&co);
	co.campaign = uuid;
	if (vtb_compare_build(r->st, r->db, NULL, NULL, &co, &cdoc, &cbad) < 0) {
		if (!cbad)
			goto out;
		vtb_error_clear();
	}
	w = cand_of(r, json_string_value(json_array_get(r->winners, 0)));
	json_array_foreach(r->winners, i, k)
	{
		if (i && json_is_string(k))
			json_array_append_new(ties, json_pack("{s:s, s:s}", "config",
							      json_string_value(k), "label",
							      label_of(r, json_string_value(k))));
	}
	if ((w != SIZE_MAX && objective_json(r, cdoc, w, objs) < 0) || elims_setup(r, cdoc, w) < 0)
		goto out;
	guest = w != SIZE_MAX ? guest_json(r, cdoc, w) : json_null();
	if (!guest)
		goto out;
	cands = candidates_json(r);
	if (!cands) {
		json_decref(guest);
		goto oom;
	}
	json_object_set_new(r->race, "candidates", json_integer((json_int_t)r->nc));
	if (json_object_set_new(r->doc, "race", json_incref(r->race)) < 0 ||
	    json_object_set_new(r->doc, "winner",
				w != SIZE_MAX ? json_pack("{s:s, s:s}", "config", r->c[w].key,
							  "label", label_of(r, r->c[w].key))
					      : json_null()) < 0 ||
	    json_object_set_new(r->doc, "tied", json_incref(ties)) < 0 ||
	    json_object_set_new(r->doc, "objective", json_incref(objs)) < 0 ||
	    json_object_set_new(r->doc, "guest", guest) < 0 ||
	    json_object_set_new(r->doc, "candidates", cands) < 0 ||
	    json_object_set_new(r->doc, "eliminations", json_incref(r->elims)) < 0)
		goto oom;
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	json_decref(cdoc);
	json_decref(objs);
	json_decref(ties);
	return ret;
}

int vtb_recommend_build(struct vtb_store *st, const char *db, const char *campaign, json_t **doc,
			bool *bad_input)
{
	struct rec r = { .st = st, .db = db };
	int ret;

	*doc = NULL;
	r.doc = json_pack("{s:s}", "schema", VTB_RECOMMEND_SCHEMA);
	if (!r.doc)
		return vtb_error("out of memory");
	ret = build(&r, campaign);
	*bad_input = r.bad || vtb_store_bad_content(st);
	if (ret < 0)
		json_decref(r.doc);
	else
		*doc = r.doc;
	rec_release(&r);
	return ret;
}
