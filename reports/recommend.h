/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend's emitters: the recommend document (schema
 * VTB_RECOMMEND_DOC_SCHEMA, harness/explore/recommend.h builds it) as
 * text (reports/recommend.c) or as one self-contained HTML page with the
 * racing chart (reports/html-recommend.c).  JSON is the document itself.
 * Not in compare's format registry: the document is another one.
 *
 * Both return 0, or -1 with vtb_error() when @doc is not a recommend
 * document or writing fails.  Strings of the document are escaped (text:
 * control characters as \xNN; HTML: by libxml2).  Both say compare's TCG
 * note (report.h) when the campaign's guests ran under TCG.
 *
 * Text is @o's width wide (NULL or 0: VTB_REPORT_COLUMNS; below
 * VTB_REPORT_MIN_COLUMNS laid out for that): every line fits, prose
 * folded as compare's, the race table split by rounds, strings cut where
 * shown as compare cuts them (docs/reports.md "Widths").
 *
 * HTML: the racing chart is <svg class="racechart" data-mark="run"
 * data-marks="N">, N the candidates, each a <g class="run"> holding one
 * mark per round it was booted in (class "pt"), its elimination (class
 * "out") or its win (class "win"), and its line's label (class "runlabel":
 * "cN" and the parameters that set the candidates apart, whole); its
 * axes (class "axis") name their unit (class "unit": the objective
 * metric's, in a readable scale, and "round").  A legend under it gives
 * each cN its whole label.
 */
#ifndef VTB_REPORT_RECOMMEND_H
#define VTB_REPORT_RECOMMEND_H

#include <jansson.h>
#include <stdio.h>

#include "report.h"

#define VTB_RECOMMEND_DOC_SCHEMA "vtbench-recommend/1"

int vtb_recommend_text(const json_t *doc, const struct vtb_report_opts *o, FILE *f);
int vtb_recommend_html(const json_t *doc, FILE *f);

#endif
