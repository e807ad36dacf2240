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
		    !r->render)
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
