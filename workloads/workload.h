/* SPDX-License-Identifier: MIT */
/*
 * The workload interface.  A workload is a static const ops table (name,
 * reference model, option table, hooks) registered in vtb_workloads[]
 * (registry.c).  The agent runs workloads by hand or from a job; the
 * harness reads the same option tables to validate matrix.conf.
 */
#ifndef VTB_WORKLOAD_H
#define VTB_WORKLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/opt.h"
#include "lib/record.h"
#include "lib/vtbutil.h"

enum vtb_better { VTB_BETTER_LOWER = 0, VTB_BETTER_HIGHER = 1 };

struct vtb_sample {
	char *metric;
	char *unit;
	double value;
	enum vtb_better better;
};

/* What a workload run is given and reports into. */
struct vtb_workload_ctx {
	struct vtb_cpuset cpus;	    /* CPUs it may use (the process's affinity) */
	struct vtb_rec *rec;	    /* record writer; NULL when printing for humans */
	const char *cell;	    /* cell key; "manual" by hand */
	json_t *info;		    /* object: facts the run resolved (array size...) */
	struct vtb_sample *samples; /* collected for the human summary */
	size_t n_samples;
};

/* Reports one value: as a record (with --records) and for the summary. */
int vtb_report_sample(struct vtb_workload_ctx *ctx, const char *metric, const char *unit,
		      double value, enum vtb_better better);
/* Reports a latency histogram (struct vtb_hist, lib/hist.h) as a hist
 * record; nothing is kept for the summary.  No-op without ctx->rec. */
struct vtb_hist;
int vtb_report_hist(struct vtb_workload_ctx *ctx, const char *metric, const struct vtb_hist *h);
/* Writes an error record for ctx->cell (no-op without ctx->rec). */
int vtb_report_error(struct vtb_workload_ctx *ctx, const char *message);
/* Adds a resolved fact to ctx->info (steals @value). */
int vtb_report_info(struct vtb_workload_ctx *ctx, const char *key, json_t *value);
void vtb_workload_ctx_release(struct vtb_workload_ctx *ctx);

struct vtb_workload_ops {
	const char *name;
	const char *summary;	    /* one line, names the reference model */
	const struct vtb_opt *opts; /* parsed into a params struct of params_size */
	size_t params_size;
	/* Optional: resolve defaults that depend on ctx->cpus, reject bad
	 * combinations (-1 with vtb_error()).  Called before run. */
	int (*prepare)(void *params, struct vtb_workload_ctx *ctx);
	/* Runs and reports samples; -1 with vtb_error() when it failed. */
	int (*run)(void *params, struct vtb_workload_ctx *ctx);
	bool hidden; /* debug workloads: not listed by default */
};

/* NULL-terminated registry. */
extern const struct vtb_workload_ops *const vtb_workloads[];
const struct vtb_workload_ops *vtb_workload_find(const char *name);
/* Checks the registry once (hooks present, names unique, option tables
 * sane); -1 with vtb_error() naming the culprit. */
int vtb_workloads_check(void);

#endif
