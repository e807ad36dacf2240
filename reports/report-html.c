/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: the compare document as one page with inline CSS and
 * SVG charts drawn here (no plotting tool to find, nothing to fetch).
 * libxml2 builds the tree and escapes; this file only decides what goes
 * where.  Empty elements are written open and closed (XML_SAVE_NO_EMPTY)
 * because HTML parsers ignore "/>" on <td/>, <g/>...; the CSS avoids
 * '<', '>' and '&', which <style> would carry escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <libxml/tree.h>
#include <libxml/xmlsave.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/hist.h"
#include "../common/vtbutil.h"
#include "report.h"

#define X(s) ((const xmlChar *)(s))
#define SVG_NS "http://www.w3.org/2000/svg"

struct page {
	xmlDocPtr doc;
	const json_t *rep;
	bool failed; /* ENOMEM somewhere while building: checked once at the end */
};

/* ---- text that XML 1.0 and HTML both accept ---- */

/* Length of the valid UTF-8 sequence at @p and its code point; 0 when
 * invalid (overlong, surrogate, beyond U+10FFFF, truncated). */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2, c = p[0] & 0x1f, min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3, c = p[0] & 0x0f, min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4, c = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* @s with C0/C1 control characters (but tab and newline) written as
 * visible escapes and what XML cannot carry as U+FFFD.  malloc'ed; NULL
 * on ENOMEM. */
static char *clean(const char *s)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	int ret = 0;
	char *out;

	while (*p && !ret) {
		uint32_t cp = 0;
		size_t len = utf8_decode(p, &cp);

		if (!len) {
			ret = vtb_strbuf_addstr(&sb, "\xef\xbf\xbd");
			len = 1;
		} else if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f) {
			ret = vtb_strbuf_addf(&sb, "\\x%02x", (unsigned)cp);
		} else if (cp >= 0x80 && cp <= 0x9f) {
			ret = vtb_strbuf_addf(&sb, "\\u%04x", (unsigned)cp);
		} else if (cp == 0xfffe || cp == 0xffff) {
			ret = vtb_strbuf_addstr(&sb, "\xef\xbf\xbd");
		} else {
			ret = vtb_strbuf_add(&sb, (const char *)p, len);
		}
		p += len;
	}
	if (ret) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	out = vtb_strbuf_detach(&sb);
	return out ? out : strdup("");
}

/* ---- tree helpers: a NULL parent (an earlier failure) makes a no-op ---- */

static xmlNodePtr el(struct page *pg, xmlNodePtr parent, const char *name, const char *text)
{
	xmlNodePtr n = NULL;
	char *t = NULL;

	if (!parent)
		goto fail;
	if (text && !(t = clean(text)))
		goto fail;
	n = xmlNewTextChild(parent, NULL, X(name), t ? X(t) : NULL);
	free(t);
	if (!n)
		goto fail;
	return n;
fail:
	pg->failed = true;
	return NULL;
}

static xmlNodePtr elf(struct page *pg, xmlNodePtr parent, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static xmlNodePtr elf(struct page *pg, xmlNodePtr parent, const char *name, const char *fmt, ...)
{
	xmlNodePtr n;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		pg->failed = true;
		return NULL;
	}
	n = el(pg, parent, name, s);
	free(s);
	return n;
}

/* Appends text to @parent (after its other children). */
static void text(struct page *pg, xmlNodePtr parent, const char *s)
{
	xmlNodePtr t;
	char *c;

	if (!parent || !(c = clean(s))) {
		pg->failed = true;
		return;
	}
	t = xmlNewDocText(pg->doc, X(c));
	free(c);
	if (!t || !xmlAddChild(parent, t)) {
		xmlFreeNode(t);
		pg->failed = true;
	}
}

static void attr(struct page *pg, xmlNodePtr n, const char *name, const char *value)
{
	char *c;

	if (!n || !(c = clean(value))) {
		pg->failed = true;
		return;
	}
	if (!xmlSetProp(n, X(name), X(c)))
		pg->failed = true;
	free(c);
}

static void attrf(struct page *pg, xmlNodePtr n, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void attrf(struct page *pg, xmlNodePtr n, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		pg->failed = true;
		return;
	}
	attr(pg, n, name, s);
	free(s);
}

/* An <svg> root with its own default namespace (children need none). */
static xmlNodePtr svg_root(struct page *pg, xmlNodePtr parent, const char *cls, double w, double h)
{
	xmlNodePtr s = el(pg, parent, "svg", NULL);

	if (s && !xmlNewNs(s, X(SVG_NS), NULL))
		pg->failed = true;
	attr(pg, s, "class", cls);
	attrf(pg, s, "width", "%.0f", w);
	attrf(pg, s, "height", "%.0f", h);
	attrf(pg, s, "viewBox", "0 0 %.0f %.0f", w, h);
	return s;
}

static xmlNodePtr svg_text(struct page *pg, xmlNodePtr parent, double x, double y,
			   const char *anchor, const char *s)
{
	xmlNodePtr t = el(pg, parent, "text", s);

	attrf(pg, t, "x", "%.1f", x);
	attrf(pg, t, "y", "%.1f", y);
	if (anchor)
		attr(pg, t, "text-anchor", anchor);
	return t;
}

static xmlNodePtr svg_line(struct page *pg, xmlNodePtr parent, double x1, double y1, double x2,
			   double y2, const char *stroke)
{
	xmlNodePtr l = el(pg, parent, "line", NULL);

	attrf(pg, l, "x1", "%.1f", x1);
	attrf(pg, l, "y1", "%.1f", y1);
	attrf(pg, l, "x2", "%.1f", x2);
	attrf(pg, l, "y2", "%.1f", y2);
	attr(pg, l, "stroke", stroke);
	return l;
}

static xmlNodePtr svg_rect(struct page *pg, xmlNodePtr parent, double x, double y, double w,
			   double h, const char *fill)
{
	xmlNodePtr r = el(pg, parent, "rect", NULL);

	attrf(pg, r, "x", "%.1f", x);
	attrf(pg, r, "y", "%.1f", y);
	attrf(pg, r, "width", "%.1f", w > 0 ? w : 0);
	attrf(pg, r, "height", "%.1f", h > 0 ? h : 0);
	attr(pg, r, "fill", fill);
	return r;
}

/* ---- reading the document: absent or mistyped members are NULL/false ---- */

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static bool jnum(const json_t *o, const char *k, double *out)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return false;
	*out = json_number_value(v);
	return true;
}

static const char *orstr(const char *s)
{
	return s && *s ? s : "-";
}

/* Numbers as the text report writes them: 4 significant digits, whole
 * numbers from 1000 up. */
struct num {
	char s[48];
};

static struct num fmt_num(double v)
{
	struct num n;

	if (!isfinite(v))
		snprintf(n.s, sizeof(n.s), "-");
	else if (fabs(v) >= 1000 && fabs(v) < 1e15)
		snprintf(n.s, sizeof(n.s), "%.0f", v);
	else
		snprintf(n.s, sizeof(n.s), "%.4g", v);
	return n;
}

static struct num fmt_pct(double v)
{
	struct num n;

	if (!isfinite(v))
		snprintf(n.s, sizeof(n.s), "-");
	else
		snprintf(n.s, sizeof(n.s), "%+.1f%%", fabs(v) < 1e9 ? v : copysign(1e9, v));
	return n;
}

static struct num jfmt(const json_t *o, const char *k)
{
	double v = NAN;

	jnum(o, k, &v);
	return fmt_num(v);
}

/* Any JSON value as short text: strings bare, null "-", the rest
 * compact JSON.  malloc'ed; NULL on ENOMEM. */
static char *jtext(const json_t *v)
{
	if (!v || json_is_null(v))
		return strdup("-");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_real(v))
		return strdup(fmt_num(json_real_value(v)).s);
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void td_json(struct page *pg, xmlNodePtr tr, const json_t *v)
{
	char *s = jtext(v);

	if (!s) {
		pg->failed = true;
		return;
	}
	el(pg, tr, "td", s);
	free(s);
}

static xmlNodePtr td_num(struct page *pg, xmlNodePtr tr, const char *s)
{
	xmlNodePtr td = el(pg, tr, "td", s);

	attr(pg, td, "class", "n");
	return td;
}

static xmlNodePtr header_row(struct page *pg, xmlNodePtr table, const char *const *cols)
{
	xmlNodePtr tr = el(pg, el(pg, table, "thead", NULL), "tr", NULL);

	for (size_t i = 0; cols[i]; i++)
		el(pg, tr, "th", cols[i]);
	return el(pg, table, "tbody", NULL);
}

/* ---- configurations: labels and colours ---- */

/* Okabe-Ito, colour-blind safe; yellow left out (unreadable on white). */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999933",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

/* Index in "configs" of @key (and @campaign when given and present). */
static long cfg_index(const struct page *pg, const char *key, const char *campaign)
{
	json_t *cfgs = json_object_get(pg->rep, "configs"), *c;
	long any = -1;
	size_t i;

	if (!key)
		return -1;
	json_array_foreach(cfgs, i, c)
	{
		const char *k = jstr(c, "key"), *camp = jstr(c, "campaign");

		if (!k || strcmp(k, key))
			continue;
		if (!campaign || !camp || !strcmp(camp, campaign))
			return (long)i;
		if (any < 0)
			any = (long)i;
	}
	return any;
}

static const json_t *cfg_get(const struct page *pg, const char *key, const char *campaign)
{
	long i = cfg_index(pg, key, campaign);

	return i < 0 ? NULL : json_array_get(json_object_get(pg->rep, "configs"), (size_t)i);
}

static const char *cfg_colour(const struct page *pg, const char *key, const char *campaign)
{
	long i = cfg_index(pg, key, campaign);

	return i < 0 ? "#777777" : palette[(size_t)i % N_PALETTE];
}

static const char *cfg_label(const struct page *pg, const char *key, const char *campaign)
{
	const json_t *c = cfg_get(pg, key, campaign);
	const char *l = jstr(c, "label");

	return l ? l : orstr(key);
}

static const char *cfg_kind(const struct page *pg, const char *key)
{
	return jstr(cfg_get(pg, key, NULL), "kind");
}

static void swatch(struct page *pg, xmlNodePtr parent, const char *colour)
{
	xmlNodePtr s = el(pg, parent, "span", "");

	attr(pg, s, "class", "swatch");
	attrf(pg, s, "style", "background:%s", colour);
}

/* A label with the campaign's short id when it is not the main campaign
 * (tonight vs last night: the same configuration twice). */
static char *side_label(const struct page *pg, const char *key, const char *campaign)
{
	const char *main_uuid = jstr(json_object_get(pg->rep, "campaign"), "uuid");
	const char *l = cfg_label(pg, key, campaign);

	if (campaign && main_uuid && strcmp(campaign, main_uuid))
		return vtb_asprintf("%s @%.8s", l, campaign);
	return strdup(l);
}

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

static const char *verdict_class(const char *v)
{
	if (!v)
		return "v-none";
	if (!strcmp(v, "better"))
		return "v-better";
	if (!strcmp(v, "worse"))
		return "v-worse";
	if (!strcmp(v, "same"))
		return "v-same";
	if (!strcmp(v, "inconclusive"))
		return "v-inconclusive";
	if (!strcmp(v, "few"))
		return "v-few";
	if (!strcmp(v, "missing"))
		return "v-missing";
	if (!strcmp(v, "error"))
		return "v-error";
	return "v-none";
}

static void part_boots(struct page *pg, xmlNodePtr body, const json_t *camp, const char *who);
static void headline(struct page *pg, xmlNodePtr body);

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

	el(pg, body, "h1", "vtbench compare");
	p = el(pg, body, "p", NULL);
	text(pg, p, "campaign ");
	el(pg, p, "span", orstr(jstr(camp, "uuid")));
	text(pg, p, " on ");
	el(pg, p, "b", orstr(jstr(camp, "host")));
	if (json_is_object(against)) {
		text(pg, p, " against campaign ");
		el(pg, p, "span", orstr(jstr(against, "uuid")));
		text(pg, p, " on ");
		el(pg, p, "b", orstr(jstr(against, "host")));
	}
	p = el(pg, body, "p", NULL);
	attr(pg, p, "class", "summary");
	if (jnum(sum, "rows", &v))
		elf(pg, p, "span", "%s rows: ", fmt_num(v).s);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		xmlNodePtr b;

		if (!jnum(sum, counts[i].key, &v))
			continue;
		b = elf(pg, p, "span", "%s %s", fmt_num(v).s, counts[i].label);
		attrf(pg, b, "class", "badge %s", counts[i].cls);
	}
	part_boots(pg, body, camp, NULL);
	if (json_is_object(against))
		part_boots(pg, body, against, "against: ");
	if (jstr(pg->rep, "advice") && !json_array_size(json_object_get(pg->rep, "rows"))) {
		p = el(pg, body, "p", NULL);
		attr(pg, p, "class", "advice");
		el(pg, p, "b", "Nothing to compare. ");
		text(pg, p, jstr(pg->rep, "advice"));
	}
	for (int side = 0; side < 2; side++) {
		const char *acc = jstr(side ? against : camp, "accelerators");

		if (acc && strstr(acc, "tcg")) {
			attr(pg,
			     el(pg, body, "p",
				"Note: guests ran under TCG (software emulation): these ratios "
				"measure QEMU's emulator, not virtualization overhead."),
			     "class", "advice");
			break;
		}
	}
	headline(pg, body);
	nav = el(pg, body, "nav", NULL);
	static const char *const links[][2] = {
		{ "#campaign", "campaign" },	   { "#configs", "configurations" },
		{ "#verdicts", "verdicts" },	   { "#values", "per-boot values" },
		{ "#cdf", "latency CDFs" },	   { "#c2c", "core-to-core" },
		{ "#evidence", "guest evidence" },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		attr(pg, el(pg, nav, "a", links[i][1]), "href", links[i][0]);
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
	kv->v[kv->n] = jtext(v);
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
	det = el(pg, parent, "details", NULL);
	el(pg, det, "summary", "host state snapshot (differences highlighted)");
	tbody = header_row(pg, el(pg, det, "table", NULL), json_is_object(b) ? two : one);
	for (int side = 0; side < 2; side++) {
		const struct kv *kv = side ? &kb : &ka;

		for (size_t i = 0; i < kv->n; i++) {
			const char *va, *vb;

			if (side && kv_find(&ka, kv->k[i]))
				continue; /* listed with the first */
			va = kv_find(&ka, kv->k[i]);
			vb = kv_find(&kb, kv->k[i]);
			tr = el(pg, tbody, "tr", NULL);
			attr(pg, el(pg, tr, "td", kv->k[i]), "class", "k mono");
			el(pg, el(pg, tr, "td", NULL), "pre", va ? va : "(absent)");
			if (json_is_object(b)) {
				xmlNodePtr td = el(pg, tr, "td", NULL);

				el(pg, td, "pre", vb ? vb : "(absent)");
				if (!va || !vb || strcmp(va, vb))
					attr(pg, td, "class", "diff");
			}
		}
	}
out:
	kv_release(&ka);
	kv_release(&kb);
}

/* A campaign's field as a cell: times as UTC dates, arrays as a comma
 * list, the rest as jtext() writes it. */
static void campaign_cell(struct page *pg, xmlNodePtr tr, const json_t *side, const char *field)
{
	json_t *v = json_object_get(side, field);

	if (!strcmp(field, "started_ns") || !strcmp(field, "ended_ns")) {
		double ns = NAN;
		char *t;

		jnum(side, field, &ns);
		t = fmt_time_ns(ns);
		if (!t)
			pg->failed = true;
		el(pg, tr, "td", t ? t : "-");
		free(t);
	} else if (json_is_array(v)) {
		struct vtb_strbuf sb = VTB_STRBUF_INIT;
		json_t *e;
		size_t k;

		json_array_foreach(v, k, e)
		{
			char *t = jtext(e);

			if (!t || vtb_strbuf_addf(&sb, "%s%s", k ? ", " : "", t))
				pg->failed = true;
			free(t);
		}
		el(pg, tr, "td", sb.len ? vtb_strbuf_str(&sb) : "-");
		vtb_strbuf_release(&sb);
	} else {
		td_json(pg, tr, v);
	}
}

/* The options the verdicts were reached with. */
static void campaign_options(struct page *pg, xmlNodePtr body, const json_t *opt)
{
	const json_t *cov = json_object_get(opt, "cov_limit");
	xmlNodePtr tbody, tr;
	double a, b, c;

	el(pg, body, "h3", "Options");
	tbody = header_row(pg, el(pg, body, "table", NULL),
			   (const char *const[]){ "baseline", "axis", "threshold", "alpha",
						  "interval level", "noisy above CoV", "fail on",
						  NULL });
	tr = el(pg, tbody, "tr", NULL);
	td_json(pg, tr, json_object_get(opt, "baseline"));
	td_json(pg, tr, json_object_get(opt, "axis"));
	if (jnum(opt, "threshold_pct", &a))
		elf(pg, tr, "td", "%s%%", fmt_num(a).s);
	else
		el(pg, tr, "td", "-");
	td_json(pg, tr, json_object_get(opt, "alpha"));
	if (jnum(opt, "ci_level", &a))
		elf(pg, tr, "td", "%s%%", fmt_num(a * 100).s);
	else
		el(pg, tr, "td", "-");
	if (jnum(cov, "throughput", &a) && jnum(cov, "time", &b) && jnum(cov, "latency", &c))
		elf(pg, tr, "td", "throughput %s%%, time %s%%, latency %s%%", fmt_num(a).s,
		    fmt_num(b).s, fmt_num(c).s);
	else
		td_json(pg, tr, cov);
	td_json(pg, tr, json_object_get(opt, "fail_on"));
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
	xmlNodePtr h, tbody, tr;
	bool vms = false;
	size_t k;

	/* a campaign of baselines alone: no accelerator, libvirt, QEMU or
	 * guest kernel to show */
	json_array_foreach(cfgs, k, c) vms |= jstr(c, "kind") && !strcmp(jstr(c, "kind"), "vm");
	h = el(pg, body, "h2", "Campaign");
	attr(pg, h, "id", "campaign");
	tbody = header_row(pg, el(pg, body, "table", NULL), sides[1] ? two : one);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!vms && vm_only(fields[i][0]))
			continue;
		tr = el(pg, tbody, "tr", NULL);
		attr(pg, el(pg, tr, "td", fields[i][1]), "class", "k");
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
	xmlNodePtr h, tbody;
	size_t i;

	h = el(pg, body, "h2", "Configurations");
	attr(pg, h, "id", "configs");
	tbody = header_row(pg, el(pg, body, "table", NULL),
			   (const char *const[]){ "configuration", "kind", "key", "campaign",
						  "CPUs", "parameters", NULL });
	json_array_foreach(cfgs, i, c)
	{
		xmlNodePtr tr = el(pg, tbody, "tr", NULL), td;
		struct kv kv = { 0 };
		struct vtb_strbuf sb = VTB_STRBUF_INIT;

		td = el(pg, tr, "td", NULL);
		swatch(pg, td, palette[i % N_PALETTE]);
		text(pg, td, orstr(jstr(c, "label")));
		el(pg, tr, "td", orstr(jstr(c, "kind")));
		attr(pg, el(pg, tr, "td", orstr(jstr(c, "key"))), "class", "key");
		attr(pg, el(pg, tr, "td", orstr(jstr(c, "campaign"))), "class", "key");
		td_json(pg, tr, json_object_get(c, "cpus"));
		if (json_is_object(json_object_get(c, "params")) &&
		    flatten(&kv, NULL, json_object_get(c, "params")))
			pg->failed = true;
		for (size_t k = 0; k < kv.n; k++)
			if (vtb_strbuf_addf(&sb, "%s%s=%s", k ? "  " : "", kv.k[k], kv.v[k]))
				pg->failed = true;
		attr(pg, el(pg, tr, "td", sb.len ? vtb_strbuf_str(&sb) : "-"), "class", "mono");
		vtb_strbuf_release(&sb);
		kv_release(&kv);
	}
}

static void part_verdicts(struct page *pg, xmlNodePtr body)
{
	json_t *rows = json_object_get(pg->rep, "rows"), *r;
	xmlNodePtr h, tbody, p;
	size_t i;

	h = el(pg, body, "h2", "Verdicts");
	attr(pg, h, "id", "verdicts");
	p = el(pg, body, "p",
	       "Change = mean of the configuration vs mean of its baseline (harmonic mean for "
	       "rates, geometric for latencies), with the t interval of that ratio from the same "
	       "t statistic as the test. * = significant after Benjamini-Hochberg (q below "
	       "alpha). worse/better: significant and the change beyond the threshold "
	       "(confirmed: the whole interval beyond it); same: the interval within the "
	       "threshold; inconclusive: neither yet, with the boots a side that would decide "
	       "it; few: under 2 boots a side; missing: no result on a side; error: values the "
	       "statistic cannot take.");
	attr(pg, p, "class", "note");
	tbody = header_row(pg, el(pg, body, "table", NULL),
			   (const char *const[]){ "workload / cell / metric", "baseline", "n",
						  "mean", "configuration", "n", "mean", "change",
						  "CI", "test", "p", "q", "verdict", NULL });
	json_array_foreach(rows, i, r)
	{
		const json_t *base = json_object_get(r, "base"), *x = json_object_get(r, "x");
		const char *better = jstr(r, "better"), *verdict = jstr(r, "verdict");
		xmlNodePtr tr = el(pg, tbody, "tr", NULL), td;
		double lo, hi, ch;
		char *l;

		attrf(pg, tr, "class", "row %s", verdict_class(verdict));
		td = el(pg, tr, "td", NULL);
		elf(pg, td, "span", "%s / %s / ", orstr(jstr(r, "workload")),
		    orstr(jstr(r, "cell")));
		el(pg, td, "b", orstr(jstr(r, "metric")));
		elf(pg, td, "span", " %s %s", orstr(jstr(r, "unit")),
		    better ? (!strcmp(better, "higher") ? "\xe2\x86\x91" : "\xe2\x86\x93") : "");
		for (int s = 0; s < 2; s++) {
			const json_t *side = s ? x : base;
			const char *key = jstr(side, "config");

			td = el(pg, tr, "td", NULL);
			attr(pg, td, "class", "lbl");
			swatch(pg, td, cfg_colour(pg, key, jstr(side, "campaign")));
			l = side_label(pg, key, jstr(side, "campaign"));
			if (!l)
				pg->failed = true;
			text(pg, td, l ? l : "-");
			free(l);
			td_num(pg, tr, jfmt(json_object_get(side, "summary"), "n").s);
			td_num(pg, tr, jfmt(json_object_get(side, "summary"), "mean").s);
		}
		if (jnum(r, "change_pct", &ch)) {
			char buf[64];

			snprintf(buf, sizeof(buf), "%s%s", fmt_pct(ch).s,
				 json_is_true(json_object_get(r, "significant")) ? "*" : "");
			td_num(pg, tr, buf);
		} else {
			td_num(pg, tr, "-");
		}
		if (jnum(r, "ci_low_pct", &lo) && jnum(r, "ci_high_pct", &hi)) {
			char buf[128];

			snprintf(buf, sizeof(buf), "[%s, %s]", fmt_pct(lo).s, fmt_pct(hi).s);
			td_num(pg, tr, buf);
		} else {
			td_num(pg, tr, "-");
		}
		el(pg, tr, "td", orstr(jstr(r, "test")));
		td_num(pg, tr, jfmt(r, "p").s);
		td_num(pg, tr, jfmt(r, "q").s);
		td = el(pg, tr, "td", orstr(verdict));
		attr(pg, td, "class", "verdict");
		if (json_is_true(json_object_get(r, "confirmed")))
			text(pg, td, " confirmed");
		if (jnum(r, "boots_needed", &ch))
			elf(pg, td, "div", "about %s boots a side would decide it", fmt_num(ch).s);
		if (jstr(r, "reason"))
			el(pg, td, "div", jstr(r, "reason"));
		if (json_is_true(json_object_get(r, "noisy")))
			el(pg, td, "div", "noisy (CoV above its limit)");
	}
}

/* ---- scales ---- */

static double nice_step(double range, int target)
{
	double raw = range / target, mag, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

struct scale {
	double lo, hi; /* domain */
	double p0, p1; /* pixels */
	bool log;
};

static double sc(const struct scale *s, double v)
{
	double a = s->lo, b = s->hi, t;

	if (s->log) {
		v = v > 0 ? log10(v) : a;
	}
	t = b > a ? (v - a) / (b - a) : 0.5;
	if (!isfinite(t))
		t = 0;
	if (t < -0.05)
		t = -0.05;
	if (t > 1.05)
		t = 1.05;
	return s->p0 + t * (s->p1 - s->p0);
}

/* A linear domain around [lo, hi] with some room. */
static void scale_lin(struct scale *s, double lo, double hi)
{
	double pad;

	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi <= lo) {
		pad = fabs(lo) > 0 ? fabs(lo) * 0.05 : 1;
		lo -= pad;
		hi += pad;
	}
	pad = (hi - lo) * 0.06;
	s->lo = lo - pad;
	s->hi = hi + pad;
	s->log = false;
}

/*
 * Axis labels in a readable unit: a time in ns, us or ms shown in the
 * largest of ns, Âµs, ms, s that keeps @maxabs at 1 or more, a size in
 * bytes in B, KiB, MiB, GiB, TiB; other units as they are.  *div divides
 * a value into the unit shown.
 */
static const char *unit_for(const char *unit, double maxabs, double *div)
{
	static const struct {
		const char *name, *shown;
		double f; /* in the family's base unit */
		int family;
	} u[] = {
		{ "ns", "ns", 1, 1 },
		{ "us", "\xc2\xb5s", 1e3, 1 },
		{ "\xc2\xb5s", "\xc2\xb5s", 1e3, 1 },
		{ "ms", "ms", 1e6, 1 },
		{ "s", "s", 1e9, 1 },
		{ "B", "B", 1, 2 },
		{ "bytes", "B", 1, 2 },
		{ "KiB", "KiB", 1024, 2 },
		{ "MiB", "MiB", 1048576, 2 },
		{ "GiB", "GiB", 1073741824.0, 2 },
		{ "TiB", "TiB", 1099511627776.0, 2 },
	};
	size_t i, k, best;

	*div = 1;
	for (i = 0; unit && i < sizeof(u) / sizeof(u[0]) && strcmp(u[i].name, unit); i++)
		;
	if (!unit || i == sizeof(u) / sizeof(u[0]) || !isfinite(maxabs) || maxabs <= 0)
		return unit;
	best = i;
	for (k = 0; k < sizeof(u) / sizeof(u[0]); k++)
		if (u[k].family == u[i].family && maxabs * u[i].f / u[k].f >= 1 &&
		    (maxabs * u[i].f / u[best].f < 1 || u[k].f > u[best].f))
			best = k;
	*div = u[best].f / u[i].f;
	return u[best].shown;
}

/* Vertical grid lines with labels under the plot (x axis at @y), in a
 * readable unit (unit_for). */
static void axis_x(struct page *pg, xmlNodePtr svg, const struct scale *s, double top, double y,
		   const char *unit)
{
	xmlNodePtr g = el(pg, svg, "g", NULL);
	double div = 1;

	unit = unit_for(unit, s->log ? pow(10, s->hi) : fmax(fabs(s->lo), fabs(s->hi)), &div);

	attr(pg, g, "class", "axis");
	svg_line(pg, g, s->p0, y, s->p1, y, "#888888");
	if (s->log) {
		double d0 = floor(s->lo), d1 = ceil(s->hi);
		bool fine = d1 - d0 <= 3;

		for (double d = d0; d <= d1 && d - d0 < 40; d++) {
			for (int m = 1; m <= 5; m += (fine ? (m == 1 ? 1 : 3) : 10)) {
				double v = m * pow(10, d), x;

				if (log10(v) < s->lo || log10(v) > s->hi)
					continue;
				x = sc(s, v);
				attr(pg, svg_line(pg, g, x, top, x, y, "#eeeeee"), "class", "grid");
				svg_text(pg, g, x, y + 14, "middle", fmt_num(v / div).s);
			}
		}
	} else {
		/* steps nice in the unit shown */
		double step = nice_step((s->hi - s->lo) / div, 6) * div;
		double v = ceil(s->lo / step) * step;

		for (int k = 0; v <= s->hi && k < 30; k++, v += step) {
			double x = sc(s, v);

			attr(pg, svg_line(pg, g, x, top, x, y, "#eeeeee"), "class", "grid");
			svg_text(pg, g, x, y + 14, "middle",
				 fmt_num(fabs(v) < step * 1e-9 ? 0 : v / div).s);
		}
	}
	svg_text(pg, g, s->p1, y + 28, "end", orstr(unit));
}

/* ---- the answer first: boots, failures, the headline chart ---- */

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
	p = el(pg, body, "p", NULL);
	attr(pg, p, "class", "boots");
	if (who)
		text(pg, p, who);
	elf(pg, p, "b", "%s boots:", jfmt(b, "total").s);
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		if (!jnum(b, st[i], &v) || (i && v <= 0))
			continue;
		attrf(pg, elf(pg, p, "span", "%s %s", fmt_num(v).s, st[i]), "class", "badge %s",
		      i ? "v-error" : "v-same");
	}
	if (!json_array_size(fl))
		return;
	ul = el(pg, body, "ul", NULL);
	attr(pg, ul, "class", "failures");
	json_array_foreach(fl, i, o)
	{
		const json_t *reps = json_object_get(o, "reps"), *r;
		struct vtb_strbuf sb = VTB_STRBUF_INIT;
		const char *cell = jstr(o, "cell");
		xmlNodePtr li = el(pg, ul, "li", NULL);
		size_t k;

		json_array_foreach(reps, k, r)
			pg->failed |= vtb_strbuf_addf(&sb, "%s%" JSON_INTEGER_FORMAT, k ? "," : "",
						      json_integer_value(r)) < 0;
		swatch(pg, li, cfg_colour(pg, jstr(o, "config"), jstr(camp, "uuid")));
		text(pg, li, orstr(jstr(o, "label")));
		if (cell)
			elf(pg, li, "b", " %s: %s", cell, orstr(jstr(o, "status")));
		else
			elf(pg, li, "b", ": boot %s", orstr(jstr(o, "status")));
		elf(pg, li, "span", " in %s boot%s (rep%s %s)", jfmt(o, "boots").s,
		    json_array_size(reps) == 1 ? "" : "s", json_array_size(reps) == 1 ? "" : "s",
		    sb.len ? vtb_strbuf_str(&sb) : "?");
		vtb_strbuf_release(&sb);
		if (jstr(o, "reason")) {
			text(pg, li, ": ");
			attr(pg, el(pg, li, "span", jstr(o, "reason")), "class", "mono");
		}
	}
}

static const char *verdict_colour(const char *v)
{
	static const char *const c[][2] = {
		{ "worse", "#b3261e" },	       { "better", "#116b2d" }, { "same", "#777777" },
		{ "inconclusive", "#c77700" }, { "few", "#4a5fa8" },	{ "missing", "#8e24aa" },
		{ "error", "#c62828" },
	};

	for (size_t i = 0; v && i < sizeof(c) / sizeof(c[0]); i++)
		if (!strcmp(c[i][0], v))
			return c[i][1];
	return "#777777";
}

/* At most this many rows in the headline chart (the verdict table has all). */
#define HEADLINE_ROWS 200
/* Characters of a headline label on screen (390 px of 11 px text). */
#define HEADLINE_LABEL 58
/* The headline's geometry (px). */
#define HL_W 960.0
#define HL_LABEL_W 390.0
#define HL_RIGHT_W 170.0
#define HL_TOP 6.0
#define HL_ROW_H 18.0

/* The change axis: the first @shown rows' intervals and twice the
 * threshold @t, clipped to -100%..+300%. */
static void headline_scale(struct scale *s, const json_t *rows, size_t shown, double t)
{
	double lo = -2 * t, hi = 2 * t;
	const json_t *r;
	size_t i;

	json_array_foreach(rows, i, r)
	{
		double a, b;

		if (i < shown && jnum(r, "ci_low_pct", &a) && jnum(r, "ci_high_pct", &b)) {
			lo = fmin(lo, a);
			hi = fmax(hi, b);
		}
	}
	scale_lin(s, fmax(lo, -100), fmin(hi, 300));
	s->p0 = HL_LABEL_W + 10;
	s->p1 = HL_W - HL_RIGHT_W;
}

/* A row's label: on screen the row and its configuration (cut to
 * HEADLINE_LABEL), in the tooltip the baseline too.  -1 on ENOMEM. */
static int headline_label(struct page *pg, xmlNodePtr g, const json_t *r, double cy)
{
	const json_t *x = json_object_get(r, "x"), *base = json_object_get(r, "base");
	char *xl = side_label(pg, jstr(x, "config"), jstr(x, "campaign"));
	char *bl = side_label(pg, jstr(base, "config"), jstr(base, "campaign"));
	char *label = vtb_asprintf("%s %s: %s vs %s", orstr(jstr(r, "cell")),
				   orstr(jstr(r, "metric")), xl ? xl : "-", bl ? bl : "-");
	char *onscreen = vtb_asprintf("%s %s: %s", orstr(jstr(r, "cell")), orstr(jstr(r, "metric")),
				      xl ? xl : "-");
	int ret = -1;

	if (label && onscreen) {
		if (strlen(onscreen) > HEADLINE_LABEL)
			strcpy(onscreen + HEADLINE_LABEL - 3, "...");
		el(pg, g, "title", label);
		svg_text(pg, g, HL_LABEL_W, cy + 4, "end", onscreen);
		ret = 0;
	}
	free(xl);
	free(bl);
	free(label);
	free(onscreen);
	return ret;
}

/* A row's interval, change and verdict, coloured by the verdict; an
 * interval beyond the domain ends at its edge, clear of the text. */
static void headline_marks(struct page *pg, xmlNodePtr g, const struct scale *s, const json_t *r,
			   double cy)
{
	const char *v = jstr(r, "verdict"), *col = verdict_colour(v);
	double ch, a, b;
	xmlNodePtr tt;

	if (jnum(r, "ci_low_pct", &a) && jnum(r, "ci_high_pct", &b))
		attr(pg, svg_line(pg, g, fmax(sc(s, a), s->p0), cy, fmin(sc(s, b), s->p1), cy, col),
		     "stroke-width", "3");
	if (jnum(r, "change_pct", &ch)) {
		xmlNodePtr c = el(pg, g, "circle", NULL);

		attrf(pg, c, "cx", "%.1f", fmin(fmax(sc(s, ch), s->p0), s->p1));
		attrf(pg, c, "cy", "%.1f", cy);
		attr(pg, c, "r", "4");
		attr(pg, c, "fill", col);
	}
	tt = svg_text(pg, g, HL_W - HL_RIGHT_W + 8, cy + 4, NULL,
		      jnum(r, "change_pct", &ch) ? fmt_pct(ch).s : "");
	attr(pg, tt, "fill", col);
	if (jnum(r, "change_pct", &ch))
		text(pg, tt, " ");
	text(pg, tt, orstr(v));
	if (json_is_true(json_object_get(r, "confirmed")))
		text(pg, tt, " confirmed");
}

/*
 * The answer at a glance: one line per row, its change with its interval
 * against the +-threshold band, coloured by verdict; rows without a
 * change (missing, error) say so in words.  The domain is the intervals
 * and twice the threshold, clipped to -100%..+300% (marks beyond sit at
 * the edge).
 */
static void headline(struct page *pg, xmlNodePtr body)
{
	const json_t *rows = json_object_get(pg->rep, "rows"), *r;
	const json_t *opt = json_object_get(pg->rep, "options");
	size_t n = json_array_size(rows), shown = n < HEADLINE_ROWS ? n : HEADLINE_ROWS, i;
	double t = 5, level, H = HL_TOP + (double)shown * HL_ROW_H + 36;
	struct scale s;
	xmlNodePtr fig, svg, cap, g;

	if (!n)
		return;
	jnum(opt, "threshold_pct", &t);
	headline_scale(&s, rows, shown, t);
	fig = el(pg, body, "figure", NULL);
	attr(pg, fig, "class", "headline");
	cap = el(pg, fig, "figcaption", NULL);
	elf(pg, cap, "span",
	    "Change against the baseline, with its %s%% interval; the band is "
	    "\xc2\xb1%s%%, the threshold",
	    jnum(opt, "ci_level", &level) ? fmt_num(level * 100).s : "95", fmt_num(t).s);
	if (shown < n)
		elf(pg, cap, "span", " (the first %zu of %zu rows: the verdict table has them all)",
		    shown, n);
	svg = svg_root(pg, fig, "chart headline", HL_W, H);
	attr(pg, svg, "id", "headline");
	attr(pg, svg, "data-mark", "hl");
	attrf(pg, svg, "data-marks", "%zu", shown);
	attr(pg,
	     svg_rect(pg, svg, sc(&s, -t), HL_TOP, sc(&s, t) - sc(&s, -t), (double)shown * HL_ROW_H,
		      "#eeeeee"),
	     "class", "band");
	axis_x(pg, svg, &s, HL_TOP, HL_TOP + (double)shown * HL_ROW_H + 4, "change %");
	svg_line(pg, svg, sc(&s, 0), HL_TOP, sc(&s, 0), HL_TOP + (double)shown * HL_ROW_H,
		 "#999999");
	json_array_foreach(rows, i, r)
	{
		double cy = HL_TOP + (double)i * HL_ROW_H + HL_ROW_H / 2;

		if (i >= shown)
			break;
		g = el(pg, svg, "g", NULL);
		attrf(pg, g, "class", "hl %s", verdict_class(jstr(r, "verdict")));
		if (headline_label(pg, g, r, cy) < 0) {
			pg->failed = true;
			return;
		}
		headline_marks(pg, g, &s, r, cy);
	}
}

/* ---- per-boot values: box plots ---- */

struct lane {
	const char *config, *campaign;
	const json_t *values, *summary;
	bool base;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Linear interpolation between order statistics, as numpy's default. */
static double pct_sorted(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p / 100;
	size_t i = (size_t)floor(h);

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

/* Is element @i of @arr the first of its group (no earlier element is
 * @same as it)?  One chart per group. */
static bool first_of_group(const json_t *arr, size_t i,
			   bool (*same)(const json_t *a, const json_t *b))
{
	for (size_t k = 0; k < i; k++)
		if (same(json_array_get(arr, k), json_array_get(arr, i)))
			return false;
	return true;
}

static bool same_group(const json_t *a, const json_t *b)
{
	static const char *const keys[] = { "workload", "cell", "metric" };

	for (size_t i = 0; i < 3; i++) {
		const char *x = jstr(a, keys[i]), *y = jstr(b, keys[i]);

		if ((x || y) && (!x || !y || strcmp(x, y)))
			return false;
	}
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Characters of a box plot's label line (two lines at most). */
#define LABEL_LINE 40

/* A box plot's geometry (px): lanes between the labels and the verdicts. */
#define BOX_W 960.0
#define BOX_LABEL_W 250.0
#define BOX_RIGHT_W 200.0
#define BOX_TOP 8.0
#define BOX_LANE_H 30.0

/* The lanes of the chart of the rows' group at @first: one per side
 * (configuration and campaign), in the order the rows name them; *n their
 * number.  NULL with pg->failed on ENOMEM (or when there are none). */
static struct lane *box_lanes(struct page *pg, const json_t *rows, size_t first, size_t *n)
{
	const json_t *r0 = json_array_get(rows, first), *r;
	struct lane *lanes = NULL, *nl;
	size_t i, k;

	*n = 0;
	json_array_foreach(rows, i, r)
	{
		if (i < first || !same_group(r0, r))
			continue;
		for (int side = 0; side < 2; side++) {
			const json_t *sd = json_object_get(r, side ? "x" : "base");
			const char *cfg = jstr(sd, "config"), *camp = jstr(sd, "campaign");

			if (!json_is_object(sd))
				continue;
			for (k = 0; k < *n; k++)
				if (same_str(lanes[k].config, cfg) &&
				    same_str(lanes[k].campaign, camp))
					break;
			if (k < *n) {
				lanes[k].base |= !side;
				continue;
			}
			nl = realloc(lanes, (*n + 1) * sizeof(*lanes));
			if (!nl) {
				pg->failed = true;
				free(lanes);
				*n = 0;
				return NULL;
			}
			lanes = nl;
			lanes[*n] = (struct lane){ cfg, camp, json_object_get(sd, "values"),
						   json_object_get(sd, "summary"), !side };
			(*n)++;
		}
	}
	return lanes;
}

/* The x scale: every finite per-boot value of every lane. */
static void box_scale(struct scale *s, const struct lane *lanes, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		json_t *v;
		size_t k;

		json_array_foreach(lanes[i].values, k, v)
		{
			double d = json_number_value(v);

			if (!json_is_number(v) || !isfinite(d))
				continue;
			lo = fmin(lo, d);
			hi = fmax(hi, d);
		}
	}
	scale_lin(s, lo, hi);
	s->p0 = BOX_LABEL_W + 10;
	s->p1 = BOX_W - BOX_RIGHT_W;
}

/* A lane's label left of it, wrapped on two lines at a blank (whole in
 * the tooltip); "(baseline)" in italics for a baseline. */
static void box_label(struct page *pg, xmlNodePtr svg, const struct lane *ln, const char *label,
		      double cy)
{
	xmlNodePtr t = svg_text(pg, svg, BOX_LABEL_W, cy + 4, "end", NULL);

	if (strlen(label) > LABEL_LINE) {
		size_t cut = LABEL_LINE;
		char *l1, *l2;
		xmlNodePtr ts;

		while (cut > LABEL_LINE / 2 && label[cut] != ' ')
			cut--;
		if (label[cut] != ' ')
			cut = LABEL_LINE;
		l1 = vtb_asprintf("%.*s", (int)cut, label);
		l2 = strlen(label + cut + (label[cut] == ' ')) > LABEL_LINE
			     ? vtb_asprintf("%.*s...", LABEL_LINE - 3,
					    label + cut + (label[cut] == ' '))
			     : vtb_asprintf("%s", label + cut + (label[cut] == ' '));
		if (!l1 || !l2)
			pg->failed = true;
		ts = el(pg, t, "tspan", l1 ? l1 : "");
		attrf(pg, ts, "x", "%.1f", BOX_LABEL_W);
		attr(pg, ts, "dy", "-6");
		ts = el(pg, t, "tspan", l2 ? l2 : "");
		attrf(pg, ts, "x", "%.1f", BOX_LABEL_W);
		attr(pg, ts, "dy", "12");
		free(l1);
		free(l2);
	} else {
		text(pg, t, label);
	}
	if (ln->base) {
		attr(pg, t, "font-style", "italic");
		text(pg, t, " (baseline)");
	}
	el(pg, t, "title", label);
}

/* The box of @nv sorted values: whiskers at min and max, the quartiles'
 * box, the median bar and the mean's diamond.  A baseline is grey and
 * dashed. */
static void box_shape(struct page *pg, xmlNodePtr g, const struct scale *s, const struct lane *ln,
		      const double *sorted, size_t nv, double cy, const char *col)
{
	double q1 = pct_sorted(sorted, nv, 25), med = pct_sorted(sorted, nv, 50),
	       q3 = pct_sorted(sorted, nv, 75), mean;
	xmlNodePtr rect, l;

	svg_line(pg, g, sc(s, sorted[0]), cy, sc(s, q1), cy, "#555555");
	svg_line(pg, g, sc(s, q3), cy, sc(s, sorted[nv - 1]), cy, "#555555");
	svg_line(pg, g, sc(s, sorted[0]), cy - 5, sc(s, sorted[0]), cy + 5, "#555555");
	svg_line(pg, g, sc(s, sorted[nv - 1]), cy - 5, sc(s, sorted[nv - 1]), cy + 5, "#555555");
	rect = svg_rect(pg, g, sc(s, q1), cy - 9, sc(s, q3) - sc(s, q1), 18,
			ln->base ? "#bbbbbb" : col);
	attr(pg, rect, "fill-opacity", ln->base ? "0.5" : "0.3");
	attr(pg, rect, "stroke", ln->base ? "#444444" : col);
	if (ln->base)
		attr(pg, rect, "stroke-dasharray", "4 2");
	l = svg_line(pg, g, sc(s, med), cy - 9, sc(s, med), cy + 9, ln->base ? "#222222" : col);
	attr(pg, l, "stroke-width", "2.5");
	if (jnum(ln->summary, "mean", &mean)) {
		xmlNodePtr d = el(pg, g, "path", NULL);
		double mx = sc(s, mean);

		attrf(pg, d, "d", "M%.1f %.1fl4 4l-4 4l-4 -4z", mx, cy - 13);
		attr(pg, d, "fill", "#222222");
		el(pg, d, "title", "mean");
	}
}

/* A lane's box and one dot per boot (in the document's order); the
 * number of dots drawn. */
static size_t box_lane(struct page *pg, xmlNodePtr g, const struct scale *s, const struct lane *ln,
		       double cy, const char *col)
{
	double *v = calloc(json_array_size(ln->values) + 1, sizeof(*v)), *sorted;
	size_t nv = 0, k;
	json_t *e;

	if (!v) {
		pg->failed = true;
		return 0;
	}
	json_array_foreach(ln->values, k,
			   e) if (json_is_number(e) && isfinite(json_number_value(e)))
		v[nv++] = json_number_value(e);
	if (!nv) {
		svg_text(pg, g, s->p0 + 4, cy + 4, NULL, "no values");
		free(v);
		return 0;
	}
	sorted = calloc(nv, sizeof(*sorted));
	if (!sorted) {
		pg->failed = true;
		free(v);
		return 0;
	}
	memcpy(sorted, v, nv * sizeof(*v));
	qsort(sorted, nv, sizeof(*sorted), cmp_double);
	box_shape(pg, g, s, ln, sorted, nv, cy, col);
	for (k = 0; k < nv; k++) {
		xmlNodePtr c = el(pg, g, "circle", NULL);
		/* a fixed jitter so overlapping boots stay visible */
		double dy = (double)((k * 7) % 9) - 4;

		attr(pg, c, "class", "pt");
		attrf(pg, c, "cx", "%.1f", sc(s, v[k]));
		attrf(pg, c, "cy", "%.1f", cy + dy * 1.6);
		attr(pg, c, "r", "2.6");
		attr(pg, c, "fill", ln->base ? "#333333" : col);
		attr(pg, c, "fill-opacity", "0.8");
	}
	free(sorted);
	free(v);
	return nv;
}

/* Right of a compared lane, its row's change and verdict; "baseline"
 * right of a baseline's. */
static void box_verdict(struct page *pg, xmlNodePtr svg, const json_t *rows, size_t first,
			const struct lane *ln, double cy)
{
	const json_t *r0 = json_array_get(rows, first), *e;
	size_t k;

	if (ln->base) {
		svg_text(pg, svg, BOX_W - BOX_RIGHT_W + 8, cy + 4, NULL, "baseline");
		return;
	}
	json_array_foreach(rows, k, e)
	{
		const json_t *x = json_object_get(e, "x");
		double ch;

		if (k < first || !same_group(r0, e) || !same_str(jstr(x, "config"), ln->config) ||
		    !same_str(jstr(x, "campaign"), ln->campaign))
			continue;
		if (jnum(e, "change_pct", &ch)) {
			xmlNodePtr tt = svg_text(pg, svg, BOX_W - BOX_RIGHT_W + 8, cy + 4, NULL,
						 fmt_pct(ch).s);
			const char *vd = jstr(e, "verdict");

			if (json_is_true(json_object_get(e, "significant")))
				text(pg, tt, "*");
			if (vd) {
				text(pg, tt, " ");
				text(pg, tt, vd);
			}
			if (vd && !strcmp(vd, "worse"))
				attr(pg, tt, "fill", "#b3261e");
			else if (vd && !strcmp(vd, "better"))
				attr(pg, tt, "fill", "#116b2d");
		}
		break;
	}
}

/* The figures behind the boxes: a lane's summary per line. */
static void box_table(struct page *pg, xmlNodePtr fig, const struct lane *lanes, size_t n)
{
	xmlNodePtr tbody = header_row(pg, el(pg, fig, "table", NULL),
				      (const char *const[]){ "configuration", "n", "mean", "median",
							     "stddev", "CoV", "min", "p25", "p75",
							     "max", NULL });

	for (size_t i = 0; i < n; i++) {
		const json_t *su = lanes[i].summary;
		xmlNodePtr tr = el(pg, tbody, "tr", NULL), td = el(pg, tr, "td", NULL);
		char *label = side_label(pg, lanes[i].config, lanes[i].campaign);
		double cov;

		swatch(pg, td, cfg_colour(pg, lanes[i].config, lanes[i].campaign));
		text(pg, td, label ? label : "-");
		if (lanes[i].base)
			text(pg, td, " (baseline)");
		free(label);
		td_num(pg, tr, jfmt(su, "n").s);
		td_num(pg, tr, jfmt(su, "mean").s);
		td_num(pg, tr, jfmt(su, "median").s);
		td_num(pg, tr, jfmt(su, "stddev").s);
		/* cov is a fraction in the summary */
		if (jnum(su, "cov", &cov))
			elf(pg, tr, "td", "%.2f%%", fabs(cov) < 1e9 ? cov * 100 : 0);
		else
			td_num(pg, tr, "-");
		td_num(pg, tr, jfmt(su, "min").s);
		td_num(pg, tr, jfmt(su, "p25").s);
		td_num(pg, tr, jfmt(su, "p75").s);
		td_num(pg, tr, jfmt(su, "max").s);
	}
}

/* The box plot of the rows' group (workload, cell, metric) at @first:
 * a lane per configuration, then the table of their figures. */
static void box_chart(struct page *pg, xmlNodePtr parent, const json_t *rows, size_t first)
{
	const json_t *r0 = json_array_get(rows, first);
	size_t n, points = 0;
	struct lane *lanes = box_lanes(pg, rows, first, &n);
	double H = BOX_TOP + (double)n * BOX_LANE_H + 36;
	xmlNodePtr fig, svg, cap;
	struct scale s;

	if (pg->failed)
		return;
	box_scale(&s, lanes, n);
	fig = el(pg, parent, "figure", NULL);
	cap = el(pg, fig, "figcaption", NULL);
	elf(pg, cap, "span", "%s / %s: %s", orstr(jstr(r0, "workload")), orstr(jstr(r0, "cell")),
	    orstr(jstr(r0, "metric")));
	elf(pg, cap, "span", " (%s, %s is better)", orstr(jstr(r0, "unit")),
	    orstr(jstr(r0, "better")));
	svg = svg_root(pg, fig, "chart boxplot", BOX_W, H);
	attr(pg, svg, "data-mark", "box");
	attrf(pg, svg, "data-marks", "%zu", n);
	attrf(pg, svg, "data-metric", "%s", orstr(jstr(r0, "metric")));
	axis_x(pg, svg, &s, BOX_TOP, BOX_TOP + (double)n * BOX_LANE_H + 4, jstr(r0, "unit"));
	for (size_t i = 0; i < n; i++) {
		const struct lane *ln = &lanes[i];
		double cy = BOX_TOP + (double)i * BOX_LANE_H + BOX_LANE_H / 2;
		char *label = side_label(pg, ln->config, ln->campaign);
		xmlNodePtr g;

		if (!label) {
			pg->failed = true;
			continue;
		}
		box_label(pg, svg, ln, label, cy);
		g = el(pg, svg, "g", NULL);
		attr(pg, g, "class", ln->base ? "box base" : "box");
		attr(pg, g, "data-config", orstr(ln->config));
		el(pg, g, "title", label);
		free(label);
		points += box_lane(pg, g, &s, ln, cy, cfg_colour(pg, ln->config, ln->campaign));
		box_verdict(pg, svg, rows, first, ln, cy);
	}
	attrf(pg, svg, "data-points", "%zu", points);
	box_table(pg, fig, lanes, n);
	free(lanes);
}

static void part_values(struct page *pg, xmlNodePtr body)
{
	json_t *rows = json_object_get(pg->rep, "rows"), *r;
	xmlNodePtr h, p;
	size_t i;

	h = el(pg, body, "h2", "Per-boot values");
	attr(pg, h, "id", "values");
	p = el(pg, body, "p",
	       "One dot per boot; box = quartiles, bar = median, whiskers = min and max, "
	       "diamond = the mean the verdict uses. Baselines are grey and dashed.");
	attr(pg, p, "class", "note");
	json_array_foreach(rows, i, r) if (first_of_group(rows, i, same_group))
		box_chart(pg, body, rows, i);
	if (!json_array_size(rows))
		el(pg, body, "p", "No rows.");
}

/* ---- latency CDFs from the merged histograms ---- */

static bool same_hist_group(const json_t *a, const json_t *b)
{
	return same_str(jstr(a, "cell"), jstr(b, "cell")) &&
	       same_str(jstr(a, "metric"), jstr(b, "metric"));
}

/* A CDF chart's geometry (px). */
#define CDF_W 640.0
#define CDF_H 330.0
#define CDF_LEFT 50.0
#define CDF_RIGHT 16.0
#define CDF_TOP 12.0
#define CDF_BOTTOM 44.0

/*
 * The histograms of the group at @first into @hs (one per entry, in
 * order; one that does not read is left empty and said why in a note
 * under @fig), and the x scale over the values they hold: logarithmic
 * when they span a factor of 10 or more.  The unit is the histograms'
 * own, else the document's.
 */
static const char *cdf_load(struct page *pg, xmlNodePtr fig, const json_t *hists, size_t first,
			    struct vtb_hist *hs, struct scale *sx)
{
	const json_t *h0 = json_array_get(hists, first), *e;
	double lo = INFINITY, hi = -INFINITY;
	const char *unit = NULL;
	xmlNodePtr notes = NULL;
	size_t i, n = 0;

	json_array_foreach(hists, i, e)
	{
		if (i < first || !same_hist_group(h0, e))
			continue;
		if (vtb_hist_from_json(&hs[n], json_object_get(e, "params"),
				       json_object_get(e, "buckets")) < 0) {
			if (!notes)
				notes = el(pg, fig, "p", NULL);
			attr(pg, notes, "class", "note");
			text(pg, notes, cfg_label(pg, jstr(e, "config"), NULL));
			text(pg, notes, ": ");
			text(pg, notes, vtb_errmsg());
			text(pg, notes, ". ");
			memset(&hs[n], 0, sizeof(hs[n]));
		} else if (hs[n].count) {
			lo = fmin(lo, (double)hs[n].min);
			hi = fmax(hi, (double)hs[n].max + 1);
			if (!unit)
				unit = hs[n].unit;
		}
		n++;
	}
	if (lo > 0 && hi / lo >= 10) {
		sx->log = true;
		sx->lo = log10(lo) - 0.05;
		sx->hi = log10(hi) + 0.05;
	} else {
		scale_lin(sx, lo, hi);
	}
	sx->p0 = CDF_LEFT;
	sx->p1 = CDF_W - CDF_RIGHT;
	return unit ? unit : jstr(h0, "unit");
}

/* The empty chart: the x axis, the y grid in quarters, the p99 line. */
static xmlNodePtr cdf_frame(struct page *pg, xmlNodePtr fig, const struct scale *sx,
			    const struct scale *sy, const char *unit)
{
	xmlNodePtr svg = svg_root(pg, fig, "chart cdfplot", CDF_W, CDF_H), l;
	double y;

	attr(pg, svg, "data-mark", "cdf");
	axis_x(pg, svg, sx, CDF_TOP, CDF_H - CDF_BOTTOM, unit);
	for (int k = 0; k <= 4; k++) {
		y = sc(sy, k / 4.0);
		attr(pg, svg_line(pg, svg, CDF_LEFT, y, CDF_W - CDF_RIGHT, y, "#eeeeee"), "class",
		     "grid");
		svg_text(pg, svg, CDF_LEFT - 4, y + 4, "end", fmt_num(k / 4.0).s);
	}
	y = sc(sy, 0.99);
	l = svg_line(pg, svg, CDF_LEFT, y, CDF_W - CDF_RIGHT, y, "#999999");
	attr(pg, l, "stroke-dasharray", "3 3");
	svg_text(pg, svg, CDF_W - CDF_RIGHT - 2, y - 3, "end", "p99");
	svg_text(pg, svg, 4, CDF_TOP + 8, NULL, "CDF");
	return svg;
}

/* One histogram's curve: a step at each bucket's last value (the curve
 * never claims a value below where its samples can be); dashed for a
 * baseline. */
static void cdf_line(struct page *pg, xmlNodePtr svg, const struct vtb_hist *h, const char *cfg,
		     const struct scale *sx, const struct scale *sy)
{
	struct vtb_strbuf pts = VTB_STRBUF_INIT;
	uint64_t cum = 0;
	xmlNodePtr pl;

	if (vtb_strbuf_addf(&pts, "%.1f,%.1f", sc(sx, (double)h->min), sc(sy, 0)))
		pg->failed = true;
	for (size_t b = 0; b < h->n_buckets; b++) {
		double x;

		if (!h->buckets[b])
			continue;
		cum += h->buckets[b];
		x = (double)vtb_hist_bucket_lo(h->bits, b) +
		    (double)(vtb_hist_bucket_width(h->bits, b) - 1);
		if (vtb_strbuf_addf(&pts, " %.1f,%.1f", sc(sx, x),
				    sc(sy, (double)cum / (double)h->count)))
			pg->failed = true;
	}
	pl = el(pg, svg, "polyline", NULL);
	attr(pg, pl, "class", "cdf");
	attr(pg, pl, "data-config", orstr(cfg));
	attr(pg, pl, "points", vtb_strbuf_str(&pts));
	attr(pg, pl, "fill", "none");
	attr(pg, pl, "stroke", cfg_colour(pg, cfg, NULL));
	attr(pg, pl, "stroke-width", "1.8");
	if (!strcmp(orstr(cfg_kind(pg, cfg)), "baseline"))
		attr(pg, pl, "stroke-dasharray", "6 3");
	el(pg, pl, "title", cfg_label(pg, cfg, NULL));
	vtb_strbuf_release(&pts);
}

/* One histogram's line of the table under the chart. */
static void cdf_row(struct page *pg, xmlNodePtr tbody, const struct vtb_hist *h, const char *cfg)
{
	xmlNodePtr tr = el(pg, tbody, "tr", NULL), td = el(pg, tr, "td", NULL);

	swatch(pg, td, cfg_colour(pg, cfg, NULL));
	text(pg, td, cfg_label(pg, cfg, NULL));
	td_num(pg, tr, fmt_num((double)h->count).s);
	td_num(pg, tr, fmt_num((double)vtb_hist_percentile(h, 50)).s);
	td_num(pg, tr, fmt_num((double)vtb_hist_percentile(h, 90)).s);
	td_num(pg, tr, fmt_num((double)vtb_hist_percentile(h, 99)).s);
	td_num(pg, tr, fmt_num((double)vtb_hist_percentile(h, 99.9)).s);
	td_num(pg, tr, fmt_num((double)h->max).s);
	td_num(pg, tr, fmt_num(vtb_hist_mean(h)).s);
}

/* The CDFs of the histograms' group (cell, metric) at @first, one line
 * per histogram that holds samples, and their percentiles. */
static void cdf_chart(struct page *pg, xmlNodePtr parent, const json_t *hists, size_t first)
{
	const json_t *h0 = json_array_get(hists, first), *e;
	struct scale sx, sy = { .lo = 0, .hi = 1, .p0 = CDF_H - CDF_BOTTOM, .p1 = CDF_TOP };
	struct vtb_hist *hs = NULL;
	size_t n = 0, i, drawn = 0;
	xmlNodePtr fig, svg, tbody;
	const char *unit;

	json_array_foreach(hists, i, e) if (i >= first && same_hist_group(h0, e)) n++;
	hs = calloc(n + 1, sizeof(*hs));
	if (!hs) {
		pg->failed = true;
		return;
	}
	fig = el(pg, parent, "figure", NULL);
	elf(pg, el(pg, fig, "figcaption", NULL), "span", "%s: %s", orstr(jstr(h0, "cell")),
	    orstr(jstr(h0, "metric")));
	unit = cdf_load(pg, fig, hists, first, hs, &sx);
	svg = cdf_frame(pg, fig, &sx, &sy, unit);
	tbody = header_row(pg, el(pg, fig, "table", NULL),
			   (const char *const[]){ "configuration", "samples", "p50", "p90", "p99",
						  "p99.9", "max", "mean", NULL });
	n = 0;
	json_array_foreach(hists, i, e)
	{
		const struct vtb_hist *h;

		if (i < first || !same_hist_group(h0, e))
			continue;
		h = &hs[n++];
		if (!h->count)
			continue;
		cdf_line(pg, svg, h, jstr(e, "config"), &sx, &sy);
		cdf_row(pg, tbody, h, jstr(e, "config"));
		drawn++;
	}
	attrf(pg, svg, "data-marks", "%zu", drawn);
	for (i = 0; i < n; i++)
		vtb_hist_release(&hs[i]);
	free(hs);
}

static void part_cdfs(struct page *pg, xmlNodePtr body)
{
	json_t *hists = json_object_get(pg->rep, "histograms"), *e;
	xmlNodePtr h, p;
	size_t i;

	h = el(pg, body, "h2", "Latency CDFs");
	attr(pg, h, "id", "cdf");
	p = el(pg, body, "p",
	       "Merged histograms of all boots per configuration (display only: the verdicts "
	       "test per-boot values). Baselines dashed.");
	attr(pg, p, "class", "note");
	json_array_foreach(hists, i, e) if (first_of_group(hists, i, same_hist_group))
		cdf_chart(pg, body, hists, i);
	if (!json_array_size(hists))
		el(pg, body, "p", "No latency histograms.");
}

/* ---- c2c heat maps ---- */

/* YlOrRd-like ramp, @t in [0, 1]. */
static void ramp(double t, char out[8])
{
	static const double stops[][3] = {
		{ 255, 255, 204 }, { 254, 178, 76 }, { 240, 59, 32 }, { 128, 0, 38 }
	};
	double seg, f;
	int i;

	if (!isfinite(t) || t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	seg = t * 3;
	i = seg >= 3 ? 2 : (int)seg;
	f = seg - i;
	snprintf(out, 8, "#%02x%02x%02x",
		 (unsigned)lround(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
		 (unsigned)lround(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])),
		 (unsigned)lround(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
}

/* The matrix is usable when it is n arrays of n entries, n = |cpus|. */
static bool matrix_ok(const json_t *c2c)
{
	const json_t *cpus = json_object_get(c2c, "cpus"), *m = json_object_get(c2c, "matrix_ns");
	size_t n = json_array_size(cpus);

	if (!json_is_array(cpus) || !json_is_array(m) || json_array_size(m) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (json_array_size(json_array_get(m, i)) != n)
			return false;
	return true;
}

static void range_of(const json_t *c2c, double *lo, double *hi)
{
	const json_t *m = json_object_get(c2c, "matrix_ns"), *row, *v;
	size_t i, j;

	if (!matrix_ok(c2c))
		return;
	json_array_foreach(m, i, row)
		json_array_foreach(row, j, v) if (i != j && json_is_number(v) &&
						  isfinite(json_number_value(v)))
	{
		*lo = fmin(*lo, json_number_value(v));
		*hi = fmax(*hi, json_number_value(v));
	}
}

static void heatmap(struct page *pg, xmlNodePtr parent, const json_t *c2c, double lo, double hi,
		    const char *role)
{
	const json_t *cpus = json_object_get(c2c, "cpus"), *m = json_object_get(c2c, "matrix_ns");
	const char *cfg = jstr(c2c, "config");
	size_t n = matrix_ok(c2c) ? json_array_size(cpus) : 0, i, j;
	double cs = n ? fmin(40, fmax(3, 400.0 / (double)n)) : 40, margin = cs >= 12 ? 34 : 8;
	double W = margin + cs * (double)n + 8, H = margin + cs * (double)n + 8;
	xmlNodePtr fig, cap, svg;

	fig = el(pg, parent, "figure", NULL);
	cap = el(pg, fig, "figcaption", NULL);
	swatch(pg, cap, cfg_colour(pg, cfg, NULL));
	text(pg, cap, cfg_label(pg, cfg, NULL));
	text(pg, cap, role);
	if (!n)
		el(pg, fig, "p", "no usable matrix (expected one row of n values per CPU)");
	svg = svg_root(pg, fig, "chart heatmap", W < 120 ? 120 : W, H);
	attr(pg, svg, "data-mark", "cell");
	attrf(pg, svg, "data-marks", "%zu", n * n);
	attrf(pg, svg, "data-cpus", "%zu", n);
	for (i = 0; i < n && cs >= 12; i++) {
		char *l = jtext(json_array_get(cpus, i));

		svg_text(pg, svg, margin + cs * ((double)i + 0.5), margin - 6, "middle",
			 l ? l : "?");
		svg_text(pg, svg, margin - 5, margin + cs * ((double)i + 0.5) + 4, "end",
			 l ? l : "?");
		free(l);
	}
	for (i = 0; i < n; i++) {
		const json_t *row = json_array_get(m, i);

		for (j = 0; j < n; j++) {
			const json_t *v = json_array_get(row, j);
			bool have = json_is_number(v) && isfinite(json_number_value(v));
			double d = have ? json_number_value(v) : NAN, t;
			char fill[8];
			xmlNodePtr r;

			t = hi > lo ? (d - lo) / (hi - lo) : 0.5;
			ramp(t, fill);
			r = svg_rect(pg, svg, margin + cs * (double)j, margin + cs * (double)i, cs,
				     cs, have && i != j ? fill : "#eeeeee");
			attr(pg, r, "class", have && i != j ? "cell" : "cell na");
			attr(pg, r, "stroke", "#ffffff");
			attr(pg, r, "stroke-width", cs >= 12 ? "1" : "0");
			if (n <= 64) {
				char *a = jtext(json_array_get(cpus, i)),
				     *b = jtext(json_array_get(cpus, j));
				char *tt = vtb_asprintf("cpu %s - cpu %s: %s ns", a ? a : "?",
							b ? b : "?",
							have ? fmt_num(d).s : "not measured");

				if (!tt)
					pg->failed = true;
				else
					el(pg, r, "title", tt);
				free(a);
				free(b);
				free(tt);
			}
			if (have && i != j && cs >= 30) {
				xmlNodePtr tx = svg_text(pg, svg, margin + cs * ((double)j + 0.5),
							 margin + cs * ((double)i + 0.5) + 4,
							 "middle", fmt_num(d).s);

				attr(pg, tx, "font-size", "10");
				if (t > 0.55)
					attr(pg, tx, "style", "fill:#ffffff");
			}
		}
	}
}

static void part_c2c(struct page *pg, xmlNodePtr body)
{
	json_t *c2c = json_object_get(pg->rep, "c2c"), *rows = json_object_get(pg->rep, "rows");
	json_t *e, *f, *r;
	size_t i, k, n = json_array_size(c2c);
	bool *done;
	xmlNodePtr h, p;

	h = el(pg, body, "h2", "Core-to-core latency");
	attr(pg, h, "id", "c2c");
	p = el(pg, body, "p",
	       "Round trip of one cache line between each pair of CPUs (ns, mean over boots); "
	       "each guest beside its host baseline on one colour scale. Grey: not measured.");
	attr(pg, p, "class", "note");
	if (!n) {
		el(pg, body, "p", "No c2c matrices.");
		return;
	}
	done = calloc(n, sizeof(*done));
	if (!done) {
		pg->failed = true;
		return;
	}
	/* each VM's matrix, then its baseline's (from the rows that compare
	 * them in that cell), then whatever is left alone */
	for (int pass = 0; pass < 2; pass++) {
		json_array_foreach(c2c, i, e)
		{
			const char *cfg = jstr(e, "config"), *cell = jstr(e, "cell");
			const char *kind = cfg_kind(pg, cfg);
			long partner = -1;
			double lo = INFINITY, hi = -INFINITY;
			xmlNodePtr block, pair;

			if (done[i] || (pass == 0 && (!kind || strcmp(kind, "vm"))))
				continue;
			json_array_foreach(rows, k, r)
			{
				const char *bcfg = jstr(json_object_get(r, "base"), "config");
				size_t m;

				if (pass || !same_str(jstr(r, "cell"), cell) ||
				    !same_str(jstr(json_object_get(r, "x"), "config"), cfg) ||
				    !bcfg)
					continue;
				json_array_foreach(c2c, m, f) if (!done[m] && m != i &&
								  same_str(jstr(f, "cell"), cell) &&
								  same_str(jstr(f, "config"), bcfg))
					partner = (long)m;
				if (partner >= 0)
					break;
			}
			range_of(e, &lo, &hi);
			if (partner >= 0)
				range_of(json_array_get(c2c, (size_t)partner), &lo, &hi);
			block = el(pg, body, "div", NULL);
			attr(pg, block, "class", "c2c");
			el(pg, block, "h3", orstr(cell));
			pair = el(pg, block, "div", NULL);
			attr(pg, pair, "class", "pair");
			heatmap(pg, pair, e, lo, hi,
				kind && !strcmp(kind, "vm") ? " (guest)" : " (host)");
			done[i] = true;
			if (partner >= 0) {
				heatmap(pg, pair, json_array_get(c2c, (size_t)partner), lo, hi,
					" (host)");
				done[partner] = true;
			}
			if (isfinite(lo) && isfinite(hi)) {
				xmlNodePtr key = el(pg, block, "p", NULL), sw;
				char fill[8];

				attr(pg, key, "class", "note");
				text(pg, key, "scale: ");
				for (int s = 0; s <= 4; s++) {
					ramp(s / 4.0, fill);
					sw = el(pg, key, "span", "");
					attr(pg, sw, "class", "swatch");
					attrf(pg, sw, "style", "background:%s", fill);
					elf(pg, key, "span", "%s  ",
					    fmt_num(lo + (hi - lo) * s / 4.0).s);
				}
				text(pg, key, "ns");
			}
		}
	}
	free(done);
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

	if (jnum(o, "off_planned_mean", &v) && jnum(o, "off_planned_max", &w)) {
		d = elf(pg, td, "div", "off plan %.1f%% mean, %.1f%% max",
			fabs(v) < 1e9 ? v * 100 : 0, fabs(w) < 1e9 ? w * 100 : 0);
		attr(pg, d, "class", "nw");
		any = true;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!jnum(o, keys[i][0], &v))
			continue;
		d = elf(pg, td, "div", "%s %.1f%%", keys[i][1], fabs(v) < 1e9 ? v * 100 : 0);
		attr(pg, d, "class", "nw");
		any = true;
	}
	if (!any)
		text(pg, td, "no host-side samples");
}

/* What the configuration was told: "key value" lines. */
static void ev_told(struct page *pg, xmlNodePtr tr, const json_t *told)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)told, k, v)
	{
		char *t = jtext(v);

		if (!t || vtb_strbuf_addf(&sb, "%s%s %s", sb.len ? "\n" : "", k, t))
			pg->failed = true;
		free(t);
	}
	el(pg, el(pg, tr, "td", NULL), "pre", sb.len ? vtb_strbuf_str(&sb) : "-");
	vtb_strbuf_release(&sb);
}

/* The guests' claims, one line each, the state coloured. */
static void ev_claims(struct page *pg, xmlNodePtr tr, const json_t *claims)
{
	xmlNodePtr td = el(pg, tr, "td", json_array_size(claims) ? NULL : "none");
	const json_t *v;
	size_t j;

	json_array_foreach(claims, j, v)
	{
		char *vc = jtext(json_object_get(v, "vcpus"));
		const char *st = orstr(jstr(v, "state"));
		xmlNodePtr line = el(pg, td, "div", NULL);

		elf(pg, line, "span", "%s vCPUs %s: ", orstr(jstr(v, "kind")), vc ? vc : "?");
		attrf(pg, el(pg, line, "span", st), "class", "st-%s",
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
	xmlNodePtr div = el(pg, el(pg, tr, "td", NULL), "div", NULL);
	const json_t *v;
	size_t j;

	attr(pg, div, "class", "levels");
	attr(pg, div, "data-mark", "level");
	attrf(pg, div, "data-marks", "%zu", json_array_size(levels));
	attr(pg, div, "data-config", orstr(cfg));
	json_array_foreach(levels, j, v)
	{
		const char *names = jstr(v, "levels");
		xmlNodePtr lv = el(pg, div, "span", NULL);
		char *copy = strdup(names ? names : ""), *tok, *save = NULL;
		double boots;

		attr(pg, lv, "class", "level");
		if (!copy)
			pg->failed = true;
		for (tok = copy ? strtok_r(copy, " ", &save) : NULL; tok;
		     tok = strtok_r(NULL, " ", &save))
			attr(pg, el(pg, lv, "span", tok), "class", "dom");
		if (!copy || !*copy)
			attr(pg, el(pg, lv, "span", "none"), "class", "dom");
		free(copy);
		if (jnum(v, "boots", &boots))
			elf(pg, lv, "span", " \xc3\x97%s", fmt_num(boots).s);
	}
}

/* The boots checked against the plan, an unexpected topology in red. */
static void ev_boots(struct page *pg, xmlNodePtr tr, const json_t *e)
{
	xmlNodePtr td = el(pg, tr, "td", NULL), d;
	double u = 0;

	elf(pg, td, "div", "%s boots", jfmt(e, "boots").s);
	elf(pg, td, "div", "%s as planned", jfmt(e, "matched").s);
	d = elf(pg, td, "div", "%s unexpected-topology", jfmt(e, "unexpected").s);
	if (jnum(e, "unexpected", &u) && u > 0)
		attr(pg, d, "class", "st-false");
	elf(pg, td, "div", "%s unchecked", jfmt(e, "unchecked").s);
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
			const char *cfg = jstr(e, "config");
			xmlNodePtr p;

			if (!json_is_string(v))
				continue;
			p = el(pg, body, "p", NULL);
			attr(pg, p, "class", "note stream-rule");
			swatch(pg, p, cfg_colour(pg, cfg, NULL));
			elf(pg, p, "span", "%s: %s",
			    jstr(e, "label") ? jstr(e, "label") : cfg_label(pg, cfg, NULL),
			    json_string_value(v));
		}
	}
}

static void part_evidence(struct page *pg, xmlNodePtr body)
{
	json_t *ev = json_object_get(pg->rep, "evidence"), *e;
	xmlNodePtr h, tbody, p;
	size_t i;

	h = el(pg, body, "h2", "Guest evidence");
	attr(pg, h, "id", "evidence");
	p = el(pg, body, "p",
	       "What each VM configuration was told, the sched-domain levels its guests built "
	       "(innermost first, DIE written PKG; compared only within one guest kernel), and "
	       "where its vCPUs ran on the host.");
	attr(pg, p, "class", "note");
	if (!json_array_size(ev)) {
		el(pg, body, "p", "No VM configurations.");
		return;
	}
	tbody = header_row(pg, el(pg, body, "table", NULL),
			   (const char *const[]){ "configuration", "told", "claims",
						  "domain levels (boots)", "guest kernel",
						  "boots checked", "first difference",
						  "where the vCPUs ran", NULL });
	json_array_foreach(ev, i, e)
	{
		const char *cfg = jstr(e, "config");
		xmlNodePtr tr = el(pg, tbody, "tr", NULL), td;

		td = el(pg, tr, "td", NULL);
		attr(pg, td, "class", "lbl");
		swatch(pg, td, cfg_colour(pg, cfg, NULL));
		text(pg, td, jstr(e, "label") ? jstr(e, "label") : cfg_label(pg, cfg, NULL));
		ev_told(pg, tr, json_object_get(e, "told"));
		ev_claims(pg, tr, json_object_get(e, "claims"));
		ev_levels(pg, tr, json_object_get(e, "levels"), cfg);
		el(pg, tr, "td", orstr(jstr(e, "guest_kernel")));
		ev_boots(pg, tr, e);
		el(pg, el(pg, tr, "td", NULL), "pre", orstr(jstr(e, "first_diff")));
		pct_lines(pg, el(pg, tr, "td", NULL), e);
	}
	ev_notes(pg, body, ev);
}

/* ---- output ---- */

struct sink {
	FILE *f;
	bool failed;
	int err;
};

/* A failed write is remembered and reported once by vtb_report_html();
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

static int html_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	struct page pg = { .rep = doc };
	struct sink sink = { .f = f };
	xmlNodePtr html, head, body, meta, foot;
	xmlSaveCtxtPtr save;
	const char *schema = jstr(doc, "schema");
	char *title;
	int ret = -1;

	(void)o;
	if (!json_is_object(doc))
		return vtb_error("the report document is not a JSON object");
	if (!schema || strcmp(schema, VTB_REPORT_SCHEMA))
		return vtb_error("report schema '%s' is not '%s'", schema ? schema : "(none)",
				 VTB_REPORT_SCHEMA);
	pg.doc = xmlNewDoc(X("1.0"));
	if (!pg.doc)
		return vtb_error("out of memory building the HTML report");
	if (!xmlCreateIntSubset(pg.doc, X("html"), NULL, NULL))
		pg.failed = true;
	html = xmlNewDocNode(pg.doc, NULL, X("html"), NULL);
	if (!html || !xmlNewNs(html, X("http://www.w3.org/1999/xhtml"), NULL)) {
		xmlFreeNode(html);
		goto out;
	}
	xmlDocSetRootElement(pg.doc, html);
	attr(&pg, html, "lang", "en");
	head = el(&pg, html, "head", NULL);
	meta = el(&pg, head, "meta", NULL);
	attr(&pg, meta, "charset", "utf-8");
	title = vtb_asprintf("vtbench compare %s",
			     orstr(jstr(json_object_get(doc, "campaign"), "uuid")));
	el(&pg, head, "title", title ? title : "vtbench compare");
	free(title);
	el(&pg, head, "style", vtb_report_css);
	body = el(&pg, html, "body", NULL);

	part_header(&pg, body);
	part_campaign(&pg, body);
	part_configs(&pg, body);
	part_verdicts(&pg, body);
	part_values(&pg, body);
	part_cdfs(&pg, body);
	part_c2c(&pg, body);
	part_evidence(&pg, body);
	foot = el(&pg, body, "p", NULL);
	attr(&pg, foot, "class", "note");
	text(&pg, foot, "vtbench ");
	text(&pg, foot, orstr(jstr(json_object_get(doc, "campaign"), "version")));
	text(&pg, foot, ", report schema " VTB_REPORT_SCHEMA);

	if (pg.failed)
		goto out;
	save = xmlSaveToIO(sink_write, sink_close, &sink, "UTF-8",
			   XML_SAVE_NO_DECL | XML_SAVE_NO_EMPTY | XML_SAVE_FORMAT);
	if (!save)
		goto out;
	if (xmlSaveDoc(save, pg.doc) < 0)
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
	xmlFreeDoc(pg.doc);
	return ret;
}

const struct vtb_report_ops vtb_report_html = {
	.name = "html",
	.summary = "one self-contained page: verdicts, box plots, latency CDFs, c2c heat maps",
	.media_type = "text/html; charset=utf-8",
	.ext = { ".html", ".htm" },
	.render = html_render,
};
