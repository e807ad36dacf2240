/* SPDX-License-Identifier: MIT */
/* vtbench list runs|cells|workloads|sinks */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../workloads/workload.h"
#include "cmd.h"
#include "upload.h"

static const char list_usage[] =
	"usage: vtbench list runs|cells|workloads|sinks [options]\n"
	"\n"
	"  runs        campaigns in the database: id, host, matrix, boots ok/failed\n"
	"  cells       configurations and cells of the latest campaign, boots stored\n"
	"  workloads   the workloads the agent has (--all: with debug ones)\n"
	"  sinks       where vtbench upload can send results (URL forms)\n"
	"\n"
	"options:\n"
	"  --db FILE   results database (default: results.db)\n"
	"  --all       list hidden (debug) workloads too\n"
	"  -h, --help  this help\n";

static void fmt_time(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!ns || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
}

/* The database is a file anyone may hand over: each string it gives goes
 * through the sanitiser (vtb_term_safe) to the terminal. */
#define N_SAFE 8
struct safe {
	char *s[N_SAFE];
	size_t n;
};

static const char *safe(struct safe *t, const char *s)
{
	char *c = vtb_term_safe(s ? s : "?");

	if (!c || t->n == N_SAFE) {
		free(c);
		return "?";
	}
	return t->s[t->n++] = c;
}

static void safe_release(struct safe *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
}

static int print_run(const struct vtb_run_row *r, void *arg)
{
	struct safe t = { .n = 0 };
	char start[32];

	(void)arg;
	fmt_time(start, sizeof(start), r->started_ns);
	printf("%s  %s  %-11s  %-20s  %ld boot%s (%ld ok, %ld failed)  %s\n", safe(&t, r->uuid),
	       start, safe(&t, r->status), safe(&t, r->hostname), r->boots,
	       r->boots == 1 ? "" : "s", r->boots_ok, r->boots_failed, safe(&t, r->matrix_path));
	safe_release(&t);
	return 0;
}

static int print_cell(const struct vtb_cell_row *r, void *arg)
{
	struct safe t = { .n = 0 };

	(void)arg;
	printf("%s  %s  %-24s  %-10s  %s  %ld boot%s (%ld ok)  %s\n", safe(&t, r->config_key),
	       safe(&t, r->cell_key), safe(&t, r->config_label), safe(&t, r->workload),
	       safe(&t, r->cell_name), r->boots, r->boots == 1 ? "" : "s", r->ok,
	       safe(&t, r->params_json));
	safe_release(&t);
	return 0;
}

int cmd_list(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const what_names[] = { "cells", "runs", "sinks", "workloads", NULL };
	const char *what, *near;
	bool all = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			env->db = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'h':
			fputs(list_usage, stdout);
			return 0;
		default:
			fputs(list_usage, stderr);
			return VTB_EXIT_USAGE;
		}
	}
	if (optind != env->argc - 1) {
		vtb_cmd_err(env, "expected one of runs, cells, workloads or sinks");
		fputs(list_usage, stderr);
		return VTB_EXIT_USAGE;
	}
	what = env->argv[optind];
	if (!strcmp(what, "workloads")) {
		for (size_t i = 0; vtb_workloads[i]; i++) {
			if (vtb_workloads[i]->hidden && !all)
				continue;
			printf("%-10s %s\n", vtb_workloads[i]->name, vtb_workloads[i]->summary);
		}
		return 0;
	}
	if (!strcmp(what, "sinks")) {
		const struct vtb_sink_info *si;

		for (size_t i = 0; (si = vtb_sink_info(i)); i++)
			printf("%-10s %-40s %s\n", si->name, si->url, si->summary);
		return 0;
	}
	if (strcmp(what, "runs") && strcmp(what, "cells")) {
		near = vtb_suggest(what_names, what);
		vtb_cmd_err(env,
			    "unknown list '%s'%s%s%s: expected runs, cells, workloads or sinks",
			    what, near ? " (did you mean '" : "", near ? near : "",
			    near ? "'?)" : "");
		return VTB_EXIT_USAGE;
	}
	env->flags |= VTB_CMD_NEED_DB;
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	if (!strcmp(what, "runs")) {
		ret = vtb_store_foreach_run(env->store, print_run, NULL);
	} else {
		int64_t id;
		bool found = false;

		ret = vtb_store_latest_campaign(env->store, &id, &found);
		if (!ret && !found) {
			vtb_cmd_err(env, "no campaign in '%s'", env->db);
			return VTB_EXIT_USAGE;
		}
		if (!ret)
			ret = vtb_store_foreach_cell(env->store, id, print_cell, NULL);
	}
	if (ret) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		/* a damaged or crafted database is input */
		return vtb_store_bad_content(env->store) ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
	}
	return 0;
}
