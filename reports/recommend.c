/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend as text: the answer first (the winner and its
 * margins per objective metric), then what its guests built, why each
 * other candidate lost, and the race round by round.
 */
#include "recommend.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "../common/vtbutil.h"

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

/* Escaped text of the document */
static void put(FILE *f, const char *s)
{
	vtb_term_fputs(s, f);
}

static void num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("-", f);
	else if (fabs(v) >= 1000 && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.4g", v);
}

static void pct(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("-", f);
	else
		fprintf(f, "%+.1f%%", fabs(v) < 1e9 ? v : copysign(1e9, v));
}

/* a share of 1 as "12.3%" (a figure of bounded width, as pct's) */
static void share(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("-", f);
	else
		fprintf(f, "%.1f%%", fabs(v) < 1e7 ? v * 100 : copysign(1e9, v));
}

/* "+12.3% [+8.0%, +16.9%]" */
static void change(FILE *f, const json_t *o)
{
	pct(f, jnum(o, "change_pct"));
	fputs(" [", f);
	pct(f, jnum(o, "ci_low_pct"));
	fputs(", ", f);
	pct(f, jnum(o, "ci_high_pct"));
	fputs("]", f);
}

/* "HEAD'LABEL'MID+1.2% [...] q 0.01: worse", or @none */
static void margin(FILE *f, const json_t *o, const char *head, const char *mid, const char *test,
		   const char *none)
{
	if (!json_is_object(o)) {
		fputs(none, f);
		return;
	}
	fputs(head, f);
	put(f, jstr(o, "label"));
	fputs(mid, f);
	change(f, o);
	fprintf(f, " %s ", test);
	num(f, jnum(o, test));
	fprintf(f, ": %s\n", jstr(o, "verdict"));
}

static void put_objective(FILE *f, const json_t *om)
{
	const json_t *w = json_object_get(om, "winner"), *b = json_object_get(om, "baseline");
	const json_t *u = json_object_get(om, "runner_up");

	fputs("  ", f);
	put(f, jstr(om, "cell"));
	fputc('/', f);
	put(f, jstr(om, "metric"));
	fprintf(f, " (%s, %s is better): mean ", jstr(om, "class"), jstr(om, "better"));
	num(f, jnum(w, "mean"));
	fputc(' ', f);
	put(f, jstr(om, "unit"));
	fprintf(f, " over %.0f boots\n", jnum(w, "boots"));
	margin(f, b, "    against its bare-metal baseline '", "': ", "q",
	       "    against its bare-metal baseline: none (no VM row in compare)\n");
	margin(f, u, "    the runner-up '", "' against it: ", "p",
	       "    the runner-up: none (one candidate)\n");
}

/* CPU 0's domains of a tree: "SMT 0-1 [SD_SHARE_CPUCAPACITY ...], MC ..." */
static void put_tree(FILE *f, const json_t *t)
{
	const json_t *cpu0 = json_array_get(json_object_get(t, "cpus"), 0), *lv, *fl;
	size_t i, j;

	fprintf(f, "    tree %.12s (%.0f boots), CPU %.0f:", jstr(t, "digest"), jnum(t, "boots"),
		jnum(cpu0, "cpu"));
	if (!json_array_size(json_object_get(cpu0, "levels")))
		fputs(" no domain", f);
	json_array_foreach(json_object_get(cpu0, "levels"), i, lv)
	{
		fputs(i ? "\n      " : "\n      ", f);
		put(f, jstr(lv, "name"));
		fputs(" span ", f);
		put(f, jstr(lv, "span"));
		fputs(" flags", f);
		if (!json_array_size(json_object_get(lv, "flags")))
			fputs(" -", f);
		json_array_foreach(json_object_get(lv, "flags"), j, fl)
		{
			fputc(' ', f);
			put(f, json_string_value(fl) ? json_string_value(fl) : "?");
		}
	}
	fputc('\n', f);
}

static void put_guest(FILE *f, const json_t *g)
{
	const json_t *ev = json_object_get(g, "evidence"), *l, *t, *c;
	size_t i;

	if (!json_is_object(g) ||
	    (!json_is_object(ev) && !json_array_size(json_object_get(g, "trees")))) {
		fputs("\nwhat its guests built: nothing recorded (a bare-metal configuration, or no "
		      "guest view)\n",
		      f);
		return;
	}
	fputs("\nwhat its guests built:\n", f);
	json_array_foreach(json_object_get(ev, "levels"), i, l)
	{
		fputs("  sched-domain levels ", f);
		put(f, jstr(l, "levels"));
		fputs(" (guest kernel ", f);
		put(f, jstr(l, "guest_kernel"));
		fprintf(f, ", %.0f boots)\n", jnum(l, "boots"));
	}
	json_array_foreach(json_object_get(g, "trees"), i, t) put_tree(f, t);
	if (json_is_object(ev)) {
		fprintf(f, "  topology as planned in %.0f of %.0f boots\n", jnum(ev, "matched"),
			jnum(ev, "boots"));
		json_array_foreach(json_object_get(ev, "claims"), i, c)
		{
			fputs("  claim ", f);
			put(f, jstr(c, "kind"));
			fputs(" (vCPUs ", f);
			put(f, jstr(c, "vcpus"));
			fputs("): ", f);
			put(f, jstr(c, "state"));
			fputc('\n', f);
		}
		fputs("  vCPU drift: off the planned pCPUs ", f);
		share(f, jnum(ev, "off_planned_mean"));
		fputs(" of the time on average (at most ", f);
		share(f, jnum(ev, "off_planned_max"));
		fputs("); SMT pairs split across cores ", f);
		share(f, jnum(ev, "smt_split_core"));
		fputs("\n", f);
	}
}

static void put_elims(FILE *f, const json_t *doc)
{
	const json_t *e;
	size_t i;

	if (!json_array_size(json_object_get(doc, "eliminations"))) {
		fputs("\neliminated: none\n", f);
		return;
	}
	fputs("\neliminated:\n", f);
	json_array_foreach(json_object_get(doc, "eliminations"), i, e)
	{
		const json_t *ev = json_object_get(e, "evidence");

		fprintf(f, "  round %.0f  '", jnum(e, "round"));
		put(f, jstr(e, "label"));
		fputs("': ", f);
		put(f, jstr(e, "metric"));
		if (!strcmp(jstr(e, "reason"), "missing")) {
			fputs(": under 2 values (its boots failed)\n", f);
			continue;
		}
		fputc(' ', f);
		change(f, ev);
		fputs(" against '", f);
		put(f, jstr(e, "best_label"));
		fputs("', q ", f);
		num(f, jnum(ev, "q"));
		fprintf(f, " (%s, %.0f boots a side, %.0f in the round's family, %s)\n",
			jstr(ev, "test"), jnum(ev, "boots"), jnum(ev, "family"),
			jstr(ev, "adjust"));
	}
}

/*
 * Each candidate's first objective metric, round by round: a column per
 * round that has a value.  The race's count of rounds comes from a
 * database (anyone's file): a count beyond the values, or none, must not
 * write a blank per round it claims (1e18 of them) nor convert a NaN.
 */
static void put_rounds(FILE *f, const json_t *doc)
{
	const json_t *c, *om = json_array_get(json_object_get(doc, "objective"), 0);
	double claimed = jnum(json_object_get(doc, "race"), "rounds");
	size_t i, r, rounds = 0;

	json_array_foreach(json_object_get(doc, "candidates"), i, c)
	{
		size_t n = json_array_size(json_array_get(json_object_get(c, "values"), 0));

		rounds = n > rounds ? n : rounds;
	}
	if (claimed >= 0 && claimed < (double)rounds)
		rounds = (size_t)claimed;

	fputs("\nthe race, ", f);
	put(f, jstr(om, "cell"));
	fputc('/', f);
	put(f, jstr(om, "metric"));
	fputs(" round by round (x: eliminated):\n", f);
	json_array_foreach(json_object_get(doc, "candidates"), i, c)
	{
		const json_t *v = json_array_get(json_object_get(c, "values"), 0);

		fprintf(f, "  c%zu", i + 1);
		for (r = 0; r < rounds; r++) {
			fputc(' ', f);
			if (r < json_array_size(v))
				num(f, json_number_value(json_array_get(v, r)));
			else
				fputc(' ', f);
		}
		if (jnum(c, "eliminated_round") > 0)
			fputs(" x", f);
		fputs("  ", f);
		put(f, jstr(c, "label"));
		fprintf(f, " (%s)\n", jstr(c, "status"));
	}
}

/* "futile: the 3 survivors could not be told apart ..." and each open
 * comparison with the boots it needs */
static void put_futility(FILE *f, const json_t *fu)
{
	const json_t *c;
	size_t i;

	if (!json_is_object(fu))
		return;
	fprintf(f,
		"futile: the %.0f survivors could not be told apart within the rounds left "
		"(round %.0f is the last max_rounds and budget_boots allow; ",
		jnum(fu, "survivors"), jnum(fu, "last_round"));
	if (isfinite(jnum(fu, "boots_needed")))
		fprintf(f, "each open comparison needs >= %.0f boots a side)\n",
			jnum(fu, "boots_needed"));
	else
		fputs("no number of boots would decide one at its spread)\n", f);
	json_array_foreach(json_object_get(fu, "comparisons"), i, c)
	{
		fputs("  '", f);
		put(f, jstr(c, "label"));
		if (json_is_string(json_object_get(c, "against_label"))) {
			fputs("' against '", f);
			put(f, jstr(c, "against_label"));
			fputs("': ", f);
		} else {
			fputs("' against the winner: ", f);
		}
		put(f, jstr(c, "metric"));
		fputc(' ', f);
		change(f, c);
		fprintf(f, " after %.0f boots; ", jnum(c, "boots"));
		if (isfinite(jnum(c, "boots_needed")))
			fprintf(f, "needs %.0f boots a side\n", jnum(c, "boots_needed"));
		else
			fputs("no number of boots would decide it at its spread\n", f);
	}
}

int vtb_recommend_text(const json_t *doc, FILE *f)
{
	const json_t *camp = json_object_get(doc, "campaign"), *race = json_object_get(doc, "race");
	const json_t *w = json_object_get(doc, "winner"), *t, *om;
	size_t i;

	if (strcmp(jstr(doc, "schema"), VTB_RECOMMEND_DOC_SCHEMA))
		return vtb_error("document schema '%s' is not '%s'", jstr(doc, "schema"),
				 VTB_RECOMMEND_DOC_SCHEMA);
	if (json_is_object(w)) {
		fputs("winner: ", f);
		put(f, jstr(w, "label"));
	} else {
		fputs("winner: none yet (under min_rounds complete rounds)", f);
	}
	fprintf(f,
		"\nrace: %s after %.0f rounds, %.0f candidate boots; %zu of %.0f candidates "
		"eliminated\n",
		jstr(race, "stop"), jnum(race, "rounds"), jnum(race, "boots"),
		json_array_size(json_object_get(doc, "eliminations")), jnum(race, "candidates"));
	put_futility(f, json_object_get(race, "futility"));
	fputs("campaign ", f);
	put(f, jstr(camp, "uuid"));
	fputs(" (", f);
	put(f, jstr(camp, "matrix"));
	fputs(", host ", f);
	put(f, jstr(camp, "host"));
	fprintf(f, ", %s)\n", jstr(camp, "status"));
	json_array_foreach(json_object_get(doc, "tied"), i, t)
	{
		fputs("tied with the winner (same within the threshold): ", f);
		put(f, jstr(t, "label"));
		fputc('\n', f);
	}
	if (json_array_size(json_object_get(doc, "objective")))
		fputs("\nper objective metric:\n", f);
	json_array_foreach(json_object_get(doc, "objective"), i, om) put_objective(f, om);
	if (json_is_object(w))
		put_guest(f, json_object_get(doc, "guest"));
	put_elims(f, doc);
	put_rounds(f, doc);
	if (fflush(f) || ferror(f))
		return vtb_error("cannot write the report: %s", strerror(errno ? errno : EIO));
	return 0;
}
