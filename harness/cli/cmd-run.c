/* SPDX-License-Identifier: MIT */
/* vtbench run: options, progress display and the closing summary. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "../boot/runner.h"
#include "../upload/upload.h"

#define RUN_SCHEMA "vtbench-run-summary/1"

enum {
	OPT_DB = 256,
	OPT_RESUME,
	OPT_ONLY,
	OPT_REPS,
	OPT_UPLOAD,
	OPT_FORMAT,
	OPT_QUIET = 'q',
	OPT_VERBOSE = 'v',
};

static const struct vtb_cli_opt run_opts[] = {
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database, from the working directory (default: the matrix's db =, from "
		  "the matrix file's directory, else results.db)" },
	{ .name = "resume",
	  .id = OPT_RESUME,
	  .help = "continue the latest campaign of this matrix on this host: boots already "
		  "stored are skipped, never run twice" },
	{ .name = "only",
	  .id = OPT_ONLY,
	  .arg = "GLOB",
	  .help = "run only configurations whose label or key matches (comma list of globs, "
		  "e.g. 'baseline cpus=2')" },
	{ .name = "reps",
	  .id = OPT_REPS,
	  .arg = "N|auto",
	  .help = "override the matrix's reps = (default: the matrix's); auto: interleaved rounds "
		  "until every compare row of a configuration is decided (the matrix's min_reps, "
		  "max_reps and budget, else 3, 20 and none)" },
	{ .name = "upload",
	  .id = OPT_UPLOAD,
	  .arg = "URL",
	  .help = "when the campaign ends, upload it (vtbench upload --to URL; repeatable); a "
		  "failed upload is reported, exits 3 if the run was fine, and is left for a later "
		  "vtbench upload" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FORMAT",
	  .values = vtb_cmd_formats,
	  .help = "the closing summary: text (default) or json (one document on stdout when "
		  "run ends, \"schema\": \"" RUN_SCHEMA "\"; progress, messages and the text "
		  "summary go to stderr)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "no progress: only warnings, errors and the summary" },
	{ .name = "verbose",
	  .id = OPT_VERBOSE,
	  .shortopt = 'v',
	  .help = "every boot's outcome on its own line, also on a terminal (where by default "
		  "only failed boots get one)" },
	{ 0 },
};

const struct vtb_cli run_cli = {
	.cmd = "run",
	.usage = "MATRIX.conf [options]",
	.about = "Runs every (configuration, rep) boot of the matrix in its order and stores\n"
		 "each boot in SQLite in one transaction.  Bare-metal baselines run the\n"
		 "agent confined to the configuration's CPUs.\n",
	.opts = run_opts,
	.exits = "0 every boot ok; 1 some boots failed or timed out (all stored), or a configuration "
		 "was not run because its kernel lacks a knob of its sched profile; 2 usage or "
		 "input error, or a preflight check failed (vtbench doctor; nothing written); 3 "
		 "infrastructure failure, or an --upload failed; 130 interrupted by SIGINT, 143 "
		 "by SIGTERM (what was stored is kept: resume with --resume).",
};

static void fmt_dur(char *buf, size_t len, double s)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void close_line(struct vtb_progress_state *ps)
{
	if (ps->line_open)
		fputs("\r\033[K", stderr);
	ps->line_open = false;
}

/* Characters (not bytes) of UTF-8 @s: the columns it takes (labels are
 * sanitised text; wide characters are not told apart) */
static size_t u8_len(const char *s, size_t bytes)
{
	size_t n = 0;

	for (size_t i = 0; i < bytes; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* The byte offset of character @chars of @s (its end when shorter) */
static size_t u8_off(const char *s, size_t chars)
{
	size_t i = 0;

	for (size_t n = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == chars)
			break;
	}
	return i;
}

/* The terminal's width now (re-read every refresh: a resized window
 * takes effect at the next second's line), else COLUMNS, else 80 */
static size_t term_columns(void)
{
	struct winsize ws;
	const char *e = getenv("COLUMNS");
	char *end;
	long v;

	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	v = e ? strtol(e, &end, 10) : 0;
	return e && *e && !*end && v > 0 && v <= 10000 ? (size_t)v : 80;
}

/*
 * The updating line, cut to @cols - 1 characters (the last column stays
 * free: a line that fills it leaves the cursor past the edge on some
 * terminals).  What goes first when it does not fit: the undecided rows,
 * "elapsed", the rep; then the label is shortened in its middle
 * ("vm vcpus=2 ...=strict"), to nothing at last; the position and the
 * eta stay; a terminal narrower than those gets their start.
 */
static void fit_line(struct vtb_strbuf *out, size_t cols, const char *head, const char *label,
		     const char *rep, const char *el, const char *eta, const char *rows)
{
	size_t max = cols > 1 ? cols - 1 : 1, lab = u8_len(label, strlen(label));

	for (int drop = 0; drop <= 3; drop++) {
		const char *r = drop < 1 ? rows : "", *e = drop < 2 ? el : "",
			   *p = drop < 3 ? rep : "";
		size_t fixed = u8_len(head, strlen(head)) + 2 + u8_len(p, strlen(p)) +
			       u8_len(e, strlen(e)) + u8_len(eta, strlen(eta)) +
			       u8_len(r, strlen(r));

		if (fixed + lab <= max || (drop == 3 && fixed + 3 < max)) {
			vtb_strbuf_addf(out, "%s  ", head);
			if (fixed + lab <= max) {
				vtb_strbuf_addf(out, "%s", label);
			} else { /* keep the label's both ends */
				size_t room = max - fixed, a = (room - 3 + 1) / 2, b = room - 3 - a;
				size_t ta = u8_off(label, a), tb = u8_off(label, lab - b);

				vtb_strbuf_addf(out, "%.*s...%s", (int)ta, label, label + tb);
			}
			vtb_strbuf_addf(out, "%s%s%s%s", p, e, eta, r);
			return;
		}
	}
	/* not even the position and the eta with a label: those alone, cut */
	{
		struct vtb_strbuf t = VTB_STRBUF_INIT;

		vtb_strbuf_addf(&t, "%s%s", head, eta);
		vtb_strbuf_addf(out, "%.*s", (int)u8_off(vtb_strbuf_str(&t), max),
				vtb_strbuf_str(&t));
		vtb_strbuf_release(&t);
	}
}

/* A boot's line.  @label, @status (NULL: starting) and @error are safe
 * for the terminal already. */
static void boot_line(struct vtb_progress_state *ps, const struct vtb_progress *p,
		      const char *label, const char *status, const char *error)
{
	char el[32], eta[32], rows[48] = "";

	fmt_dur(el, sizeof(el), p->elapsed_seconds);
	if (p->eta_seconds < 0)
		snprintf(eta, sizeof(eta), "?");
	else
		fmt_dur(eta, sizeof(eta), p->eta_seconds);
	/* reps = auto: the total is the most boots still possible */
	if (p->reps_auto && p->undecided >= 0)
		snprintf(rows, sizeof(rows), ", %ld row%s undecided", p->undecided,
			 p->undecided == 1 ? "" : "s");
	if (ps->tty) {
		if (!status) {
			char head[64], rep[32], elapsed[48], etas[48];
			struct vtb_strbuf line = VTB_STRBUF_INIT;

			snprintf(head, sizeof(head), "boot %zu/%s%zu", p->index,
				 p->reps_auto ? "<=" : "", p->total);
			snprintf(rep, sizeof(rep), "  rep %d", p->rep);
			snprintf(elapsed, sizeof(elapsed), "  elapsed %s", el);
			snprintf(etas, sizeof(etas), "  eta %s%s", p->reps_auto ? "<=" : "", eta);
			fit_line(&line, term_columns(), head, label, rep, elapsed, etas, rows);
			fprintf(stderr, "\r\033[K%s", vtb_strbuf_str(&line));
			vtb_strbuf_release(&line);
			ps->line_open = true;
		} else if (strcmp(status, "ok") || ps->verbose) {
			/* a line that stays: whole, the terminal wraps it */
			fprintf(stderr, "\r\033[Kboot %zu/%s%zu  %s  rep %d: %s (%.1fs)%s%s\n",
				p->index, p->reps_auto ? "<=" : "", p->total, label, p->rep, status,
				p->boot_seconds, error ? ": " : "", error ? error : "");
			ps->line_open = false;
		}
		fflush(stderr);
		return;
	}
	if (status)
		fprintf(ps->json ? stderr : stdout, "boot %zu/%s%zu %s rep %d: %s (%.1fs)%s%s%s\n",
			p->index, p->reps_auto ? "<=" : "", p->total, label, p->rep, status,
			p->boot_seconds, error ? ": " : "", error ? error : "", rows);
	fflush(ps->json ? stderr : stdout);
}

/* Labels, errors, warnings and notes quote guests and files: every one
 * goes through the one sanitiser (vtb_term_safe) to the terminal. */
void vtb_cmd_progress(const struct vtb_progress *p, void *arg)
{
	struct vtb_progress_state *ps = arg;
	char *label, *status, *error;

	if (p->warning) {
		close_line(ps);
		/* whose warning: the program, and the boot when it has one */
		label = p->label ? vtb_term_safe(p->label) : NULL;
		if (label)
			fprintf(stderr, "vtbench %s: boot %zu/%s%zu %s rep %d: warning: ", ps->cmd,
				p->index, p->reps_auto ? "<=" : "", p->total, label, p->rep);
		else
			fprintf(stderr, "vtbench %s: warning: ", ps->cmd);
		vtb_term_fputs(p->warning, stderr);
		fputc('\n', stderr);
		free(label);
		return;
	}
	if (p->note) {
		close_line(ps);
		if (!ps->quiet) {
			vtb_term_fputs(p->note, stderr);
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

int vtb_cmd_run_opts(const struct vtb_cmd_env *env, struct vtb_run_opts *o,
		     struct vtb_progress_state *ps, char **agent)
{
	*agent = vtb_agent_path();
	if (!*agent || access(*agent, X_OK) < 0) {
		vtb_cmd_err(env,
			    "cannot find the agent '%s' (build it with make, or set VTBENCH_AGENT)",
			    *agent ? *agent : "vtbench-agent");
		return VTB_EXIT_INFRA;
	}
	o->host_id = getenv("VTBENCH_HOST_ID");
	if (o->host_id && !*o->host_id)
		o->host_id = NULL;
	o->agent = *agent;
	o->cmdline = env->cmdline;
	o->progress = vtb_cmd_progress;
	o->progress_arg = ps;
	return VTB_EXIT_OK;
}

/* run --upload: the campaign to each sink, one after the other; nonzero
 * when one of them left something unsent (each says what and why). */
static int upload_all(const struct vtb_cmd_env *env, const struct vtb_run_result *res,
		      const char *const *urls, size_t n, json_t *sent)
{
	int failed = 0;

	fflush(stdout);
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
			.batch_bytes = VTB_UPLOAD_BATCH_BYTES,
		};

		if (vtb_cmd_upload(env, env->store, res->db, &o, false, sent))
			failed = -1;
	}
	return failed;
}

/* What the command line asks of run */
struct run_args {
	struct vtb_run_opts o;
	struct vtb_progress_state ps;
	const char **uploads; /* --upload URLs, n_uploads of them */
	size_t n_uploads;
	bool args_read; /* the command line was read: --format json prints */
	json_t *sent;	/* --format json: what each --upload did */
};

/* 0 to run; -1 to stop with *@code (--help, or a usage error, said) */
static int parse_args(struct vtb_cmd_env *env, struct run_args *a, int *code)
{
	struct vtb_cli_parser cp;
	const char *arg;
	int c;

	vtb_cli_init(&cp, &run_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_DB:
			a->o.db = arg;
			break;
		case OPT_RESUME:
			a->o.resume = true;
			break;
		case OPT_ONLY:
			a->o.only = arg;
			break;
		case OPT_REPS:
			a->o.reps_auto = !strcmp(arg, "auto");
			if (!a->o.reps_auto && vtb_parse_int(arg, 1, 100000, &a->o.reps)) {
				vtb_cli_usage_error(&run_cli, "--reps: %s (or auto)", vtb_errmsg());
				*code = VTB_EXIT_USAGE;
				return -1;
			}
			break;
		case OPT_QUIET:
			a->ps.quiet = true;
			break;
		case OPT_VERBOSE:
			a->ps.verbose = true;
			break;
		case OPT_FORMAT:
			a->ps.json = !strcmp(arg, "json");
			break;
		case OPT_UPLOAD:
			/* a wrong URL is found now, not after hours of boots */
			if (vtb_upload_check_url(arg) < 0) {
				vtb_cli_usage_error(&run_cli, "--upload: %s", vtb_errmsg());
				*code = VTB_EXIT_USAGE;
				return -1;
			}
			a->uploads[a->n_uploads++] = arg;
			break;
		}
	}
	return vtb_cmd_run_args_end(&run_cli, env, c, cp.optind, &a->ps, &a->o.matrix, code);
}

int vtb_cmd_run_args_end(const struct vtb_cli *cli, const struct vtb_cmd_env *env, int c,
			 int optind, const struct vtb_progress_state *ps, const char **matrix,
			 int *code)
{
	*code = VTB_EXIT_USAGE;
	if (c < 0) {
		*code = vtb_cli_exit(c); /* --help: 0 */
		return -1;
	}
	if (optind != env->argc - 1) {
		vtb_cli_usage_error(cli, "expected one matrix file");
		return -1;
	}
	if (ps->quiet && ps->verbose) {
		vtb_cli_usage_error(cli, "--quiet and --verbose contradict each other");
		return -1;
	}
	*matrix = env->argv[optind];
	return 0;
}

int vtb_cmd_run_failed(const struct vtb_cmd_env *env, const char *matrix,
		       const struct vtb_progress_state *ps, struct vtb_run_result *res)
{
	if (ps->line_open)
		fputs("\r\033[K", stderr);
	vtb_cmd_err(env, "%s", vtb_errmsg());
	/* an input error (exit 2) writes nothing: the campaign this command
	 * began is taken back (main removes a database it created) */
	if (res->fail == VTB_RUN_INPUT && res->campaign[0] && !res->resumed && env->store) {
		if (env->created_db) {
			fprintf(stderr, "nothing is kept: '%s' is removed\n", res->db);
			res->campaign[0] = '\0';
		} else if (vtb_store_campaign_delete(env->store, res->campaign) == 0) {
			fprintf(stderr, "nothing is kept: campaign %s is taken out of '%s' again\n",
				res->campaign, res->db);
			res->campaign[0] = '\0';
		} else {
			vtb_cmd_err(env, "warning: campaign %s stays in '%s' (marked failed): %s",
				    res->campaign, res->db, vtb_errmsg());
		}
		return VTB_EXIT_USAGE;
	}
	if (res->campaign[0] && res->db)
		fprintf(stderr,
			"what was stored is kept; resume with: vtbench %s %s --db %s --resume\n",
			env->name, matrix, res->db);
	return res->fail == VTB_RUN_INPUT ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
}

void vtb_cmd_run_boots_line(FILE *f, const struct vtb_run_result *res)
{
	fprintf(f, "campaign %s%s: %zu boot%s run (%zu ok, %zu failed, %zu timed out)",
		res->campaign, res->resumed ? " (resumed)" : "", res->ran, res->ran == 1 ? "" : "s",
		res->ok, res->failed, res->timeout);
	if (res->unexpected)
		fprintf(f, ", %zu unexpected-topology", res->unexpected);
	if (res->skipped)
		fprintf(f, ", %zu already stored", res->skipped);
	if (res->lacking)
		fprintf(f,
			", %zu configuration%s not run (its kernel lacks a knob of its sched profile)",
			res->lacking, res->lacking == 1 ? "" : "s");
}

/* The closing summary, on stdout (stderr with --format json) */
static void print_summary(FILE *f, const struct vtb_run_result *res)
{
	char *db;

	vtb_cmd_run_boots_line(f, res);
	if (res->reps_auto && res->undecided < 0 && (res->budget_spent || res->interrupted))
		fprintf(f, "\nreps = auto: stopped before the first decision (%s)",
			res->budget_spent ? "the budget is spent" : "interrupted");
	else if (res->reps_auto && res->undecided == 0 && res->missing > 0 && res->rounds)
		fprintf(f,
			"\nreps = auto: %ld compare row%s missing (no result on a side: not decided, and more boots of a failing side would not decide %s), the others decided after %zu round%s",
			res->missing, res->missing == 1 ? "" : "s",
			res->missing == 1 ? "it" : "them", res->rounds,
			res->rounds == 1 ? "" : "s");
	else if (res->reps_auto && res->undecided == 0 && res->missing > 0)
		fprintf(f,
			"\nreps = auto: %ld compare row%s missing (no result on a side: not decided, and more boots of a failing side would not decide %s), the others already decided",
			res->missing, res->missing == 1 ? "" : "s",
			res->missing == 1 ? "it" : "them");
	else if (res->reps_auto && res->undecided == 0 && !res->rounds)
		fprintf(f, "\nreps = auto: every compare row was already decided");
	else if (res->reps_auto && res->undecided == 0)
		fprintf(f, "\nreps = auto: every compare row decided after %zu round%s",
			res->rounds, res->rounds == 1 ? "" : "s");
	else if (res->reps_auto && res->undecided > 0)
		fprintf(f,
			"\nreps = auto: %ld compare row%s still undecided after %zu round%s (%s)",
			res->undecided, res->undecided == 1 ? "" : "s", res->rounds,
			res->rounds == 1 ? "" : "s",
			res->budget_spent  ? "the budget is spent"
			: res->capped	   ? "max_reps reached"
			: res->interrupted ? "interrupted"
					   : "stopped");
	db = vtb_cmd_abs_path(res->db);
	fprintf(f, "\nresults in %s; see: vtbench compare --db %s\n", db ? db : res->db,
		db ? db : res->db);
	free(db);
}

int vtb_cmd_run_exit(const struct vtb_cmd_env *env, const char *matrix,
		     const struct vtb_run_result *res)
{
	if (!res->interrupted)
		return res->failed || res->timeout || res->unexpected || res->lacking
			       ? VTB_EXIT_FAIL
			       : VTB_EXIT_OK;
	fflush(stdout);
	fprintf(stderr,
		"interrupted: the database is consistent; resume with: vtbench %s %s --db %s --resume\n",
		env->name, matrix, res->db);
	/* as a shell reports a process the signal killed: 130, 143 */
	return res->stop_signal == SIGTERM ? VTB_EXIT_TERMINATED : VTB_EXIT_INTERRUPTED;
}

/* After the campaign: the exit code of its boots, then --upload */
static int finish(const struct vtb_cmd_env *env, const struct run_args *a,
		  const struct vtb_run_result *res)
{
	int ret = vtb_cmd_run_exit(env, a->o.matrix, res);

	if (a->n_uploads && res->interrupted) {
		fprintf(stderr,
			"not uploaded: the campaign was interrupted; after --resume, run: vtbench upload --db %s --to URL\n",
			res->db);
	} else if (a->n_uploads) {
		int up = upload_all(env, res, a->uploads, a->n_uploads,
				    a->ps.json ? a->sent : NULL);

		/* a failed upload never changes what is stored, nor hides a
		 * failed boot (exit 1) */
		if (up && ret == VTB_EXIT_OK)
			ret = VTB_EXIT_INFRA;
	}
	return ret;
}

/* --format json: the document, whatever the outcome once the command
 * line was read; @status done, interrupted or error */
static int print_json(struct vtb_cmd_env *env, const struct run_args *a,
		      const struct vtb_run_result *res, const char *status, int64_t t0, int ret)
{
	json_t *doc = vtb_cmd_run_doc(env, RUN_SCHEMA, a->o.matrix, res, status,
				      strcmp(status, "error") ? NULL : vtb_cmd_last_err(), t0);
	bool bad = !doc;

	if (doc)
		bad = json_object_set(doc, "uploads", a->sent) < 0;
	return vtb_cmd_doc_print(env, doc, bad, ret);
}

int cmd_run(struct vtb_cmd_env *env)
{
	struct run_args a = { .ps = { .cmd = "run", .tty = isatty(2) } };
	struct vtb_run_input in = { 0 };
	struct vtb_run_result res = { 0 };
	const char *status = "error";
	int64_t t0 = vtb_cmd_wall_ns();
	char *agent = NULL;
	int ret;

	a.uploads = calloc((size_t)env->argc + 1, sizeof(*a.uploads));
	a.sent = json_array();
	if (!a.uploads || !a.sent) {
		vtb_cmd_err(env, "out of memory");
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	if (parse_args(env, &a, &ret))
		goto out;
	a.args_read = true;
	ret = vtb_cmd_run_opts(env, &a.o, &a.ps, &agent);
	if (ret)
		goto out;
	/* the host, the matrix read against it, then the database it names */
	ret = vtb_cmd_setup_host(env);
	if (ret)
		goto out;
	if (vtb_run_load(&a.o, env->host, &in, &res)) {
		ret = vtb_cmd_run_failed(env, a.o.matrix, &a.ps, &res);
		goto out;
	}
	ret = vtb_cmd_preflight(env, in.m, a.o.matrix);
	if (ret)
		goto out;
	env->db = res.db;
	ret = vtb_cmd_setup(env);
	if (ret)
		goto out;
	if (vtb_run(&a.o, &in, env->store, &res)) {
		ret = vtb_cmd_run_failed(env, a.o.matrix, &a.ps, &res);
		/* libvirt or the guest kernel failed before the campaign
		 * began: a database made for it holds nothing */
		env->discard_created_db = !res.campaign[0];
		goto out;
	}
	if (a.ps.line_open)
		fputs("\r\033[K", stderr);
	status = res.interrupted ? "interrupted" : "done";
	print_summary(a.ps.json ? stderr : stdout, &res);
	ret = finish(env, &a, &res);
out:
	if (a.ps.json && a.args_read)
		ret = print_json(env, &a, &res, status, t0, ret);
	vtb_run_input_release(&in);
	vtb_run_result_release(&res);
	free(agent);
	free(a.uploads);
	json_decref(a.sent);
	return ret;
}
