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
 * control characters as \xNN; HTML: by libxml2).
 *
 * HTML: the racing chart is <svg class="racechart" data-mark="run"
 * data-marks="N">, N the candidates, each a <g class="run"> holding one
 * mark per round it was booted in (class "pt"), its elimination (class
 * "out") or its win (class "win").
 */
#ifndef VTB_REPORT_RECOMMEND_H
#define VTB_REPORT_RECOMMEND_H

#include <jansson.h>
#include <stdio.h>

#define VTB_RECOMMEND_DOC_SCHEMA "vtbench-recommend/1"

int vtb_recommend_text(const json_t *doc, FILE *f);
int vtb_recommend_html(const json_t *doc, FILE *f);

#endif
