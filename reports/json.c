/* SPDX-License-Identifier: MIT */
/*
 * The JSON report: the compare document itself, for programs.  Keys are
 * sorted and reals keep 12 significant digits so that two runs over one
 * database write the same bytes (the goldens in tests/cli/expected rely
 * on it).
 */
#include <errno.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "report.h"

static int json_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	(void)o;
	if (!json_is_object(doc) || !schema || strcmp(schema, VTB_REPORT_SCHEMA))
		return vtb_error("report: not a %s document (schema '%s')", VTB_REPORT_SCHEMA,
				 schema ? schema : "none");
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12)) ||
	    fputc('\n', f) == EOF || fflush(f) || ferror(f))
		return vtb_error("cannot write the report: %s", strerror(errno ? errno : EIO));
	return 0;
}

const struct vtb_report_ops vtb_report_json = {
	.name = "json",
	.summary = "the compare document itself (schema " VTB_REPORT_SCHEMA "), for programs",
	.media_type = "application/json",
	.ext = { ".json" },
	.render = json_render,
};
