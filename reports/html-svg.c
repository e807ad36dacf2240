/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's SVG toolkit (html.h): primitives, scales and the
 * axes with their unit chosen for the values.  Coordinates are written with
 * one decimal.
 */
#include <math.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "html.h"

/* An <svg> root with its own default namespace (children need none). */
xmlNodePtr html_svg_root(struct page *pg, xmlNodePtr parent, const char *cls, double w, double h)
{
	xmlNodePtr s = html_el(pg, parent, "svg", NULL);

	if (s && !xmlNewNs(s, X(SVG_NS), NULL))
		pg->failed = true;
	html_attr(pg, s, "class", cls);
	html_attrf(pg, s, "width", "%.0f", w);
	html_attrf(pg, s, "height", "%.0f", h);
	html_attrf(pg, s, "viewBox", "0 0 %.0f %.0f", w, h);
	return s;
}

xmlNodePtr html_svg_text(struct page *pg, xmlNodePtr parent, double x, double y, const char *anchor,
			 const char *s)
{
	xmlNodePtr t = html_el(pg, parent, "text", s);

	html_attrf(pg, t, "x", "%.1f", x);
	html_attrf(pg, t, "y", "%.1f", y);
	if (anchor)
		html_attr(pg, t, "text-anchor", anchor);
	return t;
}

xmlNodePtr html_svg_line(struct page *pg, xmlNodePtr parent, double x1, double y1, double x2,
			 double y2, const char *stroke)
{
	xmlNodePtr l = html_el(pg, parent, "line", NULL);

	html_attrf(pg, l, "x1", "%.1f", x1);
	html_attrf(pg, l, "y1", "%.1f", y1);
	html_attrf(pg, l, "x2", "%.1f", x2);
	html_attrf(pg, l, "y2", "%.1f", y2);
	html_attr(pg, l, "stroke", stroke);
	return l;
}

xmlNodePtr html_svg_rect(struct page *pg, xmlNodePtr parent, double x, double y, double w, double h,
			 const char *fill)
{
	xmlNodePtr r = html_el(pg, parent, "rect", NULL);

	html_attrf(pg, r, "x", "%.1f", x);
	html_attrf(pg, r, "y", "%.1f", y);
	html_attrf(pg, r, "width", "%.1f", w > 0 ? w : 0);
	html_attrf(pg, r, "height", "%.1f", h > 0 ? h : 0);
	html_attr(pg, r, "fill", fill);
	return r;
}

/* ---- scales ---- */

static double nice_step(double range, int target)
{
	double raw = range / target, mag, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

double html_sc(const struct scale *s, double v)
{
	double a = s->lo, b = s->hi, t;

	if (s->log) {
		v = v > 0 ? log10(v) : a;
	}
	t = b > a ? (v - a) / (b - a) : 0.5;
	if (!isfinite(t))
		t = 0;
	if (t < -0.05)
		t = -0.05;
	if (t > 1.05)
		t = 1.05;
	return s->p0 + t * (s->p1 - s->p0);
}

/* A linear domain around [lo, hi] with some room. */
void html_scale_lin(struct scale *s, double lo, double hi)
{
	double pad;

	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi <= lo) {
		pad = fabs(lo) > 0 ? fabs(lo) * 0.05 : 1;
		lo -= pad;
		hi += pad;
	}
	pad = (hi - lo) * 0.06;
	s->lo = lo - pad;
	s->hi = hi + pad;
	s->log = false;
}

/*
 * Axis labels in a readable unit: a time in ns, us or ms shown in the
 * largest of ns, Âµs, ms, s that keeps @maxabs at 1 or more, a size in
 * bytes in B, KiB, MiB, GiB, TiB; other units as they are.  *div divides
 * a value into the unit shown.
 */
static const char *unit_for(const char *unit, double maxabs, double *div)
{
	static const struct {
		const char *name, *shown;
		double f; /* in the family's base unit */
		int family;
	} u[] = {
		{ "ns", "ns", 1, 1 },
		{ "us", "\xc2\xb5s", 1e3, 1 },
		{ "\xc2\xb5s", "\xc2\xb5s", 1e3, 1 },
		{ "ms", "ms", 1e6, 1 },
		{ "s", "s", 1e9, 1 },
		{ "B", "B", 1, 2 },
		{ "bytes", "B", 1, 2 },
		{ "KiB", "KiB", 1024, 2 },
		{ "MiB", "MiB", 1048576, 2 },
		{ "GiB", "GiB", 1073741824.0, 2 },
		{ "TiB", "TiB", 1099511627776.0, 2 },
	};
	size_t i, k, best;

	*div = 1;
	for (i = 0; unit && i < sizeof(u) / sizeof(u[0]) && strcmp(u[i].name, unit); i++)
		;
	if (!unit || i == sizeof(u) / sizeof(u[0]) || !isfinite(maxabs) || maxabs <= 0)
		return unit;
	best = i;
	for (k = 0; k < sizeof(u) / sizeof(u[0]); k++)
		if (u[k].family == u[i].family && maxabs * u[i].f / u[k].f >= 1 &&
		    (maxabs * u[i].f / u[best].f < 1 || u[k].f > u[best].f))
			best = k;
	*div = u[best].f / u[i].f;
	return u[best].shown;
}

/* Vertical grid lines with labels under the plot (x axis at @y), in a
 * readable unit (unit_for). */
void html_axis_x(struct page *pg, xmlNodePtr svg, const struct scale *s, double top, double y,
		 const char *unit)
{
	xmlNodePtr g = html_el(pg, svg, "g", NULL);
	double div = 1;

	unit = unit_for(unit, s->log ? pow(10, s->hi) : fmax(fabs(s->lo), fabs(s->hi)), &div);

	html_attr(pg, g, "class", "axis");
	html_svg_line(pg, g, s->p0, y, s->p1, y, "#888888");
	if (s->log) {
		double d0 = floor(s->lo), d1 = ceil(s->hi);
		bool fine = d1 - d0 <= 3;

		for (double d = d0; d <= d1 && d - d0 < 40; d++) {
			for (int m = 1; m <= 5; m += (fine ? (m == 1 ? 1 : 3) : 10)) {
				double v = m * pow(10, d), x;

				if (log10(v) < s->lo || log10(v) > s->hi)
					continue;
				x = html_sc(s, v);
				html_attr(pg, html_svg_line(pg, g, x, top, x, y, "#eeeeee"),
					  "class", "grid");
				html_svg_text(pg, g, x, y + 14, "middle", html_fmt_num(v / div).s);
			}
		}
	} else {
		/* steps nice in the unit shown */
		double step = nice_step((s->hi - s->lo) / div, 6) * div;
		double v = ceil(s->lo / step) * step;

		for (int k = 0; v <= s->hi && k < 30; k++, v += step) {
			double x = html_sc(s, v);

			html_attr(pg, html_svg_line(pg, g, x, top, x, y, "#eeeeee"), "class",
				  "grid");
			html_svg_text(pg, g, x, y + 14, "middle",
				      html_fmt_num(fabs(v) < step * 1e-9 ? 0 : v / div).s);
		}
	}
	html_svg_text(pg, g, s->p1, y + 28, "end", html_orstr(unit));
}

/* Horizontal grid lines from @left to @right with labels left of @left
 * and the unit above them, in a readable unit (unit_for); the unit's
 * text has class "unit". */
void html_axis_y(struct page *pg, xmlNodePtr svg, const struct scale *s, double left, double right,
		 const char *unit)
{
	xmlNodePtr g = html_el(pg, svg, "g", NULL);
	double div = 1, step, v, top = fmin(s->p0, s->p1);

	unit = unit_for(unit, fmax(fabs(s->lo), fabs(s->hi)), &div);
	html_attr(pg, g, "class", "axis");
	html_svg_line(pg, g, left, s->p0, left, s->p1, "#888888");
	step = nice_step((s->hi - s->lo) / div, 5) * div;
	v = ceil(s->lo / step) * step;
	for (int k = 0; v <= s->hi && k < 30; k++, v += step) {
		double y = html_sc(s, v);

		html_attr(pg, html_svg_line(pg, g, left, y, right, y, "#eeeeee"), "class", "grid");
		html_svg_text(pg, g, left - 6, y + 4, "end",
			      html_fmt_num(fabs(v) < step * 1e-9 ? 0 : v / div).s);
	}
	html_attr(pg, html_svg_text(pg, g, left - 6, top - 6, "end", html_orstr(unit)), "class",
		  "unit");
}
