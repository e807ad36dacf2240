/* SPDX-License-Identifier: MIT */
/*
 * The command layer.  Each command lives in cmd-<name>.c; main.c holds
 * the table.  A command parses its own options into the environment and
 * calls vtb_cmd_setup(), which does the shared setup its table row asks
 * for (load the host topology, open the store) with the same messages
 * and exit codes for every command.  Only this layer prints and chooses
 * exit codes.
 */
#ifndef VTB_CMD_H
#define VTB_CMD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cliopt.h"
#include "../../common/outfile.h"
#include "../host/hosttopo.h"
#include "../store/store.h"

/* exit codes (README) */
#define VTB_EXIT_OK 0
#define VTB_EXIT_FAIL 1	 /* compare: regression; run: some boots failed */
#define VTB_EXIT_USAGE 2 /* usage or input error */
#define VTB_EXIT_INFRA 3 /* libvirt, disk, network */
/* run stopped by a signal: 128 + the signal, as a shell reports it */
#define VTB_EXIT_INTERRUPTED 130 /* SIGINT */
#define VTB_EXIT_TERMINATED 143	 /* SIGTERM */

/* row flags */
#define VTB_CMD_NEED_DB (1u << 0)    /* open env->db read-only (it must exist) */
#define VTB_CMD_NEED_HOST (1u << 1)  /* load --host-topology or the local host */
#define VTB_CMD_WRITES (1u << 2)     /* writes the database: SIGPIPE ignored */
#define VTB_CMD_OPEN_DB_RW (1u << 3) /* open env->db read-write (migrated) */
#define VTB_CMD_CREATE_DB (1u << 4)  /* ... creating it when missing */

struct vtb_cmd_env {
	const char *name; /* command name */
	unsigned flags;
	int argc; /* the command's argv, argv[0] = command name */
	char **argv;
	const char *cmdline; /* whole command line, for provenance */
	/* filled by options, used by setup */
	const char *db;
	const char *host_topology;
	/* set up by vtb_cmd_setup() */
	struct vtb_store *store;
	struct vtb_hosttopo *host;
	/* the database this invocation created (malloc'ed), else NULL: main
	 * removes it when the command exits 2 (an input error writes
	 * nothing) */
	char *created_db;
	/* ... also on another exit code: nothing was stored in it (run and
	 * explore failing before their campaign began) */
	bool discard_created_db;
};

/* Does the row's setup, in order: the host (NEED_HOST), then the store
 * (NEED_DB or OPEN_DB_RW; env->db, default results.db); a step already
 * done is skipped.  On failure prints the error and returns the exit code
 * to use (nonzero): 2 for the user's input (a --host-topology that cannot
 * be read, a database missing or not vtbench's), 3 for infrastructure.
 * vtb_cmd_setup_host() is the first step alone, for a command whose
 * database path comes from input read with the host (run: the matrix's
 * db =). */
int vtb_cmd_setup(struct vtb_cmd_env *env);
int vtb_cmd_setup_host(struct vtb_cmd_env *env);
/* Prints "vtbench CMD: message" to stderr. */
void vtb_cmd_err(const struct vtb_cmd_env *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @path from the working directory when relative, as the absolute path
 * a summary prints for copying anywhere (malloc'ed; NULL out of memory). */
char *vtb_cmd_abs_path(const char *path);
/* The message the last vtb_cmd_err() printed (NULL: none yet); valid
 * until the next one. */
const char *vtb_cmd_last_err(void);
/* Path of vtbench-agent: $VTBENCH_AGENT, else beside this executable. */
char *vtb_agent_path(void);

int cmd_compare(struct vtb_cmd_env *env);
int cmd_doctor(struct vtb_cmd_env *env);
int cmd_explore(struct vtb_cmd_env *env);
int cmd_list(struct vtb_cmd_env *env);
int cmd_merge(struct vtb_cmd_env *env);
int cmd_plan(struct vtb_cmd_env *env);
int cmd_recommend(struct vtb_cmd_env *env);
int cmd_run(struct vtb_cmd_env *env);
int cmd_topo(struct vtb_cmd_env *env);
int cmd_upload(struct vtb_cmd_env *env);

/* Each command's option table (cmd-<name>.c): its --help and its part of
 * vtbench(1). */
extern const struct vtb_cli compare_cli, doctor_cli, explore_cli, list_cli, merge_cli, plan_cli,
	recommend_cli, run_cli, topo_cli, upload_cli;

/* run's and explore's progress display (cmd-run.c): the callback of
 * struct vtb_run_opts with a struct vtb_progress_state as its arg. */
struct vtb_progress;
struct vtb_progress_state {
	const char *cmd; /* "run": whose warnings */
	bool tty, quiet, verbose, line_open;
	bool json; /* --format json: stdout is the summary's, boot lines go to stderr */
};
void vtb_cmd_progress(const struct vtb_progress *p, void *arg);

/* What run and explore share (cmd-run.c).  A campaign command's command
 * line after its options: one matrix file, -q or -v; 0 to go on, or -1 to
 * stop with *code (--help: 0; a usage error, said).  Its run options from the environment: the
 * agent (*agent, malloc'ed), VTBENCH_HOST_ID, the progress display; 0 or the exit code. A campaign
 * that could not run: says why and how to resume, returns the exit code (an input error: the
 * campaign it began is deleted again, res->campaign emptied).  The summary's first line
 * (no newline).  The exit code of a campaign that ran (interrupted: says how to resume). */
struct vtb_run_opts;
struct vtb_run_result;
int vtb_cmd_run_args_end(const struct vtb_cli *cli, const struct vtb_cmd_env *env, int c,
			 int optind, const struct vtb_progress_state *ps, const char **matrix,
			 int *code);
int vtb_cmd_run_opts(const struct vtb_cmd_env *env, struct vtb_run_opts *o,
		     struct vtb_progress_state *ps, char **agent);
int vtb_cmd_run_failed(const struct vtb_cmd_env *env, const char *matrix,
		       const struct vtb_progress_state *ps, struct vtb_run_result *res);
void vtb_cmd_run_boots_line(FILE *f, const struct vtb_run_result *res);
int vtb_cmd_run_exit(const struct vtb_cmd_env *env, const char *matrix,
		     const struct vtb_run_result *res);

/* run's and explore's preflight (cmd-doctor.c): doctor's cheap checks of
 * @m (/dev nodes, libvirt when it has VMs, the guest kernel and image,
 * memory) before anything is written.  0, or the exit code (2) after a
 * line per failed check (its id, what it found, what to do) and one
 * pointing at `vtbench doctor @matrix`. */
struct vtb_matrix;
int vtb_cmd_preflight(const struct vtb_cmd_env *env, const struct vtb_matrix *m,
		      const char *matrix);

/* Where a report goes: stdout, or -o FILE by the one output rule
 * (common/outfile.h: replaced whole once written, a device or FIFO written
 * through, the command's @inputs refused; cmd-compare.c, for every -o).
 * open: 0, or the exit code after the message; commit: the same;
 * abandon after a failure (FILE stays as it was) or after commit. */
struct vtb_cmd_output {
	const char *path; /* NULL: stdout */
	FILE *f;
	struct vtb_outfile o;
};
int vtb_cmd_output_open(const struct vtb_cmd_env *env, struct vtb_cmd_output *out, const char *path,
			const struct vtb_out_input *inputs);
int vtb_cmd_output_commit(const struct vtb_cmd_env *env, struct vtb_cmd_output *out);
void vtb_cmd_output_abandon(struct vtb_cmd_output *out);
/* The width a text report to @f is written for (compare's, recommend's,
 * explore's answer): COLUMNS (1 to 10000; anything else is ignored),
 * else the terminal's when @f is stdout on one, else, when @f is stdout
 * into a pipe or file, the controlling terminal's (/dev/tty: `compare |
 * less` fits the screen it is read on), else VTB_CMD_COLUMNS
 * (cmd-compare.c). */
#define VTB_CMD_COLUMNS 80
size_t vtb_cmd_text_columns(FILE *f);

struct vtb_upload_opts;
/* Uploads (upload.h) and prints the summary (@quiet: only when something
 * remains unsent); 0, VTB_EXIT_INFRA when
 * something remains unsent (or the store failed), VTB_EXIT_USAGE when
 * nothing could start.  Shared by upload and run --upload. */
int vtb_cmd_upload(const struct vtb_cmd_env *env, struct vtb_store *st, const char *db,
		   struct vtb_upload_opts *o, bool quiet, json_t *sent);
/* With @sent (an array, --format json): the summary goes to stderr and
 * what the upload did is appended to @sent as an object (vtbench-upload-summary/1's
 * fields: docs/commands.md). */

/*
 * --format text|json of run, explore, merge and upload (cmd-summary.c).
 * With json, stdout carries one document when the command ends, whatever
 * its outcome once its command line was read: "schema", "command",
 * "status", the command's fields, "exit" and "exit_meaning".  Messages
 * and the text summary go to stderr.
 */
extern const char *const vtb_cmd_formats[]; /* "text", "json" */
/* {"schema": @schema, "command": @cmd} (new reference; NULL: ENOMEM) */
json_t *vtb_cmd_doc_new(const char *schema, const char *cmd);
/* Adds "exit" and "exit_meaning", prints @doc on stdout and drops it
 * (@bad: building it failed: says so); returns @code. */
int vtb_cmd_doc_print(const struct vtb_cmd_env *env, json_t *doc, bool bad, int code);
/* @path made absolute (realpath, else joined to the working directory
 * when it does not exist); malloc'ed */
char *vtb_cmd_abspath(const char *path);
/* argv (NULL-terminated) as one sh command line, quoted where needed */
json_t *vtb_cmd_command_json(const char *const *argv);
/* wall clock now, and a time as "2026-01-02T03:04:05Z" (null when 0) */
int64_t vtb_cmd_wall_ns(void);
json_t *vtb_cmd_time_json(int64_t ns);
/* run's and explore's document (vtbench-run-summary/1 fields): @status done,
 * interrupted or error (@error: its message); the campaign's boots and
 * configurations read from env->store when it is open. */
json_t *vtb_cmd_run_doc(const struct vtb_cmd_env *env, const char *schema, const char *matrix,
			const struct vtb_run_result *res, const char *status, const char *error,
			int64_t started_ns);

#endif
