/* SPDX-License-Identifier: MIT */
/*
 * The command layer.  Each command lives in cmd-<name>.c; main.c holds
 * the table.  A command parses its own options into the environment and
 * calls vtb_cmd_setup(), which does the shared setup its table row asks
 * for (open the store, load the host topology).  Only this layer prints
 * and chooses exit codes.
 */
#ifndef VTB_CMD_H
#define VTB_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cliopt.h"
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
#define VTB_CMD_NEED_DB (1u << 0)   /* open --db read-only before work */
#define VTB_CMD_NEED_HOST (1u << 1) /* load --host-topology or the local host */
#define VTB_CMD_WRITES (1u << 2)    /* writes the database: SIGPIPE ignored */

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
};

/* Does the row's setup; on failure prints the error and returns the exit
 * code to use (nonzero). */
int vtb_cmd_setup(struct vtb_cmd_env *env);
/* Prints "vtbench CMD: message" to stderr. */
void vtb_cmd_err(const struct vtb_cmd_env *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Path of vtbench-agent: $VTBENCH_AGENT, else beside this executable. */
char *vtb_agent_path(void);

int cmd_compare(struct vtb_cmd_env *env);
int cmd_list(struct vtb_cmd_env *env);
int cmd_merge(struct vtb_cmd_env *env);
int cmd_plan(struct vtb_cmd_env *env);
int cmd_run(struct vtb_cmd_env *env);
int cmd_topo(struct vtb_cmd_env *env);
int cmd_upload(struct vtb_cmd_env *env);

/* Each command's option table (cmd-<name>.c): its --help and its part of
 * vtbench(1). */
extern const struct vtb_cli compare_cli, list_cli, merge_cli, plan_cli, run_cli, topo_cli,
	upload_cli;

struct vtb_upload_opts;
/* Uploads (upload.h) and prints the summary (@quiet: only when something
 * remains unsent); 0, VTB_EXIT_INFRA when
 * something remains unsent (or the store failed), VTB_EXIT_USAGE when
 * nothing could start.  Shared by upload and run --upload. */
int vtb_cmd_upload(const struct vtb_cmd_env *env, struct vtb_store *st, const char *db,
		   struct vtb_upload_opts *o, bool quiet);

#endif
