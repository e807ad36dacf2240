/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's core-to-core section: each c2c matrix as a heat map
 * (data-mark "cell", n x n), a guest's beside its host baseline's on one
 * colour scale.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "html.h"

/* YlOrRd-like ramp, @t in [0, 1]. */
static void ramp(double t, char out[8])
{
	static const double stops[][3] = {
		{ 255, 255, 204 }, { 254, 178, 76 }, { 240, 59, 32 }, { 128, 0, 38 }
	};
	double seg, f;
	int i;

	if (!isfinite(t) || t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	seg = t * 3;
	i = seg >= 3 ? 2 : (int)seg;
	f = seg - i;
	snprintf(out, 8, "#%02x%02x%02x",
		 (unsigned)lround(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
		 (unsigned)lround(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])),
		 (unsigned)lround(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
}

/* The matrix is usable when it is n arrays of n entries, n = |cpus|. */
static bool matrix_ok(const json_t *c2c)
{
	const json_t *cpus = json_object_get(c2c, "cpus"), *m = json_object_get(c2c, "matrix_ns");
	size_t n = json_array_size(cpus);

	if (!json_is_array(cpus) || !json_is_array(m) || json_array_size(m) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (json_array_size(json_array_get(m, i)) != n)
			return false;
	return true;
}

static void range_of(const json_t *c2c, double *lo, double *hi)
{
	const json_t *m = json_object_get(c2c, "matrix_ns"), *row, *v;
	size_t i, j;

	if (!matrix_ok(c2c))
		return;
	json_array_foreach(m, i, row)
		json_array_foreach(row, j, v) if (i != j && json_is_number(v) &&
						  isfinite(json_number_value(v)))
	{
		*lo = fmin(*lo, json_number_value(v));
		*hi = fmax(*hi, json_number_value(v));
	}
}

static void heatmap(struct page *pg, xmlNodePtr parent, const json_t *c2c, double lo, double hi,
		    const char *role)
{
	const json_t *cpus = json_object_get(c2c, "cpus"), *m = json_object_get(c2c, "matrix_ns");
	const char *cfg = html_jstr(c2c, "config");
	size_t n = matrix_ok(c2c) ? json_array_size(cpus) : 0, i, j;
	double cs = n ? fmin(40, fmax(3, 400.0 / (double)n)) : 40, margin = cs >= 12 ? 34 : 8;
	double W = margin + cs * (double)n + 8, H = margin + cs * (double)n + 8;
	xmlNodePtr fig, cap, svg;

	fig = html_el(pg, parent, "figure", NULL);
	cap = html_el(pg, fig, "figcaption", NULL);
	html_swatch(pg, cap, html_cfg_colour(pg, cfg, NULL));
	html_text(pg, cap, html_cfg_label(pg, cfg, NULL));
	html_text(pg, cap, role);
	if (!n)
		html_el(pg, fig, "p", "no usable matrix (expected one row of n values per CPU)");
	svg = html_svg_root(pg, fig, "chart heatmap", W < 120 ? 120 : W, H);
	html_attr(pg, svg, "data-mark", "cell");
	html_attrf(pg, svg, "data-marks", "%zu", n * n);
	html_attrf(pg, svg, "data-cpus", "%zu", n);
	for (i = 0; i < n && cs >= 12; i++) {
		char *l = html_jtext(json_array_get(cpus, i));

		html_svg_text(pg, svg, margin + cs * ((double)i + 0.5), margin - 6, "middle",
			      l ? l : "?");
		html_svg_text(pg, svg, margin - 5, margin + cs * ((double)i + 0.5) + 4, "end",
			      l ? l : "?");
		free(l);
	}
	for (i = 0; i < n; i++) {
		const json_t *row = json_array_get(m, i);

		for (j = 0; j < n; j++) {
			const json_t *v = json_array_get(row, j);
			bool have = json_is_number(v) && isfinite(json_number_value(v));
			double d = have ? json_number_value(v) : NAN, t;
			char fill[8];
			xmlNodePtr r;

			t = hi > lo ? (d - lo) / (hi - lo) : 0.5;
			ramp(t, fill);
			r = html_svg_rect(pg, svg, margin + cs * (double)j, margin + cs * (double)i,
					  cs, cs, have && i != j ? fill : "#eeeeee");
			html_attr(pg, r, "class", have && i != j ? "cell" : "cell na");
			html_attr(pg, r, "stroke", "#ffffff");
			html_attr(pg, r, "stroke-width", cs >= 12 ? "1" : "0");
			if (n <= 64) {
				char *a = html_jtext(json_array_get(cpus, i)),
				     *b = html_jtext(json_array_get(cpus, j));
				char *tt = vtb_asprintf("cpu %s - cpu %s: %s ns", a ? a : "?",
							b ? b : "?",
							have ? html_fmt_num(d).s : "not measured");

				if (!tt)
					pg->failed = true;
				else
					html_el(pg, r, "title", tt);
				free(a);
				free(b);
				free(tt);
			}
			if (have && i != j && cs >= 30) {
				xmlNodePtr tx = html_svg_text(pg, svg,
							      margin + cs * ((double)j + 0.5),
							      margin + cs * ((double)i + 0.5) + 4,
							      "middle", html_fmt_num(d).s);

				html_attr(pg, tx, "font-size", "10");
				if (t > 0.55)
					html_attr(pg, tx, "style", "fill:#ffffff");
			}
		}
	}
}

void html_part_c2c(struct page *pg, xmlNodePtr body)
{
	json_t *c2c = json_object_get(pg->rep, "c2c"), *rows = json_object_get(pg->rep, "rows");
	json_t *e, *f, *r;
	size_t i, k, n = json_array_size(c2c);
	bool *done;

	html_section(pg, body, "c2c", "Core-to-core latency",
		     "Round trip of one cache line between each pair of CPUs (ns, mean over boots); "
		     "each guest beside its host baseline on one colour scale. Grey: not measured.");
	if (!n) {
		html_el(pg, body, "p", "No c2c matrices.");
		return;
	}
	done = calloc(n, sizeof(*done));
	if (!done) {
		pg->failed = true;
		return;
	}
	/* each VM's matrix, then its baseline's (from the rows that compare
	 * them in that cell), then whatever is left alone */
	for (int pass = 0; pass < 2; pass++) {
		json_array_foreach(c2c, i, e)
		{
			const char *cfg = html_jstr(e, "config"), *cell = html_jstr(e, "cell");
			const char *kind = html_cfg_kind(pg, cfg);
			long partner = -1;
			double lo = INFINITY, hi = -INFINITY;
			xmlNodePtr block, pair;

			if (done[i] || (pass == 0 && (!kind || strcmp(kind, "vm"))))
				continue;
			json_array_foreach(rows, k, r)
			{
				const char *bcfg = html_jstr(json_object_get(r, "base"), "config");
				size_t m;

				if (pass || !html_same_str(html_jstr(r, "cell"), cell) ||
				    !html_same_str(html_jstr(json_object_get(r, "x"), "config"),
						   cfg) ||
				    !bcfg)
					continue;
				json_array_foreach(c2c, m,
						   f) if (!done[m] && m != i &&
							  html_same_str(html_jstr(f, "cell"),
									cell) &&
							  html_same_str(html_jstr(f, "config"),
									bcfg)) partner = (long)m;
				if (partner >= 0)
					break;
			}
			range_of(e, &lo, &hi);
			if (partner >= 0)
				range_of(json_array_get(c2c, (size_t)partner), &lo, &hi);
			block = html_el(pg, body, "div", NULL);
			html_attr(pg, block, "class", "c2c");
			html_el(pg, block, "h3", html_orstr(cell));
			pair = html_el(pg, block, "div", NULL);
			html_attr(pg, pair, "class", "pair");
			heatmap(pg, pair, e, lo, hi,
				kind && !strcmp(kind, "vm") ? " (guest)" : " (host)");
			done[i] = true;
			if (partner >= 0) {
				heatmap(pg, pair, json_array_get(c2c, (size_t)partner), lo, hi,
					" (host)");
				done[partner] = true;
			}
			if (isfinite(lo) && isfinite(hi)) {
				xmlNodePtr key = html_el(pg, block, "p", NULL), sw;
				char fill[8];

				html_attr(pg, key, "class", "note");
				html_text(pg, key, "scale: ");
				for (int s = 0; s <= 4; s++) {
					ramp(s / 4.0, fill);
					sw = html_el(pg, key, "span", "");
					html_attr(pg, sw, "class", "swatch");
					html_attrf(pg, sw, "style", "background:%s", fill);
					html_elf(pg, key, "span", "%s  ",
						 html_fmt_num(lo + (hi - lo) * s / 4.0).s);
				}
				html_text(pg, key, "ns");
			}
		}
	}
	free(done);
}
