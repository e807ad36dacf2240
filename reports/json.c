/* SPDX-License-Identifier: MIT */
/*
 * The JSON report: the compare document itself, for programs.  Keys are
 * sorted and reals keep 12 significant digits so that two runs over one
 * database write the same bytes (the goldens in tests/cli/expected rely
 * on it).
 *
 * A document made as it is read (vtb_report_doc) is written member by
 * member in jansson's sorted order, its "rows" and "series" one element
 * at a time: each element is dumped by jansson itself (which escapes)
 * and indented as deep as it sits, so the bytes are those json_dumpf()
 * writes for the whole document, and no more than one row is ever held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "report.h"

#define JSON_FLAGS (JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12))

/* The writer of one value @depth levels deep: every line break jansson
 * writes is followed by the indent of that depth.  jansson hands over a
 * token at a time: they are gathered in @buf and written in blocks. */
struct jw {
	FILE *f;
	size_t indent, n;
	char buf[1 << 16];
};

static int jw_flush(struct jw *w)
{
	size_t n = w->n;

	w->n = 0;
	return fwrite(w->buf, 1, n, w->f) == n ? 0 : -1;
}

static int jw_put(const char *s, size_t size, void *data)
{
	struct jw *w = data;

	while (size) {
		const char *nl = memchr(s, '\n', size);
		size_t n = nl ? (size_t)(nl - s) + 1 : size, ind = nl ? w->indent : 0;

		/* a span (up to its line break) and the indent after it */
		if (w->n + n + ind > sizeof(w->buf) && jw_flush(w))
			return -1;
		if (n + ind > sizeof(w->buf)) {
			if (fwrite(s, 1, n, w->f) != n)
				return -1;
		} else {
			memcpy(w->buf + w->n, s, n);
			w->n += n;
		}
		/* (an indent is far smaller than the buffer) */
		memset(w->buf + w->n, ' ', ind);
		w->n += ind;
		s += n;
		size -= n;
	}
	return 0;
}

/* @v as it is written at @depth (1: a member of the document), through
 * @w (its indent set here). */
static int put_value(struct jw *w, const json_t *v, size_t depth)
{
	w->indent = 2 * depth;
	return json_dump_callback(v, jw_put, w, JSON_FLAGS | JSON_ENCODE_ANY);
}

/* Plain text through @w. */
static int put_text(struct jw *w, const char *s)
{
	size_t indent = w->indent;
	int r;

	w->indent = 0;
	r = jw_put(s, strlen(s), w);
	w->indent = indent;
	return r;
}

/* A member's array made by @get, one element at a time: -1 on a write
 * error, -2 when an element could not be made (vtb_error() says why). */
static int put_made(struct jw *w, const struct vtb_report_doc *d, size_t n,
		    json_t *(*get)(const void *, size_t))
{
	if (!n)
		return put_text(w, "[]");
	for (size_t i = 0; i < n; i++) {
		json_t *e = get(d->src, i);
		int r;

		if (!e)
			return -2;
		r = put_text(w, i ? ",\n    " : "[\n    ") ? -1 : put_value(w, e, 2);
		json_decref(e);
		if (r)
			return -1;
	}
	return put_text(w, "\n  ]");
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The members of @d, sorted as JSON_SORT_KEYS sorts them: -1 on a
 * write error, -2 when a member could not be made. */
static int put_doc(struct jw *w, const struct vtb_report_doc *d)
{
	size_t n = json_object_size(d->head), k = 0;
	const char **keys = calloc(n + 2, sizeof(*keys));
	const char *key;
	json_t *v;
	int r;

	if (!keys) {
		vtb_error("out of memory");
		return -2;
	}
	json_object_foreach((json_t *)d->head, key, v)
	{
		if (strcmp(key, "rows") && strcmp(key, "series"))
			keys[k++] = key;
	}
	keys[k++] = "rows";
	if (d->series)
		keys[k++] = "series";
	qsort(keys, k, sizeof(*keys), cmp_key);
	r = put_text(w, "{");
	for (size_t i = 0; i < k && !r; i++) {
		json_t *name = json_string(keys[i]);

		if (!name) {
			vtb_error("out of memory");
			r = -2;
			break;
		}
		if (put_text(w, i ? ",\n  " : "\n  ") || put_value(w, name, 1) || put_text(w, ": "))
			r = -1;
		json_decref(name);
		if (r)
			break;
		if (!strcmp(keys[i], "rows"))
			r = put_made(w, d, d->nrows, d->row);
		else if (!strcmp(keys[i], "series"))
			r = put_made(w, d, d->nseries, d->series);
		else
			r = put_value(w, json_object_get(d->head, keys[i]), 1) ? -1 : 0;
	}
	if (!r)
		r = put_text(w, "\n}\n");
	if (!r)
		r = jw_flush(w);
	free(keys);
	return r;
}

static int json_render_doc(const struct vtb_report_doc *d, const struct vtb_report_opts *o,
			   FILE *f)
{
	const char *schema = json_string_value(json_object_get(d->head, "schema"));
	int r;

	(void)o;
	if (!json_is_object(d->head) || !schema || strcmp(schema, VTB_REPORT_SCHEMA))
		return vtb_error("report: not a %s document (schema '%s')", VTB_REPORT_SCHEMA,
				 schema ? schema : "none");
	/* a whole document is written as it is (its rows may be absent) */
	if (d->src == d->head) {
		r = json_dumpf(d->head, f, JSON_FLAGS) || fputc('\n', f) == EOF ? -1 : 0;
	} else {
		struct jw *w = malloc(sizeof(*w));

		if (!w)
			return vtb_error("out of memory");
		w->f = f;
		w->n = 0;
		r = put_doc(w, d);
		free(w);
	}
	if (r == -2)
		return -1;
	if (r || fflush(f) || ferror(f))
		return vtb_error("cannot write the report: %s", strerror(errno ? errno : EIO));
	return 0;
}

static int json_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	return vtb_report_render_whole(json_render_doc, doc, o, f);
}

const struct vtb_report_ops vtb_report_json = {
	.name = "json",
	.summary = "the compare document itself (schema " VTB_REPORT_SCHEMA "), for programs",
	.media_type = "application/json",
	.ext = { ".json" },
	.render = json_render,
	.render_doc = json_render_doc,
};
