/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's tree helpers (html.h): text that XML 1.0 and HTML both
 * accept, elements and attributes that turn a failure into pg->failed,
 * the document's members read leniently, the configurations' labels and
 * colours.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "html.h"
#include "report.h"

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

xmlNodePtr html_el(struct page *pg, xmlNodePtr parent, const char *name, const char *text)
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

/* vasprintf(), a failure noted in @pg. */
static char *page_vasprintf(struct page *pg, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0) {
		pg->failed = true;
		return NULL;
	}
	return s;
}

xmlNodePtr html_elf(struct page *pg, xmlNodePtr parent, const char *name, const char *fmt, ...)
{
	xmlNodePtr n;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = page_vasprintf(pg, fmt, ap);
	va_end(ap);
	n = s ? html_el(pg, parent, name, s) : NULL;
	free(s);
	return n;
}

/* Appends text to @parent (after its other children). */
void html_text(struct page *pg, xmlNodePtr parent, const char *s)
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

void html_attr(struct page *pg, xmlNodePtr n, const char *name, const char *value)
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

void html_attrf(struct page *pg, xmlNodePtr n, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = page_vasprintf(pg, fmt, ap);
	va_end(ap);
	if (s)
		html_attr(pg, n, name, s);
	free(s);
}

void html_section(struct page *pg, xmlNodePtr body, const char *id, const char *title,
		  const char *note)
{
	html_attr(pg, html_el(pg, body, "h2", title), "id", id);
	if (note)
		html_attr(pg, html_el(pg, body, "p", note), "class", "note");
}

/* ---- reading the document: absent or mistyped members are NULL/false ---- */

const char *html_jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

bool html_jnum(const json_t *o, const char *k, double *out)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return false;
	*out = json_number_value(v);
	return true;
}

const char *html_orstr(const char *s)
{
	return s && *s ? s : "-";
}

struct num html_fmt_num(double v)
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

/* the one form of every report (report.h) */
struct num html_fmt_pct(double v)
{
	struct num n;

	snprintf(n.s, sizeof(n.s), "%s", vtb_report_pct(v).s);
	return n;
}

struct num html_jfmt(const json_t *o, const char *k)
{
	double v = NAN;

	html_jnum(o, k, &v);
	return html_fmt_num(v);
}

/* Any JSON value as short text: strings bare, null "-", the rest
 * compact JSON.  malloc'ed; NULL on ENOMEM. */
char *html_jtext(const json_t *v)
{
	if (!v || json_is_null(v))
		return strdup("-");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_real(v))
		return strdup(html_fmt_num(json_real_value(v)).s);
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

void html_td_json(struct page *pg, xmlNodePtr tr, const json_t *v)
{
	char *s = html_jtext(v);

	if (!s) {
		pg->failed = true;
		return;
	}
	html_el(pg, tr, "td", s);
	free(s);
}

xmlNodePtr html_td_num(struct page *pg, xmlNodePtr tr, const char *s)
{
	xmlNodePtr td = html_el(pg, tr, "td", s);

	html_attr(pg, td, "class", "n");
	return td;
}

xmlNodePtr html_header_row(struct page *pg, xmlNodePtr table, const char *const *cols)
{
	xmlNodePtr tr = html_el(pg, html_el(pg, table, "thead", NULL), "tr", NULL);

	for (size_t i = 0; cols[i]; i++)
		html_el(pg, tr, "th", cols[i]);
	return html_el(pg, table, "tbody", NULL);
}

/* ---- configurations: labels and colours ---- */

/* Okabe-Ito, colour-blind safe; yellow left out (unreadable on white). */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999933",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

const char *html_palette(size_t i)
{
	return palette[i % N_PALETTE];
}

/* Index in "configs" of @key (and @campaign when given and present). */
long html_cfg_index(const struct page *pg, const char *key, const char *campaign)
{
	json_t *cfgs = json_object_get(pg->rep, "configs"), *c;
	long any = -1;
	size_t i;

	if (!key)
		return -1;
	json_array_foreach(cfgs, i, c)
	{
		const char *k = html_jstr(c, "key"), *camp = html_jstr(c, "campaign");

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
	long i = html_cfg_index(pg, key, campaign);

	return i < 0 ? NULL : json_array_get(json_object_get(pg->rep, "configs"), (size_t)i);
}

const char *html_cfg_colour(const struct page *pg, const char *key, const char *campaign)
{
	long i = html_cfg_index(pg, key, campaign);

	return i < 0 ? "#777777" : palette[(size_t)i % N_PALETTE];
}

const char *html_cfg_label(const struct page *pg, const char *key, const char *campaign)
{
	const json_t *c = cfg_get(pg, key, campaign);
	const char *l = html_jstr(c, "label");

	return l ? l : html_orstr(key);
}

const char *html_cfg_kind(const struct page *pg, const char *key)
{
	return html_jstr(cfg_get(pg, key, NULL), "kind");
}

void html_swatch(struct page *pg, xmlNodePtr parent, const char *colour)
{
	xmlNodePtr s = html_el(pg, parent, "span", "");

	html_attr(pg, s, "class", "swatch");
	html_attrf(pg, s, "style", "background:%s", colour);
}

/* A label with the campaign's short id when it is not the main campaign
 * (tonight vs last night: the same configuration twice). */
char *html_side_label(const struct page *pg, const char *key, const char *campaign)
{
	const char *main_uuid = html_jstr(json_object_get(pg->rep, "campaign"), "uuid");
	const char *l = html_cfg_label(pg, key, campaign);

	if (campaign && main_uuid && strcmp(campaign, main_uuid))
		return vtb_asprintf("%s @%.8s", l, campaign);
	return strdup(l);
}

/* What sets @label apart in @set (html.h). */
char *html_words_apart(const json_t *set, const char *label)
{
	const char *l = html_orstr(label);
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	bool err = vtb_strbuf_addstr(&sb, "") < 0;

	for (const char *w = l; *w && !err;) {
		size_t n = strcspn(w, " ");
		const json_t *o;
		bool everywhere = true;
		size_t i;

		json_array_foreach(set, i, o)
		{
			const char *ol = html_orstr(html_jstr(o, "label"));
			bool has = false;

			for (const char *p = ol; *p && !has;
			     p += strcspn(p, " "), p += strspn(p, " "))
				has = strcspn(p, " ") == n && !strncmp(p, w, n);
			everywhere &= has;
		}
		if (n && !everywhere)
			err = vtb_strbuf_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)n, w) < 0;
		w += n;
		w += strspn(w, " ");
	}
	if (err) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

const char *html_verdict_class(const char *v)
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

bool html_same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}
