/* SPDX-License-Identifier: MIT */
/*
 * The CSV report (report.h): a header line, then a line per row of the
 * document, provenance first; RFC 4180 quoting, numbers that read back to
 * the same double, fields a spreadsheet would run as a formula defused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "report.h"

/* The shortest %.Ng (15..17) that reads back as the same double. */
static void csv_num(FILE *f, double v)
{
	char b[40];

	if (isnan(v))
		return;
	for (int p = 15; p <= 17; p++) {
		snprintf(b, sizeof(b), "%.*g", p, v);
		if (strtod(b, NULL) == v)
			break;
	}
	fputs(b, f);
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

static int csv_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	struct ctx c;
	size_t i, k;

	(void)o;

	if (rep_ctx_load(&c, doc, f, M_CSV))
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
	fputc('\n', f);
	for (i = 0; i < c.nrows; i++) {
		const struct rrow *r = &c.rows[i];

		fputs(VTB_REPORT_SCHEMA, f);
		csv_field(&c, c.camp, "uuid", false);
		csv_field(&c, json_is_object(c.against) ? c.against : NULL, "uuid", false);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_boot_keys); k++)
			csv_field(&c, json_object_get(c.camp, "boots"), csv_boot_keys[k], false);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_row_keys); k++)
			csv_field(&c, r->j, csv_row_keys[k], false);
		csv_side(&c, r, &r->base, "base");
		csv_side(&c, r, &r->x, "x");
		for (k = 0; k < VTB_ARRAY_SIZE(csv_tail_keys); k++)
			csv_field(&c, r->j, csv_tail_keys[k], false);
		fputc('\n', f);
		rep_pool_reset(&c);
	}
	return rep_ctx_finish(&c);
}

const struct vtb_report_ops vtb_report_csv = {
	.name = "csv",
	.summary =
		"one line per row of the document (cell, metric, configuration), provenance first",
	.media_type = "text/csv; charset=utf-8; header=present",
	.ext = { ".csv" },
	.render = csv_render,
};
