/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's charts, drawn as SVG here (no plotting tool to find,
 * nothing to fetch): the headline of changes, box plots of the per-boot
 * values, latency CDFs from the merged histograms (the c2c heat maps are
 * html-c2c.c).  Each chart is countable by a test (data-mark, data-marks:
 * report.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hist.h"
#include "../common/vtbutil.h"
#include "html.h"

static const char *verdict_colour(const char *v)
{
	static const char *const c[][2] = {
		{ "worse", "#b3261e" },	       { "better", "#116b2d" }, { "same", "#777777" },
		{ "inconclusive", "#c77700" }, { "few", "#4a5fa8" },	{ "missing", "#8e24aa" },
		{ "error", "#c62828" },
	};

	for (size_t i = 0; v && i < sizeof(c) / sizeof(c[0]); i++)
		if (!strcmp(c[i][0], v))
			return c[i][1];
	return "#777777";
}

/* At most this many rows in the headline chart (the verdict table has all). */
#define HEADLINE_ROWS 200
/* Characters of a headline label on screen (390 px of 11 px text). */
#define HEADLINE_LABEL 58
/* The headline's geometry (px). */
#define HL_W 960.0
#define HL_LABEL_W 390.0
#define HL_RIGHT_W 170.0
#define HL_TOP 6.0
#define HL_ROW_H 18.0
/* The axis spans at most this many decades of the ratio either side of
 * 1: -99% to +9900%; a value beyond gets a clip marker. */
#define HL_DECADES 2.0
/* Pixels at least between two tick labels. */
#define HL_TICK_GAP 50.0

/*
 * The headline's axis is log10 of the ratio new/base (1 + change/100):
 * -50% and +100% sit as far from 0, +346% and +9264% a decade apart.
 * False when the ratio is not a positive number (-100% and below).
 */
static bool hl_log(double pct, double *out)
{
	double r = 1 + pct / 100;

	if (!isfinite(pct) || !(r > 0))
		return false;
	*out = log10(r);
	return isfinite(*out);
}

/* Where @pct sits: -1 beyond the left end of @s, 1 beyond the right, 0
 * inside (*x its pixel). */
static int hl_x(const struct scale *s, double pct, double *x)
{
	double l;

	if (!hl_log(pct, &l) || l < s->lo) {
		*x = s->p0;
		return -1;
	}
	if (l > s->hi) {
		*x = s->p1;
		return 1;
	}
	*x = html_sc(s, l);
	return 0;
}

/* The change axis, in log10 of the ratio: the first @shown rows' changes
 * and intervals and twice the threshold @t either side, at most
 * HL_DECADES decades either side, with a little room. */
static void headline_scale(struct scale *s, const json_t *rows, size_t shown, double t)
{
	static const char *const keys[] = { "change_pct", "ci_low_pct", "ci_high_pct" };
	double lo, hi, pad;
	const json_t *r;
	size_t i;

	if (!hl_log(2 * fabs(t), &hi) || hi <= 0)
		hi = log10(1.1);
	hi = fmin(hi, HL_DECADES);
	lo = -hi;
	json_array_foreach(rows, i, r)
	{
		for (size_t k = 0; i < shown && k < sizeof(keys) / sizeof(keys[0]); k++) {
			double v, l;

			if (html_jnum(r, keys[k], &v) && hl_log(v, &l)) {
				lo = fmin(lo, l);
				hi = fmax(hi, l);
			}
		}
	}
	lo = fmax(lo, -HL_DECADES);
	hi = fmin(hi, HL_DECADES);
	pad = (hi - lo) * 0.04;
	s->lo = lo - pad;
	s->hi = hi + pad;
	s->log = false;
	s->p0 = HL_LABEL_W + 10;
	s->p1 = HL_W - HL_RIGHT_W;
}

/* A tick's label: "0", "+100%", "-50%", "+0.5%". */
static struct num tick_label(double pct)
{
	struct num n;

	if (pct == 0)
		snprintf(n.s, sizeof(n.s), "0");
	else
		snprintf(n.s, sizeof(n.s), "%+g%%", pct);
	return n;
}

/*
 * The axis of the headline: grid lines and labels in % change at round
 * changes, from 0 outwards, each at least HL_TICK_GAP pixels from the
 * last (so the labels never collide, whatever the span), and what the
 * scale is.
 */
static void headline_axis(struct page *pg, xmlNodePtr svg, const struct scale *s, double top,
			  double y)
{
	static const double up[] = { 0.1, 0.2, 0.5, 1,	 2,    5,    10,   20,
				     50,  100, 200, 500, 1000, 2000, 5000, 9900 };
	static const double down[] = { -0.1, -0.2, -0.5, -1,  -2,  -5,	-10,
				       -20,  -50,  -80,	 -90, -95, -98, -99 };
	xmlNodePtr g = html_el(pg, svg, "g", NULL);
	double x0;

	html_attr(pg, g, "class", "axis");
	html_svg_line(pg, g, s->p0, y, s->p1, y, "#888888");
	hl_x(s, 0, &x0);
	/* 0, then the gains outwards, then the losses */
	for (int side = 0; side < 3; side++) {
		const double *c = side == 1 ? up : down;
		size_t n = side == 0 ? 1 : side == 1 ? VTB_ARRAY_SIZE(up) : VTB_ARRAY_SIZE(down);
		double last = x0;

		for (size_t k = 0; k < n; k++) {
			double pct = side == 0 ? 0 : c[k], x;

			if (hl_x(s, pct, &x))
				break;
			if (side && fabs(x - last) < HL_TICK_GAP)
				continue;
			last = x;
			html_attr(pg, html_svg_line(pg, g, x, top, x, y, "#eeeeee"), "class",
				  "grid");
			html_attr(pg, html_svg_text(pg, g, x, y + 14, "middle", tick_label(pct).s),
				  "class", "tick");
		}
	}
	html_svg_text(pg, g, s->p1, y + 28, "end", "change % (log scale of the ratio)");
}

/* The name of a configuration in the text report's legend ("c3"); "-"
 * when the document does not list it. */
static struct num cfg_name(const struct page *pg, const json_t *side)
{
	long i = html_cfg_index(pg, html_jstr(side, "config"), html_jstr(side, "campaign"));
	struct num n;

	if (i < 0)
		snprintf(n.s, sizeof(n.s), "-");
	else
		snprintf(n.s, sizeof(n.s), "c%ld", i + 1);
	return n;
}

/*
 * A row's label: on screen the cell, the metric and the configuration's
 * name cN with the words of its label that set it apart from the other
 * compared configurations (@xs), or cN alone when those do not fit (the
 * configurations' table has the whole label); the tooltip has both
 * labels whole.  A cell and metric too long for the line are cut, marked
 * by "~", before the name: the part that differs is never cut.  -1 on
 * ENOMEM.
 */
static int headline_label(struct page *pg, xmlNodePtr g, const json_t *xs, const json_t *r,
			  double cy)
{
	const json_t *x = json_object_get(r, "x"), *base = json_object_get(r, "base");
	char *xl = html_side_label(pg, html_jstr(x, "config"), html_jstr(x, "campaign"));
	char *bl = html_side_label(pg, html_jstr(base, "config"), html_jstr(base, "campaign"));
	char *label = vtb_asprintf("%s %s: %s %s vs %s %s", html_orstr(html_jstr(r, "cell")),
				   html_orstr(html_jstr(r, "metric")), cfg_name(pg, x).s,
				   xl ? xl : "-", cfg_name(pg, base).s, bl ? bl : "-");
	char *what = vtb_asprintf("%s %s", html_orstr(html_jstr(r, "cell")),
				  html_orstr(html_jstr(r, "metric")));
	char *apart = html_words_apart(xs, html_cfg_label(pg, html_jstr(x, "config"),
							  html_jstr(x, "campaign")));
	char *who = NULL, *onscreen = NULL;
	int ret = -1;

	if (!label || !what || !apart)
		goto out;
	who = *apart && strlen(what) + strlen(cfg_name(pg, x).s) + strlen(apart) + 3 <=
				      HEADLINE_LABEL
		      ? vtb_asprintf("%s %s", cfg_name(pg, x).s, apart)
		      : strdup(cfg_name(pg, x).s);
	if (!who)
		goto out;
	if (strlen(what) + strlen(who) + 2 > HEADLINE_LABEL) {
		size_t keep = HEADLINE_LABEL - strlen(who) - 3;

		/* cut at a character, not inside one */
		while (keep && ((unsigned char)what[keep] & 0xc0) == 0x80)
			keep--;
		strcpy(what + keep, "~");
	}
	onscreen = vtb_asprintf("%s: %s", what, who);
	if (!onscreen)
		goto out;
	html_el(pg, g, "title", label);
	html_attr(pg, html_svg_text(pg, g, HL_LABEL_W, cy + 4, "end", onscreen), "class",
		  "hllabel");
	ret = 0;
out:
	free(xl);
	free(bl);
	free(label);
	free(what);
	free(apart);
	free(who);
	free(onscreen);
	return ret;
}

/* A clip marker at the edge @side (-1 left, 1 right) of @s: a chevron
 * pointing out of the axis and the value @pct written beside it. */
static void clip_marker(struct page *pg, xmlNodePtr g, const struct scale *s, int side, double pct,
			double cy, const char *col)
{
	double e = side < 0 ? s->p0 : s->p1, d = side * 7.0;
	xmlNodePtr m = html_el(pg, g, "polygon", NULL), t;

	html_attrf(pg, m, "points", "%.1f,%.1f %.1f,%.1f %.1f,%.1f", e, cy - 5, e + d, cy, e,
		   cy + 5);
	html_attr(pg, m, "fill", col);
	html_attr(pg, m, "class", "clip");
	html_elf(pg, m, "title", "%s: beyond the axis", html_fmt_pct(pct).s);
	t = html_svg_text(pg, g, e - side * 3.0, cy - 6, side < 0 ? "start" : "end",
			  html_fmt_pct(pct).s);
	html_attr(pg, t, "class", "clipv");
	html_attr(pg, t, "fill", col);
}

/* A row's interval, change and verdict, coloured by the verdict.  What
 * is beyond the axis ends at its edge with a clip marker there, which
 * writes the farthest value on that side. */
static void headline_marks(struct page *pg, xmlNodePtr g, const struct scale *s, const json_t *r,
			   double cy)
{
	const char *v = html_jstr(r, "verdict"), *col = verdict_colour(v);
	double ch, a, b, xa, xb, xc, far[2] = { NAN, NAN };
	xmlNodePtr tt;
	int ca, cb, cc;

	if (html_jnum(r, "ci_low_pct", &a) && html_jnum(r, "ci_high_pct", &b)) {
		ca = hl_x(s, a, &xa);
		cb = hl_x(s, b, &xb);
		html_attr(pg, html_svg_line(pg, g, xa, cy, xb, cy, col), "stroke-width", "3");
		if (ca)
			far[ca > 0] = a;
		if (cb)
			far[cb > 0] = b;
	}
	if (html_jnum(r, "change_pct", &ch)) {
		cc = hl_x(s, ch, &xc);
		if (!cc) {
			xmlNodePtr c = html_el(pg, g, "circle", NULL);

			html_attrf(pg, c, "cx", "%.1f", xc);
			html_attrf(pg, c, "cy", "%.1f", cy);
			html_attr(pg, c, "r", "4");
			html_attr(pg, c, "fill", col);
			html_attr(pg, c, "class", "chg");
		} else if (isnan(far[cc > 0]) || fabs(ch) > fabs(far[cc > 0])) {
			far[cc > 0] = ch;
		}
	}
	for (int k = 0; k < 2; k++)
		if (!isnan(far[k]))
			clip_marker(pg, g, s, k ? 1 : -1, far[k], cy, col);
	tt = html_svg_text(pg, g, HL_W - HL_RIGHT_W + 10, cy + 4, NULL,
			   html_jnum(r, "change_pct", &ch) ? html_fmt_pct(ch).s : "");
	html_attr(pg, tt, "fill", col);
	html_attr(pg, tt, "class", "hlchange");
	if (html_jnum(r, "change_pct", &ch))
		html_text(pg, tt, " ");
	html_text(pg, tt, html_orstr(v));
	if (json_is_true(json_object_get(r, "confirmed")))
		html_text(pg, tt, " confirmed");
}

/* The compared configurations of the rows (each once): what the labels
 * set apart.  A new array; NULL on ENOMEM. */
static json_t *compared_configs(const struct page *pg, const json_t *rows)
{
	json_t *cfgs = json_object_get(pg->rep, "configs"), *xs = json_array(), *r;
	bool *seen = calloc(json_array_size(cfgs) + 1, sizeof(*seen));
	size_t i;

	if (!xs || !seen) {
		json_decref(xs);
		free(seen);
		return NULL;
	}
	json_array_foreach(rows, i, r)
	{
		const json_t *x = json_object_get(r, "x");
		long k = html_cfg_index(pg, html_jstr(x, "config"), html_jstr(x, "campaign"));

		if (k < 0 || seen[k])
			continue;
		seen[k] = true;
		if (json_array_append(xs, json_array_get(cfgs, (size_t)k))) {
			json_decref(xs);
			xs = NULL;
			break;
		}
	}
	free(seen);
	return xs;
}

/*
 * The answer at a glance: one line per row, its change with its interval
 * against the +-threshold band, coloured by verdict; rows without a
 * change (missing, error) say so in words.  The axis is log10 of the
 * ratio, labelled in % change, spanning the changes, the intervals and
 * twice the threshold, at most HL_DECADES decades either side: what is
 * beyond has a clip marker with its value.
 */
void html_headline(struct page *pg, xmlNodePtr body)
{
	const json_t *rows = json_object_get(pg->rep, "rows"), *r;
	const json_t *opt = json_object_get(pg->rep, "options");
	size_t n = json_array_size(rows), shown = n < HEADLINE_ROWS ? n : HEADLINE_ROWS, i;
	double t = 5, level, H = HL_TOP + (double)shown * HL_ROW_H + 36, b0, b1;
	struct scale s;
	xmlNodePtr fig, svg, cap, g;
	json_t *xs;

	if (!n)
		return;
	html_jnum(opt, "threshold_pct", &t);
	headline_scale(&s, rows, shown, t);
	fig = html_el(pg, body, "figure", NULL);
	html_attr(pg, fig, "class", "headline");
	cap = html_el(pg, fig, "figcaption", NULL);
	html_elf(pg, cap, "span",
		 "Change against the baseline, with its %s%% interval, on a log scale of the "
		 "ratio (-50%% as far from 0 as +100%%); the band is \xc2\xb1%s%%, the "
		 "threshold; cN names a configuration as in the configurations' table",
		 html_jnum(json_object_get(pg->rep, "summary"), "ci_level", &level) ||
				 html_jnum(opt, "ci_level", &level)
			 ? html_fmt_num(level * 100).s
			 : "95",
		 html_fmt_num(t).s);
	if (shown < n)
		html_elf(pg, cap, "span",
			 " (the first %zu of %zu rows: the verdict table has them all)", shown, n);
	svg = html_svg_root(pg, fig, "chart headline", HL_W, H);
	html_attr(pg, svg, "id", "headline");
	html_attr(pg, svg, "data-mark", "hl");
	html_attrf(pg, svg, "data-marks", "%zu", shown);
	hl_x(&s, -fabs(t), &b0);
	hl_x(&s, fabs(t), &b1);
	html_attr(pg,
		  html_svg_rect(pg, svg, b0, HL_TOP, b1 - b0, (double)shown * HL_ROW_H, "#eeeeee"),
		  "class", "band");
	headline_axis(pg, svg, &s, HL_TOP, HL_TOP + (double)shown * HL_ROW_H + 4);
	hl_x(&s, 0, &b0);
	html_svg_line(pg, svg, b0, HL_TOP, b0, HL_TOP + (double)shown * HL_ROW_H, "#999999");
	xs = compared_configs(pg, rows);
	if (!xs) {
		pg->failed = true;
		return;
	}
	json_array_foreach(rows, i, r)
	{
		double cy = HL_TOP + (double)i * HL_ROW_H + HL_ROW_H / 2;

		if (i >= shown)
			break;
		g = html_el(pg, svg, "g", NULL);
		html_attrf(pg, g, "class", "hl %s", html_verdict_class(html_jstr(r, "verdict")));
		if (headline_label(pg, g, xs, r, cy) < 0) {
			pg->failed = true;
			break;
		}
		headline_marks(pg, g, &s, r, cy);
	}
	json_decref(xs);
}

/* ---- per-boot values: box plots ---- */

struct lane {
	const char *config, *campaign;
	const json_t *values, *summary;
	bool base;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Linear interpolation between order statistics, as numpy's default. */
static double pct_sorted(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p / 100;
	size_t i = (size_t)floor(h);

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

/* Is element @i of @arr the first of its group (no earlier element is
 * @same as it)?  One chart per group. */
static bool first_of_group(const json_t *arr, size_t i,
			   bool (*same)(const json_t *a, const json_t *b))
{
	for (size_t k = 0; k < i; k++)
		if (same(json_array_get(arr, k), json_array_get(arr, i)))
			return false;
	return true;
}

static bool same_group(const json_t *a, const json_t *b)
{
	static const char *const keys[] = { "workload", "cell", "metric" };

	for (size_t i = 0; i < 3; i++) {
		const char *x = html_jstr(a, keys[i]), *y = html_jstr(b, keys[i]);

		if ((x || y) && (!x || !y || strcmp(x, y)))
			return false;
	}
	return true;
}

/* Characters of a box plot's label line (two lines at most). */
#define LABEL_LINE 40

/* A box plot's geometry (px): lanes between the labels and the verdicts. */
#define BOX_W 960.0
#define BOX_LABEL_W 250.0
#define BOX_RIGHT_W 200.0
#define BOX_TOP 8.0
#define BOX_LANE_H 30.0

/* The lanes of the chart of the rows' group at @first: one per side
 * (configuration and campaign), in the order the rows name them; *n their
 * number.  NULL with pg->failed on ENOMEM (or when there are none). */
static struct lane *box_lanes(struct page *pg, const json_t *rows, size_t first, size_t *n)
{
	const json_t *r0 = json_array_get(rows, first), *r;
	struct lane *lanes = NULL, *nl;
	size_t i, k;

	*n = 0;
	json_array_foreach(rows, i, r)
	{
		if (i < first || !same_group(r0, r))
			continue;
		for (int side = 0; side < 2; side++) {
			const json_t *sd = json_object_get(r, side ? "x" : "base");
			const char *cfg = html_jstr(sd, "config"),
				   *camp = html_jstr(sd, "campaign");

			if (!json_is_object(sd))
				continue;
			for (k = 0; k < *n; k++)
				if (html_same_str(lanes[k].config, cfg) &&
				    html_same_str(lanes[k].campaign, camp))
					break;
			if (k < *n) {
				lanes[k].base |= !side;
				continue;
			}
			nl = realloc(lanes, (*n + 1) * sizeof(*lanes));
			if (!nl) {
				pg->failed = true;
				free(lanes);
				*n = 0;
				return NULL;
			}
			lanes = nl;
			lanes[*n] = (struct lane){ cfg, camp, json_object_get(sd, "values"),
						   json_object_get(sd, "summary"), !side };
			(*n)++;
		}
	}
	return lanes;
}

/* The x scale: every finite per-boot value of every lane. */
static void box_scale(struct scale *s, const struct lane *lanes, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		json_t *v;
		size_t k;

		json_array_foreach(lanes[i].values, k, v)
		{
			double d = json_number_value(v);

			if (!json_is_number(v) || !isfinite(d))
				continue;
			lo = fmin(lo, d);
			hi = fmax(hi, d);
		}
	}
	html_scale_lin(s, lo, hi);
	s->p0 = BOX_LABEL_W + 10;
	s->p1 = BOX_W - BOX_RIGHT_W;
}

/* A lane's label left of it, wrapped on two lines at a blank (whole in
 * the tooltip); "(baseline)" in italics for a baseline. */
static void box_label(struct page *pg, xmlNodePtr svg, const struct lane *ln, const char *label,
		      double cy)
{
	xmlNodePtr t = html_svg_text(pg, svg, BOX_LABEL_W, cy + 4, "end", NULL);

	if (strlen(label) > LABEL_LINE) {
		size_t cut = LABEL_LINE;
		char *l1, *l2;
		xmlNodePtr ts;

		while (cut > LABEL_LINE / 2 && label[cut] != ' ')
			cut--;
		if (label[cut] != ' ')
			cut = LABEL_LINE;
		l1 = vtb_asprintf("%.*s", (int)cut, label);
		l2 = strlen(label + cut + (label[cut] == ' ')) > LABEL_LINE
			     ? vtb_asprintf("%.*s...", LABEL_LINE - 3,
					    label + cut + (label[cut] == ' '))
			     : vtb_asprintf("%s", label + cut + (label[cut] == ' '));
		if (!l1 || !l2)
			pg->failed = true;
		ts = html_el(pg, t, "tspan", l1 ? l1 : "");
		html_attrf(pg, ts, "x", "%.1f", BOX_LABEL_W);
		html_attr(pg, ts, "dy", "-6");
		ts = html_el(pg, t, "tspan", l2 ? l2 : "");
		html_attrf(pg, ts, "x", "%.1f", BOX_LABEL_W);
		html_attr(pg, ts, "dy", "12");
		free(l1);
		free(l2);
	} else {
		html_text(pg, t, label);
	}
	if (ln->base) {
		html_attr(pg, t, "font-style", "italic");
		html_text(pg, t, " (baseline)");
	}
	html_el(pg, t, "title", label);
}

/* The box of @nv sorted values: whiskers at min and max, the quartiles'
 * box, the median bar and the mean's diamond.  A baseline is grey and
 * dashed. */
static void box_shape(struct page *pg, xmlNodePtr g, const struct scale *s, const struct lane *ln,
		      const double *sorted, size_t nv, double cy, const char *col)
{
	double q1 = pct_sorted(sorted, nv, 25), med = pct_sorted(sorted, nv, 50),
	       q3 = pct_sorted(sorted, nv, 75), mean;
	xmlNodePtr rect, l;

	html_svg_line(pg, g, html_sc(s, sorted[0]), cy, html_sc(s, q1), cy, "#555555");
	html_svg_line(pg, g, html_sc(s, q3), cy, html_sc(s, sorted[nv - 1]), cy, "#555555");
	html_svg_line(pg, g, html_sc(s, sorted[0]), cy - 5, html_sc(s, sorted[0]), cy + 5,
		      "#555555");
	html_svg_line(pg, g, html_sc(s, sorted[nv - 1]), cy - 5, html_sc(s, sorted[nv - 1]), cy + 5,
		      "#555555");
	rect = html_svg_rect(pg, g, html_sc(s, q1), cy - 9, html_sc(s, q3) - html_sc(s, q1), 18,
			     ln->base ? "#bbbbbb" : col);
	html_attr(pg, rect, "fill-opacity", ln->base ? "0.5" : "0.3");
	html_attr(pg, rect, "stroke", ln->base ? "#444444" : col);
	if (ln->base)
		html_attr(pg, rect, "stroke-dasharray", "4 2");
	l = html_svg_line(pg, g, html_sc(s, med), cy - 9, html_sc(s, med), cy + 9,
			  ln->base ? "#222222" : col);
	html_attr(pg, l, "stroke-width", "2.5");
	if (html_jnum(ln->summary, "mean", &mean)) {
		xmlNodePtr d = html_el(pg, g, "path", NULL);
		double mx = html_sc(s, mean);

		html_attrf(pg, d, "d", "M%.1f %.1fl4 4l-4 4l-4 -4z", mx, cy - 13);
		html_attr(pg, d, "fill", "#222222");
		html_el(pg, d, "title", "mean");
	}
}

/* A lane's box and one dot per boot (in the document's order); the
 * number of dots drawn. */
static size_t box_lane(struct page *pg, xmlNodePtr g, const struct scale *s, const struct lane *ln,
		       double cy, const char *col)
{
	double *v = calloc(json_array_size(ln->values) + 1, sizeof(*v)), *sorted;
	size_t nv = 0, k;
	json_t *e;

	if (!v) {
		pg->failed = true;
		return 0;
	}
	json_array_foreach(ln->values, k,
			   e) if (json_is_number(e) && isfinite(json_number_value(e)))
		v[nv++] = json_number_value(e);
	if (!nv) {
		html_svg_text(pg, g, s->p0 + 4, cy + 4, NULL, "no values");
		free(v);
		return 0;
	}
	sorted = calloc(nv, sizeof(*sorted));
	if (!sorted) {
		pg->failed = true;
		free(v);
		return 0;
	}
	memcpy(sorted, v, nv * sizeof(*v));
	qsort(sorted, nv, sizeof(*sorted), cmp_double);
	box_shape(pg, g, s, ln, sorted, nv, cy, col);
	for (k = 0; k < nv; k++) {
		xmlNodePtr c = html_el(pg, g, "circle", NULL);
		/* a fixed jitter so overlapping boots stay visible */
		double dy = (double)((k * 7) % 9) - 4;

		html_attr(pg, c, "class", "pt");
		html_attrf(pg, c, "cx", "%.1f", html_sc(s, v[k]));
		html_attrf(pg, c, "cy", "%.1f", cy + dy * 1.6);
		html_attr(pg, c, "r", "2.6");
		html_attr(pg, c, "fill", ln->base ? "#333333" : col);
		html_attr(pg, c, "fill-opacity", "0.8");
	}
	free(sorted);
	free(v);
	return nv;
}

/* Right of a compared lane, its row's change and verdict; "baseline"
 * right of a baseline's. */
static void box_verdict(struct page *pg, xmlNodePtr svg, const json_t *rows, size_t first,
			const struct lane *ln, double cy)
{
	const json_t *r0 = json_array_get(rows, first), *e;
	size_t k;

	if (ln->base) {
		html_svg_text(pg, svg, BOX_W - BOX_RIGHT_W + 8, cy + 4, NULL, "baseline");
		return;
	}
	json_array_foreach(rows, k, e)
	{
		const json_t *x = json_object_get(e, "x");
		double ch;

		if (k < first || !same_group(r0, e) ||
		    !html_same_str(html_jstr(x, "config"), ln->config) ||
		    !html_same_str(html_jstr(x, "campaign"), ln->campaign))
			continue;
		if (html_jnum(e, "change_pct", &ch)) {
			xmlNodePtr tt = html_svg_text(pg, svg, BOX_W - BOX_RIGHT_W + 8, cy + 4,
						      NULL, html_fmt_pct(ch).s);
			const char *vd = html_jstr(e, "verdict");

			if (json_is_true(json_object_get(e, "significant")))
				html_text(pg, tt, "*");
			if (vd) {
				html_text(pg, tt, " ");
				html_text(pg, tt, vd);
			}
			if (vd && !strcmp(vd, "worse"))
				html_attr(pg, tt, "fill", "#b3261e");
			else if (vd && !strcmp(vd, "better"))
				html_attr(pg, tt, "fill", "#116b2d");
		}
		break;
	}
}

/* The figures behind the boxes: a lane's summary per line. */
static void box_table(struct page *pg, xmlNodePtr fig, const struct lane *lanes, size_t n)
{
	xmlNodePtr tbody = html_header_row(pg, html_el(pg, fig, "table", NULL),
					   (const char *const[]){ "configuration", "n", "mean",
								  "median", "stddev", "CoV", "min",
								  "p25", "p75", "max", NULL });

	for (size_t i = 0; i < n; i++) {
		const json_t *su = lanes[i].summary;
		xmlNodePtr tr = html_el(pg, tbody, "tr", NULL), td = html_el(pg, tr, "td", NULL);
		char *label = html_side_label(pg, lanes[i].config, lanes[i].campaign);
		double cov;

		html_swatch(pg, td, html_cfg_colour(pg, lanes[i].config, lanes[i].campaign));
		html_text(pg, td, label ? label : "-");
		if (lanes[i].base)
			html_text(pg, td, " (baseline)");
		free(label);
		html_td_num(pg, tr, html_jfmt(su, "n").s);
		html_td_num(pg, tr, html_jfmt(su, "mean").s);
		html_td_num(pg, tr, html_jfmt(su, "median").s);
		html_td_num(pg, tr, html_jfmt(su, "stddev").s);
		/* cov is a fraction in the summary */
		if (html_jnum(su, "cov", &cov))
			html_elf(pg, tr, "td", "%.2f%%", fabs(cov) < 1e9 ? cov * 100 : 0);
		else
			html_td_num(pg, tr, "-");
		html_td_num(pg, tr, html_jfmt(su, "min").s);
		html_td_num(pg, tr, html_jfmt(su, "p25").s);
		html_td_num(pg, tr, html_jfmt(su, "p75").s);
		html_td_num(pg, tr, html_jfmt(su, "max").s);
	}
}

/* The box plot of the rows' group (workload, cell, metric) at @first:
 * a lane per configuration, then the table of their figures. */
static void box_chart(struct page *pg, xmlNodePtr parent, const json_t *rows, size_t first)
{
	const json_t *r0 = json_array_get(rows, first);
	size_t n, points = 0;
	struct lane *lanes = box_lanes(pg, rows, first, &n);
	double H = BOX_TOP + (double)n * BOX_LANE_H + 36;
	xmlNodePtr fig, svg, cap;
	struct scale s;

	if (pg->failed)
		return;
	box_scale(&s, lanes, n);
	fig = html_el(pg, parent, "figure", NULL);
	cap = html_el(pg, fig, "figcaption", NULL);
	html_elf(pg, cap, "span", "%s / %s: %s", html_orstr(html_jstr(r0, "workload")),
		 html_orstr(html_jstr(r0, "cell")), html_orstr(html_jstr(r0, "metric")));
	html_elf(pg, cap, "span", " (%s, %s is better)", html_orstr(html_jstr(r0, "unit")),
		 html_orstr(html_jstr(r0, "better")));
	svg = html_svg_root(pg, fig, "chart boxplot", BOX_W, H);
	html_attr(pg, svg, "data-mark", "box");
	html_attrf(pg, svg, "data-marks", "%zu", n);
	html_attrf(pg, svg, "data-metric", "%s", html_orstr(html_jstr(r0, "metric")));
	html_axis_x(pg, svg, &s, BOX_TOP, BOX_TOP + (double)n * BOX_LANE_H + 4,
		    html_jstr(r0, "unit"));
	for (size_t i = 0; i < n; i++) {
		const struct lane *ln = &lanes[i];
		double cy = BOX_TOP + (double)i * BOX_LANE_H + BOX_LANE_H / 2;
		char *label = html_side_label(pg, ln->config, ln->campaign);
		xmlNodePtr g;

		if (!label) {
			pg->failed = true;
			continue;
		}
		box_label(pg, svg, ln, label, cy);
		g = html_el(pg, svg, "g", NULL);
		html_attr(pg, g, "class", ln->base ? "box base" : "box");
		html_attr(pg, g, "data-config", html_orstr(ln->config));
		html_el(pg, g, "title", label);
		free(label);
		points += box_lane(pg, g, &s, ln, cy,
				   html_cfg_colour(pg, ln->config, ln->campaign));
		box_verdict(pg, svg, rows, first, ln, cy);
	}
	html_attrf(pg, svg, "data-points", "%zu", points);
	box_table(pg, fig, lanes, n);
	free(lanes);
}

/* A chart per group of @arr's elements (@chart given the group's first),
 * or @none when there are no elements. */
static void charts_by_group(struct page *pg, xmlNodePtr body, const json_t *arr,
			    bool (*same)(const json_t *a, const json_t *b),
			    void (*chart)(struct page *pg, xmlNodePtr parent, const json_t *arr,
					  size_t first),
			    const char *none)
{
	const json_t *e;
	size_t i;

	json_array_foreach(arr, i, e) if (first_of_group(arr, i, same)) chart(pg, body, arr, i);
	if (!json_array_size(arr))
		html_el(pg, body, "p", none);
}

void html_part_values(struct page *pg, xmlNodePtr body)
{
	html_section(pg, body, "values", "Per-boot values",
		     "One dot per boot; box = quartiles, bar = median, whiskers = min and max, "
		     "diamond = the mean the verdict uses. Baselines are grey and dashed.");
	charts_by_group(pg, body, json_object_get(pg->rep, "rows"), same_group, box_chart,
			"No rows.");
}

/* ---- latency CDFs from the merged histograms ---- */

static bool same_hist_group(const json_t *a, const json_t *b)
{
	return html_same_str(html_jstr(a, "cell"), html_jstr(b, "cell")) &&
	       html_same_str(html_jstr(a, "metric"), html_jstr(b, "metric"));
}

/* A CDF chart's geometry (px). */
#define CDF_W 640.0
#define CDF_H 330.0
#define CDF_LEFT 50.0
#define CDF_RIGHT 16.0
#define CDF_TOP 12.0
#define CDF_BOTTOM 44.0

/*
 * The histograms of the group at @first into @hs (one per entry, in
 * order; one that does not read is left empty and said why in a note
 * under @fig), and the x scale over the values they hold: logarithmic
 * when they span a factor of 10 or more.  The unit is the histograms'
 * own, else the document's.
 */
static const char *cdf_load(struct page *pg, xmlNodePtr fig, const json_t *hists, size_t first,
			    struct vtb_hist *hs, struct scale *sx)
{
	const json_t *h0 = json_array_get(hists, first), *e;
	double lo = INFINITY, hi = -INFINITY;
	const char *unit = NULL;
	xmlNodePtr notes = NULL;
	size_t i, n = 0;

	json_array_foreach(hists, i, e)
	{
		if (i < first || !same_hist_group(h0, e))
			continue;
		if (vtb_hist_from_json(&hs[n], json_object_get(e, "params"),
				       json_object_get(e, "buckets")) < 0) {
			if (!notes)
				notes = html_el(pg, fig, "p", NULL);
			html_attr(pg, notes, "class", "note");
			html_text(pg, notes, html_cfg_label(pg, html_jstr(e, "config"), NULL));
			html_text(pg, notes, ": ");
			html_text(pg, notes, vtb_errmsg());
			html_text(pg, notes, ". ");
			memset(&hs[n], 0, sizeof(hs[n]));
		} else if (hs[n].count) {
			lo = fmin(lo, (double)hs[n].min);
			hi = fmax(hi, (double)hs[n].max + 1);
			if (!unit)
				unit = hs[n].unit;
		}
		n++;
	}
	if (lo > 0 && hi / lo >= 10) {
		sx->log = true;
		sx->lo = log10(lo) - 0.05;
		sx->hi = log10(hi) + 0.05;
	} else {
		html_scale_lin(sx, lo, hi);
	}
	sx->p0 = CDF_LEFT;
	sx->p1 = CDF_W - CDF_RIGHT;
	return unit ? unit : html_jstr(h0, "unit");
}

/* The empty chart: the x axis, the y grid in quarters, the p99 line. */
static xmlNodePtr cdf_frame(struct page *pg, xmlNodePtr fig, const struct scale *sx,
			    const struct scale *sy, const char *unit)
{
	xmlNodePtr svg = html_svg_root(pg, fig, "chart cdfplot", CDF_W, CDF_H), l;
	double y;

	html_attr(pg, svg, "data-mark", "cdf");
	html_axis_x(pg, svg, sx, CDF_TOP, CDF_H - CDF_BOTTOM, unit);
	for (int k = 0; k <= 4; k++) {
		y = html_sc(sy, k / 4.0);
		html_attr(pg, html_svg_line(pg, svg, CDF_LEFT, y, CDF_W - CDF_RIGHT, y, "#eeeeee"),
			  "class", "grid");
		html_svg_text(pg, svg, CDF_LEFT - 4, y + 4, "end", html_fmt_num(k / 4.0).s);
	}
	y = html_sc(sy, 0.99);
	l = html_svg_line(pg, svg, CDF_LEFT, y, CDF_W - CDF_RIGHT, y, "#999999");
	html_attr(pg, l, "stroke-dasharray", "3 3");
	html_svg_text(pg, svg, CDF_W - CDF_RIGHT - 2, y - 3, "end", "p99");
	html_svg_text(pg, svg, 4, CDF_TOP + 8, NULL, "CDF");
	return svg;
}

/* One histogram's curve: a step at each bucket's last value (the curve
 * never claims a value below where its samples can be); dashed for a
 * baseline. */
static void cdf_line(struct page *pg, xmlNodePtr svg, const struct vtb_hist *h, const char *cfg,
		     const struct scale *sx, const struct scale *sy)
{
	struct vtb_strbuf pts = VTB_STRBUF_INIT;
	uint64_t cum = 0;
	xmlNodePtr pl;

	if (vtb_strbuf_addf(&pts, "%.1f,%.1f", html_sc(sx, (double)h->min), html_sc(sy, 0)))
		pg->failed = true;
	for (size_t b = 0; b < h->n_buckets; b++) {
		double x;

		if (!h->buckets[b])
			continue;
		cum += h->buckets[b];
		x = (double)vtb_hist_bucket_lo(h->bits, b) +
		    (double)(vtb_hist_bucket_width(h->bits, b) - 1);
		if (vtb_strbuf_addf(&pts, " %.1f,%.1f", html_sc(sx, x),
				    html_sc(sy, (double)cum / (double)h->count)))
			pg->failed = true;
	}
	pl = html_el(pg, svg, "polyline", NULL);
	html_attr(pg, pl, "class", "cdf");
	html_attr(pg, pl, "data-config", html_orstr(cfg));
	html_attr(pg, pl, "points", vtb_strbuf_str(&pts));
	html_attr(pg, pl, "fill", "none");
	html_attr(pg, pl, "stroke", html_cfg_colour(pg, cfg, NULL));
	html_attr(pg, pl, "stroke-width", "1.8");
	if (!strcmp(html_orstr(html_cfg_kind(pg, cfg)), "baseline"))
		html_attr(pg, pl, "stroke-dasharray", "6 3");
	html_el(pg, pl, "title", html_cfg_label(pg, cfg, NULL));
	vtb_strbuf_release(&pts);
}

/* One histogram's line of the table under the chart. */
static void cdf_row(struct page *pg, xmlNodePtr tbody, const struct vtb_hist *h, const char *cfg)
{
	xmlNodePtr tr = html_el(pg, tbody, "tr", NULL), td = html_el(pg, tr, "td", NULL);

	html_swatch(pg, td, html_cfg_colour(pg, cfg, NULL));
	html_text(pg, td, html_cfg_label(pg, cfg, NULL));
	html_td_num(pg, tr, html_fmt_num((double)h->count).s);
	html_td_num(pg, tr, html_fmt_num((double)vtb_hist_percentile(h, 50)).s);
	html_td_num(pg, tr, html_fmt_num((double)vtb_hist_percentile(h, 90)).s);
	html_td_num(pg, tr, html_fmt_num((double)vtb_hist_percentile(h, 99)).s);
	html_td_num(pg, tr, html_fmt_num((double)vtb_hist_percentile(h, 99.9)).s);
	html_td_num(pg, tr, html_fmt_num((double)h->max).s);
	html_td_num(pg, tr, html_fmt_num(vtb_hist_mean(h)).s);
}

/* The CDFs of the histograms' group (cell, metric) at @first, one line
 * per histogram that holds samples, and their percentiles. */
static void cdf_chart(struct page *pg, xmlNodePtr parent, const json_t *hists, size_t first)
{
	const json_t *h0 = json_array_get(hists, first), *e;
	struct scale sx, sy = { .lo = 0, .hi = 1, .p0 = CDF_H - CDF_BOTTOM, .p1 = CDF_TOP };
	struct vtb_hist *hs = NULL;
	size_t n = 0, i, drawn = 0;
	xmlNodePtr fig, svg, tbody;
	const char *unit;

	json_array_foreach(hists, i, e) if (i >= first && same_hist_group(h0, e)) n++;
	hs = calloc(n + 1, sizeof(*hs));
	if (!hs) {
		pg->failed = true;
		return;
	}
	fig = html_el(pg, parent, "figure", NULL);
	html_elf(pg, html_el(pg, fig, "figcaption", NULL), "span", "%s: %s",
		 html_orstr(html_jstr(h0, "cell")), html_orstr(html_jstr(h0, "metric")));
	unit = cdf_load(pg, fig, hists, first, hs, &sx);
	svg = cdf_frame(pg, fig, &sx, &sy, unit);
	tbody = html_header_row(pg, html_el(pg, fig, "table", NULL),
				(const char *const[]){ "configuration", "samples", "p50", "p90",
						       "p99", "p99.9", "max", "mean", NULL });
	n = 0;
	json_array_foreach(hists, i, e)
	{
		const struct vtb_hist *h;

		if (i < first || !same_hist_group(h0, e))
			continue;
		h = &hs[n++];
		if (!h->count)
			continue;
		cdf_line(pg, svg, h, html_jstr(e, "config"), &sx, &sy);
		cdf_row(pg, tbody, h, html_jstr(e, "config"));
		drawn++;
	}
	html_attrf(pg, svg, "data-marks", "%zu", drawn);
	for (i = 0; i < n; i++)
		vtb_hist_release(&hs[i]);
	free(hs);
}

void html_part_cdfs(struct page *pg, xmlNodePtr body)
{
	html_section(pg, body, "cdf", "Latency CDFs",
		     "Merged histograms of all boots per configuration (display only: the verdicts "
		     "test per-boot values). Baselines dashed.");
	charts_by_group(pg, body, json_object_get(pg->rep, "histograms"), same_hist_group,
			cdf_chart, "No latency histograms.");
}
