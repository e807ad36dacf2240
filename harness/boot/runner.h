/* SPDX-License-Identifier: MIT */
/*
 * The campaign loop: reads the matrix against the host model (the caller
 * loads the host and opens the store), starts or resumes a campaign, runs
 * every (configuration, rep) boot in the matrix's order, stores each boot
 * in one transaction, and stops cleanly on SIGINT/SIGTERM.  With reps =
 * auto it boots in interleaved rounds instead: after each round compare's
 * default selection (each VM against its own baseline) decides which
 * configurations need more boots (a row inconclusive or few), until none
 * does, the cap (max_reps) or the budget.  It prints nothing: progress
 * goes through a callback, the outcome through struct vtb_run_result.
 */
#ifndef VTB_RUNNER_H
#define VTB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vtb_progress {
	size_t index, total; /* this boot, 1-based, and boots to run */
	const char *label;   /* configuration */
	int rep;
	const char *status; /* NULL when starting; else its outcome */
	const char *error;
	double boot_seconds;
	double elapsed_seconds, eta_seconds; /* eta < 0: unknown */
	const char *warning;		     /* a warning instead of a boot event */
	const char *note;		     /* information instead of a boot event */
	/* reps = auto: total is the boots done plus the most still to come;
	 * undecided the compare rows not yet decided (-1: before the first
	 * decision) */
	bool reps_auto;
	long undecided;
};

struct vtb_store;

/*
 * vtbench explore: the caller's rule decides the rounds of reps = auto
 * instead of compare's.  decide() is called before the first round and
 * after each one, with next[i] the boots of configuration i stored so far
 * (reps 0 .. next[i] - 1); it fills want[i] (boot configuration i once
 * this round) and returns 0, 1 to stop, or -1 with vtb_error() (*input:
 * the matrix or the data is at fault, an input error).  A round ends
 * early on a stop request or the budget (m->budget_ns); decide() is not
 * called after it.
 */
struct vtb_run_rounds {
	int (*decide)(void *arg, struct vtb_store *st, int64_t campaign, const int *next,
		      bool *want, bool *input);
	void *arg;
};

struct vtb_run_opts {
	const char *matrix; /* path of matrix.conf */
	const char *db;	    /* NULL: the matrix's db = (res->db says which) */
	const char *only;   /* glob on configuration labels/keys, or NULL */
	long long reps;	    /* 0: the matrix's reps = */
	bool reps_auto;	    /* --reps auto (over the matrix's reps =) */
	bool resume;
	/* the host's identity in the database instead of its hostname
	 * (VTBENCH_HOST_ID); NULL: the matrix's host_id =, else the hostname */
	const char *host_id;
	const char *agent;   /* vtbench-agent path */
	const char *cmdline; /* stored for provenance */
	void (*progress)(const struct vtb_progress *p, void *arg);
	void *progress_arg;
	const struct vtb_run_rounds *rounds; /* NULL: run's own rules */
	/* with rounds: the most boots the whole race can take (plan's "at
	 * most"), the progress's total; 0: this round's */
	size_t max_boots;
};

enum vtb_run_fail { VTB_RUN_OK, VTB_RUN_INPUT, VTB_RUN_INFRA };

struct vtb_run_result {
	size_t planned, skipped, ran, ok, failed, timeout;
	size_t unexpected;   /* VM boots whose guest saw another topology than planned */
	size_t not_runnable; /* configurations that cannot run yet */
	size_t lacking;	     /* of those, found during the campaign: their kernel lacks a knob */
	bool interrupted;
	int stop_signal; /* interrupted: by SIGINT or SIGTERM */
	bool resumed;
	/* reps = auto: rounds run, compare rows still undecided at the end
	 * (-1: never decided), why it stopped */
	bool reps_auto;
	size_t rounds;
	long undecided;
	long missing; /* rows missing (no result on a side): not decided, and
			 more boots of a side that fails do not decide them */
	bool budget_spent, capped;
	char campaign[37];
	char *db;		/* path used (malloc'ed) */
	enum vtb_run_fail fail; /* why vtb_run returned -1 */
};

struct vtb_hosttopo;
struct vtb_matrix;
struct vtb_bootref;

/* A campaign's input: the matrix read against the host, --only applied,
 * in boot order. */
struct vtb_run_input {
	const struct vtb_hosttopo *host; /* borrowed: the machine run measures */
	struct vtb_matrix *m;
	struct vtb_bootref *order;
	size_t n_order;
};

/* Reads o->matrix against @host (vtb_hosttopo_load(NULL): this machine)
 * into @in and starts @res (res->db: the database to use, o->db or the
 * matrix's db =).  0, or -1 with vtb_errmsg() and res->fail set; release
 * @in in both cases (vtb_run_input_release). */
int vtb_run_load(const struct vtb_run_opts *o, const struct vtb_hosttopo *host,
		 struct vtb_run_input *in, struct vtb_run_result *res);
void vtb_run_input_release(struct vtb_run_input *in);
/* Runs the campaign of @in into @st (res->db, opened read-write by the
 * caller; not closed here), continuing @res.  0 when the campaign ran
 * (whatever its boots did); -1 with vtb_errmsg() and res->fail set
 * otherwise. */
int vtb_run(const struct vtb_run_opts *o, const struct vtb_run_input *in, struct vtb_store *st,
	    struct vtb_run_result *res);
void vtb_run_result_release(struct vtb_run_result *res);

/* Builds the job a boot runs (JSON text, malloc'ed). */
struct vtb_config;
char *vtb_job_json(const struct vtb_config *c, const char *nonce, const char *boot_uuid, int rep,
		   bool evidence);

#endif
