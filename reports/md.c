/* SPDX-License-Identifier: MIT */
/*
 * The Markdown report (report.h): the text report as GitHub Markdown, a
 * table per workload, cell and baseline, one line per metric.
 */
#include <math.h>

#include "doc.h"
#include "report.h"

static void md_table(struct ctx *c, const struct rgroup *g)
{
	size_t m, x;

	fprintf(c->f, "\n### %s\n\n| metric | unit | %s (base) |", rep_group_title(c, g),
		g->base->name);
	for (x = 0; x < g->nx; x++)
		fprintf(c->f, " %s |", g->xs[x]->name);
	fputs("\n|:--|:--|--:|", c->f);
	for (x = 0; x < g->nx; x++)
		fputs("--:|", c->f);
	fputc('\n', c->f);
	for (m = 0; m < g->nm; m++) {
		const struct rrow *b = g->mrow[m];

		fprintf(c->f, "| %s | %s | %s<br>%s, %s |", rep_metric_s(c, b),
			rep_show(c, b->unit, REP_NAME_MAX), rep_num(c, b->base.mean),
			rep_n_s(c, b->base.n), rep_cov_s(c, b->base.cov));
		for (x = 0; x < g->nx; x++) {
			const struct rrow *r = g->cells[m * g->nx + x];

			if (!r) {
				fputs(" - |", c->f);
				continue;
			}
			fprintf(c->f, " %s%s%s %s<br>%s, %s, %s%s |", rep_num(c, rep_x_mean(r, b)),
				isnan(r->change) ? "" : rep_fmt(c, " (%s)", rep_pctv(c, r->change)),
				r->sig ? "\\*" : "", r->vshort, rep_n_s(c, r->x.n),
				rep_cov_s(c, r->x.cov), rep_ci_s(c, r), r->noisy ? ", noisy" : "");
		}
		fputc('\n', c->f);
	}
}

static int md_render_doc(const struct vtb_report_doc *d, const struct vtb_report_opts *o,
			 FILE *f)
{
	struct ctx c;

	(void)o;

	if (rep_ctx_load(&c, d, f, M_MD))
		return -1;
	c.cols = VTB_REPORT_COLUMNS;
	fprintf(f, "# vtbench compare: %s\n\n", rep_title(&c));
	rep_put_summary(&c);
	fputc('\n', f);
	rep_put_boots(&c);
	rep_put_note(&c);
	rep_put_advice(&c);
	rep_pool_reset(&c);
	rep_put_configs(&c);
	if (c.nrows)
		fprintf(f, "\n## %s\n", rep_title(&c));
	for (size_t i = 0; i < c.ngroups; i++) {
		md_table(&c, &c.groups[i]);
		rep_pool_reset(&c);
	}
	if (c.nrows) {
		fputc('\n', f);
		rep_put_folded(&c, "", rep_legend(&c));
	}
	rep_put_undecided(&c);
	rep_put_set_aside(&c);
	fprintf(f, "\n## Campaign\n\n");
	rep_put_header(&c);
	rep_put_evidence(&c);
	return rep_ctx_finish(&c);
}

static int md_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	return vtb_report_render_whole(md_render_doc, doc, o, f);
}

const struct vtb_report_ops vtb_report_md = {
	.name = "md",
	.summary = "the text report as GitHub Markdown: a table per cell, for a pull request",
	.media_type = "text/markdown; charset=utf-8",
	.ext = { ".md", ".markdown" },
	.render = md_render,
	.render_doc = md_render_doc,
};
