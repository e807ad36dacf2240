/* SPDX-License-Identifier: MIT */
/*
 * The self-contained HTML report of a compare document (compare.h).
 * Returns 0, or -1 with vtb_error().
 */
#ifndef VTB_REPORT_HTML_H
#define VTB_REPORT_HTML_H

#include <jansson.h>
#include <stdio.h>

int vtb_report_html(const json_t *doc, FILE *f);

#endif
