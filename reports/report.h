/* SPDX-License-Identifier: MIT */
/*
 * The report formats of `vtbench compare`: one registry of emitters, each
 * a `static const`-style ops table (struct vtb_report_ops) that renders
 * the compare document (the jansson document of schema
 * VTB_REPORT_SCHEMA that harness/compare builds) to a FILE.  `vtbench
 * compare --format NAME` and `-o FILE.EXT` pick one here; `vtbench list
 * formats` prints them.  Reports read nothing but the document.
 */
#ifndef VTB_REPORT_H
#define VTB_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The document the emitters read (compare.h's VTB_COMPARE_SCHEMA). */
#define VTB_REPORT_SCHEMA "vtbench-compare/2"

/* The width text is written for when the caller gives none. */
#define VTB_REPORT_COLUMNS 100
/* The narrowest text: a smaller width is taken as this. */
#define VTB_REPORT_MIN_COLUMNS 40
/* The widest a table gets when even one column of figures beside its
 * metric and unit, cut to 12 and 8 columns, is wider than the width
 * (every figure has a bounded width). */
#define VTB_REPORT_TABLE_COLUMNS 86

/*
 * The TCG note (reports/note.c): under TCG a guest's ratios measure
 * QEMU's emulator, so every report of such a campaign says so, in these
 * words (text and Markdown after "note: ", HTML as a sentence).
 * vtb_report_ran_tcg() is whether the campaign object @camp of a
 * document (its "accelerators", comma-joined) had TCG boots.
 */
extern const char vtb_report_tcg_note[];
bool vtb_report_ran_tcg(const json_t *camp);

/*
 * A change in percent as every report writes it (reports/pct.c): one
 * decimal ("+12.3%", "-100.0%") below VTB_REPORT_PCT_EXP in magnitude,
 * from there 3 significant digits in exponent form ("+1.47e+15%"); "-"
 * for a number that is not finite.  At most 11 characters
 * ("-1.23e+308%").  Text, Markdown and HTML all print this, so a figure
 * reads the same in every format (the JSON carries the number itself).
 */
#define VTB_REPORT_PCT_EXP 1e6
struct vtb_pct {
	char s[24];
};
struct vtb_pct vtb_report_pct(double v);

/* What a caller may tune; a NULL options pointer means the defaults. */
struct vtb_report_opts {
	/* text: the width, VTB_REPORT_MIN_COLUMNS at least (see text below);
	 * 0: VTB_REPORT_COLUMNS */
	size_t columns;
};

/*
 * A compare document as the formats read it: every member but "rows" and
 * "series" in @head, and those two made one element at a time by @row and
 * @series (a new reference each, NULL with vtb_error() when out of
 * memory), so that a report of 100,000 rows never holds them all: JSON
 * and CSV write each row as it comes and drop it, text and Markdown keep
 * what their tables need of it (its figures and names, not its JSON).  A
 * whole jansson document is one too (vtb_report_doc_of).
 */
struct vtb_report_doc {
	const json_t *head;
	size_t nrows, nseries;
	json_t *(*row)(const void *src, size_t i);
	json_t *(*series)(const void *src, size_t i); /* NULL: no "series" member */
	const void *src;
	bool rows_ok; /* false: the document has no "rows" array (malformed) */
};

/* @doc (a whole document, borrowed) as a vtb_report_doc. */
void vtb_report_doc_of(struct vtb_report_doc *d, const json_t *doc);
/* The whole document of @d (a new reference): for a format that reads it
 * all (html), and for callers that want the jansson document; NULL with
 * vtb_error() when out of memory. */
json_t *vtb_report_doc_whole(const struct vtb_report_doc *d);
/* @fn on the whole document @doc (what each format's render() is). */
int vtb_report_render_whole(int (*fn)(const struct vtb_report_doc *, const struct vtb_report_opts *,
				      FILE *),
			    const json_t *doc, const struct vtb_report_opts *o, FILE *f);

/*
 * One format.  render() writes @doc to @f and returns 0, or -1 with
 * vtb_error() when @doc is not a VTB_REPORT_SCHEMA object, is malformed
 * (text, md, csv: a missing or mistyped member, a row naming a
 * configuration that is not in "configs", two rows for one table cell;
 * nothing is written then, the document is read whole first, except by
 * csv from a document made as it is read (render_doc: compare's, well
 * formed by construction), whose rows are read once, as written; html: a
 * missing or mistyped optional member renders as "-") or when writing
 * fails (checked with ferror() after a flush).  @doc is not modified; the
 * caller owns it and @f.
 *
 * Strings of the document are escaped for the format: control characters
 * (C0, DEL, C1) and bytes that are not UTF-8 are written as \xNN (\t, \n,
 * \r, \\ for those), so a guest's strings never reach a terminal raw;
 * Markdown also escapes its punctuation (\| in tables), CSV quotes fields
 * as RFC 4180 says, HTML is built by libxml2 (which escapes) with the
 * characters XML cannot carry replaced by U+FFFD.
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
 *   The width W is the option's, VTB_REPORT_MIN_COLUMNS at least.  Every
 *   line of prose fits W (it folds at blanks, a word longer than a line
 *   is cut where the line ends and goes on on the next).  Tables split by
 *   columns to fit W, at least one column of figures each; narrower,
 *   the baseline stops being repeated beside each compared column, and
 *   metric names are cut (to 12 columns at least), then units (to 8); a
 *   table line is at most max(W, VTB_REPORT_TABLE_COLUMNS) wide.  Strings of
 *   the document are shown cut (names and units to 64 columns, labels,
 *   paths and reasons to 512), a cut ending in ~.  Columns are counted
 *   one per code point.
 * md: the same as GitHub Markdown (tables, one line per metric, <br>).
 * html: one self-contained page (reports/html-page.c): inline CSS
 *   (reports/report.css, embedded at build time) and SVG, no script,
 *   nothing fetched; polyglot XHTML (it parses as HTML and as XML).
 *   Every chart is countable by a test: its <svg> (or block) carries
 *   data-mark="CLASS" and data-marks="N" and holds exactly N elements
 *   whose class list has CLASS:
 *     box plot  class "boxplot", mark "box"   one per configuration
 *                                             (data-points: boots drawn, class "pt")
 *     CDF       class "cdfplot", mark "cdf"   one line per histogram
 *     heat map  class "heatmap", mark "cell"  n x n for n CPUs
 *     levels    class "levels",  mark "level" one per evidence "levels" entry
 *   A box of a configuration used as the baseline of a row also has
 *   class "base".
 * json: the document itself, keys sorted, indented by 2, reals with 12
 *   significant digits, one final newline.
 * csv: a header line, then one line per row of the document (cell x
 *   metric x compared configuration), its first columns the provenance
 *   (schema, campaign, against) and the campaign's boots by status;
 *   numbers with the shortest precision that reads back to the same
 *   double, null as an empty field.
 */
struct vtb_report_ops {
	const char *name;	/* --format NAME */
	const char *summary;	/* one line, for vtbench list formats */
	const char *media_type; /* what an HTTP server would send it as */
	/* the file extensions -o FILE recognises (any case), the usual one
	 * first; NULL after the last */
	const char *ext[3];
	int (*render)(const json_t *doc, const struct vtb_report_opts *o, FILE *f);
	/* the same from a document made as it is read (vtb_report_doc) */
	int (*render_doc)(const struct vtb_report_doc *d, const struct vtb_report_opts *o,
			  FILE *f);
};

/* Every format, NULL-terminated, in the order --help and errors name
 * them; checked by vtb_reports_check(). */
extern const struct vtb_report_ops *const vtb_reports[];

/* The format called @name, or NULL. */
const struct vtb_report_ops *vtb_report_find(const char *name);

/* The format whose extension @path ends in (".html", ".MD"), or NULL. */
const struct vtb_report_ops *vtb_report_for_path(const char *path);

/* The formats' names, NULL-terminated, in vtb_reports[] order (for a
 * suggestion or a list of choices).  Static storage: do not free. */
const char *const *vtb_report_names(void);

/* 0 when every format has its members and a name and extensions of its
 * own; -1 with vtb_error() naming the fault.  Run once at start. */
int vtb_reports_check(void);

#endif
