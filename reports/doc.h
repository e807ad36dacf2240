/* SPDX-License-Identifier: MIT */
/*
 * Inside the text, Markdown and CSV reports (reports/doc.c, prose.c,
 * text.c, md.c, csv.c), not for other parts.  The document is read whole
 * into a small model first (configurations named c1..cN, rows grouped
 * into tables by workload, cell and baseline), so a malformed document is
 * refused before anything is written; then one emitter per format walks
 * the model.  Strings of the document are escaped on the way out
 * (rep_esc()): they come from matrix files and from guests, and neither
 * may drive the reader's terminal.
 *   doc.c    escaping, the strings' pool, reading the document
 *   prose.c  what text and Markdown both write: the answer first, the
 *            legend, the campaign, the guest evidence
 *   text.c, md.c, csv.c  each format's tables and its ops table
 */
#ifndef VTB_REPORT_DOC_H
#define VTB_REPORT_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../common/index.h"
#include "../common/vtbutil.h"
#include "report.h"

enum mode { M_TEXT, M_MD, M_CSV };

struct rcfg {
	const char *key, *label, *kind, *campaign, *cpus; /* borrowed from the document */
	char name[32];					  /* c1, c2, ... */
};

struct rside {
	const struct rcfg *cfg;
	const json_t *summary; /* while the row's JSON is (j), else NULL */
	const json_t *aside;   /* its boots set aside (an array, held; NULL: none said) */
	double n, mean, cov; /* NAN: null */
};

struct rrow {
	const json_t *j; /* the row's JSON while it is being read or written, else NULL */
	const char *workload, *cell, *metric, *unit, *cls, *better, *test, *verdict;
	const char *vshort; /* the verdict in one word, for the text table */
	const char *reason; /* missing and error rows: why */
	struct rside base, x;
	double change, ci_lo, ci_hi, ci_level, p, q, boots_needed;
	double boots_over; /* boots_needed is past this cap (NAN: it is not) */
	bool sig, confirmed, noisy;
	size_t group, mi, xi; /* its table, metric line, compared column */
};

struct rgroup {
	const char *workload, *cell;
	const struct rcfg *base;
	const struct rrow **mrow; /* per metric: its first row (name, unit, baseline) */
	size_t nm, am;
	const struct rcfg **xs; /* compared configurations, columns */
	size_t nx, ax;
	const struct rrow **cells; /* nm x nx, NULL where not compared */
};

struct ctx {
	enum mode mode;
	FILE *f;
	const struct vtb_report_doc *src; /* the document's rows and series */
	const json_t *doc, *camp, *against, *opts, *evidence, *summary; /* doc: its head */
	struct rcfg *cfgs;
	size_t ncfg;
	struct rrow *rows;
	size_t nrows;
	struct rgroup *groups;
	size_t ngroups, agroups;
	char **pool; /* strings to free at the end */
	size_t npool, apool;
	/* the rows' strings, one copy each (their JSON is dropped once read) */
	char **strs;
	size_t nstrs, astrs;
	struct vtb_index strix;
	json_t **held; /* the rows' set_aside arrays, kept */
	size_t nheld, aheld;
	/* csv of a made document: no row read ahead, each read for its line
	 * (rows[0] the one being written), configurations found in cfg_index */
	bool stream;
	json_t *cfg_index;
	size_t cols; /* text: the width lines fold and tables split at */
	bool oom;
};

/*
 * What text and Markdown show of a string of the document at most, in
 * columns of its escaped text (rep_show()): a field is as long as its
 * source let it be (a database edited by hand, a guest's message of
 * 16 KiB), and one long field must not widen every line of a table or
 * the report.  Cut fields end in '~'; JSON and CSV keep them whole.
 *   REP_NAME_MAX  names and short facts: metric, cell, workload, unit,
 *                 kind, host name (HOST_NAME_MAX is 64), kernel release
 *                 (utsname's field is 65 bytes with its NUL), CPU model
 *                 (CPUID's brand string is 48), versions, domain levels
 *   REP_TEXT_MAX  labels, paths, reasons, notes, advice: sentences, folded
 */
#define REP_NAME_MAX 64
#define REP_TEXT_MAX 512

/* The verdicts of the document, in the order the summary counts them
 * (7 of them). */
extern const char *const rep_verdicts[7];

/* ---- doc.c: escaping, the pool, the model ---- */

/* Appends @s escaped for mode @m (vtb_term_escape(), and in Markdown a
 * backslash before punctuation that could start markup). */
int rep_esc_add(struct vtb_strbuf *sb, enum mode m, const char *s);
/* Strings handed out below are owned by the context's pool until this. */
void rep_pool_reset(struct ctx *c);
/* @s escaped for the context's format; "" for NULL or out of memory
 * (c->oom says which). */
const char *rep_esc(struct ctx *c, const char *s);
/* printf into a string owned by the context */
const char *rep_fmt(struct ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* @s escaped for the context's format (text or Markdown) and cut to @max
 * columns of its escaped text, its end marked with '~' when cut; "" for
 * NULL.  Reads at most 4 * @max + 8 bytes of @s (a character takes at
 * most 4 bytes and escapes to at least one column). */
const char *rep_show(struct ctx *c, const char *s, size_t max);
/* Columns a string takes on a terminal: one per code point. */
size_t rep_width(const char *s);
/* The same for the first @n bytes of @s. */
size_t rep_width_n(const char *s, size_t n);
/* Bytes of @s that make its first @w columns (whole code points). */
size_t rep_bytes_of(const char *s, size_t n, size_t w);
/* @s cut to @w columns, its end marked with '~' when cut (@w 0: whole). */
const char *rep_cut(struct ctx *c, const char *s, size_t w);
const char *rep_jstr(const json_t *o, const char *k);
/* a number member, NAN when absent or null */
double rep_jnumv(const json_t *o, const char *k);
/* The configuration @key (of campaign @camp when two share the key), or
 * NULL. */
const struct rcfg *rep_cfg_of(const struct ctx *c, const char *key, const char *camp);
/* Reads @d into @c for mode @m, writing to @f: each row made, read and
 * dropped (its strings and figures kept, not its JSON).  0, or -1 with
 * vtb_error() (nothing allocated is left). */
int rep_ctx_load(struct ctx *c, const struct vtb_report_doc *d, FILE *f, enum mode m);
/* Row @i's JSON made again for a writer that reads more of it (csv):
 * r->j and the sides' summaries set; rep_row_drop() after.  In a stream
 * (c->stream: csv of a made document, whose rows are not read ahead) the
 * row is read here into rows[0], and a malformed one is an error.  -1
 * with vtb_error(). */
int rep_row_take(struct ctx *c, size_t i);
void rep_row_drop(struct ctx *c, size_t i);
/* Flushes, releases @c and turns a write error or c->oom into -1 with a
 * message. */
int rep_ctx_finish(struct ctx *c);

/* ---- prose.c: the pieces text and Markdown share ---- */

/* figures: a mean (4 significant digits, whole from 1000 on), a change
 * "+1.2%", "cov 1.2%", "n 5", a row's "95% CI [..]", a metric with its
 * direction */
const char *rep_num(struct ctx *c, double v);
const char *rep_pctv(struct ctx *c, double v);
const char *rep_cov_s(struct ctx *c, double cov);
const char *rep_n_s(struct ctx *c, double n);
const char *rep_ci_s(struct ctx *c, const struct rrow *r);
const char *rep_metric_s(struct ctx *c, const struct rrow *r);
/* A row's value in the unit of its metric line (an error row's, whose
 * unit differs, is not shown: NAN). */
double rep_x_mean(const struct rrow *r, const struct rrow *line);
/* Text: @s folded into lines of at most c->cols after @first (the rest
 * indented as far); Markdown: one line. */
void rep_put_folded(struct ctx *c, const char *first, const char *s);
/* The same with the other lines indented @hang columns (text). */
void rep_put_hanging(struct ctx *c, const char *first, size_t hang, const char *s);
/* What the tables compare; the legend under them; a table's title. */
const char *rep_title(struct ctx *c);
const char *rep_legend(struct ctx *c);
const char *rep_group_title(struct ctx *c, const struct rgroup *g);
/* The answer first: the verdicts counted, the boots by status and what
 * failed, the TCG note, what to compare when nothing was. */
void rep_put_summary(struct ctx *c);
void rep_put_boots(struct ctx *c);
void rep_put_note(struct ctx *c);
void rep_put_advice(struct ctx *c);
/* The configurations' names (c1 = LABEL). */
void rep_put_configs(struct ctx *c);
/* The rows without a decision, with why. */
void rep_put_undecided(struct ctx *c);
/* The boots set aside as outliers, row by row, with why. */
void rep_put_set_aside(struct ctx *c);
/* A side's boots set aside in one phrase ("boot rep 3 (id 41) 3.02x the
 * median, z 55"); NULL when none. */
const char *rep_aside_s(struct ctx *c, const struct rside *s);
/* The details: campaign, host, accelerator, options; the guest evidence. */
void rep_put_header(struct ctx *c);
void rep_put_evidence(struct ctx *c);

#endif
