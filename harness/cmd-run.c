/* SPDX-License-Identifier: MIT */
/* vtbench run: options, progress display and the closing summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "runner.h"
#include "upload.h"

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
	"  --upload URL   when the campaign ends, upload it (vtbench upload --to URL;\n"
	"                 repeatable); a failed upload is reported, exits 3 if the run\n"
	"                 was fine, and is left for a later vtbench upload\n"
	"  -h, --help     this help\n"
	"\n"
	"exit codes: 0 every boot ok; 1 some boots failed or timed out (all stored);\n"
	"2 input error; 3 infrastructure failure, or an --upload failed; 130 interrupted\n"
	"(resume with --resume).\n";

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

/* A boot's line.  @label, @status (NULL: starting) and @error are safe
 * for the terminal already. */
static void boot_line(struct progress_state *ps, const struct vtb_progress *p, const char *label,
		      const char *status, const char *error)
{
	char el[32], eta[32];

	fmt_dur(el, sizeof(el), p->elapsed_seconds);
	if (p->eta_seconds < 0)
		snprintf(eta, sizeof(eta), "?");
	else
		fmt_dur(eta, sizeof(eta), p->eta_seconds);
	if (ps->tty) {
		if (!status) {
			fprintf(stderr, "\r\033[Kboot %zu/%zu  %s  rep %d  elapsed %s  eta %s",
				p->index, p->total, label, p->rep, el, eta);
			ps->line_open = true;
		} else if (strcmp(status, "ok")) {
			fprintf(stderr, "\r\033[Kboot %zu/%zu  %s  rep %d: %s: %s\n", p->index,
				p->total, label, p->rep, status, error ? error : "");
			ps->line_open = false;
		}
		fflush(stderr);
		return;
	}
	if (status)
		printf("boot %zu/%zu %s rep %d: %s (%.1fs)%s%s\n", p->index, p->total, label,
		       p->rep, status, p->boot_seconds, error ? ": " : "", error ? error : "");
	fflush(stdout);
}

/* Labels, errors, warnings and notes quote guests and files: every one
 * goes through the one sanitiser (vtb_term_safe) to the terminal. */
static void on_progress(const struct vtb_progress *p, void *arg)
{
	struct progress_state *ps = arg;
	char *label, *status, *error;

	if (p->warning || p->note) {
		if (ps->line_open)
			fputs("\r\033[K", stderr);
		ps->line_open = false;
		if (p->warning || !ps->quiet) {
			fputs(p->warning ? "warning: " : "", stderr);
			vtb_term_fputs(p->warning ? p->warning : p->note, stderr);
			fputc('\n', stderr);
		}
		return;
	}
	if (ps->quiet)
		return;
	label = vtb_term_safe(p->label);
	status = p->status ? vtb_term_safe(p->status) : NULL;
	error = p->error ? vtb_term_safe(p->error) : NULL;
	if (label && (status || !p->status) && (error || !p->error))
		boot_line(ps, p, label, status, error);
	free(label);
	free(status);
	free(error);
}

/* run --upload: the campaign to each sink, one after the other; nonzero
 * when one of them left something unsent (each says what and why). */
static int upload_all(const struct vtb_cmd_env *env, const struct vtb_run_result *res,
		      const char *const *urls, size_t n)
{
	struct vtb_store *st = NULL;
	int failed = 0;

	fflush(stdout);
	if (vtb_store_open(res->db, &st)) {
		vtb_cmd_err(env, "upload: %s", vtb_errmsg());
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct vtb_upload_opts o = {
			.url = urls[i],
			.campaign = res->campaign,
			.connect_timeout_ms = VTB_UPLOAD_CONNECT_TIMEOUT_MS,
			.timeout_ms = VTB_UPLOAD_TIMEOUT_MS,
			.attempts = VTB_UPLOAD_ATTEMPTS,
			.max_time_ms = VTB_UPLOAD_MAX_TIME_MS,
			.backoff_ms = VTB_UPLOAD_BACKOFF_MS,
			.batch_points = VTB_UPLOAD_BATCH_POINTS,
		};

		if (vtb_cmd_upload(env, st, res->db, &o))
			failed = -1;
	}
	vtb_store_close(st);
	return failed;
}

int cmd_run(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "resume", no_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "upload", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vtb_run_opts o = { 0 };
	struct vtb_run_result res;
	struct progress_state ps = { .tty = isatty(2) };
	char *agent = NULL;
	const char **uploads = calloc((size_t)env->argc + 1, sizeof(*uploads));
	size_t n_uploads = 0;
	int c, ret;

	if (!uploads) {
		vtb_cmd_err(env, "out of memory");
		return VTB_EXIT_INFRA;
	}

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
		case 'u':
			/* a wrong URL is found now, not after hours of boots */
			if (vtb_upload_check_url(optarg) < 0) {
				vtb_cmd_err(env, "--upload: %s", vtb_errmsg());
				ret = VTB_EXIT_USAGE;
				goto out;
			}
			uploads[n_uploads++] = optarg;
			break;
		case 'h':
			fputs(run_usage, stdout);
			ret = 0;
			goto out;
		default:
			fputs(run_usage, stderr);
			ret = VTB_EXIT_USAGE;
			goto out;
		}
	}
	if (optind != env->argc - 1) {
		vtb_cmd_err(env, "expected one matrix file");
		fputs(run_usage, stderr);
		ret = VTB_EXIT_USAGE;
		goto out;
	}
	ret = vtb_cmd_setup(env);
	if (ret)
		goto out;
	agent = vtb_agent_path();
	if (!agent || access(agent, X_OK) < 0) {
		vtb_cmd_err(env,
			    "cannot find the agent '%s' (build it with make, or set VTBENCH_AGENT)",
			    agent ? agent : "vtbench-agent");
		ret = VTB_EXIT_INFRA;
		goto out;
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
		goto out_run;
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
	if (n_uploads && res.interrupted) {
		fprintf(stderr,
			"not uploaded: the campaign was interrupted; after --resume, run: vtbench upload --db %s --to URL\n",
			res.db);
	} else if (n_uploads) {
		int up = upload_all(env, &res, uploads, n_uploads);

		/* a failed upload never changes what is stored, nor hides a
		 * failed boot (exit 1) */
		if (up && ret == VTB_EXIT_OK)
			ret = VTB_EXIT_INFRA;
	}
out_run:
	vtb_run_result_release(&res);
out:
	free(agent);
	free(uploads);
	return ret;
}
