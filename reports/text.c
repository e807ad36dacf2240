/* SPDX-License-Identifier: MIT */
/*
 * The text report (report.h): the answer first, then per workload, cell
 * and baseline a table of the metrics (split by columns to fit the
 * width), then the details and the per-configuration summaries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "report.h"

/* What a table's key columns are cut to at most: a metric name (with
 * its direction) and a unit; a configuration, cell and metric of the
 * per-configuration summaries. */
#define METRIC_MIN 12
#define UNIT_MIN 8
#define KEY_MIN 8
/* The widest column of figures: line 2 of a compared cell at its widest
 * ("n=-1.23e+308 cov -1.23e+308% ci -1.23e+308%..-1.23e+308% noisy");
 * line 1 is at most 43, a head 28 ("c" and 20 digits, " (base)"). */
#define FIGURES_MAX 62

_Static_assert(METRIC_MIN + 2 + UNIT_MIN + 2 + FIGURES_MAX == VTB_REPORT_TABLE_COLUMNS,
	       "a table of one column is at most VTB_REPORT_TABLE_COLUMNS wide");
_Static_assert(4 * (KEY_MIN + 2) + 11 <= VTB_REPORT_TABLE_COLUMNS,
	       "the per-configuration summaries fit VTB_REPORT_TABLE_COLUMNS");

/* The pieces of one table cell, aligned across the column. */
struct tcell {
	const char *val, *pct, *verd, *n, *cov, *ci;
};

struct tcol {
	size_t wv, wp, wd, wn, wc, wci, w;
	const char *head;
};

static void tcell_fill(struct ctx *c, struct tcell *t, const struct rrow *r, bool base,
		       const struct rrow *line)
{
	memset(t, 0, sizeof(*t));
	if (!r) {
		t->val = "-";
		t->pct = t->verd = t->n = t->cov = t->ci = "";
		return;
	}
	if (base) {
		t->val = rep_num(c, r->base.mean);
		t->n = rep_n_s(c, r->base.n);
		t->cov = rep_cov_s(c, r->base.cov);
		t->pct = t->verd = t->ci = "";
		return;
	}
	t->val = rep_num(c, rep_x_mean(r, line));
	t->pct = isnan(r->change) ? ""
				  : rep_fmt(c, "(%s)%s", rep_pctv(c, r->change), r->sig ? "*" : "");
	t->verd = r->vshort;
	t->n = rep_n_s(c, r->x.n);
	t->cov = rep_cov_s(c, r->x.cov);
	t->ci = r->noisy ? rep_fmt(c, "%s noisy", rep_ci_s(c, r)) : rep_ci_s(c, r);
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static void tcol_fit(struct tcol *k, const struct tcell *t)
{
	k->wv = max_sz(k->wv, rep_width(t->val));
	k->wp = max_sz(k->wp, rep_width(t->pct));
	k->wd = max_sz(k->wd, rep_width(t->verd));
	k->wn = max_sz(k->wn, rep_width(t->n));
	k->wc = max_sz(k->wc, rep_width(t->cov));
	k->wci = max_sz(k->wci, rep_width(t->ci));
}

static void tcol_close(struct tcol *k)
{
	size_t l1 = k->wv + (k->wp ? 1 + k->wp : 0) + (k->wd ? 1 + k->wd : 0);
	size_t l2 = k->wn + (k->wc ? 1 + k->wc : 0) + (k->wci ? 1 + k->wci : 0);

	k->w = max_sz(max_sz(l1, l2), rep_width(k->head));
}

/* Adds @s to @sb, padded to @w columns. */
static void sb_pad(struct vtb_strbuf *sb, const char *s, size_t w, bool right, bool *err)
{
	size_t n = rep_width(s);

	if (right)
		for (; n < w; n++)
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
	*err |= vtb_strbuf_addstr(sb, s) < 0;
	if (!right)
		for (; n < w; n++)
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
}

/* One line (1 or 2) of a cell, padded to its column. */
static void tcell_put(struct vtb_strbuf *sb, const struct tcell *t, const struct tcol *k, int line,
		      bool *err)
{
	size_t start = sb->len;

	if (line == 1) {
		sb_pad(sb, t->val, k->wv, true, err);
		if (k->wp) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->pct, k->wp, false, err);
		}
		if (k->wd) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->verd, k->wd, false, err);
		}
	} else {
		sb_pad(sb, t->n, k->wn, false, err);
		if (k->wc) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->cov, k->wc, false, err);
		}
		if (k->wci) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->ci, k->wci, false, err);
		}
	}
	for (size_t n = sb->len - start; n < k->w; n++)
		*err |= vtb_strbuf_add(sb, " ", 1) < 0;
}

/* Prints @sb without its trailing blanks and empties it. */
static void put_line(struct ctx *c, struct vtb_strbuf *sb)
{
	size_t n = sb->len;

	while (n && sb->buf[n - 1] == ' ')
		n--;
	fprintf(c->f, "%.*s\n", (int)n, n ? sb->buf : "");
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

/*
 * The table's columns @from..@to-1 (0 is the baseline's, x + 1 compared
 * configuration x's), after the metric and unit and, with @base, the
 * baseline's.
 */
static void text_chunk(struct ctx *c, const struct rgroup *g, const struct tcell *cells,
		       const struct tcol *cols, bool base, size_t from, size_t to, size_t wm,
		       size_t wu, const char *const *mlab, const char *const *ulab)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t nc = g->nx + 1, m, x;
	bool err = false;

	sb_pad(&sb, "metric", wm, false, &err);
	err |= vtb_strbuf_addstr(&sb, "  ") < 0;
	sb_pad(&sb, "unit", wu, false, &err);
	for (x = 0; x < nc; x++) {
		if (!(x == 0 && base) && (x < from || x >= to))
			continue;
		err |= vtb_strbuf_addstr(&sb, "  ") < 0;
		sb_pad(&sb, cols[x].head, cols[x].w, false, &err);
	}
	put_line(c, &sb);
	for (m = 0; m < g->nm; m++) {
		for (int line = 1; line <= 2; line++) {
			sb_pad(&sb, line == 1 ? mlab[m] : "", wm, false, &err);
			err |= vtb_strbuf_addstr(&sb, "  ") < 0;
			sb_pad(&sb, line == 1 ? ulab[m] : "", wu, false, &err);
			for (x = 0; x < nc; x++) {
				if (!(x == 0 && base) && (x < from || x >= to))
					continue;
				err |= vtb_strbuf_addstr(&sb, "  ") < 0;
				tcell_put(&sb, &cells[m * nc + x], &cols[x], line, &err);
			}
			put_line(c, &sb);
		}
	}
	vtb_strbuf_release(&sb);
	if (err)
		c->oom = true;
}

/* @w less @over, but not below @min (nor above @w): a cut that cannot
 * wrap below zero. */
static size_t shrink(size_t w, size_t over, size_t min)
{
	if (w <= min)
		return w;
	return w - min > over ? w - over : min;
}

/* How far @need goes past @cols (0 when it fits). */
static size_t past(size_t need, size_t cols)
{
	return need > cols ? need - cols : 0;
}

/*
 * A table of the metrics (rows) by configurations (columns), split into
 * as many tables as the width needs, each with at least one column, so
 * every pass makes progress.  Narrower, the layout gives up what it must:
 * the baseline's column beside each compared one, when even the metric
 * and unit cut as far as they go leave no room for both (it is then the
 * first column of the first table); then as much of the metric names as
 * a table of one column needs (down to METRIC_MIN columns, with '~'),
 * then of the units (down to UNIT_MIN).  A table of one column still
 * wider than the width is as narrow as it can be: at most
 * VTB_REPORT_TABLE_COLUMNS, as figures have a bounded width (prose.c).
 * Widths are sizes: every difference goes through past() or shrink(),
 * which cannot wrap below zero (the old cut did, and padded forever).
 */
static void text_table(struct ctx *c, const struct rgroup *g)
{
	size_t nc = g->nx + 1, m, x, wm = strlen("metric"), wu = strlen("unit"), fig = 0, one, left;
	struct tcell *cells = calloc(g->nm * nc, sizeof(*cells));
	struct tcol *cols = calloc(nc, sizeof(*cols));
	const char **mlab = calloc(g->nm, sizeof(*mlab));
	const char **ulab = calloc(g->nm, sizeof(*ulab));
	bool base;

	if (!cells || !cols || !mlab || !ulab) {
		c->oom = true;
		goto out;
	}
	fputc('\n', c->f);
	rep_put_folded(c, "", rep_group_title(c, g));
	cols[0].head = rep_fmt(c, "%s (base)", g->base->name);
	for (x = 0; x < g->nx; x++)
		cols[x + 1].head = g->xs[x]->name;
	for (m = 0; m < g->nm; m++) {
		mlab[m] = rep_metric_s(c, g->mrow[m]);
		ulab[m] = rep_show(c, g->mrow[m]->unit, REP_NAME_MAX);
		wm = max_sz(wm, rep_width(mlab[m]));
		wu = max_sz(wu, rep_width(ulab[m]));
		tcell_fill(c, &cells[m * nc], g->mrow[m], true, NULL);
		tcol_fit(&cols[0], &cells[m * nc]);
		for (x = 0; x < g->nx; x++) {
			tcell_fill(c, &cells[m * nc + x + 1], g->cells[m * g->nx + x], false,
				   g->mrow[m]);
			tcol_fit(&cols[x + 1], &cells[m * nc + x + 1]);
		}
	}
	for (x = 0; x < nc; x++)
		tcol_close(&cols[x]);
	for (x = 1; x < nc; x++)
		fig = max_sz(fig, cols[x].w);
	/* the baseline beside each compared column when both fit beside the
	 * metric and unit cut as far as they go */
	base = nc > 1 &&
	       min_sz(wm, METRIC_MIN) + 2 + min_sz(wu, UNIT_MIN) + 2 + cols[0].w + 2 + fig <=
		       c->cols;
	one = base ? cols[0].w + 2 + fig : max_sz(cols[0].w, fig);
	wm = shrink(wm, past(wm + 2 + wu + 2 + one, c->cols), METRIC_MIN);
	wu = shrink(wu, past(wm + 2 + wu + 2 + one, c->cols), UNIT_MIN);
	for (m = 0; m < g->nm; m++) {
		mlab[m] = rep_cut(c, mlab[m], wm);
		ulab[m] = rep_cut(c, ulab[m], wu);
	}
	/* as many columns per table as fit in c->cols, at least one */
	left = wm + 2 + wu + (base ? 2 + cols[0].w : 0);
	for (size_t from = base ? 1 : 0; from < nc;) {
		size_t to = from + 1, w = left + 2 + cols[from].w;

		while (to < nc && w + 2 + cols[to].w <= c->cols)
			w += 2 + cols[to++].w;
		if (from > (base ? 1 : 0))
			fputc('\n', c->f);
		text_chunk(c, g, cells, cols, base, from, to, wm, wu, mlab, ulab);
		from = to;
	}
out:
	free(cells);
	free(cols);
	free(mlab);
	free(ulab);
}

static const char *or_s(const char *s, const char *none)
{
	return s ? s : none;
}

/* A count ("5") or, with @pct, a share as a percentage ("1.22%"), "-"
 * for none: 3 significant digits from a million on, so that a figure's
 * width is bounded. */
static const char *fig_s(struct ctx *c, double v, bool pct)
{
	if (isnan(v))
		return "-";
	if (pct)
		return fabs(v * 100) >= 1e6 ? rep_fmt(c, "%.3g%%", v * 100)
					    : rep_fmt(c, "%.2f%%", v * 100);
	return fabs(v) >= 1e6 ? rep_fmt(c, "%.3g", v) : rep_fmt(c, "%.0f", v);
}

/*
 * Per configuration, cell and metric: the summary of its per-boot values
 * ("series"), whether or not it takes part in a comparison (a campaign
 * of baselines alone has no comparison rows).  Text only.  Configurations
 * by their names (c1...); the first NKEY columns are repeated in each
 * part when the figures do not fit c->cols.
 */
static void put_series(struct ctx *c)
{
	static const char *const head[] = { "config", "cell",	"metric", "unit", "n",	"mean",
					    "median", "stddev", "cov",	  "min",  "max" };
	enum { NCOL = 11, NKEY = 4 };
	static const size_t cut_order[] = { 2, 1, 3, 0 };
	size_t n = c->src->series ? c->src->nseries : 0, i, k, w[NCOL], keyw = 0, widest = 0;
	const char **cells;
	/* per series: its boots set aside (held) and its metric as shown */
	json_t **asides;
	const char **metrics;

	if (!n)
		return;
	cells = calloc(n * NCOL, sizeof(*cells));
	asides = calloc(n, sizeof(*asides));
	metrics = calloc(n, sizeof(*metrics));
	if (!cells || !asides || !metrics) {
		c->oom = true;
		goto out;
	}
	for (k = 0; k < NCOL; k++)
		w[k] = rep_width(head[k]);
	for (i = 0; i < n; i++) {
		json_t *o = c->src->series(c->src->src, i);
		const json_t *sm = json_object_get(o, "summary"), *a;
		const char **r = &cells[i * NCOL];
		const char *better = rep_jstr(o, "better");
		const struct rcfg *g = rep_cfg_of(c, rep_jstr(o, "config"),
						  rep_jstr(c->camp, "uuid"));

		r[0] = g ? g->name : rep_show(c, or_s(rep_jstr(o, "label"), "?"), REP_NAME_MAX);
		r[1] = rep_show(c, or_s(rep_jstr(o, "cell"), "?"), REP_NAME_MAX);
		r[2] = rep_fmt(c, "%s %s",
			       rep_show(c, or_s(rep_jstr(o, "metric"), "?"), REP_NAME_MAX),
			       better && !strcmp(better, "higher") ? "(+)" : "(-)");
		r[3] = rep_show(c, or_s(rep_jstr(o, "unit"), ""), REP_NAME_MAX);
		r[4] = fig_s(c, rep_jnumv(sm, "n"), false);
		r[5] = rep_num(c, rep_jnumv(sm, "mean"));
		r[6] = rep_num(c, rep_jnumv(sm, "median"));
		r[7] = rep_num(c, rep_jnumv(sm, "stddev"));
		r[8] = fig_s(c, rep_jnumv(sm, "cov"), true);
		r[9] = rep_num(c, rep_jnumv(sm, "min"));
		r[10] = rep_num(c, rep_jnumv(sm, "max"));
		for (k = 0; k < NCOL; k++)
			if (r[k] && rep_width(r[k]) > w[k])
				w[k] = rep_width(r[k]);
		a = json_object_get(o, "set_aside");
		if (json_array_size(a)) {
			asides[i] = json_incref((json_t *)a);
			metrics[i] = rep_show(c, or_s(rep_jstr(o, "metric"), "?"), REP_NAME_MAX);
		}
		if (!o)
			c->oom = true;
		json_decref(o);
	}
	for (k = 0; k < NCOL; k++) {
		if (k < NKEY)
			keyw += w[k] + 2;
		else
			widest = max_sz(widest, w[k]);
	}
	/* metrics, cells, units, then configurations cut when the keys and
	 * one figure do not fit */
	for (size_t j = 0; j < VTB_ARRAY_SIZE(cut_order) && keyw + widest > c->cols; j++) {
		size_t nw = shrink(w[k = cut_order[j]], keyw + widest - c->cols, KEY_MIN);

		keyw -= w[k] - nw;
		w[k] = nw;
		for (i = 0; i < n; i++)
			cells[i * NCOL + k] = rep_cut(c, cells[i * NCOL + k], nw);
	}
	fputc('\n', c->f);
	rep_put_folded(c, "",
		       "per configuration (n = boots kept, one value per boot; the mean of a rate is "
		       "its harmonic mean, of a latency its geometric mean)");
	for (size_t from = NKEY; from < NCOL;) {
		size_t to = from + 1, lw = keyw + w[from];

		while (to < NCOL && lw + 2 + w[to] <= c->cols)
			lw += 2 + w[to++];
		fputc('\n', c->f);
		for (i = 0; i <= n; i++) {
			const char *const *r = i ? &cells[(i - 1) * NCOL] : head;

			for (k = 0; k < to; k++) {
				const char *v = r[k] ? r[k] : "?";
				size_t pad = past(w[k], rep_width(v));

				if (k >= NKEY && k < from)
					continue;
				if (k >= NKEY)
					fprintf(c->f, "%*s", (int)pad, "");
				fputs(v, c->f);
				if (k < NKEY && k + 1 < to)
					fprintf(c->f, "%*s", (int)pad, "");
				fputs(k + 1 < to ? "  " : "\n", c->f);
			}
		}
		from = to;
	}
	/* the boots those figures leave out, each named (a campaign of
	 * baselines alone has no row to name them) */
	i = 0;
	for (k = 0; k < n; k++) {
		const json_t *e;
		size_t j;

		json_array_foreach(asides[k], j, e)
		{
			if (!i++)
				rep_put_folded(
					c, "",
					"boots set aside as outliers (not in n, mean, min or max above):");
			rep_put_folded(c, "  ",
				       rep_fmt(c, "%s %s %s: boot rep %.0f (id %.0f): %s",
					       cells[k * NCOL], cells[k * NCOL + 1], metrics[k],
					       rep_jnumv(e, "rep"), rep_jnumv(e, "boot"),
					       rep_show(c, or_s(rep_jstr(e, "why"), "?"),
							REP_TEXT_MAX)));
		}
	}
out:
	for (k = 0; asides && k < n; k++)
		json_decref(asides[k]);
	free(asides);
	free(metrics);
	free(cells);
}

/* Text at most o->columns wide (VTB_REPORT_COLUMNS by default). */
static int text_render_doc(const struct vtb_report_doc *d, const struct vtb_report_opts *o,
			   FILE *f)
{
	size_t cols = o && o->columns ? o->columns : VTB_REPORT_COLUMNS;
	struct ctx c;

	if (rep_ctx_load(&c, d, f, M_TEXT))
		return -1;
	c.cols = cols < VTB_REPORT_MIN_COLUMNS ? VTB_REPORT_MIN_COLUMNS : cols;
	/* the answer first: what was compared, the verdicts, what failed */
	rep_put_folded(&c, "vtbench compare: ", rep_title(&c));
	fputc('\n', f);
	rep_put_summary(&c);
	rep_put_boots(&c);
	rep_put_note(&c);
	rep_put_advice(&c);
	rep_pool_reset(&c);
	rep_put_configs(&c);
	rep_pool_reset(&c);
	for (size_t i = 0; i < c.ngroups; i++) {
		text_table(&c, &c.groups[i]);
		rep_pool_reset(&c);
	}
	if (c.nrows) {
		fputc('\n', f);
		rep_put_folded(&c, "", rep_legend(&c));
	}
	rep_put_undecided(&c);
	rep_put_set_aside(&c);
	rep_pool_reset(&c);
	/* then the details */
	fputc('\n', f);
	rep_put_header(&c);
	put_series(&c);
	rep_pool_reset(&c);
	rep_put_evidence(&c);
	return rep_ctx_finish(&c);
}

static int text_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	return vtb_report_render_whole(text_render_doc, doc, o, f);
}

const struct vtb_report_ops vtb_report_text = {
	.name = "text",
	.summary = "the answer first, then a table per cell, as wide as the terminal (the default)",
	.media_type = "text/plain; charset=utf-8",
	.ext = { ".txt", ".text" },
	.render = text_render,
	.render_doc = text_render_doc,
};
