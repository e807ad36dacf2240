/* SPDX-License-Identifier: MIT */
/*
 * Record parser: the harness side of the "@vtb1" framing (see
 * common/record.h for the format and schema).  The input is a
 * guest's serial port or an agent's stdout: untrusted.  So every size
 * is bounded before anything is buffered (an over-long line is skipped,
 * not stored), every field is type-checked, and every problem becomes an
 * error string kept with the boot while parsing goes on.  Nothing here
 * aborts or trusts a length, count or index read from the stream.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/hist.h"
#include "../../common/record.h"
#include "../../common/siphash.h"
#include "../../common/vtbutil.h"
#include "recparse.h"

#define MAGIC_PREFIX VTB_REC_MAGIC " "
#define MAGIC_LEN (sizeof(MAGIC_PREFIX) - 1)
#define QUOTE_MAX 48	   /* bytes of hostile text quoted in an error */
#define AGENT_MSG_MAX 4096 /* bytes of an agent error message kept */
/* A cell's error text: its first errors, bounded; the rest are counted.
 * Appending every error of a cell to one string cost the square of the
 * stream (8 MB of distinct errors took minutes). */
#define CELL_ERRORS_KEPT 8
#define CELL_ERROR_TEXT_MAX (16 * 1024)
#define CANON_FLAGS (JSON_SORT_KEYS | JSON_COMPACT)
/* Lines between two reads of the clock against the deadline: a line
 * costs a microsecond or more (CRC, JSON), the clock some 20 ns, and 64
 * lines of at most 1 MiB each are a few hundred ms past the deadline at
 * worst. */
#define DEADLINE_LINES 64

const struct vtb_rec_limits vtb_rec_default_limits = {
	.max_line = (1024 * 1024) + 128,
	.max_records = 200000,
	.max_errors = 100,
	.max_payload = 64 * 1024 * 1024,
	.max_total = (size_t)512 * 1024 * 1024,
};

struct chunk_seq {
	bool active;
	long long id;
	long long next_seq;
	struct vtb_strbuf buf;
};

/* A cell's errors: kept in its text, and beyond it; the text's length
 * and its last error's offset. */
struct cell_errs {
	size_t kept, dropped;
	size_t len, last;
};

struct vtb_rec_parser {
	char *nonce;
	struct vtb_rec_limits lim;
	struct vtb_boot_records r;
	size_t cap_cells, cap_samples, cap_hists, cap_errors;
	/* The tables' hash key: secret and random per parser, so the guest,
	 * which chooses cell keys and metric names, cannot choose their slots
	 * (FNV-1a let it put 80k cells in one probe chain: 124 s). */
	struct vtb_sipkey key;
	/* cell key -> index + 1 (0 = empty slot), open addressing */
	size_t *cellmap;
	size_t cellmap_cap;
	/* (cell, metric) -> sample index + 1: one sample per metric of a cell */
	size_t *samplemap;
	size_t samplemap_cap;
	bool *cell_ended;	     /* parallel to r.cells */
	struct cell_errs *cell_errs; /* parallel to r.cells */
	/* current line */
	char *line;
	size_t line_len, line_cap;
	bool skipping; /* discarding an over-long line up to its newline */
	size_t lineno; /* 1-based number of the line being read */
	size_t total;
	size_t seen;	    /* records handled, valid or not (max_records) */
	bool stopped;	    /* a hard limit or the deadline was hit: input is ignored */
	bool headless_seen; /* a record came before any header */
	bool other_seen;    /* a record other than the header was accepted */
	bool finished;
	uint64_t deadline; /* vtb_now_ns() past which parsing stops; 0: none */
	unsigned to_clock; /* lines before the clock is read again */
	struct chunk_seq ch;
	long long max_chunk_id; /* highest id that started a sequence */
	long long broken_id;	/* sequence already reported, chunks ignored */
};

/* ---- errors ---- */

static void add_error(struct vtb_rec_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_error(struct vtb_rec_parser *p, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (p->r.n_errors >= p->lim.max_errors) {
		p->r.errors_dropped++;
		return;
	}
	if (p->r.n_errors == p->cap_errors) {
		size_t cap = p->cap_errors ? 2 * p->cap_errors : 16;
		char **ne = realloc(p->r.errors, cap * sizeof(*ne));

		if (!ne) {
			p->r.errors_dropped++;
			return;
		}
		p->r.errors = ne;
		p->cap_errors = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg) {
		p->r.errors_dropped++;
		return;
	}
	p->r.errors[p->r.n_errors++] = msg;
}

/* A printable, bounded copy of hostile bytes for an error message. */
static char *quote(const char *s, size_t len)
{
	size_t n = len > QUOTE_MAX ? QUOTE_MAX : len, i;
	char *q = malloc(n + 4);

	if (!q)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		q[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (len > n) {
		memcpy(q + n, "...", 4);
	} else {
		q[n] = '\0';
	}
	return q;
}

#define QUOTED(q) ((q) ? (q) : "?")

/* ---- cells ---- */

static uint64_t hash_str(const struct vtb_rec_parser *p, const char *s)
{
	return vtb_siphash_str(&p->key, s);
}

static long find_cell(const struct vtb_rec_parser *p, const char *key)
{
	size_t mask, i;

	if (!p->cellmap_cap)
		return -1;
	mask = p->cellmap_cap - 1;
	for (i = hash_str(p, key) & mask; p->cellmap[i]; i = (i + 1) & mask)
		if (strcmp(p->r.cells[p->cellmap[i] - 1].cell, key) == 0)
			return (long)(p->cellmap[i] - 1);
	return -1;
}

static int cellmap_put(const struct vtb_rec_parser *p, size_t *map, size_t cap, size_t idx)
{
	size_t i, mask = cap - 1;

	for (i = hash_str(p, p->r.cells[idx].cell) & mask; map[i]; i = (i + 1) & mask)
		;
	map[i] = idx + 1;
	return 0;
}

/* Adds a cell (key not present yet).  -1 on ENOMEM. */
static int add_cell(struct vtb_rec_parser *p, const char *key, const char *workload)
{
	struct vtb_rs_cell *c;
	size_t idx = p->r.n_cells;

	if (p->r.n_cells == p->cap_cells) {
		size_t cap = p->cap_cells ? 2 * p->cap_cells : 8;
		struct vtb_rs_cell *nc = realloc(p->r.cells, cap * sizeof(*nc));
		struct cell_errs *ce;
		bool *ne;

		if (!nc)
			return -1;
		p->r.cells = nc;
		ne = realloc(p->cell_ended, cap * sizeof(*ne));
		if (!ne)
			return -1;
		p->cell_ended = ne;
		ce = realloc(p->cell_errs, cap * sizeof(*ce));
		if (!ce)
			return -1;
		p->cell_errs = ce;
		p->cap_cells = cap;
	}
	if ((idx + 1) * 2 > p->cellmap_cap) {
		size_t cap = p->cellmap_cap ? 2 * p->cellmap_cap : 16, i;
		size_t *map = calloc(cap, sizeof(*map));

		if (!map)
			return -1;
		for (i = 0; i < idx; i++)
			cellmap_put(p, map, cap, i);
		free(p->cellmap);
		p->cellmap = map;
		p->cellmap_cap = cap;
	}
	c = &p->r.cells[idx];
	memset(c, 0, sizeof(*c));
	c->cell = strdup(key);
	c->workload = strdup(workload);
	c->info_json = strdup("{}");
	if (!c->cell || !c->workload || !c->info_json) {
		free(c->cell);
		free(c->workload);
		free(c->info_json);
		return -1;
	}
	p->cell_ended[idx] = false;
	memset(&p->cell_errs[idx], 0, sizeof(p->cell_errs[idx]));
	p->r.n_cells++;
	cellmap_put(p, p->cellmap, p->cellmap_cap, idx);
	return 0;
}

/* ---- field access ---- */

static const char *field_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Looks up the record's "cell" and reports a missing or unknown one. */
static long record_cell(struct vtb_rec_parser *p, json_t *o, const char *type)
{
	const char *key = field_str(o, "cell");
	char *q;
	long idx;

	if (!key) {
		add_error(p, "line %zu: %s record: field 'cell' missing or not a string", p->lineno,
			  type);
		return -1;
	}
	idx = find_cell(p, key);
	if (idx < 0) {
		q = quote(key, strlen(key));
		add_error(p, "line %zu: %s record for unknown cell '%s'", p->lineno, type,
			  QUOTED(q));
		free(q);
	}
	return idx;
}

static bool need_str(struct vtb_rec_parser *p, json_t *o, const char *type, const char *key,
		     const char **out)
{
	*out = field_str(o, key);
	if (!*out)
		add_error(p, "line %zu: %s record: field '%s' missing or not a string", p->lineno,
			  type, key);
	return *out != NULL;
}

/* A unit: a short word the reports show in a table's column, not a
 * guest's megabytes of text (VTB_REC_UNIT_MAX). */
static bool unit_ok(struct vtb_rec_parser *p, const char *type, const char *unit)
{
	if (strlen(unit) <= VTB_REC_UNIT_MAX)
		return true;
	add_error(p, "line %zu: %s record: field 'unit' is longer than %d bytes", p->lineno, type,
		  VTB_REC_UNIT_MAX);
	return false;
}

static bool need_num(struct vtb_rec_parser *p, json_t *o, const char *type, const char *key,
		     double *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v)) {
		add_error(p, "line %zu: %s record: field '%s' missing or not a number", p->lineno,
			  type, key);
		return false;
	}
	*out = json_number_value(v);
	if (!isfinite(*out)) {
		add_error(p, "line %zu: %s record: field '%s' is not finite", p->lineno, type, key);
		return false;
	}
	return true;
}

static bool need_obj(struct vtb_rec_parser *p, json_t *o, const char *type, const char *key,
		     bool optional, json_t **out)
{
	*out = json_object_get(o, key);
	if (!*out && optional)
		return true;
	if (!json_is_object(*out)) {
		add_error(p, "line %zu: %s record: field '%s' missing or not an object", p->lineno,
			  type, key);
		return false;
	}
	return true;
}

static char *canon(json_t *v)
{
	return json_dumps(v, CANON_FLAGS | JSON_ENCODE_ANY);
}

static void oom(struct vtb_rec_parser *p)
{
	add_error(p, "line %zu: out of memory storing a record", p->lineno);
}

/* ---- record types ---- */

static void rec_header(struct vtb_rec_parser *p, json_t *o)
{
	json_t *schema = json_object_get(o, "schema");

	if (p->r.header) {
		add_error(p, "line %zu: duplicate header record", p->lineno);
		return;
	}
	if (!json_is_integer(schema)) {
		add_error(p, "line %zu: header record: field 'schema' missing or not an integer",
			  p->lineno);
		return;
	}
	if (json_integer_value(schema) != VTB_REC_SCHEMA) {
		add_error(p, "line %zu: unsupported record schema %lld (expected %d)", p->lineno,
			  (long long)json_integer_value(schema), VTB_REC_SCHEMA);
		return;
	}
	p->r.header = json_incref(o);
	p->r.records++;
}

static void rec_cell(struct vtb_rec_parser *p, json_t *o)
{
	const char *key, *wl;
	json_t *params;
	char *q;

	if (!need_str(p, o, "cell", "cell", &key) || !need_str(p, o, "cell", "workload", &wl) ||
	    !need_obj(p, o, "cell", "params", true, &params))
		return;
	if (find_cell(p, key) >= 0) {
		q = quote(key, strlen(key));
		add_error(p, "line %zu: duplicate cell record for '%s'", p->lineno, QUOTED(q));
		free(q);
		return;
	}
	if (add_cell(p, key, wl)) {
		oom(p);
		return;
	}
	p->r.records++;
}

static bool better_of(struct vtb_rec_parser *p, json_t *o, int *out)
{
	const char *b;

	if (!need_str(p, o, "sample", "better", &b))
		return false;
	if (strcmp(b, "higher") == 0) {
		*out = 1;
	} else if (strcmp(b, "lower") == 0) {
		*out = 0;
	} else {
		char *q = quote(b, strlen(b));

		add_error(p, "line %zu: sample record: 'better' is '%s', expected higher or lower",
			  p->lineno, QUOTED(q));
		free(q);
		return false;
	}
	return true;
}

static bool cell_open(struct vtb_rec_parser *p, long idx, const char *type)
{
	char *q;

	if (!p->cell_ended[idx])
		return true;
	q = quote(p->r.cells[idx].cell, strlen(p->r.cells[idx].cell));
	add_error(p, "line %zu: %s record for cell '%s' after its cell_end", p->lineno, type,
		  QUOTED(q));
	free(q);
	return false;
}

static size_t sample_hash(const struct vtb_rec_parser *p, const char *cell, const char *metric)
{
	return hash_str(p, cell) * 31 ^ hash_str(p, metric);
}

/* The sample of @metric already kept for @cell, or -1. */
static long find_sample(const struct vtb_rec_parser *p, const char *cell, const char *metric)
{
	size_t mask, i;

	if (!p->samplemap_cap)
		return -1;
	mask = p->samplemap_cap - 1;
	for (i = sample_hash(p, cell, metric) & mask; p->samplemap[i]; i = (i + 1) & mask) {
		const struct vtb_rs_sample *s = &p->r.samples[p->samplemap[i] - 1];

		if (!strcmp(s->cell, cell) && !strcmp(s->metric, metric))
			return (long)(p->samplemap[i] - 1);
	}
	return -1;
}

static void samplemap_put(const struct vtb_rec_parser *p, size_t *map, size_t cap, size_t idx)
{
	const struct vtb_rs_sample *v = &p->r.samples[idx];
	size_t i, mask = cap - 1;

	for (i = sample_hash(p, v->cell, v->metric) & mask; map[i]; i = (i + 1) & mask)
		;
	map[i] = idx + 1;
}

/* Makes room in the map for sample @idx (about to be added); -1 on ENOMEM. */
static int samplemap_grow(struct vtb_rec_parser *p, size_t idx)
{
	size_t cap = p->samplemap_cap ? 2 * p->samplemap_cap : 32, i, *map;

	if ((idx + 1) * 2 <= p->samplemap_cap)
		return 0;
	map = calloc(cap, sizeof(*map));
	if (!map)
		return -1;
	for (i = 0; i < idx; i++)
		samplemap_put(p, map, cap, i);
	free(p->samplemap);
	p->samplemap = map;
	p->samplemap_cap = cap;
	return 0;
}

static void rec_sample(struct vtb_rec_parser *p, json_t *o)
{
	const char *metric, *unit;
	struct vtb_rs_sample *s;
	double value;
	int better;
	long idx;

	if (!need_str(p, o, "sample", "metric", &metric) ||
	    !need_str(p, o, "sample", "unit", &unit) || !unit_ok(p, "sample", unit) ||
	    !need_num(p, o, "sample", "value", &value) || !better_of(p, o, &better))
		return;
	/* the harness derives these from the schedstat record and the host
	 * (harness/evidence): a guest's own would stand in their place */
	if (!strncmp(metric, "evidence/", strlen("evidence/"))) {
		char *qm = quote(metric, strlen(metric));

		add_error(p,
			  "line %zu: sample record: metric '%s': evidence/ is the harness's "
			  "(the scheduler evidence it derives)",
			  p->lineno, QUOTED(qm));
		free(qm);
		return;
	}
	idx = record_cell(p, o, "sample");
	if (idx < 0 || !cell_open(p, idx, "sample"))
		return;
	/* one value per boot and metric: a second one would count as
	 * another boot in compare */
	if (find_sample(p, p->r.cells[idx].cell, metric) >= 0) {
		char *qm = quote(metric, strlen(metric));
		char *qc = quote(p->r.cells[idx].cell, strlen(p->r.cells[idx].cell));

		add_error(
			p,
			"line %zu: a second sample of metric '%s' in cell '%s' (the first is kept)",
			p->lineno, QUOTED(qm), QUOTED(qc));
		free(qm);
		free(qc);
		return;
	}
	if (samplemap_grow(p, p->r.n_samples) < 0) {
		oom(p);
		return;
	}
	if (p->r.n_samples == p->cap_samples) {
		size_t cap = p->cap_samples ? 2 * p->cap_samples : 16;
		struct vtb_rs_sample *ns = realloc(p->r.samples, cap * sizeof(*ns));

		if (!ns) {
			oom(p);
			return;
		}
		p->r.samples = ns;
		p->cap_samples = cap;
	}
	s = &p->r.samples[p->r.n_samples];
	s->cell = strdup(p->r.cells[idx].cell);
	s->metric = strdup(metric);
	s->unit = strdup(unit);
	s->value = value;
	s->better = better;
	if (!s->cell || !s->metric || !s->unit) {
		free(s->cell);
		free(s->metric);
		free(s->unit);
		oom(p);
		return;
	}
	samplemap_put(p, p->samplemap, p->samplemap_cap, p->r.n_samples);
	p->r.n_samples++;
	p->r.records++;
}

/*
 * A histogram as common/hist.h writes it: loglinear parameters,
 * buckets in increasing index order (a repeated index would be counted
 * twice by every reader), each index inside the histogram, and counts
 * that add up, without overflow, to the "count" the record claims.
 */
static bool hist_ok(struct vtb_rec_parser *p, json_t *o, json_t *params, json_t *b)
{
	json_t *kind = json_object_get(params, "kind"), *bits = json_object_get(params, "bits");
	json_t *count = json_object_get(o, "count"), *pair;
	json_int_t prev = -1;
	uint64_t sum = 0;
	size_t i, nb;

	if (!json_is_string(kind) || strcmp(json_string_value(kind), "loglinear") ||
	    !json_is_integer(bits) || json_integer_value(bits) < 1 ||
	    json_integer_value(bits) > VTB_HIST_BITS_MAX ||
	    !json_is_string(json_object_get(params, "unit"))) {
		add_error(
			p,
			"line %zu: hist record: 'params' is not {\"kind\":\"loglinear\", \"bits\":1-%d, \"unit\":STR}",
			p->lineno, VTB_HIST_BITS_MAX);
		return false;
	}
	if (!json_is_integer(count) || json_integer_value(count) < 0) {
		add_error(
			p,
			"line %zu: hist record: field 'count' missing or not a non-negative integer",
			p->lineno);
		return false;
	}
	if (!json_is_array(b)) {
		add_error(
			p,
			"line %zu: hist record: field 'buckets' missing or not an array of [index, count] pairs",
			p->lineno);
		return false;
	}
	nb = vtb_hist_n_buckets((unsigned)json_integer_value(bits));
	json_array_foreach(b, i, pair)
	{
		json_t *x = json_array_get(pair, 0), *y = json_array_get(pair, 1);
		json_int_t idx;

		if (json_array_size(pair) != 2 || !json_is_integer(x) || !json_is_integer(y) ||
		    json_integer_value(x) < 0 || json_integer_value(y) < 0) {
			add_error(
				p,
				"line %zu: hist record: bucket %zu is not an [index, count] pair of non-negative integers",
				p->lineno, i);
			return false;
		}
		idx = json_integer_value(x);
		if (idx == prev) {
			add_error(p, "line %zu: hist record: bucket index %lld repeated", p->lineno,
				  (long long)idx);
			return false;
		}
		if (idx < prev) {
			add_error(
				p,
				"line %zu: hist record: bucket index %lld after %lld (indexes must increase)",
				p->lineno, (long long)idx, (long long)prev);
			return false;
		}
		if ((uint64_t)idx >= nb) {
			add_error(
				p,
				"line %zu: hist record: bucket index %lld beyond the %zu buckets of %lld bits",
				p->lineno, (long long)idx, nb, (long long)json_integer_value(bits));
			return false;
		}
		prev = idx;
		if (__builtin_add_overflow(sum, (uint64_t)json_integer_value(y), &sum) ||
		    sum > (uint64_t)INT64_MAX) {
			add_error(p,
				  "line %zu: hist record: bucket counts add up to more than %lld",
				  p->lineno, (long long)INT64_MAX);
			return false;
		}
	}
	if (sum != (uint64_t)json_integer_value(count)) {
		add_error(p,
			  "line %zu: hist record: buckets hold %llu samples, the record claims %lld",
			  p->lineno, (unsigned long long)sum, (long long)json_integer_value(count));
		return false;
	}
	return true;
}

static void rec_hist(struct vtb_rec_parser *p, json_t *o)
{
	const char *metric, *unit;
	json_t *params, *buckets = json_object_get(o, "buckets");
	struct vtb_rs_hist *h;
	long idx;

	if (!need_str(p, o, "hist", "metric", &metric) || !need_str(p, o, "hist", "unit", &unit) ||
	    !unit_ok(p, "hist", unit) || !need_obj(p, o, "hist", "params", false, &params))
		return;
	if (!hist_ok(p, o, params, buckets))
		return;
	idx = record_cell(p, o, "hist");
	if (idx < 0 || !cell_open(p, idx, "hist"))
		return;
	if (p->r.n_hists == p->cap_hists) {
		size_t cap = p->cap_hists ? 2 * p->cap_hists : 8;
		struct vtb_rs_hist *nh = realloc(p->r.hists, cap * sizeof(*nh));

		if (!nh) {
			oom(p);
			return;
		}
		p->r.hists = nh;
		p->cap_hists = cap;
	}
	h = &p->r.hists[p->r.n_hists];
	h->cell = strdup(p->r.cells[idx].cell);
	h->metric = strdup(metric);
	h->unit = strdup(unit);
	h->params_json = canon(params);
	h->buckets_json = canon(buckets);
	if (!h->cell || !h->metric || !h->unit || !h->params_json || !h->buckets_json) {
		free(h->cell);
		free(h->metric);
		free(h->unit);
		free(h->params_json);
		free(h->buckets_json);
		oom(p);
		return;
	}
	p->r.n_hists++;
	p->r.records++;
}

/*
 * Appends @msg to cell @idx's error text ("; " separated), unless it
 * repeats the last one: the first CELL_ERRORS_KEPT errors, at most
 * CELL_ERROR_TEXT_MAX bytes; later ones are counted, and finish() says
 * how many.  Linear in the stream.
 */
static void cell_add_error(struct vtb_rec_parser *p, size_t idx, const char *msg)
{
	struct vtb_rs_cell *c = &p->r.cells[idx];
	struct cell_errs *ce = &p->cell_errs[idx];
	size_t n = strlen(msg), sep = c->error ? 2 : 0;
	char *e;

	if (c->error && strcmp(c->error + ce->last, msg) == 0)
		return;
	if (ce->kept >= CELL_ERRORS_KEPT || ce->len + sep + n > CELL_ERROR_TEXT_MAX) {
		ce->dropped++;
		return;
	}
	e = realloc(c->error, ce->len + sep + n + 1);
	if (!e) {
		oom(p);
		return;
	}
	memcpy(e + ce->len, "; ", sep);
	memcpy(e + ce->len + sep, msg, n + 1);
	c->error = e;
	ce->last = ce->len + sep;
	ce->len += sep + n;
	ce->kept++;
}

/* A copy of an agent's message, cut to AGENT_MSG_MAX bytes on a
 * character boundary (jansson gave valid UTF-8: it stays valid). */
static char *agent_msg(const char *msg, bool *cut)
{
	size_t n = strlen(msg), k = vtb_utf8_cut(msg, n, AGENT_MSG_MAX);

	*cut = k < n;
	return strndup(msg, k);
}

static void rec_error(struct vtb_rec_parser *p, json_t *o)
{
	json_t *cellv = json_object_get(o, "cell");
	const char *msg, *key = NULL;
	char *m, *q = NULL;
	long idx = -1;
	bool cut;

	if (!need_str(p, o, "error", "message", &msg))
		return;
	if (cellv && !json_is_null(cellv)) {
		key = json_string_value(cellv);
		if (!key) {
			add_error(
				p,
				"line %zu: error record: field 'cell' is neither a string nor null",
				p->lineno);
			return;
		}
		idx = record_cell(p, o, "error");
	}
	m = agent_msg(msg, &cut);
	if (!m) {
		oom(p);
		return;
	}
	if (key) {
		q = quote(key, strlen(key));
		add_error(p, "agent: cell %s: %s%s", QUOTED(q), m, cut ? "..." : "");
	} else {
		add_error(p, "agent: %s%s", m, cut ? "..." : "");
	}
	if (idx >= 0)
		cell_add_error(p, (size_t)idx, m);
	free(q);
	free(m);
	p->r.records++;
}

static void rec_cell_end(struct vtb_rec_parser *p, json_t *o)
{
	const char *status, *err = NULL;
	json_t *info, *errv = json_object_get(o, "error");
	struct vtb_rs_cell *c;
	double secs;
	char *info_json = NULL, *st = NULL;
	long idx;

	if (!need_str(p, o, "cell_end", "status", &status) ||
	    !need_num(p, o, "cell_end", "seconds", &secs) ||
	    !need_obj(p, o, "cell_end", "info", true, &info))
		return;
	if (strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0) {
		char *q = quote(status, strlen(status));

		add_error(p, "line %zu: cell_end record: status '%s', expected ok or failed",
			  p->lineno, QUOTED(q));
		free(q);
		return;
	}
	if (secs < 0) {
		add_error(p, "line %zu: cell_end record: negative 'seconds'", p->lineno);
		return;
	}
	if (errv && !json_is_null(errv)) {
		err = json_string_value(errv);
		if (!err) {
			add_error(
				p,
				"line %zu: cell_end record: field 'error' is neither a string nor null",
				p->lineno);
			return;
		}
	}
	idx = record_cell(p, o, "cell_end");
	if (idx < 0)
		return;
	c = &p->r.cells[idx];
	if (p->cell_ended[idx]) {
		char *q = quote(c->cell, strlen(c->cell));

		add_error(p, "line %zu: duplicate cell_end record for '%s'", p->lineno, QUOTED(q));
		free(q);
		return;
	}
	info_json = info ? canon(info) : strdup("{}");
	st = strdup(status);
	if (!info_json || !st) {
		free(info_json);
		free(st);
		oom(p);
		return;
	}
	free(c->info_json);
	c->info_json = info_json;
	c->status = st;
	c->seconds = secs;
	if (err) {
		bool cut;
		char *m = agent_msg(err, &cut);

		if (m)
			cell_add_error(p, (size_t)idx, m);
		else
			oom(p);
		free(m);
	}
	p->cell_ended[idx] = true;
	p->r.records++;
}

static void rec_end(struct vtb_rec_parser *p, json_t *o)
{
	const char *status;
	json_t *cells = json_object_get(o, "cells");

	if (!need_str(p, o, "end", "status", &status))
		return;
	if (strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0) {
		char *q = quote(status, strlen(status));

		add_error(p, "line %zu: end record: status '%s', expected ok or failed", p->lineno,
			  QUOTED(q));
		free(q);
		return;
	}
	if (!json_is_integer(cells) || json_integer_value(cells) < 0) {
		add_error(
			p,
			"line %zu: end record: field 'cells' missing or not a non-negative integer",
			p->lineno);
		return;
	}
	p->r.end_status = strdup(status);
	if (!p->r.end_status) {
		oom(p);
		return;
	}
	p->r.ended = true;
	p->r.records++;
}

/* ---- guest records: structure validated against a small schema ---- */

enum vkind { VK_STR, VK_BOOL, VK_INT, VK_ARRAY, VK_OBJECT, VK_STRMAP, VK_NUM };
#define VF_NULL 1u /* null allowed */
#define VF_OPT 2u  /* member may be absent */

struct vmember;

struct vspec {
	enum vkind kind;
	unsigned flags;
	size_t max;		       /* VK_ARRAY elements, VK_STRMAP members, VK_STR bytes
					  (0: any) */
	const struct vspec *elem;      /* VK_ARRAY */
	const struct vmember *members; /* VK_OBJECT, NULL-name terminated */
	const char *const *values;     /* VK_STR: the allowed values, NULL-terminated */
};

struct vmember {
	const char *name;
	struct vspec s;
};

#define GV_CPUS 8192
#define GV_LEVELS 64
#define GV_CACHES 64
#define GV_NODES 1024
#define GV_NAMES 1024

static const struct vspec v_str = { VK_STR, 0, 0, NULL, NULL, NULL };
/* a file name the guest lists (NAME_MAX) */
static const struct vspec v_name = { VK_STR, 0, 255, NULL, NULL, NULL };
static const struct vspec v_int = { VK_INT, 0, 0, NULL, NULL, NULL };
#define STR                                    \
	{                                      \
		VK_STR, 0, 0, NULL, NULL, NULL \
	}
#define STRN                                         \
	{                                            \
		VK_STR, VF_NULL, 0, NULL, NULL, NULL \
	}
#define BOOL                                    \
	{                                       \
		VK_BOOL, 0, 0, NULL, NULL, NULL \
	}
#define INT                                    \
	{                                      \
		VK_INT, 0, 0, NULL, NULL, NULL \
	}
#define INTN                                         \
	{                                            \
		VK_INT, VF_NULL, 0, NULL, NULL, NULL \
	}
#define ARR(max, e)                             \
	{                                       \
		VK_ARRAY, 0, max, e, NULL, NULL \
	}
#define OBJ(m)                                 \
	{                                      \
		VK_OBJECT, 0, 0, NULL, m, NULL \
	}
#define OBJN(m)                                      \
	{                                            \
		VK_OBJECT, VF_NULL, 0, NULL, m, NULL \
	}
#define END               \
	{                 \
		NULL, STR \
	}

/* the sysctl names of /proc/sys/kernel and /proc/sys/vm (guestview.h's
 * VTB_GV_MAX_SYSCTLS); null: not listed.  Absent from older agents. */
#define GV_SYSCTLS 512
static const struct vmember m_sysctls[] = {
	{ "kernel", { VK_ARRAY, VF_NULL | VF_OPT, GV_SYSCTLS, &v_name, NULL, NULL } },
	{ "vm", { VK_ARRAY, VF_NULL | VF_OPT, GV_SYSCTLS, &v_name, NULL, NULL } },
	END,
};

static const struct vmember m_probe[] = {
	{ "debugfs", BOOL },
	{ "knobs", ARR(GV_NAMES, &v_name) },
	{ "domains_dir", BOOL },
	{ "verbose", STRN },
	{ "verbose_set", BOOL },
	{ "domain_knobs", ARR(GV_NAMES, &v_name) },
	{ "levels", ARR(GV_LEVELS, &v_str) },
	{ "schedstats", STRN },
	{ "schedstat_version", INTN },
	{ "cgroup2", BOOL },
	{ "cpuset_partition", BOOL },
	{ "sysctls", { VK_OBJECT, VF_OPT, 0, NULL, m_sysctls, NULL } },
	END,
};

static const struct vmember m_setting[] = {
	{ "key", STR }, { "path", STR }, { "want", STR }, { "read", STRN }, { "ok", BOOL }, END,
};
static const struct vspec v_setting = OBJ(m_setting);
static const struct vmember m_token[] = { { "token", STR }, { "present", BOOL }, END };
static const struct vspec v_token = OBJ(m_token);
static const struct vmember m_sched[] = {
	{ "name", STR },
	{ "ok", BOOL },
	{ "settings", ARR((size_t)GV_CPUS *GV_LEVELS, &v_setting) },
	{ "cmdline", ARR(GV_NAMES, &v_token) },
	END,
};

static const struct vmember m_cache[] = {
	{ "index", INT }, { "level", STRN },  { "type", STRN },
	{ "size", STRN }, { "shared", STRN }, END,
};
static const struct vspec v_cache = OBJ(m_cache);
static const struct vmember m_cpu[] = {
	{ "cpu", INT },
	{ "online", BOOL },
	{ "core_id", STRN },
	{ "die_id", STRN },
	{ "package_id", STRN },
	{ "thread_siblings", STRN },
	{ "core_siblings", STRN },
	{ "die_cpus", STRN },
	{ "package_cpus", STRN },
	{ "cluster_cpus", STRN },
	{ "caches", ARR(GV_CACHES, &v_cache) },
	END,
};
static const struct vspec v_cpu = OBJ(m_cpu);
static const struct vmember m_node[] = {
	{ "node", INT },
	{ "cpus", STRN },
	{ "distance", STRN },
	END,
};
static const struct vspec v_node = OBJ(m_node);
static const struct vmember m_level[] = {
	{ "domain", INT },
	{ "name", STRN },
	{ "flags", STRN },
	{ "knobs", { VK_STRMAP, 0, GV_LEVELS, NULL, NULL, NULL } },
	END,
};
static const struct vspec v_level = OBJ(m_level);
static const struct vmember m_domcpu[] = {
	{ "cpu", INT },
	{ "levels", ARR(GV_LEVELS, &v_level) },
	END,
};
static const struct vspec v_domcpu = OBJ(m_domcpu);
static const struct vmember m_ssdom[] = {
	{ "cpu", INT },
	{ "domain", INT },
	{ "name", { VK_STR, VF_NULL | VF_OPT, 0, NULL, NULL, NULL } },
	{ "mask", STR },
	END,
};
static const struct vspec v_ssdom = OBJ(m_ssdom);
static const struct vmember m_schedstat[] = {
	{ "version", INTN },
	{ "domains", ARR((size_t)GV_CPUS *GV_LEVELS, &v_ssdom) },
	END,
};
static const struct vmember m_cpuid[] = {
	{ "vendor", STR },
	{ "family", INT },
	{ "model", INT },
	{ "codename", STR },
	{ "brand", STR },
	{ "num_cores", INT },
	{ "num_logical_cpus", INT },
	{ "total_logical_cpus", INT },
	{ "l3_kb", INTN },
	END,
};
static const struct vmember m_view[] = {
	{ "cpus", ARR(GV_CPUS, &v_cpu) },
	{ "nodes", ARR(GV_NODES, &v_node) },
	{ "domains", ARR(GV_CPUS, &v_domcpu) },
	{ "schedstat", OBJN(m_schedstat) },
	{ "cpuid", OBJN(m_cpuid) },
	END,
};

static const char *const steal_phases[] = { "before", "after", NULL };
static const struct vmember m_steal[] = {
	{ "phase", { VK_STR, 0, 0, NULL, NULL, steal_phases } },
	{ "user_hz", INT },
	{ "ticks", INTN },
	{ "per_cpu", ARR(GV_CPUS, &v_int) },
	END,
};

/* The per-cell scheduler counters (issue 28): what a guest writes is
 * bounded here, whatever its kernel printed. */
#define SS_LEVELS 16
#define SS_NOTES 64
#define OPTINT                                      \
	{                                           \
		VK_INT, VF_OPT, 0, NULL, NULL, NULL \
	}
static const struct vmember m_ss_lb[] = {
	{ "count", INT },	{ "balanced", INT },	 { "failed", INT },
	{ "imbalance", OPTINT }, { "imb_load", OPTINT }, { "imb_util", OPTINT },
	{ "imb_task", OPTINT },	{ "imb_misfit", OPTINT }, { "gained", INT },
	{ "hot_gained", INT },	{ "nobusyq", INT },	 { "nobusyg", INT },
	END,
};
static const struct vmember m_ss_lbs[] = {
	{ "busy", OBJ(m_ss_lb) },
	{ "idle", OBJ(m_ss_lb) },
	{ "newidle", OBJ(m_ss_lb) },
	END,
};
static const struct vmember m_ss_alb[] = {
	{ "count", INT }, { "failed", INT }, { "pushed", INT }, END,
};
static const struct vmember m_ss_sb[] = {
	{ "count", INT }, { "balanced", INT }, { "pushed", INT }, END,
};
static const struct vmember m_ss_ttwu[] = {
	{ "remote", INT }, { "affine", INT }, { "balance", INT }, END,
};
static const struct vmember m_ss_level[] = {
	{ "level", { VK_STR, 0, 32, NULL, NULL, NULL } },
	{ "cpus", INT },
	{ "lb", OBJ(m_ss_lbs) },
	{ "alb", OBJ(m_ss_alb) },
	{ "sbe", OBJ(m_ss_sb) },
	{ "sbf", OBJ(m_ss_sb) },
	{ "ttwu", OBJ(m_ss_ttwu) },
	END,
};
static const struct vspec v_ss_level = OBJ(m_ss_level);
static const struct vmember m_ss_cpu[] = {
	{ "cpu", INT },		{ "yield", INT },   { "sched", INT },  { "goidle", INT },
	{ "ttwu", INT },	{ "ttwu_local", INT }, { "run_ns", INT }, { "wait_ns", INT },
	{ "slices", INT },	{ "steal", OPTINT }, END,
};
static const struct vspec v_ss_cpu = OBJ(m_ss_cpu);
static const struct vspec v_ss_note = { VK_STR, 0, 512, NULL, NULL, NULL };
static const struct vmember m_schedstat_rec[] = {
	{ "cell", STR },
	{ "seconds", { VK_NUM, 0, 0, NULL, NULL, NULL } },
	{ "version", INTN },
	{ "user_hz", OPTINT },
	{ "levels", ARR(SS_LEVELS, &v_ss_level) },
	{ "cpus", ARR(GV_CPUS, &v_ss_cpu) },
	{ "notes", ARR(SS_NOTES, &v_ss_note) },
	{ "error", { VK_STR, VF_NULL | VF_OPT, 512, NULL, NULL, NULL } },
	{ "cost_ns", OPTINT },
	END,
};

static const char *kind_name(const struct vspec *s)
{
	static const char *const names[] = { "a string",	     "a boolean",
					     "a non-negative integer", "an array",
					     "an object",	     "an object of strings",
					     "a finite non-negative number" };

	return names[s->kind];
}

/*
 * Checks @v against @s; on the first problem adds an error naming the
 * member's path (kept in @path, restored on return) and returns false.
 */
static bool vcheck(struct vtb_rec_parser *p, const char *type, const struct vspec *s, json_t *v,
		   struct vtb_strbuf *path)
{
	size_t len = path->len, i;
	const char *k;
	json_t *c;
	bool ok = true;

	if (json_is_null(v) && (s->flags & VF_NULL))
		return true;
	switch (s->kind) {
	case VK_STR:
		ok = json_is_string(v);
		if (ok && s->max && json_string_length(v) > s->max) {
			add_error(p, "line %zu: %s record: %s is longer than %zu bytes", p->lineno,
				  type, vtb_strbuf_str(path), s->max);
			return false;
		}
		if (ok && s->values) {
			for (i = 0; s->values[i] && strcmp(s->values[i], json_string_value(v)); i++)
				;
			if (!s->values[i]) {
				char *q = quote(json_string_value(v), json_string_length(v));

				add_error(p, "line %zu: %s record: %s is '%s'", p->lineno, type,
					  vtb_strbuf_str(path), QUOTED(q));
				free(q);
				return false;
			}
		}
		break;
	case VK_BOOL:
		ok = json_is_boolean(v);
		break;
	case VK_INT:
		ok = json_is_integer(v) && json_integer_value(v) >= 0;
		break;
	case VK_NUM:
		ok = json_is_number(v) && isfinite(json_number_value(v)) &&
		     json_number_value(v) >= 0;
		break;
	case VK_ARRAY:
		ok = json_is_array(v);
		if (ok && json_array_size(v) > s->max) {
			add_error(p, "line %zu: %s record: %s has %zu elements, at most %zu",
				  p->lineno, type, vtb_strbuf_str(path), json_array_size(v),
				  s->max);
			return false;
		}
		for (i = 0; ok && i < json_array_size(v); i++) {
			if (vtb_strbuf_addf(path, "[%zu]", i)) {
				oom(p);
				return false;
			}
			ok = vcheck(p, type, s->elem, json_array_get(v, i), path);
			path->len = len;
			path->buf[len] = '\0';
			if (!ok)
				return false;
		}
		break;
	case VK_STRMAP:
		ok = json_is_object(v);
		if (ok && json_object_size(v) > s->max) {
			add_error(p, "line %zu: %s record: %s has %zu members, at most %zu",
				  p->lineno, type, vtb_strbuf_str(path), json_object_size(v),
				  s->max);
			return false;
		}
		if (ok)
			json_object_foreach(v, k, c) if (!json_is_string(c) && !json_is_null(c))
				ok = false;
		break;
	case VK_OBJECT:
		ok = json_is_object(v);
		for (i = 0; ok && s->members[i].name; i++) {
			const struct vmember *m = &s->members[i];

			c = json_object_get(v, m->name);
			if (!c && (m->s.flags & VF_OPT))
				continue;
			if (vtb_strbuf_addf(path, "%s%s", len ? "." : "", m->name)) {
				oom(p);
				return false;
			}
			if (!c) {
				add_error(p, "line %zu: %s record: %s missing", p->lineno, type,
					  vtb_strbuf_str(path));
				return false;
			}
			ok = vcheck(p, type, &m->s, c, path);
			path->len = len;
			path->buf[len] = '\0';
			if (!ok)
				return false;
		}
		if (!ok && !json_is_object(v))
			break;
		return ok;
	}
	if (!ok)
		add_error(p, "line %zu: %s record: %s is not %s%s", p->lineno, type,
			  vtb_strbuf_str(path), kind_name(s), s->flags & VF_NULL ? " or null" : "");
	return ok;
}

/* Validates a guest record and keeps it in *@slot (the first one). */
static void rec_guest(struct vtb_rec_parser *p, json_t *o, const char *type,
		      const struct vmember *members, json_t **slot)
{
	struct vspec s = { VK_OBJECT, 0, 0, NULL, members, NULL };
	struct vtb_strbuf path = VTB_STRBUF_INIT;
	bool ok;

	if (vtb_strbuf_addstr(&path, "")) {
		oom(p);
		return;
	}
	ok = vcheck(p, type, &s, o, &path);
	vtb_strbuf_release(&path);
	if (!ok)
		return;
	if (*slot) {
		add_error(p, "line %zu: duplicate %s record", p->lineno, type);
		return;
	}
	*slot = json_incref(o);
	p->r.records++;
}

static void rec_probe(struct vtb_rec_parser *p, json_t *o)
{
	rec_guest(p, o, "probe", m_probe, &p->r.probe);
}

static void rec_sched(struct vtb_rec_parser *p, json_t *o)
{
	rec_guest(p, o, "sched", m_sched, &p->r.sched);
}

static void rec_view(struct vtb_rec_parser *p, json_t *o)
{
	rec_guest(p, o, "guest_view", m_view, &p->r.view);
}

static void rec_steal(struct vtb_rec_parser *p, json_t *o)
{
	const char *phase = field_str(o, "phase");
	bool after = phase && !strcmp(phase, "after");

	rec_guest(p, o, after ? "steal (after)" : "steal", m_steal,
		  after ? &p->r.steal_after : &p->r.steal_before);
}

/* A cell's scheduler counters: once, while the cell is open. */
static void rec_schedstat(struct vtb_rec_parser *p, json_t *o)
{
	struct vspec s = { VK_OBJECT, 0, 0, NULL, m_schedstat_rec, NULL };
	struct vtb_strbuf path = VTB_STRBUF_INIT;
	struct vtb_rs_cell *c;
	long idx;
	bool ok;

	idx = record_cell(p, o, "schedstat");
	if (idx < 0 || !cell_open(p, idx, "schedstat"))
		return;
	if (vtb_strbuf_addstr(&path, "")) {
		oom(p);
		return;
	}
	ok = vcheck(p, "schedstat", &s, o, &path);
	vtb_strbuf_release(&path);
	if (!ok)
		return;
	c = &p->r.cells[idx];
	if (c->schedstat) {
		char *q = quote(c->cell, strlen(c->cell));

		add_error(p, "line %zu: duplicate schedstat record for '%s'", p->lineno, QUOTED(q));
		free(q);
		return;
	}
	c->schedstat = json_incref(o);
	p->r.records++;
}

static void handle_record(struct vtb_rec_parser *p, json_t *o, bool in_chunk);

static void chunk_drop(struct vtb_rec_parser *p, bool broken)
{
	if (broken)
		p->broken_id = p->ch.id;
	p->ch.active = false;
	vtb_strbuf_release(&p->ch.buf);
}

static void rec_chunk(struct vtb_rec_parser *p, json_t *o)
{
	json_t *idv = json_object_get(o, "id"), *seqv = json_object_get(o, "seq");
	json_t *lastv = json_object_get(o, "last");
	json_t *rec;
	json_error_t jerr;
	const char *data;
	long long id, seq;
	size_t dlen;

	data = field_str(o, "data");
	if (!json_is_integer(idv) || !json_is_integer(seqv) || !json_is_boolean(lastv) || !data) {
		add_error(
			p,
			"line %zu: chunk record: needs integers 'id' and 'seq', boolean 'last' and string 'data'",
			p->lineno);
		return;
	}
	id = json_integer_value(idv);
	seq = json_integer_value(seqv);
	dlen = json_string_length(json_object_get(o, "data"));
	if (id < 0 || seq < 0) {
		add_error(p, "line %zu: chunk record: negative id or seq", p->lineno);
		return;
	}
	if (p->ch.active && id != p->ch.id) {
		add_error(p, "line %zu: chunk sequence %lld unfinished when chunks of %lld began",
			  p->lineno, p->ch.id, id);
		chunk_drop(p, true);
	}
	if (!p->ch.active) {
		if (id == p->broken_id)
			return; /* already reported */
		if (id <= p->max_chunk_id) {
			add_error(p, "line %zu: chunk id %lld reused", p->lineno, id);
			return;
		}
		p->max_chunk_id = id;
		if (seq != 0) {
			add_error(p, "line %zu: chunk sequence %lld starts at seq %lld", p->lineno,
				  id, seq);
			p->broken_id = id;
			return;
		}
		p->ch.active = true;
		p->ch.id = id;
		p->ch.next_seq = 0;
	}
	if (seq != p->ch.next_seq) {
		if (seq < p->ch.next_seq)
			add_error(p, "line %zu: chunk sequence %lld: seq %lld repeated", p->lineno,
				  id, seq);
		else
			add_error(p,
				  "line %zu: chunk sequence %lld: gap, expected seq %lld, got %lld",
				  p->lineno, id, p->ch.next_seq, seq);
		chunk_drop(p, true);
		return;
	}
	if (dlen > p->lim.max_payload || p->ch.buf.len > p->lim.max_payload - dlen) {
		add_error(p, "line %zu: chunk sequence %lld: payload over %zu bytes", p->lineno, id,
			  p->lim.max_payload);
		chunk_drop(p, true);
		return;
	}
	if (vtb_strbuf_add(&p->ch.buf, data, dlen)) {
		oom(p);
		chunk_drop(p, true);
		return;
	}
	p->ch.next_seq++;
	if (!json_is_true(lastv))
		return;
	rec = json_loadb(p->ch.buf.buf ? p->ch.buf.buf : "", p->ch.buf.len, JSON_REJECT_DUPLICATES,
			 &jerr);
	if (!rec) {
		char *q = quote(jerr.text, strlen(jerr.text));

		add_error(p, "line %zu: chunk sequence %lld: invalid JSON: %s", p->lineno, id,
			  QUOTED(q));
		free(q);
	}
	chunk_drop(p, false);
	if (rec) {
		handle_record(p, rec, true);
		json_decref(rec);
	}
}

static const struct {
	const char *type;
	void (*fn)(struct vtb_rec_parser *p, json_t *o);
} rec_types[] = {
	{ "cell", rec_cell },	  { "cell_end", rec_cell_end }, { "chunk", rec_chunk },
	{ "end", rec_end },	  { "error", rec_error },	{ "guest_view", rec_view },
	{ "header", rec_header }, { "hist", rec_hist },		{ "probe", rec_probe },
	{ "sample", rec_sample }, { "sched", rec_sched },	{ "schedstat", rec_schedstat },
	{ "steal", rec_steal },
};

/* Nesting depth of a JSON value, stopping once past @limit.  SQLite's
 * json_valid() refuses more than 2000 levels, which jansson accepts: a
 * deep record must be an error of the boot, not a failed commit. */
static size_t json_depth(json_t *v, size_t limit)
{
	size_t d, max = 0, i;
	const char *k;
	json_t *c;

	if (!limit)
		return 1;
	if (json_is_object(v)) {
		json_object_foreach(v, k, c)
		{
			d = json_depth(c, limit - 1);
			if (d > max)
				max = d;
			if (max >= limit)
				break;
		}
		return max + 1;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, c)
		{
			d = json_depth(c, limit - 1);
			if (d > max)
				max = d;
			if (max >= limit)
				break;
		}
		return max + 1;
	}
	return 0;
}

#define MAX_JSON_DEPTH 32

static void handle_record(struct vtb_rec_parser *p, json_t *o, bool in_chunk)
{
	const char *type;
	size_t i;
	char *q;

	if (!json_is_object(o)) {
		add_error(p, "line %zu: record is not a JSON object", p->lineno);
		return;
	}
	if (json_depth(o, MAX_JSON_DEPTH + 1) > MAX_JSON_DEPTH) {
		add_error(p, "line %zu: record nested deeper than %d levels", p->lineno,
			  MAX_JSON_DEPTH);
		return;
	}
	type = field_str(o, "type");
	if (!type) {
		add_error(p, "line %zu: record without a string 'type'", p->lineno);
		return;
	}
	if (++p->seen > p->lim.max_records) {
		add_error(p, "line %zu: more than %zu records, rest of the stream ignored",
			  p->lineno, p->lim.max_records);
		p->stopped = true;
		return;
	}
	if (in_chunk && strcmp(type, "chunk") == 0) {
		add_error(p, "line %zu: chunk record inside a chunked payload", p->lineno);
		return;
	}
	if (p->r.ended) {
		q = quote(type, strlen(type));
		add_error(p, "line %zu: %s record after the end record", p->lineno, QUOTED(q));
		free(q);
		return;
	}
	/* the header comes first, once: what precedes it, or a header after
	 * other records, is an error of the boot */
	if (strcmp(type, "chunk") != 0) {
		if (strcmp(type, "header") == 0 && p->other_seen && !p->r.header) {
			add_error(p, "line %zu: header record after other records", p->lineno);
			return;
		}
		if (strcmp(type, "header") != 0) {
			if (!p->r.header && !p->headless_seen) {
				add_error(p, "line %zu: record before the header record",
					  p->lineno);
				p->headless_seen = true;
			}
			p->other_seen = true;
		}
	}
	for (i = 0; i < VTB_ARRAY_SIZE(rec_types); i++) {
		if (strcmp(rec_types[i].type, type) == 0) {
			rec_types[i].fn(p, o);
			return;
		}
	}
	q = quote(type, strlen(type));
	add_error(p, "line %zu: unknown record type '%s'", p->lineno, QUOTED(q));
	free(q);
}

/* ---- framing ---- */

static bool is_lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void handle_line(struct vtb_rec_parser *p, const char *line, size_t len)
{
	const char *rest, *sp, *json, *crc;
	size_t rlen, nlen, jlen, i;
	uint32_t want = 0;
	json_error_t jerr;
	json_t *o;
	char *q;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len < 4 || memcmp(line, "@vtb", 4) != 0) {
		p->r.noise_lines++;
		return;
	}
	if (len < MAGIC_LEN || memcmp(line, MAGIC_PREFIX, MAGIC_LEN) != 0) {
		sp = memchr(line, ' ', len);
		q = quote(line, sp ? (size_t)(sp - line) : len);
		add_error(p, "line %zu: unsupported record framing '%s' (expected %s)", p->lineno,
			  QUOTED(q), VTB_REC_MAGIC);
		free(q);
		return;
	}
	rest = line + MAGIC_LEN;
	rlen = len - MAGIC_LEN;
	sp = memchr(rest, ' ', rlen);
	/* "<nonce> <json> <crc>": two spaces at least, an 8-digit crc. */
	if (!sp || rlen < (size_t)(sp - rest) + 1 + 1 + 1 + 8 || rest[rlen - 9] != ' ') {
		add_error(p, "line %zu: malformed record frame", p->lineno);
		return;
	}
	nlen = (size_t)(sp - rest);
	if (nlen != strlen(p->nonce) || memcmp(rest, p->nonce, nlen) != 0) {
		q = quote(rest, nlen);
		add_error(p, "line %zu: record with nonce '%s', expected '%s'", p->lineno,
			  QUOTED(q), p->nonce);
		free(q);
		return;
	}
	json = sp + 1;
	crc = rest + rlen - 8;
	jlen = (size_t)(crc - 1 - json);
	if (!is_lower_hex(crc, 8)) {
		add_error(p, "line %zu: malformed record crc", p->lineno);
		return;
	}
	for (i = 0; i < 8; i++)
		want = (want << 4) | (uint32_t)(crc[i] <= '9' ? crc[i] - '0' : crc[i] - 'a' + 10);
	if (jlen > VTB_REC_MAX_JSON) {
		add_error(p, "line %zu: record of %zu bytes exceeds %d", p->lineno, jlen,
			  VTB_REC_MAX_JSON);
		return;
	}
	if (vtb_crc32(json, jlen) != want) {
		add_error(p, "line %zu: record crc mismatch", p->lineno);
		return;
	}
	o = json_loadb(json, jlen, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		q = quote(jerr.text, strlen(jerr.text));
		add_error(p, "line %zu: invalid JSON in record: %s", p->lineno, QUOTED(q));
		free(q);
		return;
	}
	handle_record(p, o, false);
	json_decref(o);
}

static int line_append(struct vtb_rec_parser *p, const char *s, size_t n)
{
	if (!n)
		return 0;
	if (p->line_len + n > p->line_cap) {
		size_t cap = p->line_cap ? p->line_cap : 4096;
		char *nl;

		while (cap < p->line_len + n)
			cap *= 2;
		if (cap > p->lim.max_line)
			cap = p->lim.max_line;
		nl = realloc(p->line, cap);
		if (!nl)
			return -1;
		p->line = nl;
		p->line_cap = cap;
	}
	memcpy(p->line + p->line_len, s, n);
	p->line_len += n;
	return 0;
}

struct vtb_rec_parser *vtb_rec_parser_new(const char *nonce, const struct vtb_rec_limits *lim)
{
	struct vtb_rec_parser *p = calloc(1, sizeof(*p));
	const struct vtb_rec_limits *d = &vtb_rec_default_limits;

	if (!p)
		return NULL;
	p->nonce = strdup(nonce ? nonce : "0");
	if (!p->nonce) {
		free(p);
		return NULL;
	}
	p->lim = lim ? *lim : *d;
	/* A zero limit means the default. */
	if (!p->lim.max_line)
		p->lim.max_line = d->max_line;
	if (!p->lim.max_records)
		p->lim.max_records = d->max_records;
	if (!p->lim.max_errors)
		p->lim.max_errors = d->max_errors;
	if (!p->lim.max_payload)
		p->lim.max_payload = d->max_payload;
	if (!p->lim.max_total)
		p->lim.max_total = d->max_total;
	if (vtb_sipkey_random(&p->key) < 0) {
		free(p->nonce);
		free(p);
		return NULL;
	}
	p->lineno = 1;
	p->max_chunk_id = -1;
	p->broken_id = -1;
	return p;
}

void vtb_rec_parser_set_deadline(struct vtb_rec_parser *p, uint64_t deadline_ns)
{
	p->deadline = deadline_ns;
	p->to_clock = 0;
}

/* Past the deadline (the clock read every DEADLINE_LINES lines): parsing
 * stops, the error says where, and the rest of the stream is ignored. */
static bool past_deadline(struct vtb_rec_parser *p)
{
	if (!p->deadline || p->to_clock--)
		return false;
	p->to_clock = DEADLINE_LINES - 1;
	if (vtb_now_ns() < p->deadline)
		return false;
	add_error(
		p,
		"record parsing stopped at the boot's deadline after %zu lines, rest of the stream ignored",
		p->lineno - 1);
	p->stopped = true;
	return true;
}

int vtb_rec_parser_feed(struct vtb_rec_parser *p, const void *data, size_t len)
{
	const char *s = data;
	bool over = false;

	if (p->stopped || p->finished)
		return -1;
	if (len > p->lim.max_total - p->total) {
		len = p->lim.max_total - p->total;
		over = true;
	}
	p->total += len;
	while (len > 0 && !p->stopped) {
		const char *nl = memchr(s, '\n', len);
		size_t seg = nl ? (size_t)(nl - s) : len;

		if (p->skipping) {
			/* nothing kept */
		} else if (p->line_len + seg > p->lim.max_line) {
			add_error(p, "line %zu: longer than %zu bytes, skipped", p->lineno,
				  p->lim.max_line);
			p->line_len = 0;
			p->skipping = true;
		} else if (line_append(p, s, seg)) {
			add_error(p, "line %zu: out of memory, parsing stopped", p->lineno);
			p->stopped = true;
			return -1;
		}
		if (!nl)
			break;
		if (past_deadline(p))
			break;
		if (!p->skipping)
			handle_line(p, p->line, p->line_len);
		p->skipping = false;
		p->line_len = 0;
		p->lineno++;
		s = nl + 1;
		len -= seg + 1;
	}
	if (over && !p->stopped) {
		add_error(p, "stream longer than %zu bytes, rest ignored", p->lim.max_total);
		p->stopped = true;
	}
	return p->stopped ? -1 : 0;
}

void vtb_rec_parser_finish(struct vtb_rec_parser *p)
{
	if (p->finished)
		return;
	p->finished = true;
	if (!p->stopped && !p->skipping && p->line_len > 0) {
		if (p->line_len >= 4 && memcmp(p->line, "@vtb", 4) == 0)
			add_error(p, "line %zu: truncated record at end of stream", p->lineno);
		else
			p->r.noise_lines++;
	}
	if (!p->stopped && p->ch.active)
		add_error(p, "unfinished chunk sequence %lld at end of stream", p->ch.id);
	chunk_drop(p, false);
	p->line_len = 0;
	for (size_t i = 0; i < p->r.n_cells; i++) {
		struct vtb_rs_cell *c = &p->r.cells[i];
		size_t d = p->cell_errs[i].dropped;
		char *e;

		if (!d)
			continue;
		e = vtb_asprintf("%s; and %zu more error%s (not kept)", c->error ? c->error : "", d,
				 d == 1 ? "" : "s");
		if (!e) {
			oom(p);
			continue;
		}
		free(c->error);
		c->error = e;
	}
}

const struct vtb_boot_records *vtb_rec_parser_result(const struct vtb_rec_parser *p)
{
	return &p->r;
}

void vtb_rec_parser_free(struct vtb_rec_parser *p)
{
	size_t i;

	if (!p)
		return;
	json_decref(p->r.header);
	json_decref(p->r.probe);
	json_decref(p->r.sched);
	json_decref(p->r.view);
	json_decref(p->r.steal_before);
	json_decref(p->r.steal_after);
	for (i = 0; i < p->r.n_cells; i++) {
		struct vtb_rs_cell *c = &p->r.cells[i];

		free(c->cell);
		free(c->workload);
		free(c->status);
		free(c->error);
		free(c->info_json);
		json_decref(c->schedstat);
	}
	free(p->r.cells);
	for (i = 0; i < p->r.n_samples; i++) {
		free(p->r.samples[i].cell);
		free(p->r.samples[i].metric);
		free(p->r.samples[i].unit);
	}
	free(p->r.samples);
	for (i = 0; i < p->r.n_hists; i++) {
		struct vtb_rs_hist *h = &p->r.hists[i];

		free(h->cell);
		free(h->metric);
		free(h->unit);
		free(h->params_json);
		free(h->buckets_json);
	}
	free(p->r.hists);
	for (i = 0; i < p->r.n_errors; i++)
		free(p->r.errors[i]);
	free(p->r.errors);
	free(p->r.end_status);
	free(p->cellmap);
	free(p->samplemap);
	free(p->cell_ended);
	free(p->cell_errs);
	free(p->line);
	vtb_strbuf_release(&p->ch.buf);
	free(p->nonce);
	free(p);
}
