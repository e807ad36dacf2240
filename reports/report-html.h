/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of `vtbench compare`: one self-contained page (inline
 * CSS and SVG, no script, nothing fetched) rendered from the report
 * document ("schema": "vtbench-compare/1", see docs/commands.md
 * "compare"): campaign metadata, the verdict table, per metric a box plot
 * of per-boot values by configuration, latency CDFs from the merged
 * histograms, c2c heat maps (guest beside its host) and the guests'
 * domain levels.
 *
 * The page is polyglot XHTML: built with libxml2's tree API (escaping is
 * libxml2's job), so it parses both as HTML and as XML.  Strings from the
 * document (guest output, labels) have control characters shown as \xNN
 * and characters XML cannot carry replaced by U+FFFD.
 *
 * Every chart is countable by a test: its <svg> (or block) carries
 * data-mark="CLASS" and data-marks="N", and holds exactly N elements
 * whose class list has CLASS:
 *   box plot   class "boxplot",  mark "box"   one per configuration
 *                                             (data-points: boots drawn, class "pt")
 *   CDF        class "cdfplot",  mark "cdf"   one line per histogram
 *   heat map   class "heatmap",  mark "cell"  n x n for n CPUs
 *   levels     class "levels",   mark "level" one per evidence "levels" entry
 * A box of a configuration used as the baseline of a row also has class
 * "base".
 */
#ifndef VTB_REPORT_HTML_H
#define VTB_REPORT_HTML_H

#include <jansson.h>
#include <stdio.h>

/* Writes the page for @doc to @f.  Missing or mistyped optional members
 * render as "-"; a @doc that is not a "vtbench-compare/1" object, ENOMEM
 * or a write error: -1 with vtb_error() (part of the page may have been
 * written). */
int vtb_report_html(const json_t *doc, FILE *f);

#endif
