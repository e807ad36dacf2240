/* SPDX-License-Identifier: MIT */
/*
 * vtbench compare: selects campaigns and configurations, builds the
 * report document (compare.h) and hands it to one emitter.  Exit codes:
 * 0 nothing fails, 1 a row fails under --fail-on (default: a worse,
 * missing or error row), 2 bad input, 3 infrastructure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/opt.h"
#include "cmd.h"
#include "../compare/compare.h"
#include "../../reports/report.h"

enum {
	OPT_DB = 256,
	OPT_CAMPAIGN,
	OPT_AGAINST,
	OPT_AGAINST_CAMPAIGN,
	OPT_BASELINE,
	OPT_AXIS,
	OPT_METRIC,
	OPT_WORKLOAD,
	OPT_THRESHOLD,
	OPT_ALPHA,
	OPT_COV_LIMIT,
	OPT_FAIL_ON,
	OPT_FAMILY,
	OPT_NO_ROBUST,
	OPT_FORMAT,
	OPT_OUTPUT = 'o',
	OPT_QUIET = 'q',
};

static const struct vtb_cli_opt compare_opts[] = {
	{ .help = "selection:" },
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database (default: results.db)" },
	{ .name = "campaign",
	  .id = OPT_CAMPAIGN,
	  .arg = "ID",
	  .help = "campaign uuid or prefix (default: the latest)" },
	{ .name = "against",
	  .id = OPT_AGAINST,
	  .arg = "OTHER.db",
	  .help = "compare with the latest (or --against-campaign) campaign of another database, "
		  "matched by cell key" },
	{ .name = "against-campaign",
	  .id = OPT_AGAINST_CAMPAIGN,
	  .arg = "ID",
	  .help = "the campaign to compare with (in OTHER.db, else --db)" },
	{ .name = "baseline",
	  .id = OPT_BASELINE,
	  .arg = "SPEC",
	  .help = "own (default: each VM against the baseline on its pCPUs, else one with as many "
		  "CPUs), or a configuration key prefix or label glob every other one is compared "
		  "with" },
	{ .name = "axis",
	  .id = OPT_AXIS,
	  .arg = "NAME",
	  .help = "compare along one axis holding every other parameter: topology, pinning, sched, "
		  "vcpus, guest_kernel ([vm] kernel =) or any parameter (the first value is the "
		  "baseline); host, host_kernel (formerly kernel) across campaigns: with --against, "
		  "or alone in a merged database" },
	{ .name = "metric",
	  .id = OPT_METRIC,
	  .arg = "GLOB",
	  .help = "metrics to compare (default: all)" },
	{ .name = "workload",
	  .id = OPT_WORKLOAD,
	  .arg = "NAME",
	  .help = "one workload type or cell name (default: all)" },
	{ .help = "statistics:" },
	{ .name = "threshold",
	  .id = OPT_THRESHOLD,
	  .arg = "PCT",
	  .help = "a change that matters, in percent (5 or 5%): worse/better beyond it, same "
		  "within it (default: 5)" },
	{ .name = "alpha",
	  .id = OPT_ALPHA,
	  .arg = "A",
	  .help = "significance level of the BH q-values (default: 0.05); a row's interval is "
		  "at 1 - max(R, 1) A / m, R of the m rows tested being significant (the "
		  "Benjamini-Yekutieli level: it leaves out 0 exactly when BH selects the row)" },
	{ .name = "family",
	  .id = OPT_FAMILY,
	  .arg = "WHICH",
	  .help = "the rows BH runs over: shown (default: the rows --metric and --workload "
		  "select, so they change a row's q) or all (every row of the comparison, "
		  "whatever is shown: a fixed family)" },
	{ .name = "no-robust",
	  .id = OPT_NO_ROBUST,
	  .help = "the plain statistic: no boot set aside as an outlier, tails (p99 and above, "
		  "_max) from one value per boot instead of the pooled histograms" },
	{ .name = "cov-limit",
	  .id = OPT_COV_LIMIT,
	  .arg = "CLASS=PCT",
	  .help = "note a row as noisy above this CoV (never a verdict): throughput, time "
		  "(default 5), latency (default 20)" },
	{ .name = "fail-on",
	  .id = OPT_FAIL_ON,
	  .arg = "LIST",
	  .help = "exit 1 for: worse (a worse, missing or error row, or a table whose every row "
		  "is few; the default), possible (an inconclusive row whose interval reaches past "
		  "the threshold on the worse side, or a few row), a comma list of both, or none" },
	{ .help = "output:" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .values_of = vtb_report_names,
	  .help = "text (default; as wide as COLUMNS, else the terminal, also through a pipe, else 80 columns), md, "
		  "html, json or csv (vtbench list formats)" },
	{ .name = "output",
	  .id = OPT_OUTPUT,
	  .shortopt = 'o',
	  .arg = "FILE",
	  .help = "write to FILE (format from its extension; - is stdout)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "no report on stdout (-o FILE is still written): the exit code says whether "
		  "a row is worse" },
	{ 0 },
};

const struct vtb_cli compare_cli = {
	.cmd = "compare",
	.usage = "[options]",
	.about = "Compares the configurations of a campaign (each VM against its own bare-metal\n"
		 "baseline by default), or a campaign against another (--against), with one value\n"
		 "per boot and metric; a boot far from the others of its side (modified z above 8\n"
		 "and beyond the threshold, at most a fifth of them) is set aside and named.  Per\n"
		 "row one statistic: the ratio of means (harmonic for rates, geometric for\n"
		 "latencies) with its t interval and t test on the log scale (p99 and above and\n"
		 "_max: of the pooled histograms, boots resampled), Benjamini-Hochberg over the\n"
		 "rows shown, each interval at the level BH selects by; the verdict is read from\n"
		 "the interval: worse or better (significant, beyond the threshold; confirmed when\n"
		 "the whole interval is), same (the interval within +-threshold), inconclusive\n"
		 "(with the boots a side that would decide it), few (under 2 boots a side: not\n"
		 "judged), missing (a result absent on one side), error (values the statistic\n"
		 "cannot take); then the guest evidence.\n",
	.opts = compare_opts,
	.exits = "0 no row fails (see --fail-on), 1 a row is worse, missing or an error, or "
		 "every row is few (nothing could be judged), or what --fail-on names (possible: "
		 "also few rows), 2 usage or input "
		 "error (no campaign, nothing to match), 3 infrastructure failure (the database, "
		 "writing the report).",
};

/* "worse", "possible", "worse,possible" (any order), or "none". */
static int parse_fail_on(const char *s, unsigned *out)
{
	unsigned f = 0;
	size_t n;

	if (!strcmp(s, "none")) {
		*out = 0;
		return 0;
	}
	for (; *s; s += n + (s[n] == ',')) {
		n = strcspn(s, ",");
		if (n == 5 && !strncmp(s, "worse", n))
			f |= VTB_FAIL_WORSE;
		else if (n == 8 && !strncmp(s, "possible", n))
			f |= VTB_FAIL_POSSIBLE;
		else
			return -1;
		if (s[n] == ',' && !s[n + 1])
			return -1;
	}
	if (!f)
		return -1;
	*out = f;
	return 0;
}

/* The format called @name; else NULL, with the usage error naming the
 * known ones and the nearest (as a value list in the option table would:
 * the registry is the list). */
static const struct vtb_report_ops *format_named(const char *name)
{
	const struct vtb_report_ops *r = vtb_report_find(name);
	const char *const *names = vtb_report_names();
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *near;

	if (r)
		return r;
	for (size_t i = 0; names[i]; i++)
		vtb_strbuf_addf(&sb, "%s%s", !i ? "" : names[i + 1] ? ", " : " or ", names[i]);
	near = vtb_suggest(names, name);
	vtb_cli_usage_error(&compare_cli, "unknown value '%s' for --format: expected %s%s%s%s",
			    name, sb.len ? vtb_strbuf_str(&sb) : "?",
			    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	vtb_strbuf_release(&sb);
	return NULL;
}

size_t vtb_cmd_text_columns(FILE *f)
{
	const char *e = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	int tty;

	if (e && *e) {
		unsigned long v;

		errno = 0;
		v = strtoul(e, &end, 10);
		if (!errno && !*end && v > 0 && v <= 10000)
			return v;
	}
	if (f != stdout)
		return VTB_CMD_COLUMNS;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	/* a pipe to a pager on the terminal the command was typed in */
	tty = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (tty >= 0) {
		int r = ioctl(tty, TIOCGWINSZ, &ws);

		close(tty);
		if (!r && ws.ws_col > 0)
			return ws.ws_col;
	}
	return VTB_CMD_COLUMNS;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*out) || *out < min || *out > max)
		return -1;
	return 0;
}

/* A percentage, 0 to 1e6, as "5" or "5%" (what users type). */
static int parse_pct(const char *s, double *out)
{
	size_t n = strlen(s);
	char *t;
	int r;

	if (n && s[n - 1] == '%')
		n--;
	t = strndup(s, n);
	if (!t)
		return -1;
	r = parse_double(t, 0, 1e6, out);
	free(t);
	return r;
}

static int parse_cov_limit(const char *s, struct vtb_test_opts *t)
{
	static const char *const classes[] = { "throughput", "time", "latency" };
	const char *eq = strchr(s, '=');

	if (!eq)
		return -1;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(classes); i++)
		if (strlen(classes[i]) == (size_t)(eq - s) &&
		    !strncmp(s, classes[i], (size_t)(eq - s)))
			return parse_double(eq + 1, 0, 1e6, &t->cov_limit[i]);
	return -1;
}

/* What the command line asks for. */
struct compare_args {
	struct vtb_compare_opts o;
	const struct vtb_report_ops *fmt;
	const char *against_db, *out_path;
	bool quiet;
};

/* One option into @a: 0, or -1 after the usage error is printed. */
static int apply_opt(struct vtb_cmd_env *env, struct compare_args *a, int c, const char *arg)
{
	switch (c) {
	case OPT_DB:
		env->db = arg;
		break;
	case OPT_CAMPAIGN:
		a->o.campaign = arg;
		break;
	case OPT_AGAINST:
		a->against_db = arg;
		break;
	case OPT_AGAINST_CAMPAIGN:
		a->o.against_campaign = arg;
		break;
	case OPT_BASELINE:
		a->o.baseline = arg;
		break;
	case OPT_AXIS:
		a->o.axis = arg;
		break;
	case OPT_METRIC:
		a->o.metric = arg;
		break;
	case OPT_WORKLOAD:
		a->o.workload = arg;
		break;
	case OPT_THRESHOLD:
		if (parse_pct(arg, &a->o.test.threshold_pct) < 0) {
			vtb_cli_usage_error(
				&compare_cli,
				"bad value '%s' for --threshold: expected a percentage "
				"from 0 to 1000000, as 5 or 5%% (a change beyond 5%% matters)",
				arg);
			return -1;
		}
		break;
	case OPT_ALPHA:
		if (parse_double(arg, 1e-9, 0.5, &a->o.test.alpha) < 0) {
			vtb_cli_usage_error(
				&compare_cli,
				"bad value '%s' for --alpha: expected a level above 0 and "
				"at most 0.5, as 0.05",
				arg);
			return -1;
		}
		break;
	case OPT_COV_LIMIT:
		if (parse_cov_limit(arg, &a->o.test) < 0) {
			vtb_cli_usage_error(&compare_cli,
					    "bad --cov-limit '%s' (CLASS=PCT, CLASS throughput, "
					    "time or latency)",
					    arg);
			return -1;
		}
		break;
	case OPT_FAIL_ON:
		if (parse_fail_on(arg, &a->o.fail_on) < 0) {
			vtb_cli_usage_error(&compare_cli,
					    "bad --fail-on '%s' (worse, possible, worse,possible or "
					    "none)",
					    arg);
			return -1;
		}
		break;
	case OPT_FAMILY:
		if (strcmp(arg, "all") && strcmp(arg, "shown")) {
			vtb_cli_usage_error(&compare_cli, "bad --family '%s' (all or shown)", arg);
			return -1;
		}
		a->o.family_all = !strcmp(arg, "all");
		break;
	case OPT_NO_ROBUST:
		a->o.test.plain = true;
		break;
	case OPT_FORMAT:
		a->fmt = format_named(arg);
		if (!a->fmt)
			return -1;
		break;
	case OPT_OUTPUT:
		a->out_path = arg;
		break;
	case OPT_QUIET:
		a->quiet = true;
		break;
	}
	return 0;
}

/* The command line into @a, the format settled (--format, else -o's
 * extension, else text): true to go on, else false with *ret the exit
 * code (0 after --help). */
static bool parse_args(struct vtb_cmd_env *env, struct compare_args *a, int *ret)
{
	struct vtb_cli_parser cp;
	const char *arg;
	int c;

	memset(a, 0, sizeof(*a));
	vtb_compare_opts_default(&a->o);
	vtb_cli_init(&cp, &compare_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0)
		if (apply_opt(env, a, c, arg) < 0) {
			*ret = VTB_EXIT_USAGE;
			return false;
		}
	if (c < 0) {
		*ret = vtb_cli_exit(c);
		return false;
	}
	*ret = VTB_EXIT_USAGE;
	if (cp.optind != env->argc) {
		vtb_cli_usage_error(&compare_cli, "unexpected argument '%s'", env->argv[cp.optind]);
		return false;
	}
	if (!a->fmt && a->out_path && strcmp(a->out_path, "-")) {
		a->fmt = vtb_report_for_path(a->out_path);
		if (!a->fmt) {
			vtb_cmd_err(env,
				    "cannot tell the format of '%s' from its extension: give "
				    "--format",
				    a->out_path);
			return false;
		}
	}
	if (!a->fmt)
		a->fmt = vtb_report_find("text");
	return true;
}

/*
 * -o FILE, by the one output rule (common/outfile.h): a regular file is
 * replaced whole once the report is (vtb_cmd_output_commit), a device or
 * FIFO is written through, a symlink resolved and said, the command's
 * inputs (@inputs) refused.  0, or the exit code after the message.
 */
int vtb_cmd_output_open(const struct vtb_cmd_env *env, struct vtb_cmd_output *out, const char *path,
			const struct vtb_out_input *inputs)
{
	int r;

	memset(out, 0, sizeof(*out));
	out->f = stdout;
	if (!path || !strcmp(path, "-"))
		return 0;
	r = vtb_outfile_open(&out->o, path, 0, inputs);
	if (r) {
		out->f = stdout;
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return r == VTB_OUT_EINPUT ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
	}
	out->path = path;
	out->f = out->o.f;
	if (out->o.note)
		vtb_cmd_err(env, "%s", out->o.note);
	return 0;
}

/* The whole report written and put in place: 0 or the exit code. */
int vtb_cmd_output_commit(const struct vtb_cmd_env *env, struct vtb_cmd_output *out)
{
	if (!out->path)
		return 0;
	out->f = NULL;
	if (vtb_outfile_commit(&out->o) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	return 0;
}

/* After a failure (or a commit): a temporary goes, FILE stays as it was. */
void vtb_cmd_output_abandon(struct vtb_cmd_output *out)
{
	vtb_outfile_abandon(&out->o);
	out->f = NULL;
}

/* The compare document's rows and series as a report reads them. */
static json_t *doc_row(const void *src, size_t i)
{
	return vtb_compare_doc_row(src, i);
}

static json_t *doc_series(const void *src, size_t i)
{
	return vtb_compare_doc_series(src, i);
}

int cmd_compare(struct vtb_cmd_env *env)
{
	struct compare_args a;
	struct vtb_cmd_output out = { .f = stdout };
	struct vtb_out_input inputs[3] = { { .what = "the database", .sqlite = true },
					   { .what = "the --against database", .sqlite = true } };
	struct vtb_store *against = NULL;
	struct vtb_compare_doc *doc = NULL;
	bool bad = false;
	int ret;

	if (!parse_args(env, &a, &ret))
		return ret;
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	inputs[0].path = env->db;
	inputs[1].path = a.against_db;
	if (a.against_db && vtb_store_open_ro(a.against_db, &against) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_USAGE;
	}
	/* the output checked before the work: a path refused costs nothing */
	ret = vtb_cmd_output_open(env, &out, a.out_path, inputs);
	if (ret)
		goto out;
	if (vtb_compare_open(env->store, env->db, against, a.against_db, &a.o, &doc, &bad) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = bad ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		goto out;
	}
	if (!a.quiet || out.path) {
		struct vtb_report_opts ro = { .columns = vtb_cmd_text_columns(out.f) };
		/* the rows and series made as the report writes them */
		struct vtb_report_doc rd = { .head = vtb_compare_doc_head(doc),
					     .nrows = vtb_compare_doc_nrows(doc),
					     .nseries = vtb_compare_doc_nseries(doc),
					     .row = doc_row,
					     .series = doc_series,
					     .src = doc,
					     .rows_ok = true };

		if (a.fmt->render_doc(&rd, &ro, out.f) < 0) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			ret = VTB_EXIT_INFRA;
			goto out;
		}
	}
	ret = vtb_cmd_output_commit(env, &out);
	if (!ret)
		ret = vtb_compare_doc_failing(doc, a.o.fail_on) ? VTB_EXIT_FAIL : VTB_EXIT_OK;
out:
	vtb_cmd_output_abandon(&out);
	vtb_compare_doc_free(doc);
	vtb_store_close(against);
	return ret;
}
