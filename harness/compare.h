/* SPDX-License-Identifier: MIT */
/*
 * Compare, first cut: per configuration, cell and metric, the per-boot
 * values of a campaign and their summary statistics (GSL).  The unit of
 * observation is the boot: one value per boot and metric.
 */
#ifndef VTB_COMPARE_H
#define VTB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct vtb_stats {
	size_t n;
	double mean, median, stddev, cov, min, max;
};

/* Summary of @n values (n >= 1; stddev and cov are 0 for n == 1). */
int vtb_stats_compute(const double *v, size_t n, struct vtb_stats *out);

struct vtb_cmp_row {
	char *config_key, *config_label, *kind;
	char *cell_key, *cell_name, *workload;
	char *metric, *unit;
	int better;  /* 1: higher is better */
	int cpus;    /* vcpus (VM) or cpus (baseline) */
	char *pcpus; /* host CPUs of the configuration (cpulist) */
	double *values;
	size_t n_values;
	struct vtb_stats st;
};

struct vtb_cmp_table {
	struct vtb_cmp_row *rows;
	size_t n;
};

int vtb_compare_load(struct vtb_store *st, int64_t campaign, struct vtb_cmp_table *out);
void vtb_cmp_table_release(struct vtb_cmp_table *t);

#endif
