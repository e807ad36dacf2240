/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend as text: the answer first (the winner and its
 * margins per objective metric, the TCG note), then what its guests
 * built, why each other setup lost (its statistic, its sched profile as
 * applied, its sched-domain tree beside the winner's) and the race round
 * by round.  Sized to a width as compare's text is (docs/reports.md
 * "Widths"): prose folds through compare's own folding (doc.h), the race
 * table splits by rounds, strings of the document are cut where shown.
 */
#include "recommend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "evwords.h"
#include "report.h"

/* Lists (trees, CPU groups, knobs, reps, tokens) show this many. */
#define MAX_LISTED 8

static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "-";
}

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A string of the document as shown: escaped, cut to @max columns */
static const char *show(struct ctx *c, const json_t *o, const char *k, size_t max)
{
	return rep_show(c, jstr(o, k), max);
}

static const char *label(struct ctx *c, const json_t *o, const char *k)
{
	return show(c, o, k, REP_TEXT_MAX);
}

/* p, q, a count: as compare writes a mean (4 significant digits) */
static const char *num(struct ctx *c, double v)
{
	return isfinite(v) || isnan(v) ? rep_num(c, v) : rep_fmt(c, "%g", v);
}

/* a share of 1 as "12.3%" (a figure of bounded width) */
static const char *share(struct ctx *c, double v)
{
	if (!isfinite(v))
		return "-";
	return rep_fmt(c, "%.1f%%", fabs(v) < 1e7 ? v * 100 : copysign(1e9, v));
}

/* "+12.3% [+8.0%, +16.9%]" */
static const char *change(struct ctx *c, const json_t *o)
{
	return rep_fmt(c, "%s [%s, %s]", rep_pctv(c, jnum(o, "change_pct")),
		       rep_pctv(c, jnum(o, "ci_low_pct")), rep_pctv(c, jnum(o, "ci_high_pct")));
}

/* A line of prose at @indent columns, its continuation 2 further */
static void line(struct ctx *c, size_t indent, const char *s)
{
	rep_put_hanging(c, rep_fmt(c, "%*s", (int)indent, ""), indent + 2, s);
}

/* "HEAD'LABEL'MID+1.2% [...] q 0.01: worse", or @none */
static void margin(struct ctx *c, const json_t *o, const char *head, const char *mid,
		   const char *test, const char *none)
{
	if (!json_is_object(o)) {
		line(c, 4, none);
		return;
	}
	line(c, 4,
	     rep_fmt(c, "%s'%s'%s%s %s %s: %s", head, label(c, o, "label"), mid, change(c, o), test,
		     num(c, jnum(o, test)), show(c, o, "verdict", REP_NAME_MAX)));
}

static void put_objective(struct ctx *c, const json_t *om)
{
	const json_t *w = json_object_get(om, "winner"), *b = json_object_get(om, "baseline");

	line(c, 2,
	     rep_fmt(c, "%s/%s (%s, %s is better): mean %s %s over %s boots",
		     show(c, om, "cell", REP_NAME_MAX), show(c, om, "metric", REP_NAME_MAX),
		     show(c, om, "class", REP_NAME_MAX), show(c, om, "better", REP_NAME_MAX),
		     num(c, jnum(w, "mean")), show(c, om, "unit", REP_NAME_MAX),
		     num(c, jnum(w, "boots"))));
	margin(c, b, "against its bare-metal baseline ", ": ", "q",
	       "against its bare-metal baseline: none (no VM row in compare)");
	margin(c, json_object_get(om, "runner_up"), "the runner-up ", " against it: ", "p",
	       "the runner-up: none (one candidate)");
}

/*
 * A tree's levels per CPU, CPUs alike as one: "cpu0-1: MC; cpu2: none"
 * (an isolated CPU has no domain), then its boots and digest.  @boots:
 * the configuration's boots (NAN: unknown).
 */
static const char *tree_levels(struct ctx *c, const json_t *t, double boots)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *groups = json_object_get(t, "levels_by_cpu"), *g;
	const char *s;
	size_t i;
	bool err = false;

	json_array_foreach(groups, i, g)
	{
		const char *lv = jstr(g, "levels");

		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, "; ... (%zu CPU groups in all)",
					       json_array_size(groups)) < 0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%scpu%s: %s", i ? "; " : "",
				       show(c, g, "cpus", REP_NAME_MAX),
				       *lv && strcmp(lv, "-") ? rep_show(c, lv, REP_NAME_MAX)
							      : "none") < 0;
	}
	if (!json_array_size(groups))
		err |= vtb_strbuf_addstr(&sb, "no CPU") < 0;
	err |= vtb_strbuf_addf(&sb, " (%s%s%s boots, tree %.12s)", num(c, jnum(t, "boots")),
			       isnan(boots) ? "" : " of ", isnan(boots) ? "" : num(c, boots),
			       show(c, t, "digest", REP_NAME_MAX)) < 0;
	s = err ? "" : rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	c->oom |= err;
	vtb_strbuf_release(&sb);
	return s;
}

/* A configuration's trees, one line each after @head (its width the
 * indent of the others): what its guests built, levels per CPU */
static void put_trees(struct ctx *c, const char *head, const json_t *trees, double boots)
{
	const json_t *t;
	size_t i, w = rep_width(head);

	json_array_foreach(trees, i, t)
	{
		if (i == MAX_LISTED) {
			rep_put_folded(c, rep_fmt(c, "%*s", (int)w, ""),
				       rep_fmt(c, "... (%zu trees in all)",
					       json_array_size(trees)));
			break;
		}
		rep_put_hanging(c, i ? rep_fmt(c, "%*s", (int)w, "") : head, w + 2,
				tree_levels(c, t, boots));
	}
	if (!json_array_size(trees))
		rep_put_folded(c, head, "no sched-domain view recorded");
}

/* A knob as set and read back: "KEY = WANT: read WANT", with the files a
 * per-domain knob wrote ("read 110 in 2 files", "read 110 in 1, 117 in 1
 * of 2 files") and ", not as set" when one did not read back */
static const char *knob_s(struct ctx *c, const json_t *k)
{
	const json_t *reads = json_object_get(k, "reads"), *r;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	double files = jnum(k, "files");
	const char *s;
	size_t i;
	bool err = vtb_strbuf_addf(&sb, "%s = %s: read", show(c, k, "key", REP_NAME_MAX),
				   show(c, k, "want", REP_NAME_MAX)) < 0;

	json_array_foreach(reads, i, r)
	{
		const char *v = json_is_string(json_object_get(r, "value"))
					? show(c, r, "value", REP_NAME_MAX)
					: "nothing (unreadable)";

		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, ", ... (%zu values)", json_array_size(reads)) <
			       0;
			break;
		}
		if (json_array_size(reads) == 1 && files > 1)
			err |= vtb_strbuf_addf(&sb, " %s in %s files", v, num(c, files)) < 0;
		else if (json_array_size(reads) == 1)
			err |= vtb_strbuf_addf(&sb, " %s", v) < 0;
		else
			err |= vtb_strbuf_addf(&sb, "%s %s in %s", i ? "," : "", v,
					       num(c, jnum(r, "files"))) < 0;
	}
	if (json_array_size(reads) > 1)
		err |= vtb_strbuf_addf(&sb, " of %s files", num(c, files)) < 0;
	if (!json_is_true(json_object_get(k, "ok")))
		err |= vtb_strbuf_addstr(&sb, ", not as set") < 0;
	s = err ? "" : rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	c->oom |= err;
	vtb_strbuf_release(&sb);
	return s;
}

/* One sched record as applied: "cmdline isolcpus=1 (present); no knobs" */
static const char *applied_s(struct ctx *c, const json_t *a)
{
	const json_t *cmd = json_object_get(a, "cmdline"), *knobs = json_object_get(a, "knobs");
	const json_t *t;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *s;
	size_t i;
	bool err = vtb_strbuf_addstr(&sb, json_array_size(cmd) ? "cmdline" : "no cmdline") < 0;

	json_array_foreach(cmd, i, t)
	{
		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, " ... (%zu tokens)", json_array_size(cmd)) < 0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, " %s (%s)", show(c, t, "token", REP_NAME_MAX),
				       json_is_true(json_object_get(t, "present"))
					       ? "present"
					       : "absent from /proc/cmdline") < 0;
	}
	err |= vtb_strbuf_addstr(&sb, json_array_size(knobs) ? "; knobs " : "; no knobs") < 0;
	json_array_foreach(knobs, i, t)
	{
		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, "; ... (%zu knobs)", json_array_size(knobs)) <
			       0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%s%s", i ? "; " : "", knob_s(c, t)) < 0;
	}
	s = err ? "" : rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	c->oom |= err;
	vtb_strbuf_release(&sb);
	return s;
}

/* "rounds 1, 3" of a record's reps (round = rep + 1) */
static const char *rounds_s(struct ctx *c, const json_t *reps)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *r;
	const char *s;
	size_t i;
	bool err = vtb_strbuf_addstr(&sb, json_array_size(reps) == 1 ? "round" : "rounds") < 0;

	json_array_foreach(reps, i, r)
	{
		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addstr(&sb, ", ...") < 0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%s %s", i ? "," : "",
				       num(c, json_number_value(r) + 1)) < 0;
	}
	s = err ? "" : rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	c->oom |= err;
	vtb_strbuf_release(&sb);
	return s;
}

/* What the matrix set: "cmdline = isolcpus=1; sysctl.kernel.x = 0" */
static const char *declared_s(struct ctx *c, const json_t *declared)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *k, *s;
	const json_t *v;
	size_t i = 0;
	bool err = vtb_strbuf_addstr(&sb, "") < 0;

	json_object_foreach((json_t *)declared, k, v)
	{
		if (i++ == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, "; ... (%zu keys)",
					       json_object_size(declared)) < 0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%s%s = %s", i > 1 ? "; " : "",
				       rep_show(c, k, REP_NAME_MAX),
				       rep_show(c, json_string_value(v), REP_NAME_MAX)) < 0;
	}
	s = err ? "" : rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	c->oom |= err;
	vtb_strbuf_release(&sb);
	return s;
}

/*
 * A configuration's sched profile as applied, at @indent after @who
 * ("sched profile", "the winner's sched profile"): its name; no settings;
 * or the settings read back in the guest, the same in every boot, else
 * each distinct record with its boots and rounds, and the boots that
 * recorded nothing.
 */
static void put_sched(struct ctx *c, size_t indent, const char *who, const json_t *s)
{
	const json_t *applied = json_object_get(s, "applied"), *a;
	double boots = jnum(s, "boots"), none = jnum(s, "unrecorded");
	const char *name = rep_fmt(c, "%s %s", who,
				   json_is_string(json_object_get(s, "profile"))
					   ? show(c, s, "profile", REP_NAME_MAX)
					   : "(unnamed)");
	size_t i;

	if (!json_is_object(s)) {
		line(c, indent, rep_fmt(c, "%s: none (a bare-metal configuration)", who));
		return;
	}
	if (!json_object_size(json_object_get(s, "declared")) && !json_array_size(applied)) {
		line(c, indent, rep_fmt(c, "%s: no settings (nothing applied)", name));
		return;
	}
	if (!json_array_size(applied)) {
		line(c, indent,
		     rep_fmt(c, "%s: nothing recorded in its %s boots (no sched record); set %s",
			     name, num(c, boots), declared_s(c, json_object_get(s, "declared"))));
		return;
	}
	if (json_is_true(json_object_get(s, "agree"))) {
		a = json_array_get(applied, 0);
		line(c, indent,
		     rep_fmt(c, "%s, %s in all %s boots: %s", name,
			     json_is_true(json_object_get(a, "ok")) ? "as applied" : "not as set",
			     num(c, boots), applied_s(c, a)));
		return;
	}
	line(c, indent, rep_fmt(c, "%s: the boots disagree", name));
	json_array_foreach(applied, i, a)
	{
		if (i == MAX_LISTED) {
			line(c, indent + 2,
			     rep_fmt(c, "... (%zu records in all)", json_array_size(applied)));
			break;
		}
		line(c, indent + 2,
		     rep_fmt(c, "%s of %s boots (%s), %s: %s", num(c, jnum(a, "boots")),
			     num(c, boots), rounds_s(c, json_object_get(a, "reps")),
			     json_is_true(json_object_get(a, "ok")) ? "as applied" : "not as set",
			     applied_s(c, a)));
	}
	if (none > 0)
		line(c, indent + 2,
		     rep_fmt(c, "%s of %s boots: nothing recorded", num(c, none), num(c, boots)));
}

/* CPU 0's domains of a tree: "MC span 0-1 flags SD_BALANCE_EXEC ..." */
static void put_cpu0(struct ctx *c, const json_t *t)
{
	const json_t *cpu0 = json_array_get(json_object_get(t, "cpus"), 0), *lv, *fl;
	size_t i, j;

	json_array_foreach(json_object_get(cpu0, "levels"), i, lv)
	{
		struct vtb_strbuf sb = VTB_STRBUF_INIT;
		bool err = vtb_strbuf_addf(&sb, "CPU %s: %s span %s flags",
					   num(c, jnum(cpu0, "cpu")),
					   show(c, lv, "name", REP_NAME_MAX),
					   show(c, lv, "span", REP_NAME_MAX)) < 0;

		if (!json_array_size(json_object_get(lv, "flags")))
			err |= vtb_strbuf_addstr(&sb, " -") < 0;
		json_array_foreach(json_object_get(lv, "flags"), j, fl)
		{
			const char *f = json_string_value(fl);

			err |= vtb_strbuf_addf(&sb, " %s", rep_show(c, f ? f : "?", REP_NAME_MAX)) <
			       0;
		}
		c->oom |= err;
		if (!err)
			line(c, 4, vtb_strbuf_str(&sb));
		vtb_strbuf_release(&sb);
	}
}

static void put_guest(struct ctx *c, const json_t *g)
{
	const json_t *ev = json_object_get(g, "evidence"), *l, *t, *cl;
	const json_t *sched = json_object_get(g, "sched");
	size_t i;

	fputc('\n', c->f);
	if (!json_is_object(g) ||
	    (!json_is_object(ev) && !json_array_size(json_object_get(g, "trees")))) {
		rep_put_folded(c, "",
			       "what its guests built: nothing recorded (a bare-metal "
			       "configuration, or no guest view)");
		return;
	}
	rep_put_folded(c, "", "what its guests built:");
	json_array_foreach(json_object_get(ev, "levels"), i, l)
	{
		const char *lv = jstr(l, "levels");

		line(c, 2,
		     rep_fmt(c, "sched-domain levels %s (guest kernel %s, %s boots)",
			     *lv && strcmp(lv, "-") ? rep_show(c, lv, REP_NAME_MAX) : "none",
			     show(c, l, "guest_kernel", REP_NAME_MAX), num(c, jnum(l, "boots"))));
	}
	json_array_foreach(json_object_get(g, "trees"), i, t)
	{
		if (i == MAX_LISTED) {
			line(c, 2,
			     rep_fmt(c, "... (%zu trees in all)",
				     json_array_size(json_object_get(g, "trees"))));
			break;
		}
		line(c, 2, rep_fmt(c, "levels per CPU: %s", tree_levels(c, t, jnum(ev, "boots"))));
		put_cpu0(c, t);
	}
	if (json_is_object(sched))
		put_sched(c, 2, "sched profile", sched);
	if (!json_is_object(ev))
		return;
	line(c, 2,
	     rep_fmt(c, "topology as planned in %s of %s boots", num(c, jnum(ev, "matched")),
		     num(c, jnum(ev, "boots"))));
	json_array_foreach(json_object_get(ev, "claims"), i, cl)
	{
		if (i == MAX_LISTED) {
			line(c, 2,
			     rep_fmt(c, "... (%zu claims in all)",
				     json_array_size(json_object_get(ev, "claims"))));
			break;
		}
		line(c, 2,
		     rep_fmt(c, "claim %s (vCPUs %s): %s", show(c, cl, "kind", REP_NAME_MAX),
			     show(c, cl, "vcpus", REP_NAME_MAX),
			     show(c, cl, "state", REP_NAME_MAX)));
	}
	line(c, 2,
	     rep_fmt(c,
		     "vCPU drift: off the planned pCPUs %s of the time on average (at most %s); SMT "
		     "pairs split across cores %s",
		     share(c, jnum(ev, "off_planned_mean")), share(c, jnum(ev, "off_planned_max")),
		     share(c, jnum(ev, "smt_split_core"))));
	rep_pool_reset(c);
}

/* Each loser's largest differences from the winner in the scheduler's
 * counters (docs/evidence.md), per cell, in compare's words */
static void put_loser_evidence(struct ctx *c, const json_t *evidence)
{
	const json_t *d;
	size_t i;

	if (!json_array_size(evidence))
		return;
	json_array_foreach(evidence, i, d)
	{
		char *w = vtb_ev_words(json_object_get(d, "items"), "this setup", "the winner");

		if (!w) {
			c->oom = true;
			return;
		}
		line(c, 4,
		     rep_fmt(c, "scheduler counters, cell %s, farthest from the winner's: %s",
			     rep_show(c, jstr(d, "cell"), REP_NAME_MAX), rep_show(c, w, REP_TEXT_MAX)));
		free(w);
		rep_pool_reset(c);
	}
}

/* Why loser @e lost beyond its statistic: its profile as applied and
 * its sched domains beside the winner's (@doc's guest) */
static void put_setup(struct ctx *c, const json_t *doc, const json_t *e)
{
	const json_t *setup = json_object_get(e, "setup"), *g = json_object_get(doc, "guest");
	const json_t *wsched = json_object_get(g, "sched");
	double wboots = jnum(json_object_get(g, "evidence"), "boots");

	if (!json_is_object(setup)) {
		line(c, 4, "bare metal: no guest sched profile or domains");
		return;
	}
	put_sched(c, 4, "sched profile", json_object_get(setup, "sched"));
	if (json_is_object(wsched))
		put_sched(c, 4, "the winner's sched profile", wsched);
	line(c, 4, "sched domains, levels per CPU:");
	put_trees(c, "      its:          ", json_object_get(setup, "trees"),
		  jnum(json_object_get(setup, "sched"), "boots"));
	if (json_is_object(g))
		put_trees(c, "      the winner's: ", json_object_get(g, "trees"),
			  isnan(wboots) ? jnum(wsched, "boots") : wboots);
	put_loser_evidence(c, json_object_get(setup, "evidence"));
}

static void put_elims(struct ctx *c, const json_t *doc)
{
	const json_t *e;
	size_t i;

	fputc('\n', c->f);
	if (!json_array_size(json_object_get(doc, "eliminations"))) {
		rep_put_folded(c, "", "why each other setup lost: none was eliminated");
		return;
	}
	rep_put_folded(c, "", "why each other setup lost:");
	json_array_foreach(json_object_get(doc, "eliminations"), i, e)
	{
		const json_t *ev = json_object_get(e, "evidence");
		const char *head = rep_fmt(c, "  round %s  ", num(c, jnum(e, "round")));

		if (!strcmp(jstr(e, "reason"), "missing"))
			rep_put_hanging(c, head, 4,
					rep_fmt(c, "'%s': %s: under 2 values (its boots failed)",
						label(c, e, "label"),
						show(c, e, "metric", REP_NAME_MAX)));
		else
			rep_put_hanging(
				c, head, 4,
				rep_fmt(c,
					"'%s': %s %s against '%s', q %s (%s, %s boots a side, %s "
					"in the round's family, %s)",
					label(c, e, "label"), show(c, e, "metric", REP_NAME_MAX),
					change(c, ev), label(c, e, "best_label"),
					num(c, jnum(ev, "q")), show(c, ev, "test", REP_NAME_MAX),
					num(c, jnum(ev, "boots")), num(c, jnum(ev, "family")),
					show(c, ev, "adjust", REP_NAME_MAX)));
		put_setup(c, doc, e);
		rep_pool_reset(c);
	}
}

/* A value of the race: a number, "-" for a round without one, "" past
 * its last; *x: it is the value of the round that eliminated it */
static const char *value_s(struct ctx *c, const json_t *cand, size_t r, bool *x)
{
	const json_t *vals = json_array_get(json_object_get(cand, "values"), 0);
	const json_t *v = json_array_get(vals, r);

	*x = jnum(cand, "eliminated_round") > 0 && r + 1 == json_array_size(vals);
	if (r >= json_array_size(vals))
		return "";
	return num(c, json_is_number(v) ? json_number_value(v) : NAN);
}

/*
 * Each candidate's first objective metric, round by round: the legend
 * (c1 = LABEL), then a table of a column per round that has a value (the
 * value of the round that eliminated a candidate marked " x"), split
 * into several by rounds to fit the width (every figure has a bounded
 * width: one round always fits 40 columns).  The race's count of rounds
 * comes from a database (anyone's file): a count beyond the values, or
 * none, must not write a column per round it claims (1e18 of them) nor
 * convert a NaN.
 */
static void put_rounds(struct ctx *c, const json_t *doc)
{
	const json_t *cands = json_object_get(doc, "candidates"), *cd;
	const json_t *om = json_array_get(json_object_get(doc, "objective"), 0);
	double claimed = jnum(json_object_get(doc, "race"), "rounds");
	size_t i, r, rounds = 0, n = json_array_size(cands), namew = strlen("round"), *colw;
	bool *hasx, x;

	json_array_foreach(cands, i, cd)
	{
		size_t k = json_array_size(json_array_get(json_object_get(cd, "values"), 0));
		size_t w = strlen(rep_fmt(c, "c%zu", i + 1));

		rounds = k > rounds ? k : rounds;
		namew = w > namew ? w : namew;
	}
	if (claimed >= 0 && claimed < (double)rounds)
		rounds = (size_t)claimed;

	fputc('\n', c->f);
	rep_put_folded(c, "",
		       rep_fmt(c, "the race, %s/%s in %s, round by round (x: eliminated):",
			       show(c, om, "cell", REP_NAME_MAX),
			       show(c, om, "metric", REP_NAME_MAX),
			       show(c, om, "unit", REP_NAME_MAX)));
	json_array_foreach(cands, i, cd)
	{
		double er = jnum(cd, "eliminated_round");

		rep_put_hanging(c, rep_fmt(c, "  c%zu = ", i + 1), 4,
				rep_fmt(c, "%s (%s)", label(c, cd, "label"),
					er > 0 ? rep_fmt(c, "eliminated in round %s", num(c, er))
					       : show(c, cd, "status", REP_NAME_MAX)));
		rep_pool_reset(c);
	}
	colw = calloc(rounds ? rounds : 1, sizeof(*colw));
	hasx = calloc(rounds ? rounds : 1, sizeof(*hasx));
	if (!colw || !hasx) {
		free(colw);
		free(hasx);
		c->oom = true;
		return;
	}
	/* a column is as wide as its widest value, and its mark */
	for (r = 0; r < rounds; r++) {
		colw[r] = strlen(rep_fmt(c, "%zu", r + 1));
		json_array_foreach(cands, i, cd)
		{
			size_t w = strlen(value_s(c, cd, r, &x));

			colw[r] = w > colw[r] ? w : colw[r];
			hasx[r] |= x;
		}
		rep_pool_reset(c);
	}
	/* as many rounds a block as fit, each column after a gap of 2 */
	for (size_t first = 0, last, w; first < rounds; first = last) {
		w = 2 + namew + 2 + colw[first] + 2 * hasx[first];
		for (last = first + 1; last < rounds; last++) {
			if (w + 2 + colw[last] + 2 * hasx[last] > c->cols)
				break;
			w += 2 + colw[last] + 2 * hasx[last];
		}
		fputc('\n', c->f);
		for (size_t row = 0; row <= n; row++) {
			struct vtb_strbuf sb = VTB_STRBUF_INIT;
			bool err;

			cd = row ? json_array_get(cands, row - 1) : NULL;
			err = vtb_strbuf_addf(&sb, "  %-*s", (int)namew,
					      row ? rep_fmt(c, "c%zu", row) : "round") < 0;
			for (r = first; r < last; r++) {
				const char *v = row ? value_s(c, cd, r, &x)
						    : rep_fmt(c, "%zu", r + 1);

				err |= vtb_strbuf_addf(&sb, "  %*s%s", (int)colw[r], v,
						       !hasx[r]	  ? ""
						       : row && x ? " x"
								  : "  ") < 0;
			}
			/* a candidate dropped before the block's last round */
			while (!err && sb.len && sb.buf[sb.len - 1] == ' ')
				sb.buf[--sb.len] = '\0';
			if (!err)
				fprintf(c->f, "%s\n", vtb_strbuf_str(&sb));
			c->oom |= err;
			vtb_strbuf_release(&sb);
			rep_pool_reset(c);
		}
	}
	free(colw);
	free(hasx);
}

/* "futile: the 3 survivors could not be told apart ..." and each open
 * comparison with the boots it needs */
static void put_futility(struct ctx *c, const json_t *fu)
{
	const json_t *o;
	size_t i;

	if (!json_is_object(fu))
		return;
	rep_put_hanging(
		c, "", 2,
		rep_fmt(c,
			"futile: the %s survivors could not be told apart within the rounds left "
			"(round %s is the last max_rounds and budget_boots allow; %s)",
			num(c, jnum(fu, "survivors")), num(c, jnum(fu, "last_round")),
			isfinite(jnum(fu, "boots_needed"))
				? rep_fmt(c, "each open comparison needs >= %s boots a side",
					  num(c, jnum(fu, "boots_needed")))
				: "no number of boots would decide one at its spread"));
	json_array_foreach(json_object_get(fu, "comparisons"), i, o)
	{
		line(c, 2,
		     rep_fmt(c, "'%s' against %s: %s %s after %s boots; %s", label(c, o, "label"),
			     json_is_string(json_object_get(o, "against_label"))
				     ? rep_fmt(c, "'%s'", label(c, o, "against_label"))
				     : "the winner",
			     show(c, o, "metric", REP_NAME_MAX), change(c, o),
			     num(c, jnum(o, "boots")),
			     isfinite(jnum(o, "boots_needed"))
				     ? rep_fmt(c, "needs %s boots a side",
					       num(c, jnum(o, "boots_needed")))
				     : "no number of boots would decide it at its spread"));
		rep_pool_reset(c);
	}
}

int vtb_recommend_text(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	const json_t *camp = json_object_get(doc, "campaign"), *race = json_object_get(doc, "race");
	const json_t *w = json_object_get(doc, "winner"), *t, *om;
	struct ctx c = { .mode = M_TEXT, .f = f, .doc = doc, .camp = camp };
	size_t i;

	if (strcmp(jstr(doc, "schema"), VTB_RECOMMEND_DOC_SCHEMA))
		return vtb_error("document schema '%s' is not '%s'", jstr(doc, "schema"),
				 VTB_RECOMMEND_DOC_SCHEMA);
	c.cols = o && o->columns ? o->columns : VTB_REPORT_COLUMNS;
	if (c.cols < VTB_REPORT_MIN_COLUMNS)
		c.cols = VTB_REPORT_MIN_COLUMNS;
	rep_put_hanging(&c, "winner: ", 2,
			json_is_object(w) ? label(&c, w, "label")
					  : "none yet (under min_rounds complete rounds)");
	rep_put_hanging(&c, "", 2,
			rep_fmt(&c,
				"race: %s after %s rounds, %s candidate boots; %zu of %s "
				"candidates eliminated",
				show(&c, race, "stop", REP_NAME_MAX), num(&c, jnum(race, "rounds")),
				num(&c, jnum(race, "boots")),
				json_array_size(json_object_get(doc, "eliminations")),
				num(&c, jnum(race, "candidates"))));
	put_futility(&c, json_object_get(race, "futility"));
	rep_put_hanging(&c, "", 2,
			rep_fmt(&c, "campaign %s (%s, host %s, %s)",
				show(&c, camp, "uuid", REP_NAME_MAX),
				show(&c, camp, "matrix", REP_TEXT_MAX),
				show(&c, camp, "host", REP_NAME_MAX),
				show(&c, camp, "status", REP_NAME_MAX)));
	rep_put_note(&c);
	json_array_foreach(json_object_get(doc, "tied"), i, t)
		rep_put_hanging(&c, "", 2,
				rep_fmt(&c, "tied with the winner (same within the threshold): %s",
					label(&c, t, "label")));
	rep_pool_reset(&c);
	if (json_array_size(json_object_get(doc, "objective"))) {
		fputc('\n', f);
		rep_put_folded(&c, "", "per objective metric:");
	}
	json_array_foreach(json_object_get(doc, "objective"), i, om)
	{
		put_objective(&c, om);
		rep_pool_reset(&c);
	}
	if (json_is_object(w))
		put_guest(&c, json_object_get(doc, "guest"));
	put_elims(&c, doc);
	put_rounds(&c, doc);
	return rep_ctx_finish(&c);
}
