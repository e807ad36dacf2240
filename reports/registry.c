/* SPDX-License-Identifier: MIT */
/*
 * The report format registry: every emitter's ops table, in the order
 * --help and error messages name them.  vtb_reports_check() runs once at
 * start (harness/cli/main.c) so a broken table fails before any report.
 */
#include <string.h>
#include <strings.h>

#include "../common/vtbutil.h"
#include "report.h"

extern const struct vtb_report_ops vtb_report_text;
extern const struct vtb_report_ops vtb_report_md;
extern const struct vtb_report_ops vtb_report_html;
extern const struct vtb_report_ops vtb_report_json;
extern const struct vtb_report_ops vtb_report_csv;

const struct vtb_report_ops *const vtb_reports[] = {
	&vtb_report_text, &vtb_report_md, &vtb_report_html, &vtb_report_json, &vtb_report_csv, NULL,
};

const struct vtb_report_ops *vtb_report_find(const char *name)
{
	for (size_t i = 0; name && vtb_reports[i]; i++)
		if (!strcmp(vtb_reports[i]->name, name))
			return vtb_reports[i];
	return NULL;
}

const struct vtb_report_ops *vtb_report_for_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return NULL;
	for (size_t i = 0; vtb_reports[i]; i++)
		for (size_t e = 0;
		     e < VTB_ARRAY_SIZE(vtb_reports[i]->ext) && vtb_reports[i]->ext[e]; e++)
			if (!strcasecmp(dot, vtb_reports[i]->ext[e]))
				return vtb_reports[i];
	return NULL;
}

const char *const *vtb_report_names(void)
{
	static const char *names[VTB_ARRAY_SIZE(vtb_reports)];

	for (size_t i = 0; vtb_reports[i]; i++)
		names[i] = vtb_reports[i]->name;
	return names;
}

/* An extension another format (or this one) already claims, or NULL. */
static const char *ext_taken(size_t i, size_t e)
{
	const char *x = vtb_reports[i]->ext[e];

	for (size_t j = 0; j <= i; j++)
		for (size_t k = 0;
		     k < VTB_ARRAY_SIZE(vtb_reports[j]->ext) && vtb_reports[j]->ext[k]; k++)
			if ((j < i || k < e) && !strcasecmp(vtb_reports[j]->ext[k], x))
				return vtb_reports[j]->name;
	return NULL;
}

int vtb_reports_check(void)
{
	for (size_t i = 0; vtb_reports[i]; i++) {
		const struct vtb_report_ops *r = vtb_reports[i];

		if (!r->name || !*r->name || !r->summary || !r->media_type || !r->ext[0] ||
		    !r->render || !r->render_doc)
			return vtb_error("report format %zu lacks a required member", i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(vtb_reports[j]->name, r->name))
				return vtb_error("report format '%s' registered twice", r->name);
		for (size_t e = 0; e < VTB_ARRAY_SIZE(r->ext) && r->ext[e]; e++) {
			const char *other = r->ext[e][0] == '.' ? ext_taken(i, e) : r->name;

			if (other)
				return vtb_error("report format '%s': extension '%s' is not a "
						 "'.EXT' of its own (see '%s')",
						 r->name, r->ext[e], other);
		}
	}
	return 0;
}

/* A whole document's rows and series: its own elements. */
static json_t *whole_get(const void *src, const char *k, size_t i)
{
	json_t *e = json_array_get(json_object_get((const json_t *)src, k), i);

	if (!e)
		vtb_error("report: %s %zu is missing", k, i);
	return json_incref(e);
}

static json_t *whole_row(const void *src, size_t i)
{
	return whole_get(src, "rows", i);
}

static json_t *whole_series(const void *src, size_t i)
{
	return whole_get(src, "series", i);
}

void vtb_report_doc_of(struct vtb_report_doc *d, const json_t *doc)
{
	const json_t *rows = json_object_get(doc, "rows"), *series = json_object_get(doc, "series");

	*d = (struct vtb_report_doc){
		.head = doc,
		.nrows = json_array_size(rows),
		.nseries = json_array_size(series),
		.row = whole_row,
		.series = json_is_array(series) ? whole_series : NULL,
		.src = doc,
		.rows_ok = json_is_array(rows),
	};
}

/* An array of the @n elements @get makes. */
static json_t *made_array(const struct vtb_report_doc *d, size_t n,
			  json_t *(*get)(const void *, size_t))
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *e = get(d->src, i);

		if (!e || json_array_append_new(a, e)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *vtb_report_doc_whole(const struct vtb_report_doc *d)
{
	json_t *w, *rows, *series;

	if (d->row == whole_row)
		return json_incref((json_t *)d->head);
	w = json_copy((json_t *)d->head);
	rows = made_array(d, d->nrows, d->row);
	series = d->series ? made_array(d, d->nseries, d->series) : json_null();
	if (w && rows && series && !json_object_set(w, "rows", rows) &&
	    (!d->series || !json_object_set(w, "series", series))) {
		json_decref(rows);
		json_decref(series);
		return w;
	}
	json_decref(w);
	json_decref(rows);
	json_decref(series);
	vtb_error("out of memory");
	return NULL;
}

int vtb_report_render_whole(int (*fn)(const struct vtb_report_doc *, const struct vtb_report_opts *,
				      FILE *),
			    const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	struct vtb_report_doc d;

	vtb_report_doc_of(&d, doc);
	return fn(&d, o, f);
}
