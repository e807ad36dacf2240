/* SPDX-License-Identifier: MIT */
/*
 * Text, Markdown and CSV renderings of a compare report document (the
 * jansson document of schema "vtbench-compare/1" that compare.c builds;
 * JSON is that document itself, HTML is report-html.c).
 */
#ifndef VTB_REPORT_H
#define VTB_REPORT_H

#include <jansson.h>
#include <stdio.h>

/*
 * Each writes @doc to @f and returns 0, or -1 with vtb_error() when @doc is
 * malformed (wrong schema, a missing or mistyped member, a row naming a
 * configuration that is not in "configs", two rows for one table cell) or
 * when writing fails (checked with ferror() after a flush).  Nothing is
 * written for a malformed document: it is read whole before the first
 * byte goes out.  @doc is not modified; the caller owns both.
 *
 * Strings of the document are escaped for the format: control characters
 * (C0, DEL, C1) and bytes that are not UTF-8 are written as \xNN (\t, \n,
 * \r, \\ for those), so a guest's strings never reach a terminal raw;
 * Markdown also escapes its punctuation (\| in tables), CSV quotes fields
 * as RFC 4180 says.
 *
 * text: the header (campaign, host, CPU, kernel, accelerator with the TCG
 *   note, options), the legend of configuration names (c1 = LABEL), per
 *   workload, cell and baseline a table (rows = metrics, first column the
 *   baseline, then each compared configuration: mean (change%), * when
 *   significant, verdict; a second line with n, CoV and the 95% CI), split
 *   into several tables of at most 120 columns when wider, the legend, the
 *   guest evidence per VM configuration and the summary line.
 * md: the same as GitHub Markdown (tables, one line per metric, <br>).
 * csv: "# vtbench-compare/1", a header line, one line per row of the
 *   document (cell x metric x compared configuration), numbers with the
 *   shortest precision that reads back to the same double, null as an
 *   empty field.
 */
int vtb_report_text(const json_t *doc, FILE *f);
int vtb_report_md(const json_t *doc, FILE *f);
int vtb_report_csv(const json_t *doc, FILE *f);

#endif
