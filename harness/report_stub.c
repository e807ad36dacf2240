/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY STUB of harness/report.h and harness/report-html.h -- DELETE
 * WHEN MERGING the real emitters (report.c, report-html.c, other branches).
 *
 * Only there so that the compare model (branch i7-model) links and the
 * existing tests keep passing: the text emitter prints the first-cut
 * table, the guest vs host means and the guest evidence as before, now
 * read from the compare document; Markdown, CSV and HTML are minimal.
 */
#include "report-html.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/lib/vtbutil.h"

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "?";
}

static double dbl(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

enum {
	COL_CONFIG,
	COL_CELL,
	COL_METRIC,
	COL_UNIT,
	COL_N,
	COL_MEAN,
	COL_MEDIAN,
	COL_STDDEV,
	COL_COV,
	COL_MIN,
	COL_MAX,
	NCOLS
};

static const char *const headers[NCOLS] = {
	"configuration", "cell",   "metric", "unit", "n",   "mean",
	"median",	 "stddev", "cov",    "min",  "max",
};

static void print_table(const json_t *series, FILE *f)
{
	size_t n = json_array_size(series), width[NCOLS], i, c;
	char *(*cells)[NCOLS] = calloc(n ? n : 1, sizeof(*cells));
	json_t *s;

	if (!cells)
		return;
	for (c = 0; c < NCOLS; c++)
		width[c] = strlen(headers[c]);
	json_array_foreach(series, i, s)
	{
		json_t *m = json_object_get(s, "summary");
		char num[7][64];

		fmt_num(num[0], sizeof(num[0]), dbl(m, "amean"));
		fmt_num(num[1], sizeof(num[1]), dbl(m, "median"));
		fmt_num(num[2], sizeof(num[2]), dbl(m, "stddev"));
		snprintf(num[3], sizeof(num[3]), "%.2f%%", dbl(m, "cov") * 100);
		fmt_num(num[4], sizeof(num[4]), dbl(m, "min"));
		fmt_num(num[5], sizeof(num[5]), dbl(m, "max"));
		cells[i][COL_CONFIG] = vtb_strdup(str(s, "label"));
		cells[i][COL_CELL] = vtb_strdup(str(s, "cell"));
		cells[i][COL_METRIC] = vtb_asprintf("%s %s", str(s, "metric"),
						    !strcmp(str(s, "better"), "higher") ? "(+)"
											: "(-)");
		cells[i][COL_UNIT] = vtb_strdup(str(s, "unit"));
		cells[i][COL_N] = vtb_asprintf("%lld", (long long)dbl(m, "n"));
		cells[i][COL_MEAN] = vtb_strdup(num[0]);
		cells[i][COL_MEDIAN] = vtb_strdup(num[1]);
		cells[i][COL_STDDEV] = vtb_strdup(num[2]);
		cells[i][COL_COV] = vtb_strdup(num[3]);
		cells[i][COL_MIN] = vtb_strdup(num[4]);
		cells[i][COL_MAX] = vtb_strdup(num[5]);
		for (c = 0; c < NCOLS; c++)
			if (cells[i][c] && strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
	}
	for (c = 0; c < NCOLS; c++)
		fprintf(f, c < COL_N ? "%-*s%s" : "%*s%s", (int)width[c], headers[c],
			c + 1 < NCOLS ? "  " : "\n");
	for (i = 0; i < n; i++)
		for (c = 0; c < NCOLS; c++) {
			fprintf(f, c < COL_N ? "%-*s%s" : "%*s%s", (int)width[c],
				cells[i][c] ? cells[i][c] : "?", c + 1 < NCOLS ? "  " : "\n");
			free(cells[i][c]);
		}
	free(cells);
}

static const char *label_of(const json_t *doc, const char *key, const char *campaign)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(doc, "configs"), i,
			   c) if (!strcmp(str(c, "key"), key) &&
				  !strcmp(str(c, "campaign"), campaign)) return str(c, "label");
	return key;
}

static void print_rows(const json_t *doc, FILE *f)
{
	json_t *rows = json_object_get(doc, "rows"), *r;
	size_t i;

	if (!json_array_size(rows))
		return;
	fprintf(f, "\n%s (means; x/base as a percentage of the base)\n",
		strcmp(str(json_object_get(doc, "options"), "baseline"), "own") ||
				json_is_string(
					json_object_get(json_object_get(doc, "options"), "axis")) ||
				json_is_object(json_object_get(doc, "against"))
			? "comparison"
			: "guest vs host");
	if (strstr(str(json_object_get(doc, "campaign"), "accelerators"), "tcg"))
		fprintf(f, "note: guests ran under TCG (software emulation): these ratios "
			   "measure QEMU's emulator, not virtualization overhead\n");
	fprintf(f, "\n");
	json_array_foreach(rows, i, r)
	{
		json_t *b = json_object_get(r, "base"), *x = json_object_get(r, "x");
		char bm[64], xm[64];

		fmt_num(bm, sizeof(bm), dbl(json_object_get(b, "summary"), "mean"));
		fmt_num(xm, sizeof(xm), dbl(json_object_get(x, "summary"), "mean"));
		fprintf(f, "%s  %s  %s  %s %s  %s  %s  %+.1f%%  p %.3g  q %.3g  %s\n",
			label_of(doc, str(x, "config"), str(x, "campaign")),
			label_of(doc, str(b, "config"), str(b, "campaign")), str(r, "cell"),
			str(r, "metric"), !strcmp(str(r, "better"), "higher") ? "(+)" : "(-)", xm,
			bm, dbl(r, "change_pct"), dbl(r, "p"), dbl(r, "q"), str(r, "verdict"));
	}
}

static void put_guest(const char *s, FILE *f)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void print_evidence(const json_t *doc, FILE *f)
{
	json_t *ev = json_object_get(doc, "evidence"), *e, *l, *c;
	size_t i, k;

	if (!json_array_size(ev))
		return;
	fprintf(f, "\nguest evidence (per VM configuration: what the guest was told, what it "
		   "built,\nwhere its vCPUs ran on the host)\n");
	json_array_foreach(ev, i, e)
	{
		json_t *t = json_object_get(e, "told");
		long long boots = json_integer_value(json_object_get(e, "boots"));

		fprintf(f, "\n%s\n", str(e, "label"));
		if (!json_is_object(t))
			fprintf(f, "  told     (no plan stored)\n");
		else
			fprintf(f,
				"  told     %lld socket(s) x %lld die(s) x %lld core(s) x %lld "
				"thread(s), pinning %s\n",
				json_integer_value(json_object_get(t, "sockets")),
				json_integer_value(json_object_get(t, "dies")),
				json_integer_value(json_object_get(t, "cores")),
				json_integer_value(json_object_get(t, "threads")),
				str(t, "pinning"));
		fprintf(f, "  claims  ");
		json_array_foreach(json_object_get(e, "claims"), k, c)
			fprintf(f, "%s %s vcpus %s %s", k ? ";" : "", str(c, "kind"),
				str(c, "vcpus"), str(c, "state"));
		fprintf(f, "%s\n", json_array_size(json_object_get(e, "claims")) ? "" : " none");
		fprintf(f, "  guest    ");
		if (!json_array_size(json_object_get(e, "levels")))
			fprintf(f, "no sched-domain view recorded");
		json_array_foreach(json_object_get(e, "levels"), k, l)
		{
			fprintf(f, "%slevels ", k ? "; " : "");
			put_guest(*str(l, "levels") ? str(l, "levels") : "none", f);
			fprintf(f, " (%lld of %lld boots)",
				json_integer_value(json_object_get(l, "boots")), boots);
		}
		if (json_is_string(json_object_get(e, "guest_kernel")))
			fprintf(f, ", kernel %s", str(e, "guest_kernel"));
		fprintf(f,
			"\n  checked  %lld of %lld boots as planned, %lld unexpected-topology%s%s\n",
			json_integer_value(json_object_get(e, "matched")), boots,
			json_integer_value(json_object_get(e, "unexpected")),
			json_is_string(json_object_get(e, "first_diff")) ? ": " : "",
			json_is_string(json_object_get(e, "first_diff")) ? str(e, "first_diff")
									 : "");
		if (json_is_number(json_object_get(e, "off_planned_mean"))) {
			fprintf(f, "  ran      off the planned pCPU %.1f%% mean, %.1f%% max",
				dbl(e, "off_planned_mean") * 100, dbl(e, "off_planned_max") * 100);
			if (json_is_number(json_object_get(e, "smt_split_core")))
				fprintf(f, "; SMT pairs on different cores %.1f%%",
					dbl(e, "smt_split_core") * 100);
			if (json_is_number(json_object_get(e, "llc_split_llc")))
				fprintf(f, "; LLC groups across LLCs %.1f%%",
					dbl(e, "llc_split_llc") * 100);
			fprintf(f, " (%lld boots sampled)\n",
				json_integer_value(json_object_get(e, "placed")));
		} else {
			fprintf(f, "  ran      no host-side placement samples\n");
		}
	}
}

int vtb_report_text(const json_t *doc, FILE *f)
{
	json_t *c = json_object_get(doc, "campaign");

	fprintf(f, "campaign %s  matrix %s  host %s\n", str(c, "uuid"), str(c, "matrix_path"),
		str(c, "host"));
	fprintf(f, "n = boots; one value per boot and metric; (+) higher is better, (-) lower\n\n");
	if (!json_array_size(json_object_get(doc, "series")))
		fprintf(f, "no results with status ok in this campaign\n");
	else
		print_table(json_object_get(doc, "series"), f);
	print_rows(doc, f);
	print_evidence(doc, f);
	return ferror(f) ? vtb_error("write error") : 0;
}

int vtb_report_md(const json_t *doc, FILE *f)
{
	json_t *r;
	size_t i;

	fprintf(f,
		"# vtbench compare (stub)\n\n| cell | metric | change | verdict |\n|---|---|---|---|\n");
	json_array_foreach(json_object_get(doc, "rows"), i, r)
		fprintf(f, "| %s | %s | %+.1f%% | %s |\n", str(r, "cell"), str(r, "metric"),
			dbl(r, "change_pct"), str(r, "verdict"));
	return ferror(f) ? vtb_error("write error") : 0;
}

int vtb_report_csv(const json_t *doc, FILE *f)
{
	json_t *r;
	size_t i;

	fprintf(f, "# %s\ncell,metric,change_pct,verdict\n", str(doc, "schema"));
	json_array_foreach(json_object_get(doc, "rows"), i, r)
		fprintf(f, "%s,%s,%g,%s\n", str(r, "cell"), str(r, "metric"), dbl(r, "change_pct"),
			str(r, "verdict"));
	return ferror(f) ? vtb_error("write error") : 0;
}

int vtb_report_html(const json_t *doc, FILE *f)
{
	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vtbench compare"
		"</title></head><body><p>HTML report stub: %zu rows</p></body></html>\n",
		json_array_size(json_object_get(doc, "rows")));
	return ferror(f) ? vtb_error("write error") : 0;
}
