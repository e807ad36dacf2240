/* SPDX-License-Identifier: MIT */
/*
 * Test tool: renders a compare report document (JSON) into the HTML
 * report, so tests/cli/report_html.sh can load the page in a browser
 * without a database.  usage: renderhtml [--format NAME] REPORT.json
 * OUT ("-" is stdout; NAME any format of the registry, html when not
 * given: the same document in text, md and json for a test that compares
 * them).  Exit 0 ok, 2 bad input, 3 write failure.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../../reports/report.h"
#include "../../common/vtbutil.h"

int main(int argc, char **argv)
{
	const struct vtb_report_ops *ops = vtb_report_find("html");
	json_error_t jerr;
	json_t *doc;
	FILE *f;
	int ret;

	if (argc == 5 && !strcmp(argv[1], "--format")) {
		ops = vtb_report_find(argv[2]);
		if (!ops) {
			fprintf(stderr, "renderhtml: unknown format '%s'\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: renderhtml [--format NAME] REPORT.json OUT\n");
		return 2;
	}
	doc = json_load_file(argv[1], 0, &jerr);
	if (!doc) {
		fprintf(stderr, "renderhtml: %s:%d: %s\n", argv[1], jerr.line, jerr.text);
		return 2;
	}
	f = strcmp(argv[2], "-") ? fopen(argv[2], "w") : stdout;
	if (!f) {
		perror(argv[2]);
		json_decref(doc);
		return 3;
	}
	ret = ops->render(doc, NULL, f);
	if (ret < 0)
		fprintf(stderr, "renderhtml: %s\n", vtb_errmsg());
	if (f != stdout && fclose(f) && ret == 0) {
		perror(argv[2]);
		ret = -1;
	}
	json_decref(doc);
	return ret < 0 ? 3 : 0;
}
