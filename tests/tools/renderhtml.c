/* SPDX-License-Identifier: MIT */
/*
 * Test tool: renders a compare report document (JSON) into the HTML
 * report, so tests/cli/report_html.sh can load the page in a browser
 * without a database.  usage: renderhtml REPORT.json OUT.html ("-" is
 * stdout).  Exit 0 ok, 2 bad input, 3 write failure.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../../reports/report.h"
#include "../../common/vtbutil.h"

int main(int argc, char **argv)
{
	json_error_t jerr;
	json_t *doc;
	FILE *f;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: renderhtml REPORT.json OUT.html\n");
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
	ret = vtb_report_find("html")->render(doc, NULL, f);
	if (ret < 0)
		fprintf(stderr, "renderhtml: %s\n", vtb_errmsg());
	if (f != stdout && fclose(f) && ret == 0) {
		perror(argv[2]);
		ret = -1;
	}
	json_decref(doc);
	return ret < 0 ? 3 : 0;
}
