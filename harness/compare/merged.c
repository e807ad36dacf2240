/* SPDX-License-Identifier: MIT */
/*
 * What adds up over a configuration's boots, read from the store as it
 * is: each cell's histograms merged bucket by bucket (boots with the
 * same bucket parameters), and its c2c matrices averaged cell by cell
 * (boots on the same CPUs).  The store gives a group's rows together.
 */
#include <stdlib.h>
#include <string.h>

#include "compare-priv.h"

/* ---- a group of rows ---- */

/* The rows of one configuration's cell (and metric), merged into one
 * object of the list. */
struct group {
	json_t *list; /* where the groups go */
	const char *campaign;
	char *config, *cell_key;
	json_t *cur; /* the open group's object; NULL: none */
	size_t boots;
	bool fail;
};

/* Does a row of (@config_key, @cell_key) leave the open group? */
static bool group_ends(const struct group *g, const char *config_key, const char *cell_key)
{
	return !g->cur || strcmp(g->config, config_key) || strcmp(g->cell_key, cell_key);
}

/* Opens the group of a row: its object, saying where it is from.  -1:
 * out of memory. */
static int group_open(struct group *g, const char *config_key, const char *cell_name,
		      const char *cell_key)
{
	free(g->config);
	free(g->cell_key);
	g->config = vtb_strdup(config_key);
	g->cell_key = vtb_strdup(cell_key);
	g->boots = 0;
	g->cur = json_object();
	push(g->list, g->cur, &g->fail);
	if (!g->config || !g->cell_key || g->fail)
		return -1;
	put(g->cur, "config", json_string(config_key), &g->fail);
	put(g->cur, "campaign", json_string(g->campaign), &g->fail);
	put(g->cur, "cell", json_string(cell_name), &g->fail);
	put(g->cur, "cell_key", json_string(cell_key), &g->fail);
	return 0;
}

static void group_close(struct group *g)
{
	put(g->cur, "boots", json_integer((json_int_t)g->boots), &g->fail);
	g->cur = NULL;
}

/* After the last row: @ret, or an allocation failure seen on the way. */
static int group_end(struct group *g, int ret)
{
	free(g->config);
	free(g->cell_key);
	return !ret && g->fail ? vtb_error("out of memory") : ret;
}

/* ---- histograms ---- */

struct bucket {
	json_int_t idx, count;
};

struct hist_acc {
	struct group g;
	char *metric, *params;
	struct bucket *b;
	size_t n, cap;
};

static int bucket_cmp(const void *a, const void *b)
{
	json_int_t x = ((const struct bucket *)a)->idx, y = ((const struct bucket *)b)->idx;

	return x < y ? -1 : x > y;
}

static void hist_close(struct hist_acc *h)
{
	json_int_t total = 0;
	json_t *a;
	size_t i, j;

	if (!h->g.cur)
		return;
	if (h->n) /* qsort(NULL, 0) is undefined: boots without buckets */
		qsort(h->b, h->n, sizeof(*h->b), bucket_cmp);
	a = json_array();
	for (i = 0; i < h->n; i = j) {
		json_int_t sum = 0;
		bool over = false;

		/* each boot's histogram fits in 63 bits (the record parser checks
		 * it); their sum may not: then the merged one is left out */
		for (j = i; j < h->n && h->b[j].idx == h->b[i].idx; j++)
			over = over || __builtin_add_overflow(sum, h->b[j].count, &sum);
		if (over || __builtin_add_overflow(total, sum, &total)) {
			json_decref(a);
			a = json_null();
			put(h->g.cur, "error",
			    json_string(
				    "the bucket counts of its boots add up to more than 2^63 - 1: not merged"),
			    &h->g.fail);
			break;
		}
		push(a, json_pack("[I, I]", h->b[i].idx, sum), &h->g.fail);
	}
	put(h->g.cur, "buckets", a, &h->g.fail);
	group_close(&h->g);
	h->n = 0;
}

static int add_hist(const struct vtb_hist_row *r, void *arg)
{
	struct hist_acc *h = arg;
	json_t *buckets, *pair;
	size_t i;

	if (group_ends(&h->g, r->config_key, r->cell_key) || strcmp(h->metric, r->metric)) {
		hist_close(h);
		free(h->metric);
		free(h->params);
		h->metric = vtb_strdup(r->metric);
		h->params = vtb_strdup(r->params_json);
		if (group_open(&h->g, r->config_key, r->cell_name, r->cell_key) < 0 || !h->metric ||
		    !h->params)
			return vtb_error("out of memory");
		put(h->g.cur, "metric", json_string(r->metric), &h->g.fail);
		put(h->g.cur, "unit", json_string(r->unit), &h->g.fail);
		put(h->g.cur, "params", json_loads(r->params_json, 0, NULL), &h->g.fail);
	}
	/* histograms with other bucket parameters cannot be added up */
	if (strcmp(h->params, r->params_json))
		return 0;
	buckets = json_loads(r->buckets_json, 0, NULL);
	h->g.boots++;
	json_array_foreach(buckets, i, pair)
	{
		json_int_t idx, cnt;
		struct bucket *g;

		if (json_unpack(json_array_get(buckets, i), "[I, I]", &idx, &cnt))
			continue;
		g = cm_grow(h->b, &h->cap, h->n, sizeof(*g), 256);
		if (!g) {
			json_decref(buckets);
			return vtb_error("out of memory");
		}
		h->b = g;
		h->b[h->n++] = (struct bucket){ idx, cnt };
	}
	(void)pair;
	json_decref(buckets);
	return h->g.fail ? vtb_error("out of memory") : 0;
}

int cm_build_hists(struct vtb_store *st, const struct campaign *c, json_t *list)
{
	struct hist_acc h = { .g = { .list = list, .campaign = c->uuid } };
	int ret = vtb_store_foreach_hist(st, c->id, add_hist, &h);

	hist_close(&h);
	free(h.metric);
	free(h.params);
	free(h.b);
	return group_end(&h.g, ret);
}

/* ---- c2c matrices ---- */

struct c2c_acc {
	struct group g;
	json_t *cpus; /* the first boot's CPUs: boots on others are left out */
	double *sum;
	size_t *cnt, n;
};

static void c2c_close(struct c2c_acc *a)
{
	json_t *rows;

	if (!a->g.cur)
		return;
	rows = json_array();
	for (size_t i = 0; rows && i < a->n; i++) {
		json_t *row = json_array();

		push(rows, row, &a->g.fail);
		for (size_t j = 0; row && j < a->n; j++)
			push(row,
			     a->cnt[i * a->n + j]
				     ? jreal(a->sum[i * a->n + j] / (double)a->cnt[i * a->n + j])
				     : json_null(),
			     &a->g.fail);
	}
	put(a->g.cur, "matrix_ns", rows, &a->g.fail);
	group_close(&a->g);
}

static int add_matrix(const struct vtb_matrix_row *r, void *arg)
{
	struct c2c_acc *a = arg;
	json_t *m = json_loads(r->matrix_json, 0, NULL), *cpus = json_object_get(m, "cpus"),
	       *ns = json_object_get(m, "ns");
	int ret = 0;

	if (!json_is_array(cpus) || !json_is_array(ns))
		goto out;
	if (group_ends(&a->g, r->config_key, r->cell_key)) {
		c2c_close(a);
		free(a->sum);
		free(a->cnt);
		a->n = json_array_size(cpus);
		a->sum = calloc(a->n * a->n + 1, sizeof(*a->sum));
		a->cnt = calloc(a->n * a->n + 1, sizeof(*a->cnt));
		if (group_open(&a->g, r->config_key, r->cell_name, r->cell_key) < 0 || !a->sum ||
		    !a->cnt) {
			ret = vtb_error("out of memory");
			goto out;
		}
		a->cpus = json_deep_copy(cpus);
		put(a->g.cur, "cpus", a->cpus, &a->g.fail);
	}
	if (!json_equal(cpus, a->cpus))
		goto out;
	a->g.boots++;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < a->n; j++) {
			json_t *v = json_array_get(json_array_get(ns, i), j);

			if (json_is_number(v)) {
				a->sum[i * a->n + j] += json_number_value(v);
				a->cnt[i * a->n + j]++;
			}
		}
	if (a->g.fail)
		ret = vtb_error("out of memory");
out:
	json_decref(m);
	return ret;
}

int cm_build_c2c(struct vtb_store *st, const struct campaign *c, json_t *list)
{
	struct c2c_acc a = { .g = { .list = list, .campaign = c->uuid } };
	int ret = vtb_store_foreach_matrix(st, c->id, add_matrix, &a);

	c2c_close(&a);
	free(a.sum);
	free(a.cnt);
	return group_end(&a.g, ret);
}
