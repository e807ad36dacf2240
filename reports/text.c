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

/* The narrowest text the reports fold to (VTB_REPORT_COLUMNS is the default). */
#define MIN_COLUMNS 40

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

/* The table's compared columns @from..@to-1 (with metric, unit and base). */
static void text_chunk(struct ctx *c, const struct rgroup *g, const struct tcell *cells,
		       const struct tcol *cols, size_t from, size_t to, size_t wm, size_t wu,
		       const char *const *mlab)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t nc = g->nx + 1, m, x;
	bool err = false;

	sb_pad(&sb, "metric", wm, false, &err);
	err |= vtb_strbuf_addstr(&sb, "  ") < 0;
	sb_pad(&sb, "unit", wu, false, &err);
	for (x = 0; x < nc; x++) {
		if (x && (x - 1 < from || x - 1 >= to))
			continue;
		err |= vtb_strbuf_addstr(&sb, "  ") < 0;
		sb_pad(&sb, cols[x].head, cols[x].w, false, &err);
	}
	put_line(c, &sb);
	for (m = 0; m < g->nm; m++) {
		for (int line = 1; line <= 2; line++) {
			sb_pad(&sb, line == 1 ? mlab[m] : "", wm, false, &err);
			err |= vtb_strbuf_addstr(&sb, "  ") < 0;
			sb_pad(&sb, line == 1 ? rep_esc(c, g->mrow[m]->unit) : "", wu, false, &err);
			for (x = 0; x < nc; x++) {
				if (x && (x - 1 < from || x - 1 >= to))
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

static void text_table(struct ctx *c, const struct rgroup *g)
{
	size_t nc = g->nx + 1, m, x, wm = strlen("metric"), wu = strlen("unit"), left;
	struct tcell *cells = calloc(g->nm * nc, sizeof(*cells));
	struct tcol *cols = calloc(nc, sizeof(*cols));
	const char **mlab = calloc(g->nm, sizeof(*mlab));

	if (!cells || !cols || !mlab) {
		c->oom = true;
		goto out;
	}
	fprintf(c->f, "\n%s\n", rep_group_title(c, g));
	cols[0].head = rep_fmt(c, "%s (base)", g->base->name);
	for (x = 0; x < g->nx; x++)
		cols[x + 1].head = g->xs[x]->name;
	for (m = 0; m < g->nm; m++) {
		mlab[m] = rep_metric_s(c, g->mrow[m]);
		wm = max_sz(wm, rep_width(mlab[m]));
		wu = max_sz(wu, rep_width(rep_esc(c, g->mrow[m]->unit)));
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
	/* metric names cut when even one compared column would not fit */
	for (x = 1, left = 0; x < nc; x++)
		left = max_sz(left, cols[x].w);
	left += wm + 2 + wu + 2 + cols[0].w + 2;
	if (left > c->cols && wm > 12) {
		wm = max_sz(12, wm - (left - c->cols));
		for (m = 0; m < g->nm; m++)
			mlab[m] = rep_cut(c, mlab[m], wm);
	}
	/* as many compared columns per table as fit in c->cols, at least one */
	left = wm + 2 + wu + 2 + cols[0].w;
	for (size_t from = 0; from < g->nx;) {
		size_t to = from + 1, w = left + 2 + cols[from + 1].w;

		while (to < g->nx && w + 2 + cols[to + 1].w <= c->cols)
			w += 2 + cols[++to].w;
		if (from)
			fputc('\n', c->f);
		text_chunk(c, g, cells, cols, from, to, wm, wu, mlab);
		from = to;
	}
out:
	free(cells);
	free(cols);
	free(mlab);
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
	const json_t *series = json_object_get(c->doc, "series"), *o;
	size_t n = json_array_size(series), i, k, w[NCOL], keyw = 0, widest = 0;
	const char **cells;

	if (!n)
		return;
	cells = calloc(n * NCOL, sizeof(*cells));
	if (!cells) {
		c->oom = true;
		return;
	}
	for (k = 0; k < NCOL; k++)
		w[k] = rep_width(head[k]);
	json_array_foreach(series, i, o)
	{
		const json_t *sm = json_object_get(o, "summary");
		const char **r = &cells[i * NCOL];
		const char *better = rep_jstr(o, "better");
		const struct rcfg *g = rep_cfg_of(c, rep_jstr(o, "config"),
						  rep_jstr(c->camp, "uuid"));

		r[0] = g ? g->name : rep_esc(c, rep_jstr(o, "label") ? rep_jstr(o, "label") : "?");
		r[1] = rep_esc(c, rep_jstr(o, "cell") ? rep_jstr(o, "cell") : "?");
		r[2] = rep_fmt(c, "%s %s",
			       rep_esc(c, rep_jstr(o, "metric") ? rep_jstr(o, "metric") : "?"),
			       better && !strcmp(better, "higher") ? "(+)" : "(-)");
		r[3] = rep_esc(c, rep_jstr(o, "unit") ? rep_jstr(o, "unit") : "");
		r[4] = isnan(rep_jnumv(sm, "n")) ? "-" : rep_fmt(c, "%.0f", rep_jnumv(sm, "n"));
		r[5] = rep_num(c, rep_jnumv(sm, "mean"));
		r[6] = rep_num(c, rep_jnumv(sm, "median"));
		r[7] = rep_num(c, rep_jnumv(sm, "stddev"));
		r[8] = isnan(rep_jnumv(sm, "cov"))
			       ? "-"
			       : rep_fmt(c, "%.2f%%", rep_jnumv(sm, "cov") * 100);
		r[9] = rep_num(c, rep_jnumv(sm, "min"));
		r[10] = rep_num(c, rep_jnumv(sm, "max"));
		for (k = 0; k < NCOL; k++)
			if (r[k] && rep_width(r[k]) > w[k])
				w[k] = rep_width(r[k]);
	}
	for (k = 0; k < NCOL; k++) {
		if (k < NKEY)
			keyw += w[k] + 2;
		else
			widest = max_sz(widest, w[k]);
	}
	/* cells and metrics cut when the keys and one figure do not fit */
	for (k = 2; keyw + widest > c->cols && k >= 1; k--) {
		size_t over = keyw + widest - c->cols, nw = w[k] > 8 + over ? w[k] - over : 8;

		if (nw >= w[k])
			continue;
		keyw -= w[k] - nw;
		w[k] = nw;
		for (i = 0; i < n; i++)
			cells[i * NCOL + k] = rep_cut(c, cells[i * NCOL + k], nw);
	}
	fputc('\n', c->f);
	rep_put_folded(c, "",
		       "per configuration (n = boots, one value per boot; the mean of a rate is its "
		       "harmonic mean, of a latency its geometric mean)");
	for (size_t from = NKEY; from < NCOL;) {
		size_t to = from + 1, lw = keyw + w[from];

		while (to < NCOL && lw + 2 + w[to] <= c->cols)
			lw += 2 + w[to++];
		fputc('\n', c->f);
		for (i = 0; i <= n; i++) {
			const char *const *r = i ? &cells[(i - 1) * NCOL] : head;

			for (k = 0; k < to; k++) {
				const char *v = r[k] ? r[k] : "?";
				size_t pad = w[k] - rep_width(v);

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
	free(cells);
}

/* Text at most o->columns wide (VTB_REPORT_COLUMNS by default). */
static int text_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	size_t cols = o && o->columns ? o->columns : VTB_REPORT_COLUMNS;
	struct ctx c;

	if (rep_ctx_load(&c, doc, f, M_TEXT))
		return -1;
	c.cols = cols < MIN_COLUMNS ? MIN_COLUMNS : cols;
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
	rep_pool_reset(&c);
	/* then the details */
	fputc('\n', f);
	rep_put_header(&c);
	put_series(&c);
	rep_pool_reset(&c);
	rep_put_evidence(&c);
	return rep_ctx_finish(&c);
}

const struct vtb_report_ops vtb_report_text = {
	.name = "text",
	.summary = "the answer first, then a table per cell, as wide as the terminal (the default)",
	.media_type = "text/plain; charset=utf-8",
	.ext = { ".txt", ".text" },
	.render = text_render,
};
