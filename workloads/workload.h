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
#include <stdint.h>
#include <stdio.h>

#include "../common/opt.h"
#include "../common/record.h"
#include "../common/vtbutil.h"

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
	/*
	 * Optional: the memory a run allocates, in bytes, from @params as
	 * parsed from the job (options still "auto" resolved as prepare
	 * would for @ncpus CPUs), so that the harness can refuse a cell
	 * that cannot fit before anything boots and prepare checks the same
	 * figure against MemAvailable.  0 with *out set; 1 when it depends
	 * on what only the run can find (membw's size = auto with llc =
	 * auto: the LLC of the machine it runs on); -1 with vtb_error().
	 */
	int (*memory_need)(const void *params, size_t ncpus, uint64_t *out);
	const char *memory_keys; /* the options that set that need ("size") */
	/* Runs and reports samples; -1 with vtb_error() when it failed. */
	int (*run)(void *params, struct vtb_workload_ctx *ctx);
	bool hidden; /* debug workloads: not listed by default */
	/* NULL-terminated: the reference tools it models, by the names users
	 * type ("schbench"), so that naming one points at this workload */
	const char *const *models;
};

/* NULL-terminated registry. */
extern const struct vtb_workload_ops *const vtb_workloads[];
const struct vtb_workload_ops *vtb_workload_find(const char *name);
/*
 * What to say after "unknown workload 'NAME'": " (...)" naming the
 * workload that models NAME when it is a reference tool's name
 * ("'wakeup' is the schbench model"), else the nearest by spelling, then
 * the known ones (the hidden ones too when @hidden).  Caller frees; NULL
 * when out of memory.
 */
char *vtb_workload_unknown_hint(const char *name, bool hidden);
/* The workload that models the reference tool @name ("schbench":
 * wakeup; any case), or NULL. */
const struct vtb_workload_ops *vtb_workload_modelling(const char *name);
/*
 * The params struct of @w (caller frees with vtb_workload_params_free())
 * from @n NAME=VALUE pairs over the defaults, as the agent reads a job.
 * -1 with vtb_error() naming the option for an unknown name or a value
 * its table refuses.  String values point into @vals, which must outlive
 * the struct.
 */
int vtb_workload_params(const struct vtb_workload_ops *w, const char *const *names,
			const char *const *vals, size_t n, void **out);
void vtb_workload_params_free(void *params);
/* Memory the run needs (ops->memory_need), 0 when the workload does not
 * say; the same return convention. */
int vtb_workload_memory_need(const struct vtb_workload_ops *w, const void *params, size_t ncpus,
			     uint64_t *out);
/* The share of MemAvailable a workload may take: prepare refuses more,
 * and the harness plans against it. */
#define VTB_MEM_SHARE_PCT 80
/* Whether @need fits in @available under that share. */
bool vtb_mem_fits(uint64_t need, uint64_t available);

/* Checks the registry once (hooks present, names unique, option tables
 * sane); -1 with vtb_error() naming the culprit. */
int vtb_workloads_check(void);

#endif
