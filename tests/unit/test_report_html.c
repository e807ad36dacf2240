/* SPDX-License-Identifier: MIT */
/*
 * The HTML report (reports/html-*.c) on hand-written report
 * documents (tests/fixtures/html/): the page is well-formed XML (so also
 * clean HTML), fetches nothing, shows guest strings escaped, and every
 * chart has as many marks as the document says: a box per configuration
 * of a metric, a point per boot, a CDF line per histogram, n^2 cells per
 * c2c heat map, a level entry per distinct domain tree; and the page's
 * stylesheet is reports/report.css, as the build embeds it.  recommend's
 * page: its race chart's labels whole and told apart, its axes with units.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/recommend.h"
#include "../../reports/report.h"
#include "../../common/vtbutil.h"

static int render_html(const json_t *doc, FILE *f)
{
	return vtb_report_find("html")->render(doc, NULL, f);
}

struct page {
	char *html;
	size_t len;
	xmlDocPtr doc;
	xmlXPathContextPtr xp;
	int errors;
};

static json_t *load(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *path = vtb_asprintf("%s/tests/fixtures/html/%s", src ? src : ".", name);
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	cr_assert(doc, "%s: %s", path, err.text);
	free(path);
	return doc;
}

static void count_error(void *ctx, xmlErrorPtr e)
{
	struct page *p = ctx;

	if (e->level >= XML_ERR_ERROR) {
		p->errors++;
		cr_log_error("xml: line %d: %s", e->line, e->message);
	}
}

/* Renders @doc with @fn into memory and parses the page as XML. */
static void render_with(const json_t *doc, struct page *p, int (*fn)(const json_t *, FILE *))
{
	FILE *f;

	memset(p, 0, sizeof(*p));
	f = open_memstream(&p->html, &p->len);
	cr_assert(f);
	cr_assert_eq(fn(doc, f), 0, "%s", vtb_errmsg());
	cr_assert_eq(fclose(f), 0);
	xmlSetStructuredErrorFunc(p, count_error);
	p->doc = xmlReadMemory(p->html, (int)p->len, "report.html", NULL, XML_PARSE_NONET);
	xmlSetStructuredErrorFunc(NULL, NULL);
	cr_assert(p->doc, "the page does not parse as XML");
	cr_assert_eq(p->errors, 0, "the page is not well-formed XML");
	p->xp = xmlXPathNewContext(p->doc);
	cr_assert(p->xp);
}

static void render(const json_t *doc, struct page *p)
{
	render_with(doc, p, render_html);
}

static void page_release(struct page *p)
{
	xmlXPathFreeContext(p->xp);
	xmlFreeDoc(p->doc);
	free(p->html);
}

static xmlXPathObjectPtr eval(struct page *p, xmlNodePtr ctx, const char *expr)
{
	xmlXPathObjectPtr o;

	p->xp->node = ctx;
	o = xmlXPathEvalExpression((const xmlChar *)expr, p->xp);
	cr_assert(o, "xpath %s", expr);
	return o;
}

static double num(struct page *p, xmlNodePtr ctx, const char *expr)
{
	xmlXPathObjectPtr o = eval(p, ctx, expr);
	double v = xmlXPathCastToNumber(o);

	xmlXPathFreeObject(o);
	return v;
}

/* Nodes of @expr: caller frees the object. */
static xmlNodeSetPtr nodes(struct page *p, const char *expr, xmlXPathObjectPtr *keep)
{
	*keep = eval(p, NULL, expr);
	cr_assert_eq((*keep)->type, XPATH_NODESET, "%s", expr);
	return (*keep)->nodesetval;
}

static size_t set_len(xmlNodeSetPtr s)
{
	return s ? (size_t)s->nodeNr : 0;
}

static char *prop(xmlNodePtr n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

#define CLS(c) "contains(concat(' ', normalize-space(@class), ' '), ' " c " ')"

/* ---- what the document says ---- */

static bool same(const json_t *a, const json_t *b, const char *k)
{
	const char *x = json_string_value(json_object_get(a, k));
	const char *y = json_string_value(json_object_get(b, k));

	return (!x && !y) || (x && y && !strcmp(x, y));
}

/* Distinct (workload, cell, metric) of the rows, in order: for each its
 * number of distinct (config, campaign) sides and of per-boot values. */
struct group {
	const json_t *row;
	size_t configs, values;
};

static size_t groups_of(const json_t *doc, struct group *g, size_t max)
{
	const json_t *rows = json_object_get(doc, "rows"), *r, *q;
	size_t n = 0, i, k;

	json_array_foreach(rows, i, r)
	{
		size_t gi;
		const json_t *seen[64];
		size_t n_seen = 0;

		for (gi = 0; gi < n; gi++)
			if (same(g[gi].row, r, "workload") && same(g[gi].row, r, "cell") &&
			    same(g[gi].row, r, "metric"))
				break;
		if (gi < n)
			continue;
		cr_assert(n < max);
		g[n] = (struct group){ r, 0, 0 };
		json_array_foreach(rows, k, q)
		{
			if (!same(q, r, "workload") || !same(q, r, "cell") || !same(q, r, "metric"))
				continue;
			for (int s = 0; s < 2; s++) {
				const json_t *side = json_object_get(q, s ? "x" : "base");
				size_t j;

				for (j = 0; j < n_seen; j++)
					if (same(seen[j], side, "config") &&
					    same(seen[j], side, "campaign"))
						break;
				if (j < n_seen)
					continue;
				cr_assert(n_seen < 64);
				seen[n_seen++] = side;
				g[n].configs++;
				g[n].values += json_array_size(json_object_get(side, "values"));
			}
		}
		n++;
	}
	return n;
}

/* Every chart holds as many marks as its data-marks says. */
static void marks_match_attributes(struct page *p)
{
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr s = nodes(p, "//*[@data-marks]", &keep);

	for (size_t i = 0; i < set_len(s); i++) {
		xmlNodePtr n = s->nodeTab[i];
		char *mark = prop(n, "data-mark"), *want = prop(n, "data-marks");
		char *expr = vtb_asprintf(".//*[" CLS("%s") "]", mark);
		char *cnt = vtb_asprintf("count(%s)", expr);

		cr_expect_eq(num(p, n, cnt), atof(want), "chart %zu: %g %s marks, data-marks %s", i,
			     num(p, n, cnt), mark, want);
		free(expr);
		free(cnt);
		xmlFree(mark);
		xmlFree(want);
	}
	xmlXPathFreeObject(keep);
}

static void marks_match_document(struct page *p, const json_t *doc)
{
	struct group g[32];
	size_t ng = groups_of(doc, g, 32), i;
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr s;
	const json_t *e;

	/* a box plot per metric, a box per configuration, a dot per boot */
	s = nodes(p, "//*[local-name()='svg'][" CLS("boxplot") "]", &keep);
	cr_assert_eq(set_len(s), ng);
	for (i = 0; i < ng; i++) {
		cr_expect_eq(num(p, s->nodeTab[i], "count(.//*[" CLS("box") "])"),
			     (double)g[i].configs, "box plot %zu", i);
		cr_expect_eq(num(p, s->nodeTab[i], "count(.//*[" CLS("pt") "])"),
			     (double)g[i].values, "box plot %zu points", i);
	}
	xmlXPathFreeObject(keep);

	/* all histograms drawn, one line each */
	cr_expect_eq(num(p, NULL,
			 "count(//*[local-name()='svg'][" CLS("cdfplot") "]//*[" CLS("cdf") "])"),
		     (double)json_array_size(json_object_get(doc, "histograms")));

	/* one heat map per c2c matrix, n^2 cells each, in document order
	 * within a guest/host pair: compare the multisets of sizes */
	s = nodes(p, "//*[local-name()='svg'][" CLS("heatmap") "]", &keep);
	cr_assert_eq(set_len(s), json_array_size(json_object_get(doc, "c2c")));
	{
		double want = 0, got = 0;

		json_array_foreach(json_object_get(doc, "c2c"), i, e)
		{
			size_t n = json_array_size(json_object_get(e, "cpus"));

			want += (double)(n * n);
		}
		for (i = 0; i < set_len(s); i++) {
			double c = num(p, s->nodeTab[i], "count(.//*[" CLS("cell") "])");
			double n = num(p, s->nodeTab[i], "number(@data-cpus)");

			cr_expect_eq(c, n * n, "heat map %zu: %g cells for %g CPUs", i, c, n);
			got += c;
		}
		cr_expect_eq(got, want);
	}
	xmlXPathFreeObject(keep);

	/* domain levels: one entry per distinct tree of each configuration */
	json_array_foreach(json_object_get(doc, "evidence"), i, e)
	{
		char *expr = vtb_asprintf("count(//*[" CLS("levels") "][@data-config='%s']//*[" CLS(
						  "level") "])",
					  json_string_value(json_object_get(e, "config")));

		cr_expect_eq(num(p, NULL, expr),
			     (double)json_array_size(json_object_get(e, "levels")), "%s", expr);
		free(expr);
	}
}

/* Nothing is fetched: no scripts, stylesheets, images or frames, and
 * links only to anchors of the page. */
static void self_contained(struct page *p)
{
	cr_expect_eq(num(p, NULL,
			 "count(//*[local-name()='script' or local-name()='link' or "
			 "local-name()='img' or local-name()='iframe' or local-name()='object' "
			 "or local-name()='image' or local-name()='use'])"),
		     0);
	cr_expect_eq(num(p, NULL, "count(//@src)"), 0);
	cr_expect_eq(num(p, NULL, "count(//@href[not(starts-with(., '#'))])"), 0);
	cr_expect_eq(num(p, NULL, "count(//@*[starts-with(local-name(), 'on')])"), 0);
	cr_expect_null(strstr(p->html, "url("));
	cr_expect_null(strstr(p->html, "@import"));
}

/* Geometry is finite numbers: no NaN or inf reaches an attribute. */
static void finite_geometry(struct page *p)
{
	static const char *const attrs[] = { "x",  "y",	 "x1", "x2",	"y1",	 "y2",
					     "cx", "cy", "r",  "width", "height" };
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr s = nodes(p, "//*[local-name()='svg']//*", &keep);

	for (size_t i = 0; i < set_len(s); i++) {
		for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
			char *v = prop(s->nodeTab[i], attrs[a]), *end;
			double d;

			if (!v)
				continue;
			d = strtod(v, &end);
			cr_expect(*end == 0 && isfinite(d), "%s=\"%s\"", attrs[a], v);
			xmlFree(v);
		}
	}
	xmlXPathFreeObject(keep);
}

Test(report_html, fixture_is_well_formed_and_every_chart_is_counted)
{
	json_t *doc = load("report-own.json");
	struct page p;

	render(doc, &p);
	marks_match_attributes(&p);
	marks_match_document(&p, doc);
	self_contained(&p);
	finite_geometry(&p);
	/* the page really has the parts: 4 metrics, 4 heat maps, 1 CDF */
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("boxplot") "])"), 4);
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("heatmap") "])"), 4);
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("cdfplot") "])"), 1);
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("heatmap") "][@data-marks='16'])"), 4);
	/* one verdict row per document row, coloured by verdict */
	cr_expect_eq(num(&p, NULL, "count(//*[local-name()='tr'][" CLS("row") "])"), 8);
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("v-worse") "][" CLS("row") "])"), 5);
	page_release(&p);
	json_decref(doc);
}

Test(report_html, baselines_are_marked_in_every_box_plot)
{
	json_t *doc = load("report-own.json");
	struct page p;
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr s;

	render(doc, &p);
	s = nodes(&p, "//*[" CLS("box") "][" CLS("base") "]", &keep);
	cr_expect_eq(set_len(s), 8, "2 baselines in each of 4 box plots");
	for (size_t i = 0; i < set_len(s); i++) {
		char *cfg = prop(s->nodeTab[i], "data-config");

		cr_expect(!strcmp(cfg, "b83e51c07a9d2e44") || !strcmp(cfg, "07f9c2d1e8a6b350"),
			  "%s is no baseline", cfg);
		xmlFree(cfg);
	}
	xmlXPathFreeObject(keep);
	page_release(&p);
	json_decref(doc);
}

Test(report_html, guest_strings_are_escaped)
{
	json_t *doc = load("report-hostile.json");
	struct page p;
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr s;
	char *t;

	render(doc, &p);
	marks_match_attributes(&p);
	marks_match_document(&p, doc);
	self_contained(&p);
	finite_geometry(&p);
	/* the label's markup is text, never an element */
	cr_expect_null(strstr(p.html, "<script"));
	cr_expect_not_null(strstr(p.html, "&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; 'smt'"));
	/* no raw control character anywhere but tab and newline */
	for (size_t i = 0; i < p.len; i++) {
		unsigned char c = (unsigned char)p.html[i];

		cr_assert(c >= 0x20 || c == '\t' || c == '\n', "control byte 0x%02x at %zu", c, i);
		cr_assert(c != 0x7f, "DEL at %zu", i);
	}
	/* what the reader sees: control characters as escapes, U+0085 too,
	 * U+FFFE (not XML) as the replacement character */
	s = nodes(&p, "//*[local-name()='pre'][starts-with(., 'cpu2: name')]", &keep);
	cr_assert_eq(set_len(s), 1);
	t = (char *)xmlNodeGetContent(s->nodeTab[0]);
	cr_expect_str_eq(t,
			 "cpu2: name \"<MC>\" & \\x01\\x07\\x1f\\x7f\\u0085 \xef\xbf\xbd tab\tend");
	xmlFree(t);
	xmlXPathFreeObject(keep);
	/* the label in an attribute (data-config keeps the key; titles the label) */
	cr_expect_gt(num(&p, NULL,
			 "count(//*[local-name()='title'][contains(., '<script>alert(\"x\")')])"),
		     0);
	/* one boot against five: few, a row with no interval (a dash) and no p */
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("row") "]/*[9][. = '-'])"), 1);
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("v-few") "][" CLS("row") "]/*[9][. = '-'])"),
		     1);
	/* the against campaign is a column; the differing host state is marked */
	cr_expect_gt(num(&p, NULL, "count(//*[local-name()='td'][" CLS("diff") "])"), 0);
	/* an unmeasured pair is still a (grey) cell */
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("cell") "][" CLS("na") "])"), 4 * 4 + 1);
	page_release(&p);
	json_decref(doc);
}

Test(report_html, sparse_and_mistyped_documents_still_render)
{
	static const char *const docs[] = {
		"{\"schema\": \"vtbench-compare/2\"}",
		"{\"schema\": \"vtbench-compare/2\", \"campaign\": null, \"rows\": 3,"
		" \"configs\": \"x\", \"histograms\": [{\"config\": \"a\", \"params\": {},"
		" \"buckets\": 7}], \"c2c\": [{\"config\": \"a\", \"cell\": \"c\", \"cpus\": [0, 1],"
		" \"matrix_ns\": [[null, 1]]}], \"evidence\": [{\"levels\": [{\"levels\": \"\"}]}],"
		" \"summary\": {\"rows\": \"many\"}}",
		"{\"schema\": \"vtbench-compare/2\", \"rows\": [{\"metric\": \"m\", \"base\": {},"
		" \"x\": {\"values\": [1, \"x\", null, 2]}, \"change_pct\": 1e308}]}",
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_error_t err;
		json_t *doc = json_loads(docs[i], 0, &err);
		struct page p;

		cr_assert(doc, "doc %zu: %s", i, err.text);
		render(doc, &p);
		marks_match_attributes(&p);
		finite_geometry(&p);
		page_release(&p);
		json_decref(doc);
	}
}

Test(report_html, refuses_other_documents_and_reports_write_errors)
{
	json_t *arr = json_array(), *other = json_pack("{s:s}", "schema", "vtbench-compare/1");
	json_t *doc = load("report-own.json");
	FILE *f = fopen("/dev/null", "w"), *full = fopen("/dev/full", "w");

	cr_assert(arr && other && f);
	cr_expect_eq(render_html(arr, f), -1);
	cr_expect_eq(render_html(other, f), -1);
	cr_expect_not_null(strstr(vtb_errmsg(), "vtbench-compare/1"), "%s", vtb_errmsg());
	if (full) {
		cr_expect_eq(render_html(doc, full), -1);
		cr_expect_not_null(strstr(vtb_errmsg(), "cannot write"), "%s", vtb_errmsg());
		fclose(full);
	}
	fclose(f);
	json_decref(arr);
	json_decref(other);
	json_decref(doc);
}

/* The page's <style> is reports/report.css with its line breaks dropped
 * (the build embeds it so), byte for byte; and the file holds nothing
 * <style> would carry escaped ('<', '>', '&') or XML cannot carry. */
Test(report_html, stylesheet_is_reports_report_css)
{
	const char *src = getenv("SRCDIR");
	char *path = vtb_asprintf("%s/reports/report.css", src ? src : ".");
	json_t *doc = load("report-own.json");
	struct vtb_strbuf want = VTB_STRBUF_INIT;
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr s;
	struct page p;
	xmlChar *got;
	FILE *f;
	int ch;

	cr_assert(path && doc);
	f = fopen(path, "r");
	cr_assert(f, "%s: %s", path, strerror(errno));
	while ((ch = fgetc(f)) != EOF) {
		char c = (char)ch;

		cr_expect(c != '<' && c != '>' && c != '&' && (ch >= 0x20 || c == '\n'),
			  "%s: byte 0x%02x", path, (unsigned)ch);
		if (c != '\n')
			cr_assert_eq(vtb_strbuf_add(&want, &c, 1), 0);
	}
	fclose(f);
	cr_assert_gt(want.len, 100, "%s is (nearly) empty", path);

	render(doc, &p);
	s = nodes(&p, "//*[local-name()='head']/*[local-name()='style']", &keep);
	cr_assert_eq(set_len(s), 1, "one <style> in <head>");
	got = xmlNodeGetContent(s->nodeTab[0]);
	cr_assert_str_eq((const char *)got, vtb_strbuf_str(&want));
	xmlFree(got);
	xmlXPathFreeObject(keep);
	page_release(&p);
	vtb_strbuf_release(&want);
	json_decref(doc);
	free(path);
}

/* The text of a node and its descendants but its <title> (a tooltip,
 * not what the chart shows).  malloc'ed. */
static char *shown_text(xmlNodePtr n)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	for (xmlNodePtr k = n->children; k; k = k->next) {
		if (k->type == XML_TEXT_NODE)
			vtb_strbuf_addstr(&sb, (const char *)k->content);
		else if (k->type == XML_ELEMENT_NODE && strcmp((const char *)k->name, "title")) {
			char *t = shown_text(k);

			vtb_strbuf_addstr(&sb, t);
			free(t);
		}
	}
	vtb_strbuf_addstr(&sb, "");
	return vtb_strbuf_detach(&sb);
}

/* Is @word one of the blank-separated words of @label? */
static bool has_word(const char *label, const char *word, size_t n)
{
	for (const char *p = label; *p; p += strcspn(p, " "), p += strspn(p, " "))
		if (strcspn(p, " ") == n && !strncmp(p, word, n))
			return true;
	return false;
}

/* recommend's race chart on the generated race (the CLI golden's
 * document, tests/cli/recommend_golden.sh): a run per candidate, each
 * labelled "cN" and the words of its label that set it apart, whole
 * words, no two labels alike (the old labels were the whole label cut
 * by the chart's edge before the part that differs); the y axis in the
 * objective's unit, readable (us of 180000 read as ms), the x axis in
 * rounds; a legend row per candidate with its whole label; the TCG note. */
Test(report_html, recommend_race_chart_labels_whole_and_axes_with_units)
{
	const char *src = getenv("SRCDIR");
	char *path = vtb_asprintf("%s/tests/cli/expected/recommend-race.json", src ? src : ".");
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err), *c;
	xmlXPathObjectPtr keep;
	xmlNodeSetPtr labels, units;
	struct page p;
	size_t i;

	cr_assert(doc, "%s: %s", path, err.text);
	free(path);
	render_with(doc, &p, vtb_recommend_html);
	marks_match_attributes(&p);
	self_contained(&p);
	finite_geometry(&p);
	cr_expect_eq(num(&p, NULL, "count(//*[local-name()='svg'][" CLS("racechart") "])"), 1);
	cr_expect_eq(num(&p, NULL, "count(//*[" CLS("racechart") "]//*[" CLS("run") "])"),
		     (double)json_array_size(json_object_get(doc, "candidates")));
	labels = nodes(&p, "//*[" CLS("racechart") "]//*[" CLS("runlabel") "]", &keep);
	cr_assert_eq(set_len(labels), json_array_size(json_object_get(doc, "candidates")));
	for (i = 0; i < set_len(labels); i++) {
		char *t = shown_text(labels->nodeTab[i]), *end;
		long k = t[0] == 'c' ? strtol(t + 1, &end, 10) : 0;
		const char *label;

		cr_assert(k >= 1 && (size_t)k <= set_len(labels) && (!*end || *end == ' '),
			  "label '%s' is not cN", t);
		c = json_array_get(json_object_get(doc, "candidates"), (size_t)k - 1);
		label = json_string_value(json_object_get(c, "label"));
		/* each word after cN a whole word of the candidate's label */
		for (const char *w = *end ? end + 1 : end; *w;
		     w += strcspn(w, " "), w += strspn(w, " "))
			cr_expect(has_word(label, w, strcspn(w, " ")),
				  "'%s': '%.*s' is not a word of '%s'", t, (int)strcspn(w, " "), w,
				  label);
		cr_expect_null(strstr(t, "..."), "'%s' is cut", t);
		cr_expect_null(strstr(t, "\u2026"), "'%s' is cut", t);
		for (size_t j = 0; j < i; j++) {
			char *u = shown_text(labels->nodeTab[j]);

			cr_expect_str_neq(t, u, "two lines read the same");
			free(u);
		}
		if (k == 2)
			cr_expect_str_eq(t, "c2 sched=isolate");
		free(t);
	}
	xmlXPathFreeObject(keep);
	units = nodes(&p, "//*[" CLS("racechart") "]//*[" CLS("axis") "]//*[" CLS("unit") "]",
		      &keep);
	cr_assert_eq(set_len(units), 2, "an x and a y axis with their unit");
	for (i = 0; i < 2; i++) {
		char *t = shown_text(units->nodeTab[i]);

		cr_expect(!strcmp(t, "ms") || !strcmp(t, "round"), "axis unit '%s'", t);
		free(t);
	}
	xmlXPathFreeObject(keep);
	/* the legend: each cN beside its whole label */
	json_array_foreach(json_object_get(doc, "candidates"), i, c)
	{
		char *x = vtb_asprintf("count(//*[local-name()='tr'][*[local-name()='td'][2]='c%zu']"
				       "[*[local-name()='td'][3]='%s'])",
				       i + 1, json_string_value(json_object_get(c, "label")));

		cr_expect_eq(num(&p, NULL, x), 1, "%s", x);
		free(x);
	}
	cr_expect_eq(num(&p, NULL,
			 "count(//*[local-name()='p'][" CLS(
				 "advice") "]"
					   "[starts-with(., 'Note: guests ran under TCG')])"),
		     1);
	page_release(&p);
	json_decref(doc);
}
