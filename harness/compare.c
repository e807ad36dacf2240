/* SPDX-License-Identifier: MIT */
/*
 * Groups a campaign's samples into rows (configuration x cell x metric)
 * and summarises each with GSL.  Rows keep the store's order, which is
 * the matrix's configuration order.
 */
#include "compare.h"

#include <gsl/gsl_sort.h>
#include <math.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

int vtb_stats_compute(const double *v, size_t n, struct vtb_stats *out)
{
	double *sorted;

	memset(out, 0, sizeof(*out));
	if (!n)
		return vtb_error("no values");
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return vtb_error("out of memory");
	memcpy(sorted, v, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	out->n = n;
	out->mean = gsl_stats_mean(sorted, 1, n);
	out->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	out->stddev = n > 1 ? gsl_stats_sd_m(sorted, 1, n, out->mean) : 0;
	out->cov = out->mean != 0 ? out->stddev / fabs(out->mean) : 0;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	free(sorted);
	return 0;
}

static bool same_row(const struct vtb_cmp_row *r, const struct vtb_sample_row *s)
{
	return !strcmp(r->config_key, s->config_key) && !strcmp(r->cell_key, s->cell_key) &&
	       !strcmp(r->metric, s->metric);
}

static int add_sample(const struct vtb_sample_row *s, void *arg)
{
	struct vtb_cmp_table *t = arg;
	struct vtb_cmp_row *r = t->n ? &t->rows[t->n - 1] : NULL;
	double *v;

	if (!r || !same_row(r, s)) {
		struct vtb_cmp_row *rows = realloc(t->rows, (t->n + 1) * sizeof(*rows));

		if (!rows)
			return vtb_error("out of memory");
		t->rows = rows;
		r = &rows[t->n++];
		memset(r, 0, sizeof(*r));
		r->config_key = strdup(s->config_key);
		r->config_label = strdup(s->config_label);
		r->kind = strdup(s->kind);
		r->cell_key = strdup(s->cell_key);
		r->cell_name = strdup(s->cell_name);
		r->workload = strdup(s->workload);
		r->metric = strdup(s->metric);
		r->unit = strdup(s->unit ? s->unit : "");
		r->better = s->better;
		r->cpus = s->cpus;
		r->pcpus = strdup(s->pcpus ? s->pcpus : "");
		if (!r->config_key || !r->config_label || !r->kind || !r->cell_key ||
		    !r->cell_name || !r->workload || !r->metric || !r->unit || !r->pcpus)
			return vtb_error("out of memory");
	}
	v = realloc(r->values, (r->n_values + 1) * sizeof(*v));
	if (!v)
		return vtb_error("out of memory");
	r->values = v;
	r->values[r->n_values++] = s->value;
	return 0;
}

int vtb_compare_load(struct vtb_store *st, int64_t campaign, struct vtb_cmp_table *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (vtb_store_foreach_sample(st, campaign, add_sample, out))
		goto err;
	for (i = 0; i < out->n; i++) {
		if (vtb_stats_compute(out->rows[i].values, out->rows[i].n_values, &out->rows[i].st))
			goto err;
	}
	return 0;
err:
	vtb_cmp_table_release(out);
	return -1;
}

void vtb_cmp_table_release(struct vtb_cmp_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		struct vtb_cmp_row *r = &t->rows[i];

		free(r->config_key);
		free(r->config_label);
		free(r->kind);
		free(r->cell_key);
		free(r->cell_name);
		free(r->workload);
		free(r->metric);
		free(r->unit);
		free(r->pcpus);
		free(r->values);
	}
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}
