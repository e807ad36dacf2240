/* SPDX-License-Identifier: MIT */
/*
 * Compare's samples: a campaign's samples read lean and put in order here
 * rather than in SQL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "../../common/index.h"

/*
 * Samples for compare.  One statement that joins, filters and sorts a
 * campaign's samples in SQL took 5 s for a million (a temporary B-tree
 * for ORDER BY, a window or a grouped subquery for the metric order);
 * instead the cells come from one small query and the samples from one
 * lean unordered statement (numbers and two short names), and the order
 * is made here: a counting sort by cell, then per cell by metric, rep
 * and id.  Metric and unit names are interned, so a sample is 32 bytes.
 */
struct lean_cell {
	int64_t id;
	char *config_key, *config_label, *kind, *cell_key, *cell_name, *workload, *pcpus;
	int cpus;
};

struct lean_sample {
	int64_t id;
	double value;
	uint32_t cell, metric; /* index in cells[], names[] */
	uint32_t unit : 31, better : 1;
	int32_t rep;
	int64_t boot; /* boot.id: names a boot compare sets aside */
};

struct lean {
	struct lean_cell *cells;
	size_t ncells, cellcap;
	int64_t *cell_ids; /* cell_ids[i] and cell_pos[i]: cells by id, to look up */
	uint32_t *cell_pos;
	struct lean_sample *s;
	size_t n, cap;
	char **names; /* interned metric and unit names */
	size_t nnames, capnames;
	/* The names are a guest's (metric and unit of its sample records):
	 * the index hashes them with a random secret, or names chosen to
	 * collide would put them all in one probe chain (issue 25). */
	struct vtb_index byname;
};

/* The index of @name in l->names, added when new; -1 with vtb_error()
 * when out of memory or without a random key. */
static long intern(struct lean *l, const char *name)
{
	size_t len = strlen(name), pos = 0, i;

	while (vtb_index_next(&l->byname, name, len, &pos, &i))
		if (!strcmp(l->names[i], name))
			return (long)i;
	if (l->nnames == l->capnames) {
		size_t n = l->capnames ? 2 * l->capnames : 32;
		char **names = realloc(l->names, n * sizeof(*names));

		if (!names)
			return vtb_error("out of memory");
		l->names = names;
		l->capnames = n;
	}
	l->names[l->nnames] = vtb_strdup(name);
	if (!l->names[l->nnames])
		return vtb_error("out of memory");
	if (vtb_index_add(&l->byname, name, len, l->nnames) < 0) {
		free(l->names[l->nnames]);
		return -1;
	}
	return (long)l->nnames++;
}

static void lean_release(struct lean *l)
{
	for (size_t i = 0; i < l->ncells; i++) {
		struct lean_cell *c = &l->cells[i];

		free(c->config_key);
		free(c->config_label);
		free(c->kind);
		free(c->cell_key);
		free(c->cell_name);
		free(c->workload);
		free(c->pcpus);
	}
	free(l->cells);
	free(l->cell_ids);
	free(l->cell_pos);
	free(l->s);
	for (size_t i = 0; i < l->nnames; i++)
		free(l->names[i]);
	free(l->names);
	vtb_index_release(&l->byname);
}

static int lean_add_cell(sqlite3_stmt *s, void *ctx)
{
	struct lean *l = ctx;
	struct lean_cell *c;

	if (l->ncells == l->cellcap) {
		size_t cap = l->cellcap ? 2 * l->cellcap : 64;
		struct lean_cell *g = realloc(l->cells, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		l->cells = g;
		l->cellcap = cap;
	}
	c = &l->cells[l->ncells++];
	*c = (struct lean_cell){
		.id = sqlite3_column_int64(s, 0),
		.config_key = vtb_strdup(column_text(s, 1)),
		.config_label = vtb_strdup(column_text(s, 2)),
		.kind = vtb_strdup(column_text(s, 3)),
		.cell_key = vtb_strdup(column_text(s, 4)),
		.cell_name = vtb_strdup(column_text(s, 5)),
		.workload = vtb_strdup(column_text(s, 6)),
		.cpus = sqlite3_column_int(s, 7),
		.pcpus = vtb_strdup(column_text(s, 8)),
	};
	if (!c->config_key || !c->config_label || !c->kind || !c->cell_key || !c->cell_name ||
	    !c->workload || !c->pcpus)
		return vtb_error("out of memory");
	return 0;
}

static int cell_id_cmp(const void *a, const void *b, void *ctx)
{
	const int64_t *ids = ctx;
	int64_t x = ids[*(const uint32_t *)a], y = ids[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* cell_ids[] sorted and cell_pos[] their matrix positions. */
static int lean_index_cells(struct lean *l)
{
	int64_t *ids = malloc((l->ncells + 1) * sizeof(*ids));
	uint32_t *pos = malloc((l->ncells + 1) * sizeof(*pos));
	bool sorted = true;

	if (!ids || !pos) {
		free(ids);
		free(pos);
		return vtb_error("out of memory");
	}
	for (size_t i = 0; i < l->ncells; i++) {
		ids[i] = l->cells[i].id;
		pos[i] = (uint32_t)i;
		sorted = sorted && (!i || ids[i - 1] < ids[i]);
	}
	l->cell_ids = ids;
	l->cell_pos = pos;
	if (!sorted) {
		int64_t *tmp = malloc((l->ncells + 1) * sizeof(*tmp));

		if (!tmp)
			return vtb_error("out of memory");
		/* positions by id, then the ids likewise */
		qsort_r(pos, l->ncells, sizeof(*pos), cell_id_cmp, ids);
		for (size_t i = 0; i < l->ncells; i++)
			tmp[i] = ids[pos[i]];
		l->cell_ids = tmp;
		free(ids);
	}
	return 0;
}

/* The matrix position of cell @id, or -1: not a cell of the campaign. */
static long lean_cell_pos(const struct lean *l, int64_t id)
{
	size_t lo = 0, hi = l->ncells;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->cell_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->ncells && l->cell_ids[lo] == id ? (long)l->cell_pos[lo] : -1;
}

static int lean_add_sample(sqlite3_stmt *s, void *ctx)
{
	struct lean *l = ctx;
	long cell = lean_cell_pos(l, sqlite3_column_int64(s, 0)), metric, unit;
	struct lean_sample *r;

	if (cell < 0)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct lean_sample *g = realloc(l->s, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		l->s = g;
		l->cap = cap;
	}
	metric = intern(l, column_text(s, 2));
	unit = metric < 0 ? -1 : intern(l, column_text(s, 3));
	if (metric < 0 || unit < 0)
		return -1;
	r = &l->s[l->n++];
	r->id = sqlite3_column_int64(s, 1);
	r->cell = (uint32_t)cell;
	r->metric = (uint32_t)metric;
	r->unit = (uint32_t)unit & 0x7fffffffU;
	r->better = sqlite3_column_int(s, 4) != 0;
	r->rep = sqlite3_column_int(s, 5);
	r->value = sqlite3_column_double(s, 6);
	r->boot = sqlite3_column_int64(s, 8);
	return 0;
}

/* Within a cell: by metric (grouping), rep, id. */
static int sample_cmp(const void *a, const void *b, void *ctx)
{
	const struct lean_sample *s = ctx, *x = &s[*(const uint32_t *)a],
				 *y = &s[*(const uint32_t *)b];

	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct group {
	size_t lo, hi; /* in the cell's slice of the order */
	int64_t first; /* the metric's first sample id in the cell */
};

static int group_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct group *)a)->first, y = ((const struct group *)b)->first;

	return x < y ? -1 : x > y;
}

/* A campaign's cells in matrix order and its usable samples, unordered. */
static int lean_load(struct vtb_store *st, int64_t campaign_id, struct lean *l)
{
	static const char cells[] =
		"SELECT cell.id, config.key, config.label, config.kind, cell.key, cell.name,"
		" cell.workload,"
		" CAST(coalesce(json_extract(config.params, '$.vcpus'),"
		"  json_extract(config.params, '$.cpus'), 0) AS INTEGER), config.cpus,"
		" config.id" /* for store_row_check() */
		" FROM cell JOIN config ON config.id = cell.config_id"
		" WHERE config.campaign_id = ?1 ORDER BY config.seq, cell.id";
	/* store_campaign_scan() chooses; both filter alike: ok results of boots
	 * that built the planned topology (a guest that built another did
	 * not run this configuration) */
	static const char scan[] = "SELECT result.cell_id, sample.id, sample.metric, sample.unit,"
				   " sample.better = 'higher', boot.rep, sample.value, result.id,"
				   " boot.id"
				   " FROM sample CROSS JOIN result ON result.id = sample.result_id"
				   " CROSS JOIN boot ON boot.id = result.boot_id"
				   " WHERE boot.campaign_id = ?1 AND result.status = 'ok'"
				   " AND boot.status <> 'unexpected-topology'";
	static const char seek[] = "SELECT result.cell_id, sample.id, sample.metric, sample.unit,"
				   " sample.better = 'higher', boot.rep, sample.value, result.id,"
				   " boot.id"
				   " FROM boot JOIN result ON result.boot_id = boot.id"
				   " JOIN sample ON sample.result_id = result.id"
				   " WHERE boot.campaign_id = ?1 AND result.status = 'ok'"
				   " AND boot.status <> 'unexpected-topology'";
	bool by_scan = false;

	if (store_query_each(st, cells, campaign_id, "read cells", lean_add_cell, l) < 0 ||
	    lean_index_cells(l) < 0 || store_campaign_scan(st, campaign_id, &by_scan) < 0 ||
	    store_query_each(st, by_scan ? scan : seek, campaign_id, "read samples",
			     lean_add_sample, l) < 0)
		return -1;
	return 0;
}

/*
 * Counting sort by cell position, stable: *order holds the samples'
 * indexes, those of cell c from (*start)[c] to (*start)[c + 1].
 */
static int lean_order_by_cell(const struct lean *l, uint32_t **order, size_t **start)
{
	uint32_t *o = malloc((l->n + 1) * sizeof(*o));
	size_t *s = calloc(l->ncells + 1, sizeof(*s));
	size_t *next = malloc((l->ncells + 1) * sizeof(*next));

	*order = o;
	*start = s;
	if (!o || !s || !next) {
		free(next);
		return vtb_error("out of memory");
	}
	for (size_t i = 0; i < l->n; i++)
		s[l->s[i].cell + 1]++;
	for (size_t c = 0; c < l->ncells; c++)
		s[c + 1] += s[c];
	memcpy(next, s, (l->ncells + 1) * sizeof(*next));
	for (size_t i = 0; i < l->n; i++)
		o[next[l->s[i].cell]++] = (uint32_t)i;
	free(next);
	return 0;
}

/* One cell's metrics, each a run of its slice of the order. */
struct groups {
	struct group *g;
	size_t n, cap;
};

/*
 * Sorts one cell's slice order[lo..hi) by metric, rep and id and groups
 * it by metric, the groups in the order the workload reported the
 * metrics (STREAM: copy, scale, add, triad), not alphabetically.
 */
static int group_by_metric(const struct lean *l, uint32_t *order, size_t lo, size_t hi,
			   struct groups *gs)
{
	gs->n = 0;
	qsort_r(order + lo, hi - lo, sizeof(*order), sample_cmp, l->s);
	for (size_t i = lo; i < hi; i++) {
		const struct lean_sample *r = &l->s[order[i]];

		if (i == lo || r->metric != l->s[order[i - 1]].metric) {
			if (gs->n == gs->cap) {
				size_t cap = gs->cap ? 2 * gs->cap : 16;
				struct group *g = realloc(gs->g, cap * sizeof(*g));

				if (!g)
					return vtb_error("out of memory");
				gs->g = g;
				gs->cap = cap;
			}
			gs->g[gs->n++] = (struct group){ i, i, r->id };
		}
		gs->g[gs->n - 1].hi = i + 1;
		if (r->id < gs->g[gs->n - 1].first)
			gs->g[gs->n - 1].first = r->id;
	}
	qsort(gs->g, gs->n, sizeof(*gs->g), group_cmp);
	return 0;
}

static int emit_cell_samples(const struct lean *l, const struct lean_cell *cell,
			     const uint32_t *order, const struct groups *gs,
			     int (*fn)(const struct vtb_sample_row *row, void *arg), void *arg)
{
	for (size_t g = 0; g < gs->n; g++)
		for (size_t i = gs->g[g].lo; i < gs->g[g].hi; i++) {
			const struct lean_sample *r = &l->s[order[i]];
			struct vtb_sample_row row = {
				.config_key = cell->config_key,
				.config_label = cell->config_label,
				.kind = cell->kind,
				.cell_key = cell->cell_key,
				.cell_name = cell->cell_name,
				.workload = cell->workload,
				.metric = l->names[r->metric],
				.unit = l->names[r->unit],
				.better = r->better,
				.rep = r->rep,
				.boot = r->boot,
				.value = r->value,
				.cpus = cell->cpus,
				.pcpus = cell->pcpus,
			};

			if (fn(&row, arg) < 0)
				return -1;
		}
	return 0;
}

int vtb_store_foreach_sample(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_sample_row *row, void *arg), void *arg)
{
	struct lean l = { 0 };
	uint32_t *order = NULL;
	size_t *start = NULL;
	struct groups gs = { 0 };
	int ret = -1;

	if (lean_load(st, campaign_id, &l) < 0 || lean_order_by_cell(&l, &order, &start) < 0)
		goto out;
	for (size_t c = 0; c < l.ncells; c++) {
		if (start[c] == start[c + 1])
			continue;
		if (group_by_metric(&l, order, start[c], start[c + 1], &gs) < 0 ||
		    emit_cell_samples(&l, &l.cells[c], order, &gs, fn, arg) < 0)
			goto out;
	}
	ret = 0;
out:
	free(order);
	free(start);
	free(gs.g);
	lean_release(&l);
	return ret;
}
