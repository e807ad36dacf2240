/* SPDX-License-Identifier: MIT */
/*
 * Emitters of the compare document (compare.h, "vtbench-compare/1"):
 * text, Markdown and CSV.  Each writes @doc to @f and returns 0, or -1
 * with vtb_error() (a write error).
 */
#ifndef VTB_REPORT_H
#define VTB_REPORT_H

#include <jansson.h>
#include <stdio.h>

int vtb_report_text(const json_t *doc, FILE *f);
int vtb_report_md(const json_t *doc, FILE *f);
int vtb_report_csv(const json_t *doc, FILE *f);

#endif
