/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend as one HTML page (reports/recommend.h): the winner
 * and its margins, the TCG note, the racing chart (each candidate's value
 * of the first objective metric round by round, its line ending where it
 * was eliminated, labelled c1..cN with what sets it apart, a legend with
 * the whole labels), what the winner's guests built and why each other
 * setup lost (its statistic, its sched profile as applied, its
 * sched-domain trees beside the winner's).  Built with the compare
 * report's page and SVG helpers (html.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "evwords.h"
#include "recommend.h"
#include "../common/vtbutil.h"

static const char *jstr_or(const json_t *o, const char *k)
{
	return html_orstr(html_jstr(o, k));
}

static double jnum_or_nan(const json_t *o, const char *k)
{
	double v;

	return html_jnum(o, k, &v) ? v : NAN;
}

/* "+1.2% [-0.5%, +2.9%]" of a margin object */
static void change_td(struct page *pg, xmlNodePtr tr, const json_t *o)
{
	char *s;

	if (!json_is_object(o)) {
		html_td_num(pg, tr, "-");
		return;
	}
	s = vtb_asprintf("%s [%s, %s]", html_fmt_pct(jnum_or_nan(o, "change_pct")).s,
			 html_fmt_pct(jnum_or_nan(o, "ci_low_pct")).s,
			 html_fmt_pct(jnum_or_nan(o, "ci_high_pct")).s);
	if (!s)
		pg->failed = true;
	html_td_num(pg, tr, s ? s : "-");
	free(s);
}

/* The futility stop's sentence and each open comparison's boots needed */
static void part_futility(struct page *pg, xmlNodePtr body, const json_t *fu)
{
	const json_t *c;
	double need = jnum_or_nan(fu, "boots_needed");
	size_t i;

	if (!json_is_object(fu))
		return;
	html_elf(pg, body, "p",
		 "futile: the %s survivors could not be told apart within the rounds left (round "
		 "%s is the last max_rounds and budget_boots allow; %s%s%s)",
		 html_jfmt(fu, "survivors").s, html_jfmt(fu, "last_round").s,
		 isfinite(need) ? "each open comparison needs >= " : "",
		 isfinite(need) ? html_jfmt(fu, "boots_needed").s
				: "no number of boots would decide one at its spread",
		 isfinite(need) ? " boots a side" : "");
	json_array_foreach(json_object_get(fu, "comparisons"), i, c)
	{
		double n = jnum_or_nan(c, "boots_needed");
		bool named = json_is_string(json_object_get(c, "against_label"));

		html_elf(pg, body, "p",
			 "'%s' against %s%s%s: %s %s [%s, %s] after %s boots; %s%s%s",
			 jstr_or(c, "label"), named ? "'" : "",
			 named ? jstr_or(c, "against_label") : "the winner", named ? "'" : "",
			 jstr_or(c, "metric"), html_fmt_pct(jnum_or_nan(c, "change_pct")).s,
			 html_fmt_pct(jnum_or_nan(c, "ci_low_pct")).s,
			 html_fmt_pct(jnum_or_nan(c, "ci_high_pct")).s, html_jfmt(c, "boots").s,
			 isfinite(n) ? "needs " : "",
			 isfinite(n) ? html_jfmt(c, "boots_needed").s
				     : "no number of boots would decide it at its spread",
			 isfinite(n) ? " boots a side" : "");
	}
}

static void part_winner(struct page *pg, xmlNodePtr body, const json_t *doc)
{
	const json_t *w = json_object_get(doc, "winner"), *race = json_object_get(doc, "race");
	const json_t *om, *t;
	static const char *const cols[] = { "metric", "winner's mean", "baseline",  "change",
					    "q",      "verdict",       "runner-up", "change",
					    "p",      "verdict",       NULL };
	xmlNodePtr p, tb;
	size_t i;

	p = html_el(pg, body, "p", NULL);
	html_attr(pg, p, "class", "headline");
	html_text(pg, p, "winner: ");
	html_el(pg, p, "strong",
		json_is_object(w) ? jstr_or(w, "label") : "none yet (under min_rounds rounds)");
	html_elf(pg, body, "p",
		 "race: %s after %s rounds, %s candidate boots; %zu of %s candidates eliminated",
		 jstr_or(race, "stop"), html_jfmt(race, "rounds").s, html_jfmt(race, "boots").s,
		 json_array_size(json_object_get(doc, "eliminations")),
		 html_jfmt(race, "candidates").s);
	part_futility(pg, body, json_object_get(race, "futility"));
	html_tcg_note(pg, body, json_object_get(doc, "campaign"), NULL);
	json_array_foreach(json_object_get(doc, "tied"), i, t)
		html_elf(pg, body, "p", "tied with the winner (same within the threshold): %s",
			 jstr_or(t, "label"));
	html_section(pg, body, "objective", "Per objective metric",
		     "The winner's change against its own bare-metal baseline (compare's row) and "
		     "the runner-up's change against the winner.");
	tb = html_header_row(pg, html_el(pg, body, "table", NULL), cols);
	json_array_foreach(json_object_get(doc, "objective"), i, om)
	{
		const json_t *b = json_object_get(om, "baseline"),
			     *u = json_object_get(om, "runner_up");
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL);

		html_elf(pg, tr, "td", "%s/%s (%s, %s is better)", jstr_or(om, "cell"),
			 jstr_or(om, "metric"), jstr_or(om, "class"), jstr_or(om, "better"));
		html_elf(pg, tr, "td", "%s %s", html_jfmt(json_object_get(om, "winner"), "mean").s,
			 jstr_or(om, "unit"));
		html_el(pg, tr, "td", json_is_object(b) ? jstr_or(b, "label") : "-");
		change_td(pg, tr, b);
		html_td_num(pg, tr, json_is_object(b) ? html_jfmt(b, "q").s : "-");
		html_attr(pg,
			  html_el(pg, tr, "td", json_is_object(b) ? jstr_or(b, "verdict") : "-"),
			  "class", html_verdict_class(html_jstr(b, "verdict")));
		html_el(pg, tr, "td", json_is_object(u) ? jstr_or(u, "label") : "-");
		change_td(pg, tr, u);
		html_td_num(pg, tr, json_is_object(u) ? html_jfmt(u, "p").s : "-");
		html_attr(pg,
			  html_el(pg, tr, "td", json_is_object(u) ? jstr_or(u, "verdict") : "-"),
			  "class", html_verdict_class(html_jstr(u, "verdict")));
	}
}

/* The value range of every candidate's first metric */
static bool value_range(const json_t *cands, double *lo, double *hi)
{
	const json_t *c, *v;
	size_t i, r;
	bool any = false;

	*lo = INFINITY;
	*hi = -INFINITY;
	json_array_foreach(cands, i, c)
	{
		json_array_foreach(json_array_get(json_object_get(c, "values"), 0), r, v)
		{
			if (!json_is_number(v))
				continue;
			*lo = fmin(*lo, json_number_value(v));
			*hi = fmax(*hi, json_number_value(v));
			any = true;
		}
	}
	return any;
}

/* The label at the end of a run: "c2 sched=isolate", or "c2" when what
 * sets it apart is longer than RUN_LABEL characters (the legend has it
 * whole: a label is never cut).  malloc'ed; NULL on ENOMEM. */
#define RUN_LABEL 48
static char *run_label(const json_t *cands, const json_t *cand, size_t i)
{
	char *d = html_words_apart(cands, html_jstr(cand, "label")), *l;

	if (!d)
		return NULL;
	l = *d && strlen(d) <= RUN_LABEL ? vtb_asprintf("c%zu %s", i + 1, d)
					 : vtb_asprintf("c%zu", i + 1);
	free(d);
	return l;
}

/* One candidate's run: its line, a mark per value, its end (a cross
 * where it was eliminated, a circle for the winner); *ex, *ey where its
 * label goes (NAN: no value) */
static void chart_run(struct page *pg, xmlNodePtr g, const json_t *c, size_t i,
		      const struct scale *sx, const struct scale *sy, double *ex, double *ey)
{
	const json_t *vals = json_array_get(json_object_get(c, "values"), 0), *v;
	const char *colour = html_palette(i), *status = html_jstr(c, "status");
	xmlNodePtr line, mark;
	struct vtb_strbuf pts = VTB_STRBUF_INIT;
	double lx = NAN, ly = NAN;
	size_t r;

	html_attr(pg, g, "class", "run");
	html_el(pg, g, "title", jstr_or(c, "label"));
	json_array_foreach(vals, r, v)
	{
		if (!json_is_number(v))
			continue;
		lx = html_sc(sx, (double)r + 1);
		ly = html_sc(sy, json_number_value(v));
		vtb_strbuf_addf(&pts, "%s%.1f,%.1f", pts.len ? " " : "", lx, ly);
		mark = html_el(pg, g, "circle", NULL);
		html_attr(pg, mark, "class", "pt");
		html_attrf(pg, mark, "cx", "%.1f", lx);
		html_attrf(pg, mark, "cy", "%.1f", ly);
		html_attr(pg, mark, "r", "3");
		html_attr(pg, mark, "fill", colour);
	}
	if (pts.len) {
		line = html_el(pg, g, "polyline", NULL);
		html_attr(pg, line, "points", vtb_strbuf_str(&pts));
		html_attr(pg, line, "fill", "none");
		html_attr(pg, line, "stroke", colour);
	}
	vtb_strbuf_release(&pts);
	*ex = lx;
	*ey = ly;
	if (!isfinite(lx))
		return;
	if (status && !strcmp(status, "eliminated")) {
		mark = html_svg_text(pg, g, lx, ly + 4, "middle", "\u2715");
		html_attr(pg, mark, "class", "out");
	} else if (status && (!strcmp(status, "winner") || !strcmp(status, "tied"))) {
		mark = html_el(pg, g, "circle", NULL);
		html_attr(pg, mark, "class", "win");
		html_attrf(pg, mark, "cx", "%.1f", lx);
		html_attrf(pg, mark, "cy", "%.1f", ly);
		html_attr(pg, mark, "r", "7");
		html_attr(pg, mark, "fill", "none");
		html_attr(pg, mark, "stroke", colour);
	}
}

/* Labels ending at one round, at least LABEL_GAP px apart: sorted by
 * their round, then height, each pushed below the one above */
#define LABEL_GAP 13.0
struct endlabel {
	double x, y;
	size_t i;
};

static int cmp_endlabel(const void *a, const void *b)
{
	const struct endlabel *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* Chart geometry (px): the plot between the margins, labels right of it */
#define RC_LEFT 70.0
#define RC_TOP 26.0
#define RC_BOTTOM 40.0
#define RC_ROUND_W 60.0
#define RC_H 300.0
#define RC_CHAR_W 7.0

static void part_chart(struct page *pg, xmlNodePtr body, const json_t *doc)
{
	const json_t *cands = json_object_get(doc, "candidates"), *c;
	const json_t *om = json_array_get(json_object_get(doc, "objective"), 0);
	static const char *const cols[] = { "", "candidate", "label", "status", NULL };
	size_t n = json_array_size(cands), i, widest = 0, nl = 0;
	double rounds = 0, lo, hi, w, plot_r;
	struct scale sx = { 0 }, sy = { 0 };
	struct endlabel *ends = calloc(n ? n : 1, sizeof(*ends));
	char **labels = calloc(n ? n : 1, sizeof(*labels));
	xmlNodePtr svg, g, tb, t;
	char *note;

	if (!ends || !labels) {
		pg->failed = true;
		free(ends);
		free(labels);
		return;
	}
	/* the rounds with values: the race's count comes from a database
	 * (anyone's file), and a count of 1e18 must not draw as many */
	{
		double claimed = 0;

		json_array_foreach(cands, i, c)
		{
			size_t k = json_array_size(json_array_get(json_object_get(c, "values"), 0));

			rounds = (double)k > rounds ? (double)k : rounds;
		}
		if (html_jnum(json_object_get(doc, "race"), "rounds", &claimed) && claimed >= 1 &&
		    claimed < rounds)
			rounds = floor(claimed);
		rounds = fmax(rounds, 1);
	}
	note = vtb_asprintf("Each candidate's %s/%s round by round; a line ends with \u2715 "
			    "where the race eliminated it, the winner's is circled.  Its label "
			    "is its name in the legend below and what sets it apart.",
			    jstr_or(om, "cell"), jstr_or(om, "metric"));
	html_section(pg, body, "race", "The race", note);
	free(note);
	json_array_foreach(cands, i, c)
	{
		labels[i] = run_label(cands, c, i);
		if (!labels[i])
			pg->failed = true;
		else if (strlen(labels[i]) > widest)
			widest = strlen(labels[i]);
	}
	plot_r = RC_LEFT + rounds * RC_ROUND_W;
	w = plot_r + 30 + (double)widest * RC_CHAR_W;
	svg = html_svg_root(pg, body, "racechart", w, RC_H);
	html_attr(pg, svg, "data-mark", "run");
	html_attrf(pg, svg, "data-marks", "%zu", n);
	if (!value_range(cands, &lo, &hi)) {
		lo = 0;
		hi = 1;
	}
	sx = (struct scale){ .lo = 0.5, .hi = rounds + 0.5, .p0 = RC_LEFT, .p1 = plot_r };
	sy.p0 = RC_H - RC_BOTTOM;
	sy.p1 = RC_TOP;
	html_scale_lin(&sy, lo, hi);
	html_axis_y(pg, svg, &sy, RC_LEFT, plot_r, html_jstr(om, "unit"));
	g = html_el(pg, svg, "g", NULL);
	html_attr(pg, g, "class", "axis");
	html_svg_line(pg, g, RC_LEFT, sy.p0, plot_r, sy.p0, "#888888");
	for (double r = 1; r <= rounds; r++) {
		char lab[32];

		snprintf(lab, sizeof(lab), "%.0f", r);
		html_svg_text(pg, g, html_sc(&sx, r), sy.p0 + 14, "middle", lab);
	}
	html_attr(pg, html_svg_text(pg, g, plot_r, sy.p0 + 30, "end", "round"), "class", "unit");
	json_array_foreach(cands, i, c)
	{
		double ex, ey;

		chart_run(pg, html_el(pg, svg, "g", NULL), c, i, &sx, &sy, &ex, &ey);
		if (isfinite(ex))
			ends[nl++] = (struct endlabel){ ex, ey, i };
	}
	qsort(ends, nl, sizeof(*ends), cmp_endlabel);
	for (i = 0; i < nl; i++) {
		if (i && ends[i].x == ends[i - 1].x && ends[i].y < ends[i - 1].y + LABEL_GAP)
			ends[i].y = ends[i - 1].y + LABEL_GAP;
		t = html_svg_text(pg, svg, ends[i].x + 12, ends[i].y + 4, "start",
				  labels[ends[i].i] ? labels[ends[i].i] : "");
		html_attr(pg, t, "class", "runlabel");
		html_attr(pg, t, "fill", html_palette(ends[i].i));
		html_el(pg, t, "title", jstr_or(json_array_get(cands, ends[i].i), "label"));
	}
	/* the legend: each cN with its whole label */
	tb = html_header_row(pg, html_el(pg, body, "table", NULL), cols);
	json_array_foreach(cands, i, c)
	{
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL), td = html_el(pg, tr, "td", NULL);
		double er;

		html_swatch(pg, td, html_palette(i));
		html_elf(pg, tr, "td", "c%zu", i + 1);
		html_el(pg, tr, "td", jstr_or(c, "label"));
		if (html_jnum(c, "eliminated_round", &er) && er > 0)
			html_elf(pg, tr, "td", "eliminated in round %s", html_fmt_num(er).s);
		else
			html_el(pg, tr, "td", jstr_or(c, "status"));
	}
	for (i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(ends);
}

/* "cpu0-1: MC; cpu2: none" of a tree's levels per CPU (an isolated CPU
 * has no domain).  malloc'ed; NULL on ENOMEM. */
static char *tree_levels(const json_t *t)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *gr;
	size_t i;
	bool err = vtb_strbuf_addstr(&sb, "") < 0;

	json_array_foreach(json_object_get(t, "levels_by_cpu"), i, gr)
	{
		const char *lv = html_jstr(gr, "levels");

		err |= vtb_strbuf_addf(&sb, "%scpu%s: %s", i ? "; " : "", jstr_or(gr, "cpus"),
				       lv && *lv ? lv : "none") < 0;
	}
	if (!json_array_size(json_object_get(t, "levels_by_cpu")))
		err |= vtb_strbuf_addstr(&sb, "no CPU") < 0;
	if (err) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* A row per tree of @trees: @who, its levels per CPU, boots, digest */
static void tree_rows(struct page *pg, xmlNodePtr tb, const char *who, const json_t *trees,
		      const json_t *boots_of)
{
	const json_t *t;
	size_t i;

	json_array_foreach(trees, i, t)
	{
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL);
		char *lv = tree_levels(t);

		if (!lv)
			pg->failed = true;
		html_el(pg, tr, "td", i ? "" : who);
		html_el(pg, tr, "td", lv ? lv : "-");
		html_elf(pg, tr, "td", "%s of %s", html_jfmt(t, "boots").s,
			 html_jfmt(boots_of, "boots").s);
		html_elf(pg, tr, "td", "%.12s", jstr_or(t, "digest"));
		free(lv);
	}
	if (!json_array_size(trees)) {
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL);

		html_el(pg, tr, "td", who);
		html_el(pg, tr, "td", "no sched-domain view recorded");
		html_el(pg, tr, "td", "-");
		html_el(pg, tr, "td", "-");
	}
}

/* "2 of 3 boots (rounds 1, 3)" of a sched record's boots */
static char *boots_rounds(const json_t *a, const json_t *sched)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *r;
	size_t i;
	bool err = vtb_strbuf_addf(&sb, "%s of %s boots (round%s", html_jfmt(a, "boots").s,
				   html_jfmt(sched, "boots").s,
				   json_array_size(json_object_get(a, "reps")) == 1 ? "" : "s") < 0;

	json_array_foreach(json_object_get(a, "reps"), i, r)
		err |= vtb_strbuf_addf(&sb, "%s %s", i ? "," : "",
				       html_fmt_num(json_number_value(r) + 1).s) < 0;
	err |= vtb_strbuf_addstr(&sb, ")") < 0;
	if (err) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* One sched record as applied: its cmdline tokens and knobs, each with
 * what was set and what was read back in the guest */
static void applied_table(struct page *pg, xmlNodePtr body, const json_t *a)
{
	static const char *const cols[] = { "setting", "set to", "read back", "files", NULL };
	xmlNodePtr tb = html_header_row(pg, html_el(pg, body, "table", NULL), cols);
	const json_t *t, *rd;
	size_t i, j;

	json_array_foreach(json_object_get(a, "cmdline"), i, t)
	{
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL);
		bool present = json_is_true(json_object_get(t, "present"));

		html_el(pg, tr, "td", "cmdline");
		html_el(pg, tr, "td", jstr_or(t, "token"));
		html_attr(pg,
			  html_el(pg, tr, "td",
				  present ? "present in /proc/cmdline"
					  : "absent from /proc/cmdline"),
			  "class", present ? "v-same" : "v-worse");
		html_td_num(pg, tr, "-");
	}
	json_array_foreach(json_object_get(a, "knobs"), i, t)
	{
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL), td;
		bool ok = json_is_true(json_object_get(t, "ok"));

		html_el(pg, tr, "td", jstr_or(t, "key"));
		html_el(pg, tr, "td", jstr_or(t, "want"));
		td = html_el(pg, tr, "td", NULL);
		html_attr(pg, td, "class", ok ? "v-same" : "v-worse");
		json_array_foreach(json_object_get(t, "reads"), j, rd)
		{
			const char *v = html_jstr(rd, "value");

			html_text(pg, td, j ? ", " : "");
			html_text(pg, td, v ? v : "nothing (unreadable)");
			if (json_array_size(json_object_get(t, "reads")) > 1) {
				html_text(pg, td, " in ");
				html_text(pg, td, html_jfmt(rd, "files").s);
			}
		}
		if (!ok)
			html_text(pg, td, ": not as set");
		html_td_num(pg, tr, html_jfmt(t, "files").s);
	}
	if (!json_array_size(json_object_get(a, "cmdline")) &&
	    !json_array_size(json_object_get(a, "knobs"))) {
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL);

		html_el(pg, tr, "td", "none");
		html_el(pg, tr, "td", "-");
		html_el(pg, tr, "td", "-");
		html_td_num(pg, tr, "-");
	}
}

/* A configuration's sched profile as applied (@who: "sched profile",
 * "the winner's sched profile"): no settings, nothing recorded, the same
 * in every boot, else each distinct record with its boots and rounds */
static void part_sched(struct page *pg, xmlNodePtr body, const char *who, const json_t *s)
{
	const json_t *applied = json_object_get(s, "applied"), *a;
	const char *name = html_jstr(s, "profile");
	double none = 0;
	size_t i;

	if (!json_is_object(s)) {
		html_elf(pg, body, "p", "%s: none (a bare-metal configuration)", who);
		return;
	}
	if (!json_object_size(json_object_get(s, "declared")) && !json_array_size(applied)) {
		html_elf(pg, body, "p", "%s %s: no settings (nothing applied)", who,
			 name ? name : "(unnamed)");
		return;
	}
	if (!json_array_size(applied)) {
		char *set = html_jtext(json_object_get(s, "declared"));

		if (!set)
			pg->failed = true;
		html_elf(pg, body, "p",
			 "%s %s: nothing recorded in its %s boots (no sched record); set %s", who,
			 name ? name : "(unnamed)", html_jfmt(s, "boots").s, set ? set : "-");
		free(set);
		return;
	}
	if (json_is_true(json_object_get(s, "agree"))) {
		a = json_array_get(applied, 0);
		html_elf(pg, body, "p", "%s %s, %s in all %s boots:", who,
			 name ? name : "(unnamed)",
			 json_is_true(json_object_get(a, "ok")) ? "as applied" : "not as set",
			 html_jfmt(s, "boots").s);
		applied_table(pg, body, a);
		return;
	}
	html_elf(pg, body, "p", "%s %s: the boots disagree.", who, name ? name : "(unnamed)");
	json_array_foreach(applied, i, a)
	{
		char *br = boots_rounds(a, s);

		if (!br)
			pg->failed = true;
		html_elf(pg, body, "p", "%s, %s:", br ? br : "-",
			 json_is_true(json_object_get(a, "ok")) ? "as applied" : "not as set");
		free(br);
		applied_table(pg, body, a);
	}
	if (html_jnum(s, "unrecorded", &none) && none > 0)
		html_elf(pg, body, "p", "%s of %s boots: nothing recorded.", html_fmt_num(none).s,
			 html_jfmt(s, "boots").s);
}

static void part_guest(struct page *pg, xmlNodePtr body, const json_t *doc)
{
	const json_t *g = json_object_get(doc, "guest"), *ev = json_object_get(g, "evidence");
	const json_t *t, *l, *c;
	static const char *const cols[] = { "level", "span", "flags", NULL };
	size_t i, j;

	html_section(pg, body, "guest", "What the winner's guests built",
		     json_is_object(ev) || json_array_size(json_object_get(g, "trees"))
			     ? NULL
			     : "Nothing recorded: a bare-metal configuration, or no guest view.");
	json_array_foreach(json_object_get(ev, "levels"), i, l)
		html_elf(pg, body, "p", "sched-domain levels %s (guest kernel %s, %s boots)",
			 html_jstr(l, "levels") && *html_jstr(l, "levels") ? html_jstr(l, "levels")
									   : "none",
			 jstr_or(l, "guest_kernel"), html_jfmt(l, "boots").s);
	json_array_foreach(json_object_get(g, "trees"), i, t)
	{
		const json_t *cpu0 = json_array_get(json_object_get(t, "cpus"), 0);
		char *lv = tree_levels(t);
		xmlNodePtr tb;

		if (!lv)
			pg->failed = true;
		html_elf(pg, body, "p",
			 "tree %.12s (%s boots): levels per CPU %s; CPU %s's domains",
			 jstr_or(t, "digest"), html_jfmt(t, "boots").s, lv ? lv : "-",
			 html_jfmt(cpu0, "cpu").s);
		free(lv);
		tb = html_header_row(pg, html_el(pg, body, "table", NULL), cols);
		json_array_foreach(json_object_get(cpu0, "levels"), j, l)
		{
			xmlNodePtr tr = html_el(pg, tb, "tr", NULL);
			char *fl = html_jtext(json_object_get(l, "flags"));

			html_el(pg, tr, "td", jstr_or(l, "name"));
			html_el(pg, tr, "td", jstr_or(l, "span"));
			html_el(pg, tr, "td", fl ? fl : "-");
			free(fl);
		}
	}
	if (json_is_object(json_object_get(g, "sched")))
		part_sched(pg, body, "sched profile", json_object_get(g, "sched"));
	if (!json_is_object(ev))
		return;
	json_array_foreach(json_object_get(ev, "claims"), i, c)
		html_elf(pg, body, "p", "claim %s (vCPUs %s): %s", jstr_or(c, "kind"),
			 jstr_or(c, "vcpus"), jstr_or(c, "state"));
	html_elf(pg, body, "p",
		 "topology as planned in %s of %s boots; vCPUs off the planned pCPUs %s of the time on average",
		 html_jfmt(ev, "matched").s, html_jfmt(ev, "boots").s,
		 html_fmt_pct(jnum_or_nan(ev, "off_planned_mean") * 100).s);
}

/* Each loser's largest differences from the winner in the scheduler's
 * counters (docs/evidence.md), per cell, in compare's words */
static void part_loser_evidence(struct page *pg, xmlNodePtr body, const json_t *evidence)
{
	const json_t *d;
	xmlNodePtr ul;
	size_t i;

	if (!json_array_size(evidence))
		return;
	html_el(pg, body, "h4", "Scheduler counters farthest from the winner's");
	ul = html_el(pg, body, "ul", NULL);
	html_attr(pg, ul, "class", "evidence-diffs");
	json_array_foreach(evidence, i, d)
	{
		char *w = vtb_ev_words(json_object_get(d, "items"), "this setup", "the winner");

		if (!w) {
			pg->failed = true;
			return;
		}
		html_elf(pg, ul, "li", "cell %s: %s", html_orstr(html_jstr(d, "cell")), w);
		free(w);
	}
}

/* Why loser @e lost beyond its statistic: its sched profile as applied,
 * its trees beside the winner's, the evidence differences */
static void part_setup(struct page *pg, xmlNodePtr body, const json_t *doc, const json_t *e,
		       size_t k)
{
	static const char *const cols[] = { "", "levels per CPU", "boots", "tree", NULL };
	const json_t *setup = json_object_get(e, "setup"), *g = json_object_get(doc, "guest");
	const json_t *wsched = json_object_get(g, "sched"), *wev = json_object_get(g, "evidence");
	xmlNodePtr h = html_elf(pg, body, "h3", "%s", jstr_or(e, "label")), tb;

	html_attrf(pg, h, "id", "lost-%zu", k + 1);
	html_elf(pg, body, "p", "Dropped in round %s: %s.", html_jfmt(e, "round").s,
		 !strcmp(jstr_or(e, "reason"), "missing") ? "under 2 values (its boots failed)"
							  : "worse on the objective");
	if (!json_is_object(setup)) {
		html_el(pg, body, "p", "Bare metal: no guest sched profile or domains.");
		return;
	}
	part_sched(pg, body, "sched profile", json_object_get(setup, "sched"));
	if (json_is_object(wsched))
		part_sched(pg, body, "the winner's sched profile", wsched);
	html_el(pg, body, "p", "Sched domains, beside the winner's:");
	tb = html_header_row(pg, html_el(pg, body, "table", NULL), cols);
	tree_rows(pg, tb, "this setup", json_object_get(setup, "trees"),
		  json_object_get(setup, "sched"));
	if (json_is_object(g))
		tree_rows(pg, tb, "the winner", json_object_get(g, "trees"),
			  json_is_object(wev) ? wev : wsched);
	part_loser_evidence(pg, body, json_object_get(setup, "evidence"));
}

static void part_elims(struct page *pg, xmlNodePtr body, const json_t *doc)
{
	static const char *const cols[] = { "round", "candidate", "metric", "change",
					    "q",     "against",	  "test",   NULL };
	const json_t *e;
	xmlNodePtr tb;
	size_t i;

	html_section(pg, body, "eliminated", "Why each other setup lost",
		     json_array_size(json_object_get(doc, "eliminations"))
			     ? "Each with the round and the evidence that eliminated it, then its "
			       "sched profile as applied in the guest and its sched domains beside "
			       "the winner's."
			     : "None was eliminated.");
	tb = html_header_row(pg, html_el(pg, body, "table", NULL), cols);
	json_array_foreach(json_object_get(doc, "eliminations"), i, e)
	{
		const json_t *ev = json_object_get(e, "evidence");
		xmlNodePtr tr = html_el(pg, tb, "tr", NULL);

		html_td_num(pg, tr, html_jfmt(e, "round").s);
		html_el(pg, tr, "td", jstr_or(e, "label"));
		html_el(pg, tr, "td", jstr_or(e, "metric"));
		if (!strcmp(jstr_or(e, "reason"), "missing"))
			html_el(pg, tr, "td", "under 2 values");
		else
			change_td(pg, tr, ev);
		html_td_num(pg, tr, html_jfmt(ev, "q").s);
		html_el(pg, tr, "td", jstr_or(e, "best_label"));
		html_elf(pg, tr, "td", "%s, %s boots a side, family %s, %s", jstr_or(ev, "test"),
			 html_jfmt(ev, "boots").s, html_jfmt(ev, "family").s,
			 jstr_or(ev, "adjust"));
	}
	json_array_foreach(json_object_get(doc, "eliminations"), i, e)
		part_setup(pg, body, doc, e, i);
}

int vtb_recommend_html(const json_t *doc, FILE *f)
{
	struct page pg = { .rep = doc };
	const char *schema = html_jstr(doc, "schema");
	xmlNodePtr body;
	char *title;

	if (!schema || strcmp(schema, VTB_RECOMMEND_DOC_SCHEMA))
		return vtb_error("document schema '%s' is not '%s'", schema ? schema : "(none)",
				 VTB_RECOMMEND_DOC_SCHEMA);
	title = vtb_asprintf("vtbench recommend %s",
			     jstr_or(json_object_get(doc, "campaign"), "uuid"));
	body = html_page_open(&pg, title ? title : "vtbench recommend");
	html_el(&pg, body, "h1", title ? title : "vtbench recommend");
	free(title);
	part_winner(&pg, body, doc);
	part_chart(&pg, body, doc);
	part_guest(&pg, body, doc);
	part_elims(&pg, body, doc);
	html_attr(&pg, html_el(&pg, body, "p", "report schema " VTB_RECOMMEND_DOC_SCHEMA), "class",
		  "note");
	return html_page_save(&pg, f);
}
