/* SPDX-License-Identifier: MIT */
/*
 * The tail test of compare's rows (issue 26): a campaign's per-boot
 * histograms, kept sparse (a few hundred non-empty buckets a boot, never
 * the full counters: thousands of boots), found again by configuration,
 * cell and metric through keyed indexes, and a row's boots handed to
 * vtb_tail_compare() (tails.c).
 */
#include <stdlib.h>
#include <string.h>

#include "compare-priv.h"
#include "tails.h"
#include "../../common/hist.h"
#include "../../common/index.h"
#include "../../common/siphash.h"

/* One boot's histogram: its buckets at [off, off + n) of the campaign's
 * value and count arrays. */
struct tboot {
	int64_t boot; /* boot.id: side-by-side VMs share a rep, never a boot */
	int rep;
	bool bad;	    /* its record could not be read as a histogram */
	const char *params; /* interned */
	size_t off, n;
	double max;
};

/* What the indexes find: the first member of a cell and of a hist. */
struct tkey {
	char *key; /* config \0 cell (\0 metric) */
	size_t len;
};

/* The histograms of one metric of one cell, boots by rep. */
struct thist {
	struct tkey k;
	size_t cell, next;  /* its cell; the next hist of that cell (SIZE_MAX: none) */
	const char *metric; /* in key */
	struct tboot *b;
	size_t nb, cap;
};

struct tcell {
	struct tkey k;
	size_t first; /* its first hist (SIZE_MAX: none) */
};

struct cm_tails {
	double *v;
	uint64_t *c;
	size_t nv, capv;
	char **params; /* the distinct bucket parameters (a few) */
	size_t np, capp;
	struct thist *h;
	size_t nh, caph;
	struct tcell *cell;
	size_t ncell, capcell;
	struct vtb_index hix, cix;
	struct vtb_hist tmp; /* the boot being read */
};

void cm_tails_free(struct cm_tails *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->c);
	for (size_t i = 0; i < t->np; i++)
		free(t->params[i]);
	free(t->params);
	for (size_t i = 0; i < t->nh; i++) {
		free(t->h[i].k.key);
		free(t->h[i].b);
	}
	free(t->h);
	for (size_t i = 0; i < t->ncell; i++)
		free(t->cell[i].k.key);
	free(t->cell);
	vtb_index_release(&t->hix);
	vtb_index_release(&t->cix);
	free(t);
}

/* "a\0b\0c" (@c NULL: "a\0b") malloc'ed, its length in *len; NULL when
 * out of memory. */
static char *make_key(const char *a, const char *b, const char *c, size_t *len)
{
	size_t la = strlen(a), lb = strlen(b), lc = c ? strlen(c) : 0;
	char *k;

	*len = la + 1 + lb + (c ? 1 + lc : 0);
	k = malloc(*len + 1);
	if (!k)
		return NULL;
	memcpy(k, a, la + 1);
	memcpy(k + la + 1, b, lb + 1);
	if (c)
		memcpy(k + la + 1 + lb + 1, c, lc + 1);
	return k;
}

/* The position of the cell or hist with key @k (@len bytes), or -1. */
static long find_key(const struct vtb_index *ix, const void *items, size_t size, const char *k,
		     size_t len)
{
	size_t pos = 0, item;

	while (vtb_index_next(ix, k, len, &pos, &item)) {
		/* both kinds of element open with their struct tkey */
		const struct tkey *e = (const void *)((const char *)items + item * size);

		if (e->len == len && !memcmp(e->key, k, len))
			return (long)item;
	}
	return -1;
}

static long find_cell(const struct cm_tails *t, const char *config, const char *cell)
{
	size_t len;
	char *k = make_key(config, cell, NULL, &len);
	long i = k ? find_key(&t->cix, t->cell, sizeof(*t->cell), k, len) : -2;

	free(k);
	return i;
}

static long find_hist(const struct cm_tails *t, const char *config, const char *cell,
		      const char *metric)
{
	size_t len;
	char *k = make_key(config, cell, metric, &len);
	long i = k ? find_key(&t->hix, t->h, sizeof(*t->h), k, len) : -2;

	free(k);
	return i;
}

/* The hist of the row's (configuration, cell, metric), made when new. */
static struct thist *hist_of(struct cm_tails *t, const struct vtb_hist_row *r)
{
	size_t klen, cklen;
	char *k = make_key(r->config_key, r->cell_key, r->metric, &klen), *ck = NULL;
	long i = k ? find_key(&t->hix, t->h, sizeof(*t->h), k, klen) : -1, ci;
	struct thist *h = NULL;

	if (!k || i >= 0)
		goto out;
	ck = make_key(r->config_key, r->cell_key, NULL, &cklen);
	if (!ck)
		goto out;
	ci = find_key(&t->cix, t->cell, sizeof(*t->cell), ck, cklen);
	if (ci < 0) {
		struct tcell *c = cm_grow(t->cell, &t->capcell, t->ncell, sizeof(*c), 64);

		if (!c)
			goto out;
		t->cell = c;
		if (vtb_index_add(&t->cix, ck, cklen, t->ncell))
			goto out;
		t->cell[t->ncell] = (struct tcell){ .k = { ck, cklen }, .first = SIZE_MAX };
		ck = NULL;
		ci = (long)t->ncell++;
	}
	h = cm_grow(t->h, &t->caph, t->nh, sizeof(*h), 64);
	if (!h)
		goto out;
	t->h = h;
	h = NULL;
	if (vtb_index_add(&t->hix, k, klen, t->nh))
		goto out;
	/* metric: after the two NULs of the key */
	t->h[t->nh] = (struct thist){ .k = { k, klen },
				      .cell = (size_t)ci,
				      .next = t->cell[ci].first,
				      .metric = k + strlen(k) + 1 + strlen(r->cell_key) + 1 };
	t->cell[ci].first = t->nh;
	k = NULL;
	i = (long)t->nh++;
out:
	free(k);
	free(ck);
	return i >= 0 ? &t->h[i] : NULL;
}

/* @p interned: NULL when out of memory. */
static const char *intern(struct cm_tails *t, const char *p)
{
	char **a;

	for (size_t i = 0; i < t->np; i++)
		if (!strcmp(t->params[i], p))
			return t->params[i];
	a = cm_grow(t->params, &t->capp, t->np, sizeof(*a), 4);
	if (!a)
		return NULL;
	t->params = a;
	t->params[t->np] = vtb_strdup(p);
	return t->params[t->np] ? t->params[t->np++] : NULL;
}

/* The buckets of the boot's histogram, appended as values (each bucket's
 * representative value, as vtb_hist_percentile gives) and counts. */
static int add_buckets(struct cm_tails *t, struct tboot *b, const struct vtb_hist_row *r)
{
	json_t *params = json_loads(r->params_json, 0, NULL),
	       *buckets = json_loads(r->buckets_json, 0, NULL);
	struct vtb_hist *h = &t->tmp;
	int ret = 0;

	if (!params || !buckets || vtb_hist_from_json(h, params, buckets)) {
		b->bad = true; /* a record no histogram can be read from: no tail test */
		goto out;
	}
	b->off = t->nv;
	b->max = (double)h->max;
	for (size_t i = 0; i < h->n_buckets; i++) {
		uint64_t w, v;

		if (!h->buckets[i])
			continue;
		if (t->nv == t->capv) {
			size_t cap = t->capv ? 2 * t->capv : 4096;
			double *nv = realloc(t->v, cap * sizeof(*nv));
			uint64_t *nc;

			if (nv)
				t->v = nv;
			nc = nv ? realloc(t->c, cap * sizeof(*nc)) : NULL;
			if (!nc) {
				ret = -1;
				goto out;
			}
			t->c = nc;
			t->capv = cap;
		}
		w = vtb_hist_bucket_width(h->bits, i);
		v = vtb_hist_bucket_lo(h->bits, i) + (w - 1) / 2;
		v = v < h->min ? h->min : v > h->max ? h->max : v;
		t->v[t->nv] = (double)v;
		t->c[t->nv++] = h->buckets[i];
	}
	b->n = t->nv - b->off;
out:
	vtb_hist_release(h);
	json_decref(params);
	json_decref(buckets);
	return ret;
}

static int add_hist(const struct vtb_hist_row *r, void *arg)
{
	struct cm_tails *t = arg;
	struct thist *h = hist_of(t, r);
	struct tboot *b;

	if (!h)
		return vtb_error("out of memory reading the histograms of a campaign");
	b = cm_grow(h->b, &h->cap, h->nb, sizeof(*b), 8);
	if (!b)
		return vtb_error("out of memory reading the histograms of a campaign");
	h->b = b;
	b = &h->b[h->nb++];
	*b = (struct tboot){ .boot = r->boot, .rep = r->rep, .params = intern(t, r->params_json) };
	if (!b->params || add_buckets(t, b, r))
		return vtb_error("out of memory reading the histograms of a campaign");
	return 0;
}

static int boot_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct tboot *)a)->boot, y = ((const struct tboot *)b)->boot;

	return x < y ? -1 : x > y;
}

int cm_tails_load(struct vtb_store *st, const struct campaign *c, struct cm_tails **out)
{
	struct cm_tails *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return vtb_error("out of memory reading the histograms of a campaign");
	if (vtb_store_foreach_hist(st, c->id, add_hist, t)) {
		cm_tails_free(t);
		return -1;
	}
	/* look-ups are binary searches by boot id */
	for (size_t i = 0; i < t->nh; i++)
		if (t->h[i].nb > 1)
			qsort(t->h[i].b, t->h[i].nb, sizeof(*t->h[i].b), boot_cmp);
	*out = t;
	return 0;
}

/* The hist of the series' cell for the metric's stem (see the header);
 * -1 with *why when there is none (-2: out of memory). */
static long match_hist(const struct cm_tails *t, const struct series *s, const char *stem,
		       char **why)
{
	long ci, i = find_hist(t, s->config_key, s->cell_key, stem), found = -1;
	size_t sl = strlen(stem);

	if (i != -1)
		return i;
	ci = find_cell(t, s->config_key, s->cell_key);
	if (ci == -2)
		return -2;
	for (size_t j = ci >= 0 ? t->cell[ci].first : SIZE_MAX; j != SIZE_MAX; j = t->h[j].next) {
		const char *m = t->h[j].metric;

		if (strncmp(m, stem, sl) || m[sl] != '_')
			continue;
		if (found >= 0) {
			*why = vtb_asprintf(
				"more than one histogram named '%s_*' in cell '%s' of '%s'", stem,
				s->cell_name, s->label);
			return *why ? -1 : -2;
		}
		found = (long)j;
	}
	if (found < 0) {
		*why = vtb_asprintf("no histogram named '%s' or '%s_*' in cell '%s' of '%s'", stem,
				    stem, s->cell_name, s->label);
		return *why ? -1 : -2;
	}
	return found;
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The series' boots (each boot once, by its id) as vtb_tail_boots of hist
 * @h: 0, -1 with *why, -2 when out of memory.  *params: the bucket
 * parameters all must share (NULL: the first boot's). */
static int side_boots(const struct cm_tails *t, const struct thist *h, const struct series *s,
		      const char **params, struct vtb_tail_boot **out, size_t *n, char **why)
{
	struct vtb_tail_boot *tb = malloc((s->n ? s->n : 1) * sizeof(*tb));
	int64_t *ids = malloc((s->n ? s->n : 1) * sizeof(*ids));
	size_t m = 0;
	int ret = -2;

	if (!tb || !ids)
		goto out;
	if (s->n)
		memcpy(ids, s->boot, s->n * sizeof(*ids));
	qsort(ids, s->n, sizeof(*ids), id_cmp);
	for (size_t i = 0; i < s->n; i++) {
		const struct tboot *b;
		struct tboot key = { .boot = ids[i] };

		if (i && ids[i] == ids[i - 1])
			continue;
		b = h->nb ? bsearch(&key, h->b, h->nb, sizeof(*h->b), boot_cmp) : NULL;
		if (!b || b->bad) {
			*why = vtb_asprintf(
				b ? "the '%s' histogram of boot id %lld of '%s' is not valid"
				  : "no '%s' histogram in boot id %lld of '%s'",
				h->metric, (long long)ids[i], s->label);
			ret = *why ? -1 : -2;
			goto out;
		}
		if (!*params)
			*params = b->params;
		if (strcmp(*params, b->params)) {
			*why = vtb_asprintf(
				"the '%s' histogram of boot id %lld of '%s' has other bucket parameters (%s, not %s)",
				h->metric, (long long)ids[i], s->label, b->params, *params);
			ret = *why ? -1 : -2;
			goto out;
		}
		tb[m++] = (struct vtb_tail_boot){ .v = t->v + b->off,
						  .c = t->c + b->off,
						  .n = b->n,
						  .max = b->max,
						  .rep = b->rep };
	}
	*out = tb;
	tb = NULL;
	*n = m;
	ret = 0;
out:
	free(tb);
	free(ids);
	return ret;
}

/* The seed of a row: its identity hashed under a fixed key (the same
 * database gives the same figures; not a hash table's key, so no secret). */
static uint64_t row_seed(const struct series *b, const struct series *x)
{
	static const struct vtb_sipkey fixed = { UINT64_C(0x7674622d7461696c),
						 UINT64_C(0x732d626f6f747374) };
	const char *parts[] = { b->config_key, x->config_key, b->cell_key, x->cell_key, b->metric };
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	uint64_t h = 0;

	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++)
		vtb_strbuf_add(&sb, parts[i], strlen(parts[i]) + 1);
	/* out of memory: the hash of the first parts seen (still a seed) */
	h = vtb_siphash(&fixed, vtb_strbuf_str(&sb), sb.len);
	vtb_strbuf_release(&sb);
	return h;
}

int cm_tail_row(const struct cm_tails *tb, const struct series *b, const struct cm_tails *tx,
		const struct series *x, double alpha, struct vtb_tail *t, char **why)
{
	struct vtb_tail_boot *bb = NULL, *xb = NULL;
	const char *params = NULL;
	size_t stem, nb = 0, nx = 0;
	char *name = NULL;
	long hb, hx;
	double pct;
	int ret = -2;

	*t = (struct vtb_tail){ .d = NAN, .p = NAN };
	*why = NULL;
	if (!vtb_metric_tail(b->metric, &pct, &stem))
		return 0;
	name = malloc(stem + 1);
	if (!name)
		goto out;
	memcpy(name, b->metric, stem);
	name[stem] = '\0';
	hb = match_hist(tb, b, name, why);
	hx = hb >= 0 ? match_hist(tx, x, name, why) : hb;
	if (hb < 0 || hx < 0) {
		ret = hb == -2 || hx == -2 ? -2 : 0;
		goto out;
	}
	ret = side_boots(tb, &tb->h[hb], b, &params, &bb, &nb, why);
	if (!ret)
		ret = side_boots(tx, &tx->h[hx], x, &params, &xb, &nx, why);
	if (ret) {
		ret = ret == -1 ? 0 : -2;
		goto out;
	}
	if (vtb_tail_compare(bb, nb, xb, nx, pct, alpha, CM_TAIL_B, row_seed(b, x), t))
		ret = -1;
	else
		ret = 1;
out:
	free(name);
	free(bb);
	free(xb);
	if (ret == -2)
		ret = vtb_error("out of memory judging the tail of '%s'", b->metric);
	return ret;
}
