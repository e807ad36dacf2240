/* SPDX-License-Identifier: MIT */
/*
 * The model the text, Markdown and CSV reports walk (doc.h): the
 * document read whole and checked (configurations named c1..cN, rows
 * placed in their table), the escaping every string of it goes through,
 * and the pool that owns the strings a report hands out.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "report.h"

/* The verdicts of the document, in the order the summary counts them. */
const char *const rep_verdicts[7] = { "worse", "better",  "same", "inconclusive",
				      "few",   "missing", "error" };

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
int rep_esc_add(struct vtb_strbuf *sb, enum mode m, const char *s)
{
	struct vtb_strbuf t = VTB_STRBUF_INIT;
	int r = vtb_term_escape(&t, s) || put_md(sb, m, t.buf, t.len) ? -1 : 0;

	vtb_strbuf_release(&t);
	return r;
}

/* Frees the strings of the pool: each table's are printed before the next. */
void rep_pool_reset(struct ctx *c)
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
const char *rep_esc(struct ctx *c, const char *s)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *r;

	if (!s)
		return "";
	if (rep_esc_add(&sb, c->mode == M_CSV ? M_TEXT : c->mode, s) ||
	    vtb_strbuf_add(&sb, "", 0)) {
		vtb_strbuf_release(&sb);
		c->oom = true;
		return "";
	}
	r = keep(c, vtb_strbuf_detach(&sb));
	return r ? r : "";
}

/* printf into a string owned by the context. */
const char *rep_fmt(struct ctx *c, const char *f, ...)
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
size_t rep_width(const char *s)
{
	return rep_width_n(s, strlen(s));
}

size_t rep_width_n(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Bytes of the first @w code points of @s (of @n bytes). */
size_t rep_bytes_of(const char *s, size_t n, size_t w)
{
	size_t i = 0;

	for (size_t col = 0; i < n && col < w; col++) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

/* @s cut to @w columns, its end marked with '~' when cut. */
const char *rep_cut(struct ctx *c, const char *s, size_t w)
{
	if (!w || rep_width(s) <= w)
		return s;
	return rep_fmt(c, "%.*s~", (int)rep_bytes_of(s, strlen(s), w - 1), s);
}

/*
 * @s escaped, cut to @max columns (with '~'), then in Markdown its
 * punctuation escaped: the cut counts what a reader sees, and never
 * parts a backslash from what it escapes.  Only a head of @s is read: a
 * character takes at most 4 bytes and escapes to at least one column, so
 * 4 * max + 8 bytes hold more than @max whole characters when @s is
 * longer, and a character split at the end of the head lies beyond the
 * cut.
 */
const char *rep_show(struct ctx *c, const char *s, size_t max)
{
	struct vtb_strbuf t = VTB_STRBUF_INIT, sb = VTB_STRBUF_INIT;
	size_t head = max < (SIZE_MAX - 9) / 4 ? 4 * max + 8 : SIZE_MAX - 1, n;
	char *part = NULL;
	bool cut;
	char *r;

	if (!s)
		return "";
	if (strnlen(s, head + 1) > head) {
		part = strndup(s, head);
		if (!part) {
			c->oom = true;
			return "";
		}
		s = part;
	}
	if (vtb_term_escape(&t, s) || vtb_strbuf_add(&t, "", 0)) {
		c->oom = true;
		r = NULL;
		goto out;
	}
	cut = max && rep_width_n(t.buf, t.len) > max;
	n = cut ? rep_bytes_of(t.buf, t.len, max - 1) : t.len;
	if (put_md(&sb, c->mode, t.buf, n) || (cut && put_md(&sb, c->mode, "~", 1)) ||
	    vtb_strbuf_add(&sb, "", 0)) {
		c->oom = true;
		r = NULL;
		goto out;
	}
	r = keep(c, vtb_strbuf_detach(&sb));
out:
	free(part);
	vtb_strbuf_release(&t);
	vtb_strbuf_release(&sb);
	return r ? r : "";
}

/* ---- reading the document ---------------------------------------------- */

/* @s as one copy the context owns (a table's names repeat row after row);
 * NULL for NULL, or when out of memory (c->oom). */
static const char *intern(struct ctx *c, const char *s)
{
	size_t len, pos = 0, item;
	char *k;

	if (!s)
		return NULL;
	len = strlen(s);
	while (vtb_index_next(&c->strix, s, len, &pos, &item))
		if (!strcmp(c->strs[item], s))
			return c->strs[item];
	if (c->nstrs == c->astrs) {
		size_t a = c->astrs ? c->astrs * 2 : 64;
		char **v = realloc(c->strs, a * sizeof(*v));

		if (!v) {
			c->oom = true;
			return NULL;
		}
		c->strs = v;
		c->astrs = a;
	}
	k = strdup(s);
	if (!k || vtb_index_add(&c->strix, k, len, c->nstrs) < 0) {
		free(k);
		c->oom = true;
		return NULL;
	}
	c->strs[c->nstrs++] = k;
	return k;
}

/* Keeps @a (a set_aside array of a row about to be dropped). */
static int hold(struct ctx *c, const json_t *a)
{
	if (c->nheld == c->aheld) {
		size_t n = c->aheld ? c->aheld * 2 : 16;
		json_t **v = realloc(c->held, n * sizeof(*v));

		if (!v)
			return vtb_error("out of memory");
		c->held = v;
		c->aheld = n;
	}
	c->held[c->nheld++] = json_incref((json_t *)a);
	return 0;
}

const char *rep_jstr(const json_t *o, const char *k)
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

double rep_jnumv(const json_t *o, const char *k)
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
	const char *key = rep_jstr(o, "config");

	if (!json_is_object(o) || !key)
		return vtb_error("report row %zu: '%s' has no configuration", ri, which);
	s->cfg = find_cfg(c, index, key, rep_jstr(o, "campaign"));
	if (c->oom)
		return vtb_error("out of memory");
	if (!s->cfg)
		return vtb_error("report row %zu: configuration '%s' of '%s' is not in configs", ri,
				 key, which);
	s->summary = json_object_get(o, "summary");
	s->aside = json_object_get(o, "set_aside");
	if (s->aside && !json_is_array(s->aside) && !json_is_null(s->aside))
		return vtb_error("report row %zu: set_aside of '%s' is not an array", ri, which);
	if (!json_array_size(s->aside))
		s->aside = NULL;
	else if (!c->stream && hold(c, s->aside))
		return -1;
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

		g->key = rep_jstr(o, "key");
		g->label = rep_jstr(o, "label");
		g->kind = rep_jstr(o, "kind");
		g->campaign = rep_jstr(o, "campaign");
		g->cpus = rep_jstr(o, "cpus");
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
	r->workload = rep_jstr(o, "workload");
	r->cell = rep_jstr(o, "cell");
	r->metric = rep_jstr(o, "metric");
	r->unit = rep_jstr(o, "unit");
	r->cls = rep_jstr(o, "class");
	r->better = rep_jstr(o, "better");
	r->test = rep_jstr(o, "test");
	r->verdict = rep_jstr(o, "verdict");
	r->reason = rep_jstr(o, "reason");
	if (!r->workload || !r->cell || !r->verdict)
		return vtb_error("report row %zu: workload, cell and verdict must be strings", i);
	for (v = 0; v < VTB_ARRAY_SIZE(rep_verdicts) && strcmp(rep_verdicts[v], r->verdict); v++)
		;
	if (v == VTB_ARRAY_SIZE(rep_verdicts))
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
					     : rep_verdicts[v];
	if (jnum(o, "change_pct", &r->change) || jnum(o, "ci_low_pct", &r->ci_lo) ||
	    jnum(o, "ci_high_pct", &r->ci_hi) || jnum(o, "p", &r->p) || jnum(o, "q", &r->q) ||
	    jnum(o, "boots_needed", &r->boots_needed) || jnum(o, "ci_level", &r->ci_level) ||
	    jnum(o, "boots_needed_over", &r->boots_over))
		return vtb_error(
			"report row %zu: change_pct, ci_low_pct, ci_high_pct, ci_level, p, q, boots_needed and boots_needed_over must be numbers or null",
			i);
	if (sig && !json_is_boolean(sig) && !json_is_null(sig))
		return vtb_error("report row %zu: significant is not a boolean", i);
	r->sig = json_is_true(sig);
	if (read_side(c, index, o, "base", i, &r->base) || read_side(c, index, o, "x", i, &r->x))
		return -1;
	return 0;
}

/* Row @r's strings made the context's own: its JSON is about to go. */
static int keep_row(struct ctx *c, struct rrow *r)
{
	const char **f[] = { &r->workload, &r->cell, &r->metric, &r->unit, &r->cls,
			     &r->better,   &r->test, &r->verdict, &r->reason };

	for (size_t k = 0; k < VTB_ARRAY_SIZE(f); k++)
		*f[k] = intern(c, *f[k]);
	r->j = NULL;
	r->base.summary = r->x.summary = NULL;
	return c->oom ? vtb_error("out of memory") : 0;
}

int rep_row_take(struct ctx *c, size_t i)
{
	struct rrow *r = &c->rows[c->stream ? 0 : i];
	json_t *o = c->src->row(c->src->src, i);

	if (!o)
		return -1;
	if (c->stream) {
		memset(r, 0, sizeof(*r));
		if (read_row(c, c->cfg_index, o, i, r)) {
			json_decref(o);
			return -1;
		}
	}
	r->j = o;
	r->base.summary = json_object_get(json_object_get(o, "base"), "summary");
	r->x.summary = json_object_get(json_object_get(o, "x"), "summary");
	return 0;
}

void rep_row_drop(struct ctx *c, size_t i)
{
	struct rrow *r = &c->rows[c->stream ? 0 : i];

	json_decref((json_t *)r->j);
	r->j = NULL;
	r->base.summary = r->x.summary = NULL;
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
	rep_pool_reset(c);
	free(c->pool);
	for (size_t i = 0; i < c->nstrs; i++)
		free(c->strs[i]);
	free(c->strs);
	vtb_index_release(&c->strix);
	for (size_t i = 0; i < c->nheld; i++)
		json_decref(c->held[i]);
	free(c->held);
	json_decref(c->cfg_index);
}

int rep_ctx_load(struct ctx *c, const struct vtb_report_doc *d, FILE *f, enum mode m)
{
	const json_t *doc = d->head;
	json_t *cfg_index = json_object(), *group_index = json_object();
	const char *schema = rep_jstr(doc, "schema");
	size_t i;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->mode = m;
	c->f = f;
	c->src = d;
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
	if (!json_is_object(c->camp) || !json_is_object(c->opts) || !d->rows_ok) {
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
	if (m == M_CSV && d->src != d->head) {
		/* a document made as it is read is well formed by
		 * construction: csv reads each row once, for its line */
		c->stream = true;
		c->cfg_index = cfg_index;
		cfg_index = NULL;
		c->rows = calloc(1, sizeof(*c->rows));
		if (!c->rows)
			vtb_error("out of memory");
		else
			ret = 0;
		goto out;
	}
	c->nrows = d->nrows;
	c->rows = calloc(c->nrows ? c->nrows : 1, sizeof(*c->rows));
	if (!c->rows) {
		vtb_error("out of memory");
		goto out;
	}
	for (i = 0; i < c->nrows; i++) {
		json_t *o = d->row(d->src, i);
		int r;

		if (!o)
			goto out;
		r = read_row(c, cfg_index, o, i, &c->rows[i]) || keep_row(c, &c->rows[i]) ||
		    place_row(c, group_index, &c->rows[i]);
		json_decref(o);
		if (r)
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
int rep_ctx_finish(struct ctx *c)
{
	int ret = 0;

	if (fflush(c->f) || ferror(c->f))
		ret = vtb_error("cannot write the report: %s", strerror(errno ? errno : EIO));
	else if (c->oom)
		ret = vtb_error("out of memory");
	ctx_release(c);
	return ret;
}

/* The configuration @key of campaign @camp (NULL when the document does
 * not list it). */
const struct rcfg *rep_cfg_of(const struct ctx *c, const char *key, const char *camp)
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
