/* SPDX-License-Identifier: MIT */
/*
 * Text, Markdown and CSV renderings of the compare report document.  The
 * document is read whole into a small model first (configurations named
 * c1..cN, rows grouped into tables by workload, cell and baseline), so a
 * malformed document is refused before anything is written; then one
 * emitter per format walks the model.  Strings of the document are escaped
 * on the way out (esc()): they come from matrix files and from guests, and
 * neither may drive the reader's terminal.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vtbutil.h"

/* The narrowest text the reports fold to (VTB_REPORT_COLUMNS is the default). */
#define MIN_COLUMNS 40

enum mode { M_TEXT, M_MD, M_CSV };

struct rcfg {
	const char *key, *label, *kind, *campaign, *cpus; /* borrowed from the document */
	char name[32];					  /* c1, c2, ... */
};

struct rside {
	const struct rcfg *cfg;
	const json_t *summary;
	double n, mean, cov; /* NAN: null */
};

struct rrow {
	const json_t *j;
	const char *workload, *cell, *metric, *unit, *cls, *better, *test, *verdict;
	const char *vshort; /* the verdict in one word, for the text table */
	const char *reason; /* missing and error rows: why */
	struct rside base, x;
	double change, ci_lo, ci_hi, p, q, boots_needed;
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
	const json_t *doc, *camp, *against, *opts, *evidence, *summary;
	struct rcfg *cfgs;
	size_t ncfg;
	struct rrow *rows;
	size_t nrows;
	struct rgroup *groups;
	size_t ngroups, agroups;
	char **pool; /* strings to free at the end */
	size_t npool, apool;
	size_t cols; /* text: the width lines fold and tables split at */
	bool oom;
};

/* The verdicts of the document, in the order the summary counts them. */
static const char *const verdicts[] = { "worse", "better",  "same", "inconclusive",
					"few",	 "missing", "error" };

/* ---- escaping ---------------------------------------------------------- */

static int put_md(struct vtb_strbuf *sb, enum mode m, const char *s, size_t n)
{
	static const char punct[] = "\\`*_[]<>|~&";

	if (m != M_MD)
		return vtb_strbuf_add(sb, s, n);
	for (size_t i = 0; i < n; i++) {
		if (strchr(punct, s[i]) && vtb_strbuf_add(sb, "\\", 1))
			return -1;
		if (vtb_strbuf_add(sb, s + i, 1))
			return -1;
	}
	return 0;
}

/*
 * Appends @s escaped for mode @m: vtb_term_escape(), the one sanitiser
 * (control characters and bytes that are not UTF-8 as \t \n \r \xNN,
 * \uNNNN for C1 controls and bidi overrides, a backslash doubled); in
 * Markdown each punctuation character that could start markup then gets
 * a backslash.
 */
static int esc_add(struct vtb_strbuf *sb, enum mode m, const char *s)
{
	struct vtb_strbuf t = VTB_STRBUF_INIT;
	int r = vtb_term_escape(&t, s) || put_md(sb, m, t.buf, t.len) ? -1 : 0;

	vtb_strbuf_release(&t);
	return r;
}

/* Frees the strings of the pool: each table's are printed before the next. */
static void pool_reset(struct ctx *c)
{
	for (size_t i = 0; i < c->npool; i++)
		free(c->pool[i]);
	c->npool = 0;
}

static char *keep(struct ctx *c, char *s)
{
	if (!s) {
		c->oom = true;
		return NULL;
	}
	if (c->npool == c->apool) {
		size_t a = c->apool ? c->apool * 2 : 64;
		char **v = realloc(c->pool, a * sizeof(*v));

		if (!v) {
			free(s);
			c->oom = true;
			return NULL;
		}
		c->pool = v;
		c->apool = a;
	}
	c->pool[c->npool++] = s;
	return s;
}

/* @s escaped for the context's format, owned by the context; "" for NULL
 * or when out of memory (c->oom says which). */
static const char *esc(struct ctx *c, const char *s)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *r;

	if (!s)
		return "";
	if (esc_add(&sb, c->mode == M_CSV ? M_TEXT : c->mode, s) || vtb_strbuf_add(&sb, "", 0)) {
		vtb_strbuf_release(&sb);
		c->oom = true;
		return "";
	}
	r = keep(c, vtb_strbuf_detach(&sb));
	return r ? r : "";
}

/* printf into a string owned by the context. */
__attribute__((format(printf, 2, 3))) static const char *fmt(struct ctx *c, const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	s = keep(c, s);
	return s ? s : "";
}

/* Columns a string takes on a terminal: one per code point (escaped text
 * is ASCII but for valid UTF-8 of the document). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* @s cut to @w columns, its end marked with '~' when cut. */
static const char *cut(struct ctx *c, const char *s, size_t w)
{
	size_t n = 0, col = 0;

	if (width(s) <= w || !w)
		return s;
	while (s[n] && col < w - 1) {
		n++;
		while (((unsigned char)s[n] & 0xc0) == 0x80)
			n++;
		col++;
	}
	return fmt(c, "%.*s~", (int)n, s);
}

/* ---- reading the document ---------------------------------------------- */

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* A number member: its value, NAN when null or missing; -1 when it is
 * something else. */
static int jnum(const json_t *o, const char *k, double *out)
{
	const json_t *v = json_object_get(o, k);

	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

static double jnumv(const json_t *o, const char *k)
{
	double v;

	return jnum(o, k, &v) ? NAN : v;
}

/* The configuration of a row side, by key and (when both say) campaign. */
static const struct rcfg *find_cfg(struct ctx *c, json_t *index, const char *key, const char *camp)
{
	char *k = vtb_asprintf("%s\x1f%s", key, camp ? camp : "");
	json_t *i;

	if (!k) {
		c->oom = true;
		return NULL;
	}
	i = json_object_get(index, k);
	if (!i && camp) {
		free(k);
		k = vtb_asprintf("%s\x1f", key);
		i = k ? json_object_get(index, k) : NULL;
	}
	free(k);
	return i ? &c->cfgs[json_integer_value(i)] : NULL;
}

static int read_side(struct ctx *c, json_t *index, const json_t *row, const char *which, size_t ri,
		     struct rside *s)
{
	const json_t *o = json_object_get(row, which);
	const char *key = jstr(o, "config");

	if (!json_is_object(o) || !key)
		return vtb_error("report row %zu: '%s' has no configuration", ri, which);
	s->cfg = find_cfg(c, index, key, jstr(o, "campaign"));
	if (c->oom)
		return vtb_error("out of memory");
	if (!s->cfg)
		return vtb_error("report row %zu: configuration '%s' of '%s' is not in configs", ri,
				 key, which);
	s->summary = json_object_get(o, "summary");
	if (!json_is_object(s->summary))
		return vtb_error("report row %zu: '%s' has no summary", ri, which);
	if (jnum(s->summary, "n", &s->n) || jnum(s->summary, "mean", &s->mean) ||
	    jnum(s->summary, "cov", &s->cov))
		return vtb_error("report row %zu: a summary member of '%s' is not a number", ri,
				 which);
	return 0;
}

static int read_configs(struct ctx *c, json_t *index)
{
	const json_t *a = json_object_get(c->doc, "configs"), *o;
	size_t i;

	if (!json_is_array(a))
		return vtb_error("report: 'configs' is not an array");
	c->ncfg = json_array_size(a);
	c->cfgs = calloc(c->ncfg ? c->ncfg : 1, sizeof(*c->cfgs));
	if (!c->cfgs)
		return vtb_error("out of memory");
	json_array_foreach(a, i, o)
	{
		struct rcfg *g = &c->cfgs[i];
		char *k;

		g->key = jstr(o, "key");
		g->label = jstr(o, "label");
		g->kind = jstr(o, "kind");
		g->campaign = jstr(o, "campaign");
		g->cpus = jstr(o, "cpus");
		if (!g->key || !g->label)
			return vtb_error("report: configuration %zu has no key or label", i);
		snprintf(g->name, sizeof(g->name), "c%zu", i + 1);
		/* by key and campaign, and by key alone for rows that name none */
		k = vtb_asprintf("%s\x1f%s", g->key, g->campaign ? g->campaign : "");
		if (!k || json_object_set_new(index, k, json_integer((json_int_t)i))) {
			free(k);
			return vtb_error("out of memory");
		}
		free(k);
		k = vtb_asprintf("%s\x1f", g->key);
		if (!k || (!json_object_get(index, k) &&
			   json_object_set_new(index, k, json_integer((json_int_t)i)))) {
			free(k);
			return vtb_error("out of memory");
		}
		free(k);
	}
	return 0;
}

static void *grow(void *v, size_t *alloc, size_t n, size_t size)
{
	size_t a;
	void *p;

	if (n < *alloc)
		return v;
	a = *alloc ? *alloc * 2 : 8;
	p = realloc(v, a * size);
	if (p)
		*alloc = a;
	return p;
}

/* Puts a row into its table (workload, cell, baseline), its metric line and
 * its column, found through @index (the tables by name). */
static int place_row(struct ctx *c, json_t *index, struct rrow *r)
{
	char *k = vtb_asprintf("%s\x1f%s\x1f%td", r->workload, r->cell, r->base.cfg - c->cfgs);
	const json_t *gi;
	struct rgroup *g;
	size_t i;

	if (!k)
		return vtb_error("out of memory");
	gi = json_object_get(index, k);
	if (gi) {
		r->group = (size_t)json_integer_value(gi);
	} else {
		struct rgroup *v = grow(c->groups, &c->agroups, c->ngroups, sizeof(*v));

		if (!v) {
			free(k);
			return vtb_error("out of memory");
		}
		c->groups = v;
		r->group = c->ngroups++;
		memset(&c->groups[r->group], 0, sizeof(*c->groups));
		c->groups[r->group].workload = r->workload;
		c->groups[r->group].cell = r->cell;
		c->groups[r->group].base = r->base.cfg;
		if (json_object_set_new(index, k, json_integer((json_int_t)r->group))) {
			free(k);
			return vtb_error("out of memory");
		}
	}
	free(k);
	g = &c->groups[r->group];
	for (i = 0; i < g->nm && strcmp(g->mrow[i]->metric, r->metric); i++)
		;
	if (i == g->nm) {
		const struct rrow **v = grow(g->mrow, &g->am, g->nm, sizeof(*v));

		if (!v)
			return vtb_error("out of memory");
		g->mrow = v;
		g->mrow[g->nm++] = r;
	}
	r->mi = i;
	for (i = 0; i < g->nx && g->xs[i] != r->x.cfg; i++)
		;
	if (i == g->nx) {
		const struct rcfg **v = grow(g->xs, &g->ax, g->nx, sizeof(*v));

		if (!v)
			return vtb_error("out of memory");
		g->xs = v;
		g->xs[g->nx++] = r->x.cfg;
	}
	r->xi = i;
	return 0;
}

static int read_row(struct ctx *c, json_t *index, const json_t *o, size_t i, struct rrow *r)
{
	const json_t *sig = json_object_get(o, "significant");
	size_t v;

	if (!json_is_object(o))
		return vtb_error("report row %zu is not an object", i);
	r->j = o;
	r->workload = jstr(o, "workload");
	r->cell = jstr(o, "cell");
	r->metric = jstr(o, "metric");
	r->unit = jstr(o, "unit");
	r->cls = jstr(o, "class");
	r->better = jstr(o, "better");
	r->test = jstr(o, "test");
	r->verdict = jstr(o, "verdict");
	r->reason = jstr(o, "reason");
	if (!r->workload || !r->cell || !r->verdict)
		return vtb_error("report row %zu: workload, cell and verdict must be strings", i);
	for (v = 0; v < VTB_ARRAY_SIZE(verdicts) && strcmp(verdicts[v], r->verdict); v++)
		;
	if (v == VTB_ARRAY_SIZE(verdicts))
		return vtb_error("report row %zu: unknown verdict '%s'", i, r->verdict);
	/* a cell that reported nothing on either side is a row without a
	 * metric; every other row names its metric, unit and direction */
	if (!r->metric && !r->unit && !r->better && !strcmp(r->verdict, "missing")) {
		r->metric = "-";
		r->unit = "";
	} else if (!r->metric || !r->unit || !r->better) {
		return vtb_error("report row %zu: metric, unit and better must be strings", i);
	} else if (strcmp(r->better, "higher") && strcmp(r->better, "lower")) {
		return vtb_error("report row %zu: better is '%s', not higher or lower", i,
				 r->better);
	}
	r->confirmed = json_is_true(json_object_get(o, "confirmed"));
	r->noisy = json_is_true(json_object_get(o, "noisy"));
	r->vshort = r->confirmed && v == 0   ? "worse confirmed"
		    : r->confirmed && v == 1 ? "better confirmed"
					     : verdicts[v];
	if (jnum(o, "change_pct", &r->change) || jnum(o, "ci_low_pct", &r->ci_lo) ||
	    jnum(o, "ci_high_pct", &r->ci_hi) || jnum(o, "p", &r->p) || jnum(o, "q", &r->q) ||
	    jnum(o, "boots_needed", &r->boots_needed))
		return vtb_error(
			"report row %zu: change_pct, ci_low_pct, ci_high_pct, p, q and boots_needed must be numbers or null",
			i);
	if (sig && !json_is_boolean(sig) && !json_is_null(sig))
		return vtb_error("report row %zu: significant is not a boolean", i);
	r->sig = json_is_true(sig);
	if (read_side(c, index, o, "base", i, &r->base) || read_side(c, index, o, "x", i, &r->x))
		return -1;
	return 0;
}

static void ctx_release(struct ctx *c)
{
	for (size_t i = 0; i < c->ngroups; i++) {
		free(c->groups[i].mrow);
		free(c->groups[i].xs);
		free(c->groups[i].cells);
	}
	free(c->groups);
	free(c->rows);
	free(c->cfgs);
	pool_reset(c);
	free(c->pool);
}

static int ctx_load(struct ctx *c, const json_t *doc, FILE *f, enum mode m)
{
	const json_t *rows, *o;
	json_t *cfg_index = json_object(), *group_index = json_object();
	const char *schema = jstr(doc, "schema");
	size_t i;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->mode = m;
	c->f = f;
	c->doc = doc;
	if (!cfg_index || !group_index) {
		vtb_error("out of memory");
		goto out;
	}
	if (!json_is_object(doc) || !schema || strcmp(schema, VTB_REPORT_SCHEMA)) {
		vtb_error("report: not a %s document (schema '%s')", VTB_REPORT_SCHEMA,
			  schema ? schema : "none");
		goto out;
	}
	c->camp = json_object_get(doc, "campaign");
	c->against = json_object_get(doc, "against");
	c->opts = json_object_get(doc, "options");
	c->evidence = json_object_get(doc, "evidence");
	c->summary = json_object_get(doc, "summary");
	rows = json_object_get(doc, "rows");
	if (!json_is_object(c->camp) || !json_is_object(c->opts) || !json_is_array(rows)) {
		vtb_error("report: campaign, options and rows are required");
		goto out;
	}
	if (c->against && !json_is_object(c->against) && !json_is_null(c->against)) {
		vtb_error("report: against is neither an object nor null");
		goto out;
	}
	if (c->evidence && !json_is_array(c->evidence) && !json_is_null(c->evidence)) {
		vtb_error("report: evidence is not an array");
		goto out;
	}
	if (c->summary && !json_is_object(c->summary) && !json_is_null(c->summary)) {
		vtb_error("report: summary is not an object");
		goto out;
	}
	if (read_configs(c, cfg_index))
		goto out;
	c->nrows = json_array_size(rows);
	c->rows = calloc(c->nrows ? c->nrows : 1, sizeof(*c->rows));
	if (!c->rows) {
		vtb_error("out of memory");
		goto out;
	}
	json_array_foreach(rows, i, o)
	{
		if (read_row(c, cfg_index, o, i, &c->rows[i]) ||
		    place_row(c, group_index, &c->rows[i]))
			goto out;
	}
	for (i = 0; i < c->ngroups; i++) {
		struct rgroup *g = &c->groups[i];

		g->cells = calloc(g->nm * g->nx, sizeof(*g->cells));
		if (!g->cells) {
			vtb_error("out of memory");
			goto out;
		}
	}
	for (i = 0; i < c->nrows; i++) {
		struct rrow *r = &c->rows[i];
		struct rgroup *g = &c->groups[r->group];
		const struct rrow **cell = &g->cells[r->mi * g->nx + r->xi];

		if (*cell) {
			vtb_error("report rows %td and %zu are both %s %s %s of %s against %s",
				  *cell - c->rows, i, r->workload, r->cell, r->metric,
				  r->x.cfg->label, g->base->label);
			goto out;
		}
		*cell = r;
	}
	ret = 0;
out:
	json_decref(cfg_index);
	json_decref(group_index);
	if (ret)
		ctx_release(c);
	return ret;
}

/* Flushes and turns a write error into -1 with a message. */
static int ctx_finish(struct ctx *c)
{
	int ret = 0;

	if (fflush(c->f) || ferror(c->f))
		ret = vtb_error("cannot write the report: %s", strerror(errno ? errno : EIO));
	else if (c->oom)
		ret = vtb_error("out of memory");
	ctx_release(c);
	return ret;
}

/* ---- shared pieces of text and Markdown -------------------------------- */

/* A mean, a median: 4 significant digits, whole numbers from 1000 on. */
static const char *num(struct ctx *c, double v)
{
	if (isnan(v))
		return "-";
	if (fabs(v) >= 1e9)
		return fmt(c, "%.4g", v);
	if (fabs(v) >= 1000)
		return fmt(c, "%.0f", v);
	return fmt(c, "%.4g", v);
}

static const char *pctv(struct ctx *c, double v)
{
	if (isnan(v))
		return "-";
	if (fabs(v) >= 1e6)
		return fmt(c, "%+.3g%%", v);
	return fmt(c, "%+.1f%%", v);
}

static const char *cov_s(struct ctx *c, double cov)
{
	return isnan(cov) ? "cov -" : fmt(c, "cov %.1f%%", cov * 100);
}

static const char *n_s(struct ctx *c, double n)
{
	return isnan(n) ? "n=-" : fmt(c, "n=%.0f", n);
}

static const char *ci_s(struct ctx *c, const struct rrow *r)
{
	if (isnan(r->ci_lo) || isnan(r->ci_hi))
		return "ci -";
	return fmt(c, "ci %s..%s", pctv(c, r->ci_lo), pctv(c, r->ci_hi));
}

static const char *metric_s(struct ctx *c, const struct rrow *r)
{
	if (!r->better)
		return esc(c, r->metric);
	return fmt(c, "%s %s", esc(c, r->metric), !strcmp(r->better, "higher") ? "(+)" : "(-)");
}

static bool has_tcg(const json_t *camp)
{
	const char *a = jstr(camp, "accelerators");

	return a && strstr(a, "tcg");
}

/*
 * Text: @s folded at blanks into lines of at most c->cols (a word
 * longer than that gets a line of its own), the first line after @first,
 * the others indented as far.  Markdown: one line, the reader folds.
 */
static void put_folded(struct ctx *c, const char *first, const char *s)
{
	size_t ind = width(first), col = ind;

	fputs(first, c->f);
	if (c->mode == M_MD) {
		fprintf(c->f, "%s\n", s);
		return;
	}
	while (*s) {
		size_t n = strcspn(s, " "), w;

		w = width(fmt(c, "%.*s", (int)n, s));
		if (col > ind && col + 1 + w > c->cols) {
			fprintf(c->f, "\n%*s", (int)ind, "");
			col = ind;
		} else if (col > ind) {
			fputc(' ', c->f);
			col++;
		}
		fprintf(c->f, "%.*s", (int)n, s);
		col += w;
		s += n;
		s += strspn(s, " ");
	}
	fputc('\n', c->f);
}

/* One line per campaign fact: the same words in text and Markdown. */
static void put_kv(struct ctx *c, const char *k, const char *v)
{
	if (c->mode == M_MD)
		put_folded(c, k[0] ? fmt(c, "- **%s** ", k) : "  - ", v);
	else
		put_folded(c, fmt(c, "%-12s ", k), v);
}

static const char *str_or(struct ctx *c, const json_t *o, const char *k)
{
	const char *s = jstr(o, k);

	return s ? esc(c, s) : "?";
}

/* Did campaign @camp have VM configurations?  (A campaign of baselines
 * alone has no accelerator, libvirt, QEMU or guest kernel to show.) */
static bool has_vms(const struct ctx *c, const json_t *camp)
{
	const char *u = jstr(camp, "uuid");

	for (size_t i = 0; i < c->ncfg; i++)
		if (c->cfgs[i].kind && !strcmp(c->cfgs[i].kind, "vm") &&
		    (!u || !c->cfgs[i].campaign || !strcmp(c->cfgs[i].campaign, u)))
			return true;
	return jstr(camp, "accelerators") ||
	       json_array_size(json_object_get(camp, "guest_kernels"));
}

static void put_campaign(struct ctx *c, const char *title, const json_t *camp)
{
	const json_t *gk = json_object_get(camp, "guest_kernels"), *k;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i;

	put_kv(c, title,
	       fmt(c, "%s (matrix %s, vtbench %s)", str_or(c, camp, "uuid"),
		   str_or(c, camp, "matrix_path"), str_or(c, camp, "version")));
	put_kv(c, "host",
	       fmt(c, "%s, cpu %s, kernel %s", str_or(c, camp, "host"), str_or(c, camp, "cpu"),
		   str_or(c, camp, "kernel")));
	if (!has_vms(c, camp))
		return;
	json_array_foreach(gk, i, k)
	{
		if ((i && vtb_strbuf_addstr(&sb, ", ")) ||
		    esc_add(&sb, c->mode, json_string_value(k) ? json_string_value(k) : "?"))
			c->oom = true;
	}
	put_kv(c, "accelerator",
	       fmt(c, "%s, libvirt %s, qemu %s, guest kernels %s", str_or(c, camp, "accelerators"),
		   str_or(c, camp, "libvirt_version"), str_or(c, camp, "qemu_version"),
		   i ? vtb_strbuf_str(&sb) : "-"));
	vtb_strbuf_release(&sb);
}

static const char *opt_num(struct ctx *c, const char *k, const char *f)
{
	double v = jnumv(c->opts, k);

	return isnan(v) ? "?" : fmt(c, f, v);
}

static void put_header(struct ctx *c)
{
	const json_t *lim = json_object_get(c->opts, "cov_limit");
	const char *axis = jstr(c->opts, "axis");
	double level = jnumv(c->opts, "ci_level");

	put_campaign(c, "campaign", c->camp);
	if (json_is_object(c->against))
		put_campaign(c, "against", c->against);
	put_kv(c, "options",
	       fmt(c, "baseline %s%s%s, fail on %s", str_or(c, c->opts, "baseline"),
		   axis ? ", axis " : "", axis ? esc(c, axis) : "", str_or(c, c->opts, "fail_on")));
	put_kv(c, "statistics",
	       fmt(c,
		   "threshold %s, alpha %s (intervals at %s), noisy above CoV %s/%s/%s (throughput/time/latency)",
		   opt_num(c, "threshold_pct", "%g%%"), opt_num(c, "alpha", "%g"),
		   isnan(level) ? "?" : fmt(c, "%g%%", level * 100),
		   isnan(jnumv(lim, "throughput")) ? "?" : fmt(c, "%g%%", jnumv(lim, "throughput")),
		   isnan(jnumv(lim, "time")) ? "?" : fmt(c, "%g%%", jnumv(lim, "time")),
		   isnan(jnumv(lim, "latency")) ? "?" : fmt(c, "%g%%", jnumv(lim, "latency"))));
}

/* Under TCG the ratios say nothing about virtualization: said up front. */
static void put_note(struct ctx *c)
{
	if (!has_tcg(c->camp) && !(json_is_object(c->against) && has_tcg(c->against)))
		return;
	if (c->mode == M_MD)
		fprintf(c->f,
			"\n> note: guests ran under TCG (software emulation): these ratios measure QEMU's emulator, not virtualization overhead\n");
	else
		put_folded(c, "note: ",
			   "guests ran under TCG (software emulation): these ratios measure QEMU's "
			   "emulator, not virtualization overhead");
}

/* What the tables compare, from the options. */
static const char *title(struct ctx *c)
{
	const char *axis = jstr(c->opts, "axis"), *base = jstr(c->opts, "baseline");

	if (json_is_object(c->against))
		return fmt(c, "campaign %s vs campaign %s (--against, matched by cell key)",
			   str_or(c, c->camp, "uuid"), str_or(c, c->against, "uuid"));
	if (axis)
		return fmt(c, "along %s (every other parameter fixed)", esc(c, axis));
	if (!base || !strcmp(base, "own"))
		return "guest vs host (each VM configuration against its bare-metal baseline)";
	return fmt(c, "against baseline %s", esc(c, base));
}

static const char *legend(struct ctx *c)
{
	double level = jnumv(c->opts, "ci_level");

	return fmt(
		c,
		"%s significant (Benjamini-Hochberg q < %s); change = mean / baseline mean - 1 (harmonic means for rates, geometric for latencies); ci = its %s t interval; n = boots; cov = stddev / mean, noisy when above its class limit (a note, never a verdict); verdicts: worse, better (significant, the interval on that side of 0, the change beyond %s; confirmed: the whole interval beyond it), same (the interval within +-%s), inconclusive (neither yet: more boots would decide), few (under 2 boots a side), missing (no result on a side), error (values the statistic cannot take)",
		c->mode == M_MD ? "\\*" : "*", opt_num(c, "alpha", "%g"),
		isnan(level) ? "?" : fmt(c, "%g%%", level * 100),
		opt_num(c, "threshold_pct", "%g%%"), opt_num(c, "threshold_pct", "%g%%"));
}

static void put_configs(struct ctx *c)
{
	bool two = json_is_object(c->against);

	if (c->mode == M_MD)
		fprintf(c->f,
			"\n## Configurations\n\n| name | label | kind | pCPUs |%s\n|---|---|---|---|%s\n",
			two ? " campaign |" : "", two ? "---|" : "");
	else
		fprintf(c->f, "\nconfigurations\n");
	for (size_t i = 0; i < c->ncfg; i++) {
		const struct rcfg *g = &c->cfgs[i];
		const char *camp = "";

		if (two && g->campaign)
			camp = fmt(c, "%.8s%s", esc(c, g->campaign),
				   jstr(c->against, "uuid") &&
						   !strcmp(jstr(c->against, "uuid"), g->campaign)
					   ? ", against"
					   : "");
		if (c->mode == M_MD)
			fprintf(c->f, "| %s | %s | %s | %s |%s\n", g->name, esc(c, g->label),
				g->kind ? esc(c, g->kind) : "-", g->cpus ? esc(c, g->cpus) : "-",
				two ? fmt(c, " %s |", camp) : "");
		else
			put_folded(c, fmt(c, "  %-4s = ", g->name),
				   fmt(c, "%s (%s, pCPUs %s%s%s)", esc(c, g->label),
				       g->kind ? esc(c, g->kind) : "?",
				       g->cpus ? esc(c, g->cpus) : "?", two ? ", campaign " : "",
				       camp));
	}
}

static const char *group_title(struct ctx *c, const struct rgroup *g)
{
	if (!strcmp(g->cell, g->workload))
		return fmt(c, "%s, baseline %s", esc(c, g->cell), g->base->name);
	return fmt(c, "%s (%s), baseline %s", esc(c, g->cell), esc(c, g->workload), g->base->name);
}

/* The guest evidence: the lines of today's compare, kept word for word. */
static void put_ev(struct ctx *c, const char *k, const char *v)
{
	if (c->mode == M_MD)
		fprintf(c->f, "- %s %s\n", k, v);
	else
		put_folded(c, fmt(c, "  %-8s ", k), v);
}

static void put_evidence_one(struct ctx *c, const json_t *e)
{
	const json_t *told = json_object_get(e, "told"), *claims = json_object_get(e, "claims"),
		     *levels = json_object_get(e, "levels"), *o;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *label = jstr(e, "label"), *key = jstr(e, "config"), *kernel, *diff;
	const char *camp = jstr(c->camp, "uuid");
	double boots = jnumv(e, "boots"), off = jnumv(e, "off_planned_mean");
	bool err = false;
	size_t i;

	/* the evidence is the campaign's: with --against a key is in both */
	for (i = 0; i < c->ncfg && key && strcmp(c->cfgs[i].key, key); i++)
		;
	for (size_t k = i; k < c->ncfg && key && camp; k++)
		if (!strcmp(c->cfgs[k].key, key) && c->cfgs[k].campaign &&
		    !strcmp(c->cfgs[k].campaign, camp))
			i = k;
	if (c->mode == M_MD)
		fprintf(c->f, "\n### %s%s%s\n\n", i < c->ncfg ? c->cfgs[i].name : "",
			i < c->ncfg ? " = " : "", esc(c, label ? label : "?"));
	else
		fprintf(c->f, "\n%s%s%s\n", i < c->ncfg ? c->cfgs[i].name : "",
			i < c->ncfg ? " = " : "", esc(c, label ? label : "?"));
	if (json_is_object(told))
		put_ev(c, "told",
		       fmt(c,
			   "%.0f socket(s) x %.0f die(s) x %.0f core(s) x %.0f thread(s), pinning %s",
			   jnumv(told, "sockets"), jnumv(told, "dies"), jnumv(told, "cores"),
			   jnumv(told, "threads"), str_or(c, told, "pinning")));
	else
		put_ev(c, "told", "(no plan stored)");
	json_array_foreach(claims, i, o)
	{
		if (i == 8) {
			err |= vtb_strbuf_addf(&sb, " ... (%zu in all)", json_array_size(claims)) <
			       0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%s%s vcpus %s %s", i ? "; " : "", str_or(c, o, "kind"),
				       str_or(c, o, "vcpus"), str_or(c, o, "state")) < 0;
	}
	put_ev(c, "claims", json_array_size(claims) ? vtb_strbuf_str(&sb) : "none");
	vtb_strbuf_release(&sb);
	json_array_foreach(levels, i, o)
	{
		const char *lv = jstr(o, "levels");

		err |= vtb_strbuf_addf(&sb, "%slevels %s (%.0f of %.0f boots)", i ? "; " : "",
				       lv && lv[0] ? esc(c, lv) : "none", jnumv(o, "boots"),
				       boots) < 0;
	}
	if (!json_array_size(levels))
		err |= vtb_strbuf_addstr(&sb, "no sched-domain view recorded") < 0;
	if ((kernel = jstr(e, "guest_kernel")))
		err |= vtb_strbuf_addf(&sb, ", kernel %s", esc(c, kernel)) < 0;
	put_ev(c, "guest", vtb_strbuf_str(&sb));
	vtb_strbuf_release(&sb);
	diff = jstr(e, "first_diff");
	put_ev(c, "checked",
	       fmt(c, "%.0f of %.0f boots as planned, %.0f unexpected-topology, %.0f unchecked%s%s",
		   jnumv(e, "matched"), boots, jnumv(e, "unexpected"), jnumv(e, "unchecked"),
		   diff ? ": " : "", diff ? esc(c, diff) : ""));
	if (isnan(off)) {
		put_ev(c, "ran", "no host-side placement samples");
	} else {
		static const struct {
			const char *k, *what;
		} split[] = {
			{ "smt_split_core", "SMT pairs on different cores" },
			{ "llc_split_llc", "LLC groups across LLCs" },
			{ "node_split_node", "NUMA nodes across host nodes" },
		};

		err |= vtb_strbuf_addf(&sb, "off the planned pCPU %.1f%% mean, %.1f%% max",
				       off * 100, jnumv(e, "off_planned_max") * 100) < 0;
		for (i = 0; i < VTB_ARRAY_SIZE(split); i++)
			if (!isnan(jnumv(e, split[i].k)))
				err |= vtb_strbuf_addf(&sb, "; %s %.1f%%", split[i].what,
						       jnumv(e, split[i].k) * 100) < 0;
		put_ev(c, "ran", vtb_strbuf_str(&sb));
		vtb_strbuf_release(&sb);
	}
	/* membw below STREAM's 4 x LLC rule (compare.c, "notes") */
	json_array_foreach(json_object_get(e, "notes"), i, o) if (json_is_string(o))
		put_ev(c, "note", esc(c, json_string_value(o)));
	if (err)
		c->oom = true;
}

static void put_evidence(struct ctx *c)
{
	const json_t *e;
	size_t i;

	if (!json_array_size(c->evidence))
		return;
	if (c->mode == M_MD)
		fprintf(c->f,
			"\n## Guest evidence\n\nPer VM configuration: what the guest was told, what it built, where its vCPUs ran on the host.\n");
	else {
		fputc('\n', c->f);
		put_folded(c, "",
			   "guest evidence (per VM configuration: what the guest was told, what it "
			   "built, where its vCPUs ran on the host)");
	}
	json_array_foreach(c->evidence, i, e)
	{
		put_evidence_one(c, e);
		pool_reset(c);
	}
}

/* The configurations of a row, for the list of undecided rows. */
static const char *row_who(struct ctx *c, const struct rrow *r)
{
	return fmt(c, "%s vs %s", r->x.cfg->name, r->base.cfg->name);
}

/* Why a row is not decided, in words. */
static const char *undecided_why(struct ctx *c, const struct rrow *r)
{
	double t = jnumv(c->opts, "threshold_pct");

	if (!strcmp(r->verdict, "missing") || !strcmp(r->verdict, "error"))
		return r->reason ? esc(c, r->reason) : "?";
	if (!strcmp(r->verdict, "few"))
		return fmt(c, "%.0f boot%s against %.0f: the t test needs at least 2 a side",
			   r->x.n, r->x.n == 1 ? "" : "s", r->base.n);
	return fmt(c, "change %s, ci %s..%s reaches past %s%s at n=%.0f vs %.0f%s%s",
		   pctv(c, r->change), pctv(c, r->ci_lo), pctv(c, r->ci_hi),
		   isnan(t) ? "the threshold" : fmt(c, "+-%g%%", t), r->noisy ? " (noisy)" : "",
		   r->x.n, r->base.n, isnan(r->boots_needed) ? "" : "; about ",
		   isnan(r->boots_needed)
			   ? ""
			   : fmt(c, "%.0f boots a side would decide it at this spread",
				 r->boots_needed));
}

/* The verdicts counted: the answer, right after what was compared. */
static void put_summary(struct ctx *c)
{
	static const char *const k[] = { "rows",	 "worse", "better",  "same",
					 "inconclusive", "few",	  "missing", "error" };
	double s[VTB_ARRAY_SIZE(k)], cw = 0, cb = 0;

	for (size_t i = 0; i < VTB_ARRAY_SIZE(k); i++)
		s[i] = jnumv(c->summary, k[i]);
	if (!json_is_object(c->summary) || isnan(s[0])) {
		/* no summary in the document: count the rows */
		memset(s, 0, sizeof(s));
		s[0] = (double)c->nrows;
		for (size_t i = 0; i < c->nrows; i++)
			for (size_t v = 0; v < VTB_ARRAY_SIZE(verdicts); v++)
				if (!strcmp(c->rows[i].verdict, verdicts[v]))
					s[v + 1]++;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		cw += c->rows[i].confirmed && !strcmp(c->rows[i].verdict, "worse");
		cb += c->rows[i].confirmed && !strcmp(c->rows[i].verdict, "better");
	}
	if (!c->nrows)
		return; /* nothing compared: the advice says what would */
	put_folded(
		c, "",
		fmt(c,
		    "%s%.0f rows: %.0f worse%s, %.0f better%s, %.0f same, %.0f inconclusive, %.0f few, %.0f missing, %.0f error%s",
		    c->mode == M_MD ? "**" : "", s[0], s[1],
		    cw > 0 ? fmt(c, " (%.0f confirmed)", cw) : "", s[2],
		    cb > 0 ? fmt(c, " (%.0f confirmed)", cb) : "", s[3], s[4], s[5], s[6], s[7],
		    c->mode == M_MD ? "**" : ""));
}

/* The rows without a decision, with why: after the tables. */
static void put_undecided(struct ctx *c)
{
	size_t undecided = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct rrow *r = &c->rows[i];

		if (strcmp(r->verdict, "inconclusive") && strcmp(r->verdict, "few") &&
		    strcmp(r->verdict, "missing") && strcmp(r->verdict, "error"))
			continue;
		if (!undecided++)
			fprintf(c->f, "%s\n",
				c->mode == M_MD ? "\nRows not decided, and why:\n"
						: "\nrows not decided, and why:");
		put_folded(c, c->mode == M_MD ? "- " : "  ",
			   fmt(c, "%s %s%s, %s: %s: %s", esc(c, r->cell), esc(c, r->metric),
			       r->unit[0] ? fmt(c, " (%s)", esc(c, r->unit)) : "", row_who(c, r),
			       r->verdict, undecided_why(c, r)));
		pool_reset(c);
	}
}

/* The configuration @key of campaign @camp (NULL when the document does
 * not list it). */
static const struct rcfg *cfg_of(const struct ctx *c, const char *key, const char *camp)
{
	const struct rcfg *any = NULL;

	for (size_t i = 0; key && i < c->ncfg; i++) {
		if (strcmp(c->cfgs[i].key, key))
			continue;
		if (!camp || !c->cfgs[i].campaign || !strcmp(c->cfgs[i].campaign, camp))
			return &c->cfgs[i];
		any = any ? any : &c->cfgs[i];
	}
	return any;
}

/* "0-4", "1,3,7-9": a failure's reps (sorted, as the store lists them). */
static const char *reps_s(struct ctx *c, const json_t *reps)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t n = json_array_size(reps), i, j;
	const char *r;

	for (i = 0; i < n; i = j + 1) {
		json_int_t a = json_integer_value(json_array_get(reps, i));

		for (j = i; j + 1 < n && json_integer_value(json_array_get(reps, j + 1)) ==
						 json_integer_value(json_array_get(reps, j)) + 1;
		     j++)
			;
		if (vtb_strbuf_addf(&sb, i ? ",%" JSON_INTEGER_FORMAT : "%" JSON_INTEGER_FORMAT,
				    a) < 0 ||
		    (j > i && vtb_strbuf_addf(&sb, "-%" JSON_INTEGER_FORMAT,
					      json_integer_value(json_array_get(reps, j))) < 0))
			c->oom = true;
	}
	r = fmt(c, "%s", sb.len ? vtb_strbuf_str(&sb) : "?");
	vtb_strbuf_release(&sb);
	return r;
}

/* At most this many failures are listed (the JSON has them all). */
#define MAX_FAILURES 20

/*
 * The campaign's boots by status and what failed: before any table, as
 * a reader must know what the verdicts leave out.  A failed boot takes
 * all its cells with it (they are missing rows, or no rows at all when
 * every boot of a configuration failed); a failed cell in an ok boot is
 * listed with its own reason.
 */
static void put_boots_of(struct ctx *c, const char *title, const json_t *camp)
{
	static const char *const st[] = { "ok", "failed", "timeout", "unexpected-topology" };
	const json_t *b = json_object_get(camp, "boots"), *fl = json_object_get(camp, "failures");
	const json_t *o;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	double total = jnumv(b, "total");
	size_t i;

	if (!json_is_object(b))
		return;
	for (i = 0; i < VTB_ARRAY_SIZE(st); i++) {
		double v = jnumv(b, st[i]);

		if (!i || v > 0)
			c->oom |= vtb_strbuf_addf(&sb, "%s%.0f %s", i ? ", " : "", isnan(v) ? 0 : v,
						  st[i]) < 0;
	}
	put_kv(c, title, fmt(c, "%.0f: %s", isnan(total) ? 0 : total, vtb_strbuf_str(&sb)));
	vtb_strbuf_release(&sb);
	json_array_foreach(fl, i, o)
	{
		const struct rcfg *g = cfg_of(c, jstr(o, "config"), jstr(camp, "uuid"));
		const char *cell = jstr(o, "cell"), *status = jstr(o, "status");
		double n = jnumv(o, "boots");
		const char *what, *reason = jstr(o, "reason");

		if (i == MAX_FAILURES) {
			put_kv(c, "",
			       fmt(c, "... and %zu more (--format json lists them all)",
				   json_array_size(fl) - i));
			break;
		}
		if (cell)
			what = fmt(c, "%s %s: %s in %.0f boot%s (rep%s %s)",
				   g ? g->name : esc(c, jstr(o, "label")), esc(c, cell),
				   esc(c, status), n, n == 1 ? "" : "s", n == 1 ? "" : "s",
				   reps_s(c, json_object_get(o, "reps")));
		else
			what = fmt(c, "%s: %.0f boot%s %s (rep%s %s)",
				   g ? g->name : esc(c, jstr(o, "label")), n, n == 1 ? "" : "s",
				   esc(c, status), n == 1 ? "" : "s",
				   reps_s(c, json_object_get(o, "reps")));
		put_kv(c, i ? "" : "failures",
		       fmt(c, "%s%s%s", what, reason ? ": " : "", reason ? esc(c, reason) : ""));
	}
}

static void put_boots(struct ctx *c)
{
	bool two = json_is_object(c->against);

	put_boots_of(c, "boots", c->camp);
	if (two)
		put_boots_of(c, "against boots", c->against);
}

/* Nothing compared: what would compare (compare.c's advice). */
static void put_advice(struct ctx *c)
{
	const char *a = jstr(c->doc, "advice");

	if (c->nrows)
		return;
	if (c->mode == M_MD)
		fprintf(c->f, "\n**Nothing to compare.** %s\n", a ? esc(c, a) : "");
	else
		put_folded(c, "nothing to compare: ", a ? esc(c, a) : "no rows");
}

/* ---- text ---------------------------------------------------------------- */

/* The pieces of one table cell, aligned across the column. */
struct tcell {
	const char *val, *pct, *verd, *n, *cov, *ci;
};

struct tcol {
	size_t wv, wp, wd, wn, wc, wci, w;
	const char *head;
};

/* A row's value in the unit of its metric line (the line's first row's):
 * a value in another unit (an error row: units differ) is not shown. */
static double x_mean(const struct rrow *r, const struct rrow *line)
{
	return line && strcmp(r->unit, line->unit) ? NAN : r->x.mean;
}

static void tcell_fill(struct ctx *c, struct tcell *t, const struct rrow *r, bool base,
		       const struct rrow *line)
{
	memset(t, 0, sizeof(*t));
	if (!r) {
		t->val = "-";
		t->pct = t->verd = t->n = t->cov = t->ci = "";
		return;
	}
	if (base) {
		t->val = num(c, r->base.mean);
		t->n = n_s(c, r->base.n);
		t->cov = cov_s(c, r->base.cov);
		t->pct = t->verd = t->ci = "";
		return;
	}
	t->val = num(c, x_mean(r, line));
	t->pct = isnan(r->change) ? "" : fmt(c, "(%s)%s", pctv(c, r->change), r->sig ? "*" : "");
	t->verd = r->vshort;
	t->n = n_s(c, r->x.n);
	t->cov = cov_s(c, r->x.cov);
	t->ci = r->noisy ? fmt(c, "%s noisy", ci_s(c, r)) : ci_s(c, r);
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

static void tcol_fit(struct tcol *k, const struct tcell *t)
{
	k->wv = max_sz(k->wv, width(t->val));
	k->wp = max_sz(k->wp, width(t->pct));
	k->wd = max_sz(k->wd, width(t->verd));
	k->wn = max_sz(k->wn, width(t->n));
	k->wc = max_sz(k->wc, width(t->cov));
	k->wci = max_sz(k->wci, width(t->ci));
}

static void tcol_close(struct tcol *k)
{
	size_t l1 = k->wv + (k->wp ? 1 + k->wp : 0) + (k->wd ? 1 + k->wd : 0);
	size_t l2 = k->wn + (k->wc ? 1 + k->wc : 0) + (k->wci ? 1 + k->wci : 0);

	k->w = max_sz(max_sz(l1, l2), width(k->head));
}

/* Adds @s to @sb, padded to @w columns. */
static void sb_pad(struct vtb_strbuf *sb, const char *s, size_t w, bool right, bool *err)
{
	size_t n = width(s);

	if (right)
		for (; n < w; n++)
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
	*err |= vtb_strbuf_addstr(sb, s) < 0;
	if (!right)
		for (; n < w; n++)
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
}

/* One line (1 or 2) of a cell, padded to its column. */
static void tcell_put(struct vtb_strbuf *sb, const struct tcell *t, const struct tcol *k, int line,
		      bool *err)
{
	size_t start = sb->len;

	if (line == 1) {
		sb_pad(sb, t->val, k->wv, true, err);
		if (k->wp) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->pct, k->wp, false, err);
		}
		if (k->wd) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->verd, k->wd, false, err);
		}
	} else {
		sb_pad(sb, t->n, k->wn, false, err);
		if (k->wc) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->cov, k->wc, false, err);
		}
		if (k->wci) {
			*err |= vtb_strbuf_add(sb, " ", 1) < 0;
			sb_pad(sb, t->ci, k->wci, false, err);
		}
	}
	for (size_t n = sb->len - start; n < k->w; n++)
		*err |= vtb_strbuf_add(sb, " ", 1) < 0;
}

/* Prints @sb without its trailing blanks and empties it. */
static void put_line(struct ctx *c, struct vtb_strbuf *sb)
{
	size_t n = sb->len;

	while (n && sb->buf[n - 1] == ' ')
		n--;
	fprintf(c->f, "%.*s\n", (int)n, n ? sb->buf : "");
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

/* The table's compared columns @from..@to-1 (with metric, unit and base). */
static void text_chunk(struct ctx *c, const struct rgroup *g, const struct tcell *cells,
		       const struct tcol *cols, size_t from, size_t to, size_t wm, size_t wu,
		       const char *const *mlab)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t nc = g->nx + 1, m, x;
	bool err = false;

	sb_pad(&sb, "metric", wm, false, &err);
	err |= vtb_strbuf_addstr(&sb, "  ") < 0;
	sb_pad(&sb, "unit", wu, false, &err);
	for (x = 0; x < nc; x++) {
		if (x && (x - 1 < from || x - 1 >= to))
			continue;
		err |= vtb_strbuf_addstr(&sb, "  ") < 0;
		sb_pad(&sb, cols[x].head, cols[x].w, false, &err);
	}
	put_line(c, &sb);
	for (m = 0; m < g->nm; m++) {
		for (int line = 1; line <= 2; line++) {
			sb_pad(&sb, line == 1 ? mlab[m] : "", wm, false, &err);
			err |= vtb_strbuf_addstr(&sb, "  ") < 0;
			sb_pad(&sb, line == 1 ? esc(c, g->mrow[m]->unit) : "", wu, false, &err);
			for (x = 0; x < nc; x++) {
				if (x && (x - 1 < from || x - 1 >= to))
					continue;
				err |= vtb_strbuf_addstr(&sb, "  ") < 0;
				tcell_put(&sb, &cells[m * nc + x], &cols[x], line, &err);
			}
			put_line(c, &sb);
		}
	}
	vtb_strbuf_release(&sb);
	if (err)
		c->oom = true;
}

static void text_table(struct ctx *c, const struct rgroup *g)
{
	size_t nc = g->nx + 1, m, x, wm = strlen("metric"), wu = strlen("unit"), left;
	struct tcell *cells = calloc(g->nm * nc, sizeof(*cells));
	struct tcol *cols = calloc(nc, sizeof(*cols));
	const char **mlab = calloc(g->nm, sizeof(*mlab));

	if (!cells || !cols || !mlab) {
		c->oom = true;
		goto out;
	}
	fprintf(c->f, "\n%s\n", group_title(c, g));
	cols[0].head = fmt(c, "%s (base)", g->base->name);
	for (x = 0; x < g->nx; x++)
		cols[x + 1].head = g->xs[x]->name;
	for (m = 0; m < g->nm; m++) {
		mlab[m] = metric_s(c, g->mrow[m]);
		wm = max_sz(wm, width(mlab[m]));
		wu = max_sz(wu, width(esc(c, g->mrow[m]->unit)));
		tcell_fill(c, &cells[m * nc], g->mrow[m], true, NULL);
		tcol_fit(&cols[0], &cells[m * nc]);
		for (x = 0; x < g->nx; x++) {
			tcell_fill(c, &cells[m * nc + x + 1], g->cells[m * g->nx + x], false,
				   g->mrow[m]);
			tcol_fit(&cols[x + 1], &cells[m * nc + x + 1]);
		}
	}
	for (x = 0; x < nc; x++)
		tcol_close(&cols[x]);
	/* metric names cut when even one compared column would not fit */
	for (x = 1, left = 0; x < nc; x++)
		left = max_sz(left, cols[x].w);
	left += wm + 2 + wu + 2 + cols[0].w + 2;
	if (left > c->cols && wm > 12) {
		wm = max_sz(12, wm - (left - c->cols));
		for (m = 0; m < g->nm; m++)
			mlab[m] = cut(c, mlab[m], wm);
	}
	/* as many compared columns per table as fit in c->cols, at least one */
	left = wm + 2 + wu + 2 + cols[0].w;
	for (size_t from = 0; from < g->nx;) {
		size_t to = from + 1, w = left + 2 + cols[from + 1].w;

		while (to < g->nx && w + 2 + cols[to + 1].w <= c->cols)
			w += 2 + cols[++to].w;
		if (from)
			fputc('\n', c->f);
		text_chunk(c, g, cells, cols, from, to, wm, wu, mlab);
		from = to;
	}
out:
	free(cells);
	free(cols);
	free(mlab);
}

/*
 * Per configuration, cell and metric: the summary of its per-boot values
 * ("series"), whether or not it takes part in a comparison (a campaign
 * of baselines alone has no comparison rows).  Text only.  Configurations
 * by their names (c1...); the first NKEY columns are repeated in each
 * part when the figures do not fit c->cols.
 */
static void put_series(struct ctx *c)
{
	static const char *const head[] = { "config", "cell",	"metric", "unit", "n",	"mean",
					    "median", "stddev", "cov",	  "min",  "max" };
	enum { NCOL = 11, NKEY = 4 };
	const json_t *series = json_object_get(c->doc, "series"), *o;
	size_t n = json_array_size(series), i, k, w[NCOL], keyw = 0, widest = 0;
	const char **cells;

	if (!n)
		return;
	cells = calloc(n * NCOL, sizeof(*cells));
	if (!cells) {
		c->oom = true;
		return;
	}
	for (k = 0; k < NCOL; k++)
		w[k] = width(head[k]);
	json_array_foreach(series, i, o)
	{
		const json_t *sm = json_object_get(o, "summary");
		const char **r = &cells[i * NCOL];
		const char *better = jstr(o, "better");
		const struct rcfg *g = cfg_of(c, jstr(o, "config"), jstr(c->camp, "uuid"));

		r[0] = g ? g->name : esc(c, jstr(o, "label") ? jstr(o, "label") : "?");
		r[1] = esc(c, jstr(o, "cell") ? jstr(o, "cell") : "?");
		r[2] = fmt(c, "%s %s", esc(c, jstr(o, "metric") ? jstr(o, "metric") : "?"),
			   better && !strcmp(better, "higher") ? "(+)" : "(-)");
		r[3] = esc(c, jstr(o, "unit") ? jstr(o, "unit") : "");
		r[4] = isnan(jnumv(sm, "n")) ? "-" : fmt(c, "%.0f", jnumv(sm, "n"));
		r[5] = num(c, jnumv(sm, "mean"));
		r[6] = num(c, jnumv(sm, "median"));
		r[7] = num(c, jnumv(sm, "stddev"));
		r[8] = isnan(jnumv(sm, "cov")) ? "-" : fmt(c, "%.2f%%", jnumv(sm, "cov") * 100);
		r[9] = num(c, jnumv(sm, "min"));
		r[10] = num(c, jnumv(sm, "max"));
		for (k = 0; k < NCOL; k++)
			if (r[k] && width(r[k]) > w[k])
				w[k] = width(r[k]);
	}
	for (k = 0; k < NCOL; k++) {
		if (k < NKEY)
			keyw += w[k] + 2;
		else
			widest = max_sz(widest, w[k]);
	}
	/* cells and metrics cut when the keys and one figure do not fit */
	for (k = 2; keyw + widest > c->cols && k >= 1; k--) {
		size_t over = keyw + widest - c->cols, nw = w[k] > 8 + over ? w[k] - over : 8;

		if (nw >= w[k])
			continue;
		keyw -= w[k] - nw;
		w[k] = nw;
		for (i = 0; i < n; i++)
			cells[i * NCOL + k] = cut(c, cells[i * NCOL + k], nw);
	}
	fputc('\n', c->f);
	put_folded(c, "",
		   "per configuration (n = boots, one value per boot; the mean of a rate is its "
		   "harmonic mean, of a latency its geometric mean)");
	for (size_t from = NKEY; from < NCOL;) {
		size_t to = from + 1, lw = keyw + w[from];

		while (to < NCOL && lw + 2 + w[to] <= c->cols)
			lw += 2 + w[to++];
		fputc('\n', c->f);
		for (i = 0; i <= n; i++) {
			const char *const *r = i ? &cells[(i - 1) * NCOL] : head;

			for (k = 0; k < to; k++) {
				const char *v = r[k] ? r[k] : "?";
				size_t pad = w[k] - width(v);

				if (k >= NKEY && k < from)
					continue;
				if (k >= NKEY)
					fprintf(c->f, "%*s", (int)pad, "");
				fputs(v, c->f);
				if (k < NKEY && k + 1 < to)
					fprintf(c->f, "%*s", (int)pad, "");
				fputs(k + 1 < to ? "  " : "\n", c->f);
			}
		}
		from = to;
	}
	free(cells);
}

/* Text at most o->columns wide (VTB_REPORT_COLUMNS by default). */
static int text_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	size_t cols = o && o->columns ? o->columns : VTB_REPORT_COLUMNS;
	struct ctx c;

	if (ctx_load(&c, doc, f, M_TEXT))
		return -1;
	c.cols = cols < MIN_COLUMNS ? MIN_COLUMNS : cols;
	/* the answer first: what was compared, the verdicts, what failed */
	put_folded(&c, "vtbench compare: ", title(&c));
	fputc('\n', f);
	put_summary(&c);
	put_boots(&c);
	put_note(&c);
	put_advice(&c);
	pool_reset(&c);
	put_configs(&c);
	pool_reset(&c);
	for (size_t i = 0; i < c.ngroups; i++) {
		text_table(&c, &c.groups[i]);
		pool_reset(&c);
	}
	if (c.nrows) {
		fputc('\n', f);
		put_folded(&c, "", legend(&c));
	}
	put_undecided(&c);
	pool_reset(&c);
	/* then the details */
	fputc('\n', f);
	put_header(&c);
	put_series(&c);
	pool_reset(&c);
	put_evidence(&c);
	return ctx_finish(&c);
}

const struct vtb_report_ops vtb_report_text = {
	.name = "text",
	.summary = "the answer first, then a table per cell, as wide as the terminal (the default)",
	.media_type = "text/plain; charset=utf-8",
	.ext = { ".txt", ".text" },
	.render = text_render,
};

/* ---- Markdown ------------------------------------------------------------ */

static void md_table(struct ctx *c, const struct rgroup *g)
{
	size_t m, x;

	fprintf(c->f, "\n### %s\n\n| metric | unit | %s (base) |", group_title(c, g),
		g->base->name);
	for (x = 0; x < g->nx; x++)
		fprintf(c->f, " %s |", g->xs[x]->name);
	fputs("\n|:--|:--|--:|", c->f);
	for (x = 0; x < g->nx; x++)
		fputs("--:|", c->f);
	fputc('\n', c->f);
	for (m = 0; m < g->nm; m++) {
		const struct rrow *b = g->mrow[m];

		fprintf(c->f, "| %s | %s | %s<br>%s, %s |", metric_s(c, b), esc(c, b->unit),
			num(c, b->base.mean), n_s(c, b->base.n), cov_s(c, b->base.cov));
		for (x = 0; x < g->nx; x++) {
			const struct rrow *r = g->cells[m * g->nx + x];

			if (!r) {
				fputs(" - |", c->f);
				continue;
			}
			fprintf(c->f, " %s%s%s %s<br>%s, %s, %s%s |", num(c, x_mean(r, b)),
				isnan(r->change) ? "" : fmt(c, " (%s)", pctv(c, r->change)),
				r->sig ? "\\*" : "", r->vshort, n_s(c, r->x.n), cov_s(c, r->x.cov),
				ci_s(c, r), r->noisy ? ", noisy" : "");
		}
		fputc('\n', c->f);
	}
}

static int md_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	struct ctx c;

	(void)o;

	if (ctx_load(&c, doc, f, M_MD))
		return -1;
	c.cols = VTB_REPORT_COLUMNS;
	fprintf(f, "# vtbench compare: %s\n\n", title(&c));
	put_summary(&c);
	fputc('\n', f);
	put_boots(&c);
	put_note(&c);
	put_advice(&c);
	pool_reset(&c);
	put_configs(&c);
	if (c.nrows)
		fprintf(f, "\n## %s\n", title(&c));
	for (size_t i = 0; i < c.ngroups; i++) {
		md_table(&c, &c.groups[i]);
		pool_reset(&c);
	}
	if (c.nrows) {
		fputc('\n', f);
		put_folded(&c, "", legend(&c));
	}
	put_undecided(&c);
	fprintf(f, "\n## Campaign\n\n");
	put_header(&c);
	put_evidence(&c);
	return ctx_finish(&c);
}

const struct vtb_report_ops vtb_report_md = {
	.name = "md",
	.summary = "the text report as GitHub Markdown: a table per cell, for a pull request",
	.media_type = "text/markdown; charset=utf-8",
	.ext = { ".md", ".markdown" },
	.render = md_render,
};

/* ---- CSV ----------------------------------------------------------------- */

/* The shortest %.Ng (15..17) that reads back as the same double. */
static void csv_num(FILE *f, double v)
{
	char b[40];

	if (isnan(v))
		return;
	for (int p = 15; p <= 17; p++) {
		snprintf(b, sizeof(b), "%.*g", p, v);
		if (strtod(b, NULL) == v)
			break;
	}
	fputs(b, f);
}

/* A string field: escaped, quoted as RFC 4180 says when it holds a comma
 * or a quote (escaping leaves no line break).  Metric, unit and cell names
 * come from guests: a field a spreadsheet would take for a formula (one
 * that starts with =, +, -, @, tab or CR; the last two are escaped
 * already) gets a leading ' and quotes, as OWASP's CSV injection advice
 * says. */
static void csv_str(struct ctx *c, const char *raw)
{
	const char *s = esc(c, raw);
	bool formula = strchr("=+-@\t\r", s[0]) && s[0];

	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, c->f);
		return;
	}
	fputc('"', c->f);
	if (formula)
		fputc('\'', c->f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', c->f);
		fputc(*s, c->f);
	}
	fputc('"', c->f);
}

/* A member as a CSV field: numbers as above (integers as such), strings
 * escaped and quoted when needed, booleans true/false, null empty. */
static void csv_field(struct ctx *c, const json_t *o, const char *k, bool first)
{
	const json_t *v = json_object_get(o, k);

	if (!first)
		fputc(',', c->f);
	if (json_is_integer(v)) {
		fprintf(c->f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		csv_num(c->f, json_real_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", c->f);
	} else if (json_is_string(v)) {
		csv_str(c, json_string_value(v));
	}
}

static const char *const csv_row_keys[] = {
	"workload", "cell", "metric", "unit", "class", "better"
};
static const char *const csv_side_keys[] = { "config", "label", "campaign" };
/* the campaign's boots by status (its "boots" object), as boots_COL */
static const char *const csv_boot_keys[] = { "total", "ok", "failed", "timeout",
					     "unexpected-topology" };
static const char *const csv_boot_cols[] = { "total", "ok", "failed", "timeout",
					     "unexpected_topology" };
static const char *const csv_sum_keys[] = { "n",   "mean", "amean", "median", "stddev", "cov",
					    "min", "max",  "p5",    "p25",    "p75",	"p95" };
static const char *const csv_tail_keys[] = {
	"effect", "change_pct",	 "ci_low_pct", "ci_high_pct", "test",	  "df",		  "p",
	"q",	  "significant", "verdict",    "confirmed",   "possible", "boots_needed", "noisy",
	"reason"
};

static void csv_side(struct ctx *c, const struct rrow *r, const struct rside *s, const char *which)
{
	const json_t *o = json_object_get(r->j, which);

	csv_field(c, o, "config", false);
	/* the label comes from configs: the row names the key */
	fputc(',', c->f);
	csv_str(c, s->cfg->label);
	csv_field(c, o, "campaign", false);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(csv_sum_keys); i++)
		csv_field(c, s->summary, csv_sum_keys[i], false);
}

static int csv_render(const json_t *doc, const struct vtb_report_opts *o, FILE *f)
{
	struct ctx c;
	size_t i, k;

	(void)o;

	if (ctx_load(&c, doc, f, M_CSV))
		return -1;
	/* the header first (a CSV reader takes line 1 as the column names);
	 * provenance and the boots by status in columns of their own */
	fputs("schema,campaign,against", f);
	for (k = 0; k < VTB_ARRAY_SIZE(csv_boot_keys); k++)
		fprintf(f, ",boots_%s", csv_boot_cols[k]);
	for (k = 0; k < VTB_ARRAY_SIZE(csv_row_keys); k++)
		fprintf(f, ",%s", csv_row_keys[k]);
	for (int side = 0; side < 2; side++) {
		for (k = 0; k < VTB_ARRAY_SIZE(csv_side_keys); k++)
			fprintf(f, ",%s_%s", side ? "x" : "base", csv_side_keys[k]);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_sum_keys); k++)
			fprintf(f, ",%s_%s", side ? "x" : "base", csv_sum_keys[k]);
	}
	for (k = 0; k < VTB_ARRAY_SIZE(csv_tail_keys); k++)
		fprintf(f, ",%s", csv_tail_keys[k]);
	fputc('\n', f);
	for (i = 0; i < c.nrows; i++) {
		const struct rrow *r = &c.rows[i];

		fputs(VTB_REPORT_SCHEMA, f);
		csv_field(&c, c.camp, "uuid", false);
		csv_field(&c, json_is_object(c.against) ? c.against : NULL, "uuid", false);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_boot_keys); k++)
			csv_field(&c, json_object_get(c.camp, "boots"), csv_boot_keys[k], false);
		for (k = 0; k < VTB_ARRAY_SIZE(csv_row_keys); k++)
			csv_field(&c, r->j, csv_row_keys[k], false);
		csv_side(&c, r, &r->base, "base");
		csv_side(&c, r, &r->x, "x");
		for (k = 0; k < VTB_ARRAY_SIZE(csv_tail_keys); k++)
			csv_field(&c, r->j, csv_tail_keys[k], false);
		fputc('\n', f);
		pool_reset(&c);
	}
	return ctx_finish(&c);
}

const struct vtb_report_ops vtb_report_csv = {
	.name = "csv",
	.summary =
		"one line per row of the document (cell, metric, configuration), provenance first",
	.media_type = "text/csv; charset=utf-8; header=present",
	.ext = { ".csv" },
	.render = csv_render,
};
