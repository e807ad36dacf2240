/* SPDX-License-Identifier: MIT */
/*
 * Inside the HTML report (reports/html-*.c), not for other parts: the
 * page being built and the helpers its files share.
 *   html-tree.c    text XML can carry, tree helpers, reading the
 *                  document, configurations' labels and colours
 *   html-svg.c     SVG primitives, scales and axes
 *   html-charts.c  the charts: headline, box plots, latency CDFs
 *   html-c2c.c     the c2c heat maps
 *   html-page.c    the page: its parts, the stylesheet, writing it out
 *
 * Building never fails half-way: a helper that cannot allocate sets
 * pg->failed and returns NULL (or nothing), and a NULL parent makes the
 * next helper a no-op, so a part is written straight through and the page
 * is refused once, at the end.  Strings given to the helpers are cleaned
 * (control characters as \xNN, what XML cannot carry as U+FFFD) and
 * escaped by libxml2.
 */
#ifndef VTB_REPORT_HTML_H
#define VTB_REPORT_HTML_H

#include <jansson.h>
#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define X(s) ((const xmlChar *)(s))
#define SVG_NS "http://www.w3.org/2000/svg"

struct page {
	xmlDocPtr doc;
	const json_t *rep; /* the compare document */
	bool failed;	   /* ENOMEM somewhere while building: checked once at the end */
};

/* ---- the page (html-page.c) ---- */

/* A new page in pg->doc: <html lang="en">, its <head> (charset, @title,
 * the stylesheet); returns its <body> (NULL and pg->failed on ENOMEM). */
xmlNodePtr html_page_open(struct page *pg, const char *title);
/* Writes pg->doc to @f and frees it: 0, or -1 with vtb_error() (ENOMEM
 * while building, or a write error). */
int html_page_save(struct page *pg, FILE *f);
/* The TCG note (report.h) as a paragraph of @body when campaign @camp, or
 * @against (NULL: none), ran guests under TCG; nothing otherwise. */
void html_tcg_note(struct page *pg, xmlNodePtr body, const json_t *camp, const json_t *against);

/* ---- tree helpers (html-tree.c) ---- */

/* A child element @name of @parent holding @text (NULL: none). */
xmlNodePtr html_el(struct page *pg, xmlNodePtr parent, const char *name, const char *text);
xmlNodePtr html_elf(struct page *pg, xmlNodePtr parent, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Appends text to @parent (after its other children). */
void html_text(struct page *pg, xmlNodePtr parent, const char *s);
void html_attr(struct page *pg, xmlNodePtr n, const char *name, const char *value);
void html_attrf(struct page *pg, xmlNodePtr n, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* <td>: any JSON value as html_jtext() writes it; a number, right-aligned */
void html_td_json(struct page *pg, xmlNodePtr tr, const json_t *v);
xmlNodePtr html_td_num(struct page *pg, xmlNodePtr tr, const char *s);
/* A <thead> row of the NULL-terminated @cols; returns the <tbody>. */
xmlNodePtr html_header_row(struct page *pg, xmlNodePtr table, const char *const *cols);
/* A section of the page: its <h2 id="@id">, then @note (NULL: none) in
 * a <p class="note">. */
void html_section(struct page *pg, xmlNodePtr body, const char *id, const char *title,
		  const char *note);
/* A small square of @colour. */
void html_swatch(struct page *pg, xmlNodePtr parent, const char *colour);

/* ---- reading the document: absent or mistyped members are NULL/false ---- */

const char *html_jstr(const json_t *o, const char *k);
/* a finite number */
bool html_jnum(const json_t *o, const char *k, double *out);
/* @s, or "-" when NULL or empty */
const char *html_orstr(const char *s);
/* Numbers as the text report writes them: 4 significant digits, whole
 * numbers from 1000 up; "-" when not finite. */
struct num {
	char s[48];
};
struct num html_fmt_num(double v);
struct num html_fmt_pct(double v); /* "+1.2%" */
struct num html_jfmt(const json_t *o, const char *k);
/* Any JSON value as short text: strings bare, null "-", the rest
 * compact JSON.  malloc'ed; NULL on ENOMEM. */
char *html_jtext(const json_t *v);
/* both NULL, or equal */
bool html_same_str(const char *a, const char *b);
/* The CSS class of a verdict ("v-worse"; "v-none" for none). */
const char *html_verdict_class(const char *v);

/* ---- configurations: by index in "configs" (@campaign when given) ---- */

const char *html_palette(size_t i); /* the colour of configuration @i */
/* The index of @key (and @campaign when given and present) in "configs",
 * the N-1 of its name cN (the text report's legend); -1 when absent. */
long html_cfg_index(const struct page *pg, const char *key, const char *campaign);
/* What sets @label apart among the objects of the array @set: the words
 * of @label that are not in every member's "label" ("sched=isolate" of
 * "vm vcpus=2 ... sched=isolate"), in @label's order.  malloc'ed ("" when
 * none sets it apart); NULL on ENOMEM. */
char *html_words_apart(const json_t *set, const char *label);
const char *html_cfg_colour(const struct page *pg, const char *key, const char *campaign);
const char *html_cfg_label(const struct page *pg, const char *key, const char *campaign);
const char *html_cfg_kind(const struct page *pg, const char *key);
/* The label, with the campaign's short id when it is not the main
 * campaign.  malloc'ed; NULL on ENOMEM. */
char *html_side_label(const struct page *pg, const char *key, const char *campaign);

/* ---- SVG (html-svg.c) ---- */

/* An <svg> root with its own default namespace (children need none). */
xmlNodePtr html_svg_root(struct page *pg, xmlNodePtr parent, const char *cls, double w, double h);
xmlNodePtr html_svg_text(struct page *pg, xmlNodePtr parent, double x, double y, const char *anchor,
			 const char *s);
xmlNodePtr html_svg_line(struct page *pg, xmlNodePtr parent, double x1, double y1, double x2,
			 double y2, const char *stroke);
xmlNodePtr html_svg_rect(struct page *pg, xmlNodePtr parent, double x, double y, double w, double h,
			 const char *fill);

/* A domain (log: of log10 of the values) mapped onto pixels. */
struct scale {
	double lo, hi; /* domain */
	double p0, p1; /* pixels */
	bool log;
};
/* The pixel of @v, clamped a little beyond the ends. */
double html_sc(const struct scale *s, double v);
/* A linear domain around [lo, hi] with some room (pixels untouched). */
void html_scale_lin(struct scale *s, double lo, double hi);
/* Vertical grid lines from @top, labels under the x axis at @y, in a
 * readable unit (ns to s, B to TiB). */
void html_axis_x(struct page *pg, xmlNodePtr svg, const struct scale *s, double top, double y,
		 const char *unit);
/* Horizontal grid lines across [@left, @right] at nice values of @s,
 * labels left of @left, the unit above them (class "unit"), in a
 * readable unit as html_axis_x's. */
void html_axis_y(struct page *pg, xmlNodePtr svg, const struct scale *s, double left, double right,
		 const char *unit);

/* ---- charts (html-charts.c, html-c2c.c): each appends its figure or section ---- */

void html_headline(struct page *pg, xmlNodePtr body);
void html_part_values(struct page *pg, xmlNodePtr body);
void html_part_cdfs(struct page *pg, xmlNodePtr body);
void html_part_c2c(struct page *pg, xmlNodePtr body);

#endif
