/* SPDX-License-Identifier: MIT */
/*
 * The CSV report (report.h): a header line, then a line per failure of
 * the campaigns (kind "failure": a boot that is not ok, a cell that failed
 * in an ok boot), then a line per row of the document (kind "verdict");
 * provenance first on every line; RFC 4180 quoting, numbers in their
 * shortest form of at most 15 digits, fields a spreadsheet would run as a formula
 * defused.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "report.h"

/*
 * A number as the shortest decimal of at most 15 significant digits
 * (DBL_DIG: every decimal that short reads back unchanged through a
 * double, so a value the agent recorded prints as it was recorded), not
 * the 17 that would show arithmetic's last-bit noise (11696.300000000001
 * for 11696.3); the JSON report rounds further (12).
 */
static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		return;
	fprintf(f, "%.*g", DBL_DIG, v);
}

/* A string field: escaped, quoted as RFC 4180 says when it holds a comma
 * or a quote (escaping leaves no line break).  Metric, unit and cell names
 * come from guests: a field a spreadsheet would take for a formula (one
 * that starts with =, +, -, @, tab or CR; the last two are escaped
 * already) gets a leading ' and quotes, as OWASP's CSV injection advice
 * says. */
static void csv_str(struct ctx *c, const char *raw)
{
	const char *s = rep_esc(c, raw);
	bool formula = strchr("=+-@\t\r", s[0]) && s[0];

	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, c->f);
		return;
	}
	fputc('"', c->f);
	if (formula)
		fputc('\'', c->f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', c->f);
		fputc(*s, c->f);
	}
	fputc('"', c->f);
}

/* A member as a CSV field: numbers as above (integers as such), strings
 * escaped and quoted when needed, booleans true/false, null empty. */
static void csv_field(struct ctx *c, const json_t *o, const char *k, bool first)
{
	const json_t *v = json_object_get(o, k);

	if (!first)
		fputc(',', c->f);
	if (json_is_integer(v)) {
		fprintf(c->f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		csv_num(c->f, json_real_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", c->f);
	} else if (json_is_string(v)) {
		csv_str(c, json_string_value(v));
	}
}

static const char *const csv_row_keys[] = {
	"workload", "cell", "metric", "unit", "class", "better"
};
static const char *const csv_side_keys[] = { "config", "label", "campaign" };
/* the campaign's boots by status (its "boots" object), as boots_COL */
static const char *const csv_boot_keys[] = { "total", "ok", "failed", "timeout",
					     "unexpected-topology" };
static const char *const csv_boot_cols[] = { "total", "ok", "failed", "timeout",
					     "unexpected_topology" };
static const char *const csv_sum_keys[] = { "n",   "mean", "amean", "median", "stddev", "cov",
					    "min", "max",  "p5",    "p25",    "p75",	"p95" };
static const char *const csv_tail_keys[] = {
	"effect", "change_pct",	 "ci_low_pct", "ci_high_pct", "test",	  "df",		  "p",
	"q",	  "significant", "verdict",    "confirmed",   "possible", "boots_needed", "noisy",
	"reason"
};
/* After the verdict rows' columns, so that their order stays what it was:
 * what a line is, then a failure's own members (its "failures" object in
 * the document; its cell and reason go in the cell and reason columns,
 * which mean the same on both kinds of line). */
static const char *const csv_kind_cols[] = { "kind",	      "failure_campaign", "failure_config",
					     "failure_label", "failure_status",	  "failure_boots",
					     "failure_reps" };
/* Added by issue 26, last so that the columns before keep their places:
 * the level of the row's interval, its own (1 - alpha) interval, the
 * boots_needed cap it passed, and the boots set aside on each side (a
 * phrase naming each: rep, boot id, how far). */
static const char *const csv_more_keys[] = { "ci_level", "row_ci_low_pct", "row_ci_high_pct",
					     "boots_needed_over" };

static void csv_side(struct ctx *c, const struct rrow *r, const struct rside *s, const char *which)
{
	const json_t *o = json_object_get(r->j, which);

	csv_field(c, o, "config", false);
	/* the label comes from configs: the row names the key */
	fputc(',', c->f);
	csv_str(c, s->cfg->label);
	csv_field(c, o, "campaign", false);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(csv_sum_keys); i++)
		csv_field(c, s->summary, csv_sum_keys[i], false);
}

/* The provenance every line starts with: schema, the campaigns, the
 * boots by status. */
static void csv_head(struct ctx *c)
{
	fputs(VTB_REPORT_SCHEMA, c->f);
	csv_field(c, c->camp, "uuid", false);
	csv_field(c, json_is_object(c->against) ? c->against : NULL, "uuid", false);
	for (size_t k = 0; k < VTB_ARRAY_SIZE(csv_boot_keys); k++)
		csv_field(c, json_object_get(c->camp, "boots"), csv_boot_keys[k], false);
}

static void csv_empty(FILE *f, size_t n)
{
	while (n--)
		fputc(',', f);
}

/* A failure's reps as "0,1,2" (JSON has them as an array). */
static const char *csv_reps(struct ctx *c, const json_t *reps)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *v;
	const char *r;
	size_t i;

	json_array_foreach(reps, i, v)
	{
		if (vtb_strbuf_addf(&sb, "%s%" JSON_INTEGER_FORMAT, i ? "," : "",
				    json_integer_value(v)) < 0)
			c->oom = true;
	}
	r = rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	vtb_strbuf_release(&sb);
	return r;
}

/*
 * A line per failure of campaign @camp (a boot that is not ok: no cell;
 * a cell that failed in an ok boot), before any verdict: the reader of a
 * spreadsheet sees what the verdicts leave out first, and filters on kind.
 * Every failure, not the text's first 20: this is a format for programs.
 */
static void csv_failures(struct ctx *c, const json_t *camp)
{
	const json_t *o;
	size_t i, k;

	json_array_foreach(json_object_get(camp, "failures"), i, o)
	{
		csv_head(c);
		/* the row's columns a failure has a member of the same name
		 * for (its cell; a failure names no workload), the rest empty */
		for (k = 0; k < VTB_ARRAY_SIZE(csv_row_keys); k++)
			csv_field(c, o, csv_row_keys[k], false);
		/* both sides: nothing compared */
		csv_empty(c->f, 2 * (VTB_ARRAY_SIZE(csv_side_keys) + VTB_ARRAY_SIZE(csv_sum_keys)));
		/* its reason */
		for (k = 0; k < VTB_ARRAY_SIZE(csv_tail_keys); k++)
			csv_field(c, o, csv_tail_keys[k], false);
		fputs(",failure", c->f);
		csv_field(c, camp, "uuid", false);
		csv_field(c, o, "config", false);
		csv_field(c, o, "label", false);
		csv_field(c, o, "status", false);
		csv_field(c, o, "boots", false);
		fputc(',', c->f);
		csv_str(c, csv_reps(c, json_object_get(o, "reps")));
		csv_empty(c->f, VTB_ARRAY_SIZE(csv_more_keys) + 2);
		fputc('\n', c->f);
		rep_pool_reset(c);
	}
}

static int csv_render_doc(const struct vtb_report_doc *d, const struct vtb_report_opts *o,
			  FILE *f)
{
	struct ctx c;
	size_t i, k;

	(void)o;

	/* every row of a whole document read and checked before a line is
	 * written, then each taken again for its line; a made document's
	 * rows made once each, for their lines (rep_ctx_load) */
	if (rep_ctx_load(&c, d, f, M_CSV))
		return -1;
	/* the header first (a CSV reader takes line 1 as the column names);
	 * provenance and the boots by status in columns of their own */
	fputs("schema,campaign,against", f);
	for (k = 0; k < VTB_ARRAY_SIZE(csv_boot_keys); k++)
		fprintf(f, ",boots_%s", csv_boot_cols[k]);
	for (k = 0; k < VTB_ARRAY_SIZE(csv_row_keys); k++)
		fprintf(f, ",%s", csv_row_keys[k]);
	for (int side = 0; side < 2; side++) {
		for (k = 0; k < VTB_ARRAY_SIZE(csv_side_keys); k++)
			fprintf(f, ",%s_%s", side ? "x" : "base", csv_side_keys[k]);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_sum_keys); k++)
			fprintf(f, ",%s_%s", side ? "x" : "base", csv_sum_keys[k]);
	}
	for (k = 0; k < VTB_ARRAY_SIZE(csv_tail_keys); k++)
		fprintf(f, ",%s", csv_tail_keys[k]);
	for (k = 0; k < VTB_ARRAY_SIZE(csv_kind_cols); k++)
		fprintf(f, ",%s", csv_kind_cols[k]);
	for (k = 0; k < VTB_ARRAY_SIZE(csv_more_keys); k++)
		fprintf(f, ",%s", csv_more_keys[k]);
	fputs(",base_set_aside,x_set_aside", f);
	fputc('\n', f);
	/* the failures first, this campaign's then the one compared against */
	csv_failures(&c, c.camp);
	if (json_is_object(c.against))
		csv_failures(&c, c.against);
	for (i = 0; i < (c.stream ? d->nrows : c.nrows); i++) {
		const struct rrow *r = &c.rows[c.stream ? 0 : i];

		if (rep_row_take(&c, i) < 0) {
			rep_ctx_finish(&c);
			return -1;
		}
		csv_head(&c);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_row_keys); k++)
			csv_field(&c, r->j, csv_row_keys[k], false);
		csv_side(&c, r, &r->base, "base");
		csv_side(&c, r, &r->x, "x");
		for (k = 0; k < VTB_ARRAY_SIZE(csv_tail_keys); k++)
			csv_field(&c, r->j, csv_tail_keys[k], false);
		fputs(",verdict", f);
		csv_empty(f, VTB_ARRAY_SIZE(csv_kind_cols) - 1);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_more_keys); k++)
			csv_field(&c, r->j, csv_more_keys[k], false);
		for (int side = 0; side < 2; side++) {
			const char *a = rep_aside_s(&c, side ? &r->x : &r->base);

			fputc(',', f);
			if (a)
				csv_str(&c, a);
		}
		fputc('\n', f);
		rep_row_drop(&c, i);
		rep_pool_reset(&c);
	}
	return rep_ctx_finish(&c);
}

static int csv_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	return vtb_report_render_whole(csv_render_doc, doc, o, f);
}

const struct vtb_report_ops vtb_report_csv = {
	.name = "csv",
	.summary = "a line per failure, then per row of the document (cell, metric, configuration)",
	.media_type = "text/csv; charset=utf-8; header=present",
	.ext = { ".csv" },
	.render = csv_render,
	.render_doc = csv_render_doc,
};
