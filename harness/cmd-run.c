/* SPDX-License-Identifier: MIT */
/* vtbench run: options, progress display and the closing summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "runner.h"

static const char run_usage[] =
	"usage: vtbench run MATRIX.conf [options]\n"
	"\n"
	"Runs every (configuration, rep) boot of the matrix in its order and stores\n"
	"each boot in SQLite in one transaction.  Bare-metal baselines run the\n"
	"agent confined to the configuration's CPUs.\n"
	"\n"
	"options:\n"
	"  --db FILE      results database (default: the matrix's db =, else results.db)\n"
	"  --resume       continue the latest campaign of this matrix on this host:\n"
	"                 boots already stored are skipped, never run twice\n"
	"  --only GLOB    run only configurations whose label or key matches\n"
	"                 (comma list of globs, e.g. 'baseline cpus=2')\n"
	"  --reps N       override the matrix's reps = (default: the matrix's)\n"
	"  --quiet        no progress, only warnings, errors and the summary\n"
	"  -h, --help     this help\n"
	"\n"
	"exit codes: 0 every boot ok; 1 some boots failed or timed out (all stored);\n"
	"2 input error; 3 infrastructure failure; 130 interrupted (resume with --resume).\n";

struct progress_state {
	bool tty, quiet, line_open;
};

static void fmt_dur(char *buf, size_t len, double s)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void on_progress(const struct vtb_progress *p, void *arg)
{
	struct progress_state *ps = arg;
	char el[32], eta[32];

	if (p->warning) {
		if (ps->line_open)
			fputs("\r\033[K", stderr);
		ps->line_open = false;
		fprintf(stderr, "warning: %s\n", p->warning);
		return;
	}
	if (p->note) {
		if (ps->line_open)
			fputs("\r\033[K", stderr);
		ps->line_open = false;
		if (!ps->quiet)
			fprintf(stderr, "%s\n", p->note);
		return;
	}
	if (ps->quiet)
		return;
	fmt_dur(el, sizeof(el), p->elapsed_seconds);
	if (p->eta_seconds < 0)
		snprintf(eta, sizeof(eta), "?");
	else
		fmt_dur(eta, sizeof(eta), p->eta_seconds);
	if (ps->tty) {
		if (!p->status) {
			fprintf(stderr, "\r\033[Kboot %zu/%zu  %s  rep %d  elapsed %s  eta %s",
				p->index, p->total, p->label, p->rep, el, eta);
			ps->line_open = true;
		} else if (strcmp(p->status, "ok")) {
			fprintf(stderr, "\r\033[Kboot %zu/%zu  %s  rep %d: %s: %s\n", p->index,
				p->total, p->label, p->rep, p->status, p->error ? p->error : "");
			ps->line_open = false;
		}
		fflush(stderr);
		return;
	}
	if (p->status)
		printf("boot %zu/%zu %s rep %d: %s (%.1fs)%s%s\n", p->index, p->total, p->label,
		       p->rep, p->status, p->boot_seconds, p->error ? ": " : "",
		       p->error ? p->error : "");
	fflush(stdout);
}

int cmd_run(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "resume", no_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vtb_run_opts o = { 0 };
	struct vtb_run_result res;
	struct progress_state ps = { .tty = isatty(2) };
	char *agent = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.db = optarg;
			break;
		case 'r':
			o.resume = true;
			break;
		case 'o':
			o.only = optarg;
			break;
		case 'n':
			if (vtb_parse_int(optarg, 1, 100000, &o.reps)) {
				vtb_cmd_err(env, "--reps: %s", vtb_errmsg());
				return VTB_EXIT_USAGE;
			}
			break;
		case 'q':
			ps.quiet = true;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return 0;
		default:
			fputs(run_usage, stderr);
			return VTB_EXIT_USAGE;
		}
	}
	if (optind != env->argc - 1) {
		vtb_cmd_err(env, "expected one matrix file");
		fputs(run_usage, stderr);
		return VTB_EXIT_USAGE;
	}
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	agent = vtb_agent_path();
	if (!agent || access(agent, X_OK) < 0) {
		vtb_cmd_err(env,
			    "cannot find the agent '%s' (build it with make, or set VTBENCH_AGENT)",
			    agent ? agent : "vtbench-agent");
		free(agent);
		return VTB_EXIT_INFRA;
	}
	o.matrix = env->argv[optind];
	o.host_id = getenv("VTBENCH_HOST_ID");
	if (o.host_id && !*o.host_id)
		o.host_id = NULL;
	o.agent = agent;
	o.cmdline = env->cmdline;
	o.progress = on_progress;
	o.progress_arg = &ps;
	if (vtb_run(&o, &res)) {
		if (ps.line_open)
			fputs("\r\033[K", stderr);
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = res.fail == VTB_RUN_INPUT ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		if (res.campaign[0] && res.db)
			fprintf(stderr,
				"what was stored is kept; resume with: vtbench run %s --db %s --resume\n",
				o.matrix, res.db);
		goto out;
	}
	if (ps.line_open)
		fputs("\r\033[K", stderr);
	printf("campaign %s%s: %zu boot%s run (%zu ok, %zu failed, %zu timed out)", res.campaign,
	       res.resumed ? " (resumed)" : "", res.ran, res.ran == 1 ? "" : "s", res.ok,
	       res.failed, res.timeout);
	if (res.unexpected)
		printf(", %zu unexpected-topology", res.unexpected);
	if (res.skipped)
		printf(", %zu already stored", res.skipped);
	printf("\nresults in %s; see: vtbench compare --db %s\n", res.db, res.db);
	if (res.interrupted) {
		fflush(stdout);
		fprintf(stderr,
			"interrupted: the database is consistent; resume with: vtbench run %s --db %s --resume\n",
			o.matrix, res.db);
		ret = VTB_EXIT_INTERRUPTED;
	} else {
		ret = res.failed || res.timeout || res.unexpected ? VTB_EXIT_FAIL : VTB_EXIT_OK;
	}
out:
	vtb_run_result_release(&res);
	free(agent);
	return ret;
}
