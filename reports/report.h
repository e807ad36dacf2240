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
 * text: the answer first: what was compared, the verdicts counted, the
 *   campaign's boots by status and what failed (boots, cells, with their
 *   reasons), the TCG note, what to compare instead when nothing was;
 *   then the legend of configuration names (c1 = LABEL), per workload,
 *   cell and baseline a table (rows = metrics, first column the baseline,
 *   then each compared configuration: mean (change%), * when significant,
 *   verdict; a second line with n, CoV and the 95% CI), split into several
 *   tables when wider than the width, the legend, the rows not decided
 *   and why; then the details: campaign, host, accelerator (VM campaigns
 *   only), options, the per-configuration summaries, the guest evidence.
 *   Every line fits the width (a word or figure wider than it aside):
 *   prose folds, tables split by columns, over-long names are cut with ~.
 * md: the same as GitHub Markdown (tables, one line per metric, <br>).
 * csv: a header line, then one line per row of the document (cell x
 *   metric x compared configuration), its first columns the provenance
 *   (schema, campaign, against) and the campaign's boots by status;
 *   numbers with the shortest precision that reads back to the same
 *   double, null as an empty field.
 */
#define VTB_REPORT_COLUMNS 100
int vtb_report_text_cols(const json_t *doc, FILE *f, size_t cols);
int vtb_report_text(const json_t *doc, FILE *f); /* VTB_REPORT_COLUMNS */
int vtb_report_md(const json_t *doc, FILE *f);
int vtb_report_csv(const json_t *doc, FILE *f);

#endif
