/* SPDX-License-Identifier: MIT */
/*
 * The report format registry (reports/registry.c): the five formats are
 * there under their names in the order --help names them, the table
 * passes its start-up check, -o's extensions pick a format (any case,
 * the last dot only), every format renders a report document and refuses
 * what is not one, and text follows the width it is given.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"
#include "../../reports/report.h"

static json_t *load(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/fixtures/compare/report-%s.json", src ? src : ".", name);
	json_error_t e;
	json_t *d;

	cr_assert_not_null(p);
	d = json_load_file(p, 0, &e);
	cr_assert_not_null(d, "%s: %s", p, e.text);
	free(p);
	return d;
}

static char *render(const struct vtb_report_ops *r, const json_t *doc,
		    const struct vtb_report_opts *o, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	*ret = r->render(doc, o, f);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

Test(report_registry, five_formats_in_help_order_and_the_check_passes)
{
	static const char *const want[] = { "text", "md", "html", "json", "csv", NULL };
	const char *const *names = vtb_report_names();
	size_t i;

	cr_assert_eq(vtb_reports_check(), 0, "%s", vtb_errmsg());
	for (i = 0; want[i]; i++) {
		cr_assert_not_null(vtb_reports[i]);
		cr_expect_str_eq(vtb_reports[i]->name, want[i]);
		cr_expect_str_eq(names[i], want[i]);
		cr_expect_eq(vtb_report_find(want[i]), vtb_reports[i]);
		cr_expect(vtb_reports[i]->summary && *vtb_reports[i]->summary);
		cr_expect(vtb_reports[i]->media_type && strchr(vtb_reports[i]->media_type, '/'));
	}
	cr_expect_null(vtb_reports[i]);
	cr_expect_null(names[i]);
	cr_expect_null(vtb_report_find("jsno"));
	cr_expect_null(vtb_report_find("TEXT"));
	cr_expect_null(vtb_report_find(NULL));
}

Test(report_registry, extensions_pick_the_format)
{
	static const char *const cases[][2] = {
		{ "r.txt", "text" },	{ "r.text", "text" },	{ "a/b.md", "md" },
		{ "r.markdown", "md" }, { "R.HTML", "html" },	{ "r.htm", "html" },
		{ "r.json", "json" },	{ "x.tar.csv", "csv" }, { "./dir.d/r.Csv", "csv" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		const struct vtb_report_ops *r = vtb_report_for_path(cases[i][0]);

		cr_assert_not_null(r, "%s", cases[i][0]);
		cr_expect_str_eq(r->name, cases[i][1], "%s", cases[i][0]);
	}
	cr_expect_null(vtb_report_for_path("report"));
	cr_expect_null(vtb_report_for_path("r.pdf"));
	cr_expect_null(vtb_report_for_path("dir.html/report"));
	cr_expect_null(vtb_report_for_path("r.html.bak"));
}

Test(report_registry, every_format_renders_a_document_and_refuses_others)
{
	json_t *doc = load("own"), *other = json_pack("{s:s}", "schema", "vtbench-compare/1");

	cr_assert_not_null(other);
	for (size_t i = 0; vtb_reports[i]; i++) {
		int ret;
		char *s = render(vtb_reports[i], doc, NULL, &ret);

		cr_expect_eq(ret, 0, "%s: %s", vtb_reports[i]->name, vtb_errmsg());
		cr_expect(s && strlen(s) > 100, "%s wrote little", vtb_reports[i]->name);
		cr_expect(s && s[strlen(s) - 1] == '\n', "%s: no final newline",
			  vtb_reports[i]->name);
		free(s);
		s = render(vtb_reports[i], other, NULL, &ret);
		cr_expect_eq(ret, -1, "%s took a vtbench-compare/1 document", vtb_reports[i]->name);
		free(s);
	}
	json_decref(other);
	json_decref(doc);
}

/* The JSON format is the document: keys sorted, indented by 2, reals
 * with 12 significant digits, a final newline. */
Test(report_registry, json_is_the_document_itself)
{
	json_t *doc = load("against");
	int ret;
	char *s = render(vtb_report_find("json"), doc, NULL, &ret);
	char *want = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	char *want_nl = vtb_asprintf("%s\n", want);

	cr_assert_eq(ret, 0, "%s", vtb_errmsg());
	cr_expect_str_eq(s, want_nl);
	free(want_nl);
	free(want);
	json_decref(doc);
	free(s);
}

/* Text folds to the width of its options (a word or figure wider than it
 * aside: the fixture's keys are); no options, VTB_REPORT_COLUMNS. */
Test(report_registry, text_follows_the_columns_option)
{
	json_t *doc = load("own");
	struct vtb_report_opts narrow = { .columns = 60 }, none = { 0 };
	const struct vtb_report_ops *text = vtb_report_find("text");
	size_t widest[3] = { 0 };
	char *s[3];
	int ret;

	s[0] = render(text, doc, &narrow, &ret);
	s[1] = render(text, doc, &none, &ret);
	s[2] = render(text, doc, NULL, &ret);
	for (int k = 0; k < 3; k++) {
		size_t w = 0;

		for (const char *p = s[k]; *p; p++) {
			w = *p == '\n' ? 0 : w + (((unsigned char)*p & 0xc0) != 0x80);
			widest[k] = w > widest[k] ? w : widest[k];
		}
	}
	cr_expect_lt(widest[0], widest[1]);
	cr_expect_gt(widest[1], 60);
	cr_expect_leq(widest[1], VTB_REPORT_COLUMNS);
	cr_expect_str_eq(s[1], s[2]);
	for (int k = 0; k < 3; k++)
		free(s[k]);
	json_decref(doc);
}
