/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend as one HTML page (reports/recommend.h): the winner
 * and its margins, the racing chart (each candidate's value of the first
 * objective metric round by round, its line ending where it was
 * eliminated), what the winner's guests built and why each other
 * candidate lost.  Built with the compare report's page and SVG helpers
 * (html.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
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

/* One candidate's run: its line, a mark per value, its end */
static void chart_run(struct page *pg, xmlNodePtr svg, const json_t *c, size_t i,
		      const struct scale *sx, const struct scale *sy)
{
	const json_t *vals = json_array_get(json_object_get(c, "values"), 0), *v;
	const char *colour = html_palette(i), *status = html_jstr(c, "status");
	xmlNodePtr g = html_el(pg, svg, "g", NULL), line, mark;
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
	html_svg_text(pg, g, lx + 10, ly + 4, "start", jstr_or(c, "label"));
}

static void part_chart(struct page *pg, xmlNodePtr body, const json_t *doc)
{
	const json_t *cands = json_object_get(doc, "candidates"), *c;
	const json_t *om = json_array_get(json_object_get(doc, "objective"), 0);
	double rounds = 0, lo, hi, w, h = 260;
	struct scale sx = { 0 }, sy = { 0 };
	xmlNodePtr svg;
	size_t i;
	char *note;

	html_jnum(json_object_get(doc, "race"), "rounds", &rounds);
	note = vtb_asprintf("Each candidate's %s/%s (%s) round by round; a line ends with \u2715 "
			    "where the race eliminated it, the winner's is circled.",
			    jstr_or(om, "cell"), jstr_or(om, "metric"), jstr_or(om, "unit"));
	html_section(pg, body, "race", "The race", note);
	free(note);
	w = 120 + fmax(rounds, 1) * 60 + 220;
	svg = html_svg_root(pg, body, "racechart", w, h);
	html_attr(pg, svg, "data-mark", "run");
	html_attrf(pg, svg, "data-marks", "%zu", json_array_size(cands));
	if (!value_range(cands, &lo, &hi)) {
		lo = 0;
		hi = 1;
	}
	sx = (struct scale){ .lo = 0.5, .hi = fmax(rounds, 1) + 0.5, .p0 = 60, .p1 = w - 220 };
	sy.p0 = h - 30;
	sy.p1 = 15;
	html_scale_lin(&sy, lo, hi);
	for (double r = 1; r <= rounds; r++) {
		char lab[32];

		snprintf(lab, sizeof(lab), "%.0f", r);
		html_svg_line(pg, svg, html_sc(&sx, r), sy.p1, html_sc(&sx, r), sy.p0, "#ddd");
		html_svg_text(pg, svg, html_sc(&sx, r), h - 12, "middle", lab);
	}
	html_svg_text(pg, svg, 4, sy.p1 + 4, "start", html_fmt_num(hi).s);
	html_svg_text(pg, svg, 4, sy.p0, "start", html_fmt_num(lo).s);
	json_array_foreach(cands, i, c) chart_run(pg, svg, c, i, &sx, &sy);
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
			 jstr_or(l, "levels"), jstr_or(l, "guest_kernel"), html_jfmt(l, "boots").s);
	json_array_foreach(json_object_get(g, "trees"), i, t)
	{
		const json_t *cpu0 = json_array_get(json_object_get(t, "cpus"), 0);
		xmlNodePtr tb;

		html_elf(pg, body, "p", "tree %.12s (%s boots): CPU %s's domains",
			 jstr_or(t, "digest"), html_jfmt(t, "boots").s, html_jfmt(cpu0, "cpu").s);
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

static void part_elims(struct page *pg, xmlNodePtr body, const json_t *doc)
{
	static const char *const cols[] = { "round", "candidate", "metric", "change",
					    "q",     "against",	  "test",   NULL };
	const json_t *e;
	xmlNodePtr tb;
	size_t i;

	html_section(pg, body, "eliminated", "Eliminated",
		     json_array_size(json_object_get(doc, "eliminations"))
			     ? "Each with the round and the evidence that eliminated it."
			     : "None.");
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
