/* SPDX-License-Identifier: MIT */
/*
 * The compare model's internals, shared by the files of harness/compare
 * and by nothing else: a campaign as loaded (its series, configurations
 * and cells), the pairs that become rows, and the document's small JSON
 * helpers.
 *
 *   campaign.c  a campaign read from the store into series and cells
 *   pair.c      the selection: which configurations and cells pair
 *   rows.c      a row per pair: summaries, the statistic, the verdict
 *   evidence.c  what the guests saw: topology checks, placement, STREAM
 *   merged.c    histograms and c2c matrices merged over boots
 *   compare.c   the document, assembled; the verdicts read back
 */
#ifndef VTB_COMPARE_PRIV_H
#define VTB_COMPARE_PRIV_H

#include <math.h>

#include "compare.h"

/* One configuration x cell x metric of one campaign. */
struct series {
	char *config_key, *label, *kind, *cell_key, *cell_name, *workload, *metric, *unit;
	int better, cpus;
	char *pcpus;
	double *v;
	int *rep;      /* per value: its boot's rep */
	int64_t *boot; /* per value: its boot's id */
	size_t n, cap;
	enum vtb_metric_class k;
	/* the outlier screen (vtb_screen): aside[i] set aside; kv, kn the
	 * values kept (kv is v when none is) */
	bool *aside;
	size_t naside;
	double *kv;
	size_t kn;
	struct vtb_summary sum; /* of the values kept */
	bool summed;
};

struct config {
	char *key, *label, *kind, *params_json, *cpus;
	json_t *params;
	long ncpus; /* vcpus (VM) or cpus (baseline) */
	bool runnable;
};

/* One cell of one configuration. */
struct cellinfo {
	char *config_key, *cell_key, *cell_name, *workload;
	size_t lo, hi; /* its series: [lo, hi) of the campaign's */
};

/* A campaign as loaded. */
struct campaign {
	struct vtb_store *st; /* where it is (a missing row's reason is read then) */
	int64_t id;
	char *uuid;
	json_t *info; /* the document's "campaign" object */
	struct series *s;
	size_t n, cap;
	struct config *c;
	size_t nc;
	struct cellinfo *ci;
	size_t nci, capci;
	/* filters and what they saw */
	const char *metric, *workload;
	size_t samples_seen, workload_seen;
	/* the scheduler evidence (evidence/... samples, issue 28) per
	 * "CONFIG\tCELL": {"cell":NAME,"cell_key":KEY,"m":{METRIC:
	 * [sum, n, unit]}}; NULL until the first */
	json_t *sched;
};

/* ---- JSON helpers ---- */

/* Finite numbers as reals, everything else as null: never NaN in JSON. */
static inline json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static inline json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Sets @k of @o to the new reference @v; a NULL @v is an allocation
 * failure, remembered in *@fail. */
static inline void put(json_t *o, const char *k, json_t *v, bool *fail)
{
	if (!v || json_object_set_new(o, k, v))
		*fail = true;
}

static inline void push(json_t *a, json_t *v, bool *fail)
{
	if (!v || json_array_append_new(a, v))
		*fail = true;
}

/* ---- a campaign (campaign.c) ---- */

/* @p (*@cap elements of @size bytes) with room for element @n: @p
 * itself, or reallocated to twice its capacity (@first at first) and
 * *@cap updated.  NULL when out of memory, @p left as it was. */
void *cm_grow(void *p, size_t *cap, size_t n, size_t size, size_t first);

/*
 * Resolves @spec (NULL: the latest campaign) in @st (@db its name, for
 * messages) and loads it, narrowed by o->metric and o->workload.  An
 * input problem sets *bad.
 */
int cm_campaign_load(struct vtb_store *st, const char *db, const char *spec,
		     const struct vtb_compare_opts *o, struct campaign *c, bool *bad);
void cm_campaign_release(struct campaign *c);

/* The position of configuration @key in @c, or -1. */
long cm_config_index(const struct campaign *c, const char *key);

/* Strings to positions: sorted keys, binary search. */
struct ent {
	char *k;
	size_t i;
};

struct index {
	struct ent *e;
	size_t n;
};

/* The cells of @c by (configuration, cell key), or by name. */
int cm_index_cells(const struct campaign *c, bool by_name, struct index *ix);
void cm_index_release(struct index *ix);
/* The position for (@a, @b), or -1 (-2: no memory). */
long cm_index_find(const struct index *ix, const char *a, const char *b);

/* ---- pairing (pair.c) ---- */

enum { P_OK, P_MISSING, P_UNITS };

/* A row to be: a metric of a cell on both sides (P_OK), on one side only
 * or on none (P_MISSING), or with units that differ (P_UNITS). */
struct pair {
	long b, x;	 /* series of the base campaign, of the main campaign; -1: none */
	size_t bci, xci; /* their cells */
	int kind;
};

struct pairs {
	struct pair *p;
	size_t n, cap;
};

/* Each VM configuration's own baseline in base[] (-1: none). */
void cm_own_baselines(const struct campaign *c, long *base);
/* --baseline SPEC: every configuration's base[] is the one SPEC names. */
int cm_named_baseline(const struct campaign *c, const char *spec, long *base, bool *bad);
/* --axis NAME: the first of each group equal but for the axis is the
 * others' base[]. */
int cm_axis_baselines(const struct campaign *c, const char *axis, long *base, bool *bad);
/* Is @axis one that differs between campaigns (host, kernel)? */
bool cm_campaign_axis(const char *axis);
bool cm_guest_kernel_axis(const char *axis);
/* --axis host|kernel in one database: the uuid of the campaign to
 * compare @x with (*uuid, malloc'ed). */
int cm_find_other(struct vtb_store *st, const char *db, const struct campaign *x, const char *axis,
		  char **uuid, bool *bad);
/* The rows to be of @xc against @bc: within one campaign by base[],
 * across two (@base NULL) by configuration key. */
int cm_pair_campaigns(const struct campaign *bc, const struct campaign *xc, const long *base,
		      bool metric_filter, struct pairs *ps);
/* What would compare when nothing did (the document's "advice"); NULL
 * when out of memory. */
json_t *cm_advice_json(const struct campaign *c);

/* ---- the document's parts ---- */

/* A row as kept between its verdict and its JSON: its statistic and
 * verdict, why it has none, why a tail metric was judged per boot. */
struct cm_row {
	struct vtb_comparison c; /* c.tail is NULL once the verdict is read */
	char *reason, *tail_note;
	bool noisy;
};

/* The rows of a comparison: what each row's JSON is made from, one row
 * at a time (cm_row_json), so that no document holds them all. */
struct cm_rows {
	struct campaign *bc, *xc; /* the base side's campaign, the main one (may be bc) */
	const struct pairs *ps;	  /* row i is pair i */
	const struct vtb_compare_opts *o;
	bool cross;
	struct cm_row *r;
	size_t n;
};

/* rows.c: every row judged into @R (which borrows @bc, @xc, @ps and @o
 * until cm_rows_release) and the table's "summary" into @doc.  @family:
 * NULL, or the rows of the same comparison without --metric and
 * --workload (--family all), whose q-values and level the rows take.
 * On failure too, @R is to be released. */
int cm_build_rows(struct campaign *bc, struct campaign *xc, const struct pairs *ps,
		  const struct vtb_compare_opts *o, bool cross, const struct cm_rows *family,
		  struct cm_rows *R, json_t *doc);
/* Row @i of @R as the document's "rows" has it (a new reference); NULL
 * with vtb_error() when out of memory. */
json_t *cm_row_json(const struct cm_rows *R, size_t i);
void cm_rows_release(struct cm_rows *R);
/* Every series of @c summarised (its outlier screen and summary), for
 * cm_series_json(). */
int cm_series_prepare(struct campaign *c, const struct vtb_compare_opts *o);
/* Series @i of @c as the document's "series" has it (a new reference);
 * NULL with vtb_error() when out of memory. */
json_t *cm_series_json(const struct campaign *c, size_t i);
/* evidence.c: "evidence", "stream_rule" and "evidence_diffs" (for the
 * pairs @ps of @bc against @c) */
int cm_build_evidence(struct vtb_store *st, const struct campaign *c, const struct campaign *bc,
		      const struct pairs *ps, json_t *doc);
/* Keeps an evidence/... sample for the evidence section. */
int cm_sched_add(struct campaign *c, const struct vtb_sample_row *s);
/* merged.c: the campaign's merged histograms and c2c matrices, appended
 * to @list */
int cm_build_hists(struct vtb_store *st, const struct campaign *c, json_t *list);
int cm_build_c2c(struct vtb_store *st, const struct campaign *c, json_t *list);

/* ---- the tail test (tailrows.c, issue 26) ---- */

struct vtb_tail;

/* Replicates of a row's bootstrap: p near 0.05 is then within +-0.007
 * (one standard error, 2 sqrt(0.025 * 0.975 / B)) and an interval end at
 * alpha .05 (the 50th of 2000) within about 0.06 of the bootstrap's
 * standard deviation; p is resolved to 2 / B = 0.001. */
#define CM_TAIL_B 2000

/* A campaign's per-boot histograms, sparse (the values and counts of
 * non-empty buckets only).  -1 with vtb_error(); a record that is not a
 * histogram is kept as such (its rows get no tail test). */
struct cm_tails;
int cm_tails_load(struct vtb_store *st, const struct campaign *c, struct cm_tails **out);
/* Accepts NULL. */
void cm_tails_free(struct cm_tails *t);
/*
 * The tail test of a row: series @b's boots (of campaign @tb) against
 * @x's (@tx).  The histogram of a sample metric is the one of the same
 * configuration and cell named as its stem (the name without _pNN/_max),
 * else the only one of that cell named stem + "_..." (timer_p99 ->
 * timer_latency).  Every boot of the series (s->rep[i], i < s->n) must
 * have one, all with the same bucket parameters on both sides.  1: done,
 * *@t filled (the caller calls vtb_tail_release); 0: no tail test, *@why
 * a malloc'ed note, or NULL when @b's metric is not a tail metric; -1
 * with vtb_error() (memory).  The bootstrap's seed is a hash of the
 * row's identity (configuration keys, cell keys, metric): a run is
 * reproducible.
 */
int cm_tail_row(const struct cm_tails *tb, const struct series *b, const struct cm_tails *tx,
		const struct series *x, double alpha, struct vtb_tail *t, char **why);

#endif
