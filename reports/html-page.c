/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: the compare document as one page with inline CSS
 * (reports/report.css) and the SVG charts of html-charts.c.  libxml2
 * builds the tree and escapes; this file only decides what goes where.
 * Empty elements are written open and closed (XML_SAVE_NO_EMPTY) because
 * HTML parsers ignore "/>" on <td/>, <g/>...; the CSS avoids '<', '>' and
 * '&', which <style> would carry escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <libxml/xmlsave.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/vtbutil.h"
#include "html.h"
#include "evwords.h"
#include "report.h"

/* ---- page parts ---- */

/* reports/report.css, its line breaks dropped (the Makefile makes it a C
 * array in $(BUILD)/gen); it avoids '<', '>' and '&', which <style> would
 * carry escaped (tests/unit/test_report_html.c checks). */
extern const char vtb_report_css[];

static char *fmt_time_ns(double ns)
{
	time_t t;
	struct tm tm;
	char buf[64];

	if (!isfinite(ns) || ns <= 0 || ns > 1e19)
		return strdup("-");
	t = (time_t)(ns / 1e9);
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm))
		return strdup("-");
	return strdup(buf);
}

/* ---- the answer first: boots and failures (then the headline chart) ---- */

/* The campaign's boots by status and what failed, before any result. */
static void part_boots(struct page *pg, xmlNodePtr body, const json_t *camp, const char *who)
{
	static const char *const st[] = { "ok", "failed", "timeout", "unexpected-topology" };
	const json_t *b = json_object_get(camp, "boots"), *fl = json_object_get(camp, "failures");
	const json_t *o;
	xmlNodePtr p, ul;
	double v;
	size_t i;

	if (!json_is_object(b))
		return;
	p = html_el(pg, body, "p", NULL);
	html_attr(pg, p, "class", "boots");
	if (who)
		html_text(pg, p, who);
	html_elf(pg, p, "b", "%s boots:", html_jfmt(b, "total").s);
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		if (!html_jnum(b, st[i], &v) || (i && v <= 0))
			continue;
		html_attrf(pg, html_elf(pg, p, "span", "%s %s", html_fmt_num(v).s, st[i]), "class",
			   "badge %s", i ? "v-error" : "v-same");
	}
	if (!json_array_size(fl))
		return;
	ul = html_el(pg, body, "ul", NULL);
	html_attr(pg, ul, "class", "failures");
	json_array_foreach(fl, i, o)
	{
		const json_t *reps = json_object_get(o, "reps"), *r;
		struct vtb_strbuf sb = VTB_STRBUF_INIT;
		const char *cell = html_jstr(o, "cell");
		xmlNodePtr li = html_el(pg, ul, "li", NULL);
		size_t k;

		json_array_foreach(reps, k, r)
			pg->failed |= vtb_strbuf_addf(&sb, "%s%" JSON_INTEGER_FORMAT, k ? "," : "",
						      json_integer_value(r)) < 0;
		html_swatch(pg, li,
			    html_cfg_colour(pg, html_jstr(o, "config"), html_jstr(camp, "uuid")));
		html_text(pg, li, html_orstr(html_jstr(o, "label")));
		if (cell)
			html_elf(pg, li, "b", " %s: %s", cell, html_orstr(html_jstr(o, "status")));
		else
			html_elf(pg, li, "b", ": boot %s", html_orstr(html_jstr(o, "status")));
		html_elf(pg, li, "span", " in %s boot%s (rep%s %s)", html_jfmt(o, "boots").s,
			 json_array_size(reps) == 1 ? "" : "s",
			 json_array_size(reps) == 1 ? "" : "s", sb.len ? vtb_strbuf_str(&sb) : "?");
		vtb_strbuf_release(&sb);
		if (html_jstr(o, "reason")) {
			html_text(pg, li, ": ");
			html_attr(pg, html_el(pg, li, "span", html_jstr(o, "reason")), "class",
				  "mono");
		}
	}
}

/* Under TCG the ratios say nothing about virtualization (report.h): said
 * up front, once, when campaign @camp or @against (NULL: none) ran there. */
void html_tcg_note(struct page *pg, xmlNodePtr body, const json_t *camp, const json_t *against)
{
	if (!vtb_report_ran_tcg(camp) && !(json_is_object(against) && vtb_report_ran_tcg(against)))
		return;
	html_attr(pg, html_elf(pg, body, "p", "Note: %s.", vtb_report_tcg_note), "class", "advice");
}

static void part_header(struct page *pg, xmlNodePtr body)
{
	const json_t *camp = json_object_get(pg->rep, "campaign");
	const json_t *against = json_object_get(pg->rep, "against");
	const json_t *sum = json_object_get(pg->rep, "summary");
	static const struct {
		const char *key, *label, *cls;
	} counts[] = {
		{ "worse", "worse", "v-worse" },
		{ "better", "better", "v-better" },
		{ "same", "same", "v-same" },
		{ "inconclusive", "inconclusive", "v-inconclusive" },
		{ "few", "few", "v-few" },
		{ "missing", "missing", "v-missing" },
		{ "error", "error", "v-error" },
	};
	xmlNodePtr p, nav;
	double v;

	html_el(pg, body, "h1", "vtbench compare");
	p = html_el(pg, body, "p", NULL);
	html_text(pg, p, "campaign ");
	html_el(pg, p, "span", html_orstr(html_jstr(camp, "uuid")));
	html_text(pg, p, " on ");
	html_el(pg, p, "b", html_orstr(html_jstr(camp, "host")));
	if (json_is_object(against)) {
		html_text(pg, p, " against campaign ");
		html_el(pg, p, "span", html_orstr(html_jstr(against, "uuid")));
		html_text(pg, p, " on ");
		html_el(pg, p, "b", html_orstr(html_jstr(against, "host")));
	}
	p = html_el(pg, body, "p", NULL);
	html_attr(pg, p, "class", "summary");
	if (html_jnum(sum, "rows", &v))
		html_elf(pg, p, "span", "%s rows: ", html_fmt_num(v).s);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		xmlNodePtr b;

		if (!html_jnum(sum, counts[i].key, &v))
			continue;
		b = html_elf(pg, p, "span", "%s %s", html_fmt_num(v).s, counts[i].label);
		html_attrf(pg, b, "class", "badge %s", counts[i].cls);
	}
	{
		double rows = NAN, few = NAN, level = NAN, tested = NAN, sig = NAN, aside = NAN;
		double minn = NAN;

		html_jnum(sum, "rows", &rows);
		html_jnum(sum, "few", &few);
		html_jnum(sum, "ci_level", &level);
		html_jnum(sum, "tested", &tested);
		html_jnum(sum, "significant", &sig);
		html_jnum(sum, "set_aside", &aside);
		html_jnum(json_object_get(pg->rep, "options"), "min_n", &minn);
		if (rows > 0 && few == rows) {
			p = html_el(pg, body, "p", NULL);
			html_attr(pg, p, "class", "advice");
			html_elf(pg, p, "b", "Nothing could be judged: %s boots a side are needed.",
				 html_fmt_num(minn >= 2 ? minn : 2).s);
		} else if (tested > 0 && level > 0) {
			p = html_elf(pg, body, "p",
				     "Intervals at %s%% (%s of %s rows tested significant: the level "
				     "Benjamini-Hochberg selects by)%s%s",
				     html_fmt_num(level * 100).s, html_fmt_num(sig).s,
				     html_fmt_num(tested).s,
				     aside > 0 ? "; rows with a boot set aside: " : "",
				     aside > 0 ? html_fmt_num(aside).s : "");
		}
	}
	part_boots(pg, body, camp, NULL);
	if (json_is_object(against))
		part_boots(pg, body, against, "against: ");
	if (html_jstr(pg->rep, "advice") && !json_array_size(json_object_get(pg->rep, "rows"))) {
		p = html_el(pg, body, "p", NULL);
		html_attr(pg, p, "class", "advice");
		html_el(pg, p, "b", "Nothing to compare. ");
		html_text(pg, p, html_jstr(pg->rep, "advice"));
	}
	html_tcg_note(pg, body, camp, against);
	html_headline(pg, body);
	nav = html_el(pg, body, "nav", NULL);
	static const char *const links[][2] = {
		{ "#campaign", "campaign" },	   { "#configs", "configurations" },
		{ "#verdicts", "verdicts" },	   { "#values", "per-boot values" },
		{ "#cdf", "latency CDFs" },	   { "#c2c", "core-to-core" },
		{ "#evidence", "guest evidence" },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		html_attr(pg, html_el(pg, nav, "a", links[i][1]), "href", links[i][0]);
}

/* Flattened host state: "a.b" keys with their values as text. */
struct kv {
	char **k, **v;
	size_t n;
};

static int kv_add(struct kv *kv, const char *k, const json_t *v)
{
	char **nk = realloc(kv->k, (kv->n + 1) * sizeof(*nk)), **nv;

	if (!nk)
		return -1;
	kv->k = nk;
	nv = realloc(kv->v, (kv->n + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	kv->v = nv;
	kv->k[kv->n] = strdup(k);
	kv->v[kv->n] = html_jtext(v);
	kv->n++;
	return kv->k[kv->n - 1] && kv->v[kv->n - 1] ? 0 : -1;
}

static int flatten(struct kv *kv, const char *prefix, const json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)o, k, v)
	{
		char *name = prefix ? vtb_asprintf("%s.%s", prefix, k) : strdup(k);
		int ret;

		if (!name)
			return -1;
		if (json_is_object(v) && json_object_size(v))
			ret = flatten(kv, name, v);
		else
			ret = kv_add(kv, name, v);
		free(name);
		if (ret)
			return -1;
	}
	return 0;
}

static void kv_release(struct kv *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->k[i]);
		free(kv->v[i]);
	}
	free(kv->k);
	free(kv->v);
}

static const char *kv_find(const struct kv *kv, const char *k)
{
	for (size_t i = 0; i < kv->n; i++)
		if (!strcmp(kv->k[i], k))
			return kv->v[i];
	return NULL;
}

static void host_state(struct page *pg, xmlNodePtr parent, const json_t *a, const json_t *b)
{
	struct kv ka = { 0 }, kb = { 0 };
	xmlNodePtr det, tbody, tr;
	static const char *const one[] = { "setting", "value", NULL };
	static const char *const two[] = { "setting", "campaign", "against", NULL };

	if (!json_is_object(a) && !json_is_object(b))
		return;
	if ((json_is_object(a) && flatten(&ka, NULL, a)) ||
	    (json_is_object(b) && flatten(&kb, NULL, b))) {
		pg->failed = true;
		goto out;
	}
	det = html_el(pg, parent, "details", NULL);
	html_el(pg, det, "summary", "host state snapshot (differences highlighted)");
	tbody = html_header_row(pg, html_el(pg, det, "table", NULL), json_is_object(b) ? two : one);
	for (int side = 0; side < 2; side++) {
		const struct kv *kv = side ? &kb : &ka;

		for (size_t i = 0; i < kv->n; i++) {
			const char *va, *vb;

			if (side && kv_find(&ka, kv->k[i]))
				continue; /* listed with the first */
			va = kv_find(&ka, kv->k[i]);
			vb = kv_find(&kb, kv->k[i]);
			tr = html_el(pg, tbody, "tr", NULL);
			html_attr(pg, html_el(pg, tr, "td", kv->k[i]), "class", "k mono");
			html_el(pg, html_el(pg, tr, "td", NULL), "pre", va ? va : "(absent)");
			if (json_is_object(b)) {
				xmlNodePtr td = html_el(pg, tr, "td", NULL);

				html_el(pg, td, "pre", vb ? vb : "(absent)");
				if (!va || !vb || strcmp(va, vb))
					html_attr(pg, td, "class", "diff");
			}
		}
	}
out:
	kv_release(&ka);
	kv_release(&kb);
}

/* A campaign's field as a cell: times as UTC dates, arrays as a comma
 * list, the rest as html_jtext() writes it. */
static void campaign_cell(struct page *pg, xmlNodePtr tr, const json_t *side, const char *field)
{
	json_t *v = json_object_get(side, field);

	if (!strcmp(field, "started_ns") || !strcmp(field, "ended_ns")) {
		double ns = NAN;
		char *t;

		html_jnum(side, field, &ns);
		t = fmt_time_ns(ns);
		if (!t)
			pg->failed = true;
		html_el(pg, tr, "td", t ? t : "-");
		free(t);
	} else if (json_is_array(v)) {
		struct vtb_strbuf sb = VTB_STRBUF_INIT;
		json_t *e;
		size_t k;

		json_array_foreach(v, k, e)
		{
			char *t = html_jtext(e);

			if (!t || vtb_strbuf_addf(&sb, "%s%s", k ? ", " : "", t))
				pg->failed = true;
			free(t);
		}
		html_el(pg, tr, "td", sb.len ? vtb_strbuf_str(&sb) : "-");
		vtb_strbuf_release(&sb);
	} else {
		html_td_json(pg, tr, v);
	}
}

/* The options the verdicts were reached with. */
static void campaign_options(struct page *pg, xmlNodePtr body, const json_t *opt)
{
	const json_t *cov = json_object_get(opt, "cov_limit");
	xmlNodePtr tbody, tr;
	double a, b, c;

	html_el(pg, body, "h3", "Options");
	tbody = html_header_row(pg, html_el(pg, body, "table", NULL),
				(const char *const[]){ "baseline", "axis", "threshold", "alpha",
						       "interval level", "noisy above CoV",
						       "fail on", NULL });
	tr = html_el(pg, tbody, "tr", NULL);
	html_td_json(pg, tr, json_object_get(opt, "baseline"));
	html_td_json(pg, tr, json_object_get(opt, "axis"));
	if (html_jnum(opt, "threshold_pct", &a))
		html_elf(pg, tr, "td", "%s%%", html_fmt_num(a).s);
	else
		html_el(pg, tr, "td", "-");
	html_td_json(pg, tr, json_object_get(opt, "alpha"));
	/* the level the intervals are at (the table's, from the summary) */
	if (html_jnum(json_object_get(pg->rep, "summary"), "ci_level", &a) ||
	    html_jnum(opt, "ci_level", &a))
		html_elf(pg, tr, "td", "%s%%", html_fmt_num(a * 100).s);
	else
		html_el(pg, tr, "td", "-");
	if (html_jnum(cov, "throughput", &a) && html_jnum(cov, "time", &b) &&
	    html_jnum(cov, "latency", &c))
		html_elf(pg, tr, "td", "throughput %s%%, time %s%%, latency %s%%",
			 html_fmt_num(a).s, html_fmt_num(b).s, html_fmt_num(c).s);
	else
		html_td_json(pg, tr, cov);
	html_td_json(pg, tr, json_object_get(opt, "fail_on"));
}

/* Fields only a campaign with VMs has. */
static bool vm_only(const char *field)
{
	return !strcmp(field, "guest_kernels") || !strcmp(field, "accelerators") ||
	       !strcmp(field, "libvirt_version") || !strcmp(field, "qemu_version");
}

static void part_campaign(struct page *pg, xmlNodePtr body)
{
	const json_t *camp = json_object_get(pg->rep, "campaign");
	const json_t *ag = json_object_get(pg->rep, "against");
	const json_t *opt = json_object_get(pg->rep, "options");
	const json_t *sides[2] = { camp, json_is_object(ag) ? ag : NULL };
	static const char *const fields[][2] = {
		{ "uuid", "campaign" },
		{ "host", "host" },
		{ "cpu", "CPU" },
		{ "kernel", "host kernel" },
		{ "guest_kernels", "guest kernels" },
		{ "accelerators", "accelerator" },
		{ "libvirt_version", "libvirt" },
		{ "qemu_version", "QEMU" },
		{ "version", "vtbench" },
		{ "matrix_path", "matrix file" },
		{ "matrix_digest", "matrix digest" },
		{ "started_ns", "started" },
		{ "ended_ns", "ended" },
	};
	static const char *const one[] = { "", "campaign", NULL };
	static const char *const two[] = { "", "campaign", "against", NULL };
	json_t *cfgs = json_object_get(pg->rep, "configs"), *c;
	xmlNodePtr tbody, tr;
	bool vms = false;
	size_t k;

	/* a campaign of baselines alone: no accelerator, libvirt, QEMU or
	 * guest kernel to show */
	json_array_foreach(cfgs, k, c)
		vms |= html_jstr(c, "kind") && !strcmp(html_jstr(c, "kind"), "vm");
	html_section(pg, body, "campaign", "Campaign", NULL);
	tbody = html_header_row(pg, html_el(pg, body, "table", NULL), sides[1] ? two : one);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!vms && vm_only(fields[i][0]))
			continue;
		tr = html_el(pg, tbody, "tr", NULL);
		html_attr(pg, html_el(pg, tr, "td", fields[i][1]), "class", "k");
		for (int s = 0; s < (sides[1] ? 2 : 1); s++)
			campaign_cell(pg, tr, sides[s], fields[i][0]);
	}
	host_state(pg, body, json_object_get(camp, "host_state"),
		   sides[1] ? json_object_get(ag, "host_state") : NULL);
	if (json_is_object(opt))
		campaign_options(pg, body, opt);
}

static void part_configs(struct page *pg, xmlNodePtr body)
{
	json_t *cfgs = json_object_get(pg->rep, "configs"), *c;
	xmlNodePtr tbody;
	size_t i;

	html_section(pg, body, "configs", "Configurations", NULL);
	tbody = html_header_row(pg, html_el(pg, body, "table", NULL),
				(const char *const[]){ "name", "configuration", "kind", "key",
						       "campaign", "CPUs", "parameters", NULL });
	json_array_foreach(cfgs, i, c)
	{
		xmlNodePtr tr = html_el(pg, tbody, "tr", NULL), td;
		struct kv kv = { 0 };
		struct vtb_strbuf sb = VTB_STRBUF_INIT;

		/* the text report's legend and the headline chart's names */
		html_attr(pg, html_elf(pg, tr, "td", "c%zu", i + 1), "class", "cname");
		td = html_el(pg, tr, "td", NULL);
		html_swatch(pg, td, html_palette(i));
		html_text(pg, td, html_orstr(html_jstr(c, "label")));
		html_el(pg, tr, "td", html_orstr(html_jstr(c, "kind")));
		html_attr(pg, html_el(pg, tr, "td", html_orstr(html_jstr(c, "key"))), "class",
			  "key");
		html_attr(pg, html_el(pg, tr, "td", html_orstr(html_jstr(c, "campaign"))), "class",
			  "key");
		html_td_json(pg, tr, json_object_get(c, "cpus"));
		if (json_is_object(json_object_get(c, "params")) &&
		    flatten(&kv, NULL, json_object_get(c, "params")))
			pg->failed = true;
		for (size_t k = 0; k < kv.n; k++)
			if (vtb_strbuf_addf(&sb, "%s%s=%s", k ? "  " : "", kv.k[k], kv.v[k]))
				pg->failed = true;
		html_attr(pg, html_el(pg, tr, "td", sb.len ? vtb_strbuf_str(&sb) : "-"), "class",
			  "mono");
		vtb_strbuf_release(&sb);
		kv_release(&kv);
	}
}

static void part_verdicts(struct page *pg, xmlNodePtr body)
{
	json_t *rows = json_object_get(pg->rep, "rows"), *r;
	xmlNodePtr tbody;
	size_t i;

	html_section(
		pg, body, "verdicts", "Verdicts",
		"Change = mean of the configuration vs mean of its baseline (harmonic mean for "
		"rates, geometric for latencies), with the t interval of that ratio from the same "
		"t statistic as the test. * = significant after Benjamini-Hochberg (q below "
		"alpha). worse/better: significant and the change beyond the threshold "
		"(confirmed: the whole interval beyond it); same: the interval within the "
		"threshold; inconclusive: neither yet, with the boots a side that would decide "
		"it; few: under 2 boots a side; missing: no result on a side; error: values the "
		"statistic cannot take.");
	tbody = html_header_row(pg, html_el(pg, body, "table", NULL),
				(const char *const[]){ "workload / cell / metric", "baseline", "n",
						       "mean", "configuration", "n", "mean",
						       "change", "CI", "test", "p", "q", "verdict",
						       NULL });
	json_array_foreach(rows, i, r)
	{
		const json_t *base = json_object_get(r, "base"), *x = json_object_get(r, "x");
		const char *better = html_jstr(r, "better"), *verdict = html_jstr(r, "verdict");
		xmlNodePtr tr = html_el(pg, tbody, "tr", NULL), td;
		double lo, hi, ch;
		char *l;

		html_attrf(pg, tr, "class", "row %s", html_verdict_class(verdict));
		td = html_el(pg, tr, "td", NULL);
		html_elf(pg, td, "span", "%s / %s / ", html_orstr(html_jstr(r, "workload")),
			 html_orstr(html_jstr(r, "cell")));
		html_el(pg, td, "b", html_orstr(html_jstr(r, "metric")));
		html_elf(pg, td, "span", " %s %s", html_orstr(html_jstr(r, "unit")),
			 better ? (!strcmp(better, "higher") ? "\xe2\x86\x91" : "\xe2\x86\x93")
				: "");
		for (int s = 0; s < 2; s++) {
			const json_t *side = s ? x : base;
			const char *key = html_jstr(side, "config");

			td = html_el(pg, tr, "td", NULL);
			html_attr(pg, td, "class", "lbl");
			html_swatch(pg, td, html_cfg_colour(pg, key, html_jstr(side, "campaign")));
			l = html_side_label(pg, key, html_jstr(side, "campaign"));
			if (!l)
				pg->failed = true;
			html_text(pg, td, l ? l : "-");
			free(l);
			html_td_num(pg, tr, html_jfmt(json_object_get(side, "summary"), "n").s);
			html_td_num(pg, tr, html_jfmt(json_object_get(side, "summary"), "mean").s);
		}
		if (html_jnum(r, "change_pct", &ch)) {
			char buf[64];

			snprintf(buf, sizeof(buf), "%s%s", html_fmt_pct(ch).s,
				 json_is_true(json_object_get(r, "significant")) ? "*" : "");
			html_td_num(pg, tr, buf);
		} else {
			html_td_num(pg, tr, "-");
		}
		if (html_jnum(r, "ci_low_pct", &lo) && html_jnum(r, "ci_high_pct", &hi)) {
			char buf[128];

			snprintf(buf, sizeof(buf), "[%s, %s]", html_fmt_pct(lo).s,
				 html_fmt_pct(hi).s);
			html_td_num(pg, tr, buf);
		} else {
			html_td_num(pg, tr, "-");
		}
		html_el(pg, tr, "td", html_orstr(html_jstr(r, "test")));
		html_td_num(pg, tr, html_jfmt(r, "p").s);
		html_td_num(pg, tr, html_jfmt(r, "q").s);
		td = html_el(pg, tr, "td", html_orstr(verdict));
		html_attr(pg, td, "class", "verdict");
		if (json_is_true(json_object_get(r, "confirmed")))
			html_text(pg, td, " confirmed");
		if (html_jnum(r, "boots_needed", &ch))
			html_elf(pg, td, "div", "about %s boots a side would decide it",
				 html_fmt_num(ch).s);
		else if (html_jnum(r, "boots_needed_over", &ch))
			html_elf(pg, td, "div", "more than %s boots a side would be needed",
				 html_fmt_num(ch).s);
		for (int side = 0; side < 2; side++) {
			const json_t *e,
				*a = json_object_get(json_object_get(r, side ? "x" : "base"),
						     "set_aside");
			size_t k;

			json_array_foreach(a, k, e)
			{
				double rep = NAN, boot = NAN;

				html_jnum(e, "rep", &rep);
				html_jnum(e, "boot", &boot);
				html_elf(pg, td, "div",
					 "set aside: boot rep %s (id %s) of the %s side, %s",
					 html_fmt_num(rep).s, html_fmt_num(boot).s,
					 side ? "compared" : "baseline",
					 html_orstr(html_jstr(e, "why")));
			}
		}
		if (html_jstr(r, "reason"))
			html_el(pg, td, "div", html_jstr(r, "reason"));
		if (html_jstr(r, "tail_note"))
			html_elf(pg, td, "div", "judged per boot: %s", html_jstr(r, "tail_note"));
		if (json_is_true(json_object_get(r, "noisy")))
			html_el(pg, td, "div", "noisy (CoV above its limit)");
	}
}

/* ---- guest evidence ---- */

/* The placement fractions of @o that are numbers, one line each. */
static void pct_lines(struct page *pg, xmlNodePtr td, const json_t *o)
{
	static const char *const keys[][2] = {
		{ "smt_split_core", "SMT pairs split" },
		{ "llc_split_llc", "LLC groups split" },
		{ "node_split_node", "nodes split" },
	};
	double v, w;
	bool any = false;
	xmlNodePtr d;

	if (html_jnum(o, "off_planned_mean", &v) && html_jnum(o, "off_planned_max", &w)) {
		d = html_elf(pg, td, "div", "off plan %.1f%% mean, %.1f%% max",
			     fabs(v) < 1e9 ? v * 100 : 0, fabs(w) < 1e9 ? w * 100 : 0);
		html_attr(pg, d, "class", "nw");
		any = true;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!html_jnum(o, keys[i][0], &v))
			continue;
		d = html_elf(pg, td, "div", "%s %.1f%%", keys[i][1], fabs(v) < 1e9 ? v * 100 : 0);
		html_attr(pg, d, "class", "nw");
		any = true;
	}
	if (!any)
		html_text(pg, td, "no host-side samples");
}

/* What the configuration was told: "key value" lines. */
static void ev_told(struct page *pg, xmlNodePtr tr, const json_t *told)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)told, k, v)
	{
		char *t = html_jtext(v);

		if (!t || vtb_strbuf_addf(&sb, "%s%s %s", sb.len ? "\n" : "", k, t))
			pg->failed = true;
		free(t);
	}
	html_el(pg, html_el(pg, tr, "td", NULL), "pre", sb.len ? vtb_strbuf_str(&sb) : "-");
	vtb_strbuf_release(&sb);
}

/* The guests' claims, one line each, the state coloured. */
static void ev_claims(struct page *pg, xmlNodePtr tr, const json_t *claims)
{
	xmlNodePtr td = html_el(pg, tr, "td", json_array_size(claims) ? NULL : "none");
	const json_t *v;
	size_t j;

	json_array_foreach(claims, j, v)
	{
		char *vc = html_jtext(json_object_get(v, "vcpus"));
		const char *st = html_orstr(html_jstr(v, "state"));
		xmlNodePtr line = html_el(pg, td, "div", NULL);

		html_elf(pg, line, "span", "%s vCPUs %s: ", html_orstr(html_jstr(v, "kind")),
			 vc ? vc : "?");
		html_attrf(pg, html_el(pg, line, "span", st), "class", "st-%s",
			   !strcmp(st, "true") || !strcmp(st, "false") || !strcmp(st, "unbacked")
				   ? st
				   : "other");
		free(vc);
	}
}

/* The domain trees the guests built, a level entry each (countable:
 * data-mark "level") with its boots. */
static void ev_levels(struct page *pg, xmlNodePtr tr, const json_t *levels, const char *cfg)
{
	xmlNodePtr div = html_el(pg, html_el(pg, tr, "td", NULL), "div", NULL);
	const json_t *v;
	size_t j;

	html_attr(pg, div, "class", "levels");
	html_attr(pg, div, "data-mark", "level");
	html_attrf(pg, div, "data-marks", "%zu", json_array_size(levels));
	html_attr(pg, div, "data-config", html_orstr(cfg));
	json_array_foreach(levels, j, v)
	{
		const char *names = html_jstr(v, "levels");
		xmlNodePtr lv = html_el(pg, div, "span", NULL);
		char *copy = strdup(names ? names : ""), *tok, *save = NULL;
		double boots;

		html_attr(pg, lv, "class", "level");
		if (!copy)
			pg->failed = true;
		for (tok = copy ? strtok_r(copy, " ", &save) : NULL; tok;
		     tok = strtok_r(NULL, " ", &save))
			html_attr(pg, html_el(pg, lv, "span", tok), "class", "dom");
		if (!copy || !*copy)
			html_attr(pg, html_el(pg, lv, "span", "none"), "class", "dom");
		free(copy);
		if (html_jnum(v, "boots", &boots))
			html_elf(pg, lv, "span", " \xc3\x97%s", html_fmt_num(boots).s);
	}
}

/* The boots checked against the plan, an unexpected topology in red. */
static void ev_boots(struct page *pg, xmlNodePtr tr, const json_t *e)
{
	xmlNodePtr td = html_el(pg, tr, "td", NULL), d;
	double u = 0;

	html_elf(pg, td, "div", "%s boots", html_jfmt(e, "boots").s);
	html_elf(pg, td, "div", "%s as planned", html_jfmt(e, "matched").s);
	d = html_elf(pg, td, "div", "%s unexpected-topology", html_jfmt(e, "unexpected").s);
	if (html_jnum(e, "unexpected", &u) && u > 0)
		html_attr(pg, d, "class", "st-false");
	html_elf(pg, td, "div", "%s unchecked", html_jfmt(e, "unchecked").s);
}

/* membw below STREAM's 4 x LLC rule (compare.c, "notes"): a line each. */
static void ev_notes(struct page *pg, xmlNodePtr body, const json_t *ev)
{
	const json_t *e, *v;
	size_t i, j;

	json_array_foreach(ev, i, e)
	{
		json_array_foreach(json_object_get(e, "notes"), j, v)
		{
			const char *cfg = html_jstr(e, "config");
			xmlNodePtr p;

			if (!json_is_string(v))
				continue;
			p = html_el(pg, body, "p", NULL);
			html_attr(pg, p, "class", "note stream-rule");
			html_swatch(pg, p, html_cfg_colour(pg, cfg, NULL));
			html_elf(pg, p, "span", "%s: %s",
				 html_jstr(e, "label") ? html_jstr(e, "label")
						       : html_cfg_label(pg, cfg, NULL),
				 json_string_value(v));
		}
	}
}

static const char *ev_num(const json_t *o, const char *k, const char *suffix,
			  char buf[VTB_EV_NUM_MAX])
{
	double v;

	return vtb_ev_num(html_jnum(o, k, &v) ? v : NAN, suffix, buf);
}

/* The scheduler's counters per configuration, cell and level (issue 28),
 * then the largest differences of each compared pair in words. */
static void ev_sched(struct page *pg, xmlNodePtr body, const json_t *ev)
{
	const json_t *e, *cell, *l, *diffs = json_object_get(pg->rep, "evidence_diffs"), *d;
	xmlNodePtr tbody = NULL, ul;
	size_t i, j, k;
	char b[6][VTB_EV_NUM_MAX];

	json_array_foreach(ev, i, e)
	{
		const char *cfg = html_jstr(e, "config");

		json_array_foreach(json_object_get(e, "sched"), j, cell)
		{
			const json_t *m = json_object_get(cell, "metrics");
			const json_t *levels = json_object_get(cell, "levels");
			size_t nl = json_array_size(levels) ? json_array_size(levels) : 1;

			if (!tbody) {
				html_el(pg, body, "h3", "Scheduler counters over each cell");
				tbody = html_header_row(
					pg, html_el(pg, body, "table", NULL),
					(const char *const[]){ "configuration", "cell", "level",
							       "balance attempts/s", "failed",
							       "tasks moved/s", "wake-ups remote",
							       "tasks waiting per run queue",
							       "vCPUs waited (host)", "preempted/s",
							       NULL });
			}
			for (k = 0; k < nl; k++) {
				xmlNodePtr tr = html_el(pg, tbody, "tr", NULL), td;

				l = json_array_get(levels, k);
				td = html_el(pg, tr, "td", NULL);
				html_attr(pg, td, "class", "lbl");
				html_swatch(pg, td, html_cfg_colour(pg, cfg, NULL));
				html_text(pg, td, html_cfg_label(pg, cfg, NULL));
				html_el(pg, tr, "td", html_orstr(html_jstr(cell, "cell")));
				if (l) {
					/* the kernel's names: SMT, MC, PKG */
					const char *n = html_orstr(html_jstr(l, "level"));
					char *up = vtb_ev_level(n, strlen(n));

					if (!up)
						pg->failed = true;
					html_el(pg, tr, "td", up ? up : "?");
					free(up);
				} else {
					html_el(pg, tr, "td", "none");
				}
				html_el(pg, tr, "td", ev_num(l, "lb_per_s", "", b[0]));
				html_el(pg, tr, "td",
					ev_num(l, "lb_failed_pct", "%", b[1]));
				html_el(pg, tr, "td", ev_num(l, "moved_per_s", "", b[2]));
				html_el(pg, tr, "td",
					ev_num(json_object_get(m, "wake_remote_pct"), "mean", "%", b[3]));
				html_el(pg, tr, "td",
					ev_num(json_object_get(m, "guest_runq_wait"), "mean", "", b[4]));
				html_el(pg, tr, "td",
					ev_num(json_object_get(m, "vcpu_run_delay_pct"), "mean", "%", b[5]));
				html_el(pg, tr, "td",
					ev_num(json_object_get(m, "vcpu_preempt_per_s"), "mean", "", b[0]));
			}
		}
	}
	if (!json_array_size(diffs))
		return;
	html_el(pg, body, "h3", "Scheduler evidence: the largest differences");
	ul = html_el(pg, body, "ul", NULL);
	html_attr(pg, ul, "class", "evidence-diffs");
	json_array_foreach(diffs, i, d)
	{
		char *xn = vtb_strdup(html_cfg_label(pg, html_jstr(d, "x"), NULL));
		char *bn = vtb_strdup(html_cfg_label(pg, html_jstr(d, "base"), NULL));
		char *w = xn && bn ? vtb_ev_words(json_object_get(d, "items"), xn, bn) : NULL;

		if (!w)
			pg->failed = true;
		else
			html_elf(pg, ul, "li", "%s: %s", html_orstr(html_jstr(d, "cell")), w);
		free(w);
		free(xn);
		free(bn);
	}
}

static void part_evidence(struct page *pg, xmlNodePtr body)
{
	json_t *ev = json_object_get(pg->rep, "evidence"), *e;
	xmlNodePtr tbody;
	size_t i;

	html_section(
		pg, body, "evidence", "Guest evidence",
		"What each VM configuration was told, the sched-domain levels its guests built "
		"(innermost first, DIE written PKG; compared only within one guest kernel), and "
		"where its vCPUs ran on the host.");
	if (!json_array_size(ev)) {
		html_el(pg, body, "p", "No VM configurations.");
		return;
	}
	tbody = html_header_row(pg, html_el(pg, body, "table", NULL),
				(const char *const[]){ "configuration", "told", "claims",
						       "domain levels (boots)", "guest kernel",
						       "boots checked", "first difference",
						       "where the vCPUs ran", NULL });
	json_array_foreach(ev, i, e)
	{
		const char *cfg = html_jstr(e, "config");
		xmlNodePtr tr = html_el(pg, tbody, "tr", NULL), td;

		td = html_el(pg, tr, "td", NULL);
		html_attr(pg, td, "class", "lbl");
		html_swatch(pg, td, html_cfg_colour(pg, cfg, NULL));
		html_text(pg, td,
			  html_jstr(e, "label") ? html_jstr(e, "label")
						: html_cfg_label(pg, cfg, NULL));
		ev_told(pg, tr, json_object_get(e, "told"));
		ev_claims(pg, tr, json_object_get(e, "claims"));
		ev_levels(pg, tr, json_object_get(e, "levels"), cfg);
		html_el(pg, tr, "td", html_orstr(html_jstr(e, "guest_kernel")));
		ev_boots(pg, tr, e);
		html_el(pg, html_el(pg, tr, "td", NULL), "pre",
			html_orstr(html_jstr(e, "first_diff")));
		pct_lines(pg, html_el(pg, tr, "td", NULL), e);
	}
	ev_notes(pg, body, ev);
	ev_sched(pg, body, ev);
}

/* ---- output ---- */

struct sink {
	FILE *f;
	bool failed;
	int err;
};

/* A failed write is remembered and reported once by page_render();
 * libxml2 is told all went well, so it prints nothing on stderr. */
static int sink_write(void *ctx, const char *buf, int len)
{
	struct sink *s = ctx;

	if (!s->failed && len > 0 && fwrite(buf, 1, (size_t)len, s->f) != (size_t)len) {
		s->failed = true;
		s->err = errno;
	}
	return len;
}

static int sink_close(void *ctx)
{
	(void)ctx;
	return 0;
}

xmlNodePtr html_page_open(struct page *pg, const char *title)
{
	xmlNodePtr html, head, meta;

	pg->doc = xmlNewDoc(X("1.0"));
	if (!pg->doc) {
		pg->failed = true;
		return NULL;
	}
	if (!xmlCreateIntSubset(pg->doc, X("html"), NULL, NULL))
		pg->failed = true;
	html = xmlNewDocNode(pg->doc, NULL, X("html"), NULL);
	if (!html || !xmlNewNs(html, X("http://www.w3.org/1999/xhtml"), NULL)) {
		xmlFreeNode(html);
		pg->failed = true;
		return NULL;
	}
	xmlDocSetRootElement(pg->doc, html);
	html_attr(pg, html, "lang", "en");
	head = html_el(pg, html, "head", NULL);
	meta = html_el(pg, head, "meta", NULL);
	html_attr(pg, meta, "charset", "utf-8");
	html_el(pg, head, "title", title);
	html_el(pg, head, "style", vtb_report_css);
	return html_el(pg, html, "body", NULL);
}

int html_page_save(struct page *pg, FILE *f)
{
	struct sink sink = { .f = f };
	xmlSaveCtxtPtr save;
	int ret = -1;

	if (!pg->doc || pg->failed)
		goto out;
	save = xmlSaveToIO(sink_write, sink_close, &sink, "UTF-8",
			   XML_SAVE_NO_DECL | XML_SAVE_NO_EMPTY | XML_SAVE_FORMAT);
	if (!save)
		goto out;
	if (xmlSaveDoc(save, pg->doc) < 0)
		sink.failed = true;
	if (xmlSaveClose(save) < 0)
		sink.failed = true;
	if (!sink.failed && (fflush(f) || ferror(f))) {
		sink.failed = true;
		sink.err = errno;
	}
	if (sink.failed) {
		ret = vtb_error("cannot write the HTML report: %s",
				strerror(sink.err ? sink.err : EIO));
		goto free;
	}
	ret = 0;
	goto free;
out:
	ret = vtb_error("out of memory building the HTML report");
free:
	xmlFreeDoc(pg->doc);
	pg->doc = NULL;
	return ret;
}

static int page_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	struct page pg = { .rep = doc };
	xmlNodePtr body, foot;
	const char *schema = html_jstr(doc, "schema");
	char *title;

	(void)o;
	if (!json_is_object(doc))
		return vtb_error("the report document is not a JSON object");
	if (!schema || strcmp(schema, VTB_REPORT_SCHEMA))
		return vtb_error("report schema '%s' is not '%s'", schema ? schema : "(none)",
				 VTB_REPORT_SCHEMA);
	title = vtb_asprintf("vtbench compare %s",
			     html_orstr(html_jstr(json_object_get(doc, "campaign"), "uuid")));
	body = html_page_open(&pg, title ? title : "vtbench compare");
	free(title);

	part_header(&pg, body);
	part_campaign(&pg, body);
	part_configs(&pg, body);
	part_verdicts(&pg, body);
	html_part_values(&pg, body);
	html_part_cdfs(&pg, body);
	html_part_c2c(&pg, body);
	part_evidence(&pg, body);
	foot = html_el(&pg, body, "p", NULL);
	html_attr(&pg, foot, "class", "note");
	html_text(&pg, foot, "vtbench ");
	html_text(&pg, foot, html_orstr(html_jstr(json_object_get(doc, "campaign"), "version")));
	html_text(&pg, foot, ", report schema " VTB_REPORT_SCHEMA);
	return html_page_save(&pg, f);
}

/* The page is a tree of the whole document: its rows and series made
 * first, all of them (the charts read them in several orders). */
static int page_render_doc(const struct vtb_report_doc *d, const struct vtb_report_opts *o,
			   FILE *f)
{
	json_t *doc = vtb_report_doc_whole(d);
	int r;

	if (!doc)
		return -1;
	r = page_render(doc, o, f);
	json_decref(doc);
	return r;
}

const struct vtb_report_ops vtb_report_html = {
	.name = "html",
	.summary = "one self-contained page: verdicts, box plots, latency CDFs, c2c heat maps",
	.media_type = "text/html; charset=utf-8",
	.ext = { ".html", ".htm" },
	.render = page_render,
	.render_doc = page_render_doc,
};
